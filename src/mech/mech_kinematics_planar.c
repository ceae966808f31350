// The planar paths of the kinematics (seed 000_c866e3283107e8a4.txt Eqs. 1-6 on a plane): what
// hy_mech_kinematics_pos and hy_mech_kinematics_vel (mech_kinematics.c) run on planar models,
// tested against the 3-D reference path there. The tilted-plane path serves any plane; the x-y
// paths serve the x-y plane (hy_mech_work.xy_fast), which every built-in planar model lies in.
#include <math.h>

#include "core/core.h"
#include "mech/mech_impl.h"

// On a planar model body j is A_j(z) = R_n(theta_j) A_j(0): turned about the plane normal n by
// theta_j, the sum of +-z over the revolute joints on its path. A body-fixed vector that is a at
// z = 0 is then h + c q + s w with (c, s) = (cos, sin) theta_j, from its parts h along n,
// q = a - h and w = n x a in the model (model.h, HY_PLANE_*): that replaces the 3x3 products of
// the 3-D path, and the parts of b_j, d_j and the zdd = 0 accelerations that vanish in the plane
// are not computed. On the x-y plane (m->plane_xy, normal +-z) q and w have no z component and h
// nothing else, and the x-y paths and the rotations use only their other components.
//
// The planar paths agree with the 3-D paths to round-off when the axes are parallel (revolute)
// or perpendicular (prismatic) to n to round-off; the compiler accepts a model as planar with
// axes up to 1e-9 off, and then they give the planar motion such a model stands for.

// Turns within this angle (rad) of the last libm evaluation of a body are taken from it by the
// addition theorem, which is exact to round-off there and spares most sin and cos calls: a
// Newton iteration, and a whole step of a slow mechanism, turn bodies by far less.
#define TURN_SERIES_MAX 1e-3

// What the planar position stages leave per body in w->turn: its turn angle and (c, s), for its
// children and markers, and for hy_mech_outputs and hy_mech_planar_rotate.
enum { TURN_THETA, TURN_COS, TURN_SIN, TURN_SIZE };
_Static_assert(TURN_SIZE == HY_MECH_TURN_SIZE, "w->turn holds the turn records");

// r = h + c q + s w of a vector stored as h, q, w.
static inline void turned(double r[3], const double* hqw, double c, double s) {
  r[0] = hqw[0] + c * hqw[3] + s * hqw[6];
  r[1] = hqw[1] + c * hqw[4] + s * hqw[7];
  r[2] = hqw[2] + c * hqw[5] + s * hqw[8];
}

// A = h + c q + s w of a rotation stored as h, q, w (3 x 3 each): on the x-y plane its first
// two rows turn and the third stays.
static inline void turned_rotation(double* restrict A, const double* hqw, double c, double s,
                                   int xy) {
  const double* h = hqw;
  const double* q = hqw + 9;
  const double* w = hqw + 18;
  if (xy) {
    A[0] = c * q[0] + s * w[0];
    A[1] = c * q[1] + s * w[1];
    A[2] = c * q[2] + s * w[2];
    A[3] = c * q[3] + s * w[3];
    A[4] = c * q[4] + s * w[4];
    A[5] = c * q[5] + s * w[5];
    A[6] = h[6];
    A[7] = h[7];
    A[8] = h[8];
  } else {
    A[0] = h[0] + c * q[0] + s * w[0];
    A[1] = h[1] + c * q[1] + s * w[1];
    A[2] = h[2] + c * q[2] + s * w[2];
    A[3] = h[3] + c * q[3] + s * w[3];
    A[4] = h[4] + c * q[4] + s * w[4];
    A[5] = h[5] + c * q[5] + s * w[5];
    A[6] = h[6] + c * q[6] + s * w[6];
    A[7] = h[7] + c * q[7] + s * w[7];
    A[8] = h[8] + c * q[8] + s * w[8];
  }
}

