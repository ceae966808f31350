// Internal header of src/form: the formulations that turn the mechanics, hydraulics (and later
// friction) of a model into equations to integrate, behind one table of operations. The
// integrators of src/integ own the time discretization: they set the state from their unknowns
// and ask the formulation for the equations of motion at that state. A formulation never
// includes another one; what they share is in form_common.h (src/form only).
//
// A formulation offers one or both of
// - an ODE right-hand side: the accelerations at (t, z, zd, p, U) (`accelerations`), which the
//   explicit integrators drive (the tree formulation) and which gives every formulation its
//   consistent accelerations at t = 0;
// - an implicit residual (`residual`, `tangent`, ...) whose unknowns are `f->nmech` coordinates
//   (the rest of the state follows from them) plus the pressures the integrator appends.
#ifndef HYDYN_SRC_FORM_FORM_H_
#define HYDYN_SRC_FORM_FORM_H_

#include <stddef.h>

#include "core/core.h"
#include "hyd/hyd.h"
#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "mech/mech.h"

typedef struct hy_form hy_form;

// Most nonholonomic constraints of a model (hy_data_make refuses more): their small vectors
// live in local arrays.
#define HY_NH_MAX 64

// The coordinate partition of the closed-loop formulations (seed 000 Sect. 2.2, text after Eq.
// 15): every formulation closes the loops at t = 0 with it, and double-step steps with it.
// The independent and dependent coordinates themselves are public (hy_data.part, ndof).
typedef struct hy_partition {
  int nsel;                // equations used (rank of Phi_z when the partition was chosen)
  int* rowsel;             // the independent equations, ascending                  (neq)
  double* Pd;              // LU factors of the dependent block of Phi_z          (neq x neq)
  int* pivd;               // its pivots                                            (neq)
  double pivot_ratio;      // min/max |U_ii| of the dependent block at its last factoring
  double pivot_ratio_sel;  // its value when the partition was chosen
  double* Rz;              // velocity transformation R_z of Eq. 14, nz x ndof     (nz x nz)
  double* S;               // accelerations with zdd_i = 0 (R_z_dot zd_i of Eq. 15)   (nz)
  // Nonholonomic constraints (seed 003 Eqs. 45-52): of the ndof independent coordinates x_a,
  // the first nv = ndof - nnh are the independent velocities' x_ai, the last nnh the admissible
  // dependent x_ad, whose velocities follow from B zd = 0 (form_partition.c, hy_form_nh_*).
  int nv;                  // ndof - nnh
  double* Bbar;            // B R_z (seed 003 Eq. 50's B-bar)                    (nnh x nz)
  double* Bf;              // LU factors of its x_ad columns                     (nnh x nnh)
  int* Bpiv;               //                                                    (nnh)
  double nh_ratio;         // min/max |U_ii| of Bf at its last factoring
  double nh_ratio_sel;     // its value when x_ad was chosen
  double* T;               // zd = T zd_ai over all constraints D (Eq. 31)         (nz x nz)
  double* SD;              // zdd with zdd_ai = 0 over all constraints D           (nz)
} hy_partition;

// Coefficients of the implicit integrator's step, set by it before `begin`: the mechanical rows
// of its residual are w_pos times the equations of motion, and their tangent is
// M' + w_vel C + w_pos K (+ the formulation's constraint terms).
typedef struct hy_form_step {
  double h;        // step (s)
  double w_vel;    // d zd / d z_{k+1} times w_pos (trapezoidal rule: h / 2)
  double w_pos;    // row scale (trapezoidal rule: h^2 / 4)
  double tol_pos;  // Newton convergence on the coordinates (rad or m), opt.tol_pos or tighter
} hy_form_step;

// Power of the applied loads and force elements at a state (W), with the cylinders' parts.
typedef struct hy_form_power {
  double total;  // every load and force element
  double hyd;    // cylinders' pressure forces
  double visc;   // dissipated by cylinder viscosity (>= 0)
  double damp;   // end dampers
  double fric;   // dissipated by seal friction, F_mu s_dot
} hy_form_power;

