// The trapezoidal rule's pieces with a closed form (the first-order lag of the spools), its
// local error estimate against the true local error, and its step controller: a failed step cut
// into halves, the state back at the start of a step that fails for good, and error control
// converging to a fine reference with the steps still meeting the recording times, its Newton
// iteration held inside the error tolerance.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "integ/integ.h"
#include "sim/sim.h"

// A lag with time constant tau following a constant reference 10 from 0: the trapezoidal
// recursion y_k+1 = r y_k + 10 (1 - r), r = (1 - a) / (1 + a), has the exact solution
// y_k = 10 (1 - r^k); at t = tau it differs from the ODE's 10 (1 - 1/e) by the rule's error,
// 10 e^-1 n (2a)^3 / 12 to leading order.
START_TEST(lag_step_is_the_trapezoidal_rule) {
  const double tau = 4.547e-3;
  const int n = 100;
  const double h = tau / n, a = h / (2 * tau), r = (1 - a) / (1 + a);
  double y = 0;
  hy_test_count_allocs_begin();
  for (int i = 0; i < n; i++) {
    y = hy_integ_lag_step(y, 10, 10, h, tau);
    ck_assert_double_le(fabs(y - 10 * (1 - pow(r, i + 1))), 1e-12);
  }
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  const double want = 10 * (1 - exp(-1.0));
  const double bound = 1.1 * 10 * exp(-1.0) * n * pow(2 * a, 3) / 12;
  ck_assert_msg(fabs(y - want) <= bound, "y(tau) = %.12g, want %.12g +- %.3g", y, want, bound);
  ck_assert_double_ge(fabs(y - want), 0.5 * bound / 1.1);  // the error is really the rule's
  // a reference that ramps: the average of its ends drives the step
  ck_assert_double_eq(hy_integ_lag_step(4, 0, 0, h, tau), 4 * r);
  ck_assert_double_le(fabs(hy_integ_lag_step(0, 2, 6, h, tau) - 2 * a * 4 / (1 + a)), 1e-15);
}
END_TEST

// The local error estimate of one trapezoidal step (the predictor-corrector difference, a third
// of it on the coordinates, r/(3(r+1)) on the pressures) against the true local error of the
// same step, the difference to the step integrated from the same start with RK4 at h/1000. The
// double pendulum (tree formulation, coordinates) and the crane (pressures, the estimate of a
// step 1.5 times its predecessor) mid-motion.
START_TEST(error_estimate_is_the_local_error) {
  const struct {
    const char* model;
    double t0, h, h_prev;
  } cases[] = {{"double-pendulum", 0.3, 2e-3, 2e-3}, {"crane", 1.5, 1.5e-3, 1e-3}};
  for (int c = 0; c < 2; c++) {
    hy_model* m = hy_test_load(cases[c].model);
    const int nz = m->sizes.nz, nv = m->sizes.nvol;
    m->opt.formulation = HY_FORM_TREE;
    m->opt.integrator = HY_INTEG_TRAPEZOIDAL;
    m->opt.tol_pos = 1e-13;  // the converged step, not the Newton tolerance, is compared
    m->opt.tol_p = 1e-6;
    m->opt.error_control = HY_ERRCTL_PREDICTOR;
    m->opt.dt = cases[c].h_prev;
    hy_data* d = hy_test_make(m);
    hy_test_steps(m, d, lround(cases[c].t0 / m->opt.dt));
    hy_work* w = d->work_;
    hy_form* f = hy_sim_form(m, d);
    // the step from this state
    static double start[4096], z_trap[64], p_trap[64];
    ck_assert_int_le(hy_state_size(m, d, HY_STATE_FULL), 4096);
    ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, start), HY_OK);
    const double h = cases[c].h, t1 = d->time + h;
    double e = -1;
    // tolerances far above the step's error: the step is accepted whatever the estimate, which
    // is compared in their units; the crane's on its pressures alone
    m->opt.error_tol_pos = c == 0 ? 1 : 1e9;
    m->opt.error_tol_p = 1e6;
    ck_assert_int_eq(hy_trap_step(&w->integ, f, h, t1, &e), HY_OK);
    memcpy(z_trap, d->z, sizeof(double) * (size_t)nz);
    memcpy(p_trap, d->p, sizeof(double) * (size_t)nv);
    // the same interval with RK4 at h/1000 from the same positions, velocities, pressures, spools
    m->opt.integrator = HY_INTEG_RK4;
    m->opt.dt = h / 1000;
    hy_data* r = hy_test_make(m);
    ck_assert_int_eq(hy_state_set(m, r, HY_STATE_TIME | HY_STATE_PHYSICS, start), HY_OK);
    hy_test_steps(m, r, 1000);
    double ez = 0, ep = 0;
    for (int i = 0; i < nz; i++) ez = fmax(ez, fabs(z_trap[i] - r->z[i]));
    for (int v = 0; v < nv; v++) ep = fmax(ep, fabs(p_trap[v] - r->p[v]));
    const double truth = fmax(ez / m->opt.error_tol_pos, ep / m->opt.error_tol_p);
    printf(
        "  %s: local error estimate %.4g, true %.4g (tolerances), ratio %.3f; |dz| %.3g rad, "
        "|dp| %.3g Pa\n",
        cases[c].model, e, truth, e / truth, ez, ep);
    fflush(stdout);
    // errors far above the Newton tolerances (1e-13 rad, 1e-6 Pa) and the reference's own error
    // (~1e-15 of RK4 at h/1000): the comparison sees the step's local error
    ck_assert(ez > 1e-11 || ep > 1e-5);  // a step whose error the comparison can see
    ck_assert_msg(e > 0.7 * truth && e < 1.4 * truth, "%s: estimate %.4g, true %.4g",
                  cases[c].model, e, truth);
    hy_data_free(r);
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

