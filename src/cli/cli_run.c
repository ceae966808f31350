// `hydyn run MODEL [options]`: load, override the solver options, step to t_end while recording
// a CSV, report progress on long runs and end with a one-line key=value summary.
#define _POSIX_C_SOURCE 200809L  // clock_gettime, stat

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "hydyn/hydyn.h"
#include "hydyn/names.h"
#include "io/io.h"

// Largest --max-iter, the bound the model file puts on solver.max_iterations.
enum { MAX_ITER_LIMIT = 1000000 };

// Largest --max-cuts, the bound the model file puts on solver.max_cuts.
enum { MAX_CUTS_LIMIT = 40 };

// The command line of run, parsed.
typedef struct run_args {
  const char* model;
  int has_t_end, has_dt, has_integrator;
  double t_end, dt;
  hy_integrator integrator;
  int has_formulation, has_tangent, has_penalty, has_tol, has_tol_p, has_max_iter;
  hy_formulation formulation;
  hy_tangent tangent;
  double penalty, tol, tol_p, tol_fric;
  int has_tol_fric;
  long max_iter;
  int strict_steps, has_max_cuts, has_error_control, has_error_tol, has_error_tol_p;
  int has_max_memory;
  long max_cuts;
  hy_error_control error_control;
  double error_tol, error_tol_p, max_memory;
  const char* out;  // NULL = <model name>.csv
  int no_out;
  long every;
  int quiet;
} run_args;

static void run_usage(FILE* fp) {
  fputs(
      "usage: hydyn run MODEL [options]\n"
      "\n"
      "Runs MODEL, a model file (YAML) or the name of a built-in model ('hydyn models' lists\n"
      "them), from t = 0 to t_end in steps of dt, records the trajectory as CSV and prints\n"
      "one summary line.\n"
      "\n"
      "options (defaults come from the model's solver section):\n"
      "  --t-end SECONDS      end time (s), > 0\n"
      "  --dt SECONDS         time step (s), 0 < dt <= t_end; a last, shorter step ends the run\n"
      "                       at t_end when t_end is not a whole number of steps\n"
      "  --formulation NAME   auto | tree | penalty | double-step; auto: penalty for a model\n"
      "                       with cut joints, else tree; tree refuses cut joints\n"
      "  --integrator NAME    auto | euler | semi-euler | rk4 | trapezoidal; auto: trapezoidal\n"
      "                       (Newton-Raphson) for closed loops or hydraulics, else rk4;\n"
      "                       penalty and double-step step only with trapezoidal\n"
      "  --tangent NAME       analytic | fd: Newton tangent (trapezoidal)\n"
      "  --penalty ALPHA      penalty factor alpha (N/m), > 0 (penalty only)\n"
      "  --tol POS            Newton tolerance on positions (rad or m), > 0\n"
      "  --tol-p PA           Newton tolerance on pressures (Pa), > 0 (hydraulic models)\n"
      "  --tol-fric TOL       Newton tolerance on seal friction states (m), > 0\n"
      "  --max-iter N         Newton iterations per step, 1 to 1000000\n"
      "  --strict-steps       a step whose Newton iteration fails ends the run (real-time use)\n"
      "                       instead of being retried in halves\n"
      "  --max-cuts N         how often a failing step may be halved, 0 to 40\n"
      "  --error-control NAME none | predictor: size the trapezoidal steps by their local error\n"
      "  --error-tol POS      local error per step on positions (rad or m), > 0\n"
      "  --error-tol-p PA     local error per step on pressures (Pa), > 0\n"
      "  --max-memory BYTES   work memory the run may take, > 0 (default 4 GiB)\n"
      "  --out FILE           CSV file to write (default: <model name>.csv in the current\n"
      "                       directory); '-' writes to standard output\n"
      "  --no-out             write no CSV\n"
      "  --every N            record every N-th step (default 1); t = 0 and the last step are\n"
      "                       always recorded\n"
      "  --quiet              no progress lines or notes on standard error\n"
      "  -h, --help           show this help\n"
      "\n"
      "Options may also be written --name=value. The summary goes to standard output, or to\n"
      "standard error when the CSV does. Exit status: 0 success, 1 model or run error, 2 bad\n"
      "command line.\n",
      fp);
}

