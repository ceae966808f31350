// hy_data: one allocation holding the public arrays and the private workspace, and one arena
// for the scratch of the steps, both sized from the model so that stepping never allocates.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "sim/sim.h"

// Lays the arrays out from base (when not NULL) and returns the bytes they take, so that sizing
// and binding cannot disagree. A formulation that keeps no dense matrix (hy_form_no_dense: dca,
// hdca) gets no M' (d->M NULL) and no factor of it, as it gets no R_z, W and T (hy_form_size)
// and no Newton matrices (it refuses the trapezoidal rule, hy_integ_size): its data grow
// linearly with the bodies.
static size_t layout(const hy_model* m, const hy_form_ops* ops, hy_integrator integ, hy_data* d,
                     hy_work* w, unsigned char* base) {
  const hy_sizes* sz = &m->sizes;
  const size_t nz = (size_t)sz->nz, nb = (size_t)sz->nbody, nm = (size_t)sz->nmrk;
  const size_t neq = (size_t)sz->neq, nf = (size_t)sz->nfrc;
  const size_t ncon = neq + (size_t)sz->nnh;
  const size_t nv = (size_t)sz->nvol, nvl = (size_t)sz->nvlv, nc = (size_t)sz->ncyl;
  const size_t nw = (size_t)sz->nfric;
  const int dense = !hy_form_no_dense(ops);
  size_t at = 0;
#define TAKE(field, bytes) HY_LAYOUT_TAKE(base, at, field, bytes)
  TAKE(d->z, hy_doubles(nz));
  TAKE(d->zd, hy_doubles(nz));
  TAKE(d->zdd, hy_doubles(nz));
  TAKE(d->mom, hy_doubles(nz));
  TAKE(d->mom_d, hy_doubles(nz));
  TAKE(d->gimbal_frame, hy_doubles(9 * (size_t)sz->ngimbal));
  TAKE(d->gimbal_out, hy_doubles(9 * (size_t)sz->ngimbal));
  TAKE(d->body_pos, hy_doubles(3 * nb));
  TAKE(d->body_rot, hy_doubles(9 * nb));
  TAKE(d->body_com, hy_doubles(3 * nb));
  TAKE(d->body_Z, hy_doubles(6 * nb));
  TAKE(d->body_Zd, hy_doubles(6 * nb));
  TAKE(d->jnt_b, hy_doubles(6 * nb));
  TAKE(d->jnt_d, hy_doubles(6 * nb));
  TAKE(d->jnt_react, hy_doubles(6 * nb));
  TAKE(d->cut_react, hy_doubles(6 * (size_t)sz->ncut));
  TAKE(d->mrk_pos, hy_doubles(3 * nm));
  TAKE(d->mrk_vel, hy_doubles(3 * nm));
  if (dense) {
    TAKE(d->M, hy_doubles(nz * nz));
  } else if (base) {
    d->M = NULL;
  }
  TAKE(d->Q, hy_doubles(nz));
  TAKE(d->phi, hy_doubles(neq));
  TAKE(d->phi_z, hy_doubles(ncon * nz));
  TAKE(d->phi_bias, hy_doubles(ncon));
  TAKE(d->lam, hy_doubles(ncon));
  TAKE(d->nh_rate, hy_doubles((size_t)sz->nnh));
  TAKE(d->frc_force, hy_doubles(nf));
  TAKE(d->frc_len, hy_doubles(nf));
  TAKE(d->frc_rate, hy_doubles(nf));
  TAKE(d->frc_dir, hy_doubles(3 * nf));
  TAKE(d->frc_static, hy_doubles(nf));
  // the friction states follow the pressures, and their rates the pressure rates (hy_data)
  TAKE(d->p, hy_doubles(nv + nw));
  TAKE(d->pd, hy_doubles(nv + nw));
  if (base) {
    d->w = d->p + nv;
    d->wd = d->pd + nv;
  }
  // the spools' positions, then the second-order spools' velocities (hy_sizes.nspool)
  TAKE(d->U, hy_doubles((size_t)sz->nspool));
  TAKE(d->Ud, hy_doubles((size_t)sz->nspool));
  TAKE(d->vlv_u0, hy_doubles(nvl));
  TAKE(d->vol_V, hy_doubles(nv));
  TAKE(d->vol_Be, hy_doubles(nv));
  TAKE(d->orf_q, hy_doubles((size_t)sz->norf));
  TAKE(d->vlv_q, hy_doubles(HY_VALVE_PATHS * nvl));
  TAKE(d->pvl_q, hy_doubles((size_t)sz->npvl));
  TAKE(d->pmp_q, hy_doubles((size_t)sz->npump));
  TAKE(d->pmp_eps, hy_doubles((size_t)sz->npump));
  TAKE(d->acc_V, hy_doubles((size_t)sz->nacc));
  TAKE(d->cyl_len_a, hy_doubles(nc));
  TAKE(d->cyl_len_b, hy_doubles(nc));
  TAKE(d->cyl_F_hyd, hy_doubles(nc));
  TAKE(d->cyl_F_visc, hy_doubles(nc));
  TAKE(d->cyl_F_damp, hy_doubles(nc));
  TAKE(d->cyl_F_fric, hy_doubles(nc));
  TAKE(d->part, hy_ints(nz));
#undef TAKE
  if (base) hy_mech_work_bind(m, &w->mech, (double*)(base + at), dense);
  at += hy_doubles(hy_mech_work_size(m, dense));
  if (base) hy_hyd_work_bind(m, &w->hyd, (double*)(base + at));
  at += hy_doubles(hy_hyd_work_size(m));
  if (base) hy_form_bind(&w->form, m, ops, base + at);
  at += hy_form_size(m, ops);
  if (base) hy_integ_bind(&w->integ, m, integ, base + at);
  at += hy_integ_size(m, integ);
  if (base) w->checkpoint = (double*)(base + at);
  at += hy_doubles((size_t)hy_state_size_of(m, ops));
  return at;
}

