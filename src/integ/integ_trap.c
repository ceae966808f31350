// The trapezoidal rule with Newton-Raphson, seed 000_c866e3283107e8a4.txt Sect. 4: the
// predictors and the trapezoidal relations of the unknowns (Eqs. 33-34), the closed-form step of
// the spools (Eq. 27 and the second order), the residual rows of the pressures and of the seals'
// friction states (seed 002 Eqs. 38-40, 47), the Newton iteration (Eq. 37) over the unknowns
// [mechanical | pressures | friction states] with one tolerance per segment, and the tangent in
// blocks (the first-order unknowns eliminated, Eqs. 38-39 differentiated) or by finite
// differences (Eqs. 40-41). The pressures and friction states are one vector y = [p; w] in
// hy_data, which the relations, predictors and rows below treat alike. The formulation supplies the equations of motion at the state the
// relations set, and their mechanical tangent block.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "integ/integ.h"

//----- the start of a step -------------------------------------------------------------------

// The start of the step kept, the terms of Eq. 34 and the predictor of Sect. 4
// z + h zd + h^2/2 zdd for every coordinate
static HY_ALWAYS_INLINE void predict_coordinates_n(int nz, double dt, hy_data* d, hy_trap* tr) {
  double* restrict z = d->z;
  const double* restrict zd = d->zd;
  const double* restrict zdd = d->zdd;
  for (int i = 0; i < nz; i++) {
    tr->z_k[i] = z[i];
    tr->zd_k[i] = zd[i];
    tr->zdd_k[i] = zdd[i];
    tr->hat_zd[i] = -(2 / dt * z[i] + zd[i]);
    tr->hat_zdd[i] = -(4 / (dt * dt) * z[i] + 4 / dt * zd[i] + zdd[i]);
    z[i] = z[i] + dt * zd[i] + 0.5 * dt * dt * zdd[i];
  }
}

// The pressure predictor (p_dot at t + h/2 extrapolated from the last two rates, the
// Adams-Bashforth step of two rates h_prev apart) into xp, and the term of Eq. 34. The usual
// step of the size before gets the constant-step coefficients 3/2 and 1/2.
static HY_ALWAYS_INLINE void predict_pressures_n(int nv, double dt, const hy_data* d, hy_trap* tr,
                                                 double* restrict xp) {
  const double* restrict p = d->p;
  const double* restrict pd = d->pd;
  double* restrict pd_prev = tr->pd_prev;
  for (int v = 0; v < nv; v++) {
    tr->p_k[v] = p[v];
    tr->pd_k[v] = pd[v];
    tr->pd_prev_k[v] = pd_prev[v];
    tr->hat_pd[v] = -(2 / dt * p[v] + pd[v]);
  }
  if (dt == tr->h_prev) {
    for (int v = 0; v < nv; v++) xp[v] = p[v] + dt * (1.5 * pd[v] - 0.5 * pd_prev[v]);
  } else {
    const double b = dt / (2 * tr->h_prev);
    for (int v = 0; v < nv; v++) xp[v] = p[v] + dt * (pd[v] + b * (pd[v] - pd_prev[v]));
  }
  for (int v = 0; v < nv; v++) pd_prev[v] = pd[v];
}

// Under error control the Newton iteration stops at a tenth of the error tolerance when that is
// tighter than its own: the part of a step left unconverged is an error the estimate does not
// see, and below the Newton tolerance a tighter error tolerance would buy nothing. Measured on
// loop-64 to t = 2 s, error tolerance 1e-8 rad: 1.8e-3 rad off a converged reference with the
// Newton tolerance 1e-7, 3.2e-5 rad with 1e-9 (docs/formulations.md).
#define NEWTON_SHARE_OF_ERROR 0.1

static double newton_tolerance(const hy_model* m, double tol, double error_tol) {
  if (m->opt.error_control == HY_ERRCTL_NONE) return tol;
  return fmin(tol, NEWTON_SHARE_OF_ERROR * error_tol);
}

