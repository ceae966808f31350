// `hydyn plot` and `hydyn compare`, run as child processes on results files of `hydyn run`:
// help, the figure formats (by their magic bytes), --data against the results file number for
// number, --vs, the default selection and its cap, the refusals and their exit statuses, a
// machine without gnuplot; compare on identical files, on two different runs (the table against
// differences computed here, --tol and --rtol), on hand-written files whose interpolated
// differences are known exactly, and its figure and data.
//
// The binary is $HYDYN_BIN (set by ctest, see tests/CMakeLists.txt), else build/hydyn in the
// source tree.
#define _XOPEN_SOURCE 700  // setenv, unsetenv

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli_harness.h"
#include "fixture.h"

static cmd_result result;  // large: static, one per test process

// Runs hydyn with the arguments given (NULL-terminated) in tmp_dir into result.
#define HYDYN(...) run_hydyn((const char*[]){__VA_ARGS__, NULL}, NULL, &result)

// A results file of four-bar-a in tmp_dir: `hydyn run four-bar-a --t-end T --out name` plus
// extra options (NULL-terminated list, may be empty).
static void make_results(const char* name, const char* t_end, const char* const* extra) {
  const char* argv[20] = {"run", "four-bar-a", "--quiet", "--t-end", t_end, "--out", name};
  int n = 7;
  for (int i = 0; extra && extra[i]; i++) argv[n++] = extra[i];
  argv[n] = NULL;
  run_hydyn(argv, NULL, &result);
  ck_assert_msg(result.status == 0, "hydyn run for '%s' failed:\n%s", name, result.err);
}

static void tmp_file(char* buf, size_t size, const char* name) { tmp_path(buf, size, name); }

