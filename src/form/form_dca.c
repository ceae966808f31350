// Featherstone's divide-and-conquer algorithm (DCA, 1999), the acceleration-based comparator of
// 004_f00eb218b27db19b.txt: the accelerations of chains of bodies in O(N), from a balanced binary
// assembly tree over each chain of bodies, so that its depth is O(log N).
//
// Each node has two handles, where the node's bodies meet the rest: handle 1 at its first joint,
// handle 2 at the joint after its last body (or that body's centre of mass, or the cut joint's
// marker). Its handle equations are A_i = Phi_i1 F_1 + Phi_i2 F_2 + beta_i, A a handle point's
// acceleration [a_P; alpha] and F the force applied there [f; n_P], every vector at its own
// handle point (leaf_terms). Assembling A (handles 1, 2) and B (handles 1, 2) at the joint J
// between A's handle 2 and B's handle 1, with F_J the force of A on B and b^T F_J = 0 (the joint
// does no work through its constraint force):
//   W F_J = b z_ddot + rhs,  W = Phi^A_22 + Phi^B_11,
//   rhs = d + beta^A_2 - beta^B_1 + Phi^A_21 F_1 - Phi^B_12 F_2        (F_1, F_2: C's handles)
// whose solution is z_ddot = g^T rhs, g = -W^-1 b / (b^T W^-1 b), and F_J = Y rhs,
// Y = W^-1 + W^-1 b g^T; C's handle equations follow by substitution (assemble). The root of a
// chain meets ground through its first joint and has a free tip, or one that cut joints join to
// ground or to other chains' tips (close_loops, one small system for all of them); disassembly
// hands each node its handle forces and recovers the joint's z_ddot (disassemble).
// docs/hdca.md has the derivation's steps.
//
// In the plane the vectors are the in-plane [a_1; a_2; alpha_n] (3) and the matrices 3 x 3, in
// space [a; alpha] (6) and 6 x 6 (form_dca_tmpl.h holds the part common to both). A tree is
// split into chains (plan_chains); each other child of a body starts a branch, assembled with its
// tip free and folded into the body it hangs from (leaf_branched, mount_down). Planar chains from
// ground close by revolute or spherical cut joints between their last bodies or from one to
// ground (hdca-case3's two chains meeting the middle bar's tip); other loops are refused
// (hy_form_dca_check).
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_common.h"
#include "hydyn/names.h"
#include "model/model.h"

typedef struct dca {
  int ham;  // hdca: the velocity-level solve (momenta and impulses) instead of DCA's
  int nnode;
  int nchain;
  void* nodes;     // the trees of every chain, children before parents: dca_node3 in the
                   // plane, dca_node6 in space (form_dca_tmpl.h)           (2 nbody - nchain)
  int* root;       // the root node of each chain                             (nchain)
  int* leaf;       // the leaf node of each body                              (nbody)
  int* chain;      // a chain's bodies in order, while the trees are built    (nbody)
  int* child;      // each body's child, -1 for the last of its chain          (nbody)
  int* first;      // the first body of each chain                            (nchain)
  int* tip_mrk;    // the marker of the cut joints on the chain's last body, -1 for a free tip;
                   // every cut there meets that one point (hy_form_dca_check) (nchain)
  int* row;        // the chain's first row in the loops' system, -1 for an open chain  (nchain)
  int* cut_chain;  // the chains whose tips cut k joins (sides a, b), -1 for ground   (2 ncut)
  int nrow;        // the loops' system: 4 rows per closed chain, 2 per cut joint
  double* loopA;   // its matrix and right-hand side                          (nrow^2, nrow)
  double* loopx;
  int* looppiv;     //                                                          (nrow)
  int* jnode;       // the node whose joint is body j's, -1 for a chain's first  (nbody)
  int* base;        // the body chain c hangs from (a branch), -1 for ground          (nchain)
  int* head;        // the chain body j starts, -1 when it goes on with its parent's   (nbody)
  int* mount;       // the first branch hanging from body j, -1 for none               (nbody)
  int* next_mount;  // the next branch hanging from chain c's base body, -1 after the last (nchain)
  int* body_cut;    // the marker of the cut joints on body j, a closed chain's tip; else -1 (nbody)
  int* point_like;  // 1 for a body without inertia about some axis (leaf_inertia)      (nbody)
  void* mounts;    // each branch's joint terms: dca_mount3 or dca_mount6 (form_dca_tmpl.h) (nchain)
  double* beyond;  // HDCA: each chain's sums over its bodies and branches at its first
                   // joint's point, and that point, for its base body's sums      (9 nchain)
  double* work;    // HDCA: a handle vector per body (momenta, applied forces)  (6 nbody)
  double e1[3], e2[3], n[3];  // the plane's axes, e1 x e2 = n
} dca;

// Whether body j has no inertia about some axis through its centre of mass, so that its 3 x 3 (or
// 6 x 6) M cannot be inverted: a point mass, or in space a rod. Such a body may only end a branch
// (leaf_inertia; hy_form_dca_check).
static int point_like(const hy_model* m, int j) {
  if (m->planar) return !(hy_mech_inertia_about_normal(m, j) > 0);
  const double* I = m->body_inertia + 9 * j;
  const double tr = (I[0] + I[4] + I[8]) / 3;
  const double det = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
                     I[2] * (I[3] * I[7] - I[4] * I[6]);
  return !(det > 1e-9 * tr * tr * tr);
}

// The tree as chains: a body's chain goes on through its main child, the child whose subtree
// holds cut joints (a closed chain runs to the loop's tip), else the one with the most bodies, so
// that a path from a leaf to ground crosses O(log N) chains; each other child starts a chain that
// hangs from the body (a branch). A body with cut joints ends its chain, so that the cuts meet its
// handle 2: all its children are branches. A point-like body is always a branch of its own. Bodies
// are numbered parents first. child gets each body's main child (-1 for none); size and cuts are
// scratch (nbody each). Returns the number of chains, or -1 with *bad a body below which the loops
// do not run along one path (two of its children lead to cut joints, or it and one of its
// children).
static int plan_chains(const hy_model* m, int* child, int* size, int* cuts, int* bad) {
  const int nb = m->sizes.nbody;
  for (int j = 0; j < nb; j++) {
    size[j] = 1;
    cuts[j] = 0;
    child[j] = -1;
  }
  for (int k = 0; k < m->sizes.ncut; k++) {
    const int on[2] = {m->mrk_body[m->cut_mrk_a[k]], m->mrk_body[m->cut_mrk_b[k]]};
    for (int side = 0; side < 2; side++) {
      if (on[side] < 0) continue;
      cuts[on[side]]++;
      child[on[side]] = -2;  // a chain's end: no main child
    }
  }
  for (int j = nb - 1; j >= 0; j--) {
    const int p = m->body_parent[j];
    if (p < 0) continue;
    size[p] += size[j];
    cuts[p] += cuts[j];
  }
  int chains = 0;
  for (int j = 0; j < nb; j++) {
    const int p = m->body_parent[j];
    if (p < 0) {
      chains++;
      continue;
    }
    const int c = child[p], pl = point_like(m, j);
    if (c == -1 && !pl) {
      child[p] = j;
      continue;
    }
    chains++;
    if (cuts[j] > 0 && (c == -2 || (c >= 0 && cuts[c] > 0))) {
      *bad = p;
      return -1;
    }
    if (!pl && c >= 0 && (cuts[j] > 0 || (cuts[c] == 0 && size[j] > size[c]))) child[p] = j;
  }
  for (int j = 0; j < nb; j++) child[j] = child[j] < 0 ? -1 : child[j];
  return chains;
}

// plan_chains with its own scratch, for the checks and the sizes.
static int count_chains(const hy_model* m, int* bad) {
  const size_t nb = (size_t)m->sizes.nbody + 1;
  int* scratch = hy_malloc(3 * nb * sizeof(int));
  const int chains = plan_chains(m, scratch, scratch + nb, scratch + 2 * nb, bad);
  hy_free(scratch);
  return chains;
}

// Nodes of the assembly trees: 2 L - 1 per chain of L bodies.
static size_t node_count(const hy_model* m, int chains) {
  const size_t nb = (size_t)m->sizes.nbody, nc = chains > 0 ? (size_t)chains : 0;
  return 2 * nb > nc ? 2 * nb - nc : 1;
}

