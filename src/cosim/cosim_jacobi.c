// The co-simulation manager (seed 001_004ef98543c36dde.txt, Sects. 2.3-2.3.2): a non-iterative
// Jacobi scheme over one mechanical and one hydraulic subsystem per circuit, with Lagrange
// extrapolation of the coupling variables or the reduced interface model (Eqs. 12-15, Fig. 3),
// a Gauss-Seidel option, the residual energy of the coupling (Eqs. 16-24), the system's energy
// balance and the instability rule (docs/cosim.md). Everything a step touches is allocated in
// hy_cosim_make_parts; hy_cosim_step allocates nothing.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cosim/cosim.h"
#include "hydyn/channels.h"
#include "model/model.h"

// Past values kept per coupling variable: enough for the highest extrapolation order.
#define HIST (HY_COSIM_ORDER_MAX + 1)

// The lowest pressure a healthy circuit reaches (Pa): lumped volumes without cavitation may go
// somewhat below 0 in a fast transient, never by megapascals.
#define P_LOW (-1e6)
// The highest, as a multiple of the largest source pressure of the model: a network fed by its
// sources can exceed them only through the load's inertia, by a few times at most.
#define P_HIGH_FACTOR 10.0
// The residual energy the coupling may create before the run counts as unstable, as a share
// of the energy the run moves (docs/cosim.md, "instability").
#define E_RES_SHARE 0.5
#define E_RES_FLOOR 1.0  // J

// Layout of the subsystems' coupling vectors (cosim.h): blocks per quantity, cylinder order.
static inline int mout_s(int ncyl, int k) {
  (void)ncyl;
  return k;
}
static inline int mout_sd(int ncyl, int k) { return ncyl + k; }
static inline int hin_s(int nc, int c) {
  (void)nc;
  return c;
}
static inline int hin_sd(int nc, int c) { return nc + c; }
static inline int hout_pa(int nc, int c) {
  (void)nc;
  return c;
}
static inline int hout_pb(int nc, int c) { return nc + c; }

typedef enum chan_kind {
  CH_TIME,
  CH_S,
  CH_SD,
  CH_F,
  CH_F_HYD,
  CH_P,
  CH_Z,
  CH_DP,
  CH_DP_K,
  CH_E_RES,
  CH_E_RES_ABS,
  CH_E_MECH,
  CH_E_BAL,
  CH_W_CYL,
  CH_W_HYD_OUT,
} chan_kind;

typedef struct chan {
  char name[HY_CHANNEL_NAME_MAX];
  const char* unit;
  chan_kind kind;
  int idx;  // cylinder, volume or joint
  int sub;  // hydraulic subsystem of a volume
} chan;

struct hy_cosim {
  hy_cosim_config c;
  hy_cosim_parts p;
  const hy_model* m;
  int ncyl, nhyd;
  int J;        // micro steps of the hydraulics per macro step (H / hh)
  long n;       // macro steps taken
  long nsteps;  // of the run
  int order_m;  // Lagrange order of the mechanics' inputs
  int order_h;  // of the hydraulics' (Jacobi)

  hy_cosim_sub** hyd;  // the subsystems (p.hyd points here)
  int* hyd_circ;

  // the hydraulic subsystems: their cylinders, and where their vectors sit in the stacked ones
  int* hyd_nc;
  const int** hyd_cyl;
  int* yh_off;  // outputs
  int* uh_off;  // inputs
  int nyh, nuh;
  int* cyl_sub;  // subsystem of cylinder k
  int* cyl_pos;  // its place there
  int nym, num;  // mechanics' outputs (3 ncyl) and inputs (ncyl vf, 2 ncyl vp)
  int* um_src;   // the stacked hydraulic output each mechanical input comes from

  // coupling history, channel-major, newest first: hist[ch * HIST + j] at t_{n-j}
  double* ym_hist;
  double* yh_hist;
  int known;
  double* ym_new;
  double* yh_new;
  hy_cosim_poly* um;
  hy_cosim_poly* uh;

  // per bond k at t_n: the force the mechanics used, the force the hydraulics gave, the rate
  // the hydraulics used; and delta P
  double* Fm;
  double* Fh;
  double* sdh;
  double* dPk;
  double dP;
  double* Fm_new;
  double* Fh_new;
  double* sdh_new;
  double* dPk_new;
  double E_res, E_res_abs, W_hyd_out;
  double E_mech0;
  double scale_E, scale_W;  // largest |E_mech - E_mech(0)|, |work| so far

  // the interface model (Eqs. 12-15)
  double* Meff;
  double* Qeff;
  int* piv;
  double* s_im;
  double* w_im;
  double* F_im;
  double* acc;
  double* tmp_len;
  double* tmp_rate;
  double* tmp_F;

  // each subsystem's state at t_n, for a failed step
  double* save;
  int* save_off;  // nhyd + 2 offsets: mechanics, then the hydraulics

  double p_lo, p_hi;

  int nchan;
  chan* ch;
};

//----- making ---------------------------------------------------------------------------------

static const char* cyl_name(const hy_model* m, int k) {
  return m->frc_name + (size_t)m->cyl_frc[k] * HY_NAME_MAX;
}

static void add_chan(hy_cosim* cs, chan_kind kind, int idx, int sub, const char* unit,
                     const char* prefix, const char* name) {
  chan* c = cs->ch + cs->nchan++;
  c->kind = kind;
  c->idx = idx;
  c->sub = sub;
  c->unit = unit;
  snprintf(c->name, sizeof c->name, "%s%s", prefix, name ? name : "");
}

