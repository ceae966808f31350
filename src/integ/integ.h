// Internal header of src/integ: the time integrators, which own the discretization. The
// explicit fixed-step methods drive a formulation's ODE right-hand side; the trapezoidal rule
// with Newton-Raphson (seed 000 Sect. 4) sets the state from its unknowns by the trapezoidal
// relations and solves the formulation's residual. The step controller cuts a step whose
// Newton iteration fails and, on request, sizes the steps by an estimate of their local error.
#ifndef HYDYN_SRC_INTEG_INTEG_H_
#define HYDYN_SRC_INTEG_INTEG_H_

#include <stddef.h>

#include "form/form.h"
#include "hydyn/types.h"

//----- explicit fixed-step methods -----------------------------------------------------------

// Right-hand side of the ODE: writes xdot = f(t, x). Returns HY_OK, > 0 for a recoverable
// failure, < 0 for a fatal one; either failure aborts the step.
typedef hy_status (*hy_ode_rhs_fn)(void* ctx, double t, const double* x, double* xdot);

// Doubles of workspace hy_integ_explicit_step needs for kind and state size n (0 for a kind
// that is not explicit or n < 0).
size_t hy_integ_explicit_work_size(hy_integrator kind, int n);

// Advances x = [q; v; y] (nq coordinates q with q_dot = v, nq velocities v, ny first-order
// states y: n = 2 nq + ny) by one step of size dt from time t, in place.
//   HY_INTEG_EULER       x1 = x + dt f(t, x)
//   HY_INTEG_SEMI_EULER  v1 = v + dt a(t, q, v, y), q1 = q + dt v1, y1 = y + dt g(t, q, v, y)
//                        (symplectic Euler on q and v; q_dot = v is assumed)
//   HY_INTEG_RK4         classical Runge-Kutta, four evaluations
// xdot0, if not NULL, holds f(t, x) already evaluated and replaces the first evaluation.
// work holds hy_integ_explicit_work_size(kind, n) doubles. Nothing is allocated.
// Returns HY_OK; the status of f when f fails (> 0 or < 0); HY_ERR_NAN when the new state is
// not finite; HY_ERR_ARG for bad arguments. On any failure x is left unchanged.
hy_status hy_integ_explicit_step(hy_integrator kind, int nq, int ny, double t, double dt,
                                 double* x, const double* xdot0, hy_ode_rhs_fn f, void* ctx,
                                 double* work);

//----- variable-step methods through SUNDIALS (integ_sundials.c) ------------------------------

// dopri5, bs23 and adams.
int hy_integ_is_variable(hy_integrator k);
// A solver of kind for n states with rtol = atol = tol. Allocates (when the data are made).
typedef struct hy_ode hy_ode;
hy_status hy_ode_make(hy_integrator kind, int n, double tol, hy_ode** out);
void hy_ode_free(hy_ode* o);
// The next evolve starts afresh (the state was set from outside).
void hy_ode_forget(hy_ode* o);
// What one evolve did: the method's steps, right-hand-side evaluations, rejected steps (error
// test and, for adams, iteration failures), and the size of its last step (s).
typedef struct hy_ode_counts {
  long steps, rhs, rejected;
  double h_last;
} hy_ode_counts;
// Advances x from t0 to exactly t1 with fn as the right-hand side, continuing the solver's steps
// when (t0, x) is where the last call ended, starting afresh otherwise. On failure x is
// untouched: the status of fn's last failure, HY_STEP_REJECTED when the step limit was reached,
// HY_ERR_NAN otherwise (hy_ode_message says what the solver saw).
hy_status hy_ode_evolve(hy_ode* o, hy_ode_rhs_fn fn, void* ctx, double t0, double t1, double* x,
                        hy_ode_counts* counts);
const char* hy_ode_message(const hy_ode* o);

//----- the trapezoidal rule on a first-order lag ------------------------------------------------

// The spools' lag under the trapezoidal rule, hy_hyd_spool_lag_step (hyd.h), by the name the
// integrators have used (hy_hyd_spool_step steps every kind of spool).
static inline double hy_integ_lag_step(double y0, double r0, double r1, double h, double tau) {
  return hy_hyd_spool_lag_step(y0, r0, r1, h, tau);
}

