// The step of a data: the integrator's arrays, the explicit methods driven by the formulation's
// ODE, and the trapezoidal step's controller, which cuts a step whose Newton iteration fails and
// sizes the steps by their local error on request. The work of the loads and cylinders is
// integrated over each step by the trapezoidal rule on their power.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "integ/integ.h"

//----- arrays ----------------------------------------------------------------------------------

static int explicit_kind(hy_integrator k) {
  return k == HY_INTEG_EULER || k == HY_INTEG_SEMI_EULER || k == HY_INTEG_RK4;
}

// The methods that step the formulation's ODE right-hand side: fixed or variable step.
static int ode_kind(hy_integrator k) { return explicit_kind(k) || hy_integ_is_variable(k); }

// The explicit methods' state [z; zd; p; w; U] (U: the spools' states, hy_sizes.nspool).
static int explicit_n(const hy_model* m) {
  return 2 * m->sizes.nz + m->sizes.nvol + m->sizes.nfric + m->sizes.nspool;
}

// Walks the layout of the arrays: with base == NULL only counts the bytes.
static size_t layout(hy_integ* in, const hy_model* m, hy_integrator kind, unsigned char* base) {
  // ny first-order unknowns: the pressures, then the friction states
  const size_t nz = (size_t)m->sizes.nz, nv = (size_t)m->sizes.nvol + (size_t)m->sizes.nfric;
  const size_t nc = (size_t)m->sizes.ncyl, nl = (size_t)m->sizes.nvlv;
  const size_t ns = (size_t)m->sizes.nspool;
  const size_t nx = nz + nv;
  size_t at = 0;
#define TAKE(field, bytes) HY_LAYOUT_TAKE(base, at, field, bytes)
  hy_trap* tr = in ? &in->trap : NULL;
  TAKE(tr->pd_prev, hy_doubles(nv));
  if (kind == HY_INTEG_TRAPEZOIDAL) {
    TAKE(tr->hat_zd, hy_doubles(nz));
    TAKE(tr->hat_zdd, hy_doubles(nz));
    TAKE(tr->hat_pd, hy_doubles(nv));
    TAKE(tr->pd_trap, hy_doubles(nv));
    TAKE(tr->z_k, hy_doubles(nz));
    TAKE(tr->zd_k, hy_doubles(nz));
    TAKE(tr->zdd_k, hy_doubles(nz));
    TAKE(tr->p_k, hy_doubles(nv));
    TAKE(tr->pd_k, hy_doubles(nv));
    TAKE(tr->pd_prev_k, hy_doubles(nv));
    TAKE(tr->U_k, hy_doubles(ns));
    TAKE(tr->cache_k, hy_doubles((size_t)hy_mech_cache_size(m)));
    TAKE(tr->uref, hy_doubles(nl));
    TAKE(tr->x, hy_doubles(nx));
    TAKE(tr->x_pred, hy_doubles(nx));
    TAKE(tr->dx, hy_doubles(nx));
    TAKE(tr->f, hy_doubles(nx));
    TAKE(tr->fp, hy_doubles(nx));
    TAKE(tr->J, hy_doubles(nx * nx));
    TAKE(tr->piv, hy_ints(nx));
    TAKE(tr->row_scale, hy_doubles(nx));
    TAKE(tr->dxm, hy_doubles(nz));
    TAKE(tr->tg_S, hy_doubles(nz * nz));
    TAKE(tr->tg_Spiv, hy_ints(nz));
    TAKE(tr->tg_D, hy_doubles(nv * nv));
    TAKE(tr->tg_Dpiv, hy_ints(nv));
    TAKE(tr->tg_G, hy_doubles(nv * nc));
    TAKE(tr->tg_Js, hy_doubles(nc * nz));
    TAKE(tr->tg_Jr, hy_doubles(nc * nz));
    TAKE(tr->tg_Fp, hy_doubles(nc * nv));
    TAKE(tr->tg_K, hy_doubles(nc * nc));
    TAKE(tr->tg_Fy, hy_doubles(nc * nv));
    TAKE(tr->tg_y, hy_doubles(nv));
  } else if (ode_kind(kind)) {
    const int n = explicit_n(m);
    TAKE(in->ex_x, hy_doubles((size_t)n));
    TAKE(in->ex_x0, hy_doubles((size_t)n));
    TAKE(in->ex_xdot, hy_doubles((size_t)n));
    TAKE(in->ex_work, hy_doubles(hy_integ_explicit_work_size(kind, n)));
    TAKE(in->ex_cache, hy_doubles((size_t)hy_mech_cache_size(m)));
  }
#undef TAKE
  return at;
}

