// The state in named segments: a run saved half way and restored gives bit for bit what the run
// gave without stopping, in the same data and in another one; partial sets start afresh with
// consistent accelerations; bad states are refused and change nothing; get and set allocate
// nothing.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "form/form_common.h"
#include "hydyn/hydyn.h"
#include "integ/integ.h"

// The outputs a recorder writes besides the state, for the comparison of two data.
static void outputs(const hy_model* m, const hy_data* d, double* out, int* n) {
  int k = 0;
  out[k++] = d->energy_kin;
  out[k++] = d->energy_pot;
  out[k++] = d->work_ext;
  out[k++] = d->work_hyd;
  out[k++] = d->diss_visc;
  out[k++] = d->diss_fric;
  out[k++] = d->violation;
  for (int i = 0; i < 3 * m->sizes.nbody; i++) out[k++] = d->body_pos[i];
  for (int i = 0; i < 3 * m->sizes.nmrk; i++) out[k++] = d->mrk_vel[i];
  for (int i = 0; i < m->sizes.nfrc; i++) out[k++] = d->frc_force[i];
  for (int i = 0; i < m->sizes.ncyl; i++) out[k++] = d->cyl_F_hyd[i];
  for (int i = 0; i < m->sizes.ncyl; i++) out[k++] = d->cyl_F_fric[i];
  for (int i = 0; i < m->sizes.nfric; i++) out[k++] = d->wd[i];
  *n = k;
}

// 5 s stepped (and 3 steps, so that the histories that count steps are not at a round count),
// the state saved, stepped to 10 s; restored, stepped to 10 s again: the same bits, state and
// outputs. Four-bar A's work cycle under both closed-loop
// formulations (pressures, spools, multipliers, the partition) and the crane (two valves, end
// dampers, viscous dissipation, an open tree), and four-bar B with the film law (two friction
// states, their rates in the history, friction dissipation).
START_TEST(restore_and_step_on_is_bit_identical) {
  const struct {
    const char* model;
    hy_formulation form;
  } cases[] = {{"four-bar-a", HY_FORM_PENALTY},
               {"four-bar-a", HY_FORM_DOUBLE_STEP},
               {"crane", HY_FORM_AUTO},
               {"four-bar-b-lugre-film", HY_FORM_DOUBLE_STEP}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    hy_model* m = hy_test_load(cases[c].model);
    m->opt.formulation = cases[c].form;
    hy_data* d = hy_test_make(m);
    const long total = lround(10.0 / m->opt.dt), half = lround(5.0 / m->opt.dt) + 3;
    hy_test_steps(m, d, half);
    const int n = hy_state_size(m, d, HY_STATE_FULL);
    ck_assert_int_gt(n, 2 * m->sizes.nz + m->sizes.nvol);
    double* saved = malloc(sizeof(double) * (size_t)n);
    double* first = malloc(sizeof(double) * (size_t)n);
    double* again = malloc(sizeof(double) * (size_t)n);
    static double out1[4096], out2[4096];
    int no1, no2;
    ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, saved), HY_OK);
    hy_test_steps(m, d, total - half);
    ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, first), HY_OK);
    outputs(m, d, out1, &no1);
    ck_assert_double_eq_tol(d->time, 10.0, 1e-9);
    // in the same data
    ck_assert_int_eq(hy_state_set(m, d, HY_STATE_FULL, saved), HY_OK);
    ck_assert_double_eq_tol(d->time, 5.003, 1e-9);
    hy_test_steps(m, d, total - half);
    ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, again), HY_OK);
    outputs(m, d, out2, &no2);
    hy_test_same_bits(first, again, n, cases[c].model);
    hy_test_same_bits(out1, out2, no1, "outputs");
    // in another data of the same model
    hy_data* e = hy_test_make(m);
    ck_assert_int_eq(hy_state_set(m, e, HY_STATE_FULL, saved), HY_OK);
    hy_test_steps(m, e, total - half);
    ck_assert_int_eq(hy_state_get(m, e, HY_STATE_FULL, again), HY_OK);
    outputs(m, e, out2, &no2);
    hy_test_same_bits(first, again, n, "another data");
    hy_test_same_bits(out1, out2, no1, "another data's outputs");
    // the moving parts really moved between the two halves (the test compares something)
    ck_assert(fabs(first[1] - saved[1]) > 1e-3);
    hy_data_free(e);
    hy_data_free(d);
    free(saved);
    free(first);
    free(again);
    hy_model_free(m);
  }
}
END_TEST

