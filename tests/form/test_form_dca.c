// Featherstone's divide-and-conquer algorithm (src/form/form_dca.c) against the semi-recursive
// open-tree equations M' zdd = Q' (the tree formulation): the same accelerations at a state, the
// same motion of a chain and of branching trees, and with hydraulics (force elements on the
// bodies); the models it does not run yet are refused with the reason.
#include <check.h>
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

static hy_model* with(const char* what, hy_formulation form, hy_integrator integ) {
  hy_model* m = hy_test_load(what);
  m->opt.formulation = form;
  m->opt.integrator = integ;
  return m;
}

// chain-64 in motion (0.3 s of swinging): both formulations' accelerations at the same state.
// Measured 2.9e-10 of the largest apart: the round-off of M' zdd = Q' for 64 coupled coordinates
// (the two agree to 2e-12 on chain-8's, below).
START_TEST(accelerations_equal_the_tree_formulation) {
  hy_model* mt = with("chain-64", HY_FORM_TREE, HY_INTEG_RK4);
  hy_model* md = with("chain-64", HY_FORM_DCA, HY_INTEG_RK4);
  hy_data* dt = hy_test_make(mt);
  hy_data* dd = hy_test_make(md);
  hy_test_steps(mt, dt, 300);
  const int nz = mt->sizes.nz;
  memcpy(dd->z, dt->z, sizeof(double) * (size_t)nz);
  memcpy(dd->zd, dt->zd, sizeof(double) * (size_t)nz);
  dd->time = dt->time;
  ck_assert_int_eq(hy_forward(md, dd), HY_OK);
  double worst = 0, top = 0;
  for (int i = 0; i < nz; i++) {
    worst = fmax(worst, fabs(dd->zdd[i] - dt->zdd[i]));
    top = fmax(top, fabs(dt->zdd[i]));
  }
  ck_assert_msg(worst <= 1e-9 * top, "largest difference %.3g rad/s^2 of %.3g", worst, top);
  hy_data_free(dt);
  hy_data_free(dd);
  hy_model_free(mt);
  hy_model_free(md);
}
END_TEST

// what's motion over n steps under both formulations (RK4), every coordinate within tol.
static void same_motion(const char* what, long n, double tol) {
  hy_model* mt = with(what, HY_FORM_TREE, HY_INTEG_RK4);
  hy_model* md = with(what, HY_FORM_DCA, HY_INTEG_RK4);
  hy_data* dt = hy_test_make(mt);
  hy_data* dd = hy_test_make(md);
  hy_test_steps(mt, dt, n);
  hy_test_steps(md, dd, n);
  for (int i = 0; i < mt->sizes.nz; i++) ck_assert_double_lt(fabs(dd->z[i] - dt->z[i]), tol);
  hy_data_free(dt);
  hy_data_free(dd);
  hy_model_free(mt);
  hy_model_free(md);
}

// The swing of chain-8 over 2 s with RK4 at 1 ms: measured 2e-12 rad apart.
START_TEST(chain_motion_equals_the_tree_formulation) { same_motion("chain-8", 2000, 1e-10); }
END_TEST

// The crane as it is: a cylinder, pressures and a valve, and its load a point mass (no inertia,
// folded into the link it hangs from: leaf_inertia), by dopri5 at 1e-10 under both.
START_TEST(hydraulic_crane_equals_the_tree_formulation) {
  hy_model* m[2] = {with("crane", HY_FORM_TREE, HY_INTEG_DOPRI5),
                    with("crane", HY_FORM_DCA, HY_INTEG_DOPRI5)};
  hy_data* d[2];
  for (int k = 0; k < 2; k++) {
    m[k]->opt.ode_tol = 1e-10;
    d[k] = hy_test_make(m[k]);
    hy_test_steps(m[k], d[k], 2000);
  }
  for (int i = 0; i < m[0]->sizes.nz; i++) {
    ck_assert_double_lt(fabs(d[0]->z[i] - d[1]->z[i]), 1e-7);
  }
  for (int v = 0; v < m[0]->sizes.nvol; v++) {
    ck_assert_double_lt(fabs(d[0]->p[v] - d[1]->p[v]), 1.0);  // Pa, of some 1e7
  }
  for (int k = 0; k < 2; k++) {
    hy_data_free(d[k]);
    hy_model_free(m[k]);
  }
}
END_TEST

