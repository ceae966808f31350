// Oil laws, rigid walls and gas-charged accumulators (src/hyd/hyd_fluid.c, hyd_accumulator.c;
// docs/hydraulics.md): each law's B(p) against the modulus -V dp/dV of its own volume law by
// central differences, and dB/dp against central differences of B; a sealed chamber compressed
// by its piston against the closed form that mass conservation gives for each law; an
// accumulator's p-V relation, its blend at the pre-charge, its charge by a piston and by a pump;
// every derivative of hy_hyd_work against central differences with each law, a volume's own oil,
// rigid walls and accumulators; the keys' errors at their file positions and the value ranges.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hyd/hyd.h"
#include "hydyn/channels.h"
#include "hydyn/model.h"
#include "hydyn/sim.h"

//----- the laws as functions -----------------------------------------------------------------

static const double kB0 = 1.5e9, kPatm = 101325.0;

static hy_oil oil_of(int law) {
  hy_oil o;
  memset(&o, 0, sizeof o);
  o.law = law;
  o.B0 = kB0;
  o.k = 11;
  o.p_atm = kPatm;
  o.n = 1.4;
  return o;
}

// B(p) from a law of the volume v(p) of a fixed mass: B = -v/(dv/dp), dv/dp by central
// differences of step h (an independent route to the modulus: the laws never compute a volume).
static double modulus_of_volume(double (*vol)(const hy_oil*, double), const hy_oil* o, double p,
                                double h) {
  return -vol(o, p) / ((vol(o, p + h) - vol(o, p - h)) / (2 * h));
}

// The polynomial law is a density law: the volume of a unit mass is 1/r(p).
static double polynomial_volume(const hy_oil* o, double p) {
  return 1.0 / (1.0 + o->a * p + o->b * p * p);
}

// Oil with entrained air, per unit mixture volume at p_atm: the oil compresses at B0, the air
// follows p V^n = p_atm x^n.
static double air_volume(const hy_oil* o, double p) {
  return (1 - o->air) * exp(-(p - o->p_atm) / o->B0) + o->air * pow(o->p_atm / p, 1 / o->n);
}

// dB/dp of the law against central differences of B, away from the table's points.
static void check_slope(const hy_oil* o, double p, const char* what) {
  double dB, unused;
  hy_hyd_oil_law(o, p, &dB);
  const double h = 1e-5 * fmax(p, 1e3);
  const double fd =
      (hy_hyd_oil_law(o, p + h, &unused) - hy_hyd_oil_law(o, p - h, &unused)) / (2 * h);
  ck_assert_msg(hy_test_relerr(dB, fd, 1e-6) < 1e-6, "%s at p = %g: dB/dp %.12g, fd %.12g", what, p,
                dB, fd);
}

START_TEST(test_law_polynomial) {
  hy_oil o = oil_of(HY_BULK_POLYNOMIAL);
  // the density of the linear law B0 + 11 p to second order: b = (1 - k)/(2 B0^2)
  o.a = 1 / kB0;
  o.b = (1 - 11.0) / (2 * kB0 * kB0);
  const double ps[] = {0, 1e5, 5e6, 2e7, 6e7};
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
    double dB;
    const double B = hy_hyd_oil_law(&o, ps[i], &dB);
    // v = 1/r is nearly linear: a wide step (10 kPa) keeps the rounding of v(p +- h) small,
    // and its truncation, h^2/6 v'''/v' with v'''/v' about -12 b, stays below 1e-9
    ck_assert_double_le(hy_test_relerr(B, modulus_of_volume(polynomial_volume, &o, ps[i], 1e4), 0),
                        1e-8);
    check_slope(&o, ps[i] + 1e3, "polynomial");
  }
  // at p = 0 the modulus is 1/a and its slope 1 - 2 b/a^2, which is k for this fit
  double dB;
  ck_assert_double_le(hy_test_relerr(hy_hyd_oil_law(&o, 0, &dB), kB0, 0), 1e-15);
  ck_assert_double_le(hy_test_relerr(dB, 11.0, 0), 1e-14);
}
END_TEST

START_TEST(test_law_air) {
  hy_oil o = oil_of(HY_BULK_AIR);
  o.air = 0.01;
  const double ps[] = {2e3, kPatm, 5e5, 3e6, 2.5e7};
  for (int n = 0; n < 2; n++) {
    o.n = n ? 1.0 : 1.4;
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
      double dB;
      const double B = hy_hyd_oil_law(&o, ps[i], &dB);
      const double ref = modulus_of_volume(air_volume, &o, ps[i], 1e-5 * ps[i]);
      ck_assert_msg(hy_test_relerr(B, ref, 0) < 1e-7, "n %g p %g: B %.12g, -V dp/dV %.12g", o.n,
                    ps[i], B, ref);
      check_slope(&o, ps[i], "air");
    }
  }
  // the air dominates at low pressure: B -> n p (1 + V_o/V_a ...) > 0, and the mixture is
  // always softer than the oil
  double dB;
  ck_assert_double_lt(hy_hyd_oil_law(&o, 3e6, &dB), kB0);
  // no air: the oil's modulus
  o.air = 0;
  ck_assert_double_le(hy_test_relerr(hy_hyd_oil_law(&o, 4e6, &dB), kB0, 0), 1e-15);
  ck_assert_double_le(fabs(dB), 1e-12);
  // below 1e-3 p_atm (also at p <= 0) the law holds its value there, with a zero slope
  o.air = 0.01;
  const double B_floor = hy_hyd_oil_law(&o, 1e-3 * kPatm, &dB);
  const double lows[] = {50.0, 0.0, -2e5};
  for (int i = 0; i < 3; i++) {
    ck_assert_double_eq(hy_hyd_oil_law(&o, lows[i], &dB), B_floor);
    ck_assert_double_eq(dB, 0.0);
  }
  ck_assert(isfinite(B_floor) && B_floor > 0);
}
END_TEST

