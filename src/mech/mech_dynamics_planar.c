// The planar path of the open-tree dynamics (seed 000_c866e3283107e8a4.txt Eqs. 8-12 on a
// plane) and the planar energies: what hy_mech_dynamics, hy_mech_energy and
// hy_mech_energy_with_work (mech_dynamics.c) run on planar models, tested against the 3-D path
// there. Unlike the kinematics, one path serves every plane: on the x-y plane
// (m->plane_xy) it is inlined with the products by the plane's axes left out.
#include <string.h>

#include "core/core.h"
#include "mech/mech_impl.h"

// In a planar model every b_j = [b_lin; b_ang] has b_lin in the plane and b_ang along its
// normal n, so b_i^T M-bar b_k and b_i^T Q-bar see only the planar triple (e1.b_lin, e2.b_lin,
// n.b_ang) of b and of M-bar b: of the inertia only m, the in-plane part of c = m g and
// J_nn = n^T J_O n, of a load only its in-plane force and its moment about n. Out-of-plane
// components (gravity, offsets or loads along n, products of inertia with n) drop out exactly as
// they do in the 3-D products.
//
// Each body gets a record of PLANAR_SIZE doubles in w->plane_rec: its subtree's inertia (m, c.e1,
// c.e2, J_nn) and load (force along e1, e2, moment about n through the origin), summed from the
// leaves, then the joint's planar b.
enum { PLANAR_INERTIA = 0, PLANAR_LOAD = 4, PLANAR_B = 7, PLANAR_SIZE = 10 };
_Static_assert(PLANAR_SIZE == HY_MECH_PLANAR_RECORD, "w->plane_rec holds the records");

// The planar triple of M-bar v = [m v_lin - c x w; c x v_lin + J_O w] from the inertia
// (m, c1, c2, J_nn) and the triple (v1, v2, w) of v: c x n = (c2, -c1) in the plane,
// n . (c x v_lin) = c1 v2 - c2 v1 and n . J_O n = J_nn.
static HY_ALWAYS_INLINE void planar_inertia_mulv(double r[3], const double I[4],
                                                 const double v[3]) {
  r[0] = I[0] * v[0] - I[2] * v[2];
  r[1] = I[0] * v[1] + I[1] * v[2];
  r[2] = I[1] * v[1] - I[2] * v[0] + I[3] * v[2];
}

// Adds a subtree's inertia and load to its parent's record (written out: a loop of 7 is not
// unrolled at -O2 and costs twice as much).
static void planar_add(double* restrict parent, const double* restrict child) {
  parent[0] += child[0];
  parent[1] += child[1];
  parent[2] += child[2];
  parent[3] += child[3];
  parent[4] += child[4];
  parent[5] += child[5];
  parent[6] += child[6];
}

// n^T A J_body A^T n, body j's inertia about the axis through its centre of mass along n. A^T n
// is the normal in body axes: for a revolute joint, its child axis up to a sign that drops out
// (the axis is fixed in the body and parallel to n); a coordinate axis picks a diagonal element.
// Otherwise it is h^T n of the rotation's record (model.h, HY_PLANE_ROT), since q and w are
// perpendicular to n: A^T n does not change as the body turns.
static HY_ALWAYS_INLINE double inertia_about_normal(const hy_model* m, int j) {
  const double* Jb = m->body_inertia + 9 * j;
  double nb[3], Jn[3];
  if (m->jnt_type[j] == HY_JOINT_REVOLUTE) {
    const int shape = m->jnt_shape[j];
    if (shape & HY_JNT_AXIS_X) return Jb[0];
    if (shape & HY_JNT_AXIS_Y) return Jb[4];
    if (shape & HY_JNT_AXIS_Z) return Jb[8];
    hy_v3_copy(nb, m->jnt_caxis + 3 * j);
  } else {
    hy_m3_mulTv(nb, m->body_plane + HY_PLANE_SIZE * j + HY_PLANE_ROT, m->plane_normal);
  }
  hy_m3_mulv(Jn, Jb, nb);
  return hy_v3_dot(nb, Jn);
}

