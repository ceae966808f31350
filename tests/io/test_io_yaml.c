// YAML model loading: a complete good file, every inertia form, signals from a table and a CSV
// file, built-in models, and malformed files reported with their exact line and column. Every
// failed load must leave no block behind (counted through the allocator hook).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/model.h"
#include "hydyn/names.h"

#define DATA HY_SOURCE_DIR "/tests/data/"

static const double kPi = 3.14159265358979323846;


//----- helpers -------------------------------------------------------------------------------

static hy_model* load_ok(const char* path) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load(path, &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_OK, "loading %s failed: %s", path, buf);
  ck_assert_ptr_nonnull(m);
  return m;
}

static const double* inertia_of(const hy_model* m, const char* body) {
  int b = hy_model_body(m, body);
  ck_assert_msg(b >= 0, "no body '%s'", body);
  return &m->body_inertia[9 * b];
}

static void assert_mat3(const double* got, const double want[9], const char* what) {
  for (int i = 0; i < 9; i++) {
    ck_assert_msg(fabs(got[i] - want[i]) <= 1e-12 * fmax(1.0, fabs(want[i])),
                  "%s: entry %d is %.17g, expected %.17g", what, i, got[i], want[i]);
  }
}

// Initial coordinate and rate of joint `name`.
static void joint_init(const hy_model* m, const char* name, double* z0, double* zd0) {
  int j = hy_model_joint(m, name);
  ck_assert_msg(j >= 0, "no joint '%s'", name);
  *z0 = m->z0[m->jnt_zadr[j]];
  *zd0 = m->zd0[m->jnt_zadr[j]];
}

//----- the good file -------------------------------------------------------------------------

