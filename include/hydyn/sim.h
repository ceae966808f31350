// hydyn simulation state and stepping: hy_data holds everything that changes while a model runs,
// allocated once by hy_data_make; hy_forward and hy_step never allocate.
#ifndef HYDYN_SIM_H_
#define HYDYN_SIM_H_

#include "hydyn/model.h"
#include "hydyn/types.h"

#ifdef __cplusplus
extern "C" {
#endif

// Counters of a run. They count on across hy_state_set (they are not part of the state).
typedef struct hy_stats {
  long nstep;               // steps taken (hy_step calls that succeeded)
  long nforward;            // evaluations of the dynamics with accelerations (hy_forward and
                            // the explicit methods' stages)
  double wall_time;         // seconds spent inside hy_step (with opt.time_steps)
  long niter;               // Newton iterations, all steps and attempts (trapezoidal rule)
  int niter_max;            // most Newton iterations in one attempt of a step
  int niter_last;           // Newton iterations of the last hy_step, all its attempts
  double res_last;          // largest |residual| at the last Newton iteration of the last step
                            // (scaled rows of Eqs. 38-39)
  double wall_last;         // seconds the last step took (with opt.time_steps)
  long npartition;          // double-step partitions chosen (1 + re-selections)
  double violation_max;     // largest |Phi_i| after a step since t = 0 (m or rad)
  double nh_violation_max;  // largest |B zd| after a step since t = 0 (m/s)
  long nsubstep;            // integrator steps taken: one per hy_step, more when a step was
                            // cut or sized by error control
  long ncut;                // step attempts whose Newton iteration failed and that were retried
                            // smaller (hy_option.strict_steps, max_cuts)
  long nreject;             // steps rejected by the local error control
  long nrhs;                // right-hand-side evaluations of the variable-step methods (dopri5,
                            // bs23, adams), their own steps' and rejected steps' stages
  double h_min;             // smallest integrator step taken (s)
  long nreanchor;           // Cardan charts re-anchored (HY_GIMBAL_REANCHOR)
  size_t arena_peak;        // most bytes of work arena in use at once
} hy_stats;

// Co-simulation (src/cosim): how the cylinders of a data take their loads from another subsystem
// instead of from the network (hy_data.cyl_input). Each load is a polynomial in time,
// u(t) = c0 + c1 (t - t0) + c2 (t - t0)^2, evaluated at d->time. The network is then not
// integrated: the pressure and friction-state rates are 0 and so are all their derivatives.
typedef enum hy_cyl_input_mode {
  HY_CYL_INPUT_FORCE = 1,     // F_k(t) of every cylinder (N): coef holds 3 per cylinder, in
                              // cylinder order; no derivative with respect to s or s_dot
  HY_CYL_INPUT_PRESSURE = 2,  // the chamber pressures (Pa): coef holds 3 per p_a of every
                              // cylinder, then 3 per p_b of every cylinder, and
                              // F_k = p_a A_a - p_b A_b - c s_dot - F_d (seed 001 Eqs. 33-34,
                              // seal friction without states included) with the data's own s and
                              // s_dot: the viscous, damper and friction derivatives stay
} hy_cyl_input_mode;

typedef struct hy_cyl_input {
  int mode;            // hy_cyl_input_mode
  double t0;           // s
  const double* coef;  // the coefficients (c0, c1, c2) of each input, as the mode says
} hy_cyl_input;

// The state and outputs of a running model. Arrays are owned by the data; read them freely.
// To change the state, use hy_state_set (or write time, z and zd and call hy_forward, which
// makes the accelerations consistent but leaves the integrator's history as it was).
typedef struct hy_data {
  double time;  // s
  double* z;    // relative coordinates (rad or m)            (nz)
  double* zd;   // relative velocities                        (nz)
  double* zdd;  // relative accelerations (from hy_forward)   (nz)
  double* mom;    // the Hamiltonian formulation's (hdca) state beside z: each joint's canonical
                  // momentum, augmented by the loops' impulses (seed 004 Eqs. 5-8)    (nz)
  double* mom_d;  // its rates                                                       (nz)
  // spherical and free joints: z holds their angles in each chart's current anchor (hy_sizes
  // .ngimbal; HY_GIMBAL_REANCHOR)
  double* gimbal_frame;  // each chart's anchor: the rotation of its first joint's child frame
                         // into its parent's frame at zero angles, row-major; that joint's
                         // jnt_crot until the chart is first re-anchored      (ngimbal x 9)
  double* gimbal_out;    // each chart's angles, rates and accelerations (3 + 3 + 3) in the
                         // chart the model defines, its angles unwrapped in time: the channels
                         // z:, zd:, zdd: of its joints (rad, rad/s, rad/s^2)  (ngimbal x 9)
  double* jnt_react;  // with opt.reactions (dca, hdca): the force and moment [f; n] the parent
                      // side exerts on body j through joint j, at the joint's point, inertial
                      // frame (N, N m; seed 004 Sect. 3.4), a damper's torque or force
                      // included; else 0                                          (nbody x 6)
  double* cut_react;  // with opt.reactions (dca, hdca): the force and moment [f; n] that side b
                      // exerts on side a's body through cut joint k, at its marker a, inertial
                      // frame (N, N m); else 0                                     (ncut x 6)

  // body kinematics in the inertial frame, filled by hy_forward
  double* body_pos;  // origin of the body frame (m)                          (nbody x 3)
  double* body_rot;  // rotation body frame -> inertial frame, row-major      (nbody x 9)
  double* body_com;  // centre of mass g (m)                                  (nbody x 3)
  double* body_Z;    // Cartesian velocity [s_dot; omega], seed 000 Eq. 1     (nbody x 6)
  double* body_Zd;   // Cartesian acceleration [s_ddot; omega_dot]            (nbody x 6)
  double* jnt_b;     // b_j of seed 000 Eq. 2 (joint coordinate to Z)         (nbody x 6)
  double* jnt_d;     // d_j of seed 000 Eq. 3 (velocity-product acceleration) (nbody x 6)
  double* mrk_pos;   // marker positions (m)                                  (nmrk x 3)
  double* mrk_vel;   // marker velocities (m/s)                               (nmrk x 3)

  // open-tree dynamics, seed 000 Eq. 12; after a penalty or double-step step they hold the last
  // Newton evaluation, one correction (below the tolerance) before the accepted state. The O(N)
  // formulations dca and hdca form neither M' nor, while stepping, Q': their data have no M
  // (NULL), so that they grow linearly with the bodies, and Q holds Q' only as the initial
  // state's static check left it (zd = 0) or hy_state_set evaluated it
  double* M;  // M'(z), row-major; NULL with dca and hdca                (nz x nz)
  double* Q;  // Q'(z, zd, t)                                            (nz)

  // closed loops (cut joints), seed 000 Sects. 2.2-2.3, and nonholonomic constraints
  // B(z) zd = 0 (seed 003 Eqs. 11, 14): nc = neq + nnh velocity-level rows D = [Phi_z; B]
  double* phi;       // constraint equations Phi(z) (m or rad)                  (neq)
  double* phi_z;     // D: Phi_z, then B, row-major                             (nc x nz)
  double* phi_bias;  // D_dot * zd, the velocity-product term of D zdd           (nc)
  double* lam;       // penalty multipliers lambda, Eq. 19, then the
                     // nonholonomic ones                                       (nc)
  double* nh_rate;   // B zd: each nonholonomic constraint's velocity (m/s)     (nnh)
  double violation;  // max |Phi_i| at the current state (m or rad)
  double nh_violation;  // max |B zd| at the current state (m/s)
  int ndof;          // independent coordinates (degrees of freedom)
  int* part;         // coordinate indices: ndof independent first, then dependent (nz)
  int rank;          // rank of Phi_z at the initial configuration (< neq: redundant equations)
  double assembly_shift;  // largest coordinate change made to close the loops at t = 0
  double static_residual; // largest generalized force left unbalanced at t = 0 with zd = 0
                          // (N or N m): 0 when the initial state is a static equilibrium

  // force elements
  double* frc_force;  // force applied along a -> b, > 0 pushes apart (N)        (nfrc)
  double* frc_len;    // distance between the markers (m)                       (nfrc)
  double* frc_rate;   // its time derivative (m/s)                              (nfrc)
  double* frc_dir;    // unit vector from a to b                                (nfrc x 3)
  double* frc_static; // static equilibrium force of `equilibrium` elements (N)  (nfrc)

  // hydraulics (lumped fluid, seed 000 Sect. 3, seed 001 Sect. 3.2). After a step, vol_V,
  // vol_Be and the flows are those of the step's last Newton evaluation, whose pressures and
  // positions differ from the accepted ones by less than one correction below the tolerance;
  // pd is the trapezoidal rate of the accepted pressures; U, Ud and the cylinder entries are
  // exact.
  double* p;          // volume pressures (Pa)                                  (nvol)
  double* pd;         // their time derivatives, Eq. 22 (Pa/s)                   (nvol)
  double* w;          // friction states of the cylinders' seals, in cylinder order:
                      // LuGre q (m); film law q (m), h (-); w = p + nvol, so that
                      // [p; w] is one vector of first-order unknowns       (nfric)
  double* wd;         // their time derivatives; wd = pd + nvol                  (nfric)
  double* U;          // the spools' states: the valves' positions (V or fraction of the
                      // full opening), then the velocity of each second-order valve at
                      // index m->vlv_vadr[v] (per s)                          (nspool)
  double* Ud;         // their time derivatives (Eq. 27 for the first order; Ud[v] is
                      // valve v's spool velocity for every order, 0 for spool: none) (nspool)
  int hyd_seed_only;  // the circuit has only the seeds' elements (hy_hyd_initial_state):
                      // the evaluation skips the options' tests
  int spool_seed_only;  // every spool is the seeds' (hy_hyd_spool_seed_only): the
                        // trapezoidal step takes their references as the bare commands
  double* vlv_u0;     // the constant offset added to each valve's command: 0, or solved
                      // for initial: rest when the data are reset (units of U)  (nvlv)
  double* vol_V;      // oil volume: hoses + cylinder chambers + accumulators' oil
                      // (m^3)                                                    (nvol)
  double* vol_Be;     // effective bulk modulus, Eq. 23 (Pa)                     (nvol)
  double* orf_q;      // throttle flows from -> to (m^3/s)                       (norf)
  double* vlv_q;      // valve flows P->A, B->T, P->B, A->T, P->T (m^3/s)  (nvlv x HY_VALVE_PATHS)
  double* pvl_q;      // check and relief valve flows from -> to (m^3/s), >= 0   (npvl)
  double* pmp_q;      // pump flows from -> to (m^3/s)                          (npump)
  double* pmp_eps;    // pump displacement fractions eps (-), 1 for fixed pumps  (npump)
  double* acc_V;      // oil held by each accumulator at its volume's pressure
                      // (m^3); it is also in vol_V                              (nacc)
  double* cyl_len_a;  // piston-side chamber length (m)                          (ncyl)
  double* cyl_len_b;  // rod-side chamber length (m)                             (ncyl)
  double* cyl_F_hyd;  // p_a A_a - p_b A_b (N)                                   (ncyl)
  double* cyl_F_visc; // viscous force -c s_dot (N)                              (ncyl)
  double* cyl_F_damp; // end damper force, > 0 pushes out (N)                    (ncyl)
  double* cyl_F_fric; // seal friction F_mu, opposing s_dot (N): subtracted      (ncyl)
  double work_hyd;    // work of the cylinders' pressure forces since t = 0 (J)
  double diss_visc;   // energy dissipated by cylinder viscosity since t = 0 (J)
  double work_damp;   // work of the end dampers since t = 0 (J), <= 0 when they dissipate
  double diss_fric;   // energy dissipated by seal friction since t = 0 (J): the integral of
                      // F_mu s_dot (its stored part, sigma0 q^2 / 2 in the bristles, included)

  // co-simulation (src/cosim): NULL in a monolithic run, where the network drives the
  // cylinders; otherwise where their loads come from (hy_cyl_input). hy_data_make leaves it NULL;
  // it is not part of the state (its owner saves the polynomials)
  const hy_cyl_input* cyl_input;

  double energy_kin;  // kinetic energy (J)
  double energy_pot;  // gravitational potential energy, zero at the inertial origin (J)
  double work_ext;    // work done by the applied loads, force elements and joint dampers
                      // (negative) since t = 0 (J), trapezoidal in time

  // how the data steps, chosen once by hy_data_make from the model's options (never auto); the
  // data keeps it, whatever the options say later, since its arrays are laid out for it
  hy_formulation formulation;
  hy_integrator integrator;
  char note[256];      // why, when the options left the choice to hydyn ("" otherwise)
  double work_bytes;   // bytes of work memory the data holds (arrays and arena)

  hy_stats stats;
  hy_error err;  // detail of the last failure of a stepping call
  void* work_;   // private workspace
} hy_data;

// Allocates the data of a model (everything a step needs) and resets it to the initial state
// (loop closure, static equilibrium, initial pressures). It chooses the formulation and the
// integrator from m->opt (auto: see hy_formulation, hy_integrator) and refuses a pair that cannot
// run the model (HY_ERR_MODEL: the tree formulation with cut joints, an explicit integrator with
// a formulation that has no ODE right-hand side), and a model whose work memory would exceed
// m->opt.max_memory (HY_ERR_NOMEM, with the estimate, before allocating). On failure nothing is
// allocated and err (nullable) says why, with the position in the model file where the cause
// is known.
HY_API hy_status hy_data_make(const hy_model* m, hy_data** out, hy_error* err);
HY_API void hy_data_free(hy_data* d);
// Back to t = 0, z = z0, zd = zd0, counters cleared; calls hy_forward.
HY_API hy_status hy_data_reset(const hy_model* m, hy_data* d);

// Evaluates the model at (time, z, zd): kinematics, M', Q', zdd, marker kinematics and energies.
HY_API hy_status hy_forward(const hy_model* m, hy_data* d);
// Advances by m->opt.dt with the data's integrator (see hy_option: a trapezoidal step whose
// Newton iteration fails is cut unless opt.strict_steps; with opt.error_control the step is
// taken in as many steps as its local error asks for, ending at t + dt). On failure the state
// is left at the start of the step and d->err says why.
HY_API hy_status hy_step(const hy_model* m, hy_data* d);
// Re-anchors the Cardan chart of every spherical and free joint whose middle angle is beyond
// HY_GIMBAL_REANCHOR at (z, zd, zdd), keeping the joint's orientation and relative motion
// (docs/mechanics.md, "Re-anchored Cardan charts"); returns how many. hy_step does it after
// every step. With model_charts the angles in z, zd and zdd are first taken in the charts the
// model defines (as the channels z:, zd:, zdd: record them), not in the data's current anchors:
// a caller that writes recorded angles into z calls it so before hy_forward, which then stays
// clear of the gimbal lock.
HY_API int hy_reanchor(const hy_model* m, hy_data* d, int model_charts);

//----- state segments ------------------------------------------------------------------------
// The state of a data in named segments, in this order, each a run of doubles:
//   HY_STATE_TIME   t (1)
//   HY_STATE_POS    z (nz), then the anchors of the Cardan charts of spherical and free joints
//                   (hy_data.gimbal_frame, 9 per chart), in which z holds their angles
//   HY_STATE_VEL    zd (nz)
//   HY_STATE_PRES   p (nvol)
//   HY_STATE_SPOOL  U (nspool: the spool positions, then the second-order spools' velocities)
//   HY_STATE_FRIC   friction states w (nfric)
//   HY_STATE_HIST   what a step carries besides: accelerations, pressure rates, multipliers,
//                   the integrator's and the formulation's histories, the partition, the
//                   powers and works, the charts' last channel values (hy_data.gimbal_out),
//                   the cached bases of the planar rotations
// HY_STATE_FULL, all of them, saves a data by value: setting it back (in the same data or in
// another made from the same model) and stepping on gives bit for bit what never having
// stopped gives. hy_stats are not part of the state.
enum {
  HY_STATE_TIME = 1,
  HY_STATE_POS = 2,
  HY_STATE_VEL = 4,
  HY_STATE_PRES = 8,
  HY_STATE_SPOOL = 16,
  HY_STATE_FRIC = 32,
  HY_STATE_HIST = 64,
  HY_STATE_PHYSICS = HY_STATE_POS | HY_STATE_VEL | HY_STATE_PRES | HY_STATE_SPOOL | HY_STATE_FRIC,
  HY_STATE_FULL = HY_STATE_TIME | HY_STATE_PHYSICS | HY_STATE_HIST,
};

// Number of doubles of the segments in `segments` (bits of HY_STATE_*), 0 for none or an unknown
// bit.
HY_API int hy_state_size(const hy_model* m, const hy_data* d, unsigned segments);
// Copies the segments into buf (hy_state_size doubles). HY_ERR_ARG for unknown bits.
HY_API hy_status hy_state_get(const hy_model* m, const hy_data* d, unsigned segments,
                              double* buf);
// Sets the segments from buf. With HY_STATE_HIST the data's outputs are evaluated at the new
// state, which stays exactly as given. Without it the history no longer belongs to the state:
// the data starts afresh there, like at t = 0 but without closing the loops or solving for
// equilibrium (consistent accelerations, rates and multipliers; the integrator forgets the
// steps before). Returns HY_ERR_NAN (and changes nothing) when a value is not finite, HY_ERR_ARG
// when the history belongs to another formulation or is not a state of this model.
HY_API hy_status hy_state_set(const hy_model* m, hy_data* d, unsigned segments, const double* buf);

//----- running a model -----------------------------------------------------------------------

// Called with the state after a recorded step (and at t = 0). A status other than HY_OK ends the
// run with that status.
typedef hy_status (*hy_record_fn)(void* user, const hy_model* m, const hy_data* d);
// Called about every progress_interval seconds of wall time; nonzero stops the run after the
// current step (hy_run_summary.stopped).
typedef int (*hy_progress_fn)(void* user, const hy_model* m, const hy_data* d);

typedef struct hy_run_options {
  long every;                      // record every N-th step (>= 1); the first and the last
                                   // state are always recorded
  hy_record_fn record;             // Nullable
  void* record_user;
  hy_progress_fn progress;         // Nullable
  void* progress_user;
  double progress_interval;        // s of wall time
  const volatile int* stop;        // Nullable: the run stops after the step during which it
                                   // became nonzero (for signal handlers)
} hy_run_options;

// every = 1, no recorder, no progress, progress_interval = 1 s, no stop flag.
HY_API hy_run_options hy_run_options_default(void);

// What a run did. Entries that do not apply are NAN (or 0 for counts).
typedef struct hy_run_summary {
  hy_status status;         // HY_OK, or the status the run ended with
  int stopped;              // 1: stopped early by the stop flag or the progress callback
  long long steps;          // steps taken
  double t_reached;         // time of the last state (s)
  double t_fail;            // time of the start of the step that failed (s), NAN
  double wall;              // wall time of the stepping loop, recording included (s)
  double rtf;               // simulated time over wall time
  double iter_mean;         // Newton iterations per attempted integrator step, NAN
  int iter_max;             // most Newton iterations in one attempt
  double violation_max;     // largest |Phi_i| after a step (m or rad), NAN without cut joints
  double nh_violation_max;  // largest |B zd| after a step (m/s), NAN without nonholonomic
                            // constraints
  double energy0;           // hy_energy_total at the start (J)
  double drift;             // largest |hy_energy_total - energy0| (J)
  double scale;             // largest |E_kin| + |E_pot| (J)
  double drift_rel;         // drift / scale
  double released;          // largest E_pot(start) - E_pot(t) (J): potential energy set free
  double drift_pct_pot;     // drift in % of released, NAN when the model has cylinders or
                            // released only round-off (below 1e-6 of the scale)
  double work_act_max;      // largest |work of the cylinders| (J), NAN without cylinders
  double drift_pct_work;    // drift in % of work_act_max, NAN without cylinders or when their
                            // work is round-off (below 1e-6 of the scale)
} hy_run_summary;

// Steps m from the current state of d to m->opt.t_end: the steps of m->opt.dt, and a last,
// shorter one when t_end is not a whole number of steps, recording as `o` says (NULL: the
// defaults). Fills *s (nullable) in every case. HY_ERR_ARG when dt > t_end or either is not
// positive and finite; the status of a failed step or recorder otherwise.
HY_API hy_status hy_run(const hy_model* m, hy_data* d, const hy_run_options* o,
                        hy_run_summary* s);

// Total mechanical energy E_kin + E_pot - work of the applied loads (J): constant for an exact
// solution, so its change measures the integration error.
HY_API double hy_energy_total(const hy_data* d);
// Work the cylinders did on the mechanism since t = 0 (J): their pressure forces, less what
// viscosity and seal friction dissipated, plus the end dampers' work (<= 0 when they dissipate):
// work_hyd - diss_visc - diss_fric + work_damp. hydyn quotes energy drift against its maximum.
HY_API double hy_actuator_work(const hy_data* d);

#ifdef __cplusplus
}
#endif

#endif  // HYDYN_SIM_H_