// Rows of the loops' system, at most: 4 for each chain with a cut at its tip (each cut has two
// sides), 2 for each cut joint.
static size_t loop_rows(const hy_model* m, int chains) {
  const size_t ncut = (size_t)m->sizes.ncut, nc = chains > 0 ? (size_t)chains : 0;
  return 4 * (nc < 2 * ncut ? nc : 2 * ncut) + 2 * ncut;
}

// A subtree this large or larger is assembled and disassembled as a task of its own (OpenMP): a
// task costs about a microsecond, a body's share of the assembly a few tenths of one.
#define TASK_MIN_BODIES 64

// What the joint's b^T F equals: for DCA the joint's own generalized force, the work the joint
// does on its relative motion, 0 but for a damper (-c zd, docs/mechanics.md, "Joint damping");
// for HDCA the joint's canonical momentum (seed 004 Eq. 10: the articulated momentum's H-part),
// whose rate takes the damper instead (hdca_rates).
static inline double joint_source(const hy_model* m, const hy_data* d, const dca* t, int j) {
  if (t->ham) return d->mom[m->jnt_zadr[j]];
  return m->sizes.ndamp > 0 ? -m->jnt_damp[j] * d->zd[m->jnt_zadr[j]] : 0.0;
}

// Where the joints' solution goes: accelerations (DCA) or velocities (HDCA).
static inline double* solved(hy_data* d, const dca* t) { return t->ham ? d->zd : d->zdd; }

static int close_loops(hy_form* f);

// The assembly in the plane (dca_node3, handle vectors [a_1; a_2; alpha_n]) and in space
// (dca_node6, [a; alpha]).
#define DCA_D 3
#include "form/form_dca_tmpl.h"
#undef DCA_D
#define DCA_D 6
#include "form/form_dca_tmpl.h"
#undef DCA_D

static size_t dca_size(const hy_model* m) {
  int bad;
  const int chains = count_chains(m, &bad);
  const size_t nb = (size_t)m->sizes.nbody, nc = chains > 0 ? (size_t)chains : 0;
  const size_t nr = loop_rows(m, chains);
  const size_t node = m->planar ? sizeof(dca_node3) : sizeof(dca_node6);
  const size_t mount = m->planar ? sizeof(dca_mount3) : sizeof(dca_mount6);
  return hy_arena_need(sizeof(dca)) + hy_arena_need(node_count(m, chains) * node) +
         hy_arena_need((nc + 1) * mount) + hy_doubles(9 * nc + 1) + 6 * hy_ints(nc + 1) +
         8 * hy_ints(nb + 1) + hy_doubles(6 * nb) + hy_ints(2 * (size_t)m->sizes.ncut + 1) +
         hy_doubles(nr * nr + 1) + hy_doubles(nr + 1) + hy_ints(nr + 1);
}

static void dca_bind(hy_form* f, unsigned char* mem) {
  const hy_model* m = f->m;
  int bad;
  const int chains = count_chains(m, &bad);
  const int nb = m->sizes.nbody;
  const size_t nc = chains > 0 ? (size_t)chains : 0;
  dca* t = (dca*)mem;
  mem += hy_arena_need(sizeof(dca));
  t->nodes = mem;
  mem += hy_arena_need(node_count(m, chains) * (m->planar ? sizeof(dca_node3) : sizeof(dca_node6)));
  t->root = (int*)mem;
  mem += hy_ints(nc + 1);
  t->leaf = (int*)mem;
  mem += hy_ints((size_t)nb + 1);
  t->chain = (int*)mem;
  mem += hy_ints((size_t)nb + 1);
  t->child = (int*)mem;
  mem += hy_ints((size_t)nb + 1);
  t->first = (int*)mem;
  mem += hy_ints(nc + 1);
  t->tip_mrk = (int*)mem;
  mem += hy_ints(nc + 1);
  t->row = (int*)mem;
  mem += hy_ints(nc + 1);
  t->jnode = (int*)mem;
  mem += hy_ints((size_t)nb + 1);
  t->base = (int*)mem;
  mem += hy_ints(nc + 1);
  t->next_mount = (int*)mem;
  mem += hy_ints(nc + 1);
  t->head = (int*)mem;
  mem += hy_ints((size_t)nb + 1);
  t->mount = (int*)mem;
  mem += hy_ints((size_t)nb + 1);
  t->body_cut = (int*)mem;
  mem += hy_ints((size_t)nb + 1);
  t->point_like = (int*)mem;
  mem += hy_ints((size_t)nb + 1);
  t->mounts = mem;
  mem += hy_arena_need((nc + 1) * (m->planar ? sizeof(dca_mount3) : sizeof(dca_mount6)));
  t->beyond = (double*)mem;
  mem += hy_doubles(9 * nc + 1);
  t->work = (double*)mem;
  mem += hy_doubles(6 * (size_t)nb);
  t->cut_chain = (int*)mem;
  mem += hy_ints(2 * (size_t)m->sizes.ncut + 1);
  const size_t nr = loop_rows(m, chains);
  t->loopA = (double*)mem;
  mem += hy_doubles(nr * nr + 1);
  t->loopx = (double*)mem;
  mem += hy_doubles(nr + 1);
  t->looppiv = (int*)mem;
  for (int k = 0; k < 2 * m->sizes.ncut; k++) t->cut_chain[k] = -1;  // ground, or a chain below
  t->ham = f->ops->kind == HY_FORM_HDCA;
  t->nnode = 0;
  t->nchain = (int)nc;
  f->self = t;
  f->nmech = m->sizes.nz;
  f->coord = NULL;
  if (m->planar) {
    hy_v3_copy(t->e1, m->plane_e1);
    hy_v3_copy(t->n, m->plane_normal);
    hy_v3_cross(t->e2, t->n, t->e1);  // so that e1 x e2 = n
  }
  // the chains in the order of their first bodies, so that a branch comes after the chain it
  // hangs from (chain and jnode serve as plan_chains' scratch until the trees are built)
  t->nrow = 0;
  if (chains <= 0) return;
  plan_chains(m, t->child, t->chain, t->jnode, &bad);
  int c = 0;
  for (int j = 0; j < nb; j++) {
    const int p = m->body_parent[j];
    t->head[j] = -1;
    t->mount[j] = -1;
    t->jnode[j] = -1;
    t->body_cut[j] = -1;
    t->point_like[j] = point_like(m, j);
    if (p >= 0 && t->child[p] == j) continue;
    t->first[c] = j;
    t->base[c] = p;
    t->head[j] = c;
    t->next_mount[c] = -1;
    if (p >= 0) {
      t->next_mount[c] = t->mount[p];
      t->mount[p] = c;
    }
    c++;
  }
  for (c = 0; c < t->nchain; c++) {
    int len = 0;
    int* chain = t->chain;
    for (int k = t->first[c]; k >= 0; k = t->child[k]) chain[len++] = k;
    // cut joints at the last body close the chain into loops (with ground or other chains); only
    // chains hanging from ground have them (hy_form_dca_check)
    const int last = chain[len - 1];
    t->tip_mrk[c] = -1;
    for (int k = 0; k < m->sizes.ncut; k++) {
      for (int side = 0; side < 2; side++) {
        const int mk = side == 0 ? m->cut_mrk_a[k] : m->cut_mrk_b[k];
        if (m->mrk_body[mk] == last) {
          t->tip_mrk[c] = t->body_cut[last] = mk;
          t->cut_chain[2 * k + side] = c;
        }
      }
    }
    t->root[c] = m->planar ? build3(t, chain, 0, len - 1) : build6(t, chain, 0, len - 1);
  }
  // the loops' system: the closed chains' rows first, then the cuts'
  for (int k = 0; k < t->nchain; k++) {
    t->row[k] = t->tip_mrk[k] >= 0 ? t->nrow : -1;
    if (t->tip_mrk[k] >= 0) t->nrow += 4;
  }
  t->nrow += 2 * m->sizes.ncut;
}

static size_t dca_scratch(const hy_model* m) {
  (void)m;
  return 0;
}

//----- 3 x 3 algebra ---------------------------------------------------------------------------

static HY_ALWAYS_INLINE int inv3(const double* a, double* r) {
  const double c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8];
  const double c02 = a[3] * a[7] - a[4] * a[6];
  const double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
  if (!(det > 0) || !isfinite(det)) return 0;
  const double s = 1 / det;
  r[0] = c00 * s;
  r[1] = (a[2] * a[7] - a[1] * a[8]) * s;
  r[2] = (a[1] * a[5] - a[2] * a[4]) * s;
  r[3] = c01 * s;
  r[4] = (a[0] * a[8] - a[2] * a[6]) * s;
  r[5] = (a[2] * a[3] - a[0] * a[5]) * s;
  r[6] = c02 * s;
  r[7] = (a[1] * a[6] - a[0] * a[7]) * s;
  r[8] = (a[0] * a[4] - a[1] * a[3]) * s;
  return 1;
}

