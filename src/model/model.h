// Internal header of src/model: the editable spec behind the opaque hy_spec.
#ifndef HYDYN_SRC_MODEL_MODEL_H_
#define HYDYN_SRC_MODEL_MODEL_H_

#include <stddef.h>

#include "hydyn/model.h"

// A check or relief valve as the spec keeps it: the two public definitions differ only in the
// name of the cracking pressure and in its range, so they share one list (in the order added).
typedef struct hy_pressure_valve_spec {
  hy_pressure_valve_kind kind;
  char name[HY_NAME_MAX];
  char from[HY_NAME_MAX];
  char to[HY_NAME_MAX];
  double cv;
  double p_crack;  // p_crack of a check valve, p_set of a relief valve (Pa)
  double p_open;
  double dp_lim;
  hy_srcpos pos;
} hy_pressure_valve_spec;

// The circuits' and volumes' oil tables (law table) are owned by the spec: hy_spec_add_circuit
// and hy_spec_add_volume copy table_p and table_beta, hy_spec_free frees them.
struct hy_spec {
  char name[HY_NAME_MAX];
  char path[256];
  hy_option opt;
  hy_body_def* bodies;
  int nbody, cap_body;
  hy_point_mass_def* pmasses;
  int npmass, cap_pmass;
  hy_joint_def* joints;
  int njoint, cap_joint;
  hy_marker_def* markers;
  int nmarker, cap_marker;
  hy_signal_def* signals;  // t, value and arg owned by the spec
  int nsignal, cap_signal;
  hy_load_def* loads;
  int nload, cap_load;
  hy_cut_def* cuts;
  int ncut, cap_cut;
  hy_nonholonomic_def* nonholonomics;
  int nnonholonomic, cap_nonholonomic;
  hy_coupler_def* couplers;
  int ncoupler, cap_coupler;
  hy_force_def* forces;
  int nforce, cap_force;
  hy_circuit_def* circuits;
  int ncircuit, cap_circuit;
  hy_volume_def* volumes;
  int nvolume, cap_volume;
  hy_source_def* sources;
  int nsource, cap_source;
  hy_pump_def* pumps;
  int npump, cap_pump;
  hy_throttle_def* throttles;
  int nthrottle, cap_throttle;
  hy_valve_def* valves;
  int nvalve, cap_valve;
  hy_pressure_valve_spec* pvalves;  // check and relief valves
  int npvalve, cap_pvalve;
  hy_cylinder_def* cylinders;
  int ncylinder, cap_cylinder;
  hy_accumulator_def* accumulators;
  int naccumulator, cap_accumulator;
  hy_planar planar;  // HY_PLANAR_AUTO unless set by hy_spec_set_planar
  hy_srcpos opt_src[HY_OPT_COUNT];  // where the model file gives each option (0 = not given)
};

// What a signal kind reads (model_signal.c): its parameters in the order of sig_par and how many
// signals it refers to. One table for the compiler, the checker and the YAML loader.
typedef struct hy_signal_par_info {
  const char* key;   // model-file key, and the parameter's name in messages
  size_t offset;     // of its double in hy_signal_def
  const char* unit;  // "s", "Hz", "rad", "-" or "signal unit"
  int required;      // 1: a model file must give it (a builder's default fails hy_model_check)
} hy_signal_par_info;

typedef struct hy_signal_kind_info {
  int npar;                                // parameters, <= HY_SIGNAL_NPAR
  hy_signal_par_info par[HY_SIGNAL_NPAR];  // in sig_par order
  const char* arg_key;  // the model-file key naming the signal referred to ("signal",
                        // "envelope"); NULL: the kind's own value names them (sum: [a, b])
  int min_arg, max_arg;  // how many signals it refers to; max_arg -1: any number
} hy_signal_kind_info;

// The table entry of `kind`, or NULL outside hy_signal_kind.
const hy_signal_kind_info* hy_model_signal_kind(hy_signal_kind kind);
// An oil of a compiled model as the engine and the checker read it (docs/hydraulics.md, "Oil
// laws"): a circuit's, or the own oil of a volume that has one (model_oil.c).
typedef struct hy_oil {
  int law;                 // hy_bulk_law
  double B0;               // B_oil (Pa): constant, linear; the oil of the air law
  double k;                // linear: dB/dp (-)
  double a, b;             // polynomial: rho/rho0 = 1 + a p + b p^2 (1/Pa, 1/Pa^2)
  double air;              // air: volume fraction of air at p_atm (-)
  double n;                // air: polytropic exponent (-)
  double p_atm;            // air: pressure of the fraction (Pa)
  const double* tab_p;     // table: pressures (Pa), tab_n of them in m->bulk_p
  const double* tab_beta;  // table: bulk moduli (Pa), in m->bulk_beta
  int tab_n;               // table: points
} hy_oil;

