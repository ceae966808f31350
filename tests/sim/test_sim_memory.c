// The memory of a data follows its formulation: dca and hdca, which form no dense matrix
// (hy_form_no_dense), get data that grow linearly with the bodies (d->M NULL, no R_z, W, T, no
// factor of M', no reduced equations in the arena), and their initial state (loop closure,
// equilibrium forces, static residual) is what the dense formulations find.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "form/form.h"
#include "hydyn/hydyn.h"

static double work_bytes(const char* model, hy_formulation form) {
  hy_model* m = hy_test_load(model);
  m->opt.formulation = form;
  hy_data* d = hy_test_make(m);
  ck_assert_ptr_null(d->M);
  const double b = d->work_bytes;
  hy_data_free(d);
  hy_model_free(m);
  return b;
}

START_TEST(formulations_that_form_no_dense_matrix) {
  ck_assert(hy_form_no_dense(&hy_form_dca_ops));
  ck_assert(hy_form_no_dense(&hy_form_hdca_ops));
  ck_assert(!hy_form_no_dense(&hy_form_tree_ops));
  ck_assert(!hy_form_no_dense(&hy_form_penalty_ops));
  ck_assert(!hy_form_no_dense(&hy_form_doublestep_ops));
  ck_assert(!hy_form_no_dense(&hy_form_ali1_ops));
  ck_assert(!hy_form_no_dense(&hy_form_ali3p_ops));
}
END_TEST

// Doubling the bodies doubles the data (an nz^2 array left in would make it 4 times, and at
// N = 1024 an nz^2 array of doubles is 8 MB beside the ~2.4 MB of the rest); chain-4096's data
// stay under 50 MB (they were 950 MB with the dense arrays).
START_TEST(dca_data_grow_linearly) {
  const hy_formulation forms[] = {HY_FORM_DCA, HY_FORM_HDCA};
  const char* families[] = {"chain", "loop"};
  for (int f = 0; f < 2; f++) {
    for (int k = 0; k < 2; k++) {
      char a[32], b[32];
      snprintf(a, sizeof a, "%s-1024", families[k]);
      snprintf(b, sizeof b, "%s-2048", families[k]);
      const double b1 = work_bytes(a, forms[f]), b2 = work_bytes(b, forms[f]);
      ck_assert_msg(b2 < 2.2 * b1, "%s %s: %.0f bytes, %s: %.0f bytes (x%.2f)",
                    hy_formulation_name(forms[f]), a, b1, b, b2, b2 / b1);
    }
  }
  const double big = work_bytes("chain-4096", HY_FORM_DCA);
  ck_assert_msg(big < 50e6, "chain-4096 dca: %.0f bytes", big);
}
END_TEST

// The initial state of dca and hdca (Q' alone, R_z's dependent rows) against penalty's (M', R_z
// whole): the same bits for the loops closed from coordinates that do not close them, the
// static residual and the equilibrium force. Four-bar A held by its equilibrium actuator,
// loop-16 with its coordinates moved off the closed polygon, and the octagon of hdca-case2.
START_TEST(dca_initial_state_is_the_dense_one) {
  const char* models[] = {"four-bar-a-held", "loop-16", "hdca-case2"};
  const hy_formulation forms[] = {HY_FORM_DCA, HY_FORM_HDCA};
  for (int k = 0; k < 3; k++) {
    hy_model* m = hy_test_load(models[k]);
    if (k == 1) {
      for (int i = 0; i < m->sizes.nz; i++) m->z0[i] += 0.01 * ((i % 3) - 1);
    }
    m->opt.formulation = HY_FORM_PENALTY;
    hy_data* ref = hy_test_make(m);
    ck_assert_ptr_nonnull(ref->M);
    for (int f = 0; f < 2; f++) {
      m->opt.formulation = forms[f];
      hy_data* d = hy_test_make(m);
      const char* name = hy_formulation_name(forms[f]);
      ck_assert_ptr_null(d->M);
      hy_test_same_bits(d->z, ref->z, m->sizes.nz, "closed coordinates");
      ck_assert_msg(d->assembly_shift == ref->assembly_shift, "%s %s", models[k], name);
      if (k == 1) ck_assert_msg(d->assembly_shift > 1e-3, "%s: %g", models[k], d->assembly_shift);
      hy_test_same_bits(&d->static_residual, &ref->static_residual, 1, "static residual");
      hy_test_same_bits(d->frc_static, ref->frc_static, m->sizes.nfrc, "equilibrium forces");
      hy_data_free(d);
    }
    if (k == 0) ck_assert(fabs(ref->frc_static[0]) > 1e3);  // the actuator holds the mechanism
    hy_data_free(ref);
    hy_model_free(m);
  }
}
END_TEST

