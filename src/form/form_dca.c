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
// This first version is planar: the vectors are the in-plane [a_1; a_2; alpha_n] (3) and the
// matrices 3 x 3. It runs trees in which every body has at most one child (chains, any number of
// them hanging from ground), closed by revolute or spherical cut joints between chains' last
// bodies or from one to ground (hdca-case3's two chains meeting the middle bar's tip); other
// loops and branching bodies are refused (hy_form_dca_check).
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_common.h"

// One node of an assembly tree: a body (leaf) or two assembled halves.
typedef struct dca_node {
  int left, right;  // children (node indices), -1 for a leaf
  int body;         // leaf: its body; internal: the first body of the right half (its joint J)
  double P11[9], P12[9], P21[9], P22[9];  // handle mobilities Phi_ij (row-major 3 x 3)
  double b1[3], b2[3];                    // beta_1, beta_2
  double Y[9], g[3], c[3];                // internal: F_J = Y rhs, z_ddot = g . rhs, rhs constant
  double F1[3], F2[3];                    // disassembly: the handle forces handed down
  double kinv;                            // internal: 1 / (b^T W^-1 b)
  int nleaf;                              // the bodies below it
  double FJ[3];                           // internal: the force (momentum) through its joint
} dca_node;

typedef struct dca {
  int ham;         // hdca: the velocity-level solve (momenta and impulses) instead of DCA's
  int nnode;
  int nchain;
  dca_node* node;  // the trees of every chain, children before parents       (2 nbody - nchain)
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
  int* looppiv;    //                                                          (nrow)
  int* jnode;      // the node whose joint is body j's, -1 for a chain's first  (nbody)
  double* work;    // HDCA: a 3-vector per body (momenta, applied forces)      (3 nbody)
  double e1[3], e2[3], n[3];  // the plane's axes, e1 x e2 = n
} dca;

// The chains of the tree: a body whose parent is ground starts one, and each body has at most one
// child. Returns the number of chains, or -1 (and the first body with two children in *bad).
static int count_chains(const hy_model* m, int* bad) {
  const int nb = m->sizes.nbody;
  int chains = 0;
  for (int j = 0; j < nb; j++) {
    if (m->body_parent[j] < 0) chains++;
    int kids = 0;
    for (int k = j + 1; k < nb; k++) kids += m->body_parent[k] == j;
    if (kids > 1) {
      *bad = j;
      return -1;
    }
  }
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

static size_t dca_size(const hy_model* m) {
  int bad;
  const int chains = count_chains(m, &bad);
  const size_t nb = (size_t)m->sizes.nbody, nc = chains > 0 ? (size_t)chains : 0;
  const size_t nr = loop_rows(m, chains);
  return hy_arena_need(sizeof(dca)) + hy_arena_need(node_count(m, chains) * sizeof(dca_node)) +
         4 * hy_ints(nc + 1) + 3 * hy_ints(nb + 1) + hy_doubles(3 * nb) +
         hy_ints(2 * (size_t)m->sizes.ncut + 1) + hy_doubles(nr * nr + 1) + hy_doubles(nr + 1) +
         hy_ints(nr + 1);
}

// Builds the balanced tree over chain[lo .. hi] (body indices in chain order), children before
// their parent, so that node order is an assembly order; returns its node.
static int build(dca* t, const int* chain, int lo, int hi) {
  if (lo == hi) {
    const int self = t->nnode++;
    t->node[self] = (dca_node){.left = -1, .right = -1, .body = chain[lo], .nleaf = 1};
    t->leaf[chain[lo]] = self;
    return self;
  }
  const int mid = (lo + hi) / 2;
  const int l = build(t, chain, lo, mid);
  const int r = build(t, chain, mid + 1, hi);
  const int self = t->nnode++;
  t->node[self] =
      (dca_node){.left = l, .right = r, .body = chain[mid + 1], .nleaf = hi - lo + 1};
  t->jnode[chain[mid + 1]] = self;
  return self;
}

static void dca_bind(hy_form* f, unsigned char* mem) {
  const hy_model* m = f->m;
  int bad;
  const int chains = count_chains(m, &bad);
  const int nb = m->sizes.nbody;
  const size_t nc = chains > 0 ? (size_t)chains : 0;
  dca* t = (dca*)mem;
  mem += hy_arena_need(sizeof(dca));
  t->node = (dca_node*)mem;
  mem += hy_arena_need(node_count(m, chains) * sizeof(dca_node));
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
  t->work = (double*)mem;
  mem += hy_doubles(3 * (size_t)nb);
  t->cut_chain = (int*)mem;
  mem += hy_ints(2 * (size_t)m->sizes.ncut + 1);
  const size_t nr = loop_rows(m, chains);
  t->loopA = (double*)mem;
  mem += hy_doubles(nr * nr + 1);
  t->loopx = (double*)mem;
  mem += hy_doubles(nr + 1);
  t->looppiv = (int*)mem;
  for (int j = 0; j < nb; j++) t->jnode[j] = -1;
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
  // each chain from its ground body down (bodies are numbered parents first)
  int c = 0;
  for (int j = 0; j < nb && chains > 0; j++) {
    if (m->body_parent[j] >= 0) continue;
    int len = 0;
    int* chain = t->chain;
    for (int k = j; k >= 0;) {
      chain[len++] = k;
      int next = -1;
      for (int q = k + 1; q < nb; q++) {
        if (m->body_parent[q] == k) next = q;
      }
      t->child[k] = next;
      k = next;
    }
    t->first[c] = j;
    // cut joints at the last body close the chain into loops (with ground or other chains)
    const int last = chain[len - 1];
    t->tip_mrk[c] = -1;
    for (int k = 0; k < m->sizes.ncut; k++) {
      for (int side = 0; side < 2; side++) {
        const int mk = side == 0 ? m->cut_mrk_a[k] : m->cut_mrk_b[k];
        if (m->mrk_body[mk] == last) {
          t->tip_mrk[c] = mk;
          t->cut_chain[2 * k + side] = c;
        }
      }
    }
    t->root[c++] = build(t, chain, 0, len - 1);
  }
  // the loops' system: the closed chains' rows first, then the cuts'
  t->nrow = 0;
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

static inline void mul33(const double* a, const double* b, double* c) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      c[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    }
  }
}

