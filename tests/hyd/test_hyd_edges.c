// Metering edges from tables (docs/hydraulics.md, "Metering edges from tables"): tables that
// trace the built-in shape of an overlapped closed-centre valve give its flows and tangent to
// round-off; a non-linear table gives the orifice law at openings interpolated by hand; the
// openings are continuous in U; every entry of d p_dot / d p against central differences; the
// builder's copies, channels, the errors of the YAML keys and of hy_model_check at their
// positions, and no memory left behind on a failed or truncated load.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hyd_rig.h"
#include "hydyn/hydyn.h"

//----- the documented laws, written out independently of src/hyd ----------------------------

static const double kDpLim = 2e5;  // default laminar limit (Pa)
static const double kCv = 1e-8;    // the built-in valve's cv (m^3/(s V sqrt(Pa)))
static const double kO = 0.4;      // its overlap (V)
static const double kLeak = 2e-13;

// Orifice flow with the cubic branch below lim: C sgn(dp) sqrt|dp| above, C sqrt(lim)
// (5x - x^3)/4 below (x = dp/lim).
static double orifice(double C, double dp, double lim) {
  if (C == 0) return 0;
  if (fabs(dp) >= lim) return dp < 0 ? -C * sqrt(-dp) : C * sqrt(dp);
  const double x = dp / lim;
  return C * sqrt(lim) * (5 * x - x * x * x) / 4;
}

// The paths of hy_data.vlv_q as (from, to) ports, ports numbered P 0, T 1, A 2, B 3.
static const int kPath[5][2] = {{0, 2}, {3, 1}, {0, 3}, {2, 1}, {0, 1}};
static const char* const kPathName[5] = {"P->A", "B->T", "P->B", "A->T", "P->T"};

//----- models --------------------------------------------------------------------------------

// Lines 1-5: mechanics the hydraulics need to make a model (no cylinder: the circuit stands
// alone).
static const char kHead[] =
    "name: edges-test\n"
    "bodies: [{name: slider, mass: 10}]\n"
    "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
    "solver: {dt: 1e-3, t_end: 0.3}\n"
    "signals: [{name: s, table: [[0, 0.6]]}]\n";

// Four volumes VP, VT, VA, VB (nodes 0..3) on the ports of one valve v whose mapping ends with
// `opts` (after tau), in a circuit of laminar law `laminar`.
static hy_model* valve_model(const char* opts, const char* laminar) {
  char text[4096];
  snprintf(text, sizeof text,
           "%shydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1.5e9}\n"
           "      laminar: %s\n      volumes:\n"
           "        - {name: VP, hose_volume: 1e-4, hose_bulk_modulus: 1e9, p0: 1e7}\n"
           "        - {name: VT, hose_volume: 2e-4, hose_bulk_modulus: 1e9, p0: 1e5}\n"
           "        - {name: VA, hose_volume: 3e-4, hose_bulk_modulus: 1e9, p0: 6e6}\n"
           "        - {name: VB, hose_volume: 4e-4, hose_bulk_modulus: 1e9, p0: 3e6}\n"
           "      valves:\n"
           "        - {name: v, P: VP, T: VT, A: VA, B: VB, tau: 0.01, %s}\n",
           kHead, laminar, opts);
  return hy_test_load_text(text, "edges.yaml");
}

// The built-in closed-centre valve of cv kCv, overlap kO and leakage kLeak, and the same valve
// described by its edges over the stroke -10 V .. 10 V: each window closed up to the overlap,
// then cv (|U| - o), written as the two points that span that straight line.
static hy_model* builtin_model(const char* laminar) {
  char opts[256];
  snprintf(opts, sizeof opts, "cv: %.17g, overlap: %.17g, leakage: %.17g", kCv, kO, kLeak);
  return valve_model(opts, laminar);
}

