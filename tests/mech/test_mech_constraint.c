// Cut-joint constraints and force-element geometry against independent truths: Phi_z against
// central differences of Phi, the bias Phi_z_dot zd against the second directional difference
// of Phi along zd, the point Jacobian against differences of marker positions, and actuator
// length and rate against differences of the length. The states are random and off the
// constraint manifold, on the two seed-000 benchmarks, a random 3-D loop closed by a spherical
// joint, random 3-D trees with every cut type, and random planar trees. The benchmarks are also
// checked against the numbers of seed 000 Sect. 5 and ../shared/seeds/quick_return.md.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"
#include "mech/mech.h"
#include "planar_tree.h"

#define MODELS HY_SOURCE_DIR "/models/"
#define MAXZ 32
#define MAXEQ 48

//----- data for the mechanics alone ------------------------------------------------------------

// The mechanics are tested on their own: the test lays out the hy_data arrays they read and
// write and a hy_mech_work, without hy_data_make (whose hy_forward would run a formulation, and
// perhaps assemble the random loops, which need not close).
typedef struct test_data {
  hy_data* d;
  hy_mech_work w;
  double* buf;
} test_data;

static test_data data_make(const hy_model* m) {
  test_data t;
  const size_t nb = (size_t)m->sizes.nbody, nz = (size_t)m->sizes.nz;
  const size_t nm = (size_t)m->sizes.nmrk, neq = (size_t)m->sizes.neq;
  const size_t nf = (size_t)m->sizes.nfrc;
  const size_t n = 3 * nz + nb * (3 + 9 + 3 + 6 + 6 + 6 + 6) + 6 * nm + neq * (nz + 3) + 6 * nf +
                   hy_mech_work_size(m, 1) + 1;
  t.d = calloc(1, sizeof *t.d);
  t.buf = calloc(n, sizeof(double));
  ck_assert_ptr_nonnull(t.d);
  ck_assert_ptr_nonnull(t.buf);
  hy_data* d = t.d;
  double* p = t.buf;
#define TAKE_(field, count) \
  field = p;                \
  p += (count);
  TAKE_(d->z, nz)
  TAKE_(d->zd, nz)
  TAKE_(d->zdd, nz)
  TAKE_(d->body_pos, 3 * nb)
  TAKE_(d->body_rot, 9 * nb)
  TAKE_(d->body_com, 3 * nb)
  TAKE_(d->body_Z, 6 * nb)
  TAKE_(d->body_Zd, 6 * nb)
  TAKE_(d->jnt_b, 6 * nb)
  TAKE_(d->jnt_d, 6 * nb)
  TAKE_(d->mrk_pos, 3 * nm)
  TAKE_(d->mrk_vel, 3 * nm)
  TAKE_(d->phi, neq)
  TAKE_(d->phi_z, neq * nz)
  TAKE_(d->phi_bias, neq)
  TAKE_(d->lam, neq)
  TAKE_(d->frc_force, nf)
  TAKE_(d->frc_len, nf)
  TAKE_(d->frc_rate, nf)
  TAKE_(d->frc_dir, 3 * nf)
#undef TAKE_
  hy_mech_work_bind(m, &t.w, p, 1);
  return t;
}

static void data_free(test_data* t) {
  free(t->buf);
  free(t->d);
}

// Kinematics, constraints and force geometry at (z, zd).
static void eval_at(const hy_model* m, test_data* t, const double* z, const double* zd) {
  hy_data* d = t->d;
  const size_t nz = (size_t)m->sizes.nz;
  memcpy(d->z, z, nz * sizeof(double));
  memcpy(d->zd, zd, nz * sizeof(double));
  hy_mech_kinematics(m, d, &t->w);
  hy_mech_constraints(m, d, &t->w);
  hy_mech_force_geometry(m, d);
}

static double max_abs(const double* a, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) r = fmax(r, fabs(a[i]));
  return r;
}

// Constraints at the model's initial state.
static void eval_initial(const hy_model* m, test_data* t) { eval_at(m, t, m->z0, m->zd0); }

//----- random models ---------------------------------------------------------------------------

static double urand(unsigned* state, double lo, double hi) {
  *state = *state * 1664525u + 1013904223u;
  return lo + (hi - lo) * ((*state >> 8) / 16777216.0);
}

static void rand_unit(unsigned* st, double v[3]) {
  do {
    hy_v3_set(v, urand(st, -1, 1), urand(st, -1, 1), urand(st, -1, 1));
  } while (hy_v3_norm(v) < 0.2);
  hy_v3_normalize(v);
}

// A random unit vector perpendicular to the unit vector a.
static void rand_perp(unsigned* st, const double a[3], double u[3]) {
  do {
    rand_unit(st, u);
    hy_v3_addscl(u, a, -hy_v3_dot(u, a));
  } while (hy_v3_norm(u) < 0.2);
  hy_v3_normalize(u);
}

static void add_body(hy_spec* s, unsigned* st, const char* name) {
  hy_body_def b = hy_body_def_default();
  snprintf(b.name, sizeof b.name, "%s", name);
  b.mass = urand(st, 0.5, 5.0);
  hy_v3_set(b.com, urand(st, -0.5, 0.5), urand(st, -0.5, 0.5), urand(st, -0.5, 0.5));
  const double I = b.mass * 0.05;
  b.inertia[0] = I;
  b.inertia[4] = 1.2 * I;
  b.inertia[8] = 1.4 * I;
  ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
}

static void add_marker(hy_spec* s, unsigned* st, const char* name, const char* body) {
  hy_marker_def mk = hy_marker_def_default();
  snprintf(mk.name, sizeof mk.name, "%s", name);
  snprintf(mk.body, sizeof mk.body, "%s", body);
  hy_v3_set(mk.point, urand(st, -1, 1), urand(st, -1, 1), urand(st, -1, 1));
  ck_assert_int_eq(hy_spec_add_marker(s, &mk), HY_OK);
}

