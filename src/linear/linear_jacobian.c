// The Jacobians of the linearized equations of motion, 003_f349169f78d6df41.txt Sects. 3 and
// 4.5. Both are formed on a data of their own (a copy of the model running the double-step
// formulation when it has closed loops, the tree formulation otherwise), set to the reference
// state, so that the accelerations are those of the index-1 form with the constraints'
// acceleration level exact (seed 000 Eqs. 13-17, seed 003 Eqs. 95-98).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "form/form.h"
#include "linear/linear.h"
#include "sim/sim.h"

// The mechanical blocks of the reduced Jacobian (accelerations against z_i, z_i_dot): central
// differences at this step and at half of it (rad or m, per s, times max(1, |x|)), combined by
// Richardson extrapolation (4 D(e/2) - D(e)) / 3, whose error is O(e^4): about 1e-12 relative,
// well below the counterpart's best (seed 003 Fig. 14), which it serves as the reference of.
#define REDUCED_STEP 1e-5
// Typical magnitudes of the counterpart's states, below which its step is not scaled down.
#define SCALE_MECH 1.0   // rad or m, and per s
#define SCALE_P 1e5      // Pa
#define SCALE_W 1e-6     // m of bristle deflection (the film thickness is O(1): scaled by itself)
#define SCALE_U 1.0      // V

typedef struct lin_ctx {
  hy_model* m;  // the copy the data runs
  hy_data* d;
  hy_form* f;
  hy_linear* L;
  int nz, ndof, ny, nspool, ncyl;
  double* z_ref;   // the reference coordinates, the loop closure's start       (nz)
  double* zd_ref;  //                                                           (nz)
} lin_ctx;

// The layout [q (nq); q_dot (nv); y = [p; w] (ny); U (nspool: the spools' positions, then the
// second-order ones' velocities)]: with nonholonomic constraints the
// reduced q are [x_ai; x_ad] and q_dot the nv = nq - l velocities of x_ai (seed 003 Eq. 61's
// states in another order).
static int idx_y(const lin_ctx* c) { return c->L->nq + c->L->nv; }
static int idx_u(const lin_ctx* c) { return c->L->nq + c->L->nv + c->ny; }

// Sets the data's state from x (reduced: the dependent coordinates and velocities by the loop
// closure from the reference) and evaluates it (hy_form_forward: accelerations, pressure and
// friction rates, spool rates).
static hy_status set_state(lin_ctx* c, const double* x) {
  hy_data* d = c->d;
  const hy_linear* L = c->L;
  const int nq = L->nq, nv = L->nv;
  if (L->method == HY_LIN_REDUCED) {
    memcpy(d->z, c->z_ref, sizeof(double) * (size_t)c->nz);
    memcpy(d->zd, c->zd_ref, sizeof(double) * (size_t)c->nz);
    for (int k = 0; k < nq; k++) d->z[L->coord[k]] = x[k];
    for (int k = 0; k < nv; k++) d->zd[L->coord[k]] = x[nq + k];
    if (c->m->sizes.neq + c->m->sizes.nnh > 0) {
      // seed 003 Eqs. 33-44: the dependent coordinates and velocities follow the independent
      // ones through the constraints at position and velocity level
      const hy_status st = hy_form_close_loops(c->f);
      if (st != HY_OK) {
        return HY_FAIL(&d->err, st, "linearization: the loops do not close at a perturbed state");
      }
    }
    if (c->m->sizes.nnh > 0) {
      // Eqs. 45-52: the velocities of x_ad from B zd = 0 at the perturbed positions, with the
      // reference's choice of x_ad
      hy_mech_kinematics_vel(c->m, d, c->f->mech);
      hy_mech_nonholonomic(c->m, d, c->f->mech);
      if (hy_form_nh_factor(c->f) != HY_OK) {
        return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                       "linearization: the nonholonomic constraints are singular at a "
                       "perturbed state");
      }
      hy_form_nh_close_velocities(c->f);
    }
  } else {
    memcpy(d->z, x, sizeof(double) * (size_t)nq);
    memcpy(d->zd, x + nq, sizeof(double) * (size_t)nq);
  }
  memcpy(d->p, x + idx_y(c), sizeof(double) * (size_t)c->ny);
  memcpy(d->U, x + idx_u(c), sizeof(double) * (size_t)c->nspool);
  return hy_form_forward(c->f);
}

