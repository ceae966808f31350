// The planar paths of the kinematics (what hy_mech_kinematics_pos and _vel run on planar models)
// against the 3-D paths (hy_mech_kinematics_pos_general and _vel_general), which are the truth:
// on the planar benchmarks and on random planar trees, whose plane is the x-y plane for some and
// tilted away from every coordinate plane for others, every array the kinematics write must
// agree to round-off at random states. The planar results are written over arrays filled with
// NaN, so an entry they leave unwritten fails too.
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

// Agreement asked of every array, relative to its largest entry: round-off of a few operations
// per body along the paths, with margin.
#define TOL 1e-12

//----- the arrays under test -------------------------------------------------------------------

enum { STAGE_POS, STAGE_VEL };

typedef struct kin_array {
  const char* name;
  int stage;   // written by hy_mech_kinematics_pos or by _vel
  double* at;  // in the data
  int len;
  double* ref;  // what the 3-D path wrote (owned)
} kin_array;

enum { NARRAY = 9 };

// The arrays the two stages write (the rest of the code reads them all; w->jnt_P, which only the
// 3-D velocity stage reads, is left to the 3-D path).
static void kin_arrays(const hy_model* m, hy_data* d, hy_mech_work* w, kin_array a[NARRAY]) {
  const int nb = m->sizes.nbody, nm = m->sizes.nmrk;
  const kin_array list[NARRAY] = {
      {"body_rot", STAGE_POS, d->body_rot, 9 * nb, NULL},
      {"body_pos", STAGE_POS, d->body_pos, 3 * nb, NULL},
      {"body_com", STAGE_POS, d->body_com, 3 * nb, NULL},
      {"mrk_pos", STAGE_POS, d->mrk_pos, 3 * nm, NULL},
      {"jnt_b", STAGE_POS, d->jnt_b, 6 * nb, NULL},
      {"body_Z", STAGE_VEL, d->body_Z, 6 * nb, NULL},
      {"jnt_d", STAGE_VEL, d->jnt_d, 6 * nb, NULL},
      {"body_Zd0", STAGE_VEL, w->body_Zd0, 6 * nb, NULL},
      {"mrk_vel", STAGE_VEL, d->mrk_vel, 3 * nm, NULL},
  };
  for (int k = 0; k < NARRAY; k++) {
    a[k] = list[k];
    a[k].ref = malloc(sizeof(double) * (size_t)(a[k].len > 0 ? a[k].len : 1));
    ck_assert_ptr_nonnull(a[k].ref);
  }
}

static void poison(double* x, int n) {
  for (int i = 0; i < n; i++) x[i] = NAN;
}

// max |a - ref| / max |ref| (the plain difference when ref is all zero); NaN in a fails.
static double rel_diff(const char* what, const double* a, const double* ref, int n) {
  double scale = 0, worst = 0;
  for (int i = 0; i < n; i++) {
    ck_assert_msg(isfinite(a[i]), "%s[%d] is %g: not written", what, i, a[i]);
    scale = fmax(scale, fabs(ref[i]));
    worst = fmax(worst, fabs(a[i] - ref[i]));
  }
  return scale > 0 ? worst / scale : worst;
}

//----- the comparison ----------------------------------------------------------------------------

// Runs the two stages at the data's (z, zd): the planar paths through the dispatching entry
// points, or the 3-D paths.
static void run_stage(const hy_model* m, hy_data* d, hy_mech_work* w, int stage, int planar) {
  if (stage == STAGE_POS) {
    if (planar) {
      hy_mech_kinematics_pos(m, d, w);
      hy_mech_outputs(m, d, w);  // body_rot, which the planar stage leaves to it
    } else {
      hy_mech_kinematics_pos_general(m, d, w);
    }
  } else {
    if (planar) {
      hy_mech_kinematics_vel(m, d, w);
    } else {
      hy_mech_kinematics_vel_general(m, d, w);
    }
  }
}

