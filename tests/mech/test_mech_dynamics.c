// Open-tree dynamics against independent truths: the mass matrix against the kinetic energy
// computed from finite differences of positions, Q' against Lagrange's equations, and the
// accelerations of a 3-D double pendulum against Kane's equations written out in closed form.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"
#include "mech/mech.h"
#include "planar_tree.h"
#include "sim/sim.h"

//----- random trees --------------------------------------------------------------------------


// A random 3-D tree: each body hangs from a random earlier body (so the tree branches), joints
// alternate irregularly between revolute and prismatic, inertias are full tensors, and a force
// and a torque act at two markers.
static hy_model* random_tree(unsigned seed, int nbody) {
  unsigned st = seed;
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_option opt = hy_option_default();
  hy_v3_set(opt.gravity, 0.3, -9.81, 1.1);
  hy_spec_set_option(s, &opt);
  hy_spec_set_name(s, "random-tree", NULL);
  for (int i = 0; i < nbody; i++) {
    hy_body_def b = hy_body_def_default();
    snprintf(b.name, sizeof b.name, "b%d", i);
    b.mass = random_uniform(&st, 0.5, 5.0);
    hy_v3_set(b.com, random_uniform(&st, -0.5, 0.5), random_uniform(&st, -0.5, 0.5), random_uniform(&st, -0.5, 0.5));
    random_box_inertia(&st, b.mass, b.inertia);
    ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);

    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "j%d", i);
    snprintf(j.child, sizeof j.child, "b%d", i);
    int parent = i == 0 ? -1 : (int)random_uniform(&st, -1, (double)i);  // may be ground too
    if (parent >= i) parent = i - 1;
    if (parent < 0) {
      strcpy(j.parent, "ground");
    } else {
      snprintf(j.parent, sizeof j.parent, "b%d", parent);
    }
    j.type = (i % 3 == 1) ? HY_JOINT_PRISMATIC : HY_JOINT_REVOLUTE;
    hy_v3_set(j.parent_point, random_uniform(&st, -1, 1), random_uniform(&st, -1, 1), random_uniform(&st, -1, 1));
    hy_v3_set(j.child_point, random_uniform(&st, -1, 1), random_uniform(&st, -1, 1), random_uniform(&st, -1, 1));
    random_unit(&st, j.axis);
    random_unit(&st, j.child_axis);
    ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  }
  hy_marker_def mk = hy_marker_def_default();
  strcpy(mk.name, "mf");
  snprintf(mk.body, sizeof mk.body, "b%d", nbody - 1);
  hy_v3_set(mk.point, 0.3, -0.2, 0.7);
  hy_spec_add_marker(s, &mk);
  strcpy(mk.name, "mt");
  snprintf(mk.body, sizeof mk.body, "b%d", nbody / 2);
  hy_spec_add_marker(s, &mk);
  hy_load_def ld = hy_load_def_default();
  strcpy(ld.name, "f");
  strcpy(ld.marker, "mf");
  hy_v3_set(ld.vector, 3.0, -7.0, 2.0);
  hy_spec_add_load(s, &ld);
  strcpy(ld.name, "t");
  strcpy(ld.marker, "mt");
  ld.type = HY_LOAD_TORQUE;
  hy_v3_set(ld.vector, -1.5, 0.5, 4.0);
  hy_spec_add_load(s, &ld);

  hy_model* m = NULL;
  hy_error err;
  hy_status stc = hy_model_compile(s, &m, &err);
  ck_assert_msg(stc == HY_OK, "compile: %s", err.msg);
  hy_spec_free(s);
  return m;
}

static void random_state(unsigned seed, const hy_model* m, hy_data* d) {
  unsigned st = seed;
  for (int i = 0; i < m->sizes.nz; i++) {
    d->z[i] = random_uniform(&st, -1.5, 1.5);
    d->zd[i] = random_uniform(&st, -2, 2);
  }
  d->time = 0.37;
}

//----- independent kinetic energy --------------------------------------------------------------

// Positions only (centres of mass, rotations, markers) at coordinates z.
static void positions_at(const hy_model* m, hy_data* d, const double* z) {
  hy_work* w = d->work_;
  memcpy(d->z, z, sizeof(double) * (size_t)m->sizes.nz);
  hy_mech_kinematics(m, d, &w->mech);
}

