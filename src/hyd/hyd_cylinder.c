// Double-acting cylinders: chamber geometry, flows and force (seed 000 Eqs. 28-29 and 42-44 with
// the README's physical chamber convention, seed 001 Eqs. 33-34, seed 003 Eqs. 72-73).
// The laws themselves are in hyd_impl.h, inline for the evaluation's single-cylinder case.
#include "hyd/hyd_impl.h"

void hy_hyd_cylinder(const hy_model* m, hy_data* d, hy_hyd_work* hw, int c) {
  hy_hyd_cylinder_inline(m, d, hw, c);
}

void hy_hyd_cylinder_forces(const hy_model* m, hy_data* d) {
  for (int c = 0; c < m->sizes.ncyl; c++) hy_hyd_cylinder_force(m, d, NULL, c);
}

void hy_hyd_cylinder_partials(const hy_model* m, const hy_data* d, hy_hyd_work* hw, int c) {
  hy_hyd_cylinder_partials_inline(m, d, hw, c);
}
