// `hydyn cosim` run as a child process: one run (its records against the summary, read back;
// HDF5; a reference from a file and auto), a small sweep (its table, the achievable H lines),
// an unstable run (the message with t and H, the rows kept), SIGTERM midway, the figures, and
// the refusals of a bad command line (status 2, each with its message).
#define _POSIX_C_SOURCE 200809L  // kill, nanosleep

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_harness.h"
#include "fixture.h"
#include "io/io.h"

static cmd_result result;

#define HYDYN(...) run_hydyn((const char*[]){__VA_ARGS__, NULL}, NULL, &result)

static hy_results* read_back(const char* name) {
  char path[256];
  tmp_path(path, sizeof path, name);
  hy_results* r = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_msg(hy_results_read(path, &r, &err) == HY_OK, "%s: %s", path, err.msg);
  return r;
}

// The number after "key=" in text.
static double value_of(const char* text, const char* key) {
  const char* at = strstr(text, key);
  ck_assert_msg(at != NULL, "no '%s' in:\n%s", key, text);
  return strtod(at + strlen(key), NULL);
}

static long count_lines(const char* text, const char* prefix) {
  long n = 0;
  for (const char* p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    n += strncmp(p, prefix, strlen(prefix)) == 0;
  }
  return n;
}

// One run: the summary's keys, the records' channels and rows, and their last values against
// the summary.
START_TEST(cosim_one_run) {
  make_tmp_dir("hydyn_cosim");
  HYDYN("cosim", "crane", "--t-end", "0.5", "--H", "2ms", "--coupling", "vp", "--extrap", "1",
        "--hyd", "tr", "--out", "r.csv");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  ASSERT_HAS(result.out,
             "summary: model=crane scheme=jacobi coupling=vp extrap=1 mbs=penalty "
             "hyd=tr H=0.002 hh=0.0001 t_end=0.5 steps=250 E_res=");
  ASSERT_HAS(result.out, " csv=r.csv");
  hy_results* r = read_back("r.csv");
  ck_assert_int_eq(r->nrow, 251);
  static const char* const want[] = {
      "time",   "s:cylinder", "sd:cylinder", "F:cylinder", "F_hyd:cylinder", "p:V1",  "p:V2",
      "p:V3",   "z:theta1",   "z:theta2",    "dP",         "dP:cylinder",    "E_res", "E_res_abs",
      "E_mech", "E_bal",      "W_cyl",       "W_hyd_out"};
  ck_assert_int_eq(r->nchan, (int)(sizeof want / sizeof want[0]));
  for (int c = 0; c < r->nchan; c++) ck_assert_str_eq(r->name[c], want[c]);
  ck_assert_str_eq(r->unit[hy_results_find(r, "E_res_abs")], "J");
  ck_assert_str_eq(r->unit[hy_results_find(r, "dP")], "W");
  const double* t = hy_results_column(r, 0);
  ck_assert_double_eq_tol(t[r->nrow - 1], 0.5, 1e-12);
  const double e_abs = hy_results_column(r, hy_results_find(r, "E_res_abs"))[r->nrow - 1];
  ck_assert_double_eq_tol(value_of(result.out, "E_res_abs="), e_abs, 1e-3 * e_abs);
  hy_results_free(r);
  // the records are a results file like any other: plot reads them
  HYDYN("plot", "r.csv", "--channels", "E_res,E_res_abs", "-o", "r.png");
  ck_assert_msg(result.status == 0, "plot: %s", result.err);
  // the records may go into the figures' folder, which the run makes first
  HYDYN("cosim", "crane", "--t-end", "0.1", "--H", "2ms", "--plot", "one", "--out", "one/r.csv",
        "--quiet");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  hy_results_free(read_back("one/r.csv"));
}
END_TEST

