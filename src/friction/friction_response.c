// A friction law on its own (include/hydyn/friction.h): its steady force-velocity curve and its
// response to a prescribed velocity history, for `hydyn friction` and for users who want to see
// a law's pre-sliding and frictional lag before putting it in a model. The run itself integrates
// the states monolithically with the mechanism (seed 002 Eq. 47); here v is given, so only the
// states' own rate equations are stepped.
#include <math.h>

#include "core/core.h"
#include "friction/friction.h"
#include "hydyn/friction.h"

_Static_assert(HY_FRICTION_STATES_MAX == HY_FRICTION_MAX_STATES,
               "the public stride of the states is the laws' largest state count");

// Newton on a step's states: converged when every correction is within 1e-12 of its state or
// 1e-15 absolute (q is some 1e-3 m, h at most 1), in at most 50 iterations.
#define RESPONSE_TOL_REL 1e-12
#define RESPONSE_TOL_ABS 1e-15
#define RESPONSE_MAX_ITER 50

double hy_friction_steady(const hy_friction_def* p, double v, double N) {
  if (!p || p->law <= HY_FRICTION_NONE || p->law >= HY_FRICTION_COUNT) return NAN;
  return hy_friction_steady_force(p, v, hy_friction_coulomb(p, N));
}

static hy_status check_args(const hy_friction_def* p, double N, int n, const double* t,
                            const double* v, const double* F, hy_error* err) {
  if (!p || !t || !v || !F) {
    return HY_FAIL(err, HY_ERR_ARG, "friction response: NULL %s",
                   !p ? "parameters" : (!t ? "times" : (!v ? "velocities" : "force array")));
  }
  if ((int)p->law <= HY_FRICTION_NONE || p->law >= HY_FRICTION_COUNT) {
    return HY_FAIL(err, HY_ERR_ARG, "friction response: %s (law %d): expected one of the laws",
                   p->law == HY_FRICTION_NONE ? "no friction law" : "unknown friction law",
                   (int)p->law);
  }
  if (n < 1) return HY_FAIL(err, HY_ERR_ARG, "friction response: %d samples, expected >= 1", n);
  if (!isfinite(N) || N < 0) {
    return HY_FAIL(err, HY_ERR_ARG,
                   "friction response: normal load %g N: expected a finite value >= 0", N);
  }
  for (int i = 0; i < n; i++) {
    if (!isfinite(t[i]) || !isfinite(v[i])) {
      return HY_FAIL(err, HY_ERR_ARG,
                     "friction response: sample %d: t = %g s, v = %g m/s: "
                     "expected finite values",
                     i, t[i], v[i]);
    }
    if (i > 0 && !(t[i] > t[i - 1])) {
      return HY_FAIL(err, HY_ERR_ARG,
                     "friction response: times must increase: t[%d] = %.17g s "
                     "after t[%d] = %.17g s",
                     i, t[i], i - 1, t[i - 1]);
    }
  }
  return HY_OK;
}

