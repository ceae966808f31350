// The initial state every formulation starts from: loops closed at the given independent
// coordinates, the partition, static equilibrium forces (seed 000 Sect. 5), initial pressures
// and spools, the static residual; then the formulation's own start.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_common.h"

// A cylinder's geometry must make sense in the initial configuration: its markers apart and
// both chambers of positive length.
static hy_status check_cylinders(const hy_model* m, hy_data* d) {
  for (int c = 0; c < m->sizes.ncyl; c++) {
    const int k = m->cyl_frc[c];
    const hy_srcpos pos = m->frc_pos[k];
    const char* name = m->frc_name + (size_t)k * HY_NAME_MAX;
    if (d->frc_len[k] < 1e-9) {
      return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                              "cylinder '%s': its markers coincide in the initial configuration "
                              "(length %.3g m)", name, d->frc_len[k]);
    }
    if (!(d->cyl_len_a[c] > 0) || !(d->cyl_len_b[c] > 0)) {
      return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                              "cylinder '%s': chamber lengths at t = 0 are %.4g m (piston side) "
                              "and %.4g m (rod side) for the actuator length %.4g m; both must "
                              "be positive: check stroke and dead_length", name,
                              d->cyl_len_a[c], d->cyl_len_b[c], d->frc_len[k]);
    }
  }
  return HY_OK;
}

// The directions of virtual displacement at the current evaluation: the columns of P (nz x ncol,
// row-major) or, for a formulation that keeps no dense matrix (hy_form_no_dense), of R_z given
// by its dependent rows alone (rd, hy_form_rz_dependent): the unit vector of independent
// coordinate part[a] plus rd's column a on the dependent ones.
typedef struct directions {
  const double* P;
  const double* rd;
  int ncol;
} directions;

// R_z's ndof columns, or with nonholonomic constraints T's nv, which B also admits (the
// constraint carries what acts across it, like the loops' reactions). The dependent block must
// be factored, and for P the velocity transforms current; rd comes from the arena (the caller's
// frame).
static hy_status virtual_directions(hy_form* f, directions* v) {
  const hy_data* d = f->d;
  if (hy_form_no_dense(f->ops)) {
    // without B: such a formulation runs no nonholonomic constraints (hy_form_dca_check), whose
    // T would be nz x nv
    if (f->m->sizes.nnh > 0) {
      return HY_FAIL(&f->d->err, HY_ERR_MODEL, "formulation %s cannot run nonholonomic constraints",
                     f->ops->name);
    }
    const int r = f->part.nsel;
    v->P = NULL;
    v->rd = NULL;
    v->ncol = d->ndof;
    if (r == 0) return HY_OK;
    double* rd = hy_form_scratch_doubles(f, (size_t)r * (size_t)d->ndof);
    double* b = hy_form_scratch_doubles(f, (size_t)r);
    if (!rd || !b) return HY_ERR_ARENA;
    hy_form_rz_dependent(f, rd, b);
    v->rd = rd;
    return HY_OK;
  }
  v->rd = NULL;
  if (f->m->sizes.nnh > 0 && hy_form_nh_factor(f) == HY_OK) {
    hy_form_nh_transform(f);
    v->ncol = f->part.nv;
    v->P = f->part.T;
    return HY_OK;
  }
  v->ncol = d->ndof;
  v->P = f->part.Rz;
  return HY_OK;
}

// Direction a of v times x (nz). With rd, the terms of the whole column's product that are not
// zero, in the same order (the dependent coordinates ascend in part, and the independent one's
// entry is 1): the same sum, bit for bit.
static double along(const hy_form* f, const directions* v, int a, const double* x) {
  const int nz = f->m->sizes.nz, nf = v->ncol;
  double s = 0;
  if (v->P) {
    for (int i = 0; i < nz; i++) s += v->P[i * nf + a] * x[i];
    return s;
  }
  const int* part = f->d->part;
  const int k = part[a], r = v->rd ? f->part.nsel : 0;
  int own = 0;
  for (int j = 0; j < r; j++) {
    const int i = part[nf + j];
    if (!own && k < i) {
      s += x[k];
      own = 1;
    }
    s += v->rd[j * nf + a] * x[i];
  }
  if (!own) s += x[k];
  return s;
}

