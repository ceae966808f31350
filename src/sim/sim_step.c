// One evaluation (hy_forward) and one time step (hy_step) of a data.
// clock_gettime is POSIX, outside strict C11
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "core/core.h"
#include "sim/sim.h"

hy_status hy_forward(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  return hy_form_forward(hy_sim_form(m, d));
}

double hy_energy_total(const hy_data* d) { return d->energy_kin + d->energy_pot - d->work_ext; }

double hy_actuator_work(const hy_data* d) {
  return d->work_hyd - d->diss_visc - d->diss_fric + d->work_damp;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

hy_status hy_sim_step(const hy_model* m, hy_data* d, double h) {
  const double t_start = m->opt.time_steps ? now_seconds() : 0;
  hy_work* w = d->work_;
  hy_form* f = hy_sim_form(m, d);
  d->err.code = HY_OK;  // so that a failure below can tell whether it was already described
  const hy_status st = hy_integ_advance(&w->integ, f, h);
  if (w->arena.peak > d->stats.arena_peak) d->stats.arena_peak = w->arena.peak;
  if (st != HY_OK) return st;
  if (d->violation > d->stats.violation_max) d->stats.violation_max = d->violation;
  if (d->nh_violation > d->stats.nh_violation_max) d->stats.nh_violation_max = d->nh_violation;
  d->stats.nstep++;
  if (m->opt.time_steps) {
    d->stats.wall_last = now_seconds() - t_start;
    d->stats.wall_time += d->stats.wall_last;
  }
  if (m->sizes.ngimbal > 0) {
    // the implicit steps evaluate no ODE (hy_form_forward checks there): the state they
    // accepted, then the charts for the next step
    HY_TRY(hy_mech_gimbal_check(m, d));
    hy_mech_gimbal_reanchor(m, d);
    hy_mech_gimbal_outputs(m, d, 0);
  }
  return HY_OK;
}

int hy_reanchor(const hy_model* m, hy_data* d, int model_charts) {
  if (!m || !d) return 0;
  if (model_charts) hy_mech_gimbal_reset(m, d);
  const int n = hy_mech_gimbal_reanchor(m, d);
  hy_mech_gimbal_outputs(m, d, 0);
  return n;
}

hy_status hy_step(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  return hy_sim_step(m, d, m->opt.dt);
}
