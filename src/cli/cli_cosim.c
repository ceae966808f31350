// `hydyn cosim MODEL [options]`: the model's mechanics and hydraulics co-simulated as separate
// subsystems by the Jacobi manager of src/cosim (seed 001_004ef98543c36dde.txt Sects. 2.3-4).
// One configuration and one H is a run: its records (CSV or HDF5) and a summary line. Several
// make a sweep: one run per configuration and H, a table, and per configuration the achievable
// communication step by the takeoff rule (docs/cosim.md). Both compare the cylinder lengths
// with a monolithic reference when asked, and draw figures with the figure code of cli_figure.c.
#define _POSIX_C_SOURCE 200809L  // clock_gettime, sigaction, mkdir, isatty

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_figure.h"
#include "cli/cli_load.h"
#include "cosim/cosim.h"
#include "hydyn/hydyn.h"
#include "hydyn/names.h"
#include "io/io.h"

// Most values of --H; a sweep's curves need a handful, a fine scan a few dozen.
enum { MAX_H = 64 };
// The hydraulics' step when none is given: seed 001 Sect. 4 locks it to 0.1 ms.
#define DEFAULT_HH 1e-4
// The monolithic reference of --reference auto: seed 001 Sect. 4.1, ALI3-P at 1 ms.
#define REFERENCE_DT 1e-3
// E_res_abs below this is round-off (J): the takeoff rule does not read its jumps.
#define E_FLOOR 1e-9

static const char* const kCouplingNames[] = {"vf", "vp"};
static const hy_integrator kHydInteg[] = {HY_INTEG_EULER, HY_INTEG_RK4, HY_INTEG_TRAPEZOIDAL};
static const char* const kHydNames[] = {"euler", "rk4", "tr"};

// The command line of cosim, parsed.
typedef struct cosim_args {
  const char* model;
  double H[MAX_H];
  int nH;
  double hh, t_end;
  int has_hh, has_t_end;
  int coupling[2], ncoupling;
  int extrap[HY_COSIM_ORDER_MAX + 2], nextrap;
  hy_formulation mbs[HY_FORM_COUNT];
  int nmbs;
  int hyd[3], nhyd;  // indices into kHydInteg
  int gauss_seidel;
  const char* out;
  int no_out;
  const char* sweep_out;
  const char* reference;
  const char* plot;
  int quiet;
} cosim_args;

static void cosim_usage(FILE* fp) {
  fputs(
      "usage: hydyn cosim MODEL [options]\n"
      "\n"
      "Co-simulates MODEL's mechanics and hydraulics as separate subsystems (seed 001): the\n"
      "mechanics take one step of H, every hydraulic circuit steps hh with its own integrator,\n"
      "and they exchange the cylinders' rates and forces (vf) or chamber pressures (vp) every H,\n"
      "in a non-iterative Jacobi scheme with Lagrange extrapolation of order 0, 1, 2 or the\n"
      "reduced interface model (im). One configuration and one H is a run: it writes its\n"
      "records and prints one summary line. Lists (comma-separated) make a sweep: one run per\n"
      "configuration and H, a table (--sweep-out) and, per configuration, the achievable H.\n"
      "\n"
      "options:\n"
      "  --H LIST            communication steps: seconds (1e-3) or with a unit (1ms, 500us,\n"
      "                      0.002s), comma-separated (default: the model's solver.dt)\n"
      "  --hh SECONDS        the hydraulics' step (default 1e-4 s); every H a whole multiple\n"
      "  --t-end SECONDS     end time (default: the model's t_end); a run takes the whole\n"
      "                      steps of H that fit\n"
      "  --coupling LIST     vf | vp | all (default vf)\n"
      "  --extrap LIST       0 | 1 | 2 | im | all (default 0): Lagrange order of the\n"
      "                      exchanged signals, or the reduced interface model\n"
      "  --mbs LIST          formulation of the mechanics: auto (the model's), tree, penalty,\n"
      "                      double-step, ali1, ali3p (default auto)\n"
      "  --hyd LIST          integrator of the hydraulics: euler | rk4 | tr (default rk4)\n"
      "  --gauss-seidel      the mechanics step first and the hydraulics take their new\n"
      "                      outputs, interpolated (not in seed 001; not with im)\n"
      "  --reference FILE|auto  monolithic reference for the cylinder lengths: a results file\n"
      "                      with len:<cylinder> (or s:<cylinder>) columns, or auto: MODEL run\n"
      "                      monolithically with ali3p at dt = 1 ms\n"
      "  --out FILE          one run: its records (default <model name>-cosim.csv; HDF5 for a\n"
      "                      name ending in .h5 or .hdf5)\n"
      "  --no-out            write no records\n"
      "  --sweep-out FILE    the sweep's table (default <model name>-sweep.csv)\n"
      "  --plot DIR          figures (made when missing): one run: lengths.png against the\n"
      "                      reference, energy.png; a sweep: residual-energy.png (log-log,\n"
      "                      and the length error when there is a reference)\n"
      "  --quiet             no progress lines and no notes on standard error\n"
      "  -h, --help          show this help\n"
      "\n"
      "Options may also be written --name=value. A run that becomes unstable stops with the time,\n"
      "H and the reason (docs/cosim.md); its records are kept. SIGINT or SIGTERM ends the run or\n"
      "sweep after the current macro step. Exit status: 0 success, 1 model, run or file error\n"
      "(an unstable single run included), 2 bad command line, 130/143 stopped by a signal.\n",
      fp);
}

#define usage_error(...) hy_cli_usage_error("cosim", __VA_ARGS__)

//----- option values ----------------------------------------------------------------------------

// A step size: a number > 0 in seconds, or with the unit s, ms or us. -1 when it is not one.
static int parse_step(const char* s, double* out) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  static const struct {
    const char* unit;
    double scale;
  } units[] = {{"ms", 1e-3}, {"us", 1e-6}, {"s", 1.0}};
  double scale = 1.0;
  const size_t len = strlen(buf);
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    const size_t ul = strlen(units[u].unit);
    if (len > ul && strcmp(buf + len - ul, units[u].unit) == 0) {
      buf[len - ul] = '\0';
      scale = units[u].scale;
      break;
    }
  }
  double v;
  if (hy_cli_parse_number(buf, 0, &v)) return -1;
  *out = v * scale;
  return isfinite(*out) && *out > 0 ? 0 : -1;
}

// Splits a comma-separated list into its items in turn: copies the next into item, moves *p.
static int next_item(const char** p, char* item, size_t size) {
  if (!*p) return 0;
  const char* comma = strchr(*p, ',');
  const size_t len = comma ? (size_t)(comma - *p) : strlen(*p);
  snprintf(item, size, "%.*s", (int)(len < size ? len : size - 1), *p);
  *p = comma ? comma + 1 : NULL;
  return 1;
}

