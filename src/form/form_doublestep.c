// Double-step formulation: coordinate partitioning in relative coordinates, seed
// 000_c866e3283107e8a4.txt Eqs. 13-17; the unknowns of the implicit integrator are the
// independent coordinates (with the pressures, Eq. 48). Each residual evaluation closes the
// loops for the dependent positions (the first "step") before the reduced dynamics (the second);
// under the trapezoidal rule its rows are Eq. 38.
//
// Nonholonomic constraints B zd = 0 (seed 003 Eqs. 45-52) leave the positions of all ndof
// independent coordinates free but tie the velocities of nnh of them, x_ad, to the others, x_ai
// (form_partition.c, hy_form_nh_*). The unknowns stay the ndof coordinates, x_ai then x_ad, all
// under the trapezoidal rule. The rows of x_ai are the dynamics projected on the independent
// velocities, T^T (M' zdd - Q') with zdd = T zdd_ai + SD (seed 003 Eqs. 32, 38); the rows of
// x_ad are the constraints at the end of the step, kappa B zd / w_vel, which the trapezoidal
// velocities of x_ad must meet: x_ad is the integral of its constrained velocity. kappa, the
// largest diagonal entry of M', gives those rows the scale of the others.
#include <math.h>

#include "core/core.h"
#include "form/form_common.h"

// The kernels below are sized (HY_SIZED, core.h) on the coordinates: nz is 3 on the seed
// mechanisms, where loops of run-time length cost more than their arithmetic. The loops over
// the independent coordinates are the outer ones, so that the unrolled loops over nz are inside
// them and every sum keeps its order. A vector of up to HY_SIZED_MAX coordinates is held in a
// local array (registers, once unrolled), a longer one in arena scratch. With HY_SIZED_F1 the
// number nf of independent coordinates is a constant too when it is 1, and so is the number
// nz - nf of dependent ones.

// Arena scratch of one call: a vector of nz for a kernel beyond HY_SIZED_MAX, the coordinate
// changes of the end of a step, the gathered independent accelerations.
static size_t ds_scratch(const hy_model* m) {
  const size_t nz = (size_t)m->sizes.nz;
  return 4 * hy_doubles(nz) + hy_doubles((size_t)m->sizes.neq) + hy_doubles(nz * nz);
}

//----- nonholonomic constraints ------------------------------------------------------------------

static double nh_kappa(const hy_model* m, const hy_data* d) {
  const int nz = m->sizes.nz;
  double k = 0;
  for (int i = 0; i < nz; i++) k = fmax(k, d->M[i * nz + i]);
  return k > 0 ? k : 1;
}

// zdd = T zdd_ai + SD (seed 003 Eq. 38), with the integrator's zdd of x_ai in d->zdd on entry
// (gathered first, since zdd is overwritten) and T, SD current.
static hy_status nh_accelerations(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, nv = pt->nv;
  const size_t mark = hy_arena_mark(f->arena);
  double* ai = hy_form_scratch_doubles(f, (size_t)(nv > 0 ? nv : 1));
  if (!ai) return HY_ERR_ARENA;
  for (int c = 0; c < nv; c++) ai[c] = d->zdd[d->part[c]];
  for (int i = 0; i < nz; i++) {
    double s = pt->SD[i];
    for (int c = 0; c < nv; c++) s += pt->T[i * nv + c] * ai[c];
    d->zdd[i] = s;
  }
  hy_arena_release(f->arena, mark);
  return HY_OK;
}

// After the loop closure and the evaluation: T, SD, the accelerations zdd = T zdd_ai + SD and the
// rows (see the top of the file). The integrator's zdd of x_ai are in d->zdd on entry.
static hy_status nh_rows(hy_form* f, double* rows) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, nf = d->ndof;
  hy_form_velocity_transform(f, 0);
  if (hy_form_nh_factor(f) != HY_OK) {
    return HY_FAIL(&d->err, HY_NEWTON_NOCONV,
                   "the nonholonomic constraints' dependent block is singular at t = %g s",
                   d->time);
  }
  hy_form_nh_transform(f);
  const int nv = pt->nv;
  double* r = hy_form_scratch_doubles(f, (size_t)nz);
  if (!r) return HY_ERR_ARENA;
  HY_TRY(nh_accelerations(f));
  for (int i = 0; i < nz; i++) {
    double s = -d->Q[i];
    for (int k = 0; k < nz; k++) s += d->M[i * nz + k] * d->zdd[k];
    r[i] = s;
  }
  for (int c = 0; c < nv; c++) {
    double s = 0;
    for (int i = 0; i < nz; i++) s += pt->T[i * nv + c] * r[i];
    rows[c] = s;
  }
  const double scale = nh_kappa(m, d) / f->step.w_vel;
  for (int j = 0; j < nf - nv; j++) rows[nv + j] = scale * d->nh_rate[j];
  return HY_OK;
}