// cos and sin of a body's turn theta into *c and *s, from the base ref (angle, cos, sin) of the
// last libm evaluation when theta is near it: the addition theorem, with those of
// delta = theta - ref by their series (the first terms left out, delta^6/720 and delta^7/5040, are
// below 2e-21). Otherwise libm, and theta becomes the base.
static HY_ALWAYS_INLINE void turn_cos_sin(double theta, double* ref, double* c, double* s) {
  const double delta = theta - ref[0];
  if (fabs(delta) <= TURN_SERIES_MAX) {  // false while ref[0] is NaN
    const double d2 = delta * delta;
    const double cd = 1 - 0.5 * d2 * (1 - d2 / 12);
    const double sd = delta * (1 - d2 / 6 * (1 - d2 / 20));
    *c = ref[1] * cd - ref[2] * sd;
    *s = ref[2] * cd + ref[1] * sd;
  } else {
    ref[0] = theta;
    ref[1] = *c = cos(theta);
    ref[2] = *s = sin(theta);
  }
}

// r = a for the 3 nb doubles of the cache, a sized kernel: the trapezoidal step keeps the cache
// at the start of every step, to put it back when the step fails.
static HY_ALWAYS_INLINE void cache_copy_n(int nb, double* restrict r, const double* restrict a) {
  for (int i = 0; i < 3 * nb; i++) r[i] = a[i];
}

void hy_mech_cache_get(const hy_model* m, const hy_mech_work* w, double* buf) {
  HY_SIZED(m->sizes.nbody, cache_copy_n, buf, w->turn_ref);
}

void hy_mech_cache_set(const hy_model* m, hy_mech_work* w, const double* buf) {
  HY_SIZED(m->sizes.nbody, cache_copy_n, w->turn_ref, buf);
}

void hy_mech_forget_turns(const hy_model* m, hy_mech_work* w) {
  for (int j = 0; j < m->sizes.nbody; j++) w->turn_ref[3 * j] = NAN;
  w->xy_pos_for = NULL;
  w->xy_vel_for = NULL;
}

//----- any plane -------------------------------------------------------------------------------