//----- the planar quantities of a body ---------------------------------------------------------

static inline void to_plane(const dca* t, const double* v3, double* p2) {
  p2[0] = hy_v3_dot(t->e1, v3);
  p2[1] = hy_v3_dot(t->e2, v3);
}

// 2-D cross product a x b = a1 b2 - a2 b1 (along n).
static inline double cross2(const double* a, const double* b) { return a[0] * b[1] - a[1] * b[0]; }

// Adds force f (inertial, 3-D) at point x to the planar force about point c (2-D):
// Q += [f1; f2; (x - c) x f].
static inline void add_force(const dca* t, const double* x, const double* c, const double* f,
                             double* Q) {
  double xp[2], fp[2];
  to_plane(t, x, xp);
  to_plane(t, f, fp);
  const double r[2] = {xp[0] - c[0], xp[1] - c[1]};
  Q[0] += fp[0];
  Q[1] += fp[1];
  Q[2] += cross2(r, fp);
}

// The point of joint j on its body (inertial, 2-D): the body's origin turned onto its joint point.
static void joint_point(const hy_model* m, const hy_data* d, const dca* t, int j, double* P) {
  double x[3];
  hy_m3_mulv(x, d->body_rot + 9 * j, m->jnt_cpoint + 3 * j);
  hy_v3_add(x, x, d->body_pos + 3 * j);
  to_plane(t, x, P);
}

// The leaf of body j with its handles at the points P1 (its joint) and P2 (its child's joint, or
// its centre of mass c): the Newton-Euler equations at c, m a_c = f, I_c alpha = tau_c, and a
// handle's acceleration a_P = a_c + alpha n x r - omega^2 r (r = P - c) give
//   Phi_ik = T_i diag(1/m, 1/m, 1/I_c) T_k^T,  T_i = [1, 0, -r_i2; 0, 1, r_i1; 0, 0, 1],
//   beta_i = T_i diag(1/m, 1/m, 1/I_c) Q_c + [-omega^2 r_i; 0],
// Q_c the applied force and its moment about c (T_k^T carries a handle force to c). Every vector
// is local to the body, so the numbers keep their precision however far it is from the origin.
// Returns 0 when the mass or the planar inertia is not positive.
static int leaf_terms(const hy_data* d, const dca* t, const hy_mech_work* w, const hy_model* m,
                      dca_node3* L, const double* P1, const double* P2, const double* c) {
  const int j = L->body;
  const double mass = m->body_mass[j], Ic = w->body_Jn[j];
  if (!(mass > 0) || !(Ic > 0)) return 0;
  const double inv[3] = {1 / mass, 1 / mass, 1 / Ic};
  const double om = hy_v3_dot(t->n, d->body_Z + 6 * j + 3);
  const double r[2][2] = {{P1[0] - c[0], P1[1] - c[1]}, {P2[0] - c[0], P2[1] - c[1]}};
  double T[2][9];
  for (int h = 0; h < 2; h++) {
    const double Th[9] = {1, 0, -r[h][1], 0, 1, r[h][0], 0, 0, 1};
    memcpy(T[h], Th, sizeof Th);
  }
  double* P[2][2] = {{L->P11, L->P12}, {L->P21, L->P22}};
  for (int a = 0; a < 2; a++) {
    for (int b = 0; b < 2; b++) {
      for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) {
          double v = 0;
          for (int q = 0; q < 3; q++) v += T[a][3 * i + q] * inv[q] * T[b][3 * k + q];
          P[a][b][3 * i + k] = v;
        }
      }
    }
  }
  if (t->ham) {
    // velocities from momenta: no applied force or velocity term enters (seed 004 Eqs. 12-16)
    memset(L->b1, 0, sizeof L->b1);
    memset(L->b2, 0, sizeof L->b2);
    return 1;
  }
  const double Qc[3] = {L->b1[0], L->b1[1], L->b1[2]};
  const double ac[3] = {Qc[0] * inv[0], Qc[1] * inv[1], Qc[2] * inv[2]};
  double* beta[2] = {L->b1, L->b2};
  for (int h = 0; h < 2; h++) {
    mulv3(T[h], ac, beta[h]);
    beta[h][0] -= om * om * r[h][0];
    beta[h][1] -= om * om * r[h][1];
  }
  return 1;
}

//----- assembly and disassembly ------------------------------------------------------------------

// Joint j at its point: the relative motion b z_dot of the child's handle and the velocity term d
// of its acceleration. Revolute: b = [0; 0; s] (s = +-1, the axis along +-n), d = 0, since the
// joint point is a material point of both bodies. Prismatic along u (fixed on the parent):
// b = [u; 0], d = [2 omega_parent n x u z_dot; 0] (Coriolis).
static void joint_terms3(const hy_model* m, const dca* t, const hy_data* d, int j, double* b,
                         double* dd) {
  const double* bj = d->jnt_b + 6 * j;
  dd[0] = dd[1] = dd[2] = 0;
  if (m->jnt_type[j] == HY_JOINT_REVOLUTE) {
    b[0] = b[1] = 0;
    b[2] = hy_v3_dot(t->n, bj + 3);
    return;
  }
  to_plane(t, bj, b);
  b[2] = 0;
  if (t->ham) return;  // velocities: V_B1 - V_A2 = b q_dot exactly (seed 004 Eq. 23)
  const int p = m->body_parent[j];
  const double om = p < 0 ? 0.0 : hy_v3_dot(t->n, d->body_Z + 6 * p + 3);
  const double zd = d->zd[m->jnt_zadr[j]];
  dd[0] = -2 * om * b[1] * zd;
  dd[1] = 2 * om * b[0] * zd;
}

// A force vec at point x (inertial) on body, or a torque vec when x is NULL: added to the body's
// leaf b1 as a force with its moment about the centre of mass.
typedef void (*apply_fn)(hy_form* f, int body, const double* x, const double* vec);

// Every applied force once, to its body's leaf (whose b1 the caller has cleared): gravity, the
// force elements' two ends, the loads.
static void each_applied(hy_form* f, apply_fn apply) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  for (int j = 0; j < m->sizes.nbody; j++) {
    double grav[3];
    hy_v3_scale(grav, m->opt.gravity, m->body_mass[j]);
    apply(f, j, d->body_com + 3 * j, grav);
  }
  for (int k = 0; k < m->sizes.nfrc; k++) {
    const double F = d->frc_force[k];
    if (F == 0) continue;
    double fv[3];
    hy_v3_scale(fv, d->frc_dir + 3 * k, F);
    const int ends[2] = {m->frc_mrk_b[k], m->frc_mrk_a[k]};
    for (int e = 0; e < 2; e++) {
      const int mk = ends[e], body = m->mrk_body[mk];
      if (e == 1) hy_v3_scale(fv, fv, -1.0);
      if (body >= 0) apply(f, body, d->mrk_pos + 3 * mk, fv);
    }
  }
  for (int k = 0; k < m->sizes.nload; k++) {
    const int mk = m->load_mrk[k], body = m->mrk_body[mk];
    if (body < 0) continue;
    double v[3];
    hy_v3_copy(v, m->load_vector + 3 * k);
    if (m->load_sig[k] >= 0) hy_v3_scale(v, v, hy_signal_eval(m, m->load_sig[k], d->time));
    apply(f, body, m->load_type[k] == HY_LOAD_TORQUE ? NULL : d->mrk_pos + 3 * mk, v);
  }
}

static void apply3(hy_form* f, int body, const double* x, const double* vec) {
  const dca* t = f->self;
  double* Q = nodes3(t)[t->leaf[body]].b1;
  if (!x) {
    Q[2] += hy_v3_dot(t->n, vec);
    return;
  }
  double c[2];
  to_plane(t, f->d->body_com + 3 * body, c);
  add_force(t, x, c, vec, Q);
}

// The applied forces of every body in the plane about its centre of mass, gathered in the
// leaves' b1 before the leaves' terms are formed from them.
static void applied_forces(hy_form* f) {
  const dca* t = f->self;
  for (int j = 0; j < f->m->sizes.nbody; j++)
    memset(nodes3(t)[t->leaf[j]].b1, 0, 3 * sizeof(double));
  each_applied(f, apply3);
}