void hy_trap_begin(hy_integ* in, hy_form* f, double h, double t_end) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_trap* tr = &in->trap;
  const int nz = m->sizes.nz, nv = (int)hy_integ_first_order(m);
  tr->h = h;
  tr->c1 = 2 / h;
  tr->c2 = 4 / (h * h);
  tr->t_k = d->time;
  tr->power_k = f->power;
  tr->iter = 0;
  f->step.h = h;
  f->step.w_vel = 0.5 * h;
  f->step.w_pos = 0.25 * h * h;
  f->step.tol_pos = newton_tolerance(m, m->opt.tol_pos, m->opt.error_tol_pos);
  HY_COPY(m->sizes.nspool, tr->U_k, d->U);
  hy_mech_cache_get(m, f->mech, tr->cache_k);
  f->ops->begin(f);
  HY_SIZED(nz, predict_coordinates_n, h, d, tr);
  tr->nm = f->nmech;
  tr->coord = f->coord;
  tr->n = tr->nm + nv;
  if (tr->coord) {
    for (int c = 0; c < tr->nm; c++) tr->x[c] = d->z[tr->coord[c]];
  } else {
    HY_COPY(nz, tr->x, d->z);
  }
  HY_SIZED(nv, predict_pressures_n, h, d, tr, tr->x + tr->nm);
  if (m->opt.error_control != HY_ERRCTL_NONE) HY_COPY(tr->n, tr->x_pred, tr->x);
  // the spools' dynamics (seed 000 Eq. 27, or the second order) are linear and independent of
  // the other unknowns: the trapezoidal rule solves them in closed form (the reference at the
  // start of a step is the one the step before looked up at its end)
  const double t0 = d->time;
  const int known = t0 == tr->uref_t;
  if (d->spool_seed_only) {
    // the seeds' spools (hy_hyd_spool_seed_only): the same numbers without two calls a valve
    for (int i = 0; i < m->sizes.nvlv; i++) {
      const double r0 = known ? tr->uref[i] : hy_hyd_spool_command(m, i, t0);
      const double r1 = hy_hyd_spool_command(m, i, t_end);
      hy_hyd_spool_lag(m, d, i, tr->U_k[i], r0, r1, h);
      tr->uref[i] = r1;
    }
  } else {
    for (int i = 0; i < m->sizes.nvlv; i++) {
      const double r0 = known ? tr->uref[i] : hy_hyd_spool_reference(m, d, i, t0);
      const double r1 = hy_hyd_spool_reference(m, d, i, t_end);
      const int iw = m->vlv_vadr[i];
      hy_hyd_spool_step(m, d, i, tr->U_k[i], iw >= 0 ? tr->U_k[iw] : 0.0, r0, r1, h);
      tr->uref[i] = r1;
    }
  }
  tr->uref_t = t_end;
  d->time = t_end;
}

//----- the residual ----------------------------------------------------------------------------

// Eq. 33 on the mechanical unknowns x (coordinates coord[c], or c when coord is NULL): the
// coordinates, their velocities and accelerations, and dxm, how far each moved since the last
// evaluation.
static HY_ALWAYS_INLINE void set_mech_n(int nm, const hy_trap* tr, const int* restrict coord,
                                        const double* restrict x, hy_data* d,
                                        double* restrict dxm) {
  double* restrict z = d->z;
  double* restrict zd = d->zd;
  double* restrict zdd = d->zdd;
  const double c1 = tr->c1, c2 = tr->c2;
  for (int c = 0; c < nm; c++) {
    const int i = coord ? coord[c] : c;
    dxm[c] = x[c] - z[i];
    z[i] = x[c];
    zd[i] = c1 * x[c] + tr->hat_zd[i];
    zdd[i] = c2 * x[c] + tr->hat_zdd[i];
  }
}

// Eq. 33 on the pressure unknowns xp
static HY_ALWAYS_INLINE void set_pressures_n(int nv, double c1, const double* restrict xp,
                                             const double* restrict hat_pd, double* restrict p,
                                             double* restrict pd_trap) {
  for (int v = 0; v < nv; v++) {
    p[v] = xp[v];
    pd_trap[v] = c1 * xp[v] + hat_pd[v];
  }
}

// The rows of Eqs. 38-39: the formulation's mechanical rows times h^2/4, and the pressure rows
// scaled by 2/h so that their diagonal is about one: h/2 (p_dot_trap - p_dot(p, s, s_dot))
static HY_ALWAYS_INLINE void scale_rows_n(int nv, int nm, double sm, double sp,
                                          const double* restrict pd_trap, const double* restrict pd,
                                          double* restrict r) {
  for (int c = 0; c < nm; c++) r[c] = sm * r[c];
  for (int v = 0; v < nv; v++) r[nm + v] = sp * (pd_trap[v] - pd[v]);
}