// Checks the arrays of `stage` against their references; returns the largest relative
// difference and raises worst[k] per array.
static double check_stage(const hy_model* m, kin_array a[NARRAY], int stage, double worst[NARRAY],
                          const char* how, int state) {
  double e = 0;
  for (int k = 0; k < NARRAY; k++) {
    if (a[k].stage != stage) continue;
    const double ek = rel_diff(a[k].name, a[k].at, a[k].ref, a[k].len);
    ck_assert_msg(ek <= TOL, "%s, state %d, %s: %s differs from the 3-D path by %.3g", m->name,
                  state, how, a[k].name, ek);
    worst[k] = fmax(worst[k], ek);
    e = fmax(e, ek);
  }
  return e;
}

// At `nstate` random states of model m (the last with angles of tens of radians): both planar
// stages against both 3-D stages, and the planar velocity stage on its own after the 3-D
// position stage (it may use nothing of the planar position stage but its outputs, and nothing
// left in its turn records w->turn). With `tilted_path`, a model on the x-y plane takes the
// tilted-plane path instead of the x-y paths, as one with a slide along z does (xy_fast = 0).
// Returns the largest relative difference of any array.
static double compare_paths(const hy_model* m, unsigned seed, int nstate, int tilted_path,
                            double worst[NARRAY]) {
  ck_assert_int_eq(m->planar, 1);
  hy_data* d = hy_test_make(m);
  hy_work* work = d->work_;
  hy_mech_work* w = &work->mech;
  if (tilted_path) {
    ck_assert_int_eq(m->plane_xy[0], 1);
    w->xy_fast = 0;
    w->xy_chain = 0;
  }
  const int nz = m->sizes.nz, nb = m->sizes.nbody;
  kin_array a[NARRAY];
  kin_arrays(m, d, w, a);
  unsigned st = seed;
  double e = 0;
  for (int s = 0; s < nstate; s++) {
    const double spread = s == nstate - 1 ? 40.0 : 1.5;
    for (int i = 0; i < nz; i++) {
      d->z[i] = m->z0[i] + random_uniform(&st, -spread, spread);
      d->zd[i] = random_uniform(&st, -2, 2);
    }
    for (int stage = STAGE_POS; stage <= STAGE_VEL; stage++) run_stage(m, d, w, stage, 0);
    for (int k = 0; k < NARRAY; k++) memcpy(a[k].ref, a[k].at, sizeof(double) * (size_t)a[k].len);

    // 3-D positions, planar velocities
    for (int k = 0; k < NARRAY; k++) {
      if (a[k].stage == STAGE_VEL) poison(a[k].at, a[k].len);
    }
    poison(w->turn, HY_MECH_TURN_SIZE * nb);
    run_stage(m, d, w, STAGE_VEL, 1);
    e = fmax(e, check_stage(m, a, STAGE_VEL, worst, "velocities after the 3-D positions", s));

    // both planar, with the scratch spoilt between the stages; the entries that are constant on
    // the x-y plane are written once per data, and again after hy_mech_forget_turns
    for (int k = 0; k < NARRAY; k++) poison(a[k].at, a[k].len);
    poison(w->turn, HY_MECH_TURN_SIZE * nb);
    hy_mech_forget_turns(m, w);
    run_stage(m, d, w, STAGE_POS, 1);
    // what shows that the dispatch took the planar path: it keeps its turns in w->turn (the cos
    // of body 0's, which every planar path stores; a chain keeps the angle in registers)
    ck_assert(isfinite(w->turn[1]));
    e = fmax(e, check_stage(m, a, STAGE_POS, worst, "positions", s));
    poison(w->turn, HY_MECH_TURN_SIZE * nb);
    run_stage(m, d, w, STAGE_VEL, 1);
    e = fmax(e, check_stage(m, a, STAGE_VEL, worst, "velocities", s));

    // nearby states, as in Newton iterations and slow steps: the planar positions then take
    // cos and sin from the last libm evaluation (w->turn_ref) by the addition theorem, and the
    // bodies with revolute joints keep that base (the changes add up along a path of up to 12
    // joints and over the three states: at most 6.2e-4 rad, within the 1e-3 of the series)
    const double nearby[] = {3e-10, 2e-6, 5e-5};
    for (int q = 0; q < 3; q++) {
      for (int i = 0; i < nz; i++) d->z[i] += nearby[q] * (random_uniform(&st, 0, 1) < 0.5 ? -1 : 1);
      run_stage(m, d, w, STAGE_POS, 0);
      for (int k = 0; k < NARRAY; k++) memcpy(a[k].ref, a[k].at, sizeof(double) * (size_t)a[k].len);
      double base[64];
      const int nbase = nb < 64 ? nb : 64;
      for (int j = 0; j < nbase; j++) base[j] = w->turn_ref[3 * j];
      for (int k = 0; k < NARRAY; k++) {
        if (a[k].stage == STAGE_POS) poison(a[k].at, a[k].len);
      }
      run_stage(m, d, w, STAGE_POS, 1);
      e = fmax(e, check_stage(m, a, STAGE_POS, worst, "positions nearby", s));
      for (int j = 0; j < nbase; j++) {
        if (m->jnt_type[j] != HY_JOINT_REVOLUTE) continue;
        ck_assert_msg(w->turn_ref[3 * j] == base[j], "%s: body %d called libm %.3g rad away",
                      m->name, j, nearby[q]);
      }
    }
  }
  for (int k = 0; k < NARRAY; k++) free(a[k].ref);
  hy_data_free(d);
  return e;
}

