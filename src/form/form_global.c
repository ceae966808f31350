// Global-coordinate formulations of 001_004ef98543c36dde.txt Sect. 2.1 on planar models: every
// body has the reference-point coordinates q_b = (x, y, theta) of its centre of mass in the
// model's plane (inertial e1, e2; theta about the plane normal), every joint, tree and cut
// alike, is a pair of constraint equations, and the mass matrix diag(m, m, I_n) is constant
// (no velocity-product terms). Two algorithms, each with the integrator seed 001 pairs it with:
//   ALI1   index-1 augmented Lagrangian with iterated multipliers and Baumgarte-like terms
//          (Eqs. 2a-2b), semi-implicit forward Euler, the pressures forward Euler;
//   ALI3-P index-3 augmented Lagrangian (Eq. 3) on the trapezoidal rule, Newton-Raphson on
//          [q; p] (Eqs. 4-5), mass-damping-stiffness projections of velocities and
//          accelerations (Eqs. 6-7); monolithic with the hydraulics.
// The formulation steps itself (hy_form_ops.step). After every step the relative coordinates
// z, z_dot, z_ddot of hy_data are mapped from q so that every output, channel and figure of
// hydyn works unchanged; the dynamics never read them. Coordinates are laid out per body
// (GLOBAL_NQ_BODY of them) so that spatial bodies can take 7 later (position and a quaternion).
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "form/form_common.h"

#define GLOBAL_NQ_BODY 3  // x, y, theta of a planar body

enum { JOIN_POINT = 0, JOIN_SLIDE = 1 };

// One joint as two equations between body i and body j (-1: ground).
//   JOIN_POINT  P_i - P_j = 0 (revolute and spherical joints, tree or cut)
//   JOIN_SLIDE  theta_j - theta_i - dtheta = 0 and n_i . (P_j - P_i) = 0 with n_i the normal of
//               the axis a_i fixed in body i (prismatic tree joints, translational cuts)
// Local vectors are in the body's plane frame (turned by -theta); on ground they are inertial
// plane coordinates.
typedef struct join {
  int kind;
  int bi, bj;
  double si[2], sj[2];  // the joint's point on i and on j
  double ai[2];         // JOIN_SLIDE: unit axis fixed in i
  double dtheta;        // JOIN_SLIDE: theta_j - theta_i at the reference
} join;

typedef struct global {
  int nb, nq, ng, nv, n;  // bodies, coordinates, equations, first-order states y = [p; w]
                          // (pressures, then the seals' friction states), Newton unknowns
  // constants, set by start from the model and the reference configuration
  join* joins;          // tree joints (body order), then cut joints          (nb + ncut)
  double* mass;         // the constant mass matrix's diagonal                   (nq)
  double* mrk_local;    // markers: plane-frame point and normal coordinate     (nmrk x 3)
  double* theta_ref;    // theta of every body at the reference                  (nb)
  double* z_ref;        // z at the reference                                    (nz)
  double* sigma;        // revolute joints: +-1, the axis along +-normal         (nb)
  double* com_normal;   // the centres of mass' coordinate along the normal      (nb)
  // the state (the public z, z_dot, z_ddot are mapped from it)
  double *q, *qd, *qdd;  //                                                      (nq)
  double* lam;           // multipliers of Eqs. 2 and 3                          (ng)
  // evaluation at (t, q, q_dot, p)
  double* phi;    // Phi                                                         (ng)
  double* phi_q;  // Phi_q, row-major                                            (ng x nq)
  double* bias;   // Phi_q_dot q_dot                                             (ng)
  double* phid;   // Phi_dot = Phi_q q_dot                                       (ng)
  double* Q;      // applied forces                                              (nq)
  double* Jf;     // d|s|/dq of every force element                              (nfrc x nq)
  // the step
  double* T;            // Newton tangent or leading matrix, then its LU          (n x n)
  int* piv;             //                                                        (n)
  double* row_scale;    // the tangent's rows scaled to a unit largest entry      (n)
  double* W;            // M + h/2 C + h^2/4 K                                    (nq x nq)
  double *x, *r, *v;    // unknowns, residual, a vector                           (n)
  double *q_k, *qd_k, *qdd_k, *lam_k, *p_k, *pd_k, *U_k;  // the start of the step
  double alpha, xi, omega;
} global;

static global* self_of(hy_form* f) { return f->self; }

static int is_ali3p(const hy_form* f) { return f->ops->kind == HY_FORM_ALI3P; }

//----- layout ------------------------------------------------------------------------------------

static size_t layout(global* g, const hy_model* m, unsigned char* base) {
  const size_t nb = (size_t)m->sizes.nbody, nq = GLOBAL_NQ_BODY * nb;
  const size_t nj = nb + (size_t)m->sizes.ncut, ng = 2 * nj;
  const size_t nv = (size_t)m->sizes.nvol + (size_t)m->sizes.nfric;
  const size_t n = nq + nv, nz = (size_t)m->sizes.nz;
  size_t at = hy_arena_need(sizeof(global));
#define TAKE(field, bytes) HY_LAYOUT_TAKE(base, at, g->field, bytes)
  TAKE(joins, hy_arena_need(nj * sizeof(join)));
  TAKE(mass, hy_doubles(nq));
  TAKE(mrk_local, hy_doubles(3 * (size_t)m->sizes.nmrk));
  TAKE(theta_ref, hy_doubles(nb));
  TAKE(z_ref, hy_doubles(nz));
  TAKE(sigma, hy_doubles(nb));
  TAKE(com_normal, hy_doubles(nb));
  TAKE(q, hy_doubles(nq));
  TAKE(qd, hy_doubles(nq));
  TAKE(qdd, hy_doubles(nq));
  TAKE(lam, hy_doubles(ng));
  TAKE(phi, hy_doubles(ng));
  TAKE(phi_q, hy_doubles(ng * nq));
  TAKE(bias, hy_doubles(ng));
  TAKE(phid, hy_doubles(ng));
  TAKE(Q, hy_doubles(nq));
  TAKE(Jf, hy_doubles((size_t)m->sizes.nfrc * nq));
  TAKE(T, hy_doubles(n * n));
  TAKE(piv, hy_ints(n));
  TAKE(row_scale, hy_doubles(n));
  TAKE(W, hy_doubles(nq * nq));
  TAKE(x, hy_doubles(n));
  TAKE(r, hy_doubles(n));
  TAKE(v, hy_doubles(n));
  TAKE(q_k, hy_doubles(nq));
  TAKE(qd_k, hy_doubles(nq));
  TAKE(qdd_k, hy_doubles(nq));
  TAKE(lam_k, hy_doubles(ng));
  TAKE(p_k, hy_doubles(nv));
  TAKE(pd_k, hy_doubles(nv));
  TAKE(U_k, hy_doubles((size_t)m->sizes.nspool));
#undef TAKE
  if (g) {
    g->nb = (int)nb;
    g->nq = (int)nq;
    g->ng = (int)ng;
    g->nv = (int)nv;
    g->n = (int)n;
  }
  return at;
}