START_TEST(test_good_sizes_and_options) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  ck_assert_str_eq(m->name, "io_good");  // no 'name' key: the file stem
  ck_assert_int_eq(m->sizes.nbody, 6);
  ck_assert_int_eq(m->sizes.nz, 6);
  ck_assert_int_eq(m->sizes.nmrk, 2);
  ck_assert_int_eq(m->sizes.nsig, 2);
  ck_assert_int_eq(m->sizes.nsigpt, 7);
  ck_assert_int_eq(m->sizes.nload, 2);
  ck_assert_double_eq(m->opt.gravity[0], 0.0);
  ck_assert_double_eq(m->opt.gravity[1], 0.0);
  ck_assert_double_eq(m->opt.gravity[2], -9.81);
  ck_assert_int_eq(m->opt.integrator, HY_INTEG_SEMI_EULER);
  ck_assert_double_eq(m->opt.dt, 2e-3);
  ck_assert_double_eq(m->opt.t_end, 1.5);
  int b = hy_model_body(m, "full");
  ck_assert_double_eq(m->body_mass[b], 2.5);
  ck_assert_double_eq(m->body_com[3 * b + 1], -0.5);
  ck_assert_double_eq(m->body_com[3 * b + 2], 0.25);
  ck_assert_double_eq(m->body_mass[hy_model_body(m, "point")], 1e-3);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_degrees_to_radians) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  double z0, zd0;
  joint_init(m, "j_rod", &z0, &zd0);  // revolute: 90 deg, -180 deg/s
  ck_assert_double_eq_tol(z0, kPi / 2, 1e-15);
  ck_assert_double_eq_tol(zd0, -kPi, 1e-15);
  joint_init(m, "j_box", &z0, &zd0);  // prismatic: metres stay metres
  ck_assert_double_eq(z0, 0.25);
  ck_assert_double_eq(zd0, -2.0);
  joint_init(m, "j_six", &z0, &zd0);
  ck_assert_double_eq_tol(z0, -kPi / 4, 1e-15);
  ck_assert_double_eq(zd0, 0.0);
  joint_init(m, "j_point", &z0, &zd0);  // written as 1.0e+1
  ck_assert_double_eq_tol(z0, kPi / 18, 1e-15);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_joint_geometry) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  int j = hy_model_joint(m, "j_box");
  ck_assert_int_eq(m->jnt_type[j], HY_JOINT_PRISMATIC);
  ck_assert_double_eq(m->jnt_ppoint[3 * j + 0], 2.0);
  ck_assert_double_eq(m->jnt_cpoint[3 * j + 1], 0.5);
  ck_assert_double_eq(m->jnt_paxis[3 * j + 0], 1.0);
  ck_assert_double_eq(m->jnt_caxis[3 * j + 2], 1.0);
  ck_assert_int_eq(m->body_parent[j], hy_model_body(m, "rod"));
  // default axis +z, child_axis defaults to axis; [0, 0, 2] is normalized by the compiler
  j = hy_model_joint(m, "j_diag");
  ck_assert_int_eq(m->jnt_type[j], HY_JOINT_REVOLUTE);
  ck_assert_double_eq(m->jnt_paxis[3 * j + 2], 1.0);
  ck_assert_double_eq(m->jnt_caxis[3 * j + 2], 1.0);
  j = hy_model_joint(m, "j_full");
  ck_assert_int_eq(m->body_parent[j], -1);
  ck_assert_double_eq_tol(m->jnt_paxis[3 * j + 2], 1.0, 1e-15);
  ck_assert_double_eq_tol(m->jnt_caxis[3 * j + 2], 1.0, 1e-15);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_inertia_forms) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  // rod, m = 3 kg, L = 2 m along z: m L^2 / 12 = 1 about x and y, 0 about z
  const double rod[9] = {1, 0, 0, 0, 1, 0, 0, 0, 0};
  assert_mat3(inertia_of(m, "rod"), rod, "rod");
  // box, m = 12 kg, edges 1, 2, 3: Ixx = (4 + 9), Iyy = (1 + 9), Izz = (1 + 4)
  const double box[9] = {13, 0, 0, 0, 10, 0, 0, 0, 5};
  assert_mat3(inertia_of(m, "box"), box, "box");
  const double diag[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3};
  assert_mat3(inertia_of(m, "diag"), diag, "diagonal");
  // [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] are tensor entries
  const double six[9] = {4, 0.1, 0.2, 0.1, 5, 0.3, 0.2, 0.3, 6};
  assert_mat3(inertia_of(m, "six"), six, "six numbers");
  const double full[9] = {2, 0.1, -0.2, 0.1, 3, 0.3, -0.2, 0.3, 4};
  assert_mat3(inertia_of(m, "full"), full, "3x3");
  const double zero[9] = {0};
  assert_mat3(inertia_of(m, "point"), zero, "point mass");
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_markers_signals_loads) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  int tip = hy_model_marker(m, "tip");
  ck_assert_int_eq(m->mrk_body[tip], hy_model_body(m, "rod"));
  ck_assert_double_eq(m->mrk_point[3 * tip], 2.0);
  int anchor = hy_model_marker(m, "anchor");
  ck_assert_int_eq(m->mrk_body[anchor], -1);

  int steps = hy_model_signal(m, "steps");
  ck_assert_int_eq(m->sig_interp[steps], HY_INTERP_STEP);
  ck_assert_int_eq(m->sig_npoint[steps], 3);
  ck_assert_double_eq(hy_signal_eval(m, steps, 1.2), 1.5);
  ck_assert_double_eq(hy_signal_eval(m, steps, 3.0), -2.0);

  // from io_push.csv: two comment lines, a header, a blank line and a ';' separator
  int push = hy_model_signal(m, "push");
  ck_assert_int_eq(m->sig_interp[push], HY_INTERP_LINEAR);
  ck_assert_int_eq(m->sig_npoint[push], 4);
  const double* t = &m->sig_t[m->sig_adr[push]];
  const double* v = &m->sig_value[m->sig_adr[push]];
  ck_assert_double_eq(t[3], 2.0);
  ck_assert_double_eq(v[2], 2.5);
  ck_assert_double_eq_tol(hy_signal_eval(m, push, 0.75), 1.75, 1e-14);

  ck_assert_str_eq(&m->load_name[0], "push-tip");
  ck_assert_int_eq(m->load_type[0], HY_LOAD_FORCE);
  ck_assert_int_eq(m->load_mrk[0], tip);
  ck_assert_int_eq(m->load_sig[0], push);
  ck_assert_double_eq(m->load_vector[1], -100.0);
  ck_assert_str_eq(&m->load_name[HY_NAME_MAX], "load1");  // default name load<i>
  ck_assert_int_eq(m->load_type[1], HY_LOAD_TORQUE);
  ck_assert_int_eq(m->load_sig[1], -1);
  ck_assert_double_eq(m->load_vector[5], 5.0);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_loops) {
  hy_model* m = load_ok(DATA "io_loops.yaml");
  ck_assert_str_eq(m->name, "loops");
  ck_assert_int_eq(m->planar, 0);  // planar: false
  ck_assert_int_eq(m->sizes.ncut, 3);
  ck_assert_int_eq(m->sizes.neq, 5 + 3 + 5);
  ck_assert_int_eq(m->sizes.nfrc, 2);
  int c = hy_model_cut(m, "hinge");
  ck_assert_int_eq(c, 0);
  ck_assert_int_eq(m->cut_type[c], HY_CUT_REVOLUTE);
  ck_assert_int_eq(m->cut_mrk_a[c], hy_model_marker(m, "tc"));
  ck_assert_int_eq(m->cut_mrk_b[c], hy_model_marker(m, "g1"));
  ck_assert_double_eq(m->cut_axis_a[3 * c + 2], 1.0);  // [0, 0, 2] normalized
  ck_assert_double_eq(m->cut_up_b[3 * c + 1], 1.0);    // [0, 3, 0] normalized
  ck_assert_int_eq(m->cut_eqadr[c], 0);
  ck_assert_int_eq(m->cut_neq[c], 5);
  c = hy_model_cut(m, "ball");
  ck_assert_int_eq(m->cut_type[c], HY_CUT_SPHERICAL);
  ck_assert_double_eq(m->cut_axis_b[3 * c + 2], 1.0);  // default [0, 0, 1]
  ck_assert_int_eq(m->cut_eqadr[c], 5);
  ck_assert_int_eq(m->cut_neq[c], 3);
  c = hy_model_cut(m, "slide");
  ck_assert_int_eq(m->cut_type[c], HY_CUT_TRANSLATIONAL);
  ck_assert_double_eq(m->cut_up_a[3 * c + 1], 1.0);
  ck_assert_int_eq(m->cut_eqadr[c], 8);

  int f = hy_model_force(m, "push");
  ck_assert_int_eq(m->frc_type[f], HY_FORCE_ACTUATOR);
  ck_assert_int_eq(m->frc_mrk_a[f], hy_model_marker(m, "g2"));
  ck_assert_int_eq(m->frc_mrk_b[f], hy_model_marker(m, "tc"));
  ck_assert_double_eq(m->frc_value[f], -250.5);
  ck_assert_int_eq(m->frc_equilibrium[f], 0);
  ck_assert_int_eq(m->frc_sig[f], hy_model_signal(m, "ramp"));
  f = hy_model_force(m, "hold");
  ck_assert_int_eq(m->frc_equilibrium[f], 1);
  ck_assert_int_eq(m->frc_sig[f], -1);

  ck_assert_int_eq(m->opt.formulation, HY_FORM_DOUBLE_STEP);
  ck_assert_int_eq(m->opt.tangent, HY_TANGENT_FD);
  ck_assert_double_eq(m->opt.penalty, 1e9);
  ck_assert_double_eq(m->opt.tol_pos, 1e-8);
  ck_assert_int_eq(m->opt.max_iter, 12);
  ck_assert_double_eq(m->opt.partition_rcond, 0.01);
  ck_assert_double_eq(m->opt.dt, 5e-4);
  ck_assert_int_eq(m->opt.strict_steps, 1);
  ck_assert_int_eq(m->opt.max_cuts, 5);
  ck_assert_int_eq(m->opt.error_control, HY_ERRCTL_PREDICTOR);
  ck_assert_double_eq(m->opt.error_tol_pos, 2e-6);
  ck_assert_double_eq(m->opt.error_tol_p, 500.0);
  ck_assert_double_eq(m->opt.max_memory, 1e8);
  // where the options are given (the value of `max_cuts: 5`), for hy_model_check's messages
  ck_assert_int_eq(m->opt_src[HY_OPT_MAX_CUTS].line, 63);
  ck_assert_int_eq(m->opt_src[HY_OPT_MAX_CUTS].col, 13);
  ck_assert_int_eq(m->opt_src[HY_OPT_GRAVITY].line, 0);  // not given: the default
  hy_model_free(m);
}
END_TEST

