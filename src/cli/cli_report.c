// `hydyn report MODEL [run options] -o DIR`: runs the model, records every channel to
// DIR/results.h5, and writes the standard figures of a work cycle and DIR/summary.md, the run
// summary as a table with the figures linked: what an engineer pastes into a report. It goes
// through `hydyn run` itself, so the run, its options and its messages are those of run.
#define _POSIX_C_SOURCE 200809L  // mkdir, strdup

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_figure.h"
#include "cli/cli_load.h"
#include "cli/cli_mechanism.h"
#include "hydyn/hydyn.h"
#include "io/io.h"

static void report_usage(FILE* fp) {
  fputs(
      "usage: hydyn report MODEL -o DIR [run options]\n"
      "\n"
      "Runs MODEL as 'hydyn run' does, recording every channel to DIR/results.h5, then writes\n"
      "into DIR the standard figures of a work cycle, each drawn only when the model has what it\n"
      "shows:\n"
      "  coordinates.png   joint coordinates z:* and velocities zd:*\n"
      "  pressures.png     volume pressures p:*\n"
      "  spools.png        valve spool positions U:*\n"
      "  cylinders.png     cylinder stroke (len_a:*), rate and force parts (F_hyd, F_visc,\n"
      "                    F_damp, F_mu)\n"
      "  energy.png        energies and works, and the drift E_total(t) - E_total(0)\n"
      "  violation.png     loop-closure violation (models with cut joints)\n"
      "  iterations.png    Newton iterations per step and the last residual\n"
      "  snapshots.png     the mechanism every --every seconds, overlaid\n"
      "and DIR/summary.md: the run summary as a table with the figures linked. DIR is made when\n"
      "it does not exist; files of these names in it are replaced.\n"
      "\n"
      "options:\n"
      "  -o, --out-dir DIR  folder to write (required)\n"
      "  --every SECONDS    time between mechanism snapshots (default: 1 s, or a tenth of\n"
      "                     t_end when that is shorter)\n"
      "  --format EXT       png (default), svg or pdf for the figures\n"
      "  -h, --help         show this help\n"
      "Every other option is passed to 'hydyn run' (see 'hydyn run --help'), except --out,\n"
      "--no-out, --channels and --every, which the report sets.\n"
      "\n"
      "Exit status: as 'hydyn run' (0 success, 1 model or run error, 2 bad command line, 130 or\n"
      "143 stopped by a signal); a run that stopped early still gets its figures, up to where\n"
      "it stopped.\n",
      fp);
}

#define usage_error(...) hy_cli_usage_error("report", __VA_ARGS__)

// One figure of the report: the channels a glob list selects, when the results have any.
typedef struct figure_spec {
  const char* file;      // without extension
  const char* title;
  const char* channels;  // comma-separated globs
  const char* caption;   // for summary.md
} figure_spec;

static const figure_spec kFigures[] = {
    {"coordinates", "joint coordinates and velocities", "z:*,zd:*",
     "Joint coordinates z and velocities zd."},
    {"pressures", "pressures", "p:*", "Pressures of the hydraulic volumes."},
    {"spools", "valve spools", "U:*", "Spool positions of the directional valves."},
    {"cylinders", "cylinders", "len_a:*,rate:*,F_hyd:*,F_visc:*,F_damp:*,F_mu:*",
     "Cylinder stroke (piston-side chamber length), rate and force parts."},
    // energy_figure: the energies and works, and their drift
    {"energy", "energies and works", NULL,
     "Energies and works; the drift of E_total = E_kin + E_pot - W_ext from its start measures "
     "the integration error."},
    {"violation", "loop-closure violation", "violation",
     "Largest violation of the loop-closure equations after each step."},
    {"iterations", "Newton iterations", "iter,residual",
     "Newton iterations per step and the scaled residual of the last iteration."},
};

// The channels of r that the globs of `spec` match (each once, time excluded); 0 when none.
static int select_existing(const hy_results* r, const char* spec, int* idx) {
  int n = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    for (int c = 1; c < r->nchan; c++) {
      if (!hy_channel_match(tok, r->name[c])) continue;
      int seen = 0;
      for (int k = 0; k < n && !seen; k++) seen = idx[k] == c;
      if (!seen) idx[n++] = c;
    }
  }
  return n;
}

