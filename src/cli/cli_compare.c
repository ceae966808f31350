// `hydyn compare A B [options]`: how far two results files (CSV or HDF5) are apart, channel by
// channel, over their common time range: a table of the largest and RMS differences on standard
// output, an exit status against tolerances for scripts and CI, and on request a figure that
// overlays the two runs (docs/cli.md).
#define _POSIX_C_SOURCE 200809L  // stat, strdup

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_figure.h"
#include "cli/cli_gnuplot.h"
#include "hydyn/channels.h"
#include "io/io.h"


// The command line of compare, parsed.
typedef struct compare_args {
  const char* file[2];   // A, B
  const char* channels;  // NULL: every common channel but time and the solver figures
  hy_fig_args fig;       // out NULL: no figure; title NULL: "A vs B"
  int has_tol, has_rtol, diff;
  double tol, rtol;
} compare_args;

static void compare_usage(FILE* fp) {
  fprintf(fp,
          "usage: hydyn compare A B [options]\n"
          "\n"
          "Compares two results files of 'hydyn run' (CSV, or HDF5 for .h5 and .hdf5) channel\n"
          "by channel and prints, for each channel both files have, its unit, max |A-B|,\n"
          "RMS(A-B), the scale max(|A|, |B|) and rel = max |A-B| / scale (0 when both are 0),\n"
          "then one line: compare: channels=N max_rel=X worst=CHANNEL (worst=none when no\n"
          "channel differs). When the time columns differ, B is interpolated linearly onto A's\n"
          "times and only A's rows within both time ranges are compared (standard error says\n"
          "so); identical time columns are compared row by row. Channels only one file has are\n"
          "listed on standard error.\n"
          "\n"
          "options:\n"
          "  --channels LIST  channels to compare: names and globs (* any characters, ? one),\n"
          "                   comma-separated; default: every channel of both files but time\n"
          "                   and the solver figures iter, iter_total, residual, step_wall,\n"
          "                   violation and violation_nh (wall-clock, iteration and\n"
          "                   round-off noise, not results)\n"
          "  --tol X          exit status 1 when a channel's max |A-B| > X, X >= 0, in the\n"
          "                   channel's SI unit (default: no limit)\n"
          "  --rtol X         exit status 1 when a channel's rel > X, X >= 0 (default: no\n"
          "                   limit)\n"
          "  -o, --out FIG    also draw a figure, .png, .svg or .pdf: A solid, B dashed, one\n"
          "                   colour per channel, one panel per unit; with the default channels\n"
          "                   only the first %d units (default: no figure)\n"
          "  --diff           add to the figure a panel of A-B per unit (the default channels:\n"
          "                   the first %d units)\n"
          "  --data FILE      write the compared numbers as CSV: A's time, then per channel\n"
          "                   A:NAME, B:NAME (B interpolated onto A's times) and with --diff\n"
          "                   A-B:NAME, header name[unit], SI values, %%.17g; every channel\n"
          "                   compared (no cap), no gnuplot needed without -o (default: none)\n"
          "  --title TEXT     the figure's title (default: 'A vs B' with the file names; ''\n"
          "                   for none)\n"
          "  --size WxH       the figure's size in pixels, W %d to %d, H %d to %d (default:\n"
          "                   1000 wide, 230 per panel plus the axes, at most 1800 high)\n"
          "  -h, --help       show this help\n"
          "\n"
          "The figure needs gnuplot (Debian package gnuplot-nox); $HYDYN_GNUPLOT names another\n"
          "executable. Exit status: 0 both files read and no tolerance exceeded; 1 a file\n"
          "cannot be read, no channel or time in common, a tolerance exceeded, gnuplot missing\n"
          "or failing, a file cannot be written; 2 bad command line, including a channel\n"
          "neither file has.\n",
          HY_FIG_MAX_PANELS, HY_FIG_MAX_PANELS / 2, HY_FIG_MIN_WIDTH, HY_FIG_MAX_SIDE, HY_FIG_MIN_HEIGHT, HY_FIG_MAX_SIDE);
}

#define usage_error(...) hy_cli_usage_error("compare", __VA_ARGS__)

