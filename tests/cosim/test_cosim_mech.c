// The mechanical subsystem of co-simulation (src/cosim/cosim_mech.c): its s_ddot output against a
// central difference of s_dot along the motion; fed with the cylinder forces (velocity-force) or
// the chamber pressures (velocity-pressure) of a monolithic run of the crane it repeats that
// run; save and restore are exact to the bit and stepping allocates nothing; the reduced
// interface model (seed 001 Eqs. 10-15) against J M'^-1 J^T on the crane (open tree) and against
// a difference of s_ddot over the force on four-bar A (closed loop), the state left untouched;
// what it refuses.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "cosim/cosim.h"
#include "cosim_check.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

static hy_cosim_sub* make_mech(const hy_model* m, hy_formulation form, hy_cosim_coupling c,
                               double H) {
  hy_cosim_sub* s = NULL;
  hy_error err;
  const hy_status st = hy_cosim_mech_make(m, form, c, H, &s, &err);
  ck_assert_msg(st == HY_OK, "hy_cosim_mech_make(%s): %s", m->name, err.msg);
  return s;
}

// One macro step from t0 with every input held at u (nin of them) or, with rate, growing at it.
static void macro_step(hy_cosim_sub* s, double t0, double H, const double* u, const double* rate) {
  hy_cosim_poly p[8];
  ck_assert_int_le(s->nin, 8);
  for (int i = 0; i < s->nin; i++) {
    p[i] = (hy_cosim_poly){{u[i], rate ? rate[i] : 0.0, 0.0}};
  }
  s->ops->set_inputs(s, t0, p);
  const hy_status st = s->ops->step_to(s, t0 + H);
  ck_assert_msg(st == HY_OK, "step_to %.9g s: %s", t0 + H, s->err.msg);
}

// s_dot of cylinder c at (z, zd) (the kinematics of data g).
static double rate_at(const hy_model* m, hy_data* g, const double* z, const double* zd, int c) {
  memcpy(g->z, z, sizeof(double) * (size_t)m->sizes.nz);
  memcpy(g->zd, zd, sizeof(double) * (size_t)m->sizes.nz);
  ck_assert_int_eq(hy_forward(m, g), HY_OK);
  return g->frc_rate[m->cyl_frc[c]];
}

// d s_dot/dt along the motion through (z, zd) with accelerations zdd: the central difference of
// s_dot at (z +- delta zd, zd +- delta zdd).
static double sdd_by_difference(const hy_model* m, hy_data* g, const double* z, const double* zd,
                                const double* zdd, int c, double delta) {
  const int nz = m->sizes.nz;
  double zp[16], zdp[16], zm[16], zdm[16];
  ck_assert_int_le(nz, 16);
  for (int i = 0; i < nz; i++) {
    zp[i] = z[i] + delta * zd[i];
    zm[i] = z[i] - delta * zd[i];
    zdp[i] = zd[i] + delta * zdd[i];
    zdm[i] = zd[i] - delta * zdd[i];
  }
  return (rate_at(m, g, zp, zdp, c) - rate_at(m, g, zm, zdm, c)) / (2 * delta);
}

// The initial cylinder forces of model m (its monolithic data).
static void initial_forces(const hy_model* m, double* F) {
  hy_data* d = hy_test_make(m);
  for (int c = 0; c < m->sizes.ncyl; c++) F[c] = d->frc_force[m->cyl_frc[c]];
  hy_data_free(d);
}

//----- s_ddot ------------------------------------------------------------------------------------

START_TEST(length_acceleration_matches_a_difference_of_the_rate) {
  const char* models[] = {"crane", "four-bar-a"};
  for (int k = 0; k < 2; k++) {
    hy_model* m = hy_test_load(models[k]);
    const double H = 1e-3;
    hy_cosim_sub* s = make_mech(m, HY_FORM_AUTO, HY_COUPLE_VF, H);
    double F0[1];
    initial_forces(m, F0);
    // 80 % of the holding force: the mechanism falls and speeds up
    const double F = 0.8 * F0[0];
    for (int n = 0; n < 200; n++) macro_step(s, n * H, H, &F, NULL);
    double y[3];
    s->ops->outputs(s, y);
    const hy_model* mm = hy_cosim_mech_model(s);
    const hy_data* d = hy_cosim_mech_data(s);
    hy_data* g = hy_test_make(mm);
    const double fd = sdd_by_difference(mm, g, d->z, d->zd, d->zdd, 0, 1e-5);
    printf("%s: s_ddot %.12g m/s^2, central difference %.12g (s_dot %.6g m/s)\n", models[k], y[2],
           fd, y[1]);
    fflush(stdout);
    ck_assert_msg(fabs(y[1]) > 1e-3, "the mechanism should move");
    ck_assert_msg(fabs(y[2] - fd) <= 1e-6 * fmax(fabs(fd), 1.0),
                  "%s: s_ddot %.12g, difference %.12g", models[k], y[2], fd);
    hy_data_free(g);
    s->ops->destroy(s);
    hy_model_free(m);
  }
}
END_TEST

