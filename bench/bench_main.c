// hydyn_bench [MODEL ...]: models, each for its own t_end at its own dt, timed over several
// repetitions. A MODEL is a file or the name of a built-in model or family member (as `hydyn
// run` takes it); none means every built-in model. Open trees run with every explicit integrator
// (tree formulation); models with cut joints or hydraulics, which the tree formulation cannot
// run, with penalty and with double-step (both trapezoidal-Newton; the hydraulic work cycles
// four-bar-a, quick-return, four-bar-b and crane for their full 10 s at dt = 1 ms, timber-crane
// for its 20 s). Prints a table, then hydyn's time for the work cycle of four-bar A against the
// MATLAB times of seed 000, the friction laws' four-bar B cycles against the frictionless one
// (seed 002 Sect. 6.4), the timber crane's cycle against its goal of 100 times real time, and
// what recording every step of four-bar A to CSV and to HDF5 costs over the run without output.
// Writes <build>/bench/results/<hostname>/explicit.csv (the name predates the closed-loop rows;
// kept so that older results stay the baseline); when that file already exists, its time per
// step is the baseline the new run is compared with (the "vs base" column) before it is
// replaced, and its rows of cases this run left out are carried over. A fresh build folder
// compares with this machine's committed record in bench/results/<hostname>/ instead.
//
// A step failure (forward Euler blowing up, say) is a result, shown in the table and the file;
// the exit status is 1 only when a model cannot be loaded or set up, a recording fails (a format
// missing from the build aside), or the results file cannot be written. "vs base" is the new
// time per step over the baseline's: below 1 is faster. The table times hy_step only (no
// recorder); the recording figure goes through the results writer of src/io, the one
// `hydyn run --out` uses.
#define _POSIX_C_SOURCE 200809L  // clock_gettime, gethostname, mkdir, stat, unlink

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hydyn/channels.h"
#include "hydyn/hydyn.h"
#include "hydyn/names.h"
#include "io/io.h"

#include "bench_cosim.h"
#include "bench_hdca.h"
#include "bench_linear.h"
#include "bench_scaling.h"

// CMake passes <build>/bench/results and the source tree's bench/results (the committed records,
// read only); a build without them writes below the working directory.
#ifndef HY_BENCH_RESULTS_DIR
#define HY_BENCH_RESULTS_DIR "bench-results"
#endif
#ifndef HY_BENCH_RECORDS_DIR
#define HY_BENCH_RECORDS_DIR "bench/results"
#endif

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

// The rows of the previous results file that this run did not redo (another set of models
// was given), kept as they were: the file then always holds the latest figures of every case.
typedef struct carried_rows {
  int n;
  char line[MAX_ROWS][1024];
} carried_rows;

// Reads the previous results: the baselines of the rows (matched by model, formulation and
// integrator), and into *keep the lines of the cases the rows do not hold. Columns are found by
// name, so files written before the formulation column (all rows then used the tree
// formulation) still serve as baselines; only a file with the current header has lines kept.
// Nullable: keep (baselines only).
static void read_previous(const char* path, bench_row* rows, int nrow, carried_rows* keep) {
  if (keep) keep->n = 0;
  FILE* fp = fopen(path, "r");
  if (!fp) return;
  enum { MAXF = 32 };
  char head[1024], line[1024], copy[1024];
  char* names[MAXF];
  char* field[MAXF];
  if (!fgets(head, sizeof head, fp)) head[0] = '\0';
  const int same_header = strcmp(head, csv_header) == 0;
  const int nh = split_fields(head, names, MAXF);
  const int c_model = column(names, nh, "model"), c_form = column(names, nh, "formulation");
  const int c_integ = column(names, nh, "integrator"), c_us = column(names, nh, "us_per_step");
  const int c_status = column(names, nh, "status");
  if (c_model < 0 || c_integ < 0 || c_us < 0 || c_status < 0) {
    fclose(fp);
    return;
  }
  while (fgets(line, sizeof line, fp)) {
    snprintf(copy, sizeof copy, "%s", line);
    const int nf = split_fields(line, field, MAXF);
    if (nf != nh) continue;
    const char* form = c_form >= 0 ? field[c_form] : hy_formulation_name(HY_FORM_TREE);
    int matched = 0;
    for (int i = 0; i < nrow; i++) {
      if (strcmp(rows[i].model, field[c_model]) == 0 &&
          strcmp(hy_formulation_name(rows[i].formulation), form) == 0 &&
          strcmp(row_integrator(&rows[i]), field[c_integ]) == 0) {
        matched = 1;
        if (strcmp(field[c_status], "ok") == 0) rows[i].base_us = strtod(field[c_us], NULL);
      }
    }
    if (keep && !matched && same_header && keep->n < MAX_ROWS) {
      copy[strcspn(copy, "\r\n")] = '\0';
      snprintf(keep->line[keep->n++], sizeof keep->line[0], "%s", copy);
    }
  }
  fclose(fp);
}