START_TEST(test_loops_defaults) {
  // A planar loop: detected as planar (2 equations), penalty by default, default solver values.
  const char* text =
      "bodies:\n"
      "  - {name: a, mass: 1, com: [0.5, 0, 0]}\n"
      "  - {name: b, mass: 1, com: [0.5, 0, 0]}\n"
      "joints:\n"
      "  - {name: ja, type: revolute, parent: ground, child: a}\n"
      "  - {name: jb, type: revolute, parent: a, child: b, parent_point: [1, 0, 0], z0: 90}\n"
      "markers:\n"
      "  - {name: tip, body: b, point: [1, 0, 0]}\n"
      "  - {name: pin, body: ground, point: [1, 1, 0]}\n"
      "cut_joints:\n"
      "  - {name: close, type: revolute, marker_a: tip, marker_b: pin}\n"
      "forces:\n"
      "  - {name: f, type: actuator, marker_a: pin, marker_b: tip, force: 12}\n";
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load_string(text, strlen(text), "mem/loop.yaml", &m, &err);
  ck_assert_msg(st == HY_OK, "%s", err.msg);
  ck_assert_int_eq(m->planar, 1);
  ck_assert_int_eq(m->sizes.neq, 2);
  ck_assert_int_eq(m->opt.formulation, HY_FORM_AUTO);  // chosen by hy_data_make: penalty
  ck_assert_int_eq(m->opt.tangent, HY_TANGENT_ANALYTIC);
  ck_assert_double_eq(m->opt.penalty, 1e11);
  ck_assert_double_eq(m->opt.tol_pos, 1e-7);
  ck_assert_int_eq(m->opt.max_iter, 25);
  ck_assert_double_eq(m->frc_value[0], 12.0);
  hy_model_free(m);

  // planar: true on the same model is accepted; the formulation can be chosen
  static char text2[2048];
  snprintf(text2, sizeof text2, "%splanar: true\nsolver: {formulation: double-step}\n", text);
  ck_assert_int_eq(hy_model_load_string(text2, strlen(text2), "mem/loop.yaml", &m, &err), HY_OK);
  ck_assert_int_eq(m->planar, 1);
  ck_assert_int_eq(m->opt.formulation, HY_FORM_DOUBLE_STEP);
  hy_model_free(m);
}
END_TEST

// An x-y-theta cart: two massless carriages slide along x and y and carry the cart, which
// turns about z; knife edges keep its wheels from slipping sideways.
static const char kCart[] =
    "bodies:\n"
    "  - {name: carriage_x, mass: 0}\n"
    "  - {name: carriage_y, mass: 0, inertia: {box: [1, 1, 1]}}\n"
    "  - {name: cart, mass: 2, com: [0.5, 0, 0], inertia: [0.1, 0.1, 0.2]}\n"
    "joints:\n"
    "  - {name: x, type: prismatic, parent: ground, child: carriage_x, axis: [1, 0, 0]}\n"
    "  - {name: y, type: prismatic, parent: carriage_x, child: carriage_y, axis: [0, 1, 0]}\n"
    "  - {name: theta, type: revolute, parent: carriage_y, child: cart}\n"
    "markers:\n"
    "  - {name: rear, body: cart, point: [0, 0, 0]}\n"
    "  - {name: front, body: cart, point: [1, 0, 0]}\n"
    "nonholonomic:\n"
    "  - name: rear-wheel\n"
    "    marker: rear\n"
    "    axis: [0, 2, 0]\n"
    "  - {name: front-wheel, type: knife_edge, marker: front, axis: [3, 4, 0]}\n";

START_TEST(test_knife_edge) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load_string(kCart, strlen(kCart), "mem/cart.yaml", &m, &err);
  ck_assert_msg(st == HY_OK, "%s", err.msg);
  ck_assert_int_eq(m->planar, 1);
  ck_assert_int_eq(m->sizes.nz, 3);
  ck_assert_int_eq(m->sizes.nnh, 2);
  ck_assert_int_eq(m->sizes.neq, 0);
  int k = hy_model_nonholonomic(m, "rear-wheel");
  ck_assert_int_eq(k, 0);
  ck_assert_int_eq(m->nh_type[k], HY_NONHOLONOMIC_KNIFE_EDGE);  // the default type
  ck_assert_int_eq(m->nh_mrk[k], hy_model_marker(m, "rear"));
  ck_assert_double_eq(m->nh_axis[3 * k + 0], 0.0);  // [0, 2, 0] normalized
  ck_assert_double_eq(m->nh_axis[3 * k + 1], 1.0);
  ck_assert_double_eq(m->nh_axis[3 * k + 2], 0.0);
  ck_assert_int_eq(m->nh_src[k].line, 13);
  ck_assert_int_eq(m->nh_src[k].col, 5);
  k = hy_model_nonholonomic(m, "front-wheel");
  ck_assert_int_eq(k, 1);
  ck_assert_int_eq(m->nh_type[k], HY_NONHOLONOMIC_KNIFE_EDGE);
  ck_assert_int_eq(m->nh_mrk[k], hy_model_marker(m, "front"));
  ck_assert_double_eq_tol(m->nh_axis[3 * k + 0], 0.6, 1e-15);  // [3, 4, 0] normalized
  ck_assert_double_eq_tol(m->nh_axis[3 * k + 1], 0.8, 1e-15);
  ck_assert_double_eq(m->nh_axis[3 * k + 2], 0.0);
  ck_assert_str_eq(&m->nh_name[HY_NAME_MAX], "front-wheel");
  ck_assert_int_eq(hy_model_nonholonomic(m, "wheel"), -1);
  // massless links: mass 0 and no inertia, also from a box of no mass
  int b = hy_model_body(m, "carriage_y");
  ck_assert_double_eq(m->body_mass[b], 0.0);
  for (int i = 0; i < 9; i++) ck_assert_double_eq(m->body_inertia[9 * b + i], 0.0);
  hy_model_free(m);

  // without nonholonomic constraints
  const char* open = strstr(kCart, "nonholonomic:");
  ck_assert_int_eq(hy_model_load_string(kCart, (size_t)(open - kCart), "mem/cart.yaml", &m, &err),
                   HY_OK);
  ck_assert_int_eq(m->sizes.nnh, 0);
  ck_assert_int_eq(hy_model_nonholonomic(m, "rear-wheel"), -1);
  hy_model_free(m);
}
END_TEST

