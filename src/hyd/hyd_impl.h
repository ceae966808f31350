// Helpers shared by the files of src/hyd (not used outside it). The small ones are static inline:
// the evaluation applies them to every element on every Newton iteration, where a call would cost
// more than their work.
#ifndef HYDYN_SRC_HYD_HYD_IMPL_H_
#define HYDYN_SRC_HYD_HYD_IMPL_H_

#include <math.h>

#include "core/core.h"
#include "friction/friction.h"
#include "hyd/hyd.h"

// Pressure of node k: volume k's state d->p[k], or for k >= nvol the pressure of source
// k - nvol times its signal at d->time.
double hy_hyd_node_pressure(const hy_model* m, const hy_data* d, int k);

// The limit of valve v's reference |U_ref| (INFINITY for none; a normalized valve's at most 1)
// (hyd_spool.c).
double hy_hyd_spool_limit(const hy_model* m, int v);

// The rules of hy_hyd_initial_state on the pressures in d->p, NaN for the unknown ones, repeated
// until none applies (hyd_initial.c): an equilibrium cylinder's piston side from its rod side,
// and, with `throttles`, the two ends of a throttle alike.
void hy_hyd_initial_rules(const hy_model* m, hy_data* d, int throttles);

// With valves that start at rest (initial: rest): their command offsets d->vlv_u0, their spools
// at the references then, and the pressures of every volume without p0, which replace those of
// the rules (hyd_rest.c); HY_OK at once without such a valve. Errors are HY_ERR_MODEL with the
// valve's position, also in d->err.
hy_status hy_hyd_rest_offsets(const hy_model* m, hy_data* d);

// Oil bulk modulus in volume v at pressure p, and its slope dB/dp into *dB_dp
// (docs/hydraulics.md, "Oil laws"). A circuit's constant and linear laws, all that models
// without the other laws use, are evaluated here, the constant first; the other laws and a
// volume's own oil cost a call (hy_hyd_fluid_modulus, hyd_fluid.c).
static HY_ALWAYS_INLINE double hy_hyd_oil_modulus(const hy_model* m, int v, double p,
                                                  double* dB_dp) {
  const int c = m->vol_circ[v];
  const int fast = m->vol_oil_fast[v];
  if (fast == HY_BULK_CONSTANT) {
    *dB_dp = 0;
    return m->circ_B_oil[c];
  }
  if (fast == HY_BULK_LINEAR) {
    *dB_dp = m->circ_law_k[c];
    return m->circ_B_oil[c] + m->circ_law_k[c] * p;
  }
  return hy_hyd_fluid_modulus(m, v, p, dB_dp);
}

// The same for a volume known to take its circuit's constant or linear law (d->hyd_seed_only):
// the evaluation of the seeds' circuits, as it was before the other laws.
static HY_ALWAYS_INLINE double hy_hyd_circuit_modulus(const hy_model* m, int v, double p,
                                                      double* dB_dp) {
  const int c = m->vol_circ[v];
  if (m->circ_law[c] == HY_BULK_LINEAR) {
    *dB_dp = m->circ_law_k[c];
    return m->circ_B_oil[c] + m->circ_law_k[c] * p;
  }
  *dB_dp = 0;
  return m->circ_B_oil[c];
}

// The one of the two that the evaluation's copy takes: seed_only (a constant there) for the copy
// of the seeds' circuits (d->hyd_seed_only).
static HY_ALWAYS_INLINE double hy_hyd_evaluation_modulus(const hy_model* m, int v, double p,
                                                         double* dB_dp, int seed_only) {
  return seed_only ? hy_hyd_circuit_modulus(m, v, p, dB_dp) : hy_hyd_oil_modulus(m, v, p, dB_dp);
}