// Static forces of the `equilibrium` elements (actuators and cylinders initialised from
// equilibrium) by virtual work over the independent coordinates: with zd = 0,
// R_z^T (Q'_0 + sum_k F_k g_k) = 0, where Q'_0 holds gravity, loads and the other forces and g_k
// is the generalized force of a unit force of element k. With as many elements as degrees of
// freedom the system is square; with fewer it is solved in the least-squares sense (the
// remaining degrees of freedom must already be at rest, like the crane's hanging load), and
// d->static_residual says how well that holds.
static hy_status equilibrium_forces(hy_form* f, double* zd_keep) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  // the velocity degrees of freedom: with nonholonomic constraints fewer than the coordinates
  const int nz = m->sizes.nz, nf = d->ndof - m->sizes.nnh;
  int neqf = 0;
  for (int k = 0; k < m->sizes.nfrc; k++) {
    d->frc_static[k] = 0;
    neqf += m->frc_equilibrium[k] != 0;
  }
  if (neqf == 0) return HY_OK;
  if (neqf > 64 || neqf > nf) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "%d force elements are to hold the initial configuration (force: "
                   "equilibrium or initial: equilibrium), but the mechanism has %d degree(s) of "
                   "freedom: at most one per degree of freedom", neqf, nf);
  }
  memcpy(zd_keep, d->zd, sizeof(double) * (size_t)nz);
  memset(d->zd, 0, sizeof(double) * (size_t)nz);
  // Q'_0: every force but the unknown ones
  hy_mech_kinematics(m, d, f->mech);
  if (m->sizes.neq > 0) hy_mech_constraints(m, d, f->mech);
  hy_mech_force_geometry(m, d);
  if (m->sizes.nvol + m->sizes.nvlv + m->sizes.ncyl > 0) hy_hyd_evaluate(m, d, NULL);
  hy_form_forces(m, d);
  for (int k = 0; k < m->sizes.nfrc; k++) {
    if (m->frc_equilibrium[k]) d->frc_force[k] = 0;
  }
  hy_form_dynamics(f);
  if (m->sizes.neq > 0 && hy_form_factor_dependent(f) != HY_OK) {
    memcpy(d->zd, zd_keep, sizeof(double) * (size_t)nz);
    return HY_FAIL(&d->err, HY_ERR_SINGULAR, "the loop-closure Jacobian is singular at t = 0");
  }
  if (!hy_form_no_dense(f->ops)) hy_form_velocity_transform(f, 1);
  // E F = -R_z^T Q'_0 with E[:, e] = R_z^T g_k (nf x neqf), in least squares: E^T E F = E^T rhs
  directions dir;
  hy_status st = virtual_directions(f, &dir);
  if (st != HY_OK) {
    memcpy(d->zd, zd_keep, sizeof(double) * (size_t)nz);
    return st;
  }
  double* E = hy_form_scratch_doubles(f, (size_t)nf * (size_t)neqf);
  double* g_all = hy_form_scratch_doubles(f, (size_t)neqf * (size_t)nz);
  double* rhs = hy_form_scratch_doubles(f, (size_t)nf);
  double* N = hy_form_scratch_doubles(f, (size_t)neqf * (size_t)neqf);
  double* b = hy_form_scratch_doubles(f, (size_t)neqf);
  int* piv = hy_form_scratch_ints(f, (size_t)neqf);
  if (!E || !g_all || !rhs || !N || !b || !piv) return HY_ERR_ARENA;
  for (int a = 0; a < nf; a++) rhs[a] = -along(f, &dir, a, d->Q);
  int e = 0;
  int which[64];
  for (int k = 0; k < m->sizes.nfrc && e < 64; k++) {
    if (!m->frc_equilibrium[k]) continue;
    which[e] = k;
    double* g = g_all + (size_t)e * nz;
    hy_form_length_jacobian(m, d, k, g);
    for (int a = 0; a < nf; a++) E[a * neqf + e] = along(f, &dir, a, g);
    e++;
  }
  for (int i = 0; i < neqf; i++) {
    double s = 0;
    for (int a = 0; a < nf; a++) s += E[a * neqf + i] * rhs[a];
    b[i] = s;
    for (int j = 0; j < neqf; j++) {
      double v = 0;
      for (int a = 0; a < nf; a++) v += E[a * neqf + i] * E[a * neqf + j];
      N[i * neqf + j] = v;
    }
  }
  int col = -1;
  st = hy_lu_factor(neqf, N, piv, &col);
  memcpy(d->zd, zd_keep, sizeof(double) * (size_t)nz);
  if (st != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "force element '%s' cannot hold the mechanism: its line of action does no "
                   "virtual work on the degrees of freedom, or repeats another's",
                   m->frc_name + (size_t)which[col < 0 ? 0 : col] * HY_NAME_MAX);
  }
  hy_lu_solve(neqf, N, piv, b);
  for (int i = 0; i < neqf; i++) {
    const int k = which[i];
    double scale = 1;
    if (m->frc_type[k] != HY_FORCE_CYLINDER && m->frc_sig[k] >= 0) {
      scale = hy_signal_eval(m, m->frc_sig[k], 0.0);
    }
    if (scale == 0) {
      return HY_FAIL(&d->err, HY_ERR_MODEL,
                     "force element '%s': its signal is zero at t = 0, so no force can be "
                     "scaled to hold the mechanism", m->frc_name + (size_t)k * HY_NAME_MAX);
    }
    d->frc_static[k] = b[i] / scale;
  }
  return HY_OK;
}