// A bad command line: the reason and a hint on standard error; the usage exit status.
#define usage_error(...) hy_cli_usage_error("run", __VA_ARGS__)

static int parse_count(const char* s, long* out) {
  if (!(s[0] >= '0' && s[0] <= '9')) return -1;
  char* end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*end != '\0' || errno == ERANGE || v < 1) return -1;
  *out = v;
  return 0;
}

// Parses argv (argv[0] = "run"). Returns -1 to go on, else the exit status (help or error).
static int parse_args(int argc, char** argv, run_args* a) {
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      run_usage(stdout);
      return HY_CLI_OK;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (a->model) return usage_error("unexpected argument '%s' (model is '%s')", arg, a->model);
      a->model = arg;
      continue;
    }
    if (strcmp(arg, "--no-out") == 0) {
      a->no_out = 1;
      continue;
    }
    if (strcmp(arg, "--quiet") == 0) {
      a->quiet = 1;
      continue;
    }
    if (strcmp(arg, "--strict-steps") == 0) {
      a->strict_steps = 1;
      continue;
    }
    // Options with a value: "--name value" or "--name=value".
    static const char* const valued[] = {
        "--t-end",         "--dt",          "--integrator", "--out",
        "--every",         "--formulation", "--tangent",    "--penalty",
        "--tol",           "--max-iter",    "--tol-p",      "--max-cuts",
        "--error-control", "--error-tol-p", "--error-tol",  "--max-memory",
        "--tol-fric"};
    const int nvalued = (int)(sizeof valued / sizeof valued[0]);
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(argc, argv, &i, valued, nvalued, &val, msg, sizeof msg);
    if (opt == -2) return usage_error("%s", msg);
    switch (opt) {
      case 0:
        if (hy_cli_parse_number(val, 0, &a->t_end)) {
          return usage_error("invalid --t-end '%s': expected a number of seconds > 0", val);
        }
        a->has_t_end = 1;
        break;
      case 1:
        if (hy_cli_parse_number(val, 0, &a->dt)) {
          return usage_error("invalid --dt '%s': expected a number of seconds > 0", val);
        }
        a->has_dt = 1;
        break;
      case 2:
        if (hy_integrator_parse(val, &a->integrator) != HY_OK) {
          return usage_error(
              "invalid --integrator '%s': expected auto, euler, semi-euler, rk4 or trapezoidal",
              val);
        }
        a->has_integrator = 1;
        break;
      case 3:
        if (!val[0]) return usage_error("--out needs a file name");
        a->out = val;
        a->no_out = 0;  // the last of --out and --no-out wins
        break;
      case 4:
        if (parse_count(val, &a->every)) {
          return usage_error("invalid --every '%s': expected an integer >= 1", val);
        }
        break;
      case 5:
        if (hy_formulation_parse(val, &a->formulation) != HY_OK) {
          return usage_error(
              "invalid --formulation '%s': expected auto, tree, penalty or double-step", val);
        }
        a->has_formulation = 1;
        break;
      case 6:
        if (hy_tangent_parse(val, &a->tangent) != HY_OK) {
          return usage_error("invalid --tangent '%s': expected analytic or fd", val);
        }
        a->has_tangent = 1;
        break;
      case 7:
        if (hy_cli_parse_number(val, 0, &a->penalty)) {
          return usage_error("invalid --penalty '%s': expected a penalty factor > 0 (N/m)", val);
        }
        a->has_penalty = 1;
        break;
      case 8:
        if (hy_cli_parse_number(val, 0, &a->tol)) {
          return usage_error("invalid --tol '%s': expected a position tolerance > 0 (rad or m)",
                             val);
        }
        a->has_tol = 1;
        break;
      case 9:
        // the bound of the model file's max_iterations (docs/model-format.md)
        if (parse_count(val, &a->max_iter) || a->max_iter > MAX_ITER_LIMIT) {
          return usage_error("invalid --max-iter '%s': expected an integer from 1 to %d", val,
                             MAX_ITER_LIMIT);
        }
        a->has_max_iter = 1;
        break;
      case 10:
        if (hy_cli_parse_number(val, 0, &a->tol_p)) {
          return usage_error("invalid --tol-p '%s': expected a pressure tolerance > 0 (Pa)", val);
        }
        a->has_tol_p = 1;
        break;
      case 11:
        // 0 is allowed: no cutting, as --strict-steps
        if ((strcmp(val, "0") != 0 && parse_count(val, &a->max_cuts)) ||
            a->max_cuts > MAX_CUTS_LIMIT) {
          return usage_error("invalid --max-cuts '%s': expected an integer from 0 to %d", val,
                             MAX_CUTS_LIMIT);
        }
        if (strcmp(val, "0") == 0) a->max_cuts = 0;
        a->has_max_cuts = 1;
        break;
      case 12:
        if (hy_error_control_parse(val, &a->error_control) != HY_OK) {
          return usage_error("invalid --error-control '%s': expected none or predictor", val);
        }
        a->has_error_control = 1;
        break;
      case 13:
        if (hy_cli_parse_number(val, 0, &a->error_tol_p)) {
          return usage_error("invalid --error-tol-p '%s': expected a local error > 0 (Pa)", val);
        }
        a->has_error_tol_p = 1;
        break;
      case 14:
        if (hy_cli_parse_number(val, 0, &a->error_tol)) {
          return usage_error("invalid --error-tol '%s': expected a local error > 0 (rad or m)",
                             val);
        }
        a->has_error_tol = 1;
        break;
      case 15:
        if (hy_cli_parse_number(val, 0, &a->max_memory)) {
          return usage_error("invalid --max-memory '%s': expected a number of bytes > 0", val);
        }
        a->has_max_memory = 1;
        break;
      case 16:
        if (hy_cli_parse_number(val, 0, &a->tol_fric)) {
          return usage_error("invalid --tol-fric '%s': expected a tolerance > 0 (m)", val);
        }
        a->has_tol_fric = 1;
        break;
      default:
        return usage_error("unknown option '%s'", arg);
    }
  }
  if (!a->model) return usage_error("no model given");
  return -1;
}

