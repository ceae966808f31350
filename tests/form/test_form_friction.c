// Seal friction in the monolithic scheme (seed 002 Sects. 4-6): four-bar B with each law under
// both closed-loop formulations (energy balance counting the friction dissipation, agreement of
// the formulations, the laws close but distinguishable), the tangent's first-order columns
// (pressures and friction states) against central differences, the analytic tangent against
// the finite-difference one, the film law's smoothing width, and an open tree with friction
// states under the tree formulation.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"
#include "sim/sim.h"

#define NLAW 5
static const char* const kLaws[NLAW] = {"coulomb", "bengisu-akay", "brown-mcphee", "lugre",
                                        "lugre-film"};

// A 10 s cycle sampled every 10 ms, with the extremes the seed reports.
typedef struct fcycle {
  double z[1001][3];
  double p[1001][3];
  double drift;     // largest |E(t) - E(0)| (J), E counting every load and force element's work
  double work_max;  // largest |hy_actuator_work| (J)
  double diss;      // friction dissipation at the end (J)
  double iter_mean;
} fcycle;

static fcycle cyc[NLAW + 1][2];

static void run(hy_model* m, hy_formulation form, fcycle* c) {
  m->opt.formulation = form;
  hy_data* d = hy_test_make(m);
  const double e0 = hy_energy_total(d);
  memset(c, 0, sizeof *c);
  const long n = lround(m->opt.t_end / m->opt.dt), every = lround(0.01 / m->opt.dt);
  memcpy(c->z[0], d->z, sizeof(double) * 3);
  memcpy(c->p[0], d->p, sizeof(double) * 3);
  for (long i = 1; i <= n; i++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s %s step %ld: %s", m->name, hy_formulation_name(form),
                  i, d->err.msg);
    c->drift = fmax(c->drift, fabs(hy_energy_total(d) - e0));
    c->work_max = fmax(c->work_max, fabs(hy_actuator_work(d)));
    if (i % every == 0) {
      memcpy(c->z[i / every], d->z, sizeof(double) * 3);
      memcpy(c->p[i / every], d->p, sizeof(double) * 3);
    }
  }
  c->diss = d->diss_fric;
  c->iter_mean = (double)d->stats.niter / (double)d->stats.nsubstep;
  hy_data_free(d);
}

static double max_dz(const fcycle* a, const fcycle* b) {
  double dz = 0;
  for (int i = 0; i <= 1000; i++)
    for (int j = 0; j < 3; j++) dz = fmax(dz, fabs(a->z[i][j] - b->z[i][j]));
  return dz;
}

static double max_dp(const fcycle* a, const fcycle* b) {
  double dp = 0;
  for (int i = 0; i <= 1000; i++)
    for (int j = 0; j < 3; j++) dp = fmax(dp, fabs(a->p[i][j] - b->p[i][j]));
  return dp;
}

// Seed 002 Sect. 6: every law runs the 10 s cycle at 1 ms under both formulations; the energy
// balance counting the friction dissipation closes to 0.5 % of the largest cylinder work (the
// seed: 0.36-0.37 %); penalty and double-step agree to 1e-3 rad and 1 kPa; the laws' coordinates
// differ from each other by more than the Newton tolerance and by less than the frictionless
// cycle's difference from any of them (close but distinguishable); friction dissipates energy.
START_TEST(four_bar_b_with_each_law) {
  char name[64];
  for (int l = 0; l <= NLAW; l++) {
    if (l < NLAW) {
      snprintf(name, sizeof name, "four-bar-b-%s", kLaws[l]);
    } else {
      snprintf(name, sizeof name, "four-bar-b");
    }
    hy_model* m = hy_test_load(name);
    run(m, HY_FORM_PENALTY, &cyc[l][0]);
    run(m, HY_FORM_DOUBLE_STEP, &cyc[l][1]);
    for (int f = 0; f < 2; f++) {
      const fcycle* c = &cyc[l][f];
      ck_assert_msg(c->work_max > 10, "%s: cylinder work %.3g J", name, c->work_max);
      ck_assert_msg(c->drift < 5e-3 * c->work_max, "%s %d: energy drift %.3g J of %.3g J", name, f,
                    c->drift, c->work_max);
      if (l < NLAW) {
        ck_assert_msg(c->diss > 10, "%s: friction dissipated only %.3g J", name, c->diss);
      } else {
        ck_assert(c->diss == 0);
      }
    }
    const double dz = max_dz(&cyc[l][0], &cyc[l][1]), dp = max_dp(&cyc[l][0], &cyc[l][1]);
    ck_assert_msg(dz < 1e-3 && dp < 1e3, "%s: penalty and double-step differ by %.3g rad, %.3g Pa",
                  name, dz, dp);
    hy_model_free(m);
  }
  for (int a = 0; a < NLAW; a++) {
    const double to_none = max_dz(&cyc[a][0], &cyc[NLAW][0]);
    for (int b = a + 1; b < NLAW; b++) {
      const double dz = max_dz(&cyc[a][0], &cyc[b][0]);
      ck_assert_msg(dz > 1e-7 && dz < to_none, "%s vs %s: %.3g rad (frictionless: %.3g rad)",
                    kLaws[a], kLaws[b], dz, to_none);
    }
  }
}
END_TEST

