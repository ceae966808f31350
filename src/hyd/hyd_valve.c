// The metering edges of a 4-way directional valve (docs/hydraulics.md, "Metering edges"): each
// of the paths P->A, B->T, P->B, A->T and P->T is an orifice whose coefficient follows the spool
// position, with overlap or underlap of the edges, a laminar leakage across them, and the centre
// paths of open, tandem and float centres; or each path's coefficient from a table of the spool
// position ("Metering edges from tables"). The seeds' valve (seed 000 Eq. 26: closed centre, no
// overlap, no leakage, no tables) is the special case the network evaluates inline; hydyn's own
// generalization is here.
#include "hyd/hyd_impl.h"

const int hy_hyd_valve_path[HY_VALVE_PATHS][2] = {
    {0, 2},  // P->A
    {3, 1},  // B->T
    {0, 3},  // P->B
    {2, 1},  // A->T
    {0, 1},  // P->T
};

// The paths each centre opens at U = 0, one bit per path of hy_hyd_valve_path.
static unsigned centre_paths(hy_valve_centre centre) {
  switch (centre) {
    case HY_CENTRE_OPEN:
      return 0x1f;  // every port joined to every other
    case HY_CENTRE_TANDEM:
      return 1u << 4;  // P->T: the pump unloads to tank
    case HY_CENTRE_FLOAT:
      return (1u << 1) | (1u << 3);  // A->T, B->T: the actuator floats
    default:
      return 0;
  }
}

// docs/hydraulics.md, "Metering edges from tables": C_k(U) interpolated linearly in path k's
// table and held beyond its ends; a path without a table (P->T, optional) stays shut.
static void table_openings(const hy_model* m, int i, double U, double C[HY_VALVE_PATHS]) {
  const int* n = m->vlv_edge_n + HY_VALVE_PATHS * i;
  const int* adr = m->vlv_edge_adr + HY_VALVE_PATHS * i;
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    C[k] = n[k] > 0 ? hy_table_linear(m->edge_U + adr[k], m->edge_C + adr[k], n[k], U, NULL) : 0.0;
  }
}

void hy_hyd_valve_openings(const hy_model* m, int i, double U, double C[HY_VALVE_PATHS]) {
  if (hy_model_valve_tables(m, i)) {
    table_openings(m, i, U, C);
    return;
  }
  const double cv = m->vlv_cv[i], o = m->vlv_overlap[i];
  // seed 000 Eq. 26 with the edges shifted by the overlap: the window of P->A and B->T opens
  // once U exceeds o, that of P->B and A->T once -U does; an underlap (o < 0) leaves both sets
  // open by -o at U = 0, and each closes where the other has opened by 2|o|
  const double w_pos = fmax(U - o, 0.0), w_neg = fmax(-U - o, 0.0);
  C[0] = C[1] = cv * w_pos;
  C[2] = C[3] = cv * w_neg;
  C[4] = 0;
  const unsigned open = centre_paths((hy_valve_centre)m->vlv_centre[i]);
  if (!open) return;
  // centre paths: C_c (1 - |U|/U_max), closed from |U| = U_max on; C_c = cv U_max unless given
  const double Umax = m->vlv_Umax[i];
  const double share = fmax(1.0 - fabs(U) / Umax, 0.0);
  if (share == 0) return;
  const double Cc = m->vlv_cv_centre[i] > 0 ? m->vlv_cv_centre[i] : cv * Umax;
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    if (open & (1u << k)) C[k] += Cc * share;
  }
}

void hy_hyd_valve_flows(const hy_model* m, int i, double U, const double pn[4], hy_laminar law,
                        double q[HY_VALVE_PATHS], double* dq) {
  double C[HY_VALVE_PATHS];
  hy_hyd_valve_openings(m, i, U, C);
  const double lim = m->vlv_dp_lim[i], leak = m->vlv_leak[i];
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    const double dp = pn[hy_hyd_valve_path[k][0]] - pn[hy_hyd_valve_path[k][1]];
    double slope = 0, flow = 0;
    // a closed path carries no orifice flow (the law's slope is 0 x infinity at dp = 0 for the
    // turbulent branch: skipped, not evaluated)
    if (C[k] > 0) flow = hy_hyd_orifice_flow(C[k], dp, lim, law, dq ? &slope : NULL);
    // laminar leakage across the metering edges (not P->T, which has no edge of its own):
    // Q = k dp at every spool position, so the flow stays continuous in U
    if (k < 4) {
      flow += leak * dp;
      slope += leak;
    }
    q[k] = flow;
    if (dq) dq[k] = slope;
  }
}