static void add_force(hy_spec* s, const char* name, const char* a, const char* b) {
  hy_force_def f = hy_force_def_default();
  snprintf(f.name, sizeof f.name, "%s", name);
  snprintf(f.marker_a, sizeof f.marker_a, "%s", a);
  snprintf(f.marker_b, sizeof f.marker_b, "%s", b);
  f.value = 100;
  ck_assert_int_eq(hy_spec_add_force(s, &f), HY_OK);
}

static hy_model* compile(hy_spec* s) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_compile(s, &m, &err);
  ck_assert_msg(st == HY_OK, "compile: %s", err.msg);
  hy_spec_free(s);
  return m;
}

// A chain of 6 bodies hanging from ground on random axes (one prismatic joint), closed back to
// ground by a spherical cut joint, with two actuators.
static hy_model* random_loop(unsigned seed) {
  unsigned st = seed;
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  const int nb = 6;
  for (int i = 0; i < nb; i++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", i);
    add_body(s, &st, name);
    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "j%d", i);
    snprintf(j.child, sizeof j.child, "b%d", i);
    if (i > 0) snprintf(j.parent, sizeof j.parent, "b%d", i - 1);
    j.type = i == 2 ? HY_JOINT_PRISMATIC : HY_JOINT_REVOLUTE;
    hy_v3_set(j.parent_point, urand(&st, -1, 1), urand(&st, -1, 1), urand(&st, -1, 1));
    hy_v3_set(j.child_point, urand(&st, -1, 1), urand(&st, -1, 1), urand(&st, -1, 1));
    rand_unit(&st, j.axis);
    rand_unit(&st, j.child_axis);
    ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  }
  add_marker(s, &st, "tip", "b5");
  add_marker(s, &st, "anchor", "ground");
  add_marker(s, &st, "m1", "b1");
  add_marker(s, &st, "m4", "b4");
  hy_cut_def c = hy_cut_def_default();
  strcpy(c.name, "close");
  c.type = HY_CUT_SPHERICAL;
  strcpy(c.marker_a, "anchor");
  strcpy(c.marker_b, "tip");
  ck_assert_int_eq(hy_spec_add_cut(s, &c), HY_OK);
  add_force(s, "f1", "anchor", "m4");
  add_force(s, "f2", "m1", "tip");
  return compile(s);
}

// A random branching tree of 8 bodies; a plane normal n (NULL: none) puts every revolute axis on
// +-n and every prismatic axis and translational cut axis in the plane. Cuts of every type join
// random pairs of bodies (and ground), so paths share ancestors; two actuators act between
// markers.
static hy_model* random_tree_cuts(unsigned seed, const double* n) {
  unsigned st = seed;
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  const int nb = 8;
  const int planar = n != NULL;
  const double* ez = n;
  for (int i = 0; i < nb; i++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", i);
    add_body(s, &st, name);
    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "j%d", i);
    snprintf(j.child, sizeof j.child, "b%d", i);
    int parent = i == 0 ? -1 : (int)urand(&st, -1, (double)i);
    if (parent >= i) parent = i - 1;
    if (parent >= 0) snprintf(j.parent, sizeof j.parent, "b%d", parent);
    j.type = (i % 3 == 2) ? HY_JOINT_PRISMATIC : HY_JOINT_REVOLUTE;
    hy_v3_set(j.parent_point, urand(&st, -1, 1), urand(&st, -1, 1), urand(&st, -1, 1));
    hy_v3_set(j.child_point, urand(&st, -1, 1), urand(&st, -1, 1), urand(&st, -1, 1));
    if (!planar) {
      rand_unit(&st, j.axis);
      rand_unit(&st, j.child_axis);
    } else if (j.type == HY_JOINT_REVOLUTE) {
      hy_v3_scale(j.axis, ez, urand(&st, -1, 1) < 0 ? -1.0 : 1.0);
      hy_v3_scale(j.child_axis, ez, urand(&st, -1, 1) < 0 ? -1.0 : 1.0);
    } else {
      // in-plane slide; the child's normal stays on +-n (child_axis = axis: identity)
      rand_perp(&st, ez, j.axis);
      hy_v3_copy(j.child_axis, j.axis);
    }
    ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  }
  static const char* const owner[] = {"b7", "b3", "ground", "b5", "b6",
                                      "b2", "b4", "ground", "b1", "b0"};
  for (int k = 0; k < 10; k++) {
    char name[16];
    snprintf(name, sizeof name, "k%d", k);
    add_marker(s, &st, name, owner[k]);
  }
  // (type, marker a, marker b); the marker bodies differ in each pair
  static const struct {
    hy_cut_type type;
    int a, b;
  } cuts[] = {
      {HY_CUT_REVOLUTE, 0, 1}, {HY_CUT_TRANSLATIONAL, 2, 3}, {HY_CUT_TRANSLATIONAL, 4, 5},
      {HY_CUT_REVOLUTE, 7, 6}, {HY_CUT_TRANSLATIONAL, 8, 7}, {HY_CUT_SPHERICAL, 9, 4},
  };
  for (int k = 0; k < (int)(sizeof cuts / sizeof cuts[0]); k++) {
    hy_cut_def c = hy_cut_def_default();
    snprintf(c.name, sizeof c.name, "c%d", k);
    c.type = cuts[k].type;
    snprintf(c.marker_a, sizeof c.marker_a, "k%d", cuts[k].a);
    snprintf(c.marker_b, sizeof c.marker_b, "k%d", cuts[k].b);
    if (!planar) {
      rand_unit(&st, c.axis_a);
      rand_unit(&st, c.axis_b);
      rand_perp(&st, c.axis_a, c.up_a);
      rand_perp(&st, c.axis_b, c.up_b);
      if (k == 0) hy_v3_set(c.up_b, 0, 0, 0);  // chosen by the compiler
      hy_v3_scale(c.axis_b, c.axis_b, 2.5);    // normalized by the compiler
    } else if (c.type == HY_CUT_TRANSLATIONAL) {
      rand_perp(&st, ez, c.axis_a);
      rand_perp(&st, ez, c.axis_b);
    } else {
      hy_v3_scale(c.axis_a, ez, urand(&st, -1, 1) < 0 ? -1.0 : 1.0);
      hy_v3_scale(c.axis_b, ez, urand(&st, -1, 1) < 0 ? -3.0 : 3.0);
    }
    ck_assert_int_eq(hy_spec_add_cut(s, &c), HY_OK);
  }
  add_force(s, "f1", "k2", "k0");
  add_force(s, "f2", "k5", "k9");
  return compile(s);
}