// New data for m at t = 1.6 s: the valve open, the piston sliding.
static hy_data* mid_cycle(hy_model* m) {
  hy_data* d = hy_test_make(m);
  while (d->time < 1.6) ck_assert_int_eq(hy_step(m, d), HY_OK);
  return d;
}

// The tangent's columns of the first-order unknowns (pressures, then the friction states)
// equal central differences of the residual, for the bristle laws with a pressure-dependent
// Coulomb force (which couples the states' rates to the pressures) and a static law. The
// columns of the coordinates leave out the change of the cylinder's direction (as for the
// pressures, seed 000 Sect. 4); the finite-difference tangent test below covers them.
START_TEST(first_order_columns_of_the_tangent) {
  const char* models[] = {"four-bar-b-lugre", "four-bar-b-lugre-film", "four-bar-b-brown-mcphee"};
  for (int k = 0; k < 3; k++) {
    hy_model* m = hy_test_load(models[k]);
    m->cyl_fric[0].pressure_coefficient = 0.01;
    for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
      m->opt.formulation = (hy_formulation)f;
      hy_data* d = mid_cycle(m);
      hy_work* w = d->work_;
      hy_form* fw = hy_sim_form(m, d);
      double x[32], f0[32], f1[32], fm[32], J[32 * 32];
      hy_trap_begin(&w->integ, fw, m->opt.dt, d->time + m->opt.dt);
      const int n = w->integ.trap.n, ny = m->sizes.nvol + m->sizes.nfric, nm = n - ny;
      ck_assert_int_le(n, 32);
      memcpy(x, w->integ.trap.x, sizeof(double) * (size_t)n);
      for (int i = 0; i < m->sizes.nvol; i++) x[nm + i] += 3e4;  // off the predictor
      for (int i = m->sizes.nvol; i < ny; i++) x[nm + i] *= 0.9;
      ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, f0), HY_OK);
      hy_trap_tangent(&w->integ, fw, J);
      double worst = 0;
      int checked = 0;
      for (int c = nm; c < n; c++) {
        const double h = 1e-5 * fmax(fabs(x[c]), c < nm + m->sizes.nvol ? 1e5 : 1e-4);
        x[c] += h;
        ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, f1), HY_OK);
        x[c] -= 2 * h;
        ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, fm), HY_OK);
        x[c] += h;
        double scale = 0;
        for (int r = 0; r < n; r++) scale = fmax(scale, fabs(f1[r] - fm[r]) / (2 * h));
        for (int r = 0; r < n; r++) {
          const double fd = (f1[r] - fm[r]) / (2 * h);
          if (fabs(fd) < 1e-7 * scale) continue;
          worst = fmax(worst, fabs(fd - J[r * n + c]) / fabs(fd));
          checked++;
        }
      }
      ck_assert_int_gt(checked, ny);
      ck_assert_msg(worst < 1e-5, "%s %s: first-order columns differ by %.3g relative", models[k],
                    hy_formulation_name((hy_formulation)f), worst);
      hy_trap_abort(&w->integ, fw);
      hy_data_free(d);
    }
    hy_model_free(m);
  }
}
END_TEST

// The analytic tangent and the finite-difference one (seed 002 Eqs. 41-42) converge to the same
// steps: over 3 s of the film law's cycle (valve opening and closing) the coordinates agree to
// 1e-6 rad and the friction states to 1e-6 m.
START_TEST(analytic_and_fd_tangents_agree) {
  hy_model* m = hy_test_load("four-bar-b-lugre-film");
  m->opt.t_end = 3;
  hy_data* d[2];
  for (int k = 0; k < 2; k++) {
    m->opt.tangent = k == 0 ? HY_TANGENT_ANALYTIC : HY_TANGENT_FD;
    d[k] = hy_test_make(m);
  }
  double dz = 0, dq = 0;
  while (d[0]->time < 3 - 1e-9) {
    for (int k = 0; k < 2; k++) {
      m->opt.tangent = k == 0 ? HY_TANGENT_ANALYTIC : HY_TANGENT_FD;
      ck_assert_msg(hy_step(m, d[k]) == HY_OK, "tangent %d: %s", k, d[k]->err.msg);
    }
    for (int j = 0; j < 3; j++) dz = fmax(dz, fabs(d[0]->z[j] - d[1]->z[j]));
    dq = fmax(dq, fabs(d[0]->w[0] - d[1]->w[0]));
  }
  ck_assert_msg(dz < 1e-6 && dq < 1e-6, "analytic and FD tangents differ by %.3g rad, %.3g m", dz,
                dq);
  ck_assert(fabs(d[0]->w[0]) > 0 || fabs(d[0]->w[1]) > 0);
  hy_data_free(d[0]);
  hy_data_free(d[1]);
  hy_model_free(m);
}
END_TEST

