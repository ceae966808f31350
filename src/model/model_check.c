// The checker of model values: every rule on the numbers of a model lives here, so a model
// built in code and one read from a file pass or fail the same rules with the same message
// (docs/model-format.md, "Value ranges"). The compiler keeps only what is structural (names,
// references, the tree) and the YAML loader what is syntactic.
//
// The ranges are wide enough for any machine and catch what is not one: non-finite numbers,
// values that overflow the energies or the tangent (a mass of 1e308 kg), and most slips of unit
// (a cylinder area in mm^2, a volume in cm^3). Bulk moduli have no upper bound, and a wall's may
// be HY_RIGID (infinite): no compliance term.
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "model/model.h"

//----- unit vectors --------------------------------------------------------------------------

int hy_model_unit3(double out[3], const double v[3]) {
  const double big = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
  if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) || !(big > 0)) return 0;
  double u[3] = {v[0], v[1], v[2]};
  // Where the squares can neither overflow nor underflow, the plain arithmetic, so that models
  // keep the bits they always had; elsewhere the largest component is scaled to +-1 first (an
  // axis along a coordinate then stays exactly that axis).
  if (!(big >= 1e-150 && big <= 1e150)) {
    for (int i = 0; i < 3; i++) u[i] = v[i] / big;
  }
  hy_v3_normalize(u);
  hy_v3_copy(out, u);
  return 1;
}

//----- ranges --------------------------------------------------------------------------------

// An interval a value must lie in; every value must also be finite.
typedef struct range {
  double lo, hi;         // bounds, +-INFINITY for none
  int lo_open, hi_open;  // 1: the bound itself is excluded
  const char* unit;      // shown in messages, "-" for none
} range;

static const range kMass = {0, HY_MAX_MASS, 0, 0, "kg"};  // 0: a massless link
static const range kLength = {-HY_MAX_LENGTH, HY_MAX_LENGTH, 0, 0, "m"};
static const range kLengthPos = {0, HY_MAX_LENGTH, 1, 0, "m"};
static const range kLengthNonneg = {0, HY_MAX_LENGTH, 0, 0, "m"};
static const range kFinite = {-INFINITY, INFINITY, 0, 0, "-"};
static const range kGravity = {-HY_MAX_GRAVITY, HY_MAX_GRAVITY, 0, 0, "m/s^2"};
static const range kForce = {-HY_MAX_FORCE, HY_MAX_FORCE, 0, 0, "N"};
static const range kTorque = {-HY_MAX_FORCE, HY_MAX_FORCE, 0, 0, "N m"};
static const range kPressure = {0, HY_MAX_PRESSURE, 0, 0, "Pa, absolute"};
static const range kDp = {0, HY_MAX_PRESSURE, 0, 0, "Pa"};
static const range kDpPos = {0, HY_MAX_PRESSURE, 1, 0, "Pa"};
static const range kBulk = {0, INFINITY, 1, 0, "Pa"};
static const range kBulkNonneg = {0, INFINITY, 0, 0, "Pa"};
static const range kLawK = {0, INFINITY, 0, 0, "-"};
static const range kVolume = {0, HY_MAX_VOLUME, 0, 0, "m^3"};
static const range kArea = {0, HY_MAX_AREA, 1, 0, "m^2"};
static const range kCv = {0, HY_MAX_CV, 1, 0, "m^3/(s sqrt(Pa))"};
static const range kCvValve = {0, HY_MAX_CV, 1, 0, "m^3/(s V sqrt(Pa))"};
static const range kTime = {0, INFINITY, 1, 0, "s"};
static const range kVoltage = {-HY_MAX_VOLTAGE, HY_MAX_VOLTAGE, 0, 0, "V"};
static const range kVoltageNonneg = {0, HY_MAX_VOLTAGE, 0, 0, "V"};
static const range kVoltagePos = {0, HY_MAX_VOLTAGE, 1, 0, "V"};
static const range kCvNonneg = {0, HY_MAX_CV, 0, 0, "m^3/(s sqrt(Pa))"};
static const range kLeakage = {0, HY_MAX_LEAKAGE, 0, 0, "m^3/(s Pa)"};
static const range kOpening = {-1, 1, 0, 0, "fraction of the full opening"};
static const range kOpeningPos = {0, 1, 1, 0, "fraction of the full opening"};
static const range kOpeningNonneg = {0, 1, 0, 1, "fraction of the full opening"};
static const range kFrequencyPos = {0, HY_MAX_FREQUENCY, 1, 0, "Hz"};
static const range kDampingRatio = {0, HY_MAX_DAMPING_RATIO, 0, 0, "-"};
static const range kDamping = {0, HY_MAX_COEFFICIENT, 0, 0, "N s/m"};
static const range kStiffness = {0, HY_MAX_COEFFICIENT, 0, 0, "N/m"};
static const range kForceNonneg = {0, HY_MAX_FORCE, 0, 0, "N"};
static const range kForcePos = {0, HY_MAX_FORCE, 1, 0, "N"};
static const range kVelocityPos = {0, HY_MAX_RATE, 1, 0, "m/s"};
static const range kVelocityNonneg = {0, HY_MAX_RATE, 0, 0, "m/s"};
static const range kDecay = {0, HY_MAX_COEFFICIENT, 0, 0, "s/m"};
static const range kStiffnessPos = {0, HY_MAX_COEFFICIENT, 1, 0, "N/m"};
static const range kExponent = {0, 100, 1, 0, "-"};
static const range kFraction = {0, 1, 0, 0, "-"};
static const range kInertia = {-HY_MAX_INERTIA, HY_MAX_INERTIA, 0, 0, "kg m^2"};
static const range kDisplacement = {0, HY_MAX_DISPLACEMENT, 1, 0, "m^3/rev"};
static const range kSpeed = {0, HY_MAX_SPEED, 0, 0, "rev/s"};
static const range kPressurePos = {0, HY_MAX_PRESSURE, 1, 0, "Pa, absolute"};
static const range kVolumePos = {0, HY_MAX_VOLUME, 1, 0, "m^3"};
static const range kPolytropic = {1, 2, 0, 0, "-"};
static const range kAirFraction = {0, 1, 0, 1, "-"};
static const range kLawA = {0, INFINITY, 1, 0, "1/Pa"};
static const range kLawB = {-INFINITY, INFINITY, 0, 0, "1/Pa^2"};

static int in_range(double x, const range* r) {
  return isfinite(x) && (r->lo_open ? x > r->lo : x >= r->lo) &&
         (r->hi_open ? x < r->hi : x <= r->hi);
}

// What `r` asks of x, which it refuses: "must be positive", "must be at most 1e+09", ...
static void range_text(char* buf, size_t size, const range* r, double x) {
  if (!isfinite(x)) {
    snprintf(buf, size, "must be a finite number");
  } else if (r->lo == -r->hi) {
    snprintf(buf, size, "must be between %g and %g", r->lo, r->hi);
  } else if (isfinite(r->hi) && r->lo_open && r->hi_open) {
    snprintf(buf, size, "must be between %g and %g (both excluded)", r->lo, r->hi);
  } else if (r->lo_open ? !(x > r->lo) : !(x >= r->lo)) {
    if (r->lo == 0) {
      snprintf(buf, size, "must be %s", r->lo_open ? "positive" : ">= 0");
    } else {
      snprintf(buf, size, "must be %s %g", r->lo_open ? "greater than" : "at least", r->lo);
    }
  } else {
    snprintf(buf, size, "must be %s %g", r->hi_open ? "below" : "at most", r->hi);
  }
}

//----- messages ------------------------------------------------------------------------------

// What every rule needs: the model (its path for messages) and where the error goes.
typedef struct checker {
  const hy_model* m;
  hy_error* err;
} checker;

