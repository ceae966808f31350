// Loop-closure constraints of cut joints and the geometry of force elements, in relative joint
// coordinates (seed 000_c866e3283107e8a4.txt, Sects. 2.2-2.3: Phi(z) = 0, its Jacobian Phi_z and
// the velocity-product term Phi_z_dot zd of Phi_ddot = Phi_z zdd + Phi_z_dot zd; Eq. 45 for the
// actuator length and rate).
//
// Every equation has one of two forms, both written with vectors in the inertial frame:
//   point row   Phi = c . (x_B - x_A)   x_A, x_B marker points, c a constant or body-fixed unit
//                                        vector (a direction across which B may not move)
//   vector row  Phi = v . w             v, w body-fixed unit vectors (kept perpendicular)
// The Jacobian comes from the kinematics, not from differences: a point x on body j moves with
// dx/dz_i = b_i[0:3] + b_i[3:6] x x and a body-fixed vector with dv/dz_i = b_i[3:6] x v, for
// the joints i on j's path to ground (zero elsewhere). With (b x v) . w = b . (v x w) every
// rotational term is a dot product of b_i[3:6] with one 3-vector, accumulated along a path.
// The bias uses the accelerations with zdd = 0 that hy_mech_kinematics leaves in
// w->body_Zd0: x_ddot0 = s_ddot0 + w_dot0 x x + w x x_dot and v_ddot0 = w_dot0 x v + w x v_dot
// (hydyn's Zd is dZ/dt, docs/mechanics.md).
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "mech/mech.h"

// What an evaluation computes: Phi and Phi_z need the positions only, the bias also needs the
// velocities (and is not wanted inside a Newton iteration on positions).
enum { WANT_ROWS = 1, WANT_BIAS = 2 };

// A point or direction fixed on a body (-1 = ground, or a constant), with its time derivatives
// in the inertial frame; dd is the second derivative with zdd = 0. v and dd are only set when
// the bias is wanted.
typedef struct kin3 {
  int body;
  double p[3];   // position (m) or unit direction
  double v[3];   // first time derivative
  double dd[3];  // second time derivative with zdd = 0
} kin3;

// Angular velocity and acceleration (zdd = 0) of a body; zero for ground.
static void body_omega(const hy_data* d, const hy_mech_work* w, int body, const double** om,
                       const double** al) {
  static const double zero3[3] = {0, 0, 0};
  if (body < 0) {
    *om = zero3;
    *al = zero3;
    return;
  }
  *om = d->body_Z + 6 * body + 3;
  *al = w->body_Zd0 + 6 * body + 3;
}

// x_ddot0 = s_ddot0 + w_dot0 x x + w x x_dot of a point x on body b (>= 0) moving at v.
static inline void point_acceleration0(const hy_data* d, const hy_mech_work* w, int b,
                                       const double x[3], const double v[3], double dd[3]) {
  const double* Zd0 = w->body_Zd0 + 6 * b;
  const double* om = d->body_Z + 6 * b + 3;
  double t[3];
  hy_v3_cross(dd, Zd0 + 3, x);
  hy_v3_add(dd, dd, Zd0);
  hy_v3_cross(t, om, v);
  hy_v3_add(dd, dd, t);
}

// Marker k as a point: x, x_dot (d->mrk_vel) and x_ddot0 = s_ddot0 + w_dot0 x x + w x x_dot.
static void marker_point(const hy_model* m, const hy_data* d, const hy_mech_work* w, int k,
                         int want, kin3* out) {
  const int b = m->mrk_body[k];
  out->body = b;
  hy_v3_copy(out->p, d->mrk_pos + 3 * k);
  if (!(want & WANT_BIAS)) return;
  hy_v3_copy(out->v, d->mrk_vel + 3 * k);
  if (b < 0) {
    hy_v3_set(out->dd, 0, 0, 0);
    return;
  }
  point_acceleration0(d, w, b, out->p, out->v, out->dd);
}

void hy_mech_marker_acceleration0(const hy_model* m, const hy_data* d, const hy_mech_work* w, int k,
                                  double dd[3]) {
  const int b = m->mrk_body[k];
  if (b < 0) {
    hy_v3_set(dd, 0, 0, 0);
    return;
  }
  point_acceleration0(d, w, b, d->mrk_pos + 3 * k, d->mrk_vel + 3 * k, dd);
}