// Gas-charged accumulators (hyd_accumulator.c): the oil of each into d->acc_V and into the
// volume sum d->vol_V, its compliance dV_acc/dp into the compliance sum W (d->vol_Be), before
// the evaluation turns them into the pressure rates.
void hy_hyd_accumulators(const hy_model* m, hy_data* d);
// Their part of dX/dp, dV_acc/dp / B_oil + d2V_acc/dp2, on the diagonal of dpd_dp (J, already
// divided by X), once d->pd holds the pressure rates and d->vol_Be the effective moduli.
void hy_hyd_accumulator_partials(const hy_model* m, const hy_data* d, double* J);

// Seal friction of cylinder c (a law other than none) at the chamber pressures pa, pb: F_mu into
// d->cyl_F_fric, the rates of its states into d->wd, and with hw != NULL its derivatives:
// subtracted from dF_dsd and dF_dp (the force is F_hyd + ... - F_mu), and its entries of dF_dw,
// dwd_dw, dwd_dp and dwd_dsd. Returns F_mu.
double hy_hyd_cylinder_friction(const hy_model* m, hy_data* d, hy_hyd_work* hw, int c, double pa,
                                double pb);

// Cylinders driven by another subsystem (d->cyl_input != NULL, co-simulation): what
// hy_hyd_evaluate and hy_hyd_cylinder_forces do instead of the network (hyd_input.c).
void hy_hyd_input_evaluate(const hy_model* m, hy_data* d, hy_hyd_work* hw);
void hy_hyd_input_forces(const hy_model* m, hy_data* d, hy_hyd_work* hw);

// Cylinder c: its chamber lengths into d->cyl_len_a/b from s = d->frc_len, its chambers' V added
// to d->vol_V and V/B_cyl to the compliance sums W in d->vol_Be (the caller starts them from the
// hoses and turns W into Be), its chamber flows added to the inflow sums in d->pd, and its force
// F = F_hyd + F_visc + F_damp into d->cyl_F_* and d->frc_force of its element. With hw != NULL
// also dF_ds, dF_dsd and the nonzero entries of its row of dF_dp (the caller has zeroed dF_dp).
void hy_hyd_cylinder(const hy_model* m, hy_data* d, hy_hyd_work* hw, int c);

// Cylinder c's column of dpd_ds and dpd_dsd, added to the zeroed arrays once d->pd holds the
// pressure rates and d->vol_Be the effective moduli.
void hy_hyd_cylinder_partials(const hy_model* m, const hy_data* d, hy_hyd_work* hw, int c);

// The law of hy_hyd_orifice_flow in its two regimes, inline because hy_hyd_evaluate applies it
// to every throttle and valve path on every Newton iteration, where a call would cost about as
// much as the law; split so that the element's laminar law is looked up only when it matters.
// Nullable: dq_ddp (the slope is then not computed).
// Turbulent, |dp| >= dp_lim: Q = C sgn(dp) sqrt|dp| (seed 000 Eq. 24, Eq. 26 with C = C_vd U).
static HY_ALWAYS_INLINE double hy_hyd_orifice_turbulent(double coeff, double dp, double* dq_ddp) {
  const double r = sqrt(fabs(dp));
  if (dq_ddp) *dq_ddp = 0.5 * coeff / r;
  return dp < 0 ? -coeff * r : coeff * r;
}

// Laminar, |dp| < dp_lim.
static HY_ALWAYS_INLINE double hy_hyd_orifice_laminar(double coeff, double dp, double dp_lim,
                                                      hy_laminar law, double* dq_ddp) {
  const double rl = sqrt(dp_lim);
  if (law == HY_LAMINAR_LINEAR) {
    // seed 003 Eq. 6: Q = gamma_1 dp with gamma_1 = C sqrt(dp_lim) / dp_lim, continuous in value
    // at dp_lim; its slope there is twice the turbulent one
    if (dq_ddp) *dq_ddp = coeff / rl;
    return coeff * dp / rl;
  }
  // cubic: Q = C sqrt(dp_lim) (5x - x^3)/4, x = dp/dp_lim. Odd, with Q(1) = C sqrt(dp_lim) and
  // Q'(1) = C / (2 sqrt(dp_lim)): value and slope meet the turbulent law at +-dp_lim, and the
  // slope at 0 is finite (5C / (4 sqrt(dp_lim))), which the Newton tangent needs
  const double x = dp / dp_lim;
  if (dq_ddp) *dq_ddp = coeff * (5.0 - 3.0 * x * x) / (4.0 * rl);
  return coeff * rl * x * (5.0 - x * x) / 4.0;
}

