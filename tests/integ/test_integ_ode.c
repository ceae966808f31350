// The variable-step methods through SUNDIALS (src/integ/integ_sundials.c): each converges to a
// fixed-step reference as its tolerance tightens, takes steps longer than the output step on a
// smooth motion and reports its work, starts afresh and deterministically at a state set from
// outside, and is refused by a formulation without an ODE right-hand side.
#include <check.h>
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"

static const hy_integrator kMethods[3] = {HY_INTEG_DOPRI5, HY_INTEG_BS23, HY_INTEG_ADAMS};

static hy_model* pendulum(hy_integrator k, double tol, double dt) {
  hy_model* m = hy_test_load("double-pendulum");
  m->opt.integrator = k;
  m->opt.ode_tol = tol;
  m->opt.dt = dt;
  return m;
}

// The double pendulum's coordinates after 2 s.
static void run_2s(hy_integrator k, double tol, double dt, double z[2], hy_stats* stats) {
  hy_model* m = pendulum(k, tol, dt);
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, lround(2.0 / dt));
  memcpy(z, d->z, 2 * sizeof(double));
  if (stats) *stats = d->stats;
  hy_data_free(d);
  hy_model_free(m);
}

START_TEST(methods_converge_as_the_tolerance_tightens) {
  double ref[2];
  run_2s(HY_INTEG_RK4, 1e-6, 1e-4, ref, NULL);  // RK4's error at 0.1 ms: about 1e-13 rad
  for (int k = 0; k < 3; k++) {
    double loose[2], tight[2];
    run_2s(kMethods[k], 1e-5, 1e-3, loose, NULL);
    run_2s(kMethods[k], 1e-10, 1e-3, tight, NULL);
    const double el = fmax(fabs(loose[0] - ref[0]), fabs(loose[1] - ref[1]));
    const double et = fmax(fabs(tight[0] - ref[0]), fabs(tight[1] - ref[1]));
    ck_assert_msg(et < 1e-7 && et < 1e-2 * el, "%s: error %.3g at 1e-5, %.3g at 1e-10",
                  hy_integrator_name(kMethods[k]), el, et);
  }
}
END_TEST

// On the smooth swing the method's steps are longer than the 1 ms output step, and its work is
// counted: dopri5's seven stages share one (first same as last), so six evaluations a step, one
// per output step for the Hermite interpolant, and a few for the first step's size.
START_TEST(steps_and_evaluations_are_reported) {
  double z[2];
  hy_stats s;
  run_2s(HY_INTEG_DOPRI5, 1e-6, 1e-3, z, &s);
  ck_assert_int_eq(s.nstep, 2000);
  ck_assert_int_gt(s.nsubstep, 0);
  ck_assert_int_lt(s.nsubstep, 500);
  ck_assert_int_ge(s.nrhs, 6 * s.nsubstep);
  ck_assert_int_le(s.nrhs, 6 * (s.nsubstep + s.nreject) + s.nstep + 4);
}
END_TEST

// hy_state_set starts the method afresh: two data set to the same state go on bit for bit alike,
// and both stay within the tolerance's reach of the run that was not interrupted.
START_TEST(a_state_set_from_outside_starts_afresh) {
  for (int k = 0; k < 3; k++) {
    hy_model* m = pendulum(kMethods[k], 1e-9, 1e-3);
    hy_data* a = hy_test_make(m);
    hy_data* b = hy_test_make(m);
    hy_test_steps(m, a, 700);
    const int n = hy_state_size(m, a, HY_STATE_FULL);
    double buf[64];
    ck_assert_int_le(n, 64);
    hy_state_get(m, a, HY_STATE_FULL, buf);
    ck_assert_int_eq(hy_state_set(m, b, HY_STATE_FULL, buf), HY_OK);
    hy_data* c = hy_test_make(m);
    ck_assert_int_eq(hy_state_set(m, c, HY_STATE_FULL, buf), HY_OK);
    hy_test_steps(m, a, 500);
    hy_test_steps(m, b, 500);
    hy_test_steps(m, c, 500);
    hy_test_same_bits(b->z, c->z, 2, "two restarts from one state");
    for (int i = 0; i < 2; i++) ck_assert_double_lt(fabs(a->z[i] - b->z[i]), 1e-7);
    hy_data_free(a);
    hy_data_free(b);
    hy_data_free(c);
    hy_model_free(m);
  }
}
END_TEST

START_TEST(formulations_without_an_ode_refuse_them) {
  hy_model* m = hy_test_load("four-bar-a");
  m->opt.integrator = HY_INTEG_DOPRI5;
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "no ODE right-hand side for the explicit integrator dopri5"));
  hy_model_free(m);
}
END_TEST

Suite* integ_ode_suite(void) {
  Suite* s = suite_create("integ_ode");
  TCase* tc = tcase_create("ode");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, methods_converge_as_the_tolerance_tightens);
  tcase_add_test(tc, steps_and_evaluations_are_reported);
  tcase_add_test(tc, a_state_set_from_outside_starts_afresh);
  tcase_add_test(tc, formulations_without_an_ode_refuse_them);
  suite_add_tcase(s, tc);
  return s;
}
