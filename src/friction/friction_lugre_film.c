// Modified LuGre friction with lubricant-film dynamics, seed 002 Eqs. 28-34: the bristles of
// LuGre (Eqs. 28, 34) on a Stribeck function thinned by the film h (Eq. 29),
//   g(v, h) = F_c + ((1 - |h|) F_s - F_c) exp(-(|v|/v_s)^n),
// and the film following its steady thickness with a first-order lag (Eq. 30),
//   h_dot = (h_ss(v) - h) / tau_h,   h_ss = K_f min(|v|, v_b)^(2/3),  K_f = (1 - F_c/F_s)
//   v_b^(-2/3)
// (Eqs. 32-33), with tau_h = tau_hp while the film grows (|h| <= h_ss), tau_hn while it thins,
// and tau_h0 at rest (Eq. 31).
//
// Smoothing (docs/friction.md): Eq. 31 switches on |v| = 0 exactly, which the iterates of a
// Newton step never hit, and |v|^(2/3) has an infinite slope at v = 0. Both use one width
// eps = hy_friction_def.smoothing: the rate 1/tau_h blends the dwell and the moving constants
// with the weight w0 = exp(-(v/eps)^2), and h_ss takes |v|_eps = sqrt(v^2 + eps^2) - eps in place
// of |v|. The switch between tau_hp and tau_hn needs none (h_dot is 0 on it, so the rate is
// continuous), nor the kink of h_ss at v_b (continuous in value). K_f uses the nominal F_c.
#include <math.h>

#include "friction/friction.h"
#include "friction/friction_impl.h"

double hy_friction_film_steady(const hy_friction_def* p, double v, double* dh_dv) {
  const double eps = p->smoothing, vb = p->film_velocity;
  const double r = sqrt(v * v + eps * eps);
  const double x = v * v / (r + eps) / vb;  // |v|_eps / v_b, sqrt(v^2 + eps^2) - eps without the
                                            // cancellation at |v| << eps
  const double top = 1 - p->coulomb / p->stiction;  // K_f v_b^(2/3)
  if (x >= 1) {
    *dh_dv = 0;
    return top;
  }
  if (x <= 0) {  // v = 0
    *dh_dv = 0;
    return 0;
  }
  const double c = cbrt(x);
  *dh_dv = top * (2.0 / 3.0) / c / vb * (v / r);
  return top * c * c;
}

void hy_friction_lugre_film_eval(const hy_friction_def* p, double v, const double* w, double Fc,
                                 hy_friction_out* o) {
  const double q = w[0], h = w[1];
  const double sgn_h = h > 0 ? 1.0 : (h < 0 ? -1.0 : 0.0);
  hy_friction_bristle b;
  hy_friction_bristles(p, v, q, (1 - fabs(h)) * p->stiction, Fc, &b);
  const double dg_dFc = 1 - b.e;
  const double dg_dh = -sgn_h * p->stiction * b.e;
  o->F = b.F;
  o->dF_dv = b.dF_dv;
  o->dF_dw[0] = b.dF_dq;
  o->dF_dw[1] = b.s1 * b.dqd_dg * dg_dh;
  o->dF_dFc = b.s1 * b.dqd_dg * dg_dFc;
  o->wd[0] = b.qd;
  o->dwd_dv[0] = b.dqd_dv;
  o->dwd_dw[0][0] = b.dqd_dq;
  o->dwd_dw[0][1] = b.dqd_dg * dg_dh;
  o->dwd_dFc[0] = b.dqd_dg * dg_dFc;
  // Eqs. 30-32 with the smoothed dwell switch
  double dhss;
  const double hss = hy_friction_film_steady(p, v, &dhss);
  const double eps = p->smoothing;
  const double y = v / eps;
  const double w0 = exp(-y * y);
  const double dw0 = -2 * y / eps * w0;
  const double inv_move = 1 / (fabs(h) <= hss ? p->tau_accel : p->tau_decel);
  const double rate = w0 / p->tau_dwell + (1 - w0) * inv_move;
  const double drate = dw0 * (1 / p->tau_dwell - inv_move);
  o->wd[1] = rate * (hss - h);
  o->dwd_dv[1] = drate * (hss - h) + rate * dhss;
  o->dwd_dw[1][1] = -rate;
}
