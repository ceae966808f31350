// hydyn public types: status codes, error record, enums, options.
//
// Glossary of symbols used across the API (SI units throughout; angles in radians in memory,
// in degrees only in model files):
//   z, zd, zdd   relative joint coordinates, velocities, accelerations  (nz x 1)
//   Z            Cartesian velocity of a body: [velocity of the body point coincident with the
//                origin; angular velocity]  (6 x 1), seed 000 Eq. 1
//   M', Q'       open-tree mass matrix and generalized forces, seed 000 Eq. 12
#ifndef HYDYN_TYPES_H_
#define HYDYN_TYPES_H_

#include <stddef.h>

#include "hydyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

//----- status ------------------------------------------------------------------------------

// 0 = success, > 0 = recoverable or warning, < 0 = error. One list: name, value, message.
#define HY_STATUS_LIST(X)                                                              \
  X(HY_OK, 0, "success")                                                               \
  X(HY_WARN_SINGULAR, 1, "matrix is singular or nearly so")                            \
  X(HY_NEWTON_NOCONV, 2, "Newton iteration did not converge")                          \
  X(HY_STEP_REJECTED, 3, "step rejected")                                              \
  X(HY_ERR_ARG, -1, "invalid argument")                                                \
  X(HY_ERR_NOMEM, -2, "out of memory")                                                 \
  X(HY_ERR_IO, -3, "input/output error")                                               \
  X(HY_ERR_PARSE, -4, "model file could not be parsed")                                \
  X(HY_ERR_MODEL, -5, "invalid model")                                                 \
  X(HY_ERR_SINGULAR, -6, "singular system")                                            \
  X(HY_ERR_NAN, -7, "non-finite value in the state")                                   \
  X(HY_ERR_ARENA, -8, "work arena exhausted")                                          \
  X(HY_ERR_DEP, -9, "feature not available in this build")

typedef enum hy_status {
#define HY_STATUS_ENUM_(name, value, msg) name = value,
  HY_STATUS_LIST(HY_STATUS_ENUM_)
#undef HY_STATUS_ENUM_
} hy_status;

// Static text of a status code ("unknown status" for values outside the list).
HY_API const char* hy_status_str(hy_status s);
// Symbolic name of a status code, e.g. "HY_ERR_PARSE".
HY_API const char* hy_status_name(hy_status s);

// Detail of the last error. src_* locate the offending node of a model file (line and column
// 1-based, 0 when unknown).
typedef struct hy_error {
  hy_status code;
  char msg[512];
  const char* func;  // function that raised it (static string)
  const char* file;  // source file that raised it (static string)
  int line;
  char src_path[256];
  int src_line;
  int src_col;
} hy_error;

// Formats "path:line:col: message" (or just the message when no position is known) into buf.
HY_API void hy_error_format(const hy_error* e, char* buf, size_t size);

//----- allocator (the only process-global hook) ---------------------------------------------

typedef void* (*hy_alloc_fn)(size_t size, void* user);
typedef void (*hy_free_fn)(void* ptr, void* user);
// Routes every heap allocation of hydyn through alloc/free. NULL restores malloc/free.
HY_API void hy_set_allocator(hy_alloc_fn alloc, hy_free_fn free_fn, void* user);

//----- enums -------------------------------------------------------------------------------

// Tree joints. The compiler turns each joint of several coordinates into a chain of revolute
// and prismatic joints through massless bodies (docs/mechanics.md, "Joints of several
// coordinates"), so that the compiled model (jnt_type) holds only the first two kinds.
typedef enum hy_joint_type {
  HY_JOINT_REVOLUTE = 0,     // rotation about an axis through a point; z in rad
  HY_JOINT_PRISMATIC = 1,    // translation along an axis; z in m
  HY_JOINT_UNIVERSAL = 2,    // rotations about axis (parent) then axis2 (child); 2 z in rad
  HY_JOINT_CYLINDRICAL = 3,  // translation along and rotation about one axis; z in m, rad
  HY_JOINT_SPHERICAL = 4,    // three Cardan angles about axis, axis2, axis2 x child_axis; rad
  HY_JOINT_FREE = 5,         // translations along the parent's x, y, z (m), then a spherical
  HY_JOINT_COUNT             // number of types (not one)
} hy_joint_type;

