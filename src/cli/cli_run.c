// `hydyn run MODEL [options]`: load, override the solver options, step to t_end while recording
// the selected channels to CSV or HDF5, report progress on a terminal and end with a one-line
// key=value summary. A run stopped by SIGINT or SIGTERM ends after its current step with its
// results file whole and closed.
#define _POSIX_C_SOURCE 200809L  // clock_gettime, stat, sigaction, statvfs

#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_case_row.h"
#include "cli/cli_load.h"
#include "hydyn/channels.h"
#include "hydyn/hydyn.h"
#include "hydyn/names.h"
#include "io/io.h"
#include "io/io_builtin.h"

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
  int has_baumgarte_xi, has_baumgarte_omega, has_ode_tol, threads, reactions;
  double baumgarte_xi, baumgarte_omega, ode_tol;
  long max_cuts;
  hy_error_control error_control;
  double error_tol, error_tol_p, max_memory;
  const char* out;       // NULL = <model name>.csv
  const char* channels;  // NULL = the default set
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
      "  --formulation NAME   auto | tree | penalty | double-step | ali1 | ali3p | dca | hdca;\n"
      "                       auto:\n"
      "                       penalty for a model with cut joints, else tree; tree refuses\n"
      "                       cut joints; ali1 and ali3p are the global-coordinate formulations\n"
      "                       of seed 001 (planar models) with their own integrators; dca and\n"
      "                       hdca are the O(N) divide-and-conquer algorithms (planar chains;\n"
      "                       hdca the Hamiltonian one of seed 004) with an ODE integrator\n"
      "  --integrator NAME    auto | euler | semi-euler | rk4 | trapezoidal | dopri5 | bs23 |\n"
      "                       adams; auto: trapezoidal (Newton-Raphson) for closed loops or\n"
      "                       hydraulics, else rk4; penalty and double-step step only with\n"
      "                       trapezoidal; dopri5, bs23 (ARKODE) and adams (CVODE) choose\n"
      "                       their own steps to --tolerance and give the state every dt\n"
      "  --tolerance TOL      dopri5, bs23, adams: rtol = atol of the local error, 1e-14 to\n"
      "                       0.1 (default 1e-6)\n"
      "  --threads N          dca, hdca: threads of the assembly (OpenMP), 1 to 256; the results\n"
      "                       are the same bits for any N (default 1)\n"
      "  --reactions          dca, hdca: each joint's reaction force and moment, as channels\n"
      "                       react_fx:JOINT ... react_mz:JOINT (hdca: one more solve per\n"
      "                       evaluation)\n"
      "  --tangent NAME       analytic | fd: Newton tangent (trapezoidal)\n"
      "  --penalty ALPHA      penalty factor alpha (N/m), > 0 (penalty, ali1, ali3p)\n"
      "  --baumgarte-xi XI    ali1: xi of the Baumgarte-like terms, >= 0 (default 1)\n"
      "  --baumgarte-omega W  ali1: omega of those terms (rad/s), >= 0 (default 10)\n"
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
      "  --out FILE           results file (default: <model name>.csv in the current\n"
      "                       directory): CSV, or HDF5 for a name ending in .h5 or .hdf5;\n"
      "                       '-' writes CSV to standard output\n"
      "  --no-out             write no results file\n"
      "  --channels LIST      channels to record: names and globs, comma-separated ('p:*,z:*');\n"
      "                       'default' (the default) is the work-cycle set, 'all' every one;\n"
      "                       'hydyn channels MODEL' lists them\n"
      "  --every N            record every N-th step (default 1); t = 0 and the last step are\n"
      "                       always recorded\n"
      "  --quiet              no progress and no notes on standard error\n"
      "  -h, --help           show this help\n",
      fp);
  // (two strings: one would exceed the length C11 compilers must support)
  fputs(
      "\n"
      "Options may also be written --name=value. The summary goes to standard output, or to\n"
      "standard error when the CSV does. A built-in HDCA family model (hdca-case1, hdca-case2,\n"
      "hdca-case3, chain-N, loop-N) adds a line after it, the CSV row of its case\n"
      "(shared/seeds/hdca_cases.md):\n"
      "  case_row: engine,case,N,integrator,dt,steps,wall_s,us_per_step,\n"
      "            max_loop_violation_m,max_energy_drift_J\n"
      "On a terminal, runs longer than a second show their progress. SIGINT (Ctrl-C) or\n"
      "SIGTERM ends the run after its current step, with the results file whole up to it.\n"
      "Exit status: 0 success, 1 model or run error, 2 bad command line, 130 stopped by\n"
      "SIGINT, 143 stopped by SIGTERM.\n",
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
    if (strcmp(arg, "--reactions") == 0) {
      a->reactions = 1;
      continue;
    }
    // Options with a value: "--name value" or "--name=value".
    static const char* const valued[] = {
        "--t-end",         "--dt",          "--integrator", "--out",
        "--every",         "--formulation", "--tangent",    "--penalty",
        "--tol",           "--max-iter",    "--tol-p",      "--max-cuts",
        "--error-control", "--error-tol-p", "--error-tol",  "--max-memory",
        "--tol-fric",      "--channels",    "--baumgarte-xi", "--baumgarte-omega",
        "--tolerance",     "--threads"};
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
              "invalid --formulation '%s': expected auto, tree, penalty, double-step, ali1 or "
              "ali3p", val);
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
      case 17:
        if (!val[0]) return usage_error("--channels needs a list of channel names or globs");
        a->channels = val;
        break;
      case 18:
        if (hy_cli_parse_number(val, 1, &a->baumgarte_xi)) {
          return usage_error("invalid --baumgarte-xi '%s': expected a number >= 0", val);
        }
        a->has_baumgarte_xi = 1;
        break;
      case 19:
        if (hy_cli_parse_number(val, 1, &a->baumgarte_omega)) {
          return usage_error("invalid --baumgarte-omega '%s': expected a number >= 0 (rad/s)", val);
        }
        a->has_baumgarte_omega = 1;
        break;
      case 20:
        if (hy_cli_parse_number(val, 0, &a->ode_tol)) {
          return usage_error("invalid --tolerance '%s': expected a number > 0", val);
        }
        a->has_ode_tol = 1;
        break;
      case 21: {
        double v = 0;
        if (hy_cli_parse_number(val, 0, &v) || v != floor(v) || v < 1 || v > 256) {
          return usage_error("invalid --threads '%s': expected a whole number 1 to 256", val);
        }
        a->threads = (int)v;
        break;
      }
      default:
        return usage_error("unknown option '%s'", arg);
    }
  }
  if (!a->model) return usage_error("no model given");
  return -1;
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
  if (a->has_baumgarte_xi) m->opt.baumgarte_xi = a->baumgarte_xi;
  if (a->has_baumgarte_omega) m->opt.baumgarte_omega = a->baumgarte_omega;
  if (a->has_ode_tol) m->opt.ode_tol = a->ode_tol;
  if (a->threads > 0) m->opt.threads = a->threads;
  if (a->reactions) m->opt.reactions = 1;
}

