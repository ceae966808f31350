// What every formulation shares: work sizing, force magnitudes, the full evaluation, the
// initial state (loop closure, static equilibrium forces, consistent accelerations), and the
// dispatch of the trapezoidal-Newton problem to the penalty or double-step formulation.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_impl.h"
#include "form/form_methods.h"

size_t hy_form_work_doubles(const hy_model* m) {
  const size_t nz = (size_t)m->sizes.nz, neq = (size_t)m->sizes.neq;
  const size_t nf = (size_t)m->sizes.nfrc, nv = (size_t)m->sizes.nvol;
  return 6 * nz + 4 * neq         // z_k, zd_k, zdd_k, hat_zd, hat_zdd, zdd_trap, lam_k, lam_hist
         + 4 * nz * nz            // A, Rz, Mr, W
         + 3 * nz                 // vec, vec2, S
         + neq * neq + neq * nz   // Pd, full
         + nz * nf                // G
         + hy_hyd_work_size(m)    // hydraulic derivatives
         + 5 * nv + (size_t)m->sizes.nvlv      // p_k, pd_k, hat_pd, pd_trap, pd_km1, U_k
         + (size_t)m->sizes.ncyl * nz         // jac_s
         + nz * nz + nv * nv + nv * (size_t)m->sizes.ncyl  // tg_S, tg_D, tg_G
         + (size_t)m->sizes.ncyl * (nz + nv)    // tg_Js, tg_Fp
         + (size_t)m->sizes.ncyl * (size_t)m->sizes.ncyl + nv;  // tg_k, tg_y
}

size_t hy_form_work_ints(const hy_model* m) {
  // piv, cperm, tg_Spiv; rowsel, pivd, rperm; tg_Dpiv
  return 3 * (size_t)m->sizes.nz + 3 * (size_t)m->sizes.neq + (size_t)m->sizes.nvol;
}

void hy_form_work_bind(const hy_model* m, hy_form_work* fw, double* p, int* q) {
  const size_t nz = (size_t)m->sizes.nz, neq = (size_t)m->sizes.neq;
  const size_t nf = (size_t)m->sizes.nfrc, nv = (size_t)m->sizes.nvol;
  double** dfields[] = {&fw->z_k, &fw->zd_k, &fw->zdd_k, &fw->hat_zd, &fw->hat_zdd,
                        &fw->zdd_trap, &fw->vec, &fw->vec2, &fw->S};
  for (size_t i = 0; i < sizeof dfields / sizeof dfields[0]; i++) {
    *dfields[i] = p;
    p += nz;
  }
  double** vfields[] = {&fw->p_k, &fw->pd_k, &fw->hat_pd, &fw->pd_trap, &fw->pd_km1};
  for (size_t i = 0; i < sizeof vfields / sizeof vfields[0]; i++) {
    *vfields[i] = p;
    p += nv;
  }
  fw->U_k = p;
  p += (size_t)m->sizes.nvlv;
  fw->lam_k = p;
  p += neq;
  fw->lam_hist = p;
  p += 3 * neq;
  fw->A = p;
  p += nz * nz;
  fw->Rz = p;
  p += nz * nz;
  fw->Mr = p;
  p += nz * nz;
  fw->W = p;
  p += nz * nz;
  fw->Pd = p;
  p += neq * neq;
  fw->full = p;
  p += neq * nz;
  fw->G = p;
  p += nz * nf;
  fw->jac_s = p;
  p += (size_t)m->sizes.ncyl * nz;
  fw->tg_S = p;
  p += nz * nz;
  fw->tg_D = p;
  p += nv * nv;
  fw->tg_G = p;
  p += nv * (size_t)m->sizes.ncyl;
  fw->tg_Js = p;
  p += (size_t)m->sizes.ncyl * nz;
  fw->tg_Fp = p;
  p += (size_t)m->sizes.ncyl * nv;
  fw->tg_k = p;
  p += (size_t)m->sizes.ncyl * (size_t)m->sizes.ncyl;
  fw->tg_y = p;
  p += nv;
  hy_hyd_work_bind(m, &fw->hyd, p);
  fw->piv = q;
  q += nz;
  fw->cperm = q;
  q += nz;
  fw->rowsel = q;
  q += neq;
  fw->pivd = q;
  q += neq;
  fw->rperm = q;
  q += neq;
  fw->tg_Spiv = q;
  q += nz;
  fw->tg_Dpiv = q;
}

void hy_form_forces(const hy_model* m, hy_data* d) {
  for (int k = 0; k < m->sizes.nfrc; k++) {
    if (m->frc_type[k] == HY_FORCE_CYLINDER) continue;  // set by the hydraulics
    double f = m->frc_equilibrium[k] ? d->frc_static[k] : m->frc_value[k];
    if (m->frc_sig[k] >= 0) f *= hy_signal_eval(m, m->frc_sig[k], d->time);
    d->frc_force[k] = f;
  }
}