static int has_int(const int* v, int n, int x) {
  for (int i = 0; i < n; i++) {
    if (v[i] == x) return 1;
  }
  return 0;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static int parse_H(const char* val, cosim_args* a) {
  a->nH = 0;
  char item[64];
  for (const char* p = val; next_item(&p, item, sizeof item);) {
    double h;
    if (parse_step(item, &h)) {
      return usage_error(
          "invalid --H '%s': expected step sizes > 0 in seconds (1e-3) or with a "
          "unit (1ms, 500us), comma-separated",
          item);
    }
    int seen = 0;
    for (int i = 0; i < a->nH; i++) seen |= fabs(a->H[i] - h) <= 1e-12 * h;
    if (seen) continue;
    if (a->nH == MAX_H) return usage_error("--H: at most %d step sizes", MAX_H);
    a->H[a->nH++] = h;
  }
  if (a->nH == 0) return usage_error("--H needs at least one step size");
  qsort(a->H, (size_t)a->nH, sizeof a->H[0], cmp_double);
  return -1;
}

static int parse_coupling(const char* val, cosim_args* a) {
  a->ncoupling = 0;
  char item[32];
  for (const char* p = val; next_item(&p, item, sizeof item);) {
    int c = -1;
    if (strcmp(item, "all") == 0) {
      for (int k = 0; k < 2; k++) {
        if (!has_int(a->coupling, a->ncoupling, k)) a->coupling[a->ncoupling++] = k;
      }
      continue;
    }
    for (int k = 0; k < 2; k++) {
      if (strcmp(item, kCouplingNames[k]) == 0) c = k;
    }
    if (c < 0) return usage_error("invalid --coupling '%s': expected vf, vp or all", item);
    if (!has_int(a->coupling, a->ncoupling, c)) a->coupling[a->ncoupling++] = c;
  }
  if (a->ncoupling == 0) return usage_error("--coupling needs vf, vp or all");
  return -1;
}

static int parse_extrap(const char* val, cosim_args* a) {
  a->nextrap = 0;
  char item[32];
  const int all[] = {0, 1, 2, HY_COSIM_IM};
  for (const char* p = val; next_item(&p, item, sizeof item);) {
    int e;
    if (strcmp(item, "all") == 0) {
      for (int k = 0; k < 4; k++) {
        if (!has_int(a->extrap, a->nextrap, all[k])) a->extrap[a->nextrap++] = all[k];
      }
      continue;
    } else if (strcmp(item, "im") == 0) {
      e = HY_COSIM_IM;
    } else if (strlen(item) == 1 && item[0] >= '0' && item[0] <= '0' + HY_COSIM_ORDER_MAX) {
      e = item[0] - '0';
    } else {
      return usage_error("invalid --extrap '%s': expected 0, 1, 2, im or all", item);
    }
    if (!has_int(a->extrap, a->nextrap, e)) a->extrap[a->nextrap++] = e;
  }
  if (a->nextrap == 0) return usage_error("--extrap needs 0, 1, 2, im or all");
  return -1;
}

static int parse_mbs(const char* val, cosim_args* a) {
  a->nmbs = 0;
  char item[64];
  for (const char* p = val; next_item(&p, item, sizeof item);) {
    hy_formulation f;
    if (hy_formulation_parse(item, &f) != HY_OK) {
      char names[200] = "";
      for (int k = 0; k < HY_FORM_COUNT; k++) {
        const size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "",
                 hy_formulation_name((hy_formulation)k));
      }
      return usage_error("invalid --mbs '%s': expected one of %s", item, names);
    }
    int seen = 0;
    for (int k = 0; k < a->nmbs; k++) seen |= a->mbs[k] == f;
    if (!seen) a->mbs[a->nmbs++] = f;
  }
  if (a->nmbs == 0) return usage_error("--mbs needs a formulation");
  return -1;
}

static int parse_hyd(const char* val, cosim_args* a) {
  a->nhyd = 0;
  char item[32];
  for (const char* p = val; next_item(&p, item, sizeof item);) {
    int h = -1;
    for (int k = 0; k < 3; k++) {
      if (strcmp(item, kHydNames[k]) == 0) h = k;
    }
    if (strcmp(item, "trapezoidal") == 0) h = 2;
    if (h < 0) return usage_error("invalid --hyd '%s': expected euler, rk4 or tr", item);
    if (!has_int(a->hyd, a->nhyd, h)) a->hyd[a->nhyd++] = h;
  }
  if (a->nhyd == 0) return usage_error("--hyd needs euler, rk4 or tr");
  return -1;
}

static int nconfig(const cosim_args* a) { return a->ncoupling * a->nextrap * a->nmbs * a->nhyd; }
static int is_sweep(const cosim_args* a) { return a->nH > 1 || nconfig(a) > 1; }

