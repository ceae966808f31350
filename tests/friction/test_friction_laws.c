// Seal friction laws (src/friction) against the closed forms of seed 002 Sect. 3 (Eqs. 21-34)
// and seed 003 Eq. 8, written out again here from the papers: values and slopes at chosen
// velocities on four-bar B's parameters, continuity where the laws change branch, Brown-McPhee's
// sliding asymptote, the LuGre and film steady states, the state counts and the zeroing of the
// unused state entries. The documented deviations (docs/friction.md, the file heads of
// src/friction) are part of the closed forms: Bengisu-Akay's sigma2 v on both branches,
// Brown-McPhee's viscous factor, sigma1(v), the smoothed dwell switch and |v|_eps of the film.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "friction/friction.h"
#include "friction_params.h"
#include "hydyn/hydyn.h"

// Closed form against program: both evaluate the same expressions in a different algebraic
// order, so they agree to rounding; 1e-10 of the value (or of the quantity's scale near zero)
// leaves room for cancellation and still catches any wrong term.
#define TOL 1e-10

// The velocities of the value tests: rest, inside the Stribeck range, its edge, the decaying
// range, and sliding well above it.
static const double kV[] = {0,         0.3 * FB_VS, -0.3 * FB_VS, FB_VS, -FB_VS,
                            3 * FB_VS, -3 * FB_VS,  0.1,          -0.1};
#define NV ((int)(sizeof kV / sizeof kV[0]))

// A pressure-dependent Coulomb force larger than the nominal one: f_p N with N = 1.4e5 N adds
// 140 N (hy_friction_coulomb: F_c + f_p N).
#define FP 1e-3
#define NLOAD 1.4e5

//----- closed forms ----------------------------------------------------------------------------

typedef struct ref_static {
  double F, dF_dv, dF_dFc;
} ref_static;

// docs/friction.md baseline: F = F_c tanh(v / v_t) + sigma2 v.
static ref_static ref_coulomb(const hy_friction_def* p, double v, double Fc) {
  const double c = cosh(v / p->tanh_velocity);
  ref_static r;
  r.F = Fc * tanh(v / p->tanh_velocity) + p->viscous * v;
  r.dF_dv = Fc / (p->tanh_velocity * c * c) + p->viscous;  // sech^2 = 1 - tanh^2
  r.dF_dFc = tanh(v / p->tanh_velocity);
  return r;
}

// Seed 002 Eq. 22 with Eq. 23, sigma2 v added on both branches (the documented deviation):
//   |v| <  v_s: F = (-F_s / v_s^2 (|v| - v_s)^2 + F_s) sgn(v) + sigma2 v
//   |v| >= v_s: F = (F_c + (F_s - F_c) exp(-xi (|v| - v_s))) sgn(v) + sigma2 v
// d/dv of f(|v|) sgn(v) is f'(|v|) for v != 0 (and the parabola's f'(0) at v = 0, where the
// two one-sided slopes agree).
static ref_static ref_bengisu_akay(const hy_friction_def* p, double v, double Fc) {
  const double a = fabs(v), s = fb_sgn(v), Fs = p->stiction, vs = p->stribeck_velocity;
  ref_static r;
  if (a < vs) {
    r.F = (-Fs / (vs * vs) * (a - vs) * (a - vs) + Fs) * s + p->viscous * v;
    r.dF_dv = 2 * Fs * (vs - a) / (vs * vs) + p->viscous;
    r.dF_dFc = 0;
  } else {
    const double e = exp(-p->decay * (a - vs));
    r.F = (Fc + (Fs - Fc) * e) * s + p->viscous * v;
    r.dF_dv = -p->decay * (Fs - Fc) * e + p->viscous;
    r.dF_dFc = (1 - e) * s;
  }
  return r;
}

// Seed 002 Eq. 24 (k = tanh 4) and seed 003 Eq. 8 (k = 1), in the papers' |v|, sgn form with
// x = |v| / v_s and x / (x^2/4 + 3/4)^2 = 16 x / (x^2 + 3)^2:
//   F = (F_c tanh(4x) + (F_s - F_c) 16 x / (x^2 + 3)^2) sgn(v) + k sigma2 v
//   dF/dv = 4 F_c / (v_s cosh^2(4x)) + (F_s - F_c) 48 (1 - x^2) / ((x^2 + 3)^3 v_s) + k sigma2
static ref_static ref_brown_mcphee(const hy_friction_def* p, double v, double Fc) {
  const double vs = p->stribeck_velocity, Fs = p->stiction, s = fb_sgn(v);
  const double x = fabs(v) / vs, d = x * x + 3, c = cosh(4 * x);
  const double k = p->viscous_tanh4 ? tanh(4.0) : 1.0;
  ref_static r;
  r.F = (Fc * tanh(4 * x) + (Fs - Fc) * 16 * x / (d * d)) * s + k * p->viscous * v;
  r.dF_dv =
      4 * Fc / (vs * c * c) + (Fs - Fc) * 48 * (1 - x * x) / (d * d * d * vs) + k * p->viscous;
  r.dF_dFc = (tanh(4 * x) - 16 * x / (d * d)) * s;
  return r;
}

typedef struct ref_bristle {
  double g, qd, F, dqd_dv, dF_dv;
} ref_bristle;

