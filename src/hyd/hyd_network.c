// The hydraulic network: flows through throttles, directional, check and relief valves, the
// pressure rates of the volumes (seed 000 Eqs. 22-27, seed 001 Sect. 3.2, seed 003 Eqs. 1-6) and
// their exact partial derivatives for the monolithic Newton tangent (seed 000 Sect. 4).
#include <string.h>

#include "hyd/hyd_impl.h"

//----- work arrays -----------------------------------------------------------------------------

size_t hy_hyd_work_size(const hy_model* m) {
  const size_t nv = (size_t)m->sizes.nvol, nc = (size_t)m->sizes.ncyl;
  return nv * nv + 2 * nv * nc + nc * nv + 2 * nc;
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
}

//----- nodes and oil ---------------------------------------------------------------------------

double hy_hyd_node_pressure(const hy_model* m, const hy_data* d, int k) {
  const int nv = m->sizes.nvol;
  if (k < nv) return d->p[k];
  const int i = k - nv, sig = m->src_sig[i];
  return sig >= 0 ? m->src_p[i] * hy_signal_eval(m, sig, d->time) : m->src_p[i];
}

double hy_hyd_oil_modulus(const hy_model* m, int v, double p, double* dB_dp) {
  const int c = m->vol_circ[v];
  if (m->circ_law[c] == HY_BULK_LINEAR) {
    *dB_dp = m->circ_law_k[c];
    return m->circ_B_oil[c] + m->circ_law_k[c] * p;
  }
  *dB_dp = 0;
  return m->circ_B_oil[c];
}

// Laminar law of an element whose nodes are `nodes` (at least one is a volume; compilation
// checked that all are in one circuit).
static hy_laminar laminar_of(const hy_model* m, const int* nodes, int n) {
  for (int k = 0; k < n; k++) {
    if (nodes[k] < m->sizes.nvol) return (hy_laminar)m->circ_laminar[m->vol_circ[nodes[k]]];
  }
  return HY_LAMINAR_CUBIC;
}

// Adds a flow q from node a to node b (q = f(p_a - p_b), slope dq) to the inflow sums S of
// the volumes (Eq. 22: outflow counts negative) and, with J != NULL, to dS/dp.
static void add_flow(int nv, double* S, double* J, int a, int b, double q, double dq) {
  if (a < nv) S[a] -= q;
  if (b < nv) S[b] += q;
  if (!J) return;
  if (a < nv) {
    J[a * nv + a] -= dq;
    if (b < nv) J[a * nv + b] += dq;
  }
  if (b < nv) {
    J[b * nv + b] -= dq;
    if (a < nv) J[b * nv + a] += dq;
  }
}

//----- evaluation ------------------------------------------------------------------------------

