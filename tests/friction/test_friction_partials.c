// Every partial derivative hy_friction_eval returns (dF/dv, dF/dF_c, dF/dw, dw_dot/dv,
// dw_dot/dF_c, dw_dot/dw) against central differences of hy_friction_eval itself, at random
// points of each law (four-bar B parameters and variants): the Newton tangent of a run is built
// from these, so a wrong one slows or breaks its convergence without changing any value.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixture.h"
#include "friction/friction.h"
#include "friction_params.h"
#include "hydyn/hydyn.h"

typedef struct pcase {
  const char* label;
  hy_friction_law law;
  double n, vd;  // LuGre exponent and v_d of sigma1(v)
  int tanh4;     // Brown-McPhee viscous factor
  double vmax;   // uniform velocities in +-vmax
} pcase;

static const pcase kCases[] = {
    {"coulomb", HY_FRICTION_COULOMB, 2, 0, 1, 10 * FB_VS},
    {"bengisu-akay", HY_FRICTION_BENGISU_AKAY, 2, 0, 1, 10 * FB_VS},
    {"brown-mcphee, tanh 4", HY_FRICTION_BROWN_MCPHEE, 2, 0, 1, 10 * FB_VS},
    {"brown-mcphee, seed 003", HY_FRICTION_BROWN_MCPHEE, 2, 0, 0, 10 * FB_VS},
    {"lugre, n = 2", HY_FRICTION_LUGRE, 2, 0, 1, 10 * FB_VS},
    {"lugre, n = 1, v_d = 2 v_s", HY_FRICTION_LUGRE, 1, 2 * FB_VS, 1, 10 * FB_VS},
    {"lugre, n = 1.5", HY_FRICTION_LUGRE, 1.5, 0, 1, 10 * FB_VS},
    // the film saturates at |v| ~ v_b = 10 v_s: sample beyond it too
    {"film, n = 2", HY_FRICTION_LUGRE_FILM, 2, 0, 1, 20 * FB_VS},
    {"film, n = 1.5, v_d = 2 v_s", HY_FRICTION_LUGRE_FILM, 1.5, 2 * FB_VS, 1, 20 * FB_VS},
};
#define NCASES ((int)(sizeof kCases / sizeof kCases[0]))
#define NPOINTS 300

