// Internal header of src/core: small dense algebra, spatial 6-vectors, LU, arena, errors and
// the allocator hook. Everything here is hand-written because the sizes are tiny (3, 6, <= ~40)
// and the calls sit in the innermost loops of every step; the 3- and 6-vector kernels are
// static inline for that reason (a call would cost more than their work).
#ifndef HYDYN_SRC_CORE_CORE_H_
#define HYDYN_SRC_CORE_CORE_H_

#include <math.h>
#include <stddef.h>

#include "hydyn/types.h"

// C11 <math.h> does not define M_PI.
#define HY_PI 3.14159265358979323846

// A function body to be copied into each caller, so that constant arguments (sizes) specialize it.
#if defined(__GNUC__)
#define HY_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define HY_ALWAYS_INLINE inline
#endif

// A function kept out of its callers: a rarely taken path, or a large body whose register
// allocation should not mix with theirs.
#if defined(__GNUC__)
#define HY_NOINLINE __attribute__((noinline))
#else
#define HY_NOINLINE
#endif

//----- sized kernels -------------------------------------------------------------------------
// The one family of size dispatch. HY_SIZED(n, f, ...) runs f(k, ...) with k the constant equal
// to n for 1 <= n <= 8, f(n, ...) otherwise. With f an HY_ALWAYS_INLINE function, each case is a
// copy of f whose loops over n the compiler unrolls completely. A step of the seed models works
// on 1-6 coordinates, 1-4 volumes and 2-8 Newton unknowns, where the control of a loop of
// run-time length costs more than its arithmetic: sized copies of the step's kernels take 18 %
// off four-bar A's cycle (docs/performance.md).
// The largest size that HY_SIZED makes a constant: a sized kernel may hold a vector of up to
// this length in a local array (registers, once unrolled) and fall back to work memory beyond.
#define HY_SIZED_MAX 8
#define HY_SIZED(n, f, ...)          \
  do {                               \
    switch (n) {                     \
      case 1: f(1, __VA_ARGS__); break; \
      case 2: f(2, __VA_ARGS__); break; \
      case 3: f(3, __VA_ARGS__); break; \
      case 4: f(4, __VA_ARGS__); break; \
      case 5: f(5, __VA_ARGS__); break; \
      case 6: f(6, __VA_ARGS__); break; \
      case 7: f(7, __VA_ARGS__); break; \
      case 8: f(8, __VA_ARGS__); break; \
      default: f(n, __VA_ARGS__); break; \
    }                                \
  } while (0)

// HY_SIZED over two sizes, each a constant for 1..4: f(k1, k2, ...). For kernels whose loops run
// over both, e.g. the coordinates and the volumes of the Newton tangent's blocks.
#define HY_SIZED2_ROW_(k1, n2, f, ...)           \
  switch (n2) {                                  \
    case 1: f(k1, 1, __VA_ARGS__); break;        \
    case 2: f(k1, 2, __VA_ARGS__); break;        \
    case 3: f(k1, 3, __VA_ARGS__); break;        \
    case 4: f(k1, 4, __VA_ARGS__); break;        \
    default: f(k1, n2, __VA_ARGS__); break;      \
  }
#define HY_SIZED2(n1, n2, f, ...)                             \
  do {                                                        \
    switch (n1) {                                             \
      case 1: HY_SIZED2_ROW_(1, n2, f, __VA_ARGS__); break;   \
      case 2: HY_SIZED2_ROW_(2, n2, f, __VA_ARGS__); break;   \
      case 3: HY_SIZED2_ROW_(3, n2, f, __VA_ARGS__); break;   \
      case 4: HY_SIZED2_ROW_(4, n2, f, __VA_ARGS__); break;   \
      default: f(n1, n2, __VA_ARGS__); break;                 \
    }                                                         \
  } while (0)

// HY_SIZED on n for a kernel f(n, k, ...) whose second size k is a constant too when it is 1,
// the common case (one degree of freedom of the seed mechanisms, one cylinder of their
// circuits): its loops over k then vanish.
#define HY_SIZED_F1(n, k, f, ...)      \
  do {                                 \
    if ((k) == 1) {                    \
      HY_SIZED(n, f, 1, __VA_ARGS__);  \
    } else {                           \
      HY_SIZED(n, f, k, __VA_ARGS__);  \
    }                                  \
  } while (0)

//----- small dense LU, inline -----------------------------------------------------------------
// The one partial-pivot LU of hydyn. core_lu.c calls it through hy_lu_factor/hy_lu_solve with n
// a constant up to 8; the loop closure of the double-step formulation calls it directly, sized,
// on the dependent block it gathers.

// A pivot is treated as zero below this fraction of the largest entry of the matrix: the
// elimination would then amplify rounding by more than ~1e14 and the solution is meaningless.
#define HY_LU_TINY 1e-14