START_TEST(test_knife_edge_plane_rule) {
  // The axis must lie in the plane of a planar model only: with planar: false the same
  // constraint along the normal is loaded (it is then the 3-D engine's to judge).
  static char text[2048];
  const int rear = (int)(strstr(kCart, "  - {name: front-wheel") - kCart);  // without front-wheel
  snprintf(text, sizeof text, "%.*s  - {name: lift, marker: front, axis: [0, 0, 1]}\n", rear,
           kCart);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "mem/cart.yaml", &m, &err),
                   HY_ERR_MODEL);
  ck_assert_ptr_null(m);
  ck_assert_str_eq(err.msg,
                   "nonholonomic constraint 'lift': axis (0, 0, 1) is not in the plane of motion "
                   "(normal (0, 0, 1)): at z = 0 it is (0, 0, 1) in the inertial frame");
  ck_assert_int_eq(err.src_line, 16);
  ck_assert_int_eq(err.src_col, 5);
  // an axis with a part along the normal is refused too
  snprintf(text, sizeof text, "%.*s  - {name: lift, marker: front, axis: [1, 0, 1e-8]}\n", rear,
           kCart);
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "mem/cart.yaml", &m, &err),
                   HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "is not in the plane of motion"));
  snprintf(text, sizeof text,
           "planar: false\n%.*s  - {name: lift, marker: front, axis: [0, 0, 1]}\n", rear, kCart);
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "mem/cart.yaml", &m, &err), HY_OK);
  ck_assert_int_eq(m->planar, 0);
  ck_assert_int_eq(m->sizes.nnh, 2);
  ck_assert_double_eq(m->nh_axis[3 * 1 + 2], 1.0);
  hy_model_free(m);
}
END_TEST

START_TEST(test_knife_edge_alloc_failure) {
  // Fail each allocation of loading the cart in turn: HY_ERR_NOMEM with nothing left behind.
  for (long k = 1;; k++) {
    hy_test_hook_begin(k);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    hy_status st = hy_model_load_string(kCart, strlen(kCart), "mem/cart.yaml", &m, &err);
    long calls = hy_test_hook_calls();
    if (st == HY_OK) hy_model_free(m);
    long live = hy_test_hook_live();
    hy_test_hook_end();
    ck_assert_msg(live == 0, "failing allocation %ld: %ld blocks leaked", k, live);
    if (calls < k) {
      ck_assert_int_eq(st, HY_OK);
      break;
    }
    ck_assert_msg(st == HY_ERR_NOMEM, "failing allocation %ld gave %d: %s", k, st, err.msg);
    ck_assert_ptr_null(m);
  }
}
END_TEST

START_TEST(test_names) {
  // Names and parsers of hydyn/names.h round-trip, and reject unknown or NULL input.
  for (int k = 0; k < HY_FORM_COUNT; k++) {
    hy_formulation f = HY_FORM_COUNT;
    ck_assert_int_eq(hy_formulation_parse(hy_formulation_name((hy_formulation)k), &f), HY_OK);
    ck_assert_int_eq(f, k);
  }
  ck_assert_str_eq(hy_formulation_name(HY_FORM_DOUBLE_STEP), "double-step");
  ck_assert_str_eq(hy_formulation_name(HY_FORM_COUNT), "unknown");
  for (int k = 0; k < HY_TANGENT_COUNT; k++) {
    hy_tangent t = HY_TANGENT_COUNT;
    ck_assert_int_eq(hy_tangent_parse(hy_tangent_name((hy_tangent)k), &t), HY_OK);
    ck_assert_int_eq(t, k);
  }
  ck_assert_str_eq(hy_tangent_name(HY_TANGENT_FD), "fd");
  ck_assert_str_eq(hy_cut_type_name(HY_CUT_SPHERICAL), "spherical");
  ck_assert_str_eq(hy_cut_type_name((hy_cut_type)7), "unknown");
  hy_cut_type c = HY_CUT_REVOLUTE;
  ck_assert_int_eq(hy_cut_type_parse("translational", &c), HY_OK);
  ck_assert_int_eq(c, HY_CUT_TRANSLATIONAL);
  ck_assert_int_eq(hy_cut_type_parse("Revolute", &c), HY_ERR_ARG);
  ck_assert_int_eq(c, HY_CUT_TRANSLATIONAL);  // unchanged
  ck_assert_str_eq(hy_nonholonomic_type_name(HY_NONHOLONOMIC_KNIFE_EDGE), "knife_edge");
  ck_assert_str_eq(hy_nonholonomic_type_name((hy_nonholonomic_type)1), "unknown");
  ck_assert_str_eq(hy_nonholonomic_type_name((hy_nonholonomic_type)-1), "unknown");
  hy_nonholonomic_type nh = (hy_nonholonomic_type)5;
  ck_assert_int_eq(hy_nonholonomic_type_parse("knife_edge", &nh), HY_OK);
  ck_assert_int_eq(nh, HY_NONHOLONOMIC_KNIFE_EDGE);
  nh = (hy_nonholonomic_type)5;
  ck_assert_int_eq(hy_nonholonomic_type_parse("knife-edge", &nh), HY_ERR_ARG);
  ck_assert_int_eq(nh, 5);  // unchanged
  ck_assert_int_eq(hy_nonholonomic_type_parse(NULL, &nh), HY_ERR_ARG);
  ck_assert_int_eq(hy_nonholonomic_type_parse("knife_edge", NULL), HY_ERR_ARG);
  hy_formulation f = HY_FORM_TREE;
  ck_assert_int_eq(hy_formulation_parse("penalti", &f), HY_ERR_ARG);
  ck_assert_int_eq(hy_formulation_parse(NULL, &f), HY_ERR_ARG);
  ck_assert_int_eq(hy_tangent_parse("fd", NULL), HY_ERR_ARG);
  ck_assert_int_eq(f, HY_FORM_TREE);
}
END_TEST