static void print_error(const hy_error* e) {
  char buf[1024];
  hy_error_format(e, buf, sizeof buf);
  // A message with a file position starts with it, so editors and the tests can find it.
  if (e->src_path[0]) {
    fprintf(stderr, "%s\n", buf);
  } else {
    fprintf(stderr, "hydyn: %s\n", buf);
  }
}

static int load_model(const char* what, hy_model** out) {
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status s = hy_model_load_any(what, out, &err);
  if (s == HY_OK) return HY_CLI_OK;
  if (err.code != s) {
    memset(&err, 0, sizeof err);
    err.code = s;
  }
  print_error(&err);
  // Not a file: the user most likely misspelled a built-in name, so show them (unless the
  // loader's message already did).
  struct stat st;
  const char* first = hy_builtin_count() > 0 ? hy_builtin_name(0) : NULL;
  if (stat(what, &st) != 0 && first && !strstr(err.msg, first) && hy_family_find(what) < 0) {
    fprintf(stderr, "hydyn: '%s' is neither a file nor a built-in model; built-in models: ", what);
    hy_cli_list_builtins(stderr, ", ");
    fputc('\n', stderr);
  }
  return HY_CLI_FAIL;
}

// Default CSV name: the model name with characters that would leave the directory replaced.
static void default_csv_path(const hy_model* m, const char* fallback, char* buf, size_t size) {
  const char* name = m->name[0] ? m->name : fallback;
  snprintf(buf, size, "%s.csv", name);
  for (char* p = buf; *p; p++) {
    if (*p == '/' || *p == '\\') *p = '_';
  }
}

