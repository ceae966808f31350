// The scaling section of hydyn_bench (bench_scaling.c, --scaling).
#ifndef HYDYN_BENCH_BENCH_SCALING_H_
#define HYDYN_BENCH_BENCH_SCALING_H_

// Times one evaluation of the right-hand side (hy_forward) of the pendulum chains chain-N and
// the closed polygons loop-N, N = 4 ... 4096, with the divide-and-conquer formulations (dca,
// hdca) on 1 and 2 threads and, for the chains up to N = 256, the semi-recursive tree
// formulation; prints the time per evaluation and per body and the exponent of a least-squares
// fit t ~ N^k over N >= 64 (issue goals: k <= 1.05, at most 0.4 us per body at N = 1024). A size
// whose evaluation fails (a loop the formulation cannot close) is said on stderr and left out.
// reps: repetitions (median). Writes the times (family, formulation, threads, N, us_per_eval,
// us_per_body) to the CSV file `path` unless it is NULL. Returns 0, or 1 when a model cannot be
// made or the file cannot be written.
int bench_scaling(int reps, const char* path);

#endif  // HYDYN_BENCH_BENCH_SCALING_H_