START_TEST(test_load_string_defaults) {
  // Numbers as ints and floats, defaults everywhere, the stem of `name` as model name.
  const char* text =
      "bodies:\n"
      "  - {name: a, mass: 2}\n"
      "joints:\n"
      "  - {name: j, type: prismatic, parent: ground, child: a, z0: -2, zd0: .5}\n";
  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "mem/one-body.yaml", &m, &err), HY_OK);
  ck_assert_str_eq(m->name, "one-body");
  ck_assert_double_eq(m->opt.gravity[1], -9.81);
  ck_assert_int_eq(m->opt.integrator, HY_INTEG_AUTO);
  ck_assert_double_eq(m->z0[0], -2.0);
  ck_assert_double_eq(m->zd0[0], 0.5);
  ck_assert_double_eq(m->body_com[0], 0.0);
  ck_assert_double_eq(m->body_inertia[0], 0.0);
  hy_model_free(m);
}
END_TEST

START_TEST(test_doc_example_loads) {
  // Every ```yaml example of docs/model-format.md must stay a valid model: the first is the
  // pendulum, the second the closed-loop four-bar, the third the knife-edge cart, the fourth
  // the body on a spherical joint and the free body.
  FILE* f = fopen(HY_SOURCE_DIR "/docs/model-format.md", "rb");
  ck_assert_ptr_nonnull(f);
  static char doc[1 << 18];
  size_t size = fread(doc, 1, sizeof doc - 1, f);
  fclose(f);
  ck_assert_int_lt(size, sizeof doc - 1);
  doc[size] = 0;
  int nblock = 0;
  for (const char* start = strstr(doc, "```yaml\n"); start; start = strstr(start, "```yaml\n")) {
    start += strlen("```yaml\n");
    const char* end = strstr(start, "```");
    ck_assert_ptr_nonnull(end);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    hy_status st =
        hy_model_load_string(start, (size_t)(end - start), "docs/example.yaml", &m, &err);
    ck_assert_msg(st == HY_OK, "doc example %d: %s (line %d of the block)", nblock, err.msg,
                  err.src_line);
    if (nblock == 0) {
      ck_assert_int_eq(m->sizes.nbody, 2);
      ck_assert_int_eq(m->sizes.nload, 1);
    } else if (nblock == 1) {
      ck_assert_int_eq(m->sizes.nbody, 3);
      ck_assert_int_eq(m->sizes.ncut, 1);
      ck_assert_int_eq(m->sizes.neq, 2);
      ck_assert_int_eq(m->sizes.nfrc, 1);
    } else if (nblock == 2) {
      ck_assert_int_eq(m->sizes.nbody, 3);
      ck_assert_int_eq(m->planar, 1);
      ck_assert_int_eq(m->sizes.nnh, 1);
      ck_assert_double_eq(m->body_mass[hy_model_body(m, "carriage_x")], 0.0);
    } else {
      // a spherical and a free joint: 2 + 5 massless bodies, 3 + 6 coordinates
      ck_assert_int_eq(m->sizes.nbody, 9);
      ck_assert_int_eq(m->sizes.nz, 9);
      ck_assert_int_eq(m->planar, 0);
      ck_assert_double_eq(m->body_mass[hy_model_body(m, "box")], 4.0);
    }
    hy_model_free(m);
    nblock++;
    start = end + 3;
  }
  ck_assert_int_eq(nblock, 4);
}
END_TEST

//----- malformed files: status, exact position, message --------------------------------------
// Syntax and form errors are reported at the offending node; values out of their range (mass,
// inertia, axes, signal times: hy_model_check) at the start of the element that holds them.

typedef struct bad_case {
  const char* file;  // under tests/data/bad/
  hy_status status;
  int line, col;
  const char* needle1;  // substrings the message must contain
  const char* needle2;
} bad_case;

