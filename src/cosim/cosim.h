// Internal header of src/cosim: co-simulation of the mechanics and the hydraulics of a model as
// separate subsystems, coupled by a non-iterative Jacobi manager (seed 001 Sects. 2.3-2.3.2).
// A subsystem is a table of operations over its own state; the manager knows subsystems only
// through it. The mechanical subsystem is a hydyn data of the model (any formulation) whose
// cylinders take their force, or their chamber pressures, from inputs; a hydraulic subsystem is
// one circuit of the model alone, its cylinders' length and rate being inputs, with its own
// integrator (forward Euler, RK4, trapezoidal rule) and step h_h.
#ifndef HYDYN_SRC_COSIM_COSIM_H_
#define HYDYN_SRC_COSIM_COSIM_H_

#include <stddef.h>

#include "core/core.h"
#include "hydyn/model.h"
#include "hydyn/sim.h"

//----- inputs over a macro step ---------------------------------------------------------------

// Highest order of the Lagrange extrapolation (seed 001 Sect. 2.3: m = 0, 1, 2).
#define HY_COSIM_ORDER_MAX 2

// One input over a macro step that starts at t0: u(t) = c[0] + c[1] tau + c[2] tau^2 with
// tau = t - t0. Held inputs (m = 0) have c[1] = c[2] = 0.
typedef struct hy_cosim_poly {
  double c[HY_COSIM_ORDER_MAX + 1];
} hy_cosim_poly;

static inline double hy_cosim_poly_value(const hy_cosim_poly* u, double tau) {
  return u->c[0] + tau * (u->c[1] + tau * u->c[2]);
}
static inline double hy_cosim_poly_rate(const hy_cosim_poly* u, double tau) {
  return u->c[1] + 2.0 * tau * u->c[2];
}

// The Lagrange polynomial of degree `order` through the values hist[0..order] communicated at
// t0, t0 - H, t0 - 2H (hist[0] the newest, at t0), as coefficients in tau = t - t0
// (seed 001 Sect. 2.3, polynomial extrapolation). Fewer than order + 1 values known (at the
// start of a run, `known` of them): the order drops to known - 1.
void hy_cosim_extrapolate(int order, int known, double H, const double* hist, hy_cosim_poly* u);

//----- coupling ---------------------------------------------------------------------------------

typedef enum hy_cosim_coupling {
  HY_COUPLE_VF = 0,  // velocity-force: the hydraulics return the cylinder forces (Eq. 33 there)
  HY_COUPLE_VP = 1,  // velocity-pressure: they return the chamber pressures, the mechanics
                     // evaluate Eq. 33 with their own s and s_dot
} hy_cosim_coupling;

// How the cylinders of a hydyn data take their loads from another subsystem: hy_cyl_input_mode
// and hy_cyl_input (hydyn/sim.h, hy_data.cyl_input).

//----- subsystems ---------------------------------------------------------------------------------

typedef struct hy_cosim_sub hy_cosim_sub;

typedef struct hy_cosim_sub_ops {
  const char* kind;  // "mechanics", "hydraulics"
  // Inputs over the coming macro step [t0, ...): one polynomial per input (nin).
  void (*set_inputs)(hy_cosim_sub* s, double t0, const hy_cosim_poly* u);
  // Advances from its current time to t, a whole number of its own steps (HY_ERR_ARG
  // otherwise). A failure leaves it at the start of the call, with the detail in s->err.
  hy_status (*step_to)(hy_cosim_sub* s, double t);
  // Outputs at its current time (nout).
  void (*outputs)(const hy_cosim_sub* s, double* y);
  double (*time)(const hy_cosim_sub* s);
  // Its whole state by value: restoring it and stepping on gives bit for bit what never having
  // stopped gives.
  int (*state_size)(const hy_cosim_sub* s);
  void (*save)(const hy_cosim_sub* s, double* buf);
  hy_status (*restore)(hy_cosim_sub* s, const double* buf);
  void (*destroy)(hy_cosim_sub* s);
} hy_cosim_sub_ops;

struct hy_cosim_sub {
  const hy_cosim_sub_ops* ops;
  void* self;
  int nin, nout;
  hy_error err;
};


//----- the mechanical subsystem (cosim_mech.c) ---------------------------------------------------

