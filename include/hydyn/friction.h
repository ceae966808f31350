// hydyn seal friction on its own: a cylinder's friction law (hy_friction_def) evaluated outside a
// model run, at steady sliding and along a prescribed velocity history. Lets a user see what a
// law and its parameters do (the `hydyn friction` command, docs/cli.md) before putting them in a
// model. The laws and their equations: docs/friction.md.
#ifndef HYDYN_FRICTION_H_
#define HYDYN_FRICTION_H_

#include "hydyn/model.h"
#include "hydyn/types.h"

#ifdef __cplusplus
extern "C" {
#endif

// Largest number of internal states of a law (lugre-film: the bristle deflection q and the film
// h): the stride of the states hy_friction_response writes.
#define HY_FRICTION_STATES_MAX 2

// The friction force (N) at steady sliding with constant velocity v (m/s) under the normal load
// N = p_a A_a + p_b A_b (N), which raises the Coulomb force to coulomb + pressure_coefficient N:
// the static laws' value at v, the bristle laws' value with their states at rest (LuGre:
// g(v) sgn(v) + sigma2 v). 0 at v = 0 for every law; odd in v. The parameters must be ones
// hy_model_check accepts (p non-NULL, law not none); NAN otherwise for a NULL p or law none.
HY_API double hy_friction_steady(const hy_friction_def* p, double v, double N);

// The friction force F[i] (N) along a prescribed velocity history v[i] (m/s) at the times t[i]
// (s), i = 0..n-1, under a constant normal load N (N, as in hy_friction_steady). The law's
// internal states start at their steady values for v[0] (at rest: q = 0, h = 0) and follow their
// rate equations between the samples by the trapezoidal rule, solved by Newton's method to
// 1e-12 relative or 1e-15 absolute; the static laws have no states and F[i] is their value at
// v[i]. w (nullable) receives the states, HY_FRICTION_STATES_MAX per sample: w[i *
// HY_FRICTION_STATES_MAX + k] is state k (hy_friction_state_name) at t[i], 0 beyond the law's
// states. The parameters must be ones hy_model_check accepts.
// Returns HY_OK; HY_ERR_ARG for a NULL p, t, v or F, n < 1, the law none or one out of range, a
// normal load that is negative or not finite, a time or velocity that is not finite, or times
// that do not increase; HY_NEWTON_NOCONV when a step's Newton iteration does not converge in 50
// iterations, HY_ERR_NAN when a force or state is not finite (the message names the time). On
// failure F and w hold the samples before the failing one. Never allocates. Nullable: w, err.
HY_API hy_status hy_friction_response(const hy_friction_def* p, double N, int n, const double* t,
                                      const double* v, double* F, double* w, hy_error* err);

#ifdef __cplusplus
}
#endif

#endif  // HYDYN_FRICTION_H_
