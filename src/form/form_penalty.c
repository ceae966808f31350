// Penalty formulation: index-3 augmented Lagrangian in relative coordinates with
// mass-damping-stiffness orthogonal projections, seed 000_c866e3283107e8a4.txt Eqs. 18-21; the
// unknowns of the implicit integrator are all relative coordinates (with the pressures, Eq. 48).
// Under the trapezoidal rule its rows are Eq. 39.
//
// Nonholonomic constraints B zd = 0 (seed 003 Eq. 11) join the cut joints' rows as the rows of
// D = [Phi_z; B] (seed 003 Eq. 14) in the projections and the leading matrix. In the dynamics a
// velocity row is penalized as the trapezoidal rule's position increment it stands for: with
// zd = (2/h) z + ..., the term B^T (alpha h/2 B zd + mu) has the tangent h^2/4 alpha B^T B, the
// same as the holonomic rows' (Eq. 39), and mu follows Eq. 19 as mu += alpha h/2 B zd. The
// velocity projection (Eq. 20) then removes the rest of B zd, and the acceleration projection
// (Eq. 21) takes B zdd + B_dot zd = 0 as it takes Phi_ddot = 0.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_common.h"

// The loops over the coordinates below are sized kernels (HY_SIZED, core.h): nz is 3 on the
// seed mechanisms, where loop control would cost more than the arithmetic.

// The formulation's own values.
typedef struct penalty {
  double* A;            // W + w_pos Phi_z^T alpha Phi_z and its factors              (nz x nz)
  double* proj;         // the right-hand side of a projection, then its solution        (nz)
  int A_at_evaluation;  // A (unfactored), W and jac_s are those of the last residual
                        // evaluation (the tangent was formed there)
  int lam_pending;      // apply Eq. 19 at the next evaluation
  double alpha;         // the penalty factor of the step (see penalty_begin)
  double* lam_k;        // multipliers at the start of the step                        (neq)
  // history carried from step to step
  double* lam_hist;        // final lambda of the three steps before the current one,
                           // newest first, for the predictor                          (3 x neq)
  int nlam_hist;           // how many of them are known
  double lam_contraction;  // bound on the error factor of one Eq. 19 update
  long steps;              // steps accepted, for the schedule of the contraction bound
} penalty;

// Velocity-level rows: the cut joints' equations and the nonholonomic constraints.
static int rows_of(const hy_model* m) { return m->sizes.neq + m->sizes.nnh; }

static size_t penalty_size(const hy_model* m) {
  const size_t nz = (size_t)m->sizes.nz, neq = (size_t)rows_of(m);
  return hy_arena_need(sizeof(penalty)) + hy_doubles(nz * nz) + hy_doubles(nz) + hy_doubles(neq) +
         hy_doubles(3 * neq);
}

static void penalty_bind(hy_form* f, unsigned char* mem) {
  const size_t nz = (size_t)f->m->sizes.nz, neq = (size_t)rows_of(f->m);
  penalty* p = (penalty*)mem;
  mem += hy_arena_need(sizeof(penalty));
  p->A = (double*)mem;
  mem += hy_doubles(nz * nz);
  p->proj = (double*)mem;
  mem += hy_doubles(nz);
  p->lam_k = (double*)mem;
  mem += hy_doubles(neq);
  p->lam_hist = (double*)mem;
  f->self = p;
  f->nmech = f->m->sizes.nz;
  f->coord = NULL;
}

// a multiplier bound's column, the residual of the reaction multipliers and their normal
// equations
static size_t penalty_scratch(const hy_model* m) {
  const size_t nz = (size_t)m->sizes.nz, neq = (size_t)rows_of(m);
  return hy_doubles(nz) + hy_doubles(nz) + hy_doubles(neq * neq) + hy_doubles(neq);
}

// W + dt^2/4 Phi_z^T alpha Phi_z, W = M' + dt/2 C + dt^2/4 K (Sect. 2.3): the mechanical block of
// the tangent and the matrix of the projections (Eqs. 20-21). Both are symmetric; each entry is
// formed once.
static HY_ALWAYS_INLINE void leading_n(int nz, int neq, double c, const double* restrict W,
                                       const double* restrict P, double* restrict A) {
  // the constraint rows outermost: the loops over nz inside them are the unrolled ones
  for (int i = 0; i < nz * nz; i++) A[i] = W[i];
  for (int e = 0; e < neq; e++) {
    const double* row = P + (size_t)e * nz;
    for (int i = 0; i < nz; i++) {
      const double ci = c * row[i];
      for (int j = 0; j < nz; j++) A[i * nz + j] += ci * row[j];
    }
  }
}

