// The part of DCA and HDCA (form_dca.c) that is the same in the plane and in space, written once
// and included once for each: DCA_D is the size of a handle vector (3 in the plane,
// [a_1; a_2; alpha_n]; 6 in space, [a; alpha]) and DCA_(name) this dimension's copy of name
// (assemble3, assemble6). The algebra is that of form_dca.c's header; what differs between the
// dimensions, a leaf's terms, a joint's b and d and the inverse of W, form_dca.c defines after
// this inclusion (declared below). No include guard: meant to be included twice.
#define DCA_CAT_(a, b) a##b
#define DCA_CAT(a, b) DCA_CAT_(a, b)
#define DCA_(name) DCA_CAT(name, DCA_D)
#define DCA_DD (DCA_D * DCA_D)

// One node of an assembly tree: a body (leaf) or two assembled halves.
typedef struct DCA_(dca_node) {
  int left, right;  // children (node indices), -1 for a leaf
  int body;         // leaf: its body; internal: the first body of the right half (its joint J)
  double P11[DCA_DD], P12[DCA_DD], P21[DCA_DD], P22[DCA_DD];  // handle mobilities Phi_ij
  double b1[DCA_D], b2[DCA_D];                                // beta_1, beta_2
  double Y[DCA_DD], g[DCA_D], c[DCA_D];  // internal: F_J = Y rhs, z_ddot = g . rhs, rhs constant
  double F1[DCA_D], F2[DCA_D];           // disassembly: the handle forces handed down
  double kinv;                           // internal: 1 / (b^T W^-1 b)
  int nleaf;                             // the bodies below it
  double FJ[DCA_D];                      // internal: the force (momentum) through its joint
} DCA_(dca_node);

static inline DCA_(dca_node) * DCA_(nodes)(const dca* t) { return (DCA_(dca_node)*)t->nodes; }

// A branch: chain c hanging from a body of another chain (its base) by its first joint k, whose
// point on the base body moves as A_s = T a + v (a the base's [a_c; alpha] at its centre of mass;
// velocities for HDCA). The first mount of a base body also keeps the body's own terms, from
// which the disassembly recovers a.
typedef struct DCA_(dca_mount) {
  double Y[DCA_DD], g[DCA_D], kinv;  // joint k's saddle point with W = Phi^S_11 (as a node's)
  double c0[DCA_D];                  // rhs = T a + c0 - beta^S_1: c0 = v + d
  double Yb[DCA_D], gb;              // Y beta^S_1 and g . beta^S_1
  double T[DCA_DD];
  double Mi[DCA_DD], Q[DCA_D], T1[DCA_DD], T2[DCA_DD];  // the base body's M'^-1, Q', T_1, T_2
} DCA_(dca_mount);

static inline DCA_(dca_mount) * DCA_(mounts)(const dca* t) { return (DCA_(dca_mount)*)t->mounts; }

// Defined by form_dca.c for each dimension.
static HY_ALWAYS_INLINE int DCA_(inv)(const double* a, double* r);
static void DCA_(joint_terms)(const hy_model* m, const dca* t, const hy_data* d, int j, double* b,
                              double* dd);
static HY_ALWAYS_INLINE int DCA_(leaf)(hy_form* f, DCA_(dca_node) * N);
// Body j's M = diag(m, inertia at c) and Q, the applied force Qa (the leaf's b1) with its moment
// about c less the gyroscopic one (0 for HDCA's velocities); T and v of its handles 1 and 2.
// Returns 0 when the body's mass is not positive (M may be singular: a point-like body).
static int DCA_(body_terms)(hy_form* f, int j, const double* Qa, double* M, double* Q, double* T1,
                            double* v1, double* T2, double* v2);
// T and v of joint k's point on body j (k's parent).
static void DCA_(point_terms)(hy_form* f, int j, int k, double* T, double* v);

