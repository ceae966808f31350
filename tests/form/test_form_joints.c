// Joints of several coordinates in the closed-loop formulations: a plate on a universal,
// spherical or free joint whose other points are held by spherical cut joints so that it can
// only turn about one line, against the same plate on a revolute joint about that line (the
// open tree, the same trapezoidal rule); and the formulations that cannot run such a joint say
// why.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"


// The plate hangs from ground at the origin; Q = 0.8 (1, 0, 0.3) lies on the line the first
// angle of each joint turns about. Spherical cut joints hold Q (and, for the free joint, the
// joint's point) where they are at z = 0, so only that first angle moves.
static const char kPlate[] =
    "  - {name: plate, mass: 2, com: [0, -0.5, 0.2], inertia: [0.1, 0.05, 0.08, 0.01, 0, "
    "0.02]}\n";
static const char kRevolute[] =
    "name: revolute\n"
    "bodies:\n%s"
    "joints:\n"
    "  - {name: R, type: revolute, parent: ground, child: plate, axis: [1, 0, 0.3], z0: 40}\n"
    "solver: {formulation: tree, integrator: trapezoidal, dt: 1.0e-3}\n";
static const char kHeld[] =
    "name: held\n"
    "bodies:\n%s"
    "joints:\n"
    "  - {name: J, type: %s, parent: ground, child: plate, axis: [1, 0, 0.3], axis2: [0, 1, 0], "
    "z0: %s}\n"
    "markers:\n"
    "  - {name: q, body: plate, point: [0.8, 0, 0.24]}\n"
    "  - {name: g, body: ground, point: [0.8, 0, 0.24]}\n"
    "  - {name: o, body: plate}\n"
    "  - {name: o0, body: ground}\n"
    "cut_joints:\n"
    "  - {name: at-q, type: spherical, marker_a: q, marker_b: g}\n"
    "%s"
    "solver: {formulation: %s, dt: 1.0e-3}\n";

START_TEST(held_joint_turns_as_a_revolute) {
  static const char* const types[] = {"universal", "spherical", "free"};
  static const char* const z0[] = {"[40, 0]", "[40, 0, 0]", "[0, 0, 0, 40, 0, 0]"};
  static const char* const forms[] = {"penalty", "double-step"};
  const int type = _i / 2;
  const char* form = forms[_i % 2];
  char text[4096];
  snprintf(text, sizeof text, kHeld, kPlate, types[type], z0[type],
           type == 2 ? "  - {name: at-o, type: spherical, marker_a: o, marker_b: o0}\n" : "", form);
  hy_model* ma = hy_test_load_text(text, "held.yaml");
  snprintf(text, sizeof text, kRevolute, kPlate);
  hy_model* mb = hy_test_load_text(text, "revolute.yaml");
  hy_data* da = hy_test_make(ma);
  hy_data* db = hy_test_make(mb);
  ck_assert_int_eq(da->formulation,
                   strcmp(form, "penalty") == 0 ? HY_FORM_PENALTY : HY_FORM_DOUBLE_STEP);
  double swing = 0;
  for (int k = 0; k < 1500; k++) {
    hy_test_steps(ma, da, 1);
    hy_test_steps(mb, db, 1);
    swing = fmax(swing, fabs(db->z[0] - mb->z0[0]));
  }
  const int first = type == 2 ? 3 : 0;  // the first angle
  const double e = fabs(da->z[first] - db->z[0]), ed = fabs(da->zd[first] - db->zd[0]);
  ck_assert_msg(e < 1e-9 && ed < 1e-8, "%s %s: angle off by %g rad, rate by %g rad/s", types[type],
                form, e, ed);
  for (int i = 0; i < ma->sizes.nz; i++) {
    if (i != first)
      ck_assert_msg(fabs(da->z[i]) < 1e-9, "%s: z[%d] = %g", types[type], i, da->z[i]);
  }
  ck_assert_msg(swing > 0.5, "it swung by %g rad only", swing);
  hy_data_free(da);
  hy_data_free(db);
  hy_model_free(ma);
  hy_model_free(mb);
}
END_TEST

// dca and hdca invert every body's inertia, and a joint of several coordinates is a chain
// through massless bodies: they refuse it, naming the joint.
START_TEST(dca_refuses_a_chain) {
  static const char* const forms[] = {"dca", "hdca"};
  char text[4096];
  snprintf(text, sizeof text,
           "name: sph\nbodies:\n%sjoints:\n  - {name: ball, type: spherical, parent: ground, "
           "child: plate}\nsolver: {formulation: %s}\n",
           kPlate, forms[_i]);
  hy_model* m = hy_test_load_text(text, "sph.yaml");
  hy_data* d = NULL;
  hy_error err;
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  char expect[256];
  snprintf(expect, sizeof expect,
           "formulation %s runs revolute and prismatic joints only: spherical joint 'ball' of "
           "model 'sph' is a chain of 3 joints through massless bodies",
           forms[_i]);
  ck_assert_msg(strstr(err.msg, expect) != NULL, "%s", err.msg);
  hy_model_free(m);
}
END_TEST

Suite* form_joints_suite(void) {
  Suite* s = suite_create("form_joints");
  TCase* tc = tcase_create("joints");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, held_joint_turns_as_a_revolute, 0, 6);
  tcase_add_loop_test(tc, dca_refuses_a_chain, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}