// HDF5 records, and a reference from a results file of `hydyn run`: the error is reported.
START_TEST(cosim_hdf5_and_reference_file) {
  make_tmp_dir("hydyn_cosim");
  HYDYN("run", "crane", "--t-end", "0.6", "--quiet", "--out", "mono.csv");
  ck_assert_msg(result.status == 0, "run: %s", result.err);
  HYDYN("cosim", "crane", "--t-end", "0.6", "--H", "1e-3", "--reference", "mono.csv", "--out",
        "r.h5", "--quiet");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  ASSERT_HAS(result.out, " hdf5=r.h5");
  const double e = value_of(result.out, "err_s_max=");
  // first order at 1 ms: some 1e-5 m after the valve opens at 0.2 s (test_cosim_jacobi.c)
  ck_assert_msg(e > 1e-7 && e < 1e-4, "err_s_max = %g", e);
  hy_results* r = read_back("r.h5");
  ck_assert_int_eq(r->nrow, 601);
  ck_assert(r->summary && strstr(r->summary, "coupling=vf"));
  hy_results_free(r);
  // auto runs the reference itself and gets the same error within the reference's own
  HYDYN("cosim", "crane", "--t-end", "0.6", "--H", "1e-3", "--reference", "auto", "--no-out");
  ck_assert_msg(result.status == 0, "auto: %s", result.err);
  ASSERT_HAS(result.err, "note: reference: monolithic ali3p, dt = 0.001 s, 601 rows");
  ck_assert_double_eq_tol(value_of(result.out, "err_s_max="), e, 0.2 * e);
  // a file without the lengths is refused
  HYDYN("run", "crane", "--t-end", "0.1", "--quiet", "--channels", "p:*", "--out", "p.csv");
  HYDYN("cosim", "crane", "--t-end", "0.1", "--reference", "p.csv", "--no-out");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "has no column len:cylinder or s:cylinder");
}
END_TEST

// A sweep: one row per configuration and H, written as the runs end; an achievable H per
// configuration on standard output; and the figure.
START_TEST(cosim_small_sweep) {
  make_tmp_dir("hydyn_cosim");
  HYDYN("cosim", "crane", "--t-end", "0.4", "--H", "1ms,2ms,20ms", "--extrap", "0,im",
        "--sweep-out", "s.csv", "--plot", "figs", "--quiet");
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  ck_assert_int_eq(count_lines(result.out, "achievable: scheme=jacobi coupling=vf extrap=0 "), 1);
  ck_assert_int_eq(count_lines(result.out, "achievable: scheme=jacobi coupling=vf extrap=im "), 1);
  ASSERT_HAS(result.out, "sweep: model=crane runs=6 completed=");
  char path[256], text[OUT_MAX];
  tmp_path(path, sizeof path, "s.csv");
  slurp(path, text);
  ck_assert_int_eq(count_lines(text, "jacobi,vf,"), 6);
  ASSERT_HAS(text,
             "scheme,coupling,extrap,mbs,hyd,hh[s],H[s],completed,t_stop[s],steps,E_res[J],"
             "E_res_abs[J]");
  // m = 0 at 20 ms diverges (the crane's limit is about 3 ms): not completed, not achievable
  ASSERT_HAS(text, "jacobi,vf,0,penalty,rk4,0.0001,0.02,0,");
  ASSERT_HAS(text, "jacobi,vf,0,penalty,rk4,0.0001,0.001,1,0.4,400,");
  ASSERT_HAS(result.out, "extrap=0 mbs=penalty hyd=rk4 H_max=0.002 s");
  tmp_path(path, sizeof path, "figs/residual-energy.png");
  ck_assert_int_eq(access(path, R_OK), 0);
  tmp_path(path, sizeof path, "figs/residual-energy.csv");
  slurp(path, text);
  ASSERT_HAS(text, "communication step H[s],");
}
END_TEST

// Far beyond its achievable H the scheme diverges: status 1, the message names t and H, and
// the records hold every row up to the last accepted step.
START_TEST(cosim_unstable_keeps_rows) {
  make_tmp_dir("hydyn_cosim");
  HYDYN("cosim", "crane", "--t-end", "3", "--H", "8ms", "--out", "u.csv");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "hydyn: co-simulation unstable at t = ");
  ASSERT_HAS(result.err, " (H = 8 ms): ");
  ASSERT_HAS(result.err, "note: u.csv holds the rows up to t = ");
  ck_assert(strstr(result.out, "summary:") == NULL);
  const double t_last = value_of(result.err, "holds the rows up to t = ");
  hy_results* r = read_back("u.csv");
  ck_assert_int_gt(r->nrow, 5);
  ck_assert_double_eq_tol(hy_results_column(r, 0)[r->nrow - 1], t_last, 1e-9);
  ck_assert_double_eq_tol(value_of(result.err, "unstable at t = "), t_last + 0.008, 1e-6);
  hy_results_free(r);
}
END_TEST

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

