// hydyn_bench: every built-in model, each for its own t_end at its own dt, timed over several
// repetitions. Open trees run with every explicit integrator (tree formulation); models with cut
// joints or hydraulics, which the tree formulation cannot run, with penalty and with double-step
// (both trapezoidal-Newton; the hydraulic work cycles four-bar-a, quick-return, four-bar-b and
// crane for their full 10 s at dt = 1 ms). Prints a table, then hydyn's time for the work cycle
// of four-bar A against the MATLAB times of seed 000, the friction laws' four-bar B cycles
// against the frictionless one (seed 002 Sect. 6.4), and writes
// bench/results/<hostname>/explicit.csv (the name predates the closed-loop rows; kept so that
// older results stay the baseline); when that file already exists, its time per step is the
// baseline the new run is compared with (the "vs base" column) before it is replaced.
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
static const bench_method loop_methods[] = {{HY_FORM_PENALTY, HY_INTEG_TRAPEZOIDAL},
                                            {HY_FORM_DOUBLE_STEP, HY_INTEG_TRAPEZOIDAL}};

// One line of the table.
typedef struct bench_row {
  char model[HY_NAME_MAX];
  hy_formulation formulation;
  hy_integrator integrator;
  int loops;      // 1 = the model has cut joints
  int cylinders;  // 1 = the model has hydraulic cylinders (drift quoted against their work)
  double dt, t_end;
  long long steps;
  int reps;
  double wall_med, wall_min;  // s
  double iter_mean;           // Newton iterations per step (penalty, double-step)
  int iter_max;               // most Newton iterations in one step
  double violation_max;       // largest |Phi_i| after a step (m or rad)
  double drift, drift_rel;    // max |E_total - E(0)| (J), relative to max |E_kin| + |E_pot|
  double drift_pct_pot;       // drift in % of the released potential energy, NAN when none
  double work_max;            // max |W_act| of the cylinders (J), NAN without cylinders
  double drift_pct_work;      // drift in % of work_max, NAN without cylinders or work
  double fail_t;              // time of a failed step, NAN when the run completed
  double base_us;             // time per step of the baseline (us), NAN when none
} bench_row;

// Name of the integrator a row used.
static const char* row_integrator(const bench_row* r) { return hy_integrator_name(r->integrator); }

static double median(double* v, int n) {
  for (int i = 1; i < n; i++) {  // insertion sort: n is a handful
    double x = v[i];
    int j = i - 1;
    for (; j >= 0 && v[j] > x; j--) v[j + 1] = v[j];
    v[j + 1] = x;
  }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs m (options already set) `reps` times from its initial state, through hy_run: only the
// stepping loop is timed (no recorder). Returns 0, or -1 when the data cannot be made.
static int bench_case(const hy_model* m, int reps, bench_row* row) {
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status s = hy_data_make(m, &d, &err);
  if (s != HY_OK) {
    char buf[1024];
    hy_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "hydyn_bench: %s: %s\n", m->name, buf);
    return -1;
  }
  double walls[MAX_REPS];
  row->reps = reps;
  row->fail_t = NAN;
  row->integrator = d->integrator;
  hy_run_summary sum;
  for (int r = 0; r < reps; r++) {
    if (r > 0 && hy_data_reset(m, d) != HY_OK) break;
    hy_run(m, d, NULL, &sum);
    walls[r] = sum.wall;
    row->steps = sum.steps;
    if (sum.status != HY_OK) {
      row->fail_t = sum.t_fail;
      reps = r + 1;
      break;
    }
  }
  // the counters and figures of the last repetition (they are the same in every one)
  row->iter_mean = sum.iter_mean;
  row->iter_max = sum.iter_max;
  row->violation_max = sum.violation_max;
  row->drift = sum.drift;
  row->drift_rel = sum.drift_rel;
  row->drift_pct_pot = sum.drift_pct_pot;
  row->work_max = sum.work_act_max;
  row->drift_pct_work = sum.drift_pct_work;
  row->reps = reps;
  row->wall_min = walls[0];
  for (int r = 1; r < reps; r++) row->wall_min = fmin(row->wall_min, walls[r]);
  row->wall_med = median(walls, reps);
  hy_data_free(d);
  return 0;
}

//----- results file ----------------------------------------------------------------------------