double hy_mech_inertia_about_normal(const hy_model* m, int j) { return inertia_about_normal(m, j); }

// The plane's unit vectors, copied so that stores into the data cannot be taken to change them.
// On the x-y plane e1 = x, e2 = s y and n = e1 x e2 = s z with s = +-1 (model_compile.c,
// any_perpendicular). There the planar triples are taken in raw components, (v_x, v_y, w_z)
// instead of (v_x, s v_y, s w_z): M' and Q' are sums of products of two triples, every term
// a product of two components that both carry s or neither, and IEEE products change sign
// exactly, so the raw components give the same M' and Q' bit for bit without the products by s.
typedef struct plane_axes {
  double e1[3], e2[3], n[3];
} plane_axes;

static void get_plane_axes(const hy_model* m, plane_axes* ax) {
  hy_v3_copy(ax->e1, m->plane_e1);
  hy_v3_copy(ax->e2, m->plane_e2);
  hy_v3_copy(ax->n, m->plane_normal);
}
static HY_ALWAYS_INLINE double along_e1(const plane_axes* ax, const double v[3], int xy) {
  return xy ? v[0] : hy_v3_dot(ax->e1, v);
}
static HY_ALWAYS_INLINE double along_e2(const plane_axes* ax, const double v[3], int xy) {
  return xy ? v[1] : hy_v3_dot(ax->e2, v);
}
static HY_ALWAYS_INLINE double along_n(const plane_axes* ax, const double v[3], int xy) {
  return xy ? v[2] : hy_v3_dot(ax->n, v);
}

// Adds what applied item `item` (numbered as in applied_wrench), at marker mk, puts on its body
// to a planar load f: a force (f1, f2) at x adds its moment x1 f2 - x2 f1 about n. Needs
// hy_mech_eval_loads.
static HY_ALWAYS_INLINE void add_planar_item(const hy_model* m, const hy_data* d,
                                             const hy_mech_work* w, const plane_axes* ax,
                                             int item, int mk, double f[3], int xy) {
  const int nload = m->sizes.nload;
  const double* x = d->mrk_pos + 3 * mk;
  double wr[3];
  if (item >= nload) {
    const int k = (item - nload) >> 1;
    const double F = (item - nload) & 1 ? -d->frc_force[k] : d->frc_force[k];
    const double* dir = d->frc_dir + 3 * k;
    wr[0] = dir[0] * F;
    wr[1] = dir[1] * F;
    wr[2] = dir[2] * F;
  } else if (m->load_type[item] == HY_LOAD_FORCE) {
    hy_v3_copy(wr, w->load_val + 3 * item);
  } else {
    f[2] += along_n(ax, w->load_val + 3 * item, xy);
    return;
  }
  if (xy) {
    // of wr and x x wr only these components count
    f[0] += wr[0];
    f[1] += wr[1];
    f[2] += x[0] * wr[1] - x[1] * wr[0];
  } else {
    double xw[3];
    hy_v3_cross(xw, x, wr);
    f[0] += along_e1(ax, wr, xy);
    f[1] += along_e2(ax, wr, xy);
    f[2] += along_n(ax, xw, xy);
  }
}

// The applied items on body j, summed in their order onto f.
static HY_ALWAYS_INLINE void add_body_items(const hy_model* m, const hy_data* d,
                                            const hy_mech_work* w, const plane_axes* ax, int j,
                                            double f[3], int xy) {
  for (int q = w->app_adr[j]; q < w->app_adr[j + 1]; q++) {
    add_planar_item(m, d, w, ax, w->app_item[q], w->app_mrk[q], f, xy);
  }
}

