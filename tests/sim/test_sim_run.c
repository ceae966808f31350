// The run driver: the steps it takes (a last, shorter one to land on t_end), the states it
// records, stopping early, the summary against the same figures taken by hand, refusals before
// anything runs, and the work-memory limit of hy_data_make.
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"

typedef struct recorded {
  int n;
  double t[64];
} recorded;

static hy_status remember(void* user, const hy_model* m, const hy_data* d) {
  (void)m;
  recorded* r = user;
  if (r->n < 64) r->t[r->n] = d->time;
  r->n++;
  return HY_OK;
}

// dt = 0.3 s to t_end = 1 s: three steps of 0.3 s and one of 0.1 s, each recorded (every 1), and
// the last state at t_end exactly; with every 2, t = 0, 0.6 and the last.
START_TEST(steps_land_on_t_end) {
  hy_model* m = hy_test_load("double-pendulum");
  m->opt.dt = 0.3;
  m->opt.t_end = 1.0;
  m->opt.integrator = HY_INTEG_RK4;
  hy_data* d = hy_test_make(m);
  recorded r = {0};
  hy_run_options o = hy_run_options_default();
  o.record = remember;
  o.record_user = &r;
  hy_run_summary s;
  ck_assert_int_eq(hy_run(m, d, &o, &s), HY_OK);
  ck_assert_int_eq(s.steps, 4);
  ck_assert_int_eq(r.n, 5);
  const double want[5] = {0, 0.3, 0.6, 0.9, 1.0};
  for (int i = 0; i < 4; i++) ck_assert_double_eq_tol(r.t[i], want[i], 1e-15);
  ck_assert_double_eq(r.t[4], 1.0);
  ck_assert_double_eq(s.t_reached, 1.0);
  ck_assert_int_eq(s.status, HY_OK);
  ck_assert_int_eq(s.stopped, 0);
  ck_assert(isnan(s.iter_mean));  // no Newton iteration with rk4
  ck_assert(isnan(s.t_fail));
  // every 2
  ck_assert_int_eq(hy_data_reset(m, d), HY_OK);
  r.n = 0;
  o.every = 2;
  ck_assert_int_eq(hy_run(m, d, &o, &s), HY_OK);
  ck_assert_int_eq(r.n, 3);
  ck_assert_double_eq_tol(r.t[1], 0.6, 1e-15);
  ck_assert_double_eq(r.t[2], 1.0);
  // a whole number of steps takes no extra one (10 s at 1 ms: 10000)
  m->opt.dt = 1e-3;
  m->opt.t_end = 0.25;
  ck_assert_int_eq(hy_data_reset(m, d), HY_OK);
  ck_assert_int_eq(hy_run(m, d, NULL, &s), HY_OK);
  ck_assert_int_eq(s.steps, 250);
  ck_assert_double_eq_tol(d->time, 0.25, 1e-13);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Records the smallest step between two records.
typedef struct {
  long n;
  double last, min_step;
} steps_seen;

static hy_status on_step(void* user, const hy_model* m, const hy_data* d) {
  (void)m;
  steps_seen* g = user;
  if (g->n > 0) g->min_step = fmin(g->min_step, d->time - g->last);
  g->last = d->time;
  g->n++;
  return HY_OK;
}

// The step times are the running sum t + dt: after 23000 steps of 1 us it is 3.5e-16 s past
// t_end = 0.023000000000001998 s, and no last step goes back to t_end; 2 s of 1 us end
// short of t_end by round-off, and no sliver of a step follows; a real rest (0.3 dt) is taken.
START_TEST(last_step_goes_forward) {
  hy_model* m = hy_test_load("double-pendulum");
  m->opt.integrator = HY_INTEG_EULER;
  const struct {
    double dt, t_end;
    long long steps;
  } cases[] = {{1e-6, 0.023000000000001998, 23000}, {1e-6, 2, 2000000}, {1e-3, 1.0003, 1001}};
  for (int c = 0; c < 3; c++) {
    m->opt.dt = cases[c].dt;
    m->opt.t_end = cases[c].t_end;
    hy_data* d = hy_test_make(m);
    steps_seen g = {.min_step = INFINITY};
    hy_run_options o = hy_run_options_default();
    o.record = on_step;
    o.record_user = &g;
    hy_run_summary s;
    ck_assert_int_eq(hy_run(m, d, &o, &s), HY_OK);
    ck_assert_int_eq(s.steps, cases[c].steps);
    ck_assert_msg(g.min_step >= 0.29 * cases[c].dt, "case %d: a step of %.3g s", c, g.min_step);
    ck_assert_double_eq_tol(d->time, cases[c].t_end, 1e-8);
    hy_data_free(d);
  }
  hy_model_free(m);
}
END_TEST

// A step longer than the run, or a bad step or end time, is refused before anything runs.
START_TEST(bad_settings_are_refused) {
  hy_model* m = hy_test_load("double-pendulum");
  hy_data* d = hy_test_make(m);
  hy_run_summary s;
  m->opt.dt = 20;
  m->opt.t_end = 10;
  ck_assert_int_eq(hy_run(m, d, NULL, &s), HY_ERR_ARG);
  ck_assert_ptr_nonnull(strstr(d->err.msg, "longer than the run"));
  ck_assert_int_eq(s.steps, 0);
  ck_assert_double_eq(d->time, 0);
  m->opt.dt = NAN;
  ck_assert_int_eq(hy_run(m, d, NULL, &s), HY_ERR_ARG);
  m->opt.dt = 1e-3;
  hy_run_options o = hy_run_options_default();
  o.every = 0;
  ck_assert_int_eq(hy_run(m, d, &o, &s), HY_ERR_ARG);
  ck_assert_double_eq(d->time, 0);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

static int stop_after_any(void* user, const hy_model* m, const hy_data* d) {
  (void)m;
  (void)d;
  (void)user;
  return 1;
}

// The stop flag ends the run after the step during which it was set, and the state it stopped
// at is recorded; so does a progress callback that asks for it.
START_TEST(stop_flag_and_progress_stop_the_run) {
  hy_model* m = hy_test_load("double-pendulum");
  m->opt.integrator = HY_INTEG_RK4;
  hy_data* d = hy_test_make(m);
  volatile int stop = 1;
  recorded r = {0};
  hy_run_options o = hy_run_options_default();
  o.record = remember;
  o.record_user = &r;
  o.every = 1000;
  o.stop = &stop;
  hy_run_summary s;
  ck_assert_int_eq(hy_run(m, d, &o, &s), HY_OK);
  ck_assert_int_eq(s.steps, 1);
  ck_assert_int_eq(s.stopped, 1);
  ck_assert_int_eq(r.n, 2);
  ck_assert_double_eq(r.t[1], d->time);
  // a progress callback asking to stop, called at once (interval 0)
  ck_assert_int_eq(hy_data_reset(m, d), HY_OK);
  o.stop = NULL;
  o.progress = stop_after_any;
  o.progress_interval = 0;
  ck_assert_int_eq(hy_run(m, d, &o, &s), HY_OK);
  ck_assert_int_eq(s.steps, 1);
  ck_assert_int_eq(s.stopped, 1);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// The summary equals the same figures taken by hand over a stepping loop (the one place they
// are computed is the library): energy drift, its scale and share of the actuator work,
// iterations, violation.
START_TEST(summary_equals_hand_figures) {
  hy_model* m = hy_test_load("four-bar-a");
  m->opt.t_end = 2.0;
  hy_data* d = hy_test_make(m);
  const double e0 = hy_energy_total(d);
  double drift = 0, scale = fabs(d->energy_kin) + fabs(d->energy_pot), work = 0;
  const long n = lround(m->opt.t_end / m->opt.dt);
  for (long k = 0; k < n; k++) {
    ck_assert_int_eq(hy_step(m, d), HY_OK);
    drift = fmax(drift, fabs(hy_energy_total(d) - e0));
    scale = fmax(scale, fabs(d->energy_kin) + fabs(d->energy_pot));
    work = fmax(work, fabs(d->work_hyd - d->diss_visc + d->work_damp));
  }
  const double iter = (double)d->stats.niter / (double)d->stats.nstep;
  const double viol = d->stats.violation_max;
  hy_data* e = hy_test_make(m);
  hy_run_summary s;
  ck_assert_int_eq(hy_run(m, e, NULL, &s), HY_OK);
  ck_assert_int_eq(s.steps, n);
  ck_assert_double_eq(s.drift, drift);
  ck_assert_double_eq(s.scale, scale);
  ck_assert_double_eq(s.work_act_max, work);
  ck_assert_double_eq(s.drift_pct_work, 100.0 * drift / work);
  ck_assert_double_eq(s.iter_mean, iter);
  ck_assert_double_eq(s.violation_max, viol);
  ck_assert(isnan(s.drift_pct_pot));  // with cylinders the work is the scale
  ck_assert(work > 100);              // the valve opened: the figures mean something
  hy_data_free(e);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A model whose work memory would exceed the limit is refused with the estimate, before
// anything is allocated.
START_TEST(memory_limit_refuses_before_allocating) {
  hy_model* m = hy_test_load("quick-return");
  m->opt.max_memory = 4096;
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_test_count_allocs_begin();
  const hy_status st = hy_data_make(m, &d, &err);
  const long nalloc = hy_test_count_allocs_end();
  ck_assert_int_eq(st, HY_ERR_NOMEM);
  ck_assert_ptr_null(d);
  ck_assert_int_eq(nalloc, 0);
  ck_assert_msg(
      strstr(err.msg, "would need") && strstr(err.msg, "kB") && strstr(err.msg, "max_memory"), "%s",
      err.msg);
  // the same model within its limit
  m->opt.max_memory = 1e9;
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_OK);
  ck_assert(d->work_bytes > 4096 && d->work_bytes < 1e6);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* sim_run_suite(void) {
  Suite* s = suite_create("sim_run");
  TCase* tc = tcase_create("run");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, steps_land_on_t_end);
  tcase_add_test(tc, last_step_goes_forward);
  tcase_add_test(tc, bad_settings_are_refused);
  tcase_add_test(tc, stop_flag_and_progress_stop_the_run);
  tcase_add_test(tc, summary_equals_hand_figures);
  tcase_add_test(tc, memory_limit_refuses_before_allocating);
  suite_add_tcase(s, tc);
  return s;
}
