// Metering edges of 4-way valves and the throttle options (docs/hydraulics.md, "Metering edges"
// and "Throttle options"), against the closed-form laws written out here, independently of
// src/hyd: every centre's path flows at spool 0 and at full opening both ways, the pressure
// rates they give, overlap and underlap opening where they should, leakage k dp, the seeds'
// valve unchanged through the edge code, one-way, signal-scaled and turbulent throttles, every
// entry of d p_dot / d p against central differences, the steady pressure between two turbulent
// throttles, and the errors of the YAML keys and of hy_model_check at their positions.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hyd_rig.h"
#include "hydyn/hydyn.h"

//----- the documented laws, written out independently of src/hyd ----------------------------

static const double kDpLim = 2e5;  // default laminar limit (Pa)
static const double kDpReg = 100;  // default regularization width of law turbulent (Pa)
static const double kCv = 1e-8;    // valve cv (m^3/(s V sqrt(Pa)))
static const double kUmax = 10;    // V
static const double kCvCentre = 5e-8;
static const double kCvThrottle = 1e-7;

// Orifice flow with the cubic branch below lim: C sgn(dp) sqrt|dp| above, C sqrt(lim)
// (5x - x^3)/4 below (x = dp/lim).
static double orifice(double C, double dp, double lim) {
  if (C == 0) return 0;
  if (fabs(dp) >= lim) return dp < 0 ? -C * sqrt(-dp) : C * sqrt(dp);
  const double x = dp / lim;
  return C * sqrt(lim) * (5 * x - x * x * x) / 4;
}

// One-way orifice: 0 for dp <= 0, C sqrt(lim) (5x^2 - 3x^3)/2 below lim, C sqrt(dp) above.
static double one_way(double C, double dp, double lim) {
  if (dp <= 0) return 0;
  if (dp >= lim) return C * sqrt(dp);
  const double x = dp / lim;
  return C * sqrt(lim) * (5 * x * x - 3 * x * x * x) / 2;
}

// The paths of hy_data.vlv_q as (from, to) ports, ports numbered P 0, T 1, A 2, B 3.
static const int kPath[5][2] = {{0, 2}, {3, 1}, {0, 3}, {2, 1}, {0, 1}};
static const char* const kPathName[5] = {"P->A", "B->T", "P->B", "A->T", "P->T"};

// The centres' paths open at U = 0 (docs/hydraulics.md, the table under "Valve centres").
static void centre_open(const char* centre, int open[5]) {
  for (int k = 0; k < 5; k++) open[k] = 0;
  if (strcmp(centre, "open") == 0) {
    for (int k = 0; k < 5; k++) open[k] = 1;
  } else if (strcmp(centre, "tandem") == 0) {
    open[4] = 1;
  } else if (strcmp(centre, "float") == 0) {
    open[1] = open[3] = 1;
  }
}

// Path coefficients of a valve of cv kCv: windows cv max(U - o, 0) for P->A and B->T,
// cv max(-U - o, 0) for P->B and A->T, plus Cc max(1 - |U|/U_max, 0) on the centre's paths.
static void coeffs(const char* centre, double Cc, double o, double U, double C[5]) {
  int open[5];
  centre_open(centre, open);
  const double wp = fmax(U - o, 0), wn = fmax(-U - o, 0);
  const double share = fmax(1 - fabs(U) / kUmax, 0);
  const double main_[5] = {kCv * wp, kCv * wp, kCv * wn, kCv * wn, 0};
  for (int k = 0; k < 5; k++) C[k] = main_[k] + (open[k] ? Cc * share : 0);
}

//----- models --------------------------------------------------------------------------------

// Mechanics the hydraulics need to make a model (no cylinder: the circuit stands alone) and
// the signals of the throttles. Five lines.
static const char kHead[] =
    "name: valve-test\n"
    "bodies: [{name: slider, mass: 10}]\n"
    "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
    "solver: {dt: 1e-3, t_end: 0.3}\n"
    "signals: [{name: s, interpolation: step, table: [[0, -0.5], [2, 0.3], [4, 1.7]]},"
    " {name: half, table: [[0, 0.6]]}]\n";

static hy_model* load_text(const char* text) { return hy_test_load_text(text, "valve.yaml"); }

typedef struct valve_cfg {
  const char* centre;                         // NULL: no key
  double U_max, overlap, leakage, cv_centre;  // 0: no key
  const char* laminar;                        // the circuit's law
} valve_cfg;

// Four volumes VP, VT, VA, VB (nodes 0..3) on the ports of one valve v.
static hy_model* valve_model(const valve_cfg* c) {
  char opts[256] = "";
  int n = 0;
  if (c->centre) n += snprintf(opts + n, sizeof opts - (size_t)n, ", centre: %s", c->centre);
  if (c->U_max != 0) n += snprintf(opts + n, sizeof opts - (size_t)n, ", U_max: %.17g", c->U_max);
  if (c->overlap != 0) {
    n += snprintf(opts + n, sizeof opts - (size_t)n, ", overlap: %.17g", c->overlap);
  }
  if (c->leakage != 0) {
    n += snprintf(opts + n, sizeof opts - (size_t)n, ", leakage: %.17g", c->leakage);
  }
  if (c->cv_centre != 0) {
    snprintf(opts + n, sizeof opts - (size_t)n, ", cv_centre: %.17g", c->cv_centre);
  }
  char text[2048];
  snprintf(text, sizeof text,
           "%shydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1.5e9}\n"
           "      laminar: %s\n      volumes:\n"
           "        - {name: VP, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e7}\n"
           "        - {name: VT, hose_volume: 2e-4, hose_bulk_modulus: 1e9, p0: 1e5}\n"
           "        - {name: VA, hose_volume: 3e-4, hose_bulk_modulus: 1e9, p0: 6e6}\n"
           "        - {name: VB, hose_volume: 4e-4, hose_bulk_modulus: 1e9, p0: 3e6}\n"
           "      valves:\n"
           "        - {name: v, P: VP, T: VT, A: VA, B: VB, cv: %.17g, tau: 0.01%s}\n",
           kHead, c->laminar ? c->laminar : "cubic", kCv, opts);
  return load_text(text);
}

