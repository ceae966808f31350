// hy_model_check: one rule set for every way of building a model. Each bad model of the table
// is built twice from the same definitions: through the builder API (hy_spec_* and
// hy_model_compile) and as YAML text written from them (hy_model_load_string). Both must fail
// with the same status and the same message, the YAML one at the line and column of the
// offending definition. Valid edge cases must pass both ways, and so must every built-in model.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/model.h"
#include "hydyn/names.h"
#include "model/model.h"

//----- a complete model as builder definitions -----------------------------------------------

enum { NBODY = 2, NMARKER = 4, NPOINT = 3, NVOLUME = 3, NSOURCE = 2, NNH_MAX = 2 };

// Every element kind of the format, valid as given by base(). Signal tables are kept by value,
// so that a row can edit a copy.
typedef struct defs {
  hy_option opt;
  hy_body_def body[NBODY];
  hy_joint_def joint[NBODY];
  hy_marker_def marker[NMARKER];
  hy_signal_def signal;
  double sig_t[NPOINT], sig_v[NPOINT];
  hy_load_def load;
  hy_cut_def cut;
  hy_nonholonomic_def nh[NNH_MAX];
  int nnh;  // how many of nh are in the model
  hy_force_def force;
  hy_circuit_def circuit;
  hy_volume_def volume[NVOLUME];
  hy_source_def source[NSOURCE];
  hy_throttle_def throttle;
  hy_valve_def valve;
  hy_check_valve_def check;
  hy_relief_valve_def relief;
  hy_cylinder_def cylinder;
} defs;

static void v3(double v[3], double x, double y, double z) { v[0] = x, v[1] = y, v[2] = z; }

static defs base(void) {
  defs d;
  memset(&d, 0, sizeof d);
  d.opt = hy_option_default();
  for (int i = 0; i < NBODY; i++) {
    d.body[i] = hy_body_def_default();
    snprintf(d.body[i].name, HY_NAME_MAX, "b%d", i);
    d.joint[i] = hy_joint_def_default();
    snprintf(d.joint[i].name, HY_NAME_MAX, "j%d", i);
    strcpy(d.joint[i].child, d.body[i].name);
  }
  d.body[0].mass = 2;
  v3(d.body[0].com, 0.5, 0, 0);
  d.body[0].inertia[0] = 0.1, d.body[0].inertia[4] = 0.2, d.body[0].inertia[8] = 0.25;
  d.body[1].mass = 1;
  v3(d.body[1].com, 0, 0.5, 0);
  const double J1[9] = {0.3, 0.01, 0, 0.01, 0.2, 0.02, 0, 0.02, 0.4};
  memcpy(d.body[1].inertia, J1, sizeof J1);
  d.joint[0].z0 = 0.5, d.joint[0].zd0 = -1;  // revolute about z
  strcpy(d.joint[1].parent, "b0");
  d.joint[1].type = HY_JOINT_PRISMATIC;
  v3(d.joint[1].parent_point, 1, 0, 0);
  v3(d.joint[1].child_point, 0, -0.1, 0);
  v3(d.joint[1].axis, 1, 0, 0);
  v3(d.joint[1].child_axis, 1, 0, 0);
  d.joint[1].z0 = 0.2, d.joint[1].zd0 = 0.1;
  static const char* const mbody[NMARKER] = {"ground", "b0", "b1", "ground"};
  for (int k = 0; k < NMARKER; k++) {
    d.marker[k] = hy_marker_def_default();
    snprintf(d.marker[k].name, HY_NAME_MAX, "m%d", k);
    strcpy(d.marker[k].body, mbody[k]);
  }
  v3(d.marker[1].point, 0.5, 0.1, 0);
  v3(d.marker[2].point, 0, 1, 0);
  v3(d.marker[3].point, 2, 1, 0);
  d.signal = hy_signal_def_default();
  strcpy(d.signal.name, "s0");
  d.signal.npoint = NPOINT;
  const double t[NPOINT] = {0, 0.5, 2}, v[NPOINT] = {0, 1, 0.5};
  memcpy(d.sig_t, t, sizeof t);
  memcpy(d.sig_v, v, sizeof v);
  d.load = hy_load_def_default();
  strcpy(d.load.name, "l0");
  strcpy(d.load.marker, "m2");
  v3(d.load.vector, 1, 2, 3);
  strcpy(d.load.signal, "s0");
  d.cut = hy_cut_def_default();
  strcpy(d.cut.name, "c0");
  strcpy(d.cut.marker_a, "m2");
  strcpy(d.cut.marker_b, "m3");
  // a knife edge on b1 with an in-plane axis (the model is planar about z); a second one, on
  // b0, is there for rows that add it
  for (int k = 0; k < NNH_MAX; k++) {
    d.nh[k] = hy_nonholonomic_def_default();
    snprintf(d.nh[k].name, HY_NAME_MAX, "k%d", k);
  }
  d.nnh = 1;
  strcpy(d.nh[0].marker, "m2");
  v3(d.nh[0].axis, 0, 2, 0);
  strcpy(d.nh[1].marker, "m1");
  v3(d.nh[1].axis, 1, 0, 0);
  d.force = hy_force_def_default();
  strcpy(d.force.name, "f0");
  strcpy(d.force.marker_a, "m1");
  strcpy(d.force.marker_b, "m3");
  d.force.value = 100;
  d.circuit = hy_circuit_def_default();
  strcpy(d.circuit.name, "oil");
  d.circuit.B_oil = 1.5e9;
  for (int i = 0; i < NVOLUME; i++) {
    d.volume[i] = hy_volume_def_default();
    snprintf(d.volume[i].name, HY_NAME_MAX, "V%d", i + 1);
    strcpy(d.volume[i].circuit, "oil");
    d.volume[i].hose_volume = 1e-4;
    d.volume[i].hose_bulk_modulus = 1e9;
  }
  d.volume[0].p0 = 1e7;
  d.volume[2].hose_volume = 0;  // only the rod-side chamber
  d.volume[2].hose_bulk_modulus = 0;
  static const char* const sname[NSOURCE] = {"P", "T"};
  const double sp[NSOURCE] = {2e7, 1e5};
  for (int i = 0; i < NSOURCE; i++) {
    d.source[i] = hy_source_def_default();
    strcpy(d.source[i].name, sname[i]);
    strcpy(d.source[i].circuit, "oil");
    d.source[i].pressure = sp[i];
  }
  d.throttle = hy_throttle_def_default();
  strcpy(d.throttle.name, "t0");
  strcpy(d.throttle.from, "P");
  strcpy(d.throttle.to, "V1");
  d.throttle.cv = 1e-7;
  d.valve = hy_valve_def_default();
  strcpy(d.valve.name, "d0");
  strcpy(d.valve.P, "P");
  strcpy(d.valve.T, "T");
  strcpy(d.valve.A, "V1");
  strcpy(d.valve.B, "V2");
  d.valve.cv = 1e-8;
  d.valve.tau = 0.01;
  strcpy(d.valve.signal, "s0");
  d.check = hy_check_valve_def_default();
  strcpy(d.check.name, "k0");
  strcpy(d.check.from, "T");
  strcpy(d.check.to, "V2");
  d.check.cv = 1e-7;
  d.check.p_open = 1e5;
  d.relief = hy_relief_valve_def_default();
  strcpy(d.relief.name, "r0");
  strcpy(d.relief.from, "V1");
  strcpy(d.relief.to, "T");
  d.relief.cv = 1e-7;
  d.relief.p_set = 2e7;
  d.relief.p_open = 1e6;
  d.cylinder = hy_cylinder_def_default();
  strcpy(d.cylinder.name, "cy");
  strcpy(d.cylinder.marker_a, "m0");
  strcpy(d.cylinder.marker_b, "m2");
  strcpy(d.cylinder.chamber_a, "V2");
  strcpy(d.cylinder.chamber_b, "V3");
  d.cylinder.area_a = 5e-3;
  d.cylinder.area_b = 4e-3;
  d.cylinder.stroke = 1.2;
  d.cylinder.dead_length = 1.0;
  d.cylinder.bulk_modulus = 3e10;
  d.cylinder.viscous = 100;
  d.cylinder.damper_k = 1e7;
  d.cylinder.damper_c = 1e4;
  d.cylinder.damper_length = 0.05;
  return d;
}

//----- the builder path ----------------------------------------------------------------------

static hy_status build(const defs* d, hy_model** out, hy_error* err) {
  hy_spec* s = NULL;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  ck_assert_int_eq(hy_spec_set_name(s, "base", NULL), HY_OK);
  ck_assert_int_eq(hy_spec_set_option(s, &d->opt), HY_OK);
  for (int i = 0; i < NBODY; i++) ck_assert_int_eq(hy_spec_add_body(s, &d->body[i]), HY_OK);
  for (int i = 0; i < NBODY; i++) ck_assert_int_eq(hy_spec_add_joint(s, &d->joint[i]), HY_OK);
  for (int i = 0; i < NMARKER; i++) ck_assert_int_eq(hy_spec_add_marker(s, &d->marker[i]), HY_OK);
  hy_signal_def sig = d->signal;
  sig.t = d->sig_t;
  sig.value = d->sig_v;
  ck_assert_int_eq(hy_spec_add_signal(s, &sig), HY_OK);
  ck_assert_int_eq(hy_spec_add_load(s, &d->load), HY_OK);
  ck_assert_int_eq(hy_spec_add_cut(s, &d->cut), HY_OK);
  for (int k = 0; k < d->nnh; k++) ck_assert_int_eq(hy_spec_add_nonholonomic(s, &d->nh[k]), HY_OK);
  ck_assert_int_eq(hy_spec_add_force(s, &d->force), HY_OK);
  ck_assert_int_eq(hy_spec_add_circuit(s, &d->circuit), HY_OK);
  for (int i = 0; i < NVOLUME; i++) ck_assert_int_eq(hy_spec_add_volume(s, &d->volume[i]), HY_OK);
  for (int i = 0; i < NSOURCE; i++) ck_assert_int_eq(hy_spec_add_source(s, &d->source[i]), HY_OK);
  ck_assert_int_eq(hy_spec_add_throttle(s, &d->throttle), HY_OK);
  ck_assert_int_eq(hy_spec_add_valve(s, &d->valve), HY_OK);
  ck_assert_int_eq(hy_spec_add_check_valve(s, &d->check), HY_OK);
  ck_assert_int_eq(hy_spec_add_relief_valve(s, &d->relief), HY_OK);
  ck_assert_int_eq(hy_spec_add_cylinder(s, &d->cylinder), HY_OK);
  hy_status st = hy_model_compile(s, out, err);
  hy_spec_free(s);
  return st;
}

