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
  const size_t nf = (size_t)m->sizes.nfrc;
  return 6 * nz + neq             // z_k, zd_k, zdd_k, hat_zd, hat_zdd, zdd_trap, lam_k
         + 3 * nz * nz            // A, Rz, Mr
         + 3 * nz                 // vec, vec2, S
         + neq * neq + neq * nz   // Pd, full
         + nz * (nf + 3);         // G, one point Jacobian
}

size_t hy_form_work_ints(const hy_model* m) {
  return 2 * (size_t)m->sizes.nz + 3 * (size_t)m->sizes.neq;  // piv, cperm; rowsel, pivd, rperm
}

void hy_form_work_bind(const hy_model* m, hy_form_work* fw, double* p, int* q) {
  const size_t nz = (size_t)m->sizes.nz, neq = (size_t)m->sizes.neq;
  const size_t nf = (size_t)m->sizes.nfrc;
  double** dfields[] = {&fw->z_k, &fw->zd_k, &fw->zdd_k, &fw->hat_zd, &fw->hat_zdd,
                        &fw->zdd_trap, &fw->vec, &fw->vec2, &fw->S};
  for (size_t i = 0; i < sizeof dfields / sizeof dfields[0]; i++) {
    *dfields[i] = p;
    p += nz;
  }
  fw->lam_k = p;
  p += neq;
  fw->A = p;
  p += nz * nz;
  fw->Rz = p;
  p += nz * nz;
  fw->Mr = p;
  p += nz * nz;
  fw->Pd = p;
  p += neq * neq;
  fw->full = p;
  p += neq * nz;
  fw->G = p;
  p += nz * nf;
  fw->jac = p;
  fw->piv = q;
  q += nz;
  fw->cperm = q;
  q += nz;
  fw->rowsel = q;
  q += neq;
  fw->pivd = q;
  q += neq;
  fw->rperm = q;
}

void hy_form_forces(const hy_model* m, hy_data* d) {
  for (int k = 0; k < m->sizes.nfrc; k++) {
    double f = m->frc_equilibrium[k] ? d->frc_static[k] : m->frc_value[k];
    if (m->frc_sig[k] >= 0) f *= hy_signal_eval(m, m->frc_sig[k], d->time);
    d->frc_force[k] = f;
  }
}

void hy_form_evaluate(const hy_model* m, hy_data* d, hy_mech_work* mw) {
  hy_mech_kinematics(m, d, mw);
  if (m->sizes.neq > 0) hy_mech_constraints(m, d, mw);
  hy_mech_force_geometry(m, d);
  hy_form_forces(m, d);
  hy_mech_dynamics(m, d, mw);
  hy_mech_energy(m, d);
}

//----- initial state -------------------------------------------------------------------------

// Static forces of the `equilibrium` elements by virtual work over the independent coordinates:
// with zd = 0, R_z^T (Q'_0 + sum_k F_k g_k) = 0, where Q'_0 holds gravity, loads and the other
// forces and g_k is the generalized force of a unit force of element k. One equation per degree
// of freedom, so there must be as many equilibrium elements as degrees of freedom.
static hy_status equilibrium_forces(const hy_model* m, hy_data* d, hy_form_work* fw,
                                    hy_mech_work* mw) {
  const int nz = m->sizes.nz, f = d->ndof;
  int neqf = 0;
  for (int k = 0; k < m->sizes.nfrc; k++) {
    d->frc_static[k] = 0;
    neqf += m->frc_equilibrium[k] != 0;
  }
  if (neqf == 0) return HY_OK;
  if (neqf > 64) {
    return HY_FAIL(&d->err, HY_ERR_MODEL, "more than 64 force elements with force: equilibrium");
  }
  if (neqf != f) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "%d force element(s) with force: equilibrium, but the mechanism has %d "
                   "degree(s) of freedom: a static equilibrium needs one force per degree of "
                   "freedom", neqf, f);
  }
  memcpy(fw->vec2, d->zd, sizeof(double) * (size_t)nz);
  memset(d->zd, 0, sizeof(double) * (size_t)nz);
  hy_form_evaluate(m, d, mw);
  if (m->sizes.neq > 0 && hy_form_factor_dependent(m, d, fw) != HY_OK) {
    memcpy(d->zd, fw->vec2, sizeof(double) * (size_t)nz);
    return HY_FAIL(&d->err, HY_ERR_SINGULAR, "the loop-closure Jacobian is singular at t = 0");
  }
  hy_form_velocity_transform(m, d, fw);
  // square system E F = -R_z^T Q'_0, E[:, e] = R_z^T g_k; built in fw->Mr
  double* E = fw->Mr;
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
    double* g = fw->G + (size_t)e * nz;
    memset(g, 0, sizeof(double) * (size_t)nz);
    const int ends[2] = {m->frc_mrk_b[k], m->frc_mrk_a[k]};
    for (int s = 0; s < 2; s++) {
      const int mk = ends[s];
      hy_mech_point_jacobian(m, d, m->mrk_body[mk], d->mrk_pos + 3 * mk, fw->jac);
      const double sign = s == 0 ? 1.0 : -1.0;
      for (int i = 0; i < nz; i++) {
        for (int c = 0; c < 3; c++) g[i] += sign * d->frc_dir[3 * k + c] * fw->jac[c * nz + i];
      }
    }
    for (int a = 0; a < f; a++) {
      double s = 0;
      for (int i = 0; i < nz; i++) s += fw->Rz[i * f + a] * g[i];
      E[a * f + e] = s;
    }
    e++;
  }
  int col = -1;
  hy_status st = hy_lu_factor(f, E, fw->piv, &col);
  memcpy(d->zd, fw->vec2, sizeof(double) * (size_t)nz);
  if (st != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_MODEL,
                   "force element '%s' cannot hold the mechanism: its line of action does no "
                   "virtual work on the degrees of freedom",
                   m->frc_name + (size_t)which[col < 0 ? 0 : col] * HY_NAME_MAX);
  }
  hy_lu_solve(f, E, fw->piv, rhs);
  for (int a = 0; a < f; a++) {
    const int k = which[a];
    double scale = 1;
    if (m->frc_sig[k] >= 0) scale = hy_signal_eval(m, m->frc_sig[k], 0.0);
    if (scale == 0) {
      return HY_FAIL(&d->err, HY_ERR_MODEL,
                     "force element '%s': its signal is zero at t = 0, so no force can be "
                     "scaled to hold the mechanism", m->frc_name + (size_t)k * HY_NAME_MAX);
    }
    d->frc_static[k] = rhs[a] / scale;
  }
  return HY_OK;
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
  hy_form_evaluate(m, d, mw);
  if (m->opt.formulation == HY_FORM_TREE) return hy_mech_accelerations(m, d, mw);
  if (m->sizes.neq > 0 && hy_form_factor_dependent(m, d, fw) != HY_OK) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "the dependent block of the constraint Jacobian is singular at t = %g s",
                   d->time);
  }
  hy_form_velocity_transform(m, d, fw);
  return hy_form_reduced_accelerations(m, d, fw);
}