// Velocities of every centre of mass and every angular velocity along the direction v, from
// central differences of positions with Richardson extrapolation (error O(h^4)).
static void fd_velocities(const hy_model* m, hy_data* d, const double* z, const double* v,
                          double* gdot, double* omega, double* mdot) {
  const int nz = m->sizes.nz, nb = m->sizes.nbody, nm = m->sizes.nmrk;
  double zp[64], A0[64 * 9];
  double gd[2][64 * 3], Ad[2][64 * 9], xd[2][16 * 3];
  positions_at(m, d, z);
  memcpy(A0, d->body_rot, sizeof(double) * 9 * (size_t)nb);
  const double hs[2] = {1e-3, 5e-4};
  for (int r = 0; r < 2; r++) {
    double gp[64 * 3], Ap[64 * 9], xp[16 * 3];
    for (int i = 0; i < nz; i++) zp[i] = z[i] + hs[r] * v[i];
    positions_at(m, d, zp);
    memcpy(gp, d->body_com, sizeof(double) * 3 * (size_t)nb);
    memcpy(Ap, d->body_rot, sizeof(double) * 9 * (size_t)nb);
    memcpy(xp, d->mrk_pos, sizeof(double) * 3 * (size_t)nm);
    for (int i = 0; i < nz; i++) zp[i] = z[i] - hs[r] * v[i];
    positions_at(m, d, zp);
    for (int k = 0; k < 3 * nb; k++) gd[r][k] = (gp[k] - d->body_com[k]) / (2 * hs[r]);
    for (int k = 0; k < 9 * nb; k++) Ad[r][k] = (Ap[k] - d->body_rot[k]) / (2 * hs[r]);
    for (int k = 0; k < 3 * nm; k++) xd[r][k] = (xp[k] - d->mrk_pos[k]) / (2 * hs[r]);
  }
  for (int k = 0; k < 3 * nb; k++) gdot[k] = (4 * gd[1][k] - gd[0][k]) / 3;
  for (int k = 0; k < 3 * nm; k++) mdot[k] = (4 * xd[1][k] - xd[0][k]) / 3;
  for (int j = 0; j < nb; j++) {
    double Adot[9], W[9];
    for (int k = 0; k < 9; k++) Adot[k] = (4 * Ad[1][9 * j + k] - Ad[0][9 * j + k]) / 3;
    // omega~ = A_dot A^T
    hy_m3_mulT2(W, Adot, A0 + 9 * j);
    hy_v3_set(omega + 3 * j, 0.5 * (W[7] - W[5]), 0.5 * (W[2] - W[6]), 0.5 * (W[3] - W[1]));
  }
  positions_at(m, d, z);
}

static double kinetic_fd(const hy_model* m, hy_data* d, const double* z, const double* v) {
  double gdot[64 * 3], omega[64 * 3], mdot[16 * 3];
  fd_velocities(m, d, z, v, gdot, omega, mdot);
  positions_at(m, d, z);
  double T = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    double wb[3], Jwb[3];
    hy_m3_mulTv(wb, d->body_rot + 9 * j, omega + 3 * j);
    hy_m3_mulv(Jwb, m->body_inertia + 9 * j, wb);
    T += 0.5 * (m->body_mass[j] * hy_v3_dot(gdot + 3 * j, gdot + 3 * j) + hy_v3_dot(wb, Jwb));
  }
  return T;
}

static double max_abs(const double* a, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) r = fmax(r, fabs(a[i]));
  return r;
}