// Models up to this many coordinates, bodies and elements have sizes whose byte counts cannot
// overflow a size_t (their squares times 8 stay below 2^56); beyond, the estimate alone refuses.
#define SIZE_SAFE (1 << 24)

// The dense kernels index their matrices (nz + nvol unknowns square, nz x neq) with int: the
// largest dimension whose square still fits one.
#define DENSE_MAX 46340

static int sizes_safe(const hy_sizes* s) {
  const int v[] = {s->nbody, s->nz, s->nmrk, s->neq, s->nfrc, s->nvol, s->ncyl, s->nvlv,
                   s->nspool, s->norf, s->npvl, s->npump, s->nfric};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    if (v[i] < 0 || v[i] > SIZE_SAFE) return 0;
  }
  return 1;
}

// "1.5 GB", "320 MB", "12 kB", for messages.
static void format_bytes(double b, char* buf, size_t size) {
  if (b >= 1e9) {
    snprintf(buf, size, "%.3g GB", b / 1e9);
  } else if (b >= 1e6) {
    snprintf(buf, size, "%.3g MB", b / 1e6);
  } else {
    snprintf(buf, size, "%.3g kB", b / 1e3);
  }
}

// The checkpoint of a step taken in pieces (hy_integ_checkpoint).
static void checkpoint_save(void* ctx) {
  hy_data* d = ctx;
  hy_work* w = d->work_;
  hy_state_get(w->form.m, d, HY_STATE_FULL, w->checkpoint);
}

static void checkpoint_restore(void* ctx) {
  hy_data* d = ctx;
  hy_work* w = d->work_;
  hy_state_set(w->form.m, d, HY_STATE_FULL, w->checkpoint);
}

