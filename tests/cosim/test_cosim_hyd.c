// A hydraulic subsystem of co-simulation (src/cosim/cosim_hyd.c): driven by the exact cylinder
// length and rate of a monolithic run of the crane it repeats the run's pressures; forward Euler
// converges at first order, RK4 and the trapezoidal rule far closer; its forces are seed 001
// Eq. 33 at the given geometry and leave the state alone; save and restore are exact to the bit
// and stepping allocates nothing; a Newton iteration that cannot converge fails cleanly.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cosim/cosim.h"
#include "cosim_check.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

static hy_cosim_sub* make_hyd(const hy_model* m, hy_cosim_coupling c, hy_integrator integ,
                              double hh) {
  hy_cosim_sub* s = NULL;
  hy_error err;
  const hy_status st = hy_cosim_hyd_make(m, 0, c, integ, hh, &s, &err);
  ck_assert_msg(st == HY_OK, "hy_cosim_hyd_make(%s): %s", m->name, err.msg);
  return s;
}

// The crane run monolithically with dt for t_end: s, s_dot and the three pressures per step.
typedef struct mono {
  int n;
  double dt;
  double *s, *sd, *p;  // p: nvol per step
} mono;

static mono run_mono(const hy_model* m0, double dt, double t_end) {
  hy_model* m = NULL;
  ck_assert_int_eq(hy_model_copy(m0, &m), HY_OK);
  m->opt.dt = dt;
  hy_data* d = hy_test_make(m);
  mono r = {.n = (int)lround(t_end / dt), .dt = dt};
  const size_t n1 = (size_t)r.n + 1, nv = (size_t)m->sizes.nvol;
  r.s = malloc(sizeof(double) * n1);
  r.sd = malloc(sizeof(double) * n1);
  r.p = malloc(sizeof(double) * n1 * nv);
  const int f = m->cyl_frc[0];
  for (int n = 0;; n++) {
    r.s[n] = d->frc_len[f];
    r.sd[n] = d->frc_rate[f];
    memcpy(r.p + (size_t)n * nv, d->p, sizeof(double) * nv);
    if (n == r.n) break;
    hy_test_steps(m, d, 1);
  }
  hy_data_free(d);
  hy_model_free(m);
  return r;
}

static void free_mono(mono* r) {
  free(r->s);
  free(r->sd);
  free(r->p);
}

// The subsystem driven over the monolithic run, macro step H = `every` samples, each input the
// line through its samples at the ends of the macro step; the largest difference of any
// pressure from the monolithic one at the macro steps' ends (Pa).
static double drive(const hy_model* m, const mono* r, int every, hy_integrator integ, double hh) {
  hy_cosim_sub* s = make_hyd(m, HY_COUPLE_VP, integ, hh);
  const hy_data* d = hy_cosim_hyd_data(s);
  const int nv = m->sizes.nvol;
  const double H = every * r->dt;
  double worst = 0;
  for (int n = 0; n + every <= r->n; n += every) {
    const hy_cosim_poly u[2] = {{{r->s[n], (r->s[n + every] - r->s[n]) / H, 0}},
                                {{r->sd[n], (r->sd[n + every] - r->sd[n]) / H, 0}}};
    s->ops->set_inputs(s, n * r->dt, u);
    const hy_status st = s->ops->step_to(s, (n + every) * r->dt);
    ck_assert_msg(st == HY_OK, "%s", s->err.msg);
    for (int v = 0; v < nv; v++) {
      worst = fmax(worst, fabs(d->p[v] - r->p[(size_t)(n + every) * nv + v]));
    }
  }
  s->ops->destroy(s);
  return worst;
}

