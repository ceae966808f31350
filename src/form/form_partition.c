// Coordinate partitioning of the double-step method (seed 000 Sect. 2.2, Eqs. 13-17), also used
// by every formulation to close the loops at t = 0 and to compute static equilibrium forces.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_impl.h"

// Pivots below this fraction of the largest entry of Phi_z count as zero when the rank and the
// partition are chosen: the equations are then redundant.
#define RANK_TOL 1e-10
// The loop closure has converged when a Newton correction is below this (rad or m); quadratic
// convergence leaves an error far smaller after it is applied, so finite-difference tangents
// over the independent coordinates stay accurate.
#define CLOSE_TOL 1e-11
// A correction this small is round-off of the coordinates themselves: the loops are closed as
// they are, and the evaluation at hand is kept.
#define CLOSE_ROUNDOFF 1e-14
#define CLOSE_MAX_ITER 30

static void sort_ints(int* v, int n) {
  for (int i = 1; i < n; i++) {
    int x = v[i], j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

void hy_form_select_partition(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  int rank = 0;
  if (neq > 0) {
    memcpy(fw->full, d->phi_z, sizeof(double) * (size_t)neq * (size_t)nz);
    hy_lu_full(neq, nz, fw->full, fw->rperm, fw->cperm, RANK_TOL, &rank);
  } else {
    for (int j = 0; j < nz; j++) fw->cperm[j] = j;
  }
  // pivot columns are dependent, the rest independent; both kept in ascending order
  d->ndof = nz - rank;
  fw->nsel = rank;
  for (int i = 0; i < rank; i++) fw->rowsel[i] = fw->rperm[i];
  sort_ints(fw->rowsel, rank);
  for (int j = 0; j < d->ndof; j++) d->part[j] = fw->cperm[rank + j];
  for (int j = 0; j < rank; j++) d->part[d->ndof + j] = fw->cperm[j];
  sort_ints(d->part, d->ndof);
  sort_ints(d->part + d->ndof, rank);
  d->stats.npartition++;
}

hy_status hy_form_select_initial_partition(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  int nmarked = 0;
  for (int j = 0; j < m->sizes.nbody; j++) nmarked += m->jnt_indep[j] != 0;
  if (nmarked == 0 || neq == 0) {
    hy_form_select_partition(m, d, fw);
    return HY_OK;
  }
  // dependent columns: the unmarked coordinates, in ascending order
  int ndep = 0;
  d->ndof = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const int z = m->jnt_zadr[j];
    if (m->jnt_indep[j]) {
      d->part[d->ndof++] = z;
    } else {
      fw->cperm[ndep++] = z;
    }
  }
  sort_ints(d->part, d->ndof);
  sort_ints(fw->cperm, ndep);
  memcpy(d->part + d->ndof, fw->cperm, sizeof(int) * (size_t)ndep);
  // the equations: full pivoting on the dependent columns of Phi_z
  for (int i = 0; i < neq; i++) {
    for (int c = 0; c < ndep; c++) fw->full[i * ndep + c] = d->phi_z[i * nz + d->part[d->ndof + c]];
  }
  int rank = 0;
  hy_lu_full(neq, ndep, fw->full, fw->rperm, fw->cperm, RANK_TOL, &rank);
  if (rank != ndep) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "the joints marked independent leave %d dependent coordinates but the loop "
                   "equations determine only %d of them at t = 0: mark %d joint(s) fewer or "
                   "others", ndep, rank, ndep - rank);
  }
  fw->nsel = rank;
  for (int i = 0; i < rank; i++) fw->rowsel[i] = fw->rperm[i];
  sort_ints(fw->rowsel, rank);
  d->stats.npartition++;
  return HY_OK;
}

// The kernels below are sized (HY_SIZED, core.h) on the number r of dependent coordinates: 2 on
// the seed mechanisms, where a call to hy_lu_solve and loops of run-time length cost more than
// their arithmetic. A right-hand side of up to HY_SIZED_MAX entries is held in a local array,
// which the unrolled loops keep in registers; a larger one goes to fw->vec, the only scratch
// that the callers in form.c leave free (they keep d->zd in fw->vec2 around these calls).

