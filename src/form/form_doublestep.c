// Double-step formulation: coordinate partitioning in relative coordinates, seed
// 000_c866e3283107e8a4.txt Eqs. 13-17, integrated by the trapezoidal rule on the independent
// coordinates and the pressures (Eqs. 30, 32-35, 38, 48). Each residual evaluation closes the
// loops for the dependent positions (the first "step") before the reduced dynamics (the second).
#include <math.h>

#include "core/core.h"
#include "form/form_impl.h"
#include "form/form_methods.h"

// The kernels below are sized (HY_SIZED, core.h) on the coordinates: nz is 3 on the seed
// mechanisms, where loops of run-time length cost more than their arithmetic. The loops over
// the independent coordinates are the outer ones, so that the unrolled loops over nz are inside
// them and every sum keeps its order. A vector of up to HY_SIZED_MAX coordinates is held in a
// local array (registers, once unrolled), a longer one in fw->vec. With HY_FORM_SIZED_F1 the
// number nf of independent coordinates is a constant too when it is 1, and so is the number
// nz - nf of dependent ones.

// Sets the independent coordinates to x and moves the dependent ones with them by R_z of the
// last evaluation (Eq. 14 to first order), so that the loop closure starts within the square
// of the change. At a step's first evaluation x is the predictor already: nothing moves. With
// dz != NULL, also the change of every coordinate.
static HY_ALWAYS_INLINE void set_independent_n(int nz, int nf, const double* restrict Rz,
                                               const int* restrict ind,
                                               const double* restrict x, double* restrict z,
                                               double* restrict dz, double* restrict scratch) {
  double loc[HY_SIZED_MAX];
  double* restrict s = nz <= HY_SIZED_MAX ? loc : scratch;
  for (int i = 0; i < nz; i++) {
    s[i] = 0;
    if (dz) dz[i] = z[i];
  }
  for (int c = 0; c < nf; c++) {
    const double dxc = x[c] - z[ind[c]];
    for (int i = 0; i < nz; i++) s[i] += Rz[i * nf + c] * dxc;
  }
  // the rows of the independent coordinates move too, and are then set to x exactly
  for (int i = 0; i < nz; i++) z[i] += s[i];
  for (int c = 0; c < nf; c++) z[ind[c]] = x[c];
  if (dz) {
    for (int i = 0; i < nz; i++) dz[i] = z[i] - dz[i];
  }
}

// Eq. 33 on the independent velocities
static HY_ALWAYS_INLINE void set_independent_velocities(int nf, double dt,
                                                        const int* restrict ind,
                                                        const double* restrict x,
                                                        const double* restrict hat_zd,
                                                        double* restrict zd) {
  const double c1 = 2 / dt;
  for (int c = 0; c < nf; c++) zd[ind[c]] = c1 * x[c] + hat_zd[ind[c]];
}

// S of Eq. 15 = -Pd^-1 (Phi_z_dot zd) on the selected rows, 0 on the independent coordinates,
// with the factors of the last closure. It is solved here, in the kernel that uses it, since a
// call to hy_form_velocity_transform with its own dispatch costs more than the solve. The
// nz - nf dependent coordinates are the fw->nsel selected equations (form_partition.c), so that
// their number is a constant where nz and nf are.
static HY_ALWAYS_INLINE void bias_transform_n(int nz, int nf, const hy_form_work* fw,
                                              const int* restrict part,
                                              const double* restrict bias,
                                              double* restrict S) {
  const int r = nz - nf;
  const int* restrict rows = fw->rowsel;
  const int* restrict dep = part + nf;
  double loc[HY_SIZED_MAX];
  double* restrict b = r <= HY_SIZED_MAX ? loc : fw->vec;
  for (int c = 0; c < nf; c++) S[part[c]] = 0;
  for (int i = 0; i < r; i++) b[i] = -bias[rows[i]];
  hy_lu_solve_n(r, fw->Pd, fw->pivd, b);
  for (int j = 0; j < r; j++) S[dep[j]] = b[j];
}

