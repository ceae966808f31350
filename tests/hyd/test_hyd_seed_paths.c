// The fast paths of the seeds' elements: the trapezoidal step of the seeds' spools
// (d->spool_seed_only, hy_hyd_spool_seed_only) and the evaluation's copy for the seeds' circuits
// (d->hyd_seed_only). When the spool path applies, against the shaping of the reference by its
// definition (the flag is set exactly when the reference is the bare command); the first-order
// step on it against the closed-form recursion of seed 000 Eq. 27 under the trapezoidal rule on
// a ramp command; and four-bar A run with each fast path against the same run on the general
// paths, state for state to the last bit, under penalty and double-step.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "hyd/hyd_impl.h"
#include "hydyn/hydyn.h"

// One valve on two closed volumes, nothing mechanical; %s: the valve's options. The command
// ramps from -4 V to 4 V over the first second, through the dead zone and past the saturation
// of the variants below.
static const char kOneValve[] =
    "name: seed-spool\n"
    "gravity: [0, 0, 0]\n"
    "bodies: [{name: slider, mass: 1}]\n"
    "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
    "signals:\n"
    "  - {name: ramp, table: [[0, -4], [1, 4]]}\n"
    "hydraulics:\n"
    "  circuits:\n"
    "    - name: c\n"
    "      oil: {bulk_modulus: 1.5e9}\n"
    "      volumes:\n"
    "        - {name: VA, hose_volume: 1e-3, hose_bulk_modulus: 1e9, p0: 1e6}\n"
    "        - {name: VB, hose_volume: 1e-3, hose_bulk_modulus: 1e9, p0: 1e6}\n"
    "      sources:\n"
    "        - {name: pump, pressure: 2e6}\n"
    "        - {name: tank, pressure: 1e5}\n"
    "      valves:\n"
    "        - {name: v, P: pump, T: tank, A: VA, B: VB, cv: 1e-9, signal: ramp%s}\n"
    "solver: {dt: 1e-3, t_end: 1, formulation: tree}\n";

static hy_model* one_valve(const char* options) {
  char text[sizeof kOneValve + 256];
  snprintf(text, sizeof text, kOneValve, options);
  return hy_test_load_text(text, "seed-spool.yaml");
}

typedef struct spool_case {
  const char* options;  // appended to the valve's flow map
  double offset;        // put into d->vlv_u0 (as initial: rest would)
  int seed;             // expected hy_hyd_spool_seed_only
  int shaped;           // the reference differs from the command somewhere on the ramp
} spool_case;

static const spool_case kSpoolCases[] = {
    {", tau: 0.01", 0, 1, 0},
    {", tau: 0.01, dead_zone: 0.5", 0, 0, 1},
    {", tau: 0.01, saturation: 3", 0, 0, 1},
    {", tau: 0.01", 0.25, 0, 1},
    {", spool: second_order, natural_frequency: 20, damping_ratio: 0.3", 0, 0, 0},
    {", spool: none", 0, 0, 0},
};

