// One evaluation (hy_forward) and one time step (hy_step) of a data.
// clock_gettime is POSIX, outside strict C11
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <time.h>

#include "core/core.h"
#include "sim/sim.h"

hy_status hy_forward(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  return hy_form_forward(hy_sim_form(m, d));
}

double hy_energy_total(const hy_data* d) { return d->energy_kin + d->energy_pot - d->work_ext; }

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

hy_status hy_sim_step(const hy_model* m, hy_data* d, double h, double t_end) {
  const double t_start = m->opt.time_steps ? now_seconds() : 0;
  hy_work* w = d->work_;
  hy_form* f = hy_sim_form(m, d);
  d->err.code = HY_OK;  // so that a failure below can tell whether it was already described
  const hy_status st = hy_integ_advance(&w->integ, f, h, t_end);
  if (w->arena.peak > d->stats.arena_peak) d->stats.arena_peak = w->arena.peak;
  if (st != HY_OK) return st;
  if (d->violation > d->stats.violation_max) d->stats.violation_max = d->violation;
  d->stats.nstep++;
  if (m->opt.time_steps) {
    d->stats.wall_last = now_seconds() - t_start;
    d->stats.wall_time += d->stats.wall_last;
  }
  return HY_OK;
}

// The end of a step of dt from t: the multiple k dt nearest to t + dt when t + dt is within
// round-off of it, so that a run of steps from a time on the grid stays on it (a running sum
// of 1e-6 s steps is 4.5e-9 s short after 15 s, and a signal's breakpoint would come a step
// late); t + dt otherwise.
static double step_end(double t, double dt) {
  const double t1 = t + dt;
  const double on_grid = nearbyint(t1 / dt) * dt;
  return fabs(t1 - on_grid) <= 1e-6 * dt ? on_grid : t1;
}

hy_status hy_step(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  return hy_sim_step(m, d, m->opt.dt, step_end(d->time, m->opt.dt));
}