// Parses argv (argv[0] = "compare"). Returns -1 to go on, else the exit status.
static int parse_args(int argc, char** argv, compare_args* a) {
  int nfile = 0;
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      compare_usage(stdout);
      return HY_CLI_OK;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (nfile == 2) {
        return usage_error("unexpected argument '%s' (A is '%s', B is '%s')", arg, a->file[0],
                           a->file[1]);
      }
      a->file[nfile++] = arg;
      continue;
    }
    if (strcmp(arg, "--diff") == 0) {
      a->diff = 1;
      continue;
    }
    static const char* const valued[] = {"--channels", "--tol",   "--rtol", "--out",
                                         "-o",         "--data",  "--title", "--size"};
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(argc, argv, &i, valued,
                                         (int)(sizeof valued / sizeof valued[0]), &val, msg,
                                         sizeof msg);
    if (opt == -2) return usage_error("%s", msg);
    const int fig = opt >= 0 ? hy_fig_take_option("compare", valued[opt], val, &a->fig) : 1;
    if (fig != 1) {
      if (fig != 0) return fig;
      continue;
    }
    switch (opt) {
      case 0:
        if (!val[0]) return usage_error("--channels needs at least one name or glob");
        a->channels = val;
        break;
      case 1:
        if (hy_cli_parse_number(val, 1, &a->tol)) {
          return usage_error("invalid --tol '%s': expected a number >= 0 (the channels' units)",
                             val);
        }
        a->has_tol = 1;
        break;
      case 2:
        if (hy_cli_parse_number(val, 1, &a->rtol)) {
          return usage_error("invalid --rtol '%s': expected a number >= 0", val);
        }
        a->has_rtol = 1;
        break;
      default:
        return usage_error("unknown option '%s'", arg);
    }
  }
  if (nfile < 2) return usage_error(nfile ? "no file B given" : "no files given (A and B)");
  return -1;
}

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

static void print_error(const hy_error* e, hy_status s) {
  hy_error copy = *e;
  if (copy.code != s) {
    memset(&copy, 0, sizeof copy);
    copy.code = s;
  }
  char buf[1024];
  hy_error_format(&copy, buf, sizeof buf);
  fprintf(stderr, "hydyn compare: %s\n", buf);
}

//----- the channels both files have ------------------------------------------------------------

// The channels compared: column in A and in B, in the order of the selection (A's file order
// for the default one); those only one file has.
typedef struct selection {
  int n, *col_a, *col_b;
  int nonly[2], *only[2];  // columns of A (0) and B (1) the other file does not have
} selection;

static void selection_free(selection* s) {
  free(s->col_a);
  free(s->col_b);
  free(s->only[0]);
  free(s->only[1]);
}

// A list of columns of one file, each at most once, in the order they were selected.
typedef struct column_list {
  int n;
  int* col;    // nchan entries
  char* seen;  // nchan flags
} column_list;

// Appends the channels of r that pattern selects (NULL: the default set, without the solver
// figures). Returns HY_OK, HY_ERR_ARG with err when the pattern matches nothing, or another
// failure.
static hy_status add_selected(const hy_results* r, const char* pattern, column_list* l,
                              hy_error* err) {
  int* idx = NULL;
  int n = 0;
  const hy_status s = hy_results_select(r, pattern, &idx, &n, err);
  if (s != HY_OK) return s;
  for (int k = 0; k < n; k++) {
    const int c = idx[k];
    if (l->seen[c] || strcmp(r->name[c], "time") == 0) continue;
    if (!pattern && hy_fig_solver_channel(r->name[c])) continue;
    l->seen[c] = 1;
    l->col[l->n++] = c;
  }
  hy_results_free_selection(idx);
  return HY_OK;
}