START_TEST(test_law_table) {
  static const double tp[] = {1e5, 5e6, 1e7, 2e7}, tb[] = {0.8e9, 1.2e9, 1.5e9, 1.5e9};
  hy_oil o = oil_of(HY_BULK_TABLE);
  o.tab_p = tp;
  o.tab_beta = tb;
  o.tab_n = 4;
  double dB;
  // at the points and held outside
  for (int k = 0; k < 4; k++) ck_assert_double_eq(hy_hyd_oil_law(&o, tp[k], &dB), tb[k]);
  ck_assert_double_eq(hy_hyd_oil_law(&o, 0, &dB), tb[0]);
  ck_assert_double_eq(dB, 0.0);
  ck_assert_double_eq(hy_hyd_oil_law(&o, 5e7, &dB), tb[3]);
  ck_assert_double_eq(dB, 0.0);
  // linear between: a quarter of the way into the second segment, and its slope
  const double p = tp[1] + 0.25 * (tp[2] - tp[1]);
  ck_assert_double_le(hy_test_relerr(hy_hyd_oil_law(&o, p, &dB), 1.275e9, 0), 1e-15);
  ck_assert_double_le(hy_test_relerr(dB, 0.3e9 / 5e6, 0), 1e-15);
  const double inside[] = {2e5, 4.9e6, 7e6, 1.5e7};
  for (int i = 0; i < 4; i++) check_slope(&o, inside[i], "table");
  // the slope at a point is that of the segment above it
  hy_hyd_oil_law(&o, tp[1], &dB);
  ck_assert_double_le(hy_test_relerr(dB, 0.3e9 / 5e6, 0), 1e-15);
}
END_TEST

//----- models --------------------------------------------------------------------------------

static hy_model* load_text(const char* text) { return hy_test_load_text(text, "fluid.yaml"); }

static const char kSlider[] =
    "bodies: [{name: slider, mass: 10}]\n"
    "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
    "markers:\n"
    "  - {name: G, body: ground}\n"
    "  - {name: F, body: slider, point: [1.4, 0, 0]}\n";

// Two sealed chambers Va (piston side) and Vb of a cylinder with rigid walls and rigid hoses:
// oil `oil`, initial pressures pa, pb, and the accumulators `acc` (a YAML list) on them.
static hy_model* sealed_model(const char* oil, double pa, double pb, const char* acc) {
  char text[4096];
  snprintf(text, sizeof text,
           "%s"
           "hydraulics:\n"
           "  circuits:\n"
           "    - name: c\n"
           "      oil: %s\n"
           "      volumes:\n"
           "        - {name: Va, hose_volume: 1e-5, hose_bulk_modulus: rigid, p0: %.17g}\n"
           "        - {name: Vb, hose_volume: 2e-5, hose_bulk_modulus: rigid, p0: %.17g}\n"
           "      cylinders:\n"
           "        - {name: cyl, marker_a: G, marker_b: F, chamber_a: Va, chamber_b: Vb,\n"
           "           area_a: 5e-3, area_b: 3e-3, stroke: 0.5, dead_length: 1.2,\n"
           "           bulk_modulus: rigid}\n"
           "      accumulators: %s\n",
           kSlider, oil, pa, pb, acc);
  return load_text(text);
}

// Chamber geometry of sealed_model at actuator length s: oil volumes of Va and Vb.
static void sealed_volumes(double s, double V[2]) {
  const double la = s - 1.2;
  V[0] = 1e-5 + 5e-3 * la;
  V[1] = 2e-5 + 3e-3 * (0.5 - la);
}

// The chamber pressures integrated by RK4 on the hydraulics alone while the actuator moves from
// s0 at the rate sd for time T (n steps); the data's pressures hold the start.
static void integrate(const hy_model* m, hy_data* d, double s0, double sd, double T, int n) {
  const int f = m->cyl_frc[0], nv = m->sizes.nvol;
  double p[8], k[4][8];
  ck_assert_int_le(nv, 8);
  for (int v = 0; v < nv; v++) p[v] = d->p[v];
  const double dt = T / n;
  for (int i = 0; i < n; i++) {
    static const double c[4] = {0, 0.5, 0.5, 1};
    for (int st = 0; st < 4; st++) {
      for (int v = 0; v < nv; v++) d->p[v] = p[v] + (st ? c[st] * dt * k[st - 1][v] : 0);
      d->frc_len[f] = s0 + sd * (i + c[st]) * dt;
      d->frc_rate[f] = sd;
      hy_hyd_evaluate(m, d, NULL);
      for (int v = 0; v < nv; v++) k[st][v] = d->pd[v];
    }
    for (int v = 0; v < nv; v++) p[v] += dt / 6 * (k[0][v] + 2 * k[1][v] + 2 * k[2][v] + k[3][v]);
  }
  for (int v = 0; v < nv; v++) d->p[v] = p[v];
}