// The tangent of nh_rows to leading order: rows of x_ai T^T (W R_z + M' (T E_ai - R_z)), where
// zdd moves with zdd_ai only (T E_ai, E_ai the columns of x_ai) while the velocities and
// positions move with every unknown (R_z); rows of x_ad kappa B-bar. Js = jac_s R_z, and the
// rows take the cylinder forces through Jr = [jac_s T, 0].
static void nh_tangent(hy_form* f, double* Am, double* Js, double* Jr) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  const hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, nf = d->ndof, nv = pt->nv, nc = m->sizes.ncyl;
  const double* Rz = pt->Rz;
  const double* T = pt->T;
  const size_t mark = hy_arena_mark(f->arena);
  double* WR = hy_form_scratch_doubles(f, (size_t)nz * (size_t)nf);  // W R_z + M' (T E_ai - R_z)
  if (!WR) return;
  for (int i = 0; i < nz; i++) {
    for (int c = 0; c < nf; c++) {
      double s = 0;
      for (int k = 0; k < nz; k++) {
        const double tk = c < nv ? T[k * nv + c] : 0.0;
        s += f->W[i * nz + k] * Rz[k * nf + c] + d->M[i * nz + k] * (tk - Rz[k * nf + c]);
      }
      WR[i * nf + c] = s;
    }
  }
  for (int a = 0; a < nv; a++) {
    for (int c = 0; c < nf; c++) {
      double s = 0;
      for (int i = 0; i < nz; i++) s += T[i * nv + a] * WR[i * nf + c];
      Am[a * nf + c] = s;
    }
  }
  const double kappa = nh_kappa(m, d);
  for (int j = 0; j < nf - nv; j++) {
    for (int c = 0; c < nf; c++) Am[(nv + j) * nf + c] = kappa * pt->Bbar[j * nf + c];
  }
  for (int cy = 0; cy < nc; cy++) {
    const double* js = f->jac_s + (size_t)cy * (size_t)nz;
    for (int c = 0; c < nf; c++) {
      double s = 0, t = 0;
      for (int i = 0; i < nz; i++) {
        s += js[i] * Rz[i * nf + c];
        if (c < nv) t += js[i] * T[i * nv + c];
      }
      Js[cy * nf + c] = s;
      Jr[cy * nf + c] = t;
    }
  }
  hy_arena_release(f->arena, mark);
}

static size_t ds_size(const hy_model* m) {
  (void)m;
  return 0;
}

static void ds_bind(hy_form* f, unsigned char* mem) {
  (void)mem;
  f->self = NULL;
}

static void publish_unknowns(hy_form* f);

// nz doubles of scratch when nz > HY_SIZED_MAX (the kernels keep smaller vectors in registers).
static double* long_vector(hy_form* f, int* ok) {
  const int nz = f->m->sizes.nz;
  *ok = 1;
  if (nz <= HY_SIZED_MAX) return NULL;
  double* v = hy_form_scratch_doubles(f, (size_t)nz);
  *ok = v != NULL;
  return v;
}

// The integrator has moved the independent coordinates (ind, nf of them) by dx since the last
// evaluation; the dependent ones move with them by R_z of that evaluation (Eq. 14 to first
// order), so that the loop closure starts within the square of the change. At a step's first
// evaluation dx = 0: nothing moves. With dz != NULL, also the change of every coordinate.
static HY_ALWAYS_INLINE void move_dependent_n(int nz, int nf, const double* restrict Rz,
                                              const int* restrict ind, const double* restrict dx,
                                              double* restrict z, double* restrict dz,
                                              double* restrict scratch) {
  double loc[HY_SIZED_MAX];
  double* restrict s = nz <= HY_SIZED_MAX ? loc : scratch;
  const int* restrict dep = ind + nf;
  for (int i = 0; i < nz; i++) s[i] = 0;
  for (int c = 0; c < nf; c++) {
    const double dxc = dx[c];
    for (int i = 0; i < nz; i++) s[i] += Rz[i * nf + c] * dxc;
  }
  for (int j = 0; j < nz - nf; j++) {
    const int i = dep[j];
    const double zi = z[i];
    z[i] = zi + s[i];
    if (dz) dz[i] = z[i] - zi;
  }
  if (dz) {
    for (int c = 0; c < nf; c++) dz[ind[c]] = dx[c];
  }
}