// The selection by spec; an exit status (usage for a pattern that neither file matches).
static int select_channels(const hy_results* r[2], const char* spec, selection* sel) {
  memset(sel, 0, sizeof *sel);
  column_list l[2];
  int rc = HY_CLI_OK;
  for (int f = 0; f < 2; f++) {
    l[f].n = 0;
    l[f].col = malloc(sizeof(int) * (size_t)(r[f]->nchan + 1));
    l[f].seen = calloc((size_t)r[f]->nchan + 1, 1);
    if (!l[f].col || !l[f].seen) rc = HY_CLI_FAIL;
  }
  char* copy = spec ? strdup(spec) : NULL;
  if (spec && !copy) rc = HY_CLI_FAIL;
  if (rc != HY_CLI_OK) fputs("hydyn compare: out of memory\n", stderr);
  // pattern by pattern: one that only B matches names channels only B has, not an error
  char* save = NULL;
  char* p = copy ? strtok_r(copy, ",", &save) : NULL;
  while (rc == HY_CLI_OK && (p || !spec)) {
    hy_error err[2];
    memset(err, 0, sizeof err);
    hy_status s[2];
    for (int f = 0; f < 2; f++) s[f] = add_selected(r[f], p, &l[f], &err[f]);
    for (int f = 0; f < 2 && rc == HY_CLI_OK; f++) {
      if (s[f] != HY_OK && s[f] != HY_ERR_ARG) {
        print_error(&err[f], s[f]);
        rc = HY_CLI_FAIL;
      }
    }
    if (rc == HY_CLI_OK && s[0] == HY_ERR_ARG && s[1] == HY_ERR_ARG) {
      rc = usage_error("neither A nor B has a channel '%s': %s", p ? p : "",
                       err[0].code == s[0] ? err[0].msg : hy_status_str(s[0]));
    }
    if (!spec) break;
    p = strtok_r(NULL, ",", &save);
  }
  free(copy);
  if (rc == HY_CLI_OK) {
    const int max = l[0].n + l[1].n + 1;
    sel->col_a = malloc(sizeof(int) * (size_t)max);
    sel->col_b = malloc(sizeof(int) * (size_t)max);
    sel->only[0] = malloc(sizeof(int) * (size_t)max);
    sel->only[1] = malloc(sizeof(int) * (size_t)max);
    if (!sel->col_a || !sel->col_b || !sel->only[0] || !sel->only[1]) {
      fputs("hydyn compare: out of memory\n", stderr);
      rc = HY_CLI_FAIL;
    }
  }
  for (int k = 0; rc == HY_CLI_OK && k < l[0].n; k++) {
    const int c = l[0].col[k];
    const int cb = hy_results_find(r[1], r[0]->name[c]);
    if (cb >= 0) {
      sel->col_a[sel->n] = c;
      sel->col_b[sel->n++] = cb;
    } else {
      sel->only[0][sel->nonly[0]++] = c;
    }
  }
  for (int k = 0; rc == HY_CLI_OK && k < l[1].n; k++) {
    const int c = l[1].col[k];
    if (hy_results_find(r[0], r[1]->name[c]) < 0) sel->only[1][sel->nonly[1]++] = c;
  }
  for (int f = 0; f < 2; f++) {
    free(l[f].col);
    free(l[f].seen);
  }
  return rc;
}

//----- times -------------------------------------------------------------------------------------

// Where A's rows [i0, i1) fall in B: segment seg[k] and weight w[k] of row i0 + k
// (B at t = (1 - w) B[seg] + w B[seg + 1]).
typedef struct alignment {
  long i0, i1;
  int identical;  // the time columns are equal: B's row i is A's row i
  long* seg;
  double* w;
} alignment;

