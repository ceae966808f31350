// The editable model: growable arrays of definitions, copied in by the builder API.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "model/model.h"

hy_body_def hy_body_def_default(void) {
  hy_body_def d;
  memset(&d, 0, sizeof d);
  return d;
}

hy_point_mass_def hy_point_mass_def_default(void) {
  hy_point_mass_def d;
  memset(&d, 0, sizeof d);
  return d;
}

// axis2 +y: with the default axes +z, a spherical joint's angles are then the yaw, pitch and
// roll of the sequence z, y, x.
hy_joint_def hy_joint_def_default(void) {
  hy_joint_def d;
  memset(&d, 0, sizeof d);
  d.type = HY_JOINT_REVOLUTE;
  strcpy(d.parent, "ground");
  d.axis[2] = 1.0;
  d.child_axis[2] = 1.0;
  d.axis2[1] = 1.0;
  return d;
}

hy_marker_def hy_marker_def_default(void) {
  hy_marker_def d;
  memset(&d, 0, sizeof d);
  strcpy(d.body, "ground");
  return d;
}

hy_signal_def hy_signal_def_default(void) {
  hy_signal_def d;
  memset(&d, 0, sizeof d);
  d.interp = HY_INTERP_LINEAR;
  d.kind = HY_SIGNAL_TABLE;
  d.to = 1.0;
  d.amplitude = 1.0;
  d.gain = 1.0;
  d.min = -INFINITY;
  d.max = INFINITY;
  return d;
}

hy_load_def hy_load_def_default(void) {
  hy_load_def d;
  memset(&d, 0, sizeof d);
  d.type = HY_LOAD_FORCE;
  return d;
}

hy_cut_def hy_cut_def_default(void) {
  hy_cut_def d;
  memset(&d, 0, sizeof d);
  d.type = HY_CUT_REVOLUTE;
  d.axis_a[2] = 1.0;
  d.axis_b[2] = 1.0;
  return d;
}

// The axis stays zero: a knife edge has no natural direction, so one must be given (the
// checker refuses a zero axis).
hy_nonholonomic_def hy_nonholonomic_def_default(void) {
  hy_nonholonomic_def d;
  memset(&d, 0, sizeof d);
  d.type = HY_NONHOLONOMIC_KNIFE_EDGE;
  return d;
}

hy_coupler_def hy_coupler_def_default(void) {
  hy_coupler_def d;
  memset(&d, 0, sizeof d);
  d.ratio = 1.0;
  d.offset = NAN;  // derived by the compiler from the joints' z0
  return d;
}

hy_force_def hy_force_def_default(void) {
  hy_force_def d;
  memset(&d, 0, sizeof d);
  d.type = HY_FORCE_ACTUATOR;
  return d;
}

// The air law's defaults (docs/hydraulics.md, "Oil laws"): an adiabatic exponent, for the fast
// compressions of a dynamic run, and the standard atmosphere.
static const double kDefaultPolytropic = 1.4, kDefaultPAtm = 101325.0;

hy_circuit_def hy_circuit_def_default(void) {
  hy_circuit_def d;
  memset(&d, 0, sizeof d);
  d.law = HY_BULK_CONSTANT;
  d.laminar = HY_LAMINAR_CUBIC;
  d.polytropic = kDefaultPolytropic;
  d.p_atm = kDefaultPAtm;
  return d;
}

hy_oil_def hy_oil_def_default(void) {
  hy_oil_def d;
  memset(&d, 0, sizeof d);
  d.law = HY_BULK_CONSTANT;
  d.polytropic = kDefaultPolytropic;
  d.p_atm = kDefaultPAtm;
  return d;
}

hy_accumulator_def hy_accumulator_def_default(void) {
  hy_accumulator_def d;
  memset(&d, 0, sizeof d);
  d.polytropic = kDefaultPolytropic;
  return d;
}

hy_volume_def hy_volume_def_default(void) {
  hy_volume_def d;
  memset(&d, 0, sizeof d);
  d.p0 = NAN;  // derived by hy_hyd_initial_state unless given
  d.oil = hy_oil_def_default();
  return d;
}

hy_source_def hy_source_def_default(void) {
  hy_source_def d;
  memset(&d, 0, sizeof d);
  return d;
}

