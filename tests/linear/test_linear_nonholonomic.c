// The linearization with nonholonomic constraints (003_f349169f78d6df41.txt Eqs. 45-52, 61):
// Jacobian sizes 2n - 2m - l + r + u and 2n + r + u, and two closed forms: the turn rate of
// Chaplygin's sleigh running straight decays at -m a v / (J + m a^2), and the articulated
// vehicle at rest turns its frames about their axles against the oil columns of its steering
// cylinders.
#include <check.h>
#include <complex.h>
#include <math.h>
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

// The eigenvalue of L nearest to target, and how many are zero (below 1e-9 of the largest).
static double complex nearest(const hy_linear* L, double complex target, int* zeros) {
  double re[32], im[32];
  hy_error err;
  ck_assert_int_le(L->n, 32);
  ck_assert_int_eq(hy_linear_eigen(L->n, L->J, re, im, NULL, &err), HY_OK);
  double complex best = 0;
  double top = 0;
  for (int k = 0; k < L->n; k++) top = fmax(top, hypot(re[k], im[k]));
  *zeros = 0;
  for (int k = 0; k < L->n; k++) {
    const double complex l = re[k] + I * im[k];
    if (cabs(l - target) < cabs(best - target)) best = l;
    *zeros += hypot(re[k], im[k]) <= 1e-9 * top;
  }
  return best;
}

// The reduced Jacobian's eigenvalue of largest imaginary part (above im_min) is one of the
// counterpart's, to rel.
static void same_fastest_oscillation(const hy_linear* Lr, const hy_linear* Lc, double im_min,
                                     double rel) {
  double re[32], im[32];
  hy_error err;
  ck_assert_int_le(Lr->n, 32);
  ck_assert_int_eq(hy_linear_eigen(Lr->n, Lr->J, re, im, NULL, &err), HY_OK);
  int k = 0;
  for (int i = 1; i < Lr->n; i++) {
    if (im[i] > im[k]) k = i;
  }
  ck_assert_double_gt(im[k], im_min);
  int zeros;
  const double complex lr = re[k] + I * im[k], lc = nearest(Lc, lr, &zeros);
  ck_assert_msg(cabs(lc - lr) <= rel * cabs(lr), "counterpart %.12g%+.12gi, reduced %.12g%+.12gi",
                creal(lc), cimag(lc), re[k], im[k]);
}

