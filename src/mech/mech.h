// Internal header of src/mech: semi-recursive kinematics and open-tree dynamics in relative
// joint coordinates (seed 000_c866e3283107e8a4.txt, Section 2.1, Eqs. 1-12).
#ifndef HYDYN_SRC_MECH_MECH_H_
#define HYDYN_SRC_MECH_MECH_H_

#include "hydyn/model.h"
#include "hydyn/sim.h"

// Numbers of a body inertia kept as (m, m g, J_O), see mech_dynamics.c.
#define HY_MECH_INERTIA_SIZE 13
// Numbers of a body's record of the planar dynamics (mech_dynamics_planar.c) and of its turn in
// the planar kinematics (angle, cos, sin; mech_kinematics_planar.c).
#define HY_MECH_PLANAR_RECORD 10
#define HY_MECH_TURN_SIZE 3

// Work arrays of the mechanics, owned by the data's private workspace. The 3-D path uses the
// body and composite arrays, the planar paths the turn and planar records; each array has one
// purpose.
typedef struct hy_mech_work {
  double* body_M;    // M-bar_j of each body, Eq. 9, as (m, m g, J_O)          (nbody x 13)
  double* body_Q;    // Q-bar_j - M-bar_j * Zd0_j: forces less velocity terms  (nbody x 6)
  double* body_Zd0;  // Cartesian acceleration with zdd = 0 (T Rd_dot zd)     (nbody x 6)
  double* comp_M;    // composite M-bar of each subtree, same form               (nbody x 13)
  double* comp_Q;    // composite force of each subtree                       (nbody x 6)
  double* turn;      // planar: each body's turn angle and its cos and sin
                     // at the last position stage                          (nbody x 3)
  double* plane_rec; // planar: each subtree's inertia and load and the joint's
                     // planar b, summed from the leaves                     (nbody x 10)
  double* Mfac;      // Cholesky factor of M' (hy_mech_accelerations); NULL when
                     // bound without it (hy_mech_work_size)                  (nz x nz)
  double* load_val;  // applied load vectors at the current time              (nload x 3)
  double* jnt_P;     // joint points on the parents, inertial frame (3-D path) (nbody x 3)
  double* turn_ref;  // planar: a turn angle of each body with its cos and sin
                     // from libm, the base of the next turns nearby        (nbody x 3)
  double* body_Jn;   // planar: inertia about the plane normal through the
                     // centre of mass, constant (set by hy_mech_work_bind)  (nbody)
  int* body_kind;    // planar: HY_MECH_KIND_* bits (set by hy_mech_work_bind)  (nbody)
  int* app_adr;      // planar: the applied items on body j are app_item[app_adr[j] ..
                     // app_adr[j + 1]), on ground none (set by hy_mech_work_bind) (nbody + 1)
  int* app_item;     // planar: the applied items by body, each body's in the order loads, then
                     // ends b and a of each force element: load k as k, force element k's end
                     // b as nload + 2k, end a as nload + 2k + 1          (nload + 2 nfrc)
  int* app_mrk;      // planar: the marker of each of them              (nload + 2 nfrc)
  int* mrk_adr;      // planar: the markers on body j are mrk_on[mrk_adr[j] .. mrk_adr[j + 1]),
                     // on ground none (set by hy_mech_work_bind)          (nbody + 1)
  int* mrk_on;       // planar: the markers on bodies, by body, each body's in index order, so
                     // that the x-y stages place them while their body's turn is in registers
                     //                                                    (nmrk)
  int chain;         // body j hangs from body j - 1 and owns coordinate j, for every j (so
                     // nz = nbody): every pair of joints is related, and M' has no entry that
                     // is zero by topology (set by hy_mech_work_bind)
  int xy_fast;       // planar on the x-y plane with no slide along z: the positions' z
                     // components are constants (set by hy_mech_work_bind)
  int xy_chain;      // xy_fast and chain: the stages' most common path, tested first
  const hy_data* xy_pos_for;  // the data whose constant entries the x-y position and velocity
  const hy_data* xy_vel_for;  // stages have written, or NULL (see mech_kinematics_planar.c)
} hy_mech_work;

// body_kind bits. The joint point on the body lies on the plane normal through the body's
// origin (as when it is the origin itself): turns leave it where it is.
#define HY_MECH_KIND_CPOINT_ON_NORMAL 1
// The joint is not revolute (prismatic): b_ang = 0, and the body keeps its parent's turn.
#define HY_MECH_KIND_SLIDE 2

// Unrolls the loop after it completely when its trip count is a constant up to 8: GCC does not
// by itself when the body holds a loop (the applied items of a body, its markers).
#if defined(__GNUC__)
#define HY_MECH_UNROLL_8 _Pragma("GCC unroll 8")
#else
#define HY_MECH_UNROLL_8
#endif