// The roots of the closed chains and their cut joints at once (the base-body connection of
// closed loops, seed 004 Sects. 2.3-2.4, in accelerations for DCA and velocities for HDCA). For
// each closed chain, its first joint's ground relation A_1 = b z_ddot + d with b^T F_1 = p (4
// rows); for each revolute or spherical cut joint k between the tips of two chains, or a tip and
// ground, the in-plane motion of its two material points equal, A^a_2 - A^b_2 = 0 in the linear
// part (2 rows), with the force f_k on side a's tip and -f_k on side b's; a tip's F_2 is the sum
// of the [+-f_k; 0] of its cuts, which all meet at its handle 2. Unknowns [F_1; z_ddot] per chain,
// then f_k per cut; one dense LU, small while the loops are few. Returns 0 when singular.
static int close_loops(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  const int n = t->nrow, ncut = m->sizes.ncut, cut0 = n - 2 * ncut;
  double* A = t->loopA;
  double* x = t->loopx;
  memset(A, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int c = 0; c < t->nchain; c++) {
    const int r = t->row[c];
    if (r < 0) continue;
    const dca_node3* R = &nodes3(t)[t->root[c]];
    const int j = t->first[c];
    double b[3], dd[3];
    joint_terms3(m, t, d, j, b, dd);
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < 3; k++) A[n * (r + i) + r + k] = R->P11[3 * i + k];
      A[n * (r + i) + r + 3] = -b[i];
      x[r + i] = dd[i] - R->b1[i];
    }
    for (int k = 0; k < 3; k++) A[n * (r + 3) + r + k] = b[k];
    x[r + 3] = joint_source(m, d, t, j);
  }
  for (int i = cut0; i < n; i++) x[i] = 0;
  for (int k = 0; k < ncut; k++) {
    const int ck = cut0 + 2 * k;  // cut k's rows and its force's columns
    for (int side = 0; side < 2; side++) {
      const int c = t->cut_chain[2 * k + side];
      if (c < 0) continue;
      const double sg = side == 0 ? 1.0 : -1.0;
      const int r = t->row[c];
      const dca_node3* R = &nodes3(t)[t->root[c]];
      // the force on the tip moves the chain's handle 1 (Phi_12) ...
      for (int i = 0; i < 3; i++) {
        for (int q = 0; q < 2; q++) A[n * (r + i) + ck + q] += sg * R->P12[3 * i + q];
      }
      // ... and the tip's own motion, which cut k's rows take with its side's sign
      for (int i = 0; i < 2; i++) {
        for (int q = 0; q < 3; q++) A[n * (ck + i) + r + q] += sg * R->P21[3 * i + q];
        for (int k2 = 0; k2 < ncut; k2++) {
          for (int side2 = 0; side2 < 2; side2++) {
            if (t->cut_chain[2 * k2 + side2] != c) continue;
            const double sg2 = side2 == 0 ? 1.0 : -1.0;
            for (int q = 0; q < 2; q++) {
              A[n * (ck + i) + cut0 + 2 * k2 + q] += sg * sg2 * R->P22[3 * i + q];
            }
          }
        }
        x[ck + i] -= sg * R->b2[i];
      }
    }
  }
  int col = -1;
  if (hy_lu_factor(n, A, t->looppiv, &col) != HY_OK) return 0;
  hy_lu_solve(n, A, t->looppiv, x);
  for (int c = 0; c < t->nchain; c++) {
    const int r = t->row[c];
    if (r < 0) continue;
    dca_node3* R = &nodes3(t)[t->root[c]];
    for (int i = 0; i < 3; i++) R->F1[i] = x[r + i];
    solved(d, t)[m->jnt_zadr[t->first[c]]] = x[r + 3];
    memset(R->F2, 0, sizeof R->F2);
  }
  for (int k = 0; k < ncut; k++) {
    for (int side = 0; side < 2; side++) {
      const int c = t->cut_chain[2 * k + side];
      if (c < 0) continue;
      const double sg = side == 0 ? 1.0 : -1.0;
      dca_node3* R = &nodes3(t)[t->root[c]];
      for (int i = 0; i < 2; i++) R->F2[i] += sg * x[cut0 + 2 * k + i];
    }
  }
  return 1;
}

//----- in space: [a; alpha] at each handle point ------------------------------------------------

// The inverse of a 6 x 6 (W, symmetric positive definite when the halves have mass) by LU; 0 when
// it is singular.
static HY_ALWAYS_INLINE int inv6(const double* a, double* r) {
  double lu[36];
  int piv[6], col = -1;
  memcpy(lu, a, sizeof lu);
  if (hy_lu_factor(6, lu, piv, &col) != HY_OK) return 0;
  for (int k = 0; k < 6; k++) {
    double e[6] = {0, 0, 0, 0, 0, 0};
    e[k] = 1;
    hy_lu_solve(6, lu, piv, e);
    for (int i = 0; i < 6; i++) r[6 * i + k] = e[i];
  }
  return 1;
}

// Joint j at its point P, in space. Revolute about u: b = [0; u], d = [0; omega_A x u z_dot]
// (the point P is on the axis, so its two material points move alike; the child's angular
// velocity turns with the parent's). Prismatic along u (fixed on the parent A): b = [u; 0],
// d = [2 omega_A x u z_dot; 0] (Coriolis). HDCA's velocities take no d (seed 004 Eq. 23).
static void joint_terms6(const hy_model* m, const dca* t, const hy_data* d, int j, double* b,
                         double* dd) {
  const double* bj = d->jnt_b + 6 * j;
  const int rev = m->jnt_type[j] == HY_JOINT_REVOLUTE;
  const double* u = rev ? bj + 3 : bj;
  memset(b, 0, 6 * sizeof(double));
  memset(dd, 0, 6 * sizeof(double));
  hy_v3_copy(b + (rev ? 3 : 0), u);
  const int p = m->body_parent[j];
  if (t->ham || p < 0) return;
  double wu[3];
  hy_v3_cross(wu, d->body_Z + 6 * p + 3, u);
  hy_v3_scale(dd + (rev ? 3 : 0), wu, (rev ? 1.0 : 2.0) * d->zd[m->jnt_zadr[j]]);
}

// Body j's inertia about its centre of mass in the inertial frame, R I R^T.
static void world_inertia(const hy_model* m, const hy_data* d, int j, double* I) {
  double RI[9];
  hy_m3_mul(RI, d->body_rot + 9 * j, m->body_inertia + 9 * j);
  hy_m3_mulT2(I, RI, d->body_rot + 9 * j);
}

// The point of joint j on its body (inertial frame).
static void joint_point6(const hy_model* m, const hy_data* d, int j, double* P) {
  hy_m3_mulv(P, d->body_rot + 9 * j, m->jnt_cpoint + 3 * j);
  hy_v3_add(P, P, d->body_pos + 3 * j);
}

// Body j's handle points in space: its joint's, and its child's joint's or its centre of mass.
static void handle_points6(hy_form* f, int j, double* P1, double* P2) {
  const dca* t = f->self;
  joint_point6(f->m, f->d, j, P1);
  if (t->child[j] >= 0) {
    joint_point6(f->m, f->d, t->child[j], P2);
  } else {
    hy_v3_copy(P2, f->d->body_com + 3 * j);
  }
}

