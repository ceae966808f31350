// `hydyn plot RESULTS [options]`: draws channels of a results file (CSV or HDF5) as a figure
// (PNG, SVG or PDF) with gnuplot, one panel per unit, and can write the numbers drawn to a CSV so
// that what a figure shows can be checked against the file (docs/cli.md).
#define _POSIX_C_SOURCE 200809L  // stat

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_figure.h"
#include "cli/cli_gnuplot.h"
#include "io/io.h"

// Bounds of --size (pixels): below them labels overlap, above them gnuplot's cairo canvas gets
// slow and the files large for no gain.

// The command line of plot, parsed.
typedef struct plot_args {
  const char* results;
  const char* channels;  // NULL: the default selection
  const char* vs;        // NULL: time
  hy_fig_args fig;       // out NULL: RESULTS with the extension .png; title NULL: the
                         // results file's name
} plot_args;

static void plot_usage(FILE* fp) {
  fprintf(fp,
          "usage: hydyn plot RESULTS [options]\n"
          "\n"
          "Draws channels of RESULTS, a results file of 'hydyn run' (CSV, or HDF5 for .h5 and\n"
          ".hdf5), into a figure with gnuplot: one panel per unit, stacked over a shared x axis,\n"
          "a legend with the channel names. Pressures are drawn in MPa and flows in L/min (the\n"
          "axis says so); every other unit is SI. A panel whose values vary by less than 1e-4\n"
          "of their size is drawn less an offset that its axis label gives. Prints one line,\n"
          "plot: figure=... panels=... channels=... x=..., on standard output.\n"
          "\n"
          "options:\n"
          "  --channels LIST  channels to draw: names and globs (* any characters, ? one),\n"
          "                   comma-separated, e.g. 'p:*,z:boom'; default: every channel but\n"
          "                   time and the solver figures (iter, iter_total, residual,\n"
          "                   step_wall, violation, violation_nh), of the first %d units\n"
          "                   only (standard error names the ones left out); a LIST given\n"
          "                   is drawn whole\n"
          "  --vs CHANNEL     x axis: time or one channel's name (default: time)\n"
          "  -o, --out FIG    figure file, .png, .svg or .pdf (default: RESULTS with its\n"
          "                   extension replaced by .png)\n"
          "  --data FILE      also write the numbers drawn as CSV: the x column and the\n"
          "                   channels, header name[unit], SI values as in RESULTS, %%.17g,\n"
          "                   every row (default: none)\n"
          "  --title TEXT     title above the figure (default: RESULTS' file name; '' for none)\n"
          "  --size WxH       figure size in pixels, W %d to %d, H %d to %d (default: 1000\n"
          "                   wide, 230 per panel plus the axes, at most 1800 high); PDF: 100\n"
          "                   pixels per inch\n"
          "  -h, --help       show this help\n"
          "\n"
          "Needs gnuplot (Debian package gnuplot-nox); $HYDYN_GNUPLOT names another executable.\n"
          "Exit status: 0 success; 1 RESULTS cannot be read, gnuplot is missing or fails, a file\n"
          "cannot be written; 2 bad command line, including a channel or --vs channel that\n"
          "RESULTS does not have and a figure extension other than .png, .svg, .pdf.\n",
          HY_FIG_MAX_PANELS, HY_FIG_MIN_WIDTH, HY_FIG_MAX_SIDE, HY_FIG_MIN_HEIGHT, HY_FIG_MAX_SIDE);
}

#define usage_error(...) hy_cli_usage_error("plot", __VA_ARGS__)

// Parses argv (argv[0] = "plot"). Returns -1 to go on, else the exit status (help or error).
static int parse_args(int argc, char** argv, plot_args* a) {
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      plot_usage(stdout);
      return HY_CLI_OK;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (a->results) {
        return usage_error("unexpected argument '%s' (RESULTS is '%s')", arg, a->results);
      }
      a->results = arg;
      continue;
    }
    static const char* const valued[] = {"--channels", "--vs",    "--out", "-o",
                                         "--data",     "--title", "--size"};
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(argc, argv, &i, valued,
                                         (int)(sizeof valued / sizeof valued[0]), &val, msg,
                                         sizeof msg);
    if (opt == -2) return usage_error("%s", msg);
    const int fig = opt >= 0 ? hy_fig_take_option("plot", valued[opt], val, &a->fig) : 1;
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
        if (!val[0]) return usage_error("--vs needs time or a channel name");
        a->vs = val;
        break;
      default:
        return usage_error("unknown option '%s'", arg);
    }
  }
  if (!a->results) return usage_error("no results file given");
  return -1;
}

// RESULTS with its extension (in its last path component) replaced by .png.
static void default_figure_path(const char* results, char* buf, size_t size) {
  const char* base = strrchr(results, '/');
  base = base ? base + 1 : results;
  const char* dot = strrchr(base, '.');
  // a leading dot is a hidden file's name, not an extension
  const size_t stem = dot && dot != base ? (size_t)(dot - results) : strlen(results);
  snprintf(buf, size, "%.*s.png", (int)stem, results);
}

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

// Reports a failed hy_results_* call: its detail when it recorded one.
static void print_error(const hy_error* e, hy_status s) {
  hy_error copy = *e;
  if (copy.code != s) {
    memset(&copy, 0, sizeof copy);
    copy.code = s;
  }
  char buf[1024];
  hy_error_format(&copy, buf, sizeof buf);
  fprintf(stderr, "hydyn plot: %s\n", buf);
}

