// Helpers shared by the files of src/form only.
#ifndef HYDYN_SRC_FORM_FORM_IMPL_H_
#define HYDYN_SRC_FORM_FORM_IMPL_H_

#include "core/core.h"
#include "form/form.h"

// HY_SIZED on n for a kernel fn(n, nf, ...) of the double-step formulation, with the number nf
// of independent coordinates a constant too when it is 1, as on every seed mechanism with loops
// (one actuator, one degree of freedom): the loops over nf then vanish.
#define HY_FORM_SIZED_F1(n, nf, fn, ...)  \
  do {                                    \
    if ((nf) == 1) {                      \
      HY_SIZED(n, fn, 1, __VA_ARGS__);    \
    } else {                              \
      HY_SIZED(n, fn, nf, __VA_ARGS__);   \
    }                                     \
  } while (0)

// Everything at (time, z, zd, p, U): kinematics, constraints, force geometry, hydraulics
// (with derivatives when hw != NULL), force elements, M', Q', energies.
void hy_form_evaluate(const hy_model* m, hy_data* d, hy_mech_work* mw, hy_hyd_work* hw);
// The same after the position stages of the kinematics and the constraints have run at the
// current z; the bias Phi_z_dot zd only when with_bias (the penalty iterations do not use it).
void hy_form_evaluate_vel(const hy_model* m, hy_data* d, hy_mech_work* mw, hy_hyd_work* hw,
                          int with_bias);

// After the kinematics of an accepted state: the mechanics' output-only arrays, force geometry,
// cylinder forces and force magnitudes (for powers and records) and energies, without the
// dynamics.
void hy_form_outputs(const hy_model* m, hy_data* d, hy_mech_work* mw);
// d|s|/dz of every cylinder into fw->jac_s (needs the kinematics and force geometry).
void hy_form_cylinder_jacobians(const hy_model* m, hy_data* d, hy_form_work* fw);
// W = M' + dt/2 C + dt^2/4 K with the cylinders' damping and stiffness (needs fw->jac_s and the
// hydraulic derivatives in fw->hyd).
void hy_form_cylinder_matrix(const hy_model* m, const hy_data* d, hy_form_work* fw, double dt,
                             double* W);
// Pressure unknowns into d->p and their trapezoidal rates (Eq. 33) into fw->pd_trap.
void hy_form_set_pressures(const hy_model* m, hy_data* d, hy_form_work* fw, const double* xp);
// Pressure rows of the residual (after an evaluation at the same unknowns).
void hy_form_pressure_rows(const hy_model* m, hy_data* d, hy_form_work* fw, double* fp);
// Chooses independent coordinates and independent equations by full-pivoting LU of the current
// Phi_z (seed 000, text after Eq. 15); writes d->part, d->ndof, fw->rowsel, fw->nsel.
void hy_form_select_partition(const hy_model* m, hy_data* d, hy_form_work* fw);
// As hy_form_select_partition, but with the coordinates of joints marked independent in the
// model as the independent ones (when there are any): the equations are then chosen by full
// pivoting over the dependent columns. HY_ERR_MODEL when the marked set does not leave a
// non-singular dependent block.
hy_status hy_form_select_initial_partition(const hy_model* m, hy_data* d, hy_form_work* fw);
// Factors the dependent block of the current Phi_z. HY_WARN_SINGULAR when it is singular.
hy_status hy_form_factor_dependent(const hy_model* m, hy_data* d, hy_form_work* fw);
// Newton-Raphson on the selected constraint equations for the dependent coordinates, the
// independent ones fixed (the position step of the double-step method). Only the position stage
// of the kinematics runs (the velocity arrays are stale afterwards). Ends evaluated and
// factored at the solution. HY_NEWTON_NOCONV (> 0) or HY_WARN_SINGULAR when it fails.
hy_status hy_form_close_positions(const hy_model* m, hy_data* d, hy_form_work* fw,
                                  hy_mech_work* mw);
// hy_form_close_positions, then at the closed positions R_z of Eq. 14 and the dependent
// velocities from the independent ones (Eq. 13): fw->Rz and d->zd are written only when it
// returns HY_OK.
hy_status hy_form_close_loops(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw);
// Dependent velocities from the independent ones, Eq. 13 (needs the factored dependent block).
void hy_form_close_velocities(const hy_model* m, hy_data* d, hy_form_work* fw);
// R_z of Eq. 14 and S = R_z_dot zd_i of Eq. 15 at the current evaluation (needs the factored
// dependent block and the bias Phi_z_dot zd).
// With with_rz = 0 only S: R_z is kept, valid while the positions and the factors are those it
// was formed with.
void hy_form_velocity_transform(const hy_model* m, hy_data* d, hy_form_work* fw, int with_rz);
// Accelerations of the reduced equations M'' zdd_i = Q'' (Eqs. 16-17) into d->zdd.
hy_status hy_form_reduced_accelerations(const hy_model* m, hy_data* d, hy_form_work* fw);

// Whether the end of a step may keep the position stages of the last evaluation for a change
// dz (nz) of the coordinates since it: true when every |dz| is below 1e-3 of the position
// tolerance, and Phi and the violation are then moved to first order.
int hy_form_keep_positions(const hy_model* m, hy_data* d, const double* dz);

#endif  // HYDYN_SRC_FORM_FORM_IMPL_H_
