// Semi-recursive kinematics: seed 000_c866e3283107e8a4.txt Eqs. 1-6 (Eq. 7, the centre-of-mass
// acceleration, is formed with the dynamics). This file holds the work arrays and their binding,
// the 3-D path, which serves every model and is the reference the planar paths are tested
// against, and the public stages, which hand planar models over to the planar paths
// (mech_kinematics_planar.c).
//
// Z_j = [s_dot_j; omega_j] is the velocity of the body point that coincides with the inertial
// origin, so velocities of a child add to its parent's by Z_j = Z_parent + b_j zd_j (Eq. 2) and
// accelerations by Zd_j = Zd_parent + b_j zdd_j + d_j (Eq. 3).
#include <float.h>

#include "core/core.h"
#include "mech/mech_impl.h"

static size_t applied_items(const hy_model* m) { return (size_t)hy_mech_applied_count(m); }

size_t hy_mech_work_size(const hy_model* m, int with_mfac) {
  const size_t nb = (size_t)m->sizes.nbody, nz = (size_t)m->sizes.nz;
  // a double for each int too: body_kind (nb), app_adr (nb + 1), app_item and app_mrk, mrk_adr
  // (nb + 1) and mrk_on (nmrk)
  return nb * (2 * HY_MECH_INERTIA_SIZE + 6 + 6 + 6 + 3 + 3 + 1 + 1 + HY_MECH_TURN_SIZE +
               HY_MECH_PLANAR_RECORD) +
         (with_mfac ? nz * nz : 0) + 3 * (size_t)m->sizes.nload + nb + 1 + 2 * applied_items(m) +
         nb + 1 + (size_t)m->sizes.nmrk;
}

// app_adr, app_item and app_mrk: the applied items sorted by body (a counting sort, which keeps
// each body's items in the order the 3-D path applies them, and so the sums of its loads).
static void bind_applied(const hy_model* m, hy_mech_work* w) {
  const int nb = m->sizes.nbody, nload = m->sizes.nload, nitem = (int)applied_items(m);
  for (int j = 0; j <= nb; j++) w->app_adr[j] = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int item = 0; item < nitem; item++) {
      int mk;
      if (item < nload) {
        mk = m->load_mrk[item];
      } else {
        const int k = (item - nload) / 2;
        mk = (item - nload) % 2 == 0 ? m->frc_mrk_b[k] : m->frc_mrk_a[k];
      }
      const int body = m->mrk_body[mk];
      if (body < 0) continue;
      if (pass == 0) {
        w->app_adr[body + 1]++;
      } else {
        const int q = w->app_adr[body]++;
        w->app_item[q] = item;
        w->app_mrk[q] = mk;
      }
    }
    // pass 0: counts into starts; pass 1 advanced each start to the next body's
    if (pass == 0) {
      for (int j = 0; j < nb; j++) w->app_adr[j + 1] += w->app_adr[j];
    } else {
      for (int j = nb; j > 0; j--) w->app_adr[j] = w->app_adr[j - 1];
      w->app_adr[0] = 0;
    }
  }
}

// mrk_adr and mrk_on: the markers on bodies sorted by body (a counting sort, as bind_applied).
static void bind_markers(const hy_model* m, hy_mech_work* w) {
  const int nb = m->sizes.nbody;
  for (int j = 0; j <= nb; j++) w->mrk_adr[j] = 0;
  for (int k = 0; k < m->sizes.nmrk; k++) {
    if (m->mrk_body[k] >= 0) w->mrk_adr[m->mrk_body[k] + 1]++;
  }
  for (int j = 0; j < nb; j++) w->mrk_adr[j + 1] += w->mrk_adr[j];
  for (int k = 0; k < m->sizes.nmrk; k++) {
    if (m->mrk_body[k] >= 0) w->mrk_on[w->mrk_adr[m->mrk_body[k]]++] = k;
  }
  // each start advanced to the next body's
  for (int j = nb; j > 0; j--) w->mrk_adr[j] = w->mrk_adr[j - 1];
  w->mrk_adr[0] = 0;
}