// zdd = S + R_z zdd_i (Eq. 15) with zdd_i = 4/dt^2 x + hat_zdd (Eq. 33), and zdd_i into zdd_i
// when it is not NULL
static HY_ALWAYS_INLINE void accelerations_n(int nz, int nf, double c2, const double* restrict x,
                                             const hy_form_work* fw, const int* restrict ind,
                                             const double* restrict bias,
                                             double* restrict zdd_i, double* restrict zdd) {
  bias_transform_n(nz, nf, fw, ind, bias, fw->S);
  const double* restrict Rz = fw->Rz;
  const double* restrict S = fw->S;
  const double* restrict hat_zdd = fw->hat_zdd;
  for (int i = 0; i < nz; i++) zdd[i] = S[i];
  for (int c = 0; c < nf; c++) {
    const double a = c2 * x[c] + hat_zdd[ind[c]];
    if (zdd_i) zdd_i[c] = a;
    for (int i = 0; i < nz; i++) zdd[i] += Rz[i * nf + c] * a;
  }
}

// The accelerations, then the mechanical rows of Eq. 38:
// f = sc R_z^T (M' zdd - Q'), sc = dt^2/4
static HY_ALWAYS_INLINE void mech_rows_n(int nz, int nf, double c2, double sc,
                                         const double* restrict x, const hy_form_work* fw,
                                         const int* restrict ind, const double* restrict bias,
                                         const double* restrict M, const double* restrict Q,
                                         double* restrict zdd_i, double* restrict zdd,
                                         double* restrict f, double* restrict scratch) {
  accelerations_n(nz, nf, c2, x, fw, ind, bias, zdd_i, zdd);
  double loc[HY_SIZED_MAX];
  double* restrict r = nz <= HY_SIZED_MAX ? loc : scratch;
  for (int i = 0; i < nz; i++) {
    double s = -Q[i];
    for (int k = 0; k < nz; k++) s += M[i * nz + k] * zdd[k];
    r[i] = s;
  }
  const double* restrict Rz = fw->Rz;
  for (int c = 0; c < nf; c++) {
    double s = 0;
    for (int i = 0; i < nz; i++) s += Rz[i * nf + c] * r[i];
    f[c] = sc * s;
  }
}

// The unknowns into the independent positions (moving the dependent ones by R_z) and
// velocities
static HY_ALWAYS_INLINE void begin_n(int nz, int nf, double dt, const hy_form_work* fw,
                                     const int* restrict ind, const double* restrict x,
                                     double* restrict z, double* restrict zd) {
  set_independent_n(nz, nf, fw->Rz, ind, x, z, (double*)NULL, fw->vec);
  set_independent_velocities(nf, dt, ind, x, fw->hat_zd, zd);
}

hy_status hy_doublestep_residual(const hy_model* m, hy_data* d, hy_form_work* fw,
                                 hy_mech_work* mw, const double* x, double* f) {
  const int nz = m->sizes.nz, nf = d->ndof;
  const int* ind = d->part;
  const double dt = fw->dt;
  // positions: the independent ones are the unknowns, the dependent ones close the loops;
  // velocities: Eq. 33 on the independent ones, set first since the position stages do not
  // read them, and Eq. 13 for the dependent ones with R_z, by the closure's last factors
  HY_FORM_SIZED_F1(nz, nf, begin_n, dt, fw, ind, x, d->z, d->zd);
  hy_status st = hy_form_close_loops(m, d, fw, mw);
  if (st != HY_OK) {
    return HY_FAIL(&d->err, HY_NEWTON_NOCONV,
                   "loop closure failed at t = %g s (constraint residual %.3g, pivot ratio of "
                   "the dependent block %.3g)", d->time, d->violation, fw->pivot_ratio);
  }
  hy_form_set_pressures(m, d, fw, x + nf);
  hy_form_evaluate_vel(m, d, mw, fw->skip_derivatives ? NULL : &fw->hyd, 1);
  // accelerations: S, Eq. 33 on the independent ones, Eq. 15 for all; then Eq. 38:
  // dt^2/4 (M'' zdd_i - Q'') = dt^2/4 R_z^T (M' zdd - Q'), since Q'' = R_z^T (Q' - M' S)
  HY_FORM_SIZED_F1(nz, nf, mech_rows_n, 4 / (dt * dt), 0.25 * dt * dt, x, fw, ind, d->phi_bias,
                   d->M, d->Q, fw->zdd_trap, d->zdd, f, fw->vec);
  hy_form_pressure_rows(m, d, fw, f + nf);
  return HY_OK;
}