// The segments are laid out in the documented order and sizes; the physics segments read back
// what the public arrays hold.
START_TEST(segments_in_order) {
  hy_model* m = hy_test_load("four-bar-a");
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 1200);
  const int nz = m->sizes.nz, nv = m->sizes.nvol, nl = m->sizes.nvlv;
  ck_assert_int_eq(hy_state_size(m, d, HY_STATE_TIME), 1);
  ck_assert_int_eq(hy_state_size(m, d, HY_STATE_POS | HY_STATE_VEL), 2 * nz);
  ck_assert_int_eq(hy_state_size(m, d, HY_STATE_PHYSICS), 2 * nz + nv + nl);
  ck_assert_int_eq(hy_state_size(m, d, 0), 0);
  ck_assert_int_eq(hy_state_size(m, d, 1024), 0);
  double buf[64];
  ck_assert_int_le(hy_state_size(m, d, HY_STATE_TIME | HY_STATE_PHYSICS), 64);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_TIME | HY_STATE_PHYSICS, buf), HY_OK);
  ck_assert_double_eq(buf[0], d->time);
  for (int i = 0; i < nz; i++) {
    ck_assert_double_eq(buf[1 + i], d->z[i]);
    ck_assert_double_eq(buf[1 + nz + i], d->zd[i]);
  }
  for (int v = 0; v < nv; v++) ck_assert_double_eq(buf[1 + 2 * nz + v], d->p[v]);
  for (int v = 0; v < nl; v++) ck_assert_double_eq(buf[1 + 2 * nz + nv + v], d->U[v]);
  ck_assert_int_eq(hy_state_get(m, d, 1024, buf), HY_ERR_ARG);
  hy_data_free(d);
  hy_model_free(m);
  // the friction states come after the spools, as the public array holds them
  m = hy_test_load("four-bar-b-lugre-film");
  d = hy_test_make(m);
  hy_test_steps(m, d, 1600);
  ck_assert_int_eq(hy_state_size(m, d, HY_STATE_FRIC), 2);
  const int at = hy_state_size(m, d, HY_STATE_TIME | HY_STATE_POS | HY_STATE_VEL | HY_STATE_PRES |
                                         HY_STATE_SPOOL);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_TIME | HY_STATE_PHYSICS, buf), HY_OK);
  ck_assert(d->w[0] != 0 && d->w[1] > 0);
  for (int k = 0; k < 2; k++) ck_assert_double_eq(buf[at + k], d->w[k]);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Setting positions and velocities alone starts afresh there: the accelerations are those the
