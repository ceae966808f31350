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

// The command line of run, parsed.
typedef struct run_args {
  const char* model;
  int has_t_end, has_dt, has_integrator;
  double t_end, dt;
  hy_integrator integrator;
  int has_formulation, has_tangent, has_penalty, has_tol, has_tol_p, has_max_iter;
  hy_formulation formulation;
  hy_tangent tangent;
  double penalty, tol, tol_p;
  long max_iter;
  const char* out;  // NULL = <model name>.csv
  int no_out;
  long every;
  int quiet;
} run_args;

void hy_cli_run_usage(FILE* fp) {
  fputs(
      "usage: hydyn run MODEL [options]\n"
      "\n"
      "Runs MODEL, a model file (YAML) or the name of a built-in model ('hydyn models' lists\n"
      "them), from t = 0 to t_end with a fixed step, records the trajectory as CSV and prints\n"
      "one summary line.\n"
      "\n"
      "options (defaults come from the model's solver section):\n"
      "  --t-end SECONDS      end time (s), > 0\n"
      "  --dt SECONDS         time step (s), > 0; the run takes round(t_end/dt) steps\n"
      "  --formulation NAME   tree | penalty | double-step; a model with cut joints needs\n"
      "                       penalty or double-step, which step with the trapezoidal rule\n"
      "                       and Newton-Raphson\n"
      "  --integrator NAME    euler | semi-euler | rk4 (tree formulation only)\n"
      "  --tangent NAME       analytic | fd: Newton tangent (penalty, double-step)\n"
      "  --penalty ALPHA      penalty factor alpha (N/m), > 0 (penalty only)\n"
      "  --tol POS            Newton tolerance on positions (rad or m), > 0\n"
      "  --tol-p PA           Newton tolerance on pressures (Pa), > 0 (hydraulic models)\n"
      "  --max-iter N         Newton iterations per step, 1 to 1000000\n"
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

__attribute__((format(printf, 1, 2))) static int usage_error(const char* fmt, ...) {
  fputs("hydyn run: ", stderr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'hydyn run --help'.\n", stderr);
  return HY_CLI_USAGE;
}

// A finite number > 0 taking the whole argument (no trailing text, no leading blanks).
static int parse_positive(const char* s, double* out) {
  if (!s[0] || s[0] == ' ' || s[0] == '\t') return -1;
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || !(v > 0)) return -1;
  *out = v;
  return 0;
}

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
      hy_cli_run_usage(stdout);
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
    // Options with a value: "--name value" or "--name=value".
    static const char* const valued[] = {"--t-end", "--dt",          "--integrator", "--out",
                                         "--every", "--formulation", "--tangent",    "--penalty",
                                         "--tol",   "--max-iter",    "--tol-p"};
    const int nvalued = (int)(sizeof valued / sizeof valued[0]);
    int opt = -1;
    const char* val = NULL;
    for (int k = 0; k < nvalued && opt < 0; k++) {
      size_t len = strlen(valued[k]);
      if (strncmp(arg, valued[k], len) != 0) continue;
      if (arg[len] == '\0') {
        if (i + 1 >= argc) return usage_error("option %s needs a value", valued[k]);
        opt = k;
        val = argv[++i];
      } else if (arg[len] == '=') {
        opt = k;
        val = arg + len + 1;
      }
    }
    switch (opt) {
      case 0:
        if (parse_positive(val, &a->t_end)) {
          return usage_error("invalid --t-end '%s': expected a number of seconds > 0", val);
        }
        a->has_t_end = 1;
        break;
      case 1:
        if (parse_positive(val, &a->dt)) {
          return usage_error("invalid --dt '%s': expected a number of seconds > 0", val);
        }
        a->has_dt = 1;
        break;
      case 2:
        if (hy_integrator_parse(val, &a->integrator) != HY_OK) {
          return usage_error("invalid --integrator '%s': expected euler, semi-euler or rk4", val);
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
          return usage_error("invalid --formulation '%s': expected tree, penalty or double-step",
                             val);
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
        if (parse_positive(val, &a->penalty)) {
          return usage_error("invalid --penalty '%s': expected a penalty factor > 0 (N/m)", val);
        }
        a->has_penalty = 1;
        break;
      case 8:
        if (parse_positive(val, &a->tol)) {
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
        if (parse_positive(val, &a->tol_p)) {
          return usage_error("invalid --tol-p '%s': expected a pressure tolerance > 0 (Pa)", val);
        }
        a->has_tol_p = 1;
        break;
      default:
        return usage_error("unknown option '%s'", arg);
    }
  }
  if (!a->model) return usage_error("no model given");
  return -1;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
  if (stat(what, &st) != 0 && first && !strstr(err.msg, first)) {
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

// Everything a run tracks for its summary.
typedef struct run_totals {
  long long steps;
  double wall;
  double e0;        // hy_energy_total at t = 0 (J)
  double drift;     // max |E_total - e0| over all steps (J)
  double scale;     // max |E_kin| + |E_pot| seen (J)
  double epot0;     // E_pot at t = 0 (J)
  double released;  // max of E_pot(0) - E_pot(t) over all steps (J): potential energy set free
  double work_max;  // max |W_act(t)| over all steps (J), W_act = the cylinders' work
  double last_row;  // time of the last CSV row written (s), NAN before the first
} run_totals;

// Work done on the mechanism by the cylinders since t = 0 (J): pressure forces, less what the
// viscous friction dissipated, plus the end dampers' work (which is <= 0 when they dissipate).
static double actuator_work(const hy_data* d) { return d->work_hyd - d->diss_visc + d->work_damp; }

static void track_energy(const hy_data* d, run_totals* r) {
  r->drift = fmax(r->drift, fabs(hy_energy_total(d) - r->e0));
  r->scale = fmax(r->scale, fabs(d->energy_kin) + fabs(d->energy_pot));
  r->released = fmax(r->released, r->epot0 - d->energy_pot);
  r->work_max = fmax(r->work_max, fabs(actuator_work(d)));
}

// Copies the solver options given on the command line into the model. Returns -1 to go on, else
// the exit status of a usage error.
static int apply_options(const run_args* a, hy_model* m, const char* what) {
  if (a->has_t_end) m->opt.t_end = a->t_end;
  if (a->has_dt) m->opt.dt = a->dt;
  if (a->has_integrator) m->opt.integrator = a->integrator;
  if (a->has_tangent) m->opt.tangent = a->tangent;
  if (a->has_penalty) m->opt.penalty = a->penalty;
  if (a->has_tol) m->opt.tol_pos = a->tol;
  if (a->has_tol_p) m->opt.tol_p = a->tol_p;
  if (a->has_max_iter) m->opt.max_iter = (int)a->max_iter;
  if (a->has_formulation) {
    // The tree formulation integrates M' zdd = Q' of the open tree: cut joints would simply be
    // ignored, so a closed-loop model run that way would be silently wrong.
    const int ncut = m->sizes.ncut;
    if (a->formulation == HY_FORM_TREE && ncut > 0) {
      return usage_error("model %s has %d cut joint%s: use penalty or double-step",
                         m->name[0] ? m->name : what, ncut, ncut == 1 ? "" : "s");
    }
    // Nor does it integrate pressures (the library refuses it, hy_form_init): said here, as a
    // usage error like the one above, rather than as a failed set-up.
    if (a->formulation == HY_FORM_TREE && m->sizes.nvol + m->sizes.nvlv > 0) {
      return usage_error("model %s has hydraulics: use penalty or double-step",
                         m->name[0] ? m->name : what);
    }
    m->opt.formulation = a->formulation;
  }
  return -1;
}

// Options that were given but that the formulation does not read: said, so that a user comparing
// runs does not believe they changed something.
static void note_unused_options(const run_args* a, const hy_model* m) {
  const hy_formulation form = m->opt.formulation;
  if (form != HY_FORM_TREE && a->has_integrator) {
    fprintf(stderr,
            "note: --integrator applies to the tree formulation only; %s steps with the "
            "trapezoidal rule\n",
            hy_formulation_name(form));
  }
  if (form == HY_FORM_TREE) {
    const int given[5] = {a->has_tangent, a->has_penalty, a->has_tol, a->has_max_iter,
                          a->has_tol_p};
    static const char* const names[5] = {"--tangent", "--penalty", "--tol", "--max-iter",
                                         "--tol-p"};
    for (int k = 0; k < 5; k++) {
      if (given[k]) {
        fprintf(stderr, "note: %s has no effect with the tree formulation (no Newton iteration)\n",
                names[k]);
      }
    }
  }
  if (form == HY_FORM_DOUBLE_STEP && a->has_penalty) {
    fputs("note: --penalty applies to the penalty formulation only\n", stderr);
  }
  if (form != HY_FORM_TREE && a->has_tol_p && m->sizes.nvol == 0) {
    fputs("note: --tol-p has no effect: the model has no hydraulic volumes (no pressures)\n",
          stderr);
  }
}

// What hy_data_make found at t = 0 and a user should know before trusting the results.
static void note_initial_state(const hy_model* m, const hy_data* d) {
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

// The stepping loop. Returns an exit status; *r holds what was done.
static int simulate(const hy_model* m, hy_data* d, hy_csv* csv, long long nstep, long every,
                    int quiet, run_totals* r) {
  const double t_end = m->opt.t_end;
  r->e0 = hy_energy_total(d);
  r->epot0 = d->energy_pot;
  track_energy(d, r);
  r->last_row = NAN;
  if (csv && hy_csv_write(csv, m, d) != HY_OK) {
    fprintf(stderr, "hydyn: writing the CSV failed at t = 0\n");
    return HY_CLI_FAIL;
  }
  if (csv) r->last_row = d->time;
  const double wall0 = now_seconds();
  double next_progress = wall0 + 1.0;
  int warned = 0;
  for (long long k = 1; k <= nstep; k++) {
    const double t_before = d->time;
    hy_status s = hy_step(m, d);
    // > 0 is a warning when the step was taken; a step that did not advance failed.
    if (s < 0 || (s > 0 && !(d->time > t_before))) {
      r->steps = k - 1;
      r->wall = now_seconds() - wall0;
      hy_error e = d->err;
      if (e.code != s) {  // no detail recorded for this failure
        memset(&e, 0, sizeof e);
        e.code = s;
      }
      char buf[1024];
      hy_error_format(&e, buf, sizeof buf);
      fprintf(stderr, "hydyn: step %lld failed at t = %.9g s: %s (%s)\n", k, t_before, buf,
              hy_status_name(s));
      // Said because a failure late in a long run leaves a large, useful file behind.
      if (csv && !quiet && !isnan(r->last_row)) {
        fprintf(stderr, "note: the CSV holds the rows up to t = %.9g s (step %lld)\n", r->last_row,
                k - 1);
      }
      return HY_CLI_FAIL;
    }
    if (s > 0 && !warned) {  // said once: a warning every step would drown the progress
      fprintf(stderr, "hydyn: warning at t = %.9g s: %s (%s)\n", t_before, hy_status_str(s),
              hy_status_name(s));
      warned = 1;
    }
    track_energy(d, r);
    if (csv && (k % every == 0 || k == nstep)) {
      if (hy_csv_write(csv, m, d) != HY_OK) {
        r->steps = k;
        fprintf(stderr, "hydyn: writing the CSV failed at t = %.9g s\n", d->time);
        return HY_CLI_FAIL;
      }
      r->last_row = d->time;
    }
    if (!quiet) {
      const double now = now_seconds();
      if (now >= next_progress) {
        fprintf(stderr, "t = %.6g/%g s (%.0f%%)\n", d->time, t_end, 100.0 * d->time / t_end);
        next_progress = now + 1.0;
      }
    }
  }
  r->wall = now_seconds() - wall0;
  r->steps = nstep;
  return HY_CLI_OK;
}

// The one-line key=value summary (docs/cli.md lists the keys). Keys that do not apply to the
// run are left out rather than printed as 0, so a present key always means something.
static void print_summary(FILE* fp, const hy_model* m, const hy_data* d, const run_totals* r,
                          const char* what, const char* out) {
  const hy_formulation form = m->opt.formulation;
  const double dt = m->opt.dt;
  const double sim_time = (double)r->steps * dt;
  const double rtf = r->wall > 0 ? sim_time / r->wall : INFINITY;
  // penalty and double-step always use the trapezoidal rule (opt.integrator is not read)
  const char* integ = form == HY_FORM_TREE ? hy_integrator_name(m->opt.integrator) : "trapezoidal";
  fprintf(fp,
          "summary: model=%s formulation=%s integrator=%s dt=%g t_end=%g steps=%lld wall=%.4g s "
          "rtf=%.4g",
          m->name[0] ? m->name : what, hy_formulation_name(form), integ, dt, m->opt.t_end, r->steps,
          r->wall, rtf);
  if (form != HY_FORM_TREE) {
    const long n = d->stats.nstep;
    fprintf(fp, " iter_mean=%.3g iter_max=%d", n > 0 ? (double)d->stats.niter / (double)n : 0.0,
            d->stats.niter_max);
  }
  if (m->sizes.ncut > 0) fprintf(fp, " violation_max=%.3g m", d->stats.violation_max);
  if (form == HY_FORM_DOUBLE_STEP) fprintf(fp, " partitions=%ld", d->stats.npartition);
  fprintf(fp, " energy_drift=%.3g J energy_drift_rel=%.3g", r->drift,
          r->drift / fmax(r->scale, DBL_MIN));
  if (m->sizes.ncyl > 0) {
    // Driven by cylinders: the energy the actuators put in is the scale (seed 000 quotes the
    // peak drift as a percentage of the maximum actuator work). Before a valve opens that work
    // is round-off, and the percentage is left out as for energy_drift_pct_pot.
    fprintf(fp, " work_act_max=%.4g J", r->work_max);
    if (r->work_max > 1e-6 * r->scale) {
      fprintf(fp, " energy_drift_pct_work=%.3g", 100.0 * r->drift / r->work_max);
    }
    fprintf(fp, " diss_visc=%.4g J work_damp=%.4g J", d->diss_visc, d->work_damp);
  } else if (r->released > 1e-6 * r->scale) {
    // Drift as a share of the potential energy the motion set free, the seed's way of quoting
    // it for a passive mechanism (docs/cli.md). A held model frees only round-off (1e-15 of the
    // energies), and a drift over that would be a meaningless percentage: below 1e-6 of the
    // energy scale it is not printed.
    fprintf(fp, " energy_drift_pct_pot=%.3g", 100.0 * r->drift / r->released);
  }
  fprintf(fp, " csv=%s\n", out ? out : "none");
}

int hy_cli_run(int argc, char** argv) {
  run_args a = {.every = 1};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  hy_model* m = NULL;
  rc = load_model(a.model, &m);
  if (rc != HY_CLI_OK) return rc;
  rc = apply_options(&a, m, a.model);
  if (rc >= 0) {
    hy_model_free(m);
    return rc;
  }

  const double dt = m->opt.dt, t_end = m->opt.t_end;
  // Options given on the command line are already checked; these guard the model's own values.
  if (!(dt > 0) || !isfinite(dt) || !(t_end > 0) || !isfinite(t_end) || t_end / dt > 1e15) {
    fprintf(stderr, "hydyn: invalid solver settings dt = %g s, t_end = %g s\n", dt, t_end);
    hy_model_free(m);
    return a.has_dt || a.has_t_end ? HY_CLI_USAGE : HY_CLI_FAIL;
  }
  // A step count, not a time comparison, ends the loop: accumulated t can fall just short of
  // t_end and take one step too many.
  const long long nstep = llround(t_end / dt);
  if (nstep < 1) {
    fprintf(stderr, "hydyn: t_end = %g s is less than half a step (dt = %g s): nothing to run\n",
            t_end, dt);
    hy_model_free(m);
    return a.has_dt || a.has_t_end ? HY_CLI_USAGE : HY_CLI_FAIL;
  }

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
  hy_csv* csv = NULL;
  if (out) {
    m->opt.time_steps = 1;  // for the step_wall[s] column
    hy_error err;
    memset(&err, 0, sizeof err);
    if (hy_csv_open(out, m, &csv, &err) != HY_OK) {
      print_error(&err);
      hy_data_free(d);
      hy_model_free(m);
      return HY_CLI_FAIL;
    }
  }
  const int csv_stdout = out && strcmp(out, "-") == 0;

  if (!a.quiet) {
    note_unused_options(&a, m);
    note_initial_state(m, d);
  }

  run_totals r = {0};
  rc = simulate(m, d, csv, nstep, a.every, a.quiet, &r);
  if (hy_csv_close(csv) != HY_OK && rc == HY_CLI_OK) {
    fprintf(stderr, "hydyn: writing '%s' failed\n", out);
    rc = HY_CLI_FAIL;
  }
  if (rc == HY_CLI_OK) print_summary(csv_stdout ? stderr : stdout, m, d, &r, a.model, out);
  hy_data_free(d);
  hy_model_free(m);
  return rc;
}
