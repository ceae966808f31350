// Pumps (src/hyd/hyd_pump.c): the flow law against its closed form (fixed: D n - C dp;
// compensated: full below the band, zero above, the smoothstep inside), its slope against
// central differences and across the band's ends, the network's dpd_dp with pumps against
// central differences, and three circuits of tests/data/hyd_pumps.yaml against independent
// truths: a pump filling a sealed volume (the initial rate B Q / V, and the exponential closed
// form of the linear equation), a compensated pump deadheaded against its own leakage (the root
// of eps(dp) D n = C dp by bisection) and a pump held by a relief valve (the root of
// D n = Q_relief by bisection). Then the file's keys and their errors, with positions, the
// builder's errors, the initial state's message for a pump line without p0, the channels and
// the named parameters.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hyd/hyd.h"
#include "hydyn/channels.h"
#include "hydyn/hydyn.h"

static const char* const kFile = "tests/data/hyd_pumps.yaml";

// The displacement fraction as docs/hydraulics.md writes it, independent of src/hyd:
// s = (dp - (p_comp - band)) / band, eps = 1 - (3 s^2 - 2 s^3) clamped to [0, 1].
static double doc_fraction(double dp, double p_comp, double band) {
  const double s = fmin(fmax((dp - (p_comp - band)) / band, 0.0), 1.0);
  return 1.0 - s * s * (3.0 - 2.0 * s);
}

// Node pressure of the compiled model at the data's state (the sources carry no signal here).
static double node_p(const hy_model* m, const hy_data* d, int node) {
  const int nv = m->sizes.nvol;
  return node < nv ? d->p[node] : m->src_p[node - nv];
}

//----- the law -------------------------------------------------------------------------------

START_TEST(test_fixed_closed_form) {
  hy_model* m = hy_test_load(kFile);
  const int i = hy_model_pump(m, "fixed1");
  ck_assert_int_ge(i, 0);
  const double D = 1e-5, n = 25, C = 1e-11;  // the file's values
  const double dps[] = {-2e6, -1.0, 0.0, 1e5, 7.5e6, 3e7};
  for (size_t k = 0; k < sizeof dps / sizeof dps[0]; k++) {
    double eps = -1, dq = 0;
    const double q = hy_hyd_pump_flow(m, i, 0.1, dps[k], &eps, &dq);
    ck_assert_double_le(hy_test_relerr(q, D * n - C * dps[k], 1e-20), 1e-15);
    ck_assert_double_eq(eps, 1.0);
    ck_assert_double_eq(dq, -C);
  }
  hy_model_free(m);
}
END_TEST

// Below the band the whole displacement, above it none, and inside the smoothstep: at a quarter
// of the band eps = 1 - (3/16 - 2/64) = 27/32 with slope -(6 s (1 - s)) / band = -9/(8 band),
// at half of it eps = 1/2 with slope -3/(2 band).
START_TEST(test_compensated_closed_form) {
  hy_model* m = hy_test_load(kFile);
  const int i = hy_model_pump(m, "comp2");
  ck_assert_int_ge(i, 0);
  ck_assert_int_eq(m->pmp_kind[i], HY_PUMP_COMPENSATED);
  const double D = 1e-5, n = 25, C = 5e-12, pc = 20e6, band = 2e6, qg = D * n;
  typedef struct {
    double dp, eps, deps;
  } row;
  const row rows[] = {
      {-1e6, 1, 0},
      {0, 1, 0},
      {17.9e6, 1, 0},
      {pc - band, 1, 0},
      {pc, 0, 0},
      {20.5e6, 0, 0},
      {4e7, 0, 0},
      {pc - 0.75 * band, 27.0 / 32, -9.0 / (8 * band)},
      {pc - 0.5 * band, 0.5, -1.5 / band},
  };
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    const row* r = &rows[k];
    double eps, dq;
    const double q = hy_hyd_pump_flow(m, i, 0.0, r->dp, &eps, &dq);
    ck_assert_msg(fabs(eps - r->eps) <= 1e-15, "dp %g: eps %.17g, expected %.17g", r->dp, eps,
                  r->eps);
    ck_assert_msg(hy_test_relerr(q, r->eps * qg - C * r->dp, 1e-20) <= 1e-14,
                  "dp %g: Q %.17g, expected %.17g", r->dp, q, r->eps * qg - C * r->dp);
    ck_assert_msg(hy_test_relerr(dq, r->deps * qg - C, 0) <= 1e-14,
                  "dp %g: dQ/ddp %.17g, expected %.17g", r->dp, dq, r->deps * qg - C);
    // the fraction on its own, as documented
    double de;
    ck_assert_double_eq(hy_hyd_pump_fraction(r->dp, pc, band, &de), eps);
    ck_assert_double_le(fabs(eps - doc_fraction(r->dp, pc, band)), 1e-15);
  }
  hy_model_free(m);
}
END_TEST