static hy_model* traced_model(const char* laminar) {
  const double top = kCv * (10 - kO);  // the window fully open at |U| = 10 V
  char rise[128], fall[128], opts[1024];
  snprintf(rise, sizeof rise, "[[-10, 0], [%.17g, 0], [10, %.17g]]", kO, top);
  snprintf(fall, sizeof fall, "[[-10, %.17g], [%.17g, 0], [10, 0]]", top, -kO);
  snprintf(opts, sizeof opts, "leakage: %.17g, edges: {P->A: %s, B->T: %s, P->B: %s, A->T: %s}",
           kLeak, rise, rise, fall, fall);
  return valve_model(opts, laminar);
}

// A distinctly non-linear valve: progressive, saturating and asymmetric edges, with a P->T path
// open around the centre (a tandem-like unloading) and no leakage.
static const char kCurved[] =
    "edges: {P->A: [[0, 0], [1, 1e-9], [3, 2e-8], [5, 2.5e-8]],"
    " B->T: [[-1, 5e-10], [2, 1e-8], [6, 4e-8]],"
    " P->B: [[-5, 3e-8], [-1, 0]],"
    " A->T: [[-6, 2e-8], [-2, 1e-9], [0, 0]],"
    " P->T: [[-0.5, 0], [0, 4e-9], [0.5, 0]]}";

// A model, its data and a derivative work.

// Pressures (P, T, A, B): each path's dp on both sides of +-dp_lim (laminar and turbulent
// branches), then the opposite sides, then all far above.
static const double kStates[3][4] = {
    {1.0e6, 0.99e6, 0.82e6, 1.22e6},
    {1.0e6, 0.6e6, 0.78e6, 1.17e6},
    {1e7, 1e5, 6e6, 3e6},
};

//----- the built-in shape traced by tables ---------------------------------------------------

// The traced valve gives the built-in valve's five flows, its volumes' rates and its tangent
// d p_dot / d p to round-off, on a sweep of U over the stroke (the breakpoints +-o included) at
// pressures in both orifice regimes, with both laminar laws.
START_TEST(test_traced_builtin) {
  const char* laminar = _i ? "linear" : "cubic";
  rig a, b;
  rig_make(&a, builtin_model(laminar));
  rig_make(&b, traced_model(laminar));
  ck_assert_int_eq(a.m->sizes.nedgept, 0);
  ck_assert_int_eq(b.m->sizes.nedgept, 12);
  const int nv = 4;
  double worst = 0;
  int open = 0;
  for (int s = 0; s < 3; s++) {
    for (int g = 0; g <= 400; g++) {
      // -10 .. 10 V in steps of 0.05 V, which hits +-0.4 V
      const double U = -10 + 0.05 * g;
      for (int k = 0; k < nv; k++) a.d->p[k] = b.d->p[k] = kStates[s][k];
      a.d->U[0] = b.d->U[0] = U;
      hy_hyd_evaluate(a.m, a.d, &a.hw);
      hy_hyd_evaluate(b.m, b.d, &b.hw);
      double qmax = 0;
      for (int k = 0; k < HY_VALVE_PATHS; k++) qmax = fmax(qmax, fabs(a.d->vlv_q[k]));
      for (int k = 0; k < HY_VALVE_PATHS; k++) {
        const double e = hy_test_relerr(b.d->vlv_q[k], a.d->vlv_q[k], 1e-12 * qmax);
        worst = fmax(worst, e);
        ck_assert_msg(e <= 1e-12, "%s, state %d, U = %g: %s flow %.17g, built-in %.17g", laminar, s,
                      U, kPathName[k], b.d->vlv_q[k], a.d->vlv_q[k]);
        open += k < 4 && fabs(a.d->vlv_q[k]) > 10 * kLeak * 1e6;
      }
      ck_assert_double_eq(b.d->vlv_q[4], 0.0);  // no P->T table: no such path
      double pmax = 0, jmax = 0;
      for (int v = 0; v < nv; v++) pmax = fmax(pmax, fabs(a.d->pd[v]));
      for (int v = 0; v < nv * nv; v++) jmax = fmax(jmax, fabs(a.hw.dpd_dp[v]));
      for (int v = 0; v < nv; v++) {
        ck_assert_double_le(hy_test_relerr(b.d->pd[v], a.d->pd[v], 1e-12 * pmax), 1e-12);
      }
      for (int v = 0; v < nv * nv; v++) {
        ck_assert_msg(hy_test_relerr(b.hw.dpd_dp[v], a.hw.dpd_dp[v], 1e-12 * jmax) <= 1e-12,
                      "%s, state %d, U = %g: dpd_dp[%d] %.17g, built-in %.17g", laminar, s, U, v,
                      b.hw.dpd_dp[v], a.hw.dpd_dp[v]);
      }
      // inside the overlap only the leakage flows, and exactly as much as in the built-in valve
      if (fabs(U) <= kO) {
        for (int k = 0; k < 4; k++) {
          const double dp = kStates[s][kPath[k][0]] - kStates[s][kPath[k][1]];
          ck_assert_double_le(hy_test_relerr(b.d->vlv_q[k], kLeak * dp, 0), 1e-15);
        }
      }
    }
  }
  ck_assert_int_gt(open, 1000);  // the sweep did open the edges
  printf("edges tracing the built-in valve (%s): worst relative difference %.2g\n", laminar, worst);
  rig_free(&a);
  rig_free(&b);
}
END_TEST

