// Coordinate partitioning of the double-step method (seed 000 Sect. 2.2, Eqs. 13-17), also used
// by every formulation to close the loops at t = 0 and to compute static equilibrium forces.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_common.h"

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

// The scratch of a full-pivoting LU of Phi_z: the matrix and the two permutations.
typedef struct full_lu {
  double* a;
  int* rperm;
  int* cperm;
} full_lu;

static hy_status full_lu_scratch(hy_form* f, full_lu* s) {
  const size_t nz = (size_t)f->m->sizes.nz, neq = (size_t)f->m->sizes.neq;
  s->a = hy_form_scratch_doubles(f, neq * nz);
  s->rperm = hy_form_scratch_ints(f, neq);
  s->cperm = hy_form_scratch_ints(f, nz);
  return s->a && s->rperm && s->cperm ? HY_OK : HY_ERR_ARENA;
}

hy_status hy_form_select_partition(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  const size_t mark = hy_arena_mark(f->arena);
  full_lu s;
  HY_TRY(full_lu_scratch(f, &s));
  int rank = 0;
  if (neq > 0) {
    memcpy(s.a, d->phi_z, sizeof(double) * (size_t)neq * (size_t)nz);
    hy_lu_full(neq, nz, s.a, s.rperm, s.cperm, RANK_TOL, &rank);
  } else {
    for (int j = 0; j < nz; j++) s.cperm[j] = j;
  }
  // pivot columns are dependent, the rest independent; both kept in ascending order
  d->ndof = nz - rank;
  pt->nsel = rank;
  for (int i = 0; i < rank; i++) pt->rowsel[i] = s.rperm[i];
  sort_ints(pt->rowsel, rank);
  for (int j = 0; j < d->ndof; j++) d->part[j] = s.cperm[rank + j];
  for (int j = 0; j < rank; j++) d->part[d->ndof + j] = s.cperm[j];
  sort_ints(d->part, d->ndof);
  sort_ints(d->part + d->ndof, rank);
  d->stats.npartition++;
  hy_arena_release(f->arena, mark);
  return HY_OK;
}

hy_status hy_form_select_initial_partition(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  int nmarked = 0;
  for (int j = 0; j < m->sizes.nbody; j++) nmarked += m->jnt_indep[j] != 0;
  if (nmarked == 0 || neq == 0) return hy_form_select_partition(f);
  const size_t mark = hy_arena_mark(f->arena);
  full_lu s;
  HY_TRY(full_lu_scratch(f, &s));
  // dependent columns: the unmarked coordinates, in ascending order
  int ndep = 0;
  d->ndof = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const int z = m->jnt_zadr[j];
    if (m->jnt_indep[j]) {
      d->part[d->ndof++] = z;
    } else {
      s.cperm[ndep++] = z;
    }
  }
  sort_ints(d->part, d->ndof);
  sort_ints(s.cperm, ndep);
  memcpy(d->part + d->ndof, s.cperm, sizeof(int) * (size_t)ndep);
  // the equations: full pivoting on the dependent columns of Phi_z
  for (int i = 0; i < neq; i++) {
    for (int c = 0; c < ndep; c++) s.a[i * ndep + c] = d->phi_z[i * nz + d->part[d->ndof + c]];
  }
  int rank = 0;
  hy_lu_full(neq, ndep, s.a, s.rperm, s.cperm, RANK_TOL, &rank);
  hy_status st = HY_OK;
  if (rank != ndep) {
    st = HY_FAIL(&d->err, HY_ERR_MODEL,
                 "the joints marked independent leave %d dependent coordinates but the loop "
                 "equations determine only %d of them at t = 0: mark %d joint(s) fewer or "
                 "others", ndep, rank, ndep - rank);
  } else {
    pt->nsel = rank;
    for (int i = 0; i < rank; i++) pt->rowsel[i] = s.rperm[i];
    sort_ints(pt->rowsel, rank);
    d->stats.npartition++;
  }
  hy_arena_release(f->arena, mark);
  return st;
}