// Columns left empty where they do not apply (iterations and violation of the tree formulation,
// violation of open trees, drift_pct_pot when no potential energy was released or the model has
// cylinders, work_act_max and drift_pct_work without cylinders).
static const char* const csv_header =
    "model,formulation,integrator,dt,t_end,steps,reps,wall_median_ms,wall_min_ms,us_per_step,rtf,"
    "iter_mean,iter_max,violation_max_m,energy_drift_J,energy_drift_rel,energy_drift_pct_pot,"
    "work_act_max_J,energy_drift_pct_work,status\n";

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
    if (!isnan(r->iter_mean))
      fprintf(fp, "%.4g,%d", r->iter_mean, r->iter_max);
    else
      fputc(',', fp);
    fputc(',', fp);
    if (r->loops) fprintf(fp, "%.3g", r->violation_max);
    fprintf(fp, ",%.6g,%.6g,", r->drift, r->drift_rel);
    if (!isnan(r->drift_pct_pot)) fprintf(fp, "%.6g", r->drift_pct_pot);
    fputc(',', fp);
    if (!isnan(r->work_max)) fprintf(fp, "%.6g", r->work_max);
    fputc(',', fp);
    if (!isnan(r->drift_pct_work)) fprintf(fp, "%.6g", r->drift_pct_work);
    fprintf(fp, ",%s\n", ok ? "ok" : "failed");
  }
  return fclose(fp) == 0 ? 0 : -1;
}

static int make_dir(const char* path) {
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
  fprintf(stderr, "hydyn_bench: cannot create %s: %s\n", path, strerror(errno));
  return -1;
}

//----- seed 000 comparison ---------------------------------------------------------------------

// The MATLAB runs of seed 000 Sect. 6 (Figs. 13-14; seeds README "Numbers the seeds publish"):
// the 10 s work cycles at dt = 1 ms, total integration time, Newton iterations per step (mean,
// max) and peak energy drift in % of the maximum actuator work (given per mechanism).
typedef struct seed_run {
  const char* model;  // the hydyn model of the same mechanism and circuit
  const char* label;  // as the seed names it
  hy_formulation form;
  double wall;  // s
  double iter_mean;
  int iter_max;
  double drift_pct_work;  // %
} seed_run;

static const seed_run seed_runs[] = {
    {"four-bar-a", "four-bar A", HY_FORM_PENALTY, 21.54, 1.56, 4, 0.09},
    {"four-bar-a", "four-bar A", HY_FORM_DOUBLE_STEP, 27.45, 1.39, 3, 0.09},
    {"quick-return", "the quick-return", HY_FORM_PENALTY, 28.47, 1.57, 6, 0.06},
    {"quick-return", "the quick-return", HY_FORM_DOUBLE_STEP, 29.03, 1.49, 3, 0.06},
};
enum { NSEED = (int)(sizeof seed_runs / sizeof seed_runs[0]) };

// The goal of the issue: one 10 s work cycle of four-bar A in at most 10 ms.
static const double goal_wall = 10e-3;

static const bench_row* find_row(const bench_row* rows, int nrow, const char* model,
                                 hy_formulation form) {
  for (int i = 0; i < nrow; i++) {
    if (strcmp(rows[i].model, model) == 0 && rows[i].formulation == form) return &rows[i];
  }
  return NULL;
}

// Prints the seed's times and hydyn's speed-up for the rows that ran the same work cycle (10 s
// at 1 ms, completed); other rows are said not to be comparable.
static void print_seed_comparison(const bench_row* rows, int nrow) {
  int any = 0;
  for (int k = 0; k < NSEED; k++)
    any |= find_row(rows, nrow, seed_runs[k].model, HY_FORM_PENALTY) != NULL;
  if (!any) return;
  putchar('\n');
  for (int k = 0; k + 1 < NSEED; k += 2) {
    if (!find_row(rows, nrow, seed_runs[k].model, seed_runs[k].form)) continue;
    printf("seed 000 MATLAB: %.2f s penalty, %.2f s double-step for %s\n", seed_runs[k].wall,
           seed_runs[k + 1].wall, seed_runs[k].label);
  }
  printf("%-13s %-11s %10s %10s %9s %11s %11s %12s %12s\n", "model", "formulation", "hydyn (ms)",
         "MATLAB (s)", "speed-up", "iter hydyn", "iter seed", "%work hydyn", "%work seed");
  for (int k = 0; k < NSEED; k++) {
    const seed_run* sr = &seed_runs[k];
    const bench_row* r = find_row(rows, nrow, sr->model, sr->form);
    if (!r) continue;
    printf("%-13s %-11s ", sr->model, hy_formulation_name(sr->form));
    if (!isnan(r->fail_t) || fabs(r->t_end - 10.0) > 1e-9 || fabs(r->dt - 1e-3) > 1e-15) {
      printf("not comparable: the seed ran 10 s at dt = 1 ms%s\n",
             isnan(r->fail_t) ? "" : " (hydyn's run failed)");
      continue;
    }
    char it[32], it_seed[32];
    snprintf(it, sizeof it, "%.2f/%d", r->iter_mean, r->iter_max);
    snprintf(it_seed, sizeof it_seed, "%.2f/%d", sr->iter_mean, sr->iter_max);
    char pct[32] = "-";
    if (!isnan(r->drift_pct_work)) snprintf(pct, sizeof pct, "%.3g", r->drift_pct_work);
    printf("%10.2f %10.2f %8.0fx %11s %11s %12s %12.2g\n", 1e3 * r->wall_med, sr->wall,
           sr->wall / r->wall_med, it, it_seed, pct, sr->drift_pct_work);
  }
  const bench_row* pen = find_row(rows, nrow, "four-bar-a", HY_FORM_PENALTY);
  const bench_row* ds = find_row(rows, nrow, "four-bar-a", HY_FORM_DOUBLE_STEP);
  if (pen && ds && isnan(pen->fail_t) && isnan(ds->fail_t)) {
    const int met = pen->wall_med <= goal_wall && ds->wall_med <= goal_wall;
    printf(
        "goal: four-bar-a's 10 s cycle in <= %.0f ms, i.e. >= %.0fx (penalty) and >= %.0fx "
        "(double-step): %s (median %.1f and %.1f ms; fastest repetition %.1f and %.1f ms)\n",
        1e3 * goal_wall, seed_runs[0].wall / goal_wall, seed_runs[1].wall / goal_wall,
        met ? "met" : "not met", 1e3 * pen->wall_med, 1e3 * ds->wall_med, 1e3 * pen->wall_min,
        1e3 * ds->wall_min);
  }
}