void hy_form_evaluate(const hy_model* m, hy_data* d, hy_mech_work* mw, hy_hyd_work* hw) {
  if (m->sizes.nvlv > 0) hy_hyd_spool_rates(m, d);
  hy_mech_kinematics_pos(m, d, mw);
  hy_mech_outputs(m, d, mw);
  if (m->sizes.neq > 0) hy_mech_constraints_pos(m, d, mw);
  hy_form_evaluate_vel(m, d, mw, hw, 1);
}

void hy_form_evaluate_vel(const hy_model* m, hy_data* d, hy_mech_work* mw, hy_hyd_work* hw,
                          int with_bias) {
  hy_mech_kinematics_vel(m, d, mw);
  if (with_bias && m->sizes.neq > 0) hy_mech_constraints_bias(m, d, mw);
  hy_mech_force_geometry(m, d);
  if (m->sizes.nvol + m->sizes.nvlv + m->sizes.ncyl > 0) hy_hyd_evaluate(m, d, hw);
  hy_form_forces(m, d);
  hy_mech_dynamics(m, d, mw);
}

void hy_form_outputs(const hy_model* m, hy_data* d, hy_mech_work* mw) {
  hy_mech_outputs(m, d, mw);
  hy_mech_force_geometry(m, d);
  // the flows do not depend on the velocities and the step's pressure rates come from the
  // trapezoidal relation: only the cylinder forces change with the projected velocities
  hy_hyd_cylinder_forces(m, d);
  hy_form_forces(m, d);
  hy_mech_energy_with_work(m, d, mw);
}

// d|s|/dz of force element k into row (nz): the rates of its markers along its direction
// (needs the force geometry).
static HY_ALWAYS_INLINE void zero_n(int n, double* restrict r) {
  for (int i = 0; i < n; i++) r[i] = 0;
}

static void length_jacobian(const hy_model* m, const hy_data* d, int k, double* row) {
  HY_SIZED(m->sizes.nz, zero_n, row);
  const double* dir = d->frc_dir + 3 * k;
  const int mb = m->frc_mrk_b[k], ma = m->frc_mrk_a[k];
  hy_mech_add_point_along(m, d, m->mrk_body[mb], d->mrk_pos + 3 * mb, dir, 1.0, row);
  hy_mech_add_point_along(m, d, m->mrk_body[ma], d->mrk_pos + 3 * ma, dir, -1.0, row);
}

void hy_form_cylinder_jacobians(const hy_model* m, hy_data* d, hy_form_work* fw) {
  for (int c = 0; c < m->sizes.ncyl; c++) {
    length_jacobian(m, d, m->cyl_frc[c], fw->jac_s + (size_t)c * m->sizes.nz);
  }
}

// W = M' + sum over cylinders of k js js^T (k from the damping and stiffness along |s|).
static HY_ALWAYS_INLINE void cylinder_matrix_n(int nz, int nc, const double* restrict M,
                                               const double* restrict k,
                                               const double* restrict jac_s,
                                               double* restrict W) {
  for (int i = 0; i < nz * nz; i++) W[i] = M[i];
  for (int c = 0; c < nc; c++) {
    if (k[c] == 0) continue;
    const double* js = jac_s + (size_t)c * nz;
    for (int i = 0; i < nz; i++) {
      const double ki = k[c] * js[i];
      for (int j = 0; j < nz; j++) W[i * nz + j] += ki * js[j];
    }
  }
}

void hy_form_cylinder_matrix(const hy_model* m, const hy_data* d, hy_form_work* fw, double dt,
                             double* W) {
  // W = M' + dt/2 C + dt^2/4 K with C, K of the cylinders: their force depends on s_dot
  // (viscosity, damper damping) and at fixed pressures on s (damper stiffness), along d|s|/dz
  const int nc = m->sizes.ncyl;
  double* k = fw->tg_k;
  for (int c = 0; c < nc; c++) {
    k[c] = -0.5 * dt * fw->hyd.dF_dsd[c] - 0.25 * dt * dt * fw->hyd.dF_ds[c];
  }
  HY_SIZED(m->sizes.nz, cylinder_matrix_n, nc, d->M, k, fw->jac_s, W);
}

//----- initial state -------------------------------------------------------------------------

