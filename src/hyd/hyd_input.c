// Cylinders driven by another subsystem (co-simulation, src/cosim; hy_data.cyl_input): the
// mechanics of a Jacobi co-simulation take each cylinder's force, or its chamber pressures, from
// the hydraulic subsystem as polynomials in time (seed 001 Sects. 2.3 and 3.3), and the network
// of their own data is not integrated. hy_hyd_evaluate and hy_hyd_cylinder_forces come here
// when d->cyl_input is set; the monolithic path pays one pointer test for it.
#include <string.h>

#include "hyd/hyd_impl.h"

// u(t) = c0 + c1 tau + c2 tau^2 of the input whose coefficients start at c.
static inline double input_value(const double* c, double tau) {
  return c[0] + tau * (c[1] + tau * c[2]);
}

void hy_hyd_input_forces(const hy_model* m, hy_data* d, hy_hyd_work* hw) {
  const hy_cyl_input* in = d->cyl_input;
  const int nc = m->sizes.ncyl, nv = m->sizes.nvol;
  const double tau = d->time - in->t0;
  for (int c = 0; c < nc; c++) {
    if (in->mode == HY_CYL_INPUT_FORCE) {
      // the hydraulic subsystem evaluated Eq. 33 with its own s and s_dot: the whole force is
      // the input, with no part that depends on this data's state
      const double F = input_value(in->coef + 3 * c, tau);
      hy_hyd_chamber_lengths(m, d, c, m->cyl_frc[c]);
      d->cyl_F_hyd[c] = F;
      d->cyl_F_visc[c] = 0;
      d->cyl_F_damp[c] = 0;
      d->cyl_F_fric[c] = 0;
      d->frc_force[m->cyl_frc[c]] = F;
      if (hw) {
        hw->dF_ds[c] = 0;
        hw->dF_dsd[c] = 0;
      }
    } else {
      // velocity-pressure coupling (seed 001 Sect. 3.3): Eqs. 33-34 here, with this data's s and
      // s_dot and the input pressures, which do not depend on the state (dF/dp = 0)
      const double pa = input_value(in->coef + 3 * c, tau);
      const double pb = input_value(in->coef + 3 * (nc + c), tau);
      hy_hyd_cylinder_force_at(m, d, hw, c, pa, pb);
      if (hw) {
        hw->dF_dp[c * nv + m->cyl_vol_a[c]] = 0;
        hw->dF_dp[c * nv + m->cyl_vol_b[c]] = 0;
      }
    }
  }
}

void hy_hyd_input_evaluate(const hy_model* m, hy_data* d, hy_hyd_work* hw) {
  // every derivative is 0 but the cylinders' own dF/ds and dF/ds_dot (hy_hyd_work_bind lays the
  // arrays out as one block)
  if (hw) memset(hw->dpd_dp, 0, sizeof(double) * hy_hyd_work_size(m));
  hy_hyd_input_forces(m, d, hw);
  // the network is not integrated: no flows, pressures and friction states stand still
  // (friction laws with states are refused by the co-simulation's subsystems). The volumes and
  // moduli keep the values of the last evaluation of the network.
  const size_t nv = (size_t)m->sizes.nvol, nw = (size_t)m->sizes.nfric;
  memset(d->pd, 0, sizeof(double) * (nv + nw));
  memset(d->orf_q, 0, sizeof(double) * (size_t)m->sizes.norf);
  memset(d->vlv_q, 0, sizeof(double) * HY_VALVE_PATHS * (size_t)m->sizes.nvlv);
  memset(d->pvl_q, 0, sizeof(double) * (size_t)m->sizes.npvl);
  if (m->sizes.npump > 0) memset(d->pmp_q, 0, sizeof(double) * (size_t)m->sizes.npump);
}