// Copies the solver options given on the command line into the model (hy_data_make checks
// them against the model).
static void apply_options(const run_args* a, hy_model* m) {
  if (a->has_t_end) m->opt.t_end = a->t_end;
  if (a->has_dt) m->opt.dt = a->dt;
  if (a->has_formulation) {
    m->opt.formulation = a->formulation;
    // the model file's integrator was chosen for its own formulation: with another one given
    // here and no integrator, hydyn chooses (penalty and double-step take no explicit method)
    if (!a->has_integrator) m->opt.integrator = HY_INTEG_AUTO;
  }
  if (a->has_integrator) m->opt.integrator = a->integrator;
  if (a->has_tangent) m->opt.tangent = a->tangent;
  if (a->has_penalty) m->opt.penalty = a->penalty;
  if (a->has_tol) m->opt.tol_pos = a->tol;
  if (a->has_tol_p) m->opt.tol_p = a->tol_p;
  if (a->has_tol_fric) m->opt.tol_fric = a->tol_fric;
  if (a->has_max_iter) m->opt.max_iter = (int)a->max_iter;
  if (a->strict_steps) m->opt.strict_steps = 1;
  if (a->has_max_cuts) m->opt.max_cuts = (int)a->max_cuts;
  if (a->has_error_control) m->opt.error_control = a->error_control;
  if (a->has_error_tol) m->opt.error_tol_pos = a->error_tol;
  if (a->has_error_tol_p) m->opt.error_tol_p = a->error_tol_p;
  if (a->has_max_memory) m->opt.max_memory = a->max_memory;
}

// Options that were given but that the data's formulation and integrator do not read: said,
// so that a user comparing runs does not believe they changed something.
static void note_unused_options(const run_args* a, const hy_model* m, const hy_data* d) {
  const int newton = d->integrator == HY_INTEG_TRAPEZOIDAL;
  if (!newton) {
    const int given[] = {a->has_tangent,   a->has_penalty,    a->has_tol,      a->has_max_iter,
                         a->has_tol_p,     a->strict_steps,   a->has_max_cuts, a->has_error_control,
                         a->has_error_tol, a->has_error_tol_p, a->has_tol_fric};
    static const char* const names[] = {
        "--tangent",      "--penalty",  "--tol",           "--max-iter",  "--tol-p",
        "--strict-steps", "--max-cuts", "--error-control", "--error-tol", "--error-tol-p",
        "--tol-fric"};
    _Static_assert(sizeof given / sizeof given[0] == sizeof names / sizeof names[0],
                   "one name per option");
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
      if (given[k]) {
        fprintf(stderr, "note: %s has no effect with the %s integrator (no Newton iteration)\n",
                names[k], hy_integrator_name(d->integrator));
      }
    }
  }
  if (d->formulation != HY_FORM_PENALTY && a->has_penalty && newton) {
    fputs("note: --penalty applies to the penalty formulation only\n", stderr);
  }
  if (newton && a->has_tol_p && m->sizes.nvol == 0) {
    fputs("note: --tol-p has no effect: the model has no hydraulic volumes (no pressures)\n",
          stderr);
  }
  if (newton && a->has_tol_fric && m->sizes.nfric == 0) {
    fputs("note: --tol-fric has no effect: no cylinder has a friction law with states (lugre, "
          "lugre-film)\n",
          stderr);
  }
  if (newton && m->opt.error_control == HY_ERRCTL_NONE &&
      (a->has_error_tol || a->has_error_tol_p)) {
    fputs("note: --error-tol and --error-tol-p apply with --error-control predictor only\n",
          stderr);
  }
}