// Doubles the work arrays need; with_mfac 0 leaves out the factor of M' (Mfac, nz x nz), which
// only hy_mech_accelerations uses, for a data whose formulation never forms M'.
size_t hy_mech_work_size(const hy_model* m, int with_mfac);
// Carves the work arrays out of `buf` (hy_mech_work_size doubles, the same with_mfac).
void hy_mech_work_bind(const hy_model* m, hy_mech_work* w, double* buf, int with_mfac);
// n^T J n of body j of a planar model: its inertia about the axis through its centre of mass
// along the plane normal, which turns about that normal do not change.
double hy_mech_inertia_about_normal(const hy_model* m, int j);
// The bases of the planar kinematics' cos and sin are a cache whose contents decide the last
// bits of later evaluations: a state saved with them and set back repeats a run bit for bit.
// Doubles of the cache, and its copies out of and into w.
static inline int hy_mech_cache_size(const hy_model* m) { return 3 * m->sizes.nbody; }
void hy_mech_cache_get(const hy_model* m, const hy_mech_work* w, double* buf);
void hy_mech_cache_set(const hy_model* m, hy_mech_work* w, const double* buf);
// Drops the bases of the planar kinematics' cos and sin (w->turn_ref), so that the next
// evaluation calls libm: a restarted run then repeats its results bit for bit. Also has the next
// evaluation on the x-y plane write its constant entries again (after the arrays were spoilt).
void hy_mech_forget_turns(const hy_model* m, hy_mech_work* w);

// Positions and velocities of every body and marker, b_j and d_j, from (z, zd): Eqs. 1-6 (d_j and
// the zdd = 0 accelerations of Eq. 3).
void hy_mech_kinematics(const hy_model* m, hy_data* d, hy_mech_work* w);
// Its two stages: positions (rotations, origins, centres of mass, markers, b_j) from z, then
// velocities (Z, d_j, the zdd = 0 accelerations, marker velocities) from zd, so that a change
// of velocities alone does not recompute positions.
// Planar models take paths that turn precomputed body-fixed quantities about the plane normal.
// On planar models hy_mech_kinematics_pos leaves d->body_rot, which nothing in a Newton iteration
// reads, to hy_mech_outputs; hy_mech_kinematics calls it.
void hy_mech_kinematics_pos(const hy_model* m, hy_data* d, hy_mech_work* w);
void hy_mech_kinematics_vel(const hy_model* m, hy_data* d, hy_mech_work* w);
// The outputs the planar position stage leaves out (d->body_rot), from its last evaluation: call
// it after hy_mech_kinematics_pos wherever those are read (the end of a step, hy_forward).
void hy_mech_outputs(const hy_model* m, hy_data* d, hy_mech_work* w);
// r = A v of planar body `body` (A its rotation) at the last hy_mech_kinematics_pos.
void hy_mech_planar_rotate(const hy_model* m, const hy_mech_work* w, int body, const double v[3],
                           double r[3]);
// The same with 3-D rotations, for any model: the reference the planar paths are tested against.
void hy_mech_kinematics_pos_general(const hy_model* m, hy_data* d, hy_mech_work* w);
void hy_mech_kinematics_vel_general(const hy_model* m, hy_data* d, hy_mech_work* w);
// M'(z) and Q'(z, zd, t) by composite accumulation from the leaves to the root, Eqs. 8-12,
// into d->M and d->Q (and the applied loads into w->load_val). Needs hy_mech_kinematics first.
// Planar models take a path with planar inertias and loads, a fraction of the work.
void hy_mech_dynamics(const hy_model* m, hy_data* d, hy_mech_work* w);
// The same with 3-D spatial quantities, for any model: the reference the planar path is tested
// against.
void hy_mech_dynamics_general(const hy_model* m, hy_data* d, hy_mech_work* w);
// Q' alone into d->Q, the same bits as hy_mech_dynamics gives, without M' (d->M is not
// touched and may be NULL): O(nbody) time and memory, for the data of the formulations that
// keep no M' (the static forces and residual of their initial state).
void hy_mech_forces(const hy_model* m, hy_data* d, hy_mech_work* w);
// The joints' viscous damping, Q'_i -= c_i zd_i with c_i = jnt_damp of coordinate i's joint
// (docs/mechanics.md, "Joint damping"), onto d->Q; hy_mech_dynamics and hy_mech_forces add it
// when m->sizes.ndamp > 0. hy_mech_joint_damping_power: its power -sum c_i zd_i^2 (W, <= 0),
// which hy_mech_load_power includes.
void hy_mech_joint_damping(const hy_model* m, hy_data* d);
double hy_mech_joint_damping_power(const hy_model* m, const hy_data* d);
// Solves M' zdd = Q' and fills body accelerations (Eq. 3). Returns HY_ERR_SINGULAR with a
// message in d->err when M' is not positive definite (a massless subtree, say).
hy_status hy_mech_accelerations(const hy_model* m, hy_data* d, hy_mech_work* w);
// Jacobian of the inertial position of a point x fixed on `body` (-1 = ground: zero) with
// respect to z: column i is b_i[0:3] + b_i[3:6] x x for the joints i on the body's path to ground,
// zero elsewhere. J is 3 x nz, row-major. Needs hy_mech_kinematics.
void hy_mech_point_jacobian(const hy_model* m, const hy_data* d, int body, const double x[3],
                            double* J);