// A model, its data and a derivative work.

// The inflow sum S of volume v that the network's pressure rate stands for: p_dot V/Be (Eq. 22).
static double inflow(const rig* r, int v) { return r->d->pd[v] * r->d->vol_V[v] / r->d->vol_Be[v]; }

//----- valve centres -------------------------------------------------------------------------

static const char* const kCentres[4] = {"closed", "open", "tandem", "float"};

// Each centre (cv_centre given or its default cv U_max) at spool 0, at full opening both ways
// and half way: the five path flows against the orifice law with the documented coefficients,
// and the pressure rates against the sums of those flows.
START_TEST(test_centre_flows) {
  const char* centre = kCentres[_i / 2];
  const int given = _i % 2;
  if (strcmp(centre, "closed") == 0 && given) return;  // cv_centre is refused for closed
  valve_cfg c = {.centre = centre, .U_max = kUmax, .cv_centre = given ? kCvCentre : 0};
  rig r;
  rig_make(&r, valve_model(&c));
  const double Cc = given ? kCvCentre : kCv * kUmax;
  const double p[4] = {1e7, 1e5, 6e6, 3e6};  // every path turbulent
  for (int k = 0; k < 4; k++) r.d->p[k] = p[k];
  const double spools[] = {0, kUmax, -kUmax, 0.5 * kUmax, -0.25 * kUmax};
  for (size_t s = 0; s < sizeof spools / sizeof spools[0]; s++) {
    const double U = spools[s];
    r.d->U[0] = U;
    hy_hyd_evaluate(r.m, r.d, NULL);
    double C[5], q[5];
    coeffs(centre, Cc, 0, U, C);
    int nopen = 0;
    for (int k = 0; k < 5; k++) {
      q[k] = orifice(C[k], p[kPath[k][0]] - p[kPath[k][1]], kDpLim);
      nopen += C[k] > 0;
      const double got = r.d->vlv_q[HY_VALVE_PATHS * 0 + k];
      ck_assert_msg(hy_test_relerr(got, q[k], 0) <= 1e-14,
                    "centre %s, U = %g: %s flow %.17g, closed form %.17g", centre, U, kPathName[k],
                    got, q[k]);
    }
    // at the centre exactly the centre's paths are open, at full opening exactly two
    int open[5];
    centre_open(centre, open);
    int ncentre = 0;
    for (int k = 0; k < 5; k++) ncentre += open[k];
    if (U == 0) ck_assert_int_eq(nopen, ncentre);
    if (fabs(U) == kUmax) ck_assert_int_eq(nopen, 2);
    // Eq. 22: what each volume receives
    const double S[4] = {-q[0] - q[2] - q[4], q[1] + q[3] + q[4], q[0] - q[3], q[2] - q[1]};
    const double big = fabs(q[0]) + fabs(q[1]) + fabs(q[2]) + fabs(q[3]) + fabs(q[4]);
    for (int v = 0; v < 4; v++) {
      ck_assert_msg(hy_test_relerr(inflow(&r, v), S[v], 1e-300 + big) <= 1e-13,
                    "centre %s, U = %g: inflow of volume %d %.17g, expected %.17g", centre, U, v,
                    inflow(&r, v), S[v]);
    }
  }
  printf("valve centre %-6s (cv_centre %s): path flows and rates match at U = 0, +-U_max\n", centre,
         given ? "given" : "default");
  rig_free(&r);
}
END_TEST

// The seeds' valve (closed centre, no overlap, no leakage), which the network evaluates inline,
// gives the very bits of the edge code (hy_hyd_valve_flows) at spools and pressures in both
// orifice regimes; and the fifth slot of its flows stays 0.
START_TEST(test_seed_valve_through_edges) {
  valve_cfg c = {0};
  rig r;
  rig_make(&r, valve_model(&c));
  ck_assert_int_eq(r.m->vlv_centre[0], HY_CENTRE_CLOSED);
  const double pset[2][4] = {{1e7, 1e5, 6e6, 3e6}, {1e6, 0.99e6, 0.92e6, 1.05e6}};
  const double spools[] = {0, 3.3, -7.1, 1e-9, 12};
  for (int s = 0; s < 2; s++) {
    for (int k = 0; k < 4; k++) r.d->p[k] = pset[s][k];
    for (size_t u = 0; u < sizeof spools / sizeof spools[0]; u++) {
      r.d->U[0] = spools[u];
      hy_hyd_evaluate(r.m, r.d, &r.hw);
      double q[HY_VALVE_PATHS], dq[HY_VALVE_PATHS];
      hy_hyd_valve_flows(r.m, 0, spools[u], pset[s], HY_LAMINAR_CUBIC, q, dq);
      hy_test_same_bits(r.d->vlv_q, q, HY_VALVE_PATHS, "seed valve: inline and edge flows");
      ck_assert_double_eq(r.d->vlv_q[4], 0.0);
      // and the inline flows still follow seed 000 Eq. 26: C = cv |U| on the open pair
      const double U = spools[u];
      for (int k = 0; k < 4; k++) {
        const int opens = (k < 2) == (U > 0) && U != 0;
        const double Ck = opens ? kCv * fabs(U) : 0;
        const double ref = orifice(Ck, pset[s][kPath[k][0]] - pset[s][kPath[k][1]], kDpLim);
        ck_assert_double_le(hy_test_relerr(q[k], ref, 0), 1e-14);
      }
    }
  }
  rig_free(&r);
}
END_TEST

//----- overlap, underlap, continuity in U ----------------------------------------------------