static long file_size(const char* name) {
  char path[256];
  tmp_file(path, sizeof path, name);
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

//----- CSV files read back -----------------------------------------------------------------------

// A CSV of numbers (a results file, a --data file) read back: its header fields and columns.
typedef struct table {
  int ncol;
  long nrow;
  char name[64][48];  // header fields as written: "p:V1[Pa]", "iter"
  double* col[64];    // nrow values each
} table;

static table tab_a, tab_b, tab_c;

static void read_table(const char* name, table* t) {
  char path[256];
  tmp_file(path, sizeof path, name);
  FILE* fp = fopen(path, "r");
  ck_assert_msg(fp != NULL, "no file '%s'", path);
  static char line[1 << 16];
  ck_assert(fgets(line, sizeof line, fp) != NULL);
  line[strcspn(line, "\r\n")] = '\0';
  t->ncol = 0;
  for (char *save = NULL, *f = strtok_r(line, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
    ck_assert_int_lt(t->ncol, 64);
    snprintf(t->name[t->ncol++], sizeof t->name[0], "%s", f);
  }
  long cap = 1024;
  for (int c = 0; c < t->ncol; c++) t->col[c] = malloc(sizeof(double) * (size_t)cap);
  t->nrow = 0;
  while (fgets(line, sizeof line, fp)) {
    if (t->nrow == cap) {
      cap *= 2;
      for (int c = 0; c < t->ncol; c++) t->col[c] = realloc(t->col[c], sizeof(double) * (size_t)cap);
    }
    char* p = line;
    for (int c = 0; c < t->ncol; c++) {
      char* end = NULL;
      t->col[c][t->nrow] = strtod(p, &end);
      ck_assert_msg(end != p, "%s: row %ld, column %d is not a number", name, t->nrow + 2, c + 1);
      p = end + (*end == ',');
    }
    t->nrow++;
  }
  fclose(fp);
}

// Column of t whose header field is `field`, or -1.
static int column(const table* t, const char* field) {
  for (int c = 0; c < t->ncol; c++) {
    if (strcmp(t->name[c], field) == 0) return c;
  }
  return -1;
}

// Fails unless column `field` of a and column `field_b` of b hold the same numbers, bit for bit.
static void same_column(const table* a, const char* field, const table* b, const char* field_b) {
  const int ca = column(a, field), cb = column(b, field_b);
  ck_assert_msg(ca >= 0, "no column '%s'", field);
  ck_assert_msg(cb >= 0, "no column '%s'", field_b);
  ck_assert_int_eq(a->nrow, b->nrow);
  for (long i = 0; i < a->nrow; i++) {
    ck_assert_msg(a->col[ca][i] == b->col[cb][i], "%s row %ld: %.17g != %.17g (%s)", field, i,
                  a->col[ca][i], b->col[cb][i], field_b);
  }
}

//----- figure files ------------------------------------------------------------------------------

// Fails unless tmp_dir/name is a non-empty figure of its extension's format.
static void assert_figure(const char* name) {
  char path[256], head[OUT_MAX];
  tmp_file(path, sizeof path, name);
  ck_assert_msg(file_size(name) > 0, "no figure '%s'", path);
  slurp(path, head);
  const char* ext = strrchr(name, '.');
  if (strcasecmp(ext, ".png") == 0) {
    ck_assert_msg(memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0, "'%s' is not a PNG", name);
  } else if (strcasecmp(ext, ".pdf") == 0) {
    ck_assert_msg(strncmp(head, "%PDF", 4) == 0, "'%s' is not a PDF", name);
  } else {
    ck_assert_msg(strstr(head, "<svg") != NULL, "'%s' is not an SVG", name);
  }
}

//----- plot --------------------------------------------------------------------------------------

START_TEST(help_lists_options) {
  make_tmp_dir("hydyn_plot");
  HYDYN("plot", "--help");
  ck_assert_int_eq(result.status, 0);
  const char* plot_opts[] = {"--channels", "--vs", "-o, --out", "--data", "--title", "--size",
                             "--help",     "default", "gnuplot-nox", "MPa", "Exit status"};
  for (size_t i = 0; i < sizeof plot_opts / sizeof plot_opts[0]; i++) {
    ASSERT_HAS(result.out, plot_opts[i]);
  }
  HYDYN("compare", "--help");
  ck_assert_int_eq(result.status, 0);
  const char* cmp_opts[] = {"--channels", "--tol",  "--rtol",    "-o, --out", "--diff", "--data",
                            "--title",    "--size", "step_wall", "interpolated", "default",
                            "Exit status"};
  for (size_t i = 0; i < sizeof cmp_opts / sizeof cmp_opts[0]; i++) {
    ASSERT_HAS(result.out, cmp_opts[i]);
  }
}
END_TEST

START_TEST(plot_every_format) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", NULL);
  const char* const figs[] = {"fig.png", "fig.svg", "fig.pdf", "FIG.PNG"};
  for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++) {
    HYDYN("plot", "a.csv", "--channels", "p:*,z:*", "-o", figs[k]);
    ck_assert_msg(result.status == 0, "plot -o %s: status %d\n%s", figs[k], result.status,
                  result.err);
    assert_figure(figs[k]);
    ASSERT_HAS(result.out, "plot: figure=");
    ASSERT_HAS(result.out, figs[k]);
  }
  // without -o: the results file's name with .png
  HYDYN("plot", "a.csv");
  ck_assert_msg(result.status == 0, "%s", result.err);
  assert_figure("a.png");
  // --size and --title are taken
  HYDYN("plot", "a.csv", "--channels", "p:V1", "--size", "640x480", "--title", "", "-o", "s.svg");
  ck_assert_msg(result.status == 0, "%s", result.err);
  assert_figure("s.svg");
  char path[256], svg[OUT_MAX];
  tmp_file(path, sizeof path, "s.svg");
  slurp(path, svg);
  ASSERT_HAS(svg, "width=\"640\"");
  ASSERT_HAS(svg, "height=\"480\"");
}
END_TEST

START_TEST(plot_data_equals_results) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", NULL);
  HYDYN("plot", "a.csv", "--channels", "p:*,z:C,E_*", "--data", "d.csv", "-o", "f.png");
  ck_assert_msg(result.status == 0, "%s", result.err);
  read_table("a.csv", &tab_a);
  read_table("d.csv", &tab_b);
  // the x column, then the channels in the order of the list, each once
  const char* const want[] = {"time[s]", "p:V1[Pa]",  "p:V2[Pa]",  "p:V3[Pa]",
                              "z:C[rad]", "E_kin[J]", "E_pot[J]", "E_total[J]"};
  ck_assert_int_eq(tab_b.ncol, (int)(sizeof want / sizeof want[0]));
  for (int c = 0; c < tab_b.ncol; c++) {
    ck_assert_str_eq(tab_b.name[c], want[c]);
    same_column(&tab_b, want[c], &tab_a, want[c]);
  }
  ck_assert_int_eq(tab_b.nrow, 501);
}
END_TEST

