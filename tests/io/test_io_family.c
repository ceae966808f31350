// Built-in model families (shared/seeds/hdca_cases.md): the initial energies given there, loops
// closed at t = 0 without assembly, the centres of mass at the stated geometry (recomputed here
// from the circumscribed circle, a different formula from the library's sum of sides), degrees
// of freedom, the mirror symmetry of case 3, energy conservation over a short run, the listing
// API, strict name parsing, and failed allocations that leave no block behind.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/model.h"
#include "hydyn/sim.h"

static const double kPi = 3.14159265358979323846;
static const double kG = 9.81;

//----- helpers -------------------------------------------------------------------------------

static hy_model* family_ok(const char* name) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_family(name, &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_OK, "building %s failed: %s", name, buf);
  ck_assert_ptr_nonnull(m);
  return m;
}

// Builds `name`, makes its data (t = 0: loops closed) and returns both.
static hy_data* family_data(const char* name, hy_model** m) {
  *m = family_ok(name);
  return hy_test_make(*m);
}

// E(0) of `name` after hy_data_make equals `want` (hdca_cases.md, rounded there) within 1e-6 J.
static void check_energy0(const char* name, double want) {
  hy_model* m;
  hy_data* d = family_data(name, &m);
  const double e = hy_energy_total(d);
  ck_assert_msg(fabs(e - want) <= 1e-6, "%s: E(0) = %.10f J, hdca_cases.md gives %.10f J", name, e,
                want);
  ck_assert_msg(e == d->energy_kin + d->energy_pot, "%s: work before the first step", name);
  ck_assert_double_eq(d->energy_kin, 0.0);
  hy_data_free(d);
  hy_model_free(m);
}

// Vertex k of loop-N's regular (N+1)-gon with 1 m sides, from its circumscribed circle: centre
// (1/2, -cot(pi/(N+1))/2), radius 1/(2 sin(pi/(N+1))), P(k) at the angle pi/2 + (k + 1/2) 2pi/(N+1)
// (P0 = (0, 0), P(N) = (1, 0)).
static void polygon_vertex(int n, int k, double p[2]) {
  const double half = kPi / (n + 1);
  const double r = 0.5 / sin(half);
  const double a = 0.5 * kPi + (2 * k + 1) * half;
  p[0] = 0.5 + r * cos(a);
  p[1] = -0.5 / tan(half) + r * sin(a);
}

// Centre of mass of body `body` is at c (m), within tol.
static void check_com(const hy_model* m, const hy_data* d, const char* body, double cx, double cy,
                      double tol) {
  const int b = hy_model_body(m, body);
  ck_assert_msg(b >= 0, "%s: no body '%s'", m->name, body);
  const double* g = d->body_com + 3 * b;
  ck_assert_msg(fabs(g[0] - cx) <= tol && fabs(g[1] - cy) <= tol && g[2] == 0,
                "%s: centre of mass of '%s' at (%.17g, %.17g, %g), expected (%.17g, %.17g, 0)",
                m->name, body, g[0], g[1], g[2], cx, cy);
}

// The loops are closed at t = 0 as built: no assembly was needed.
static void check_closed(const hy_model* m, const hy_data* d) {
  ck_assert_msg(d->violation <= 1e-12, "%s: loop violation %.3g m at t = 0", m->name, d->violation);
  ck_assert_msg(d->assembly_shift <= 1e-12, "%s: assembly moved the coordinates by %.3g", m->name,
                d->assembly_shift);
}

//----- initial energies of hdca_cases.md -----------------------------------------------------

START_TEST(test_energy0_loops) {
  check_energy0("loop-4", -33.7557666);
  check_energy0("loop-16", -446.070351);
  check_energy0("loop-64", -6591.397411);
}
END_TEST

START_TEST(test_energy0_cases) {
  check_energy0("hdca-case1", 8.495709211);
  check_energy0("hdca-case2", -94.73374019);
  check_energy0("hdca-case3", -47.17645671);
}
END_TEST