// The default selection: every channel but time, the solver figures and the x channel, of the
// first HY_FIG_MAX_PANELS units; says on standard error what was left out.
static int default_channels(const hy_results* r, int xcol, int* idx, int* n) {
  int kept = 0;
  for (int k = 0; k < *n; k++) {
    const int c = idx[k];
    if (c == xcol || hy_fig_solver_channel(r->name[c])) continue;
    idx[kept++] = c;
  }
  *n = kept;
  char left[600];
  const int dropped = hy_fig_cap_panels(r, idx, n, HY_FIG_MAX_PANELS, left, sizeof left);
  if (dropped > 0) {
    // the first channel left out, as an example that can be pasted
    char example[HY_NAME_MAX + 16];
    size_t len = strcspn(left, " ,");
    if (len >= sizeof example) len = sizeof example - 1;
    memcpy(example, left, len);
    example[len] = '\0';
    fprintf(stderr,
            "note: the figure shows the channels of the first %d units; %d left out: %s; draw "
            "them with --channels (e.g. --channels '%s')\n",
            HY_FIG_MAX_PANELS, dropped, left, example);
  }
  return *n > 0 ? 0 : -1;
}

int hy_cli_plot(int argc, char** argv) {
  plot_args a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  // everything about the command line that needs no file, before reading it
  char fig_path[1024];
  if (a.fig.out) {
    snprintf(fig_path, sizeof fig_path, "%s", a.fig.out);
  } else {
    default_figure_path(a.results, fig_path, sizeof fig_path);
  }
  char msg[1024];
  if (hy_gp_format_of(fig_path, msg, sizeof msg) < 0) return usage_error("%s", msg);
  if (hy_cli_same_file(fig_path, a.results)) {
    return usage_error("the figure '%s' would overwrite the results file", fig_path);
  }
  if (a.fig.data && hy_cli_same_file(a.fig.data, a.results)) {
    return usage_error("--data '%s' would overwrite the results file", a.fig.data);
  }
  if (a.fig.data && hy_cli_same_file(a.fig.data, fig_path)) {
    return usage_error("--data '%s' is the figure file", a.fig.data);
  }

  hy_results* r = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status s = hy_results_read(a.results, &r, &err);
  if (s != HY_OK) {
    print_error(&err, s);
    return HY_CLI_FAIL;
  }
  const int tcol = hy_results_find(r, "time");
  int xcol = tcol;
  if (a.vs && strcmp(a.vs, "time") != 0) xcol = hy_results_find(r, a.vs);
  if (xcol < 0) {
    if (a.vs && strcmp(a.vs, "time") != 0) {
      rc = usage_error("no channel '%s' in '%s' for --vs (time or one channel's exact name)",
                       a.vs, a.results);
    } else {
      fprintf(stderr, "hydyn plot: '%s' has no time channel\n", a.results);
      rc = HY_CLI_FAIL;
    }
    hy_results_free(r);
    return rc;
  }
  if (r->nrow < 1) {
    fprintf(stderr, "hydyn plot: '%s' holds no rows: nothing to plot\n", a.results);
    hy_results_free(r);
    return HY_CLI_FAIL;
  }

  int* idx = NULL;
  int n = 0;
  memset(&err, 0, sizeof err);
  s = hy_results_select(r, a.channels, &idx, &n, &err);
  if (s != HY_OK) {
    if (s == HY_ERR_ARG) {
      rc = usage_error("%s", err.code == s ? err.msg : hy_status_str(s));
    } else {
      print_error(&err, s);
      rc = HY_CLI_FAIL;
    }
    hy_results_free(r);
    return rc;
  }
  if (!a.channels && default_channels(r, xcol, idx, &n) != 0) {
    fprintf(stderr, "hydyn plot: '%s' has no channels to plot besides %s\n", a.results,
            r->name[xcol]);
    hy_results_free_selection(idx);
    hy_results_free(r);
    return HY_CLI_FAIL;
  }

  hy_fig_curve* curves = malloc(sizeof *curves * (size_t)n);
  if (!curves) {
    fputs("hydyn plot: out of memory\n", stderr);
    hy_results_free_selection(idx);
    hy_results_free(r);
    return HY_CLI_FAIL;
  }
  hy_fig f;
  hy_fig_from_results(r, idx, n, xcol, &f, curves);
  f.title = a.fig.title ? a.fig.title : base_name(a.results);
  f.width = a.fig.width;
  f.height = a.fig.height;
  rc = hy_fig_render(&f, fig_path, a.fig.data, msg, sizeof msg);
  if (rc == HY_CLI_USAGE) {
    usage_error("%s", msg);
  } else if (rc != HY_CLI_OK) {
    fprintf(stderr, "hydyn plot: %s\n", msg);
  } else {
    int units = 0;
    for (int k = 0; k < n; k++) {
      int seen = 0;
      for (int j = 0; j < k && !seen; j++) seen = strcmp(r->unit[idx[j]], r->unit[idx[k]]) == 0;
      units += !seen;
    }
    printf("plot: figure=%s panels=%d channels=%d x=%s", fig_path, units, n, r->name[xcol]);
    if (a.fig.data) printf(" data=%s", a.fig.data);
    putchar('\n');
  }
  free(curves);
  hy_results_free_selection(idx);
  hy_results_free(r);
  return rc;
}
