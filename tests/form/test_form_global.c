// The global-coordinate formulations ALI1 and ALI3-P (001_004ef98543c36dde.txt Sect. 2.1)
// against a second formulation, the semi-recursive penalty one: the same trajectories in the
// relative coordinates mapped from q, on an open tree with hydraulics (the crane), a closed loop
// with hydraulics (four-bar A) and a loop with prismatic and translational joints
// (quick-return). Also ALI1's first order, the energies, and bit-exact save and restore.
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/hydyn.h"
#include "sim/sim.h"

// Largest |z_a - z_b| over the steps of a run of t_end at dt with each formulation.
static double max_z_difference(const char* model, hy_formulation a, hy_formulation b, double dt,
                               double t_end) {
  hy_model* ma = hy_test_load(model);
  hy_model* mb = hy_test_load(model);
  ma->opt.formulation = a;
  mb->opt.formulation = b;
  ma->opt.integrator = mb->opt.integrator = HY_INTEG_AUTO;
  ma->opt.dt = mb->opt.dt = dt;
  hy_data* da = hy_test_make(ma);
  hy_data* db = hy_test_make(mb);
  const long n = lround(t_end / dt);
  double worst = 0;
  for (long k = 0; k < n; k++) {
    ck_assert_int_eq(hy_step(ma, da), HY_OK);
    ck_assert_int_eq(hy_step(mb, db), HY_OK);
    for (int i = 0; i < ma->sizes.nz; i++) worst = fmax(worst, fabs(da->z[i] - db->z[i]));
  }
  hy_data_free(da);
  hy_data_free(db);
  hy_model_free(ma);
  hy_model_free(mb);
  return worst;
}

START_TEST(ali3p_matches_penalty_on_the_crane) {
  // the whole 10 s work cycle, into the rod-side end damper and back
  const double e = max_z_difference("crane", HY_FORM_ALI3P, HY_FORM_PENALTY, 1e-3, 10);
  ck_assert_double_le(e, 1e-6);  // measured 5.8e-9 rad
}
END_TEST

START_TEST(ali3p_matches_penalty_on_four_bar_a) {
  const double e = max_z_difference("four-bar-a", HY_FORM_ALI3P, HY_FORM_PENALTY, 1e-3, 10);
  ck_assert_double_le(e, 1e-6);  // measured 1.7e-9 rad
}
END_TEST

START_TEST(ali3p_matches_penalty_with_prismatic_and_translational_joints) {
  const double e = max_z_difference("quick-return", HY_FORM_ALI3P, HY_FORM_PENALTY, 1e-3, 10);
  ck_assert_double_le(e, 1e-6);  // measured 1.1e-7 (rad or m)
}
END_TEST

// Seal friction with states (LuGre, the film law): the friction states are further unknowns of
// ALI3-P's Newton iteration, as of penalty's.
START_TEST(ali3p_matches_penalty_with_friction_states) {
  const double lugre = max_z_difference("four-bar-b-lugre", HY_FORM_ALI3P, HY_FORM_PENALTY, 1e-3, 10);
  ck_assert_double_le(lugre, 1e-6);
  const double film =
      max_z_difference("four-bar-b-lugre-film", HY_FORM_ALI3P, HY_FORM_PENALTY, 1e-3, 10);
  ck_assert_double_le(film, 1e-6);
}
END_TEST