START_TEST(plot_default_selection) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", NULL);
  HYDYN("plot", "a.csv", "--data", "d.csv");
  ck_assert_msg(result.status == 0, "%s", result.err);
  read_table("a.csv", &tab_a);
  read_table("d.csv", &tab_b);
  // no solver figures, and four-bar-a's seventh unit (the valve's V) left out, with a hint
  const char* const absent[] = {"iter", "residual", "step_wall[s]", "violation[m]", "U:dcv[V]"};
  for (size_t k = 0; k < sizeof absent / sizeof absent[0]; k++) {
    ck_assert_msg(column(&tab_b, absent[k]) < 0, "'%s' in the default plot", absent[k]);
  }
  ASSERT_HAS(result.err, "U:dcv");
  ASSERT_HAS(result.err, "--channels");
  // everything else, in the file's order, with the file's numbers
  int prev = 0;
  for (int c = 1; c < tab_b.ncol; c++) {
    const int ca = column(&tab_a, tab_b.name[c]);
    ck_assert_msg(ca > prev, "'%s' out of the file's order", tab_b.name[c]);
    prev = ca;
    same_column(&tab_b, tab_b.name[c], &tab_a, tab_b.name[c]);
  }
  ck_assert_int_eq(tab_b.ncol, tab_a.ncol - 5);
  ASSERT_HAS(result.out, "panels=6");
}
END_TEST

START_TEST(plot_vs_channel) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", NULL);
  HYDYN("plot", "a.csv", "--vs", "len:cylinder", "--channels", "p:*", "--data", "d.csv", "-o",
        "v.png");
  ck_assert_msg(result.status == 0, "%s", result.err);
  assert_figure("v.png");
  ASSERT_HAS(result.out, "x=len:cylinder");
  read_table("a.csv", &tab_a);
  read_table("d.csv", &tab_b);
  ck_assert_str_eq(tab_b.name[0], "len:cylinder[m]");
  same_column(&tab_b, "len:cylinder[m]", &tab_a, "len:cylinder[m]");
  same_column(&tab_b, "p:V2[Pa]", &tab_a, "p:V2[Pa]");
  // --vs time is the default
  HYDYN("plot", "a.csv", "--vs", "time", "--channels", "p:V1", "--data", "t.csv", "-o", "t.png");
  ck_assert_msg(result.status == 0, "%s", result.err);
  read_table("t.csv", &tab_c);
  ck_assert_str_eq(tab_c.name[0], "time[s]");
}
END_TEST

START_TEST(plot_refusals) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", NULL);
  // an unknown channel or --vs channel is a bad command line (status 2), named, nothing drawn
  HYDYN("plot", "a.csv", "--channels", "p:*,q:nothing*", "-o", "x.png");
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "q:nothing*");
  HYDYN("plot", "a.csv", "--vs", "nosuch", "-o", "x.png");
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "nosuch");
  ASSERT_HAS(result.err, "--vs");
  ck_assert_int_eq(file_size("x.png"), -1);
  // a figure format gnuplot is not asked for
  HYDYN("plot", "a.csv", "-o", "x.jpg");
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, ".png, .svg or .pdf");
  // a results file that is not there: status 1, named
  HYDYN("plot", "missing.csv");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "missing.csv");
  // bad command lines
  HYDYN("plot");
  ck_assert_int_eq(result.status, 2);
  HYDYN("plot", "a.csv", "--size", "10x10");
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "--size");
  HYDYN("plot", "a.csv", "--bogus");
  ck_assert_int_eq(result.status, 2);
  HYDYN("plot", "a.csv", "--data", "a.csv");
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "overwrite");
  read_table("a.csv", &tab_a);
  ck_assert_int_eq(tab_a.nrow, 501);
}
END_TEST

START_TEST(plot_without_gnuplot) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", NULL);
  setenv("HYDYN_GNUPLOT", "/nonexistent/gnuplot", 1);
  HYDYN("plot", "a.csv", "-o", "g.png", "--data", "g.csv");
  const int plot_status = result.status;
  static char plot_err[OUT_MAX];
  memcpy(plot_err, result.err, sizeof plot_err);
  HYDYN("compare", "a.csv", "a.csv", "-o", "c.png");
  cmd_result* figure = malloc(sizeof *figure);
  *figure = result;
  // compare without a figure needs no gnuplot, also for its data
  HYDYN("compare", "a.csv", "a.csv", "--data", "n.csv");
  unsetenv("HYDYN_GNUPLOT");
  ck_assert_msg(result.status == 0, "%s", result.err);
  ck_assert_int_gt(file_size("n.csv"), 0);
  result = *figure;
  free(figure);
  ck_assert_int_eq(plot_status, 1);
  ASSERT_HAS(plot_err, "gnuplot-nox");
  // gnuplot is looked for first: nothing was written
  ck_assert_int_eq(file_size("g.png"), -1);
  ck_assert_int_eq(file_size("g.csv"), -1);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "gnuplot-nox");
}
END_TEST

