// Double-acting cylinders: chamber geometry, flows and force (seed 000 Eqs. 28-29 and 42-44 with
// the README's physical chamber convention, seed 001 Eqs. 33-34, seed 003 Eqs. 72-73).
#include "hyd/hyd_impl.h"

// Chamber lengths and force of cylinder c: what the evaluation needs besides the flows, and all
// that the end of a step needs.
static inline void lengths_and_force(const hy_model* m, hy_data* d, hy_hyd_work* hw, int c) {
  const int f = m->cyl_frc[c], va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
  const double Aa = m->cyl_area_a[c], Ab = m->cyl_area_b[c];
  const double sd = d->frc_rate[f];
  // seed 003 Eq. 73 (the seeds README correction of seed 000 Eq. 43): the piston-side chamber
  // grows with the actuator length, len_a = |s| - dead length, len_b = stroke - len_a
  const double len_a = d->frc_len[f] - m->cyl_dead[c];
  const double len_b = m->cyl_stroke[c] - len_a;
  d->cyl_len_a[c] = len_a;
  d->cyl_len_b[c] = len_b;
  // seed 000 Eq. 29 / seed 003 Eq. 7: F = p_a A_a - p_b A_b (friction F_mu = 0 for now)
  const double F_hyd = d->p[va] * Aa - d->p[vb] * Ab;
  // seed 001 Eq. 33: viscous term -c s_dot
  const double F_visc = -m->cyl_visc[c] * sd;
  // seed 001 Eq. 34 with the repelling sign: the printed F_d, subtracted in Eq. 33, would push
  // the piston further into the end it touches and feed energy in through c_d. Here the
  // damper pushes out of the piston-side end (len_a < l_d) and in from the rod-side end
  // (len_b < l_d), and its damping opposes s_dot.
  const double ld = m->cyl_ld[c];
  double F_damp = 0, dFd_ds = 0, dFd_dsd = 0;
  if (ld > 0 && (len_a < ld || len_b < ld)) {
    const double kd = m->cyl_kd[c], cd = m->cyl_cd[c];
    if (len_a < ld) {
      F_damp = kd * (ld - len_a) - cd * sd;  // d len_a/ds = 1
    } else {
      F_damp = -kd * (ld - len_b) - cd * sd;  // d len_b/ds = -1
    }
    dFd_ds = -kd;
    dFd_dsd = -cd;
  }
  d->cyl_F_hyd[c] = F_hyd;
  d->cyl_F_visc[c] = F_visc;
  d->cyl_F_damp[c] = F_damp;
  d->frc_force[f] = F_hyd + F_visc + F_damp;
  if (hw) {
    const int nv = m->sizes.nvol;
    hw->dF_dp[c * nv + va] = Aa;
    hw->dF_dp[c * nv + vb] = -Ab;
    hw->dF_ds[c] = dFd_ds;
    hw->dF_dsd[c] = -m->cyl_visc[c] + dFd_dsd;
  }
}

void hy_hyd_cylinder(const hy_model* m, hy_data* d, hy_hyd_work* hw, int c) {
  lengths_and_force(m, d, hw, c);
  const int f = m->cyl_frc[c], va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
  const double Aa = m->cyl_area_a[c], Ab = m->cyl_area_b[c];
  const double sd = d->frc_rate[f];
  // seed 000 Eq. 42: V = V_hose + A l; Eq. 23: the chamber is a subvolume of modulus B_cyl.
  // Outside the stroke a chamber volume goes negative: nothing clamps it, the end dampers
  // are what keeps the piston inside.
  const double Va = Aa * d->cyl_len_a[c], Vb = Ab * d->cyl_len_b[c], B = m->cyl_B[c];
  double* V = d->vol_V;
  double* W = d->vol_Be;  // compliance sums until the caller turns them into Be
  V[va] += Va;
  W[va] += Va / B;
  V[vb] += Vb;
  W[vb] += Vb / B;
  // seed 000 Eq. 44: the piston side receives -A_a s_dot and the rod side +A_b s_dot. This is
  // the whole volume-change term dV/dt of seed 003 Eq. 1: nothing else is added for the
  // changing V.
  double* S = d->pd;  // inflow sums
  S[va] -= Aa * sd;
  S[vb] += Ab * sd;
}

void hy_hyd_cylinder_forces(const hy_model* m, hy_data* d) {
  for (int c = 0; c < m->sizes.ncyl; c++) lengths_and_force(m, d, NULL, c);
}

// The entries of cylinder c's chamber in volume v, whose volume grows by dV per unit of s: the
// chamber flow gives d S/d s_dot = -dV, its volume dX/ds = dV / B_oil + dV / B_cyl, so
// d p_dot/ds = -p_dot / X dX/ds (the flows do not depend on s).
static void chamber_partials(const hy_model* m, const hy_data* d, hy_hyd_work* hw, int c, int v,
                             double dV) {
  const int nc = m->sizes.ncyl;
  double dB;
  const double Boil = hy_hyd_oil_modulus(m, v, d->p[v], &dB);
  const double X = d->vol_V[v] / d->vol_Be[v];
  const double dX = dV / Boil + dV / m->cyl_B[c];
  hw->dpd_ds[v * nc + c] += -d->pd[v] * dX / X;
  hw->dpd_dsd[v * nc + c] += -dV / X;
}

void hy_hyd_cylinder_partials(const hy_model* m, const hy_data* d, hy_hyd_work* hw, int c) {
  chamber_partials(m, d, hw, c, m->cyl_vol_a[c], m->cyl_area_a[c]);
  chamber_partials(m, d, hw, c, m->cyl_vol_b[c], -m->cyl_area_b[c]);
}