// The oil of circuit c.
hy_oil hy_model_circuit_oil(const hy_model* m, int c);
// The oil in volume v: its own (vol_law >= 0) or its circuit's.
hy_oil hy_model_volume_oil(const hy_model* m, int v);
// How the evaluation finds volume v's oil modulus (hy_model.vol_oil_fast): HY_BULK_CONSTANT or
// HY_BULK_LINEAR when v takes its circuit's oil and that law is one of the two (inline, as
// models without the other laws always did), -1 otherwise (hy_hyd_fluid_modulus).
int hy_model_oil_fast(const hy_model* m, int v);

// Whether directional valve v takes its metering edges from tables (docs/hydraulics.md,
// "Metering edges from tables"): its P->A table, which hy_model_check makes such a valve have.
static inline int hy_model_valve_tables(const hy_model* m, int v) {
  return m->vlv_edge_n[HY_VALVE_PATHS * v] > 0;
}

// The spec as the compiler takes it (model_joint.c): each body with its point masses merged in
// (after hy_model_check_body_def and hy_model_check_point_mass), each joint checked by
// hy_model_check_joint_def, and each joint of several coordinates replaced by its chain of
// revolute and prismatic joints through massless bodies, the bodies of a chain just before its
// child (docs/mechanics.md, "Joints of several coordinates"). spec is a shallow copy of the
// given spec with its own bodies and joints, or the spec itself (kind NULL) when there is
// nothing to do. Needs a spec whose tree the compiler has checked.
typedef struct hy_expanded {
  hy_spec spec;
  int* kind;    // per joint of spec: the hy_joint_type of the joint it comes from (or NULL)
  int* part;    // per joint of spec: its coordinate in that joint, 0-based
  int ngimbal;  // spherical and free joints: their Cardan charts
  hy_body_def* bodies_;  // owned by the expansion
  hy_joint_def* joints_;
  const hy_point_mass_def** on_;
} hy_expanded;
hy_status hy_model_expand(const hy_spec* s, hy_expanded* x, hy_error* err);
void hy_model_expanded_free(hy_expanded* x);
// The coordinate of a joint of type `kind` that is the middle Cardan angle (spherical: 1, free:
// 4), or -1.
int hy_model_gimbal_part(int kind);
// The Cardan chart that joint j is an angle of (its place in the chart, 0-2, in *k), or -1.
int hy_model_joint_chart(const hy_model* m, int j, int* k);
// Name of the joint definition compiled joint j comes from (its own, or that of the joint of
// several coordinates whose chain it is part of), into buf.
const char* hy_model_joint_def_name(const hy_model* m, int j, char buf[HY_NAME_MAX]);

// The model checker's rules on definitions that the compiled model no longer shows as given
// (model_check.c), with the position of the definition in the model file `path`: a joint (a
// joint of several coordinates whole, with the keys of its definition; of every joint, that
// z0s and zd0s beyond its coordinates are 0), a body that has point masses (before they are
// merged into it), and point mass `index` of its body's.
hy_status hy_model_check_joint_def(const char* path, const hy_joint_def* jd, hy_error* err);
hy_status hy_model_check_body_def(const char* path, const hy_body_def* b, hy_error* err);
hy_status hy_model_check_point_mass(const char* path, const hy_point_mass_def* p, int index,
                                    hy_error* err);

// Allocates the arrays of a model of the given sizes in one buffer (zeroed).
hy_status hy_model_alloc(const hy_sizes* sz, hy_model** out);

// The unit vector along v in out. Any finite non-zero v works: where its squared norm would
// overflow or underflow, v is first divided by its largest component; elsewhere the result has
// the bits of plain normalization. Returns 0 (out unchanged) when a component of v is not
// finite, or v is zero.
int hy_model_unit3(double out[3], const double v[3]);

#endif  // HYDYN_SRC_MODEL_MODEL_H_