//----- the YAML path: the same definitions written as a model file ---------------------------

// Elements a row may blame, for the expected position in the file.
typedef enum kind {
  K_BODY,
  K_JOINT,
  K_MARKER,
  K_SIGNAL,
  K_LOAD,
  K_CUT,
  K_NH,
  K_FORCE,
  K_CIRCUIT,
  K_VOLUME,
  K_SOURCE,
  K_THROTTLE,
  K_VALVE,
  K_CHECK,
  K_RELIEF,
  K_CYLINDER,
  K_OPTION,
  K_COUNT
} kind;

enum { MAX_INDEX = HY_OPT_COUNT };

// A model file being written: its text, and where each element and option starts.
typedef struct emitter {
  char text[16384];
  size_t len;
  int line;  // lines written so far
  hy_srcpos pos[K_COUNT][MAX_INDEX];
} emitter;

// Appends one line; `indent` is the column (0-based) of its first character.
static void put(emitter* e, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(emitter* e, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(e->text + e->len, sizeof e->text - e->len, fmt, ap);
  va_end(ap);
  ck_assert_int_ge(w, 0);
  ck_assert_int_lt((size_t)w + 1, sizeof e->text - e->len);
  e->len += (size_t)w;
  e->text[e->len++] = '\n';
  e->text[e->len] = 0;
  e->line++;
}

// Records that element (k, i) starts on the next line, at 1-based column col.
static void mark(emitter* e, kind k, int i, int col) {
  e->pos[k][i].line = e->line + 1;
  e->pos[k][i].col = col;
}

// Numbers as the shortest text that reads back as the same double.
typedef struct num {
  char s[40];
} num;

static num N(double x) {
  num n;
  snprintf(n.s, sizeof n.s, "%.17g", x);
  return n;
}

typedef struct vec {
  char s[128];
} vec;

static vec V(const double v[3]) {
  vec r;
  snprintf(r.s, sizeof r.s, "[%.17g, %.17g, %.17g]", v[0], v[1], v[2]);
  return r;
}

static const char* yes(int b) { return b ? "true" : "false"; }

// An option line "  key: value" of the solver section, its value's position recorded.
static void opt_line(emitter* e, hy_option_key k, const char* key, const char* value) {
  mark(e, K_OPTION, k, (int)strlen(key) + 5);
  put(e, "  %s: %s", key, value);
}

static void emit(const defs* d, emitter* e) {
  memset(e, 0, sizeof *e);
  const double deg = 3.14159265358979323846 / 180.0;  // as the loader converts
  put(e, "name: base");
  mark(e, K_OPTION, HY_OPT_GRAVITY, 10);
  put(e, "gravity: %s", V(d->opt.gravity).s);
  put(e, "bodies:");
  for (int i = 0; i < NBODY; i++) {
    const hy_body_def* b = &d->body[i];
    const double* J = b->inertia;
    mark(e, K_BODY, i, 5);
    put(e,
        "  - {name: %s, mass: %s, com: %s, inertia: [[%.17g, %.17g, %.17g], [%.17g, %.17g, "
        "%.17g], [%.17g, %.17g, %.17g]]}",
        b->name, N(b->mass).s, V(b->com).s, J[0], J[1], J[2], J[3], J[4], J[5], J[6], J[7], J[8]);
  }
  put(e, "joints:");
  for (int i = 0; i < NBODY; i++) {
    const hy_joint_def* j = &d->joint[i];
    const int rev = j->type == HY_JOINT_REVOLUTE;
    mark(e, K_JOINT, i, 5);
    put(e,
        "  - {name: %s, type: %s, parent: %s, child: %s, parent_point: %s, child_point: %s, "
        "axis: %s, child_axis: %s, z0: %s, zd0: %s, independent: %s}",
        j->name, rev ? "revolute" : "prismatic", j->parent, j->child, V(j->parent_point).s,
        V(j->child_point).s, V(j->axis).s, V(j->child_axis).s, N(rev ? j->z0 / deg : j->z0).s,
        N(rev ? j->zd0 / deg : j->zd0).s, yes(j->independent));
  }
  put(e, "markers:");
  for (int k = 0; k < NMARKER; k++) {
    const hy_marker_def* m = &d->marker[k];
    mark(e, K_MARKER, k, 5);
    put(e, "  - {name: %s, body: %s, point: %s}", m->name, m->body, V(m->point).s);
  }
  put(e, "signals:");
  char table[512] = "";
  for (int q = 0; q < d->signal.npoint; q++) {
    char pt[96];
    snprintf(pt, sizeof pt, "%s[%.17g, %.17g]", q ? ", " : "", d->sig_t[q], d->sig_v[q]);
    strcat(table, pt);
  }
  mark(e, K_SIGNAL, 0, 5);
  put(e, "  - {name: %s, interpolation: %s, table: [%s]}", d->signal.name,
      d->signal.interp == HY_INTERP_STEP ? "step" : "linear", table);
  put(e, "loads:");
  mark(e, K_LOAD, 0, 5);
  put(e, "  - {name: %s, type: %s, marker: %s, vector: %s, signal: %s}", d->load.name,
      d->load.type == HY_LOAD_TORQUE ? "torque" : "force", d->load.marker, V(d->load.vector).s,
      d->load.signal);
  put(e, "cut_joints:");
  char ups[300] = "";
  if (d->cut.up_a[0] || d->cut.up_a[1] || d->cut.up_a[2]) {
    snprintf(ups, sizeof ups, ", up_a: %s", V(d->cut.up_a).s);
  }
  if (d->cut.up_b[0] || d->cut.up_b[1] || d->cut.up_b[2]) {
    size_t n = strlen(ups);
    snprintf(ups + n, sizeof ups - n, ", up_b: %s", V(d->cut.up_b).s);
  }
  mark(e, K_CUT, 0, 5);
  put(e, "  - {name: %s, type: %s, marker_a: %s, marker_b: %s, axis_a: %s, axis_b: %s%s}",
      d->cut.name, hy_cut_type_name(d->cut.type), d->cut.marker_a, d->cut.marker_b,
      V(d->cut.axis_a).s, V(d->cut.axis_b).s, ups);
  put(e, "nonholonomic:");
  for (int k = 0; k < d->nnh; k++) {
    const hy_nonholonomic_def* h = &d->nh[k];
    mark(e, K_NH, k, 5);
    put(e, "  - {name: %s, type: %s, marker: %s, axis: %s}", h->name,
        hy_nonholonomic_type_name(h->type), h->marker, V(h->axis).s);
  }
  put(e, "forces:");
  mark(e, K_FORCE, 0, 5);
  put(e, "  - {name: %s, type: actuator, marker_a: %s, marker_b: %s, force: %s}", d->force.name,
      d->force.marker_a, d->force.marker_b,
      d->force.equilibrium ? "equilibrium" : N(d->force.value).s);

  const hy_circuit_def* c = &d->circuit;
  put(e, "hydraulics:");
  put(e, "  circuits:");
  mark(e, K_CIRCUIT, 0, 7);
  put(e, "    - name: %s", c->name);
  put(e, "      oil: {bulk_modulus: %s, law: %s, k: %s}", N(c->B_oil).s,
      c->law == HY_BULK_LINEAR ? "linear" : "constant", N(c->law_k).s);
  put(e, "      laminar: %s", c->laminar == HY_LAMINAR_LINEAR ? "linear" : "cubic");
  put(e, "      volumes:");
  for (int i = 0; i < NVOLUME; i++) {
    const hy_volume_def* v = &d->volume[i];
    char p0[64] = "";
    if (!isnan(v->p0)) snprintf(p0, sizeof p0, ", p0: %.17g", v->p0);
    mark(e, K_VOLUME, i, 11);
    put(e, "        - {name: %s, hose_volume: %s, hose_bulk_modulus: %s%s}", v->name,
        N(v->hose_volume).s, N(v->hose_bulk_modulus).s, p0);
  }
  put(e, "      sources:");
  for (int i = 0; i < NSOURCE; i++) {
    mark(e, K_SOURCE, i, 11);
    put(e, "        - {name: %s, pressure: %s}", d->source[i].name, N(d->source[i].pressure).s);
  }
  const hy_throttle_def* t = &d->throttle;
  put(e, "      throttles:");
  mark(e, K_THROTTLE, 0, 11);
  // each law with the limit it reads (the file refuses the other); the options only when set
  char limit[96], topts[160] = "";
  if (t->law == HY_ORIFICE_TURBULENT) {
    snprintf(limit, sizeof limit, "law: turbulent, dp_reg: %s", N(t->dp_reg).s);
  } else {
    snprintf(limit, sizeof limit, "dp_lim: %s", N(t->dp_lim).s);
  }
  if (t->one_way) strcat(topts, ", one_way: true");
  if (t->signal[0]) snprintf(topts + strlen(topts), 80, ", signal: %s", t->signal);
  put(e, "        - {name: %s, from: %s, to: %s, cv: %s, %s%s}", t->name, t->from, t->to,
      N(t->cv).s, limit, topts);
  const hy_valve_def* v = &d->valve;
  put(e, "      valves:");
  mark(e, K_VALVE, 0, 11);
  static const char* const centres[4] = {"closed", "open", "tandem", "float"};
  char cc[96] = "";  // a closed centre refuses the key
  if (v->centre != HY_CENTRE_CLOSED) snprintf(cc, sizeof cc, ", cv_centre: %s", N(v->cv_centre).s);
  put(e,
      "        - {name: %s, P: %s, T: %s, A: %s, B: %s, cv: %s, tau: %s, dp_lim: %s, U0: %s, "
      "signal: %s, centre: %s, U_max: %s, overlap: %s, leakage: %s%s}",
      v->name, v->P, v->T, v->A, v->B, N(v->cv).s, N(v->tau).s, N(v->dp_lim).s, N(v->U0).s,
      v->signal, centres[v->centre], N(v->U_max).s, N(v->overlap).s, N(v->leakage).s, cc);
  const hy_check_valve_def* k = &d->check;
  put(e, "      check_valves:");
  mark(e, K_CHECK, 0, 11);
  put(e, "        - {name: %s, from: %s, to: %s, cv: %s, p_crack: %s, p_open: %s, dp_lim: %s}",
      k->name, k->from, k->to, N(k->cv).s, N(k->p_crack).s, N(k->p_open).s, N(k->dp_lim).s);
  const hy_relief_valve_def* r = &d->relief;
  put(e, "      relief_valves:");
  mark(e, K_RELIEF, 0, 11);
  put(e, "        - {name: %s, from: %s, to: %s, cv: %s, p_set: %s, p_open: %s, dp_lim: %s}",
      r->name, r->from, r->to, N(r->cv).s, N(r->p_set).s, N(r->p_open).s, N(r->dp_lim).s);
  const hy_cylinder_def* y = &d->cylinder;
  put(e, "      cylinders:");
  mark(e, K_CYLINDER, 0, 11);
  put(e,
      "        - {name: %s, marker_a: %s, marker_b: %s, chamber_a: %s, chamber_b: %s, "
      "area_a: %s, area_b: %s, stroke: %s, dead_length: %s, bulk_modulus: %s, viscous: %s, "
      "end_damper: {k: %s, c: %s, length: %s}, initial: %s}",
      y->name, y->marker_a, y->marker_b, y->chamber_a, y->chamber_b, N(y->area_a).s, N(y->area_b).s,
      N(y->stroke).s, N(y->dead_length).s, N(y->bulk_modulus).s, N(y->viscous).s, N(y->damper_k).s,
      N(y->damper_c).s, N(y->damper_length).s,
      y->init == HY_CYL_INIT_EQUILIBRIUM ? "equilibrium" : "given");

  const hy_option* o = &d->opt;
  put(e, "solver:");
  opt_line(e, HY_OPT_INTEGRATOR, "integrator", hy_integrator_name(o->integrator));
  opt_line(e, HY_OPT_FORMULATION, "formulation", hy_formulation_name(o->formulation));
  opt_line(e, HY_OPT_TANGENT, "tangent", hy_tangent_name(o->tangent));
  opt_line(e, HY_OPT_DT, "dt", N(o->dt).s);
  opt_line(e, HY_OPT_T_END, "t_end", N(o->t_end).s);
  opt_line(e, HY_OPT_PENALTY, "penalty", N(o->penalty).s);
  opt_line(e, HY_OPT_TOL_POS, "tol_position", N(o->tol_pos).s);
  opt_line(e, HY_OPT_TOL_P, "tol_pressure", N(o->tol_p).s);
  opt_line(e, HY_OPT_MAX_ITER, "max_iterations", N(o->max_iter).s);
  opt_line(e, HY_OPT_REUSE_TANGENT, "reuse_tangent", yes(o->reuse_tangent));
  opt_line(e, HY_OPT_PARTITION_RCOND, "partition_rcond", N(o->partition_rcond).s);
  opt_line(e, HY_OPT_STRICT_STEPS, "strict_steps", yes(o->strict_steps));
  opt_line(e, HY_OPT_MAX_CUTS, "max_cuts", N(o->max_cuts).s);
  opt_line(e, HY_OPT_ERROR_CONTROL, "error_control", hy_error_control_name(o->error_control));
  opt_line(e, HY_OPT_ERROR_TOL_POS, "error_tol_position", N(o->error_tol_pos).s);
  opt_line(e, HY_OPT_ERROR_TOL_P, "error_tol_pressure", N(o->error_tol_p).s);
  opt_line(e, HY_OPT_MAX_MEMORY, "max_memory", N(o->max_memory).s);
}

static hy_status load(const defs* d, emitter* e, hy_model** out, hy_error* err) {
  emit(d, e);
  return hy_model_load_string(e->text, e->len, "check.yaml", out, err);
}

//----- bad models ----------------------------------------------------------------------------

// A row breaks one rule of hy_model_check. The builder and the file must fail with the same
// status and message, the file at the start of the blamed element (or at an option's value).
typedef struct bad_row {
  void (*edit)(defs* d);  // breaks the base model
  kind blame;             // the element the error is about ...
  int index;              // ... and its index (an option: its hy_option_key)
  int yaml;               // 1: also written as a file; 0: not writable (NaN, enum value, flag)
  const char* msg;        // the whole message
} bad_row;

#define EDIT(name, ...) \
  static void name(defs* d) { __VA_ARGS__; }

static const double kNaN = NAN;
static const double kInf = INFINITY;

// mechanics
EDIT(mass_zero_with_inertia, d->body[0].mass = 0)
EDIT(mass_zero_with_rod, d->body[1].mass = 0; memset(d->body[1].inertia, 0, sizeof(double) * 9);
     d->body[1].inertia[4] = d->body[1].inertia[8] = 0.2)
EDIT(mass_negative, d->body[1].mass = -1)
EDIT(mass_huge, d->body[0].mass = 1e308)
EDIT(mass_nan, d->body[0].mass = kNaN)
EDIT(com_far, d->body[1].com[1] = 2e6)
EDIT(com_inf, d->body[0].com[2] = kInf)
EDIT(inertia_asymmetric, d->body[1].inertia[1] = 0.05)
EDIT(inertia_negative, d->body[0].inertia[0] = -0.1)
EDIT(inertia_triangle, d->body[0].inertia[0] = 0.1; d->body[0].inertia[4] = 0.1;
     d->body[0].inertia[8] = 0.3)
EDIT(inertia_huge, d->body[0].inertia[0] = 1e308)
EDIT(inertia_nan, d->body[1].inertia[7] = kNaN)
EDIT(parent_point_far, d->joint[1].parent_point[0] = -3e6)
EDIT(child_point_nan, d->joint[1].child_point[2] = kNaN)
EDIT(axis_zero, v3(d->joint[0].axis, 0, 0, 0))
EDIT(child_axis_zero, v3(d->joint[1].child_axis, 0, 0, 0))
EDIT(axis_inf, d->joint[1].axis[0] = kInf)
EDIT(z0_huge, d->joint[1].z0 = 1e308)
EDIT(zd0_far, d->joint[1].zd0 = 2e6)
EDIT(z0_revolute_far, d->joint[0].z0 = 2e6)
EDIT(zd0_revolute_nan, d->joint[0].zd0 = kNaN)
EDIT(joint_type, d->joint[1].type = (hy_joint_type)7)
EDIT(marker_far, d->marker[1].point[2] = 1e7)
EDIT(signal_decreasing, d->sig_t[2] = 0.4)
EDIT(signal_repeated, d->sig_t[2] = 0.5)
EDIT(signal_nan, d->sig_v[1] = kNaN)
EDIT(signal_empty, d->signal.npoint = 0)
EDIT(signal_interp, d->signal.interp = (hy_interp)5)
EDIT(load_huge, d->load.vector[0] = 1e13)
EDIT(torque_huge, d->load.type = HY_LOAD_TORQUE; d->load.vector[2] = -2e12)
EDIT(load_type, d->load.type = (hy_load_type)9)
EDIT(cut_axis_zero, v3(d->cut.axis_b, 0, 0, 0))
EDIT(cut_up_oblique, v3(d->cut.up_a, 0, 1, 1e-6))
EDIT(cut_up_nan, d->cut.up_b[0] = kNaN)
EDIT(cut_type, d->cut.type = (hy_cut_type)9)
EDIT(nh_axis_zero, v3(d->nh[0].axis, 0, 0, 0))
EDIT(nh_axis_nan, d->nh[0].axis[1] = kNaN)
EDIT(nh_type, d->nh[0].type = (hy_nonholonomic_type)4)
EDIT(nh_no_name, d->nh[0].name[0] = 0)
EDIT(nh_duplicate, d->nnh = 2; strcpy(d->nh[1].name, "k0"))
EDIT(nh_marker_unknown, strcpy(d->nh[0].marker, "m9"))
EDIT(nh_marker_ground, strcpy(d->nh[0].marker, "m3"))
EDIT(nh_too_many, d->nnh = 2)
EDIT(nh_along_normal, v3(d->nh[0].axis, 0, 0, -3))
EDIT(nh_oblique, v3(d->nh[0].axis, 0, 1, 1e-6))
// b0 turned at z = 0 so that its y axis is the inertial z (the plane stays x-y, the cut's axis
// given along b1's y to stay parallel to it): a body-frame y axis is then out of the plane
EDIT(nh_turned_body_out, v3(d->joint[0].child_axis, 0, 1, 0); v3(d->cut.axis_a, 0, 1, 0);
     strcpy(d->nh[0].marker, "m1"); v3(d->nh[0].axis, 0, 1, 0))
EDIT(force_huge, d->force.value = 1e13)
EDIT(force_nan, d->force.value = kNaN)
EDIT(force_type, d->force.type = (hy_force_type)5)
// hydraulics
EDIT(oil_bulk_zero, d->circuit.B_oil = 0)
EDIT(oil_k_negative, d->circuit.law = HY_BULK_LINEAR; d->circuit.law_k = -1)
EDIT(oil_law, d->circuit.law = (hy_bulk_law)7)
EDIT(oil_laminar, d->circuit.laminar = (hy_laminar)7)
EDIT(hose_negative, d->volume[0].hose_volume = -1e-4)
EDIT(hose_huge, d->volume[0].hose_volume = 2e3)
EDIT(hose_bulk_negative, d->volume[1].hose_bulk_modulus = -1)
EDIT(hose_zero_no_chamber, d->volume[0].hose_volume = 0; d->volume[0].hose_bulk_modulus = 0)
EDIT(p0_negative, d->volume[0].p0 = -1e9)
EDIT(p0_huge, d->volume[0].p0 = 2e10)
EDIT(p0_inf, d->volume[0].p0 = kInf)
EDIT(source_negative, d->source[1].pressure = -1)
EDIT(throttle_cv_zero, d->throttle.cv = 0)
EDIT(throttle_cv_huge, d->throttle.cv = 2)
EDIT(throttle_dp_lim_zero, d->throttle.dp_lim = 0)
EDIT(throttle_dp_reg_zero, d->throttle.law = HY_ORIFICE_TURBULENT; d->throttle.dp_reg = 0)
EDIT(throttle_law_bad, d->throttle.law = (hy_orifice_law)7)
EDIT(throttle_one_way_two, d->throttle.one_way = 2)
EDIT(valve_cv_negative, d->valve.cv = -1e-8)
EDIT(valve_tau_zero, d->valve.tau = 0)
EDIT(valve_dp_lim_negative, d->valve.dp_lim = -1)
EDIT(valve_U0_far, d->valve.U0 = 2000)
EDIT(valve_centre_bad, d->valve.centre = (hy_valve_centre)9)
EDIT(valve_open_no_U_max, d->valve.centre = HY_CENTRE_OPEN)
EDIT(valve_U_max_negative, d->valve.U_max = -1)
EDIT(valve_overlap_beyond, d->valve.centre = HY_CENTRE_TANDEM; d->valve.U_max = 10;
     d->valve.overlap = -10)
EDIT(valve_overlap_far, d->valve.overlap = 1500)
EDIT(valve_leakage_negative, d->valve.leakage = -1e-12)
EDIT(valve_cv_centre_closed, d->valve.cv_centre = 1e-8)
EDIT(valve_cv_centre_huge, d->valve.centre = HY_CENTRE_FLOAT; d->valve.U_max = 10;
     d->valve.cv_centre = 2)
EDIT(check_crack_negative, d->check.p_crack = -1)
EDIT(check_open_zero, d->check.p_open = 0)
EDIT(check_cv_nan, d->check.cv = kNaN)
EDIT(check_dp_lim_huge, d->check.dp_lim = 2e10)
EDIT(relief_set_zero, d->relief.p_set = 0)
EDIT(relief_open_negative, d->relief.p_open = -1)
EDIT(area_a_zero, d->cylinder.area_a = 0)
EDIT(area_b_huge, d->cylinder.area_b = 2e3)
EDIT(stroke_zero, d->cylinder.stroke = 0)
EDIT(dead_negative, d->cylinder.dead_length = -1)
EDIT(cyl_bulk_zero, d->cylinder.bulk_modulus = 0)
EDIT(viscous_negative, d->cylinder.viscous = -1)
EDIT(damper_k_negative, d->cylinder.damper_k = -1)
EDIT(damper_c_huge, d->cylinder.damper_c = 2e15)
EDIT(damper_length_negative, d->cylinder.damper_length = -0.1)
EDIT(dampers_too_long, d->cylinder.damper_length = 0.6)
EDIT(cyl_init, d->cylinder.init = (hy_cyl_init)5)
EDIT(equilibrium_given_p0, d->cylinder.init = HY_CYL_INIT_EQUILIBRIUM; d->volume[1].p0 = 1e6)
// options
EDIT(gravity_far, d->opt.gravity[1] = -2e3)
EDIT(dt_zero, d->opt.dt = 0)
EDIT(dt_negative, d->opt.dt = -1e-3)
EDIT(dt_nan, d->opt.dt = kNaN)
EDIT(t_end_zero, d->opt.t_end = 0)
EDIT(penalty_zero, d->opt.penalty = 0)
EDIT(tol_pos_zero, d->opt.tol_pos = 0)
EDIT(tol_p_negative, d->opt.tol_p = -1)
EDIT(max_iter_zero, d->opt.max_iter = 0)
EDIT(max_iter_huge, d->opt.max_iter = 2000000)
EDIT(reuse_tangent_two, d->opt.reuse_tangent = 2)
EDIT(rcond_one, d->opt.partition_rcond = 1)
EDIT(rcond_zero, d->opt.partition_rcond = 0)
EDIT(strict_steps_two, d->opt.strict_steps = 2)
EDIT(time_steps_three, d->opt.time_steps = 3)
EDIT(max_cuts_41, d->opt.max_cuts = 41)
EDIT(max_cuts_negative, d->opt.max_cuts = -1)
EDIT(error_control_bad, d->opt.error_control = (hy_error_control)7)
EDIT(error_tol_pos_zero, d->opt.error_tol_pos = 0)
EDIT(error_tol_p_negative, d->opt.error_tol_p = -5)
EDIT(max_memory_zero, d->opt.max_memory = 0)
EDIT(integrator_bad, d->opt.integrator = (hy_integrator)99)
EDIT(formulation_bad, d->opt.formulation = (hy_formulation)-1)
EDIT(tangent_bad, d->opt.tangent = (hy_tangent)9)

static const bad_row kBad[] = {
    {mass_zero_with_inertia, K_BODY, 0, 1,
     "body 'b0': mass 0 needs a zero inertia, but inertia[0][0] is 0.1"},
    {mass_zero_with_rod, K_BODY, 1, 1,
     "body 'b1': mass 0 needs a zero inertia, but inertia[1][1] is 0.2"},
    {mass_negative, K_BODY, 1, 1, "body 'b1': mass must be >= 0 (kg), got -1"},
    {mass_huge, K_BODY, 0, 1, "body 'b0': mass must be at most 1e+09 (kg), got 1e+308"},
    {mass_nan, K_BODY, 0, 0, "body 'b0': mass must be a finite number (kg), got nan"},
    {com_far, K_BODY, 1, 1, "body 'b1': com[1] must be between -1e+06 and 1e+06 (m), got 2e+06"},
    {com_inf, K_BODY, 0, 0, "body 'b0': com[2] must be a finite number (m), got inf"},
    {inertia_asymmetric, K_BODY, 1, 1,
     "body 'b1': inertia must be a symmetric tensor, but entry [0][1] = 0.05 differs from "
     "[1][0] = 0.01"},
    {inertia_negative, K_BODY, 0, 1,
     "body 'b0': inertia is not a physical inertia tensor: its principal moments (-0.1, 0.2, "
     "0.25) kg m^2 must be >= 0 and each at most the sum of the other two"},
    {inertia_triangle, K_BODY, 0, 1,
     "body 'b0': inertia is not a physical inertia tensor: its principal moments (0.1, 0.1, "
     "0.3) kg m^2 must be >= 0 and each at most the sum of the other two"},
    {inertia_huge, K_BODY, 0, 1,
     "body 'b0': inertia[0][0] must be between -1e+15 and 1e+15 (kg m^2), got 1e+308"},
    {inertia_nan, K_BODY, 1, 0,
     "body 'b1': inertia[2][1] must be a finite number (kg m^2), got nan"},
    {parent_point_far, K_JOINT, 1, 1,
     "joint 'j1': parent_point[0] must be between -1e+06 and 1e+06 (m), got -3e+06"},
    {child_point_nan, K_JOINT, 1, 0,
     "joint 'j1': child_point[2] must be a finite number (m), got nan"},
    {axis_zero, K_JOINT, 0, 1, "joint 'j0': axis must be a finite, non-zero vector, got (0, 0, 0)"},
    {child_axis_zero, K_JOINT, 1, 1,
     "joint 'j1': child_axis must be a finite, non-zero vector, got (0, 0, 0)"},
    {axis_inf, K_JOINT, 1, 0,
     "joint 'j1': axis must be a finite, non-zero vector, got (inf, 0, 0)"},
    {z0_huge, K_JOINT, 1, 1, "joint 'j1': z0 must be between -1e+06 and 1e+06 (m), got 1e+308"},
    {zd0_far, K_JOINT, 1, 1, "joint 'j1': zd0 must be between -1e+06 and 1e+06 (m/s), got 2e+06"},
    {z0_revolute_far, K_JOINT, 0, 1,
     "joint 'j0': z0 must be between -1e+06 and 1e+06 (rad), got 2e+06 rad (1.14592e+08 deg)"},
    {zd0_revolute_nan, K_JOINT, 0, 0,
     "joint 'j0': zd0 must be between -1e+06 and 1e+06 (rad/s), got nan rad/s (nan deg/s)"},
    {joint_type, K_JOINT, 1, 0, "joint 'j1': unknown type 7"},
    {marker_far, K_MARKER, 1, 1,
     "marker 'm1': point[2] must be between -1e+06 and 1e+06 (m), got 1e+07"},
    {signal_decreasing, K_SIGNAL, 0, 1,
     "signal 's0': times must increase strictly, but point 2 has t = 0.4 s after t = 0.5 s"},
    {signal_repeated, K_SIGNAL, 0, 1,
     "signal 's0': times must increase strictly, but point 2 has t = 0.5 s after t = 0.5 s"},
    {signal_nan, K_SIGNAL, 0, 0, "signal 's0': point 1 is not finite (t = 0.5 s, value nan)"},
    {signal_empty, K_SIGNAL, 0, 0, "signal 's0' has no points"},
    {signal_interp, K_SIGNAL, 0, 0, "signal 's0': unknown interpolation 5"},
    {load_huge, K_LOAD, 0, 1,
     "load 'l0': vector[0] must be between -1e+12 and 1e+12 (N), got 1e+13"},
    {torque_huge, K_LOAD, 0, 1,
     "load 'l0': vector[2] must be between -1e+12 and 1e+12 (N m), got -2e+12"},
    {load_type, K_LOAD, 0, 0, "load 'l0': unknown type 9"},
    {cut_axis_zero, K_CUT, 0, 1,
     "cut joint 'c0': axis_b must be a finite, non-zero vector, got (0, 0, 0)"},
    {cut_up_oblique, K_CUT, 0, 1,
     "cut joint 'c0': up_a must be perpendicular to axis_a (their unit vectors have a dot "
     "product of 1e-06)"},
    {cut_up_nan, K_CUT, 0, 0, "cut joint 'c0': up_b[0] must be a finite number, got nan"},
    {cut_type, K_CUT, 0, 0, "cut joint 'c0': unknown type 9"},
    {nh_axis_zero, K_NH, 0, 1,
     "nonholonomic constraint 'k0': axis must be a finite, non-zero vector, got (0, 0, 0)"},
    {nh_axis_nan, K_NH, 0, 0,
     "nonholonomic constraint 'k0': axis must be a finite, non-zero vector, got (0, nan, 0)"},
    {nh_type, K_NH, 0, 0, "nonholonomic constraint 'k0': unknown type 4"},
    {nh_no_name, K_NH, 0, 0, "nonholonomic constraint 0 has no name"},
    {nh_duplicate, K_NH, 1, 0, "duplicate nonholonomic constraint name 'k0'"},
    {nh_marker_unknown, K_NH, 0, 1, "nonholonomic constraint 'k0': marker 'm9' does not exist"},
    {nh_marker_ground, K_NH, 0, 1,
     "nonholonomic constraint 'k0': marker 'm3' is on ground (a nonholonomic constraint on "
     "ground constrains nothing)"},
    {nh_too_many, K_NH, 1, 1,
     "nonholonomic constraint 'k1': 2 nonholonomic constraints on a model of 2 coordinates "
     "leave no motion (at most 1)"},
    {nh_along_normal, K_NH, 0, 1,
     "nonholonomic constraint 'k0': axis (0, 0, -1) is not in the plane of motion (normal (0, 0, "
     "1)): at z = 0 it is (0, 0, -1) in the inertial frame"},
    {nh_oblique, K_NH, 0, 1,
     "nonholonomic constraint 'k0': axis (0, 1, 1e-06) is not in the plane of motion (normal (0, "
     "0, 1)): at z = 0 it is (0, 1, 1e-06) in the inertial frame"},
    {nh_turned_body_out, K_NH, 0, 1,
     "nonholonomic constraint 'k0': axis (0, 1, 0) is not in the plane of motion (normal (0, 0, "
     "1)): at z = 0 it is (0, 0, 1) in the inertial frame"},
    {force_huge, K_FORCE, 0, 1,
     "force 'f0': force must be between -1e+12 and 1e+12 (N), got 1e+13"},
    {force_nan, K_FORCE, 0, 0, "force 'f0': force must be a finite number (N), got nan"},
    {force_type, K_FORCE, 0, 0, "force 'f0': unknown type 5"},
    {oil_bulk_zero, K_CIRCUIT, 0, 1,
     "circuit 'oil': oil bulk_modulus must be positive (Pa), got 0"},
    {oil_k_negative, K_CIRCUIT, 0, 1, "circuit 'oil': oil k must be >= 0, got -1"},
    {oil_law, K_CIRCUIT, 0, 0, "circuit 'oil': unknown bulk modulus law 7"},
    {oil_laminar, K_CIRCUIT, 0, 0, "circuit 'oil': unknown laminar law 7"},
    {hose_negative, K_VOLUME, 0, 1, "volume 'V1': hose_volume must be >= 0 (m^3), got -0.0001"},
    {hose_huge, K_VOLUME, 0, 1, "volume 'V1': hose_volume must be at most 1000 (m^3), got 2000"},
    {hose_bulk_negative, K_VOLUME, 1, 1,
     "volume 'V2': hose_bulk_modulus must be positive (Pa), got -1"},
    {hose_zero_no_chamber, K_VOLUME, 0, 1,
     "volume 'V1': hose volume 0 is allowed only for a cylinder chamber (it would hold no oil)"},
    {p0_negative, K_VOLUME, 0, 1, "volume 'V1': p0 must be >= 0 (Pa, absolute), got -1e+09"},
    {p0_huge, K_VOLUME, 0, 1, "volume 'V1': p0 must be at most 1e+10 (Pa, absolute), got 2e+10"},
    {p0_inf, K_VOLUME, 0, 0, "volume 'V1': p0 must be a finite number (Pa, absolute), got inf"},
    {source_negative, K_SOURCE, 1, 1, "source 'T': pressure must be >= 0 (Pa, absolute), got -1"},
    {throttle_cv_zero, K_THROTTLE, 0, 1,
     "throttle 't0': cv must be positive (m^3/(s sqrt(Pa))), got 0"},
    {throttle_cv_huge, K_THROTTLE, 0, 1,
     "throttle 't0': cv must be at most 1 (m^3/(s sqrt(Pa))), got 2"},
    {throttle_dp_lim_zero, K_THROTTLE, 0, 1, "throttle 't0': dp_lim must be positive (Pa), got 0"},
    {throttle_dp_reg_zero, K_THROTTLE, 0, 1, "throttle 't0': dp_reg must be positive (Pa), got 0"},
    {throttle_law_bad, K_THROTTLE, 0, 0,
     "throttle 't0': unknown law 7 (laminar_transition or turbulent)"},
    {throttle_one_way_two, K_THROTTLE, 0, 0, "throttle 't0': one_way must be 0 or 1, got 2"},
    {valve_cv_negative, K_VALVE, 0, 1,
     "valve 'd0': cv must be positive (m^3/(s V sqrt(Pa))), got -1e-08"},
    {valve_tau_zero, K_VALVE, 0, 1, "valve 'd0': tau must be positive (s), got 0"},
    {valve_dp_lim_negative, K_VALVE, 0, 1, "valve 'd0': dp_lim must be positive (Pa), got -1"},
    {valve_U0_far, K_VALVE, 0, 1, "valve 'd0': U0 must be between -1000 and 1000 (V), got 2000"},
    {valve_centre_bad, K_VALVE, 0, 0,
     "valve 'd0': unknown centre 9 (closed, open, tandem or float)"},
    {valve_open_no_U_max, K_VALVE, 0, 1,
     "valve 'd0': an open, tandem or float centre needs U_max > 0 (V), the spool position where "
     "the centre paths have closed; got 0"},
    {valve_U_max_negative, K_VALVE, 0, 1, "valve 'd0': U_max must be >= 0 (V), got -1"},
    {valve_overlap_beyond, K_VALVE, 0, 1,
     "valve 'd0': overlap -10 V must lie between -U_max and U_max (10 V, both excluded): the "
     "edges would not open, or not close, within the nominal stroke"},
    {valve_overlap_far, K_VALVE, 0, 1,
     "valve 'd0': overlap must be between -1000 and 1000 (V), got 1500"},
    {valve_leakage_negative, K_VALVE, 0, 1,
     "valve 'd0': leakage must be >= 0 (m^3/(s Pa)), got -1e-12"},
    // the file refuses the key itself (tests/hyd/test_hyd_valve.c)
    {valve_cv_centre_closed, K_VALVE, 0, 0,
     "valve 'd0': cv_centre (1e-08) applies to open, tandem and float centres only; this "
     "valve's centre is closed"},
    {valve_cv_centre_huge, K_VALVE, 0, 1,
     "valve 'd0': cv_centre must be at most 1 (m^3/(s sqrt(Pa))), got 2"},
    {check_crack_negative, K_CHECK, 0, 1, "check valve 'k0': p_crack must be >= 0 (Pa), got -1"},
    {check_open_zero, K_CHECK, 0, 1, "check valve 'k0': p_open must be positive (Pa), got 0"},
    {check_cv_nan, K_CHECK, 0, 0,
     "check valve 'k0': cv must be a finite number (m^3/(s sqrt(Pa))), got nan"},
    {check_dp_lim_huge, K_CHECK, 0, 1,
     "check valve 'k0': dp_lim must be at most 1e+10 (Pa), got 2e+10"},
    {relief_set_zero, K_RELIEF, 0, 1, "relief valve 'r0': p_set must be positive (Pa), got 0"},
    {relief_open_negative, K_RELIEF, 0, 1,
     "relief valve 'r0': p_open must be positive (Pa), got -1"},
    {area_a_zero, K_CYLINDER, 0, 1, "cylinder 'cy': area_a must be positive (m^2), got 0"},
    {area_b_huge, K_CYLINDER, 0, 1, "cylinder 'cy': area_b must be at most 1000 (m^2), got 2000"},
    {stroke_zero, K_CYLINDER, 0, 1, "cylinder 'cy': stroke must be positive (m), got 0"},
    {dead_negative, K_CYLINDER, 0, 1, "cylinder 'cy': dead_length must be >= 0 (m), got -1"},
    {cyl_bulk_zero, K_CYLINDER, 0, 1, "cylinder 'cy': bulk_modulus must be positive (Pa), got 0"},
    {viscous_negative, K_CYLINDER, 0, 1, "cylinder 'cy': viscous must be >= 0 (N s/m), got -1"},
    {damper_k_negative, K_CYLINDER, 0, 1, "cylinder 'cy': end_damper k must be >= 0 (N/m), got -1"},
    {damper_c_huge, K_CYLINDER, 0, 1,
     "cylinder 'cy': end_damper c must be at most 1e+15 (N s/m), got 2e+15"},
    {damper_length_negative, K_CYLINDER, 0, 1,
     "cylinder 'cy': end_damper length must be >= 0 (m), got -0.1"},
    {dampers_too_long, K_CYLINDER, 0, 1,
     "cylinder 'cy': the end dampers (length 0.6 m each) must fit in the stroke (1.2 m)"},
    {cyl_init, K_CYLINDER, 0, 0, "cylinder 'cy': unknown initial-state rule 5"},
    {equilibrium_given_p0, K_CYLINDER, 0, 1,
     "cylinder 'cy': initial: equilibrium derives the piston-side pressure, so volume 'V2' must "
     "not give p0 (give it on the rod side 'V3')"},
    {gravity_far, K_OPTION, HY_OPT_GRAVITY, 1,
     "gravity[1] must be between -1000 and 1000 (m/s^2), got -2000"},
    {dt_zero, K_OPTION, HY_OPT_DT, 1, "solver: dt must be positive (s), got 0"},
    {dt_negative, K_OPTION, HY_OPT_DT, 1, "solver: dt must be positive (s), got -0.001"},
    {dt_nan, K_OPTION, HY_OPT_DT, 0, "solver: dt must be a finite number (s), got nan"},
    {t_end_zero, K_OPTION, HY_OPT_T_END, 1, "solver: t_end must be positive (s), got 0"},
    {penalty_zero, K_OPTION, HY_OPT_PENALTY, 1, "solver: penalty must be positive (N/m), got 0"},
    {tol_pos_zero, K_OPTION, HY_OPT_TOL_POS, 1,
     "solver: tol_position must be positive (rad or m), got 0"},
    {tol_p_negative, K_OPTION, HY_OPT_TOL_P, 1,
     "solver: tol_pressure must be positive (Pa), got -1"},
    {max_iter_zero, K_OPTION, HY_OPT_MAX_ITER, 1,
     "solver: max_iterations must be from 1 to 1000000, got 0"},
    {max_iter_huge, K_OPTION, HY_OPT_MAX_ITER, 1,
     "solver: max_iterations must be from 1 to 1000000, got 2000000"},
    {reuse_tangent_two, K_OPTION, HY_OPT_REUSE_TANGENT, 0,
     "solver: reuse_tangent must be 0 or 1 (false or true), got 2"},
    {rcond_one, K_OPTION, HY_OPT_PARTITION_RCOND, 1,
     "solver: partition_rcond must be between 0 and 1 (both excluded), got 1"},
    {rcond_zero, K_OPTION, HY_OPT_PARTITION_RCOND, 1,
     "solver: partition_rcond must be between 0 and 1 (both excluded), got 0"},
    {strict_steps_two, K_OPTION, HY_OPT_STRICT_STEPS, 0,
     "solver: strict_steps must be 0 or 1 (false or true), got 2"},
    {time_steps_three, K_OPTION, HY_OPT_COUNT, 0,
     "solver: time_steps must be 0 or 1 (false or true), got 3"},
    {max_cuts_41, K_OPTION, HY_OPT_MAX_CUTS, 1, "solver: max_cuts must be from 0 to 40, got 41"},
    {max_cuts_negative, K_OPTION, HY_OPT_MAX_CUTS, 1,
     "solver: max_cuts must be from 0 to 40, got -1"},
    {error_control_bad, K_OPTION, HY_OPT_ERROR_CONTROL, 0, "solver: unknown error control 7"},
    {error_tol_pos_zero, K_OPTION, HY_OPT_ERROR_TOL_POS, 1,
     "solver: error_tol_position must be positive (rad or m), got 0"},
    {error_tol_p_negative, K_OPTION, HY_OPT_ERROR_TOL_P, 1,
     "solver: error_tol_pressure must be positive (Pa), got -5"},
    {max_memory_zero, K_OPTION, HY_OPT_MAX_MEMORY, 1,
     "solver: max_memory must be positive (bytes), got 0"},
    {integrator_bad, K_OPTION, HY_OPT_INTEGRATOR, 0, "solver: unknown integrator 99"},
    {formulation_bad, K_OPTION, HY_OPT_FORMULATION, 0, "solver: unknown formulation -1"},
    {tangent_bad, K_OPTION, HY_OPT_TANGENT, 0, "solver: unknown tangent 9"},
};

static const int kNumBad = (int)(sizeof kBad / sizeof kBad[0]);

START_TEST(bad_model_same_error_both_ways) {
  const bad_row* row = &kBad[_i];
  defs d = base();
  row->edit(&d);
  hy_model* m = (hy_model*)&m;  // must be reset to NULL on failure
  hy_error eb;
  memset(&eb, 0, sizeof eb);
  const hy_status sb = build(&d, &m, &eb);
  ck_assert_msg(sb == HY_ERR_MODEL, "row %d: builder gave %d: %s", _i, sb, eb.msg);
  ck_assert_ptr_null(m);
  ck_assert_msg(strcmp(eb.msg, row->msg) == 0, "row %d: builder says\n  %s\nexpected\n  %s", _i,
                eb.msg, row->msg);
  ck_assert_int_eq(eb.src_line, 0);  // built in code: no position
  if (!row->yaml) return;
  emitter* e = malloc(sizeof *e);
  ck_assert_ptr_nonnull(e);
  hy_error ey;
  memset(&ey, 0, sizeof ey);
  const hy_status sy = load(&d, e, &m, &ey);
  char buf[1024];
  hy_error_format(&ey, buf, sizeof buf);
  ck_assert_msg(sy == sb, "row %d: file gave %d: %s\n%s", _i, sy, buf, e->text);
  ck_assert_ptr_null(m);
  ck_assert_msg(strcmp(ey.msg, eb.msg) == 0, "row %d: file says\n  %s\nbuilder says\n  %s", _i,
                ey.msg, eb.msg);
  const hy_srcpos want = e->pos[row->blame][row->index];
  ck_assert_int_gt(want.line, 0);
  ck_assert_msg(ey.src_line == want.line && ey.src_col == want.col,
                "row %d: reported at %d:%d, expected %d:%d (%s)", _i, ey.src_line, ey.src_col,
                want.line, want.col, buf);
  ck_assert_str_eq(ey.src_path, "check.yaml");
  free(e);
}
END_TEST

//----- valid edge cases ----------------------------------------------------------------------

// A row that must pass both ways; `verify` (nullable) looks at the builder's model.
typedef struct good_row {
  void (*edit)(defs* d);
  void (*verify)(const hy_model* m);
} good_row;

static void unchanged(defs* d) { (void)d; }
EDIT(massless_link, d->body[0].mass = 0; memset(d->body[0].inertia, 0, sizeof d->body[0].inertia))
EDIT(nh_none, d->nnh = 0)
EDIT(nh_tiny_axis, v3(d->nh[0].axis, 1e-300, 1e-300, 0))
EDIT(nh_turned_body_in, v3(d->joint[0].child_axis, 0, 1, 0); v3(d->cut.axis_a, 0, 1, 0);
     strcpy(d->nh[0].marker, "m1"); v3(d->nh[0].axis, 0, 0, 5))
// a prismatic joint along the revolute axis: not planar, so the plane rule does not apply
EDIT(nh_normal_not_planar, v3(d->nh[0].axis, 0, 0, 1); v3(d->joint[1].axis, 0, 0, 1);
     v3(d->joint[1].child_axis, 0, 0, 1))
EDIT(mass_max, d->body[0].mass = HY_MAX_MASS)
EDIT(mass_tiny, d->body[1].mass = 1e-12)
EDIT(point_mass, memset(d->body[0].inertia, 0, sizeof d->body[0].inertia))
EDIT(rod_inertia, memset(d->body[0].inertia, 0, sizeof d->body[0].inertia);
     d->body[0].inertia[0] = 1; d->body[0].inertia[4] = 1)
EDIT(inertia_max,
     d->body[0].inertia[0] = d->body[0].inertia[4] = d->body[0].inertia[8] = HY_MAX_INERTIA)
EDIT(inertia_rounded, d->body[1].inertia[1] = 0.01 + 1e-12)
EDIT(axis_huge, v3(d->joint[0].axis, 1e308, 1e308, 0); v3(d->joint[0].child_axis, 1e308, 1e308, 0))
EDIT(axis_tiny, v3(d->joint[1].axis, 1e-300, 0, 0); v3(d->joint[1].child_axis, 1e-300, 0, 0))
EDIT(coords_max, d->joint[1].z0 = -HY_MAX_COORD; d->joint[1].zd0 = HY_MAX_RATE;
     d->joint[1].parent_point[2] = HY_MAX_LENGTH)
EDIT(p0_zero, d->volume[0].p0 = 0)
EDIT(p0_derived, d->volume[0].p0 = NAN)
EDIT(rigid_wall, d->circuit.B_oil = 1e30; d->cylinder.bulk_modulus = 1e30;
     d->volume[0].hose_bulk_modulus = 1e30)
EDIT(source_zero, d->source[1].pressure = 0)
EDIT(no_dampers, d->cylinder.damper_length = 0; d->cylinder.damper_k = 0; d->cylinder.damper_c = 0)
EDIT(equilibrium_rod_p0, d->cylinder.init = HY_CYL_INIT_EQUILIBRIUM; d->volume[2].p0 = 3e6)
EDIT(one_point_signal, d->signal.npoint = 1)
EDIT(up_given, v3(d->cut.up_a, 2, 0, 0); v3(d->cut.up_b, 0, -1, 1e-12))
EDIT(options_low, d->opt.max_cuts = 0; d->opt.max_iter = 1; d->opt.partition_rcond = 1e-9;
     d->opt.gravity[0] = -HY_MAX_GRAVITY)
EDIT(options_high, d->opt.max_cuts = HY_MAX_CUTS; d->opt.max_iter = HY_MAX_ITERATIONS;
     d->opt.partition_rcond = 0.999; d->opt.strict_steps = 1; d->opt.reuse_tangent = 0;
     d->opt.error_control = HY_ERRCTL_PREDICTOR; d->opt.max_memory = 1e12)
EDIT(options_named, d->opt.integrator = HY_INTEG_TRAPEZOIDAL;
     d->opt.formulation = HY_FORM_DOUBLE_STEP; d->opt.tangent = HY_TANGENT_FD)
EDIT(edges_and_options, d->valve.centre = HY_CENTRE_TANDEM; d->valve.U_max = 10;
     d->valve.overlap = -0.5; d->valve.leakage = 1e-13; d->valve.cv_centre = 3e-8;
     d->throttle.law = HY_ORIFICE_TURBULENT; d->throttle.dp_reg = 50; d->throttle.one_way = 1;
     strcpy(d->throttle.signal, "s0"))
EDIT(overlap_near_U_max, d->valve.centre = HY_CENTRE_FLOAT; d->valve.U_max = 10;
     d->valve.overlap = 9.999)

static void verify_edges(const hy_model* m) {
  ck_assert_int_eq(m->vlv_centre[0], HY_CENTRE_TANDEM);
  ck_assert_double_eq(m->vlv_Umax[0], 10);
  ck_assert_double_eq(m->vlv_overlap[0], -0.5);
  ck_assert_double_eq(m->vlv_leak[0], 1e-13);
  ck_assert_double_eq(m->vlv_cv_centre[0], 3e-8);
  ck_assert_int_eq(m->orf_law[0], HY_ORIFICE_TURBULENT);
  ck_assert_double_eq(m->orf_dp_reg[0], 50);
  ck_assert_int_eq(m->orf_one_way[0], 1);
  ck_assert_int_eq(m->orf_sig[0], hy_model_signal(m, "s0"));
}

static void verify_axis_huge(const hy_model* m) {
  double r[3] = {1, 1, 0};  // the axis [1e308, 1e308, 0] is that of [1, 1, 0], to the bit
  hy_v3_normalize(r);
  for (int i = 0; i < 3; i++) ck_assert_double_eq(m->jnt_paxis[i], r[i]);
  ck_assert(m->jnt_shape[0] & HY_JNT_CROT_IDENTITY);
}

static void verify_axis_tiny(const hy_model* m) {
  ck_assert_double_eq(m->jnt_paxis[3], 1.0);  // exactly x
  ck_assert_double_eq(m->jnt_caxis[3], 1.0);
  ck_assert(m->jnt_shape[1] & HY_JNT_AXIS_X);
}

static void verify_symmetric(const hy_model* m) {
  const double* J = m->body_inertia + 9 * 1;
  ck_assert_double_eq(J[1], J[3]);  // symmetrized exactly
}

static void verify_derived(const hy_model* m) { ck_assert(isnan(m->vol_p0[0])); }

static void verify_up(const hy_model* m) {
  ck_assert_double_eq(m->cut_up_a[0], 1.0);
  ck_assert_double_eq(hy_v3_dot(m->cut_up_b, m->cut_axis_b), 0.0);
}

static void verify_massless(const hy_model* m) {
  ck_assert_double_eq(m->body_mass[0], 0.0);
  for (int i = 0; i < 9; i++) ck_assert_double_eq(m->body_inertia[i], 0.0);
}

static void verify_nh(const hy_model* m) {
  ck_assert_int_eq(m->sizes.nnh, 1);
  ck_assert_int_eq(hy_model_nonholonomic(m, "k0"), 0);
  ck_assert_int_eq(hy_model_nonholonomic(m, "k1"), -1);
  ck_assert_str_eq(m->nh_name, "k0");
  ck_assert_int_eq(m->nh_type[0], HY_NONHOLONOMIC_KNIFE_EDGE);
  ck_assert_int_eq(m->nh_mrk[0], hy_model_marker(m, "m2"));
  ck_assert_int_eq(m->mrk_body[m->nh_mrk[0]], hy_model_body(m, "b1"));
  ck_assert_double_eq(m->nh_axis[0], 0.0);  // [0, 2, 0] normalized
  ck_assert_double_eq(m->nh_axis[1], 1.0);
  ck_assert_double_eq(m->nh_axis[2], 0.0);
  ck_assert_int_eq(m->nh_src[0].line, 0);  // built in code
}

static void verify_nh_none(const hy_model* m) {
  ck_assert_int_eq(m->sizes.nnh, 0);
  ck_assert_int_eq(hy_model_nonholonomic(m, "k0"), -1);
}

static void verify_nh_tiny(const hy_model* m) {
  const double r = sqrt(0.5);
  ck_assert_double_eq_tol(m->nh_axis[0], r, 1e-15);
  ck_assert_double_eq_tol(m->nh_axis[1], r, 1e-15);
  ck_assert_double_eq(m->nh_axis[2], 0.0);
}

static void verify_nh_turned(const hy_model* m) {
  ck_assert_int_eq(m->planar, 1);
  ck_assert_int_eq(m->nh_mrk[0], hy_model_marker(m, "m1"));
  ck_assert_double_eq(m->nh_axis[2], 1.0);  // kept in the body's frame
}

static void verify_nh_3d(const hy_model* m) {
  ck_assert_int_eq(m->planar, 0);
  ck_assert_double_eq(m->nh_axis[2], 1.0);
}

static const good_row kGood[] = {
    {unchanged, verify_nh},
    {massless_link, verify_massless},
    {nh_none, verify_nh_none},
    {nh_tiny_axis, verify_nh_tiny},
    {nh_turned_body_in, verify_nh_turned},
    {nh_normal_not_planar, verify_nh_3d},
    {mass_max, NULL},
    {mass_tiny, NULL},
    {point_mass, NULL},
    {rod_inertia, NULL},
    {inertia_max, NULL},
    {inertia_rounded, verify_symmetric},
    {axis_huge, verify_axis_huge},
    {axis_tiny, verify_axis_tiny},
    {coords_max, NULL},
    {p0_zero, NULL},
    {p0_derived, verify_derived},
    {rigid_wall, NULL},
    {source_zero, NULL},
    {no_dampers, NULL},
    {equilibrium_rod_p0, NULL},
    {one_point_signal, NULL},
    {up_given, verify_up},
    {options_low, NULL},
    {options_high, NULL},
    {options_named, NULL},
    {edges_and_options, verify_edges},
    {overlap_near_U_max, NULL},
};

static const int kNumGood = (int)(sizeof kGood / sizeof kGood[0]);

// The two models hold the same values (revolute coordinates within rounding of the degrees of
// the file).
static void assert_same_model(const hy_model* a, const hy_model* b) {
  ck_assert_mem_eq(&a->sizes, &b->sizes, sizeof a->sizes);
  const hy_sizes* sz = &a->sizes;
  for (int i = 0; i < sz->nbody; i++) ck_assert_double_eq(a->body_mass[i], b->body_mass[i]);
  for (int i = 0; i < 9 * sz->nbody; i++) {
    ck_assert_double_eq(a->body_inertia[i], b->body_inertia[i]);
  }
  for (int i = 0; i < 3 * sz->nbody; i++) {
    ck_assert_double_eq(a->jnt_paxis[i], b->jnt_paxis[i]);
    ck_assert_double_eq(a->jnt_cpoint[i], b->jnt_cpoint[i]);
  }
  for (int i = 0; i < sz->nz; i++) {
    ck_assert_double_eq_tol(a->z0[i], b->z0[i], 1e-15 * fmax(1.0, fabs(a->z0[i])));
    ck_assert_double_eq_tol(a->zd0[i], b->zd0[i], 1e-15 * fmax(1.0, fabs(a->zd0[i])));
  }
  for (int i = 0; i < sz->nvol; i++) {
    ck_assert(isnan(a->vol_p0[i]) ? isnan(b->vol_p0[i]) : a->vol_p0[i] == b->vol_p0[i]);
  }
  for (int k = 0; k < sz->nnh; k++) {
    ck_assert_str_eq(a->nh_name + (size_t)k * HY_NAME_MAX, b->nh_name + (size_t)k * HY_NAME_MAX);
    ck_assert_int_eq(a->nh_type[k], b->nh_type[k]);
    ck_assert_int_eq(a->nh_mrk[k], b->nh_mrk[k]);
    for (int i = 0; i < 3; i++) ck_assert_double_eq(a->nh_axis[3 * k + i], b->nh_axis[3 * k + i]);
  }
  ck_assert_double_eq(a->cyl_ld[0], b->cyl_ld[0]);
  ck_assert_int_eq(a->orf_law[0], b->orf_law[0]);
  ck_assert_double_eq(a->orf_dp_reg[0], b->orf_dp_reg[0]);
  ck_assert_int_eq(a->orf_one_way[0], b->orf_one_way[0]);
  ck_assert_int_eq(a->orf_sig[0], b->orf_sig[0]);
  ck_assert_int_eq(a->vlv_centre[0], b->vlv_centre[0]);
  ck_assert_double_eq(a->vlv_Umax[0], b->vlv_Umax[0]);
  ck_assert_double_eq(a->vlv_overlap[0], b->vlv_overlap[0]);
  ck_assert_double_eq(a->vlv_leak[0], b->vlv_leak[0]);
  ck_assert_double_eq(a->vlv_cv_centre[0], b->vlv_cv_centre[0]);
  ck_assert_int_eq(a->opt.max_cuts, b->opt.max_cuts);
  ck_assert_int_eq(a->opt.strict_steps, b->opt.strict_steps);
  ck_assert_int_eq(a->opt.error_control, b->opt.error_control);
  ck_assert_int_eq(a->opt.integrator, b->opt.integrator);
  ck_assert_int_eq(a->opt.formulation, b->opt.formulation);
  ck_assert_double_eq(a->opt.partition_rcond, b->opt.partition_rcond);
  ck_assert_double_eq(a->opt.max_memory, b->opt.max_memory);
}

START_TEST(valid_model_passes_both_ways) {
  const good_row* row = &kGood[_i];
  defs d = base();
  row->edit(&d);
  hy_model* mb = NULL;
  hy_model* my = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_msg(build(&d, &mb, &err) == HY_OK, "row %d: builder: %s", _i, err.msg);
  emitter* e = malloc(sizeof *e);
  ck_assert_ptr_nonnull(e);
  memset(&err, 0, sizeof err);
  char buf[1024];
  const hy_status st = load(&d, e, &my, &err);
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_OK, "row %d: file: %s\n%s", _i, buf, e->text);
  free(e);
  ck_assert_int_eq(hy_model_check(mb, NULL), HY_OK);
  ck_assert_int_eq(hy_model_check(my, NULL), HY_OK);
  assert_same_model(mb, my);
  if (row->verify) row->verify(mb);
  hy_model_free(mb);
  hy_model_free(my);
}
END_TEST

