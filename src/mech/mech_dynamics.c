// Open-tree equations of motion M'(z) zdd = Q'(z, zd, t): seed 000_c866e3283107e8a4.txt
// Eqs. 8-12, evaluated by accumulating composite inertias and forces from the leaves to the root
// instead of forming R_d^T T^T M-bar T R_d (6N x 6N) explicitly. This file holds the 3-D path,
// which serves every model and is the reference the planar path is tested against, the
// accelerations, the energies and the power of the loads; the public entry points hand planar
// models over to the planar paths (mech_dynamics_planar.c).
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "mech/mech_impl.h"

// A body's M-bar of Eq. 9 is [m I, -c~; c~, J_O] with c = m g its first moment and
// J_O = J - m g~ g~ = J + m (|g|^2 I - g g^T) its inertia about the inertial origin. hydyn keeps
// the 13 numbers (m, c, J_O) instead of the 6x6 block: sums of them compose subtrees, and the
// product with a 6-vector costs half of the dense one.
enum { INERTIA_SIZE = HY_MECH_INERTIA_SIZE };

static void inertia_mulv(double r[6], const double I[INERTIA_SIZE], const double v[6]) {
  const double m = I[0];
  const double* c = I + 1;
  const double* JO = I + 4;
  double cxa[3], cxl[3], Jva[3];
  hy_v3_cross(cxa, c, v + 3);
  hy_v3_cross(cxl, c, v);
  hy_m3_mulv(Jva, JO, v + 3);
  for (int k = 0; k < 3; k++) {
    r[k] = m * v[k] - cxa[k];
    r[3 + k] = cxl[k] + Jva[k];
  }
}

// The wrench about the inertial origin that applied item `item` puts on Z of its body, and that
// body (-1 = ground, where it does no work on the tree). A load's force f at x acts as
// [f; x x f], its torque as [0; tau]; a force element pushes with +F along the a -> b direction
// at marker b and -F at marker a (seed 000 Eq. 10 with the cylinder force written along s, after
// Eq. 45). Needs hy_mech_eval_loads.
static int applied_wrench(const hy_model* m, const hy_data* d, const hy_mech_work* w, int item,
                          double wr[6]) {
  const int nload = m->sizes.nload;
  const int k = item < nload ? item : (item - nload) / 2;  // the load or the force element
  const int at_b = item >= nload && (item - nload) % 2 == 0;
  const int mk = item < nload ? m->load_mrk[k] : at_b ? m->frc_mrk_b[k] : m->frc_mrk_a[k];
  const int body = m->mrk_body[mk];
  if (body < 0) return -1;
  if (item >= nload) {
    hy_v3_scale(wr, d->frc_dir + 3 * k, at_b ? d->frc_force[k] : -d->frc_force[k]);
  } else if (m->load_type[k] == HY_LOAD_FORCE) {
    hy_v3_copy(wr, w->load_val + 3 * k);
  } else {
    hy_v3_set(wr, 0, 0, 0);
    hy_v3_copy(wr + 3, w->load_val + 3 * k);
    return body;
  }
  hy_v3_cross(wr + 3, d->mrk_pos + 3 * mk, wr);
  return body;
}