// Factors the n x n row-major a in place (P a = L U, unit L), amax the largest |entry| of a.
// Returns the column of the first zero pivot, or -1. After a zero pivot the remaining pivots
// are the identity, so that a caller that solves anyway stays in bounds (the factors are then
// unusable). Every loop runs over all n with the triangle as a condition and none exits early:
// with n a constant the compiler then unrolls the whole elimination. in_registers (a constant)
// chooses how rows are exchanged: for a block the caller keeps in a local array (the same
// pivots and arithmetic either way).
static HY_ALWAYS_INLINE int hy_lu_factor_n(int n, double* restrict a, int* restrict piv,
                                           double amax, int in_registers) {
  const double tiny = HY_LU_TINY * amax;
  int sing = -1;
  for (int k = 0; k < n; k++) {
    int p = k;
    double best = fabs(a[k * n + k]);
    for (int i = 0; i < n; i++) {
      const double v = fabs(a[i * n + k]);
      if (i > k && v > best) {
        best = v;
        p = i;
      }
    }
    if (sing >= 0 || !(best > tiny)) {  // best == 0 included, also when tiny == 0
      if (sing < 0) sing = k;
      piv[k] = k;
      continue;
    }
    piv[k] = p;
    if (in_registers) {
      // compared with each later row instead of indexed by the pivot: a block in a local
      // array then stays in registers
      for (int i = 0; i < n; i++) {
        if (i <= k || p != i) continue;
        for (int j = 0; j < n; j++) {
          const double t = a[k * n + j];
          a[k * n + j] = a[i * n + j];
          a[i * n + j] = t;
        }
      }
    } else if (p != k) {
      for (int j = 0; j < n; j++) {
        const double t = a[k * n + j];
        a[k * n + j] = a[p * n + j];
        a[p * n + j] = t;
      }
    }
    const double inv = 1.0 / a[k * n + k];
    for (int i = 0; i < n; i++) {
      if (i <= k) continue;
      const double l = a[i * n + k] * inv;
      a[i * n + k] = l;
      if (l == 0) continue;
      for (int j = 0; j < n; j++) {
        if (j > k) a[i * n + j] -= l * a[k * n + j];
      }
    }
  }
  return sing;
}

// Solves a x = b in place in b with the factors of hy_lu_factor_n. The row exchanges compare
// with each later row instead of indexing b by the pivot, so that b can stay in registers.
static HY_ALWAYS_INLINE void hy_lu_solve_n(int n, const double* restrict lu,
                                           const int* restrict piv, double* restrict b) {
  for (int k = 0; k < n; k++) {
    const int p = piv[k];
    for (int i = k + 1; i < n; i++) {
      if (p == i) {
        const double t = b[k];
        b[k] = b[i];
        b[i] = t;
      }
    }
  }
  // L y = P b, unit lower triangle
  for (int i = 1; i < n; i++) {
    double s = b[i];
    for (int j = 0; j < i; j++) s -= lu[i * n + j] * b[j];
    b[i] = s;
  }
  // U x = y
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < n; j++) s -= lu[i * n + j] * b[j];
    b[i] = s / lu[i * n + i];
  }
}

// r = a for n doubles, as a sized kernel: for the few doubles of a small model a copy unrolled
// in place costs a fraction of a call to memcpy.
static HY_ALWAYS_INLINE void hy_copy_n(int n, double* restrict r, const double* restrict a) {
  for (int i = 0; i < n; i++) r[i] = a[i];
}
#define HY_COPY(n, r, a) HY_SIZED(n, hy_copy_n, r, a)

// r = 0 for n doubles, the same for zeroing (memset's rep stos counts one instruction a double),
// for n a constant at the call.
static HY_ALWAYS_INLINE void hy_zero_n(int n, double* restrict r) {
  for (int i = 0; i < n; i++) r[i] = 0;
}

//----- 3-vectors and 3x3 matrices (row-major, double[3] and double[9]) -----------------------

