// Internal header of src/integ: time integrators. The explicit fixed-step methods advance a
// first-order ODE xdot = f(t, x) whose state is x = [q; v] (n = 2 nq) with qdot = v, which is
// how sim/ writes the mechanical equations (q = z, v = zd).
#ifndef HYDYN_SRC_INTEG_INTEG_H_
#define HYDYN_SRC_INTEG_INTEG_H_

#include <stddef.h>

#include "hydyn/types.h"

//----- explicit fixed-step methods -----------------------------------------------------------

// Right-hand side of the ODE: writes xdot = f(t, x) (n doubles). Returns HY_OK, > 0 for a
// recoverable failure, < 0 for a fatal one; either failure aborts the step.
typedef hy_status (*hy_ode_rhs_fn)(void* ctx, double t, const double* x, double* xdot);

// Doubles of workspace hy_integ_explicit_step needs for kind and state size n (0 for an unknown
// kind or n < 0).
size_t hy_integ_explicit_work_size(hy_integrator kind, int n);

// Advances x = [q; v] (n = 2 nq) by one step of size dt from time t, in place.
//   HY_INTEG_EULER       x1 = x + dt f(t, x)
//   HY_INTEG_SEMI_EULER  v1 = v + dt a(t, q, v), q1 = q + dt v1 (symplectic Euler; only the
//                        acceleration half of f is used, qdot = v is assumed)
//   HY_INTEG_RK4         classical Runge-Kutta, four evaluations
// xdot0, if not NULL, holds f(t, x) already evaluated and replaces the first evaluation.
// work holds hy_integ_explicit_work_size(kind, 2 nq) doubles. Nothing is allocated.
// Returns HY_OK; the status of f when f fails (> 0 or < 0); HY_ERR_NAN when the new state is
// not finite; HY_ERR_ARG for bad arguments. On any failure x is left unchanged.
hy_status hy_integ_explicit_step(hy_integrator kind, int nq, double t, double dt, double* x,
                                 const double* xdot0, hy_ode_rhs_fn f, void* ctx, double* work);

#endif  // HYDYN_SRC_INTEG_INTEG_H_
