// Closed-loop formulations on the seed mechanisms: static equilibrium force against the seed's
// closed form, rest under that force, agreement of penalty and double-step, second-order
// convergence, constraint violation, energy, tangent kinds, partition re-selection.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

// What a run saw.
typedef struct run_result {
  double z[8];           // final coordinates
  double traj[2001][8];  // coordinates every ms up to 2 s (when recorded)
  double dz_max;         // largest |z(t) - z(0)|
  double drift;          // largest |E(t) - E(0)| (J)
  double pot_released;   // E_pot(0) - min E_pot (J)
  double kin_max;        // largest kinetic energy (J)
  double violation;      // largest |Phi| after a step
  double iter_mean;
  int iter_max;
  long partitions;
} run_result;

static void run(hy_model* m, hy_formulation form, double dt, double t_end, run_result* r) {
  m->opt.formulation = form;
  m->opt.dt = dt;
  hy_data* d = hy_test_make(m);
  const int nz = m->sizes.nz;
  double z0[8];
  memcpy(z0, d->z, sizeof(double) * (size_t)nz);
  const double e0 = hy_energy_total(d), p0 = d->energy_pot;
  memset(r, 0, sizeof *r);
  double pmin = p0;
  const long n = lround(t_end / dt);
  const long every = lround(1e-3 / dt);
  for (long i = 1; i <= n; i++) {
    hy_status st = hy_step(m, d);
    ck_assert_msg(st == HY_OK, "step %ld: %s", i, d->err.msg);
    r->drift = fmax(r->drift, fabs(hy_energy_total(d) - e0));
    r->kin_max = fmax(r->kin_max, d->energy_kin);
    pmin = fmin(pmin, d->energy_pot);
    for (int k = 0; k < nz; k++) r->dz_max = fmax(r->dz_max, fabs(d->z[k] - z0[k]));
    if (every > 0 && i % every == 0 && i / every <= 2000) {
      memcpy(r->traj[i / every], d->z, sizeof(double) * (size_t)nz);
    }
  }
  memcpy(r->z, d->z, sizeof(double) * (size_t)nz);
  r->pot_released = p0 - pmin;
  r->violation = d->stats.violation_max;
  r->iter_mean = (double)d->stats.niter / (double)d->stats.nstep;
  r->iter_max = d->stats.niter_max;
  r->partitions = d->stats.npartition;
  hy_data_free(d);
}

static double max_diff(const double* a, const double* b, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) r = fmax(r, fabs(a[i] - b[i]));
  return r;
}

static run_result ra, rb, rc, rref;

//----- statics -------------------------------------------------------------------------------

