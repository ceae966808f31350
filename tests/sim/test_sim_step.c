// Time stepping of open trees: energy conservation, observed order of RK4, no allocation in a
// step, and a failing step leaving the state at its start.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

// Runs to t_end; returns the largest |E(t) - E(0)| and the largest kinetic energy seen.
static void run(const hy_model* m, hy_data* d, double t_end, double* drift, double* kin_max) {
  const double e0 = hy_energy_total(d);
  long n = lround(t_end / m->opt.dt);
  *drift = 0;
  *kin_max = d->energy_kin;
  for (long i = 0; i < n; i++) {
    ck_assert_int_eq(hy_step(m, d), HY_OK);
    *drift = fmax(*drift, fabs(hy_energy_total(d) - e0));
    *kin_max = fmax(*kin_max, d->energy_kin);
  }
}

// A free 10-body 3-D tree under gravity conserves energy; RK4 at 1e-4 s keeps the drift below
// 1e-7 of the energy that moves between kinetic and potential.
START_TEST(tree_energy_is_conserved) {
  hy_model* m = hy_test_load("tree-10");
  ck_assert_int_ge(m->sizes.nbody, 10);
  m->opt.integrator = HY_INTEG_RK4;
  m->opt.dt = 1e-4;
  hy_data* d;
  ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
  double drift, kin_max;
  run(m, d, 5.0, &drift, &kin_max);
  ck_assert(kin_max > 1.0);
  ck_assert_msg(drift / kin_max < 1e-7, "energy drift %.3g J of %.3g J (%.3g)", drift, kin_max,
                drift / kin_max);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

static void final_state(hy_model* m, double dt, double t_end, double* x) {
  m->opt.dt = dt;
  hy_data* d;
  ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
  long n = lround(t_end / dt);
  hy_test_steps(m, d, n);
  const int nz = m->sizes.nz;
  memcpy(x, d->z, sizeof(double) * (size_t)nz);
  memcpy(x + nz, d->zd, sizeof(double) * (size_t)nz);
  hy_data_free(d);
}

static double dist(const double* a, const double* b, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) r = fmax(r, fabs(a[i] - b[i]));
  return r;
}

// Halving the step divides RK4's global error by about 2^4 = 16 (and Euler's by 2).
START_TEST(observed_order) {
  hy_model* m = hy_test_load("tree-10");
  const int n = 2 * m->sizes.nz;
  const double t_end = 0.5;
  double ref[128], x1[128], x2[128], x3[128];
  m->opt.integrator = HY_INTEG_RK4;
  final_state(m, 2.5e-5, t_end, ref);
  final_state(m, 4e-3, t_end, x1);
  final_state(m, 2e-3, t_end, x2);
  final_state(m, 1e-3, t_end, x3);
  double r1 = dist(x1, ref, n) / dist(x2, ref, n), r2 = dist(x2, ref, n) / dist(x3, ref, n);
  ck_assert_msg(r1 > 12 && r1 < 20 && r2 > 12 && r2 < 20, "RK4 error ratios %.2f, %.2f", r1, r2);

  m->opt.integrator = HY_INTEG_SEMI_EULER;
  final_state(m, 1e-5, t_end, ref);
  final_state(m, 2e-4, t_end, x1);
  final_state(m, 1e-4, t_end, x2);
  double r = dist(x1, ref, n) / dist(x2, ref, n);
  ck_assert_msg(r > 1.7 && r < 2.4, "semi-implicit Euler error ratio %.2f", r);
  hy_model_free(m);
}
END_TEST