// Parses argv (argv[0] = "cosim"). Returns -1 to go on, else the exit status.
static int parse_args(int argc, char** argv, cosim_args* a) {
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cosim_usage(stdout);
      return HY_CLI_OK;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (a->model) return usage_error("unexpected argument '%s' (MODEL is '%s')", arg, a->model);
      a->model = arg;
      continue;
    }
    if (strcmp(arg, "--gauss-seidel") == 0) {
      a->gauss_seidel = 1;
      continue;
    }
    if (strcmp(arg, "--quiet") == 0) {
      a->quiet = 1;
      continue;
    }
    if (strcmp(arg, "--no-out") == 0) {
      a->no_out = 1;
      continue;
    }
    static const char* const valued[] = {"--H",         "--hh",        "--t-end", "--coupling",
                                         "--extrap",    "--mbs",       "--hyd",   "--out",
                                         "--sweep-out", "--reference", "--plot"};
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(
        argc, argv, &i, valued, (int)(sizeof valued / sizeof valued[0]), &val, msg, sizeof msg);
    if (opt == -2) return usage_error("%s", msg);
    int rc = -1;
    switch (opt) {
      case 0:
        rc = parse_H(val, a);
        break;
      case 1:
        if (parse_step(val, &a->hh)) {
          return usage_error("invalid --hh '%s': expected a step > 0 in seconds (1e-4, 0.1ms)",
                             val);
        }
        a->has_hh = 1;
        break;
      case 2:
        if (hy_cli_parse_number(val, 0, &a->t_end)) {
          return usage_error("invalid --t-end '%s': expected a number of seconds > 0", val);
        }
        a->has_t_end = 1;
        break;
      case 3:
        rc = parse_coupling(val, a);
        break;
      case 4:
        rc = parse_extrap(val, a);
        break;
      case 5:
        rc = parse_mbs(val, a);
        break;
      case 6:
        rc = parse_hyd(val, a);
        break;
      case 7:
        if (!val[0]) return usage_error("--out needs a file name");
        a->out = val;
        a->no_out = 0;
        break;
      case 8:
        if (!val[0]) return usage_error("--sweep-out needs a file name");
        a->sweep_out = val;
        break;
      case 9:
        if (!val[0]) return usage_error("--reference needs a results file or auto");
        a->reference = val;
        break;
      case 10:
        if (!val[0]) return usage_error("--plot needs a folder");
        a->plot = val;
        break;
      default:
        return usage_error("unknown option '%s'", arg);
    }
    if (rc >= 0) return rc;
  }
  if (!a->model) return usage_error("no model given");
  // what can be checked without the model
  for (int i = 0; i < a->nH; i++) {
    if (a->H[i] < a->hh * (1 - 1e-12)) {
      return usage_error("--H %g s is shorter than the hydraulics' step hh = %g s", a->H[i], a->hh);
    }
    const double r = a->H[i] / a->hh;
    if (fabs(r - round(r)) > 1e-9) {
      return usage_error(
          "--H %g s is not a whole number of hydraulic steps hh = %g s (H / hh = "
          "%.9g)",
          a->H[i], a->hh, r);
    }
    if (a->has_t_end && a->H[i] > a->t_end * (1 + 1e-9)) {
      return usage_error("--H %g s is longer than the run, --t-end %g s", a->H[i], a->t_end);
    }
  }
  if (has_int(a->extrap, a->nextrap, HY_COSIM_IM) && a->gauss_seidel) {
    return usage_error(
        "--gauss-seidel gives the hydraulics the mechanics' computed outputs; "
        "--extrap im predicts them: choose one");
  }
  if (a->out && is_sweep(a)) {
    return usage_error(
        "--out records one run; a sweep (%d configurations x %d step sizes) writes "
        "its table to --sweep-out",
        nconfig(a), a->nH > 0 ? a->nH : 1);
  }
  if (a->out && a->reference && strcmp(a->reference, "auto") != 0 &&
      hy_cli_same_file(a->out, a->reference)) {
    return usage_error("--out '%s' is the reference file: it would be overwritten", a->out);
  }
  if (a->sweep_out && a->reference && strcmp(a->reference, "auto") != 0 &&
      hy_cli_same_file(a->sweep_out, a->reference)) {
    return usage_error("--sweep-out '%s' is the reference file: it would be overwritten",
                       a->sweep_out);
  }
  return -1;
}

//----- the reference ------------------------------------------------------------------------------

// The cylinder lengths of a monolithic run at its times.
typedef struct reference {
  long n;
  int ncyl;
  double* t;  // n
  double* s;  // n x ncyl, row-major
  char what[400];
} reference;

static void reference_free(reference* r) {
  free(r->t);
  free(r->s);
  memset(r, 0, sizeof *r);
}

static const char* cyl_name(const hy_model* m, int k) {
  return m->frc_name + (size_t)m->cyl_frc[k] * HY_NAME_MAX;
}

typedef struct ref_rec {
  reference* r;
  long cap;
} ref_rec;

static hy_status ref_record(void* user, const hy_model* m, const hy_data* d) {
  ref_rec* rr = user;
  reference* r = rr->r;
  if (r->n == rr->cap) return HY_ERR_NOMEM;  // sized for the run: cannot happen
  r->t[r->n] = d->time;
  for (int k = 0; k < r->ncyl; k++) r->s[r->n * r->ncyl + k] = d->frc_len[m->cyl_frc[k]];
  r->n++;
  return HY_OK;
}

// --reference auto: MODEL run monolithically (ali3p where the build has it, else penalty) at
// 1 ms to t_end, every step recorded.
static int reference_auto(const hy_model* m, double t_end, reference* r) {
  hy_model* c = NULL;
  if (hy_model_copy(m, &c) != HY_OK) {
    fputs("hydyn cosim: out of memory for the reference run\n", stderr);
    return HY_CLI_FAIL;
  }
  hy_formulation f = HY_FORM_PENALTY;
  if (hy_formulation_parse("ali3p", &f) != HY_OK) f = HY_FORM_PENALTY;
  c->opt.formulation = f;
  c->opt.integrator = HY_INTEG_AUTO;
  c->opt.dt = REFERENCE_DT < t_end ? REFERENCE_DT : t_end;
  c->opt.t_end = t_end;
  hy_data* d = NULL;
  int rc = hy_cli_make_data(c, m->name, &d);
  if (rc != HY_CLI_OK) {
    hy_model_free(c);
    return rc;
  }
  const long cap = (long)ceil(t_end / c->opt.dt) + 3;
  r->ncyl = m->sizes.ncyl;
  r->t = malloc(sizeof *r->t * (size_t)cap);
  r->s = malloc(sizeof *r->s * (size_t)cap * (size_t)(r->ncyl > 0 ? r->ncyl : 1));
  ref_rec rr = {r, cap};
  hy_status st = !r->t || !r->s ? HY_ERR_NOMEM : HY_OK;
  if (st == HY_OK) {
    hy_run_options o = hy_run_options_default();
    o.record = ref_record;
    o.record_user = &rr;
    hy_run_summary sum;
    st = hy_run(c, d, &o, &sum);
  }
  if (st != HY_OK) {
    char buf[700];
    hy_error e = d->err;
    if (e.code != st) {
      memset(&e, 0, sizeof e);
      e.code = st;
    }
    hy_error_format(&e, buf, sizeof buf);
    fprintf(stderr, "hydyn cosim: the monolithic reference run (%s, dt = %g s) failed: %s\n",
            hy_formulation_name(d->formulation), c->opt.dt, buf);
    rc = HY_CLI_FAIL;
  }
  snprintf(r->what, sizeof r->what, "monolithic %s, dt = %g s", hy_formulation_name(d->formulation),
           c->opt.dt);
  hy_data_free(d);
  hy_model_free(c);
  return rc;
}

