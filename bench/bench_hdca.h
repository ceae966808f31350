// The HDCA test-case section of hydyn_bench (bench_hdca.c, --hdca-cases).
#ifndef HYDYN_BENCH_BENCH_HDCA_H_
#define HYDYN_BENCH_BENCH_HDCA_H_

// Runs the 10 s motions of hdca-case1, hdca-case2 and hdca-case3 (shared/seeds/hdca_cases.md)
// with the formulations dca and hdca, the integrators dopri5, bs23 and adams, at the tolerances
// 1e-3, 1e-4, ..., 1e-9 (seed 004 Figs. 10-11), each `reps` times (median wall time of the
// stepping loop, no output), the state given every dt seconds (0: the models' dt, 1 ms; the
// variable-step methods then interpolate 10 000 times, which at loose tolerances costs more than
// their own steps). Prints one CSV row per run: the columns of the seed's row, then
// rhs_evals, us_per_eval, tolerance and status (ok; failed, a step failed; refused, the
// formulation cannot run the case). A refused or failed run is a result: it is reported and the
// sweep goes on. Writes the same rows, after a header, to `path` unless it is NULL. Returns 0,
// or 1 when a model cannot be built or the file cannot be written.
int bench_hdca_cases(int reps, double dt, const char* path);

#endif  // HYDYN_BENCH_BENCH_HDCA_H_