// Static forces of the `equilibrium` elements (actuators and cylinders initialised from
// equilibrium) by virtual work over the independent coordinates: with zd = 0,
// R_z^T (Q'_0 + sum_k F_k g_k) = 0, where Q'_0 holds gravity, loads and the other forces and g_k
// is the generalized force of a unit force of element k. With as many elements as degrees of
// freedom the system is square; with fewer it is solved in the least-squares sense (the
// remaining degrees of freedom must already be at rest, like the crane's hanging load), and
// d->static_residual says how well that holds.
static hy_status equilibrium_forces(const hy_model* m, hy_data* d, hy_form_work* fw,
                                    hy_mech_work* mw) {
  const int nz = m->sizes.nz, f = d->ndof;
  int neqf = 0;
  for (int k = 0; k < m->sizes.nfrc; k++) {
    d->frc_static[k] = 0;
    neqf += m->frc_equilibrium[k] != 0;
  }
  if (neqf == 0) return HY_OK;
  if (neqf > 64 || neqf > f) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "%d force elements are to hold the initial configuration (force: "
                   "equilibrium or initial: equilibrium), but the mechanism has %d degree(s) of "
                   "freedom: at most one per degree of freedom", neqf, f);
  }
  memcpy(fw->vec2, d->zd, sizeof(double) * (size_t)nz);
  memset(d->zd, 0, sizeof(double) * (size_t)nz);
  // Q'_0: every force but the unknown ones
  hy_mech_kinematics(m, d, mw);
  if (m->sizes.neq > 0) hy_mech_constraints(m, d, mw);
  hy_mech_force_geometry(m, d);
  if (m->sizes.nvol + m->sizes.nvlv + m->sizes.ncyl > 0) hy_hyd_evaluate(m, d, NULL);
  hy_form_forces(m, d);
  for (int k = 0; k < m->sizes.nfrc; k++) {
    if (m->frc_equilibrium[k]) d->frc_force[k] = 0;
  }
  hy_mech_dynamics(m, d, mw);
  if (m->sizes.neq > 0 && hy_form_factor_dependent(m, d, fw) != HY_OK) {
    memcpy(d->zd, fw->vec2, sizeof(double) * (size_t)nz);
    return HY_FAIL(&d->err, HY_ERR_SINGULAR, "the loop-closure Jacobian is singular at t = 0");
  }
  hy_form_velocity_transform(m, d, fw, 1);
  // E F = -R_z^T Q'_0 with E[:, e] = R_z^T g_k (f x neqf), in least squares: E^T E F = E^T rhs
  double* E = fw->G;  // the g_k are kept in fw->W meanwhile
  double* g_all = fw->W;
  double* rhs = fw->S;  // S is zero at rest and not needed here
  for (int a = 0; a < f; a++) {
    double s = 0;
    for (int i = 0; i < nz; i++) s += fw->Rz[i * f + a] * d->Q[i];
    rhs[a] = -s;
  }
  int e = 0;
  int which[64];
  for (int k = 0; k < m->sizes.nfrc && e < 64; k++) {
    if (!m->frc_equilibrium[k]) continue;
    which[e] = k;
    double* g = g_all + (size_t)e * nz;
    length_jacobian(m, d, k, g);
    for (int a = 0; a < f; a++) {
      double s = 0;
      for (int i = 0; i < nz; i++) s += fw->Rz[i * f + a] * g[i];
      E[a * neqf + e] = s;
    }
    e++;
  }
  double* N = fw->Mr;  // E^T E (neqf x neqf)
  double* b = fw->vec;
  for (int i = 0; i < neqf; i++) {
    double s = 0;
    for (int a = 0; a < f; a++) s += E[a * neqf + i] * rhs[a];
    b[i] = s;
    for (int j = 0; j < neqf; j++) {
      double v = 0;
      for (int a = 0; a < f; a++) v += E[a * neqf + i] * E[a * neqf + j];
      N[i * neqf + j] = v;
    }
  }
  int col = -1;
  hy_status st = hy_lu_factor(neqf, N, fw->piv, &col);
  memcpy(d->zd, fw->vec2, sizeof(double) * (size_t)nz);
  if (st != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "force element '%s' cannot hold the mechanism: its line of action does no "
                   "virtual work on the degrees of freedom, or repeats another's",
                   m->frc_name + (size_t)which[col < 0 ? 0 : col] * HY_NAME_MAX);
  }
  hy_lu_solve(neqf, N, fw->piv, b);
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

// Largest generalized force R_z^T Q' left with zd = 0 at the current positions and forces.
static void static_residual(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw) {
  const int nz = m->sizes.nz, f = d->ndof;
  memcpy(fw->vec2, d->zd, sizeof(double) * (size_t)nz);
  memset(d->zd, 0, sizeof(double) * (size_t)nz);
  hy_form_evaluate(m, d, mw, NULL);
  if (m->sizes.neq > 0) hy_form_factor_dependent(m, d, fw);
  hy_form_velocity_transform(m, d, fw, 1);
  d->static_residual = 0;
  for (int a = 0; a < f; a++) {
    double s = 0;
    for (int i = 0; i < nz; i++) s += fw->Rz[i * f + a] * d->Q[i];
    d->static_residual = fmax(d->static_residual, fabs(s));
  }
  memcpy(d->zd, fw->vec2, sizeof(double) * (size_t)nz);
}

