// The built-in double-actuator crane (models/crane-double.yaml, seed 001 Sect. 3.1.2) does what
// its stand-in joystick signals are for: `hydyn run crane-double` drives both pistons into both of
// their end dampers (each of the four chamber lengths goes below the damper length l_d = 8 mm),
// the dampers hold them (no chamber length below -2 mm, i.e. never far past the stroke end), and
// the run reaches its t_end of 10 s.
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_harness.h"
#include "fixture.h"
#include "io/io.h"

static cmd_result result;

START_TEST(crane_double_enters_all_four_end_dampers) {
  make_tmp_dir("hydyn_crane2");
  char out[128];
  tmp_path(out, sizeof out, "crane-double.csv");
  const int pid = start_hydyn(
      (const char*[]){"run", "crane-double", "--quiet", "--channels", "len_a:*,len_b:*", "--out",
                      out, NULL},
      NULL, "");
  finish_hydyn(pid, "", &result);
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);

  hy_results* r = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_msg(hy_results_read(out, &r, &err) == HY_OK, "%s: %s", out, err.msg);
  ck_assert_int_eq(r->nrow, 10001);  // t = 0 and 10 000 steps of 1 ms
  const double* t = hy_results_column(r, 0);
  ck_assert_double_eq_tol(t[r->nrow - 1], 10.0, 1e-9);

  const double l_d = 0.008;  // end_damper length of both cylinders (m)
  static const char* const chambers[] = {"len_a:cylinder1", "len_b:cylinder1", "len_a:cylinder2",
                                         "len_b:cylinder2"};
  for (size_t k = 0; k < sizeof chambers / sizeof chambers[0]; k++) {
    const int c = hy_results_find(r, chambers[k]);
    ck_assert_msg(c > 0, "no channel %s", chambers[k]);
    const double* l = hy_results_column(r, c);
    double lmin = INFINITY, tmin = 0, t_in = -1;
    for (long i = 0; i < r->nrow; i++) {
      ck_assert_msg(isfinite(l[i]), "%s not finite at t = %g", chambers[k], t[i]);
      if (l[i] < lmin) lmin = l[i], tmin = t[i];
      if (t_in < 0 && l[i] < l_d) t_in = t[i];
    }
    ck_assert_msg(t_in >= 0, "%s never enters its end damper: shortest %.6g m at t = %g s",
                  chambers[k], lmin, tmin);
    ck_assert_msg(lmin > -0.002, "%s goes past the stroke end: %.6g m at t = %g s", chambers[k],
                  lmin, tmin);
    // and it comes back out of the damper: the piston is driven in and back
    ck_assert_msg(l[r->nrow - 1] > 2 * l_d, "%s ends at %.6g m, still at its end", chambers[k],
                  l[r->nrow - 1]);
  }
  hy_results_free(r);
  remove(out);
  rmdir(tmp_dir);
}
END_TEST

Suite* cli_crane_double_suite(void) {
  Suite* s = suite_create("cli_crane_double");
  TCase* tc = tcase_create("crane_double");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, crane_double_enters_all_four_end_dampers);
  suite_add_tcase(s, tc);
  return s;
}
