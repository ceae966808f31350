// A hydraulic subsystem of a co-simulation (seed 001_004ef98543c36dde.txt, Sects. 2.3, 3.2 and
// 3.3): one circuit of the model alone, its cylinders' lengths and rates being inputs, stepped
// with its own integrator (forward Euler, RK4 or the trapezoidal rule) and step h_h < H. The
// network is hydyn's (src/hyd, Eqs. 27-34), evaluated in a hydyn data of the model that serves
// as storage only: the subsystem's state is the circuit's pressures and spool states and the
// time.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "cosim/cosim.h"
#include "hyd/hyd.h"
#include "hydyn/names.h"
#include "integ/integ.h"

typedef struct hyd_sub {
  hy_cosim_sub sub;
  hy_model* m;  // a copy: the subsystem owns what it steps
  hy_data* d;   // storage for the network's evaluation; only the circuit's entries are its own
  hy_cosim_coupling coupling;
  hy_integrator integ;
  double hh;
  int nc, nv, nu;  // its cylinders, volumes, valves
  int ns;          // its spool states: the valves' positions, the second-order ones' velocities
  int* cyl;        // model indices of its cylinders                                (nc)
  int* vol;        // model indices of the circuit's volumes                         (nv)
  int* vlv;        // model indices of the valves with a port on the circuit         (nu)
  int* spool;      // indices in d->U of their spool states                          (ns)
  double t0;       // start of the inputs' polynomials (s)
  double* coef;    // [s of every cylinder, s_dot of every cylinder], c0 c1 c2 each  (6 nc)
  double* y;       // the outputs at d->time                                         (nout)
  hy_hyd_work hw;  // the network's derivatives, for the trapezoidal rule's Newton tangent
  double* hw_buf;  //                                                 (hy_hyd_work_size)
  // the step's work, none of it state
  double* x;      // [pressures; spool states] for the explicit methods            (nv + ns)
  double* xwork;  // their workspace                          (hy_integ_explicit_work_size)
  double* p0;     // pressures at the start of a trapezoidal step                  (nv)
  double* pd0;    // their rates there                                              (nv)
  double* r;      // Newton residual, then correction                               (nv)
  double* J;      // Newton tangent and its LU factors                              (nv x nv)
  int* piv;       //                                                                (nv)
  double* keep;   // the state at the start of a step_to: time, pressures, spool
                  // states                                                         (1 + nv + ns)
  double* geo;    // the cylinders' lengths and rates while hy_cosim_hyd_forces
                  // evaluates at others                                            (2 nc)
} hyd_sub;

static hyd_sub* self_of(const hy_cosim_sub* s) { return (hyd_sub*)s->self; }

//----- the network at a time ------------------------------------------------------------------

// The cylinders' lengths and rates from the inputs at time t.
static void set_geometry(hyd_sub* hs, double t) {
  const hy_model* m = hs->m;
  hy_data* d = hs->d;
  const double tau = t - hs->t0;
  for (int k = 0; k < hs->nc; k++) {
    const int f = m->cyl_frc[hs->cyl[k]];
    const double* cs = hs->coef + 3 * k;
    const double* cr = hs->coef + 3 * (hs->nc + k);
    d->frc_len[f] = cs[0] + tau * (cs[1] + tau * cs[2]);
    d->frc_rate[f] = cr[0] + tau * (cr[1] + tau * cr[2]);
  }
}

// Seed 001 Eqs. 27-34 (hydyn's network, src/hyd) at time t, the state in d and the inputs there;
// the derivatives into hw when not NULL. The spools' rates first, which also puts a spool without
// dynamics at its reference.
static void evaluate(hyd_sub* hs, double t, hy_hyd_work* hw) {
  hs->d->time = t;
  set_geometry(hs, t);
  hy_hyd_spool_rates(hs->m, hs->d);
  hy_hyd_evaluate(hs->m, hs->d, hw);
}

