// 3-vectors, 3x3 matrices, rotations and the spatial body inertia, each against a truth that
// does not reuse the code under test: vector identities, orthonormality, kinetic energy.
#include <math.h>

#include "core/core.h"
#include "fixture.h"

// Deterministic uniform numbers in [-1, 1) (xorshift64), so failures reproduce.
static unsigned long long rng_state = 88172645463325252ULL;
static double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void rand_v3(double v[3]) {
  for (int i = 0; i < 3; i++) v[i] = urand();
}

static void rand_unit(double v[3]) {
  do rand_v3(v);
  while (hy_v3_norm(v) < 0.1);
  hy_v3_normalize(v);
}

static void assert_v3_near(const double a[3], const double b[3], double tol) {
  for (int i = 0; i < 3; i++) {
    if (tol > 0) {
      ck_assert_double_eq_tol(a[i], b[i], tol);
    } else {
      ck_assert_double_eq(a[i], b[i]);
    }
  }
}

// R^T R = I and det R = +1.
static void assert_rotation(const double r[9], double tol) {
  double rtr[9], eye[9];
  hy_m3_mulT1(rtr, r, r);
  hy_m3_identity(eye);
  for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(rtr[i], eye[i], tol);
  ck_assert_double_eq_tol(hy_m3_det(r), 1.0, tol);
}

START_TEST(cross_identities) {
  for (int trial = 0; trial < 100; trial++) {
    double a[3], b[3], c[3], axb[3], bxa[3];
    rand_v3(a);
    rand_v3(b);
    rand_v3(c);
    hy_v3_cross(axb, a, b);
    hy_v3_cross(bxa, b, a);
    // Anticommutative and perpendicular to both factors.
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(axb[i], -bxa[i], 1e-15);
    ck_assert_double_eq_tol(hy_v3_dot(axb, a), 0, 1e-15);
    ck_assert_double_eq_tol(hy_v3_dot(axb, b), 0, 1e-15);
    // Lagrange: |a x b|^2 = |a|^2 |b|^2 - (a.b)^2.
    const double ab = hy_v3_dot(a, b);
    ck_assert_double_eq_tol(hy_v3_dot(axb, axb), hy_v3_dot(a, a) * hy_v3_dot(b, b) - ab * ab,
                            1e-14);
    // a x (b x c) = b (a.c) - c (a.b).
    double bxc[3], lhs[3], rhs[3];
    hy_v3_cross(bxc, b, c);
    hy_v3_cross(lhs, a, bxc);
    hy_v3_scale(rhs, b, hy_v3_dot(a, c));
    hy_v3_addscl(rhs, c, -ab);
    assert_v3_near(lhs, rhs, 1e-14);
    // Aliasing the output with an input must give the same result.
    double alias[3];
    hy_v3_copy(alias, a);
    hy_v3_cross(alias, alias, b);
    assert_v3_near(alias, axb, 0);
    hy_v3_copy(alias, b);
    hy_v3_cross(alias, a, alias);
    assert_v3_near(alias, axb, 0);
  }
  // Right-handed basis.
  const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
  double r[3];
  hy_v3_cross(r, x, y);
  assert_v3_near(r, z, 0);
}
END_TEST

START_TEST(matrix_products) {
  double a[9], b[9], v[3];
  for (int i = 0; i < 9; i++) a[i] = urand();
  for (int i = 0; i < 9; i++) b[i] = urand();
  rand_v3(v);
  double at[9], bt[9], ab[9], r[9], ref[9];
  hy_m3_transpose(at, a);
  hy_m3_transpose(bt, b);
  hy_m3_mul(ab, a, b);
  // Element (i, j) of a*b written out independently.
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += a[3 * i + k] * b[3 * k + j];
      ck_assert_double_eq_tol(ab[3 * i + j], s, 1e-15);
    }
  }
  hy_m3_mulT1(r, a, b);
  hy_m3_mul(ref, at, b);
  for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(r[i], ref[i], 1e-15);
  hy_m3_mulT2(r, a, b);
  hy_m3_mul(ref, a, bt);
  for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(r[i], ref[i], 1e-15);
  // In-place transpose.
  hy_m3_copy(r, a);
  hy_m3_transpose(r, r);
  for (int i = 0; i < 9; i++) ck_assert_double_eq(r[i], at[i]);
  // det(a b) = det(a) det(b); det(a^T) = det(a).
  ck_assert_double_eq_tol(hy_m3_det(ab), hy_m3_det(a) * hy_m3_det(b), 1e-14);
  ck_assert_double_eq_tol(hy_m3_det(at), hy_m3_det(a), 1e-15);
  // a^T v = (v^T a)^T.
  double w[3], wt[3];
  hy_m3_mulTv(w, a, v);
  hy_m3_mulv(wt, at, v);
  assert_v3_near(w, wt, 1e-15);
  // skew(v) x = v x x, and skew is singular.
  double s[9], x[3], sx[3], vx[3];
  rand_v3(x);
  hy_m3_skew(s, v);
  hy_m3_mulv(sx, s, x);
  hy_v3_cross(vx, v, x);
  assert_v3_near(sx, vx, 1e-15);
  ck_assert_double_eq_tol(hy_m3_det(s), 0, 1e-15);
}
END_TEST