// formulation gives at that state, as for a new data at t = 0 (the held four-bar at its initial
// state), whatever the history of the data they are set in.
START_TEST(partial_set_starts_afresh) {
  const hy_formulation forms[] = {HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  for (int k = 0; k < 2; k++) {
    hy_model* m = hy_test_load("four-bar-a-released");
    m->opt.formulation = forms[k];
    hy_data* fresh = hy_test_make(m);
    hy_data* d = hy_test_make(m);
    hy_test_steps(m, d, 700);
    const unsigned seg = HY_STATE_TIME | HY_STATE_POS | HY_STATE_VEL;
    double buf[32];
    ck_assert_int_eq(hy_state_get(m, fresh, seg, buf), HY_OK);
    ck_assert_int_eq(hy_state_set(m, d, seg, buf), HY_OK);
    for (int i = 0; i < m->sizes.nz; i++) {
      ck_assert_msg(fabs(d->zdd[i] - fresh->zdd[i]) <= 1e-9 * (1 + fabs(fresh->zdd[i])),
                    "%s zdd[%d]: %.17g vs %.17g", hy_formulation_name(forms[k]), i, d->zdd[i],
                    fresh->zdd[i]);
    }
    ck_assert_double_eq_tol(d->energy_pot, fresh->energy_pot, 1e-9);
    // and both step on alike
    hy_test_steps(m, d, 100);
    hy_test_steps(m, fresh, 100);
    for (int i = 0; i < m->sizes.nz; i++) ck_assert_double_eq_tol(d->z[i], fresh->z[i], 1e-9);
    hy_data_free(d);
    hy_data_free(fresh);
    hy_model_free(m);
  }
}
END_TEST

// A non-finite entry, a history of another formulation or a partition that is not one of the
// model are refused, and the data is left as it was.
START_TEST(bad_states_are_refused) {
  hy_model* m = hy_test_load("four-bar-a");
  m->opt.formulation = HY_FORM_PENALTY;
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 1100);
  const int n = hy_state_size(m, d, HY_STATE_FULL);
  double* good = malloc(sizeof(double) * (size_t)n);
  double* bad = malloc(sizeof(double) * (size_t)n);
  double* after = malloc(sizeof(double) * (size_t)n);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, good), HY_OK);
  memcpy(bad, good, sizeof(double) * (size_t)n);
  bad[2] = NAN;
  ck_assert_int_eq(hy_state_set(m, d, HY_STATE_FULL, bad), HY_ERR_NAN);
  ck_assert_ptr_nonnull(strstr(d->err.msg, "not finite"));
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, after), HY_OK);
  hy_test_same_bits(good, after, n, "after a NaN");
  // a history saved from the double-step formulation
  m->opt.formulation = HY_FORM_DOUBLE_STEP;
  hy_data* e = hy_test_make(m);
  const int ne = hy_state_size(m, e, HY_STATE_FULL);
  double* other = malloc(sizeof(double) * (size_t)ne);
  ck_assert_int_eq(hy_state_get(m, e, HY_STATE_FULL, other), HY_OK);
  m->opt.formulation = HY_FORM_PENALTY;
  ck_assert_int_eq(
      hy_state_set(m, d, HY_STATE_HIST, other + (ne - hy_state_size(m, e, HY_STATE_HIST))),
      HY_ERR_ARG);
  ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, after), HY_OK);
  hy_test_same_bits(good, after, n, "after another formulation's history");
  // step sizes and counts out of range (the layout of sim_state.c: hist_get): a previous step
  // of 0 (it divides the pressure predictor) or below, and a multiplier history longer than
  // the three steps kept or not whole
  const int hist = n - hy_state_size(m, d, HY_STATE_HIST);
  const int integ = hist + 2 + m->sizes.nz + m->sizes.nvol + m->sizes.nfric + m->sizes.neq + 5 + 5;
  const int form = integ + hy_integ_hist_size(m) + hy_form_partition_hist_size(m);
  const struct {
    int at;
    double value;
  } wrong[] = {{integ + m->sizes.nvol, 0},       {integ + m->sizes.nvol, -1e-3},
               {integ + m->sizes.nvol + 1, -1},  {form + 3 * m->sizes.neq, 4},
               {form + 3 * m->sizes.neq, 1e300}, {form + 3 * m->sizes.neq + 2, 0.5}};
  for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
    memcpy(bad, good, sizeof(double) * (size_t)n);
    ck_assert_msg(bad[wrong[k].at] != wrong[k].value, "case %zu changes nothing", k);
    bad[wrong[k].at] = wrong[k].value;
    ck_assert_int_eq(hy_state_set(m, d, HY_STATE_FULL, bad), HY_ERR_ARG);
    ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, after), HY_OK);
    hy_test_same_bits(good, after, n, "after a history out of range");
  }
  hy_data_free(e);
  free(other);
  free(good);
  free(bad);
  free(after);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Saving and restoring allocate nothing (co-simulation does it every macro step).
START_TEST(get_and_set_do_not_allocate) {
  hy_model* m = hy_test_load("quick-return");
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 1300);
  static double buf[4096];
  ck_assert_int_le(hy_state_size(m, d, HY_STATE_FULL), 4096);
  hy_test_count_allocs_begin();
  for (int i = 0; i < 10; i++) {
    ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, buf), HY_OK);
    ck_assert_int_eq(hy_step(m, d), HY_OK);
    ck_assert_int_eq(hy_state_set(m, d, HY_STATE_FULL, buf), HY_OK);
    ck_assert_int_eq(hy_state_set(m, d, HY_STATE_POS | HY_STATE_VEL, buf + 1), HY_OK);
  }
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* sim_state_suite(void) {
  Suite* s = suite_create("sim_state");
  TCase* tc = tcase_create("state");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, restore_and_step_on_is_bit_identical);
  tcase_add_test(tc, segments_in_order);
  tcase_add_test(tc, partial_set_starts_afresh);
  tcase_add_test(tc, bad_states_are_refused);
  tcase_add_test(tc, get_and_set_do_not_allocate);
  suite_add_tcase(s, tc);
  return s;
}