// Largest generalized force R_z^T Q' (T^T Q' with nonholonomic constraints) left with zd = 0 at
// the current positions and forces. A formulation that keeps no dense matrix takes Q' alone and
// R_z's dependent rows (O(N) memory): the same numbers, bit for bit.
static hy_status static_residual(hy_form* f, double* zd_keep) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const int nz = m->sizes.nz;
  const size_t mark = hy_arena_mark(f->arena);
  memcpy(zd_keep, d->zd, sizeof(double) * (size_t)nz);
  memset(d->zd, 0, sizeof(double) * (size_t)nz);
  hy_form_evaluate_state(f);
  if (m->sizes.neq > 0) hy_form_factor_dependent(f);
  if (!hy_form_no_dense(f->ops)) hy_form_velocity_transform(f, 1);
  directions dir;
  const hy_status st = virtual_directions(f, &dir);
  d->static_residual = 0;
  for (int a = 0; a < dir.ncol && st == HY_OK; a++) {
    d->static_residual = fmax(d->static_residual, fabs(along(f, &dir, a, d->Q)));
  }
  memcpy(d->zd, zd_keep, sizeof(double) * (size_t)nz);
  hy_arena_release(f->arena, mark);
  return st;
}

// Closes the loops from the given coordinates keeping the independent ones, chooses the
// partition at the closed configuration and closes the velocities.
static hy_status close_initial_loops(hy_form* f, double* z_given) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const int nz = m->sizes.nz;
  memcpy(z_given, d->z, sizeof(double) * (size_t)nz);
  hy_status st = hy_form_close_positions(f);
  // A 3-D loop whose equations become redundant only once it is closed (a planar linkage on a
  // slewing column: the out-of-plane rows vanish with the gap d): at the given, rounded
  // coordinates the gap's terms count towards the rank, and the block of those rows turns
  // singular as the closure removes the gap. Choose again where the closure stopped.
  for (int again = 0; st != HY_OK && again < 2; again++) {
    hy_form_evaluate_state(f);
    HY_TRY(hy_form_select_partition(f));
    HY_TRY(hy_form_select_initial_partition(f));
    st = hy_form_close_positions(f);
  }
  if (st != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "the loops cannot be closed from the initial coordinates (largest "
                   "constraint residual %.3g): check z0 of the joints and the cut joints",
                   d->violation);
  }
  for (int i = 0; i < nz; i++) {
    d->assembly_shift = fmax(d->assembly_shift, fabs(d->z[i] - z_given[i]));
  }
  hy_form_evaluate_state(f);
  HY_TRY(hy_form_select_partition(f));
  d->rank = f->part.nsel;
  HY_TRY(hy_form_select_initial_partition(f));
  d->stats.npartition = 1;
  if (hy_form_factor_dependent(f) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR, "the loop-closure Jacobian is singular at t = 0");
  }
  f->part.pivot_ratio_sel = f->part.pivot_ratio;
  hy_form_close_velocities(f);
  return HY_OK;
}

