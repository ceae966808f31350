// Orifice law of throttles and directional-valve paths: turbulent square-root flow above the
// laminar limit, a laminar branch below it (seed 000 Eqs. 24 and 26, seed 003 Eq. 6).
#include <math.h>

#include "hyd/hyd.h"

double hy_hyd_orifice_flow(double coeff, double dp, double dp_lim, hy_laminar law, double* dq_ddp) {
  const double adp = fabs(dp);
  if (adp >= dp_lim) {
    // turbulent: Q = C sgn(dp) sqrt|dp| (seed 000 Eq. 24, Eq. 26 with C = C_vd U)
    const double r = sqrt(adp);
    if (dq_ddp) *dq_ddp = 0.5 * coeff / r;
    return dp < 0 ? -coeff * r : coeff * r;
  }
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