// Multipliers that reproduce the constraint reactions of the current accelerations:
// Phi_s Phi_s^T lambda_s = Phi_s (Q' - M' zdd) on the independent equations s.
static hy_status reaction_multipliers(const hy_model* m, hy_data* d, hy_form_work* fw) {
  const int nz = m->sizes.nz, r = fw->nsel;
  memset(d->lam, 0, sizeof(double) * (size_t)m->sizes.neq);
  if (r == 0) return HY_OK;
  double* res = fw->vec;
  for (int i = 0; i < nz; i++) {
    double s = d->Q[i];
    for (int k = 0; k < nz; k++) s -= d->M[i * nz + k] * d->zdd[k];
    res[i] = s;
  }
  double* N = fw->Pd;  // r x r, refactored by the next hy_form_factor_dependent
  double* rhs = fw->vec2;
  for (int a = 0; a < r; a++) {
    const double* pa = d->phi_z + (size_t)fw->rowsel[a] * nz;
    double s = 0;
    for (int i = 0; i < nz; i++) s += pa[i] * res[i];
    rhs[a] = s;
    for (int b = 0; b < r; b++) {
      const double* pb = d->phi_z + (size_t)fw->rowsel[b] * nz;
      double v = 0;
      for (int i = 0; i < nz; i++) v += pa[i] * pb[i];
      N[a * r + b] = v;
    }
  }
  int col = -1;
  if (hy_chol_factor(r, N, &col) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR, "constraint Jacobian lost rank at t = %g s",
                   d->time);
  }
  hy_chol_solve(r, N, rhs);
  for (int a = 0; a < r; a++) d->lam[fw->rowsel[a]] = rhs[a];
  return hy_form_factor_dependent(m, d, fw) == HY_OK ? HY_OK : HY_ERR_SINGULAR;
}

hy_status hy_form_forward(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw) {
  hy_form_evaluate(m, d, mw, NULL);
  hy_mech_energy_with_work(m, d, mw);
  if (m->opt.formulation == HY_FORM_TREE) return hy_mech_accelerations(m, d, mw);
  if (m->sizes.neq > 0 && hy_form_factor_dependent(m, d, fw) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "the dependent block of the constraint Jacobian is singular at t = %g s",
                   d->time);
  }
  hy_form_velocity_transform(m, d, fw, 1);
  return hy_form_reduced_accelerations(m, d, fw);
}

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

hy_status hy_form_init(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw) {
  const int nz = m->sizes.nz;
  if (m->opt.formulation == HY_FORM_TREE && m->sizes.nvol + m->sizes.nvlv > 0) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "the tree formulation integrates mechanics only: a model with hydraulics "
                   "needs formulation penalty or double-step");
  }
  d->stats.npartition = 0;
  fw->nlam_hist = 0;
  fw->skip_derivatives = 0;
  fw->lam_contraction = 1;
  d->assembly_shift = 0;
  d->static_residual = 0;
  d->work_hyd = d->diss_visc = d->work_damp = 0;
  // pressures known so far (the rest follow from the equilibrium below), spools
  for (int v = 0; v < m->sizes.nvol; v++) d->p[v] = isnan(m->vol_p0[v]) ? 0 : m->vol_p0[v];
  for (int v = 0; v < m->sizes.nvlv; v++) d->U[v] = m->vlv_U0[v];
  hy_form_evaluate(m, d, mw, NULL);
  // choose the partition, close the loops from the given coordinates keeping the independent
  // ones, and choose again at the closed configuration
  hy_form_select_partition(m, d, fw);
  d->rank = fw->nsel;
  HY_TRY(hy_form_select_initial_partition(m, d, fw));
  if (m->sizes.neq > 0) {
    memcpy(fw->z_k, d->z, sizeof(double) * (size_t)nz);
    if (hy_form_close_positions(m, d, fw, mw) != HY_OK) {
      return HY_FAIL(&d->err, HY_ERR_MODEL,
                     "the loops cannot be closed from the initial coordinates (largest "
                     "constraint residual %.3g): check z0 of the joints and the cut joints",
                     d->violation);
    }
    for (int i = 0; i < nz; i++) {
      d->assembly_shift = fmax(d->assembly_shift, fabs(d->z[i] - fw->z_k[i]));
    }
    hy_form_evaluate(m, d, mw, NULL);
    hy_form_select_partition(m, d, fw);
    d->rank = fw->nsel;
    HY_TRY(hy_form_select_initial_partition(m, d, fw));
    d->stats.npartition = 1;
    if (hy_form_factor_dependent(m, d, fw) != HY_OK) {
      return HY_FAIL(&d->err, HY_ERR_SINGULAR, "the loop-closure Jacobian is singular at t = 0");
    }
    fw->pivot_ratio_sel = fw->pivot_ratio;
    hy_form_close_velocities(m, d, fw);
  }
  d->stats.npartition = 1;
  if (m->sizes.ncyl > 0) {
    hy_form_evaluate(m, d, mw, NULL);
    HY_TRY(check_cylinders(m, d));
  }
  HY_TRY(equilibrium_forces(m, d, fw, mw));
  if (m->sizes.nvol > 0) {
    hy_status st = hy_hyd_initial_state(m, d);
    if (st != HY_OK) {
      d->err.code = st;
      return st;
    }
  }
  static_residual(m, d, fw, mw);
  if (m->opt.formulation == HY_FORM_TREE) return HY_OK;
  HY_TRY(hy_form_forward(m, d, fw, mw));
  if (m->opt.formulation == HY_FORM_PENALTY) HY_TRY(reaction_multipliers(m, d, fw));
  return HY_OK;
}