// Straight at v = 2 m/s: n = 3, m = 0, l = 1: J is 5 x 5 with one spurious zero; the turn rate
// decays at lambda = -k v, k = m a / (J + m a^2) = 5 / 4.5 1/m; the forward speed, x, y and theta
// are the other, physical zeros.
START_TEST(sleigh_straight_running_decay) {
  hy_model* m = hy_test_load("tests/data/sleigh.yaml");
  m->zd0[0] = 2;  // x
  m->zd0[2] = 0;  // theta
  hy_data* d = hy_test_make(m);
  const double expect = -(10 * 0.5 / (2 + 10 * 0.25)) * 2;
  hy_linear* L = linearize(m, d, HY_LIN_REDUCED);
  ck_assert_int_eq(L->n, 5);
  ck_assert_int_eq(L->nq, 3);
  ck_assert_int_eq(L->nv, 2);
  int zeros;
  const double complex l = nearest(L, expect, &zeros);
  ck_assert_msg(cabs(l - expect) <= 1e-9 * fabs(expect), "lambda %.15g%+.3gi, closed form %.15g",
                creal(l), cimag(l), expect);
  ck_assert_int_eq(zeros, 4);
  hy_linear_free(L);
  // the counterpart: 2n = 6 states, the same decay among 2 (m + l) more zeros
  L = linearize(m, d, HY_LIN_COUNTERPART);
  ck_assert_int_eq(L->n, 6);
  const double complex lc = nearest(L, expect, &zeros);
  ck_assert_msg(cabs(lc - expect) <= 1e-6 * fabs(expect), "counterpart %.15g", creal(lc));
  ck_assert_int_eq(zeros, 5);
  hy_linear_free(L);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A point's length change along a cylinder turning with the front frame about the hinge H:
// s^2 = |q|^2 + |u|^2 - 2 u . R(gamma) q with u, q the rear and front pivots from H, so at
// gamma = 0 s s' = -u . (e_z x q) and s'^2 + s s'' = u . q.
static void cylinder_geometry(const double u[2], const double q[2], double* s1, double* s2) {
  const double s = hypot(q[0] - u[0], q[1] - u[1]);
  *s1 = -(u[0] * q[0] * 0 + (-u[0] * q[1] + u[1] * q[0])) / s;
  *s2 = (u[0] * q[0] + u[1] * q[1] - *s1 * *s1) / s;
}

// At rest (v = 0) with the valve closed: the axles cannot slip, so the rear frame turns about
// the rear axle R and the front frame about the front axle F, theta_dot = -(l_f / L) gamma_dot,
// and the articulation is a damped oscillator J_eff gamma'' + c_g gamma' + K gamma = 0 with
//   J_eff = J_R (l_f / L)^2 + J_F (l_r / L)^2            (yaw inertias about R and F)
//   K = sum_v (B_v / V_v) g_v^2 - sum_c F_c s_c''       (g_v = dV_v/dgamma, F_c the forces)
//   c_g = sum_c c s_c'^2.
START_TEST(vehicle_articulation_mode_at_rest) {
  hy_model* m = hy_test_load("articulated-vehicle");
  m->zd0[0] = 0;
  hy_data* d = hy_test_make(m);
  const int rear = 2, front = 3;  // bodies: two carriages, then the frames
  const int hinge = 3;            // joint of the front frame
  const double lr = m->jnt_ppoint[3 * hinge];
  const int fa = hy_model_marker(m, "front_axle");
  const double lf = m->mrk_point[3 * fa], L = lr + lf;
  const double dr = m->body_com[3 * rear], df = lf - m->body_com[3 * front];
  const double JR = m->body_inertia[9 * rear + 8] + m->body_mass[rear] * dr * dr;
  const double JF = m->body_inertia[9 * front + 8] + m->body_mass[front] * df * df;
  const double Jeff = JR * (lf / L) * (lf / L) + JF * (lr / L) * (lr / L);
  double K = 0, cg = 0, g[2] = {0, 0};
  for (int c = 0; c < m->sizes.ncyl; c++) {
    const int k = m->cyl_frc[c];
    const double* pa = m->mrk_point + 3 * m->frc_mrk_a[k];  // on the rear frame
    const double* pb = m->mrk_point + 3 * m->frc_mrk_b[k];  // on the front frame, from H
    const double u[2] = {pa[0] - lr, pa[1]}, q[2] = {pb[0], pb[1]};
    double s1, s2;
    cylinder_geometry(u, q, &s1, &s2);
    g[m->cyl_vol_a[c]] += m->cyl_area_a[c] * s1;
    g[m->cyl_vol_b[c]] -= m->cyl_area_b[c] * s1;
    K -= d->cyl_F_hyd[c] * s2;
    cg += m->cyl_visc[c] * s1 * s1;
  }
  for (int v = 0; v < m->sizes.nvol; v++) K += d->vol_Be[v] / d->vol_V[v] * g[v] * g[v];
  const double complex expect = (-cg + csqrt(cg * cg - 4 * Jeff * K)) / (2 * Jeff);
  hy_linear* Lr = linearize(m, d, HY_LIN_REDUCED);
  ck_assert_int_eq(Lr->n, 9);  // 2n - 2m - l + r + u = 8 - 0 - 2 + 2 + 1
  int zeros;
  const double complex l = nearest(Lr, expect, &zeros);
  ck_assert_msg(cabs(l - expect) <= 1e-9 * cabs(expect),
                "lambda %.12g%+.12gi, closed form %.12g%+.12gi", creal(l), cimag(l),
                creal(expect), cimag(expect));
  ck_assert_int_eq(zeros, 6);  // x, x_dot, y, theta, and p_A, p_B's conserved combinations
  hy_linear_free(Lr);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Running straight at 2 m/s (t = 0.5 s, before the first steering command): the two Jacobians'
// articulation pair agrees, and linearizing leaves the run's state as it was. (Along a turn the
// frozen Jacobians of the two state sets differ by terms of the reference's motion, since their
// states are related nonlinearly: docs/linearization.md.)
START_TEST(vehicle_counterpart_beside_reduced_while_running) {
  hy_model* m = hy_test_load("articulated-vehicle");
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 500);
  const int n = hy_state_size(m, d, HY_STATE_FULL);
  double before[256], after[256];
  ck_assert_int_le(n, 256);
  hy_state_get(m, d, HY_STATE_FULL, before);
  hy_linear* Lr = linearize(m, d, HY_LIN_REDUCED);
  hy_linear* Lc = linearize(m, d, HY_LIN_COUNTERPART);
  hy_state_get(m, d, HY_STATE_FULL, after);
  hy_test_same_bits(before, after, n, "the state around linearizing");
  ck_assert_int_eq(Lc->n, 11);  // 2n + r + u
  // the articulation's oscillating pair of the reduced Jacobian is the counterpart's too
  same_fastest_oscillation(Lr, Lc, 10, 1e-6);
  hy_linear_free(Lr);
  hy_linear_free(Lc);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A sealed cylinder from ground to the sleigh at rest, turned 20 deg (tests/data/ram-sleigh.yaml):
// its rate depends on the knife edge's dependent velocity, so the reduced Jacobian's pressure rows
// need the whole velocity transformation T. At rest both Jacobians have the same oscillating pair.
START_TEST(ram_sleigh_reduced_beside_counterpart) {
  hy_model* m = hy_test_load("tests/data/ram-sleigh.yaml");
  hy_data* d = hy_test_make(m);
  hy_linear* Lr = linearize(m, d, HY_LIN_REDUCED);
  hy_linear* Lc = linearize(m, d, HY_LIN_COUNTERPART);
  ck_assert_int_eq(Lr->n, 2 * 3 - 1 + 2);
  ck_assert_int_eq(Lc->n, 2 * 3 + 2);
  same_fastest_oscillation(Lr, Lc, 100, 1e-7);  // measured -14.108 + 941.48i
  hy_linear_free(Lr);
  hy_linear_free(Lc);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* linear_nonholonomic_suite(void) {
  Suite* s = suite_create("linear_nonholonomic");
  TCase* tc = tcase_create("nonholonomic");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, sleigh_straight_running_decay);
  tcase_add_test(tc, vehicle_articulation_mode_at_rest);
  tcase_add_test(tc, vehicle_counterpart_beside_reduced_while_running);
  tcase_add_test(tc, ram_sleigh_reduced_beside_counterpart);
  suite_add_tcase(s, tc);
  return s;
}
