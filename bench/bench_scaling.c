// The cost of the right-hand side against the number of bodies N: the divide-and-conquer
// formulations dca and hdca (O(N), src/form/form_dca.c) beside the semi-recursive tree formulation (a dense
// mass matrix, O(N^3)), on the pendulum chains of ../shared/seeds/hdca_cases.md, each evaluation
// at a state 0.05 s into the swing (hy_forward: kinematics, forces, accelerations).
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "bench_scaling.h"
#include "hydyn/hydyn.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Median over reps of the mean time of one hy_forward, in batches of at least 20 ms.
static int time_forward(int n, hy_formulation form, int threads, int reps, double* us) {
  char name[32];
  snprintf(name, sizeof name, "chain-%d", n);
  hy_model* m = NULL;
  hy_data* d = NULL;
  hy_error err;
  if (hy_model_family(name, &m, &err) != HY_OK) goto fail;
  m->opt.formulation = form;
  m->opt.integrator = HY_INTEG_RK4;
  m->opt.threads = threads;
  if (hy_data_make(m, &d, &err) != HY_OK) goto fail;
  for (int k = 0; k < 50; k++) {
    if (hy_step(m, d) != HY_OK) {
      err = d->err;
      goto fail;
    }
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
  return 0;
fail:
  fprintf(stderr, "hydyn_bench: scaling, %s: %s\n", name, err.msg);
  hy_data_free(d);
  hy_model_free(m);
  return 1;
}

int bench_scaling(int reps) {
  static const int sizes[] = {4, 16, 64, 256, 1024, 4096};
  enum { NSIZE = sizeof sizes / sizeof sizes[0] };
  double dca[NSIZE], hdca[NSIZE], dca2[NSIZE], hdca2[NSIZE];
  printf("\nscaling: one evaluation of the right-hand side of chain-N (hy_forward)\n");
  printf("%6s %12s %12s %12s %12s %12s %12s %12s\n", "N", "dca (us)", "per body",
         "2 threads", "hdca (us)", "per body", "2 threads", "tree (us)");
  for (int i = 0; i < NSIZE; i++) {
    if (time_forward(sizes[i], HY_FORM_DCA, 1, reps, &dca[i])) return 1;
    if (time_forward(sizes[i], HY_FORM_DCA, 2, reps, &dca2[i])) return 1;
    if (time_forward(sizes[i], HY_FORM_HDCA, 1, reps, &hdca[i])) return 1;
    if (time_forward(sizes[i], HY_FORM_HDCA, 2, reps, &hdca2[i])) return 1;
    double tree = NAN;
    if (sizes[i] <= 256 && time_forward(sizes[i], HY_FORM_TREE, 1, reps, &tree)) return 1;
    printf("%6d %12.2f %12.4f %11.2fx %12.2f %12.4f %11.2fx %12.2f\n", sizes[i], dca[i],
           dca[i] / sizes[i], dca[i] / dca2[i], hdca[i], hdca[i] / sizes[i], hdca[i] / hdca2[i],
           tree);
  }
  const double* cost[2] = {dca, hdca};
  const char* name[2] = {"dca", "hdca"};
  for (int c = 0; c < 2; c++) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0, at1024 = NAN;
    int nfit = 0;
    for (int i = 0; i < NSIZE; i++) {
      if (sizes[i] == 1024) at1024 = cost[c][i] / 1024;
      if (sizes[i] < 64) continue;
      const double x = log((double)sizes[i]), y = log(cost[c][i]);
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
      nfit++;
    }
    const double k = (nfit * sxy - sx * sy) / (nfit * sxx - sx * sx);
    printf("%s: fitted exponent over N >= 64: %.3f (goal <= 1.05: %s); at N = 1024 %.3f us per "
           "body (goal <= 0.4: %s)\n",
           name[c], k, k <= 1.05 ? "PASS" : "not met", at1024,
           at1024 <= 0.4 ? "PASS" : "not met");
  }
  return 0;
}
