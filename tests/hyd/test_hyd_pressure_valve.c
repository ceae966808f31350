// Check and relief valves: the opening and flow are C^1 across every point where their law
// changes branch, nothing flows backwards, and a pump feeding a closed volume through a
// throttle, with a relief valve to the tank, settles at the pressure where the two flows
// balance (computed here by bisection from the closed-form laws, independent of src/hyd).
// The model file tests/data/hyd_pressure_valves.yaml also checks that both elements load.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "hyd/hyd.h"
#include "hydyn/hydyn.h"

#define DATA HY_SOURCE_DIR "/tests/data/"

//----- the law -------------------------------------------------------------------------------

typedef struct valve_case {
  const char* label;
  double cv, p_crack, p_open, dp_lim;
} valve_case;

// Each places the breakpoints differently: dp_lim inside the opening ramp, the ramp inside the
// laminar range, everything far above dp_lim (a relief valve).
static const valve_case kValves[] = {
    {"check, cracks at 0, dp_lim inside the ramp", 3e-7, 0, 5e5, 2e5},
    {"check, ramp inside the laminar range", 3e-7, 1e5, 5e4, 2e5},
    {"relief at 6 MPa", 1.5e-7, 6e6, 2e6, 2e5},
};

static double flow(const valve_case* v, double dp, double* dq) {
  return hy_hyd_pressure_valve_flow(v->cv, dp, v->p_crack, v->p_open, v->dp_lim, HY_LAMINAR_CUBIC,
                                    dq);
}

START_TEST(test_opening_smoothstep) {
  const double pc = 1e5, po = 4e5;
  double dx;
  ck_assert_double_eq(hy_hyd_pressure_valve_opening(pc, pc, po, &dx), 0.0);
  ck_assert_double_eq(dx, 0.0);
  ck_assert_double_eq(hy_hyd_pressure_valve_opening(pc + po, pc, po, &dx), 1.0);
  ck_assert_double_eq(dx, 0.0);
  // half way: x = 1/2 with the steepest slope 3/(2 p_open)
  ck_assert_double_le(fabs(hy_hyd_pressure_valve_opening(pc + po / 2, pc, po, &dx) - 0.5), 1e-15);
  ck_assert_double_le(hy_test_relerr(dx, 1.5 / po, 0), 1e-15);
  // monotone between the ends
  double last = 0;
  for (int k = 1; k < 100; k++) {
    const double x = hy_hyd_pressure_valve_opening(pc + po * k / 100.0, pc, po, NULL);
    ck_assert_double_gt(x, last);
    last = x;
  }
  ck_assert_double_lt(last, 1.0);
}
END_TEST

// Value and slope meet from both sides of p_crack, p_crack + p_open, 0 and +-dp_lim, and the
// slope returned is that of the value everywhere.
START_TEST(test_flow_c1) {
  const valve_case* v = &kValves[_i];
  // scales of the flow and of its slope over the element's range
  const double q_ref = v->cv * sqrt(v->p_crack + v->p_open + v->dp_lim);
  const double dq_ref = q_ref * 1.5 / v->p_open + v->cv / sqrt(v->dp_lim);
  const double breaks[5] = {v->p_crack, v->p_crack + v->p_open, 0, v->dp_lim, -v->dp_lim};
  double worst_q = 0, worst_dq = 0;
  for (int k = 0; k < 5; k++) {
    const double b = breaks[k], h = 1e-9 * fmax(fabs(b), v->dp_lim);
    double s_lo, s_hi;
    const double q_lo = flow(v, b - h, &s_lo), q_hi = flow(v, b + h, &s_hi);
    worst_q = fmax(worst_q, fabs(q_hi - q_lo) / q_ref);
    worst_dq = fmax(worst_dq, fabs(s_hi - s_lo) / dq_ref);
    ck_assert_msg(fabs(q_hi - q_lo) <= 1e-7 * q_ref, "%s: value jumps by %.3g at dp = %g", v->label,
                  q_hi - q_lo, b);
    ck_assert_msg(fabs(s_hi - s_lo) <= 1e-6 * dq_ref,
                  "%s: slope jumps from %.6g to %.6g at dp = %g", v->label, s_lo, s_hi, b);
  }
  // fully open, the valve is the throttle law with its cv
  const double open = v->p_crack + 1.5 * v->p_open;
  double dq, dq_orf;
  const double q = flow(v, open, &dq);
  ck_assert_double_eq(q, hy_hyd_orifice_flow(v->cv, open, v->dp_lim, HY_LAMINAR_CUBIC, &dq_orf));
  ck_assert_double_eq(dq, dq_orf);
  // the derivative against central differences across the whole range (on a grid that misses
  // the breakpoints, where the second derivative jumps and the difference is only O(h))
  const double top = v->p_crack + 2 * v->p_open + 2 * v->dp_lim;
  double worst_fd = 0;
  for (int k = 0; k < 200; k++) {
    const double dp = -v->dp_lim + (top + v->dp_lim) * (k + 0.37) / 200.0;
    const double h = 1e-6 * fmax(fabs(dp), v->dp_lim);
    double an;
    flow(v, dp, &an);
    const double fd = (flow(v, dp + h, NULL) - flow(v, dp - h, NULL)) / (2 * h);
    const double e = fabs(an - fd) / dq_ref;
    worst_fd = fmax(worst_fd, e);
    ck_assert_msg(e <= 1e-6, "%s: dq/ddp at %g: %.9g, central difference %.9g", v->label, dp, an,
                  fd);
  }
  printf("pressure valve law, %-44s jumps: value %.2g, slope %.2g; FD %.2g\n", v->label, worst_q,
         worst_dq, worst_fd);
}
END_TEST