// Seed 002 Eqs. 25-27 (LuGre, h = 0) and Eqs. 28-29, 34 (film at h):
//   g = F_c + ((1 - |h|) F_s - F_c) exp(-(|v|/v_s)^n)
//   q_dot = v - sigma0 |v| q / g
//   F = sigma0 q + sigma1(v) q_dot + sigma2 v,  sigma1(v) = sigma1 [exp(-(v/v_d)^2) if v_d > 0]
// Slopes at fixed q, h: d(|v|/g)/dv = (sgn(v) g - |v| dg/dv) / g^2 with
// dg/dv = -((1 - |h|) F_s - F_c) n (|v|/v_s)^(n-1) / v_s sgn(v) exp(..), whose product with |v|
// vanishes at v = 0 for every n > 0.
static ref_bristle ref_bristles(const hy_friction_def* p, double v, double q, double h, double Fc) {
  const double a = fabs(v), s = fb_sgn(v), vs = p->stribeck_velocity, n = p->exponent;
  const double s0 = p->stiffness, A = (1 - fabs(h)) * p->stiction - Fc;
  const double e = exp(-pow(a / vs, n));
  ref_bristle r;
  r.g = Fc + A * e;
  const double a_dg = a > 0 ? a * (-A * n * pow(a / vs, n - 1) / vs * s * e) : 0;  // |v| dg/dv
  r.qd = v - s0 * a * q / r.g;
  r.dqd_dv = 1 - s0 * q * (s * r.g - a_dg) / (r.g * r.g);
  double s1 = p->damping, ds1 = 0;
  if (p->damping_velocity > 0) {
    const double vd = p->damping_velocity;
    s1 = p->damping * exp(-(v / vd) * (v / vd));
    ds1 = -2 * v / (vd * vd) * s1;
  }
  r.F = s0 * q + s1 * r.qd + p->viscous * v;
  r.dF_dv = ds1 * r.qd + s1 * r.dqd_dv + p->viscous;
  return r;
}

//----- 1. values and slopes ------------------------------------------------------------------

typedef ref_static (*ref_fn)(const hy_friction_def*, double, double);

static void check_static(const char* what, const hy_friction_def* p, ref_fn ref, double Fc) {
  for (int i = 0; i < NV; i++) {
    const double v = kV[i];
    hy_friction_out o;
    hy_friction_eval(p, v, NULL, Fc, &o);
    const ref_static r = ref(p, v, Fc);
    ck_assert_msg(fb_near(o.F, r.F, TOL, FB_FS),
                  "%s, v = %g, F_c = %g: F = %.15g, closed form %.15g", what, v, Fc, o.F, r.F);
    ck_assert_msg(fb_near(o.dF_dv, r.dF_dv, TOL, FB_S2),
                  "%s, v = %g, F_c = %g: dF/dv = %.15g, closed form %.15g", what, v, Fc, o.dF_dv,
                  r.dF_dv);
    ck_assert_msg(fb_near(o.dF_dFc, r.dF_dFc, TOL, 1.0),
                  "%s, v = %g, F_c = %g: dF/dF_c = %.15g, closed form %.15g", what, v, Fc, o.dF_dFc,
                  r.dF_dFc);
  }
}

START_TEST(test_coulomb_values) {
  hy_friction_def p = fb_def(HY_FRICTION_COULOMB);
  check_static("coulomb", &p, ref_coulomb, FB_FC);
  p.pressure_coefficient = FP;
  const double Fc = hy_friction_coulomb(&p, NLOAD);
  ck_assert_double_eq_tol(Fc, FB_FC + FP * NLOAD, 1e-12);  // F_c + f_p N
  check_static("coulomb, pressure-dependent F_c", &p, ref_coulomb, Fc);
  // spot value: at v = v_t the tanh is tanh 1 = 0.76159415595576...
  hy_friction_out o;
  hy_friction_eval(&p, FB_VT, NULL, FB_FC, &o);
  ck_assert_msg(fabs(o.F - (FB_FC * 0.7615941559557649 + FB_S2 * FB_VT)) < 1e-9, "F(v_t) = %.15g",
                o.F);
}
END_TEST

START_TEST(test_bengisu_akay_values) {
  hy_friction_def p = fb_def(HY_FRICTION_BENGISU_AKAY);
  check_static("bengisu-akay", &p, ref_bengisu_akay, FB_FC);
  check_static("bengisu-akay, pressure-dependent F_c", &p, ref_bengisu_akay, FB_FC + FP * NLOAD);
  // spot values worked by hand: at 0.3 v_s the parabola gives F_s (1 - 0.49) = 423.3 N, plus
  // sigma2 v = 0.495 N; at v_s exactly F_s + sigma2 v_s = 831.65 N; at 3 v_s the decay
  // exp(-200 * 0.01) = e^-2.
  const struct {
    double v, F;
  } spot[] = {{0.3 * FB_VS, 423.3 + 0.495},
              {FB_VS, 831.65},
              {-FB_VS, -831.65},
              {3 * FB_VS, 210 + 620 * exp(-2.0) + 4.95}};
  for (int k = 0; k < 4; k++) {
    hy_friction_out o;
    hy_friction_eval(&p, spot[k].v, NULL, FB_FC, &o);
    ck_assert_msg(fabs(o.F - spot[k].F) < 1e-9, "bengisu-akay F(%g) = %.15g, by hand %.15g",
                  spot[k].v, o.F, spot[k].F);
  }
}
END_TEST