size_t hy_integ_size(const hy_model* m, hy_integrator kind) { return layout(NULL, m, kind, NULL); }

void hy_integ_bind(hy_integ* in, const hy_model* m, hy_integrator kind, unsigned char* mem) {
  memset(in, 0, sizeof *in);
  in->kind = kind;
  layout(in, m, kind, mem);
}

void hy_integ_restart(hy_integ* in, const hy_model* m) {
  hy_trap* tr = &in->trap;
  // no rate before the start: the first pressure predictor extrapolates from zero, with the
  // step's own size as the previous one
  memset(tr->pd_prev, 0, sizeof(double) * hy_integ_first_order(m));
  tr->h_prev = m->opt.dt;
  tr->h_next = 0;
  tr->uref_t = NAN;
  hy_ode_forget(in->ode);
}

hy_status hy_integ_open(hy_integ* in, const hy_model* m, hy_integrator kind) {
  in->ode = NULL;
  if (!hy_integ_is_variable(kind)) return HY_OK;
  return hy_ode_make(kind, explicit_n(m), m->opt.ode_tol, &in->ode);
}

void hy_integ_close(hy_integ* in) {
  hy_ode_free(in->ode);
  in->ode = NULL;
}

// pd_prev (pressures and friction states), h_prev, h_next
int hy_integ_hist_size(const hy_model* m) { return (int)hy_integ_first_order(m) + 2; }

void hy_integ_hist_get(const hy_integ* in, const hy_model* m, double* buf) {
  const int nv = (int)hy_integ_first_order(m);
  for (int v = 0; v < nv; v++) buf[v] = in->trap.pd_prev[v];
  buf[nv] = in->trap.h_prev;
  buf[nv + 1] = in->trap.h_next;
}

int hy_integ_hist_ok(const hy_model* m, const double* buf) {
  const int nv = (int)hy_integ_first_order(m);
  return buf[nv] > 0 && buf[nv + 1] >= 0;  // a previous step, and a next one or none (0)
}

void hy_integ_hist_set(hy_integ* in, const hy_model* m, const double* buf) {
  const int nv = (int)hy_integ_first_order(m);
  for (int v = 0; v < nv; v++) in->trap.pd_prev[v] = buf[v];
  in->trap.h_prev = buf[nv];
  in->trap.h_next = buf[nv + 1];
}

//----- work of the loads and cylinders -------------------------------------------------------

// The trapezoidal rule on the powers at the two ends of a step of size h.
static void integrate_work(hy_data* d, const hy_form_power* a, const hy_form_power* b, double h) {
  const double hh = 0.5 * h;
  d->work_ext += hh * (a->total + b->total);
  d->work_hyd += hh * (a->hyd + b->hyd);
  d->diss_visc += hh * (a->visc + b->visc);
  d->work_damp += hh * (a->damp + b->damp);
  d->diss_fric += hh * (a->fric + b->fric);
}

static void count_step(hy_data* d, double h) {
  if (d->stats.nsubstep == 0 || h < d->stats.h_min) d->stats.h_min = h;
  d->stats.nsubstep++;
}

//----- explicit methods ------------------------------------------------------------------------

// The state [z; zd; p; w; U], with the momenta in place of zd for a Hamiltonian formulation (f's
// velocities operation: its state is (z, mom), zd follows from them).
static void gather(const hy_form* f, const hy_data* d, double* x) {
  const hy_model* m = f->m;
  const size_t nz = (size_t)m->sizes.nz, ny = hy_integ_first_order(m);
  memcpy(x, d->z, sizeof(double) * nz);
  memcpy(x + nz, f->ops->velocities ? d->mom : d->zd, sizeof(double) * nz);
  memcpy(x + 2 * nz, d->p, sizeof(double) * ny);
  memcpy(x + 2 * nz + ny, d->U, sizeof(double) * (size_t)m->sizes.nspool);
}