// A fixed-displacement pump without leakage: displacement and speed must be set.
hy_pump_def hy_pump_def_default(void) {
  hy_pump_def d;
  memset(&d, 0, sizeof d);
  d.kind = HY_PUMP_FIXED;
  return d;
}

// 2 bar: the laminar limit of seed 000 Sect. 3.1 and seed 003 Eq. 6.
static const double kDefaultDpLim = 2e5;

// 100 Pa: where the turbulent law of a throttle turns into its cubic regularization
// (docs/hydraulics.md, "Throttle options"), far below working pressure differences.
static const double kDefaultDpReg = 100;

hy_throttle_def hy_throttle_def_default(void) {
  hy_throttle_def d;
  memset(&d, 0, sizeof d);
  d.dp_lim = kDefaultDpLim;
  d.law = HY_ORIFICE_LAMINAR_TRANSITION;
  d.dp_reg = kDefaultDpReg;
  return d;
}

hy_valve_def hy_valve_def_default(void) {
  hy_valve_def d;
  memset(&d, 0, sizeof d);
  d.dp_lim = kDefaultDpLim;
  d.centre = HY_CENTRE_CLOSED;
  d.spool = HY_SPOOL_FIRST_ORDER;
  d.saturation = INFINITY;
  d.units = HY_VALVE_VOLTS;
  d.init = HY_VALVE_INIT_GIVEN;
  return d;
}

hy_check_valve_def hy_check_valve_def_default(void) {
  hy_check_valve_def d;
  memset(&d, 0, sizeof d);
  d.dp_lim = kDefaultDpLim;
  return d;
}

hy_relief_valve_def hy_relief_valve_def_default(void) {
  hy_relief_valve_def d;
  memset(&d, 0, sizeof d);
  d.dp_lim = kDefaultDpLim;
  return d;
}

hy_friction_def hy_friction_def_default(void) {
  hy_friction_def d;
  memset(&d, 0, sizeof d);
  d.law = HY_FRICTION_NONE;
  d.viscous_tanh4 = 1;  // seed 002 Eq. 24, the paper whose laws these are
  d.exponent = 2;       // the Gaussian Stribeck curve of the original LuGre paper
  d.smoothing = 1e-5;   // m/s (docs/friction.md, "Smoothing")
  return d;
}

int hy_friction_nstates(hy_friction_law law) {
  switch (law) {
    case HY_FRICTION_LUGRE: return 1;
    case HY_FRICTION_LUGRE_FILM: return 2;
    default: return 0;
  }
}

const char* hy_friction_state_name(hy_friction_law law, int k) {
  if (k < 0 || k >= hy_friction_nstates(law)) return "";
  return k == 0 ? "q" : "h";
}

const char* hy_friction_state_unit(hy_friction_law law, int k) {
  if (k < 0 || k >= hy_friction_nstates(law)) return "";
  return k == 0 ? "m" : "-";
}

hy_cylinder_def hy_cylinder_def_default(void) {
  hy_cylinder_def d;
  memset(&d, 0, sizeof d);
  d.init = HY_CYL_INIT_GIVEN;
  d.friction = hy_friction_def_default();
  return d;
}

hy_status hy_spec_create(hy_spec** out) {
  if (!out) return HY_ERR_ARG;
  hy_spec* s = hy_calloc(1, sizeof *s);
  if (!s) return HY_ERR_NOMEM;
  s->opt = hy_option_default();
  s->planar = HY_PLANAR_AUTO;
  *out = s;
  return HY_OK;
}

// Frees the copies of a valve's metering-edge tables (hy_spec_add_valve).
static void free_edges(hy_valve_def* v) {
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    hy_free((void*)v->edge_U[k]);
    hy_free((void*)v->edge_C[k]);
    v->edge_U[k] = v->edge_C[k] = NULL;
  }
}