static void gather_state(const hyd_sub* hs, double* x) {
  for (int i = 0; i < hs->nv; i++) x[i] = hs->d->p[hs->vol[i]];
  for (int j = 0; j < hs->ns; j++) x[hs->nv + j] = hs->d->U[hs->spool[j]];
}

static void scatter_state(hyd_sub* hs, const double* x) {
  for (int i = 0; i < hs->nv; i++) hs->d->p[hs->vol[i]] = x[i];
  for (int j = 0; j < hs->ns; j++) hs->d->U[hs->spool[j]] = x[hs->nv + j];
}

// The outputs at the state evaluated last.
static void gather_outputs(hyd_sub* hs) {
  const hy_model* m = hs->m;
  const hy_data* d = hs->d;
  for (int k = 0; k < hs->nc; k++) {
    const int c = hs->cyl[k];
    if (hs->coupling == HY_COUPLE_VF) {
      hs->y[k] = d->frc_force[m->cyl_frc[c]];
    } else {
      hs->y[k] = d->p[m->cyl_vol_a[c]];
      hs->y[hs->nc + k] = d->p[m->cyl_vol_b[c]];
    }
  }
}

// The whole evaluation at the current state and time, for records and outputs.
static void evaluate_outputs(hyd_sub* hs) {
  evaluate(hs, hs->d->time, NULL);
  gather_outputs(hs);
}

//----- the integrators ----------------------------------------------------------------------

// x_dot = [p_dot; U_dot] of the circuit at (t, x), the inputs at t (seed 001 Eqs. 27-32): what
// forward Euler and RK4 step, each stage with the inputs at its own time.
static hy_status rhs(void* ctx, double t, const double* x, double* xdot) {
  hyd_sub* hs = ctx;
  scatter_state(hs, x);
  evaluate(hs, t, NULL);
  for (int i = 0; i < hs->nv; i++) xdot[i] = hs->d->pd[hs->vol[i]];
  for (int j = 0; j < hs->ns; j++) xdot[hs->nv + j] = hs->d->Ud[hs->spool[j]];
  return HY_OK;
}

static hy_status explicit_step(hyd_sub* hs, double t, double h) {
  gather_state(hs, hs->x);
  const hy_status st =
      hy_integ_explicit_step(hs->integ, 0, hs->nv + hs->ns, t, h, hs->x, NULL, rhs, hs, hs->xwork);
  if (st != HY_OK) {
    return HY_FAIL(&hs->sub.err, st,
                   "hydraulics: the %s step t = %.9g -> %.9g s failed (%s): h_h too large for "
                   "the circuit's stiffness?",
                   hy_integrator_name(hs->integ), t, t + h, hy_status_str(st));
  }
  scatter_state(hs, hs->x);
  hs->d->time = t + h;
  return HY_OK;
}