static hy_status fail(const checker* c, hy_srcpos pos, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static hy_status fail(const checker* c, hy_srcpos pos, const char* fmt, ...) {
  char msg[480];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hy_error_set_src(c->err, HY_ERR_MODEL, c->m->path, pos.line, pos.col, "%s", msg);
}

// "body 'link2'" for element i of a name array, into buf; names are printed within HY_NAME_MAX
// even if a caller left one unterminated.
static const char* elem_name(char* buf, size_t size, const char* kind, const char* names, int i) {
  snprintf(buf, size, "%s '%.*s'", kind, HY_NAME_MAX - 1, names + (size_t)i * HY_NAME_MAX);
  return buf;
}

// x under `field` of element `elem` (a "body 'b'", "solver", or "" at the top level).
static hy_status check_num(const checker* c, hy_srcpos pos, const char* elem, const char* field,
                           double x, const range* r) {
  if (in_range(x, r)) return HY_OK;
  char rule[96], unit[32] = "";
  range_text(rule, sizeof rule, r, x);
  if (strcmp(r->unit, "-") != 0) snprintf(unit, sizeof unit, " (%s)", r->unit);
  return fail(c, pos, "%s%s%s %s%s, got %g", elem, elem[0] ? ": " : "", field, rule, unit, x);
}

// Each of the n components of v, as field[k].
static hy_status check_vec(const checker* c, hy_srcpos pos, const char* elem, const char* field,
                           const double* v, int n, const range* r) {
  for (int k = 0; k < n; k++) {
    char label[64];
    snprintf(label, sizeof label, "%s[%d]", field, k);
    HY_TRY(check_num(c, pos, elem, label, v[k], r));
  }
  return HY_OK;
}

// A direction: finite and non-zero, of any length (hy_model_unit3 normalizes every such vector).
static hy_status check_axis(const checker* c, hy_srcpos pos, const char* elem, const char* field,
                            const double v[3]) {
  double u[3];
  if (hy_model_unit3(u, v)) return HY_OK;
  return fail(c, pos, "%s: %s must be a finite, non-zero vector, got (%g, %g, %g)", elem, field,
              v[0], v[1], v[2]);
}

// A count that must lie in [lo, hi].
static hy_status check_int(const checker* c, hy_srcpos pos, const char* elem, const char* field,
                           int x, int lo, int hi) {
  if (x >= lo && x <= hi) return HY_OK;
  return fail(c, pos, "%s: %s must be from %d to %d, got %d", elem, field, lo, hi, x);
}

// A 0/1 flag of the solver (false/true in a model file).
static hy_status check_flag(const checker* c, hy_srcpos pos, const char* field, int x) {
  if (x == 0 || x == 1) return HY_OK;
  return fail(c, pos, "solver: %s must be 0 or 1 (false or true), got %d", field, x);
}

//----- bodies --------------------------------------------------------------------------------

// Principal moments (ascending) of a symmetric 3x3 matrix by Jacobi rotations, accurate to the
// rounding of the entries also for repeated moments (a thin rod's two equal ones), where the
// closed-form solution of the cubic loses half the digits.
static void sym3_eigenvalues(const double a[9], double e[3]) {
  double A[3][3];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) A[i][j] = a[3 * i + j];
  }
  for (int sweep = 0; sweep < 50; sweep++) {
    const double off = fabs(A[0][1]) + fabs(A[0][2]) + fabs(A[1][2]);
    const double diag = fabs(A[0][0]) + fabs(A[1][1]) + fabs(A[2][2]);
    if (off == 0 || off < 1e-300 || off <= 1e-18 * diag) break;
    for (int p = 0; p < 2; p++) {
      for (int q = p + 1; q < 3; q++) {
        if (A[p][q] == 0) continue;
        // the rotation in the (p, q) plane that zeroes A[p][q]
        const double theta = 0.5 * (A[q][q] - A[p][p]) / A[p][q];
        const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
        const double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
        for (int k = 0; k < 3; k++) {
          const double akp = A[k][p], akq = A[k][q];
          A[k][p] = c * akp - sn * akq;
          A[k][q] = sn * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) {
          const double apk = A[p][k], aqk = A[q][k];
          A[p][k] = c * apk - sn * aqk;
          A[q][k] = sn * apk + c * aqk;
        }
      }
    }
  }
  e[0] = A[0][0], e[1] = A[1][1], e[2] = A[2][2];
  // sort ascending
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2 - i; j++) {
      if (e[j] > e[j + 1]) {
        double t = e[j];
        e[j] = e[j + 1], e[j + 1] = t;
      }
    }
  }
}

// A rigid body's inertia about its centre of mass is symmetric, with principal moments >= 0,
// each at most the sum of the other two (otherwise no mass distribution produces it). The
// tolerance, relative to the largest entry, absorbs rounding in a file's decimals.
static hy_status check_inertia(const checker* c, hy_srcpos pos, const char* elem,
                               const double J[9]) {
  double scale = 0;
  for (int i = 0; i < 9; i++) {
    char label[32];
    snprintf(label, sizeof label, "inertia[%d][%d]", i / 3, i % 3);
    HY_TRY(check_num(c, pos, elem, label, J[i], &kInertia));
    scale = fmax(scale, fabs(J[i]));
  }
  if (scale == 0) return HY_OK;  // a point mass
  const double tol = 1e-9 * scale;
  static const int pairs[3][2] = {{1, 3}, {2, 6}, {5, 7}};
  for (int p = 0; p < 3; p++) {
    const double a = J[pairs[p][0]], b = J[pairs[p][1]];
    if (fabs(a - b) > tol) {
      const int i = pairs[p][0] / 3, j = pairs[p][0] % 3;
      return fail(c, pos,
                  "%s: inertia must be a symmetric tensor, but entry [%d][%d] = %g differs from "
                  "[%d][%d] = %g",
                  elem, i, j, a, j, i, b);
    }
  }
  double S[9], e[3];
  for (int i = 0; i < 9; i++) S[i] = 0.5 * (J[i] + J[3 * (i % 3) + i / 3]);
  sym3_eigenvalues(S, e);
  if (e[0] < -tol || e[2] > e[0] + e[1] + tol) {
    return fail(c, pos,
                "%s: inertia is not a physical inertia tensor: its principal moments (%g, %g, %g) "
                "kg m^2 must be >= 0 and each at most the sum of the other two",
                elem, e[0], e[1], e[2]);
  }
  return HY_OK;
}

// A body of mass 0 (a link that only carries a joint to the next, such as the carriages of a
// planar x-y-theta chain) must have no inertia either: a rotational inertia without mass is no
// rigid body. Whether the tree's mass matrix stays positive definite is the engine's to find.
static hy_status check_massless(const checker* c, hy_srcpos pos, const char* elem,
                                const double J[9]) {
  for (int i = 0; i < 9; i++) {
    if (J[i] != 0) {
      return fail(c, pos, "%s: mass 0 needs a zero inertia, but inertia[%d][%d] is %g", elem, i / 3,
                  i % 3, J[i]);
    }
  }
  return HY_OK;
}

static hy_status check_body(const checker* c, hy_srcpos pos, const char* elem, double mass,
                            const double com[3], const double J[9]) {
  HY_TRY(check_num(c, pos, elem, "mass", mass, &kMass));
  HY_TRY(check_vec(c, pos, elem, "com", com, 3, &kLength));
  HY_TRY(check_inertia(c, pos, elem, J));
  if (mass == 0) HY_TRY(check_massless(c, pos, elem, J));
  return HY_OK;
}

static hy_status check_bodies(const checker* c) {
  const hy_model* m = c->m;
  for (int i = 0; i < m->sizes.nbody; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "body", m->body_name, i);
    HY_TRY(check_body(c, m->body_src[i], elem, m->body_mass[i], m->body_com + 3 * i,
                      m->body_inertia + 9 * i));
  }
  return HY_OK;
}

//----- joints and markers --------------------------------------------------------------------

// A revolute joint's z0 or zd0 (rad or rad/s), with the degrees a model file gives.
static hy_status check_angle(const checker* c, hy_srcpos pos, const char* elem, const char* field,
                             double x, double max, const char* unit) {
  if (isfinite(x) && fabs(x) <= max) return HY_OK;
  return fail(c, pos, "%s: %s must be between %g and %g (%s), got %g %s (%g %s)", elem, field, -max,
              max, unit, x, unit, x * 180.0 / HY_PI, strcmp(unit, "rad") == 0 ? "deg" : "deg/s");
}

static const range kCoord = {-HY_MAX_COORD, HY_MAX_COORD, 0, 0, "m"};
static const range kRate = {-HY_MAX_RATE, HY_MAX_RATE, 0, 0, "m/s"};
// A joint's viscous damping, by the kind of its coordinate (docs/model-format.md, "joints").
static const range kJointDampingAngle = {0, HY_MAX_JOINT_DAMPING, 0, 0, "N m s/rad"};
static const range kJointDampingSlide = {0, HY_MAX_JOINT_DAMPING, 0, 0, "N s/m"};
static const range* joint_damping_range(int type) {
  return type == HY_JOINT_REVOLUTE ? &kJointDampingAngle : &kJointDampingSlide;
}

// The Cardan charts of the spherical and free joints (gimbal_jnt): three joints of one chain,
// the first the only one that takes its anchor from the data (jnt_gimbal), and the middle angle
// at z0 clear of +-90 deg by HY_GIMBAL_MARGIN, where the chart has no inverse.
static hy_status check_gimbals(const checker* c) {
  const hy_model* m = c->m;
  const int nb = m->sizes.nbody;
  int nfirst = 0;
  for (int j = 0; j < nb; j++) nfirst += m->jnt_gimbal[j] >= 0;
  const hy_srcpos nowhere = {0, 0};
  if (nfirst != m->sizes.ngimbal) {
    return fail(c, nowhere, "%d joints take a Cardan chart's anchor, for %d charts", nfirst,
                m->sizes.ngimbal);
  }
  for (int g = 0; g < m->sizes.ngimbal; g++) {
    const int* chain = m->gimbal_jnt + 3 * g;
    const int j = chain[1];
    if (j < 0 || j >= nb || m->jnt_part[j] != hy_model_gimbal_part(m->jnt_kind[j])) {
      return fail(c, nowhere, "Cardan chart %d: joint %d holds no middle Cardan angle", g, j);
    }
    for (int k = 0; k < 3; k++) {
      const int i = chain[k];
      if (i < 0 || i >= nb || m->jnt_type[i] != HY_JOINT_REVOLUTE ||
          m->jnt_part[i] != m->jnt_part[j] + k - 1 || (k > 0 && m->body_parent[i] != chain[k - 1]) ||
          (m->jnt_gimbal[i] == g) != (k == 0)) {
        return fail(c, nowhere, "Cardan chart %d: its joints %d, %d, %d are no chain of angles", g,
                    chain[0], chain[1], chain[2]);
      }
    }
    const double beta = m->z0[m->jnt_zadr[j]];
    if (fabs(cos(beta)) < sin(HY_GIMBAL_MARGIN)) {
      char name[HY_NAME_MAX];
      return fail(c, m->jnt_src[j],
                  "%s joint '%s': z0[%d] = %g deg is within %g deg of +-90 deg, the gimbal lock "
                  "of its Cardan angles (docs/model-format.md, \"Singularities\")",
                  hy_joint_type_name(m->jnt_kind[j]), hy_model_joint_def_name(m, j, name),
                  m->jnt_part[j], beta * 180.0 / HY_PI, HY_GIMBAL_MARGIN * 180.0 / HY_PI);
    }
  }
  return HY_OK;
}

