// Joints of several coordinates, massless links and point masses (src/model/model_joint.c,
// src/mech/mech_gimbal.c) against independent truths: each joint against the same mechanism
// built by hand from revolute and prismatic joints through massless bodies, and its child's
// place against the rotations docs/model-format.md states, written out here with Rodrigues'
// formula; point masses against the body merged by hand along another route of the
// parallel-axis theorem; a massless link against a mechanism without it; a free body in zero
// gravity against the conservation of momentum, angular momentum and energy; where the gimbal
// lock of a spherical joint is; errors of model files (re-anchoring: test_mech_gimbal.c).
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"

static const double kDeg = 3.14159265358979323846 / 180.0;

//----- small helpers -------------------------------------------------------------------------


// The status of loading text, its message formatted with the position into msg.
static hy_status load_fails(const char* text, char* msg, size_t size) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_model_load_string(text, strlen(text), "bad.yaml", &m, &err);
  hy_model_free(m);
  hy_error_format(&err, msg, size);
  return st;
}

static void unit(double v[3]) {
  const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int i = 0; i < 3; i++) v[i] /= n;
}

static void cross(double r[3], const double a[3], const double b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void mul(double C[9], const double A[9], const double B[9]) {
  double T[9];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      T[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    }
  }
  memcpy(C, T, sizeof T);
}

static void mulv(double r[3], const double A[9], const double v[3]) {
  double t[3];
  for (int i = 0; i < 3; i++) t[i] = A[3 * i] * v[0] + A[3 * i + 1] * v[1] + A[3 * i + 2] * v[2];
  memcpy(r, t, sizeof t);
}

// Rodrigues: the rotation by `angle` about the unit vector u, cos I + sin [u]x + (1 - cos) u u^T.
static void rotation(double R[9], const double u[3], double angle) {
  const double c = cos(angle), s = sin(angle), C = 1 - c;
  const double S[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = (i == j ? c : 0) + s * S[3 * i + j] + C * u[i] * u[j];
  }
}

// The smallest rotation turning the unit vector f onto the unit vector t (not opposite).
static void align(double R[9], const double f[3], const double t[3]) {
  double k[3];
  cross(k, f, t);
  const double s = sqrt(dot(k, k));
  if (s < 1e-15) {
    rotation(R, f, 0);
    return;
  }
  for (int i = 0; i < 3; i++) k[i] /= s;
  rotation(R, k, atan2(s, dot(f, t)));
}