// A unit vector fixed on `body`, given in the body frame: v = A vb, v_dot = w x v,
// v_ddot0 = w_dot0 x v + w x v_dot.
static void body_vector(const hy_model* m, const hy_data* d, const hy_mech_work* w, int body,
                        const double vb[3], int want, kin3* out) {
  out->body = body;
  if (body < 0) {
    hy_v3_copy(out->p, vb);
    hy_v3_set(out->v, 0, 0, 0);
    hy_v3_set(out->dd, 0, 0, 0);
    return;
  }
  if (m->planar) {
    hy_mech_planar_rotate(m, w, body, vb, out->p);  // body_rot is an output there
  } else {
    hy_m3_mulv(out->p, d->body_rot + 9 * body, vb);
  }
  if (!(want & WANT_BIAS)) return;
  const double *om, *al;
  body_omega(d, w, body, &om, &al);
  double t[3];
  hy_v3_cross(out->v, om, out->p);
  hy_v3_cross(out->dd, al, out->p);
  hy_v3_cross(t, om, out->v);
  hy_v3_add(out->dd, out->dd, t);
}

// A constant direction of the inertial frame.
static void const_vector(const double c[3], kin3* out) {
  out->body = -1;
  hy_v3_copy(out->p, c);
  hy_v3_set(out->v, 0, 0, 0);
  hy_v3_set(out->dd, 0, 0, 0);
}

// a x u of two vectors fixed on one body is fixed on that body too; its derivatives follow from
// the product rule. (Also used for a_A x n in planar models: a body that only turns about the
// constant n carries a_A x n with it.)
static void cross_on_body(const kin3* a, const kin3* u, int want, kin3* out) {
  double t1[3], t2[3];
  out->body = a->body;
  hy_v3_cross(out->p, a->p, u->p);
  if (!(want & WANT_BIAS)) return;
  hy_v3_cross(t1, a->v, u->p);
  hy_v3_cross(t2, a->p, u->v);
  hy_v3_add(out->v, t1, t2);
  hy_v3_cross(t1, a->dd, u->p);
  hy_v3_cross(t2, a->p, u->dd);
  hy_v3_add(out->dd, t1, t2);
  hy_v3_cross(t1, a->v, u->v);
  hy_v3_addscl(out->dd, t1, 2.0);
}

// row[zadr_i] += b_i[3:6] . u for the joints i on body's path to ground.
static void add_rotation(const hy_model* m, const hy_data* d, int body, const double u[3],
                         double* row) {
  for (int j = body; j >= 0; j = m->body_parent[j]) {
    row[m->jnt_zadr[j]] += hy_v3_dot(d->jnt_b + 6 * j + 3, u);
  }
}

void hy_mech_add_point_along(const hy_model* m, const hy_data* d, int body, const double x[3],
                             const double c[3], double sign, double* row) {
  if (body < 0) return;  // ground: first, since half the calls (force elements) end there
  const int* parent = m->body_parent;
  const int* zadr = m->jnt_zadr;
  if (m->planar && m->plane_xy[0]) {
    // b_lin has no z component and b_ang only one (see planar_coincidence): the same sums
    // without their zero terms, with sign taken into c (for sign = +-1, as every caller has,
    // exact)
    const double c0 = sign * c[0], c1 = sign * c[1];
    const double xc2 = x[0] * c1 - x[1] * c0;
    const double* jb = d->jnt_b;
    for (int j = body; j >= 0; j = parent[j]) {
      const double* b = jb + 6 * j;
      row[zadr[j]] += (b[0] * c0 + b[1] * c1) + b[5] * xc2;
    }
    return;
  }
  double xc[3];
  hy_v3_cross(xc, x, c);  // c . (b x x) = b . (x x c)
  for (int j = body; j >= 0; j = parent[j]) {
    const double* b = d->jnt_b + 6 * j;
    row[zadr[j]] += sign * (hy_v3_dot(b, c) + hy_v3_dot(b + 3, xc));
  }
}

// Point row r: Phi = c . (x_B - x_A). Bias = c_ddot0 . d + 2 c_dot . d_dot + c . d_ddot0.
static void point_row(const hy_model* m, hy_data* d, int r, int want, const kin3* c,
                      const kin3* xa, const kin3* xb) {
  double dx[3];
  hy_v3_sub(dx, xb->p, xa->p);
  if (want & WANT_ROWS) {
    const int nz = m->sizes.nz;
    double* row = d->phi_z + (size_t)r * (size_t)nz;
    memset(row, 0, sizeof(double) * (size_t)nz);
    double t[3];
    d->phi[r] = hy_v3_dot(c->p, dx);
    hy_v3_cross(t, c->p, dx);  // (b x c) . d = b . (c x d)
    add_rotation(m, d, c->body, t, row);
    hy_mech_add_point_along(m, d, xb->body, xb->p, c->p, 1.0, row);
    hy_mech_add_point_along(m, d, xa->body, xa->p, c->p, -1.0, row);
  }
  if (want & WANT_BIAS) {
    double dv[3], da[3];
    hy_v3_sub(dv, xb->v, xa->v);
    hy_v3_sub(da, xb->dd, xa->dd);
    d->phi_bias[r] = hy_v3_dot(c->dd, dx) + 2.0 * hy_v3_dot(c->v, dv) + hy_v3_dot(c->p, da);
  }
}

