// hydyn models: the editable specification (builder API), its compilation into the flat,
// immutable hy_model, and loading from YAML model files.
#ifndef HYDYN_MODEL_H_
#define HYDYN_MODEL_H_

#include <math.h>

#include "hydyn/types.h"

#ifdef __cplusplus
extern "C" {
#endif

//----- source positions --------------------------------------------------------------------

// Where a definition came from in a model file (line and column 1-based; 0 = built in code).
typedef struct hy_srcpos {
  int line;
  int col;
} hy_srcpos;

//----- value ranges ------------------------------------------------------------------------

// Bounds hy_model_check puts on the values of a model (docs/model-format.md, "Value ranges").
// They are far beyond any machine and catch unit slips and values whose products overflow
// (energies, the Newton tangent). Every value must also be finite.
#define HY_MAX_MASS 1e9          // body mass (kg)
#define HY_MAX_INERTIA 1e15      // magnitude of an inertia tensor entry (kg m^2)
#define HY_MAX_LENGTH 1e6        // magnitude of a point's coordinate, a stroke or a length (m)
#define HY_MAX_COORD 1e6         // magnitude of an initial coordinate z0 (rad or m)
#define HY_MAX_RATE 1e6          // magnitude of an initial velocity zd0 (rad/s or m/s)
#define HY_MAX_FORCE 1e12        // magnitude of a load (N or N m) or actuator force (N)
#define HY_MAX_GRAVITY 1e3       // magnitude of a gravity component (m/s^2)
#define HY_MAX_PRESSURE 1e10     // absolute pressures and pressure differences (Pa)
#define HY_MAX_VOLUME 1e3        // hose volume (m^3)
#define HY_MAX_AREA 1e3          // cylinder area (m^2)
#define HY_MAX_CV 1.0            // flow coefficient (m^3/(s sqrt(Pa)), valves per volt)
#define HY_MAX_DISPLACEMENT 1.0  // pump displacement (m^3/rev; 1e-6 = 1 cm^3/rev)
#define HY_MAX_SPEED 1e3         // pump shaft speed (rev/s; 60000 rpm)
#define HY_MAX_LEAKAGE 1e-3      // laminar leakage coefficient of a pump or valve edge (m^3/(s Pa))
#define HY_MAX_VOLTAGE 1e3       // magnitude of a spool position (V)
#define HY_MAX_FREQUENCY 1e6     // natural frequency of a second-order spool (Hz)
#define HY_MAX_DAMPING_RATIO 1e3 // damping ratio of a second-order spool (-)
#define HY_MAX_COEFFICIENT 1e15  // viscous and end-damper coefficients (N s/m, N/m)
#define HY_MAX_JOINT_DAMPING 1e9   // a joint's viscous damping (N m s/rad or N s/m)
#define HY_MAX_ITERATIONS 1000000  // solver max_iterations
#define HY_MAX_CUTS 40           // solver max_cuts: the smallest step is dt / 2^40
#define HY_MAX_RATIO 1e6         // magnitude of a coupler's ratio ((m or rad)/(m or rad))
#define HY_MIN_RATIO 1e-6        // and its smallest magnitude (0 would uncouple the joints)

// The bulk modulus of a rigid wall: a cylinder's bulk_modulus or a volume's hose_bulk_modulus
// of HY_RIGID (`rigid` in a model file) adds no compliance term V/B to the volume it bounds.
#define HY_RIGID INFINITY

//----- definitions (builder API) -----------------------------------------------------------

// A rigid body. Its frame is fixed to it; the centre of mass and inertia are given in it.
typedef struct hy_body_def {
  char name[HY_NAME_MAX];
  double mass;          // kg, >= 0 (0: a massless link; the tree's mass matrix must stay
                        // positive definite)
  double com[3];        // centre of mass in the body frame (m)
  double inertia[9];    // inertia tensor about the centre of mass, body frame (kg m^2)
  hy_srcpos pos;
} hy_body_def;

// A point mass fixed to a body. The compiler merges a body's point masses into its mass, centre
// of mass and inertia (docs/model-format.md, "bodies"), so a body may be massless but for them.
typedef struct hy_point_mass_def {
  char body[HY_NAME_MAX];
  double mass;      // kg, >= 0
  double point[3];  // in the body frame (m)
  hy_srcpos pos;
} hy_point_mass_def;

// A joint attaching `child` to `parent` (the name "ground" is the inertial frame). Every body is
// the child of exactly one joint, so bodies and joints form a tree rooted at ground.
// At z = 0 the child's frame is placed so that child_point coincides with parent_point and
// child_axis is turned onto axis by the smallest rotation. A joint of several coordinates
// (universal, cylindrical, spherical, free) compiles into a chain of hy_joint_type_nz(type)
// revolute and prismatic joints named "<name>.1", "<name>.2", ... through massless bodies of
// the same names (docs/model-format.md, "joints"; docs/mechanics.md).
typedef struct hy_joint_def {
  char name[HY_NAME_MAX];
  char parent[HY_NAME_MAX];
  char child[HY_NAME_MAX];
  hy_joint_type type;
  double parent_point[3];  // joint point in the parent frame (m)
  double child_point[3];   // joint point in the child frame (m)
  double axis[3];          // joint axis in the parent frame (normalized by the compiler)
  double child_axis[3];    // joint axis in the child frame (normalized by the compiler)
  double axis2[3];         // universal, spherical, free: the second axis of rotation, in the
                           // child frame, perpendicular to child_axis (default +y)
  // Initial coordinates (rad or m) and velocities (rad/s or m/s) in the order of the joint's
  // coordinates (hy_joint_coord_type); z0 and zd0 are the first, the only one of a revolute or
  // prismatic joint. Entries beyond the joint's coordinates must stay 0.
  union {
    double z0;
    double z0s[HY_JOINT_NZ_MAX];
  };
  union {
    double zd0;
    double zd0s[HY_JOINT_NZ_MAX];
  };
  int independent;         // 1 = the double-step method starts with this coordinate (all of a
                           // joint's coordinates) independent
  // Viscous damping of each coordinate, c_i >= 0 (N m s/rad for an angle, N s/m for a slide),
  // default 0 (none): the generalized force -c_i zd_i on coordinate i (docs/model-format.md,
  // "joints"). Of a joint of several coordinates it damps each Cardan angle's or slide's rate,
  // in the order of hy_joint_coord_type; entries beyond the joint's coordinates must stay 0.
  union {
    double damping;
    double dampings[HY_JOINT_NZ_MAX];
  };
  hy_srcpos pos;
} hy_joint_def;

// Number of coordinates of a joint of type t: 1 (revolute, prismatic), 2 (universal,
// cylindrical), 3 (spherical), 6 (free); 0 for a value outside hy_joint_type.
HY_API int hy_joint_type_nz(hy_joint_type t);
// The 1-dof joint that coordinate k (0-based) of a joint of type t compiles into:
// HY_JOINT_REVOLUTE (an angle, rad; degrees in a model file) or HY_JOINT_PRISMATIC (a length,
// m); -1 for k or t out of range. Universal: 2 angles; cylindrical: slide, angle; spherical: 3
// angles; free: x, y, z slides, 3 angles.
HY_API int hy_joint_coord_type(hy_joint_type t, int k);

// The Cardan angles of a spherical (and free) joint lose a degree of freedom when the middle
// angle reaches +-90 deg (gimbal lock: the first and third axes align, and the mass matrix turns
// singular). Between steps a chart whose middle angle is beyond HY_GIMBAL_REANCHOR (rad; 60 deg)
// is re-anchored at the joint's current orientation, its angles set to zero (docs/mechanics.md,
// "Re-anchored Cardan charts"), so that a motion never comes near the lock. The model checker
// refuses an initial middle angle, and a step stops with HY_ERR_SINGULAR at a middle angle,
// within HY_GIMBAL_MARGIN of +-90 deg (rad; 1 deg).
#define HY_GIMBAL_MARGIN 0.017453292519943295
#define HY_GIMBAL_REANCHOR 1.0471975511965976

// A named point on a body (or on ground).
typedef struct hy_marker_def {
  char name[HY_NAME_MAX];
  char body[HY_NAME_MAX];
  double point[3];  // in the body frame (m)
  hy_srcpos pos;
} hy_marker_def;

// A time signal (docs/model-format.md, "signals", gives each kind's equation): a table of
// (t, value) points with increasing t (kind HY_SIGNAL_TABLE, the default), or a signal of another
// hy_signal_kind given by the parameters its kind reads and by the names of the signals it is
// built on. Fields a kind does not read are ignored; a table-only field must stay empty (npoint
// 0) for the other kinds.
typedef struct hy_signal_def {
  char name[HY_NAME_MAX];
  hy_interp interp;     // table: interpolation
  int npoint;           // table: number of points (>= 1); 0 for the other kinds
  const double* t;      // s (copied by hy_spec_add_signal)
  const double* value;  // signal units (copied)
  hy_signal_kind kind;  // HY_SIGNAL_TABLE by default
  double t0;            // step, ramp: start of the change; sine: time of phase `phase`;
                        // periodic: start of the first period (s)
  double t1;            // ramp: end of the ramp (s), > t0
  double from;          // step, ramp: value before t0 (signal unit)
  double to;            // step, ramp: value after the change (signal unit), default 1
  double rise;          // step: rise time (s), >= 0; 0 = a sharp step at t0
  double amplitude;     // sine: A (signal unit), default 1
  double frequency;     // sine: f (Hz), >= 0
  double phase;         // sine: phase at t0 (rad)
  double offset;        // sine, scale: added constant (signal unit)
  double period;        // periodic: (s), > 0
  double gain;          // scale: factor (-), default 1
  double min;           // clamp: lower bound (signal unit), default -INFINITY (none)
  double max;           // clamp: upper bound (signal unit), >= min, default INFINITY (none)
  int narg;             // number of signals referred to: periodic, scale, one_minus, clamp 1;
                        // sine 0 or 1 (its envelope); sum, product >= 1; table, step, ramp 0
  const char* const* arg;  // their names (copied by hy_spec_add_signal)
  hy_srcpos pos;
} hy_signal_def;

// An applied load: vector * signal(t) (vector alone when signal is empty).
typedef struct hy_load_def {
  char name[HY_NAME_MAX];
  hy_load_type type;
  char marker[HY_NAME_MAX];
  double vector[3];             // N or N m, inertial frame
  char signal[HY_NAME_MAX];     // optional scaling signal ("" = none)
  hy_srcpos pos;
} hy_load_def;

// A loop-closing joint between marker_a (on body A, or ground) and marker_b (on body B).
// Directions are given in the frame of the marker's body and normalized by the compiler.
//   revolute:      the markers' points coincide and axis_b stays parallel to axis_a
//   spherical:     the points coincide (axes unused)
//   translational: marker_b's point stays on the line through marker_a's point along axis_a,
//                  axis_b stays parallel to axis_a, and up_b parallel to up_a (no rotation about
//                  the axis; up must be perpendicular to the axis, zero = any perpendicular,
//                  only used by 3-D translational joints)
typedef struct hy_cut_def {
  char name[HY_NAME_MAX];
  hy_cut_type type;
  char marker_a[HY_NAME_MAX];
  char marker_b[HY_NAME_MAX];
  double axis_a[3];  // default +z
  double axis_b[3];  // default +z
  double up_a[3];    // default 0 (chosen by the compiler)
  double up_b[3];    // default 0 (chosen by the compiler)
  hy_srcpos pos;
} hy_cut_def;

// A nonholonomic constraint (seed 003 Eqs. 11, 14: a row of B(z), with B(z) z_dot = 0): a
// velocity constraint that no position constraint integrates to.
//   knife_edge: the velocity of marker's point along `axis` is zero, the axis fixed to the
//               marker's body (a wheel that rolls without side slip: axis = the wheel's axle).
// The marker must be on a body; on a planar model the axis must lie in the plane of motion.
typedef struct hy_nonholonomic_def {
  char name[HY_NAME_MAX];
  hy_nonholonomic_type type;
  char marker[HY_NAME_MAX];
  double axis[3];  // in the frame of the marker's body, normalized by the compiler
  hy_srcpos pos;
} hy_nonholonomic_def;

// A joint coupler (docs/model-format.md, "couplers"): a holonomic constraint between the
// coordinates of two joints of one coordinate each (revolute or prismatic),
//   phi = z_a - ratio z_b - offset = 0,
// the row of Phi a rack and pinion or a gear pair adds to the cut joints' (a rack's slide z_a
// (m) on a pinion's angle z_b (rad): ratio = the pitch radius (m/rad); two gears: ratio =
// -r_b/r_a). Units: ratio (unit of z_a)/(unit of z_b), offset the unit of z_a (rad or m).
typedef struct hy_coupler_def {
  char name[HY_NAME_MAX];
  char joint_a[HY_NAME_MAX];
  char joint_b[HY_NAME_MAX];
  double ratio;   // finite, HY_MIN_RATIO <= |ratio| <= HY_MAX_RATIO
  double offset;  // NAN (the default): z0_a - ratio z0_b, so that phi = 0 at the joints' z0
  hy_srcpos pos;
} hy_coupler_def;

// A force element between two markers. An actuator pushes marker_b away from marker_a with
// value * signal(t) newtons (pulls when negative); with `equilibrium` set, the value is instead
// the force that holds the initial configuration at rest (computed by hydyn, see
// docs/formulations.md), scaled by the signal if one is given.
typedef struct hy_force_def {
  char name[HY_NAME_MAX];
  hy_force_type type;
  char marker_a[HY_NAME_MAX];
  char marker_b[HY_NAME_MAX];
  double value;             // N
  int equilibrium;          // 1 = computed static equilibrium force
  char signal[HY_NAME_MAX]; // optional scaling signal ("" = none)
  hy_srcpos pos;
} hy_force_def;

// Whether the model is planar (all revolute axes parallel, prismatic axes perpendicular to them).
typedef enum hy_planar {
  HY_PLANAR_AUTO = 0,  // detected by the compiler
  HY_PLANAR_YES = 1,   // required (an error if the model is not planar)
  HY_PLANAR_NO = 2,    // full 3-D cut-joint equations even for a planar model
} hy_planar;

// Hydraulic circuits (lumped fluid, seed 000 Sect. 3, seed 001 Sect. 3.2; see
// docs/hydraulics.md). Volumes and sources are the circuit's nodes; their names are unique
// together with the throttle, valve (directional, check, relief), pump, cylinder and accumulator
// names, and a cylinder's name is also that of its force element (unique among the force
// names).

// An oil: its bulk modulus law B_oil(p) (hy_bulk_law, docs/hydraulics.md "Oil laws") and the
// parameters the law reads; the others are not looked at. A circuit's oil is given by the same
// fields of hy_circuit_def; a volume may have its own (hy_volume_def.oil).
typedef struct hy_oil_def {
  hy_bulk_law law;           // constant (default), linear, polynomial, air, table
  double B_oil;              // B0 (Pa), > 0: of constant and linear, and of the oil of air;
                             // not read by polynomial and table
  double law_k;              // linear: dB/dp (-), >= 0
  double law_a;              // polynomial: a (1/Pa), > 0 (1/a is the modulus at p = 0)
  double law_b;              // polynomial: b (1/Pa^2)
  double air_fraction;       // air: volume fraction of air at p_atm (-), 0 <= x < 1
  double polytropic;         // air: polytropic exponent n of the air (-), 1 to 2; default 1.4
  double p_atm;              // air: the pressure of air_fraction (Pa), > 0; default 101325
  int table_n;               // table: number of points, >= 2
  const double* table_p;     // table: pressures (Pa), increasing (copied by hy_spec_add_*)
  const double* table_beta;  // table: bulk moduli (Pa), > 0 (copied)
} hy_oil_def;

// Oil properties shared by the volumes of one circuit (the fields of hy_oil_def).
typedef struct hy_circuit_def {
  char name[HY_NAME_MAX];
  double B_oil;         // oil bulk modulus B0 (Pa), > 0 (not read by polynomial and table)
  hy_bulk_law law;      // B_oil(p): constant, linear B0 + k p, polynomial, air, table
  double law_k;         // k of the linear law (-), >= 0
  hy_laminar laminar;   // orifice law below dp_lim of every throttle and valve in the circuit
  double law_a;              // polynomial: a (1/Pa), > 0
  double law_b;              // polynomial: b (1/Pa^2)
  double air_fraction;       // air: volume fraction of air at p_atm (-), 0 <= x < 1
  double polytropic;         // air: polytropic exponent (-), 1 to 2; default 1.4
  double p_atm;              // air: pressure of air_fraction (Pa), > 0; default 101325
  int table_n;               // table: number of points, >= 2
  const double* table_p;     // table: pressures (Pa), increasing (copied)
  const double* table_beta;  // table: bulk moduli (Pa), > 0 (copied)
  hy_srcpos pos;
} hy_circuit_def;

// A control volume with one pressure state: hoses plus the cylinder chambers attached to it.
typedef struct hy_volume_def {
  char name[HY_NAME_MAX];
  char circuit[HY_NAME_MAX];
  double hose_volume;        // m^3, >= 0 (0 only when a cylinder chamber is attached)
  double hose_bulk_modulus;  // container modulus of the hoses (Pa), > 0 when hose_volume > 0;
                             // HY_RIGID: rigid hoses
  double p0;                 // initial pressure (Pa); NAN = derived (see docs/hydraulics.md)
  int own_oil;               // 1: the oil in this volume is `oil`, not its circuit's
  hy_oil_def oil;            // read with own_oil only
  hy_srcpos pos;
} hy_volume_def;

// A gas-charged accumulator on a volume (docs/hydraulics.md, "Accumulators"): below its
// pre-charge pressure it holds no oil; above, its gas (p V^n = p0 V0^n) leaves the oil volume
// V0 (1 - (p0/p)^(1/n)), which joins the volume's oil.
typedef struct hy_accumulator_def {
  char name[HY_NAME_MAX];
  char volume[HY_NAME_MAX];  // the volume it is connected to
  double precharge;          // gas pre-charge pressure p0, absolute (Pa), > 0
  double gas_volume;         // gas volume at pre-charge V0 (m^3), > 0
  double polytropic;         // polytropic exponent n of the gas (-), 1 to 2; default 1.4
  hy_srcpos pos;
} hy_accumulator_def;

// A fixed-pressure node (pump, tank): pressure * signal(t) (pressure alone without signal).
typedef struct hy_source_def {
  char name[HY_NAME_MAX];
  char circuit[HY_NAME_MAX];
  double pressure;           // Pa
  char signal[HY_NAME_MAX];  // optional scaling signal ("" = none)
  hy_srcpos pos;
} hy_source_def;

// Pumps: flow sources from node `from` (the inlet, usually the tank source) into the volume
// `to` (docs/hydraulics.md, "pumps"). With the pressure rise dp = p_to - p_from,
//   Q = eps(dp) D n(t) - C_leak dp,   n(t) = speed * signal(t) (speed alone without signal),
// where eps = 1 for a fixed-displacement pump, and for a pressure-compensated one falls from 1
// at dp <= p_comp - dp_comp to 0 at dp >= p_comp along a C^1 smoothstep. The laminar leakage
// C_leak dp is the pump's volumetric efficiency.
typedef enum hy_pump_kind {
  HY_PUMP_FIXED = 0,        // fixed displacement: eps = 1
  HY_PUMP_COMPENSATED = 1,  // pressure-compensated variable displacement
} hy_pump_kind;

typedef struct hy_pump_def {
  char name[HY_NAME_MAX];
  char from[HY_NAME_MAX];    // inlet: a volume or source
  char to[HY_NAME_MAX];      // outlet: a volume
  hy_pump_kind kind;
  double displacement;       // D (m^3/rev), > 0
  double speed;              // shaft speed n (rev/s; 1500 rpm = 25 rev/s), >= 0
  char signal[HY_NAME_MAX];  // optional scaling signal of the speed ("" = none)
  double leakage;            // C_leak (m^3/(s Pa)), >= 0
  double compensator;        // p_comp (Pa): rise dp = p_to - p_from at which eps = 0, > 0
                             // (compensated; 0 for a fixed pump)
  double compensator_band;   // dp_comp (Pa): eps falls over [p_comp - dp_comp, p_comp],
                             // 0 < dp_comp <= p_comp (compensated; 0 for a fixed pump)
  hy_srcpos pos;
} hy_pump_def;

// A throttle valve (fixed orifice) from node `from` to node `to` (volume or source names),
// seed 000 Eq. 24. Its options (docs/hydraulics.md, "Throttle options"): a signal x(t) that
// scales the opening, C = cv min(max(x, 0), 1); the turbulent law regularized only below
// dp_reg; and one-way flow (nothing from `to` to `from`).
typedef struct hy_throttle_def {
  char name[HY_NAME_MAX];
  char from[HY_NAME_MAX];
  char to[HY_NAME_MAX];
  double cv;      // flow coefficient (m^3/(s sqrt(Pa))), > 0 (seed 000 Eq. 25: C_d A sqrt(2/rho))
  double dp_lim;  // laminar limit (Pa), > 0 (law laminar_transition)
  char signal[HY_NAME_MAX];  // opening x(t), clamped to [0, 1] ("" = fully open)
  hy_orifice_law law;        // laminar_transition (default) or turbulent
  double dp_reg;             // law turbulent: width of the cubic regularization (Pa), > 0
  int one_way;               // 1 = no flow from `to` to `from` (C^1 at dp = 0)
  hy_srcpos pos;
} hy_throttle_def;

// Pressure valves: a check valve and a relief valve are one element (compiled into the pvl_*
// arrays, told apart by pvl_kind) that passes oil from `from` to `to` only, once the pressure
// difference dp = p_from - p_to exceeds its cracking pressure p_crack. The flow is
// Q = cv x(dp) orifice(dp), with the opening x rising smoothly (C^1) from 0 at dp <= p_crack to
// 1 at dp >= p_crack + p_open, and the orifice law of a throttle (see docs/hydraulics.md).
typedef enum hy_pressure_valve_kind {
  HY_PRESSURE_VALVE_CHECK = 0,   // p_crack >= 0: lets oil pass one way
  HY_PRESSURE_VALVE_RELIEF = 1,  // p_crack = p_set > 0: limits the pressure of `from`
} hy_pressure_valve_kind;

// A check valve from node `from` to node `to` (volume or source names): no flow backwards.
typedef struct hy_check_valve_def {
  char name[HY_NAME_MAX];
  char from[HY_NAME_MAX];
  char to[HY_NAME_MAX];
  double cv;       // flow coefficient when fully open (m^3/(s sqrt(Pa))), > 0
  double p_crack;  // pressure difference at which it starts to open (Pa), >= 0
  double p_open;   // further rise of the difference until it is fully open (Pa), > 0
  double dp_lim;   // laminar limit (Pa), > 0
  hy_srcpos pos;
} hy_check_valve_def;

// A pressure relief valve protecting node `from` (usually a volume): it opens towards `to`
// (usually the tank) once p_from - p_to exceeds p_set.
typedef struct hy_relief_valve_def {
  char name[HY_NAME_MAX];
  char from[HY_NAME_MAX];
  char to[HY_NAME_MAX];
  double cv;      // flow coefficient when fully open (m^3/(s sqrt(Pa))), > 0
  double p_set;   // cracking pressure difference (Pa), > 0
  double p_open;  // override: further rise until it is fully open (Pa), > 0
  double dp_lim;  // laminar limit (Pa), > 0
  hy_srcpos pos;
} hy_relief_valve_def;

// A 4/3 directional valve with ports P, T, A, B (volume or source names), seed 000 Eqs. 26-27:
// U > 0 opens P->A and B->T, U < 0 opens P->B and A->T, each path with coefficient cv |U|.
// The metering edges may overlap (or underlap) the ports, leak, and the centre may connect
// ports (docs/hydraulics.md, "Metering edges"); the defaults are the seeds' valve.
// The spool follows the reference U_ref = sat(dz(signal(t) + u0)) (docs/hydraulics.md, "Spool
// dynamics"). "Units of U" below: V, or with units = HY_VALVE_NORMALIZED the fraction of the full
// opening (1: fully open).
typedef struct hy_valve_def {
  char name[HY_NAME_MAX];
  char P[HY_NAME_MAX];
  char T[HY_NAME_MAX];
  char A[HY_NAME_MAX];
  char B[HY_NAME_MAX];
  double cv;                 // m^3/(s sqrt(Pa)) per metering path and unit of U, > 0
  double tau;                // first order: spool time constant (s), > 0
  double dp_lim;             // laminar limit (Pa), > 0
  hy_valve_centre centre;    // what is connected at U = 0 (default closed)
  double U_max;              // spool position of full opening (V), >= 0; > 0 unless closed
  double overlap;            // edge overlap (V): > 0 opens at |U| > overlap, < 0 underlap
  double leakage;            // laminar leakage of each metering edge (m^3/(s Pa)), >= 0
  double cv_centre;          // centre paths at U = 0 (m^3/(s sqrt(Pa))); 0 = cv U_max
  // Metering edges from tables (docs/hydraulics.md, "Metering edges from tables"): path k in
  // the order of hy_data.vlv_q (P->A, B->T, P->B, A->T, P->T) opens with the coefficient
  // C_k(U) interpolated linearly in edge_n[k] points (edge_U[k][j] units of U, strictly
  // increasing; edge_C[k][j] m^3/(s sqrt(Pa)), >= 0), held outside. All edge_n 0 (default): the
  // shape of cv, overlap, U_max and centre. Otherwise the four edges need >= 2 points each, P->T
  // none or >= 2, and cv, overlap, U_max, cv_centre must be 0 and the centre closed (the tables
  // give every opening). Copied by hy_spec_add_valve; edge_pos: where each table is given.
  int edge_n[HY_VALVE_PATHS];
  const double* edge_U[HY_VALVE_PATHS];
  const double* edge_C[HY_VALVE_PATHS];
  hy_srcpos edge_pos[HY_VALVE_PATHS];
  double U0;                 // initial spool position (units of U)
  char signal[HY_NAME_MAX];  // command (units of U); "" = 0
  hy_spool_dynamics spool;   // HY_SPOOL_FIRST_ORDER (default), HY_SPOOL_NONE, ..._SECOND_ORDER
  double natural_frequency;  // second order: f_n (Hz), > 0; omega_n = 2 pi f_n
  double damping_ratio;      // second order: zeta, >= 0
  double saturation;         // limit of |U_ref| (units of U), > 0; INFINITY (default): none
                             // (normalized: at most 1, and 1 when none is given)
  double dead_zone;          // half-width of the command's dead zone (units of U), >= 0
  hy_valve_units units;      // HY_VALVE_VOLTS (default) or HY_VALVE_NORMALIZED
  hy_valve_init init;        // HY_VALVE_INIT_GIVEN (U0, default) or HY_VALVE_INIT_REST
  hy_srcpos pos;
} hy_valve_def;

// Seal friction of a cylinder (docs/friction.md: each law's equations and which parameters it
// reads). F_c may grow with the chamber pressures: F_c + pressure_coefficient (p_a A_a + p_b A_b).
typedef struct hy_friction_def {
  hy_friction_law law;         // HY_FRICTION_NONE (default): no friction
  double coulomb;              // F_c, Coulomb force (N), >= 0
  double stiction;             // F_s, static (break-away) force (N), >= 0
  double stribeck_velocity;    // v_s (m/s), > 0
  double viscous;              // sigma2, viscous coefficient (N s/m), >= 0
  double tanh_velocity;        // coulomb: v_t of tanh(v / v_t) (m/s), > 0
  double decay;                // bengisu-akay: xi, decay of the Stribeck term above v_s (s/m), >= 0
  int viscous_tanh4;           // brown-mcphee: 1 = seed 002 Eq. 24 (sigma2 v tanh 4), 0 = seed
                               // 003 Eq. 8 (sigma2 v)
  double stiffness;            // lugre: sigma0, bristle stiffness (N/m), > 0
  double damping;              // lugre: sigma1, bristle damping (N s/m), >= 0
  double damping_velocity;     // lugre: v_d of sigma1 exp(-(v/v_d)^2) (m/s), 0 = constant sigma1
  double exponent;             // lugre: n of the Stribeck curve, > 0
  double tau_accel;            // film: tau_hp, acceleration time constant (s), > 0
  double tau_decel;            // film: tau_hn, deceleration time constant (s), > 0
  double tau_dwell;            // film: tau_h0, dwell time constant (s), > 0
  double film_velocity;        // film: v_b, velocity of the thickest film (m/s), > 0
  double smoothing;            // film: width of the smoothed |v| in Eqs. 31-32 (m/s), > 0
  double pressure_coefficient; // f_p, added Coulomb force per N of p_a A_a + p_b A_b (-), >= 0
} hy_friction_def;

// A double-acting cylinder between marker_a (body end) and marker_b (rod end); it compiles into
// a force element of the same name. Chamber a (piston side) is empty at the actuator length
// |s| = dead_length and grows with |s|; chamber b (rod side) has length stroke - len_a.
typedef struct hy_cylinder_def {
  char name[HY_NAME_MAX];
  char marker_a[HY_NAME_MAX];
  char marker_b[HY_NAME_MAX];
  char chamber_a[HY_NAME_MAX];  // piston-side volume
  char chamber_b[HY_NAME_MAX];  // rod-side volume
  double area_a;                // piston area (m^2), > 0
  double area_b;                // rod-side annulus area (m^2), > 0
  double stroke;                // len_a + len_b (m), > 0
  double dead_length;           // actuator length |s| with chamber a empty (m), >= 0
  double bulk_modulus;          // container modulus of the chambers (Pa), > 0
  double viscous;               // viscous coefficient c (N s/m), >= 0
  double damper_k;              // end damper stiffness k_d (N/m), >= 0
  double damper_c;              // end damper damping c_d (N s/m), >= 0
  double damper_length;         // end damper length l_d (m), >= 0, 0 = no dampers
  hy_cyl_init init;             // how the initial pressures are found
  hy_friction_def friction;     // seal friction (law none by default)
  hy_srcpos pos;
} hy_cylinder_def;

// Defaults: zeros, axes +z (a joint's axis2 +y), unit identity inertia 0, names empty,
// revolute.
HY_API hy_body_def hy_body_def_default(void);
HY_API hy_point_mass_def hy_point_mass_def_default(void);
HY_API hy_joint_def hy_joint_def_default(void);
HY_API hy_marker_def hy_marker_def_default(void);
HY_API hy_signal_def hy_signal_def_default(void);
HY_API hy_load_def hy_load_def_default(void);
HY_API hy_cut_def hy_cut_def_default(void);
HY_API hy_nonholonomic_def hy_nonholonomic_def_default(void);
// Coupler defaults: ratio 1, offset NAN (derived from z0), names empty.
HY_API hy_coupler_def hy_coupler_def_default(void);
HY_API hy_force_def hy_force_def_default(void);
// Hydraulic defaults (seeds README, "Hydraulic circuit parameters"): law constant, laminar
// cubic, dp_lim = 2e5 Pa, p0 = NAN, init given, pump kind fixed; throttles law
// laminar_transition with dp_reg = 100 Pa, valves centre closed; every other number 0 (physical
// values such as bulk moduli, areas, cv, tau, displacement and speed must be set).
HY_API hy_circuit_def hy_circuit_def_default(void);
HY_API hy_volume_def hy_volume_def_default(void);
HY_API hy_source_def hy_source_def_default(void);
HY_API hy_pump_def hy_pump_def_default(void);
HY_API hy_throttle_def hy_throttle_def_default(void);
HY_API hy_valve_def hy_valve_def_default(void);
HY_API hy_check_valve_def hy_check_valve_def_default(void);
HY_API hy_relief_valve_def hy_relief_valve_def_default(void);
HY_API hy_cylinder_def hy_cylinder_def_default(void);
// Oil defaults: law constant, polytropic 1.4, p_atm 101325 Pa, every other number 0. A circuit's
// default (hy_circuit_def_default) has the same polytropic and p_atm.
HY_API hy_oil_def hy_oil_def_default(void);
// Accumulator defaults: polytropic 1.4 (adiabatic), every other number 0.
HY_API hy_accumulator_def hy_accumulator_def_default(void);
// Friction defaults (docs/friction.md): law none, viscous_tanh4 = 1, exponent = 2,
// smoothing = 1e-5 m/s, every other number 0 (the forces and velocities must be set).
HY_API hy_friction_def hy_friction_def_default(void);
// The model checker's rules for one friction law and its parameters (what hy_model_check applies
// to every cylinder's), for a law given outside a model: HY_ERR_MODEL with the reason in err
// (nullable), no file position.
HY_API hy_status hy_friction_check(const hy_friction_def* f, hy_error* err);
// Internal states of a friction law: 0 (static laws), 1 (LuGre: q), 2 (film: q, h).
HY_API int hy_friction_nstates(hy_friction_law law);
// Name and unit of state k of a law: "q" (bristle deflection, "m"), "h" (film thickness, "-");
// "" beyond its states.
HY_API const char* hy_friction_state_name(hy_friction_law law, int k);
HY_API const char* hy_friction_state_unit(hy_friction_law law, int k);

// The editable model. Definitions are copied in; names are resolved by hy_model_compile.
typedef struct hy_spec hy_spec;

HY_API hy_status hy_spec_create(hy_spec** out);
HY_API void hy_spec_free(hy_spec* s);
// Model name and the file it came from (used in error messages). Nullable: path.
HY_API hy_status hy_spec_set_name(hy_spec* s, const char* name, const char* path);
HY_API hy_status hy_spec_set_option(hy_spec* s, const hy_option* opt);
HY_API hy_status hy_spec_add_body(hy_spec* s, const hy_body_def* def);
HY_API hy_status hy_spec_add_point_mass(hy_spec* s, const hy_point_mass_def* def);
HY_API hy_status hy_spec_add_joint(hy_spec* s, const hy_joint_def* def);
HY_API hy_status hy_spec_add_marker(hy_spec* s, const hy_marker_def* def);
HY_API hy_status hy_spec_add_signal(hy_spec* s, const hy_signal_def* def);
HY_API hy_status hy_spec_add_load(hy_spec* s, const hy_load_def* def);
HY_API hy_status hy_spec_add_cut(hy_spec* s, const hy_cut_def* def);
HY_API hy_status hy_spec_add_nonholonomic(hy_spec* s, const hy_nonholonomic_def* def);
HY_API hy_status hy_spec_add_coupler(hy_spec* s, const hy_coupler_def* def);
HY_API hy_status hy_spec_add_force(hy_spec* s, const hy_force_def* def);
HY_API hy_status hy_spec_set_planar(hy_spec* s, hy_planar planar);
HY_API hy_status hy_spec_add_circuit(hy_spec* s, const hy_circuit_def* def);
HY_API hy_status hy_spec_add_volume(hy_spec* s, const hy_volume_def* def);
HY_API hy_status hy_spec_add_source(hy_spec* s, const hy_source_def* def);
HY_API hy_status hy_spec_add_pump(hy_spec* s, const hy_pump_def* def);
HY_API hy_status hy_spec_add_throttle(hy_spec* s, const hy_throttle_def* def);
HY_API hy_status hy_spec_add_valve(hy_spec* s, const hy_valve_def* def);
HY_API hy_status hy_spec_add_check_valve(hy_spec* s, const hy_check_valve_def* def);
HY_API hy_status hy_spec_add_relief_valve(hy_spec* s, const hy_relief_valve_def* def);
HY_API hy_status hy_spec_add_cylinder(hy_spec* s, const hy_cylinder_def* def);
HY_API hy_status hy_spec_add_accumulator(hy_spec* s, const hy_accumulator_def* def);

//----- the compiled model ------------------------------------------------------------------

// Sizes of a compiled model.
typedef struct hy_sizes {
  int nbody;    // bodies (ground excluded)
  int nz;       // relative coordinates (one per compiled joint: revolute or prismatic)
  int ngimbal;  // Cardan charts of spherical and free joints (three angles each), re-anchored
                // so that their middle angles stay clear of +-90 deg (HY_GIMBAL_REANCHOR)
  int ndamp;    // compiled joints with viscous damping (jnt_damp > 0): 0 leaves the damping
                // out of every evaluation
  int nmrk;     // markers
  int nsig;     // signals
  int nsigpt;   // signal table points, all signals together
  int nsigarg;  // references of signals to signals, all signals together (sig_arg)
  int nload;    // applied loads
  int ncut;     // cut joints
  int neq;      // holonomic constraint equations (m): those of all cut joints, then one per
                // coupler
  int nnh;      // nonholonomic constraints, one equation each (l): rows neq .. neq + nnh - 1
                // of D = [Phi_z; B] (seed 003 Eq. 14) in hy_data.phi_z
  int ncpl;     // joint couplers, one equation each: rows cpl_eqadr of Phi, after the cut joints'
  int nfrc;     // force elements
  int ncirc;    // hydraulic circuits (oil properties)
  int nvol;     // hydraulic volumes (pressure states)
  int nacc;     // gas-charged accumulators (on volumes)
  int nbulkpt;  // points of the oil laws' tables (law table), circuits' and volumes' together
  int nsrc;     // fixed-pressure nodes (supplies, tanks)
  int npump;    // pumps (flow sources)
  int norf;     // throttle valves (fixed orifices)
  int nvlv;     // 4/3 directional valves
  int nspool;   // spool states: nvlv positions, then the velocity of each second-order valve
  int nedgept;  // points of the directional valves' metering-edge tables, all valves together
  int npvl;     // pressure valves: check and relief valves
  int ncyl;     // hydraulic cylinders (each also a force element)
  int nfric;    // friction states of all cylinders (LuGre: q; with film: q, h)
} hy_sizes;

// jnt_shape bits: the reference rotation is the identity, and which coordinate axis (if any)
// the child axis is; the kinematics then skip a matrix product or build the rotation directly.
#define HY_JNT_CROT_IDENTITY 1
#define HY_JNT_AXIS_X 2
#define HY_JNT_AXIS_Y 4
#define HY_JNT_AXIS_Z 8

// body_plane records of planar models, read by the planar kinematics. Body j turns about the
// plane normal n by an angle theta_j (the sum of +-z of the revolute joints on its path) from its
// place at z = 0, so a body-fixed vector that is a at z = 0 (inertial frame) is stored as
// h = (a.n) n, which turns keep, q = a - h and w = n x a, and is h + cos(theta_j) q +
// sin(theta_j) w; a matrix whose columns are such vectors likewise, h, q and w being matrices.
// Offsets into the HY_PLANE_SIZE doubles of body j:
#define HY_PLANE_TURN 0     // dtheta/dz of joint j: +-1 revolute (axis +-n), 0 prismatic
#define HY_PLANE_PPOINT 1   // joint point on the parent (turns with the parent)   h, q, w: 3 x 3
#define HY_PLANE_AXIS 10    // joint axis (turns with the parent; +-n, 0, 0 if revolute)  3 x 3
#define HY_PLANE_CPOINT 19  // joint point on body j                                      3 x 3
#define HY_PLANE_COM 28     // centre of mass                                             3 x 3
#define HY_PLANE_ROT 37     // rotation body frame -> inertial frame, row-major          3 x 9
#define HY_PLANE_SIZE 64

// The solver options of hy_option that a model file sets, by their file keys: the index of
// hy_model.opt_src (gravity is a top-level key, the others are keys of `solver:`).
typedef enum hy_option_key {
  HY_OPT_GRAVITY = 0,          // gravity
  HY_OPT_DT = 1,               // dt
  HY_OPT_T_END = 2,            // t_end
  HY_OPT_INTEGRATOR = 3,       // integrator
  HY_OPT_FORMULATION = 4,      // formulation
  HY_OPT_TANGENT = 5,          // tangent
  HY_OPT_PENALTY = 6,          // penalty
  HY_OPT_TOL_POS = 7,          // tol_position
  HY_OPT_TOL_P = 8,            // tol_pressure
  HY_OPT_MAX_ITER = 9,         // max_iterations
  HY_OPT_REUSE_TANGENT = 10,   // reuse_tangent
  HY_OPT_PARTITION_RCOND = 11, // partition_rcond
  HY_OPT_STRICT_STEPS = 12,    // strict_steps
  HY_OPT_MAX_CUTS = 13,        // max_cuts
  HY_OPT_ERROR_CONTROL = 14,   // error_control
  HY_OPT_ERROR_TOL_POS = 15,   // error_tol_position
  HY_OPT_ERROR_TOL_P = 16,     // error_tol_pressure
  HY_OPT_MAX_MEMORY = 17,      // max_memory
  HY_OPT_TOL_FRIC = 18,        // tol_friction
  HY_OPT_BAUMGARTE_XI = 19,    // baumgarte_xi
  HY_OPT_BAUMGARTE_OMEGA = 20, // baumgarte_omega
  HY_OPT_ODE_TOL = 21,         // tolerance
  HY_OPT_THREADS = 22,         // threads
  HY_OPT_REACTIONS = 23,       // reactions
  HY_OPT_COUNT                 // number of keys (not one)
} hy_option_key;

// Signals in the model arrays: sig_kind[k] is signal k's hy_signal_kind. A table's points are
// sig_t, sig_value [sig_adr[k], sig_adr[k] + sig_npoint[k]) (no points for the other kinds). The
// other kinds keep their parameters in sig_par [HY_SIGNAL_NPAR k, HY_SIGNAL_NPAR (k + 1)), in the
// order hy_signal_par_name gives (unused ones 0):
//   step: t0, from, to, rise          ramp: t0, t1, from, to
//   sine: amplitude, frequency, phase, offset, t0
//   periodic: period, t0              scale: gain, offset         clamp: min, max
// and the signals they refer to in sig_arg [sig_argadr[k], sig_argadr[k] + sig_narg[k]) (the
// sine's envelope, the terms of a sum ...). The references hold no cycle (hy_model_check).
#define HY_SIGNAL_NPAR 5

// The model arrays, listed once: X(type, name, count) with count an expression of `sz` (a
// hy_sizes). Allocation and copying are generated from this list. Bodies are numbered parents
// first; joint j attaches body j to body_parent[j] and owns coordinate jnt_zadr[j].
// The *_src arrays hold where each element is defined in the model file (hy_srcpos: 0 for a
// definition made in code), so that hy_model_check and the engine can point at it. opt_src[k]
// is where option k (hy_option_key) is given; it stands only while that option of opt still
// holds its value in opt0, the options when the model was compiled: an option changed later
// (by the command line, say) no longer comes from the file.
#define HY_MODEL_ARRAYS(X)                                                              \
  X(char, body_name, sz.nbody * HY_NAME_MAX)   /* body names */                         \
  X(int, body_parent, sz.nbody)                /* parent body, -1 = ground */           \
  X(double, body_mass, sz.nbody)               /* kg */                                 \
  X(double, body_com, sz.nbody * 3)            /* centre of mass, body frame (m) */     \
  X(double, body_inertia, sz.nbody * 9)        /* about the com, body frame (kg m^2) */ \
  X(hy_srcpos, body_src, sz.nbody)             /* where it is defined in the file */    \
  X(char, jnt_name, sz.nbody * HY_NAME_MAX)    /* joint names */                        \
  X(int, jnt_type, sz.nbody)                   /* hy_joint_type */                      \
  X(int, jnt_zadr, sz.nbody)                   /* index of the joint's coordinate */    \
  X(double, jnt_ppoint, sz.nbody * 3)          /* joint point, parent frame (m) */      \
  X(double, jnt_cpoint, sz.nbody * 3)          /* joint point, child frame (m) */       \
  X(double, jnt_paxis, sz.nbody * 3)           /* unit axis, parent frame */            \
  X(double, jnt_caxis, sz.nbody * 3)           /* unit axis, child frame */             \
  X(double, jnt_crot, sz.nbody * 9)            /* child frame -> parent frame at z=0 */ \
  X(int, jnt_indep, sz.nbody)                  /* 1 = start as independent coordinate */ \
  X(int, jnt_shape, sz.nbody)                  /* HY_JNT_* bits for fast kinematics */   \
  X(hy_srcpos, jnt_src, sz.nbody)              /* where it is defined in the file */    \
  X(int, jnt_kind, sz.nbody)                   /* hy_joint_type as defined: a joint of  \
                                                  several coordinates gives its type to \
                                                  each joint of its chain */            \
  X(int, jnt_part, sz.nbody)                   /* its coordinate in that joint, 0-based \
                                                  (0 for revolute, prismatic) */        \
  X(double, body_plane, sz.nbody * HY_PLANE_SIZE) /* planar: HY_PLANE_* records */      \
  X(int, plane_xy, 1)                          /* planar: 1 = normal +-z (x-y plane) */ \
  X(double, z0, sz.nz)                         /* initial coordinates (rad or m) */     \
  X(double, zd0, sz.nz)                        /* initial velocities */                 \
  X(int, gimbal_jnt, sz.ngimbal * 3)           /* the joints of each Cardan chart's     \
                                                  first, middle and last angle */       \
  X(int, jnt_gimbal, sz.nbody)                 /* the chart whose first angle the joint \
                                                  is (its anchor in hy_data.gimbal_frame \
                                                  replaces jnt_crot), or -1 */          \
  X(double, jnt_damp, sz.nbody)                /* viscous damping c of the joint's      \
                                                  coordinate (N m s/rad or N s/m), 0 =  \
                                                  none; sizes.ndamp count the others */ \
  X(char, mrk_name, sz.nmrk * HY_NAME_MAX)     /* marker names */                       \
  X(int, mrk_body, sz.nmrk)                    /* body, -1 = ground */                  \
  X(double, mrk_point, sz.nmrk * 3)            /* point in the body frame (m) */        \
  X(double, mrk_plane, sz.nmrk * 9)            /* planar: point as h, q, w */           \
  X(hy_srcpos, mrk_src, sz.nmrk)               /* where it is defined in the file */    \
  X(char, sig_name, sz.nsig * HY_NAME_MAX)     /* signal names */                       \
  X(int, sig_interp, sz.nsig)                  /* hy_interp */                          \
  X(int, sig_adr, sz.nsig)                     /* first point in sig_t/sig_value */     \
  X(int, sig_npoint, sz.nsig)                  /* number of points */                   \
  X(double, sig_t, sz.nsigpt)                  /* s */                                  \
  X(double, sig_value, sz.nsigpt)              /* signal units */                       \
  X(hy_srcpos, sig_src, sz.nsig)               /* where it is defined in the file */    \
  X(int, sig_kind, sz.nsig)                    /* hy_signal_kind */                     \
  X(double, sig_par, sz.nsig * HY_SIGNAL_NPAR) /* parameters by kind, see above */      \
  X(int, sig_argadr, sz.nsig)                  /* first referred signal in sig_arg */   \
  X(int, sig_narg, sz.nsig)                    /* number of referred signals */         \
  X(int, sig_arg, sz.nsigarg)                  /* signals referred to (indices) */      \
  X(char, load_name, sz.nload * HY_NAME_MAX)   /* load names */                         \
  X(int, load_type, sz.nload)                  /* hy_load_type */                       \
  X(int, load_mrk, sz.nload)                   /* marker */                             \
  X(int, load_sig, sz.nload)                   /* scaling signal, -1 = none */          \
  X(double, load_vector, sz.nload * 3)         /* N or N m, inertial frame */           \
  X(hy_srcpos, load_src, sz.nload)             /* where it is defined in the file */    \
  X(char, cut_name, sz.ncut * HY_NAME_MAX)     /* cut joint names */                    \
  X(int, cut_type, sz.ncut)                    /* hy_cut_type */                        \
  X(int, cut_mrk_a, sz.ncut)                   /* marker on body A */                   \
  X(int, cut_mrk_b, sz.ncut)                   /* marker on body B */                   \
  X(double, cut_axis_a, sz.ncut * 3)           /* unit axis, A's frame */               \
  X(double, cut_axis_b, sz.ncut * 3)           /* unit axis, B's frame */               \
  X(double, cut_up_a, sz.ncut * 3)             /* unit, perpendicular to axis_a */      \
  X(double, cut_up_b, sz.ncut * 3)             /* unit, perpendicular to axis_b */      \
  X(int, cut_eqadr, sz.ncut)                   /* first equation in Phi */              \
  X(int, cut_neq, sz.ncut)                     /* number of equations */                \
  X(hy_srcpos, cut_src, sz.ncut)               /* where it is defined in the file */    \
  X(char, nh_name, sz.nnh * HY_NAME_MAX)       /* nonholonomic constraint names */      \
  X(int, nh_type, sz.nnh)                      /* hy_nonholonomic_type */               \
  X(int, nh_mrk, sz.nnh)                       /* its marker (on a body) */             \
  X(double, nh_axis, sz.nnh * 3)               /* unit axis, the marker body's frame */ \
  X(hy_srcpos, nh_src, sz.nnh)                 /* where it is defined in the file */    \
  X(char, cpl_name, sz.ncpl * HY_NAME_MAX)     /* joint coupler names */                \
  X(int, cpl_jnt, sz.ncpl * 2)                 /* joints a, b (one coordinate each) */  \
  X(double, cpl_ratio, sz.ncpl)                /* ratio (unit of z_a / unit of z_b) */  \
  X(double, cpl_offset, sz.ncpl)               /* offset (unit of z_a) */               \
  X(int, cpl_eqadr, sz.ncpl)                   /* its equation in Phi */                \
  X(hy_srcpos, cpl_src, sz.ncpl)               /* where it is defined in the file */    \
  X(char, frc_name, sz.nfrc * HY_NAME_MAX)     /* force element names */                \
  X(int, frc_type, sz.nfrc)                    /* hy_force_type */                      \
  X(int, frc_mrk_a, sz.nfrc)                   /* marker a */                           \
  X(int, frc_mrk_b, sz.nfrc)                   /* marker b */                           \
  X(double, frc_value, sz.nfrc)                /* N (unless equilibrium) */             \
  X(int, frc_equilibrium, sz.nfrc)             /* 1 = computed static force */          \
  X(int, frc_sig, sz.nfrc)                     /* scaling signal, -1 = none */          \
  X(int, frc_cyl, sz.nfrc)                     /* cylinder of a cylinder element, or -1 */ \
  X(hy_srcpos, frc_src, sz.nfrc)               /* where it is defined in the file */    \
  X(char, circ_name, sz.ncirc * HY_NAME_MAX)   /* circuit names */                      \
  X(double, circ_B_oil, sz.ncirc)              /* oil bulk modulus B0 (Pa) */           \
  X(int, circ_law, sz.ncirc)                   /* hy_bulk_law */                        \
  X(double, circ_law_k, sz.ncirc)              /* dB/dp of the linear law (-) */        \
  X(int, circ_laminar, sz.ncirc)               /* hy_laminar */                         \
  X(hy_srcpos, circ_src, sz.ncirc)             /* where it is defined in the file */    \
  X(double, circ_law_a, sz.ncirc)              /* polynomial: a (1/Pa) */               \
  X(double, circ_law_b, sz.ncirc)              /* polynomial: b (1/Pa^2) */             \
  X(double, circ_air, sz.ncirc)                /* air: air fraction at p_atm (-) */     \
  X(double, circ_polytropic, sz.ncirc)         /* air: polytropic exponent (-) */       \
  X(double, circ_p_atm, sz.ncirc)              /* air: pressure of the fraction (Pa) */ \
  X(int, circ_tab_adr, sz.ncirc)               /* table: first point in bulk_p/_beta */ \
  X(int, circ_tab_n, sz.ncirc)                 /* table: points (0 for other laws) */   \
  X(double, bulk_p, sz.nbulkpt)                /* oil tables: pressures (Pa) */         \
  X(double, bulk_beta, sz.nbulkpt)             /* oil tables: bulk moduli (Pa) */       \
  X(char, vol_name, sz.nvol * HY_NAME_MAX)     /* volume names */                       \
  X(int, vol_circ, sz.nvol)                    /* circuit */                            \
  X(double, vol_hose, sz.nvol)                 /* hose and pipe volume (m^3) */         \
  X(double, vol_B_hose, sz.nvol)               /* container modulus of the hoses (Pa) */ \
  X(double, vol_p0, sz.nvol)                   /* initial pressure (Pa); NaN = derived */ \
  X(hy_srcpos, vol_src, sz.nvol)               /* where it is defined in the file */    \
  X(int, vol_oil_fast, sz.nvol)                /* circuit's law 0, 1 inline; else -1 */     \
  X(int, vol_law, sz.nvol)                     /* own oil's hy_bulk_law, -1 = circuit's */ \
  X(double, vol_B_oil, sz.nvol)                /* own oil: B0 (Pa) */                   \
  X(double, vol_law_k, sz.nvol)                /* own oil: linear k (-) */              \
  X(double, vol_law_a, sz.nvol)                /* own oil: polynomial a (1/Pa) */       \
  X(double, vol_law_b, sz.nvol)                /* own oil: polynomial b (1/Pa^2) */     \
  X(double, vol_air, sz.nvol)                  /* own oil: air fraction at p_atm (-) */ \
  X(double, vol_polytropic, sz.nvol)           /* own oil: air's polytropic exponent */ \
  X(double, vol_p_atm, sz.nvol)                /* own oil: pressure of the fraction */  \
  X(int, vol_tab_adr, sz.nvol)                 /* own oil: first table point */         \
  X(int, vol_tab_n, sz.nvol)                   /* own oil: table points */              \
  X(char, acc_name, sz.nacc * HY_NAME_MAX)     /* accumulator names */                  \
  X(int, acc_vol, sz.nacc)                     /* the volume it is connected to */      \
  X(double, acc_p0, sz.nacc)                   /* gas pre-charge pressure (Pa) */       \
  X(double, acc_V0, sz.nacc)                   /* gas volume at pre-charge (m^3) */     \
  X(double, acc_n, sz.nacc)                    /* polytropic exponent of the gas (-) */ \
  X(hy_srcpos, acc_src, sz.nacc)               /* where it is defined in the file */    \
  X(char, src_name, sz.nsrc * HY_NAME_MAX)     /* fixed-pressure node names */          \
  X(double, src_p, sz.nsrc)                    /* pressure (Pa) */                      \
  X(int, src_sig, sz.nsrc)                     /* scaling signal, -1 = none */          \
  X(hy_srcpos, src_src, sz.nsrc)               /* where it is defined in the file */    \
  X(char, pmp_name, sz.npump * HY_NAME_MAX)    /* pump names */                         \
  X(int, pmp_kind, sz.npump)                   /* hy_pump_kind */                       \
  X(int, pmp_node, sz.npump * 2)               /* from (inlet), to (outlet): nodes */   \
  X(double, pmp_disp, sz.npump)                /* displacement D (m^3/rev) */           \
  X(double, pmp_speed, sz.npump)               /* shaft speed n (rev/s) */              \
  X(int, pmp_sig, sz.npump)                    /* speed scaling signal, -1 = none */    \
  X(double, pmp_leak, sz.npump)                /* leakage C_leak (m^3/(s Pa)) */        \
  X(double, pmp_p_comp, sz.npump)              /* compensator setting, rise (Pa) */     \
  X(double, pmp_dp_comp, sz.npump)             /* compensator band (Pa) */              \
  X(hy_srcpos, pmp_src, sz.npump)              /* where it is defined in the file */    \
  X(char, orf_name, sz.norf * HY_NAME_MAX)     /* throttle names */                     \
  X(int, orf_node, sz.norf * 2)                /* from, to: node (volume, or nvol+source) */ \
  X(double, orf_cv, sz.norf)                   /* flow coefficient (m^3/(s sqrt(Pa))) */ \
  X(double, orf_dp_lim, sz.norf)               /* laminar limit (Pa) */                 \
  X(int, orf_sig, sz.norf)                     /* opening signal, -1 = fully open */    \
  X(int, orf_law, sz.norf)                     /* hy_orifice_law */                     \
  X(double, orf_dp_reg, sz.norf)               /* turbulent: regularization width (Pa) */ \
  X(int, orf_one_way, sz.norf)                 /* 1 = no flow to -> from */             \
  X(hy_srcpos, orf_src, sz.norf)               /* where it is defined in the file */    \
  X(char, vlv_name, sz.nvlv * HY_NAME_MAX)     /* directional valve names */            \
  X(int, vlv_node, sz.nvlv * 4)                /* ports P, T, A, B: nodes */            \
  X(double, vlv_cv, sz.nvlv)                   /* m^3/(s V sqrt(Pa)), per metering path */ \
  X(double, vlv_tau, sz.nvlv)                  /* spool time constant (s) */            \
  X(int, vlv_spool, sz.nvlv)                   /* hy_spool_dynamics */                  \
  X(double, vlv_fn, sz.nvlv)                   /* second order: natural frequency (Hz) */ \
  X(double, vlv_zeta, sz.nvlv)                 /* second order: damping ratio */        \
  X(int, vlv_vadr, sz.nvlv)                    /* second order: U_dot's index in U, else -1 */ \
  X(double, vlv_sat, sz.nvlv)                  /* limit of |U_ref|, INFINITY = none */  \
  X(double, vlv_dead, sz.nvlv)                 /* dead zone half-width of the command */ \
  X(int, vlv_units, sz.nvlv)                   /* hy_valve_units */                     \
  X(int, vlv_init, sz.nvlv)                    /* hy_valve_init */                      \
  X(double, vlv_dp_lim, sz.nvlv)               /* laminar limit (Pa) */                 \
  X(double, vlv_U0, sz.nvlv)                   /* initial spool position (units of U) */ \
  X(int, vlv_sig, sz.nvlv)                     /* command signal (units of U), -1 = 0 */ \
  X(int, vlv_centre, sz.nvlv)                  /* hy_valve_centre */                    \
  X(double, vlv_Umax, sz.nvlv)                 /* spool position of full opening (V) */ \
  X(double, vlv_overlap, sz.nvlv)              /* edge overlap (V), < 0 underlap */     \
  X(double, vlv_leak, sz.nvlv)                 /* edge leakage (m^3/(s Pa)) */          \
  X(double, vlv_cv_centre, sz.nvlv)            /* centre paths at U = 0 (m^3/(s sqrt(Pa))) */ \
  X(int, vlv_edge_n, sz.nvlv * HY_VALVE_PATHS) /* edge table points per path, 0 = none */ \
  X(int, vlv_edge_adr, sz.nvlv * HY_VALVE_PATHS) /* first point in edge_U/_C */         \
  X(hy_srcpos, vlv_edge_src, sz.nvlv * HY_VALVE_PATHS) /* where each table is given */  \
  X(double, edge_U, sz.nedgept)                /* edge tables: spool positions (units of U) */ \
  X(double, edge_C, sz.nedgept)                /* edge tables: coefficients (m^3/(s sqrt(Pa))) */ \
  X(hy_srcpos, vlv_src, sz.nvlv)               /* where it is defined in the file */    \
  X(char, pvl_name, sz.npvl * HY_NAME_MAX)     /* check and relief valve names */       \
  X(int, pvl_kind, sz.npvl)                    /* hy_pressure_valve_kind */             \
  X(int, pvl_node, sz.npvl * 2)                /* from, to: nodes; flow only from -> to */ \
  X(double, pvl_cv, sz.npvl)                   /* flow coefficient, fully open */       \
  X(double, pvl_p_crack, sz.npvl)              /* dp at which it starts to open (Pa) */ \
  X(double, pvl_p_open, sz.npvl)               /* further dp until fully open (Pa) */   \
  X(double, pvl_dp_lim, sz.npvl)               /* laminar limit (Pa) */                 \
  X(hy_srcpos, pvl_src, sz.npvl)               /* where it is defined in the file */    \
  X(int, cyl_frc, sz.ncyl)                     /* its force element */                  \
  X(int, cyl_vol_a, sz.ncyl)                   /* piston-side volume */                 \
  X(int, cyl_vol_b, sz.ncyl)                   /* rod-side volume */                    \
  X(double, cyl_area_a, sz.ncyl)               /* piston-side area (m^2) */             \
  X(double, cyl_area_b, sz.ncyl)               /* rod-side (annulus) area (m^2) */      \
  X(double, cyl_stroke, sz.ncyl)               /* chamber a + chamber b length (m) */   \
  X(double, cyl_dead, sz.ncyl)                 /* actuator length with chamber a empty (m) */ \
  X(double, cyl_B, sz.ncyl)                    /* container modulus of the chambers (Pa) */ \
  X(double, cyl_visc, sz.ncyl)                 /* viscous coefficient c (N s/m) */      \
  X(double, cyl_kd, sz.ncyl)                   /* end damper stiffness (N/m) */         \
  X(double, cyl_cd, sz.ncyl)                   /* end damper damping (N s/m) */         \
  X(double, cyl_ld, sz.ncyl)                   /* end damper length (m), 0 = none */    \
  X(int, cyl_init, sz.ncyl)                    /* hy_cyl_init */                        \
  X(hy_friction_def, cyl_fric, sz.ncyl)        /* seal friction law and parameters */   \
  X(int, cyl_fric_w, sz.ncyl)                  /* its first state in w, or -1 */        \
  X(hy_srcpos, cyl_src, sz.ncyl)               /* where it is defined in the file */    \
  X(hy_srcpos, opt_src, HY_OPT_COUNT)          /* where option k is given, see below */ \
  X(hy_option, opt0, 1)                        /* opt as compiled, see below */

// The compiled model: immutable while stepping; the engine receives `const hy_model*`.
typedef struct hy_model {
  char name[HY_NAME_MAX];
  char path[256];  // file it was loaded from ("" if built in code)
  hy_sizes sizes;
  hy_option opt;
  // planar models: every revolute axis is parallel to plane_normal and every prismatic axis
  // perpendicular to it; cut joints then give only their in-plane equations, written with the
  // in-plane unit vectors plane_e1, plane_e2 (inertial frame)
  int planar;
  double plane_normal[3];
  double plane_e1[3];
  double plane_e2[3];
#define HY_MODEL_FIELD_(type, name, count) type* name;
  HY_MODEL_ARRAYS(HY_MODEL_FIELD_)
#undef HY_MODEL_FIELD_
  // Former names of frc_src and vol_src (the same arrays), kept while code still uses them.
  hy_srcpos* frc_pos;
  hy_srcpos* vol_pos;
  void* buffer_;  // the single allocation behind the arrays
} hy_model;

// Builds the flat model from the spec: resolves names and references, orders bodies parents
// first, assigns coordinates, then checks the values with hy_model_check before it derives
// anything from them (unit axes, the joint reference rotations, planar records). Returns HY_OK,
// HY_ERR_MODEL with the message and the position of the offending definition, HY_ERR_NOMEM or
// HY_ERR_ARG for NULL arguments. Nullable: err.
HY_API hy_status hy_model_compile(const hy_spec* s, hy_model** out, hy_error* err);
// Checks the values of a compiled model, however it was built: finite numbers within the ranges
// of docs/model-format.md (masses, lengths, inertias, coordinates, loads), physical inertia
// tensors, finite non-zero axes, hydraulic parameters and initial pressures, signals (tables,
// each kind's parameters, references that exist and hold no cycle) and every solver option of
// m->opt, which a caller may have changed since compiling. Returns HY_OK, HY_ERR_ARG for a NULL
// model, HY_ERR_NOMEM (the cycle search of signals that refer to others needs a little memory),
// or HY_ERR_MODEL for the first violation, with a message naming
// the element, the value and its range, and the position of the element's definition in the
// model file when it has one (for an option: where the file gives it, while opt still holds
// that value). Nullable: err.
HY_API hy_status hy_model_check(const hy_model* m, hy_error* err);
HY_API void hy_model_free(hy_model* m);
// Deep copy.
HY_API hy_status hy_model_copy(const hy_model* m, hy_model** out);

// Loads a YAML model file (see docs/model-format.md). Nullable: err.
HY_API hy_status hy_model_load(const char* path, hy_model** out, hy_error* err);
// Loads a model from YAML text; `name` stands for the file name in error messages.
HY_API hy_status hy_model_load_string(const char* text, size_t size, const char* name,
                                      hy_model** out, hy_error* err);
// Loads `what`: an existing file path, else the name of a built-in model (models/<name>.yaml,
// compiled into the library), else a member of a built-in model family (hy_model_family).
HY_API hy_status hy_model_load_any(const char* what, hy_model** out, hy_error* err);
// Number and names of the built-in models.
HY_API int hy_builtin_count(void);
HY_API const char* hy_builtin_name(int i);

//----- built-in model families (scaling studies) -------------------------------------------

// Largest N of the families chain-N and loop-N. The model itself grows linearly with N, and so
// do the data of the O(N) formulations dca and hdca (about 2.3 kB a body); the data of the
// others hold dense N x N matrices: about 64 N^2 bytes, 4.3 GB at N = 8192.
#define HY_FAMILY_N_MAX 8192

// Builds the built-in model family member `name` (shared/seeds/hdca_cases.md, see
// docs/model-format.md, "Built-in model families") through the builder API:
//   chain-N     N = 1..HY_FAMILY_N_MAX  open pendulum of N thin rods, horizontal at rest
//   loop-N      N = 2..HY_FAMILY_N_MAX  N thin rods and the 1 m ground link as a regular
//                                       (N+1)-gon hanging below it, one cut joint, N - 2 dof
//   hdca-case1  one loop of four bodies (crank, coupler, rocker, 2 m ground link), 1 dof
//   hdca-case2  regular octagon of 7 bars hanging below its ground side, 5 dof
//   hdca-case3  two regular pentagons sharing a vertical middle bar, 3 dof
// N is written in decimal without sign or leading zeros. The model is named `name`; its solver
// options are hy_option_default() (formulation and integrator chosen when the data are made,
// dt = 1e-3 s, t_end = 10 s). Returns HY_ERR_ARG for a null argument or a name that is not a
// family member (the message gives the valid range of N or lists the families), HY_ERR_NOMEM,
// or the status of hy_model_compile. On failure *out is NULL. Nullable: err.
HY_API hy_status hy_model_family(const char* name, hy_model** out, hy_error* err);
// Number of families (chain-N, loop-N, hdca-case1, ...).
HY_API int hy_family_count(void);
// Name pattern of family i, 0 <= i < hy_family_count(): "chain-N", "loop-N", "hdca-case1", ...
// (N stands for the number), or NULL out of range. Static string.
HY_API const char* hy_family_pattern(int i);
// One-line description of family i with the range of N where it has one, or NULL out of range.
// Static string.
HY_API const char* hy_family_description(int i);
// Index of the family whose form `name` has ("loop-" followed by anything for loop-N, the exact
// name for the fixed cases), or -1 (also for NULL). A name of a family's form may still be
// invalid ("loop-0"): hy_model_family then says why. Lets a loader tell family names from
// others before calling hy_model_family.
HY_API int hy_family_find(const char* name);

// Index of a named element, or -1. The name "ground" gives -1 for bodies too.
HY_API int hy_model_body(const hy_model* m, const char* name);
HY_API int hy_model_joint(const hy_model* m, const char* name);
HY_API int hy_model_marker(const hy_model* m, const char* name);
HY_API int hy_model_signal(const hy_model* m, const char* name);
HY_API int hy_model_cut(const hy_model* m, const char* name);
HY_API int hy_model_nonholonomic(const hy_model* m, const char* name);
HY_API int hy_model_coupler(const hy_model* m, const char* name);
HY_API int hy_model_force(const hy_model* m, const char* name);
// Hydraulics: a cylinder's force element is hy_model_force(m, name) (its index into frc_*
// arrays), its cylinder index hy_model_cylinder(m, name). A source's node number is nvol + its
// index.
HY_API int hy_model_circuit(const hy_model* m, const char* name);
HY_API int hy_model_volume(const hy_model* m, const char* name);
HY_API int hy_model_source(const hy_model* m, const char* name);
HY_API int hy_model_throttle(const hy_model* m, const char* name);
HY_API int hy_model_valve(const hy_model* m, const char* name);
// Check and relief valves share the pvl_* arrays: the index of either kind there.
HY_API int hy_model_pressure_valve(const hy_model* m, const char* name);
HY_API int hy_model_pump(const hy_model* m, const char* name);
HY_API int hy_model_cylinder(const hy_model* m, const char* name);
HY_API int hy_model_accumulator(const hy_model* m, const char* name);

//----- named parameters ----------------------------------------------------------------------

// A numerical parameter of a compiled model by its name "KIND:ELEMENT.FIELD" (body:link1.mass,
// cylinder:cylinder.viscous, cylinder:cylinder.friction.coulomb, volume:V1.hose_volume,
// circuit:crane.oil_bulk_modulus, valve:dcv.tau, throttle:throttle.cv, ...): where it lives in m,
// so that a caller may change it (the sensitivities and sweeps of `hydyn linearize`), and its SI
// unit in *unit (nullable). NULL with the reason in err (nullable) for an unknown kind, element
// or field. Change the parameter on a copy made for the purpose (hy_model_copy) and make a new
// data of it: what hy_data_make derived from the old value (equilibrium pressures) is not
// updated.
HY_API double* hy_model_param(hy_model* m, const char* name, const char** unit, hy_error* err);
// Number of parameters of m, and the name, unit and description of parameter i into buf.
HY_API int hy_model_param_count(const hy_model* m);
HY_API void hy_model_param_name(const hy_model* m, int i, char* buf, size_t size,
                                const char** unit, const char** what);

// Value of signal `sig` at time t (signal unit), for any kind (docs/model-format.md,
// "signals"). Allocates nothing; a signal built on others evaluates them (recursion as deep as
// the chain of references).
HY_API double hy_signal_eval(const hy_model* m, int sig, double t);
// A bound on |hy_signal_eval(m, sig, t)| over all t: the largest |value| of a table (attained),
// an upper bound from the parameters and the referred signals' bounds for the other kinds. 1 for
// sig < 0 (no signal: a factor 1).
HY_API double hy_signal_bound(const hy_model* m, int sig);
// Model-file key of parameter k of a signal kind, in the order of hy_model.sig_par ("t0",
// "amplitude", ...), and its unit ("s", "Hz", "rad", "-" or "signal unit"); NULL for k outside
// 0 .. the kind's number of parameters - 1. Static strings.
HY_API const char* hy_signal_par_name(hy_signal_kind kind, int k);
HY_API const char* hy_signal_par_unit(hy_signal_kind kind, int k);

#ifdef __cplusplus
}
#endif

#endif  // HYDYN_MODEL_H_