//----- the integrator of a data ----------------------------------------------------------------

// The first-order unknowns every integrator steps besides the coordinates (the spools apart):
// the pressures, then the cylinders' friction states, one vector in hy_data (w = p + nvol).
static inline size_t hy_integ_first_order(const hy_model* m) {
  return (size_t)m->sizes.nvol + (size_t)m->sizes.nfric;
}

// The trapezoidal rule's work and the history it carries from step to step.
typedef struct hy_trap {
  // history
  // the first-order unknowns y = [p; w] (ny = nvol + nfric) share the pressures' arrays
  double* pd_prev;  // their rates at the start of the previous step                 (ny)
  double h_prev;    // size of the previous step (s)
  double h_next;    // error control: the size the next step starts with (s), 0 = dt
  // the current step
  double h, c1, c2;   // step (s), 2/h and 4/h^2 (Eq. 33)
  double* hat_zd;     // the terms of Eq. 34                                          (nz)
  double* hat_zdd;    //                                                              (nz)
  double* hat_pd;     //                                                              (ny)
  double* pd_trap;    // rates of y from the trapezoidal relation (Eq. 33)           (ny)
  // the start of the step, to which a failed or rejected step returns
  double t_k;
  double* z_k;        //                                                              (nz)
  double* zd_k;       //                                                              (nz)
  double* zdd_k;      //                                                              (nz)
  double* p_k;        //                                                              (ny)
  double* pd_k;       //                                                              (ny)
  double* pd_prev_k;  //                                                              (ny)
  double* U_k;        // the spools' states                                           (nspool)
  double* cache_k;    // the mechanics' cache (hy_mech_cache_get)                      (nbody x 3)
  double uref_t;      // the spools' references at this time are in uref (NAN: none)
  double* uref;       // (the end of the last step is the start of the next)          (nvlv)
  hy_form_power power_k;
  // the Newton iteration over the unknowns [mechanical (nm) | pressures (nvol) | friction
  // states (nfric)], one tolerance per segment
  int nm, n;          // mechanical unknowns, all unknowns
  const int* coord;   // coordinate of each mechanical unknown (NULL: unknown i is z_i)
  double* x;          // unknowns                                                     (nmax)
  double* x_pred;     // their predictor, for the error estimate                      (nmax)
  double* dx;         // Newton correction                                            (nmax)
  double* f;          // residual                                                     (nmax)
  double* fp;         // residual at a perturbed x (finite-difference tangent)         (nmax)
  double* J;          // finite-difference tangent and its LU factors                 (nmax^2)
  int* piv;           //                                                              (nmax)
  double* row_scale;  // the scales of its rows (unit largest entry), for the later
                      // iterations of modified Newton                                (nmax)
  double* dxm;        // change of the mechanical unknowns since the last evaluation  (nz)
  int worst;          // unknown with the largest scaled correction in the last iteration
  double worst_dx;    // that correction (rad or m, Pa)
  double res_seg[2];  // largest |residual| of the mechanical and first-order rows
  int iter;           // iterations of the current step
  // the tangent in blocks (hy_trap_factor): mechanical block and its Schur complement, the
  // first-order block D = I - h/2 dy_dot/dy and G = df_y/ds (y = [p; w])
  double* tg_S;       //                                                              (nz x nz)
  int* tg_Spiv;       //                                                              (nz)
  double* tg_D;       //                                                              (ny^2)
  int* tg_Dpiv;       //                                                              (ny)
  double* tg_G;       // G, then D^-1 G                                             (ny x ncyl)
  double* tg_Js;      // d|s| / d(mechanical unknowns)                              (ncyl x nz)
  double* tg_Jr;      // the mechanical rows' projection of the cylinder forces when the
                      // formulation's differs from tg_Js (hy_form_ops.tangent)  (ncyl x nz)
  const double* tg_jr;  // the one in use: tg_Jr or tg_Js
  double* tg_Fp;      // dF_cyl / dy at the tangent's evaluation                    (ncyl x ny)
  double* tg_K;       // dF/dy D^-1 G                                             (ncyl x ncyl)
  double* tg_y;       // a column of the elimination                                  (ny)
  double* tg_Fy;      // dF_cyl / dy assembled from the pressure and friction parts (ncyl x ny)
} hy_trap;

