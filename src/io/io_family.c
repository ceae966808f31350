// Built-in model families for scaling studies (shared/seeds/hdca_cases.md): chain-N, loop-N and
// the three HDCA test cases, built through the builder API (hy_spec_*) rather than from YAML,
// since N runs to thousands of bodies.
//
// Every body is a straight bar between two points given in the inertial frame at the initial
// configuration: a, its revolute joint to its parent (ground or the previous bar), and b, its far
// end. All joint axes are +z, so the models are planar in the x-y plane. The body frame has its
// origin at a and its axes parallel to the inertial axes in the initial configuration. Every
// z0 is therefore 0 (z is the joint's turn away from the initial configuration), and at z = 0
// the kinematics only add the stored joint vectors: the model starts in the stated
// configuration up to the rounding of the points themselves, with no angle to evaluate. The
// centre of mass is the midpoint, (b - a) / 2 in the body frame; the inertia, given by its
// principal moments along the bar, across it in the plane and about z, is rotated onto the bar's
// direction.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/model.h"

// HY_FAMILY_N_MAX as a string literal, for the descriptions.
#define STR_(x) #x
#define STR(x) STR_(x)
#define N_MAX_TEXT STR(HY_FAMILY_N_MAX)

// Principal moments of a bar about its centre of mass (kg m^2): along the bar, across it in the
// plane, about the plane normal z.
typedef struct bar_inertia {
  double along;
  double across;
  double normal;
} bar_inertia;

// Thin rods of the scaling families: 1 m, 1 kg, m L^2 / 12 about both axes across the rod (in
// the plane and about z), 0 about its own axis (the `rod` inertia of the model format).
static const bar_inertia kRod = {0.0, 1.0 / 12.0, 1.0 / 12.0};
// Bodies of the HDCA cases: centroidal inertia diag(1, 1, 1) kg m^2 (seed, hdca_cases.md).
static const bar_inertia kCaseBody = {1.0, 1.0, 1.0};

//----- building blocks -------------------------------------------------------------------------

// A failed hy_spec_add_* (they fail only for lack of memory).
static hy_status spec_fail(hy_status st, hy_error* err) {
  if (st == HY_ERR_NOMEM) return HY_FAIL(err, HY_ERR_NOMEM, "out of memory building the model");
  return HY_FAIL(err, st, "building the model failed: %s", hy_status_str(st));
}

// Adds body `body` as the bar a -> b (inertial frame, initial configuration) and the revolute
// joint `joint` about +z at a that hangs it from `parent` ("ground" or a bar), whose frame has
// its origin at parent_origin (ground: (0, 0)). Unit mass.
static hy_status add_bar(hy_spec* s, const char* body, const char* joint, const char* parent,
                         const double parent_origin[2], const double a[2], const double b[2],
                         const bar_inertia* in, hy_error* err) {
  const double dx = b[0] - a[0], dy = b[1] - a[1];
  const double len = hypot(dx, dy);
  const double ux = dx / len, uy = dy / len;

  // body: centre of mass at the midpoint; I = across (1 - u u^T) + along u u^T in the plane
  hy_body_def bd = hy_body_def_default();
  snprintf(bd.name, sizeof bd.name, "%s", body);
  bd.mass = 1.0;
  bd.com[0] = 0.5 * dx;
  bd.com[1] = 0.5 * dy;
  const double da = in->along - in->across;
  bd.inertia[0] = in->across + da * ux * ux;
  bd.inertia[4] = in->across + da * uy * uy;
  bd.inertia[1] = bd.inertia[3] = da * ux * uy;
  bd.inertia[8] = in->normal;
  hy_status st = hy_spec_add_body(s, &bd);
  if (st != HY_OK) return spec_fail(st, err);

  // joint: a in the parent's frame, the child's origin; z0 = 0 (frames parallel at t = 0)
  hy_joint_def jd = hy_joint_def_default();
  snprintf(jd.name, sizeof jd.name, "%s", joint);
  snprintf(jd.parent, sizeof jd.parent, "%s", parent);
  snprintf(jd.child, sizeof jd.child, "%s", body);
  jd.type = HY_JOINT_REVOLUTE;
  jd.parent_point[0] = a[0] - parent_origin[0];
  jd.parent_point[1] = a[1] - parent_origin[1];
  st = hy_spec_add_joint(s, &jd);
  return st == HY_OK ? HY_OK : spec_fail(st, err);
}