//----- cylinders (seed 000 Eqs. 28-29 and 42-44 with the README's physical chamber convention,
// seed 001 Eqs. 33-34, seed 003 Eqs. 72-73) ---------------------------------------------------
// Inline so that the evaluation can take the usual single cylinder without a call; hyd_cylinder.c
// wraps them for the loops over several.

// Chamber lengths of cylinder c (force element f) into d->cyl_len_a/b from its actuator length
// s = d->frc_len[f]; returns len_a (len_b = stroke - len_a).
static HY_ALWAYS_INLINE double hy_hyd_chamber_lengths(const hy_model* m, hy_data* d, int c, int f) {
  // seed 003 Eq. 73 (the seeds README correction of seed 000 Eq. 43): the piston-side chamber
  // grows with the actuator length, len_a = |s| - dead length, len_b = stroke - len_a
  const double len_a = d->frc_len[f] - m->cyl_dead[c];
  d->cyl_len_a[c] = len_a;
  d->cyl_len_b[c] = m->cyl_stroke[c] - len_a;
  return len_a;
}

// Chamber lengths and force of cylinder c at the chamber pressures pa, pb: what the evaluation
// needs besides the flows, and all that the end of a step needs. The network passes its own
// pressures; co-simulation's pressure inputs pass theirs (hyd_input.c).
static HY_ALWAYS_INLINE void hy_hyd_cylinder_force_at(const hy_model* m, hy_data* d,
                                                      hy_hyd_work* hw, int c, double pa,
                                                      double pb) {
  const int f = m->cyl_frc[c], va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
  const double Aa = m->cyl_area_a[c], Ab = m->cyl_area_b[c];
  const double sd = d->frc_rate[f];
  const double len_a = hy_hyd_chamber_lengths(m, d, c, f);
  const double len_b = m->cyl_stroke[c] - len_a;
  // seed 000 Eq. 29 / seed 003 Eq. 7: F = p_a A_a - p_b A_b - F_mu (F_mu below)
  const double F_hyd = pa * Aa - pb * Ab;
  // seed 001 Eq. 33: viscous term -c s_dot
  const double F_visc = -m->cyl_visc[c] * sd;
  // seed 001 Eq. 34 with the repelling sign: the printed F_d, subtracted in Eq. 33, would push
  // the piston further into the end it touches and feed energy in through c_d. Here the
  // damper pushes out of the piston-side end (len_a < l_d) and in from the rod-side end
  // (len_b < l_d), and its damping opposes s_dot.
  const double ld = m->cyl_ld[c];
  double F_damp = 0, dFd_ds = 0, dFd_dsd = 0;
  if (ld > 0 && (len_a < ld || len_b < ld)) {
    const double kd = m->cyl_kd[c], cd = m->cyl_cd[c];
    if (len_a < ld) {
      F_damp = kd * (ld - len_a) - cd * sd;  // d len_a/ds = 1
    } else {
      F_damp = -kd * (ld - len_b) - cd * sd;  // d len_b/ds = -1
    }
    dFd_ds = -kd;
    dFd_dsd = -cd;
  }
  d->cyl_F_hyd[c] = F_hyd;
  d->cyl_F_visc[c] = F_visc;
  d->cyl_F_damp[c] = F_damp;
  if (hw) {
    const int nv = m->sizes.nvol;
    hw->dF_dp[c * nv + va] = Aa;
    hw->dF_dp[c * nv + vb] = -Ab;
    hw->dF_ds[c] = dFd_ds;
    hw->dF_dsd[c] = -m->cyl_visc[c] + dFd_dsd;
  }
  // seed 002 Eq. 20: the seal friction, against s_dot
  double F_fric = 0;
  if (m->cyl_fric[c].law != HY_FRICTION_NONE) {
    F_fric = hy_hyd_cylinder_friction(m, d, hw, c, pa, pb);
  }
  d->cyl_F_fric[c] = F_fric;
  d->frc_force[f] = F_hyd + F_visc + F_damp - F_fric;
}