// The largest difference of n doubles.
static double maxdiff(const double* a, const double* b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

//----- each joint against its chain built by hand ----------------------------------------------

// The joint between a moving base and the child: points, axes and initial values away from
// every special case (axis2 is perpendicular to child_axis, as the rule asks).
static const double kPP[3] = {0.4, -0.3, 0.2}, kCP[3] = {0.1, 0.3, -0.2};
static const double kAxis[3] = {0.2, 0.1, 1}, kChildAxis[3] = {1, 0.3, -0.2};
static const double kAxis2[3] = {0.3, -1, 0};

typedef struct joint_case {
  const char* type;
  int nz;
  const char* kinds;  // per coordinate: R revolute, P prismatic
  const char* axes;   // per coordinate: A axis/child_axis, C child_axis, B axis2, D axis2 x
                      // child_axis, X, Y, Z the unit axes (docs/model-format.md, "joints")
  double z0[6];       // deg or m
  double zd0[6];      // deg/s or m/s
} joint_case;

static const joint_case kCases[] = {
    {"universal", 2, "RR", "AB", {20, -35}, {40, 60}},
    {"cylindrical", 2, "PR", "AC", {0.15, 25}, {-0.3, 80}},
    {"spherical", 3, "RRR", "ABD", {20, -35, 50}, {40, 60, -90}},
    {"free", 6, "PPPRRR", "XYZABD", {0.1, -0.2, 0.3, 20, -35, 50}, {0.2, 0.1, -0.4, 40, 60, -90}},
};

static void vec_text(char* buf, size_t size, const double v[3]) {
  snprintf(buf, size, "[%.17g, %.17g, %.17g]", v[0], v[1], v[2]);
}

// The bodies, the base's hinge and the rest of the model, with `joints` for the child's joint.
static void joint_model(char* buf, size_t size, const char* extra_bodies, const char* joints) {
  snprintf(buf, size,
           "name: joint-case\n"
           "bodies:\n"
           "  - {name: base, mass: 3, com: [0.1, -0.2, 0], inertia: [0.3, 0.2, 0.25, 0.01, 0.02, "
           "-0.01]}\n"
           "%s"
           "  - {name: c, mass: 1.7, com: [0.2, -0.5, 0.1], inertia: [0.12, 0.09, 0.1, 0.01, "
           "-0.02, 0.015]}\n"
           "joints:\n"
           "  - {name: hinge, type: revolute, parent: ground, child: base, axis: [0.3, 0.2, 1], "
           "z0: 15, zd0: -30}\n"
           "%s"
           "solver: {integrator: rk4, dt: 1.0e-3}\n",
           extra_bodies, joints);
}

static void list_text(char* buf, size_t size, const double* v, int n) {
  size_t len = (size_t)snprintf(buf, size, "[");
  for (int k = 0; k < n; k++)
    len += (size_t)snprintf(buf + len, size - len, "%s%.17g", k ? ", " : "", v[k]);
  snprintf(buf + len, size - len, "]");
}

// The model with the joint of case c, and the same built by hand as a chain.
static void case_models(const joint_case* c, char* with, char* chain, size_t size) {
  char pp[96], cp[96], a[96], ca[96], b[96], z0[200], zd0[200], joints[4096], bodies[1024];
  vec_text(pp, sizeof pp, kPP);
  vec_text(cp, sizeof cp, kCP);
  vec_text(a, sizeof a, kAxis);
  vec_text(ca, sizeof ca, kChildAxis);
  vec_text(b, sizeof b, kAxis2);
  list_text(z0, sizeof z0, c->z0, c->nz);
  list_text(zd0, sizeof zd0, c->zd0, c->nz);
  const int has2 = strchr(c->axes, 'B') != NULL;
  snprintf(joints, sizeof joints,
           "  - {name: J, type: %s, parent: base, child: c, parent_point: %s, child_point: %s, "
           "axis: %s, child_axis: %s%s%s, z0: %s, zd0: %s}\n",
           c->type, pp, cp, a, ca, has2 ? ", axis2: " : "", has2 ? b : "", z0, zd0);
  joint_model(with, size, "", joints);

  // the chain: massless bodies h1 .. h(n-1); axis2 x child_axis from the unit vectors
  double bu[3], cu[3], d[3];
  memcpy(bu, kAxis2, sizeof bu);
  memcpy(cu, kChildAxis, sizeof cu);
  unit(bu);
  unit(cu);
  cross(d, bu, cu);
  size_t bl = 0, jl = 0;
  bodies[0] = joints[0] = '\0';
  for (int k = 0; k < c->nz; k++) {
    char parent[16], child[16], ax[96], cax[96];
    snprintf(parent, sizeof parent, k == 0 ? "base" : "h%d", k);
    snprintf(child, sizeof child, k == c->nz - 1 ? "c" : "h%d", k + 1);
    if (k < c->nz - 1) {
      bl += (size_t)snprintf(bodies + bl, sizeof bodies - bl, "  - {name: h%d, mass: 0}\n", k + 1);
    }
    static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    switch (c->axes[k]) {
      case 'A':
        vec_text(ax, sizeof ax, kAxis), vec_text(cax, sizeof cax, kChildAxis);
        break;
      case 'C':
        vec_text(ax, sizeof ax, kChildAxis), vec_text(cax, sizeof cax, kChildAxis);
        break;
      case 'B':
        vec_text(ax, sizeof ax, kAxis2), vec_text(cax, sizeof cax, kAxis2);
        break;
      case 'D':
        vec_text(ax, sizeof ax, d), vec_text(cax, sizeof cax, d);
        break;
      case 'X':
        vec_text(ax, sizeof ax, ex), vec_text(cax, sizeof cax, ex);
        break;
      case 'Y':
        vec_text(ax, sizeof ax, ey), vec_text(cax, sizeof cax, ey);
        break;
      default:
        vec_text(ax, sizeof ax, ez), vec_text(cax, sizeof cax, ez);
        break;
    }
    jl += (size_t)snprintf(joints + jl, sizeof joints - jl,
                           "  - {name: k%d, type: %s, parent: %s, child: %s, parent_point: %s, "
                           "child_point: %s, axis: %s, child_axis: %s, z0: %.17g, zd0: %.17g}\n",
                           k, c->kinds[k] == 'R' ? "revolute" : "prismatic", parent, child,
                           k == 0 ? pp : "[0, 0, 0]", k == c->nz - 1 ? cp : "[0, 0, 0]", ax, cax,
                           c->z0[k], c->zd0[k]);
  }
  joint_model(chain, size, bodies, joints);
}

// Where docs/model-format.md puts the child of case c at coordinates z (rad, m) of its joint,
// the base turned by hinge: the rotation A (child frame -> inertial) and the point x_c of the
// child that must sit at the base's joint point moved by the joint's slides, x_p.
static void docs_place(const joint_case* c, double hinge, const double* z, double A[9],
                       double xp[3]) {
  double h[3] = {0.3, 0.2, 1}, au[3], cu[3], bu[3], du[3], Ab[9], R0[9], R[9], t[3] = {0, 0, 0};
  unit(h);
  rotation(Ab, h, hinge);
  memcpy(au, kAxis, sizeof au);
  memcpy(cu, kChildAxis, sizeof cu);
  memcpy(bu, kAxis2, sizeof bu);
  unit(au);
  unit(cu);
  unit(bu);
  cross(du, bu, cu);
  align(R0, cu, au);
  int k = 0;
  if (strcmp(c->type, "free") == 0) {
    for (; k < 3; k++) t[k] = z[k];  // along the parent's x, y, z
  } else if (strcmp(c->type, "cylindrical") == 0) {
    for (int i = 0; i < 3; i++) t[i] = z[0] * au[i];
    k = 1;
  }
  // the first angle about axis (parent frame) after the reference rotation R0, the others
  // about axis2 and axis2 x child_axis fixed in the child
  rotation(R, au, z[k]);
  mul(R, R, R0);
  if (k + 1 < c->nz) {
    double Rb[9];
    rotation(Rb, bu, z[k + 1]);
    mul(R, R, Rb);
  }
  if (k + 2 < c->nz) {
    double Rd[9];
    rotation(Rd, du, z[k + 2]);
    mul(R, R, Rd);
  }
  mul(A, Ab, R);
  double p[3];
  for (int i = 0; i < 3; i++) p[i] = kPP[i] + t[i];
  mulv(xp, Ab, p);  // the base's origin stays at the inertial origin
}

START_TEST(joint_equals_its_chain) {
  const joint_case* c = &kCases[_i];
  static char with[8192], chain[8192];
  case_models(c, with, chain, sizeof with);
  hy_model* ma = hy_test_load_text(with, "with.yaml");
  hy_model* mb = hy_test_load_text(chain, "chain.yaml");
  ck_assert_int_eq(ma->sizes.nz, 1 + c->nz);
  ck_assert_int_eq(ma->sizes.nbody, 1 + c->nz);
  ck_assert_int_eq(ma->planar, 0);
  ck_assert_int_eq(ma->sizes.ngimbal, strchr(c->axes, 'D') ? 1 : 0);
  // the chain's joints are J.1 .. J.n, its massless bodies J.1 .. J.(n-1), its coordinates
  // follow each other
  for (int k = 0; k < c->nz; k++) {
    char name[16];
    snprintf(name, sizeof name, "J.%d", k + 1);
    const int j = hy_model_joint(ma, name);
    ck_assert_msg(j == 1 + k, "%s: joint %s at %d", c->type, name, j);
    ck_assert_int_eq(ma->jnt_zadr[j], 1 + k);
    if (k + 1 < c->nz) {
      const int b = hy_model_body(ma, name);
      ck_assert_int_eq(b, 1 + k);
      ck_assert(ma->body_mass[b] == 0);
    }
  }
  hy_data* da = hy_test_make(ma);
  hy_data* db = hy_test_make(mb);
  hy_test_steps(ma, da, 400);
  hy_test_steps(mb, db, 400);
  const int nz = ma->sizes.nz, ch = hy_model_body(ma, "c");
  ck_assert_msg(maxdiff(da->z, db->z, nz) < 1e-12, "%s: z differ by %g", c->type,
                maxdiff(da->z, db->z, nz));
  ck_assert_msg(maxdiff(da->zd, db->zd, nz) < 1e-11, "%s: zd differ by %g", c->type,
                maxdiff(da->zd, db->zd, nz));
  // the place the docs give, from the coordinates
  double A[9], xp[3], xc[3];
  docs_place(c, da->z[0], da->z + 1, A, xp);
  ck_assert_msg(maxdiff(A, da->body_rot + 9 * ch, 9) < 1e-12, "%s: rotation off by %g", c->type,
                maxdiff(A, da->body_rot + 9 * ch, 9));
  mulv(xc, da->body_rot + 9 * ch, kCP);
  for (int i = 0; i < 3; i++) xc[i] += da->body_pos[3 * ch + i];
  ck_assert_msg(maxdiff(xc, xp, 3) < 1e-12, "%s: joint point off by %g", c->type,
                maxdiff(xc, xp, 3));
  // the motion is not trivial: every coordinate moved
  for (int i = 1; i < nz; i++) ck_assert(fabs(da->z[i] - ma->z0[i]) > 1e-4);
  // results name each coordinate after its joint
  hy_channels* chs;
  ck_assert_int_eq(hy_channels_make(ma, da, &chs, NULL), HY_OK);
  char name[32];
  snprintf(name, sizeof name, "z:J.%d", c->nz);
  ck_assert_int_ge(hy_channels_find(chs, name), 0);
  snprintf(name, sizeof name, "zd:J.%d", c->nz);
  ck_assert_int_ge(hy_channels_find(chs, name), 0);
  hy_channels_free(chs);
  // the massless bodies' names hold a dot, and are still parameters of the model
  ck_assert(hy_model_param(ma, "body:J.1.mass", NULL, NULL) == ma->body_mass + 1);
  ck_assert(hy_model_param(ma, "body:c.mass", NULL, NULL) == ma->body_mass + c->nz);
  hy_data_free(da);
  hy_data_free(db);
  hy_model_free(ma);
  hy_model_free(mb);
}
END_TEST

//----- point masses ----------------------------------------------------------------------------

// A 3-D double pendulum: `arm` with a full inertia and two point masses, `tip` massless but for
// three point masses.
static const double kArmMass = 1.5, kArmCom[3] = {0.1, -0.4, 0.05};
static const double kArmJ[6] = {0.02, 0.03, 0.04, 0.001, -0.002, 0.003};  // xx yy zz xy xz yz
static const double kPm[5][4] = {{0.7, 0.3, -1, 0.2},
                                 {0.4, -0.2, -0.6, -0.1},  // arm: mass, point
                                 {0.9, 0, -0.8, 0.3},
                                 {0.5, 0.2, -0.3, -0.4},
                                 {0.3, -0.25, -0.5, 0.1}};  // tip

static void pendulum_text(char* buf, size_t size, const char* arm, const char* tip) {
  snprintf(buf, size,
           "name: pm\n"
           "gravity: [0.5, -9.81, 0.3]\n"
           "bodies:\n"
           "  - %s\n"
           "  - %s\n"
           "joints:\n"
           "  - {name: j1, type: revolute, parent: ground, child: arm, z0: 30, zd0: 50}\n"
           "  - {name: j2, type: revolute, parent: arm, child: tip, parent_point: [0, -1, 0], "
           "axis: [1, 0, 0.2], z0: -20, zd0: 90}\n"
           "solver: {integrator: rk4, dt: 1.0e-3}\n",
           arm, tip);
}

// About the body origin first, then to the centre of mass (J_O = sum over the parts of their
// J_c + m S(c); J_c = J_O - M S(c)), the way the compiler does not take.
static void merge_by_hand(double mass0, const double com0[3], const double J0[9], int first, int n,
                          double* mass, double com[3], double J[9]) {
  double M = mass0, f[3], JO[9];
  for (int i = 0; i < 3; i++) f[i] = mass0 * com0[i];
  for (int k = 0; k < 9; k++) JO[k] = J0[k];
  const double* parts[6];
  double pm[6];
  parts[0] = com0;
  pm[0] = mass0;
  for (int q = 0; q < n; q++) {
    parts[q + 1] = kPm[first + q] + 1;
    pm[q + 1] = kPm[first + q][0];
    M += pm[q + 1];
    for (int i = 0; i < 3; i++) f[i] += pm[q + 1] * parts[q + 1][i];
  }
  for (int q = 0; q <= n; q++) {
    const double* p = parts[q];
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) JO[3 * r + c] += pm[q] * ((r == c ? dot(p, p) : 0) - p[r] * p[c]);
    }
  }
  for (int i = 0; i < 3; i++) com[i] = f[i] / M;
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      J[3 * r + c] = JO[3 * r + c] - M * ((r == c ? dot(com, com) : 0) - com[r] * com[c]);
    }
  }
  *mass = M;
}

