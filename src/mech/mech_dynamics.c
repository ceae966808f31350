// Open-tree equations of motion M'(z) zdd = Q'(z, zd, t): seed 000_c866e3283107e8a4.txt
// Eqs. 8-12, evaluated by accumulating composite inertias and forces from the leaves to the root
// instead of forming R_d^T T^T M-bar T R_d (6N x 6N) explicitly.
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "mech/mech.h"

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

// Applied load vectors at time t (vector scaled by its signal).
static void eval_loads(const hy_model* m, double t, double* val) {
  for (int k = 0; k < m->sizes.nload; k++) {
    const int sig = m->load_sig[k];
    const double s = sig < 0 ? 1.0 : hy_signal_eval(m, sig, t);
    hy_v3_scale(val + 3 * k, m->load_vector + 3 * k, s);
  }
}

// Everything applied to the bodies, as items: the loads, then both ends of each force element.
static int applied_count(const hy_model* m) { return m->sizes.nload + 2 * m->sizes.nfrc; }

// The wrench about the inertial origin that applied item `item` puts on Z of its body, and that
// body (-1 = ground, where it does no work on the tree). A load's force f at x acts as
// [f; x x f], its torque as [0; tau]; a force element pushes with +F along the a -> b direction
// at marker b and -F at marker a (seed 000 Eq. 10 with the cylinder force written along s, after
// Eq. 45). Needs eval_loads.
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

