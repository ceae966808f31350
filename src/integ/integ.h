// Internal header of src/integ: time integrators. The explicit fixed-step methods advance a
// first-order ODE xdot = f(t, x) whose state is x = [q; v] (n = 2 nq) with qdot = v, which is
// how sim/ writes the mechanical equations (q = z, v = zd).
#ifndef HYDYN_SRC_INTEG_INTEG_H_
#define HYDYN_SRC_INTEG_INTEG_H_

#include <stddef.h>

#include "form/form.h"
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

//----- trapezoidal rule with Newton-Raphson (seed 000 Sect. 4) --------------------------------

// Work of the Newton iteration, sized for nmax unknowns.
typedef struct hy_newton_work {
  double* x;   // unknowns                          (nmax)
  double* dx;  // Newton correction                 (nmax)
  double* f;   // residual                          (nmax)
  double* fp;  // residual at a perturbed x (FD)    (nmax)
  double* J;   // tangent and its LU factors        (nmax x nmax)
  int* piv;    // pivots                            (nmax)
  int worst;   // unknown with the largest scaled correction in the last iteration
  double worst_dx;  // that correction (rad or m)
  double res_norm;  // max |f| at the last evaluation
} hy_newton_work;

size_t hy_integ_newton_doubles(int nmax);
size_t hy_integ_newton_ints(int nmax);
void hy_integ_newton_bind(int nmax, hy_newton_work* nw, double* dbuf, int* ibuf);

// One step of size m->opt.dt of the model's closed-loop formulation: predictor, Newton
// iterations on the formulation's residual with the analytic or finite-difference tangent
// (Eqs. 37, 40-41), convergence when every correction is below opt.tol_pos, then the
// formulation's end of step. On failure the state is back at the start of the step and d->err
// names the time, the residual and the worst unknown; HY_NEWTON_NOCONV (> 0) when the
// iteration cap was reached.
hy_status hy_integ_trap_newton_step(const hy_model* m, hy_data* d, hy_form_work* fw,
                                    hy_mech_work* mw, hy_newton_work* nw);

#endif  // HYDYN_SRC_INTEG_INTEG_H_