void hy_hyd_evaluate(const hy_model* m, hy_data* d, hy_hyd_work* hw) {
  const int nv = m->sizes.nvol, nc = m->sizes.ncyl, no = m->sizes.norf, nl = m->sizes.nvlv;
  double* S = d->pd;  // inflow sums until they are scaled into pressure rates
  double* J = hw ? hw->dpd_dp : NULL;
  memset(S, 0, sizeof(double) * (size_t)nv);
  if (J) memset(J, 0, sizeof(double) * (size_t)nv * (size_t)nv);

  hy_hyd_volumes(m, d);

  // throttles, seed 000 Eq. 24 (laminar below dp_lim)
  for (int i = 0; i < no; i++) {
    const int* nd = m->orf_node + 2 * i;
    const double dp = hy_hyd_node_pressure(m, d, nd[0]) - hy_hyd_node_pressure(m, d, nd[1]);
    double dq;
    const double q =
        hy_hyd_orifice_flow(m->orf_cv[i], dp, m->orf_dp_lim[i], laminar_of(m, nd, 2), &dq);
    d->orf_q[i] = q;
    add_flow(nv, S, J, nd[0], nd[1], q, dq);
  }

  // check and relief valves: the throttle's law scaled by an opening that follows dp
  for (int i = 0; i < m->sizes.npvl; i++) {
    const int* nd = m->pvl_node + 2 * i;
    const double dp = hy_hyd_node_pressure(m, d, nd[0]) - hy_hyd_node_pressure(m, d, nd[1]);
    double dq;
    const double q =
        hy_hyd_pressure_valve_flow(m->pvl_cv[i], dp, m->pvl_p_crack[i], m->pvl_p_open[i],
                                   m->pvl_dp_lim[i], laminar_of(m, nd, 2), &dq);
    d->pvl_q[i] = q;
    add_flow(nv, S, J, nd[0], nd[1], q, dq);
  }

  // 4/3 directional valves, seed 000 Eq. 26 / seed 001 Eq. 31: U > 0 opens P->A and B->T,
  // U < 0 opens P->B and A->T, each path with coefficient C_v |U| and the same laminar branch
  for (int i = 0; i < nl; i++) {
    const int* nd = m->vlv_node + 4 * i;  // P, T, A, B
    const int P = nd[0], T = nd[1], A = nd[2], B = nd[3];
    const double U = d->U[i];
    const double coeff = m->vlv_cv[i] * (U < 0 ? -U : U);
    const double lim = m->vlv_dp_lim[i];
    const hy_laminar law = laminar_of(m, nd, 4);
    double* q = d->vlv_q + 4 * i;  // P->A, B->T, P->B, A->T
    q[0] = q[1] = q[2] = q[3] = 0;
    if (U == 0) continue;
    // the open paths as (from, to, slot of vlv_q)
    const int path[2][3] = {{P, U > 0 ? A : B, U > 0 ? 0 : 2}, {U > 0 ? B : A, T, U > 0 ? 1 : 3}};
    for (int k = 0; k < 2; k++) {
      const int a = path[k][0], b = path[k][1];
      const double dp = hy_hyd_node_pressure(m, d, a) - hy_hyd_node_pressure(m, d, b);
      double dq;
      const double qk = hy_hyd_orifice_flow(coeff, dp, lim, law, &dq);
      q[path[k][2]] = qk;
      add_flow(nv, S, J, a, b, qk, dq);
    }
  }

  // cylinder chambers, seed 000 Eq. 44: the piston side receives -A_a s_dot and the rod side
  // +A_b s_dot. This is the whole volume-change term dV/dt of seed 003 Eq. 1: nothing else is
  // added for the changing V.
  for (int c = 0; c < nc; c++) {
    const double sd = d->frc_rate[m->cyl_frc[c]];
    S[m->cyl_vol_a[c]] -= m->cyl_area_a[c] * sd;
    S[m->cyl_vol_b[c]] += m->cyl_area_b[c] * sd;
  }

  // Eqs. 22-23: p_dot = Be/V S with 1/Be = 1/B_oil(p) + (V_hose/V)/B_hose + sum (V_ch/V)/B_cyl,
  // i.e. p_dot = S / X with X = V/B_oil(p) + W (W = V_hose/B_hose + sum V_ch/B_cyl, from
  // hy_hyd_volumes). Be = V/X. dX/dp = -V B_oil'/B_oil^2 gives the dBe/dp part of dp_dot/dp.
  for (int v = 0; v < nv; v++) {
    double dB;
    const double Boil = hy_hyd_oil_modulus(m, v, d->p[v], &dB);
    const double V = d->vol_V[v];
    const double X = V / Boil + d->vol_Be[v];
    d->vol_Be[v] = V / X;
    d->pd[v] = S[v] / X;
    if (J) {
      double* row = J + (size_t)v * (size_t)nv;
      for (int w = 0; w < nv; w++) row[w] /= X;
      const double dX_dp = -V * dB / (Boil * Boil);
      row[v] -= d->pd[v] * dX_dp / X;
    }
  }

  // partials with respect to the cylinder length s and rate s_dot: the chamber flows give
  // d S/d s_dot = -A_a (piston side), +A_b (rod side); the chamber volumes give
  // dX/ds = dV/ds / B_oil + dW/ds with dV/ds = A_a (piston side), -A_b (rod side), so
  // d p_dot/ds = -p_dot / X dX/ds (the flows do not depend on s)
  if (hw) {
    memset(hw->dpd_ds, 0, sizeof(double) * (size_t)nv * (size_t)nc);
    memset(hw->dpd_dsd, 0, sizeof(double) * (size_t)nv * (size_t)nc);
    for (int c = 0; c < nc; c++) {
      for (int side = 0; side < 2; side++) {
        const int v = side == 0 ? m->cyl_vol_a[c] : m->cyl_vol_b[c];
        const double dV = side == 0 ? m->cyl_area_a[c] : -m->cyl_area_b[c];
        double dB;
        const double Boil = hy_hyd_oil_modulus(m, v, d->p[v], &dB);
        const double X = d->vol_V[v] / d->vol_Be[v];
        const double dX = dV / Boil + dV / m->cyl_B[c];
        hw->dpd_ds[v * nc + c] += -d->pd[v] * dX / X;
        hw->dpd_dsd[v * nc + c] += -dV / X;
      }
    }
  }

  hy_hyd_cylinder_forces(m, d, hw);

  // spools, seed 000 Eq. 27: U_dot = (U_ref - U)/tau
  for (int i = 0; i < nl; i++) {
    const int sig = m->vlv_sig[i];
    const double Uref = sig >= 0 ? hy_signal_eval(m, sig, d->time) : 0.0;
    d->Ud[i] = (Uref - d->U[i]) / m->vlv_tau[i];
  }
}

//----- spool integration -----------------------------------------------------------------------

void hy_hyd_spool_step(const hy_model* m, const double* U0, double t, double dt, double* U1) {
  for (int i = 0; i < m->sizes.nvlv; i++) {
    // trapezoidal rule on the linear Eq. 27, solved for U1 in closed form
    const int sig = m->vlv_sig[i];
    const double r0 = sig >= 0 ? hy_signal_eval(m, sig, t) : 0.0;
    const double r1 = sig >= 0 ? hy_signal_eval(m, sig, t + dt) : 0.0;
    const double h = dt / (2.0 * m->vlv_tau[i]);
    U1[i] = ((1.0 - h) * U0[i] + h * (r0 + r1)) / (1.0 + h);
  }
}
