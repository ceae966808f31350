// A friction law on its own (include/hydyn/friction.h): hy_friction_steady against the laws'
// steady forces, hy_friction_response under a velocity step from rest (the bristle laws settle
// on the steady force and states), for static laws (the force is the steady one at each sample,
// bit for bit), its order of accuracy (the trapezoidal rule's 2), no heap use, and the refusal
// of bad arguments and of a step whose state overflows, with messages naming the sample or time.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "friction/friction.h"
#include "friction_params.h"
#include "hydyn/hydyn.h"

#define NS HY_FRICTION_STATES_MAX

// Large enough for the finest reference run of the order test.
enum { NMAX = 200001 };
static double t_[NMAX], v_[NMAX], F_[NMAX], w_[NMAX * NS];

#define ASSERT_HAS(text, what) \
  ck_assert_msg(strstr((text), (what)) != NULL, "'%s' not found in:\n%s", (what), (text))

// n samples of step h from t = 0, the velocity v0 at t = 0 and V after (a step from rest).
static void step_history(int n, double h, double v0, double V) {
  for (int i = 0; i < n; i++) {
    t_[i] = i * h;
    v_[i] = i == 0 ? v0 : V;
  }
}

static hy_status respond(const hy_friction_def* p, double N, int n, hy_error* err) {
  memset(err, 0, sizeof *err);
  return hy_friction_response(p, N, n, t_, v_, F_, w_, err);
}

//----- steady force ----------------------------------------------------------------------------

START_TEST(test_steady_is_the_laws) {
  for (int law = HY_FRICTION_COULOMB; law < HY_FRICTION_COUNT; law++) {
    hy_friction_def p = fb_def((hy_friction_law)law);
    p.pressure_coefficient = 1e-3;
    const double N = 1.4e5, Fc = hy_friction_coulomb(&p, N);
    const double vs[] = {0, 0.3 * FB_VS, -FB_VS, 3 * FB_VS, -0.1};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
      ck_assert_double_eq(hy_friction_steady(&p, vs[i], N),
                          hy_friction_steady_force(&p, vs[i], Fc));
    }
    ck_assert_double_eq(hy_friction_steady(&p, 0, N), 0);
  }
  hy_friction_def none = hy_friction_def_default();
  ck_assert(isnan(hy_friction_steady(&none, 1e-3, 0)));
  ck_assert(isnan(hy_friction_steady(NULL, 1e-3, 0)));
}
END_TEST

//----- bristle laws settle on the steady state ---------------------------------------------------

// Velocities of the step: within the Stribeck range, at its edge, beyond v_b, both signs.
static const double kStep[] = {0.3 * FB_VS, -0.3 * FB_VS, 2 * FB_VS, -20 * FB_VS};
#define NSTEP ((int)(sizeof kStep / sizeof kStep[0]))

// 40 time constants of the slowest state: the bristles' q approaches its steady value as
// exp(-sigma0 |V| t / g) (Eq. 25 at constant v, g <= F_s), the film with tau_hp (Eq. 30).
static double settle_time(const hy_friction_def* p, double V) {
  double tau = p->stiction / (p->stiffness * fabs(V));
  if (p->law == HY_FRICTION_LUGRE_FILM) tau = fmax(tau, p->tau_accel);
  return 40 * tau;
}

START_TEST(test_lugre_step_settles) {
  const hy_friction_def p = fb_def(HY_FRICTION_LUGRE);
  const double V = kStep[_i];
  const int n = 4001;
  step_history(n, settle_time(&p, V) / (n - 1), 0, V);
  hy_error err;
  ck_assert_int_eq(respond(&p, 0, n, &err), HY_OK);
  ck_assert_double_eq(F_[0], 0);  // at rest, q = 0
  ck_assert_double_eq(w_[0], 0);
  const double Fss = hy_friction_steady(&p, V, 0);
  double q_ss[NS] = {0, 0};
  hy_friction_steady_states(&p, V, FB_FC, q_ss);
  ck_assert_msg(fb_near(F_[n - 1], Fss, 1e-10, 1), "V = %g: F = %.17g, steady %.17g", V, F_[n - 1],
                Fss);
  ck_assert_msg(fb_near(w_[(n - 1) * NS], q_ss[0], 1e-10, 1e-6), "V = %g: q = %.17g, steady %.17g",
                V, w_[(n - 1) * NS], q_ss[0]);
  ck_assert_double_eq(w_[(n - 1) * NS + 1], 0);  // no second state
  // on the way the force passes the steady one only on the Stribeck hump (LuGre's overshoot
  // needs g to fall as q rises, which it does not at constant v): it rises monotonically
  for (int i = 1; i < n; i++) ck_assert(fb_sgn(V) * (F_[i] - F_[i - 1]) >= -1e-9 * FB_FS);
}
END_TEST