// Vector row r: Phi = v . w. Bias = v_ddot0 . w + 2 v_dot . w_dot + v . w_ddot0.
static void vector_row(const hy_model* m, hy_data* d, int r, int want, const kin3* v,
                       const kin3* w) {
  if (want & WANT_ROWS) {
    const int nz = m->sizes.nz;
    double* row = d->phi_z + (size_t)r * (size_t)nz;
    memset(row, 0, sizeof(double) * (size_t)nz);
    double t[3];
    d->phi[r] = hy_v3_dot(v->p, w->p);
    hy_v3_cross(t, v->p, w->p);  // (b x v) . w = b . (v x w)
    add_rotation(m, d, v->body, t, row);
    hy_v3_scale(t, t, -1.0);  // v . (b x w) = b . (w x v)
    add_rotation(m, d, w->body, t, row);
  }
  if (want & WANT_BIAS) {
    d->phi_bias[r] =
        hy_v3_dot(v->dd, w->p) + 2.0 * hy_v3_dot(v->v, w->v) + hy_v3_dot(v->p, w->dd);
  }
}

void hy_mech_point_jacobian(const hy_model* m, const hy_data* d, int body, const double x[3],
                            double* J) {
  const int nz = m->sizes.nz;
  memset(J, 0, sizeof(double) * 3 * (size_t)nz);
  for (int j = body; j >= 0; j = m->body_parent[j]) {
    const double* b = d->jnt_b + 6 * j;
    double col[3];
    hy_v3_cross(col, b + 3, x);
    hy_v3_add(col, col, b);
    const int i = m->jnt_zadr[j];
    J[i] = col[0];
    J[nz + i] = col[1];
    J[2 * nz + i] = col[2];
  }
}

// A function kept out of its callers, so that a rarely taken branch does not add its register
// saves and stack frame to theirs.
#if defined(__GNUC__)
#define MECH_NOINLINE __attribute__((noinline))
#else
#define MECH_NOINLINE
#endif

// r = 0 for n doubles, as a sized kernel (HY_SIZED): a zeroing loop would become a call to
// memset, which costs more than the stores on the few coordinates of a small model.
static HY_ALWAYS_INLINE void zero_n(int n, double* restrict r) {
  for (int i = 0; i < n; i++) r[i] = 0;
}

// The rows of planar_coincidence from one end: row1 and row2 += sign (e1, e2) . dx/dz for the
// point x on `body`, with dx/dz_j = b_j[0:3] + b_j[3:6] x x along the path. Always inlined with
// sign = +-1, xy and chain constants: the products by sign become an addition or a
// subtraction, and on a chain (w->chain) the path of body j is j, j - 1, ..., 0 with coordinates
// of the same numbers.
static HY_ALWAYS_INLINE void coincidence_end(const hy_model* m, const hy_data* d, int body,
                                             const double x[3], double sign, double* row1,
                                             double* row2, int xy, int chain) {
  const int* parent = m->body_parent;
  const int* zadr = m->jnt_zadr;
  const double* jb = d->jnt_b;
  const double x0 = x[0], x1 = x[1];
  const double s2 = sign * m->plane_e2[1];  // +-1: with e2y, exact
  for (int j = body; j >= 0; j = chain ? j - 1 : parent[j]) {
    const double* b = jb + 6 * j;
    const int zj = chain ? j : zadr[j];
    if (xy) {
      const double v1 = b[0] - b[5] * x1;
      row1[zj] = sign > 0 ? row1[zj] + v1 : row1[zj] - v1;
      row2[zj] += s2 * (b[1] + b[5] * x0);
    } else {
      double col[3];
      hy_v3_cross(col, b + 3, x);
      hy_v3_add(col, col, b);
      const double v1 = hy_v3_dot(m->plane_e1, col), v2 = hy_v3_dot(m->plane_e2, col);
      row1[zj] = sign > 0 ? row1[zj] + v1 : row1[zj] - v1;
      row2[zj] = sign > 0 ? row2[zj] + v2 : row2[zj] - v2;
    }
  }
}