// A leaf in space: handle 1 at the body's joint, handle 2 at its child's joint or its centre of
// mass c. The Newton-Euler equations at c, m a_c = f, I_c alpha = tau_c - omega x I_c omega, and
// a handle's acceleration a_P = a_c + alpha x r + omega x (omega x r) (r = P - c) give
//   Phi_ik = T_i M^-1 T_k^T,  T_i = [1, -[r_i]x; 0, 1],  M = diag(m 1, I_c),
//   beta_i = T_i M^-1 Q_c + [omega x (omega x r_i); 0],
// Q_c the applied force with its moment about c, less the gyroscopic moment. The handle vectors
// of the plane (leaf_terms) are these with omega along n. Returns 0 when M is not positive
// definite.
static HY_ALWAYS_INLINE int leaf6(hy_form* f, dca_node6* N) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  const dca* t = f->self;
  const int j = N->body;
  const double mass = m->body_mass[j];
  double Ic[9], Ji[9], c[3], P[2][3];
  world_inertia(m, d, j, Ic);
  if (!(mass > 0) || !inv3(Ic, Ji)) return 0;
  hy_v3_copy(c, d->body_com + 3 * j);
  handle_points6(f, j, P[0], P[1]);
  // T_i and T_i M^-1
  double T[2][36], TM[2][36], Mi[36];
  memset(Mi, 0, sizeof Mi);
  for (int i = 0; i < 3; i++) {
    Mi[7 * i] = 1 / mass;
    for (int k = 0; k < 3; k++) Mi[6 * (3 + i) + 3 + k] = Ji[3 * i + k];
  }
  for (int h = 0; h < 2; h++) {
    double r[3], rx[9];
    hy_v3_sub(r, P[h], c);
    hy_m3_skew(rx, r);
    memset(T[h], 0, sizeof T[h]);
    for (int i = 0; i < 6; i++) T[h][7 * i] = 1;
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < 3; k++) T[h][6 * i + 3 + k] = -rx[3 * i + k];
    }
    mul6(T[h], Mi, TM[h]);
  }
  double* Phi[2][2] = {{N->P11, N->P12}, {N->P21, N->P22}};
  for (int a = 0; a < 2; a++) {
    for (int b = 0; b < 2; b++) {
      for (int i = 0; i < 6; i++) {
        for (int k = 0; k < 6; k++) {
          double v = 0;
          for (int q = 0; q < 6; q++) v += TM[a][6 * i + q] * T[b][6 * k + q];
          Phi[a][b][6 * i + k] = v;
        }
      }
    }
  }
  if (t->ham) {
    // velocities from momenta: no applied force or velocity term enters (seed 004 Eqs. 12-16)
    memset(N->b1, 0, sizeof N->b1);
    memset(N->b2, 0, sizeof N->b2);
    return 1;
  }
  const double* om = d->body_Z + 6 * j + 3;
  double Q[6], Iw[3], gyro[3];
  memcpy(Q, N->b1, sizeof Q);
  hy_m3_mulv(Iw, Ic, om);
  hy_v3_cross(gyro, om, Iw);
  for (int i = 0; i < 3; i++) Q[3 + i] -= gyro[i];
  double* beta[2] = {N->b1, N->b2};
  for (int h = 0; h < 2; h++) {
    double r[3], wr[3], wwr[3];
    hy_v3_sub(r, P[h], c);
    hy_v3_cross(wr, om, r);
    hy_v3_cross(wwr, om, wr);
    mulv6(TM[h], Q, beta[h]);
    for (int i = 0; i < 3; i++) beta[h][i] += wwr[i];
  }
  return 1;
}

// In space: the force and its moment about the centre of mass.
static void apply6(hy_form* f, int body, const double* x, const double* vec) {
  const dca* t = f->self;
  double* Q = nodes6(t)[t->leaf[body]].b1;
  double r[3], n[3];
  if (!x) {
    hy_v3_add(Q + 3, Q + 3, vec);
    return;
  }
  hy_v3_sub(r, x, f->d->body_com + 3 * body);
  hy_v3_cross(n, r, vec);
  hy_v3_add(Q, Q, vec);
  hy_v3_add(Q + 3, Q + 3, n);
}

static void applied_forces6(hy_form* f) {
  const dca* t = f->self;
  for (int j = 0; j < f->m->sizes.nbody; j++)
    memset(nodes6(t)[t->leaf[j]].b1, 0, 6 * sizeof(double));
  each_applied(f, apply6);
}

// Body j's centre of mass and handle points in the plane: handle 1 at its joint, handle 2 at its
// child's joint (or the cut joints' point, or its centre of mass).
static void handle_points3(hy_form* f, int j, double* c, double* P1, double* P2) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  const dca* t = f->self;
  to_plane(t, d->body_com + 3 * j, c);
  joint_point(m, d, t, j, P1);
  const int child = t->child[j];
  const int cut_mrk = t->body_cut[j];
  if (child >= 0) {
    joint_point(m, d, t, child, P2);
  } else if (cut_mrk >= 0) {
    to_plane(t, d->mrk_pos + 3 * cut_mrk, P2);
  } else {
    P2[0] = c[0];
    P2[1] = c[1];
  }
}

static HY_ALWAYS_INLINE int leaf3(hy_form* f, dca_node3* N) {
  double c[2], P1[2], P2[2];
  handle_points3(f, N->body, c, P1, P2);
  return leaf_terms(f->d, f->self, f->mech, f->m, N, P1, P2, c);
}

//----- a body with branches (leaf_branched): its terms in each dimension ------------------------

// The plane's T and v of point P on a body with centre of mass c turning at omega:
// T = [1, 0, -r_2; 0, 1, r_1; 0, 0, 1], v = [-omega^2 r; 0] (r = P - c; v = 0 for HDCA), as in
// leaf_terms.
static void plane_point(const dca* t, double om, const double* P, const double* c, double* T,
                        double* v) {
  const double r[2] = {P[0] - c[0], P[1] - c[1]};
  const double Tr[9] = {1, 0, -r[1], 0, 1, r[0], 0, 0, 1};
  memcpy(T, Tr, sizeof Tr);
  const double w2 = t->ham ? 0.0 : om * om;
  v[0] = -w2 * r[0];
  v[1] = -w2 * r[1];
  v[2] = 0;
}

static int body_terms3(hy_form* f, int j, const double* Qa, double* M, double* Q, double* T1,
                       double* v1, double* T2, double* v2) {
  const dca* t = f->self;
  const double mass = f->m->body_mass[j], Ic = f->mech->body_Jn[j];
  if (!(mass > 0)) return 0;
  const double Mj[9] = {mass, 0, 0, 0, mass, 0, 0, 0, Ic};
  memcpy(M, Mj, sizeof Mj);
  for (int i = 0; i < 3; i++) Q[i] = t->ham ? 0.0 : Qa[i];
  double c[2], P1[2], P2[2];
  handle_points3(f, j, c, P1, P2);
  const double om = hy_v3_dot(t->n, f->d->body_Z + 6 * j + 3);
  plane_point(t, om, P1, c, T1, v1);
  plane_point(t, om, P2, c, T2, v2);
  return 1;
}

static void point_terms3(hy_form* f, int j, int k, double* T, double* v) {
  const dca* t = f->self;
  double c[2], P[2];
  to_plane(t, f->d->body_com + 3 * j, c);
  joint_point(f->m, f->d, t, k, P);
  plane_point(t, hy_v3_dot(t->n, f->d->body_Z + 6 * j + 3), P, c, T, v);
}

// In space, T = [1, -[r]x; 0, 1] and v = [omega x (omega x r); 0], as in leaf6.
static void space_point(const hy_data* d, const dca* t, int j, const double* P, double* T,
                        double* v) {
  double r[3], rx[9];
  hy_v3_sub(r, P, d->body_com + 3 * j);
  hy_m3_skew(rx, r);
  memset(T, 0, 36 * sizeof(double));
  for (int i = 0; i < 6; i++) T[7 * i] = 1;
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++) T[6 * i + 3 + k] = -rx[3 * i + k];
  }
  memset(v, 0, 6 * sizeof(double));
  if (t->ham) return;
  double wr[3];
  hy_v3_cross(wr, d->body_Z + 6 * j + 3, r);
  hy_v3_cross(v, d->body_Z + 6 * j + 3, wr);
}

static int body_terms6(hy_form* f, int j, const double* Qa, double* M, double* Q, double* T1,
                       double* v1, double* T2, double* v2) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  const dca* t = f->self;
  const double mass = m->body_mass[j];
  double Ic[9], P1[3], P2[3];
  world_inertia(m, d, j, Ic);
  if (!(mass > 0)) return 0;
  memset(M, 0, 36 * sizeof(double));
  for (int i = 0; i < 3; i++) {
    M[7 * i] = mass;
    for (int k = 0; k < 3; k++) M[6 * (3 + i) + 3 + k] = Ic[3 * i + k];
  }
  memset(Q, 0, 6 * sizeof(double));
  if (!t->ham) {
    const double* om = d->body_Z + 6 * j + 3;
    double Iw[3], gyro[3];
    hy_m3_mulv(Iw, Ic, om);
    hy_v3_cross(gyro, om, Iw);
    for (int i = 0; i < 3; i++) {
      Q[i] = Qa[i];
      Q[3 + i] = Qa[3 + i] - gyro[i];
    }
  }
  handle_points6(f, j, P1, P2);
  space_point(d, t, j, P1, T1, v1);
  space_point(d, t, j, P2, T2, v2);
  return 1;
}

