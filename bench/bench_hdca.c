// Seed 004 Figs. 10-11 (their numbers are lost): what the tolerance (rtol = atol) of a
// variable-step integrator costs the two divide-and-conquer formulations on the seed's three test
// cases, and what it buys in energy drift and loop closure (Figs. 5, 8-9 in shape). The rows are
// those of shared/seeds/hdca_cases.md, so that other engines' runs can be put beside them;
// bench/hdca-cases.gp draws the figures from the file.
#define _POSIX_C_SOURCE 200809L  // clock_gettime

#include "bench_hdca.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli_case_row.h"
#include "hydyn/hydyn.h"
#include "hydyn/names.h"

static const char* const cases[] = {"hdca-case1", "hdca-case2", "hdca-case3"};
static const hy_formulation engines[] = {HY_FORM_DCA, HY_FORM_HDCA};
static const hy_integrator integrators[] = {HY_INTEG_DOPRI5, HY_INTEG_BS23, HY_INTEG_ADAMS};
static const double tolerances[] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};
enum {
  NCASE = sizeof cases / sizeof cases[0],
  NENGINE = sizeof engines / sizeof engines[0],
  NINTEG = sizeof integrators / sizeof integrators[0],
  NTOL = sizeof tolerances / sizeof tolerances[0],
  NRUN = NCASE * NENGINE * NINTEG * NTOL,
  MAX_REPS = 101,
};

// The seed's columns, then the cost of an evaluation, the tolerance and what became of the run.
static const char* const header = HY_CASE_ROW_HEADER ",rhs_evals,us_per_eval,tolerance,status";

typedef enum run_status { RUN_OK, RUN_FAILED, RUN_REFUSED } run_status;
static const char* const status_name[] = {"ok", "failed", "refused"};

typedef struct hdca_run {
  hy_case_row row;  // wall: the median
  long rhs_evals;
  double tol;
  run_status status;
} hdca_run;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double median(double* v, int n) {
  for (int i = 1; i < n; i++) {  // insertion sort: n is a handful
    const double x = v[i];
    int j = i - 1;
    for (; j >= 0 && v[j] > x; j--) v[j + 1] = v[j];
    v[j + 1] = x;
  }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One CSV line of a run; a refused run has its names and nothing measured.
static void format_run(const hdca_run* r, char* buf, size_t size) {
  if (r->status == RUN_REFUSED) {
    snprintf(buf, size, "%s,%s,%d,%s,%.6g,,,,,,,,%.0e,%s", r->row.engine, r->row.case_name,
             r->row.n, r->row.integrator, r->row.dt, r->tol, status_name[r->status]);
    return;
  }
  char row[256];
  hy_case_row_format(&r->row, row, sizeof row);
  const double us_eval = r->rhs_evals > 0 ? 1e6 * r->row.wall / (double)r->rhs_evals : NAN;
  snprintf(buf, size, "%s,%ld,%.6g,%.0e,%s", row, r->rhs_evals, us_eval, r->tol,
           status_name[r->status]);
}

// Builds case `name` for one engine, integrator and tolerance and runs it reps times from its
// initial state through hy_run (the stepping loop only is timed). Returns 0, or -1 when the model
// cannot be built (a bug: the case names are fixed).
static int run_case(const char* name, hy_formulation form, hy_integrator integ, double tol,
                    double dt, int reps, hdca_run* out) {
  memset(out, 0, sizeof *out);
  out->tol = tol;
  hy_model* m = NULL;
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  if (hy_model_family(name, &m, &err) != HY_OK) {
    fprintf(stderr, "hydyn_bench: hdca cases, %s: %s\n", name, err.msg);
    return -1;
  }
  m->opt.formulation = form;
  m->opt.integrator = integ;
  m->opt.ode_tol = tol;
  if (dt > 0) m->opt.dt = dt;
  // the row's names, also for a run that is refused
  hy_case_of(m, out->row.case_name, sizeof out->row.case_name, &out->row.n);
  snprintf(out->row.engine, sizeof out->row.engine, "hydyn-%s", hy_formulation_name(form));
  out->row.integrator = hy_integrator_name(integ);
  out->row.dt = m->opt.dt;
  if (hy_data_make(m, &d, &err) != HY_OK) {
    // a case the formulation does not handle (yet) is a result, said with the library's reason
    char buf[1024];
    hy_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "hydyn_bench: %s %s %s %.0e refused: %s\n", name, hy_formulation_name(form),
            hy_integrator_name(integ), tol, buf);
    out->status = RUN_REFUSED;
    hy_model_free(m);
    return 0;
  }
  double walls[MAX_REPS];
  hy_run_summary sum;
  long long steps0 = -1;
  int done = 0;
  for (int r = 0; r < reps; r++) {
    if (r > 0 && hy_data_reset(m, d) != HY_OK) break;
    hy_run(m, d, NULL, &sum);
    walls[done++] = sum.wall;
    if (sum.status != HY_OK) {
      char buf[1024];
      hy_error_format(&d->err, buf, sizeof buf);
      fprintf(stderr, "hydyn_bench: %s %s %s %.0e failed at t = %g s: %s\n", name,
              hy_formulation_name(form), hy_integrator_name(integ), tol, sum.t_fail, buf);
      out->status = RUN_FAILED;
      break;
    }
    // a reset starts the integrator afresh, so every repetition takes the same steps; say so if
    // one does not, since the median would then mix different work
    if (steps0 >= 0 && d->stats.nsubstep != steps0) {
      fprintf(stderr, "hydyn_bench: %s %s %s %.0e: repetition %d took %ld steps, the first %lld\n",
              name, hy_formulation_name(form), hy_integrator_name(integ), tol, r + 1,
              d->stats.nsubstep, steps0);
    }
    steps0 = d->stats.nsubstep;
  }
  // counts and errors of the last repetition, the median wall time
  hy_case_row_of_run(m, d, &sum, &out->row);
  out->row.wall = median(walls, done);
  out->rhs_evals = d->stats.nrhs;
  hy_data_free(d);
  hy_model_free(m);
  return 0;
}