static hy_status check_joints(const checker* c) {
  const hy_model* m = c->m;
  int ndamp = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    char elem[96];
    elem_name(elem, sizeof elem, "joint", m->jnt_name, j);
    const hy_srcpos pos = m->jnt_src[j];
    const int type = m->jnt_type[j];
    if (type != HY_JOINT_REVOLUTE && type != HY_JOINT_PRISMATIC) {
      return fail(c, pos, "%s: unknown type %d", elem, type);
    }
    // a joint of several coordinates leaves its chain revolute and prismatic joints in the
    // order of hy_joint_coord_type; any other joint is its own kind
    const int kind = m->jnt_kind[j], part = m->jnt_part[j];
    if (hy_joint_coord_type((hy_joint_type)kind, part) != type) {
      return fail(c, pos, "%s: a %s joint cannot be coordinate %d of a joint of type %d", elem,
                  type == HY_JOINT_REVOLUTE ? "revolute" : "prismatic", part, kind);
    }
    HY_TRY(check_vec(c, pos, elem, "parent_point", m->jnt_ppoint + 3 * j, 3, &kLength));
    HY_TRY(check_vec(c, pos, elem, "child_point", m->jnt_cpoint + 3 * j, 3, &kLength));
    HY_TRY(check_axis(c, pos, elem, "axis", m->jnt_paxis + 3 * j));
    HY_TRY(check_axis(c, pos, elem, "child_axis", m->jnt_caxis + 3 * j));
    const int z = m->jnt_zadr[j];
    if (z < 0 || z >= m->sizes.nz) return fail(c, pos, "%s: coordinate %d out of range", elem, z);
    if (type == HY_JOINT_REVOLUTE) {
      HY_TRY(check_angle(c, pos, elem, "z0", m->z0[z], HY_MAX_COORD, "rad"));
      HY_TRY(check_angle(c, pos, elem, "zd0", m->zd0[z], HY_MAX_RATE, "rad/s"));
    } else {
      HY_TRY(check_num(c, pos, elem, "z0", m->z0[z], &kCoord));
      HY_TRY(check_num(c, pos, elem, "zd0", m->zd0[z], &kRate));
    }
    HY_TRY(check_num(c, pos, elem, "damping", m->jnt_damp[j], joint_damping_range(type)));
    ndamp += m->jnt_damp[j] != 0;
  }
  // the evaluations add the damping only when sizes.ndamp says there is some
  if (ndamp != m->sizes.ndamp) {
    const hy_srcpos nowhere = {0, 0};
    return fail(c, nowhere, "%d joints have damping, but sizes.ndamp is %d", ndamp,
                m->sizes.ndamp);
  }
  HY_TRY(check_gimbals(c));
  for (int k = 0; k < m->sizes.nmrk; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "marker", m->mrk_name, k);
    HY_TRY(check_vec(c, m->mrk_src[k], elem, "point", m->mrk_point + 3 * k, 3, &kLength));
  }
  return HY_OK;
}

//----- definitions the compiled model no longer shows as given -------------------------------

// A checker whose messages carry the model file `path` (a model of nothing but its path).
static checker def_checker(hy_model* scratch, const char* path, hy_error* err) {
  memset(scratch, 0, sizeof *scratch);
  snprintf(scratch->path, sizeof scratch->path, "%s", path ? path : "");
  const checker c = {scratch, err};
  return c;
}

// A joint's initial coordinates and rates past its own must be 0 (hy_joint_def); a joint of
// several coordinates is checked whole, with the keys of its definition, before the compiler
// spreads its values over its chain.
hy_status hy_model_check_joint_def(const char* path, const hy_joint_def* jd, hy_error* err) {
  hy_model scratch;
  const checker c0 = def_checker(&scratch, path, err);
  const checker* c = &c0;
  const hy_srcpos pos = jd->pos;
  const int nz = hy_joint_type_nz(jd->type);
  if (nz == 0) {
    return fail(c, pos, "joint '%.*s': unknown type %d", HY_NAME_MAX - 1, jd->name, (int)jd->type);
  }
  char elem[96];
  snprintf(elem, sizeof elem, "%s joint '%.*s'", hy_joint_type_name(jd->type), HY_NAME_MAX - 1,
           jd->name);
  for (int k = nz; k < HY_JOINT_NZ_MAX; k++) {
    if (jd->z0s[k] != 0 || jd->zd0s[k] != 0) {
      return fail(c, pos, "%s has %d coordinate%s: z0s[%d] and zd0s[%d] must be 0, got %g and %g",
                  elem, nz, nz == 1 ? "" : "s", k, k, jd->z0s[k], jd->zd0s[k]);
    }
    if (jd->dampings[k] != 0) {
      return fail(c, pos, "%s has %d coordinate%s: dampings[%d] must be 0, got %g", elem, nz,
                  nz == 1 ? "" : "s", k, jd->dampings[k]);
    }
  }
  if (nz == 1) return HY_OK;  // hy_model_check sees it as given
  HY_TRY(check_vec(c, pos, elem, "parent_point", jd->parent_point, 3, &kLength));
  HY_TRY(check_vec(c, pos, elem, "child_point", jd->child_point, 3, &kLength));
  HY_TRY(check_axis(c, pos, elem, "axis", jd->axis));
  HY_TRY(check_axis(c, pos, elem, "child_axis", jd->child_axis));
  if (jd->type != HY_JOINT_CYLINDRICAL) {
    // the second axis of rotation turns with the child, at right angles to the first
    HY_TRY(check_axis(c, pos, elem, "axis2", jd->axis2));
    double a[3], b[3];
    hy_model_unit3(a, jd->child_axis);
    hy_model_unit3(b, jd->axis2);
    const double dot = hy_v3_dot(a, b);
    if (fabs(dot) > 1e-9) {
      return fail(c, pos,
                  "%s: axis2 (%g, %g, %g) must be perpendicular to child_axis (%g, %g, %g) (their "
                  "unit vectors have a dot product of %.3g)",
                  elem, jd->axis2[0], jd->axis2[1], jd->axis2[2], jd->child_axis[0],
                  jd->child_axis[1], jd->child_axis[2], dot);
    }
  }
  for (int k = 0; k < nz; k++) {
    char z0[16], zd0[16];
    snprintf(z0, sizeof z0, "z0[%d]", k);
    snprintf(zd0, sizeof zd0, "zd0[%d]", k);
    if (hy_joint_coord_type(jd->type, k) == HY_JOINT_REVOLUTE) {
      HY_TRY(check_angle(c, pos, elem, z0, jd->z0s[k], HY_MAX_COORD, "rad"));
      HY_TRY(check_angle(c, pos, elem, zd0, jd->zd0s[k], HY_MAX_RATE, "rad/s"));
    } else {
      HY_TRY(check_num(c, pos, elem, z0, jd->z0s[k], &kCoord));
      HY_TRY(check_num(c, pos, elem, zd0, jd->zd0s[k], &kRate));
    }
    char damping[16];
    snprintf(damping, sizeof damping, "damping[%d]", k);
    HY_TRY(check_num(c, pos, elem, damping, jd->dampings[k],
                     joint_damping_range(hy_joint_coord_type(jd->type, k))));
  }
  return HY_OK;
}

hy_status hy_model_check_body_def(const char* path, const hy_body_def* b, hy_error* err) {
  hy_model scratch;
  const checker c = def_checker(&scratch, path, err);
  char elem[96];
  snprintf(elem, sizeof elem, "body '%.*s'", HY_NAME_MAX - 1, b->name);
  return check_body(&c, b->pos, elem, b->mass, b->com, b->inertia);
}

hy_status hy_model_check_point_mass(const char* path, const hy_point_mass_def* p, int index,
                                    hy_error* err) {
  hy_model scratch;
  const checker c = def_checker(&scratch, path, err);
  char elem[128];
  snprintf(elem, sizeof elem, "body '%.*s': point_masses[%d]", HY_NAME_MAX - 1, p->body, index);
  HY_TRY(check_num(&c, p->pos, elem, "mass", p->mass, &kMass));
  return check_vec(&c, p->pos, elem, "point", p->point, 3, &kLength);
}

//----- signals and loads ---------------------------------------------------------------------

// The parameters of signal k, whose kind is known (the equations of docs/model-format.md,
// "signals": each kind's constraints).
static hy_status check_signal_pars(const checker* c, int k, const char* elem) {
  const hy_model* m = c->m;
  const hy_srcpos pos = m->sig_src[k];
  const hy_signal_kind kind = (hy_signal_kind)m->sig_kind[k];
  const hy_signal_kind_info* info = hy_model_signal_kind(kind);
  const double* p = m->sig_par + (size_t)k * HY_SIGNAL_NPAR;
  if (kind == HY_SIGNAL_CLAMP) {
    // an infinite bound is no bound
    if (isnan(p[0]) || p[0] == INFINITY) {
      return fail(c, pos, "%s: min must be a number, or -inf for none, got %g", elem, p[0]);
    }
    if (isnan(p[1]) || p[1] == -INFINITY) {
      return fail(c, pos, "%s: max must be a number, or inf for none, got %g", elem, p[1]);
    }
    if (!(p[0] <= p[1])) {
      return fail(c, pos, "%s: min (%g) must not exceed max (%g)", elem, p[0], p[1]);
    }
    return HY_OK;
  }
  for (int i = 0; i < info->npar; i++) {
    const char* key = info->par[i].key;
    range r = {-INFINITY, INFINITY, 0, 0, info->par[i].unit};
    if (strcmp(key, "rise") == 0 || strcmp(key, "frequency") == 0) {
      r.lo = 0;
    } else if (strcmp(key, "period") == 0) {
      r.lo = 0, r.lo_open = 1;
    }
    HY_TRY(check_num(c, pos, elem, key, p[i], &r));
  }
  if (kind == HY_SIGNAL_RAMP && !(p[1] > p[0])) {
    return fail(c, pos, "%s: t1 (%.15g s) must be greater than t0 (%.15g s)", elem, p[1], p[0]);
  }
  return HY_OK;
}