//----- a non-linear table --------------------------------------------------------------------

// The coefficients of kCurved interpolated by hand at a few spool positions: inside a segment,
// at a point, beyond either end (held), and the P->T path around the centre.
typedef struct curved_point {
  double U;
  double C[5];  // P->A, B->T, P->B, A->T, P->T
} curved_point;

static const curved_point kCurvedPoints[] = {
    // P->A on [1, 3]: 1e-9 + (2 - 1)/(3 - 1) (2e-8 - 1e-9); B->T at its point (2, 1e-8); P->B and
    // A->T held at their last points (0); P->T shut beyond 0.5
    {2.0, {1e-9 + 0.5 * 1.9e-8, 1e-8, 0, 0, 0}},
    // P->A held at its first point (0); B->T held at its first (5e-10); P->B on [-5, -1]:
    // 3e-8 (1 - (-3 + 5)/4); A->T on [-6, -2]: 2e-8 + 3/4 (1e-9 - 2e-8)
    {-3.0, {0, 5e-10, 3e-8 * 0.5, 2e-8 - 0.75 * 1.9e-8, 0}},
    // P->A on [0, 1]: 0.25 1e-9; B->T on [-1, 2]: 5e-10 + 1.25/3 (1e-8 - 5e-10); P->T on
    // [0, 0.5]: 4e-9 (1 - 0.25/0.5)
    {0.25, {0.25e-9, 5e-10 + 1.25 / 3 * 9.5e-9, 0, 0, 0.5 * 4e-9}},
    // beyond the last points: held at 2.5e-8 and 4e-8
    {7.0, {2.5e-8, 4e-8, 0, 0, 0}},
    // P->T on [-0.5, 0]: 4e-9 (1 - 0.2/0.5); A->T on [-2, 0]: 1e-9 (0.2/2); B->T on [-1, 2]:
    // 5e-10 + 0.8/3 (9.5e-9)
    {-0.2, {0, 5e-10 + 0.8 / 3 * 9.5e-9, 0, 1e-9 * 0.1, 0.6 * 4e-9}},
};