// S of Eq. 15 = -Pd^-1 (Phi_z_dot zd) on the selected rows, 0 on the independent coordinates,
// with the factors of the last closure. It is solved here, in the kernel that uses it, since a
// call to hy_form_velocity_transform with its own dispatch costs more than the solve. The
// nz - nf dependent coordinates are the partition's nsel selected equations
// (form_partition.c), so that their number is a constant where nz and nf are.
static HY_ALWAYS_INLINE void bias_transform_n(int nz, int nf, const hy_partition* pt,
                                              const int* restrict part, const double* restrict bias,
                                              double* restrict S, double* restrict scratch) {
  const int r = nz - nf;
  const int* restrict rows = pt->rowsel;
  const int* restrict dep = part + nf;
  double loc[HY_SIZED_MAX];
  double* restrict b = r <= HY_SIZED_MAX ? loc : scratch;
  for (int c = 0; c < nf; c++) S[part[c]] = 0;
  for (int i = 0; i < r; i++) b[i] = -bias[rows[i]];
  hy_lu_solve_n(r, pt->Pd, pt->pivd, b);
  for (int j = 0; j < r; j++) S[dep[j]] = b[j];
}

// zdd = S + R_z zdd_i (Eq. 15), with zdd_i the integrator's accelerations of the independent
// coordinates in zdd on entry (gathered first, since zdd is overwritten)
static HY_ALWAYS_INLINE void accelerations_n(int nz, int nf, const hy_partition* pt,
                                             const int* restrict ind, const double* restrict bias,
                                             double* restrict zdd, double* restrict scratch) {
  bias_transform_n(nz, nf, pt, ind, bias, pt->S, scratch);
  double loc[HY_SIZED_MAX];
  double* restrict a = nf <= HY_SIZED_MAX ? loc : scratch;
  for (int c = 0; c < nf; c++) a[c] = zdd[ind[c]];
  const double* restrict Rz = pt->Rz;
  const double* restrict S = pt->S;
  for (int i = 0; i < nz; i++) zdd[i] = S[i];
  for (int c = 0; c < nf; c++) {
    for (int i = 0; i < nz; i++) zdd[i] += Rz[i * nf + c] * a[c];
  }
}

// The accelerations, then the mechanical rows of Eq. 38 without its factor dt^2/4:
// f = R_z^T (M' zdd - Q')
static HY_ALWAYS_INLINE void mech_rows_n(int nz, int nf, const hy_partition* pt,
                                         const int* restrict ind, const double* restrict bias,
                                         const double* restrict M, const double* restrict Q,
                                         double* restrict zdd, double* restrict f,
                                         double* restrict scratch) {
  accelerations_n(nz, nf, pt, ind, bias, zdd, scratch);
  double loc[HY_SIZED_MAX];
  double* restrict r = nz <= HY_SIZED_MAX ? loc : scratch;
  for (int i = 0; i < nz; i++) {
    double s = -Q[i];
    for (int k = 0; k < nz; k++) s += M[i * nz + k] * zdd[k];
    r[i] = s;
  }
  const double* restrict Rz = pt->Rz;
  for (int c = 0; c < nf; c++) {
    double s = 0;
    for (int i = 0; i < nz; i++) s += Rz[i * nf + c] * r[i];
    f[c] = s;
  }
}