START_TEST(test_brown_mcphee_values) {
  hy_friction_def p = fb_def(HY_FRICTION_BROWN_MCPHEE);
  check_static("brown-mcphee, tanh 4 (seed 002 Eq. 24)", &p, ref_brown_mcphee, FB_FC);
  check_static("brown-mcphee, tanh 4, pressure-dependent F_c", &p, ref_brown_mcphee,
               FB_FC + FP * NLOAD);
  // at |v| = v_s the Stribeck term peaks at exactly F_s - F_c (x = 1: 16 / 16)
  hy_friction_out o;
  hy_friction_eval(&p, FB_VS, NULL, FB_FC, &o);
  ck_assert_msg(
      fabs(o.F - (FB_FC * tanh(4.0) + (FB_FS - FB_FC) + tanh(4.0) * FB_S2 * FB_VS)) < 1e-9,
      "brown-mcphee F(v_s) = %.15g", o.F);
  p.viscous_tanh4 = 0;
  check_static("brown-mcphee, sigma2 v (seed 003 Eq. 8)", &p, ref_brown_mcphee, FB_FC);
  check_static("brown-mcphee, sigma2 v, pressure-dependent F_c", &p, ref_brown_mcphee,
               FB_FC + FP * NLOAD);
  hy_friction_eval(&p, FB_VS, NULL, FB_FC, &o);
  ck_assert_msg(fabs(o.F - (FB_FC * tanh(4.0) + (FB_FS - FB_FC) + FB_S2 * FB_VS)) < 1e-9,
                "brown-mcphee (seed 003) F(v_s) = %.15g", o.F);
}
END_TEST

// LuGre variants: the exponent n of Eq. 26 and sigma1(v).
typedef struct lugre_case {
  const char* label;
  double n, vd, Fc;
} lugre_case;

static const lugre_case kLugre[] = {
    {"n = 2, constant sigma1", 2, 0, FB_FC},
    {"n = 1", 1, 0, FB_FC},
    {"n = 1.5", 1.5, 0, FB_FC},
    {"n = 2, sigma1 exp(-(v/v_d)^2), v_d = 2 v_s", 2, 2 * FB_VS, FB_FC},
    {"n = 2, pressure-dependent F_c", 2, 0, FB_FC + FP* NLOAD},
    {"n = 1.5, v_d = 2 v_s, pressure-dependent F_c", 1.5, 2 * FB_VS, FB_FC + FP* NLOAD},
};
#define NLUGRE ((int)(sizeof kLugre / sizeof kLugre[0]))

// Deflections: resting, a fraction of the break-away deflection F_s / sigma0 either way.
static const double kQ[] = {0, 0.3 * FB_FS / FB_S0, -0.6 * FB_FS / FB_S0};

START_TEST(test_lugre_values) {
  const lugre_case* c = &kLugre[_i];
  hy_friction_def p = fb_def(HY_FRICTION_LUGRE);
  p.exponent = c->n;
  p.damping_velocity = c->vd;
  for (int i = 0; i < NV; i++) {
    for (int j = 0; j < 3; j++) {
      const double v = kV[i], w[2] = {kQ[j], NAN};  // w[1] is not LuGre's: must not be read
      hy_friction_out o;
      hy_friction_eval(&p, v, w, c->Fc, &o);
      const ref_bristle r = ref_bristles(&p, v, kQ[j], 0, c->Fc);
      ck_assert_msg(fb_near(o.F, r.F, TOL, FB_FS),
                    "lugre %s, v = %g, q = %g: F = %.15g, Eq. 27 %.15g", c->label, v, kQ[j], o.F,
                    r.F);
      ck_assert_msg(fb_near(o.dF_dv, r.dF_dv, TOL, FB_S2),
                    "lugre %s, v = %g, q = %g: dF/dv = %.15g, closed form %.15g", c->label, v,
                    kQ[j], o.dF_dv, r.dF_dv);
      ck_assert_msg(fb_near(o.wd[0], r.qd, TOL, FB_VS),
                    "lugre %s, v = %g, q = %g: q_dot = %.15g, Eq. 25 %.15g", c->label, v, kQ[j],
                    o.wd[0], r.qd);
      ck_assert_msg(fb_near(o.dwd_dv[0], r.dqd_dv, TOL, 1.0),
                    "lugre %s, v = %g, q = %g: dq_dot/dv = %.15g, closed form %.15g", c->label, v,
                    kQ[j], o.dwd_dv[0], r.dqd_dv);
      // q_dot is linear in q: d/dq = -sigma0 |v| / g, and F = sigma0 q + sigma1 q_dot + ...
      const double dqd_dq = -FB_S0 * fabs(v) / r.g;
      ck_assert_msg(fb_near(o.dwd_dw[0][0], dqd_dq, TOL, 1.0),
                    "lugre %s, v = %g: dq_dot/dq = %.15g", c->label, v, o.dwd_dw[0][0]);
    }
  }
  // at rest with no deflection there is no force, and at rest the bristles follow v exactly
  hy_friction_out o;
  const double w0[1] = {0};
  hy_friction_eval(&p, 0, w0, c->Fc, &o);
  ck_assert_double_eq(o.F, 0.0);
  ck_assert_double_eq(o.wd[0], 0.0);
}
END_TEST

// Film: values, bristle and film rates, at films thinner and thicker than h_ss.
static const double kVfilm[] = {0,     FB_EPS, -FB_EPS,   3 * FB_EPS, 0.3 * FB_VS, -0.3 * FB_VS,
                                FB_VS, -FB_VS, 3 * FB_VS, -3 * FB_VS, 0.5 * FB_VB, 0.1,
                                -0.1};
