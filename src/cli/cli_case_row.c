// The CSV row of shared/seeds/hdca_cases.md ("What to report per run"), from a run of a built-in
// HDCA family model.
#include "cli/cli_case_row.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hydyn/names.h"

// The fixed cases count the ground link among their bodies, as the seed does (4, 8 and 8).
static const struct {
  const char* model;
  const char* label;
  int n;
} fixed_cases[] = {
    {"hdca-case1", "case1", 4}, {"hdca-case2", "case2", 8}, {"hdca-case3", "case3", 8}};

// Families with a size: their name is the prefix followed by N.
static const struct {
  const char* prefix;
  const char* label;
} sized_families[] = {{"chain-", "chain"}, {"loop-", "loop"}};

int hy_case_of(const hy_model* m, char* case_name, size_t size, int* n) {
  // a model file named like a family is not one (m->path is set for anything read from YAML)
  if (!m || m->path[0] || hy_family_find(m->name) < 0) return 0;
  for (size_t i = 0; i < sizeof fixed_cases / sizeof fixed_cases[0]; i++) {
    if (strcmp(m->name, fixed_cases[i].model) == 0) {
      snprintf(case_name, size, "%s", fixed_cases[i].label);
      *n = fixed_cases[i].n;
      return 1;
    }
  }
  for (size_t i = 0; i < sizeof sized_families / sizeof sized_families[0]; i++) {
    const size_t len = strlen(sized_families[i].prefix);
    if (strncmp(m->name, sized_families[i].prefix, len) == 0) {
      snprintf(case_name, size, "%s", sized_families[i].label);
      *n = atoi(m->name + len);  // hy_model_family accepted it: decimal digits only
      return 1;
    }
  }
  return 0;
}

int hy_case_row_of_run(const hy_model* m, const hy_data* d, const hy_run_summary* r,
                       hy_case_row* row) {
  memset(row, 0, sizeof *row);
  if (!hy_case_of(m, row->case_name, sizeof row->case_name, &row->n)) return -1;
  snprintf(row->engine, sizeof row->engine, "hydyn-%s", hy_formulation_name(d->formulation));
  row->integrator = hy_integrator_name(d->integrator);
  row->dt = m->opt.dt;
  // the steps the integrator took: a variable-step method's own steps, or the fixed steps and
  // the pieces of cut ones
  row->steps = d->stats.nsubstep;
  row->wall = r->wall;
  // an open chain has no cut joint, so nothing to violate
  row->violation = isnan(r->violation_max) ? 0.0 : r->violation_max;
  row->drift = r->drift;
  return 0;
}

int hy_case_row_format(const hy_case_row* row, char* buf, size_t size) {
  const double us = row->steps > 0 ? 1e6 * row->wall / (double)row->steps : NAN;
  return snprintf(buf, size, "%s,%s,%d,%s,%.6g,%lld,%.6g,%.6g,%.6g,%.6g", row->engine,
                  row->case_name, row->n, row->integrator, row->dt, row->steps, row->wall, us,
                  row->violation, row->drift);
}