// Options that were given but that the data's formulation and integrator do not read: said,
// so that a user comparing runs does not believe they changed something.
static void note_unused_options(const run_args* a, const hy_model* m, const hy_data* d) {
  const int newton = d->integrator == HY_INTEG_TRAPEZOIDAL;
  const int global = d->formulation == HY_FORM_ALI1 || d->formulation == HY_FORM_ALI3P;
  if (!newton && !global) {
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
  if (d->formulation != HY_FORM_PENALTY && !global && a->has_penalty && newton) {
    fputs("note: --penalty applies to the penalty, ali1 and ali3p formulations only\n", stderr);
  }
  if (d->formulation != HY_FORM_ALI1 && (a->has_baumgarte_xi || a->has_baumgarte_omega)) {
    fputs("note: --baumgarte-xi and --baumgarte-omega apply to the ali1 formulation only\n",
          stderr);
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

// The recorder of a run: the selected channels and the file they go to.
typedef struct recording {
  hy_channels* ch;
  int* sel;
  int n;
  double* row;
  hy_writer* w;
  const char* path;
  double last_row;     // time of the last row written (s), NAN before the first
  long last_row_step;  // the step that ended there (0: the initial state)
} recording;

static hy_status record_row(void* user, const hy_model* m, const hy_data* d) {
  recording* r = user;
  (void)m;
  if (!r->w) return HY_OK;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_channels_eval(r->ch, d, r->sel, r->n, r->row);
  hy_status st = hy_writer_row(r->w, r->row, &err);
  if (st != HY_OK) {
    fprintf(stderr, "hydyn: writing '%s' failed at t = %.9g s: %s\n", r->path, d->time, err.msg);
    return st;
  }
  r->last_row = d->time;
  r->last_row_step = d->stats.nstep;
  return HY_OK;
}

static void recording_free(recording* r) {
  free(r->row);
  hy_channels_free_selection(r->sel);
  hy_channels_free(r->ch);
}


//----- progress ---------------------------------------------------------------------------------

typedef struct progress {
  double wall0;  // s, monotonic
  double t0;     // simulated time at the start (s)
  int shown;     // a progress line is on the terminal
} progress;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// One line, rewritten in place: simulated time, share done, real-time factor, time left.
static int show_progress(void* user, const hy_model* m, const hy_data* d) {
  progress* p = user;
  const double wall = now_seconds() - p->wall0;
  const double done = d->time - p->t0, todo = m->opt.t_end - d->time;
  const double rtf = wall > 0 ? done / wall : 0;
  fprintf(stderr, "\r\033[Kt = %.4g/%g s (%.0f%%)  real-time factor %.3g", d->time, m->opt.t_end,
          100.0 * d->time / m->opt.t_end, rtf);
  if (rtf > 0) fprintf(stderr, "  ETA %.0f s", todo / rtf);
  fflush(stderr);
  p->shown = 1;
  return 0;
}

static void clear_progress(progress* p) {
  if (p->shown) fputs("\r\033[K", stderr);
  p->shown = 0;
}

//----- summary ----------------------------------------------------------------------------------

// Appends to a fixed buffer (the summary line is short; an overlong one is cut).
typedef struct text {
  char buf[2048];
  size_t used;
} text;

__attribute__((format(printf, 2, 3))) static void add(text* t, const char* fmt, ...) {
  if (t->used >= sizeof t->buf) return;
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(t->buf + t->used, sizeof t->buf - t->used, fmt, ap);
  va_end(ap);
  if (w > 0) t->used += (size_t)w < sizeof t->buf - t->used ? (size_t)w : sizeof t->buf - t->used - 1;
}

// The one-line key=value summary (docs/cli.md lists the keys). Keys that do not apply to the
// run are left out rather than printed as 0, so a present key always means something.
static void format_summary(text* t, const hy_model* m, const hy_data* d, const hy_run_summary* r,
                           const char* what, const char* out) {
  add(t,
      "summary: model=%s formulation=%s integrator=%s dt=%g t_end=%g steps=%lld wall=%.4g s "
      "rtf=%.4g",
      m->name[0] ? m->name : what, hy_formulation_name(d->formulation),
      hy_integrator_name(d->integrator), m->opt.dt, m->opt.t_end, r->steps, r->wall, r->rtf);
  if (r->stopped) add(t, " stopped_at=%.9g s", r->t_reached);
  if (!isnan(r->iter_mean)) add(t, " iter_mean=%.3g iter_max=%d", r->iter_mean, r->iter_max);
  if (d->stats.nsubstep != r->steps || d->stats.ncut > 0 || d->stats.nreject > 0) {
    // steps cut after a failure, or sized by the local error
    add(t, " substeps=%ld cuts=%ld rejected=%ld h_min=%.3g s", d->stats.nsubstep, d->stats.ncut,
        d->stats.nreject, d->stats.h_min);
  }
  if (d->integrator == HY_INTEG_DOPRI5 || d->integrator == HY_INTEG_BS23 ||
      d->integrator == HY_INTEG_ADAMS) {
    // the variable-step methods' cost: their right-hand-side evaluations (the state at each
    // output step is evaluated once more for the outputs)
    add(t, " tolerance=%g rhs_evals=%ld", m->opt.ode_tol, d->stats.nrhs);
  }
  if (!isnan(r->violation_max)) add(t, " violation_max=%.3g m", r->violation_max);
  if (!isnan(r->nh_violation_max)) add(t, " nh_violation_max=%.3g m/s", r->nh_violation_max);
  if (d->formulation == HY_FORM_DOUBLE_STEP) add(t, " partitions=%ld", d->stats.npartition);
  if (m->sizes.ngimbal > 0) add(t, " reanchors=%ld", d->stats.nreanchor);
  add(t, " energy_drift=%.3g J energy_drift_rel=%.3g", r->drift, r->drift_rel);
  if (m->sizes.ncyl > 0) {
    add(t, " work_act_max=%.4g J", r->work_act_max);
    if (!isnan(r->drift_pct_work)) add(t, " energy_drift_pct_work=%.3g", r->drift_pct_work);
    add(t, " diss_visc=%.4g J work_damp=%.4g J", d->diss_visc, d->work_damp);
    int friction = 0;
    for (int c = 0; c < m->sizes.ncyl; c++) friction |= m->cyl_fric[c].law != HY_FRICTION_NONE;
    if (friction) add(t, " diss_fric=%.4g J", d->diss_fric);
  } else if (!isnan(r->drift_pct_pot)) {
    add(t, " energy_drift_pct_pot=%.3g", r->drift_pct_pot);
  }
  if (out && hy_results_format_of(out) == HY_RESULTS_HDF5 && strcmp(out, "-") != 0) {
    add(t, " hdf5=%s", out);
  } else {
    add(t, " csv=%s", out ? out : "none");
  }
}

// What a failed run says: where and why it stopped, and what the results file still holds.
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
  if (rec->w && !quiet && !isnan(rec->last_row)) {
    fprintf(stderr, "note: %s holds the rows up to t = %.9g s (step %ld)\n", rec->path,
            rec->last_row, rec->last_row_step);
  }
}

//----- the results file -------------------------------------------------------------------------

// The model file's text, for the HDF5 attribute: the file a path names, or the built-in model's
// text; NULL for a model family (built in code) or a file that cannot be read. Free with free().
static char* model_text(const hy_model* m, const char* what) {
  for (int i = 0; i < hy_builtin_model_count; i++) {
    char path[300];
    snprintf(path, sizeof path, "models/%s.yaml", hy_builtin_models[i].name);
    if (strcmp(m->path, path) == 0 && access(what, R_OK) != 0) {
      return strdup(hy_builtin_models[i].text);
    }
  }
  FILE* fp = m->path[0] ? fopen(what, "rb") : NULL;
  if (!fp) return NULL;
  char* buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = 2 * cap + 8192;
      char* grown = realloc(buf, cap);
      if (!grown) break;
      buf = grown;
    }
    size_t k = fread(buf + len, 1, cap - len - 1, fp);
    len += k;
    if (k == 0) break;
  }
  fclose(fp);
  if (buf) buf[len] = '\0';
  return buf;
}