// Most coordinates of one joint (a free joint's).
#define HY_JOINT_NZ_MAX 6

typedef enum hy_load_type {
  HY_LOAD_FORCE = 0,   // force (N) at a marker, vector in the inertial frame
  HY_LOAD_TORQUE = 1,  // torque (N m) on the marker's body, vector in the inertial frame
} hy_load_type;

typedef enum hy_interp {
  HY_INTERP_LINEAR = 0,  // piecewise linear, held constant outside the table
  HY_INTERP_STEP = 1,    // zero-order hold: value of the last point at or before t
} hy_interp;

// Kinds of time signal (docs/model-format.md, "signals"). A table is given by its points; the
// others by a few parameters (hy_signal_def) and, for the kinds built on other signals, the
// signals they refer to ("other" below).
typedef enum hy_signal_kind {
  HY_SIGNAL_TABLE = 0,      // (t, value) points, interpolated as hy_interp says
  HY_SIGNAL_STEP = 1,       // from before t0, to from t0 + rise on (C1 smoothstep in between)
  HY_SIGNAL_RAMP = 2,       // from until t0, linear to `to` at t1, held after
  HY_SIGNAL_SINE = 3,       // offset + amplitude env(t) sin(2 pi frequency (t - t0) + phase)
  HY_SIGNAL_PERIODIC = 4,   // other((t - t0) mod period) from t0 on, other(0) before
  HY_SIGNAL_SUM = 5,        // sum of the others
  HY_SIGNAL_PRODUCT = 6,    // product of the others
  HY_SIGNAL_SCALE = 7,      // gain other(t) + offset
  HY_SIGNAL_ONE_MINUS = 8,  // 1 - other(t)
  HY_SIGNAL_CLAMP = 9,      // other(t) clamped to [min, max]
  HY_SIGNAL_KIND_COUNT      // number of kinds (not one)
} hy_signal_kind;

// Time integrators. The explicit ones drive a formulation's ODE right-hand side, with fixed steps
// or (through SUNDIALS) variable steps to the tolerance opt.ode_tol; the trapezoidal rule solves a
// formulation's residual by Newton-Raphson (seed 000 Sect. 4).
typedef enum hy_integrator {
  HY_INTEG_AUTO = 0,         // chosen when the data are made: trapezoidal for closed loops and
                             // hydraulics, rk4 for an open tree without hydraulics
  HY_INTEG_EULER = 1,        // forward Euler
  HY_INTEG_SEMI_EULER = 2,   // semi-implicit (symplectic) Euler: velocities first
  HY_INTEG_RK4 = 3,          // classical fourth-order Runge-Kutta
  HY_INTEG_TRAPEZOIDAL = 4,  // trapezoidal rule with Newton-Raphson (implicit)
  HY_INTEG_DOPRI5 = 5,       // Dormand-Prince 5(4), variable step (ARKODE ERKStep; ode45)
  HY_INTEG_BS23 = 6,         // Bogacki-Shampine 3(2), variable step (ARKODE ERKStep; ode23)
  HY_INTEG_ADAMS = 7,        // Adams-Moulton, variable order and step (CVODE; ode113)
  HY_INTEG_COUNT             // number of values (not a method)
} hy_integrator;

// Loop-closing (cut) joints between two markers. In a planar model each gives only its in-plane
// equations (see hy_model.planar).
typedef enum hy_cut_type {
  HY_CUT_REVOLUTE = 0,       // points coincide, axes parallel: 5 equations (planar: 2)
  HY_CUT_SPHERICAL = 1,      // points coincide: 3 equations (planar: 2)
  HY_CUT_TRANSLATIONAL = 2,  // B's point on A's line, no relative rotation: 5 (planar: 2)
} hy_cut_type;

