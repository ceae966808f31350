// The choice of formulation and integrator when the data are made: what auto becomes, what is
// refused, the note that says so; the open tree of the crane under the trapezoidal rule with no
// formulation given steps exactly as under the penalty formulation (which has no loops to
// penalize there), and its explicit integration with pressures and spools in the ODE converges
// to the trapezoidal result.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"

// The crane's model file without its solver line `formulation: penalty`: no formulation given.
static hy_model* crane_without_formulation(void) {
  FILE* f = fopen(HY_SOURCE_DIR "/models/crane.yaml", "rb");
  ck_assert_ptr_nonnull(f);
  static char text[1 << 16];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  char* line = strstr(text, "  formulation: penalty");
  ck_assert_ptr_nonnull(line);
  line[0] = '#';  // a comment now
  hy_model* m = NULL;
  hy_error err;
  ck_assert_msg(hy_model_load_string(text, n, "crane-auto.yaml", &m, &err) == HY_OK, "%s",
                err.msg);
  return m;
}

START_TEST(auto_choices_and_notes) {
  // closed loops: penalty with the trapezoidal rule
  hy_model* m = hy_test_load("four-bar-a-held");
  m->opt.formulation = HY_FORM_AUTO;
  hy_data* d = hy_test_make(m);
  ck_assert_int_eq(d->formulation, HY_FORM_PENALTY);
  ck_assert_int_eq(d->integrator, HY_INTEG_TRAPEZOIDAL);
  ck_assert_msg(strstr(d->note, "closed loops") && strstr(d->note, "penalty"), "%s", d->note);
  hy_data_free(d);
  hy_model_free(m);
  // hydraulics and no loops: the tree formulation, monolithic with the trapezoidal rule
  m = crane_without_formulation();
  ck_assert_int_eq(m->opt.formulation, HY_FORM_AUTO);
  d = hy_test_make(m);
  ck_assert_int_eq(d->formulation, HY_FORM_TREE);
  ck_assert_int_eq(d->integrator, HY_INTEG_TRAPEZOIDAL);
  ck_assert_msg(strstr(d->note, "hydraulics") && strstr(d->note, "trapezoidal"), "%s", d->note);
  hy_data_free(d);
  hy_model_free(m);
  // an open tree without hydraulics: RK4; both chosen by the options: no note
  m = hy_test_load("double-pendulum");
  m->opt.integrator = HY_INTEG_AUTO;
  d = hy_test_make(m);
  ck_assert_int_eq(d->formulation, HY_FORM_TREE);
  ck_assert_int_eq(d->integrator, HY_INTEG_RK4);
  ck_assert_msg(strstr(d->note, "open tree"), "%s", d->note);
  hy_data_free(d);
  m->opt.formulation = HY_FORM_TREE;
  m->opt.integrator = HY_INTEG_SEMI_EULER;
  d = hy_test_make(m);
  ck_assert_int_eq(d->integrator, HY_INTEG_SEMI_EULER);
  ck_assert_str_eq(d->note, "");
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// What cannot run is refused when the data are made, with the reason.
START_TEST(refusals) {
  hy_model* m = hy_test_load("four-bar-a-held");
  hy_data* d = NULL;
  hy_error err;
  m->opt.formulation = HY_FORM_TREE;  // cut joints would be ignored
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  ck_assert_ptr_null(d);
  ck_assert_msg(strstr(err.msg, "formulation tree cannot run") && strstr(err.msg, "1 cut joint"),
                "%s", err.msg);
  m->opt.formulation = HY_FORM_DOUBLE_STEP;
  m->opt.integrator = HY_INTEG_SEMI_EULER;  // no ODE right-hand side to drive
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "no ODE right-hand side"), "%s", err.msg);
  m->opt.integrator = (hy_integrator)42;
  ck_assert_int_lt(hy_data_make(m, &d, &err), 0);
  ck_assert_ptr_null(d);
  hy_model_free(m);
}
END_TEST