// Body j's own record (PLANAR_SIZE numbers): its inertia, the load of gravity less its inertia
// force at zdd = 0, and its joint's planar b.
static HY_ALWAYS_INLINE void body_record(const hy_model* m, const hy_data* d, const hy_mech_work* w,
                                         const plane_axes* ax, double grav1, double grav2, int j,
                                         int xy, double r[PLANAR_SIZE]) {
  const double mass = m->body_mass[j];
  const double* g = d->body_com + 3 * j;
  const double* Z = d->body_Z + 6 * j;
  const double* Zd0 = w->body_Zd0 + 6 * j;
  const double* b = d->jnt_b + 6 * j;
  // centre of mass, its velocity g_dot = s_dot + w x g and its acceleration at zdd = 0,
  // g_ddot = s_ddot + w_dot x g + w x g_dot (as in the 3-D path), in the plane, where
  // n x (x1, x2) = (-x2, x1). The angular acceleration at zdd = 0, the sum of w_parent x u_j zd_j
  // over the path, vanishes: every w and every revolute axis u lies along n.
  const double g1 = along_e1(ax, g, xy), g2 = along_e2(ax, g, xy);
  const double om = along_n(ax, Z + 3, xy);
  const double gd1 = along_e1(ax, Z, xy) - om * g2, gd2 = along_e2(ax, Z, xy) + om * g1;
  const double gdd1 = along_e1(ax, Zd0, xy) - om * gd2;
  const double gdd2 = along_e2(ax, Zd0, xy) + om * gd1;
  // gravity less the inertia force at the centre of mass, and its moment about the origin; the
  // gyroscopic w x J w is perpendicular to w, so it has no n component
  const double f1 = mass * (grav1 - gdd1), f2 = mass * (grav2 - gdd2);
  r[PLANAR_INERTIA] = mass;
  r[PLANAR_INERTIA + 1] = mass * g1;
  r[PLANAR_INERTIA + 2] = mass * g2;
  r[PLANAR_INERTIA + 3] = w->body_Jn[j] + mass * (g1 * g1 + g2 * g2);
  r[PLANAR_LOAD] = f1;
  r[PLANAR_LOAD + 1] = f2;
  r[PLANAR_LOAD + 2] = g1 * f2 - g2 * f1;
  r[PLANAR_B] = along_e1(ax, b, xy);
  r[PLANAR_B + 1] = along_e2(ax, b, xy);
  r[PLANAR_B + 2] = along_n(ax, b + 3, xy);
}

// dynamics_planar on a chain (w->chain) of nb bodies: body i hangs from i - 1 and owns
// coordinate i, so one pass from the leaf to the root, with the subtree below in hand, gives
// row i of M' and Q'_i, and the ancestors of i are i - 1, ..., 0. A sized kernel (HY_SIZED): with
// nb a constant the passes unroll, and the records stay in registers. with_M a constant: 0 gives
// Q' alone, the same bits, in O(nb).
static HY_ALWAYS_INLINE void chain_planar_n(int nb, const hy_model* m, hy_data* d,
                                            const hy_mech_work* w, const plane_axes* ax,
                                            double grav1, double grav2, int xy, int with_M) {
  const double* jb = d->jnt_b;
  double* restrict M = d->M;
  double* restrict Q = d->Q;
  // inertia (m, c1, c2, J) and load (f1, f2, moment) of the subtree below, in scalars
  double m_b = 0, c1_b = 0, c2_b = 0, J_b = 0, f1_b = 0, f2_b = 0, n_b = 0;
HY_MECH_UNROLL_8
  for (int i = nb - 1; i >= 0; i--) {
    double r[PLANAR_SIZE];
    body_record(m, d, w, ax, grav1, grav2, i, xy, r);
    if (w->app_adr[i] < w->app_adr[i + 1]) {
      // the body's applied items, summed on their own as in the tree path
      double f[3] = {0, 0, 0};
      add_body_items(m, d, w, ax, i, f, xy);
      r[PLANAR_LOAD] += f[0];
      r[PLANAR_LOAD + 1] += f[1];
      r[PLANAR_LOAD + 2] += f[2];
    }
    if (i == nb - 1) {
      // the leaf: its own record (0 + x is not x for x = -0, so the compiler keeps the sums)
      m_b = r[PLANAR_INERTIA];
      c1_b = r[PLANAR_INERTIA + 1];
      c2_b = r[PLANAR_INERTIA + 2];
      J_b = r[PLANAR_INERTIA + 3];
      f1_b = r[PLANAR_LOAD];
      f2_b = r[PLANAR_LOAD + 1];
      n_b = r[PLANAR_LOAD + 2];
    } else {
      m_b += r[PLANAR_INERTIA];
      c1_b += r[PLANAR_INERTIA + 1];
      c2_b += r[PLANAR_INERTIA + 2];
      J_b += r[PLANAR_INERTIA + 3];
      f1_b += r[PLANAR_LOAD];
      f2_b += r[PLANAR_LOAD + 1];
      n_b += r[PLANAR_LOAD + 2];
    }
    const double b1 = r[PLANAR_B], b2 = r[PLANAR_B + 1], b3 = r[PLANAR_B + 2];
    if (!with_M) {
      Q[i] = b1 * f1_b + b2 * f2_b + b3 * n_b;
      continue;
    }
    // planar_inertia_mulv
    const double Mcb0 = m_b * b1 - c2_b * b3;
    const double Mcb1 = m_b * b2 + c1_b * b3;
    const double Mcb2 = c1_b * b2 - c2_b * b1 + J_b * b3;
    double* row = M + (size_t)i * (size_t)nb;
    row[i] = b1 * Mcb0 + b2 * Mcb1 + b3 * Mcb2;
    for (int k = i - 1; k >= 0; k--) {
      const double* b = jb + 6 * k;
      const double v = along_e1(ax, b, xy) * Mcb0 + along_e2(ax, b, xy) * Mcb1 +
                       along_n(ax, b + 3, xy) * Mcb2;
      row[k] = v;
      M[(size_t)k * (size_t)nb + (size_t)i] = v;
    }
    Q[i] = b1 * f1_b + b2 * f2_b + b3 * n_b;
  }
}