// How many signals signal k refers to, and that they exist.
static hy_status check_signal_args(const checker* c, int k, const char* elem) {
  const hy_model* m = c->m;
  const hy_srcpos pos = m->sig_src[k];
  const hy_signal_kind kind = (hy_signal_kind)m->sig_kind[k];
  const hy_signal_kind_info* info = hy_model_signal_kind(kind);
  const int narg = m->sig_narg[k], adr = m->sig_argadr[k];
  const char* name = hy_signal_kind_name(kind);
  if (narg < 0) return fail(c, pos, "%s: its number of references is negative (%d)", elem, narg);
  if (info->max_arg == 0 && narg != 0) {
    return fail(c, pos, "%s: a %s signal refers to no other signal, got %d references", elem, name,
                narg);
  }
  if (info->min_arg == 1 && info->max_arg == 1 && narg != 1) {
    return fail(c, pos, "%s: a %s signal refers to exactly one signal, got %d", elem, name, narg);
  }
  if (narg < info->min_arg) {
    return fail(c, pos, "%s: a %s signal refers to at least %d signal, got %d", elem, name,
                info->min_arg, narg);
  }
  if (info->max_arg >= 0 && narg > info->max_arg) {
    return fail(c, pos, "%s: a %s signal refers to at most %d signal (its %s), got %d", elem, name,
                info->max_arg, info->arg_key, narg);
  }
  if (adr < 0 || adr > m->sizes.nsigarg - narg) {
    return fail(c, pos, "%s: its %d references lie outside the model's table", elem, narg);
  }
  for (int i = 0; i < narg; i++) {
    const int a = m->sig_arg[adr + i];
    if (a < 0 || a >= m->sizes.nsig) {
      return fail(c, pos, "%s: reference %d is to signal %d, which does not exist", elem, i, a);
    }
  }
  return HY_OK;
}

// The signals' references must hold no cycle: evaluation follows them. A depth-first walk that
// meets a signal on its own path has found one, which the message lists from the signal defined
// first (and is reported at its definition).
static hy_status check_signal_cycles(const checker* c) {
  const hy_model* m = c->m;
  const int n = m->sizes.nsig;
  if (m->sizes.nsigarg == 0) return HY_OK;
  int* mem = hy_malloc(sizeof(int) * 3 * (size_t)n);
  if (!mem) return HY_FAIL(c->err, HY_ERR_NOMEM, "out of memory checking the signals");
  int* state = mem;        // 0 not seen, 1 on the path, 2 done (no cycle through it)
  int* path = mem + n;     // the signals on the current path
  int* next = mem + 2 * n;  // the reference of path[d] to follow next
  for (int k = 0; k < n; k++) state[k] = 0;
  hy_status st = HY_OK;
  for (int root = 0; root < n && st == HY_OK; root++) {
    if (state[root]) continue;
    int depth = 0;
    path[0] = root, next[0] = 0, state[root] = 1;
    while (depth >= 0 && st == HY_OK) {
      const int v = path[depth];
      if (next[depth] == m->sig_narg[v]) {
        state[v] = 2;
        depth--;
        continue;
      }
      const int w = m->sig_arg[m->sig_argadr[v] + next[depth]++];
      if (state[w] == 0) {
        depth++;
        path[depth] = w, next[depth] = 0, state[w] = 1;
      } else if (state[w] == 1) {
        int first = depth;
        while (path[first] != w) first--;
        int lead = first;  // the signal of the cycle defined first
        for (int i = first; i <= depth; i++) {
          if (path[i] < path[lead]) lead = i;
        }
        char chain[360];
        size_t used = 0;
        const int len = depth - first + 1;
        for (int i = 0; i <= len && used < sizeof chain; i++) {
          const int s = path[first + (lead - first + i) % len];
          int wr = snprintf(chain + used, sizeof chain - used, "%s'%.*s'", i ? " -> " : "",
                            HY_NAME_MAX - 1, m->sig_name + (size_t)s * HY_NAME_MAX);
          used += wr > 0 ? (size_t)wr : 0;
        }
        char elem[96];
        elem_name(elem, sizeof elem, "signal", m->sig_name, path[lead]);
        st = fail(c, m->sig_src[path[lead]], "%s: the signals refer to each other in a cycle: %s",
                  elem, chain);
      }
    }
  }
  hy_free(mem);
  return st;
}

static hy_status check_signals(const checker* c) {
  const hy_model* m = c->m;
  for (int k = 0; k < m->sizes.nsig; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "signal", m->sig_name, k);
    const hy_srcpos pos = m->sig_src[k];
    const int interp = m->sig_interp[k], n = m->sig_npoint[k], adr = m->sig_adr[k];
    const int kind = m->sig_kind[k];
    if (!hy_model_signal_kind((hy_signal_kind)kind)) {
      return fail(c, pos, "%s: unknown kind %d", elem, kind);
    }
    HY_TRY(check_signal_args(c, k, elem));
    if (kind != HY_SIGNAL_TABLE) {
      // hy_signal_eval tells a table by its points
      if (n != 0) {
        return fail(c, pos, "%s: a %s signal has no table points, got %d", elem,
                    hy_signal_kind_name((hy_signal_kind)kind), n);
      }
      HY_TRY(check_signal_pars(c, k, elem));
      continue;
    }
    if (interp != HY_INTERP_LINEAR && interp != HY_INTERP_STEP) {
      return fail(c, pos, "%s: unknown interpolation %d", elem, interp);
    }
    if (n < 1) return fail(c, pos, "%s has no points", elem);
    if (adr < 0 || adr > m->sizes.nsigpt - n) {
      return fail(c, pos, "%s: its %d points lie outside the model's table", elem, n);
    }
    const double* t = m->sig_t + adr;
    const double* v = m->sig_value + adr;
    for (int q = 0; q < n; q++) {
      if (!isfinite(t[q]) || !isfinite(v[q])) {
        return fail(c, pos, "%s: point %d is not finite (t = %g s, value %g)", elem, q, t[q], v[q]);
      }
      if (q > 0 && !(t[q] > t[q - 1])) {
        return fail(
            c, pos,
            "%s: times must increase strictly, but point %d has t = %.15g s after t = %.15g s",
            elem, q, t[q], t[q - 1]);
      }
    }
  }
  HY_TRY(check_signal_cycles(c));
  for (int k = 0; k < m->sizes.nload; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "load", m->load_name, k);
    const hy_srcpos pos = m->load_src[k];
    const int type = m->load_type[k];
    if (type != HY_LOAD_FORCE && type != HY_LOAD_TORQUE) {
      return fail(c, pos, "%s: unknown type %d", elem, type);
    }
    const range* r = type == HY_LOAD_FORCE ? &kForce : &kTorque;
    HY_TRY(check_vec(c, pos, elem, "vector", m->load_vector + 3 * k, 3, r));
  }
  return HY_OK;
}

//----- cut joints, nonholonomic constraints and force elements -------------------------------

static hy_status check_cuts(const checker* c) {
  const hy_model* m = c->m;
  for (int k = 0; k < m->sizes.ncut; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "cut joint", m->cut_name, k);
    const hy_srcpos pos = m->cut_src[k];
    const int type = m->cut_type[k];
    if (type != HY_CUT_REVOLUTE && type != HY_CUT_SPHERICAL && type != HY_CUT_TRANSLATIONAL) {
      return fail(c, pos, "%s: unknown type %d", elem, type);
    }
    for (int side = 0; side < 2; side++) {
      const char s = side == 0 ? 'a' : 'b';
      const double* axis = (side == 0 ? m->cut_axis_a : m->cut_axis_b) + 3 * k;
      const double* up = (side == 0 ? m->cut_up_a : m->cut_up_b) + 3 * k;
      char label[16];
      snprintf(label, sizeof label, "axis_%c", s);
      HY_TRY(check_axis(c, pos, elem, label, axis));
      snprintf(label, sizeof label, "up_%c", s);
      HY_TRY(check_vec(c, pos, elem, label, up, 3, &kFinite));
      // a zero up vector is chosen by the compiler; a given one must be perpendicular to its
      // axis (the equations a.u = 0 are written for the assembled configuration)
      double a[3], u[3];
      if (!hy_model_unit3(u, up)) continue;
      hy_model_unit3(a, axis);
      const double dot = hy_v3_dot(a, u);
      if (fabs(dot) > 1e-9) {
        return fail(c, pos,
                    "%s: up_%c must be perpendicular to axis_%c (their unit vectors have a dot "
                    "product of %.3g)",
                    elem, s, s, dot);
      }
    }
  }
  return HY_OK;
}

static hy_status check_nonholonomic(const checker* c) {
  const hy_model* m = c->m;
  for (int k = 0; k < m->sizes.nnh; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "nonholonomic constraint", m->nh_name, k);
    const hy_srcpos pos = m->nh_src[k];
    if (m->nh_type[k] != HY_NONHOLONOMIC_KNIFE_EDGE) {
      return fail(c, pos, "%s: unknown type %d", elem, m->nh_type[k]);
    }
    HY_TRY(check_axis(c, pos, elem, "axis", m->nh_axis + 3 * k));
  }
  return HY_OK;
}