typedef struct hy_form_ops {
  hy_formulation kind;
  const char* name;
  int has_ode;  // its accelerations are an ODE the explicit integrators may drive
  int no_mass_matrix;  // its accelerations need no M' and Q' (an O(N) method): the evaluation
                       // before them leaves the open-tree dynamics out
  // Bytes of the formulation's own struct and arrays, laid out by bind in mem (64-aligned).
  size_t (*size)(const hy_model* m);
  void (*bind)(hy_form* f, unsigned char* mem);
  // Bytes of arena scratch that one call of any operation needs at most.
  size_t (*scratch)(const hy_model* m);
  // After the shared initial state (hy_form_initial_state): consistent accelerations and the
  // formulation's own starting values (multipliers).
  hy_status (*start)(hy_form* f);
  // Accelerations d->zdd at the state in d, after hy_form_evaluate there. A Hamiltonian
  // formulation (velocities != NULL) writes the momenta's rates d->mom_d instead.
  hy_status (*accelerations)(hy_form* f);
  // Optional, a Hamiltonian formulation's: its state is (z, d->mom) and this sets d->zd from
  // them after the position stages (hy_form_forward then evaluates the rest at those velocities).
  hy_status (*velocities)(hy_form* f);
  // The implicit residual; NULL when the formulation has none. Its mechanical unknowns are
  // f->nmech coordinates, f->coord (kept current by the formulation).
  // Start of a step of f->step (the state in d is the start of the step).
  void (*begin)(hy_form* f);
  // Equations of motion at the state in d: the integrator has set the unknown coordinates,
  // their velocities and accelerations and the pressures; dx (f->nmech) is how far the unknowns
  // moved since the last evaluation (0 at a step's first). Completes the state (dependent
  // coordinates), evaluates everything (hydraulic derivatives unless f->skip_derivatives) and
  // writes the f->nmech mechanical rows, unscaled, into r. A positive status is recoverable.
  hy_status (*residual)(hy_form* f, const double* dx, double* r);
  // At the last residual evaluation: the mechanical block of the tangent (nmech x nmech,
  // row-major, with w_pos and w_vel of f->step) into Am, and the cylinder lengths' derivatives
  // with respect to the unknowns (ncyl x nmech) into Js. The mechanical rows take the cylinder
  // forces through Js^T as well (their pressure columns are -w_pos Js^T dF/dp), unless the
  // formulation's rows project the forces otherwise: it then writes that projection (ncyl x
  // nmech, the rows' dependence is -w_pos Jr^T dF/dp) into Jr and returns 1, else 0.
  int (*tangent)(hy_form* f, double* Am, double* Js, double* Jr);
  // After each Newton update.
  void (*iterated)(hy_form* f);
  // End of a converged step: the integrator has set the state of the converged unknowns, dx is
  // their move since the last evaluation. Completes it (projections, loop closure) and leaves
  // the outputs of the accepted state in d.
  hy_status (*accept)(hy_form* f, const double* dx);
  // A failed step: the formulation's own values back to the start of the step, whose state
  // and outputs the integrator has restored.
  void (*abort)(hy_form* f);
  // A failed step is about to be retried in shorter steps from its start (after abort): what
  // the formulation chose for the step may be chosen again. The integrator has saved the state
  // first, so a retry that fails for good still returns to the start bit for bit.
  void (*retry)(hy_form* f);
  // A formulation that owns its time discretization (the global-coordinate ones, which seed 001
  // pairs with their integrators): one step of size h from the state in d, which it completes
  // with its outputs; on failure the state is back at the start of the step and d->err says
  // why. NULL: the integrators of src/integ step it.
  hy_status (*step)(hy_form* f, double h);
  // What a step carries to the next one besides the public state (hy_state_* HIST segment).
  int (*hist_size)(const hy_model* m);
  void (*hist_get)(const hy_form* f, double* buf);
  void (*hist_set)(hy_form* f, const double* buf);
  // Whether buf (finite values) is a history hist_set may take: its counts whole and in range.
  int (*hist_ok)(const hy_model* m, const double* buf);
} hy_form_ops;

// Whether a data stepped by ops keeps no dense matrix over the coordinates: an O(N) formulation
// (no_mass_matrix) with no implicit residual and no step of its own, so that nothing forms M',
// its factor, R_z, T, W, the Newton tangent or the reduced equations. Its data then leave those
// arrays out (hy_data.M is NULL) and grow linearly with the bodies; the initial state takes
// Q' alone and R_z's dependent rows (form_init.c). The one place that decides it: every size,
// binding and evaluation that depends on it asks here.
static inline int hy_form_no_dense(const hy_form_ops* ops) {
  return ops->no_mass_matrix && !ops->residual && !ops->step;
}

extern const hy_form_ops hy_form_tree_ops;
extern const hy_form_ops hy_form_penalty_ops;
extern const hy_form_ops hy_form_doublestep_ops;
extern const hy_form_ops hy_form_ali1_ops;
extern const hy_form_ops hy_form_ali3p_ops;
extern const hy_form_ops hy_form_dca_ops;
extern const hy_form_ops hy_form_hdca_ops;
// Whether formulation dca or hdca (name) can run m (planar chains, loops closed to ground at a
// chain's tip), else HY_ERR_MODEL with the reason.
hy_status hy_form_dca_check(const hy_model* m, const char* name, hy_error* err);
// ALI3-P's Newton unknowns [q; p; w] (tests), and its analytic tangent at the predictor of a step
// of size h from the current state (A) beside central differences of its residual (F), n x n
// row-major, rows scaled as the residual; the state is left as it was. The analytic tangent
// leaves out the second derivatives of the geometry (of |s| and of Phi), which F has.
int hy_form_global_unknowns(const hy_form* f);
void hy_form_global_tangents(hy_form* f, double h, double* A, double* F);