// x_dot at x into xd.
static hy_status rhs(lin_ctx* c, const double* x, double* xd) {
  HY_TRY(set_state(c, x));
  const hy_data* d = c->d;
  const hy_linear* L = c->L;
  const int nq = L->nq;
  for (int k = 0; k < nq; k++) xd[k] = d->zd[L->coord[k]];
  for (int k = 0; k < L->nv; k++) xd[nq + k] = d->zdd[L->coord[k]];
  memcpy(xd + idx_y(c), d->pd, sizeof(double) * (size_t)c->ny);
  memcpy(xd + idx_u(c), d->Ud, sizeof(double) * (size_t)c->nspool);
  return HY_OK;
}

// The step of state j.
static double step_of(const lin_ctx* c, int j, double h) {
  const hy_linear* L = c->L;
  const double a = fabs(L->x[j]);
  if (L->method == HY_LIN_REDUCED) return REDUCED_STEP * fmax(1.0, a);
  double typical = SCALE_MECH;
  if (j >= idx_u(c)) {
    typical = SCALE_U;
  } else if (j >= idx_y(c)) {
    typical = j - idx_y(c) < c->m->sizes.nvol ? SCALE_P : SCALE_W;
  }
  return h * fmax(typical, a);
}

// Column j of J by central differences of step e (seed 003 Eq. 100) into col (n), and the
// cylinders' rates at the two states into sdp, sdm (nullable).
static hy_status difference(lin_ctx* c, int j, double e, double* xp, double* fp, double* fm,
                            double* col, double* sdp, double* sdm) {
  hy_linear* L = c->L;
  const int n = L->n;
  memcpy(xp, L->x, sizeof(double) * (size_t)n);
  xp[j] = L->x[j] + e;
  HY_TRY(rhs(c, xp, fp));
  if (sdp) {
    for (int k = 0; k < c->ncyl; k++) sdp[k] = c->d->frc_rate[c->m->cyl_frc[k]];
  }
  xp[j] = L->x[j] - e;
  HY_TRY(rhs(c, xp, fm));
  if (sdm) {
    for (int k = 0; k < c->ncyl; k++) sdm[k] = c->d->frc_rate[c->m->cyl_frc[k]];
  }
  for (int i = 0; i < n; i++) col[i] = (fp[i] - fm[i]) / (2 * e);
  return HY_OK;
}

// Column j of J: the counterpart's central difference, or for the reduced Jacobian's
// coordinates and velocities the Richardson extrapolation of two (then also d s_dot / d x_j of
// the cylinders into sdz_col, nullable); the spools' columns are linear, one difference is exact.
static hy_status column(lin_ctx* c, int j, double h, double* xp, double* fp, double* fm,
                        double* col2, double* sdp, double* sdm, double* sdz_col) {
  hy_linear* L = c->L;
  const int n = L->n;
  const double e = step_of(c, j, h);
  double* col = col2;
  double* half = col2 + n;
  HY_TRY(difference(c, j, e, xp, fp, fm, col, sdp, sdm));
  if (sdz_col) {
    for (int k = 0; k < c->ncyl; k++) sdz_col[k] = (sdp[k] - sdm[k]) / (2 * e);
  }
  if (L->method == HY_LIN_REDUCED && j < L->nq + L->nv) {
    HY_TRY(difference(c, j, 0.5 * e, xp, fp, fm, half, sdp, sdm));
    for (int i = 0; i < n; i++) col[i] = (4 * half[i] - col[i]) / 3;
    if (sdz_col) {
      for (int k = 0; k < c->ncyl; k++) {
        sdz_col[k] = (4 * (sdp[k] - sdm[k]) / e - sdz_col[k]) / 3;
      }
    }
  }
  for (int i = 0; i < n; i++) L->J[i * n + j] = col[i];
  return HY_OK;
}