// Adds marker `name` at point p (inertial frame, initial configuration) on `body` ("ground" or
// a bar), whose frame has its origin at origin.
static hy_status add_marker(hy_spec* s, const char* name, const char* body, const double origin[2],
                            const double p[2], hy_error* err) {
  hy_marker_def md = hy_marker_def_default();
  snprintf(md.name, sizeof md.name, "%s", name);
  snprintf(md.body, sizeof md.body, "%s", body);
  md.point[0] = p[0] - origin[0];
  md.point[1] = p[1] - origin[1];
  hy_status st = hy_spec_add_marker(s, &md);
  return st == HY_OK ? HY_OK : spec_fail(st, err);
}

// Adds the revolute cut joint `name` (axes +z) between two existing markers.
static hy_status add_cut(hy_spec* s, const char* name, const char* marker_a, const char* marker_b,
                         hy_error* err) {
  hy_cut_def cd = hy_cut_def_default();
  snprintf(cd.name, sizeof cd.name, "%s", name);
  snprintf(cd.marker_a, sizeof cd.marker_a, "%s", marker_a);
  snprintf(cd.marker_b, sizeof cd.marker_b, "%s", marker_b);
  cd.type = HY_CUT_REVOLUTE;
  hy_status st = hy_spec_add_cut(s, &cd);
  return st == HY_OK ? HY_OK : spec_fail(st, err);
}

// Adds the serial chain of bars p[0] -> p[1] -> ... -> p[n] hinged to ground at p[0]: body
// bar<k> from p[k-1] to p[k] on joint j<k> (k = 1..n).
static hy_status add_serial_chain(hy_spec* s, const double (*p)[2], int n, const bar_inertia* in,
                                  hy_error* err) {
  static const double kOrigin[2] = {0, 0};
  char body[HY_NAME_MAX], joint[HY_NAME_MAX], parent[HY_NAME_MAX] = "ground";
  for (int k = 1; k <= n; k++) {
    snprintf(body, sizeof body, "bar%d", k);
    snprintf(joint, sizeof joint, "j%d", k);
    HY_TRY(add_bar(s, body, joint, parent, k == 1 ? kOrigin : p[k - 2], p[k - 1], p[k], in, err));
    memcpy(parent, body, sizeof parent);
  }
  return HY_OK;
}

//----- the families ----------------------------------------------------------------------------

// chain-N: bar k from (k-1, 0) to (k, 0), horizontal along +x, E(0) = 0.
static hy_status build_chain(hy_spec* s, int n, hy_error* err) {
  double(*p)[2] = hy_malloc(sizeof *p * (size_t)(n + 1));
  if (!p) return HY_FAIL(err, HY_ERR_NOMEM, "out of memory building the model");
  for (int k = 0; k <= n; k++) {
    p[k][0] = k;
    p[k][1] = 0;
  }
  hy_status st = add_serial_chain(s, (const double(*)[2])p, n, &kRod, err);
  hy_free(p);
  return st;
}

// The regular (N+1)-gon of 1 m sides hanging below its ground side: P0 = (0, 0),
// P(k) = P(k-1) + (cos phi_k, sin phi_k), phi_k = pi + 2 pi k / (N + 1), bar k from P(k-1) to
// P(k); bar N's tip P(N) = (1, 0) is closed to ground by the revolute cut joint `close` between
// its marker `tip` and the ground marker `end`.
static hy_status add_polygon(hy_spec* s, int n, const bar_inertia* in, hy_error* err) {
  static const double kOrigin[2] = {0, 0};
  static const double kEnd[2] = {1, 0};
  double(*p)[2] = hy_malloc(sizeof *p * (size_t)(n + 1));
  if (!p) return HY_FAIL(err, HY_ERR_NOMEM, "out of memory building the model");
  p[0][0] = p[0][1] = 0;
  for (int k = 1; k <= n; k++) {
    const double phi = HY_PI + 2.0 * HY_PI * k / (n + 1);
    p[k][0] = p[k - 1][0] + cos(phi);
    p[k][1] = p[k - 1][1] + sin(phi);
  }
  char last[HY_NAME_MAX];
  snprintf(last, sizeof last, "bar%d", n);
  hy_status st = add_serial_chain(s, (const double(*)[2])p, n, in, err);
  if (st == HY_OK) st = add_marker(s, "tip", last, p[n - 1], p[n], err);
  if (st == HY_OK) st = add_marker(s, "end", "ground", kOrigin, kEnd, err);
  if (st == HY_OK) st = add_cut(s, "close", "tip", "end", err);
  hy_free(p);
  return st;
}

