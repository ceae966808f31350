// The planar path of the open-tree dynamics against the 3-D path (hy_mech_dynamics_general),
// which is the truth: on the planar benchmarks and on random planar trees whose plane is the x-y
// plane or tilted away from the coordinate planes, with centres of mass, markers, gravity and
// loads that all reach out of the plane, M' and Q' must agree to round-off at random states.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"
#include "mech/mech.h"
#include "planar_tree.h"
#include "sim/sim.h"

#define MAXZ 16

//----- the comparison ----------------------------------------------------------------------------

static double max_abs(const double* a, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) r = fmax(r, fabs(a[i]));
  return r;
}

// max |a - b| / max |b|, with max |b| required to be non-zero so that agreement means something.
static double rel_diff(const double* a, const double* b, int n) {
  const double scale = max_abs(b, n);
  ck_assert(scale > 0);
  double worst = 0;
  for (int i = 0; i < n; i++) worst = fmax(worst, fabs(a[i] - b[i]));
  return worst / scale;
}

// What the planar path assumes of the kinematics: b_lin and the body velocities in the plane,
// b_ang and omega along n, no angular acceleration at zdd = 0.
static void check_planar_kinematics(const hy_model* m, const hy_data* d, const hy_mech_work* w) {
  const double* n = m->plane_normal;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const double* b = d->jnt_b + 6 * j;
    const double* Z = d->body_Z + 6 * j;
    double c[3];
    ck_assert(fabs(hy_v3_dot(n, b)) < 1e-12 * (1 + hy_v3_norm(b)));
    hy_v3_cross(c, n, b + 3);
    ck_assert(hy_v3_norm(c) < 1e-12);
    ck_assert(fabs(hy_v3_dot(n, Z)) < 1e-12 * (1 + hy_v3_norm(Z)));
    hy_v3_cross(c, n, Z + 3);
    ck_assert(hy_v3_norm(c) < 1e-12 * (1 + hy_v3_norm(Z + 3)));
    const double w2 = hy_v3_dot(Z + 3, Z + 3);
    ck_assert(hy_v3_norm(w->body_Zd0 + 6 * j + 3) < 1e-12 * (1 + w2));
  }
}

// Kinetic and potential energy by the 3-D formulas: m |g_dot|^2 / 2 with g_dot = s_dot + w x g,
// and omega_body^T J omega_body / 2 with omega_body = A^T omega.
static void energy_3d(const hy_model* m, const hy_data* d, double* kin, double* pot) {
  *kin = 0;
  *pot = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const double mass = m->body_mass[j];
    const double* g = d->body_com + 3 * j;
    const double* Z = d->body_Z + 6 * j;
    double gd[3], wb[3], Jwb[3];
    hy_v3_cross(gd, Z + 3, g);
    hy_v3_add(gd, gd, Z);
    hy_m3_mulTv(wb, d->body_rot + 9 * j, Z + 3);
    hy_m3_mulv(Jwb, m->body_inertia + 9 * j, wb);
    *kin += 0.5 * (mass * hy_v3_dot(gd, gd) + hy_v3_dot(wb, Jwb));
    *pot -= mass * hy_v3_dot(m->opt.gravity, g);
  }
}