// The reduced Jacobian's hydraulic blocks, exact from the network's derivatives at the
// reference (seed 003 Eqs. 53-64), over the central differences:
//   d y_dot/d y          dp_dot/dp, dw_dot/dw, dw_dot/dp (dp_dot/dw = 0)
//   d y_dot/d z_i_dot    dy_dot/ds_dot J_s R_z
//   d y_dot/d z_i        dy_dot/ds J_s R_z + dy_dot/ds_dot d s_dot/d z_i (the last from the
//                        differences, sdz: it is 0 at rest)
//   d z_i_ddot/d y       d z_i_ddot/dF dF/dy, with d z_i_ddot/dF exact because the accelerations
//                        are affine in the cylinder forces (two evaluations per cylinder)
static hy_status analytic_blocks(lin_ctx* c, const double* sdz, double* work) {
  const hy_model* m = c->m;
  hy_data* d = c->d;
  hy_form* f = c->f;
  hy_linear* L = c->L;
  const int n = L->n, nq = L->nq, nv = L->nv, np = m->sizes.nvol, nw = m->sizes.nfric;
  const int nc = c->ncyl;
  const int y0 = idx_y(c);
  HY_TRY(set_state(c, L->x));
  double* a0 = work + (size_t)nc * (size_t)(nq + nv) + 4 * (size_t)nc;  // nv
  // the accelerations at the reference: those with the cylinder forces held at their values
  for (int i = 0; i < nv; i++) a0[i] = d->zdd[L->coord[i]];
  hy_hyd_evaluate(m, d, f->hyd);
  hy_form_cylinder_jacobians(f);
  const hy_hyd_work* hw = f->hyd;
  // J_s R_z: d s / d z_i (R_z is that of the reference's closure; the identity for a tree), and
  // J_s T: d s_dot / d z_i_dot (T over the nonholonomic constraints too; R_z without them)
  double* JsR = work;  // nc x nq
  double* JsT = work + (size_t)nc * (size_t)nq;  // nc x nv
  const int nh = m->sizes.nnh > 0;
  if (nh) hy_form_nh_transform(f);
  for (int k = 0; k < nc; k++) {
    for (int i = 0; i < nq; i++) {
      double s = 0, t = 0;
      if (m->sizes.neq + m->sizes.nnh > 0) {
        for (int z = 0; z < c->nz; z++) {
          s += f->jac_s[k * c->nz + z] * f->part.Rz[z * nq + i];
          if (i < nv) t += f->jac_s[k * c->nz + z] * (nh ? f->part.T[z * nv + i] : f->part.Rz[z * nq + i]);
        }
      } else {
        s = t = f->jac_s[k * c->nz + L->coord[i]];
      }
      JsR[k * nq + i] = s;
      if (i < nv) JsT[k * nv + i] = t;
    }
  }
  for (int r = 0; r < np + nw; r++) {
    double* row = L->J + (size_t)(y0 + r) * n;
    const int is_p = r < np;
    for (int i = 0; i < nq; i++) {
      double dz = 0, dzd = 0;
      for (int k = 0; k < nc; k++) {
        const double ds = is_p ? hw->dpd_ds[r * nc + k] : 0.0;
        const double dsd = is_p ? hw->dpd_dsd[r * nc + k] : hw->dwd_dsd[(r - np) * nc + k];
        dz += ds * JsR[k * nq + i] + dsd * sdz[k * nq + i];
        if (i < nv) dzd += dsd * JsT[k * nv + i];
      }
      row[i] = dz;
      if (i < nv) row[nq + i] = dzd;
    }
    for (int u = 0; u < np; u++) row[y0 + u] = is_p ? hw->dpd_dp[r * np + u] : hw->dwd_dp[(r - np) * np + u];
    for (int l = 0; l < nw; l++) row[y0 + np + l] = is_p ? 0.0 : hw->dwd_dw[(r - np) * nw + l];
  }
  // d z_i_ddot / dF: the cylinder forces held as inputs at their reference values, then one
  // moved by dF (an affine map: exact to round-off)
  double* F0 = work + (size_t)nc * (size_t)(nq + nv);  // nc
  double* coef = F0 + nc;                              // 3 nc
  double* dadF = a0 + nv;                              // nv x nc
  double* dFdy = dadF + (size_t)nv * (size_t)nc;       // nc x (np + nw)
  for (int k = 0; k < nc; k++) {
    F0[k] = d->frc_force[m->cyl_frc[k]];
    for (int u = 0; u < np; u++) dFdy[k * (np + nw) + u] = hw->dF_dp[k * np + u];
    for (int l = 0; l < nw; l++) dFdy[k * (np + nw) + np + l] = hw->dF_dw[k * nw + l];
  }
  hy_cyl_input in = {.mode = HY_CYL_INPUT_FORCE, .t0 = d->time, .coef = coef};
  memset(coef, 0, sizeof(double) * 3 * (size_t)nc);
  for (int k = 0; k < nc; k++) coef[3 * k] = F0[k];
  d->cyl_input = &in;
  hy_status st = HY_OK;
  for (int k = 0; st == HY_OK && k < nc; k++) {
    const double dF = fmax(1.0, fabs(F0[k]));
    coef[3 * k] = F0[k] + dF;
    st = set_state(c, L->x);
    for (int i = 0; st == HY_OK && i < nv; i++) dadF[i * nc + k] = (d->zdd[L->coord[i]] - a0[i]) / dF;
    coef[3 * k] = F0[k];
  }
  d->cyl_input = NULL;
  HY_TRY(st);
  for (int i = 0; i < nv; i++) {
    double* row = L->J + (size_t)(nq + i) * n;
    for (int v = 0; v < np + nw; v++) {
      double s = 0;
      for (int k = 0; k < nc; k++) s += dadF[i * nc + k] * dFdy[k * (np + nw) + v];
      row[y0 + v] = s;
    }
  }
  return HY_OK;
}

