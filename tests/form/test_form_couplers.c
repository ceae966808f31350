// Joint couplers (docs/model-format.md, "couplers"): phi = z_a - ratio z_b - offset joins the
// holonomic rows. A rack and pinion and a gear pair against their closed-form motion under a
// constant load, from rest (the trapezoidal rule integrates the quadratic exactly, so what is
// left is the Newton tolerance and the penalty's violation), with the work of the loads against
// the kinetic energy; the coupler's row against differences; the offset in a model file's
// degrees; the builder; the formulations that refuse couplers; and bad input, each with its file,
// line and column.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"
#include "model/model.h"

// The rack and pinion: a disk of inertia J about its revolute axis z ("pinion"), a rack of mass
// m sliding along x below it ("slide"), geared with the pitch radius r (x = r theta: the point
// (0, -r) of a disk turning about +z moves along +x), and a force F along the rack.
static const double kJ = 0.02, kMass = 3, kR = 0.05, kF = 10;

static const char kRackFmt[] =
    "name: rack-pinion\n"
    "%s"
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - {name: disk, mass: 2, inertia: [0.01, 0.01, %.17g]}\n"
    "  - {name: rack, mass: %.17g}\n"
    "joints:\n"
    "  - {name: pinion, type: revolute, parent: ground, child: disk, axis: [0, 0, 1]}\n"
    "  - {name: slide, type: prismatic, parent: ground, child: rack, parent_point: [0, -0.05, 0],\n"
    "     axis: [1, 0, 0]}\n"
    "markers:\n"
    "  - {name: push, body: rack, point: [0.1, 0, 0]}\n"
    "loads:\n"
    "  - {name: F, type: force, marker: push, vector: [%.17g, 0, 0]}\n"
    "couplers:\n"
    "  - {name: mesh, joint_a: slide, joint_b: pinion, ratio: %.17g}\n";

static hy_model* rack_model(const char* head, hy_formulation form) {
  char text[2048];
  snprintf(text, sizeof text, kRackFmt, head, kJ, kMass, kF, kR);
  hy_model* m = hy_test_load_text(text, "mem/rack.yaml");
  m->opt.formulation = form;
  m->opt.dt = 1e-3;
  return m;
}

// Largest errors over a run from rest against theta(t) = 0.5 F r / (J + m r^2) t^2 and
// x = r theta, of |phi|, and of the energy balance E_kin = F x (the force's work).
typedef struct run_errors {
  double a, b;    // coordinates a and b against the closed form (m or rad)
  double rate;    // the velocity of b against the closed form (m/s or rad/s)
  double phi;     // largest |phi| seen by the test
  double energy;  // |E_kin - work of the loads| (J)
  double scale;   // largest |b| of the run, for relative figures
} run_errors;

static run_errors rack_run(const char* head, hy_formulation form, long steps) {
  hy_model* m = rack_model(head, form);
  hy_data* d = hy_test_make(m);
  const int th = m->jnt_zadr[hy_model_joint(m, "pinion")];
  const int x = m->jnt_zadr[hy_model_joint(m, "slide")];
  const double acc = kF * kR / (kJ + kMass * kR * kR);
  run_errors e = {0, 0, 0, 0, 0, 0};
  for (long s = 0; s < steps; s++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    const double t = d->time, th_e = 0.5 * acc * t * t;
    e.b = fmax(e.b, fabs(d->z[th] - th_e));
    e.a = fmax(e.a, fabs(d->z[x] - kR * th_e));
    e.rate = fmax(e.rate, fabs(d->zd[th] - acc * t));
    e.phi = fmax(e.phi, fabs(d->z[x] - kR * d->z[th]));
    e.energy = fmax(e.energy, fabs(d->energy_kin - kF * d->z[x]));
    e.scale = fmax(e.scale, fabs(th_e));
  }
  // the library's own violation is the same |phi|
  ck_assert_double_le(d->stats.violation_max, 2 * e.phi + 1e-15);
  hy_data_free(d);
  hy_model_free(m);
  return e;
}

