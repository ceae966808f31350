// LuGre friction, seed 002 Eqs. 25-27: the bristle deflection q with
//   q_dot = v - sigma0 |v| q / g(v),   g(v) = F_c + (F_s - F_c) exp(-(|v|/v_s)^n),
//   F = sigma0 q + sigma1(v) q_dot + sigma2 v,
// sigma1 constant or sigma1 exp(-(v/v_d)^2) (the common choice in the LuGre literature, which
// keeps the bristle damping from adding to the viscous term while sliding).
// Shared with the film law (friction_lugre_film.c), whose g also depends on the film h.
#include <math.h>

#include "friction/friction.h"
#include "friction/friction_impl.h"

double hy_friction_lugre_g(const hy_friction_def* p, double v, double h, double Fc) {
  const double t = pow(fabs(v) / p->stribeck_velocity, p->exponent);
  return Fc + ((1 - fabs(h)) * p->stiction - Fc) * exp(-t);
}

void hy_friction_bristles(const hy_friction_def* p, double v, double q, double Fs_eff, double Fc,
                          hy_friction_bristle* b) {
  const double a = fabs(v), sgn = v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
  const double s0 = p->stiffness;
  const double t = pow(a / p->stribeck_velocity, p->exponent);
  const double e = exp(-t);
  const double g = Fc + (Fs_eff - Fc) * e;
  // |v| dg/d|v| = -n (F_s - F_c) e t, finite at v = 0 for every n > 0
  const double a_dg = -p->exponent * (Fs_eff - Fc) * e * t;
  b->g = g;
  b->e = e;
  b->qd = v - s0 * a * q / g;
  b->dqd_dv = 1 - s0 * q * sgn / g * (1 - a_dg / g);
  b->dqd_dq = -s0 * a / g;
  b->dqd_dg = s0 * a * q / (g * g);
  // sigma1(v) and its slope
  double s1 = p->damping, ds1 = 0;
  if (p->damping_velocity > 0) {
    const double x = v / p->damping_velocity;
    s1 = p->damping * exp(-x * x);
    ds1 = -2 * x / p->damping_velocity * s1;
  }
  b->s1 = s1;
  // Eq. 27
  b->F = s0 * q + s1 * b->qd + p->viscous * v;
  b->dF_dv = ds1 * b->qd + s1 * b->dqd_dv + p->viscous;
  b->dF_dq = s0 + s1 * b->dqd_dq;
}

void hy_friction_lugre_eval(const hy_friction_def* p, double v, const double* w, double Fc,
                            hy_friction_out* o) {
  hy_friction_bristle b;
  hy_friction_bristles(p, v, w[0], p->stiction, Fc, &b);
  const double dg_dFc = 1 - b.e;
  o->F = b.F;
  o->dF_dv = b.dF_dv;
  o->dF_dw[0] = b.dF_dq;
  o->dF_dFc = b.s1 * b.dqd_dg * dg_dFc;
  o->wd[0] = b.qd;
  o->dwd_dv[0] = b.dqd_dv;
  o->dwd_dw[0][0] = b.dqd_dq;
  o->dwd_dFc[0] = b.dqd_dg * dg_dFc;
}