static hy_model* load(const char* path) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load(path, &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_OK, "loading %s: %s", path, buf);
  return m;
}

// The text of a model file with `extra` appended (a top-level key).
static hy_model* load_with(const char* path, const char* extra, hy_status want, hy_error* err) {
  FILE* f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  static char text[1 << 15];
  size_t n = fread(text, 1, sizeof text - 200, f);
  fclose(f);
  ck_assert_int_lt(n, sizeof text - 200);
  text[n] = 0;
  strcat(text, extra);
  hy_model* m = NULL;
  memset(err, 0, sizeof *err);
  hy_status st = hy_model_load_string(text, strlen(text), path, &m, err);
  ck_assert_msg(st == want, "%s + '%s': status %d (%s)", path, extra, st, err->msg);
  return m;
}

//----- finite-difference checks ------------------------------------------------------------------

static void random_state(unsigned seed, const hy_model* m, double* z, double* zd) {
  unsigned st = seed;
  for (int i = 0; i < m->sizes.nz; i++) {
    z[i] = m->z0[i] + urand(&st, -1.0, 1.0);
    zd[i] = urand(&st, -2, 2);
  }
}

// Worst relative errors (max |difference| / max |reference|) of one state.
typedef struct fd_result {
  double jac, bias;              // Phi_z, Phi_z_dot zd
  double jac_scale, bias_scale;  // max |Phi_z|, max |bias|
} fd_result;

static fd_result check_constraints_fd(const hy_model* m, test_data* t, unsigned seed) {
  hy_data* d = t->d;
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  ck_assert_int_le(nz, MAXZ);
  ck_assert_int_le(neq, MAXEQ);
  double z[MAXZ], zd[MAXZ], zp[MAXZ], zero[MAXZ] = {0};
  random_state(seed, m, z, zd);
  eval_at(m, t, z, zd);
  double J[MAXEQ * MAXZ], bias[MAXEQ], phi0[MAXEQ];
  memcpy(J, d->phi_z, sizeof(double) * (size_t)(neq * nz));
  memcpy(bias, d->phi_bias, sizeof(double) * (size_t)neq);
  memcpy(phi0, d->phi, sizeof(double) * (size_t)neq);
  double viol = max_abs(phi0, neq);
  ck_assert_double_eq(d->violation, viol);

  // Phi_z: central differences, Richardson over h and h/2 (error O(h^4))
  double Jfd[MAXEQ * MAXZ];
  const double hs[2] = {1e-4, 5e-5};
  for (int i = 0; i < nz; i++) {
    double col[2][MAXEQ];
    for (int r = 0; r < 2; r++) {
      double fp[MAXEQ];
      memcpy(zp, z, sizeof(double) * (size_t)nz);
      zp[i] = z[i] + hs[r];
      eval_at(m, t, zp, zero);
      memcpy(fp, d->phi, sizeof(double) * (size_t)neq);
      zp[i] = z[i] - hs[r];
      eval_at(m, t, zp, zero);
      for (int e = 0; e < neq; e++) col[r][e] = (fp[e] - d->phi[e]) / (2 * hs[r]);
    }
    for (int e = 0; e < neq; e++) Jfd[e * nz + i] = (4 * col[1][e] - col[0][e]) / 3;
  }

  // Phi_z_dot zd = d2/dt2 Phi(z + t zd) at t = 0: second differences, Richardson over h, h/2
  double dd[2][MAXEQ];
  const double hb[2] = {2e-3, 1e-3};
  for (int r = 0; r < 2; r++) {
    double fp[MAXEQ];
    for (int i = 0; i < nz; i++) zp[i] = z[i] + hb[r] * zd[i];
    eval_at(m, t, zp, zero);
    memcpy(fp, d->phi, sizeof(double) * (size_t)neq);
    for (int i = 0; i < nz; i++) zp[i] = z[i] - hb[r] * zd[i];
    eval_at(m, t, zp, zero);
    for (int e = 0; e < neq; e++) {
      dd[r][e] = (fp[e] - 2 * phi0[e] + d->phi[e]) / (hb[r] * hb[r]);
    }
  }
  fd_result res = {0, 0, max_abs(J, neq * nz), max_abs(bias, neq)};
  for (int k = 0; k < neq * nz; k++) res.jac = fmax(res.jac, fabs(J[k] - Jfd[k]));
  for (int e = 0; e < neq; e++) {
    res.bias = fmax(res.bias, fabs(bias[e] - (4 * dd[1][e] - dd[0][e]) / 3));
  }
  res.jac /= res.jac_scale;
  res.bias /= res.bias_scale;
  return res;
}