START_TEST(plot_hdf5) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", NULL);
  HYDYN("run", "four-bar-a", "--quiet", "--t-end", "0.5", "--out", "a.h5");
  if (result.status != 0 && strstr(result.err, "HDF5")) {
    fprintf(stderr, "plot_hdf5: skipped, this hydyn writes no HDF5: %s", result.err);
    return;
  }
  ck_assert_msg(result.status == 0, "%s", result.err);
  HYDYN("plot", "a.h5", "--channels", "p:*,F:*", "--data", "h.csv");
  ck_assert_msg(result.status == 0, "%s", result.err);
  assert_figure("a.png");
  read_table("h.csv", &tab_b);
  HYDYN("plot", "a.csv", "--channels", "p:*,F:*", "--data", "c.csv", "-o", "c.png");
  ck_assert_msg(result.status == 0, "%s", result.err);
  read_table("c.csv", &tab_c);
  ck_assert_int_eq(tab_b.ncol, tab_c.ncol);
  for (int c = 0; c < tab_b.ncol; c++) same_column(&tab_b, tab_b.name[c], &tab_c, tab_c.name[c]);
}
END_TEST

//----- compare -----------------------------------------------------------------------------------

// The line of channel `name` in compare's table: max|A-B|, rms, scale, rel; fails when absent.
static void table_row(const char* out, const char* name, double v[4]) {
  char key[64];
  snprintf(key, sizeof key, "\n%s ", name);
  const char* p = strstr(out, key);
  ck_assert_msg(p != NULL, "no row '%s' in:\n%s", name, out);
  char unit[16];
  const int got = sscanf(p + strlen(key), " %15s %lf %lf %lf %lf", unit, &v[0], &v[1], &v[2], &v[3]);
  ck_assert_msg(got == 5, "row '%s' unreadable in:\n%s", name, out);
}

START_TEST(compare_identical) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", NULL);
  make_results("b.csv", "0.5", NULL);
  // a file with itself, and two runs alike (whose step_wall differs: not compared by default)
  const char* const pairs[2][2] = {{"a.csv", "a.csv"}, {"a.csv", "b.csv"}};
  for (int k = 0; k < 2; k++) {
    HYDYN("compare", pairs[k][0], pairs[k][1], "--tol", "0", "--rtol", "0");
    ck_assert_msg(result.status == 0, "%s", result.err);
    ASSERT_HAS(result.out, "compare: channels=22 max_rel=0 worst=none");
    double v[4];
    table_row(result.out, "p:V1", v);
    ck_assert(v[0] == 0 && v[1] == 0 && v[3] == 0 && v[2] > 1e6);
    ck_assert_ptr_null(strstr(result.out, "step_wall"));
    ck_assert_ptr_null(strstr(result.err, "interpolated"));
  }
  // step_wall named: compared, and it differs
  HYDYN("compare", "a.csv", "b.csv", "--channels", "step_wall", "--tol", "0");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "step_wall");
}
END_TEST