// ALI3-P's analytic tangent against central differences of its residual, at states in motion:
// the crane in its rod-side end damper, four-bar B with the film friction law (pressure, friction
// and coordinate blocks). Entries must agree to 1e-4 of themselves, or to a fraction of the
// largest entry of their block (rows and columns grouped into coordinates, pressures, friction
// states): 1e-6 in the mechanical block (the second derivatives of the geometry the analytic
// tangent leaves out are that small beside the mass and penalty terms), 1e-9 in the others.
START_TEST(ali3p_tangent_matches_finite_differences) {
  const struct {
    const char* model;
    long steps;
  } cases[] = {{"crane", 5800}, {"four-bar-b-lugre-film", 2500}, {"four-bar-a", 3000}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    hy_model* m = hy_test_load(cases[c].model);
    m->opt.formulation = HY_FORM_ALI3P;
    hy_data* d = hy_test_make(m);
    hy_test_steps(m, d, cases[c].steps);
    hy_form* f = hy_sim_form(m, d);
    const int n = hy_form_global_unknowns(f), nq = n - m->sizes.nvol - m->sizes.nfric;
    double* A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double* F = malloc(sizeof(double) * (size_t)n * (size_t)n);
    const double z0 = d->z[0];
    hy_form_global_tangents(f, m->opt.dt, A, F);
    ck_assert_double_eq(d->z[0], z0);  // the state is as it was
    // blocks by unknown kind: coordinates, pressures, friction states
    const int np = m->sizes.nvol;
#define KIND(i) ((i) < nq ? 0 : (i) < nq + np ? 1 : 2)
    double block[3][3] = {{0}};
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        block[KIND(i)][KIND(j)] = fmax(block[KIND(i)][KIND(j)], fabs(F[i * n + j]));
      }
    }
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        const double a = A[i * n + j], fd = F[i * n + j], top = block[KIND(i)][KIND(j)];
        // the mechanical block leaves out the geometry's second derivatives; the blocks of the
        // pressures and friction states are whole
        const double floor = (KIND(i) == 0 && KIND(j) == 0 ? 1e-6 : 1e-9) * top;
        ck_assert_msg(fabs(a - fd) <= 1e-4 * fabs(fd) + floor,
                      "%s: tangent (%d, %d) of %d: analytic %.9g, differences %.9g (block %.3g)",
                      cases[c].model, i, j, n, a, fd, top);
      }
    }
#undef KIND
    free(A);
    free(F);
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

// ALI1 integrates with first-order semi-implicit Euler and the pressures with forward Euler:
// it agrees with penalty to 1e-6 rad at a small step, and its error falls tenfold with the step.
START_TEST(ali1_converges_to_penalty_first_order) {
  const double coarse = max_z_difference("crane", HY_FORM_ALI1, HY_FORM_PENALTY, 1e-4, 0.6);
  const double fine = max_z_difference("crane", HY_FORM_ALI1, HY_FORM_PENALTY, 1e-5, 0.6);
  ck_assert_double_le(fine, 1e-6);
  ck_assert_double_ge(coarse / fine, 7);
  ck_assert_double_le(coarse / fine, 13);
}
END_TEST

START_TEST(ali1_converges_on_four_bar_a) {
  // penalty's alpha = 1e11 is ill-conditioned at so small a step (h^2 alpha / 4 against M):
  // the double-step formulation is the comparator here
  const double fine = max_z_difference("four-bar-a", HY_FORM_ALI1, HY_FORM_DOUBLE_STEP, 1e-5, 0.5);
  ck_assert_double_le(fine, 1e-6);
}
END_TEST

// The energies come from q (not from the relative coordinates mapped from it): ALI3-P keeps the
// total energy of the released four-bar, ALI1 drifts with its first-order error (it gains energy
// here: 34.9 J in 10 s at 1 ms; 1.5 J in 2 s at 0.1 ms, 0.15 J at 0.01 ms).
START_TEST(energy_of_the_released_four_bar) {
  double drift[2];
  const hy_formulation forms[2] = {HY_FORM_ALI3P, HY_FORM_ALI1};
  for (int k = 0; k < 2; k++) {
    hy_model* m = hy_test_load("four-bar-a-released");
    m->opt.formulation = forms[k];
    m->opt.integrator = HY_INTEG_AUTO;
    hy_data* d = hy_test_make(m);
    const double e0 = hy_energy_total(d);
    drift[k] = 0;
    for (int s = 0; s < 2000; s++) {
      ck_assert_int_eq(hy_step(m, d), HY_OK);
      drift[k] = fmax(drift[k], fabs(hy_energy_total(d) - e0));
    }
    hy_data_free(d);
    hy_model_free(m);
  }
  ck_assert_double_le(drift[0], 0.01);  // J, of a potential energy of 662 J
  ck_assert_double_ge(drift[1], 1);     // ALI1's drift is a thousand times larger
}
END_TEST