// M' and Q' of a planar model, equal to those of hy_mech_dynamics_general up to round-off.
// Always inlined with xy = m->plane_xy[0] a constant, once for each value
// (hy_mech_dynamics_planar), so that each gets a loop of its own without tests inside; with_M a
// constant too: 0 gives Q' alone (hy_mech_forces_planar), the same bits, and leaves M' alone.
static HY_ALWAYS_INLINE void dynamics_planar(const hy_model* m, hy_data* d, hy_mech_work* w, int xy,
                                             int with_M) {
  const int nb = m->sizes.nbody, nz = m->sizes.nz;
  const int* parent = m->body_parent;
  const int* zadr = m->jnt_zadr;
  plane_axes ax;
  get_plane_axes(m, &ax);
  const double grav1 = along_e1(&ax, m->opt.gravity, xy);
  const double grav2 = along_e2(&ax, m->opt.gravity, xy);
  double* rec = w->plane_rec;
  double* restrict M = d->M;
  double* restrict Q = d->Q;

  if (m->sizes.nload > 0) hy_mech_eval_loads(m, d->time, w->load_val);

  if (w->chain) {
    if (with_M) {
      HY_SIZED(nb, chain_planar_n, m, d, w, &ax, grav1, grav2, xy, 1);
    } else {
      chain_planar_n(nb, m, d, w, &ax, grav1, grav2, xy, 0);
    }
    return;
  }

  for (int j = 0; j < nb; j++) {
    double* r = rec + PLANAR_SIZE * j;
    body_record(m, d, w, &ax, grav1, grav2, j, xy, r);
    add_body_items(m, d, w, &ax, j, r + PLANAR_LOAD, xy);
  }

  // from the leaves to the root: a record is complete when its turn comes, since descendants
  // have larger indices; then M'_ik = b_i^T Mc_i b_k for i and its ancestors k, Q'_i = b_i^T Qc_i
  if (with_M) memset(M, 0, sizeof(double) * (size_t)nz * (size_t)nz);
  for (int i = nb - 1; i >= 0; i--) {
    const double* r = rec + PLANAR_SIZE * i;
    const int zi = zadr[i];
    const double* bi = r + PLANAR_B;
    if (with_M) {
      double Mcb[3];
      planar_inertia_mulv(Mcb, r + PLANAR_INERTIA, bi);
      for (int k = i; k >= 0; k = parent[k]) {
        const int zk = zadr[k];
        const double v = hy_v3_dot(rec + PLANAR_SIZE * k + PLANAR_B, Mcb);
        M[zi * nz + zk] = v;
        M[zk * nz + zi] = v;
      }
    }
    Q[zi] = hy_v3_dot(bi, r + PLANAR_LOAD);
    const int p = parent[i];
    if (p >= 0) planar_add(rec + PLANAR_SIZE * p, r);
  }
}

