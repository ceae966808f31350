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

hy_status hy_form_factor_dependent(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int nz = m->sizes.nz, r = fw->nsel;
  const int* dep = d->part + d->ndof;
  if (r == 0) {
    fw->pivot_ratio = 1;
    return HY_OK;
  }
  for (int i = 0; i < r; i++) {
    const double* row = d->phi_z + (size_t)fw->rowsel[i] * (size_t)nz;
    for (int j = 0; j < r; j++) fw->Pd[i * r + j] = row[dep[j]];
  }
  int col = -1;
  hy_status st = hy_lu_factor(r, fw->Pd, fw->pivd, &col);
  if (st != HY_OK) {
    fw->pivot_ratio = 0;
    return HY_WARN_SINGULAR;
  }
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < r; i++) {
    const double u = fabs(fw->Pd[i * r + i]);
    lo = fmin(lo, u);
    hi = fmax(hi, u);
  }
  fw->pivot_ratio = lo / hi;
  return HY_OK;
}

hy_status hy_form_close_positions(const hy_model* m, hy_data* d, hy_form_work* fw,
                                  hy_mech_work* mw) {
  const int r = fw->nsel;
  const int* dep = d->part + d->ndof;
  double* delta = fw->vec;
  hy_mech_kinematics_pos(m, d, mw);
  if (m->sizes.neq == 0) return HY_OK;
  hy_mech_constraints_pos(m, d, mw);
  for (int it = 0; it < CLOSE_MAX_ITER; it++) {
    if (hy_form_factor_dependent(m, d, fw) != HY_OK) return HY_WARN_SINGULAR;
    if (r == 0) return HY_OK;
    for (int i = 0; i < r; i++) delta[i] = -d->phi[fw->rowsel[i]];
    hy_lu_solve(r, fw->Pd, fw->pivd, delta);
    double step = 0;
    for (int j = 0; j < r; j++) step = fmax(step, fabs(delta[j]));
    if (!isfinite(step)) return HY_NEWTON_NOCONV;
    if (step <= CLOSE_ROUNDOFF) return HY_OK;
    for (int j = 0; j < r; j++) d->z[dep[j]] += delta[j];
    hy_mech_kinematics_pos(m, d, mw);
    hy_mech_constraints_pos(m, d, mw);
    if (step <= CLOSE_TOL) return hy_form_factor_dependent(m, d, fw);
  }
  return HY_NEWTON_NOCONV;
}

void hy_form_close_velocities(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int nz = m->sizes.nz, r = fw->nsel, f = d->ndof;
  if (r == 0) return;
  double* rhs = fw->vec;
  for (int i = 0; i < r; i++) {
    const double* row = d->phi_z + (size_t)fw->rowsel[i] * (size_t)nz;
    double s = 0;
    for (int c = 0; c < f; c++) s += row[d->part[c]] * d->zd[d->part[c]];
    rhs[i] = -s;
  }
  hy_lu_solve(r, fw->Pd, fw->pivd, rhs);
  for (int j = 0; j < r; j++) d->zd[d->part[f + j]] = rhs[j];
}

void hy_form_velocity_transform(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int nz = m->sizes.nz, r = fw->nsel, f = d->ndof;
  const int* ind = d->part;
  const int* dep = d->part + f;
  double* Rz = fw->Rz;  // nz x f
  double* col = fw->vec;
  memset(Rz, 0, sizeof(double) * (size_t)nz * (size_t)f);
  for (int c = 0; c < f; c++) {
    Rz[ind[c] * f + c] = 1;
    if (r == 0) continue;
    for (int i = 0; i < r; i++) col[i] = -d->phi_z[(size_t)fw->rowsel[i] * nz + ind[c]];
    hy_lu_solve(r, fw->Pd, fw->pivd, col);
    for (int j = 0; j < r; j++) Rz[dep[j] * f + c] = col[j];
  }
  memset(fw->S, 0, sizeof(double) * (size_t)nz);
  if (r == 0) return;
  for (int i = 0; i < r; i++) col[i] = -d->phi_bias[fw->rowsel[i]];
  hy_lu_solve(r, fw->Pd, fw->pivd, col);
  for (int j = 0; j < r; j++) fw->S[dep[j]] = col[j];
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