// The energies figure: the energy channels, and in a panel of its own the drift of E_total
// from its start, the measure of the integration error.
static int energy_figure(const hy_results* r, const char* path, char* msg, size_t size,
                         int* drawn) {
  *drawn = 0;
  int* idx = calloc((size_t)r->nchan, sizeof *idx);
  hy_fig_curve* curves = calloc((size_t)r->nchan + 1, sizeof *curves);
  double* drift = calloc((size_t)(r->nrow > 0 ? r->nrow : 1), sizeof *drift);
  if (!idx || !curves || !drift) {
    free(idx), free(curves), free(drift);
    snprintf(msg, size, "out of memory");
    return HY_CLI_FAIL;
  }
  const int n = select_existing(r, "E_*,W_*,D_*", idx);
  const int total = hy_results_find(r, "E_total");
  int rc = HY_CLI_OK;
  if (n > 0 && r->nrow > 0) {
    hy_fig f;
    hy_fig_from_results(r, idx, n, 0, &f, curves);
    int ncurve = n;
    if (total >= 0) {
      const double* e = hy_results_column(r, total);
      for (long k = 0; k < r->nrow; k++) drift[k] = e[k] - e[0];
      curves[ncurve] = (hy_fig_curve){.y = drift,
                                       .name = "E_drift",
                                       .label = "E_total(t) - E_total(0)",
                                       .unit = "J",
                                       .group = "drift",
                                       .color = -1};
      ncurve++;
    }
    f.curve = curves;
    f.ncurve = ncurve;
    f.title = "energies and works";
    rc = hy_fig_render(&f, path, NULL, msg, size);
    *drawn = rc == HY_CLI_OK;
  }
  free(idx), free(curves), free(drift);
  return rc;
}

// Splits the run's summary line ("summary: key=value unit key=value ...") into table rows.
static void write_summary_table(FILE* fp, const char* summary) {
  fputs("| quantity | value |\n| --- | --- |\n", fp);
  const char* p = strstr(summary, "summary:");
  p = p ? p + 8 : summary;
  char key[64] = "", value[256] = "";
  for (;;) {
    while (*p == ' ' || *p == '\n') p++;
    const char* end = p;
    while (*end && *end != ' ' && *end != '\n') end++;
    const int len = (int)(end - p);
    const char* eq = memchr(p, '=', (size_t)len);
    if (len == 0 || eq) {
      if (key[0]) fprintf(fp, "| %s | %s |\n", key, value);
      if (len == 0) break;
      snprintf(key, sizeof key, "%.*s", (int)(eq - p), p);
      snprintf(value, sizeof value, "%.*s", (int)(end - eq - 1), eq + 1);
    } else {  // a unit after its value ("wall=0.31 s")
      const size_t used = strlen(value);
      snprintf(value + used, sizeof value - used, " %.*s", len, p);
    }
    p = end;
  }
}

// The folder DIR, made when missing. 0 on success.
static int make_dir(const char* dir) {
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return 0;
    fprintf(stderr, "hydyn report: '%s' exists and is not a folder\n", dir);
    return -1;
  }
  if (mkdir(dir, 0777) != 0) {
    fprintf(stderr, "hydyn report: cannot make the folder '%s': %s\n", dir, strerror(errno));
    return -1;
  }
  return 0;
}

