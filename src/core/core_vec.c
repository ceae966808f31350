// 3-vectors, 3x3 matrices (row-major) and rotations.
#include <math.h>

#include "core/core.h"

//----- 3-vectors -----------------------------------------------------------------------------

double hy_v3_normalize(double a[3]) {
  const double n = hy_v3_norm(a);
  if (n > 0) hy_v3_scale(a, a, 1.0 / n);
  return n;
}

//----- 3x3 matrices --------------------------------------------------------------------------

void hy_m3_identity(double r[9]) {
  for (int i = 0; i < 9; i++) r[i] = 0;
  r[0] = r[4] = r[8] = 1;
}

void hy_m3_transpose(double r[9], const double a[9]) {
  // Swap pairwise so that r == a works too.
  const double a01 = a[1], a02 = a[2], a12 = a[5];
  r[0] = a[0];
  r[4] = a[4];
  r[8] = a[8];
  r[1] = a[3];
  r[3] = a01;
  r[2] = a[6];
  r[6] = a02;
  r[5] = a[7];
  r[7] = a12;
}

void hy_m3_skew(double r[9], const double v[3]) {
  r[0] = 0;
  r[1] = -v[2];
  r[2] = v[1];
  r[3] = v[2];
  r[4] = 0;
  r[5] = -v[0];
  r[6] = -v[1];
  r[7] = v[0];
  r[8] = 0;
}

double hy_m3_det(const double a[9]) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
         a[2] * (a[3] * a[7] - a[4] * a[6]);
}

//----- rotations -----------------------------------------------------------------------------

// R = c I + s k~ + (1 - c) k k^T for a unit axis k, from the sine and cosine of the angle.
static void rot_from_sin_cos(double r[9], const double k[3], double s, double c) {
  const double t = 1 - c;
  r[0] = c + t * k[0] * k[0];
  r[1] = t * k[0] * k[1] - s * k[2];
  r[2] = t * k[0] * k[2] + s * k[1];
  r[3] = t * k[1] * k[0] + s * k[2];
  r[4] = c + t * k[1] * k[1];
  r[5] = t * k[1] * k[2] - s * k[0];
  r[6] = t * k[2] * k[0] - s * k[1];
  r[7] = t * k[2] * k[1] + s * k[0];
  r[8] = c + t * k[2] * k[2];
}

void hy_rot_axis_angle(double r[9], const double axis[3], double angle) {
  rot_from_sin_cos(r, axis, sin(angle), cos(angle));
}

// A unit vector perpendicular to the unit vector a: a crossed with the coordinate axis it is
// least aligned with, so the cross product is never small.
static void perpendicular(double k[3], const double a[3]) {
  int i = 0;
  if (fabs(a[1]) < fabs(a[i])) i = 1;
  if (fabs(a[2]) < fabs(a[i])) i = 2;
  double e[3] = {0, 0, 0};
  e[i] = 1;
  hy_v3_cross(k, a, e);
  hy_v3_normalize(k);
}

void hy_rot_align(double r[9], const double a[3], const double b[3]) {
  double ua[3], ub[3];
  hy_v3_copy(ua, a);
  hy_v3_copy(ub, b);
  hy_v3_normalize(ua);
  hy_v3_normalize(ub);
  const double c = hy_v3_dot(ua, ub);
  double k[3];
  hy_v3_cross(k, ua, ub);
  const double s = hy_v3_norm(k);
  // Rounding leaves k slightly off the plane normal to a; removing that part makes r*a = b hold
  // to rounding even when a and b are nearly antiparallel and k is mostly noise. The removed
  // part is parallel to a, so it does not change k x a, which carries the rotation of a.
  hy_v3_addscl(k, ua, -hy_v3_dot(k, ua));
  if (s <= 1e-15 || hy_v3_normalize(k) == 0) {
    if (c > 0) {
      hy_m3_identity(r);
      return;
    }
    perpendicular(k, ua);
    rot_from_sin_cos(r, k, 0, -1);
    return;
  }
  const double h = hypot(s, c);
  rot_from_sin_cos(r, k, s / h, c / h);
}

void hy_rot_to_axis_angle(const double r[9], double axis[3], double* angle) {
  // Skew part: (R - R^T)/2 = sin(theta) k~; trace: 1 + 2 cos(theta).
  double w[3] = {0.5 * (r[7] - r[5]), 0.5 * (r[2] - r[6]), 0.5 * (r[3] - r[1])};
  const double c = 0.5 * (r[0] + r[4] + r[8] - 1);
  const double s = hy_v3_norm(w);
  const double theta = atan2(s, c);
  *angle = theta;
  if (c >= 0) {
    // Far from pi the skew part determines the axis well.
    if (s > 0) {
      hy_v3_scale(axis, w, 1.0 / s);
    } else {
      hy_v3_set(axis, 1, 0, 0);  // no rotation: any axis
    }
    return;
  }
  // Near pi the skew part vanishes; the symmetric part gives k k^T = (R_sym - c I)/(1 - c).
  // Take the row of the largest diagonal entry, then the sign from the skew part.
  const double t = 1 - c;
  double kk[9];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) kk[3 * i + j] = (0.5 * (r[3 * i + j] + r[3 * j + i])) / t;
    kk[4 * i] -= c / t;
  }
  int p = 0;
  if (kk[4] > kk[4 * p]) p = 1;
  if (kk[8] > kk[4 * p]) p = 2;
  const double kp = sqrt(fmax(kk[4 * p], 0));
  for (int j = 0; j < 3; j++) axis[j] = (j == p) ? kp : kk[3 * p + j] / kp;
  hy_v3_normalize(axis);
  if (hy_v3_dot(axis, w) < 0) hy_v3_scale(axis, axis, -1);
}