// Aligns B's times tb[0..nb) to A's ta[0..na). An exit status, with the reason on stderr.
static int align_times(const double* ta, long na, const double* tb, long nb, alignment* al) {
  memset(al, 0, sizeof *al);
  if (na == nb && memcmp(ta, tb, sizeof(double) * (size_t)na) == 0) {
    al->i0 = 0;
    al->i1 = na;
    al->identical = 1;
    return HY_CLI_OK;
  }
  for (long j = 1; j < nb; j++) {
    if (!(tb[j] >= tb[j - 1])) {
      fprintf(stderr, "hydyn compare: B's time decreases at row %ld (%.17g s after %.17g s)\n",
              j + 1, tb[j], tb[j - 1]);
      return HY_CLI_FAIL;
    }
  }
  for (long i = 1; i < na; i++) {
    if (!(ta[i] >= ta[i - 1])) {
      fprintf(stderr, "hydyn compare: A's time decreases at row %ld (%.17g s after %.17g s)\n",
              i + 1, ta[i], ta[i - 1]);
      return HY_CLI_FAIL;
    }
  }
  const double lo = fmax(ta[0], tb[0]), hi = fmin(ta[na - 1], tb[nb - 1]);
  long i0 = 0;
  while (i0 < na && ta[i0] < lo) i0++;
  long i1 = i0;
  while (i1 < na && ta[i1] <= hi) i1++;
  if (i1 == i0) {
    fprintf(stderr,
            "hydyn compare: the time ranges do not overlap: A %.9g to %.9g s, B %.9g to %.9g s\n",
            ta[0], ta[na - 1], tb[0], tb[nb - 1]);
    return HY_CLI_FAIL;
  }
  al->i0 = i0;
  al->i1 = i1;
  al->seg = malloc(sizeof(long) * (size_t)(i1 - i0));
  al->w = malloc(sizeof(double) * (size_t)(i1 - i0));
  if (!al->seg || !al->w) {
    fputs("hydyn compare: out of memory\n", stderr);
    return HY_CLI_FAIL;
  }
  long j = 0, blended = 0;
  for (long i = i0; i < i1; i++) {
    while (j + 1 < nb && tb[j + 1] <= ta[i]) j++;
    // at B's last time, or on one of B's times: B's value itself, not a blend
    if (j + 1 >= nb || tb[j] == ta[i]) {
      al->seg[i - i0] = j;
      al->w[i - i0] = 0;
    } else {
      al->seg[i - i0] = j;
      al->w[i - i0] = (ta[i] - tb[j]) / (tb[j + 1] - tb[j]);
      blended++;
    }
  }
  fprintf(stderr,
          "note: the time columns differ (A: %ld rows, %.9g to %.9g s; B: %ld rows, %.9g to "
          "%.9g s): %s A's %ld times from %.9g to %.9g s\n",
          na, ta[0], ta[na - 1], nb, tb[0], tb[nb - 1],
          blended ? "B is interpolated linearly onto" : "B has a row at each of", i1 - i0,
          ta[i0], ta[i1 - 1]);
  return HY_CLI_OK;
}

//----- the comparison ----------------------------------------------------------------------------

// One channel compared.
typedef struct channel_diff {
  const char* name;
  const char* unit;
  const double* a;  // A's values on the compared rows
  double* b;        // B's values on A's times (owned)
  double max_abs, rms, scale, rel;
} channel_diff;

static void compare_channel(channel_diff* d, long n) {
  double max_abs = 0, sum2 = 0, scale = 0;
  for (long k = 0; k < n; k++) {
    const double e = d->a[k] - d->b[k];
    max_abs = fmax(max_abs, fabs(e));
    sum2 += e * e;
    scale = fmax(scale, fmax(fabs(d->a[k]), fabs(d->b[k])));
  }
  d->max_abs = max_abs;
  d->rms = sqrt(sum2 / (double)n);
  d->scale = scale;
  d->rel = scale > 0 ? max_abs / scale : 0;
}

static void print_table(const channel_diff* d, int n) {
  int w = (int)strlen("channel"), wu = (int)strlen("unit");
  for (int k = 0; k < n; k++) {
    if ((int)strlen(d[k].name) > w) w = (int)strlen(d[k].name);
    if ((int)strlen(d[k].unit) > wu) wu = (int)strlen(d[k].unit);
  }
  printf("%-*s  %-*s  %-13s  %-13s  %-13s  %s\n", w, "channel", wu, "unit", "max|A-B|",
         "rms(A-B)", "scale", "rel");
  double max_rel = 0;
  const char* worst = "none";
  for (int k = 0; k < n; k++) {
    printf("%-*s  %-*s  %-13.6g  %-13.6g  %-13.6g  %.6g\n", w, d[k].name, wu,
           d[k].unit[0] ? d[k].unit : "-", d[k].max_abs, d[k].rms, d[k].scale, d[k].rel);
    if (d[k].rel > max_rel) {
      max_rel = d[k].rel;
      worst = d[k].name;
    }
  }
  printf("compare: channels=%d max_rel=%.6g worst=%s\n", n, max_rel, worst);
}

