// Orifice law of throttles and directional-valve paths: turbulent square-root flow above the
// laminar limit, a laminar branch below it (seed 000 Eqs. 24 and 26, seed 003 Eq. 6). The law
// itself is in hyd_impl.h, which the network evaluation inlines.
#include "hyd/hyd_impl.h"

double hy_hyd_orifice_flow(double coeff, double dp, double dp_lim, hy_laminar law, double* dq_ddp) {
  if (fabs(dp) >= dp_lim) return hy_hyd_orifice_turbulent(coeff, dp, dq_ddp);
  return hy_hyd_orifice_laminar(coeff, dp, dp_lim, law, dq_ddp);
}
