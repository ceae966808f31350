// The mechanical subsystem of a co-simulation (seed 001_004ef98543c36dde.txt, Sects. 2.3 and
// 3.3): a hydyn data of the model, stepped by its formulation with h_m = H, whose cylinders take
// their force (velocity-force coupling) or their chamber pressures (velocity-pressure coupling)
// from the hydraulics as polynomials over the macro step (hy_data.cyl_input). It returns the
// actuator lengths, rates and accelerations, and the reduced interface model of Sect. 2.3.1
// (Eqs. 10-15; the crane's interface velocity is Eq. 25).
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "cosim/cosim.h"
#include "hydyn/names.h"
#include "mech/mech.h"
#include "sim/sim.h"

typedef struct mech_sub {
  hy_cosim_sub sub;
  hy_model* m;  // the copy the data steps (dt = H, the formulation asked for)
  hy_data* d;
  double H;
  hy_cyl_input input;  // d->cyl_input points here
  double* coef;        // the inputs' coefficients, c0 c1 c2 each (3 nin); input.coef
  double* y;           // the outputs at d->time                                    (nout)
  int nfull;           // doubles of hy_state HY_STATE_FULL
  // scratch, none of it state
  double* keep;       // the state at the start of a step_to or of the interface model (nfull)
  double* coef_keep;  // the inputs while the interface model or a restore replaces them
  double* unit;       // the interface model's unit forces                       (3 ncyl)
  double* sdd0;       // s_ddot at F = 0                                          (ncyl)
  double* minv;       // M_eff^-1, then its LU factors                       (ncyl x ncyl)
  int* piv;           //                                                          (ncyl)
  double* row;        // d|s|/dz of one cylinder                                  (nz)
} mech_sub;

static mech_sub* self_of(const hy_cosim_sub* s) { return (mech_sub*)s->self; }

//----- refusals --------------------------------------------------------------------------------

hy_status hy_cosim_refuse_friction_states(const hy_model* m, hy_error* err) {
  for (int c = 0; c < m->sizes.ncyl; c++) {
    const hy_friction_law law = m->cyl_fric[c].law;
    if (hy_friction_nstates(law) == 0) continue;
    const hy_srcpos pos = m->cyl_src[c];
    return hy_error_set_src(err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                            "cylinder '%s': the seal friction law '%s' has internal states, "
                            "which co-simulation cannot split between the mechanics and the "
                            "hydraulics (they follow s_dot and both pressures at once); use a "
                            "law without states or the monolithic run",
                            m->frc_name + (size_t)m->cyl_frc[c] * HY_NAME_MAX,
                            hy_friction_law_name(law));
  }
  return HY_OK;
}

//----- outputs -----------------------------------------------------------------------------------

// s_ddot of every cylinder at the evaluated state (after hy_forward): with s = x_b - x_a,
// u = s / |s| and v_rel = x_dot_b - x_dot_a, |s|_ddot = u . (a_b - a_a) + (|v_rel|^2 - s_dot^2)/|s|
// (the second term is u_dot . v_rel), and a = dx/dz zdd + x_ddot0 for each marker (seed 000
// Eqs. 1-3). hydyn keeps the body accelerations of the tree formulation only, so the markers'
// come from the zdd = 0 accelerations of the kinematics, which every formulation has.
static void length_accelerations(mech_sub* ms, double* sdd) {
  const hy_model* m = ms->m;
  const hy_data* d = ms->d;
  const hy_mech_work* mw = &((const hy_work*)d->work_)->mech;
  const int nz = m->sizes.nz;
  for (int c = 0; c < m->sizes.ncyl; c++) {
    const int k = m->cyl_frc[c];
    const int ma = m->frc_mrk_a[k], mb = m->frc_mrk_b[k];
    const double len = d->frc_len[k], rate = d->frc_rate[k];
    const double* u = d->frc_dir + 3 * k;
    double* row = ms->row;
    for (int i = 0; i < nz; i++) row[i] = 0;
    hy_mech_add_point_along(m, d, m->mrk_body[mb], d->mrk_pos + 3 * mb, u, 1.0, row);
    hy_mech_add_point_along(m, d, m->mrk_body[ma], d->mrk_pos + 3 * ma, u, -1.0, row);
    double acc = 0;
    for (int i = 0; i < nz; i++) acc += row[i] * d->zdd[i];
    double a0a[3], a0b[3], vrel[3];
    hy_mech_marker_acceleration0(m, d, mw, ma, a0a);
    hy_mech_marker_acceleration0(m, d, mw, mb, a0b);
    hy_v3_sub(vrel, d->mrk_vel + 3 * mb, d->mrk_vel + 3 * ma);
    acc += u[0] * (a0b[0] - a0a[0]) + u[1] * (a0b[1] - a0a[1]) + u[2] * (a0b[2] - a0a[2]);
    // markers that meet have no direction (hy_mech_force_geometry): no acceleration either
    if (len > 0) acc += (hy_v3_dot(vrel, vrel) - rate * rate) / len;
    sdd[c] = acc;
  }
}