hy_status hy_data_make(const hy_model* m, hy_data** out, hy_error* err) {
  if (!m || !out) return HY_FAIL(err, HY_ERR_ARG, "null argument");
  *out = NULL;
  HY_TRY(hy_model_check(m, err));
  const hy_form_ops* ops = NULL;
  hy_integrator integ = HY_INTEG_AUTO;
  char note[256];
  HY_TRY(hy_form_choose(m, &ops, &integ, note, sizeof note, err));
  // the work memory before anything is allocated: refused above the model's limit. Beyond
  // SIZE_SAFE the byte counts could overflow, and a lower bound refuses already: the mass
  // matrix, nz^2 doubles, or without dense matrices (hy_form_no_dense) the body kinematics of
  // hy_data, 39 doubles a body.
  if (!sizes_safe(&m->sizes)) {
    char need[32], limit[32];
    const double nz = m->sizes.nz;
    format_bytes(hy_form_no_dense(ops) ? 8.0 * 39 * m->sizes.nbody : 8.0 * nz * nz, need,
                 sizeof need);
    format_bytes(m->opt.max_memory, limit, sizeof limit);
    return HY_FAIL(err, HY_ERR_NOMEM,
                   "the data of model '%s' would need at least %s of work memory (%d "
                   "coordinates), more than the limit of %s (solver: max_memory, --max-memory)",
                   m->name, need, m->sizes.nz, limit);
  }
  if (m->sizes.nz + m->sizes.nvol + m->sizes.nfric > DENSE_MAX || m->sizes.neq + m->sizes.nnh > DENSE_MAX) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "model '%s' has %d coordinates, %d pressures, %d friction states and %d "
                   "constraint equations: hydyn's dense matrices take at most %d unknowns or "
                   "equations",
                   m->name, m->sizes.nz, m->sizes.nvol, m->sizes.nfric,
                   m->sizes.neq + m->sizes.nnh, DENSE_MAX);
  }
  if (m->sizes.nnh > HY_NH_MAX) {
    return HY_FAIL(err, HY_ERR_MODEL, "model '%s' has %d nonholonomic constraints: at most %d",
                   m->name, m->sizes.nnh, HY_NH_MAX);
  }
  hy_data probe;
  hy_work wprobe;
  const size_t bytes = layout(m, ops, integ, &probe, &wprobe, NULL);
  const size_t arena = hy_form_scratch(m, ops);
  const double total = (double)bytes + (double)arena + (double)(sizeof(hy_data) + sizeof(hy_work));
  if (total > m->opt.max_memory) {
    char need[32], limit[32];
    format_bytes(total, need, sizeof need);
    format_bytes(m->opt.max_memory, limit, sizeof limit);
    return HY_FAIL(err, HY_ERR_NOMEM,
                   "the data of model '%s' would need %s of work memory (%d coordinates, %d "
                   "volumes), more than the limit of %s (solver: max_memory, --max-memory)",
                   m->name, need, m->sizes.nz, m->sizes.nvol, limit);
  }
  hy_data* d = hy_calloc(1, sizeof *d);
  hy_work* w = hy_calloc(1, sizeof *w);
  // calloc'd with room to start on a 64-byte boundary, which the layout keeps for every array
  unsigned char* mem = hy_calloc(bytes + 64, 1);
  hy_status st = d && w && mem ? hy_arena_init(&w->arena, arena) : HY_ERR_NOMEM;
  if (st != HY_OK) {
    hy_free(d);
    if (w) hy_arena_free(&w->arena);
    hy_free(w);
    hy_free(mem);
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory making the data of model '%s'", m->name);
  }
  w->mem = mem;
  unsigned char* base = mem + (64 - (uintptr_t)mem % 64) % 64;
  layout(m, ops, integ, d, w, base);
  w->form.mech = &w->mech;
  w->form.hyd = &w->hyd;
  w->form.arena = &w->arena;
  w->form.d = d;
  w->integ.checkpoint = (hy_integ_checkpoint){checkpoint_save, checkpoint_restore, d};
  d->work_ = w;
  d->formulation = ops->kind;
  d->integrator = integ;
  snprintf(d->note, sizeof d->note, "%s", note);
  d->work_bytes = total;
  st = hy_integ_open(&w->integ, m, integ);
  if (st != HY_OK) {
    hy_data_free(d);
    return HY_FAIL(err, st, "cannot make the %s solver of model '%s' (SUNDIALS)",
                   hy_integrator_name(integ), m->name);
  }
  st = hy_data_reset(m, d);
  if (st < 0) {
    if (err) *err = d->err;
    hy_data_free(d);
    return st;
  }
  *out = d;
  return HY_OK;
}

void hy_data_free(hy_data* d) {
  if (!d) return;
  hy_work* w = d->work_;
  if (w) {
    hy_integ_close(&w->integ);
    hy_free(w->mem);
    hy_arena_free(&w->arena);
  }
  hy_free(w);
  hy_free(d);
}

hy_form* hy_sim_form(const hy_model* m, hy_data* d) {
  hy_work* w = d->work_;
  w->form.m = m;
  w->form.d = d;
  return &w->form;
}

hy_status hy_data_reset(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  hy_work* w = d->work_;
  hy_form* f = hy_sim_form(m, d);
  const size_t nz = (size_t)m->sizes.nz;
  d->time = 0;
  memcpy(d->z, m->z0, nz * sizeof(double));
  memcpy(d->zd, m->zd0, nz * sizeof(double));
  hy_mech_gimbal_reset(m, d);
  memset(d->lam, 0, (size_t)(m->sizes.neq + m->sizes.nnh) * sizeof(double));
  memset(&d->stats, 0, sizeof d->stats);
  memset(&d->err, 0, sizeof d->err);
  d->work_ext = 0;
  hy_mech_forget_turns(m, &w->mech);
  hy_integ_restart(&w->integ, m);
  HY_TRY(hy_form_initial_state(f));
  HY_TRY(hy_forward(m, d));
  if (m->sizes.ngimbal > 0) {
    // a z0 beyond the re-anchoring threshold starts in a chart of its own, as after a step
    hy_mech_gimbal_outputs(m, d, 1);
    if (hy_mech_gimbal_reanchor(m, d) > 0) HY_TRY(hy_forward(m, d));
  }
  return HY_OK;
}
