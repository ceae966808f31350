// What the two bristle laws of src/friction share (not used outside it).
#ifndef HYDYN_SRC_FRICTION_FRICTION_IMPL_H_
#define HYDYN_SRC_FRICTION_FRICTION_IMPL_H_

#include "friction/friction.h"

// The bristle model of seed 002 Eqs. 25-28 at velocity v and deflection q, for a Stribeck
// function g = F_c + (Fs_eff - F_c) exp(-(|v|/v_s)^n) (LuGre: Fs_eff = F_s; film law:
// (1 - |h|) F_s, Eq. 29), with the partial derivatives of q_dot and F.
typedef struct hy_friction_bristle {
  double g, e;     // g and exp(-(|v|/v_s)^n)
  double qd;       // q_dot (m/s)
  double dqd_dv, dqd_dq;
  double dqd_dg;   // d q_dot / d g at fixed v and q
  double s1;       // sigma1(v)
  double F, dF_dv, dF_dq;
} hy_friction_bristle;

void hy_friction_bristles(const hy_friction_def* p, double v, double q, double Fs_eff,
                          double Fc, hy_friction_bristle* b);

#endif  // HYDYN_SRC_FRICTION_FRICTION_IMPL_H_
