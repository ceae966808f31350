// The hydraulics section of model files: a file using every key loads into the expected arrays
// (diameters -> areas, orifice -> cv, defaults), and malformed circuits are refused at the line
// and column of the offending node.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/model.h"

#define DATA HY_SOURCE_DIR "/tests/data/"

static const double kQuarterPi = 0.25 * 3.14159265358979323846;

static hy_model* load_ok(const char* path) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load(path, &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_OK, "loading %s failed: %s", path, buf);
  return m;
}

START_TEST(test_good_sizes) {
  hy_model* m = load_ok(DATA "hyd_good.yaml");
  ck_assert_int_eq(m->sizes.ncirc, 2);
  ck_assert_int_eq(m->sizes.nvol, 6);
  ck_assert_int_eq(m->sizes.nsrc, 3);
  ck_assert_int_eq(m->sizes.norf, 2);
  ck_assert_int_eq(m->sizes.nvlv, 2);
  ck_assert_int_eq(m->sizes.npvl, 2);
  ck_assert_int_eq(m->sizes.ncyl, 2);
  ck_assert_int_eq(m->sizes.nfrc, 2);
  ck_assert_double_eq(m->opt.tol_p, 0.5);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_circuits_and_volumes) {
  hy_model* m = load_ok(DATA "hyd_good.yaml");
  const int main_c = hy_model_circuit(m, "main"), aux = hy_model_circuit(m, "aux");
  ck_assert_double_eq(m->circ_B_oil[main_c], 1.5e9);
  ck_assert_int_eq(m->circ_law[main_c], HY_BULK_CONSTANT);
  ck_assert_double_eq(m->circ_law_k[main_c], 11);
  ck_assert_int_eq(m->circ_laminar[main_c], HY_LAMINAR_CUBIC);
  ck_assert_double_eq(m->circ_B_oil[aux], 1.6e9);
  ck_assert_int_eq(m->circ_law[aux], HY_BULK_LINEAR);
  ck_assert_int_eq(m->circ_laminar[aux], HY_LAMINAR_LINEAR);
  const int v1 = hy_model_volume(m, "V1"), v3 = hy_model_volume(m, "V3");
  const int wa = hy_model_volume(m, "Wa");
  ck_assert_int_eq(m->vol_circ[v1], main_c);
  ck_assert_int_eq(m->vol_circ[wa], aux);
  ck_assert_double_eq(m->vol_hose[v1], 3.14e-5);
  ck_assert_double_eq(m->vol_B_hose[v1], 150e6);
  ck_assert(isnan(m->vol_p0[v1]));
  ck_assert_double_eq(m->vol_p0[v3], 3.5e6);
  ck_assert_double_eq(m->vol_hose[wa], 0);
  ck_assert_int_eq(m->vol_pos[v3].line, 24);
  ck_assert_int_eq(m->vol_pos[v3].col, 11);
  const int accu = hy_model_source(m, "accu");
  ck_assert_double_eq(m->src_p[hy_model_source(m, "tank")], 0.1e6);
  ck_assert_int_eq(m->src_sig[accu], hy_model_signal(m, "supply"));
  ck_assert_int_eq(m->src_sig[hy_model_source(m, "pump")], -1);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_throttles_and_valves) {
  hy_model* m = load_ok(DATA "hyd_good.yaml");
  const int nv = m->sizes.nvol;
  const int t = hy_model_throttle(m, "throttle"), b = hy_model_throttle(m, "bleed");
  // seed 000 Eq. 25: C_d A sqrt(2/rho) = 1.097e-6 for the README's throttle
  const double cv = 0.8 * kQuarterPi * 36e-6 * sqrt(2.0 / 850);
  ck_assert_double_le(hy_test_relerr(m->orf_cv[t], cv, 0), 1e-15);
  ck_assert_double_le(fabs(m->orf_cv[t] - 1.097e-6), 0.0005e-6);
  ck_assert_double_eq(m->orf_dp_lim[t], 2e5);  // default
  ck_assert_int_eq(m->orf_node[2 * t], hy_model_volume(m, "V1"));
  ck_assert_int_eq(m->orf_node[2 * t + 1], hy_model_volume(m, "V2"));
  ck_assert_double_eq(m->orf_cv[b], 2e-7);
  ck_assert_double_eq(m->orf_dp_lim[b], 3e5);
  ck_assert_int_eq(m->orf_node[2 * b], nv + hy_model_source(m, "accu"));
  const int d = hy_model_valve(m, "dcv"), v2 = hy_model_valve(m, "v2");
  ck_assert_int_eq(m->vlv_node[4 * d + 0], nv + hy_model_source(m, "pump"));
  ck_assert_int_eq(m->vlv_node[4 * d + 1], nv + hy_model_source(m, "tank"));
  ck_assert_int_eq(m->vlv_node[4 * d + 2], hy_model_volume(m, "V1"));
  ck_assert_int_eq(m->vlv_node[4 * d + 3], hy_model_volume(m, "V3"));
  ck_assert_double_eq(m->vlv_cv[d], 1.069e-8);
  ck_assert_double_eq(m->vlv_tau[d], 4.547e-3);
  ck_assert_double_eq(m->vlv_dp_lim[d], 2e5);
  ck_assert_double_eq(m->vlv_U0[d], 0);
  ck_assert_int_eq(m->vlv_sig[d], hy_model_signal(m, "U_ref"));
  ck_assert_double_eq(m->vlv_dp_lim[v2], 1e5);
  ck_assert_double_eq(m->vlv_U0[v2], -2.5);
  ck_assert_int_eq(m->vlv_sig[v2], -1);
  // check and relief valves: one compiled list, told apart by pvl_kind
  const int refill = hy_model_pressure_valve(m, "refill"),
            guard = hy_model_pressure_valve(m, "guard");
  ck_assert_int_eq(m->pvl_kind[refill], HY_PRESSURE_VALVE_CHECK);
  ck_assert_int_eq(m->pvl_node[2 * refill], nv + hy_model_source(m, "accu"));
  ck_assert_int_eq(m->pvl_node[2 * refill + 1], hy_model_volume(m, "Wc"));
  ck_assert_double_eq(m->pvl_p_crack[refill], 0);
  ck_assert_double_eq(m->pvl_dp_lim[refill], 1e5);
  ck_assert_int_eq(m->pvl_kind[guard], HY_PRESSURE_VALVE_RELIEF);
  ck_assert_int_eq(m->pvl_node[2 * guard], hy_model_volume(m, "Wb"));
  ck_assert_double_eq(m->pvl_cv[guard], 2e-7);
  ck_assert_double_eq(m->pvl_p_crack[guard], 7e6);
  ck_assert_double_eq(m->pvl_p_open[guard], 5e5);
  ck_assert_double_eq(m->pvl_dp_lim[guard], 2e5);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_cylinders) {
  hy_model* m = load_ok(DATA "hyd_good.yaml");
  const int c = hy_model_cylinder(m, "cylinder"), x = hy_model_cylinder(m, "aux_cyl");
  ck_assert_int_ge(c, 0);
  ck_assert_int_ge(x, 0);
  const int f = m->cyl_frc[c];
  ck_assert_int_eq(f, hy_model_force(m, "cylinder"));
  ck_assert_int_eq(m->frc_type[f], HY_FORCE_CYLINDER);
  ck_assert_int_eq(m->frc_equilibrium[f], 1);
  ck_assert_int_eq(m->frc_cyl[f], c);
  ck_assert_int_eq(m->frc_mrk_a[f], hy_model_marker(m, "G"));
  ck_assert_int_eq(m->frc_mrk_b[f], hy_model_marker(m, "F"));
  ck_assert_int_eq(m->frc_pos[f].line, 36);
  ck_assert_int_eq(m->frc_pos[f].col, 11);
  // diameters -> areas: the README's 5.0265e-3 and 4.0644e-3 m^2
  ck_assert_double_le(hy_test_relerr(m->cyl_area_a[c], kQuarterPi * 0.08 * 0.08, 0), 1e-15);
  ck_assert_double_le(
      hy_test_relerr(m->cyl_area_b[c], kQuarterPi * (0.08 * 0.08 - 0.035 * 0.035), 0), 1e-15);
  ck_assert_double_le(fabs(m->cyl_area_a[c] - 5.0265e-3), 1e-7);
  ck_assert_double_le(fabs(m->cyl_area_b[c] - 4.0644e-3), 1e-7);
  ck_assert_int_eq(m->cyl_vol_a[c], hy_model_volume(m, "V2"));
  ck_assert_int_eq(m->cyl_vol_b[c], hy_model_volume(m, "V3"));
  ck_assert_double_eq(m->cyl_stroke[c], 1.2);
  ck_assert_double_eq(m->cyl_dead[c], 1.2);
  ck_assert_double_eq(m->cyl_B[c], 31500e6);
  ck_assert_double_eq(m->cyl_visc[c], 250);
  ck_assert_double_eq(m->cyl_kd[c], 1e7);
  ck_assert_double_eq(m->cyl_cd[c], 5e3);
  ck_assert_double_eq(m->cyl_ld[c], 0.008);
  ck_assert_int_eq(m->cyl_init[c], HY_CYL_INIT_EQUILIBRIUM);
  // the second one: areas given, defaults elsewhere
  const int fx = m->cyl_frc[x];
  ck_assert_double_eq(m->cyl_area_a[x], 2e-3);
  ck_assert_double_eq(m->cyl_area_b[x], 1.5e-3);
  ck_assert_double_eq(m->cyl_visc[x], 0);
  ck_assert_double_eq(m->cyl_ld[x], 0);
  ck_assert_int_eq(m->cyl_init[x], HY_CYL_INIT_GIVEN);
  ck_assert_int_eq(m->frc_equilibrium[fx], 0);
  hy_model_free(m);
}
END_TEST