// The speed follows its signal: booster turns at 40 rev/s times ramp(t) = t / 0.05 for
// t < 0.05, so at t = 0.02 at 16 rev/s (below its band, eps = 1).
START_TEST(test_speed_signal) {
  hy_model* m = hy_test_load(kFile);
  const int i = hy_model_pump(m, "booster");
  const double D = 2e-6, C = 2e-12, dp = 1e6;
  ck_assert_double_le(hy_test_relerr(hy_hyd_pump_speed(m, i, 0.02), 16.0, 0), 1e-15);
  const double q = hy_hyd_pump_flow(m, i, 0.02, dp, NULL, NULL);
  ck_assert_double_le(hy_test_relerr(q, D * 16.0 - C * dp, 0), 1e-14);
  ck_assert_double_eq(hy_hyd_pump_speed(m, i, 0.0), 0.0);
  ck_assert_double_eq(hy_hyd_pump_flow(m, i, 0.0, dp, NULL, NULL), -C * dp);
  hy_model_free(m);
}
END_TEST

// Value and slope meet at both ends of the band (C^1), and the slope is that of the value over
// the whole range (on a grid that misses the ends, where the second derivative jumps).
START_TEST(test_compensated_c1_fd) {
  hy_model* m = hy_test_load(kFile);
  const char* names[2] = {"comp2", "booster"};
  for (int k = 0; k < 2; k++) {
    const int i = hy_model_pump(m, names[k]);
    const double pc = m->pmp_p_comp[i], band = m->pmp_dp_comp[i], t = 0.5;
    const double qg = m->pmp_disp[i] * hy_hyd_pump_speed(m, i, t);
    const double dq_ref = 1.5 * qg / band;  // the steepest slope
    const double ends[2] = {pc - band, pc};
    for (int e = 0; e < 2; e++) {
      const double h = 1e-9 * pc;
      double s_lo, s_hi;
      const double q_lo = hy_hyd_pump_flow(m, i, t, ends[e] - h, NULL, &s_lo);
      const double q_hi = hy_hyd_pump_flow(m, i, t, ends[e] + h, NULL, &s_hi);
      ck_assert_msg(fabs(q_hi - q_lo) <= 1e-7 * qg, "%s: value jumps by %.3g at %g", names[k],
                    q_hi - q_lo, ends[e]);
      ck_assert_msg(fabs(s_hi - s_lo) <= 1e-6 * dq_ref, "%s: slope jumps from %.6g to %.6g at %g",
                    names[k], s_lo, s_hi, ends[e]);
    }
    double worst = 0;
    for (int j = 0; j < 200; j++) {
      const double dp = -0.2 * pc + 1.5 * pc * (j + 0.37) / 200.0;
      const double h = 1e-6 * pc;
      double an;
      hy_hyd_pump_flow(m, i, t, dp, NULL, &an);
      const double fd = (hy_hyd_pump_flow(m, i, t, dp + h, NULL, NULL) -
                         hy_hyd_pump_flow(m, i, t, dp - h, NULL, NULL)) /
                        (2 * h);
      const double err = fabs(an - fd) / dq_ref;
      worst = fmax(worst, err);
      ck_assert_msg(err <= 1e-6, "%s: dQ/ddp at %g: %.9g, central difference %.9g", names[k], dp,
                    an, fd);
    }
    printf("pump law %-8s C^1 at the band's ends; slope vs FD worst %.2g\n", names[k], worst);
  }
  hy_model_free(m);
}
END_TEST

//----- the network's derivatives ------------------------------------------------------------

typedef struct fd_case {
  const char* label;
  double t;
  double p[5];  // P1, P2, P3, A, B
  int regime;   // expected regime of comp2 and booster: 0 full, 1 in the band, 2 none
} fd_case;

// comp2's rise is P2 - 0.1 MPa (band 18-20 MPa), booster's B - A (band 5-8 MPa); relief3
// (15 MPa over the tank, 2 MPa wide) is closed, partly or fully open with them.
static const fd_case kFd[] = {
    {"pumps at full displacement, ramp at 0.4", 0.02, {3e6, 5e6, 4e6, 2e6, 6e6}, 0},
    {"compensators in their bands", 0.3, {2.2e7, 1.93e7, 1.6e7, 1.5e6, 8.3e6}, 1},
    {"compensators closed, relief fully open", 0.7, {2.5e7, 2.3e7, 1.75e7, 0.5e6, 9e6}, 2},
};

