// Dense factorizations against residuals and reconstructions computed here from the inputs.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;
static double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

#define N 10

// max_i |a x - b|_i for an n x n row-major a.
static double residual(int n, const double* a, const double* x, const double* b) {
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double s = -b[i];
    for (int j = 0; j < n; j++) s += a[i * n + j] * x[j];
    worst = fmax(worst, fabs(s));
  }
  return worst;
}

START_TEST(lu_solves_random_systems) {
  // every size up to N: the small ones run unrolled copies of the kernel (core_lu.c)
  for (int trial = 0; trial < 200; trial++) {
    const int n = 1 + trial % N;
    double a[N * N], lu[N * N], b[N], x[N];
    int piv[N], sing = -1;
    for (int i = 0; i < n * n; i++) a[i] = urand();
    // Some systems need pivoting: a zero leading entry cannot be eliminated without a swap.
    if (trial % 3 == 1 && n > 1) a[0] = 0;
    for (int i = 0; i < n; i++) b[i] = urand();
    memcpy(lu, a, sizeof(double) * (size_t)(n * n));
    memcpy(x, b, sizeof(double) * (size_t)n);
    ck_assert_int_eq(hy_lu_factor(n, lu, piv, &sing), HY_OK);
    ck_assert_int_eq(sing, -1);
    hy_lu_solve(n, lu, piv, x);
    ck_assert_double_lt(residual(n, a, x, b), 1e-12);
  }
}
END_TEST

START_TEST(lu_known_solution) {
  // x = (1, 2, 3) by construction; the first pivot is zero, so a swap is required.
  const double a[9] = {0, 2, 1, 1, 1, 1, 4, -1, 2};
  double lu[9], b[3] = {7, 6, 8};
  int piv[3];
  memcpy(lu, a, sizeof a);
  ck_assert_int_eq(hy_lu_factor(3, lu, piv, NULL), HY_OK);
  hy_lu_solve(3, lu, piv, b);
  ck_assert_double_eq_tol(b[0], 1, 1e-14);
  ck_assert_double_eq_tol(b[1], 2, 1e-14);
  ck_assert_double_eq_tol(b[2], 3, 1e-14);
}
END_TEST

START_TEST(lu_reports_singular_column) {
  double a[N * N];
  int piv[N], sing = -1;
  // Column 4 = column 1 + 2 * column 2: the elimination runs out of pivots at column 4.
  for (int i = 0; i < N * N; i++) a[i] = urand();
  for (int i = 0; i < N; i++) a[i * N + 4] = a[i * N + 1] + 2 * a[i * N + 2];
  ck_assert_int_eq(hy_lu_factor(N, a, piv, &sing), HY_WARN_SINGULAR);
  ck_assert_int_eq(sing, 4);
  // An exactly zero column is found at its own position.
  for (int i = 0; i < N * N; i++) a[i] = urand();
  for (int i = 0; i < N; i++) a[i * N + 3] = 0;
  sing = -1;
  ck_assert_int_eq(hy_lu_factor(N, a, piv, &sing), HY_WARN_SINGULAR);
  ck_assert_int_eq(sing, 3);
  // Nearly singular: dependent up to 1e-15 relative, below the 1e-14 threshold.
  double b[4] = {1, 2, 3, 6 + 6e-15};
  sing = -1;
  ck_assert_int_eq(hy_lu_factor(2, b, piv, &sing), HY_WARN_SINGULAR);
  ck_assert_int_eq(sing, 1);
  // All zero.
  double z[4] = {0, 0, 0, 0};
  ck_assert_int_eq(hy_lu_factor(2, z, piv, &sing), HY_WARN_SINGULAR);
  ck_assert_int_eq(sing, 0);
  // Badly scaled but regular: the threshold is relative, so 1e-200 entries still factor.
  double c[4] = {1e-200, 2e-200, 3e-200, 5e-200};
  ck_assert_int_eq(hy_lu_factor(2, c, piv, &sing), HY_OK);
}
END_TEST

