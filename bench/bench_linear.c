// The cost of the linearized equations of motion of the 3-D four-bar of
// 003_f349169f78d6df41.txt at its equilibrium: the reduced Jacobian (the maximal reduction)
// beside the counterpart by central differences, each formed on a linearizer made once (the
// model's copy and its data), as a sweep or a controller would form them again and again.
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include "bench_linear.h"
#include "hydyn/hydyn.h"
#include "linear/linear.h"

static const char* const model_name = "four-bar-3d";
static const double goal_us = 20;
// seed 003 Sect. 4.5, MATLAB on an i7-6700HQ
static const double seed_reduced_s = 0.005, seed_counterpart_s = 0.016;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Median over reps of the mean time of one Jacobian in a batch of `batch`.
static int time_jacobian(hy_linearizer* lz, const hy_model* m, const hy_data* d,
                         hy_lin_method method, int reps, double* us, int* n) {
  enum { BATCH = 200, MAX_REPS = 101 };
  double t[MAX_REPS];
  if (reps > MAX_REPS) reps = MAX_REPS;
  for (int r = 0; r < reps; r++) {
    const double t0 = now();
    for (int k = 0; k < BATCH; k++) {
      hy_linear* L = NULL;
      hy_error err;
      if (hy_linearizer_jacobian(lz, m, d, method, 1e-5, &L, &err) != HY_OK) {
        fprintf(stderr, "hydyn_bench: linearization: %s\n", err.msg);
        return 1;
      }
      *n = L->n;
      hy_linear_free(L);
    }
    t[r] = (now() - t0) / BATCH;
  }
  for (int i = 1; i < reps; i++) {
    for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
      const double v = t[j];
      t[j] = t[j - 1];
      t[j - 1] = v;
    }
  }
  *us = 1e6 * t[reps / 2];
  return 0;
}

int bench_linear(int reps) {
  hy_model* m = NULL;
  hy_data* d = NULL;
  hy_linearizer* lz = NULL;
  hy_error err;
  int status = 1;
  if (hy_model_load_any(model_name, &m, &err) != HY_OK || hy_data_make(m, &d, &err) != HY_OK ||
      hy_linearizer_make(m, &lz, &err) != HY_OK) {
    fprintf(stderr, "hydyn_bench: %s: %s\n", model_name, err.msg);
  } else {
    double us_red = 0, us_cp = 0;
    int n_red = 0, n_cp = 0;
    if (time_jacobian(lz, m, d, HY_LIN_REDUCED, reps, &us_red, &n_red) == 0 &&
        time_jacobian(lz, m, d, HY_LIN_COUNTERPART, reps, &us_cp, &n_cp) == 0) {
      printf("\nlinearization of %s at its equilibrium (seed 003 Sect. 4.5; MATLAB: %.3f s "
             "reduced, %.3f s counterpart)\n", model_name, seed_reduced_s, seed_counterpart_s);
      printf("%-12s %6s %12s %s\n", "Jacobian", "size", "time (us)", "goal");
      printf("%-12s %6d %12.2f %s\n", "reduced", n_red, us_red,
             us_red <= goal_us ? "<= 20 us: PASS" : "<= 20 us: not reached");
      printf("%-12s %6d %12.2f\n", "counterpart", n_cp, us_cp);
      status = 0;
    }
  }
  hy_linearizer_free(lz);
  hy_data_free(d);
  hy_model_free(m);
  return status;
}