// W (into f->W) and the leading matrix (into A).
static void leading_matrix(hy_form* f, double* A) {
  const hy_model* m = f->m;
  const double c = f->step.w_pos * ((const penalty*)f->self)->alpha;
  hy_form_cylinder_matrix(f, f->W);
  HY_SIZED(m->sizes.nz, leading_n, rows_of(m), c, f->W, f->d->phi_z, A);
}

// y = W v for the nz x nz W (row-major).
static HY_ALWAYS_INLINE void mat_vec_n(int nz, const double* restrict W, const double* restrict v,
                                       double* restrict y) {
  for (int i = 0; i < nz; i++) {
    double s = 0;
    for (int k = 0; k < nz; k++) s += W[i * nz + k] * v[k];
    y[i] = s;
  }
}

// Eq. 39 without its factor dt^2/4: M' zdd - Q' + Phi_z^T (alpha Phi + lambda)
static HY_ALWAYS_INLINE void residual_n(int nz, int neq, double alpha, const hy_data* d,
                                        double* restrict r) {
  hy_form_tree_rows_n(nz, d, r);
  for (int e = 0; e < neq; e++) {
    const double g = alpha * d->phi[e] + d->lam[e];
    const double* row = d->phi_z + (size_t)e * nz;
    for (int i = 0; i < nz; i++) r[i] += row[i] * g;
  }
}

// + B^T (alpha w_vel B zd + mu): the nonholonomic rows (see the top of the file)
static void residual_nonholonomic(const hy_model* m, const hy_data* d, double alpha_v,
                                  double* r) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  for (int k = 0; k < m->sizes.nnh; k++) {
    const double g = alpha_v * d->nh_rate[k] + d->lam[neq + k];
    const double* row = d->phi_z + (size_t)(neq + k) * nz;
    for (int i = 0; i < nz; i++) r[i] += row[i] * g;
  }
}

// Eq. 19 on the nonholonomic rows: mu += alpha w_vel B zd
static void update_nonholonomic(const hy_model* m, hy_data* d, double alpha_v) {
  for (int k = 0; k < m->sizes.nnh; k++) d->lam[m->sizes.neq + k] += alpha_v * d->nh_rate[k];
}

// The right-hand sides of the projections, Eqs. 20-21, before the solve with A: W zd' into v,
// or W zdd' - dt^2/4 Phi_z^T alpha (Phi_z_dot zd) when bias != NULL.
static HY_ALWAYS_INLINE void projection_rhs_n(int nz, int neq, const double* restrict W,
                                              const double* restrict v_in, const double* P,
                                              const double* bias, double c, double* restrict v) {
  mat_vec_n(nz, W, v_in, v);
  if (!bias) return;
  for (int e = 0; e < neq; e++) {
    const double* row = P + (size_t)e * nz;
    const double g = c * bias[e];
    for (int i = 0; i < nz; i++) v[i] -= row[i] * g;
  }
}

#define CONTRACTION_EVERY 8

// An Eq. 19 update leaves the multiplier error e as (I - c Phi_z A^-1 Phi_z^T) e, c = w_pos alpha,
// A factored in p->A. Its largest column sum bounds the spectral radius.
static double multiplier_contraction(hy_form* f, const penalty* p, double c) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  const int nz = m->sizes.nz, neq = rows_of(m);
  const size_t mark = hy_arena_mark(f->arena);
  double* y = hy_form_scratch_doubles(f, (size_t)nz);
  if (!y) return 1;  // the degree-1 predictor's margin (sized at data make: cannot happen)
  double bound = 0;
  for (int k = 0; k < neq; k++) {
    memcpy(y, d->phi_z + (size_t)k * nz, sizeof(double) * (size_t)nz);
    hy_chol_solve(nz, p->A, y);
    double sum = 0;
    for (int e = 0; e < neq; e++) {
      const double* row = d->phi_z + (size_t)e * nz;
      double g = 0;
      for (int i = 0; i < nz; i++) g += row[i] * y[i];
      sum += fabs((e == k ? 1.0 : 0.0) - c * g);
    }
    if (sum > bound) bound = sum;
  }
  hy_arena_release(f->arena, mark);
  return bound;
}

