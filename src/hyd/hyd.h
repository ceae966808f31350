// Internal header of src/hyd: lumped-fluid hydraulic networks (seed 000 Sect. 3, Eqs. 22-29;
// seed 001 Sect. 3.2, Eqs. 27-34; seed 003 Eqs. 1-7). Reads cylinder lengths and rates from the
// force-element arrays of hy_data (filled by mech) and writes pressure rates, valve rates and the
// cylinders' forces (d->frc_force of their elements), with exact derivatives for the Newton
// tangent. Never includes mech or friction: form connects them through hy_data.
#ifndef HYDYN_SRC_HYD_HYD_H_
#define HYDYN_SRC_HYD_HYD_H_

#include <stddef.h>

#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "model/model.h"

// Derivatives of the hydraulic right-hand side and of the cylinder forces. The friction states
// w (d->w) are first-order unknowns like the pressures; their rates depend on the pressures (a
// pressure-dependent Coulomb force), on the states and on the cylinder rates, never on the
// lengths, and the pressure rates do not depend on them.
typedef struct hy_hyd_work {
  double* dpd_dp;   // d p_dot / d p                                     (nvol x nvol)
  double* dpd_ds;   // d p_dot / d s   (s = cylinder length |s|)          (nvol x ncyl)
  double* dpd_dsd;  // d p_dot / d s_dot                                 (nvol x ncyl)
  double* dF_dp;    // d F_cyl / d p                                     (ncyl x nvol)
  double* dF_ds;    // d F_cyl / d s                                     (ncyl)
  double* dF_dsd;   // d F_cyl / d s_dot                                 (ncyl)
  double* dwd_dw;   // d w_dot / d w                                     (nfric x nfric)
  double* dwd_dp;   // d w_dot / d p                                     (nfric x nvol)
  double* dwd_dsd;  // d w_dot / d s_dot                                 (nfric x ncyl)
  double* dF_dw;    // d F_cyl / d w                                     (ncyl x nfric)
} hy_hyd_work;

// Doubles the derivative arrays need.
size_t hy_hyd_work_size(const hy_model* m);
// Carves the arrays out of `buf` (hy_hyd_work_size doubles), in the order of the struct (the
// evaluation clears the matrices with one memset). All matrices are row-major.
void hy_hyd_work_bind(const hy_model* m, hy_hyd_work* hw, double* buf);

// Orifice flow from a to b with dp = p_a - p_b (Eqs. 24, 26 with the laminar branch of
// hy_laminar); *dq_ddp receives dQ/d(dp). coeff is C (throttle) or C U (valve path).
// Nullable: dq_ddp.
double hy_hyd_orifice_flow(double coeff, double dp, double dp_lim, hy_laminar law,
                           double* dq_ddp);

// One-way orifice (a throttle with one_way set, docs/hydraulics.md, "Throttle options"): 0 for
// dp <= 0, C sqrt(lim) (5x^2 - 3x^3)/2 with x = dp/lim below lim, C sqrt(dp) from lim on. Value
// and slope are continuous at 0 and at lim (C^1). *dq_ddp receives dQ/d(dp). Nullable: dq_ddp.
double hy_hyd_orifice_one_way(double coeff, double dp, double lim, double* dq_ddp);

// Flow of throttle i from `from` to `to` at dp = p_from - p_to and time t with its options: the
// opening cv min(max(x(t), 0), 1) of its signal, law laminar_transition (the circuit's law
// `laminar` below dp_lim) or turbulent (the cubic branch only below dp_reg), and one-way flow.
// *dq_ddp receives dQ/d(dp). Nullable: dq_ddp.
double hy_hyd_throttle_flow(const hy_model* m, int i, double t, double dp, hy_laminar laminar,
                            double* dq_ddp);

// Coefficients C_k(U) of the paths of directional valve i at spool position U, in the order of
// hy_data.vlv_q (P->A, B->T, P->B, A->T, P->T; docs/hydraulics.md, "Metering edges"): its
// metering windows shifted by the overlap, plus the centre paths of its centre; or, for a valve
// with edge tables, each path's table at U ("Metering edges from tables"). Continuous in U.
void hy_hyd_valve_openings(const hy_model* m, int i, double U, double C[HY_VALVE_PATHS]);