START_TEST(test_partials_fd) {
  const fd_case* c = &kFd[_i];
  hy_model* m = hy_test_load(kFile);
  hy_data* d = hy_test_make(m);
  const int nv = m->sizes.nvol;
  ck_assert_int_eq(nv, 5);
  double* buf = calloc(hy_hyd_work_size(m) + 1, sizeof(double));
  ck_assert_ptr_nonnull(buf);
  hy_hyd_work hw;
  hy_hyd_work_bind(m, &hw, buf);
  d->time = c->t;
  for (int v = 0; v < nv; v++) d->p[v] = c->p[v];
  hy_test_count_allocs_begin();
  hy_hyd_evaluate(m, d, &hw);
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  // the pumps are in the regime the case names
  const char* comp[2] = {"comp2", "booster"};
  for (int k = 0; k < 2; k++) {
    const double eps = d->pmp_eps[hy_model_pump(m, comp[k])];
    const int regime = eps == 1 ? 0 : (eps == 0 ? 2 : 1);
    ck_assert_msg(regime == c->regime, "%s: %s eps %g", c->label, comp[k], eps);
  }
  // the flows reported are the law's at the nodes' pressure rise
  for (int i = 0; i < m->sizes.npump; i++) {
    const int* nd = m->pmp_node + 2 * i;
    const double rise = node_p(m, d, nd[1]) - node_p(m, d, nd[0]);
    ck_assert_double_eq(d->pmp_q[i], hy_hyd_pump_flow(m, i, c->t, rise, NULL, NULL));
  }
  double* J = malloc(sizeof(double) * (size_t)(nv * nv));
  ck_assert_ptr_nonnull(J);
  memcpy(J, hw.dpd_dp, sizeof(double) * (size_t)(nv * nv));
  double scale = 0;
  for (int k = 0; k < nv * nv; k++) scale = fmax(scale, fabs(J[k]));
  double pd_p[5], pd_m[5], worst = 0;
  for (int w = 0; w < nv; w++) {
    const double p = d->p[w], hp = 1e-7 * fmax(fabs(p), 1e5);
    d->p[w] = p + hp;
    hy_hyd_evaluate(m, d, NULL);
    memcpy(pd_p, d->pd, sizeof pd_p);
    d->p[w] = p - hp;
    hy_hyd_evaluate(m, d, NULL);
    memcpy(pd_m, d->pd, sizeof pd_m);
    d->p[w] = p;
    for (int v = 0; v < nv; v++) {
      const double fd = (pd_p[v] - pd_m[v]) / (2 * hp), an = J[v * nv + w];
      const double e = hy_test_relerr(an, fd, 1e-12 * scale);
      worst = fmax(worst, e);
      ck_assert_msg(e <= 1e-6, "%s: dpd_dp[%d][%d] analytic %.12g, central difference %.12g",
                    c->label, v, w, an, fd);
    }
  }
  // the pump couples A and B both ways: the entries are there, not zero
  const int A = hy_model_volume(m, "A"), B = hy_model_volume(m, "B");
  ck_assert_double_ne(J[A * nv + B], 0.0);
  ck_assert_double_ne(J[B * nv + A], 0.0);
  printf("pump partials, %-42s worst relative error %.3g\n", c->label, worst);
  free(J);
  free(buf);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- circuits against closed forms ---------------------------------------------------------

// Eq. 23 for a volume of hoses only: 1/Be = 1/B_oil + 1/B_hose.
static double hose_modulus(const hy_model* m, int v) {
  return 1.0 / (1.0 / m->circ_B_oil[m->vol_circ[v]] + 1.0 / m->vol_B_hose[v]);
}

// At t = 0: p_dot = Be Q / V with Q = D n - C (p0 - p_tank), the fill circuit's closed form.
START_TEST(test_fill_initial_rate) {
  hy_model* m = hy_test_load(kFile);
  hy_data* d = hy_test_make(m);
  const int v = hy_model_volume(m, "P1"), i = hy_model_pump(m, "fixed1");
  const double D = 1e-5, n = 25, C = 1e-11, V = 1e-3, p0 = 1e6, pt = 0.1e6;
  ck_assert_double_eq(d->p[v], p0);
  hy_hyd_evaluate(m, d, NULL);
  const double Q = D * n - C * (p0 - pt);
  ck_assert_double_le(hy_test_relerr(d->pmp_q[i], Q, 0), 1e-15);
  const double Be = 1.0 / (1.0 / 1.5e9 + 1.0 / 1e12);
  ck_assert_double_le(hy_test_relerr(d->vol_Be[v], Be, 0), 1e-14);
  ck_assert_double_le(hy_test_relerr(d->pd[v], Be * Q / V, 0), 1e-14);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// The fill circuit is linear: dp/dt = (Be/V)(D n - C (p - p_t)), so p(t) = p_inf + (p0 - p_inf)
// exp(-t/tau) with p_inf = p_t + D n / C and tau = V / (Be C). The trapezoidal rule gives
// p_k - p_inf = r^k (p0 - p_inf) with r = (1 - x/2)/(1 + x/2), x = dt/tau, exactly (up to the
// Newton tolerance). With ln r = -x (1 + delta), delta = x^2/12 + x^4/80 + ..., it differs from
// the exponential by e^(-kx) (1 - e^(-kx delta)) <= kx delta e^(-kx) <= (delta/e) |p0 - p_inf|.
START_TEST(test_fill_exponential) {
  hy_model* m = hy_test_load(kFile);
  m->opt.formulation = _i ? HY_FORM_DOUBLE_STEP : HY_FORM_PENALTY;
  hy_data* d = hy_test_make(m);
  const int v = hy_model_volume(m, "P1");
  const double D = 1e-5, n = 25, C = 1e-11, V = 1e-3, p0 = 1e6, pt = 0.1e6;
  const double Be = hose_modulus(m, v), dt = m->opt.dt;
  const double p_inf = pt + D * n / C, tau = V / (Be * C), x = dt / tau;
  const double r = (1 - x / 2) / (1 + x / 2);
  const double delta = -log(r) / x - 1;
  ck_assert_double_le(hy_test_relerr(delta, x * x / 12, 0), x * x);
  const double bound = delta * exp(-1.0) * fabs(p0 - p_inf) + 1e-3;  // + the Newton tolerance
  const long steps = lround(m->opt.t_end / dt);
  double worst_disc = 0, worst_cont = 0, rk = 1;
  hy_test_count_allocs_begin();
  for (long k = 1; k <= steps; k++) {
    const hy_status st = hy_step(m, d);
    ck_assert_msg(st == HY_OK, "step %ld: %s", k, d->err.msg);
    rk *= r;
    const double disc = p_inf + rk * (p0 - p_inf);
    const double cont = p_inf + exp(-d->time / tau) * (p0 - p_inf);
    worst_disc = fmax(worst_disc, fabs(d->p[v] - disc));
    worst_cont = fmax(worst_cont, fabs(d->p[v] - cont));
  }
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  printf(
      "pump filling a sealed volume (%s): tau %.4g s, |p - trapezoidal| %.3g Pa, "
      "|p - exponential| %.3g Pa (bound %.3g Pa)\n",
      hy_formulation_name(m->opt.formulation), tau, worst_disc, worst_cont, bound);
  ck_assert_double_le(worst_disc, 1e-3);
  ck_assert_double_le(worst_cont, bound);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Runs the file's model to its end (penalty, or double-step with _i = 1), no allocation.
static hy_data* run_to_end(hy_model* m, int formulation) {
  m->opt.formulation = formulation ? HY_FORM_DOUBLE_STEP : HY_FORM_PENALTY;
  hy_data* d = hy_test_make(m);
  const long steps = lround(m->opt.t_end / m->opt.dt);
  hy_test_count_allocs_begin();
  for (long k = 0; k < steps; k++) {
    const hy_status st = hy_step(m, d);
    ck_assert_msg(st == HY_OK, "step %ld: %s", k, d->err.msg);
  }
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  return d;
}

// Root of f on [lo, hi] by bisection, f(lo) > 0 > f(hi).
static double bisect(double (*f)(double), double lo, double hi) {
  ck_assert_double_gt(f(lo), 0);
  ck_assert_double_lt(f(hi), 0);
  for (int k = 0; k < 200 && hi - lo > 1e-9; k++) {
    const double mid = 0.5 * (lo + hi);
    if (f(mid) > 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

// The deadheaded pump's net flow at the rise dp: eps(dp) D n - C dp (the file's comp2).
static double deadhead_net(double dp) {
  return doc_fraction(dp, 20e6, 2e6) * 1e-5 * 25 - 5e-12 * dp;
}

START_TEST(test_deadhead_steady) {
  hy_model* m = hy_test_load(kFile);
  hy_data* d = run_to_end(m, _i);
  const int v = hy_model_volume(m, "P2"), i = hy_model_pump(m, "comp2");
  const double pt = 0.1e6, dp_ss = bisect(deadhead_net, 18e6, 20e6);
  const double eps_ss = doc_fraction(dp_ss, 20e6, 2e6);
  ck_assert_double_gt(eps_ss, 0.05);  // well inside the band
  ck_assert_double_lt(eps_ss, 0.95);
  const double err = fabs(d->p[v] - (pt + dp_ss));
  printf(
      "deadheaded compensated pump (%s): simulated %.6f Pa, bisection %.6f Pa, eps %.6f, "
      "difference %.3g Pa\n",
      hy_formulation_name(m->opt.formulation), d->p[v], pt + dp_ss, d->pmp_eps[i], err);
  ck_assert_msg(err <= 1e-3, "steady pressure %.9g Pa, expected %.9g Pa", d->p[v], pt + dp_ss);
  ck_assert_double_le(fabs(d->pmp_eps[i] - eps_ss), 1e-9);
  // nothing flows at rest: the displaced oil all leaks back
  ck_assert_double_le(fabs(d->pmp_q[i]), 1e-12 * 1e-5 * 25);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// The relief circuit at rest: the pump's D n passes the relief valve, partly open, turbulent:
// D n = cv x(dp) sqrt(dp) with x the valves' documented smoothstep over [p_set, p_set + p_open].
static double relief_net(double dp) {
  const double s = fmin(fmax((dp - 15e6) / 2e6, 0.0), 1.0);
  return 1e-5 * 25 - 1.5e-7 * s * s * (3 - 2 * s) * sqrt(dp);
}

START_TEST(test_relief_holds) {
  hy_model* m = hy_test_load(kFile);
  hy_data* d = run_to_end(m, _i);
  const int v = hy_model_volume(m, "P3"), i = hy_model_pump(m, "fixed3");
  const int r = hy_model_pressure_valve(m, "relief3");
  const double pt = 0.1e6, dp_ss = bisect(relief_net, 15e6, 17e6);
  ck_assert_double_gt(dp_ss - 15e6, 0);  // the valve is partly open, the pressure near p_set
  ck_assert_double_lt(dp_ss - 15e6, 2e6);
  const double err = fabs(d->p[v] - (pt + dp_ss));
  printf(
      "pump held by a relief valve (%s): simulated %.6f Pa, bisection %.6f Pa, difference "
      "%.3g Pa\n",
      hy_formulation_name(m->opt.formulation), d->p[v], pt + dp_ss, err);
  ck_assert_msg(err <= 1e-3, "steady pressure %.9g Pa, expected %.9g Pa", d->p[v], pt + dp_ss);
  ck_assert_double_le(hy_test_relerr(d->pvl_q[r], d->pmp_q[i], 0), 1e-9);
  ck_assert_double_le(hy_test_relerr(d->pmp_q[i], 1e-5 * 25, 0), 1e-15);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- the file, the builder and their errors ------------------------------------------------

START_TEST(test_file_arrays) {
  hy_model* m = hy_test_load(kFile);
  const int nv = m->sizes.nvol;
  ck_assert_int_eq(m->sizes.npump, 4);
  const int f1 = hy_model_pump(m, "fixed1"), c2 = hy_model_pump(m, "comp2");
  const int f3 = hy_model_pump(m, "fixed3"), b = hy_model_pump(m, "booster");
  ck_assert_int_eq(f1, 0);  // in the order of the file
  ck_assert_int_eq(c2, 1);
  ck_assert_int_eq(f3, 2);
  ck_assert_int_eq(b, 3);
  ck_assert_int_eq(hy_model_pump(m, "P1"), -1);
  ck_assert_int_eq(m->pmp_kind[f1], HY_PUMP_FIXED);        // no compensator, no kind
  ck_assert_int_eq(m->pmp_kind[c2], HY_PUMP_COMPENSATED);  // compensator, no kind
  ck_assert_int_eq(m->pmp_kind[f3], HY_PUMP_FIXED);        // kind: fixed
  ck_assert_int_eq(m->pmp_kind[b], HY_PUMP_COMPENSATED);   // kind: compensated
  ck_assert_int_eq(m->pmp_node[2 * f1], nv + hy_model_source(m, "tank1"));
  ck_assert_int_eq(m->pmp_node[2 * f1 + 1], hy_model_volume(m, "P1"));
  ck_assert_int_eq(m->pmp_node[2 * b], hy_model_volume(m, "A"));
  ck_assert_int_eq(m->pmp_node[2 * b + 1], hy_model_volume(m, "B"));
  ck_assert_double_eq(m->pmp_disp[f1], 1e-5);
  ck_assert_double_eq(m->pmp_speed[f1], 25);
  ck_assert_double_eq(m->pmp_leak[f1], 1e-11);
  ck_assert_double_eq(m->pmp_leak[f3], 0);  // default
  ck_assert_int_eq(m->pmp_sig[f1], -1);
  ck_assert_int_eq(m->pmp_sig[f3], hy_model_signal(m, "ramp"));
  ck_assert_double_eq(m->pmp_p_comp[f1], 0);
  ck_assert_double_eq(m->pmp_p_comp[c2], 20e6);
  ck_assert_double_eq(m->pmp_dp_comp[c2], 2e6);
  ck_assert_double_eq(m->pmp_p_comp[b], 8e6);
  ck_assert_double_eq(m->pmp_dp_comp[b], 3e6);
  ck_assert_int_eq(m->pmp_src[f1].line, 28);
  ck_assert_int_eq(m->pmp_src[f1].col, 11);
  ck_assert_int_eq(m->pmp_src[c2].line, 36);
  ck_assert_int_eq(m->pmp_src[c2].col, 11);
  hy_model* c;
  ck_assert_int_eq(hy_model_copy(m, &c), HY_OK);
  ck_assert_double_eq(c->pmp_dp_comp[c2], 2e6);
  ck_assert_int_eq(c->pmp_node[2 * b + 1], m->pmp_node[2 * b + 1]);
  hy_model_free(c);
  hy_model_free(m);
}
END_TEST

// The flows and fractions are channels Q:<pump> and eps:<pump>; displacement, speed and leakage
// are named parameters.
START_TEST(test_channels_and_parameters) {
  hy_model* m = hy_test_load(kFile);
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 40);
  hy_channels* ch = NULL;
  hy_error err;
  ck_assert_int_eq(hy_channels_make(m, d, &ch, &err), HY_OK);
  for (int i = 0; i < m->sizes.npump; i++) {
    char name[HY_NAME_MAX + 8];
    snprintf(name, sizeof name, "Q:%s", m->pmp_name + (size_t)i * HY_NAME_MAX);
    int k = hy_channels_find(ch, name);
    ck_assert_int_ge(k, 0);
    int idx[1] = {k};
    double val;
    hy_channels_eval(ch, d, idx, 1, &val);
    ck_assert_double_eq(val, d->pmp_q[i]);
    snprintf(name, sizeof name, "eps:%s", m->pmp_name + (size_t)i * HY_NAME_MAX);
    k = hy_channels_find(ch, name);
    ck_assert_int_ge(k, 0);
    idx[0] = k;
    hy_channels_eval(ch, d, idx, 1, &val);
    ck_assert_double_eq(val, d->pmp_eps[i]);
  }
  hy_channels_free(ch);
  const char* unit = NULL;
  const int b = hy_model_pump(m, "booster");
  ck_assert_ptr_eq(hy_model_param(m, "pump:booster.displacement", &unit, &err), m->pmp_disp + b);
  ck_assert_str_eq(unit, "m^3/rev");
  ck_assert_ptr_eq(hy_model_param(m, "pump:booster.speed", &unit, &err), m->pmp_speed + b);
  ck_assert_str_eq(unit, "rev/s");
  ck_assert_ptr_eq(hy_model_param(m, "pump:booster.leakage", &unit, &err), m->pmp_leak + b);
  ck_assert_ptr_null(hy_model_param(m, "pump:booster.compensator", &unit, &err));
  ck_assert_ptr_nonnull(strstr(err.msg, "a pump has no field 'compensator'"));
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Snippets for the keys' and values' errors, each with a pump under `pumps:` of a circuit with
// a volume V and a tank: the pump's mapping starts at line 15, column 11, and its further keys
// follow one a line from line 20, column 11.
typedef struct bad_text {
  const char* pump;  // the pump's lines from line 15
  int line, col;
  const char* needle;
} bad_text;

#define PUMP_HEAD                  \
  "        - name: p\n"            \
  "          from: tank\n"         \
  "          to: V\n"              \
  "          displacement: 1e-5\n" \
  "          speed: 25\n"

static const bad_text kBadText[] = {
    {PUMP_HEAD "          gear: 2\n", 20, 11, "unknown key 'gear' in pump 'p'"},
    {PUMP_HEAD "          kind: fixed\n          compensator: 2e7\n", 21, 11,
     "pumps[0] 'p': 'compensator' is a key of a compensated pump"},
    {PUMP_HEAD "          compensator_band: 1e6\n", 20, 11,
     "'compensator_band' is a key of a compensated pump"},
    {PUMP_HEAD "          kind: compensated\n", 15, 11, "key 'compensator' is required"},
    {PUMP_HEAD "          compensator: 2e7\n", 15, 11, "key 'compensator_band' is required"},
    {PUMP_HEAD "          kind: variable\n", 20, 17, "expected one of: fixed, compensated"},
    {"        - name: p\n          from: tank\n          to: V\n          speed: 25\n", 15, 11,
     "key 'displacement' is required (a positive number, m^3/rev)"},
    {"        - name: p\n          from: tank\n          to: V\n          displacement: 1e-5\n", 15,
     11, "key 'speed' is required (a non-negative number, rev/s)"},
    {"        - name: p\n          from: tank\n          to: V\n          displacement: -1e-5\n"
     "          speed: 25\n",
     15, 11, "pump 'p': displacement must be positive (m^3/rev), got -1e-05"},
    {"        - name: p\n          from: tank\n          to: V\n          displacement: 45\n"
     "          speed: 25\n",
     15, 11, "pump 'p': displacement must be at most 1 (m^3/rev), got 45"},
    {"        - name: p\n          from: tank\n          to: V\n          displacement: 1e-5\n"
     "          speed: 1500\n",
     15, 11, "pump 'p': speed must be at most 1000 (rev/s), got 1500"},
    {PUMP_HEAD "          leakage: -1e-12\n", 15, 11,
     "pump 'p': leakage must be >= 0 (m^3/(s Pa)), got -1e-12"},
    {PUMP_HEAD "          compensator: 1e6\n          compensator_band: 2e6\n", 15, 11,
     "pump 'p': compensator_band (2e+06 Pa) must not exceed compensator (1e+06 Pa)"},
    {PUMP_HEAD "          compensator: 0\n          compensator_band: 1e5\n", 15, 11,
     "pump 'p': compensator must be positive (Pa), got 0"},
    {PUMP_HEAD "          compensator: 2e7\n          compensator_band: 0\n", 15, 11,
     "pump 'p': compensator_band must be positive (Pa), got 0"},
    {PUMP_HEAD "          signal: nosig\n", 15, 11, "pump 'p': signal 'nosig' does not exist"},
    {"        - name: p\n          from: V\n          to: tank\n          displacement: 1e-5\n"
     "          speed: 25\n",
     15, 11, "pump 'p': to 'tank' is a source; a pump delivers into a volume"},
    {"        - name: p\n          from: V\n          to: V\n          displacement: 1e-5\n"
     "          speed: 25\n",
     15, 11, "pump 'p': from and to are the same node 'V'"},
    {"        - name: p\n          from: nowhere\n          to: V\n          displacement: 1e-5\n"
     "          speed: 25\n",
     15, 11, "pump 'p': from 'nowhere' is not a volume or source of the hydraulics"},
    {"        - name: tank\n          from: V\n          to: V\n          displacement: 1e-5\n"
     "          speed: 25\n",
     15, 11, "pump 'tank': the name is already used by a source"},
};

START_TEST(test_bad_text) {
  const bad_text* c = &kBadText[_i];
  static const char head[] =
      "bodies: [{name: slider, mass: 10}]\n"
      "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
      "signals: [{name: sig, table: [[0, 1], [1, 1]]}]\n"
      "solver: {dt: 1e-3}\n"
      "# padding\n"
      "# padding\n"
      "# hydraulics from line 8\n"
      "hydraulics:\n"
      "  circuits:\n"
      "    - name: c\n"
      "      oil: {bulk_modulus: 1e9}\n"
      "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
      "      sources: [{name: tank, pressure: 1e5}]\n"
      "      pumps:\n";
  char text[4096];
  snprintf(text, sizeof text, "%s%s", head, c->pump);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_model_load_string(text, strlen(text), "snippet.yaml", &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_ERR_MODEL, "case %d: status %d (%s)", _i, st, buf);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(err.msg, c->needle), "case %d: '%s' not in: %s", _i, c->needle, buf);
  ck_assert_msg(err.src_line == c->line && err.src_col == c->col,
                "case %d: reported at %d:%d, expected %d:%d (%s)", _i, err.src_line, err.src_col,
                c->line, c->col, buf);
  ck_assert_str_eq(err.src_path, "snippet.yaml");
}
END_TEST

// `pumps` must be a list.
START_TEST(test_pumps_not_a_list) {
  static const char text[] =
      "bodies: [{name: slider, mass: 10}]\n"
      "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
      "hydraulics:\n"
      "  circuits:\n"
      "    - name: c\n"
      "      oil: {bulk_modulus: 1e9}\n"
      "      pumps: 5\n";
  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "s.yaml", &m, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "pumps: expected a list of pumps"));
  ck_assert_int_eq(err.src_line, 7);
  ck_assert_int_eq(err.src_col, 14);
}
END_TEST

// The builder: a valid pump compiles; each mutation is refused at the definition's position.
typedef struct bad_build {
  int mutation;
  const char* needle;
} bad_build;

static const bad_build kBadBuild[] = {
    {0, NULL},
    {1,
     "pump 'p': a fixed pump has no compensator (compensator 2e+07 Pa, compensator_band 0 Pa "
     "given); make it kind compensated"},
    {2, "pump 'p': unknown kind 7"},
    {3, "pump 1 has no name"},
    {4, "pump 't': the name is already used by a throttle"},
    {5, "pump 'p': leakage must be at most 0.001 (m^3/(s Pa)), got 0.01"},
    {6, "pump 'p': speed must be >= 0 (rev/s), got -25"},
};

START_TEST(test_builder) {
  const bad_build* b = &kBadBuild[_i];
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_body_def body = hy_body_def_default();
  snprintf(body.name, sizeof body.name, "slider");
  body.mass = 10;
  ck_assert_int_eq(hy_spec_add_body(s, &body), HY_OK);
  hy_joint_def j = hy_joint_def_default();
  snprintf(j.name, sizeof j.name, "js");
  snprintf(j.child, sizeof j.child, "slider");
  j.type = HY_JOINT_PRISMATIC;
  ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  hy_circuit_def c = hy_circuit_def_default();
  snprintf(c.name, sizeof c.name, "main");
  c.B_oil = 1.5e9;
  ck_assert_int_eq(hy_spec_add_circuit(s, &c), HY_OK);
  hy_volume_def v = hy_volume_def_default();
  snprintf(v.name, sizeof v.name, "V");
  snprintf(v.circuit, sizeof v.circuit, "main");
  v.hose_volume = 1e-4;
  v.hose_bulk_modulus = 1e9;
  v.p0 = 1e6;
  ck_assert_int_eq(hy_spec_add_volume(s, &v), HY_OK);
  hy_source_def t = hy_source_def_default();
  snprintf(t.name, sizeof t.name, "tank");
  snprintf(t.circuit, sizeof t.circuit, "main");
  t.pressure = 1e5;
  ck_assert_int_eq(hy_spec_add_source(s, &t), HY_OK);
  hy_throttle_def th = hy_throttle_def_default();
  snprintf(th.name, sizeof th.name, "t");
  snprintf(th.from, sizeof th.from, "V");
  snprintf(th.to, sizeof th.to, "tank");
  th.cv = 1e-7;
  ck_assert_int_eq(hy_spec_add_throttle(s, &th), HY_OK);
  // a compensated pump first, valid in every case
  hy_pump_def q = hy_pump_def_default();
  ck_assert_int_eq(q.kind, HY_PUMP_FIXED);
  ck_assert_double_eq(q.leakage, 0);
  snprintf(q.name, sizeof q.name, "q");
  snprintf(q.from, sizeof q.from, "tank");
  snprintf(q.to, sizeof q.to, "V");
  q.kind = HY_PUMP_COMPENSATED;
  q.displacement = 1e-5;
  q.speed = 25;
  q.compensator = 2e7;
  q.compensator_band = 1e6;
  ck_assert_int_eq(hy_spec_add_pump(s, &q), HY_OK);
  hy_pump_def p = hy_pump_def_default();
  snprintf(p.name, sizeof p.name, "p");
  snprintf(p.from, sizeof p.from, "tank");
  snprintf(p.to, sizeof p.to, "V");
  p.displacement = 1e-5;
  p.speed = 25;
  p.pos = (hy_srcpos){40, 7};
  if (b->mutation == 1) p.compensator = 2e7;
  if (b->mutation == 2) p.kind = (hy_pump_kind)7;
  if (b->mutation == 3) p.name[0] = 0;
  if (b->mutation == 4) snprintf(p.name, sizeof p.name, "t");
  if (b->mutation == 5) p.leakage = 1e-2;
  if (b->mutation == 6) p.speed = -25;
  ck_assert_int_eq(hy_spec_add_pump(s, &p), HY_OK);
  ck_assert_int_eq(hy_spec_add_pump(s, NULL), HY_ERR_ARG);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_model_compile(s, &m, &err);
  hy_spec_free(s);
  if (!b->needle) {
    ck_assert_msg(st == HY_OK, "%s", err.msg);
    ck_assert_int_eq(m->sizes.npump, 2);
    const int i = hy_model_pump(m, "p");
    ck_assert_int_eq(i, 1);
    ck_assert_int_eq(m->pmp_kind[i], HY_PUMP_FIXED);
    ck_assert_int_eq(m->pmp_src[i].line, 40);
    ck_assert_int_eq(m->pmp_kind[0], HY_PUMP_COMPENSATED);
    ck_assert_double_eq(m->pmp_p_comp[0], 2e7);
    hy_model_free(m);
    return;
  }
  ck_assert_int_eq(st, HY_ERR_MODEL);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(err.msg, b->needle), "mutation %d: '%s' not in '%s'", b->mutation, b->needle,
                err.msg);
  ck_assert_int_eq(err.src_line, 40);
  ck_assert_int_eq(err.src_col, 7);
}
END_TEST

// A pump fixes no pressure at rest: the volume it feeds needs p0, and the message says why.
START_TEST(test_initial_needs_p0) {
  static const char text[] =
      "bodies: [{name: slider, mass: 10}]\n"
      "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
      "hydraulics:\n"
      "  circuits:\n"
      "    - name: c\n"
      "      oil: {bulk_modulus: 1e9}\n"
      "      volumes:\n"
      "        - {name: line, hose_volume: 1e-4, hose_bulk_modulus: 1e9}\n"
      "      sources: [{name: tank, pressure: 1e5}]\n"
      "      pumps: [{name: p, from: tank, to: line, displacement: 1e-5, speed: 25}]\n"
      "      relief_valves: [{name: r, from: line, to: tank, cv: 1e-7, p_set: 1e7, p_open: 1e6}]\n";
  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "s.yaml", &m, &err), HY_OK);
  hy_data* d = NULL;
  ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
  ck_assert_ptr_null(d);
  ck_assert_ptr_nonnull(strstr(err.msg, "volume 'line' has no initial pressure"));
  ck_assert_ptr_nonnull(strstr(err.msg, "pump 'p' delivers into it but fixes no pressure"));
  ck_assert_int_eq(err.src_line, 8);
  ck_assert_int_eq(err.src_col, 11);
  hy_model_free(m);
}
END_TEST

Suite* hyd_pump_suite(void) {
  Suite* s = suite_create("hyd_pump");
  TCase* tc = tcase_create("hyd_pump");
  tcase_add_test(tc, test_fixed_closed_form);
  tcase_add_test(tc, test_compensated_closed_form);
  tcase_add_test(tc, test_speed_signal);
  tcase_add_test(tc, test_compensated_c1_fd);
  tcase_add_loop_test(tc, test_partials_fd, 0, (int)(sizeof kFd / sizeof kFd[0]));
  tcase_add_test(tc, test_fill_initial_rate);
  tcase_add_loop_test(tc, test_fill_exponential, 0, 2);
  tcase_add_loop_test(tc, test_deadhead_steady, 0, 2);
  tcase_add_loop_test(tc, test_relief_holds, 0, 2);
  tcase_add_test(tc, test_file_arrays);
  tcase_add_test(tc, test_channels_and_parameters);
  tcase_add_loop_test(tc, test_bad_text, 0, (int)(sizeof kBadText / sizeof kBadText[0]));
  tcase_add_test(tc, test_pumps_not_a_list);
  tcase_add_loop_test(tc, test_builder, 0, (int)(sizeof kBadBuild / sizeof kBadBuild[0]));
  tcase_add_test(tc, test_initial_needs_p0);
  suite_add_tcase(s, tc);
  return s;
}
