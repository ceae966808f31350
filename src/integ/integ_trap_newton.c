// Trapezoidal rule with Newton-Raphson, seed 000_c866e3283107e8a4.txt Sect. 4: the formulation
// supplies the residual f(x_{k+1}) (Eqs. 38-39) and an analytic tangent; this file owns the
// iteration (Eq. 37), the finite-difference tangent (Eqs. 40-41), the convergence test and the
// statistics.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "integ/integ.h"

size_t hy_integ_newton_doubles(int nmax) {
  const size_t n = nmax > 0 ? (size_t)nmax : 1;
  return 4 * n + n * n;
}

size_t hy_integ_newton_ints(int nmax) { return nmax > 0 ? (size_t)nmax : 1; }

void hy_integ_newton_bind(int nmax, hy_newton_work* nw, double* p, int* q) {
  const size_t n = nmax > 0 ? (size_t)nmax : 1;
  nw->x = p;
  nw->dx = p + n;
  nw->f = p + 2 * n;
  nw->fp = p + 3 * n;
  nw->J = p + 4 * n;
  nw->piv = q;
}

// Forward-difference tangent, column by column (Eqs. 40-41).
static hy_status fd_tangent(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                            hy_newton_work* nw, int n) {
  for (int j = 0; j < n; j++) {
    const double xj = nw->x[j];
    const double eps = 1e-8 * fmax(1e-2, fabs(xj));
    nw->x[j] = xj + eps;
    hy_status st = hy_form_residual(m, d, fw, mw, nw->x, nw->fp);
    nw->x[j] = xj;
    if (st != HY_OK) return st;
    for (int i = 0; i < n; i++) nw->J[i * n + j] = (nw->fp[i] - nw->f[i]) / eps;
  }
  return HY_OK;
}

// The loops over the unknowns, as sized kernels (HY_SIZED): mechanical unknowns first, then
// pressures.
// The largest |f| per segment, and r = -f (the right-hand side of the Newton system)
static HY_ALWAYS_INLINE void residual_norms(int n, int nmech, const double* restrict f,
                                            double* restrict r, double* res_mech,
                                            double* res_hyd) {
  double rm = 0, rh = 0;
  for (int i = 0; i < n; i++) {
    r[i] = -f[i];
    const double a = fabs(f[i]);
    if (i < nmech) {
      if (a > rm) rm = a;
    } else if (a > rh) {
      rh = a;
    }
  }
  *res_mech = rm;
  *res_hyd = rh;
}

// x += dx, and the largest correction in units of its tolerance (and which unknown it is)
static HY_ALWAYS_INLINE void apply_correction(int n, int nmech, double tol_mech, double tol_hyd,
                                              hy_newton_work* nw, double* worst_out) {
  const double inv_mech = 1 / tol_mech, inv_hyd = 1 / tol_hyd;
  double* restrict x = nw->x;
  const double* restrict dx = nw->dx;
  double worst = 0;
  int at = 0;
  for (int i = 0; i < n; i++) {
    x[i] += dx[i];
    const double a = fabs(dx[i]) * (i < nmech ? inv_mech : inv_hyd);
    if (!(a <= worst)) {  // also catches NaN
      worst = a;
      at = i;
    }
  }
  nw->worst = at;
  *worst_out = worst;
}