int hy_cli_report(int argc, char** argv) {
  const char* model = NULL;
  const char* dir = NULL;
  const char* format = "png";
  double every = 0;
  // the run's command line: "run MODEL <passed options> --out DIR/results.h5 --channels all"
  char** run_argv = calloc((size_t)argc + 8, sizeof *run_argv);
  if (!run_argv) return HY_CLI_FAIL;
  int run_argc = 2;
  run_argv[0] = "run";
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      report_usage(stdout);
      free(run_argv);
      return HY_CLI_OK;
    }
    static const char* const own[] = {"-o", "--out-dir", "--every", "--format"};
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(argc, argv, &i, own, 4, &val, msg, sizeof msg);
    int rc = -1;
    if (opt == -2) {
      rc = usage_error("%s", msg);
    } else if (opt == 0 || opt == 1) {
      dir = val;
    } else if (opt == 2) {
      if (hy_cli_parse_number(val, 0, &every)) {
        rc = usage_error("invalid --every '%s': expected a number of seconds > 0", val);
      }
    } else if (opt == 3) {
      if (strcmp(val, "png") != 0 && strcmp(val, "svg") != 0 && strcmp(val, "pdf") != 0) {
        rc = usage_error("invalid --format '%s': expected png, svg or pdf", val);
      }
      format = val;
    } else if (arg[0] != '-' || arg[1] == '\0') {
      if (model) {
        rc = usage_error("unexpected argument '%s' (model is '%s')", arg, model);
      } else {
        model = arg;
      }
    } else if (strncmp(arg, "--out", 5) == 0 || strcmp(arg, "--no-out") == 0 ||
               strncmp(arg, "--channels", 10) == 0) {
      rc = usage_error("%s is set by the report (it records every channel to DIR/results.h5)",
                       arg);
    } else {
      // a run option, with its value when it takes one ("--dt 1e-3"): passed on as written,
      // run checks it
      run_argv[run_argc++] = argv[i];
      if (!strchr(arg, '=') && i + 1 < argc && argv[i + 1][0] != '-' &&
          strcmp(arg, "--quiet") != 0 && strcmp(arg, "--strict-steps") != 0) {
        run_argv[run_argc++] = argv[++i];
      }
    }
    if (rc >= 0) {
      free(run_argv);
      return rc;
    }
  }
  if (!model || !dir) {
    free(run_argv);
    return usage_error(!model ? "no model given" : "no output folder given (-o DIR)");
  }
  if (make_dir(dir) != 0) {
    free(run_argv);
    return HY_CLI_FAIL;
  }
  char results[1024];
  snprintf(results, sizeof results, "%s/results.h5", dir);
  run_argv[1] = (char*)model;
  run_argv[run_argc++] = "--out";
  run_argv[run_argc++] = results;
  run_argv[run_argc++] = "--channels";
  run_argv[run_argc++] = "all";
  const int run_rc = hy_cli_run(run_argc, run_argv);
  free(run_argv);
  if (run_rc == HY_CLI_USAGE) return run_rc;

  // what the run left: its results, up to where it stopped when it stopped early
  hy_results* r = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  if (hy_results_read(results, &r, &err) != HY_OK) {
    if (run_rc == HY_CLI_OK) hy_cli_print_error(&err);
    return run_rc == HY_CLI_OK ? HY_CLI_FAIL : run_rc;
  }
  hy_model* m = NULL;
  if (hy_cli_load_model(model, &m) != HY_CLI_OK) {
    hy_results_free(r);
    return HY_CLI_FAIL;
  }

  int rc = run_rc;
  char msg[1024], path[1100];
  const char* drawn[16];
  const char* captions[16];
  int ndrawn = 0;
  int* idx = calloc((size_t)r->nchan, sizeof *idx);
  for (size_t k = 0; idx && k < sizeof kFigures / sizeof kFigures[0]; k++) {
    const figure_spec* fs = &kFigures[k];
    snprintf(path, sizeof path, "%s/%s.%s", dir, fs->file, format);
    int frc = HY_CLI_OK, ok = 0;
    if (!fs->channels) {
      frc = energy_figure(r, path, msg, sizeof msg, &ok);
    } else {
      const int n = select_existing(r, fs->channels, idx);
      if (n > 0 && r->nrow > 0) {
        hy_fig f;
        hy_fig_curve curves[64];
        if (n <= 64) {
          hy_fig_from_results(r, idx, n, 0, &f, curves);
          // the residual, some 1e-9 of the scale, would lie flat on zero beside the counts
          for (int c = 0; c < n; c++) {
            if (strcmp(curves[c].name, "residual") == 0) curves[c].group = "residual";
          }
          f.title = fs->title;
          frc = hy_fig_render(&f, path, NULL, msg, sizeof msg);
        } else {
          frc = hy_fig_channels(r, idx, n, 0, path, fs->title, NULL, msg, sizeof msg);
        }
        ok = frc == HY_CLI_OK;
      }
    }
    if (frc != HY_CLI_OK) {
      fprintf(stderr, "hydyn report: %s: %s\n", path, msg);
      if (rc == HY_CLI_OK) rc = HY_CLI_FAIL;
      break;
    }
    if (ok) {
      drawn[ndrawn] = fs->file;
      captions[ndrawn++] = fs->caption;
    }
  }
  free(idx);
  // the mechanism, when the run recorded more than its start
  const double span = r->nrow > 0 ? hy_results_column(r, 0)[r->nrow - 1] : 0;
  if ((rc == HY_CLI_OK || rc == run_rc) && span > 0) {
    if (every <= 0) every = fmin(1.0, span / 10);
    snprintf(path, sizeof path, "%s/snapshots.%s", dir, format);
    const int src = hy_snapshot_draw(m, r, every, path, NULL, msg, sizeof msg);
    if (src == HY_CLI_OK) {
      drawn[ndrawn] = "snapshots";
      captions[ndrawn++] = "The mechanism at intervals of the run, earlier frames lighter.";
    } else {
      fprintf(stderr, "hydyn report: %s: %s\n", path, msg);
      if (rc == HY_CLI_OK) rc = src;
    }
  }

  snprintf(path, sizeof path, "%s/summary.md", dir);
  FILE* fp = fopen(path, "w");
  if (!fp) {
    fprintf(stderr, "hydyn report: cannot write '%s': %s\n", path, strerror(errno));
    rc = HY_CLI_FAIL;
  } else {
    fprintf(fp, "# %s\n\n", m->name[0] ? m->name : model);
    fprintf(fp, "Run by hydyn %s: `hydyn report %s`. Results: [results.h5](results.h5) "
            "(every channel; `hydyn plot results.h5 --channels ...`).\n\n",
            HY_VERSION_STRING, model);
    if (run_rc != HY_CLI_OK) {
      fprintf(fp, "**The run did not reach t_end**: it stopped at t = %.6g s (exit status %d); "
              "the figures show it up to there.\n\n", span, run_rc);
    }
    fputs("## Summary\n\n", fp);
    if (r->summary) {
      write_summary_table(fp, r->summary);
    } else {
      fputs("(the run wrote no summary)\n", fp);
    }
    fputs("\n## Figures\n\n", fp);
    for (int k = 0; k < ndrawn; k++) {
      fprintf(fp, "%s\n\n![%s](%s.%s)\n\n", captions[k], drawn[k], drawn[k], format);
    }
    if (fclose(fp) != 0) rc = HY_CLI_FAIL;
  }
  if (rc == run_rc || rc == HY_CLI_OK) {
    fprintf(stderr, "report: %d figures and summary.md in %s\n", ndrawn, dir);
  }
  hy_model_free(m);
  hy_results_free(r);
  return rc;
}