static size_t global_size(const hy_model* m) { return layout(NULL, m, NULL); }

static void global_bind(hy_form* f, unsigned char* mem) {
  global* g = (global*)mem;
  layout(g, f->m, mem);
  f->self = g;
  f->nmech = 0;  // no implicit residual for the integrators: the formulation steps itself
  f->coord = NULL;
}

static size_t global_scratch(const hy_model* m) {
  (void)m;
  return 0;
}

//----- plane geometry ----------------------------------------------------------------------------

static inline double dot2(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1]; }

// A(theta) s and its derivative with respect to theta, rot90(A s).
static inline void turn(double th, const double* s, double* u, double* du) {
  const double c = cos(th), sn = sin(th);
  u[0] = c * s[0] - sn * s[1];
  u[1] = sn * s[0] + c * s[1];
  du[0] = -u[1];
  du[1] = u[0];
}

// The inertial plane point of local point s on body b (ground: s itself), with u = A s and
// du = rot90(u) (zero on ground).
static void body_point(const double* q, int b, const double* s, double* P, double* u,
                       double* du) {
  if (b < 0) {
    P[0] = s[0];
    P[1] = s[1];
    u[0] = u[1] = du[0] = du[1] = 0;
    return;
  }
  const double* qb = q + GLOBAL_NQ_BODY * b;
  turn(qb[2], s, u, du);
  P[0] = qb[0] + u[0];
  P[1] = qb[1] + u[1];
}

// Velocity of that point.
static void body_point_vel(const double* qd, int b, const double* du, double* V) {
  if (b < 0) {
    V[0] = V[1] = 0;
    return;
  }
  const double* vb = qd + GLOBAL_NQ_BODY * b;
  V[0] = vb[0] + du[0] * vb[2];
  V[1] = vb[1] + du[1] * vb[2];
}

static double theta_dot(const double* qd, int b) { return b < 0 ? 0 : qd[GLOBAL_NQ_BODY * b + 2]; }

// Plane coordinates of an inertial 3-vector.
static void to_plane(const hy_model* m, const double* v3, double* v2) {
  v2[0] = hy_v3_dot(m->plane_e1, v3);
  v2[1] = hy_v3_dot(m->plane_e2, v3);
}

// theta of body b: the angle in the plane of a body-fixed direction perpendicular to the normal.
static double body_theta(const hy_model* m, const hy_data* d, int b) {
  const double* R = d->body_rot + 9 * b;
  double nb[3], u[3] = {1, 0, 0}, w[3];
  for (int i = 0; i < 3; i++) nb[i] = R[i] * m->plane_normal[0] + R[3 + i] * m->plane_normal[1] +
                                      R[6 + i] * m->plane_normal[2];  // R^T n
  double t[3];
  hy_v3_scale(t, nb, hy_v3_dot(u, nb));
  hy_v3_sub(u, u, t);
  if (hy_v3_normalize(u) < 0.5) {  // x along the normal: y is in the plane
    hy_v3_set(u, 0, 1, 0);
    hy_v3_scale(t, nb, hy_v3_dot(u, nb));
    hy_v3_sub(u, u, t);
    hy_v3_normalize(u);
  }
  hy_m3_mulv(w, R, u);
  return atan2(hy_v3_dot(m->plane_e2, w), hy_v3_dot(m->plane_e1, w));
}

// Local plane vector of body-frame point x on body b (ground: inertial plane point), from the
// configuration in d; *normal (nullable) receives the point's coordinate along the normal.
static void local_point(const hy_model* m, const hy_data* d, const global* g, int b,
                        const double* x, double* s, double* normal) {
  double P[3];
  if (b < 0) {
    hy_v3_copy(P, x);
    to_plane(m, P, s);
    if (normal) *normal = hy_v3_dot(m->plane_normal, P);
    return;
  }
  double rel[3], w[3], w2[2];
  hy_v3_sub(rel, x, m->body_com + 3 * b);
  hy_m3_mulv(w, d->body_rot + 9 * b, rel);
  to_plane(m, w, w2);
  const double th = g->theta_ref[b], c = cos(th), sn = sin(th);
  s[0] = c * w2[0] + sn * w2[1];
  s[1] = -sn * w2[0] + c * w2[1];
  if (normal) *normal = hy_v3_dot(m->plane_normal, d->body_com + 3 * b) + hy_v3_dot(m->plane_normal, w);
}

// A body-frame direction of body b as a local plane vector (unit).
static void local_axis(const hy_model* m, const hy_data* d, const global* g, int b,
                       const double* a, double* s) {
  double w[3], w2[2];
  if (b < 0) {
    hy_v3_copy(w, a);
  } else {
    hy_m3_mulv(w, d->body_rot + 9 * b, a);
  }
  to_plane(m, w, w2);
  const double th = b < 0 ? 0 : g->theta_ref[b], c = cos(th), sn = sin(th);
  s[0] = c * w2[0] + sn * w2[1];
  s[1] = -sn * w2[0] + c * w2[1];
  const double len = hypot(s[0], s[1]);
  s[0] /= len;
  s[1] /= len;
}

//----- the model in global coordinates (at a start) ---------------------------------------------

// q and q_dot from the kinematics in d (evaluated at z, z_dot).
static void from_relative(hy_form* f) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  global* g = self_of(f);
  for (int b = 0; b < g->nb; b++) {
    double* qb = g->q + GLOBAL_NQ_BODY * b;
    double* vb = g->qd + GLOBAL_NQ_BODY * b;
    const double* com = d->body_com + 3 * b;
    const double* Z = d->body_Z + 6 * b;  // [s_dot; omega] of the point at the origin
    double gdot[3];
    hy_v3_cross(gdot, Z + 3, com);
    hy_v3_add(gdot, gdot, Z);
    to_plane(m, com, qb);
    // the angle continues from the reference through the joints, so that it is not wrapped:
    // a revolute joint adds its turn since the reference, a prismatic one none
    const int p = m->body_parent[b], zi = m->jnt_zadr[b];
    const double turned = p < 0 ? 0 : g->q[GLOBAL_NQ_BODY * p + 2] - g->theta_ref[p];
    qb[2] = g->theta_ref[b] + turned +
            (m->jnt_type[b] == HY_JOINT_REVOLUTE ? g->sigma[b] * (d->z[zi] - g->z_ref[zi]) : 0);
    to_plane(m, gdot, vb);
    vb[2] = hy_v3_dot(m->plane_normal, Z + 3);
  }
}

