// What `hydyn run` does with its results: channel selection, HDF5 beside CSV, and nothing lost
// or damaged when a run stops early (SIGTERM), when --out names the model, when two runs write
// one file, when the output would be huge, when standard output cannot be written.
#define _POSIX_C_SOURCE 200809L  // kill, nanosleep

#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_harness.h"
#include "fixture.h"
#include "io/io.h"

static cmd_result result, second;
static char cmd_rm[256];

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

// Lines of a file (0 when it cannot be read).
static long file_lines(const char* path) {
  FILE* fp = fopen(path, "rb");
  if (!fp) return 0;
  long n = 0;
  int c;
  while ((c = fgetc(fp)) != EOF) n += c == '\n';
  fclose(fp);
  return n;
}

// Waits (up to 20 s) until path has at least `lines` lines: the run is well under way.
static void wait_for_lines(const char* path, long lines) {
  for (int k = 0; k < 2000 && file_lines(path) < lines; k++) sleep_ms(10);
  ck_assert_int_ge(file_lines(path), lines);
}

// The time after "stopped by SIG... at t = " in the command's message.
static double stopped_time(const char* err) {
  const char* at = strstr(err, " at t = ");
  ck_assert_msg(at != NULL, "no stop time in:\n%s", err);
  return strtod(at + 8, NULL);
}

static hy_results* read_results(const char* path) {
  hy_results* r = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_msg(hy_results_read(path, &r, &err) == HY_OK, "%s: %s", path, err.msg);
  return r;
}