static void body_text(char* buf, size_t size, const char* name, double mass, const double com[3],
                      const double J[9]) {
  snprintf(buf, size,
           "{name: %s, mass: %.17g, com: [%.17g, %.17g, %.17g], inertia: [%.17g, %.17g, %.17g, "
           "%.17g, %.17g, %.17g]}",
           name, mass, com[0], com[1], com[2], J[0], J[4], J[8], J[1], J[2], J[5]);
}

START_TEST(point_masses_merge) {
  char arm[1024], tip[1024], text[4096];
  snprintf(arm, sizeof arm,
           "{name: arm, mass: %.17g, com: [%.17g, %.17g, %.17g], inertia: [%g, %g, %g, %g, %g, "
           "%g], point_masses: [{mass: %g, point: [%g, %g, %g]}, {mass: %g, point: [%g, %g, %g]}]}",
           kArmMass, kArmCom[0], kArmCom[1], kArmCom[2], kArmJ[0], kArmJ[1], kArmJ[2], kArmJ[3],
           kArmJ[4], kArmJ[5], kPm[0][0], kPm[0][1], kPm[0][2], kPm[0][3], kPm[1][0], kPm[1][1],
           kPm[1][2], kPm[1][3]);
  snprintf(tip, sizeof tip,
           "{name: tip, mass: 0, point_masses: [{mass: %g, point: [%g, %g, %g]}, {mass: %g, "
           "point: [%g, %g, %g]}, {mass: %g, point: [%g, %g, %g]}]}",
           kPm[2][0], kPm[2][1], kPm[2][2], kPm[2][3], kPm[3][0], kPm[3][1], kPm[3][2], kPm[3][3],
           kPm[4][0], kPm[4][1], kPm[4][2], kPm[4][3]);
  pendulum_text(text, sizeof text, arm, tip);
  hy_model* ma = hy_test_load_text(text, "point-masses.yaml");

  const double J0[9] = {kArmJ[0], kArmJ[3], kArmJ[4], kArmJ[3], kArmJ[1],
                        kArmJ[5], kArmJ[4], kArmJ[5], kArmJ[2]};
  const double zero3[3] = {0, 0, 0}, zero9[9] = {0};
  double mass[2], com[2][3], J[2][9];
  merge_by_hand(kArmMass, kArmCom, J0, 0, 2, &mass[0], com[0], J[0]);
  merge_by_hand(0, zero3, zero9, 2, 3, &mass[1], com[1], J[1]);
  body_text(arm, sizeof arm, "arm", mass[0], com[0], J[0]);
  body_text(tip, sizeof tip, "tip", mass[1], com[1], J[1]);
  pendulum_text(text, sizeof text, arm, tip);
  hy_model* mb = hy_test_load_text(text, "merged.yaml");
  for (int b = 0; b < 2; b++) {
    ck_assert_double_eq_tol(ma->body_mass[b], mass[b], 1e-15);
    ck_assert_msg(maxdiff(ma->body_com + 3 * b, com[b], 3) < 1e-15, "body %d: com", b);
    ck_assert_msg(maxdiff(ma->body_inertia + 9 * b, J[b], 9) < 1e-14, "body %d: inertia off by %g",
                  b, maxdiff(ma->body_inertia + 9 * b, J[b], 9));
  }
  hy_data* da = hy_test_make(ma);
  hy_data* db = hy_test_make(mb);
  hy_test_steps(ma, da, 1000);
  hy_test_steps(mb, db, 1000);
  ck_assert_msg(maxdiff(da->z, db->z, 2) < 1e-11, "z differ by %g", maxdiff(da->z, db->z, 2));
  ck_assert_msg(maxdiff(da->zd, db->zd, 2) < 1e-10, "zd differ by %g", maxdiff(da->zd, db->zd, 2));
  ck_assert(fabs(da->z[1] - ma->z0[1]) > 0.1);
  hy_data_free(da);
  hy_data_free(db);
  hy_model_free(ma);
  hy_model_free(mb);
}
END_TEST