// Builds the balanced tree over chain[lo .. hi] (body indices in chain order), children before
// their parent, so that node order is an assembly order; returns its node.
static int DCA_(build)(dca* t, const int* chain, int lo, int hi) {
  DCA_(dca_node)* node = DCA_(nodes)(t);
  if (lo == hi) {
    const int self = t->nnode++;
    node[self] = (DCA_(dca_node)){.left = -1, .right = -1, .body = chain[lo], .nleaf = 1};
    t->leaf[chain[lo]] = self;
    return self;
  }
  const int mid = (lo + hi) / 2;
  const int l = DCA_(build)(t, chain, lo, mid);
  const int r = DCA_(build)(t, chain, mid + 1, hi);
  const int self = t->nnode++;
  node[self] =
      (DCA_(dca_node)){.left = l, .right = r, .body = chain[mid + 1], .nleaf = hi - lo + 1};
  t->jnode[chain[mid + 1]] = self;
  return self;
}

static HY_ALWAYS_INLINE void DCA_(mul)(const double* a, const double* b, double* c) {
  for (int i = 0; i < DCA_D; i++) {
    for (int j = 0; j < DCA_D; j++) {
      double v = a[DCA_D * i] * b[j];
      for (int q = 1; q < DCA_D; q++) v += a[DCA_D * i + q] * b[DCA_D * q + j];
      c[DCA_D * i + j] = v;
    }
  }
}

static HY_ALWAYS_INLINE void DCA_(mulv)(const double* a, const double* x, double* y) {
  for (int i = 0; i < DCA_D; i++) {
    double v = a[DCA_D * i] * x[0];
    for (int q = 1; q < DCA_D; q++) v += a[DCA_D * i + q] * x[q];
    y[i] = v;
  }
}

static HY_ALWAYS_INLINE double DCA_(dot)(const double* a, const double* b) {
  double v = a[0] * b[0];
  for (int q = 1; q < DCA_D; q++) v += a[q] * b[q];
  return v;
}

// The saddle point of the joint: W F = b z_ddot + rhs, b^T F = 0; Y and g of the node. Returns 0
// when W is not positive definite (a massless half).
// With b^T F = p instead (the joint's canonical momentum, HDCA), F = Y rhs - g p and
// z_dot = g^T rhs + p / (b^T W^-1 b): kinv = 1 / (b^T W^-1 b).
static int DCA_(joint_solve)(const double* W, const double* b, double* Y, double* g, double* kinv) {
  double Wi[DCA_DD], Wb[DCA_D];
  if (!DCA_(inv)(W, Wi)) return 0;
  DCA_(mulv)(Wi, b, Wb);
  const double bWb = DCA_(dot)(b, Wb);
  if (!(bWb > 0)) return 0;
  *kinv = 1 / bWb;
  for (int i = 0; i < DCA_D; i++) g[i] = -Wb[i] / bWb;
  for (int i = 0; i < DCA_D; i++) {
    for (int k = 0; k < DCA_D; k++) Y[DCA_D * i + k] = Wi[DCA_D * i + k] + Wb[i] * g[k];
  }
  return 1;
}

static HY_ALWAYS_INLINE int DCA_(assemble)(const hy_model* m, const hy_data* d, const dca* t,
                                           DCA_(dca_node) * C, const DCA_(dca_node) * A,
                                           const DCA_(dca_node) * B) {
  double b[DCA_D], dd[DCA_D], W[DCA_DD];
  DCA_(joint_terms)(m, t, d, C->body, b, dd);
  for (int i = 0; i < DCA_DD; i++) W[i] = A->P22[i] + B->P11[i];
  if (!DCA_(joint_solve)(W, b, C->Y, C->g, &C->kinv)) return 0;
  for (int i = 0; i < DCA_D; i++) C->c[i] = dd[i] + A->b2[i] - B->b1[i];
  const double p = joint_source(m, d, t, C->body);
  double YA[DCA_DD], YB[DCA_DD], T[DCA_DD], Yc[DCA_D], v[DCA_D];
  DCA_(mul)(C->Y, A->P21, YA);  // Y Phi^A_21
  DCA_(mul)(C->Y, B->P12, YB);  // Y Phi^B_12
  DCA_(mul)(A->P12, YA, T);
  for (int i = 0; i < DCA_DD; i++) C->P11[i] = A->P11[i] - T[i];
  DCA_(mul)(A->P12, YB, C->P12);
  DCA_(mul)(B->P21, YA, C->P21);
  DCA_(mul)(B->P21, YB, T);
  for (int i = 0; i < DCA_DD; i++) C->P22[i] = B->P22[i] - T[i];
  DCA_(mulv)(C->Y, C->c, Yc);
  for (int i = 0; i < DCA_D; i++) Yc[i] -= C->g[i] * p;
  DCA_(mulv)(A->P12, Yc, v);
  for (int i = 0; i < DCA_D; i++) C->b1[i] = A->b1[i] - v[i];
  DCA_(mulv)(B->P21, Yc, v);
  for (int i = 0; i < DCA_D; i++) C->b2[i] = B->b2[i] + v[i];
  return 1;
}