// The outputs [s, s_dot, s_ddot] at the evaluated state.
static void gather_outputs(mech_sub* ms) {
  const hy_model* m = ms->m;
  const int nc = m->sizes.ncyl;
  for (int c = 0; c < nc; c++) {
    const int k = m->cyl_frc[c];
    ms->y[c] = ms->d->frc_len[k];
    ms->y[nc + c] = ms->d->frc_rate[k];
  }
  length_accelerations(ms, ms->y + 2 * nc);
}

//----- operations --------------------------------------------------------------------------------

static void mech_set_inputs(hy_cosim_sub* s, double t0, const hy_cosim_poly* u) {
  mech_sub* ms = self_of(s);
  ms->input.t0 = t0;
  for (int i = 0; i < s->nin; i++) {
    for (int j = 0; j < 3; j++) ms->coef[3 * i + j] = u[i].c[j];
  }
}

// The failure st of a step_to: its detail into s->err, the whole state back to its start
// (ms->keep).
static hy_status undo(hy_cosim_sub* s, hy_status st, double t_start) {
  mech_sub* ms = self_of(s);
  s->err = ms->d->err;
  hy_state_set(ms->m, ms->d, HY_STATE_FULL, ms->keep);
  if (s->err.code == HY_OK) {
    HY_FAIL(&s->err, st, "mechanics: %s in the macro step from t = %.9g s", hy_status_str(st),
            t_start);
  }
  return st;
}

static hy_status mech_step_to(hy_cosim_sub* s, double t) {
  mech_sub* ms = self_of(s);
  hy_data* d = ms->d;
  const double t_start = d->time, H = ms->H;
  const double n = (t - t_start) / H;
  const long steps = isfinite(n) ? lround(n) : -1;
  if (steps < 0 || fabs(t - t_start - (double)steps * H) > 1e-9 * H) {
    return HY_FAIL(&s->err, HY_ERR_ARG,
                   "mechanics: t = %.17g s is not a whole number of its steps H = %.9g s after "
                   "its time %.17g s",
                   t, H, t_start);
  }
  if (steps == 0) return HY_OK;
  d->err.code = HY_OK;  // so that a failure below can tell whether it was described
  hy_state_get(ms->m, d, HY_STATE_FULL, ms->keep);
  // the inputs may have jumped at t_start (extrapolation): the trapezoidal relations and the
  // explicit methods' first stage start from the accelerations with the inputs now in force
  hy_status st = hy_forward(ms->m, d);
  for (long i = 0; i < steps && st == HY_OK; i++) st = hy_step(ms->m, d);
  // the end state evaluated as such (a step leaves the last Newton evaluation's kinematics)
  if (st == HY_OK) st = hy_forward(ms->m, d);
  if (st != HY_OK) return undo(s, st, t_start);
  gather_outputs(ms);
  return HY_OK;
}