// Fail the 1st, 2nd, ... allocation of the load in turn: each ends in HY_ERR_NOMEM with
// nothing left allocated (the hydraulic definitions grow the spec's arrays too).
START_TEST(test_good_alloc_failures) {
  for (long k = 1;; k++) {
    hy_test_hook_begin(k);
    hy_model* m = NULL;
    hy_error err;
    hy_status st = hy_model_load(DATA "hyd_good.yaml", &m, &err);
    const long calls = hy_test_hook_calls();
    if (st == HY_OK) hy_model_free(m);
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

//----- malformed circuits --------------------------------------------------------------------
// Values out of their range (hy_model_check) are reported at the start of their element.

typedef struct bad_case {
  const char* file;  // under tests/data/bad/
  int line, col;
  const char* needle1;
  const char* needle2;
} bad_case;

static const bad_case kBad[] = {
    {"hyd_chamber_unknown.yaml", 16, 11, "cylinder 'cyl'",
     "chamber_a 'V9' is not a volume of the hydraulics"},
    {"hyd_negative_area.yaml", 16, 11, "cylinder 'cyl': area_a",
     "must be positive (m^2), got -0.0050265"},
    {"hyd_negative_bulk.yaml", 13, 11, "volume 'V2': hose_bulk_modulus",
     "must be positive (Pa), got -1.5e+08"},
    {"hyd_unconnected.yaml", 14, 11, "volume 'V2' is not connected", "no throttle, valve port"},
    {"hyd_zero_tau.yaml", 19, 11, "valve 'dcv': tau", "must be positive (s), got 0"},
    {"hyd_unknown_port.yaml", 19, 11, "valve 'dcv'", "port T 'tnk' is not a volume or source"},
    {"hyd_check_unknown_node.yaml", 18, 11, "check valve 'back'",
     "to 'tnk' is not a volume or source"},
    {"hyd_check_negative_crack.yaml", 17, 11, "check valve 'suction': p_crack",
     "must be >= 0 (Pa), got -100000"},
    {"hyd_relief_zero_set.yaml", 17, 11, "relief valve 'relief': p_set",
     "must be positive (Pa), got 0"},
    {"hyd_relief_same_node.yaml", 17, 11, "relief valve 'relief'",
     "from and to are the same node 'V'"},
};

START_TEST(test_bad_file) {
  const bad_case* c = &kBad[_i];
  char path[512];
  snprintf(path, sizeof path, DATA "bad/%s", c->file);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load(path, &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_ERR_MODEL, "%s: status %d (%s)", c->file, st, buf);
  ck_assert_ptr_null(m);
  ck_assert_msg(err.src_line == c->line && err.src_col == c->col,
                "%s: reported at %d:%d, expected %d:%d (%s)", c->file, err.src_line, err.src_col,
                c->line, c->col, buf);
  ck_assert_msg(strstr(err.msg, c->needle1), "%s: '%s' not in: %s", c->file, c->needle1, buf);
  ck_assert_msg(strstr(err.msg, c->needle2), "%s: '%s' not in: %s", c->file, c->needle2, buf);
  size_t n = strlen(err.src_path), k = strlen(c->file);
  ck_assert_msg(n >= k && strcmp(err.src_path + n - k, c->file) == 0, "%s: src_path is '%s'",
                c->file, err.src_path);
}
END_TEST

// Inline snippets for the remaining rules of the section.
typedef struct bad_text {
  const char* hyd;  // the hydraulics section, appended to a slider with markers G and F
  int line, col;
  const char* needle;
} bad_text;

static const bad_text kBadText[] = {
    {"hydraulics: [1]\n", 8, 13, "expected a mapping with the key 'circuits'"},
    {"hydraulics: {circuits: [{name: c, oil: {bulk_modulus: 1e9}, motors: []}]}\n", 8, 61,
     "unknown key 'motors' in circuit 'c'"},
    {"hydraulics: {circuits: [{name: c}]}\n", 8, 25, "key 'oil' is required"},
    {"hydraulics: {circuits: [{name: c, oil: {bulk_modulus: 1e9, law: linear}}]}\n", 8, 40,
     "key 'k' is required"},
    {"hydraulics: {circuits: [{name: c, oil: {bulk_modulus: 1e9}, laminar: square}]}\n", 8, 70,
     "expected one of: cubic, linear"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8}]\n"
     "      throttles: [{name: t, from: V, to: V, cv: 1e-6, orifice: {cd: 1, diameter: 1e-3, "
     "density: 850}}]\n",
     13, 55, "give either 'cv' or 'orifice'"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8}]\n"
     "      cylinders: [{name: k, marker_a: G, marker_b: F, chamber_a: V, chamber_b: V, "
     "area_a: 1e-3, rod_diameter: 0.01, stroke: 1, dead_length: 1, bulk_modulus: 1e10}]\n",
     13, 97, "rod_diameter needs piston_diameter"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8}]\n"
     "      cylinders: [{name: k, marker_a: G, marker_b: F, chamber_a: V, chamber_b: V, "
     "piston_diameter: 0.05, rod_diameter: 0.06, stroke: 1, dead_length: 1, "
     "bulk_modulus: 1e10}]\n",
     13, 120, "must be smaller than piston_diameter"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8}, "
     "{name: W, hose_volume: 1e-4, hose_bulk_modulus: 1e8}]\n"
     "      cylinders: [{name: k, marker_a: G, marker_b: F, chamber_a: V, chamber_b: W, "
     "area_a: 1e-3, area_b: 1e-3, stroke: 1, dead_length: 1, bulk_modulus: 1e10, initial: "
     "balanced}]\n",
     13, 167, "expected one of: given, equilibrium"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8}]\n"
     "    - name: c\n      oil: {bulk_modulus: 1e9}\n",
     13, 13, "already used by the circuit"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: pump, hose_volume: 1e-4, hose_bulk_modulus: 1e8}]\n"
     "      sources: [{name: pump, pressure: 1e7}]\n",
     13, 17, "source 'pump': the name is already used by a volume"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "    - name: d\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: W, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      check_valves: [{name: x, from: V, to: W, cv: 1e-7, p_open: 1e5}]\n",
     16, 22, "check valve 'x': to 'W' belongs to circuit 'd', the other ports to circuit 'c'"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: tank, pressure: 1e5}]\n"
     "      check_valves: [{name: x, from: tank, to: V, cv: 1e-7, p_open: 0}]\n",
     14, 22, "check valve 'x': p_open must be positive (Pa), got 0"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: tank, pressure: 1e5}]\n"
     "      relief_valves: [{name: r, from: V, to: tank, cv: 1e-7, p_open: 1e5}]\n",
     14, 23, "relief_valves[0] 'r': key 'p_set'"},
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: V, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      sources: [{name: tank, pressure: 1e5}]\n"
     "      relief_valves: [{name: r, from: V, to: tank, cv: 1e-7, p_crack: 1e6, p_open: 1e5}]\n",
     14, 62, "unknown key 'p_crack'"},
    // seal friction (docs/friction.md): keys the law does not read or needs, the law's name, a
    // value out of range, the mapping's form
    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6},\n"
     "                {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      cylinders:\n"
     "        - {name: cyl, marker_a: G, marker_b: F, chamber_a: A, chamber_b: B, area_a: 1e-3,\n"
     "           area_b: 5e-4, stroke: 1, dead_length: 1, bulk_modulus: 1e10,\n"
     "           friction: {law: lugre, coulomb: 100, stiction: 200, stribeck_velocity: 0.01, stiffness: 1e5, decay: 3}}\n",
     17, 105, "friction: 'decay' is not a parameter of friction law 'lugre'"},    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6},\n"
     "                {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      cylinders:\n"
     "        - {name: cyl, marker_a: G, marker_b: F, chamber_a: A, chamber_b: B, area_a: 1e-3,\n"
     "           area_b: 5e-4, stroke: 1, dead_length: 1, bulk_modulus: 1e10,\n"
     "           friction: {law: bengisu-akay, coulomb: 100, stiction: 200, stribeck_velocity: 0.01}}\n",
     17, 22, "friction: key 'decay' is required (a number, s/m"},    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6},\n"
     "                {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      cylinders:\n"
     "        - {name: cyl, marker_a: G, marker_b: F, chamber_a: A, chamber_b: B, area_a: 1e-3,\n"
     "           area_b: 5e-4, stroke: 1, dead_length: 1, bulk_modulus: 1e10,\n"
     "           friction: {law: stribeck, coulomb: 100}}\n",
     17, 28, "law: expected one of: none, coulomb, bengisu-akay"},    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6},\n"
     "                {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      cylinders:\n"
     "        - {name: cyl, marker_a: G, marker_b: F, chamber_a: A, chamber_b: B, area_a: 1e-3,\n"
     "           area_b: 5e-4, stroke: 1, dead_length: 1, bulk_modulus: 1e10,\n"
     "           friction: {law: lugre-film, coulomb: 300, stiction: 200, stribeck_velocity: 0.01, stiffness: 1e5, "
     "tau_accel: 0.1, tau_decel: 0.1, tau_dwell: 1, film_velocity: 0.1}}\n",
     15, 11, "friction: stiction (200 N) must exceed coulomb (300 N)"},    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6},\n"
     "                {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      cylinders:\n"
     "        - {name: cyl, marker_a: G, marker_b: F, chamber_a: A, chamber_b: B, area_a: 1e-3,\n"
     "           area_b: 5e-4, stroke: 1, dead_length: 1, bulk_modulus: 1e10,\n"
     "           friction: 5}\n",
     17, 22, "friction: expected a mapping with 'law'"},    {"hydraulics:\n  circuits:\n    - name: c\n      oil: {bulk_modulus: 1e9}\n"
     "      volumes: [{name: A, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6},\n"
     "                {name: B, hose_volume: 1e-4, hose_bulk_modulus: 1e8, p0: 1e6}]\n"
     "      cylinders:\n"
     "        - {name: cyl, marker_a: G, marker_b: F, chamber_a: A, chamber_b: B, area_a: 1e-3,\n"
     "           area_b: 5e-4, stroke: 1, dead_length: 1, bulk_modulus: 1e10,\n"
     "           friction: {law: lugre, coulomb: 100, stiction: 200, stribeck_velocity: 0.01, stiffness: -1}}\n",
     15, 11, "cylinder 'cyl': friction: stiffness must be positive (N/m), got -1"},
};