static void scatter(const hy_form* f, hy_data* d, const double* x) {
  const hy_model* m = f->m;
  const size_t nz = (size_t)m->sizes.nz, ny = hy_integ_first_order(m);
  memcpy(d->z, x, sizeof(double) * nz);
  memcpy(f->ops->velocities ? d->mom : d->zd, x + nz, sizeof(double) * nz);
  memcpy(d->p, x + 2 * nz, sizeof(double) * ny);
  memcpy(d->U, x + 2 * nz + ny, sizeof(double) * (size_t)m->sizes.nspool);
}

// The rates [zd; zdd; p_dot; w_dot; U_dot] the last evaluation left in d ([zd; mom_d; ...] for a
// Hamiltonian formulation).
static void gather_rates(const hy_form* f, const hy_data* d, double* xdot) {
  const hy_model* m = f->m;
  const size_t nz = (size_t)m->sizes.nz, ny = hy_integ_first_order(m);
  memcpy(xdot, d->zd, sizeof(double) * nz);
  memcpy(xdot + nz, f->ops->velocities ? d->mom_d : d->zdd, sizeof(double) * nz);
  memcpy(xdot + 2 * nz, d->pd, sizeof(double) * ny);
  memcpy(xdot + 2 * nz + ny, d->Ud, sizeof(double) * (size_t)m->sizes.nspool);
}

// The formulation's ODE seen by the explicit methods.
static hy_status ode_rhs(void* ctx, double t, const double* x, double* xdot) {
  hy_form* f = ctx;
  f->d->time = t;
  scatter(f, f->d, x);
  HY_TRY(hy_form_forward(f));
  gather_rates(f, f->d, xdot);
  return HY_OK;
}

static hy_status explicit_step(hy_integ* in, hy_form* f, double dt) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const double t0 = d->time;
  const hy_form_power p0 = f->power;
  // the outputs in d describe the state at t0 (the formulation's forward ran last there), so
  // they give x_dot(t0) without another evaluation
  gather(f, d, in->ex_x);
  memcpy(in->ex_x0, in->ex_x, sizeof(double) * (size_t)explicit_n(m));
  gather_rates(f, d, in->ex_xdot);
  hy_mech_cache_get(m, f->mech, in->ex_cache);
  hy_status st;
  hy_ode_counts cnt = {0, 0, 0, dt};
  if (in->ode) {
    st = hy_ode_evolve(in->ode, ode_rhs, f, t0, t0 + dt, in->ex_x, &cnt);
    d->stats.nreject += cnt.rejected;
    d->stats.nrhs += cnt.rhs;
    if (st != HY_OK && d->err.code != st) {
      HY_FAIL(&d->err, st, "%s stopped in the step t = %.9g -> %.9g s: %s",
              hy_integrator_name(in->kind), t0, t0 + dt, hy_ode_message(in->ode));
    }
  } else {
    st = hy_integ_explicit_step(in->kind, m->sizes.nz,
                                (int)hy_integ_first_order(m) + m->sizes.nspool,
                                t0, dt, in->ex_x, in->ex_xdot, ode_rhs, f, in->ex_work);
  }
  if (st == HY_OK) {
    scatter(f, d, in->ex_x);
    d->time = t0 + dt;
    st = hy_form_forward(f);
  }
  if (st != HY_OK) {
    // back to the start of the step, outputs included, keeping the first error's detail
    if (d->err.code != st) {
      HY_FAIL(&d->err, st, "%s after the step t = %.9g -> %.9g s", hy_status_str(st), t0,
              t0 + dt);
    }
    const hy_error keep = d->err;
    scatter(f, d, in->ex_x0);
    d->time = t0;
    // the stage evaluations moved the rotation cache: the start's, so that the step is undone
    // to the last bit (as hy_trap_abort)
    hy_mech_cache_set(m, f->mech, in->ex_cache);
    hy_form_forward(f);
    hy_mech_cache_set(m, f->mech, in->ex_cache);
    d->err = keep;
    return st < 0 ? st : HY_STEP_REJECTED;
  }
  integrate_work(d, &p0, &f->power, dt);
  if (in->ode) {
    // the method's own steps; the size of the last one of each output step stands for them in
    // the smallest step (SUNDIALS keeps no minimum)
    if (cnt.steps > 0) count_step(d, cnt.h_last > 0 ? cnt.h_last : dt);
    d->stats.nsubstep += cnt.steps > 0 ? cnt.steps - 1 : 0;
  } else {
    count_step(d, dt);
  }
  return HY_OK;
}