// The constants: joints, masses, markers, with the configuration in d as the reference.
static void reference(hy_form* f) {
  const hy_model* m = f->m;
  const hy_data* d = f->d;
  global* g = self_of(f);
  for (int b = 0; b < g->nb; b++) {
    g->theta_ref[b] = body_theta(m, d, b);
    g->com_normal[b] = hy_v3_dot(m->plane_normal, d->body_com + 3 * b);
    g->mass[GLOBAL_NQ_BODY * b] = g->mass[GLOBAL_NQ_BODY * b + 1] = m->body_mass[b];
    g->mass[GLOBAL_NQ_BODY * b + 2] = hy_mech_inertia_about_normal(m, b);
  }
  memcpy(g->z_ref, d->z, sizeof(double) * (size_t)m->sizes.nz);
  for (int j = 0; j < g->nb; j++) {
    join* J = g->joins + j;
    const int p = m->body_parent[j];
    J->bi = p;
    J->bj = j;
    local_point(m, d, g, p, m->jnt_ppoint + 3 * j, J->si, NULL);
    local_point(m, d, g, j, m->jnt_cpoint + 3 * j, J->sj, NULL);
    double ain[3];  // the joint axis, inertial
    if (p < 0) {
      hy_v3_copy(ain, m->jnt_paxis + 3 * j);
    } else {
      hy_m3_mulv(ain, d->body_rot + 9 * p, m->jnt_paxis + 3 * j);
    }
    if (m->jnt_type[j] == HY_JOINT_REVOLUTE) {
      J->kind = JOIN_POINT;
      g->sigma[j] = hy_v3_dot(ain, m->plane_normal) >= 0 ? 1 : -1;
    } else {
      J->kind = JOIN_SLIDE;
      g->sigma[j] = 0;
      local_axis(m, d, g, p, m->jnt_paxis + 3 * j, J->ai);
      J->dtheta = g->theta_ref[j] - (p < 0 ? 0 : g->theta_ref[p]);
    }
  }
  for (int c = 0; c < m->sizes.ncut; c++) {
    join* J = g->joins + g->nb + c;
    const int ma = m->cut_mrk_a[c], mb = m->cut_mrk_b[c];
    J->bi = m->mrk_body[ma];
    J->bj = m->mrk_body[mb];
    local_point(m, d, g, J->bi, m->mrk_point + 3 * ma, J->si, NULL);
    local_point(m, d, g, J->bj, m->mrk_point + 3 * mb, J->sj, NULL);
    if (m->cut_type[c] == HY_CUT_TRANSLATIONAL) {
      J->kind = JOIN_SLIDE;
      local_axis(m, d, g, J->bi, m->cut_axis_a + 3 * c, J->ai);
      J->dtheta = (J->bj < 0 ? 0 : g->theta_ref[J->bj]) - (J->bi < 0 ? 0 : g->theta_ref[J->bi]);
    } else {
      J->kind = JOIN_POINT;
    }
  }
  for (int k = 0; k < m->sizes.nmrk; k++) {
    double* s = g->mrk_local + 3 * k;
    local_point(m, d, g, m->mrk_body[k], m->mrk_point + 3 * k, s, s + 2);
  }
}

//----- evaluation ---------------------------------------------------------------------------------

// Phi, Phi_q, Phi_q_dot q_dot and Phi_dot at (q, q_dot).
static void constraints(global* g, const double* q, const double* qd) {
  const int nq = g->nq;
  memset(g->phi_q, 0, sizeof(double) * (size_t)g->ng * (size_t)nq);
  for (int k = 0; k < g->ng / 2; k++) {
    const join* J = g->joins + k;
    double Pi[2], ui[2], dui[2], Pj[2], uj[2], duj[2], Vi[2], Vj[2];
    body_point(q, J->bi, J->si, Pi, ui, dui);
    body_point(q, J->bj, J->sj, Pj, uj, duj);
    body_point_vel(qd, J->bi, dui, Vi);
    body_point_vel(qd, J->bj, duj, Vj);
    const double wi = theta_dot(qd, J->bi), wj = theta_dot(qd, J->bj);
    double* r0 = g->phi_q + (size_t)(2 * k) * nq;
    double* r1 = r0 + nq;
    const int ci = GLOBAL_NQ_BODY * J->bi, cj = GLOBAL_NQ_BODY * J->bj;
    if (J->kind == JOIN_POINT) {
      // seed 001 Eq. 1 constraints of a revolute pair: P_i - P_j = 0
      g->phi[2 * k] = Pi[0] - Pj[0];
      g->phi[2 * k + 1] = Pi[1] - Pj[1];
      if (J->bi >= 0) {
        r0[ci] = 1, r0[ci + 2] = dui[0];
        r1[ci + 1] = 1, r1[ci + 2] = dui[1];
      }
      if (J->bj >= 0) {
        r0[cj] = -1, r0[cj + 2] = -duj[0];
        r1[cj + 1] = -1, r1[cj + 2] = -duj[1];
      }
      // d/dt (Phi_q) q_dot: the centripetal terms -A s theta_dot^2
      g->bias[2 * k] = -ui[0] * wi * wi + uj[0] * wj * wj;
      g->bias[2 * k + 1] = -ui[1] * wi * wi + uj[1] * wj * wj;
      continue;
    }
    // JOIN_SLIDE: no relative rotation, and P_j on the line of i through P_i along a_i
    const double thi = J->bi < 0 ? 0 : q[ci + 2], thj = J->bj < 0 ? 0 : q[cj + 2];
    g->phi[2 * k] = thj - thi - J->dtheta;
    if (J->bi >= 0) r0[ci + 2] = -1;
    if (J->bj >= 0) r0[cj + 2] = 1;
    g->bias[2 * k] = 0;
    double a[2], nrm[2];  // the axis and its normal rot90(a), inertial
    turn(thi, J->ai, a, nrm);
    const double dv[2] = {Pj[0] - Pi[0], Pj[1] - Pi[1]};
    const double dvd[2] = {Vj[0] - Vi[0], Vj[1] - Vi[1]};
    g->phi[2 * k + 1] = dot2(nrm, dv);
    if (J->bi >= 0) {
      r1[ci] = -nrm[0], r1[ci + 1] = -nrm[1];
      r1[ci + 2] = -dot2(a, dv) - dot2(nrm, dui);  // d nrm/d theta_i = -a
    }
    if (J->bj >= 0) {
      r1[cj] = nrm[0], r1[cj + 1] = nrm[1];
      r1[cj + 2] = dot2(nrm, duj);
    }
    // the second derivative of n . d without the accelerations
    g->bias[2 * k + 1] = -wi * wi * dot2(nrm, dv) - 2 * wi * dot2(a, dvd) +
                         dot2(nrm, (double[2]){-uj[0] * wj * wj + ui[0] * wi * wi,
                                               -uj[1] * wj * wj + ui[1] * wi * wi});
  }
  for (int e = 0; e < g->ng; e++) {
    const double* row = g->phi_q + (size_t)e * nq;
    double s = 0;
    for (int i = 0; i < nq; i++) s += row[i] * qd[i];
    g->phid[e] = s;
  }
}

