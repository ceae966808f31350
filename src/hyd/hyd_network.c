// The hydraulic network: flows through throttles, directional, check and relief valves and
// from pumps, the pressure rates of the volumes (seed 000 Eqs. 22-27, seed 001 Sect. 3.2, seed
// 003 Eqs. 1-6) and their exact partial derivatives for the monolithic Newton tangent (seed 000
// Sect. 4).
#include <string.h>

#include "hyd/hyd_impl.h"

//----- work arrays -----------------------------------------------------------------------------

// Doubles of the matrices dpd_dp, dpd_ds, dpd_dsd and dF_dp, which come first in the block.
static size_t work_matrices(int nvol, int ncyl) {
  const size_t nv = (size_t)nvol, nc = (size_t)ncyl;
  return nv * nv + 2 * nv * nc + nc * nv;
}

// Doubles of the friction states' matrices dwd_dw, dwd_dp, dwd_dsd and dF_dw, which follow.
static size_t friction_matrices(const hy_model* m) {
  const size_t nw = (size_t)m->sizes.nfric, nv = (size_t)m->sizes.nvol;
  const size_t nc = (size_t)m->sizes.ncyl;
  return nw * nw + nw * nv + nw * nc + nc * nw;
}

size_t hy_hyd_work_size(const hy_model* m) {
  return work_matrices(m->sizes.nvol, m->sizes.ncyl) + 2 * (size_t)m->sizes.ncyl +
         friction_matrices(m);
}

void hy_hyd_work_bind(const hy_model* m, hy_hyd_work* hw, double* buf) {
  const size_t nv = (size_t)m->sizes.nvol, nc = (size_t)m->sizes.ncyl;
  hw->dpd_dp = buf;
  buf += nv * nv;
  hw->dpd_ds = buf;
  buf += nv * nc;
  hw->dpd_dsd = buf;
  buf += nv * nc;
  hw->dF_dp = buf;
  buf += nc * nv;
  hw->dF_ds = buf;
  buf += nc;
  hw->dF_dsd = buf;
  buf += nc;
  const size_t nw = (size_t)m->sizes.nfric;
  hw->dwd_dw = buf;
  buf += nw * nw;
  hw->dwd_dp = buf;
  buf += nw * nv;
  hw->dwd_dsd = buf;
  buf += nw * nc;
  hw->dF_dw = buf;
}

//----- nodes and oil ---------------------------------------------------------------------------

// Pressure of a source node (i = node - nvol) at time t.
static inline double source_pressure(const hy_model* m, int i, double t) {
  const int sig = m->src_sig[i];
  return sig >= 0 ? m->src_p[i] * hy_signal_eval(m, sig, t) : m->src_p[i];
}

static inline double node_pressure(int nv, const hy_model* m, const double* p, double t, int k) {
  return k < nv ? p[k] : source_pressure(m, k - nv, t);
}

double hy_hyd_node_pressure(const hy_model* m, const hy_data* d, int k) {
  return node_pressure(m->sizes.nvol, m, d->p, d->time, k);
}

// Laminar law of an element whose nodes are `nodes` (at least one is a volume; compilation
// checked that all are in one circuit).
static inline hy_laminar laminar_of(const hy_model* m, const int* nodes, int n) {
  for (int k = 0; k < n; k++) {
    if (nodes[k] < m->sizes.nvol) return (hy_laminar)m->circ_laminar[m->vol_circ[nodes[k]]];
  }
  return HY_LAMINAR_CUBIC;
}

// Adds a flow q from node a to node b (q = f(p_a - p_b), slope dq) to the inflow sums S of
// the volumes (Eq. 22: outflow counts negative) and, with J != NULL, to dS/dp.
static HY_ALWAYS_INLINE void add_flow(int nv, double* S, double* J, int a, int b, double q,
                                      double dq) {
  if (a < nv) {
    S[a] -= q;
    if (J) {
      J[a * nv + a] -= dq;
      if (b < nv) J[a * nv + b] += dq;
    }
  }
  if (b < nv) {
    S[b] += q;
    if (J) {
      J[b * nv + b] -= dq;
      if (a < nv) J[b * nv + a] += dq;
    }
  }
}

// Orifice-law flow of a path of the element with nodes `nodes` (Eqs. 24, 26) and its slope; the
// element's laminar law is looked up only below dp_lim, where it matters. Nullable: dq.
static HY_ALWAYS_INLINE double path_flow(const hy_model* m, const int* nodes, int n, double coeff,
                                         double dp, double dp_lim, double* dq) {
  if (fabs(dp) >= dp_lim) return hy_hyd_orifice_turbulent(coeff, dp, dq);
  return hy_hyd_orifice_laminar(coeff, dp, dp_lim, laminar_of(m, nodes, n), dq);
}

