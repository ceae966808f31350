// `hydyn friction`, run as a child process: help, the --sweep CSV (header, the three cases and
// their row counts, the steady curve against Brown-McPhee's closed form, pre-sliding in the
// small case), the model form on four-bar-b-lugre, and the refusals with their exit statuses
// and messages.
//
// The binary is $HYDYN_BIN (set by ctest, see tests/CMakeLists.txt), else build/hydyn in the
// source tree.
#define _XOPEN_SOURCE 700  // fork, mkdtemp, realpath

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

static cmd_result result;  // large: static, one per test process

// Runs `hydyn friction args` (args NULL-terminated) in tmp_dir.
static void run_friction(const char* const* args, cmd_result* r) {
  const char* argv[40] = {"friction"};
  int n = 1;
  for (int i = 0; args[i]; i++) {
    ck_assert_int_lt(n, 39);
    argv[n++] = args[i];
  }
  argv[n] = NULL;
  run_hydyn(argv, NULL, r);
}

//----- the sweep CSV ---------------------------------------------------------------------------

enum { CASE_STEADY, CASE_SMALL, CASE_LARGE, NCASE, ROWS_MAX = 20000, COLS_MAX = 8 };
static const char* const kCase[NCASE] = {"steady", "small", "large"};

// A --sweep file read back: its header and, per case, the rows' numbers (NAN for an empty field).
typedef struct sweep {
  char header[1024];
  int ncol;
  int n[NCASE];
  double row[NCASE][ROWS_MAX][COLS_MAX];  // t, v, x, F, states
} sweep;

static sweep sw, sw2;

static void read_sweep(const char* path, sweep* s) {
  memset(s, 0, sizeof *s);
  FILE* fp = fopen(path, "r");
  ck_assert_msg(fp != NULL, "no CSV '%s'", path);
  char line[1024];
  ck_assert(fgets(line, sizeof line, fp) != NULL);
  line[strcspn(line, "\n")] = 0;
  snprintf(s->header, sizeof s->header, "%s", line);
  s->ncol = 1;
  for (const char* p = line; *p; p++) s->ncol += *p == ',';
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\n")] = 0;
    char* field = line;
    char* comma = strchr(field, ',');
    ck_assert_msg(comma != NULL, "a row without fields: '%s'", line);
    *comma = 0;
    int c = -1;
    for (int k = 0; k < NCASE; k++) c = strcmp(field, kCase[k]) == 0 ? k : c;
    ck_assert_msg(c >= 0, "unknown case '%s'", field);
    ck_assert_int_lt(s->n[c], ROWS_MAX);
    double* r = s->row[c][s->n[c]++];
    int col = 0;
    field = comma + 1;
    for (;;) {
      comma = strchr(field, ',');
      if (comma) *comma = 0;
      ck_assert_int_lt(col, COLS_MAX);
      char* end = NULL;
      r[col] = field[0] ? strtod(field, &end) : NAN;
      ck_assert_msg(!field[0] || *end == '\0', "not a number: '%s'", field);
      col++;
      if (!comma) break;
      field = comma + 1;
    }
    ck_assert_int_eq(col + 1, s->ncol);
  }
  fclose(fp);
}

// The rows documented in docs/cli.md: 401 steady velocities, 3 periods of 2000 steps.
static void assert_counts(const sweep* s) {
  ck_assert_int_eq(s->n[CASE_STEADY], 401);
  ck_assert_int_eq(s->n[CASE_SMALL], 6001);
  ck_assert_int_eq(s->n[CASE_LARGE], 6001);
}

// Brown-McPhee (seed 002 Eq. 24) with x = v / v_s, as docs/friction.md writes it:
// F_c tanh(4x) + (F_s - F_c) x / (x^2/4 + 3/4)^2 + sigma2 v tanh(4).
static double brown_mcphee(double v) {
  const double Fc = 210, Fs = 830, vs = 5e-3, s2 = 330;
  const double x = v / vs, d = x * x / 4 + 0.75;
  return Fc * tanh(4 * x) + (Fs - Fc) * x / (d * d) + s2 * v * tanh(4.0);
}

