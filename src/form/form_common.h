// What the formulations of src/form share (src/form only): the evaluation stages, outputs,
// force magnitudes, the cylinders' damping and stiffness in the tangent, kept position stages,
// and the coordinate partition with the loop closure (form_partition.c). Neither
// form_common.c nor form_partition.c includes a formulation.
#ifndef HYDYN_SRC_FORM_FORM_COMMON_H_
#define HYDYN_SRC_FORM_FORM_COMMON_H_

#include "core/core.h"
#include "form/form.h"

//----- evaluation ------------------------------------------------------------------------------

// Magnitudes of the force elements at d->time into d->frc_force (value or static equilibrium
// force, times the signal); the cylinders' come from the hydraulics.
void hy_form_forces(const hy_model* m, hy_data* d);
// Everything at (time, z, zd, p, U): kinematics, constraints, force geometry, hydraulics
// (with derivatives when hw != NULL), force elements, M', Q'.
void hy_form_evaluate(const hy_model* m, hy_data* d, hy_mech_work* mw, hy_hyd_work* hw);
// The same after the position stages of the kinematics and the constraints have run at the
// current z; the bias Phi_z_dot zd only when with_bias (the penalty iterations do not use it).
void hy_form_evaluate_vel(const hy_model* m, hy_data* d, hy_mech_work* mw, hy_hyd_work* hw,
                          int with_bias);
// The open-tree dynamics at the kinematics in d as f's formulation keeps them: M' and Q'
// (hy_mech_dynamics), or Q' alone for one that keeps no dense matrix (hy_form_no_dense).
void hy_form_dynamics(hy_form* f);
// hy_form_evaluate(f->m, f->d, f->mech, NULL) with hy_form_dynamics at its end: what the initial
// state, a restart and the refresh of a state set from outside evaluate.
void hy_form_evaluate_state(hy_form* f);
// After the kinematics of an accepted state: the mechanics' output-only arrays, force geometry,
// cylinder forces and force magnitudes (for powers and records), energies and powers, without
// the dynamics.
void hy_form_outputs(hy_form* f);
// d|s|/dz of force element k into row (nz) (needs the kinematics and the force geometry).
void hy_form_length_jacobian(const hy_model* m, const hy_data* d, int k, double* row);
// W = M' + w_vel C + w_pos K with the cylinders' damping and stiffness along d|s|/dz (needs
// f->jac_s and the hydraulic derivatives) and the joint dampers' c_i on C's diagonal, with the
// weights of f->step.
void hy_form_cylinder_matrix(hy_form* f, double* W);

// Whether the end of a step may keep the position stages of the last evaluation for a change
// dz (nz) of the coordinates since it: true when every |dz| is below 1e-3 of the position
// tolerance of the step (f->step.tol_pos), and Phi and the violation are then moved to first
// order.
int hy_form_keep_positions(const hy_form* f, const double* dz);

//----- the open tree under an implicit integrator (tree and penalty share it) ----------------

// r = M' zdd - Q', seed 000 Eq. 12 as a residual, for nz coordinates: a sized kernel
// (HY_SIZED), inlined into the formulations' own so that their loops fuse.
static HY_ALWAYS_INLINE void hy_form_tree_rows_n(int nz, const hy_data* d, double* restrict r) {
  const double* restrict M = d->M;
  const double* restrict Q = d->Q;
  const double* restrict zdd = d->zdd;
  for (int i = 0; i < nz; i++) {
    double v = -Q[i];
    for (int k = 0; k < nz; k++) v += M[i * nz + k] * zdd[k];
    r[i] = v;
  }
}

//----- coordinate partition and loop closure (form_partition.c) ------------------------------

// Chooses independent coordinates and independent equations by full-pivoting LU of the current
// Phi_z (seed 000, text after Eq. 15); writes d->part, d->ndof and the partition's rows.
hy_status hy_form_select_partition(hy_form* f);
// As hy_form_select_partition, but with the coordinates of joints marked independent in the
// model as the independent ones (when there are any): the equations are then chosen by full
// pivoting over the dependent columns. HY_ERR_MODEL when the marked set does not leave a
// non-singular dependent block.
hy_status hy_form_select_initial_partition(hy_form* f);
// Factors the dependent block of the current Phi_z. HY_WARN_SINGULAR when it is singular.
hy_status hy_form_factor_dependent(hy_form* f);
// Newton-Raphson on the selected constraint equations for the dependent coordinates, the
// independent ones fixed (the position step of the double-step method). Only the position stage
// of the kinematics runs (the velocity arrays are stale afterwards). Ends evaluated and
// factored at the solution. HY_NEWTON_NOCONV (> 0) or HY_WARN_SINGULAR when it fails.
hy_status hy_form_close_positions(hy_form* f);
// Dependent velocities from the independent ones, Eq. 13 (needs the factored dependent block).
void hy_form_close_velocities(hy_form* f);
// R_z of Eq. 14 and S = R_z_dot zd_i of Eq. 15 at the current evaluation (needs the factored
// dependent block and the bias Phi_z_dot zd). With with_rz = 0 only S: R_z is kept, valid while
// the positions and the factors are those it was formed with.
void hy_form_velocity_transform(hy_form* f, int with_rz);
// The rows of R_z (Eq. 14) of the r = nsel dependent coordinates alone, -Pd^-1 Phi_i, into Rd
// (r x ndof, row j for coordinate d->part[ndof + j]; b: r doubles of scratch), from the factored
// dependent block: with the identity rows of the independent coordinates they are all of R_z,
// in O(r N) memory. What the initial state of a formulation that keeps no dense matrix
// (hy_form_no_dense) projects with.
void hy_form_rz_dependent(hy_form* f, double* Rd, double* b);
// Accelerations of the reduced equations M'' zdd_i = Q'' (Eqs. 16-17) into d->zdd.
hy_status hy_form_reduced_accelerations(hy_form* f);
// Consistent accelerations of a closed-loop formulation at the state in d, after
// hy_form_evaluate: the dependent block factored, R_z, then Eqs. 16-17.
hy_status hy_form_closed_accelerations(hy_form* f);

//----- nonholonomic constraints (form_partition.c, seed 003 Eqs. 45-52) ------------------------

// Chooses the nnh admissible dependent coordinates x_ad among the independent ones by full
// pivoting of B-bar = B R_z and orders d->part[0 .. ndof) as [x_ai; x_ad]; R_z follows. Needs
// the dependent block factored and B current. Factors B-bar_ad (nh_ratio_sel).
hy_status hy_form_nh_select(hy_form* f);
//----- arena scratch ---------------------------------------------------------------------------

// count doubles from the arena, or NULL after recording HY_ERR_ARENA in d->err.
double* hy_form_scratch_doubles(hy_form* f, size_t count);
int* hy_form_scratch_ints(hy_form* f, size_t count);

#endif  // HYDYN_SRC_FORM_FORM_COMMON_H_
