// Explicit fixed-step integrators (forward Euler, symplectic Euler, classical RK4) for
// x = [q; v; y]. Their names (include/hydyn/names.h) live in src/core/core_names.c.
//
// Every method builds the new state in the workspace and copies it into x only once all
// evaluations succeeded and the result is finite, so a failing step leaves x as it was: the
// caller can report the failure at the start of the step, or retry it.
#include <math.h>
#include <string.h>

#include "integ/integ.h"

//----- steps -----------------------------------------------------------------------------------

size_t hy_integ_explicit_work_size(hy_integrator kind, int n) {
  if (n < 0) return 0;
  switch (kind) {
    case HY_INTEG_EULER:
    case HY_INTEG_SEMI_EULER:
      return (size_t)n;  // the derivative, then the new state in the same place
    case HY_INTEG_RK4:
      return 3 * (size_t)n;  // weighted sum of stages, current stage, stage state
    case HY_INTEG_AUTO:
    case HY_INTEG_TRAPEZOIDAL:
    case HY_INTEG_DOPRI5:
    case HY_INTEG_BS23:
    case HY_INTEG_ADAMS:
    case HY_INTEG_COUNT:
      break;
  }
  return 0;
}

// Copies the candidate state into x if every entry is finite. A NaN or Inf here means the
// step size is far too large for the dynamics (or the model blew up); keeping the old state
// lets the caller say where that happened.
static hy_status commit(int n, double* x, const double* xnew) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(xnew[i])) return HY_ERR_NAN;
  }
  memcpy(x, xnew, (size_t)n * sizeof(double));
  return HY_OK;
}

static hy_status step_euler(int n, double t, double dt, double* x, const double* xdot0,
                            hy_ode_rhs_fn f, void* ctx, double* work) {
  const double* k = xdot0;
  if (!k) {
    hy_status s = f(ctx, t, x, work);
    if (s != HY_OK) return s;
    k = work;
  }
  // k may alias work: each entry is read before it is overwritten.
  for (int i = 0; i < n; i++) work[i] = x[i] + dt * k[i];
  return commit(n, x, work);
}

// Symplectic Euler, velocities first: v1 = v + dt a(t, q, v), q1 = q + dt v1. It conserves a
// modified energy, so the energy of an oscillator stays bounded where forward Euler's grows.
// The first-order states y take a forward Euler step.
static hy_status step_semi_euler(int nq, int ny, double t, double dt, double* x,
                                 const double* xdot0, hy_ode_rhs_fn f, void* ctx, double* work) {
  const double* k = xdot0;
  if (!k) {
    hy_status s = f(ctx, t, x, work);
    if (s != HY_OK) return s;
    k = work;
  }
  const double* a = k + nq;
  const double* q = x;
  const double* v = x + nq;
  double* q1 = work;
  double* v1 = work + nq;
  for (int i = 0; i < nq; i++) v1[i] = v[i] + dt * a[i];  // a may alias v1, entry by entry
  for (int i = 0; i < nq; i++) q1[i] = q[i] + dt * v1[i];
  const double* g = k + 2 * nq;
  for (int i = 2 * nq; i < 2 * nq + ny; i++) work[i] = x[i] + dt * g[i - 2 * nq];
  return commit(2 * nq + ny, x, work);
}

// Classical fourth-order Runge-Kutta:
//   k1 = f(t, x), k2 = f(t + h/2, x + h/2 k1), k3 = f(t + h/2, x + h/2 k2), k4 = f(t + h, x + h k3)
//   x1 = x + h/6 (k1 + 2 k2 + 2 k3 + k4)
// The stages are accumulated as they come, so three vectors suffice instead of five.
static hy_status step_rk4(int n, double t, double dt, double* x, const double* xdot0,
                          hy_ode_rhs_fn f, void* ctx, double* work) {
  double* acc = work;
  double* k = work + n;
  double* xs = work + 2 * (size_t)n;
  const double h2 = 0.5 * dt;
  hy_status s;

  const double* k1 = xdot0;
  if (!k1) {
    s = f(ctx, t, x, k);
    if (s != HY_OK) return s;
    k1 = k;
  }
  for (int i = 0; i < n; i++) {
    acc[i] = k1[i];
    xs[i] = x[i] + h2 * k1[i];
  }

  s = f(ctx, t + h2, xs, k);
  if (s != HY_OK) return s;
  for (int i = 0; i < n; i++) {
    acc[i] += 2.0 * k[i];
    xs[i] = x[i] + h2 * k[i];
  }

  s = f(ctx, t + h2, xs, k);
  if (s != HY_OK) return s;
  for (int i = 0; i < n; i++) {
    acc[i] += 2.0 * k[i];
    xs[i] = x[i] + dt * k[i];
  }

  s = f(ctx, t + dt, xs, k);
  if (s != HY_OK) return s;
  const double w = dt / 6.0;
  for (int i = 0; i < n; i++) acc[i] = x[i] + w * (acc[i] + k[i]);
  return commit(n, x, acc);
}

hy_status hy_integ_explicit_step(hy_integrator kind, int nq, int ny, double t, double dt,
                                 double* x, const double* xdot0, hy_ode_rhs_fn f, void* ctx,
                                 double* work) {
  if (nq < 0 || ny < 0 || !isfinite(t) || !isfinite(dt)) return HY_ERR_ARG;
  const int explicit_kind =
      kind == HY_INTEG_EULER || kind == HY_INTEG_SEMI_EULER || kind == HY_INTEG_RK4;
  if (nq == 0 && ny == 0) return explicit_kind ? HY_OK : HY_ERR_ARG;
  if (!x || !f || !work) return HY_ERR_ARG;
  const int n = 2 * nq + ny;
  switch (kind) {
    case HY_INTEG_EULER:
      return step_euler(n, t, dt, x, xdot0, f, ctx, work);
    case HY_INTEG_SEMI_EULER:
      return step_semi_euler(nq, ny, t, dt, x, xdot0, f, ctx, work);
    case HY_INTEG_RK4:
      return step_rk4(n, t, dt, x, xdot0, f, ctx, work);
    case HY_INTEG_AUTO:
    case HY_INTEG_TRAPEZOIDAL:
    case HY_INTEG_DOPRI5:
    case HY_INTEG_BS23:
    case HY_INTEG_ADAMS:
    case HY_INTEG_COUNT:
      break;
  }
  return HY_ERR_ARG;
}