static inline void hy_v3_set(double r[3], double x, double y, double z) {
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void hy_v3_copy(double r[3], const double a[3]) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}
static inline void hy_v3_add(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}
static inline void hy_v3_sub(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}
static inline void hy_v3_scale(double r[3], const double a[3], double s) {
  r[0] = a[0] * s;
  r[1] = a[1] * s;
  r[2] = a[2] * s;
}
// r += s*a
static inline void hy_v3_addscl(double r[3], const double a[3], double s) {
  r[0] += s * a[0];
  r[1] += s * a[1];
  r[2] += s * a[2];
}
static inline double hy_v3_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
// r = a x b; r may alias a or b.
static inline void hy_v3_cross(double r[3], const double a[3], const double b[3]) {
  // Locals first: r may alias a or b.
  const double x = a[1] * b[2] - a[2] * b[1];
  const double y = a[2] * b[0] - a[0] * b[2];
  const double z = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline double hy_v3_norm(const double a[3]) { return sqrt(hy_v3_dot(a, a)); }
// Normalizes in place; returns the norm before normalization (0 leaves a unchanged).
double hy_v3_normalize(double a[3]);

void hy_m3_identity(double r[9]);
static inline void hy_m3_copy(double r[9], const double a[9]) {
  for (int i = 0; i < 9; i++) r[i] = a[i];
}
// r = a*b; r must not alias a or b.
static inline void hy_m3_mul(double r[9], const double a[9], const double b[9]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    }
  }
}
// r = a^T*b; r must not alias.
static inline void hy_m3_mulT1(double r[9], const double a[9], const double b[9]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      r[3 * i + j] = a[i] * b[j] + a[3 + i] * b[3 + j] + a[6 + i] * b[6 + j];
    }
  }
}
// r = a*b^T; r must not alias.
static inline void hy_m3_mulT2(double r[9], const double a[9], const double b[9]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      r[3 * i + j] =
          a[3 * i] * b[3 * j] + a[3 * i + 1] * b[3 * j + 1] + a[3 * i + 2] * b[3 * j + 2];
    }
  }
}
void hy_m3_transpose(double r[9], const double a[9]);
// r = a*v; r must not alias v.
static inline void hy_m3_mulv(double r[3], const double a[9], const double v[3]) {
  r[0] = a[0] * v[0] + a[1] * v[1] + a[2] * v[2];
  r[1] = a[3] * v[0] + a[4] * v[1] + a[5] * v[2];
  r[2] = a[6] * v[0] + a[7] * v[1] + a[8] * v[2];
}
// r = a^T*v; r must not alias v.
static inline void hy_m3_mulTv(double r[3], const double a[9], const double v[3]) {
  r[0] = a[0] * v[0] + a[3] * v[1] + a[6] * v[2];
  r[1] = a[1] * v[0] + a[4] * v[1] + a[7] * v[2];
  r[2] = a[2] * v[0] + a[5] * v[1] + a[8] * v[2];
}
// r = skew(v), the matrix with skew(v)*x = v x x.
void hy_m3_skew(double r[9], const double v[3]);
double hy_m3_det(const double a[9]);

//----- rotations --------------------------------------------------------------------------

// Rotation matrix of angle (rad) about a unit axis (Rodrigues).
void hy_rot_axis_angle(double r[9], const double axis[3], double angle);
// Smallest rotation taking unit vector a onto unit vector b (r*a = b); antiparallel vectors
// turn by pi about an axis perpendicular to a.
void hy_rot_align(double r[9], const double a[3], const double b[3]);
// Axis and angle (rad, in [0, pi]) of a rotation matrix.
void hy_rot_to_axis_angle(const double r[9], double axis[3], double* angle);

//----- spatial 6-vectors [linear; angular] and 6x6 blocks (row-major double[36]) -------------

static inline void hy_sv_zero(double r[6]) {
  for (int i = 0; i < 6; i++) r[i] = 0;
}
static inline void hy_sv_copy(double r[6], const double a[6]) {
  for (int i = 0; i < 6; i++) r[i] = a[i];
}
static inline void hy_sv_add(double r[6], const double a[6], const double b[6]) {
  for (int i = 0; i < 6; i++) r[i] = a[i] + b[i];
}
// r += s*a
static inline void hy_sv_addscl(double r[6], const double a[6], double s) {
  for (int i = 0; i < 6; i++) r[i] += s * a[i];
}
static inline double hy_sv_dot(const double a[6], const double b[6]) {
  double s = 0;
  for (int i = 0; i < 6; i++) s += a[i] * b[i];
  return s;
}
void hy_m6_zero(double r[36]);
static inline void hy_m6_add(double r[36], const double a[36], const double b[36]) {
  for (int i = 0; i < 36; i++) r[i] = a[i] + b[i];
}
// r = a*v; r must not alias v.
static inline void hy_m6_mulv(double r[6], const double a[36], const double v[6]) {
  for (int i = 0; i < 6; i++) {
    const double* row = a + 6 * i;
    double s = 0;
    for (int j = 0; j < 6; j++) s += row[j] * v[j];
    r[i] = s;
  }
}
// Mass matrix of a rigid body for the velocity of the point coincident with the origin,
// seed 000 Eq. 9: [m I, -m g~; m g~, J - m g~ g~], g = centre of mass, J = inertia about it,
// both in the inertial frame.
void hy_m6_body_inertia(double r[36], double mass, const double com[3], const double inertia[9]);

//----- small dense linear algebra (row-major, n <= a few dozen) -----------------------------