START_TEST(test_energy0_chains) {
  const char* names[] = {"chain-1", "chain-8", "chain-100"};
  for (int i = 0; i < 3; i++) {
    hy_model* m;
    hy_data* d = family_data(names[i], &m);
    ck_assert_msg(fabs(hy_energy_total(d)) <= 1e-12, "%s: E(0) = %g J", names[i],
                  hy_energy_total(d));
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

//----- geometry ------------------------------------------------------------------------------

START_TEST(test_loop_geometry) {
  const int ns[] = {2, 3, 4, 16, 64, 256};
  for (int i = 0; i < 6; i++) {
    const int n = ns[i];
    char name[32];
    snprintf(name, sizeof name, "loop-%d", n);
    hy_model* m;
    hy_data* d = family_data(name, &m);
    ck_assert_str_eq(m->name, name);
    ck_assert_int_eq(m->sizes.nbody, n);
    ck_assert_int_eq(m->sizes.nz, n);
    ck_assert_int_eq(m->sizes.ncut, 1);
    ck_assert_int_eq(m->sizes.neq, 2);  // planar: one revolute cut joint gives 2 equations
    ck_assert_int_eq(m->planar, 1);
    check_closed(m, d);
    ck_assert_int_eq(d->rank, 2);
    ck_assert_int_eq(d->ndof, n - 2);
    // bar k from P(k-1) to P(k), centre of mass at the midpoint; E(0) from the same vertices
    double e = 0;
    for (int k = 1; k <= n; k++) {
      double a[2], b[2];
      polygon_vertex(n, k - 1, a);
      polygon_vertex(n, k, b);
      char body[32];
      snprintf(body, sizeof body, "bar%d", k);
      check_com(m, d, body, 0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 1e-12);
      e += kG * 0.5 * (a[1] + b[1]);
    }
    ck_assert_msg(fabs(hy_energy_total(d) - e) <= 1e-12 * fabs(e),
                  "%s: E(0) = %.15g J, vertices "
                  "give %.15g J",
                  name, hy_energy_total(d), e);
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

START_TEST(test_chain_geometry) {
  hy_model* m;
  hy_data* d = family_data("chain-8", &m);
  ck_assert_str_eq(m->name, "chain-8");
  ck_assert_int_eq(m->sizes.nbody, 8);
  ck_assert_int_eq(m->sizes.ncut, 0);
  ck_assert_int_eq(d->ndof, 8);
  for (int k = 1; k <= 8; k++) {
    char body[32], joint[32];
    snprintf(body, sizeof body, "bar%d", k);
    snprintf(joint, sizeof joint, "j%d", k);
    check_com(m, d, body, k - 0.5, 0.0, 0.0);
    const int j = hy_model_joint(m, joint);
    ck_assert_int_ge(j, 0);
    ck_assert_int_eq(m->jnt_type[j], HY_JOINT_REVOLUTE);
    ck_assert_double_eq(m->jnt_paxis[3 * j + 2], 1.0);  // +z
    char parent[32];
    snprintf(parent, sizeof parent, "bar%d", k - 1);
    ck_assert_int_eq(m->body_parent[j], k == 1 ? -1 : hy_model_body(m, parent));
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Bodies: 1 kg; thin rods with 0 about their own axis and 1/12 kg m^2 about the two others, the
// cases diag(1, 1, 1); z0 = 0 and zd0 = 0 everywhere; the solver section of hdca_cases.md.
START_TEST(test_bodies_and_options) {
  const char* names[] = {"chain-3", "loop-16", "hdca-case1", "hdca-case2", "hdca-case3"};
  for (int i = 0; i < 5; i++) {
    hy_model* m;
    hy_data* d = family_data(names[i], &m);
    const int rod = i < 2;
    ck_assert_double_eq(m->opt.dt, 1e-3);
    ck_assert_double_eq(m->opt.t_end, 10.0);
    ck_assert_double_eq(m->opt.gravity[0], 0.0);
    ck_assert_double_eq(m->opt.gravity[1], -9.81);
    ck_assert_double_eq(m->opt.gravity[2], 0.0);
    for (int z = 0; z < m->sizes.nz; z++) {
      ck_assert_double_eq(m->z0[z], 0.0);
      ck_assert_double_eq(m->zd0[z], 0.0);
    }
    for (int b = 0; b < m->sizes.nbody; b++) {
      ck_assert_double_eq(m->body_mass[b], 1.0);
      const double* J = m->body_inertia + 9 * b;
      ck_assert_double_eq_tol(J[8], rod ? 1.0 / 12 : 1.0, 1e-17);
      ck_assert_double_eq(J[2] + J[5] + J[6] + J[7], 0.0);
      // the bar's direction u (centre of mass minus joint point, doubled): J u = along u,
      // J v = across v for v = z x u
      const double* g = d->body_com + 3 * b;
      const double* o = d->body_pos + 3 * b;
      const double u[2] = {2 * (g[0] - o[0]), 2 * (g[1] - o[1])};
      ck_assert_double_eq_tol(hypot(u[0], u[1]), 1.0, 1e-12);
      const double v[2] = {-u[1], u[0]};
      const double along = rod ? 0.0 : 1.0, across = rod ? 1.0 / 12 : 1.0;
      for (int r = 0; r < 2; r++) {
        ck_assert_double_eq_tol(J[3 * r] * u[0] + J[3 * r + 1] * u[1], along * u[r], 1e-12);
        ck_assert_double_eq_tol(J[3 * r] * v[0] + J[3 * r + 1] * v[1], across * v[r], 1e-12);
      }
    }
    hy_data_free(d);
    hy_model_free(m);
  }
}
END_TEST

START_TEST(test_case1_geometry) {
  hy_model* m;
  hy_data* d = family_data("hdca-case1", &m);
  check_closed(m, d);
  ck_assert_int_eq(d->ndof, 1);
  const double h = 0.5 * sqrt(3.0);  // C = (1.5, h)
  check_com(m, d, "crank", 0.5, 0.0, 1e-15);
  check_com(m, d, "coupler", 1.25, 0.5 * h, 1e-15);
  check_com(m, d, "rocker", 1.75, 0.5 * h, 1e-15);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

START_TEST(test_case2_geometry) {
  hy_model* m;
  hy_data* d = family_data("hdca-case2", &m);
  check_closed(m, d);
  ck_assert_int_eq(d->ndof, 5);
  for (int k = 1; k <= 7; k++) {
    double a[2], b[2];
    polygon_vertex(7, k - 1, a);  // the octagon is loop-7's polygon
    polygon_vertex(7, k, b);
    char body[32];
    snprintf(body, sizeof body, "bar%d", k);
    check_com(m, d, body, 0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 1e-14);
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Case 3's left pentagon G1, G0, L1, L2, X: regular with 1 m sides (circumradius 1/(2 sin 36
// deg), centre on the bisector of G1 X); the right chain mirrors it.
START_TEST(test_case3_geometry) {
  hy_model* m;
  hy_data* d = family_data("hdca-case3", &m);
  check_closed(m, d);
  ck_assert_int_eq(m->sizes.ncut, 2);
  ck_assert_int_eq(m->sizes.neq, 4);
  ck_assert_int_eq(d->rank, 4);
  ck_assert_int_eq(d->ndof, 3);
  const double r = 0.5 / sin(kPi / 5), cx = -sqrt(r * r - 0.25), cy = -0.5;
  double v[5][2];  // G1, G0, L1, L2, X: counter-clockwise about the centre
  for (int k = 0; k < 5; k++) {
    const double a = atan2(0.5, -cx) + 2 * kPi / 5 * k;  // G1 = (0, 0) first
    v[k][0] = cx + r * cos(a);
    v[k][1] = cy + r * sin(a);
  }
  ck_assert_double_eq_tol(v[4][0], 0.0, 1e-15);  // X = (0, -1)
  ck_assert_double_eq_tol(v[4][1], -1.0, 1e-15);
  const char* left[] = {"left1", "left2", "left3"};
  const char* right[] = {"right1", "right2", "right3"};
  for (int k = 0; k < 3; k++) {
    const double x = 0.5 * (v[k + 1][0] + v[k + 2][0]), y = 0.5 * (v[k + 1][1] + v[k + 2][1]);
    check_com(m, d, left[k], x, y, 1e-15);
    check_com(m, d, right[k], -x, y, 1e-15);
  }
  check_com(m, d, "middle", 0.0, -0.5, 0.0);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- motion --------------------------------------------------------------------------------

// Case 3 stays mirror-symmetric: after each step of 0.5 s with the default formulation the
// middle bar is still vertical (its tip on x = 0; hanging from G1 it then stays at rest) and
// each right bar mirrors its left twin, while the side chains swing. Measured with penalty: the
// tip strays by up to 5e-12 m (round-off); the bound leaves a factor 20.
START_TEST(test_case3_symmetry) {
  hy_model* m;
  hy_data* d = family_data("hdca-case3", &m);
  const int tip = hy_model_marker(m, "middle-X");
  ck_assert_int_ge(tip, 0);
  const char* left[] = {"left1", "left2", "left3"};
  const char* right[] = {"right1", "right2", "right3"};
  const int l2 = hy_model_body(m, "left2");
  const double g0[2] = {d->body_com[3 * l2], d->body_com[3 * l2 + 1]};
  const int steps = (int)lround(0.5 / m->opt.dt);
  double tilt = 0, moved = 0;  // largest |x| of the middle bar's tip, of left2's displacement
  for (int i = 0; i < steps; i++) {
    ck_assert_int_eq(hy_step(m, d), HY_OK);
    tilt = fmax(tilt, fabs(d->mrk_pos[3 * tip]));
    const double* g = d->body_com + 3 * l2;
    moved = fmax(moved, hypot(g[0] - g0[0], g[1] - g0[1]));
    for (int k = 0; k < 3; k++) {
      const double* gl = d->body_com + 3 * hy_model_body(m, left[k]);
      const double* gr = d->body_com + 3 * hy_model_body(m, right[k]);
      ck_assert_msg(fabs(gl[0] + gr[0]) <= 1e-10 && fabs(gl[1] - gr[1]) <= 1e-10,
                    "'%s' and '%s' not mirrored at t = %g s", left[k], right[k], d->time);
    }
  }
  ck_assert_double_eq_tol(d->time, 0.5, 1e-12);
  ck_assert_msg(tilt <= 1e-10, "middle bar tilted: its tip strayed %.3g m from x = 0", tilt);
  ck_assert_msg(moved > 0.05, "the side chains hardly moved (%.3g m)", moved);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Largest |E(t) - E(0)| over `seconds`, relative to the largest kinetic energy (the energy
// that moves; E(0) itself depends on where the potential is zero).
static double relative_drift(const char* name, double seconds) {
  hy_model* m;
  hy_data* d = family_data(name, &m);
  const double e0 = hy_energy_total(d);
  const int steps = (int)lround(seconds / m->opt.dt);
  double drift = 0, kin = 0;
  for (int i = 0; i < steps; i++) {
    ck_assert_int_eq(hy_step(m, d), HY_OK);
    drift = fmax(drift, fabs(hy_energy_total(d) - e0));
    kin = fmax(kin, d->energy_kin);
  }
  ck_assert_msg(kin > 1.0, "%s hardly moved (E_kin %.3g J)", name, kin);
  hy_data_free(d);
  hy_model_free(m);
  return drift / kin;
}

START_TEST(test_energy_conserved) {
  // loop-16, penalty formulation, trapezoidal rule: measured 5.5e-5 J of 27 J, 2.0e-6
  double rel = relative_drift("loop-16", 0.2);
  ck_assert_msg(rel <= 2e-5, "loop-16: relative energy drift %.3g over 0.2 s", rel);
  // chain-8, tree formulation, rk4: measured 6.2e-11 J of 15 J, 4.2e-12
  rel = relative_drift("chain-8", 0.2);
  ck_assert_msg(rel <= 1e-10, "chain-8: relative energy drift %.3g over 0.2 s", rel);
}
END_TEST

//----- names and listing ---------------------------------------------------------------------

START_TEST(test_listing) {
  const int n = hy_family_count();
  ck_assert_int_eq(n, 5);
  ck_assert_ptr_null(hy_family_pattern(-1));
  ck_assert_ptr_null(hy_family_pattern(n));
  ck_assert_ptr_null(hy_family_description(-1));
  ck_assert_ptr_null(hy_family_description(n));
  ck_assert_str_eq(hy_family_pattern(0), "chain-N");
  ck_assert_str_eq(hy_family_pattern(1), "loop-N");
  ck_assert_str_eq(hy_family_pattern(2), "hdca-case1");
  ck_assert_str_eq(hy_family_pattern(3), "hdca-case2");
  ck_assert_str_eq(hy_family_pattern(4), "hdca-case3");
  // every pattern, with N = 5 for the families with N, names a model that builds
  for (int i = 0; i < n; i++) {
    const char* pat = hy_family_pattern(i);
    const char* desc = hy_family_description(i);
    ck_assert_ptr_nonnull(desc);
    ck_assert_msg(strlen(desc) > 10 && !strchr(desc, '\n'), "description %d: '%s'", i, desc);
    char name[64];
    snprintf(name, sizeof name, "%s", pat);
    char* N = strchr(name, 'N');
    if (N) {
      ck_assert_str_eq(N, "N");
      char range[32];
      snprintf(range, sizeof range, "..%d", HY_FAMILY_N_MAX);
      ck_assert_msg(strstr(desc, range) != NULL, "'%s' does not give the range of N", desc);
      strcpy(N, "5");
    }
    ck_assert_int_eq(hy_family_find(name), i);
    hy_model* m = family_ok(name);
    ck_assert_str_eq(m->name, name);
    hy_model_free(m);
  }
  ck_assert_int_eq(hy_family_find("loop-0"), 1);  // the form of loop-N, an invalid N
  ck_assert_int_eq(hy_family_find("loop"), -1);
  ck_assert_int_eq(hy_family_find("hdca-case4"), -1);
  ck_assert_int_eq(hy_family_find("four-bar-a"), -1);
  ck_assert_int_eq(hy_family_find(NULL), -1);
}
END_TEST

START_TEST(test_bad_names) {
  char loop_range[64], chain_range[64], above[32];
  snprintf(loop_range, sizeof loop_range, "(loop-N takes N = 2..%d)", HY_FAMILY_N_MAX);
  snprintf(chain_range, sizeof chain_range, "(chain-N takes N = 1..%d)", HY_FAMILY_N_MAX);
  snprintf(above, sizeof above, "loop-%d", HY_FAMILY_N_MAX + 1);
  struct {
    const char* name;
    const char* says;  // part of the message
  } bad[] = {
      {"loop-", "N is missing"},
      {"loop-", loop_range},
      {"loop-0", "N is out of range"},
      {"loop-0", loop_range},
      {"loop-1", "N is out of range"},
      {above, "N is out of range"},
      {"loop-99999999999", "N is out of range"},
      {"loop-99999999999", loop_range},
      {"loop-1x", "N must be a whole number in decimal digits"},
      {"loop-1x", loop_range},
      {"loop--4", "whole number"},
      {"loop-+4", "whole number"},
      {"loop- 4", "whole number"},
      {"loop-4 ", "whole number"},
      {"loop-4.0", "whole number"},
      {"loop-064", "without leading zeros"},
      {"chain-", "N is missing"},
      {"chain-0", "N is out of range"},
      {"chain-0", chain_range},
      {"hdca-case4",
       "no model family 'hdca-case4' (families: chain-N, loop-N, hdca-case1, "
       "hdca-case2, hdca-case3)"},
      {"hdca-case1 ", "no model family"},
      {"Loop-4", "no model family"},
      {"", "no model family ''"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hy_model* m = (hy_model*)&bad;  // must be reset to NULL
    hy_error err;
    memset(&err, 0, sizeof err);
    hy_status st = hy_model_family(bad[i].name, &m, &err);
    ck_assert_msg(st == HY_ERR_ARG, "'%s': status %d", bad[i].name, st);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(err.code, HY_ERR_ARG);
    ck_assert_msg(strstr(err.msg, bad[i].says) != NULL, "'%s': message '%s' lacks '%s'",
                  bad[i].name, err.msg, bad[i].says);
  }
  hy_model* m = NULL;
  ck_assert_int_eq(hy_model_family(NULL, &m, NULL), HY_ERR_ARG);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(hy_model_family("loop-4", NULL, NULL), HY_ERR_ARG);
}
END_TEST

// The largest N builds (only the model: its data would take minutes and gigabytes); one more
// is refused (test_bad_names).
START_TEST(test_largest_n) {
  char name[32];
  snprintf(name, sizeof name, "chain-%d", HY_FAMILY_N_MAX);
  hy_model* m = family_ok(name);
  ck_assert_int_eq(m->sizes.nbody, HY_FAMILY_N_MAX);
  hy_model_free(m);
}
END_TEST

//----- allocation failures -------------------------------------------------------------------

// Failing each allocation in turn gives HY_ERR_NOMEM, *out NULL and no block left behind.
START_TEST(test_out_of_memory) {
  const char* names[] = {"loop-5", "hdca-case3"};
  for (int i = 0; i < 2; i++) {
    long fail_at = 1;
    for (;; fail_at++) {
      hy_test_hook_begin(fail_at);
      hy_model* m = NULL;
      hy_error err;
      memset(&err, 0, sizeof err);
      hy_status st = hy_model_family(names[i], &m, &err);
      if (st == HY_OK) {
        hy_model_free(m);
        hy_test_hook_end();
        ck_assert_int_eq(hy_test_hook_live(), 0);
        break;
      }
      hy_test_hook_end();
      ck_assert_msg(st == HY_ERR_NOMEM, "%s, allocation %ld failing: status %d (%s)", names[i],
                    fail_at, st, err.msg);
      ck_assert_ptr_null(m);
      ck_assert_msg(hy_test_hook_live() == 0, "%s, allocation %ld failing: %ld blocks left", names[i], fail_at,
                    hy_test_hook_live());
    }
    ck_assert_int_gt(fail_at, 3);  // several allocations were exercised
  }
}
END_TEST

Suite* io_family_suite(void) {
  Suite* s = suite_create("io_family");
  TCase* tc = tcase_create("families");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_energy0_loops);
  tcase_add_test(tc, test_energy0_cases);
  tcase_add_test(tc, test_energy0_chains);
  tcase_add_test(tc, test_loop_geometry);
  tcase_add_test(tc, test_chain_geometry);
  tcase_add_test(tc, test_bodies_and_options);
  tcase_add_test(tc, test_case1_geometry);
  tcase_add_test(tc, test_case2_geometry);
  tcase_add_test(tc, test_case3_geometry);
  tcase_add_test(tc, test_case3_symmetry);
  tcase_add_test(tc, test_energy_conserved);
  tcase_add_test(tc, test_listing);
  tcase_add_test(tc, test_bad_names);
  tcase_add_test(tc, test_largest_n);
  tcase_add_test(tc, test_out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}
