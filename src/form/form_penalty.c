// Penalty formulation: index-3 augmented Lagrangian in relative coordinates with
// mass-damping-stiffness orthogonal projections, seed 000_c866e3283107e8a4.txt Eqs. 18-21,
// integrated by the trapezoidal rule with the relative coordinates and the pressures as
// unknowns (Eqs. 31, 33-34, 36, 39, 48).
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_impl.h"
#include "form/form_methods.h"

// The loops over the coordinates below are sized kernels (HY_SIZED, core.h): nz is 3 on the
// seed mechanisms, where loop control would cost more than the arithmetic.

// W + dt^2/4 Phi_z^T alpha Phi_z, W = M' + dt/2 C + dt^2/4 K (Sect. 2.3): the mechanical block of
// the tangent and the matrix of the projections (Eqs. 20-21). Both are symmetric; each entry is
// formed once.
static HY_ALWAYS_INLINE void leading_n(int nz, int neq, double c, const double* restrict W,
                                       const double* restrict P, double* restrict A) {
  // the constraint rows outermost: the loops over nz inside them are the unrolled ones
  for (int i = 0; i < nz * nz; i++) A[i] = W[i];
  for (int e = 0; e < neq; e++) {
    const double* row = P + (size_t)e * nz;
    for (int i = 0; i < nz; i++) {
      const double ci = c * row[i];
      for (int j = 0; j < nz; j++) A[i * nz + j] += ci * row[j];
    }
  }
}

// W (into fw->W) and the leading matrix (into A).
static void leading_matrix(const hy_model* m, hy_data* d, hy_form_work* fw, double dt, double* A) {
  const double c = 0.25 * dt * dt * m->opt.penalty;
  hy_form_cylinder_matrix(m, d, fw, dt, fw->W);
  HY_SIZED(m->sizes.nz, leading_n, m->sizes.neq, c, fw->W, d->phi_z, A);
}

// y = W v for the nz x nz W (row-major).
static HY_ALWAYS_INLINE void mat_vec_n(int nz, const double* restrict W, const double* restrict v,
                                       double* restrict y) {
  for (int i = 0; i < nz; i++) {
    double s = 0;
    for (int k = 0; k < nz; k++) s += W[i * nz + k] * v[k];
    y[i] = s;
  }
}

// The state that the unknowns x (positions, then pressures) give by the trapezoidal relations
// (Eq. 33): z = x, zd = 2/dt x + hat_zd, zdd = 4/dt^2 x + hat_zdd. With dz != NULL, also the
// change of the coordinates since the last evaluation, dz = x - z.
static HY_ALWAYS_INLINE void set_state_n(int nz, double dt, const double* restrict x,
                                         const hy_form_work* fw, double* restrict z,
                                         double* restrict zd, double* restrict zdd,
                                         double* restrict dz) {
  const double c1 = 2 / dt, c2 = 4 / (dt * dt);
  const double* restrict hzd = fw->hat_zd;
  const double* restrict hzdd = fw->hat_zdd;
  for (int i = 0; i < nz; i++) {
    if (dz) dz[i] = x[i] - z[i];
    z[i] = x[i];
    zd[i] = c1 * x[i] + hzd[i];
    zdd[i] = c2 * x[i] + hzdd[i];
  }
}

// Eq. 39: f = dt^2/4 (M' zdd + Phi_z^T (alpha Phi + lambda) - Q')
static HY_ALWAYS_INLINE void residual_n(int nz, int neq, double s, double alpha,
                                        const hy_data* d, const double* restrict zdd,
                                        double* restrict f) {
  const double* restrict M = d->M;
  const double* restrict Q = d->Q;
  for (int i = 0; i < nz; i++) {
    double v = -Q[i];
    for (int k = 0; k < nz; k++) v += M[i * nz + k] * zdd[k];
    f[i] = v;
  }
  for (int e = 0; e < neq; e++) {
    const double g = alpha * d->phi[e] + d->lam[e];
    const double* row = d->phi_z + (size_t)e * nz;
    for (int i = 0; i < nz; i++) f[i] += row[i] * g;
  }
  for (int i = 0; i < nz; i++) f[i] *= s;
}

// The right-hand sides of the projections, Eqs. 20-21, before the solve with A: W zd' into v,
// or W zdd' - dt^2/4 Phi_z^T alpha (Phi_z_dot zd) when bias != NULL.
static HY_ALWAYS_INLINE void projection_rhs_n(int nz, int neq, const double* restrict W,
                                              const double* restrict v_in, const double* P,
                                              const double* bias, double c,
                                              double* restrict v) {
  mat_vec_n(nz, W, v_in, v);
  if (!bias) return;
  for (int e = 0; e < neq; e++) {
    const double* row = P + (size_t)e * nz;
    const double g = c * bias[e];
    for (int i = 0; i < nz; i++) v[i] -= row[i] * g;
  }
}

#define CONTRACTION_EVERY 8