// Checks Phi_z and the bias on several random states; returns the worst errors seen.
static fd_result check_model_fd(const hy_model* m, const char* what, unsigned seed0) {
  test_data t = data_make(m);
  fd_result worst = {0, 0, 1e300, 1e300};
  for (unsigned k = 0; k < 4; k++) {
    fd_result r = check_constraints_fd(m, &t, seed0 + 101 * k);
    ck_assert_msg(r.jac_scale > 0.1 && r.bias_scale > 0.1,
                  "%s: trivial comparison, max|Phi_z| = %g, max|bias| = %g", what, r.jac_scale,
                  r.bias_scale);
    ck_assert_msg(r.jac < 1e-7, "%s state %u: Phi_z vs FD: %.3g relative", what, k, r.jac);
    ck_assert_msg(r.bias < 1e-7, "%s state %u: Phi_z_dot zd vs FD: %.3g relative", what, k, r.bias);
    worst.jac = fmax(worst.jac, r.jac);
    worst.bias = fmax(worst.bias, r.bias);
    worst.jac_scale = fmin(worst.jac_scale, r.jac_scale);
    worst.bias_scale = fmin(worst.bias_scale, r.bias_scale);
  }
  printf("  %-32s neq %2d: Phi_z %.2e, bias %.2e (worst relative FD error)\n", what, m->sizes.neq,
         worst.jac, worst.bias);
  data_free(&t);
  return worst;
}

START_TEST(benchmarks_match_fd) {
  const char* files[] = {"four-bar-a-held.yaml", "four-bar-a-released.yaml",
                         "quick-return-held.yaml", "quick-return-released.yaml"};
  for (int f = 0; f < 4; f++) {
    char path[512];
    snprintf(path, sizeof path, MODELS "%s", files[f]);
    hy_model* m = load(path);
    ck_assert_int_eq(m->planar, 1);
    check_model_fd(m, files[f], 11u + (unsigned)f);
    hy_model_free(m);
  }
  // the four-bar with the full 3-D equations of its revolute cut
  hy_error err;
  hy_model* m = load_with(MODELS "four-bar-a-held.yaml", "planar: false\n", HY_OK, &err);
  ck_assert_int_eq(m->planar, 0);
  check_model_fd(m, "four-bar-a-held (3-D)", 77u);
  hy_model_free(m);
}
END_TEST

START_TEST(random_loop_matches_fd) {
  for (unsigned seed = 1; seed <= 3; seed++) {
    hy_model* m = random_loop(seed);
    ck_assert_int_eq(m->planar, 0);
    ck_assert_int_eq(m->sizes.neq, 3);
    char what[64];
    snprintf(what, sizeof what, "random 3-D loop, seed %u", seed);
    check_model_fd(m, what, seed * 31);
    hy_model_free(m);
  }
}
END_TEST

START_TEST(random_trees_match_fd) {
  for (unsigned seed = 1; seed <= 3; seed++) {
    hy_model* m = random_tree_cuts(seed, NULL);
    if (seed == 1) {
      // called while stepping: no heap allocation
      test_data t = data_make(m);
      hy_test_count_allocs_begin();
      eval_initial(m, &t);
      long n = hy_test_count_allocs_end();
      ck_assert_int_eq(n, 0);
      ck_assert(t.d->violation > 0.1);
      data_free(&t);
    }
    ck_assert_int_eq(m->planar, 0);
    ck_assert_int_eq(m->sizes.ncut, 6);
    ck_assert_int_eq(m->sizes.neq, 5 * 5 + 3);
    char what[64];
    snprintf(what, sizeof what, "random 3-D tree, seed %u", seed);
    check_model_fd(m, what, seed * 17);
    hy_model_free(m);
  }
}
END_TEST

// On the x-y plane and on planes tilted away from every coordinate plane, which take different
// code in the planar paths (m->plane_xy).
START_TEST(random_planar_trees_match_fd) {
  for (unsigned seed = 4; seed <= 8; seed++) {
    double n[3] = {0, 0, 1};
    if (seed > 6) {
      unsigned st = seed * 7919u;
      random_tilted_normal(&st, n);
    }
    hy_model* m = random_tree_cuts(seed, n);
    ck_assert_int_eq(m->planar, 1);
    ck_assert_int_eq(m->plane_xy[0], seed <= 6);
    ck_assert_int_eq(m->sizes.neq, 2 * 6);
    char what[64];
    snprintf(what, sizeof what, "random %s tree, seed %u", seed <= 6 ? "planar" : "tilted", seed);
    check_model_fd(m, what, seed * 13);
    hy_model_free(m);
  }
}
END_TEST

// dx/dz of every marker point against central differences of the marker positions.
START_TEST(point_jacobian_matches_fd) {
  for (unsigned seed = 1; seed <= 3; seed++) {
    hy_model* m = random_tree_cuts(seed, NULL);
    test_data t = data_make(m);
    hy_data* d = t.d;
    const int nz = m->sizes.nz, nm = m->sizes.nmrk;
    double z[MAXZ], zd[MAXZ], zp[MAXZ], zero[MAXZ] = {0};
    random_state(seed * 5, m, z, zd);
    double worst = 0, scale = 0;
    for (int k = 0; k < nm; k++) {
      eval_at(m, &t, z, zd);
      double J[3 * MAXZ], x[3];
      hy_v3_copy(x, d->mrk_pos + 3 * k);
      hy_mech_point_jacobian(m, d, m->mrk_body[k], x, J);
      for (int i = 0; i < nz; i++) {
        const double h = 1e-5;
        double xp[3];
        memcpy(zp, z, sizeof(double) * (size_t)nz);
        zp[i] = z[i] + h;
        eval_at(m, &t, zp, zero);
        hy_v3_copy(xp, d->mrk_pos + 3 * k);
        zp[i] = z[i] - h;
        eval_at(m, &t, zp, zero);
        for (int c = 0; c < 3; c++) {
          const double fd = (xp[c] - d->mrk_pos[3 * k + c]) / (2 * h);
          worst = fmax(worst, fabs(fd - J[c * nz + i]));
          scale = fmax(scale, fabs(fd));
        }
      }
      if (m->mrk_body[k] < 0) ck_assert_double_eq(max_abs(J, 3 * nz), 0.0);
    }
    ck_assert(scale > 0.1);
    ck_assert_msg(worst / scale < 1e-8, "seed %u: point Jacobian vs FD: %.3g relative", seed,
                  worst / scale);
    data_free(&t);
    hy_model_free(m);
  }
}
END_TEST