static void mech_outputs(const hy_cosim_sub* s, double* y) {
  const mech_sub* ms = self_of(s);
  memcpy(y, ms->y, sizeof(double) * (size_t)s->nout);
}

static double mech_time(const hy_cosim_sub* s) { return self_of(s)->d->time; }

// [HY_STATE_FULL | t0 | coefficients (3 nin) | outputs (nout)]
static int mech_state_size(const hy_cosim_sub* s) {
  return self_of(s)->nfull + 1 + 3 * s->nin + s->nout;
}

static void mech_save(const hy_cosim_sub* s, double* buf) {
  const mech_sub* ms = self_of(s);
  hy_state_get(ms->m, ms->d, HY_STATE_FULL, buf);
  buf += ms->nfull;
  *buf++ = ms->input.t0;
  memcpy(buf, ms->coef, sizeof(double) * 3 * (size_t)s->nin);
  buf += 3 * s->nin;
  memcpy(buf, ms->y, sizeof(double) * (size_t)s->nout);
}

static hy_status mech_restore(hy_cosim_sub* s, const double* buf) {
  mech_sub* ms = self_of(s);
  const double* in = buf + ms->nfull;
  for (int i = 0; i < 1 + 3 * s->nin + s->nout; i++) {
    if (!isfinite(in[i])) {
      return HY_FAIL(&s->err, HY_ERR_NAN,
                     "mechanics: entry %d of the inputs and outputs to restore is not finite", i);
    }
  }
  // the inputs first: setting the state evaluates it with them
  const double t0_keep = ms->input.t0;
  memcpy(ms->coef_keep, ms->coef, sizeof(double) * 3 * (size_t)s->nin);
  ms->input.t0 = in[0];
  memcpy(ms->coef, in + 1, sizeof(double) * 3 * (size_t)s->nin);
  const hy_status st = hy_state_set(ms->m, ms->d, HY_STATE_FULL, buf);
  if (st != HY_OK) {
    ms->input.t0 = t0_keep;
    memcpy(ms->coef, ms->coef_keep, sizeof(double) * 3 * (size_t)s->nin);
    s->err = ms->d->err;
    return st;
  }
  memcpy(ms->y, in + 1 + 3 * s->nin, sizeof(double) * (size_t)s->nout);
  return HY_OK;
}

static void mech_destroy(hy_cosim_sub* s) {
  if (!s) return;
  mech_sub* ms = self_of(s);
  hy_data_free(ms->d);
  hy_model_free(ms->m);
  hy_free(ms);
}

static const hy_cosim_sub_ops mech_ops = {
    .kind = "mechanics",
    .set_inputs = mech_set_inputs,
    .step_to = mech_step_to,
    .outputs = mech_outputs,
    .time = mech_time,
    .state_size = mech_state_size,
    .save = mech_save,
    .restore = mech_restore,
    .destroy = mech_destroy,
};

//----- making -----------------------------------------------------------------------------------

// Lays the arrays out after the struct from base (when not NULL) and returns the bytes they take.
static size_t layout(mech_sub* ms, int nin, int nout, int nfull, int ncyl, int nz,
                     unsigned char* base) {
  size_t at = 0;
#define TAKE(field, bytes) HY_LAYOUT_TAKE(base, at, field, bytes)
  TAKE(ms->coef, hy_doubles(3 * (size_t)nin));
  TAKE(ms->y, hy_doubles((size_t)nout));
  TAKE(ms->keep, hy_doubles((size_t)nfull));
  TAKE(ms->coef_keep, hy_doubles(3 * (size_t)nin));
  TAKE(ms->unit, hy_doubles(3 * (size_t)ncyl));
  TAKE(ms->sdd0, hy_doubles((size_t)ncyl));
  TAKE(ms->minv, hy_doubles((size_t)ncyl * (size_t)ncyl));
  TAKE(ms->piv, hy_ints((size_t)ncyl));
  TAKE(ms->row, hy_doubles((size_t)nz));
#undef TAKE
  return at;
}