// splitmix64: a fixed sequence on every platform (rand() is not).
static uint64_t rng_state;
static double rng_uniform(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

// inputs: 0 v, 1 F_c, 2 q, 3 h; outputs: 0 F, 1 q_dot, 2 h_dot
static void eval_outputs(const hy_friction_def* p, const double* x, double* y) {
  hy_friction_out o;
  hy_friction_eval(p, x[0], x + 2, x[1], &o);
  y[0] = o.F;
  y[1] = o.wd[0];
  y[2] = o.wd[1];
}

// d y_k / d x_j as the law returns it
static double analytic(const hy_friction_out* o, int k, int j) {
  if (k == 0) return j == 0 ? o->dF_dv : (j == 1 ? o->dF_dFc : o->dF_dw[j - 2]);
  return j == 0 ? o->dwd_dv[k - 1] : (j == 1 ? o->dwd_dFc[k - 1] : o->dwd_dw[k - 1][j - 2]);
}

// Eqs. 32-33 smoothed (docs/friction.md), to keep sample points off the tau_hp / tau_hn switch
static double film_hss(double v) {
  const double ve = sqrt(v * v + FB_EPS * FB_EPS) - FB_EPS;
  return (1 - FB_FC / FB_FS) * pow(fmin(ve / FB_VB, 1), 2.0 / 3.0);
}

START_TEST(test_partials_fd) {
  const pcase* c = &kCases[_i];
  hy_friction_def p = fb_def(c->law);
  p.exponent = c->n;
  p.damping_velocity = c->vd;
  p.viscous_tanh4 = c->tanh4;
  const int ns = hy_friction_nstates(c->law);
  const int nin = 2 + ns, nout = 1 + ns;
  // the shortest velocity scale of the law: v_t, v_s (Stribeck curve, Brown-McPhee's tanh(4x)
  // and Bengisu-Akay's decay length 1/xi = v_s), v_d
  double L = c->law == HY_FRICTION_COULOMB ? FB_VT : FB_VS;
  if (c->vd > 0) L = fmin(L, c->vd);
  // output scales for the rounding floor: forces ~ 1e3 N, q_dot ~ 1 m/s, h_dot ~ 1e2 1/s
  const double S[3] = {1e3, 1, 1e2};
  rng_state = 0x5eed0000u + (uint64_t)_i;
  double worst = 0;
  int checked = 0;
  for (int n = 0; n < NPOINTS; n++) {
    double x[4];
    // three in four velocities uniform, the rest log-uniform over [1e-7, 1e-2] m/s, which puts
    // some inside the film's smoothing width eps = 1e-5 m/s
    if (n % 4) {
      x[0] = (2 * rng_uniform() - 1) * c->vmax;
    } else {
      x[0] = (rng_uniform() < 0.5 ? -1 : 1) * pow(10.0, -7 + 5 * rng_uniform());
    }
    x[1] = FB_FC * (1 + rng_uniform());  // F_c up to twice nominal: pressure-dependent
    x[2] = (2 * rng_uniform() - 1) * FB_FS / FB_S0;
    x[3] = 0.02 + 0.68 * rng_uniform();  // from 0.02: |h| of Eq. 29 has its kink at h = 0
    const double a = fabs(x[0]);
    // off the kinks, by far more than the stencil's reach 2e-3 min(L, |v|) (and 2e-4 in h):
    // Bengisu-Akay's |v| = v_s; the film's |v|_eps = v_b and |h| = h_ss; |v| = 0 itself
    if (a < 1e-9) continue;
    if (c->law == HY_FRICTION_BENGISU_AKAY && fabs(a - FB_VS) < 0.01 * FB_VS) continue;
    if (c->law == HY_FRICTION_LUGRE_FILM) {
      const double ve = sqrt(a * a + FB_EPS * FB_EPS) - FB_EPS;
      if (fabs(ve - FB_VB) < 0.01 * FB_VB) continue;
      if (fabs(x[3] - film_hss(x[0])) < 0.01) continue;
    }
    // steps: 1e-3 of the input's scale; in v also of |v| so the stencil never crosses v = 0
    const double step[4] = {1e-3 * fmin(L, a), 1e-3 * x[1], 1e-3 * FB_FS / FB_S0, 1e-4};
    hy_friction_out o;
    hy_friction_eval(&p, x[0], x + 2, x[1], &o);
    for (int j = 0; j < nin; j++) {
      double yp1[3], ym1[3], yp2[3], ym2[3], xs[4];
      for (int i = 0; i < 4; i++) xs[i] = x[i];
      const double hj = step[j];
      xs[j] = x[j] + hj;
      eval_outputs(&p, xs, yp1);
      xs[j] = x[j] - hj;
      eval_outputs(&p, xs, ym1);
      xs[j] = x[j] + 2 * hj;
      eval_outputs(&p, xs, yp2);
      xs[j] = x[j] - 2 * hj;
      eval_outputs(&p, xs, ym2);
      for (int k = 0; k < nout; k++) {
        // fourth-order central difference: truncation ~ (h/L)^4 ~ 1e-12 relative
        const double num = (8 * (yp1[k] - ym1[k]) - (yp2[k] - ym2[k])) / (12 * hj);
        const double ana = analytic(&o, k, j);
        // relative 1e-6, with a floor 1e3 above the difference's rounding eps S_k / h_j
        const double tol = 1e-6 * fmax(fabs(num), fabs(ana)) + 1e-13 * S[k] / hj;
        const double err = fabs(num - ana);
        ck_assert_msg(
            err <= tol,
            "%s: d(%s)/d(%s) at v = %.9g, F_c = %.6g, q = %.6g, h = %.6g: analytic %.12g, "
            "central difference %.12g",
            c->label, k == 0 ? "F" : (k == 1 ? "q_dot" : "h_dot"),
            j == 0 ? "v" : (j == 1 ? "F_c" : (j == 2 ? "q" : "h")), x[0], x[1], x[2], x[3], ana,
            num);
        worst = fmax(worst, err / fmax(tol, 1e-300));
      }
    }
    checked++;
  }
  // the rejections must leave most points
  ck_assert_msg(checked >= NPOINTS * 8 / 10, "%s: only %d points checked", c->label, checked);
  if (getenv("HY_FRICTION_TEST_VERBOSE")) {
    printf("partials %s: %d points, worst error / tolerance %.3g\n", c->label, checked, worst);
  }
}
END_TEST

Suite* friction_partials_suite(void) {
  Suite* s = suite_create("friction_partials");
  TCase* tc = tcase_create("central differences");
  tcase_add_loop_test(tc, test_partials_fd, 0, NCASES);
  suite_add_tcase(s, tc);
  return s;
}