// --reference FILE: a results file with time and, per cylinder, len:<cyl> or s:<cyl>.
static int reference_file(const hy_model* m, const char* path, reference* r) {
  hy_results* res = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_results_read(path, &res, &err);
  if (st != HY_OK) {
    fprintf(stderr, "hydyn cosim: cannot read the reference: %s\n",
            err.code == st ? err.msg : hy_status_str(st));
    return HY_CLI_FAIL;
  }
  const int tc = hy_results_find(res, "time");
  r->ncyl = m->sizes.ncyl;
  int* col = calloc((size_t)(r->ncyl > 0 ? r->ncyl : 1), sizeof *col);
  int rc = tc < 0 || !col ? HY_CLI_FAIL : HY_CLI_OK;
  if (tc < 0) fprintf(stderr, "hydyn cosim: the reference '%s' has no time channel\n", path);
  for (int k = 0; k < r->ncyl && rc == HY_CLI_OK; k++) {
    char name[HY_NAME_MAX + 8];
    snprintf(name, sizeof name, "len:%s", cyl_name(m, k));
    col[k] = hy_results_find(res, name);
    if (col[k] < 0) {
      snprintf(name, sizeof name, "s:%s", cyl_name(m, k));
      col[k] = hy_results_find(res, name);
    }
    if (col[k] < 0) {
      fprintf(stderr,
              "hydyn cosim: the reference '%s' has no column len:%s or s:%s (record it with "
              "'hydyn run --channels default' or use a cosim record)\n",
              path, cyl_name(m, k), cyl_name(m, k));
      rc = HY_CLI_FAIL;
    }
  }
  if (rc == HY_CLI_OK) {
    r->n = res->nrow;
    r->t = malloc(sizeof *r->t * (size_t)(r->n > 0 ? r->n : 1));
    r->s = malloc(sizeof *r->s * (size_t)(r->n > 0 ? r->n : 1) * (size_t)r->ncyl);
    if (!r->t || !r->s) rc = HY_CLI_FAIL;
    for (long i = 0; i < r->n && rc == HY_CLI_OK; i++) {
      r->t[i] = hy_results_column(res, tc)[i];
      for (int k = 0; k < r->ncyl; k++) r->s[i * r->ncyl + k] = hy_results_column(res, col[k])[i];
    }
    snprintf(r->what, sizeof r->what, "%s", path);
  }
  free(col);
  hy_results_free(res);
  return rc;
}

//----- one run ----------------------------------------------------------------------------------

// What a run left, per communication point: time, the cylinder lengths, and the energies.
enum { TR_E_RES, TR_E_RES_ABS, TR_E_BAL, TR_DP, TR_EXTRA };
typedef struct track {
  long n, cap;
  int ncyl, width;  // width = 1 + ncyl + TR_EXTRA
  double* v;        // n rows of width
} track;

typedef struct run_result {
  int completed;
  double t_stop;
  long steps;
  hy_cosim_energy e;
  double err_max, err_rms;  // NAN without a reference
  double wall, rtf;
  hy_formulation mbs;  // the formulation used (never auto)
  hy_status status;
  char msg[700];
} run_result;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


static void track_row(track* tr, const hy_cosim* cs, const int* s_col, const double* row) {
  if (!tr || tr->n >= tr->cap) return;
  double* v = tr->v + tr->n * tr->width;
  hy_cosim_energy e;
  hy_cosim_energies(cs, &e);
  v[0] = hy_cosim_time(cs);
  for (int k = 0; k < tr->ncyl; k++) v[1 + k] = row[s_col[k]];
  v[1 + tr->ncyl + TR_E_RES] = e.E_res;
  v[1 + tr->ncyl + TR_E_RES_ABS] = e.E_res_abs;
  v[1 + tr->ncyl + TR_E_BAL] = e.E_bal;
  v[1 + tr->ncyl + TR_DP] = e.dP;
  tr->n++;
}

// Linear interpolation of track column c at time t (t within the track's times).
static double track_at(const track* tr, int c, double t, long* hint) {
  long i = *hint;
  while (i + 1 < tr->n && tr->v[(i + 1) * tr->width] < t) i++;
  *hint = i;
  if (i + 1 >= tr->n) return tr->v[i * tr->width + c];
  const double t0 = tr->v[i * tr->width], t1 = tr->v[(i + 1) * tr->width];
  const double w = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
  return (1 - w) * tr->v[i * tr->width + c] + w * tr->v[(i + 1) * tr->width + c];
}

// The cylinder lengths' error against the reference, at the reference's times up to the last
// communication point of the run: the largest and the RMS over times and cylinders.
static void length_errors(const track* tr, const reference* ref, double* emax, double* erms) {
  *emax = *erms = NAN;
  if (!ref || ref->n == 0 || tr->n == 0) return;
  const double t_last = tr->v[(tr->n - 1) * tr->width];
  double m = 0, sum = 0;
  long count = 0, hint = 0;
  for (long i = 0; i < ref->n; i++) {
    const double t = ref->t[i];
    if (t > t_last + 1e-9 * (1 + t_last)) break;
    for (int k = 0; k < tr->ncyl; k++) {
      const double e = track_at(tr, 1 + k, t, &hint) - ref->s[i * ref->ncyl + k];
      m = fmax(m, fabs(e));
      sum += e * e;
      count++;
    }
  }
  if (count == 0) return;
  *emax = m;
  *erms = sqrt(sum / (double)count);
}

static const char* hyd_name(hy_integrator h) {
  for (int k = 0; k < 3; k++) {
    if (kHydInteg[k] == h) return kHydNames[k];
  }
  return hy_integrator_name(h);
}

static const char* extrap_name(int e, char* buf, size_t size) {
  if (e == HY_COSIM_IM) {
    snprintf(buf, size, "im");
  } else {
    snprintf(buf, size, "%d", e);
  }
  return buf;
}

// Runs one configuration to its end or its failure, recording rows to w (nullable) and tr
// (nullable). r gets the outcome.
static void run_one(const hy_model* m, const hy_cosim_config* c, hy_writer* w, const char* out,
                    track* tr, const reference* ref, run_result* r) {
  memset(r, 0, sizeof *r);
  r->err_max = r->err_rms = NAN;
  r->mbs = c->mbs;
  hy_cosim* cs = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  r->status = hy_cosim_make(m, c, &cs, &err);
  if (r->status != HY_OK) {
    char buf[600];
    hy_error_format(&err, buf, sizeof buf);
    snprintf(r->msg, sizeof r->msg, "%s", err.code == r->status ? buf : hy_status_str(r->status));
    return;
  }
  const hy_data* md = hy_cosim_mechanics_data(cs);
  if (md) r->mbs = md->formulation;
  const int nchan = hy_cosim_nchan(cs);
  double* row = malloc(sizeof *row * (size_t)nchan);
  int* s_col = malloc(sizeof *s_col * (size_t)(m->sizes.ncyl > 0 ? m->sizes.ncyl : 1));
  if (!row || !s_col) {
    r->status = HY_ERR_NOMEM;
    snprintf(r->msg, sizeof r->msg, "out of memory");
    free(row);
    free(s_col);
    hy_cosim_free(cs);
    return;
  }
  for (int k = 0; k < m->sizes.ncyl; k++) {
    char name[HY_NAME_MAX + 8];
    snprintf(name, sizeof name, "s:%s", cyl_name(m, k));
    s_col[k] = hy_cosim_chan_find(cs, name);
  }
  const long N = hy_cosim_nsteps(cs);
  const double wall0 = now_seconds();
  hy_cosim_row(cs, row);
  track_row(tr, cs, s_col, row);
  if (w && hy_writer_row(w, row, &err) != HY_OK) {
    r->status = err.code;
    snprintf(r->msg, sizeof r->msg, "writing '%s' failed at t = 0 s: %s", out, err.msg);
  }
  long n = 0;
  for (; n < N && r->status == HY_OK && !hy_cli_stop_signal; n++) {
    r->status = hy_cosim_step(cs, &err);
    if (r->status != HY_OK) {
      snprintf(r->msg, sizeof r->msg, "%s",
               err.code == r->status ? err.msg : hy_status_str(r->status));
      break;
    }
    hy_cosim_row(cs, row);
    track_row(tr, cs, s_col, row);
    if (w && hy_writer_row(w, row, &err) != HY_OK) {
      r->status = err.code;
      snprintf(r->msg, sizeof r->msg, "writing '%s' failed at t = %.9g s: %s", out,
               hy_cosim_time(cs), err.msg);
    }
  }
  r->wall = now_seconds() - wall0;
  r->steps = hy_cosim_step_count(cs);
  r->t_stop = hy_cosim_time(cs);
  r->completed = r->status == HY_OK && r->steps == N;
  r->rtf = r->wall > 0 ? r->t_stop / r->wall : INFINITY;
  hy_cosim_energies(cs, &r->e);
  if (tr) length_errors(tr, ref, &r->err_max, &r->err_rms);
  free(row);
  free(s_col);
  hy_cosim_free(cs);
}