static void print_worst(const char* what, const double worst[NARRAY]) {
  static const char* const names[NARRAY] = {"body_rot", "body_pos", "body_com", "mrk_pos", "jnt_b",
                                            "body_Z",   "jnt_d",    "body_Zd0", "mrk_vel"};
  printf("planar vs 3-D kinematics, %s: largest relative difference", what);
  for (int k = 0; k < NARRAY; k++) printf(" %s %.2g", names[k], worst[k]);
  printf("\n");
}

START_TEST(benchmarks_match_3d_path) {
  static const char* const models[] = {"four-bar-a",
                                       "quick-return",
                                       "four-bar-b",
                                       "crane",
                                       "four-bar-a-released",
                                       "quick-return-released",
                                       "tests/data/crank_rocker.yaml"};
  const int nmodel = (int)(sizeof models / sizeof models[0]);
  double worst[NARRAY] = {0};
  for (int k = 0; k < nmodel; k++) {
    hy_model* m = hy_test_load(models[k]);
    compare_paths(m, 200u + (unsigned)k, 6, 0, worst);
    hy_model_free(m);
  }
  print_worst("benchmarks", worst);
}
END_TEST

// Planes with tilted normals and planes with normal +-z, the benchmarks' case, for which the
// planar paths skip the components that are zero on the x-y plane (m->plane_xy). The trees on
// the x-y plane also go through the tilted-plane path, which takes x-y models with a slide
// along z.
START_TEST(random_planar_trees_match_3d_path) {
  double worst[NARRAY] = {0};
  int xy = 0, other = 0;
  for (unsigned seed = 1; seed <= 12; seed++) {
    unsigned st = seed * 7919u;
    double n[3] = {0, 0, 1};
    if (seed % 3 != 0) random_tilted_normal(&st, n);
    hy_model* m = random_planar_tree(seed, 6 + (int)(seed % 7), n);
    ck_assert(fabs(fabs(hy_v3_dot(m->plane_normal, n)) - 1) < 1e-12);
    if (m->plane_xy[0]) {
      xy++;
      compare_paths(m, seed * 37u, 3, 1, worst);
    } else {
      other++;
    }
    compare_paths(m, seed * 31u, 6, 0, worst);
    hy_model_free(m);
  }
  ck_assert_int_gt(xy, 0);
  ck_assert_int_gt(other, 0);
  print_worst("random planar trees", worst);
}
END_TEST

Suite* mech_kinematics_planar_suite(void) {
  Suite* s = suite_create("mech_kinematics_planar");
  TCase* tc = tcase_create("planar");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, benchmarks_match_3d_path);
  tcase_add_test(tc, random_planar_trees_match_3d_path);
  suite_add_tcase(s, tc);
  return s;
}