// scale_rows_n for the Newton iteration, which also needs -r (the right-hand side of its
// system) and the largest |r| of each segment (NaN wins)
static HY_ALWAYS_INLINE void newton_rows_n(int nv, int nm, double sm, double sp,
                                           const double* restrict pd_trap,
                                           const double* restrict pd, double* restrict r,
                                           double* restrict neg, double* restrict norm) {
  double rm = 0, rh = 0;
  for (int c = 0; c < nm; c++) {
    const double v = sm * r[c];
    r[c] = v;
    neg[c] = -v;
    const double a = fabs(v);
    if (!(a <= rm)) rm = a;
  }
  for (int v = 0; v < nv; v++) {
    const double u = sp * (pd_trap[v] - pd[v]);
    r[nm + v] = u;
    neg[nm + v] = -u;
    const double a = fabs(u);
    if (!(a <= rh)) rh = a;
  }
  norm[0] = rm;
  norm[1] = rh;
}

// The state at the unknowns x and the formulation's rows there, unscaled, into r.
static hy_status evaluate(hy_integ* in, hy_form* f, const double* x, double* r) {
  hy_trap* tr = &in->trap;
  hy_data* d = f->d;
  const int nm = tr->nm, nv = (int)hy_integ_first_order(f->m);
  if (tr->coord) {
    HY_SIZED(nm, set_mech_n, tr, tr->coord, x, d, tr->dxm);
  } else {
    HY_SIZED(nm, set_mech_n, tr, (const int*)NULL, x, d, tr->dxm);
  }
  HY_SIZED(nv, set_pressures_n, tr->c1, x + nm, tr->hat_pd, d->p, tr->pd_trap);
  return f->ops->residual(f, tr->dxm, r);
}

hy_status hy_trap_residual(hy_integ* in, hy_form* f, const double* x, double* r) {
  HY_TRY(evaluate(in, f, x, r));
  const double h = in->trap.h;
  HY_SIZED2((int)hy_integ_first_order(f->m), in->trap.nm, scale_rows_n, 0.25 * h * h, 0.5 * h,
            in->trap.pd_trap, f->d->pd, r);
  return HY_OK;
}

//----- the tangent in blocks -------------------------------------------------------------------

// The tangent's pressure blocks (seed 000 Eqs. 38-39 differentiated) from the hydraulic
// derivatives of the evaluation the tangent is formed at. Pressure rows:
// f_p = h/2 (2/h p + hat - p_dot(p, s, s_dot)), so D = df_p/dp = I - h/2 dp_dot/dp and
// df_p/dz = G Js with G = -h/2 (dp_dot/ds + 2/h dp_dot/ds_dot) (the change of Js with z is left
// out). Mechanical rows: f_z = h^2/4 (... - Js^T F), so df_z/dp = -h^2/4 Js^T dF/dp (Jr in place
// of Js where the formulation's rows project the forces otherwise: tg_jr).
static HY_ALWAYS_INLINE void pressure_blocks_n(int nv, int nc, double dt, const hy_hyd_work* hw,
                                               double* restrict D, double* restrict G) {
  for (int v = 0; v < nv; v++) {
    for (int w = 0; w < nv; w++) {
      D[v * nv + w] = (v == w ? 1.0 : 0.0) - 0.5 * dt * hw->dpd_dp[v * nv + w];
    }
    for (int c = 0; c < nc; c++) {
      G[v * nc + c] = -0.5 * dt * (hw->dpd_ds[v * nc + c] + 2 / dt * hw->dpd_dsd[v * nc + c]);
    }
  }
}

// With friction states the blocks of y = [p; w] (ny = nv + nw), seed 002 Eqs. 38-40: the pressure
// rates do not depend on w, the states' rates depend on p (a pressure-dependent Coulomb force), w
// and s_dot; the cylinder forces on p and w.
//   D = [I - h/2 dp_dot/dp, 0; -h/2 dw_dot/dp, I - h/2 dw_dot/dw]
//   G = -h/2 [dp_dot/ds + 2/h dp_dot/ds_dot; 2/h dw_dot/ds_dot],  dF/dy = [dF/dp, dF/dw]
static void friction_blocks(const hy_model* m, double dt, const hy_hyd_work* hw, double* D,
                            double* G, double* Fy) {
  const int nv = m->sizes.nvol, nw = m->sizes.nfric, nc = m->sizes.ncyl, ny = nv + nw;
  for (int v = 0; v < nv; v++) {
    for (int u = 0; u < nv; u++) D[v * ny + u] = (v == u ? 1.0 : 0.0) - 0.5 * dt * hw->dpd_dp[v * nv + u];
    for (int k = 0; k < nw; k++) D[v * ny + nv + k] = 0;
    for (int c = 0; c < nc; c++) {
      G[v * nc + c] = -0.5 * dt * (hw->dpd_ds[v * nc + c] + 2 / dt * hw->dpd_dsd[v * nc + c]);
    }
  }
  for (int k = 0; k < nw; k++) {
    double* row = D + (size_t)(nv + k) * ny;
    for (int u = 0; u < nv; u++) row[u] = -0.5 * dt * hw->dwd_dp[k * nv + u];
    for (int j = 0; j < nw; j++) row[nv + j] = (k == j ? 1.0 : 0.0) - 0.5 * dt * hw->dwd_dw[k * nw + j];
    for (int c = 0; c < nc; c++) G[(nv + k) * nc + c] = -hw->dwd_dsd[k * nc + c];
  }
  for (int c = 0; c < nc; c++) {
    for (int u = 0; u < nv; u++) Fy[c * ny + u] = hw->dF_dp[c * nv + u];
    for (int k = 0; k < nw; k++) Fy[c * ny + nv + k] = hw->dF_dw[c * nw + k];
  }
}