// Loop 64 of the HDCA cases fails to converge at t = 2.149 s with strict steps of 1 ms; cut into
// halves the run gets through. A step that still fails after max_cuts halvings, here the step
// from 2.151 s whose first half converges and second does not, leaves the data bit for bit at
// its start.
START_TEST(failed_step_is_cut) {
  hy_model* m = hy_test_load("loop-64");
  m->opt.t_end = 2.2;
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 2149);
  const int n = hy_state_size(m, d, HY_STATE_FULL);
  double* before = malloc(sizeof(double) * (size_t)n);
  double* after = malloc(sizeof(double) * (size_t)n);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, before), HY_OK);
  m->opt.strict_steps = 1;
  ck_assert_int_eq(hy_step(m, d), HY_NEWTON_NOCONV);
  ck_assert_msg(strstr(d->err.msg, "did not converge in step t = 2.149") != NULL, "%s", d->err.msg);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, after), HY_OK);
  ck_assert_int_eq(memcmp(before, after, sizeof(double) * (size_t)n), 0);
  // cut into halves, the steps to 2.151 s converge
  m->opt.strict_steps = 0;
  const long ncut = d->stats.ncut;
  hy_test_steps(m, d, 2);
  ck_assert_int_gt(d->stats.ncut, ncut);
  // the step from 2.151 s, halved once and no more: back to its start, bit for bit (the
  // checkpoint of a step taken in pieces)
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, before), HY_OK);
  m->opt.max_cuts = 1;
  const hy_status st = hy_step(m, d);
  ck_assert_msg(st == HY_NEWTON_NOCONV, "%d: %s", st, d->err.msg);
  ck_assert_msg(strstr(d->err.msg, "in step t = 2.1515") && strstr(d->err.msg, "cut 1 time"), "%s",
                d->err.msg);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, after), HY_OK);
  hy_test_same_bits(before, after, n, "the state after the failed step");
  // with the default cuts the run goes on
  m->opt.max_cuts = 12;
  hy_test_steps(m, d, 2200 - 2151);
  ck_assert_double_eq_tol(d->time, 2.2, 1e-9);
  ck_assert_double_le(d->stats.h_min, 0.25e-3);
  ck_assert_double_le(d->stats.violation_max, 1e-8);
  free(before);
  free(after);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Error control on loop 16 over 1 s: the error of the end state against a reference of fixed