//----- the built-in models -------------------------------------------------------------------

START_TEST(builtin_models_pass) {
  ck_assert_int_ge(hy_builtin_count(), 10);
  for (int i = 0; i < hy_builtin_count(); i++) {
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    ck_assert_msg(hy_model_load_any(hy_builtin_name(i), &m, &err) == HY_OK, "%s: %s",
                  hy_builtin_name(i), err.msg);
    ck_assert_msg(hy_model_check(m, &err) == HY_OK, "%s: %s", hy_builtin_name(i), err.msg);
    hy_model_free(m);
  }
}
END_TEST

//----- options changed after compiling -------------------------------------------------------

START_TEST(changed_option_has_no_file_position) {
  // As the command line does: an option set after loading is checked, and is not blamed on
  // the file's line for that key, which no longer holds it.
  const char* text =
      "bodies: [{name: a, mass: 1}]\n"
      "joints: [{name: j, type: prismatic, parent: ground, child: a}]\n"
      "solver:\n"
      "  max_cuts: 5\n"
      "  dt: 1e-3\n";
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "opt.yaml", &m, &err), HY_OK);
  ck_assert_int_eq(m->opt_src[HY_OPT_MAX_CUTS].line, 4);
  ck_assert_int_eq(m->opt_src[HY_OPT_MAX_CUTS].col, 13);
  ck_assert_int_eq(hy_model_check(m, &err), HY_OK);
  m->opt.max_cuts = 99;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "solver: max_cuts must be from 0 to 40, got 99");
  ck_assert_int_eq(err.src_line, 0);
  ck_assert_str_eq(err.src_path, "opt.yaml");
  m->opt.max_cuts = 5;
  m->opt.dt = -1;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "solver: dt must be positive (s), got -1");
  ck_assert_int_eq(err.src_line, 0);
  // a default never came from the file: no position either
  m->opt.dt = 1e-3;
  m->opt.penalty = 0;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_int_eq(err.src_line, 0);
  m->opt.penalty = 1e11;
  ck_assert_int_eq(hy_model_check(m, &err), HY_OK);
  hy_model_free(m);
  ck_assert_int_eq(hy_model_check(NULL, &err), HY_ERR_ARG);
}
END_TEST