// The mechanical block (the formulation's) into tg_S and tg_Js, and the first-order blocks, at
// the last residual evaluation. Returns dF_cyl/dy: the network's dF_dp without friction states.
static const double* tangent_blocks(hy_trap* tr, hy_form* f) {
  tr->tg_jr = f->ops->tangent(f, tr->tg_S, tr->tg_Js, tr->tg_Jr) ? tr->tg_Jr : tr->tg_Js;
  const int nv = f->m->sizes.nvol;
  if (f->m->sizes.nfric > 0) {
    friction_blocks(f->m, tr->h, f->hyd, tr->tg_D, tr->tg_G, tr->tg_Fy);
    return tr->tg_Fy;
  }
  if (nv > 0) HY_SIZED(nv, pressure_blocks_n, f->m->sizes.ncyl, tr->h, f->hyd, tr->tg_D, tr->tg_G);
  return f->hyd->dF_dp;
}

void hy_trap_tangent(hy_integ* in, hy_form* f, double* J) {
  hy_trap* tr = &in->trap;
  const int nm = tr->nm, nv = (int)hy_integ_first_order(f->m), nc = f->m->sizes.ncyl, nx = nm + nv;
  const double s = -0.25 * tr->h * tr->h;
  const double* Fy = tangent_blocks(tr, f);
  for (int i = 0; i < nm; i++) {
    double* row = J + (size_t)i * nx;
    memcpy(row, tr->tg_S + (size_t)i * nm, sizeof(double) * (size_t)nm);
    for (int w = 0; w < nv; w++) {
      double sum = 0;
      for (int c = 0; c < nc; c++) sum += tr->tg_jr[c * nm + i] * Fy[c * nv + w];
      row[nm + w] = s * sum;
    }
  }
  for (int v = 0; v < nv; v++) {
    double* row = J + (size_t)(nm + v) * nx;
    for (int i = 0; i < nm; i++) {
      double sum = 0;
      for (int c = 0; c < nc; c++) sum += tr->tg_G[v * nc + c] * tr->tg_Js[c * nm + i];
      row[i] = sum;
    }
    memcpy(row + nm, tr->tg_D + (size_t)v * nv, sizeof(double) * (size_t)nv);
  }
}

// Y = D^-1 G column by column (G row-major, nv x nc, overwritten by Y) and K = dF/dp Y.
static HY_ALWAYS_INLINE void eliminate_pressures_n(int nv, int nc, hy_trap* tr,
                                                   const double* restrict Fp) {
  double* restrict y = tr->tg_y;
  double* restrict G = tr->tg_G;
  double* restrict K = tr->tg_K;
  for (int c = 0; c < nc; c++) {
    for (int v = 0; v < nv; v++) y[v] = G[v * nc + c];
    hy_lu_solve(nv, tr->tg_D, tr->tg_Dpiv, y);
    for (int v = 0; v < nv; v++) G[v * nc + c] = y[v];
  }
  for (int a = 0; a < nc; a++) {
    for (int b = 0; b < nc; b++) {
      double k = 0;
      for (int v = 0; v < nv; v++) k += Fp[a * nv + v] * G[v * nc + b];
      K[a * nc + b] = k;
    }
  }
  for (int i = 0; i < nc * nv; i++) tr->tg_Fp[i] = Fp[i];
}