// Keeps the whole state of the data and puts it back: a step taken in pieces returns to its
// start with it when a later piece fails (set by the data, src/sim).
typedef struct hy_integ_checkpoint {
  void (*save)(void* ctx);
  void (*restore)(void* ctx);
  void* ctx;
} hy_integ_checkpoint;

typedef struct hy_integ {
  hy_integrator kind;  // the integrator of the data (never auto)
  hy_integ_checkpoint checkpoint;
  hy_trap trap;
  // explicit methods: the state x = [z; zd; p; w; U] and its derivative
  double* ex_x;      //                                                 (2 nz + ny + nspool)
  double* ex_x0;     //                                                   (same)
  double* ex_xdot;   //                                                   (same)
  double* ex_work;   // the method's workspace
  double* ex_cache;  // the kinematics' rotation cache at the start of the step (mech)
  hy_ode* ode;       // dopri5, bs23, adams: the SUNDIALS solver (hy_integ_open)
} hy_integ;

// Bytes of the integrator's arrays for model m, laid out by hy_integ_bind in mem.
size_t hy_integ_size(const hy_model* m, hy_integrator kind);
void hy_integ_bind(hy_integ* in, const hy_model* m, hy_integrator kind, unsigned char* mem);
// Forgets the history of the steps before (the state is a new start).
void hy_integ_restart(hy_integ* in, const hy_model* m);
// What the integrator allocates besides its arrays (the SUNDIALS solver of the variable-step
// methods), once when the data are made, and its release.
hy_status hy_integ_open(hy_integ* in, const hy_model* m, hy_integrator kind);
void hy_integ_close(hy_integ* in);

// Advances the state of f->d by dt: one step of the explicit method, or one trapezoidal step
// which, when its Newton iteration fails, is retried as steps of half the size (down to
// dt / 2^opt.max_cuts) unless opt.strict_steps, or, with opt.error_control, as many steps as
// the estimate of their local error asks for. Integrates the work of the loads and cylinders
// over the step. On failure the state is back at its start, bit for bit, and d->err says why.
hy_status hy_integ_advance(hy_integ* in, hy_form* f, double dt);

// What the integrator carries from step to step (hy_state_*).
int hy_integ_hist_size(const hy_model* m);
void hy_integ_hist_get(const hy_integ* in, const hy_model* m, double* buf);
void hy_integ_hist_set(hy_integ* in, const hy_model* m, const double* buf);
// Whether buf (finite values) is a history hy_integ_hist_set may take (step sizes in range).
int hy_integ_hist_ok(const hy_model* m, const double* buf);

//----- the trapezoidal step in parts (tests and the tangent checks) ----------------------------

// Starts a step of size h ending at time t_end: keeps the start, forms Eq. 34 and the
// predictors, steps the spools, and writes the predicted unknowns into in->trap.x.
void hy_trap_begin(hy_integ* in, hy_form* f, double h, double t_end);
// The residual at the unknowns x (in->trap.n) into r: the state set by the trapezoidal
// relations, the formulation's rows scaled by h^2/4, and the pressure rows h/2 (p_dot_trap - h).
hy_status hy_trap_residual(hy_integ* in, hy_form* f, const double* x, double* r);
// The analytic tangent of the last residual, whole (n x n, row-major), for checks.
void hy_trap_tangent(hy_integ* in, hy_form* f, double* J);
// The same tangent factored in blocks; HY_WARN_SINGULAR and the unknown in *sing when a block is
// singular. hy_trap_solve solves tangent * y = b in place in b.
hy_status hy_trap_factor(hy_integ* in, hy_form* f, int* sing);
void hy_trap_solve(const hy_integ* in, const hy_form* f, double* b);
// Back to the start of the step.
void hy_trap_abort(hy_integ* in, hy_form* f);
// One trapezoidal step of size h to t_end: begin, Newton iteration, the formulation's end of the
// step. With est != NULL the local error estimate relative to its tolerance is written there
// first, and a step whose estimate exceeds 1 is undone (HY_STEP_REJECTED). On any failure the
// state is back at the start of the step and d->err says why.
hy_status hy_trap_step(hy_integ* in, hy_form* f, double h, double t_end, double* est);

#endif  // HYDYN_SRC_INTEG_INTEG_H_