static const bad_case kBad[] = {
    {"indent.yaml", HY_ERR_PARSE, 4, 11, "mapping values are not allowed", "indented"},
    {"mass_string.yaml", HY_ERR_MODEL, 5, 11, "mass", "expected a number, got 'abc'"},
    {"unknown_key.yaml", HY_ERR_MODEL, 5, 5, "unknown key 'masss' in body 'link2'",
     "expected one of: name, mass, com, inertia"},
    {"missing_mass.yaml", HY_ERR_MODEL, 4, 5,
     "bodies[1] 'link2': key 'mass' is required (a number >= 0, kg)", NULL},
    {"duplicate_body.yaml", HY_ERR_MODEL, 4, 12, "name 'link1'", "line 2, column 5"},
    {"unknown_parent.yaml", HY_ERR_MODEL, 9, 5, "parent", "link9"},
    {"negative_mass.yaml", HY_ERR_MODEL, 2, 5, "body 'link1': mass", "must be >= 0 (kg), got -2.5"},
    {"mass_zero_inertia.yaml", HY_ERR_MODEL, 2, 5,
     "body 'carriage': mass 0 needs a zero inertia, but inertia[0][0] is 0.5", NULL},
    {"signal_order.yaml", HY_ERR_MODEL, 6, 5, "signal 'push'",
     "times must increase strictly, but point 2"},
    {"empty.yaml", HY_ERR_MODEL, 1, 1, "empty", "bodies"},
    {"not_mapping.yaml", HY_ERR_MODEL, 1, 1, "top level", "mapping"},
    {"truncated.yaml", HY_ERR_PARSE, 4, 17, "did not find expected ',' or ']'",
     "line 4, column 10"},
    {"reserved.yaml", HY_ERR_MODEL, 5, 1, "'friction' is not a top-level key",
     "'friction:' mapping of a cylinder"},
    {"duplicate_key.yaml", HY_ERR_MODEL, 4, 5, "duplicate key 'mass'", "line 3, column 5"},
    {"vector_length.yaml", HY_ERR_MODEL, 1, 10, "gravity", "expected a list of 3 numbers"},
    {"inertia_asym.yaml", HY_ERR_MODEL, 2, 5, "inertia", "symmetric"},
    {"inertia_unphysical.yaml", HY_ERR_MODEL, 2, 5, "inertia", "sum of the other two"},
    {"joint_type.yaml", HY_ERR_MODEL, 5, 11, "type", "spherical, free; got 'revolut'"},
    {"alias.yaml", HY_ERR_PARSE, 3, 25, "aliases", "*m"},
    {"csv_missing.yaml", HY_ERR_IO, 6, 24, "file", "no_such.csv"},
    {"csv_bad.yaml", HY_ERR_MODEL, 3, 3, "column 2 (value)", "'1x'"},
    {"cut_unknown_marker.yaml", HY_ERR_MODEL, 12, 5, "cut joint 'close'",
     "marker 'anchr' does not exist"},
    {"cut_missing_marker.yaml", HY_ERR_MODEL, 12, 5,
     "cut_joints[0] 'close': key 'marker_b' is required", "a marker name"},
    {"cut_type.yaml", HY_ERR_MODEL, 13, 11, "type",
     "revolute, spherical, translational; got 'hinge'"},
    {"cut_zero_axis.yaml", HY_ERR_MODEL, 12, 5, "axis_a", "non-zero"},
    {"cut_translational_3d.yaml", HY_ERR_MODEL, 13, 5,
     "3-D translational cut 'rail' needs up_a and up_b", NULL},
    {"nh_unknown_marker.yaml", HY_ERR_MODEL, 15, 5,
     "nonholonomic constraint 'front-wheel': marker 'frnt' does not exist", NULL},
    {"nh_ground.yaml", HY_ERR_MODEL, 14, 5,
     "nonholonomic constraint 'pin': marker 'post' is on ground (a nonholonomic constraint on "
     "ground constrains nothing)",
     NULL},
    {"nh_zero_axis.yaml", HY_ERR_MODEL, 14, 5,
     "nonholonomic constraint 'rear-wheel': axis must be a finite, non-zero vector, got (0, 0, 0)",
     NULL},
    {"nh_not_planar.yaml", HY_ERR_MODEL, 14, 5,
     "nonholonomic constraint 'rear-wheel': axis (0, 0.707107, 0.707107) is not in the plane of "
     "motion (normal (0, 0, 1))",
     "at z = 0 it is (0, 0.707107, 0.707107) in the inertial frame"},
    {"nh_too_many.yaml", HY_ERR_MODEL, 16, 5,
     "nonholonomic constraint 'third-wheel': 3 nonholonomic constraints on a model of 3 "
     "coordinates leave no motion (at most 2)",
     NULL},
    {"nh_duplicate.yaml", HY_ERR_MODEL, 15, 12,
     "nonholonomic[1] 'wheel': name 'wheel' is already used by the nonholonomic constraint at "
     "line 14, column 5",
     "nonholonomic constraint names must be unique"},
    {"nh_missing_axis.yaml", HY_ERR_MODEL, 14, 5,
     "nonholonomic[0] 'rear-wheel': key 'axis' is required (a list of 3 numbers, the marker "
     "body's frame)",
     NULL},
    {"nh_type.yaml", HY_ERR_MODEL, 15, 11, "nonholonomic[0] 'rear-wheel': type",
     "knife_edge; got 'knife'"},
    {"nh_unknown_key.yaml", HY_ERR_MODEL, 16, 5,
     "unknown key 'axle' in nonholonomic constraint 'rear-wheel'",
     "expected one of: name, type, marker, axis"},
    {"nh_axis_length.yaml", HY_ERR_MODEL, 14, 44, "nonholonomic[0] 'rear-wheel': axis",
     "expected a list of 3 numbers, got a list of 2"},
    {"nh_not_list.yaml", HY_ERR_MODEL, 13, 15,
     "nonholonomic: expected a list of nonholonomic constraints, got a mapping", NULL},
    {"force_typo.yaml", HY_ERR_MODEL, 16, 12,
     "force: expected a number (N) or the word "
     "'equilibrium'",
     "got 'equilbrium'"},
    {"planar_true_3d.yaml", HY_ERR_MODEL, 7, 5, "planar: true, but the model is not planar",
     "joint 'j2'"},
    {"solver_iterations.yaml", HY_ERR_MODEL, 13, 19, "max_iterations", "got '2.5'"},
    {"top_formulation.yaml", HY_ERR_MODEL, 11, 1, "'formulation'", "'solver' section"},
    {"top_max_cuts.yaml", HY_ERR_MODEL, 11, 1, "'max_cuts'", "'solver' section"},
};

