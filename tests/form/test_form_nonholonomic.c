// Nonholonomic constraints B(z) zd = 0 (003_f349169f78d6df41.txt Eqs. 11, 14) in the closed-loop
// formulations: the knife-edge rows and their bias against central differences, Chaplygin's
// sleigh against its closed-form motion under both formulations (with the trapezoidal rule's
// second order), the articulated vehicle's two formulations against each other, and the
// formulations that refuse velocity constraints.
#include <check.h>
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"

static hy_model* load_with(const char* what, hy_formulation form, double dt) {
  hy_model* m = hy_test_load(what);
  m->opt.formulation = form;
  m->opt.dt = dt;
  return m;
}

// B zd and the row B of constraint k at (z, zd), evaluated by hy_forward.
static double rate_at(const hy_model* m, hy_data* d, const double* z, const double* zd, int k) {
  const int nz = m->sizes.nz;
  memcpy(d->z, z, sizeof(double) * (size_t)nz);
  memcpy(d->zd, zd, sizeof(double) * (size_t)nz);
  hy_error err;
  (void)err;
  ck_assert_int_eq(hy_forward(m, d), HY_OK);
  return d->nh_rate[k];
}

// At a turned, articulated state with arbitrary velocities (not on the constraints, so that
// every term shows): B zd is the rate itself, dB zd/dzd = B; the bias B_dot zd is the rate's
// change along zd with zdd = 0, (rate(z + e zd) - rate(z - e zd)) / 2e.
START_TEST(knife_edge_rows_and_bias_match_differences) {
  hy_model* m = hy_test_load("articulated-vehicle");
  hy_data* d = hy_test_make(m);
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  ck_assert_int_eq(m->sizes.nnh, 2);
  const double z[4] = {1.5, -0.7, 0.6, -0.35}, zd[4] = {1.3, 0.4, -0.25, 0.6};
  for (int k = 0; k < m->sizes.nnh; k++) {
    double B[4], bias;
    const double r0 = rate_at(m, d, z, zd, k);
    memcpy(B, d->phi_z + (size_t)(neq + k) * nz, sizeof B);
    bias = d->phi_bias[neq + k];
    double s = 0;
    for (int i = 0; i < nz; i++) s += B[i] * zd[i];
    ck_assert_double_eq_tol(s, r0, 1e-13);
    const double e = 1e-6;
    for (int i = 0; i < nz; i++) {
      double zp[4], zm[4];
      memcpy(zp, zd, sizeof zp);
      memcpy(zm, zd, sizeof zm);
      zp[i] += e;
      zm[i] -= e;
      const double fd = (rate_at(m, d, z, zp, k) - rate_at(m, d, z, zm, k)) / (2 * e);
      ck_assert_msg(fabs(fd - B[i]) < 1e-9, "B[%d][%d] %.12g, differences %.12g", k, i, B[i], fd);
    }
    double zp[4], zm[4];
    for (int i = 0; i < nz; i++) {
      zp[i] = z[i] + e * zd[i];
      zm[i] = z[i] - e * zd[i];
    }
    const double fd = (rate_at(m, d, zp, zd, k) - rate_at(m, d, zm, zd, k)) / (2 * e);
    ck_assert_msg(fabs(fd - bias) < 1e-8 * fmax(1, fabs(bias)), "bias %d: %.12g, differences %.12g",
                  k, bias, fd);
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// The sleigh (tests/data/sleigh.yaml): k = m a / (J + m a^2), C = u0^2 + (a/k) w0^2,
// u(t) = sqrt(C) tanh(k sqrt(C) t + atanh(u0 / sqrt(C))), w = sqrt((k/a)(C - u^2)) (w0 > 0).
// Largest error of u and w over 5 s, and of the energy and the constraint.
typedef struct sleigh_errors {
  double u, w, energy, nh;
} sleigh_errors;

static sleigh_errors sleigh_run(hy_formulation form, double dt) {
  hy_model* m = load_with("tests/data/sleigh.yaml", form, dt);
  hy_data* d = hy_test_make(m);
  const double mass = 10, J = 2, a = 0.5, u0 = 1, w0 = 1;
  const double k = mass * a / (J + mass * a * a), C = u0 * u0 + (a / k) * w0 * w0;
  const double E0 = d->energy_kin;
  const int th = 2, x = 0, y = 1;
  sleigh_errors e = {0, 0, 0, 0};
  const long n = lround(5.0 / dt);
  for (long s = 0; s < n; s++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    const double u = d->zd[x] * cos(d->z[th]) + d->zd[y] * sin(d->z[th]);
    const double ue = sqrt(C) * tanh(k * sqrt(C) * d->time + atanh(u0 / sqrt(C)));
    const double we = sqrt(fmax(0, (k / a) * (C - ue * ue)));
    e.u = fmax(e.u, fabs(u - ue));
    e.w = fmax(e.w, fabs(d->zd[th] - we));
    e.energy = fmax(e.energy, fabs(d->energy_kin - E0));
    e.nh = fmax(e.nh, fabs(d->nh_rate[0]));
  }
  ck_assert_double_le(d->stats.nh_violation_max, e.nh);
  hy_data_free(d);
  hy_model_free(m);
  return e;
}

START_TEST(sleigh_follows_its_closed_form) {
  const hy_formulation forms[2] = {HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  for (int f = 0; f < 2; f++) {
    const sleigh_errors e1 = sleigh_run(forms[f], 1e-3), e2 = sleigh_run(forms[f], 2e-3);
    // measured: penalty 9.0e-8 / 8.6e-8, double-step 2.7e-7 / 1.1e-7 (m/s, rad/s) at 1 ms
    ck_assert_msg(e1.u < 5e-7 && e1.w < 5e-7, "form %d: u %.3g m/s, w %.3g rad/s", f, e1.u, e1.w);
    // the trapezoidal rule's second order: halving the step quarters the error
    const double ratio = e2.u / e1.u;
    ck_assert_msg(ratio > 3.5 && ratio < 4.5, "form %d: error ratio %.3g", f, ratio);
    // no work by the constraint, none lost to it
    ck_assert_msg(e1.energy < 1e-5, "form %d: energy off by %.3g J", f, e1.energy);
    ck_assert_msg(e1.nh < 1e-8, "form %d: |B zd| up to %.3g m/s", f, e1.nh);
  }
}
END_TEST

// The vehicle's S-curve (valve, two cylinders, two knife edges) by the two formulations.
START_TEST(vehicle_formulations_agree) {
  hy_model* mp = load_with("articulated-vehicle", HY_FORM_PENALTY, 1e-3);
  hy_model* md = load_with("articulated-vehicle", HY_FORM_DOUBLE_STEP, 1e-3);
  hy_data* dp = hy_test_make(mp);
  hy_data* dd = hy_test_make(md);
  double dz = 0, dpres = 0, nh = 0;
  for (long s = 0; s < 10000; s++) {
    ck_assert_msg(hy_step(mp, dp) == HY_OK, "%s", dp->err.msg);
    ck_assert_msg(hy_step(md, dd) == HY_OK, "%s", dd->err.msg);
    for (int i = 0; i < mp->sizes.nz; i++) dz = fmax(dz, fabs(dp->z[i] - dd->z[i]));
    for (int v = 0; v < mp->sizes.nvol; v++) dpres = fmax(dpres, fabs(dp->p[v] - dd->p[v]));
    nh = fmax(nh, fmax(dp->nh_violation, dd->nh_violation));
  }
  // measured: 1.2e-8 m or rad, 7 Pa, |B zd| below 1e-9 m/s
  ck_assert_msg(dz < 1e-6 && dpres < 1e3, "coordinates %.3g, pressures %.3g Pa", dz, dpres);
  ck_assert_msg(nh < 1e-6, "|B zd| up to %.3g m/s", nh);
  // it did steer: the heading moved by more than 0.5 rad on the way
  ck_assert_double_gt(fabs(dp->z[0]), 15);
  hy_data_free(dp);
  hy_data_free(dd);
  hy_model_free(mp);
  hy_model_free(md);
}
END_TEST

START_TEST(velocity_constraints_are_refused_where_unsupported) {
  const hy_formulation forms[3] = {HY_FORM_TREE, HY_FORM_ALI1, HY_FORM_ALI3P};
  for (int f = 0; f < 3; f++) {
    hy_model* m = load_with("tests/data/sleigh.yaml", forms[f], 1e-3);
    hy_data* d = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
    ck_assert_ptr_nonnull(strstr(err.msg, "1 nonholonomic constraint; use penalty or double-step"));
    hy_model_free(m);
  }
}
END_TEST

// tests/data/sleigh-held.yaml: a force on the blade, 100 N along the sleigh and 300 N across it,
// and a cylinder from equilibrium. Virtual work over the displacements the knife edge admits
// gives the cylinder -100 N / (d . e_x) = -145.448 N (d its direction) and nothing unbalanced:
// the sleigh stays at rest. (Over all the coordinates, the blade's 300 N would be left to the
// cylinder: 149.09 N and 249 N unbalanced.)
START_TEST(equilibrium_over_the_admissible_displacements) {
  hy_model* m = hy_test_load("tests/data/sleigh-held.yaml");
  hy_data* d = hy_test_make(m);
  const double th = 20 * acos(-1.0) / 180, dx = 1.2, dy = -0.6, len = hypot(dx, dy);
  const double expect = -100 / ((dx * cos(th) + dy * sin(th)) / len);
  ck_assert_double_eq_tol(d->frc_static[0], expect, 1e-6);
  ck_assert_double_lt(d->static_residual, 1e-9);
  for (long s = 0; s < 500; s++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    for (int i = 0; i < m->sizes.nz; i++) ck_assert_double_lt(fabs(d->zd[i]), 1e-9);
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* form_nonholonomic_suite(void) {
  Suite* s = suite_create("form_nonholonomic");
  TCase* tc = tcase_create("nonholonomic");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, knife_edge_rows_and_bias_match_differences);
  tcase_add_test(tc, sleigh_follows_its_closed_form);
  tcase_add_test(tc, vehicle_formulations_agree);
  tcase_add_test(tc, velocity_constraints_are_refused_where_unsupported);
  tcase_add_test(tc, equilibrium_over_the_admissible_displacements);
  suite_add_tcase(s, tc);
  return s;
}