START_TEST(compare_different_runs) {
  make_tmp_dir("hydyn_plot");
  // the valve opens at t = 1 s: by 1.5 s the two formulations have moved apart measurably
  make_results("a.csv", "1.5", (const char*[]){"--formulation", "penalty", NULL});
  make_results("b.csv", "1.5", (const char*[]){"--formulation", "double-step", NULL});
  HYDYN("compare", "a.csv", "b.csv");
  ck_assert_msg(result.status == 0, "%s", result.err);
  read_table("a.csv", &tab_a);
  read_table("b.csv", &tab_b);
  // the table against the differences computed here (same times: row by row)
  const char* const chans[] = {"p:V1", "zd:C", "F:cylinder"};
  const char* const fields[] = {"p:V1[Pa]", "zd:C[rad/s]", "F:cylinder[N]"};
  double worst_rel = 0;
  for (int k = 0; k < 3; k++) {
    const int ca = column(&tab_a, fields[k]), cb = column(&tab_b, fields[k]);
    double max = 0, sum2 = 0, scale = 0;
    for (long i = 0; i < tab_a.nrow; i++) {
      const double e = tab_a.col[ca][i] - tab_b.col[cb][i];
      max = fmax(max, fabs(e));
      sum2 += e * e;
      scale = fmax(scale, fmax(fabs(tab_a.col[ca][i]), fabs(tab_b.col[cb][i])));
    }
    double v[4];
    table_row(result.out, chans[k], v);
    ck_assert_msg(max > 0, "%s: the runs do not differ", chans[k]);
    ck_assert_double_eq_tol(v[0], max, 1e-5 * max);
    ck_assert_double_eq_tol(v[1], sqrt(sum2 / (double)tab_a.nrow), 1e-5 * v[1]);
    ck_assert_double_eq_tol(v[2], scale, 1e-5 * scale);
    ck_assert_double_eq_tol(v[3], max / scale, 1e-5 * v[3]);
    worst_rel = fmax(worst_rel, v[3]);
  }
  ASSERT_HAS(result.out, "compare: channels=22 max_rel=");
  double max_rel = 0;
  const char* last = strstr(result.out, "max_rel=");
  ck_assert(sscanf(last, "max_rel=%lf", &max_rel) == 1);
  ck_assert(max_rel >= worst_rel && max_rel > 0);
  ck_assert_ptr_null(strstr(last, "worst=none"));

  // tolerances: a tiny one fails, naming a channel; a large one passes
  HYDYN("compare", "a.csv", "b.csv", "--tol", "1e-12");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "p:V1");
  ASSERT_HAS(result.err, "--tol");
  HYDYN("compare", "a.csv", "b.csv", "--tol", "1e9");
  ck_assert_int_eq(result.status, 0);
  HYDYN("compare", "a.csv", "b.csv", "--rtol", "1e-15");
  ck_assert_int_eq(result.status, 1);
  HYDYN("compare", "a.csv", "b.csv", "--rtol", "1");
  ck_assert_int_eq(result.status, 0);

  // other step sizes: B interpolated onto A's times, said on standard error
  make_results("c.csv", "1.5", (const char*[]){"--dt", "5e-4", NULL});
  HYDYN("compare", "a.csv", "c.csv", "--channels", "p:*");
  ck_assert_msg(result.status == 0, "%s", result.err);
  ASSERT_HAS(result.err, "interpolated");
  ASSERT_HAS(result.out, "compare: channels=3 ");
  double v[4];
  table_row(result.out, "p:V2", v);
  ck_assert(v[0] > 0);
  HYDYN("compare", "a.csv", "c.csv", "--channels", "p:*", "--tol", "1e-9");
  ck_assert_int_eq(result.status, 1);
}
END_TEST

// Writes text to tmp_dir/name.
static void write_file(const char* name, const char* text) {
  char path[256];
  tmp_file(path, sizeof path, name);
  FILE* fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fclose(fp);
}

START_TEST(compare_interpolates_exactly) {
  make_tmp_dir("hydyn_plot");
  // B runs half a second later, x = t^2 in both: on A's times 1, 2, 3 (the overlap; A's t = 0
  // is before B starts) B's straight lines give t^2 + 0.25; y is linear, so B matches A
  write_file("a.csv",
             "time[s],x[m],y[Pa],a_only[N]\n0,0,1000000,1\n1,1,2000000,1\n2,4,3000000,1\n"
             "3,9,4000000,1\n");
  write_file("b.csv",
             "time[s],x[m],y[Pa],b_only\n0.5,0.25,1500000,2\n1.5,2.25,2500000,2\n"
             "2.5,6.25,3500000,2\n3.5,12.25,4500000,2\n");
  HYDYN("compare", "a.csv", "b.csv", "--data", "d.csv", "--diff");
  ck_assert_msg(result.status == 0, "%s", result.err);
  double v[4];
  table_row(result.out, "x", v);
  ck_assert_double_eq(v[0], 0.25);
  ck_assert_double_eq(v[1], 0.25);
  ck_assert_double_eq(v[2], 9.25);
  ck_assert_double_eq_tol(v[3], 0.25 / 9.25, 1e-6);
  table_row(result.out, "y", v);
  ck_assert_double_eq(v[0], 0);
  ASSERT_HAS(result.out, "compare: channels=2 ");
  ASSERT_HAS(result.out, "worst=x");
  ASSERT_HAS(result.err, "interpolated");
  ASSERT_HAS(result.err, "a_only");
  ASSERT_HAS(result.err, "b_only");
  read_table("d.csv", &tab_b);
  const char* const want[] = {"time[s]", "A:x[m]",   "B:x[m]",   "A-B:x[m]",
                              "A:y[Pa]", "B:y[Pa]", "A-B:y[Pa]"};
  ck_assert_int_eq(tab_b.ncol, 7);
  for (int c = 0; c < 7; c++) ck_assert_str_eq(tab_b.name[c], want[c]);
  ck_assert_int_eq(tab_b.nrow, 3);
  for (long i = 0; i < 3; i++) {
    const double t = (double)(i + 1);
    ck_assert_double_eq(tab_b.col[0][i], t);
    ck_assert_double_eq(tab_b.col[1][i], t * t);
    ck_assert_double_eq(tab_b.col[2][i], t * t + 0.25);
    ck_assert_double_eq(tab_b.col[3][i], -0.25);
    ck_assert_double_eq(tab_b.col[5][i], tab_b.col[4][i]);
  }
  // time ranges that do not meet
  write_file("late.csv", "time[s],x[m]\n5,1\n6,2\n");
  HYDYN("compare", "a.csv", "late.csv");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "overlap");
}
END_TEST