// The run's settings as "key=value" lines (HDF5 attribute `settings`).
static void format_settings(text* t, const hy_model* m, const hy_data* d, const char* channels,
                            long every) {
  const hy_option* o = &m->opt;
  add(t, "hydyn=%s\nmodel=%s\nformulation=%s\nintegrator=%s\ndt=%.17g\nt_end=%.17g\n",
      HY_VERSION_STRING, m->name, hy_formulation_name(d->formulation),
      hy_integrator_name(d->integrator), o->dt, o->t_end);
  add(t, "tangent=%s\npenalty=%.17g\ntol_position=%.17g\ntol_pressure=%.17g\n",
      hy_tangent_name(o->tangent), o->penalty, o->tol_pos, o->tol_p);
  add(t, "tol_friction=%.17g\nmax_iterations=%d\nstrict_steps=%d\nmax_cuts=%d\n", o->tol_fric,
      o->max_iter, o->strict_steps, o->max_cuts);
  add(t, "error_control=%s\nerror_tol_position=%.17g\nerror_tol_pressure=%.17g\n",
      hy_error_control_name(o->error_control), o->error_tol_pos, o->error_tol_p);
  add(t, "baumgarte_xi=%.17g\nbaumgarte_omega=%.17g\n", o->baumgarte_xi, o->baumgarte_omega);
  add(t, "tolerance=%.17g\nthreads=%d\nreactions=%d\n", o->ode_tol, o->threads, o->reactions);
  add(t, "channels=%s\nevery=%ld\n", channels ? channels : "default", every);
}