// The position stage on any plane. It takes the models the x-y paths below do not: those on
// other planes, and those on the x-y plane with a slide along z (hy_mech_work.xy_fast = 0).
void hy_mech_kinematics_pos_planar(const hy_model* m, hy_data* d, hy_mech_work* w) {
  const int nb = m->sizes.nbody;
  const int* parent = m->body_parent;
  const int* type = m->jnt_type;
  const int* zadr = m->jnt_zadr;
  const int* kind = w->body_kind;
  const double* z = d->z;
  const double* pos = d->body_pos;
  double* turn = w->turn;
  for (int j = 0; j < nb; j++) {
    const int p = parent[j];
    const double* restrict rec = m->body_plane + HY_PLANE_SIZE * j;
    double* restrict t = turn + TURN_SIZE * j;
    double* restrict b = d->jnt_b + 6 * j;
    double* restrict r = d->body_pos + 3 * j;
    double* restrict g = d->body_com + 3 * j;
    const double* pp = rec + HY_PLANE_PPOINT;
    const double* u = rec + HY_PLANE_AXIS;
    // joint point on the parent: P = r_p + A_p ppoint, or ppoint at z = 0 (h + q) on ground
    double P[3];
    double theta_p = 0, cp = 1, sp = 0;
    if (p >= 0) {
      const double* tp = turn + TURN_SIZE * p;
      const double* rp = pos + 3 * p;
      theta_p = tp[TURN_THETA];
      cp = tp[TURN_COS];
      sp = tp[TURN_SIN];
      turned(P, pp, cp, sp);
      P[0] += rp[0];
      P[1] += rp[1];
      P[2] += rp[2];
    } else {
      P[0] = pp[0] + pp[3];
      P[1] = pp[1] + pp[4];
      P[2] = pp[2] + pp[5];
    }

    if (type[j] == HY_JOINT_REVOLUTE) {
      const double theta = theta_p + rec[HY_PLANE_TURN] * z[zadr[j]];
      t[TURN_THETA] = theta;
      turn_cos_sin(theta, w->turn_ref + 3 * j, &t[TURN_COS], &t[TURN_SIN]);
      // b = [P x u; u] with u = +-n
      hy_v3_cross(b, P, u);
      b[3] = u[0];
      b[4] = u[1];
      b[5] = u[2];
    } else {
      t[TURN_THETA] = theta_p;
      t[TURN_COS] = cp;
      t[TURN_SIN] = sp;
      // b = [u; 0] with u turned with the parent; the child's joint point slides along it
      const double zj = z[zadr[j]];
      turned(b, u, cp, sp);
      b[3] = 0;
      b[4] = 0;
      b[5] = 0;
      P[0] += zj * b[0];
      P[1] += zj * b[1];
      P[2] += zj * b[2];
    }

    // origin from the child's joint point, then the centre of mass
    const double c = t[TURN_COS], s = t[TURN_SIN];
    double cpt[3], com[3];
    if (kind[j] & HY_MECH_KIND_CPOINT_ON_NORMAL) {
      // its in-plane parts are zero: cpt is its part h along n
      const double* h = rec + HY_PLANE_CPOINT;
      cpt[0] = h[0];
      cpt[1] = h[1];
      cpt[2] = h[2];
    } else {
      turned(cpt, rec + HY_PLANE_CPOINT, c, s);
    }
    turned(com, rec + HY_PLANE_COM, c, s);
    const double r0 = P[0] - cpt[0], r1 = P[1] - cpt[1], r2 = P[2] - cpt[2];
    r[0] = r0;
    r[1] = r1;
    r[2] = r2;
    g[0] = r0 + com[0];
    g[1] = r1 + com[1];
    g[2] = r2 + com[2];
  }

  // markers: x = r + A point
  const int* mrk_body = m->mrk_body;
  for (int k = 0; k < m->sizes.nmrk; k++) {
    const int bk = mrk_body[k];
    const double* point = m->mrk_point + 3 * k;
    double* restrict x = d->mrk_pos + 3 * k;
    if (bk < 0) {
      x[0] = point[0];
      x[1] = point[1];
      x[2] = point[2];
      continue;
    }
    const double* t = turn + TURN_SIZE * bk;
    const double* rb = pos + 3 * bk;
    double a[3];
    turned(a, m->mrk_plane + 9 * k, t[TURN_COS], t[TURN_SIN]);
    x[0] = rb[0] + a[0];
    x[1] = rb[1] + a[1];
    x[2] = rb[2] + a[2];
  }
}