START_TEST(models_it_cannot_run_are_refused) {
  static const struct {
    const char* model;
    const char* why;
  } cases[] = {
      {"quick-return", "closes loops so far only by revolute or spherical cut joints"},
      {"double-pendulum",
       "body 'link1' of model 'double-pendulum' has none, and it hangs from ground"},
      {"tests/data/spatial-chain-closed.yaml", "closes loops in planar models only so far"},
      {"tests/data/two-branches-loop.yaml", "below body 'hub'"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    hy_model* m = with(cases[c].model, HY_FORM_DCA, HY_INTEG_AUTO);
    hy_data* d = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_ne(hy_data_make(m, &d, &err), HY_OK);
    ck_assert_msg(strstr(err.msg, cases[c].why) != NULL, "%s: %s", cases[c].model, err.msg);
    hy_model_free(m);
  }
  // a point mass in the middle of a chain: chain-3's second rod without inertia
  {
    hy_model* pm = with("chain-3", HY_FORM_DCA, HY_INTEG_AUTO);
    memset(pm->body_inertia + 9, 0, 9 * sizeof(double));
    hy_data* pd = NULL;
    hy_error perr;
    memset(&perr, 0, sizeof perr);
    ck_assert_int_ne(hy_data_make(pm, &pd, &perr), HY_OK);
    ck_assert_msg(strstr(perr.msg, "has none, and it has children") != NULL, "%s", perr.msg);
    hy_model_free(pm);
  }
  // and the trapezoidal rule, which needs a residual; symplectic Euler for HDCA's momenta
  static const struct {
    hy_formulation form;
    hy_integrator integ;
    const char* why;
  } integs[] = {{HY_FORM_DCA, HY_INTEG_TRAPEZOIDAL, "only an ODE right-hand side"},
                {HY_FORM_HDCA, HY_INTEG_SEMI_EULER, "semi-euler cannot step it"}};
  for (size_t c = 0; c < sizeof integs / sizeof integs[0]; c++) {
    hy_model* m = with("chain-4", integs[c].form, integs[c].integ);
    hy_data* d = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
    ck_assert_msg(strstr(err.msg, integs[c].why) != NULL, "%s", err.msg);
    hy_model_free(m);
  }
}
END_TEST

// In space (tests/data/spatial-chain.yaml: axes z, x, a slide and a skewed axis, so that the
// gyroscopic, centripetal and Coriolis terms all act), both by RK4. Leaving out the gyroscopic
// moment fails it. By dopri5 at 1e-12 over 2 s they are 4.5e-12 rad apart (hydyn compare).
START_TEST(spatial_chain_equals_the_tree_formulation) {
  same_motion("tests/data/spatial-chain.yaml", 2000, 1e-11);
}
END_TEST

// Prismatic and revolute joints mixed (tests/data/sleeve-pendulum.yaml): the sleeve slides on
// the turning arm, so the prismatic joint's Coriolis term acts.
START_TEST(prismatic_joints_equal_the_tree_formulation) {
  same_motion("tests/data/sleeve-pendulum.yaml", 2000, 1e-10);
}
END_TEST

// Branching trees, whose branches DCA folds into the bodies they hang from (leaf_branched), by
// RK4 over 2 s: tests/data/planar-tree.yaml (branches from a chain's first body, from a body in
// the middle of a chain and from a branch; a slide) and the 3-D models/tree-10.yaml (three
// branches from its hub, three from a boom) with its two rods given an axial inertia. By dopri5
// at 1e-12 they are 6.6e-11 and 5.0e-12 apart, relative (hydyn compare).
START_TEST(branching_trees_equal_the_tree_formulation) {
  same_motion("tests/data/planar-tree.yaml", 2000, 1e-10);
  for (int solid = 0; solid < 2; solid++) {
    hy_model* m[2] = {with("tree-10", HY_FORM_TREE, HY_INTEG_RK4),
                      with("tree-10", HY_FORM_DCA, HY_INTEG_RK4)};
    hy_data* d[2];
    for (int k = 0; k < 2; k++) {
      if (solid) hy_test_solid_rods(m[k]);
      d[k] = hy_test_make(m[k]);
      hy_test_steps(m[k], d[k], 2000);
    }
    for (int i = 0; i < m[0]->sizes.nz; i++) {
      ck_assert_msg(fabs(d[0]->z[i] - d[1]->z[i]) < 1e-10, "tree-10 (solid %d): z[%d] %.3g apart",
                    solid, i, fabs(d[0]->z[i] - d[1]->z[i]));
    }
    for (int k = 0; k < 2; k++) {
      hy_data_free(d[k]);
      hy_model_free(m[k]);
    }
  }
}
END_TEST

// The rate of momentum less the weight of the bodies beyond joint j (all bodies for j = -1),
// from the accelerations in d: f = sum_k m_k (a_k - g), and about the point P, n = sum_k ((c_k -
// P) x m_k (a_k - g) + I_k omega_dot_k + omega_k x I_k omega_k) (the terms of a fixed point where
// P is now). What the joint (or ground's joints) must supply.
static void balance(const hy_model* m, const hy_data* d, int j, const double* P, double* f,
                    double* n) {
  f[0] = f[1] = f[2] = n[0] = n[1] = n[2] = 0;
  for (int k = 0; k < m->sizes.nbody; k++) {
    int a = k;
    while (j >= 0 && a >= 0 && a != j) a = m->body_parent[a];
    if (j >= 0 && a != j) continue;  // k is not beyond joint j
    const double *Z = d->body_Z + 6 * k, *Zd = d->body_Zd + 6 * k, *c = d->body_com + 3 * k;
    double v[3], acc[3], t[3], fk[3], r[3], RI[9], I[9], Iw[3];
    hy_v3_cross(t, Z + 3, c);
    hy_v3_add(v, Z, t);  // v_c = s_dot + omega x c
    hy_v3_cross(acc, Zd + 3, c);
    hy_v3_add(acc, acc, Zd);
    hy_v3_cross(t, Z + 3, v);
    hy_v3_add(acc, acc, t);  // a_c = s_ddot + omega_dot x c + omega x v_c
    hy_v3_sub(fk, acc, m->opt.gravity);
    hy_v3_scale(fk, fk, m->body_mass[k]);
    hy_v3_add(f, f, fk);
    hy_v3_sub(r, c, P);
    hy_v3_cross(t, r, fk);
    hy_v3_add(n, n, t);
    hy_m3_mul(RI, d->body_rot + 9 * k, m->body_inertia + 9 * k);
    hy_m3_mulT2(I, RI, d->body_rot + 9 * k);
    hy_m3_mulv(t, I, Zd + 3);
    hy_v3_add(n, n, t);
    hy_m3_mulv(Iw, I, Z + 3);
    hy_v3_cross(t, Z + 3, Iw);
    hy_v3_add(n, n, t);
  }
}

// The reactions of a branching tree (solver.reactions) against the balance of each joint's
// subtree, from the tree formulation's accelerations at the same state: the force through joint
// j is the rate of the subtree's momentum less its weight, and its moment about the joint's point
// the subtree's rate of angular momentum about it less the weights' moments (balance).
// tests/data/planar-tree.yaml after 0.3 s of motion; measured 1.9e-13 of 79 N.
START_TEST(reactions_balance_each_subtree) {
  hy_model* mt = with("tests/data/planar-tree.yaml", HY_FORM_TREE, HY_INTEG_RK4);
  hy_model* md = with("tests/data/planar-tree.yaml", HY_FORM_DCA, HY_INTEG_RK4);
  md->opt.reactions = 1;
  hy_data* dt = hy_test_make(mt);
  hy_data* dd = hy_test_make(md);
  hy_test_steps(mt, dt, 300);
  const int nz = mt->sizes.nz, nb = mt->sizes.nbody;
  memcpy(dd->z, dt->z, sizeof(double) * (size_t)nz);
  memcpy(dd->zd, dt->zd, sizeof(double) * (size_t)nz);
  dd->time = dt->time;
  ck_assert_int_eq(hy_forward(mt, dt), HY_OK);
  ck_assert_int_eq(hy_forward(md, dd), HY_OK);
  double worst = 0, top = 0;
  for (int j = 0; j < nb; j++) {
    double P[3], f[3], n[3];
    hy_m3_mulv(P, dt->body_rot + 9 * j, mt->jnt_cpoint + 3 * j);
    hy_v3_add(P, P, dt->body_pos + 3 * j);
    balance(mt, dt, j, P, f, n);
    const double* R = dd->jnt_react + 6 * j;
    for (int i = 0; i < 3; i++) {
      worst = fmax(worst, fmax(fabs(R[i] - f[i]), fabs(R[3 + i] - n[i])));
      top = fmax(top, fabs(f[i]));
    }
  }
  ck_assert_msg(top > 1 && worst < 1e-10 * top, "reactions %.3g off the balance of %.3g N", worst,
                top);
  hy_data_free(dt);
  hy_data_free(dd);
  hy_model_free(mt);
  hy_model_free(md);
}
END_TEST

// A loop's reactions (solver.reactions): over the whole of tests/data/pentagons-uneven.yaml (two
// loops whose cut joints join moving bodies) and hdca-case1 (a cut to ground), the forces of
// ground's joints and of the cut joints to ground balance the mechanism's rate of momentum less
// its weight, and their moments about the origin its rate of angular momentum (balance, from the
// body accelerations of the same run); the cuts between bodies cancel in the sum. Each after
// 0.5 s of motion, by dopri5 at 1e-10; measured 5.3e-15 (case 1, cut 8.3 N, mechanism 21 N) and
// 8.5e-14 (pentagons, cuts 25 N, 147 N). The cut forces stored with the wrong sign fail it.
START_TEST(cut_reactions_balance_the_mechanism) {
  const char* what[] = {"hdca-case1", "tests/data/pentagons-uneven.yaml"};
  for (int w = 0; w < 2; w++) {
    hy_model* m = with(what[w], HY_FORM_DCA, HY_INTEG_DOPRI5);
    m->opt.reactions = 1;
    m->opt.ode_tol = 1e-10;
    hy_data* d = hy_test_make(m);
    hy_test_steps(m, d, 500);
    ck_assert_int_eq(hy_forward(m, d), HY_OK);
    // the bodies' accelerations from the joints' (seed 000 Eq. 3), which dca does not form
    for (int j = 0; j < m->sizes.nbody; j++) {
      const int p = m->body_parent[j];
      const double zdd = d->zdd[m->jnt_zadr[j]];
      for (int i = 0; i < 6; i++) {
        d->body_Zd[6 * j + i] =
            (p < 0 ? 0.0 : d->body_Zd[6 * p + i]) + d->jnt_b[6 * j + i] * zdd + d->jnt_d[6 * j + i];
      }
    }
    const double O[3] = {0, 0, 0};
    double f[3], n[3], cut_top = 0;
    balance(m, d, -1, O, f, n);
    for (int j = 0; j < m->sizes.nbody; j++) {
      if (m->body_parent[j] >= 0) continue;
      double P[3], t[3];
      const double* R = d->jnt_react + 6 * j;
      hy_m3_mulv(P, d->body_rot + 9 * j, m->jnt_cpoint + 3 * j);
      hy_v3_add(P, P, d->body_pos + 3 * j);
      hy_v3_cross(t, P, R);
      for (int i = 0; i < 3; i++) {
        f[i] -= R[i];
        n[i] -= R[3 + i] + t[i];
      }
    }
    for (int k = 0; k < m->sizes.ncut; k++) {
      const int sides[2] = {m->cut_mrk_a[k], m->cut_mrk_b[k]};
      const double* R = d->cut_react + 6 * k;
      cut_top = fmax(cut_top, hy_v3_norm(R));
      for (int side = 0; side < 2; side++) {
        const int mk = sides[side];
        if (m->mrk_body[mk] < 0) continue;
        const double sg = side == 0 ? 1.0 : -1.0;  // side b takes -f
        double t[3];
        hy_v3_cross(t, d->mrk_pos + 3 * mk, R);
        for (int i = 0; i < 3; i++) {
          f[i] -= sg * R[i];
          n[i] -= sg * t[i];
        }
      }
    }
    const double off = fmax(hy_v3_norm(f), hy_v3_norm(n));
    ck_assert_msg(cut_top > 1 && off < 1e-9, "%s: %.3g off the balance, cuts up to %.3g N", what[w],
                  off, cut_top);
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

// hdca-case1 (the four-bar loop of ../shared/seeds/hdca_cases.md, closed by a cut joint at the
// rocker's tip): DCA by dopri5 at 1e-12 against the double-step formulation converged by
// Richardson extrapolation of its second-order steps, (4 z(h/2) - z(h)) / 3 with h = 0.1 ms, at
// t = 10 s. Measured: the double-step at 50 us is 1.2e-5 rad off, the extrapolation 1.4e-8 rad.
static void run_to(const char* what, hy_formulation form, hy_integrator integ, double dt,
                   double tol, double t_end, double* z) {
  hy_model* m = with(what, form, integ);
  m->opt.dt = dt;
  m->opt.ode_tol = tol;
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, lround(t_end / dt));
  memcpy(z, d->z, sizeof(double) * (size_t)m->sizes.nz);
  hy_data_free(d);
  hy_model_free(m);
}

// DCA by dopri5 at 1e-12 on what over t_end against the double-step formulation's Richardson
// extrapolation at h = 0.1 ms, every coordinate within tol of it; with closer, also closer to it
// than the double-step at h / 2 alone.
static void agrees_with_the_converged_double_step(const char* what, double t_end, double tol,
                                                  int closer) {
  double zd[16], z1[16], z2[16];
  run_to(what, HY_FORM_DCA, HY_INTEG_DOPRI5, 1e-3, 1e-12, t_end, zd);
  run_to(what, HY_FORM_DOUBLE_STEP, HY_INTEG_TRAPEZOIDAL, 1e-4, 1e-6, t_end, z1);
  run_to(what, HY_FORM_DOUBLE_STEP, HY_INTEG_TRAPEZOIDAL, 5e-5, 1e-6, t_end, z2);
  hy_model* m = hy_test_load(what);
  ck_assert_int_le(m->sizes.nz, 16);
  for (int i = 0; i < m->sizes.nz; i++) {
    const double rich = (4 * z2[i] - z1[i]) / 3;
    ck_assert_msg(fabs(rich - zd[i]) < tol, "%s: z[%d]: dca %.12g, extrapolated %.12g", what, i,
                  zd[i], rich);
    if (closer) ck_assert_double_gt(fabs(z2[i] - zd[i]) + 1e-9, fabs(rich - zd[i]));
  }
  hy_model_free(m);
}

START_TEST(loop_agrees_with_the_converged_double_step) {
  agrees_with_the_converged_double_step("hdca-case1", 10, 1e-7, 1);
}
END_TEST

// Two loops whose cut joints both move (tests/data/pentagons-uneven.yaml, the two pentagons of
// hdca-case3 with the right chain twice as heavy): DCA at 1e-12 against the converged double-step
// formulation as above, over 5 s. Measured: the double-step at 50 us is 1.9e-6 rad off, the
// extrapolation 1.2e-8 rad.
START_TEST(two_loops_agree_with_the_converged_double_step) {
  agrees_with_the_converged_double_step("tests/data/pentagons-uneven.yaml", 5, 5e-8, 0);
}
END_TEST

// A loop with branches hanging from it (tests/data/four-bar-branches.yaml: hdca-case1 with a
// pendulum on the coupler, a slider on the crank carrying one, and a pendulum on the rocker, which
// the cut joint closes): DCA at 1e-12 against the converged double-step formulation as above,
// over 2 s (the slider, free on the turning crank, is flung 17 m out by then). Measured: the
// double-step at 50 us is 1.2e-6 off, the extrapolation 2.8e-9.
START_TEST(branched_loop_agrees_with_the_converged_double_step) {
  agrees_with_the_converged_double_step("tests/data/four-bar-branches.yaml", 2, 2e-8, 0);
}
END_TEST

// hdca-case3 is mirror-symmetric: the middle bar stays vertical (its coordinate at 0) and each
// right joint turns opposite to its mirror image on the left, under DCA and HDCA (dopri5 at
// 1e-9, 10 s). Bodies: middle, left1..3, right1..3.
START_TEST(case3_stays_mirror_symmetric) {
  const hy_formulation forms[] = {HY_FORM_DCA, HY_FORM_HDCA};
  for (int k = 0; k < 2; k++) {
    hy_model* m = with("hdca-case3", forms[k], HY_INTEG_DOPRI5);
    m->opt.ode_tol = 1e-9;
    hy_data* d = hy_test_make(m);
    double worst = 0, swing = 0;
    for (long s = 0; s < 10000; s++) {
      ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
      worst = fmax(worst, fabs(d->z[0]));
      for (int i = 1; i <= 3; i++) {
        worst = fmax(worst, fabs(d->z[i] + d->z[i + 3]));
        swing = fmax(swing, fabs(d->z[i]));
      }
    }
    ck_assert_msg(worst < 1e-9, "%s: off the mirror by %.3g rad", hy_formulation_name(forms[k]),
                  worst);
    ck_assert_double_gt(swing, 0.5);  // and it does swing
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

// The loops by RK4 at 1 ms against dopri5 at 1e-12 over 0.5 s: the same motion within the
// fourth-order error (measured 1.6e-12 rad on hdca-case1, 1.1e-9 rad on loop-16). The
// formulation's arena once lacked an array's room and overwrote the integrator's state, which
// only the fixed-step methods read back: hdca-case1 drifted 6 J.
START_TEST(loops_step_alike_by_rk4_and_dopri5) {
  const char* what[] = {"hdca-case1", "loop-16"};
  for (int k = 0; k < 2; k++) {
    double zr[16], zd[16];
    run_to(what[k], HY_FORM_DCA, HY_INTEG_RK4, 1e-3, 1e-6, 0.5, zr);
    run_to(what[k], HY_FORM_DCA, HY_INTEG_DOPRI5, 1e-3, 1e-12, 0.5, zd);
    hy_model* m = hy_test_load(what[k]);
    for (int i = 0; i < m->sizes.nz; i++) {
      ck_assert_msg(fabs(zr[i] - zd[i]) < 1e-8, "%s: z[%d] rk4 %.12g, dopri5 %.12g", what[k], i,
                    zr[i], zd[i]);
    }
    hy_model_free(m);
  }
}
END_TEST

Suite* form_dca_suite(void) {
  Suite* s = suite_create("form_dca");
  TCase* tc = tcase_create("dca");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, accelerations_equal_the_tree_formulation);
  tcase_add_test(tc, chain_motion_equals_the_tree_formulation);
  tcase_add_test(tc, hydraulic_crane_equals_the_tree_formulation);
  tcase_add_test(tc, prismatic_joints_equal_the_tree_formulation);
  tcase_add_test(tc, spatial_chain_equals_the_tree_formulation);
  tcase_add_test(tc, branching_trees_equal_the_tree_formulation);
  tcase_add_test(tc, reactions_balance_each_subtree);
  tcase_add_test(tc, cut_reactions_balance_the_mechanism);
  tcase_add_test(tc, loop_agrees_with_the_converged_double_step);
  tcase_add_test(tc, branched_loop_agrees_with_the_converged_double_step);
  tcase_add_test(tc, two_loops_agree_with_the_converged_double_step);
  tcase_add_test(tc, case3_stays_mirror_symmetric);
  tcase_add_test(tc, loops_step_alike_by_rk4_and_dopri5);
  tcase_add_test(tc, models_it_cannot_run_are_refused);
  suite_add_tcase(s, tc);
  return s;
}