void hy_spec_free(hy_spec* s) {
  if (!s) return;
  for (int i = 0; i < s->nsignal; i++) {
    hy_free((void*)s->signals[i].t);
    hy_free((void*)s->signals[i].value);
    hy_free((void*)s->signals[i].arg);
  }
  hy_free(s->bodies);
  hy_free(s->pmasses);
  hy_free(s->joints);
  hy_free(s->markers);
  hy_free(s->signals);
  hy_free(s->loads);
  hy_free(s->cuts);
  hy_free(s->nonholonomics);
  hy_free(s->couplers);
  hy_free(s->forces);
  for (int i = 0; i < s->ncircuit; i++) {
    hy_free((void*)s->circuits[i].table_p);
    hy_free((void*)s->circuits[i].table_beta);
  }
  for (int i = 0; i < s->nvolume; i++) {
    hy_free((void*)s->volumes[i].oil.table_p);
    hy_free((void*)s->volumes[i].oil.table_beta);
  }
  hy_free(s->circuits);
  hy_free(s->volumes);
  hy_free(s->accumulators);
  hy_free(s->sources);
  hy_free(s->pumps);
  hy_free(s->throttles);
  for (int i = 0; i < s->nvalve; i++) free_edges(&s->valves[i]);
  hy_free(s->valves);
  hy_free(s->pvalves);
  hy_free(s->cylinders);
  hy_free(s);
}

hy_status hy_spec_set_name(hy_spec* s, const char* name, const char* path) {
  if (!s || !name) return HY_ERR_ARG;
  snprintf(s->name, sizeof s->name, "%s", name);
  snprintf(s->path, sizeof s->path, "%s", path ? path : "");
  return HY_OK;
}

hy_status hy_spec_set_option(hy_spec* s, const hy_option* opt) {
  if (!s || !opt) return HY_ERR_ARG;
  s->opt = *opt;
  return HY_OK;
}

// Makes room for one more element of `elem` bytes in *arr (count n, capacity *cap).
static hy_status grow(void** arr, int n, int* cap, size_t elem) {
  if (n < *cap) return HY_OK;
  int new_cap = *cap ? 2 * *cap : 8;
  void* p = hy_malloc((size_t)new_cap * elem);
  if (!p) return HY_ERR_NOMEM;
  if (n) memcpy(p, *arr, (size_t)n * elem);
  hy_free(*arr);
  *arr = p;
  *cap = new_cap;
  return HY_OK;
}

#define HY_SPEC_ADD_(s, arr, n, cap, def)                                   \
  do {                                                                       \
    if (!(s) || !(def)) return HY_ERR_ARG;                                   \
    HY_TRY(grow((void**)&(s)->arr, (s)->n, &(s)->cap, sizeof *(s)->arr));    \
    (s)->arr[(s)->n++] = *(def);                                             \
  } while (0)

hy_status hy_spec_add_body(hy_spec* s, const hy_body_def* def) {
  HY_SPEC_ADD_(s, bodies, nbody, cap_body, def);
  return HY_OK;
}

hy_status hy_spec_add_point_mass(hy_spec* s, const hy_point_mass_def* def) {
  HY_SPEC_ADD_(s, pmasses, npmass, cap_pmass, def);
  return HY_OK;
}

hy_status hy_spec_add_joint(hy_spec* s, const hy_joint_def* def) {
  HY_SPEC_ADD_(s, joints, njoint, cap_joint, def);
  return HY_OK;
}

hy_status hy_spec_add_marker(hy_spec* s, const hy_marker_def* def) {
  HY_SPEC_ADD_(s, markers, nmarker, cap_marker, def);
  return HY_OK;
}

hy_status hy_spec_add_load(hy_spec* s, const hy_load_def* def) {
  HY_SPEC_ADD_(s, loads, nload, cap_load, def);
  return HY_OK;
}

hy_status hy_spec_add_cut(hy_spec* s, const hy_cut_def* def) {
  HY_SPEC_ADD_(s, cuts, ncut, cap_cut, def);
  return HY_OK;
}

hy_status hy_spec_add_nonholonomic(hy_spec* s, const hy_nonholonomic_def* def) {
  HY_SPEC_ADD_(s, nonholonomics, nnonholonomic, cap_nonholonomic, def);
  return HY_OK;
}

hy_status hy_spec_add_coupler(hy_spec* s, const hy_coupler_def* def) {
  HY_SPEC_ADD_(s, couplers, ncoupler, cap_coupler, def);
  return HY_OK;
}

hy_status hy_spec_add_force(hy_spec* s, const hy_force_def* def) {
  HY_SPEC_ADD_(s, forces, nforce, cap_force, def);
  return HY_OK;
}