// Penalty and double-step, planar and with the 3-D engine: 0.5 s at 1 ms, theta up to 2.3 rad.
START_TEST(rack_and_pinion_follows_its_closed_form) {
  const hy_formulation forms[2] = {HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  const char* heads[2] = {"", "planar: false\n"};
  for (int f = 0; f < 2; f++) {
    for (int h = 0; h < 2; h++) {
      const run_errors e = rack_run(heads[h], forms[f], 500);
      ck_assert_msg(e.scale > 2, "the run moved %.3g rad", e.scale);
      // within the Newton tolerance tol_position = 1e-7 rad; measured: theta 2.3e-10 rad
      // (penalty), 4.2e-12 rad (double-step), |phi| 8e-16 m, energy 2.3e-10 J
      ck_assert_msg(e.b < 1e-7 && e.a < 1e-7 * kR && e.rate < 1e-6,
                    "form %d, %s: theta off by %.3g rad, x by %.3g m, rate by %.3g rad/s", f,
                    h ? "3-D" : "planar", e.b, e.a, e.rate);
      ck_assert_msg(e.phi < 1e-12, "form %d, %s: |phi| up to %.3g m", f, h ? "3-D" : "planar",
                    e.phi);
      ck_assert_msg(e.energy < 1e-7, "form %d, %s: E_kin - F x up to %.3g J", f,
                    h ? "3-D" : "planar", e.energy);
    }
  }
}
END_TEST

// The gear pair: two disks turning about z at x = 0 and x = 0.3 m, of inertias J1, J2 and pitch
// radii r1, r2 (in mesh: r1 theta1 = -r2 theta2, ratio -r2/r1), driven by torques T1, T2. In
// theta2: (J2 + rho^2 J1) theta2_ddot = T2 + rho T1 with rho = -r2/r1.
static const double kJ1 = 0.05, kJ2 = 0.01, kR1 = 0.2, kR2 = 0.1, kT1 = 2, kT2 = 3;

static const char kGearFmt[] =
    "name: gears\n"
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - {name: wheel1, mass: 1, inertia: [%.17g, %.17g, %.17g]}\n"
    "  - {name: wheel2, mass: 1, inertia: [%.17g, %.17g, %.17g]}\n"
    "joints:\n"
    "  - {name: g1, type: revolute, parent: ground, child: wheel1}\n"
    "  - {name: g2, type: revolute, parent: ground, child: wheel2, parent_point: [0.3, 0, 0]%s}\n"
    "markers:\n"
    "  - {name: hub1, body: wheel1}\n"
    "  - {name: hub2, body: wheel2}\n"
    "loads:\n"
    "  - {name: T1, type: torque, marker: hub1, vector: [0, 0, %.17g]}\n"
    "  - {name: T2, type: torque, marker: hub2, vector: [0, 0, %.17g]}\n"
    "couplers:\n"
    "  - {name: mesh, joint_a: g1, joint_b: g2, ratio: %.17g%s}\n";

static hy_model* gear_model(const char* z0, const char* offset) {
  char text[2048];
  snprintf(text, sizeof text, kGearFmt, kJ1 / 2, kJ1 / 2, kJ1, kJ2 / 2, kJ2 / 2, kJ2, z0, kT1, kT2,
           -kR2 / kR1, offset);
  return hy_test_load_text(text, "mem/gears.yaml");
}

START_TEST(gear_pair_follows_its_closed_form) {
  const hy_formulation forms[2] = {HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  const double rho = -kR2 / kR1, acc = (kT2 + rho * kT1) / (kJ2 + rho * rho * kJ1);
  for (int f = 0; f < 2; f++) {
    hy_model* m = gear_model("", "");
    m->opt.formulation = forms[f];
    m->opt.dt = 1e-3;
    hy_data* d = hy_test_make(m);
    const int z1 = m->jnt_zadr[hy_model_joint(m, "g1")], z2 = m->jnt_zadr[hy_model_joint(m, "g2")];
    double e1 = 0, e2 = 0, ephi = 0, eE = 0, scale = 0;
    for (long s = 0; s < 500; s++) {
      ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
      const double t = d->time, th2 = 0.5 * acc * t * t;
      e2 = fmax(e2, fabs(d->z[z2] - th2));
      e1 = fmax(e1, fabs(d->z[z1] - rho * th2));
      ephi = fmax(ephi, fabs(d->z[z1] - rho * d->z[z2]));
      eE = fmax(eE, fabs(d->energy_kin - (kT1 * d->z[z1] + kT2 * d->z[z2])));
      scale = fmax(scale, fabs(th2));
    }
    ck_assert_msg(scale > 10, "the run turned %.3g rad", scale);
    // within the Newton tolerance tol_position = 1e-7 rad; measured: theta2 5.8e-8 rad
    // (penalty), 2.4e-11 rad (double-step); energy 2.3e-7 J, 1.5e-10 J of 22 J
    ck_assert_msg(e1 < 1e-7 && e2 < 1e-7, "form %d: theta1 off by %.3g, theta2 by %.3g rad", f, e1,
                  e2);
    ck_assert_msg(ephi < 1e-12, "form %d: |phi| up to %.3g rad", f, ephi);
    ck_assert_msg(eE < 1e-6, "form %d: E_kin - work up to %.3g J", f, eE);
    // the kinetic energy at the end is the closed form's, (J2 + rho^2 J1) theta2_dot^2 / 2
    const double w2 = acc * d->time;
    ck_assert_double_eq_tol(d->energy_kin, 0.5 * (kJ2 + rho * rho * kJ1) * w2 * w2,
                            1e-7 * d->energy_kin);
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

// phi and its row at an arbitrary state, by hy_forward: phi = z_a - ratio z_b - offset, and
// the row against central differences of phi (it is linear: they are exact to round-off).
START_TEST(coupler_row_matches_differences) {
  hy_model* m = rack_model("", HY_FORM_PENALTY);
  hy_data* d = hy_test_make(m);
  const int nz = m->sizes.nz, k = hy_model_coupler(m, "mesh");
  ck_assert_int_eq(k, 0);
  ck_assert_int_eq(m->sizes.ncpl, 1);
  ck_assert_int_eq(m->sizes.neq, 1);
  const int r = m->cpl_eqadr[k];
  const double z[2] = {0.7, -0.3};
  memcpy(d->z, z, sizeof z);
  ck_assert_int_eq(hy_forward(m, d), HY_OK);
  const int th = m->jnt_zadr[hy_model_joint(m, "pinion")];
  const int x = m->jnt_zadr[hy_model_joint(m, "slide")];
  ck_assert_double_eq_tol(d->phi[r], z[x] - kR * z[th], 1e-15);
  ck_assert_double_eq(d->phi_bias[r], 0.0);
  double row[2];
  memcpy(row, d->phi_z + (size_t)r * nz, sizeof row);
  for (int i = 0; i < nz; i++) {
    const double e = 1e-3;
    double zp[2], zm[2];
    memcpy(zp, z, sizeof z);
    memcpy(zm, z, sizeof z);
    zp[i] += e;
    zm[i] -= e;
    memcpy(d->z, zp, sizeof zp);
    ck_assert_int_eq(hy_forward(m, d), HY_OK);
    const double pp = d->phi[r];
    memcpy(d->z, zm, sizeof zm);
    ck_assert_int_eq(hy_forward(m, d), HY_OK);
    const double fd = (pp - d->phi[r]) / (2 * e);
    ck_assert_msg(fabs(fd - row[i]) < 1e-12, "row[%d] %.15g, differences %.15g", i, row[i], fd);
  }
  ck_assert_double_eq(row[x], 1.0);
  ck_assert_double_eq(row[th], -kR);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A given offset is in the unit of joint_a as a model file writes it (degrees for a revolute
// joint); without one the coupler closes at z0. The initial closure moves the dependent
// coordinate onto phi = 0.
START_TEST(offset_in_degrees_and_derived) {
  const double deg = 3.14159265358979323846 / 180;
  hy_model* m = gear_model(", z0: 30", "");
  const double rho = -kR2 / kR1;
  ck_assert_double_eq_tol(m->cpl_offset[0], -rho * 30 * deg, 1e-15);  // z0_a - ratio z0_b
  hy_model_free(m);
  m = gear_model(", z0: 30", ", offset: 10");
  ck_assert_double_eq_tol(m->cpl_offset[0], 10 * deg, 1e-15);
  const hy_formulation forms[2] = {HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  for (int f = 0; f < 2; f++) {
    m->opt.formulation = forms[f];
    hy_data* d = hy_test_make(m);
    const int z1 = m->jnt_zadr[hy_model_joint(m, "g1")], z2 = m->jnt_zadr[hy_model_joint(m, "g2")];
    ck_assert_msg(fabs(d->z[z1] - rho * d->z[z2] - 10 * deg) < 1e-10,
                  "form %d: closed at theta1 %.9g, theta2 %.9g rad", f, d->z[z1], d->z[z2]);
    hy_data_free(d);
  }
  hy_model_free(m);
  // a prismatic joint_a: the offset in metres, as written
  char text[2048];
  snprintf(text, sizeof text,
           "bodies:\n"
           "  - {name: disk, mass: 1, inertia: [1, 1, 1]}\n"
           "  - {name: rack, mass: 1}\n"
           "joints:\n"
           "  - {name: pinion, type: revolute, parent: ground, child: disk}\n"
           "  - {name: slide, type: prismatic, parent: ground, child: rack, axis: [1, 0, 0]}\n"
           "couplers:\n"
           "  - {name: mesh, joint_a: slide, joint_b: pinion, ratio: 0.05, offset: 0.01}\n");
  m = hy_test_load_text(text, "mem/rack.yaml");
  ck_assert_double_eq(m->cpl_offset[0], 0.01);
  hy_model_free(m);
}
END_TEST

// The builder gives what the file gives.
START_TEST(builder_makes_the_gear_pair) {
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  for (int i = 0; i < 2; i++) {
    hy_body_def b = hy_body_def_default();
    snprintf(b.name, sizeof b.name, "wheel%d", i + 1);
    b.mass = 1;
    b.inertia[8] = i == 0 ? kJ1 : kJ2;  // a disk
    b.inertia[0] = b.inertia[4] = b.inertia[8] / 2;
    ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "g%d", i + 1);
    snprintf(j.parent, sizeof j.parent, "ground");
    snprintf(j.child, sizeof j.child, "wheel%d", i + 1);
    j.parent_point[0] = 0.3 * i;
    j.z0 = 0.25 * i;
    ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  }
  hy_coupler_def c = hy_coupler_def_default();
  ck_assert(isnan(c.offset));
  ck_assert_double_eq(c.ratio, 1.0);
  snprintf(c.name, sizeof c.name, "mesh");
  snprintf(c.joint_a, sizeof c.joint_a, "g1");
  snprintf(c.joint_b, sizeof c.joint_b, "g2");
  c.ratio = -0.5;
  ck_assert_int_eq(hy_spec_add_coupler(s, &c), HY_OK);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_msg(hy_model_compile(s, &m, &err) == HY_OK, "%s", err.msg);
  ck_assert_int_eq(m->cpl_jnt[0], hy_model_joint(m, "g1"));
  ck_assert_int_eq(m->cpl_jnt[1], hy_model_joint(m, "g2"));
  ck_assert_double_eq(m->cpl_offset[0], 0.125);  // 0 - (-0.5)(0.25)
  hy_model_free(m);
  // a ratio of 0 is refused by hy_model_check, without a position
  s->couplers[0].ratio = 0;
  ck_assert_int_eq(hy_model_compile(s, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg,
                   "coupler 'mesh': ratio must be a finite number with 1e-06 <= |ratio| <= "
                   "1e+06 (-), got 0");
  ck_assert_int_eq(err.src_line, 0);
  hy_spec_free(s);
}
END_TEST

// auto picks penalty; the formulations that build their own constraints refuse, naming the
// coupler.
START_TEST(formulations_that_take_couplers) {
  hy_model* m = rack_model("", HY_FORM_AUTO);
  hy_data* d = hy_test_make(m);
  ck_assert_int_eq(d->formulation, HY_FORM_PENALTY);
  hy_data_free(d);
  const hy_formulation refused[5] = {HY_FORM_TREE, HY_FORM_ALI1, HY_FORM_ALI3P, HY_FORM_DCA,
                                     HY_FORM_HDCA};
  const char* names[5] = {"tree", "ali1", "ali3p", "dca", "hdca"};
  for (int f = 0; f < 5; f++) {
    m->opt.formulation = refused[f];
    hy_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
    char want[256];
    snprintf(want, sizeof want,
             "formulation %s cannot run model 'rack-pinion': it has 1 coupler (coupler 'mesh'); "
             "use penalty or double-step",
             names[f]);
    ck_assert_str_eq(err.msg, want);
  }
  hy_model_free(m);
}
END_TEST

// Bad input: the message names the file, the line and column of the coupler, and the fault
// (hy_test_expect_load_error).
static const char kBadHead[] =
    "bodies:\n"
    "  - {name: disk, mass: 1, inertia: [1, 1, 1]}\n"
    "  - {name: rack, mass: 1}\n"
    "  - {name: ball, mass: 1, inertia: [1, 1, 1]}\n"
    "joints:\n"
    "  - {name: pinion, type: revolute, parent: ground, child: disk}\n"
    "  - {name: slide, type: prismatic, parent: ground, child: rack, axis: [1, 0, 0]}\n"
    "  - {name: knuckle, type: spherical, parent: rack, child: ball}\n"
    "couplers:\n"
    "  - {name: ok, joint_a: slide, joint_b: pinion, ratio: 0.05}\n";

START_TEST(bad_couplers_are_refused_with_their_place) {
  char text[2048];
  snprintf(text, sizeof text, "%s  - {name: c, joint_a: slide, joint_b: gear, ratio: 1}\n",
           kBadHead);
  hy_test_expect_load_error(text, "coupler 'c': joint_b: joint 'gear' does not exist", 11, 5);
  snprintf(text, sizeof text,
           "%s  - name: c\n    joint_a: knuckle\n    joint_b: pinion\n"
           "    ratio: 1\n",
           kBadHead);
  hy_test_expect_load_error(
      text,
      "coupler 'c': joint_a: joint 'knuckle' is a spherical joint of 3 coordinates; a "
      "coupler couples joints of one coordinate (revolute or prismatic)",
      11, 5);
  snprintf(text, sizeof text, "%s  - {name: c, joint_a: slide, joint_b: pinion, ratio: 0}\n",
           kBadHead);
  hy_test_expect_load_error(
      text,
      "coupler 'c': ratio must be a finite number with 1e-06 <= |ratio| <= 1e+06 "
      "(m/rad), got 0",
      11, 5);
  snprintf(text, sizeof text, "%s  - {name: c, joint_a: pinion, joint_b: pinion, ratio: 2}\n",
           kBadHead);
  hy_test_expect_load_error(text, "coupler 'c': joint_a and joint_b are the same joint 'pinion'",
                            11, 5);
  snprintf(text, sizeof text, "%s  - {name: ok, joint_a: pinion, joint_b: slide, ratio: 2}\n",
           kBadHead);
  hy_test_expect_load_error(
      text,
      "couplers[1] 'ok': name 'ok' is already used by the coupler at line 10, column 5 "
      "(coupler names must be unique)",
      11, 12);
}
END_TEST

Suite* form_couplers_suite(void) {
  Suite* s = suite_create("form_couplers");
  TCase* tc = tcase_create("couplers");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, rack_and_pinion_follows_its_closed_form);
  tcase_add_test(tc, gear_pair_follows_its_closed_form);
  tcase_add_test(tc, coupler_row_matches_differences);
  tcase_add_test(tc, offset_in_degrees_and_derived);
  tcase_add_test(tc, builder_makes_the_gear_pair);
  tcase_add_test(tc, formulations_that_take_couplers);
  tcase_add_test(tc, bad_couplers_are_refused_with_their_place);
  suite_add_tcase(s, tc);
  return s;
}