// The root of the increasing function g(p) - target on [lo, hi] by bisection.
static double solve(double (*g)(const void*, double), const void* ctx, double target, double lo,
                    double hi) {
  ck_assert_double_lt(g(ctx, lo), target);
  ck_assert_double_gt(g(ctx, hi), target);
  for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; i++) {
    const double mid = 0.5 * (lo + hi);
    if (g(ctx, mid) < target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

//----- a sealed chamber under each law: closed forms of mass conservation ----------------------

// ln(rho(p)/rho(p_ref)) = integral of dp/B: the mass in a rigid volume V is rho(p) V, so
// V(t) exp(G(p(t))) stays constant. G for each law in closed form.
typedef struct law_case {
  const char* label;
  const char* oil;  // its YAML
  hy_oil o;         // the same oil for the closed form
} law_case;

static const double kTabP[] = {1e5, 5e6, 1e7, 2e7}, kTabB[] = {0.8e9, 1.2e9, 1.5e9, 1.7e9};

static double log_density(const hy_oil* o, double p) {
  switch (o->law) {
    case HY_BULK_POLYNOMIAL:
      return log(1 + o->a * p + o->b * p * p);
    case HY_BULK_AIR:
      return -log(air_volume(o, p));  // the mixture's density is 1/its volume per unit mass
    case HY_BULK_TABLE: {
      // held below the first point and above the last; on a segment of slope s,
      // integral dp/(B_k + s (p - p_k)) = ln(B(p)/B_k)/s
      double G = (fmin(p, o->tab_p[0]) - o->tab_p[0]) / o->tab_beta[0];
      for (int k = 0; k + 1 < o->tab_n; k++) {
        const double a = o->tab_p[k], b = fmin(fmax(p, a), o->tab_p[k + 1]);
        const double s = (o->tab_beta[k + 1] - o->tab_beta[k]) / (o->tab_p[k + 1] - a);
        G += log((o->tab_beta[k] + s * (b - a)) / o->tab_beta[k]) / s;
      }
      const int n = o->tab_n;
      return G + (fmax(p, o->tab_p[n - 1]) - o->tab_p[n - 1]) / o->tab_beta[n - 1];
    }
    default:
      return p / o->B0;
  }
}

static double log_density_fn(const void* o, double p) { return log_density(o, p); }

START_TEST(test_sealed_closed_form) {
  law_case cases[3];
  cases[0] = (law_case){"polynomial", "{law: polynomial, a: 6.6666666666666667e-10, b: -2e-18}",
                        oil_of(HY_BULK_POLYNOMIAL)};
  cases[0].o.a = 6.6666666666666667e-10;
  cases[0].o.b = -2e-18;
  cases[1] = (law_case){"air", "{law: air, bulk_modulus: 1.5e9, air_fraction: 0.005}",
                        oil_of(HY_BULK_AIR)};
  cases[1].o.air = 0.005;
  cases[2] = (law_case){"table",
                        "{law: table, table: [[1e5, 0.8e9], [5e6, 1.2e9], [1e7, 1.5e9], "
                        "[2e7, 1.7e9]]}",
                        oil_of(HY_BULK_TABLE)};
  cases[2].o.tab_p = kTabP;
  cases[2].o.tab_beta = kTabB;
  cases[2].o.tab_n = 4;
  const law_case* c = &cases[_i];
  const double p0[2] = {2e6, 15e6};  // the rod side loses about 10 MPa
  hy_model* m = sealed_model(c->oil, p0[0], p0[1], "[]");
  hy_data* d = hy_test_make(m);
  ck_assert_double_eq(m->cyl_B[0], HY_RIGID);
  // the piston retracts by 2 mm: chamber a loses about 1 % of its volume, b gains 1 %
  const double s0 = 1.4, sd = -0.02, T = 0.1;
  integrate(m, d, s0, sd, T, 2000);
  double V0[2], V1[2];
  sealed_volumes(s0, V0);
  sealed_volumes(s0 + sd * T, V1);
  for (int v = 0; v < 2; v++) {
    // G(p1) = G(p0) + ln(V0/V1)
    const double target = log_density(&c->o, p0[v]) + log(V0[v] / V1[v]);
    const double p1 = solve(log_density_fn, &c->o, target, 1e4, 1e8);
    const double e = hy_test_relerr(d->p[v] - p0[v], p1 - p0[v], 0);
    ck_assert_msg(e < 1e-7, "%s, chamber %d: dp %.10g, closed form %.10g (rel %.2g)", c->label, v,
                  d->p[v] - p0[v], p1 - p0[v], e);
  }
  ck_assert_double_gt(d->p[0], 1.2 * p0[0]);  // a real compression: through a table point too
  // rigid walls: the effective modulus is the oil's, with no wall term at all
  double dB;
  const double B = hy_hyd_volume_oil_modulus(m, 0, d->p[0], &dB);
  hy_hyd_evaluate(m, d, NULL);
  ck_assert_double_eq(d->vol_Be[0], d->vol_V[0] / (d->vol_V[0] / B));
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- which path evaluates a volume's oil --------------------------------------------------

START_TEST(test_oil_dispatch) {
  char text[4096];
  snprintf(text, sizeof text,
           "%s"
           "hydraulics:\n"
           "  circuits:\n"
           "    - name: c\n"
           "      oil: {bulk_modulus: 1.5e9, law: linear, k: 11}\n"
           "      volumes:\n"
           "        - {name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e6}\n"
           "        - {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e6,\n"
           "           oil: {law: air, bulk_modulus: 1.6e9, air_fraction: 0.02, polytropic: 1.0,\n"
           "                 p_atm: 1e5}}\n"
           "      sources: [{name: tank, pressure: 1e5}]\n"
           "      throttles: [{name: t, from: A, to: B, cv: 1e-7},\n"
           "                  {name: u, from: tank, to: B, cv: 1e-7}]\n"
           "    - name: d\n"
           "      oil: {bulk_modulus: 1.4e9}\n"
           "      volumes:\n"
           "        - {name: C, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e6,\n"
           "           oil: {bulk_modulus: 1.1e9}}\n"
           "        - {name: D, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e6}\n"
           "      throttles: [{name: w, from: C, to: D, cv: 1e-7}]\n",
           kSlider);
  hy_model* m = load_text(text);
  const int A = hy_model_volume(m, "A"), B = hy_model_volume(m, "B");
  const int C = hy_model_volume(m, "C"), D = hy_model_volume(m, "D");
  ck_assert_int_eq(m->vol_oil_fast[A], HY_BULK_LINEAR);
  ck_assert_int_eq(m->vol_oil_fast[B], -1);
  ck_assert_int_eq(m->vol_oil_fast[C], -1);  // its own oil, though constant
  ck_assert_int_eq(m->vol_oil_fast[D], HY_BULK_CONSTANT);
  ck_assert_int_eq(m->vol_law[B], HY_BULK_AIR);
  ck_assert_int_eq(m->vol_law[A], -1);
  double dB;
  ck_assert_double_eq(hy_hyd_volume_oil_modulus(m, A, 2e6, &dB), 1.5e9 + 11 * 2e6);
  ck_assert_double_eq(dB, 11.0);
  ck_assert_double_eq(hy_hyd_volume_oil_modulus(m, C, 2e6, &dB), 1.1e9);
  ck_assert_double_eq(hy_hyd_volume_oil_modulus(m, D, 2e6, &dB), 1.4e9);
  hy_oil o = oil_of(HY_BULK_AIR);
  o.B0 = 1.6e9, o.air = 0.02, o.n = 1.0, o.p_atm = 1e5;
  double dB_ref;
  ck_assert_double_eq(hy_hyd_volume_oil_modulus(m, B, 2e6, &dB), hy_hyd_oil_law(&o, 2e6, &dB_ref));
  ck_assert_double_eq(dB, dB_ref);
  hy_model_free(m);
}
END_TEST

//----- accumulators --------------------------------------------------------------------------

// One accumulator (p0 = 2 MPa, V0 = 2e-4 m^3, n = 1.4) on the piston side of sealed_model.
static const char kAcc[] = "[{name: acc, volume: Va, precharge: 2e6, gas_volume: 2e-4}]";

static double true_oil(double p, double p0, double V0, double n) {
  return p > p0 ? V0 * (1 - pow(p0 / p, 1 / n)) : 0;
}

START_TEST(test_accumulator_curve) {
  hy_model* m = sealed_model("{bulk_modulus: 1.5e9}", 3e6, 3e6, kAcc);
  const double p0 = 2e6, V0 = 2e-4, n = 1.4;
  ck_assert_double_eq(m->acc_n[0], n);  // the default
  // p (V0 - V)^n = p0 V0^n wherever the blend does not act (|p - p0| > 2 n eps p0)
  const double ps[] = {2.01e6, 2.5e6, 5e6, 2e7, 1e9};
  for (int i = 0; i < 5; i++) {
    const double V = hy_hyd_accumulator_volume(m, 0, ps[i], NULL, NULL);
    ck_assert_double_le(hy_test_relerr(ps[i] * pow(V0 - V, n), p0 * pow(V0, n), 0), 1e-13);
  }
  // empty below the pre-charge (and for p <= 0)
  const double lows[] = {1.99e6, 1e5, 0.0, -1e6};
  for (int i = 0; i < 4; i++) {
    double dV, d2V;
    ck_assert_double_eq(hy_hyd_accumulator_volume(m, 0, lows[i], &dV, &d2V), 0.0);
    ck_assert_double_eq(dV, 0.0);
    ck_assert_double_eq(d2V, 0.0);
  }
  // the blend's edges, where u = 1 - (p0/p)^(1/n) = -+1e-3: value and two derivatives meet
  const double edges[2] = {p0 * pow(1 + 1e-3, -n), p0 * pow(1 - 1e-3, -n)};
  for (int e = 0; e < 2; e++) {
    double f[2][3];
    for (int side = 0; side < 2; side++) {
      const double p = edges[e] * (1 + (side ? 1e-12 : -1e-12));
      f[side][0] = hy_hyd_accumulator_volume(m, 0, p, &f[side][1], &f[side][2]);
    }
    // outside the band the true law: its values at the edge
    const double scale[3] = {V0 * 1e-3, V0 / (n * p0), V0 / (n * p0 * p0)};
    for (int k = 0; k < 3; k++) {
      ck_assert_msg(fabs(f[0][k] - f[1][k]) <= 1e-6 * scale[k], "edge %d, derivative %d: %g vs %g",
                    e, k, f[0][k], f[1][k]);
    }
    if (e == 1) {
      ck_assert_double_le(hy_test_relerr(f[1][0], true_oil(edges[1] * (1 + 1e-12), p0, V0, n), 0),
                          1e-9);
    }
  }
  // dV/dp and d2V/dp2 against central differences, in the band and out of it
  const double pts[] = {p0 * 0.9995, p0, p0 * 1.0005, p0 * 1.001, 3e6, 1.5e7};
  for (int i = 0; i < 6; i++) {
    double dV, d2V, dVp, dVm, unused;
    hy_hyd_accumulator_volume(m, 0, pts[i], &dV, &d2V);
    const double h = 1e-7 * pts[i];
    const double Vp = hy_hyd_accumulator_volume(m, 0, pts[i] + h, &dVp, &unused);
    const double Vm = hy_hyd_accumulator_volume(m, 0, pts[i] - h, &dVm, &unused);
    ck_assert_msg(hy_test_relerr(dV, (Vp - Vm) / (2 * h), 0) < 1e-6, "dV at %g", pts[i]);
    ck_assert_msg(hy_test_relerr(d2V, (dVp - dVm) / (2 * h), 0) < 1e-5, "d2V at %g", pts[i]);
    ck_assert_double_gt(dV, 0.0);  // the compliance never vanishes above p0 (1 - eps)^n
  }
  hy_model_free(m);
}
END_TEST

// The oil mass of the piston side, e^(p/B) (V_geom + V_acc(p)), stays constant while the piston
// pushes oil into the accumulator, from below its pre-charge (empty) to above it: the closed form
// with the true law holds at the end, whatever the blend did on the way.
typedef struct charge {
  double Vg, B;
} charge;

static double charged_mass(const void* ctx, double p) {
  const charge* c = ctx;
  return exp(p / c->B) * (c->Vg + true_oil(p, 2e6, 2e-4, 1.4));
}

START_TEST(test_accumulator_piston) {
  const double pa = 1e6, B = 1.5e9;
  hy_model* m = sealed_model("{bulk_modulus: 1.5e9}", pa, 3e6, kAcc);
  hy_data* d = hy_test_make(m);
  ck_assert_double_eq(d->acc_V[0], 0.0);      // below its pre-charge at t = 0
  const double s0 = 1.4, sd = -0.2, T = 0.1;  // 20 mm: 1e-4 m^3 pushed into the accumulator
  integrate(m, d, s0, sd, T, 200000);
  double V0[2], V1[2];
  sealed_volumes(s0, V0);
  sealed_volumes(s0 + sd * T, V1);
  const charge c = {V1[0], B};
  const double p1 = solve(charged_mass, &c, exp(pa / B) * V0[0], 1e6, 1e8);
  ck_assert_double_gt(p1, 2.1e6);  // well above the pre-charge
  // RK4 loses its order where the blend's third derivative jumps, at the band's edges: 2e5 steps
  // leave about 3e-7 (2e4 steps: 2e-4)
  ck_assert_msg(hy_test_relerr(d->p[0], p1, 0) < 1e-6, "p %.10g, closed form %.10g", d->p[0], p1);
  // the evaluation's records: the accumulator's oil, also in the volume's
  hy_hyd_evaluate(m, d, NULL);
  ck_assert_double_le(hy_test_relerr(d->acc_V[0], true_oil(d->p[0], 2e6, 2e-4, 1.4), 0), 1e-13);
  ck_assert_double_le(hy_test_relerr(d->vol_V[0], V1[0] + d->acc_V[0], 0), 1e-13);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A pump charges an accumulator through a throttle, simulated (trapezoidal rule, Newton): the
// volume starts below the pre-charge, ends at the pump's pressure, and the accumulator then
// holds V0 (1 - (p0/p)^(1/n)): p V_gas^n = p0 V0^n. Its oil is consistent with p at t = 0 too,
// and reported by the channels V_acc and p_gas.
START_TEST(test_accumulator_charged_by_pump) {
  char text[4096];
  snprintf(text, sizeof text,
           "%s"
           "hydraulics:\n"
           "  circuits:\n"
           "    - name: c\n"
           "      oil: {bulk_modulus: 1.5e9}\n"
           "      volumes:\n"
           "        - {name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: %s}\n"
           "      sources: [{name: pump, pressure: 1e7}]\n"
           "      throttles: [{name: t, from: pump, to: V, cv: 1e-6}]\n"
           "      accumulators:\n"
           "        - {name: acc, volume: V, precharge: 5e6, gas_volume: 1e-3, polytropic: 1.2}\n"
           "solver: {dt: 1e-3}\n",
           kSlider, _i ? "6e6" : "1e6");
  hy_model* m = load_text(text);
  hy_data* d = hy_test_make(m);
  ck_assert_double_eq(d->acc_V[0], _i ? true_oil(6e6, 5e6, 1e-3, 1.2) : 0.0);
  ck_assert_double_eq(d->vol_V[0], 1e-4 + d->acc_V[0]);
  hy_test_steps(m, d, 1500);
  ck_assert_double_le(fabs(d->p[0] - 1e7), 1e-3);
  const double Vgas = 1e-3 - d->acc_V[0];
  ck_assert_double_le(hy_test_relerr(d->p[0] * pow(Vgas, 1.2), 5e6 * pow(1e-3, 1.2), 0), 1e-12);
  hy_channels* ch;
  ck_assert_int_eq(hy_channels_make(m, d, &ch, NULL), HY_OK);
  const int iv = hy_channels_find(ch, "V_acc:acc"), ip = hy_channels_find(ch, "p_gas:acc");
  ck_assert_int_ge(iv, 0);
  ck_assert_int_ge(ip, 0);
  ck_assert_double_eq(hy_channel_value(&ch->ch[iv], d), d->acc_V[0]);
  ck_assert_double_eq(hy_channel_value(&ch->ch[ip], d), d->p[0]);
  hy_channels_free(ch);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- every derivative of hy_hyd_work against central differences --------------------------

// The circuit of seed 000 Sect. 5 (pump, tank, 4/3 valve, throttle V1 -> V2, cylinder with V2 on
// the piston side and V3 on the rod side) with an oil, own oils, walls and accumulators from the
// case.
typedef struct fd_case {
  const char* label;
  const char* oil;       // the circuit's
  const char* v1_extra;  // more keys of V1 (an own oil)
  const char* v2_hose;   // V2's hose_bulk_modulus
  const char* v3_extra;
  const char* cyl_B;  // the cylinder's bulk_modulus
  const char* acc;    // accumulators (a YAML list)
  double p[3], U, len_a, sd;
} fd_case;

static const fd_case kFd[] = {
    {"polynomial, rigid cylinder, accumulator above its pre-charge",
     "{law: polynomial, a: 6.6e-10, b: -2e-18}",
     "",
     "150e6",
     "",
     "rigid",
     "[{name: a1, volume: V1, precharge: 3e6, gas_volume: 5e-4}]",
     {6.0e6, 5.95e6, 2.0e6},
     5.0,
     0.214,
     0.05},
    {"air, rigid hoses, accumulator in its blend",
     "{law: air, bulk_modulus: 1.6e9, "
     "air_fraction: 0.01, polytropic: 1.2}",
     "",
     "rigid",
     "",
     "31500e6",
     "[{name: a3, volume: V3, precharge: 2.0e6, gas_volume: 1e-4, polytropic: 1.0}]",
     {3.0e6, 4.0e6, 2.0015e6},
     -3.0,
     0.6,
     -0.1},
    {"table, own air oil, accumulators empty and full",
     "{law: table, table: [[1e5, 0.9e9], [3e6, 1.2e9], [6e6, 1.5e9], [9e6, 1.6e9]]}",
     "",
     "150e6",
     ", oil: {law: air, bulk_modulus: 1.5e9, air_fraction: 0.03}",
     "31500e6",
     "[{name: a1, volume: V1, precharge: 7e6, gas_volume: 2e-4},"
     " {name: a3, volume: V3, precharge: 1e6, gas_volume: 3e-4, polytropic: 1.6}]",
     {5.0e6, 4.7e6, 1.5e6},
     2.0,
     0.5,
     0.01},
    {"constant circuit, own polynomial and table oils, two accumulators on one volume",
     "{bulk_modulus: 1.5e9}",
     ", oil: {law: polynomial, a: 7e-10, b: 1e-19}",
     "rigid",
     ", oil: {law: table, table: [[0, 1e9], [1e7, 1.4e9]]}",
     "rigid",
     "[{name: a2, volume: V2, precharge: 2e6, gas_volume: 1e-4},"
     " {name: b2, volume: V2, precharge: 4e6, gas_volume: 2e-4, polytropic: 1.3}]",
     {7.55e6, 7.48e6, 0.2e6},
     0.2,
     0.3,
     -0.02},
    {"linear circuit, own air oil at 50 Pa (held)",
     "{bulk_modulus: 1.5e9, law: linear, k: 11}",
     "",
     "150e6",
     ", oil: {law: air, bulk_modulus: 1.5e9, air_fraction: 0.02}",
     "31500e6",
     "[{name: a2, volume: V2, precharge: 3e6, gas_volume: 1e-4}]",
     {0.15e6, 3.5e6, 50.0},
     -10.0,
     0.9,
     0.0},
};

static hy_model* fd_model(const fd_case* c) {
  char text[8192];
  snprintf(text, sizeof text,
           "%s"
           "hydraulics:\n"
           "  circuits:\n"
           "    - name: main\n"
           "      oil: %s\n"
           "      volumes:\n"
           "        - {name: V1, hose_volume: 3.14e-5, hose_bulk_modulus: 150e6, p0: 5e6%s}\n"
           "        - {name: V2, hose_volume: 7.85e-5, hose_bulk_modulus: %s, p0: 5e6}\n"
           "        - {name: V3, hose_volume: 4.71e-5, hose_bulk_modulus: 150e6, p0: 3.5e6%s}\n"
           "      sources: [{name: pump, pressure: 7.6e6}, {name: tank, pressure: 0.1e6}]\n"
           "      throttles: [{name: throttle, from: V1, to: V2, cv: 1.097e-6}]\n"
           "      valves: [{name: dcv, P: pump, T: tank, A: V1, B: V3, cv: 1.069e-8,\n"
           "                tau: 4.547e-3, U0: 1.5}]\n"
           "      cylinders:\n"
           "        - {name: cylinder, marker_a: G, marker_b: F, chamber_a: V2, chamber_b: V3,\n"
           "           area_a: 5.0265e-3, area_b: 4.0644e-3, stroke: 1.2, dead_length: 1.2,\n"
           "           bulk_modulus: %s, viscous: 1e3}\n"
           "      accumulators: %s\n",
           kSlider, c->oil, c->v1_extra, c->v2_hose, c->v3_extra, c->cyl_B, c->acc);
  return load_text(text);
}

static double g_worst;

static void compare(const char* label, const char* what, double an, double fd, double floor) {
  const double e = hy_test_relerr(an, fd, floor);
  if (e > g_worst) g_worst = e;
  ck_assert_msg(e <= 1e-6, "%s: %s analytic %.12g, central difference %.12g (rel %.3g)", label,
                what, an, fd, e);
}

// p_dot and the cylinder force at the data's state.
static void rates(const hy_model* m, hy_data* d, double* pd, double* F) {
  hy_hyd_evaluate(m, d, NULL);
  for (int v = 0; v < m->sizes.nvol; v++) pd[v] = d->pd[v];
  *F = d->frc_force[m->cyl_frc[0]];
}

START_TEST(test_partials_fd) {
  const fd_case* c = &kFd[_i];
  hy_model* m = fd_model(c);
  hy_data* d = hy_test_make(m);
  const int nv = m->sizes.nvol, f = m->cyl_frc[0];
  ck_assert_int_eq(nv, 3);
  ck_assert_int_eq(m->sizes.ncyl, 1);
  for (int v = 0; v < 3; v++) d->p[v] = c->p[v];
  d->U[0] = c->U;
  d->frc_len[f] = m->cyl_dead[0] + c->len_a;
  d->frc_rate[f] = c->sd;
  hy_hyd_work hw;
  double* buf = calloc(hy_hyd_work_size(m) + 1, sizeof(double));
  ck_assert_ptr_nonnull(buf);
  hy_hyd_work_bind(m, &hw, buf);
  hy_test_count_allocs_begin();
  hy_hyd_evaluate(m, d, &hw);
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  double scale[3] = {0, 0, 0};  // largest entries of dpd_dp, dpd_ds, dpd_dsd: floors
  for (int i = 0; i < 9; i++) scale[0] = fmax(scale[0], fabs(hw.dpd_dp[i]));
  for (int i = 0; i < 3; i++) scale[1] = fmax(scale[1], fabs(hw.dpd_ds[i]));
  for (int i = 0; i < 3; i++) scale[2] = fmax(scale[2], fabs(hw.dpd_dsd[i]));
  // the unknowns: three pressures, the length and the rate
  double* x[5] = {d->p, d->p + 1, d->p + 2, &d->frc_len[f], &d->frc_rate[f]};
  for (int j = 0; j < 5; j++) {
    const double x0 = *x[j];
    const double h = j < 3 ? 1e-7 * fmax(fabs(x0), 1e5) : (j == 3 ? 1e-8 : 1e-6);
    double pdp[3], pdm[3], Fp, Fm;
    *x[j] = x0 + h;
    rates(m, d, pdp, &Fp);
    *x[j] = x0 - h;
    rates(m, d, pdm, &Fm);
    *x[j] = x0;
    for (int v = 0; v < 3; v++) {
      char what[48];
      const double fd = (pdp[v] - pdm[v]) / (2 * h);
      if (j < 3) {
        snprintf(what, sizeof what, "dpd_dp[%d][%d]", v, j);
        compare(c->label, what, hw.dpd_dp[v * 3 + j], fd, 1e-12 * scale[0]);
      } else {
        snprintf(what, sizeof what, "dpd_%s[%d]", j == 3 ? "ds" : "dsd", v);
        compare(c->label, what, j == 3 ? hw.dpd_ds[v] : hw.dpd_dsd[v], fd, 1e-12 * scale[j - 2]);
      }
    }
    const double fdF = (Fp - Fm) / (2 * h);
    const double anF = j < 3 ? hw.dF_dp[j] : (j == 3 ? hw.dF_ds[0] : hw.dF_dsd[0]);
    compare(c->label, j < 3 ? "dF_dp" : (j == 3 ? "dF_ds" : "dF_dsd"), anF, fdF, 1e-9);
  }
  printf("fluid partials, %-75s worst relative error %.3g\n", c->label, g_worst);
  g_worst = 0;
  free(buf);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// The cases are where they say: the accumulators' regimes, the air law's floor.
START_TEST(test_partials_fd_regimes) {
  for (size_t i = 0; i < sizeof kFd / sizeof kFd[0]; i++) {
    hy_model* m = fd_model(&kFd[i]);
    for (int a = 0; a < m->sizes.nacc; a++) {
      const double p = kFd[i].p[m->acc_vol[a]], p0 = m->acc_p0[a], n = m->acc_n[a];
      const double u = 1 - pow(p0 / p, 1 / n);
      const char* name = m->acc_name + (size_t)a * HY_NAME_MAX;
      if (i == 1) ck_assert_msg(fabs(u) < 1e-3, "%s: u = %g is not in the blend", name, u);
      if (i != 1) ck_assert_msg(fabs(u) > 1e-3, "%s: u = %g is in the blend", name, u);
    }
    hy_model_free(m);
  }
  ck_assert_double_lt(kFd[4].p[2], 1e-3 * kPatm);
}
END_TEST

//----- errors --------------------------------------------------------------------------------

typedef struct bad_text {
  const char* hyd;  // the circuits' list, after the slider
  int line, col;
  const char* needle;
} bad_text;

// The slider takes lines 1-5, "hydraulics:" and "  circuits:" lines 6-7: an element on the first
// line of hyd is at line 8.
static const bad_text kBad[] = {
    // the oil's keys and their forms (io_yaml_hyd.c)
    {"    - {name: c, oil: {law: polynomial}}\n", 8, 22, "oil: key 'a' is required (a positive"},
    {"    - {name: c, oil: {law: polynomial, a: 1e-9, bulk_modulus: 1e9}}\n", 8, 49,
     "'bulk_modulus' is not a parameter of oil law 'polynomial'"},
    {"    - {name: c, oil: {bulk_modulus: 1e9, air_fraction: 0.1}}\n", 8, 42,
     "'air_fraction' is not a parameter of oil law 'constant'"},
    {"    - {name: c, oil: {law: gas, bulk_modulus: 1e9}}\n", 8, 28,
     "law: expected one of: constant, linear, polynomial, air, table"},
    {"    - {name: c, oil: {law: air, bulk_modulus: 1e9}}\n", 8, 22,
     "key 'air_fraction' is required"},
    {"    - {name: c, oil: {law: table}}\n", 8, 22, "key 'table' is required"},
    {"    - {name: c, oil: {law: table, table: 5}}\n", 8, 42,
     "table: expected a list of [p, beta] pairs"},
    {"    - {name: c, oil: {law: table, table: [[0, 1e9], [1e6]]}}\n", 8, 53,
     "table[1]: expected a pair [p, beta]"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6,\n"
     "                 oil: {law: linear, bulk_modulus: 1e9}}]\n",
     11, 23, "volumes[0] 'V': oil: key 'k' is required"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: stiff}]\n",
     10, 65, "hose_bulk_modulus: expected a bulk modulus in Pa or 'rigid', got 'stiff'"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4}]\n",
     10, 17, "key 'hose_bulk_modulus' is required (a positive number, Pa, or rigid)"},
    // accumulators: keys, references (model_compile.c)
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: s, pressure: 1e6}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n"
     "      accumulators: [{name: a, volume: V, gas_volume: 1e-3}]\n",
     13, 22, "accumulators[0] 'a': key 'precharge' is required"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: s, pressure: 1e6}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n"
     "      accumulators: [{name: a, volume: V, precharge: 1e6, gas_volume: 1e-3, gas: N2}]\n",
     13, 77, "unknown key 'gas'"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: s, pressure: 1e6}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n"
     "      accumulators: [{name: a, volume: s, precharge: 1e6, gas_volume: 1e-3}]\n",
     13, 22, "accumulator 'a': 's' is a source; an accumulator is connected to a volume"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: s, pressure: 1e6}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n"
     "      accumulators: [{name: t, volume: V, precharge: 1e6, gas_volume: 1e-3}]\n",
     13, 22, "accumulator 't': the name is already used by a throttle"},
    // value ranges (model_check.c), at the element's definition
    {"    - name: c\n      oil: {law: air, bulk_modulus: 1e9, air_fraction: 1}\n", 8, 7,
     "circuit 'c': oil air_fraction must be below 1, got 1"},
    {"    - name: c\n      oil: {law: air, bulk_modulus: 1e9, air_fraction: 0.1, "
     "polytropic: 0.9}\n",
     8, 7, "circuit 'c': oil polytropic must be at least 1, got 0.9"},
    {"    - name: c\n      oil: {law: air, bulk_modulus: 1e9, air_fraction: 0.1, p_atm: 0}\n", 8, 7,
     "circuit 'c': oil p_atm must be positive (Pa, absolute), got 0"},
    {"    - name: c\n      oil: {law: polynomial, a: 0}\n", 8, 7,
     "circuit 'c': oil a must be positive (1/Pa), got 0"},
    {"    - name: c\n      oil: {law: table, table: [[0, 1e9]]}\n", 8, 7,
     "oil: the table law needs at least 2 points [p, beta], got 1"},
    {"    - name: c\n      oil: {law: table, table: [[1e6, 1e9], [1e6, 2e9]]}\n", 8, 7,
     "oil table: the pressures must increase, but point 1 has 1e+06 Pa after 1e+06 Pa"},
    {"    - name: c\n      oil: {law: table, table: [[0, 1e9], [1e6, 0]]}\n", 8, 7,
     "circuit 'c': oil table[1] beta must be positive (Pa), got 0"},
    {"    - name: c\n      oil: {law: polynomial, a: 6.6e-10, b: -1e-17}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8}]\n"
     "      sources: [{name: s, pressure: 4e7}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n",
     8, 7, "turns infinite at p = -a/(2 b) = 3.3e+07 Pa, at or below 4e+07 Pa"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6,\n"
     "                 oil: {law: air, bulk_modulus: 1e9, air_fraction: -0.1}}]\n"
     "      sources: [{name: s, pressure: 1e6}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n",
     10, 17, "volume 'V': oil air_fraction must be >= 0, got -0.1"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: s, pressure: 1e6}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n"
     "      accumulators: [{name: a, volume: V, precharge: 0, gas_volume: 1e-3}]\n",
     13, 22, "accumulator 'a': precharge must be positive (Pa, absolute), got 0"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: s, pressure: 1e6}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n"
     "      accumulators: [{name: a, volume: V, precharge: 1e6, gas_volume: 0}]\n",
     13, 22, "accumulator 'a': gas_volume must be positive (m^3), got 0"},
    {"    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: s, pressure: 1e6}]\n"
     "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n"
     "      accumulators: [{name: a, volume: V, precharge: 1e6, gas_volume: 1, polytropic: 3}]\n",
     13, 22, "accumulator 'a': polytropic must be at most 2, got 3"},
};