// Every omega lies along n, and so does b_ang: u for a revolute joint, 0 for a prismatic one.
// Then omega_p x u = 0, and d_j = b_dot_j zd_j of the 3-D path, [(P_dot x u + P x (omega_p x u))
// zd; (omega_p x u) zd] with P_dot = s_dot_p + omega_p x P, or [(omega_p x u) zd; 0], comes down
// to [(s_dot_p x b_ang + omega_p x b_lin) zd; 0] for both kinds (with b_lin = P x u,
// (omega_p x P) x u = omega_p x (P x u) when omega_p and u are parallel). The angular
// accelerations at zdd = 0 vanish. The velocity stage on any plane, for the models of
// hy_mech_kinematics_pos_planar.
void hy_mech_kinematics_vel_planar(const hy_model* m, hy_data* d, hy_mech_work* w) {
  const int nb = m->sizes.nbody;
  const int* parent = m->body_parent;
  const int* zadr = m->jnt_zadr;
  const double* zdv = d->zd;
  for (int j = 0; j < nb; j++) {
    const int p = parent[j];
    const double zd = zdv[zadr[j]];
    const double* restrict b = d->jnt_b + 6 * j;
    double* restrict Z = d->body_Z + 6 * j;
    double* restrict dj = d->jnt_d + 6 * j;
    double* restrict Zd0 = w->body_Zd0 + 6 * j;
    // d_j, and Eq. 2. With every omega and every revolute axis along n, d_j = b_dot_j zd_j is
    // [(s_dot_p x b_ang + omega_p x b_lin) zd; 0] for both joint types: for a revolute joint
    // omega_p x u = 0, and (omega_p x P) x u = omega_p x (P x u); for a prismatic one b_ang = 0.
    // A body on ground moves with b_j zd_j alone (the 0 * products of the ground's zero
    // velocity, +-0, are left out), and its d_j is 0.
    double d0 = 0, d1 = 0, d2 = 0;
    if (p >= 0) {
      const double* Zp = d->body_Z + 6 * p;
      const double* Zd0p = w->body_Zd0 + 6 * p;
      d0 = (Zp[1] * b[5] - Zp[2] * b[4] + Zp[4] * b[2] - Zp[5] * b[1]) * zd;
      d1 = (Zp[2] * b[3] - Zp[0] * b[5] + Zp[5] * b[0] - Zp[3] * b[2]) * zd;
      d2 = (Zp[0] * b[4] - Zp[1] * b[3] + Zp[3] * b[1] - Zp[4] * b[0]) * zd;
      for (int k = 0; k < 6; k++) Z[k] = Zp[k] + b[k] * zd;
      Zd0[0] = Zd0p[0] + d0;
      Zd0[1] = Zd0p[1] + d1;
      Zd0[2] = Zd0p[2] + d2;
    } else {
      for (int k = 0; k < 6; k++) Z[k] = b[k] * zd;
      Zd0[0] = 0;
      Zd0[1] = 0;
      Zd0[2] = 0;
    }
    dj[0] = d0;
    dj[1] = d1;
    dj[2] = d2;
    dj[3] = 0;
    dj[4] = 0;
    dj[5] = 0;
    // Eq. 3 with zdd = 0: the angular part vanishes
    Zd0[3] = 0;
    Zd0[4] = 0;
    Zd0[5] = 0;
  }

  // markers: velocity s_dot + omega x x
  const int* mrk_body = m->mrk_body;
  for (int k = 0; k < m->sizes.nmrk; k++) {
    const int bk = mrk_body[k];
    const double* x = d->mrk_pos + 3 * k;
    double* restrict v = d->mrk_vel + 3 * k;
    if (bk < 0) {
      v[0] = 0;
      v[1] = 0;
      v[2] = 0;
      continue;
    }
    const double* Zb = d->body_Z + 6 * bk;
    v[0] = Zb[0] + Zb[4] * x[2] - Zb[5] * x[1];
    v[1] = Zb[1] + Zb[5] * x[0] - Zb[3] * x[2];
    v[2] = Zb[2] + Zb[3] * x[1] - Zb[4] * x[0];
  }
}

//----- the x-y plane ---------------------------------------------------------------------------

// On the x-y plane (w->xy_fast) every z component of a position and of b_lin is a constant
// (h_z of the records: no joint moves anything along z), and so are b_ang = u or 0, the zero
// angular accelerations at zdd = 0, the zero z and in-plane angular parts of Z, d_j and the
// marker velocities, and the ground markers. So are b_lin of a revolute joint on ground (its
// point stays where it is) and the zero d_j and s_ddot0 of a body on ground. They are written
// once per data, by the stage that owns them (xy_constants_pos, xy_constants_vel), and the
// loops below write the other components only. w->xy_pos_for and w->xy_vel_for name the data
// that holds them: the 3-D stages, which write the same arrays, and hy_mech_forget_turns clear
// them, so that anything that may have written over the constants has them rewritten.