// An overlapped edge opens only once |U| passes the overlap, an underlapped one is open at
// U = 0 and closes at U = overlap on the far side; the openings are continuous in U (slope at
// most cv, plus Cc/U_max for the centre paths) on a grid that also hits every breakpoint.
START_TEST(test_overlap_underlap) {
  const double o = _i == 0 ? 0.5 : -0.5;  // overlap, then underlap (V)
  for (int ci = 0; ci < 4; ci++) {
    valve_cfg c = {.centre = kCentres[ci], .U_max = kUmax, .overlap = o};
    hy_model* m = valve_model(&c);
    const double Cc = kCv * kUmax;
    // the edges at the documented positions
    double C[HY_VALVE_PATHS], Cx[5];
    for (int side = -1; side <= 1; side += 2) {
      const int a = side > 0 ? 0 : 2;  // P->A (U > 0) or P->B (U < 0): its window
      // at U = +-o the window itself is shut: only a centre path can be open there
      hy_hyd_valve_openings(m, 0, side * o, C);
      coeffs(kCentres[ci], Cc, o, side * o, Cx);
      ck_assert_double_le(hy_test_relerr(C[a], Cx[a], 1e-30), 1e-14);
      if (strcmp(kCentres[ci], "closed") == 0) ck_assert_double_eq(C[a], 0.0);
      const double dU = 1e-3;
      hy_hyd_valve_openings(m, 0, side * (o + dU), C);
      coeffs(kCentres[ci], Cc, o, side * (o + dU), Cx);
      ck_assert_double_le(hy_test_relerr(C[a], Cx[a], 0), 1e-12);
      ck_assert_double_le(hy_test_relerr(C[a + 1], Cx[a + 1], 0), 1e-12);
      hy_hyd_valve_openings(m, 0, side * (o - dU), C);
      coeffs(kCentres[ci], Cc, o, side * (o - dU), Cx);
      ck_assert_double_le(hy_test_relerr(C[a], Cx[a], 0), 1e-12);
    }
    if (o > 0 && strcmp(kCentres[ci], "closed") == 0) {
      // overlapped and closed: nothing open until |U| passes o, then cv (|U| - o)
      hy_hyd_valve_openings(m, 0, 0.999 * o, C);
      for (int k = 0; k < 5; k++) ck_assert_double_eq(C[k], 0.0);
      hy_hyd_valve_openings(m, 0, o + 0.25, C);
      ck_assert_double_le(hy_test_relerr(C[0], kCv * 0.25, 0), 1e-13);
      ck_assert_double_eq(C[2], 0.0);
    }
    if (o < 0) {
      // underlapped: both windows open by |o| at U = 0; P->A closes at U = o
      hy_hyd_valve_openings(m, 0, 0, C);
      coeffs(kCentres[ci], Cc, o, 0, Cx);
      ck_assert_double_ge(C[0], kCv * -o * (1 - 1e-15));
      ck_assert_double_ge(C[2], kCv * -o * (1 - 1e-15));
      for (int k = 0; k < 5; k++) ck_assert_double_le(hy_test_relerr(C[k], Cx[k], 0), 1e-14);
      hy_hyd_valve_openings(m, 0, o, C);
      if (strcmp(kCentres[ci], "closed") == 0) {
        ck_assert_double_eq(C[0], 0.0);
        ck_assert_double_le(hy_test_relerr(C[2], 2 * kCv * -o, 0), 1e-14);
      }
    }
    // everywhere: the documented coefficients, and Lipschitz in U
    const double lip = kCv + Cc / kUmax;
    double Cl[HY_VALVE_PATHS];
    hy_hyd_valve_openings(m, 0, -12.0, Cl);
    for (int g = 1; g <= 2400; g++) {
      const double U = -12.0 + g * 0.01;
      hy_hyd_valve_openings(m, 0, U, C);
      coeffs(kCentres[ci], Cc, o, U, Cx);
      for (int k = 0; k < 5; k++) {
        ck_assert_msg(hy_test_relerr(C[k], Cx[k], 1e-30) <= 1e-12,
                      "centre %s, overlap %g, U = %g: %s coefficient %.17g, expected %.17g",
                      kCentres[ci], o, U, kPathName[k], C[k], Cx[k]);
        ck_assert_double_le(fabs(C[k] - Cl[k]), lip * 0.01 * (1 + 1e-9));
        Cl[k] = C[k];
      }
    }
    hy_model_free(m);
  }
}
END_TEST

// The network's flows follow the overlapped opening: exactly 0 just inside the overlap, the
// orifice law with cv (|U| - o) just outside.
START_TEST(test_overlap_flows) {
  valve_cfg c = {.overlap = 0.4};
  rig r;
  rig_make(&r, valve_model(&c));
  const double p[4] = {1e7, 1e5, 6e6, 3e6};
  for (int k = 0; k < 4; k++) r.d->p[k] = p[k];
  const double spools[] = {0.39, -0.39, 0.41, -0.41, 0.4, -0.4};
  for (size_t s = 0; s < sizeof spools / sizeof spools[0]; s++) {
    const double U = spools[s];
    r.d->U[0] = U;
    hy_hyd_evaluate(r.m, r.d, NULL);
    const double w = fmax(fabs(U) - 0.4, 0);
    for (int k = 0; k < 5; k++) {
      const int opens = k < 4 && (k < 2) == (U > 0);
      const double ref = orifice(opens ? kCv * w : 0, p[kPath[k][0]] - p[kPath[k][1]], kDpLim);
      ck_assert_msg(hy_test_relerr(r.d->vlv_q[k], ref, 0) <= 1e-12, "U = %g: %s %.17g vs %.17g", U,
                    kPathName[k], r.d->vlv_q[k], ref);
      if (fabs(U) <= 0.4) ck_assert_double_eq(r.d->vlv_q[k], 0.0);
    }
    if (fabs(U) > 0.4) ck_assert_double_gt(fabs(r.d->vlv_q[U > 0 ? 0 : 2]), 0);
  }
  rig_free(&r);
}
END_TEST

