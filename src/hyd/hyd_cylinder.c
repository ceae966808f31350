// Double-acting cylinders: chamber geometry and force (seed 000 Eqs. 28-29 and 42-43 with the
// README's physical chamber convention, seed 001 Eqs. 33-34, seed 003 Eqs. 72-73).
#include <string.h>

#include "hyd/hyd_impl.h"

void hy_hyd_volumes(const hy_model* m, hy_data* d) {
  const int nv = m->sizes.nvol, nc = m->sizes.ncyl;
  double* V = d->vol_V;
  double* W = d->vol_Be;  // compliance sum until the caller turns it into Be
  for (int v = 0; v < nv; v++) {
    V[v] = m->vol_hose[v];
    W[v] = m->vol_hose[v] > 0 ? m->vol_hose[v] / m->vol_B_hose[v] : 0.0;
  }
  for (int c = 0; c < nc; c++) {
    // seed 003 Eq. 73 (the seeds README correction of seed 000 Eq. 43): the piston-side chamber
    // grows with the actuator length, len_a = |s| - dead length, len_b = stroke - len_a
    const double s = d->frc_len[m->cyl_frc[c]];
    const double len_a = s - m->cyl_dead[c];
    const double len_b = m->cyl_stroke[c] - len_a;
    d->cyl_len_a[c] = len_a;
    d->cyl_len_b[c] = len_b;
    // seed 000 Eq. 42: V = V_hose + A l; Eq. 23: the chamber is a subvolume of modulus B_cyl.
    // Outside the stroke a chamber volume goes negative: nothing clamps it, the end dampers
    // are what keeps the piston inside.
    const double Va = m->cyl_area_a[c] * len_a, Vb = m->cyl_area_b[c] * len_b;
    V[m->cyl_vol_a[c]] += Va;
    W[m->cyl_vol_a[c]] += Va / m->cyl_B[c];
    V[m->cyl_vol_b[c]] += Vb;
    W[m->cyl_vol_b[c]] += Vb / m->cyl_B[c];
  }
}

void hy_hyd_cylinder_forces(const hy_model* m, hy_data* d, hy_hyd_work* hw) {
  const int nv = m->sizes.nvol, nc = m->sizes.ncyl;
  if (hw) memset(hw->dF_dp, 0, sizeof(double) * (size_t)nc * (size_t)nv);
  for (int c = 0; c < nc; c++) {
    const int f = m->cyl_frc[c], va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
    const double Aa = m->cyl_area_a[c], Ab = m->cyl_area_b[c];
    const double sd = d->frc_rate[f];
    const double len_a = d->cyl_len_a[c], len_b = d->cyl_len_b[c];
    const double ld = m->cyl_ld[c], kd = m->cyl_kd[c], cd = m->cyl_cd[c];
    // seed 000 Eq. 29 / seed 003 Eq. 7: F = p_a A_a - p_b A_b (friction F_mu = 0 for now)
    const double F_hyd = d->p[va] * Aa - d->p[vb] * Ab;
    // seed 001 Eq. 33: viscous term -c s_dot
    const double F_visc = -m->cyl_visc[c] * sd;
    // seed 001 Eq. 34 with the repelling sign: the printed F_d, subtracted in Eq. 33, would push
    // the piston further into the end it touches and feed energy in through c_d. Here the
    // damper pushes out of the piston-side end (len_a < l_d) and in from the rod-side end
    // (len_b < l_d), and its damping opposes s_dot.
    double F_damp = 0, dFd_ds = 0, dFd_dsd = 0;
    if (ld > 0 && len_a < ld) {
      F_damp = kd * (ld - len_a) - cd * sd;  // d len_a/ds = 1
      dFd_ds = -kd;
      dFd_dsd = -cd;
    } else if (ld > 0 && len_b < ld) {
      F_damp = -kd * (ld - len_b) - cd * sd;  // d len_b/ds = -1
      dFd_ds = -kd;
      dFd_dsd = -cd;
    }
    d->cyl_F_hyd[c] = F_hyd;
    d->cyl_F_visc[c] = F_visc;
    d->cyl_F_damp[c] = F_damp;
    d->frc_force[f] = F_hyd + F_visc + F_damp;
    if (hw) {
      hw->dF_dp[c * nv + va] = Aa;
      hw->dF_dp[c * nv + vb] = -Ab;
      hw->dF_ds[c] = dFd_ds;
      hw->dF_dsd[c] = -m->cyl_visc[c] + dFd_dsd;
    }
  }
}