//----- the trapezoidal-Newton problem --------------------------------------------------------

static int nmech(const hy_model* m, const hy_data* d) {
  return m->opt.formulation == HY_FORM_DOUBLE_STEP ? d->ndof : m->sizes.nz;
}

int hy_form_nx(const hy_model* m, const hy_data* d) { return nmech(m, d) + m->sizes.nvol; }

double hy_form_tol(const hy_model* m, const hy_data* d, int i) {
  return i < nmech(m, d) ? m->opt.tol_pos : m->opt.tol_p;
}

const char* hy_form_unknown_name(const hy_model* m, const hy_data* d, int i, int* is_pressure) {
  const int nm = nmech(m, d);
  *is_pressure = i >= nm;
  if (i >= nm) return m->vol_name + (size_t)(i - nm) * HY_NAME_MAX;
  const int z = m->opt.formulation == HY_FORM_DOUBLE_STEP ? d->part[i] : i;
  for (int j = 0; j < m->sizes.nbody; j++) {
    if (m->jnt_zadr[j] == z) return m->jnt_name + (size_t)j * HY_NAME_MAX;
  }
  return "?";
}

// Penalty: the starting multipliers of a step. Seed 000 (text after Eq. 19) starts from the final
// lambda of the previous step; the constraint reactions change smoothly, so extrapolating the
// final values of the last steps starts much closer, and the Eq. 19 updates have less to
// correct: the augmented-Lagrangian iteration converges to the same multipliers in fewer Newton
// iterations (docs/formulations.md). The extrapolation feeds back on itself through the part of
// the error that one update leaves (factor rho): a polynomial predictor of degree 1, 2, 3 keeps
// that feedback decaying for rho below 1, 0.5, 0.2, so the degree is chosen with a margin from
// the rho measured at the end of one of the last eight steps.
static void predict_multipliers(const hy_model* m, hy_data* d, const hy_form_work* fw) {
  const int neq = m->sizes.neq;
  const double rho = fw->lam_contraction;
  int degree = rho < 0.1 ? 3 : rho < 0.3 ? 2 : rho < 0.9 ? 1 : 0;
  if (degree > fw->nlam_hist) degree = fw->nlam_hist;
  const double* h1 = fw->lam_hist;
  const double* h2 = h1 + neq;
  const double* h3 = h2 + neq;
  for (int e = 0; e < neq; e++) {
    const double l0 = d->lam[e];
    switch (degree) {
      case 0: break;
      case 1: d->lam[e] = 2 * l0 - h1[e]; break;
      case 2: d->lam[e] = 3 * l0 - 3 * h1[e] + h2[e]; break;
      default: d->lam[e] = 4 * l0 - 6 * h1[e] + 4 * h2[e] - h3[e]; break;
    }
  }
}

// The predictors of Sect. 4 for the coordinates (z + dt zd + dt^2/2 zdd) and the terms of Eq. 34
static HY_ALWAYS_INLINE void predict_coordinates_n(int nz, double dt, hy_data* d,
                                                   hy_form_work* fw) {
  double* restrict z = d->z;
  const double* restrict zd = d->zd;
  const double* restrict zdd = d->zdd;
  for (int i = 0; i < nz; i++) {
    fw->z_k[i] = z[i];
    fw->zd_k[i] = zd[i];
    fw->zdd_k[i] = zdd[i];
    fw->hat_zd[i] = -(2 / dt * z[i] + zd[i]);
    fw->hat_zdd[i] = -(4 / (dt * dt) * z[i] + 4 / dt * zd[i] + zdd[i]);
    z[i] = z[i] + dt * zd[i] + 0.5 * dt * dt * zdd[i];
  }
}

// The pressure predictor (p_dot at t + dt/2 extrapolated from the last two rates) into xp, and
// the term of Eq. 34.
static HY_ALWAYS_INLINE void predict_pressures_n(int nv, double dt, const hy_data* d,
                                                 hy_form_work* fw, double* restrict xp) {
  const double* restrict p = d->p;
  const double* restrict pd = d->pd;
  for (int v = 0; v < nv; v++) {
    fw->p_k[v] = p[v];
    fw->pd_k[v] = pd[v];
    fw->hat_pd[v] = -(2 / dt * p[v] + pd[v]);
    xp[v] = p[v] + dt * (1.5 * pd[v] - 0.5 * fw->pd_km1[v]);
    fw->pd_km1[v] = pd[v];
  }
}