// R_z^T W R_z into Am (nf x nf) and Js R_z into Js_r (ncyl x nf), one column of R_z at a time;
// W R_z is formed column by column in a vector
static HY_ALWAYS_INLINE void tangent_mech_n(int nz, int nf, int ncyl, const double* restrict W,
                                            const double* restrict Rz,
                                            const double* restrict jac_s, double* restrict Am,
                                            double* restrict Js_r, double* restrict scratch) {
  double loc[HY_SIZED_MAX];
  double* restrict wr = nz <= HY_SIZED_MAX ? loc : scratch;
  for (int c = 0; c < nf; c++) {
    for (int i = 0; i < nz; i++) {
      double v = 0;
      for (int k = 0; k < nz; k++) v += W[i * nz + k] * Rz[k * nf + c];
      wr[i] = v;
    }
    for (int a = 0; a < nf; a++) {
      double v = 0;
      for (int i = 0; i < nz; i++) v += Rz[i * nf + a] * wr[i];
      Am[a * nf + c] = v;
    }
    for (int cy = 0; cy < ncyl; cy++) {
      const double* restrict js = jac_s + (size_t)cy * (size_t)nz;
      double v = 0;
      for (int i = 0; i < nz; i++) v += js[i] * Rz[i * nf + c];
      Js_r[cy * nf + c] = v;
    }
  }
}

void hy_doublestep_tangent_mech(const hy_model* m, hy_data* d, hy_form_work* fw, double* Am) {
  // R_z^T W R_z with W = M' + dt/2 C + dt^2/4 K: the leading term of the tangent of Eq. 38 in
  // the independent coordinates; the cylinder lengths change with them by Js R_z
  hy_form_cylinder_jacobians(m, d, fw);
  hy_form_cylinder_matrix(m, d, fw, fw->dt, fw->W);
  HY_FORM_SIZED_F1(m->sizes.nz, d->ndof, tangent_mech_n, m->sizes.ncyl, fw->W, fw->Rz,
                   fw->jac_s, Am, fw->tg_Js, fw->vec);
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
  HY_FORM_SIZED_F1(nz, nf, set_independent_n, fw->Rz, ind, x, d->z, dz, fw->vec);
  const int keep = hy_form_keep_positions(m, d, dz);
  set_independent_velocities(nf, dt, ind, x, fw->hat_zd, d->zd);
  if (keep) {
    // R_z and the factors are those of the last evaluation
    hy_form_close_velocities(m, d, fw);
  } else if (hy_form_close_loops(m, d, fw, mw) != HY_OK) {
    return HY_FAIL(&d->err, HY_NEWTON_NOCONV,
                   "loop closure failed at t = %g s (constraint residual %.3g)", d->time,
                   d->violation);
  }
  hy_form_set_pressures(m, d, fw, x + nf);
  hy_mech_kinematics_vel(m, d, mw);
  if (m->sizes.neq > 0) hy_mech_constraints_bias(m, d, mw);
  // S changes with the velocities
  HY_FORM_SIZED_F1(nz, nf, accelerations_n, 4 / (dt * dt), x, fw, ind, d->phi_bias, (double*)NULL,
                   d->zdd);
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
