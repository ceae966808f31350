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
// the tangent and the matrix of the projections (Eqs. 20-21). W is kept in fw->W. Both are
// symmetric; each entry is formed once, in one pass (these are 3 x 3 on the seed mechanisms,
// where loop and load overhead costs more than the arithmetic).
static void leading_matrix(const hy_model* m, hy_data* d, hy_form_work* fw, double dt,
                           double* A_out) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  const double c = 0.25 * dt * dt * m->opt.penalty;
  hy_form_cylinder_matrix(m, d, fw, dt, fw->W);
  const double* restrict W = fw->W;
  const double* restrict P = d->phi_z;
  double* restrict A = A_out;
  for (int i = 0; i < nz; i++) {
    for (int j = i; j < nz; j++) {
      double s = 0;
      for (int e = 0; e < neq; e++) s += P[e * nz + i] * P[e * nz + j];
      A[i * nz + j] = W[i * nz + j] + c * s;
      A[j * nz + i] = W[j * nz + i] + c * s;
    }
  }
}

// y = W v for the symmetric nz x nz W (row-major).
static void mat_vec(int nz, const double* restrict W, const double* restrict v,
                    double* restrict y) {
  for (int i = 0; i < nz; i++) {
    double s = 0;
    for (int k = 0; k < nz; k++) s += W[i * nz + k] * v[k];
    y[i] = s;
  }
}

// The state that the unknowns x (positions, then pressures) give by the trapezoidal relations
// (Eq. 33): z = x, zd = 2/dt x + hat_zd, zdd = 4/dt^2 x + hat_zdd.
static void set_state(int nz, double dt, const double* restrict x, const hy_form_work* fw,
                      double* restrict z, double* restrict zd, double* restrict zdd) {
  const double c1 = 2 / dt, c2 = 4 / (dt * dt);
  const double* restrict hzd = fw->hat_zd;
  const double* restrict hzdd = fw->hat_zdd;
  for (int i = 0; i < nz; i++) {
    z[i] = x[i];
    zd[i] = c1 * x[i] + hzd[i];
    zdd[i] = c2 * x[i] + hzdd[i];
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
  set_state(nz, dt, x, fw, d->z, d->zd, fw->zdd_trap);
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
  const double* restrict M = d->M;
  const double* restrict Q = d->Q;
  const double* restrict P = d->phi_z;
  const double* restrict phi = d->phi;
  const double* restrict lam = d->lam;
  const double* restrict zdd = fw->zdd_trap;
  double* restrict fz = f;
  for (int i = 0; i < nz; i++) {
    double r = -Q[i];
    for (int k = 0; k < nz; k++) r += M[i * nz + k] * zdd[k];
    for (int e = 0; e < neq; e++) r += P[e * nz + i] * (alpha * phi[e] + lam[e]);
    fz[i] = s * r;
  }
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
  set_state(nz, dt, x, fw, d->z, d->zd, fw->zdd_trap);
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
  // the velocities are projected in place (W zd' is formed before zd is overwritten)
  double* v = fw->vec;
  mat_vec(nz, fw->W, d->zd, v);
  hy_chol_solve(nz, fw->A, v);
  memcpy(d->zd, v, sizeof(double) * (size_t)nz);
  // the bias Phi_z_dot zd with the projected velocities (positions unchanged)
  hy_mech_kinematics_vel(m, d, mw);
  hy_mech_constraints_bias(m, d, mw);
  const double c = 0.25 * dt * dt * alpha;
  mat_vec(nz, fw->W, fw->zdd_trap, d->zdd);
  const double* restrict P = d->phi_z;
  const double* restrict bias = d->phi_bias;
  double* restrict a = d->zdd;
  for (int i = 0; i < nz; i++) {
    double s = 0;
    for (int e = 0; e < neq; e++) s += P[e * nz + i] * bias[e];
    a[i] -= c * s;
  }
  hy_chol_solve(nz, fw->A, d->zdd);
  // outputs (forces, flows, energies) at the projected velocities
  hy_form_outputs(m, d);
  return HY_OK;
}