START_TEST(test_curved_table) {
  rig r;
  rig_make(&r, valve_model(kCurved, "cubic"));
  for (int s = 0; s < 3; s++) {
    for (size_t i = 0; i < sizeof kCurvedPoints / sizeof kCurvedPoints[0]; i++) {
      const curved_point* cp = &kCurvedPoints[i];
      double C[HY_VALVE_PATHS];
      hy_hyd_valve_openings(r.m, 0, cp->U, C);
      for (int k = 0; k < 4; k++) r.d->p[k] = kStates[s][k];
      r.d->U[0] = cp->U;
      hy_hyd_evaluate(r.m, r.d, NULL);
      double q[5];
      for (int k = 0; k < 5; k++) {
        ck_assert_msg(hy_test_relerr(C[k], cp->C[k], 1e-30) <= 1e-14,
                      "U = %g: %s coefficient %.17g, by hand %.17g", cp->U, kPathName[k], C[k],
                      cp->C[k]);
        q[k] = orifice(cp->C[k], kStates[s][kPath[k][0]] - kStates[s][kPath[k][1]], kDpLim);
        ck_assert_msg(hy_test_relerr(r.d->vlv_q[k], q[k], 1e-30) <= 1e-13,
                      "state %d, U = %g: %s flow %.17g, orifice law %.17g", s, cp->U, kPathName[k],
                      r.d->vlv_q[k], q[k]);
      }
      // Eq. 22: what each volume receives
      const double S[4] = {-q[0] - q[2] - q[4], q[1] + q[3] + q[4], q[0] - q[3], q[2] - q[1]};
      double big = 0;
      for (int k = 0; k < 5; k++) big += fabs(q[k]);
      for (int v = 0; v < 4; v++) {
        const double in = r.d->pd[v] * r.d->vol_V[v] / r.d->vol_Be[v];
        ck_assert_double_le(hy_test_relerr(in, S[v], 1e-300 + big), 1e-13);
      }
    }
  }
  rig_free(&r);
}
END_TEST

// The openings are continuous in U: on a fine grid over and beyond the tables, no coefficient
// moves by more than the steepest slope of its table times the grid step (kCurved's steepest
// segment is P->A's 1.9e-8 / 2 per V, B->T's 9.5e-9/3, ...; 1e-8 per V bounds every one of them
// but P->T's 8e-9 per V, which 1e-8 bounds too).
START_TEST(test_continuity) {
  hy_model* m = valve_model(kCurved, "cubic");
  const double h = 1e-3, lip = 1e-8;
  double C[HY_VALVE_PATHS], Cl[HY_VALVE_PATHS];
  hy_hyd_valve_openings(m, 0, -8.0, Cl);
  double moved = 0;
  for (int g = 1; g <= 16000; g++) {
    const double U = -8.0 + g * h;
    hy_hyd_valve_openings(m, 0, U, C);
    for (int k = 0; k < HY_VALVE_PATHS; k++) {
      ck_assert_msg(fabs(C[k] - Cl[k]) <= lip * h * (1 + 1e-9), "%s jumps by %g at U = %g",
                    kPathName[k], C[k] - Cl[k], U);
      ck_assert_double_ge(C[k], 0);
      moved += fabs(C[k] - Cl[k]);
      Cl[k] = C[k];
    }
  }
  ck_assert_double_gt(moved, 1e-8);  // the openings did change on the way
  hy_model_free(m);
}
END_TEST

//----- d p_dot / d p against central differences ---------------------------------------------

// The tangent of the non-linear valve with leakage at spool positions on every side of the
// tables' points, in both orifice regimes and with both laminar laws. The spool position is no
// Newton unknown (hy_hyd_evaluate: the spools are stepped apart), so d p_dot / d p is all the
// valve adds to the tangent.
START_TEST(test_edges_partials) {
  const char* laminar = _i ? "linear" : "cubic";
  char opts[1024];
  snprintf(opts, sizeof opts, "leakage: 2e-13, %s", kCurved);
  rig r;
  rig_make(&r, valve_model(opts, laminar));
  double worst = 0;
  const double spools[] = {2.0, -3.0, 0.25, 7.0, -0.2, -5.5, 1.5};
  for (int s = 0; s < 3; s++) {
    for (size_t u = 0; u < sizeof spools / sizeof spools[0]; u++) {
      for (int k = 0; k < 4; k++) r.d->p[k] = kStates[s][k];
      r.d->U[0] = spools[u];
      char label[96];
      snprintf(label, sizeof label, "laminar %s, state %d, U = %g", laminar, s, spools[u]);
      // a step of 10 Pa: each path's dp is at least 1e4 Pa from a breakpoint of the law
      const int nz = rig_check_dpd_dp(&r, 10, label, &worst);
      ck_assert_msg(nz >= 4, "%s: only %d non-zero entries", label, nz);
    }
  }
  printf("edges valve partials, laminar %-6s: worst relative difference %.2g\n", laminar, worst);
  rig_free(&r);
}
END_TEST