static void xy_constants_pos(const hy_model* m, hy_data* d, hy_mech_work* w) {
  const int nb = m->sizes.nbody;
  for (int j = 0; j < nb; j++) {
    const int p = m->body_parent[j];
    const double* rec = m->body_plane + HY_PLANE_SIZE * j;
    const double* u = rec + HY_PLANE_AXIS;
    double* b = d->jnt_b + 6 * j;
    // P and the origin along z: a turn leaves the part h_z of a vector stored as h, q, w (q and
    // w have no z component), and a slide moves by zj * u_z = 0 (xy_fast)
    const double P2 = p >= 0 ? d->body_pos[3 * p + 2] + rec[HY_PLANE_PPOINT + 2]
                             : rec[HY_PLANE_PPOINT + 2];
    const double r2 = P2 - rec[HY_PLANE_CPOINT + 2];
    d->body_pos[3 * j + 2] = r2;
    d->body_com[3 * j + 2] = r2 + rec[HY_PLANE_COM + 2];
    const int rev = m->jnt_type[j] == HY_JOINT_REVOLUTE;
    b[2] = rev ? 0 : u[2];
    b[3] = rev ? u[0] : 0;
    b[4] = rev ? u[1] : 0;
    b[5] = rev ? u[2] : 0;
    if (rev && p < 0) {
      // as body_pos_xy does for a joint with a parent, at P = ppoint
      const double* pp = rec + HY_PLANE_PPOINT;
      b[0] = pp[4] * u[2];
      b[1] = -pp[3] * u[2];
    }
  }
  for (int k = 0; k < m->sizes.nmrk; k++) {
    const int bk = m->mrk_body[k];
    double* x = d->mrk_pos + 3 * k;
    if (bk < 0) {
      hy_v3_copy(x, m->mrk_point + 3 * k);
    } else {
      x[2] = d->body_pos[3 * bk + 2] + m->mrk_plane[9 * k + 2];
    }
  }
  w->xy_pos_for = d;
}

static void xy_constants_vel(const hy_model* m, hy_data* d, hy_mech_work* w) {
  for (int j = 0; j < m->sizes.nbody; j++) {
    double* Z = d->body_Z + 6 * j;
    double* dj = d->jnt_d + 6 * j;
    double* Zd0 = w->body_Zd0 + 6 * j;
    Z[2] = Z[3] = Z[4] = 0;
    dj[2] = dj[3] = dj[4] = dj[5] = 0;
    Zd0[2] = Zd0[3] = Zd0[4] = Zd0[5] = 0;
    if (m->body_parent[j] < 0) dj[0] = dj[1] = Zd0[0] = Zd0[1] = 0;
  }
  for (int k = 0; k < m->sizes.nmrk; k++) {
    double* v = d->mrk_vel + 3 * k;
    if (m->mrk_body[k] < 0) v[0] = v[1] = 0;
    v[2] = 0;
  }
  w->xy_vel_for = d;
}

// The turn and origin of a body, which the x-y stages hand from a parent to its children.
typedef struct xy_frame {
  double theta, c, s;  // turn about n, its cos and sin
  double r0, r1;       // origin (x, y)
} xy_frame;

// The arrays the x-y position stage reads and writes, loaded once per pass.
typedef struct xy_pos_arrays {
  const double* plane;      // m->body_plane
  const double* mrk_plane;  // m->mrk_plane
  const int* kind;          // w->body_kind
  const int* mrk_adr;       // w->mrk_adr
  const int* mrk_on;        // w->mrk_on
  double* turn;             // w->turn
  double* ref;              // w->turn_ref
  double* jb;               // d->jnt_b
  double* pos;              // d->body_pos
  double* com;              // d->body_com
  double* mp;               // d->mrk_pos
} xy_pos_arrays;

static HY_ALWAYS_INLINE xy_pos_arrays pos_arrays(const hy_model* m, hy_data* d,
                                                 hy_mech_work* w) {
  const xy_pos_arrays a = {m->body_plane, m->mrk_plane, w->body_kind, w->mrk_adr, w->mrk_on,
                           w->turn,       w->turn_ref,  d->jnt_b,     d->body_pos, d->body_com,
                           d->mrk_pos};
  return a;
}

