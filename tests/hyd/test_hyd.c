// Hydraulics (src/hyd): a sealed chamber compressed by its piston against the closed form of
// Eqs. 22-23, the orifice law across dp = 0 and +-dp_lim, the spool's trapezoidal step, every
// partial derivative of hy_hyd_work against central differences on the circuit of seed 000
// Sect. 5 (also with check and relief valves added, closed, partly and fully open), the initial
// pressures, and the builder's validation. The tests build their own
// hy_data arrays, so they do not depend on the mechanics or on hy_data_make.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hyd/hyd.h"
#include "hydyn/model.h"

//----- parameters: seeds README, "Hydraulic circuit parameters" -------------------------------

static const double kBoil = 1.5e9, kBhose = 150e6, kBcyl = 31500e6;
static const double kVh[3] = {3.14e-5, 7.85e-5, 4.71e-5};
static const double kPump = 7.6e6, kTank = 0.1e6;
static const double kCvValve = 1.069e-8, kTau = 4.547e-3, kCvThrottle = 1.097e-6;
static const double kDpLim = 2e5;
static const double kAa = 5.0265e-3, kAb = 4.0644e-3;  // 80 mm piston, 35 mm rod
static const double kStroke = 1.2, kDead = 1.2;
static const double kKd = 1e7, kCd = 5e3, kLd = 0.008, kVisc = 1e3;
static const double kS0 = 1.4142135623730951;  // four-bar A: |s|_0 = sqrt(2) m
static const double kFs0 = 11029.38;           // its static cylinder force (seeds README)

//----- a model: seed 000's circuit on a slider ---------------------------------------------

typedef struct circuit_opts {
  hy_bulk_law law;
  hy_laminar laminar;
  hy_cyl_init init;
  double p0[3];     // NAN = derived
  int with_signal;  // U_ref = 10 V for all t (a table held constant)
  int pvalves;      // add the pressure valves of add_pressure_valves
  int mutation;     // builder-validation case (0 = a valid model)
  int pump_signal;  // the pump pressure scaled by 'supply': 0.5 at t = 0 rising to 1 at t = 2
} circuit_opts;

static circuit_opts default_opts(void) {
  circuit_opts o = {
      HY_BULK_CONSTANT, HY_LAMINAR_CUBIC, HY_CYL_INIT_GIVEN, {5e6, 5e6, 3.5e6}, 0, 0, 0, 0};
  return o;
}

// The slider and its markers: G on ground at the origin, F on the slider at (kS0, 0, 0).
static void add_mechanism(hy_spec* s) {
  hy_body_def b = hy_body_def_default();
  snprintf(b.name, sizeof b.name, "slider");
  b.mass = 10;
  ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
  hy_joint_def j = hy_joint_def_default();
  snprintf(j.name, sizeof j.name, "js");
  snprintf(j.child, sizeof j.child, "slider");
  j.type = HY_JOINT_PRISMATIC;
  j.axis[0] = 1, j.axis[2] = 0;
  j.child_axis[0] = 1, j.child_axis[2] = 0;
  ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  hy_marker_def g = hy_marker_def_default();
  snprintf(g.name, sizeof g.name, "G");
  ck_assert_int_eq(hy_spec_add_marker(s, &g), HY_OK);
  hy_marker_def f = hy_marker_def_default();
  snprintf(f.name, sizeof f.name, "F");
  snprintf(f.body, sizeof f.body, "slider");
  f.point[0] = kS0;
  ck_assert_int_eq(hy_spec_add_marker(s, &f), HY_OK);
}

static hy_circuit_def main_circuit(const circuit_opts* o) {
  hy_circuit_def c = hy_circuit_def_default();
  snprintf(c.name, sizeof c.name, "main");
  c.B_oil = kBoil;
  c.law = o->law;
  c.law_k = 11;
  c.laminar = o->laminar;
  return c;
}

// Check and relief valves on seed 000's circuit (kRelief* etc. below), numbered in this order in
// the pvl_* arrays: a relief valve V1 -> tank, a check valve V3 -> V2 and an anti-cavitation
// check valve tank -> V3 that cracks at once. Mutations 9-14 break one of them; the broken
// definition is at line 40, column 7.
static const double kReliefSet = 5e6, kReliefOpen = 1e6, kReliefCv = 5e-7;
static const double kCheckCrack = 1e5, kCheckOpen = 3e5, kCheckCv = 3e-7;
static const double kSuctionOpen = 2e5, kSuctionCv = 4e-7;

static void add_pressure_valves(hy_spec* s, int mutation) {
  const hy_srcpos bad = {40, 7};
  hy_relief_valve_def r = hy_relief_valve_def_default();
  snprintf(r.name, sizeof r.name, "relief");
  snprintf(r.from, sizeof r.from, "V1");
  snprintf(r.to, sizeof r.to, "tank");
  r.cv = kReliefCv;
  r.p_set = kReliefSet;
  r.p_open = kReliefOpen;
  if (mutation == 9) r.p_set = 0, r.pos = bad;
  if (mutation == 11) r.p_open = 0, r.pos = bad;
  if (mutation == 13) snprintf(r.from, sizeof r.from, "pump"), r.pos = bad;
  ck_assert_int_eq(hy_spec_add_relief_valve(s, &r), HY_OK);
  hy_check_valve_def c = hy_check_valve_def_default();
  snprintf(c.name, sizeof c.name, "check");
  snprintf(c.from, sizeof c.from, "V3");
  snprintf(c.to, sizeof c.to, "V2");
  c.cv = kCheckCv;
  c.p_crack = kCheckCrack;
  c.p_open = kCheckOpen;
  if (mutation == 10) c.p_crack = -1, c.pos = bad;
  if (mutation == 12) c.cv = 0, c.pos = bad;
  if (mutation == 14) snprintf(c.name, sizeof c.name, "throttle"), c.pos = bad;
  if (mutation == 15) snprintf(c.to, sizeof c.to, "V3"), c.pos = bad;
  ck_assert_int_eq(hy_spec_add_check_valve(s, &c), HY_OK);
  hy_check_valve_def u = hy_check_valve_def_default();
  snprintf(u.name, sizeof u.name, "suction");
  snprintf(u.from, sizeof u.from, "tank");
  snprintf(u.to, sizeof u.to, "V3");
  u.cv = kSuctionCv;
  u.p_open = kSuctionOpen;
  ck_assert_int_eq(hy_spec_add_check_valve(s, &u), HY_OK);
}