// One trapezoidal step of the states from (v0, w0, wd0) to v1 over h (seed 000 Eq. 32 on the
// friction states, which seed 002 Eq. 47 adds to the unknowns: w1 = w0 + h/2 (wd0 + wd(v1, w1)),
// with wd the rates of Eq. 25 and Eq. 30), solved by Newton-Raphson (seed 000 Eq. 37) with the
// law's analytic dwd/dw: [I - h/2 dwd/dw] dw = -(w1 - w0 - h/2 (wd0 + wd1)). The predictor
// w0 + h wd0 is the explicit Euler step, as the run's for the pressures (seed 000, text after
// Eq. 34). Returns the iterations taken, or -1 (no convergence), -2 (singular tangent) or -3 (a
// state that is not finite).
static int trap_step(const hy_friction_def* p, int ns, double Fc, double h, double v1,
                     const double* w0, const double* wd0, double* w1) {
  for (int k = 0; k < ns; k++) w1[k] = w0[k] + h * wd0[k];
  const double c = 0.5 * h;
  for (int it = 1; it <= RESPONSE_MAX_ITER; it++) {
    hy_friction_out o;
    hy_friction_eval(p, v1, w1, Fc, &o);
    double r[HY_FRICTION_MAX_STATES], dw[HY_FRICTION_MAX_STATES];
    for (int k = 0; k < ns; k++) r[k] = -(w1[k] - w0[k] - c * (wd0[k] + o.wd[k]));
    if (ns == 1) {
      const double j = 1 - c * o.dwd_dw[0][0];
      if (!(j != 0)) return -2;
      dw[0] = r[0] / j;
    } else {
      // the 2 x 2 tangent by Cramer's rule
      const double a = 1 - c * o.dwd_dw[0][0], b = -c * o.dwd_dw[0][1];
      const double d = -c * o.dwd_dw[1][0], e = 1 - c * o.dwd_dw[1][1];
      const double det = a * e - b * d;
      if (!(det != 0)) return -2;
      dw[0] = (r[0] * e - b * r[1]) / det;
      dw[1] = (a * r[1] - d * r[0]) / det;
    }
    int done = 1;
    for (int k = 0; k < ns; k++) {
      w1[k] += dw[k];
      if (!isfinite(w1[k])) return -3;
      if (!(fabs(dw[k]) <= fmax(RESPONSE_TOL_REL * fabs(w1[k]), RESPONSE_TOL_ABS))) done = 0;
    }
    if (done) return it;
  }
  return -1;
}

hy_status hy_friction_response(const hy_friction_def* p, double N, int n, const double* t,
                               const double* v, double* F, double* w, hy_error* err) {
  HY_TRY(check_args(p, N, n, t, v, F, err));
  const int ns = hy_friction_nstates(p->law);
  const double Fc = hy_friction_coulomb(p, N);
  double wk[HY_FRICTION_MAX_STATES] = {0, 0};
  hy_friction_steady_states(p, v[0], Fc, wk);
  for (int i = 0;; i++) {
    hy_friction_out o;
    hy_friction_eval(p, v[i], wk, Fc, &o);
    int finite = isfinite(o.F);
    for (int k = 0; k < ns; k++) finite = finite && isfinite(wk[k]) && isfinite(o.wd[k]);
    if (!finite) {
      return HY_FAIL(err, HY_ERR_NAN,
                     "friction response: non-finite force or state at t = %.17g "
                     "s (v = %g m/s)",
                     t[i], v[i]);
    }
    F[i] = o.F;
    if (w) {
      for (int k = 0; k < HY_FRICTION_MAX_STATES; k++) {
        w[(size_t)i * HY_FRICTION_MAX_STATES + k] = k < ns ? wk[k] : 0.0;
      }
    }
    if (i == n - 1) break;
    if (ns == 0) continue;  // a static law: F is its value at each v, nothing to step
    double w1[HY_FRICTION_MAX_STATES];
    const int it = trap_step(p, ns, Fc, t[i + 1] - t[i], v[i + 1], wk, o.wd, w1);
    if (it == -3) {
      return HY_FAIL(err, HY_ERR_NAN,
                     "friction response: non-finite state in the step t = %.17g "
                     "-> %.17g s (v = %g m/s)",
                     t[i], t[i + 1], v[i + 1]);
    }
    if (it == -2) {
      return HY_FAIL(err, HY_NEWTON_NOCONV,
                     "friction response: the step t = %.17g -> %.17g s "
                     "(v = %g m/s) met a singular Newton tangent",
                     t[i], t[i + 1], v[i + 1]);
    }
    if (it < 0) {
      return HY_FAIL(err, HY_NEWTON_NOCONV,
                     "friction response: the step t = %.17g -> %.17g s "
                     "(v = %g m/s) did not converge in %d Newton iterations",
                     t[i], t[i + 1], v[i + 1], RESPONSE_MAX_ITER);
    }
    for (int k = 0; k < ns; k++) wk[k] = w1[k];
  }
  return HY_OK;
}
