// Variable-step integrators through SUNDIALS 6 (Debian 12 ships 6.4), the only file that includes
// it: ARKODE's explicit Runge-Kutta stepper with the Dormand-Prince 5(4) and Bogacki-Shampine
// 3(2) tables (MATLAB's ode45 and ode23, the integrators seed 004 Sect. 3 runs), and CVODE's
// Adams-Moulton methods with fixed-point iteration (ode113's family). rtol = atol = opt.ode_tol
// on every state, as seed 004 does with its delta.
//
// Each hy_step asks for the solution at t + dt: the method steps as its error estimate allows,
// past t + dt when it may, and gives the solution there by its interpolant (dense output), so the
// output step does not limit its steps. ARKODE's Hermite interpolant costs one evaluation per
// output step (its Lagrange one none, but on the double pendulum at 1e-6 it left a hundred times
// the energy error at the output times: 1.8e-3 J against 1.9e-5 J): dt is the output interval. The solvers keep their steps and history from one output
// step to the next; a state set from outside (or a failed step) starts them afresh, which the
// adapter notices by comparing the state with the one it returned last.
#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "core/core.h"
#include "integ/integ.h"

struct hy_ode {
  hy_integrator kind;
  int n;
  SUNContext ctx;
  N_Vector y;
  void* mem;                // ERKStep or CVODE memory
  SUNNonlinearSolver nls;   // CVODE's fixed-point iteration
  hy_ode_rhs_fn fn;         // the right-hand side of the current evolve call
  void* fn_ctx;
  hy_status fn_status;      // its last failure (kept for the message)
  double t_last;            // where the solver stands: the last output time, NAN before any
  double* x_last;           // the state it returned there                                 (n)
  long steps, rhs, fails;   // the solver's counters at t_last, since its last (re)start
  char msg[200];            // the solver's last error message (it prints none itself)
};

static int is_erk(hy_integrator k) { return k == HY_INTEG_DOPRI5 || k == HY_INTEG_BS23; }

int hy_integ_is_variable(hy_integrator k) { return is_erk(k) || k == HY_INTEG_ADAMS; }