// Kinds of nonholonomic constraint (hy_nonholonomic_def).
typedef enum hy_nonholonomic_type {
  HY_NONHOLONOMIC_KNIFE_EDGE = 0,  // no velocity of a point along a body-fixed axis: 1 equation
} hy_nonholonomic_type;

// Force elements between two markers.
typedef enum hy_force_type {
  HY_FORCE_ACTUATOR = 0,  // force of given magnitude along the line a -> b; > 0 pushes apart
  HY_FORCE_CYLINDER = 1,  // double-acting hydraulic cylinder (hydraulics: cylinders)
} hy_force_type;

// Oil bulk modulus as a function of pressure (docs/hydraulics.md, "Oil laws").
typedef enum hy_bulk_law {
  HY_BULK_CONSTANT = 0,    // B = B0
  HY_BULK_LINEAR = 1,      // B = B0 + k p (k dimensionless, about 11 for mineral oil), p in Pa
  HY_BULK_POLYNOMIAL = 2,  // density rho/rho0 = 1 + a p + b p^2: B = (1 + a p + b p^2)/(a + 2 b p)
  HY_BULK_AIR = 3,         // oil of modulus B0 with entrained air (a volume fraction at p_atm,
                           // polytropic): B of the mixture
  HY_BULK_TABLE = 4,       // B(p) interpolated linearly in a table of [p, B], held outside
  HY_BULK_COUNT            // number of laws (not one)
} hy_bulk_law;

// Orifice law below the laminar limit dp_lim (above it Q = C sgn(dp) sqrt|dp|).
typedef enum hy_laminar {
  HY_LAMINAR_CUBIC = 0,   // Q = C sqrt(dp_lim) (5x - x^3)/4, x = dp/dp_lim: value and slope
                          // continuous at dp_lim
  HY_LAMINAR_LINEAR = 1,  // Q = C dp / sqrt(dp_lim), seed 003 Eq. 6 (slope halves at dp_lim)
} hy_laminar;

// Flow law of a throttle (docs/hydraulics.md, "Throttle options").
typedef enum hy_orifice_law {
  HY_ORIFICE_LAMINAR_TRANSITION = 0,  // sqrt law above dp_lim, the circuit's laminar law below
  HY_ORIFICE_TURBULENT = 1,           // sqrt law down to dp_reg, a cubic only below it (C^1)
} hy_orifice_law;

// What a 4-way directional valve connects at spool position 0 (docs/hydraulics.md, "Valve
// centres"); the centre paths close linearly as |U| goes to U_max.
typedef enum hy_valve_centre {
  HY_CENTRE_CLOSED = 0,  // every port blocked (seed 000 Eq. 26)
  HY_CENTRE_OPEN = 1,    // P, T, A and B connected: P->A, P->B, A->T, B->T and P->T open
  HY_CENTRE_TANDEM = 2,  // P->T open, A and B blocked
  HY_CENTRE_FLOAT = 3,   // A->T and B->T open, P blocked
} hy_valve_centre;

// Flows of a directional valve in hy_data.vlv_q: its paths P->A, B->T, P->B, A->T, P->T, in
// this order (the P->T path exists only with an open or tandem centre; 0 otherwise).
#define HY_VALVE_PATHS 5

// Seal friction law of a hydraulic cylinder (docs/friction.md). The force F_mu opposes the
// piston's relative velocity s_dot and is subtracted from the cylinder force.
typedef enum hy_friction_law {
  HY_FRICTION_NONE = 0,          // no seal friction
  HY_FRICTION_COULOMB = 1,       // F_c tanh(v / v_t) + sigma2 v: the simple baseline
  HY_FRICTION_BENGISU_AKAY = 2,  // seed 002 Eqs. 22-23 (Stribeck parabola, exponential decay)
  HY_FRICTION_BROWN_MCPHEE = 3,  // seed 002 Eq. 24 / seed 003 Eq. 8
  HY_FRICTION_LUGRE = 4,         // seed 002 Eqs. 25-27: bristle deflection q (m) as a state
  HY_FRICTION_LUGRE_FILM = 5,    // seed 002 Eqs. 28-34: q and the lubricant film h (-) as states
  HY_FRICTION_COUNT              // number of laws (not one)
} hy_friction_law;