START_TEST(hydraulics_driven_by_the_monolithic_geometry_repeat_its_pressures) {
  hy_model* m = hy_test_load("crane");
  // 1 s: the valve opens from 0.2 s, the crane rises, the pressures swing by megapascals
  const mono r = run_mono(m, 1e-4, 1.0);
  const int nv = m->sizes.nvol;
  double swing = 0;
  for (int n = 0; n <= r.n; n++) {
    for (int v = 0; v < nv; v++) swing = fmax(swing, fabs(r.p[(size_t)n * nv + v] - r.p[v]));
  }
  ck_assert_msg(swing > 1e5, "pressure swing %.3g Pa", swing);
  // the trapezoidal rule at the monolithic step, macro steps of one sample: the monolithic
  // discretization of the pressures itself, to its Newton tolerance
  const double tr1 = drive(m, &r, 1, HY_INTEG_TRAPEZOIDAL, 1e-4);
  // macro steps of H = 1 ms (s and s_dot linear between samples 10 apart), h_h = 0.1 ms
  const double tr10 = drive(m, &r, 10, HY_INTEG_TRAPEZOIDAL, 1e-4);
  // forward Euler at three steps, RK4 and TR finer: the error against the monolithic pressures
  double eu[3], rk[3];
  const double hh[3] = {1e-4, 5e-5, 2.5e-5};
  for (int k = 0; k < 3; k++) {
    eu[k] = drive(m, &r, 1, HY_INTEG_EULER, hh[k]);
    rk[k] = drive(m, &r, 1, HY_INTEG_RK4, hh[k]);
  }
  const double tr_half = drive(m, &r, 1, HY_INTEG_TRAPEZOIDAL, 5e-5);
  printf(
      "crane circuit driven by the monolithic s, s_dot (dt = 1e-4 s, 1 s; pressure swing "
      "%.3g Pa): max |p - p_mono|\n"
      "  TR  h_h = 1e-4, H = 1e-4: %.3g Pa;  H = 1e-3: %.3g Pa;  h_h = 5e-5: %.3g Pa\n"
      "  Euler h_h = 1e-4, 5e-5, 2.5e-5: %.4g, %.4g, %.4g Pa (ratios %.3f, %.3f)\n"
      "  RK4   h_h = 1e-4, 5e-5, 2.5e-5: %.4g, %.4g, %.4g Pa\n",
      swing, tr1, tr10, tr_half, eu[0], eu[1], eu[2], eu[0] / eu[1], eu[1] / eu[2], rk[0], rk[1],
      rk[2]);
  fflush(stdout);
  ck_assert_msg(tr1 < 1e-2, "TR at the monolithic step: %.3g Pa", tr1);
  ck_assert_msg(tr10 < 500, "TR with 1 ms macro steps: %.3g Pa", tr10);
  for (int k = 0; k < 2; k++) {
    const double ratio = eu[k] / eu[k + 1];
    ck_assert_msg(ratio > 1.7 && ratio < 2.3, "Euler: error ratio %.3f for h_h halved", ratio);
  }
  for (int k = 0; k < 3; k++) {
    ck_assert_msg(rk[k] < eu[k] / 20, "RK4 %.3g Pa, Euler %.3g Pa", rk[k], eu[k]);
  }
  ck_assert_msg(tr_half < eu[1] / 20, "TR %.3g Pa, Euler %.3g Pa", tr_half, eu[1]);
  free_mono((mono*)&r);
  hy_model_free(m);
}
END_TEST

//----- outputs and forces ----------------------------------------------------------------------


