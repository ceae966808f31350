// Helpers shared by the files of src/hyd (not used outside it). The small ones are static inline:
// the evaluation applies them to every element on every Newton iteration, where a call would cost
// more than their work.
#ifndef HYDYN_SRC_HYD_HYD_IMPL_H_
#define HYDYN_SRC_HYD_HYD_IMPL_H_

#include <math.h>

#include "hyd/hyd.h"

// Pressure of node k: volume k's state d->p[k], or for k >= nvol the pressure of source
// k - nvol times its signal at d->time.
double hy_hyd_node_pressure(const hy_model* m, const hy_data* d, int k);

// Oil bulk modulus of volume v's circuit at pressure p, and its slope dB/dp into *dB_dp
// (0 for the constant law).
static inline double hy_hyd_oil_modulus(const hy_model* m, int v, double p, double* dB_dp) {
  const int c = m->vol_circ[v];
  if (m->circ_law[c] == HY_BULK_LINEAR) {
    *dB_dp = m->circ_law_k[c];
    return m->circ_B_oil[c] + m->circ_law_k[c] * p;
  }
  *dB_dp = 0;
  return m->circ_B_oil[c];
}

// Cylinder c: its chamber lengths into d->cyl_len_a/b from s = d->frc_len, its chambers' V added
// to d->vol_V and V/B_cyl to the compliance sums W in d->vol_Be (the caller starts them from the
// hoses and turns W into Be), its chamber flows added to the inflow sums in d->pd, and its force
// F = F_hyd + F_visc + F_damp into d->cyl_F_* and d->frc_force of its element. With hw != NULL
// also dF_ds, dF_dsd and the nonzero entries of its row of dF_dp (the caller has zeroed dF_dp).
void hy_hyd_cylinder(const hy_model* m, hy_data* d, hy_hyd_work* hw, int c);

// Cylinder c's column of dpd_ds and dpd_dsd, added to the zeroed arrays once d->pd holds the
// pressure rates and d->vol_Be the effective moduli.
void hy_hyd_cylinder_partials(const hy_model* m, const hy_data* d, hy_hyd_work* hw, int c);

// The law of hy_hyd_orifice_flow in its two regimes, inline because hy_hyd_evaluate applies it
// to every throttle and valve path on every Newton iteration, where a call would cost about as
// much as the law; split so that the element's laminar law is looked up only when it matters.
// Nullable: dq_ddp (the slope is then not computed).
// Turbulent, |dp| >= dp_lim: Q = C sgn(dp) sqrt|dp| (seed 000 Eq. 24, Eq. 26 with C = C_vd U).
static inline double hy_hyd_orifice_turbulent(double coeff, double dp, double* dq_ddp) {
  const double r = sqrt(fabs(dp));
  if (dq_ddp) *dq_ddp = 0.5 * coeff / r;
  return dp < 0 ? -coeff * r : coeff * r;
}

// Laminar, |dp| < dp_lim.
static inline double hy_hyd_orifice_laminar(double coeff, double dp, double dp_lim, hy_laminar law,
                                            double* dq_ddp) {
  const double rl = sqrt(dp_lim);
  if (law == HY_LAMINAR_LINEAR) {
    // seed 003 Eq. 6: Q = gamma_1 dp with gamma_1 = C sqrt(dp_lim) / dp_lim, continuous in value
    // at dp_lim; its slope there is twice the turbulent one
    if (dq_ddp) *dq_ddp = coeff / rl;
    return coeff * dp / rl;
  }
  // cubic: Q = C sqrt(dp_lim) (5x - x^3)/4, x = dp/dp_lim. Odd, with Q(1) = C sqrt(dp_lim) and
  // Q'(1) = C / (2 sqrt(dp_lim)): value and slope meet the turbulent law at +-dp_lim, and the
  // slope at 0 is finite (5C / (4 sqrt(dp_lim))), which the Newton tangent needs
  const double x = dp / dp_lim;
  if (dq_ddp) *dq_ddp = coeff * (5.0 - 3.0 * x * x) / (4.0 * rl);
  return coeff * rl * x * (5.0 - x * x) / 4.0;
}

#endif  // HYDYN_SRC_HYD_HYD_IMPL_H_
