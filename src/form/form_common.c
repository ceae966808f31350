// What every formulation shares: force magnitudes, the evaluation stages, the outputs of an
// accepted state, the cylinders' terms of the tangent, kept position stages, the open-tree
// rows, and the sizes and scratch of the formulation context.
#include "form/form_common.h"

#include <math.h>
#include <string.h>

#include "core/core.h"

//----- evaluation ------------------------------------------------------------------------------

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

// The velocity stages, force geometry, hydraulics and force magnitudes: everything an O(N)
// formulation's accelerations need (hy_form_ops.no_mass_matrix).
static void evaluate_forces(const hy_model* m, hy_data* d, hy_mech_work* mw, hy_hyd_work* hw,
                            int with_bias) {
  hy_mech_kinematics_vel(m, d, mw);
  if (with_bias && m->sizes.neq > 0) hy_mech_constraints_bias(m, d, mw);
  if (m->sizes.nnh > 0) hy_mech_nonholonomic(m, d, mw);
  hy_mech_force_geometry(m, d);
  if (m->sizes.nvol + m->sizes.nvlv + m->sizes.ncyl > 0) hy_hyd_evaluate(m, d, hw);
  hy_form_forces(m, d);
}

void hy_form_evaluate_vel(const hy_model* m, hy_data* d, hy_mech_work* mw, hy_hyd_work* hw,
                          int with_bias) {
  evaluate_forces(m, d, mw, hw, with_bias);
  hy_mech_dynamics(m, d, mw);
}

void hy_form_dynamics(hy_form* f) {
  if (hy_form_no_dense(f->ops)) {
    hy_mech_forces(f->m, f->d, f->mech);
  } else {
    hy_mech_dynamics(f->m, f->d, f->mech);
  }
}

void hy_form_evaluate_state(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  if (!hy_form_no_dense(f->ops)) {
    hy_form_evaluate(m, d, f->mech, NULL);
    return;
  }
  // hy_form_evaluate's stages, with Q' alone at their end
  if (m->sizes.nvlv > 0) hy_hyd_spool_rates(m, d);
  hy_mech_kinematics_pos(m, d, f->mech);
  hy_mech_outputs(m, d, f->mech);
  if (m->sizes.neq > 0) hy_mech_constraints_pos(m, d, f->mech);
  evaluate_forces(m, d, f->mech, NULL, 1);
  hy_mech_forces(m, d, f->mech);
}

void hy_form_powers(hy_form* f) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  hy_form_power* p = &f->power;
  p->total = hy_mech_load_power(m, d, f->mech);
  p->hyd = p->visc = p->damp = p->fric = 0;
  for (int c = 0; c < m->sizes.ncyl; c++) {
    const double v = d->frc_rate[m->cyl_frc[c]];
    p->hyd += d->cyl_F_hyd[c] * v;
    p->visc -= d->cyl_F_visc[c] * v;  // dissipated: >= 0
    p->damp += d->cyl_F_damp[c] * v;
    p->fric += d->cyl_F_fric[c] * v;
  }
}

void hy_form_outputs(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_mech_outputs(m, d, f->mech);
  hy_mech_force_geometry(m, d);
  // the flows do not depend on the velocities and the step's pressure rates come from the
  // trapezoidal relation: only the cylinder forces change with the projected velocities
  hy_hyd_cylinder_forces(m, d);
  hy_form_forces(m, d);
  hy_mech_energy_with_work(m, d, f->mech);
  hy_form_powers(f);
}

// The first non-finite entry of v (n), or -1.
static int first_nonfinite(const double* v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) return i;
  }
  return -1;
}

hy_status hy_form_forward(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const int nz = m->sizes.nz;
  int bad = first_nonfinite(d->z, nz);
  if (bad < 0) bad = first_nonfinite(d->zd, nz);
  if (bad >= 0) {
    return HY_FAIL(&d->err, HY_ERR_NAN, "non-finite state at t = %g s (joint '%s')", d->time,
                   hy_form_coord_name(m, bad));
  }
  bad = first_nonfinite(d->p, m->sizes.nvol);
  if (bad >= 0) {
    return HY_FAIL(&d->err, HY_ERR_NAN, "non-finite pressure at t = %g s (volume '%s')", d->time,
                   m->vol_name + (size_t)bad * HY_NAME_MAX);
  }
  // at every evaluation of the ODE: an explicit step stops in the stage that nears the singular
  // mass matrix of a Cardan chart
  if (m->sizes.ngimbal > 0) HY_TRY(hy_mech_gimbal_check(m, d));
  d->stats.nforward++;
  if (f->ops->no_mass_matrix) {
    // hy_form_evaluate without M' and Q'
    if (m->sizes.nvlv > 0) hy_hyd_spool_rates(m, d);
    hy_mech_kinematics_pos(m, d, f->mech);
    hy_mech_outputs(m, d, f->mech);
    if (m->sizes.neq > 0) hy_mech_constraints_pos(m, d, f->mech);  // the violation, reported
    if (f->ops->velocities) HY_TRY(f->ops->velocities(f));
    evaluate_forces(m, d, f->mech, NULL, 1);
  } else {
    hy_form_evaluate(m, d, f->mech, NULL);
  }
  hy_mech_energy_with_work(m, d, f->mech);
  HY_TRY(f->ops->accelerations(f));
  hy_form_powers(f);
  return HY_OK;
}