static int write_results(const char* path, const bench_row* rows, int nrow,
                         const carried_rows* keep) {
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
  for (int i = 0; i < keep->n; i++) fprintf(fp, "%s\n", keep->line[i]);
  if (fclose(fp) != 0) {
    fprintf(stderr, "hydyn_bench: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

// mkdir -p: the results folder is two levels below a build folder that may be fresh.
static int make_dirs(const char* path) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", path);
  for (char* p = buf + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    const char c = *p;
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
      fprintf(stderr, "hydyn_bench: cannot create %s: %s\n", buf, strerror(errno));
      return -1;
    }
    if (c == '\0') return 0;
    *p = c;
  }
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

//----- timber crane -----------------------------------------------------------------------------

// The goal of the timber crane issue: its 20 s work cycle at dt = 1 ms, with each closed-loop
// formulation, at least this many times faster than real time on one core.
static const double crane_goal_rtf = 100;
static const char* const crane_model = "timber-crane";

// The crane's cycle under penalty and double-step: the fastest repetition judges the goal (the
// machine's speed wanders by up to 2x, and the fastest repetition wanders least), the median is
// shown beside it; then what the cycle costs in accuracy, the Newton iterations, the largest
// loop-closure violation and the peak energy drift.
static void print_timber_crane(const bench_row* rows, int nrow) {
  int header = 0;
  for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
    const bench_row* r = find_row(rows, nrow, crane_model, (hy_formulation)f);
    if (!r) continue;
    if (!header) {
      printf("\n%s: %g s work cycle at dt = %g ms, fastest of %d repetitions (median beside it)\n",
             crane_model, r->t_end, 1e3 * r->dt, r->reps);
      printf("%-11s %10s %10s %8s %7s %9s %9s %9s %11s %s\n", "formulation", "wall (ms)",
             "median", "rtf", "iter", "viol (m)", "drift (J)", "drift rel", "drift %work",
             "goal");
      header = 1;
    }
    printf("%-11s ", hy_formulation_name((hy_formulation)f));
    if (!isnan(r->fail_t)) {
      printf("FAILED at t = %g s\n", r->fail_t);
      continue;
    }
    const double rtf = r->wall_min > 0 ? r->t_end / r->wall_min : INFINITY;
    char it[32], viol[16] = "-", pctw[16] = "-";
    snprintf(it, sizeof it, "%.2f/%d", r->iter_mean, r->iter_max);
    if (r->loops) snprintf(viol, sizeof viol, "%.2g", r->violation_max);
    if (!isnan(r->drift_pct_work)) snprintf(pctw, sizeof pctw, "%.3g", r->drift_pct_work);
    printf("%10.2f %10.2f %7.1fx %7s %9s %9.3g %9.3g %11s rtf >= %.0fx on one core: %s\n",
           1e3 * r->wall_min, 1e3 * r->wall_med, rtf, it, viol, r->drift, r->drift_rel, pctw,
           crane_goal_rtf, rtf >= crane_goal_rtf ? "met" : "not met");
  }
}

//----- cost of recording ----------------------------------------------------------------------

// The goal of the results issue: recording every step of four-bar A to HDF5 costs at most this
// many times the run without output.
static const double record_goal = 1.5;
static const char* const record_model = "four-bar-a";

enum { REC_NONE, REC_CSV, REC_HDF5, NREC };
static const char* const rec_label[NREC] = {"no output", "CSV", "HDF5"};
static const char* const rec_file[NREC] = {NULL, "record.csv", "record.h5"};

// The recorder `hydyn run --out` uses, reduced to what is timed: the default channels of the
// data, evaluated and handed to the results writer after every step.
typedef struct recorder {
  hy_channels* ch;
  int* sel;
  int n;
  double* row;
  const char** names;
  const char** units;
  hy_writer* w;
  hy_error err;
} recorder;

static hy_status record_row(void* user, const hy_model* m, const hy_data* d) {
  recorder* r = user;
  (void)m;
  hy_channels_eval(r->ch, d, r->sel, r->n, r->row);
  return hy_writer_row(r->w, r->row, &r->err);
}

typedef struct record_result {
  int ran;    // 1 when the model was recorded
  int nchan;  // channels per row, time included
  long rows;  // rows of a file
  long long steps;
  double dt, t_end;
  double wall[NREC];       // fastest repetition, writer open to close (s); NAN when not run
  long bytes[NREC];        // size of the file
  hy_status status[NREC];  // HY_ERR_DEP: the format is not in this build
  char msg[NREC][512];     // why a case failed (hy_error.msg)
} record_result;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// One repetition of case k from the initial state: opens the file, runs, closes it. The time
// includes opening and closing, which the user of `hydyn run --out` waits for too.
static hy_status record_once(const hy_model* m, hy_data* d, recorder* r, int k, const char* path,
                             record_result* res, double* wall) {
  memset(&r->err, 0, sizeof r->err);
  hy_status s = hy_data_reset(m, d);
  if (s != HY_OK) {
    snprintf(res->msg[k], sizeof res->msg[k], "hy_data_reset: %s", hy_status_str(s));
    return s;
  }
  const double t0 = now();
  hy_run_options o = hy_run_options_default();
  if (k != REC_NONE) {
    const hy_results_meta meta = {m->name, NULL, NULL};
    s = hy_writer_open(path, r->n, r->names, r->units, &meta, &r->w, &r->err);
    if (s != HY_OK) {
      snprintf(res->msg[k], sizeof res->msg[k], "%s",
               r->err.msg[0] ? r->err.msg : hy_status_str(s));
      return s;
    }
    o.record = record_row;
    o.record_user = r;
  }
  hy_run_summary sum;
  s = hy_run(m, d, &o, &sum);
  if (k != REC_NONE) {
    if (s == HY_OK) res->rows = hy_writer_rows(r->w);
    hy_error close_err;
    memset(&close_err, 0, sizeof close_err);
    const hy_status c = hy_writer_close(r->w, NULL, &close_err);
    r->w = NULL;
    if (s == HY_OK && c != HY_OK) s = c, r->err = close_err;
  }
  *wall = now() - t0;
  res->steps = sum.steps;
  if (s != HY_OK) {
    snprintf(res->msg[k], sizeof res->msg[k], "%s", r->err.msg[0] ? r->err.msg : hy_status_str(s));
    return s;
  }
  if (k != REC_NONE) {
    struct stat st;
    res->bytes[k] = stat(path, &st) == 0 ? (long)st.st_size : -1;
    unlink(path);  // several MB that nobody reads: only the time was wanted
  }
  return HY_OK;
}

// Runs model m (the options it was loaded with, as `hydyn run` would) `reps` times without
// output, recording every step to CSV and to HDF5 in dir; the cases take turns, so that a change
// in the machine's speed touches all three alike. Returns -1 when the data cannot be made or a
// format other than an unavailable one fails.
static int bench_recording(const hy_model* m, int reps, const char* dir, record_result* res) {
  memset(res, 0, sizeof *res);
  res->ran = 1;
  res->dt = m->opt.dt;
  res->t_end = m->opt.t_end;
  for (int k = 0; k < NREC; k++) res->wall[k] = NAN;
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  recorder r;
  memset(&r, 0, sizeof r);
  int rc = -1;
  if (hy_data_make(m, &d, &err) != HY_OK || hy_channels_make(m, d, &r.ch, &err) != HY_OK ||
      hy_channels_select(r.ch, NULL, &r.sel, &r.n, &err) != HY_OK) {
    char buf[1024];
    hy_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "hydyn_bench: recording %s: %s\n", m->name, buf);
    goto done;
  }
  r.row = calloc((size_t)r.n, sizeof *r.row);
  r.names = calloc((size_t)r.n, sizeof *r.names);
  r.units = calloc((size_t)r.n, sizeof *r.units);
  if (!r.row || !r.names || !r.units) {
    fprintf(stderr, "hydyn_bench: recording %s: out of memory\n", m->name);
    goto done;
  }
  for (int i = 0; i < r.n; i++) {
    r.names[i] = r.ch->ch[r.sel[i]].name;
    r.units[i] = r.ch->ch[r.sel[i]].unit;
  }
  res->nchan = r.n;
  rc = 0;
  for (int rep = 0; rep < reps; rep++) {
    for (int k = 0; k < NREC; k++) {
      if (res->status[k] != HY_OK) continue;  // failed or unavailable: said once
      char path[1024] = "";
      if (rec_file[k]) snprintf(path, sizeof path, "%s/%s", dir, rec_file[k]);
      double wall = NAN;
      res->status[k] = record_once(m, d, &r, k, path, res, &wall);
      if (res->status[k] != HY_OK) {
        res->wall[k] = NAN;
        if (res->status[k] != HY_ERR_DEP) rc = -1;
        if (rec_file[k]) unlink(path);
        continue;
      }
      if (isnan(res->wall[k]) || wall < res->wall[k]) res->wall[k] = wall;
    }
  }
done:
  free(r.row);
  free(r.names);
  free(r.units);
  hy_channels_free_selection(r.sel);
  hy_channels_free(r.ch);
  hy_data_free(d);
  return rc;
}