//----- leakage -------------------------------------------------------------------------------

// A closed-centre valve with leakage k: at U = 0 every metering edge carries exactly k dp (none
// on P->T), and the volumes' rates show it; fully open, the open edges carry the orifice flow
// plus k dp.
START_TEST(test_leakage) {
  const double k_leak = 3e-13;
  valve_cfg c = {.leakage = k_leak};
  rig r;
  rig_make(&r, valve_model(&c));
  const double p[4] = {1e7, 1e5, 6e6, 3e6};
  for (int k = 0; k < 4; k++) r.d->p[k] = p[k];
  r.d->U[0] = 0;
  hy_hyd_evaluate(r.m, r.d, NULL);
  double q[5];
  for (int k = 0; k < 5; k++) {
    const double dp = p[kPath[k][0]] - p[kPath[k][1]];
    q[k] = k < 4 ? k_leak * dp : 0;
    ck_assert_msg(hy_test_relerr(r.d->vlv_q[k], q[k], 0) <= 1e-15, "%s leak %.17g, k dp %.17g",
                  kPathName[k], r.d->vlv_q[k], q[k]);
  }
  ck_assert_double_eq(r.d->vlv_q[4], 0.0);
  // the valve leaks: A gains from P and loses to T
  const double S_A = q[0] - q[3];
  ck_assert_double_le(hy_test_relerr(inflow(&r, 2), S_A, 0), 1e-13);
  ck_assert_double_ne(r.d->pd[2], 0.0);
  // fully open towards A
  r.d->U[0] = kUmax;
  hy_hyd_evaluate(r.m, r.d, NULL);
  for (int k = 0; k < 4; k++) {
    const double dp = p[kPath[k][0]] - p[kPath[k][1]];
    const double ref = orifice(k < 2 ? kCv * kUmax : 0, dp, kDpLim) + k_leak * dp;
    ck_assert_double_le(hy_test_relerr(r.d->vlv_q[k], ref, 0), 1e-14);
  }
  rig_free(&r);
}
END_TEST

//----- d p_dot / d p against central differences ---------------------------------------------

static double g_worst;

// Pressures (P, T, A, B) with each path's dp on both sides of +-dp_lim: P->A 0.9 dp_lim,
// P->B -1.1 dp_lim, A->T -0.85 dp_lim, B->T 1.15 dp_lim, P->T 0.05 dp_lim; then the opposite
// sides; then all far above.
static const double kValveStates[3][4] = {
    {1.0e6, 0.99e6, 0.82e6, 1.22e6},
    {1.0e6, 0.6e6, 0.78e6, 1.17e6},
    {1e7, 1e5, 6e6, 3e6},
};

START_TEST(test_valve_partials) {
  const char* centre = kCentres[_i % 4];
  const int linear = _i >= 4;  // the circuit's laminar law
  valve_cfg c = {.centre = centre,
                 .U_max = kUmax,
                 .leakage = 2e-13,
                 .cv_centre = strcmp(centre, "closed") ? kCvCentre : 0,
                 .laminar = linear ? "linear" : "cubic"};
  rig r;
  rig_make(&r, valve_model(&c));
  g_worst = 0;
  const double spools[] = {0, kUmax, -kUmax, 3.7, -0.6};
  for (int s = 0; s < 3; s++) {
    for (size_t u = 0; u < sizeof spools / sizeof spools[0]; u++) {
      for (int k = 0; k < 4; k++) r.d->p[k] = kValveStates[s][k];
      r.d->U[0] = spools[u];
      char label[96];
      snprintf(label, sizeof label, "centre %s, laminar %s, state %d, U = %g", centre,
               linear ? "linear" : "cubic", s, spools[u]);
      // a step of 10 Pa: the leakage entries (about 1 /s) sit beside orifice flows whose
      // rates are 1e10 Pa/s, and each path's dp is at least 1e4 Pa from a breakpoint
      const int nz = rig_check_dpd_dp(&r, 10, label, &g_worst);
      ck_assert_msg(nz >= 4, "%s: only %d non-zero entries", label, nz);
    }
  }
  printf("valve partials, centre %-6s laminar %-6s: worst relative difference %.2g\n", centre,
         linear ? "linear" : "cubic", g_worst);
  rig_free(&r);
}
END_TEST

//----- throttle options ----------------------------------------------------------------------

// The one-way law: exactly 0 with slope 0 for dp <= 0, value and slope continuous at 0 and at
// lim, the square root above, and its slope against central differences.
START_TEST(test_one_way_law) {
  const double C = kCvThrottle, lim = kDpLim;
  double dq = 1;
  const double blocked[] = {-1e7, -lim, -1.0, -1e-300, 0.0};
  for (size_t k = 0; k < sizeof blocked / sizeof blocked[0]; k++) {
    ck_assert_double_eq(hy_hyd_orifice_one_way(C, blocked[k], lim, &dq), 0.0);
    ck_assert_double_eq(dq, 0.0);
  }
  const double q_ref = C * sqrt(lim), dq_ref = C / sqrt(lim);
  const double breaks[2] = {0, lim};
  for (int b = 0; b < 2; b++) {
    const double h = 1e-9 * lim;
    double s_lo, s_hi;
    const double lo = hy_hyd_orifice_one_way(C, breaks[b] - h, lim, &s_lo);
    const double hi = hy_hyd_orifice_one_way(C, breaks[b] + h, lim, &s_hi);
    ck_assert_msg(fabs(hi - lo) <= 1e-8 * q_ref, "value jumps by %g at %g", hi - lo, breaks[b]);
    ck_assert_msg(fabs(s_hi - s_lo) <= 1e-7 * dq_ref, "slope jumps from %g to %g at %g", s_lo, s_hi,
                  breaks[b]);
  }
  for (int g = 0; g < 300; g++) {
    const double dp = -0.5 * lim + 3 * lim * (g + 0.31) / 300.0;
    double an;
    const double q = hy_hyd_orifice_one_way(C, dp, lim, &an);
    ck_assert_double_le(hy_test_relerr(q, one_way(C, dp, lim), 1e-30), 1e-14);
    const double h = 1e-6 * lim;
    const double fd = (hy_hyd_orifice_one_way(C, dp + h, lim, NULL) -
                       hy_hyd_orifice_one_way(C, dp - h, lim, NULL)) /
                      (2 * h);
    ck_assert_msg(fabs(an - fd) <= 1e-6 * dq_ref, "dq/ddp at %g: %.9g vs %.9g", dp, an, fd);
    if (dp > 0) ck_assert_double_gt(q, 0);  // forward flow wherever p_from > p_to
  }
}
END_TEST