// The flag against the shaping's definition (dead zone: 0 inside, shifted by dz outside;
// saturation |U_ref| <= limit; the offset added first): where it is set the reference is the
// command to the last bit at every sample, and the shaping variants change the reference
// somewhere on the ramp, so that the flag must be clear for them.
START_TEST(test_spool_seed_only) {
  const spool_case* c = &kSpoolCases[_i];
  hy_model* m = one_valve(c->options);
  hy_data* d = hy_test_make(m);
  const int first_order = m->vlv_spool[0] == HY_SPOOL_FIRST_ORDER;
  d->vlv_u0[0] = c->offset;
  ck_assert_int_eq(hy_hyd_spool_seed_only(m, d), c->seed);
  int differs = 0;
  for (int k = 0; k <= 1000; k++) {
    const double t = 1e-3 * k, cmd = -4.0 + 8.0 * t;
    const double dz = m->vlv_dead[0], lim = m->vlv_sat[0];
    double ref = cmd + c->offset;
    if (dz > 0) ref = fabs(ref) <= dz ? 0.0 : ref - copysign(dz, ref);
    if (fabs(ref) > lim) ref = copysign(lim, ref);
    const double r = hy_hyd_spool_reference(m, d, 0, t), u = hy_hyd_spool_command(m, 0, t);
    ck_assert_msg(fabs(r - ref) <= 1e-12, "t = %g: reference %.17g, by definition %.17g", t, r,
                  ref);
    if (c->seed) {
      hy_test_same_bits(&r, &u, 1, "reference and command");
    } else if (memcmp(&r, &u, sizeof r) != 0) {
      differs = 1;
    }
  }
  ck_assert_int_eq(differs, c->shaped);
  ck_assert_int_eq(first_order && !c->shaped, c->seed);
  // the data's flag, from hy_data_make, where no valve had an offset yet
  ck_assert_int_eq(d->spool_seed_only, c->seed || c->offset != 0);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Seed 000 Eq. 27 under the trapezoidal rule on the ramp r(t) = -4 + 8 t:
// y1 = ((1 - a) y0 + a (r0 + r1)) / (1 + a), a = h / (2 tau), and U_dot = (r1 - y1) / tau, taken
// by the fast path (checked to be the one taken).
START_TEST(test_seed_spool_recursion) {
  hy_model* m = one_valve(", tau: 0.01");
  m->opt.integrator = HY_INTEG_TRAPEZOIDAL;
  hy_data* d = hy_test_make(m);
  ck_assert_int_eq(d->spool_seed_only, 1);
  const double h = m->opt.dt, tau = 0.01, a = h / (2 * tau);
  double y = d->U[0];
  ck_assert_double_eq(y, 0);  // U0
  for (int k = 1; k <= 1000; k++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    const double r0 = -4.0 + 8.0 * h * (k - 1), r1 = -4.0 + 8.0 * h * k;
    y = ((1 - a) * y + a * (r0 + r1)) / (1 + a);
    ck_assert_msg(fabs(d->U[0] - y) <= 1e-12, "step %d: U %.17g, recursion %.17g", k, d->U[0], y);
    ck_assert_msg(fabs(d->Ud[0] - (r1 - y) / tau) <= 1e-8, "step %d: Ud %.17g, recursion %.17g", k,
                  d->Ud[0], (r1 - y) / tau);
  }
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Four-bar A (seed 000 Sect. 5) on the fast paths and on the general ones (the flags cleared
// after hy_data_make): the same coordinates, velocities, pressures, spool states and forces
// after every step of 3 s, through the command's steps at 1 s and 2.5 s. _i: bit 0 clears the
// spool path, bit 1 the evaluation's copy; formulation penalty for _i < 3, double-step after.
START_TEST(test_seed_paths_bits) {
  const int which = _i % 3 + 1;
  hy_model* m = hy_test_load("four-bar-a");
  m->opt.formulation = _i < 3 ? HY_FORM_PENALTY : HY_FORM_DOUBLE_STEP;
  hy_data* fast = hy_test_make(m);
  hy_data* slow = hy_test_make(m);
  ck_assert_int_eq(fast->spool_seed_only, 1);
  ck_assert_int_eq(fast->hyd_seed_only, 1);
  if (which & 1) slow->spool_seed_only = 0;
  if (which & 2) slow->hyd_seed_only = 0;
  const int nz = m->sizes.nz, nv = m->sizes.nvol, ns = m->sizes.nspool;
  double U_max = 0;
  for (long k = 0; k < 3000; k++) {
    ck_assert_msg(hy_step(m, fast) == HY_OK, "%s", fast->err.msg);
    ck_assert_msg(hy_step(m, slow) == HY_OK, "%s", slow->err.msg);
    hy_test_same_bits(fast->z, slow->z, nz, "z");
    hy_test_same_bits(fast->zd, slow->zd, nz, "zd");
    hy_test_same_bits(fast->p, slow->p, nv, "p");
    hy_test_same_bits(fast->pd, slow->pd, nv, "p_dot");
    hy_test_same_bits(fast->U, slow->U, ns, "U");
    hy_test_same_bits(fast->Ud, slow->Ud, ns, "U_dot");
    hy_test_same_bits(fast->frc_force, slow->frc_force, m->sizes.nfrc, "forces");
    U_max = fmax(U_max, fabs(fast->U[0]));
  }
  ck_assert_double_gt(U_max, 9);  // the valve opened (U_ref = 10 V from 1 s to 2.5 s)
  hy_data_free(slow);
  hy_data_free(fast);
  hy_model_free(m);
}
END_TEST

Suite* hyd_seed_paths_suite(void);
Suite* hyd_seed_paths_suite(void) {
  Suite* s = suite_create("hyd_seed_paths");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_spool_seed_only, 0,
                      (int)(sizeof kSpoolCases / sizeof kSpoolCases[0]));
  tcase_add_test(tc, test_seed_spool_recursion);
  tcase_add_loop_test(tc, test_seed_paths_bits, 0, 6);
  suite_add_tcase(s, tc);
  return s;
}