//----- the monolithic run repeated -------------------------------------------------------------

// The crane run monolithically with dt = H for 2 s: per step the cylinder force, the chamber
// pressures, s, s_dot and the coordinates.
typedef struct crane_run {
  int n;  // steps
  double *F, *pa, *pb, *s, *sd, *z;
} crane_run;

static crane_run run_crane(const hy_model* m0, double H, double t_end) {
  hy_model* m = NULL;
  ck_assert_int_eq(hy_model_copy(m0, &m), HY_OK);
  m->opt.dt = H;
  hy_data* d = hy_test_make(m);
  crane_run r;
  r.n = (int)lround(t_end / H);
  const size_t n1 = (size_t)r.n + 1;
  r.F = malloc(sizeof(double) * n1);
  r.pa = malloc(sizeof(double) * n1);
  r.pb = malloc(sizeof(double) * n1);
  r.s = malloc(sizeof(double) * n1);
  r.sd = malloc(sizeof(double) * n1);
  r.z = malloc(sizeof(double) * 2 * n1);
  const int f = m->cyl_frc[0];
  for (int n = 0;; n++) {
    r.F[n] = d->frc_force[f];
    r.pa[n] = d->p[m->cyl_vol_a[0]];
    r.pb[n] = d->p[m->cyl_vol_b[0]];
    r.s[n] = d->frc_len[f];
    r.sd[n] = d->frc_rate[f];
    r.z[2 * n] = d->z[0];
    r.z[2 * n + 1] = d->z[1];
    if (n == r.n) break;
    hy_test_steps(m, d, 1);
  }
  hy_data_free(d);
  hy_model_free(m);
  return r;
}

static void free_run(crane_run* r) {
  free(r->F);
  free(r->pa);
  free(r->pb);
  free(r->s);
  free(r->sd);
  free(r->z);
}

START_TEST(mechanics_fed_with_the_monolithic_loads_repeat_the_monolithic_run) {
  hy_model* m = hy_test_load("crane");
  const double H = 1e-3;
  crane_run r = run_crane(m, H, 2.0);
  // the valve opens at 0.2 s: the crane must have moved for the comparison to mean anything
  ck_assert_msg(r.s[r.n] - r.s[0] > 0.02, "the crane moved %.3g m", r.s[r.n] - r.s[0]);
  for (int c = 0; c < 2; c++) {
    const hy_cosim_coupling coupling = c == 0 ? HY_COUPLE_VF : HY_COUPLE_VP;
    hy_cosim_sub* s = make_mech(m, HY_FORM_AUTO, coupling, H);
    const hy_data* d = hy_cosim_mech_data(s);
    double err_s = 0, err_sd = 0, err_z = 0;
    for (int n = 0; n < r.n; n++) {
      // each load through its values at t_n and t_n+1 (linear), the monolithic run's
      double u[2], du[2];
      if (coupling == HY_COUPLE_VF) {
        u[0] = r.F[n];
        du[0] = (r.F[n + 1] - r.F[n]) / H;
      } else {
        u[0] = r.pa[n];
        du[0] = (r.pa[n + 1] - r.pa[n]) / H;
        u[1] = r.pb[n];
        du[1] = (r.pb[n + 1] - r.pb[n]) / H;
      }
      macro_step(s, n * H, H, u, du);
      double y[3];
      s->ops->outputs(s, y);
      err_s = fmax(err_s, fabs(y[0] - r.s[n + 1]));
      err_sd = fmax(err_sd, fabs(y[1] - r.sd[n + 1]));
      for (int i = 0; i < 2; i++) err_z = fmax(err_z, fabs(d->z[i] - r.z[2 * (n + 1) + i]));
    }
    printf(
        "crane mechanics (%s) fed with the monolithic %s, H = %g s, 2 s: max |s error| %.3g m, "
        "|s_dot error| %.3g m/s, |z error| %.3g rad\n",
        coupling == HY_COUPLE_VF ? "vf" : "vp", coupling == HY_COUPLE_VF ? "forces" : "pressures",
        H, err_s, err_sd, err_z);
    fflush(stdout);
    // measured (default tolerances, tol_position 1e-7 rad): vf 9.8e-8 m, 3.2e-7 m/s, 2.1e-7 rad;
    // vp 9.8e-11 m, 6.0e-10 m/s, 1.7e-8 rad. Both shrink with the Newton tolerances (1e-11 rad
    // and 1e-6 Pa: vf 8.7e-11 m, vp 1.8e-13 m): what is left is the Newton iterations stopping
    // at other points. vf has more of it: the force fed in holds the monolithic -c s_dot, so the
    // cylinder's strong viscous damping no longer acts on the difference.
    const int vf = coupling == HY_COUPLE_VF;
    ck_assert_msg(
        err_s < (vf ? 5e-7 : 1e-9) && err_sd < (vf ? 1.5e-6 : 5e-9) && err_z < (vf ? 1e-6 : 1e-7),
        "%s: s %.3g m, s_dot %.3g m/s, z %.3g rad", coupling == HY_COUPLE_VF ? "vf" : "vp", err_s,
        err_sd, err_z);
    s->ops->destroy(s);
  }
  free_run(&r);
  hy_model_free(m);
}
END_TEST