#define NVFILM ((int)(sizeof kVfilm / sizeof kVfilm[0]))

START_TEST(test_film_values) {
  const double Fcs[2] = {FB_FC, FB_FC + FP * NLOAD};
  const double hs[3] = {0, 0.05, 0.6};
  hy_friction_def p = fb_def(HY_FRICTION_LUGRE_FILM);
  for (int f = 0; f < 2; f++) {
    for (int i = 0; i < NVFILM; i++) {
      for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 3; k++) {
          const double v = kVfilm[i], q = kQ[j], h = hs[k], Fc = Fcs[f];
          const double w[2] = {q, h};
          hy_friction_out o;
          hy_friction_eval(&p, v, w, Fc, &o);
          const ref_bristle r = ref_bristles(&p, v, q, h, Fc);
          const ref_film fr = ref_film_rate(&p, v, h);
          ck_assert_msg(fb_near(o.F, r.F, TOL, FB_FS),
                        "film v = %g, q = %g, h = %g, F_c = %g: F = %.15g, Eq. 34 %.15g", v, q, h,
                        Fc, o.F, r.F);
          ck_assert_msg(fb_near(o.dF_dv, r.dF_dv, TOL, FB_S2),
                        "film v = %g, q = %g, h = %g, F_c = %g: dF/dv = %.15g, closed form %.15g",
                        v, q, h, Fc, o.dF_dv, r.dF_dv);
          ck_assert_msg(fb_near(o.wd[0], r.qd, TOL, FB_VS),
                        "film v = %g, q = %g, h = %g, F_c = %g: q_dot = %.15g, Eq. 28 %.15g", v, q,
                        h, Fc, o.wd[0], r.qd);
          ck_assert_msg(fb_near(o.dwd_dv[0], r.dqd_dv, TOL, 1.0),
                        "film v = %g, q = %g, h = %g: dq_dot/dv = %.15g, closed form %.15g", v, q,
                        h, o.dwd_dv[0], r.dqd_dv);
          ck_assert_msg(fb_near(o.wd[1], fr.hd, TOL, 1.0 / FB_TAU_A),
                        "film v = %g, h = %g, F_c = %g: h_dot = %.15g, Eqs. 30-33 %.15g", v, h, Fc,
                        o.wd[1], fr.hd);
          ck_assert_msg(fb_near(o.dwd_dv[1], fr.dhd_dv, TOL, 1.0 / (FB_TAU_A * FB_VS)),
                        "film v = %g, h = %g: dh_dot/dv = %.15g, closed form %.15g", v, h,
                        o.dwd_dv[1], fr.dhd_dv);
          // Eq. 30: h_dot is linear in h with slope -1/tau_h; Eq. 33's K_f ignores F_c's
          // pressure dependence, so h_dot does not depend on F_c
          ck_assert_msg(o.dwd_dFc[1] == 0, "film: dh_dot/dF_c = %g", o.dwd_dFc[1]);
          ck_assert_msg(o.dwd_dw[1][0] == 0, "film: dh_dot/dq = %g", o.dwd_dw[1][0]);
        }
      }
    }
  }
  // Hand-worked rates on four-bar B (F_c / F_s = 210 / 830, K_f v_b^(2/3) = 620 / 830):
  // at rest (w0 = 1) the film drains with the dwell constant: h_dot = -h / 20 s;
  const double w_rest[2] = {0, 0.6};
  hy_friction_out o;
  hy_friction_eval(&p, 0, w_rest, FB_FC, &o);
  ck_assert_msg(fabs(o.wd[1] - (-0.6 / 20)) < 1e-15, "film at rest: h_dot = %.15g, want -0.03",
                o.wd[1]);
  // above v_b (0.1 m/s, w0 = 0) a film at 0.05 < h_ss = 620/830 grows with tau_hp = 0.02 s,
  // and a film at 0.8 > h_ss thins with tau_hn = 0.2 s.
  const double w_thin[2] = {0, 0.05}, w_thick[2] = {0, 0.8};
  hy_friction_eval(&p, 0.1, w_thin, FB_FC, &o);
  ck_assert_msg(fabs(o.wd[1] - (620.0 / 830.0 - 0.05) / 0.02) < 1e-12,
                "film growing: h_dot = %.15g", o.wd[1]);
  hy_friction_eval(&p, -0.1, w_thick, FB_FC + 140, &o);  // K_f keeps the nominal F_c
  ck_assert_msg(fabs(o.wd[1] - (620.0 / 830.0 - 0.8) / 0.2) < 1e-12, "film thinning: h_dot = %.15g",
                o.wd[1]);
}
END_TEST

//----- 2. continuity ----------------------------------------------------------------------------