START_TEST(help_lists_options) {
  make_tmp_dir("hydyn_fric");
  run_friction((const char*[]){"--help", NULL}, &result);
  ck_assert_int_eq(result.status, 0);
  const char* words[] = {"--cylinder",  "--normal-load", "--sweep", "-o, --out",    "--v-max",
                         "--frequency", "--help",        "coulomb", "bengisu-akay", "brown-mcphee",
                         "lugre",       "lugre-film",    "steady",  "small",        "large",
                         "q[m]",        "h[-]",          "6001",    "401"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) ASSERT_HAS(result.out, words[i]);
  run_hydyn((const char*[]){"--help", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ASSERT_HAS(result.out, "friction LAW|MODEL");
  ASSERT_HAS(result.out, "'hydyn COMMAND --help'");
  rmdir(tmp_dir);
}
END_TEST

START_TEST(sweep_brown_mcphee_closed_form) {
  make_tmp_dir("hydyn_fric");
  char csv[128];
  tmp_path(csv, sizeof csv, "bm.csv");
  run_friction((const char*[]){"brown-mcphee", "coulomb=210", "stiction=830",
                               "stribeck_velocity=5e-3", "viscous=330", "--sweep", "-o", csv, NULL},
               &result);
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  ck_assert_str_eq(result.out, "");
  read_sweep(csv, &sw);
  ck_assert_str_eq(sw.header, "case,t[s],v[m/s],x[m],F[N]");
  assert_counts(&sw);
  // steady: v from -v_max to v_max (v_max = 10 v_s), no time or displacement
  ck_assert_double_eq(sw.row[CASE_STEADY][0][1], -0.05);
  ck_assert_double_eq(sw.row[CASE_STEADY][400][1], 0.05);
  ck_assert_double_eq(sw.row[CASE_STEADY][200][1], 0);
  for (int i = 0; i < 401; i++) {
    const double* r = sw.row[CASE_STEADY][i];
    ck_assert(isnan(r[0]) && isnan(r[2]));
    const double want = brown_mcphee(r[1]);
    ck_assert_msg(hy_test_relerr(r[3], want, 1) < 1e-12, "v = %.17g: F = %.17g, closed form %.17g",
                  r[1], r[3], want);
  }
  // a static law: the sines' F is the steady one at their v
  for (int c = CASE_SMALL; c <= CASE_LARGE; c++) {
    for (int i = 0; i < 6001; i += 7) {
      const double* r = sw.row[c][i];
      ck_assert(hy_test_relerr(r[3], brown_mcphee(r[1]), 1) < 1e-12);
    }
  }
  // large: 3 periods at 0.5 Hz of v_max sin(pi t), x its integral; small: V = 0.2 v_s
  double(*L)[COLS_MAX] = sw.row[CASE_LARGE];
  ck_assert_double_eq(L[0][0], 0);
  ck_assert_double_eq_tol(L[6000][0], 6, 1e-12);
  ck_assert_double_eq_tol(L[500][1], 0.05, 1e-15);                           // t = 0.5 s
  ck_assert_double_eq_tol(L[1000][2], 2 * 0.05 / 3.141592653589793, 1e-15);  // x after v > 0
  ck_assert_double_eq_tol(L[2000][2], 0, 1e-15);                             // back after a period
  ck_assert_double_eq_tol(sw.row[CASE_SMALL][500][1], 1e-3, 1e-15);
  remove(csv);

  // on standard output without -o (and with -o -)
  run_friction((const char*[]){"brown-mcphee", "coulomb=210", "stiction=830",
                               "stribeck_velocity=5e-3", "--sweep", "--v-max=0.2", NULL},
               &result);
  ck_assert_int_eq(result.status, 0);
  const char* head = "case,t[s],v[m/s],x[m],F[N]\nsteady,,-0.2";  // -0.20000000000000001
  ck_assert_msg(strncmp(result.out, head, strlen(head)) == 0, "stdout starts:\n%.200s", result.out);
  rmdir(tmp_dir);
}
END_TEST

// The model form: the law of four-bar-b-lugre's cylinder, the same with and without --cylinder,
// the steady force the library computes, pre-sliding in the small case and sliding in the large.
START_TEST(sweep_model_lugre) {
  make_tmp_dir("hydyn_fric");
  char csv[128], csv2[128];
  tmp_path(csv, sizeof csv, "lugre.csv");
  tmp_path(csv2, sizeof csv2, "lugre2.csv");
  run_friction(
      (const char*[]){"four-bar-b-lugre", "--cylinder", "cylinder", "--sweep", "--out", csv, NULL},
      &result);
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  run_friction((const char*[]){"four-bar-b-lugre", "--sweep", "-o", csv2, NULL}, &result);
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  read_sweep(csv, &sw);
  read_sweep(csv2, &sw2);
  ck_assert_str_eq(sw.header, "case,t[s],v[m/s],x[m],F[N],q[m]");
  assert_counts(&sw);
  ck_assert(memcmp(&sw, &sw2, sizeof sw) == 0);

  hy_model* m = hy_test_load("four-bar-b-lugre");
  const int c = hy_model_cylinder(m, "cylinder");
  ck_assert_int_ge(c, 0);
  const hy_friction_def p = m->cyl_fric[c];
  ck_assert_int_eq(p.law, HY_FRICTION_LUGRE);
  for (int i = 0; i < 401; i++) {
    const double* r = sw.row[CASE_STEADY][i];
    ck_assert_double_eq(r[3], hy_friction_steady(&p, r[1], 0));  // %.17g: read back bit for bit
  }
  // small: sigma0 |q| stays below min(F_c, F_s) <= g (no break-away); the displacement spans
  // min(F_c, F_s) / sigma0
  double qmax = 0, xmax = 0;
  for (int i = 0; i < 6001; i++) {
    qmax = fmax(qmax, fabs(sw.row[CASE_SMALL][i][4]));
    xmax = fmax(xmax, sw.row[CASE_SMALL][i][2]);
  }
  ck_assert_double_eq_tol(xmax, p.coulomb / p.stiffness, 1e-15);
  ck_assert_msg(p.stiffness * qmax < p.coulomb, "small case breaks away: sigma0 q = %g N",
                p.stiffness * qmax);
  ck_assert(p.stiffness * qmax > 0.5 * p.coulomb);  // yet the bristles do deflect
  // large: the bristles slide, sigma0 |q| reaches g(v_max) ~ F_c
  qmax = 0;
  for (int i = 0; i < 6001; i++) qmax = fmax(qmax, fabs(sw.row[CASE_LARGE][i][4]));
  ck_assert(p.stiffness * qmax > 0.99 * p.coulomb);
  hy_model_free(m);
  remove(csv);
  remove(csv2);

  // the report without --sweep
  run_friction((const char*[]){"four-bar-b-lugre", NULL}, &result);
  ck_assert_int_eq(result.status, 0);
  const char* words[] = {"friction law lugre", "four-bar-b-lugre", "cylinder 'cylinder'",
                         "stiffness",          "100000 N/m",       "states: q [m]",
                         "steady force"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) ASSERT_HAS(result.out, words[i]);
  rmdir(tmp_dir);
}
END_TEST

START_TEST(sweep_film_columns) {
  make_tmp_dir("hydyn_fric");
  char csv[128];
  tmp_path(csv, sizeof csv, "film.csv");
  run_friction(
      (const char*[]){"four-bar-b-lugre-film", "--sweep", "-o", csv, "--frequency", "2", NULL},
      &result);
  ck_assert_msg(result.status == 0, "status %d:\n%s", result.status, result.err);
  read_sweep(csv, &sw);
  ck_assert_str_eq(sw.header, "case,t[s],v[m/s],x[m],F[N],q[m],h[-]");
  assert_counts(&sw);
  ck_assert_double_eq_tol(sw.row[CASE_LARGE][6000][0], 1.5, 1e-12);  // 3 periods at 2 Hz
  // the film: none at rest, thicker at speed
  ck_assert_double_eq(sw.row[CASE_STEADY][200][5], 0);
  ck_assert(sw.row[CASE_STEADY][400][5] > 0.5);
  remove(csv);
  rmdir(tmp_dir);
}
END_TEST

//----- refusals ----------------------------------------------------------------------------------

START_TEST(refusals) {
  make_tmp_dir("hydyn_fric");
  typedef struct refusal {
    const char* args[10];
    int status;
    const char* says[3];
  } refusal;
  static const refusal cases[] = {
      {{"lugra", "coulomb=210", NULL}, 2, {"unknown friction law 'lugra'", "lugre-film", NULL}},
      {{"lugra", NULL}, 2, {"'lugra' is neither a friction law", NULL}},
      {{"lugre", "coulomb=210", "stiction=830", "stribeck_velocity=5e-3", "stiffness=1e5",
        "tanh_velocity=1e-3", NULL},
       2,
       {"'tanh_velocity' is not a parameter of friction law 'lugre'", NULL}},
      {{"lugre", "coulomb=210", "stiction=830", "stribeck_velocity=5e-3", NULL},
       2,
       {"'stiffness' is required", NULL}},
      {{"lugre", "coulomb=210", "stiction=830", "stribeck_velocity=5e-3", "stiffness=0", NULL},
       2,
       {"stiffness must be positive", "(N/m), got 0", NULL}},
      {{"coulomb", "coulomb=210", "tanh_velocity=1e-3", "stifness=3", NULL},
       2,
       {"unknown key 'stifness'", NULL}},
      {{"coulomb", "coulomb=210", "coulomb=3", NULL}, 2, {"'coulomb' is given twice", NULL}},
      {{"coulomb", "coulomb=abc", "tanh_velocity=1e-3", NULL}, 2, {"coulomb", "abc", NULL}},
      {{"four-bar-b-lugre", "--cylinder", "nope", NULL}, 2, {"no cylinder 'nope'", NULL}},
      {{"four-bar-b", "--cylinder", "cylinder", NULL},
       2,
       {"cylinder 'cylinder' of model 'four-bar-b' has no friction", NULL}},
      {{"four-bar-b", NULL}, 2, {"model 'four-bar-b' has no cylinder with friction", NULL}},
      {{"four-bar-b-lugre", "--sweep", "-o", "--v-max", "1", NULL},
       2,
       {"option -o needs a value, got the option '--v-max'", NULL}},
      {{"four-bar-b-lugre", "--v-max", "-1", NULL}, 2, {"invalid --v-max '-1'", NULL}},
      {{"four-bar-b-lugre", "--normal-load", "nan", NULL}, 2, {"invalid --normal-load", NULL}},
      {{"four-bar-b-lugre", "--bogus", NULL}, 2, {"unknown option '--bogus'", NULL}},
      {{"four-bar-b-lugre", "extra", NULL}, 2, {"unexpected argument 'extra'", NULL}},
      {{"four-bar-b-lugre", "coulomb=3", NULL},
       2,
       {"unknown friction law 'four-bar-b-lugre'", NULL}},
      {{NULL}, 2, {"no friction law or model given", NULL}},
      {{"none", NULL}, 2, {"law 'none'", NULL}},
      {{"no-such-model.yaml", NULL}, 1, {"no-such-model.yaml", NULL}},
      {{"four-bar-b-lugre", "--sweep", "-o", "/nonexistent-dir/x.csv", NULL},
       1,
       {"cannot open '/nonexistent-dir/x.csv'", NULL}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    run_friction(cases[i].args, &result);
    ck_assert_msg(result.status == cases[i].status, "case %zu (%s): status %d, expected %d:\n%s", i,
                  cases[i].args[0] ? cases[i].args[0] : "", result.status, cases[i].status,
                  result.err);
    for (int k = 0; k < 3 && cases[i].says[k]; k++) ASSERT_HAS(result.err, cases[i].says[k]);
    ck_assert_str_eq(result.out, "");  // nothing on standard output
  }
  // a model file that does not parse: status 1 with its position
  char path[128];
  tmp_path(path, sizeof path, "broken.yaml");
  FILE* fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs("name: broken\nbodies:\n  - name: [unclosed\n    mass: 1\n", fp);
  fclose(fp);
  run_friction((const char*[]){path, NULL}, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "broken.yaml:");
  remove(path);
  rmdir(tmp_dir);
}
END_TEST

Suite* cli_friction_suite(void) {
  Suite* s = suite_create("cli_friction");
  TCase* tc = tcase_create("friction");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, help_lists_options);
  tcase_add_test(tc, sweep_brown_mcphee_closed_form);
  tcase_add_test(tc, sweep_model_lugre);
  tcase_add_test(tc, sweep_film_columns);
  tcase_add_test(tc, refusals);
  suite_add_tcase(s, tc);
  return s;
}