static void print_recording(const record_result* res, int reps) {
  if (!res->ran) return;
  printf(
      "\nrecording %s: %g s at dt = %g s, every step (%lld steps, %ld rows of %d channels), "
      "fastest of %d, writer opened and closed included\n",
      record_model, res->t_end, res->dt, res->steps, res->rows, res->nchan, reps);
  printf("%-10s %10s %8s %9s %s\n", "output", "wall (ms)", "ratio", "file (MB)", "goal");
  const double base = res->wall[REC_NONE];
  for (int k = 0; k < NREC; k++) {
    if (res->status[k] == HY_ERR_DEP) {
      printf("%s: not available in this build\n", rec_label[k]);
      continue;
    }
    if (res->status[k] != HY_OK) {
      printf("%-10s FAILED: %s\n", rec_label[k], res->msg[k]);
      continue;
    }
    char ratio[32] = "-", size[32] = "-", goal[64] = "-";
    const int has_base = res->status[REC_NONE] == HY_OK;
    if (k != REC_NONE) {
      if (has_base) snprintf(ratio, sizeof ratio, "%.2f", res->wall[k] / base);
      if (res->bytes[k] >= 0) snprintf(size, sizeof size, "%.2f", res->bytes[k] / 1e6);
    }
    if (k == REC_HDF5 && has_base) {
      snprintf(goal, sizeof goal, "ratio <= %.1f: %s", record_goal,
               res->wall[k] / base <= record_goal ? "PASS" : "FAIL");
    }
    printf("%-10s %10.2f %8s %9s %s\n", rec_label[k], 1e3 * res->wall[k], ratio, size, goal);
  }
}