// Warns when the results would grow beyond a size a user would want to be told of (1 GB) or
// beyond the free space of the folder they go to.
static void warn_large_output(const char* path, hy_results_format format, int nchan,
                              const hy_model* m, long every) {
  const double steps = ceil(m->opt.t_end / m->opt.dt);
  const double rows = floor(steps / (double)every) + 2;
  // CSV: about 22 characters per value at %.17g (sign, 17 digits, point, exponent, comma)
  const double bytes = rows * nchan * (format == HY_RESULTS_HDF5 ? 8.0 : 22.0);
  double avail = INFINITY;
  if (strcmp(path, "-") != 0) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char* slash = strrchr(dir, '/');
    if (slash) {
      slash[slash == dir ? 1 : 0] = '\0';
    } else {
      snprintf(dir, sizeof dir, ".");
    }
    struct statvfs vfs;
    if (statvfs(dir, &vfs) == 0) avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
  }
  if (bytes < 1e9 && bytes < avail) return;
  fprintf(stderr,
          "warning: the results would take about %.3g GB (%.4g rows of %d channels)%s; record "
          "less with --every N, --channels or --no-out\n",
          bytes / 1e9, rows, nchan,
          bytes >= avail ? ", more than the free space where they go" : "");
}

// Opens the results file of the run: channels, checks on the path, the writer.
static int open_results(const run_args* a, const hy_model* m, const hy_data* d, const char* out,
                        recording* rec) {
  hy_error err;
  memset(&err, 0, sizeof err);
  rec->path = out;
  // (a built-in model's name is no file, whatever its spelling)
  if (strcmp(out, "-") != 0 && access(a->model, F_OK) == 0 && hy_cli_same_file(out, a->model)) {
    fprintf(stderr, "hydyn: --out '%s' is the model file itself: it would be overwritten\n", out);
    return HY_CLI_USAGE;
  }
  if (hy_channels_make(m, d, &rec->ch, &err) != HY_OK ||
      hy_channels_select(rec->ch, a->channels, &rec->sel, &rec->n, &err) != HY_OK) {
    fprintf(stderr, "hydyn run: --channels: %s\n", err.msg);
    return err.code == HY_ERR_ARG ? HY_CLI_USAGE : HY_CLI_FAIL;
  }
  rec->row = calloc((size_t)rec->n, sizeof *rec->row);
  const char** names = calloc((size_t)rec->n, sizeof *names);
  const char** units = calloc((size_t)rec->n, sizeof *units);
  char* model = model_text(m, a->model);
  text settings = {.used = 0};
  format_settings(&settings, m, d, a->channels, a->every);
  hy_status st = !rec->row || !names || !units ? HY_ERR_NOMEM : HY_OK;
  if (st == HY_OK) {
    for (int i = 0; i < rec->n; i++) {
      names[i] = rec->ch->ch[rec->sel[i]].name;
      units[i] = rec->ch->ch[rec->sel[i]].unit;
    }
    const hy_results_meta meta = {m->name, model, settings.buf};
    st = hy_writer_open(out, rec->n, names, units, &meta, &rec->w, &err);
  }
  free(model);
  free(names);
  free(units);
  if (st != HY_OK) {
    if (err.code == st) {
      hy_cli_print_error(&err);
    } else {
      fprintf(stderr, "hydyn: cannot write '%s': %s\n", out, hy_status_str(st));
    }
    return HY_CLI_FAIL;
  }
  if (!a->quiet) warn_large_output(out, hy_results_format_of(out), rec->n, m, a->every);
  return HY_CLI_OK;
}