static int track_init(track* tr, const hy_model* m, const hy_cosim_config* c) {
  tr->ncyl = m->sizes.ncyl;
  tr->width = 1 + tr->ncyl + TR_EXTRA;
  tr->cap = (long)floor(c->t_end / c->H + 1e-9) + 2;
  tr->n = 0;
  tr->v = malloc(sizeof *tr->v * (size_t)tr->cap * (size_t)tr->width);
  return tr->v ? 0 : -1;
}

//----- text -------------------------------------------------------------------------------------

typedef struct text {
  char buf[2048];
  size_t used;
} text;

__attribute__((format(printf, 2, 3))) static void add(text* t, const char* fmt, ...) {
  if (t->used >= sizeof t->buf) return;
  va_list ap;
  va_start(ap, fmt);
  const int w = vsnprintf(t->buf + t->used, sizeof t->buf - t->used, fmt, ap);
  va_end(ap);
  if (w > 0) {
    t->used += (size_t)w < sizeof t->buf - t->used ? (size_t)w : sizeof t->buf - t->used - 1;
  }
}

// "coupling=vp extrap=1 mbs=penalty hyd=rk4 scheme=jacobi"
static void config_text(text* t, const hy_cosim_config* c, hy_formulation mbs) {
  char e[8];
  add(t, "scheme=%s coupling=%s extrap=%s mbs=%s hyd=%s",
      c->gauss_seidel ? "gauss-seidel" : "jacobi", kCouplingNames[c->coupling],
      extrap_name(c->extrap, e, sizeof e), hy_formulation_name(mbs), hyd_name(c->hyd));
}

// Default file names: the model's name, made safe for a path.
static void default_path(const hy_model* m, const char* suffix, char* buf, size_t size) {
  snprintf(buf, size, "%s%s", m->name[0] ? m->name : "hydyn", suffix);
  for (char* p = buf; *p; p++) {
    if (*p == '/' || *p == '\\') *p = '_';
  }
}

static int make_dir(const char* dir) {
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return 0;
    fprintf(stderr, "hydyn cosim: --plot '%s' exists and is not a folder\n", dir);
    return -1;
  }
  if (mkdir(dir, 0777) != 0) {
    fprintf(stderr, "hydyn cosim: cannot make the folder '%s': %s\n", dir, strerror(errno));
    return -1;
  }
  return 0;
}

//----- figures ----------------------------------------------------------------------------------

static int render(const hy_fig* f, const char* dir, const char* name, int quiet) {
  char fig[1024], data[1024], msg[1024];
  snprintf(fig, sizeof fig, "%s/%s.png", dir, name);
  snprintf(data, sizeof data, "%s/%s.csv", dir, name);
  const int rc = hy_fig_render(f, fig, data, msg, sizeof msg);
  if (rc != HY_CLI_OK) {
    fprintf(stderr, "hydyn cosim: %s\n", msg);
  } else if (!quiet) {
    fprintf(stderr, "note: wrote %s (its numbers in %s)\n", fig, data);
  }
  return rc;
}

// One run: the cylinder lengths against the reference (interpolated onto the communication
// points), and the residual energy and power over time.
static int plot_run(const track* tr, const reference* ref, const hy_model* m, const char* dir,
                    const char* title, int quiet) {
  const int ncyl = tr->ncyl;
  hy_fig_curve* curves = calloc((size_t)(2 * ncyl + 4), sizeof *curves);
  double* cols = malloc(sizeof *cols * (size_t)tr->n * (size_t)(2 * ncyl + 5));
  char(*names)[HY_NAME_MAX + 24] = calloc((size_t)(2 * ncyl + 4), sizeof *names);
  int rc = !curves || !cols || !names ? HY_CLI_FAIL : HY_CLI_OK;
  if (rc != HY_CLI_OK) fputs("hydyn cosim: out of memory for the figures\n", stderr);
  double* t = cols;
  for (long i = 0; rc == HY_CLI_OK && i < tr->n; i++) t[i] = tr->v[i * tr->width];
  int nc = 0;
  for (int k = 0; rc == HY_CLI_OK && k < ncyl; k++) {
    double* y = cols + (size_t)(1 + nc) * (size_t)tr->n;
    for (long i = 0; i < tr->n; i++) y[i] = tr->v[i * tr->width + 1 + k];
    snprintf(names[nc], sizeof names[0], "s:%s", cyl_name(m, k));
    curves[nc] = (hy_fig_curve){.y = y, .name = names[nc], .unit = "m", .color = k};
    nc++;
    if (ref && ref->n > 0) {
      double* yr = cols + (size_t)(1 + nc) * (size_t)tr->n;
      long j = 0;
      for (long i = 0; i < tr->n; i++) {
        while (j + 1 < ref->n && ref->t[j + 1] < t[i]) j++;
        if (j + 1 >= ref->n || t[i] <= ref->t[j]) {
          yr[i] = ref->s[j * ref->ncyl + k];
        } else {
          const double w = (t[i] - ref->t[j]) / (ref->t[j + 1] - ref->t[j]);
          yr[i] = (1 - w) * ref->s[j * ref->ncyl + k] + w * ref->s[(j + 1) * ref->ncyl + k];
        }
      }
      snprintf(names[nc], sizeof names[0], "ref:%s", cyl_name(m, k));
      curves[nc] = (hy_fig_curve){.y = yr, .name = names[nc], .unit = "m", .color = k, .dashed = 1};
      nc++;
    }
  }
  if (rc == HY_CLI_OK) {
    char dashed[460];
    snprintf(dashed, sizeof dashed, "reference: %s", ref && ref->n ? ref->what : "");
    const hy_fig f = {.npoint = tr->n,
                      .x = t,
                      .x_name = "time",
                      .x_unit = "s",
                      .curve = curves,
                      .ncurve = nc,
                      .title = title,
                      .solid_label = ref && ref->n ? "co-simulation" : NULL,
                      .dashed_label = ref && ref->n ? dashed : NULL};
    rc = render(&f, dir, "lengths", quiet);
  }
  if (rc == HY_CLI_OK) {
    static const char* const en[] = {"E_res", "E_res_abs", "E_bal", "dP"};
    static const char* const eu[] = {"J", "J", "J", "W"};
    for (int e = 0; e < TR_EXTRA; e++) {
      double* y = cols + (size_t)(1 + e) * (size_t)tr->n;
      for (long i = 0; i < tr->n; i++) y[i] = tr->v[i * tr->width + 1 + ncyl + e];
      curves[e] = (hy_fig_curve){.y = y, .name = en[e], .unit = eu[e], .color = -1};
    }
    const hy_fig f = {.npoint = tr->n,
                      .x = t,
                      .x_name = "time",
                      .x_unit = "s",
                      .curve = curves,
                      .ncurve = TR_EXTRA,
                      .title = title};
    rc = render(&f, dir, "energy", quiet);
  }
  free(curves);
  free(cols);
  free(names);
  return rc;
}