START_TEST(test_bad_text) {
  const bad_text* c = &kBadText[_i];
  static const char head[] =
      "bodies: [{name: slider, mass: 10}]\n"
      "joints: [{name: js, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0]}]\n"
      "markers:\n"
      "  - {name: G, body: ground}\n"
      "  - {name: F, body: slider, point: [1.4, 0, 0]}\n"
      "solver: {dt: 1e-3}\n"
      "# hydraulics from line 8\n";
  char text[2048];
  snprintf(text, sizeof text, "%s%s", head, c->hyd);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load_string(text, strlen(text), "snippet.yaml", &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_ERR_MODEL, "case %d: status %d (%s)", _i, st, buf);
  ck_assert_msg(strstr(err.msg, c->needle), "case %d: '%s' not in: %s", _i, c->needle, buf);
  ck_assert_msg(err.src_line == c->line && err.src_col == c->col,
                "case %d: reported at %d:%d, expected %d:%d (%s)", _i, err.src_line, err.src_col,
                c->line, c->col, buf);
}
END_TEST

Suite* hyd_yaml_suite(void) {
  Suite* s = suite_create("hyd_yaml");
  TCase* tc = tcase_create("hyd_yaml");
  tcase_add_test(tc, test_good_sizes);
  tcase_add_test(tc, test_good_circuits_and_volumes);
  tcase_add_test(tc, test_good_throttles_and_valves);
  tcase_add_test(tc, test_good_cylinders);
  tcase_add_test(tc, test_good_alloc_failures);
  tcase_add_loop_test(tc, test_bad_file, 0, (int)(sizeof kBad / sizeof kBad[0]));
  tcase_add_loop_test(tc, test_bad_text, 0, (int)(sizeof kBadText / sizeof kBadText[0]));
  suite_add_tcase(s, tc);
  return s;
}