//----- main ------------------------------------------------------------------------------------

static void usage(FILE* fp) {
  fputs(
      "usage: hydyn_bench [--reps N] [--results DIR] [--no-write] [--no-record] [--no-cosim]\n"
      "                   [--scaling] [--hdca-cases] [--hdca-dt SECONDS] [MODEL ...]\n"
      "\n"
      "Runs each MODEL (a model file, or the name of a built-in model or family member; none:\n"
      "every built-in model) for the model's t_end at its dt, N times (default 5): open trees\n"
      "with euler, semi-euler and rk4, models with cut joints or hydraulics with the penalty and\n"
      "the double-step formulation (trapezoidal rule). Prints the median wall time, time per\n"
      "step, real-time factor, Newton iterations, constraint violation and energy drift (in % of\n"
      "the released potential energy, or of the maximum actuator work for models with cylinders),\n"
      "then the speed-up of four-bar-a's 10 s work cycle over the MATLAB times of seed 000, the\n"
      "seal friction laws' four-bar B cycles against the frictionless one (time ratio and Newton\n"
      "iterations, the goals of docs/friction.md), when timber-crane is run, its 20 s work cycle\n"
      "with each formulation (fastest repetition, real-time factor, goal: at least 100x on one\n"
      "core; iterations, constraint violation, energy drift), and, when four-bar-a is run, what\n"
      "recording its every step to CSV and to HDF5 costs over the run without output (goal for\n"
      "HDF5: at most 1.5 times; --no-record leaves it out), and, when crane is run, its\n"
      "co-simulation: the real-time factor at H = 1 ms, h_h = 0.1 ms beside the monolithic run\n"
      "(goal 200x) and the achievable H of each configuration by the takeoff rule of\n"
      "docs/cosim.md (goal for the best: 10 ms; --no-cosim leaves it out), and, when four-bar-3d\n"
      "is run, the time of its reduced Jacobian beside the counterpart's (goal: 20 us), and with\n"
      "--scaling the cost of one evaluation of the accelerations of chain-N and loop-N, N = 4 ...\n"
      "4096, with the divide-and-conquer formulations beside the tree formulation (docs/hdca.md),\n"
      "written to DIR/scaling.csv. --hdca-cases runs hdca-case1..3 for 10 s with dca and hdca,\n"
      "each by dopri5, bs23 and adams at tolerances 1e-3 ... 1e-9 (median wall of 3 runs, or of\n"
      "--reps N when given; about a minute) and prints and writes DIR/hdca-cases.csv, the rows of\n"
      "shared/seeds/hdca_cases.md with rhs_evals, us_per_eval, tolerance and status; --hdca-dt\n"
      "SECONDS gives their state every SECONDS (0 < SECONDS <= 10) instead of every 1 ms, the\n"
      "models' dt. Writes DIR/explicit.csv\n"
      "(default DIR: " HY_BENCH_RESULTS_DIR
      "/<hostname>), comparing with the file it replaces (in a fresh\n"
      "build folder: with the committed record " HY_BENCH_RECORDS_DIR
      "/<hostname>/explicit.csv)\n"
      "and keeping its rows of models not run this time. --no-write writes none of these\n"
      "files. --model NAME is the same as NAME.\n",
      fp);
}