void hy_form_step_begin(const hy_model* m, hy_data* d, hy_form_work* fw, double dt, double* x) {
  const int nz = m->sizes.nz, nv = m->sizes.nvol;
  fw->dt = dt;
  fw->lam_pending = 0;
  HY_COPY(m->sizes.neq, fw->lam_k, d->lam);
  HY_COPY(m->sizes.nvlv, fw->U_k, d->U);
  if (m->opt.formulation == HY_FORM_PENALTY) predict_multipliers(m, d, fw);
  // Eq. 34, and the predictors z + dt zd + dt^2/2 zdd and p + dt p_dot of Sect. 4
  HY_SIZED(nz, predict_coordinates_n, dt, d, fw);
  const int nm = nmech(m, d);
  if (m->opt.formulation == HY_FORM_DOUBLE_STEP) {
    for (int c = 0; c < nm; c++) x[c] = d->z[d->part[c]];
  } else {
    HY_COPY(nz, x, d->z);
  }
  HY_SIZED(nv, predict_pressures_n, dt, d, fw, x + nm);
  // the spools obey a linear equation of their own: the trapezoidal rule solves it directly
  if (m->sizes.nvlv > 0) hy_hyd_spool_step(m, fw->U_k, d->time, dt, d->U, d->Ud);
}

static HY_ALWAYS_INLINE void set_pressures_n(int nv, double dt, const double* restrict xp,
                                             const double* restrict hat_pd, double* restrict p,
                                             double* restrict pd_trap) {
  for (int v = 0; v < nv; v++) {
    p[v] = xp[v];
    pd_trap[v] = 2 / dt * xp[v] + hat_pd[v];  // Eq. 33
  }
}

void hy_form_set_pressures(const hy_model* m, hy_data* d, hy_form_work* fw, const double* xp) {
  HY_SIZED(m->sizes.nvol, set_pressures_n, fw->dt, xp, fw->hat_pd, d->p, fw->pd_trap);
}

static HY_ALWAYS_INLINE void pressure_rows_n(int nv, double s, const double* restrict pd_trap,
                                             const double* restrict pd, double* restrict fp) {
  for (int v = 0; v < nv; v++) fp[v] = s * (pd_trap[v] - pd[v]);
}

void hy_form_pressure_rows(const hy_model* m, hy_data* d, hy_form_work* fw, double* fp) {
  // Eqs. 38-39, pressure block, scaled by 2/dt so that its diagonal is about one:
  // dt/2 (p_dot_trap - h)
  HY_SIZED(m->sizes.nvol, pressure_rows_n, 0.5 * fw->dt, fw->pd_trap, d->pd, fp);
}

// The tangent's pressure blocks (seed 000 Eqs. 38-39 differentiated) from the hydraulic
// derivatives of the evaluation the tangent is formed at. Pressure rows:
// f_p = dt/2 (2/dt p + hat - h(p, s, s_dot)), so D = df_p/dp = I - dt/2 dh/dp and
// df_p/dz = G Js with G = -dt/2 (dh/ds + 2/dt dh/ds_dot) (the change of Js with z is left out).
// Mechanical rows: f_z = dt^2/4 (... - Js^T F), so df_z/dp = -dt^2/4 Js^T dF/dp.
static HY_ALWAYS_INLINE void pressure_blocks_n(int nv, int nc, double dt, const hy_hyd_work* hw,
                                               double* restrict D, double* restrict G) {
  for (int v = 0; v < nv; v++) {
    for (int w = 0; w < nv; w++) {
      D[v * nv + w] = (v == w ? 1.0 : 0.0) - 0.5 * dt * hw->dpd_dp[v * nv + w];
    }
    for (int c = 0; c < nc; c++) {
      G[v * nc + c] = -0.5 * dt * (hw->dpd_ds[v * nc + c] + 2 / dt * hw->dpd_dsd[v * nc + c]);
    }
  }
}

static void pressure_blocks(const hy_model* m, hy_form_work* fw) {
  HY_SIZED(m->sizes.nvol, pressure_blocks_n, m->sizes.ncyl, fw->dt, &fw->hyd, fw->tg_D, fw->tg_G);
}

// The mechanical block (nm x nm) into fw->tg_S, the cylinder Jacobians in the unknowns into
// fw->tg_Js and the pressure blocks, all at the last residual evaluation.
static void tangent_blocks(const hy_model* m, hy_data* d, hy_form_work* fw) {
  if (m->opt.formulation == HY_FORM_DOUBLE_STEP) {
    hy_doublestep_tangent_mech(m, d, fw, fw->tg_S);
  } else {
    hy_penalty_tangent_mech(m, d, fw, fw->tg_S);
  }
  if (m->sizes.nvol > 0) pressure_blocks(m, fw);
}

void hy_form_tangent(const hy_model* m, hy_data* d, hy_form_work* fw, double* J) {
  const int nm = nmech(m, d), nv = m->sizes.nvol, nc = m->sizes.ncyl, nx = nm + nv;
  const double s = -0.25 * fw->dt * fw->dt;
  tangent_blocks(m, d, fw);
  for (int i = 0; i < nm; i++) {
    double* row = J + (size_t)i * nx;
    memcpy(row, fw->tg_S + (size_t)i * nm, sizeof(double) * (size_t)nm);
    for (int w = 0; w < nv; w++) {
      double sum = 0;
      for (int c = 0; c < nc; c++) sum += fw->tg_Js[c * nm + i] * fw->hyd.dF_dp[c * nv + w];
      row[nm + w] = s * sum;
    }
  }
  for (int v = 0; v < nv; v++) {
    double* row = J + (size_t)(nm + v) * nx;
    for (int i = 0; i < nm; i++) {
      double sum = 0;
      for (int c = 0; c < nc; c++) sum += fw->tg_G[v * nc + c] * fw->tg_Js[c * nm + i];
      row[i] = sum;
    }
    memcpy(row + nm, fw->tg_D + (size_t)v * nv, sizeof(double) * (size_t)nv);
  }
}