// The starting multipliers of a step. Seed 000 (text after Eq. 19) starts from the final lambda
// of the previous step; the constraint reactions change smoothly, so extrapolating the final
// values of the last steps starts much closer, and the Eq. 19 updates have less to correct: the
// augmented-Lagrangian iteration converges to the same multipliers in fewer Newton iterations
// (docs/formulations.md). The extrapolation feeds back on itself through the part of the error
// that one update leaves (factor rho): a polynomial predictor of degree 1, 2, 3 keeps that
// feedback decaying for rho below 1, 0.5, 0.2, so the degree is chosen with a margin from the
// rho measured at the end of one of the last eight steps.
static void predict_multipliers(const hy_model* m, hy_data* d, const penalty* p) {
  const int neq = rows_of(m);
  const double rho = p->lam_contraction;
  int degree = rho < 0.1 ? 3 : rho < 0.3 ? 2 : rho < 0.9 ? 1 : 0;
  if (degree > p->nlam_hist) degree = p->nlam_hist;
  const double* h1 = p->lam_hist;
  const double* h2 = h1 + neq;
  const double* h3 = h2 + neq;
  for (int e = 0; e < neq; e++) {
    const double l0 = d->lam[e];
    switch (degree) {
      case 0:
        break;
      case 1:
        d->lam[e] = 2 * l0 - h1[e];
        break;
      case 2:
        d->lam[e] = 3 * l0 - 3 * h1[e] + h2[e];
        break;
      default:
        d->lam[e] = 4 * l0 - 6 * h1[e] + 4 * h2[e] - h3[e];
        break;
    }
  }
}

// Row a of the independent velocity-level rows: the selected cut-joint equations, then every
// nonholonomic constraint.
static int independent_row(const hy_model* m, const hy_partition* pt, int a) {
  return a < pt->nsel ? pt->rowsel[a] : m->sizes.neq + (a - pt->nsel);
}

// Multipliers that reproduce the constraint reactions of the current accelerations:
// D_s D_s^T lambda_s = D_s (Q' - M' zdd) on the independent rows s of D.
static hy_status reaction_multipliers(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const hy_partition* pt = &f->part;
  const int nz = m->sizes.nz, r = pt->nsel + m->sizes.nnh;
  memset(d->lam, 0, sizeof(double) * (size_t)rows_of(m));
  if (r == 0) return HY_OK;
  const size_t mark = hy_arena_mark(f->arena);
  double* res = hy_form_scratch_doubles(f, (size_t)nz);
  double* N = hy_form_scratch_doubles(f, (size_t)r * (size_t)r);
  double* rhs = hy_form_scratch_doubles(f, (size_t)r);
  if (!res || !N || !rhs) return HY_ERR_ARENA;
  for (int i = 0; i < nz; i++) {
    double s = d->Q[i];
    for (int k = 0; k < nz; k++) s -= d->M[i * nz + k] * d->zdd[k];
    res[i] = s;
  }
  for (int a = 0; a < r; a++) {
    const double* pa = d->phi_z + (size_t)independent_row(m, pt, a) * nz;
    double s = 0;
    for (int i = 0; i < nz; i++) s += pa[i] * res[i];
    rhs[a] = s;
    for (int b = 0; b < r; b++) {
      const double* pb = d->phi_z + (size_t)independent_row(m, pt, b) * nz;
      double v = 0;
      for (int i = 0; i < nz; i++) v += pa[i] * pb[i];
      N[a * r + b] = v;
    }
  }
  int col = -1;
  hy_status st = HY_OK;
  if (hy_chol_factor(r, N, &col) != HY_OK) {
    st = HY_FAIL(&d->err, HY_ERR_SINGULAR, "constraint Jacobian lost rank at t = %g s", d->time);
  } else {
    hy_chol_solve(r, N, rhs);
    for (int a = 0; a < r; a++) d->lam[independent_row(m, pt, a)] = rhs[a];
  }
  hy_arena_release(f->arena, mark);
  return st;
}

//----- operations --------------------------------------------------------------------------------

static hy_status penalty_start(hy_form* f) {
  penalty* p = f->self;
  p->nlam_hist = 0;
  p->lam_contraction = 1;
  p->steps = 0;
  p->lam_pending = 0;
  p->A_at_evaluation = 0;
  HY_TRY(hy_form_forward(f));
  return reaction_multipliers(f);
}