// Pd = the selected rows of Phi_z at the dependent columns, factored in place (hy_lu_factor_n,
// core.h), with the block's largest entry found while it is gathered. The factorization runs at
// every loop-closure iteration, where a call, its size dispatch and a separate scan for the
// largest entry cost more than the elimination of r = 2. *ok = 0 when a pivot is zero, and
// *ratio is then 0.
static HY_ALWAYS_INLINE void factor_dependent_n(int r, int nz, const double* restrict phi_z,
                                                const int* restrict rows,
                                                const int* restrict dep, double* restrict a,
                                                int* restrict piv, double* restrict ratio,
                                                int* restrict ok) {
  double amax = 0;
  for (int i = 0; i < r; i++) {
    const double* restrict row = phi_z + (size_t)rows[i] * (size_t)nz;
    for (int j = 0; j < r; j++) {
      const double v = row[dep[j]];
      a[i * r + j] = v;
      if (fabs(v) > amax) amax = fabs(v);
    }
  }
  const int sing = hy_lu_factor_n(r, a, piv, amax) >= 0;
  // the ratio of the smallest to the largest pivot; they are finite and nonzero after a
  // successful factorization, so plain comparisons give what fmin and fmax would
  double lo = INFINITY, hi = 0;
  for (int k = 0; k < r; k++) {
    const double u = fabs(a[k * r + k]);
    if (u < lo) lo = u;
    if (u > hi) hi = u;
  }
  *ratio = sing ? 0 : lo / hi;
  *ok = !sing;
}

hy_status hy_form_factor_dependent(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int r = fw->nsel;
  if (r == 0) {
    fw->pivot_ratio = 1;
    return HY_OK;
  }
  int ok = 0;
  HY_SIZED(r, factor_dependent_n, m->sizes.nz, d->phi_z, fw->rowsel, d->part + d->ndof, fw->Pd,
           fw->pivd, &fw->pivot_ratio, &ok);
  return ok ? HY_OK : HY_WARN_SINGULAR;
}

// One Newton correction of the loop closure, delta = -Pd^-1 Phi_sel, into *step as max |delta|
// (a NaN entry does not count, as with fmax); delta is applied to the dependent coordinates
// unless the caller stops there (step not finite, or at round-off).
static HY_ALWAYS_INLINE void closure_correction_n(int r, const double* restrict lu,
                                                  const int* restrict piv,
                                                  const int* restrict rows,
                                                  const int* restrict dep,
                                                  const double* restrict phi, double* restrict z,
                                                  double* restrict scratch,
                                                  double* restrict step) {
  double loc[HY_SIZED_MAX];
  double* restrict b = r <= HY_SIZED_MAX ? loc : scratch;
  for (int i = 0; i < r; i++) b[i] = -phi[rows[i]];
  hy_lu_solve_n(r, lu, piv, b);
  double s = 0;
  for (int j = 0; j < r; j++) {
    const double a = fabs(b[j]);
    if (a > s) s = a;
  }
  *step = s;
  if (!isfinite(s) || s <= CLOSE_ROUNDOFF) return;
  for (int j = 0; j < r; j++) z[dep[j]] += b[j];
}

hy_status hy_form_close_positions(const hy_model* m, hy_data* d, hy_form_work* fw,
                                  hy_mech_work* mw) {
  const int r = fw->nsel;
  const int* dep = d->part + d->ndof;
  hy_mech_kinematics_pos(m, d, mw);
  if (m->sizes.neq == 0) return HY_OK;
  hy_mech_constraints_pos(m, d, mw);
  for (int it = 0; it < CLOSE_MAX_ITER; it++) {
    if (hy_form_factor_dependent(m, d, fw) != HY_OK) return HY_WARN_SINGULAR;
    if (r == 0) return HY_OK;
    double step = 0;
    HY_SIZED(r, closure_correction_n, fw->Pd, fw->pivd, fw->rowsel, dep, d->phi, d->z, fw->vec,
             &step);
    if (!isfinite(step)) return HY_NEWTON_NOCONV;
    if (step <= CLOSE_ROUNDOFF) return HY_OK;
    hy_mech_kinematics_pos(m, d, mw);
    hy_mech_constraints_pos(m, d, mw);
    if (step <= CLOSE_TOL) return hy_form_factor_dependent(m, d, fw);
  }
  return HY_NEWTON_NOCONV;
}

// zd_d = -Pd^-1 Phi_i zd_i on the selected rows (Eq. 13); part holds f independent coordinates,
// then the r dependent ones
static HY_ALWAYS_INLINE void close_velocities_n(int r, int nz, int f,
                                                const double* restrict phi_z,
                                                const int* restrict rows,
                                                const int* restrict part,
                                                const double* restrict lu,
                                                const int* restrict piv, double* restrict zd,
                                                double* restrict scratch) {
  double loc[HY_SIZED_MAX];
  double* restrict b = r <= HY_SIZED_MAX ? loc : scratch;
  // the independent coordinates outermost: each of their velocities is loaded once, and the
  // sums over them keep their order
  for (int i = 0; i < r; i++) b[i] = 0;
  for (int c = 0; c < f; c++) {
    const int k = part[c];
    const double v = zd[k];
    for (int i = 0; i < r; i++) b[i] += phi_z[(size_t)rows[i] * (size_t)nz + k] * v;
  }
  for (int i = 0; i < r; i++) b[i] = -b[i];
  hy_lu_solve_n(r, lu, piv, b);
  for (int j = 0; j < r; j++) zd[part[f + j]] = b[j];
}