// An Eq. 19 update leaves the multiplier error e as (I - c Phi_z A^-1 Phi_z^T) e, c = dt^2/4 alpha,
// A factored in fw->A. Its largest column sum bounds the spectral radius.
static double multiplier_contraction(const hy_model* m, const hy_data* d, hy_form_work* fw,
                                     double c) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  double* y = fw->vec2;
  double bound = 0;
  for (int f = 0; f < neq; f++) {
    memcpy(y, d->phi_z + (size_t)f * nz, sizeof(double) * (size_t)nz);
    hy_chol_solve(nz, fw->A, y);
    double sum = 0;
    for (int e = 0; e < neq; e++) {
      const double* row = d->phi_z + (size_t)e * nz;
      double g = 0;
      for (int i = 0; i < nz; i++) g += row[i] * y[i];
      sum += fabs((e == f ? 1.0 : 0.0) - c * g);
    }
    if (sum > bound) bound = sum;
  }
  return bound;
}

hy_status hy_penalty_residual(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                              const double* x, double* f) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  const double dt = fw->dt, alpha = m->opt.penalty;
  fw->A_at_evaluation = 0;
  // Eq. 33: velocities, accelerations and pressure rates as functions of the unknowns
  HY_SIZED(nz, set_state_n, dt, x, fw, d->z, d->zd, fw->zdd_trap, NULL);
  hy_form_set_pressures(m, d, fw, x + nz);
  hy_mech_kinematics_pos(m, d, mw);
  if (neq > 0) hy_mech_constraints_pos(m, d, mw);
  hy_form_evaluate_vel(m, d, mw, fw->skip_derivatives ? NULL : &fw->hyd, 0);
  // Eq. 19, for the positions of the previous Newton update
  if (fw->lam_pending) {
    for (int e = 0; e < neq; e++) d->lam[e] += alpha * d->phi[e];
    fw->lam_pending = 0;
  }
  HY_SIZED(nz, residual_n, neq, 0.25 * dt * dt, alpha, d, fw->zdd_trap, f);
  hy_form_pressure_rows(m, d, fw, f + nz);
  return HY_OK;
}

void hy_penalty_tangent_mech(const hy_model* m, hy_data* d, hy_form_work* fw, double* Am) {
  hy_form_cylinder_jacobians(m, d, fw);
  leading_matrix(m, d, fw, fw->dt, fw->A);
  fw->A_at_evaluation = 1;
  HY_COPY(m->sizes.nz * m->sizes.nz, Am, fw->A);
  HY_COPY(m->sizes.ncyl * m->sizes.nz, fw->tg_Js, fw->jac_s);
}

hy_status hy_penalty_end(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                         const double* x) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  const double dt = fw->dt, alpha = m->opt.penalty;
  // the state at the converged unknowns (Eq. 33); M' stays that of the last Newton evaluation,
  // one correction below the tolerance earlier, and the cylinder derivatives those of the
  // evaluation the tangent was formed at (docs/formulations.md, "End of a step")
  double* dz = fw->vec;
  HY_SIZED(nz, set_state_n, dt, x, fw, d->z, d->zd, fw->zdd_trap, dz);
  const int keep = hy_form_keep_positions(m, d, dz);
  hy_form_set_pressures(m, d, fw, x + nz);
  // positions now (unless the evaluation's are kept); velocities once they are projected
  if (!keep) hy_mech_kinematics_pos(m, d, mw);
  if (neq == 0) {
    hy_mech_kinematics_vel(m, d, mw);
    HY_COPY(nz, d->zdd, fw->zdd_trap);
    hy_form_outputs(m, d, mw);
    return HY_OK;
  }
  if (!keep) hy_mech_constraints_pos(m, d, mw);
  // Eq. 19 for the last update
  if (fw->lam_pending) {
    for (int e = 0; e < neq; e++) d->lam[e] += alpha * d->phi[e];
    fw->lam_pending = 0;
  }
  // projections, Eqs. 20-21: A zd = W zd', A zdd = W zdd' - dt^2/4 Phi_z^T alpha (Phi_z_dot zd)
  if (!keep) hy_mech_force_geometry(m, d);
  // a step that converged at its first evaluation, and kept its positions, has the matrix
  // already: the tangent was formed from the same evaluation
  if (!(keep && fw->A_at_evaluation)) {
    hy_form_cylinder_jacobians(m, d, fw);
    leading_matrix(m, d, fw, dt, fw->A);
  }
  int col = -1;
  if (hy_chol_factor(nz, fw->A, &col) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "projection matrix not positive definite at t = %g s (coordinate %d)",
                   d->time, col);
  }
  // the contraction changes with the configuration only, slowly against the step: measured
  // every CONTRACTION_EVERY steps it costs a fraction of a projection
  if (d->stats.nstep % CONTRACTION_EVERY == 0) {
    fw->lam_contraction = multiplier_contraction(m, d, fw, 0.25 * dt * dt * alpha);
  }
  // the velocities are projected in place (W zd' is formed before zd is overwritten)
  double* v = fw->vec;
  HY_SIZED(nz, projection_rhs_n, neq, fw->W, d->zd, d->phi_z, NULL, 0.0, v);
  hy_chol_solve(nz, fw->A, v);
  HY_COPY(nz, d->zd, v);
  // the bias Phi_z_dot zd with the projected velocities (positions unchanged)
  hy_mech_kinematics_vel(m, d, mw);
  hy_mech_constraints_bias(m, d, mw);
  const double c = 0.25 * dt * dt * alpha;
  HY_SIZED(nz, projection_rhs_n, neq, fw->W, fw->zdd_trap, d->phi_z, d->phi_bias, c, d->zdd);
  hy_chol_solve(nz, fw->A, d->zdd);
  // outputs (forces, flows, energies) at the projected velocities
  hy_form_outputs(m, d, mw);
  return HY_OK;
}