// M'_ij = d2T/dzd_i dzd_j, by polarization of the finite-difference kinetic energy.
START_TEST(mass_matrix_is_hessian_of_kinetic_energy) {
  for (unsigned seed = 1; seed <= 3; seed++) {
    hy_model* m = random_tree(seed, 14);
    hy_data* d;
    ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
    const int nz = m->sizes.nz;
    random_state(seed * 7, m, d);
    ck_assert_int_eq(hy_forward(m, d), HY_OK);
    double M[64 * 64], z[64];
    memcpy(M, d->M, sizeof(double) * (size_t)(nz * nz));
    memcpy(z, d->z, sizeof(double) * (size_t)nz);
    ck_assert(max_abs(M, nz * nz) > 0);
    double scale = max_abs(M, nz * nz), worst = 0;
    for (int i = 0; i < nz; i++) {
      for (int j = i; j < nz; j++) {
        double e[64] = {0};
        e[i] += 1;
        e[j] += 1;
        double Tij = kinetic_fd(m, d, z, e);
        double ei[64] = {0}, ej[64] = {0};
        ei[i] = 1;
        ej[j] = 1;
        double Ti = kinetic_fd(m, d, z, ei), Tj = kinetic_fd(m, d, z, ej);
        double Mij = i == j ? 2 * Ti : Tij - Ti - Tj;
        worst = fmax(worst, fabs(Mij - M[i * nz + j]) / scale);
      }
    }
    ck_assert_msg(worst < 1e-8, "seed %u: max |M' - d2T/dzd2| / max|M'| = %.3g", seed, worst);
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

// Potential energy of gravity at coordinates z.
static double potential(const hy_model* m, hy_data* d, const double* z) {
  positions_at(m, d, z);
  double V = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    V -= m->body_mass[j] * hy_v3_dot(m->opt.gravity, d->body_com + 3 * j);
  }
  return V;
}

// Q' = Q_gen - M_dot zd + dT/dz (Lagrange's equations with zdd moved to the left), where the
// generalized applied forces come from virtual work with finite-difference Jacobians.
START_TEST(generalized_forces_match_lagrange) {
  for (unsigned seed = 4; seed <= 6; seed++) {
    hy_model* m = random_tree(seed, 13);
    hy_data* d;
    ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
    hy_work* w = d->work_;
    const int nz = m->sizes.nz;
    random_state(seed * 11, m, d);
    ck_assert_int_eq(hy_forward(m, d), HY_OK);
    double Q[64], z[64], zd[64];
    memcpy(Q, d->Q, sizeof(double) * (size_t)nz);
    memcpy(z, d->z, sizeof(double) * (size_t)nz);
    memcpy(zd, d->zd, sizeof(double) * (size_t)nz);
    const double t = d->time;

    // M(z) of the model (verified above) along finite differences in z
    double Mp[64 * 64], Mm[64 * 64];
    double zp[64];
    const double h = 1e-5;
    double Mdot_zd[64] = {0}, dTdz[64] = {0}, Qgen[64] = {0};
    for (int i = 0; i < nz; i++) zp[i] = z[i] + h * zd[i];
    memcpy(d->z, zp, sizeof zp);
    hy_forward(m, d);
    memcpy(Mp, d->M, sizeof(double) * (size_t)(nz * nz));
    for (int i = 0; i < nz; i++) zp[i] = z[i] - h * zd[i];
    memcpy(d->z, zp, sizeof zp);
    hy_forward(m, d);
    memcpy(Mm, d->M, sizeof(double) * (size_t)(nz * nz));
    for (int i = 0; i < nz; i++) {
      for (int j = 0; j < nz; j++) Mdot_zd[i] += (Mp[i * nz + j] - Mm[i * nz + j]) / (2 * h) * zd[j];
    }
    for (int k = 0; k < nz; k++) {
      memcpy(zp, z, sizeof zp);
      zp[k] = z[k] + h;
      memcpy(d->z, zp, sizeof zp);
      hy_forward(m, d);
      memcpy(Mp, d->M, sizeof(double) * (size_t)(nz * nz));
      zp[k] = z[k] - h;
      memcpy(d->z, zp, sizeof zp);
      hy_forward(m, d);
      memcpy(Mm, d->M, sizeof(double) * (size_t)(nz * nz));
      for (int i = 0; i < nz; i++) {
        for (int j = 0; j < nz; j++) {
          dTdz[k] += 0.5 * zd[i] * (Mp[i * nz + j] - Mm[i * nz + j]) / (2 * h) * zd[j];
        }
      }
      // gravity: -dV/dz
      zp[k] = z[k] + h;
      double Vp = potential(m, d, zp);
      zp[k] = z[k] - h;
      double Vm = potential(m, d, zp);
      Qgen[k] = -(Vp - Vm) / (2 * h);
      // applied loads: f . dx/dz_k + tau . domega/dzd_k
      double e[64] = {0};
      e[k] = 1;
      double gdot[64 * 3], omega[64 * 3], mdot[16 * 3];
      fd_velocities(m, d, z, e, gdot, omega, mdot);
      for (int l = 0; l < m->sizes.nload; l++) {
        const double* v = w->mech.load_val + 3 * l;
        const int mk = m->load_mrk[l];
        if (m->load_type[l] == HY_LOAD_FORCE) {
          Qgen[k] += hy_v3_dot(v, mdot + 3 * mk);
        } else {
          Qgen[k] += hy_v3_dot(v, omega + 3 * m->mrk_body[mk]);
        }
      }
    }
    double ref[64];
    for (int i = 0; i < nz; i++) ref[i] = Qgen[i] - Mdot_zd[i] + dTdz[i];
    double scale = max_abs(ref, nz), worst = 0;
    ck_assert(scale > 1);
    for (int i = 0; i < nz; i++) worst = fmax(worst, fabs(ref[i] - Q[i]) / scale);
    ck_assert_msg(worst < 1e-8, "seed %u: max |Q' - Q_lagrange| / max|Q| = %.3g", seed, worst);
    ck_assert_double_eq(d->time, t);
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

//----- 3-D double pendulum in closed form ------------------------------------------------------

// Body 1 turns about the vertical-plane normal z at the origin; body 2 turns about body 1's own
// long axis x at its tip, so it swings out of body 1's plane. Kane's equations with the partial
// velocities written by hand give the accelerations.
START_TEST(double_pendulum_matches_kane) {
  const double L1 = 1.2, m1 = 2.0, m2 = 1.5;
  const double c1[3] = {0.6, 0.05, 0.0}, c2[3] = {0.1, -0.45, 0.2};
  const double J1b[9] = {0.02, 0.001, 0, 0.001, 0.25, 0.002, 0, 0.002, 0.26};
  const double J2b[9] = {0.11, 0.003, -0.002, 0.003, 0.015, 0.001, -0.002, 0.001, 0.1};
  const double grav[3] = {0, -9.81, 0};

  hy_spec* s;
  hy_spec_create(&s);
  hy_option opt = hy_option_default();
  hy_v3_copy(opt.gravity, grav);
  hy_spec_set_option(s, &opt);
  hy_body_def b = hy_body_def_default();
  strcpy(b.name, "one");
  b.mass = m1;
  hy_v3_copy(b.com, c1);
  memcpy(b.inertia, J1b, sizeof J1b);
  hy_spec_add_body(s, &b);
  strcpy(b.name, "two");
  b.mass = m2;
  hy_v3_copy(b.com, c2);
  memcpy(b.inertia, J2b, sizeof J2b);
  hy_spec_add_body(s, &b);
  hy_joint_def j = hy_joint_def_default();
  strcpy(j.name, "j1");
  strcpy(j.child, "one");
  // the hinge away from the origin, so that the body point at the origin moves (s_dot != 0)
  hy_v3_set(j.parent_point, 0.3, 0.2, 0.1);
  hy_spec_add_joint(s, &j);
  strcpy(j.name, "j2");
  strcpy(j.parent, "one");
  strcpy(j.child, "two");
  hy_v3_set(j.parent_point, L1, 0, 0);
  hy_v3_set(j.axis, 1, 0, 0);
  hy_v3_set(j.child_axis, 1, 0, 0);
  hy_spec_add_joint(s, &j);
  hy_model* m;
  ck_assert_int_eq(hy_model_compile(s, &m, NULL), HY_OK);
  hy_spec_free(s);
  hy_data* d;
  ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);

  const double states[3][4] = {{0.3, -0.7, 1.1, 2.3}, {2.0, 1.2, -3.0, 0.4}, {-1.0, 2.8, 0.5, -4.0}};
  for (int c = 0; c < 3; c++) {
    const double th1 = states[c][0], th2 = states[c][1], w1 = states[c][2], w2 = states[c][3];
    d->z[0] = th1;
    d->z[1] = th2;
    d->zd[0] = w1;
    d->zd[1] = w2;
    ck_assert_int_eq(hy_forward(m, d), HY_OK);

    // closed-form kinematics
    const double k[3] = {0, 0, 1};
    double A1[9], Rx[9], A2[9], J1[9], J2[9], tmp[9];
    const double ex[3] = {1, 0, 0};
    hy_rot_axis_angle(A1, k, th1);
    hy_rot_axis_angle(Rx, ex, th2);
    hy_m3_mul(A2, A1, Rx);
    hy_m3_mul(tmp, A1, J1b);
    hy_m3_mulT2(J1, tmp, A1);
    hy_m3_mul(tmp, A2, J2b);
    hy_m3_mulT2(J2, tmp, A2);
    double e[3], P[3], g1[3], r[3], g2[3];
    hy_m3_mulv(e, A1, ex);
    const double O1[3] = {0.3, 0.2, 0.1};
    hy_v3_scale(P, e, L1);
    hy_v3_add(P, P, O1);
    hy_m3_mulv(g1, A1, c1);
    hy_v3_add(g1, g1, O1);
    hy_m3_mulv(r, A2, c2);
    hy_v3_add(g2, P, r);
    double om1[3], om2[3], w1xe[3];
    hy_v3_scale(om1, k, w1);
    hy_v3_copy(om2, om1);
    hy_v3_addscl(om2, e, w2);
    hy_v3_cross(w1xe, om1, e);

    // partial velocities V (centre of mass) and W (angular) per body and coordinate
    double V1[2][3], V2[2][3], W1[2][3], W2[2][3];
    // arms from the fixed hinge O1
    double rho1[3], rho2[3], pO[3];
    hy_v3_sub(rho1, g1, O1);
    hy_v3_sub(rho2, g2, O1);
    hy_v3_sub(pO, P, O1);
    hy_v3_cross(V1[0], k, rho1);
    hy_v3_set(V1[1], 0, 0, 0);
    hy_v3_cross(V2[0], k, rho2);
    hy_v3_cross(V2[1], e, r);
    hy_v3_copy(W1[0], k);
    hy_v3_set(W1[1], 0, 0, 0);
    hy_v3_copy(W2[0], k);
    hy_v3_copy(W2[1], e);

    // accelerations with zdd = 0
    double a1[3], a2[3], al1[3] = {0, 0, 0}, al2[3], t1[3], t2[3];
    hy_v3_cross(t1, om1, rho1);
    hy_v3_cross(a1, om1, t1);
    hy_v3_cross(t1, om1, pO);
    hy_v3_cross(a2, om1, t1);
    hy_v3_scale(al2, w1xe, w2);
    hy_v3_cross(t1, al2, r);
    hy_v3_add(a2, a2, t1);
    hy_v3_cross(t1, om2, r);
    hy_v3_cross(t2, om2, t1);
    hy_v3_add(a2, a2, t2);

    // inertia torques with zdd = 0: J alpha0 + omega x J omega
    double n1[3], n2[3];
    hy_m3_mulv(t1, J1, om1);
    hy_v3_cross(n1, om1, t1);
    hy_m3_mulv(t1, J1, al1);
    hy_v3_add(n1, n1, t1);
    hy_m3_mulv(t1, J2, om2);
    hy_v3_cross(n2, om2, t1);
    hy_m3_mulv(t1, J2, al2);
    hy_v3_add(n2, n2, t1);

    double K[2][2], f[2];
    for (int p = 0; p < 2; p++) {
      double ga1[3], ga2[3];
      hy_v3_sub(ga1, grav, a1);
      hy_v3_sub(ga2, grav, a2);
      f[p] = m1 * hy_v3_dot(ga1, V1[p]) + m2 * hy_v3_dot(ga2, V2[p]) - hy_v3_dot(n1, W1[p]) -
             hy_v3_dot(n2, W2[p]);
      for (int q = 0; q < 2; q++) {
        double JW1[3], JW2[3];
        hy_m3_mulv(JW1, J1, W1[q]);
        hy_m3_mulv(JW2, J2, W2[q]);
        K[p][q] = m1 * hy_v3_dot(V1[p], V1[q]) + m2 * hy_v3_dot(V2[p], V2[q]) +
                  hy_v3_dot(W1[p], JW1) + hy_v3_dot(W2[p], JW2);
      }
    }
    const double det = K[0][0] * K[1][1] - K[0][1] * K[1][0];
    const double zdd1 = (f[0] * K[1][1] - K[0][1] * f[1]) / det;
    const double zdd2 = (K[0][0] * f[1] - K[1][0] * f[0]) / det;
    const double scale = fmax(1.0, fmax(fabs(zdd1), fabs(zdd2)));
    ck_assert_msg(fabs(d->zdd[0] - zdd1) < 1e-10 * scale && fabs(d->zdd[1] - zdd2) < 1e-10 * scale,
                  "state %d: hydyn (%.15g, %.15g) vs Kane (%.15g, %.15g)", c, d->zdd[0],
                  d->zdd[1], zdd1, zdd2);
    // the mass matrix is Kane's generalized inertia
    ck_assert(fabs(d->M[0] - K[0][0]) < 1e-12 * K[0][0]);
    ck_assert(fabs(d->M[1] - K[0][1]) < 1e-12 * K[0][0]);
    ck_assert(fabs(d->M[3] - K[1][1]) < 1e-12 * K[0][0]);
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* mech_dynamics_suite(void) {
  Suite* s = suite_create("mech_dynamics");
  TCase* tc = tcase_create("dynamics");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, mass_matrix_is_hessian_of_kinetic_energy);
  tcase_add_test(tc, generalized_forces_match_lagrange);
  tcase_add_test(tc, double_pendulum_matches_kane);
  suite_add_tcase(s, tc);
  return s;
}