// SUNDIALS' right-hand side: a positive return asks for a smaller step, a negative one stops.
static int sun_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* user) {
  hy_ode* o = user;
  const hy_status st = o->fn(o->fn_ctx, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
  if (st == HY_OK) return 0;
  o->fn_status = st;
  return st > 0 ? 1 : -1;
}

// Keeps SUNDIALS' message for hy_ode_message instead of its printing it on stderr.
static void keep_message(int code, const char* module, const char* function, char* msg,
                         void* user) {
  hy_ode* o = user;
  (void)code;
  (void)module;
  snprintf(o->msg, sizeof o->msg, "%s: %s", function, msg);
}

const char* hy_ode_message(const hy_ode* o) { return o->msg; }

void hy_ode_free(hy_ode* o) {
  if (!o) return;
  if (is_erk(o->kind)) {
    ERKStepFree(&o->mem);
  } else if (o->mem) {
    CVodeFree(&o->mem);
  }
  if (o->nls) SUNNonlinSolFree(o->nls);
  if (o->y) N_VDestroy(o->y);
  if (o->ctx) SUNContext_Free(&o->ctx);
  hy_free(o->x_last);
  hy_free(o);
}

hy_status hy_ode_make(hy_integrator kind, int n, double tol, hy_ode** out) {
  *out = NULL;
  hy_ode* o = hy_calloc(1, sizeof *o);
  if (!o) return HY_ERR_NOMEM;
  o->kind = kind;
  o->n = n;
  o->t_last = NAN;
  o->x_last = hy_calloc((size_t)(n > 0 ? n : 1), sizeof(double));
  int ok = o->x_last && SUNContext_Create(NULL, &o->ctx) == 0;
  if (ok) o->y = N_VNew_Serial(n, o->ctx);
  ok = ok && o->y;
  if (ok) N_VConst(0.0, o->y);
  if (ok && is_erk(kind)) {
    o->mem = ERKStepCreate(sun_rhs, 0.0, o->y, o->ctx);
    ok = o->mem && ERKStepSetTableNum(o->mem, kind == HY_INTEG_DOPRI5
                                                  ? ARKODE_DORMAND_PRINCE_7_4_5
                                                  : ARKODE_BOGACKI_SHAMPINE_4_2_3) == 0 &&
         ERKStepSStolerances(o->mem, tol, tol) == 0 && ERKStepSetUserData(o->mem, o) == 0 &&
         ERKStepSetMaxNumSteps(o->mem, 1000000) == 0 &&
         ERKStepSetErrHandlerFn(o->mem, keep_message, o) == 0;
  } else if (ok) {
    o->mem = CVodeCreate(CV_ADAMS, o->ctx);
    ok = o->mem && CVodeInit(o->mem, sun_rhs, 0.0, o->y) == 0 &&
         CVodeSStolerances(o->mem, tol, tol) == 0 && CVodeSetUserData(o->mem, o) == 0 &&
         CVodeSetMaxNumSteps(o->mem, 1000000) == 0 &&
         CVodeSetErrHandlerFn(o->mem, keep_message, o) == 0;
    if (ok) o->nls = SUNNonlinSol_FixedPoint(o->y, 0, o->ctx);
    ok = ok && o->nls && CVodeSetNonlinearSolver(o->mem, o->nls) == 0;
  }
  if (!ok) {
    hy_ode_free(o);
    return HY_ERR_NOMEM;
  }
  *out = o;
  return HY_OK;
}

// A new start at (t, x): the solver forgets its steps and its counters.
static int restart(hy_ode* o, double t, const double* x) {
  memcpy(N_VGetArrayPointer(o->y), x, sizeof(double) * (size_t)o->n);
  o->steps = o->rhs = o->fails = 0;
  if (is_erk(o->kind)) return ERKStepReInit(o->mem, sun_rhs, t, o->y);
  return CVodeReInit(o->mem, t, o->y);
}

void hy_ode_forget(hy_ode* o) {
  if (o) o->t_last = NAN;
}

hy_status hy_ode_evolve(hy_ode* o, hy_ode_rhs_fn fn, void* ctx, double t0, double t1, double* x,
                        hy_ode_counts* counts) {
  o->fn = fn;
  o->fn_ctx = ctx;
  o->fn_status = HY_OK;
  o->msg[0] = '\0';
  memset(counts, 0, sizeof *counts);
  const size_t bytes = sizeof(double) * (size_t)o->n;
  if (!(t0 == o->t_last) || memcmp(x, o->x_last, bytes) != 0) {
    if (restart(o, t0, x) != 0) return HY_ERR_ARG;
  }
  sunrealtype tret = t0;
  long steps = 0, rhs = 0, fails = 0;
  double h_last = 0;
  int flag;
  if (is_erk(o->kind)) {
    flag = ERKStepEvolve(o->mem, t1, o->y, &tret, ARK_NORMAL);
    ERKStepGetNumSteps(o->mem, &steps);
    ERKStepGetNumRhsEvals(o->mem, &rhs);
    ERKStepGetNumErrTestFails(o->mem, &fails);
    ERKStepGetLastStep(o->mem, &h_last);
  } else {
    flag = CVode(o->mem, t1, o->y, &tret, CV_NORMAL);
    long nfails = 0;
    CVodeGetNumSteps(o->mem, &steps);
    CVodeGetNumRhsEvals(o->mem, &rhs);
    CVodeGetNumErrTestFails(o->mem, &fails);
    CVodeGetNumNonlinSolvConvFails(o->mem, &nfails);
    fails += nfails;
    CVodeGetLastStep(o->mem, &h_last);
  }
  counts->steps = steps - o->steps;
  counts->rhs = rhs - o->rhs;
  counts->rejected = fails - o->fails;
  counts->h_last = h_last;
  o->steps = steps;
  o->rhs = rhs;
  o->fails = fails;
  if (flag < 0 || !(tret == t1)) {
    o->t_last = NAN;  // the next call starts afresh from the state the caller restores
    if (o->fn_status != HY_OK) return o->fn_status;
    return flag == ARK_TOO_MUCH_WORK || flag == CV_TOO_MUCH_WORK ? HY_STEP_REJECTED
                                                                 : HY_ERR_NAN;
  }
  memcpy(x, N_VGetArrayPointer(o->y), bytes);
  memcpy(o->x_last, x, bytes);
  o->t_last = t1;
  return HY_OK;
}