// Flows of directional valve i along its paths at spool position U and port pressures
// pn = {p_P, p_T, p_A, p_B}: the orifice law (`law` below dp_lim) with C_k(U), plus the leakage
// k dp of the four metering edges. Slopes dQ_k/d(dp_k) into dq. Nullable: dq.
void hy_hyd_valve_flows(const hy_model* m, int i, double U, const double pn[4], hy_laminar law,
                        double q[HY_VALVE_PATHS], double* dq);

// The ends of valve path k (hy_data.vlv_q order) as indices into its ports {P, T, A, B}.
extern const int hy_hyd_valve_path[HY_VALVE_PATHS][2];
// Bulk modulus B(p) of oil o at pressure p (Pa) and dB/dp into *dB_dp, by its law
// (docs/hydraulics.md, "Oil laws"): constant, linear, polynomial, air (held below 1e-3 p_atm, so
// also for p <= 0) or table (held outside). Exact derivatives; the table's slope at a point is
// that of the segment above it.
double hy_hyd_oil_law(const hy_oil* o, double p, double* dB_dp);
// The oil modulus in volume v at pressure p (its own oil or its circuit's) and dB/dp, as the
// evaluation finds it: hy_hyd_fluid_modulus for the laws other than a circuit's constant and
// linear ones, and hy_hyd_volume_oil_modulus for any (a call to the evaluation's inline path).
double hy_hyd_fluid_modulus(const hy_model* m, int v, double p, double* dB_dp);
double hy_hyd_volume_oil_modulus(const hy_model* m, int v, double p, double* dB_dp);

// Oil volume V_acc (m^3) held by accumulator i at its volume's pressure p (Pa), with dV/dp into
// *dV_dp and d2V/dp2 into *d2V_dp2 (docs/hydraulics.md, "Accumulators"): V0 (1 - (p0/p)^(1/n))
// above its pre-charge p0, none below, joined by a C^2 blend over a narrow band at p0. Nullable:
// dV_dp, d2V_dp2.
double hy_hyd_accumulator_volume(const hy_model* m, int i, double p, double* dV_dp,
                                 double* d2V_dp2);

// Opening x in [0, 1] of a check or relief valve at the pressure difference dp = p_from - p_to:
// 0 for dp <= p_crack, 1 for dp >= p_crack + p_open, a cubic smoothstep between (C^1);
// *dx_ddp receives dx/d(dp). Nullable: dx_ddp.
double hy_hyd_pressure_valve_opening(double dp, double p_crack, double p_open, double* dx_ddp);

// Flow of a check or relief valve from `from` to `to`: Q = x(dp) hy_hyd_orifice_flow(cv, dp),
// exactly 0 while closed (so never negative); *dq_ddp receives dQ/d(dp). Nullable: dq_ddp.
double hy_hyd_pressure_valve_flow(double cv, double dp, double p_crack, double p_open,
                                  double dp_lim, hy_laminar law, double* dq_ddp);

// Displacement fraction eps of a pressure-compensated pump at the pressure rise
// dp = p_to - p_from: 1 for dp <= p_comp - dp_comp, 0 for dp >= p_comp, and between one minus
// the smoothstep of hy_hyd_pressure_valve_opening (C^1); *deps_ddp receives d eps/d(dp).
// Nullable: deps_ddp.
double hy_hyd_pump_fraction(double dp, double p_comp, double dp_comp, double* deps_ddp);

// Shaft speed n of pump i at time t (rev/s): m->pmp_speed[i] times its signal, if any.
static inline double hy_hyd_pump_speed(const hy_model* m, int i, double t) {
  const int sig = m->pmp_sig[i];
  return sig >= 0 ? m->pmp_speed[i] * hy_signal_eval(m, sig, t) : m->pmp_speed[i];
}

