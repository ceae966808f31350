// The Cardan charts of spherical and free joints: three revolute joints in a chain
// (model_joint.c) whose middle angle must stay clear of +-90 deg, where the first and third axes
// align, the angles lose a degree of freedom and the mass matrix turns singular. Between steps a
// chart whose middle angle passed HY_GIMBAL_REANCHOR is re-anchored at the joint's orientation:
// the anchor (hy_data.gimbal_frame, the first joint's jnt_crot at the start) turns with the
// joint and the three angles restart at zero, their rates and accelerations mapped so that the
// relative angular velocity and acceleration stay what they were (docs/mechanics.md,
// "Re-anchored Cardan charts"). The channels show the angles of the chart the model defines.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "mech/mech.h"
#include "model/model.h"

//----- the chart -------------------------------------------------------------------------------

// The chart of gimbal g anchored at F, at the angles a: R, the rotation of its last joint's
// child frame in the frame of its first joint's parent, and U, the three joint axes in that
// parent frame (u_k = U + 3k). A joint turns its child about its child-frame axis, A = A0
// R(c, z) (mech_kinematics.c), so its axis in the parent frame is A0 c.
static void chart_at(const hy_model* m, int g, const double F[9], const double a[3], double R[9],
                     double U[9]) {
  const int* chain = m->gimbal_jnt + 3 * g;
  double T[9], Rk[9], tmp[9];
  hy_m3_copy(T, F);
  for (int k = 0; k < 3; k++) {
    const int j = chain[k];
    if (k > 0) {
      hy_m3_mul(tmp, T, m->jnt_crot + 9 * j);
      hy_m3_copy(T, tmp);
    }
    hy_m3_mulv(U + 3 * k, T, m->jnt_caxis + 3 * j);
    hy_rot_axis_angle(Rk, m->jnt_caxis + 3 * j, a[k]);
    hy_m3_mul(tmp, T, Rk);
    hy_m3_copy(T, tmp);
  }
  hy_m3_copy(R, T);
}

// The relative angular velocity w = sum_k a'_k u_k (parent frame) and the part of its rate the
// turning axes give, sum_k a'_k (sum_{i<k} a'_i u_i) x u_k (each axis is carried by the bodies
// before it): w_dot = sum_k a''_k u_k + that part.
static void chart_velocity(const double U[9], const double ad[3], double w[3], double turn[3]) {
  double c[3];
  hy_v3_set(w, 0, 0, 0);
  hy_v3_set(turn, 0, 0, 0);
  for (int k = 0; k < 3; k++) {
    hy_v3_cross(c, w, U + 3 * k);
    hy_v3_addscl(turn, c, ad[k]);
    hy_v3_addscl(w, U + 3 * k, ad[k]);
  }
}

// x with sum_k x_k u_k = b: the rows of [u0 u1 u2]^-1 are u1 x u2, u2 x u0, u0 x u1 over the
// determinant. The caller keeps the chart away from its lock, where the determinant vanishes.
static void chart_solve(const double U[9], const double b[3], double x[3]) {
  double c[9];
  hy_v3_cross(c, U + 3, U + 6);
  hy_v3_cross(c + 3, U + 6, U);
  hy_v3_cross(c + 6, U, U + 3);
  const double det = hy_v3_dot(U, c);
  for (int k = 0; k < 3; k++) x[k] = hy_v3_dot(c + 3 * k, b) / det;
}

// The chart's rates ad and accelerations add at the angles a for the relative angular velocity
// w and its rate wd (parent frame).
static void chart_rates(const double U[9], const double w[3], const double wd[3], double ad[3],
                        double add[3]) {
  double w_again[3], turn[3], rest[3];
  chart_solve(U, w, ad);
  chart_velocity(U, ad, w_again, turn);
  hy_v3_sub(rest, wd, turn);
  chart_solve(U, rest, add);
}

// The state of chart g in d: its angles, rates and accelerations.
static void chart_state(const hy_model* m, const hy_data* d, int g, double a[3], double ad[3],
                        double add[3]) {
  for (int k = 0; k < 3; k++) {
    const int i = m->jnt_zadr[m->gimbal_jnt[3 * g + k]];
    a[k] = d->z[i];
    ad[k] = d->zd[i];
    add[k] = d->zdd[i];
  }
}

// Turns F into the nearest rotation's Gram-Schmidt neighbour, so that the round-off of the
// products re-anchoring multiplies does not build up over many re-anchorings.
static void orthonormalize(double F[9]) {
  double c0[3] = {F[0], F[3], F[6]}, c1[3] = {F[1], F[4], F[7]}, c2[3];
  hy_v3_normalize(c0);
  hy_v3_addscl(c1, c0, -hy_v3_dot(c0, c1));
  hy_v3_normalize(c1);
  hy_v3_cross(c2, c0, c1);
  for (int r = 0; r < 3; r++) {
    F[3 * r] = c0[r];
    F[3 * r + 1] = c1[r];
    F[3 * r + 2] = c2[r];
  }
}

//----- re-anchoring ----------------------------------------------------------------------------

void hy_mech_gimbal_reset(const hy_model* m, hy_data* d) {
  for (int g = 0; g < m->sizes.ngimbal; g++) {
    hy_m3_copy(d->gimbal_frame + 9 * g, m->jnt_crot + 9 * m->gimbal_jnt[3 * g]);
  }
}