int hy_cli_run(int argc, char** argv) {
  run_args a = {.every = 1};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  hy_model* m = NULL;
  rc = hy_cli_load_model(a.model, &m);
  if (rc != HY_CLI_OK) return rc;
  apply_options(&a, m);

  hy_data* d = NULL;
  hy_error make_err;
  memset(&make_err, 0, sizeof make_err);
  hy_status s = hy_data_make(m, &d, &make_err);
  if (s != HY_OK) {
    if (make_err.msg[0]) {
      hy_cli_print_error(&make_err);
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
  recording rec = {.last_row = NAN};
  if (out) {
    m->opt.time_steps = 1;  // for the step_wall channel
    rc = open_results(&a, m, d, out, &rec);
    if (rc != HY_CLI_OK) {
      recording_free(&rec);
      hy_data_free(d);
      hy_model_free(m);
      return rc;
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
  // progress only for a person watching: on a terminal, from the first second on
  progress prog = {.wall0 = now_seconds(), .t0 = d->time};
  if (!a.quiet && isatty(STDERR_FILENO)) {
    ro.progress = show_progress;
    ro.progress_user = &prog;
  }
  hy_cli_catch_stop_signals();
  ro.stop = &hy_cli_stop_signal;
  hy_run_summary r;
  s = hy_run(m, d, &ro, &r);
  clear_progress(&prog);
  rc = s == HY_OK ? HY_CLI_OK : HY_CLI_FAIL;
  if (s != HY_OK) report_failure(d, &r, &rec, a.quiet);
  text summary = {.used = 0};
  format_summary(&summary, m, d, &r, a.model, out);
  hy_error close_err;
  memset(&close_err, 0, sizeof close_err);
  if (hy_writer_close(rec.w, summary.buf, &close_err) != HY_OK && rc == HY_CLI_OK) {
    fprintf(stderr, "hydyn: writing '%s' failed: %s\n", out, close_err.msg);
    rc = HY_CLI_FAIL;
  }
  if (r.stopped && hy_cli_stop_signal) {
    const int sig = (int)hy_cli_stop_signal;
    fprintf(stderr, "hydyn: stopped by %s at t = %.9g s after %lld steps",
            sig == SIGINT ? "SIGINT" : "SIGTERM", r.t_reached, r.steps);
    if (out) fprintf(stderr, "; %s holds the rows up to there", out);
    fputc('\n', stderr);
    if (rc == HY_CLI_OK) rc = 128 + sig;
  }
  if (rc == HY_CLI_OK || rc > 128) {
    FILE* fp = csv_stdout ? stderr : stdout;
    fprintf(fp, "%s\n", summary.buf);
    // the seed's CSV row (shared/seeds/hdca_cases.md), so that a run of a test case can be put
    // beside other engines' without parsing the summary
    hy_case_row row;
    if (hy_case_row_of_run(m, d, &r, &row) == 0) {
      char line[256];
      hy_case_row_format(&row, line, sizeof line);
      fprintf(fp, "case_row: %s\n", line);
    }
  }
  recording_free(&rec);
  hy_data_free(d);
  hy_model_free(m);
  return rc;
}
