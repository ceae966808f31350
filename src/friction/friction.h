// Internal header of src/friction: seal friction laws of hydraulic cylinders (seed 002
// Sects. 3.1-3.4, Eqs. 21-34; seed 003 Eq. 8; docs/friction.md). A law gives the friction force
// F_mu from the piston's relative velocity v = s_dot, its internal states w (none, the bristle
// deflection q, or q and the lubricant film h) and the effective Coulomb force; the rates of the
// internal states; and every partial derivative the Newton tangent needs. Pure functions of
// their arguments: the laws know nothing of cylinders, pressures or the state of a run (hyd
// applies them). One file per law, dispatched by a switch on the law.
#ifndef HYDYN_SRC_FRICTION_FRICTION_H_
#define HYDYN_SRC_FRICTION_FRICTION_H_

#include "hydyn/model.h"

#define HY_FRICTION_MAX_STATES 2

// A law's value and partial derivatives at (v, w, F_c). F_c enters as an argument because it
// may follow the chamber pressures (hy_friction_def.pressure_coefficient); dF_dFc and dwd_dFc
// carry that dependence to the tangent.
typedef struct hy_friction_out {
  double F;                                      // F_mu (N), sign of v at steady state
  double dF_dv;                                  // N s/m
  double dF_dFc;                                 // -
  double dF_dw[HY_FRICTION_MAX_STATES];          // N per unit of state
  double wd[HY_FRICTION_MAX_STATES];             // state rates
  double dwd_dv[HY_FRICTION_MAX_STATES];
  double dwd_dFc[HY_FRICTION_MAX_STATES];
  double dwd_dw[HY_FRICTION_MAX_STATES][HY_FRICTION_MAX_STATES];  // [rate][state]
} hy_friction_out;

// A law's internal states, their names and units: hy_friction_nstates, hy_friction_state_name
// and hy_friction_state_unit (include/hydyn/model.h: the compiler counts them, the recorders name
// them).

// The effective Coulomb force for the normal load N = p_a A_a + p_b A_b (N):
// F_c + pressure_coefficient N.
static inline double hy_friction_coulomb(const hy_friction_def* p, double N) {
  return p->coulomb + p->pressure_coefficient * N;
}

// The law at velocity v (m/s), states w (hy_friction_nstates entries; ignored for static laws)
// and effective Coulomb force Fc (N). Entries of `out` beyond the law's states are zeroed.
void hy_friction_eval(const hy_friction_def* p, double v, const double* w, double Fc,
                      hy_friction_out* out);

// The internal states at steady sliding with velocity v (their rates zero), into w. At v = 0
// every bristle deflection |sigma0 q| <= g(0) is a steady state: hydyn takes q = 0 (the
// equilibrium pressures carry the whole static load, seed 002 Sect. 5) and h = 0 (no film at
// rest, Eq. 32).
void hy_friction_steady_states(const hy_friction_def* p, double v, double Fc, double* w);

// The steady-state force at constant velocity v: the static laws' value, the dynamic laws'
// value at their steady states (LuGre: g(v) sgn(v) + sigma2 v).
double hy_friction_steady_force(const hy_friction_def* p, double v, double Fc);

//----- the laws (one file each; hy_friction_eval dispatches) ---------------------------------
// Each writes F, dF_dv, dF_dFc and, for the dynamic laws, its states' entries; `out` is zeroed.
void hy_friction_coulomb_eval(const hy_friction_def* p, double v, double Fc, hy_friction_out* o);
void hy_friction_bengisu_akay_eval(const hy_friction_def* p, double v, double Fc,
                                   hy_friction_out* o);
void hy_friction_brown_mcphee_eval(const hy_friction_def* p, double v, double Fc,
                                   hy_friction_out* o);
void hy_friction_lugre_eval(const hy_friction_def* p, double v, const double* w, double Fc,
                            hy_friction_out* o);
void hy_friction_lugre_film_eval(const hy_friction_def* p, double v, const double* w, double Fc,
                                 hy_friction_out* o);
// The film's steady thickness h_ss(v) of Eq. 32 (smoothed, docs/friction.md) and its slope.
double hy_friction_film_steady(const hy_friction_def* p, double v, double* dh_dv);
// LuGre's Stribeck function g(v) of Eq. 26 (film: Eq. 29 at h) for the states' steady values.
double hy_friction_lugre_g(const hy_friction_def* p, double v, double h, double Fc);

#endif  // HYDYN_SRC_FRICTION_FRICTION_H_