// hy_mech_dynamics_general, always inlined with with_M a constant: 0 gives Q' alone, the same
// bits, in O(nb) (hy_mech_forces).
static HY_ALWAYS_INLINE void dynamics_general(const hy_model* m, hy_data* d, hy_mech_work* w,
                                              int with_M) {
  const int nb = m->sizes.nbody, nz = m->sizes.nz;
  const double* grav = m->opt.gravity;

  hy_mech_eval_loads(m, d->time, w->load_val);

  // per body: M-bar (Eq. 9) and Q-bar (Eq. 10) less M-bar times the velocity-product
  // acceleration, the bracket of Eq. 11
  for (int j = 0; j < nb; j++) {
    const double mass = m->body_mass[j];
    const double* A = d->body_rot + 9 * j;
    const double* g = d->body_com + 3 * j;
    const double* om = d->body_Z + 6 * j + 3;
    double J[9], AJ[9];
    hy_m3_mul(AJ, A, m->body_inertia + 9 * j);
    hy_m3_mulT2(J, AJ, A);
    double* Ib = w->body_M + INERTIA_SIZE * j;
    const double g2 = hy_v3_dot(g, g);
    Ib[0] = mass;
    for (int r = 0; r < 3; r++) {
      Ib[1 + r] = mass * g[r];
      for (int c = 0; c < 3; c++) {
        Ib[4 + 3 * r + c] = J[3 * r + c] + mass * ((r == c ? g2 : 0) - g[r] * g[c]);
      }
    }

    // gravity at the centre of mass as a force and a moment about the origin
    double f[3], n[3];
    hy_v3_scale(f, grav, mass);
    hy_v3_cross(n, g, f);
    // centripetal and gyroscopic terms: m w x g_dot and w x J w. hydyn's Zd is the time
    // derivative of Z (Eq. 3 with d_j = b_dot_j zd_j), so the centre-of-mass acceleration is
    // g_ddot = s_ddot - g~ w_dot + w x g_dot with g_dot = s_dot + w x g (Eq. 6); seed 000 Eq. 7
    // writes w~w~g because its d_j carries the w x s_dot part instead.
    double gdot[3], wgd[3], Jw[3], wJw[3], t3[3];
    hy_v3_cross(gdot, om, g);
    hy_v3_add(gdot, gdot, d->body_Z + 6 * j);
    hy_v3_cross(wgd, om, gdot);
    hy_v3_scale(wgd, wgd, mass);
    hy_m3_mulv(Jw, J, om);
    hy_v3_cross(wJw, om, Jw);
    hy_v3_cross(t3, g, wgd);
    double* Qb = w->body_Q + 6 * j;
    for (int k = 0; k < 3; k++) {
      Qb[k] = f[k] - wgd[k];
      Qb[3 + k] = n[k] - wJw[k] - t3[k];
    }
    double MZd0[6];
    inertia_mulv(MZd0, Ib, w->body_Zd0 + 6 * j);
    for (int k = 0; k < 6; k++) Qb[k] -= MZd0[k];
  }

  for (int item = 0; item < hy_mech_applied_count(m); item++) {
    double wr[6];
    const int bk = applied_wrench(m, d, w, item, wr);
    if (bk >= 0) hy_sv_add(w->body_Q + 6 * bk, w->body_Q + 6 * bk, wr);
  }

  // composites from the leaves to the root (children have larger indices than parents)
  if (with_M) memcpy(w->comp_M, w->body_M, sizeof(double) * INERTIA_SIZE * (size_t)nb);
  memcpy(w->comp_Q, w->body_Q, sizeof(double) * 6 * (size_t)nb);
  for (int j = nb - 1; j >= 0; j--) {
    const int p = m->body_parent[j];
    if (p < 0) continue;
    if (with_M) {
      for (int k = 0; k < INERTIA_SIZE; k++) {
        w->comp_M[INERTIA_SIZE * p + k] += w->comp_M[INERTIA_SIZE * j + k];
      }
    }
    hy_sv_add(w->comp_Q + 6 * p, w->comp_Q + 6 * p, w->comp_Q + 6 * j);
  }

  // M'_ik = b_i^T Mc_i b_k for k an ancestor of i (or i itself), zero for unrelated joints;
  // Q'_i = b_i^T Qc_i
  if (!with_M) {
    for (int i = 0; i < nb; i++) {
      d->Q[m->jnt_zadr[i]] = hy_sv_dot(d->jnt_b + 6 * i, w->comp_Q + 6 * i);
    }
    return;
  }
  memset(d->M, 0, sizeof(double) * (size_t)nz * (size_t)nz);
  for (int i = 0; i < nb; i++) {
    const int zi = m->jnt_zadr[i];
    double Mcb[6];
    inertia_mulv(Mcb, w->comp_M + INERTIA_SIZE * i, d->jnt_b + 6 * i);
    for (int k = i; k >= 0; k = m->body_parent[k]) {
      const int zk = m->jnt_zadr[k];
      const double v = hy_sv_dot(d->jnt_b + 6 * k, Mcb);
      d->M[zi * nz + zk] = v;
      d->M[zk * nz + zi] = v;
    }
    d->Q[zi] = hy_sv_dot(d->jnt_b + 6 * i, w->comp_Q + 6 * i);
  }
}

void hy_mech_joint_damping(const hy_model* m, hy_data* d) {
  // Q'_i -= c_i zd_i (docs/mechanics.md, "Joint damping"): each joint's damper acts on its own
  // coordinate alone, like a torque (force) between parent and child along the joint's b_i
  for (int j = 0; j < m->sizes.nbody; j++) {
    const int zi = m->jnt_zadr[j];
    d->Q[zi] -= m->jnt_damp[j] * d->zd[zi];
  }
}

double hy_mech_joint_damping_power(const hy_model* m, const hy_data* d) {
  // the dampers' power -sum c_i zd_i^2 (<= 0), the work of Q'_i = -c_i zd_i
  double power = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const double zd = d->zd[m->jnt_zadr[j]];
    power -= m->jnt_damp[j] * zd * zd;
  }
  return power;
}

