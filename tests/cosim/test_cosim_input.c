// The cylinders' input mode of co-simulation (hy_data.cyl_input, src/hyd/hyd_input.c): with
// forces, a cylinder's force is the polynomial at d->time and the network stands still; with
// pressures, the force is seed 001 Eqs. 33-34 at the input pressures and the data's own s and
// s_dot, computed here independently, with the viscous and end-damper derivatives only.
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cosim_check.h"
#include "fixture.h"
#include "hyd/hyd.h"
#include "hydyn/hydyn.h"

static double poly(const double* c, double tau) { return c[0] + c[1] * tau + c[2] * tau * tau; }

// The network's derivatives at the data's state, into a work of the test's own (hw_buf).
static double* evaluate_with_derivatives(const hy_model* m, hy_data* d, hy_hyd_work* hw) {
  const size_t n = hy_hyd_work_size(m);
  double* buf = malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; i++) buf[i] = NAN;  // every entry must be written
  hy_hyd_work_bind(m, hw, buf);
  hy_hyd_evaluate(m, d, hw);
  return buf;
}

START_TEST(force_input_is_the_polynomial_and_the_network_stands_still) {
  hy_model* m = hy_test_load("crane");
  hy_data* d = hy_test_make(m);
  ck_assert_ptr_null(d->cyl_input);  // hy_data_make: monolithic
  const double coef[3] = {9000.0, 2500.0, -800.0};
  const hy_cyl_input in = {.mode = HY_CYL_INPUT_FORCE, .t0 = 0.25, .coef = coef};
  d->cyl_input = &in;
  d->time = 0.6;
  d->zd[0] = 0.2;  // a moving cylinder: no part of the force may follow s_dot
  ck_assert_int_eq(hy_forward(m, d), HY_OK);
  const int f = m->cyl_frc[0];
  const double F = poly(coef, 0.6 - 0.25);
  ck_assert_double_eq_tol(d->frc_force[f], F, 1e-9 * fabs(F));
  ck_assert_double_eq(d->cyl_F_hyd[0], d->frc_force[f]);
  ck_assert_double_eq(d->cyl_F_visc[0], 0);
  ck_assert_double_eq(d->cyl_F_damp[0], 0);
  ck_assert_double_eq(d->cyl_F_fric[0], 0);
  for (int v = 0; v < m->sizes.nvol + m->sizes.nfric; v++) ck_assert_double_eq(d->pd[v], 0);
  for (int i = 0; i < m->sizes.norf; i++) ck_assert_double_eq(d->orf_q[i], 0);
  hy_hyd_work hw;
  double* buf = evaluate_with_derivatives(m, d, &hw);
  for (size_t i = 0; i < hy_hyd_work_size(m); i++) ck_assert_double_eq(buf[i], 0);
  // the step's end (hy_hyd_cylinder_forces) takes the input as well
  d->time = 0.9;
  hy_hyd_cylinder_forces(m, d);
  ck_assert_double_eq_tol(d->frc_force[f], poly(coef, 0.9 - 0.25), 1e-9 * fabs(F));
  free(buf);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST


START_TEST(pressure_input_gives_eq33_at_the_datas_own_geometry) {
  hy_model* m = hy_test_load("crane");
  hy_data* d = hy_test_make(m);
  const int nc = m->sizes.ncyl, f = m->cyl_frc[0];
  ck_assert_int_eq(nc, 1);
  // [p_a of every cylinder, p_b of every cylinder], 3 coefficients each
  const double coef[6] = {6.1e6, 2.0e5, -3.0e5, 3.3e6, -1.0e5, 4.0e4};
  const hy_cyl_input in = {.mode = HY_CYL_INPUT_PRESSURE, .t0 = 1.0, .coef = coef};
  d->cyl_input = &in;
  // two poses: the initial one, and theta1 = 56 deg with link 1 rising, where the rod-side end
  // damper is engaged (crane.yaml: from |s| > 0.713 m, theta1 = 55.4 deg)
  const double theta1[2] = {m->z0[0], 56.0 * 3.14159265358979323846 / 180.0};
  for (int pose = 0; pose < 2; pose++) {
    d->z[0] = theta1[pose];
    d->zd[0] = 0.15;
    d->time = 1.3;
    ck_assert_int_eq(hy_forward(m, d), HY_OK);
    const double s = d->frc_len[f], sd = d->frc_rate[f];
    const double pa = poly(coef, 0.3), pb = poly(coef + 3, 0.3);
    const double F = cosim_eq33(m, 0, s, sd, pa, pb);
    const double len_b = m->cyl_stroke[0] - (s - m->cyl_dead[0]);
    ck_assert_int_eq(len_b < m->cyl_ld[0], pose == 1);
    ck_assert_msg(fabs(d->frc_force[f] - F) <= 1e-9 * fabs(F), "pose %d: F = %.17g, Eq. 33 %.17g",
                  pose, d->frc_force[f], F);
    ck_assert_double_eq_tol(d->cyl_F_hyd[0], pa * m->cyl_area_a[0] - pb * m->cyl_area_b[0],
                            1e-9 * fabs(F));
    for (int v = 0; v < m->sizes.nvol; v++) ck_assert_double_eq(d->pd[v], 0);
    // derivatives: only the viscous and damper terms of dF/ds and dF/ds_dot
    hy_hyd_work hw;
    double* buf = evaluate_with_derivatives(m, d, &hw);
    const int nv = m->sizes.nvol;
    for (int v = 0; v < nv; v++) {
      ck_assert_double_eq(hw.dF_dp[v], 0);
      ck_assert_double_eq(hw.dpd_ds[v], 0);
      ck_assert_double_eq(hw.dpd_dsd[v], 0);
      for (int w = 0; w < nv; w++) ck_assert_double_eq(hw.dpd_dp[v * nv + w], 0);
    }
    const double kd = pose == 1 ? m->cyl_kd[0] : 0, cd = pose == 1 ? m->cyl_cd[0] : 0;
    ck_assert_double_eq_tol(hw.dF_ds[0], -kd, 1e-9 * (kd + 1));
    ck_assert_double_eq_tol(hw.dF_dsd[0], -m->cyl_visc[0] - cd, 1e-9 * m->cyl_visc[0]);
    free(buf);
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* cosim_input_suite(void) {
  Suite* s = suite_create("cosim_input");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, force_input_is_the_polynomial_and_the_network_stands_still);
  tcase_add_test(tc, pressure_input_gives_eq33_at_the_datas_own_geometry);
  suite_add_tcase(s, tc);
  return s;
}
