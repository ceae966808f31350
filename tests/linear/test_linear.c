// The linearization of 003_f349169f78d6df41.txt (src/linear) against closed forms and against
// itself: the oil column of a mass on a sealed cylinder, four-bar A's reduced Jacobian beside
// the counterpart (sizes, structural zeros, the spool's -1/tau, the same spectrum), an open tree
// where both Jacobians are the same matrix, the LAPACK adapter on a known matrix, and the
// caller's data left as it was.
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"
#include "linear/linear.h"

static hy_linear* linearize(const hy_model* m, const hy_data* d, hy_lin_method method) {
  hy_linear* L = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_msg(hy_linear_make(m, d, method, 1e-5, &L, &err) == HY_OK, "%s", err.msg);
  return L;
}

static void eigen(const hy_linear* L, double* re, double* im) {
  hy_error err;
  ck_assert_int_eq(hy_linear_eigen(L->n, L->J, re, im, NULL, &err), HY_OK);
}

static double largest(const double* re, const double* im, int n) {
  double top = 0;
  for (int k = 0; k < n; k++) top = fmax(top, hypot(re[k], im[k]));
  return top;
}

START_TEST(eigen_of_a_known_matrix) {
  // x'' = -4 x: +-2i; and a real 2 x 2 with eigenvalues -1, -3
  const double A[4] = {0, 1, -4, 0}, B[4] = {-2, 1, 1, -2};
  double re[2], im[2], vr[4];
  hy_error err;
  ck_assert_int_eq(hy_linear_eigen(2, A, re, im, vr, &err), HY_OK);
  ck_assert_double_eq_tol(fabs(im[0]), 2, 1e-14);
  ck_assert_double_eq_tol(re[0], 0, 1e-14);
  ck_assert_int_eq(hy_linear_eigen(2, B, re, im, vr, &err), HY_OK);
  ck_assert_double_eq_tol(fmin(re[0], re[1]), -3, 1e-14);
  ck_assert_double_eq_tol(fmax(re[0], re[1]), -1, 1e-14);
  // its eigenvectors: B v = lambda v, column k of vr
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 2; i++) {
      const double Bv = B[2 * i] * vr[k] + B[2 * i + 1] * vr[2 + k];
      ck_assert_double_eq_tol(Bv, re[k] * vr[2 * i + k], 1e-14);
    }
  }
}
END_TEST