// Compiles the circuit of seed 000 Sect. 5: pump and tank, a 4/3 valve with A = V1 and B = V3,
// a throttle V1 -> V2, a cylinder G -> F with V2 on the piston side and V3 on the rod side.
// Volume k is defined at line 10 + k, column 3; the cylinder at line 20, column 5. With a
// mutation, returns the compile status and its error instead (*out stays NULL on failure).
static hy_status build_circuit(const circuit_opts* o, hy_model** out, hy_error* err) {
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  add_mechanism(s);
  if (o->with_signal) {
    const double t[2] = {0, 1}, v[2] = {10, 10};
    hy_signal_def sg = hy_signal_def_default();
    snprintf(sg.name, sizeof sg.name, "U_ref");
    sg.npoint = 2;
    sg.t = t;
    sg.value = v;
    ck_assert_int_eq(hy_spec_add_signal(s, &sg), HY_OK);
  }
  hy_circuit_def c = main_circuit(o);
  ck_assert_int_eq(hy_spec_add_circuit(s, &c), HY_OK);
  if (o->mutation == 6) {
    hy_circuit_def c2 = main_circuit(o);
    snprintf(c2.name, sizeof c2.name, "other");
    ck_assert_int_eq(hy_spec_add_circuit(s, &c2), HY_OK);
  }
  for (int k = 0; k < 3; k++) {
    hy_volume_def v = hy_volume_def_default();
    snprintf(v.name, sizeof v.name, "V%d", k + 1);
    snprintf(v.circuit, sizeof v.circuit, "main");
    v.hose_volume = kVh[k];
    v.hose_bulk_modulus = kBhose;
    v.p0 = o->p0[k];
    v.pos.line = 10 + k;
    v.pos.col = 3;
    if (o->mutation == 6 && k == 1) snprintf(v.circuit, sizeof v.circuit, "other");
    ck_assert_int_eq(hy_spec_add_volume(s, &v), HY_OK);
  }
  const char* src_names[2] = {"pump", "tank"};
  const double src_p[2] = {kPump, kTank};
  if (o->pump_signal) {
    const double t[2] = {0, 2}, v[2] = {0.5, 1};
    hy_signal_def sg = hy_signal_def_default();
    snprintf(sg.name, sizeof sg.name, "supply");
    sg.interp = HY_INTERP_LINEAR;
    sg.npoint = 2;
    sg.t = t;
    sg.value = v;
    ck_assert_int_eq(hy_spec_add_signal(s, &sg), HY_OK);
  }
  for (int k = 0; k < 2; k++) {
    hy_source_def p = hy_source_def_default();
    snprintf(p.name, sizeof p.name, "%s", src_names[k]);
    snprintf(p.circuit, sizeof p.circuit, "main");
    p.pressure = src_p[k];
    if (o->pump_signal && k == 0) snprintf(p.signal, sizeof p.signal, "supply");
    ck_assert_int_eq(hy_spec_add_source(s, &p), HY_OK);
  }
  if (o->mutation == 8) {  // the rod side joined to the tank through a throttle
    hy_throttle_def t = hy_throttle_def_default();
    snprintf(t.name, sizeof t.name, "t_rod");
    snprintf(t.from, sizeof t.from, "tank");
    snprintf(t.to, sizeof t.to, "V3");
    t.cv = kCvThrottle;
    ck_assert_int_eq(hy_spec_add_throttle(s, &t), HY_OK);
  }
  if (o->mutation == 1) {  // a volume without hoses and without a chamber
    hy_volume_def v = hy_volume_def_default();
    snprintf(v.name, sizeof v.name, "empty");
    snprintf(v.circuit, sizeof v.circuit, "main");
    ck_assert_int_eq(hy_spec_add_volume(s, &v), HY_OK);
    hy_throttle_def t = hy_throttle_def_default();
    snprintf(t.name, sizeof t.name, "t_empty");
    snprintf(t.from, sizeof t.from, "empty");
    snprintf(t.to, sizeof t.to, "tank");
    t.cv = kCvThrottle;
    ck_assert_int_eq(hy_spec_add_throttle(s, &t), HY_OK);
  }
  hy_throttle_def t = hy_throttle_def_default();
  snprintf(t.name, sizeof t.name, "throttle");
  snprintf(t.from, sizeof t.from, "V1");
  snprintf(t.to, sizeof t.to, "V2");
  t.cv = kCvThrottle;
  t.dp_lim = kDpLim;
  ck_assert_int_eq(hy_spec_add_throttle(s, &t), HY_OK);
  hy_valve_def v = hy_valve_def_default();
  snprintf(v.name, sizeof v.name, "dcv");
  snprintf(v.P, sizeof v.P, "pump");
  snprintf(v.T, sizeof v.T, "tank");
  snprintf(v.A, sizeof v.A, "V1");
  snprintf(v.B, sizeof v.B, "V3");
  v.cv = kCvValve;
  v.tau = kTau;
  v.U0 = 1.5;
  if (o->with_signal) snprintf(v.signal, sizeof v.signal, "U_ref");
  if (o->mutation == 7) snprintf(v.T, sizeof v.T, "V1");
  ck_assert_int_eq(hy_spec_add_valve(s, &v), HY_OK);
  if (o->pvalves) add_pressure_valves(s, o->mutation);
  hy_cylinder_def cy = hy_cylinder_def_default();
  snprintf(cy.name, sizeof cy.name, "cylinder");
  snprintf(cy.marker_a, sizeof cy.marker_a, "G");
  snprintf(cy.marker_b, sizeof cy.marker_b, "F");
  snprintf(cy.chamber_a, sizeof cy.chamber_a, "V2");
  snprintf(cy.chamber_b, sizeof cy.chamber_b, "V3");
  cy.area_a = kAa;
  cy.area_b = kAb;
  cy.stroke = kStroke;
  cy.dead_length = kDead;
  cy.bulk_modulus = kBcyl;
  cy.viscous = kVisc;
  cy.damper_k = kKd;
  cy.damper_c = kCd;
  cy.damper_length = kLd;
  cy.init = o->init;
  cy.pos.line = 20;
  cy.pos.col = 5;
  if (o->mutation == 2) snprintf(cy.chamber_b, sizeof cy.chamber_b, "tank");
  if (o->mutation == 4) cy.damper_length = 0.6;
  ck_assert_int_eq(hy_spec_add_cylinder(s, &cy), HY_OK);
  if (o->mutation == 5) {  // a force element with the cylinder's name
    hy_force_def f = hy_force_def_default();
    snprintf(f.name, sizeof f.name, "cylinder");
    snprintf(f.marker_a, sizeof f.marker_a, "G");
    snprintf(f.marker_b, sizeof f.marker_b, "F");
    ck_assert_int_eq(hy_spec_add_force(s, &f), HY_OK);
  } else {
    hy_force_def f = hy_force_def_default();
    snprintf(f.name, sizeof f.name, "push");
    snprintf(f.marker_a, sizeof f.marker_a, "G");
    snprintf(f.marker_b, sizeof f.marker_b, "F");
    f.value = 5;
    f.pos.line = 30;
    ck_assert_int_eq(hy_spec_add_force(s, &f), HY_OK);
  }
  *out = NULL;
  hy_status st = hy_model_compile(s, out, err);
  hy_spec_free(s);
  return st;
}

static hy_model* make_circuit(const circuit_opts* o) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = build_circuit(o, &m, &err);
  ck_assert_msg(st == HY_OK, "compile failed: %s", err.msg);
  return m;
}

//----- a hy_data holding only what src/hyd reads and writes ----------------------------------

typedef struct hdata {
  hy_data d;
  double* buf;
  hy_hyd_work hw;
  double* wbuf;
} hdata;

static void hdata_make(const hy_model* m, hdata* h) {
  memset(h, 0, sizeof *h);
  const size_t nv = (size_t)m->sizes.nvol, nl = (size_t)m->sizes.nvlv;
  const size_t nc = (size_t)m->sizes.ncyl, nf = (size_t)m->sizes.nfrc;
  const size_t no = (size_t)m->sizes.norf, npv = (size_t)m->sizes.npvl;
  const size_t nw = (size_t)m->sizes.nfric, ns = (size_t)m->sizes.nspool;
  const size_t n = 4 * nf + 4 * nv + 2 * nw + 2 * ns + nl + no + HY_VALVE_PATHS * nl + npv + 6 * nc;
  h->buf = calloc(n + 1, sizeof(double));
  ck_assert_ptr_nonnull(h->buf);
  double* q = h->buf;
#define TAKE(field, count) \
  h->d.field = q;          \
  q += (count);
  TAKE(frc_force, nf)
  TAKE(frc_len, nf)
  TAKE(frc_rate, nf)
  TAKE(frc_static, nf)
  TAKE(p, nv + nw)  // the friction states follow the pressures, as in hy_data
  TAKE(pd, nv + nw)
  h->d.w = h->d.p + nv;
  h->d.wd = h->d.pd + nv;
  TAKE(vol_V, nv)
  TAKE(vol_Be, nv)
  TAKE(U, ns)
  TAKE(Ud, ns)
  TAKE(vlv_u0, nl)
  TAKE(orf_q, no)
  TAKE(vlv_q, HY_VALVE_PATHS * nl)
  TAKE(pvl_q, npv)
  TAKE(cyl_len_a, nc)
  TAKE(cyl_len_b, nc)
  TAKE(cyl_F_hyd, nc)
  TAKE(cyl_F_visc, nc)
  TAKE(cyl_F_damp, nc)
  TAKE(cyl_F_fric, nc)
#undef TAKE
  h->wbuf = calloc(hy_hyd_work_size(m) + 1, sizeof(double));
  ck_assert_ptr_nonnull(h->wbuf);
  hy_hyd_work_bind(m, &h->hw, h->wbuf);
}

static void hdata_free(hdata* h) {
  free(h->buf);
  free(h->wbuf);
}

// Pressures of V1..V3, spool, and the cylinder's length and rate (the cylinder is the model's
// only one; its force element follows the actuator 'push').
static void set_state(const hy_model* m, hdata* h, const double p[3], double U, double s,
                      double sd) {
  for (int k = 0; k < 3; k++) h->d.p[k] = p[k];
  h->d.U[0] = U;
  const int f = m->cyl_frc[0];
  h->d.frc_len[f] = s;
  h->d.frc_rate[f] = sd;
}

//----- compiled arrays -----------------------------------------------------------------------