//----- models not made by the compiler -------------------------------------------------------

START_TEST(edited_model_is_refused_without_crashing) {
  // hy_model_check takes any model; indices it follows are checked before it reads through them.
  defs d = base();
  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(build(&d, &m, &err), HY_OK);
  hy_model* c = NULL;
  ck_assert_int_eq(hy_model_copy(m, &c), HY_OK);
  ck_assert_int_eq(hy_model_check(c, &err), HY_OK);
  ck_assert_ptr_eq(c->frc_pos, c->frc_src);  // the former names still work
  ck_assert_ptr_eq(c->vol_pos, c->vol_src);
  c->pvl_kind[0] = 9;
  ck_assert_int_eq(hy_model_check(c, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "pressure valve 'k0': unknown kind 9");
  c->pvl_kind[0] = HY_PRESSURE_VALVE_CHECK;
  c->cyl_vol_a[0] = 1000;
  ck_assert_int_eq(hy_model_check(c, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "out of range"));
  c->cyl_vol_a[0] = m->cyl_vol_a[0];
  c->sig_npoint[0] = 1000;
  ck_assert_int_eq(hy_model_check(c, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "outside the model's table"));
  c->sig_npoint[0] = m->sig_npoint[0];
  c->jnt_zadr[1] = -1;
  ck_assert_int_eq(hy_model_check(c, &err), HY_ERR_MODEL);
  ck_assert_ptr_nonnull(strstr(err.msg, "coordinate -1 out of range"));
  hy_model_free(c);
  hy_model_free(m);
}
END_TEST

//----- unit vectors --------------------------------------------------------------------------

START_TEST(unit_vectors) {
  double u[3];
  // where plain normalization works, the same bits
  const double v[3] = {0.3, -1.7, 2.9};
  double w[3] = {0.3, -1.7, 2.9};
  hy_v3_normalize(w);
  ck_assert_int_eq(hy_model_unit3(u, v), 1);
  for (int i = 0; i < 3; i++) ck_assert_double_eq(u[i], w[i]);
  // squares that overflow or underflow: the bits of the same direction at a safe scale
  const double big[3] = {-1e308, 0, 1e308};
  double ref[3] = {-1, 0, 1};
  hy_v3_normalize(ref);
  ck_assert_int_eq(hy_model_unit3(u, big), 1);
  for (int i = 0; i < 3; i++) ck_assert_double_eq(u[i], ref[i]);
  const double sub[3] = {0, 4e-320, 0};  // subnormal
  ck_assert_int_eq(hy_model_unit3(u, sub), 1);
  ck_assert_double_eq(u[0], 0.0);
  ck_assert_double_eq(u[1], 1.0);
  const double max[3] = {1.7976931348623157e308, 1.7976931348623157e308, 1.7976931348623157e308};
  v3(ref, 1, 1, 1);
  hy_v3_normalize(ref);
  ck_assert_int_eq(hy_model_unit3(u, max), 1);
  for (int i = 0; i < 3; i++) ck_assert_double_eq(u[i], ref[i]);
  // not a direction: left unchanged
  const double bad[4][3] = {{0, 0, 0}, {INFINITY, 0, 0}, {NAN, 1, 0}, {-0.0, 0, 0}};
  for (int k = 0; k < 4; k++) {
    v3(u, 7, 8, 9);
    ck_assert_int_eq(hy_model_unit3(u, bad[k]), 0);
    ck_assert_double_eq(u[0], 7);
  }
}
END_TEST

Suite* model_check_suite(void) {
  Suite* s = suite_create("model_check");
  TCase* tc = tcase_create("bad");
  tcase_add_loop_test(tc, bad_model_same_error_both_ways, 0, kNumBad);
  suite_add_tcase(s, tc);
  tc = tcase_create("good");
  tcase_add_loop_test(tc, valid_model_passes_both_ways, 0, kNumGood);
  tcase_add_test(tc, builtin_models_pass);
  tcase_add_test(tc, changed_option_has_no_file_position);
  tcase_add_test(tc, edited_model_is_refused_without_crashing);
  tcase_add_test(tc, unit_vectors);
  suite_add_tcase(s, tc);
  return s;
}