// Whether throttle i is the plain one of seed 000 Eq. 24 (no option of hy_hyd_throttle_flow),
// which the evaluation inlines as it always has.
static HY_ALWAYS_INLINE int plain_throttle(const hy_model* m, int i) {
  return m->orf_sig[i] < 0 && m->orf_law[i] == HY_ORIFICE_LAMINAR_TRANSITION && !m->orf_one_way[i];
}

// Whether valve i is the seeds' valve (seed 000 Eq. 26: closed centre, edges without overlap,
// leakage or tables), which the evaluation inlines as it always has; others go through hyd_valve.c.
static HY_ALWAYS_INLINE int seed_valve(const hy_model* m, int i) {
  return m->vlv_centre[i] == HY_CENTRE_CLOSED && m->vlv_overlap[i] == 0 && m->vlv_leak[i] == 0 &&
         !hy_model_valve_tables(m, i);
}

// Valve i with its metering edges (hy_hyd_valve_flows): its five path flows into d->vlv_q and
// the inflow sums S, their slopes into J (nullable). Not inlined: the seeds' circuits never
// call it.
static void edge_valve(int nv, const hy_model* m, hy_data* d, double* S, double* J, int i) {
  const int* nd = m->vlv_node + 4 * i;  // P, T, A, B
  double pn[4], dq[HY_VALVE_PATHS];
  for (int k = 0; k < 4; k++) pn[k] = node_pressure(nv, m, d->p, d->time, nd[k]);
  double* q = d->vlv_q + HY_VALVE_PATHS * i;
  hy_hyd_valve_flows(m, i, d->U[i], pn, laminar_of(m, nd, 4), q, J ? dq : NULL);
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    add_flow(nv, S, J, nd[hy_hyd_valve_path[k][0]], nd[hy_hyd_valve_path[k][1]], q[k],
             J ? dq[k] : 0.0);
  }
}

//----- evaluation ------------------------------------------------------------------------------