// SIGTERM midway: 143, the summary with stopped_at, the records whole.
START_TEST(cosim_sigterm) {
  make_tmp_dir("hydyn_cosim");
  char out[128];
  tmp_path(out, sizeof out, "long.csv");
  const int pid = start_hydyn((const char*[]){"cosim", "crane", "--t-end", "1e4", "--H", "1ms",
                                              "--quiet", "--out", out, NULL},
                              NULL, "");
  sleep_ms(300);
  ck_assert_int_eq(kill(pid, SIGTERM), 0);
  finish_hydyn(pid, "", &result);
  ck_assert_msg(result.status == 128 + SIGTERM, "status %d:\n%s", result.status, result.err);
  ASSERT_HAS(result.err, "stopped by SIGTERM at t = ");
  ASSERT_HAS(result.out, "stopped_at=");
  const double t_stop = value_of(result.out, "stopped_at=");
  hy_error err;
  hy_results* r = NULL;
  ck_assert(hy_results_read(out, &r, &err) == HY_OK);
  ck_assert_double_eq_tol(hy_results_column(r, 0)[r->nrow - 1], t_stop, 1e-9 * fmax(1, t_stop));
  hy_results_free(r);
}
END_TEST

// Each bad command line: status 2 and what is wrong, before anything runs.
START_TEST(cosim_bad_options) {
  make_tmp_dir("hydyn_cosim");
  static const struct {
    const char* args[8];
    const char* msg;
  } cases[] = {
      {{"--H", "abc"}, "invalid --H 'abc': expected step sizes > 0"},
      {{"--H", "1ms,-2ms"}, "invalid --H '-2ms'"},
      {{"--H", "0.15ms"}, "--H 0.00015 s is not a whole number of hydraulic steps hh = 0.0001 s"},
      {{"--H", "1e-5"}, "--H 1e-05 s is shorter than the hydraulics' step"},
      {{"--hh", "0"}, "invalid --hh '0'"},
      {{"--coupling", "vx"}, "invalid --coupling 'vx': expected vf, vp or all"},
      {{"--extrap", "3"}, "invalid --extrap '3': expected 0, 1, 2, im or all"},
      {{"--mbs", "nope"}, "invalid --mbs 'nope': expected one of auto, tree, penalty"},
      {{"--hyd", "midpoint"}, "invalid --hyd 'midpoint': expected euler, rk4 or tr"},
      {{"--extrap", "im", "--gauss-seidel"}, "choose one"},
      {{"--H", "1ms,2ms", "--out", "x.csv"}, "--out records one run; a sweep"},
      {{"--H", "2", "--t-end", "1"}, "--H 2 s is longer than the run, --t-end 1 s"},
      {{"--t-end", "x"}, "invalid --t-end 'x'"},
      {{"--bogus"}, "unknown option '--bogus'"},
      {{"--out"}, "option --out needs a value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char* argv[12] = {"cosim", "crane"};
    int n = 2;
    for (int k = 0; k < 8 && cases[i].args[k]; k++) argv[n++] = cases[i].args[k];
    argv[n] = NULL;
    run_hydyn(argv, NULL, &result);
    ck_assert_msg(result.status == 2, "case %zu: status %d:\n%s", i, result.status, result.err);
    ASSERT_HAS(result.err, cases[i].msg);
    ASSERT_HAS(result.err, "Try 'hydyn cosim --help'.");
  }
  HYDYN("cosim");
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "no model given");
  HYDYN("cosim", "--help");
  ck_assert_int_eq(result.status, 0);
  ASSERT_HAS(result.out, "usage: hydyn cosim MODEL [options]");
  // a model without cylinders has nothing to co-simulate (status 1, after loading it)
  HYDYN("cosim", "double-pendulum", "--no-out");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "has no hydraulic cylinders");
}
END_TEST

Suite* cli_cosim_suite(void) {
  Suite* s = suite_create("cli_cosim");
  TCase* tc = tcase_create("cosim");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, cosim_one_run);
  tcase_add_test(tc, cosim_hdf5_and_reference_file);
  tcase_add_test(tc, cosim_small_sweep);
  tcase_add_test(tc, cosim_unstable_keeps_rows);
  tcase_add_test(tc, cosim_sigterm);
  tcase_add_test(tc, cosim_bad_options);
  suite_add_tcase(s, tc);
  return s;
}