START_TEST(forces_are_eq33_and_leave_the_state_alone) {
  hy_model* m = hy_test_load("crane");
  hy_cosim_sub* s = make_hyd(m, HY_COUPLE_VF, HY_INTEG_TRAPEZOIDAL, 1e-4);
  const int* cyl = NULL;
  ck_assert_int_eq(hy_cosim_hyd_cylinders(s, &cyl), 1);
  ck_assert_int_eq(cyl[0], 0);
  ck_assert_int_eq(s->nin, 2);
  ck_assert_int_eq(s->nout, 1);
  const hy_data* d = hy_cosim_hyd_data(s);
  const int va = m->cyl_vol_a[0], vb = m->cyl_vol_b[0];
  // the crane rising through the valve's opening: s grows, s_dot constant
  const double H = 1e-3, s0 = d->frc_len[m->cyl_frc[0]];
  for (int n = 0; n < 400; n++) {
    const hy_cosim_poly u[2] = {{{s0 + 0.02 * fmax(n * H - 0.2, 0), n * H >= 0.2 ? 0.02 : 0, 0}},
                                {{n * H >= 0.2 ? 0.02 : 0, 0, 0}}};
    s->ops->set_inputs(s, n * H, u);
    ck_assert_int_eq(s->ops->step_to(s, (n + 1) * H), HY_OK);
  }
  // the output: Eq. 33 at the inputs at the subsystem's time
  double y;
  s->ops->outputs(s, &y);
  const double t = s->ops->time(s), tau = t - 399 * H;
  const double s_in = s0 + 0.02 * (399 * H - 0.2) + 0.02 * tau, sd_in = 0.02;
  const double F_out = cosim_eq33(m, 0, s_in, sd_in, d->p[va], d->p[vb]);
  ck_assert_msg(fabs(y - F_out) <= 1e-9 * fabs(F_out), "output %.12g, Eq. 33 %.12g", y, F_out);
  // hy_cosim_hyd_forces at another geometry (the rod-side damper engaged)
  const int n = s->ops->state_size(s);
  double* before = malloc(sizeof(double) * (size_t)n);
  double* after = malloc(sizeof(double) * (size_t)n);
  s->ops->save(s, before);
  const double len = m->cyl_dead[0] + m->cyl_stroke[0] - 0.5 * m->cyl_ld[0], rate = 0.07;
  double F;
  hy_test_count_allocs_begin();
  hy_cosim_hyd_forces(s, &len, &rate, &F);
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  const double expect = cosim_eq33(m, 0, len, rate, d->p[va], d->p[vb]);
  ck_assert_msg(fabs(F - expect) <= 1e-9 * fabs(expect), "forces %.12g, Eq. 33 %.12g", F, expect);
  s->ops->save(s, after);
  hy_test_same_bits(before, after, n, "state around hy_cosim_hyd_forces");
  double y2;
  s->ops->outputs(s, &y2);
  hy_test_same_bits(&y, &y2, 1, "output around hy_cosim_hyd_forces");
  free(before);
  free(after);
  s->ops->destroy(s);
  hy_model_free(m);
}
END_TEST

//----- state -------------------------------------------------------------------------------------

// The inputs of macro step k: geometry that moves (ctx: the initial length s0).
static void set_step_inputs(hy_cosim_sub* s, int k, double H, const void* ctx) {
  const double s0 = *(const double*)ctx;
  const hy_cosim_poly u[2] = {{{s0 + 1e-3 * sin(0.9 * k), 0.01 * cos(0.3 * k), -2.0}},
                              {{0.01 * sin(0.4 * k), 0.3, 0.1}}};
  s->ops->set_inputs(s, k * H, u);
}

START_TEST(hydraulics_restore_is_bit_exact_and_stepping_allocates_nothing) {
  hy_model* m = hy_test_load("crane");
  const hy_integrator integs[] = {HY_INTEG_EULER, HY_INTEG_RK4, HY_INTEG_TRAPEZOIDAL};
  for (int k = 0; k < 3; k++) {
    for (int c = 0; c < 2; c++) {
      const hy_cosim_coupling coupling = c == 0 ? HY_COUPLE_VF : HY_COUPLE_VP;
      const double H = 1e-3;
      hy_cosim_sub* s = make_hyd(m, coupling, integs[k], 1e-4);
      hy_cosim_sub* twin = make_hyd(m, coupling, integs[k], 1e-4);
      // the valve opens from 0.2 s: start there, so that the flows are all in play
      const double s0 = hy_cosim_hyd_data(s)->frc_len[m->cyl_frc[0]];
      double out[10];
      for (int j = 0; j < 50; j++) {
        set_step_inputs(s, 5 * j, H, &s0);
        cosim_five_steps(s, 5 * j, H, &s0, set_step_inputs, out);
      }
      // saved between set_inputs and step_to: the state holds the inputs
      set_step_inputs(s, 250, H, &s0);
      cosim_check_save_restore(s, twin, 250, H, &s0, set_step_inputs);
      twin->ops->destroy(twin);
      s->ops->destroy(s);
    }
  }
  hy_model_free(m);
}
END_TEST

