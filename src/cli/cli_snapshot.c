// `hydyn snapshot MODEL RESULTS [options]`: the mechanism of MODEL drawn at intervals of a run
// whose results file (CSV or HDF5) recorded its joint coordinates, the frames overlaid in one
// figure (cli_mechanism.h), so that a user sees what the mechanism did without an animation.
#define _POSIX_C_SOURCE 200809L  // stat

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_gnuplot.h"
#include "cli/cli_load.h"
#include "cli/cli_mechanism.h"
#include "hydyn/hydyn.h"
#include "io/io.h"

typedef struct snapshot_args {
  const char* model;
  const char* results;
  const char* out;  // NULL = <model name>-snapshots.png
  const char* data;
  const char* times_text;
  int has_every;
  double every;
  hy_snapshot_plane plane;
  double times[HY_SNAPSHOT_MAX_FRAMES];
  int ntimes;
} snapshot_args;

static void snapshot_usage(FILE* fp) {
  fprintf(fp,
          "usage: hydyn snapshot MODEL RESULTS [options]\n"
          "\n"
          "Draws the mechanism of MODEL (a model file or a built-in model) at several times of\n"
          "a run, overlaid in one figure: the earliest frame lightest, the last in full colour.\n"
          "RESULTS is the run's results file (CSV or HDF5, as written by 'hydyn run') and must\n"
          "hold the joint coordinates z:<joint> of MODEL (the default channels do).\n"
          "\n"
          "Bodies are lines from their joint point to their other joints and markers, revolute\n"
          "joints open circles, joints to ground hatched supports, cut joints diamonds,\n"
          "cylinders a thick barrel and a thinner rod, other force elements dashed lines.\n"
          "\n"
          "options:\n"
          "  --every SECONDS      time between frames, > 0: frames at t = 0, SECONDS,\n"
          "                       2 SECONDS, ... up to the last row (default: a tenth of the\n"
          "                       recorded time, 11 frames); each frame is the first recorded\n"
          "                       row at or after its time\n"
          "  --times T1,T2,...    the frame times (s), >= 0, in any order, instead of --every\n"
          "                       (default: none)\n"
          "  -o, --out FILE       the figure: .png, .svg or .pdf by its extension (default:\n"
          "                       <model name>-snapshots.png in the current directory)\n"
          "  --plane PLANE        auto | xy | xz | yz: the plane shown, x-y means x across and\n"
          "                       y up (default auto: a planar model's own plane, else the two\n"
          "                       coordinate axes along which the mechanism extends most)\n"
          "  --data FILE          also write the segments drawn as CSV: time[s], kind, name,\n"
          "                       x1, y1, x2, y2 in the figure's axes (m) (default: none)\n"
          "  -h, --help           show this help\n"
          "\n"
          "At most %d frames fit one figure. Options may also be written --name=value.\n"
          "gnuplot draws the figure (Debian package gnuplot-nox). Exit status: 0 success,\n"
          "1 model or results error (results of another model, no gnuplot, a file that cannot\n"
          "be written), 2 bad command line.\n",
          HY_SNAPSHOT_MAX_FRAMES);
}

#define usage_error(...) hy_cli_usage_error("snapshot", __VA_ARGS__)

// "t1,t2,..." into a->times; -1 with the reason in msg.
static int parse_times(const char* s, snapshot_args* a, char* msg, size_t size) {
  a->ntimes = 0;
  const char* p = s;
  for (;;) {
    const char* comma = strchr(p, ',');
    const size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char field[64];
    if (len == 0 || len >= sizeof field) {
      snprintf(msg, size, "invalid --times '%s': expected times >= 0 (s) separated by commas", s);
      return -1;
    }
    memcpy(field, p, len);
    field[len] = '\0';
    if (a->ntimes == HY_SNAPSHOT_MAX_FRAMES) {
      snprintf(msg, size, "--times gives more than %d times; at most %d frames fit one figure",
               HY_SNAPSHOT_MAX_FRAMES, HY_SNAPSHOT_MAX_FRAMES);
      return -1;
    }
    if (hy_cli_parse_number(field, 1, &a->times[a->ntimes])) {
      snprintf(msg, size, "invalid --times '%s': '%s' is not a time >= 0 (s)", s, field);
      return -1;
    }
    a->ntimes++;
    if (!comma) return 0;
    p = comma + 1;
  }
}