START_TEST(channels_select_in_the_order_given) {
  make_tmp_dir("hydyn_res");
  char csv[128];
  tmp_path(csv, sizeof csv, "sel.csv");
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "0.01", "--quiet", "--out", csv,
                            "--channels", "p:V?,z:*,Q_PA:*,p:V1", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  static char text[OUT_MAX];
  slurp(csv, text);
  // time first, then each pattern's matches in model order, each channel once
  ck_assert_msg(strncmp(text,
                        "time[s],p:V1[Pa],p:V2[Pa],p:V3[Pa],z:O[rad],z:C[rad],z:D[rad],"
                        "Q_PA:dcv[m^3/s]\n",
                        strlen("time[s],p:V1[Pa],p:V2[Pa],p:V3[Pa],z:O[rad],z:C[rad],z:D[rad],"
                               "Q_PA:dcv[m^3/s]\n")) == 0,
                "%.300s", text);
  // a pattern that matches nothing is a usage error naming it, and no file is written
  char none[128];
  tmp_path(none, sizeof none, "none.csv");
  run_hydyn((const char*[]){"run", "four-bar-a", "--quiet", "--out", none, "--channels",
                            "p:*,pressure", NULL},
            NULL, &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "no channel matches 'pressure'");
  ASSERT_HAS(result.err, "p:*");
  ck_assert_int_ne(access(none, F_OK), 0);
  // hydyn channels lists the same names, the default ones marked
  run_hydyn((const char*[]){"channels", "four-bar-a", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ASSERT_HAS(result.out, "* p:V1");
  ASSERT_HAS(result.out, "  Q_PA:dcv");
  ASSERT_HAS(result.out, "m^3/s");
  run_hydyn((const char*[]){"channels", "four-bar-a", "--names", "--channels", "E_*", NULL},
            NULL, &result);
  ck_assert_str_eq(result.out, "time\nE_kin\nE_pot\nE_total\n");
  remove(csv);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(hdf5_and_csv_hold_the_same_numbers) {
  make_tmp_dir("hydyn_res");
  char csv[128], h5[128];
  tmp_path(csv, sizeof csv, "run.csv");
  tmp_path(h5, sizeof h5, "run.h5");
  const char* sel = "default,Q*,body_x:*";
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "0.3", "--quiet", "--out", csv,
                            "--channels", sel, NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "0.3", "--quiet", "--out", h5,
                            "--channels", sel, NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  ASSERT_HAS(result.out, "hdf5=");
  hy_results* a = read_results(csv);
  hy_results* b = read_results(h5);
  ck_assert_int_eq(a->nchan, b->nchan);
  ck_assert_int_eq(a->nrow, b->nrow);
  ck_assert_int_eq(a->nrow, 301);
  for (int c = 0; c < a->nchan; c++) {
    ck_assert_str_eq(a->name[c], b->name[c]);
    ck_assert_str_eq(a->unit[c], b->unit[c]);
    if (strcmp(a->name[c], "step_wall") == 0) continue;  // wall time differs between runs
    const double* x = hy_results_column(a, c);
    const double* y = hy_results_column(b, c);
    for (long r = 0; r < a->nrow; r++) {
      ck_assert_msg(x[r] == y[r], "%s row %ld: %.17g vs %.17g", a->name[c], r, x[r], y[r]);
    }
  }
  // the HDF5 file carries the model's text and the settings
  ck_assert_ptr_nonnull(b->model_text);
  ck_assert_ptr_nonnull(strstr(b->model_text, "cylinder"));
  ck_assert_ptr_nonnull(b->settings);
  ck_assert_ptr_nonnull(strstr(b->settings, "formulation=penalty"));
  ck_assert_ptr_nonnull(b->summary);
  ck_assert_ptr_nonnull(strstr(b->summary, "steps=300"));
  hy_results_free(a);
  hy_results_free(b);
  remove(csv);
  remove(h5);
  rmdir(tmp_dir);
}
END_TEST

// SIGTERM midway: the command says when it stopped and exits 143; the file is valid and ends
// with the row of the last step it finished.
static void stop_midway(const char* name) {
  make_tmp_dir("hydyn_res");
  char out[128];
  tmp_path(out, sizeof out, name);
  const int pid = start_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "1e6", "--quiet",
                                              "--out", out, NULL},
                              NULL, "");
  // the CSV grows as the run goes; the HDF5 file is flushed every HY_RESULTS_FLUSH_ROWS rows
  if (hy_results_format_of(out) == HY_RESULTS_CSV) {
    wait_for_lines(out, 3000);
  } else {
    sleep_ms(400);
  }
  ck_assert_int_eq(kill(pid, SIGTERM), 0);
  finish_hydyn(pid, "", &result);
  ck_assert_msg(result.status == 128 + SIGTERM, "status %d:\n%s", result.status, result.err);
  ASSERT_HAS(result.err, "stopped by SIGTERM");
  const double t_stop = stopped_time(result.err);
  ASSERT_HAS(result.out, "stopped_at=");
  hy_results* r = read_results(out);
  ck_assert_int_gt(r->nrow, 100);
  const double* t = hy_results_column(r, 0);
  // every step recorded, up to the one the run stopped after
  ck_assert_double_eq_tol(t[r->nrow - 1], t_stop, 1e-9 * fmax(1, t_stop));
  ck_assert_double_eq_tol(t[r->nrow - 1], (double)(r->nrow - 1) * 1e-3, 1e-9 * t_stop);
  for (int c = 1; c < r->nchan; c++) {
    ck_assert(isfinite(hy_results_column(r, c)[r->nrow - 1]));
  }
  hy_results_free(r);
  remove(out);
  rmdir(tmp_dir);
}

START_TEST(sigterm_leaves_a_whole_csv) { stop_midway("stop.csv"); }
END_TEST

START_TEST(sigterm_leaves_a_whole_hdf5) { stop_midway("stop.h5"); }
END_TEST

START_TEST(out_may_not_be_the_model) {
  make_tmp_dir("hydyn_res");
  char model[128], text[OUT_MAX], before[OUT_MAX];
  tmp_path(model, sizeof model, "m.yaml");
  slurp(HY_SOURCE_DIR "/models/four-bar-a.yaml", before);
  FILE* fp = fopen(model, "wb");
  ck_assert_ptr_nonnull(fp);
  fputs(before, fp);
  fclose(fp);
  // the same file under another spelling of its path
  run_hydyn((const char*[]){"run", model, "--quiet", "--out", "./m.yaml", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "is the model file itself");
  slurp(model, text);
  ck_assert_str_eq(text, before);
  remove(model);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(a_second_writer_is_refused) {
  make_tmp_dir("hydyn_res");
  char out[128];
  tmp_path(out, sizeof out, "shared.csv");
  const int pid = start_hydyn(
      (const char*[]){"run", "four-bar-a", "--t-end", "1e6", "--quiet", "--out", out, NULL}, NULL,
      "1");
  wait_for_lines(out, 2000);
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "0.5", "--quiet", "--out", out, NULL},
            NULL, &second);
  ck_assert_int_eq(second.status, 1);
  ASSERT_HAS(second.err, "another process is writing");
  ck_assert_int_eq(kill(pid, SIGTERM), 0);
  finish_hydyn(pid, "1", &result);
  ck_assert_int_eq(result.status, 128 + SIGTERM);
  // the first run's file is whole: one row per step up to where it stopped
  hy_results* r = read_results(out);
  ck_assert_double_eq_tol(hy_results_column(r, 0)[r->nrow - 1], stopped_time(result.err), 1e-6);
  hy_results_free(r);
  // the same for HDF5
  tmp_path(out, sizeof out, "shared.h5");
  const int pid2 = start_hydyn(
      (const char*[]){"run", "four-bar-a", "--t-end", "1e6", "--quiet", "--out", out, NULL}, NULL,
      "2");
  sleep_ms(300);
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "0.5", "--quiet", "--out", out, NULL},
            NULL, &second);
  ck_assert_int_eq(second.status, 1);
  ASSERT_HAS(second.err, "another process is writing");
  kill(pid2, SIGTERM);
  finish_hydyn(pid2, "2", &result);
  ck_assert_int_eq(result.status, 128 + SIGTERM);
  r = read_results(out);
  ck_assert_int_gt(r->nrow, 10);
  hy_results_free(r);
  remove(out);
  tmp_path(out, sizeof out, "shared.csv");
  remove(out);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(huge_output_is_announced) {
  make_tmp_dir("hydyn_res");
  char out[128];
  tmp_path(out, sizeof out, "huge.csv");
  const int pid = start_hydyn(
      (const char*[]){"run", "four-bar-a", "--t-end", "1e9", "--out", out, NULL}, NULL, "");
  wait_for_lines(out, 100);
  kill(pid, SIGINT);
  finish_hydyn(pid, "", &result);
  ck_assert_int_eq(result.status, 128 + SIGINT);
  ASSERT_HAS(result.err, "warning: the results would take about");
  ASSERT_HAS(result.err, "1e+12 rows");
  ASSERT_HAS(result.err, "stopped by SIGINT");
  // a run of ordinary size says nothing of the kind
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "0.1", "--out", out, NULL}, NULL,
            &result);
  ck_assert_ptr_null(strstr(result.err, "warning"));
  remove(out);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(failed_standard_output_is_an_error) {
  if (access("/dev/full", W_OK) != 0) return;  // not Linux
  make_tmp_dir("hydyn_res");
  static const char* const cmds[][12] = {
      {"models", NULL},
      {"run", "four-bar-a", "--t-end", "0.01", "--no-out", "--quiet", NULL},
      {"run", "four-bar-a", "--t-end", "0.2", "--out", "-", "--quiet", NULL},
  };
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    // standard output on /dev/full: every write there fails with ENOSPC
    char cmd[512];
    const char* bin = getenv("HYDYN_BIN");
    snprintf(cmd, sizeof cmd, "'%s'", bin && bin[0] ? bin : HY_SOURCE_DIR "/build/hydyn");
    for (int i = 0; cmds[k][i]; i++) {
      strncat(cmd, " ", sizeof cmd - strlen(cmd) - 1);
      strncat(cmd, cmds[k][i], sizeof cmd - strlen(cmd) - 1);
    }
    strncat(cmd, " >/dev/full 2>/dev/null", sizeof cmd - strlen(cmd) - 1);
    const int st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "'%s' exited %d", cmd, st);
  }
  rmdir(tmp_dir);
}
END_TEST