// The static laws vanish at v = 0 and approach 0 from both sides linearly, with the slope
// the closed form gives at 0 (Eq. 22: 2 F_s / v_s + sigma2; Eq. 24: (4 F_c + 16/9 (F_s - F_c)) /
// v_s + k sigma2; tanh: F_c / v_t + sigma2), and the laws are odd in v.
START_TEST(test_static_continuous_at_rest) {
  const hy_friction_law laws[3] = {HY_FRICTION_COULOMB, HY_FRICTION_BENGISU_AKAY,
                                   HY_FRICTION_BROWN_MCPHEE};
  const double slope0[3] = {FB_FC / FB_VT + FB_S2, 2 * FB_FS / FB_VS + FB_S2,
                            (4 * FB_FC + 16.0 / 9.0 * (FB_FS - FB_FC)) / FB_VS + tanh(4.0) * FB_S2};
  for (int l = 0; l < 3; l++) {
    const hy_friction_def p = fb_def(laws[l]);
    hy_friction_out o;
    hy_friction_eval(&p, 0, NULL, FB_FC, &o);
    ck_assert_msg(o.F == 0, "law %d: F(0) = %g", laws[l], o.F);
    ck_assert_msg(fb_near(o.dF_dv, slope0[l], TOL, 1), "law %d: dF/dv(0) = %.15g, want %.15g",
                  laws[l], o.dF_dv, slope0[l]);
    for (int k = 3; k <= 12; k++) {
      const double d = FB_VS * pow(10.0, -k);
      hy_friction_out lo, hi;
      hy_friction_eval(&p, -d, NULL, FB_FC, &lo);
      hy_friction_eval(&p, d, NULL, FB_FC, &hi);
      // F(d) = slope0 d + O(d^2): within 1e-2 of the linear term at d <= 1e-3 v_s
      ck_assert_msg(fabs(hi.F - slope0[l] * d) <= 1e-2 * slope0[l] * d,
                    "law %d: F(+%g) = %.6g, not ~ %.6g", laws[l], d, hi.F, slope0[l] * d);
      ck_assert_msg(lo.F == -hi.F, "law %d: F(-%g) = %.17g, F(+%g) = %.17g: not odd", laws[l], d,
                    lo.F, d, hi.F);
    }
  }
}
END_TEST

// Bengisu-Akay's branches meet at |v| = v_s: the parabola reaches F_s there and the decay starts
// from F_s; with sigma2 v on both branches nothing jumps (seed 002's Eq. 22 as printed would
// jump by sigma2 v_s = 1.65 N, 2e-3 of F_s). Also with a pressure-dependent F_c, which only the
// decay branch reads.
START_TEST(test_bengisu_akay_continuous_at_vs) {
  const hy_friction_def p = fb_def(HY_FRICTION_BENGISU_AKAY);
  const double Fcs[2] = {FB_FC, FB_FC + FP * NLOAD};
  for (int f = 0; f < 2; f++) {
    for (int s = -1; s <= 1; s += 2) {
      // the decay's slope -xi (F_s - F_c) moves F by 6e-7 N per 1e-9 v_s: start at 1e-10 v_s
      for (int k = 10; k <= 14; k++) {
        const double d = FB_VS * pow(10.0, -k);
        hy_friction_out in, out, at;
        hy_friction_eval(&p, s * (FB_VS - d), NULL, Fcs[f], &in);
        hy_friction_eval(&p, s * (FB_VS + d), NULL, Fcs[f], &out);
        hy_friction_eval(&p, s * FB_VS, NULL, Fcs[f], &at);
        const double want = s * (FB_FS + FB_S2 * FB_VS);
        ck_assert_msg(fabs(in.F - out.F) <= 1e-9 * fabs(want),
                      "bengisu-akay at %+g v_s (d = %g, F_c = %g): F %.15g inside, %.15g outside",
                      s * 1.0, d, Fcs[f], in.F, out.F);
        ck_assert_msg(
            fabs(in.F - want) <= 1e-9 * fabs(want) && fabs(at.F - want) <= 1e-12 * fabs(want),
            "bengisu-akay at %+g v_s: F %.15g inside, %.15g at, want F_s + sigma2 v_s = %.15g",
            s * 1.0, in.F, at.F, want);
      }
      // the largest double below v_s, the last point of the parabola
      hy_friction_out in, at;
      hy_friction_eval(&p, s * nextafter(FB_VS, 0), NULL, Fcs[f], &in);
      hy_friction_eval(&p, s * FB_VS, NULL, Fcs[f], &at);
      ck_assert_msg(fabs(in.F - at.F) <= 1e-9 * fabs(at.F), "bengisu-akay: F %.17g / %.17g", in.F,
                    at.F);
    }
  }
}
END_TEST