// Three volumes and four throttles with options: one-way (V1 -> V2), turbulent (V2 -> V3),
// signal-scaled (V3 -> V1, signal s: -0.5, 0.3, then 1.7), one-way and turbulent with
// dp_reg 50 Pa (V1 -> V3); and a plain throttle V1 -> V2 for comparison.
static hy_model* throttle_model(void) {
  char text[2048];
  snprintf(text, sizeof text,
           "%shydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1.5e9}\n"
           "      volumes:\n"
           "        - {name: V1, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e6}\n"
           "        - {name: V2, hose_volume: 2e-4, hose_bulk_modulus: 1e9, p0: 1e6}\n"
           "        - {name: V3, hose_volume: 3e-4, hose_bulk_modulus: 1e9, p0: 1e6}\n"
           "      throttles:\n"
           "        - {name: ow, from: V1, to: V2, cv: %.17g, one_way: true}\n"
           "        - {name: tu, from: V2, to: V3, cv: %.17g, law: turbulent}\n"
           "        - {name: sg, from: V3, to: V1, cv: %.17g, signal: s}\n"
           "        - {name: owtu, from: V1, to: V3, cv: %.17g, law: turbulent, dp_reg: 50,"
           " one_way: true}\n"
           "        - {name: plain, from: V1, to: V2, cv: %.17g}\n",
           kHead, kCvThrottle, kCvThrottle, kCvThrottle, kCvThrottle, kCvThrottle);
  return load_text(text);
}

// Pressures of V1..V3 that put each throttle's dp inside and outside its limit, forward and
// backward (comments: ow, tu, sg, owtu).
static const double kThrottleStates[4][3] = {
    {1.0e6, 0.95e6, 0.95e6 - 60},  // 5e4 inside; 60 inside dp_reg; reversed; 5e4 + 60 turbulent
    {1.0e6, 1.3e6, 1.3e6 + 150},   // blocked; -150 outside dp_reg; 3e5 forward; blocked
    {1.0e6, 0.7e6, 0.7e6 + 30},    // 3e5 above dp_lim; -30 inside; reversed; 3e5 - 30
    {1.0e6, 0.7e6, 1.0e6 - 25},    // 3e5; -3e5 + 25; -25 laminar; 25 inside dp_reg 50
};

START_TEST(test_throttle_options) {
  rig r;
  rig_make(&r, throttle_model());
  const hy_model* m = r.m;
  const int ow = hy_model_throttle(m, "ow"), tu = hy_model_throttle(m, "tu");
  const int sg = hy_model_throttle(m, "sg"), owtu = hy_model_throttle(m, "owtu");
  const int plain = hy_model_throttle(m, "plain");
  ck_assert_int_eq(m->orf_one_way[ow], 1);
  ck_assert_int_eq(m->orf_law[tu], HY_ORIFICE_TURBULENT);
  ck_assert_double_eq(m->orf_dp_reg[tu], kDpReg);  // default
  ck_assert_double_eq(m->orf_dp_reg[owtu], 50);
  ck_assert_int_eq(m->orf_sig[sg], hy_model_signal(m, "s"));
  ck_assert_int_eq(m->orf_sig[plain], -1);
  ck_assert_int_eq(m->orf_law[plain], HY_ORIFICE_LAMINAR_TRANSITION);
  const double times[3] = {0.5, 2.5, 4.5};
  const double opening[3] = {0, 0.3, 1};  // the signal's -0.5, 0.3, 1.7 clamped to [0, 1]
  g_worst = 0;
  for (int s = 0; s < 4; s++) {
    for (int ti = 0; ti < 3; ti++) {
      const double* p = kThrottleStates[s];
      for (int k = 0; k < 3; k++) r.d->p[k] = p[k];
      r.d->time = times[ti];
      hy_hyd_evaluate(m, r.d, NULL);
      const double C = kCvThrottle;
      const double ref[5] = {
          one_way(C, p[0] - p[1], kDpLim),
          orifice(C, p[1] - p[2], kDpReg),
          orifice(C * opening[ti], p[2] - p[0], kDpLim),
          one_way(C, p[0] - p[2], 50),
          orifice(C, p[0] - p[1], kDpLim),
      };
      const int idx[5] = {ow, tu, sg, owtu, plain};
      for (int k = 0; k < 5; k++) {
        ck_assert_msg(hy_test_relerr(r.d->orf_q[idx[k]], ref[k], 1e-30) <= 1e-14,
                      "state %d, t = %g: throttle %d flow %.17g, closed form %.17g", s, times[ti],
                      idx[k], r.d->orf_q[idx[k]], ref[k]);
      }
      // one-way: nothing against the pressure difference
      if (p[0] < p[1]) ck_assert_double_eq(r.d->orf_q[ow], 0.0);
      if (p[0] < p[2]) ck_assert_double_eq(r.d->orf_q[owtu], 0.0);
      if (opening[ti] == 0) ck_assert_double_eq(r.d->orf_q[sg], 0.0);
      char label[64];
      snprintf(label, sizeof label, "throttles, state %d, t = %g", s, times[ti]);
      ck_assert_int_ge(rig_check_dpd_dp(&r, 1e-2, label, &g_worst), 3);
    }
  }
  printf("throttle options: flows match; partials worst relative difference %.2g\n", g_worst);
  rig_free(&r);
}
END_TEST