static const int kNumBad = (int)(sizeof kBad / sizeof kBad[0]);

START_TEST(test_bad_file) {
  const bad_case* c = &kBad[_i];
  char path[512];
  snprintf(path, sizeof path, DATA "bad/%s", c->file);
  hy_model* m = (hy_model*)&m;  // must be reset to NULL on failure
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_test_hook_begin(0);
  hy_status st = hy_model_load(path, &m, &err);
  long live = hy_test_hook_live();
  hy_test_hook_end();
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == c->status, "%s: status %d (%s), expected %d", c->file, st, buf, c->status);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(err.code, c->status);
  ck_assert_msg(err.src_line == c->line && err.src_col == c->col,
                "%s: reported at %d:%d, expected %d:%d (%s)", c->file, err.src_line, err.src_col,
                c->line, c->col, buf);
  ck_assert_msg(strstr(err.msg, c->needle1), "%s: '%s' not in: %s", c->file, c->needle1, buf);
  ck_assert_msg(!c->needle2 || strstr(err.msg, c->needle2), "%s: '%s' not in: %s", c->file,
                c->needle2, buf);
  // The error names the file it is about: the model, or the CSV for errors inside it.
  const char* expect_file = strcmp(c->file, "csv_bad.yaml") == 0 ? "csv_bad.csv" : c->file;
  size_t n = strlen(err.src_path), k = strlen(expect_file);
  ck_assert_msg(n >= k && strcmp(err.src_path + n - k, expect_file) == 0, "%s: src_path is '%s'",
                c->file, err.src_path);
  ck_assert_msg(live == 0, "%s: %ld blocks leaked by the failed load", c->file, live);
}
END_TEST

START_TEST(test_missing_file) {
  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load(DATA "bad/no-such-file.yaml", &m, &err), HY_ERR_IO);
  ck_assert_ptr_null(m);
  ck_assert_ptr_nonnull(strstr(err.src_path, "no-such-file.yaml"));
  // a folder is said to be one, by hy_model_load and by hy_model_load_any (which would
  // otherwise look for a built-in model of that name)
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load(DATA "bad", &m, &err), HY_ERR_IO);
  ck_assert_msg(strstr(err.msg, "it is a directory"), "%s", err.msg);
  ck_assert_str_eq(err.src_path, DATA "bad");
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load_any(DATA "bad", &m, &err), HY_ERR_IO);
  ck_assert_msg(strstr(err.msg, "it is a directory"), "%s", err.msg);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(hy_model_load(NULL, &m, &err), HY_ERR_ARG);
  ck_assert_int_eq(hy_model_load(DATA "io_good.yaml", NULL, NULL), HY_ERR_ARG);
}
END_TEST

//----- built-in models -----------------------------------------------------------------------

START_TEST(test_builtin_by_name) {
  ck_assert_int_ge(hy_builtin_count(), 2);
  ck_assert_ptr_null(hy_builtin_name(-1));
  ck_assert_ptr_null(hy_builtin_name(hy_builtin_count()));
  int found = 0;
  for (int i = 0; i < hy_builtin_count(); i++) {
    found += strcmp(hy_builtin_name(i), "double-pendulum") == 0;
    found += strcmp(hy_builtin_name(i), "tree-10") == 0;
  }
  ck_assert_int_eq(found, 2);

  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_any("double-pendulum", &m, &err), HY_OK);
  ck_assert_str_eq(m->name, "double-pendulum");
  ck_assert_int_eq(m->sizes.nbody, 2);
  hy_model_free(m);

  ck_assert_int_eq(hy_model_load_any("tree-10.yaml", &m, &err), HY_OK);
  ck_assert_int_eq(m->sizes.nbody, 10);
  ck_assert_int_eq(m->opt.integrator, HY_INTEG_RK4);
  ck_assert_double_eq(m->opt.dt, 1e-3);
  ck_assert_double_eq(m->opt.t_end, 5.0);
  hy_model_free(m);

  // a readable file wins over the built-ins
  ck_assert_int_eq(hy_model_load_any(DATA "io_good.yaml", &m, &err), HY_OK);
  ck_assert_str_eq(m->name, "io_good");
  hy_model_free(m);
}
END_TEST

START_TEST(test_builtin_matches_file) {
  // The embedded text is the file in models/.
  hy_model* a = load_ok(HY_SOURCE_DIR "/models/tree-10.yaml");
  hy_model* b = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_any("tree-10", &b, &err), HY_OK);
  ck_assert_int_eq(a->sizes.nz, b->sizes.nz);
  for (int i = 0; i < a->sizes.nz; i++) ck_assert_double_eq(a->z0[i], b->z0[i]);
  for (int i = 0; i < 9 * a->sizes.nbody; i++) {
    ck_assert_double_eq(a->body_inertia[i], b->body_inertia[i]);
  }
  hy_model_free(a);
  hy_model_free(b);
}
END_TEST

START_TEST(test_builtin_missing) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load_any("no-such-model", &m, &err), HY_ERR_IO);
  ck_assert_ptr_null(m);
  ck_assert_ptr_nonnull(strstr(err.msg, "no such file or built-in model 'no-such-model'"));
  ck_assert_ptr_nonnull(strstr(err.msg, "double-pendulum"));
  ck_assert_ptr_nonnull(strstr(err.msg, "tree-10"));
}
END_TEST

//----- memory and robustness -----------------------------------------------------------------

// The good files the memory tests run over (_i of the loop tests).
static const char* const kGood[] = {DATA "io_good.yaml", DATA "io_loops.yaml"};
static const int kNumGood = (int)(sizeof kGood / sizeof kGood[0]);

START_TEST(test_good_load_frees_everything) {
  hy_test_hook_begin(0);
  hy_model* m = load_ok(kGood[_i]);
  hy_model_free(m);
  long live = hy_test_hook_live();
  hy_test_hook_end();
  ck_assert_int_eq(live, 0);
}
END_TEST