void hy_mech_work_bind(const hy_model* m, hy_mech_work* w, double* buf, int with_mfac) {
  const size_t nb = (size_t)m->sizes.nbody, nz = (size_t)m->sizes.nz;
  w->body_M = buf;
  buf += HY_MECH_INERTIA_SIZE * nb;
  w->body_Q = buf;
  buf += 6 * nb;
  w->body_Zd0 = buf;
  buf += 6 * nb;
  w->comp_M = buf;
  buf += HY_MECH_INERTIA_SIZE * nb;
  w->comp_Q = buf;
  buf += 6 * nb;
  w->turn = buf;
  buf += HY_MECH_TURN_SIZE * nb;
  w->plane_rec = buf;
  buf += HY_MECH_PLANAR_RECORD * nb;
  w->Mfac = with_mfac ? buf : NULL;
  buf += with_mfac ? nz * nz : 0;
  w->jnt_P = buf;
  buf += 3 * nb;
  w->turn_ref = buf;
  buf += 3 * nb;
  w->body_Jn = buf;
  buf += nb;
  w->body_kind = (int*)buf;
  buf += nb;
  w->app_adr = (int*)buf;
  buf += nb + 1;
  w->app_item = (int*)buf;
  buf += applied_items(m);
  w->app_mrk = (int*)buf;
  buf += applied_items(m);
  w->mrk_adr = (int*)buf;
  buf += nb + 1;
  w->mrk_on = (int*)buf;
  buf += m->sizes.nmrk;
  w->load_val = buf;
  bind_applied(m, w);
  bind_markers(m, w);
  hy_mech_forget_turns(m, w);
  for (int j = 0; j < m->sizes.nbody; j++) {
    w->body_Jn[j] = m->planar ? hy_mech_inertia_about_normal(m, j) : NAN;
    w->body_kind[j] = 0;
    if (!m->planar) continue;
    // on the normal to round-off: leaving out in-plane parts that small moves the body by less
    // than the round-off of its position
    const double* cpt = m->body_plane + HY_PLANE_SIZE * j + HY_PLANE_CPOINT;
    const double tol = 4 * DBL_EPSILON * (fabs(cpt[0]) + fabs(cpt[1]) + fabs(cpt[2]));
    int on_normal = 1;
    for (int i = 3; i < 9; i++) on_normal = on_normal && fabs(cpt[i]) <= tol;
    if (on_normal) w->body_kind[j] |= HY_MECH_KIND_CPOINT_ON_NORMAL;
    if (m->jnt_type[j] != HY_JOINT_REVOLUTE) w->body_kind[j] |= HY_MECH_KIND_SLIDE;
  }
  w->chain = 1;
  for (int j = 0; j < m->sizes.nbody; j++) {
    if (m->body_parent[j] != j - 1 || m->jnt_zadr[j] != j) w->chain = 0;
  }
  if (m->sizes.nz != m->sizes.nbody) w->chain = 0;
  // the x-y paths take every z component of a position for a constant: no slide along z (a
  // prismatic axis off the plane by round-off takes the tilted-plane path, which serves any
  // plane)
  w->xy_fast = m->planar && m->plane_xy[0];
  for (int j = 0; j < m->sizes.nbody && w->xy_fast; j++) {
    if (m->jnt_type[j] != HY_JOINT_REVOLUTE &&
        m->body_plane[HY_PLANE_SIZE * j + HY_PLANE_AXIS + 2] != 0) {
      w->xy_fast = 0;
    }
  }
  w->xy_chain = w->xy_fast && w->chain;
}

//----- the 3-D path ----------------------------------------------------------------------------