// The evaluation, inlined by hy_hyd_evaluate with hw == NULL, where the compiler then drops
// every slope and tangent update (the residual without a fresh tangent and the outputs at the end
// of a step, about two calls in three), and with hw; each of the two sized on the volumes (nv)
// and, for the usual single cylinder, on nc = 1 as well.
static HY_ALWAYS_INLINE void evaluate(int nv, int nc, int seed_only, const hy_model* m,
                                      hy_data* d, hy_hyd_work* hw) {
  const int no = m->sizes.norf, nl = m->sizes.nvlv, npv = m->sizes.npvl;
  const int npm = seed_only ? 0 : m->sizes.npump;
  const double t = d->time;
  const double* p = d->p;
  double* S = d->pd;  // inflow sums until they are scaled into pressure rates
  double* J = hw ? hw->dpd_dp : NULL;
  double dq = 0;  // slope of the last flow, for J only
  double* const dq_out = J ? &dq : NULL;

  // seed 000 Eq. 42 and Eq. 23 for the hoses (the cylinders add the chambers)
  double* V = d->vol_V;
  double* W = d->vol_Be;  // compliance sums until they are turned into Be
  for (int v = 0; v < nv; v++) {
    const double hose = m->vol_hose[v];
    V[v] = hose;
    W[v] = hose > 0 ? hose / m->vol_B_hose[v] : 0.0;
    S[v] = 0;
  }
  // dpd_dp, dpd_ds, dpd_dsd and dF_dp follow each other in one block (hy_hyd_work_bind): one
  // loop clears the entries that no element writes (with nv and nc constants a few vector
  // stores; memset's rep stos takes twice the instructions)
  if (hw) hy_zero_n((int)work_matrices(nv, nc), hw->dpd_dp);
  if (hw && m->sizes.nfric > 0) memset(hw->dwd_dw, 0, sizeof(double) * friction_matrices(m));

  // the single cylinder inline; several by a call each: in a loop, the compiler would keep the
  // addresses of some twenty arrays across it, more than there are registers
  if (nc == 1) {
    hy_hyd_cylinder_inline(m, d, hw, 0);
  } else {
    for (int c = 0; c < nc; c++) hy_hyd_cylinder(m, d, hw, c);
  }

  // throttles, seed 000 Eq. 24 (laminar below dp_lim); with options through hyd_orifice.c
  for (int i = 0; i < no; i++) {
    const int* nd = m->orf_node + 2 * i;
    const double dp = node_pressure(nv, m, p, t, nd[0]) - node_pressure(nv, m, p, t, nd[1]);
    const double q = seed_only || plain_throttle(m, i)
                         ? path_flow(m, nd, 2, m->orf_cv[i], dp, m->orf_dp_lim[i], dq_out)
                         : hy_hyd_throttle_flow(m, i, t, dp, laminar_of(m, nd, 2), dq_out);
    d->orf_q[i] = q;
    add_flow(nv, S, J, nd[0], nd[1], q, dq);
  }

  // check and relief valves: the throttle's law scaled by an opening that follows dp
  for (int i = 0; i < npv; i++) {
    const int* nd = m->pvl_node + 2 * i;
    const double dp = node_pressure(nv, m, p, t, nd[0]) - node_pressure(nv, m, p, t, nd[1]);
    const double q =
        hy_hyd_pressure_valve_flow(m->pvl_cv[i], dp, m->pvl_p_crack[i], m->pvl_p_open[i],
                                   m->pvl_dp_lim[i], laminar_of(m, nd, 2), dq_out);
    d->pvl_q[i] = q;
    add_flow(nv, S, J, nd[0], nd[1], q, dq);
  }

  // pumps, docs/hydraulics.md "pumps": Q = eps(dp) D n(t) - C_leak dp falls with the pressure
  // rise dp = p_to - p_from, so its slope in p_from - p_to (add_flow's) is -dQ/d(dp)
  for (int i = 0; i < npm; i++) {
    const int* nd = m->pmp_node + 2 * i;
    const double rise = node_pressure(nv, m, p, t, nd[1]) - node_pressure(nv, m, p, t, nd[0]);
    const double q = hy_hyd_pump_flow(m, i, t, rise, d->pmp_eps + i, dq_out);
    d->pmp_q[i] = q;
    add_flow(nv, S, J, nd[0], nd[1], q, -dq);
  }

  // 4/3 directional valves, seed 000 Eq. 26 / seed 001 Eq. 31: U > 0 opens P->A and B->T,
  // U < 0 opens P->B and A->T, each path with coefficient C_v |U| and the same laminar branch;
  // valves with overlap, leakage or an open centre through their metering edges (hyd_valve.c)
  for (int i = 0; i < nl; i++) {
    if (!seed_only && !seed_valve(m, i)) {
      edge_valve(nv, m, d, S, J, i);
      continue;
    }
    const int* nd = m->vlv_node + 4 * i;  // P, T, A, B
    const double U = d->U[i];
    double* q = d->vlv_q + HY_VALVE_PATHS * i;  // P->A, B->T, P->B, A->T, P->T
    q[0] = q[1] = q[2] = q[3] = q[4] = 0;
    if (U == 0) continue;
    const double coeff = m->vlv_cv[i] * fabs(U);
    const double lim = m->vlv_dp_lim[i];
    // the open paths: P->A and B->T into slots 0, 1, or P->B and A->T into slots 2, 3
    const int P = nd[0], T = nd[1], to = U > 0 ? nd[2] : nd[3], from = U > 0 ? nd[3] : nd[2];
    double* q_open = U > 0 ? q : q + 2;
    const double dp_in = node_pressure(nv, m, p, t, P) - node_pressure(nv, m, p, t, to);
    q_open[0] = path_flow(m, nd, 4, coeff, dp_in, lim, dq_out);
    add_flow(nv, S, J, P, to, q_open[0], dq);
    const double dp_out = node_pressure(nv, m, p, t, from) - node_pressure(nv, m, p, t, T);
    q_open[1] = path_flow(m, nd, 4, coeff, dp_out, lim, dq_out);
    add_flow(nv, S, J, from, T, q_open[1], dq);
  }

  // gas-charged accumulators (docs/hydraulics.md, "Accumulators"): their oil joins V, their
  // compliance dV_acc/dp joins W
  if (!seed_only && m->sizes.nacc > 0) hy_hyd_accumulators(m, d);

  // Eqs. 22-23: p_dot = Be/V S with 1/Be = 1/B_oil(p) + (V_hose/V)/B_hose + sum (V_ch/V)/B_cyl,
  // i.e. p_dot = S / X with X = V/B_oil(p) + W (W = V_hose/B_hose + sum V_ch/B_cyl; a rigid
  // wall's term is V/inf = 0 exactly). Be = V/X. dX/dp = -V B_oil'/B_oil^2 gives the dBe/dp part
  // of dp_dot/dp (none for a constant B_oil); accumulators add theirs after the loop.
  for (int v = 0; v < nv; v++) {
    double dB;
    const double Boil = hy_hyd_evaluation_modulus(m, v, p[v], &dB, seed_only);
    const double X = V[v] / Boil + W[v];
    W[v] = V[v] / X;  // now Be
    S[v] /= X;        // now p_dot
    if (J) {
      double* row = J + (size_t)v * (size_t)nv;
      for (int w = 0; w < nv; w++) row[w] /= X;
      if (dB != 0) {
        const double dX_dp = -V[v] * dB / (Boil * Boil);
        row[v] -= S[v] * dX_dp / X;
      }
    }
  }

  if (!seed_only && J && m->sizes.nacc > 0) hy_hyd_accumulator_partials(m, d, J);

  // partials with respect to the cylinder lengths and rates
  if (hw) {
    if (nc == 1) {
      hy_hyd_cylinder_partials_inline(m, d, hw, 0, seed_only);
    } else {
      for (int c = 0; c < nc; c++) hy_hyd_cylinder_partials(m, d, hw, c);
    }
  }
}