//----- a massless link -------------------------------------------------------------------------

// A massless link from ground carries at its far end the hinge of a disk whose centre of mass
// is on that hinge. The link is then a two-force member: it holds the disk's centre on a circle
// and passes no moment, so the centre swings as a simple pendulum of the disk's mass, and the
// disk turns at a constant rate. The model without the link: a point-mass pendulum and a disk on
// a hinge through its centre of mass, coordinates phi and theta = phi + psi of the first model.
static const char kLinkModel[] =
    "name: massless-link\n"
    "bodies:\n"
    "  - {name: link, mass: 0}\n"
    "  - {name: disk, mass: 2, inertia: [0.025, 0.025, 0.05]}\n"
    "joints:\n"
    "  - {name: phi, type: revolute, parent: ground, child: link, z0: 30, zd0: 10}\n"
    "  - {name: psi, type: revolute, parent: link, child: disk, parent_point: [0, -1.2, 0], "
    "z0: -50, zd0: 100}\n"
    "solver: {dt: 1.0e-3, formulation: %s, integrator: %s}\n";
static const char kNoLinkModel[] =
    "name: no-link\n"
    "bodies:\n"
    "  - {name: bob, mass: 2, com: [0, -1.2, 0]}\n"
    "  - {name: disk, mass: 2, inertia: [0.025, 0.025, 0.05]}\n"
    "joints:\n"
    "  - {name: phi, type: revolute, parent: ground, child: bob, z0: 30, zd0: 10}\n"
    "  - {name: theta, type: revolute, parent: ground, child: disk, parent_point: [5, 0, 0], "
    "z0: -20, zd0: 110}\n"
    "solver: {dt: 1.0e-3, integrator: %s}\n";

