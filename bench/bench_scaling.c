// The cost of the right-hand side against the number of bodies N: the divide-and-conquer
// formulations dca and hdca (O(N), src/form/form_dca.c) beside the semi-recursive tree formulation
// (a dense mass matrix, O(N^3)), on the pendulum chains and the closed polygons of ../shared/seeds/
// hdca_cases.md (hy_forward: kinematics, forces, accelerations), each at a state 0.05 s into the
// swing.
#define _POSIX_C_SOURCE 200809L
#include "bench_scaling.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hydyn/hydyn.h"
#include "hydyn/names.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// What became of one timing.
typedef enum timing_status {
  TIMED = 0,    // *us holds the time
  NOT_RUN = 1,  // a warm-up step or the evaluation fails (a result, said on stderr)
  BROKEN = -1,  // the model or its data could not be made
} timing_status;

// Median over reps of the mean time of one hy_forward of `family`-n, in batches of at least
// 20 ms, after 50 steps of 1 ms (rk4).
static timing_status time_forward(const char* family, int n, hy_formulation form, int threads,
                                  int reps, double* us) {
  char name[32];
  snprintf(name, sizeof name, "%s-%d", family, n);
  *us = NAN;
  hy_model* m = NULL;
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  if (hy_model_family(name, &m, &err) != HY_OK) goto fail;
  m->opt.formulation = form;
  m->opt.integrator = HY_INTEG_RK4;
  m->opt.threads = threads;
  if (hy_data_make(m, &d, &err) != HY_OK) goto fail;
  // A failing step or evaluation is a result (said, and the size left out of the fit): the
  // time of an evaluation that returns early, or at a state gone wrong, would mean nothing.
  hy_status s = HY_OK;
  for (int k = 0; k < 50 && s == HY_OK; k++) s = hy_step(m, d);
  if (s == HY_OK) s = hy_forward(m, d);
  if (s != HY_OK) {
    char buf[1024];
    hy_error_format(&d->err, buf, sizeof buf);
    fprintf(stderr, "hydyn_bench: scaling, %s %s (%d thread%s): not timed: %s\n", name,
            hy_formulation_name(form), threads, threads > 1 ? "s" : "", buf);
    hy_data_free(d);
    hy_model_free(m);
    return NOT_RUN;
  }
  enum { MAX_REPS = 101 };
  double t[MAX_REPS];
  if (reps > MAX_REPS) reps = MAX_REPS;
  long batch = 1;
  for (;;) {
    const double t0 = now();
    for (long k = 0; k < batch; k++) hy_forward(m, d);
    if (now() - t0 > 0.02 || batch > (1L << 24)) break;
    batch *= 2;
  }
  for (int r = 0; r < reps; r++) {
    const double t0 = now();
    for (long k = 0; k < batch; k++) hy_forward(m, d);
    t[r] = (now() - t0) / (double)batch;
  }
  for (int i = 1; i < reps; i++) {
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      const double v = t[j];
      t[j] = t[j - 1];
      t[j - 1] = v;
    }
  }
  *us = 1e6 * t[reps / 2];
  hy_data_free(d);
  hy_model_free(m);
  return TIMED;
fail:
  fprintf(stderr, "hydyn_bench: scaling, %s: %s\n", name, err.msg);
  hy_data_free(d);
  hy_model_free(m);
  return BROKEN;
}

// 32 and 100 between the powers of 4, for the figure.
static const int sizes[] = {4, 16, 32, 64, 100, 256, 1024, 4096};
enum { NSIZE = sizeof sizes / sizeof sizes[0] };

// One family's timings: [formulation][threads - 1][size], NAN where not timed.
typedef struct family_times {
  const char* family;
  double us[3][2][NSIZE];  // dca, hdca, tree
} family_times;

static const hy_formulation forms[3] = {HY_FORM_DCA, HY_FORM_HDCA, HY_FORM_TREE};

// "%12.2f" of a time, or "-" where there is none.
static const char* cell(double v, const char* fmt, char* buf, size_t size) {
  if (isnan(v)) {
    snprintf(buf, size, "%12s", "-");
  } else {
    snprintf(buf, size, fmt, v);
  }
  return buf;
}