// The copies: sized on the volumes (HY_SIZED_F1, core.h; their loops run over 2-4 volumes on
// the seed circuits), and on nc = 1 as well for a single cylinder, the usual actuator; and for
// circuits of the seeds' elements only (d->hyd_seed_only), without the tests of the options
// that they never have.
static HY_ALWAYS_INLINE void evaluate_seed(int nv, int nc, const hy_model* m, hy_data* d,
                                           hy_hyd_work* hw) {
  evaluate(nv, nc, 1, m, d, hw);
}

static HY_ALWAYS_INLINE void evaluate_any(int nv, int nc, const hy_model* m, hy_data* d,
                                          hy_hyd_work* hw) {
  evaluate(nv, nc, 0, m, d, hw);
}

// Four functions, not one: in a single function holding every copy, the register allocator
// kept d and the arrays' addresses on the stack in the seed copy's hot path (callgrind: 11-13 %
// more instructions in four-bar A's evaluation, docs/performance.md). Kept out of
// hy_hyd_evaluate for the same reason.
static HY_NOINLINE void evaluate_seed_with_derivatives(const hy_model* m, hy_data* d,
                                                       hy_hyd_work* hw) {
  HY_SIZED_F1(m->sizes.nvol, m->sizes.ncyl, evaluate_seed, m, d, hw);
}

static HY_NOINLINE void evaluate_any_with_derivatives(const hy_model* m, hy_data* d,
                                                      hy_hyd_work* hw) {
  HY_SIZED_F1(m->sizes.nvol, m->sizes.ncyl, evaluate_any, m, d, hw);
}

static HY_NOINLINE void evaluate_seed_values(const hy_model* m, hy_data* d) {
  HY_SIZED_F1(m->sizes.nvol, m->sizes.ncyl, evaluate_seed, m, d, (hy_hyd_work*)NULL);
}

static HY_NOINLINE void evaluate_any_values(const hy_model* m, hy_data* d) {
  HY_SIZED_F1(m->sizes.nvol, m->sizes.ncyl, evaluate_any, m, d, (hy_hyd_work*)NULL);
}

int hy_hyd_seed_only(const hy_model* m) {
  if (m->sizes.npump > 0 || m->sizes.nacc > 0) return 0;
  for (int i = 0; i < m->sizes.norf; i++) {
    if (!plain_throttle(m, i)) return 0;
  }
  for (int i = 0; i < m->sizes.nvlv; i++) {
    if (!seed_valve(m, i)) return 0;
  }
  for (int v = 0; v < m->sizes.nvol; v++) {
    if (m->vol_oil_fast[v] != HY_BULK_CONSTANT && m->vol_oil_fast[v] != HY_BULK_LINEAR) return 0;
  }
  return 1;
}

void hy_hyd_evaluate(const hy_model* m, hy_data* d, hy_hyd_work* hw) {
  if (d->cyl_input) {
    hy_hyd_input_evaluate(m, d, hw);  // co-simulation: another subsystem drives the cylinders
    return;
  }
  if (hw) {
    if (d->hyd_seed_only) {
      evaluate_seed_with_derivatives(m, d, hw);
    } else {
      evaluate_any_with_derivatives(m, d, hw);
    }
  } else if (d->hyd_seed_only) {
    evaluate_seed_values(m, d);
  } else {
    evaluate_any_values(m, d);
  }
}
