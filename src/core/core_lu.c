// Small dense factorizations, row-major, in place: partial-pivot LU (Newton tangents), full-pivot
// LU (coordinate partitioning, seed 000 text after Eq. 15) and Cholesky.
#include <math.h>

#include "core/core.h"

static double max_abs(int count, const double* a) {
  double m = 0;
  for (int i = 0; i < count; i++) {
    const double v = fabs(a[i]);
    if (v > m) m = v;
  }
  return m;
}

static void swap_rows(double* a, int ncol, int i, int j) {
  double* ri = a + (size_t)i * ncol;
  double* rj = a + (size_t)j * ncol;
  for (int k = 0; k < ncol; k++) {
    const double t = ri[k];
    ri[k] = rj[k];
    rj[k] = t;
  }
}

static void swap_int(int* v, int i, int j) {
  const int t = v[i];
  v[i] = v[j];
  v[j] = t;
}

// The Newton tangents, projection matrices and dependent blocks are small. The kernels below are
// written for any n, and the public functions call them with n a constant up to 8, so
// that the compiler unrolls their loops; larger systems take the loops as they are. On four-bar
// A this takes a 3 x 3 Cholesky solve from 153 to 110 instructions and a 6 x 6 LU from 1,260
// to 1,230 (callgrind): the loop control it saves matters most on the smallest systems.
#define SMALL_CASES(call) \
  case 1: call(1); case 2: call(2); case 3: call(3); case 4: call(4); \
  case 5: call(5); case 6: call(6); case 7: call(7); case 8: call(8)

//----- partial pivoting ----------------------------------------------------------------------

// The partial-pivot kernels are hy_lu_factor_n and hy_lu_solve_n in core.h.

//----- full pivoting -------------------------------------------------------------------------

void hy_lu_full(int m, int n, double* a, int* row_perm, int* col_perm, double tol, int* rank) {
  for (int i = 0; i < m; i++) row_perm[i] = i;
  for (int j = 0; j < n; j++) col_perm[j] = j;
  const double stop = tol * max_abs(m * n, a);
  const int kmax = m < n ? m : n;
  int k = 0;
  for (; k < kmax; k++) {
    // Largest entry of the remaining block a[k.., k..].
    int p = k, q = k;
    double best = 0;
    for (int i = k; i < m; i++) {
      const double* ri = a + (size_t)i * n;
      for (int j = k; j < n; j++) {
        const double v = fabs(ri[j]);
        if (v > best) {
          best = v;
          p = i;
          q = j;
        }
      }
    }
    if (best == 0 || best <= stop) break;
    if (p != k) {
      swap_rows(a, n, k, p);
      swap_int(row_perm, k, p);
    }
    if (q != k) {
      for (int i = 0; i < m; i++) {
        double* ri = a + (size_t)i * n;
        const double t = ri[k];
        ri[k] = ri[q];
        ri[q] = t;
      }
      swap_int(col_perm, k, q);
    }
    const double* rk = a + (size_t)k * n;
    const double inv = 1.0 / rk[k];
    for (int i = k + 1; i < m; i++) {
      double* ri = a + (size_t)i * n;
      const double l = ri[k] * inv;
      ri[k] = l;
      if (l == 0) continue;
      for (int j = k + 1; j < n; j++) ri[j] -= l * rk[j];
    }
  }
  *rank = k;
}

//----- Cholesky ------------------------------------------------------------------------------

static HY_ALWAYS_INLINE hy_status chol_factor_n(int n, double* a, int* sing_col) {
  for (int j = 0; j < n; j++) {
    double* rj = a + (size_t)j * n;
    double d = rj[j];
    for (int k = 0; k < j; k++) d -= rj[k] * rj[k];
    if (!(d > 0)) {  // also catches NaN
      if (sing_col) *sing_col = j;
      return HY_WARN_SINGULAR;
    }
    const double ljj = sqrt(d);
    rj[j] = ljj;
    const double inv = 1.0 / ljj;
    for (int i = j + 1; i < n; i++) {
      double* ri = a + (size_t)i * n;
      double s = ri[j];
      for (int k = 0; k < j; k++) s -= ri[k] * rj[k];
      ri[j] = s * inv;
    }
  }
  return HY_OK;
}

static HY_ALWAYS_INLINE void chol_solve_n(int n, const double* l, double* b) {
  // L y = b.
  for (int i = 0; i < n; i++) {
    const double* ri = l + (size_t)i * n;
    double s = b[i];
    for (int k = 0; k < i; k++) s -= ri[k] * b[k];
    b[i] = s / ri[i];
  }
  // L^T x = y.
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int k = i + 1; k < n; k++) s -= l[(size_t)k * n + i] * b[k];
    b[i] = s / l[(size_t)i * n + i];
  }
}

//----- dispatch to the unrolled small sizes ---------------------------------------------------

static HY_ALWAYS_INLINE hy_status lu_factor_sized(int n, double* a, int* piv, int* sing_col) {
  const int col = hy_lu_factor_n(n, a, piv, max_abs(n * n, a), 0);
  if (col < 0) return HY_OK;
  if (sing_col) *sing_col = col;
  return HY_WARN_SINGULAR;
}

hy_status hy_lu_factor(int n, double* a, int* piv, int* sing_col) {
#define CALL(k) return lu_factor_sized(k, a, piv, sing_col)
  switch (n) {
    SMALL_CASES(CALL);
    default: CALL(n);
  }
#undef CALL
}

void hy_lu_solve(int n, const double* lu, const int* piv, double* b) {
#define CALL(k) hy_lu_solve_n(k, lu, piv, b); return
  switch (n) {
    SMALL_CASES(CALL);
    default: CALL(n);
  }
#undef CALL
}

hy_status hy_chol_factor(int n, double* a, int* sing_col) {
#define CALL(k) return chol_factor_n(k, a, sing_col)
  switch (n) {
    SMALL_CASES(CALL);
    default: CALL(n);
  }
#undef CALL
}

void hy_chol_solve(int n, const double* l, double* b) {
#define CALL(k) chol_solve_n(k, l, b); return
  switch (n) {
    SMALL_CASES(CALL);
    default: CALL(n);
  }
#undef CALL
}
