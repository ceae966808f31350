// Explicit integrators: observed order on problems with known answers, energy behaviour,
// failure atomicity, no heap use, and the integrator names.
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/names.h"
#include "integ/integ.h"

static const hy_integrator all_kinds[] = {HY_INTEG_EULER, HY_INTEG_SEMI_EULER, HY_INTEG_RK4};
enum { NKIND = 3 };

//----- test problems -------------------------------------------------------------------------

// q'' = -w^2 q, exact q = q0 cos(wt) + v0/w sin(wt). `fail_at` >= 0 makes evaluation number
// fail_at (0-based, counted in `calls`) return `fail_status` instead.
typedef struct oscillator {
  double w;
  int calls;
  int fail_at;
  hy_status fail_status;
  int nan_at;  // evaluation that returns a NaN acceleration (-1 = never)
} oscillator;

static hy_status oscillator_rhs(void* ctx, double t, const double* x, double* xdot) {
  (void)t;
  oscillator* o = ctx;
  int call = o->calls++;
  if (call == o->fail_at) return o->fail_status;
  xdot[0] = x[1];
  xdot[1] = -o->w * o->w * x[0];
  if (call == o->nan_at) xdot[1] = NAN;
  return HY_OK;
}

static oscillator oscillator_make(double w) {
  oscillator o = {.w = w, .calls = 0, .fail_at = -1, .fail_status = HY_OK, .nan_at = -1};
  return o;
}

static double oscillator_energy(double w, const double x[2]) {
  return 0.5 * x[1] * x[1] + 0.5 * w * w * x[0] * x[0];
}

// Pendulum theta'' = -(g/L) sin(theta) with a large swing, so the nonlinearity matters.
typedef struct pendulum {
  double g_over_l;
} pendulum;

static hy_status pendulum_rhs(void* ctx, double t, const double* x, double* xdot) {
  (void)t;
  const pendulum* p = ctx;
  xdot[0] = x[1];
  xdot[1] = -p->g_over_l * sin(x[0]);
  return HY_OK;
}

// nq decoupled unit pendulums, ctx = &nq (for multi-coordinate states).
static hy_status pendulums_rhs(void* ctx, double t, const double* x, double* xdot) {
  (void)t;
  const int nq = *(const int*)ctx;
  for (int i = 0; i < nq; i++) {
    xdot[i] = x[nq + i];
    xdot[nq + i] = -sin(x[i]);
  }
  return HY_OK;
}

// Energy per m L^2.
static double pendulum_energy(const pendulum* p, const double x[2]) {
  return 0.5 * x[1] * x[1] - p->g_over_l * cos(x[0]);
}

// Integrates x over nstep steps of t_end/nstep; returns the last status.
static hy_status integrate(hy_integrator kind, int nq, double* x, double t_end, int nstep,
                           hy_ode_rhs_fn f, void* ctx) {
  double work[3 * 8];
  ck_assert_uint_le(hy_integ_explicit_work_size(kind, 2 * nq), sizeof work / sizeof work[0]);
  const double dt = t_end / nstep;
  for (int k = 0; k < nstep; k++) {
    hy_status s = hy_integ_explicit_step(kind, nq, 0, k * dt, dt, x, NULL, f, ctx, work);
    if (s != HY_OK) return s;
  }
  return HY_OK;
}

// Global error at t_end of the oscillator (w = 2, q0 = 1, v0 = 0.5), max norm.
static double oscillator_error(hy_integrator kind, double t_end, int nstep) {
  const double w = 2.0, q0 = 1.0, v0 = 0.5;
  oscillator o = oscillator_make(w);
  double x[2] = {q0, v0};
  ck_assert_int_eq(integrate(kind, 1, x, t_end, nstep, oscillator_rhs, &o), HY_OK);
  const double q = q0 * cos(w * t_end) + v0 / w * sin(w * t_end);
  const double v = -q0 * w * sin(w * t_end) + v0 * cos(w * t_end);
  return fmax(fabs(x[0] - q), fabs(x[1] - v));
}

// Energy error at t_end of the pendulum released at 1.2 rad.
static double pendulum_energy_error(hy_integrator kind, double t_end, int nstep) {
  pendulum p = {.g_over_l = 9.81};
  double x[2] = {1.2, 0.0};
  const double e0 = pendulum_energy(&p, x);
  ck_assert_int_eq(integrate(kind, 1, x, t_end, nstep, pendulum_rhs, &p), HY_OK);
  return fabs(pendulum_energy(&p, x) - e0);
}

//----- observed order --------------------------------------------------------------------------