static inline void mulv3(const double* a, const double* x, double* y) {
  for (int i = 0; i < 3; i++) y[i] = a[3 * i] * x[0] + a[3 * i + 1] * x[1] + a[3 * i + 2] * x[2];
}

// The inverse of a symmetric positive-definite 3 x 3 by its adjugate; 0 when it is not.
static int inv33(const double* a, double* r) {
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
                      dca_node* L, const double* P1, const double* P2, const double* c) {
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
static void joint_terms(const hy_model* m, const dca* t, const hy_data* d, int j, double* b,
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

// The saddle point of the joint: W F = b z_ddot + rhs, b^T F = 0; Y and g of the node. Returns 0
// when W is not positive definite (a massless half).
// With b^T F = p instead (the joint's canonical momentum, HDCA), F = Y rhs - g p and
// z_dot = g^T rhs + p / (b^T W^-1 b): kinv = 1 / (b^T W^-1 b).
static int joint_solve(const double* W, const double* b, double* Y, double* g, double* kinv) {
  double Wi[9], Wb[3];
  if (!inv33(W, Wi)) return 0;
  mulv3(Wi, b, Wb);
  const double bWb = b[0] * Wb[0] + b[1] * Wb[1] + b[2] * Wb[2];
  if (!(bWb > 0)) return 0;
  *kinv = 1 / bWb;
  for (int i = 0; i < 3; i++) g[i] = -Wb[i] / bWb;
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 3; k++) Y[3 * i + k] = Wi[3 * i + k] + Wb[i] * g[k];
  }
  return 1;
}

// What the joint's b^T F equals: 0 for DCA (no joint torque), the joint's canonical momentum
// for HDCA (seed 004 Eq. 10: the articulated momentum's H-part).
static inline double joint_source(const hy_model* m, const hy_data* d, const dca* t, int j) {
  return t->ham ? d->mom[m->jnt_zadr[j]] : 0.0;
}