static hy_status ds_residual(hy_form* f, const double* dx, double* rows) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, nf = d->ndof;
  const int* ind = d->part;
  const size_t mark = hy_arena_mark(f->arena);
  int ok;
  double* scratch = long_vector(f, &ok);
  if (!ok) return HY_ERR_ARENA;
  // positions: the independent ones are the unknowns, the dependent ones close the loops;
  // velocities: the integrator set the independent ones, Eq. 13 gives the dependent ones with
  // R_z, by the closure's last factors
  HY_SIZED_F1(nz, nf, move_dependent_n, pt->Rz, ind, dx, d->z, (double*)NULL, scratch);
  hy_status st = hy_form_close_loops(f);
  if (st != HY_OK) {
    if (scratch) hy_arena_release(f->arena, mark);
    return HY_FAIL(&d->err, HY_NEWTON_NOCONV,
                   "loop closure failed at t = %g s (constraint residual %.3g, pivot ratio of "
                   "the dependent block %.3g)",
                   d->time, d->violation, pt->pivot_ratio);
  }
  hy_form_evaluate_vel(m, d, f->mech, f->skip_derivatives ? NULL : f->hyd, 1);
  if (m->sizes.nnh > 0) {
    st = nh_rows(f, rows);
    hy_arena_release(f->arena, mark);
    return st;
  }
  // accelerations: S, the integrator's on the independent ones, Eq. 15 for all; then Eq. 38:
  // M'' zdd_i - Q'' = R_z^T (M' zdd - Q'), since Q'' = R_z^T (Q' - M' S)
  HY_SIZED_F1(nz, nf, mech_rows_n, pt, ind, d->phi_bias, d->M, d->Q, d->zdd, rows, scratch);
  if (scratch) hy_arena_release(f->arena, mark);
  return HY_OK;
}

// R_z^T W R_z into Am (nf x nf) and Js R_z into Js_r (ncyl x nf), one column of R_z at a time;
// W R_z is formed column by column in a vector
static HY_ALWAYS_INLINE void tangent_mech_n(int nz, int nf, int ncyl, const double* restrict W,
                                            const double* restrict Rz, const double* restrict jac_s,
                                            double* restrict Am, double* restrict Js_r,
                                            double* restrict scratch) {
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

static int ds_tangent(hy_form* f, double* Am, double* Js, double* Jr) {
  // R_z^T W R_z with W = M' + dt/2 C + dt^2/4 K: the leading term of the tangent of Eq. 38 in
  // the independent coordinates; the cylinder lengths change with them by Js R_z
  const hy_model* m = f->m;
  hy_form_cylinder_jacobians(f);
  hy_form_cylinder_matrix(f, f->W);
  if (m->sizes.nnh > 0) {
    nh_tangent(f, Am, Js, Jr);
    return 1;
  }
  const size_t mark = hy_arena_mark(f->arena);
  int ok;
  double* scratch = long_vector(f, &ok);
  if (!ok) return 0;
  HY_SIZED_F1(m->sizes.nz, f->d->ndof, tangent_mech_n, m->sizes.ncyl, f->W, f->part.Rz, f->jac_s,
              Am, Js, scratch);
  if (scratch) hy_arena_release(f->arena, mark);
  return 0;
}

static hy_status ds_accept(hy_form* f, const double* dx) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, nf = d->ndof;
  const int* ind = d->part;
  const size_t mark = hy_arena_mark(f->arena);
  int ok;
  double* scratch = long_vector(f, &ok);
  double loc[HY_SIZED_MAX];
  double* dz = nz <= HY_SIZED_MAX ? loc : hy_form_scratch_doubles(f, (size_t)nz);
  if (!ok || !dz) return HY_ERR_ARENA;
  // the two steps once more at the converged unknowns, without the dynamics: positions and
  // velocities closed exactly, accelerations by Eq. 15
  // the dependent coordinates follow by R_z; closing the loops after a change below
  // KEEP_POSITIONS would correct them by its square, far below round-off
  HY_SIZED_F1(nz, nf, move_dependent_n, pt->Rz, ind, dx, d->z, dz, scratch);
  const int keep = hy_form_keep_positions(f, dz);
  hy_status st = HY_OK;
  if (keep) {
    // R_z and the factors are those of the last evaluation
    hy_form_close_velocities(f);
  } else if (hy_form_close_loops(f) != HY_OK) {
    st = HY_FAIL(&d->err, HY_NEWTON_NOCONV,
                 "loop closure failed at t = %g s (constraint residual %.3g)", d->time,
                 d->violation);
  }
  if (st == HY_OK && m->sizes.nnh > 0) {
    // x_ad's velocities exactly on B zd = 0 at the accepted positions (the Newton iteration met
    // it to its tolerance), then zdd = T zdd_ai + SD
    hy_mech_kinematics_vel(m, d, f->mech);
    hy_mech_nonholonomic(m, d, f->mech);
    if (hy_form_nh_factor(f) != HY_OK) {
      st = HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "the nonholonomic constraints' dependent block is singular at t = %g s",
                   d->time);
    } else {
      hy_form_nh_close_velocities(f);
      hy_mech_kinematics_vel(m, d, f->mech);
      if (m->sizes.neq > 0) hy_mech_constraints_bias(m, d, f->mech);
      hy_mech_nonholonomic(m, d, f->mech);
      hy_form_velocity_transform(f, 0);
      hy_form_nh_transform(f);
      st = nh_accelerations(f);
      if (st == HY_OK) hy_form_outputs(f);
    }
  } else if (st == HY_OK) {
    hy_mech_kinematics_vel(m, d, f->mech);
    if (m->sizes.neq > 0) hy_mech_constraints_bias(m, d, f->mech);
    // S changes with the velocities
    HY_SIZED_F1(nz, nf, accelerations_n, pt, ind, d->phi_bias, d->zdd, scratch);
    hy_form_outputs(f);
  }
  hy_arena_release(f->arena, mark);
  if (st != HY_OK) return st;
  // a new partition when the dependent block approaches a singularity: the state is kept in
  // all coordinates, so only the choice of unknowns changes for the next step
  if (m->sizes.neq > 0 && pt->pivot_ratio < m->opt.partition_rcond * pt->pivot_ratio_sel) {
    HY_TRY(hy_form_select_partition(f));
    if (hy_form_factor_dependent(f) != HY_OK) {
      return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                     "no non-singular partition of the coordinates at t = %g s: the mechanism "
                     "is at a singular configuration",
                     d->time);
    }
    // the best partition now is the reference for the next degradation
    pt->pivot_ratio_sel = pt->pivot_ratio;
    if (m->sizes.nnh > 0) HY_TRY(hy_form_nh_select(f));
    publish_unknowns(f);
  } else if (m->sizes.nnh > 0 && pt->nh_ratio < m->opt.partition_rcond * pt->nh_ratio_sel) {
    // x_ad chosen again (the vehicle turned: another of x, y carries the side constraint best)
    HY_TRY(hy_form_nh_select(f));
    publish_unknowns(f);
  }
  return HY_OK;
}