//----- state -------------------------------------------------------------------------------------

// The inputs of macro step k: loads that vary from step to step (ctx: their base values).
static void set_step_inputs(hy_cosim_sub* s, int k, double H, const void* ctx) {
  const double* base = ctx;
  hy_cosim_poly u[8];
  for (int i = 0; i < s->nin; i++) {
    u[i] = (hy_cosim_poly){{base[i] * (1.0 + 0.05 * sin(0.7 * k + i)), base[i] * 0.5 * cos(0.3 * k),
                            base[i] * 20.0 * sin(0.2 * k)}};
  }
  s->ops->set_inputs(s, k * H, u);
}

START_TEST(mechanics_restore_is_bit_exact_and_stepping_allocates_nothing) {
  const struct {
    const char* model;
    hy_formulation form;
  } cases[] = {{"crane", HY_FORM_AUTO},
               {"four-bar-a", HY_FORM_PENALTY},
               {"four-bar-a", HY_FORM_DOUBLE_STEP},
               {"four-bar-a", HY_FORM_ALI3P},
               {"crane", HY_FORM_ALI1}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    hy_model* m = hy_test_load(cases[k].model);
    for (int c = 0; c < 2; c++) {
      const hy_cosim_coupling coupling = c == 0 ? HY_COUPLE_VF : HY_COUPLE_VP;
      const double H = 1e-3;
      hy_cosim_sub* s = make_mech(m, cases[k].form, coupling, H);
      hy_cosim_sub* twin = make_mech(m, cases[k].form, coupling, H);
      const hy_data* d0 = hy_cosim_mech_data(s);
      double base[2];
      if (coupling == HY_COUPLE_VF) {
        base[0] = d0->frc_force[m->cyl_frc[0]];
      } else {
        base[0] = d0->p[m->cyl_vol_a[0]];
        base[1] = d0->p[m->cyl_vol_b[0]];
      }
      double out[5 * 3];
      set_step_inputs(s, 0, H, base);
      cosim_five_steps(s, 0, H, base, set_step_inputs, out);  // away from the initial state
      // saved between set_inputs and step_to: the state holds the inputs
      set_step_inputs(s, 5, H, base);
      cosim_check_save_restore(s, twin, 5, H, base, set_step_inputs);
      twin->ops->destroy(twin);
      s->ops->destroy(s);
    }
    hy_model_free(m);
  }
}
END_TEST

//----- the reduced interface model ------------------------------------------------------------

// s_ddot of cylinder 0 of the subsystem's state with the cylinder force F held: a data e set to
// the state (HY_STATE_FULL, the head of the subsystem's saved state) with its own force input,
// and the central difference of s_dot along its accelerations.
static double sdd_at_force(hy_cosim_sub* s, double F) {
  const hy_model* mm = hy_cosim_mech_model(s);
  hy_data* e = hy_test_make(mm);
  hy_data* g = hy_test_make(mm);
  double* buf = malloc(sizeof(double) * (size_t)s->ops->state_size(s));
  s->ops->save(s, buf);
  const double coef[3] = {F, 0, 0};
  const hy_cyl_input in = {.mode = HY_CYL_INPUT_FORCE, .t0 = 0, .coef = coef};
  e->cyl_input = &in;
  ck_assert_int_eq(hy_state_set(mm, e, HY_STATE_FULL, buf), HY_OK);
  ck_assert_int_eq(hy_forward(mm, e), HY_OK);
  const double sdd = sdd_by_difference(mm, g, e->z, e->zd, e->zdd, 0, 1e-5);
  free(buf);
  hy_data_free(g);
  hy_data_free(e);
  return sdd;
}

