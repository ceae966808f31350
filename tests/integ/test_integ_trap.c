// The trapezoidal rule's pieces with a closed form: the first-order lag of the spools.
#include <check.h>
#include <math.h>

#include "fixture.h"
#include "integ/integ.h"

// A lag with time constant tau following a constant reference 10 from 0: the trapezoidal
// recursion y_k+1 = r y_k + 10 (1 - r), r = (1 - a) / (1 + a), has the exact solution
// y_k = 10 (1 - r^k); at t = tau it differs from the ODE's 10 (1 - 1/e) by the rule's error,
// 10 e^-1 n (2a)^3 / 12 to leading order.
START_TEST(lag_step_is_the_trapezoidal_rule) {
  const double tau = 4.547e-3;
  const int n = 100;
  const double h = tau / n, a = h / (2 * tau), r = (1 - a) / (1 + a);
  double y = 0;
  hy_test_count_allocs_begin();
  for (int i = 0; i < n; i++) {
    y = hy_integ_lag_step(y, 10, 10, h, tau);
    ck_assert_double_le(fabs(y - 10 * (1 - pow(r, i + 1))), 1e-12);
  }
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  const double want = 10 * (1 - exp(-1.0));
  const double bound = 1.1 * 10 * exp(-1.0) * n * pow(2 * a, 3) / 12;
  ck_assert_msg(fabs(y - want) <= bound, "y(tau) = %.12g, want %.12g +- %.3g", y, want, bound);
  ck_assert_double_ge(fabs(y - want), 0.5 * bound / 1.1);  // the error is really the rule's
  // a reference that ramps: the average of its ends drives the step
  ck_assert_double_eq(hy_integ_lag_step(4, 0, 0, h, tau), 4 * r);
  ck_assert_double_le(fabs(hy_integ_lag_step(0, 2, 6, h, tau) - 2 * a * 4 / (1 + a)), 1e-15);
}
END_TEST

Suite* integ_trap_suite(void) {
  Suite* s = suite_create("integ_trap");
  TCase* tc = tcase_create("trapezoidal");
  tcase_add_test(tc, lag_step_is_the_trapezoidal_rule);
  suite_add_tcase(s, tc);
  return s;
}