// At `nstate` random states (z, zd, t, force element forces) of model m: hy_mech_dynamics (the
// planar path) against hy_mech_dynamics_general, the force elements' share of Q' against their
// power, and hy_mech_energy (which takes a planar path too) against the 3-D formulas. Returns
// the largest relative difference of M' and Q'.
static double compare_paths(const hy_model* m, unsigned seed, int nstate) {
  ck_assert_int_eq(m->planar, 1);
  const int nz = m->sizes.nz;
  ck_assert_int_le(nz, MAXZ);
  hy_data* d = hy_test_make(m);
  hy_work* w = d->work_;
  unsigned st = seed;
  double worst = 0;
  for (int s = 0; s < nstate; s++) {
    for (int i = 0; i < nz; i++) {
      d->z[i] = m->z0[i] + random_uniform(&st, -1.5, 1.5);
      d->zd[i] = random_uniform(&st, -2, 2);
    }
    d->time = random_uniform(&st, 0, 2);
    hy_mech_kinematics(m, d, &w->mech);
    hy_mech_force_geometry(m, d);
    for (int k = 0; k < m->sizes.nfrc; k++) d->frc_force[k] = random_uniform(&st, -5e3, 5e3);
    check_planar_kinematics(m, d, &w->mech);

    double kin, pot;
    energy_3d(m, d, &kin, &pot);
    hy_mech_energy(m, d);
    ck_assert(kin > 0);
    ck_assert_msg(fabs(d->energy_kin - kin) <= 1e-12 * kin &&
                      fabs(d->energy_pot - pot) <= 1e-12 * (fabs(pot) + kin),
                  "%s, state %d: energies %.17g, %.17g, by the 3-D formulas %.17g, %.17g", m->name,
                  s, d->energy_kin, d->energy_pot, kin, pot);

    // the same with the work's inertias about the normal
    const double kin1 = d->energy_kin, pot1 = d->energy_pot;
    d->energy_kin = d->energy_pot = NAN;
    hy_mech_energy_with_work(m, d, &w->mech);
    ck_assert_msg(fabs(d->energy_kin - kin1) <= 1e-14 * kin1 &&
                      fabs(d->energy_pot - pot1) <= 1e-14 * (fabs(pot1) + kin1),
                  "%s, state %d: energies with the work %.17g, %.17g, without %.17g, %.17g",
                  m->name, s, d->energy_kin, d->energy_pot, kin1, pot1);

    double M[MAXZ * MAXZ], Q[MAXZ], loads[3 * 8];
    ck_assert_int_le(m->sizes.nload, 8);
    hy_mech_dynamics(m, d, &w->mech);
    memcpy(M, d->M, sizeof(double) * (size_t)(nz * nz));
    memcpy(Q, d->Q, sizeof(double) * (size_t)nz);
    memcpy(loads, w->mech.load_val, sizeof(double) * 3 * (size_t)m->sizes.nload);
    memset(w->mech.load_val, 0, sizeof(double) * 3 * (size_t)m->sizes.nload);
    hy_mech_dynamics_general(m, d, &w->mech);
    const double eM = rel_diff(M, d->M, nz * nz), eQ = rel_diff(Q, d->Q, nz);
    ck_assert_msg(eM < 1e-11 && eQ < 1e-11, "%s, state %d: relative difference M' %.3g, Q' %.3g",
                  m->name, s, eM, eQ);
    worst = fmax(worst, fmax(eM, eQ));
    // the loads the power of hy_mech_load_power is computed from
    for (int k = 0; k < 3 * m->sizes.nload; k++) ck_assert(loads[k] == w->mech.load_val[k]);

    // both paths apply the force elements with the same code, so check that code against their
    // power: (Q'(F) - Q'(0)) . zd = sum F_k rate_k
    double power = 0, scale = 0, Q0_zd = 0, Q_zd = 0;
    for (int k = 0; k < m->sizes.nfrc; k++) {
      power += d->frc_force[k] * d->frc_rate[k];
      scale += fabs(d->frc_force[k] * d->frc_rate[k]);
      d->frc_force[k] = 0;
    }
    hy_mech_dynamics(m, d, &w->mech);
    for (int i = 0; i < nz; i++) {
      Q_zd += Q[i] * d->zd[i];
      Q0_zd += d->Q[i] * d->zd[i];
    }
    ck_assert_msg(fabs(Q_zd - Q0_zd - power) <= 1e-11 * (scale + fabs(Q_zd) + fabs(Q0_zd)),
                  "%s, state %d: force element power %.15g, from Q' %.15g", m->name, s, power,
                  Q_zd - Q0_zd);
  }
  hy_data_free(d);
  return worst;
}

START_TEST(benchmarks_match_3d_path) {
  static const char* const models[] = {"four-bar-a", "quick-return", "crane",
                                       "tests/data/crank_rocker.yaml"};
  for (int k = 0; k < 4; k++) {
    hy_model* m = hy_test_load(models[k]);
    const double e = compare_paths(m, 100u + (unsigned)k, 5);
    printf("planar vs 3-D dynamics, %s: max relative difference %.2g\n", models[k], e);
    hy_model_free(m);
  }
}
END_TEST

// Tilted planes, and for every third seed the x-y plane (normal +-z), for which the planar
// path takes the components of its vectors directly (m->plane_xy).
START_TEST(random_planar_trees_match_3d_path) {
  double worst = 0;
  int xy = 0;
  for (unsigned seed = 1; seed <= 9; seed++) {
    unsigned st = seed * 977u;
    double n[3] = {0, 0, seed % 2 ? 1.0 : -1.0};
    if (seed % 3 != 0) random_tilted_normal(&st, n);
    hy_model* m = random_planar_tree(seed, 5 + (int)seed, n);
    ck_assert(fabs(fabs(hy_v3_dot(m->plane_normal, n)) - 1) < 1e-12);
    ck_assert_int_eq(m->plane_xy[0], seed % 3 == 0);
    xy += m->plane_xy[0];
    worst = fmax(worst, compare_paths(m, seed * 31u, 5));
    hy_model_free(m);
  }
  ck_assert_int_eq(xy, 3);
  printf("planar vs 3-D dynamics, random planar trees: max relative difference %.2g\n", worst);
}
END_TEST

// Chains (hy_mech_work.chain) of 2 to 10 bodies, on the x-y plane and on tilted planes: the
// sized copies of the chain path (up to 8 bodies) and the one of any length.
START_TEST(random_planar_chains_match_3d_path) {
  double worst = 0;
  for (unsigned seed = 1; seed <= 9; seed++) {
    unsigned st = seed * 613u;
    double n[3] = {0, 0, seed % 2 ? 1.0 : -1.0};
    if (seed % 3 == 0) random_tilted_normal(&st, n);
    hy_model* m = random_planar_chain(seed, 1 + (int)seed, n);
    ck_assert_int_eq(m->plane_xy[0], seed % 3 != 0);
    hy_data* d = hy_test_make(m);
    ck_assert_int_eq(((hy_work*)d->work_)->mech.chain, 1);
    hy_data_free(d);
    worst = fmax(worst, compare_paths(m, seed * 37u, 5));
    hy_model_free(m);
  }
  printf("planar vs 3-D dynamics, random planar chains: max relative difference %.2g\n", worst);
}
END_TEST

Suite* mech_dynamics_planar_suite(void) {
  Suite* s = suite_create("mech_dynamics_planar");
  TCase* tc = tcase_create("planar");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, benchmarks_match_3d_path);
  tcase_add_test(tc, random_planar_trees_match_3d_path);
  tcase_add_test(tc, random_planar_chains_match_3d_path);
  suite_add_tcase(s, tc);
  return s;
}