// Where the joints' solution goes: accelerations (DCA) or velocities (HDCA).
static inline double* solved(hy_data* d, const dca* t) { return t->ham ? d->zd : d->zdd; }

static int assemble(const hy_model* m, const hy_data* d, const dca* t, dca_node* C,
                    const dca_node* A, const dca_node* B) {
  double b[3], dd[3], W[9];
  joint_terms(m, t, d, C->body, b, dd);
  for (int i = 0; i < 9; i++) W[i] = A->P22[i] + B->P11[i];
  if (!joint_solve(W, b, C->Y, C->g, &C->kinv)) return 0;
  for (int i = 0; i < 3; i++) C->c[i] = dd[i] + A->b2[i] - B->b1[i];
  const double p = joint_source(m, d, t, C->body);
  double YA[9], YB[9], T[9], Yc[3], v[3];
  mul33(C->Y, A->P21, YA);  // Y Phi^A_21
  mul33(C->Y, B->P12, YB);  // Y Phi^B_12
  mul33(A->P12, YA, T);
  for (int i = 0; i < 9; i++) C->P11[i] = A->P11[i] - T[i];
  mul33(A->P12, YB, C->P12);
  mul33(B->P21, YA, C->P21);
  mul33(B->P21, YB, T);
  for (int i = 0; i < 9; i++) C->P22[i] = B->P22[i] - T[i];
  mulv3(C->Y, C->c, Yc);
  for (int i = 0; i < 3; i++) Yc[i] -= C->g[i] * p;
  mulv3(A->P12, Yc, v);
  for (int i = 0; i < 3; i++) C->b1[i] = A->b1[i] - v[i];
  mulv3(B->P21, Yc, v);
  for (int i = 0; i < 3; i++) C->b2[i] = B->b2[i] + v[i];
  return 1;
}

// rhs of node C's joint for its handle forces, z_ddot of the joint and the children's forces.
static void disassemble(const hy_model* m, hy_data* d, dca* t, dca_node* C) {
  dca_node* A = &t->node[C->left];
  dca_node* B = &t->node[C->right];
  double rhs[3], v[3], FJ[3];
  mulv3(A->P21, C->F1, rhs);
  mulv3(B->P12, C->F2, v);
  for (int i = 0; i < 3; i++) rhs[i] += C->c[i] - v[i];
  const double p = joint_source(m, d, t, C->body);
  mulv3(C->Y, rhs, FJ);
  for (int i = 0; i < 3; i++) FJ[i] -= C->g[i] * p;
  memcpy(C->FJ, FJ, sizeof FJ);
  solved(d, t)[m->jnt_zadr[C->body]] =
      C->g[0] * rhs[0] + C->g[1] * rhs[1] + C->g[2] * rhs[2] + C->kinv * p;
  for (int i = 0; i < 3; i++) {
    A->F1[i] = C->F1[i];
    A->F2[i] = -FJ[i];
    B->F1[i] = FJ[i];
    B->F2[i] = C->F2[i];
  }
}

// The applied forces of every body in the plane (gravity, loads, force elements) about its centre
// of mass, gathered in the leaves' b1 before the leaves' terms are formed from them.
static void applied_forces(const hy_model* m, const hy_data* d, dca* t) {
  for (int j = 0; j < m->sizes.nbody; j++) {
    dca_node* L = &t->node[t->leaf[j]];
    double grav[3];
    hy_v3_scale(grav, m->opt.gravity, m->body_mass[j]);
    memset(L->b1, 0, sizeof L->b1);
    double c[2];
    to_plane(t, d->body_com + 3 * j, c);
    add_force(t, d->body_com + 3 * j, c, grav, L->b1);
  }
  for (int k = 0; k < m->sizes.nfrc; k++) {
    const double F = d->frc_force[k];
    if (F == 0) continue;
    double f[3];
    hy_v3_scale(f, d->frc_dir + 3 * k, F);
    const int ends[2] = {m->frc_mrk_b[k], m->frc_mrk_a[k]};
    for (int e = 0; e < 2; e++) {
      const int mk = ends[e], body = m->mrk_body[mk];
      if (e == 1) hy_v3_scale(f, f, -1.0);
      if (body < 0) continue;
      double c[2];
      to_plane(t, d->body_com + 3 * body, c);
      add_force(t, d->mrk_pos + 3 * mk, c, f, t->node[t->leaf[body]].b1);
    }
  }
  for (int k = 0; k < m->sizes.nload; k++) {
    const int mk = m->load_mrk[k], body = m->mrk_body[mk];
    if (body < 0) continue;
    double v[3];
    hy_v3_copy(v, m->load_vector + 3 * k);
    if (m->load_sig[k] >= 0) hy_v3_scale(v, v, hy_signal_eval(m, m->load_sig[k], d->time));
    dca_node* L = &t->node[t->leaf[body]];
    if (m->load_type[k] == HY_LOAD_TORQUE) {
      L->b1[2] += hy_v3_dot(t->n, v);
    } else {
      double c[2];
      to_plane(t, d->body_com + 3 * body, c);
      add_force(t, d->mrk_pos + 3 * mk, c, v, L->b1);
    }
  }
}