// What a formulation works with. Bound once by the data; m and d are set by every entry point
// (hy_step and friends receive the model).
struct hy_form {
  const hy_form_ops* ops;
  void* self;  // the formulation's own struct
  const hy_model* m;
  hy_data* d;
  hy_mech_work* mech;
  hy_hyd_work* hyd;  // hydraulic derivatives at the last evaluation that had them
  hy_arena* arena;   // scratch, in frames
  hy_partition part;
  double* jac_s;  // d|s|/dz of every cylinder                                 (ncyl x nz)
  double* W;      // M' + w_vel C + w_pos K of the cylinders                    (nz x nz)
  hy_form_step step;
  int nmech;             // mechanical unknowns of the implicit residual
  const int* coord;      // the coordinate of each (NULL: unknown i is z_i)
  hy_form_power power;   // at the current state
  int skip_derivatives;  // set by the integrator when no tangent is formed from the next
                         // residual: the hydraulic derivatives are then not evaluated
};

// The formulation and integrator that run m, from the model's options (auto resolved from its
// contents), or HY_ERR_MODEL with a message in err naming why that pair cannot run the model.
// note (nullable, size bytes) receives a sentence when a choice was made automatically.
hy_status hy_form_choose(const hy_model* m, const hy_form_ops** ops, hy_integrator* integ,
                         char* note, size_t size, hy_error* err);

// Bytes of the shared arrays (partition, jac_s, W), laid out by hy_form_bind with the
// formulation's own.
size_t hy_form_size(const hy_model* m, const hy_form_ops* ops);
// Arena bytes the formulation and the shared initial state need at most.
size_t hy_form_scratch(const hy_model* m, const hy_form_ops* ops);
void hy_form_bind(hy_form* f, const hy_model* m, const hy_form_ops* ops, unsigned char* mem);

// The initial state after d->z, d->zd were set to the model's values: closes the loops
// (position and velocity level, keeping the independent coordinates), chooses the partition,
// the static forces of `equilibrium` elements, the initial pressures and spools, then the
// formulation's start (consistent accelerations, multipliers).
hy_status hy_form_initial_state(hy_form* f);
// A new start at the state in d (set from outside, hy_state_set): the partition chosen there
// and the formulation's start (consistent accelerations, multipliers), as at t = 0 but without
// closing the loops or solving for equilibrium.
hy_status hy_form_restart(hy_form* f);
// Everything at the state in d, then the formulation's accelerations (hy_forward).
hy_status hy_form_forward(hy_form* f);
// The outputs of the state in d without its accelerations and multipliers (kinematics, forces,
// flows, energies, powers), for a state set from outside (hy_state_set).
void hy_form_refresh(hy_form* f);
// Powers at the current state into f->power (after the outputs).
void hy_form_powers(hy_form* f);
// The partition's part of the history (hy_state_*): the selected equations, the independent
// coordinates and the pivot ratio of the choice.
int hy_form_partition_hist_size(const hy_model* m);
void hy_form_partition_hist_get(const hy_form* f, double* buf);
void hy_form_partition_hist_set(hy_form* f, const double* buf);
// Newton-Raphson on the selected constraint equations for the dependent coordinates, the
// independent ones fixed, then at the closed positions R_z of Eq. 14 (f->part.Rz) and the
// dependent velocities from the independent ones (Eq. 13): R_z and d->zd are written only when
// it returns HY_OK (form_partition.c; also the linearization's loop closure, seed 003 Eqs.
// 33-44).
hy_status hy_form_close_loops(hy_form* f);

// Nonholonomic constraints (form_partition.c, seed 003 Eqs. 45-52; also the linearization):
// B-bar at the current R_z and B, and the LU of its x_ad columns. HY_WARN_SINGULAR when singular.
hy_status hy_form_nh_factor(hy_form* f);
// zd of x_ad from those of x_ai by B zd = 0, then the holonomic dependent ones (Eq. 13).
void hy_form_nh_close_velocities(hy_form* f);
// T (zd = T zd_ai) and SD (zdd = T zdd_ai + SD) of all constraints D = [Phi_z; B] (seed 003
// Eqs. 31, 37-40), from R_z, S and the factored B-bar_ad.
void hy_form_nh_transform(hy_form* f);
// d|s|/dz of every cylinder into f->jac_s (needs the kinematics and the force geometry).
void hy_form_cylinder_jacobians(hy_form* f);
// Name of the joint behind coordinate z.
const char* hy_form_coord_name(const hy_model* m, int z);

#endif  // HYDYN_SRC_FORM_FORM_H_
