// The planar path of the open-tree dynamics against the 3-D path (hy_mech_dynamics_general),
// which is the truth: on the planar benchmarks and on random planar trees whose plane is tilted
// away from the coordinate planes, with centres of mass, markers, gravity and loads that all
// reach out of the plane, M' and Q' must agree to round-off at random states.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"
#include "mech/mech.h"
#include "sim/sim.h"

#define MAXZ 16

static double urand(unsigned* state, double lo, double hi) {
  *state = *state * 1664525u + 1013904223u;
  return lo + (hi - lo) * ((*state >> 8) / 16777216.0);
}

static void rand_vec(unsigned* st, double v[3], double scale) {
  hy_v3_set(v, urand(st, -scale, scale), urand(st, -scale, scale), urand(st, -scale, scale));
}

static void rand_unit(unsigned* st, double v[3]) {
  do {
    rand_vec(st, v, 1);
  } while (hy_v3_norm(v) < 0.2);
  hy_v3_normalize(v);
}

//----- random planar trees ---------------------------------------------------------------------

// A random branching tree of nbody bodies moving in the plane with the tilted unit normal n:
// joints are revolute (about +-n) or prismatic (along a random in-plane direction), and every
// joint's child axis is random, so the body frames are turned away from the plane in every way.
// Inertias are full tensors in those frames. Loads (one scaled by a signal), markers, gravity and
// the centres of mass all have components along n, and two force elements act between markers (one
// on ground).
static hy_model* planar_tree(unsigned seed, int nbody, const double n[3]) {
  unsigned st = seed;
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_option opt = hy_option_default();
  hy_v3_set(opt.gravity, 1.5, -9.0, 3.5);
  hy_spec_set_option(s, &opt);
  hy_spec_set_name(s, "planar-tree", NULL);
  double rot0[MAXZ * 9];  // body frame -> inertial frame at z = 0, as the compiler finds it
  for (int i = 0; i < nbody; i++) {
    hy_body_def b = hy_body_def_default();
    snprintf(b.name, sizeof b.name, "b%d", i);
    b.mass = urand(&st, 0.5, 5.0);
    rand_vec(&st, b.com, 0.5);
    // principal moments of a box, turned by a random rotation: products of inertia everywhere
    const double ex = urand(&st, 0.1, 1), ey = urand(&st, 0.1, 1), ez = urand(&st, 0.1, 1);
    const double D[9] = {b.mass * (ey * ey + ez * ez) / 12, 0, 0, 0,
                         b.mass * (ex * ex + ez * ez) / 12, 0, 0, 0,
                         b.mass * (ex * ex + ey * ey) / 12};
    double ax[3], R[9], RD[9];
    rand_unit(&st, ax);
    hy_rot_axis_angle(R, ax, urand(&st, 0, 3));
    hy_m3_mul(RD, R, D);
    hy_m3_mulT2(b.inertia, RD, R);
    ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);

    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "j%d", i);
    snprintf(j.child, sizeof j.child, "b%d", i);
    // bodies 0 (revolute: its axis is the plane normal the compiler takes) and 1 (prismatic)
    // hang from ground, the others from random earlier bodies
    int parent = i <= 1 ? -1 : (int)urand(&st, -1.5, (double)i);
    if (parent >= i) parent = i - 1;
    if (parent >= 0) snprintf(j.parent, sizeof j.parent, "b%d", parent);
    j.type = (i % 4 == 1 || i == 2) ? HY_JOINT_PRISMATIC : HY_JOINT_REVOLUTE;
    double dir[3];  // the joint axis in the inertial frame at z = 0
    if (j.type == HY_JOINT_REVOLUTE) {
      hy_v3_scale(dir, n, urand(&st, -1, 1) < 0 ? -1.0 : 1.0);
    } else {
      rand_unit(&st, dir);
      hy_v3_addscl(dir, n, -hy_v3_dot(dir, n));
      hy_v3_normalize(dir);
    }
    static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double* Ap = parent < 0 ? eye : rot0 + 9 * parent;
    hy_m3_mulTv(j.axis, Ap, dir);
    rand_unit(&st, j.child_axis);
    double crot[9];
    hy_rot_align(crot, j.child_axis, j.axis);
    hy_m3_mul(rot0 + 9 * i, Ap, crot);
    rand_vec(&st, j.parent_point, 1);
    rand_vec(&st, j.child_point, 1);
    j.z0 = urand(&st, -1, 1);
    ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  }

  static const char* const mk_names[] = {"m0", "m1", "m2", "m3", "m4"};
  for (int k = 0; k < 5; k++) {
    hy_marker_def mk = hy_marker_def_default();
    snprintf(mk.name, sizeof mk.name, "%s", mk_names[k]);
    if (k == 4) {
      strcpy(mk.body, "ground");
    } else {
      snprintf(mk.body, sizeof mk.body, "b%d", (int)urand(&st, 0, nbody - 0.01));
    }
    rand_vec(&st, mk.point, 1);
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
    rand_vec(&st, ld.vector, 20);
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

//----- the comparison ----------------------------------------------------------------------------

static double max_abs(const double* a, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) r = fmax(r, fabs(a[i]));
  return r;
}

