// Initial pressures and spool positions (seed 000 Sect. 5: rod side given, piston side from
// static equilibrium, volumes joined by a throttle at the same pressure).
#include <math.h>
#include <stdio.h>

#include "core/core.h"
#include "hyd/hyd_impl.h"

// Spring part of the end damper force at the current length (the damping part vanishes at
// rest), as in hy_hyd_cylinder.
static double damper_spring(const hy_model* m, const hy_data* d, int c) {
  const double ld = m->cyl_ld[c];
  const double len_a = d->frc_len[m->cyl_frc[c]] - m->cyl_dead[c];
  const double len_b = m->cyl_stroke[c] - len_a;
  if (ld > 0 && len_a < ld) return m->cyl_kd[c] * (ld - len_a);
  if (ld > 0 && len_b < ld) return -m->cyl_kd[c] * (ld - len_b);
  return 0;
}

void hy_hyd_initial_rules(const hy_model* m, hy_data* d, int throttles) {
  const int nc = m->sizes.ncyl, no = throttles ? m->sizes.norf : 0;
  // Each pass applies every rule once; a pass that sets nothing ends the search, so there are
  // at most nvol + 1 passes.
  int changed = 1;
  while (changed) {
    changed = 0;
    // seed 000 Sect. 5: p_a = (F + p_b A_b) / A_a, with F the static force less the end
    // damper's spring force when the piston starts inside a damper
    for (int c = 0; c < nc; c++) {
      if (m->cyl_init[c] != HY_CYL_INIT_EQUILIBRIUM) continue;
      const int va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
      if (!isnan(d->p[va]) || isnan(d->p[vb])) continue;
      const double F = d->frc_static[m->cyl_frc[c]] - damper_spring(m, d, c);
      d->p[va] = (F + d->p[vb] * m->cyl_area_b[c]) / m->cyl_area_a[c];
      changed = 1;
    }
    // at rest a throttle carries no flow, so its two ends have the same pressure (Eq. 24);
    // not so a one-way throttle (no flow for any p_from <= p_to) or one its signal closes
    for (int i = 0; i < no; i++) {
      const int sig = m->orf_sig[i];
      if (m->orf_one_way[i] || (sig >= 0 && !(hy_signal_eval(m, sig, d->time) > 0))) continue;
      const int a = m->orf_node[2 * i], b = m->orf_node[2 * i + 1];
      // NaN for a volume not known yet
      const double pa = hy_hyd_node_pressure(m, d, a), pb = hy_hyd_node_pressure(m, d, b);
      if (isnan(pa) && !isnan(pb)) {
        d->p[a] = pb;  // an unknown node is a volume: sources are always known
        changed = 1;
      } else if (isnan(pb) && !isnan(pa)) {
        d->p[b] = pa;
        changed = 1;
      }
    }
  }
}

hy_status hy_hyd_initial_state(const hy_model* m, hy_data* d) {
  const int nv = m->sizes.nvol, nc = m->sizes.ncyl;
  d->hyd_seed_only = hy_hyd_seed_only(m);
  d->spool_seed_only = 0;  // until the offsets of initial: rest are known
  hy_hyd_spool_initial(m, d);
  // d->p doubles as the "known" marks: NaN until a rule gives the volume its pressure, so
  // nothing is allocated
  for (int v = 0; v < nv; v++) d->p[v] = m->vol_p0[v];
  hy_hyd_initial_rules(m, d, 1);
  // the valves to start at rest: their offsets and the pressures the rest of the circuit takes
  HY_TRY(hy_hyd_rest_offsets(m, d));
  d->spool_seed_only = hy_hyd_spool_seed_only(m, d);

  for (int v = 0; v < nv; v++) {
    if (!isnan(d->p[v])) continue;
    // a pump is a flow source: at rest it fixes no pressure, so the line it feeds needs one
    char pump[HY_NAME_MAX + 128] = "";
    for (int i = 0; i < m->sizes.npump && !pump[0]; i++) {
      if (m->pmp_node[2 * i + 1] != v) continue;
      snprintf(pump, sizeof pump,
               " (pump '%s' delivers into it but fixes no pressure: give the pump line p0, such "
               "as the tank's pressure or a relief valve's setting)",
               m->pmp_name + (size_t)i * HY_NAME_MAX);
    }
    return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, m->vol_pos[v].line, m->vol_pos[v].col,
                            "volume '%s' has no initial pressure: give it p0, join it through a "
                            "throttle to a volume or source whose pressure is known, or make it "
                            "the piston side of a cylinder with initial: equilibrium whose rod "
                            "side is known%s",
                            m->vol_name + (size_t)v * HY_NAME_MAX, pump);
  }

  // A piston side fixed first by other data (a given p0 reached through throttles, another
  // cylinder) would not hold the load: equilibrium must still hold, or the initial data
  // over-determine the cylinder.
  for (int c = 0; c < nc; c++) {
    if (m->cyl_init[c] != HY_CYL_INIT_EQUILIBRIUM) continue;
    const int f = m->cyl_frc[c], va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
    const double F = d->frc_static[f] - damper_spring(m, d, c);
    const double Fa = d->p[va] * m->cyl_area_a[c], Fb = d->p[vb] * m->cyl_area_b[c];
    const double scale = fmax(fabs(F), fmax(fabs(Fa), fabs(Fb)));
    if (fabs(Fa - Fb - F) <= 1e-9 * scale) continue;
    return hy_error_set_src(
        &d->err, HY_ERR_MODEL, m->path, m->frc_pos[f].line, m->frc_pos[f].col,
        "cylinder '%s': initial: equilibrium needs %.6g Pa in its piston-side volume '%s', but "
        "other initial data (a p0 reached through throttles, or another cylinder) fix it at "
        "%.6g Pa (give p0 only on the rod side)",
        m->frc_name + (size_t)f * HY_NAME_MAX, (F + d->p[vb] * m->cyl_area_b[c]) / m->cyl_area_a[c],
        m->vol_name + (size_t)va * HY_NAME_MAX, d->p[va]);
  }

  // the seals' states at steady sliding with the cylinders' initial rates (at rest: no bristle
  // preload, no film)
  for (int c = 0; c < nc; c++) {
    const int w0 = m->cyl_fric_w[c];
    if (w0 < 0) continue;
    const hy_friction_def* fr = &m->cyl_fric[c];
    const double N = d->p[m->cyl_vol_a[c]] * m->cyl_area_a[c] + d->p[m->cyl_vol_b[c]] * m->cyl_area_b[c];
    hy_friction_steady_states(fr, d->frc_rate[m->cyl_frc[c]], hy_friction_coulomb(fr, N), d->w + w0);
  }
  return HY_OK;
}