// The kernels below are sized (HY_SIZED, core.h) on the number r of dependent coordinates: 2 on
// the seed mechanisms, where a call to hy_lu_solve and loops of run-time length cost more than
// their arithmetic. A right-hand side of up to HY_SIZED_MAX entries is held in a local array,
// which the unrolled loops keep in registers; a larger one goes to the arena.
// With HY_SIZED_F1 the number f of independent coordinates is a constant too when it is 1.

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

hy_status hy_form_factor_dependent(hy_form* f) {
  const hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int r = pt->nsel;
  if (r == 0) {
    pt->pivot_ratio = 1;
    return HY_OK;
  }
  int ok = 0;
  HY_SIZED(r, factor_dependent_n, f->m->sizes.nz, d->phi_z, pt->rowsel, d->part + d->ndof, pt->Pd,
           pt->pivd, &pt->pivot_ratio, &ok);
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
// factors go to the partition's Pd once at the end. With tail, also R_z and the dependent
// velocities at the converged positions (hy_form_close_loops), solved with the final factors
// while they are still at hand. The pointers into d are not restrict: the position stages write
// through d. scratch holds r doubles when r > HY_SIZED_MAX.
static HY_ALWAYS_INLINE hy_status close_loop_n(int r, int f, const hy_model* m, hy_data* d,
                                               hy_partition* pt, hy_mech_work* mw, int tail,
                                               double* scratch) {
  const int nz = m->sizes.nz;
  const int small = r <= HY_SIZED_MAX;
  int rows_loc[HY_SIZED_MAX], dep_loc[HY_SIZED_MAX], piv_loc[HY_SIZED_MAX];
  double a_loc[HY_SIZED_MAX * HY_SIZED_MAX], b_loc[HY_SIZED_MAX];
  if (small) {
    for (int i = 0; i < r; i++) {
      rows_loc[i] = pt->rowsel[i];
      dep_loc[i] = d->part[f + i];
    }
  }
  const int* rows = small ? rows_loc : pt->rowsel;
  const int* dep = small ? dep_loc : d->part + f;
  double* lu = small ? a_loc : pt->Pd;
  int* piv = small ? piv_loc : pt->pivd;
  double* b = small ? b_loc : scratch;
  const double* phi_z = d->phi_z;
  const double* phi = d->phi;
  double* z = d->z;
  hy_status st = HY_OK;
  int it = 0, done = 0;
  for (;;) {
    if (!factor_block_n(r, nz, phi_z, rows, dep, lu, piv, &pt->pivot_ratio)) {
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
    for (int i = 0; i < r * r; i++) pt->Pd[i] = lu[i];
    for (int i = 0; i < r; i++) pt->pivd[i] = piv[i];
  }
  if (st != HY_OK || !tail) return st;
  rz_identity_rows(f, d->part, pt->Rz);
  rz_dependent_rows_n(r, f, nz, phi_z, rows, d->part, lu, piv, pt->Rz, scratch);
  close_velocities_n(r, f, nz, phi_z, rows, d->part, lu, piv, d->zd, scratch);
  return HY_OK;
}

static HY_ALWAYS_INLINE void close_n(int r, int f, const hy_model* m, hy_data* d,
                                     hy_partition* pt, hy_mech_work* mw, int tail,
                                     double* scratch, hy_status* st) {
  *st = close_loop_n(r, f, m, d, pt, mw, tail, scratch);
}

// r doubles of scratch from the arena for a block beyond HY_SIZED_MAX (NULL up to it, when the
// kernels keep their vectors in local arrays): *ok = 0 when the arena is exhausted.
static double* block_scratch(hy_form* f, int r, int* ok) {
  *ok = 1;
  if (r <= HY_SIZED_MAX) return NULL;
  double* p = hy_form_scratch_doubles(f, (size_t)r);
  *ok = p != NULL;
  return p;
}

// tail a run-time flag: a copy of each size per value would double the code for the few
// instructions of its tests
static hy_status close_any(hy_form* f, int tail) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_partition* pt = &f->part;
  hy_mech_kinematics_pos(m, d, f->mech);
  if (m->sizes.neq > 0) hy_mech_constraints_pos(m, d, f->mech);
  const int r = pt->nsel;
  if (r == 0) {
    // nothing to close, and R_z is the identity
    if (m->sizes.neq > 0) pt->pivot_ratio = 1;
    if (tail) rz_identity_rows(d->ndof, d->part, pt->Rz);
    return HY_OK;
  }
  const size_t mark = hy_arena_mark(f->arena);
  int ok;
  double* scratch = block_scratch(f, r, &ok);
  if (!ok) return HY_ERR_ARENA;
  hy_status st = HY_OK;
  HY_SIZED_F1(r, d->ndof, close_n, m, d, pt, f->mech, tail, scratch, &st);
  if (scratch) hy_arena_release(f->arena, mark);
  return st;
}

hy_status hy_form_close_positions(hy_form* f) { return close_any(f, 0); }

hy_status hy_form_close_loops(hy_form* f) { return close_any(f, 1); }

void hy_form_close_velocities(hy_form* f) {
  hy_data* d = f->d;
  const hy_partition* pt = &f->part;
  const int r = pt->nsel;
  if (r == 0) return;
  const size_t mark = hy_arena_mark(f->arena);
  int ok;
  double* scratch = block_scratch(f, r, &ok);
  if (!ok) return;
  HY_SIZED_F1(r, d->ndof, close_velocities_n, f->m->sizes.nz, d->phi_z, pt->rowsel, d->part,
              pt->Pd, pt->pivd, d->zd, scratch);
  if (scratch) hy_arena_release(f->arena, mark);
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

void hy_form_velocity_transform(hy_form* f, int with_rz) {
  hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int r = pt->nsel;
  if (r == 0) {
    if (with_rz) rz_identity_rows(d->ndof, d->part, pt->Rz);
    for (int c = 0; c < d->ndof; c++) pt->S[d->part[c]] = 0;
    return;
  }
  const size_t mark = hy_arena_mark(f->arena);
  int ok;
  double* scratch = block_scratch(f, r, &ok);
  if (!ok) return;
  const int nz = f->m->sizes.nz;
  // with_rz a constant in each copy, so that the copy for S alone has no tests of it
  if (with_rz) {
    HY_SIZED_F1(r, d->ndof, velocity_transform_n, nz, d->phi_z, d->phi_bias, pt->rowsel, d->part,
                pt->Pd, pt->pivd, pt->Rz, pt->S, scratch, 1);
  } else {
    HY_SIZED_F1(r, d->ndof, velocity_transform_n, nz, d->phi_z, d->phi_bias, pt->rowsel, d->part,
                pt->Pd, pt->pivd, pt->Rz, pt->S, scratch, 0);
  }
  if (scratch) hy_arena_release(f->arena, mark);
}

void hy_form_rz_dependent(hy_form* fm, double* Rd, double* b) {
  const hy_data* d = fm->d;
  const hy_partition* pt = &fm->part;
  const int r = pt->nsel, f = d->ndof;
  const size_t nz = (size_t)fm->m->sizes.nz;
  // rz_dependent_rows_n's solves, stored by dependent coordinate instead of into R_z's rows
  for (int c = 0; c < f; c++) {
    const int k = d->part[c];
    for (int i = 0; i < r; i++) b[i] = -d->phi_z[(size_t)pt->rowsel[i] * nz + (size_t)k];
    hy_lu_solve(r, pt->Pd, pt->pivd, b);
    for (int j = 0; j < r; j++) Rd[(size_t)j * (size_t)f + (size_t)c] = b[j];
  }
}

hy_status hy_form_reduced_accelerations(hy_form* fm) {
  const hy_model* m = fm->m;
  hy_data* d = fm->d;
  const int nz = m->sizes.nz;
  // with nonholonomic constraints, over the independent velocities (T, SD of D) instead
  const int nh = m->sizes.nnh > 0;
  const int f = nh ? fm->part.nv : d->ndof;
  const double* Rz = nh ? fm->part.T : fm->part.Rz;
  const double* S = nh ? fm->part.SD : fm->part.S;
  const size_t mark = hy_arena_mark(fm->arena);
  // Q'' = R_z^T (Q' - M' S) and M'' = R_z^T M' R_z (Eq. 17)
  double* q = hy_form_scratch_doubles(fm, (size_t)nz);                // Q' - M' S
  double* MR = hy_form_scratch_doubles(fm, (size_t)nz * (size_t)f);   // M' R_z
  double* rhs = hy_form_scratch_doubles(fm, (size_t)f);               // Q''
  double* Mr = hy_form_scratch_doubles(fm, (size_t)f * (size_t)f);    // M''
  if (!q || !MR || !rhs || !Mr) return HY_ERR_ARENA;
  for (int i = 0; i < nz; i++) {
    double s = d->Q[i];
    for (int k = 0; k < nz; k++) s -= d->M[i * nz + k] * S[k];
    q[i] = s;
    for (int c = 0; c < f; c++) {
      double v = 0;
      for (int k = 0; k < nz; k++) v += d->M[i * nz + k] * Rz[k * f + c];
      MR[i * f + c] = v;
    }
  }
  for (int a = 0; a < f; a++) {
    double s = 0;
    for (int i = 0; i < nz; i++) s += Rz[i * f + a] * q[i];
    rhs[a] = s;
    for (int c = 0; c < f; c++) {
      double v = 0;
      for (int i = 0; i < nz; i++) v += Rz[i * f + a] * MR[i * f + c];
      Mr[a * f + c] = v;
    }
  }
  int col = -1;
  hy_status st = HY_OK;
  if (hy_chol_factor(f, Mr, &col) != HY_OK) {
    st = HY_FAIL(&d->err, HY_ERR_SINGULAR,
                 "reduced mass matrix is not positive definite at t = %g s (independent "
                 "coordinate '%s')", d->time,
                 col >= 0 && col < f ? hy_form_coord_name(m, d->part[col]) : "?");
  } else {
    hy_chol_solve(f, Mr, rhs);
    // zdd = R_z zdd_i + S (Eq. 15)
    for (int i = 0; i < nz; i++) {
      double s = S[i];
      for (int c = 0; c < f; c++) s += Rz[i * f + c] * rhs[c];
      d->zdd[i] = s;
    }
  }
  hy_arena_release(fm->arena, mark);
  return st;
}

hy_status hy_form_closed_accelerations(hy_form* f) {
  hy_data* d = f->d;
  if (f->m->sizes.neq > 0 && hy_form_factor_dependent(f) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "the dependent block of the constraint Jacobian is singular at t = %g s",
                   d->time);
  }
  hy_form_velocity_transform(f, 1);
  if (f->m->sizes.nnh > 0) {
    // x_ad chosen again when its block has become singular or poor against the choice
    const hy_partition* pt = &f->part;
    if (hy_form_nh_factor(f) != HY_OK ||
        pt->nh_ratio < f->m->opt.partition_rcond * pt->nh_ratio_sel) {
      HY_TRY(hy_form_nh_select(f));
    }
    hy_form_nh_transform(f);
  }
  return hy_form_reduced_accelerations(f);
}

//----- nonholonomic constraints (seed 003 Eqs. 45-52) ----------------------------------------
// The independent coordinates x_a of the holonomic partition move freely at position level;
// B zd = 0 ties nnh of their velocities (x_ad, the last nnh of d->part[0 .. ndof)) to the others
// (x_ai). With zd = R_z zd_a (Eq. 47), B zd = B-bar zd_a with B-bar = B R_z (Eq. 50), so
// zd_ad = -B-bar_ad^-1 B-bar_ai zd_ai (Eq. 51 at the reference). These run on the small sizes of
// vehicles and linkages outside the hot paths of the loop-only models, with plain loops.

// B-bar = B R_z into pt->Bbar (nnh x ndof), with R_z and B (d->phi_z rows neq ..) current.
static void form_bbar(hy_form* f) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, nf = d->ndof, nnh = m->sizes.nnh;
  for (int k = 0; k < nnh; k++) {
    const double* b = d->phi_z + (size_t)(m->sizes.neq + k) * (size_t)nz;
    for (int c = 0; c < nf; c++) {
      double s = 0;
      for (int i = 0; i < nz; i++) s += b[i] * pt->Rz[i * nf + c];
      pt->Bbar[k * nf + c] = s;
    }
  }
}