// Flow of pump i from its inlet to its outlet at time t and pressure rise dp = p_to - p_from:
// Q = eps(dp) D n(t) - C_leak dp, eps = 1 for a fixed pump (docs/hydraulics.md, "pumps").
// *eps receives the displacement fraction, *dq_ddp dQ/d(dp). Nullable: eps, dq_ddp.
double hy_hyd_pump_flow(const hy_model* m, int i, double t, double dp, double* eps,
                        double* dq_ddp);

// Evaluates the network at d->time, d->p, d->U, the friction states d->w and the cylinder
// geometry d->frc_len/frc_rate: volumes, bulk moduli, flows (throttles, directional, check and
// relief valves, pumps with their displacement fractions), d->pd, the friction states' rates d->wd, the cylinder force parts and
// d->frc_force of the cylinder elements (F = F_hyd + F_visc + F_damp - F_mu).
// With hw != NULL also the derivatives (not with respect to U: the spools are stepped apart,
// see hy_hyd_spool_step). Never allocates.
// With d->cyl_input set (co-simulation, hydyn/sim.h) the cylinders' forces come from its
// polynomials at d->time instead (forces; or pressures with Eqs. 33-34 at the data's s and
// s_dot, seal friction without states included): d->pd and d->wd are 0, the flows 0, the volumes
// and moduli left as they were, and every derivative 0 but, with pressures, the cylinders'
// dF/ds and dF/ds_dot.
void hy_hyd_evaluate(const hy_model* m, hy_data* d, hy_hyd_work* hw);

// 1 when the circuit has only the seeds' elements: no pump, no accumulator, throttles without
// options, the seeds' 4/3 valves (closed centre, no overlap, no leakage, no edge tables) and every
// volume on its circuit's constant or linear oil law. hy_hyd_initial_state stores it in d->hyd_seed_only,
// where the evaluation takes its copy without the options' tests (the same numbers).
int hy_hyd_seed_only(const hy_model* m);

// Only the cylinders' chamber lengths and forces (d->cyl_len_*, d->cyl_F_*, d->frc_force) at the
// current pressures, friction states and cylinder geometry: what an accepted state needs
// recorded once its pressures and rates are known. Flows, volumes, moduli and d->pd are left as
// they are (d->wd takes the friction laws' rates). With d->cyl_input set, the forces of its
// polynomials, as hy_hyd_evaluate.
void hy_hyd_cylinder_forces(const hy_model* m, hy_data* d);