void hy_form_refresh(hy_form* f) {
  hy_form_evaluate_state(f);
  hy_mech_energy_with_work(f->m, f->d, f->mech);
  hy_form_powers(f);
}

//----- the cylinders in the tangent ------------------------------------------------------------

static HY_ALWAYS_INLINE void zero_n(int n, double* restrict r) {
  for (int i = 0; i < n; i++) r[i] = 0;
}

// The rates of force element k's markers along its direction.
void hy_form_length_jacobian(const hy_model* m, const hy_data* d, int k, double* row) {
  HY_SIZED(m->sizes.nz, zero_n, row);
  const double* dir = d->frc_dir + 3 * k;
  const int mb = m->frc_mrk_b[k], ma = m->frc_mrk_a[k];
  hy_mech_add_point_along(m, d, m->mrk_body[mb], d->mrk_pos + 3 * mb, dir, 1.0, row);
  hy_mech_add_point_along(m, d, m->mrk_body[ma], d->mrk_pos + 3 * ma, dir, -1.0, row);
}

void hy_form_cylinder_jacobians(hy_form* f) {
  const hy_model* m = f->m;
  for (int c = 0; c < m->sizes.ncyl; c++) {
    hy_form_length_jacobian(m, f->d, m->cyl_frc[c], f->jac_s + (size_t)c * m->sizes.nz);
  }
}

// W = M' + sum over cylinders of k js js^T (k from the damping and stiffness along |s|).
static HY_ALWAYS_INLINE void cylinder_matrix_n(int nz, int nc, const double* restrict M,
                                               const double* restrict k,
                                               const double* restrict jac_s, double* restrict W) {
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

// Cylinders whose damping and stiffness terms are held in a local array; more go to the arena.
enum { CYL_LOCAL = 8 };

void hy_form_cylinder_matrix(hy_form* f, double* W) {
  // W = M' + w_vel C + w_pos K with C, K of the cylinders: their force depends on s_dot
  // (viscosity, damper damping) and at fixed pressures on s (damper stiffness), along d|s|/dz;
  // C also holds the joint dampers
  const hy_model* m = f->m;
  const int nc = m->sizes.ncyl;
  double loc[CYL_LOCAL];
  double* k = loc;
  const size_t mark = hy_arena_mark(f->arena);
  if (nc > CYL_LOCAL) {
    k = hy_form_scratch_doubles(f, (size_t)nc);
    if (!k) return;  // sized at data make: cannot happen (d->err says so if it did)
  }
  const double wv = -f->step.w_vel, wp = f->step.w_pos;
  for (int c = 0; c < nc; c++) k[c] = wv * f->hyd->dF_dsd[c] - wp * f->hyd->dF_ds[c];
  HY_SIZED(m->sizes.nz, cylinder_matrix_n, nc, f->d->M, k, f->jac_s, W);
  if (nc > CYL_LOCAL) hy_arena_release(f->arena, mark);
  // the joint dampers' C: dQ'_i/dzd_i = -c_i (docs/mechanics.md, "Joint damping")
  if (m->sizes.ndamp > 0) {
    const int nz = m->sizes.nz;
    for (int j = 0; j < m->sizes.nbody; j++) {
      const int zi = m->jnt_zadr[j];
      W[zi * nz + zi] += f->step.w_vel * m->jnt_damp[j];
    }
  }
}

//----- kept position stages ----------------------------------------------------------------

// At the end of a step the coordinates have moved by the last Newton correction since the last
// evaluation. In nearly every step that correction is far below the tolerance (1e-5 of it on
// the seed mechanisms, 1e-12 rad). The position stages of the kinematics and constraints, and
// the loop closure, are then not repeated for it: Phi (seed 000 Sect. 2.2) moves by Phi_z times
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

int hy_form_keep_positions(const hy_form* f, const double* dz) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const int nz = m->sizes.nz;
  const double lim = KEEP_POSITIONS * f->step.tol_pos;
  for (int i = 0; i < nz; i++) {
    if (!(fabs(dz[i]) <= lim)) return 0;
  }
  HY_SIZED(nz, move_phi_n, m->sizes.neq, dz, d);
  return 1;
}

//----- sizes, binding, scratch ---------------------------------------------------------------