// What hy_data_make found at t = 0 and a user should know before trusting the results.
static void note_initial_state(const hy_model* m, const hy_data* d) {
  // the formulation and integrator hydyn chose when the options left it the choice
  if (d->note[0]) fprintf(stderr, "note: %s\n", d->note);
  // One line for all volumes, in model order: the pressures the run starts from, whether given
  // (p0) or derived (equilibrium, throttles), so the derived ones can be checked at a glance.
  const int nvol = m->sizes.nvol;
  if (nvol > 0) {
    fputs("note: initial pressures: ", stderr);
    for (int v = 0; v < nvol; v++) {
      fprintf(stderr, "%s%s = %.5g MPa", v ? ", " : "", m->vol_name + (size_t)v * HY_NAME_MAX,
              1e-6 * d->p[v]);
    }
    fputc('\n', stderr);
  }
  for (int k = 0; k < m->sizes.nfrc; k++) {
    if (!m->frc_equilibrium[k]) continue;
    const int c = m->frc_cyl[k];
    if (m->frc_type[k] == HY_FORCE_CYLINDER && c >= 0) {
      // A cylinder's static force is not scaled by a signal: its piston-side pressure was
      // derived from it (hyd_initial.c), and that pressure is what the note names.
      const double f = d->frc_static[k];
      const int va = m->cyl_vol_a[c];
      fprintf(stderr,
              "note: cylinder '%s' holds the initial configuration with %.7g N (%s): piston side "
              "%s starts at %.5g MPa\n",
              m->frc_name + (size_t)k * HY_NAME_MAX, f,
              f > 0 ? "push" : (f < 0 ? "pull" : "no force needed"),
              m->vol_name + (size_t)va * HY_NAME_MAX, 1e-6 * d->p[va]);
      continue;
    }
    // frc_static is scaled by the element's signal like a fixed value: the force that holds the
    // mechanism at t = 0 is the product.
    double f = d->frc_static[k];
    if (m->frc_sig[k] >= 0) f *= hy_signal_eval(m, m->frc_sig[k], 0.0);
    fprintf(stderr, "note: force '%s' holds the initial configuration with %.7g N (%s)\n",
            m->frc_name + (size_t)k * HY_NAME_MAX, f,
            f > 0 ? "push" : (f < 0 ? "pull" : "no force needed"));
  }
  // Closing loops that are already closed still moves the coordinates by round-off; only a
  // shift above that says the model's z0 did not quite fit the loops.
  double zmax = 1;
  for (int i = 0; i < m->sizes.nz; i++) zmax = fmax(zmax, fabs(d->z[i]));
  if (d->assembly_shift > 64 * DBL_EPSILON * zmax) {
    fprintf(stderr, "note: closing the loops moved the coordinates by up to %.3g rad/m\n",
            d->assembly_shift);
  }
  if (m->sizes.neq > 0 && d->rank < m->sizes.neq) {
    const int nred = m->sizes.neq - d->rank;
    fprintf(stderr,
            "note: %d of the %d loop-closure equations %s redundant (Jacobian rank %d at t = 0)\n",
            nred, m->sizes.neq, nred == 1 ? "is" : "are", d->rank);
  }
  // The generalized forces that would move the mechanism if it started at rest. Compared with
  // the largest entry of Q' (gravity, loads, forces on the open tree at t = 0), at least 1 N or
  // N m: an equilibrium solved by hydyn leaves round-off, some 1e-12 of that; a model released
  // on purpose (a falling pendulum) leaves a share of order one. (The floor is for open trees
  // held by cylinders, whose Q' itself is balanced, hence round-off, at equilibrium.)
  double qmax = 1;
  for (int i = 0; i < m->sizes.nz; i++) qmax = fmax(qmax, fabs(d->Q[i]));
  if (d->static_residual > 1e-6 * qmax) {
    fprintf(stderr,
            "note: the initial state is not a static equilibrium: largest unbalanced generalized "
            "force %.4g N or N m\n",
            d->static_residual);
  }
}