// Error ratio when dt halves: 2^p for a method of order p.
static void check_ratio(const char* what, hy_integrator kind, double e_coarse, double e_fine,
                        double lo, double hi) {
  const double ratio = e_coarse / e_fine;
  ck_assert_msg(ratio >= lo && ratio <= hi, "%s %s: error ratio %.4g outside [%g, %g] (%.3g, %.3g)",
                what, hy_integrator_name(kind), ratio, lo, hi, e_coarse, e_fine);
}

START_TEST(order_oscillator_first) {
  // First-order methods: 2000 and 4000 steps over 2 s (dt = 1e-3, 5e-4) are well inside the
  // asymptotic range.
  for (int i = 0; i < 2; i++) {
    hy_integrator kind = i == 0 ? HY_INTEG_EULER : HY_INTEG_SEMI_EULER;
    double e1 = oscillator_error(kind, 2.0, 2000);
    double e2 = oscillator_error(kind, 2.0, 4000);
    check_ratio("oscillator", kind, e1, e2, 1.8, 2.2);
  }
}
END_TEST

START_TEST(order_oscillator_rk4) {
  // Coarse steps so the error (~1e-7) stays far above round-off.
  double e1 = oscillator_error(HY_INTEG_RK4, 2.0, 80);
  double e2 = oscillator_error(HY_INTEG_RK4, 2.0, 160);
  check_ratio("oscillator", HY_INTEG_RK4, e1, e2, 14.0, 18.0);
}
END_TEST

START_TEST(order_pendulum_energy) {
  for (int i = 0; i < 2; i++) {
    hy_integrator kind = i == 0 ? HY_INTEG_EULER : HY_INTEG_SEMI_EULER;
    double e1 = pendulum_energy_error(kind, 1.0, 2000);
    double e2 = pendulum_energy_error(kind, 1.0, 4000);
    check_ratio("pendulum energy", kind, e1, e2, 1.8, 2.2);
  }
  // RK4's energy error on this pendulum carries a large h^5 term: the ratio falls from ~28 to
  // 16 only as round-off takes over, so energy can only show "at least fourth order" here. The
  // state error below measures the order itself.
  double e1 = pendulum_energy_error(HY_INTEG_RK4, 1.0, 100);
  double e2 = pendulum_energy_error(HY_INTEG_RK4, 1.0, 200);
  check_ratio("pendulum energy", HY_INTEG_RK4, e1, e2, 14.0, 32.0);
}
END_TEST

START_TEST(order_pendulum_state) {
  // Reference: RK4 with 2e5 steps (error ~1e-16, far below the errors compared).
  pendulum p = {.g_over_l = 9.81};
  double ref[2] = {1.2, 0.0};
  ck_assert_int_eq(integrate(HY_INTEG_RK4, 1, ref, 1.0, 200000, pendulum_rhs, &p), HY_OK);
  const int steps[NKIND] = {2000, 2000, 100};
  const double lo[NKIND] = {1.8, 1.8, 14.0}, hi[NKIND] = {2.2, 2.2, 18.0};
  for (int i = 0; i < NKIND; i++) {
    double err[2];
    for (int h = 0; h < 2; h++) {
      double x[2] = {1.2, 0.0};
      ck_assert_int_eq(integrate(all_kinds[i], 1, x, 1.0, steps[i] << h, pendulum_rhs, &p), HY_OK);
      err[h] = fmax(fabs(x[0] - ref[0]), fabs(x[1] - ref[1]));
    }
    check_ratio("pendulum state", all_kinds[i], err[0], err[1], lo[i], hi[i]);
  }
}
END_TEST

//----- energy behaviour ------------------------------------------------------------------------

START_TEST(semi_euler_energy_bounded) {
  // dt w = 0.01: forward Euler multiplies the energy by 1 + (dt w)^2 every step, e^10 over
  // 1e5 steps; symplectic Euler keeps it within O(dt w) of the start for ever.
  const double w = 1.0, dt = 0.01;
  const int nstep = 100000;
  double work[3 * 2];
  for (int i = 0; i < 2; i++) {
    hy_integrator kind = i == 0 ? HY_INTEG_SEMI_EULER : HY_INTEG_EULER;
    oscillator o = oscillator_make(w);
    double x[2] = {1.0, 0.0};
    const double e0 = oscillator_energy(w, x);
    double dev_max = 0.0;
    for (int k = 0; k < nstep; k++) {
      ck_assert_int_eq(
          hy_integ_explicit_step(kind, 1, 0, k * dt, dt, x, NULL, oscillator_rhs, &o, work), HY_OK);
      dev_max = fmax(dev_max, fabs(oscillator_energy(w, x) - e0) / e0);
    }
    if (kind == HY_INTEG_SEMI_EULER) {
      ck_assert_msg(dev_max < 0.01, "semi-euler energy deviation %g", dev_max);
    } else {
      double growth = oscillator_energy(w, x) / e0;
      ck_assert_msg(growth > 1e4, "euler energy growth %g", growth);
    }
  }
}
END_TEST