START_TEST(test_compile_arrays) {
  circuit_opts o = default_opts();
  o.init = HY_CYL_INIT_EQUILIBRIUM;
  o.p0[0] = o.p0[1] = NAN;
  hy_model* m = make_circuit(&o);
  ck_assert_int_eq(m->sizes.ncirc, 1);
  ck_assert_int_eq(m->sizes.nvol, 3);
  ck_assert_int_eq(m->sizes.nsrc, 2);
  ck_assert_int_eq(m->sizes.norf, 1);
  ck_assert_int_eq(m->sizes.nvlv, 1);
  ck_assert_int_eq(m->sizes.ncyl, 1);
  ck_assert_int_eq(m->sizes.nfrc, 2);
  const int push = hy_model_force(m, "push"), cyl = hy_model_force(m, "cylinder");
  ck_assert_int_eq(push, 0);
  ck_assert_int_eq(cyl, 1);
  ck_assert_int_eq(m->frc_type[push], HY_FORCE_ACTUATOR);
  ck_assert_int_eq(m->frc_cyl[push], -1);
  ck_assert_int_eq(m->frc_pos[push].line, 30);
  ck_assert_int_eq(m->frc_type[cyl], HY_FORCE_CYLINDER);
  ck_assert_int_eq(m->frc_cyl[cyl], 0);
  ck_assert_int_eq(m->frc_equilibrium[cyl], 1);
  ck_assert_double_eq(m->frc_value[cyl], 0.0);
  ck_assert_int_eq(m->frc_sig[cyl], -1);
  ck_assert_int_eq(m->frc_pos[cyl].line, 20);
  ck_assert_int_eq(m->frc_mrk_a[cyl], hy_model_marker(m, "G"));
  ck_assert_int_eq(m->frc_mrk_b[cyl], hy_model_marker(m, "F"));
  ck_assert_int_eq(m->cyl_frc[0], cyl);
  ck_assert_int_eq(hy_model_cylinder(m, "cylinder"), 0);
  ck_assert_int_eq(hy_model_cylinder(m, "push"), -1);
  ck_assert_int_eq(m->cyl_vol_a[0], hy_model_volume(m, "V2"));
  ck_assert_int_eq(m->cyl_vol_b[0], hy_model_volume(m, "V3"));
  ck_assert_int_eq(hy_model_source(m, "tank"), 1);
  ck_assert_int_eq(hy_model_circuit(m, "main"), 0);
  ck_assert_int_eq(hy_model_throttle(m, "throttle"), 0);
  ck_assert_int_eq(hy_model_valve(m, "dcv"), 0);
  ck_assert_int_eq(m->orf_node[0], 0);
  ck_assert_int_eq(m->orf_node[1], 1);
  const int nv = m->sizes.nvol;
  ck_assert_int_eq(m->vlv_node[0], nv + 0);  // P = pump
  ck_assert_int_eq(m->vlv_node[1], nv + 1);  // T = tank
  ck_assert_int_eq(m->vlv_node[2], 0);       // A = V1
  ck_assert_int_eq(m->vlv_node[3], 2);       // B = V3
  ck_assert_double_eq(m->orf_dp_lim[0], 2e5);
  ck_assert_double_eq(m->vlv_dp_lim[0], 2e5);
  ck_assert_int_eq(m->vlv_sig[0], -1);
  ck_assert_int_eq(m->src_sig[0], -1);
  ck_assert(isnan(m->vol_p0[0]));
  ck_assert_double_eq(m->vol_p0[2], 3.5e6);
  ck_assert_int_eq(m->vol_pos[1].line, 11);
  ck_assert_int_eq(m->circ_laminar[0], HY_LAMINAR_CUBIC);
  ck_assert_int_eq(m->circ_law[0], HY_BULK_CONSTANT);
  hy_model* c;
  ck_assert_int_eq(hy_model_copy(m, &c), HY_OK);
  ck_assert_double_eq(c->cyl_area_b[0], kAb);
  ck_assert_int_eq(c->frc_cyl[1], 0);
  hy_model_free(c);
  hy_model_free(m);
}
END_TEST

// Builder validation: each mutation of the valid circuit is refused at its definition.
typedef struct bad_build {
  int mutation;
  int line;  // expected src_line (0: not from a positioned definition)
  const char* needle;
} bad_build;

static const bad_build kBadBuild[] = {
    {1, 0, "hose volume 0 is allowed only for a cylinder chamber"},
    {2, 20, "chamber_b 'tank' is a source"},
    {3, 20, "must not give p0"},
    {4, 20, "must fit in the stroke"},
    {5, 20, "already used by a force element"},
    {6, 0, "belongs to circuit"},
    {7, 0, "port T and port A are the same node 'V1'"},
    {9, 40, "relief valve 'relief': p_set must be positive (Pa), got 0"},
    {10, 40, "check valve 'check': p_crack must be >= 0 (Pa), got -1"},
    {11, 40, "relief valve 'relief': p_open must be positive (Pa), got 0"},
    {12, 40, "check valve 'check': cv must be positive"},
    {13, 40, "relief valve 'relief': connects two sources ('pump', 'tank')"},
    {14, 40, "check valve 'throttle': the name is already used by a throttle"},
    {15, 40, "check valve 'check': from and to are the same node 'V3'"},
};

START_TEST(test_builder_validation) {
  const bad_build* b = &kBadBuild[_i];
  circuit_opts o = default_opts();
  o.mutation = b->mutation;
  o.pvalves = b->mutation >= 9;
  if (b->mutation == 3) o.init = HY_CYL_INIT_EQUILIBRIUM;  // V2 keeps its p0
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = build_circuit(&o, &m, &err);
  ck_assert_int_eq(st, HY_ERR_MODEL);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(err.msg, b->needle), "mutation %d: '%s' not in '%s'", b->mutation, b->needle,
                err.msg);
  if (b->line) ck_assert_int_eq(err.src_line, b->line);
  if (b->line == 40) ck_assert_int_eq(err.src_col, 7);
}
END_TEST

//----- (a) a sealed chamber compressed by its piston -----------------------------------------

// Two sealed volumes, each only a cylinder chamber plus hoses (no valve, no throttle).
static hy_model* make_sealed(hy_bulk_law law) {
  hy_spec* s;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  add_mechanism(s);
  circuit_opts o = default_opts();
  o.law = law;
  hy_circuit_def c = main_circuit(&o);
  ck_assert_int_eq(hy_spec_add_circuit(s, &c), HY_OK);
  const char* names[2] = {"Va", "Vb"};
  for (int k = 0; k < 2; k++) {
    hy_volume_def v = hy_volume_def_default();
    snprintf(v.name, sizeof v.name, "%s", names[k]);
    snprintf(v.circuit, sizeof v.circuit, "main");
    v.hose_volume = kVh[k + 1];
    v.hose_bulk_modulus = kBhose;
    v.p0 = 4e6;
    ck_assert_int_eq(hy_spec_add_volume(s, &v), HY_OK);
  }
  hy_cylinder_def cy = hy_cylinder_def_default();
  snprintf(cy.name, sizeof cy.name, "cylinder");
  snprintf(cy.marker_a, sizeof cy.marker_a, "G");
  snprintf(cy.marker_b, sizeof cy.marker_b, "F");
  snprintf(cy.chamber_a, sizeof cy.chamber_a, "Va");
  snprintf(cy.chamber_b, sizeof cy.chamber_b, "Vb");
  cy.area_a = kAa;
  cy.area_b = kAb;
  cy.stroke = kStroke;
  cy.dead_length = kDead;
  cy.bulk_modulus = kBcyl;
  ck_assert_int_eq(hy_spec_add_cylinder(s, &cy), HY_OK);
  hy_model* m = NULL;
  hy_error err;
  hy_status st = hy_model_compile(s, &m, &err);
  ck_assert_msg(st == HY_OK, "%s", err.msg);
  hy_spec_free(s);
  return m;
}

// Eq. 23 written out for a hose volume Vh plus one chamber of volume Vc.
static double be_closed_form(double Boil, double Vh, double Vc) {
  const double V = Vh + Vc;
  return 1.0 / (1.0 / Boil + (Vh / V) / kBhose + (Vc / V) / kBcyl);
}

// Integrates the chamber pressures with RK4 while the actuator moves from s0 at constant rate
// sd for time T (n steps); returns p of both chambers in p_out.
static void integrate_sealed(const hy_model* m, hdata* h, double s0, double sd, double T, int n,
                             double p_out[2]) {
  const int f = m->cyl_frc[0];
  double p[2] = {h->d.p[0], h->d.p[1]};
  const double dt = T / n;
  for (int i = 0; i < n; i++) {
    double k[4][2], x[2];
    const double t0 = i * dt;
    const double ts[4] = {t0, t0 + dt / 2, t0 + dt / 2, t0 + dt};
    for (int st = 0; st < 4; st++) {
      const double w = st == 0 ? 0 : (st == 3 ? 1.0 : 0.5);
      for (int j = 0; j < 2; j++) x[j] = p[j] + (st ? w * dt * k[st - 1][j] : 0);
      h->d.p[0] = x[0];
      h->d.p[1] = x[1];
      h->d.frc_len[f] = s0 + sd * ts[st];
      h->d.frc_rate[f] = sd;
      hy_hyd_evaluate(m, &h->d, NULL);
      k[st][0] = h->d.pd[0];
      k[st][1] = h->d.pd[1];
    }
    for (int j = 0; j < 2; j++) p[j] += dt / 6 * (k[0][j] + 2 * k[1][j] + 2 * k[2][j] + k[3][j]);
  }
  p_out[0] = p[0];
  p_out[1] = p[1];
}