// Everything at (d->time, q, q_dot, d->p, d->U): constraints, force-element geometry (into the
// data's frc_len and frc_rate, from which the hydraulics read), force magnitudes, the network
// (with derivatives into f->hyd when deriv) and the applied forces Q.
static void evaluate(hy_form* f, const double* q, const double* qd, int deriv) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  global* g = self_of(f);
  const int nq = g->nq;
  constraints(g, q, qd);
  memset(g->Jf, 0, sizeof(double) * (size_t)m->sizes.nfrc * (size_t)nq);
  double Pa[2], Pb[2], ua[2], dua[2], ub[2], dub[2], Va[2], Vb[2];
  for (int k = 0; k < m->sizes.nfrc; k++) {
    const int ma = m->frc_mrk_a[k], mb = m->frc_mrk_b[k];
    const int ba = m->mrk_body[ma], bb = m->mrk_body[mb];
    body_point(q, ba, g->mrk_local + 3 * ma, Pa, ua, dua);
    body_point(q, bb, g->mrk_local + 3 * mb, Pb, ub, dub);
    body_point_vel(qd, ba, dua, Va);
    body_point_vel(qd, bb, dub, Vb);
    // the length in space: the markers' distance along the normal does not change
    const double dn = g->mrk_local[3 * mb + 2] - g->mrk_local[3 * ma + 2];
    const double s2[2] = {Pb[0] - Pa[0], Pb[1] - Pa[1]};
    const double len = sqrt(dot2(s2, s2) + dn * dn);
    const double e[2] = {s2[0] / len, s2[1] / len};
    d->frc_len[k] = len;
    d->frc_rate[k] = e[0] * (Vb[0] - Va[0]) + e[1] * (Vb[1] - Va[1]);
    double* row = g->Jf + (size_t)k * nq;
    if (bb >= 0) {
      const int c = GLOBAL_NQ_BODY * bb;
      row[c] += e[0], row[c + 1] += e[1], row[c + 2] += dot2(e, dub);
    }
    if (ba >= 0) {
      const int c = GLOBAL_NQ_BODY * ba;
      row[c] -= e[0], row[c + 1] -= e[1], row[c + 2] -= dot2(e, dua);
    }
  }
  hy_form_forces(m, d);
  if (m->sizes.nvol + m->sizes.ncyl > 0) hy_hyd_evaluate(m, d, deriv ? f->hyd : NULL);
  // applied forces: gravity, loads, force elements (along their line, > 0 pushes apart)
  double gr[2];
  to_plane(m, m->opt.gravity, gr);
  for (int b = 0; b < g->nb; b++) {
    double* Qb = g->Q + GLOBAL_NQ_BODY * b;
    Qb[0] = m->body_mass[b] * gr[0];
    Qb[1] = m->body_mass[b] * gr[1];
    Qb[2] = 0;
  }
  for (int l = 0; l < m->sizes.nload; l++) {
    const int mk = m->load_mrk[l], b = m->mrk_body[mk];
    if (b < 0) continue;
    const double s = m->load_sig[l] < 0 ? 1.0 : hy_signal_eval(m, m->load_sig[l], d->time);
    double v3[3], v2[2];
    hy_v3_scale(v3, m->load_vector + 3 * l, s);
    double* Qb = g->Q + GLOBAL_NQ_BODY * b;
    if (m->load_type[l] == HY_LOAD_TORQUE) {
      Qb[2] += hy_v3_dot(m->plane_normal, v3);
      continue;
    }
    to_plane(m, v3, v2);
    double P[2], u[2], du[2];
    body_point(q, b, g->mrk_local + 3 * mk, P, u, du);
    Qb[0] += v2[0], Qb[1] += v2[1], Qb[2] += dot2(du, v2);
  }
  for (int k = 0; k < m->sizes.nfrc; k++) {
    const double F = d->frc_force[k];
    const double* row = g->Jf + (size_t)k * nq;
    for (int i = 0; i < nq; i++) g->Q[i] += F * row[i];  // Q = J^T F: virtual work of F along |s|
  }
}

// The largest |Phi| at the last evaluation.
static double violation(const global* g) {
  double v = 0;
  for (int e = 0; e < g->ng; e++) v = fmax(v, fabs(g->phi[e]));
  return v;
}

//----- ALI1: accelerations with iterated multipliers ---------------------------------------------

// seed 001 Eqs. 2a-2b at the last evaluation: (M + Phi_q^T alpha Phi_q) q_ddot =
// Q - Phi_q^T (alpha (Phi_q_dot q_dot + 2 xi omega Phi_dot + omega^2 Phi) + lambda_j), then
// lambda_{j+1} = lambda_j + alpha (Phi_ddot + 2 xi omega Phi_dot + omega^2 Phi), until the
// bracket (the acceleration-level residual) is below tol_pos per s^2. The multipliers start
// from g->lam (the previous step's).
static hy_status ali1_accelerations(hy_form* f) {
  const hy_model* m = f->m;
  global* g = self_of(f);
  const int nq = g->nq, ng = g->ng;
  const double al = g->alpha, c1 = 2 * g->xi * g->omega, c0 = g->omega * g->omega;
  double* L = g->T;
  memset(L, 0, sizeof(double) * (size_t)nq * (size_t)nq);
  for (int i = 0; i < nq; i++) L[i * nq + i] = g->mass[i];
  double amax = 0;
  for (int e = 0; e < ng; e++) {
    const double* row = g->phi_q + (size_t)e * nq;
    for (int i = 0; i < nq; i++) {
      if (row[i] == 0) continue;
      for (int j = 0; j < nq; j++) L[i * nq + j] += al * row[i] * row[j];
    }
  }
  for (int i = 0; i < nq * nq; i++) amax = fmax(amax, fabs(L[i]));
  int sing = -1;
  if (hy_lu_factor(nq, L, g->piv, &sing) != HY_OK) {
    return HY_FAIL(&f->d->err, HY_ERR_SINGULAR,
                   "ali1: M + Phi_q^T alpha Phi_q is singular at t = %g s (coordinate %d of "
                   "body '%s'): a body's motion is neither given mass nor fixed by joints",
                   f->d->time, sing % GLOBAL_NQ_BODY,
                   m->body_name + (size_t)(sing / GLOBAL_NQ_BODY) * HY_NAME_MAX);
  }
  (void)amax;
  double* rhs = g->v;
  double worst = INFINITY;
  for (int it = 0; it < m->opt.max_iter; it++) {
    for (int i = 0; i < nq; i++) rhs[i] = g->Q[i];
    for (int e = 0; e < ng; e++) {
      const double s = al * (g->bias[e] + c1 * g->phid[e] + c0 * g->phi[e]) + g->lam[e];
      const double* row = g->phi_q + (size_t)e * nq;
      for (int i = 0; i < nq; i++) rhs[i] -= row[i] * s;
    }
    hy_lu_solve(nq, L, g->piv, rhs);
    memcpy(g->qdd, rhs, sizeof(double) * (size_t)nq);
    worst = 0;
    for (int e = 0; e < ng; e++) {
      const double* row = g->phi_q + (size_t)e * nq;
      double res = g->bias[e] + c1 * g->phid[e] + c0 * g->phi[e];
      for (int i = 0; i < nq; i++) res += row[i] * g->qdd[i];
      g->lam[e] += al * res;
      worst = fmax(worst, fabs(res));
    }
    f->d->stats.niter++;
    if (worst <= m->opt.tol_pos) return HY_OK;
  }
  return HY_FAIL(&f->d->err, HY_NEWTON_NOCONV,
                 "ali1: the multipliers did not converge in %d iterations at t = %g s "
                 "(acceleration residual %.3g)", m->opt.max_iter, f->d->time, worst);
}