// Law turbulent: the pure square root from dp_reg on, value and slope continuous at +-dp_reg,
// and the finite slope 5C/(4 sqrt(dp_reg)) at dp = 0 that the Newton tangent gets.
START_TEST(test_turbulent_law) {
  hy_model* m = throttle_model();
  const int tu = hy_model_throttle(m, "tu");
  const double C = kCvThrottle;
  double dq;
  ck_assert_double_eq(hy_hyd_throttle_flow(m, tu, 0, 0.0, HY_LAMINAR_LINEAR, &dq), 0.0);
  ck_assert_double_le(hy_test_relerr(dq, 5 * C / (4 * sqrt(kDpReg)), 0), 1e-15);
  const double far[] = {kDpReg, -kDpReg, 1e3, -2.5e4, 7e6};
  for (size_t k = 0; k < sizeof far / sizeof far[0]; k++) {
    const double q = hy_hyd_throttle_flow(m, tu, 0, far[k], HY_LAMINAR_LINEAR, &dq);
    const double sq = copysign(C * sqrt(fabs(far[k])), far[k]);
    ck_assert_double_le(hy_test_relerr(q, sq, 0), 1e-15);
    ck_assert_double_le(hy_test_relerr(dq, C / (2 * sqrt(fabs(far[k]))), 0), 1e-15);
  }
  for (int side = -1; side <= 1; side += 2) {
    const double b = side * kDpReg, h = 1e-9 * kDpReg;
    double s_lo, s_hi;
    const double lo = hy_hyd_throttle_flow(m, tu, 0, b - h, HY_LAMINAR_LINEAR, &s_lo);
    const double hi = hy_hyd_throttle_flow(m, tu, 0, b + h, HY_LAMINAR_LINEAR, &s_hi);
    ck_assert_double_le(fabs(hi - lo), 1e-8 * C * sqrt(kDpReg));
    ck_assert_double_le(fabs(s_hi - s_lo), 1e-7 * C / sqrt(kDpReg));
  }
  hy_model_free(m);
}
END_TEST

// Pump -> V through a signal-scaled turbulent throttle (C1 = 0.6 cv), V -> tank through a
// one-way turbulent throttle (C2 = cv): V settles where C1 sqrt(p_P - p) = C2 sqrt(p - p_T),
// p = (C1^2 p_P + C2^2 p_T)/(C1^2 + C2^2). W, joined to the tank only by a one-way throttle
// pointing into it, keeps its higher pressure to the bit. No allocation while stepping.
START_TEST(test_turbulent_steady_state) {
  char text[2048];
  snprintf(text, sizeof text,
           "%shydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1.5e9}\n"
           "      volumes:\n"
           "        - {name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e6}\n"
           "        - {name: W, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 5e6}\n"
           "      sources: [{name: pump, pressure: 1e7}, {name: tank, pressure: 1e5}]\n"
           "      throttles:\n"
           "        - {name: in, from: pump, to: V, cv: 2e-7, law: turbulent, signal: half}\n"
           "        - {name: out, from: V, to: tank, cv: 1e-7, law: turbulent, one_way: true}\n"
           "        - {name: hold, from: tank, to: W, cv: 1e-7, one_way: true}\n",
           kHead);
  hy_model* m = load_text(text);
  hy_data* d = hy_test_make(m);
  const int V = hy_model_volume(m, "V"), W = hy_model_volume(m, "W");
  const double C1 = 0.6 * 2e-7, C2 = 1e-7, pP = 1e7, pT = 1e5;
  const double p_ss = (C1 * C1 * pP + C2 * C2 * pT) / (C1 * C1 + C2 * C2);
  const long n = lround(m->opt.t_end / m->opt.dt);
  hy_test_count_allocs_begin();
  for (long i = 0; i < n; i++) {
    const hy_status st = hy_step(m, d);
    ck_assert_msg(st == HY_OK, "step %ld: %s", i, d->err.msg);
    ck_assert_double_eq(d->p[W], 5e6);
    ck_assert_double_eq(d->orf_q[hy_model_throttle(m, "hold")], 0.0);
  }
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  printf("turbulent throttles: simulated %.6f Pa, closed form %.6f Pa\n", d->p[V], p_ss);
  ck_assert_msg(fabs(d->p[V] - p_ss) <= 0.05, "steady pressure %.9g, expected %.9g", d->p[V], p_ss);
  // both dp far above dp_reg: the flows are the pure square roots, and they balance
  ck_assert_double_le(hy_test_relerr(d->orf_q[0], d->orf_q[1], 0), 1e-8);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A volume reached only through a one-way throttle, or through one its signal closes at t = 0,
// has no initial pressure: at rest such a throttle holds a pressure difference.
START_TEST(test_initial_not_through_closed) {
  static const char* const link[2] = {"one_way: true", "signal: s"};
  char text[2048];
  snprintf(text, sizeof text,
           "%shydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1.5e9}\n"
           "      volumes:\n"
           "        - {name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e9}\n"
           "      sources: [{name: pump, pressure: 1e7}]\n"
           "      throttles: [{name: t, from: pump, to: V, cv: 1e-7, %s}]\n",
           kHead, link[_i]);
  hy_model* m = load_text(text);
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_data_make(m, &d, &err);
  ck_assert_int_eq(st, HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "volume 'V' has no initial pressure"), "%s", err.msg);
  ck_assert_int_eq(err.src_line, 11);
  hy_model_free(m);
}
END_TEST