//----- builder, copies, channels -------------------------------------------------------------

// hy_spec_add_valve copies the tables (the caller's arrays may change afterwards), the compiled
// model and its copy hold them, and a P->T table brings the Q_PT channel, which a valve without
// one does not have.
START_TEST(test_builder_and_channels) {
  hy_model* base = valve_model(kCurved, "cubic");
  ck_assert_int_eq(base->sizes.nedgept, 4 + 3 + 2 + 3 + 3);
  ck_assert_int_eq(base->vlv_edge_n[4], 3);
  ck_assert_double_eq(base->edge_U[base->vlv_edge_adr[1] + 2], 6);
  ck_assert_double_eq(base->edge_C[base->vlv_edge_adr[1] + 2], 4e-8);
  // the P->A table's key: line 17 of valve_model's text, after "edges: {"
  ck_assert_int_eq(base->vlv_edge_src[0].line, 17);
  ck_assert_int_eq(base->vlv_edge_src[0].col, 68);
  hy_model* c;
  ck_assert_int_eq(hy_model_copy(base, &c), HY_OK);
  ck_assert_int_eq(c->vlv_edge_n[2], 2);
  ck_assert_double_eq(c->edge_C[c->vlv_edge_adr[2]], 3e-8);
  hy_model_free(c);
  hy_data* d = hy_test_make(base);
  hy_hyd_evaluate(base, d, NULL);
  hy_channels* ch;
  ck_assert_int_eq(hy_channels_make(base, d, &ch, NULL), HY_OK);
  const int pt = hy_channels_find(ch, "Q_PT:v");
  ck_assert_int_ge(pt, 0);
  ck_assert_double_eq(hy_channel_value(ch->ch + pt, d), d->vlv_q[4]);
  hy_channels_free(ch);
  hy_data_free(d);
  hy_model_free(base);
  // without a P->T table: no such channel
  hy_model* traced = traced_model("cubic");
  d = hy_test_make(traced);
  ck_assert_int_eq(hy_channels_make(traced, d, &ch, NULL), HY_OK);
  ck_assert_int_eq(hy_channels_find(ch, "Q_PT:v"), -1);
  ck_assert_int_ge(hy_channels_find(ch, "Q_PA:v"), 0);
  hy_channels_free(ch);
  hy_data_free(d);
  hy_model_free(traced);

  // the same valve from code: a ramp on each edge
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_body_def b = hy_body_def_default();
  snprintf(b.name, sizeof b.name, "slider");
  b.mass = 10;
  ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
  hy_joint_def j = hy_joint_def_default();
  snprintf(j.name, sizeof j.name, "js");
  j.type = HY_JOINT_PRISMATIC;
  snprintf(j.parent, sizeof j.parent, "ground");
  snprintf(j.child, sizeof j.child, "slider");
  j.axis[0] = 1;
  ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  hy_circuit_def cd = hy_circuit_def_default();
  snprintf(cd.name, sizeof cd.name, "c");
  cd.B_oil = 1.5e9;
  ck_assert_int_eq(hy_spec_add_circuit(s, &cd), HY_OK);
  static const char* const names[4] = {"VP", "VT", "VA", "VB"};
  for (int k = 0; k < 4; k++) {
    hy_volume_def v = hy_volume_def_default();
    snprintf(v.name, sizeof v.name, "%s", names[k]);
    snprintf(v.circuit, sizeof v.circuit, "c");
    v.hose_volume = 1e-4;
    v.hose_bulk_modulus = 1e9;
    v.p0 = kStates[2][k];
    ck_assert_int_eq(hy_spec_add_volume(s, &v), HY_OK);
  }
  hy_valve_def vd = hy_valve_def_default();
  snprintf(vd.name, sizeof vd.name, "v");
  snprintf(vd.P, sizeof vd.P, "VP");
  snprintf(vd.T, sizeof vd.T, "VT");
  snprintf(vd.A, sizeof vd.A, "VA");
  snprintf(vd.B, sizeof vd.B, "VB");
  vd.tau = 0.01;
  double Us[4][2] = {{0, 2}, {0, 2}, {-2, 0}, {-2, 0}};
  double Cs[4][2] = {{0, 2e-8}, {0, 2e-8}, {2e-8, 0}, {2e-8, 0}};
  for (int k = 0; k < 4; k++) {
    vd.edge_n[k] = 2;
    vd.edge_U[k] = Us[k];
    vd.edge_C[k] = Cs[k];
  }
  ck_assert_int_eq(hy_spec_add_valve(s, &vd), HY_OK);
  Cs[0][1] = 1.0;  // after the copy: no effect on the model
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_msg(hy_model_compile(s, &m, &err) == HY_OK, "%s", err.msg);
  double C[HY_VALVE_PATHS];
  hy_hyd_valve_openings(m, 0, 1.0, C);
  ck_assert_double_le(hy_test_relerr(C[0], 1e-8, 0), 1e-15);
  ck_assert_double_le(hy_test_relerr(C[1], 1e-8, 0), 1e-15);
  ck_assert_double_eq(C[2], 0.0);
  // the built-in shape's parameters are refused beside the tables
  m->vlv_cv[0] = 1e-8;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "valve 'v': cv (1e-08) has no meaning with edges"), "%s", err.msg);
  m->vlv_cv[0] = 0;
  m->vlv_centre[0] = HY_CENTRE_TANDEM;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_msg(strstr(err.msg, "a centre other than closed has no meaning with edges"), "%s",
                err.msg);
  m->vlv_centre[0] = HY_CENTRE_CLOSED;
  ck_assert_int_eq(hy_model_check(m, &err), HY_OK);
  hy_model_free(m);
  // a negative count is refused at once
  vd.edge_n[4] = -1;
  ck_assert_int_eq(hy_spec_add_valve(s, &vd), HY_ERR_ARG);
  hy_spec_free(s);
}
END_TEST