static void penalty_begin(hy_form* f) {
  penalty* p = f->self;
  const hy_model* m = f->m;
  // The augmented-Lagrangian iteration and the projections are conditioned by
  // dt^2/4 alpha Phi_z^T Phi_z against M' (docs/formulations.md): the factor alpha belongs to the
  // step dt it was chosen for, and a shorter step h of the integrator (a cut, or error control)
  // keeps h^2/4 alpha_h = dt^2/4 alpha, so that the iteration converges as fast as at dt.
  const double h = f->step.h, dt = m->opt.dt;
  p->alpha = h == dt ? m->opt.penalty : m->opt.penalty * (dt / h) * (dt / h);
  p->lam_pending = 0;
  HY_COPY(rows_of(m), p->lam_k, f->d->lam);
  predict_multipliers(m, f->d, p);
}

static hy_status penalty_residual(hy_form* f, const double* dx, double* r) {
  (void)dx;
  penalty* p = f->self;
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const int neq = m->sizes.neq;
  const double alpha = p->alpha;
  p->A_at_evaluation = 0;
  hy_mech_kinematics_pos(m, d, f->mech);
  if (neq > 0) hy_mech_constraints_pos(m, d, f->mech);
  hy_form_evaluate_vel(m, d, f->mech, f->skip_derivatives ? NULL : f->hyd, 0);
  // Eq. 19, for the positions (and velocities) of the previous Newton update
  const int nh = m->sizes.nnh > 0;
  if (p->lam_pending) {
    for (int e = 0; e < neq; e++) d->lam[e] += alpha * d->phi[e];
    if (nh) update_nonholonomic(m, d, alpha * f->step.w_vel);
    p->lam_pending = 0;
  }
  HY_SIZED(m->sizes.nz, residual_n, neq, alpha, d, r);
  if (nh) residual_nonholonomic(m, d, alpha * f->step.w_vel, r);
  return HY_OK;
}

static int penalty_tangent(hy_form* f, double* Am, double* Js, double* Jr) {
  (void)Jr;
  penalty* p = f->self;
  const hy_model* m = f->m;
  hy_form_cylinder_jacobians(f);
  leading_matrix(f, p->A);
  p->A_at_evaluation = 1;
  HY_COPY(m->sizes.nz * m->sizes.nz, Am, p->A);
  HY_COPY(m->sizes.ncyl * m->sizes.nz, Js, f->jac_s);
  return 0;
}

static void penalty_iterated(hy_form* f) {
  penalty* p = f->self;
  if (rows_of(f->m) > 0) p->lam_pending = 1;
}

static hy_status penalty_accept(hy_form* f, const double* dx) {
  penalty* p = f->self;
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const int nz = m->sizes.nz, neq = m->sizes.neq, nrow = rows_of(m);
  const double alpha = p->alpha;
  // M' stays that of the last Newton evaluation, one correction below the tolerance earlier,
  // and the cylinder derivatives those of the evaluation the tangent was formed at
  // (docs/formulations.md, "End of a step")
  const int keep = hy_form_keep_positions(f, dx);
  // positions now (unless the evaluation's are kept); velocities once they are projected
  if (!keep) hy_mech_kinematics_pos(m, d, f->mech);
  if (nrow == 0) {
    hy_mech_kinematics_vel(m, d, f->mech);
    hy_form_outputs(f);
    p->steps++;
    return HY_OK;
  }
  if (!keep && neq > 0) hy_mech_constraints_pos(m, d, f->mech);
  // B and B zd at the accepted positions, before the projections
  if (m->sizes.nnh > 0) {
    hy_mech_kinematics_vel(m, d, f->mech);
    hy_mech_nonholonomic(m, d, f->mech);
  }
  // Eq. 19 for the last update
  if (p->lam_pending) {
    for (int e = 0; e < neq; e++) d->lam[e] += alpha * d->phi[e];
    if (m->sizes.nnh > 0) update_nonholonomic(m, d, alpha * f->step.w_vel);
    p->lam_pending = 0;
  }
  // projections, Eqs. 20-21: A zd = W zd', A zdd = W zdd' - dt^2/4 Phi_z^T alpha (Phi_z_dot zd)
  if (!keep) hy_mech_force_geometry(m, d);
  // a step that converged at its first evaluation, and kept its positions, has the matrix
  // already: the tangent was formed from the same evaluation
  if (!(keep && p->A_at_evaluation)) {
    hy_form_cylinder_jacobians(f);
    leading_matrix(f, p->A);
  }
  int col = -1;
  if (hy_chol_factor(nz, p->A, &col) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "projection matrix not positive definite at t = %g s (coordinate '%s')", d->time,
                   col >= 0 ? hy_form_coord_name(m, col) : "?");
  }
  const double c = f->step.w_pos * alpha;
  // the contraction changes with the configuration only, slowly against the step: measured
  // every CONTRACTION_EVERY steps it costs a fraction of a projection
  if (p->steps % CONTRACTION_EVERY == 0) p->lam_contraction = multiplier_contraction(f, p, c);
  double* v = p->proj;
  // the velocities are projected in place (W zd' is formed before zd is overwritten)
  HY_SIZED(nz, projection_rhs_n, nrow, f->W, d->zd, d->phi_z, NULL, 0.0, v);
  hy_chol_solve(nz, p->A, v);
  HY_COPY(nz, d->zd, v);
  // the bias Phi_z_dot zd with the projected velocities (positions unchanged)
  hy_mech_kinematics_vel(m, d, f->mech);
  if (neq > 0) hy_mech_constraints_bias(m, d, f->mech);
  if (m->sizes.nnh > 0) hy_mech_nonholonomic(m, d, f->mech);
  HY_SIZED(nz, projection_rhs_n, nrow, f->W, d->zdd, d->phi_z, d->phi_bias, c, v);
  hy_chol_solve(nz, p->A, v);
  HY_COPY(nz, d->zdd, v);
  // outputs (forces, flows, energies) at the projected velocities
  hy_form_outputs(f);
  // the final multipliers of the step before become history
  memmove(p->lam_hist + nrow, p->lam_hist, sizeof(double) * 2 * (size_t)nrow);
  memcpy(p->lam_hist, p->lam_k, sizeof(double) * (size_t)nrow);
  if (p->nlam_hist < 3) p->nlam_hist++;
  p->steps++;
  return HY_OK;
}