// max |a - b| / max |b|, with max |b| required to be non-zero so that agreement means something.
static double rel_diff(const double* a, const double* b, int n) {
  const double scale = max_abs(b, n);
  ck_assert(scale > 0);
  double worst = 0;
  for (int i = 0; i < n; i++) worst = fmax(worst, fabs(a[i] - b[i]));
  return worst / scale;
}

// What the planar path assumes of the kinematics: b_lin and the body velocities in the plane,
// b_ang and omega along n, no angular acceleration at zdd = 0.
static void check_planar_kinematics(const hy_model* m, const hy_data* d, const hy_mech_work* w) {
  const double* n = m->plane_normal;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const double* b = d->jnt_b + 6 * j;
    const double* Z = d->body_Z + 6 * j;
    double c[3];
    ck_assert(fabs(hy_v3_dot(n, b)) < 1e-12 * (1 + hy_v3_norm(b)));
    hy_v3_cross(c, n, b + 3);
    ck_assert(hy_v3_norm(c) < 1e-12);
    ck_assert(fabs(hy_v3_dot(n, Z)) < 1e-12 * (1 + hy_v3_norm(Z)));
    hy_v3_cross(c, n, Z + 3);
    ck_assert(hy_v3_norm(c) < 1e-12 * (1 + hy_v3_norm(Z + 3)));
    const double w2 = hy_v3_dot(Z + 3, Z + 3);
    ck_assert(hy_v3_norm(w->body_Zd0 + 6 * j + 3) < 1e-12 * (1 + w2));
  }
}