// Planar revolute and spherical cuts: Phi = (e1, e2) . (x_B - x_A), the point rows of the
// in-plane unit vectors, which are constant. Both rows come from one walk of each path, and the
// bias is c . (x_ddot0_B - x_ddot0_A) (point_row with c_dot = c_ddot = 0). Always inlined with xy
// and chain constants: on the x-y plane e1 = x, e2 = +-y and n = +-z (model_compile.c,
// any_perpendicular), every b_ang and omega lies along z and every b_lin, velocity and zdd = 0
// acceleration in the plane, so the dot products and cross products come down to their terms
// that are not zero, with the same values.
static HY_ALWAYS_INLINE void planar_coincidence(const hy_model* m, hy_data* d,
                                                const hy_mech_work* w, int want, int r, int ma,
                                                int mb, int xy, int chain) {
  const double* e1 = m->plane_e1;
  const double* e2 = m->plane_e2;
  const double e2y = e2[1];
  const double* xa = d->mrk_pos + 3 * ma;
  const double* xb = d->mrk_pos + 3 * mb;
  if (want & WANT_ROWS) {
    const int nz = m->sizes.nz;
    double* row1 = d->phi_z + (size_t)r * (size_t)nz;
    double* row2 = row1 + nz;
    HY_SIZED(2 * nz, zero_n, row1);
    double dx[3];
    hy_v3_sub(dx, xb, xa);
    d->phi[r] = xy ? dx[0] : hy_v3_dot(e1, dx);
    d->phi[r + 1] = xy ? e2y * dx[1] : hy_v3_dot(e2, dx);
    coincidence_end(m, d, m->mrk_body[mb], xb, 1.0, row1, row2, xy, chain);
    coincidence_end(m, d, m->mrk_body[ma], xa, -1.0, row1, row2, xy, chain);
  }
  if (want & WANT_BIAS) {
    // x_ddot0 = s_ddot0 + w_dot0 x x + w x x_dot with w_dot0 = 0, 0 on ground
    double da[3] = {0, 0, 0};
    const int ends[2] = {mb, ma};
    for (int e = 0; e < 2; e++) {
      const int bk = m->mrk_body[ends[e]];
      if (bk < 0) continue;
      const double sign = e == 0 ? 1.0 : -1.0;
      const double* Zd0 = w->body_Zd0 + 6 * bk;
      const double* om = d->body_Z + 6 * bk + 3;
      const double* v = d->mrk_vel + 3 * ends[e];
      if (xy) {
        da[0] += sign * (Zd0[0] - om[2] * v[1]);
        da[1] += sign * (Zd0[1] + om[2] * v[0]);
      } else {
        double dd[3];
        hy_v3_cross(dd, om, v);
        hy_v3_add(dd, dd, Zd0);
        hy_v3_addscl(da, dd, sign);
      }
    }
    d->phi_bias[r] = xy ? da[0] : hy_v3_dot(e1, da);
    d->phi_bias[r + 1] = xy ? e2y * da[1] : hy_v3_dot(e2, da);
  }
}