//----- call contract ---------------------------------------------------------------------------

START_TEST(xdot0_same_result) {
  // Passing f(t, x) must give exactly the step that evaluates it.
  pendulum p = {.g_over_l = 9.81};
  double work[3 * 2];
  for (int i = 0; i < NKIND; i++) {
    double x1[2] = {0.7, -0.3}, x2[2] = {0.7, -0.3}, xdot0[2];
    ck_assert_int_eq(pendulum_rhs(&p, 0.1, x2, xdot0), HY_OK);
    ck_assert_int_eq(
        hy_integ_explicit_step(all_kinds[i], 1, 0, 0.1, 0.01, x1, NULL, pendulum_rhs, &p, work),
        HY_OK);
    ck_assert_int_eq(
        hy_integ_explicit_step(all_kinds[i], 1, 0, 0.1, 0.01, x2, xdot0, pendulum_rhs, &p, work),
        HY_OK);
    ck_assert_mem_eq(x1, x2, sizeof x1);
  }
}
END_TEST

START_TEST(evaluation_count) {
  // One evaluation for the Euler methods, four for RK4, one fewer when xdot0 is given.
  const int expect[NKIND] = {1, 1, 4};
  double work[3 * 2];
  for (int i = 0; i < NKIND; i++) {
    oscillator o = oscillator_make(1.0);
    double x[2] = {1.0, 0.0}, xdot0[2] = {0.0, -1.0};
    hy_integ_explicit_step(all_kinds[i], 1, 0, 0.0, 0.1, x, NULL, oscillator_rhs, &o, work);
    ck_assert_int_eq(o.calls, expect[i]);
    o.calls = 0;
    hy_integ_explicit_step(all_kinds[i], 1, 0, 0.0, 0.1, x, xdot0, oscillator_rhs, &o, work);
    ck_assert_int_eq(o.calls, expect[i] - 1);
  }
}
END_TEST

START_TEST(failure_leaves_x_unchanged) {
  // Every stage of every method fails in turn, fatally and recoverably; x must not move.
  const int nstage[NKIND] = {1, 1, 4};
  const hy_status fails[2] = {HY_ERR_MODEL, HY_STEP_REJECTED};
  double work[3 * 2];
  for (int i = 0; i < NKIND; i++) {
    for (int stage = 0; stage < nstage[i]; stage++) {
      for (int f = 0; f < 2; f++) {
        oscillator o = oscillator_make(3.0);
        o.fail_at = stage;
        o.fail_status = fails[f];
        const double x0[2] = {0.25, -1.5};
        double x[2] = {x0[0], x0[1]};
        hy_status s =
            hy_integ_explicit_step(all_kinds[i], 1, 0, 0.0, 0.1, x, NULL, oscillator_rhs, &o, work);
        ck_assert_msg(s == fails[f], "%s stage %d: status %d", hy_integrator_name(all_kinds[i]),
                      stage, (int)s);
        ck_assert_mem_eq(x, x0, sizeof x0);
      }
      // A non-finite derivative at that stage: HY_ERR_NAN, x unchanged.
      oscillator o = oscillator_make(3.0);
      o.nan_at = stage;
      const double x0[2] = {0.25, -1.5};
      double x[2] = {x0[0], x0[1]};
      ck_assert_int_eq(
          hy_integ_explicit_step(all_kinds[i], 1, 0, 0.0, 0.1, x, NULL, oscillator_rhs, &o, work),
          HY_ERR_NAN);
      ck_assert_mem_eq(x, x0, sizeof x0);
    }
  }
}
END_TEST

START_TEST(work_size_is_enough) {
  // The step touches exactly the workspace it asks for: a guard after it stays intact.
  enum { NQ = 3, N = 2 * NQ, GUARD = 8 };
  for (int i = 0; i < NKIND; i++) {
    size_t nw = hy_integ_explicit_work_size(all_kinds[i], N);
    ck_assert_uint_ge(nw, N);
    double work[3 * N + GUARD];
    ck_assert_uint_le(nw, 3 * N);
    for (size_t k = 0; k < nw + GUARD; k++) work[k] = -7.0;
    int nq = NQ;
    double x[N] = {1, 2, 3, 0.1, 0.2, 0.3};
    ck_assert_int_eq(
        hy_integ_explicit_step(all_kinds[i], NQ, 0, 0.0, 0.1, x, NULL, pendulums_rhs, &nq, work),
        HY_OK);
    for (size_t k = nw; k < nw + GUARD; k++) ck_assert(work[k] == -7.0);
  }
  ck_assert_uint_eq(hy_integ_explicit_work_size((hy_integrator)42, 4), 0);
  ck_assert_uint_eq(hy_integ_explicit_work_size(HY_INTEG_RK4, -2), 0);
}
END_TEST