// Seed 000 Sect. 5: F_s0 = sqrt(2) g (3 m1 + 2 m2 + m3) for four-bar A.
START_TEST(four_bar_equilibrium_force) {
  hy_model* m = hy_test_load("four-bar-a-held");
  hy_data* d = hy_test_make(m);
  const double g = 9.81, expect = sqrt(2.0) * g * (3 * 225.0 + 2 * 35.0 + 50.0);
  ck_assert_double_eq_tol(expect, 11029.38, 0.005);
  ck_assert_msg(fabs(d->frc_static[0] - expect) < 1e-6 * expect, "F = %.9g N, expected %.9g N",
                d->frc_static[0], expect);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// quick_return.md Sect. 8: -4151.56 N (a pull) with the printed angles and z4 kept.
START_TEST(quick_return_equilibrium_force) {
  hy_model* m = hy_test_load("quick-return-held");
  hy_data* d = hy_test_make(m);
  ck_assert_int_eq(m->sizes.neq, 4);
  ck_assert_int_eq(d->ndof, 1);
  // full pivoting picks the crank angle z4 as the independent coordinate, as in the seed
  ck_assert_int_eq(d->part[0], m->jnt_zadr[hy_model_joint(m, "K")]);
  ck_assert_msg(d->assembly_shift > 1e-6 && d->assembly_shift < 1e-3, "assembly shift %.3g",
                d->assembly_shift);
  ck_assert_msg(fabs(d->frc_static[0] - (-4151.56)) < 0.01, "F = %.9g N", d->frc_static[0]);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Held by the computed force, both mechanisms stay at rest with both formulations: four-bar A
// for 10 s. The quick-return's held configuration is an unstable equilibrium: started with
// zd0 = 1e-7 rad/s on every joint, both formulations leave it with an e-folding time of about
// 0.24 s. The penalty formulation's extrapolated multipliers carry round-off (some 1e-5 N of
// alpha Phi) that this growth turns into 1e-8 rad after about 2.5 s, so it is held for 2 s.
START_TEST(held_mechanisms_stay_at_rest) {
  const char* names[] = {"four-bar-a-held", "quick-return-held"};
  const double t_end[] = {10.0, 2.0};
  for (int k = 0; k < 2; k++) {
    hy_model* m = hy_test_load(names[k]);
    for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
      run(m, (hy_formulation)f, 1e-3, t_end[k], &ra);
      ck_assert_msg(ra.dz_max < 1e-8, "%s, %s: moved %.3g rad", names[k],
                    hy_formulation_name((hy_formulation)f), ra.dz_max);
    }
    hy_model_free(m);
  }
}
END_TEST

//----- dynamics ------------------------------------------------------------------------------

// Released from rest: the formulations agree to 1e-3 rad over 2 s, violate the constraints by
// at most 1e-6 m (penalty) and 1e-9 m (double-step), and drift in energy by less than 1e-3 of
// the potential energy released.
START_TEST(released_mechanisms) {
  const char* names[] = {"four-bar-a-released", "quick-return-released"};
  for (int k = 0; k < 2; k++) {
    hy_model* m = hy_test_load(names[k]);
    const int nz = m->sizes.nz;
    run(m, HY_FORM_PENALTY, 1e-3, 2.0, &ra);
    run(m, HY_FORM_DOUBLE_STEP, 1e-3, 2.0, &rb);
    ck_assert_msg(ra.dz_max > 0.5, "%s hardly moved (%.3g rad)", names[k], ra.dz_max);
    double worst = 0;
    for (int i = 1; i <= 2000; i++) worst = fmax(worst, max_diff(ra.traj[i], rb.traj[i], nz));
    ck_assert_msg(worst < 1e-3, "%s: formulations differ by %.3g rad", names[k], worst);
    ck_assert_msg(ra.violation <= 1e-6, "%s penalty violation %.3g", names[k], ra.violation);
    ck_assert_msg(rb.violation <= 1e-9, "%s double-step violation %.3g", names[k], rb.violation);
    ck_assert(ra.pot_released > 100);
    ck_assert_msg(ra.drift < 1e-3 * ra.pot_released, "%s penalty drift %.3g J of %.3g J", names[k],
                  ra.drift, ra.pot_released);
    ck_assert_msg(rb.drift < 1e-3 * rb.pot_released, "%s double-step drift %.3g J of %.3g J",
                  names[k], rb.drift, rb.pot_released);
    ck_assert(ra.iter_mean >= 1 && ra.iter_max >= 1 && rb.iter_max <= m->opt.max_iter);
    hy_model_free(m);
  }
}
END_TEST

// Global error at t = 1 s against a dt = 1e-5 s solution falls about 4x when dt halves. The
// reference comes from the double-step method: the penalty method at dt = 1e-5 s would need
// alpha scaled by 1/dt^2 to keep its multipliers converging in a few iterations.
START_TEST(second_order_convergence) {
  const char* names[] = {"four-bar-a-released", "quick-return-released"};
  for (int k = 0; k < 2; k++) {
    hy_model* m = hy_test_load(names[k]);
    m->opt.tol_pos = 1e-10;  // iteration error well below the discretization error
    const int nz = m->sizes.nz;
    run(m, HY_FORM_DOUBLE_STEP, 1e-5, 1.0, &rref);
    for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
      run(m, (hy_formulation)f, 4e-3, 1.0, &ra);
      run(m, (hy_formulation)f, 2e-3, 1.0, &rb);
      run(m, (hy_formulation)f, 1e-3, 1.0, &rc);
      const double e1 = max_diff(ra.z, rref.z, nz), e2 = max_diff(rb.z, rref.z, nz);
      const double e3 = max_diff(rc.z, rref.z, nz);
      ck_assert_msg(e1 / e2 > 3.2 && e1 / e2 < 5 && e2 / e3 > 3.2 && e2 / e3 < 5,
                    "%s, %s: errors %.3g %.3g %.3g rad (ratios %.2f %.2f)", names[k],
                    hy_formulation_name((hy_formulation)f), e1, e2, e3, e1 / e2, e2 / e3);
    }
    hy_model_free(m);
  }
}
END_TEST

// The finite-difference and the analytic tangent converge to the same trajectory. With the
// default tolerance (1e-7 rad) each accepted step keeps an iteration error that depends on the
// tangent (about 1e-5 rad apart after 2 s); converged to 1e-11 rad (penalty; its multiplier
// updates leave a floor near that) or 1e-12 rad (double-step) they must agree to 1e-9.
START_TEST(tangents_agree) {
  hy_model* m = hy_test_load("quick-return-released");
  const int nz = m->sizes.nz;
  for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
    m->opt.tol_pos = f == HY_FORM_PENALTY ? 1e-11 : 1e-12;
    m->opt.tangent = HY_TANGENT_ANALYTIC;
    run(m, (hy_formulation)f, 1e-3, 2.0, &ra);
    m->opt.tangent = HY_TANGENT_FD;
    run(m, (hy_formulation)f, 1e-3, 2.0, &rb);
    double worst = 0;
    for (int i = 1; i <= 2000; i++) worst = fmax(worst, max_diff(ra.traj[i], rb.traj[i], nz));
    ck_assert_msg(worst < 1e-9, "%s: tangents differ by %.3g rad",
                  hy_formulation_name((hy_formulation)f), worst);
    ck_assert(ra.dz_max > 0.5);
  }
  hy_model_free(m);
}
END_TEST

