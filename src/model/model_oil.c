// The oils of a compiled model (docs/hydraulics.md, "Oil laws"): each circuit's, and the own oil
// of a volume that has one, gathered from the model's arrays for the laws' evaluation
// (src/hyd/hyd_fluid.c) and for hy_model_check.
#include "model/model.h"

hy_oil hy_model_circuit_oil(const hy_model* m, int c) {
  const int adr = m->circ_tab_adr[c];
  return (hy_oil){.law = m->circ_law[c],
                  .B0 = m->circ_B_oil[c],
                  .k = m->circ_law_k[c],
                  .a = m->circ_law_a[c],
                  .b = m->circ_law_b[c],
                  .air = m->circ_air[c],
                  .n = m->circ_polytropic[c],
                  .p_atm = m->circ_p_atm[c],
                  .tab_p = m->bulk_p + adr,
                  .tab_beta = m->bulk_beta + adr,
                  .tab_n = m->circ_tab_n[c]};
}

hy_oil hy_model_volume_oil(const hy_model* m, int v) {
  if (m->vol_law[v] < 0) return hy_model_circuit_oil(m, m->vol_circ[v]);
  const int adr = m->vol_tab_adr[v];
  return (hy_oil){.law = m->vol_law[v],
                  .B0 = m->vol_B_oil[v],
                  .k = m->vol_law_k[v],
                  .a = m->vol_law_a[v],
                  .b = m->vol_law_b[v],
                  .air = m->vol_air[v],
                  .n = m->vol_polytropic[v],
                  .p_atm = m->vol_p_atm[v],
                  .tab_p = m->bulk_p + adr,
                  .tab_beta = m->bulk_beta + adr,
                  .tab_n = m->vol_tab_n[v]};
}

int hy_model_oil_fast(const hy_model* m, int v) {
  if (m->vol_law[v] >= 0) return -1;
  const int law = m->circ_law[m->vol_circ[v]];
  return law == HY_BULK_CONSTANT || law == HY_BULK_LINEAR ? law : -1;
}