// The mechanics of m as a subsystem: a hydyn data of a copy of m with formulation `form` (auto:
// the model's), its integrator (the model's), dt = H (one step per macro step) and every
// cylinder's load taken from the inputs (hy_data.cyl_input): the network is not integrated.
// Inputs, cylinder order:
//   HY_COUPLE_VF  F_k (N), ncyl
//   HY_COUPLE_VP  p_a,k then p_b,k (Pa), 2 ncyl: [p_a of every cylinder, p_b of every cylinder];
//                 the mechanics evaluate Eqs. 33-34 (and a seal friction law without states)
//                 with their own s and s_dot
// Until the first set_inputs they hold the monolithic initial state's values (the cylinder
// forces of hy_data_make, its chamber pressures). step_to first evaluates the state with the
// inputs in force (consistent accelerations at the start of the macro step, so that a jump of
// the extrapolated inputs is integrated from its right-hand value), takes its steps, and
// evaluates the end state again for the outputs.
// Outputs: [s_k (m), s_dot_k (m/s), s_ddot_k (m/s^2)] of every cylinder, 3 ncyl, at its time
// (s_ddot of the consistent accelerations there, with the inputs in force when the time was
// reached). Its state (save/restore): hy_state HY_STATE_FULL, the inputs and the outputs.
// HY_ERR_MODEL when m has no cylinder or has seal friction with internal states.
hy_status hy_cosim_mech_make(const hy_model* m, hy_formulation form, hy_cosim_coupling c,
                             double H, hy_cosim_sub** out, hy_error* err);
// Its data and model (for records: kinematics, energies, the cylinders' forces as applied).
const hy_data* hy_cosim_mech_data(const hy_cosim_sub* s);
const hy_model* hy_cosim_mech_model(const hy_cosim_sub* s);
// The reduced interface model of seed 001 Sect. 2.3.1 (Eqs. 10-15, numbered as the seed's own
// references count them: Eq. 12 is M_eff w_dot = Q_eff + lambda) at its current state, for the
// interface velocities w_i = s_dot of all cylinders: M_eff (ncyl x ncyl, row-major) and Q_eff
// (ncyl) with M_eff w_i_dot = Q_eff + F (F the cylinder forces). Exact for any formulation: the
// accelerations are affine in the cylinder forces, so ncyl + 1 evaluations with the forces 0
// and e_j give M_eff^-1 by columns and Q_eff = M_eff s_ddot(F = 0). The state is left bit for
// bit as it was. HY_ERR_SINGULAR when a cylinder cannot move the mechanism (M_eff^-1 singular).
// Never allocates.
hy_status hy_cosim_mech_interface(hy_cosim_sub* s, double* Meff, double* Qeff);
// HY_ERR_MODEL, naming the first such cylinder, when m has seal friction with internal states:
// neither subsystem could integrate them (they follow s_dot and the pressures at once). Laws
// without states are kept in Eq. 33's force on whichever side evaluates it.
hy_status hy_cosim_refuse_friction_states(const hy_model* m, hy_error* err);

//----- a hydraulic subsystem (cosim_hyd.c) -------------------------------------------------------

// Circuit `circ` of m as a subsystem, stepping with `integ` (HY_INTEG_EULER, HY_INTEG_RK4,
// HY_INTEG_TRAPEZOIDAL) and step hh (s). Its state: time, the pressures of the circuit's volumes
// and the spool states of the valves with a volume of the circuit at a port (the positions, then
// the second-order ones' velocities); the inputs over the macro step and the last outputs. Its
// cylinders are those whose piston-side chamber is in the circuit, in model order
// (hy_cosim_hyd_cylinders). Inputs: [s_k (m) of its nc cylinders,
// s_dot_k (m/s) of its nc cylinders], 2 nc (s_dot is an input of its own, not the rate of s's
// polynomial). Outputs at its time, with the input s and s_dot there:
//   HY_COUPLE_VF  the cylinder forces F_k of Eqs. 33-34 (N), nc
//   HY_COUPLE_VP  [p_a of its nc cylinders, p_b of its nc cylinders] (Pa), 2 nc, as the
//                 mechanics' inputs
// Its pressures start as the monolithic data's (hy_data_make of m: equilibrium included), and
// its inputs hold that data's s and s_dot until the first set_inputs. The trapezoidal rule
// solves each step by Newton-Raphson on the pressures with the analytic d p_dot / d p, to
// m->opt.tol_p (Pa; tol_pressure, 1e-2 Pa by default) in at most m->opt.max_iter iterations
// (HY_NEWTON_NOCONV otherwise), and steps the spools in closed form. HY_ERR_MODEL for a circuit
// with no cylinder and for seal friction with internal states.
hy_status hy_cosim_hyd_make(const hy_model* m, int circ, hy_cosim_coupling c,
                            hy_integrator integ, double hh, hy_cosim_sub** out, hy_error* err);