// Lists on standard error the channels of one file that the other lacks.
static void note_only(const hy_results* r, const int* only, int n, const char* which,
                      const char* path) {
  if (n == 0) return;
  fprintf(stderr, "note: %d channel%s only in %s (%s), not compared: ", n, n == 1 ? "" : "s",
          which, path);
  for (int k = 0; k < n; k++) fprintf(stderr, "%s%s", k ? ", " : "", r->name[only[k]]);
  fputc('\n', stderr);
}

// The legend entries of the two files: their names, or the paths when the names are the same.
static void file_labels(const compare_args* a, char* la, char* lb, size_t size) {
  const int same = strcmp(base_name(a->file[0]), base_name(a->file[1])) == 0;
  snprintf(la, size, "A: %s", same ? a->file[0] : base_name(a->file[0]));
  snprintf(lb, size, "B: %s", same ? a->file[1] : base_name(a->file[1]));
}

// The order of the channels in the figure (into order; returns their count): grouped by unit,
// the units in the order of their first channel, so that each unit's overlay can be followed by
// its difference panel. With a figure, the default channels are capped to the first units that
// fit it, and the others named on standard error; a list given is drawn whole.
static int figure_order(const compare_args* a, int figure, const channel_diff* d, int n,
                        int* order) {
  const int capped = !a->channels && figure;
  const int max_units = capped ? (a->diff ? HY_FIG_MAX_PANELS / 2 : HY_FIG_MAX_PANELS) : n;
  int nfig = 0, units = 0;
  for (int k = 0; k < n; k++) {
    int first = 1;
    for (int j = 0; j < k && first; j++) first = strcmp(d[j].unit, d[k].unit) != 0;
    if (!first || units == max_units) continue;
    units++;
    for (int j = k; j < n; j++) {
      if (strcmp(d[j].unit, d[k].unit) == 0) order[nfig++] = j;
    }
  }
  if (nfig < n) {
    fprintf(stderr,
            "note: the figure shows the channels of the first %d units; %d left out of it (the "
            "table and --data have them all): ",
            max_units, n - nfig);
    int listed = 0;
    for (int k = 0; k < n; k++) {
      int in = 0;
      for (int j = 0; j < nfig && !in; j++) in = order[j] == k;
      if (!in) fprintf(stderr, "%s%s", listed++ ? ", " : "", d[k].name);
    }
    fputs("; draw them with --channels\n", stderr);
  }
  return nfig;
}