void hy_linear_free(hy_linear* L) {
  if (!L) return;
  hy_free(L->coord);
  hy_free(L->J);
  hy_free(L->x);
  hy_free(L->Rz);
  hy_free(L);
}

static hy_linear* alloc_linear(int n, int nq, int nv, int nz) {
  hy_linear* L = hy_calloc(1, sizeof *L);
  if (!L) return NULL;
  L->n = n;
  L->nq = nq;
  L->nv = nv;
  L->coord = hy_calloc((size_t)(nq > 0 ? nq : 1), sizeof(int));
  L->J = hy_calloc((size_t)n * (size_t)n, sizeof(double));
  L->x = hy_calloc((size_t)n, sizeof(double));
  L->nz = nz;
  L->Rz = hy_calloc((size_t)nz * (size_t)(nq > 0 ? nq : 1), sizeof(double));
  if (!L->coord || !L->J || !L->x || !L->Rz) {
    hy_linear_free(L);
    return NULL;
  }
  return L;
}

struct hy_linearizer {
  hy_model* m;  // the copy its data runs (double-step with loops, tree otherwise)
  hy_data* d;
  double* buf;  // a state of the caller's data (HY_STATE_TIME | HY_STATE_PHYSICS)
  int nbuf;
};

void hy_linearizer_free(hy_linearizer* lz) {
  if (!lz) return;
  hy_data_free(lz->d);
  hy_model_free(lz->m);
  hy_free(lz->buf);
  hy_free(lz);
}

