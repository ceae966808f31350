// Parameters shared by the friction tests: four-bar B's seal friction (seed 002 Sect. 5; the
// seeds README "Four-bar B" values used by models/four-bar-b-<law>.yaml) and small helpers.
// Header-only (static functions) so that every test file of the area sees the same numbers.
#ifndef HYDYN_TESTS_FRICTION_FRICTION_PARAMS_H_
#define HYDYN_TESTS_FRICTION_FRICTION_PARAMS_H_

#include <math.h>

#include "friction/friction.h"
#include "hydyn/hydyn.h"

// Four-bar B.
#define FB_FC 210.0    // F_c (N)
#define FB_FS 830.0    // F_s (N)
#define FB_S2 330.0    // sigma2 (N s/m)
#define FB_VS 5e-3     // v_s (m/s)
#define FB_VT 1.25e-3  // coulomb: v_t (m/s)
#define FB_XI 200.0    // bengisu-akay: xi (s/m)
#define FB_S0 1e5      // lugre: sigma0 (N/m)
#define FB_S1 316.2    // lugre: sigma1 (N s/m)
#define FB_TAU_A 0.02  // film: tau_hp (s)
#define FB_TAU_D 0.2   // film: tau_hn (s)
#define FB_TAU_0 20.0  // film: tau_h0 (s)
#define FB_VB 0.05     // film: v_b (m/s)
#define FB_EPS 1e-5    // film: smoothing (m/s)

// Four-bar B's parameters for `law`, on top of the library defaults (so exponent 2,
// viscous_tanh4 1, damping_velocity 0 unless a test changes them).
static inline hy_friction_def fb_def(hy_friction_law law) {
  hy_friction_def p = hy_friction_def_default();
  p.law = law;
  p.coulomb = FB_FC;
  p.stiction = FB_FS;
  p.viscous = FB_S2;
  p.stribeck_velocity = FB_VS;
  p.tanh_velocity = FB_VT;
  p.decay = FB_XI;
  p.stiffness = FB_S0;
  p.damping = FB_S1;
  p.tau_accel = FB_TAU_A;
  p.tau_decel = FB_TAU_D;
  p.tau_dwell = FB_TAU_0;
  p.film_velocity = FB_VB;
  p.smoothing = FB_EPS;
  return p;
}

static inline double fb_sgn(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

// |got - want| <= tol max(|want|, scale): relative where the value is large, absolute (tol scale)
// where it passes near zero.
static inline int fb_near(double got, double want, double tol, double scale) {
  return fabs(got - want) <= tol * fmax(fabs(want), scale);
}

typedef struct ref_film {
  double hss, dhss_dv, hd, dhd_dv;
} ref_film;

// Seed 002 Eqs. 30-33 with the documented smoothing (eps = def.smoothing):
//   |v|_eps = sqrt(v^2 + eps^2) - eps,  h_ss = (1 - F_c,nom / F_s) min(|v|_eps / v_b, 1)^(2/3)
//   1/tau_h = w0 / tau_h0 + (1 - w0) / (|h| <= h_ss ? tau_hp : tau_hn),  w0 = exp(-(v/eps)^2)
//   h_dot = (h_ss - h) / tau_h
// K_f of Eq. 33 takes the nominal F_c (def.coulomb), not the pressure-dependent one.
static inline ref_film ref_film_rate(const hy_friction_def* p, double v, double h) {
  const double eps = p->smoothing, vb = p->film_velocity;
  const double r = sqrt(v * v + eps * eps), ve = r - eps;
  const double Kf_vb = 1 - p->coulomb / p->stiction;  // K_f v_b^(2/3)
  ref_film f;
  if (ve >= vb) {
    f.hss = Kf_vb;
    f.dhss_dv = 0;
  } else {
    f.hss = Kf_vb * pow(ve / vb, 2.0 / 3.0);
    f.dhss_dv = ve > 0 ? Kf_vb * (2.0 / 3.0) * pow(ve / vb, -1.0 / 3.0) / vb * (v / r) : 0;
  }
  const double w0 = exp(-(v / eps) * (v / eps));
  const double tau_move = fabs(h) <= f.hss ? p->tau_accel : p->tau_decel;
  const double rate = w0 / p->tau_dwell + (1 - w0) / tau_move;
  const double drate = -2 * v / (eps * eps) * w0 * (1 / p->tau_dwell - 1 / tau_move);
  f.hd = rate * (f.hss - h);
  f.dhd_dv = drate * (f.hss - h) + rate * f.dhss_dv;
  return f;
}

#endif  // HYDYN_TESTS_FRICTION_FRICTION_PARAMS_H_