// The channel table, walked twice: counting (cs->ch NULL) and filling.
static int build_channels(hy_cosim* cs) {
  const hy_model* m = cs->m;
  const int counting = cs->ch == NULL;
  int n = 0;
#define ADD(kind, idx, sub, unit, prefix, name)                      \
  do {                                                               \
    if (!counting) add_chan(cs, kind, idx, sub, unit, prefix, name); \
    n++;                                                             \
  } while (0)
  ADD(CH_TIME, 0, 0, "s", "time", NULL);
  for (int k = 0; k < cs->ncyl; k++) ADD(CH_S, k, 0, "m", "s:", cyl_name(m, k));
  for (int k = 0; k < cs->ncyl; k++) ADD(CH_SD, k, 0, "m/s", "sd:", cyl_name(m, k));
  for (int k = 0; k < cs->ncyl; k++) ADD(CH_F, k, 0, "N", "F:", cyl_name(m, k));
  for (int k = 0; k < cs->ncyl; k++) ADD(CH_F_HYD, k, 0, "N", "F_hyd:", cyl_name(m, k));
  for (int v = 0; v < m->sizes.nvol; v++) {
    for (int j = 0; j < cs->nhyd; j++) {
      if (cs->p.hyd_circ[j] == m->vol_circ[v]) {
        ADD(CH_P, v, j, "Pa", "p:", m->vol_name + (size_t)v * HY_NAME_MAX);
      }
    }
  }
  if (cs->p.mech_data) {
    for (int j = 0; j < m->sizes.nbody; j++) {
      ADD(CH_Z, j, 0, m->jnt_type[j] == HY_JOINT_PRISMATIC ? "m" : "rad",
          "z:", m->jnt_name + (size_t)j * HY_NAME_MAX);
    }
  }
  ADD(CH_DP, 0, 0, "W", "dP", NULL);
  for (int k = 0; k < cs->ncyl; k++) ADD(CH_DP_K, k, 0, "W", "dP:", cyl_name(m, k));
  ADD(CH_E_RES, 0, 0, "J", "E_res", NULL);
  ADD(CH_E_RES_ABS, 0, 0, "J", "E_res_abs", NULL);
  ADD(CH_E_MECH, 0, 0, "J", "E_mech", NULL);
  ADD(CH_E_BAL, 0, 0, "J", "E_bal", NULL);
  ADD(CH_W_CYL, 0, 0, "J", "W_cyl", NULL);
  ADD(CH_W_HYD_OUT, 0, 0, "J", "W_hyd_out", NULL);
#undef ADD
  return n;
}

static hy_status check_config(const hy_cosim_config* c, hy_error* err) {
  if (!(c->H > 0) || !isfinite(c->H)) {
    return HY_FAIL(err, HY_ERR_ARG, "the communication step H = %g s must be > 0", c->H);
  }
  if (!(c->hh > 0) || !isfinite(c->hh)) {
    return HY_FAIL(err, HY_ERR_ARG, "the hydraulics' step hh = %g s must be > 0", c->hh);
  }
  if (c->hh > c->H * (1 + 1e-12)) {
    return HY_FAIL(err, HY_ERR_ARG,
                   "the hydraulics' step hh = %g s is longer than the communication step H = %g s",
                   c->hh, c->H);
  }
  const double ratio = c->H / c->hh;
  if (fabs(ratio - round(ratio)) > 1e-9) {
    return HY_FAIL(err, HY_ERR_ARG,
                   "the communication step H = %g s is not a whole number of hydraulic steps "
                   "hh = %g s (H / hh = %.12g)",
                   c->H, c->hh, ratio);
  }
  if (!(c->t_end > 0) || !isfinite(c->t_end)) {
    return HY_FAIL(err, HY_ERR_ARG, "the end time t_end = %g s must be > 0", c->t_end);
  }
  if (c->t_end / c->H + 1e-9 < 1) {
    return HY_FAIL(err, HY_ERR_ARG,
                   "the communication step H = %g s is longer than the run, t_end = %g s", c->H,
                   c->t_end);
  }
  if (c->coupling != HY_COUPLE_VF && c->coupling != HY_COUPLE_VP) {
    return HY_FAIL(err, HY_ERR_ARG, "unknown coupling %d", (int)c->coupling);
  }
  if (c->extrap != HY_COSIM_IM && (c->extrap < 0 || c->extrap > HY_COSIM_ORDER_MAX)) {
    return HY_FAIL(err, HY_ERR_ARG, "extrapolation order %d is not 0..%d or the interface model",
                   c->extrap, HY_COSIM_ORDER_MAX);
  }
  if (c->gauss_seidel && c->extrap == HY_COSIM_IM) {
    return HY_FAIL(err, HY_ERR_ARG,
                   "the interface model predicts the mechanics' outputs over the step; "
                   "Gauss-Seidel gives the hydraulics the computed ones: choose one");
  }
  return HY_OK;
}

static void destroy_parts(const hy_cosim_parts* p) {
  if (!p->own) return;
  if (p->mech) p->mech->ops->destroy(p->mech);
  for (int j = 0; p->hyd && j < p->nhyd; j++) {
    if (p->hyd[j]) p->hyd[j]->ops->destroy(p->hyd[j]);
  }
}

void hy_cosim_free(hy_cosim* cs) {
  if (!cs) return;
  destroy_parts(&cs->p);
  hy_free(cs);
}