hy_status hy_linearizer_make(const hy_model* m0, hy_linearizer** out, hy_error* err) {
  if (!m0 || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_linearizer_make: NULL argument");
  *out = NULL;
  hy_linearizer* lz = hy_calloc(1, sizeof *lz);
  if (!lz) return HY_FAIL(err, HY_ERR_NOMEM, "linearization: out of memory");
  hy_status st = hy_model_copy(m0, &lz->m);
  if (st != HY_OK) {
    hy_linearizer_free(lz);
    return HY_FAIL(err, st, "linearization: cannot copy the model");
  }
  const int constrained = lz->m->sizes.neq + lz->m->sizes.nnh > 0;  // cut joints, couplers
  lz->m->opt.formulation = constrained ? HY_FORM_DOUBLE_STEP : HY_FORM_TREE;
  lz->m->opt.integrator = HY_INTEG_AUTO;
  st = hy_data_make(lz->m, &lz->d, err);
  if (st == HY_OK) {
    lz->nbuf = hy_state_size(lz->m, lz->d, HY_STATE_TIME | HY_STATE_PHYSICS);
    lz->buf = hy_malloc(sizeof(double) * (size_t)lz->nbuf);
    if (!lz->buf) st = HY_FAIL(err, HY_ERR_NOMEM, "linearization: out of memory");
  }
  if (st != HY_OK) {
    hy_linearizer_free(lz);
    return st;
  }
  *out = lz;
  return HY_OK;
}

hy_status hy_linearizer_jacobian(hy_linearizer* lz, const hy_model* m0, const hy_data* d0,
                                 hy_lin_method method, double h, hy_linear** out,
                                 hy_error* err) {
  if (!lz || !m0 || !d0 || !out) {
    return HY_FAIL(err, HY_ERR_ARG, "hy_linearizer_jacobian: NULL argument");
  }
  *out = NULL;
  if (!(h > 0)) h = 1e-5;
  lin_ctx c = {.m = lz->m, .d = lz->d};
  double* work = NULL;
  const unsigned seg = HY_STATE_TIME | HY_STATE_PHYSICS;
  if (hy_state_size(m0, d0, seg) != lz->nbuf) {
    return HY_FAIL(err, HY_ERR_ARG, "linearization: the data is not one of the model's");
  }
  hy_status st = hy_state_get(m0, d0, seg, lz->buf);
  // a start at the reference: the partition chosen there (the model's `independent` marks, or
  // full pivoting), consistent accelerations, the integrator's history forgotten
  if (st == HY_OK) st = hy_state_set(c.m, c.d, seg, lz->buf);
  if (st != HY_OK && err) *err = c.d->err;
  if (st == HY_OK && c.d->ndof == 0) {
    st = HY_FAIL(err, HY_ERR_MODEL, "linearization: model '%s' has no degree of freedom",
                 c.m->name);
  }
  if (st == HY_OK) {
    c.f = hy_sim_form(c.m, c.d);
    c.nz = c.m->sizes.nz;
    c.ndof = c.d->ndof;
    c.ny = c.m->sizes.nvol + c.m->sizes.nfric;
    c.nspool = c.m->sizes.nspool;
    c.ncyl = c.m->sizes.ncyl;
    const int nq = method == HY_LIN_REDUCED ? c.ndof : c.nz;
    const int nv = method == HY_LIN_REDUCED ? c.ndof - c.m->sizes.nnh : c.nz;
    const int n = nq + nv + c.ny + c.nspool;
    c.L = alloc_linear(n, nq, nv, c.nz);
    const size_t nw = (size_t)2 * (size_t)c.nz + (size_t)9 * (size_t)n +
                      (size_t)c.ncyl * (size_t)(4 * nq + 8 + c.ny) + (size_t)nq;
    work = hy_calloc(nw, sizeof(double));
    if (!c.L || !work) st = HY_FAIL(err, HY_ERR_NOMEM, "linearization: out of memory");
  }
  if (st == HY_OK) {
    hy_linear* L = c.L;
    L->method = method;
    L->h = h;
    L->t = c.d->time;
    L->np = c.m->sizes.nvol;
    L->nw = c.m->sizes.nfric;
    L->nu = c.nspool;
    c.z_ref = work;
    c.zd_ref = c.z_ref + c.nz;
    memcpy(c.z_ref, c.d->z, sizeof(double) * (size_t)c.nz);
    memcpy(c.zd_ref, c.d->zd, sizeof(double) * (size_t)c.nz);
    for (int k = 0; k < L->nq; k++) L->coord[k] = method == HY_LIN_REDUCED ? c.d->part[k] : k;
    for (int k = 0; k < L->nq; k++) L->x[k] = c.d->z[L->coord[k]];
    for (int k = 0; k < L->nv; k++) L->x[L->nq + k] = c.d->zd[L->coord[k]];
    memcpy(L->x + idx_y(&c), c.d->p, sizeof(double) * (size_t)c.ny);
    memcpy(L->x + idx_u(&c), c.d->U, sizeof(double) * (size_t)c.nspool);
    const int n = L->n;
    double* xp = c.zd_ref + c.nz;
    double* fp = xp + n;
    double* fm = fp + n;
    double* sdp = fm + n;                       // ncyl
    double* sdm = sdp + c.ncyl;                 // ncyl
    double* sdz = sdm + c.ncyl;                 // ncyl x nq: d s_dot / d z_i
    double* blocks = sdz + (size_t)c.ncyl * (size_t)L->nq;
    double* col2 = blocks + (size_t)c.ncyl * (size_t)(3 * L->nq + 4 + c.ny) + L->nq;
    double* sdz_col = col2 + 2 * n;
    for (int j = 0; st == HY_OK && j < n; j++) {
      // the reduced Jacobian's columns of the pressures and friction states are all analytic
      // (analytic_blocks; z_i_dot's rows do not depend on them)
      if (method == HY_LIN_REDUCED && c.ncyl > 0 && j >= idx_y(&c) && j < idx_u(&c)) continue;
      const int want_sd = method == HY_LIN_REDUCED && j < L->nq;
      st = column(&c, j, h, xp, fp, fm, col2, want_sd ? sdp : NULL, want_sd ? sdm : NULL,
                  want_sd ? sdz_col : NULL);
      if (st == HY_OK && want_sd) {
        for (int k = 0; k < c.ncyl; k++) sdz[k * L->nq + j] = sdz_col[k];
      }
    }
    if (st == HY_OK && method == HY_LIN_REDUCED && c.ncyl > 0) {
      st = analytic_blocks(&c, sdz, blocks);
    }
    // every coordinate's variation from the states': R_z at the reference (seed 003 Eq. 44),
    // from the loop closure at the reference that analytic_blocks ended with
    if (st == HY_OK && !(method == HY_LIN_REDUCED && c.ncyl > 0)) st = set_state(&c, L->x);
    for (int z = 0; st == HY_OK && z < c.nz; z++) {
      for (int k = 0; k < L->nq; k++) {
        double v = z == L->coord[k] ? 1.0 : 0.0;
        if (method == HY_LIN_REDUCED && c.m->sizes.neq + c.m->sizes.nnh > 0) {
          v = c.f->part.Rz[z * L->nq + k];
        }
        L->Rz[z * L->nq + k] = v;
      }
    }
    if (st != HY_OK && err) *err = c.d->err;
  }
  hy_free(work);
  if (st != HY_OK) {
    hy_linear_free(c.L);
    return st;
  }
  *out = c.L;
  return HY_OK;
}

hy_status hy_linear_make(const hy_model* m0, const hy_data* d0, hy_lin_method method, double h,
                         hy_linear** out, hy_error* err) {
  if (!m0 || !d0 || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_linear_make: NULL argument");
  *out = NULL;
  hy_linearizer* lz = NULL;
  HY_TRY(hy_linearizer_make(m0, &lz, err));
  const hy_status st = hy_linearizer_jacobian(lz, m0, d0, method, h, out, err);
  hy_linearizer_free(lz);
  return st;
}

void hy_linear_state_name(const hy_model* m, const hy_linear* L, int i, char* buf, size_t size) {
  const int nq = L->nq, nm = L->nq + L->nv, np = L->np, nw = L->nw;
  if (i < nm) {
    const int k = i < nq ? i : i - nq;
    int joint = 0;
    for (int j = 0; j < m->sizes.nbody; j++) {
      if (m->jnt_zadr[j] == L->coord[k]) joint = j;
    }
    snprintf(buf, size, "%s:%s", i < nq ? "z" : "zd", m->jnt_name + (size_t)joint * HY_NAME_MAX);
  } else if (i < nm + np) {
    snprintf(buf, size, "p:%s", m->vol_name + (size_t)(i - nm) * HY_NAME_MAX);
  } else if (i < nm + np + nw) {
    snprintf(buf, size, "w:%d", i - nm - np);
  } else {
    // a spool's position, or a second-order spool's velocity
    const int k = i - nm - np - nw;
    int v = k;
    for (int j = 0; j < m->sizes.nvlv && k >= m->sizes.nvlv; j++) {
      if (m->vlv_vadr[j] == k) v = j;
    }
    snprintf(buf, size, "%s:%s", k < m->sizes.nvlv ? "U" : "Ud",
             m->vlv_name + (size_t)v * HY_NAME_MAX);
  }
}
