// The run driver: steps a model to t_end, calls the recorder, reports progress and sums up the
// run (steps, wall time, real-time factor, iterations, violations of the loop closure and of the
// nonholonomic constraints, energy drift). The command line and the benchmark both run through
// it, so the summary is computed in one place.
#define _POSIX_C_SOURCE 200809L  // clock_gettime
#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "sim/sim.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

hy_run_options hy_run_options_default(void) {
  hy_run_options o = {.every = 1, .progress_interval = 1.0};
  return o;
}

static void track(const hy_data* d, double epot0, hy_run_summary* s) {
  s->drift = fmax(s->drift, fabs(hy_energy_total(d) - s->energy0));
  s->scale = fmax(s->scale, fabs(d->energy_kin) + fabs(d->energy_pot));
  s->released = fmax(s->released, epot0 - d->energy_pot);
  s->work_act_max = fmax(s->work_act_max, fabs(hy_actuator_work(d)));
}

// The figures that follow from the tracked extremes and the counters.
static void finish(const hy_model* m, const hy_data* d, double t0, hy_run_summary* s) {
  const hy_stats* st = &d->stats;
  s->t_reached = d->time;
  s->rtf = s->wall > 0 ? (d->time - t0) / s->wall : INFINITY;
  const long attempts = st->nsubstep + st->ncut + st->nreject;
  s->iter_mean = d->integrator == HY_INTEG_TRAPEZOIDAL && attempts > 0
                     ? (double)st->niter / (double)attempts
                     : NAN;
  s->iter_max = st->niter_max;
  s->violation_max = m->sizes.neq > 0 ? st->violation_max : NAN;  // cut joints, couplers
  s->nh_violation_max = m->sizes.nnh > 0 ? st->nh_violation_max : NAN;
  s->drift_rel = s->drift / fmax(s->scale, DBL_MIN);
  s->drift_pct_pot = NAN;
  s->drift_pct_work = NAN;
  if (m->sizes.ncyl > 0) {
    // driven by cylinders: the energy the actuators put in is the scale (seed 000 quotes the
    // peak drift as a percentage of the maximum actuator work); before a valve opens that work
    // is round-off, and the percentage is left out
    if (s->work_act_max > 1e-6 * s->scale) s->drift_pct_work = 100.0 * s->drift / s->work_act_max;
  } else {
    s->work_act_max = NAN;
    // the drift as a share of the potential energy the motion set free; a held model frees only
    // round-off (1e-15 of the energies), and a drift over that would be a meaningless percentage
    if (s->released > 1e-6 * s->scale) s->drift_pct_pot = 100.0 * s->drift / s->released;
  }
}

hy_status hy_run(const hy_model* m, hy_data* d, const hy_run_options* o, hy_run_summary* out) {
  hy_run_summary local;
  hy_run_summary* s = out ? out : &local;
  memset(s, 0, sizeof *s);
  s->t_fail = NAN;
  if (!m || !d) return s->status = HY_ERR_ARG;
  const hy_run_options def = hy_run_options_default();
  if (!o) o = &def;
  const double dt = m->opt.dt, t_end = m->opt.t_end, t0 = d->time;
  if (!(dt > 0) || !isfinite(dt) || !(t_end > 0) || !isfinite(t_end)) {
    return s->status = HY_FAIL(&d->err, HY_ERR_ARG,
                               "invalid solver settings dt = %g s, t_end = %g s", dt, t_end);
  }
  if (dt > t_end) {
    return s->status = HY_FAIL(&d->err, HY_ERR_ARG,
                               "the step dt = %g s is longer than the run, t_end = %g s", dt,
                               t_end);
  }
  if (o->every < 1) {
    return s->status = HY_FAIL(&d->err, HY_ERR_ARG, "record every %ld steps", o->every);
  }
  // whole steps of dt, then the rest of the way (a step count, not a time comparison, ends the
  // loop: accumulated t can fall just short of t_end and take one step too many)
  const double span = (t_end - t0) / dt;
  const long long nfull = span > 0 ? (long long)floor(span + 1e-9) : 0;
  // The rest is measured from where the whole steps end, the running sum t + dt of the
  // integrators (t0 + nfull dt, a product, can differ from it by round-off and leave a rest of
  // either sign: a last step of -3.5e-16 s after 23000 steps of 1 us). A rest within the sum's
  // round-off (about nfull ulps of t_end: 4.5e-9 s after 15 s of 1 us) is no step.
  // Past 2^24 steps the sum is not formed (a run of 1e12 steps would spend minutes summing
  // before its first step, deaf to a stop request); the product stands in, and its round-off
  // only decides whether a last step of a few ulps is taken.
  double t_full = t0;
  if (nfull <= (1LL << 24)) {
    for (long long k = 0; k < nfull; k++) t_full += dt;
  } else {
    t_full = t0 + (double)nfull * dt;
  }
  const double rest = t_end - t_full;
  const int partial = rest > 1e-9 * dt + (double)nfull * DBL_EPSILON * t_end;
  const long long nstep = nfull + partial;
  s->energy0 = hy_energy_total(d);
  const double epot0 = d->energy_pot;
  track(d, epot0, s);
  hy_status st = HY_OK;
  if (o->record) st = o->record(o->record_user, m, d);
  const double wall0 = now_seconds();
  double next_progress = wall0 + o->progress_interval;
  for (long long k = 1; k <= nstep && st == HY_OK; k++) {
    const double t_before = d->time;
    const double h = k > nfull ? rest : dt;
    hy_status sst = hy_sim_step(m, d, h);
    // > 0 is a warning when the step was taken; a step that did not advance failed
    if (sst < 0 || (sst > 0 && !(d->time > t_before))) {
      st = sst;
      s->t_fail = t_before;
      break;
    }
    s->steps = k;
    track(d, epot0, s);
    if (o->record && (k % o->every == 0 || k == nstep)) st = o->record(o->record_user, m, d);
    if ((o->stop && *o->stop) ||
        (o->progress && now_seconds() >= next_progress &&
         (next_progress = now_seconds() + o->progress_interval,
          o->progress(o->progress_user, m, d) != 0))) {
      s->stopped = k < nstep;
      if (o->record && k % o->every != 0 && k != nstep && st == HY_OK) {
        st = o->record(o->record_user, m, d);  // the state it stopped at
      }
      break;
    }
  }
  s->wall = now_seconds() - wall0;
  s->status = st;
  finish(m, d, t0, s);
  return st;
}