// The figure out or the data file data (one of them NULL); an exit status with the reason on
// stderr.
static int draw(const compare_args* a, const char* out, const char* data, const double* x,
                long npt, const char* xname, const char* xunit, const channel_diff* d, int n) {
  enum { NAME_SIZE = HY_CHANNEL_NAME_MAX + 8 };
  const int per = a->diff ? 3 : 2;
  int* order = malloc(sizeof(int) * (size_t)n);
  hy_fig_curve* curves = calloc((size_t)(per * n), sizeof *curves);
  char* names = malloc((size_t)(per * n) * NAME_SIZE);
  double* diffs = a->diff ? malloc(sizeof(double) * (size_t)n * (size_t)npt) : NULL;
  if (!order || !curves || !names || (a->diff && !diffs)) {
    free(order);
    free(curves);
    free(names);
    free(diffs);
    fputs("hydyn compare: out of memory\n", stderr);
    return HY_CLI_FAIL;
  }
  const int nfig = figure_order(a, out != NULL, d, n, order);
  int nc = 0;
  for (int o = 0; o < nfig; o++) {
    const channel_diff* c = d + order[o];
    // the colour of a channel: its place among the channels of its unit, for A, B and A-B
    int color = 0;
    for (int j = o - 1; j >= 0 && strcmp(d[order[j]].unit, c->unit) == 0; j--) color++;
    char* na = names + (size_t)nc * NAME_SIZE;
    snprintf(na, NAME_SIZE, "A:%s", c->name);
    // one legend entry per channel, on A's curve; the style entries tell A from B
    curves[nc++] = (hy_fig_curve){c->a, na, c->name, c->unit, NULL, color, 0};
    char* nb = names + (size_t)nc * NAME_SIZE;
    snprintf(nb, NAME_SIZE, "B:%s", c->name);
    curves[nc++] = (hy_fig_curve){c->b, nb, "", c->unit, NULL, color, 1};
    // the difference panel of a unit follows its overlay (hy_fig orders panels by first curve)
    const int last_of_unit = o + 1 == nfig || strcmp(d[order[o + 1]].unit, c->unit) != 0;
    for (int j = o - color; a->diff && last_of_unit && j <= o; j++) {
      const channel_diff* e = d + order[j];
      double* y = diffs + (size_t)j * (size_t)npt;
      for (long i = 0; i < npt; i++) y[i] = e->a[i] - e->b[i];
      char* nd = names + (size_t)nc * NAME_SIZE;
      snprintf(nd, NAME_SIZE, "A-B:%s", e->name);
      curves[nc++] = (hy_fig_curve){y, nd, e->name, e->unit, "A-B", j - (o - color), 0};
    }
  }
  char la[600], lb[600], title[1300];
  file_labels(a, la, lb, sizeof la);
  snprintf(title, sizeof title, "%s vs %s", base_name(a->file[0]), base_name(a->file[1]));
  const hy_fig f = {.npoint = npt,
                    .x = x,
                    .x_name = xname,
                    .x_unit = xunit,
                    .curve = curves,
                    .ncurve = nc,
                    .title = a->fig.title ? a->fig.title : title,
                    .solid_label = la,
                    .dashed_label = lb,
                    .width = a->fig.width,
                    .height = a->fig.height};
  char msg[1024];
  const int rc = hy_fig_render(&f, out, data, msg, sizeof msg);
  if (rc == HY_CLI_USAGE) {
    usage_error("%s", msg);
  } else if (rc != HY_CLI_OK) {
    fprintf(stderr, "hydyn compare: %s\n", msg);
  }
  free(order);
  free(curves);
  free(names);
  free(diffs);
  return rc;
}

// Channels beyond --tol or --rtol, on standard error; 1 when there is any.
static int over_tolerance(const compare_args* a, const channel_diff* d, int n) {
  int over = 0;
  for (int k = 0; k < n; k++) {
    const int abs_over = a->has_tol && d[k].max_abs > a->tol;
    const int rel_over = a->has_rtol && d[k].rel > a->rtol;
    if (!abs_over && !rel_over) continue;
    if (!over) fputs("hydyn compare: channels beyond the tolerance:", stderr);
    fprintf(stderr, "%s %s (max |A-B| = %.6g%s%s, rel = %.6g)", over ? "," : "", d[k].name,
            d[k].max_abs, d[k].unit[0] ? " " : "", d[k].unit, d[k].rel);
    over++;
  }
  if (over) {
    fputs(" (", stderr);
    if (a->has_tol) fprintf(stderr, "--tol %g", a->tol);
    if (a->has_tol && a->has_rtol) fputs(", ", stderr);
    if (a->has_rtol) fprintf(stderr, "--rtol %g", a->rtol);
    fputs(")\n", stderr);
  }
  return over > 0;
}