START_TEST(test_film_step_settles) {
  const hy_friction_def p = fb_def(HY_FRICTION_LUGRE_FILM);
  const double V = kStep[_i];
  const int n = 4001;
  step_history(n, settle_time(&p, V) / (n - 1), 0, V);
  hy_error err;
  ck_assert_int_eq(respond(&p, 0, n, &err), HY_OK);
  ck_assert_double_eq(F_[0], 0);
  ck_assert_double_eq(w_[1], 0);  // no film at rest
  const double Fss = hy_friction_steady(&p, V, 0);
  double w_ss[NS] = {0, 0};
  hy_friction_steady_states(&p, V, FB_FC, w_ss);
  ck_assert_msg(fb_near(F_[n - 1], Fss, 1e-10, 1), "V = %g: F = %.17g, steady %.17g", V, F_[n - 1],
                Fss);
  for (int k = 0; k < NS; k++) {
    ck_assert_msg(fb_near(w_[(n - 1) * NS + k], w_ss[k], 1e-10, k ? 1e-3 : 1e-6),
                  "V = %g: state %d = %.17g, steady %.17g", V, k, w_[(n - 1) * NS + k], w_ss[k]);
  }
}
END_TEST

// Started at the steady state of v[0], a constant velocity stays there.
START_TEST(test_steady_start_stays) {
  for (int law = HY_FRICTION_LUGRE; law <= HY_FRICTION_LUGRE_FILM; law++) {
    const hy_friction_def p = fb_def((hy_friction_law)law);
    const int n = 101;
    step_history(n, 1e-3, 2 * FB_VS, 2 * FB_VS);
    hy_error err;
    ck_assert_int_eq(respond(&p, 0, n, &err), HY_OK);
    const double Fss = hy_friction_steady(&p, 2 * FB_VS, 0);
    for (int i = 0; i < n; i++) ck_assert(fb_near(F_[i], Fss, 1e-12, 1));
  }
}
END_TEST

//----- static laws -------------------------------------------------------------------------------

START_TEST(test_static_laws_exact) {
  const hy_friction_law laws[] = {HY_FRICTION_COULOMB, HY_FRICTION_BENGISU_AKAY,
                                  HY_FRICTION_BROWN_MCPHEE};
  const double N = 1.4e5;
  const int n = 1001;
  for (int i = 0; i < n; i++) {
    t_[i] = 1e-3 * i;
    v_[i] = 8 * FB_VS * sin(2 * 3.14159265358979323846 * 1.3 * t_[i]);
  }
  for (size_t l = 0; l < sizeof laws / sizeof laws[0]; l++) {
    hy_friction_def p = fb_def(laws[l]);
    p.pressure_coefficient = 1e-3;
    for (int i = 0; i < n * NS; i++) w_[i] = 99;
    hy_error err;
    ck_assert_int_eq(respond(&p, N, n, &err), HY_OK);
    for (int i = 0; i < n; i++) {
      const double want = hy_friction_steady(&p, v_[i], N);
      ck_assert_msg(memcmp(&F_[i], &want, sizeof want) == 0, "%s: F[%d] = %.17g, steady %.17g",
                    hy_friction_law_name(laws[l]), i, F_[i], want);
      ck_assert_double_eq(w_[i * NS], 0);
      ck_assert_double_eq(w_[i * NS + 1], 0);
    }
  }
}
END_TEST

//----- accuracy ----------------------------------------------------------------------------------

// F at t_end of v = V sin(2 pi f t) from rest, in n steps.
static double sine_force(const hy_friction_def* p, double V, double t_end, int n) {
  const double f = 0.5;
  for (int i = 0; i <= n; i++) {
    t_[i] = t_end * i / n;
    v_[i] = V * sin(2 * 3.14159265358979323846 * f * t_[i]);
  }
  hy_error err;
  ck_assert_int_eq(respond(p, 0, n + 1, &err), HY_OK);
  return F_[n];
}

// The trapezoidal rule is of order 2: halving the step quarters the error, measured against a
// run with steps 100 times finer. Over the first half period (v from 0 up to its peak and back
// towards 0, no change of direction after the start) the rates are smooth.
START_TEST(test_second_order) {
  for (int law = HY_FRICTION_LUGRE; law <= HY_FRICTION_LUGRE_FILM; law++) {
    const hy_friction_def p = fb_def((hy_friction_law)law);
    const double V = 4 * FB_VS, t_end = 0.8;
    const double ref = sine_force(&p, V, t_end, 200000);
    const double e1 = fabs(sine_force(&p, V, t_end, 1000) - ref);
    const double e2 = fabs(sine_force(&p, V, t_end, 2000) - ref);
    const double e4 = fabs(sine_force(&p, V, t_end, 4000) - ref);
    ck_assert_msg(e1 > 0 && e1 < 1, "%s: error %g N at 1000 steps", hy_friction_law_name(p.law),
                  e1);
    ck_assert_msg(e1 / e2 > 3.5 && e1 / e2 < 4.5 && e2 / e4 > 3.5 && e2 / e4 < 4.5,
                  "%s: errors %g, %g, %g N: ratios %g, %g (order 2: 4)",
                  hy_friction_law_name(p.law), e1, e2, e4, e1 / e2, e2 / e4);
  }
}
END_TEST