// Parses argv (argv[0] = "snapshot"). Returns -1 to go on, else the exit status.
static int parse_args(int argc, char** argv, snapshot_args* a) {
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      snapshot_usage(stdout);
      return HY_CLI_OK;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (!a->model) {
        a->model = arg;
      } else if (!a->results) {
        a->results = arg;
      } else {
        return usage_error("unexpected argument '%s' (model '%s', results '%s')", arg, a->model,
                           a->results);
      }
      continue;
    }
    static const char* const valued[] = {"--every", "--times", "--out", "-o", "--plane", "--data"};
    const int nvalued = (int)(sizeof valued / sizeof valued[0]);
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(argc, argv, &i, valued, nvalued, &val, msg, sizeof msg);
    if (opt == -2) return usage_error("%s", msg);
    switch (opt) {
      case 0:
        if (hy_cli_parse_number(val, 0, &a->every)) {
          return usage_error("invalid --every '%s': expected a number of seconds > 0", val);
        }
        a->has_every = 1;
        break;
      case 1:
        if (parse_times(val, a, msg, sizeof msg)) return usage_error("%s", msg);
        a->times_text = val;
        break;
      case 2:
      case 3:
        if (!val[0]) return usage_error("%s needs a file name", valued[opt]);
        a->out = val;
        break;
      case 4:
        if (hy_snapshot_plane_parse(val, &a->plane)) {
          return usage_error("invalid --plane '%s': expected auto, xy, xz or yz", val);
        }
        break;
      case 5:
        if (!val[0]) return usage_error("--data needs a file name");
        a->data = val;
        break;
      default:
        return usage_error("unknown option '%s'", arg);
    }
  }
  if (!a->model) return usage_error("no model given");
  if (!a->results) return usage_error("no results file given (the CSV or HDF5 of 'hydyn run')");
  if (a->has_every && a->times_text) return usage_error("give --every or --times, not both");
  return -1;
}

// HDF5 results name the model that was run (settings "model=..."): a run of another model with
// the same joint names would be drawn without complaint, so a differing name is said.
static void note_other_model(const hy_results* r, const hy_model* m, const char* path) {
  if (!r->settings || !m->name[0]) return;
  for (const char* p = r->settings; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, "model=", 6) != 0) continue;
    const size_t len = strcspn(p + 6, "\n");
    if (len != strlen(m->name) || strncmp(p + 6, m->name, len) != 0) {
      fprintf(stderr, "note: '%s' holds a run of model '%.*s', drawn here with model '%s'\n", path,
              (int)len, p + 6, m->name);
    }
    return;
  }
}

// An output that would overwrite an input (or the other output): the reason in msg, else 0.
static int clobbers(const snapshot_args* a, const char* out, char* msg, size_t size) {
  const char* const outs[2] = {out, a->data};
  const char* const what[2] = {"the figure", "--data"};
  for (int k = 0; k < 2; k++) {
    if (!outs[k]) continue;
    const char* victim = hy_cli_same_file(outs[k], a->results)      ? "the results file"
                         : hy_cli_same_file(outs[k], a->model)      ? "the model file"
                         : k == 1 && hy_cli_same_file(outs[1], out) ? "the figure"
                                                             : NULL;
    if (victim) {
      snprintf(msg, size, "%s '%s' is %s: choose another name", what[k], outs[k], victim);
      return 1;
    }
  }
  return 0;
}

// Default figure name: the model name with characters that would leave the directory replaced.
static void default_out(const hy_model* m, char* buf, size_t size) {
  snprintf(buf, size, "%s-snapshots.png", m->name[0] ? m->name : "hydyn");
  for (char* p = buf; *p; p++) {
    if (*p == '/' || *p == '\\') *p = '_';
  }
}

int hy_cli_snapshot(int argc, char** argv) {
  snapshot_args a;
  memset(&a, 0, sizeof a);
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  char msg[1024];
  // a bad figure name is a command-line error, found before any loading
  if (a.out && hy_gp_format_of(a.out, msg, sizeof msg) < 0) return usage_error("%s", msg);

  hy_model* m = NULL;
  rc = hy_cli_load_model(a.model, &m);
  if (rc != HY_CLI_OK) return rc;
  hy_results* r = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status s = hy_results_read(a.results, &r, &err);
  if (s != HY_OK) {
    if (err.code != s) {
      memset(&err, 0, sizeof err);
      err.code = s;
    }
    hy_cli_print_error(&err);
    hy_model_free(m);
    return HY_CLI_FAIL;
  }
  note_other_model(r, m, a.results);
  char out[300];
  if (!a.out) default_out(m, out, sizeof out);
  if (clobbers(&a, a.out ? a.out : out, msg, sizeof msg)) {
    hy_results_free(r);
    hy_model_free(m);
    return usage_error("%s", msg);
  }
  hy_snapshot_options o;
  memset(&o, 0, sizeof o);
  o.every = a.has_every ? a.every : 0;
  o.times = a.ntimes ? a.times : NULL;
  o.ntimes = a.ntimes;
  o.plane = a.plane;
  o.data_path = a.data;
  hy_snapshot_summary done;
  rc = hy_snapshot_render(m, r, &o, a.out ? a.out : out, &done, msg, sizeof msg);
  if (rc == HY_CLI_USAGE) {
    usage_error("%s", msg);
  } else if (rc != HY_CLI_OK) {
    fprintf(stderr, "hydyn snapshot: %s\n", msg);
  } else {
    // one key=value line, as plot's
    printf("snapshot: figure=%s frames=%d t=%.6g..%.6g axes=%s", a.out ? a.out : out, done.nframe,
           done.t_first, done.t_last, done.axes);
    if (a.data) printf(" data=%s", a.data);
    putchar('\n');
  }
  hy_results_free(r);
  hy_model_free(m);
  return rc;
}