void hy_form_close_velocities(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int r = fw->nsel;
  if (r == 0) return;
  HY_SIZED(r, close_velocities_n, m->sizes.nz, d->ndof, d->phi_z, fw->rowsel, d->part, fw->Pd,
           fw->pivd, d->zd, fw->vec);
}

// R_z (nz x f) and S (nz) of Eqs. 14-15. part is a permutation of the coordinates, so the rows
// of the independent ones (identity, S = 0) and of the dependent ones (solves with Pd, one
// column at a time) together write every entry.
static HY_ALWAYS_INLINE void velocity_transform_n(int r, int nz, int f,
                                                  const double* restrict phi_z,
                                                  const double* restrict bias,
                                                  const int* restrict rows,
                                                  const int* restrict part,
                                                  const double* restrict lu,
                                                  const int* restrict piv, double* restrict Rz,
                                                  double* restrict S, double* restrict scratch,
                                                  int with_rz) {
  for (int c = 0; c < f; c++) {
    double* restrict row = Rz + (size_t)part[c] * (size_t)f;
    if (with_rz) {
      for (int a = 0; a < f; a++) row[a] = a == c ? 1.0 : 0.0;  // a loop, not a call to memset
    }
    S[part[c]] = 0;
  }
  if (r == 0) return;
  const int* restrict dep = part + f;
  double loc[HY_SIZED_MAX];
  double* restrict b = r <= HY_SIZED_MAX ? loc : scratch;
  for (int c = 0; c < f && with_rz; c++) {
    const int k = part[c];
    for (int i = 0; i < r; i++) b[i] = -phi_z[(size_t)rows[i] * (size_t)nz + k];
    hy_lu_solve_n(r, lu, piv, b);
    for (int j = 0; j < r; j++) Rz[(size_t)dep[j] * (size_t)f + c] = b[j];
  }
  for (int i = 0; i < r; i++) b[i] = -bias[rows[i]];
  hy_lu_solve_n(r, lu, piv, b);
  for (int j = 0; j < r; j++) S[dep[j]] = b[j];
}

void hy_form_velocity_transform(const hy_model* m, hy_data* d, hy_form_work* fw, int with_rz) {
  HY_SIZED(fw->nsel, velocity_transform_n, m->sizes.nz, d->ndof, d->phi_z, d->phi_bias,
           fw->rowsel, d->part, fw->Pd, fw->pivd, fw->Rz, fw->S, fw->vec, with_rz);
}

hy_status hy_form_reduced_accelerations(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int nz = m->sizes.nz, f = d->ndof;
  const double* Rz = fw->Rz;
  // Q'' = R_z^T (Q' - M' S) and M'' = R_z^T M' R_z (Eq. 17)
  double* q = fw->vec;   // Q' - M' S  (nz)
  double* MR = fw->A;    // M' R_z     (nz x f)
  for (int i = 0; i < nz; i++) {
    double s = d->Q[i];
    for (int k = 0; k < nz; k++) s -= d->M[i * nz + k] * fw->S[k];
    q[i] = s;
    for (int c = 0; c < f; c++) {
      double v = 0;
      for (int k = 0; k < nz; k++) v += d->M[i * nz + k] * Rz[k * f + c];
      MR[i * f + c] = v;
    }
  }
  double* rhs = fw->vec2;
  for (int a = 0; a < f; a++) {
    double s = 0;
    for (int i = 0; i < nz; i++) s += Rz[i * f + a] * q[i];
    rhs[a] = s;
    for (int c = 0; c < f; c++) {
      double v = 0;
      for (int i = 0; i < nz; i++) v += Rz[i * f + a] * MR[i * f + c];
      fw->Mr[a * f + c] = v;
    }
  }
  int col = -1;
  if (hy_chol_factor(f, fw->Mr, &col) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "reduced mass matrix is not positive definite at t = %g s (independent "
                   "coordinate %d)", d->time, col);
  }
  hy_chol_solve(f, fw->Mr, rhs);
  // zdd = R_z zdd_i + S (Eq. 15)
  for (int i = 0; i < nz; i++) {
    double s = fw->S[i];
    for (int c = 0; c < f; c++) s += Rz[i * f + c] * rhs[c];
    d->zdd[i] = s;
  }
  return HY_OK;
}