// The trapezoidal rule p1 = p0 + h/2 (p_dot(t0, p0) + p_dot(t1, p1)) (seed 000 Sect. 4 on the
// pressures alone, seed 001 Sect. 3.3 "TR"), solved by Newton-Raphson with the analytic
// d p_dot / d p of src/hyd, to the monolithic pressure tolerance. The spools do not depend on
// the pressures: their dynamics (seed 001 Eq. 32, or the second order) are stepped first, in
// closed form.
static hy_status trapezoidal_step(hyd_sub* hs, double t, double h) {
  const hy_model* m = hs->m;
  hy_data* d = hs->d;
  const int nv = hs->nv, NV = m->sizes.nvol;
  const double t1 = t + h, tol = m->opt.tol_p;
  evaluate(hs, t, NULL);
  for (int i = 0; i < nv; i++) {
    hs->p0[i] = d->p[hs->vol[i]];
    hs->pd0[i] = d->pd[hs->vol[i]];
  }
  for (int j = 0; j < hs->nu; j++) {
    const int v = hs->vlv[j], iw = m->vlv_vadr[v];
    hy_hyd_spool_step(m, d, v, d->U[v], iw >= 0 ? d->U[iw] : 0.0,
                      hy_hyd_spool_reference(m, d, v, t), hy_hyd_spool_reference(m, d, v, t1), h);
  }
  // predictor: forward Euler
  for (int i = 0; i < nv; i++) d->p[hs->vol[i]] = hs->p0[i] + h * hs->pd0[i];
  double worst = INFINITY;
  int worst_vol = hs->vol[0];
  for (int it = 0; it < m->opt.max_iter; it++) {
    evaluate(hs, t1, &hs->hw);
    for (int i = 0; i < nv; i++) {
      const int vi = hs->vol[i];
      hs->r[i] = d->p[vi] - hs->p0[i] - 0.5 * h * (hs->pd0[i] + d->pd[vi]);
      for (int j = 0; j < nv; j++) {
        const double dpd = hs->hw.dpd_dp[(size_t)vi * (size_t)NV + (size_t)hs->vol[j]];
        hs->J[i * nv + j] = (i == j ? 1.0 : 0.0) - 0.5 * h * dpd;
      }
    }
    int col = -1;
    if (hy_lu_factor(nv, hs->J, hs->piv, &col) != HY_OK) {
      return HY_FAIL(&hs->sub.err, HY_NEWTON_NOCONV,
                     "hydraulics: the trapezoidal step t = %.9g -> %.9g s has a singular Newton "
                     "tangent at volume '%s'",
                     t, t1, m->vol_name + (size_t)hs->vol[col < 0 ? 0 : col] * HY_NAME_MAX);
    }
    hy_lu_solve(nv, hs->J, hs->piv, hs->r);
    worst = 0;
    int finite = 1;
    for (int i = 0; i < nv; i++) {
      d->p[hs->vol[i]] -= hs->r[i];
      const double a = fabs(hs->r[i]);
      finite = finite && isfinite(a);
      if (a > worst || !isfinite(a)) {
        worst = a;
        worst_vol = hs->vol[i];
      }
      if (!finite) break;
    }
    if (!finite) break;
    if (worst <= tol) {
      d->time = t1;
      return HY_OK;
    }
  }
  return HY_FAIL(&hs->sub.err, HY_NEWTON_NOCONV,
                 "hydraulics: the trapezoidal step t = %.9g -> %.9g s did not converge in %d "
                 "Newton iterations (last correction %.3g Pa at volume '%s', tolerance %g Pa)",
                 t, t1, m->opt.max_iter, worst, m->vol_name + (size_t)worst_vol * HY_NAME_MAX, tol);
}

//----- operations --------------------------------------------------------------------------------

static void hyd_set_inputs(hy_cosim_sub* s, double t0, const hy_cosim_poly* u) {
  hyd_sub* hs = self_of(s);
  hs->t0 = t0;
  for (int i = 0; i < s->nin; i++) {
    for (int j = 0; j < 3; j++) hs->coef[3 * i + j] = u[i].c[j];
  }
}

static hy_status hyd_step_to(hy_cosim_sub* s, double t) {
  hyd_sub* hs = self_of(s);
  hy_data* d = hs->d;
  const double t_start = d->time, hh = hs->hh;
  const double n = (t - t_start) / hh;
  const long steps = isfinite(n) ? lround(n) : -1;
  if (steps < 0 || fabs(t - t_start - (double)steps * hh) > 1e-9 * hh) {
    return HY_FAIL(&s->err, HY_ERR_ARG,
                   "hydraulics: t = %.17g s is not a whole number of its steps h_h = %.9g s "
                   "after its time %.17g s",
                   t, hh, t_start);
  }
  if (steps == 0) return HY_OK;
  hs->keep[0] = t_start;
  gather_state(hs, hs->keep + 1);
  hy_status st = HY_OK;
  double ti = t_start;
  for (long i = 0; i < steps && st == HY_OK; i++) {
    // the grid t_start + i h_h, landing on t exactly
    const double tn = i + 1 == steps ? t : t_start + (double)(i + 1) * hh;
    st = hs->integ == HY_INTEG_TRAPEZOIDAL ? trapezoidal_step(hs, ti, tn - ti)
                                           : explicit_step(hs, ti, tn - ti);
    ti = tn;
  }
  if (st != HY_OK) {
    d->time = hs->keep[0];
    scatter_state(hs, hs->keep + 1);
    evaluate(hs, d->time, NULL);
    return st;
  }
  d->time = t;
  evaluate_outputs(hs);
  return HY_OK;
}

