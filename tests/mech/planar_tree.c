// Random numbers, inertias and planar trees, shared by the tests of src/mech.
#include "planar_tree.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"

#define MAX_BODIES 16

double random_uniform(unsigned* state, double lo, double hi) {
  *state = *state * 1664525u + 1013904223u;
  return lo + (hi - lo) * ((*state >> 8) / 16777216.0);
}

void random_vec(unsigned* st, double v[3], double scale) {
  hy_v3_set(v, random_uniform(st, -scale, scale), random_uniform(st, -scale, scale),
            random_uniform(st, -scale, scale));
}

void random_unit(unsigned* st, double v[3]) {
  do {
    random_vec(st, v, 1);
  } while (hy_v3_norm(v) < 0.2);
  hy_v3_normalize(v);
}

void random_box_inertia(unsigned* st, double mass, double inertia[9]) {
  const double ex = random_uniform(st, 0.1, 1), ey = random_uniform(st, 0.1, 1),
               ez = random_uniform(st, 0.1, 1);
  const double D[9] = {mass * (ey * ey + ez * ez) / 12, 0, 0, 0, mass * (ex * ex + ez * ez) / 12,
                       0, 0, 0, mass * (ex * ex + ey * ey) / 12};
  double ax[3], R[9], RD[9];
  random_unit(st, ax);
  hy_rot_axis_angle(R, ax, random_uniform(st, 0, 3));
  hy_m3_mul(RD, R, D);
  hy_m3_mulT2(inertia, RD, R);
}

void random_tilted_normal(unsigned* st, double n[3]) {
  do {
    random_unit(st, n);
  } while (fabs(n[0]) < 0.3 || fabs(n[1]) < 0.3 || fabs(n[2]) < 0.3);
}

static hy_model* random_planar(unsigned seed, int nbody, const double n[3], int chain) {
  unsigned st = seed;
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_option opt = hy_option_default();
  hy_v3_set(opt.gravity, 1.5, -9.0, 3.5);
  hy_spec_set_option(s, &opt);
  hy_spec_set_name(s, "planar-tree", NULL);
  ck_assert_int_le(nbody, MAX_BODIES);
  double rot0[MAX_BODIES * 9];  // body frame -> inertial frame at z = 0, as the compiler finds it
  for (int i = 0; i < nbody; i++) {
    hy_body_def b = hy_body_def_default();
    snprintf(b.name, sizeof b.name, "b%d", i);
    b.mass = random_uniform(&st, 0.5, 5.0);
    random_vec(&st, b.com, 0.5);
    random_box_inertia(&st, b.mass, b.inertia);
    ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);

    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "j%d", i);
    snprintf(j.child, sizeof j.child, "b%d", i);
    // bodies 0 (revolute: its axis is the plane normal the compiler takes) and 1 (prismatic)
    // hang from ground, the others from random earlier bodies
    int parent = i <= 1 ? -1 : (int)random_uniform(&st, -1.5, (double)i);
    if (parent >= i || chain) parent = i - 1;
    if (parent >= 0) snprintf(j.parent, sizeof j.parent, "b%d", parent);
    j.type = (i % 4 == 1 || i == 2) ? HY_JOINT_PRISMATIC : HY_JOINT_REVOLUTE;
    double dir[3];  // the joint axis in the inertial frame at z = 0
    if (j.type == HY_JOINT_REVOLUTE) {
      hy_v3_scale(dir, n, random_uniform(&st, -1, 1) < 0 ? -1.0 : 1.0);
    } else {
      random_unit(&st, dir);
      hy_v3_addscl(dir, n, -hy_v3_dot(dir, n));
      hy_v3_normalize(dir);
    }
    static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double* Ap = parent < 0 ? eye : rot0 + 9 * parent;
    hy_m3_mulTv(j.axis, Ap, dir);
    random_unit(&st, j.child_axis);
    double crot[9];
    hy_rot_align(crot, j.child_axis, j.axis);
    hy_m3_mul(rot0 + 9 * i, Ap, crot);
    random_vec(&st, j.parent_point, 1);
    random_vec(&st, j.child_point, 1);
    // some revolute joints sit on the body's normal through its origin, out of the plane
    if (j.type == HY_JOINT_REVOLUTE && i % 3 == 0) {
      hy_v3_scale(j.child_point, j.child_axis, j.child_point[0]);
    }
    j.z0 = random_uniform(&st, -1, 1);
    ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  }

  static const char* const mk_names[] = {"m0", "m1", "m2", "m3", "m4"};
  for (int k = 0; k < 5; k++) {
    hy_marker_def mk = hy_marker_def_default();
    snprintf(mk.name, sizeof mk.name, "%s", mk_names[k]);
    if (k == 4) {
      strcpy(mk.body, "ground");
    } else {
      snprintf(mk.body, sizeof mk.body, "b%d", (int)random_uniform(&st, 0, nbody - 0.01));
    }
    random_vec(&st, mk.point, 1);
    ck_assert_int_eq(hy_spec_add_marker(s, &mk), HY_OK);
  }
  const double sig_t[3] = {0, 1, 2}, sig_v[3] = {0.5, 2.0, -1.0};
  hy_signal_def sg = hy_signal_def_default();
  strcpy(sg.name, "ramp");
  sg.npoint = 3;
  sg.t = sig_t;
  sg.value = sig_v;
  ck_assert_int_eq(hy_spec_add_signal(s, &sg), HY_OK);
  hy_load_def ld = hy_load_def_default();
  for (int k = 0; k < 4; k++) {
    snprintf(ld.name, sizeof ld.name, "l%d", k);
    snprintf(ld.marker, sizeof ld.marker, "%s", mk_names[k]);
    ld.type = k == 1 ? HY_LOAD_TORQUE : HY_LOAD_FORCE;
    random_vec(&st, ld.vector, 20);
    strcpy(ld.signal, k == 2 ? "ramp" : "");
    ck_assert_int_eq(hy_spec_add_load(s, &ld), HY_OK);
  }
  hy_force_def fd = hy_force_def_default();
  const char* const ends[2][2] = {{"m4", "m0"}, {"m1", "m3"}};
  for (int k = 0; k < 2; k++) {
    snprintf(fd.name, sizeof fd.name, "f%d", k);
    strcpy(fd.marker_a, ends[k][0]);
    strcpy(fd.marker_b, ends[k][1]);
    fd.value = 100;
    ck_assert_int_eq(hy_spec_add_force(s, &fd), HY_OK);
  }

  hy_model* m = NULL;
  hy_error err;
  const hy_status stc = hy_model_compile(s, &m, &err);
  ck_assert_msg(stc == HY_OK, "compile: %s", err.msg);
  hy_spec_free(s);
  return m;
}

hy_model* random_planar_tree(unsigned seed, int nbody, const double n[3]) {
  return random_planar(seed, nbody, n, 0);
}

hy_model* random_planar_chain(unsigned seed, int nbody, const double n[3]) {
  return random_planar(seed, nbody, n, 1);
}