static void point_terms6(hy_form* f, int j, int k, double* T, double* v) {
  double P[3];
  joint_point6(f->m, f->d, k, P);
  space_point(f->d, f->self, j, P, T, v);
}

// DCA's accelerations or HDCA's velocities, in the plane or in space.
static hy_status solve(hy_form* f) {
  const dca* t = f->self;
  if (f->m->planar) {
    if (!t->ham) applied_forces(f);
    return solve3(f);
  }
  if (!t->ham) applied_forces6(f);
  return solve6(f);
}

// Each joint's reaction after an acceleration-level solve (seed 004 Sect. 3.4): the force through
// the joint that the parent side exerts on the child side, F_J of the joint's node, or the
// root's handle-1 force for a chain's first joint, turned from the plane's [f_1; f_2; n] or
// space's [f; n] into the inertial frame.
static void store_reactions(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const dca* t = f->self;
  for (int c = 0; c < t->nchain; c++) {
    for (int j = t->first[c]; j >= 0; j = t->child[j]) {
      const int node = t->jnode[j];
      double* R = d->jnt_react + 6 * j;
      if (!m->planar) {
        const dca_node6* N = nodes6(t);
        memcpy(R, node >= 0 ? N[node].FJ : N[t->root[c]].F1, 6 * sizeof(double));
        continue;
      }
      const dca_node3* N = nodes3(t);
      const double* F = node >= 0 ? N[node].FJ : N[t->root[c]].F1;
      for (int i = 0; i < 3; i++) {
        R[i] = F[0] * t->e1[i] + F[1] * t->e2[i];
        R[3 + i] = F[2] * t->n[i];
      }
    }
  }
  // the cut joints' forces on their sides a: the loops' system's last unknowns (close_loops;
  // planar, revolute or spherical cuts: no moment)
  const int ncut = m->sizes.ncut, cut0 = t->nrow - 2 * ncut;
  for (int k = 0; k < ncut; k++) {
    const double* fk = t->loopx + cut0 + 2 * k;
    double* R = d->cut_react + 6 * k;
    for (int i = 0; i < 3; i++) {
      R[i] = fk[0] * t->e1[i] + fk[1] * t->e2[i];
      R[3 + i] = 0;
    }
  }
}

static hy_status dca_accelerations(hy_form* f) {
  HY_TRY(solve(f));
  if (f->m->opt.reactions) store_reactions(f);
  return HY_OK;
}

//----- HDCA: the Hamiltonian divide-and-conquer algorithm (seed 004) --------------------------
// State (q, p): the joint coordinates and the joints' canonical momenta, augmented by the loops'
// constraint impulses (seed 004 Eqs. 5-8). The velocities come from the same assembly at velocity
// level (solve with t->ham: forces become articulated momenta, b^T F = p at each joint, no applied
// force or velocity term; Eqs. 9-46); the momenta's rates are, joint by joint,
//   p_dot_j = b_dot_j^T P-bar_j + b_j^T F_j   (Eqs. 47-77 written for a chain),
// P-bar_j the articulated momentum through joint j (the velocity solve's joint force) and F_j the
// applied forces on the bodies beyond it, with their moment about the joint: the rate of the
// momentum beyond the joint is that force plus the joint's own, which does no work along b.

// The joints of chain c from its last body to its first, into t->chain; returns their number.
static int chain_reversed(const dca* t, int c) {
  int len = 0;
  for (int k = t->first[c]; k >= 0; k = t->child[k]) t->chain[len++] = k;
  for (int i = 0; i < len / 2; i++) {
    const int v = t->chain[i];
    t->chain[i] = t->chain[len - 1 - i];
    t->chain[len - 1 - i] = v;
  }
  return len;
}

// The velocity of body j's material point at P (2-D): s_dot + omega n x P.
static void point_velocity(const hy_data* d, const dca* t, int j, const double* P, double* v) {
  const double* Z = d->body_Z + 6 * j;
  double sd[2];
  to_plane(t, Z, sd);
  const double om = hy_v3_dot(t->n, Z + 3);
  v[0] = sd[0] - om * P[1];
  v[1] = sd[1] + om * P[0];
}

// b_j^T X for joint j at its point P and X = [x; x_n] at P: s x_n (revolute) or u . x (prismatic).
static double along_joint(const hy_model* m, const dca* t, const hy_data* d, int j, const double* x,
                          double xn) {
  double b[3], dd[3];
  joint_terms3(m, t, d, j, b, dd);
  return m->jnt_type[j] == HY_JOINT_REVOLUTE ? b[2] * xn : b[0] * x[0] + b[1] * x[1];
}

// Walks chain c from its tip: for each joint j, the sum (S, S_n) of a per-body quantity (x_k,
// x_n,k about the body's centre of mass) over the bodies beyond j, with S_n about j's point,
// shifted from joint to joint so that it stays local. Calls out(j, P_j, S, S_n). The branches
// hanging from the chain's bodies are walked before it (the callers go from the last chain to the
// first), and their totals kept in t->beyond join the sums where they hang.
typedef void (*beyond_fn)(hy_form* f, int j, const double* P, const double* S, double Sn);
static void sum_beyond(hy_form* f, int c, const double* per_body, beyond_fn out) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  const int len = chain_reversed(t, c);
  double S[2] = {0, 0}, Sn = 0, Pprev[2] = {0, 0};
  for (int i = 0; i < len; i++) {
    const int j = t->chain[i];
    double P[2], cm[2];
    joint_point(m, d, t, j, P);
    if (i > 0) Sn += cross2((const double[2]){Pprev[0] - P[0], Pprev[1] - P[1]}, S);
    to_plane(t, d->body_com + 3 * j, cm);
    const double* x = per_body + 3 * j;
    Sn += x[2] + cross2((const double[2]){cm[0] - P[0], cm[1] - P[1]}, x);
    S[0] += x[0];
    S[1] += x[1];
    for (int b = t->mount[j]; b >= 0; b = t->next_mount[b]) {
      const double* B = t->beyond + 9 * b;  // S, S_n about the branch's joint point, that point
      Sn += B[2] + cross2((const double[2]){B[3] - P[0], B[4] - P[1]}, B);
      S[0] += B[0];
      S[1] += B[1];
    }
    out(f, j, P, S, Sn);
    Pprev[0] = P[0];
    Pprev[1] = P[1];
  }
  double* B = t->beyond + 9 * c;
  B[0] = S[0];
  B[1] = S[1];
  B[2] = Sn;
  B[3] = Pprev[0];
  B[4] = Pprev[1];
}

static void set_momentum(hy_form* f, int j, const double* P, const double* S, double Sn) {
  (void)P;
  f->d->mom[f->m->jnt_zadr[j]] = along_joint(f->m, f->self, f->d, j, S, Sn);
}

// p = b^T (the momentum beyond each joint) from the state's velocities: seed 004 Eq. 6 with
// sigma = 0 (no impulse absorbed at the start). Needs both kinematics stages.
static void initial_momenta(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  // each body's momentum [m v_c; J_c omega]
  for (int j = 0; j < m->sizes.nbody; j++) {
    double cm[2], v[2];
    to_plane(t, d->body_com + 3 * j, cm);
    point_velocity(d, t, j, cm, v);
    double* x = t->work + 3 * j;
    x[0] = m->body_mass[j] * v[0];
    x[1] = m->body_mass[j] * v[1];
    x[2] = f->mech->body_Jn[j] * hy_v3_dot(t->n, d->body_Z + 6 * j + 3);
  }
  for (int c = t->nchain - 1; c >= 0; c--) sum_beyond(f, c, t->work, set_momentum);
}

static void set_rate(hy_form* f, int j, const double* P, const double* S, double Sn) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  // P-bar_j: the velocity solve's force through the joint (the root's handle 1 for a first joint)
  const int node = t->jnode[j];
  const double* Pbar = node >= 0 ? nodes3(t)[node].FJ : nodes3(t)[t->root[t->head[j]]].F1;
  // b_dot^T P-bar: revolute b = [-s n x P; s] about the origin, b_dot = [-s n x P_dot; 0];
  // prismatic b = [u; 0], b_dot = [omega_parent n x u; 0]
  double b[3], dd[3];
  joint_terms3(m, t, d, j, b, dd);
  double bdot[2];
  if (m->jnt_type[j] == HY_JOINT_REVOLUTE) {
    double v[2];
    point_velocity(d, t, j, P, v);
    bdot[0] = b[2] * v[1];
    bdot[1] = -b[2] * v[0];
  } else {
    const int par = m->body_parent[j];
    const double om = par < 0 ? 0.0 : hy_v3_dot(t->n, d->body_Z + 6 * par + 3);
    bdot[0] = -om * b[1];
    bdot[1] = om * b[0];
  }
  d->mom_d[m->jnt_zadr[j]] = bdot[0] * Pbar[0] + bdot[1] * Pbar[1] + along_joint(m, t, d, j, S, Sn);
}