START_TEST(test_sealed_rate) {
  const hy_bulk_law law = _i ? HY_BULK_LINEAR : HY_BULK_CONSTANT;
  hy_model* m = make_sealed(law);
  hdata h;
  hdata_make(m, &h);
  const int f = m->cyl_frc[0];
  const double pa = 4.2e6, pb = 3.1e6, sd = -0.05;
  h.d.p[0] = pa;
  h.d.p[1] = pb;
  h.d.frc_len[f] = kS0;
  h.d.frc_rate[f] = sd;
  hy_test_count_allocs_begin();
  hy_hyd_evaluate(m, &h.d, &h.hw);
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  const double len_a = kS0 - kDead, len_b = kStroke - len_a;
  ck_assert_double_eq_tol(h.d.cyl_len_a[0], len_a, 1e-15);
  ck_assert_double_eq_tol(h.d.cyl_len_b[0], len_b, 1e-15);
  const double Va = kVh[1] + kAa * len_a, Vb = kVh[2] + kAb * len_b;
  const double Boa = law == HY_BULK_LINEAR ? kBoil + 11 * pa : kBoil;
  const double Bob = law == HY_BULK_LINEAR ? kBoil + 11 * pb : kBoil;
  const double Bea = be_closed_form(Boa, kVh[1], kAa * len_a);
  const double Beb = be_closed_form(Bob, kVh[2], kAb * len_b);
  ck_assert_double_eq_tol(h.d.vol_V[0], Va, 1e-18);
  ck_assert_double_eq_tol(h.d.vol_V[1], Vb, 1e-18);
  ck_assert_double_le(hy_test_relerr(h.d.vol_Be[0], Bea, 0), 1e-13);
  ck_assert_double_le(hy_test_relerr(h.d.vol_Be[1], Beb, 0), 1e-13);
  // Eq. 22 with the chamber flows of Eq. 44: the piston side gets -A_a s_dot, the rod side
  // +A_b s_dot, and nothing else
  ck_assert_double_le(hy_test_relerr(h.d.pd[0], Bea / Va * (-kAa * sd), 0), 1e-13);
  ck_assert_double_le(hy_test_relerr(h.d.pd[1], Beb / Vb * (kAb * sd), 0), 1e-13);
  ck_assert(h.d.pd[0] > 0);  // retracting compresses the piston side
  ck_assert(h.d.pd[1] < 0);
  // the cylinder force of Eq. 29 with the viscous term (c = 0 here) and no damper
  ck_assert_double_le(hy_test_relerr(h.d.frc_force[f], pa * kAa - pb * kAb, 0), 1e-15);
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

// A small stroke ds changes the chamber volume by dV = A ds, and the pressure by
// dp = -Be dV / V (Eqs. 22-23 linearized) up to O(dV/V) relative.
START_TEST(test_sealed_small_stroke) {
  const hy_bulk_law law = _i ? HY_BULK_LINEAR : HY_BULK_CONSTANT;
  hy_model* m = make_sealed(law);
  hdata h;
  hdata_make(m, &h);
  const double p0[2] = {4.2e6, 3.1e6};
  const double ds = -2e-8, sd = -1e-3;  // dV/V ~ 1e-6
  h.d.p[0] = p0[0];
  h.d.p[1] = p0[1];
  double p1[2];
  integrate_sealed(m, &h, kS0, sd, ds / sd, 20, p1);
  const double len_a = kS0 - kDead, len_b = kStroke - len_a;
  const double Va = kVh[1] + kAa * len_a, Vb = kVh[2] + kAb * len_b;
  const double Boa = law == HY_BULK_LINEAR ? kBoil + 11 * p0[0] : kBoil;
  const double Bob = law == HY_BULK_LINEAR ? kBoil + 11 * p0[1] : kBoil;
  const double dpa = -be_closed_form(Boa, kVh[1], kAa * len_a) * (kAa * ds) / Va;
  const double dpb = -be_closed_form(Bob, kVh[2], kAb * len_b) * (-kAb * ds) / Vb;
  const double ea = hy_test_relerr(p1[0] - p0[0], dpa, 0);
  const double eb = hy_test_relerr(p1[1] - p0[1], dpb, 0);
  ck_assert_msg(ea < 2e-5 && eb < 2e-5, "law %d: dp %.9g vs %.9g (%.2g), %.9g vs %.9g (%.2g)", _i,
                p1[0] - p0[0], dpa, ea, p1[1] - p0[1], dpb, eb);
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

// With constant moduli, X = V/B_oil + V_h/B_h + A l/B_cyl is linear in the chamber length l,
// so dp = -dV/X integrates to p1 - p0 = -(A/b) ln(X1/X0) with b = A (1/B_oil + 1/B_cyl):
// a closed form for a large stroke.
START_TEST(test_sealed_large_stroke) {
  hy_model* m = make_sealed(HY_BULK_CONSTANT);
  hdata h;
  hdata_make(m, &h);
  const double p0[2] = {4.2e6, 3.1e6};
  const double ds = -0.05, sd = -0.1;
  h.d.p[0] = p0[0];
  h.d.p[1] = p0[1];
  double p1[2];
  integrate_sealed(m, &h, kS0, sd, ds / sd, 400, p1);
  const double la0 = kS0 - kDead, la1 = la0 + ds;
  const double lb0 = kStroke - la0, lb1 = kStroke - la1;
  const double b_a = kAa * (1 / kBoil + 1 / kBcyl), b_b = kAb * (1 / kBoil + 1 / kBcyl);
  const double a_a = kVh[1] / kBoil + kVh[1] / kBhose, a_b = kVh[2] / kBoil + kVh[2] / kBhose;
  const double dpa = -(kAa / b_a) * log((a_a + b_a * la1) / (a_a + b_a * la0));
  const double dpb = -(kAb / b_b) * log((a_b + b_b * lb1) / (a_b + b_b * lb0));
  ck_assert_double_le(hy_test_relerr(p1[0] - p0[0], dpa, 0), 1e-9);
  ck_assert_double_le(hy_test_relerr(p1[1] - p0[1], dpb, 0), 1e-9);
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

//----- (b) the orifice law -------------------------------------------------------------------

START_TEST(test_orifice_cubic_continuity) {
  const double C = kCvThrottle, lim = kDpLim, eps = 1e-9;
  double s_lo, s_hi;
  for (int sign = -1; sign <= 1; sign += 2) {
    // at +-dp_lim: value and slope meet from both sides
    const double x = sign * lim;
    const double q_in = hy_hyd_orifice_flow(C, x * (1 - eps), lim, HY_LAMINAR_CUBIC, &s_lo);
    const double q_out = hy_hyd_orifice_flow(C, x * (1 + eps), lim, HY_LAMINAR_CUBIC, &s_hi);
    ck_assert_double_le(hy_test_relerr(q_in, q_out, 0), 1e-8);
    ck_assert_double_le(hy_test_relerr(s_lo, s_hi, 0), 1e-8);
    ck_assert_double_le(hy_test_relerr(q_out, sign * C * sqrt(lim), 0), 1e-8);
    ck_assert_double_le(hy_test_relerr(s_hi, C / (2 * sqrt(lim)), 0), 1e-8);
  }
  // at 0: odd, continuous, finite slope 5 C / (4 sqrt(dp_lim))
  double s0;
  ck_assert_double_eq(hy_hyd_orifice_flow(C, 0, lim, HY_LAMINAR_CUBIC, &s0), 0.0);
  ck_assert_double_le(hy_test_relerr(s0, 5 * C / (4 * sqrt(lim)), 0), 1e-15);
  const double qp = hy_hyd_orifice_flow(C, 1.0, lim, HY_LAMINAR_CUBIC, &s_hi);
  const double qm = hy_hyd_orifice_flow(C, -1.0, lim, HY_LAMINAR_CUBIC, &s_lo);
  ck_assert_double_eq(qp, -qm);
  ck_assert_double_eq(s_hi, s_lo);
  // the derivative returned is the slope of the value, on both branches
  const double pts[] = {-3e6, -2.5e5, -1.9e5, -5e4, 10, 7e4, 1.99e5, 2.01e5, 9e5};
  for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    const double x = pts[i], h = 1e-4 * fmax(fabs(x), 10);
    double dq;
    hy_hyd_orifice_flow(C, x, lim, HY_LAMINAR_CUBIC, &dq);
    const double fd = (hy_hyd_orifice_flow(C, x + h, lim, HY_LAMINAR_CUBIC, NULL) -
                       hy_hyd_orifice_flow(C, x - h, lim, HY_LAMINAR_CUBIC, NULL)) /
                      (2 * h);
    ck_assert_double_le(hy_test_relerr(dq, fd, 0), 1e-6);
  }
}
END_TEST

START_TEST(test_orifice_linear_and_turbulent) {
  const double C = 1.069e-8 * 7.5, lim = kDpLim, eps = 1e-9;
  double s_in, s_out;
  // seed 003 Eq. 6: Q = C dp / sqrt(dp_lim), value continuous at dp_lim, slope doubles inside
  const double q_in = hy_hyd_orifice_flow(C, lim * (1 - eps), lim, HY_LAMINAR_LINEAR, &s_in);
  const double q_out = hy_hyd_orifice_flow(C, lim * (1 + eps), lim, HY_LAMINAR_LINEAR, &s_out);
  ck_assert_double_le(hy_test_relerr(q_in, q_out, 0), 1e-8);
  ck_assert_double_le(hy_test_relerr(s_in, 2 * s_out, 0), 1e-8);  // the documented jump
  ck_assert_double_le(hy_test_relerr(s_in, C / sqrt(lim), 0), 1e-15);
  double s0;
  ck_assert_double_eq(hy_hyd_orifice_flow(C, 0, lim, HY_LAMINAR_LINEAR, &s0), 0.0);
  ck_assert_double_eq(s0, C / sqrt(lim));
  const double q = hy_hyd_orifice_flow(C, -5e4, lim, HY_LAMINAR_LINEAR, NULL);
  ck_assert_double_le(hy_test_relerr(q, -C * 5e4 / sqrt(lim), 0), 1e-15);
  // above the limit both laws are the turbulent Eq. 24 exactly
  const double big[] = {2.0000001e5, 7.5e6, -3.3e6};
  for (int law = 0; law < 2; law++) {
    for (int i = 0; i < 3; i++) {
      double dq;
      const double x = big[i];
      const double qt = hy_hyd_orifice_flow(C, x, lim, (hy_laminar)law, &dq);
      ck_assert_double_le(hy_test_relerr(qt, (x < 0 ? -1 : 1) * C * sqrt(fabs(x)), 0), 1e-15);
      ck_assert_double_le(hy_test_relerr(dq, C / (2 * sqrt(fabs(x))), 0), 1e-15);
    }
  }
  // a closed valve path (coefficient 0) carries nothing
  double dz;
  ck_assert_double_eq(hy_hyd_orifice_flow(0, 3e6, lim, HY_LAMINAR_CUBIC, &dz), 0.0);
  ck_assert_double_eq(dz, 0.0);
}
END_TEST

//----- (c) the spool -------------------------------------------------------------------------

// The spool's rate (seed 000 Eq. 27) at a state, following its reference signal, and without
// one (U_ref = 0). Its trapezoidal step is the integrator's (tests/integ).
START_TEST(test_spool_rates) {
  circuit_opts o = default_opts();
  o.with_signal = 1;
  hy_model* m = make_circuit(&o);
  hdata hd;
  hdata_make(m, &hd);
  const double p[3] = {5e6, 5e6, 3.5e6};
  set_state(m, &hd, p, 2.5, kS0, 0);
  hy_hyd_spool_rates(m, &hd.d);
  ck_assert_double_le(hy_test_relerr(hd.d.Ud[0], (10 - 2.5) / kTau, 0), 1e-15);
  ck_assert_double_eq(hy_hyd_spool_reference(m, &hd.d, 0, 0.5), 10);
  hy_model* m0 = make_circuit(&(circuit_opts){.p0 = {5e6, 5e6, 3.5e6}});
  ck_assert_double_eq(hy_hyd_spool_reference(m0, &hd.d, 0, 0.5), 0);
  hdata_free(&hd);
  hy_model_free(m0);
  hy_model_free(m);
}
END_TEST

//----- (d) every partial derivative against central differences -----------------------------

// The evaluation's outputs that hy_hyd_work differentiates.
static void outputs(const hy_model* m, hdata* h, double* pd, double* F) {
  hy_hyd_evaluate(m, &h->d, NULL);
  for (int v = 0; v < m->sizes.nvol; v++) pd[v] = h->d.pd[v];
  for (int c = 0; c < m->sizes.ncyl; c++) F[c] = h->d.frc_force[m->cyl_frc[c]];
}

static double g_worst;  // worst relative error over all checks of a test

static void compare(const char* what, double analytic, double fd, double floor, const char* st) {
  const double e = hy_test_relerr(analytic, fd, floor);
  if (e > g_worst) g_worst = e;
  ck_assert_msg(e <= 1e-6, "%s: %s analytic %.12g, central difference %.12g (rel %.3g)", st, what,
                analytic, fd, e);
}

// Central differences of p_dot and F in p, s and s_dot at the state in h, compared with hw.
static void check_partials(const hy_model* m, hdata* h, const char* label) {
  const int nv = m->sizes.nvol, nc = m->sizes.ncyl;
  double pd_p[8], pd_m[8], F_p[4], F_m[4];
  ck_assert_int_le(nv, 8);
  ck_assert_int_le(nc, 4);
  hy_hyd_evaluate(m, &h->d, &h->hw);
  hy_hyd_work a = h->hw;  // analytic (the buffer is not touched by the NULL evaluations)
  double scale_pp = 0, scale_ps = 0, scale_psd = 0;
  for (int i = 0; i < nv * nv; i++) scale_pp = fmax(scale_pp, fabs(a.dpd_dp[i]));
  for (int i = 0; i < nv * nc; i++) scale_ps = fmax(scale_ps, fabs(a.dpd_ds[i]));
  for (int i = 0; i < nv * nc; i++) scale_psd = fmax(scale_psd, fabs(a.dpd_dsd[i]));
  for (int w = 0; w < nv; w++) {
    const double p = h->d.p[w], hp = 1e-7 * fmax(fabs(p), 1e5);
    h->d.p[w] = p + hp;
    outputs(m, h, pd_p, F_p);
    h->d.p[w] = p - hp;
    outputs(m, h, pd_m, F_m);
    h->d.p[w] = p;
    for (int v = 0; v < nv; v++) {
      char what[64];
      snprintf(what, sizeof what, "dpd_dp[%d][%d]", v, w);
      compare(what, a.dpd_dp[v * nv + w], (pd_p[v] - pd_m[v]) / (2 * hp), 1e-12 * scale_pp, label);
    }
    for (int c = 0; c < nc; c++) {
      char what[64];
      snprintf(what, sizeof what, "dF_dp[%d][%d]", c, w);
      compare(what, a.dF_dp[c * nv + w], (F_p[c] - F_m[c]) / (2 * hp), 1e-12, label);
    }
  }
  for (int c = 0; c < nc; c++) {
    const int f = m->cyl_frc[c];
    for (int var = 0; var < 2; var++) {
      double* x = var == 0 ? &h->d.frc_len[f] : &h->d.frc_rate[f];
      const double x0 = *x, hx = var == 0 ? 1e-8 : 1e-6;
      *x = x0 + hx;
      outputs(m, h, pd_p, F_p);
      *x = x0 - hx;
      outputs(m, h, pd_m, F_m);
      *x = x0;
      for (int v = 0; v < nv; v++) {
        char what[64];
        snprintf(what, sizeof what, "dpd_%s[%d][%d]", var == 0 ? "ds" : "dsd", v, c);
        const double an = var == 0 ? a.dpd_ds[v * nc + c] : a.dpd_dsd[v * nc + c];
        compare(what, an, (pd_p[v] - pd_m[v]) / (2 * hx), 1e-12 * (var == 0 ? scale_ps : scale_psd),
                label);
      }
      char what[64];
      snprintf(what, sizeof what, "dF_%s[%d]", var == 0 ? "ds" : "dsd", c);
      compare(what, var == 0 ? a.dF_ds[c] : a.dF_dsd[c], (F_p[c] - F_m[c]) / (2 * hx), 1e-9, label);
    }
  }
}

typedef struct fd_state {
  const char* label;
  hy_bulk_law law;
  hy_laminar laminar;
  double p[3];
  double U;
  double len_a;  // piston-side chamber length (m): s = dead + len_a
  double sd;
  int throttle_laminar;  // expected regime of the throttle (|dp| < dp_lim)
  int damper;            // expected end damper: 0 none, 1 piston side, 2 rod side
  int pvalves;           // with the pressure valves of add_pressure_valves
  int opening[3];        // their expected openings: 0 closed, 1 partly, 2 fully open
} fd_state;

static const fd_state kStates[] = {
    {"U > 0, throttle laminar, linear oil",
     HY_BULK_LINEAR,
     HY_LAMINAR_CUBIC,
     {6.0e6, 5.95e6, 2.0e6},
     5.0,
     0.214,
     0.05,
     1,
     0,
     0,
     {0, 0, 0}},
    {"U < 0, throttle turbulent",
     HY_BULK_CONSTANT,
     HY_LAMINAR_CUBIC,
     {3.0e6, 4.0e6, 1.5e6},
     -3.0,
     0.6,
     -0.1,
     0,
     0,
     0,
     {0, 0, 0}},
    {"valve paths laminar, piston-side damper",
     HY_BULK_LINEAR,
     HY_LAMINAR_LINEAR,
     {7.55e6, 7.48e6, 0.2e6},
     0.2,
     0.004,
     -0.02,
     1,
     1,
     0,
     {0, 0, 0}},
    {"U < 0, rod-side damper, turbulent",
     HY_BULK_CONSTANT,
     HY_LAMINAR_LINEAR,
     {1.0e6, 0.5e6, 6.0e6},
     -8.0,
     1.197,
     0.03,
     0,
     2,
     0,
     {0, 0, 0}},
    {"U < 0 laminar paths, linear oil",
     HY_BULK_LINEAR,
     HY_LAMINAR_CUBIC,
     {0.15e6, 0.12e6, 7.5e6},
     -10.0,
     0.9,
     0.0,
     1,
     0,
     0,
     {0, 0, 0}},
    // relief dp 5.5e6 (half open, turbulent), check dp 1.5e5 (1/6 open, laminar)
    {"relief and check partly open",
     HY_BULK_LINEAR,
     HY_LAMINAR_CUBIC,
     {5.6e6, 3.0e6, 3.15e6},
     2.0,
     0.5,
     0.01,
     0,
     0,
     1,
     {1, 1, 0}},
    // relief dp 6.4e6, check dp 6e5: both fully open (turbulent)
    {"relief and check fully open",
     HY_BULK_CONSTANT,
     HY_LAMINAR_CUBIC,
     {6.5e6, 2.0e6, 2.6e6},
     -2.0,
     0.5,
     -0.01,
     0,
     0,
     1,
     {2, 2, 0}},
    // relief below its setting, check reversed (dp -2e6), suction reversed
    {"pressure valves closed",
     HY_BULK_CONSTANT,
     HY_LAMINAR_CUBIC,
     {4.0e6, 5.0e6, 3.0e6},
     2.0,
     0.5,
     0.01,
     0,
     0,
     1,
     {0, 0, 0}},
    // relief dp 5.2e6 (1/5 open), check dp 2e4 below its cracking pressure, suction dp 8e4
    // (2/5 open, laminar)
    {"suction partly open, linear laminar law",
     HY_BULK_LINEAR,
     HY_LAMINAR_LINEAR,
     {5.3e6, 0.0, 0.02e6},
     2.0,
     0.5,
     0.0,
     0,
     0,
     1,
     {1, 0, 1}},
};

START_TEST(test_partials_fd) {
  const fd_state* st = &kStates[_i];
  circuit_opts o = default_opts();
  o.law = st->law;
  o.laminar = st->laminar;
  o.pvalves = st->pvalves;
  hy_model* m = make_circuit(&o);
  hdata h;
  hdata_make(m, &h);
  set_state(m, &h, st->p, st->U, kDead + st->len_a, st->sd);
  hy_test_count_allocs_begin();
  hy_hyd_evaluate(m, &h.d, &h.hw);
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  // the state is in the regime the case names
  ck_assert_int_eq(fabs(st->p[0] - st->p[1]) < kDpLim, st->throttle_laminar);
  const double damp = h.d.cyl_F_damp[0];
  if (st->damper == 0) ck_assert_double_eq(damp, 0.0);
  if (st->damper == 1) ck_assert_double_gt(damp, 0.0);  // pushes out of the piston-side end
  if (st->damper == 2) ck_assert_double_lt(damp, 0.0);  // pushes in from the rod-side end
  for (int i = 0; i < m->sizes.npvl; i++) {
    const int* nd = m->pvl_node + 2 * i;
    // node pressure: a volume's state, or a source's fixed pressure (no signals here)
    double pn[2];
    for (int k = 0; k < 2; k++) pn[k] = nd[k] < 3 ? h.d.p[nd[k]] : m->src_p[nd[k] - 3];
    const double x =
        hy_hyd_pressure_valve_opening(pn[0] - pn[1], m->pvl_p_crack[i], m->pvl_p_open[i], NULL);
    const int opening = x == 0 ? 0 : (x == 1 ? 2 : 1);
    ck_assert_msg(opening == st->opening[i], "%s: valve %d opening %g", st->label, i, x);
    if (opening == 0) ck_assert_double_eq(h.d.pvl_q[i], 0.0);
    if (opening > 0) ck_assert_double_gt(h.d.pvl_q[i], 0.0);
  }
  g_worst = 0;
  check_partials(m, &h, st->label);
  printf("hyd partials, %-45s worst relative error %.3g\n", st->label, g_worst);
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

// A state of hyd_good.yaml's two circuits (six volumes, both valves open, U < 0 on the second):
// the cylinders at 40 % of their stroke with rates sd0 and sd1 (m/s).
static void set_two_circuit_state(const hy_model* m, hdata* h, double sd0, double sd1) {
  h->d.time = 0.5;
  const double p[6] = {5.2e6, 4.9e6, 3.4e6, 2.2e6, 1.05e6, 0.7e6};
  for (int v = 0; v < m->sizes.nvol; v++) h->d.p[v] = p[v];
  for (int i = 0; i < m->sizes.nvlv; i++) h->d.U[i] = i == 0 ? 3.0 : -2.5;
  for (int c = 0; c < m->sizes.ncyl; c++) {
    const int f = m->cyl_frc[c];
    h->d.frc_len[f] = m->cyl_dead[c] + 0.4 * m->cyl_stroke[c];
    h->d.frc_rate[f] = c == 0 ? sd0 : sd1;
  }
}

// The same check on a model with two circuits and two cylinders, six volumes, signal-scaled
// sources, throttles, check and relief valves and a valve opened the other way (U < 0): the
// evaluation takes another path for more than one cylinder.
START_TEST(test_partials_fd_two_cylinders) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load(HY_SOURCE_DIR "/tests/data/hyd_good.yaml", &m, &err), HY_OK);
  ck_assert_int_eq(m->sizes.ncyl, 2);
  hdata h;
  hdata_make(m, &h);
  set_two_circuit_state(m, &h, 0.05, -0.03);
  g_worst = 0;
  check_partials(m, &h, "two cylinders");
  printf("hyd partials, %-45s worst relative error %.3g\n", "two circuits, two cylinders", g_worst);
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

// Seal friction in the network's derivatives (seed 002 Eqs. 35-40): the two cylinders of
// hyd_good.yaml with the film law (two states) and LuGre, both with a pressure-dependent Coulomb
// force, so that the states' rates depend on the pressures. Every entry of dwd_dw, dwd_dp,
// dwd_dsd and dF_dw equals central differences of d->wd and the cylinder forces, and the checks
// of p_dot and F above hold with friction in F.
START_TEST(test_partials_fd_friction) {
  FILE* fp = fopen(HY_SOURCE_DIR "/tests/data/hyd_good.yaml", "rb");
  ck_assert_ptr_nonnull(fp);
  static char text[16384], edited[20000];
  const size_t len = fread(text, 1, sizeof text - 1, fp);
  fclose(fp);
  text[len] = 0;
  const char* film =
      "          friction: {law: lugre-film, coulomb: 210, stiction: 830, stribeck_velocity: 5e-3,\n"
      "            viscous: 330, stiffness: 1e5, damping: 316.2, damping_velocity: 0.02,\n"
      "            tau_accel: 0.02, tau_decel: 0.2, tau_dwell: 20, film_velocity: 0.05,\n"
      "            smoothing: 1e-3, pressure_coefficient: 0.02}\n";
  char* at = strstr(text, "          initial: equilibrium\n");
  ck_assert_ptr_nonnull(at);
  at += strlen("          initial: equilibrium\n");
  char* at2 = strstr(at, "bulk_modulus: 2e10}");
  ck_assert_ptr_nonnull(at2);
  at2 += strlen("bulk_modulus: 2e10");
  snprintf(edited, sizeof edited,
           "%.*s%s%.*s,\n           friction: {law: lugre, coulomb: 100, stiction: 300, "
           "stribeck_velocity: 0.01, stiffness: 2e5, damping: 50, exponent: 1.5, "
           "pressure_coefficient: 0.05}%s",
           (int)(at - text), text, film, (int)(at2 - at), at, at2);
  hy_model* m = NULL;
  hy_error err;
  ck_assert_msg(hy_model_load_string(edited, strlen(edited), "hyd-friction", &m, &err) == HY_OK,
                "%s", err.msg);
  ck_assert_int_eq(m->sizes.nfric, 3);
  hdata h;
  hdata_make(m, &h);
  set_two_circuit_state(m, &h, 0.004, -0.007);  // near the Stribeck velocities, where the laws bend
  // states away from steady state: q below its steady value, a film thinner than h_ss
  h.d.w[0] = 1.1e-3;
  h.d.w[1] = 0.2;
  h.d.w[2] = -4e-4;
  g_worst = 0;
  check_partials(m, &h, "friction");
  hy_hyd_evaluate(m, &h.d, &h.hw);
  const hy_hyd_work a = h.hw;
  const int nv = m->sizes.nvol, nw = m->sizes.nfric, nc = m->sizes.ncyl;
  double wd_p[4], wd_m[4], F_p[4], F_m[4], pd[8];
  // the unknown perturbed: pressures, friction states, cylinder rates
  for (int var = 0; var < nv + nw + nc; var++) {
    double* x = var < nv ? &h.d.p[var]
                         : (var < nv + nw ? &h.d.w[var - nv]
                                          : &h.d.frc_rate[m->cyl_frc[var - nv - nw]]);
    const double x0 = *x;
    // the force's differences cancel against F_hyd (~2.6e4 N): steps large enough for its
    // round-off, small enough for the laws' curvature
    const double hx = var < nv ? 1e-6 * fabs(x0) : (var < nv + nw ? 1e-4 * fmax(fabs(x0), 1e-4) : 1e-7);
    for (int side = 0; side < 2; side++) {
      *x = x0 + (side == 0 ? hx : -hx);
      outputs(m, &h, pd, side == 0 ? F_p : F_m);
      for (int k = 0; k < nw; k++) (side == 0 ? wd_p : wd_m)[k] = h.d.wd[k];
    }
    *x = x0;
    for (int k = 0; k < nw; k++) {
      const double fd = (wd_p[k] - wd_m[k]) / (2 * hx);
      double an;
      char what[64];
      if (var < nv) {
        an = a.dwd_dp[k * nv + var];
        snprintf(what, sizeof what, "dwd_dp[%d][%d]", k, var);
      } else if (var < nv + nw) {
        an = a.dwd_dw[k * nw + var - nv];
        snprintf(what, sizeof what, "dwd_dw[%d][%d]", k, var - nv);
      } else {
        an = a.dwd_dsd[k * nc + var - nv - nw];
        snprintf(what, sizeof what, "dwd_dsd[%d][%d]", k, var - nv - nw);
      }
      compare(what, an, fd, 1e-12, "friction");
    }
    if (var >= nv && var < nv + nw) {
      for (int c = 0; c < nc; c++) {
        char what[64];
        snprintf(what, sizeof what, "dF_dw[%d][%d]", c, var - nv);
        compare(what, a.dF_dw[c * nw + var - nv], (F_p[c] - F_m[c]) / (2 * hx), 1e-9, "friction");
      }
    }
  }
  // the pressure coupling is there to be checked
  ck_assert(fabs(a.dwd_dp[0 * nv + m->cyl_vol_a[0]]) > 0);
  printf("hyd partials, %-45s worst relative error %.3g\n", "friction (film law, LuGre)", g_worst);
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

// Flows, force parts and their signs on one state of the circuit.
START_TEST(test_valve_paths_and_force) {
  circuit_opts o = default_opts();
  hy_model* m = make_circuit(&o);
  hdata h;
  hdata_make(m, &h);
  const double p[3] = {5e6, 4.9e6, 3e6};
  const double len_a = 0.004, sd = -0.02;
  set_state(m, &h, p, 4.0, kDead + len_a, sd);
  hy_hyd_evaluate(m, &h.d, NULL);
  const double* q = h.d.vlv_q;
  double dq;
  ck_assert_double_eq(q[0], hy_hyd_orifice_flow(kCvValve * 4, kPump - p[0], kDpLim,
                                                HY_LAMINAR_CUBIC, &dq));  // P->A
  ck_assert_double_eq(q[1], hy_hyd_orifice_flow(kCvValve * 4, p[2] - kTank, kDpLim,
                                                HY_LAMINAR_CUBIC, &dq));  // B->T
  ck_assert_double_eq(q[2], 0.0);
  ck_assert_double_eq(q[3], 0.0);
  const double qt = hy_hyd_orifice_flow(kCvThrottle, p[0] - p[1], kDpLim, HY_LAMINAR_CUBIC, &dq);
  ck_assert_double_eq(h.d.orf_q[0], qt);
  // Eq. 44 of seed 000 with this circuit: p1' = Be1/V1 (Q_d1 - Q_t) and so on
  ck_assert_double_le(hy_test_relerr(h.d.pd[0], h.d.vol_Be[0] / h.d.vol_V[0] * (q[0] - qt), 0),
                      1e-14);
  ck_assert_double_le(hy_test_relerr(h.d.pd[1], h.d.vol_Be[1] / h.d.vol_V[1] * (qt - kAa * sd), 0),
                      1e-14);
  ck_assert_double_le(
      hy_test_relerr(h.d.pd[2], h.d.vol_Be[2] / h.d.vol_V[2] * (kAb * sd - q[1]), 0), 1e-14);
  // U < 0 opens the other two paths
  h.d.U[0] = -4.0;
  hy_hyd_evaluate(m, &h.d, NULL);
  ck_assert_double_eq(q[0], 0.0);
  ck_assert_double_eq(q[1], 0.0);
  ck_assert_double_eq(q[2], hy_hyd_orifice_flow(kCvValve * 4, kPump - p[2], kDpLim,
                                                HY_LAMINAR_CUBIC, &dq));  // P->B
  ck_assert_double_eq(q[3], hy_hyd_orifice_flow(kCvValve * 4, p[0] - kTank, kDpLim,
                                                HY_LAMINAR_CUBIC, &dq));  // A->T
  // the force parts (seed 001 Eqs. 33-34 with the repelling damper sign)
  const int f = m->cyl_frc[0];
  ck_assert_double_eq(h.d.cyl_F_hyd[0], p[1] * kAa - p[2] * kAb);
  ck_assert_double_eq(h.d.cyl_F_visc[0], -kVisc * sd);
  ck_assert_double_le(hy_test_relerr(h.d.cyl_F_damp[0], kKd * (kLd - len_a) - kCd * sd, 0), 1e-12);
  ck_assert_double_eq(h.d.frc_force[f], h.d.cyl_F_hyd[0] + h.d.cyl_F_visc[0] + h.d.cyl_F_damp[0]);
  // rod-side end: pushes the piston back in
  set_state(m, &h, p, 0, kDead + kStroke - 0.003, 0.01);
  hy_hyd_evaluate(m, &h.d, NULL);
  // (len_b = stroke - (s - dead) loses a few digits to cancellation)
  ck_assert_double_le(hy_test_relerr(h.d.cyl_F_damp[0], -kKd * (kLd - 0.003) - kCd * 0.01, 0),
                      1e-12);
  for (int k = 0; k < 4; k++) ck_assert_double_eq(h.d.vlv_q[k], 0.0);  // U = 0: closed
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

// A source scaled by its signal, on both paths of the evaluation: the flows see the scaled
// pressure, the evaluation without derivatives gives the very values of the one with them, and
// the partials still match central differences.
START_TEST(test_source_signal) {
  circuit_opts o = default_opts();
  o.pump_signal = 1;
  hy_model* m = make_circuit(&o);
  hdata h;
  hdata_make(m, &h);
  const double states[3][3] = {{5e6, 4.9e6, 3e6}, {5.6e6, 5.55e6, 2e6}, {2e6, 2.5e6, 5.6e6}};
  const double U[3] = {4.0, 0.5, -6.0};
  for (int k = 0; k < 3; k++) {
    set_state(m, &h, states[k], U[k], kDead + 0.3, 0.01 * (k - 1));
    h.d.time = 1.0;  // supply = 0.75
    const double pump = 0.75 * kPump, *p = states[k];
    hy_hyd_evaluate(m, &h.d, &h.hw);
    enum { kOut = 3 * 3 + 1 + 4 + 4 };
    double with_hw[kOut], without[kOut];
    for (int pass = 0; pass < 2; pass++) {
      if (pass == 1) hy_hyd_evaluate(m, &h.d, NULL);
      double* out = pass == 0 ? with_hw : without;
      int n = 0;
      for (int v = 0; v < 3; v++) {
        out[n++] = h.d.pd[v];
        out[n++] = h.d.vol_V[v];
        out[n++] = h.d.vol_Be[v];
      }
      out[n++] = h.d.orf_q[0];
      for (int j = 0; j < 4; j++) out[n++] = h.d.vlv_q[j];
      out[n++] = h.d.cyl_F_hyd[0];
      out[n++] = h.d.cyl_F_visc[0];
      out[n++] = h.d.cyl_F_damp[0];
      out[n++] = h.d.frc_force[m->cyl_frc[0]];
      ck_assert_int_eq(n, kOut);
    }
    for (int j = 0; j < kOut; j++) ck_assert_double_eq(with_hw[j], without[j]);
    const double* q = h.d.vlv_q;
    const double C = kCvValve * fabs(U[k]);
    double dq;
    if (U[k] > 0) {
      ck_assert_double_eq(q[0], hy_hyd_orifice_flow(C, pump - p[0], kDpLim, HY_LAMINAR_CUBIC, &dq));
    } else {
      ck_assert_double_eq(q[2], hy_hyd_orifice_flow(C, pump - p[2], kDpLim, HY_LAMINAR_CUBIC, &dq));
    }
    g_worst = 0;
    check_partials(m, &h, "pump scaled by a signal");
  }
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

//----- (e) initial pressures -----------------------------------------------------------------

START_TEST(test_initial_equilibrium) {
  circuit_opts o = default_opts();
  o.init = HY_CYL_INIT_EQUILIBRIUM;
  o.p0[0] = o.p0[1] = NAN;  // V1 from the throttle, V2 from equilibrium
  hy_model* m = make_circuit(&o);
  hdata h;
  hdata_make(m, &h);
  const int f = m->cyl_frc[0];
  h.d.frc_static[f] = kFs0;
  h.d.frc_len[f] = kS0;
  ck_assert_int_eq(hy_hyd_initial_state(m, &h.d), HY_OK);
  const double p2 = (kFs0 + 3.5e6 * kAb) / kAa;  // seed 000 Sect. 5
  ck_assert_double_le(hy_test_relerr(h.d.p[1], p2, 0), 1e-15);
  ck_assert_double_eq(h.d.p[0], h.d.p[1]);
  ck_assert_double_eq(h.d.p[2], 3.5e6);
  ck_assert_double_eq(h.d.U[0], 1.5);
  // the resulting force holds the load
  h.d.frc_rate[f] = 0;
  hy_hyd_evaluate(m, &h.d, NULL);
  ck_assert_double_le(hy_test_relerr(h.d.frc_force[f], kFs0, 0), 1e-12);
  // starting inside the piston-side damper, the pressure carries F less the damper spring
  h.d.frc_len[f] = kDead + 0.005;
  ck_assert_int_eq(hy_hyd_initial_state(m, &h.d), HY_OK);
  ck_assert_double_le(hy_test_relerr(h.d.p[1], (kFs0 - kKd * (kLd - 0.005) + 3.5e6 * kAb) / kAa, 0),
                      1e-12);
  hy_hyd_evaluate(m, &h.d, NULL);
  ck_assert_double_le(hy_test_relerr(h.d.frc_force[f], kFs0, 0), 1e-12);
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

START_TEST(test_initial_given_and_errors) {
  // given: V1 follows V2 through the throttle
  circuit_opts o = default_opts();
  o.p0[0] = NAN;
  o.p0[1] = 4e6;
  hy_model* m = make_circuit(&o);
  hdata h;
  hdata_make(m, &h);
  ck_assert_int_eq(hy_hyd_initial_state(m, &h.d), HY_OK);
  ck_assert_double_eq(h.d.p[0], 4e6);
  ck_assert_double_eq(h.d.p[1], 4e6);
  hdata_free(&h);
  hy_model_free(m);

  // nothing known: the first volume left unknown is named, at its definition
  o.p0[1] = o.p0[2] = NAN;
  m = make_circuit(&o);
  hdata_make(m, &h);
  ck_assert_int_eq(hy_hyd_initial_state(m, &h.d), HY_ERR_MODEL);
  ck_assert_int_eq(h.d.err.code, HY_ERR_MODEL);
  ck_assert_msg(strstr(h.d.err.msg, "volume 'V1' has no initial pressure"), "%s", h.d.err.msg);
  ck_assert_int_eq(h.d.err.src_line, 10);
  ck_assert_int_eq(h.d.err.src_col, 3);
  hdata_free(&h);
  hy_model_free(m);

  // equilibrium, but the rod side is unknown: V1 still cannot be found
  o = default_opts();
  o.init = HY_CYL_INIT_EQUILIBRIUM;
  o.p0[0] = o.p0[1] = o.p0[2] = NAN;
  m = make_circuit(&o);
  hdata_make(m, &h);
  h.d.frc_len[m->cyl_frc[0]] = kS0;
  ck_assert_int_eq(hy_hyd_initial_state(m, &h.d), HY_ERR_MODEL);
  ck_assert_msg(strstr(h.d.err.msg, "'V1'"), "%s", h.d.err.msg);
  hdata_free(&h);
  hy_model_free(m);

  // equilibrium with p0 given on both sides of the throttle: the given V1 keeps its value (the
  // throttle then carries a flow at t = 0), the piston side comes from equilibrium
  o.p0[0] = 5e6;
  o.p0[2] = 3.5e6;
  m = make_circuit(&o);
  hdata_make(m, &h);
  h.d.frc_static[m->cyl_frc[0]] = kFs0;
  h.d.frc_len[m->cyl_frc[0]] = kS0;
  ck_assert_int_eq(hy_hyd_initial_state(m, &h.d), HY_OK);
  ck_assert_double_eq(h.d.p[0], 5e6);
  ck_assert_double_le(hy_test_relerr(h.d.p[1], (kFs0 + 3.5e6 * kAb) / kAa, 0), 1e-15);
  hdata_free(&h);
  hy_model_free(m);

  // equilibrium, but the rod side is known only through a throttle from the tank, and V1's
  // p0 reaches the piston side through the other throttle first: over-determined
  o.mutation = 8;
  o.p0[2] = NAN;
  m = make_circuit(&o);
  hdata_make(m, &h);
  h.d.frc_static[m->cyl_frc[0]] = kFs0;
  h.d.frc_len[m->cyl_frc[0]] = kS0;
  ck_assert_int_eq(hy_hyd_initial_state(m, &h.d), HY_ERR_MODEL);
  ck_assert_msg(strstr(h.d.err.msg, "cylinder 'cylinder'"), "%s", h.d.err.msg);
  ck_assert_int_eq(h.d.err.src_line, 20);
  hdata_free(&h);
  hy_model_free(m);
}
END_TEST

Suite* hyd_suite(void) {
  Suite* s = suite_create("hyd");
  TCase* tc = tcase_create("hyd");
  tcase_add_test(tc, test_compile_arrays);
  tcase_add_loop_test(tc, test_builder_validation, 0,
                      (int)(sizeof kBadBuild / sizeof kBadBuild[0]));
  tcase_add_loop_test(tc, test_sealed_rate, 0, 2);
  tcase_add_loop_test(tc, test_sealed_small_stroke, 0, 2);
  tcase_add_test(tc, test_sealed_large_stroke);
  tcase_add_test(tc, test_orifice_cubic_continuity);
  tcase_add_test(tc, test_orifice_linear_and_turbulent);
  tcase_add_test(tc, test_spool_rates);
  tcase_add_loop_test(tc, test_partials_fd, 0, (int)(sizeof kStates / sizeof kStates[0]));
  tcase_add_test(tc, test_partials_fd_two_cylinders);
  tcase_add_test(tc, test_partials_fd_friction);
  tcase_add_test(tc, test_valve_paths_and_force);
  tcase_add_test(tc, test_source_signal);
  tcase_add_test(tc, test_initial_equilibrium);
  tcase_add_test(tc, test_initial_given_and_errors);
  suite_add_tcase(s, tc);
  return s;
}