// Couplers (docs/model-format.md, "couplers"): two different joints of one coordinate each, a
// ratio within HY_MIN_RATIO .. HY_MAX_RATIO in magnitude and an offset that phi = 0 can reach
// with coordinates within HY_MAX_COORD.
static hy_status check_couplers(const checker* c) {
  const hy_model* m = c->m;
  for (int k = 0; k < m->sizes.ncpl; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "coupler", m->cpl_name, k);
    const hy_srcpos pos = m->cpl_src[k];
    const char* unit[2] = {"m", "rad"};
    int revolute[2];
    for (int side = 0; side < 2; side++) {
      const int j = m->cpl_jnt[2 * k + side];
      const char s = side == 0 ? 'a' : 'b';
      if (j < 0 || j >= m->sizes.nbody) {
        return fail(c, pos, "%s: joint_%c: no joint of index %d", elem, s, j);
      }
      const int kind = m->jnt_kind[j];
      if (kind != HY_JOINT_REVOLUTE && kind != HY_JOINT_PRISMATIC) {
        char def[HY_NAME_MAX];
        return fail(c, pos,
                    "%s: joint_%c: joint '%s' is a %s joint of %d coordinates; a coupler couples "
                    "joints of one coordinate (revolute or prismatic)",
                    elem, s, hy_model_joint_def_name(m, j, def),
                    hy_joint_type_name((hy_joint_type)kind), hy_joint_type_nz((hy_joint_type)kind));
      }
      revolute[side] = m->jnt_type[j] == HY_JOINT_REVOLUTE;
    }
    if (m->cpl_jnt[2 * k] == m->cpl_jnt[2 * k + 1]) {
      return fail(c, pos, "%s: joint_a and joint_b are the same joint '%.*s'", elem,
                  HY_NAME_MAX - 1, m->jnt_name + (size_t)m->cpl_jnt[2 * k] * HY_NAME_MAX);
    }
    char ratio_unit[16];
    if (revolute[0] == revolute[1]) {
      snprintf(ratio_unit, sizeof ratio_unit, "-");
    } else {
      snprintf(ratio_unit, sizeof ratio_unit, "%s/%s", unit[revolute[0]], unit[revolute[1]]);
    }
    const double ratio = m->cpl_ratio[k];
    if (!(isfinite(ratio) && fabs(ratio) >= HY_MIN_RATIO && fabs(ratio) <= HY_MAX_RATIO)) {
      return fail(c, pos, "%s: ratio must be a finite number with %g <= |ratio| <= %g (%s), got %g",
                  elem, HY_MIN_RATIO, HY_MAX_RATIO, ratio_unit, ratio);
    }
    const double lim = HY_MAX_COORD * (1 + fabs(ratio));
    const range offset = {-lim, lim, 0, 0, unit[revolute[0]]};
    HY_TRY(check_num(c, pos, elem, "offset", m->cpl_offset[k], &offset));
  }
  return HY_OK;
}

static hy_status check_forces(const checker* c) {
  const hy_model* m = c->m;
  for (int k = 0; k < m->sizes.nfrc; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "force", m->frc_name, k);
    const hy_srcpos pos = m->frc_src[k];
    const int type = m->frc_type[k];
    if (type == HY_FORCE_CYLINDER) {
      const int cyl = m->frc_cyl[k];
      if (cyl < 0 || cyl >= m->sizes.ncyl || m->cyl_frc[cyl] != k) {
        return fail(c, pos, "%s: cylinder %d does not refer back to it", elem, cyl);
      }
      continue;  // its numbers are the cylinder's
    }
    if (type != HY_FORCE_ACTUATOR) return fail(c, pos, "%s: unknown type %d", elem, type);
    if (!m->frc_equilibrium[k]) HY_TRY(check_num(c, pos, elem, "force", m->frc_value[k], &kForce));
  }
  return HY_OK;
}

//----- hydraulics ----------------------------------------------------------------------------

// Name of cylinder i: that of its force element (its index checked by check_circuits).
static const char* cyl_elem(char* buf, size_t size, const hy_model* m, int i) {
  return elem_name(buf, size, "cylinder", m->frc_name, m->cyl_frc[i]);
}

// A wall's container modulus: positive, or HY_RIGID (no compliance term).
static hy_status check_wall(const checker* c, hy_srcpos pos, const char* elem, const char* field,
                            double x, const range* r) {
  return x == HY_RIGID ? HY_OK : check_num(c, pos, elem, field, x, r);
}

// Whether node k of an element (a volume, or nvol + source) is a volume using circuit circ.
static int node_in(const hy_model* m, int k, int circ) {
  return k < m->sizes.nvol && m->vol_circ[k] == circ;
}

// The highest pressure an oil is known to meet: the given p0 of the volumes it fills (volume v
// alone for its own oil, v < 0: every volume of circuit circ without its own), the pre-charges
// of their accumulators and the pressures of the sources the circuit's elements reach.
static double known_pressure(const hy_model* m, int circ, int v) {
  const int nv = m->sizes.nvol;
  double hi = 0;
  for (int w = 0; w < nv; w++) {
    const int filled = v >= 0 ? w == v : m->vol_circ[w] == circ && m->vol_law[w] < 0;
    if (filled && !isnan(m->vol_p0[w])) hi = fmax(hi, m->vol_p0[w]);
    for (int i = 0; filled && i < m->sizes.nacc; i++) {
      if (m->acc_vol[i] == w) hi = fmax(hi, m->acc_p0[i]);
    }
  }
  // elements: throttles (2 nodes), check and relief valves (2), directional valves (4)
  const struct {
    const int* node;
    int n, per;
  } kinds[3] = {{m->orf_node, m->sizes.norf, 2}, {m->pvl_node, m->sizes.npvl, 2},
                {m->vlv_node, m->sizes.nvlv, 4}};
  for (int k = 0; k < 3; k++) {
    for (int e = 0; e < kinds[k].n; e++) {
      const int* nd = kinds[k].node + kinds[k].per * e;
      int in = 0;
      for (int j = 0; j < kinds[k].per; j++) in |= node_in(m, nd[j], circ);
      for (int j = 0; in && j < kinds[k].per; j++) {
        if (nd[j] >= nv) hi = fmax(hi, m->src_p[nd[j] - nv]);
      }
    }
  }
  return hi;
}

// An oil's law and the parameters it reads (docs/hydraulics.md, "Oil laws"); p_hi is the highest
// pressure it is known to meet (known_pressure).
static hy_status check_oil(const checker* c, hy_srcpos pos, const char* elem, const hy_oil* o,
                           double p_hi) {
  switch (o->law) {
    case HY_BULK_CONSTANT:
    case HY_BULK_LINEAR:
      HY_TRY(check_num(c, pos, elem, "oil bulk_modulus", o->B0, &kBulk));
      return check_num(c, pos, elem, "oil k", o->k, &kLawK);
    case HY_BULK_POLYNOMIAL: {
      HY_TRY(check_num(c, pos, elem, "oil a", o->a, &kLawA));
      HY_TRY(check_num(c, pos, elem, "oil b", o->b, &kLawB));
      // B = (1 + a p + b p^2)/(a + 2 b p) turns infinite where the density's slope a + 2 b p
      // vanishes (b < 0); a fit must hold at every pressure it meets
      if (o->b < 0 && !(o->a + 2 * o->b * p_hi > 0)) {
        return fail(c, pos,
                    "%s: oil: the polynomial law's modulus (1 + a p + b p^2)/(a + 2 b p) turns "
                    "infinite at p = -a/(2 b) = %g Pa, at or below %g Pa, a pressure of its "
                    "volumes (p0, an accumulator's precharge) or sources",
                    elem, -o->a / (2 * o->b), p_hi);
      }
      return HY_OK;
    }
    case HY_BULK_AIR:
      HY_TRY(check_num(c, pos, elem, "oil bulk_modulus", o->B0, &kBulk));
      HY_TRY(check_num(c, pos, elem, "oil air_fraction", o->air, &kAirFraction));
      HY_TRY(check_num(c, pos, elem, "oil polytropic", o->n, &kPolytropic));
      return check_num(c, pos, elem, "oil p_atm", o->p_atm, &kPressurePos);
    case HY_BULK_TABLE:
      if (o->tab_n < 2) {
        return fail(c, pos, "%s: oil: the table law needs at least 2 points [p, beta], got %d",
                    elem, o->tab_n);
      }
      for (int k = 0; k < o->tab_n; k++) {
        char field[48];
        snprintf(field, sizeof field, "oil table[%d] p", k);
        HY_TRY(check_num(c, pos, elem, field, o->tab_p[k], &kPressure));
        snprintf(field, sizeof field, "oil table[%d] beta", k);
        HY_TRY(check_num(c, pos, elem, field, o->tab_beta[k], &kBulk));
        if (k > 0 && !(o->tab_p[k] > o->tab_p[k - 1])) {
          return fail(c, pos,
                      "%s: oil table: the pressures must increase, but point %d has %g Pa after "
                      "%g Pa",
                      elem, k, o->tab_p[k], o->tab_p[k - 1]);
        }
      }
      return HY_OK;
    default:
      return fail(c, pos, "%s: unknown bulk modulus law %d", elem, o->law);
  }
}