// S += s Jr^T K Js (Jr may be Js: both are only read, so restrict holds)
static HY_ALWAYS_INLINE void schur_update_n(int nm, int nc, double s, const double* restrict K,
                                            const double* restrict Jr,
                                            const double* restrict Js, double* restrict S) {
  for (int a = 0; a < nc; a++) {
    for (int b = 0; b < nc; b++) {
      const double k = s * K[a * nc + b];
      if (k == 0) continue;
      const double* ja = Jr + (size_t)a * nm;
      const double* jb = Js + (size_t)b * nm;
      for (int i = 0; i < nm; i++) {
        const double ki = k * ja[i];
        for (int j = 0; j < nm; j++) S[i * nm + j] += ki * jb[j];
      }
    }
  }
}

// The tangent of seed 000 Eqs. 38-39 (Eq. 37's J) in blocks. The pressures couple to the
// mechanics only through the ncyl cylinder lengths (Eqs. 29 and 44), so they are
// eliminated in blocks instead of factoring the whole tangent: with Y = D^-1 G, the Schur
// complement of D is S = A_m - (df_z/dp) D^-1 (df_p/dz) = A_m + h^2/4 Js^T (dF/dp Y) Js, a
// rank-ncyl update of the mechanical block. Besides being cheaper, the mechanical and pressure
// rows, whose scales differ by many orders of magnitude, are then never pivoted against each
// other.
hy_status hy_trap_factor(hy_integ* in, hy_form* f, int* sing) {
  hy_trap* tr = &in->trap;
  const int nm = tr->nm, nv = (int)hy_integ_first_order(f->m), nc = f->m->sizes.ncyl;
  const double* Fy = tangent_blocks(tr, f);
  int col = -1;
  if (nv > 0) {
    if (hy_lu_factor(nv, tr->tg_D, tr->tg_Dpiv, &col) != HY_OK) {
      *sing = nm + (col < 0 ? 0 : col);
      return HY_WARN_SINGULAR;
    }
    HY_SIZED(nv, eliminate_pressures_n, nc, tr, Fy);
    HY_SIZED(nm, schur_update_n, nc, 0.25 * tr->h * tr->h, tr->tg_K, tr->tg_jr, tr->tg_Js,
             tr->tg_S);
  }
  if (hy_lu_factor(nm, tr->tg_S, tr->tg_Spiv, &col) != HY_OK) {
    *sing = col < 0 ? 0 : col;
    return HY_WARN_SINGULAR;
  }
  return HY_OK;
}

// The block solve in two sized halves: first the pressures' part of the right-hand side of the
// mechanical rows, then the back-substitution of the pressures.
static HY_ALWAYS_INLINE void solve_pressures_first_n(int nv, int nm, int nc, double s,
                                                     const hy_trap* tr, double* restrict b) {
  // t = D^-1 b_p, then b_m - (df_z/dp) t = b_m + h^2/4 Js^T dF/dp t
  double* restrict bp = b + nm;
  hy_lu_solve(nv, tr->tg_D, tr->tg_Dpiv, bp);
  for (int c = 0; c < nc; c++) {
    double u = 0;
    for (int v = 0; v < nv; v++) u += tr->tg_Fp[c * nv + v] * bp[v];
    u *= s;
    const double* jc = tr->tg_jr + (size_t)c * nm;
    for (int i = 0; i < nm; i++) b[i] += u * jc[i];
  }
}

static HY_ALWAYS_INLINE void solve_pressures_last_n(int nv, int nm, int nc, const hy_trap* tr,
                                                    double* restrict b) {
  // x_p = t - Y Js x_m
  double* restrict bp = b + nm;
  for (int c = 0; c < nc; c++) {
    const double* jc = tr->tg_Js + (size_t)c * nm;
    double w = 0;
    for (int i = 0; i < nm; i++) w += jc[i] * b[i];
    for (int v = 0; v < nv; v++) bp[v] -= tr->tg_G[v * nc + c] * w;
  }
}

void hy_trap_solve(const hy_integ* in, const hy_form* f, double* b) {
  const hy_trap* tr = &in->trap;
  const int nm = tr->nm, nv = (int)hy_integ_first_order(f->m), nc = f->m->sizes.ncyl;
  if (nv > 0) HY_SIZED2(nv, nm, solve_pressures_first_n, nc, 0.25 * tr->h * tr->h, tr, b);
  hy_lu_solve(nm, tr->tg_S, tr->tg_Spiv, b);
  if (nv > 0) HY_SIZED2(nv, nm, solve_pressures_last_n, nc, tr, b);
}

//----- abort ---------------------------------------------------------------------------------