// Length and direction from the marker positions; the rate against a central difference of the
// length along zd (seed 000 Eq. 45).
START_TEST(force_geometry_matches_fd) {
  for (unsigned seed = 1; seed <= 3; seed++) {
    hy_model* m = seed == 3 ? load(MODELS "quick-return-held.yaml") : random_loop(seed);
    test_data t = data_make(m);
    hy_data* d = t.d;
    const int nz = m->sizes.nz, nf = m->sizes.nfrc;
    ck_assert_int_ge(nf, 1);
    double z[MAXZ], zd[MAXZ], zp[MAXZ], zero[MAXZ] = {0};
    random_state(seed * 7, m, z, zd);
    eval_at(m, &t, z, zd);
    double len[8], rate[8];
    for (int k = 0; k < nf; k++) {
      double s[3];
      hy_v3_sub(s, d->mrk_pos + 3 * m->frc_mrk_b[k], d->mrk_pos + 3 * m->frc_mrk_a[k]);
      ck_assert_double_eq_tol(d->frc_len[k], hy_v3_norm(s), 1e-14);
      for (int c = 0; c < 3; c++) {
        ck_assert_double_eq_tol(d->frc_dir[3 * k + c] * d->frc_len[k], s[c], 1e-13);
      }
      len[k] = d->frc_len[k];
      rate[k] = d->frc_rate[k];
    }
    ck_assert_msg(max_abs(rate, nf) > 0.1, "seed %u: max |rate| = %g", seed, max_abs(rate, nf));
    const double hs[2] = {1e-4, 5e-5};
    double fd[2][8];
    for (int r = 0; r < 2; r++) {
      double lp[8];
      for (int i = 0; i < nz; i++) zp[i] = z[i] + hs[r] * zd[i];
      eval_at(m, &t, zp, zero);
      memcpy(lp, d->frc_len, sizeof(double) * (size_t)nf);
      for (int i = 0; i < nz; i++) zp[i] = z[i] - hs[r] * zd[i];
      eval_at(m, &t, zp, zero);
      for (int k = 0; k < nf; k++) fd[r][k] = (lp[k] - d->frc_len[k]) / (2 * hs[r]);
    }
    for (int k = 0; k < nf; k++) {
      const double ref = (4 * fd[1][k] - fd[0][k]) / 3;
      ck_assert_msg(fabs(ref - rate[k]) < 1e-8 * fmax(1.0, fabs(ref)),
                    "seed %u force %d: rate %.15g vs FD %.15g (length %g)", seed, k, rate[k], ref,
                    len[k]);
    }
    data_free(&t);
    hy_model_free(m);
  }
}
END_TEST

//----- the benchmark models ----------------------------------------------------------------------

START_TEST(four_bar_benchmark) {
  const char* files[] = {MODELS "four-bar-a-held.yaml", MODELS "four-bar-a-released.yaml"};
  for (int f = 0; f < 2; f++) {
    hy_model* m = load(files[f]);
    ck_assert_int_eq(m->planar, 1);
    ck_assert_int_eq(m->sizes.nz, 3);
    ck_assert_int_eq(m->sizes.ncut, 1);
    ck_assert_int_eq(m->sizes.neq, 2);
    ck_assert_int_eq(m->sizes.nfrc, f == 0 ? 1 : 0);
    ck_assert_int_eq(m->cut_type[0], HY_CUT_REVOLUTE);
    ck_assert_int_eq(m->cut_eqadr[0], 0);
    ck_assert_int_eq(m->cut_neq[0], 2);
    ck_assert_int_eq(m->opt.formulation, HY_FORM_PENALTY);  // as the files say
    ck_assert_double_eq(m->plane_normal[2], 1.0);
    ck_assert_double_eq(m->plane_e1[0], 1.0);
    ck_assert_double_eq(m->plane_e2[1], 1.0);
    test_data t = data_make(m);
    eval_initial(m, &t);
    // the printed angles close the loop exactly: D = (2, -1), E = (0, -1)
    ck_assert_msg(t.d->violation < 1e-12, "four-bar Phi(z0) = %g", t.d->violation);
    if (f == 0) {
      ck_assert_int_eq(hy_model_force(m, "cylinder"), 0);
      ck_assert_int_eq(m->frc_equilibrium[0], 1);
      // |F - G| = sqrt(2) m at t = 0, not moving (seed 000 Sect. 5)
      ck_assert_double_eq_tol(t.d->frc_len[0], sqrt(2.0), 1e-14);
      ck_assert_double_eq(t.d->frc_rate[0], 0.0);
      ck_assert_double_eq_tol(t.d->frc_dir[1], 1 / sqrt(2.0), 1e-14);
    }
    data_free(&t);
    hy_model_free(m);
  }
}
END_TEST