// The cut joint's marker on body j when j ends a chain closed to ground, else -1.
static int tip_marker(const hy_model* m, const dca* t, int j) {
  (void)m;
  for (int c = 0; c < t->nchain; c++) {
    if (t->tip_mrk[c] >= 0 && m->mrk_body[t->tip_mrk[c]] == j) return t->tip_mrk[c];
  }
  return -1;
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
    const dca_node* R = &t->node[t->root[c]];
    const int j = t->first[c];
    double b[3], dd[3];
    joint_terms(m, t, d, j, b, dd);
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
      const dca_node* R = &t->node[t->root[c]];
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
    dca_node* R = &t->node[t->root[c]];
    for (int i = 0; i < 3; i++) R->F1[i] = x[r + i];
    solved(d, t)[m->jnt_zadr[t->first[c]]] = x[r + 3];
    memset(R->F2, 0, sizeof R->F2);
  }
  for (int k = 0; k < ncut; k++) {
    for (int side = 0; side < 2; side++) {
      const int c = t->cut_chain[2 * k + side];
      if (c < 0) continue;
      const double sg = side == 0 ? 1.0 : -1.0;
      dca_node* R = &t->node[t->root[c]];
      for (int i = 0; i < 2; i++) R->F2[i] += sg * x[cut0 + 2 * k + i];
    }
  }
  return 1;
}

// A subtree this large or larger is assembled and disassembled as a task of its own (OpenMP): a
// task costs about a microsecond, a body's share of the assembly a few tenths of one.
#define TASK_MIN_BODIES 64

// Node k's leaf terms or assembly, after its children's; sets *bad to a failing node.
static void assemble_up(hy_form* f, int k, int* bad) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  dca_node* N = &t->node[k];
  if (N->left < 0) {
    // handle 1 at the body's joint, handle 2 at its child's joint (or the cut joint's marker,
    // or its centre of mass)
    const int j = N->body;
    double c[2], P1[2], P2[2];
    to_plane(t, d->body_com + 3 * j, c);
    joint_point(m, d, t, j, P1);
    const int child = t->child[j];
    const int cut_mrk = child < 0 ? tip_marker(m, t, j) : -1;
    if (child >= 0) {
      joint_point(m, d, t, child, P2);
    } else if (cut_mrk >= 0) {
      to_plane(t, d->mrk_pos + 3 * cut_mrk, P2);
    } else {
      P2[0] = c[0];
      P2[1] = c[1];
    }
    if (!leaf_terms(d, t, f->mech, m, N, P1, P2, c)) {
#pragma omp atomic write
      *bad = k;
    }
    return;
  }
  if (N->nleaf >= TASK_MIN_BODIES) {
#pragma omp task default(shared) firstprivate(k)
    assemble_up(f, N->left, bad);
    assemble_up(f, N->right, bad);
#pragma omp taskwait
  } else {
    assemble_up(f, N->left, bad);
    assemble_up(f, N->right, bad);
  }
  if (!assemble(m, d, t, N, &t->node[N->left], &t->node[N->right])) {
#pragma omp atomic write
    *bad = k;
  }
}