static void hyd_outputs(const hy_cosim_sub* s, double* y) {
  memcpy(y, self_of(s)->y, sizeof(double) * (size_t)s->nout);
}

static double hyd_time(const hy_cosim_sub* s) { return self_of(s)->d->time; }

// [time | pressures (nv) | spool states (ns) | t0 | coefficients (3 nin) | outputs (nout)]
static int hyd_state_size(const hy_cosim_sub* s) {
  const hyd_sub* hs = self_of(s);
  return 1 + hs->nv + hs->ns + 1 + 3 * s->nin + s->nout;
}

static void hyd_save(const hy_cosim_sub* s, double* buf) {
  const hyd_sub* hs = self_of(s);
  *buf++ = hs->d->time;
  gather_state(hs, buf);
  buf += hs->nv + hs->ns;
  *buf++ = hs->t0;
  memcpy(buf, hs->coef, sizeof(double) * 3 * (size_t)s->nin);
  buf += 3 * s->nin;
  memcpy(buf, hs->y, sizeof(double) * (size_t)s->nout);
}

static hy_status hyd_restore(hy_cosim_sub* s, const double* buf) {
  hyd_sub* hs = self_of(s);
  const int n = hyd_state_size(s);
  for (int i = 0; i < n; i++) {
    if (!isfinite(buf[i])) {
      return HY_FAIL(&s->err, HY_ERR_NAN,
                     "hydraulics: entry %d of the state to restore is not finite (%g)", i, buf[i]);
    }
  }
  hs->d->time = *buf++;
  scatter_state(hs, buf);
  buf += hs->nv + hs->ns;
  hs->t0 = *buf++;
  memcpy(hs->coef, buf, sizeof(double) * 3 * (size_t)s->nin);
  buf += 3 * s->nin;
  // the records of the data at the restored state; the outputs as saved
  evaluate(hs, hs->d->time, NULL);
  memcpy(hs->y, buf, sizeof(double) * (size_t)s->nout);
  return HY_OK;
}

static void hyd_destroy(hy_cosim_sub* s) {
  if (!s) return;
  hyd_sub* hs = self_of(s);
  hy_data_free(hs->d);
  hy_model_free(hs->m);
  hy_free(hs);
}

static const hy_cosim_sub_ops hyd_ops = {
    .kind = "hydraulics",
    .set_inputs = hyd_set_inputs,
    .step_to = hyd_step_to,
    .outputs = hyd_outputs,
    .time = hyd_time,
    .state_size = hyd_state_size,
    .save = hyd_save,
    .restore = hyd_restore,
    .destroy = hyd_destroy,
};

//----- making -----------------------------------------------------------------------------------

