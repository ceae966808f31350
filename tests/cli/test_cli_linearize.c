// `hydyn linearize` run as a child process: the summary line, the eigenvalue table with its
// kinds, the CSV files (read back), the complex-plane figure, and bad command lines.
#include <check.h>
#include <math.h>
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
  ASSERT_HAS(result.out, "2 (m + l) = 4 spurious zero eigenvalues, m = 2");
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

// The sensitivity of the oil column's frequency to the mass against the closed form
// d omega / d m = -omega / (2 m) (omega^2 = (B_a A_a^2/V_a + B_b A_b^2/V_b) / m), a sweep's table
// and root locus, and the named parameters.
START_TEST(linearize_sensitivity_and_sweep) {
  make_tmp_dir("hydyn_linearize_sens");
  char model[512];
  snprintf(model, sizeof model, "%s/tests/data/oil-column.yaml", HY_SOURCE_DIR);
  HYDYN("linearize", model, "--quiet", "--no-out", "--sensitivity", "body:mass.mass");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  const char* at = strstr(result.out, "sensitivity to body:mass.mass = 500 kg");
  ck_assert_ptr_nonnull(at);
  // the row of the eigenvalue with positive imaginary part: k, re, im, d re, d im, relative
  double w = 0, dw = 0;
  for (const char* line = strchr(at, '\n'); line; line = strchr(line + 1, '\n')) {
    int k;
    double re, im, dre, dim, rel;
    if (sscanf(line + 1, "%d %lf %lf %lf %lf %lf", &k, &re, &im, &dre, &dim, &rel) == 6 && im > 0) {
      w = im;
      dw = dim;
      break;
    }
  }
  ck_assert_double_gt(w, 0);
  ck_assert_msg(fabs(dw + w / (2 * 500)) <= 1e-6 * w / 1000, "d omega/dm %.9g, closed form %.9g",
                dw, -w / 1000);
  // a sweep of the mass: three values, four eigenvalues each, and the root locus
  HYDYN("linearize", model, "--quiet", "--out", "sw", "--sweep", "body:mass.mass=250:1000:3",
        "--sweep-plot", "rl.png");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  char path[256], line[512];
  tmp_path(path, sizeof path, "sw-sweep.csv");
  FILE* fp = fopen(path, "r");
  ck_assert_ptr_nonnull(fp);
  ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
  ASSERT_HAS(line, "body:mass.mass[kg],k,re[1/s],im[rad/s]");
  int rows = 0;
  while (fgets(line, sizeof line, fp)) rows++;
  fclose(fp);
  ck_assert_int_eq(rows, 3 * 4);
  tmp_path(path, sizeof path, "rl.png");
  fp = fopen(path, "rb");
  ck_assert_ptr_nonnull(fp);
  fclose(fp);
  // the named parameters, and a name that is none of them
  HYDYN("linearize", model, "--parameters");
  ck_assert_int_eq(result.status, 0);
  ASSERT_HAS(result.out, "cylinder:cylinder.area_a");
  ASSERT_HAS(result.out, "volume:Va.hose_volume");
  HYDYN("linearize", model, "--quiet", "--no-out", "--sensitivity", "body:nobody.mass");
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "has no body named 'nobody'");
}
END_TEST

START_TEST(linearize_bad_command_lines) {
  make_tmp_dir("hydyn_linearize_bad");
  static const char* const bad[][6] = {
      {"linearize", NULL, NULL, NULL},
      {"linearize", "four-bar-a", "--method", "exact"},
      {"linearize", "four-bar-a", "--step", "2"},
      {"linearize", "four-bar-a", "--at", "-1"},
      {"linearize", "four-bar-a", "--frobnicate", NULL},
      {"linearize", "four-bar-a", "--step-sweep", "1e-3:1e-5:4"},
      {"linearize", "four-bar-a", "--sweep", "body:crank.mass=1:1:3"},
      {"linearize", "four-bar-a", "--method", "fd", "--step-sweep", "1e-8:1e-2:3"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    run_hydyn((const char*[]){bad[k][0], bad[k][1], bad[k][2], bad[k][3], bad[k][4], bad[k][5],
                              NULL},
              NULL, &result);
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
  tcase_add_test(tc, linearize_sensitivity_and_sweep);
  tcase_add_test(tc, linearize_bad_command_lines);
  suite_add_tcase(s, tc);
  return s;
}
