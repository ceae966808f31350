// Helpers shared by the files of src/hyd (not used outside it).
#ifndef HYDYN_SRC_HYD_HYD_IMPL_H_
#define HYDYN_SRC_HYD_HYD_IMPL_H_

#include "hyd/hyd.h"

// Pressure of node k: volume k's state d->p[k], or for k >= nvol the pressure of source
// k - nvol times its signal at d->time.
double hy_hyd_node_pressure(const hy_model* m, const hy_data* d, int k);

// Oil bulk modulus of volume v's circuit at pressure p, and its slope dB/dp into *dB_dp
// (0 for the constant law).
double hy_hyd_oil_modulus(const hy_model* m, int v, double p, double* dB_dp);

// Chamber lengths of every cylinder into d->cyl_len_a/b from s = d->frc_len, and the volumes'
// V (d->vol_V) and compliance sum W = V_hose/B_hose + sum V_chamber/B_cyl (m^3/Pa, written
// to d->vol_Be, which the caller overwrites with Be).
void hy_hyd_volumes(const hy_model* m, hy_data* d);

// Cylinder forces F = F_hyd + F_visc + F_damp into d->cyl_F_* and d->frc_force of their
// elements, and with hw != NULL the partials dF_dp, dF_ds, dF_dsd. Needs d->cyl_len_a/b.
void hy_hyd_cylinder_forces(const hy_model* m, hy_data* d, hy_hyd_work* hw);

#endif  // HYDYN_SRC_HYD_HYD_IMPL_H_
