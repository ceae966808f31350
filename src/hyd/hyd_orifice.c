// Orifice law of throttles and directional-valve paths: turbulent square-root flow above the
// laminar limit, a laminar branch below it (seed 000 Eqs. 24 and 26, seed 003 Eq. 6). The law
// itself is in hyd_impl.h, which the network evaluation inlines. Also the throttle options,
// which no seed has (docs/hydraulics.md, "Throttle options"): a signal-scaled opening, the
// turbulent law regularized only below dp_reg, and one-way flow.
#include "hyd/hyd_impl.h"

double hy_hyd_orifice_flow(double coeff, double dp, double dp_lim, hy_laminar law, double* dq_ddp) {
  if (fabs(dp) >= dp_lim) return hy_hyd_orifice_turbulent(coeff, dp, dq_ddp);
  return hy_hyd_orifice_laminar(coeff, dp, dp_lim, law, dq_ddp);
}

double hy_hyd_orifice_one_way(double coeff, double dp, double lim, double* dq_ddp) {
  if (dp <= 0) {
    if (dq_ddp) *dq_ddp = 0;
    return 0.0;
  }
  if (dp >= lim) return hy_hyd_orifice_turbulent(coeff, dp, dq_ddp);
  // Q = C sqrt(lim) g(x), g = (5x^2 - 3x^3)/2: g(0) = g'(0) = 0 meets the blocked side, and
  // g(1) = 1, g'(1) = 1/2 the square root at lim; g' = x (10 - 9x)/2 > 0 on (0, 1]
  const double rl = sqrt(lim), x = dp / lim;
  if (dq_ddp) *dq_ddp = coeff * x * (10.0 - 9.0 * x) / (2.0 * rl);
  return coeff * rl * x * x * (5.0 - 3.0 * x) / 2.0;
}

double hy_hyd_throttle_flow(const hy_model* m, int i, double t, double dp, hy_laminar laminar,
                            double* dq_ddp) {
  double coeff = m->orf_cv[i];
  const int sig = m->orf_sig[i];
  // the signal scales the opening, clamped so that it neither reverses nor exceeds cv
  if (sig >= 0) coeff *= fmin(fmax(hy_signal_eval(m, sig, t), 0.0), 1.0);
  if (coeff == 0) {
    if (dq_ddp) *dq_ddp = 0;
    return 0.0;
  }
  // law turbulent: the square root down to dp_reg, and below it the cubic branch only as the
  // regularization that keeps the Newton tangent finite at dp = 0
  const int turbulent = m->orf_law[i] == HY_ORIFICE_TURBULENT;
  const double lim = turbulent ? m->orf_dp_reg[i] : m->orf_dp_lim[i];
  if (m->orf_one_way[i]) return hy_hyd_orifice_one_way(coeff, dp, lim, dq_ddp);
  return hy_hyd_orifice_flow(coeff, dp, lim, turbulent ? HY_LAMINAR_CUBIC : laminar, dq_ddp);
}