// row[zadr_i] += sign c . (b_i[0:3] + b_i[3:6] x x) for the joints i on the path of `body` (-1 =
// ground: nothing): c . dx/dz, the rate of a point x fixed on the body along c, accumulated.
// Needs hy_mech_kinematics_pos.
void hy_mech_add_point_along(const hy_model* m, const hy_data* d, int body, const double x[3],
                             const double c[3], double sign, double* row);
// Acceleration of marker k at zdd = 0 (inertial frame): x_ddot0 = s_ddot0 + w_dot0 x x + w x x_dot
// of its body (Eq. 3 with zdd = 0), so that its acceleration is x_ddot0 + dx/dz zdd (dx/dz:
// hy_mech_add_point_along). Needs both kinematics stages.
void hy_mech_marker_acceleration0(const hy_model* m, const hy_data* d, const hy_mech_work* w,
                                  int k, double dd[3]);
// Phi, Phi_z and Phi_z_dot zd of every cut joint, then of every coupler (its constant row,
// mech_constraint.c coupler_rows), into d->phi, d->phi_z, d->phi_bias, and
// d->violation = max |Phi_i| (seed 000 Sect. 2.2; planar models give in-plane equations only).
// Needs hy_mech_kinematics (which also fills the zdd = 0 accelerations the bias uses).
void hy_mech_constraints(const hy_model* m, hy_data* d, hy_mech_work* w);
// Its two stages: Phi, Phi_z and the violation from the positions alone (after
// hy_mech_kinematics_pos), and the bias Phi_z_dot zd alone (after both kinematics stages).
void hy_mech_constraints_pos(const hy_model* m, hy_data* d, hy_mech_work* w);
void hy_mech_constraints_bias(const hy_model* m, hy_data* d, hy_mech_work* w);
// The nonholonomic rows of D (seed 003 Eq. 14): B into d->phi_z rows neq .., B zd into
// d->nh_rate, B_dot zd into d->phi_bias[neq ..], and d->nh_violation = max |B zd|. Needs both
// kinematics stages.
void hy_mech_nonholonomic(const hy_model* m, hy_data* d, hy_mech_work* w);
// Length, rate and direction of every force element (frc_len, frc_rate, frc_dir). Needs
// hy_mech_kinematics. The forces themselves (d->frc_force) are set by the caller and applied
// by hy_mech_dynamics.
void hy_mech_force_geometry(const hy_model* m, hy_data* d);
// The Cardan charts of spherical and free joints (mech_gimbal.c; docs/mechanics.md,
// "Re-anchored Cardan charts"). hy_mech_gimbal_reset puts each chart's anchor back to the one the
// model defines. hy_mech_gimbal_reanchor re-anchors each chart whose middle angle is beyond
// HY_GIMBAL_REANCHOR at the joint's orientation, its angles zero and its rates and accelerations
// (d->zd, d->zdd) those of the same relative motion; returns how many it re-anchored (counted in
// d->stats.nreanchor). The outputs of the joints after it are unchanged; the chart's own
// massless bodies are not until the next kinematics. hy_mech_gimbal_outputs writes
// d->gimbal_out, the angles of the charts the model defines (fresh: without unwrapping them
// against the last ones). hy_mech_gimbal_check: HY_ERR_SINGULAR with the joint in d->err when a
// middle angle is within HY_GIMBAL_MARGIN of +-90 deg at d->z; HY_OK otherwise.
void hy_mech_gimbal_reset(const hy_model* m, hy_data* d);
int hy_mech_gimbal_reanchor(const hy_model* m, hy_data* d);
void hy_mech_gimbal_outputs(const hy_model* m, hy_data* d, int fresh);
hy_status hy_mech_gimbal_check(const hy_model* m, hy_data* d);
// Kinetic and gravitational potential energy into d->energy_kin / d->energy_pot.
void hy_mech_energy(const hy_model* m, hy_data* d);
// The same, faster on planar models: with the inertias about the normal w->body_Jn.
void hy_mech_energy_with_work(const hy_model* m, hy_data* d, const hy_mech_work* w);
// Power of the applied loads, force elements and joint dampers (W) at the current kinematics.
double hy_mech_load_power(const hy_model* m, const hy_data* d, const hy_mech_work* w);

#endif  // HYDYN_SRC_MECH_MECH_H_
