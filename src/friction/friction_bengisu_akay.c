// Bengisu-Akay friction with viscous term, seed 002 Eqs. 22-23 (Eq. 21 plus sigma2 v): below the
// Stribeck velocity a parabola rising from 0 at v = 0 to F_s at |v| = v_s, above it the
// exponential decay from F_s to F_c.
//
// Eq. 22 as printed adds the viscous term sigma2 v only for |v| >= v_s, which makes the force
// jump by sigma2 v_s at |v| = v_s (1.65 N on four-bar B). hydyn adds it on both branches, so the
// law is continuous everywhere (docs/friction.md).
#include <math.h>

#include "friction/friction.h"

void hy_friction_bengisu_akay_eval(const hy_friction_def* p, double v, double Fc,
                                   hy_friction_out* o) {
  const double a = fabs(v), sgn = v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
  const double Fs = p->stiction, vs = p->stribeck_velocity, s2 = p->viscous;
  if (a < vs) {
    // -F_s / v_s^2 (|v| - v_s)^2 + F_s: slope 2 F_s / v_s at v = 0, 0 at |v| = v_s
    const double u = a - vs;
    o->F = sgn * (Fs - Fs / (vs * vs) * u * u) + s2 * v;
    o->dF_dv = -2 * Fs / (vs * vs) * u + s2;  // d(sgn f(|v|))/dv = f'(|v|)
    o->dF_dFc = 0;
  } else {
    const double e = exp(-p->decay * (a - vs));
    o->F = sgn * (Fc + (Fs - Fc) * e) + s2 * v;
    o->dF_dv = -p->decay * (Fs - Fc) * e + s2;
    o->dF_dFc = sgn * (1 - e);
  }
}