// HY_STATE_FULL saves a data by value for the global formulations too.
START_TEST(save_and_restore_is_bit_exact) {
  const hy_formulation forms[2] = {HY_FORM_ALI3P, HY_FORM_ALI1};
  for (int k = 0; k < 2; k++) {
    hy_model* m = hy_test_load("four-bar-a");
    m->opt.formulation = forms[k];
    m->opt.integrator = HY_INTEG_AUTO;
    if (forms[k] == HY_FORM_ALI1) m->opt.dt = 1e-4;
    hy_data* d = hy_test_make(m);
    hy_test_steps(m, d, 300);
    const int n = hy_state_size(m, d, HY_STATE_FULL);
    double* saved = malloc(sizeof(double) * (size_t)n);
    double* first = malloc(sizeof(double) * (size_t)n);
    double* second = malloc(sizeof(double) * (size_t)n);
    ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, saved), HY_OK);
    hy_test_steps(m, d, 200);
    ck_assert_int_eq(hy_state_get(m, d, HY_STATE_FULL, first), HY_OK);
    // into a fresh data of the same model
    hy_data* e = hy_test_make(m);
    ck_assert_int_eq(hy_state_set(m, e, HY_STATE_FULL, saved), HY_OK);
    hy_test_steps(m, e, 200);
    ck_assert_int_eq(hy_state_get(m, e, HY_STATE_FULL, second), HY_OK);
    hy_test_same_bits(first, second, n, "the state 200 steps after a restore");
    free(saved);
    free(first);
    free(second);
    hy_data_free(d);
    hy_data_free(e);
    hy_model_free(m);
  }
}
END_TEST

// hy_forward at a state reached by stepping maps z to q and back: the same z, and accelerations
// consistent with the trajectory (those of the ALI1 iteration at q: the step's own, projected,
// differ by the step's error only).
START_TEST(forward_keeps_the_state) {
  hy_model* m = hy_test_load("crane");
  m->opt.formulation = HY_FORM_ALI3P;
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 6000);  // into the rod-side damper, theta1 far from its start
  double z[2], zdd[2];
  memcpy(z, d->z, sizeof z);
  memcpy(zdd, d->zdd, sizeof zdd);
  ck_assert_int_eq(hy_forward(m, d), HY_OK);
  for (int i = 0; i < 2; i++) {
    ck_assert_double_le(fabs(d->z[i] - z[i]), 1e-12);
    ck_assert_double_le(fabs(d->zdd[i] - zdd[i]), 1e-3 * (1 + fabs(zdd[i])));
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

START_TEST(no_allocation_in_a_step) {
  hy_model* m = hy_test_load("four-bar-a");
  m->opt.formulation = HY_FORM_ALI3P;
  hy_data* d = hy_test_make(m);
  hy_test_count_allocs_begin();
  for (int s = 0; s < 50; s++) hy_step(m, d);
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// What the global formulations cannot run is refused with the reason.
START_TEST(refusals) {
  hy_error err;
  hy_model* m = hy_test_load("crane");
  m->opt.formulation = HY_FORM_ALI3P;
  m->opt.integrator = HY_INTEG_RK4;
  hy_data* d = NULL;
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "own integrator"));
  hy_model_free(m);
  m = hy_test_load("double-pendulum");  // spatial
  m->opt.formulation = HY_FORM_ALI1;
  m->opt.integrator = HY_INTEG_AUTO;
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "planar"));
  hy_model_free(m);
}
END_TEST

Suite* form_global_suite(void) {
  Suite* s = suite_create("form_global");
  TCase* tc = tcase_create("global");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, ali3p_matches_penalty_on_the_crane);
  tcase_add_test(tc, ali3p_matches_penalty_on_four_bar_a);
  tcase_add_test(tc, ali3p_matches_penalty_with_prismatic_and_translational_joints);
  tcase_add_test(tc, ali3p_matches_penalty_with_friction_states);
  tcase_add_test(tc, ali3p_tangent_matches_finite_differences);
  tcase_add_test(tc, ali1_converges_to_penalty_first_order);
  tcase_add_test(tc, ali1_converges_on_four_bar_a);
  tcase_add_test(tc, energy_of_the_released_four_bar);
  tcase_add_test(tc, save_and_restore_is_bit_exact);
  tcase_add_test(tc, forward_keeps_the_state);
  tcase_add_test(tc, no_allocation_in_a_step);
  tcase_add_test(tc, refusals);
  suite_add_tcase(s, tc);
  return s;
}