// The dynamic laws at fixed states: continuous through v = 0 (q_dot and F change slope there, not
// value), and the film's rate is continuous where Eq. 31 switches between tau_hp and tau_hn
// (h_dot = 0 on |h| = h_ss, so the switch costs nothing) and through the smoothed dwell switch.
START_TEST(test_dynamic_continuous) {
  const hy_friction_def lugre = fb_def(HY_FRICTION_LUGRE);
  const hy_friction_def film = fb_def(HY_FRICTION_LUGRE_FILM);
  const double q = 0.4 * FB_FS / FB_S0;
  for (int k = 6; k <= 12; k++) {
    const double d = FB_VS * pow(10.0, -k);
    const double w[2] = {q, 0.3};
    hy_friction_out lo, hi, at;
    for (int l = 0; l < 2; l++) {
      const hy_friction_def* p = l ? &film : &lugre;
      hy_friction_eval(p, -d, w, FB_FC, &lo);
      hy_friction_eval(p, d, w, FB_FC, &hi);
      hy_friction_eval(p, 0, w, FB_FC, &at);
      // |F(+-d) - F(0)| <= (sigma1 (1 + sigma0 q / g) + sigma2) d with g >= F_c
      const double bound = (FB_S1 * (1 + FB_S0 * q / FB_FC) + FB_S2) * d * (1 + 1e-9);
      ck_assert_msg(fabs(lo.F - at.F) <= bound && fabs(hi.F - at.F) <= bound,
                    "law %d at v = +-%g: F %.15g, %.15g, %.15g at 0", p->law, d, lo.F, hi.F, at.F);
      ck_assert_msg(at.F == FB_S0 * q, "law %d: F(0) = %.17g, want sigma0 q", p->law, at.F);
    }
    // film rate near v = 0: both limits approach -h / tau_h0. At |v| = d the moving rate enters
    // with weight 1 - w0 = (d/eps)^2 + ..., tau_h0 / tau_hn times larger than the dwell rate;
    // h_ss(d) ~ (d^2 / (2 eps v_b))^(2/3) is smaller still.
    const double tol = 2 * (d / FB_EPS) * (d / FB_EPS) * FB_TAU_0 / FB_TAU_D + 1e-12;
    ck_assert_msg(fabs(lo.wd[1] - at.wd[1]) <= tol * fabs(at.wd[1]) &&
                      fabs(hi.wd[1] - at.wd[1]) <= tol * fabs(at.wd[1]),
                  "film h_dot at v = +-%g: %.15g, %.15g, %.15g at 0", d, lo.wd[1], hi.wd[1],
                  at.wd[1]);
  }
  // across |h| = h_ss at a moving velocity (w0 = 0): h_dot -> 0 from both sides
  const double v = 2 * FB_VS;
  const ref_film fr = ref_film_rate(&film, v, 0);  // h_ss(v)
  for (int k = 6; k <= 12; k++) {
    const double dh = pow(10.0, -k);
    const double below[2] = {q, fr.hss - dh}, above[2] = {q, fr.hss + dh};
    hy_friction_out b, a;
    hy_friction_eval(&film, v, below, FB_FC, &b);
    hy_friction_eval(&film, v, above, FB_FC, &a);
    // |h_dot| = |h - h_ss| / tau with tau_hp below (growing) and tau_hn above (thinning); h_ss - h
    // is rounded to an ulp of h_ss (1e-15 h_ss covers a few)
    const double r = 1e-15 * fr.hss;
    ck_assert_msg(fabs(b.wd[1] - dh / FB_TAU_A) <= (1e-6 * dh + r) / FB_TAU_A,
                  "film below h_ss by %g: h_dot = %.15g, want %.15g", dh, b.wd[1], dh / FB_TAU_A);
    ck_assert_msg(fabs(a.wd[1] + dh / FB_TAU_D) <= (1e-6 * dh + r) / FB_TAU_D,
                  "film above h_ss by %g: h_dot = %.15g, want %.15g", dh, a.wd[1], -dh / FB_TAU_D);
  }
}
END_TEST

//----- 3. Brown-McPhee's sliding asymptote -----------------------------------------------------

// For x = |v| / v_s >> 1, Eq. 24 is F_c tanh(4x) + (F_s - F_c) 16 x / (x^2 + 3)^2 + k sigma2 v:
// tanh(4x) = 1 to rounding once 2 e^(-8x) < 1e-17 (x > 5), and the Stribeck term lies in
// (0, 16 (F_s - F_c) / x^3) and above (1 - 6 / x^2) of that bound (expanding 1 / (1 + 3/x^2)^2).
// At x = 200 the bound is 16 * 620 / 8e6 = 1.24e-3 N: the force sits that close above
// F_c + k sigma2 v, with k = tanh 4 (seed 002 Eq. 24) or 1 (seed 003 Eq. 8).
START_TEST(test_brown_mcphee_asymptote) {
  for (int t4 = 0; t4 <= 1; t4++) {
    hy_friction_def p = fb_def(HY_FRICTION_BROWN_MCPHEE);
    p.viscous_tanh4 = t4;
    const double k = t4 ? tanh(4.0) : 1.0;
    const double xs[3] = {50, 200, 1000};
    for (int i = 0; i < 3; i++) {
      for (int s = -1; s <= 1; s += 2) {
        const double x = xs[i], v = s * x * FB_VS;
        hy_friction_out o;
        hy_friction_eval(&p, v, NULL, FB_FC, &o);
        const double asym = s * FB_FC + k * FB_S2 * v;
        const double bound = 16 * (FB_FS - FB_FC) / (x * x * x);
        const double round = 1e-13 * fabs(asym);  // F's rounding
        const double dev = s * (o.F - asym);      // the Stribeck term, positive
        ck_assert_msg(dev <= bound + round && dev >= (1 - 6 / (x * x)) * bound - round,
                      "brown-mcphee (tanh4 = %d) at v = %g (%g v_s): F = %.15g, F_c + k sigma2 v = "
                      "%.15g, Stribeck residue %.6g outside [%.6g, %.6g]",
                      t4, v, s * x, o.F, asym, dev, (1 - 6 / (x * x)) * bound, bound);
      }
    }
    // and the slope tends to k sigma2: the Stribeck slope (F_s - F_c) 48 (1 - x^2) / ((x^2 + 3)^3
    // v_s) is negative and smaller than 48 (F_s - F_c) / (x^4 v_s)
    hy_friction_out o;
    hy_friction_eval(&p, 200 * FB_VS, NULL, FB_FC, &o);
    ck_assert_msg(fabs(o.dF_dv - k * FB_S2) <= 48 * (FB_FS - FB_FC) / (pow(200, 4) * FB_VS),
                  "brown-mcphee slope at 200 v_s: %.15g, want ~ %.15g", o.dF_dv, k * FB_S2);
  }
}
END_TEST

//----- 4. steady states ------------------------------------------------------------------------