// The crane, open tree and two hydraulic cylinders: with no formulation given it runs the tree
// formulation with the trapezoidal rule, whose residual, tangent and end of step are the penalty
// formulation's with no constraints: the two runs agree bit for bit for 3 s.
START_TEST(crane_tree_trapezoidal_is_penalty_without_loops) {
  hy_model* a = crane_without_formulation();
  hy_model* b = hy_test_load("crane");
  ck_assert_int_eq(b->opt.formulation, HY_FORM_PENALTY);
  hy_data* da = hy_test_make(a);
  hy_data* db = hy_test_make(b);
  ck_assert_int_eq(da->formulation, HY_FORM_TREE);
  for (int k = 0; k < 3000; k++) {
    ck_assert_int_eq(hy_step(a, da), HY_OK);
    ck_assert_int_eq(hy_step(b, db), HY_OK);
  }
  for (int i = 0; i < a->sizes.nz; i++) {
    ck_assert_msg(memcmp(&da->z[i], &db->z[i], sizeof(double)) == 0, "z[%d] %.17g %.17g", i,
                  da->z[i], db->z[i]);
  }
  for (int v = 0; v < a->sizes.nvol; v++) {
    ck_assert_msg(memcmp(&da->p[v], &db->p[v], sizeof(double)) == 0, "p[%d]", v);
  }
  ck_assert(fabs(da->z[0] - a->z0[0]) > 1e-3);  // it moved
  hy_data_free(da);
  hy_data_free(db);
  hy_model_free(a);
  hy_model_free(b);
}
END_TEST

// The explicit integrators drive the formulation's ODE with the pressures and spools in the
// state: RK4 on the crane at 10 us converges to the trapezoidal rule's result at 10 us (both
// second order or better; the hydraulics' fast poles need the small step).
START_TEST(crane_explicit_with_hydraulics) {
  hy_model* m = crane_without_formulation();
  m->opt.dt = 1e-5;
  m->opt.integrator = HY_INTEG_RK4;
  hy_data* e = hy_test_make(m);
  ck_assert_int_eq(e->integrator, HY_INTEG_RK4);
  m->opt.integrator = HY_INTEG_TRAPEZOIDAL;
  m->opt.tol_p = 1e-4;
  m->opt.tol_pos = 1e-10;
  hy_data* t = hy_test_make(m);
  for (int k = 0; k < 150000; k++) {
    ck_assert_msg(hy_step(m, e) == HY_OK, "rk4 at t = %g: %s", e->time, e->err.msg);
    ck_assert_int_eq(hy_step(m, t), HY_OK);
  }
  double dz = 0, dp = 0, pmax = 0;
  for (int i = 0; i < m->sizes.nz; i++) dz = fmax(dz, fabs(e->z[i] - t->z[i]));
  for (int v = 0; v < m->sizes.nvol; v++) {
    dp = fmax(dp, fabs(e->p[v] - t->p[v]));
    pmax = fmax(pmax, fabs(t->p[v]));
  }
  printf("  crane at 1.5 s, rk4 vs trapezoidal at 10 us: %.3g rad, %.3g Pa of %.3g Pa\n", dz, dp,
         pmax);
  ck_assert_msg(dz < 1e-6 && dp < 1e-5 * pmax, "%.3g rad, %.3g Pa", dz, dp);
  ck_assert(fabs(e->z[0] - m->z0[0]) > 1e-4);  // it moved
  hy_data_free(e);
  hy_data_free(t);
  hy_model_free(m);
}
END_TEST

Suite* form_table_suite(void) {
  Suite* s = suite_create("form_table");
  TCase* tc = tcase_create("choice");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, auto_choices_and_notes);
  tcase_add_test(tc, refusals);
  tcase_add_test(tc, crane_tree_trapezoidal_is_penalty_without_loops);
  tcase_add_test(tc, crane_explicit_with_hydraulics);
  suite_add_tcase(s, tc);
  return s;
}