START_TEST(bad_arguments) {
  oscillator o = oscillator_make(1.0);
  double x[2] = {1.0, 0.0}, work[6];
  ck_assert_int_eq(
      hy_integ_explicit_step((hy_integrator)42, 1, 0, 0, 0.1, x, NULL, oscillator_rhs, &o, work),
      HY_ERR_ARG);
  ck_assert_int_eq(
      hy_integ_explicit_step(HY_INTEG_RK4, -1, 0, 0, 0.1, x, NULL, oscillator_rhs, &o, work),
      HY_ERR_ARG);
  ck_assert_int_eq(hy_integ_explicit_step(HY_INTEG_RK4, 1, 0, 0, 0.1, x, NULL, NULL, &o, work),
                   HY_ERR_ARG);
  ck_assert_int_eq(
      hy_integ_explicit_step(HY_INTEG_RK4, 1, 0, 0, NAN, x, NULL, oscillator_rhs, &o, work),
      HY_ERR_ARG);
  ck_assert_int_eq(o.calls, 0);
  ck_assert(x[0] == 1.0 && x[1] == 0.0);
}
END_TEST

START_TEST(no_heap_in_steps) {
  pendulum p = {.g_over_l = 9.81};
  double work[3 * 2];
  for (int i = 0; i < NKIND; i++) {
    double x[2] = {1.0, 0.0};
    hy_test_count_allocs_begin();
    for (int k = 0; k < 1000; k++) {
      hy_integ_explicit_step(all_kinds[i], 1, 0, k * 1e-3, 1e-3, x, NULL, pendulum_rhs, &p, work);
    }
    long n = hy_test_count_allocs_end();
    ck_assert_msg(n == 0, "%s: %ld heap calls in 1000 steps", hy_integrator_name(all_kinds[i]), n);
  }
}
END_TEST

//----- names -----------------------------------------------------------------------------------

START_TEST(names_round_trip) {
  for (int i = 0; i < NKIND; i++) {
    const char* name = hy_integrator_name(all_kinds[i]);
    hy_integrator back = (hy_integrator)-1;
    ck_assert_int_eq(hy_integrator_parse(name, &back), HY_OK);
    ck_assert_int_eq(back, all_kinds[i]);
  }
  ck_assert_str_eq(hy_integrator_name(HY_INTEG_SEMI_EULER), "semi-euler");
  ck_assert_str_eq(hy_integrator_name((hy_integrator)17), "unknown");
}
END_TEST

START_TEST(names_rejected) {
  const char* bad[] = {"", "RK4", "rk", "rk45", "semi_euler", "euler ", "unknown"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hy_integrator out = HY_INTEG_SEMI_EULER;
    ck_assert_int_eq(hy_integrator_parse(bad[i], &out), HY_ERR_ARG);
    ck_assert_int_eq(out, HY_INTEG_SEMI_EULER);
  }
  hy_integrator out;
  ck_assert_int_eq(hy_integrator_parse(NULL, &out), HY_ERR_ARG);
  ck_assert_int_eq(hy_integrator_parse("rk4", NULL), HY_ERR_ARG);
}
END_TEST

Suite* integ_explicit_suite(void) {
  Suite* s = suite_create("integ_explicit");
  TCase* order = tcase_create("order");
  tcase_add_test(order, order_oscillator_first);
  tcase_add_test(order, order_oscillator_rk4);
  tcase_add_test(order, order_pendulum_energy);
  tcase_add_test(order, order_pendulum_state);
  tcase_add_test(order, semi_euler_energy_bounded);
  suite_add_tcase(s, order);
  TCase* contract = tcase_create("contract");
  tcase_add_test(contract, xdot0_same_result);
  tcase_add_test(contract, evaluation_count);
  tcase_add_test(contract, failure_leaves_x_unchanged);
  tcase_add_test(contract, work_size_is_enough);
  tcase_add_test(contract, bad_arguments);
  tcase_add_test(contract, no_heap_in_steps);
  suite_add_tcase(s, contract);
  TCase* names = tcase_create("names");
  tcase_add_test(names, names_round_trip);
  tcase_add_test(names, names_rejected);
  suite_add_tcase(s, names);
  return s;
}