//----- errors at their positions -------------------------------------------------------------

// Lines 1-5 are kHead; the circuit follows, the valve on line 13 from column 11.
typedef struct bad_case {
  const char* element;  // the valve's mapping after "{"
  const char* at;       // the text the error points at (NULL: the valve itself)
  const char* needle;
} bad_case;

#define PORTS "name: v, P: P, T: T, A: A, B: B, tau: 0.01"
#define RISE "[[0, 0], [1, 1e-8]]"
#define FALL "[[-1, 1e-8], [0, 0]]"

static const bad_case kBad[] = {
    {PORTS ", cv: 1e-8, edges: {P->A: " RISE ", B->T: " RISE ", P->B: " FALL ", A->T: " FALL "}}",
     "cv:", "'cv' has no meaning with edges: the tables give every path's opening"},
    {PORTS ", centre: tandem, edges: {P->A: " RISE ", B->T: " RISE ", P->B: " FALL ", A->T: " FALL
           "}}",
     "centre", "'centre' has no meaning with edges"},
    {PORTS ", overlap: 0.1, edges: {P->A: " RISE ", B->T: " RISE ", P->B: " FALL ", A->T: " FALL
           "}}",
     "overlap", "'overlap' has no meaning with edges"},
    {PORTS ", U_max: 5, edges: {P->A: " RISE ", B->T: " RISE ", P->B: " FALL ", A->T: " FALL "}}",
     "U_max", "'U_max' has no meaning with edges"},
    {PORTS ", edges: {P->A: " RISE ", P->B: " FALL ", A->T: " FALL "}}", "{P->A",
     "key 'B->T' is required (a list of [U, C] pairs (units of U, m^3/(s sqrt(Pa))))"},
    {PORTS ", edges: {P->A: " RISE ", B->T: " RISE ", P->B: " FALL ", A->T: " FALL ", P->X: " RISE
           "}}",
     "P->X", "unknown key 'P->X'"},
    {PORTS ", edges: {P->A: [[0, 0], [2, 1e-8], [1, 2e-8]], B->T: " RISE ", P->B: " FALL
           ", A->T: " FALL "}}",
     "P->A",
     "valve 'v': edges: P->A: the spool positions must increase, but point 2 has U = 1 "
     "after 2"},
    {PORTS ", edges: {P->A: " RISE ", B->T: [[0, 0], [1, -1e-8]], P->B: " FALL ", A->T: " FALL "}}",
     "B->T", "valve 'v': edges B->T[1] C must be >= 0 (m^3/(s sqrt(Pa))), got -1e-08"},
    {PORTS ", edges: {P->A: " RISE ", B->T: " RISE ", P->B: " FALL ", A->T: [[0, 0]]}}", "A->T",
     "valve 'v': edges: A->T needs a table of at least 2 points [U, C]"},
    {PORTS ", edges: {P->A: " RISE ", B->T: " RISE ", P->B: " FALL ", A->T: " FALL
           ", P->T: [[0, 1e-9]]}}",
     "P->T", "valve 'v': edges: P->T needs a table of at least 2 points [U, C], got 1"},
    {PORTS ", units: normalized, edges: {P->A: [[0, 0], [2, 1e-8]], B->T: " RISE ", P->B: " FALL
           ", A->T: " FALL "}}",
     "P->A",
     "valve 'v': edges P->A[1] U must be between -1 and 1 (fraction of the full opening), got 2"},
    {PORTS ", edges: {P->A: [[0, 0], [2000, 1e-8]], B->T: " RISE ", P->B: " FALL ", A->T: " FALL
           "}}",
     "P->A", "valve 'v': edges P->A[1] U must be between -1000 and 1000 (V), got 2000"},
    {PORTS ", edges: {P->A: [[0, 0, 1]], B->T: " RISE ", P->B: " FALL ", A->T: " FALL "}}",
     "[0, 0, 1]", "edges: P->A[0]: expected a pair [U, C] (units of U, m^3/(s sqrt(Pa)))"},
    {PORTS ", edges: {P->A: 3, B->T: " RISE ", P->B: " FALL ", A->T: " FALL "}}", "3, B->T",
     "edges: P->A: expected a list of [U, C] pairs (units of U, m^3/(s sqrt(Pa))), got '3'"},
    {PORTS ", edges: [1, 2]}", "[1, 2]", "edges: expected a mapping with keys P->A, B->T"},
    {PORTS "}", NULL,
     "key 'cv' is required (a positive number, m^3/(s V sqrt(Pa)); or give edges)"},
};