// Node k's joint from its handle forces, then its children's.
static void disassemble_down(hy_form* f, int k) {
  dca* t = f->self;
  dca_node* N = &t->node[k];
  if (N->left < 0) return;
  disassemble(f->m, f->d, t, N);
  if (N->nleaf >= TASK_MIN_BODIES) {
#pragma omp task default(shared) firstprivate(k)
    disassemble_down(f, N->left);
    disassemble_down(f, N->right);
#pragma omp taskwait
  } else {
    disassemble_down(f, N->left);
    disassemble_down(f, N->right);
  }
}

// The assembly, the roots and the disassembly: DCA's accelerations, or HDCA's velocities. Every
// node's numbers come from its children's alone, so the order the tasks run in changes no bit:
// the results are the same for any number of threads (opt.threads).
static hy_status solve(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  if (!t->ham) applied_forces(m, d, t);
  int bad = -1;
  const int threads = m->opt.threads > 1 ? m->opt.threads : 1;
#pragma omp parallel num_threads(threads) if (threads > 1)
#pragma omp single
  for (int c = 0; c < t->nchain; c++) assemble_up(f, t->root[c], &bad);
  if (bad >= 0) {
    const dca_node* N = &t->node[bad];
    if (N->left < 0) {
      return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                     "%s: body '%s' has no positive planar inertia (mass and inertia about the "
                     "plane normal must be > 0)",
                     f->ops->name, m->body_name + (size_t)N->body * HY_NAME_MAX);
    }
    return HY_FAIL(&d->err, HY_ERR_SINGULAR, "%s: singular joint '%s' at t = %g s", f->ops->name,
                   m->jnt_name + (size_t)N->body * HY_NAME_MAX, d->time);
  }
  for (int c = 0; c < t->nchain; c++) {
    if (t->row[c] >= 0) continue;
    // an open chain: its first joint meets ground, Z_dot = 0 there: W = Phi_11,
    // rhs = d - beta_1; the tip is free (F_2 = 0)
    dca_node* R = &t->node[t->root[c]];
    const int j = t->first[c];
    double b[3], dd[3], Y[9], g[3], rhs[3], kinv = 0;
    joint_terms(m, t, d, j, b, dd);
    const double p = joint_source(m, d, t, j);
    if (!joint_solve(R->P11, b, Y, g, &kinv)) {
      return HY_FAIL(&d->err, HY_ERR_SINGULAR, "%s: singular joint '%s' at t = %g s",
                     f->ops->name, m->jnt_name + (size_t)j * HY_NAME_MAX, d->time);
    }
    for (int i = 0; i < 3; i++) rhs[i] = dd[i] - R->b1[i];
    solved(d, t)[m->jnt_zadr[j]] = g[0] * rhs[0] + g[1] * rhs[1] + g[2] * rhs[2] + kinv * p;
    mulv3(Y, rhs, R->F1);
    for (int i = 0; i < 3; i++) R->F1[i] -= g[i] * p;
    memset(R->F2, 0, sizeof R->F2);
  }
  if (t->nrow > 0 && !close_loops(f)) {
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "%s: the loops' closure is singular at t = %g s (a locked or singular "
                   "configuration of the closed chains)",
                   f->ops->name, d->time);
  }
#pragma omp parallel num_threads(threads) if (threads > 1)
#pragma omp single
  for (int c = 0; c < t->nchain; c++) disassemble_down(f, t->root[c]);
  return HY_OK;
}

static hy_status dca_accelerations(hy_form* f) { return solve(f); }

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
static double along_joint(const hy_model* m, const dca* t, const hy_data* d, int j,
                          const double* x, double xn) {
  double b[3], dd[3];
  joint_terms(m, t, d, j, b, dd);
  return m->jnt_type[j] == HY_JOINT_REVOLUTE ? b[2] * xn : b[0] * x[0] + b[1] * x[1];
}