// Lays the arrays out from base (when not NULL) and returns the bytes they take.
static size_t layout(hyd_sub* hs, const hy_model* m, int nin, int nout, unsigned char* base) {
  const size_t nc = (size_t)hs->nc, nv = (size_t)hs->nv, nu = (size_t)hs->nu;
  const size_t ns = (size_t)hs->ns;
  size_t at = 0;
#define TAKE(field, bytes) HY_LAYOUT_TAKE(base, at, field, bytes)
  TAKE(hs->cyl, hy_ints(nc));
  TAKE(hs->vol, hy_ints(nv));
  TAKE(hs->vlv, hy_ints(nu));
  TAKE(hs->spool, hy_ints(ns));
  TAKE(hs->coef, hy_doubles(3 * (size_t)nin));
  TAKE(hs->y, hy_doubles((size_t)nout));
  TAKE(hs->hw_buf, hy_doubles(hy_hyd_work_size(m)));
  TAKE(hs->x, hy_doubles(nv + ns));
  TAKE(hs->xwork, hy_doubles(hy_integ_explicit_work_size(HY_INTEG_RK4, (int)(nv + ns))));
  TAKE(hs->p0, hy_doubles(nv));
  TAKE(hs->pd0, hy_doubles(nv));
  TAKE(hs->r, hy_doubles(nv));
  TAKE(hs->J, hy_doubles(nv * nv));
  TAKE(hs->piv, hy_ints(nv));
  TAKE(hs->keep, hy_doubles(1 + nv + ns));
  TAKE(hs->geo, hy_doubles(2 * nc));
#undef TAKE
  return at;
}

// Whether valve v has a volume of circuit circ at a port.
static int valve_in_circuit(const hy_model* m, int v, int circ) {
  for (int k = 0; k < 4; k++) {
    const int node = m->vlv_node[4 * v + k];
    if (node < m->sizes.nvol && m->vol_circ[node] == circ) return 1;
  }
  return 0;
}

hy_status hy_cosim_hyd_make(const hy_model* m, int circ, hy_cosim_coupling c, hy_integrator integ,
                            double hh, hy_cosim_sub** out, hy_error* err) {
  if (!m || !out) return HY_FAIL(err, HY_ERR_ARG, "null argument");
  *out = NULL;
  if (circ < 0 || circ >= m->sizes.ncirc) {
    return HY_FAIL(err, HY_ERR_ARG, "hydraulics of '%s': no circuit %d (it has %d)", m->name, circ,
                   m->sizes.ncirc);
  }
  const char* circ_name = m->circ_name + (size_t)circ * HY_NAME_MAX;
  if (integ != HY_INTEG_EULER && integ != HY_INTEG_RK4 && integ != HY_INTEG_TRAPEZOIDAL) {
    return HY_FAIL(err, HY_ERR_ARG,
                   "hydraulics of circuit '%s': integrator %d is not one of euler, rk4, "
                   "trapezoidal",
                   circ_name, (int)integ);
  }
  if (!(hh > 0) || !isfinite(hh)) {
    return HY_FAIL(err, HY_ERR_ARG,
                   "hydraulics of circuit '%s': the step h_h = %g s must be "
                   "positive",
                   circ_name, hh);
  }
  if (c != HY_COUPLE_VF && c != HY_COUPLE_VP) {
    return HY_FAIL(err, HY_ERR_ARG, "hydraulics of circuit '%s': unknown coupling %d", circ_name,
                   (int)c);
  }
  HY_TRY(hy_cosim_refuse_friction_states(m, err));
  hyd_sub probe = {.nc = 0};
  for (int k = 0; k < m->sizes.ncyl; k++) probe.nc += m->vol_circ[m->cyl_vol_a[k]] == circ;
  for (int v = 0; v < m->sizes.nvol; v++) probe.nv += m->vol_circ[v] == circ;
  for (int v = 0; v < m->sizes.nvlv; v++) {
    const int in = valve_in_circuit(m, v, circ);
    probe.nu += in;
    probe.ns += in * (1 + (m->vlv_vadr[v] >= 0));
  }
  if (probe.nc == 0) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "circuit '%s' of model '%s' drives no cylinder: nothing couples it to the "
                   "mechanics",
                   circ_name, m->name);
  }
  const int nin = 2 * probe.nc, nout = c == HY_COUPLE_VF ? probe.nc : 2 * probe.nc;

  hy_model* mc = NULL;
  if (hy_model_copy(m, &mc) != HY_OK) {
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory copying model '%s'", m->name);
  }
  hy_data* d = NULL;
  hy_status st = hy_data_make(mc, &d, err);
  if (st != HY_OK) {
    hy_model_free(mc);
    return st;
  }
  const size_t bytes = layout(&probe, mc, nin, nout, NULL);
  const size_t head = (sizeof(hyd_sub) + 63) / 64 * 64;
  unsigned char* mem = hy_calloc(head + bytes + 64, 1);
  if (!mem) {
    hy_data_free(d);
    hy_model_free(mc);
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory making the hydraulics of circuit '%s'",
                   circ_name);
  }
  hyd_sub* hs = (hyd_sub*)mem;
  *hs = probe;
  unsigned char* base = mem + head;
  base += (64 - (uintptr_t)base % 64) % 64;
  layout(hs, mc, nin, nout, base);
  hs->m = mc;
  hs->d = d;
  hs->coupling = c;
  hs->integ = integ;
  hs->hh = hh;
  hs->sub = (hy_cosim_sub){.ops = &hyd_ops, .self = hs, .nin = nin, .nout = nout};
  hy_hyd_work_bind(mc, &hs->hw, hs->hw_buf);
  int kc = 0, kv = 0, ku = 0;
  for (int k = 0; k < mc->sizes.ncyl; k++) {
    if (mc->vol_circ[mc->cyl_vol_a[k]] == circ) hs->cyl[kc++] = k;
  }
  for (int v = 0; v < mc->sizes.nvol; v++) {
    if (mc->vol_circ[v] == circ) hs->vol[kv++] = v;
  }
  for (int v = 0; v < mc->sizes.nvlv; v++) {
    if (valve_in_circuit(mc, v, circ)) hs->vlv[ku++] = v;
  }
  // in the order of d->U: the positions, then the velocities
  int ks = ku;
  for (int j = 0; j < ku; j++) hs->spool[j] = hs->vlv[j];
  for (int j = 0; j < ku; j++) {
    const int iw = mc->vlv_vadr[hs->vlv[j]];
    if (iw >= 0) hs->spool[ks++] = iw;
  }
  // the inputs hold the monolithic initial state's geometry until the manager sets them
  hs->t0 = d->time;
  for (int k = 0; k < hs->nc; k++) {
    const int f = mc->cyl_frc[hs->cyl[k]];
    hs->coef[3 * k] = d->frc_len[f];
    hs->coef[3 * (hs->nc + k)] = d->frc_rate[f];
  }
  evaluate_outputs(hs);
  *out = &hs->sub;
  return HY_OK;
}