// Copies of a table's n points (an oil's [p, beta], a valve edge's [U, C]) into *p and *beta
// (both NULL for n <= 0, which the table law refuses in hy_model_check); nothing is allocated
// on failure.
static hy_status copy_table(int n, const double* p_in, const double* beta_in, const double** p,
                            const double** beta) {
  *p = *beta = NULL;
  if (n <= 0) return HY_OK;
  if (!p_in || !beta_in) return HY_ERR_ARG;
  double* cp = hy_malloc(sizeof(double) * (size_t)n);
  double* cb = hy_malloc(sizeof(double) * (size_t)n);
  if (!cp || !cb) {
    hy_free(cp);
    hy_free(cb);
    return HY_ERR_NOMEM;
  }
  memcpy(cp, p_in, sizeof(double) * (size_t)n);
  memcpy(cb, beta_in, sizeof(double) * (size_t)n);
  *p = cp;
  *beta = cb;
  return HY_OK;
}

hy_status hy_spec_add_circuit(hy_spec* s, const hy_circuit_def* def) {
  if (!s || !def) return HY_ERR_ARG;
  hy_circuit_def copy = *def;
  const int tab = def->law == HY_BULK_TABLE ? def->table_n : 0;  // other laws do not read it
  copy.table_n = tab;
  HY_TRY(copy_table(tab, def->table_p, def->table_beta, &copy.table_p, &copy.table_beta));
  hy_status st = grow((void**)&s->circuits, s->ncircuit, &s->cap_circuit, sizeof *s->circuits);
  if (st != HY_OK) {
    hy_free((void*)copy.table_p);
    hy_free((void*)copy.table_beta);
    return st;
  }
  s->circuits[s->ncircuit++] = copy;
  return HY_OK;
}

hy_status hy_spec_add_volume(hy_spec* s, const hy_volume_def* def) {
  if (!s || !def) return HY_ERR_ARG;
  hy_volume_def copy = *def;
  const int tab = def->own_oil && def->oil.law == HY_BULK_TABLE ? def->oil.table_n : 0;
  copy.oil.table_n = tab;
  HY_TRY(copy_table(tab, def->oil.table_p, def->oil.table_beta, &copy.oil.table_p,
                    &copy.oil.table_beta));
  hy_status st = grow((void**)&s->volumes, s->nvolume, &s->cap_volume, sizeof *s->volumes);
  if (st != HY_OK) {
    hy_free((void*)copy.oil.table_p);
    hy_free((void*)copy.oil.table_beta);
    return st;
  }
  s->volumes[s->nvolume++] = copy;
  return HY_OK;
}

hy_status hy_spec_add_source(hy_spec* s, const hy_source_def* def) {
  HY_SPEC_ADD_(s, sources, nsource, cap_source, def);
  return HY_OK;
}

hy_status hy_spec_add_pump(hy_spec* s, const hy_pump_def* def) {
  HY_SPEC_ADD_(s, pumps, npump, cap_pump, def);
  return HY_OK;
}

hy_status hy_spec_add_throttle(hy_spec* s, const hy_throttle_def* def) {
  HY_SPEC_ADD_(s, throttles, nthrottle, cap_throttle, def);
  return HY_OK;
}

// The metering-edge tables are copied like the oil tables (copy_table), the copies owned by the
// spec; nothing is kept on failure.
hy_status hy_spec_add_valve(hy_spec* s, const hy_valve_def* def) {
  if (!s || !def) return HY_ERR_ARG;
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    if (def->edge_n[k] < 0) return HY_ERR_ARG;
  }
  hy_valve_def copy = *def;
  hy_status st = HY_OK;
  for (int k = 0; k < HY_VALVE_PATHS; k++) copy.edge_U[k] = copy.edge_C[k] = NULL;
  for (int k = 0; k < HY_VALVE_PATHS && st == HY_OK; k++) {
    st = copy_table(def->edge_n[k], def->edge_U[k], def->edge_C[k], &copy.edge_U[k],
                    &copy.edge_C[k]);
  }
  if (st == HY_OK) st = grow((void**)&s->valves, s->nvalve, &s->cap_valve, sizeof *s->valves);
  if (st != HY_OK) {
    free_edges(&copy);
    return st;
  }
  s->valves[s->nvalve++] = copy;
  return HY_OK;
}