// rhs of node C's joint for its handle forces, z_ddot of the joint and the children's forces.
static void DCA_(disassemble)(const hy_model* m, hy_data* d, dca* t, DCA_(dca_node) * C) {
  DCA_(dca_node)* A = &DCA_(nodes)(t)[C->left];
  DCA_(dca_node)* B = &DCA_(nodes)(t)[C->right];
  double rhs[DCA_D], v[DCA_D], FJ[DCA_D];
  DCA_(mulv)(A->P21, C->F1, rhs);
  DCA_(mulv)(B->P12, C->F2, v);
  for (int i = 0; i < DCA_D; i++) rhs[i] += C->c[i] - v[i];
  const double p = joint_source(m, d, t, C->body);
  DCA_(mulv)(C->Y, rhs, FJ);
  for (int i = 0; i < DCA_D; i++) FJ[i] -= C->g[i] * p;
  memcpy(C->FJ, FJ, sizeof FJ);
  solved(d, t)[m->jnt_zadr[C->body]] = DCA_(dot)(C->g, rhs) + C->kinv * p;
  for (int i = 0; i < DCA_D; i++) {
    A->F1[i] = C->F1[i];
    A->F2[i] = -FJ[i];
    B->F1[i] = FJ[i];
    B->F2[i] = C->F2[i];
  }
}

static HY_ALWAYS_INLINE void DCA_(mulTv)(const double* a, const double* x, double* y) {
  for (int i = 0; i < DCA_D; i++) {
    double v = a[i] * x[0];
    for (int q = 1; q < DCA_D; q++) v += a[DCA_D * q + i] * x[q];
    y[i] = v;
  }
}

// The joint terms of branch c (root S, first joint k) for its fold into its base body: Y, g, kinv
// of k's saddle point, and Y beta^S_1, g . beta^S_1. A branch root of a point-like body
// (leaf_inertia) holds W^-1 = I_P in P11 and I_P beta_1 in b1 instead of Phi_11 and beta_1:
//   g = -I_P b / k,  Y = I_P + I_P b g^T,  Y beta = I_P beta - I_P b (b^T I_P beta) / k,
//   g . beta = -b^T I_P beta / k,  k = b^T I_P b,
// which is joint_solve's algebra without W's inverse. Returns 0 when the joint is singular.
static int DCA_(mount_terms)(const dca* t, int c, DCA_(dca_mount) * U, const double* b) {
  const DCA_(dca_node)* S = &DCA_(nodes)(t)[t->root[c]];
  if (!t->point_like[t->first[c]]) {
    if (!DCA_(joint_solve)(S->P11, b, U->Y, U->g, &U->kinv)) return 0;
    DCA_(mulv)(U->Y, S->b1, U->Yb);
    U->gb = DCA_(dot)(U->g, S->b1);
    return 1;
  }
  double Ib[DCA_D];
  DCA_(mulv)(S->P11, b, Ib);
  const double k = DCA_(dot)(b, Ib);
  if (!(k > 0)) return 0;
  const double bIbeta = DCA_(dot)(b, S->b1);
  U->kinv = 1 / k;
  for (int i = 0; i < DCA_D; i++) U->g[i] = -Ib[i] / k;
  for (int i = 0; i < DCA_D; i++) {
    for (int q = 0; q < DCA_D; q++) U->Y[DCA_D * i + q] = S->P11[DCA_D * i + q] + Ib[i] * U->g[q];
    U->Yb[i] = S->b1[i] - Ib[i] * bIbeta / k;
  }
  U->gb = -bIbeta / k;
  return 1;
}