// The progress line is for a person at a terminal: shown there (through script(1), which gives
// the run a pseudo-terminal) once the run has lasted a second, absent when standard error is a
// file. 3000 s of four-bar A take at least 3 s of wall time here (1000 s once took 0.99 s, too
// short for the first progress line).
START_TEST(progress_only_on_a_terminal) {
  if (access("/usr/bin/script", X_OK) != 0) return;  // util-linux's script: Debian has it
  make_tmp_dir("hydyn_res");
  const char* bin = getenv("HYDYN_BIN");
  char cmd[1024], log[128];
  tmp_path(log, sizeof log, "typescript");
  snprintf(cmd, sizeof cmd,
           "cd '%s' && /usr/bin/script -qec \"'%s' run four-bar-a --t-end 3000 --no-out\" '%s' "
           ">/dev/null 2>&1",
           tmp_dir, bin && bin[0] ? bin : HY_SOURCE_DIR "/build/hydyn", log);
  ck_assert_int_eq(system(cmd), 0);
  static char text[OUT_MAX];
  slurp(log, text);
  ASSERT_HAS(text, "real-time factor");
  ASSERT_HAS(text, "ETA");
  ASSERT_HAS(text, "summary:");
  // the same run with standard error in a file: notes and summary, no progress
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "3000", "--no-out", NULL}, NULL,
            &result);
  ck_assert_int_eq(result.status, 0);
  ck_assert_ptr_null(strstr(result.err, "real-time factor"));
  ck_assert_ptr_null(strstr(result.err, "\r"));
  remove(log);
  rmdir(tmp_dir);
}
END_TEST