// The unknowns are the independent coordinates of the partition.
static void publish_unknowns(hy_form* f) {
  f->nmech = f->d->ndof;
  f->coord = f->d->part;
}

static hy_status ds_start(hy_form* f) {
  publish_unknowns(f);
  return hy_form_forward(f);
}
static void ds_begin(hy_form* f) { (void)f; }

static void ds_iterated(hy_form* f) { (void)f; }

// The partition does not change within a step: the start's is still in place.
static void ds_abort(hy_form* f) { (void)f; }

// A step that failed may have failed because the partition degraded within it, before the
// re-selection at the end of a step could see it (the dependent block's pivot ratio can fall
// tenfold in a few steps): the step is retried with the partition full pivoting chooses at its
// start.
static void ds_retry(hy_form* f) {
  if (f->m->sizes.neq + f->m->sizes.nnh == 0) return;
  if (hy_form_select_partition(f) == HY_OK && hy_form_factor_dependent(f) == HY_OK) {
    f->part.pivot_ratio_sel = f->part.pivot_ratio;
    if (f->m->sizes.nnh > 0) (void)hy_form_nh_select(f);
  }
  publish_unknowns(f);
}

// the partition, its only history, is every closed-loop formulation's (sim_state.c)
static int ds_hist_size(const hy_model* m) {
  (void)m;
  return 0;
}

static void ds_hist_get(const hy_form* f, double* buf) {
  (void)f;
  (void)buf;
}

// (the partition set with the history is the one the unknowns follow)
// (no history of its own)
static int ds_hist_ok(const hy_model* m, const double* buf) {
  (void)m;
  (void)buf;
  return 1;
}

static void ds_hist_set(hy_form* f, const double* buf) {
  (void)buf;
  publish_unknowns(f);
}

const hy_form_ops hy_form_doublestep_ops = {
    .kind = HY_FORM_DOUBLE_STEP,
    .name = "double-step",
    .has_ode = 0,
    .size = ds_size,
    .bind = ds_bind,
    .scratch = ds_scratch,
    .start = ds_start,
    .accelerations = hy_form_closed_accelerations,
    .begin = ds_begin,
    .residual = ds_residual,
    .tangent = ds_tangent,
    .iterated = ds_iterated,
    .accept = ds_accept,
    .abort = ds_abort,
    .retry = ds_retry,
    .hist_size = ds_hist_size,
    .hist_get = ds_hist_get,
    .hist_set = ds_hist_set,
    .hist_ok = ds_hist_ok,
};