// A point-like body (a point mass; in space also a rod) ending a branch: its mobilities
// T M^-1 T^T do not exist, but its inertia about its joint's point does, I_P = T_1^-T M T_1^-1,
// and with I_P beta_1 = T_1^-T Q + I_P v_1 it is all its fold into its base body needs
// (mount_terms). This leaf keeps them in P11 and b1.
static int DCA_(leaf_inertia)(hy_form* f, DCA_(dca_node) * N) {
  double M[DCA_DD], Q[DCA_D], T1[DCA_DD], v1[DCA_D], T2[DCA_DD], v2[DCA_D];
  if (!DCA_(body_terms)(f, N->body, N->b1, M, Q, T1, v1, T2, v2)) return 0;
  double Ti[DCA_DD], TiT[DCA_DD], MTi[DCA_DD], Iv[DCA_D], TQ[DCA_D];
  if (!DCA_(inv)(T1, Ti)) return 0;  // det T = 1
  for (int i = 0; i < DCA_D; i++) {
    for (int q = 0; q < DCA_D; q++) TiT[DCA_D * i + q] = Ti[DCA_D * q + i];
  }
  DCA_(mul)(M, Ti, MTi);
  DCA_(mul)(TiT, MTi, N->P11);
  DCA_(mulv)(N->P11, v1, Iv);
  DCA_(mulv)(TiT, Q, TQ);
  for (int i = 0; i < DCA_D; i++) N->b1[i] = TQ[i] + Iv[i];
  return 1;
}

// A leaf whose body has branches hanging from it, each assembled with its tip free (Featherstone's
// DCA and seed 004 Sect. 2.2 give a body as many handles as it has joints; folding each branch
// into the body keeps two). A branch's root answers its joint's motion by the saddle point of
// assemble with W = Phi^S_11:
//   F_J = Y rhs - g p,  rhs = A_s + d - beta^S_1,  A_s = T_s a + v_s,
// and the body's Newton-Euler equations M a = Q + T_1^T F_1 + T_2^T F_2 - sum_s T_s^T F_J,s then
// read M' a = Q' + T_1^T F_1 + T_2^T F_2 with
//   M' = M + sum_s T_s^T Y_s T_s,  Q' = Q - sum_s T_s^T (Y_s c_s - g_s p_s),  c_s = v_s + d_s -
//   beta^S_1,
// so that its handles follow as a rigid body's: Phi_ik = T_i M'^-1 T_k^T, beta_i = T_i M'^-1 Q' +
// v_i. Y is symmetric positive semidefinite, so M' stays positive definite.
static int DCA_(leaf_branched)(hy_form* f, DCA_(dca_node) * N) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  const dca* t = f->self;
  const int j = N->body;
  DCA_(dca_mount)* U0 = &DCA_(mounts)(t)[t->mount[j]];
  double M[DCA_DD], Q[DCA_D], v1[DCA_D], v2[DCA_D];
  if (!DCA_(body_terms)(f, j, N->b1, M, Q, U0->T1, v1, U0->T2, v2)) return 0;
  for (int c = t->mount[j]; c >= 0; c = t->next_mount[c]) {
    DCA_(dca_mount)* U = &DCA_(mounts)(t)[c];
    const int k = t->first[c];
    double b[DCA_D], dd[DCA_D], TY[DCA_DD], TYT[DCA_DD], Yc[DCA_D], TYc[DCA_D];
    DCA_(point_terms)(f, j, k, U->T, U->c0);
    DCA_(joint_terms)(m, t, d, k, b, dd);
    if (!DCA_(mount_terms)(t, c, U, b)) return 0;
    for (int i = 0; i < DCA_D; i++) U->c0[i] += dd[i];
    const double p = joint_source(m, d, t, k);
    for (int i = 0; i < DCA_D; i++) {  // T^T Y
      for (int q = 0; q < DCA_D; q++) {
        double v = 0;
        for (int r = 0; r < DCA_D; r++) v += U->T[DCA_D * r + i] * U->Y[DCA_D * r + q];
        TY[DCA_D * i + q] = v;
      }
    }
    DCA_(mul)(TY, U->T, TYT);
    for (int i = 0; i < DCA_DD; i++) M[i] += TYT[i];
    DCA_(mulv)(U->Y, U->c0, Yc);
    for (int i = 0; i < DCA_D; i++) Yc[i] -= U->Yb[i] + U->g[i] * p;
    DCA_(mulTv)(U->T, Yc, TYc);
    for (int i = 0; i < DCA_D; i++) Q[i] -= TYc[i];
  }
  if (!DCA_(inv)(M, U0->Mi)) return 0;
  memcpy(U0->Q, Q, sizeof Q);
  double TM[2][DCA_DD], Tt[DCA_DD];
  const double* T[2] = {U0->T1, U0->T2};
  double* Phi[2][2] = {{N->P11, N->P12}, {N->P21, N->P22}};
  double* beta[2] = {N->b1, N->b2};
  const double* v[2] = {v1, v2};
  for (int h = 0; h < 2; h++) DCA_(mul)(T[h], U0->Mi, TM[h]);
  for (int b = 0; b < 2; b++) {
    for (int i = 0; i < DCA_D; i++) {
      for (int k = 0; k < DCA_D; k++) Tt[DCA_D * i + k] = T[b][DCA_D * k + i];
    }
    for (int a = 0; a < 2; a++) DCA_(mul)(TM[a], Tt, Phi[a][b]);
  }
  for (int h = 0; h < 2; h++) {
    DCA_(mulv)(TM[h], Q, beta[h]);
    for (int i = 0; i < DCA_D; i++) beta[h][i] += v[h][i];
  }
  return 1;
}