// Times the family with dca and hdca on 1 and 2 threads and, for the chains up to N = 256, the
// tree formulation (which cannot close loops); prints the table. Returns 0, or 1 when a model
// could not be made.
static int time_family(family_times* ft, int reps) {
  const int chain = strcmp(ft->family, "chain") == 0;
  for (int f = 0; f < 3; f++) {
    for (int th = 0; th < 2; th++) {
      for (int i = 0; i < NSIZE; i++) ft->us[f][th][i] = NAN;
    }
  }
  printf("\nscaling: one evaluation of the right-hand side of %s-N (hy_forward)\n", ft->family);
  printf("%6s %12s %12s %12s %12s %12s %12s %12s\n", "N", "dca (us)", "per body", "2 threads",
         "hdca (us)", "per body", "2 threads", chain ? "tree (us)" : "");
  for (int i = 0; i < NSIZE; i++) {
    const int n = sizes[i];
    for (int f = 0; f < 3; f++) {
      if (forms[f] == HY_FORM_TREE && (!chain || n > 256)) continue;
      for (int th = 0; th < (forms[f] == HY_FORM_TREE ? 1 : 2); th++) {
        const timing_status s =
            time_forward(ft->family, n, forms[f], th + 1, reps, &ft->us[f][th][i]);
        if (s == BROKEN) return 1;
        // the same arithmetic on 2 threads (bit-identical results) would fail alike
        if (s == NOT_RUN) break;
      }
    }
    char c[8][32];
    const double* dca = ft->us[0][0];
    const double* dca2 = ft->us[0][1];
    const double* hdca = ft->us[1][0];
    const double* hdca2 = ft->us[1][1];
    printf("%6d %s %s %s %s %s %s %s\n", n, cell(dca[i], "%12.2f", c[0], sizeof c[0]),
           cell(dca[i] / n, "%12.4f", c[1], sizeof c[1]),
           cell(dca[i] / dca2[i], "%11.2fx", c[2], sizeof c[2]),
           cell(hdca[i], "%12.2f", c[3], sizeof c[3]),
           cell(hdca[i] / n, "%12.4f", c[4], sizeof c[4]),
           cell(hdca[i] / hdca2[i], "%11.2fx", c[5], sizeof c[5]),
           chain ? cell(ft->us[2][0][i], "%12.2f", c[6], sizeof c[6]) : "");
    fflush(stdout);
  }
  return 0;
}

// Least-squares exponent k of t ~ N^k over the timed sizes N >= nmin; the number of them into
// *nfit and the largest into *nmax. NAN with fewer than two.
static double fit_exponent(const double* cost, int nmin, int* nfit, int* nmax) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  *nfit = 0;
  *nmax = 0;
  for (int i = 0; i < NSIZE; i++) {
    if (isnan(cost[i]) || sizes[i] < nmin) continue;
    const double x = log((double)sizes[i]), y = log(cost[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    (*nfit)++;
    *nmax = sizes[i];
  }
  return *nfit < 2 ? NAN : (*nfit * sxy - sx * sy) / (*nfit * sxx - sx * sx);
}

// The exponent over N >= 64 against the goals (k <= 1.05, at most 0.4 us per body at
// N = 1024); when fewer than three sizes from 64 on were timed, also the fit from N = 16 on.
static void print_fit(const family_times* ft) {
  const char* name[2] = {"dca", "hdca"};
  for (int c = 0; c < 2; c++) {
    const double* cost = ft->us[c][0];
    int nfit, nmax;
    const double k = fit_exponent(cost, 64, &nfit, &nmax);
    printf("%s-N %s: ", ft->family, name[c]);
    if (isnan(k)) {
      printf("no exponent over N >= 64: fewer than two sizes were timed");
    } else {
      printf("fitted exponent over N = 64 ... %d (%d sizes): %.3f (goal <= 1.05: %s)", nmax, nfit,
             k, k <= 1.05 ? "PASS" : "not met");
    }
    if (nfit < 3) {
      int n16, nmax16;
      const double k16 = fit_exponent(cost, 16, &n16, &nmax16);
      if (!isnan(k16)) printf("; over N = 16 ... %d (%d sizes): %.3f", nmax16, n16, k16);
    }
    for (int i = 0; i < NSIZE; i++) {
      if (sizes[i] != 1024 || isnan(cost[i])) continue;
      printf("; at N = 1024 %.3f us per body (goal <= 0.4: %s)", cost[i] / 1024,
             cost[i] / 1024 <= 0.4 ? "PASS" : "not met");
    }
    putchar('\n');
  }
}

static int write_csv(const char* path, const family_times* fam, int nfam) {
  FILE* fp = fopen(path, "w");
  if (!fp) {
    fprintf(stderr, "hydyn_bench: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  fputs("family,formulation,threads,N,us_per_eval,us_per_body\n", fp);
  for (int k = 0; k < nfam; k++) {
    for (int f = 0; f < 3; f++) {
      for (int th = 0; th < 2; th++) {
        for (int i = 0; i < NSIZE; i++) {
          const double us = fam[k].us[f][th][i];
          if (isnan(us)) continue;  // not run, or not timed (said on stderr)
          fprintf(fp, "%s,%s,%d,%d,%.6g,%.6g\n", fam[k].family, hy_formulation_name(forms[f]),
                  th + 1, sizes[i], us, us / sizes[i]);
        }
      }
    }
  }
  if (fclose(fp) != 0) {
    fprintf(stderr, "hydyn_bench: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

int bench_scaling(int reps, const char* path) {
  static family_times fam[2] = {{.family = "chain"}, {.family = "loop"}};
  for (int k = 0; k < 2; k++) {
    if (time_family(&fam[k], reps)) return 1;
  }
  putchar('\n');
  for (int k = 0; k < 2; k++) print_fit(&fam[k]);
  if (path) {
    if (write_csv(path, fam, 2)) return 1;
    printf("wrote %s\n", path);
  }
  return 0;
}