// Y = D^-1 G column by column (G row-major, nv x nc, overwritten by Y) and K = dF/dp Y.
static HY_ALWAYS_INLINE void eliminate_pressures_n(int nv, int nc, hy_form_work* fw,
                                                   double* restrict K) {
  double* restrict y = fw->tg_y;
  double* restrict G = fw->tg_G;
  const double* restrict Fp = fw->hyd.dF_dp;
  for (int c = 0; c < nc; c++) {
    for (int v = 0; v < nv; v++) y[v] = G[v * nc + c];
    hy_lu_solve(nv, fw->tg_D, fw->tg_Dpiv, y);
    for (int v = 0; v < nv; v++) G[v * nc + c] = y[v];
  }
  for (int a = 0; a < nc; a++) {
    for (int b = 0; b < nc; b++) {
      double k = 0;
      for (int v = 0; v < nv; v++) k += Fp[a * nv + v] * G[v * nc + b];
      K[a * nc + b] = k;
    }
  }
  for (int i = 0; i < nc * nv; i++) fw->tg_Fp[i] = Fp[i];
}

// S += s Js^T K Js
static HY_ALWAYS_INLINE void schur_update_n(int nm, int nc, double s, const double* restrict K,
                                            const double* restrict Js, double* restrict S) {
  for (int a = 0; a < nc; a++) {
    for (int b = 0; b < nc; b++) {
      const double k = s * K[a * nc + b];
      if (k == 0) continue;
      const double* ja = Js + (size_t)a * nm;
      const double* jb = Js + (size_t)b * nm;
      for (int i = 0; i < nm; i++) {
        const double ki = k * ja[i];
        for (int j = 0; j < nm; j++) S[i * nm + j] += ki * jb[j];
      }
    }
  }
}

// The tangent of seed 000 Eqs. 38-39 (Eq. 37's J) in blocks. The pressures couple to the
// mechanics only through the ncyl cylinder lengths (Eqs. 29 and 44), so they are
// eliminated in blocks instead of factoring the whole tangent: with Y = D^-1 G, the Schur
// complement of D is S = A_m - (df_z/dp) D^-1 (df_p/dz) = A_m + dt^2/4 Js^T (dF/dp Y) Js, a
// rank-ncyl update of the mechanical block. Besides being cheaper, the mechanical and pressure
// rows, whose scales differ by many orders of magnitude, are then never pivoted against each
// other.
hy_status hy_form_factor_tangent(const hy_model* m, hy_data* d, hy_form_work* fw, int* sing) {
  const int nm = nmech(m, d), nv = m->sizes.nvol, nc = m->sizes.ncyl;
  tangent_blocks(m, d, fw);
  int col = -1;
  if (nv > 0) {
    if (hy_lu_factor(nv, fw->tg_D, fw->tg_Dpiv, &col) != HY_OK) {
      *sing = nm + (col < 0 ? 0 : col);
      return HY_WARN_SINGULAR;
    }
    HY_SIZED(nv, eliminate_pressures_n, nc, fw, fw->tg_k);
    HY_SIZED(nm, schur_update_n, nc, 0.25 * fw->dt * fw->dt, fw->tg_k, fw->tg_Js, fw->tg_S);
  }
  if (hy_lu_factor(nm, fw->tg_S, fw->tg_Spiv, &col) != HY_OK) {
    *sing = col < 0 ? 0 : col;
    return HY_WARN_SINGULAR;
  }
  return HY_OK;
}

// The block solve in two sized halves: first the pressures' part of the right-hand side of the
// mechanical rows, then the back-substitution of the pressures.
static HY_ALWAYS_INLINE void solve_pressures_first_n(int nv, int nm, int nc, double s,
                                                     const hy_form_work* fw, double* restrict b) {
  // t = D^-1 b_p, then b_m - (df_z/dp) t = b_m + dt^2/4 Js^T dF/dp t
  double* restrict bp = b + nm;
  hy_lu_solve(nv, fw->tg_D, fw->tg_Dpiv, bp);
  for (int c = 0; c < nc; c++) {
    double u = 0;
    for (int v = 0; v < nv; v++) u += fw->tg_Fp[c * nv + v] * bp[v];
    u *= s;
    const double* jc = fw->tg_Js + (size_t)c * nm;
    for (int i = 0; i < nm; i++) b[i] += u * jc[i];
  }
}

