// Double-acting cylinders: chamber geometry, flows and force (seed 000 Eqs. 28-29 and 42-44 with
// the README's physical chamber convention, seed 001 Eqs. 33-34, seed 003 Eqs. 72-73), and their
// seal friction (seed 002 Eq. 20 with the laws of src/friction, Eqs. 21-34).
// The laws themselves are in hyd_impl.h, inline for the evaluation's single-cylinder case.
#include "hyd/hyd_impl.h"

double hy_hyd_cylinder_friction(const hy_model* m, hy_data* d, hy_hyd_work* hw, int c, double pa,
                                double pb) {
  const hy_friction_def* fr = &m->cyl_fric[c];
  const int va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
  const double Aa = m->cyl_area_a[c], Ab = m->cyl_area_b[c];
  // the seals' normal load grows with both chamber pressures (the pressure term of F_c)
  const double Fc = hy_friction_coulomb(fr, pa * Aa + pb * Ab);
  const int w0 = m->cyl_fric_w[c], ns = hy_friction_nstates(fr->law);
  hy_friction_out o;
  hy_friction_eval(fr, d->frc_rate[m->cyl_frc[c]], w0 >= 0 ? d->w + w0 : NULL, Fc, &o);
  for (int k = 0; k < ns; k++) d->wd[w0 + k] = o.wd[k];
  if (hw) {
    const int nv = m->sizes.nvol, nw = m->sizes.nfric, nc = m->sizes.ncyl;
    const double dN_dpa = fr->pressure_coefficient * Aa, dN_dpb = fr->pressure_coefficient * Ab;
    hw->dF_dsd[c] -= o.dF_dv;
    hw->dF_dp[c * nv + va] -= o.dF_dFc * dN_dpa;
    hw->dF_dp[c * nv + vb] -= o.dF_dFc * dN_dpb;
    for (int k = 0; k < ns; k++) {
      const int r = w0 + k;
      hw->dF_dw[c * nw + r] = -o.dF_dw[k];
      for (int j = 0; j < ns; j++) hw->dwd_dw[r * nw + w0 + j] = o.dwd_dw[k][j];
      hw->dwd_dp[r * nv + va] += o.dwd_dFc[k] * dN_dpa;
      hw->dwd_dp[r * nv + vb] += o.dwd_dFc[k] * dN_dpb;
      hw->dwd_dsd[r * nc + c] = o.dwd_dv[k];
    }
  }
  return o.F;
}

void hy_hyd_cylinder(const hy_model* m, hy_data* d, hy_hyd_work* hw, int c) {
  hy_hyd_cylinder_inline(m, d, hw, c);
}

void hy_hyd_cylinder_forces(const hy_model* m, hy_data* d) {
  if (d->cyl_input) {
    hy_hyd_input_forces(m, d, NULL);
    return;
  }
  for (int c = 0; c < m->sizes.ncyl; c++) hy_hyd_cylinder_force(m, d, NULL, c);
}

void hy_hyd_cylinder_partials(const hy_model* m, const hy_data* d, hy_hyd_work* hw, int c) {
  hy_hyd_cylinder_partials_inline(m, d, hw, c, 0);
}