// Chooses x_ad at the closed configuration (seed 003 Eqs. 45-52) and makes the initial
// velocities satisfy B zd = 0: those of x_ad follow from the others, as the loops' dependent
// velocities do.
static hy_status initial_nonholonomic(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_form_evaluate_state(f);
  if (m->sizes.neq > 0 && hy_form_factor_dependent(f) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR, "the loop-closure Jacobian is singular at t = 0");
  }
  HY_TRY(hy_form_nh_select(f));
  hy_form_nh_close_velocities(f);
  return HY_OK;
}

hy_status hy_form_initial_state(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const size_t mark = hy_arena_mark(f->arena);
  double* keep = hy_form_scratch_doubles(f, (size_t)m->sizes.nz);
  if (!keep) return HY_ERR_ARENA;
  d->stats.npartition = 0;
  f->skip_derivatives = 0;
  d->assembly_shift = 0;
  d->static_residual = 0;
  d->work_hyd = d->diss_visc = d->work_damp = d->diss_fric = 0;
  // pressures known so far (the rest follow from the equilibrium below), spools
  for (int v = 0; v < m->sizes.nvol; v++) d->p[v] = isnan(m->vol_p0[v]) ? 0 : m->vol_p0[v];
  // (the offsets of valves that start at rest come with the pressures, hy_hyd_initial_state)
  if (m->sizes.nvlv > 0) hy_hyd_spool_initial(m, d);
  for (int k = 0; k < m->sizes.nfric; k++) d->w[k] = 0;  // hy_hyd_initial_state sets them last
  hy_form_evaluate_state(f);
  // choose the partition, close the loops from the given coordinates keeping the independent
  // ones, and choose again at the closed configuration
  hy_status st = hy_form_select_partition(f);
  if (st == HY_OK) {
    d->rank = f->part.nsel;
    st = hy_form_select_initial_partition(f);
  }
  if (st == HY_OK && m->sizes.neq > 0) st = close_initial_loops(f, keep);
  if (st == HY_OK && m->sizes.nnh > 0) st = initial_nonholonomic(f);
  if (st == HY_OK) {
    d->stats.npartition = 1;
    if (m->sizes.ncyl > 0) {
      hy_form_evaluate_state(f);
      st = check_cylinders(m, d);
    }
  }
  if (st == HY_OK) st = equilibrium_forces(f, keep);
  if (st == HY_OK && m->sizes.nvol > 0) {
    st = hy_hyd_initial_state(m, d);
    if (st != HY_OK) d->err.code = st;
  }
  if (st == HY_OK) st = static_residual(f, keep);
  hy_arena_release(f->arena, mark);
  if (st != HY_OK) return st;
  return f->ops->start(f);
}

hy_status hy_form_restart(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_form_evaluate_state(f);
  if (m->sizes.neq > 0) {
    HY_TRY(hy_form_select_initial_partition(f));
    if (hy_form_factor_dependent(f) != HY_OK) {
      return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                     "the loop-closure Jacobian is singular at the state set at t = %g s",
                     d->time);
    }
    f->part.pivot_ratio_sel = f->part.pivot_ratio;
  }
  if (m->sizes.nnh > 0) HY_TRY(hy_form_nh_select(f));
  HY_TRY(f->ops->start(f));
  return hy_form_forward(f);
}