// Its cylinders' model indices (nc of them).
int hy_cosim_hyd_cylinders(const hy_cosim_sub* s, const int** cyl);
// The forces of Eqs. 33-34 of its cylinders at its pressures and at the given lengths and rates
// (nc each; what the interface model integrates with). Changes nothing save/restore covers;
// never allocates.
void hy_cosim_hyd_forces(const hy_cosim_sub* s, const double* len, const double* rate,
                         double* F);
// Its data (pressures, spools, flows, cylinder force parts) for records: only the circuit's
// entries and its cylinders' are its own; the rest is the monolithic initial state.
const hy_data* hy_cosim_hyd_data(const hy_cosim_sub* s);

//----- the Jacobi manager (cosim_jacobi.c, cosim_energy.c) ----------------------------------------

#define HY_COSIM_IM (-1)  // extrapolation `im`: the reduced interface model

typedef struct hy_cosim_config {
  double H;                    // communication step = the mechanics' step (s)
  double hh;                   // the hydraulics' step (s), H / hh whole
  double t_end;                // s
  hy_cosim_coupling coupling;  // vf or vp
  int extrap;                  // 0, 1, 2 (Lagrange order) or HY_COSIM_IM
  int gauss_seidel;            // 1: the mechanics step first and the hydraulics take their
                               // new outputs (beyond seed 001); 0: Jacobi
  hy_formulation mbs;          // formulation of the mechanics (auto: the model's)
  hy_integrator hyd;           // integrator of the hydraulics
} hy_cosim_config;

typedef struct hy_cosim hy_cosim;

hy_status hy_cosim_make(const hy_model* m, const hy_cosim_config* c, hy_cosim** out,
                        hy_error* err);
void hy_cosim_free(hy_cosim* cs);
// One macro step t_n -> t_n + H. A failure (a subsystem's, or the instability rule's) leaves
// the state at t_n with the detail in *err.
hy_status hy_cosim_step(hy_cosim* cs, hy_error* err);
double hy_cosim_time(const hy_cosim* cs);

// What the manager needs of its subsystems besides their operations. hy_cosim_make fills it
// with the subsystems of cosim_mech.c and cosim_hyd.c; the tests give mock ones. Bond k is
// cylinder k of m: the mechanics' inputs and outputs are ordered as hy_cosim_mech_make's, a
// hydraulic subsystem's as hy_cosim_hyd_make's over its cylinders.
typedef struct hy_cosim_parts {
  const hy_model* m;         // names, cylinder areas, source pressures; outlives the manager
  hy_cosim_sub* mech;
  const hy_data* mech_data;  // nullable: no z: channels, mechanical energies 0
  // The reduced interface model at the mechanics' state (hy_cosim_mech_interface); needed
  // for extrap = HY_COSIM_IM only.
  hy_status (*interface)(hy_cosim_sub* mech, double* Meff, double* Qeff);
  int nhyd;
  hy_cosim_sub** hyd;        // nhyd subsystems
  const int* hyd_circ;       // circuit of m each one is (its volumes' pressures are recorded)
  int (*cylinders)(const hy_cosim_sub* h, const int** cyl);  // hy_cosim_hyd_cylinders
  // Eq. 33 at h's pressures and the given lengths and rates (hy_cosim_hyd_forces); IM only.
  void (*forces)(const hy_cosim_sub* h, const double* len, const double* rate, double* F);
  double (*pressure)(const hy_cosim_sub* h, int vol);  // volume vol of m, in h's circuit (Pa)
  int own;                   // 1: the manager destroys the subsystems (on failure too)
} hy_cosim_parts;

// The manager over given subsystems (hy_cosim_make's second half). Checks c and that the
// subsystems' sizes agree with m's cylinders and c->coupling.
hy_status hy_cosim_make_parts(const hy_cosim_parts* p, const hy_cosim_config* c, hy_cosim** out,
                              hy_error* err);

// Macro steps of a run to c->t_end: the whole steps that fit, floor(t_end / H) (within 1e-9),
// so that a run ends at N H <= t_end.
long hy_cosim_nsteps(const hy_cosim* cs);
long hy_cosim_step_count(const hy_cosim* cs);  // macro steps taken
const hy_cosim_config* hy_cosim_get_config(const hy_cosim* cs);
// The mechanics' data (NULL for mock subsystems without one): its formulation is the one the
// run uses (never auto).
const hy_data* hy_cosim_mechanics_data(const hy_cosim* cs);