//----- failures ----------------------------------------------------------------------------------

START_TEST(newton_failure_is_clean_and_refusals) {
  hy_model* m = hy_test_load("crane");
  // one Newton iteration to a tolerance no iterate meets
  hy_model* strict = NULL;
  ck_assert_int_eq(hy_model_copy(m, &strict), HY_OK);
  strict->opt.max_iter = 1;
  strict->opt.tol_p = 1e-30;
  hy_cosim_sub* s = make_hyd(strict, HY_COUPLE_VP, HY_INTEG_TRAPEZOIDAL, 1e-4);
  const int n = s->ops->state_size(s);
  double* before = malloc(sizeof(double) * (size_t)n);
  double* after = malloc(sizeof(double) * (size_t)n);
  const double s0 = hy_cosim_hyd_data(s)->frc_len[m->cyl_frc[0]];
  const hy_cosim_poly u[2] = {{{s0, 0.05, 0}}, {{0.05, 0, 0}}};
  s->ops->set_inputs(s, 0, u);
  s->ops->save(s, before);
  ck_assert_int_eq(s->ops->step_to(s, 1e-3), HY_NEWTON_NOCONV);
  ck_assert_ptr_nonnull(strstr(s->err.msg, "t = 0 -> 0.0001 s"));
  ck_assert_ptr_nonnull(strstr(s->err.msg, "did not converge in 1 Newton"));
  s->ops->save(s, after);
  hy_test_same_bits(before, after, n, "state after a failed step");
  s->ops->destroy(s);
  hy_model_free(strict);
  free(before);
  free(after);
  // a step that is not a whole number of h_h; an unknown integrator; friction with states
  s = make_hyd(m, HY_COUPLE_VF, HY_INTEG_RK4, 1e-4);
  ck_assert_int_eq(s->ops->step_to(s, 1.5e-4), HY_ERR_ARG);
  ck_assert_int_eq(s->ops->step_to(s, 3e-4), HY_OK);
  s->ops->destroy(s);
  hy_error err;
  s = NULL;
  ck_assert_int_eq(hy_cosim_hyd_make(m, 0, HY_COUPLE_VF, HY_INTEG_SEMI_EULER, 1e-4, &s, &err),
                   HY_ERR_ARG);
  ck_assert_int_eq(hy_cosim_hyd_make(m, 1, HY_COUPLE_VF, HY_INTEG_RK4, 1e-4, &s, &err), HY_ERR_ARG);
  ck_assert_ptr_null(s);
  hy_model* lugre = hy_test_load("four-bar-b-lugre");
  ck_assert_int_eq(hy_cosim_hyd_make(lugre, 0, HY_COUPLE_VF, HY_INTEG_RK4, 1e-4, &s, &err),
                   HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "internal states"));
  hy_model_free(lugre);
  hy_model_free(m);
}
END_TEST

Suite* cosim_hyd_suite(void) {
  Suite* s = suite_create("cosim_hyd");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, hydraulics_driven_by_the_monolithic_geometry_repeat_its_pressures);
  tcase_add_test(tc, forces_are_eq33_and_leave_the_state_alone);
  tcase_add_test(tc, hydraulics_restore_is_bit_exact_and_stepping_allocates_nothing);
  tcase_add_test(tc, newton_failure_is_clean_and_refusals);
  suite_add_tcase(s, tc);
  return s;
}