void hy_mech_kinematics_pos_general(const hy_model* m, hy_data* d, hy_mech_work* w) {
  const int nb = m->sizes.nbody;
  w->xy_pos_for = NULL;  // writes over the constants of the x-y path
  static const double zero3[3] = {0, 0, 0};
  static const double eye3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

  for (int j = 0; j < nb; j++) {
    const int p = m->body_parent[j];
    const double* Ap = p < 0 ? eye3 : d->body_rot + 9 * p;
    const double* rp = p < 0 ? zero3 : d->body_pos + 3 * p;
    const double z = d->z[m->jnt_zadr[j]];
    double* A = d->body_rot + 9 * j;
    double* r = d->body_pos + 3 * j;
    double* b = d->jnt_b + 6 * j;
    double* P = w->jnt_P + 3 * j;

    // joint axis u and joint point P on the parent, inertial frame
    const int shape = m->jnt_shape[j];
    double u[3], tmp[3], A0buf[9];
    hy_m3_mulv(tmp, Ap, m->jnt_ppoint + 3 * j);
    hy_v3_add(P, rp, tmp);
    const double* A0 = Ap;
    const int chart = m->jnt_gimbal[j];
    if (chart >= 0) {
      // a Cardan chart's first angle turns from the chart's anchor, which re-anchoring moves
      // (mech_gimbal.c): the axis follows it
      hy_m3_mul(A0buf, Ap, d->gimbal_frame + 9 * chart);
      A0 = A0buf;
      hy_m3_mulv(u, A0, m->jnt_caxis + 3 * j);
    } else {
      hy_m3_mulv(u, Ap, m->jnt_paxis + 3 * j);
      if (!(shape & HY_JNT_CROT_IDENTITY)) {
        hy_m3_mul(A0buf, Ap, m->jnt_crot + 9 * j);
        A0 = A0buf;
      }
    }

    double Pc[3];  // where the child's joint point sits
    if (m->jnt_type[j] == HY_JOINT_REVOLUTE) {
      // A = A0 R(axis, z); about a coordinate axis only two columns of A0 mix
      const int a = (shape & HY_JNT_AXIS_X)   ? 0
                    : (shape & HY_JNT_AXIS_Y) ? 1
                    : (shape & HY_JNT_AXIS_Z) ? 2
                                              : -1;
      if (a >= 0) {
        const int c1 = (a + 1) % 3, c2 = (a + 2) % 3;
        const double cz = cos(z), sz = sin(z);
        for (int row = 0; row < 3; row++) {
          const double x1 = A0[3 * row + c1], x2 = A0[3 * row + c2];
          A[3 * row + a] = A0[3 * row + a];
          A[3 * row + c1] = cz * x1 + sz * x2;
          A[3 * row + c2] = cz * x2 - sz * x1;
        }
      } else {
        double R[9];
        hy_rot_axis_angle(R, m->jnt_caxis + 3 * j, z);
        hy_m3_mul(A, A0, R);
      }
      hy_v3_copy(Pc, P);
      // b = [P x u; u]: a rotation zd about the axis through P moves the origin point with
      // zd * (P x u)
      hy_v3_cross(b, P, u);
      hy_v3_copy(b + 3, u);
    } else {
      hy_m3_copy(A, A0);
      hy_v3_copy(Pc, P);
      hy_v3_addscl(Pc, u, z);
      // b = [u; 0]: a slide moves every point alike
      hy_v3_copy(b, u);
      hy_v3_set(b + 3, 0, 0, 0);
    }
    // body origin from the child's joint point
    hy_m3_mulv(tmp, A, m->jnt_cpoint + 3 * j);
    hy_v3_sub(r, Pc, tmp);
    hy_m3_mulv(tmp, A, m->body_com + 3 * j);
    hy_v3_add(d->body_com + 3 * j, r, tmp);
  }

  // markers: x = r + A*point
  for (int k = 0; k < m->sizes.nmrk; k++) {
    const int bk = m->mrk_body[k];
    double* x = d->mrk_pos + 3 * k;
    if (bk < 0) {
      hy_v3_copy(x, m->mrk_point + 3 * k);
      continue;
    }
    double tmp[3];
    hy_m3_mulv(tmp, d->body_rot + 9 * bk, m->mrk_point + 3 * k);
    hy_v3_add(x, d->body_pos + 3 * bk, tmp);
  }
}