// In space (the same, with 3-D sums): for each joint j of chain c from its tip, the sum S of a
// per-body 6-vector's linear parts over the bodies beyond j and the sum Sn of their moments
// about j's point P (each x about its body's centre of mass), shifted from joint to joint.
typedef void (*beyond6_fn)(hy_form* f, int j, const double* P, const double* S, const double* Sn);
static void sum_beyond6(hy_form* f, int c, const double* per_body, beyond6_fn out) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  const int len = chain_reversed(t, c);
  double S[3] = {0, 0, 0}, Sn[3] = {0, 0, 0}, Pprev[3] = {0, 0, 0};
  for (int i = 0; i < len; i++) {
    const int j = t->chain[i];
    double P[3], r[3], n[3];
    joint_point6(m, d, j, P);
    if (i > 0) {
      hy_v3_sub(r, Pprev, P);
      hy_v3_cross(n, r, S);
      hy_v3_add(Sn, Sn, n);
    }
    const double* x = per_body + 6 * j;
    hy_v3_sub(r, d->body_com + 3 * j, P);
    hy_v3_cross(n, r, x);
    for (int q = 0; q < 3; q++) {
      Sn[q] += x[3 + q] + n[q];
      S[q] += x[q];
    }
    for (int b = t->mount[j]; b >= 0; b = t->next_mount[b]) {
      const double* B = t->beyond + 9 * b;  // S, S_n about the branch's joint point, that point
      hy_v3_sub(r, B + 6, P);
      hy_v3_cross(n, r, B);
      for (int q = 0; q < 3; q++) {
        Sn[q] += B[3 + q] + n[q];
        S[q] += B[q];
      }
    }
    out(f, j, P, S, Sn);
    hy_v3_copy(Pprev, P);
  }
  double* B = t->beyond + 9 * c;
  hy_v3_copy(B, S);
  hy_v3_copy(B + 3, Sn);
  hy_v3_copy(B + 6, Pprev);
}

// b_j^T [S; Sn] at joint j's point: u . Sn (revolute) or u . S (prismatic).
static double along_joint6(const hy_model* m, const hy_data* d, int j, const double* S,
                           const double* Sn) {
  const double* bj = d->jnt_b + 6 * j;
  return m->jnt_type[j] == HY_JOINT_REVOLUTE ? hy_v3_dot(bj + 3, Sn) : hy_v3_dot(bj, S);
}

static void set_momentum6(hy_form* f, int j, const double* P, const double* S, const double* Sn) {
  (void)P;
  f->d->mom[f->m->jnt_zadr[j]] = along_joint6(f->m, f->d, j, S, Sn);
}

// p = b^T (the momentum beyond each joint), Eq. 6 with sigma = 0, in space: each body's
// momentum [m v_c; I_c omega] about its centre of mass.
static void initial_momenta6(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const double* Z = d->body_Z + 6 * j;
    double Ic[9], wc[3];
    hy_v3_cross(wc, Z + 3, d->body_com + 3 * j);
    double* x = t->work + 6 * j;
    for (int q = 0; q < 3; q++) x[q] = m->body_mass[j] * (Z[q] + wc[q]);
    world_inertia(m, d, j, Ic);
    hy_m3_mulv(x + 3, Ic, Z + 3);
  }
  for (int c = t->nchain - 1; c >= 0; c--) sum_beyond6(f, c, t->work, set_momentum6);
}

// p_dot_j = b_dot_j^T P-bar_j + b_j^T F_j in space. With P-bar = [f; n_P] at the joint's point P
// and b = [P x u; u] about the origin: revolute b_dot^T P-bar = (P_dot x u) . f + u_dot . n_P
// (the terms in P x u_dot cancel), prismatic u_dot . f; u_dot = omega_parent x u either way.
static void set_rate6(hy_form* f, int j, const double* P, const double* S, const double* Sn) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  const int node = t->jnode[j];
  const double* Pbar = node >= 0 ? nodes6(t)[node].FJ : nodes6(t)[t->root[t->head[j]]].F1;
  const double* bj = d->jnt_b + 6 * j;
  const int rev = m->jnt_type[j] == HY_JOINT_REVOLUTE;
  const double* u = rev ? bj + 3 : bj;
  const int par = m->body_parent[j];
  double udot[3] = {0, 0, 0};
  if (par >= 0) hy_v3_cross(udot, d->body_Z + 6 * par + 3, u);
  double rate = rev ? hy_v3_dot(udot, Pbar + 3) : hy_v3_dot(udot, Pbar);
  if (rev) {
    double Pd[3], Pdu[3];
    hy_v3_cross(Pd, d->body_Z + 6 * j + 3, P);
    hy_v3_add(Pd, Pd, d->body_Z + 6 * j);
    hy_v3_cross(Pdu, Pd, u);
    rate += hy_v3_dot(Pdu, Pbar);
  }
  d->mom_d[m->jnt_zadr[j]] = rate + along_joint6(m, d, j, S, Sn);
}

static void hdca_rates6(hy_form* f) {
  const hy_model* m = f->m;
  dca* t = f->self;
  applied_forces6(f);
  for (int j = 0; j < m->sizes.nbody; j++) {
    memcpy(t->work + 6 * j, nodes6(t)[t->leaf[j]].b1, 6 * sizeof(double));
  }
  for (int c = t->nchain - 1; c >= 0; c--) sum_beyond6(f, c, t->work, set_rate6);
}

// HDCA's velocities: the assembly at velocity level from the momenta (after the position stage).
static hy_status hdca_velocities(hy_form* f) { return solve(f); }

// The momenta's rates, after the velocities' kinematics and the forces at the state.
// The reactions need forces, which HDCA's velocity-level solve does not give: DCA's solve at
// the state, after the rates (it overwrites the nodes' momenta), on request only. Its
// accelerations are kept in zdd.
static hy_status hdca_reactions(hy_form* f) {
  dca* t = f->self;
  t->ham = 0;
  const hy_status st = solve(f);
  t->ham = 1;
  HY_TRY(st);
  store_reactions(f);
  return HY_OK;
}

static void hdca_rates3(hy_form* f);

static hy_status hdca_rates(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  // HDCA forms no accelerations (the records show 0, or DCA's with the reactions)
  memset(d->zdd, 0, sizeof(double) * (size_t)m->sizes.nz);
  if (m->planar) {
    hdca_rates3(f);
  } else {
    hdca_rates6(f);
  }
  // a damper's torque (force) acts on the bodies beyond its joint and, opposite, on the joint's
  // parent: only the momentum through its own joint sees it (docs/mechanics.md, "Joint damping")
  if (m->sizes.ndamp > 0) {
    for (int j = 0; j < m->sizes.nbody; j++) {
      const int zi = m->jnt_zadr[j];
      d->mom_d[zi] -= m->jnt_damp[j] * d->zd[zi];
    }
  }
  return m->opt.reactions ? hdca_reactions(f) : HY_OK;
}

// The momenta's rates in the plane.
static void hdca_rates3(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  applied_forces(f);
  // each body's applied force about its centre of mass (the leaves hold them now)
  for (int j = 0; j < m->sizes.nbody; j++) {
    memcpy(t->work + 3 * j, nodes3(t)[t->leaf[j]].b1, 3 * sizeof(double));
  }
  // A cut's impulse sigma (the velocity solve's F_2 at a closed chain's tip, on the chain) is a
  // part of the momenta beyond every joint of its chain (p = b^T (Pi - Sigma)); sigma's rate is
  // the cut's reaction, which the augmented momenta absorb, but its moment about a fixed point
  // also turns as its point X moves: d/dt (X x sigma) = X_dot x sigma + X x sigma_dot. That
  // first part stays, as a pure moment on the tip: -X_dot x sigma. It vanishes for a cut to
  // ground, whose point HDCA holds at rest.
  for (int c = 0; c < t->nchain; c++) {
    if (t->tip_mrk[c] < 0) continue;
    const int mk = t->tip_mrk[c], tip = m->mrk_body[mk];
    const double* sigma = nodes3(t)[t->root[c]].F2;
    double X[2], v[2];
    to_plane(t, d->mrk_pos + 3 * mk, X);
    point_velocity(d, t, tip, X, v);
    t->work[3 * tip + 2] -= cross2(v, sigma);
  }
  for (int c = t->nchain - 1; c >= 0; c--) sum_beyond(f, c, t->work, set_rate);
}

