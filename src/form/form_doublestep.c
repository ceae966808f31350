// Double-step formulation: coordinate partitioning in relative coordinates, seed
// 000_c866e3283107e8a4.txt Eqs. 13-17, integrated by the trapezoidal rule on the independent
// coordinates and the pressures (Eqs. 30, 32-35, 38, 48). Each residual evaluation closes the
// loops for the dependent positions (the first "step") before the reduced dynamics (the second).
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_impl.h"
#include "form/form_methods.h"

// Sets the independent coordinates to x and moves the dependent ones with them by R_z of the
// last evaluation (Eq. 14 to first order), so that the loop closure starts within the square
// of the change. At a step's first evaluation x is the predictor already: nothing moves.
static void set_independent(const hy_model* m, hy_data* d, const hy_form_work* fw,
                            const double* x) {
  const int nz = m->sizes.nz, nf = d->ndof;
  const int* ind = d->part;
  for (int i = nf; i < nz; i++) {
    const int j = d->part[i];
    double s = 0;
    for (int c = 0; c < nf; c++) s += fw->Rz[j * nf + c] * (x[c] - d->z[ind[c]]);
    d->z[j] += s;
  }
  for (int c = 0; c < nf; c++) d->z[ind[c]] = x[c];
}

hy_status hy_doublestep_residual(const hy_model* m, hy_data* d, hy_form_work* fw,
                                 hy_mech_work* mw, const double* x, double* f) {
  const int nz = m->sizes.nz, nf = d->ndof;
  const int* ind = d->part;
  const double dt = fw->dt;
  // positions: the independent ones are the unknowns, the dependent ones close the loops
  set_independent(m, d, fw, x);
  hy_status st = hy_form_close_positions(m, d, fw, mw);
  if (st != HY_OK) {
    return HY_FAIL(&d->err, HY_NEWTON_NOCONV,
                   "loop closure failed at t = %g s (constraint residual %.3g, pivot ratio of "
                   "the dependent block %.3g)", d->time, d->violation, fw->pivot_ratio);
  }
  // velocities: Eq. 33 on the independent ones, Eq. 13 for the dependent ones
  for (int c = 0; c < nf; c++) d->zd[ind[c]] = 2 / dt * x[c] + fw->hat_zd[ind[c]];
  hy_form_close_velocities(m, d, fw);
  hy_form_set_pressures(m, d, fw, x + nf);
  hy_form_evaluate_vel(m, d, mw, fw->skip_derivatives ? NULL : &fw->hyd, 1);
  hy_form_velocity_transform(m, d, fw);
  // accelerations: Eq. 33 on the independent ones, Eq. 15 for all
  double* zdd_i = fw->zdd_trap;
  for (int c = 0; c < nf; c++) zdd_i[c] = 4 / (dt * dt) * x[c] + fw->hat_zdd[ind[c]];
  for (int i = 0; i < nz; i++) {
    double s = fw->S[i];
    for (int c = 0; c < nf; c++) s += fw->Rz[i * nf + c] * zdd_i[c];
    d->zdd[i] = s;
  }
  // Eq. 38: dt^2/4 (M'' zdd_i - Q'') = dt^2/4 R_z^T (M' zdd - Q'), since Q'' = R_z^T (Q' - M' S)
  double* r = fw->vec;
  for (int i = 0; i < nz; i++) {
    double s = -d->Q[i];
    for (int k = 0; k < nz; k++) s += d->M[i * nz + k] * d->zdd[k];
    r[i] = s;
  }
  const double sc = 0.25 * dt * dt;
  for (int c = 0; c < nf; c++) {
    double s = 0;
    for (int i = 0; i < nz; i++) s += fw->Rz[i * nf + c] * r[i];
    f[c] = sc * s;
  }
  hy_form_pressure_rows(m, d, fw, f + nf);
  return HY_OK;
}