START_TEST(test_bad_text) {
  const bad_text* c = &kBad[_i];
  char text[4096];
  snprintf(text, sizeof text, "%shydraulics:\n  circuits:\n%s", kSlider, c->hyd);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_model_load_string(text, strlen(text), "bad.yaml", &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_ERR_MODEL, "case %d: status %d (%s)", _i, st, buf);
  ck_assert_msg(strstr(err.msg, c->needle), "case %d: '%s' not in: %s", _i, c->needle, buf);
  ck_assert_msg(err.src_line == c->line && err.src_col == c->col,
                "case %d: reported at %d:%d, expected %d:%d (%s)", _i, err.src_line, err.src_col,
                c->line, c->col, buf);
}
END_TEST

// The builder gets the checker's rules and messages too: walls may be rigid, not NaN.
START_TEST(test_builder_walls) {
  for (int k = 0; k < 3; k++) {
    hy_spec* s;
    ck_assert_int_eq(hy_spec_create(&s), HY_OK);
    hy_body_def b = hy_body_def_default();
    snprintf(b.name, sizeof b.name, "slider");
    b.mass = 1;
    ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
    hy_joint_def j = hy_joint_def_default();
    snprintf(j.name, sizeof j.name, "js");
    snprintf(j.child, sizeof j.child, "slider");
    j.type = HY_JOINT_PRISMATIC;
    ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
    hy_marker_def g = hy_marker_def_default(), f = hy_marker_def_default();
    snprintf(g.name, sizeof g.name, "G");
    snprintf(f.name, sizeof f.name, "F");
    snprintf(f.body, sizeof f.body, "slider");
    f.point[2] = 1.3;
    ck_assert_int_eq(hy_spec_add_marker(s, &g), HY_OK);
    ck_assert_int_eq(hy_spec_add_marker(s, &f), HY_OK);
    hy_circuit_def c = hy_circuit_def_default();
    snprintf(c.name, sizeof c.name, "c");
    c.B_oil = 1.5e9;
    ck_assert_int_eq(hy_spec_add_circuit(s, &c), HY_OK);
    for (int v = 0; v < 2; v++) {
      hy_volume_def vd = hy_volume_def_default();
      snprintf(vd.name, sizeof vd.name, "V%d", v);
      snprintf(vd.circuit, sizeof vd.circuit, "c");
      vd.hose_volume = 1e-5;
      vd.hose_bulk_modulus = HY_RIGID;
      vd.p0 = 1e6;
      ck_assert_int_eq(hy_spec_add_volume(s, &vd), HY_OK);
    }
    hy_cylinder_def cy = hy_cylinder_def_default();
    snprintf(cy.name, sizeof cy.name, "cyl");
    snprintf(cy.marker_a, sizeof cy.marker_a, "G");
    snprintf(cy.marker_b, sizeof cy.marker_b, "F");
    snprintf(cy.chamber_a, sizeof cy.chamber_a, "V0");
    snprintf(cy.chamber_b, sizeof cy.chamber_b, "V1");
    cy.area_a = 1e-3;
    cy.area_b = 5e-4;
    cy.stroke = 0.5;
    cy.dead_length = 1.0;
    cy.bulk_modulus = k == 0 ? HY_RIGID : (k == 1 ? NAN : -INFINITY);
    cy.pos = (hy_srcpos){12, 9};
    ck_assert_int_eq(hy_spec_add_cylinder(s, &cy), HY_OK);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    const hy_status st = hy_model_compile(s, &m, &err);
    hy_spec_free(s);
    if (k == 0) {
      ck_assert_msg(st == HY_OK, "%s", err.msg);
      ck_assert_double_eq(m->vol_B_hose[0], HY_RIGID);
      hy_model_free(m);
      continue;
    }
    ck_assert_int_eq(st, HY_ERR_MODEL);
    ck_assert_msg(strstr(err.msg, "cylinder 'cyl': bulk_modulus must be"), "%s", err.msg);
    ck_assert_int_eq(err.src_line, 12);
    ck_assert_int_eq(err.src_col, 9);
  }
}
END_TEST

