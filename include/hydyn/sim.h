// hydyn simulation state and stepping: hy_data holds everything that changes while a model runs,
// allocated once by hy_data_make; hy_forward and hy_step never allocate.
#ifndef HYDYN_SIM_H_
#define HYDYN_SIM_H_

#include "hydyn/model.h"
#include "hydyn/types.h"

#ifdef __cplusplus
extern "C" {
#endif

// Counters of a run.
typedef struct hy_stats {
  long nstep;               // steps taken
  long nforward;            // evaluations of the dynamics (hy_forward)
  double wall_time;         // seconds spent inside hy_step (with opt.time_steps)
  long niter;               // Newton iterations, all steps (penalty, double-step)
  int niter_max;            // most Newton iterations in one step
  int niter_last;           // Newton iterations of the last step
  double res_last;          // largest |residual| at the last Newton iteration of the last step
                            // (scaled rows of Eqs. 38-39)
  double wall_last;         // seconds the last step took (with opt.time_steps)
  long npartition;          // double-step partitions chosen (1 + re-selections)
  double violation_max;     // largest |Phi_i| after a step since t = 0 (m or rad)
} hy_stats;

// The state and outputs of a running model. Arrays are owned by the data; read them freely,
// write only time, z and zd (then call hy_forward).
typedef struct hy_data {
  double time;  // s
  double* z;    // relative coordinates (rad or m)            (nz)
  double* zd;   // relative velocities                        (nz)
  double* zdd;  // relative accelerations (from hy_forward)   (nz)

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
  // Newton evaluation, one correction (below the tolerance) before the accepted state
  double* M;  // M'(z), row-major                                        (nz x nz)
  double* Q;  // Q'(z, zd, t)                                            (nz)

  // closed loops (cut joints), seed 000 Sects. 2.2-2.3
  double* phi;       // constraint equations Phi(z) (m or rad)                  (neq)
  double* phi_z;     // Jacobian Phi_z, row-major                               (neq x nz)
  double* phi_bias;  // Phi_z_dot * zd, the velocity-product term of Phi_ddot   (neq)
  double* lam;       // penalty multipliers lambda, Eq. 19                      (neq)
  double violation;  // max |Phi_i| at the current state (m or rad)
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
  double* U;          // directional valve spool positions (V)                  (nvlv)
  double* Ud;         // their time derivatives, Eq. 27 (V/s)                    (nvlv)
  double* vol_V;      // volume: hoses + cylinder chambers (m^3)                 (nvol)
  double* vol_Be;     // effective bulk modulus, Eq. 23 (Pa)                     (nvol)
  double* orf_q;      // throttle flows from -> to (m^3/s)                       (norf)
  double* vlv_q;      // valve flows P->A, B->T, P->B, A->T (m^3/s)              (nvlv x 4)
  double* pvl_q;      // check and relief valve flows from -> to (m^3/s), >= 0   (npvl)
  double* cyl_len_a;  // piston-side chamber length (m)                          (ncyl)
  double* cyl_len_b;  // rod-side chamber length (m)                             (ncyl)
  double* cyl_F_hyd;  // p_a A_a - p_b A_b (N)                                   (ncyl)
  double* cyl_F_visc; // viscous force -c s_dot (N)                              (ncyl)
  double* cyl_F_damp; // end damper force, > 0 pushes out (N)                    (ncyl)
  double work_hyd;    // work of the cylinders' pressure forces since t = 0 (J)
  double diss_visc;   // energy dissipated by cylinder viscosity since t = 0 (J)
  double work_damp;   // work of the end dampers since t = 0 (J), <= 0 when they dissipate

  double energy_kin;  // kinetic energy (J)
  double energy_pot;  // gravitational potential energy, zero at the inertial origin (J)
  double work_ext;    // work done by the applied loads and force elements since t = 0 (J),
                      // trapezoidal in time

  hy_stats stats;
  hy_error err;  // detail of the last failure of a stepping call
  void* work_;   // private workspace
} hy_data;

// Allocates the data of a model (everything a step needs) and resets it to the initial state
// (loop closure, static equilibrium, initial pressures). On failure nothing is allocated and
// err (nullable) says why, with the position in the model file where the cause is known.
HY_API hy_status hy_data_make(const hy_model* m, hy_data** out, hy_error* err);
HY_API void hy_data_free(hy_data* d);
// Back to t = 0, z = z0, zd = zd0, counters cleared; calls hy_forward.
HY_API hy_status hy_data_reset(const hy_model* m, hy_data* d);

// Evaluates the model at (time, z, zd): kinematics, M', Q', zdd, marker kinematics and energies.
HY_API hy_status hy_forward(const hy_model* m, hy_data* d);
// Advances by m->opt.dt with m->opt.integrator. On failure the state is left at the start of
// the step and d->err says why.
HY_API hy_status hy_step(const hy_model* m, hy_data* d);

// Total mechanical energy E_kin + E_pot - work of the applied loads (J): constant for an exact
// solution, so its change measures the integration error.
HY_API double hy_energy_total(const hy_data* d);

#ifdef __cplusplus
}
#endif

#endif  // HYDYN_SIM_H_