START_TEST(massless_link) {
  // formulation, its integrator, the integrator of the comparison, tolerance (rad, rad/s): the
  // same discretization gives the same motion to round-off (RK4 and the trapezoidal rule are
  // invariant under the linear change of coordinates; Newton converges far below its
  // tolerance on this smooth motion); ali1 and ali3p discretize other coordinates, so differ
  // by their errors at dt = 1e-3 s (O(dt) and O(dt^2) over 2 s)
  typedef struct link_run {
    const char *form, *integ, *ref_integ;
    double tol;
  } link_run;
  static const link_run runs[] = {{"tree", "rk4", "rk4", 1e-11},
                                  {"penalty", "trapezoidal", "trapezoidal", 1e-9},
                                  {"double-step", "trapezoidal", "trapezoidal", 1e-9},
                                  {"ali3p", "auto", "trapezoidal", 1e-5},
                                  {"ali1", "auto", "rk4", 2e-3}};
  const link_run* r = &runs[_i];
  char text[2048];
  snprintf(text, sizeof text, kLinkModel, r->form, r->integ);
  hy_model* ma = hy_test_load_text(text, "link.yaml");
  snprintf(text, sizeof text, kNoLinkModel, r->ref_integ);
  hy_model* mb = hy_test_load_text(text, "no-link.yaml");
  ck_assert_int_eq(ma->planar, 1);
  hy_data* da = hy_test_make(ma);
  hy_data* db = hy_test_make(mb);
  hy_test_steps(ma, da, 2000);
  hy_test_steps(mb, db, 2000);
  const double za[2] = {da->z[0], da->z[0] + da->z[1]}, zda[2] = {da->zd[0], da->zd[0] + da->zd[1]};
  ck_assert_msg(maxdiff(za, db->z, 2) < r->tol, "%s: angles differ by %g", r->form,
                maxdiff(za, db->z, 2));
  ck_assert_msg(maxdiff(zda, db->zd, 2) < 10 * r->tol, "%s: rates differ by %g", r->form,
                maxdiff(zda, db->zd, 2));
  // the disk turned at its constant rate, the pendulum swung
  ck_assert_double_eq_tol(db->z[1], -20 * kDeg + 110 * kDeg * 2.0, 1e-9);
  ck_assert(fabs(db->z[0] - 30 * kDeg) > 0.1);
  hy_data_free(da);
  hy_data_free(db);
  hy_model_free(ma);
  hy_model_free(mb);
}
END_TEST