//----- the relative coordinates and the outputs --------------------------------------------------

// z, z_dot, z_ddot from q, q_dot, q_ddot: a revolute joint turns by the difference of its bodies'
// angles, a prismatic one slides by the distance of its points along its axis.
static void to_relative(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const global* g = self_of(f);
  const double *q = g->q, *qd = g->qd, *qdd = g->qdd;
  for (int j = 0; j < g->nb; j++) {
    const join* J = g->joins + j;
    const int zi = m->jnt_zadr[j], p = J->bi;
    const int cp = GLOBAL_NQ_BODY * p, cj = GLOBAL_NQ_BODY * j;
    const double thp = p < 0 ? 0 : q[cp + 2], wp = p < 0 ? 0 : qd[cp + 2];
    const double ap = p < 0 ? 0 : qdd[cp + 2];
    if (J->kind == JOIN_POINT) {
      const double thp_ref = p < 0 ? 0 : g->theta_ref[p];
      d->z[zi] = g->z_ref[zi] + g->sigma[j] * ((q[cj + 2] - g->theta_ref[j]) - (thp - thp_ref));
      d->zd[zi] = g->sigma[j] * (qd[cj + 2] - wp);
      d->zdd[zi] = g->sigma[j] * (qdd[cj + 2] - ap);
      continue;
    }
    double Pi[2], ui[2], dui[2], Pj[2], uj[2], duj[2], Vi[2], Vj[2], a[2], na[2];
    body_point(q, p, J->si, Pi, ui, dui);
    body_point(q, j, J->sj, Pj, uj, duj);
    body_point_vel(qd, p, dui, Vi);
    body_point_vel(qd, j, duj, Vj);
    turn(thp, J->ai, a, na);
    const double wj = qd[cj + 2], aj = qdd[cj + 2];
    const double dv[2] = {Pj[0] - Pi[0], Pj[1] - Pi[1]};
    const double dvd[2] = {Vj[0] - Vi[0], Vj[1] - Vi[1]};
    // second derivatives of the points: r_ddot + rot90(u) theta_ddot - u theta_dot^2
    double Ai[2] = {0, 0}, Aj[2];
    if (p >= 0) {
      Ai[0] = qdd[cp] + dui[0] * ap - ui[0] * wp * wp;
      Ai[1] = qdd[cp + 1] + dui[1] * ap - ui[1] * wp * wp;
    }
    Aj[0] = qdd[cj] + duj[0] * aj - uj[0] * wj * wj;
    Aj[1] = qdd[cj + 1] + duj[1] * aj - uj[1] * wj * wj;
    // z = a . d, a_dot = n_a w_p, a_ddot = n_a w_p_dot - a w_p^2
    d->z[zi] = dot2(a, dv);
    d->zd[zi] = wp * dot2(na, dv) + dot2(a, dvd);
    d->zdd[zi] = ap * dot2(na, dv) - wp * wp * dot2(a, dv) + 2 * wp * dot2(na, dvd) +
                 dot2(a, (double[2]){Aj[0] - Ai[0], Aj[1] - Ai[1]});
  }
}

// Energies and the power of the loads and force elements from q, q_dot and the last
// evaluation (the relative coordinates mapped from q carry the constraint violation of ALI1,
// which would show as energy that the global system does not have).
static void global_energies(hy_form* f) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const global* g = self_of(f);
  double gr[2], kin = 0, pot = 0;
  to_plane(m, m->opt.gravity, gr);
  const double gn = hy_v3_dot(m->plane_normal, m->opt.gravity);
  for (int i = 0; i < g->nq; i++) kin += 0.5 * g->mass[i] * g->qd[i] * g->qd[i];
  for (int b = 0; b < g->nb; b++) {
    const double* qb = g->q + GLOBAL_NQ_BODY * b;
    pot -= m->body_mass[b] * (gr[0] * qb[0] + gr[1] * qb[1] + gn * g->com_normal[b]);
  }
  d->energy_kin = kin;
  d->energy_pot = pot;
  // the power of everything in Q but gravity, Q^T q_dot less gravity's
  double power = 0;
  for (int i = 0; i < g->nq; i++) power += g->Q[i] * g->qd[i];
  for (int b = 0; b < g->nb; b++) {
    const double* vb = g->qd + GLOBAL_NQ_BODY * b;
    power -= m->body_mass[b] * (gr[0] * vb[0] + gr[1] * vb[1]);
  }
  hy_form_powers(f);  // the cylinders' parts, from the lengths and rates of q
  f->power.total = power;
}

// The outputs of the state: hy_form_refresh on the mapped z (kinematics, markers, flows), then
// the force elements, energies and powers of q itself, the global constraints' violation and
// the cut joints' multipliers; pd takes the rates the step carries on with (NULL: the network's).
static void outputs(hy_form* f, const double* pd_keep) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  global* g = self_of(f);
  to_relative(f);
  hy_form_refresh(f);
  evaluate(f, g->q, g->qd, 0);
  global_energies(f);
  if (pd_keep) memcpy(d->pd, pd_keep, sizeof(double) * (size_t)g->nv);
  d->violation = violation(g);
  for (int e = 0; e < m->sizes.neq && e < 2 * m->sizes.ncut; e++) d->lam[e] = g->lam[2 * g->nb + e];
}

//----- start ----------------------------------------------------------------------------------------

static hy_status global_accelerations(hy_form* f);

// The shared initial state has closed the loops in z: q from it, then consistent accelerations
// and multipliers by ALI1's iteration (both algorithms start so).
static hy_status global_start(hy_form* f) {
  global* g = self_of(f);
  const hy_model* m = f->m;
  g->alpha = m->opt.penalty;
  g->xi = m->opt.baumgarte_xi;
  g->omega = m->opt.baumgarte_omega;
  hy_form_evaluate(m, f->d, f->mech, NULL);
  reference(f);
  memset(g->lam, 0, sizeof(double) * (size_t)g->ng);
  return global_accelerations(f);
}

// hy_forward: the accelerations at the z, z_dot in d (which may have been set from outside).
static hy_status global_accelerations(hy_form* f) {
  global* g = self_of(f);
  from_relative(f);
  evaluate(f, g->q, g->qd, 0);
  HY_TRY(ali1_accelerations(f));
  to_relative(f);
  return HY_OK;
}

//----- steps ------------------------------------------------------------------------------------

