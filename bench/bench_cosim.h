// The co-simulation section of hydyn_bench (bench_cosim.c).
#ifndef HYDYN_BENCH_BENCH_COSIM_H_
#define HYDYN_BENCH_BENCH_COSIM_H_

// Times the single-actuator crane co-simulated (H = 1 ms, h_h = 0.1 ms) beside its monolithic
// run and sweeps H for the achievable communication step of each configuration; prints the
// table. reps: repetitions of the timed runs (median). Returns 0, or 1 when a run could not be
// set up.
int bench_cosim(int reps);

#endif  // HYDYN_BENCH_BENCH_COSIM_H_