// The interface model leaves the state as it found it: saved before and after, the same bits.
static void interface_of(hy_cosim_sub* s, double* Meff, double* Qeff) {
  const int n = s->ops->state_size(s);
  double* before = malloc(sizeof(double) * (size_t)n);
  double* after = malloc(sizeof(double) * (size_t)n);
  s->ops->save(s, before);
  hy_test_count_allocs_begin();
  const hy_status st = hy_cosim_mech_interface(s, Meff, Qeff);
  const long allocs = hy_test_count_allocs_end();
  ck_assert_msg(st == HY_OK, "interface: %s", s->err.msg);
  ck_assert_int_eq(allocs, 0);
  s->ops->save(s, after);
  hy_test_same_bits(before, after, n, "state around the interface model");
  free(before);
  free(after);
}

START_TEST(interface_model_of_the_crane_is_j_minv_jt) {
  hy_model* m = hy_test_load("crane");
  const double H = 1e-3;
  hy_cosim_sub* s = make_mech(m, HY_FORM_AUTO, HY_COUPLE_VF, H);
  hy_cosim_sub* twin = make_mech(m, HY_FORM_AUTO, HY_COUPLE_VF, H);
  double F0[1];
  initial_forces(m, F0);
  const double F = 0.9 * F0[0];
  for (int n = 0; n < 100; n++) {
    macro_step(s, n * H, H, &F, NULL);
    macro_step(twin, n * H, H, &F, NULL);
  }
  double Meff, Qeff;
  interface_of(s, &Meff, &Qeff);
  // J = d|s|/dz by central differences, M' of the data at the state
  const hy_model* mm = hy_cosim_mech_model(s);
  const hy_data* d = hy_cosim_mech_data(s);
  hy_data* g = hy_test_make(mm);
  const int nz = mm->sizes.nz, f = mm->cyl_frc[0];
  ck_assert_int_eq(nz, 2);
  double J[2];
  for (int i = 0; i < nz; i++) {
    const double h = 1e-6;
    double z[2] = {d->z[0], d->z[1]};
    z[i] += h;
    rate_at(mm, g, z, d->zd, 0);
    const double lp = g->frc_len[f];
    z[i] -= 2 * h;
    rate_at(mm, g, z, d->zd, 0);
    const double lm = g->frc_len[f];
    J[i] = (lp - lm) / (2 * h);
  }
  double M[4], x[2] = {J[0], J[1]};
  int piv[2], col;
  memcpy(M, d->M, sizeof M);
  ck_assert_int_eq(hy_lu_factor(2, M, piv, &col), HY_OK);
  hy_lu_solve(2, M, piv, x);
  const double minv = J[0] * x[0] + J[1] * x[1];
  printf("crane interface model: 1/M_eff %.12g, J M'^-1 J^T %.12g 1/kg; Q_eff %.6g N\n", 1.0 / Meff,
         minv, Qeff);
  fflush(stdout);
  ck_assert_msg(hy_test_relerr(1.0 / Meff, minv, 0) < 1e-7, "1/M_eff %.12g, J M'^-1 J^T %.12g",
                1.0 / Meff, minv);
  // Q_eff: s_ddot = M_eff^-1 (Q_eff + F) at two forces, s_ddot by differences of s_dot
  for (int k = 0; k < 2; k++) {
    const double Fk = (k == 0 ? 1.0 : 0.5) * F0[0];
    const double sdd = sdd_at_force(s, Fk);
    ck_assert_msg(fabs(sdd - (Qeff + Fk) / Meff) <= 1e-6 * fmax(fabs(sdd), 1.0),
                  "F = %g N: s_ddot %.12g, interface model %.12g", Fk, sdd, (Qeff + Fk) / Meff);
  }
  // the run goes on as if the interface model had never been computed
  double y1[3], y2[3];
  for (int n = 100; n < 110; n++) {
    macro_step(s, n * H, H, &F, NULL);
    macro_step(twin, n * H, H, &F, NULL);
  }
  s->ops->outputs(s, y1);
  twin->ops->outputs(twin, y2);
  hy_test_same_bits(y1, y2, 3, "outputs after the interface model");
  hy_data_free(g);
  twin->ops->destroy(twin);
  s->ops->destroy(s);
  hy_model_free(m);
}
END_TEST