static void keep_start(hy_form* f) {
  global* g = self_of(f);
  const hy_data* d = f->d;
  const size_t nq = (size_t)g->nq, nv = (size_t)g->nv;
  memcpy(g->q_k, g->q, sizeof(double) * nq);
  memcpy(g->qd_k, g->qd, sizeof(double) * nq);
  memcpy(g->qdd_k, g->qdd, sizeof(double) * nq);
  memcpy(g->lam_k, g->lam, sizeof(double) * (size_t)g->ng);
  memcpy(g->p_k, d->p, sizeof(double) * nv);
  memcpy(g->pd_k, d->pd, sizeof(double) * nv);
  memcpy(g->U_k, d->U, sizeof(double) * (size_t)f->m->sizes.nspool);
}

// Back to the start of a failed step, outputs included.
static void back_to_start(hy_form* f, double t_k) {
  global* g = self_of(f);
  hy_data* d = f->d;
  const size_t nq = (size_t)g->nq, nv = (size_t)g->nv;
  const hy_error keep = d->err;
  memcpy(g->q, g->q_k, sizeof(double) * nq);
  memcpy(g->qd, g->qd_k, sizeof(double) * nq);
  memcpy(g->qdd, g->qdd_k, sizeof(double) * nq);
  memcpy(g->lam, g->lam_k, sizeof(double) * (size_t)g->ng);
  memcpy(d->p, g->p_k, sizeof(double) * nv);
  memcpy(d->U, g->U_k, sizeof(double) * (size_t)f->m->sizes.nspool);
  d->time = t_k;
  outputs(f, g->pd_k);
  d->err = keep;
}

static int all_finite(const double* v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) return 0;
  }
  return 1;
}

// ALI1 with semi-implicit forward Euler (seed 001 Sect. 2.1): q_dot += h q_ddot, q += h q_dot,
// the pressures and spools forward Euler with their rates at the start, then the accelerations
// of Eqs. 2a-2b at the new state (the next step's).
static hy_status ali1_step(hy_form* f, double h) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  global* g = self_of(f);
  const double t_k = d->time;
  keep_start(f);
  for (int i = 0; i < g->nq; i++) {
    g->qd[i] += h * g->qdd[i];
    g->q[i] += h * g->qd[i];
  }
  for (int v = 0; v < g->nv; v++) d->p[v] += h * d->pd[v];
  for (int v = 0; v < m->sizes.nspool; v++) d->U[v] += h * d->Ud[v];
  d->time = t_k + h;
  // the spools without dynamics at their reference at the new time (spool: none)
  if (m->sizes.nvlv > 0) hy_hyd_spool_rates(m, d);
  hy_status st = HY_OK;
  if (!all_finite(g->q, g->nq) || !all_finite(g->qd, g->nq) || !all_finite(d->p, g->nv)) {
    st = HY_FAIL(&d->err, HY_ERR_NAN, "ali1: non-finite state after the step t = %.9g -> %.9g s",
                 t_k, t_k + h);
  }
  if (st == HY_OK) {
    evaluate(f, g->q, g->qd, 0);
    st = ali1_accelerations(f);
  }
  if (st != HY_OK) {
    back_to_start(f, t_k);
    return st;
  }
  d->stats.niter_last = 1;
  outputs(f, NULL);
  return HY_OK;
}

// The Newton tangent of ALI3-P at the last evaluation with derivatives (seed 001 Eq. 5 and its
// pressure rows), rows scaled as the residual: mechanical rows h^2/4 (Eq. 3), pressure rows 1.
//   [ M + h/2 C + h^2/4 (K + Phi_q^T alpha Phi_q)   -h^2/4 J^T dF/dp      ]
//   [ -(h/2 dp_dot/ds + dp_dot/ds_dot) J             I - h/2 dp_dot/dp     ]
// with C = -J^T dF/ds_dot J, K = -J^T dF/ds J over the cylinders (J = d|s|/dq); W keeps
// M + h/2 C + h^2/4 K for the projections (Eqs. 6-7).
static void ali3p_tangent(hy_form* f, double h) {
  const hy_model* m = f->m;
  global* g = self_of(f);
  const hy_hyd_work* hw = f->hyd;
  const int nq = g->nq, n = g->n, nc = m->sizes.ncyl;
  const double wp = 0.25 * h * h, wv = 0.5 * h;
  double* W = g->W;
  memset(W, 0, sizeof(double) * (size_t)nq * (size_t)nq);
  for (int i = 0; i < nq; i++) W[i * nq + i] = g->mass[i];
  for (int c = 0; c < nc; c++) {
    const double* J = g->Jf + (size_t)m->cyl_frc[c] * nq;
    const double k = -(wv * hw->dF_dsd[c] + wp * hw->dF_ds[c]);
    for (int i = 0; i < nq; i++) {
      if (J[i] == 0) continue;
      for (int j = 0; j < nq; j++) W[i * nq + j] += k * J[i] * J[j];
    }
  }
  double* T = g->T;
  memset(T, 0, sizeof(double) * (size_t)n * (size_t)n);
  for (int i = 0; i < nq; i++) memcpy(T + (size_t)i * n, W + (size_t)i * nq, sizeof(double) * (size_t)nq);
  const double ca = wp * g->alpha;
  for (int e = 0; e < g->ng; e++) {
    const double* row = g->phi_q + (size_t)e * nq;
    for (int i = 0; i < nq; i++) {
      if (row[i] == 0) continue;
      for (int j = 0; j < nq; j++) T[(size_t)i * n + j] += ca * row[i] * row[j];
    }
  }
  // the first-order rows: pressures (their rates do not depend on the friction states), then
  // the friction states (whose rates do not depend on the lengths); the force's columns
  const int np = m->sizes.nvol, nw = m->sizes.nfric;
  for (int c = 0; c < nc; c++) {
    const double* J = g->Jf + (size_t)m->cyl_frc[c] * nq;
    for (int i = 0; i < nq; i++) {
      if (J[i] == 0) continue;
      double* row = T + (size_t)i * n + nq;
      for (int v = 0; v < np; v++) row[v] -= wp * J[i] * hw->dF_dp[c * np + v];
      for (int k = 0; k < nw; k++) row[np + k] -= wp * J[i] * hw->dF_dw[c * nw + k];
    }
    for (int v = 0; v < np; v++) {
      const double k = wv * hw->dpd_ds[v * nc + c] + hw->dpd_dsd[v * nc + c];
      for (int j = 0; j < nq; j++) T[(size_t)(nq + v) * n + j] -= k * J[j];
    }
    for (int k = 0; k < nw; k++) {
      const double kk = hw->dwd_dsd[k * nc + c];  // w_dot depends on s_dot only: h/2 (2/h) = 1
      for (int j = 0; j < nq; j++) T[(size_t)(nq + np + k) * n + j] -= kk * J[j];
    }
  }
  for (int v = 0; v < np; v++) {
    double* row = T + (size_t)(nq + v) * n + nq;
    for (int u = 0; u < np; u++) row[u] = (u == v ? 1.0 : 0.0) - wv * hw->dpd_dp[v * np + u];
  }
  for (int k = 0; k < nw; k++) {
    double* row = T + (size_t)(nq + np + k) * n + nq;
    for (int u = 0; u < np; u++) row[u] = -wv * hw->dwd_dp[k * np + u];
    for (int l = 0; l < nw; l++) row[np + l] = (l == k ? 1.0 : 0.0) - wv * hw->dwd_dw[k * nw + l];
  }
}

