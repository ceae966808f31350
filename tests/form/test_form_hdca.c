// The Hamiltonian divide-and-conquer algorithm (formulation hdca, src/form/form_dca.c; seed
// 004_f00eb218b27db19b.txt): state (q, p), velocities from the momenta by the assembly at velocity
// level, the momenta's rates joint by joint. Against the tree formulation on an open chain and a
// hydraulic crane, against DCA on the four-bar loop of hdca-case1, its loop closed at velocity
// level to round-off while DCA's drifts, and its state saved and set back bit for bit.
#include <check.h>
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"

static hy_model* with(const char* what, hy_formulation form, double tol) {
  hy_model* m = hy_test_load(what);
  m->opt.formulation = form;
  m->opt.integrator = HY_INTEG_DOPRI5;
  m->opt.ode_tol = tol;
  return m;
}

// chain-8 over 2 s by dopri5 at 1e-12: measured 8.4e-10 rad/s apart.
START_TEST(chain_equals_the_tree_formulation) {
  hy_model* mt = with("chain-8", HY_FORM_TREE, 1e-12);
  hy_model* mh = with("chain-8", HY_FORM_HDCA, 1e-12);
  hy_data* dt = hy_test_make(mt);
  hy_data* dh = hy_test_make(mh);
  hy_test_steps(mt, dt, 2000);
  hy_test_steps(mh, dh, 2000);
  for (int i = 0; i < mt->sizes.nz; i++) {
    ck_assert_double_lt(fabs(dh->z[i] - dt->z[i]), 1e-9);
    ck_assert_double_lt(fabs(dh->zd[i] - dt->zd[i]), 1e-8);
  }
  hy_data_free(dt);
  hy_data_free(dh);
  hy_model_free(mt);
  hy_model_free(mh);
}
END_TEST

// The crane (cylinder, valve, volumes) as it is, its load a point mass (leaf_inertia).
START_TEST(hydraulic_crane_equals_the_tree_formulation) {
  hy_model* m[2] = {with("crane", HY_FORM_TREE, 1e-10), with("crane", HY_FORM_HDCA, 1e-10)};
  hy_data* d[2];
  for (int k = 0; k < 2; k++) {
    d[k] = hy_test_make(m[k]);
    hy_test_steps(m[k], d[k], 2000);
  }
  for (int i = 0; i < m[0]->sizes.nz; i++) ck_assert_double_lt(fabs(d[0]->z[i] - d[1]->z[i]), 1e-7);
  for (int v = 0; v < m[0]->sizes.nvol; v++)
    ck_assert_double_lt(fabs(d[0]->p[v] - d[1]->p[v]), 1.0);
  for (int k = 0; k < 2; k++) {
    hy_data_free(d[k]);
    hy_model_free(m[k]);
  }
}
END_TEST

// what over n steps by dopri5 at 1e-12 under HDCA and formulation other: coordinates and
// velocities within tol.
static void equals(const char* what, hy_formulation other, long n, double tol) {
  hy_model* mh = with(what, HY_FORM_HDCA, 1e-12);
  hy_model* mo = with(what, other, 1e-12);
  hy_data* dh = hy_test_make(mh);
  hy_data* d_o = hy_test_make(mo);
  hy_test_steps(mh, dh, n);
  hy_test_steps(mo, d_o, n);
  for (int i = 0; i < mh->sizes.nz; i++) {
    ck_assert_msg(fabs(dh->z[i] - d_o->z[i]) < tol, "%s: z[%d] %.3g apart", what, i,
                  fabs(dh->z[i] - d_o->z[i]));
    ck_assert_msg(fabs(dh->zd[i] - d_o->zd[i]) < tol, "%s: zd[%d] %.3g apart", what, i,
                  fabs(dh->zd[i] - d_o->zd[i]));
  }
  hy_data_free(dh);
  hy_data_free(d_o);
  hy_model_free(mh);
  hy_model_free(mo);
}

// The sleeve pendulum (prismatic joints, the plane) and the 3-D chain of
// tests/data/spatial-chain.yaml (a slide and skewed axes) over 2 s, against the tree formulation.
// Both start in motion, so that the initial momenta are taken from the state's velocities (a
// start that took them at rest went 0.95 J astray): measured up to 2.9e-13 m and
// 5.3e-9 rad/s apart. Leaving out the turning axis's term u_dot . n_P fails the 3-D one by 1e-3.
START_TEST(moving_starts_equal_the_tree_formulation) {
  equals("tests/data/sleeve-pendulum.yaml", HY_FORM_TREE, 2000, 1e-8);
  equals("tests/data/spatial-chain.yaml", HY_FORM_TREE, 2000, 1e-8);
}
END_TEST