// The same at the network's pressures.
static HY_ALWAYS_INLINE void hy_hyd_cylinder_force(const hy_model* m, hy_data* d, hy_hyd_work* hw,
                                                   int c) {
  hy_hyd_cylinder_force_at(m, d, hw, c, d->p[m->cyl_vol_a[c]], d->p[m->cyl_vol_b[c]]);
}

// hy_hyd_cylinder, inline.
static HY_ALWAYS_INLINE void hy_hyd_cylinder_inline(const hy_model* m, hy_data* d, hy_hyd_work* hw,
                                                    int c) {
  hy_hyd_cylinder_force(m, d, hw, c);
  const int f = m->cyl_frc[c], va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
  const double Aa = m->cyl_area_a[c], Ab = m->cyl_area_b[c];
  const double sd = d->frc_rate[f];
  // seed 000 Eq. 42: V = V_hose + A l; Eq. 23: the chamber is a subvolume of modulus B_cyl.
  // Outside the stroke a chamber volume goes negative: nothing clamps it, the end dampers
  // are what keeps the piston inside.
  const double Va = Aa * d->cyl_len_a[c], Vb = Ab * d->cyl_len_b[c], B = m->cyl_B[c];
  double* V = d->vol_V;
  double* W = d->vol_Be;  // compliance sums until the caller turns them into Be
  V[va] += Va;
  W[va] += Va / B;
  V[vb] += Vb;
  W[vb] += Vb / B;
  // seed 000 Eq. 44: the piston side receives -A_a s_dot and the rod side +A_b s_dot. This is
  // the whole volume-change term dV/dt of seed 003 Eq. 1: nothing else is added for the
  // changing V.
  double* S = d->pd;  // inflow sums
  S[va] -= Aa * sd;
  S[vb] += Ab * sd;
}

// The entries of cylinder c's chamber in volume v, whose volume grows by dV per unit of s: the
// chamber flow gives d S/d s_dot = -dV, its volume dX/ds = dV / B_oil + dV / B_cyl, so
// d p_dot/ds = -p_dot / X dX/ds (the flows do not depend on s). seed_only: as in
// hy_hyd_evaluation_modulus.
static HY_ALWAYS_INLINE void hy_hyd_chamber_partials(const hy_model* m, const hy_data* d,
                                                     hy_hyd_work* hw, int c, int v, double dV,
                                                     int seed_only) {
  const int nc = m->sizes.ncyl;
  double dB;
  const double Boil = hy_hyd_evaluation_modulus(m, v, d->p[v], &dB, seed_only);
  const double X = d->vol_V[v] / d->vol_Be[v];
  const double dX = dV / Boil + dV / m->cyl_B[c];
  hw->dpd_ds[v * nc + c] += -d->pd[v] * dX / X;
  hw->dpd_dsd[v * nc + c] += -dV / X;
}

// hy_hyd_cylinder_partials, inline; seed_only: as in hy_hyd_evaluation_modulus.
static HY_ALWAYS_INLINE void hy_hyd_cylinder_partials_inline(const hy_model* m, const hy_data* d,
                                                             hy_hyd_work* hw, int c,
                                                             int seed_only) {
  hy_hyd_chamber_partials(m, d, hw, c, m->cyl_vol_a[c], m->cyl_area_a[c], seed_only);
  hy_hyd_chamber_partials(m, d, hw, c, m->cyl_vol_b[c], -m->cyl_area_b[c], seed_only);
}

#endif  // HYDYN_SRC_HYD_HYD_IMPL_H_