// Rows of the n x n a scaled to a largest entry of 1, the factors into scale: the pressure rows
// hold d p_dot/d s entries of 1e9 beside a diagonal of 1, which partial pivoting over unscaled
// rows would take as pivots for the coordinates' columns.
static void equilibrate(double* a, int n, double* scale) {
  for (int i = 0; i < n; i++) {
    double mx = 0;
    for (int j = 0; j < n; j++) mx = fmax(mx, fabs(a[i * n + j]));
    scale[i] = mx > 0 ? 1.0 / mx : 1.0;
    for (int j = 0; j < n; j++) a[i * n + j] *= scale[i];
  }
}

// The scaled residual at the unknowns in g->x (q from the trapezoidal relations): h^2/4 times
// M q_ddot + Phi_q^T (alpha Phi + lambda) - Q (Eq. 3) and p - p_k - h/2 (p_dot_k + p_dot).
static void ali3p_residual(hy_form* f, double h, int deriv) {
  hy_data* d = f->d;
  global* g = self_of(f);
  const int nq = g->nq, nv = g->nv;
  const double c1 = 2.0 / h, c2 = 4.0 / (h * h), wp = 0.25 * h * h;
  for (int i = 0; i < nq; i++) {
    const double dq = g->x[i] - g->q_k[i];
    g->q[i] = g->x[i];
    g->qd[i] = c1 * dq - g->qd_k[i];
    g->qdd[i] = c2 * dq - 2 * c1 * g->qd_k[i] - g->qdd_k[i];
  }
  memcpy(d->p, g->x + nq, sizeof(double) * (size_t)nv);
  evaluate(f, g->q, g->qd, deriv);
  for (int i = 0; i < nq; i++) g->r[i] = g->mass[i] * g->qdd[i] - g->Q[i];
  for (int e = 0; e < g->ng; e++) {
    const double s = g->alpha * g->phi[e] + g->lam[e];
    const double* row = g->phi_q + (size_t)e * nq;
    for (int i = 0; i < nq; i++) g->r[i] += row[i] * s;
  }
  for (int i = 0; i < nq; i++) g->r[i] *= wp;
  for (int v = 0; v < nv; v++) {
    g->r[nq + v] = d->p[v] - g->p_k[v] - 0.5 * h * (g->pd_k[v] + d->pd[v]);
  }
}

// The projections of Eqs. 6-7 at the converged state: velocities and accelerations onto the
// constraint manifold with the matrix M + h/2 C + h^2/4 (K + Phi_q^T alpha Phi_q).
static hy_status ali3p_project(hy_form* f, double h) {
  global* g = self_of(f);
  const int nq = g->nq;
  const double ca = 0.25 * h * h * g->alpha;
  double* A = g->T;  // the mechanical block of the tangent, as an nq x nq matrix
  memcpy(A, g->W, sizeof(double) * (size_t)nq * (size_t)nq);
  for (int e = 0; e < g->ng; e++) {
    const double* row = g->phi_q + (size_t)e * nq;
    for (int i = 0; i < nq; i++) {
      if (row[i] == 0) continue;
      for (int j = 0; j < nq; j++) A[i * nq + j] += ca * row[i] * row[j];
    }
  }
  int sing = -1;
  if (hy_lu_factor(nq, A, g->piv, &sing) != HY_OK) {
    return HY_FAIL(&f->d->err, HY_ERR_SINGULAR, "ali3p: the projection matrix is singular at t = %g s",
                   f->d->time);
  }
  double* v = g->v;
  for (int pass = 0; pass < 2; pass++) {
    double* y = pass == 0 ? g->qd : g->qdd;
    for (int i = 0; i < nq; i++) {
      double s = 0;
      for (int j = 0; j < nq; j++) s += g->W[i * nq + j] * y[j];
      v[i] = s;
    }
    if (pass == 1) {  // Eq. 7: - h^2/4 Phi_q^T alpha (Phi_q_dot q_dot), at the projected q_dot
      constraints(g, g->q, g->qd);
      for (int e = 0; e < g->ng; e++) {
        const double* row = g->phi_q + (size_t)e * nq;
        for (int i = 0; i < nq; i++) v[i] -= ca * row[i] * g->bias[e];
      }
    }
    hy_lu_solve(nq, A, g->piv, v);
    memcpy(y, v, sizeof(double) * (size_t)nq);
  }
  return HY_OK;
}

// The start of an ALI3-P step of size h: the start kept, the spools stepped, the predictors in
// g->x.
static void ali3p_begin(hy_form* f, double h) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  global* g = self_of(f);
  const int nq = g->nq, nv = g->nv;
  const double t_k = d->time;
  keep_start(f);
  // the spools: their dynamics in closed form (seed 000 Eq. 27 under the trapezoidal rule, or
  // the second order)
  for (int v = 0; v < m->sizes.nvlv; v++) {
    const int iw = m->vlv_vadr[v];
    const double r0 = hy_hyd_spool_reference(m, d, v, t_k);
    const double r1 = hy_hyd_spool_reference(m, d, v, t_k + h);
    hy_hyd_spool_step(m, d, v, g->U_k[v], iw >= 0 ? g->U_k[iw] : 0.0, r0, r1, h);
  }
  d->time = t_k + h;
  if (m->sizes.nvlv > 0) hy_hyd_spool_rates(m, d);
  // predictors
  for (int i = 0; i < nq; i++) g->x[i] = g->q_k[i] + h * g->qd_k[i] + 0.5 * h * h * g->qdd_k[i];
  for (int v = 0; v < nv; v++) g->x[nq + v] = g->p_k[v] + h * g->pd_k[v];
}

int hy_form_global_unknowns(const hy_form* f) { return ((const global*)f->self)->n; }

void hy_form_global_tangents(hy_form* f, double h, double* A, double* F) {
  global* g = self_of(f);
  const int n = g->n;
  const double t_k = f->d->time;
  ali3p_begin(f, h);
  ali3p_residual(f, h, 1);
  ali3p_tangent(f, h);
  memcpy(A, g->T, sizeof(double) * (size_t)n * (size_t)n);
  for (int j = 0; j < n; j++) {
    // small enough for the velocities (2/h times it) to stay inside the friction laws' smoothing
    const double xj = g->x[j], e = (j < g->nq ? 1e-9 : 1e-7) * fmax(1.0, fabs(xj));
    g->x[j] = xj + e;
    ali3p_residual(f, h, 0);
    for (int i = 0; i < n; i++) F[i * n + j] = g->r[i];
    g->x[j] = xj - e;
    ali3p_residual(f, h, 0);
    for (int i = 0; i < n; i++) F[i * n + j] = (F[i * n + j] - g->r[i]) / (2 * e);
    g->x[j] = xj;
  }
  back_to_start(f, t_k);
}