// steps of 10 us falls with the tolerance like tol^(2/3) (local error ~ h^3 per step, h ~
// tol^(1/3), steps ~ 1/h), and every hy_step still ends on the recording time k dt.
START_TEST(error_control_converges) {
  hy_model* m = hy_test_load("loop-16");
  m->opt.t_end = 1.0;
  m->opt.dt = 1e-5;
  m->opt.formulation = HY_FORM_DOUBLE_STEP;
  hy_data* ref = hy_test_make(m);
  hy_test_steps(m, ref, 100000);
  m->opt.dt = 1e-2;
  m->opt.error_control = HY_ERRCTL_PREDICTOR;
  const double tols[3] = {1e-5, 1e-6, 1e-7};
  double err[3];
  long steps[3];
  for (int k = 0; k < 3; k++) {
    m->opt.error_tol_pos = tols[k];
    hy_data* d = hy_test_make(m);
    for (int i = 1; i <= 100; i++) {
      ck_assert_int_eq(hy_step(m, d), HY_OK);
      ck_assert_double_eq_tol(d->time, i * 1e-2, 1e-13);
    }
    err[k] = 0;
    for (int i = 0; i < m->sizes.nz; i++) err[k] = fmax(err[k], fabs(d->z[i] - ref->z[i]));
    steps[k] = d->stats.nsubstep;
    printf("  loop-16, error control %.0e: %ld steps, end error %.3g rad\n", tols[k], steps[k],
           err[k]);
    hy_data_free(d);
  }
  // measured 2.7e-3, 8.2e-4, 2.1e-4 rad: 13 times over the two decades, tol^0.56
  ck_assert_msg(err[0] / err[2] > 6 && err[1] < err[0] && err[2] < err[1], "errors %.3g %.3g %.3g",
                err[0], err[1], err[2]);
  ck_assert(steps[2] > 3 * steps[0]);
  ck_assert(err[2] < 1e-3);
  hy_data_free(ref);
  hy_model_free(m);
}
END_TEST

// Under error control the Newton iteration converges to a tenth of the error tolerance when that
// is tighter than its own tolerance: with the error tolerance 1e-9 rad, the run with the default
// Newton tolerance (1e-7) is bit for bit the run with 2e-10 (both iterate to 1e-10), and a run
// without error control still stops at its own tolerance (the two differ).
static void run_loop16(hy_model* m, double tol, double* z) {
  m->opt.tol_pos = tol;
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, lround(m->opt.t_end / m->opt.dt));
  memcpy(z, d->z, sizeof(double) * (size_t)m->sizes.nz);
  hy_data_free(d);
}

START_TEST(newton_tolerance_follows_error_tolerance) {
  hy_model* m = hy_test_load("loop-16");
  m->opt.t_end = 0.1;
  static double a[64], b[64];
  ck_assert_int_le(m->sizes.nz, 64);
  const size_t bytes = sizeof(double) * (size_t)m->sizes.nz;
  m->opt.error_control = HY_ERRCTL_PREDICTOR;
  m->opt.error_tol_pos = 1e-9;
  run_loop16(m, 1e-7, a);
  run_loop16(m, 2e-10, b);
  ck_assert_int_eq(memcmp(a, b, bytes), 0);
  m->opt.error_control = HY_ERRCTL_NONE;
  run_loop16(m, 1e-7, a);
  run_loop16(m, 2e-10, b);
  ck_assert_int_ne(memcmp(a, b, bytes), 0);
  hy_model_free(m);
}
END_TEST