//----- the trapezoidal step's controller -----------------------------------------------------

// Failures a smaller step may get past: the Newton iteration or the loop closure did not
// converge, a matrix of the step was singular, a non-finite value appeared.
static int retryable(hy_status st) {
  return st == HY_NEWTON_NOCONV || st == HY_WARN_SINGULAR || st == HY_ERR_SINGULAR ||
         st == HY_ERR_NAN;
}

// Whether the state the failed trapezoidal step started from (kept by hy_trap_begin) is finite.
static int start_is_finite(const hy_integ* in, const hy_model* m) {
  const hy_trap* tr = &in->trap;
  const int nz = m->sizes.nz, nv = m->sizes.nvol;
  for (int i = 0; i < nz; i++) {
    if (!isfinite(tr->z_k[i]) || !isfinite(tr->zd_k[i]) || !isfinite(tr->zdd_k[i])) return 0;
  }
  for (int v = 0; v < nv; v++) {
    if (!isfinite(tr->p_k[v]) || !isfinite(tr->pd_k[v])) return 0;
  }
  return 1;
}

// Says in the error how far the step was cut before it failed for good.
static void note_cuts(hy_data* d, int cuts, double h) {
  if (cuts == 0) return;
  const size_t len = strlen(d->err.msg);
  snprintf(d->err.msg + len, sizeof d->err.msg - len,
           " (the step was cut %d time%s, down to %.3g s)", cuts, cuts == 1 ? "" : "s", h);
}

// The state back at the start of the step that failed in pieces, keeping the failure's detail.
static hy_status back_to_start(hy_integ* in, hy_data* d, hy_status st) {
  const hy_error keep = d->err;
  in->checkpoint.restore(in->checkpoint.ctx);
  d->err = keep;
  return st;
}

// The step that ends an interval lands on its end exactly, so that the steps meet the recording
// times: a step within this factor of what is left takes it all, and one that would leave less
// than a step is shortened to half of what is left, instead of leaving a sliver.
#define LAND 1.1

// The size of the next piece of an interval with `rest` left when the controller asks for h;
// *last when it ends the interval.
static double piece(double h, double rest, int* last) {
  *last = !(h * LAND < rest);
  if (*last) return rest;
  return h < 0.5 * rest ? h : 0.5 * rest;
}

// Between the pieces of an interval, as hy_sim_step does between intervals: the Cardan charts
// re-anchored, so that a chart gets no further than one piece's turn past the threshold, and
// their channels followed piece by piece, so that they unwrap whole turns within an interval.
static void between_pieces(const hy_model* m, hy_data* d) {
  if (m->sizes.ngimbal == 0) return;
  hy_mech_gimbal_reanchor(m, d);
  hy_mech_gimbal_outputs(m, d, 0);
}

// Fixed steps: dt at once, and when that fails, the interval in steps of dt/2, dt/4, ... (each
// later failure halves the step again for the rest of the interval).
static hy_status trapezoidal_fixed(hy_integ* in, hy_form* f, double dt) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  const double t0 = d->time, t_end = t0 + dt;
  hy_status st = hy_trap_step(in, f, dt, t_end, NULL);
  if (st == HY_OK) {
    integrate_work(d, &in->trap.power_k, &f->power, dt);
    count_step(d, dt);
    return HY_OK;
  }
  if (m->opt.strict_steps || !retryable(st) || m->opt.max_cuts < 1) return st;
  if (st == HY_ERR_NAN && !start_is_finite(in, m)) {
    // no smaller step gets past a state that is not finite to begin with
    return HY_FAIL(&d->err, HY_ERR_NAN, "non-finite state at the start of the step at t = %g s",
                   t0);
  }
  // back at the start: kept, so that a later piece's failure can return there
  in->checkpoint.save(in->checkpoint.ctx);
  f->ops->retry(f);
  d->stats.ncut++;
  double t = t0, h = 0.5 * dt;
  int cuts = 1;
  for (;;) {
    int last;
    const double hh = piece(h, t_end - t, &last);
    const double te = last ? t_end : t + hh;
    st = hy_trap_step(in, f, hh, te, NULL);
    if (st == HY_OK) {
      integrate_work(d, &in->trap.power_k, &f->power, hh);
      count_step(d, hh);
      if (last) return HY_OK;
      between_pieces(m, d);
      t = te;
      continue;
    }
    if (m->opt.strict_steps || !retryable(st) || cuts >= m->opt.max_cuts) {
      note_cuts(d, cuts, h);
      return back_to_start(in, d, st);
    }
    f->ops->retry(f);
    d->stats.ncut++;
    cuts++;
    h *= 0.5;
  }
}