void hy_mech_dynamics_planar(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (m->plane_xy[0]) {
    dynamics_planar(m, d, w, 1, 1);
  } else {
    dynamics_planar(m, d, w, 0, 1);
  }
  if (m->sizes.ndamp > 0) hy_mech_joint_damping(m, d);
}

void hy_mech_forces_planar(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (m->plane_xy[0]) {
    dynamics_planar(m, d, w, 1, 0);
  } else {
    dynamics_planar(m, d, w, 0, 0);
  }
  if (m->sizes.ndamp > 0) hy_mech_joint_damping(m, d);
}

//----- energies --------------------------------------------------------------------------------

// Planar models: omega = om n, and omega_body = A^T n om with A^T n constant, so the rotational
// part is om^2 J_nn / 2 with J_nn of inertia_about_normal (or w->body_Jn). Adds body j's energies
// to kin and pot. Always inlined with xy = m->plane_xy[0] a constant, both values in use: on the
// x-y plane omega and the centre-of-mass velocity have only the components used here.
static HY_ALWAYS_INLINE void body_energy_planar(const hy_model* m, const hy_data* d, int j,
                                                double Jnn, double* kin, double* pot, int xy) {
  const double mass = m->body_mass[j];
  const double* g = d->body_com + 3 * j;
  const double* Z = d->body_Z + 6 * j;
  double v2, om;
  if (xy) {
    om = Z[5];
    const double gd0 = Z[0] - om * g[1], gd1 = Z[1] + om * g[0];
    v2 = gd0 * gd0 + gd1 * gd1;
  } else {
    double gd[3];
    om = hy_v3_dot(m->plane_normal, Z + 3);
    hy_v3_cross(gd, Z + 3, g);
    hy_v3_add(gd, gd, Z);
    v2 = hy_v3_dot(gd, gd);
  }
  *kin += 0.5 * (mass * v2 + om * om * Jnn);
  *pot -= mass * hy_v3_dot(m->opt.gravity, g);
}

static HY_ALWAYS_INLINE void energy_planar(const hy_model* m, hy_data* d, int xy) {
  double kin = 0, pot = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    body_energy_planar(m, d, j, inertia_about_normal(m, j), &kin, &pot, xy);
  }
  d->energy_kin = kin;
  d->energy_pot = pot;
}

// energy_planar with the inertias of w->body_Jn, as a sized kernel (HY_SIZED): with nb a
// constant the loop unrolls.
static HY_ALWAYS_INLINE void energy_planar_work_n(int nb, const hy_model* m, hy_data* d,
                                                  const hy_mech_work* w, int xy) {
  const double* Jn = w->body_Jn;
  double kin = 0, pot = 0;
  for (int j = 0; j < nb; j++) body_energy_planar(m, d, j, Jn[j], &kin, &pot, xy);
  d->energy_kin = kin;
  d->energy_pot = pot;
}

void hy_mech_energy_planar(const hy_model* m, hy_data* d) {
  if (m->plane_xy[0]) {
    energy_planar(m, d, 1);
  } else {
    energy_planar(m, d, 0);
  }
}

void hy_mech_energy_planar_with_work(const hy_model* m, hy_data* d, const hy_mech_work* w) {
  if (m->plane_xy[0]) {
    HY_SIZED(m->sizes.nbody, energy_planar_work_n, m, d, w, 1);
  } else {
    energy_planar_work_n(m->sizes.nbody, m, d, w, 0);
  }
}