// loop-N: N thin rods as add_polygon's (N+1)-gon, N - 2 degrees of freedom.
static hy_status build_loop(hy_spec* s, int n, hy_error* err) {
  return add_polygon(s, n, &kRod, err);
}

// hdca-case1: ground pivots A = (0, 0), D = (2, 0); crank A -> B = (1, 0), coupler
// B -> C = (1.5, sqrt(3)/2), rocker C -> D closed to ground at D. E(0) = 9.81 sqrt(3)/2 J.
static hy_status build_case1(hy_spec* s, int n, hy_error* err) {
  (void)n;
  static const double O[2] = {0, 0};
  const double A[2] = {0, 0}, B[2] = {1, 0}, C[2] = {1.5, 0.5 * sqrt(3.0)}, D[2] = {2, 0};
  HY_TRY(add_bar(s, "crank", "A", "ground", O, A, B, &kCaseBody, err));
  HY_TRY(add_bar(s, "coupler", "B", "crank", A, B, C, &kCaseBody, err));
  HY_TRY(add_bar(s, "rocker", "C", "coupler", B, C, D, &kCaseBody, err));
  HY_TRY(add_marker(s, "rocker-D", "rocker", C, D, err));
  HY_TRY(add_marker(s, "ground-D", "ground", O, D, err));
  return add_cut(s, "D", "rocker-D", "ground-D", err);
}

// hdca-case2: the regular octagon with 1 m sides hanging below its top side P0 = (0, 0) -
// P7 = (1, 0), phi_k = 180 deg + 45 deg k: loop-7's geometry with the bodies of the cases.
static hy_status build_case2(hy_spec* s, int n, hy_error* err) {
  (void)n;
  return add_polygon(s, 7, &kCaseBody, err);
}

// hdca-case3: two regular pentagons with 1 m sides sharing the vertical middle bar
// G1 = (0, 0) -> X = (0, -1). Left chain G0 -> L1 -> L2 -> X, right chain G2 -> R1 -> R2 -> X
// its mirror image (x -> -x); both tips are closed to the middle bar's tip at X.
static hy_status build_case3(hy_spec* s, int n, hy_error* err) {
  (void)n;
  static const double O[2] = {0, 0};
  const double c18 = cos(HY_PI / 10), s18 = sin(HY_PI / 10);
  const double c36 = cos(HY_PI / 5), s36 = sin(HY_PI / 5);
  const double G1[2] = {0, 0}, X[2] = {0, -1};
  const double G0[2] = {-c18, s18}, L1[2] = {-c18 - s36, s18 - c36}, L2[2] = {-c18, -1 - s18};
  const double G2[2] = {c18, s18}, R1[2] = {c18 + s36, s18 - c36}, R2[2] = {c18, -1 - s18};
  HY_TRY(add_bar(s, "middle", "G1", "ground", O, G1, X, &kCaseBody, err));
  HY_TRY(add_bar(s, "left1", "G0", "ground", O, G0, L1, &kCaseBody, err));
  HY_TRY(add_bar(s, "left2", "L1", "left1", G0, L1, L2, &kCaseBody, err));
  HY_TRY(add_bar(s, "left3", "L2", "left2", L1, L2, X, &kCaseBody, err));
  HY_TRY(add_bar(s, "right1", "G2", "ground", O, G2, R1, &kCaseBody, err));
  HY_TRY(add_bar(s, "right2", "R1", "right1", G2, R1, R2, &kCaseBody, err));
  HY_TRY(add_bar(s, "right3", "R2", "right2", R1, R2, X, &kCaseBody, err));
  HY_TRY(add_marker(s, "middle-X", "middle", G1, X, err));
  HY_TRY(add_marker(s, "left-X", "left3", L2, X, err));
  HY_TRY(add_marker(s, "right-X", "right3", R2, X, err));
  HY_TRY(add_cut(s, "X-left", "left-X", "middle-X", err));
  return add_cut(s, "X-right", "right-X", "middle-X", err);
}

//----- the table and the names -----------------------------------------------------------------

typedef struct family {
  const char* pattern;      // "chain-N" or the fixed name
  const char* prefix;       // "chain-": the name is prefix + N; NULL: the name is the pattern
  int n_min;                // smallest N (families with N)
  const char* description;  // one line
  hy_status (*build)(hy_spec* s, int n, hy_error* err);
} family;