// Branch c's joint from its base body's motion, a = M'^-1 (Q' + T_1^T F_1 + T_2^T F_2) once the
// base's leaf has its handle forces; then the branch root's: F_1 = F_J, a free tip.
static void DCA_(mount_down)(hy_form* f, int c) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const dca* t = f->self;
  const int j = t->base[c], k = t->first[c];
  const DCA_(dca_node)* L = &DCA_(nodes)(t)[t->leaf[j]];
  const DCA_(dca_mount)* B = &DCA_(mounts)(t)[t->mount[j]];
  const DCA_(dca_mount)* U = &DCA_(mounts)(t)[c];
  double F[DCA_D], v[DCA_D], a[DCA_D], rhs[DCA_D];
  DCA_(mulTv)(B->T1, L->F1, F);
  DCA_(mulTv)(B->T2, L->F2, v);
  for (int i = 0; i < DCA_D; i++) F[i] += v[i] + B->Q[i];
  DCA_(mulv)(B->Mi, F, a);
  DCA_(mulv)(U->T, a, rhs);
  for (int i = 0; i < DCA_D; i++) rhs[i] += U->c0[i];  // less beta^S_1, in Yb and gb
  const double p = joint_source(m, d, t, k);
  solved(d, t)[m->jnt_zadr[k]] = DCA_(dot)(U->g, rhs) - U->gb + U->kinv * p;
  DCA_(dca_node)* R = &DCA_(nodes)(t)[t->root[c]];
  DCA_(mulv)(U->Y, rhs, R->F1);
  for (int i = 0; i < DCA_D; i++) R->F1[i] -= U->Yb[i] + U->g[i] * p;
  memset(R->F2, 0, sizeof R->F2);
}

// Node k's leaf terms or assembly, after its children's; sets *bad to a failing node.
static void DCA_(assemble_up)(hy_form* f, int k, int* bad) {
  dca* t = f->self;
  DCA_(dca_node)* N = &DCA_(nodes)(t)[k];
  if (N->left < 0) {
    const int ok = t->mount[N->body] >= 0   ? DCA_(leaf_branched)(f, N)
                   : t->point_like[N->body] ? DCA_(leaf_inertia)(f, N)
                                            : DCA_(leaf)(f, N);
    if (!ok) {
#pragma omp atomic write
      *bad = k;
    }
    return;
  }
  if (N->nleaf >= TASK_MIN_BODIES) {
#pragma omp task default(shared) firstprivate(k)
    DCA_(assemble_up)(f, N->left, bad);
    DCA_(assemble_up)(f, N->right, bad);
#pragma omp taskwait
  } else {
    DCA_(assemble_up)(f, N->left, bad);
    DCA_(assemble_up)(f, N->right, bad);
  }
  if (!DCA_(assemble)(f->m, f->d, t, N, &DCA_(nodes)(t)[N->left], &DCA_(nodes)(t)[N->right])) {
#pragma omp atomic write
    *bad = k;
  }
}