// Walks chain c from its tip: for each joint j, the sum (S, S_n) of a per-body quantity (x_k,
// x_n,k about the body's centre of mass) over the bodies beyond j, with S_n about j's point,
// shifted from joint to joint so that it stays local. Calls out(j, P_j, S, S_n).
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
    out(f, j, P, S, Sn);
    Pprev[0] = P[0];
    Pprev[1] = P[1];
  }
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
  for (int c = 0; c < t->nchain; c++) sum_beyond(f, c, t->work, set_momentum);
}

static void set_rate(hy_form* f, int j, const double* P, const double* S, double Sn) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  // P-bar_j: the velocity solve's force through the joint (the root's handle 1 for a first joint)
  const int node = t->jnode[j];
  const double* Pbar = node >= 0 ? t->node[node].FJ : NULL;
  if (!Pbar) {
    for (int c = 0; c < t->nchain; c++) {
      if (t->first[c] == j) Pbar = t->node[t->root[c]].F1;
    }
  }
  // b_dot^T P-bar: revolute b = [-s n x P; s] about the origin, b_dot = [-s n x P_dot; 0];
  // prismatic b = [u; 0], b_dot = [omega_parent n x u; 0]
  double b[3], dd[3];
  joint_terms(m, t, d, j, b, dd);
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
  d->mom_d[m->jnt_zadr[j]] =
      bdot[0] * Pbar[0] + bdot[1] * Pbar[1] + along_joint(m, t, d, j, S, Sn);
}

// HDCA's velocities: the assembly at velocity level from the momenta (after the position stage).
static hy_status hdca_velocities(hy_form* f) { return solve(f); }

// The momenta's rates, after the velocities' kinematics and the forces at the state.
static hy_status hdca_rates(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  applied_forces(m, d, t);
  // each body's applied force about its centre of mass (the leaves hold them now)
  for (int j = 0; j < m->sizes.nbody; j++) {
    memcpy(t->work + 3 * j, t->node[t->leaf[j]].b1, 3 * sizeof(double));
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
    const double* sigma = t->node[t->root[c]].F2;
    double X[2], v[2];
    to_plane(t, d->mrk_pos + 3 * mk, X);
    point_velocity(d, t, tip, X, v);
    t->work[3 * tip + 2] -= cross2(v, sigma);
  }
  for (int c = 0; c < t->nchain; c++) sum_beyond(f, c, t->work, set_rate);
  // HDCA forms no accelerations (the records show 0)
  memset(d->zdd, 0, sizeof(double) * (size_t)m->sizes.nz);
  return HY_OK;
}

static hy_status hdca_start(hy_form* f) {
  initial_momenta(f);
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

// Whether DCA or HDCA can run m (planar chains, loops closed at chains' tips); else the reason.
hy_status hy_form_dca_check(const hy_model* m, const char* name, hy_error* err) {
  int bad = -1;
  if (!m->planar) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s runs planar models so far: model '%s' is spatial", name, m->name);
  }
  if (m->sizes.nnh > 0) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s cannot run model '%s': it has nonholonomic constraints", name,
                   m->name);
  }
  // cut joints: revolute or spherical, between the last bodies of two chains or one and ground,
  // all those on one body at one point (the tip's handle 2)
  for (int k = 0; k < m->sizes.ncut; k++) {
    const int mk[2] = {m->cut_mrk_a[k], m->cut_mrk_b[k]};
    int ok = m->cut_type[k] != HY_CUT_TRANSLATIONAL &&
             (m->mrk_body[mk[0]] >= 0 || m->mrk_body[mk[1]] >= 0) &&
             m->mrk_body[mk[0]] != m->mrk_body[mk[1]];
    for (int side = 0; ok && side < 2; side++) {
      const int on = m->mrk_body[mk[side]];
      if (on < 0) continue;
      for (int q = on + 1; ok && q < m->sizes.nbody; q++) ok = m->body_parent[q] != on;
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
                     "joints between the last bodies of chains (or one and ground), all those on "
                     "one body at one point: cut joint '%s' of model '%s' is not one",
                     name, m->cut_name + (size_t)k * HY_NAME_MAX, m->name);
    }
  }
  if (count_chains(m, &bad) < 0) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s runs chains so far: body '%s' of model '%s' has more than "
                   "one child",
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