static void penalty_abort(hy_form* f) {
  penalty* p = f->self;
  memcpy(f->d->lam, p->lam_k, sizeof(double) * (size_t)rows_of(f->m));
  p->lam_pending = 0;
}

// (α follows the step's length by itself: see penalty_begin)
static void penalty_retry(hy_form* f) { (void)f; }

// lam_hist, nlam_hist, lam_contraction, steps
static int penalty_hist_size(const hy_model* m) { return 3 * rows_of(m) + 3; }

static void penalty_hist_get(const hy_form* f, double* buf) {
  const penalty* p = f->self;
  const int n3 = 3 * rows_of(f->m);
  for (int i = 0; i < n3; i++) buf[i] = p->lam_hist[i];
  buf[n3] = p->nlam_hist;
  buf[n3 + 1] = p->lam_contraction;
  buf[n3 + 2] = (double)p->steps;
}

static void penalty_hist_set(hy_form* f, const double* buf) {
  penalty* p = f->self;
  const int n3 = 3 * rows_of(f->m);
  for (int i = 0; i < n3; i++) p->lam_hist[i] = buf[i];
  p->nlam_hist = (int)buf[n3];
  p->lam_contraction = buf[n3 + 1];
  p->steps = (long)buf[n3 + 2];
  p->lam_pending = 0;
  p->A_at_evaluation = 0;
}

static int penalty_hist_ok(const hy_model* m, const double* buf) {
  const int n3 = 3 * rows_of(m);
  const double nlam = buf[n3], contraction = buf[n3 + 1], steps = buf[n3 + 2];
  return nlam >= 0 && nlam <= 3 && nlam == floor(nlam) && contraction >= 0 && steps >= 0 &&
         steps <= 1e15 && steps == floor(steps);
}

const hy_form_ops hy_form_penalty_ops = {
    .kind = HY_FORM_PENALTY,
    .name = "penalty",
    .has_ode = 0,
    .size = penalty_size,
    .bind = penalty_bind,
    .scratch = penalty_scratch,
    .start = penalty_start,
    .accelerations = hy_form_closed_accelerations,
    .begin = penalty_begin,
    .residual = penalty_residual,
    .tangent = penalty_tangent,
    .iterated = penalty_iterated,
    .accept = penalty_accept,
    .abort = penalty_abort,
    .retry = penalty_retry,
    .hist_size = penalty_hist_size,
    .hist_get = penalty_hist_get,
    .hist_set = penalty_hist_set,
    .hist_ok = penalty_hist_ok,
};