START_TEST(axis_angle_rotation) {
  // A quarter turn about z takes x to y.
  const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
  double r[9], rx[3];
  hy_rot_axis_angle(r, z, HY_PI / 2);
  hy_m3_mulv(rx, r, x);
  assert_v3_near(rx, y, 1e-15);

  for (int trial = 0; trial < 100; trial++) {
    double k[3], e[3], re[3], rk[3];
    rand_unit(k);
    const double angle = HY_PI * urand();
    hy_rot_axis_angle(r, k, angle);
    assert_rotation(r, 1e-14);
    // The axis stays fixed.
    hy_m3_mulv(rk, r, k);
    assert_v3_near(rk, k, 1e-15);
    // A vector perpendicular to the axis turns by the angle, right-handed about k.
    hy_v3_cross(e, k, x);
    hy_v3_normalize(e);
    hy_m3_mulv(re, r, e);
    ck_assert_double_eq_tol(hy_v3_dot(re, e), cos(angle), 1e-14);
    double exre[3];
    hy_v3_cross(exre, e, re);
    ck_assert_double_eq_tol(hy_v3_dot(exre, k), sin(angle), 1e-14);
  }
}
END_TEST

static void check_align(const double a[3], const double b[3]) {
  double r[9], ra[3];
  hy_rot_align(r, a, b);
  assert_rotation(r, 1e-13);
  hy_m3_mulv(ra, r, a);
  assert_v3_near(ra, b, 1e-13);
}

START_TEST(rot_align_maps_a_onto_b) {
  for (int trial = 0; trial < 200; trial++) {
    double a[3], b[3];
    rand_unit(a);
    rand_unit(b);
    check_align(a, b);
    // Smallest rotation: the angle is the angle between a and b, the axis is along a x b.
    double r[9], k[3], angle, axb[3];
    hy_rot_align(r, a, b);
    hy_rot_to_axis_angle(r, k, &angle);
    ck_assert_double_eq_tol(angle, acos(hy_v3_dot(a, b)), 1e-7);
    hy_v3_cross(axb, a, b);
    hy_v3_normalize(axb);
    assert_v3_near(k, axb, 1e-7);
  }
  // Parallel, antiparallel along every axis and in a general direction, and nearly so.
  const double dirs[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.48, -0.6, 0.64}};
  for (int d = 0; d < 4; d++) {
    double a[3], b[3];
    hy_v3_copy(a, dirs[d]);
    check_align(a, a);
    hy_v3_scale(b, a, -1);
    check_align(a, b);
    double r[9], k[3], angle;
    hy_rot_align(r, a, b);
    hy_rot_to_axis_angle(r, k, &angle);
    ck_assert_double_eq_tol(angle, HY_PI, 1e-12);
    ck_assert_double_eq_tol(hy_v3_dot(k, a), 0, 1e-12);
    double p[3];
    hy_v3_cross(p, a, dirs[(d + 1) % 4]);
    hy_v3_normalize(p);
    for (double eps = 1e-4; eps > 1e-17; eps *= 1e-3) {
      for (double side = -1; side <= 1; side += 2) {
        hy_v3_scale(b, a, side);
        hy_v3_addscl(b, p, eps);
        hy_v3_normalize(b);
        check_align(a, b);
      }
    }
  }
}
END_TEST

// Rotation matrices are compared, not axes: at pi the axis sign is arbitrary.
static void check_round_trip(const double k[3], double angle) {
  double r[9], k2[3], angle2, r2[9];
  hy_rot_axis_angle(r, k, angle);
  hy_rot_to_axis_angle(r, k2, &angle2);
  ck_assert_double_eq_tol(angle2, fabs(angle), 1e-12);
  ck_assert_double_eq_tol(hy_v3_norm(k2), 1, 1e-14);
  hy_rot_axis_angle(r2, k2, angle2);
  for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(r2[i], r[i], 1e-12);
  if (fabs(angle) > 1e-6 && fabs(angle) < HY_PI - 1e-6) {
    const double sign = angle > 0 ? 1 : -1;
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(k2[i], sign * k[i], 1e-9);
  }
}

START_TEST(axis_angle_round_trip) {
  const double special[] = {0, 1e-9, 1e-4, 0.5, 1.5, HY_PI / 2, 2.5, HY_PI - 1e-7, HY_PI, -0.7};
  for (int trial = 0; trial < 100; trial++) {
    double k[3];
    rand_unit(k);
    check_round_trip(k, HY_PI * urand());
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) check_round_trip(k, special[i]);
  }
  const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
  check_round_trip(x, HY_PI);
  check_round_trip(y, HY_PI);
  check_round_trip(z, HY_PI);
}
END_TEST