// A crank-rocker whose first partition (rocker coordinate independent) is singular twice per
// crank turn: the double-step method re-selects the partition, keeps the loop closed and
// agrees with the penalty method; without re-selection it goes astray.
START_TEST(partition_reselection) {
  hy_model* m = hy_test_load("tests/data/crank_rocker.yaml");
  const int nz = m->sizes.nz;
  run(m, HY_FORM_DOUBLE_STEP, 1e-3, 5.0, &ra);
  ck_assert_msg(ra.partitions >= 2, "partitions %ld", ra.partitions);
  ck_assert_msg(ra.z[0] - HY_PI / 2 > 2 * HY_PI, "the crank turned only %.3g rad",
                ra.z[0] - HY_PI / 2);
  ck_assert_msg(ra.violation <= 1e-9, "violation %.3g", ra.violation);
  ck_assert_msg(ra.drift < 1e-3 * ra.kin_max, "drift %.3g J of %.3g J", ra.drift, ra.kin_max);
  run(m, HY_FORM_PENALTY, 1e-3, 5.0, &rb);
  ck_assert_msg(max_diff(ra.z, rb.z, nz) < 5e-3, "formulations differ by %.3g rad",
                max_diff(ra.z, rb.z, nz));
  // the same run with the partition kept
  m->opt.partition_rcond = 1e-300;
  run(m, HY_FORM_DOUBLE_STEP, 1e-3, 5.0, &rc);
  ck_assert_int_eq(rc.partitions, 1);
  ck_assert_msg(max_diff(rc.z, rb.z, nz) > 10 * max_diff(ra.z, rb.z, nz),
                "keeping the partition did no harm (%.3g vs %.3g rad)", max_diff(rc.z, rb.z, nz),
                max_diff(ra.z, rb.z, nz));
  hy_model_free(m);
}
END_TEST

// Stepping a closed loop allocates nothing, with either formulation and either tangent.
START_TEST(closed_loop_step_does_not_allocate) {
  hy_model* m = hy_test_load("quick-return-released");
  for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
    for (int t = 0; t < HY_TANGENT_COUNT; t++) {
      m->opt.formulation = (hy_formulation)f;
      m->opt.tangent = (hy_tangent)t;
      hy_data* d = hy_test_make(m);
      hy_test_count_allocs_begin();
      hy_test_steps(m, d, 500);
      long n = hy_test_count_allocs_end();
      ck_assert_msg(n == 0, "%ld allocations", n);
      hy_data_free(d);
    }
  }
  hy_model_free(m);
}
END_TEST

// A Newton failure stops the step with the time, residual and coordinate, and leaves the state
// at the start of the step.
START_TEST(newton_failure_is_reported) {
  hy_model* m = hy_test_load("four-bar-a-released");
  m->opt.formulation = HY_FORM_PENALTY;
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 300);
  m->opt.max_iter = 1;
  m->opt.tol_pos = 1e-16;
  m->opt.strict_steps = 1;  // the step fails as it is, without being cut
  const double t = d->time, z1 = d->z[1];
  hy_status st = hy_step(m, d);
  ck_assert_int_eq(st, HY_NEWTON_NOCONV);
  ck_assert_double_eq(d->time, t);
  ck_assert_double_eq(d->z[1], z1);
  ck_assert_msg(strstr(d->err.msg, "did not converge") && strstr(d->err.msg, "residual") &&
                    strstr(d->err.msg, "coordinate '"),
                "message: %s", d->err.msg);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* form_suite(void) {
  Suite* s = suite_create("form");
  TCase* tc = tcase_create("closed_loops");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, four_bar_equilibrium_force);
  tcase_add_test(tc, quick_return_equilibrium_force);
  tcase_add_test(tc, held_mechanisms_stay_at_rest);
  tcase_add_test(tc, released_mechanisms);
  tcase_add_test(tc, second_order_convergence);
  tcase_add_test(tc, tangents_agree);
  tcase_add_test(tc, partition_reselection);
  tcase_add_test(tc, closed_loop_step_does_not_allocate);
  tcase_add_test(tc, newton_failure_is_reported);
  suite_add_tcase(s, tc);
  return s;
}
