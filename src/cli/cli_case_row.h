// Internal header of src/cli: the one-line result of a run of a built-in HDCA family model in
// the form shared/seeds/hdca_cases.md asks for, so that the runs of other engines can be put
// beside hydyn's. `hydyn run` prints it after the summary; hydyn_bench --hdca-cases writes the
// same columns (bench/bench_hdca.c links this file).
#ifndef HYDYN_SRC_CLI_CLI_CASE_ROW_H_
#define HYDYN_SRC_CLI_CLI_CASE_ROW_H_

#include <stddef.h>

#include "hydyn/model.h"
#include "hydyn/sim.h"

// The columns, without a line break.
#define HY_CASE_ROW_HEADER                                                     \
  "engine,case,N,integrator,dt,steps,wall_s,us_per_step,max_loop_violation_m," \
  "max_energy_drift_J"

// What one row holds. Counts and times of the run (or a median over runs) the caller chose.
typedef struct hy_case_row {
  char engine[48];         // "hydyn-" and the formulation used: hydyn-hdca, hydyn-dca, ...
  char case_name[16];      // case1, case2, case3, chain, loop
  int n;                   // bodies of the case counting ground (4, 8, 8), N of chain-N, loop-N
  const char* integrator;  // the integrator used (static string)
  double dt;               // output step (s)
  long long steps;         // integrator steps taken (a variable-step method's own steps)
  double wall;             // wall time of the stepping loop (s)
  double violation;        // largest loop-closure violation (m); 0 for an open chain
  double drift;            // largest |E(t) - E(0)| (J)
} hy_case_row;

// The case of m when it is a member of a built-in model family (hy_model_family: built in code,
// so a model file of the same name is not one): its label into case_name (size bytes) and its N
// into *n; returns 1. Returns 0 for any other model.
int hy_case_of(const hy_model* m, char* case_name, size_t size, int* n);

// Fills *row from a finished run of m on d (the formulation and integrator d used, its
// integrator steps d->stats.nsubstep) and its summary. Returns 0, or -1 when m is not a family
// member.
int hy_case_row_of_run(const hy_model* m, const hy_data* d, const hy_run_summary* r,
                       hy_case_row* row);

// The row as CSV (the columns of HY_CASE_ROW_HEADER, 6 significant digits, no line break) into
// buf. Returns what snprintf returns.
int hy_case_row_format(const hy_case_row* row, char* buf, size_t size);

#endif  // HYDYN_SRC_CLI_CLI_CASE_ROW_H_