START_TEST(compare_figure_and_data) {
  make_tmp_dir("hydyn_plot");
  make_results("a.csv", "0.5", (const char*[]){"--formulation", "penalty", NULL});
  make_results("b.csv", "0.5", (const char*[]){"--formulation", "double-step", NULL});
  HYDYN("compare", "a.csv", "b.csv", "--channels", "p:*,zd:O", "-o", "c.png", "--data", "d.csv");
  ck_assert_msg(result.status == 0, "%s", result.err);
  assert_figure("c.png");
  read_table("a.csv", &tab_a);
  read_table("b.csv", &tab_b);
  read_table("d.csv", &tab_c);
  ck_assert_int_eq(tab_c.ncol, 1 + 2 * 4);
  same_column(&tab_c, "time[s]", &tab_a, "time[s]");
  const char* const fields[] = {"p:V1[Pa]", "p:V2[Pa]", "p:V3[Pa]", "zd:O[rad/s]"};
  for (int k = 0; k < 4; k++) {
    char fa[64], fb[64];
    snprintf(fa, sizeof fa, "A:%s", fields[k]);
    snprintf(fb, sizeof fb, "B:%s", fields[k]);
    ck_assert_str_eq(tab_c.name[1 + 2 * k], fa);
    same_column(&tab_c, fa, &tab_a, fields[k]);
    same_column(&tab_c, fb, &tab_b, fields[k]);
  }
  // the other formats and the difference panels; no -o: no figure, and no gnuplot needed
  HYDYN("compare", "a.csv", "b.csv", "--diff", "-o", "c.svg");
  ck_assert_msg(result.status == 0, "%s", result.err);
  assert_figure("c.svg");
  HYDYN("compare", "a.csv", "b.csv", "-o", "c.pdf", "--channels", "F:*");
  ck_assert_msg(result.status == 0, "%s", result.err);
  assert_figure("c.pdf");
  // refusals
  HYDYN("compare", "a.csv");
  ck_assert_int_eq(result.status, 2);
  HYDYN("compare", "a.csv", "b.csv", "--channels", "nosuch:*");
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "nosuch:*");
  HYDYN("compare", "a.csv", "b.csv", "--tol", "-1");
  ck_assert_int_eq(result.status, 2);
  HYDYN("compare", "a.csv", "b.csv", "-o", "c.gif");
  ck_assert_int_eq(result.status, 2);
  HYDYN("compare", "a.csv", "missing.csv");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "missing.csv");
}
END_TEST

Suite* cli_plot_suite(void) {
  Suite* s = suite_create("cli_plot");
  TCase* tp = tcase_create("plot");
  tcase_set_timeout(tp, 120);
  tcase_add_test(tp, help_lists_options);
  tcase_add_test(tp, plot_every_format);
  tcase_add_test(tp, plot_data_equals_results);
  tcase_add_test(tp, plot_default_selection);
  tcase_add_test(tp, plot_vs_channel);
  tcase_add_test(tp, plot_refusals);
  tcase_add_test(tp, plot_without_gnuplot);
  tcase_add_test(tp, plot_hdf5);
  suite_add_tcase(s, tp);
  TCase* tk = tcase_create("compare");
  tcase_set_timeout(tk, 120);
  tcase_add_test(tk, compare_identical);
  tcase_add_test(tk, compare_different_runs);
  tcase_add_test(tk, compare_interpolates_exactly);
  tcase_add_test(tk, compare_figure_and_data);
  suite_add_tcase(s, tk);
  return s;
}