// A loop that no coordinates close: dca refuses it at data make with the shared message.
START_TEST(dca_loop_that_cannot_close_is_refused) {
  static const char yaml[] =
      "name: too-short\n"
      "bodies:\n"
      "  - {name: a, mass: 1, com: [0.5, 0, 0], inertia: {rod: {length: 1, axis: x}}}\n"
      "  - {name: b, mass: 1, com: [0.5, 0, 0], inertia: {rod: {length: 1, axis: x}}}\n"
      "joints:\n"
      "  - {name: j1, type: revolute, parent: ground, child: a, z0: 10}\n"
      "  - {name: j2, type: revolute, parent: a, child: b, parent_point: [1, 0, 0], z0: -20}\n"
      "markers:\n"
      "  - {name: tip, body: b, point: [1, 0, 0]}\n"
      "  - {name: far, body: ground, point: [5, 0, 0]}\n"
      "cut_joints:\n"
      "  - {name: c, type: revolute, marker_a: far, marker_b: tip}\n"
      "solver: {formulation: dca}\n";
  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_string(yaml, sizeof yaml - 1, "too-short.yaml", &m, &err), HY_OK);
  hy_data* d = NULL;
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  ck_assert_ptr_null(d);
  ck_assert_msg(strstr(err.msg, "loops cannot be closed"), "%s", err.msg);
  hy_model_free(m);
}
END_TEST

// The formulation is the data's from hy_data_make on: changing the model's option afterwards
// neither gives the data dense arrays nor changes how it steps or resets.
START_TEST(formulation_is_fixed_at_data_make) {
  hy_model* m = hy_test_load("chain-64");
  m->opt.formulation = HY_FORM_DCA;
  hy_data* d = hy_test_make(m);
  m->opt.formulation = HY_FORM_PENALTY;
  hy_test_steps(m, d, 5);
  ck_assert_int_eq(hy_data_reset(m, d), HY_OK);
  hy_test_steps(m, d, 5);
  ck_assert_int_eq(d->formulation, HY_FORM_DCA);
  ck_assert_ptr_null(d->M);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A state set from outside without dense arrays: the whole state restores a run bit for bit
// (hy_form_refresh evaluates Q' alone), the physical state alone starts afresh (the partition
// and the formulation's start without M').
START_TEST(dca_state_set_without_dense_arrays) {
  const char* models[] = {"chain-64", "loop-16"};
  const hy_formulation forms[] = {HY_FORM_DCA, HY_FORM_HDCA};
  for (int k = 0; k < 2; k++) {
    for (int f = 0; f < 2; f++) {
      hy_model* m = hy_test_load(models[k]);
      m->opt.formulation = forms[f];
      hy_data* d = hy_test_make(m);
      hy_test_steps(m, d, 3);
      const int n = hy_state_size(m, d, HY_STATE_FULL), nz = m->sizes.nz;
      double* saved = malloc(sizeof(double) * (size_t)n);
      double* z1 = malloc(sizeof(double) * (size_t)nz);
      ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, saved), HY_OK);
      hy_test_steps(m, d, 3);
      memcpy(z1, d->z, sizeof(double) * (size_t)nz);
      ck_assert_int_eq(hy_state_set(m, d, HY_STATE_FULL, saved), HY_OK);
      hy_test_steps(m, d, 3);
      hy_test_same_bits(d->z, z1, nz, "z after restoring");
      ck_assert_int_eq(hy_state_set(m, d, HY_STATE_TIME | HY_STATE_PHYSICS, saved), HY_OK);
      hy_test_steps(m, d, 3);
      ck_assert_ptr_null(d->M);
      free(saved);
      free(z1);
      hy_data_free(d);
      hy_model_free(m);
    }
  }
}
END_TEST

Suite* sim_memory_suite(void) {
  Suite* s = suite_create("sim_memory");
  TCase* tc = tcase_create("memory");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, formulations_that_form_no_dense_matrix);
  tcase_add_test(tc, dca_data_grow_linearly);
  tcase_add_test(tc, dca_initial_state_is_the_dense_one);
  tcase_add_test(tc, dca_loop_that_cannot_close_is_refused);
  tcase_add_test(tc, formulation_is_fixed_at_data_make);
  tcase_add_test(tc, dca_state_set_without_dense_arrays);
  suite_add_tcase(s, tc);
  return s;
}