// ALI3-P (seed 001 Eqs. 3-7): one trapezoidal step by Newton-Raphson on [q; p], the multipliers
// updated after every iteration (lambda += alpha Phi), then the projections.
static hy_status ali3p_step(hy_form* f, double h) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  global* g = self_of(f);
  const int nq = g->nq, nv = g->nv, n = g->n;
  const double t_k = d->time;
  ali3p_begin(f, h);
  hy_status st = HY_NEWTON_NOCONV;
  int it = 0, factored = 0;
  double worst_q = 0, worst_p = 0, worst_w = 0;
  for (it = 1; it <= m->opt.max_iter; it++) {
    const int fresh = !factored || !m->opt.reuse_tangent;
    ali3p_residual(f, h, fresh);
    if (!all_finite(g->r, n)) {
      st = HY_FAIL(&d->err, HY_ERR_NAN, "ali3p: non-finite residual in the step t = %.9g -> %.9g s",
                   t_k, t_k + h);
      break;
    }
    if (fresh) {
      ali3p_tangent(f, h);
      equilibrate(g->T, n, g->row_scale);
      int sing = -1;
      if (hy_lu_factor(n, g->T, g->piv, &sing) != HY_OK) {
        st = HY_FAIL(&d->err, HY_ERR_SINGULAR, "ali3p: singular tangent at t = %.9g s (unknown %d)",
                     t_k + h, sing);
        break;
      }
      factored = 1;
    }
    for (int i = 0; i < n; i++) g->v[i] = -g->r[i] * g->row_scale[i];
    hy_lu_solve(n, g->T, g->piv, g->v);
    worst_q = worst_p = worst_w = 0;
    for (int i = 0; i < nq; i++) worst_q = fmax(worst_q, fabs(g->v[i]));
    for (int v = 0; v < m->sizes.nvol; v++) worst_p = fmax(worst_p, fabs(g->v[nq + v]));
    for (int v = m->sizes.nvol; v < nv; v++) worst_w = fmax(worst_w, fabs(g->v[nq + v]));
    for (int i = 0; i < n; i++) g->x[i] += g->v[i];
    // Eq. 3's multipliers: lambda_{j+1} = lambda_j + alpha Phi(q_{j+1}) (at the next evaluation's
    // constraints, which the residual forms first: apply with the current Phi moved by dx)
    d->stats.niter++;
    if (worst_q <= m->opt.tol_pos && worst_p <= m->opt.tol_p && worst_w <= m->opt.tol_fric) {
      st = HY_OK;
      break;
    }
    // the multipliers with Phi at the updated coordinates
    for (int i = 0; i < nq; i++) g->q[i] = g->x[i];
    constraints(g, g->q, g->qd);
    for (int e = 0; e < g->ng; e++) g->lam[e] += g->alpha * g->phi[e];
  }
  if (st == HY_NEWTON_NOCONV) {
    HY_FAIL(&d->err, HY_NEWTON_NOCONV,
            "ali3p: Newton-Raphson did not converge in %d iterations in the step t = %.9g -> "
            "%.9g s (last corrections %.3g m or rad, %.3g Pa)",
            m->opt.max_iter, t_k, t_k + h, worst_q, worst_p);
  }
  if (st == HY_OK) {
    // the converged state, its derivatives for the projections' matrix, the final multipliers
    ali3p_residual(f, h, 1);
    ali3p_tangent(f, h);
    for (int e = 0; e < g->ng; e++) g->lam[e] += g->alpha * g->phi[e];
    st = ali3p_project(f, h);
  }
  if (st != HY_OK) {
    back_to_start(f, t_k);
    return st;
  }
  d->stats.niter_last = it;
  if (it > d->stats.niter_max) d->stats.niter_max = it;
  // the pressures' trapezoidal rates carry the step on (as the relative formulations' do)
  for (int v = 0; v < nv; v++) g->v[v] = 2.0 / h * (d->p[v] - g->p_k[v]) - g->pd_k[v];
  outputs(f, g->v);
  return HY_OK;
}

static hy_status global_step(hy_form* f, double h) {
  return is_ali3p(f) ? ali3p_step(f, h) : ali1_step(f, h);
}

//----- history ---------------------------------------------------------------------------------------

// q, q_dot, q_ddot, lambda, theta_ref, z_ref
static int global_hist_size(const hy_model* m) {
  const int nb = m->sizes.nbody;
  return 3 * GLOBAL_NQ_BODY * nb + 2 * (nb + m->sizes.ncut) + nb + m->sizes.nz;
}

static void global_hist_get(const hy_form* f, double* buf) {
  const global* g = f->self;
  const size_t nq = (size_t)g->nq;
  memcpy(buf, g->q, sizeof(double) * nq), buf += nq;
  memcpy(buf, g->qd, sizeof(double) * nq), buf += nq;
  memcpy(buf, g->qdd, sizeof(double) * nq), buf += nq;
  memcpy(buf, g->lam, sizeof(double) * (size_t)g->ng), buf += g->ng;
  memcpy(buf, g->theta_ref, sizeof(double) * (size_t)g->nb), buf += g->nb;
  memcpy(buf, g->z_ref, sizeof(double) * (size_t)f->m->sizes.nz);
}

static void global_hist_set(hy_form* f, const double* buf) {
  global* g = f->self;
  const size_t nq = (size_t)g->nq;
  memcpy(g->q, buf, sizeof(double) * nq), buf += nq;
  memcpy(g->qd, buf, sizeof(double) * nq), buf += nq;
  memcpy(g->qdd, buf, sizeof(double) * nq), buf += nq;
  memcpy(g->lam, buf, sizeof(double) * (size_t)g->ng), buf += g->ng;
  memcpy(g->theta_ref, buf, sizeof(double) * (size_t)g->nb), buf += g->nb;
  memcpy(g->z_ref, buf, sizeof(double) * (size_t)f->m->sizes.nz);
}

static int global_hist_ok(const hy_model* m, const double* buf) {
  (void)m;
  (void)buf;
  return 1;  // real numbers only, which hy_state_set has checked
}

static void global_retry(hy_form* f) { (void)f; }

#define GLOBAL_OPS(KIND, NAME)                                                                  \
  {                                                                                             \
    .kind = KIND, .name = NAME, .has_ode = 0, .size = global_size, .bind = global_bind,         \
    .scratch = global_scratch, .start = global_start, .accelerations = global_accelerations,    \
    .step = global_step, .retry = global_retry, .hist_size = global_hist_size,                  \
    .hist_get = global_hist_get, .hist_set = global_hist_set, .hist_ok = global_hist_ok,        \
  }

const hy_form_ops hy_form_ali1_ops = GLOBAL_OPS(HY_FORM_ALI1, "ali1");
const hy_form_ops hy_form_ali3p_ops = GLOBAL_OPS(HY_FORM_ALI3P, "ali3p");
