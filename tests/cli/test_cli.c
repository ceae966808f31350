// The hydyn command, run as a child process: help, argument checking, exit statuses, a short
// run with its CSV and summary, error positions for a malformed model file, and closed-loop runs
// (formulations, Newton options, notes, extra CSV columns), hydraulic runs (notes, summary keys,
// CSV columns, a Newton failure that keeps the rows written before it), and a run with a knife
// edge (its violation column, channels and summary key).
//
// The binary is $HYDYN_BIN (set by ctest, see tests/CMakeLists.txt), else build/hydyn in the
// source tree.
#define _XOPEN_SOURCE 700  // fork, mkdtemp, regex, realpath

#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

static void remove_tmp(const char* name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  remove(path);
}

static cmd_result result;  // large: static, one per test process


static int count_lines(const char* s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

//----- help, version, models -----------------------------------------------------------------

START_TEST(help_mentions_everything) {
  make_tmp_dir("hydyn_cli");
  run_hydyn((const char*[]){"--help", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  const char* top[] = {"run", "models", "--help", "--version"};
  for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) ASSERT_HAS(result.out, top[i]);

  run_hydyn((const char*[]){"run", "--help", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  const char* opts[] = {"--t-end",
                        "--dt",
                        "--integrator",
                        "euler",
                        "semi-euler",
                        "rk4",
                        "--out",
                        "--no-out",
                        "--every",
                        "--quiet",
                        "--help",
                        "--formulation",
                        "tree",
                        "penalty",
                        "double-step",
                        "--tangent",
                        "analytic",
                        "fd",
                        "--penalty",
                        "--tol",
                        "--max-iter",
                        "--tol-p",
                        "--strict-steps",
                        "--max-cuts",
                        "--error-control",
                        "predictor",
                        "--error-tol",
                        "--error-tol-p",
                        "--max-memory",
                        "trapezoidal",
                        "auto"};
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) ASSERT_HAS(result.out, opts[i]);

  run_hydyn((const char*[]){"--version", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ASSERT_HAS(result.out, HY_VERSION_STRING);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(models_lists_builtins) {
  make_tmp_dir("hydyn_cli");
  run_hydyn((const char*[]){"models", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ck_assert_int_eq(count_lines(result.out), hy_builtin_count());
  for (int i = 0; i < hy_builtin_count(); i++) ASSERT_HAS(result.out, hy_builtin_name(i));
  ASSERT_HAS(result.out, "double-pendulum\n");
  run_hydyn((const char*[]){"models", "--help", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ASSERT_HAS(result.out, "usage: hydyn models");
  run_hydyn((const char*[]){"models", "extra", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "unexpected argument 'extra'");
  rmdir(tmp_dir);
}
END_TEST

//----- usage errors --------------------------------------------------------------------------

START_TEST(bad_arguments_exit_2) {
  make_tmp_dir("hydyn_cli");
  // a forgotten value: the next option is not taken for it (no file named '--t-end')
  run_hydyn((const char*[]){"run", "double-pendulum", "--out", "--t-end", "0.1", NULL}, NULL,
            &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "option --out needs a value, got the option '--t-end'");
  run_hydyn((const char*[]){"run", "double-pendulum", "--dt", "abc", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "--dt");
  ASSERT_HAS(result.err, "abc");

  // Each of these must be refused before anything runs.
  const char* const cases[][4] = {
      {"--dt", "0", NULL},
      {"--dt", "-1e-3", NULL},
      {"--dt", "1e-3x", NULL},
      {"--dt", "", NULL},
      {"--dt=nan", NULL},
      {"--t-end", "inf", NULL},
      {"--t-end", " 1", NULL},
      {"--every", "0", NULL},
      {"--every", "2.5", NULL},
      {"--integrator", "RK4", NULL},
      {"--bogus", NULL},
      {"--dt", NULL},
      {"extra-arg", NULL},
      {"--formulation", "Penalty", NULL},
      {"--formulation", NULL},
      {"--formulation=", NULL},
      {"--tangent", "exact", NULL},
      {"--tol", "-1", NULL},
      {"--tol", "0", NULL},
      {"--tol", "1e-7m", NULL},
      {"--penalty", "abc", NULL},
      {"--penalty", "-1e11", NULL},
      {"--max-iter", "0", NULL},
      {"--max-iter", "2.5", NULL},
      {"--max-iter", "1000001", NULL},
      {"--tol-p", "-1", NULL},
      {"--tol-p", "0", NULL},
      {"--tol-p=abc", NULL},
      {"--tol-p", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char* args[8] = {"run", "double-pendulum", NULL};
    for (int k = 0; cases[i][k]; k++) args[2 + k] = cases[i][k];
    run_hydyn(args, NULL, &result);
    ck_assert_msg(result.status == 2, "case %zu (%s %s): status %d", i, cases[i][0],
                  cases[i][1] ? cases[i][1] : "", result.status);
    ck_assert_msg(result.err[0] != '\0', "case %zu: no message", i);
  }
  run_hydyn((const char*[]){"run", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  run_hydyn((const char*[]){NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  run_hydyn((const char*[]){"frobnicate", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  // nothing was written by the refused runs
  char path[128];
  snprintf(path, sizeof path, "%s/double-pendulum.csv", tmp_dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(unknown_model_lists_builtins) {
  make_tmp_dir("hydyn_cli");
  run_hydyn((const char*[]){"run", "no-such-model", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "no-such-model");
  ASSERT_HAS(result.err, "built-in");
  ASSERT_HAS(result.err, "double-pendulum");
  rmdir(tmp_dir);
}
END_TEST

START_TEST(malformed_model_has_position) {
  make_tmp_dir("hydyn_cli");
  char path[128];
  snprintf(path, sizeof path, "%s/broken.yaml", tmp_dir);
  FILE* fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  // An unclosed flow sequence: a syntax error libyaml reports with its position.
  fputs("name: broken\nbodies:\n  - name: [unclosed\n    mass: 1\n", fp);
  fclose(fp);
  run_hydyn((const char*[]){"run", path, "--quiet", NULL}, NULL, &result);
  ck_assert_int_ne(result.status, 0);
  ck_assert_int_ne(result.status, 2);
  regex_t re;
  ck_assert_int_eq(regcomp(&re, "broken\\.yaml:[0-9]+:[0-9]+: ", REG_EXTENDED), 0);
  ck_assert_msg(regexec(&re, result.err, 0, NULL, 0) == 0, "no file:line:col in:\n%s", result.err);
  regfree(&re);
  remove_tmp("broken.yaml");
  remove_tmp("broken.csv");
  rmdir(tmp_dir);
}
END_TEST

//----- runs ----------------------------------------------------------------------------------

START_TEST(short_run_writes_csv_and_summary) {
  make_tmp_dir("hydyn_cli");
  char csv[128];
  snprintf(csv, sizeof csv, "%s/dp.csv", tmp_dir);
  run_hydyn((const char*[]){"run", "double-pendulum", "--t-end", "0.1", "--dt", "0.001",
                            "--integrator", "rk4", "--out", csv, "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "status %d, stderr:\n%s", result.status, result.err);
  ck_assert_int_eq(count_lines(result.out), 1);
  char v[256];
  ck_assert_str_eq(summary_value(result.out, "steps", v, sizeof v), "100");
  ck_assert_str_eq(summary_value(result.out, "model", v, sizeof v), "double-pendulum");
  ck_assert_str_eq(summary_value(result.out, "integrator", v, sizeof v), "rk4");
  ck_assert_str_eq(summary_value(result.out, "formulation", v, sizeof v), "tree");
  ck_assert_str_eq(summary_value(result.out, "csv", v, sizeof v), csv);
  // no Newton iteration and no loops in an open tree: those keys are left out
  const char* absent[] = {"iter_mean", "iter_max", "violation_max", "nh_violation_max",
                          "partitions"};
  for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
    ck_assert_msg(!summary_value(result.out, absent[i], v, sizeof v)[0], "%s in '%s'", absent[i],
                  result.out);
  }
  const char* keys[] = {"dt", "t_end", "wall", "rtf", "energy_drift", "energy_drift_rel"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    ck_assert_msg(summary_value(result.out, keys[i], v, sizeof v)[0], "no %s in '%s'", keys[i],
                  result.out);
  }
  ck_assert_str_eq(result.err, "");  // --quiet

  static char text[OUT_MAX];
  slurp(csv, text);
  ck_assert_int_eq(count_lines(text), 1 + 101);
  ck_assert(strncmp(text, "time[s],z:", 10) == 0);
  // first and last times
  const char* row1 = strchr(text, '\n') + 1;
  ck_assert_double_eq(strtod(row1, NULL), 0.0);
  const char* last = text + strlen(text) - 2;
  while (last > text && *last != '\n') last--;
  ck_assert_double_eq_tol(strtod(last + 1, NULL), 0.1, 1e-12);
  remove(csv);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(output_choices) {
  make_tmp_dir("hydyn_cli");
  char v[256];
  // Default file name, in the current directory; --every keeps t = 0 and the last step.
  run_hydyn((const char*[]){"run", "double-pendulum", "--t-end", "0.1", "--dt", "0.001", "--every",
                            "30", "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ck_assert_str_eq(summary_value(result.out, "csv", v, sizeof v), "double-pendulum.csv");
  static char text[OUT_MAX];
  char path[128];
  snprintf(path, sizeof path, "%s/double-pendulum.csv", tmp_dir);
  slurp(path, text);
  ck_assert_int_eq(count_lines(text), 1 + 5);  // steps 0, 30, 60, 90, 100
  remove(path);

  // CSV on stdout: the summary moves to stderr.
  run_hydyn((const char*[]){"run", "double-pendulum", "--t-end=0.01", "--dt=0.001", "--out", "-",
                            "--quiet", NULL},
            NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ck_assert(strncmp(result.out, "time[s],", 8) == 0);
  ck_assert_int_eq(count_lines(result.out), 1 + 11);
  ck_assert_str_eq(summary_value(result.err, "csv", v, sizeof v), "-");
  ck_assert_str_eq(summary_value(result.err, "steps", v, sizeof v), "10");

  // --no-out: no file at all.
  run_hydyn((const char*[]){"run", "double-pendulum", "--t-end", "0.01", "--dt", "0.001",
                            "--no-out", "--quiet", NULL},
            NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ck_assert_str_eq(summary_value(result.out, "csv", v, sizeof v), "none");
  ck_assert_int_ne(access(path, F_OK), 0);

  // Every integrator runs.
  const char* integ[] = {"euler", "semi-euler", "rk4"};
  for (int i = 0; i < 3; i++) {
    run_hydyn((const char*[]){"run", "double-pendulum", "--t-end", "0.01", "--integrator", integ[i],
                              "--no-out", "--quiet", NULL},
              NULL, &result);
    ck_assert_int_eq(result.status, 0);
    ck_assert_str_eq(summary_value(result.out, "integrator", v, sizeof v), integ[i]);
  }
  rmdir(tmp_dir);
}
END_TEST

START_TEST(failed_run_keeps_rows) {
  // Forward Euler with a 1 s step overflows a pendulum within a few dozen steps: hy_step fails,
  // the command reports where and exits 1, and the rows before the failure stay in the file.
  make_tmp_dir("hydyn_cli");
  char csv[128];
  snprintf(csv, sizeof csv, "%s/blow.csv", tmp_dir);
  run_hydyn((const char*[]){"run", "double-pendulum", "--integrator", "euler", "--dt", "1",
                            "--t-end", "1000", "--out", csv, NULL},
            NULL, &result);
  ck_assert_msg(result.status == 1, "status %d, stderr:\n%s", result.status, result.err);
  ASSERT_HAS(result.err, "blow.csv holds the rows up to t = 11 s (step 11)\n");
  // the kinetic energy at t = 12 s overflows first: that row is refused, not written as inf
  ASSERT_HAS(result.err, "blow.csv' failed at t = 12 s: E_kin is not finite");
  ck_assert_ptr_null(strstr(result.out, "summary:"));
  static char text[OUT_MAX];
  slurp(csv, text);
  ck_assert(strncmp(text, "time[s],", 8) == 0);
  ck_assert_int_ge(count_lines(text), 1 + 2);
  ck_assert_int_lt(count_lines(text), 1 + 1000);
  remove(csv);
  // without a CSV, the next step meets the infinite state; the message names the step
  run_hydyn((const char*[]){"run", "double-pendulum", "--integrator", "euler", "--dt", "1",
                            "--t-end", "1000", "--no-out", "--quiet", NULL},
            NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err,
             "step 13 failed at t = 12 s: non-finite value in the state after the "
             "step t = 12 -> 13 s (HY_ERR_NAN)");
  rmdir(tmp_dir);
}
END_TEST

START_TEST(unwritable_csv_exits_1) {
  make_tmp_dir("hydyn_cli");
  run_hydyn((const char*[]){"run", "double-pendulum", "--t-end", "0.01", "--out",
                            "/nonexistent-dir-hydyn/x.csv", "--quiet", NULL},
            NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "/nonexistent-dir-hydyn/x.csv");
  rmdir(tmp_dir);
}
END_TEST

//----- closed loops --------------------------------------------------------------------------

// The header line of a CSV text (without its line break) into buf.
static const char* header_of(const char* text, char* buf, size_t size) {
  size_t n = strcspn(text, "\n");
  if (n >= size) n = size - 1;
  memcpy(buf, text, n);
  buf[n] = '\0';
  return buf;
}

static int ends_with(const char* s, const char* tail) {
  size_t ns = strlen(s), nt = strlen(tail);
  return ns >= nt && strcmp(s + ns - nt, tail) == 0;
}

START_TEST(double_step_run) {
  make_tmp_dir("hydyn_cli");
  char csv[128];
  snprintf(csv, sizeof csv, "%s/fb.csv", tmp_dir);
  run_hydyn((const char*[]){"run", "four-bar-a-released", "--t-end", "0.5", "--formulation",
                            "double-step", "--out", csv, "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "status %d, stderr:\n%s", result.status, result.err);
  ck_assert_int_eq(count_lines(result.out), 1);
  char v[256];
  ck_assert_str_eq(summary_value(result.out, "formulation", v, sizeof v), "double-step");
  ck_assert_str_eq(summary_value(result.out, "integrator", v, sizeof v), "trapezoidal");
  ck_assert_str_eq(summary_value(result.out, "steps", v, sizeof v), "500");
  ck_assert_double_ge(strtod(summary_value(result.out, "iter_mean", v, sizeof v), NULL), 1.0);
  ck_assert_int_ge(atoi(summary_value(result.out, "iter_max", v, sizeof v)), 1);
  ck_assert_int_ge(atoi(summary_value(result.out, "partitions", v, sizeof v)), 1);
  summary_value(result.out, "violation_max", v, sizeof v);
  ck_assert_msg(v[0] && strtod(v, NULL) < 1e-9, "violation_max '%s' in '%s'", v, result.out);
  // the released four-bar falls: the drift is also quoted against the energy set free
  ck_assert_msg(summary_value(result.out, "energy_drift_pct_pot", v, sizeof v)[0], "in '%s'",
                result.out);

  static char text[OUT_MAX];
  char head[1024];
  slurp(csv, text);
  ck_assert_int_eq(count_lines(text), 1 + 501);
  header_of(text, head, sizeof head);
  ck_assert_msg(ends_with(head, ",E_total[J],violation[m],iter,residual,step_wall[s]"), "header %s",
                head);
  remove(csv);
  rmdir(tmp_dir);
}
END_TEST

// Chaplygin's sleigh (one knife edge, no loops): the default CSV has the violation_nh column
// where closed loops have violation, the rate of each constraint comes on request, and the
// summary quotes the largest violation; violation_max (loops) is left out.
START_TEST(nonholonomic_run) {
  make_tmp_dir("hydyn_cli");
  char csv[128];
  snprintf(csv, sizeof csv, "%s/sleigh.csv", tmp_dir);
  const char* model = HY_SOURCE_DIR "/tests/data/sleigh.yaml";
  run_hydyn((const char*[]){"run", model, "--t-end", "0.1", "--out", csv, "--quiet", NULL}, NULL,
            &result);
  ck_assert_msg(result.status == 0, "status %d, stderr:\n%s", result.status, result.err);
  char v[256];
  ck_assert_str_eq(summary_value(result.out, "steps", v, sizeof v), "100");
  summary_value(result.out, "nh_violation_max", v, sizeof v);
  ck_assert_msg(v[0] && strtod(v, NULL) < 1e-9, "nh_violation_max '%s' in '%s'", v, result.out);
  ASSERT_HAS(result.out, " nh_violation_max=");
  ASSERT_HAS(result.out, " m/s energy_drift=");  // the unit token follows the value
  ck_assert_msg(!summary_value(result.out, "violation_max", v, sizeof v)[0], "%s", result.out);

  static char text[OUT_MAX];
  char head[1024];
  slurp(csv, text);
  ck_assert_int_eq(count_lines(text), 1 + 101);
  header_of(text, head, sizeof head);
  ck_assert_msg(ends_with(head, ",E_total[J],violation_nh[m/s],iter,residual,step_wall[s]"),
                "header %s", head);
  ck_assert_msg(!strstr(head, "nh:blade"), "header %s", head);  // on request only
  ck_assert_msg(!strstr(head, "violation[m]"), "header %s", head);

  // on request: the constraint's rate B zd, whose magnitude is violation_nh (one constraint)
  run_hydyn((const char*[]){"run", model, "--t-end", "0.1", "--out", csv, "--quiet", "--channels",
                            "violation_nh,nh:*", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "status %d, stderr:\n%s", result.status, result.err);
  slurp(csv, text);
  header_of(text, head, sizeof head);
  ck_assert_str_eq(head, "time[s],violation_nh[m/s],nh:blade[m/s]");
  int rows = 0;
  for (const char* row = strchr(text, '\n'); row && row[1]; row = strchr(row + 1, '\n')) {
    char* end;
    strtod(row + 1, &end);
    const double viol = strtod(end + 1, &end);
    const double rate = strtod(end + 1, &end);
    ck_assert_double_eq(viol, fabs(rate));
    ck_assert_double_lt(viol, 1e-9);
    rows++;
  }
  ck_assert_int_eq(rows, 101);

  // the channel list marks violation_nh as default and nh:blade as on request
  run_hydyn((const char*[]){"channels", model, NULL}, NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  regex_t re;
  ck_assert_int_eq(regcomp(&re, "\n\\* violation_nh +m/s +largest \\|B zd\\|", REG_EXTENDED), 0);
  ck_assert_msg(regexec(&re, result.out, 0, NULL, 0) == 0, "%s", result.out);
  regfree(&re);
  ck_assert_int_eq(regcomp(&re, "\n  nh:blade +m/s +velocity of the knife edge", REG_EXTENDED), 0);
  ck_assert_msg(regexec(&re, result.out, 0, NULL, 0) == 0, "%s", result.out);
  regfree(&re);
  remove(csv);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(penalty_options) {
  make_tmp_dir("hydyn_cli");
  char v[256];
  // the model's default formulation for a closed loop
  run_hydyn(
      (const char*[]){"run", "four-bar-a-released", "--t-end", "0.05", "--no-out", "--quiet", NULL},
      NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ck_assert_str_eq(summary_value(result.out, "formulation", v, sizeof v), "penalty");
  ck_assert_str_eq(summary_value(result.out, "integrator", v, sizeof v), "trapezoidal");
  ck_assert_msg(summary_value(result.out, "violation_max", v, sizeof v)[0], "%s", result.out);
  ck_assert_msg(!summary_value(result.out, "partitions", v, sizeof v)[0], "%s", result.out);

  // finite-difference tangent, and the Newton settings
  const char* const variants[][8] = {
      {"--tangent", "fd", NULL},
      {"--penalty", "1e10", "--tol=1e-9", "--max-iter", "40", NULL},
      {"--formulation=double-step", "--tangent=fd", NULL},
  };
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
    const char* args[16] = {"run", "four-bar-a-released", "--t-end", "0.05", "--no-out", "--quiet"};
    for (int k = 0; variants[i][k]; k++) args[6 + k] = variants[i][k];
    run_hydyn(args, NULL, &result);
    ck_assert_msg(result.status == 0, "variant %zu: status %d, stderr:\n%s", i, result.status,
                  result.err);
    ck_assert_str_eq(summary_value(result.out, "steps", v, sizeof v), "50");
  }

  // an open tree may also run with the trapezoidal rule
  run_hydyn((const char*[]){"run", "double-pendulum", "--t-end", "0.05", "--formulation", "penalty",
                            "--no-out", "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ck_assert_str_eq(summary_value(result.out, "integrator", v, sizeof v), "trapezoidal");
  ck_assert_msg(!summary_value(result.out, "violation_max", v, sizeof v)[0], "%s", result.out);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(held_model_notes_and_columns) {
  make_tmp_dir("hydyn_cli");
  char csv[128];
  snprintf(csv, sizeof csv, "%s/held.csv", tmp_dir);
  run_hydyn((const char*[]){"run", "four-bar-a-held", "--t-end", "0.01", "--out", csv, NULL}, NULL,
            &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  // seed 000 Sect. 5: F_s0 = 11029.38 N
  ASSERT_HAS(result.err,
             "note: force 'cylinder' holds the initial configuration with 11029.38 N (push)\n");
  char v[256];
  // held: nothing falls, so no percentage of released energy
  ck_assert_msg(!summary_value(result.out, "energy_drift_pct_pot", v, sizeof v)[0], "%s",
                result.out);
  static char text[OUT_MAX];
  char head[1024];
  slurp(csv, text);
  header_of(text, head, sizeof head);
  ck_assert_msg(ends_with(head,
                          ",E_total[J],violation[m],iter,F:cylinder[N],len:cylinder[m],residual,"
                          "step_wall[s]"),
                "header %s", head);
  ck_assert_int_eq(count_lines(text), 1 + 11);
  remove(csv);

  // The quick-return's z0 are rounded: closing its loop moves them, and its cylinder pulls.
  run_hydyn((const char*[]){"run", "quick-return-held", "--t-end", "0.01", "--no-out", NULL}, NULL,
            &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ASSERT_HAS(result.err, "note: closing the loops moved the coordinates by up to ");
  ASSERT_HAS(result.err, "N (pull)\n");

  // --quiet silences the notes
  run_hydyn(
      (const char*[]){"run", "four-bar-a-held", "--t-end", "0.01", "--no-out", "--quiet", NULL},
      NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ck_assert_str_eq(result.err, "");
  rmdir(tmp_dir);
}
END_TEST

START_TEST(redundant_equations_note) {
  // four-bar-a-released in 3-D: the revolute cut joint's 5 equations on an in-plane mechanism,
  // 3 of which hold whatever the coordinates (rank 2)
  make_tmp_dir("hydyn_cli");
  static char text[OUT_MAX];
  slurp(HY_SOURCE_DIR "/models/four-bar-a-released.yaml", text);
  ck_assert(text[0]);
  char path[128];
  snprintf(path, sizeof path, "%s/fb3d.yaml", tmp_dir);
  FILE* fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fputs("\nplanar: false\n", fp);
  fclose(fp);
  run_hydyn((const char*[]){"run", path, "--t-end", "0.01", "--no-out", NULL}, NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ASSERT_HAS(result.err,
             "note: 3 of the 5 loop-closure equations are redundant (Jacobian rank 2 at t = 0)\n");
  remove(path);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(tree_refused_for_loops) {
  make_tmp_dir("hydyn_cli");
  run_hydyn((const char*[]){"run", "four-bar-a-held", "--formulation", "tree", NULL}, NULL,
            &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err,
             "formulation tree cannot run model 'four-bar-a-held': it has 1 cut "
             "joint (closed loops); use penalty or double-step");
  ck_assert_ptr_null(strstr(result.out, "summary:"));
  char path[128];
  snprintf(path, sizeof path, "%s/four-bar-a-held.csv", tmp_dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  // an explicit integrator with a formulation that has no ODE right-hand side
  run_hydyn((const char*[]){"run", "four-bar-a-held", "--integrator", "rk4", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err,
             "formulation penalty has no ODE right-hand side for the explicit "
             "integrator rk4");
  rmdir(tmp_dir);
}
END_TEST

START_TEST(static_residual_note) {
  // released four-bar: gravity is unbalanced at t = 0, which the note quantifies
  make_tmp_dir("hydyn_cli");
  run_hydyn((const char*[]){"run", "four-bar-a-released", "--t-end", "0.01", "--no-out", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ASSERT_HAS(result.err,
             "note: the initial state is not a static equilibrium: largest unbalanced generalized "
             "force ");
  ASSERT_HAS(result.err, " N or N m\n");
  // held by its computed equilibrium force (an actuator, a cylinder): no such note
  const char* held[] = {"four-bar-a-held", "four-bar-a"};
  for (int i = 0; i < 2; i++) {
    run_hydyn((const char*[]){"run", held[i], "--t-end", "0.01", "--no-out", NULL}, NULL, &result);
    ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
    ck_assert_msg(!strstr(result.err, "not a static equilibrium"), "%s:\n%s", held[i], result.err);
  }
  // --tol-p on a model without pressures does nothing, and says so
  run_hydyn((const char*[]){"run", "four-bar-a-held", "--t-end", "0.01", "--tol-p", "1", "--no-out",
                            NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ASSERT_HAS(result.err, "note: --tol-p has no effect");
  // the options of the Newton iteration and its step control do nothing under an explicit
  // integrator, and each one given says so
  run_hydyn((const char*[]){"run", "double-pendulum", "--t-end", "0.01", "--tol", "1e-9",
                            "--max-cuts", "3", "--error-tol-p", "5", "--no-out", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ASSERT_HAS(result.err, "note: --tol has no effect with the rk4 integrator");
  ASSERT_HAS(result.err, "note: --max-cuts has no effect with the rk4 integrator");
  ASSERT_HAS(result.err, "note: --error-tol-p has no effect with the rk4 integrator");
  ck_assert_ptr_null(strstr(result.err, "--penalty"));
  rmdir(tmp_dir);
}
END_TEST

//----- hydraulics ----------------------------------------------------------------------------

// Index of the column named `name` in a CSV header line, or -1.
static int csv_column(const char* head, const char* name) {
  int col = 0;
  const size_t n = strlen(name);
  for (const char* p = head; *p && *p != '\n'; col++) {
    const size_t len = strcspn(p, ",\n");
    if (len == n && strncmp(p, name, n) == 0) return col;
    p += len;
    if (*p == ',') p++;
  }
  return -1;
}

// Field `col` of a CSV row, as a number.
static double csv_field(const char* row, int col) {
  const char* p = row;
  for (int k = 0; k < col; k++) {
    p = strchr(p, ',');
    ck_assert_ptr_nonnull(p);
    p++;
  }
  return strtod(p, NULL);
}

// The value after "<name> = " in a note line, in MPa (the "initial pressures" note).
static double note_pressure(const char* err, const char* name) {
  const char* line = strstr(err, "note: initial pressures: ");
  ck_assert_ptr_nonnull(line);
  char pat[64];
  snprintf(pat, sizeof pat, " %s = ", name);
  const char* p = strstr(line, pat);
  ck_assert_msg(p && p < strchr(line, '\n'), "no %s in %s", name, line);
  return strtod(p + strlen(pat), NULL);
}

START_TEST(hydraulic_run) {
  make_tmp_dir("hydyn_cli");
  char csv[128];
  snprintf(csv, sizeof csv, "%s/fba.csv", tmp_dir);
  // the valve opens at 1 s (+10 V, seed 000 Eq. 46) and lifts the four-bar until 2.5 s
  run_hydyn(
      (const char*[]){"run", "four-bar-a", "--t-end", "1.5", "--every", "10", "--out", csv, NULL},
      NULL, &result);
  ck_assert_msg(result.status == 0, "status %d, stderr:\n%s", result.status, result.err);
  // notes: the pressures (V3 given, V2 from the cylinder's equilibrium, V1 through the
  // throttle), and the cylinder's equilibrium force F_s0 = 11029.38 N (seed 000 Sect. 5)
  ASSERT_HAS(result.err, "note: initial pressures: V1 = ");
  ASSERT_HAS(result.err, " MPa, V3 = 3.5 MPa\n");  // p3(0) of seed 000 Sect. 5
  ck_assert_double_eq(note_pressure(result.err, "V1"), note_pressure(result.err, "V2"));
  ASSERT_HAS(result.err,
             "note: cylinder 'cylinder' holds the initial configuration with 11029.38 N (push)");
  ck_assert_msg(!strstr(result.err, "not a static equilibrium"), "%s", result.err);

  char v[256];
  ck_assert_str_eq(summary_value(result.out, "steps", v, sizeof v), "1500");
  const double work = strtod(summary_value(result.out, "work_act_max", v, sizeof v), NULL);
  ck_assert_msg(work > 100 && work < 1e4, "work_act_max '%s' in %s", v, result.out);
  ASSERT_HAS(result.out, " work_act_max=");
  ASSERT_HAS(result.out, " J energy_drift_pct_work=");
  const double pct = strtod(summary_value(result.out, "energy_drift_pct_work", v, sizeof v), NULL);
  const double drift = strtod(summary_value(result.out, "energy_drift", v, sizeof v), NULL);
  ck_assert_double_eq_tol(pct, 100 * drift / work, 0.01 * pct);
  ck_assert_double_lt(pct, 0.1);  // the trapezoidal rule conserves energy to a small share
  ck_assert_msg(summary_value(result.out, "diss_visc", v, sizeof v)[0], "%s", result.out);
  ck_assert_double_ge(strtod(v, NULL), 0.0);
  ck_assert_msg(summary_value(result.out, "work_damp", v, sizeof v)[0], "%s", result.out);
  // driven by a cylinder: the drift is quoted against the actuator work, not the potential
  ck_assert_msg(!summary_value(result.out, "energy_drift_pct_pot", v, sizeof v)[0], "%s",
                result.out);

  static char text[OUT_MAX];
  slurp(csv, text);
  ck_assert_int_eq(count_lines(text), 1 + 151);
  const int c_time = csv_column(text, "time[s]"), c_p1 = csv_column(text, "p:V1[Pa]");
  const int c_p2 = csv_column(text, "p:V2[Pa]"), c_p3 = csv_column(text, "p:V3[Pa]");
  const int c_u = csv_column(text, "U:dcv[V]"), c_f = csv_column(text, "F_hyd:cylinder[N]");
  const int c_la = csv_column(text, "len_a:cylinder[m]");
  const int c_lb = csv_column(text, "len_b:cylinder[m]"), c_w = csv_column(text, "W_act[J]");
  const int c_dv = csv_column(text, "D_visc[J]"), c_wd = csv_column(text, "W_damp[J]");
  ck_assert_int_eq(c_time, 0);
  // existing columns first, hydraulics after len:, in the documented order
  ck_assert_int_gt(c_p1, csv_column(text, "len:cylinder[m]"));
  const int order[] = {c_p1, c_p2, c_p3, c_u, c_f, c_la, c_lb, c_w, c_dv, c_wd};
  for (int i = 1; i < 10; i++) ck_assert_int_eq(order[i], order[i - 1] + 1);
  const char* row0 = strchr(text, '\n') + 1;
  ck_assert_double_eq(csv_field(row0, c_time), 0.0);
  // the CSV at t = 0 holds what the note said (the note has 5 digits)
  const char* names[3] = {"V1", "V2", "V3"};
  const int cols[3] = {c_p1, c_p2, c_p3};
  for (int i = 0; i < 3; i++) {
    const double p = csv_field(row0, cols[i]);
    ck_assert_double_eq_tol(1e-6 * p, note_pressure(result.err, names[i]), 1e-4 * 1e-6 * p);
  }
  ck_assert_double_eq_tol(csv_field(row0, c_f), 11029.38, 0.01);
  ck_assert_double_eq(csv_field(row0, c_w), 0.0);
  // the last row (t = 1.5 s): spool open, cylinder extended, and its W_act the run's largest
  const char* last = text + strlen(text) - 2;
  while (last > text && *last != '\n') last--;
  last++;
  ck_assert_double_eq_tol(csv_field(last, c_time), 1.5, 1e-9);
  ck_assert_double_gt(csv_field(last, c_u), 9.9);
  ck_assert_double_gt(csv_field(last, c_la), csv_field(row0, c_la));
  ck_assert_double_eq_tol(csv_field(last, c_la) + csv_field(last, c_lb), 1.2, 1e-12);
  ck_assert_double_eq_tol(csv_field(last, c_w), work, 1e-3 * work);
  remove(csv);

  // the Newton tolerance on pressures is checked like the others
  run_hydyn((const char*[]){"run", "four-bar-a", "--tol-p", "-1", "--no-out", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "--tol-p");
  ck_assert_ptr_null(strstr(result.out, "summary:"));
  // and accepted when positive: a tighter one costs iterations, not the result
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "1.1", "--tol-p=1e-4", "--no-out",
                            "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "stderr:\n%s", result.err);
  ck_assert_str_eq(result.err, "");
  rmdir(tmp_dir);
}
END_TEST

// Time of the last row of a CSV file and its number of lines (streamed: the file is larger than
// the capture buffers).
static double csv_last_time(const char* path, int* nlines) {
  FILE* fp = fopen(path, "r");
  ck_assert_ptr_nonnull(fp);
  static char line[1 << 14];
  double t = NAN;
  *nlines = 0;
  while (fgets(line, sizeof line, fp)) {
    if (*nlines > 0) t = strtod(line, NULL);
    ++*nlines;
  }
  fclose(fp);
  return t;
}

START_TEST(newton_failure_keeps_rows) {
  // One Newton iteration per step is enough while four-bar-a rests (the first correction is
  // below the tolerances), but not when the valve's reference jumps to +10 V at t = 1 s: the
  // step 0.999 -> 1 s fails. --tol-p 1e-3 Pa keeps the pressures' own noise at rest below the
  // tolerance: round-off of some 1e-9 Pa on 5 MPa, and with the penalty formulation's
  // extrapolated multipliers up to some 2e-5 Pa by t = 1 s; a tolerance below that noise fails
  // before the valve opens (so it would test nothing about the valve).
  make_tmp_dir("hydyn_cli");
  char csv[128];
  snprintf(csv, sizeof csv, "%s/fail.csv", tmp_dir);
  run_hydyn((const char*[]){"run", "four-bar-a", "--max-iter", "1", "--tol-p", "1e-3", "--t-end",
                            "2", "--strict-steps", "--out", csv, NULL},
            NULL, &result);
  ck_assert_msg(result.status == 1, "status %d, stderr:\n%s", result.status, result.err);
  ck_assert_ptr_null(strstr(result.out, "summary:"));
  // where it failed, with the residuals of both kinds of rows and the worst unknown
  ASSERT_HAS(result.err, "failed at t = 0.999 s");
  ASSERT_HAS(result.err, "mechanical rows");
  ASSERT_HAS(result.err, "pressure rows");
  ck_assert_msg(strstr(result.err, "on pressure '") || strstr(result.err, "on coordinate '"),
                "no unknown named in:\n%s", result.err);
  ASSERT_HAS(result.err, "HY_NEWTON_NOCONV");
  ASSERT_HAS(result.err, " holds the rows up to t = 0.999 s (step 999)\n");
  // every converged step is in the file: t = 0 ... 0.999 s
  int nlines = 0;
  const double t_last = csv_last_time(csv, &nlines);
  ck_assert_int_eq(nlines, 1 + 1000);
  ck_assert_double_ge(t_last, 0.99);
  ck_assert_double_lt(t_last, 1.0);
  remove(csv);
  rmdir(tmp_dir);
}
END_TEST

// The options of the architecture issue: a step longer than the run is refused (status 2, before
// anything is written), the memory limit refuses with the estimate (status 1), cut steps and
// error control show in the summary, strict steps end a run that cuts would save, and the model
// families run by name and are listed.
START_TEST(steps_memory_and_families) {
  make_tmp_dir("hydyn_cli");
  char v[64];
  run_hydyn((const char*[]){"run", "double-pendulum", "--dt", "20", "--t-end", "10", NULL}, NULL,
            &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "the step dt = 20 s is longer than the run, t_end = 10 s");
  char path[128];
  snprintf(path, sizeof path, "%s/double-pendulum.csv", tmp_dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  run_hydyn((const char*[]){"run", "quick-return", "--max-memory", "1000", "--no-out", NULL}, NULL,
            &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "would need");
  ASSERT_HAS(result.err, "more than the limit of 1 kB");
  const char* const bad[][3] = {{"--error-control", "fast", NULL}, {"--max-cuts", "41", NULL},
                                {"--max-cuts", "-1", NULL},        {"--error-tol", "0", NULL},
                                {"--error-tol-p", "x", NULL},      {"--max-memory", "-5", NULL}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char* args[8] = {"run", "loop-4", bad[i][0], bad[i][1], NULL};
    run_hydyn(args, NULL, &result);
    ck_assert_msg(result.status == 2, "%s %s: status %d", bad[i][0], bad[i][1], result.status);
  }
  // loop-64 fails at t = 2.149 s with strict steps of 1 ms; cut steps get through
  run_hydyn((const char*[]){"run", "loop-64", "--t-end", "2.2", "--strict-steps", "--no-out", NULL},
            NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "step 2150 failed at t = 2.149 s");
  run_hydyn((const char*[]){"run", "loop-64", "--t-end", "2.2", "--no-out", "--quiet", NULL}, NULL,
            &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  ck_assert_int_gt(atoi(summary_value(result.out, "cuts", v, sizeof v)), 0);
  ck_assert_str_eq(summary_value(result.out, "steps", v, sizeof v), "2200");
  // error control: the steps follow the local error, the results the recording times
  char csv[128];
  snprintf(csv, sizeof csv, "%s/ec.csv", tmp_dir);
  run_hydyn((const char*[]){"run", "loop-16", "--t-end", "0.5", "--dt", "0.01", "--error-control",
                            "predictor", "--error-tol", "1e-6", "--out", csv, "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  ck_assert_str_eq(summary_value(result.out, "steps", v, sizeof v), "50");
  ck_assert_int_gt(atoi(summary_value(result.out, "substeps", v, sizeof v)), 50);
  FILE* f = fopen(csv, "r");
  ck_assert_ptr_nonnull(f);
  static char line[1 << 14];
  int rows = 0;
  while (fgets(line, sizeof line, f)) {
    if (rows > 0) ck_assert_double_eq_tol(strtod(line, NULL), 0.01 * (rows - 1), 1e-12);
    rows++;
  }
  fclose(f);
  ck_assert_int_eq(rows, 52);
  remove(csv);
  // the families by name, and in the list (on standard error, after the model files' names)
  run_hydyn((const char*[]){"run", "hdca-case1", "--t-end", "0.01", "--no-out", NULL}, NULL,
            &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  ASSERT_HAS(result.err, "note: the model has closed loops: formulation penalty");
  run_hydyn((const char*[]){"run", "loop-1", "--no-out", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "loop-N takes N = 2..");
  ck_assert_ptr_null(strstr(result.err, "neither a file nor"));
  run_hydyn((const char*[]){"models", NULL}, NULL, &result);
  ASSERT_HAS(result.err, "loop-N");
  ASSERT_HAS(result.err, "hdca-case3");
  rmdir(tmp_dir);
}
END_TEST

Suite* cli_suite(void) {
  Suite* s = suite_create("cli");
  TCase* tc = tcase_create("command");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, help_mentions_everything);
  tcase_add_test(tc, models_lists_builtins);
  tcase_add_test(tc, bad_arguments_exit_2);
  tcase_add_test(tc, unknown_model_lists_builtins);
  tcase_add_test(tc, malformed_model_has_position);
  tcase_add_test(tc, short_run_writes_csv_and_summary);
  tcase_add_test(tc, output_choices);
  tcase_add_test(tc, failed_run_keeps_rows);
  tcase_add_test(tc, unwritable_csv_exits_1);
  tcase_add_test(tc, double_step_run);
  tcase_add_test(tc, penalty_options);
  tcase_add_test(tc, nonholonomic_run);
  tcase_add_test(tc, held_model_notes_and_columns);
  tcase_add_test(tc, redundant_equations_note);
  tcase_add_test(tc, tree_refused_for_loops);
  tcase_add_test(tc, steps_memory_and_families);
  tcase_add_test(tc, static_residual_note);
  tcase_add_test(tc, hydraulic_run);
  tcase_add_test(tc, newton_failure_keeps_rows);
  suite_add_tcase(s, tc);
  return s;
}
