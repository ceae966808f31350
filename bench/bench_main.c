// hydyn_bench: every built-in model, each for its own t_end at its own dt, timed over several
// repetitions. Open trees run with every explicit integrator (tree formulation); models with cut
// joints, which the tree formulation cannot run, with penalty and with double-step (both
// trapezoidal-Newton). Prints a table and writes bench/results/<hostname>/explicit.csv (the name
// predates the closed-loop rows; kept so that older results stay the baseline); when that file
// already exists, its time per step is the baseline the new run is compared with (the "vs base"
// column) before it is replaced.
//
// A step failure (forward Euler blowing up, say) is a result, shown in the table and the file;
// the exit status is 1 only when a model cannot be loaded or set up. "vs base" is the new time
// per step over the baseline's: below 1 is faster. Uses the public API only; the CSV recorder
// is not involved, only hy_step is timed.
#define _POSIX_C_SOURCE 200809L  // clock_gettime, gethostname, mkdir

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hydyn/hydyn.h"
#include "hydyn/names.h"

enum { MAX_REPS = 101, MAX_ROWS = 256 };

// The methods a model is run with: (formulation, integrator) pairs. The integrator only matters
// to the tree formulation; penalty and double-step always use the trapezoidal rule.
typedef struct bench_method {
  hy_formulation form;
  hy_integrator integ;
} bench_method;

static const bench_method tree_methods[] = {{HY_FORM_TREE, HY_INTEG_EULER},
                                            {HY_FORM_TREE, HY_INTEG_SEMI_EULER},
                                            {HY_FORM_TREE, HY_INTEG_RK4}};
static const bench_method loop_methods[] = {{HY_FORM_PENALTY, HY_INTEG_RK4},
                                            {HY_FORM_DOUBLE_STEP, HY_INTEG_RK4}};

// One line of the table.
typedef struct bench_row {
  char model[HY_NAME_MAX];
  hy_formulation formulation;
  hy_integrator integrator;
  int loops;  // 1 = the model has cut joints
  double dt, t_end;
  long long steps;
  int reps;
  double wall_med, wall_min;  // s
  double iter_mean;           // Newton iterations per step (penalty, double-step)
  int iter_max;               // most Newton iterations in one step
  double violation_max;       // largest |Phi_i| after a step (m or rad)
  double drift, drift_rel;    // max |E_total - E(0)| (J), relative to max |E_kin| + |E_pot|
  double drift_pct_pot;       // drift in % of the released potential energy, NAN when none
  double fail_t;              // time of a failed step, NAN when the run completed
  double base_us;             // time per step of the baseline (us), NAN when none
} bench_row;