// Bytes of the block behind a manager, and its arrays bound when base is not NULL: one walk
// sizes and binds (HY_LAYOUT_TAKE), so the two cannot disagree.
static size_t layout(hy_cosim* cs, unsigned char* base, int nsave) {
  size_t at = hy_arena_need(sizeof *cs);
  const int nc = cs->ncyl, nh = cs->nhyd;
  HY_LAYOUT_TAKE(base, at, cs->hyd, hy_arena_need(sizeof(hy_cosim_sub*) * (size_t)nh));
  HY_LAYOUT_TAKE(base, at, cs->hyd_circ, hy_ints((size_t)nh));
  HY_LAYOUT_TAKE(base, at, cs->hyd_nc, hy_ints((size_t)nh));
  HY_LAYOUT_TAKE(base, at, cs->hyd_cyl, hy_arena_need(sizeof(const int*) * (size_t)nh));
  HY_LAYOUT_TAKE(base, at, cs->yh_off, hy_ints((size_t)nh + 1));
  HY_LAYOUT_TAKE(base, at, cs->uh_off, hy_ints((size_t)nh + 1));
  HY_LAYOUT_TAKE(base, at, cs->cyl_sub, hy_ints((size_t)nc));
  HY_LAYOUT_TAKE(base, at, cs->cyl_pos, hy_ints((size_t)nc));
  HY_LAYOUT_TAKE(base, at, cs->um_src, hy_ints(2 * (size_t)nc));
  HY_LAYOUT_TAKE(base, at, cs->ym_hist, hy_doubles(3 * (size_t)nc * HIST));
  HY_LAYOUT_TAKE(base, at, cs->yh_hist, hy_doubles(2 * (size_t)nc * HIST));
  HY_LAYOUT_TAKE(base, at, cs->ym_new, hy_doubles(3 * (size_t)nc));
  HY_LAYOUT_TAKE(base, at, cs->yh_new, hy_doubles(2 * (size_t)nc));
  HY_LAYOUT_TAKE(base, at, cs->um, hy_arena_need(sizeof(hy_cosim_poly) * 2 * (size_t)nc));
  HY_LAYOUT_TAKE(base, at, cs->uh, hy_arena_need(sizeof(hy_cosim_poly) * 2 * (size_t)nc));
  double** vec[] = {&cs->Fm,      &cs->Fh,      &cs->sdh,      &cs->dPk,  &cs->Fm_new, &cs->Fh_new,
                    &cs->sdh_new, &cs->dPk_new, &cs->Qeff,     &cs->s_im, &cs->w_im,   &cs->F_im,
                    &cs->acc,     &cs->tmp_len, &cs->tmp_rate, &cs->tmp_F};
  for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
    HY_LAYOUT_TAKE(base, at, *vec[i], hy_doubles((size_t)nc));
  }
  HY_LAYOUT_TAKE(base, at, cs->Meff, hy_doubles((size_t)nc * (size_t)nc));
  HY_LAYOUT_TAKE(base, at, cs->piv, hy_ints((size_t)nc));
  HY_LAYOUT_TAKE(base, at, cs->save_off, hy_ints((size_t)nh + 2));
  HY_LAYOUT_TAKE(base, at, cs->save, hy_doubles((size_t)nsave));
  HY_LAYOUT_TAKE(base, at, cs->ch, hy_arena_need(sizeof(chan) * (size_t)cs->nchan));
  return at;
}

// The outputs at t_n into the newest history slots, and the bond quantities there.
static void take_outputs(hy_cosim* cs, double* ym, double* yh) {
  const hy_cosim_parts* p = &cs->p;
  p->mech->ops->outputs(p->mech, ym);
  for (int j = 0; j < cs->nhyd; j++) p->hyd[j]->ops->outputs(p->hyd[j], yh + cs->yh_off[j]);
}

// The force the hydraulics give bond k (vf: Eq. 33; vp: the pressure force) from their outputs.
static double bond_force_h(const hy_cosim* cs, const double* yh, int k) {
  const int j = cs->cyl_sub[k], c = cs->cyl_pos[k], nc = cs->hyd_nc[j];
  const double* y = yh + cs->yh_off[j];
  if (cs->c.coupling == HY_COUPLE_VF) return y[c];
  return cs->m->cyl_area_a[k] * y[hout_pa(nc, c)] - cs->m->cyl_area_b[k] * y[hout_pb(nc, c)];
}

// The force bond k carries into the mechanics from their inputs at tau.
static double bond_force_m(const hy_cosim* cs, int k, double tau) {
  if (cs->c.coupling == HY_COUPLE_VF) return hy_cosim_poly_value(cs->um + k, tau);
  return cs->m->cyl_area_a[k] * hy_cosim_poly_value(cs->um + k, tau) -
         cs->m->cyl_area_b[k] * hy_cosim_poly_value(cs->um + cs->ncyl + k, tau);
}

static double mech_energy(const hy_cosim* cs) {
  const hy_data* d = cs->p.mech_data;
  return d ? d->energy_kin + d->energy_pot : 0.0;
}

static double cyl_work(const hy_cosim* cs) {
  const hy_data* d = cs->p.mech_data;
  return d ? hy_actuator_work(d) : 0.0;
}