START_TEST(body_inertia_matches_definition) {
  for (int trial = 0; trial < 50; trial++) {
    const double mass = 1 + 10 * fabs(urand());
    double g[3], jb[9], rot[9], k[3], j[9], tmp[9];
    rand_v3(g);
    hy_v3_scale(g, g, 3);
    // A physical inertia: diagonal principal moments obeying the triangle inequality, rotated.
    const double p0 = 1 + fabs(urand()), p1 = 1 + fabs(urand()), p2 = 1 + fabs(urand());
    const double d[9] = {p0, 0, 0, 0, p1, 0, 0, 0, p2};
    rand_unit(k);
    hy_rot_axis_angle(rot, k, 2 * urand());
    hy_m3_mul(tmp, rot, d);
    hy_m3_mulT2(jb, tmp, rot);
    hy_m3_copy(j, jb);

    double m6[36];
    hy_m6_body_inertia(m6, mass, g, j);

    // Seed 000 Eq. 9 assembled block by block from explicitly written skew matrices.
    const double gs[9] = {0, -g[2], g[1], g[2], 0, -g[0], -g[1], g[0], 0};
    double ref[36];
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) {
        double gg = 0;
        for (int q = 0; q < 3; q++) gg += gs[3 * r + q] * gs[3 * q + c];
        ref[6 * r + c] = r == c ? mass : 0;
        ref[6 * r + 3 + c] = -mass * gs[3 * r + c];
        ref[6 * (3 + r) + c] = mass * gs[3 * r + c];
        ref[6 * (3 + r) + 3 + c] = j[3 * r + c] - mass * gg;
      }
    }
    for (int i = 0; i < 36; i++) ck_assert_double_eq_tol(m6[i], ref[i], 1e-13);

    // Physical truth: 1/2 Z^T M Z is the kinetic energy 1/2 m |v_g|^2 + 1/2 w^T J w, with
    // v_g = sdot + w x g the velocity of the centre of mass.
    double z6[6], mz[6], w[3], vg[3], jw[3];
    for (int i = 0; i < 6; i++) z6[i] = urand();
    hy_v3_copy(w, z6 + 3);
    hy_v3_cross(vg, w, g);
    hy_v3_add(vg, vg, z6);
    hy_m3_mulv(jw, j, w);
    hy_m6_mulv(mz, m6, z6);
    const double t_ref = 0.5 * mass * hy_v3_dot(vg, vg) + 0.5 * hy_v3_dot(w, jw);
    ck_assert_double_lt(hy_test_relerr(0.5 * hy_sv_dot(z6, mz), t_ref, 1e-12), 1e-13);
  }
}
END_TEST

START_TEST(spatial_vector_ops) {
  double a[6], b[6], r[6];
  for (int i = 0; i < 6; i++) a[i] = urand(), b[i] = urand();
  hy_sv_add(r, a, b);
  for (int i = 0; i < 6; i++) ck_assert_double_eq(r[i], a[i] + b[i]);
  hy_sv_copy(r, a);
  hy_sv_addscl(r, b, -2);
  for (int i = 0; i < 6; i++) ck_assert_double_eq_tol(r[i], a[i] - 2 * b[i], 1e-15);
  double dot = 0;
  for (int i = 0; i < 6; i++) dot += a[i] * b[i];
  ck_assert_double_eq_tol(hy_sv_dot(a, b), dot, 1e-15);
  hy_sv_zero(r);
  for (int i = 0; i < 6; i++) ck_assert_double_eq(r[i], 0);
  double m[36], m2[36], s[36];
  for (int i = 0; i < 36; i++) m[i] = urand(), m2[i] = urand();
  hy_m6_add(s, m, m2);
  double sv[6], mv[6], m2v[6];
  hy_m6_mulv(sv, s, a);
  hy_m6_mulv(mv, m, a);
  hy_m6_mulv(m2v, m2, a);
  for (int i = 0; i < 6; i++) ck_assert_double_eq_tol(sv[i], mv[i] + m2v[i], 1e-14);
  hy_m6_zero(s);
  for (int i = 0; i < 36; i++) ck_assert_double_eq(s[i], 0);
}
END_TEST

Suite* core_vec_suite(void) {
  Suite* s = suite_create("core_vec");
  TCase* tc = tcase_create("vec");
  tcase_add_test(tc, cross_identities);
  tcase_add_test(tc, matrix_products);
  tcase_add_test(tc, axis_angle_rotation);
  tcase_add_test(tc, rot_align_maps_a_onto_b);
  tcase_add_test(tc, axis_angle_round_trip);
  tcase_add_test(tc, body_inertia_matches_definition);
  tcase_add_test(tc, spatial_vector_ops);
  suite_add_tcase(s, tc);
  return s;
}