void hy_trap_abort(hy_integ* in, hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_trap* tr = &in->trap;
  const size_t nz = (size_t)m->sizes.nz, nv = hy_integ_first_order(m);
  d->time = tr->t_k;
  memcpy(d->z, tr->z_k, sizeof(double) * nz);
  memcpy(d->zd, tr->zd_k, sizeof(double) * nz);
  memcpy(d->zdd, tr->zdd_k, sizeof(double) * nz);
  memcpy(d->p, tr->p_k, sizeof(double) * nv);
  memcpy(tr->pd_prev, tr->pd_prev_k, sizeof(double) * nv);
  memcpy(d->U, tr->U_k, sizeof(double) * (size_t)m->sizes.nspool);
  hy_form_refresh(f);
  f->ops->abort(f);
  memcpy(d->pd, tr->pd_k, sizeof(double) * nv);
  f->power = tr->power_k;
  // the cache as it was, so that the step is undone to the last bit (the evaluations above and
  // the failed iterations moved it)
  hy_mech_cache_set(m, f->mech, tr->cache_k);
}

//----- the Newton iteration --------------------------------------------------------------------

// Forward-difference tangent, column by column (Eqs. 40-41).
static hy_status fd_tangent(hy_integ* in, hy_form* f) {
  hy_trap* tr = &in->trap;
  const int n = tr->n;
  for (int j = 0; j < n; j++) {
    const double xj = tr->x[j];
    const double eps = 1e-8 * fmax(1e-2, fabs(xj));
    tr->x[j] = xj + eps;
    hy_status st = hy_trap_residual(in, f, tr->x, tr->fp);
    tr->x[j] = xj;
    if (st != HY_OK) return st;
    for (int i = 0; i < n; i++) tr->J[i * n + j] = (tr->fp[i] - tr->f[i]) / eps;
  }
  return HY_OK;
}

// x += dx, and the largest correction in units of its segment's tolerance (and which unknown
// it is; NaN wins). The segments: [0, nmech) mechanical, [nmech, nfirst) pressures, then the
// friction states.
static HY_ALWAYS_INLINE void apply_correction(int n, int nmech, int nfirst, double tol_mech,
                                              double tol_hyd, double tol_fric, hy_trap* tr,
                                              double* worst_out) {
  const double inv_mech = 1 / tol_mech, inv_hyd = 1 / tol_hyd;
  double* restrict x = tr->x;
  const double* restrict dx = tr->dx;
  double worst = 0;
  int at = 0;
  for (int i = 0; i < n; i++) {
    x[i] += dx[i];
    const double a = fabs(dx[i]) * (i < nmech ? inv_mech : inv_hyd);
    if (!(a <= worst)) {
      worst = a;
      at = i;
    }
  }
  // with friction states (after the pressures) the largest again, each against its own
  // tolerance: a second pass, so that the loop above stays that of the models without them
  if (nfirst < n) {
    const double inv_fric = 1 / tol_fric;
    worst = 0;
    for (int i = 0; i < n; i++) {
      const double a = fabs(dx[i]) * (i < nmech ? inv_mech : (i < nfirst ? inv_hyd : inv_fric));
      if (!(a <= worst)) {
        worst = a;
        at = i;
      }
    }
  }
  tr->worst = at;
  *worst_out = worst;
}

// The segments of the unknowns, for messages.
enum { SEG_MECH, SEG_PRESSURE, SEG_FRICTION };

// Name of the joint, volume or cylinder behind unknown i, and its segment.
static const char* unknown_name(const hy_trap* tr, const hy_model* m, int i, int* seg) {
  const int nv = m->sizes.nvol;
  if (i >= tr->nm + nv) {
    *seg = SEG_FRICTION;
    const int k = i - tr->nm - nv;
    int owner = 0;  // the last cylinder whose states start at or before k (offsets increase)
    for (int c = 0; c < m->sizes.ncyl; c++) {
      if (m->cyl_fric_w[c] >= 0 && m->cyl_fric_w[c] <= k) owner = c;
    }
    return m->frc_name + (size_t)m->cyl_frc[owner] * HY_NAME_MAX;
  }
  if (i >= tr->nm) {
    *seg = SEG_PRESSURE;
    return m->vol_name + (size_t)(i - tr->nm) * HY_NAME_MAX;
  }
  *seg = SEG_MECH;
  return hy_form_coord_name(m, tr->coord ? tr->coord[i] : i);
}

static const char* const kSegWhat[] = {"coordinate", "pressure", "friction state of cylinder"};
static const char* const kSegUnit[] = {"rad or m", "Pa", "m or -"};