// Name of the integrator a row really used.
static const char* row_integrator(const bench_row* r) {
  return r->formulation == HY_FORM_TREE ? hy_integrator_name(r->integrator) : "trapezoidal";
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double median(double* v, int n) {
  for (int i = 1; i < n; i++) {  // insertion sort: n is a handful
    double x = v[i];
    int j = i - 1;
    for (; j >= 0 && v[j] > x; j--) v[j + 1] = v[j];
    v[j + 1] = x;
  }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs m (options already set) `reps` times from its initial state. Returns 0, or -1 when the
// data cannot be made.
static int bench_case(const hy_model* m, int reps, bench_row* row) {
  hy_data* d = NULL;
  hy_status s = hy_data_make(m, &d, NULL);
  if (s != HY_OK) {
    fprintf(stderr, "hydyn_bench: %s: hy_data_make: %s\n", m->name, hy_status_str(s));
    return -1;
  }
  const long long nstep = llround(m->opt.t_end / m->opt.dt);
  double walls[MAX_REPS];
  row->steps = nstep;
  row->reps = reps;
  row->fail_t = NAN;
  row->drift_pct_pot = NAN;
  for (int r = 0; r < reps; r++) {
    if (r > 0 && hy_data_reset(m, d) != HY_OK) break;
    // The energy bookkeeping costs a few flops against a whole hy_step: it stays in the timed
    // loop so that every repetition does identical work.
    const double e0 = hy_energy_total(d), epot0 = d->energy_pot;
    double drift = 0.0, scale = fabs(d->energy_kin) + fabs(d->energy_pot), released = 0.0;
    long long k = 0;
    const double t0 = now_seconds();
    for (; k < nstep; k++) {
      if (hy_step(m, d) != HY_OK) break;
      drift = fmax(drift, fabs(hy_energy_total(d) - e0));
      scale = fmax(scale, fabs(d->energy_kin) + fabs(d->energy_pot));
      released = fmax(released, epot0 - d->energy_pot);
    }
    walls[r] = now_seconds() - t0;
    // the counters of the last repetition (they are the same in every one)
    row->iter_mean = d->stats.nstep > 0 ? (double)d->stats.niter / (double)d->stats.nstep : 0.0;
    row->iter_max = d->stats.niter_max;
    row->violation_max = d->stats.violation_max;
    if (k < nstep) {
      row->fail_t = d->time;
      row->steps = k;
      reps = r + 1;
      break;
    }
    row->drift = drift;
    row->drift_rel = drift / fmax(scale, DBL_MIN);
    // as `hydyn run` prints energy_drift_pct_pot: only when the model released potential energy
    // beyond round-off (docs/cli.md)
    row->drift_pct_pot = released > 1e-6 * scale ? 100.0 * drift / released : NAN;
  }
  row->reps = reps;
  row->wall_min = walls[0];
  for (int r = 1; r < reps; r++) row->wall_min = fmin(row->wall_min, walls[r]);
  row->wall_med = median(walls, reps);
  hy_data_free(d);
  return 0;
}

//----- results file ----------------------------------------------------------------------------

// Columns left empty where they do not apply (iterations and violation of the tree formulation,
// violation of open trees, drift_pct_pot when no potential energy was released).
static const char* const csv_header =
    "model,formulation,integrator,dt,t_end,steps,reps,wall_median_ms,wall_min_ms,us_per_step,rtf,"
    "iter_mean,iter_max,violation_max_m,energy_drift_J,energy_drift_rel,energy_drift_pct_pot,"
    "status\n";

static double us_per_step(const bench_row* r) {
  return r->steps > 0 ? 1e6 * r->wall_med / (double)r->steps : NAN;
}

// Splits a CSV line in place at commas, keeping empty fields (strtok would merge them). Returns
// the number of fields.
static int split_fields(char* line, char** field, int max) {
  line[strcspn(line, "\r\n")] = '\0';
  int n = 0;
  for (char* p = line; n < max;) {
    field[n++] = p;
    p = strchr(p, ',');
    if (!p) break;
    *p++ = '\0';
  }
  return n;
}

static int column(char** names, int n, const char* name) {
  for (int i = 0; i < n; i++) {
    if (strcmp(names[i], name) == 0) return i;
  }
  return -1;
}

// Reads the previous results as baselines for the rows (matched by model, formulation and
// integrator). Columns are found by name, so files written before the formulation column (all
// rows then used the tree formulation) still serve.
static void read_baseline(const char* path, bench_row* rows, int nrow) {
  FILE* fp = fopen(path, "r");
  if (!fp) return;
  enum { MAXF = 32 };
  char head[1024], line[1024];
  char* names[MAXF];
  char* field[MAXF];
  if (!fgets(head, sizeof head, fp)) head[0] = '\0';
  const int nh = split_fields(head, names, MAXF);
  const int c_model = column(names, nh, "model"), c_form = column(names, nh, "formulation");
  const int c_integ = column(names, nh, "integrator"), c_us = column(names, nh, "us_per_step");
  const int c_status = column(names, nh, "status");
  if (c_model < 0 || c_integ < 0 || c_us < 0 || c_status < 0) {
    fclose(fp);
    return;
  }
  while (fgets(line, sizeof line, fp)) {
    const int nf = split_fields(line, field, MAXF);
    if (nf != nh || strcmp(field[c_status], "ok") != 0) continue;
    const char* form = c_form >= 0 ? field[c_form] : hy_formulation_name(HY_FORM_TREE);
    for (int i = 0; i < nrow; i++) {
      if (strcmp(rows[i].model, field[c_model]) == 0 &&
          strcmp(hy_formulation_name(rows[i].formulation), form) == 0 &&
          strcmp(row_integrator(&rows[i]), field[c_integ]) == 0) {
        rows[i].base_us = strtod(field[c_us], NULL);
      }
    }
  }
  fclose(fp);
}

static int write_results(const char* path, const bench_row* rows, int nrow) {
  FILE* fp = fopen(path, "w");
  if (!fp) {
    fprintf(stderr, "hydyn_bench: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  fputs(csv_header, fp);
  for (int i = 0; i < nrow; i++) {
    const bench_row* r = &rows[i];
    const int ok = isnan(r->fail_t);
    fprintf(fp, "%s,%s,%s,%.9g,%.9g,%lld,%d,%.6g,%.6g,%.6g,%.6g,", r->model,
            hy_formulation_name(r->formulation), row_integrator(r), r->dt, r->t_end, r->steps,
            r->reps, 1e3 * r->wall_med, 1e3 * r->wall_min, us_per_step(r),
            r->wall_med > 0 ? (double)r->steps * r->dt / r->wall_med : INFINITY);
    if (r->formulation != HY_FORM_TREE)
      fprintf(fp, "%.4g,%d", r->iter_mean, r->iter_max);
    else
      fputc(',', fp);
    fputc(',', fp);
    if (r->loops) fprintf(fp, "%.3g", r->violation_max);
    fprintf(fp, ",%.6g,%.6g,", r->drift, r->drift_rel);
    if (!isnan(r->drift_pct_pot)) fprintf(fp, "%.6g", r->drift_pct_pot);
    fprintf(fp, ",%s\n", ok ? "ok" : "failed");
  }
  return fclose(fp) == 0 ? 0 : -1;
}

static int make_dir(const char* path) {
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
  fprintf(stderr, "hydyn_bench: cannot create %s: %s\n", path, strerror(errno));
  return -1;
}

//----- main ------------------------------------------------------------------------------------

static void usage(FILE* fp) {
  fputs(
      "usage: hydyn_bench [--reps N] [--model NAME] [--results DIR] [--no-write]\n"
      "\n"
      "Runs every built-in model for the model's t_end at its dt, N times (default 5): open\n"
      "trees with euler, semi-euler and rk4, models with cut joints with the penalty and the\n"
      "double-step formulation (trapezoidal rule). Prints the median wall time, time per step,\n"
      "real-time factor, Newton iterations, constraint violation and energy drift. Writes\n"
      "DIR/explicit.csv (default DIR: bench/results/<hostname> in the source tree), comparing\n"
      "with the file it replaces.\n",
      fp);
}

int main(int argc, char** argv) {
  int reps = 5, write = 1;
  const char* only = NULL;
  const char* dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      char* end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > MAX_REPS) {
        fprintf(stderr, "hydyn_bench: --reps must be 1..%d\n", MAX_REPS);
        return 2;
      }
      reps = (int)v;
    } else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--results") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (strcmp(argv[i], "--no-write") == 0) {
      write = 0;
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }

  static bench_row rows[MAX_ROWS];
  int nrow = 0, failed = 0;
  for (int i = 0; i < hy_builtin_count(); i++) {
    const char* name = hy_builtin_name(i);
    if (only && strcmp(only, name) != 0) continue;
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    if (hy_model_load_any(name, &m, &err) != HY_OK) {
      char buf[1024];
      hy_error_format(&err, buf, sizeof buf);
      fprintf(stderr, "hydyn_bench: %s: %s\n", name, buf);
      failed = 1;
      continue;
    }
    // the tree formulation would ignore cut joints, so closed loops get the implicit methods
    const int loops = m->sizes.ncut > 0;
    const bench_method* methods = loops ? loop_methods : tree_methods;
    const int nmethod = loops ? (int)(sizeof loop_methods / sizeof loop_methods[0])
                              : (int)(sizeof tree_methods / sizeof tree_methods[0]);
    for (int k = 0; k < nmethod && nrow < MAX_ROWS; k++) {
      bench_row* r = &rows[nrow];
      memset(r, 0, sizeof *r);
      snprintf(r->model, sizeof r->model, "%s", name);
      r->formulation = methods[k].form;
      r->integrator = methods[k].integ;
      r->loops = loops;
      r->dt = m->opt.dt;
      r->t_end = m->opt.t_end;
      r->base_us = NAN;
      m->opt.formulation = r->formulation;
      m->opt.integrator = r->integrator;
      if (bench_case(m, reps, r) != 0) {
        failed = 1;
        continue;
      }
      nrow++;
    }
    hy_model_free(m);
  }
  if (only && nrow == 0) {
    fprintf(stderr, "hydyn_bench: no built-in model '%s'\n", only);
    return 1;
  }

  char path[1024] = "";
  if (write) {
    char host[256] = "unknown";
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    for (char* p = host; *p; p++) {
      if (*p == '/') *p = '_';
    }
    char auto_dir[768];
    if (!dir) {
      snprintf(auto_dir, sizeof auto_dir, "%s/bench/results", HY_SOURCE_DIR);
      if (make_dir(auto_dir)) return 1;
      snprintf(auto_dir, sizeof auto_dir, "%s/bench/results/%s", HY_SOURCE_DIR, host);
      dir = auto_dir;
    }
    if (make_dir(dir)) return 1;
    snprintf(path, sizeof path, "%s/explicit.csv", dir);
    read_baseline(path, rows, nrow);
  }

#ifndef HY_BUILD_TYPE
#define HY_BUILD_TYPE "unknown"
#endif
  printf(
      "hydyn %s (%s build), %d repetitions, median wall time; iter = Newton iterations per "
      "step (mean, max), drift %%pot = drift in %% of the potential energy released\n\n",
      HY_VERSION_STRING, HY_BUILD_TYPE[0] ? HY_BUILD_TYPE : "default", reps);
  printf("%-21s %-11s %-11s %6s %9s %8s %7s %5s %4s %9s %9s %9s %10s %7s\n", "model", "formulation",
         "integrator", "steps", "wall (ms)", "us/step", "rtf", "iter", "max", "viol (m)",
         "drift (J)", "drift rel", "drift %pot", "vs base");
  for (int i = 0; i < nrow; i++) {
    const bench_row* r = &rows[i];
    const double us = us_per_step(r);
    char base[16] = "-", iter[16] = "-", imax[16] = "-", viol[16] = "-", pct[16] = "-";
    if (!isnan(r->base_us) && r->base_us > 0) snprintf(base, sizeof base, "%.2f", us / r->base_us);
    if (r->formulation != HY_FORM_TREE) {
      snprintf(iter, sizeof iter, "%.2f", r->iter_mean);
      snprintf(imax, sizeof imax, "%d", r->iter_max);
    }
    if (r->loops) snprintf(viol, sizeof viol, "%.2g", r->violation_max);
    if (!isnan(r->drift_pct_pot)) snprintf(pct, sizeof pct, "%.3g", r->drift_pct_pot);
    printf("%-21s %-11s %-11s %6lld %9.2f %8.3f %7.4g %5s %4s %9s %9.3g %9.3g %10s %7s", r->model,
           hy_formulation_name(r->formulation), row_integrator(r), r->steps, 1e3 * r->wall_med, us,
           r->wall_med > 0 ? (double)r->steps * r->dt / r->wall_med : INFINITY, iter, imax, viol,
           r->drift, r->drift_rel, pct, base);
    if (!isnan(r->fail_t)) printf("  FAILED at t = %g s", r->fail_t);
    putchar('\n');
  }
  if (write) {
    if (write_results(path, rows, nrow)) return 1;
    printf("\nwrote %s\n", path);
  }
  return failed ? 1 : 0;
}
