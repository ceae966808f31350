// The directional valves' spools (docs/hydraulics.md, "Spool dynamics" and "Initial state"): the
// input shaping against its piecewise definition; the second-order spool against the closed-form
// step response of an underdamped oscillator (the trapezoidal rule's closed-form step, checked
// also against the rule's own relations, and RK4), each at two step sizes for its order; the
// first-order spool step for step as the recursion of seed 000 Eq. 27 under the trapezoidal rule;
// a spool without dynamics at its shaped reference to the last bit; the spool states' layout
// (state segment, linearization, co-simulation); the offset of initial: rest against the closed
// form of a leaking cylinder, and the run staying at rest; YAML and range errors at their
// positions.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cosim/cosim.h"
#include "fixture.h"
#include "hyd/hyd_impl.h"
#include "hydyn/hydyn.h"
#include "linear/linear.h"

static const double kPi = 3.14159265358979323846;

static hy_model* load_text(const char* text) { return hy_test_load_text(text, "spool.yaml"); }

//----- the spool model: three valves on two closed volumes, nothing mechanical ----------------

// The volumes are large and the valves small, so that the pressures move slowly (RK4 stays
// stable at the steps below); the spools do not depend on them anyway.
static const char kSpool[] =
    "name: spool\n"
    "gravity: [0, 0, 0]\n"
    "bodies: [{name: slider, mass: 1}]\n"
    "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
    "signals:\n"
    "  - {name: cmd, table: [[0, 2], [10, 2]]}\n"
    "  - {name: ramp, table: [[0, -4], [0.2, 4]]}\n"
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
    "        - {name: second, P: pump, T: tank, A: VA, B: VB, cv: 1e-9, spool: second_order,\n"
    "           natural_frequency: 20, damping_ratio: 0.3, signal: cmd}\n"
    "        - {name: first, P: pump, T: tank, A: VA, B: VB, cv: 1e-9, tau: 0.01, signal: cmd}\n"
    "        - {name: none, P: pump, T: tank, A: VA, B: VB, cv: 1e-9, spool: none, signal: ramp,\n"
    "           dead_zone: 0.5, saturation: 3}\n"
    "solver: {dt: 1e-4, t_end: 0.2, formulation: tree}\n";

// the values of kSpool
static const double kR = 2, kFn = 20, kZeta = 0.3, kTau = 0.01, kDead = 0.5, kSat = 3;

static hy_model* spool_model(hy_integrator integ, double dt) {
  hy_model* m = load_text(kSpool);
  m->opt.integrator = integ;
  m->opt.dt = dt;
  return m;
}

// The shaping by its definition: the dead zone (0 for |c| <= dz, c -+ dz outside), then the
// saturation |y| <= lim.
static double shaped(double c, double dz, double lim) {
  double y = 0;
  if (c > dz) y = c - dz;
  if (c < -dz) y = c + dz;
  if (y > lim) y = lim;
  if (y < -lim) y = -lim;
  return y;
}

// The step response from rest of U_ddot = wn^2 (R - U) - 2 zeta wn U_dot, 0 <= zeta < 1.
static void oscillator_step(double t, double wn, double zeta, double* U, double* Ud) {
  const double s = sqrt(1 - zeta * zeta), wd = wn * s, e = exp(-zeta * wn * t);
  *U = kR * (1 - e * (cos(wd * t) + zeta / s * sin(wd * t)));
  *Ud = kR * wn / s * e * sin(wd * t);
}

//----- input shaping ---------------------------------------------------------------------------