//----- records: one row per communication point (t = 0 and after each macro step) -------------
// time; per cylinder s:<cyl>, sd:<cyl> (the mechanics' outputs), F:<cyl> (the force the
// mechanics applied, hy_data.frc_force of its data, or the input when it has none),
// F_hyd:<cyl> (vf: the hydraulics' output force, Eq. 33; vp: their pressure force
// p_a A_a - p_b A_b); p:<volume> of every hydraulic subsystem; z:<joint> of the mechanics;
// dP (W, the sum over the bonds) and dP:<cyl> (Eq. 21); E_res, E_res_abs (J, the sums of
// delta E and |delta E|, Eqs. 22-24); E_mech = E_kin + E_pot, E_bal = E_mech - E_mech(0) -
// W_ext, W_cyl (the cylinders' work on the mechanics), W_hyd_out (the work the hydraulics gave,
// the trapezoidal sum of F s_dot~ over the communication points) (J).
int hy_cosim_nchan(const hy_cosim* cs);
const char* hy_cosim_chan_name(const hy_cosim* cs, int i);
const char* hy_cosim_chan_unit(const hy_cosim* cs, int i);
// Column of a channel by its name, or -1.
int hy_cosim_chan_find(const hy_cosim* cs, const char* name);
// The row at the current communication point, nchan values. No allocation.
void hy_cosim_row(const hy_cosim* cs, double* row);

// Energies at the current communication point.
typedef struct hy_cosim_energy {
  double dP;         // W, sum of Eq. 21 over the bonds at t_n (0 at t = 0)
  double E_res;      // J, sum of delta E (Eqs. 23-24) since t = 0
  double E_res_abs;  // J, sum of |delta E|: what a sweep compares
  double E_mech;     // J, E_kin + E_pot of the mechanics
  double E_bal;      // J, E_mech - E_mech(0) - W_ext: 0 for an exact mechanics
  double W_cyl;      // J, work of the cylinders on the mechanics (their data's)
  double W_hyd_out;  // J, work the hydraulics gave, trapezoidal sum of F s_dot~
} hy_cosim_energy;
void hy_cosim_energies(const hy_cosim* cs, hy_cosim_energy* e);

//----- the residual energy (cosim_energy.c) -------------------------------------------------------

// Eq. 21 of one power bond (delta P_k = -(P_k1 + P_k2), Eqs. 16-19), signed as the power
// created at the interface: what the mechanics received (their input force u_m, at their output
// rate y_m) minus what the hydraulics gave (their output force y_h, at their input rate u_h).
// Seed 001 leaves the orientation of the two ports to the reader; this one makes delta P > 0
// energy the coupling created, and E_res_abs does not depend on it.
static inline double hy_cosim_bond_power(double u_m, double y_m, double y_h, double u_h) {
  return u_m * y_m - y_h * u_h;
}
// delta E of one macro step of size H from delta P at its two ends (Eq. 22): the rectangle of
// Eq. 23 at t_{n+1} for extrap = 0, the trapezoid of Eq. 24 for m >= 1 and the interface model
// (Eq. 24 has a stray minus sign in seed 001; the trapezoid of Eq. 22 has none).
double hy_cosim_residual_energy(int extrap, double H, double dP0, double dP1);

// The exponent q of healthy growth of E_res_abs with H for an extrapolation: the input error of
// order m is O(H^(m+1)), so is delta P, and E_res_abs (a sum of T/H terms delta P H) grows as
// H^(m+1); the interface model holds the mechanics' inputs (m = 0): q = 1.
int hy_cosim_growth_order(int extrap);
// The achievable communication step of one configuration (docs/cosim.md, "takeoff rule"): with
// H[0..n) ascending, the largest H[k] such that every run with H <= H[k] completed and, from
// each H[i] to the next, E_res_abs grew at most by HY_COSIM_TAKEOFF (H[i+1]/H[i])^q or stayed
// below e_floor (round-off level). Returns k, or -1 when the smallest H already fails.
#define HY_COSIM_TAKEOFF 4.0
int hy_cosim_achievable(int n, const double* H, const int* completed, const double* E_abs,
                        int q, double e_floor);

#endif  // HYDYN_SRC_COSIM_COSIM_H_