// Walks the layout of the shared arrays (with mem == NULL only counts their bytes), so that
// sizing and binding cannot disagree. A formulation that keeps no dense matrix
// (hy_form_no_dense) gets no R_z, W, T and jac_s: only the tangents, the reduced equations and
// the linearization read them, and their nz x nz would be most of its data. They are NULL then.
static size_t layout(hy_form* f, const hy_model* m, const hy_form_ops* ops, unsigned char* mem) {
  const size_t nz = (size_t)m->sizes.nz, neq = (size_t)m->sizes.neq;
  const size_t nc = (size_t)m->sizes.ncyl, nnh = (size_t)m->sizes.nnh;
  const int dense = !hy_form_no_dense(ops);
  hy_partition* pt = f ? &f->part : NULL;
  size_t at = 0;
#define TAKE(field, bytes) HY_LAYOUT_TAKE(mem, at, field, bytes)
#define TAKE_DENSE(field, bytes) \
  do {                           \
    if (dense) {                 \
      TAKE(field, bytes);        \
    } else if (mem) {            \
      (field) = NULL;            \
    }                            \
  } while (0)
  TAKE(pt->rowsel, hy_ints(neq));
  TAKE(pt->Pd, hy_doubles(neq * neq));
  TAKE(pt->pivd, hy_ints(neq));
  TAKE_DENSE(pt->Rz, hy_doubles(nz * nz));
  TAKE(pt->S, hy_doubles(nz));
  TAKE_DENSE(f->jac_s, hy_doubles(nc * nz));
  TAKE_DENSE(f->W, hy_doubles(nz * nz));
  TAKE(pt->Bbar, hy_doubles(nnh * nz));
  TAKE(pt->Bf, hy_doubles(nnh * nnh));
  TAKE(pt->Bpiv, hy_ints(nnh));
  TAKE_DENSE(pt->T, hy_doubles(nz * nz));
  TAKE(pt->SD, hy_doubles(nz));
#undef TAKE_DENSE
#undef TAKE
  return at;
}

size_t hy_form_size(const hy_model* m, const hy_form_ops* ops) {
  return layout(NULL, m, ops, NULL) + ops->size(m);
}

void hy_form_bind(hy_form* f, const hy_model* m, const hy_form_ops* ops, unsigned char* mem) {
  f->ops = ops;
  f->m = m;
  ops->bind(f, mem + layout(f, m, ops, mem));
}

size_t hy_form_scratch(const hy_model* m, const hy_form_ops* ops) {
  const size_t nz = (size_t)m->sizes.nz, neq = (size_t)m->sizes.neq;
  const size_t nf = (size_t)m->sizes.nfrc, nc = (size_t)m->sizes.ncyl;
  const size_t neqf = nf < 64 ? nf : 64;
  // the initial state's frames, nested at most this deep: a copy of z or zd; the partition's
  // full-pivoting LU (matrix and two permutations); the equilibrium forces (E, the g_k, the
  // right-hand side, the normal equations and their pivots); the reduced accelerations
  // (Q' - M' S, M' R_z, the reduced right-hand side and mass matrix), or for a formulation that
  // keeps no dense matrix (hy_form_no_dense), which forms no reduced equations, R_z's dependent
  // rows and a solve's vector (form_init.c); a loop closure's vector
  const size_t reduced = hy_form_no_dense(ops) ? hy_doubles(neq * nz) + hy_doubles(neq)
                                               : hy_doubles(nz) + hy_doubles(nz * nz) +
                                                     hy_doubles(nz) + hy_doubles(nz * nz);
  const size_t shared = hy_doubles(nz) + hy_doubles(neq * nz) + hy_ints(neq) + hy_ints(nz) +
                        hy_doubles(nz * neqf) + hy_doubles(neqf * nz) + hy_doubles(nz) +
                        hy_doubles(neqf * neqf) + hy_doubles(neqf) + hy_ints(neqf) + reduced +
                        hy_doubles(neq) + hy_doubles(nc);
  // the choice of x_ad: full-pivoting LU of B R_z and its permutations, and two vectors
  const size_t nnh = (size_t)m->sizes.nnh;
  const size_t nh = nnh > 0 ? hy_doubles(nnh * nz) + hy_ints(nnh) + hy_ints(nz) +
                                  2 * hy_doubles(nz)
                            : 0;
  return shared + nh + ops->scratch(m);
}

double* hy_form_scratch_doubles(hy_form* f, size_t count) {
  double* p = hy_arena_alloc(f->arena, count * sizeof(double));
  if (!p) {
    HY_FAIL(&f->d->err, HY_ERR_ARENA,
            "work arena exhausted: %zu bytes wanted, %zu of %zu in use (a sizing defect)",
            count * sizeof(double), f->arena->used, f->arena->size);
  }
  return p;
}

int* hy_form_scratch_ints(hy_form* f, size_t count) {
  int* p = hy_arena_alloc(f->arena, count * sizeof(int));
  if (!p) {
    HY_FAIL(&f->d->err, HY_ERR_ARENA,
            "work arena exhausted: %zu bytes wanted, %zu of %zu in use (a sizing defect)",
            count * sizeof(int), f->arena->used, f->arena->size);
  }
  return p;
}

const char* hy_form_coord_name(const hy_model* m, int z) {
  for (int j = 0; j < m->sizes.nbody; j++) {
    if (m->jnt_zadr[j] == z) return m->jnt_name + (size_t)j * HY_NAME_MAX;
  }
  return "?";
}