static hy_status check_circuits(const checker* c) {
  const hy_model* m = c->m;
  for (int i = 0; i < m->sizes.ncirc; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "circuit", m->circ_name, i);
    const hy_srcpos pos = m->circ_src[i];
    // the tables' indices first: the law's check reads the points
    const int adr = m->circ_tab_adr[i], n = m->circ_tab_n[i];
    if (n < 0 || adr < 0 || adr + n > m->sizes.nbulkpt) {
      return fail(c, pos, "%s: its oil table is out of range", elem);
    }
    const hy_oil oil = hy_model_circuit_oil(m, i);
    HY_TRY(check_oil(c, pos, elem, &oil, 0));
    if (m->circ_laminar[i] != HY_LAMINAR_CUBIC && m->circ_laminar[i] != HY_LAMINAR_LINEAR) {
      return fail(c, pos, "%s: unknown laminar law %d", elem, m->circ_laminar[i]);
    }
  }
  // the indices the checks below follow (the compiler sets them; a model built otherwise
  // must not make the checker read outside its arrays)
  for (int i = 0; i < m->sizes.ncyl; i++) {
    const int f = m->cyl_frc[i], a = m->cyl_vol_a[i], b = m->cyl_vol_b[i];
    if (f < 0 || f >= m->sizes.nfrc || a < 0 || a >= m->sizes.nvol || b < 0 || b >= m->sizes.nvol) {
      return fail(c, m->cyl_src[i], "cylinder %d: its force element or chambers are out of range",
                  i);
    }
  }
  for (int i = 0; i < m->sizes.nvol; i++) {
    const int circ = m->vol_circ[i], adr = m->vol_tab_adr[i], n = m->vol_tab_n[i];
    if (circ < 0 || circ >= m->sizes.ncirc || n < 0 || adr < 0 || adr + n > m->sizes.nbulkpt) {
      return fail(c, m->vol_src[i], "volume %d: its circuit or oil table is out of range", i);
    }
  }
  for (int i = 0; i < m->sizes.nacc; i++) {
    if (m->acc_vol[i] < 0 || m->acc_vol[i] >= m->sizes.nvol) {
      return fail(c, m->acc_src[i], "accumulator %d: its volume is out of range", i);
    }
  }
  // the polynomial law's pressures, known once every index is
  for (int i = 0; i < m->sizes.ncirc; i++) {
    if (m->circ_law[i] != HY_BULK_POLYNOMIAL) continue;
    char elem[96];
    elem_name(elem, sizeof elem, "circuit", m->circ_name, i);
    const hy_oil oil = hy_model_circuit_oil(m, i);
    HY_TRY(check_oil(c, m->circ_src[i], elem, &oil, known_pressure(m, i, -1)));
  }
  for (int i = 0; i < m->sizes.nvol; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "volume", m->vol_name, i);
    const hy_srcpos pos = m->vol_src[i];
    const double hose = m->vol_hose[i];
    HY_TRY(check_num(c, pos, elem, "hose_volume", hose, &kVolume));
    HY_TRY(check_wall(c, pos, elem, "hose_bulk_modulus", m->vol_B_hose[i],
                      hose > 0 ? &kBulk : &kBulkNonneg));
    if (m->vol_law[i] >= 0) {
      const hy_oil oil = hy_model_volume_oil(m, i);
      HY_TRY(check_oil(c, pos, elem, &oil, known_pressure(m, m->vol_circ[i], i)));
    }
    if (m->vol_oil_fast[i] != hy_model_oil_fast(m, i)) {
      return fail(c, pos, "%s: vol_oil_fast is %d, but its oil gives %d (hy_model_oil_fast)", elem,
                  m->vol_oil_fast[i], hy_model_oil_fast(m, i));
    }
    // NaN: derived from the rest of the circuit (docs/hydraulics.md, initial state)
    if (!isnan(m->vol_p0[i])) HY_TRY(check_num(c, pos, elem, "p0", m->vol_p0[i], &kPressure));
    int nchamber = 0;
    for (int k = 0; k < m->sizes.ncyl; k++)
      nchamber += (m->cyl_vol_a[k] == i) + (m->cyl_vol_b[k] == i);
    if (hose == 0 && nchamber == 0) {
      return fail(c, pos,
                  "%s: hose volume 0 is allowed only for a cylinder chamber (it would hold no oil)",
                  elem);
    }
  }
  for (int i = 0; i < m->sizes.nsrc; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "source", m->src_name, i);
    HY_TRY(check_num(c, m->src_src[i], elem, "pressure", m->src_p[i], &kPressure));
  }
  for (int i = 0; i < m->sizes.nacc; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "accumulator", m->acc_name, i);
    const hy_srcpos pos = m->acc_src[i];
    HY_TRY(check_num(c, pos, elem, "precharge", m->acc_p0[i], &kPressurePos));
    HY_TRY(check_num(c, pos, elem, "gas_volume", m->acc_V0[i], &kVolumePos));
    HY_TRY(check_num(c, pos, elem, "polytropic", m->acc_n[i], &kPolytropic));
  }
  return HY_OK;
}

// Whether directional valve i gives any metering-edge table (hy_model_valve_tables looks at the
// P->A one, which the rules below then require).
static int valve_has_tables(const hy_model* m, int i) {
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    if (m->vlv_edge_n[HY_VALVE_PATHS * i + k] != 0) return 1;
  }
  return 0;
}

// A shape parameter that the edge tables replace: refused unless it keeps its default 0.
static hy_status refuse_with_tables(const checker* c, hy_srcpos pos, const char* elem,
                                    const char* key, double x) {
  if (x == 0) return HY_OK;
  return fail(c, pos,
              "%s: %s (%g) has no meaning with edges: the tables give every path's coefficient "
              "at every spool position",
              elem, key, x);
}

// The metering-edge tables of directional valve i (docs/hydraulics.md, "Metering edges from
// tables"): the four edges' tables with at least 2 points each, P->T's none or at least 2;
// spool positions in the units of U, strictly increasing; coefficients >= 0. The built-in
// shape's parameters, which the tables replace, must keep their defaults.
static hy_status check_edge_tables(const checker* c, hy_srcpos pos, const char* elem, int i) {
  const hy_model* m = c->m;
  HY_TRY(refuse_with_tables(c, pos, elem, "cv", m->vlv_cv[i]));
  HY_TRY(refuse_with_tables(c, pos, elem, "overlap", m->vlv_overlap[i]));
  HY_TRY(refuse_with_tables(c, pos, elem, "U_max", m->vlv_Umax[i]));
  HY_TRY(refuse_with_tables(c, pos, elem, "cv_centre", m->vlv_cv_centre[i]));
  if (m->vlv_centre[i] != HY_CENTRE_CLOSED) {
    return fail(c, pos,
                "%s: a centre other than closed has no meaning with edges: the tables give the "
                "openings at U = 0 too (a P->T table gives the path to tank)",
                elem);
  }
  const int norm = m->vlv_units[i] == HY_VALVE_NORMALIZED;
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    const int j = HY_VALVE_PATHS * i + k, n = m->vlv_edge_n[j], adr = m->vlv_edge_adr[j];
    const char* path = hy_valve_path_name(k);
    // a table's own position when the file gives one, else the valve's
    const hy_srcpos at = m->vlv_edge_src[j].line > 0 ? m->vlv_edge_src[j] : pos;
    if (n < 0 || adr < 0 || adr + n > m->sizes.nedgept) {
      return fail(c, at, "%s: its edge table %s is out of range", elem, path);
    }
    if (n == 0 && k == 4) continue;  // P->T: no such path
    if (n < 2) {
      return fail(c, at,
                  "%s: edges: %s needs a table of at least 2 points [U, C]%s, got %d", elem, path,
                  k < 4 ? " (P->A, B->T, P->B and A->T each need one)" : "", n);
    }
    const double* U = m->edge_U + adr;
    const double* C = m->edge_C + adr;
    for (int p = 0; p < n; p++) {
      char field[48];
      snprintf(field, sizeof field, "edges %s[%d] U", path, p);
      HY_TRY(check_num(c, at, elem, field, U[p], norm ? &kOpening : &kVoltage));
      snprintf(field, sizeof field, "edges %s[%d] C", path, p);
      HY_TRY(check_num(c, at, elem, field, C[p], &kCvNonneg));
      if (p > 0 && !(U[p] > U[p - 1])) {
        return fail(c, at,
                    "%s: edges: %s: the spool positions must increase, but point %d has U = %g "
                    "after %g",
                    elem, path, p, U[p], U[p - 1]);
      }
    }
  }
  return check_num(c, pos, elem, "leakage", m->vlv_leak[i], &kLeakage);
}

// The metering edges of directional valve i (docs/hydraulics.md, "Metering edges"): the
// centre paths close at |U| = U_max, which they need; an overlap of U_max or more would keep
// the edges shut over the whole nominal stroke (an underlap as large, open at both ends).
static hy_status check_valve_edges(const checker* c, hy_srcpos pos, const char* elem, int i) {
  const hy_model* m = c->m;
  if (valve_has_tables(m, i)) return check_edge_tables(c, pos, elem, i);
  const int centre = m->vlv_centre[i];
  if (centre < HY_CENTRE_CLOSED || centre > HY_CENTRE_FLOAT) {
    return fail(c, pos, "%s: unknown centre %d (closed, open, tandem or float)", elem, centre);
  }
  const double Umax = m->vlv_Umax[i], overlap = m->vlv_overlap[i];
  if (centre != HY_CENTRE_CLOSED) {
    if (!(Umax > 0) && isfinite(Umax)) {
      return fail(c, pos,
                  "%s: an open, tandem or float centre needs U_max > 0 (V), the spool position "
                  "where the centre paths have closed; got %g",
                  elem, Umax);
    }
    HY_TRY(check_num(c, pos, elem, "U_max", Umax, &kVoltagePos));
    HY_TRY(check_num(c, pos, elem, "cv_centre", m->vlv_cv_centre[i], &kCvNonneg));
  } else {
    HY_TRY(check_num(c, pos, elem, "U_max", Umax, &kVoltageNonneg));
    if (m->vlv_cv_centre[i] != 0) {
      return fail(c, pos,
                  "%s: cv_centre (%g) applies to open, tandem and float centres only; this "
                  "valve's centre is closed",
                  elem, m->vlv_cv_centre[i]);
    }
  }
  HY_TRY(check_num(c, pos, elem, "overlap", overlap, &kVoltage));
  if (Umax > 0 && !(fabs(overlap) < Umax)) {
    return fail(c, pos,
                "%s: overlap %g V must lie between -U_max and U_max (%g V, both excluded): the "
                "edges would not open, or not close, within the nominal stroke",
                elem, overlap, Umax);
  }
  return check_num(c, pos, elem, "leakage", m->vlv_leak[i], &kLeakage);
}

