// `hydyn linearize` run as a child process: the summary line, the eigenvalue table with its
// kinds, the CSV files (read back), the complex-plane figure, and bad command lines.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "fixture.h"

static cmd_result result;

#define HYDYN(...) run_hydyn((const char*[]){__VA_ARGS__, NULL}, NULL, &result)

START_TEST(linearize_four_bar) {
  make_tmp_dir("hydyn_linearize");
  HYDYN("linearize", "four-bar-a", "--out", "fb", "--plot", "eig.png");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  ASSERT_HAS(result.out, "linearize: model=four-bar-a method=reduced t=0 n=6 states=1");
  ASSERT_HAS(result.out, "spool dcv (-1/tau)");
  ASSERT_HAS(result.out, "oscillating, decaying");
  char path[256];
  tmp_path(path, sizeof path, "fb-eigen.csv");
  FILE* fp = fopen(path, "r");
  ck_assert_ptr_nonnull(fp);
  char line[512];
  int rows = 0;
  ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
  ck_assert_str_eq(line, "k,re[1/s],im[rad/s],omega_n[rad/s],f_n[Hz],zeta,kind\n");
  while (fgets(line, sizeof line, fp)) rows++;
  fclose(fp);
  ck_assert_int_eq(rows, 6);
  // modes over every coordinate: three joints, their rates, three pressures, the spool
  tmp_path(path, sizeof path, "fb-modes.csv");
  fp = fopen(path, "r");
  ck_assert_ptr_nonnull(fp);
  rows = 0;
  ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
  while (fgets(line, sizeof line, fp)) rows++;
  fclose(fp);
  ck_assert_int_eq(rows, 3 + 3 + 3 + 1);
  tmp_path(path, sizeof path, "eig.png");
  fp = fopen(path, "rb");
  ck_assert_ptr_nonnull(fp);
  fclose(fp);
  // the counterpart: ten states and the note on its spurious zeros
  HYDYN("linearize", "four-bar-a", "--method", "fd", "--step", "1e-5", "--no-out", "--quiet");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  ASSERT_HAS(result.out, "method=fd t=0 n=10");
  ASSERT_HAS(result.out, "2m = 4 spurious zero eigenvalues");
  // the counterpart's error against its step: a V, lowest between its ends
  HYDYN("linearize", "four-bar-a", "--quiet", "--out", "st", "--step-sweep", "1e-10:1e-2:5");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  tmp_path(path, sizeof path, "st-step.csv");
  fp = fopen(path, "r");
  ck_assert_ptr_nonnull(fp);
  double h[5], e[5];
  ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
  for (int i = 0; i < 5; i++) {
    ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
    ck_assert_int_eq(sscanf(line, "%lf,%lf", &h[i], &e[i]), 2);  // the first nonzero eigenvalue
  }
  fclose(fp);
  ck_assert_double_eq_tol(h[0], 1e-10, 1e-22);
  ck_assert_double_eq_tol(h[4], 1e-2, 1e-14);
  ck_assert_double_lt(e[2], e[0]);
  ck_assert_double_lt(e[2], e[4]);
}
END_TEST

START_TEST(linearize_bad_command_lines) {
  make_tmp_dir("hydyn_linearize_bad");
  static const char* const bad[][4] = {
      {"linearize", NULL, NULL, NULL},
      {"linearize", "four-bar-a", "--method", "exact"},
      {"linearize", "four-bar-a", "--step", "2"},
      {"linearize", "four-bar-a", "--at", "-1"},
      {"linearize", "four-bar-a", "--frobnicate", NULL},
      {"linearize", "four-bar-a", "--step-sweep", "1e-3:1e-5:4"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    run_hydyn((const char*[]){bad[k][0], bad[k][1], bad[k][2], bad[k][3], NULL}, NULL, &result);
    ck_assert_msg(result.status == 2, "case %zu: status %d", k, result.status);
    ASSERT_HAS(result.err, "hydyn linearize:");
  }
}
END_TEST

Suite* cli_linearize_suite(void) {
  Suite* s = suite_create("cli_linearize");
  TCase* tc = tcase_create("linearize");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, linearize_four_bar);
  tcase_add_test(tc, linearize_bad_command_lines);
  suite_add_tcase(s, tc);
  return s;
}