// Closed or reversed, the flow and its slope are exactly zero: nothing leaks backwards.
START_TEST(test_reverse_blocked) {
  for (size_t i = 0; i < sizeof kValves / sizeof kValves[0]; i++) {
    const valve_case* v = &kValves[i];
    const double dps[] = {-3e7, -v->dp_lim, -1.0, -1e-300, 0.0, v->p_crack};
    for (size_t k = 0; k < sizeof dps / sizeof dps[0]; k++) {
      double dq = 1;
      ck_assert_double_eq(flow(v, dps[k], &dq), 0.0);
      ck_assert_double_eq(dq, 0.0);
    }
    // and under the other laminar law
    ck_assert_double_eq(hy_hyd_pressure_valve_flow(v->cv, -1e5, v->p_crack, v->p_open, v->dp_lim,
                                                   HY_LAMINAR_LINEAR, NULL),
                        0.0);
  }
}
END_TEST

//----- a model file: loading, and the relief valve's steady state ----------------------------

START_TEST(test_file_loads) {
  hy_model* m = hy_test_load("tests/data/hyd_pressure_valves.yaml");
  ck_assert_int_eq(m->sizes.npvl, 3);
  ck_assert_int_eq(m->sizes.norf, 1);
  const int nv = m->sizes.nvol;
  const int hold = hy_model_pressure_valve(m, "hold"),
            suction = hy_model_pressure_valve(m, "suction");
  const int relief = hy_model_pressure_valve(m, "relief");
  ck_assert_int_eq(hy_model_pressure_valve(m, "feed"), -1);  // a throttle
  // check valves first in the file, so first in the arrays
  ck_assert_int_eq(hold, 0);
  ck_assert_int_eq(suction, 1);
  ck_assert_int_eq(relief, 2);
  ck_assert_int_eq(m->pvl_kind[hold], HY_PRESSURE_VALVE_CHECK);
  ck_assert_int_eq(m->pvl_kind[relief], HY_PRESSURE_VALVE_RELIEF);
  ck_assert_int_eq(m->pvl_node[2 * hold], hy_model_volume(m, "W"));
  ck_assert_int_eq(m->pvl_node[2 * hold + 1], hy_model_volume(m, "V"));
  ck_assert_int_eq(m->pvl_node[2 * suction], nv + hy_model_source(m, "tank"));
  ck_assert_double_eq(m->pvl_cv[hold], 2e-7);
  ck_assert_double_eq(m->pvl_p_crack[hold], 0.5e5);
  ck_assert_double_eq(m->pvl_p_open[hold], 1e5);
  ck_assert_double_eq(m->pvl_dp_lim[hold], 2e5);    // default
  ck_assert_double_eq(m->pvl_p_crack[suction], 0);  // default
  ck_assert_double_eq(m->pvl_dp_lim[suction], 1e5);
  ck_assert_double_eq(m->pvl_p_crack[relief], 6e6);  // p_set
  ck_assert_double_eq(m->pvl_p_open[relief], 2e6);
  hy_model* c;
  ck_assert_int_eq(hy_model_copy(m, &c), HY_OK);
  ck_assert_double_eq(c->pvl_p_crack[relief], 6e6);
  ck_assert_int_eq(c->pvl_kind[relief], HY_PRESSURE_VALVE_RELIEF);
  hy_model_free(c);
  hy_model_free(m);
}
END_TEST

