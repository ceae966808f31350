// The `case_row:` line `hydyn run` prints after the summary for a built-in HDCA family model
// (shared/seeds/hdca_cases.md): its columns must say what the summary says, so that a row put
// beside another engine's means what its header claims.
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_harness.h"
#include "fixture.h"

static cmd_result result;

static double summary_number(const char* text, const char* key) {
  char v[64];
  summary_value(text, key, v, sizeof v);
  ck_assert_msg(v[0], "no %s in the summary:\n%s", key, text);
  return strtod(v, NULL);
}

enum { NCOL = 10 };

// The fields of the case_row line of text, split at commas into the static buffer; asserts that
// there is one line, right after the summary, with exactly NCOL fields.
static void case_row_fields(const char* text, char* field[NCOL]) {
  static char line[512];
  const char* summary = strstr(text, "summary: ");
  ck_assert_msg(summary != NULL, "no summary in:\n%s", text);
  const char* next = strchr(summary, '\n');
  ck_assert_ptr_nonnull(next);
  ck_assert_msg(strncmp(next + 1, "case_row: ", 10) == 0, "no case_row after the summary:\n%s",
                text);
  ck_assert_ptr_null(strstr(next + 1 + 10, "case_row: "));  // once
  const char* p = next + 1 + 10;
  size_t n = strcspn(p, "\n");
  ck_assert_uint_lt(n, sizeof line);
  memcpy(line, p, n);
  line[n] = '\0';
  int k = 0;
  for (char* q = line; k < NCOL;) {
    field[k++] = q;
    q = strchr(q, ',');
    if (!q) break;
    *q++ = '\0';
  }
  ck_assert_msg(k == NCOL && !strchr(field[NCOL - 1], ','), "not %d fields: '%.*s'", NCOL, (int)n,
                p);
}

// a and b agree to the 3 significant digits the summary prints (plus the row's rounding)
static void assert_close3(double row, double summary, const char* what) {
  ck_assert_msg(fabs(row - summary) <= 6e-3 * fabs(summary) + 1e-300, "%s: row %.9g, summary %.9g",
                what, row, summary);
}

// The row of a variable-step run: the integrator's own steps, the summary's wall, violation and
// drift, the time per step they make.
START_TEST(case_row_matches_summary) {
  make_tmp_dir("hydyn_case_row");
  run_hydyn((const char*[]){"run", "hdca-case1", "--formulation", "hdca", "--integrator", "dopri5",
                            "--tolerance", "1e-5", "--t-end", "2", "--dt", "0.01", "--no-out",
                            "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  char* f[NCOL];
  case_row_fields(result.out, f);
  ck_assert_str_eq(f[0], "hydyn-hdca");
  ck_assert_str_eq(f[1], "case1");
  ck_assert_str_eq(f[2], "4");  // the seed counts the ground link
  ck_assert_str_eq(f[3], "dopri5");
  ck_assert_double_eq_tol(strtod(f[4], NULL), 0.01, 1e-15);
  // dopri5 takes its own steps: fewer than the 200 output steps, and they are the row's steps
  const double substeps = summary_number(result.out, "substeps");
  ck_assert_double_eq(summary_number(result.out, "steps"), 200);
  ck_assert_double_lt(substeps, 200);
  ck_assert_double_eq(strtod(f[5], NULL), substeps);
  const double wall = strtod(f[6], NULL);
  ck_assert_double_gt(wall, 0);
  ck_assert_msg(fabs(wall - summary_number(result.out, "wall")) <= 6e-4 * wall, "wall %s", f[6]);
  ck_assert_double_eq_tol(strtod(f[7], NULL), 1e6 * wall / substeps, 1e-5 * strtod(f[7], NULL));
  const double viol = strtod(f[8], NULL);
  ck_assert_double_gt(viol, 0);  // the loop is closed only to the tolerance
  assert_close3(viol, summary_number(result.out, "violation_max"), "violation");
  assert_close3(strtod(f[9], NULL), summary_number(result.out, "energy_drift"), "drift");
  rmdir(tmp_dir);
}
END_TEST

// The other families and engines: chain-N (open: no violation, fixed steps), loop-N, case 2;
// the row follows the summary to standard error when the CSV goes to standard output; other
// models print none.
START_TEST(case_row_families) {
  make_tmp_dir("hydyn_case_row");
  char* f[NCOL];
  run_hydyn((const char*[]){"run", "chain-5", "--formulation", "dca", "--integrator", "rk4",
                            "--t-end", "0.05", "--no-out", "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  case_row_fields(result.out, f);
  ck_assert_str_eq(f[0], "hydyn-dca");
  ck_assert_str_eq(f[1], "chain");
  ck_assert_str_eq(f[2], "5");
  ck_assert_str_eq(f[3], "rk4");
  ck_assert_str_eq(f[5], "50");  // fixed steps
  ck_assert_double_eq(strtod(f[8], NULL), 0);
  assert_close3(strtod(f[9], NULL), summary_number(result.out, "energy_drift"), "drift");

  run_hydyn((const char*[]){"run", "loop-6", "--formulation", "dca", "--integrator", "bs23",
                            "--t-end", "0.2", "--out", "-", "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  ck_assert_ptr_null(strstr(result.out, "case_row"));
  case_row_fields(result.err, f);
  ck_assert_str_eq(f[1], "loop");
  ck_assert_str_eq(f[2], "6");
  ck_assert_str_eq(f[3], "bs23");
  ck_assert_double_eq(strtod(f[5], NULL), summary_number(result.err, "substeps"));
  assert_close3(strtod(f[8], NULL), summary_number(result.err, "violation_max"), "violation");

  run_hydyn((const char*[]){"run", "hdca-case2", "--t-end", "0.01", "--no-out", "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  case_row_fields(result.out, f);
  ck_assert_str_eq(f[0], "hydyn-penalty");  // auto with closed loops
  ck_assert_str_eq(f[1], "case2");
  ck_assert_str_eq(f[2], "8");
  ck_assert_str_eq(f[3], "trapezoidal");
  ck_assert_str_eq(f[5], "10");

  run_hydyn(
      (const char*[]){"run", "double-pendulum", "--t-end", "0.01", "--no-out", "--quiet", NULL},
      NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ck_assert_ptr_null(strstr(result.out, "case_row"));
  rmdir(tmp_dir);
}
END_TEST

Suite* cli_case_row_suite(void) {
  Suite* s = suite_create("cli_case_row");
  TCase* tc = tcase_create("case_row");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, case_row_matches_summary);
  tcase_add_test(tc, case_row_families);
  suite_add_tcase(s, tc);
  return s;
}