hy_status hy_cosim_make_parts(const hy_cosim_parts* p, const hy_cosim_config* c, hy_cosim** out,
                              hy_error* err) {
  *out = NULL;
  hy_status st = check_config(c, err);
  if (st == HY_OK &&
      (!p->m || !p->mech || (p->nhyd > 0 && (!p->hyd || !p->cylinders || !p->pressure)))) {
    st = HY_FAIL(err, HY_ERR_ARG, "a co-simulation needs a model and its subsystems");
  }
  if (st == HY_OK && c->extrap == HY_COSIM_IM && (!p->interface || !p->forces)) {
    st = HY_FAIL(err, HY_ERR_ARG,
                 "the interface model needs the mechanics' M_eff, Q_eff and "
                 "the hydraulics' forces");
  }
  const hy_model* m = p->m;
  const int ncyl = st == HY_OK ? m->sizes.ncyl : 0;
  if (st == HY_OK && ncyl == 0) {
    st = HY_FAIL(err, HY_ERR_MODEL,
                 "model '%s' has no cylinders: nothing couples its mechanics "
                 "and hydraulics",
                 m->name);
  }
  const int nin_m = c->coupling == HY_COUPLE_VF ? ncyl : 2 * ncyl;
  if (st == HY_OK && (p->mech->nin != nin_m || p->mech->nout != 3 * ncyl)) {
    st = HY_FAIL(err, HY_ERR_ARG,
                 "the mechanical subsystem has %d inputs and %d outputs, the coupling needs %d "
                 "and %d",
                 p->mech->nin, p->mech->nout, nin_m, 3 * ncyl);
  }
  if (st != HY_OK) {
    destroy_parts(p);
    return st;
  }

  hy_cosim head = {.c = *c, .p = *p, .m = m, .ncyl = ncyl, .nhyd = p->nhyd};
  head.ch = NULL;
  head.nchan = build_channels(&head);
  int nsave = p->mech->ops->state_size(p->mech);
  for (int j = 0; j < p->nhyd; j++) nsave += p->hyd[j]->ops->state_size(p->hyd[j]);
  const size_t bytes = layout(&head, NULL, nsave);
  unsigned char* block = hy_calloc(1, bytes);
  if (!block) {
    destroy_parts(p);
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory for the co-simulation manager");
  }
  hy_cosim* cs = (hy_cosim*)block;
  *cs = head;
  layout(cs, block, nsave);
  // the caller's arrays need not outlive this call
  for (int j = 0; j < cs->nhyd; j++) {
    cs->hyd[j] = p->hyd[j];
    cs->hyd_circ[j] = p->hyd_circ ? p->hyd_circ[j] : -1;
  }
  cs->p.hyd = cs->hyd;
  cs->p.hyd_circ = cs->hyd_circ;
  cs->J = (int)lround(c->H / c->hh);
  cs->nsteps = (long)floor(c->t_end / c->H + 1e-9);
  cs->order_m = c->extrap >= 0 ? c->extrap : 0;
  cs->order_h = c->extrap >= 0 ? c->extrap : 0;
  cs->nym = 3 * ncyl;
  cs->num = nin_m;

  // map the cylinders to their hydraulic subsystems
  for (int k = 0; k < ncyl; k++) cs->cyl_sub[k] = -1;
  int yo = 0, uo = 0;
  for (int j = 0; j < cs->nhyd && st == HY_OK; j++) {
    const int* cyl = NULL;
    const int nc = p->cylinders(p->hyd[j], &cyl);
    cs->hyd_nc[j] = nc;
    cs->hyd_cyl[j] = cyl;
    cs->yh_off[j] = yo;
    cs->uh_off[j] = uo;
    const int nout = c->coupling == HY_COUPLE_VF ? nc : 2 * nc;
    if (p->hyd[j]->nin != 2 * nc || p->hyd[j]->nout != nout) {
      st = HY_FAIL(err, HY_ERR_ARG,
                   "hydraulic subsystem %d has %d inputs and %d outputs for %d cylinders, the "
                   "coupling needs %d and %d",
                   j, p->hyd[j]->nin, p->hyd[j]->nout, nc, 2 * nc, nout);
    }
    for (int i = 0; i < nc && st == HY_OK; i++) {
      const int k = cyl[i];
      if (k < 0 || k >= ncyl || cs->cyl_sub[k] >= 0) {
        st = HY_FAIL(err, HY_ERR_ARG,
                     "cylinder %d of hydraulic subsystem %d is not a cylinder "
                     "of the model or belongs to two subsystems",
                     k, j);
      } else {
        cs->cyl_sub[k] = j;
        cs->cyl_pos[k] = i;
      }
    }
    yo += nout;
    uo += 2 * nc;
  }
  cs->yh_off[cs->nhyd] = cs->nyh = yo;
  cs->uh_off[cs->nhyd] = cs->nuh = uo;
  for (int k = 0; k < ncyl && st == HY_OK; k++) {
    if (cs->cyl_sub[k] < 0) {
      st = HY_FAIL(err, HY_ERR_MODEL, "cylinder '%s' has no hydraulic subsystem", cyl_name(m, k));
    }
  }
  if (st != HY_OK) {
    hy_cosim_free(cs);
    return st;
  }
  // each mechanical input from its hydraulic output
  for (int k = 0; k < ncyl; k++) {
    const int j = cs->cyl_sub[k], i = cs->cyl_pos[k], nc = cs->hyd_nc[j];
    if (c->coupling == HY_COUPLE_VF) {
      cs->um_src[k] = cs->yh_off[j] + i;
    } else {
      cs->um_src[k] = cs->yh_off[j] + hout_pa(nc, i);
      cs->um_src[ncyl + k] = cs->yh_off[j] + hout_pb(nc, i);
    }
  }
  cs->save_off[0] = 0;
  cs->save_off[1] = p->mech->ops->state_size(p->mech);
  for (int j = 0; j < cs->nhyd; j++) {
    cs->save_off[j + 2] = cs->save_off[j + 1] + p->hyd[j]->ops->state_size(p->hyd[j]);
  }
  cs->nchan = 0;
  build_channels(cs);

  // The pressure bound: ten times the largest source pressure (signals at their largest),
  // or the largest initial pressure when that is higher (a circuit closed off from its sources)
  double pmax = 0.0;
  for (int s = 0; s < m->sizes.nsrc; s++) {
    pmax = fmax(pmax, fabs(m->src_p[s]) * hy_signal_bound(m, m->src_sig[s]));
  }
  for (int i = 0; i < cs->nchan; i++) {
    if (cs->ch[i].kind == CH_P) {
      pmax = fmax(pmax, fabs(p->pressure(p->hyd[cs->ch[i].sub], cs->ch[i].idx)));
    }
  }
  cs->p_lo = P_LOW;
  cs->p_hi = P_HIGH_FACTOR * pmax;

  // t = 0: every input is the other side's output there, so the bonds balance exactly
  take_outputs(cs, cs->ym_new, cs->yh_new);
  for (int i = 0; i < cs->nym; i++) cs->ym_hist[i * HIST] = cs->ym_new[i];
  for (int i = 0; i < cs->nyh; i++) cs->yh_hist[i * HIST] = cs->yh_new[i];
  cs->known = 1;
  for (int k = 0; k < ncyl; k++) {
    cs->Fh[k] = cs->Fm[k] = bond_force_h(cs, cs->yh_new, k);
    cs->sdh[k] = cs->ym_new[mout_sd(ncyl, k)];
    cs->dPk[k] = 0.0;
  }
  cs->E_mech0 = mech_energy(cs);
  *out = cs;
  return HY_OK;
}

