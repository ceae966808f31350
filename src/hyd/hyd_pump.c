// Pumps: flow sources from an inlet node into an outlet volume (see docs/hydraulics.md,
// "pumps"). The seeds model the supply as a fixed pressure only; the displacement law, the
// laminar leakage and the compensator are hydyn's own. The compensator reuses the pressure
// valves' C^1 opening (hyd_pressure_valve.c) turned around: the displacement falls as the
// valve would open.
#include "hyd/hyd.h"

double hy_hyd_pump_fraction(double dp, double p_comp, double dp_comp, double* deps_ddp) {
  double dx;
  const double x =
      hy_hyd_pressure_valve_opening(dp, p_comp - dp_comp, dp_comp, deps_ddp ? &dx : NULL);
  if (deps_ddp) *deps_ddp = -dx;
  return 1.0 - x;
}

double hy_hyd_pump_flow(const hy_model* m, int i, double t, double dp, double* eps,
                        double* dq_ddp) {
  // geometric flow D n(t), less the leakage C_leak dp; the compensator scales D by eps(dp)
  const double qg = m->pmp_disp[i] * hy_hyd_pump_speed(m, i, t);
  const double leak = m->pmp_leak[i];
  double e = 1.0, de = 0.0;
  if (m->pmp_kind[i] == HY_PUMP_COMPENSATED) {
    e = hy_hyd_pump_fraction(dp, m->pmp_p_comp[i], m->pmp_dp_comp[i], &de);
  }
  if (eps) *eps = e;
  if (dq_ddp) *dq_ddp = de * qg - leak;
  return e * qg - leak * dp;
}
