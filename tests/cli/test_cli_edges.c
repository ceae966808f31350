// `hydyn info` and `hydyn run` on tests/data/valve-edges.yaml, run as child processes: the
// throttles' options (law with its limit, one-way, signal), the valves' metering (centre, U_max,
// overlap, the default cv_centre, leakage; edge tables point by point, as the file gives them)
// the flow of an edge table's P->T path at t = 0 against the orifice law by hand, and the crane's
// run with its valve traced by edge tables against the built-in valve's.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_harness.h"
#include "fixture.h"

static cmd_result result;  // large: static, one per test process

#define MODEL HY_SOURCE_DIR "/tests/data/valve-edges.yaml"

#define ASSERT_ROW(section, name, want)                                       \
  do {                                                                        \
    char row_[1024];                                                          \
    ck_assert_msg(info_row(result.out, (section), (name), row_, sizeof row_), \
                  "no row '%s' in:\n%s", (name), result.out);                 \
    ck_assert_str_eq(row_, (want));                                           \
  } while (0)

START_TEST(info_component_options) {
  make_tmp_dir("hydyn_edges");
  run_hydyn((const char*[]){"info", MODEL, NULL}, NULL, &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  ASSERT_ROW("\nthrottles (2)", "meter_out",
             "meter_out | VB -> tank | 1e-08 | turbulent, dp_reg 100 Pa | yes | -");
  ASSERT_ROW("\nthrottles (2)", "bleed",
             "bleed | VA -> VC | 2e-08 | laminar_transition, dp_lim 0.2 MPa | no | opening");
  // aux: the default cv_centre is C_vd U_max = 1e-8 x 10
  ASSERT_ROW("\ndirectional valves", "aux",
             "aux | pump, tank, VC, VB | 1e-08 | tau 0.01 s | 0.2 | 0 | - | V, saturation none, "
             "dead zone 0 | centre tandem, U_max 10, overlap 0.2, cv_centre 1e-07, leakage 2e-13");
  ASSERT_ROW("\ndirectional valves", "prop",
             "prop | pump, tank, VA, VB | - | f_n 40 Hz, zeta 0.8 | 0.2 | 0 | cmd | normalized, "
             "saturation none, dead zone 0 | edges from tables (below), leakage 1e-13");
  ASSERT_HAS(result.out,
             "  prop: metering edges, points [U, C] with U in fractions of the full opening and C "
             "in m^3/(s sqrt(Pa))\n"
             "    P->A: [0.05, 0] [0.3, 5e-08] [1, 3e-07]\n"
             "    B->T: [0.05, 0] [0.3, 6e-08] [1, 3.5e-07]\n"
             "    P->B: [-1, 3e-07] [-0.3, 5e-08] [-0.05, 0]\n"
             "    A->T: [-1, 3.5e-07] [-0.3, 6e-08] [-0.05, 0]\n"
             "    P->T: [-0.1, 0] [0, 2e-08] [0.1, 0]\n");
}
END_TEST

// At t = 0 the spool stands at 0, where prop's P->T table opens C = 2e-8: Q_PT = C sqrt(p_P -
// p_T) (turbulent: 1.59e7 Pa is far above dp_lim) from the pump at 16 MPa to the tank at 0.1 MPa.
// The edges inside the overlap (|U| < 0.05) carry only the leakage 1e-13 dp.
START_TEST(run_edges_flow) {
  make_tmp_dir("hydyn_edges");
  char csv[128];
  tmp_path(csv, sizeof csv, "edges.csv");
  run_hydyn((const char*[]){"run", MODEL, "--t-end", "0.01", "--channels",
                            "time,Q_PT:prop,Q_PA:prop,p:VA", "--out", csv, NULL},
            NULL, &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  static char text[OUT_MAX];
  slurp(csv, text);
  const char* row = strchr(text, '\n');
  ck_assert_ptr_nonnull(row);
  static const char header[] = "time[s],Q_PT:prop[m^3/s],Q_PA:prop[m^3/s],p:VA[Pa]\n";
  ck_assert_msg(strncmp(text, header, strlen(header)) == 0, "header: %.80s", text);
  double t, q_pt, q_pa, pa;
  ck_assert_int_eq(sscanf(row + 1, "%lf,%lf,%lf,%lf", &t, &q_pt, &q_pa, &pa), 4);
  ck_assert_double_eq(t, 0);
  const double want = 2e-8 * sqrt(1.6e7 - 1e5);
  ck_assert_msg(hy_test_relerr(q_pt, want, 0) <= 1e-14, "Q_PT %.17g, orifice law %.17g", q_pt,
                want);
  ck_assert_double_eq(pa, 3e6);
  ck_assert_double_le(hy_test_relerr(q_pa, 1e-13 * (1.6e7 - 3e6), 0), 1e-14);
}
END_TEST

// The crane's run (seed 001; its valve is the seeds' valve of Eq. 26, evaluated inline) against
// the same crane whose valve is described by edge tables tracing C = cv |U| over its +-10 V
// (points at -10, 0 and 10 V; the first-order spool never leaves the span of its reference):
// two formulations of one valve, the same trajectory to round-off over the whole 10 s cycle.
START_TEST(run_crane_traced) {
  make_tmp_dir("hydyn_edges");
  static char text[OUT_MAX], traced[OUT_MAX];
  slurp(HY_SOURCE_DIR "/models/crane.yaml", text);
  static const char cv_line[] =
      "          cv: 1.069e-8          # C_v, 12 l/min at 10 V and 35 bar (README table, "
      "stand-in)\n";
  char* at = strstr(text, cv_line);
  ck_assert_ptr_nonnull(at);
  // C at 10 V: 1.069e-8 x 10
  snprintf(traced, sizeof traced,
           "%.*s          edges:\n"
           "            P->A: [[-10, 0], [0, 0], [10, 1.069e-7]]\n"
           "            B->T: [[-10, 0], [0, 0], [10, 1.069e-7]]\n"
           "            P->B: [[-10, 1.069e-7], [0, 0], [10, 0]]\n"
           "            A->T: [[-10, 1.069e-7], [0, 0], [10, 0]]\n%s",
           (int)(at - text), text, at + strlen(cv_line));
  char model[128], out1[128], out2[128];
  tmp_path(model, sizeof model, "crane-edges.yaml");
  tmp_path(out1, sizeof out1, "builtin.csv");
  tmp_path(out2, sizeof out2, "traced.csv");
  FILE* f = fopen(model, "w");
  ck_assert_ptr_nonnull(f);
  fputs(traced, f);
  fclose(f);
  static const char channels[] = "time,z:theta1,p:V2,p:V3,U:dcv";
  // every 10th of the 10000 steps: a file that fits the buffer
  run_hydyn(
      (const char*[]){"run", "crane", "--channels", channels, "--every", "10", "--out", out1, NULL},
      NULL, &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  run_hydyn(
      (const char*[]){"run", model, "--channels", channels, "--every", "10", "--out", out2, NULL},
      NULL, &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  slurp(out1, text);
  slurp(out2, traced);
  const char* a = strchr(text, '\n');
  const char* b = strchr(traced, '\n');
  double scale[5] = {1, 1, 1, 1, 1}, worst[5] = {0};
  int rows = 0;
  for (; a && b && a[1] && b[1]; a = strchr(a + 1, '\n'), b = strchr(b + 1, '\n')) {
    double x[5], y[5];
    ck_assert_int_eq(sscanf(a + 1, "%lf,%lf,%lf,%lf,%lf", &x[0], &x[1], &x[2], &x[3], &x[4]), 5);
    ck_assert_int_eq(sscanf(b + 1, "%lf,%lf,%lf,%lf,%lf", &y[0], &y[1], &y[2], &y[3], &y[4]), 5);
    ck_assert_double_eq(x[0], y[0]);
    for (int k = 1; k < 5; k++) {
      scale[k] = fmax(scale[k], fabs(x[k]));
      worst[k] = fmax(worst[k], fabs(x[k] - y[k]));
    }
    rows++;
  }
  ck_assert_int_eq(rows, 1001);
  ck_assert_ptr_null(b ? strchr(b + 1, '\n') : NULL);
  for (int k = 1; k < 5; k++) {
    ck_assert_msg(worst[k] <= 1e-12 * scale[k], "column %d: differs by %g of %g", k, worst[k],
                  scale[k]);
  }
}
END_TEST

Suite* cli_edges_suite(void) {
  Suite* s = suite_create("cli_edges");
  TCase* tc = tcase_create("edges");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, info_component_options);
  tcase_add_test(tc, run_edges_flow);
  tcase_add_test(tc, run_crane_traced);
  suite_add_tcase(s, tc);
  return s;
}
