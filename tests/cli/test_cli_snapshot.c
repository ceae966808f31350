// `hydyn snapshot` and `hydyn info`, run as child processes: the figure files (PNG, SVG, PDF by
// their magic bytes), the geometry of the --data file against four-bar A's kinematics worked out
// here from models/four-bar-a.yaml and from the recorded coordinates, the cylinder's barrel and
// rod, the refusals (results of another model, bad options, no gnuplot) with their statuses,
// and info's description of four-bar A against what `hydyn run` notes when it starts, and of the
// knife edges of the articulated vehicle.
#define _XOPEN_SOURCE 700  // setenv

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_harness.h"
#include "fixture.h"

static cmd_result result;  // large: static, one per test process

// Four-bar A as models/four-bar-a.yaml gives it: joint O at the origin, C at L1/3 = 3 m on body
// 1, D at L2 = sqrt(2) m on body 2, body 3 of L3 = 2 m with F at its middle; ground markers E
// (0, -1) and G (0, -2); z0 = 0, -135, -45 deg; cylinder G -> F, stroke 1.2 m, dead length
// 1.2 m.
#define FBA_OC 3.0
#define FBA_CD 1.4142135623730951
#define FBA_DE 2.0
#define FBA_DF 1.0
#define FBA_DEAD 1.2
#define FBA_STROKE 1.2
#define DEG (3.14159265358979323846 / 180)

// 1 when gnuplot can be started (PATH), so that the figure tests say why they fail otherwise.
static int have_gnuplot(void) {
  const char* path = getenv("PATH");
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
  for (char* dir = strtok(buf, ":"); dir; dir = strtok(NULL, ":")) {
    char file[4200];
    snprintf(file, sizeof file, "%s/gnuplot", dir);
    if (access(file, X_OK) == 0) return 1;
  }
  return 0;
}

// A run of `model` to t_end into tmp_dir/name.
static void run_model(const char* model, const char* t_end, const char* name) {
  run_hydyn((const char*[]){"run", model, "--t-end", t_end, "--out", name, "--quiet", NULL}, NULL,
            &result);
  ck_assert_msg(result.status == 0, "run %s failed: %s", model, result.err);
}