// Steps sized by their local error (hy_trap_step's estimate, a fraction of the tolerance): a
// step over the tolerance is repeated smaller, and the next one grows or shrinks with the
// estimate. The local error of the trapezoidal rule scales with h^3.
static hy_status trapezoidal_controlled(hy_integ* in, hy_form* f, double dt) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_trap* tr = &in->trap;
  const double t0 = d->time, t_end = t0 + dt;
  const double h_min = ldexp(dt, -m->opt.max_cuts);
  in->checkpoint.save(in->checkpoint.ctx);
  double t = t0;
  double h = tr->h_next > 0 && tr->h_next < dt ? tr->h_next : dt;
  int cuts = 0;
  for (;;) {
    int last;
    // a whole interval is a step of dt itself (t_end - t0 may differ from it by rounding)
    const double hh = t == t0 && h == dt ? (last = 1, dt) : piece(h, t_end - t, &last);
    const double te = last ? t_end : t + hh;
    double e = 0;
    hy_status st = hy_trap_step(in, f, hh, te, &e);
    if (st == HY_OK) {
      integrate_work(d, &tr->power_k, &f->power, hh);
      count_step(d, hh);
      double grow = e > 0 ? 0.9 * pow(e, -1.0 / 3.0) : 2;
      grow = fmin(2, fmax(0.2, grow));
      // a last piece cut short to land on t_end says little about the size to go on with
      const double next = last && hh < h ? fmax(h, hh * grow) : hh * grow;
      h = fmin(dt, next);
      if (last) {
        tr->h_next = h;
        return HY_OK;
      }
      between_pieces(m, d);
      t = te;
      continue;
    }
    if (st == HY_ERR_NAN && !start_is_finite(in, m)) {
      HY_FAIL(&d->err, HY_ERR_NAN, "non-finite state at the start of the step at t = %g s", t);
      return back_to_start(in, d, st);
    }
    if (st == HY_STEP_REJECTED) {
      d->stats.nreject++;
      h = hh * fmin(0.9, fmax(0.2, 0.9 * pow(e, -1.0 / 3.0)));
    } else if (!m->opt.strict_steps && retryable(st) && 0.5 * hh >= h_min) {
      f->ops->retry(f);
      d->stats.ncut++;
      cuts++;
      h = 0.5 * hh;
    } else {
      note_cuts(d, cuts, hh);
      return back_to_start(in, d, st);
    }
    if (h < h_min) {
      HY_FAIL(&d->err, st,
              "the local error at t = %.9g s stays above its tolerance (estimate %.3g times "
              "it) down to the smallest step %.3g s (dt / 2^max_cuts)",
              t, e, h_min);
      return back_to_start(in, d, st);
    }
  }
}

// A formulation that steps itself: the works and counts as for the others.
static hy_status own_step(hy_form* f, double dt) {
  const hy_form_power p0 = f->power;
  const hy_status st = f->ops->step(f, dt);
  if (st != HY_OK) return st;
  integrate_work(f->d, &p0, &f->power, dt);
  count_step(f->d, dt);
  return HY_OK;
}

hy_status hy_integ_advance(hy_integ* in, hy_form* f, double dt) {
  f->d->stats.niter_last = 0;
  if (f->ops->step) return own_step(f, dt);
  if (in->kind != HY_INTEG_TRAPEZOIDAL) return explicit_step(in, f, dt);
  if (f->m->opt.error_control != HY_ERRCTL_NONE) return trapezoidal_controlled(in, f, dt);
  return trapezoidal_fixed(in, f, dt);
}