// Branching trees (tests/data/planar-tree.yaml, every joint moving from the start, and
// models/tree-10.yaml in 3-D, its two rods folded as point-like bodies) over 2 s at 1e-12, against
// the tree formulation: the branches' momenta join the sums of the joints they hang beyond.
// Measured: 4.4e-11 relative (hydyn compare) on the first.
START_TEST(branching_trees_equal_the_tree_formulation) {
  equals("tests/data/planar-tree.yaml", HY_FORM_TREE, 2000, 1e-8);
  equals("tree-10", HY_FORM_TREE, 2000, 1e-8);
}
END_TEST

// The largest in-plane speed of a cut joint's two material points against each other (for
// hdca-case1, the rocker's tip, which the cut joint holds on ground).
static double cut_speed(const hy_model* m, const hy_data* d) {
  double top = 0;
  for (int k = 0; k < m->sizes.ncut; k++) {
    const double* va = d->mrk_vel + 3 * m->cut_mrk_a[k];
    const double* vb = d->mrk_vel + 3 * m->cut_mrk_b[k];
    top = fmax(top, hypot(va[0] - vb[0], va[1] - vb[1]));
  }
  return top;
}

// what over n steps at 1e-6 under HDCA and DCA: HDCA's cut speed stays at round-off (below
// speed_max), DCA's is over a hundred times larger, and HDCA's largest position violation below
// ratio times DCA's.
static void closes_at_velocity_level(const char* what, long n, double speed_max, double ratio) {
  hy_model* mh = with(what, HY_FORM_HDCA, 1e-6);
  hy_model* md = with(what, HY_FORM_DCA, 1e-6);
  hy_data* dh = hy_test_make(mh);
  hy_data* dd = hy_test_make(md);
  double vh = 0, vd = 0;
  for (long s = 0; s < n; s++) {
    ck_assert_msg(hy_step(mh, dh) == HY_OK, "%s", dh->err.msg);
    ck_assert_msg(hy_step(md, dd) == HY_OK, "%s", dd->err.msg);
    vh = fmax(vh, cut_speed(mh, dh));
    vd = fmax(vd, cut_speed(md, dd));
  }
  ck_assert_msg(vh < speed_max, "%s, hdca: cut speed up to %.3g m/s", what, vh);
  ck_assert_msg(vd > 100 * vh, "%s: dca %.3g m/s, hdca %.3g m/s", what, vd, vh);
  ck_assert_msg(dh->stats.violation_max < ratio * dd->stats.violation_max,
                "%s, violation: hdca %.3g m, dca %.3g m", what, dh->stats.violation_max,
                dd->stats.violation_max);
  hy_data_free(dh);
  hy_data_free(dd);
  hy_model_free(mh);
  hy_model_free(md);
}

// hdca-case1 over 10 s at 1e-6: HDCA's velocities meet the loop exactly, so the tip's speed stays
// at round-off and the loop's position error small; DCA closes it at acceleration level only.
// Measured: largest violation 8.7e-6 m (hdca) against 2.0e-4 m (dca), energy drift 1.2e-3 J
// against 3.4e-3 J (seed 004 Figs. 5, 8-9 in shape).
START_TEST(loop_closes_at_velocity_level) {
  closes_at_velocity_level("hdca-case1", 10000, 1e-12, 0.2);
}
END_TEST

// Against DCA at 1e-12 (DCA was checked against the converged double-step formulation in
// test_form_dca.c): the four-bar loop of hdca-case1 over 10 s.
START_TEST(loop_equals_dca_at_tight_tolerance) { equals("hdca-case1", HY_FORM_DCA, 10000, 1e-7); }
END_TEST

// Two loops whose cut joints both move (tests/data/pentagons-uneven.yaml: hdca-case3 with the
// right chain twice as heavy, so that the middle bar swings): each cut's impulse turns with its
// moving point, a term of the momenta's rates that a cut to ground never shows. Measured over
// 10 s at 1e-6: cut speed up to 2.5e-13 m/s (hdca-case1: 7e-13 m/s).
START_TEST(two_loops_close_at_velocity_level) {
  closes_at_velocity_level("tests/data/pentagons-uneven.yaml", 10000, 1e-12, 0.2);
}
END_TEST