START_TEST(quick_return_benchmark) {
  hy_model* m = load(MODELS "quick-return-held.yaml");
  ck_assert_int_eq(m->planar, 1);
  ck_assert_int_eq(m->sizes.nz, 5);
  ck_assert_int_eq(m->sizes.ncut, 2);
  ck_assert_int_eq(m->sizes.neq, 4);
  ck_assert_int_eq(m->cut_type[hy_model_cut(m, "M")], HY_CUT_TRANSLATIONAL);
  ck_assert_int_eq(m->cut_eqadr[hy_model_cut(m, "J")], 2);
  test_data t = data_make(m);
  eval_initial(m, &t);
  // quick_return.md Sect. 7: the printed angles leave Phi = (-2.556e-4 m, 0, 4.37e-5 m, 0)
  const double* phi = t.d->phi;
  ck_assert_msg(t.d->violation < 3e-4, "quick-return Phi(z0) = %g", t.d->violation);
  ck_assert_double_eq_tol(phi[0], -2.556e-4, 1e-6);
  ck_assert_double_eq_tol(phi[1], 0.0, 1e-12);
  ck_assert_double_eq_tol(phi[2], 4.37e-5, 1e-6);
  ck_assert_double_eq_tol(phi[3], 0.0, 1e-12);
  // |s0| = |N - Q| = 1.41351 m (quick_return.md Sect. 5, exact configuration)
  ck_assert_double_eq_tol(t.d->frc_len[0], 1.41351, 2e-5);
  data_free(&t);
  hy_model_free(m);
  m = load(MODELS "quick-return-released.yaml");
  ck_assert_int_eq(m->sizes.neq, 4);
  ck_assert_int_eq(m->sizes.nfrc, 0);
  hy_model_free(m);
}
END_TEST

// The four-bar written with the builder: the same model as the file, and planar on request.
static hy_model* four_bar_spec(hy_planar planar, hy_status want, hy_error* err) {
  hy_spec* s;
  hy_spec_create(&s);
  const double L[3] = {9, 1.4142135623730951, 2}, mass[3] = {225, 35, 50};
  const double ppt[3] = {0, 3, 1.4142135623730951}, z0[3] = {0, -135, -45};
  for (int i = 0; i < 3; i++) {
    hy_body_def b = hy_body_def_default();
    snprintf(b.name, sizeof b.name, "body%d", i + 1);
    b.mass = mass[i];
    b.com[0] = L[i] / 2;
    b.inertia[4] = b.inertia[8] = mass[i] * L[i] * L[i] / 12;
    hy_spec_add_body(s, &b);
    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "j%d", i + 1);
    snprintf(j.child, sizeof j.child, "body%d", i + 1);
    if (i > 0) snprintf(j.parent, sizeof j.parent, "body%d", i);
    j.parent_point[0] = ppt[i];
    j.z0 = z0[i] * HY_PI / 180;
    hy_spec_add_joint(s, &j);
  }
  hy_marker_def mk = hy_marker_def_default();
  strcpy(mk.name, "E3");
  strcpy(mk.body, "body3");
  mk.point[0] = 2;
  hy_spec_add_marker(s, &mk);
  strcpy(mk.name, "E");
  strcpy(mk.body, "ground");
  hy_v3_set(mk.point, 0, -1, 0);
  hy_spec_add_marker(s, &mk);
  hy_cut_def c = hy_cut_def_default();
  strcpy(c.name, "E");
  strcpy(c.marker_a, "E3");
  strcpy(c.marker_b, "E");
  hy_spec_add_cut(s, &c);
  ck_assert_int_eq(hy_spec_set_planar(s, planar), HY_OK);
  hy_model* m = NULL;
  memset(err, 0, sizeof *err);
  ck_assert_int_eq(hy_model_compile(s, &m, err), want);
  hy_spec_free(s);
  return m;
}

START_TEST(planar_choice) {
  hy_error err;
  hy_model* fb = load(MODELS "four-bar-a-released.yaml");
  for (int p = 0; p < 3; p++) {
    const hy_planar planar = p == 0 ? HY_PLANAR_AUTO : p == 1 ? HY_PLANAR_YES : HY_PLANAR_NO;
    hy_model* m = four_bar_spec(planar, HY_OK, &err);
    ck_assert_int_eq(m->planar, planar != HY_PLANAR_NO);
    ck_assert_int_eq(m->sizes.neq, planar == HY_PLANAR_NO ? 5 : 2);
    ck_assert_int_eq(m->cut_neq[0], m->sizes.neq);
    test_data t = data_make(m);
    eval_initial(m, &t);
    ck_assert_msg(t.d->violation < 1e-12, "planar %d: Phi(z0) = %g", p, t.d->violation);
    if (planar != HY_PLANAR_NO) {
      // the same equations as the model file's
      test_data tf = data_make(fb);
      double z[3] = {0.3, -2.0, 0.4}, zd[3] = {1, -2, 3};
      eval_at(m, &t, z, zd);
      eval_at(fb, &tf, z, zd);
      for (int e = 0; e < 2; e++) {
        ck_assert_double_eq_tol(t.d->phi[e], tf.d->phi[e], 1e-12);
        ck_assert_double_eq_tol(t.d->phi_bias[e], tf.d->phi_bias[e], 1e-9);
      }
      data_free(&tf);
    }
    data_free(&t);
    // a copy keeps the plane
    hy_model* c = NULL;
    ck_assert_int_eq(hy_model_copy(m, &c), HY_OK);
    ck_assert_int_eq(c->planar, m->planar);
    ck_assert_int_eq(c->cut_neq[0], m->cut_neq[0]);
    for (int i = 0; i < 3; i++) {
      ck_assert_double_eq(c->plane_normal[i], m->plane_normal[i]);
      ck_assert_double_eq(c->plane_e1[i], m->plane_e1[i]);
      ck_assert_double_eq(c->plane_e2[i], m->plane_e2[i]);
    }
    hy_model_free(c);
    hy_model_free(m);
  }
  hy_model_free(fb);

  // the model files: planar: false gives the 5 equations of a 3-D revolute joint; the
  // quick-return's translational cuts give no up vectors, which 3-D needs
  hy_model* m = load_with(MODELS "four-bar-a-held.yaml", "planar: false\n", HY_OK, &err);
  ck_assert_int_eq(m->planar, 0);
  ck_assert_int_eq(m->sizes.neq, 5);
  test_data t = data_make(m);
  eval_initial(m, &t);
  ck_assert_msg(t.d->violation < 1e-12, "3-D four-bar Phi(z0) = %g", t.d->violation);
  data_free(&t);
  hy_model_free(m);
  m = load_with(MODELS "quick-return-held.yaml", "planar: false\n", HY_ERR_MODEL, &err);
  ck_assert_ptr_null(m);
  ck_assert_ptr_nonnull(strstr(err.msg, "3-D translational cut 'M' needs up_a and up_b"));
  m = load_with(MODELS "quick-return-held.yaml", "planar: true\n", HY_OK, &err);
  ck_assert_int_eq(m->sizes.neq, 4);
  hy_model_free(m);
}
END_TEST