void hy_mech_dynamics_general(const hy_model* m, hy_data* d, hy_mech_work* w) {
  dynamics_general(m, d, w, 1);
  if (m->sizes.ndamp > 0) hy_mech_joint_damping(m, d);
}

void hy_mech_dynamics(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (m->planar) {
    hy_mech_dynamics_planar(m, d, w);
  } else {
    hy_mech_dynamics_general(m, d, w);
  }
}

void hy_mech_forces(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (m->planar) {
    hy_mech_forces_planar(m, d, w);
  } else {
    dynamics_general(m, d, w, 0);
    if (m->sizes.ndamp > 0) hy_mech_joint_damping(m, d);
  }
}

hy_status hy_mech_accelerations(const hy_model* m, hy_data* d, hy_mech_work* w) {
  const int nb = m->sizes.nbody, nz = m->sizes.nz;
  memcpy(w->Mfac, d->M, sizeof(double) * (size_t)nz * (size_t)nz);
  memcpy(d->zdd, d->Q, sizeof(double) * (size_t)nz);
  int col = -1;
  if (hy_chol_factor(nz, w->Mfac, &col) != HY_OK) {
    int j = 0;
    while (j < nb && m->jnt_zadr[j] != col) j++;
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "mass matrix is not positive definite at joint '%s' (t = %g s): a subtree "
                   "without mass or inertia about its joint axis",
                   j < nb ? m->jnt_name + (size_t)j * HY_NAME_MAX : "?", d->time);
  }
  hy_chol_solve(nz, w->Mfac, d->zdd);
  // Eq. 3 with the solved accelerations
  for (int j = 0; j < nb; j++) {
    const int p = m->body_parent[j];
    const double zdd = d->zdd[m->jnt_zadr[j]];
    double* Zd = d->body_Zd + 6 * j;
    for (int k = 0; k < 6; k++) {
      Zd[k] = (p < 0 ? 0.0 : d->body_Zd[6 * p + k]) + d->jnt_b[6 * j + k] * zdd +
              d->jnt_d[6 * j + k];
    }
  }
  return HY_OK;
}

//----- energies and power ----------------------------------------------------------------------

static void energy_general(const hy_model* m, hy_data* d) {
  double kin = 0, pot = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const double mass = m->body_mass[j];
    const double* g = d->body_com + 3 * j;
    const double* Z = d->body_Z + 6 * j;
    // centre-of-mass velocity g_dot = s_dot + omega x g (Eq. 6); rotational part with the
    // inertia in body axes, omega_body = A^T omega
    double gd[3], wb[3], Jwb[3];
    hy_v3_cross(gd, Z + 3, g);
    hy_v3_add(gd, gd, Z);
    hy_m3_mulTv(wb, d->body_rot + 9 * j, Z + 3);
    hy_m3_mulv(Jwb, m->body_inertia + 9 * j, wb);
    kin += 0.5 * (mass * hy_v3_dot(gd, gd) + hy_v3_dot(wb, Jwb));
    pot -= mass * hy_v3_dot(m->opt.gravity, g);
  }
  d->energy_kin = kin;
  d->energy_pot = pot;
}

void hy_mech_energy(const hy_model* m, hy_data* d) {
  if (!m->planar) {
    energy_general(m, d);
  } else {
    hy_mech_energy_planar(m, d);
  }
}

void hy_mech_energy_with_work(const hy_model* m, hy_data* d, const hy_mech_work* w) {
  if (!m->planar) {
    energy_general(m, d);
  } else {
    hy_mech_energy_planar_with_work(m, d, w);
  }
}

double hy_mech_load_power(const hy_model* m, const hy_data* d, const hy_mech_work* w) {
  double power = 0;
  for (int k = 0; k < m->sizes.nload; k++) {
    const int mk = m->load_mrk[k];
    const int bk = m->mrk_body[mk];
    if (bk < 0) continue;
    const double* v = w->load_val + 3 * k;
    if (m->load_type[k] == HY_LOAD_FORCE) {
      power += hy_v3_dot(v, d->mrk_vel + 3 * mk);
    } else {
      power += hy_v3_dot(v, d->body_Z + 6 * bk + 3);
    }
  }
  for (int k = 0; k < m->sizes.nfrc; k++) power += d->frc_force[k] * d->frc_rate[k];
  if (m->sizes.ndamp > 0) power += hy_mech_joint_damping_power(m, d);
  return power;
}