void hy_mech_kinematics_vel_general(const hy_model* m, hy_data* d, hy_mech_work* w) {
  const int nb = m->sizes.nbody;
  w->xy_vel_for = NULL;
  static const double zero6[6] = {0, 0, 0, 0, 0, 0};

  for (int j = 0; j < nb; j++) {
    const int p = m->body_parent[j];
    const double* Zp = p < 0 ? zero6 : d->body_Z + 6 * p;
    const double* Zd0p = p < 0 ? zero6 : w->body_Zd0 + 6 * p;
    const double zd = d->zd[m->jnt_zadr[j]];
    const double* b = d->jnt_b + 6 * j;
    const double* P = w->jnt_P + 3 * j;
    double* dj = d->jnt_d + 6 * j;

    // velocity of the parent's material point at P, and the rate of the axis carried by it
    const double* wp = Zp + 3;
    double Pdot[3], wxu[3], tmp[3];
    hy_v3_cross(tmp, wp, P);
    hy_v3_add(Pdot, Zp, tmp);
    if (m->jnt_type[j] == HY_JOINT_REVOLUTE) {
      // d = b_dot zd = [(P_dot x u + P x (w_p x u)) zd; (w_p x u) zd]
      const double* u = b + 3;
      hy_v3_cross(wxu, wp, u);
      double t1[3], t2[3];
      hy_v3_cross(t1, Pdot, u);
      hy_v3_cross(t2, P, wxu);
      hy_v3_add(dj, t1, t2);
      hy_v3_scale(dj, dj, zd);
      hy_v3_scale(dj + 3, wxu, zd);
    } else {
      // d = [(w_p x u) zd; 0]
      hy_v3_cross(wxu, wp, b);
      hy_v3_scale(dj, wxu, zd);
      hy_v3_set(dj + 3, 0, 0, 0);
    }

    // Eq. 2, and Eq. 3 with zdd = 0
    double* Z = d->body_Z + 6 * j;
    for (int k = 0; k < 6; k++) Z[k] = Zp[k] + b[k] * zd;
    double* Zd0 = w->body_Zd0 + 6 * j;
    for (int k = 0; k < 6; k++) Zd0[k] = Zd0p[k] + dj[k];
  }

  // markers: velocity s_dot + omega x x
  for (int k = 0; k < m->sizes.nmrk; k++) {
    const int bk = m->mrk_body[k];
    double* v = d->mrk_vel + 3 * k;
    if (bk < 0) {
      hy_v3_set(v, 0, 0, 0);
      continue;
    }
    double tmp[3];
    const double* Z = d->body_Z + 6 * bk;
    hy_v3_cross(tmp, Z + 3, d->mrk_pos + 3 * k);
    hy_v3_add(v, Z, tmp);
  }
}

//----- the stages ------------------------------------------------------------------------------

// The x-y plane's chains first, the stages' most common path (hy_mech_work.xy_chain), then its
// trees; other planes take the tilted-plane path, which serves any plane.
void hy_mech_kinematics_pos(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (w->xy_chain) {
    hy_mech_kinematics_pos_xy_chain(m, d, w);
  } else if (w->xy_fast) {
    hy_mech_kinematics_pos_xy_tree(m, d, w);
  } else if (m->planar) {
    hy_mech_kinematics_pos_planar(m, d, w);
  } else {
    hy_mech_kinematics_pos_general(m, d, w);
  }
}

void hy_mech_kinematics_vel(const hy_model* m, hy_data* d, hy_mech_work* w) {
  if (w->xy_chain) {
    hy_mech_kinematics_vel_xy_chain(m, d, w);
  } else if (w->xy_fast) {
    hy_mech_kinematics_vel_xy_tree(m, d, w);
  } else if (m->planar) {
    hy_mech_kinematics_vel_planar(m, d, w);
  } else {
    hy_mech_kinematics_vel_general(m, d, w);
  }
}

void hy_mech_kinematics(const hy_model* m, hy_data* d, hy_mech_work* w) {
  hy_mech_kinematics_pos(m, d, w);
  hy_mech_outputs(m, d, w);
  hy_mech_kinematics_vel(m, d, w);
}
