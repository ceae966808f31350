// Check and relief valves: an orifice whose opening follows the pressure difference across it
// (see docs/hydraulics.md, "Check and relief valves"). The orifice is that of the throttles,
// seed 000 Eq. 24 with the laminar branch of seed 003 Eq. 6 (hyd_orifice.c); the opening law
// is hydyn's own, as the seeds have no such valves.
#include "hyd/hyd.h"

double hy_hyd_pressure_valve_opening(double dp, double p_crack, double p_open, double* dx_ddp) {
  const double s = (dp - p_crack) / p_open;
  if (s <= 0 || s >= 1) {
    if (dx_ddp) *dx_ddp = 0;
    return s <= 0 ? 0.0 : 1.0;
  }
  // cubic smoothstep 3s^2 - 2s^3: its slope vanishes at both ends, so the flow keeps a
  // continuous slope where the valve cracks and where it is fully open, which the Newton
  // tangent needs (a kink there can make the iteration cycle between the two sides)
  if (dx_ddp) *dx_ddp = 6.0 * s * (1.0 - s) / p_open;
  return s * s * (3.0 - 2.0 * s);
}

double hy_hyd_pressure_valve_flow(double cv, double dp, double p_crack, double p_open,
                                  double dp_lim, hy_laminar law, double* dq_ddp) {
  double dx;
  const double x = hy_hyd_pressure_valve_opening(dp, p_crack, p_open, &dx);
  if (x == 0) {
    // closed, and in particular for every dp <= 0: nothing flows backwards
    if (dq_ddp) *dq_ddp = 0;
    return 0.0;
  }
  double dorf;
  const double orf = hy_hyd_orifice_flow(cv, dp, dp_lim, law, &dorf);
  if (dq_ddp) *dq_ddp = dx * orf + x * dorf;
  return x * orf;
}