//----- stepping -------------------------------------------------------------------------------

long hy_cosim_nsteps(const hy_cosim* cs) { return cs->nsteps; }
long hy_cosim_step_count(const hy_cosim* cs) { return cs->n; }
const hy_cosim_config* hy_cosim_get_config(const hy_cosim* cs) { return &cs->c; }
const hy_data* hy_cosim_mechanics_data(const hy_cosim* cs) { return cs->p.mech_data; }
double hy_cosim_time(const hy_cosim* cs) { return (double)cs->n * cs->c.H; }

static void save_all(hy_cosim* cs) {
  const hy_cosim_parts* p = &cs->p;
  p->mech->ops->save(p->mech, cs->save + cs->save_off[0]);
  for (int j = 0; j < cs->nhyd; j++)
    p->hyd[j]->ops->save(p->hyd[j], cs->save + cs->save_off[j + 1]);
}

static void restore_all(hy_cosim* cs) {
  const hy_cosim_parts* p = &cs->p;
  // a state this manager saved itself a step ago: restoring it cannot meet a foreign state
  (void)p->mech->ops->restore(p->mech, cs->save + cs->save_off[0]);
  for (int j = 0; j < cs->nhyd; j++) {
    (void)p->hyd[j]->ops->restore(p->hyd[j], cs->save + cs->save_off[j + 1]);
  }
}

// The hydraulics' input polynomials of bond k (rate u_sd, length u_s) in their slots.
static void set_hyd_input(hy_cosim* cs, int k, const hy_cosim_poly* u_s,
                          const hy_cosim_poly* u_sd) {
  const int j = cs->cyl_sub[k], c = cs->cyl_pos[k], nc = cs->hyd_nc[j];
  cs->uh[cs->uh_off[j] + hin_s(nc, c)] = *u_s;
  cs->uh[cs->uh_off[j] + hin_sd(nc, c)] = *u_sd;
}

static double hyd_input_rate(const hy_cosim* cs, int k, double tau) {
  const int j = cs->cyl_sub[k], c = cs->cyl_pos[k], nc = cs->hyd_nc[j];
  return hy_cosim_poly_value(cs->uh + cs->uh_off[j] + hin_sd(nc, c), tau);
}

// Jacobi: the rate is the Lagrange extrapolation of order m of the mechanics' s_dot history;
// the length is s_n plus its integral, so that the hydraulics see a length that moves with the
// rate they see (their chambers' volumes and flows agree). For m = 2 the integral's cubic term
// (c2 tau^3 / 3, O(H^3) like the extrapolation's own error) does not fit the polynomial and
// is left out.
static void jacobi_hyd_inputs(hy_cosim* cs) {
  for (int k = 0; k < cs->ncyl; k++) {
    hy_cosim_poly sd, s;
    hy_cosim_extrapolate(cs->order_h, cs->known, cs->c.H, cs->ym_hist + mout_sd(cs->ncyl, k) * HIST,
                         &sd);
    s.c[0] = cs->ym_hist[mout_s(cs->ncyl, k) * HIST];
    s.c[1] = sd.c[0];
    s.c[2] = 0.5 * sd.c[1];
    set_hyd_input(cs, k, &s, &sd);
  }
}

// Gauss-Seidel: the mechanics' outputs at both ends of the step are known. The rate is
// interpolated linearly, the length is s_n plus its integral (which ends at the trapezoidal
// s_n + H (sd_n + sd_{n+1}) / 2).
static void gauss_seidel_hyd_inputs(hy_cosim* cs) {
  const double H = cs->c.H;
  for (int k = 0; k < cs->ncyl; k++) {
    const double sd0 = cs->ym_hist[mout_sd(cs->ncyl, k) * HIST];
    const double sd1 = cs->ym_new[mout_sd(cs->ncyl, k)];
    const hy_cosim_poly sd = {{sd0, (sd1 - sd0) / H, 0.0}};
    const hy_cosim_poly s = {{cs->ym_hist[mout_s(cs->ncyl, k) * HIST], sd0, 0.5 * (sd1 - sd0) / H}};
    set_hyd_input(cs, k, &s, &sd);
  }
}

// Gives s its inputs over the coming interval and advances it by `span`, both on its own
// clock: a subsystem that keeps its time as a running sum of its steps drifts from n H by
// round-off, and asked for n H it could find a fraction of a step to take.
static hy_status advance(hy_cosim_sub* s, const hy_cosim_poly* u, double span) {
  const double t = s->ops->time(s);
  s->ops->set_inputs(s, t, u);
  return s->ops->step_to(s, t + span);
}

static const char* sub_name(const hy_cosim* cs, int j, char* buf, size_t size) {
  const int circ = cs->p.hyd_circ ? cs->p.hyd_circ[j] : -1;
  if (circ >= 0 && circ < cs->m->sizes.ncirc) {
    snprintf(buf, size, "the hydraulics of circuit '%s'",
             cs->m->circ_name + (size_t)circ * HY_NAME_MAX);
  } else {
    snprintf(buf, size, "hydraulic subsystem %d", j);
  }
  return buf;
}