// The name a model goes by in the table and the results file: a built-in or family name as
// given, a file by its base name without .yaml, so that models/four-bar-a.yaml and four-bar-a
// share their baseline and the comparisons with the seeds.
static void model_label(const char* what, char* out, size_t size) {
  struct stat st;
  if (stat(what, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(out, size, "%s", what);
    return;
  }
  const char* base = strrchr(what, '/');
  base = base ? base + 1 : what;
  snprintf(out, size, "%s", base);
  const size_t n = strlen(out);
  if (n > 5 && strcmp(out + n - 5, ".yaml") == 0) out[n - 5] = '\0';
  if (n > 4 && strcmp(out + n - 4, ".yml") == 0) out[n - 4] = '\0';
}

int main(int argc, char** argv) {
  int reps = 5, reps_given = 0, write = 1, record = 1, cosim = 1, scaling = 0, hdca_cases = 0;
  double hdca_dt = 0;  // 0: the models' own dt
  const char* dir = NULL;
  static const char* models[MAX_ROWS];
  int nmodel = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      char* end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > MAX_REPS) {
        fprintf(stderr, "hydyn_bench: --reps must be 1..%d\n", MAX_REPS);
        return 2;
      }
      reps = (int)v;
      reps_given = 1;
    } else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc && nmodel < MAX_ROWS) {
      models[nmodel++] = argv[++i];
    } else if (strcmp(argv[i], "--results") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (strcmp(argv[i], "--no-write") == 0) {
      write = 0;
    } else if (strcmp(argv[i], "--no-record") == 0) {
      record = 0;
    } else if (strcmp(argv[i], "--no-cosim") == 0) {
      cosim = 0;
    } else if (strcmp(argv[i], "--scaling") == 0) {
      scaling = 1;
    } else if (strcmp(argv[i], "--hdca-cases") == 0) {
      hdca_cases = 1;
    } else if (strcmp(argv[i], "--hdca-dt") == 0 && i + 1 < argc) {
      char* end;
      hdca_dt = strtod(argv[++i], &end);
      if (*end || !(hdca_dt > 0) || hdca_dt > 10) {
        fprintf(stderr, "hydyn_bench: --hdca-dt must be a number of seconds in (0, 10]\n");
        return 2;
      }
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (argv[i][0] != '-' && nmodel < MAX_ROWS) {
      models[nmodel++] = argv[i];
    } else {
      usage(stderr);
      return 2;
    }
  }
  const int given = nmodel > 0;
  if (!given) {
    for (int i = 0; i < hy_builtin_count() && nmodel < MAX_ROWS; i++) {
      models[nmodel++] = hy_builtin_name(i);
    }
  }

  // The results (and the recording's scratch files) go under the build folder, never into the
  // source tree, whose bench/results/ are records of earlier rounds.
  char host[256] = "unknown";
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
  host[sizeof host - 1] = '\0';
  for (char* p = host; *p; p++) {
    if (*p == '/') *p = '_';
  }
  char auto_dir[768];
  const int default_dir = dir == NULL;
  if (default_dir) {
    snprintf(auto_dir, sizeof auto_dir, "%s/%s", HY_BENCH_RESULTS_DIR, host);
    dir = auto_dir;
  }

  static bench_row rows[MAX_ROWS];
  static record_result rec;
  int nrow = 0, failed = 0;
  for (int i = 0; i < nmodel; i++) {
    char name[HY_NAME_MAX];
    model_label(models[i], name, sizeof name);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    if (hy_model_load_any(models[i], &m, &err) != HY_OK) {
      char buf[1024];
      hy_error_format(&err, buf, sizeof buf);
      fprintf(stderr, "hydyn_bench: %s: %s\n", models[i], buf);
      failed = 1;
      continue;
    }
    // with the options the model was loaded with, before the loop below sets its own
    if (record && !rec.ran && strcmp(name, record_model) == 0) {
      if (make_dirs(dir) || bench_recording(m, reps, dir, &rec)) failed = 1;
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
  if (given && nrow == 0) {
    fprintf(stderr, "hydyn_bench: none of the models given could be run\n");
    return 1;
  }

  char path[1024] = "", committed[1024] = "";
  static carried_rows keep;
  if (write) {
    if (make_dirs(dir)) return 1;
    snprintf(path, sizeof path, "%s/explicit.csv", dir);
    struct stat st;
    if (stat(path, &st) == 0) {
      read_previous(path, rows, nrow, &keep);
    } else if (default_dir) {
      // A fresh build folder has no results yet: this machine's committed record, when there
      // is one, is the baseline. It is only read; its rows are not carried into the new file.
      snprintf(committed, sizeof committed, "%s/%s/explicit.csv", HY_BENCH_RECORDS_DIR, host);
      if (stat(committed, &st) == 0) {
        read_previous(committed, rows, nrow, NULL);
      } else {
        committed[0] = '\0';
      }
    }
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
  print_timber_crane(rows, nrow);
  print_recording(&rec, reps);
  // the co-simulation figures of the crane, when it is run
  if (cosim && find_row(rows, nrow, "crane", HY_FORM_PENALTY) && bench_cosim(reps)) failed = 1;
  // the linearization's cost, when the 3-D four-bar is run
  if (find_row(rows, nrow, "four-bar-3d", HY_FORM_PENALTY) && bench_linear(reps)) failed = 1;
  if (scaling || hdca_cases) {
    char file[1024];
    if (write && make_dirs(dir)) return 1;
    if (scaling) {
      snprintf(file, sizeof file, "%s/scaling.csv", dir);
      if (bench_scaling(reps, write ? file : NULL)) failed = 1;
    }
    // the seed asks for the median of 3 runs; each of the 126 runs lasts up to a few tenths of
    // a second, so the default 5 would only make the sweep longer
    if (hdca_cases) {
      snprintf(file, sizeof file, "%s/hdca-cases.csv", dir);
      if (bench_hdca_cases(reps_given ? reps : 3, hdca_dt, write ? file : NULL)) failed = 1;
    }
  }
  if (write) {
    if (write_results(path, rows, nrow, &keep)) return 1;
    printf("\nwrote %s", path);
    if (keep.n > 0) printf(" (and kept %d rows of models not run this time)", keep.n);
    if (committed[0]) printf(" (baseline: the committed record %s)", committed);
    putchar('\n');
  }
  return failed ? 1 : 0;
}
