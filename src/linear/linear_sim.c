// The linear system of a Jacobian stepped in time (003_f349169f78d6df41.txt Eq. 94), and the
// states of a data in a Jacobian's order, to compare it with the nonlinear run.
#include <string.h>

#include "linear/linear.h"

void hy_linear_gather(const hy_linear* L, const hy_data* d, double* x) {
  const int nq = L->nq, nm = L->nq + L->nv;
  for (int k = 0; k < nq; k++) x[k] = d->z[L->coord[k]];
  for (int k = 0; k < L->nv; k++) x[nq + k] = d->zd[L->coord[k]];
  memcpy(x + nm, d->p, sizeof(double) * (size_t)(L->np + L->nw));
  memcpy(x + nm + L->np + L->nw, d->U, sizeof(double) * (size_t)L->nu);
}

const char* hy_linear_state_unit(const hy_model* m, const hy_linear* L, int i) {
  const int nq = L->nq, nm = L->nq + L->nv;
  if (i < nm) {
    int prismatic = 0;
    const int k = i < nq ? i : i - nq;
    for (int j = 0; j < m->sizes.nbody; j++) {
      if (m->jnt_zadr[j] == L->coord[k]) prismatic = m->jnt_type[j] == HY_JOINT_PRISMATIC;
    }
    if (i < nq) return prismatic ? "m" : "rad";
    return prismatic ? "m/s" : "rad/s";
  }
  if (i < nm + L->np) return "Pa";
  if (i < nm + L->np + L->nw) return "";  // a bristle deflection (m) or a film thickness (-)
  // a spool's position, or a second-order spool's velocity; in V or the fraction of the opening
  const int k = i - nm - L->np - L->nw, nl = m->sizes.nvlv;
  int v = k;
  for (int j = 0; j < nl && k >= nl; j++) {
    if (m->vlv_vadr[j] == k) v = j;
  }
  if (m->vlv_units[v] == HY_VALVE_NORMALIZED) return k < nl ? "" : "1/s";
  return k < nl ? "V" : "V/s";
}

void hy_linear_sim_free(hy_linear_sim* s) {
  if (!s) return;
  hy_free(s->A);
  hy_free(s->piv);
  hy_free(s->xt);
  hy_free(s->b);
  memset(s, 0, sizeof *s);
}

hy_status hy_linear_sim_init(const hy_linear* L, double h, const double* x0, hy_linear_sim* s,
                             hy_error* err) {
  const int n = L->n;
  memset(s, 0, sizeof *s);
  s->n = n;
  s->h = h;
  s->A = hy_malloc(sizeof(double) * (size_t)n * (size_t)n);
  s->piv = hy_malloc(sizeof(int) * (size_t)n);
  s->xt = hy_malloc(sizeof(double) * (size_t)n);
  s->b = hy_malloc(sizeof(double) * (size_t)n);
  if (!s->A || !s->piv || !s->xt || !s->b) {
    hy_linear_sim_free(s);
    return HY_FAIL(err, HY_ERR_NOMEM, "linear simulation: out of memory");
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) s->A[i * n + j] = (i == j) - 0.5 * h * L->J[i * n + j];
    s->xt[i] = x0[i] - L->x[i];
  }
  int sing = -1;
  if (hy_lu_factor(n, s->A, s->piv, &sing) != HY_OK) {
    hy_linear_sim_free(s);
    return HY_FAIL(err, HY_ERR_SINGULAR, "linear simulation: I - h/2 J is singular (state %d)",
                   sing);
  }
  return HY_OK;
}

void hy_linear_sim_step(const hy_linear* L, hy_linear_sim* s) {
  const int n = s->n;
  for (int i = 0; i < n; i++) {
    double v = s->xt[i];
    for (int j = 0; j < n; j++) v += 0.5 * s->h * L->J[i * n + j] * s->xt[j];
    s->b[i] = v;
  }
  hy_lu_solve(n, s->A, s->piv, s->b);
  memcpy(s->xt, s->b, sizeof(double) * (size_t)n);
}

void hy_linear_sim_state(const hy_linear* L, const hy_linear_sim* s, double* x) {
  for (int i = 0; i < s->n; i++) x[i] = L->x[i] + s->xt[i];
}
