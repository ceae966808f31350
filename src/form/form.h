// Internal header of src/form: the formulations that turn mechanics (and later hydraulics and
// friction) into equations to integrate. Closed loops: the penalty (index-3 augmented Lagrangian
// with projections, seed 000 Eqs. 18-21) and double-step (coordinate partitioning, Eqs. 13-17)
// formulations, integrated by the trapezoidal rule with Newton-Raphson (Eqs. 32-41), whose
// iteration src/integ owns. A formulation provides the Newton problem: unknowns, residual,
// analytic tangent, per-iteration update and the end-of-step commit.
#ifndef HYDYN_SRC_FORM_FORM_H_
#define HYDYN_SRC_FORM_FORM_H_

#include <stddef.h>

#include "hyd/hyd.h"
#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "mech/mech.h"

// Work arrays of the formulations, owned by the data's private workspace.
typedef struct hy_form_work {
  double dt;        // step of the current trapezoidal step (s)
  double* z_k;      // state at the start of the step, restored when a step fails  (nz)
  double* zd_k;     //                                                            (nz)
  double* zdd_k;    //                                                            (nz)
  double* lam_k;    //                                                            (neq)
  double* hat_zd;   // trapezoidal predictor terms of Eq. 34                      (nz)
  double* hat_zdd;  //                                                            (nz)
  double* zdd_trap; // accelerations from the trapezoidal relations (Eq. 33)      (nz)
  double* A;        // M' + dt^2/4 Phi_z^T alpha Phi_z and its factors            (nz x nz)
  int A_at_evaluation;  // penalty: A (unfactored), W and jac_s are those of the last
                        // residual evaluation (the tangent was formed there)
  double* vec;      // scratch                                                    (nz)
  double* vec2;     // scratch                                                    (nz)
  int* piv;         // pivots of A                                                (nz)
  int lam_pending;  // penalty: apply Eq. 19 at the next evaluation
  double* lam_hist; // penalty: final lambda of the three steps before the current one,
                    // newest first, for the predictor                           (3 x neq)
  int nlam_hist;    // how many of them are known
  double lam_contraction;  // penalty: bound on the error factor of one Eq. 19 update
  // double-step partition
  int nsel;         // equations used (rank of Phi_z at selection)
  int* rowsel;      // the independent equations                                   (neq)
  double* Pd;       // dependent block of Phi_z (nsel x nsel) and its LU factors    (neq x neq)
  int* pivd;        // its pivots                                                 (neq)
  double pivot_ratio;  // min/max |U_ii| of the dependent block at the last evaluation
  double pivot_ratio_sel;  // its value when the partition was chosen
  double* Rz;       // velocity transformation R_z of Eq. 14, nz x ndof           (nz x nz)
  double* S;        // accelerations with zdd_i = 0 (the R_z_dot zd_i term of Eq. 15) (nz)
  double* Mr;       // M'' = R_z^T M' R_z of Eq. 17                               (nz x nz)
  double* full;     // full-pivoting LU scratch                                   (neq x nz)
  int* rperm;       //                                                            (neq)
  int* cperm;       //                                                            (nz)
  double* G;        // generalized forces of unit equilibrium forces              (nz x nfrc)
  // hydraulics, monolithic with the mechanics (seed 000 Sect. 4, Eqs. 30-39)
  hy_hyd_work hyd;  // derivatives of the hydraulics
  int skip_derivatives;  // set by the Newton iteration when no tangent is formed from the next
                         // residual: the hydraulic derivatives are then not evaluated, and
                         // hyd keeps those of the last evaluation that had them
  double* p_k;      // pressures, rates and spools at the start of the step        (nvol)
  double* pd_k;     //                                                            (nvol)
  double* U_k;      //                                                            (nvlv)
  double* hat_pd;   // trapezoidal predictor term of the pressures (Eq. 34)       (nvol)
  double* pd_trap;  // pressure rates from the trapezoidal relation (Eq. 33)      (nvol)
  double* pd_km1;   // pressure rates of the previous step, for the predictor     (nvol)
  double* jac_s;    // d|s|/dz of every cylinder                                  (ncyl x nz)
  double* W;        // M' + dt/2 C + dt^2/4 K of the cylinders                     (nz x nz)
  // the Newton tangent in blocks (hy_form_factor_tangent), nm mechanical unknowns
  double* tg_S;     // mechanical block, then its Schur complement and LU factors  (nz x nz)
  int* tg_Spiv;     //                                                            (nz)
  double* tg_D;     // pressure block and its LU factors                          (nvol x nvol)
  int* tg_Dpiv;     //                                                            (nvol)
  double* tg_G;     // d f_p / d s, then D^-1 of it                                (nvol x ncyl)
  double* tg_Js;    // d|s| / d(mechanical unknowns)                               (ncyl x nz)
  double* tg_Fp;    // d F_cyl / d p at the tangent's evaluation                  (ncyl x nvol)
  double* tg_k;     // scratch: dF/dp D^-1 G, or the cylinders' damping terms     (ncyl x ncyl)
  double* tg_y;     // scratch                                                    (nvol)
} hy_form_work;