//----- the sweep --------------------------------------------------------------------------------

typedef struct sweep_row {
  hy_cosim_config c;
  run_result r;
  int achievable;
} sweep_row;

static void table_header(FILE* fp) {
  fputs(
      "scheme,coupling,extrap,mbs,hyd,hh[s],H[s],completed,t_stop[s],steps,E_res[J],"
      "E_res_abs[J],E_bal[J],err_s_max[m],err_s_rms[m],wall[s],rtf,achievable\n",
      fp);
}

static void put_num(FILE* fp, double v) {
  if (isfinite(v)) {
    fprintf(fp, ",%.9g", v);
  } else {
    fputc(',', fp);  // no value: an empty field
  }
}

static void table_row(FILE* fp, const sweep_row* s) {
  const hy_cosim_config* c = &s->c;
  char e[8];
  fprintf(fp, "%s,%s,%s,%s,%s,%.9g,%.9g,%d,%.9g,%ld", c->gauss_seidel ? "gauss-seidel" : "jacobi",
          kCouplingNames[c->coupling], extrap_name(c->extrap, e, sizeof e),
          hy_formulation_name(s->r.mbs), hyd_name(c->hyd), c->hh, c->H, s->r.completed, s->r.t_stop,
          s->r.steps);
  put_num(fp, s->r.status == HY_OK || s->r.steps > 0 ? s->r.e.E_res : NAN);
  put_num(fp, s->r.status == HY_OK || s->r.steps > 0 ? s->r.e.E_res_abs : NAN);
  put_num(fp, s->r.status == HY_OK || s->r.steps > 0 ? s->r.e.E_bal : NAN);
  put_num(fp, s->r.err_max);
  put_num(fp, s->r.err_rms);
  put_num(fp, s->r.wall);
  put_num(fp, s->r.rtf);
  fprintf(fp, ",%d\n", s->achievable);
}

// Draws E_res_abs (and the length error with a reference) against H, one curve per
// configuration: seed 001 Figs. 9, 12, 15.
static int plot_sweep(const sweep_row* rows, int ncfg, int nH, const double* H, int with_ref,
                      const char* dir, const char* title, int quiet) {
  const int ncurve = ncfg * (with_ref ? 2 : 1);
  hy_fig_curve* curves = calloc((size_t)ncurve, sizeof *curves);
  double* y = malloc(sizeof *y * (size_t)ncurve * (size_t)nH);
  char(*names)[160] = calloc((size_t)ncurve, sizeof *names);
  if (!curves || !y || !names) {
    fputs("hydyn cosim: out of memory for the figures\n", stderr);
    free(curves);
    free(y);
    free(names);
    return HY_CLI_FAIL;
  }
  for (int g = 0; g < ncfg; g++) {
    const sweep_row* r0 = rows + (size_t)g * (size_t)nH;
    char e[8];
    for (int q = 0; q < (with_ref ? 2 : 1); q++) {
      const int k = q * ncfg + g;
      snprintf(names[k], sizeof names[k], "%s%s%s m=%s %s %s", q ? "err_s_max: " : "",
               r0->c.gauss_seidel ? "GS " : "", kCouplingNames[r0->c.coupling],
               extrap_name(r0->c.extrap, e, sizeof e), hy_formulation_name(r0->r.mbs),
               hyd_name(r0->c.hyd));
      double* v = y + (size_t)k * (size_t)nH;
      for (int i = 0; i < nH; i++) {
        const run_result* r = &r0[i].r;
        v[i] = !r->completed ? NAN : q ? r->err_max : r->e.E_res_abs;
      }
      curves[k] = (hy_fig_curve){.y = v, .name = names[k], .unit = q ? "m" : "J", .color = g};
    }
  }
  const hy_fig f = {.npoint = nH,
                    .x = H,
                    .x_name = "communication step H",
                    .x_unit = "s",
                    .curve = curves,
                    .ncurve = ncurve,
                    .title = title,
                    .log_x = 1,
                    .log_y = 1,
                    .points = 1};
  const int rc = render(&f, dir, "residual-energy", quiet);
  free(curves);
  free(y);
  free(names);
  return rc;
}

//----- the command ------------------------------------------------------------------------------

static hy_cosim_config make_config(const cosim_args* a, double t_end, int cp, int ex, int mb,
                                   int hy, double H) {
  return (hy_cosim_config){.H = H,
                           .hh = a->hh,
                           .t_end = t_end,
                           .coupling = (hy_cosim_coupling)a->coupling[cp],
                           .extrap = a->extrap[ex],
                           .gauss_seidel = a->gauss_seidel,
                           .mbs = a->mbs[mb],
                           .hyd = kHydInteg[a->hyd[hy]]};
}

static void settings_text(text* t, const hy_model* m, const hy_cosim_config* c) {
  add(t, "hydyn=%s\ncommand=cosim\nmodel=%s\n", HY_VERSION_STRING, m->name);
  char e[8];
  add(t, "scheme=%s\ncoupling=%s\nextrap=%s\nmbs=%s\nhyd=%s\nH=%.17g\nhh=%.17g\nt_end=%.17g\n",
      c->gauss_seidel ? "gauss-seidel" : "jacobi", kCouplingNames[c->coupling],
      extrap_name(c->extrap, e, sizeof e), hy_formulation_name(c->mbs), hyd_name(c->hyd), c->H,
      c->hh, c->t_end);
}

