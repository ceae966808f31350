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
// With HY_FORM_SIZED_F1 the number f of independent coordinates is a constant too when it is 1.

// a = the selected rows of Phi_z at the dependent columns, factored in place, with the block's
// largest entry found while it is gathered. Returns 0 when a pivot is zero, and *ratio (the
// smallest over the largest pivot) is then 0.
static HY_ALWAYS_INLINE int factor_block_n(int r, int nz, const double* restrict phi_z,
                                           const int* restrict rows, const int* restrict dep,
                                           double* restrict a, int* restrict piv,
                                           double* restrict ratio) {
  double amax = 0;
  for (int i = 0; i < r; i++) {
    const double* restrict row = phi_z + (size_t)rows[i] * (size_t)nz;
    for (int j = 0; j < r; j++) {
      const double v = row[dep[j]];
      a[i * r + j] = v;
      if (fabs(v) > amax) amax = fabs(v);
    }
  }
  const int sing = hy_lu_factor_n(r, a, piv, amax, 1) >= 0;
  // the pivots are finite and nonzero after a successful factorization, so plain comparisons
  // give what fmin and fmax would
  double lo = INFINITY, hi = 0;
  for (int k = 0; k < r; k++) {
    const double u = fabs(a[k * r + k]);
    if (u < lo) lo = u;
    if (u > hi) hi = u;
  }
  *ratio = sing ? 0 : lo / hi;
  return !sing;
}