hy_status hy_form_nh_factor(hy_form* f) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int nnh = m->sizes.nnh, nf = d->ndof;
  pt->nv = nf - nnh;
  if (nnh == 0) return HY_OK;
  form_bbar(f);
  for (int k = 0; k < nnh; k++) {
    for (int j = 0; j < nnh; j++) pt->Bf[k * nnh + j] = pt->Bbar[k * nf + pt->nv + j];
  }
  int col = -1;
  if (hy_lu_factor(nnh, pt->Bf, pt->Bpiv, &col) != HY_OK) {
    pt->nh_ratio = 0;
    return HY_WARN_SINGULAR;
  }
  double lo = INFINITY, hi = 0;
  for (int k = 0; k < nnh; k++) {
    const double u = fabs(pt->Bf[k * nnh + k]);
    lo = fmin(lo, u);
    hi = fmax(hi, u);
  }
  pt->nh_ratio = lo / hi;
  return HY_OK;
}

hy_status hy_form_nh_select(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int nnh = m->sizes.nnh, nf = d->ndof;
  pt->nv = nf - nnh;
  if (nnh == 0) return HY_OK;
  if (nf <= nnh) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "%d nonholonomic constraint(s) on %d coordinate(s) free of the loops: no "
                   "velocity would be left free, nothing could move", nnh, nf);
  }
  hy_form_velocity_transform(f, 1);
  form_bbar(f);
  const size_t mark = hy_arena_mark(f->arena);
  double* a = hy_form_scratch_doubles(f, (size_t)nnh * (size_t)nf);
  int* rperm = hy_form_scratch_ints(f, (size_t)nnh);
  int* cperm = hy_form_scratch_ints(f, (size_t)nf);
  if (!a || !rperm || !cperm) return HY_ERR_ARENA;
  memcpy(a, pt->Bbar, sizeof(double) * (size_t)nnh * (size_t)nf);
  int rank = 0;
  hy_lu_full(nnh, nf, a, rperm, cperm, RANK_TOL, &rank);
  hy_status st = HY_OK;
  if (rank < nnh) {
    st = HY_FAIL(&d->err, HY_ERR_MODEL,
                 "the nonholonomic constraints restrict only %d independent velocity "
                 "direction(s) of %d at t = %g s: some repeat others or the loops",
                 rank, nnh, d->time);
  } else {
    // x_ad: the pivot columns; x_ai the rest; each set ascending
    int* tmp_ad = hy_form_scratch_ints(f, (size_t)nf);
    int* tmp_ai = hy_form_scratch_ints(f, (size_t)nf);
    if (!tmp_ad || !tmp_ai) {
      st = HY_ERR_ARENA;
    } else {
      for (int j = 0; j < nnh; j++) tmp_ad[j] = d->part[cperm[j]];
      for (int j = nnh; j < nf; j++) tmp_ai[j - nnh] = d->part[cperm[j]];
      sort_ints(tmp_ad, nnh);
      sort_ints(tmp_ai, nf - nnh);
      memcpy(d->part, tmp_ai, sizeof(int) * (size_t)(nf - nnh));
      memcpy(d->part + nf - nnh, tmp_ad, sizeof(int) * (size_t)nnh);
    }
  }
  hy_arena_release(f->arena, mark);
  if (st != HY_OK) return st;
  // R_z's columns follow d->part
  hy_form_velocity_transform(f, 1);
  if (hy_form_nh_factor(f) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "no non-singular choice of the nonholonomic dependent velocities at t = %g s",
                   d->time);
  }
  pt->nh_ratio_sel = pt->nh_ratio;
  return HY_OK;
}