// Check and relief valves are one element of the compiled model (a pressure valve with a kind);
// p_crack holds a relief valve's p_set.
static hy_status add_pressure_valve(hy_spec* s, hy_pressure_valve_kind kind, const char* name,
                                    const char* from, const char* to, double cv, double p_crack,
                                    double p_open, double dp_lim, hy_srcpos pos) {
  hy_pressure_valve_spec v = {.kind = kind,
                              .cv = cv,
                              .p_crack = p_crack,
                              .p_open = p_open,
                              .dp_lim = dp_lim,
                              .pos = pos};
  memcpy(v.name, name, HY_NAME_MAX);
  memcpy(v.from, from, HY_NAME_MAX);
  memcpy(v.to, to, HY_NAME_MAX);
  const hy_pressure_valve_spec* pv = &v;
  HY_SPEC_ADD_(s, pvalves, npvalve, cap_pvalve, pv);
  return HY_OK;
}

hy_status hy_spec_add_check_valve(hy_spec* s, const hy_check_valve_def* def) {
  if (!def) return HY_ERR_ARG;
  return add_pressure_valve(s, HY_PRESSURE_VALVE_CHECK, def->name, def->from, def->to, def->cv,
                            def->p_crack, def->p_open, def->dp_lim, def->pos);
}

hy_status hy_spec_add_relief_valve(hy_spec* s, const hy_relief_valve_def* def) {
  if (!def) return HY_ERR_ARG;
  return add_pressure_valve(s, HY_PRESSURE_VALVE_RELIEF, def->name, def->from, def->to, def->cv,
                            def->p_set, def->p_open, def->dp_lim, def->pos);
}

hy_status hy_spec_add_cylinder(hy_spec* s, const hy_cylinder_def* def) {
  HY_SPEC_ADD_(s, cylinders, ncylinder, cap_cylinder, def);
  return HY_OK;
}

hy_status hy_spec_add_accumulator(hy_spec* s, const hy_accumulator_def* def) {
  HY_SPEC_ADD_(s, accumulators, naccumulator, cap_accumulator, def);
  return HY_OK;
}

hy_status hy_spec_set_planar(hy_spec* s, hy_planar planar) {
  if (!s) return HY_ERR_ARG;
  if (planar != HY_PLANAR_AUTO && planar != HY_PLANAR_YES && planar != HY_PLANAR_NO) {
    return HY_ERR_ARG;
  }
  s->planar = planar;
  return HY_OK;
}

// The names of the signals a signal refers to, copied into one block: narg pointers followed by
// their names (HY_NAME_MAX bytes each). NULL for none.
static char** copy_args(int narg, const char* const* arg) {
  if (narg == 0) return NULL;
  char** out = hy_malloc((size_t)narg * (sizeof(char*) + HY_NAME_MAX));
  if (!out) return NULL;
  char* names = (char*)(out + narg);
  for (int i = 0; i < narg; i++) {
    out[i] = names + (size_t)i * HY_NAME_MAX;
    memcpy(out[i], arg[i], strlen(arg[i]) + 1);
  }
  return out;
}

hy_status hy_spec_add_signal(hy_spec* s, const hy_signal_def* def) {
  if (!s || !def || def->npoint < 0 || (def->npoint > 0 && (!def->t || !def->value)) ||
      def->narg < 0 || (def->narg > 0 && !def->arg)) {
    return HY_ERR_ARG;
  }
  for (int i = 0; i < def->narg; i++) {
    if (!def->arg[i] || strlen(def->arg[i]) >= HY_NAME_MAX) return HY_ERR_ARG;
  }
  size_t bytes = (size_t)(def->npoint > 0 ? def->npoint : 1) * sizeof(double);
  double* t = hy_malloc(bytes);
  double* v = hy_malloc(bytes);
  char** arg = copy_args(def->narg, def->arg);
  if (!t || !v || (def->narg > 0 && !arg)) {
    hy_free(t);
    hy_free(v);
    hy_free(arg);
    return HY_ERR_NOMEM;
  }
  if (def->npoint > 0) {
    memcpy(t, def->t, (size_t)def->npoint * sizeof(double));
    memcpy(v, def->value, (size_t)def->npoint * sizeof(double));
  }
  hy_status st = grow((void**)&s->signals, s->nsignal, &s->cap_signal, sizeof *s->signals);
  if (st != HY_OK) {
    hy_free(t);
    hy_free(v);
    hy_free(arg);
    return st;
  }
  hy_signal_def copy = *def;
  copy.t = t;
  copy.value = v;
  copy.arg = (const char* const*)arg;
  s->signals[s->nsignal++] = copy;
  return HY_OK;
}