// The same two loops at 1e-12 against DCA over 5 s: measured 1.2e-10 rad apart (leaving out the
// turning impulses' term puts them 0.2 rad apart).
START_TEST(two_loops_equal_dca_at_tight_tolerance) {
  equals("tests/data/pentagons-uneven.yaml", HY_FORM_DCA, 5000, 1e-8);
}
END_TEST

// A loop with branches hanging from it (tests/data/four-bar-branches.yaml): closed at velocity
// level over 2 s at 1e-6 (measured: largest violation 8.9e-7 m against DCA's 2.2e-6 m; the
// branches' slider is flung far out after that), and against DCA at 1e-12 (DCA against the
// converged double-step in test_form_dca.c).
START_TEST(branched_loop_closes_and_equals_dca) {
  closes_at_velocity_level("tests/data/four-bar-branches.yaml", 2000, 1e-12, 0.5);
  equals("tests/data/four-bar-branches.yaml", HY_FORM_DCA, 2000, 1e-8);
}
END_TEST

// The momenta are saved with the state: a data set to it goes on as the one it came from.
START_TEST(momenta_are_part_of_the_state) {
  hy_model* m = with("hdca-case1", HY_FORM_HDCA, 1e-9);
  m->opt.integrator = HY_INTEG_RK4;
  hy_data* a = hy_test_make(m);
  hy_data* b = hy_test_make(m);
  hy_test_steps(m, a, 1500);
  double buf[256];
  const int n = hy_state_size(m, a, HY_STATE_FULL);
  ck_assert_int_le(n, 256);
  hy_state_get(m, a, HY_STATE_FULL, buf);
  ck_assert_int_eq(hy_state_set(m, b, HY_STATE_FULL, buf), HY_OK);
  hy_test_steps(m, a, 500);
  hy_test_steps(m, b, 500);
  hy_test_same_bits(a->z, b->z, m->sizes.nz, "z after a restart");
  hy_test_same_bits(a->mom, b->mom, m->sizes.nz, "the momenta after a restart");
  hy_data_free(a);
  hy_data_free(b);
  hy_model_free(m);
}
END_TEST

// The assembly in OpenMP tasks (threads = 2) gives the same bits as one thread: every node's
// numbers come from its children's alone. chain-300 is large enough for tasks (64 bodies).
START_TEST(threads_change_no_bit) {
  const hy_formulation forms[2] = {HY_FORM_DCA, HY_FORM_HDCA};
  for (int k = 0; k < 2; k++) {
    hy_model* m = with("chain-300", forms[k], 1e-6);
    m->opt.integrator = HY_INTEG_RK4;
    hy_data* one = hy_test_make(m);
    m->opt.threads = 2;
    hy_data* two = hy_test_make(m);
    m->opt.threads = 1;
    hy_test_steps(m, one, 20);
    m->opt.threads = 2;
    hy_test_steps(m, two, 20);
    hy_test_same_bits(one->z, two->z, m->sizes.nz, "z with 1 and 2 threads");
    hy_test_same_bits(one->zd, two->zd, m->sizes.nz, "zd with 1 and 2 threads");
    hy_data_free(one);
    hy_data_free(two);
    hy_model_free(m);
  }
}
END_TEST