// Rows scaled to a unit largest entry before the LU of the finite-difference tangent: mechanical
// and pressure rows differ by many orders of magnitude, which partial pivoting alone does not
// see. The scales are kept for the modified-Newton iterations.
static void scale_fd_rows(hy_trap* tr) {
  const int n = tr->n;
  for (int i = 0; i < n; i++) {
    double mx = 0;
    for (int j = 0; j < n; j++) {
      const double a = fabs(tr->J[i * n + j]);
      if (a > mx) mx = a;
    }
    const double sc = mx > 0 ? 1 / mx : 1;
    for (int j = 0; j < n; j++) tr->J[i * n + j] *= sc;
    tr->dx[i] = -tr->f[i] * sc;
    tr->row_scale[i] = sc;
  }
}

// The Newton iteration of the step begun by hy_trap_begin: HY_OK with the converged unknowns in
// tr->x, or the failure with its detail in d->err (the state is then that of the last
// evaluation; the caller aborts).
static hy_status newton(hy_integ* in, hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_trap* tr = &in->trap;
  const int n = tr->n, nmech = tr->nm;
  const double tol_mech = f->step.tol_pos;
  const double tol_hyd = newton_tolerance(m, m->opt.tol_p, m->opt.error_tol_p);
  const double tol_fric = newton_tolerance(m, m->opt.tol_fric, m->opt.error_tol_pos);
  const double tol_seg[] = {tol_mech, tol_hyd, tol_fric};
  const int analytic = m->opt.tangent != HY_TANGENT_FD;
  hy_status st = HY_NEWTON_NOCONV;
  int it = 0;
  tr->worst = 0;
  tr->worst_dx = 0;
  tr->res_seg[0] = tr->res_seg[1] = 0;
  double worst = 0;
  while (it < m->opt.max_iter) {
    it++;
    // modified Newton forms no tangent after the first iteration: its derivatives are not needed
    f->skip_derivatives = it > 1 && m->opt.reuse_tangent;
    st = evaluate(in, f, tr->x, tr->f);
    f->skip_derivatives = 0;
    if (st != HY_OK) break;
    HY_SIZED2((int)hy_integ_first_order(m), nmech, newton_rows_n, 0.25 * tr->h * tr->h, 0.5 * tr->h, tr->pd_trap,
              d->pd, tr->f, tr->dx, tr->res_seg);
    if (!isfinite(tr->res_seg[0]) || !isfinite(tr->res_seg[1])) {
      st = HY_FAIL(&d->err, HY_ERR_NAN,
                   "non-finite residual in step t = %.9g -> %.9g s at iteration %d: %.3g "
                   "(mechanical rows), %.3g (pressure rows)",
                   tr->t_k, d->time, it, tr->res_seg[0], tr->res_seg[1]);
      break;
    }
    if (it > 1 && m->opt.reuse_tangent) {
      // modified Newton: the factors of the step's first tangent (with its row scales for the
      // finite-difference one)
      if (analytic) {
        hy_trap_solve(in, f, tr->dx);
      } else {
        for (int i = 0; i < n; i++) tr->dx[i] = -tr->f[i] * tr->row_scale[i];
        hy_lu_solve(n, tr->J, tr->piv, tr->dx);
      }
    } else {
      int col = -1;
      hy_status fst;
      if (analytic) {
        fst = hy_trap_factor(in, f, &col);
      } else {
        st = fd_tangent(in, f);
        if (st != HY_OK) break;
        scale_fd_rows(tr);
        fst = hy_lu_factor(n, tr->J, tr->piv, &col);
      }
      if (fst != HY_OK) {
        int seg;
        st =
            HY_FAIL(&d->err, HY_NEWTON_NOCONV, "singular Newton tangent at t = %g s (unknown '%s')",
                    d->time, unknown_name(tr, m, col < 0 ? 0 : col, &seg));
        break;
      }
      if (analytic) {
        hy_trap_solve(in, f, tr->dx);
      } else {
        hy_lu_solve(n, tr->J, tr->piv, tr->dx);
      }
    }
    // convergence per segment: every correction below its tolerance (rad or m, Pa)
    HY_SIZED(n, apply_correction, nmech, nmech + m->sizes.nvol, tol_mech, tol_hyd, tol_fric, tr,
             &worst);
    tr->worst_dx = fabs(tr->dx[tr->worst]);
    f->ops->iterated(f);
    if (worst <= 1) {
      st = HY_OK;
      break;
    }
    st = HY_NEWTON_NOCONV;
    if (!isfinite(worst)) {
      int seg;
      const char* name = unknown_name(tr, m, tr->worst, &seg);
      st = HY_FAIL(&d->err, HY_ERR_NAN,
                   "non-finite Newton correction in step t = %.9g -> %.9g s at iteration %d on %s "
                   "'%s' (residual %.3g of the mechanical rows, %.3g of the pressure rows)",
                   tr->t_k, d->time, it, kSegWhat[seg], name, tr->res_seg[0],
                   tr->res_seg[1]);
      break;
    }
  }
  tr->iter = it;
  if (st == HY_NEWTON_NOCONV && d->err.code != st) {
    int seg;
    const char* name = unknown_name(tr, m, tr->worst, &seg);
    char res[96];
    if (m->sizes.nvol > 0) {
      snprintf(res, sizeof res, "%.3g (mechanical rows) and %.3g (pressure%s rows)",
               tr->res_seg[0], tr->res_seg[1], m->sizes.nfric > 0 ? " and friction" : "");
    } else {
      snprintf(res, sizeof res, "%.3g", tr->res_seg[0]);
    }
    HY_FAIL(&d->err, st,
            "Newton-Raphson did not converge in step t = %.9g -> %.9g s after %d iterations: "
            "residual %s, largest correction %.3g %s (tolerance %.3g) on %s '%s'",
            tr->t_k, d->time, it, res, tr->worst_dx, kSegUnit[seg], tol_seg[seg], kSegWhat[seg],
            name);
  }
  return st;
}