// The recorder of a run: the CSV file.
typedef struct recording {
  hy_csv* csv;
  double last_row;     // time of the last row written (s), NAN before the first
  long last_row_step;  // the step that ended there (0: the initial state)
} recording;

static hy_status record_row(void* user, const hy_model* m, const hy_data* d) {
  recording* r = user;
  if (!r->csv) return HY_OK;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_csv_write(r->csv, m, d, &err);
  if (st != HY_OK) {
    fprintf(stderr, "hydyn: writing the CSV failed at t = %.9g s: %s\n", d->time, err.msg);
    return st;
  }
  r->last_row = d->time;
  r->last_row_step = d->stats.nstep;
  return HY_OK;
}

static int show_progress(void* user, const hy_model* m, const hy_data* d) {
  (void)user;
  fprintf(stderr, "t = %.6g/%g s (%.0f%%)\n", d->time, m->opt.t_end,
          100.0 * d->time / m->opt.t_end);
  return 0;
}

// The one-line key=value summary (docs/cli.md lists the keys). Keys that do not apply to the
// run are left out rather than printed as 0, so a present key always means something.
static void print_summary(FILE* fp, const hy_model* m, const hy_data* d, const hy_run_summary* r,
                          const char* what, const char* out) {
  fprintf(fp,
          "summary: model=%s formulation=%s integrator=%s dt=%g t_end=%g steps=%lld wall=%.4g s "
          "rtf=%.4g",
          m->name[0] ? m->name : what, hy_formulation_name(d->formulation),
          hy_integrator_name(d->integrator), m->opt.dt, m->opt.t_end, r->steps, r->wall, r->rtf);
  if (!isnan(r->iter_mean)) fprintf(fp, " iter_mean=%.3g iter_max=%d", r->iter_mean, r->iter_max);
  if (d->stats.nsubstep != r->steps || d->stats.ncut > 0 || d->stats.nreject > 0) {
    // steps cut after a failure, or sized by the local error
    fprintf(fp, " substeps=%ld cuts=%ld rejected=%ld h_min=%.3g s", d->stats.nsubstep,
            d->stats.ncut, d->stats.nreject, d->stats.h_min);
  }
  if (!isnan(r->violation_max)) fprintf(fp, " violation_max=%.3g m", r->violation_max);
  if (d->formulation == HY_FORM_DOUBLE_STEP) fprintf(fp, " partitions=%ld", d->stats.npartition);
  fprintf(fp, " energy_drift=%.3g J energy_drift_rel=%.3g", r->drift, r->drift_rel);
  if (m->sizes.ncyl > 0) {
    fprintf(fp, " work_act_max=%.4g J", r->work_act_max);
    if (!isnan(r->drift_pct_work)) fprintf(fp, " energy_drift_pct_work=%.3g", r->drift_pct_work);
    fprintf(fp, " diss_visc=%.4g J work_damp=%.4g J", d->diss_visc, d->work_damp);
    int friction = 0;
    for (int c = 0; c < m->sizes.ncyl; c++) friction |= m->cyl_fric[c].law != HY_FRICTION_NONE;
    if (friction) fprintf(fp, " diss_fric=%.4g J", d->diss_fric);
  } else if (!isnan(r->drift_pct_pot)) {
    fprintf(fp, " energy_drift_pct_pot=%.3g", r->drift_pct_pot);
  }
  fprintf(fp, " csv=%s\n", out ? out : "none");
}