// At steady sliding q_dot = 0 (Eq. 25): q = sgn(v) g(v) / sigma0, and Eq. 27 becomes
// F = g(v) sgn(v) + sigma2 v, the Stribeck curve. The film adds h = h_ss(v) (Eq. 30 with
// h_dot = 0) and g(v, h_ss) (Eq. 29).
static const double kVss[] = {0,     1e-7,       -1e-7,     FB_EPS,      0.2 * FB_VS, -0.5 * FB_VS,
                              FB_VS, -2 * FB_VS, 5 * FB_VS, 0.8 * FB_VB, -FB_VB,      0.1,
                              -0.3};
#define NVSS ((int)(sizeof kVss / sizeof kVss[0]))

START_TEST(test_lugre_steady) {
  const lugre_case* c = &kLugre[_i];
  for (int film = 0; film <= 1; film++) {
    hy_friction_def p = fb_def(film ? HY_FRICTION_LUGRE_FILM : HY_FRICTION_LUGRE);
    p.exponent = c->n;
    p.damping_velocity = c->vd;
    for (int i = 0; i < NVSS; i++) {
      const double v = kVss[i], s = fb_sgn(v);
      double w[2] = {NAN, NAN};
      hy_friction_steady_states(&p, v, c->Fc, w);
      const double h = film ? ref_film_rate(&p, v, 0).hss : 0;
      const double g = c->Fc + ((1 - h) * FB_FS - c->Fc) * exp(-pow(fabs(v) / FB_VS, c->n));
      ck_assert_msg(fb_near(w[0], s * g / FB_S0, TOL, FB_FC / FB_S0),
                    "%s %s, v = %g: steady q = %.15g, sgn(v) g / sigma0 = %.15g",
                    p.law == HY_FRICTION_LUGRE ? "lugre" : "film", c->label, v, w[0],
                    s * g / FB_S0);
      if (film) {
        ck_assert_msg(fb_near(w[1], h, TOL, 1e-3), "film %s, v = %g: steady h = %.15g, h_ss %.15g",
                      c->label, v, w[1], h);
      }
      hy_friction_out o;
      hy_friction_eval(&p, v, w, c->Fc, &o);
      for (int k = 0; k < hy_friction_nstates(p.law); k++) {
        // q_dot = v (1 - sigma0 q / g) = v (1 - 1): rounding of v; h_dot = (h_ss - h) / tau_h with
        // h taken from the same h_ss: 0
        const double bound = k == 0 ? 1e-14 * fabs(v) : 1e-12;
        ck_assert_msg(fabs(o.wd[k]) <= bound, "law %d %s, v = %g: rate %d = %g at the steady state",
                      p.law, c->label, v, k, o.wd[k]);
      }
      const double F = hy_friction_steady_force(&p, v, c->Fc);
      const double want = g * s + FB_S2 * v;
      ck_assert_msg(fb_near(F, want, TOL, FB_FC),
                    "law %d %s, v = %g: steady force %.15g, g sgn(v) + sigma2 v = %.15g", p.law,
                    c->label, v, F, want);
      ck_assert_msg(fb_near(o.F, want, TOL, FB_FC),
                    "law %d %s, v = %g: F at the steady states %.15g, want %.15g", p.law, c->label,
                    v, o.F, want);
    }
  }
}
END_TEST

// The static laws' steady force is their value.
START_TEST(test_static_steady_force) {
  const hy_friction_law laws[3] = {HY_FRICTION_COULOMB, HY_FRICTION_BENGISU_AKAY,
                                   HY_FRICTION_BROWN_MCPHEE};
  const ref_fn refs[3] = {ref_coulomb, ref_bengisu_akay, ref_brown_mcphee};
  for (int l = 0; l < 3; l++) {
    const hy_friction_def p = fb_def(laws[l]);
    for (int i = 0; i < NVSS; i++) {
      const double F = hy_friction_steady_force(&p, kVss[i], FB_FC + 40);
      const double want = refs[l](&p, kVss[i], FB_FC + 40).F;
      ck_assert_msg(fb_near(F, want, TOL, FB_FC), "law %d, v = %g: steady force %.15g, want %.15g",
                    laws[l], kVss[i], F, want);
    }
  }
}
END_TEST

//----- 8. states ---------------------------------------------------------------------------