// A directional valve's spool (docs/hydraulics.md, "Spool dynamics"): the parameters its
// dynamics read, the input shaping, and its initial position, in the units of its U. A
// second-order spool's velocity state is laid out by the compiler: a model changed afterwards to
// another order would step the wrong states.
static hy_status check_spool(const checker* c, int i, const char* elem) {
  const hy_model* m = c->m;
  const hy_srcpos pos = m->vlv_src[i];
  const int kind = m->vlv_spool[i], units = m->vlv_units[i], init = m->vlv_init[i];
  if (kind < 0 || kind >= HY_SPOOL_COUNT) return fail(c, pos, "%s: unknown spool %d", elem, kind);
  if (units < 0 || units >= HY_VALVE_UNITS_COUNT) {
    return fail(c, pos, "%s: unknown units %d", elem, units);
  }
  if (init < 0 || init >= HY_VALVE_INIT_COUNT) {
    return fail(c, pos, "%s: unknown initial %d", elem, init);
  }
  const int vadr = m->vlv_vadr[i], second = kind == HY_SPOOL_SECOND_ORDER;
  if (second != (vadr >= 0) || (second && (vadr < m->sizes.nvlv || vadr >= m->sizes.nspool))) {
    return fail(c, pos,
                "%s: spool %s does not match its spool states (velocity state %d of %d): set "
                "the spool in the specification before compiling",
                elem, hy_spool_name((hy_spool_dynamics)kind), vadr, m->sizes.nspool);
  }
  if (kind == HY_SPOOL_FIRST_ORDER) HY_TRY(check_num(c, pos, elem, "tau", m->vlv_tau[i], &kTime));
  if (second) {
    HY_TRY(check_num(c, pos, elem, "natural_frequency", m->vlv_fn[i], &kFrequencyPos));
    HY_TRY(check_num(c, pos, elem, "damping_ratio", m->vlv_zeta[i], &kDampingRatio));
  }
  const int norm = units == HY_VALVE_NORMALIZED;
  // INFINITY is no limit (a normalized reference stays within the full opening anyway)
  if (m->vlv_sat[i] != INFINITY) {
    HY_TRY(check_num(c, pos, elem, "saturation", m->vlv_sat[i],
                     norm ? &kOpeningPos : &kVoltagePos));
  }
  HY_TRY(check_num(c, pos, elem, "dead_zone", m->vlv_dead[i],
                   norm ? &kOpeningNonneg : &kVoltageNonneg));
  return check_num(c, pos, elem, "U0", m->vlv_U0[i], norm ? &kOpening : &kVoltage);
}

static hy_status check_valves(const checker* c) {
  const hy_model* m = c->m;
  for (int i = 0; i < m->sizes.norf; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "throttle", m->orf_name, i);
    const hy_srcpos pos = m->orf_src[i];
    HY_TRY(check_num(c, pos, elem, "cv", m->orf_cv[i], &kCv));
    HY_TRY(check_num(c, pos, elem, "dp_lim", m->orf_dp_lim[i], &kDpPos));
    const int law = m->orf_law[i];
    if (law != HY_ORIFICE_LAMINAR_TRANSITION && law != HY_ORIFICE_TURBULENT) {
      return fail(c, pos, "%s: unknown law %d (laminar_transition or turbulent)", elem, law);
    }
    HY_TRY(check_num(c, pos, elem, "dp_reg", m->orf_dp_reg[i], &kDpPos));
    if (m->orf_one_way[i] != 0 && m->orf_one_way[i] != 1) {
      return fail(c, pos, "%s: one_way must be 0 or 1, got %d", elem, m->orf_one_way[i]);
    }
  }
  for (int i = 0; i < m->sizes.nvlv; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "valve", m->vlv_name, i);
    const hy_srcpos pos = m->vlv_src[i];
    const int norm = m->vlv_units[i] == HY_VALVE_NORMALIZED;
    // with edge tables cv has no part (check_edge_tables refuses it)
    if (!valve_has_tables(m, i)) {
      HY_TRY(check_num(c, pos, elem, "cv", m->vlv_cv[i], norm ? &kCv : &kCvValve));
    }
    HY_TRY(check_spool(c, i, elem));
    HY_TRY(check_num(c, pos, elem, "dp_lim", m->vlv_dp_lim[i], &kDpPos));
    HY_TRY(check_valve_edges(c, pos, elem, i));
  }
  for (int i = 0; i < m->sizes.npvl; i++) {
    const int kind = m->pvl_kind[i];
    const int relief = kind == HY_PRESSURE_VALVE_RELIEF;
    char elem[96];
    elem_name(elem, sizeof elem, relief ? "relief valve" : "check valve", m->pvl_name, i);
    const hy_srcpos pos = m->pvl_src[i];
    if (kind != HY_PRESSURE_VALVE_CHECK && !relief) {
      return fail(c, pos, "pressure valve '%.*s': unknown kind %d", HY_NAME_MAX - 1,
                  m->pvl_name + (size_t)i * HY_NAME_MAX, kind);
    }
    HY_TRY(check_num(c, pos, elem, "cv", m->pvl_cv[i], &kCv));
    // a relief valve open at dp = 0 would be a throttle; a check valve may crack at once
    if (relief) {
      HY_TRY(check_num(c, pos, elem, "p_set", m->pvl_p_crack[i], &kDpPos));
    } else {
      HY_TRY(check_num(c, pos, elem, "p_crack", m->pvl_p_crack[i], &kDp));
    }
    HY_TRY(check_num(c, pos, elem, "p_open", m->pvl_p_open[i], &kDpPos));
    HY_TRY(check_num(c, pos, elem, "dp_lim", m->pvl_dp_lim[i], &kDpPos));
  }
  return HY_OK;
}

// Pumps (docs/hydraulics.md, "pumps"). The compensator's band must lie above a zero pressure
// rise, so that a compensated pump delivers its full displacement against an open line; a fixed
// pump has no compensator, and one given to it would be silently ignored.
static hy_status check_pumps(const checker* c) {
  const hy_model* m = c->m;
  for (int i = 0; i < m->sizes.npump; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "pump", m->pmp_name, i);
    const hy_srcpos pos = m->pmp_src[i];
    const int kind = m->pmp_kind[i];
    if (kind != HY_PUMP_FIXED && kind != HY_PUMP_COMPENSATED) {
      return fail(c, pos, "%s: unknown kind %d", elem, kind);
    }
    HY_TRY(check_num(c, pos, elem, "displacement", m->pmp_disp[i], &kDisplacement));
    HY_TRY(check_num(c, pos, elem, "speed", m->pmp_speed[i], &kSpeed));
    HY_TRY(check_num(c, pos, elem, "leakage", m->pmp_leak[i], &kLeakage));
    const double p_comp = m->pmp_p_comp[i], band = m->pmp_dp_comp[i];
    if (kind == HY_PUMP_FIXED) {
      if (p_comp != 0 || band != 0) {
        return fail(c, pos,
                    "%s: a fixed pump has no compensator (compensator %g Pa, compensator_band %g "
                    "Pa given); make it kind compensated",
                    elem, p_comp, band);
      }
      continue;
    }
    HY_TRY(check_num(c, pos, elem, "compensator", p_comp, &kDpPos));
    HY_TRY(check_num(c, pos, elem, "compensator_band", band, &kDpPos));
    if (band > p_comp) {
      return fail(c, pos,
                  "%s: compensator_band (%g Pa) must not exceed compensator (%g Pa): the "
                  "displacement would already be reduced at zero pressure rise",
                  elem, band, p_comp);
    }
  }
  return HY_OK;
}

// The parameters a cylinder's friction law reads (docs/friction.md); the others are not looked
// at. The bristle laws divide by g(v) >= min(F_c, F_s), so both must be positive there, and the
// film law needs F_s > F_c for a film that thins the Stribeck term (Eq. 33).
static hy_status check_friction(const checker* c, hy_srcpos pos, const char* elem,
                                const hy_friction_def* f) {
  const hy_friction_law law = f->law;
  if ((int)law < 0 || law >= HY_FRICTION_COUNT) {
    return fail(c, pos, "%s: unknown friction law %d", elem, (int)law);
  }
  if (law == HY_FRICTION_NONE) return HY_OK;
  char e[128];
  snprintf(e, sizeof e, "%s%sfriction", elem, elem[0] ? ": " : "");
  const int bristles = law == HY_FRICTION_LUGRE || law == HY_FRICTION_LUGRE_FILM;
  HY_TRY(check_num(c, pos, e, "coulomb", f->coulomb, bristles ? &kForcePos : &kForceNonneg));
  HY_TRY(check_num(c, pos, e, "viscous", f->viscous, &kDamping));
  HY_TRY(check_num(c, pos, e, "pressure_coefficient", f->pressure_coefficient, &kFraction));
  if (law == HY_FRICTION_COULOMB) {
    return check_num(c, pos, e, "tanh_velocity", f->tanh_velocity, &kVelocityPos);
  }
  HY_TRY(check_num(c, pos, e, "stiction", f->stiction, bristles ? &kForcePos : &kForceNonneg));
  HY_TRY(check_num(c, pos, e, "stribeck_velocity", f->stribeck_velocity, &kVelocityPos));
  if (law == HY_FRICTION_BENGISU_AKAY) return check_num(c, pos, e, "decay", f->decay, &kDecay);
  if (law == HY_FRICTION_BROWN_MCPHEE) return HY_OK;
  HY_TRY(check_num(c, pos, e, "stiffness", f->stiffness, &kStiffnessPos));
  HY_TRY(check_num(c, pos, e, "damping", f->damping, &kDamping));
  HY_TRY(check_num(c, pos, e, "damping_velocity", f->damping_velocity, &kVelocityNonneg));
  HY_TRY(check_num(c, pos, e, "exponent", f->exponent, &kExponent));
  if (law == HY_FRICTION_LUGRE) return HY_OK;
  if (!(f->stiction > f->coulomb)) {
    return fail(c, pos, "%s: stiction (%g N) must exceed coulomb (%g N): the film law's steady film "
                "(1 - F_c/F_s) (|v|/v_b)^(2/3) needs F_s > F_c",
                e, f->stiction, f->coulomb);
  }
  HY_TRY(check_num(c, pos, e, "tau_accel", f->tau_accel, &kTime));
  HY_TRY(check_num(c, pos, e, "tau_decel", f->tau_decel, &kTime));
  HY_TRY(check_num(c, pos, e, "tau_dwell", f->tau_dwell, &kTime));
  HY_TRY(check_num(c, pos, e, "film_velocity", f->film_velocity, &kVelocityPos));
  return check_num(c, pos, e, "smoothing", f->smoothing, &kVelocityPos);
}