// Cut k from the kinematics of its markers and body vectors (every cut of a 3-D model, and the
// planar translational cuts); returns the largest |Phi| of its rows when they are wanted.
static MECH_NOINLINE double cut_general(const hy_model* m, hy_data* d, hy_mech_work* w, int want,
                                        int k) {
  static const double ex[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const int ma = m->cut_mrk_a[k], mb = m->cut_mrk_b[k];
  const int ba = m->mrk_body[ma], bb = m->mrk_body[mb];
  const int r0 = m->cut_eqadr[k];
  const hy_cut_type type = (hy_cut_type)m->cut_type[k];
  kin3 xa, xb, aa, ab, c;
  marker_point(m, d, w, ma, want, &xa);
  marker_point(m, d, w, mb, want, &xb);
  body_vector(m, d, w, ba, m->cut_axis_a + 3 * k, want, &aa);
  body_vector(m, d, w, bb, m->cut_axis_b + 3 * k, want, &ab);

  if (m->planar) {
    // translational (the others took planar_coincidence): p_A = n x a_A lies in the plane
    // across A's line; A turns about n, so p_A is fixed on A. B's point stays on the line
    // (p_A . d = 0) and B's axis along it (p_A . a_B = 0).
    kin3 nn;
    const_vector(m->plane_normal, &nn);
    cross_on_body(&aa, &nn, want, &c);  // a_A x n, then flip to n x a_A
    hy_v3_scale(c.p, c.p, -1.0);
    if (want & WANT_BIAS) {
      hy_v3_scale(c.v, c.v, -1.0);
      hy_v3_scale(c.dd, c.dd, -1.0);
    }
    point_row(m, d, r0, want, &c, &xa, &xb);
    vector_row(m, d, r0 + 1, want, &c, &ab);
  } else if (type == HY_CUT_SPHERICAL || type == HY_CUT_REVOLUTE) {
    // points coincide: Phi = x_B - x_A (3 equations)
    for (int i = 0; i < 3; i++) {
      const_vector(ex[i], &c);
      point_row(m, d, r0 + i, want, &c, &xa, &xb);
    }
    if (type == HY_CUT_REVOLUTE) {
      // a_B parallel to a_A: a_A is perpendicular to u_B and to a_B x u_B, both fixed on B
      kin3 ub, vb;
      body_vector(m, d, w, bb, m->cut_up_b + 3 * k, want, &ub);
      cross_on_body(&ab, &ub, want, &vb);
      vector_row(m, d, r0 + 3, want, &aa, &ub);
      vector_row(m, d, r0 + 4, want, &aa, &vb);
    }
  } else {
    // translational: B's point on A's line (u_A . d = 0, (a_A x u_A) . d = 0), a_B parallel
    // to a_A (a_A . u_B = 0, a_A . (a_B x u_B) = 0) and no turn about it ((a_A x u_A) . u_B)
    kin3 ua, ub, va, vb;
    body_vector(m, d, w, ba, m->cut_up_a + 3 * k, want, &ua);
    body_vector(m, d, w, bb, m->cut_up_b + 3 * k, want, &ub);
    cross_on_body(&aa, &ua, want, &va);
    cross_on_body(&ab, &ub, want, &vb);
    point_row(m, d, r0, want, &ua, &xa, &xb);
    point_row(m, d, r0 + 1, want, &va, &xa, &xb);
    vector_row(m, d, r0 + 2, want, &aa, &ub);
    vector_row(m, d, r0 + 3, want, &aa, &vb);
    vector_row(m, d, r0 + 4, want, &va, &ub);
  }
  double viol = 0;
  if (want & WANT_ROWS) {
    for (int r = r0; r < r0 + m->cut_neq[k]; r++) viol = fmax(viol, fabs(d->phi[r]));
  }
  return viol;
}

// The couplers' rows (docs/model-format.md, "couplers"): Phi = z_a - ratio z_b - offset, linear
// in z, so Phi_z is the constant row (1 at z_a, -ratio at z_b) and the bias Phi_z_dot zd is 0.
// Raises d->violation (set by the cut joints before) to their largest |Phi|.
static MECH_NOINLINE void coupler_rows(const hy_model* m, hy_data* d, int want) {
  const int nz = m->sizes.nz;
  for (int k = 0; k < m->sizes.ncpl; k++) {
    const int r = m->cpl_eqadr[k];
    if (want & WANT_BIAS) d->phi_bias[r] = 0;
    if (!(want & WANT_ROWS)) continue;
    const int za = m->jnt_zadr[m->cpl_jnt[2 * k]], zb = m->jnt_zadr[m->cpl_jnt[2 * k + 1]];
    const double ratio = m->cpl_ratio[k];
    double* row = d->phi_z + (size_t)r * (size_t)nz;
    memset(row, 0, sizeof(double) * (size_t)nz);
    row[za] = 1.0;
    row[zb] = -ratio;
    d->phi[r] = d->z[za] - ratio * d->z[zb] - m->cpl_offset[k];
    d->violation = fmax(d->violation, fabs(d->phi[r]));
  }
}

// Always inlined with `want`, xy and chain constants: each entry point gets the code of its
// stage only, and planar models a loop that keeps the general cuts out of line.
static HY_ALWAYS_INLINE void constraints_planar(const hy_model* m, hy_data* d, hy_mech_work* w,
                                                int want, int xy, int chain) {
  double viol = 0;
  for (int k = 0; k < m->sizes.ncut; k++) {
    const int r0 = m->cut_eqadr[k];
    if (m->cut_type[k] == HY_CUT_TRANSLATIONAL) {
      viol = fmax(viol, cut_general(m, d, w, want, k));
      continue;
    }
    planar_coincidence(m, d, w, want, r0, m->cut_mrk_a[k], m->cut_mrk_b[k], xy, chain);
    if (want & WANT_ROWS) {
      // fmax without the call: the rows are finite or NaN, and NaN leaves viol alone there too
      const double a0 = fabs(d->phi[r0]), a1 = fabs(d->phi[r0 + 1]);
      if (a0 > viol) viol = a0;
      if (a1 > viol) viol = a1;
    }
  }
  if (want & WANT_ROWS) d->violation = viol;
}

static HY_ALWAYS_INLINE void constraints(const hy_model* m, hy_data* d, hy_mech_work* w, int want) {
  if (m->planar) {
    if (!m->plane_xy[0]) {
      constraints_planar(m, d, w, want, 0, 0);
    } else if (w->chain) {
      constraints_planar(m, d, w, want, 1, 1);
    } else {
      constraints_planar(m, d, w, want, 1, 0);
    }
  } else {
    double viol = 0;
    for (int k = 0; k < m->sizes.ncut; k++) viol = fmax(viol, cut_general(m, d, w, want, k));
    if (want & WANT_ROWS) d->violation = viol;
  }
  if (m->sizes.ncpl > 0) coupler_rows(m, d, want);
}

void hy_mech_constraints(const hy_model* m, hy_data* d, hy_mech_work* w) {
  constraints(m, d, w, WANT_ROWS | WANT_BIAS);
}

void hy_mech_constraints_pos(const hy_model* m, hy_data* d, hy_mech_work* w) {
  constraints(m, d, w, WANT_ROWS);
}

void hy_mech_constraints_bias(const hy_model* m, hy_data* d, hy_mech_work* w) {
  constraints(m, d, w, WANT_BIAS);
}


// Knife-edge row k of B (seed 003 Eqs. 11, 14): C_nh = a . x_dot of the marker's point x along
// the body-fixed unit axis a. x_dot = (dx/dz) zd, so the row is a . dx/dz, without the turn of a
// (that would be a position derivative). Its time derivative at zdd = 0, the bias of
// B zdd + B_dot zd = 0, is a_dot . x_dot + a . x_ddot0 with a_dot = w x a.
void hy_mech_nonholonomic(const hy_model* m, hy_data* d, hy_mech_work* w) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  double viol = 0;
  for (int k = 0; k < m->sizes.nnh; k++) {
    const int mk = m->nh_mrk[k];
    kin3 x, a;
    marker_point(m, d, w, mk, WANT_ROWS | WANT_BIAS, &x);
    body_vector(m, d, w, x.body, m->nh_axis + 3 * k, WANT_ROWS | WANT_BIAS, &a);
    double* row = d->phi_z + (size_t)(neq + k) * (size_t)nz;
    memset(row, 0, sizeof(double) * (size_t)nz);
    hy_mech_add_point_along(m, d, x.body, x.p, a.p, 1.0, row);
    const double rate = hy_v3_dot(a.p, x.v);
    d->nh_rate[k] = rate;
    d->phi_bias[neq + k] = hy_v3_dot(a.v, x.v) + hy_v3_dot(a.p, x.dd);
    if (fabs(rate) > viol || rate != rate) viol = rate != rate ? rate : fabs(rate);
  }
  d->nh_violation = viol;
}

void hy_mech_force_geometry(const hy_model* m, hy_data* d) {
  for (int k = 0; k < m->sizes.nfrc; k++) {
    const double* xa = d->mrk_pos + 3 * m->frc_mrk_a[k];
    const double* xb = d->mrk_pos + 3 * m->frc_mrk_b[k];
    const double* va = d->mrk_vel + 3 * m->frc_mrk_a[k];
    const double* vb = d->mrk_vel + 3 * m->frc_mrk_b[k];
    double s[3], sd[3];
    hy_v3_sub(s, xb, xa);
    hy_v3_sub(sd, vb, va);
    double* dir = d->frc_dir + 3 * k;
    const double len = hy_v3_norm(s);
    d->frc_len[k] = len;
    // seed 000 Eq. 45: s = x_b - x_a, s_dot = d|s|/dt = (x_dot_b - x_dot_a) . s / |s|. Markers
    // that meet have no direction: it is left zero (so is the rate), and no force acts.
    if (len > 0) {
      hy_v3_scale(dir, s, 1.0 / len);
      d->frc_rate[k] = hy_v3_dot(dir, sd);
    } else {
      hy_v3_set(dir, 0, 0, 0);
      d->frc_rate[k] = 0;
    }
  }
}