//----- seal friction (seed 002 Sect. 6.4) -------------------------------------------------------

// The friction laws' four-bar B cycles against the frictionless one, with the goals of the
// friction issue: time ratios and mean Newton iterations.
typedef struct friction_goal {
  const char* law;
  double max_ratio;  // largest time of the cycle over the frictionless one, 0 = no goal
  double max_iter;   // largest mean Newton iterations, 0 = no goal
} friction_goal;

static const friction_goal friction_goals[] = {
    {"coulomb", 0, 0},          {"bengisu-akay", 0, 0},      {"brown-mcphee", 1.2, 0},
    {"lugre", 1.6, 2.0},        {"lugre-film", 1.8, 2.0},
};
enum { NFRICTION = (int)(sizeof friction_goals / sizeof friction_goals[0]) };

static void print_friction_comparison(const bench_row* rows, int nrow) {
  for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
    const bench_row* base = find_row(rows, nrow, "four-bar-b", (hy_formulation)f);
    if (!base || !isnan(base->fail_t)) continue;
    int header = 0;
    const char* cheapest = NULL;
    const char* dearest = NULL;
    double t_min = INFINITY, t_max = 0;
    for (int k = 0; k < NFRICTION; k++) {
      char name[HY_NAME_MAX];
      snprintf(name, sizeof name, "four-bar-b-%s", friction_goals[k].law);
      const bench_row* r = find_row(rows, nrow, name, (hy_formulation)f);
      if (!r) continue;
      if (!header) {
        printf("\nseal friction, four-bar B 10 s cycle, %s (frictionless: %.2f ms, iter %.2f/%d)\n",
               hy_formulation_name((hy_formulation)f), 1e3 * base->wall_med, base->iter_mean,
               base->iter_max);
        printf("%-13s %10s %8s %9s %s\n", "law", "wall (ms)", "ratio", "iter", "goal");
        header = 1;
      }
      if (!isnan(r->fail_t)) {
        printf("%-13s FAILED at t = %g s\n", friction_goals[k].law, r->fail_t);
        continue;
      }
      const double ratio = r->wall_med / base->wall_med;
      char it[32], goal[96] = "-";
      snprintf(it, sizeof it, "%.2f/%d", r->iter_mean, r->iter_max);
      const friction_goal* g = &friction_goals[k];
      if (g->max_ratio > 0) {
        const int met = ratio <= g->max_ratio && (g->max_iter == 0 || r->iter_mean <= g->max_iter);
        if (g->max_iter > 0) {
          snprintf(goal, sizeof goal, "ratio <= %.1f, iter <= %.0f: %s", g->max_ratio, g->max_iter,
                   met ? "met" : "not met");
        } else {
          snprintf(goal, sizeof goal, "ratio <= %.1f: %s", g->max_ratio, met ? "met" : "not met");
        }
      }
      printf("%-13s %10.2f %8.2f %9s %s\n", g->law, 1e3 * r->wall_med, ratio, it, goal);
      if (k >= 1) {  // the seed's four laws (coulomb is hydyn's baseline)
        if (r->wall_med < t_min) t_min = r->wall_med, cheapest = g->law;
        if (r->wall_med > t_max) t_max = r->wall_med, dearest = g->law;
      }
    }
    if (cheapest && dearest) {
      const int holds = strcmp(cheapest, "brown-mcphee") == 0 && strcmp(dearest, "lugre-film") == 0;
      printf("seed 002's ordering (brown-mcphee cheapest, lugre-film dearest): %s (cheapest %s, "
             "dearest %s)\n",
             holds ? "holds" : "does not hold", cheapest, dearest);
    }
  }
}