START_TEST(test_shaping) {
  hy_model* m = load_text(kSpool);
  const int v = hy_model_valve(m, "none"), f = hy_model_valve(m, "first");
  ck_assert_double_eq(m->vlv_dead[v], kDead);
  ck_assert_double_eq(m->vlv_sat[v], kSat);
  ck_assert(isinf(m->vlv_sat[f]));  // none given
  // by hand: inside the dead zone 0, outside shifted by 0.5, limited to 3
  ck_assert_double_eq(hy_hyd_spool_shape(m, v, 0.3), 0);
  ck_assert_double_eq(hy_hyd_spool_shape(m, v, -0.5), 0);
  ck_assert_double_eq(hy_hyd_spool_shape(m, v, 2), 1.5);
  ck_assert_double_eq(hy_hyd_spool_shape(m, v, -2), -1.5);
  ck_assert_double_eq(hy_hyd_spool_shape(m, v, 5), 3);
  ck_assert_double_eq(hy_hyd_spool_shape(m, v, -10), -3);
  for (int k = 0; k <= 400; k++) {
    const double c = -10 + 20 * k / 400.0;
    ck_assert_double_eq(hy_hyd_spool_shape(m, v, c), shaped(c, kDead, kSat));
    ck_assert_double_eq(hy_hyd_spool_shape(m, f, c), c);  // no shaping
  }
  // continuous at both edges of the dead zone and at the limit
  const double e = 1e-9;
  for (int s = -1; s <= 1; s += 2) {
    ck_assert_double_le(fabs(hy_hyd_spool_shape(m, v, s * (kDead + e))), 1.01 * e);
    ck_assert_double_le(fabs(hy_hyd_spool_shape(m, v, s * (kDead + kSat - e)) - s * kSat),
                        1.01 * e);
  }
  // normalized: the reference never beyond the full opening, and the offset adds to the command
  m->vlv_units[f] = HY_VALVE_NORMALIZED;
  ck_assert_double_eq(hy_hyd_spool_shape(m, f, 1.7), 1);
  ck_assert_double_eq(hy_hyd_spool_shape(m, f, -2.5), -1);
  ck_assert_double_eq(hy_hyd_spool_shape(m, f, -0.3), -0.3);
  m->vlv_units[f] = HY_VALVE_VOLTS;
  hy_data* d = hy_test_make(m);
  ck_assert_double_eq(hy_hyd_spool_reference(m, d, v, 0.05), shaped(-2, kDead, kSat));
  d->vlv_u0[v] = 0.75;
  ck_assert_double_eq(hy_hyd_spool_reference(m, d, v, 0.05), shaped(-2 + 0.75, kDead, kSat));
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- the second order -----------------------------------------------------------------------

// The largest error of the second-order spool against the closed form over 0.2 s, in U and in
// U_dot / omega_n, with step h; under the trapezoidal rule also the rule's own relations
// U1 - U0 = h/2 (W0 + W1), W1 - W0 = h/2 (a0 + a1) with a = wn^2 (R - U) - 2 zeta wn W, which
// its closed-form step must satisfy to round-off.
static double second_order_error(hy_integrator integ, double h) {
  hy_model* m = spool_model(integ, h);
  hy_data* d = hy_test_make(m);
  const int v = hy_model_valve(m, "second"), iw = m->vlv_vadr[v];
  const double wn = 2 * kPi * kFn, k = wn * wn, c = 2 * kZeta * wn;
  ck_assert_int_eq(iw, m->sizes.nvlv);  // the only second-order valve: the first velocity
  ck_assert_double_eq(d->U[v], 0);      // U0 0, at rest
  ck_assert_double_eq(d->U[iw], 0);
  const long n = lround(0.2 / h);
  double worst = 0, worst_rel = 0;
  for (long i = 0; i < n; i++) {
    const double U0 = d->U[v], W0 = d->U[iw], a0 = k * (kR - U0) - c * W0;
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    const double U1 = d->U[v], W1 = d->U[iw], a1 = k * (kR - U1) - c * W1;
    // the rates the data reports: U_dot is the velocity state, U_ddot its equation
    ck_assert_double_eq(d->Ud[v], W1);
    ck_assert_double_le(fabs(d->Ud[iw] - a1), 1e-12 * (k * (kR + fabs(U1)) + c * fabs(W1)));
    if (integ == HY_INTEG_TRAPEZOIDAL) {
      const double ru = U1 - U0 - 0.5 * h * (W0 + W1), rw = W1 - W0 - 0.5 * h * (a0 + a1);
      // over the magnitudes of the terms that round
      const double mu = fabs(U0) + fabs(U1) + h * (fabs(W0) + fabs(W1));
      const double mw = fabs(W0) + fabs(W1) +
                        h * (k * (2 * kR + fabs(U0) + fabs(U1)) + c * (fabs(W0) + fabs(W1)));
      worst_rel = fmax(worst_rel, fmax(fabs(ru) / mu, fabs(rw) / mw));
    }
    double Uc, Wc;
    oscillator_step(d->time, wn, kZeta, &Uc, &Wc);
    worst = fmax(worst, fmax(fabs(U1 - Uc), fabs(W1 - Wc) / wn));
  }
  if (integ == HY_INTEG_TRAPEZOIDAL) {
    ck_assert_msg(worst_rel <= 1e-14, "trapezoidal relations hold to %.3g only", worst_rel);
  }
  hy_data_free(d);
  hy_model_free(m);
  return worst;
}

// The trapezoidal rule maps each mode exp(lambda t) to (1 + h lambda/2)/(1 - h lambda/2) per step,
// exp(h lambda - (h lambda)^3/12 + ...): after time t the phase is off by t h^2 |lambda|^3/12,
// so the error is about R/sqrt(1 - zeta^2) t exp(-zeta wn t) h^2 wn^3/12, whose largest value
// (t = 1/(zeta wn)) is the estimate below; halving h quarters it.
START_TEST(test_second_order_trapezoidal) {
  const double h = 1e-4, wn = 2 * kPi * kFn;
  const double e1 = second_order_error(HY_INTEG_TRAPEZOIDAL, h);
  const double e2 = second_order_error(HY_INTEG_TRAPEZOIDAL, h / 2);
  const double est = kR / sqrt(1 - kZeta * kZeta) * h * h * wn * wn / (12 * exp(1.0) * kZeta);
  printf(
      "second-order spool, trapezoidal: error %.3g (h = %g), %.3g (h/2), ratio %.3f; "
      "estimate %.3g\n",
      e1, h, e2, e1 / e2, est);
  ck_assert_double_le(e1, est);
  ck_assert_double_ge(e1, 0.5 * est);
  ck_assert_double_le(fabs(e1 / e2 - 4), 0.1);
}
END_TEST

// RK4 on the spool states among the others (explicit methods: more ODE rows): fourth order.
START_TEST(test_second_order_rk4) {
  const double h = 1e-4;
  const double e1 = second_order_error(HY_INTEG_RK4, h),
               e2 = second_order_error(HY_INTEG_RK4, h / 2);
  printf("second-order spool, rk4: error %.3g (h = %g), %.3g (h/2), ratio %.2f\n", e1, h, e2,
         e1 / e2);
  ck_assert_double_le(e1, 1e-8 * kR);
  ck_assert_double_ge(e1 / e2, 14);
  ck_assert_double_le(e1 / e2, 18);
}
END_TEST

//----- the first order, unchanged ---------------------------------------------------------------

// Under the trapezoidal rule the first-order spool is, step for step and to the last bit, the
// recursion U_{k+1} = ((1 - a) U_k + a (r_k + r_{k+1})) / (1 + a), a = h / (2 tau) (seed 000
// Eq. 27), and its rate (r - U)/tau; under RK4 it approaches R (1 - exp(-t/tau)).
START_TEST(test_first_order) {
  const double h = 1e-4, a = h / (2 * kTau);
  hy_model* m = spool_model(HY_INTEG_TRAPEZOIDAL, h);
  hy_data* d = hy_test_make(m);
  const int v = hy_model_valve(m, "first");
  ck_assert_int_eq(m->vlv_vadr[v], -1);
  double y = 0;
  for (int i = 0; i < 500; i++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    y = ((1 - a) * y + a * (kR + kR)) / (1 + a);
    ck_assert_double_eq(d->U[v], y);
    ck_assert_double_eq(d->Ud[v], (kR - y) / kTau);
  }
  hy_data_free(d);
  hy_model_free(m);
  m = spool_model(HY_INTEG_RK4, h);
  d = hy_test_make(m);
  double worst = 0;
  for (int i = 0; i < 500; i++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    worst = fmax(worst, fabs(d->U[v] - kR * (1 - exp(-d->time / kTau))));
  }
  // RK4's error on exp(-t/tau): about t (h/tau)^5/120 per unit, here 5e-11 relative
  ck_assert_double_le(worst, 1e-10 * kR);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- no dynamics ------------------------------------------------------------------------------

// spool: none stands at its shaped reference at every recorded instant, to the last bit, with
// rate 0, whatever steps it: the trapezoidal rule, RK4 (whose stages see the reference at their
// own times), ALI1 and ALI3-P.
START_TEST(test_none_follows) {
  static const struct {
    hy_integrator integ;
    hy_formulation form;
  } kRuns[] = {{HY_INTEG_TRAPEZOIDAL, HY_FORM_TREE},
               {HY_INTEG_RK4, HY_FORM_TREE},
               {HY_INTEG_AUTO, HY_FORM_ALI1},
               {HY_INTEG_AUTO, HY_FORM_ALI3P}};
  hy_model* m = spool_model(kRuns[_i].integ, 1e-4);
  m->opt.formulation = kRuns[_i].form;
  hy_data* d = hy_test_make(m);
  const int v = hy_model_valve(m, "none"), sig = hy_model_signal(m, "ramp");
  ck_assert_int_eq(m->sizes.nspool, m->sizes.nvlv + 1);  // none adds no state
  int inside = 0, outside = 0, saturated = 0;
  for (int i = 0; i <= 2000; i++) {
    if (i > 0) ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    const double c = hy_signal_eval(m, sig, d->time);
    ck_assert_double_eq(d->U[v], shaped(c, kDead, kSat));
    ck_assert_double_eq(d->Ud[v], 0);
    inside += fabs(c) <= kDead;
    saturated += fabs(c) >= kDead + kSat;
    outside += fabs(c) > kDead && fabs(c) < kDead + kSat;
  }
  // the ramp from -4 to 4 crosses every branch
  ck_assert_int_gt(inside, 10);
  ck_assert_int_gt(outside, 10);
  ck_assert_int_gt(saturated, 10);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- the spool states ------------------------------------------------------------------------

// The spool segment holds the positions, then the second-order velocity; saved whole mid-run and
// set into another data, it goes on bit for bit.
START_TEST(test_state_segment) {
  hy_model* m = spool_model(_i ? HY_INTEG_RK4 : HY_INTEG_TRAPEZOIDAL, 1e-4);
  hy_data* a = hy_test_make(m);
  hy_data* b = hy_test_make(m);
  ck_assert_int_eq(m->sizes.nspool, 4);
  ck_assert_int_eq(hy_state_size(m, a, HY_STATE_SPOOL), 4);
  hy_test_steps(m, a, 300);
  double spool[4];
  ck_assert_int_eq(hy_state_get(m, a, HY_STATE_SPOOL, spool), HY_OK);
  ck_assert_double_eq(spool[3], a->U[m->vlv_vadr[hy_model_valve(m, "second")]]);
  ck_assert_double_ne(spool[3], 0);
  const int n = hy_state_size(m, a, HY_STATE_FULL);
  double buf[4096];
  ck_assert_int_le(n, 4096);
  ck_assert_int_eq(hy_state_get(m, a, HY_STATE_FULL, buf), HY_OK);
  ck_assert_int_eq(hy_state_set(m, b, HY_STATE_FULL, buf), HY_OK);
  hy_test_count_allocs_begin();
  hy_test_steps(m, a, 300);
  hy_test_steps(m, b, 300);
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  hy_test_same_bits(a->U, b->U, m->sizes.nspool, "spool states");
  hy_test_same_bits(a->Ud, b->Ud, m->sizes.nspool, "their rates");
  hy_test_same_bits(a->p, b->p, m->sizes.nvol, "pressures");
  hy_data_free(a);
  hy_data_free(b);
  hy_model_free(m);
}
END_TEST

// The linearization's spool rows and columns: -1/tau for the first order; [0 1; -wn^2 -2 zeta
// wn] for the second; a spool without dynamics is no state of its own (zero row and column).
START_TEST(test_linearization) {
  hy_model* m = spool_model(HY_INTEG_TRAPEZOIDAL, 1e-4);
  hy_data* d = hy_test_make(m);
  hy_linear* L = NULL;
  hy_error err;
  ck_assert_msg(hy_linear_make(m, d, HY_LIN_REDUCED, 0, &L, &err) == HY_OK, "%s", err.msg);
  ck_assert_int_eq(L->nu, 4);
  const int n = L->n, u0 = L->nq + L->nv + L->np + L->nw;
  const int s = u0 + hy_model_valve(m, "second"), f = u0 + hy_model_valve(m, "first");
  const int z = u0 + hy_model_valve(m, "none"), w = u0 + 3;
  const double wn = 2 * kPi * kFn;
  char name[64];
  hy_linear_state_name(m, L, w, name, sizeof name);
  ck_assert_str_eq(name, "Ud:second");
  ck_assert_str_eq(hy_linear_state_unit(m, L, w), "V/s");
  ck_assert_double_le(fabs(L->J[f * n + f] + 1 / kTau), 1e-8 / kTau);
  ck_assert_double_le(fabs(L->J[s * n + w] - 1), 1e-8);
  ck_assert_double_le(fabs(L->J[w * n + s] + wn * wn), 1e-8 * wn * wn);
  ck_assert_double_le(fabs(L->J[w * n + w] + 2 * kZeta * wn), 1e-8 * wn);
  ck_assert_double_eq(L->J[s * n + s], 0);
  for (int j = 0; j < n; j++) {
    ck_assert_double_eq(L->J[z * n + j], 0);
    ck_assert_double_eq(L->J[j * n + z], 0);
  }
  hy_linear_free(L);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- co-simulation ------------------------------------------------------------------------------

// A hydraulic subsystem steps the spool states too: with its trapezoidal rule the second-order
// spool is within the rule's error of the closed form (test_second_order_trapezoidal), with RK4
// within RK4's; the spool without dynamics at its reference; its state holds both velocities.
static const char kCosim[] =
    "name: cosim_spool\n"
    "gravity: [0, -9.81, 0]\n"
    "bodies: [{name: load, mass: 500}]\n"
    "joints: [{name: lift, type: prismatic, parent: ground, child: load, axis: [0, 1, 0]}]\n"
    "markers:\n"
    "  - {name: G, body: ground, point: [0, 0, 0]}\n"
    "  - {name: L, body: load, point: [0, 1, 0]}\n"
    "signals:\n"
    "  - {name: cmd, table: [[0, 2], [10, 2]]}\n"
    "  - {name: ramp, table: [[0, -4], [0.2, 4]]}\n"
    "hydraulics:\n"
    "  circuits:\n"
    "    - name: c\n"
    "      oil: {bulk_modulus: 1.5e9}\n"
    "      volumes:\n"
    "        - {name: VA, hose_volume: 1e-4, hose_bulk_modulus: 1e9}\n"
    "        - {name: VB, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e6}\n"
    "      sources:\n"
    "        - {name: pump, pressure: 10e6}\n"
    "        - {name: tank, pressure: 1e5}\n"
    "      valves:\n"
    "        - {name: second, P: pump, T: tank, A: VA, B: VB, cv: 1e-11, spool: second_order,\n"
    "           natural_frequency: 20, damping_ratio: 0.3, signal: cmd}\n"
    "        - {name: none, P: pump, T: tank, A: VA, B: VB, cv: 1e-11, spool: none, signal: ramp,\n"
    "           dead_zone: 0.5, saturation: 3}\n"
    "      cylinders:\n"
    "        - {name: cyl, marker_a: G, marker_b: L, chamber_a: VA, chamber_b: VB,\n"
    "           piston_diameter: 0.05, rod_diameter: 0.025, stroke: 0.5, dead_length: 0.75,\n"
    "           bulk_modulus: 2e10, initial: equilibrium}\n"
    "solver: {dt: 1e-3, t_end: 0.2}\n";

START_TEST(test_cosim) {
  const hy_integrator integ = _i ? HY_INTEG_RK4 : HY_INTEG_TRAPEZOIDAL;
  const double hh = 1e-4, wn = 2 * kPi * kFn;
  hy_model* m = load_text(kCosim);
  hy_cosim_sub* s = NULL;
  hy_error err;
  ck_assert_msg(hy_cosim_hyd_make(m, 0, HY_COUPLE_VF, integ, hh, &s, &err) == HY_OK, "%s", err.msg);
  const hy_data* d = hy_cosim_hyd_data(s);
  const int v = hy_model_valve(m, "second"), iw = m->vlv_vadr[v], z = hy_model_valve(m, "none");
  const int sig = hy_model_signal(m, "ramp");
  // time, 2 pressures, 3 spool states, t0, the inputs' coefficients (3 per input), the outputs
  ck_assert_int_eq(s->ops->state_size(s), 1 + 2 + 3 + 1 + 3 * s->nin + s->nout);
  double worst = 0;
  for (int k = 1; k <= 200; k++) {
    ck_assert_msg(s->ops->step_to(s, k * 1e-3) == HY_OK, "%s", s->err.msg);
    double Uc, Wc;
    oscillator_step(d->time, wn, kZeta, &Uc, &Wc);
    worst = fmax(worst, fmax(fabs(d->U[v] - Uc), fabs(d->U[iw] - Wc) / wn));
    ck_assert_double_eq(d->U[z], shaped(hy_signal_eval(m, sig, d->time), kDead, kSat));
  }
  const double est = kR / sqrt(1 - kZeta * kZeta) * hh * hh * wn * wn / (12 * exp(1.0) * kZeta);
  ck_assert_double_le(worst, integ == HY_INTEG_RK4 ? 1e-8 * kR : est);
  s->ops->destroy(s);
  hy_model_free(m);
}
END_TEST

//----- initial: rest ------------------------------------------------------------------------------

// A load of 500 kg held by a cylinder whose piston side VA leaks to the tank through a throttle;
// the rod side VB is on the valve's B port. At rest the valve stays open P->A just enough to feed
// the leak: C_v U sqrt(p_P - p_A) = Q_leak (all pressure differences far above dp_lim), with p_A
// from the load's equilibrium and p_B = p_T (B->T is open and carries nothing). The leak is
// C_leak sqrt(p_A - p_T), or through a drain volume VL between two throttles in series
// C1 sqrt(p_A - p_L) = C2 sqrt(p_L - p_T) = Q, Q = sqrt((p_A - p_T) / (1/C1^2 + 1/C2^2)).
static const char kRestHead[] =
    "name: rest\n"
    "gravity: [0, -9.81, 0]\n"
    "bodies: [{name: load, mass: 500}]\n"
    "joints: [{name: lift, type: prismatic, parent: ground, child: load, axis: [0, 1, 0]}]\n"
    "markers:\n"
    "  - {name: G, body: ground, point: [0, 0, 0]}\n"
    "  - {name: L, body: load, point: [0, 1, 0]}\n"
    "signals: [{name: cmd, table: [[0, 0.2], [10, 0.2]]}, {name: back, table: [[0, -0.3]]}]\n"
    "solver: {dt: 1e-3, t_end: 1}\n"
    "hydraulics:\n"
    "  circuits:\n"
    "    - name: c\n"
    "      oil: {bulk_modulus: 1.5e9}\n"
    "      sources: [{name: pump, pressure: 10e6}, {name: tank, pressure: 1e5}]\n"
    "      cylinders:\n"
    "        - {name: cyl, marker_a: G, marker_b: L, chamber_a: VA, chamber_b: VB,\n"
    "           piston_diameter: 0.05, rod_diameter: 0.025, stroke: 0.5, dead_length: 0.75,\n"
    "           bulk_modulus: 2e10, initial: equilibrium}\n"
    "      volumes:\n"
    "        - {name: VA, hose_volume: 1e-4, hose_bulk_modulus: 1e9}\n";  // line 20

static const double kPP = 10e6, kPT = 1e5, kCvValve = 1e-8, kMass = 500;

// The rod side and the valves' parts of the model.
#define VB_GIVEN "{name: VB, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e5}"
#define VB_FREE "{name: VB, hose_volume: 1e-4, hose_bulk_modulus: 1e9}"
#define NO_DRAIN "# no drain volume"
#define DRAIN "- {name: VL, hose_volume: 1e-5, hose_bulk_modulus: 1e9}"
#define LEAK "[{name: leak, from: VA, to: tank, cv: 1e-9}]"
#define LEAK2 \
  "[{name: leak, from: VA, to: VL, cv: 1.4e-9}, {name: drain, from: VL, to: tank, cv: 2e-9}]"
#define VALVE "{name: dcv, P: pump, T: tank, A: VA, B: VB, cv: 1e-8, "

// kRestHead with the rod side `vb` (line 21), `drain` (line 22), the throttles (line 23) and the
// valve (line 25, column 11).
static hy_model* rest_model(const char* vb, const char* drain, const char* throttles,
                            const char* valve) {
  char text[4096];
  snprintf(text, sizeof text,
           "%s        - %s\n        %s\n      throttles: %s\n      valves:\n"
           "        - %s\n",
           kRestHead, vb, drain, throttles, valve);
  return load_text(text);
}

typedef struct rest_case {
  const char* label;
  const char* vb;
  const char* drain;
  const char* throttles;
  const char* valve;
  double c1, c2;  // the leak's throttles (c2 0: one, to the tank)
  double dz;      // the valve's dead zone
  double c0;      // its command at t = 0
} rest_case;

static const rest_case kRest[] = {
    {"rod side given at the tank pressure", VB_GIVEN, NO_DRAIN, LEAK,
     VALVE "tau: 0.01, initial: rest}", 1e-9, 0, 0, 0},
    {"rod side solved", VB_FREE, NO_DRAIN, LEAK, VALVE "tau: 0.01, initial: rest}", 1e-9, 0, 0, 0},
    {"dead zone and a command", VB_FREE, NO_DRAIN, LEAK,
     VALVE "tau: 0.01, initial: rest, dead_zone: 0.5, signal: cmd}", 1e-9, 0, 0.5, 0.2},
    {"second order", VB_FREE, NO_DRAIN, LEAK,
     VALVE "spool: second_order, natural_frequency: 30, damping_ratio: 0.7, initial: rest, "
           "signal: cmd}",
     1e-9, 0, 0, 0.2},
    {"no dynamics", VB_FREE, NO_DRAIN, LEAK, VALVE "spool: none, initial: rest}", 1e-9, 0, 0, 0},
    {"command the other way", VB_FREE, NO_DRAIN, LEAK,
     VALVE "tau: 0.01, initial: rest, signal: back}", 1e-9, 0, 0, -0.3},
    {"leak through a drain volume", VB_FREE, DRAIN, LEAK2, VALVE "tau: 0.01, initial: rest}",
     1.4e-9, 2e-9, 0, 0},
};

START_TEST(test_rest_offset) {
  const rest_case* rc = &kRest[_i];
  hy_model* m = rest_model(rc->vb, rc->drain, rc->throttles, rc->valve);
  hy_data* d = hy_test_make(m);
  const int va = hy_model_volume(m, "VA"), vb = hy_model_volume(m, "VB");
  const double g = 9.81, Aa = 0.25 * kPi * 0.05 * 0.05,
               Ab = 0.25 * kPi * (0.05 * 0.05 - 0.025 * 0.025);
  const double pA = (kMass * g + kPT * Ab) / Aa;
  const double c1 = rc->c1, c2 = rc->c2;
  const double Q =
      c2 > 0 ? sqrt((pA - kPT) / (1 / (c1 * c1) + 1 / (c2 * c2))) : c1 * sqrt(pA - kPT);
  const double U = Q / (kCvValve * sqrt(kPP - pA));
  // every pressure difference far above dp_lim: the turbulent law holds on every path
  const double dp_min = c2 > 0 ? fmin(Q * Q / (c1 * c1), Q * Q / (c2 * c2)) : pA - kPT;
  ck_assert_double_gt(fmin(kPP - pA, dp_min), fmax(m->vlv_dp_lim[0], m->orf_dp_lim[0]));
  const double eU = hy_test_relerr(d->U[0], U, 0);
  printf("initial: rest (%s): U = %.15g, closed form %.15g (rel %.2g), offset %.15g\n", rc->label,
         d->U[0], U, eU, d->vlv_u0[0]);
  if (c2 > 0) {
    const double pL = kPT + Q * Q / (c2 * c2);
    ck_assert_double_le(hy_test_relerr(d->p[hy_model_volume(m, "VL")], pL, 0), 1e-12);
  }
  ck_assert_double_le(hy_test_relerr(d->p[va], pA, 0), 1e-12);
  ck_assert_double_le(fabs(d->p[vb] - kPT), 1e-6 * kPT);
  ck_assert_double_le(eU, 1e-12);
  // the offset: the command that the dead zone shifts onto U, less the signal's
  ck_assert_double_le(fabs(d->vlv_u0[0] - (d->U[0] + rc->dz - rc->c0)), 1e-15);
  // at rest: the rates of the work-port volumes and of the spool vanish to round-off
  ck_assert_double_le(fabs(d->pd[va]), 1e-9 * pA);
  ck_assert_double_le(fabs(d->pd[vb]), 1e-9 * pA);
  ck_assert_double_le(fabs(d->Ud[0]), 1e-12);
  // and the run stays there for 1 s
  const double p0 = d->p[va];
  double zmax = 0, zdmax = 0, dpmax = 0;
  for (int i = 0; i < 1000; i++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s", d->err.msg);
    zmax = fmax(zmax, fabs(d->z[0]));
    zdmax = fmax(zdmax, fabs(d->zd[0]));
    dpmax = fmax(dpmax, fabs(d->p[va] - p0));
  }
  printf("  over 1 s: |z| <= %.3g m, |z_dot| <= %.3g m/s, |p_A - p_A0| <= %.3g Pa\n", zmax, zdmax,
         dpmax);
  ck_assert_double_le(zmax, 1e-12);
  ck_assert_double_le(zdmax, 1e-12);
  ck_assert_double_le(dpmax, 1e-8 * pA);
  // a reset solves the offset again, the same, without allocating
  const double u0 = d->vlv_u0[0];
  hy_test_count_allocs_begin();
  const hy_status st = hy_data_reset(m, d);
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  ck_assert_int_eq(st, HY_OK);
  ck_assert_double_eq(d->vlv_u0[0], u0);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Without initial: rest the closed valve lets the load sink through the leak: the test above can
// tell rest from motion.
START_TEST(test_rest_control) {
  hy_model* m = rest_model(VB_GIVEN, NO_DRAIN, LEAK, VALVE "tau: 0.01}");
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 1000);
  // about the leak over the piston area, 0.8 mm/s
  ck_assert_double_lt(d->z[0], -1e-4);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

typedef struct rest_error {
  const char* vb;
  const char* valve;
  const char* needle;
} rest_error;

// Rest that cannot be: the rod side held above the tank pressure (B->T would have to pass flow,
// and P->B would fill it), or a saturation below the opening needed. The error names the valve
// at its line and column.
static const rest_error kRestErrors[] = {
    {"{name: VB, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 2e6}",
     VALVE "tau: 0.01, initial: rest}",
     "valve 'dcv': initial: rest finds no command offset that holds the circuit at rest"},
    {VB_FREE, VALVE "tau: 0.01, initial: rest, saturation: 0.01}",
     "valve 'dcv': initial: rest needs the spool at U = 0.0577"},
};

START_TEST(test_rest_errors) {
  const rest_error* c = &kRestErrors[_i];
  hy_model* m = rest_model(c->vb, NO_DRAIN, LEAK, c->valve);
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_data_make(m, &d, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_ERR_MODEL, "status %d: %s", st, buf);
  ck_assert_msg(strstr(err.msg, c->needle), "'%s' not in: %s", c->needle, buf);
  ck_assert_msg(err.src_line == 25 && err.src_col == 11, "reported at %d:%d: %s", err.src_line,
                err.src_col, buf);
  hy_model_free(m);
}
END_TEST

//----- errors in the file ---------------------------------------------------------------------

typedef struct bad_valve {
  const char* valve;  // the valve's mapping, at line 25 column 11
  const char* at;     // where the error is reported: this text in it (NULL: the mapping)
  const char* needle;
} bad_valve;

#define VALVE_HEAD "{name: v, P: pump, T: tank, A: VA, B: VB, cv: 1e-8, "

static const bad_valve kBad[] = {
    {VALVE_HEAD "tau: 0.01, spool: third}", "third",
     "spool: expected one of: first_order, none, second_order; got 'third'"},
    {"{name: v, P: pump, T: tank, A: VA, B: VB, cv: 1e-8}", NULL, "key 'tau' is required"},
    {VALVE_HEAD "spool: second_order, damping_ratio: 1}", NULL,
     "key 'natural_frequency' is required (a positive number, Hz)"},
    {VALVE_HEAD "spool: second_order, tau: 0.01, natural_frequency: 50, damping_ratio: 1}", "tau",
     "'tau' has no meaning with spool: second_order"},
    {VALVE_HEAD "tau: 0.01, damping_ratio: 0.5}", "damping_ratio",
     "'damping_ratio' has no meaning with a first-order spool"},
    {VALVE_HEAD "spool: none, U0: 1}", "U0", "'U0' has no meaning with spool: none"},
    {VALVE_HEAD "tau: 0.01, initial: rest, U0: 1}", "U0", "'U0' has no meaning with initial: rest"},
    {VALVE_HEAD "tau: 0.01, initial: now}", "now",
     "initial: expected one of: given, rest; got 'now'"},
    {VALVE_HEAD "tau: 0.01, units: amps}", "amps",
     "units: expected one of: volts, normalized; got 'amps'"},
    {VALVE_HEAD "tau: 0.01, saturation: big}", "big", "saturation: expected a number"},
    {VALVE_HEAD "spool: second_order, natural_frequency: 50, damping_ratio: -0.1}", NULL,
     "valve 'v': damping_ratio must be >= 0, got -0.1"},
    {VALVE_HEAD "spool: second_order, natural_frequency: 0, damping_ratio: 0.5}", NULL,
     "valve 'v': natural_frequency must be positive (Hz), got 0"},
    {VALVE_HEAD "tau: 0.01, saturation: 0}", NULL,
     "valve 'v': saturation must be positive (V), got 0"},
    {VALVE_HEAD "tau: 0.01, dead_zone: -1}", NULL, "valve 'v': dead_zone must be >= 0 (V), got -1"},
    {VALVE_HEAD "tau: 0.01, units: normalized, saturation: 2}", NULL,
     "valve 'v': saturation must be at most 1 (fraction of the full opening), got 2"},
    {VALVE_HEAD "tau: 0.01, units: normalized, dead_zone: 1}", NULL,
     "valve 'v': dead_zone must be below 1 (fraction of the full opening), got 1"},
    {VALVE_HEAD "tau: 0.01, units: normalized, U0: 1.5}", NULL,
     "valve 'v': U0 must be between -1 and 1 (fraction of the full opening), got 1.5"},
};

START_TEST(test_bad_valve) {
  const bad_valve* c = &kBad[_i];
  char text[4096];
  snprintf(text, sizeof text,
           "%s        - %s\n        %s\n      throttles: %s\n      valves:\n"
           "        - %s\n",
           kRestHead, VB_GIVEN, NO_DRAIN, LEAK, c->valve);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_model_load_string(text, strlen(text), "spool.yaml", &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_ERR_MODEL, "case %d: status %d (%s)", _i, st, buf);
  ck_assert_msg(strstr(err.msg, c->needle), "case %d: '%s' not in: %s", _i, c->needle, buf);
  const int col = 11 + (c->at ? (int)(strstr(c->valve, c->at) - c->valve) : 0);
  ck_assert_msg(err.src_line == 25 && err.src_col == col,
                "case %d: reported at %d:%d, expected 25:%d (%s)", _i, err.src_line, err.src_col,
                col, buf);
}
END_TEST

// The builder API meets the same rules: a spool order changed after compiling has no states.
START_TEST(test_changed_order_refused) {
  hy_model* m = load_text(kSpool);
  m->vlv_spool[hy_model_valve(m, "first")] = HY_SPOOL_SECOND_ORDER;
  hy_error err;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_msg(
      strstr(err.msg, "valve 'first': spool second_order does not match its spool states"), "%s",
      err.msg);
  hy_model_free(m);
}
END_TEST

Suite* hyd_spool_suite(void) {
  Suite* s = suite_create("hyd_spool");
  TCase* tc = tcase_create("hyd_spool");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_shaping);
  tcase_add_test(tc, test_second_order_trapezoidal);
  tcase_add_test(tc, test_second_order_rk4);
  tcase_add_test(tc, test_first_order);
  tcase_add_loop_test(tc, test_none_follows, 0, 4);
  tcase_add_loop_test(tc, test_state_segment, 0, 2);
  tcase_add_test(tc, test_linearization);
  tcase_add_loop_test(tc, test_cosim, 0, 2);
  tcase_add_loop_test(tc, test_rest_offset, 0, (int)(sizeof kRest / sizeof kRest[0]));
  tcase_add_test(tc, test_rest_control);
  tcase_add_loop_test(tc, test_rest_errors, 0, (int)(sizeof kRestErrors / sizeof kRestErrors[0]));
  tcase_add_loop_test(tc, test_bad_valve, 0, (int)(sizeof kBad / sizeof kBad[0]));
  tcase_add_test(tc, test_changed_order_refused);
  suite_add_tcase(s, tc);
  return s;
}
