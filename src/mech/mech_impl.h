// Helpers shared by the files of src/mech only. The public entry points (mech.h) and the 3-D
// reference paths are in mech_kinematics.c and mech_dynamics.c; on planar models those entry
// points hand over to the planar paths of mech_kinematics_planar.c and mech_dynamics_planar.c,
// declared here.
#ifndef HYDYN_SRC_MECH_MECH_IMPL_H_
#define HYDYN_SRC_MECH_MECH_IMPL_H_

#include "core/core.h"
#include "mech/mech.h"

// The items the loads and force elements apply to bodies: each load, and both ends of each force
// element (numbered as in hy_mech_work.app_item; see mech_dynamics.c, applied_wrench).
static inline int hy_mech_applied_count(const hy_model* m) {
  return m->sizes.nload + 2 * m->sizes.nfrc;
}

// Applied load vectors at time t (vector scaled by its signal) into val (nload x 3).
static inline void hy_mech_eval_loads(const hy_model* m, double t, double* val) {
  for (int k = 0; k < m->sizes.nload; k++) {
    const int sig = m->load_sig[k];
    const double s = sig < 0 ? 1.0 : hy_signal_eval(m, sig, t);
    hy_v3_scale(val + 3 * k, m->load_vector + 3 * k, s);
  }
}

//----- planar paths (mech_kinematics_planar.c, mech_dynamics_planar.c) -------------------------

// The position and velocity stages of a planar model on any plane (the tilted-plane path), and
// on the x-y plane (w->xy_fast) for a chain (w->xy_chain) and for any tree.
void hy_mech_kinematics_pos_planar(const hy_model* m, hy_data* d, hy_mech_work* w);
void hy_mech_kinematics_pos_xy_chain(const hy_model* m, hy_data* d, hy_mech_work* w);
void hy_mech_kinematics_pos_xy_tree(const hy_model* m, hy_data* d, hy_mech_work* w);
void hy_mech_kinematics_vel_planar(const hy_model* m, hy_data* d, hy_mech_work* w);
void hy_mech_kinematics_vel_xy_chain(const hy_model* m, hy_data* d, hy_mech_work* w);
void hy_mech_kinematics_vel_xy_tree(const hy_model* m, hy_data* d, hy_mech_work* w);

// M' and Q' of a planar model (any plane).
void hy_mech_dynamics_planar(const hy_model* m, hy_data* d, hy_mech_work* w);
// Its Q' alone (hy_mech_forces).
void hy_mech_forces_planar(const hy_model* m, hy_data* d, hy_mech_work* w);
// Kinetic and potential energy of a planar model, with the inertias about the normal computed
// on the spot, or taken from w->body_Jn.
void hy_mech_energy_planar(const hy_model* m, hy_data* d);
void hy_mech_energy_planar_with_work(const hy_model* m, hy_data* d, const hy_mech_work* w);

#endif  // HYDYN_SRC_MECH_MECH_IMPL_H_