static HY_ALWAYS_INLINE void factor_dependent_n(int r, int nz, const double* restrict phi_z,
                                                const int* restrict rows,
                                                const int* restrict dep, double* restrict a,
                                                int* restrict piv, double* restrict ratio,
                                                int* restrict ok) {
  *ok = factor_block_n(r, nz, phi_z, rows, dep, a, piv, ratio);
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

// zd_d = -Pd^-1 Phi_i zd_i on the selected rows (Eq. 13); part holds f independent coordinates,
// then the r dependent ones
static HY_ALWAYS_INLINE void close_velocities_n(int r, int f, int nz,
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

// The rows of R_z (nz x f, Eq. 14) of the independent coordinates: the identity.
static HY_ALWAYS_INLINE void rz_identity_rows(int f, const int* restrict part,
                                              double* restrict Rz) {
  for (int c = 0; c < f; c++) {
    double* restrict row = Rz + (size_t)part[c] * (size_t)f;
    for (int a = 0; a < f; a++) row[a] = a == c ? 1.0 : 0.0;  // a loop, not a call to memset
  }
}

// The rows of R_z of the dependent coordinates, -Pd^-1 Phi_i, one column (solve) at a time.
static HY_ALWAYS_INLINE void rz_dependent_rows_n(int r, int f, int nz,
                                                 const double* restrict phi_z,
                                                 const int* restrict rows,
                                                 const int* restrict part,
                                                 const double* restrict lu,
                                                 const int* restrict piv, double* restrict Rz,
                                                 double* restrict scratch) {
  const int* restrict dep = part + f;
  double loc[HY_SIZED_MAX];
  double* restrict b = r <= HY_SIZED_MAX ? loc : scratch;
  for (int c = 0; c < f; c++) {
    const int k = part[c];
    for (int i = 0; i < r; i++) b[i] = -phi_z[(size_t)rows[i] * (size_t)nz + k];
    hy_lu_solve_n(r, lu, piv, b);
    for (int j = 0; j < r; j++) Rz[(size_t)dep[j] * (size_t)f + c] = b[j];
  }
}

// One Newton correction of the loop closure, delta = -Pd^-1 Phi_sel, into b, and max |delta|
// (a NaN entry does not count, as with fmax) returned
static HY_ALWAYS_INLINE double closure_correction_n(int r, const double* restrict lu,
                                                    const int* restrict piv,
                                                    const int* restrict rows,
                                                    const double* restrict phi,
                                                    double* restrict b) {
  for (int i = 0; i < r; i++) b[i] = -phi[rows[i]];
  hy_lu_solve_n(r, lu, piv, b);
  double s = 0;
  for (int j = 0; j < r; j++) {
    const double a = fabs(b[j]);
    if (a > s) s = a;
  }
  return s;
}

// Newton on the selected equations for the r >= 1 dependent coordinates, after the position
// stages have run at the current z. The closure iterates where most of a residual evaluation's
// own work is, so it is one kernel: the block and the index sets are held in local arrays (for
// r <= HY_SIZED_MAX), the factoring and the corrections run with them in registers, and the
// factors go to fw->Pd once at the end. With tail, also R_z and the dependent velocities at
// the converged positions (hy_form_close_loops), solved with the final factors while they are
// still at hand. The pointers into d are not restrict: the position stages write through d.
static HY_ALWAYS_INLINE hy_status close_loop_n(int r, int f, const hy_model* m, hy_data* d,
                                               hy_form_work* fw, hy_mech_work* mw, int tail) {
  const int nz = m->sizes.nz;
  const int small = r <= HY_SIZED_MAX;
  int rows_loc[HY_SIZED_MAX], dep_loc[HY_SIZED_MAX], piv_loc[HY_SIZED_MAX];
  double a_loc[HY_SIZED_MAX * HY_SIZED_MAX], b_loc[HY_SIZED_MAX];
  if (small) {
    for (int i = 0; i < r; i++) {
      rows_loc[i] = fw->rowsel[i];
      dep_loc[i] = d->part[f + i];
    }
  }
  const int* rows = small ? rows_loc : fw->rowsel;
  const int* dep = small ? dep_loc : d->part + f;
  double* lu = small ? a_loc : fw->Pd;
  int* piv = small ? piv_loc : fw->pivd;
  double* b = small ? b_loc : fw->vec;
  const double* phi_z = d->phi_z;
  const double* phi = d->phi;
  double* z = d->z;
  hy_status st = HY_OK;
  int it = 0, done = 0;
  for (;;) {
    if (!factor_block_n(r, nz, phi_z, rows, dep, lu, piv, &fw->pivot_ratio)) {
      st = HY_WARN_SINGULAR;
      break;
    }
    if (done) break;
    const double step = closure_correction_n(r, lu, piv, rows, phi, b);
    if (!isfinite(step)) {
      st = HY_NEWTON_NOCONV;
      break;
    }
    if (step <= CLOSE_ROUNDOFF) break;
    for (int j = 0; j < r; j++) z[dep[j]] += b[j];
    hy_mech_kinematics_pos(m, d, mw);
    hy_mech_constraints_pos(m, d, mw);
    // converged: factored once more at the new positions
    if (step <= CLOSE_TOL) {
      done = 1;
    } else if (++it == CLOSE_MAX_ITER) {
      st = HY_NEWTON_NOCONV;
      break;
    }
  }
  if (small) {
    for (int i = 0; i < r * r; i++) fw->Pd[i] = lu[i];
    for (int i = 0; i < r; i++) fw->pivd[i] = piv[i];
  }
  if (st != HY_OK || !tail) return st;
  rz_identity_rows(f, d->part, fw->Rz);
  rz_dependent_rows_n(r, f, nz, phi_z, rows, d->part, lu, piv, fw->Rz, fw->vec);
  close_velocities_n(r, f, nz, phi_z, rows, d->part, lu, piv, d->zd, fw->vec);
  return HY_OK;
}

static HY_ALWAYS_INLINE void close_n(int r, int f, const hy_model* m, hy_data* d,
                                     hy_form_work* fw, hy_mech_work* mw, int tail,
                                     hy_status* st) {
  *st = close_loop_n(r, f, m, d, fw, mw, tail);
}

// tail a run-time flag: a copy of each size per value would double the code for the few
// instructions of its tests
static hy_status close_any(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                           int tail) {
  hy_mech_kinematics_pos(m, d, mw);
  if (m->sizes.neq > 0) hy_mech_constraints_pos(m, d, mw);
  const int r = fw->nsel;
  if (r == 0) {
    // nothing to close, and R_z is the identity
    if (m->sizes.neq > 0) fw->pivot_ratio = 1;
    if (tail) rz_identity_rows(d->ndof, d->part, fw->Rz);
    return HY_OK;
  }
  hy_status st = HY_OK;
  HY_FORM_SIZED_F1(r, d->ndof, close_n, m, d, fw, mw, tail, &st);
  return st;
}

hy_status hy_form_close_positions(const hy_model* m, hy_data* d, hy_form_work* fw,
                                  hy_mech_work* mw) {
  return close_any(m, d, fw, mw, 0);
}

hy_status hy_form_close_loops(const hy_model* m, hy_data* d, hy_form_work* fw,
                              hy_mech_work* mw) {
  return close_any(m, d, fw, mw, 1);
}

void hy_form_close_velocities(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int r = fw->nsel;
  if (r == 0) return;
  HY_FORM_SIZED_F1(r, d->ndof, close_velocities_n, m->sizes.nz, d->phi_z, fw->rowsel, d->part,
                   fw->Pd, fw->pivd, d->zd, fw->vec);
}

// S (nz) of Eq. 15, and with with_rz R_z (nz x f) of Eq. 14. part is a permutation of the
// coordinates, so the rows of the independent ones (identity, S = 0) and of the dependent ones
// (solves with Pd) together write every entry.
static HY_ALWAYS_INLINE void velocity_transform_n(int r, int f, int nz,
                                                  const double* restrict phi_z,
                                                  const double* restrict bias,
                                                  const int* restrict rows,
                                                  const int* restrict part,
                                                  const double* restrict lu,
                                                  const int* restrict piv, double* restrict Rz,
                                                  double* restrict S, double* restrict scratch,
                                                  int with_rz) {
  if (with_rz) {
    rz_identity_rows(f, part, Rz);
    rz_dependent_rows_n(r, f, nz, phi_z, rows, part, lu, piv, Rz, scratch);
  }
  for (int c = 0; c < f; c++) S[part[c]] = 0;
  const int* restrict dep = part + f;
  double loc[HY_SIZED_MAX];
  double* restrict b = r <= HY_SIZED_MAX ? loc : scratch;
  for (int i = 0; i < r; i++) b[i] = -bias[rows[i]];
  hy_lu_solve_n(r, lu, piv, b);
  for (int j = 0; j < r; j++) S[dep[j]] = b[j];
}

void hy_form_velocity_transform(const hy_model* m, hy_data* d, hy_form_work* fw, int with_rz) {
  const int r = fw->nsel;
  if (r == 0) {
    if (with_rz) rz_identity_rows(d->ndof, d->part, fw->Rz);
    for (int c = 0; c < d->ndof; c++) fw->S[d->part[c]] = 0;
    return;
  }
  // with_rz a constant in each copy, so that the copy for S alone has no tests of it
  if (with_rz) {
    HY_FORM_SIZED_F1(r, d->ndof, velocity_transform_n, m->sizes.nz, d->phi_z, d->phi_bias,
                     fw->rowsel, d->part, fw->Pd, fw->pivd, fw->Rz, fw->S, fw->vec, 1);
  } else {
    HY_FORM_SIZED_F1(r, d->ndof, velocity_transform_n, m->sizes.nz, d->phi_z, d->phi_bias,
                     fw->rowsel, d->part, fw->Pd, fw->pivd, fw->Rz, fw->S, fw->vec, 0);
  }
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