// At `nstate` random states (z, zd, t, force element forces) of model m: hy_mech_dynamics (the
// planar path) against hy_mech_dynamics_general, and the force elements' share of Q' against
// their power. Returns the largest relative difference of M' and Q'.
static double compare_paths(const hy_model* m, unsigned seed, int nstate) {
  ck_assert_int_eq(m->planar, 1);
  const int nz = m->sizes.nz;
  ck_assert_int_le(nz, MAXZ);
  hy_data* d = hy_test_make(m);
  hy_work* w = d->work_;
  unsigned st = seed;
  double worst = 0;
  for (int s = 0; s < nstate; s++) {
    for (int i = 0; i < nz; i++) {
      d->z[i] = m->z0[i] + urand(&st, -1.5, 1.5);
      d->zd[i] = urand(&st, -2, 2);
    }
    d->time = urand(&st, 0, 2);
    hy_mech_kinematics(m, d, &w->mech);
    hy_mech_force_geometry(m, d);
    for (int k = 0; k < m->sizes.nfrc; k++) d->frc_force[k] = urand(&st, -5e3, 5e3);
    check_planar_kinematics(m, d, &w->mech);

    double M[MAXZ * MAXZ], Q[MAXZ], loads[3 * 8];
    ck_assert_int_le(m->sizes.nload, 8);
    hy_mech_dynamics(m, d, &w->mech);
    memcpy(M, d->M, sizeof(double) * (size_t)(nz * nz));
    memcpy(Q, d->Q, sizeof(double) * (size_t)nz);
    memcpy(loads, w->mech.load_val, sizeof(double) * 3 * (size_t)m->sizes.nload);
    memset(w->mech.load_val, 0, sizeof(double) * 3 * (size_t)m->sizes.nload);
    hy_mech_dynamics_general(m, d, &w->mech);
    const double eM = rel_diff(M, d->M, nz * nz), eQ = rel_diff(Q, d->Q, nz);
    ck_assert_msg(eM < 1e-11 && eQ < 1e-11, "%s, state %d: relative difference M' %.3g, Q' %.3g",
                  m->name, s, eM, eQ);
    worst = fmax(worst, fmax(eM, eQ));
    // the loads the power of hy_mech_load_power is computed from
    for (int k = 0; k < 3 * m->sizes.nload; k++) ck_assert(loads[k] == w->mech.load_val[k]);

    // both paths apply the force elements with the same code, so check that code against their
    // power: (Q'(F) - Q'(0)) . zd = sum F_k rate_k
    double power = 0, scale = 0, Q0_zd = 0, Q_zd = 0;
    for (int k = 0; k < m->sizes.nfrc; k++) {
      power += d->frc_force[k] * d->frc_rate[k];
      scale += fabs(d->frc_force[k] * d->frc_rate[k]);
      d->frc_force[k] = 0;
    }
    hy_mech_dynamics(m, d, &w->mech);
    for (int i = 0; i < nz; i++) {
      Q_zd += Q[i] * d->zd[i];
      Q0_zd += d->Q[i] * d->zd[i];
    }
    ck_assert_msg(fabs(Q_zd - Q0_zd - power) <= 1e-11 * (scale + fabs(Q_zd) + fabs(Q0_zd)),
                  "%s, state %d: force element power %.15g, from Q' %.15g", m->name, s, power,
                  Q_zd - Q0_zd);
  }
  hy_data_free(d);
  return worst;
}

START_TEST(benchmarks_match_3d_path) {
  static const char* const models[] = {"four-bar-a", "quick-return", "crane",
                                       "tests/data/crank_rocker.yaml"};
  for (int k = 0; k < 4; k++) {
    hy_model* m = hy_test_load(models[k]);
    const double e = compare_paths(m, 100u + (unsigned)k, 5);
    printf("planar vs 3-D dynamics, %s: max relative difference %.2g\n", models[k], e);
    hy_model_free(m);
  }
}
END_TEST

START_TEST(random_planar_trees_match_3d_path) {
  double worst = 0;
  for (unsigned seed = 1; seed <= 7; seed++) {
    unsigned st = seed * 977u;
    double n[3];
    // a normal well away from every coordinate axis
    do {
      rand_unit(&st, n);
    } while (fabs(n[0]) < 0.3 || fabs(n[1]) < 0.3 || fabs(n[2]) < 0.3);
    hy_model* m = planar_tree(seed, 5 + (int)seed, n);
    ck_assert(fabs(fabs(hy_v3_dot(m->plane_normal, n)) - 1) < 1e-12);
    worst = fmax(worst, compare_paths(m, seed * 31u, 5));
    hy_model_free(m);
  }
  printf("planar vs 3-D dynamics, random planar trees: max relative difference %.2g\n", worst);
}
END_TEST

Suite* mech_planar_suite(void) {
  Suite* s = suite_create("mech_planar");
  TCase* tc = tcase_create("planar");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, benchmarks_match_3d_path);
  tcase_add_test(tc, random_planar_trees_match_3d_path);
  suite_add_tcase(s, tc);
  return s;
}