//----- main ------------------------------------------------------------------------------------

static void usage(FILE* fp) {
  fputs(
      "usage: hydyn_bench [--reps N] [--model NAME] [--results DIR] [--no-write]\n"
      "\n"
      "Runs every built-in model for the model's t_end at its dt, N times (default 5): open\n"
      "trees with euler, semi-euler and rk4, models with cut joints or hydraulics with the\n"
      "penalty and the double-step formulation (trapezoidal rule). Prints the median wall time,\n"
      "time per step, real-time factor, Newton iterations, constraint violation and energy drift\n"
      "(in % of the released potential energy, or of the maximum actuator work for models with\n"
      "cylinders), then the speed-up of four-bar-a's 10 s work cycle over the MATLAB times of\n"
      "seed 000, and the seal friction laws' four-bar B cycles against the frictionless one\n"
      "(time ratio and Newton iterations, the goals of docs/friction.md). Writes DIR/explicit.csv (default DIR: bench/results/<hostname> in the source\n"
      "tree), comparing with the file it replaces.\n",
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
    // the tree formulation would ignore cut joints and cannot integrate pressures, so closed
    // loops and hydraulic models get the implicit methods
    const int loops = m->sizes.ncut > 0;
    const int hydraulic = m->sizes.nvol + m->sizes.nvlv + m->sizes.ncyl > 0;
    const int implicit = loops || hydraulic;
    const bench_method* methods = implicit ? loop_methods : tree_methods;
    const int nmethod = implicit ? (int)(sizeof loop_methods / sizeof loop_methods[0])
                                 : (int)(sizeof tree_methods / sizeof tree_methods[0]);
    for (int k = 0; k < nmethod && nrow < MAX_ROWS; k++) {
      bench_row* r = &rows[nrow];
      memset(r, 0, sizeof *r);
      snprintf(r->model, sizeof r->model, "%s", name);
      r->formulation = methods[k].form;
      r->integrator = methods[k].integ;
      r->loops = loops;
      r->cylinders = m->sizes.ncyl > 0;
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
      "step (mean, max); drift = peak energy drift, in %% of the potential energy released "
      "(%%pot) or, with cylinders, of the maximum actuator work (work, %%work)\n\n",
      HY_VERSION_STRING, HY_BUILD_TYPE[0] ? HY_BUILD_TYPE : "default", reps);
  printf("%-21s %-11s %-11s %6s %9s %8s %7s %5s %4s %9s %9s %9s %10s %9s %11s %7s\n", "model",
         "formulation", "integrator", "steps", "wall (ms)", "us/step", "rtf", "iter", "max",
         "viol (m)", "drift (J)", "drift rel", "drift %pot", "work (J)", "drift %work", "vs base");
  for (int i = 0; i < nrow; i++) {
    const bench_row* r = &rows[i];
    const double us = us_per_step(r);
    char base[16] = "-", iter[16] = "-", imax[16] = "-", viol[16] = "-", pct[16] = "-";
    char work[16] = "-", pctw[16] = "-";
    if (!isnan(r->work_max)) snprintf(work, sizeof work, "%.4g", r->work_max);
    if (!isnan(r->drift_pct_work)) snprintf(pctw, sizeof pctw, "%.3g", r->drift_pct_work);
    if (!isnan(r->base_us) && r->base_us > 0) snprintf(base, sizeof base, "%.2f", us / r->base_us);
    if (!isnan(r->iter_mean)) {
      snprintf(iter, sizeof iter, "%.2f", r->iter_mean);
      snprintf(imax, sizeof imax, "%d", r->iter_max);
    }
    if (r->loops) snprintf(viol, sizeof viol, "%.2g", r->violation_max);
    if (!isnan(r->drift_pct_pot)) snprintf(pct, sizeof pct, "%.3g", r->drift_pct_pot);
    printf("%-21s %-11s %-11s %6lld %9.2f %8.3f %7.4g %5s %4s %9s %9.3g %9.3g %10s %9s %11s %7s",
           r->model, hy_formulation_name(r->formulation), row_integrator(r), r->steps,
           1e3 * r->wall_med, us,
           r->wall_med > 0 ? (double)r->steps * r->dt / r->wall_med : INFINITY, iter, imax, viol,
           r->drift, r->drift_rel, pct, work, pctw, base);
    if (!isnan(r->fail_t)) printf("  FAILED at t = %g s", r->fail_t);
    putchar('\n');
  }
  print_seed_comparison(rows, nrow);
  print_friction_comparison(rows, nrow);
  if (write) {
    if (write_results(path, rows, nrow)) return 1;
    printf("\nwrote %s\n", path);
  }
  return failed ? 1 : 0;
}