// Doubles and ints the work arrays need.
size_t hy_form_work_doubles(const hy_model* m);
size_t hy_form_work_ints(const hy_model* m);
void hy_form_work_bind(const hy_model* m, hy_form_work* fw, double* dbuf, int* ibuf);

// Magnitudes of the force elements at d->time into d->frc_force (value or static equilibrium
// force, times the signal).
void hy_form_forces(const hy_model* m, hy_data* d);

// Prepares the initial state (after d->z, d->zd were set to the model's values): closes the
// loops (position and velocity level, keeping the independent coordinates), chooses the
// partition, computes the static forces of `equilibrium` elements and consistent
// accelerations (and multipliers for the penalty formulation).
hy_status hy_form_init(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw);

// Full evaluation at (time, z, zd): kinematics, constraints, forces, M', Q' and consistent
// accelerations by the model's formulation (hy_forward for closed-loop formulations).
hy_status hy_form_forward(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw);

//----- the trapezoidal-Newton problem ---------------------------------------------------------

// Number of Newton unknowns: [z; p] (penalty) or [z_i; p] (double-step), Eq. 48.
int hy_form_nx(const hy_model* m, const hy_data* d);
// Convergence tolerance of unknown i (opt.tol_pos for coordinates, opt.tol_p for pressures).
double hy_form_tol(const hy_model* m, const hy_data* d, int i);
// Name of the joint or volume behind unknown i, and whether it is a pressure.
const char* hy_form_unknown_name(const hy_model* m, const hy_data* d, int i, int* is_pressure);
// Starts a step of size dt from the current state: saves it, forms the predictor terms (Eq. 34)
// and writes the predictor of the unknowns into x.
void hy_form_step_begin(const hy_model* m, hy_data* d, hy_form_work* fw, double dt, double* x);
// Residual f(x) of Eq. 39 (penalty) or Eq. 38 (double-step), scaled by dt^2/4. Leaves d
// evaluated at x. A positive status is recoverable (the loop closure failed to converge).
hy_status hy_form_residual(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                           const double* x, double* f);
// Analytic approximate tangent (nx x nx, row-major) at the x of the last hy_form_residual call:
// mechanical block M' + dt^2/4 Phi_z^T alpha Phi_z (penalty) or M'' (double-step), each with the
// cylinders' damping and stiffness, and the exact hydraulic blocks. The Newton iteration uses
// the factored form below; the whole matrix is for checks and the finite-difference comparison.
void hy_form_tangent(const hy_model* m, hy_data* d, hy_form_work* fw, double* J);
// The same tangent, factored by eliminating the pressures in blocks (in fw). On a singular
// block, HY_WARN_SINGULAR and the unknown at which it was found in *sing.
hy_status hy_form_factor_tangent(const hy_model* m, hy_data* d, hy_form_work* fw, int* sing);
// Solves tangent * x = b in place in b (nx) with the factors of hy_form_factor_tangent.
void hy_form_solve_tangent(const hy_model* m, const hy_data* d, const hy_form_work* fw,
                           double* b);
// After each Newton update: the penalty formulation schedules its multiplier update (Eq. 19).
void hy_form_iteration_done(const hy_model* m, hy_data* d, hy_form_work* fw);
// Ends a converged step at x: final evaluation, projections (penalty, Eqs. 20-21), commit of
// z, zd, zdd at t + dt, and (double-step) re-selection of the partition when its dependent
// block degrades.
hy_status hy_form_step_end(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                           const double* x);
// Puts the state back to the start of the step (after a failure), outputs included.
void hy_form_step_abort(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw);

#endif  // HYDYN_SRC_FORM_FORM_H_