// The records' writer of a single run: the manager's channels (a throwaway manager gives the
// names; making one is cheap beside the run).
static int open_records(const hy_model* m, const hy_cosim_config* c, const char* out,
                        hy_writer** w) {
  hy_cosim* cs = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_cosim_make(m, c, &cs, &err);
  if (st != HY_OK) {
    hy_cli_print_error(&err);
    return HY_CLI_FAIL;
  }
  const int n = hy_cosim_nchan(cs);
  const char** names = calloc((size_t)n, sizeof *names);
  const char** units = calloc((size_t)n, sizeof *units);
  st = !names || !units ? HY_ERR_NOMEM : HY_OK;
  for (int i = 0; st == HY_OK && i < n; i++) {
    names[i] = hy_cosim_chan_name(cs, i);
    units[i] = hy_cosim_chan_unit(cs, i);
  }
  text settings = {.used = 0};
  settings_text(&settings, m, c);
  const hy_results_meta meta = {m->name, NULL, settings.buf};
  if (st == HY_OK) st = hy_writer_open(out, n, names, units, &meta, w, &err);
  free(names);
  free(units);
  hy_cosim_free(cs);
  if (st != HY_OK) {
    if (err.code == st) {
      hy_cli_print_error(&err);
    } else {
      fprintf(stderr, "hydyn: cannot write '%s': %s\n", out, hy_status_str(st));
    }
    return HY_CLI_FAIL;
  }
  return HY_CLI_OK;
}

static int single_run(const cosim_args* a, const hy_model* m, double t_end, const reference* ref) {
  const hy_cosim_config c = make_config(a, t_end, 0, 0, 0, 0, a->H[0]);
  char out_buf[300];
  const char* out = NULL;
  if (!a->no_out) {
    if (a->out) {
      out = a->out;
    } else {
      default_path(m, "-cosim.csv", out_buf, sizeof out_buf);
      out = out_buf;
    }
    if (strcmp(out, "-") != 0 && access(a->model, F_OK) == 0 && hy_cli_same_file(out, a->model)) {
      fprintf(stderr, "hydyn cosim: --out '%s' is the model file itself: it would be overwritten\n",
              out);
      return HY_CLI_USAGE;
    }
  }
  // the figures' folder first, so that the records may go into it
  if (a->plot && make_dir(a->plot) != 0) return HY_CLI_FAIL;
  hy_writer* w = NULL;
  if (out) {
    const int rc = open_records(m, &c, out, &w);
    if (rc != HY_CLI_OK) return rc;
  }
  track tr = {0};
  if (track_init(&tr, m, &c) != 0) {
    fputs("hydyn cosim: out of memory\n", stderr);
    hy_writer_close(w, NULL, NULL);
    return HY_CLI_FAIL;
  }
  run_result r;
  run_one(m, &c, w, out, &tr, ref, &r);
  int rc = r.status == HY_OK ? HY_CLI_OK : HY_CLI_FAIL;
  text sum = {.used = 0};
  add(&sum, "summary: model=%s ", m->name);
  config_text(&sum, &c, r.mbs);
  add(&sum, " H=%g hh=%g t_end=%g steps=%ld E_res=%.4g J E_res_abs=%.4g J E_bal=%.4g J", c.H, c.hh,
      t_end, r.steps, r.e.E_res, r.e.E_res_abs, r.e.E_bal);
  if (isfinite(r.err_max)) add(&sum, " err_s_max=%.3g m err_s_rms=%.3g m", r.err_max, r.err_rms);
  add(&sum, " wall=%.4g s rtf=%.4g", r.wall, r.rtf);
  if (hy_cli_stop_signal) add(&sum, " stopped_at=%.9g s", r.t_stop);
  if (out && hy_results_format_of(out) == HY_RESULTS_HDF5) {
    add(&sum, " hdf5=%s", out);
  } else {
    add(&sum, " csv=%s", out ? out : "none");
  }
  hy_error cerr;
  memset(&cerr, 0, sizeof cerr);
  if (w && hy_writer_close(w, sum.buf, &cerr) != HY_OK && rc == HY_CLI_OK) {
    fprintf(stderr, "hydyn: writing '%s' failed: %s\n", out, cerr.msg);
    rc = HY_CLI_FAIL;
  }
  if (r.status != HY_OK) {
    fprintf(stderr, "hydyn: %s\n", r.msg);
    if (out && !a->quiet && tr.n > 0) {
      fprintf(stderr, "note: %s holds the rows up to t = %.9g s (step %ld)\n", out,
              tr.v[(tr.n - 1) * tr.width], r.steps);
    }
  }
  if (rc == HY_CLI_OK && hy_cli_stop_signal) {
    fprintf(stderr, "hydyn: stopped by %s at t = %.9g s after %ld steps%s%s\n",
            hy_cli_stop_signal == SIGINT ? "SIGINT" : "SIGTERM", r.t_stop, r.steps,
            out ? "; the records are whole up to there in " : "", out ? out : "");
    rc = 128 + (int)hy_cli_stop_signal;
  }
  if (rc == HY_CLI_OK || rc > 128) {
    FILE* fp = out && strcmp(out, "-") == 0 ? stderr : stdout;
    fprintf(fp, "%s\n", sum.buf);
  }
  if (a->plot && tr.n > 0 && (rc == HY_CLI_OK || r.status != HY_OK || rc > 128)) {
    char title[400];
    text t = {.used = 0};
    config_text(&t, &c, r.mbs);
    snprintf(title, sizeof title, "%.60s, H = %g s: %.300s", m->name, c.H, t.buf);
    const int prc = plot_run(&tr, ref, m, a->plot, title, a->quiet);
    if (prc != HY_CLI_OK && rc == HY_CLI_OK) rc = prc;
  }
  free(tr.v);
  return rc;
}