// Tables and accumulators go through the loader, the spec and the compiler: failing each
// allocation in turn gives HY_ERR_NOMEM with nothing left allocated.
START_TEST(test_alloc_failures) {
  char text[4096];
  snprintf(text, sizeof text,
           "%s"
           "hydraulics:\n"
           "  circuits:\n"
           "    - name: c\n"
           "      oil: {law: table, table: [[0, 1e9], [1e7, 1.5e9]]}\n"
           "      volumes:\n"
           "        - {name: V, hose_volume: 1e-4, hose_bulk_modulus: rigid, p0: 1e6,\n"
           "           oil: {law: table, table: [[0, 1e9], [1e6, 1.2e9], [1e7, 1.6e9]]}}\n"
           "      sources: [{name: s, pressure: 1e6}]\n"
           "      throttles: [{name: t, from: s, to: V, cv: 1e-7}]\n"
           "      accumulators: [{name: a, volume: V, precharge: 1e6, gas_volume: 1e-3}]\n",
           kSlider);
  for (long k = 1;; k++) {
    hy_test_hook_begin(k);
    hy_model* m = NULL;
    hy_error err;
    const hy_status st = hy_model_load_string(text, strlen(text), "tables.yaml", &m, &err);
    const long calls = hy_test_hook_calls();
    if (st == HY_OK) {
      ck_assert_int_eq(m->sizes.nbulkpt, 5);
      ck_assert_double_eq(m->bulk_beta[m->vol_tab_adr[0] + 2], 1.6e9);
      hy_model_free(m);
    }
    const long live = hy_test_hook_live();
    hy_test_hook_end();
    ck_assert_msg(live == 0, "failing allocation %ld: %ld blocks leaked", k, live);
    if (calls < k) {
      ck_assert_int_eq(st, HY_OK);
      break;
    }
    ck_assert_msg(st == HY_ERR_NOMEM, "failing allocation %ld gave %d: %s", k, st, err.msg);
  }
}
END_TEST

Suite* hyd_fluid_suite(void) {
  Suite* s = suite_create("hyd_fluid");
  TCase* tc = tcase_create("hyd_fluid");
  tcase_add_test(tc, test_law_polynomial);
  tcase_add_test(tc, test_law_air);
  tcase_add_test(tc, test_law_table);
  tcase_add_loop_test(tc, test_sealed_closed_form, 0, 3);
  tcase_add_test(tc, test_oil_dispatch);
  tcase_add_test(tc, test_accumulator_curve);
  tcase_add_test(tc, test_accumulator_piston);
  tcase_add_loop_test(tc, test_accumulator_charged_by_pump, 0, 2);
  tcase_add_loop_test(tc, test_partials_fd, 0, (int)(sizeof kFd / sizeof kFd[0]));
  tcase_add_test(tc, test_partials_fd_regimes);
  tcase_add_loop_test(tc, test_bad_text, 0, (int)(sizeof kBad / sizeof kBad[0]));
  tcase_add_test(tc, test_builder_walls);
  tcase_add_test(tc, test_alloc_failures);
  suite_add_tcase(s, tc);
  return s;
}