START_TEST(test_bad_edges) {
  const bad_case* c = &kBad[_i];
  // lines 6-11, then the list's key on line 12 and the valve on line 13
  static const char circuit[] =
      "hydraulics:\n"
      "  circuits:\n"
      "    - name: c\n"
      "      oil: {bulk_modulus: 1e9}\n"
      "      volumes: [{name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6},"
      " {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
      "      sources: [{name: P, pressure: 1e7}, {name: T, pressure: 1e5}]\n";
  char line[1024];
  snprintf(line, sizeof line, "        - {%s\n", c->element);
  char text[4096];
  const int n = snprintf(text, sizeof text, "%s%s      valves:\n%s", kHead, circuit, line);
  ck_assert_int_lt(n, (int)sizeof text);
  int want_col = 11;
  if (c->at) {
    const char* hit = strstr(line, c->at);
    ck_assert_msg(hit, "case %d: '%s' not in the line", _i, c->at);
    want_col = (int)(hit - line) + 1;
  }
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_model_load_string(text, strlen(text), "bad.yaml", &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_ERR_MODEL, "case %d: status %d (%s)", _i, st, buf);
  ck_assert_msg(strstr(err.msg, c->needle), "case %d: '%s' not in: %s", _i, c->needle, buf);
  ck_assert_msg(err.src_line == 13 && err.src_col == want_col,
                "case %d: reported at %d:%d, expected 13:%d (%s)", _i, err.src_line, err.src_col,
                want_col, buf);
  ck_assert_msg(strstr(buf, "bad.yaml"), "case %d: no file name in %s", _i, buf);
}
END_TEST