//----- compiler rules ----------------------------------------------------------------------------

// A two-body tree with one cut between markers a (on b0) and b (on b1), both axes +x about
// which b0 and b1 turn.
static hy_spec* two_body_spec(void) {
  hy_spec* s;
  hy_spec_create(&s);
  for (int i = 0; i < 2; i++) {
    hy_body_def b = hy_body_def_default();
    snprintf(b.name, sizeof b.name, "b%d", i);
    b.mass = 1;
    b.com[0] = 0.5;
    hy_spec_add_body(s, &b);
    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "j%d", i);
    snprintf(j.child, sizeof j.child, "b%d", i);
    hy_v3_set(j.axis, 1, 0, 0);
    hy_v3_set(j.child_axis, 1, 0, 0);
    j.parent_point[1] = i;
    hy_spec_add_joint(s, &j);
  }
  hy_marker_def mk = hy_marker_def_default();
  strcpy(mk.name, "a");
  strcpy(mk.body, "b0");
  hy_spec_add_marker(s, &mk);
  strcpy(mk.name, "b");
  strcpy(mk.body, "b1");
  hy_spec_add_marker(s, &mk);
  strcpy(mk.name, "a2");
  strcpy(mk.body, "b0");
  hy_spec_add_marker(s, &mk);
  return s;
}

static hy_status compile_cut(const hy_cut_def* c, hy_planar planar, hy_model** out, hy_error* err) {
  hy_spec* s = two_body_spec();
  hy_spec_add_cut(s, c);
  hy_spec_set_planar(s, planar);
  memset(err, 0, sizeof *err);
  *out = NULL;
  hy_status st = hy_model_compile(s, out, err);
  hy_spec_free(s);
  return st;
}