void hy_form_nh_close_velocities(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const hy_partition* pt = &f->part;
  const int nnh = m->sizes.nnh, nf = d->ndof, nv = pt->nv;
  if (nnh == 0) return;
  double b[HY_NH_MAX];
  for (int k = 0; k < nnh; k++) {
    double s = 0;
    for (int c = 0; c < nv; c++) s += pt->Bbar[k * nf + c] * d->zd[d->part[c]];
    b[k] = -s;
  }
  hy_lu_solve(nnh, pt->Bf, pt->Bpiv, b);
  for (int j = 0; j < nnh; j++) d->zd[d->part[nv + j]] = b[j];
  hy_form_close_velocities(f);
}

void hy_form_nh_transform(hy_form* f) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, nnh = m->sizes.nnh, nf = d->ndof, nv = pt->nv;
  const double* Rz = pt->Rz;
  double u[HY_NH_MAX];
  // T = R_z [I; U], U = -B-bar_ad^-1 B-bar_ai, one column of U at a time (Eqs. 31, 47, 51)
  for (int c = 0; c < nv; c++) {
    for (int k = 0; k < nnh; k++) u[k] = -pt->Bbar[k * nf + c];
    hy_lu_solve(nnh, pt->Bf, pt->Bpiv, u);
    for (int i = 0; i < nz; i++) {
      double s = Rz[i * nf + c];
      for (int j = 0; j < nnh; j++) s += Rz[i * nf + nv + j] * u[j];
      pt->T[i * nv + c] = s;
    }
  }
  // SD = S + R_z,ad s_ad with B (S + R_z,ad s_ad) + B_dot zd = 0 (Eq. 37 on the B rows)
  for (int k = 0; k < nnh; k++) {
    const double* b = d->phi_z + (size_t)(m->sizes.neq + k) * (size_t)nz;
    double s = d->phi_bias[m->sizes.neq + k];
    for (int i = 0; i < nz; i++) s += b[i] * pt->S[i];
    u[k] = -s;
  }
  hy_lu_solve(nnh, pt->Bf, pt->Bpiv, u);
  for (int i = 0; i < nz; i++) {
    double s = pt->S[i];
    for (int j = 0; j < nnh; j++) s += Rz[i * nf + nv + j] * u[j];
    pt->SD[i] = s;
  }
}