//----- memory -------------------------------------------------------------------------------

#define EDGES_FILE HY_SOURCE_DIR "/tests/data/valve-edges.yaml"

// The loader's and the spec's copies of the tables are freed on every path: with the 1st, 2nd,
// ... allocation of a load failing in turn (HY_ERR_NOMEM, nothing left), and for every prefix
// of the file (loaded or refused, nothing left).
START_TEST(test_edges_memory) {
  for (long k = 1;; k++) {
    hy_test_hook_begin(k);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    const hy_status st = hy_model_load(EDGES_FILE, &m, &err);
    const long calls = hy_test_hook_calls();
    if (st == HY_OK) hy_model_free(m);
    const long live = hy_test_hook_live();
    hy_test_hook_end();
    ck_assert_msg(live == 0, "failing allocation %ld: %ld blocks leaked", k, live);
    if (calls < k) {
      ck_assert_int_eq(st, HY_OK);  // the k-th allocation never happened
      ck_assert_int_gt(k, 20);
      break;
    }
    ck_assert_msg(st == HY_ERR_NOMEM, "failing allocation %ld gave %d: %s", k, st, err.msg);
  }
  FILE* f = fopen(EDGES_FILE, "rb");
  ck_assert_ptr_nonnull(f);
  static char text[1 << 14];
  const size_t size = fread(text, 1, sizeof text, f);
  fclose(f);
  ck_assert_int_gt(size, 1000);
  int loaded = 0;
  for (size_t n = 0; n <= size; n++) {
    hy_test_hook_begin(0);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    const hy_status st = hy_model_load_string(text, n, "valve-edges.yaml", &m, &err);
    if (st == HY_OK) {
      hy_model_free(m);
      loaded++;
    } else {
      ck_assert_ptr_null(m);
      ck_assert_msg(err.msg[0] != 0, "prefix %zu: empty message", n);
    }
    const long live = hy_test_hook_live();
    hy_test_hook_end();
    ck_assert_msg(live == 0, "prefix %zu: %ld blocks leaked", n, live);
  }
  ck_assert_int_ge(loaded, 1);  // the whole file at least
}
END_TEST

Suite* hyd_edges_suite(void) {
  Suite* s = suite_create("hyd_edges");
  TCase* tc = tcase_create("hyd_edges");
  tcase_add_loop_test(tc, test_traced_builtin, 0, 2);
  tcase_add_test(tc, test_curved_table);
  tcase_add_test(tc, test_continuity);
  tcase_add_loop_test(tc, test_edges_partials, 0, 2);
  tcase_add_test(tc, test_builder_and_channels);
  tcase_add_loop_test(tc, test_bad_edges, 0, (int)(sizeof kBad / sizeof kBad[0]));
  tcase_add_test(tc, test_edges_memory);
  suite_add_tcase(s, tc);
  return s;
}