// docs/friction.md "Smoothing": the film law's smoothing width of Eq. 31's dwell switch and of
// |v|^(2/3) changes the cycle by less than the Newton tolerances: a width ten times smaller
// moves the coordinates by < 1e-7 rad and the bristle deflection by < 1e-7 m.
START_TEST(film_smoothing_width_is_below_the_tolerance) {
  hy_model* m = hy_test_load("four-bar-b-lugre-film");
  hy_data* d[2];
  for (int k = 0; k < 2; k++) d[k] = hy_test_make(m);
  double dz = 0, dq = 0;
  const long n = lround(m->opt.t_end / m->opt.dt);
  for (long i = 0; i < n; i++) {
    for (int k = 0; k < 2; k++) {
      // the smoothing is read at every evaluation: the two data step the same model with their
      // own width
      m->cyl_fric[0].smoothing = k == 0 ? 1e-5 : 1e-6;
      ck_assert_msg(hy_step(m, d[k]) == HY_OK, "width %d: %s", k, d[k]->err.msg);
    }
    for (int j = 0; j < 3; j++) dz = fmax(dz, fabs(d[0]->z[j] - d[1]->z[j]));
    dq = fmax(dq, fabs(d[0]->w[0] - d[1]->w[0]));
  }
  ck_assert_msg(dz < 1e-7 && dq < 1e-7, "smoothing 1e-5 vs 1e-6 m/s: %.3g rad, %.3g m", dz, dq);
  ck_assert_msg(dz > 0, "the width changed nothing: is it read?");
  hy_data_free(d[0]);
  hy_data_free(d[1]);
  hy_model_free(m);
}
END_TEST

// The crane (an open tree) with LuGre friction in its cylinder: the tree formulation steps the
// bristle deflection as an unknown of the Newton iteration too, its energy balance closes, and
// it agrees with penalty (which handles a tree as a loop-free special case).
START_TEST(open_tree_with_friction_states) {
  FILE* fp = fopen(HY_SOURCE_DIR "/models/crane.yaml", "rb");
  ck_assert_ptr_nonnull(fp);
  static char text[65536];
  const size_t len = fread(text, 1, sizeof text - 1, fp);
  fclose(fp);
  text[len] = 0;
  const char* anchor = "          initial: equilibrium";
  char* at = strstr(text, anchor);
  ck_assert_ptr_nonnull(at);
  at = strchr(at, '\n') + 1;
  static char edited[70000];
  const char* block =
      "          friction: {law: lugre, coulomb: 210, stiction: 830, stribeck_velocity: 5e-3,\n"
      "                     viscous: 330, stiffness: 1e5, damping: 316.2}\n";
  snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - text), text, block, at);
  hy_model* m = NULL;
  hy_error err;
  ck_assert_msg(hy_model_load_string(edited, strlen(edited), "crane-lugre", &m, &err) == HY_OK,
                "%s", err.msg);
  ck_assert_int_eq(m->sizes.nfric, 1);
  ck_assert_int_eq(m->sizes.ncut, 0);
  m->opt.t_end = 4;
  fcycle c[2];
  for (int k = 0; k < 2; k++) {
    const hy_formulation form = k == 0 ? HY_FORM_TREE : HY_FORM_PENALTY;
    m->opt.formulation = form;
    hy_data* d = hy_test_make(m);
    const double e0 = hy_energy_total(d);
    memset(&c[k], 0, sizeof c[k]);
    const long n = lround(m->opt.t_end / m->opt.dt);
    for (long i = 1; i <= n; i++) {
      ck_assert_msg(hy_step(m, d) == HY_OK, "%s: %s", hy_formulation_name(form), d->err.msg);
      c[k].drift = fmax(c[k].drift, fabs(hy_energy_total(d) - e0));
      c[k].work_max = fmax(c[k].work_max, fabs(hy_actuator_work(d)));
      if (i % 10 == 0) c[k].z[i / 10][0] = d->z[0];
    }
    c[k].diss = d->diss_fric;
    hy_data_free(d);
  }
  ck_assert(c[0].diss > 0);
  ck_assert_msg(c[0].drift < 5e-3 * c[0].work_max, "tree: drift %.3g J of %.3g J", c[0].drift,
                c[0].work_max);
  double dz = 0;
  for (int i = 0; i <= 400; i++) dz = fmax(dz, fabs(c[0].z[i][0] - c[1].z[i][0]));
  ck_assert_msg(dz < 1e-6, "tree and penalty differ by %.3g rad", dz);
  hy_model_free(m);
}
END_TEST

Suite* form_friction_suite(void) {
  Suite* s = suite_create("form_friction");
  TCase* tc = tcase_create("friction");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, four_bar_b_with_each_law);
  tcase_add_test(tc, first_order_columns_of_the_tangent);
  tcase_add_test(tc, analytic_and_fd_tangents_agree);
  tcase_add_test(tc, film_smoothing_width_is_below_the_tolerance);
  tcase_add_test(tc, open_tree_with_friction_states);
  suite_add_tcase(s, tc);
  return s;
}