// Joint reactions (solver.reactions, seed 004 Sect. 3.4) of chain-1, a 1 m, 1 kg rod pinned at
// one end and falling from the horizontal, against Newton's law for its centre of mass at the
// state's angle and rate: R = m a_c - m g, with a_c from the closed-form angular acceleration
// theta_ddot = -3 g cos(theta) / (2 L) (I about the pin m L^2 / 3). At t = 0 that is m g / 4 up.
// Both formulations, by RK4 over 0.5 s; measured within 3.6e-14 N (dca).
START_TEST(reactions_of_a_falling_rod) {
  const hy_formulation forms[] = {HY_FORM_DCA, HY_FORM_HDCA};
  const double g = 9.81, L = 1, mass = 1;
  for (int k = 0; k < 2; k++) {
    hy_model* m = hy_test_load("chain-1");
    m->opt.formulation = forms[k];
    m->opt.integrator = HY_INTEG_RK4;
    m->opt.reactions = 1;
    hy_data* d = hy_test_make(m);
    ck_assert_double_eq_tol(d->jnt_react[1], mass * g / 4, 1e-12);
    double worst = 0;
    for (long s = 0; s < 500; s++) {
      ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
      const double th = d->z[0], w = d->zd[0], al = -3 * g * cos(th) / (2 * L);
      const double ax = 0.5 * L * (-al * sin(th) - w * w * cos(th));
      const double ay = 0.5 * L * (al * cos(th) - w * w * sin(th));
      worst = fmax(worst, fabs(d->jnt_react[0] - mass * ax));
      worst = fmax(worst, fabs(d->jnt_react[1] - mass * (ay + g)));
      for (int i = 2; i < 6; i++) worst = fmax(worst, fabs(d->jnt_react[i]));
    }
    ck_assert_msg(worst < 1e-11, "%s: %.3g N off", hy_formulation_name(forms[k]), worst);
    hy_data_free(d);
    hy_model_free(m);
  }
  // a formulation that computes none refuses the request
  hy_model* m = hy_test_load("hdca-case1");
  m->opt.formulation = HY_FORM_PENALTY;
  m->opt.reactions = 1;
  hy_data* d = NULL;
  hy_error err;
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "computes no joint reactions") != NULL, "%s", err.msg);
  hy_model_free(m);
}
END_TEST

// The reactions of HDCA (from DCA's solve at HDCA's state) and DCA along their own runs at 1e-12:
// the two loops of tests/data/pentagons-uneven.yaml (cut forces in the chains' joints) and the
// 3-D chain of tests/data/spatial-chain.yaml, over 1 s. Measured 3.2e-11 N of 35 N on the first.
static void reactions_alike(const char* what) {
  hy_model* mh = with(what, HY_FORM_HDCA, 1e-12);
  hy_model* md = with(what, HY_FORM_DCA, 1e-12);
  mh->opt.reactions = md->opt.reactions = 1;
  hy_data* dh = hy_test_make(mh);
  hy_data* dd = hy_test_make(md);
  hy_test_steps(mh, dh, 1000);
  hy_test_steps(md, dd, 1000);
  double worst = 0, top = 0;
  for (int i = 0; i < 6 * mh->sizes.nbody; i++) {
    worst = fmax(worst, fabs(dh->jnt_react[i] - dd->jnt_react[i]));
    top = fmax(top, fabs(dd->jnt_react[i]));
  }
  for (int i = 0; i < 6 * mh->sizes.ncut; i++) {
    worst = fmax(worst, fabs(dh->cut_react[i] - dd->cut_react[i]));
  }
  ck_assert_msg(top > 1 && worst < 1e-8 * top, "%s: %.3g of %.3g N", what, worst, top);
  hy_data_free(dh);
  hy_data_free(dd);
  hy_model_free(mh);
  hy_model_free(md);
}

START_TEST(reactions_equal_dca) {
  reactions_alike("tests/data/pentagons-uneven.yaml");
  reactions_alike("tests/data/spatial-chain.yaml");
}
END_TEST

Suite* form_hdca_suite(void) {
  Suite* s = suite_create("form_hdca");
  TCase* tc = tcase_create("hdca");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, chain_equals_the_tree_formulation);
  tcase_add_test(tc, hydraulic_crane_equals_the_tree_formulation);
  tcase_add_test(tc, moving_starts_equal_the_tree_formulation);
  tcase_add_test(tc, branching_trees_equal_the_tree_formulation);
  tcase_add_test(tc, branched_loop_closes_and_equals_dca);
  tcase_add_test(tc, loop_closes_at_velocity_level);
  tcase_add_test(tc, loop_equals_dca_at_tight_tolerance);
  tcase_add_test(tc, two_loops_close_at_velocity_level);
  tcase_add_test(tc, two_loops_equal_dca_at_tight_tolerance);
  tcase_add_test(tc, reactions_of_a_falling_rod);
  tcase_add_test(tc, reactions_equal_dca);
  tcase_add_test(tc, momenta_are_part_of_the_state);
  tcase_add_test(tc, threads_change_no_bit);
  suite_add_tcase(s, tc);
  return s;
}