// The initial momenta from the state's velocities: the initial state's last evaluation may have
// left the kinematics at other velocities (its static checks take them at rest), so both stages
// are run at the state first.
static hy_status hdca_start(hy_form* f) {
  hy_mech_kinematics_pos(f->m, f->d, f->mech);
  hy_mech_kinematics_vel(f->m, f->d, f->mech);
  if (f->m->planar) {
    initial_momenta(f);
  } else {
    initial_momenta6(f);
  }
  return HY_OK;
}

// The momenta are HDCA's state beside the coordinates, and their rates what an explicit step
// starts from (as z_ddot is for the others): both kept with the history.
static int hdca_hist_size(const hy_model* m) { return 2 * m->sizes.nz; }
static void hdca_hist_get(const hy_form* f, double* buf) {
  const size_t nz = (size_t)f->m->sizes.nz;
  memcpy(buf, f->d->mom, sizeof(double) * nz);
  memcpy(buf + nz, f->d->mom_d, sizeof(double) * nz);
}
static void hdca_hist_set(hy_form* f, const double* buf) {
  const size_t nz = (size_t)f->m->sizes.nz;
  memcpy(f->d->mom, buf, sizeof(double) * nz);
  memcpy(f->d->mom_d, buf + nz, sizeof(double) * nz);
}

static hy_status dca_start(hy_form* f) {
  (void)f;
  return HY_OK;
}

static int dca_hist_size(const hy_model* m) {
  (void)m;
  return 0;
}
static void dca_hist_get(const hy_form* f, double* buf) {
  (void)f;
  (void)buf;
}
static void dca_hist_set(hy_form* f, const double* buf) {
  (void)f;
  (void)buf;
}
static int dca_hist_ok(const hy_model* m, const double* buf) {
  (void)m;
  (void)buf;
  return 1;
}

// Whether DCA or HDCA can run m (trees; planar loops closed at the ends of chains from ground);
// else the reason.
hy_status hy_form_dca_check(const hy_model* m, const char* name, hy_error* err) {
  int bad = -1;
  if (!m->planar && m->sizes.ncut > 0) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s closes loops in planar models only so far: model '%s' is "
                   "spatial and has cut joints",
                   name, m->name);
  }
  // a joint of several coordinates is a chain through massless bodies, which no leaf of the
  // assembly can invert
  for (int j = 0; j < m->sizes.nbody; j++) {
    const hy_joint_type kind = (hy_joint_type)m->jnt_kind[j];
    if (hy_joint_type_nz(kind) < 2) continue;
    char def[HY_NAME_MAX];
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s runs revolute and prismatic joints only: %s joint '%s' of "
                   "model '%s' is a chain of %d joints through massless bodies, and %s inverts "
                   "the inertia of every body (use tree, penalty or double-step)",
                   name, hy_joint_type_name(kind), hy_model_joint_def_name(m, j, def), m->name,
                   hy_joint_type_nz(kind), name);
  }
  // a body without inertia about some axis (a point mass; in space also a rod) can be folded
  // into its parent only (leaf_inertia): it must hang from a body, end the tree and close no loop
  for (int j = 0; j < m->sizes.nbody; j++) {
    if (!point_like(m, j)) continue;
    int why = !(m->body_mass[j] > 0) ? 1 : m->body_parent[j] < 0 ? 2 : 0;
    for (int q = j + 1; !why && q < m->sizes.nbody; q++) why = m->body_parent[q] == j ? 3 : 0;
    for (int k = 0; !why && k < m->sizes.ncut; k++) {
      why = m->mrk_body[m->cut_mrk_a[k]] == j || m->mrk_body[m->cut_mrk_b[k]] == j ? 4 : 0;
    }
    static const char* const kWhy[] = {"", "it has no mass", "it hangs from ground",
                                       "it has children", "a cut joint closes at it"};
    if (why) {
      return HY_FAIL(err, HY_ERR_MODEL,
                     "formulation %s runs a body without inertia about some axis (a point mass%s) "
                     "only at the end of a tree, hanging from another body: body '%s' of model "
                     "'%s' has none, and %s",
                     name, m->planar ? "" : " or a rod", m->body_name + (size_t)j * HY_NAME_MAX,
                     m->name, kWhy[why]);
    }
  }
  for (int j = 0; j < m->sizes.nbody; j++) {
    if (m->jnt_type[j] != HY_JOINT_REVOLUTE && m->jnt_type[j] != HY_JOINT_PRISMATIC) {
      return HY_FAIL(err, HY_ERR_MODEL,
                     "formulation %s runs revolute and prismatic joints so far: joint '%s' of "
                     "model '%s' is neither",
                     name, m->jnt_name + (size_t)j * HY_NAME_MAX, m->name);
    }
  }
  if (m->sizes.nnh > 0) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s cannot run model '%s': it has nonholonomic constraints", name,
                   m->name);
  }
  // cut joints: revolute or spherical, between two bodies or one and ground, all those on one
  // body at one point (the handle 2 of the chain it ends)
  for (int k = 0; k < m->sizes.ncut; k++) {
    const int mk[2] = {m->cut_mrk_a[k], m->cut_mrk_b[k]};
    int ok = m->cut_type[k] != HY_CUT_TRANSLATIONAL &&
             (m->mrk_body[mk[0]] >= 0 || m->mrk_body[mk[1]] >= 0) &&
             m->mrk_body[mk[0]] != m->mrk_body[mk[1]];
    for (int side = 0; ok && side < 2; side++) {
      const int on = m->mrk_body[mk[side]];
      if (on < 0) continue;
      for (int k2 = 0; ok && k2 < k; k2++) {
        for (int side2 = 0; side2 < 2; side2++) {
          const int other = side2 == 0 ? m->cut_mrk_a[k2] : m->cut_mrk_b[k2];
          if (m->mrk_body[other] != on) continue;
          double gap[3];
          hy_v3_sub(gap, m->mrk_point + 3 * other, m->mrk_point + 3 * mk[side]);
          ok = hy_v3_norm(gap) <= 1e-9;
        }
      }
    }
    if (!ok) {
      return HY_FAIL(err, HY_ERR_MODEL,
                     "formulation %s closes loops so far only by revolute or spherical cut "
                     "joints between two bodies (or one and ground), all those on one body at "
                     "one point: cut joint '%s' of model '%s' is not one",
                     name, m->cut_name + (size_t)k * HY_NAME_MAX, m->name);
    }
  }
  // the loops close at the tips of chains that hang from ground: plan_chains makes the child
  // that leads to a cut each body's main one, and refuses a body with two such
  const size_t nb = (size_t)m->sizes.nbody + 1;
  int* child = hy_malloc(3 * nb * sizeof(int));
  const int chains = plan_chains(m, child, child + nb, child + 2 * nb, &bad);
  hy_free(child);
  if (chains < 0) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s closes loops so far along one path from ground: below body "
                   "'%s' of model '%s', two of its children lead to cut joints, or it has cut "
                   "joints and a child does",
                   name, m->body_name + (size_t)bad * HY_NAME_MAX, m->name);
  }
  return HY_OK;
}

const hy_form_ops hy_form_dca_ops = {
    .kind = HY_FORM_DCA,
    .name = "dca",
    .has_ode = 1,
    .no_mass_matrix = 1,
    .size = dca_size,
    .bind = dca_bind,
    .scratch = dca_scratch,
    .start = dca_start,
    .accelerations = dca_accelerations,
    .hist_size = dca_hist_size,
    .hist_get = dca_hist_get,
    .hist_set = dca_hist_set,
    .hist_ok = dca_hist_ok,
};

const hy_form_ops hy_form_hdca_ops = {
    .kind = HY_FORM_HDCA,
    .name = "hdca",
    .has_ode = 1,
    .no_mass_matrix = 1,
    .size = dca_size,
    .bind = dca_bind,
    .scratch = dca_scratch,
    .start = hdca_start,
    .velocities = hdca_velocities,
    .accelerations = hdca_rates,
    .hist_size = hdca_hist_size,
    .hist_get = hdca_hist_get,
    .hist_set = hdca_hist_set,
    .hist_ok = dca_hist_ok,
};
