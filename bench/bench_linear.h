// The linearization section of hydyn_bench (bench_linear.c).
#ifndef HYDYN_BENCH_BENCH_LINEAR_H_
#define HYDYN_BENCH_BENCH_LINEAR_H_

// Times the reduced Jacobian of the 3-D four-bar at its equilibrium beside the counterpart's
// (seed 003 Sect. 4.5: 0.005 s against 0.016 s in MATLAB; goal for the reduced one: 20 us) and
// prints them. reps: repetitions of the timing (median). Returns 0, or 1 on a failure.
int bench_linear(int reps);

#endif  // HYDYN_BENCH_BENCH_LINEAR_H_