// A step that fails for good leaves the whole state (the HIST segment too: the double-step
// partition, the multipliers' history, the rotation cache) bit for bit at its start, whether it
// failed at once (strict), after its cuts, or under error control; and a cut is counted only
// when a shorter step is really tried. One Newton iteration is too few for loop-16 mid-motion.
START_TEST(failed_step_leaves_the_whole_state) {
  static double before[8192], after[8192];
  const hy_formulation forms[2] = {HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  for (int fo = 0; fo < 2; fo++) {
    for (int mode = 0; mode < 3; mode++) {  // strict, cut, error control
      hy_model* m = hy_test_load("loop-16");
      m->opt.formulation = forms[fo];
      m->opt.error_control = mode == 2 ? HY_ERRCTL_PREDICTOR : HY_ERRCTL_NONE;
      hy_data* d = hy_test_make(m);
      hy_test_steps(m, d, 300);
      const int n = hy_state_size(m, d, HY_STATE_FULL);
      ck_assert_int_le(n, 8192);
      ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, before), HY_OK);
      m->opt.max_iter = 1;
      m->opt.tol_pos = 1e-15;  // no step converges in one iteration to that
      m->opt.strict_steps = mode == 0;
      m->opt.max_cuts = 2;
      const long ncut = d->stats.ncut, npart = d->stats.npartition;
      ck_assert_int_eq(hy_step(m, d), HY_NEWTON_NOCONV);
      ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, after), HY_OK);
      char what[160];
      snprintf(what, sizeof what, "%s, mode %d, after: %.100s", hy_formulation_name(forms[fo]),
               mode, d->err.msg);
      hy_test_same_bits(before, after, n, what);
      const long cuts = d->stats.ncut - ncut;
      if (mode == 0) {
        ck_assert_int_eq(cuts, 0);
        ck_assert_int_eq(d->stats.npartition, npart);  // no partition tried
      } else {
        // as many cuts as tried, and said so: at most max_cuts, and the message counts them
        ck_assert_int_ge(cuts, 1);
        ck_assert_int_le(cuts, 2);
        char said[64];
        snprintf(said, sizeof said, "(the step was cut %ld time%s", cuts, cuts == 1 ? "" : "s");
        ck_assert_msg(strstr(d->err.msg, said) != NULL, "%s", d->err.msg);
      }
      // and the data goes on from there as if nothing had happened
      m->opt.max_iter = 25;
      m->opt.tol_pos = 1e-7;
      m->opt.strict_steps = 0;
      hy_test_steps(m, d, 1);
      hy_data_free(d);
      hy_model_free(m);
    }
  }
}
END_TEST

// A value that is not finite is reported as such, never as a Newton iteration that did not
// converge with a residual of 0: in the state a step starts from, and in the iteration.
START_TEST(nonfinite_values_are_named) {
  hy_model* m = hy_test_load("four-bar-a");
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 1200);
  const double t = d->time;
  d->zd[1] = NAN;
  ck_assert_int_eq(hy_step(m, d), HY_ERR_NAN);
  ck_assert_msg(strstr(d->err.msg, "non-finite") && !strstr(d->err.msg, "did not converge"), "%s",
                d->err.msg);
  ck_assert_double_eq(d->time, t);
  // strict: the iteration's own report
  m->opt.strict_steps = 1;
  ck_assert_int_eq(hy_step(m, d), HY_ERR_NAN);
  ck_assert_msg(strstr(d->err.msg, "non-finite residual") && strstr(d->err.msg, "nan"), "%s",
                d->err.msg);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* integ_trap_suite(void) {
  Suite* s = suite_create("integ_trap");
  TCase* tc = tcase_create("trapezoidal");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, lag_step_is_the_trapezoidal_rule);
  tcase_add_test(tc, error_estimate_is_the_local_error);
  tcase_add_test(tc, failed_step_is_cut);
  tcase_add_test(tc, error_control_converges);
  tcase_add_test(tc, newton_tolerance_follows_error_tolerance);
  tcase_add_test(tc, failed_step_leaves_the_whole_state);
  tcase_add_test(tc, nonfinite_values_are_named);
  suite_add_tcase(s, tc);
  return s;
}