// What a failed run says: where and why it stopped, and what the CSV still holds.
static void report_failure(const hy_data* d, const hy_run_summary* r, const recording* rec,
                           int quiet) {
  hy_error e = d->err;
  if (e.code != r->status) {  // no detail recorded for this failure
    memset(&e, 0, sizeof e);
    e.code = r->status;
  }
  char buf[1024];
  hy_error_format(&e, buf, sizeof buf);
  if (isnan(r->t_fail) && (r->status == HY_ERR_IO || r->status == HY_ERR_NAN)) {
    // the recorder said so
  } else if (isnan(r->t_fail)) {
    fprintf(stderr, "hydyn: the run stopped at t = %.9g s: %s (%s)\n", r->t_reached, buf,
            hy_status_name(r->status));
  } else {
    fprintf(stderr, "hydyn: step %lld failed at t = %.9g s: %s (%s)\n", r->steps + 1, r->t_fail,
            buf, hy_status_name(r->status));
  }
  // Said because a failure late in a long run leaves a large, useful file behind.
  if (rec->csv && !quiet && !isnan(rec->last_row)) {
    fprintf(stderr, "note: the CSV holds the rows up to t = %.9g s (step %ld)\n", rec->last_row,
            rec->last_row_step);
  }
}

int hy_cli_run(int argc, char** argv) {
  run_args a = {.every = 1};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  hy_model* m = NULL;
  rc = load_model(a.model, &m);
  if (rc != HY_CLI_OK) return rc;
  apply_options(&a, m);

  hy_data* d = NULL;
  hy_error make_err;
  memset(&make_err, 0, sizeof make_err);
  hy_status s = hy_data_make(m, &d, &make_err);
  if (s != HY_OK) {
    if (make_err.msg[0]) {
      print_error(&make_err);
    } else {
      fprintf(stderr, "hydyn: cannot set up the simulation of '%s': %s\n", a.model,
              hy_status_str(s));
    }
    hy_model_free(m);
    return HY_CLI_FAIL;
  }
  // the run's own settings, before any file is written
  if (m->opt.dt > m->opt.t_end) {
    fprintf(stderr, "hydyn: the step dt = %g s is longer than the run, t_end = %g s\n", m->opt.dt,
            m->opt.t_end);
    hy_data_free(d);
    hy_model_free(m);
    return a.has_dt || a.has_t_end ? HY_CLI_USAGE : HY_CLI_FAIL;
  }

  char csv_path[300];
  const char* out = NULL;
  if (!a.no_out) {
    if (a.out) {
      out = a.out;
    } else {
      default_csv_path(m, "hydyn", csv_path, sizeof csv_path);
      out = csv_path;
    }
  }
  recording rec = {.csv = NULL, .last_row = NAN};
  if (out) {
    m->opt.time_steps = 1;  // for the step_wall[s] column
    hy_error err;
    memset(&err, 0, sizeof err);
    if (hy_csv_open(out, m, d, &rec.csv, &err) != HY_OK) {
      print_error(&err);
      hy_data_free(d);
      hy_model_free(m);
      return HY_CLI_FAIL;
    }
  }
  const int csv_stdout = out && strcmp(out, "-") == 0;

  if (!a.quiet) {
    note_unused_options(&a, m, d);
    note_initial_state(m, d);
  }

  hy_run_options ro = hy_run_options_default();
  ro.every = a.every;
  ro.record = record_row;
  ro.record_user = &rec;
  if (!a.quiet) ro.progress = show_progress;
  hy_run_summary r;
  s = hy_run(m, d, &ro, &r);
  rc = s == HY_OK ? HY_CLI_OK : HY_CLI_FAIL;
  if (s != HY_OK) report_failure(d, &r, &rec, a.quiet);
  if (hy_csv_close(rec.csv) != HY_OK && rc == HY_CLI_OK) {
    fprintf(stderr, "hydyn: writing '%s' failed\n", out);
    rc = HY_CLI_FAIL;
  }
  if (rc == HY_CLI_OK) print_summary(csv_stdout ? stderr : stdout, m, d, &r, a.model, out);
  hy_data_free(d);
  hy_model_free(m);
  return rc;
}