hy_status hy_friction_check(const hy_friction_def* f, hy_error* err) {
  if (!f) return HY_FAIL(err, HY_ERR_ARG, "hy_friction_check: NULL argument");
  static const hy_model no_model;  // no path: the message carries no file position
  const checker c = {&no_model, err};
  const hy_srcpos nowhere = {0, 0};
  return check_friction(&c, nowhere, "", f);
}

static hy_status check_cylinders(const checker* c) {
  const hy_model* m = c->m;
  for (int i = 0; i < m->sizes.ncyl; i++) {
    char elem[96];
    cyl_elem(elem, sizeof elem, m, i);
    const hy_srcpos pos = m->cyl_src[i];
    HY_TRY(check_num(c, pos, elem, "area_a", m->cyl_area_a[i], &kArea));
    HY_TRY(check_num(c, pos, elem, "area_b", m->cyl_area_b[i], &kArea));
    HY_TRY(check_num(c, pos, elem, "stroke", m->cyl_stroke[i], &kLengthPos));
    HY_TRY(check_num(c, pos, elem, "dead_length", m->cyl_dead[i], &kLengthNonneg));
    HY_TRY(check_wall(c, pos, elem, "bulk_modulus", m->cyl_B[i], &kBulk));
    HY_TRY(check_num(c, pos, elem, "viscous", m->cyl_visc[i], &kDamping));
    HY_TRY(check_num(c, pos, elem, "end_damper k", m->cyl_kd[i], &kStiffness));
    HY_TRY(check_num(c, pos, elem, "end_damper c", m->cyl_cd[i], &kDamping));
    HY_TRY(check_num(c, pos, elem, "end_damper length", m->cyl_ld[i], &kLengthNonneg));
    if (!(2 * m->cyl_ld[i] < m->cyl_stroke[i])) {
      return fail(c, pos, "%s: the end dampers (length %g m each) must fit in the stroke (%g m)",
                  elem, m->cyl_ld[i], m->cyl_stroke[i]);
    }
    const int init = m->cyl_init[i];
    if (init != HY_CYL_INIT_GIVEN && init != HY_CYL_INIT_EQUILIBRIUM) {
      return fail(c, pos, "%s: unknown initial-state rule %d", elem, init);
    }
    HY_TRY(check_friction(c, pos, elem, &m->cyl_fric[i]));
    const int a = m->cyl_vol_a[i];
    if (init == HY_CYL_INIT_EQUILIBRIUM && !isnan(m->vol_p0[a])) {
      return fail(c, pos,
                  "%s: initial: equilibrium derives the piston-side pressure, so volume '%.*s' "
                  "must not give p0 (give it on the rod side '%.*s')",
                  elem, HY_NAME_MAX - 1, m->vol_name + (size_t)a * HY_NAME_MAX, HY_NAME_MAX - 1,
                  m->vol_name + (size_t)m->cyl_vol_b[i] * HY_NAME_MAX);
    }
  }
  return HY_OK;
}

//----- solver options ------------------------------------------------------------------------

// Where option k is given in the model file: opt_src[k] while the option, whose bytes are
// [offset, offset + size) of hy_option, still holds the value it had when compiled.
static hy_srcpos opt_pos(const hy_model* m, hy_option_key k, size_t offset, size_t size) {
  const hy_srcpos nowhere = {0, 0};
  const unsigned char* now = (const unsigned char*)&m->opt + offset;
  const unsigned char* then = (const unsigned char*)m->opt0 + offset;
  return memcmp(now, then, size) == 0 ? m->opt_src[k] : nowhere;
}

#define OPT_POS(key, field) \
  opt_pos(m, (key), offsetof(hy_option, field), sizeof(((const hy_option*)0)->field))

static hy_status check_options(const checker* c) {
  const hy_model* m = c->m;
  const hy_option* o = &m->opt;
  const hy_srcpos nowhere = {0, 0};
  const range dt = {0, INFINITY, 1, 0, "s"};
  const range penalty = {0, INFINITY, 1, 0, "N/m"};
  const range pos_tol = {0, INFINITY, 1, 0, "rad or m"};
  const range p_tol = {0, INFINITY, 1, 0, "Pa"};
  const range rcond = {0, 1, 1, 1, "-"};
  const range memory = {0, INFINITY, 1, 0, "bytes"};
  HY_TRY(check_vec(c, OPT_POS(HY_OPT_GRAVITY, gravity), "", "gravity", o->gravity, 3, &kGravity));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_DT, dt), "solver", "dt", o->dt, &dt));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_T_END, t_end), "solver", "t_end", o->t_end, &dt));
  if ((int)o->integrator < 0 || (int)o->integrator >= HY_INTEG_COUNT) {
    return fail(c, OPT_POS(HY_OPT_INTEGRATOR, integrator), "solver: unknown integrator %d",
                (int)o->integrator);
  }
  if ((int)o->formulation < 0 || (int)o->formulation >= HY_FORM_COUNT) {
    return fail(c, OPT_POS(HY_OPT_FORMULATION, formulation), "solver: unknown formulation %d",
                (int)o->formulation);
  }
  if ((int)o->tangent < 0 || (int)o->tangent >= HY_TANGENT_COUNT) {
    return fail(c, OPT_POS(HY_OPT_TANGENT, tangent), "solver: unknown tangent %d", (int)o->tangent);
  }
  HY_TRY(check_num(c, OPT_POS(HY_OPT_PENALTY, penalty), "solver", "penalty", o->penalty, &penalty));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_TOL_POS, tol_pos), "solver", "tol_position", o->tol_pos,
                   &pos_tol));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_TOL_P, tol_p), "solver", "tol_pressure", o->tol_p, &p_tol));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_TOL_FRIC, tol_fric), "solver", "tol_friction", o->tol_fric,
                   &pos_tol));
  const range xi = {0, 1e3, 0, 0, "-"};
  const range omega = {0, 1e6, 0, 0, "rad/s"};
  HY_TRY(check_num(c, OPT_POS(HY_OPT_BAUMGARTE_XI, baumgarte_xi), "solver", "baumgarte_xi",
                   o->baumgarte_xi, &xi));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_BAUMGARTE_OMEGA, baumgarte_omega), "solver",
                   "baumgarte_omega", o->baumgarte_omega, &omega));
  const range ode_tol = {1e-14, 0.1, 0, 0, "-"};
  HY_TRY(check_num(c, OPT_POS(HY_OPT_ODE_TOL, ode_tol), "solver", "tolerance", o->ode_tol,
                   &ode_tol));
  HY_TRY(check_int(c, OPT_POS(HY_OPT_THREADS, threads), "solver", "threads", o->threads, 1, 256));
  HY_TRY(check_int(c, OPT_POS(HY_OPT_MAX_ITER, max_iter), "solver", "max_iterations", o->max_iter,
                   1, HY_MAX_ITERATIONS));
  HY_TRY(check_flag(c, OPT_POS(HY_OPT_REUSE_TANGENT, reuse_tangent), "reuse_tangent",
                    o->reuse_tangent));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_PARTITION_RCOND, partition_rcond), "solver", "partition_rcond",
                   o->partition_rcond, &rcond));
  HY_TRY(check_flag(c, nowhere, "time_steps", o->time_steps));
  HY_TRY(
      check_flag(c, OPT_POS(HY_OPT_STRICT_STEPS, strict_steps), "strict_steps", o->strict_steps));
  HY_TRY(check_flag(c, OPT_POS(HY_OPT_REACTIONS, reactions), "reactions", o->reactions));
  HY_TRY(check_int(c, OPT_POS(HY_OPT_MAX_CUTS, max_cuts), "solver", "max_cuts", o->max_cuts, 0,
                   HY_MAX_CUTS));
  if ((int)o->error_control < 0 || (int)o->error_control >= HY_ERRCTL_COUNT) {
    return fail(c, OPT_POS(HY_OPT_ERROR_CONTROL, error_control), "solver: unknown error control %d",
                (int)o->error_control);
  }
  HY_TRY(check_num(c, OPT_POS(HY_OPT_ERROR_TOL_POS, error_tol_pos), "solver", "error_tol_position",
                   o->error_tol_pos, &pos_tol));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_ERROR_TOL_P, error_tol_p), "solver", "error_tol_pressure",
                   o->error_tol_p, &p_tol));
  HY_TRY(check_num(c, OPT_POS(HY_OPT_MAX_MEMORY, max_memory), "solver", "max_memory", o->max_memory,
                   &memory));
  return HY_OK;
}

#undef OPT_POS

//----- entry point ---------------------------------------------------------------------------

hy_status hy_model_check(const hy_model* m, hy_error* err) {
  if (!m) return HY_FAIL(err, HY_ERR_ARG, "null model");
  const checker c = {m, err};
  // in the order of a model file's sections, so the first error is the first in the file
  HY_TRY(check_bodies(&c));
  HY_TRY(check_joints(&c));
  HY_TRY(check_signals(&c));
  HY_TRY(check_cuts(&c));
  HY_TRY(check_nonholonomic(&c));
  HY_TRY(check_couplers(&c));
  HY_TRY(check_forces(&c));
  HY_TRY(check_circuits(&c));
  HY_TRY(check_pumps(&c));
  HY_TRY(check_valves(&c));
  HY_TRY(check_cylinders(&c));
  return check_options(&c);
}