int hy_cosim_hyd_cylinders(const hy_cosim_sub* s, const int** cyl) {
  const hyd_sub* hs = self_of(s);
  if (cyl) *cyl = hs->cyl;
  return hs->nc;
}

void hy_cosim_hyd_forces(const hy_cosim_sub* s, const double* len, const double* rate, double* F) {
  hyd_sub* hs = self_of(s);
  const hy_model* m = hs->m;
  hy_data* d = hs->d;
  // seed 001 Eqs. 33-34 at the given geometry and the current pressures; the data's geometry
  // and cylinder records are put back afterwards (the pressures, spools and time, the state,
  // are only read)
  for (int k = 0; k < hs->nc; k++) {
    const int f = m->cyl_frc[hs->cyl[k]];
    hs->geo[k] = d->frc_len[f];
    hs->geo[hs->nc + k] = d->frc_rate[f];
    d->frc_len[f] = len[k];
    d->frc_rate[f] = rate[k];
  }
  hy_hyd_cylinder_forces(m, d);
  for (int k = 0; k < hs->nc; k++) {
    const int f = m->cyl_frc[hs->cyl[k]];
    F[k] = d->frc_force[f];
    d->frc_len[f] = hs->geo[k];
    d->frc_rate[f] = hs->geo[hs->nc + k];
  }
  hy_hyd_cylinder_forces(m, d);
}

const hy_data* hy_cosim_hyd_data(const hy_cosim_sub* s) { return self_of(s)->d; }