//----- history ---------------------------------------------------------------------------------

// ndof, nsel, the pivot ratio of the choice, then the coordinates (nz) and the equations (neq)
// (and the nonholonomic block's pivot ratio of its choice; the choice itself is the order of
// the independent coordinates)
int hy_form_partition_hist_size(const hy_model* m) { return 4 + m->sizes.nz + m->sizes.neq; }

void hy_form_partition_hist_get(const hy_form* f, double* buf) {
  const hy_data* d = f->d;
  const int nz = f->m->sizes.nz, neq = f->m->sizes.neq;
  buf[0] = d->ndof;
  buf[1] = f->part.nsel;
  buf[2] = f->part.pivot_ratio_sel;
  for (int i = 0; i < nz; i++) buf[3 + i] = d->part[i];
  for (int e = 0; e < neq; e++) buf[3 + nz + e] = e < f->part.nsel ? f->part.rowsel[e] : -1;
  buf[3 + nz + neq] = f->part.nh_ratio_sel;
}

void hy_form_partition_hist_set(hy_form* f, const double* buf) {
  hy_data* d = f->d;
  const int nz = f->m->sizes.nz, neq = f->m->sizes.neq;
  d->ndof = (int)buf[0];
  f->part.nsel = (int)buf[1];
  f->part.pivot_ratio_sel = buf[2];
  for (int i = 0; i < nz; i++) d->part[i] = (int)buf[3 + i];
  for (int e = 0; e < neq; e++) f->part.rowsel[e] = (int)buf[3 + nz + e];
  f->part.nh_ratio_sel = buf[3 + nz + neq];
  f->part.nv = d->ndof - f->m->sizes.nnh;
}