// Node k's joint from its handle forces, then its children's.
static void DCA_(disassemble_down)(hy_form* f, int k) {
  dca* t = f->self;
  DCA_(dca_node)* N = &DCA_(nodes)(t)[k];
  if (N->left < 0) return;
  DCA_(disassemble)(f->m, f->d, t, N);
  if (N->nleaf >= TASK_MIN_BODIES) {
#pragma omp task default(shared) firstprivate(k)
    DCA_(disassemble_down)(f, N->left);
    DCA_(disassemble_down)(f, N->right);
#pragma omp taskwait
  } else {
    DCA_(disassemble_down)(f, N->left);
    DCA_(disassemble_down)(f, N->right);
  }
}

// The assembly, the roots and the disassembly: DCA's accelerations, or HDCA's velocities (the
// applied forces are in the leaves' b1 before, for DCA). Every node's numbers come from its
// children's alone, so the order the tasks run in changes no bit: the results are the same for
// any number of threads (opt.threads).
static hy_status DCA_(solve)(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  dca* t = f->self;
  DCA_(dca_node)* node = DCA_(nodes)(t);
  int bad = -1;
  const int threads = m->opt.threads > 1 ? m->opt.threads : 1;
  // branches (numbered after the chains they hang from) before their base bodies' leaves
#pragma omp parallel num_threads(threads) if (threads > 1)
#pragma omp single
  for (int c = t->nchain - 1; c >= 0; c--) DCA_(assemble_up)(f, t->root[c], &bad);
  if (bad >= 0) {
    const DCA_(dca_node)* N = &node[bad];
    if (N->left < 0) {
      return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                     "%s: body '%s' has no positive %s inertia (its mass and inertia must be > 0)",
                     f->ops->name, m->body_name + (size_t)N->body * HY_NAME_MAX,
                     DCA_D == 3 ? "planar" : "spatial");
    }
    return HY_FAIL(&d->err, HY_ERR_SINGULAR, "%s: singular joint '%s' at t = %g s", f->ops->name,
                   m->jnt_name + (size_t)N->body * HY_NAME_MAX, d->time);
  }
  for (int c = 0; c < t->nchain; c++) {
    if (t->row[c] >= 0 || t->base[c] >= 0) continue;
    // an open chain: its first joint meets ground, Z_dot = 0 there: W = Phi_11,
    // rhs = d - beta_1; the tip is free (F_2 = 0)
    DCA_(dca_node)* R = &node[t->root[c]];
    const int j = t->first[c];
    double b[DCA_D], dd[DCA_D], Y[DCA_DD], g[DCA_D], rhs[DCA_D], kinv = 0;
    DCA_(joint_terms)(m, t, d, j, b, dd);
    const double p = joint_source(m, d, t, j);
    if (!DCA_(joint_solve)(R->P11, b, Y, g, &kinv)) {
      return HY_FAIL(&d->err, HY_ERR_SINGULAR, "%s: singular joint '%s' at t = %g s", f->ops->name,
                     m->jnt_name + (size_t)j * HY_NAME_MAX, d->time);
    }
    for (int i = 0; i < DCA_D; i++) rhs[i] = dd[i] - R->b1[i];
    solved(d, t)[m->jnt_zadr[j]] = DCA_(dot)(g, rhs) + kinv * p;
    DCA_(mulv)(Y, rhs, R->F1);
    for (int i = 0; i < DCA_D; i++) R->F1[i] -= g[i] * p;
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
  for (int c = 0; c < t->nchain; c++) {
    if (t->base[c] >= 0) DCA_(mount_down)(f, c);
    DCA_(disassemble_down)(f, t->root[c]);
  }
  return HY_OK;
}

#undef DCA_DD
#undef DCA_
#undef DCA_CAT
#undef DCA_CAT_