// The spools (hyd_spool.c, docs/hydraulics.md "Spool dynamics"). Valve v's command signal(t)
// plus the offset d->vlv_u0[v] is shaped into the reference U_ref: a dead zone of half-width d
// (0 inside, shifted by d outside) and a saturation |U_ref| <= the limit. The spool position
// follows U_ref by its dynamics: first order (seed 000 Eq. 27), second order, or none. They do
// not depend on the pressures, so the integrators step them apart (the trapezoidal rule in closed
// form, hy_hyd_spool_step) and the network evaluation reads d->U as it is.
//
// Valve v's command at time t, its signal alone (units of U; 0 without a signal). Inline: for
// the seeds' spools (hy_hyd_spool_seed_only) it is the reference, which the trapezoidal step
// looks up on every step.
static inline double hy_hyd_spool_command(const hy_model* m, int v, double t) {
  const int sig = m->vlv_sig[v];
  return sig >= 0 ? hy_signal_eval(m, sig, t) : 0.0;
}
// The shaping of a command c: sat(dz(c)).
double hy_hyd_spool_shape(const hy_model* m, int v, double c);
// U_ref of valve v at time t (units of U).
double hy_hyd_spool_reference(const hy_model* m, const hy_data* d, int v, double t);
// 1 when every valve's spool is the seeds' (seed 000 Eq. 27): first order, and its reference
// the bare command (no dead zone, no limit, no offset in d->vlv_u0), so that
// hy_hyd_spool_command and hy_hyd_spool_lag give what hy_hyd_spool_reference and
// hy_hyd_spool_step would, bit for bit. hy_hyd_initial_state stores it in d->spool_seed_only.
int hy_hyd_spool_seed_only(const hy_model* m, const hy_data* d);
// y at the end of a step of size h from y0 for y_dot = (r(t) - y) / tau with r(t) = r0 and
// r(t + h) = r1: the trapezoidal rule on the linear equation, solved in closed form,
// y1 = ((1 - a) y0 + a (r0 + r1)) / (1 + a), a = h / (2 tau). The spools follow their reference
// so (seed 000 Eq. 27) in every trapezoidal step, monolithic or not.
static inline double hy_hyd_spool_lag_step(double y0, double r0, double r1, double h, double tau) {
  const double a = h / (2.0 * tau);
  return ((1.0 - a) * y0 + a * (r0 + r1)) / (1.0 + a);
}
// The first-order spool's step of hy_hyd_spool_step, inline for the trapezoidal step of the
// seeds' spools: d->U[v] by hy_hyd_spool_lag_step and d->Ud[v] = (r1 - U) / tau (Eq. 27).
static inline void hy_hyd_spool_lag(const hy_model* m, hy_data* d, int v, double u0, double r0,
                                    double r1, double h) {
  const double tau = m->vlv_tau[v];
  d->U[v] = hy_hyd_spool_lag_step(u0, r0, r1, h, tau);
  d->Ud[v] = (r1 - d->U[v]) / tau;
}
// The trapezoidal step of size h of valve v's spool from the position u0 and, second order, the
// velocity w0 at its start, with the references r0 and r1 at its ends: d->U and d->Ud of the
// valve's states at the end. First order: hy_hyd_spool_lag_step; second order: the 2 x 2 linear
// system of the rule solved in closed form; none: U = r1.
void hy_hyd_spool_step(const hy_model* m, hy_data* d, int v, double u0, double w0, double r0,
                       double r1, double h);
// d->Ud at d->time and d->U; the spools without dynamics (spool: none) take their reference as
// position first, and their rate is 0 (their U is no state: every evaluation sets it).
void hy_hyd_spool_rates(const hy_model* m, hy_data* d);
// The initial spool states: U0, or the reference at d->time for spool: none and initial: rest
// (with the offset d->vlv_u0, which hy_hyd_initial_state solves for initial: rest), the
// second-order velocities 0; then their rates.
void hy_hyd_spool_initial(const hy_model* m, hy_data* d);

// Initial pressures: volumes with a given p0 take it; for HY_CYL_INIT_EQUILIBRIUM cylinders with
// force F (d->frc_static of the element), the rod side takes its p0 and the piston side
// (F + p_b A_b) / A_a (seed 000 Sect. 5); every volume still unknown takes the pressure of a
// known volume it is connected to through throttles (at rest no flow means no pressure drop);
// a volume left unknown is an error naming it (and the pump that feeds it, if one does: a pump
// is a flow source and fixes no pressure). The spools start by hy_hyd_spool_initial. With
// valves that start at rest (initial: rest) their command offsets d->vlv_u0 and the pressures of
// the volumes without p0 come instead from the network's equations, so that every such volume
// and the valves' work ports have no pressure rate (docs/hydraulics.md, "Initial state"; an
// error naming the valve when that fails).
// The rules repeat until none applies, so a rod side known only through a throttle works too.
// A piston side that starts inside an end damper carries F less the damper's spring force
// (needs d->frc_len). An equilibrium cylinder whose piston side other data already fix
// (a p0 reached through a throttle) and that is then out of balance is an error naming it.
// Errors are HY_ERR_MODEL with the position of the volume or cylinder, also in d->err.
// Sources count at d->time (signal-scaled). Last, the friction states take their steady values
// at the cylinders' rates and pressures (hy_friction_steady_states: q = 0 and h = 0 at rest).
hy_status hy_hyd_initial_state(const hy_model* m, hy_data* d);

#endif  // HYDYN_SRC_HYD_HYD_H_