void hy_doublestep_tangent_mech(const hy_model* m, hy_data* d, hy_form_work* fw, double* Am) {
  // R_z^T W R_z with W = M' + dt/2 C + dt^2/4 K: the leading term of the tangent of Eq. 38 in
  // the independent coordinates; the cylinder lengths change with them by Js R_z
  const int nz = m->sizes.nz, nf = d->ndof;
  const double* Rz = fw->Rz;
  hy_form_cylinder_jacobians(m, d, fw);
  hy_form_cylinder_matrix(m, d, fw, fw->dt, fw->W);
  double* WR = fw->A;  // W R_z, nz x nf
  for (int i = 0; i < nz; i++) {
    for (int c = 0; c < nf; c++) {
      double v = 0;
      for (int k = 0; k < nz; k++) v += fw->W[i * nz + k] * Rz[k * nf + c];
      WR[i * nf + c] = v;
    }
  }
  for (int a = 0; a < nf; a++) {
    for (int c = 0; c < nf; c++) {
      double v = 0;
      for (int i = 0; i < nz; i++) v += Rz[i * nf + a] * WR[i * nf + c];
      Am[a * nf + c] = v;
    }
  }
  for (int cy = 0; cy < m->sizes.ncyl; cy++) {
    const double* js = fw->jac_s + (size_t)cy * nz;
    for (int c = 0; c < nf; c++) {
      double v = 0;
      for (int i = 0; i < nz; i++) v += js[i] * Rz[i * nf + c];
      fw->tg_Js[cy * nf + c] = v;
    }
  }
}

hy_status hy_doublestep_end(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                            const double* x) {
  const int nz = m->sizes.nz, nf = d->ndof;
  const int* ind = d->part;
  const double dt = fw->dt;
  // the two steps once more at the converged unknowns, without the dynamics: positions and
  // velocities closed exactly, accelerations by Eq. 15
  // the dependent coordinates follow by R_z; closing the loops after a change below
  // KEEP_POSITIONS would correct them by its square, far below round-off
  double* dz = fw->vec2;
  memcpy(dz, d->z, sizeof(double) * (size_t)nz);
  set_independent(m, d, fw, x);
  for (int i = 0; i < nz; i++) dz[i] = d->z[i] - dz[i];
  if (!hy_form_keep_positions(m, d, dz) && hy_form_close_positions(m, d, fw, mw) != HY_OK) {
    return HY_FAIL(&d->err, HY_NEWTON_NOCONV,
                   "loop closure failed at t = %g s (constraint residual %.3g)", d->time,
                   d->violation);
  }
  for (int c = 0; c < nf; c++) d->zd[ind[c]] = 2 / dt * x[c] + fw->hat_zd[ind[c]];
  hy_form_close_velocities(m, d, fw);
  hy_form_set_pressures(m, d, fw, x + nf);
  hy_mech_kinematics_vel(m, d, mw);
  if (m->sizes.neq > 0) hy_mech_constraints_bias(m, d, mw);
  hy_form_velocity_transform(m, d, fw);
  for (int i = 0; i < nz; i++) {
    double s = fw->S[i];
    for (int c = 0; c < nf; c++) s += fw->Rz[i * nf + c] * (4 / (dt * dt) * x[c] + fw->hat_zdd[ind[c]]);
    d->zdd[i] = s;
  }
  hy_form_outputs(m, d, mw);
  // a new partition when the dependent block approaches a singularity: the state is kept in
  // all coordinates, so only the choice of unknowns changes for the next step
  if (m->sizes.neq > 0 && fw->pivot_ratio < m->opt.partition_rcond * fw->pivot_ratio_sel) {
    hy_form_select_partition(m, d, fw);
    if (hy_form_factor_dependent(m, d, fw) != HY_OK) {
      return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                     "no non-singular partition of the coordinates at t = %g s: the mechanism "
                     "is at a singular configuration", d->time);
    }
    // the best partition now is the reference for the next degradation
    fw->pivot_ratio_sel = fw->pivot_ratio;
  }
  return HY_OK;
}