static int write_file(const char* path, const hdca_run* runs, int nrun) {
  FILE* fp = fopen(path, "w");
  if (!fp) {
    fprintf(stderr, "hydyn_bench: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  fprintf(fp, "%s\n", header);
  for (int i = 0; i < nrun; i++) {
    char line[512];
    format_run(&runs[i], line, sizeof line);
    fprintf(fp, "%s\n", line);
  }
  if (fclose(fp) != 0) {
    fprintf(stderr, "hydyn_bench: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

int bench_hdca_cases(int reps, double dt, const char* path) {
  static hdca_run runs[NRUN];
  if (reps > MAX_REPS) reps = MAX_REPS;
  printf(
      "\nhdca cases: the 10 s runs of shared/seeds/hdca_cases.md by tolerance (seed 004 Figs. "
      "10-11), output every %g s, median wall of %d, stepping loop only\n",
      dt > 0 ? dt : 1e-3 /* the families' dt (hy_model_family) */, reps);
  printf("%s\n", header);
  fflush(stdout);
  const double t0 = now();
  int nrun = 0, failed = 0, refused = 0;
  for (int c = 0; c < NCASE; c++) {
    for (int e = 0; e < NENGINE; e++) {
      for (int i = 0; i < NINTEG; i++) {
        for (int k = 0; k < NTOL; k++) {
          hdca_run* r = &runs[nrun];
          if (run_case(cases[c], engines[e], integrators[i], tolerances[k], dt, reps, r) != 0) {
            return 1;
          }
          failed += r->status == RUN_FAILED;
          refused += r->status == RUN_REFUSED;
          char line[512];
          format_run(r, line, sizeof line);
          printf("%s\n", line);
          fflush(stdout);  // a row as soon as it is measured: the sweep takes a while
          nrun++;
        }
      }
    }
  }
  printf("hdca cases: %d runs (%d failed, %d refused) in %.0f s\n", nrun, failed, refused,
         now() - t0);
  if (path) {
    if (write_file(path, runs, nrun)) return 1;
    printf("wrote %s\n", path);
  }
  return 0;
}
