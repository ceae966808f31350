// Penalty formulation: index-3 augmented Lagrangian in relative coordinates with
// mass-damping-stiffness orthogonal projections, seed 000_c866e3283107e8a4.txt Eqs. 18-21,
// integrated by the trapezoidal rule with the relative coordinates and the pressures as
// unknowns (Eqs. 31, 33-34, 36, 39, 48).
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_impl.h"
#include "form/form_methods.h"

// W + dt^2/4 Phi_z^T alpha Phi_z, W = M' + dt/2 C + dt^2/4 K (Sect. 2.3): the mechanical block of
// the tangent and the matrix of the projections (Eqs. 20-21).
static void leading_matrix(const hy_model* m, hy_data* d, hy_form_work* fw, double dt,
                           double* A) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  const double c = 0.25 * dt * dt * m->opt.penalty;
  hy_form_cylinder_matrix(m, d, fw, dt, fw->W);
  memcpy(A, fw->W, sizeof(double) * (size_t)nz * (size_t)nz);
  for (int e = 0; e < neq; e++) {
    const double* row = d->phi_z + (size_t)e * nz;
    for (int i = 0; i < nz; i++) {
      if (row[i] == 0) continue;
      const double ci = c * row[i];
      for (int j = 0; j < nz; j++) A[i * nz + j] += ci * row[j];
    }
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
  // Eq. 33: velocities, accelerations and pressure rates as functions of the unknowns
  for (int i = 0; i < nz; i++) {
    d->z[i] = x[i];
    d->zd[i] = 2 / dt * x[i] + fw->hat_zd[i];
    fw->zdd_trap[i] = 4 / (dt * dt) * x[i] + fw->hat_zdd[i];
  }
  hy_form_set_pressures(m, d, fw, x + nz);
  hy_mech_kinematics_pos(m, d, mw);
  if (neq > 0) hy_mech_constraints_pos(m, d, mw);
  hy_form_evaluate_vel(m, d, mw, fw->skip_derivatives ? NULL : &fw->hyd, 0);
  // Eq. 19, for the positions of the previous Newton update
  if (fw->lam_pending) {
    for (int e = 0; e < neq; e++) d->lam[e] += alpha * d->phi[e];
    fw->lam_pending = 0;
  }
  // Eq. 39: dt^2/4 (M' zdd + Phi_z^T (alpha Phi + lambda) - Q')
  const double s = 0.25 * dt * dt;
  for (int i = 0; i < nz; i++) {
    double r = -d->Q[i];
    for (int k = 0; k < nz; k++) r += d->M[i * nz + k] * fw->zdd_trap[k];
    f[i] = r;
  }
  for (int e = 0; e < neq; e++) {
    const double g = alpha * d->phi[e] + d->lam[e];
    const double* row = d->phi_z + (size_t)e * nz;
    for (int i = 0; i < nz; i++) f[i] += row[i] * g;
  }
  for (int i = 0; i < nz; i++) f[i] *= s;
  hy_form_pressure_rows(m, d, fw, f + nz);
  return HY_OK;
}

void hy_penalty_tangent_mech(const hy_model* m, hy_data* d, hy_form_work* fw, double* Am) {
  hy_form_cylinder_jacobians(m, d, fw);
  leading_matrix(m, d, fw, fw->dt, Am);
  memcpy(fw->tg_Js, fw->jac_s, sizeof(double) * (size_t)m->sizes.ncyl * (size_t)m->sizes.nz);
}

hy_status hy_penalty_end(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                         const double* x) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  const double dt = fw->dt, alpha = m->opt.penalty;
  // the state at the converged unknowns (Eq. 33); M' stays that of the last Newton evaluation,
  // one correction below the tolerance earlier, and the cylinder derivatives those of the
  // evaluation the tangent was formed at (docs/formulations.md, "End of a step")
  double* dz = fw->vec;
  for (int i = 0; i < nz; i++) dz[i] = x[i] - d->z[i];
  const int keep = hy_form_keep_positions(m, d, dz);
  for (int i = 0; i < nz; i++) {
    d->z[i] = x[i];
    d->zd[i] = 2 / dt * x[i] + fw->hat_zd[i];
    fw->zdd_trap[i] = 4 / (dt * dt) * x[i] + fw->hat_zdd[i];
  }
  hy_form_set_pressures(m, d, fw, x + nz);
  // positions now (unless the evaluation's are kept); velocities once they are projected
  if (!keep) hy_mech_kinematics_pos(m, d, mw);
  if (neq == 0) {
    hy_mech_kinematics_vel(m, d, mw);
    memcpy(d->zdd, fw->zdd_trap, sizeof(double) * (size_t)nz);
    hy_form_outputs(m, d);
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
  hy_form_cylinder_jacobians(m, d, fw);
  leading_matrix(m, d, fw, dt, fw->A);
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
  double* v = fw->vec;
  for (int i = 0; i < nz; i++) {
    double s = 0;
    for (int k = 0; k < nz; k++) s += fw->W[i * nz + k] * d->zd[k];
    v[i] = s;
  }
  hy_chol_solve(nz, fw->A, v);
  memcpy(d->zd, v, sizeof(double) * (size_t)nz);
  // the bias Phi_z_dot zd with the projected velocities (positions unchanged)
  hy_mech_kinematics_vel(m, d, mw);
  hy_mech_constraints_bias(m, d, mw);
  const double c = 0.25 * dt * dt * alpha;
  for (int i = 0; i < nz; i++) {
    double s = 0;
    for (int k = 0; k < nz; k++) s += fw->W[i * nz + k] * fw->zdd_trap[k];
    v[i] = s;
  }
  for (int e = 0; e < neq; e++) {
    const double* row = d->phi_z + (size_t)e * nz;
    const double g = c * d->phi_bias[e];
    for (int i = 0; i < nz; i++) v[i] -= row[i] * g;
  }
  hy_chol_solve(nz, fw->A, v);
  memcpy(d->zdd, v, sizeof(double) * (size_t)nz);
  // outputs (forces, flows, energies) at the projected velocities
  hy_form_outputs(m, d);
  return HY_OK;
}