// Builds the rank-2 3 x 5 matrix row2 = 2 row0 - row1 with column 3 = 0 and checks rank, the
// permutations and that the pivot columns of the original matrix are independent.
START_TEST(lu_full_rank_deficient) {
  for (int trial = 0; trial < 50; trial++) {
    enum { M = 3, NC = 5 };
    double a[M * NC], f[M * NC];
    for (int j = 0; j < NC; j++) {
      a[j] = urand();
      a[NC + j] = urand();
      a[2 * NC + j] = 2 * a[j] - a[NC + j];
    }
    for (int i = 0; i < M; i++) a[i * NC + 3] = 0;
    memcpy(f, a, sizeof a);
    int rp[M], cp[NC], rank = -1;
    hy_lu_full(M, NC, f, rp, cp, 1e-10, &rank);
    ck_assert_int_eq(rank, 2);
    // Permutations hold every index once.
    int seen_r[M] = {0}, seen_c[NC] = {0};
    for (int i = 0; i < M; i++) seen_r[rp[i]]++;
    for (int j = 0; j < NC; j++) seen_c[cp[j]]++;
    for (int i = 0; i < M; i++) ck_assert_int_eq(seen_r[i], 1);
    for (int j = 0; j < NC; j++) ck_assert_int_eq(seen_c[j], 1);
    // The zero column is never a pivot column.
    ck_assert_int_ne(cp[0], 3);
    ck_assert_int_ne(cp[1], 3);
    // The pivot rows and columns of the original matrix form a regular 2 x 2 block; the random
    // entries are O(1), so its determinant is far from zero compared with 1e-10.
    const double s00 = a[rp[0] * NC + cp[0]], s01 = a[rp[0] * NC + cp[1]];
    const double s10 = a[rp[1] * NC + cp[0]], s11 = a[rp[1] * NC + cp[1]];
    const double scale = fmax(fmax(fabs(s00), fabs(s01)), fmax(fabs(s10), fabs(s11)));
    ck_assert_double_gt(fabs(s00 * s11 - s01 * s10), 1e-6 * scale * scale);
    // And the pivot columns alone have rank 2 (over all three rows): some 2 x 2 minor of the
    // 3 x 2 column block is regular.
    double best_minor = 0;
    for (int i = 0; i < M; i++) {
      for (int k = i + 1; k < M; k++) {
        const double d =
            a[i * NC + cp[0]] * a[k * NC + cp[1]] - a[i * NC + cp[1]] * a[k * NC + cp[0]];
        best_minor = fmax(best_minor, fabs(d));
      }
    }
    ck_assert_double_gt(best_minor, 1e-6 * scale * scale);
    // L U reproduces P a Q: L unit lower (M x rank), U upper (rank x NC), remainder below tol.
    for (int i = 0; i < M; i++) {
      for (int j = 0; j < NC; j++) {
        double s = 0;
        for (int k = 0; k < rank && k <= i && k <= j; k++) {
          const double l = (k == i) ? 1 : f[i * NC + k];
          s += l * f[k * NC + j];
        }
        ck_assert_double_eq_tol(s, a[rp[i] * NC + cp[j]], 1e-12);
      }
    }
  }
}
END_TEST

START_TEST(lu_full_first_pivot_is_largest) {
  // Complete pivoting starts at the largest entry, here (1, 2).
  double a[6] = {1, 2, 3, 4, 5, 9};
  int rp[2], cp[3], rank;
  hy_lu_full(2, 3, a, rp, cp, 1e-12, &rank);
  ck_assert_int_eq(rank, 2);
  ck_assert_int_eq(rp[0], 1);
  ck_assert_int_eq(cp[0], 2);
  ck_assert_double_eq(a[0], 9);
  // A zero matrix has rank 0.
  double z[6] = {0};
  hy_lu_full(2, 3, z, rp, cp, 1e-12, &rank);
  ck_assert_int_eq(rank, 0);
}
END_TEST

START_TEST(cholesky_spd) {
  // every size up to N: the small ones run unrolled copies of the kernel (core_lu.c)
  for (int trial = 0; trial < 50; trial++) {
    const int n = 1 + trial % N;
    // A = B^T B + I is symmetric positive definite.
    double bm[N * N], a[N * N], l[N * N], b[N], x[N];
    for (int i = 0; i < n * n; i++) bm[i] = urand();
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        double s = i == j ? 1 : 0;
        for (int k = 0; k < n; k++) s += bm[k * n + i] * bm[k * n + j];
        a[i * n + j] = s;
      }
    }
    memcpy(l, a, sizeof(double) * (size_t)(n * n));
    int sing = -1;
    ck_assert_int_eq(hy_chol_factor(n, l, &sing), HY_OK);
    ck_assert_int_eq(sing, -1);
    // L L^T = A from the lower triangle only.
    for (int i = 0; i < n; i++) {
      for (int j = 0; j <= i; j++) {
        double s = 0;
        for (int k = 0; k <= j; k++) s += l[i * n + k] * l[j * n + k];
        ck_assert_double_eq_tol(s, a[i * n + j], 1e-12);
      }
      ck_assert_double_gt(l[i * n + i], 0);
    }
    for (int i = 0; i < n; i++) b[i] = urand();
    memcpy(x, b, sizeof(double) * (size_t)n);
    hy_chol_solve(n, l, x);
    ck_assert_double_lt(residual(n, a, x, b), 1e-12);
  }
  // Indefinite: [[1, 2], [2, 1]] has eigenvalues 3 and -1; the second pivot is 1 - 4 < 0.
  double ind[4] = {1, 2, 2, 1};
  int sing = -1;
  ck_assert_int_eq(hy_chol_factor(2, ind, &sing), HY_WARN_SINGULAR);
  ck_assert_int_eq(sing, 1);
  // Semidefinite: [[1, 1], [1, 1]] leaves an exactly zero second pivot, which is not positive.
  double semi[4] = {1, 1, 1, 1};
  sing = -1;
  ck_assert_int_eq(hy_chol_factor(2, semi, &sing), HY_WARN_SINGULAR);
  ck_assert_int_eq(sing, 1);
}
END_TEST

Suite* core_lu_suite(void) {
  Suite* s = suite_create("core_lu");
  TCase* tc = tcase_create("lu");
  tcase_add_test(tc, lu_solves_random_systems);
  tcase_add_test(tc, lu_known_solution);
  tcase_add_test(tc, lu_reports_singular_column);
  tcase_add_test(tc, lu_full_rank_deficient);
  tcase_add_test(tc, lu_full_first_pivot_is_largest);
  tcase_add_test(tc, cholesky_spd);
  suite_add_tcase(s, tc);
  return s;
}