START_TEST(test_no_heap) {
  const hy_friction_def p = fb_def(HY_FRICTION_LUGRE_FILM);
  step_history(1000, 1e-3, 0, 3 * FB_VS);
  hy_error err;
  hy_test_count_allocs_begin();
  hy_status st = hy_friction_response(&p, 0, 1000, t_, v_, F_, w_, &err);
  hy_friction_response(&p, 0, 1000, t_, v_, F_, NULL, NULL);
  const long calls = hy_test_count_allocs_end();
  ck_assert_int_eq(st, HY_OK);
  ck_assert_int_eq(calls, 0);
}
END_TEST

//----- refusals ----------------------------------------------------------------------------------

START_TEST(test_bad_arguments) {
  hy_friction_def p = fb_def(HY_FRICTION_LUGRE);
  step_history(4, 1e-3, 0, FB_VS);
  hy_error err;
  // each call is refused with HY_ERR_ARG and a message holding `what`
#define TRY(call, what)                     \
  do {                                      \
    memset(&err, 0, sizeof err);            \
    ck_assert_int_eq((call), HY_ERR_ARG);   \
    ck_assert_int_eq(err.code, HY_ERR_ARG); \
    ASSERT_HAS(err.msg, what);              \
  } while (0)
  TRY(hy_friction_response(NULL, 0, 4, t_, v_, F_, w_, &err), "NULL parameters");
  TRY(hy_friction_response(&p, 0, 4, NULL, v_, F_, w_, &err), "NULL times");
  TRY(hy_friction_response(&p, 0, 4, t_, NULL, F_, w_, &err), "NULL velocities");
  TRY(hy_friction_response(&p, 0, 4, t_, v_, NULL, w_, &err), "NULL force");
  TRY(hy_friction_response(&p, 0, 0, t_, v_, F_, w_, &err), "0 samples");
  TRY(hy_friction_response(&p, -1, 4, t_, v_, F_, w_, &err), "normal load -1 N");
  TRY(hy_friction_response(&p, NAN, 4, t_, v_, F_, w_, &err), "normal load nan N");
  hy_friction_def q = p;
  q.law = HY_FRICTION_NONE;
  TRY(hy_friction_response(&q, 0, 4, t_, v_, F_, w_, &err), "no friction law");
  q.law = HY_FRICTION_COUNT;
  TRY(hy_friction_response(&q, 0, 4, t_, v_, F_, w_, &err), "unknown friction law");
  t_[2] = t_[1];
  TRY(hy_friction_response(&p, 0, 4, t_, v_, F_, w_, &err), "times must increase: t[2]");
  t_[2] = 2e-3;
  v_[3] = INFINITY;
  TRY(hy_friction_response(&p, 0, 4, t_, v_, F_, w_, &err), "sample 3");
  v_[3] = FB_VS;
  t_[0] = NAN;
  TRY(hy_friction_response(&p, 0, 4, t_, v_, F_, w_, &err), "sample 0");
#undef TRY
  // err is nullable
  ck_assert_int_eq(hy_friction_response(NULL, 0, 4, t_, v_, F_, w_, NULL), HY_ERR_ARG);
}
END_TEST

// Parameters far outside the checker's ranges overflow the bristle rate: the step is refused
// with the time it started from, and F holds the samples before it.
START_TEST(test_overflow_names_time) {
  hy_friction_def p = fb_def(HY_FRICTION_LUGRE);
  p.stiffness = 1e300;
  step_history(3, 0.5, 0, 1e10);
  hy_error err;
  ck_assert_int_eq(respond(&p, 0, 3, &err), HY_ERR_NAN);
  ASSERT_HAS(err.msg, "t = 0 -> 0.5 s");
  ck_assert_double_eq(F_[0], 0);
}
END_TEST

Suite* friction_response_suite(void) {
  Suite* s = suite_create("friction_response");
  TCase* tc = tcase_create("steady");
  tcase_add_test(tc, test_steady_is_the_laws);
  tcase_add_loop_test(tc, test_lugre_step_settles, 0, NSTEP);
  tcase_add_loop_test(tc, test_film_step_settles, 0, NSTEP);
  tcase_add_test(tc, test_steady_start_stays);
  tcase_add_test(tc, test_static_laws_exact);
  suite_add_tcase(s, tc);
  tc = tcase_create("accuracy");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_second_order);
  tcase_add_test(tc, test_no_heap);
  suite_add_tcase(s, tc);
  tc = tcase_create("refusals");
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_overflow_names_time);
  suite_add_tcase(s, tc);
  return s;
}
