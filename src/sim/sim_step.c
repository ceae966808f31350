// Stages of one evaluation (hy_forward) and one time step (hy_step).
// clock_gettime is POSIX, outside strict C11
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "sim/sim.h"

// Power of the cylinders' pressure, viscous and end-damper forces.
static void cylinder_powers(const hy_model* m, const hy_data* d, hy_work* w) {
  w->power_hyd = w->power_visc = w->power_damp = 0;
  for (int c = 0; c < m->sizes.ncyl; c++) {
    const double v = d->frc_rate[m->cyl_frc[c]];
    w->power_hyd += d->cyl_F_hyd[c] * v;
    w->power_visc -= d->cyl_F_visc[c] * v;  // dissipated: >= 0
    w->power_damp += d->cyl_F_damp[c] * v;
  }
}

hy_status hy_forward(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  hy_work* w = d->work_;
  for (int i = 0; i < m->sizes.nz; i++) {
    if (!isfinite(d->z[i]) || !isfinite(d->zd[i])) {
      return HY_FAIL(&d->err, HY_ERR_NAN, "non-finite state at t = %g s (coordinate %d)",
                     d->time, i);
    }
  }
  HY_TRY(hy_form_forward(m, d, &w->form, &w->mech));
  w->power = hy_mech_load_power(m, d, &w->mech);
  cylinder_powers(m, d, w);
  d->stats.nforward++;
  return HY_OK;
}

double hy_energy_total(const hy_data* d) {
  return d->energy_kin + d->energy_pot - d->work_ext;
}

// The ODE x = [z; zd], x_dot = [zd; zdd] seen by the explicit integrators.
static hy_status ode_rhs(void* ctx, double t, const double* x, double* xdot) {
  hy_work* w = ctx;
  const hy_model* m = w->model;
  hy_data* d = w->data;
  const int nz = m->sizes.nz;
  d->time = t;
  memcpy(d->z, x, sizeof(double) * (size_t)nz);
  memcpy(d->zd, x + nz, sizeof(double) * (size_t)nz);
  HY_TRY(hy_forward(m, d));
  memcpy(xdot, d->zd, sizeof(double) * (size_t)nz);
  memcpy(xdot + nz, d->zdd, sizeof(double) * (size_t)nz);
  return HY_OK;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static hy_status step_explicit(const hy_model* m, hy_data* d, hy_work* w) {
  const int nz = m->sizes.nz;
  const double dt = m->opt.dt, t0 = d->time;
  w->model = m;
  w->data = d;

  // the outputs in d describe the state at t0 (hy_forward ran last there), so they give
  // x_dot(t0) without another evaluation
  memcpy(w->x, d->z, sizeof(double) * (size_t)nz);
  memcpy(w->x + nz, d->zd, sizeof(double) * (size_t)nz);
  memcpy(w->x0, w->x, sizeof(double) * 2 * (size_t)nz);
  memcpy(w->xdot, d->zd, sizeof(double) * (size_t)nz);
  memcpy(w->xdot + nz, d->zdd, sizeof(double) * (size_t)nz);

  hy_status st = hy_integ_explicit_step(m->opt.integrator, nz, t0, dt, w->x, w->xdot, ode_rhs,
                                        w, w->integ);
  if (st == HY_OK) {
    memcpy(d->z, w->x, sizeof(double) * (size_t)nz);
    memcpy(d->zd, w->x + nz, sizeof(double) * (size_t)nz);
    d->time = t0 + dt;
    st = hy_forward(m, d);
  }
  if (st != HY_OK) {
    // back to the start of the step, outputs included, keeping the first error's detail
    if (d->err.code != st) {
      HY_FAIL(&d->err, st, "step from t = %g s failed: %s", t0, hy_status_str(st));
    }
    hy_error keep = d->err;
    memcpy(d->z, w->x0, sizeof(double) * (size_t)nz);
    memcpy(d->zd, w->x0 + nz, sizeof(double) * (size_t)nz);
    d->time = t0;
    hy_forward(m, d);
    d->err = keep;
    return st < 0 ? st : HY_STEP_REJECTED;
  }
  return HY_OK;
}

hy_status hy_step(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  const double t_start = m->opt.time_steps ? now_seconds() : 0;
  hy_work* w = d->work_;
  const double power0 = w->power, hyd0 = w->power_hyd, visc0 = w->power_visc;
  const double damp0 = w->power_damp;
  d->err.code = HY_OK;  // so that a failure below can tell whether it was already described
  hy_status st;
  if (m->opt.formulation == HY_FORM_TREE) {
    st = step_explicit(m, d, w);
  } else {
    st = hy_integ_trap_newton_step(m, d, &w->form, &w->mech, &w->newton);
    if (st == HY_OK) {
      w->power = hy_mech_load_power(m, d, &w->mech);
      cylinder_powers(m, d, w);
    }
  }
  if (st != HY_OK) return st;
  // work of the applied loads and force elements by the trapezoidal rule on their power
  const double h = 0.5 * m->opt.dt;
  d->work_ext += h * (power0 + w->power);
  d->work_hyd += h * (hyd0 + w->power_hyd);
  d->diss_visc += h * (visc0 + w->power_visc);
  d->work_damp += h * (damp0 + w->power_damp);
  if (d->violation > d->stats.violation_max) d->stats.violation_max = d->violation;
  d->stats.nstep++;
  if (m->opt.time_steps) {
    d->stats.wall_last = now_seconds() - t_start;
    d->stats.wall_time += d->stats.wall_last;
  }
  return HY_OK;
}
