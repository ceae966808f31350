// Lagrange extrapolation of the coupling variables (seed 001_004ef98543c36dde.txt Sect. 2.3):
// exact for polynomials up to its order, the closed forms at tau = H, and the order reduced
// while the history is short.
#include <math.h>

#include "cosim/cosim.h"
#include "fixture.h"

// p(t) = a0 + a1 t + a2 t^2 + a3 t^3
static double poly(const double* a, double t) { return a[0] + t * (a[1] + t * (a[2] + t * a[3])); }

// Extrapolates p (degree `deg`) from t0 with order `order` and returns the largest relative error
// at tau in [-2H, 2H].
static double extrap_error(int order, int deg, double t0, double H) {
  const double a[4] = {0.7, deg >= 1 ? -1.3 : 0, deg >= 2 ? 2.9 : 0, deg >= 3 ? 4.1 : 0};
  double hist[3];
  for (int j = 0; j < 3; j++) hist[j] = poly(a, t0 - j * H);
  hy_cosim_poly u;
  hy_cosim_extrapolate(order, 3, H, hist, &u);
  double e = 0;
  for (int i = -4; i <= 4; i++) {
    const double tau = 0.5 * i * H;
    const double want = poly(a, t0 + tau);
    e = fmax(e, fabs(hy_cosim_poly_value(&u, tau) - want) / fmax(1, fabs(want)));
  }
  return e;
}

START_TEST(test_exact_up_to_order) {
  for (int order = 0; order <= HY_COSIM_ORDER_MAX; order++) {
    for (int deg = 0; deg <= order; deg++) {
      const double e = extrap_error(order, deg, 0.37, 1e-3);
      ck_assert_msg(e <= 1e-12, "order %d, degree %d: error %g", order, deg, e);
    }
    // one degree more is not reproduced: the test can tell
    const double e = extrap_error(order, order + 1, 0.37, 0.05);
    ck_assert_msg(e > 1e-6, "order %d, degree %d: error %g, expected visible", order, order + 1, e);
  }
}
END_TEST

START_TEST(test_closed_forms) {
  const double h[3] = {1.5, -0.25, 4.0}, H = 2e-3;
  hy_cosim_poly u;
  hy_cosim_extrapolate(0, 3, H, h, &u);
  ck_assert(hy_cosim_poly_value(&u, H) == h[0]);
  ck_assert(hy_cosim_poly_rate(&u, 0.3 * H) == 0.0);
  hy_cosim_extrapolate(1, 3, H, h, &u);
  ck_assert(fabs(hy_cosim_poly_value(&u, H) - (2 * h[0] - h[1])) <= 1e-14);
  ck_assert(fabs(hy_cosim_poly_rate(&u, 0) - (h[0] - h[1]) / H) <= 1e-9);
  hy_cosim_extrapolate(2, 3, H, h, &u);
  ck_assert(fabs(hy_cosim_poly_value(&u, H) - (3 * h[0] - 3 * h[1] + h[2])) <= 1e-13);
  // through the history
  ck_assert(fabs(hy_cosim_poly_value(&u, -H) - h[1]) <= 1e-13);
  ck_assert(fabs(hy_cosim_poly_value(&u, -2 * H) - h[2]) <= 1e-13);
}
END_TEST

START_TEST(test_order_reduced_at_start) {
  const double h[3] = {1.5, -0.25, 4.0}, H = 1e-3;
  hy_cosim_poly u;
  // one value known: held, whatever the order
  hy_cosim_extrapolate(2, 1, H, h, &u);
  ck_assert(u.c[0] == h[0] && u.c[1] == 0 && u.c[2] == 0);
  // two known: linear
  hy_cosim_extrapolate(2, 2, H, h, &u);
  ck_assert(fabs(hy_cosim_poly_value(&u, H) - (2 * h[0] - h[1])) <= 1e-13);
  ck_assert(u.c[2] == 0);
  // nothing known: no input
  hy_cosim_extrapolate(1, 0, H, h, &u);
  ck_assert(u.c[0] == 0 && u.c[1] == 0 && u.c[2] == 0);
}
END_TEST

Suite* cosim_extrap_suite(void) {
  Suite* s = suite_create("cosim_extrap");
  TCase* tc = tcase_create("extrap");
  tcase_add_test(tc, test_exact_up_to_order);
  tcase_add_test(tc, test_closed_forms);
  tcase_add_test(tc, test_order_reduced_at_start);
  suite_add_tcase(s, tc);
  return s;
}
