// The scaling section of hydyn_bench (bench_scaling.c, --scaling).
#ifndef HYDYN_BENCH_BENCH_SCALING_H_
#define HYDYN_BENCH_BENCH_SCALING_H_

// Times one evaluation of the right-hand side (hy_forward) of the pendulum chains chain-N,
// N = 4 ... 4096, with the divide-and-conquer formulations (dca, hdca) and, up to N = 256, the
// semi-recursive tree formulation; prints the time per evaluation and per body and the exponent
// of a least-squares fit t ~ N^k over N >= 64 (issue goals: k <= 1.05, at most 0.4 us per body
// at N = 1024). reps: repetitions (median). Returns 0, or 1 on a failure.
int bench_scaling(int reps);

#endif  // HYDYN_BENCH_BENCH_SCALING_H_