START_TEST(interface_model_of_four_bar_a_is_the_slope_of_the_acceleration) {
  hy_model* m = hy_test_load("four-bar-a");
  const hy_formulation forms[] = {HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  double F0[1];
  initial_forces(m, F0);
  for (int k = 0; k < 2; k++) {
    const double H = 1e-3;
    hy_cosim_sub* s = make_mech(m, forms[k], HY_COUPLE_VF, H);
    const double F = 1.1 * F0[0];  // lifts the four-bar: a moving, closed-loop state
    for (int n = 0; n < 100; n++) macro_step(s, n * H, H, &F, NULL);
    double Meff, Qeff;
    interface_of(s, &Meff, &Qeff);
    // the affine claim itself: ds_ddot/dF by a difference at two force levels
    const double dF = 0.05 * F0[0];
    for (int level = 0; level < 2; level++) {
      const double Fl = (level == 0 ? 1.0 : 0.3) * F0[0];
      const double slope = (sdd_at_force(s, Fl + dF) - sdd_at_force(s, Fl - dF)) / (2 * dF);
      const double sdd = sdd_at_force(s, Fl);
      printf(
          "four-bar A (%s), F = %.6g N: 1/M_eff %.12g, ds_ddot/dF %.12g 1/kg; s_ddot %.9g, "
          "model %.9g m/s^2\n",
          hy_formulation_name(forms[k]), Fl, 1.0 / Meff, slope, sdd, (Qeff + Fl) / Meff);
      fflush(stdout);
      ck_assert_msg(hy_test_relerr(1.0 / Meff, slope, 0) < 1e-6, "1/M_eff %.12g, slope %.12g",
                    1.0 / Meff, slope);
      ck_assert_msg(fabs(sdd - (Qeff + Fl) / Meff) <= 1e-6 * fmax(fabs(sdd), 1.0),
                    "s_ddot %.12g, interface model %.12g", sdd, (Qeff + Fl) / Meff);
    }
    s->ops->destroy(s);
  }
  hy_model_free(m);
}
END_TEST

//----- refusals ----------------------------------------------------------------------------------

START_TEST(mechanics_refuse_what_they_cannot_run) {
  hy_cosim_sub* s = NULL;
  hy_error err;
  // seal friction with states (LuGre's bristle deflection)
  hy_model* m = hy_test_load("four-bar-b-lugre");
  ck_assert_int_eq(hy_cosim_mech_make(m, HY_FORM_AUTO, HY_COUPLE_VF, 1e-3, &s, &err), HY_ERR_MODEL);
  ck_assert_ptr_null(s);
  ck_assert_ptr_nonnull(strstr(err.msg, "internal states"));
  ck_assert_int_gt(err.src_line, 0);
  hy_model_free(m);
  // no cylinder
  m = hy_test_load("double-pendulum");
  ck_assert_int_eq(hy_cosim_mech_make(m, HY_FORM_AUTO, HY_COUPLE_VF, 1e-3, &s, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "no hydraulic cylinder"));
  hy_model_free(m);
  // friction without states is kept: Coulomb's law
  m = hy_test_load("four-bar-b-coulomb");
  s = make_mech(m, HY_FORM_AUTO, HY_COUPLE_VP, 1e-3);
  // a time that is not a whole number of steps away
  ck_assert_int_eq(s->ops->step_to(s, 1.5e-3), HY_ERR_ARG);
  ck_assert_ptr_nonnull(strstr(s->err.msg, "whole number"));
  ck_assert_int_eq(s->ops->step_to(s, 2e-3), HY_OK);
  ck_assert_double_eq_tol(s->ops->time(s), 2e-3, 1e-15);
  s->ops->destroy(s);
  hy_model_free(m);
}
END_TEST

Suite* cosim_mech_suite(void) {
  Suite* s = suite_create("cosim_mech");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, length_acceleration_matches_a_difference_of_the_rate);
  tcase_add_test(tc, mechanics_fed_with_the_monolithic_loads_repeat_the_monolithic_run);
  tcase_add_test(tc, mechanics_restore_is_bit_exact_and_stepping_allocates_nothing);
  tcase_add_test(tc, interface_model_of_the_crane_is_j_minv_jt);
  tcase_add_test(tc, interface_model_of_four_bar_a_is_the_slope_of_the_acceleration);
  tcase_add_test(tc, mechanics_refuse_what_they_cannot_run);
  suite_add_tcase(s, tc);
  return s;
}