// The magic bytes of a figure file: PNG, SVG or PDF.
static void assert_figure(const char* path, const char* magic) {
  static char head[OUT_MAX];
  slurp(path, head);
  ck_assert_msg(strncmp(head, magic, strlen(magic)) == 0 || strstr(head, magic),
                "%s is not a figure of its format", path);
}

// report: every figure of the set for a hydraulic model with a loop, each linked from
// summary.md, whose table holds the run's summary; a run that stops early still gets them.
START_TEST(report_writes_the_whole_set) {
  make_tmp_dir("hydyn_res");
  char dir[128], path[256];
  tmp_path(dir, sizeof dir, "rep");
  run_hydyn((const char*[]){"report", "four-bar-a", "--t-end", "2", "-o", dir, NULL}, NULL,
            &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  static const char* const figs[] = {"coordinates", "pressures", "spools",     "cylinders",
                                     "energy",      "violation", "iterations", "snapshots"};
  static char summary[OUT_MAX];
  snprintf(path, sizeof path, "%s/summary.md", dir);
  slurp(path, summary);
  ASSERT_HAS(summary, "| steps | 2000 |");
  ASSERT_HAS(summary, "| formulation | penalty |");
  for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++) {
    snprintf(path, sizeof path, "%s/%s.png", dir, figs[k]);
    assert_figure(path, "\x89PNG");
    char link[64];
    snprintf(link, sizeof link, "](%s.png)", figs[k]);
    ASSERT_HAS(summary, link);
  }
  snprintf(path, sizeof path, "%s/results.h5", dir);
  hy_results* r = read_results(path);
  ck_assert_int_eq(r->nrow, 2001);
  ck_assert_int_ge(hy_results_find(r, "Q_PA:dcv"), 0);  // every channel
  hy_results_free(r);
  // an open tree without hydraulics: no pressure, spool, cylinder, violation figure
  tmp_path(dir, sizeof dir, "tree");
  run_hydyn((const char*[]){"report", "double-pendulum", "--t-end", "1", "-o", dir, "--format",
                            "svg", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  snprintf(path, sizeof path, "%s/coordinates.svg", dir);
  assert_figure(path, "<svg");
  snprintf(path, sizeof path, "%s/pressures.svg", dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  // a step that fails: status 1, figures up to the failure, and summary.md says so
  tmp_path(dir, sizeof dir, "fail");
  run_hydyn((const char*[]){"report", "double-pendulum", "--integrator", "euler", "--dt", "1",
                            "--t-end", "1000", "-o", dir, NULL},
            NULL, &result);
  ck_assert_int_eq(result.status, 1);
  snprintf(path, sizeof path, "%s/summary.md", dir);
  slurp(path, summary);
  ASSERT_HAS(summary, "did not reach t_end");
  snprintf(path, sizeof path, "%s/energy.png", dir);
  assert_figure(path, "\x89PNG");
  snprintf(cmd_rm, sizeof cmd_rm, "rm -rf '%s'", tmp_dir);
  ck_assert_int_eq(system(cmd_rm), 0);
}
END_TEST

Suite* cli_results_suite(void) {
  Suite* s = suite_create("cli_results");
  TCase* tc = tcase_create("run_results");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, channels_select_in_the_order_given);
  tcase_add_test(tc, hdf5_and_csv_hold_the_same_numbers);
  tcase_add_test(tc, sigterm_leaves_a_whole_csv);
  tcase_add_test(tc, sigterm_leaves_a_whole_hdf5);
  tcase_add_test(tc, out_may_not_be_the_model);
  tcase_add_test(tc, a_second_writer_is_refused);
  tcase_add_test(tc, huge_output_is_announced);
  tcase_add_test(tc, failed_standard_output_is_an_error);
  tcase_add_test(tc, progress_only_on_a_terminal);
  tcase_add_test(tc, report_writes_the_whole_set);
  suite_add_tcase(s, tc);
  return s;
}