//----- loading, channels ---------------------------------------------------------------------

// Every key into its array (and defaults), the copies, and the flows' channels: Q_PT only for
// centres with that path, each channel reading its own slot of hy_data.vlv_q.
START_TEST(test_load_and_channels) {
  char text[2048];
  snprintf(text, sizeof text,
           "%shydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1.5e9}\n"
           "      volumes:\n"
           "        - {name: VP, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e7}\n"
           "        - {name: VT, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e5}\n"
           "        - {name: VA, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 6e6}\n"
           "        - {name: VB, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 3e6}\n"
           "      valves:\n"
           "        - {name: closed, P: VP, T: VT, A: VA, B: VB, cv: 1e-8, tau: 0.01,"
           " leakage: 1e-13, U0: 0.3}\n"
           "        - {name: open, P: VP, T: VT, A: VA, B: VB, cv: 1e-8, tau: 0.01,"
           " centre: open, U_max: 10, cv_centre: 4e-8, U0: -0.3}\n"
           "        - {name: tandem, P: VP, T: VT, A: VA, B: VB, cv: 1e-8, tau: 0.01,"
           " centre: tandem, U_max: 5, overlap: -0.2, U0: 1}\n"
           "        - {name: float, P: VP, T: VT, A: VA, B: VB, cv: 1e-8, tau: 0.01,"
           " centre: float, U_max: 8, overlap: 0.3, U0: -2}\n",
           kHead);
  hy_model* m = load_text(text);
  const int cl = hy_model_valve(m, "closed"), op = hy_model_valve(m, "open");
  const int ta = hy_model_valve(m, "tandem"), fl = hy_model_valve(m, "float");
  ck_assert_int_eq(m->vlv_centre[cl], HY_CENTRE_CLOSED);
  ck_assert_int_eq(m->vlv_centre[op], HY_CENTRE_OPEN);
  ck_assert_int_eq(m->vlv_centre[ta], HY_CENTRE_TANDEM);
  ck_assert_int_eq(m->vlv_centre[fl], HY_CENTRE_FLOAT);
  ck_assert_double_eq(m->vlv_leak[cl], 1e-13);
  ck_assert_double_eq(m->vlv_leak[op], 0);
  ck_assert_double_eq(m->vlv_Umax[cl], 0);
  ck_assert_double_eq(m->vlv_Umax[ta], 5);
  ck_assert_double_eq(m->vlv_overlap[ta], -0.2);
  ck_assert_double_eq(m->vlv_overlap[fl], 0.3);
  ck_assert_double_eq(m->vlv_cv_centre[op], 4e-8);
  ck_assert_double_eq(m->vlv_cv_centre[ta], 0);  // the default cv U_max, applied when evaluated
  hy_model* c;
  ck_assert_int_eq(hy_model_copy(m, &c), HY_OK);
  ck_assert_int_eq(c->vlv_centre[fl], HY_CENTRE_FLOAT);
  ck_assert_double_eq(c->vlv_overlap[fl], 0.3);
  hy_model_free(c);
  // the named parameters
  const char* unit;
  double* leak = hy_model_param(m, "valve:closed.leakage", &unit, NULL);
  ck_assert_ptr_eq(leak, m->vlv_leak + cl);
  ck_assert_str_eq(unit, "m^3/(s Pa)");
  ck_assert_ptr_eq(hy_model_param(m, "valve:float.overlap", NULL, NULL), m->vlv_overlap + fl);

  hy_data* d = hy_test_make(m);
  hy_hyd_evaluate(m, d, NULL);
  hy_channels* ch;
  ck_assert_int_eq(hy_channels_make(m, d, &ch, NULL), HY_OK);
  ck_assert_int_eq(hy_channels_find(ch, "Q_PT:closed"), -1);
  ck_assert_int_eq(hy_channels_find(ch, "Q_PT:float"), -1);
  static const char* const prefix[5] = {"Q_PA:", "Q_BT:", "Q_PB:", "Q_AT:", "Q_PT:"};
  static const char* const names[4] = {"closed", "open", "tandem", "float"};
  int nonzero = 0;
  for (int v = 0; v < 4; v++) {
    for (int k = 0; k < 5; k++) {
      char name[64];
      snprintf(name, sizeof name, "%s%s", prefix[k], names[v]);
      const int i = hy_channels_find(ch, name);
      if (k == 4 && (v == 0 || v == 3)) continue;
      ck_assert_msg(i >= 0, "no channel %s", name);
      const int vi = hy_model_valve(m, names[v]);
      ck_assert_double_eq(hy_channel_value(ch->ch + i, d), d->vlv_q[HY_VALVE_PATHS * vi + k]);
      nonzero += d->vlv_q[HY_VALVE_PATHS * vi + k] != 0;
    }
  }
  ck_assert_int_ge(nonzero, 8);
  hy_channels_free(ch);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

//----- errors at their positions -------------------------------------------------------------

// Lines 1-5 are kHead; the circuit follows, the element under test on line 13 from column 11.
typedef struct bad_case {
  const char* list;     // "valves" or "throttles"
  const char* element;  // its mapping's text after "{"
  const char* at;       // the text the error points at (NULL: the element itself)
  const char* needle;
} bad_case;

static const bad_case kBad[] = {
    {"valves", "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, centre: semi}", "semi}",
     "expected one of: closed, open, tandem, float"},
    {"valves", "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, centre: open}", NULL,
     "key 'U_max' is required (a positive number, V: the spool position where the open centre"},
    {"valves", "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, cv_centre: 1e-8}",
     "cv_centre", "'cv_centre' applies to open, tandem and float centres only"},
    {"valves", "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, leakage: -1e-12}", NULL,
     "valve 'v': leakage must be >= 0 (m^3/(s Pa)), got -1e-12"},
    {"valves", "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, leakage: 0.5}", NULL,
     "valve 'v': leakage must be at most 0.001 (m^3/(s Pa)), got 0.5"},
    {"valves",
     "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, centre: tandem, U_max: 10, "
     "overlap: 10}",
     NULL, "valve 'v': overlap 10 V must lie between -U_max and U_max"},
    {"valves", "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, U_max: -1}", NULL,
     "valve 'v': U_max must be >= 0 (V), got -1"},
    {"valves", "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, centre: float, U_max: 0}",
     NULL, "valve 'v': an open, tandem or float centre needs U_max > 0"},
    {"valves",
     "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, centre: open, U_max: 10, "
     "cv_centre: 2}",
     NULL, "valve 'v': cv_centre must be at most 1 (m^3/(s sqrt(Pa))), got 2"},
    {"valves", "name: v, P: P, T: T, A: A, B: B, cv: 1e-8, tau: 0.01, overlap: 2000}", NULL,
     "valve 'v': overlap must be between -1000 and 1000 (V), got 2000"},
    {"throttles", "name: t, from: A, to: B, cv: 1e-7, law: laminar}", "laminar}",
     "expected one of: laminar_transition, turbulent"},
    {"throttles", "name: t, from: A, to: B, cv: 1e-7, dp_reg: 10}", "dp_reg",
     "'dp_reg' applies to law turbulent only, not to law: laminar_transition"},
    {"throttles", "name: t, from: A, to: B, cv: 1e-7, law: turbulent, dp_lim: 1e5}", "dp_lim",
     "'dp_lim' applies to law laminar_transition only, not to law: turbulent"},
    {"throttles", "name: t, from: A, to: B, cv: 1e-7, law: turbulent, dp_reg: 0}", NULL,
     "throttle 't': dp_reg must be positive (Pa), got 0"},
    {"throttles", "name: t, from: A, to: B, cv: 1e-7, one_way: maybe}", "maybe}",
     "expected one of: false, true"},
    {"throttles", "name: t, from: A, to: B, cv: 1e-7, signal: nosuch}", NULL,
     "throttle 't': signal 'nosuch' does not exist"},
};

START_TEST(test_bad_keys) {
  const bad_case* c = &kBad[_i];
  // lines 6-11, then the list's key on line 12 and the element on line 13
  static const char circuit[] =
      "hydraulics:\n"
      "  circuits:\n"
      "    - name: c\n"
      "      oil: {bulk_modulus: 1e9}\n"
      "      volumes: [{name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6},"
      " {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
      "      sources: [{name: P, pressure: 1e7}, {name: T, pressure: 1e5}]\n";
  char line[512];
  snprintf(line, sizeof line, "        - {%s\n", c->element);
  char text[2048];
  const int n = snprintf(text, sizeof text, "%s%s      %s:\n%s", kHead, circuit, c->list, line);
  ck_assert_int_lt(n, (int)sizeof text);
  // the position the error must name: the key or value `at` on line 13, else the element's
  // mapping at column 11 (the list item's "{")
  const int want_line = 13;
  int want_col = 11;
  if (c->at) want_col = (int)(strstr(line, c->at) - line) + 1;
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_model_load_string(text, strlen(text), "bad.yaml", &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_ERR_MODEL, "case %d: status %d (%s)", _i, st, buf);
  ck_assert_msg(strstr(err.msg, c->needle), "case %d: '%s' not in: %s", _i, c->needle, buf);
  ck_assert_msg(err.src_line == want_line && err.src_col == want_col,
                "case %d: reported at %d:%d, expected %d:%d (%s)", _i, err.src_line, err.src_col,
                want_line, want_col, buf);
  ck_assert_msg(strstr(buf, "bad.yaml"), "case %d: no file name in %s", _i, buf);
}
END_TEST

// hy_model_check applies the same rules to a compiled model changed afterwards (as an API user
// or a parameter sweep may), at the valve's position in its file.
START_TEST(test_check_after_compile) {
  valve_cfg c = {.centre = "open", .U_max = kUmax};
  hy_model* m = valve_model(&c);
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_check(m, &err), HY_OK);
  m->vlv_overlap[0] = -kUmax;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "overlap -10 V must lie between -U_max and U_max"), "%s", err.msg);
  ck_assert_int_eq(err.src_line, 17);  // the valve's mapping in valve_model's text
  ck_assert_int_eq(err.src_col, 11);
  m->vlv_overlap[0] = 0;
  m->vlv_centre[0] = 7;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "unknown centre 7"), "%s", err.msg);
  m->vlv_centre[0] = HY_CENTRE_CLOSED;
  m->vlv_cv_centre[0] = 1e-8;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "cv_centre (1e-08) applies to open, tandem and float centres"),
                "%s", err.msg);
  hy_model_free(m);
}
END_TEST

Suite* hyd_valve_suite(void) {
  Suite* s = suite_create("hyd_valve");
  TCase* tc = tcase_create("hyd_valve");
  tcase_add_loop_test(tc, test_centre_flows, 0, 8);
  tcase_add_test(tc, test_seed_valve_through_edges);
  tcase_add_loop_test(tc, test_overlap_underlap, 0, 2);
  tcase_add_test(tc, test_overlap_flows);
  tcase_add_test(tc, test_leakage);
  tcase_add_loop_test(tc, test_valve_partials, 0, 8);
  tcase_add_test(tc, test_one_way_law);
  tcase_add_test(tc, test_throttle_options);
  tcase_add_test(tc, test_turbulent_law);
  tcase_add_test(tc, test_turbulent_steady_state);
  tcase_add_loop_test(tc, test_initial_not_through_closed, 0, 2);
  tcase_add_test(tc, test_load_and_channels);
  tcase_add_loop_test(tc, test_bad_keys, 0, (int)(sizeof kBad / sizeof kBad[0]));
  tcase_add_test(tc, test_check_after_compile);
  suite_add_tcase(s, tc);
  return s;
}