//----- a free body in zero gravity -------------------------------------------------------------

static const char kFreeBody[] =
    "name: free-body\n"
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - {name: box, mass: 3, com: [0.1, -0.2, 0.05], inertia: [0.4, 0.25, 0.3, 0.03, -0.02, "
    "0.05]}\n"
    "joints:\n"
    "  - {name: F, type: free, parent: ground, child: box, parent_point: [1, 2, -1], child_point: "
    "[0.2, 0, -0.1], z0: [0.5, -0.3, 0.2, 10, -15, 20], zd0: [0.4, -0.2, 0.3, 10, 5, 150]}\n"
    "solver: {integrator: dopri5, tolerance: 1.0e-10, dt: 1.0e-2}\n";

START_TEST(free_body_conserves_momenta) {
  hy_model* m = hy_test_load_text(kFreeBody, "free-body.yaml");
  ck_assert_int_eq(m->sizes.nz, 6);
  ck_assert_int_eq(m->sizes.ngimbal, 1);
  hy_data* d = hy_test_make(m);
  const int b = hy_model_body(m, "box");
  double p0[3], L0[3], T0;
  hy_test_body_momenta(m, d, b, p0, L0, &T0);
  // not about a principal axis: the angular momentum is not parallel to omega
  double c[3];
  cross(c, L0, d->body_Z + 6 * b + 3);
  ck_assert(sqrt(dot(c, c)) >
            0.05 * sqrt(dot(L0, L0)) * sqrt(dot(d->body_Z + 6 * b + 3, d->body_Z + 6 * b + 3)));
  double worst_p = 0, worst_L = 0, worst_T = 0, pitch = 0;
  for (int step = 0; step < 400; step++) {
    hy_test_steps(m, d, 1);
    double p[3], L[3], T;
    hy_test_body_momenta(m, d, b, p, L, &T);
    worst_p = fmax(worst_p, maxdiff(p, p0, 3));
    worst_L = fmax(worst_L, maxdiff(L, L0, 3));
    worst_T = fmax(worst_T, fabs(T - T0));
    pitch = fmax(pitch, fabs(d->z[4]));
  }
  // over 4 s, to the integrator's tolerance (1e-10 a step, some 100 steps a second)
  ck_assert_msg(worst_p < 1e-8, "linear momentum drifts by %g", worst_p);
  ck_assert_msg(worst_L < 1e-8, "angular momentum drifts by %g", worst_L);
  ck_assert_msg(worst_T < 1e-8 * T0, "kinetic energy drifts by %g of %g", worst_T, T0);
  // it tumbled, clear of the gimbal lock
  ck_assert_msg(pitch < 45 * kDeg, "the pitch reached %g deg", pitch / kDeg);
  ck_assert(fabs(d->z[5] - m->z0[5]) > 1 && fabs(d->z[0] - m->z0[0]) > 1);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- the gimbal lock ---------------------------------------------------------------------------

// The lock is where the child's line along child_axis stands perpendicular to axis: the angle
// theta between them has cos theta = cos beta cos gamma (docs/model-format.md, "Singularities").
// A conical pendulum along that line, tilted by up to 80 deg, never comes near it.
START_TEST(gimbal_lock_is_the_tilt) {
  static const char text[] =
      "name: cone\n"
      "gravity: [0, 0, -9.81]\n"
      "bodies:\n"
      "  - {name: bob, mass: 2, com: [0, 0, -1], inertia: [0.1, 0.1, 0.02]}\n"
      "joints:\n"
      "  - {name: S, type: spherical, parent: ground, child: bob, z0: [0, 10, 80], zd0: [150, 0, "
      "0]}\n"
      "solver: {integrator: dopri5, tolerance: 1.0e-9, dt: 1.0e-2}\n";
  hy_model* m = hy_test_load_text(text, "cone.yaml");
  hy_data* d = hy_test_make(m);
  double worst = 0, beta = 0, theta = 0;
  for (int k = 0; k < 500; k++) {
    hy_test_steps(m, d, 1);  // fails the test on any error, the gimbal lock's too
    const double* R = d->body_rot + 9 * hy_model_body(m, "bob");
    const double cth = R[8];  // +z . R (0, 0, 1)
    // the angles of the chart the model defines (the channels'), whatever the chart in z
    const double* a = d->gimbal_out;
    worst = fmax(worst, fabs(cth - cos(a[1]) * cos(a[2])));
    beta = fmax(beta, fabs(a[1]));
    theta = fmax(theta, acos(cth));
  }
  ck_assert_msg(worst < 1e-12, "cos theta off by %g", worst);
  ck_assert_msg(beta <= theta + 1e-12 && theta > 75 * kDeg && theta < 89 * kDeg,
                "beta up to %g deg, theta up to %g deg", beta / kDeg, theta / kDeg);
  ck_assert(fabs(d->gimbal_out[0]) > 1);  // it went round
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

START_TEST(gimbal_lock_at_the_start) {
  static const char text[] =
      "name: locked\n"
      "bodies:\n"
      "  - {name: bob, mass: 2, com: [0, 0, -1], inertia: [0.1, 0.1, 0.02]}\n"
      "joints:\n"
      "  - {name: S, type: spherical, parent: ground, child: bob, z0: [0, -89.5, 0]}\n";
  char msg[700];
  ck_assert_int_eq(load_fails(text, msg, sizeof msg), HY_ERR_MODEL);
  ck_assert_msg(strstr(msg, "bad.yaml:5:5: spherical joint 'S': z0[1] = -89.5 deg is within 1 deg"),
                "%s", msg);
}
END_TEST

//----- errors of model files -------------------------------------------------------------------

static const char kErrHead[] =
    "name: bad\n"
    "bodies:\n"
    "  - {name: a, mass: 1, inertia: [1, 1, 1]}\n";

START_TEST(model_file_errors) {
  static const struct {
    const char* rest;
    const char* expect;
  } cases[] = {
      {"joints:\n  - {name: S, type: spherical, parent: ground, child: a, z0: [1, 2]}\n",
       "bad.yaml:5:62: joints[0] 'S': z0: a spherical joint has 3 coordinates: expected a list of "
       "3 "
       "numbers (deg, deg, deg), got a list of 2"},
      {"joints:\n  - {name: F, type: free, parent: ground, child: a, zd0: 4}\n",
       "bad.yaml:5:58: joints[0] 'F': zd0: a free joint has 6 coordinates: expected a list of 6 "
       "numbers (m/s, m/s, m/s, deg/s, deg/s, deg/s), got '4'"},
      {"joints:\n  - {name: S, type: ball, parent: ground, child: a}\n",
       "bad.yaml:5:21: joints[0] 'S': type: expected"},
      {"joints:\n  - {name: R, type: revolute, parent: ground, child: a, axis2: [1, 0, 0]}\n",
       "bad.yaml:5:57: joints[0] 'R': axis2: a revolute joint has no second axis"},
      {"joints:\n  - {name: U, type: universal, parent: ground, child: a, axis2: [0, 0, 2]}\n",
       "bad.yaml:5:5: universal joint 'U': axis2 (0, 0, 2) must be perpendicular to child_axis (0, "
       "0, 1)"},
      {"joints:\n  - {name: U, type: universal, parent: ground, child: a, axis2: [0, 0, 0]}\n",
       "bad.yaml:5:5: universal joint 'U': axis2 must be a finite, non-zero vector"},
      {"joints:\n  - {name: C, type: cylindrical, parent: ground, child: a, z0: [2e6, 0]}\n",
       "bad.yaml:5:5: cylindrical joint 'C': z0[0] must be between -1e+06 and 1e+06 (m), got "
       "2e+06"},
      {"joints:\n  - {name: S, type: spherical, parent: ground, child: a, zd0: [0, 6e7, 0]}\n",
       "bad.yaml:5:5: spherical joint 'S': zd0[1] must be between -1e+06 and 1e+06 (rad/s)"},
      {"  - {name: S.2, mass: 1, inertia: [1, 1, 1]}\njoints:\n  - {name: S, type: spherical, "
       "parent: ground, child: a}\n  - {name: T, type: revolute, parent: a, child: S.2}\n",
       "bad.yaml:6:5: spherical joint 'S' makes a massless body 'S.2' for its chain, but the model "
       "has another body of that name"},
      {"  - {name: b, mass: 1, inertia: [1, 1, 1]}\njoints:\n  - {name: S, type: spherical, "
       "parent: ground, child: a}\n  - {name: S.3, type: revolute, parent: a, child: b}\n",
       "bad.yaml:6:5: spherical joint 'S' compiles its coordinate 3 into a joint named 'S.3', but "
       "the model has another joint of that name"},
      {"joints:\n  - {name: S, type: spherical, parent: ground, child: nowhere}\n",
       "bad.yaml:5:5: joint 'S': child body 'nowhere' does not exist"},
      {"planar: true\njoints:\n  - {name: U, type: universal, parent: ground, child: a}\n",
       "bad.yaml:6:5: planar: true, but universal joint 'U' moves the child out of any plane"},
      {"  - {name: p, mass: 0, point_masses: [{mass: 1, point: [0, 1, 0]}, {mass: -1}]}\njoints:\n"
       "  - {name: R, type: revolute, parent: ground, child: a}\n"
       "  - {name: Q, type: revolute, parent: a, child: p}\n",
       "bad.yaml:4:68: body 'p': point_masses[1]: mass must be >= 0 (kg), got -1"},
      {"  - {name: p, mass: 0, point_masses: [{mass: 1, pos: [0, 1, 0]}]}\njoints:\n"
       "  - {name: R, type: revolute, parent: ground, child: a}\n"
       "  - {name: Q, type: revolute, parent: a, child: p}\n",
       "bad.yaml:4:49: unknown key 'pos' in point mass 0 of body 'p' (expected one of: mass, "
       "point)"},
      {"  - {name: p, mass: 0, inertia: [1, 1, 1], point_masses: [{mass: 1}]}\njoints:\n"
       "  - {name: R, type: revolute, parent: ground, child: a}\n"
       "  - {name: Q, type: revolute, parent: a, child: p}\n",
       "bad.yaml:4:5: body 'p': mass 0 needs a zero inertia, but inertia[0][0] is 1"},
      {"  - {name: p, mass: 0, point_masses: {mass: 1}}\njoints:\n"
       "  - {name: R, type: revolute, parent: ground, child: a}\n",
       "bad.yaml:4:38: bodies[1] 'p': point_masses: expected a list of mappings"},
  };
  char text[2048], msg[700];
  const int n = (int)(sizeof cases / sizeof cases[0]);
  for (int k = 0; k < n; k++) {
    snprintf(text, sizeof text, "%s%s", kErrHead, cases[k].rest);
    ck_assert_msg(load_fails(text, msg, sizeof msg) == HY_ERR_MODEL, "case %d loaded", k);
    ck_assert_msg(strncmp(msg, cases[k].expect, strlen(cases[k].expect)) == 0,
                  "case %d:\n  got      %s\n  expected %s", k, msg, cases[k].expect);
  }
}
END_TEST

// The builder API meets the same rules with the same message (without a file position), and
// a joint of several coordinates built in code runs as one read from a file.
// A body "a" on the spherical joint j, compiled: its status, the message in err.
static hy_status compile_spherical(const hy_joint_def* j, hy_model** m, hy_error* err) {
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_spec_set_name(s, "built", NULL);
  hy_body_def b = hy_body_def_default();
  strcpy(b.name, "a");
  b.mass = 1;
  b.com[2] = -1;
  b.inertia[0] = b.inertia[4] = b.inertia[8] = 1;
  ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
  ck_assert_int_eq(hy_spec_add_joint(s, j), HY_OK);
  *m = NULL;
  const hy_status st = hy_model_compile(s, m, err);
  hy_spec_free(s);
  return st;
}

START_TEST(builder_matches_file) {
  hy_joint_def j = hy_joint_def_default();
  strcpy(j.name, "S");
  strcpy(j.child, "a");
  j.type = HY_JOINT_SPHERICAL;
  j.zd0s[1] = 6e7 * kDeg;
  hy_model* m;
  hy_error err;
  ck_assert_int_eq(compile_spherical(&j, &m, &err), HY_ERR_MODEL);
  char file_msg[700];
  snprintf(file_msg, sizeof file_msg, "%s%s", kErrHead,
           "joints:\n  - {name: S, type: spherical, parent: ground, child: a, zd0: [0, 6e7, 0]}\n");
  ck_assert_int_eq(load_fails(file_msg, file_msg, sizeof file_msg), HY_ERR_MODEL);
  ck_assert_msg(strstr(file_msg, err.msg) != NULL, "builder: %s\nfile: %s", err.msg, file_msg);
  ck_assert_int_eq(err.src_line, 0);
  // a coordinate past the joint's own
  j.zd0s[1] = 0;
  j.z0s[3] = 0.1;
  ck_assert_int_eq(compile_spherical(&j, &m, &err), HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "spherical joint 'S' has 3 coordinates: z0s[3]"), "%s", err.msg);
  // z0 is the first of z0s: the same joint from a file with z0: [30, 20, 10] runs the same
  j.z0s[3] = 0;
  j.z0 = 30 * kDeg;
  j.z0s[1] = 20 * kDeg;
  j.z0s[2] = 10 * kDeg;
  j.zd0 = 50 * kDeg;
  ck_assert_int_eq(compile_spherical(&j, &m, &err), HY_OK);
  char text[1024];
  snprintf(text, sizeof text, "%s%s",
           "name: f\nbodies:\n  - {name: a, mass: 1, com: [0, 0, -1], "
           "inertia: [1, 1, 1]}\n",
           "joints:\n  - {name: S, type: spherical, parent: ground, child: a, z0: [30, 20, 10], "
           "zd0: [50, 0, 0]}\n");
  hy_model* mf = hy_test_load_text(text, "f.yaml");
  ck_assert_int_eq(m->sizes.nz, 3);
  ck_assert(maxdiff(m->z0, mf->z0, 3) == 0 && maxdiff(m->zd0, mf->zd0, 3) == 0);
  hy_data* d = hy_test_make(m);
  hy_data* df = hy_test_make(mf);
  hy_test_steps(m, d, 100);
  hy_test_steps(mf, df, 100);
  hy_test_same_bits(d->z, df->z, 3, "z");
  hy_data_free(d);
  hy_data_free(df);
  hy_model_free(m);
  hy_model_free(mf);
}
END_TEST

Suite* mech_joints_suite(void) {
  Suite* s = suite_create("mech_joints");
  TCase* tc = tcase_create("joints");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, joint_equals_its_chain, 0, (int)(sizeof kCases / sizeof kCases[0]));
  tcase_add_test(tc, point_masses_merge);
  tcase_add_loop_test(tc, massless_link, 0, 5);
  tcase_add_test(tc, free_body_conserves_momenta);
  tcase_add_test(tc, gimbal_lock_is_the_tilt);
  tcase_add_test(tc, gimbal_lock_at_the_start);
  tcase_add_test(tc, model_file_errors);
  tcase_add_test(tc, builder_matches_file);
  suite_add_tcase(s, tc);
  return s;
}