// hy_step allocates nothing: every array was made by hy_data_make.
START_TEST(step_does_not_allocate) {
  hy_model* m = hy_test_load("tree-10");
  const hy_integrator kinds[] = {HY_INTEG_EULER, HY_INTEG_SEMI_EULER, HY_INTEG_RK4};
  for (int k = 0; k < 3; k++) {
    m->opt.integrator = kinds[k];
    hy_data* d;
    ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
    hy_test_count_allocs_begin();
    hy_test_steps(m, d, 1000);
    long n = hy_test_count_allocs_end();
    ck_assert_msg(n == 0, "integrator %d: %ld heap allocations in 1000 steps", k, n);
    ck_assert_int_eq(d->stats.nstep, 1000);
    hy_data_free(d);
  }
  // the counter does see allocations (so the zero above means something)
  hy_test_count_allocs_begin();
  hy_data* d;
  ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
  ck_assert_int_gt(hy_test_count_allocs_end(), 0);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A non-finite state fails the step with HY_ERR_NAN and leaves time and state as they were.
START_TEST(failed_step_keeps_state) {
  hy_model* m = hy_test_load("tree-10");
  hy_data* d;
  ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
  hy_test_steps(m, d, 10);
  d->zd[0] = NAN;
  double z_before = d->z[1], t_before = d->time;
  hy_status st = hy_step(m, d);
  ck_assert_int_eq(st, HY_ERR_NAN);
  ck_assert_double_eq(d->time, t_before);
  ck_assert_double_eq(d->z[1], z_before);
  ck_assert(strlen(d->err.msg) > 0);
  hy_data_free(d);
  hy_model_free(m);
  // the whole state, bit for bit, of a planar chain whose RK4 stages overflow: its rotation
  // cache too, which the stage evaluations moved
  m = hy_test_load("chain-4");
  m->opt.integrator = HY_INTEG_RK4;
  d = hy_test_make(m);
  hy_test_steps(m, d, 10);
  static double zd[64], before[4096], after[4096];
  const int n = hy_state_size(m, d, HY_STATE_FULL);
  ck_assert_int_le(n, 4096);
  ck_assert_int_le(m->sizes.nz, 64);
  // the velocities alone: the state is completed (accelerations) at the new ones
  memcpy(zd, d->zd, sizeof(double) * (size_t)m->sizes.nz);
  zd[0] = 1e100;
  ck_assert_int_eq(hy_state_set(m, d, HY_STATE_VEL, zd), HY_OK);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, before), HY_OK);
  ck_assert_int_eq(hy_step(m, d), HY_ERR_NAN);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, after), HY_OK);
  hy_test_same_bits(before, after, n, "the state after the failed step");
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Work of an applied force enters the energy balance: a constant force on a body moving along
// a prismatic joint keeps E_kin + E_pot - W_ext constant.
START_TEST(applied_work_closes_balance) {
  hy_spec* s;
  hy_spec_create(&s);
  hy_body_def b = hy_body_def_default();
  strcpy(b.name, "slider");
  b.mass = 2.0;
  hy_spec_add_body(s, &b);
  hy_joint_def j = hy_joint_def_default();
  strcpy(j.name, "x");
  strcpy(j.child, "slider");
  j.type = HY_JOINT_PRISMATIC;
  hy_v3_set(j.axis, 1, 1, 0);
  hy_v3_copy(j.child_axis, j.axis);
  hy_spec_add_joint(s, &j);
  hy_marker_def mk = hy_marker_def_default();
  strcpy(mk.name, "c");
  strcpy(mk.body, "slider");
  hy_spec_add_marker(s, &mk);
  double t[2] = {0, 1}, v[2] = {0, 3};
  hy_signal_def sg = hy_signal_def_default();
  strcpy(sg.name, "ramp");
  sg.npoint = 2;
  sg.t = t;
  sg.value = v;
  hy_spec_add_signal(s, &sg);
  hy_load_def ld = hy_load_def_default();
  strcpy(ld.name, "push");
  strcpy(ld.marker, "c");
  strcpy(ld.signal, "ramp");
  hy_v3_set(ld.vector, 10, 0, 0);
  hy_spec_add_load(s, &ld);
  hy_model* m;
  ck_assert_int_eq(hy_model_compile(s, &m, NULL), HY_OK);
  hy_spec_free(s);
  m->opt.dt = 1e-3;
  hy_data* d;
  ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
  hy_test_steps(m, d, 1000);
  ck_assert(d->work_ext != 0);
  ck_assert_msg(fabs(hy_energy_total(d)) < 1e-6 * fabs(d->work_ext), "balance %.3g J, work %.3g J",
                hy_energy_total(d), d->work_ext);
  // closed form: z_ddot = (30 t u - m 9.81 u) / m with u = 1/sqrt2 the axis' share of x and -y;
  // RK4 integrates this polynomial motion exactly. z(1) = (30 u / 6 - m 9.81 u / 2) / m
  const double u = 1 / sqrt(2.0);
  const double z_exact = (30 * u / 6.0 - 2 * 9.81 * u / 2.0) / 2.0;
  ck_assert_msg(fabs(d->z[0] - z_exact) < 1e-9, "z = %.12g vs %.12g", d->z[0], z_exact);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* sim_step_suite(void) {
  Suite* s = suite_create("sim_step");
  TCase* tc = tcase_create("step");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, tree_energy_is_conserved);
  tcase_add_test(tc, observed_order);
  tcase_add_test(tc, step_does_not_allocate);
  tcase_add_test(tc, failed_step_keeps_state);
  tcase_add_test(tc, applied_work_closes_balance);
  suite_add_tcase(s, tc);
  return s;
}