// LU with partial pivoting, in place: a = P*L*U. piv[i] is the row swapped with row i.
// Returns HY_OK, or HY_WARN_SINGULAR (> 0) with *sing_col set when a pivot is exactly zero or
// below tiny*max|a|.
hy_status hy_lu_factor(int n, double* a, int* piv, int* sing_col);
// Solves a*x = b in place in b using the factors of hy_lu_factor.
void hy_lu_solve(int n, const double* lu, const int* piv, double* b);

// LU with full pivoting of an m x n matrix, in place: P*a*Q = L*U. row_perm and col_perm give the
// original row/column at each position (size m and n). Pivots below tol*max|a| stop the
// elimination; *rank is the number of pivots taken, and col_perm[0..rank) are the pivot
// (dependent) columns and col_perm[rank..n) the rest (independent), for the double-step
// coordinate partition (seed 000, text after Eq. 15).
void hy_lu_full(int m, int n, double* a, int* row_perm, int* col_perm, double tol, int* rank);

// Cholesky of a symmetric positive-definite matrix, in place (lower triangle). Returns
// HY_WARN_SINGULAR with *sing_col set when a pivot is not positive.
hy_status hy_chol_factor(int n, double* a, int* sing_col);
void hy_chol_solve(int n, const double* l, double* b);

//----- allocation ----------------------------------------------------------------------------

// Every heap allocation of hydyn goes through these two, which call the hook set by
// hy_set_allocator (malloc/free by default). Tests count and fail allocations through the hook.
void* hy_malloc(size_t size);
void hy_free(void* ptr);
// Allocates and zeroes.
void* hy_calloc(size_t count, size_t size);

// An arena: one block, bump allocation in 64-byte aligned pieces, mark/release frames. Running
// out returns NULL and records the request; it never falls back to the heap.
typedef struct hy_arena {
  unsigned char* base;
  size_t size;  // bytes
  size_t used;  // bytes
  size_t peak;  // high-water mark (bytes), including a request that did not fit
} hy_arena;

hy_status hy_arena_init(hy_arena* a, size_t size);
void hy_arena_free(hy_arena* a);
// Bytes an allocation of `bytes` takes, alignment included (for exact sizing).
size_t hy_arena_need(size_t bytes);
void* hy_arena_alloc(hy_arena* a, size_t bytes);
// A frame: what is allocated after hy_arena_mark goes with hy_arena_release of the mark.
static inline size_t hy_arena_mark(const hy_arena* a) { return a->used; }
static inline void hy_arena_release(hy_arena* a, size_t mark) {
  if (mark <= a->used) a->used = mark;
}

//----- layouts of work memory ----------------------------------------------------------------

// Bytes that n doubles (ints) take in a block of arrays laid out one after the other, rounded to
// the arena's 64-byte alignment so that every array starts aligned.
static inline size_t hy_doubles(size_t n) { return hy_arena_need(n * sizeof(double)); }
static inline size_t hy_ints(size_t n) { return hy_arena_need(n * sizeof(int)); }
// Lays the next array of `bytes` out at base + at (when base is not NULL) and advances at: one
// walk over a block both sizes it (base NULL) and binds its arrays, so the two cannot disagree.
#define HY_LAYOUT_TAKE(base, at, field, bytes)          \
  do {                                                  \
    if (base) (field) = (void*)((base) + (at));         \
    (at) += (bytes);                                    \
  } while (0)

//----- tables --------------------------------------------------------------------------------

// y(x) of the table of n >= 1 points (xs strictly increasing), interpolated linearly and held at
// the end values outside [xs[0], xs[n-1]]; *dy_dx (nullable) receives the slope of the segment
// [xs[k], xs[k+1]) holding x, 0 outside (core_table.c). The one table law of the oil's B(p) and
// of the valves' metering edges.
double hy_table_linear(const double* xs, const double* ys, int n, double x, double* dy_dx);

//----- errors --------------------------------------------------------------------------------

// Fills e (nullable) with code, location and a printf-style message; returns code.
hy_status hy_error_set(hy_error* e, hy_status code, const char* func, const char* file, int line,
                       const char* fmt, ...) __attribute__((format(printf, 6, 7)));
// As hy_error_set, and records the position in a model file (path, 1-based line and column).
hy_status hy_error_set_src(hy_error* e, hy_status code, const char* src_path, int src_line,
                           int src_col, const char* fmt, ...)
    __attribute__((format(printf, 6, 7)));

#define HY_FAIL(e, code, ...) hy_error_set((e), (code), __func__, __FILE__, __LINE__, __VA_ARGS__)
#define HY_TRY(call)               \
  do {                             \
    hy_status hy_try_s_ = (call);  \
    if (hy_try_s_ < 0) return hy_try_s_; \
  } while (0)

#endif  // HYDYN_SRC_CORE_CORE_H_