static HY_ALWAYS_INLINE void solve_pressures_last_n(int nv, int nm, int nc,
                                                    const hy_form_work* fw, double* restrict b) {
  // x_p = t - Y Js x_m
  double* restrict bp = b + nm;
  for (int c = 0; c < nc; c++) {
    const double* jc = fw->tg_Js + (size_t)c * nm;
    double w = 0;
    for (int i = 0; i < nm; i++) w += jc[i] * b[i];
    for (int v = 0; v < nv; v++) bp[v] -= fw->tg_G[v * nc + c] * w;
  }
}

void hy_form_solve_tangent(const hy_model* m, const hy_data* d, const hy_form_work* fw,
                           double* b) {
  const int nm = nmech(m, d), nv = m->sizes.nvol, nc = m->sizes.ncyl;
  if (nv > 0) HY_SIZED2(nv, nm, solve_pressures_first_n, nc, 0.25 * fw->dt * fw->dt, fw, b);
  hy_lu_solve(nm, fw->tg_S, fw->tg_Spiv, b);
  if (nv > 0) HY_SIZED2(nv, nm, solve_pressures_last_n, nc, fw, b);
}

// At the end of a step the coordinates have moved by the last Newton correction since the last
// evaluation. In nearly every step that correction is far below the tolerance (1e-5 of it on
// the seed mechanisms, 1e-12 rad). The position stages of the kinematics and constraints, and
// the loop closure, are then not repeated for it: Phi (seed 000 Eq. 18) moves by Phi_z times
// the change, exact to its square (~1e-24 m), and the rest keeps the evaluated positions. The
// coordinates themselves always take the full correction: even a 1e-11 rad left out would
// enter the velocities and accelerations of the trapezoidal rule (as 2/dt and 4/dt^2 times it),
// which nothing damps.
#define KEEP_POSITIONS 1e-3

// Phi += Phi_z dz, and the largest |Phi|
static HY_ALWAYS_INLINE void move_phi_n(int nz, int neq, const double* restrict dz, hy_data* d) {
  double viol = 0;
  for (int e = 0; e < neq; e++) {
    const double* restrict row = d->phi_z + (size_t)e * nz;
    double s = d->phi[e];
    for (int i = 0; i < nz; i++) s += row[i] * dz[i];
    d->phi[e] = s;
    const double a = fabs(s);
    if (a > viol) viol = a;
  }
  d->violation = viol;
}

int hy_form_keep_positions(const hy_model* m, hy_data* d, const double* dz) {
  const int nz = m->sizes.nz;
  const double lim = KEEP_POSITIONS * m->opt.tol_pos;
  for (int i = 0; i < nz; i++) {
    if (!(fabs(dz[i]) <= lim)) return 0;
  }
  HY_SIZED(nz, move_phi_n, m->sizes.neq, dz, d);
  return 1;
}

hy_status hy_form_residual(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                           const double* x, double* f) {
  if (m->opt.formulation == HY_FORM_DOUBLE_STEP) return hy_doublestep_residual(m, d, fw, mw, x, f);
  return hy_penalty_residual(m, d, fw, mw, x, f);
}

void hy_form_iteration_done(const hy_model* m, hy_data* d, hy_form_work* fw) {
  (void)d;
  if (m->opt.formulation == HY_FORM_PENALTY && m->sizes.neq > 0) fw->lam_pending = 1;
}

hy_status hy_form_step_end(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                           const double* x) {
  hy_status st = m->opt.formulation == HY_FORM_DOUBLE_STEP ? hy_doublestep_end(m, d, fw, mw, x)
                                                           : hy_penalty_end(m, d, fw, mw, x);
  if (st != HY_OK) return st;
  if (m->opt.formulation == HY_FORM_PENALTY) {
    const size_t neq = (size_t)m->sizes.neq;
    memmove(fw->lam_hist + neq, fw->lam_hist, sizeof(double) * 2 * neq);
    memcpy(fw->lam_hist, fw->lam_k, sizeof(double) * neq);
    if (fw->nlam_hist < 3) fw->nlam_hist++;
  }
  // the pressure rates of the trapezoidal relation carry the history to the next step
  memcpy(d->pd, fw->pd_trap, sizeof(double) * (size_t)m->sizes.nvol);
  return HY_OK;
}

void hy_form_step_abort(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw) {
  const int nz = m->sizes.nz;
  memcpy(d->z, fw->z_k, sizeof(double) * (size_t)nz);
  memcpy(d->zd, fw->zd_k, sizeof(double) * (size_t)nz);
  memcpy(d->zdd, fw->zdd_k, sizeof(double) * (size_t)nz);
  memcpy(d->lam, fw->lam_k, sizeof(double) * (size_t)m->sizes.neq);
  memcpy(d->p, fw->p_k, sizeof(double) * (size_t)m->sizes.nvol);
  memcpy(d->U, fw->U_k, sizeof(double) * (size_t)m->sizes.nvlv);
  fw->lam_pending = 0;
  hy_form_evaluate(m, d, mw, NULL);
  hy_mech_energy_with_work(m, d, mw);
  memcpy(d->pd, fw->pd_k, sizeof(double) * (size_t)m->sizes.nvol);
}