hy_status hy_integ_trap_newton_step(const hy_model* m, hy_data* d, hy_form_work* fw,
                                    hy_mech_work* mw, hy_newton_work* nw) {
  const double dt = m->opt.dt, t0 = d->time;
  const int n = hy_form_nx(m, d);
  hy_form_step_begin(m, d, fw, dt, nw->x);
  d->time = t0 + dt;
  hy_status st = HY_NEWTON_NOCONV;
  int it = 0;
  nw->worst = 0;
  nw->worst_dx = 0;
  nw->res_norm = 0;
  double res_mech = 0, res_hyd = 0;
  const int nmech = n - m->sizes.nvol;  // unknowns: coordinates first, then pressures
  const double tol_mech = m->opt.tol_pos, tol_hyd = m->opt.tol_p;
  while (it < m->opt.max_iter) {
    it++;
    // modified Newton forms no tangent after the first iteration: its derivatives are not needed
    fw->skip_derivatives = it > 1 && m->opt.reuse_tangent;
    st = hy_form_residual(m, d, fw, mw, nw->x, nw->f);
    fw->skip_derivatives = 0;
    if (st != HY_OK) break;
    HY_SIZED(n, residual_norms, nmech, nw->f, nw->dx, &res_mech, &res_hyd);
    nw->res_norm = res_mech > res_hyd ? res_mech : res_hyd;
    const int analytic = m->opt.tangent != HY_TANGENT_FD;
    if (it > 1 && m->opt.reuse_tangent) {
      // modified Newton: the factors of the step's first tangent (with its row scales for the
      // finite-difference one)
      if (analytic) {
        hy_form_solve_tangent(m, d, fw, nw->dx);
      } else {
        for (int i = 0; i < n; i++) nw->dx[i] = -nw->f[i] * nw->fp[i];
        hy_lu_solve(n, nw->J, nw->piv, nw->dx);
      }
      goto update;
    }
    int col = -1;
    hy_status fst;
    if (analytic) {
      fst = hy_form_factor_tangent(m, d, fw, &col);
    } else {
      st = fd_tangent(m, d, fw, mw, nw, n);
      if (st != HY_OK) break;
      // rows scaled to unit largest entry: mechanical and pressure rows differ by many orders
      // of magnitude, which partial pivoting alone does not see
      for (int i = 0; i < n; i++) {
        double mx = 0;
        for (int j = 0; j < n; j++) {
          const double a = fabs(nw->J[i * n + j]);
          if (a > mx) mx = a;
        }
        const double sc = mx > 0 ? 1 / mx : 1;
        for (int j = 0; j < n; j++) nw->J[i * n + j] *= sc;
        nw->dx[i] = -nw->f[i] * sc;
        nw->fp[i] = sc;  // kept for the modified-Newton iterations (fp is free until then)
      }
      fst = hy_lu_factor(n, nw->J, nw->piv, &col);
    }
    if (fst != HY_OK) {
      int is_p;
      st = HY_FAIL(&d->err, HY_NEWTON_NOCONV,
                   "singular Newton tangent at t = %g s (unknown '%s')", d->time,
                   hy_form_unknown_name(m, d, col < 0 ? 0 : col, &is_p));
      break;
    }
    if (analytic) {
      hy_form_solve_tangent(m, d, fw, nw->dx);
    } else {
      hy_lu_solve(n, nw->J, nw->piv, nw->dx);
    }
  update:;
    // convergence per segment: every correction below its tolerance (rad or m, Pa)
    double worst = 0;
    HY_SIZED(n, apply_correction, nmech, tol_mech, tol_hyd, nw, &worst);
    nw->worst_dx = fabs(nw->dx[nw->worst]);
    hy_form_iteration_done(m, d, fw);
    if (worst <= 1) {
      st = HY_OK;
      break;
    }
    st = HY_NEWTON_NOCONV;
    if (!isfinite(worst)) break;
  }
  if (st == HY_OK) st = hy_form_step_end(m, d, fw, mw, nw->x);
  d->stats.niter += it;
  d->stats.niter_last = it;
  d->stats.res_last = nw->res_norm;
  if (it > d->stats.niter_max) d->stats.niter_max = it;
  if (st == HY_OK) return HY_OK;

  if (d->err.code != st) {
    int is_p;
    const char* name = hy_form_unknown_name(m, d, nw->worst, &is_p);
    HY_FAIL(&d->err, st,
            "Newton-Raphson did not converge in step t = %g -> %g s after %d iterations: "
            "residual %.3g (mechanical rows) and %.3g (pressure rows), largest correction "
            "%.3g %s (tolerance %.3g) on %s '%s'",
            t0, t0 + dt, it, res_mech, res_hyd, nw->worst_dx, is_p ? "Pa" : "rad or m",
            hy_form_tol(m, d, nw->worst), is_p ? "pressure" : "coordinate", name);
  }
  hy_error keep = d->err;
  d->time = t0;
  hy_form_step_abort(m, d, fw, mw);
  d->err = keep;
  return st;
}