hy_status hy_cosim_mech_make(const hy_model* m, hy_formulation form, hy_cosim_coupling c, double H,
                             hy_cosim_sub** out, hy_error* err) {
  if (!m || !out) return HY_FAIL(err, HY_ERR_ARG, "null argument");
  *out = NULL;
  if (!(H > 0) || !isfinite(H)) {
    return HY_FAIL(err, HY_ERR_ARG, "mechanics of '%s': the macro step H = %g s must be positive",
                   m->name, H);
  }
  if (c != HY_COUPLE_VF && c != HY_COUPLE_VP) {
    return HY_FAIL(err, HY_ERR_ARG, "mechanics of '%s': unknown coupling %d", m->name, (int)c);
  }
  if ((int)form < 0 || form >= HY_FORM_COUNT) {
    return HY_FAIL(err, HY_ERR_ARG, "mechanics of '%s': unknown formulation %d", m->name,
                   (int)form);
  }
  const int ncyl = m->sizes.ncyl, nz = m->sizes.nz;
  if (ncyl == 0) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "model '%s' has no hydraulic cylinder: nothing couples its mechanics to a "
                   "hydraulic subsystem",
                   m->name);
  }
  HY_TRY(hy_cosim_refuse_friction_states(m, err));

  hy_model* mc = NULL;
  if (hy_model_copy(m, &mc) != HY_OK) {
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory copying model '%s'", m->name);
  }
  mc->opt.dt = H;
  if (form != HY_FORM_AUTO) mc->opt.formulation = form;
  hy_data* d = NULL;
  hy_status st = hy_data_make(mc, &d, err);
  if (st != HY_OK) {
    hy_model_free(mc);
    return st;
  }
  const int nin = c == HY_COUPLE_VF ? ncyl : 2 * ncyl, nout = 3 * ncyl;
  const int nfull = hy_state_size(mc, d, HY_STATE_FULL);
  mech_sub probe;
  const size_t bytes = layout(&probe, nin, nout, nfull, ncyl, nz, NULL);
  // the arrays after the struct, which a 64-byte boundary starts (the layout keeps it)
  const size_t head = (sizeof(mech_sub) + 63) / 64 * 64;
  unsigned char* mem = hy_calloc(head + bytes + 64, 1);
  if (!mem) {
    hy_data_free(d);
    hy_model_free(mc);
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory making the mechanics of '%s'", m->name);
  }
  mech_sub* ms = (mech_sub*)mem;
  unsigned char* base = mem + head;
  base += (64 - (uintptr_t)base % 64) % 64;
  layout(ms, nin, nout, nfull, ncyl, nz, base);
  ms->m = mc;
  ms->d = d;
  ms->H = H;
  ms->nfull = nfull;
  ms->sub = (hy_cosim_sub){.ops = &mech_ops, .self = ms, .nin = nin, .nout = nout};

  // the inputs hold the monolithic initial state's loads until the manager sets them
  for (int k = 0; k < ncyl; k++) {
    if (c == HY_COUPLE_VF) {
      ms->coef[3 * k] = d->frc_force[mc->cyl_frc[k]];
    } else {
      ms->coef[3 * k] = d->p[mc->cyl_vol_a[k]];
      ms->coef[3 * (ncyl + k)] = d->p[mc->cyl_vol_b[k]];
    }
  }
  ms->input = (hy_cyl_input){
      .mode = c == HY_COUPLE_VF ? HY_CYL_INPUT_FORCE : HY_CYL_INPUT_PRESSURE,
      .t0 = d->time,
      .coef = ms->coef,
  };
  d->cyl_input = &ms->input;
  // a fresh start at the initial state with the inputs (the history of hy_data_make holds the
  // network's rates): consistent accelerations, the integrator's history forgotten
  hy_state_get(mc, d, HY_STATE_TIME | HY_STATE_PHYSICS, ms->keep);
  st = hy_state_set(mc, d, HY_STATE_TIME | HY_STATE_PHYSICS, ms->keep);
  if (st == HY_OK) st = hy_forward(mc, d);
  if (st != HY_OK) {
    if (err) *err = d->err;
    mech_destroy(&ms->sub);
    return st;
  }
  gather_outputs(ms);
  *out = &ms->sub;
  return HY_OK;
}