// Local error of the step relative to its tolerance, from the difference of the converged
// unknowns and their predictor (Milne's device). For the coordinates the predictor is the
// Taylor polynomial z + h zd + h^2/2 zdd, whose error is h^3/6 z''', and the trapezoidal rule's
// local error is -h^3/12 z''': the error is a third of the difference. For the pressures the
// predictor extrapolates the rate with steps h_prev and h (ratio r = h / h_prev), error
// h^3 p''' (1/6 + 1/(4 r)): the error is r / (3 (r + 1)) of the difference (1/6 at r = 1).
// The friction states have the pressures' predictor and the coordinates' tolerance (m).
static double local_error(const hy_trap* tr, const hy_model* m) {
  double e = 0;
  const double wz = 1 / (3 * m->opt.error_tol_pos);
  for (int c = 0; c < tr->nm; c++) e = fmax(e, fabs(tr->x[c] - tr->x_pred[c]) * wz);
  const double r = tr->h_prev > 0 ? tr->h / tr->h_prev : 1;
  const double wp = r / (3 * (r + 1)) / m->opt.error_tol_p;
  const int np = tr->nm + m->sizes.nvol;
  for (int i = tr->nm; i < np; i++) e = fmax(e, fabs(tr->x[i] - tr->x_pred[i]) * wp);
  const double ww = r / (3 * (r + 1)) / m->opt.error_tol_pos;
  for (int i = np; i < tr->n; i++) e = fmax(e, fabs(tr->x[i] - tr->x_pred[i]) * ww);
  return e;
}

hy_status hy_trap_step(hy_integ* in, hy_form* f, double h, double t_end, double* est) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_trap* tr = &in->trap;
  d->err.code = HY_OK;  // so that a failure below can tell whether it was already described
  hy_trap_begin(in, f, h, t_end);
  hy_status st = newton(in, f);
  d->stats.niter += tr->iter;
  d->stats.niter_last += tr->iter;
  d->stats.res_last = tr->res_seg[0] > tr->res_seg[1] ? tr->res_seg[0] : tr->res_seg[1];
  if (tr->iter > d->stats.niter_max) d->stats.niter_max = tr->iter;
  if (st == HY_OK && est) {
    *est = local_error(tr, m);
    if (!(*est <= 1)) st = HY_STEP_REJECTED;
  }
  if (st == HY_OK) {
    // the state of the converged unknowns, then the formulation's end of the step
    if (tr->coord) {
      HY_SIZED(tr->nm, set_mech_n, tr, tr->coord, tr->x, d, tr->dxm);
    } else {
      HY_SIZED(tr->nm, set_mech_n, tr, (const int*)NULL, tr->x, d, tr->dxm);
    }
    HY_SIZED((int)hy_integ_first_order(m), set_pressures_n, tr->c1, tr->x + tr->nm, tr->hat_pd,
             d->p, tr->pd_trap);
    st = f->ops->accept(f, tr->dxm);
  }
  if (st != HY_OK) {
    const hy_error keep = d->err;
    hy_trap_abort(in, f);
    d->err = keep;
    return st;
  }
  // the pressure rates of the trapezoidal relation carry the history to the next step
  HY_COPY((int)hy_integ_first_order(m), d->pd, tr->pd_trap);
  tr->h_prev = h;
  return HY_OK;
}