// A mass on a cylinder with both chambers sealed: omega^2 = (B_a A_a^2/V_a + B_b A_b^2/V_b)/m,
// B and V the chambers' effective bulk moduli and volumes at the reference.
START_TEST(oil_column_frequency_is_the_closed_form) {
  hy_model* m = hy_test_load("tests/data/oil-column.yaml");
  hy_data* d = hy_test_make(m);
  const double Aa = m->cyl_area_a[0], Ab = m->cyl_area_b[0], mass = m->body_mass[0];
  const double w2 = (d->vol_Be[0] * Aa * Aa / d->vol_V[0] + d->vol_Be[1] * Ab * Ab / d->vol_V[1]) /
                    mass;
  hy_linear* L = linearize(m, d, HY_LIN_REDUCED);
  ck_assert_int_eq(L->n, 4);  // z, z_dot, p_a, p_b
  double re[4], im[4];
  eigen(L, re, im);
  double w = 0;
  for (int k = 0; k < 4; k++) w = fmax(w, im[k]);
  ck_assert_msg(fabs(w * w - w2) <= 1e-9 * w2, "omega^2 %.15g, closed form %.15g", w * w, w2);
  for (int k = 0; k < 4; k++) ck_assert_double_le(fabs(re[k]), 1e-9 * w);  // no damping
  hy_linear_free(L);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Four-bar A at its equilibrium: the reduced Jacobian is 2(n - m) + r + u = 2 + 3 + 1 = 6 (as
// seed 003's four-bar), the counterpart 2n + r + u = 10 with 2m = 4 more zero eigenvalues; two
// zeros are structural, one eigenvalue is the spool's -1/tau, and both have the same nonzero
// spectrum.
START_TEST(four_bar_reduced_beside_counterpart) {
  hy_model* m = hy_test_load("four-bar-a");
  hy_data* d = hy_test_make(m);
  hy_linear* R = linearize(m, d, HY_LIN_REDUCED);
  hy_linear* C = linearize(m, d, HY_LIN_COUNTERPART);
  ck_assert_int_eq(R->n, 6);
  ck_assert_int_eq(C->n, 10);
  double rr[10], ri[10], cr[10], ci[10];
  eigen(R, rr, ri);
  eigen(C, cr, ci);
  const double top = largest(rr, ri, 6);
  int zr = 0, zc = 0, spool = 0;
  for (int k = 0; k < 6; k++) {
    zr += hypot(rr[k], ri[k]) <= 1e-12 * top;  // zero to round-off
    spool += ri[k] == 0 && fabs(rr[k] + 1 / m->vlv_tau[0]) <= 1e-12 / m->vlv_tau[0];
  }
  for (int k = 0; k < 10; k++) zc += hypot(cr[k], ci[k]) <= 1e-7 * top;  // differences
  ck_assert_int_eq(zr, 2);
  ck_assert_int_eq(spool, 1);
  ck_assert_int_eq(zc, 2 + 4);
  // every nonzero eigenvalue of the reduced system is one of the counterpart's
  for (int k = 0; k < 6; k++) {
    if (hypot(rr[k], ri[k]) <= 1e-12 * top) continue;
    double best = INFINITY;
    for (int j = 0; j < 10; j++) best = fmin(best, hypot(cr[j] - rr[k], ci[j] - ri[k]));
    ck_assert_msg(best <= 1e-6 * hypot(rr[k], ri[k]), "eigenvalue %g%+gi: nearest %g away",
                  rr[k], ri[k], best);
  }
  hy_linear_free(R);
  hy_linear_free(C);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// An open tree has no dependent coordinate: both Jacobians are the same matrix, the reduced one
// with its analytic hydraulic blocks, the counterpart's all differences. The crane in motion
// (t = 5.8 s, in the rod-side damper).
START_TEST(open_tree_both_jacobians_agree) {
  hy_model* m = hy_test_load("crane");
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 5800);
  hy_linear* R = linearize(m, d, HY_LIN_REDUCED);
  hy_linear* C = linearize(m, d, HY_LIN_COUNTERPART);
  ck_assert_int_eq(R->n, C->n);
  const int n = R->n;
  for (int i = 0; i < n; i++) {
    double row = 0;
    for (int j = 0; j < n; j++) row = fmax(row, fabs(R->J[i * n + j]));
    for (int j = 0; j < n; j++) {
      const double a = R->J[i * n + j], b = C->J[i * n + j];
      ck_assert_msg(fabs(a - b) <= 1e-5 * fabs(a) + 1e-8 * row, "J(%d,%d): %.12g vs %.12g", i, j,
                    a, b);
    }
  }
  hy_linear_free(R);
  hy_linear_free(C);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// The 3-D four-bar of seed 003 at its equilibrium (Sect. 4.4): J is 6 x 6 (one degree of
// freedom, three pressures, one spool), two eigenvalues are zero to round-off and one is the
// spool's -1/tau, and the friction scenarios go from overdamped (factor 1: every eigenvalue
// real) to underdamped (1/10, 1/100: an oscillating pair whose damping ratio falls).
START_TEST(four_bar_3d_friction_scenarios) {
  const char* const models[3] = {"four-bar-3d", "four-bar-3d-f10", "four-bar-3d-f100"};
  double zeta[3];
  for (int s = 0; s < 3; s++) {
    hy_model* m = hy_test_load(models[s]);
    hy_data* d = hy_test_make(m);
    hy_linear* L = linearize(m, d, HY_LIN_REDUCED);
    ck_assert_int_eq(L->n, 6);
    double re[6], im[6];
    eigen(L, re, im);
    const double top = largest(re, im, 6);
    int zeros = 0, spool = 0, pairs = 0;
    zeta[s] = 1;
    for (int k = 0; k < 6; k++) {
      const double mod = hypot(re[k], im[k]);
      zeros += mod <= 1e-12 * top;
      spool += im[k] == 0 && fabs(re[k] + 1 / m->vlv_tau[0]) <= 1e-12 / m->vlv_tau[0];
      if (im[k] > 0) {
        pairs++;
        zeta[s] = -re[k] / mod;
      }
    }
    ck_assert_int_eq(zeros, 2);
    ck_assert_int_eq(spool, 1);
    ck_assert_int_eq(pairs, s == 0 ? 0 : 1);
    hy_linear_free(L);
    hy_data_free(d);
    hy_model_free(m);
  }
  ck_assert_double_lt(zeta[1], 0.5);      // measured 0.17
  ck_assert_double_lt(zeta[2], zeta[1]);  // measured 0.017
}
END_TEST

// seed 003 Eq. 94: the linear system from the nonlinear state at 1.5 s (the torque of Eq. 92
// just removed) for 1.5 s, beside the nonlinear run: the largest difference of the input link's
// angle relative to its largest distance from the equilibrium. With the seed's torque the
// linear response follows the nonlinear one; with a hundred times the torque the friction's
// nonlinearity and the geometry part them.
static double linear_vs_nonlinear(const char* model, double torque_scale) {
  hy_model* m = hy_test_load(model);
  for (int l = 0; l < m->sizes.nload; l++) {
    for (int k = 0; k < 3; k++) m->load_vector[3 * l + k] *= torque_scale;
  }
  hy_data* d = hy_test_make(m);
  hy_linear* L = linearize(m, d, HY_LIN_REDUCED);  // about the equilibrium at t = 0
  hy_test_steps(m, d, 1500);
  double x[16], xl[16];
  ck_assert_int_le(L->n, 16);
  hy_linear_gather(L, d, x);
  hy_linear_sim sim;
  hy_error err;
  ck_assert_int_eq(hy_linear_sim_init(L, m->opt.dt, x, &sim, &err), HY_OK);
  double worst = 0, span = 0;
  for (int k = 0; k < 1500; k++) {
    ck_assert_int_eq(hy_step(m, d), HY_OK);
    hy_linear_sim_step(L, &sim);
    hy_linear_gather(L, d, x);
    hy_linear_sim_state(L, &sim, xl);
    worst = fmax(worst, fabs(xl[0] - x[0]));
    span = fmax(span, fabs(x[0] - L->x[0]));
  }
  hy_linear_sim_free(&sim);
  hy_linear_free(L);
  hy_data_free(d);
  hy_model_free(m);
  return worst / span;
}

START_TEST(linear_simulation_follows_for_small_torques) {
  const double small = linear_vs_nonlinear("four-bar-3d", 1);
  const double large = linear_vs_nonlinear("four-bar-3d", 100);
  const double small100 = linear_vs_nonlinear("four-bar-3d-f100", 1);
  const double large100 = linear_vs_nonlinear("four-bar-3d-f100", 100);
  // measured: 0.025 and 0.15 with the seed's torque, 1.40 and 0.90 with a hundred times it
  ck_assert_double_le(small, 0.05);
  ck_assert_double_le(small100, 0.2);
  ck_assert_double_gt(large, 0.5);
  ck_assert_double_gt(large100, 0.5);
}
END_TEST

// The caller's data is not touched: its whole state before and after, bit for bit.
START_TEST(linearizing_leaves_the_state_alone) {
  hy_model* m = hy_test_load("four-bar-a");
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 1500);
  const int n = hy_state_size(m, d, HY_STATE_FULL);
  double* before = malloc(sizeof(double) * (size_t)n);
  double* after = malloc(sizeof(double) * (size_t)n);
  hy_state_get(m, d, HY_STATE_FULL, before);
  hy_linear_free(linearize(m, d, HY_LIN_REDUCED));
  hy_linear_free(linearize(m, d, HY_LIN_COUNTERPART));
  hy_state_get(m, d, HY_STATE_FULL, after);
  hy_test_same_bits(before, after, n, "the state around linearizing");
  free(before);
  free(after);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A spherical pendulum at rest in its equilibrium at the Cardan angles (30, 75, -20) deg of
// the model's chart (gravity tilted to hang it there; the model starts elsewhere), set there
// through hy_reanchor, which re-anchors its chart: about that reference the small swings have the
// closed-form frequencies omega^2 = m g L / (J + m L^2) about the two axes across the rod, and the
// spin about the rod is free (two zero eigenvalues). The linearization must take the state in
// the data's own chart, not in the one a fresh data of the model starts in.
START_TEST(reanchored_spherical_pendulum) {
  static const char text[] =
      "name: pend\n"
      "gravity: [-6.033720217302806, -7.357841567731052, -2.3858935021246177]\n"
      "bodies:\n"
      "  - {name: bob, mass: 2, com: [0, 0, -1], inertia: [0.12, 0.1, 0.05]}\n"
      "joints:\n"
      "  - {name: S, type: spherical, parent: ground, child: bob}\n"
      "solver: {integrator: trapezoidal, dt: 1.0e-3}\n";
  hy_model* m = hy_test_load_text(text, "pend.yaml");
  hy_data* d = hy_test_make(m);
  const double deg = 3.14159265358979323846 / 180;
  const double at[3] = {30 * deg, 75 * deg, -20 * deg};
  memcpy(d->z, at, sizeof at);
  ck_assert_int_eq(hy_reanchor(m, d, 1), 1);
  ck_assert_int_eq(hy_forward(m, d), HY_OK);
  // at rest there
  for (int k = 0; k < 3; k++) ck_assert_msg(fabs(d->zdd[k]) < 1e-12, "zdd[%d] = %g", k, d->zdd[k]);
  const double mgl = 2 * 9.81;
  const double w[2] = {sqrt(mgl / (0.12 + 2)), sqrt(mgl / (0.1 + 2))};
  for (int method = 0; method < 2; method++) {
    hy_linear* L = linearize(m, d, method == 0 ? HY_LIN_REDUCED : HY_LIN_COUNTERPART);
    ck_assert_int_eq(L->n, 6);
    double re[6], im[6];
    eigen(L, re, im);
    int nzero = 0, found[2] = {0, 0};
    for (int k = 0; k < 6; k++) {
      ck_assert_msg(fabs(re[k]) < 1e-6, "eigenvalue %d has real part %g", k, re[k]);
      if (fabs(im[k]) < 1e-6) nzero++;
      for (int i = 0; i < 2; i++) found[i] += fabs(fabs(im[k]) - w[i]) < 1e-6 * w[i];
    }
    ck_assert_msg(nzero == 2 && found[0] == 2 && found[1] == 2,
                  "method %d: %d zero eigenvalues, %d and %d at +-%.9g and +-%.9g i", method,
                  nzero, found[0], found[1], w[0], w[1]);
    hy_linear_free(L);
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* linear_suite(void) {
  Suite* s = suite_create("linear");
  TCase* tc = tcase_create("linear");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, eigen_of_a_known_matrix);
  tcase_add_test(tc, oil_column_frequency_is_the_closed_form);
  tcase_add_test(tc, four_bar_reduced_beside_counterpart);
  tcase_add_test(tc, open_tree_both_jacobians_agree);
  tcase_add_test(tc, four_bar_3d_friction_scenarios);
  tcase_add_test(tc, linear_simulation_follows_for_small_torques);
  tcase_add_test(tc, linearizing_leaves_the_state_alone);
  tcase_add_test(tc, reanchored_spherical_pendulum);
  suite_add_tcase(s, tc);
  return s;
}