// The steady pressure of V from the closed-form laws: q_throttle(p_pump - p) = q_relief(p -
// p_tank). Both pressure differences there are far above dp_lim (checked), so the turbulent
// square root applies, and the relief valve opens by the smoothstep of the documented law.
static double steady_pressure(const hy_model* m) {
  const int nv = m->sizes.nvol, t = 0, r = hy_model_pressure_valve(m, "relief");
  const double p_pump = m->src_p[hy_model_source(m, "pump")];
  const double p_tank = m->src_p[hy_model_source(m, "tank")];
  ck_assert_int_eq(m->orf_node[2 * t], nv + hy_model_source(m, "pump"));
  const double cv_t = m->orf_cv[t], cv_r = m->pvl_cv[r];
  const double p_set = m->pvl_p_crack[r], p_open = m->pvl_p_open[r];
  double lo = p_tank + p_set, hi = p_pump;  // inflow - outflow: > 0 at lo, < 0 at hi
  for (int k = 0; k < 200 && hi - lo > 1e-9; k++) {
    const double p = 0.5 * (lo + hi);
    const double s = fmin(fmax((p - p_tank - p_set) / p_open, 0), 1);
    const double q_in = cv_t * sqrt(p_pump - p);
    const double q_out = cv_r * s * s * (3 - 2 * s) * sqrt(p - p_tank);
    if (q_in > q_out) {
      lo = p;
    } else {
      hi = p;
    }
  }
  const double p = 0.5 * (lo + hi);
  ck_assert_double_gt(p_pump - p, m->orf_dp_lim[t]);
  ck_assert_double_gt(p - p_tank - p_set, 0);  // the relief valve is partly open
  ck_assert_double_lt(p - p_tank - p_set, p_open);
  return p;
}

// Penalty and double-step run to steady state; the check valves facing a reverse pressure
// difference carry exactly nothing all the time, so W keeps its initial pressure exactly.
START_TEST(test_relief_steady_state) {
  hy_model* m = hy_test_load("tests/data/hyd_pressure_valves.yaml");
  m->opt.formulation = _i ? HY_FORM_DOUBLE_STEP : HY_FORM_PENALTY;
  const double p_ss = steady_pressure(m);
  hy_data* d = hy_test_make(m);
  const int V = hy_model_volume(m, "V"), W = hy_model_volume(m, "W");
  const int hold = hy_model_pressure_valve(m, "hold"),
            suction = hy_model_pressure_valve(m, "suction");
  const int relief = hy_model_pressure_valve(m, "relief");
  const double pW0 = d->p[W];
  const long n = lround(m->opt.t_end / m->opt.dt);
  hy_test_count_allocs_begin();
  for (long i = 0; i < n; i++) {
    const hy_status st = hy_step(m, d);
    ck_assert_msg(st == HY_OK, "step %ld: %s", i, d->err.msg);
    ck_assert_double_eq(d->pvl_q[hold], 0.0);
    ck_assert_double_eq(d->pvl_q[suction], 0.0);
    ck_assert_double_eq(d->p[W], pW0);
  }
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  const double err = fabs(d->p[V] - p_ss);
  printf("relief steady state (%s): simulated %.6f Pa, bisection %.6f Pa, difference %.3g Pa\n",
         hy_formulation_name(m->opt.formulation), d->p[V], p_ss, err);
  ck_assert_msg(err <= 1e-3, "steady pressure %.9g Pa, expected %.9g Pa", d->p[V], p_ss);
  // the flows balance: the relief valve passes what the throttle lets in
  ck_assert_double_le(hy_test_relerr(d->pvl_q[relief], d->orf_q[0], 0), 1e-9);
  ck_assert_double_gt(d->pvl_q[relief], 0);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* hyd_pressure_valve_suite(void) {
  Suite* s = suite_create("hyd_pressure_valve");
  TCase* tc = tcase_create("hyd_pressure_valve");
  tcase_add_test(tc, test_opening_smoothstep);
  tcase_add_loop_test(tc, test_flow_c1, 0, (int)(sizeof kValves / sizeof kValves[0]));
  tcase_add_test(tc, test_reverse_blocked);
  tcase_add_test(tc, test_file_loads);
  tcase_add_loop_test(tc, test_relief_steady_state, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}