// How a cylinder's initial pressures are found.
typedef enum hy_cyl_init {
  HY_CYL_INIT_GIVEN = 0,        // the volumes' p0 are given; hydyn reports the force imbalance
  HY_CYL_INIT_EQUILIBRIUM = 1,  // rod-side p0 given; piston side from static equilibrium
                                // (seed 000 Sect. 5: p_A = (F + p_B A_B) / A_A)
} hy_cyl_init;

// How a directional valve's spool position U follows its shaped reference U_ref
// (docs/hydraulics.md, "Spool dynamics").
typedef enum hy_spool_dynamics {
  HY_SPOOL_FIRST_ORDER = 0,   // U_dot = (U_ref - U) / tau (seed 000 Eq. 27)
  HY_SPOOL_NONE = 1,          // U = U_ref at every instant: no dynamics
  HY_SPOOL_SECOND_ORDER = 2,  // U_ddot = omega_n^2 (U_ref - U) - 2 zeta omega_n U_dot
  HY_SPOOL_COUNT              // number of values (not one)
} hy_spool_dynamics;

// What a directional valve's spool position U, its command and its reference measure.
typedef enum hy_valve_units {
  HY_VALVE_VOLTS = 0,       // the command voltage (V), as in seed 000
  HY_VALVE_NORMALIZED = 1,  // the fraction of the full opening, -1 to 1 (1: fully open P->A)
  HY_VALVE_UNITS_COUNT      // number of values (not one)
} hy_valve_units;

// How a directional valve's initial spool position is found.
typedef enum hy_valve_init {
  HY_VALVE_INIT_GIVEN = 0,  // U(0) = U0 (spool: none: the reference at t = 0)
  HY_VALVE_INIT_REST = 1,   // a constant offset of the command such that the circuit starts at
                            // rest (docs/hydraulics.md, "Initial state")
  HY_VALVE_INIT_COUNT       // number of values (not one)
} hy_valve_init;

// How the equations of motion are formed.
typedef enum hy_formulation {
  HY_FORM_AUTO = 0,         // chosen when the data are made: penalty with cut joints, else tree
  HY_FORM_TREE = 1,         // open tree only: M' zdd = Q' (seed 000 Eq. 12)
  HY_FORM_PENALTY = 2,      // index-3 augmented Lagrangian with projections (seed 000 Eqs. 18-21)
  HY_FORM_DOUBLE_STEP = 3,  // coordinate partitioning (seed 000 Eqs. 13-17)
  HY_FORM_ALI1 = 4,         // global coordinates, index-1 augmented Lagrangian, semi-implicit
                            // Euler (seed 001 Eqs. 2a-2b); planar models
  HY_FORM_ALI3P = 5,        // global coordinates, index-3 augmented Lagrangian with projections
                            // on the trapezoidal rule (seed 001 Eqs. 3-7); planar models
  HY_FORM_DCA = 6,          // Featherstone's divide-and-conquer algorithm: planar chains in O(N),
                            // an ODE for the explicit and variable-step integrators (seed 004)
  HY_FORM_HDCA = 7,         // the Hamiltonian divide-and-conquer algorithm of seed 004: state
                            // (q, p), planar chains in O(N), an ODE like dca
  HY_FORM_COUNT             // number of values (not a formulation)
} hy_formulation;

// Tangent matrix of the trapezoidal-Newton iteration.
typedef enum hy_tangent {
  HY_TANGENT_ANALYTIC = 0,  // M + dt/2 C + dt^2/4 (K + Phi_z^T alpha Phi_z), seed 000 Sect. 2.3
  HY_TANGENT_FD = 1,        // forward differences, eps = 1e-8 max(1e-2, |x|) (Eqs. 40-41)
  HY_TANGENT_COUNT          // number of kinds (not one)
} hy_tangent;