int hy_mech_gimbal_reanchor(const hy_model* m, hy_data* d) {
  static const double zero[3] = {0, 0, 0};
  const double lim = cos(HY_GIMBAL_REANCHOR);
  int n = 0;
  for (int g = 0; g < m->sizes.ngimbal; g++) {
    double a[3], ad[3], add[3];
    chart_state(m, d, g, a, ad, add);
    if (!(fabs(cos(a[1])) < lim)) continue;  // a NaN passes, for the finiteness checks to name
    double* F = d->gimbal_frame + 9 * g;
    double R[9], U[9], w[3], wd[3], turn[3];
    chart_at(m, g, F, a, R, U);
    chart_velocity(U, ad, w, turn);
    for (int k = 0; k < 3; k++) wd[k] = U[k] * add[0] + U[3 + k] * add[1] + U[6 + k] * add[2];
    hy_v3_add(wd, wd, turn);
    // the new anchor puts the joint where it is at zero angles: R = F' K1 K2 with the later
    // joints' reference rotations K (identities for the chains model_joint.c builds)
    const int* chain = m->gimbal_jnt + 3 * g;
    double K[9];
    hy_m3_mul(K, m->jnt_crot + 9 * chain[1], m->jnt_crot + 9 * chain[2]);
    hy_m3_mulT2(F, R, K);
    orthonormalize(F);
    chart_at(m, g, F, zero, R, U);
    chart_rates(U, w, wd, ad, add);
    for (int k = 0; k < 3; k++) {
      const int i = m->jnt_zadr[chain[k]];
      d->z[i] = 0;
      d->zd[i] = ad[k];
      d->zdd[i] = add[k];
    }
    n++;
  }
  d->stats.nreanchor += n;
  return n;
}

//----- the chart the model defines -------------------------------------------------------------

void hy_mech_gimbal_outputs(const hy_model* m, hy_data* d, int fresh) {
  for (int g = 0; g < m->sizes.ngimbal; g++) {
    const int* chain = m->gimbal_jnt + 3 * g;
    const double* F0 = m->jnt_crot + 9 * chain[0];
    const double* F = d->gimbal_frame + 9 * g;
    double* out = d->gimbal_out + 9 * g;
    double a[3], ad[3], add[3];
    chart_state(m, d, g, a, ad, add);
    if (memcmp(F, F0, 9 * sizeof *F) == 0) {
      // never re-anchored: the state's own angles, turns and all
      for (int k = 0; k < 3; k++) {
        out[k] = a[k];
        out[3 + k] = ad[k];
        out[6 + k] = add[k];
      }
      continue;
    }
    double R[9], U[9], w[3], wd[3], turn[3];
    chart_at(m, g, F, a, R, U);
    chart_velocity(U, ad, w, turn);
    for (int k = 0; k < 3; k++) wd[k] = U[k] * add[0] + U[3 + k] * add[1] + U[6 + k] * add[2];
    hy_v3_add(wd, wd, turn);
    // R = F0 T Rz(a0) Ry(a1) Rx(a2) T^T with T = [c2 c1 c0] the axes (child frames) of the
    // chain, a right-handed orthonormal triad (c2 = c1 x c0, hy_model_check_joint_def): the
    // angles of M = T^T F0^T R T = Rz Ry Rx
    double T[9], S[9], M[9];
    for (int r = 0; r < 3; r++) {
      for (int k = 0; k < 3; k++) T[3 * r + k] = m->jnt_caxis[3 * chain[2 - k] + r];
    }
    hy_m3_mulT1(S, F0, R);
    hy_m3_mul(M, S, T);
    hy_m3_mulT1(S, T, M);
    const double a0 = atan2(S[3], S[0]), a1 = atan2(-S[6], hypot(S[0], S[3]));
    const double a2 = atan2(S[7], S[8]);
    // every orientation has two triples, (a0, a1, a2) and (a0 + pi, pi - a1, a2 + pi): the one
    // nearest the last output, each angle on its turn nearest the last, keeps the channels
    // continuous even through the lock of this chart
    double e[3] = {a0, a1, a2};
    if (!fresh) {
      const double cand[2][3] = {{a0, a1, a2}, {a0 + HY_PI, HY_PI - a1, a2 + HY_PI}};
      double best = INFINITY;
      for (int c = 0; c < 2; c++) {
        double x[3], dist = 0;
        for (int k = 0; k < 3; k++) {
          x[k] = out[k] + remainder(cand[c][k] - out[k], 2 * HY_PI);
          dist += fabs(x[k] - out[k]);
        }
        if (dist < best) {
          best = dist;
          hy_v3_copy(e, x);
        }
      }
    }
    hy_v3_copy(out, e);
    chart_at(m, g, F0, e, R, U);
    chart_rates(U, w, wd, out + 3, out + 6);
  }
}

//----- the lock --------------------------------------------------------------------------------

hy_status hy_mech_gimbal_check(const hy_model* m, hy_data* d) {
  const double lim = sin(HY_GIMBAL_MARGIN);
  for (int g = 0; g < m->sizes.ngimbal; g++) {
    const int j = m->gimbal_jnt[3 * g + 1];
    const double beta = d->z[m->jnt_zadr[j]];
    // |cos beta| < sin(margin): within the margin of +-90 deg (a NaN passes, for the
    // finiteness checks to name)
    if (!(fabs(cos(beta)) < lim)) continue;
    char name[HY_NAME_MAX];
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "%s joint '%s' reached the gimbal lock of its Cardan angles at t = %.9g s: "
                   "its middle angle '%s' is %.6g deg, within %g deg of +-90 deg, where its first "
                   "and third axes align, within one step from a re-anchored chart "
                   "(docs/mechanics.md, \"Re-anchored Cardan charts\"); take a smaller dt",
                   hy_joint_type_name((hy_joint_type)m->jnt_kind[j]),
                   hy_model_joint_def_name(m, j, name), d->time,
                   m->jnt_name + (size_t)j * HY_NAME_MAX, beta * 180.0 / HY_PI,
                   HY_GIMBAL_MARGIN * 180.0 / HY_PI);
  }
  return HY_OK;
}