static const family kFamilies[] = {
    {"chain-N", "chain-", 1,
     "open pendulum of N thin rods (1 m, 1 kg) hinged in a row, horizontal at rest; "
     "N = 1.." N_MAX_TEXT,
     build_chain},
    {"loop-N", "loop-", 2,
     "N thin rods and a 1 m ground link as a regular (N+1)-gon hanging below it, one revolute "
     "cut joint, N - 2 dof; N = 2.." N_MAX_TEXT,
     build_loop},
    {"hdca-case1", NULL, 0,
     "HDCA case 1: crank, coupler and rocker (1 m, 1 kg) on a 2 m ground link, 1 dof", build_case1},
    {"hdca-case2", NULL, 0,
     "HDCA case 2: regular octagon of 7 bars (1 m, 1 kg) hanging below its ground side, 5 dof",
     build_case2},
    {"hdca-case3", NULL, 0,
     "HDCA case 3: two regular pentagons (1 m, 1 kg bars) sharing a vertical middle bar, 3 dof",
     build_case3},
};

enum { kNumFamilies = (int)(sizeof kFamilies / sizeof kFamilies[0]) };

int hy_family_count(void) { return kNumFamilies; }

const char* hy_family_pattern(int i) {
  return i >= 0 && i < kNumFamilies ? kFamilies[i].pattern : NULL;
}

const char* hy_family_description(int i) {
  return i >= 0 && i < kNumFamilies ? kFamilies[i].description : NULL;
}

int hy_family_find(const char* name) {
  if (!name) return -1;
  for (int i = 0; i < kNumFamilies; i++) {
    const family* f = &kFamilies[i];
    if (f->prefix ? strncmp(name, f->prefix, strlen(f->prefix)) == 0
                  : strcmp(name, f->pattern) == 0) {
      return i;
    }
  }
  return -1;
}

// Reads N from text (the part of the name after the prefix): decimal digits only, no sign, no
// leading zero, within n_min..HY_FAMILY_N_MAX. Fails with a message naming the valid range.
static hy_status parse_n(const char* name, const char* text, const family* f, int* n,
                         hy_error* err) {
  const char* what = NULL;
  long v = 0;
  if (*text == 0) {
    what = "N is missing";
  } else {
    for (const char* c = text; *c; c++) {
      if (*c < '0' || *c > '9') {
        what = "N must be a whole number in decimal digits";
        break;
      }
      if (v <= HY_FAMILY_N_MAX) v = 10 * v + (*c - '0');  // saturates past the range
    }
    if (!what && text[0] == '0' && text[1] != 0) what = "N must be written without leading zeros";
    if (!what && (v < f->n_min || v > HY_FAMILY_N_MAX)) what = "N is out of range";
  }
  if (what) {
    return HY_FAIL(err, HY_ERR_ARG, "model family '%.64s': %s (%s takes N = %d..%d)", name, what,
                   f->pattern, f->n_min, HY_FAMILY_N_MAX);
  }
  *n = (int)v;
  return HY_OK;
}

hy_status hy_model_family(const char* name, hy_model** out, hy_error* err) {
  if (!out) return HY_FAIL(err, HY_ERR_ARG, "null output pointer");
  *out = NULL;
  if (!name) return HY_FAIL(err, HY_ERR_ARG, "null model family name");
  const int i = hy_family_find(name);
  if (i < 0) {
    char list[256];
    size_t used = 0;
    list[0] = 0;
    for (int k = 0; k < kNumFamilies; k++) {
      int w =
          snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", kFamilies[k].pattern);
      if (w < 0 || (size_t)w >= sizeof list - used) break;
      used += (size_t)w;
    }
    return HY_FAIL(err, HY_ERR_ARG, "no model family '%.64s' (families: %s)", name, list);
  }
  const family* f = &kFamilies[i];
  int n = 0;
  if (f->prefix) HY_TRY(parse_n(name, name + strlen(f->prefix), f, &n, err));

  hy_spec* s = NULL;
  if (hy_spec_create(&s) != HY_OK) {
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory building the model");
  }
  // solver: the defaults (formulation and integrator chosen when the data are made), written
  // out where hdca_cases.md fixes them; gravity (0, -9.81, 0) is the default too
  hy_option opt = hy_option_default();
  opt.dt = 1e-3;
  opt.t_end = 10;
  hy_status st = hy_spec_set_name(s, name, NULL);
  if (st == HY_OK) st = hy_spec_set_option(s, &opt);
  if (st == HY_OK) st = hy_spec_set_planar(s, HY_PLANAR_YES);
  if (st != HY_OK) st = spec_fail(st, err);
  if (st == HY_OK) st = f->build(s, n, err);
  if (st == HY_OK) st = hy_model_compile(s, out, err);
  hy_spec_free(s);
  return st;
}