const hy_data* hy_cosim_mech_data(const hy_cosim_sub* s) { return self_of(s)->d; }

const hy_model* hy_cosim_mech_model(const hy_cosim_sub* s) { return self_of(s)->m; }

//----- the reduced interface model ------------------------------------------------------------

// s_ddot of every cylinder with the cylinder forces F(t) = unit (held), at the current state.
static hy_status accelerations_at_forces(mech_sub* ms, double* sdd) {
  HY_TRY(hy_forward(ms->m, ms->d));
  length_accelerations(ms, sdd);
  return HY_OK;
}

hy_status hy_cosim_mech_interface(hy_cosim_sub* s, double* Meff, double* Qeff) {
  mech_sub* ms = self_of(s);
  const hy_model* m = ms->m;
  hy_data* d = ms->d;
  const int nc = m->sizes.ncyl;
  // seed 001 Eqs. 10-15 for w_i = s_dot (Eq. 25: A_i = d|s|/dq): M_eff^-1 = A_i (I - P_c) M^-1
  // A_i^T (Eqs. 13, 15), and M_eff^-1 Q_eff (Eq. 14) is the interface acceleration without the
  // coupling forces lambda_i = F (Eqs. 11-12). Both come out of
  // the equations of motion of whatever formulation the data has, whose accelerations are
  // affine in the cylinder forces F: s_ddot(F) = s_ddot(0) + M_eff^-1 F. So the columns of
  // M_eff^-1 are s_ddot(e_j) - s_ddot(0), and Q_eff = M_eff s_ddot(0).
  d->err.code = HY_OK;
  hy_state_get(m, d, HY_STATE_FULL, ms->keep);
  const hy_cyl_input keep_input = ms->input;
  memset(ms->unit, 0, sizeof(double) * 3 * (size_t)nc);
  ms->input = (hy_cyl_input){.mode = HY_CYL_INPUT_FORCE, .t0 = d->time, .coef = ms->unit};
  hy_status st = accelerations_at_forces(ms, ms->sdd0);
  for (int j = 0; j < nc && st == HY_OK; j++) {
    ms->unit[3 * j] = 1.0;
    st = accelerations_at_forces(ms, Qeff);  // s_ddot(e_j), Qeff as scratch
    ms->unit[3 * j] = 0.0;
    for (int i = 0; i < nc; i++) ms->minv[i * nc + j] = Qeff[i] - ms->sdd0[i];
  }
  ms->input = keep_input;
  hy_state_set(m, d, HY_STATE_FULL, ms->keep);
  if (st != HY_OK) {
    s->err = d->err;
    return st;
  }
  int col = -1;
  if (hy_lu_factor(nc, ms->minv, ms->piv, &col) != HY_OK) {
    return HY_FAIL(&s->err, HY_ERR_SINGULAR,
                   "mechanics at t = %.9g s: the interface model's M_eff^-1 is singular at "
                   "cylinder '%s' (it cannot move the mechanism independently of the others)",
                   d->time, m->frc_name + (size_t)m->cyl_frc[col < 0 ? 0 : col] * HY_NAME_MAX);
  }
  for (int j = 0; j < nc; j++) {
    double* e = Qeff;  // column j of M_eff, through Qeff as scratch
    for (int i = 0; i < nc; i++) e[i] = i == j ? 1.0 : 0.0;
    hy_lu_solve(nc, ms->minv, ms->piv, e);
    for (int i = 0; i < nc; i++) Meff[i * nc + j] = e[i];
  }
  for (int i = 0; i < nc; i++) {
    double q = 0;
    for (int j = 0; j < nc; j++) q += Meff[i * nc + j] * ms->sdd0[j];
    Qeff[i] = q;
  }
  return HY_OK;
}