static int sweep(const cosim_args* a, const hy_model* m, double t_end, const reference* ref) {
  char path_buf[300];
  const char* path = a->sweep_out;
  if (!path) {
    default_path(m, "-sweep.csv", path_buf, sizeof path_buf);
    path = path_buf;
  }
  if (access(a->model, F_OK) == 0 && hy_cli_same_file(path, a->model)) {
    fprintf(stderr, "hydyn cosim: --sweep-out '%s' is the model file itself\n", path);
    return HY_CLI_USAGE;
  }
  if (a->plot && make_dir(a->plot) != 0) return HY_CLI_FAIL;
  FILE* fp = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
  if (!fp) {
    fprintf(stderr, "hydyn cosim: cannot write '%s': %s\n", path, strerror(errno));
    return HY_CLI_FAIL;
  }
  const int ncfg = nconfig(a), nH = a->nH;
  sweep_row* rows = calloc((size_t)ncfg * (size_t)nH, sizeof *rows);
  if (!rows) {
    if (fp != stdout) fclose(fp);
    fputs("hydyn cosim: out of memory\n", stderr);
    return HY_CLI_FAIL;
  }
  table_header(fp);
  fflush(fp);
  const int progress = !a->quiet && isatty(STDERR_FILENO);
  int g = 0, done = 0, completed = 0;
  FILE* summary = fp == stdout ? stderr : stdout;
  for (int cp = 0; cp < a->ncoupling; cp++) {
    for (int ex = 0; ex < a->nextrap; ex++) {
      for (int mb = 0; mb < a->nmbs; mb++) {
        for (int hy = 0; hy < a->nhyd; hy++, g++) {
          sweep_row* rg = rows + (size_t)g * (size_t)nH;
          double Es[MAX_H];
          int ok[MAX_H];
          int ran = 0;
          for (int i = 0; i < nH && !hy_cli_stop_signal; i++, ran++) {
            rg[i].c = make_config(a, t_end, cp, ex, mb, hy, a->H[i]);
            track tr = {0};
            if (track_init(&tr, m, &rg[i].c) != 0) {
              rg[i].r.status = HY_ERR_NOMEM;
              snprintf(rg[i].r.msg, sizeof rg[i].r.msg, "out of memory");
            } else {
              run_one(m, &rg[i].c, NULL, NULL, &tr, ref, &rg[i].r);
            }
            free(tr.v);
            done++;
            completed += rg[i].r.completed;
            Es[i] = rg[i].r.e.E_res_abs;
            ok[i] = rg[i].r.completed;
            if (progress || (!a->quiet && !rg[i].r.completed && rg[i].r.steps == 0)) {
              text t = {.used = 0};
              config_text(&t, &rg[i].c, rg[i].r.mbs);
              fprintf(stderr, "[%d/%d] %s H=%g s: %s", done, ncfg * nH, t.buf, rg[i].c.H,
                      rg[i].r.completed ? "completed" : rg[i].r.msg);
              if (rg[i].r.completed) {
                fprintf(stderr, ", E_res_abs=%.3g J, %.2g s", rg[i].r.e.E_res_abs, rg[i].r.wall);
              }
              fputc('\n', stderr);
            }
          }
          const int best = hy_cosim_achievable(ran, a->H, ok, Es,
                                               hy_cosim_growth_order(rg[0].c.extrap), E_FLOOR);
          for (int i = 0; i < ran; i++) {
            rg[i].achievable = i <= best;
            table_row(fp, rg + i);
          }
          fflush(fp);
          if (ran > 0) {
            text t = {.used = 0};
            config_text(&t, &rg[0].c, rg[0].r.mbs);
            if (best >= 0) {
              fprintf(summary, "achievable: %s H_max=%g s E_res_abs=%.3g J", t.buf, a->H[best],
                      rg[best].r.e.E_res_abs);
              if (isfinite(rg[best].r.err_max))
                fprintf(summary, " err_s_max=%.3g m", rg[best].r.err_max);
              fputc('\n', summary);
            } else {
              fprintf(summary, "achievable: %s H_max=none\n", t.buf);
            }
          }
        }
      }
    }
  }
  int rc = HY_CLI_OK;
  if (fp != stdout && (ferror(fp) | fclose(fp)) != 0) {
    fprintf(stderr, "hydyn cosim: writing '%s' failed\n", path);
    rc = HY_CLI_FAIL;
  }
  fprintf(summary, "sweep: model=%s runs=%d completed=%d table=%s\n", m->name, done, completed,
          path);
  if (a->plot && rc == HY_CLI_OK && !hy_cli_stop_signal) {
    char title[200];
    snprintf(title, sizeof title, "%s: residual energy at t_end = %g s against H", m->name, t_end);
    rc = plot_sweep(rows, ncfg, nH, a->H, ref && ref->n > 0, a->plot, title, a->quiet);
  }
  if (hy_cli_stop_signal && rc == HY_CLI_OK) {
    fprintf(stderr, "hydyn: sweep stopped by %s after %d runs; %s holds them\n",
            hy_cli_stop_signal == SIGINT ? "SIGINT" : "SIGTERM", done, path);
    rc = 128 + (int)hy_cli_stop_signal;
  }
  free(rows);
  return rc;
}

int hy_cli_cosim(int argc, char** argv) {
  cosim_args a = {.hh = DEFAULT_HH, .ncoupling = 1, .nextrap = 1, .nmbs = 1, .nhyd = 1};
  a.coupling[0] = HY_COUPLE_VF;
  a.extrap[0] = 0;
  a.mbs[0] = HY_FORM_AUTO;
  a.hyd[0] = 1;  // rk4
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  hy_model* m = NULL;
  rc = hy_cli_load_model(a.model, &m);
  if (rc != HY_CLI_OK) return rc;
  const double t_end = a.has_t_end ? a.t_end : m->opt.t_end;
  int given_H = a.nH > 0;
  if (!given_H) {
    a.H[0] = m->opt.dt;
    a.nH = 1;
    const double r = a.H[0] / a.hh;
    if (a.H[0] < a.hh * (1 - 1e-12) || fabs(r - round(r)) > 1e-9) {
      fprintf(stderr,
              "hydyn cosim: the model's step dt = %g s (the default H) is not a whole number of "
              "hydraulic steps hh = %g s; give --H\n",
              a.H[0], a.hh);
      hy_model_free(m);
      return a.has_hh ? HY_CLI_USAGE : HY_CLI_FAIL;
    }
  }
  for (int i = 0; i < a.nH; i++) {
    if (a.H[i] > t_end * (1 + 1e-9)) {
      fprintf(stderr,
              "hydyn cosim: the communication step H = %g s is longer than the run, "
              "t_end = %g s\n",
              a.H[i], t_end);
      hy_model_free(m);
      return given_H || a.has_t_end ? HY_CLI_USAGE : HY_CLI_FAIL;
    }
  }
  if (m->sizes.ncyl == 0) {
    fprintf(stderr,
            "hydyn cosim: model '%s' has no hydraulic cylinders: there is nothing to "
            "co-simulate\n",
            m->name);
    hy_model_free(m);
    return HY_CLI_FAIL;
  }
  hy_cli_catch_stop_signals();
  reference ref = {0};
  if (a.reference) {
    rc = strcmp(a.reference, "auto") == 0 ? reference_auto(m, t_end, &ref)
                                          : reference_file(m, a.reference, &ref);
    if (rc != HY_CLI_OK) {
      reference_free(&ref);
      hy_model_free(m);
      return rc;
    }
    if (!a.quiet) fprintf(stderr, "note: reference: %s, %ld rows\n", ref.what, ref.n);
  }
  rc = is_sweep(&a) ? sweep(&a, m, t_end, a.reference ? &ref : NULL)
                    : single_run(&a, m, t_end, a.reference ? &ref : NULL);
  reference_free(&ref);
  hy_model_free(m);
  return rc;
}