// Control of the local error of the trapezoidal step.
typedef enum hy_error_control {
  HY_ERRCTL_NONE = 0,       // fixed steps of opt.dt (a step that fails is still cut, see
                            // hy_option.strict_steps)
  HY_ERRCTL_PREDICTOR = 1,  // the step size follows an estimate of the local error from the
                            // difference of predictor and corrector
  HY_ERRCTL_COUNT           // number of values (not a method)
} hy_error_control;

//----- options -----------------------------------------------------------------------------

// Solver settings of a model; the model file's `solver:` section and the command line fill it.
typedef struct hy_option {
  double gravity[3];          // gravitational acceleration (m/s^2), inertial frame
  double dt;                  // fixed time step (s)
  double t_end;               // end time of a run (s)
  hy_integrator integrator;   // time integrator; penalty and double-step step only with the
                              // trapezoidal rule and Newton-Raphson (seed 000 Sect. 4)
  hy_formulation formulation; // how the equations of motion are formed
  hy_tangent tangent;         // Newton tangent of penalty and double-step
  double penalty;             // penalty factor alpha of Eq. 18 (N/m for point equations)
  double tol_pos;             // Newton convergence on positions (rad or m)
  double tol_p;               // Newton convergence on pressures (Pa)
  double tol_fric;            // Newton convergence on friction states (m for the bristle
                              // deflection; the same number for the dimensionless film)
  int max_iter;               // Newton iteration cap per step
  int reuse_tangent;          // 1: factor the tangent once per step and reuse it in the later
                              // iterations (modified Newton); 0: a new tangent every iteration
  double partition_rcond;     // double-step: re-select the partition when the dependent block's
                              // pivot ratio (min/max |U_ii| of its LU) falls below this fraction
                              // of its value when the partition was chosen
  int time_steps;             // 1: hy_step reads the clock before and after each step, for
                              // stats.wall_last and stats.wall_time; 0 (default): they stay 0.
                              // Two clock reads cost about 90 ns a step here, 9 % of four-bar
                              // A's step, so only a caller that records them asks for them
  int strict_steps;           // 1: a step whose Newton iteration fails ends the run (real-time
                              // use); 0: it is retried as two steps of half the size, and so on
  int max_cuts;               // how often a failing step may be halved (0..40): the smallest
                              // step is dt / 2^max_cuts
  hy_error_control error_control;  // local error control of the trapezoidal step
  double error_tol_pos;       // local error allowed per step on coordinates (rad or m)
  double error_tol_p;         // local error allowed per step on pressures (Pa)
  double max_memory;          // bytes of work memory hy_data_make may allocate for one data
  double baumgarte_xi;        // ali1: xi of the Baumgarte-like terms of seed 001 Eqs. 2a-2b (-)
  double baumgarte_omega;     // ali1: omega of those terms (rad/s)
  double ode_tol;             // dopri5, bs23, adams: relative and absolute tolerance of the
                              // local error, on every state (rtol = atol)
  int threads;                // dca, hdca: threads of the assembly and disassembly (OpenMP
                              // tasks); the results do not depend on it
  int reactions;              // dca, hdca: 1 = each joint's reaction in hy_data.jnt_react (seed
                              // 004 Sect. 3.4); hdca pays an acceleration-level solve for it
} hy_option;

// Defaults: gravity (0, -9.81, 0), dt = 1e-3 s, t_end = 10 s, integrator and formulation auto,
// analytic tangent, alpha = 1e11, tol_pos = 1e-7, tol_p = 1e-2, tol_fric = 1e-7, max_iter = 25,
// reuse_tangent = 1, partition_rcond = 0.1, time_steps = 0, strict_steps = 0, max_cuts = 12,
// error control none, error_tol_pos = 1e-6, error_tol_p = 1e3, max_memory = 4 GiB,
// baumgarte_xi = 1, baumgarte_omega = 10 rad/s, ode_tol = 1e-6, threads = 1,
// reactions = 0.
HY_API hy_option hy_option_default(void);

// Names are at most this long, terminator included.
#define HY_NAME_MAX 64

#ifdef __cplusplus
}
#endif

#endif  // HYDYN_TYPES_H_
