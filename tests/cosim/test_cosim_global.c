// The mechanics of a co-simulation in global coordinates (ALI1, ALI3-P: src/form/form_global.c)
// against the same co-simulation with the penalty formulation: the subsystem drives any
// formulation through hy_data.cyl_input, so ALI3-P's cylinder lengths agree with penalty's to
// the formulations' own agreement, and ALI1's to its first-order error.
#include <check.h>
#include <math.h>

#include "cosim/cosim.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

// The cylinder length of the crane co-simulated (vp, m = 1, H = 1 ms, h_h = 0.1 ms, RK4) with
// formulation mbs, at every communication point up to 1.5 s.
static void crane_lengths(hy_formulation mbs, double* s, int n) {
  hy_model* m = hy_test_load("crane");
  const hy_cosim_config c = {.H = 1e-3, .hh = 1e-4, .t_end = 1e-3 * n, .coupling = HY_COUPLE_VP,
                             .extrap = 1, .mbs = mbs, .hyd = HY_INTEG_RK4};
  hy_cosim* cs = NULL;
  hy_error err;
  ck_assert_int_eq(hy_cosim_make(m, &c, &cs, &err), HY_OK);
  const int col = hy_cosim_chan_find(cs, "s:cylinder");
  ck_assert_int_ge(col, 0);
  double row[256];
  ck_assert_int_le(hy_cosim_nchan(cs), 256);
  for (int k = 0; k < n; k++) {
    ck_assert_int_eq(hy_cosim_step(cs, &err), HY_OK);
    hy_cosim_row(cs, row);
    s[k] = row[col];
  }
  hy_cosim_free(cs);
  hy_model_free(m);
}

START_TEST(global_mechanics_follow_the_inputs) {
  enum { N = 1500 };
  static double pen[N], ali3p[N], ali1[N];
  crane_lengths(HY_FORM_PENALTY, pen, N);
  crane_lengths(HY_FORM_ALI3P, ali3p, N);
  crane_lengths(HY_FORM_ALI1, ali1, N);
  double d3 = 0, d1 = 0, moved = 0;
  for (int k = 0; k < N; k++) {
    d3 = fmax(d3, fabs(ali3p[k] - pen[k]));
    d1 = fmax(d1, fabs(ali1[k] - pen[k]));
    moved = fmax(moved, fabs(pen[k] - pen[0]));
  }
  ck_assert_double_ge(moved, 0.03);  // the valve opens at 0.2 s: the cylinder extends 48 mm
  ck_assert_double_le(d3, 5e-8);     // measured 4.2e-9 m
  ck_assert_double_le(d1, 1e-4);     // measured 2.1e-5 m: semi-implicit Euler at H = 1 ms
  ck_assert_double_ge(d1, 1e-7);     // and ALI1 is not ALI3-P
}
END_TEST

Suite* cosim_global_suite(void) {
  Suite* s = suite_create("cosim_global");
  TCase* tc = tcase_create("global");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, global_mechanics_follow_the_inputs);
  suite_add_tcase(s, tc);
  return s;
}