static long file_size(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

//----- figures ---------------------------------------------------------------------------------

START_TEST(figures_png_svg_pdf) {
  make_tmp_dir("hydyn_snapshot");
  ck_assert_msg(have_gnuplot(), "gnuplot is not installed (apt-get install gnuplot-nox)");
  run_model("four-bar-a", "2", "fba.csv");
  static const struct {
    const char* name;
    const char* magic;
    size_t len;
  } kFig[] = {{"f.png", "\x89PNG\r\n\x1a\n", 8}, {"f.svg", "<svg", 4}, {"f.pdf", "%PDF-", 5}};
  for (size_t k = 0; k < sizeof kFig / sizeof kFig[0]; k++) {
    run_hydyn((const char*[]){"snapshot", "four-bar-a", "fba.csv", "--every", "0.5", "-o",
                              kFig[k].name, NULL},
              NULL, &result);
    ck_assert_msg(result.status == 0, "%s: status %d: %s", kFig[k].name, result.status, result.err);
    char path[128];
    tmp_path(path, sizeof path, kFig[k].name);
    ck_assert_msg(file_size(path) > 1000, "%s: %ld bytes", kFig[k].name, file_size(path));
    static char buf[OUT_MAX];
    slurp(path, buf);
    // an SVG may start with an XML declaration: its element within the first lines
    const int ok = kFig[k].magic[0] == '<' ? strstr(buf, kFig[k].magic) != NULL
                                           : memcmp(buf, kFig[k].magic, kFig[k].len) == 0;
    ck_assert_msg(ok, "%s does not start as a %s file", kFig[k].name, kFig[k].name + 2);
  }
  // the default name, in the working directory
  run_hydyn((const char*[]){"snapshot", "four-bar-a", "fba.csv", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  char path[128];
  tmp_path(path, sizeof path, "four-bar-a-snapshots.png");
  ck_assert_msg(file_size(path) > 1000, "no default figure '%s'", path);
}
END_TEST

//----- the --data geometry ---------------------------------------------------------------------

enum { SEG_MAX = 4096 };

typedef struct seg {
  double t;
  char kind[32], name[64];
  double x1, y1, x2, y2;
} seg;

static seg segs[SEG_MAX];
static int nseg;

static void read_data(const char* path) {
  FILE* fp = fopen(path, "r");
  ck_assert_msg(fp != NULL, "no data file '%s'", path);
  char line[512];
  ck_assert(fgets(line, sizeof line, fp) != NULL);
  ck_assert_str_eq(line, "time[s],kind,name,x1[m],y1[m],x2[m],y2[m]\n");
  nseg = 0;
  while (fgets(line, sizeof line, fp)) {
    ck_assert_int_lt(nseg, SEG_MAX);
    seg* s = &segs[nseg];
    ck_assert_msg(sscanf(line, "%lf,%31[^,],%63[^,],%lf,%lf,%lf,%lf", &s->t, s->kind, s->name,
                         &s->x1, &s->y1, &s->x2, &s->y2) == 7,
                  "bad data line '%s'", line);
    nseg++;
  }
  fclose(fp);
}

// The segment of kind and name at time t (the n-th such, from 0), or NULL.
static const seg* find_seg(double t, const char* kind, const char* name, int n) {
  for (int i = 0; i < nseg; i++) {
    if (segs[i].t == t && strcmp(segs[i].kind, kind) == 0 && strcmp(segs[i].name, name) == 0 &&
        n-- == 0) {
      return &segs[i];
    }
  }
  return NULL;
}

// The distinct frame times, in file order.
static int frame_times(double* t, int max) {
  int n = 0;
  for (int i = 0; i < nseg; i++) {
    if (n == 0 || t[n - 1] != segs[i].t) {
      ck_assert_int_lt(n, max);
      t[n++] = segs[i].t;
    }
  }
  return n;
}

// z:O, z:C, z:D of the row at time t of a results CSV.
static void recorded_z(const char* path, double t, double z[3]) {
  FILE* fp = fopen(path, "r");
  ck_assert_ptr_nonnull(fp);
  static char line[1 << 14];
  ck_assert(fgets(line, sizeof line, fp) != NULL);
  int col[3] = {-1, -1, -1}, c = 0;
  static const char* const want[3] = {"z:O[rad]", "z:C[rad]", "z:D[rad]"};
  for (char* f = strtok(line, ",\n"); f; f = strtok(NULL, ",\n"), c++) {
    for (int k = 0; k < 3; k++) col[k] = strcmp(f, want[k]) == 0 ? c : col[k];
  }
  ck_assert_msg(col[0] >= 0 && col[1] >= 0 && col[2] >= 0, "no z columns in '%s'", path);
  while (fgets(line, sizeof line, fp)) {
    double v[64];
    int n = 0;
    for (char* f = strtok(line, ",\n"); f && n < 64; f = strtok(NULL, ",\n")) v[n++] = atof(f);
    if (v[0] == t) {
      for (int k = 0; k < 3; k++) z[k] = v[col[k]];
      fclose(fp);
      return;
    }
  }
  fclose(fp);
  ck_abort_msg("no row at t = %.17g in '%s'", t, path);
}

#define ASSERT_POINT(s, x, y, tol)                                                       \
  do {                                                                                   \
    ck_assert_msg(fabs((s)->x1 - (x)) < (tol) && fabs((s)->y1 - (y)) < (tol),            \
                  "%s %s at t = %g: (%.12g, %.12g), expected (%.12g, %.12g)", (s)->kind, \
                  (s)->name, (s)->t, (s)->x1, (s)->y1, (double)(x), (double)(y));        \
  } while (0)

// The four-bar's points at coordinates z, worked out from the model's lengths.
typedef struct fba_points {
  double C[2], D[2], E3[2], F[2];
} fba_points;

static fba_points fba_at(const double z[3]) {
  const double a1 = z[0], a2 = z[0] + z[1], a3 = z[0] + z[1] + z[2];
  fba_points p;
  p.C[0] = FBA_OC * cos(a1), p.C[1] = FBA_OC * sin(a1);
  p.D[0] = p.C[0] + FBA_CD * cos(a2), p.D[1] = p.C[1] + FBA_CD * sin(a2);
  p.E3[0] = p.D[0] + FBA_DE * cos(a3), p.E3[1] = p.D[1] + FBA_DE * sin(a3);
  p.F[0] = p.D[0] + FBA_DF * cos(a3), p.F[1] = p.D[1] + FBA_DF * sin(a3);
  return p;
}

START_TEST(data_geometry) {
  make_tmp_dir("hydyn_snapshot");
  ck_assert_msg(have_gnuplot(), "gnuplot is not installed (apt-get install gnuplot-nox)");
  run_model("four-bar-a", "2", "fba.csv");
  run_hydyn((const char*[]){"snapshot", "four-bar-a", "fba.csv", "--every", "1", "-o", "f.svg",
                            "--data", "d.csv", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  ASSERT_HAS(result.out, "snapshot: figure=f.svg frames=3 t=0..2 axes=x,y data=d.csv");
  char path[128];
  tmp_path(path, sizeof path, "d.csv");
  read_data(path);

  // frames at t = 0, 1, 2 s: the rows at or after them
  double t[8];
  ck_assert_int_eq(frame_times(t, 8), 3);
  ck_assert(t[0] == 0);
  ck_assert(fabs(t[1] - 1) < 1e-9 && fabs(t[2] - 2) < 1e-9);

  // t = 0: the model's initial configuration, from its lengths and z0 (exact up to round-off)
  const double z0[3] = {0 * DEG, -135 * DEG, -45 * DEG};
  const fba_points p0 = fba_at(z0);
  ck_assert(fabs(p0.C[0] - 3) < 1e-12 && fabs(p0.D[0] - 2) < 1e-12 && fabs(p0.D[1] + 1) < 1e-12);
  const seg* s = find_seg(0, "joint", "O", 0);
  ck_assert_ptr_nonnull(s);
  ASSERT_POINT(s, 0, 0, 1e-12);
  ck_assert_ptr_nonnull(s = find_seg(0, "joint", "C", 0));
  ASSERT_POINT(s, p0.C[0], p0.C[1], 1e-9);  // the crank tip
  ck_assert_ptr_nonnull(s = find_seg(0, "joint", "D", 0));
  ASSERT_POINT(s, p0.D[0], p0.D[1], 1e-9);
  ck_assert_ptr_nonnull(find_seg(0, "ground", "O", 0));
  // the loop closes at E: body 3 ends on the ground marker, and the cut joint joins them
  ck_assert_ptr_nonnull(s = find_seg(0, "ground", "E", 0));
  ASSERT_POINT(s, 0, -1, 1e-12);
  ck_assert_ptr_nonnull(s = find_seg(0, "cut", "E", 0));
  ASSERT_POINT(s, p0.E3[0], p0.E3[1], 1e-9);
  ck_assert(fabs(s->x2 - 0) < 1e-12 && fabs(s->y2 + 1) < 1e-12);
  // body 1 is a line from O to C; body 3 a star from D to E3 and to F
  ck_assert_ptr_nonnull(s = find_seg(0, "body", "body1", 0));
  ASSERT_POINT(s, 0, 0, 1e-12);
  ck_assert(fabs(s->x2 - p0.C[0]) < 1e-9 && fabs(s->y2 - p0.C[1]) < 1e-9);
  int hits = 0;
  for (int n = 0; (s = find_seg(0, "body", "body3", n)); n++) {
    ASSERT_POINT(s, p0.D[0], p0.D[1], 1e-9);
    hits += fabs(s->x2 - p0.E3[0]) < 1e-9 && fabs(s->y2 - p0.E3[1]) < 1e-9;
    hits += 2 * (fabs(s->x2 - p0.F[0]) < 1e-9 && fabs(s->y2 - p0.F[1]) < 1e-9);
  }
  ck_assert_int_eq(hits, 3);

  // every frame: the joints where the recorded coordinates put them, and the cylinder
  tmp_path(path, sizeof path, "fba.csv");
  int moved = 0;
  for (int f = 0; f < 3; f++) {
    double z[3];
    recorded_z(path, t[f], z);
    const fba_points p = fba_at(z);
    ck_assert_ptr_nonnull(s = find_seg(t[f], "joint", "C", 0));
    ASSERT_POINT(s, p.C[0], p.C[1], 1e-9);
    moved |= fabs(s->y1 - p0.C[1]) > 1e-3;  // the valve opens at 1 s: the crank lifts
    ck_assert_ptr_nonnull(s = find_seg(t[f], "joint", "D", 0));
    ASSERT_POINT(s, p.D[0], p.D[1], 1e-9);

    // barrel from G, rod to F, on the line G -> F, together spanning it (they overlap inside
    // the barrel); the barrel is the stroke long (dead length = stroke: no base), the piston
    // at chamber a's length |GF| - dead from G (cli_mechanism.h, hy_snapshot_cylinder)
    const seg* b = find_seg(t[f], "barrel", "cylinder", 0);
    const seg* r = find_seg(t[f], "rod", "cylinder", 0);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(r);
    ASSERT_POINT(b, 0, -2, 1e-12);
    ck_assert_msg(fabs(r->x2 - p.F[0]) < 1e-9 && fabs(r->y2 - p.F[1]) < 1e-9,
                  "rod ends at (%g, %g), F at (%g, %g)", r->x2, r->y2, p.F[0], p.F[1]);
    const double len = hypot(p.F[0], p.F[1] + 2);
    const double lb = hypot(b->x2 - b->x1, b->y2 - b->y1);
    const double lr = hypot(r->x2 - r->x1, r->y2 - r->y1);
    ck_assert_msg(lb + lr >= len - 1e-9 && lb <= len + 1e-9 && lr <= len + 1e-9,
                  "barrel %g + rod %g do not span |GF| = %g", lb, lr, len);
    ck_assert_double_eq_tol(lb, FBA_STROKE, 1e-9);
    ck_assert_double_eq_tol(lr, FBA_DEAD, 1e-9);  // a rigid rod: the dead length less no base
    // collinear: the barrel's end and the piston on the line G -> F
    const double ux = p.F[0] / len, uy = (p.F[1] + 2) / len;
    ck_assert_double_eq_tol(fabs((b->x2 - 0) * uy - (b->y2 + 2) * ux), 0, 1e-9);
    ck_assert_double_eq_tol(fabs((r->x1 - 0) * uy - (r->y1 + 2) * ux), 0, 1e-9);
  }
  ck_assert_msg(moved, "the crank did not move between the frames");
}
END_TEST

//----- refusals --------------------------------------------------------------------------------

START_TEST(results_of_another_model) {
  make_tmp_dir("hydyn_snapshot");
  run_model("crane", "0.01", "crane.csv");
  run_hydyn((const char*[]){"snapshot", "four-bar-a", "crane.csv", "-o", "f.png", NULL}, NULL,
            &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "z:O");
  ASSERT_HAS(result.err, "z:C");
  ASSERT_HAS(result.err, "z:D");
  ASSERT_HAS(result.err, "another model");
  ASSERT_HAS(result.err, "z:theta1");  // what the file holds instead
  char path[128];
  tmp_path(path, sizeof path, "f.png");
  ck_assert_int_eq(file_size(path), -1);
  // the right model, but its coordinates not recorded
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "0.01", "--channels", "p:*", "--out",
                            "p.csv", "--quiet", NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "%s", result.err);
  run_hydyn((const char*[]){"snapshot", "four-bar-a", "p.csv", "-o", "f.png", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "no joint coordinates");
  ASSERT_HAS(result.err, "z:O");
}
END_TEST

START_TEST(bad_options) {
  make_tmp_dir("hydyn_snapshot");
  run_model("four-bar-a", "0.5", "fba.csv");
  static const struct {
    const char* args[8];
    int status;
    const char* says;
  } kCase[] = {
      {{"--every", "0"}, 2, "invalid --every '0'"},
      {{"--every", "-1"}, 2, "invalid --every"},
      {{"--every", "abc"}, 2, "invalid --every 'abc'"},
      {{"--every", "0.001"}, 2, "frames"},  // 501 frames
      {{"--every"}, 2, "needs a value"},
      {{"-o", "f.jpg"}, 2, ".png, .svg or .pdf"},
      {{"--times", "0.1,9"}, 2, "after the last row"},
      {{"--times", "1,,2"}, 2, "invalid --times"},
      {{"--times", "0.1", "--every", "0.2"}, 2, "not both"},
      {{"--plane", "ab"}, 2, "invalid --plane 'ab'"},
      {{"--frobnicate"}, 2, "unknown option '--frobnicate'"},
      {{"--data", "fba.csv"}, 2, "is the results file"},  // the cases after it read it whole
  };
  for (size_t k = 0; k < sizeof kCase / sizeof kCase[0]; k++) {
    const char* argv[16] = {"snapshot", "four-bar-a", "fba.csv"};
    int n = 3;
    for (int i = 0; kCase[k].args[i]; i++) argv[n++] = kCase[k].args[i];
    argv[n] = NULL;
    run_hydyn(argv, NULL, &result);
    ck_assert_msg(result.status == kCase[k].status, "case %zu (%s): status %d: %s", k,
                  kCase[k].args[0], result.status, result.err);
    ASSERT_HAS(result.err, kCase[k].says);
  }
  run_hydyn((const char*[]){"snapshot", "four-bar-a", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "no results file");
  run_hydyn((const char*[]){"snapshot", "no-such-model", "fba.csv", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "four-bar-a");  // the built-in models are listed
  run_hydyn((const char*[]){"snapshot", "four-bar-a", "missing.csv", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "missing.csv");
  // a machine without gnuplot: said, with the package to install
  setenv("HYDYN_GNUPLOT", "/nonexistent/gnuplot", 1);
  run_hydyn(
      (const char*[]){"snapshot", "four-bar-a", "fba.csv", "-o", "f.png", "--data", "d.csv", NULL},
      NULL, &result);
  unsetenv("HYDYN_GNUPLOT");
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "gnuplot-nox");
  char path[128];
  tmp_path(path, sizeof path, "d.csv");
  ck_assert_msg(file_size(path) == -1, "a data file without its figure");
  tmp_path(path, sizeof path, "f.png");
  ck_assert_int_eq(file_size(path), -1);
}
END_TEST

START_TEST(help_lists_options) {
  make_tmp_dir("hydyn_snapshot");
  run_hydyn((const char*[]){"snapshot", "--help", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  static const char* const kOpt[] = {"--every", "--times", "-o, --out", "--plane",
                                     "--data",  "--help",  "default",   "Exit status"};
  for (size_t k = 0; k < sizeof kOpt / sizeof kOpt[0]; k++) ASSERT_HAS(result.out, kOpt[k]);
  run_hydyn((const char*[]){"info", "--help", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ASSERT_HAS(result.out, "usage: hydyn info MODEL");
  ASSERT_HAS(result.out, "--help");
  ASSERT_HAS(result.out, "Exit status");
}
END_TEST

//----- info ------------------------------------------------------------------------------------

// The line of text that starts with `start` (leading blanks skipped), into buf.
static int line_starting(const char* text, const char* start, char* buf, size_t size) {
  for (const char* p = text; p && *p;) {
    const char* q = p;
    while (*q == ' ') q++;
    const char* end = strchr(p, '\n');
    if (strncmp(q, start, strlen(start)) == 0) {
      const size_t len = end ? (size_t)(end - q) : strlen(q);
      snprintf(buf, size, "%.*s", (int)len, q);
      return 1;
    }
    p = end ? end + 1 : NULL;
  }
  return 0;
}

START_TEST(info_four_bar_a) {
  make_tmp_dir("hydyn_snapshot");
  run_hydyn((const char*[]){"info", "four-bar-a", NULL}, NULL, &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  static char info[OUT_MAX];
  memcpy(info, result.out, sizeof info);
  char line[1024];
  // bodies with parent, mass, joint and initial coordinate
  ck_assert(line_starting(info, "body1 ", line, sizeof line));
  ck_assert_msg(strstr(line, "ground") && strstr(line, "225") && strstr(line, " O ") &&
                    strstr(line, "revolute") && strstr(line, "0 deg"),
                "body1: '%s'", line);
  ck_assert(line_starting(info, "body2 ", line, sizeof line));
  ck_assert_msg(strstr(line, "body1") && strstr(line, "35") && strstr(line, "-135 deg"),
                "body2: '%s'", line);
  ck_assert(line_starting(info, "body3 ", line, sizeof line));
  ck_assert_msg(strstr(line, "body2") && strstr(line, "50") && strstr(line, "-45 deg"),
                "body3: '%s'", line);
  // one degree of freedom: 3 coordinates, 2 loop equations of rank 2
  ck_assert(line_starting(info, "degrees of freedom (ndof)", line, sizeof line));
  ck_assert_msg(atoi(line + strlen("degrees of freedom (ndof)")) == 1, "'%s'", line);
  ck_assert(line_starting(info, "coordinates (nz)", line, sizeof line));
  ck_assert_int_eq(atoi(line + strlen("coordinates (nz)")), 3);
  ck_assert(line_starting(info, "loop-closure equations (neq)", line, sizeof line));
  ck_assert_int_eq(atoi(line + strlen("loop-closure equations (neq)")), 2);
  // the loop: the revolute cut joint E between body 3's end and the ground point
  ck_assert(line_starting(info, "E    revolute", line, sizeof line));
  ck_assert_msg(strstr(line, "E3 (body3)") && strstr(line, "E (ground)") && strstr(line, "2 ("),
                "loop: '%s'", line);
  // the circuit's volumes with their initial pressures
  ck_assert(line_starting(info, "circuit main", line, sizeof line));
  ck_assert(line_starting(info, "V1 ", line, sizeof line));
  ck_assert_msg(strstr(line, "3.14e-05") && strstr(line, "5.0243"), "V1: '%s'", line);
  ck_assert(line_starting(info, "V3 ", line, sizeof line));
  ck_assert_msg(strstr(line, "given") && strstr(line, "3.5"), "V3: '%s'", line);
  ck_assert(line_starting(info, "cylinder ", line, sizeof line));
  ASSERT_HAS(info, "11029.38 N (push)");
  ASSERT_HAS(info, "penalty");
  ASSERT_HAS(info, "trapezoidal");

  // the same facts, in the same numbers, as `hydyn run` notes at its start
  run_hydyn((const char*[]){"run", "four-bar-a", "--t-end", "0.001", "--no-out", NULL}, NULL,
            &result);
  ck_assert_int_eq(result.status, 0);
  char note[1024];
  ck_assert(line_starting(result.err, "note: initial pressures:", note, sizeof note));
  ASSERT_HAS(info, note + strlen("note: "));
  ck_assert(line_starting(result.err, "note: cylinder 'cylinder' holds", note, sizeof note));
  ASSERT_HAS(info, note + strlen("note: "));
}
END_TEST

// The articulated vehicle's two knife edges: counted among the elements, their rows in the
// degrees of freedom (4 coordinates, no loops, 2 velocity degrees of freedom: the speed and the
// articulation rate) and their section; a model without them has none of it.
START_TEST(info_nonholonomic) {
  make_tmp_dir("hydyn_snapshot");
  run_hydyn((const char*[]){"info", HY_SOURCE_DIR "/models/articulated-vehicle.yaml", NULL}, NULL,
            &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  static char info[OUT_MAX];
  memcpy(info, result.out, sizeof info);
  char line[1024];
  ck_assert(line_starting(info, "elements ", line, sizeof line));
  ck_assert_msg(strstr(line, "0 cut joints, 2 nonholonomic constraints, 6 markers"), "'%s'", line);
  ck_assert(line_starting(info, "degrees of freedom (ndof)", line, sizeof line));
  ck_assert_int_eq(atoi(line + strlen("degrees of freedom (ndof)")), 4);
  ck_assert(line_starting(info, "nonholonomic constraints (l)", line, sizeof line));
  ck_assert_int_eq(atoi(line + strlen("nonholonomic constraints (l)")), 2);
  ck_assert(line_starting(info, "velocity degrees of freedom (ndof - l)", line, sizeof line));
  ck_assert_msg(atoi(line + strlen("velocity degrees of freedom (ndof - l)")) == 2, "'%s'", line);
  ASSERT_HAS(info, "\nnonholonomic constraints (2)\n");
  // each constraint: type, marker (body), axis, and |B zd| at t = 0, the last cell: hydyn starts
  // from velocities projected onto the constraints, so that is round-off
  static const char* const kEdge[][2] = {{"rear_wheels ", "rear_axle (rear_frame)"},
                                         {"front_wheels ", "front_axle (front_frame)"}};
  for (int k = 0; k < 2; k++) {
    ck_assert_msg(line_starting(info, kEdge[k][0], line, sizeof line), "no %s in:\n%s", kEdge[k][0],
                  info);
    ck_assert_msg(
        strstr(line, "knife_edge") && strstr(line, kEdge[k][1]) && strstr(line, "(0, 1, 0)"),
        "'%s'", line);
    const char* last = strrchr(line, ' ');
    ck_assert_msg(fabs(strtod(last, NULL)) < 1e-9, "|B zd| in '%s'", line);
  }
  // the help says what is shown
  run_hydyn((const char*[]){"info", "--help", NULL}, NULL, &result);
  ASSERT_HAS(result.out, "nonholonomic constraints");
  // without knife edges: no row, no section, the elements line as before
  run_hydyn((const char*[]){"info", "four-bar-a", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ck_assert_msg(!strstr(result.out, "nonholonomic") && !strstr(result.out, "velocity degrees"),
                "%s", result.out);
}
END_TEST

START_TEST(info_refusals) {
  make_tmp_dir("hydyn_snapshot");
  run_hydyn((const char*[]){"info", "no-such-model", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 1);
  ASSERT_HAS(result.err, "four-bar-a");
  ASSERT_HAS(result.err, "crane");
  run_hydyn((const char*[]){"info", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "no model given");
  run_hydyn((const char*[]){"info", "four-bar-a", "crane", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  run_hydyn((const char*[]){"info", "four-bar-a", "--frobnicate", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 2);
  ASSERT_HAS(result.err, "unknown option");
  // an open tree says so, and a model without hydraulics too
  run_hydyn((const char*[]){"info", "double-pendulum", NULL}, NULL, &result);
  ck_assert_int_eq(result.status, 0);
  ASSERT_HAS(result.out, "loops: none");
  ASSERT_HAS(result.out, "hydraulics: none");
}
END_TEST

Suite* cli_snapshot_suite(void) {
  Suite* s = suite_create("cli_snapshot");
  TCase* tc = tcase_create("snapshot");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, figures_png_svg_pdf);
  tcase_add_test(tc, data_geometry);
  tcase_add_test(tc, results_of_another_model);
  tcase_add_test(tc, bad_options);
  tcase_add_test(tc, help_lists_options);
  tcase_add_test(tc, info_four_bar_a);
  tcase_add_test(tc, info_nonholonomic);
  tcase_add_test(tc, info_refusals);
  suite_add_tcase(s, tc);
  return s;
}