START_TEST(test_alloc_failure_each_call) {
  // Fail the 1st, 2nd, ... allocation of a full load in turn: each must end in HY_ERR_NOMEM
  // with nothing left allocated, until the load needs no more allocations than allowed.
  for (long k = 1;; k++) {
    hy_test_hook_begin(k);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    hy_status st = hy_model_load(kGood[_i], &m, &err);
    long calls = hy_test_hook_calls();
    if (st == HY_OK) hy_model_free(m);
    long live = hy_test_hook_live();
    hy_test_hook_end();
    ck_assert_msg(live == 0, "failing allocation %ld: %ld blocks leaked", k, live);
    if (calls < k) {
      ck_assert_int_eq(st, HY_OK);  // the k-th allocation never happened
      ck_assert_int_gt(k, 10);
      break;
    }
    ck_assert_msg(st == HY_ERR_NOMEM, "failing allocation %ld gave %d: %s", k, st, err.msg);
    ck_assert_ptr_null(m);
  }
}
END_TEST

START_TEST(test_truncated_everywhere) {
  // Every prefix of a valid file must load or fail cleanly: no crash, no leak, no silent
  // success without a model, and errors carry a message.
  FILE* f = fopen(kGood[_i], "rb");
  ck_assert_ptr_nonnull(f);
  static char text[1 << 14];
  size_t size = fread(text, 1, sizeof text, f);
  fclose(f);
  ck_assert_int_gt(size, 100);
  for (size_t n = 0; n <= size; n++) {
    hy_test_hook_begin(0);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    hy_status st = hy_model_load_string(text, n, kGood[_i], &m, &err);
    if (st == HY_OK) {
      ck_assert_ptr_nonnull(m);
      hy_model_free(m);
    } else {
      ck_assert_int_lt(st, 0);
      ck_assert_ptr_null(m);
      ck_assert_msg(err.msg[0] != 0, "prefix %zu: empty message", n);
    }
    long live = hy_test_hook_live();
    hy_test_hook_end();
    ck_assert_msg(live == 0, "prefix %zu: %ld blocks leaked", n, live);
  }
}
END_TEST

START_TEST(test_hostile_inputs) {
  static char deep[200001];
  memset(deep, '[', sizeof deep - 1);
  const char* cases[] = {
      deep,
      "bodies: [{name: a, mass: 1}]\njoints: []\n---\nbodies: []\n",
      "\t- tab",
      "bodies:\n  - name: \"a\\0b\"\n    mass: 1\n",
      "bodies:\n  - name: a\n    mass: 1e999\n",
      "bodies:\n  - name: a\n    mass: \"1.5\"\n",
      "bodies:\n  - name: a\n    mass: .inf\n",
      "bodies:\n  - name: a\n    mass: 1\n    inertia: {rod: {length: 1, axis: w}}\n",
      "bodies:\n  - name: a\n    mass: 1\n    inertia: {rod: 1, box: [1, 1, 1]}\n",
      "bodies:\n  - name: a\n    mass: 1\n    inertia: [[1, 0], [0, 1]]\n",
      "bodies:\n  - name: ground\n    mass: 1\n",
      "{? [a, b] : 1}\n",
      "bodies: {a: 1}\n",
      "bodies: []\njoints: []\n",
      "\xff\xfe\x00garbage",  // a UTF-16 byte order mark, then an odd byte count
      "bodies:\n  - name: a\n    mass: 1\n    com: [1, \xc3\x28, 0]\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hy_test_hook_begin(0);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    // the UTF-16 case holds a NUL byte, so its length is given explicitly
    size_t len = strncmp(cases[i], "\xff\xfe", 2) == 0 ? 11 : strlen(cases[i]);
    hy_status st = hy_model_load_string(cases[i], len, "hostile.yaml", &m, &err);
    long live = hy_test_hook_live();
    hy_test_hook_end();
    ck_assert_msg(st < 0, "case %zu loaded", i);
    ck_assert_ptr_null(m);
    ck_assert_msg(err.msg[0] != 0 && err.src_line > 0, "case %zu: %s at %d", i, err.msg,
                  err.src_line);
    ck_assert_msg(live == 0, "case %zu: %ld blocks leaked", i, live);
  }
}
END_TEST

Suite* io_yaml_suite(void) {
  Suite* s = suite_create("io_yaml");
  TCase* tc = tcase_create("good");
  tcase_add_test(tc, test_good_sizes_and_options);
  tcase_add_test(tc, test_good_degrees_to_radians);
  tcase_add_test(tc, test_good_joint_geometry);
  tcase_add_test(tc, test_good_inertia_forms);
  tcase_add_test(tc, test_good_markers_signals_loads);
  tcase_add_test(tc, test_load_string_defaults);
  tcase_add_test(tc, test_good_loops);
  tcase_add_test(tc, test_loops_defaults);
  tcase_add_test(tc, test_knife_edge);
  tcase_add_test(tc, test_knife_edge_plane_rule);
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_doc_example_loads);
  suite_add_tcase(s, tc);
  tc = tcase_create("bad");
  tcase_add_loop_test(tc, test_bad_file, 0, kNumBad);
  tcase_add_test(tc, test_missing_file);
  suite_add_tcase(s, tc);
  tc = tcase_create("builtin");
  tcase_add_test(tc, test_builtin_by_name);
  tcase_add_test(tc, test_builtin_matches_file);
  tcase_add_test(tc, test_builtin_missing);
  suite_add_tcase(s, tc);
  tc = tcase_create("memory");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_good_load_frees_everything, 0, kNumGood);
  tcase_add_loop_test(tc, test_alloc_failure_each_call, 0, kNumGood);
  tcase_add_loop_test(tc, test_truncated_everywhere, 0, kNumGood);
  tcase_add_test(tc, test_hostile_inputs);
  tcase_add_test(tc, test_knife_edge_alloc_failure);
  suite_add_tcase(s, tc);
  return s;
}