START_TEST(compiler_checks_cuts) {
  hy_error err;
  hy_model* m;
  hy_cut_def c = hy_cut_def_default();
  ck_assert_int_eq(c.type, HY_CUT_REVOLUTE);
  ck_assert_double_eq(c.axis_a[2], 1.0);
  ck_assert_double_eq(c.axis_b[2], 1.0);
  ck_assert_double_eq(hy_v3_norm(c.up_a) + hy_v3_norm(c.up_b), 0.0);
  strcpy(c.name, "c");
  strcpy(c.marker_a, "a");
  strcpy(c.marker_b, "b");
  hy_v3_set(c.axis_a, 2, 0, 0);
  hy_v3_set(c.axis_b, 1, 0, 0);

  // planar about x (detected from the joints): e1 x e2 = n; revolute up vectors chosen
  ck_assert_int_eq(compile_cut(&c, HY_PLANAR_AUTO, &m, &err), HY_OK);
  ck_assert_int_eq(m->planar, 1);
  ck_assert_int_eq(m->sizes.neq, 2);
  ck_assert_int_eq(m->opt.formulation, HY_FORM_AUTO);  // penalty when the data are made
  ck_assert_int_eq(hy_model_cut(m, "c"), 0);
  ck_assert_int_eq(hy_model_cut(m, "nope"), -1);
  double e3[3];
  hy_v3_cross(e3, m->plane_e1, m->plane_e2);
  ck_assert_double_eq_tol(e3[0], 1.0, 1e-15);
  ck_assert_double_eq_tol(m->plane_normal[0], 1.0, 1e-15);
  ck_assert_double_eq_tol(m->cut_axis_a[0], 1.0, 1e-15);  // normalized
  ck_assert_double_eq_tol(hy_v3_norm(m->cut_up_b), 1.0, 1e-15);
  ck_assert_double_eq_tol(hy_v3_dot(m->cut_up_b, m->cut_axis_b), 0.0, 1e-15);
  hy_model_free(m);

  // the default axes (+z) are not parallel to the joints' x: not planar
  hy_cut_def z = c;
  hy_v3_set(z.axis_a, 0, 0, 1);
  ck_assert_int_eq(compile_cut(&z, HY_PLANAR_AUTO, &m, &err), HY_OK);
  ck_assert_int_eq(m->planar, 0);
  ck_assert_int_eq(m->sizes.neq, 5);
  hy_model_free(m);
  z.pos.line = 7;
  z.pos.col = 5;
  ck_assert_int_eq(compile_cut(&z, HY_PLANAR_YES, &m, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "planar: true"));
  ck_assert_ptr_nonnull(strstr(err.msg, "axis_a"));
  ck_assert_int_eq(err.src_line, 7);
  ck_assert_int_eq(err.src_col, 5);

  // both markers on one body
  hy_cut_def same = c;
  strcpy(same.marker_b, "a2");
  ck_assert_int_eq(compile_cut(&same, HY_PLANAR_AUTO, &m, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "both on 'b0'"));
  // unknown marker
  hy_cut_def unknown = c;
  strcpy(unknown.marker_b, "zz");
  ck_assert_int_eq(compile_cut(&unknown, HY_PLANAR_AUTO, &m, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "marker 'zz' does not exist"));
  // zero axis
  hy_cut_def zero = c;
  hy_v3_set(zero.axis_b, 0, 0, 0);
  ck_assert_int_eq(compile_cut(&zero, HY_PLANAR_AUTO, &m, &err), HY_ERR_MODEL);
  // up not perpendicular to its axis
  hy_cut_def up = c;
  hy_v3_set(up.up_a, 0, 1, 1e-6);
  hy_v3_set(up.axis_a, 0, 0, 1);
  ck_assert_int_eq(compile_cut(&up, HY_PLANAR_NO, &m, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "up_a must be perpendicular to axis_a"));
  hy_v3_set(up.up_a, 0, 1, 1e-12);  // within 1e-9: accepted, and made exactly perpendicular
  ck_assert_int_eq(compile_cut(&up, HY_PLANAR_NO, &m, &err), HY_OK);
  ck_assert_double_eq(hy_v3_dot(m->cut_up_a, m->cut_axis_a), 0.0);
  hy_model_free(m);

  // translational: 3-D needs both up vectors; planar does not
  hy_cut_def tr = c;
  tr.type = HY_CUT_TRANSLATIONAL;
  hy_v3_set(tr.axis_a, 0, 1, 0);
  hy_v3_set(tr.axis_b, 0, 1, 0);
  ck_assert_int_eq(compile_cut(&tr, HY_PLANAR_AUTO, &m, &err), HY_OK);
  ck_assert_int_eq(m->planar, 1);
  ck_assert_int_eq(m->sizes.neq, 2);
  hy_model_free(m);
  ck_assert_int_eq(compile_cut(&tr, HY_PLANAR_NO, &m, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "3-D translational cut 'c' needs up_a and up_b"));
  hy_v3_set(tr.up_a, 0, 0, 1);
  hy_v3_set(tr.up_b, 0, 0, -1);
  ck_assert_int_eq(compile_cut(&tr, HY_PLANAR_NO, &m, &err), HY_OK);
  ck_assert_int_eq(m->sizes.neq, 5);
  hy_model_free(m);
  // a translational axis along the plane normal is not planar
  hy_v3_set(tr.axis_b, 1, 0, 0);
  hy_v3_set(tr.up_b, 0, 0, 1);
  ck_assert_int_eq(compile_cut(&tr, HY_PLANAR_AUTO, &m, &err), HY_OK);
  ck_assert_int_eq(m->planar, 0);
  hy_model_free(m);

  ck_assert_int_eq(hy_spec_set_planar(NULL, HY_PLANAR_AUTO), HY_ERR_ARG);
}
END_TEST

START_TEST(compiler_checks_forces) {
  hy_error err;
  hy_force_def f = hy_force_def_default();
  ck_assert_int_eq(f.type, HY_FORCE_ACTUATOR);
  strcpy(f.name, "f");
  strcpy(f.marker_a, "a");
  strcpy(f.marker_b, "b");
  const struct {
    const char* a;
    const char* b;
    const char* sig;
    const char* needle;
  } cases[] = {
      {"a", "b", "", NULL},
      {"a", "a", "", "the same marker"},
      {"a", "zz", "", "marker 'zz' does not exist"},
      {"a", "b", "nosig", "signal 'nosig' does not exist"},
  };
  for (int k = 0; k < 4; k++) {
    hy_spec* s = two_body_spec();
    hy_force_def g = f;
    strcpy(g.marker_a, cases[k].a);
    strcpy(g.marker_b, cases[k].b);
    strcpy(g.signal, cases[k].sig);
    hy_spec_add_force(s, &g);
    hy_model* m = NULL;
    memset(&err, 0, sizeof err);
    hy_status st = hy_model_compile(s, &m, &err);
    hy_spec_free(s);
    if (!cases[k].needle) {
      ck_assert_int_eq(st, HY_OK);
      ck_assert_int_eq(m->sizes.nfrc, 1);
      ck_assert_int_eq(m->sizes.ncut, 0);
      ck_assert_int_eq(m->opt.formulation, HY_FORM_AUTO);  // tree when the data are made
      ck_assert_int_eq(hy_model_force(m, "f"), 0);
      ck_assert_int_eq(m->frc_sig[0], -1);
      hy_model_free(m);
    } else {
      ck_assert_int_eq(st, HY_ERR_MODEL);
      ck_assert_msg(strstr(err.msg, cases[k].needle), "case %d: %s", k, err.msg);
    }
  }
}
END_TEST

Suite* mech_constraint_suite(void) {
  Suite* s = suite_create("mech_constraint");
  TCase* tc = tcase_create("fd");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, benchmarks_match_fd);
  tcase_add_test(tc, random_loop_matches_fd);
  tcase_add_test(tc, random_trees_match_fd);
  tcase_add_test(tc, random_planar_trees_match_fd);
  tcase_add_test(tc, point_jacobian_matches_fd);
  tcase_add_test(tc, force_geometry_matches_fd);
  suite_add_tcase(s, tc);
  tc = tcase_create("models");
  tcase_add_test(tc, four_bar_benchmark);
  tcase_add_test(tc, quick_return_benchmark);
  tcase_add_test(tc, planar_choice);
  tcase_add_test(tc, compiler_checks_cuts);
  tcase_add_test(tc, compiler_checks_forces);
  suite_add_tcase(s, tc);
  return s;
}