START_TEST(test_nstates_and_defaults) {
  ck_assert_int_eq(hy_friction_nstates(HY_FRICTION_NONE), 0);
  ck_assert_int_eq(hy_friction_nstates(HY_FRICTION_COULOMB), 0);
  ck_assert_int_eq(hy_friction_nstates(HY_FRICTION_BENGISU_AKAY), 0);
  ck_assert_int_eq(hy_friction_nstates(HY_FRICTION_BROWN_MCPHEE), 0);
  ck_assert_int_eq(hy_friction_nstates(HY_FRICTION_LUGRE), 1);
  ck_assert_int_eq(hy_friction_nstates(HY_FRICTION_LUGRE_FILM), 2);
  for (int law = 0; law < HY_FRICTION_COUNT; law++) {
    ck_assert_int_le(hy_friction_nstates((hy_friction_law)law), HY_FRICTION_MAX_STATES);
  }
  ck_assert_str_eq(hy_friction_state_name(HY_FRICTION_LUGRE_FILM, 0), "q");
  ck_assert_str_eq(hy_friction_state_name(HY_FRICTION_LUGRE_FILM, 1), "h");
  ck_assert_str_eq(hy_friction_state_unit(HY_FRICTION_LUGRE, 0), "m");
  ck_assert_str_eq(hy_friction_state_unit(HY_FRICTION_LUGRE_FILM, 1), "-");
  ck_assert_str_eq(hy_friction_state_name(HY_FRICTION_LUGRE, 1), "");
  ck_assert_str_eq(hy_friction_state_name(HY_FRICTION_COULOMB, 0), "");
  // docs/friction.md defaults: law none, viscous_tanh4 1, exponent 2, smoothing 1e-5 m/s, the rest
  // 0
  const hy_friction_def d = hy_friction_def_default();
  ck_assert_int_eq(d.law, HY_FRICTION_NONE);
  ck_assert_int_eq(d.viscous_tanh4, 1);
  ck_assert_double_eq(d.exponent, 2.0);
  ck_assert_double_eq(d.smoothing, 1e-5);
  const double zeros[] = {d.coulomb,           d.stiction,
                          d.stribeck_velocity, d.viscous,
                          d.tanh_velocity,     d.decay,
                          d.stiffness,         d.damping,
                          d.damping_velocity,  d.tau_accel,
                          d.tau_decel,         d.tau_dwell,
                          d.film_velocity,     d.pressure_coefficient};
  for (int k = 0; k < (int)(sizeof zeros / sizeof zeros[0]); k++) {
    ck_assert_msg(zeros[k] == 0, "default number %d is %g", k, zeros[k]);
  }
}
END_TEST

// hy_friction_eval writes every entry of `out`: those beyond the law's states are 0 whatever
// `out` held before (here all bits set, a NaN), and the law itself is untouched by states
// beyond its own (NaN there).
START_TEST(test_eval_zeroes_unused_entries) {
  for (int law = 0; law < HY_FRICTION_COUNT; law++) {
    hy_friction_def p = fb_def((hy_friction_law)law);
    const int ns = hy_friction_nstates(p.law);
    double w[2] = {0.2 * FB_FS / FB_S0, 0.3};
    for (int k = ns; k < 2; k++) w[k] = NAN;
    const double vs[3] = {0, 0.7 * FB_VS, -4 * FB_VS};
    for (int i = 0; i < 3; i++) {
      hy_friction_out o;
      memset(&o, 0xff, sizeof o);
      hy_friction_eval(&p, vs[i], w, FB_FC, &o);
      ck_assert_msg(isfinite(o.F) && isfinite(o.dF_dv) && isfinite(o.dF_dFc),
                    "law %d, v = %g: F %g, dF/dv %g, dF/dF_c %g", law, vs[i], o.F, o.dF_dv,
                    o.dF_dFc);
      if (law == HY_FRICTION_NONE) {
        ck_assert_msg(o.F == 0 && o.dF_dv == 0 && o.dF_dFc == 0, "law none gives a force");
      }
      for (int k = 0; k < HY_FRICTION_MAX_STATES; k++) {
        if (k < ns) {
          ck_assert_msg(isfinite(o.wd[k]) && isfinite(o.dF_dw[k]) && isfinite(o.dwd_dv[k]) &&
                            isfinite(o.dwd_dFc[k]),
                        "law %d: entries of state %d not finite", law, k);
          for (int j = 0; j < ns; j++) {
            ck_assert_msg(isfinite(o.dwd_dw[k][j]), "law %d: dwd_dw[%d][%d] = %g", law, k, j,
                          o.dwd_dw[k][j]);
          }
        } else {
          ck_assert_msg(
              o.dF_dw[k] == 0 && o.wd[k] == 0 && o.dwd_dv[k] == 0 && o.dwd_dFc[k] == 0,
              "law %d, v = %g: state %d beyond its %d: dF_dw %g wd %g dwd_dv %g dwd_dFc %g", law,
              vs[i], k, ns, o.dF_dw[k], o.wd[k], o.dwd_dv[k], o.dwd_dFc[k]);
        }
        for (int j = 0; j < HY_FRICTION_MAX_STATES; j++) {
          if (k >= ns || j >= ns) {
            ck_assert_msg(o.dwd_dw[k][j] == 0, "law %d: dwd_dw[%d][%d] = %g beyond its states", law,
                          k, j, o.dwd_dw[k][j]);
          }
        }
      }
    }
  }
}
END_TEST

Suite* friction_laws_suite(void) {
  Suite* s = suite_create("friction_laws");
  TCase* tc = tcase_create("values");
  tcase_add_test(tc, test_coulomb_values);
  tcase_add_test(tc, test_bengisu_akay_values);
  tcase_add_test(tc, test_brown_mcphee_values);
  tcase_add_loop_test(tc, test_lugre_values, 0, NLUGRE);
  tcase_add_test(tc, test_film_values);
  suite_add_tcase(s, tc);
  tc = tcase_create("continuity");
  tcase_add_test(tc, test_static_continuous_at_rest);
  tcase_add_test(tc, test_bengisu_akay_continuous_at_vs);
  tcase_add_test(tc, test_dynamic_continuous);
  suite_add_tcase(s, tc);
  tc = tcase_create("asymptotes and steady states");
  tcase_add_test(tc, test_brown_mcphee_asymptote);
  tcase_add_loop_test(tc, test_lugre_steady, 0, NLUGRE);
  tcase_add_test(tc, test_static_steady_force);
  suite_add_tcase(s, tc);
  tc = tcase_create("states");
  tcase_add_test(tc, test_nstates_and_defaults);
  tcase_add_test(tc, test_eval_zeroes_unused_entries);
  suite_add_tcase(s, tc);
  return s;
}
