// Brown-McPhee friction, seed 002 Eq. 24 and seed 003 Eq. 8, in signed form with x = v / v_s:
//   F = F_c tanh(4x) + (F_s - F_c) x / (x^2/4 + 3/4)^2 + k sigma2 v,
// k = tanh(4) in seed 002 Eq. 24 and k = 1 in seed 003 Eq. 8 (hy_friction_def.viscous_tanh4).
// The Stribeck term peaks at F_s - F_c at |v| = v_s and fades beyond, so for |v| >> v_s the
// force tends to F_c + k sigma2 v.
#include <math.h>

#include "friction/friction.h"

void hy_friction_brown_mcphee_eval(const hy_friction_def* p, double v, double Fc,
                                   hy_friction_out* o) {
  const double vs = p->stribeck_velocity, Fs = p->stiction;
  const double k = p->viscous_tanh4 ? tanh(4.0) : 1.0;
  const double x = v / vs;
  const double th = tanh(4 * x);
  const double u = 0.25 * x * x + 0.75;
  const double r = x / (u * u);                 // the Stribeck shape
  const double dr = (u - x * x) / (u * u * u);  // its slope: 1/u^2 - x^2/u^3
  o->F = Fc * th + (Fs - Fc) * r + k * p->viscous * v;
  o->dF_dv = (4 * Fc * (1 - th * th) + (Fs - Fc) * dr) / vs + k * p->viscous;
  o->dF_dFc = th - r;
}