void hy_mech_dynamics_general(const hy_model* m, hy_data* d, hy_mech_work* w) {
  const int nb = m->sizes.nbody, nz = m->sizes.nz;
  const double* grav = m->opt.gravity;

  eval_loads(m, d->time, w->load_val);

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

  for (int item = 0; item < applied_count(m); item++) {
    double wr[6];
    const int bk = applied_wrench(m, d, w, item, wr);
    if (bk >= 0) hy_sv_add(w->body_Q + 6 * bk, w->body_Q + 6 * bk, wr);
  }

  // composites from the leaves to the root (children have larger indices than parents)
  memcpy(w->comp_M, w->body_M, sizeof(double) * INERTIA_SIZE * (size_t)nb);
  memcpy(w->comp_Q, w->body_Q, sizeof(double) * 6 * (size_t)nb);
  for (int j = nb - 1; j >= 0; j--) {
    const int p = m->body_parent[j];
    if (p < 0) continue;
    for (int k = 0; k < INERTIA_SIZE; k++) w->comp_M[INERTIA_SIZE * p + k] += w->comp_M[INERTIA_SIZE * j + k];
    hy_sv_add(w->comp_Q + 6 * p, w->comp_Q + 6 * p, w->comp_Q + 6 * j);
  }

  // M'_ik = b_i^T Mc_i b_k for k an ancestor of i (or i itself), zero for unrelated joints;
  // Q'_i = b_i^T Qc_i
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

//----- planar models -----------------------------------------------------------------------------

// In a planar model every b_j = [b_lin; b_ang] has b_lin in the plane and b_ang along its
// normal n, so b_i^T M-bar b_k and b_i^T Q-bar see only the planar triple (e1.b_lin, e2.b_lin,
// n.b_ang) of b and of M-bar b: of the inertia only m, the in-plane part of c = m g and
// J_nn = n^T J_O n, of a load only its in-plane force and its moment about n. Out-of-plane
// components (gravity, offsets or loads along n, products of inertia with n) drop out exactly as
// they do in the 3-D products.
//
// Each body gets a record of PLANAR_SIZE doubles in w->comp_M, which only the 3-D path uses:
// its subtree's inertia (m, c.e1, c.e2, J_nn) and load (force along e1, e2, moment about n
// through the origin), summed from the leaves, then the joint's planar b.
enum { PLANAR_INERTIA = 0, PLANAR_LOAD = 4, PLANAR_B = 7, PLANAR_SIZE = 10 };
_Static_assert(PLANAR_SIZE <= HY_MECH_INERTIA_SIZE, "a planar record fits in comp_M");

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
// eval_loads.
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
// nb a constant the passes unroll, and the records stay in registers.
static HY_ALWAYS_INLINE void chain_planar_n(int nb, const hy_model* m, hy_data* d,
                                            const hy_mech_work* w, const plane_axes* ax,
                                            double grav1, double grav2, int xy) {
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
// Always inlined with xy = m->plane_xy[0] a constant (see kinematics_pos_planar).
static HY_ALWAYS_INLINE void dynamics_planar(const hy_model* m, hy_data* d, hy_mech_work* w,
                                             int xy) {
  const int nb = m->sizes.nbody, nz = m->sizes.nz;
  const int* parent = m->body_parent;
  const int* zadr = m->jnt_zadr;
  plane_axes ax;
  get_plane_axes(m, &ax);
  const double grav1 = along_e1(&ax, m->opt.gravity, xy);
  const double grav2 = along_e2(&ax, m->opt.gravity, xy);
  double* rec = w->comp_M;
  double* restrict M = d->M;
  double* restrict Q = d->Q;

  if (m->sizes.nload > 0) eval_loads(m, d->time, w->load_val);

  if (w->chain) {
    HY_SIZED(nb, chain_planar_n, m, d, w, &ax, grav1, grav2, xy);
    return;
  }

  for (int j = 0; j < nb; j++) {
    double* r = rec + PLANAR_SIZE * j;
    body_record(m, d, w, &ax, grav1, grav2, j, xy, r);
    add_body_items(m, d, w, &ax, j, r + PLANAR_LOAD, xy);
  }

  // from the leaves to the root: a record is complete when its turn comes, since descendants
  // have larger indices; then M'_ik = b_i^T Mc_i b_k for i and its ancestors k, Q'_i = b_i^T Qc_i
  memset(M, 0, sizeof(double) * (size_t)nz * (size_t)nz);
  for (int i = nb - 1; i >= 0; i--) {
    const double* r = rec + PLANAR_SIZE * i;
    const int zi = zadr[i];
    const double* bi = r + PLANAR_B;
    double Mcb[3];
    planar_inertia_mulv(Mcb, r + PLANAR_INERTIA, bi);
    for (int k = i; k >= 0; k = parent[k]) {
      const int zk = zadr[k];
      const double v = hy_v3_dot(rec + PLANAR_SIZE * k + PLANAR_B, Mcb);
      M[zi * nz + zk] = v;
      M[zk * nz + zi] = v;
    }
    Q[zi] = hy_v3_dot(bi, r + PLANAR_LOAD);
    const int p = parent[i];
    if (p >= 0) planar_add(rec + PLANAR_SIZE * p, r);
  }
}

void hy_mech_dynamics(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (m->planar && m->plane_xy[0]) {
    dynamics_planar(m, d, w, 1);
  } else if (m->planar) {
    dynamics_planar(m, d, w, 0);
  } else {
    hy_mech_dynamics_general(m, d, w);
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

// Planar models: omega = om n, and omega_body = A^T n om with A^T n constant, so the rotational
// part is om^2 J_nn / 2 with J_nn of inertia_about_normal (or w->body_Jn). Adds body j's energies
// to kin and pot. Always inlined with xy a constant: on the x-y plane omega and the
// centre-of-mass velocity have only the components used here (see dynamics_planar).
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
  } else if (m->plane_xy[0]) {
    energy_planar(m, d, 1);
  } else {
    energy_planar(m, d, 0);
  }
}

void hy_mech_energy_with_work(const hy_model* m, hy_data* d, const hy_mech_work* w) {
  if (!m->planar) {
    energy_general(m, d);
  } else if (m->plane_xy[0]) {
    HY_SIZED(m->sizes.nbody, energy_planar_work_n, m, d, w, 1);
  } else {
    energy_planar_work_n(m->sizes.nbody, m, d, w, 0);
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
  return power;
}