// The position stage on the x-y plane for body j, in-plane components only, given its
// coordinate zj and its parent's frame fp (root: on ground, fp unused). Returns body j's frame.
// Always inlined with `root` a constant where it is known (a chain's first body), and `chain`
// a constant. The markers on the body, mrk_on[*q ..], are placed while its turn and origin are
// in registers.
static HY_ALWAYS_INLINE xy_frame body_pos_xy(const xy_pos_arrays* ar, int j, double zj, int root,
                                             int chain, xy_frame fp, int* q) {
  const double* restrict rec = ar->plane + HY_PLANE_SIZE * j;
  const double* pp = rec + HY_PLANE_PPOINT;
  const double* u = rec + HY_PLANE_AXIS;
  const int kj = ar->kind[j];
  double* restrict t = ar->turn + TURN_SIZE * j;
  double* restrict b = ar->jb + 6 * j;
  // joint point on the parent: r_p + A_p ppoint, or ppoint at z = 0 (q) on ground
  double P0, P1, theta_p = 0, cp = 1, sp = 0;
  if (root) {
    P0 = pp[3];
    P1 = pp[4];
  } else {
    theta_p = fp.theta;
    cp = fp.c;
    sp = fp.s;
    P0 = (cp * pp[3] + sp * pp[6]) + fp.r0;
    P1 = (cp * pp[4] + sp * pp[7]) + fp.r1;
  }
  xy_frame f;
  double r0, r1;
  if (kj == HY_MECH_KIND_CPOINT_ON_NORMAL) {
    // revolute, the body's joint point on the normal through its origin: the common case
    f.theta = theta_p + rec[HY_PLANE_TURN] * zj;
    turn_cos_sin(f.theta, ar->ref + 3 * j, &f.c, &f.s);
    // b_lin = P x u with u = (0, 0, u_z): a constant on ground (xy_constants_pos)
    if (!root) {
      b[0] = P1 * u[2];
      b[1] = -P0 * u[2];
    }
    r0 = P0;
    r1 = P1;
  } else {
    if (!(kj & HY_MECH_KIND_SLIDE)) {
      f.theta = theta_p + rec[HY_PLANE_TURN] * zj;
      turn_cos_sin(f.theta, ar->ref + 3 * j, &f.c, &f.s);
      if (!root) {
        b[0] = P1 * u[2];
        b[1] = -P0 * u[2];
      }
    } else {
      f.theta = theta_p;
      f.c = cp;
      f.s = sp;
      const double b0 = cp * u[3] + sp * u[6], b1 = cp * u[4] + sp * u[7];
      b[0] = b0;
      b[1] = b1;
      P0 += zj * b0;
      P1 += zj * b1;
    }
    // origin from the child's joint point (on the normal: P itself)
    r0 = P0;
    r1 = P1;
    if (!(kj & HY_MECH_KIND_CPOINT_ON_NORMAL)) {
      const double* cpt = rec + HY_PLANE_CPOINT;
      r0 = P0 - (f.c * cpt[3] + f.s * cpt[6]);
      r1 = P1 - (f.c * cpt[4] + f.s * cpt[7]);
    }
  }
  const double c = f.c, s = f.s;
  // a chain hands the angle on in registers; a tree's children read it
  if (!chain) t[TURN_THETA] = f.theta;
  t[TURN_COS] = c;
  t[TURN_SIN] = s;
  // the centre of mass
  const double* g = rec + HY_PLANE_COM;
  double* restrict pos = ar->pos + 3 * j;
  double* restrict com = ar->com + 3 * j;
  pos[0] = r0;
  pos[1] = r1;
  com[0] = r0 + (c * g[3] + s * g[6]);
  com[1] = r1 + (c * g[4] + s * g[7]);
  // its markers: x = r + A point (the ground's are constants)
  double* restrict mp = ar->mp;
  for (const int qend = ar->mrk_adr[j + 1]; *q < qend; (*q)++) {
    const int k = ar->mrk_on[*q];
    const double* a = ar->mrk_plane + 9 * k;
    mp[3 * k] = r0 + (c * a[3] + s * a[6]);
    mp[3 * k + 1] = r1 + (c * a[4] + s * a[7]);
  }
  f.r0 = r0;
  f.r1 = r1;
  return f;
}