// The message of an unstable step: where, at which H, and why.
#define UNSTABLE(cs, err, code, t, ...) \
  unstable((cs), (err), (code), (t), __func__, __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 8, 9))) static hy_status unstable(hy_cosim* cs, hy_error* err,
                                                                hy_status code, double t,
                                                                const char* func, const char* file,
                                                                int line, const char* fmt, ...) {
  char why[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  restore_all(cs);
  return hy_error_set(err, code, func, file, line,
                      "co-simulation unstable at t = %.6g s (H = %g ms): %s", t, cs->c.H * 1e3,
                      why);
}

// A subsystem's failure, its own message kept.
static hy_status sub_failed(hy_cosim* cs, hy_error* err, hy_status st, const hy_cosim_sub* s,
                            const char* who, double t0, double t1) {
  const char* msg = s->err.code == st && s->err.msg[0] ? s->err.msg : hy_status_str(st);
  return UNSTABLE(cs, err, st, t0, "%s failed in the step t = %.6g -> %.6g s: %s", who, t0, t1,
                  msg);
}

// The interface model over one macro step (seed 001 Sect. 2.3.1, Fig. 3; Eqs. 12-15): M_eff
// and Q_eff of the mechanics at t_n, held; M_eff w_dot = Q_eff + F integrated with the
// hydraulics' step by semi-implicit Euler (w first, then s with the new w), F the hydraulics'
// cylinder forces at their pressures and the model's s, w. Each hydraulic subsystem gets, over
// each micro step, s + w tau and w with the new w: exactly the s the model moves to, so all
// circuits see one consistent motion between communication points.
static hy_status im_macro_step(hy_cosim* cs, double t0, double t1, hy_error* err) {
  const hy_cosim_parts* p = &cs->p;
  const int nc = cs->ncyl;
  const double hh = cs->c.hh;
  hy_status st = p->interface(p->mech, cs->Meff, cs->Qeff);
  if (st != HY_OK)
    return sub_failed(cs, err, st, p->mech, "the interface model of the mechanics", t0, t1);
  int sing = -1;
  if (hy_lu_factor(nc, cs->Meff, cs->piv, &sing) != HY_OK) {
    return UNSTABLE(cs, err, HY_ERR_SINGULAR, t0,
                    "the interface model's M_eff is singular (column %d): the cylinders do not "
                    "move independently",
                    sing);
  }
  for (int k = 0; k < nc; k++) {
    cs->s_im[k] = cs->ym_hist[mout_s(nc, k) * HIST];
    cs->w_im[k] = cs->ym_hist[mout_sd(nc, k) * HIST];
  }
  char who[HY_NAME_MAX + 40];
  for (int i = 0; i < cs->J; i++) {
    const double ta = t0 + i * hh, tb = t0 + (i + 1) * hh;  // for messages
    for (int j = 0; j < cs->nhyd; j++) {
      const int n = cs->hyd_nc[j];
      for (int c = 0; c < n; c++) {
        cs->tmp_len[c] = cs->s_im[cs->hyd_cyl[j][c]];
        cs->tmp_rate[c] = cs->w_im[cs->hyd_cyl[j][c]];
      }
      p->forces(p->hyd[j], cs->tmp_len, cs->tmp_rate, cs->tmp_F);
      for (int c = 0; c < n; c++) cs->F_im[cs->hyd_cyl[j][c]] = cs->tmp_F[c];
    }
    for (int k = 0; k < nc; k++) cs->acc[k] = cs->Qeff[k] + cs->F_im[k];
    hy_lu_solve(nc, cs->Meff, cs->piv, cs->acc);
    for (int k = 0; k < nc; k++) {
      cs->w_im[k] += hh * cs->acc[k];
      const hy_cosim_poly s = {{cs->s_im[k], cs->w_im[k], 0.0}};
      const hy_cosim_poly sd = {{cs->w_im[k], 0.0, 0.0}};
      set_hyd_input(cs, k, &s, &sd);
      cs->s_im[k] += hh * cs->w_im[k];
    }
    for (int j = 0; j < cs->nhyd; j++) {
      hy_cosim_sub* h = p->hyd[j];
      st = advance(h, cs->uh + cs->uh_off[j], hh);
      if (st != HY_OK) return sub_failed(cs, err, st, h, sub_name(cs, j, who, sizeof who), ta, tb);
    }
  }
  return HY_OK;
}

// The checks of the instability rule on the state at t_{n+1} (docs/cosim.md): every output
// and coordinate finite, every pressure within [p_lo, p_hi], the residual energy within its
// share of the energy the run moves.
static hy_status check_state(hy_cosim* cs, double t1, double E_abs, double W_out, hy_error* err) {
  for (int i = 0; i < cs->nym; i++) {
    if (!isfinite(cs->ym_new[i])) {
      return UNSTABLE(cs, err, HY_ERR_NAN, t1, "the mechanics' output %d is not finite", i);
    }
  }
  for (int i = 0; i < cs->nyh; i++) {
    if (!isfinite(cs->yh_new[i])) {
      return UNSTABLE(cs, err, HY_ERR_NAN, t1, "the hydraulics' output %d is not finite", i);
    }
  }
  const hy_data* d = cs->p.mech_data;
  if (d) {
    for (int i = 0; i < cs->m->sizes.nz; i++) {
      if (!isfinite(d->z[i]) || !isfinite(d->zd[i])) {
        return UNSTABLE(cs, err, HY_ERR_NAN, t1, "the mechanics' coordinate %d is not finite", i);
      }
    }
  }
  for (int i = 0; i < cs->nchan; i++) {
    const chan* c = cs->ch + i;
    if (c->kind != CH_P) continue;
    const double pv = cs->p.pressure(cs->p.hyd[c->sub], c->idx);
    if (!(pv >= cs->p_lo && pv <= cs->p_hi)) {
      return UNSTABLE(cs, err, HY_ERR_NAN, t1, "pressure %s = %.3g Pa outside [%.3g, %.3g] Pa",
                      c->name, pv, cs->p_lo, cs->p_hi);
    }
  }
  const double E_mech = mech_energy(cs);
  const double scale = fmax(cs->scale_E, fabs(E_mech - cs->E_mech0)) +
                       fmax(cs->scale_W, fmax(fabs(cyl_work(cs)), fabs(W_out))) + E_RES_FLOOR;
  if (!isfinite(E_abs) || E_abs > E_RES_SHARE * scale) {
    return UNSTABLE(cs, err, HY_ERR_NAN, t1,
                    "residual energy E_res_abs = %.3g J exceeds %g of the energy the run moves "
                    "(%.3g J)",
                    E_abs, E_RES_SHARE, scale);
  }
  return HY_OK;
}

hy_status hy_cosim_step(hy_cosim* cs, hy_error* err) {
  const hy_cosim_parts* p = &cs->p;
  const double H = cs->c.H;
  const double t0 = (double)cs->n * H, t1 = (double)(cs->n + 1) * H;
  const int nc = cs->ncyl;
  char who[HY_NAME_MAX + 40];
  save_all(cs);

  // the mechanics' inputs: the hydraulics' outputs extrapolated (held for the interface model)
  for (int i = 0; i < cs->num; i++) {
    hy_cosim_extrapolate(cs->order_m, cs->known, H, cs->yh_hist + cs->um_src[i] * HIST, cs->um + i);
  }
  if (!cs->c.gauss_seidel && cs->c.extrap != HY_COSIM_IM) jacobi_hyd_inputs(cs);

  hy_status st = HY_OK;
  if (cs->c.extrap == HY_COSIM_IM) {
    // M_eff, Q_eff belong to t_n: taken before the mechanics move
    st = im_macro_step(cs, t0, t1, err);
    if (st != HY_OK) return st;
  }
  st = advance(p->mech, cs->um, H);
  if (st != HY_OK) return sub_failed(cs, err, st, p->mech, "the mechanics", t0, t1);
  p->mech->ops->outputs(p->mech, cs->ym_new);
  if (cs->c.gauss_seidel) gauss_seidel_hyd_inputs(cs);
  if (cs->c.extrap != HY_COSIM_IM) {
    for (int j = 0; j < cs->nhyd; j++) {
      hy_cosim_sub* h = p->hyd[j];
      st = advance(h, cs->uh + cs->uh_off[j], H);
      if (st != HY_OK) return sub_failed(cs, err, st, h, sub_name(cs, j, who, sizeof who), t0, t1);
    }
  }
  for (int j = 0; j < cs->nhyd; j++) p->hyd[j]->ops->outputs(p->hyd[j], cs->yh_new + cs->yh_off[j]);

  // Eq. 21 (delta P_k of Eqs. 16-19) per bond at t_{n+1}, with the inputs each side used there
  double dP = 0.0, P_out0 = 0.0, P_out1 = 0.0;
  for (int k = 0; k < nc; k++) {
    cs->Fm_new[k] = bond_force_m(cs, k, H);
    cs->Fh_new[k] = bond_force_h(cs, cs->yh_new, k);
    cs->sdh_new[k] = cs->c.extrap == HY_COSIM_IM ? cs->w_im[k] : hyd_input_rate(cs, k, H);
    cs->dPk_new[k] = hy_cosim_bond_power(cs->Fm_new[k], cs->ym_new[mout_sd(nc, k)], cs->Fh_new[k],
                                         cs->sdh_new[k]);
    dP += cs->dPk_new[k];
    P_out0 += cs->Fh[k] * cs->sdh[k];
    P_out1 += cs->Fh_new[k] * cs->sdh_new[k];
  }
  const double dE = hy_cosim_residual_energy(cs->c.extrap, H, cs->dP, dP);
  const double E_abs = cs->E_res_abs + fabs(dE);
  const double W_out = cs->W_hyd_out + 0.5 * H * (P_out0 + P_out1);
  st = check_state(cs, t1, E_abs, W_out, err);
  if (st != HY_OK) return st;

  // accepted: the new outputs become the newest history
  for (int i = 0; i < cs->nym; i++) {
    double* h = cs->ym_hist + i * HIST;
    for (int j = HIST - 1; j > 0; j--) h[j] = h[j - 1];
    h[0] = cs->ym_new[i];
  }
  for (int i = 0; i < cs->nyh; i++) {
    double* h = cs->yh_hist + i * HIST;
    for (int j = HIST - 1; j > 0; j--) h[j] = h[j - 1];
    h[0] = cs->yh_new[i];
  }
  if (cs->known < HIST) cs->known++;
  for (int k = 0; k < nc; k++) {
    cs->Fm[k] = cs->Fm_new[k];
    cs->Fh[k] = cs->Fh_new[k];
    cs->sdh[k] = cs->sdh_new[k];
    cs->dPk[k] = cs->dPk_new[k];
  }
  cs->dP = dP;
  cs->E_res += dE;
  cs->E_res_abs = E_abs;
  cs->W_hyd_out = W_out;
  cs->n++;
  cs->scale_E = fmax(cs->scale_E, fabs(mech_energy(cs) - cs->E_mech0));
  cs->scale_W = fmax(cs->scale_W, fmax(fabs(cyl_work(cs)), fabs(cs->W_hyd_out)));
  return HY_OK;
}

//----- records --------------------------------------------------------------------------------

int hy_cosim_nchan(const hy_cosim* cs) { return cs->nchan; }
const char* hy_cosim_chan_name(const hy_cosim* cs, int i) { return cs->ch[i].name; }
const char* hy_cosim_chan_unit(const hy_cosim* cs, int i) { return cs->ch[i].unit; }

int hy_cosim_chan_find(const hy_cosim* cs, const char* name) {
  for (int i = 0; i < cs->nchan; i++) {
    if (strcmp(cs->ch[i].name, name) == 0) return i;
  }
  return -1;
}

void hy_cosim_energies(const hy_cosim* cs, hy_cosim_energy* e) {
  const hy_data* d = cs->p.mech_data;
  e->dP = cs->dP;
  e->E_res = cs->E_res;
  e->E_res_abs = cs->E_res_abs;
  e->E_mech = mech_energy(cs);
  e->E_bal = d ? e->E_mech - cs->E_mech0 - d->work_ext : 0.0;
  e->W_cyl = cyl_work(cs);
  e->W_hyd_out = cs->W_hyd_out;
}

void hy_cosim_row(const hy_cosim* cs, double* row) {
  hy_cosim_energy e;
  hy_cosim_energies(cs, &e);
  const hy_data* d = cs->p.mech_data;
  const double* ym = cs->ym_hist;
  for (int i = 0; i < cs->nchan; i++) {
    const chan* c = cs->ch + i;
    double v = 0.0;
    switch (c->kind) {
      case CH_TIME:
        v = hy_cosim_time(cs);
        break;
      case CH_S:
        v = ym[mout_s(cs->ncyl, c->idx) * HIST];
        break;
      case CH_SD:
        v = ym[mout_sd(cs->ncyl, c->idx) * HIST];
        break;
      case CH_F:
        v = d ? d->frc_force[cs->m->cyl_frc[c->idx]] : cs->Fm[c->idx];
        break;
      case CH_F_HYD:
        v = cs->Fh[c->idx];
        break;
      case CH_P:
        v = cs->p.pressure(cs->p.hyd[c->sub], c->idx);
        break;
      case CH_Z: {
        // a spherical or free joint's angle in the chart the model defines, as `hydyn run`
        // records it (hy_data.gimbal_out)
        int k;
        const int g = hy_model_joint_chart(cs->m, c->idx, &k);
        v = g >= 0 ? d->gimbal_out[9 * g + k] : d->z[cs->m->jnt_zadr[c->idx]];
        break;
      }
      case CH_DP:
        v = e.dP;
        break;
      case CH_DP_K:
        v = cs->dPk[c->idx];
        break;
      case CH_E_RES:
        v = e.E_res;
        break;
      case CH_E_RES_ABS:
        v = e.E_res_abs;
        break;
      case CH_E_MECH:
        v = e.E_mech;
        break;
      case CH_E_BAL:
        v = e.E_bal;
        break;
      case CH_W_CYL:
        v = e.W_cyl;
        break;
      case CH_W_HYD_OUT:
        v = e.W_hyd_out;
        break;
    }
    row[i] = v;
  }
}

//----- the manager of a model ------------------------------------------------------------------

static double hyd_pressure(const hy_cosim_sub* h, int vol) { return hy_cosim_hyd_data(h)->p[vol]; }

// Circuits with a cylinder's piston-side chamber: one hydraulic subsystem each (cosim_hyd.c's
// rule for a circuit's cylinders), in model order.
static int circuits_with_cylinders(const hy_model* m, int* circ) {
  int n = 0;
  for (int c = 0; c < m->sizes.ncirc; c++) {
    int has = 0;
    for (int k = 0; k < m->sizes.ncyl && !has; k++) has = m->vol_circ[m->cyl_vol_a[k]] == c;
    if (has) circ[n++] = c;
  }
  return n;
}

hy_status hy_cosim_make(const hy_model* m, const hy_cosim_config* c, hy_cosim** out,
                        hy_error* err) {
  *out = NULL;
  HY_TRY(check_config(c, err));
  if (m->sizes.ncyl == 0) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "model '%s' has no cylinders: nothing couples its mechanics and hydraulics",
                   m->name);
  }
  int* circ = hy_calloc((size_t)m->sizes.ncirc + 1, sizeof *circ);
  hy_cosim_sub** hyd = hy_calloc((size_t)m->sizes.ncirc + 1, sizeof *hyd);
  if (!circ || !hyd) {
    hy_free(circ);
    hy_free(hyd);
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory for the co-simulation's subsystems");
  }
  const int nhyd = circuits_with_cylinders(m, circ);
  hy_cosim_sub* mech = NULL;
  hy_status st = hy_cosim_mech_make(m, c->mbs, c->coupling, c->H, &mech, err);
  for (int j = 0; j < nhyd && st == HY_OK; j++) {
    st = hy_cosim_hyd_make(m, circ[j], c->coupling, c->hyd, c->hh, &hyd[j], err);
  }
  const hy_cosim_parts parts = {
      .m = m,
      .mech = mech,
      .mech_data = mech ? hy_cosim_mech_data(mech) : NULL,
      .interface = hy_cosim_mech_interface,
      .nhyd = nhyd,
      .hyd = hyd,
      .hyd_circ = circ,
      .cylinders = hy_cosim_hyd_cylinders,
      .forces = hy_cosim_hyd_forces,
      .pressure = hyd_pressure,
      .own = 1,
  };
  if (st == HY_OK) {
    st = hy_cosim_make_parts(&parts, c, out, err);  // destroys the subsystems on failure
  } else {
    destroy_parts(&parts);
  }
  hy_free(circ);
  hy_free(hyd);
  return st;
}