hy_status hy_form_init(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw) {
  const int nz = m->sizes.nz;
  d->stats.npartition = 0;
  d->assembly_shift = 0;
  hy_form_evaluate(m, d, mw);
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
    hy_form_evaluate(m, d, mw);
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
  HY_TRY(equilibrium_forces(m, d, fw, mw));
  if (m->opt.formulation == HY_FORM_TREE) return HY_OK;
  HY_TRY(hy_form_forward(m, d, fw, mw));
  if (m->opt.formulation == HY_FORM_PENALTY) HY_TRY(reaction_multipliers(m, d, fw));
  return HY_OK;
}

//----- the trapezoidal-Newton problem --------------------------------------------------------

int hy_form_nx(const hy_model* m, const hy_data* d) {
  return m->opt.formulation == HY_FORM_DOUBLE_STEP ? d->ndof : m->sizes.nz;
}

void hy_form_step_begin(const hy_model* m, hy_data* d, hy_form_work* fw, double dt, double* x) {
  const int nz = m->sizes.nz;
  fw->dt = dt;
  fw->lam_pending = 0;
  memcpy(fw->z_k, d->z, sizeof(double) * (size_t)nz);
  memcpy(fw->zd_k, d->zd, sizeof(double) * (size_t)nz);
  memcpy(fw->zdd_k, d->zdd, sizeof(double) * (size_t)nz);
  memcpy(fw->lam_k, d->lam, sizeof(double) * (size_t)m->sizes.neq);
  // Eq. 34, and the predictor z + dt zd + dt^2/2 zdd of Sect. 4 for every coordinate
  for (int i = 0; i < nz; i++) {
    const double z = d->z[i], zd = d->zd[i], zdd = d->zdd[i];
    fw->hat_zd[i] = -(2 / dt * z + zd);
    fw->hat_zdd[i] = -(4 / (dt * dt) * z + 4 / dt * zd + zdd);
    d->z[i] = z + dt * zd + 0.5 * dt * dt * zdd;
  }
  if (m->opt.formulation == HY_FORM_DOUBLE_STEP) {
    for (int c = 0; c < d->ndof; c++) x[c] = d->z[d->part[c]];
  } else {
    memcpy(x, d->z, sizeof(double) * (size_t)nz);
  }
}

hy_status hy_form_residual(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                           const double* x, double* f) {
  if (m->opt.formulation == HY_FORM_DOUBLE_STEP) return hy_doublestep_residual(m, d, fw, mw, x, f);
  return hy_penalty_residual(m, d, fw, mw, x, f);
}

void hy_form_tangent(const hy_model* m, hy_data* d, hy_form_work* fw, double* J) {
  if (m->opt.formulation == HY_FORM_DOUBLE_STEP) {
    hy_doublestep_tangent(m, d, fw, J);
  } else {
    hy_penalty_tangent(m, d, fw, J);
  }
}

void hy_form_iteration_done(const hy_model* m, hy_data* d, hy_form_work* fw) {
  (void)d;
  if (m->opt.formulation == HY_FORM_PENALTY && m->sizes.neq > 0) fw->lam_pending = 1;
}

hy_status hy_form_step_end(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                           const double* x) {
  if (m->opt.formulation == HY_FORM_DOUBLE_STEP) return hy_doublestep_end(m, d, fw, mw, x);
  return hy_penalty_end(m, d, fw, mw, x);
}

void hy_form_step_abort(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw) {
  const int nz = m->sizes.nz;
  memcpy(d->z, fw->z_k, sizeof(double) * (size_t)nz);
  memcpy(d->zd, fw->zd_k, sizeof(double) * (size_t)nz);
  memcpy(d->zdd, fw->zdd_k, sizeof(double) * (size_t)nz);
  memcpy(d->lam, fw->lam_k, sizeof(double) * (size_t)m->sizes.neq);
  fw->lam_pending = 0;
  hy_form_evaluate(m, d, mw);
}