int hy_cli_compare(int argc, char** argv) {
  compare_args a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  char msg[1024];
  if (a.fig.out && hy_gp_format_of(a.fig.out, msg, sizeof msg) < 0) return usage_error("%s", msg);
  for (int f = 0; f < 2; f++) {
    if (a.fig.out && hy_cli_same_file(a.fig.out, a.file[f])) {
      return usage_error("the figure '%s' would overwrite %s", a.fig.out, f ? "B" : "A");
    }
    if (a.fig.data && hy_cli_same_file(a.fig.data, a.file[f])) {
      return usage_error("--data '%s' would overwrite %s", a.fig.data, f ? "B" : "A");
    }
  }
  if (a.fig.data && a.fig.out && hy_cli_same_file(a.fig.data, a.fig.out)) {
    return usage_error("--data '%s' is the figure file", a.fig.data);
  }

  hy_results* r[2] = {NULL, NULL};
  for (int f = 0; f < 2; f++) {
    hy_error err;
    memset(&err, 0, sizeof err);
    const hy_status s = hy_results_read(a.file[f], &r[f], &err);
    if (s != HY_OK) {
      print_error(&err, s);
      hy_results_free(r[0]);
      return HY_CLI_FAIL;
    }
  }
  const int ta = hy_results_find(r[0], "time"), tb = hy_results_find(r[1], "time");
  if (ta < 0 || tb < 0 || r[0]->nrow < 1 || r[1]->nrow < 1) {
    const int f = ta < 0 || r[0]->nrow < 1 ? 0 : 1;
    fprintf(stderr, "hydyn compare: %s '%s' has %s\n", f ? "B" : "A", a.file[f],
            (f ? tb : ta) < 0 ? "no time channel" : "no rows");
    hy_results_free(r[0]);
    hy_results_free(r[1]);
    return HY_CLI_FAIL;
  }

  selection sel;
  const hy_results* rr[2] = {r[0], r[1]};
  rc = select_channels(rr, a.channels, &sel);
  alignment al = {0};
  channel_diff* d = NULL;
  if (rc == HY_CLI_OK) {
    note_only(r[0], sel.only[0], sel.nonly[0], "A", a.file[0]);
    note_only(r[1], sel.only[1], sel.nonly[1], "B", a.file[1]);
    if (sel.n == 0) {
      fprintf(stderr, "hydyn compare: '%s' and '%s' have no channel in common to compare\n",
              a.file[0], a.file[1]);
      rc = HY_CLI_FAIL;
    }
  }
  if (rc == HY_CLI_OK) {
    rc = align_times(hy_results_column(r[0], ta), r[0]->nrow, hy_results_column(r[1], tb),
                     r[1]->nrow, &al);
  }
  const long npt = al.i1 - al.i0;
  if (rc == HY_CLI_OK) {
    d = calloc((size_t)sel.n, sizeof *d);
    if (!d) {
      fputs("hydyn compare: out of memory\n", stderr);
      rc = HY_CLI_FAIL;
    }
  }
  for (int k = 0; rc == HY_CLI_OK && k < sel.n; k++) {
    d[k].name = r[0]->name[sel.col_a[k]];
    d[k].unit = r[0]->unit[sel.col_a[k]];
    d[k].a = hy_results_column(r[0], sel.col_a[k]) + al.i0;
    d[k].b = malloc(sizeof(double) * (size_t)npt);
    if (!d[k].b) {
      fputs("hydyn compare: out of memory\n", stderr);
      rc = HY_CLI_FAIL;
      break;
    }
    const double* yb = hy_results_column(r[1], sel.col_b[k]);
    for (long i = 0; i < npt; i++) {
      if (al.identical) {
        d[k].b[i] = yb[i];
      } else {
        const long j = al.seg[i];
        const double w = al.w[i];
        d[k].b[i] = w == 0 ? yb[j] : yb[j] + w * (yb[j + 1] - yb[j]);
      }
    }
    compare_channel(d + k, npt);
    if (strcmp(d[k].unit, r[1]->unit[sel.col_b[k]]) != 0) {
      fprintf(stderr, "note: channel %s has the unit '%s' in A and '%s' in B\n", d[k].name,
              d[k].unit, r[1]->unit[sel.col_b[k]]);
    }
  }
  if (rc == HY_CLI_OK) {
    print_table(d, sel.n);
    fflush(stdout);
    const int over = over_tolerance(&a, d, sel.n);
    // the figure first: without gnuplot, nothing is written; the data has every channel, the
    // figure perhaps not (figure_order)
    const double* x = hy_results_column(r[0], ta) + al.i0;
    if (a.fig.out) rc = draw(&a, a.fig.out, NULL, x, npt, r[0]->name[ta], r[0]->unit[ta], d, sel.n);
    if (rc == HY_CLI_OK && a.fig.data) {
      rc = draw(&a, NULL, a.fig.data, x, npt, r[0]->name[ta], r[0]->unit[ta], d, sel.n);
    }
    if (rc == HY_CLI_OK && over) rc = HY_CLI_FAIL;
  }
  for (int k = 0; d && k < sel.n; k++) free(d[k].b);
  free(d);
  free(al.seg);
  free(al.w);
  selection_free(&sel);
  hy_results_free(r[0]);
  hy_results_free(r[1]);
  return rc;
}