// The position stage on the x-y plane. On a chain (w->chain) the parent is the body before,
// whose frame is still in registers, and joint j owns coordinate j.
// A sized kernel (HY_SIZED): with nb a constant the pass unrolls, and the addresses are
// constants.
static HY_ALWAYS_INLINE void pos_xy_chain_n(int nb, const hy_model* m, hy_data* d,
                                            hy_mech_work* w) {
  const xy_pos_arrays ar = pos_arrays(m, d, w);
  const double* z = d->z;
  int q = 0;
  xy_frame f = {0, 1, 0, 0, 0};
  f = body_pos_xy(&ar, 0, z[0], 1, 1, f, &q);
HY_MECH_UNROLL_8
  for (int j = 1; j < nb; j++) f = body_pos_xy(&ar, j, z[j], 0, 1, f, &q);
}

void hy_mech_kinematics_pos_xy_chain(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (w->xy_pos_for != d) xy_constants_pos(m, d, w);
  HY_SIZED(m->sizes.nbody, pos_xy_chain_n, m, d, w);
}

void hy_mech_kinematics_pos_xy_tree(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (w->xy_pos_for != d) xy_constants_pos(m, d, w);
  const int nb = m->sizes.nbody;
  const int* parent = m->body_parent;
  const int* zadr = m->jnt_zadr;
  const xy_pos_arrays ar = pos_arrays(m, d, w);
  const double* z = d->z;
  int q = 0;
  for (int j = 0; j < nb; j++) {
    const int p = parent[j];
    const double zj = z[zadr[j]];
    if (p < 0) {
      const xy_frame ground = {0, 1, 0, 0, 0};
      body_pos_xy(&ar, j, zj, 1, 0, ground, &q);
    } else {
      const double* tp = ar.turn + TURN_SIZE * p;
      const double* rp = ar.pos + 3 * p;
      const xy_frame fp = {tp[TURN_THETA], tp[TURN_COS], tp[TURN_SIN], rp[0], rp[1]};
      body_pos_xy(&ar, j, zj, 0, 0, fp, &q);
    }
  }
}

// The in-plane velocity of a body and its s_ddot0, which the velocity stage hands from a parent
// to its children.
typedef struct xy_motion {
  double z0, z1, z5;  // s_dot (x, y), omega along z
  double a0, a1;      // s_ddot0 (x, y)
} xy_motion;

// The velocity stage on the x-y plane for body j, in-plane components only, given its
// coordinate rate zd and its parent's motion mp (root: on ground, mp unused); see body_pos_xy.
static HY_ALWAYS_INLINE xy_motion body_vel_xy(hy_data* d, hy_mech_work* w, int j, double zd,
                                              int root, xy_motion mp, int* q) {
  const double* restrict b = d->jnt_b + 6 * j;
  double* restrict Z = d->body_Z + 6 * j;
  xy_motion f;
  // d_j = [(s_dot_p x b_ang + omega_p x b_lin) zd; 0] as in hy_mech_kinematics_vel_planar, with
  // s_dot_p and b_lin in the plane and omega_p and b_ang along z; a body on ground has the
  // constant d_j = 0 and s_ddot0 = 0 (xy_constants_vel)
  if (root) {
    f.z0 = b[0] * zd;
    f.z1 = b[1] * zd;
    f.z5 = b[5] * zd;
    f.a0 = 0;
    f.a1 = 0;
  } else {
    double* restrict Zd0 = w->body_Zd0 + 6 * j;
    double* restrict dj = d->jnt_d + 6 * j;
    const double d0 = (mp.z1 * b[5] - mp.z5 * b[1]) * zd;
    const double d1 = (mp.z5 * b[0] - mp.z0 * b[5]) * zd;
    f.z0 = mp.z0 + b[0] * zd;
    f.z1 = mp.z1 + b[1] * zd;
    f.z5 = mp.z5 + b[5] * zd;
    f.a0 = mp.a0 + d0;
    f.a1 = mp.a1 + d1;
    Zd0[0] = f.a0;
    Zd0[1] = f.a1;
    dj[0] = d0;
    dj[1] = d1;
  }
  Z[0] = f.z0;
  Z[1] = f.z1;
  Z[5] = f.z5;
  // its markers: s_dot + omega x x (the ground's are at rest)
  const int* mrk_on = w->mrk_on;
  const double* restrict x = d->mrk_pos;
  double* restrict v = d->mrk_vel;
  for (const int qend = w->mrk_adr[j + 1]; *q < qend; (*q)++) {
    const int k = mrk_on[*q];
    v[3 * k] = f.z0 - f.z5 * x[3 * k + 1];
    v[3 * k + 1] = f.z1 + f.z5 * x[3 * k];
  }
  return f;
}

