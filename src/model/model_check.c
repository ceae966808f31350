// The checker of model values: every rule on the numbers of a model lives here, so a model
// built in code and one read from a file pass or fail the same rules with the same message
// (docs/model-format.md, "Value ranges"). The compiler keeps only what is structural (names,
// references, the tree) and the YAML loader what is syntactic.
//
// The ranges are wide enough for any machine and catch what is not one: non-finite numbers,
// values that overflow the energies or the tangent (a mass of 1e308 kg), and most slips of unit
// (a cylinder area in mm^2, a volume in cm^3). Bulk moduli have no upper bound: a rigid wall is
// sometimes modelled with 1e30 Pa.
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
static const range kVoltagePos = {0, HY_MAX_VOLTAGE, 1, 0, "V"};
static const range kVoltageNonneg = {0, HY_MAX_VOLTAGE, 0, 0, "V"};
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

static hy_status check_bodies(const checker* c) {
  const hy_model* m = c->m;
  for (int i = 0; i < m->sizes.nbody; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "body", m->body_name, i);
    const hy_srcpos pos = m->body_src[i];
    const double* J = m->body_inertia + 9 * i;
    HY_TRY(check_num(c, pos, elem, "mass", m->body_mass[i], &kMass));
    HY_TRY(check_vec(c, pos, elem, "com", m->body_com + 3 * i, 3, &kLength));
    HY_TRY(check_inertia(c, pos, elem, J));
    if (m->body_mass[i] == 0) HY_TRY(check_massless(c, pos, elem, J));
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

static hy_status check_joints(const checker* c) {
  const hy_model* m = c->m;
  const range coord = {-HY_MAX_COORD, HY_MAX_COORD, 0, 0, "m"};
  const range rate = {-HY_MAX_RATE, HY_MAX_RATE, 0, 0, "m/s"};
  for (int j = 0; j < m->sizes.nbody; j++) {
    char elem[96];
    elem_name(elem, sizeof elem, "joint", m->jnt_name, j);
    const hy_srcpos pos = m->jnt_src[j];
    const int type = m->jnt_type[j];
    if (type != HY_JOINT_REVOLUTE && type != HY_JOINT_PRISMATIC) {
      return fail(c, pos, "%s: unknown type %d", elem, type);
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
      HY_TRY(check_num(c, pos, elem, "z0", m->z0[z], &coord));
      HY_TRY(check_num(c, pos, elem, "zd0", m->zd0[z], &rate));
    }
  }
  for (int k = 0; k < m->sizes.nmrk; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "marker", m->mrk_name, k);
    HY_TRY(check_vec(c, m->mrk_src[k], elem, "point", m->mrk_point + 3 * k, 3, &kLength));
  }
  return HY_OK;
}

//----- signals and loads ---------------------------------------------------------------------

static hy_status check_signals(const checker* c) {
  const hy_model* m = c->m;
  for (int k = 0; k < m->sizes.nsig; k++) {
    char elem[96];
    elem_name(elem, sizeof elem, "signal", m->sig_name, k);
    const hy_srcpos pos = m->sig_src[k];
    const int interp = m->sig_interp[k], n = m->sig_npoint[k], adr = m->sig_adr[k];
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

static hy_status check_circuits(const checker* c) {
  const hy_model* m = c->m;
  for (int i = 0; i < m->sizes.ncirc; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "circuit", m->circ_name, i);
    const hy_srcpos pos = m->circ_src[i];
    HY_TRY(check_num(c, pos, elem, "oil bulk_modulus", m->circ_B_oil[i], &kBulk));
    if (m->circ_law[i] != HY_BULK_CONSTANT && m->circ_law[i] != HY_BULK_LINEAR) {
      return fail(c, pos, "%s: unknown bulk modulus law %d", elem, m->circ_law[i]);
    }
    HY_TRY(check_num(c, pos, elem, "oil k", m->circ_law_k[i], &kLawK));
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
    char elem[96];
    elem_name(elem, sizeof elem, "volume", m->vol_name, i);
    const hy_srcpos pos = m->vol_src[i];
    const double hose = m->vol_hose[i];
    HY_TRY(check_num(c, pos, elem, "hose_volume", hose, &kVolume));
    HY_TRY(check_num(c, pos, elem, "hose_bulk_modulus", m->vol_B_hose[i],
                     hose > 0 ? &kBulk : &kBulkNonneg));
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
  return HY_OK;
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
  }
  for (int i = 0; i < m->sizes.nvlv; i++) {
    char elem[96];
    elem_name(elem, sizeof elem, "valve", m->vlv_name, i);
    const hy_srcpos pos = m->vlv_src[i];
    const int norm = m->vlv_units[i] == HY_VALVE_NORMALIZED;
    HY_TRY(check_num(c, pos, elem, "cv", m->vlv_cv[i], norm ? &kCv : &kCvValve));
    HY_TRY(check_spool(c, i, elem));
    HY_TRY(check_num(c, pos, elem, "dp_lim", m->vlv_dp_lim[i], &kDpPos));
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
    HY_TRY(check_num(c, pos, elem, "bulk_modulus", m->cyl_B[i], &kBulk));
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
  HY_TRY(check_forces(&c));
  HY_TRY(check_circuits(&c));
  HY_TRY(check_valves(&c));
  HY_TRY(check_cylinders(&c));
  return check_options(&c);
}