static HY_ALWAYS_INLINE void vel_xy_chain_n(int nb, hy_data* d, hy_mech_work* w) {
  const double* zd = d->zd;
  int q = 0;
  xy_motion f = {0, 0, 0, 0, 0};
  f = body_vel_xy(d, w, 0, zd[0], 1, f, &q);
HY_MECH_UNROLL_8
  for (int j = 1; j < nb; j++) f = body_vel_xy(d, w, j, zd[j], 0, f, &q);
}

void hy_mech_kinematics_vel_xy_chain(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (w->xy_vel_for != d) xy_constants_vel(m, d, w);
  HY_SIZED(m->sizes.nbody, vel_xy_chain_n, d, w);
}

void hy_mech_kinematics_vel_xy_tree(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (w->xy_vel_for != d) xy_constants_vel(m, d, w);
  const int nb = m->sizes.nbody;
  const int* parent = m->body_parent;
  const int* zadr = m->jnt_zadr;
  const double* zdv = d->zd;
  int q = 0;
  for (int j = 0; j < nb; j++) {
    const int p = parent[j];
    const double zd = zdv[zadr[j]];
    if (p < 0) {
      const xy_motion ground = {0, 0, 0, 0, 0};
      body_vel_xy(d, w, j, zd, 1, ground, &q);
    } else {
      const double* Zp = d->body_Z + 6 * p;
      const double* Ap = w->body_Zd0 + 6 * p;
      const xy_motion mp = {Zp[0], Zp[1], Zp[5], Ap[0], Ap[1]};
      body_vel_xy(d, w, j, zd, 0, mp, &q);
    }
  }
}

//----- outputs ---------------------------------------------------------------------------------

// body_rot of every body from the turns of the last position stage. Always inlined with xy a
// constant: on the x-y plane (m->plane_xy, whichever position stage ran) a loop of its own that
// leaves out the zero parts of h, q and w.
static HY_ALWAYS_INLINE void rotations_planar(const hy_model* m, hy_data* d, const hy_mech_work* w,
                                              int xy) {
  for (int j = 0; j < m->sizes.nbody; j++) {
    const double* t = w->turn + TURN_SIZE * j;
    turned_rotation(d->body_rot + 9 * j, m->body_plane + HY_PLANE_SIZE * j + HY_PLANE_ROT,
                    t[TURN_COS], t[TURN_SIN], xy);
  }
}

void hy_mech_outputs(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (!m->planar) return;  // the 3-D position stage writes body_rot itself
  if (m->plane_xy[0]) {
    rotations_planar(m, d, w, 1);
  } else {
    rotations_planar(m, d, w, 0);
  }
}

void hy_mech_planar_rotate(const hy_model* m, const hy_mech_work* w, int body, const double v[3],
                           double r[3]) {
  const double* t = w->turn + TURN_SIZE * body;
  double A[9];
  turned_rotation(A, m->body_plane + HY_PLANE_SIZE * body + HY_PLANE_ROT, t[TURN_COS],
                  t[TURN_SIN], m->plane_xy[0]);
  hy_m3_mulv(r, A, v);
}
