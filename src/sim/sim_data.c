// hy_data: one allocation of doubles and one of ints holding the public arrays and the private
// workspace, sized from the model so that stepping never allocates.
#include <string.h>

#include "core/core.h"
#include "sim/sim.h"

// Largest explicit integrator workspace over the methods, so the method can change between runs.
static size_t integ_doubles(int n) {
  size_t w = 0;
  for (int kind = 0; kind < HY_INTEG_COUNT; kind++) {
    size_t k = hy_integ_explicit_work_size((hy_integrator)kind, n);
    if (k > w) w = k;
  }
  return w;
}

// Lays the arrays out in dbuf/ibuf (when non-NULL) and returns the doubles and ints needed, so
// that sizing and binding cannot disagree.
static void layout(const hy_model* m, hy_data* d, hy_work* w, double* dbuf, int* ibuf,
                   size_t* ndouble, size_t* nint) {
  const hy_sizes* sz = &m->sizes;
  const size_t nz = (size_t)sz->nz, nb = (size_t)sz->nbody, nm = (size_t)sz->nmrk;
  const size_t neq = (size_t)sz->neq, nf = (size_t)sz->nfrc;
  size_t pd = 0, pi = 0;
#define TAKE_D(field, count)          \
  if (dbuf) field = dbuf + pd;        \
  pd += (count);
#define TAKE_I(field, count)          \
  if (ibuf) field = ibuf + pi;        \
  pi += (count);
  TAKE_D(d->z, nz)
  TAKE_D(d->zd, nz)
  TAKE_D(d->zdd, nz)
  TAKE_D(d->body_pos, 3 * nb)
  TAKE_D(d->body_rot, 9 * nb)
  TAKE_D(d->body_com, 3 * nb)
  TAKE_D(d->body_Z, 6 * nb)
  TAKE_D(d->body_Zd, 6 * nb)
  TAKE_D(d->jnt_b, 6 * nb)
  TAKE_D(d->jnt_d, 6 * nb)
  TAKE_D(d->mrk_pos, 3 * nm)
  TAKE_D(d->mrk_vel, 3 * nm)
  TAKE_D(d->M, nz * nz)
  TAKE_D(d->Q, nz)
  TAKE_D(d->phi, neq)
  TAKE_D(d->phi_z, neq * nz)
  TAKE_D(d->phi_bias, neq)
  TAKE_D(d->lam, neq)
  TAKE_D(d->frc_force, nf)
  TAKE_D(d->frc_len, nf)
  TAKE_D(d->frc_rate, nf)
  TAKE_D(d->frc_dir, 3 * nf)
  TAKE_D(d->frc_static, nf)
  const size_t nv = (size_t)sz->nvol, nvl = (size_t)sz->nvlv, nc = (size_t)sz->ncyl;
  TAKE_D(d->p, nv)
  TAKE_D(d->pd, nv)
  TAKE_D(d->U, nvl)
  TAKE_D(d->Ud, nvl)
  TAKE_D(d->vol_V, nv)
  TAKE_D(d->vol_Be, nv)
  TAKE_D(d->orf_q, (size_t)sz->norf)
  TAKE_D(d->vlv_q, 4 * nvl)
  TAKE_D(d->pvl_q, (size_t)sz->npvl)
  TAKE_D(d->cyl_len_a, nc)
  TAKE_D(d->cyl_len_b, nc)
  TAKE_D(d->cyl_F_hyd, nc)
  TAKE_D(d->cyl_F_visc, nc)
  TAKE_D(d->cyl_F_damp, nc)
  TAKE_I(d->part, nz)
  if (dbuf) hy_mech_work_bind(m, &w->mech, dbuf + pd);
  pd += hy_mech_work_size(m);
  if (dbuf) hy_form_work_bind(m, &w->form, dbuf + pd, ibuf + pi);
  pd += hy_form_work_doubles(m);
  pi += hy_form_work_ints(m);
  // Newton unknowns: at most every coordinate and every pressure (Eq. 48)
  const int nx = sz->nz + sz->nvol;
  if (dbuf) hy_integ_newton_bind(nx, &w->newton, dbuf + pd, ibuf + pi);
  pd += hy_integ_newton_doubles(nx);
  pi += hy_integ_newton_ints(nx);
  TAKE_D(w->x, 2 * nz)
  TAKE_D(w->x0, 2 * nz)
  TAKE_D(w->xdot, 2 * nz)
  TAKE_D(w->integ, integ_doubles(2 * sz->nz))
#undef TAKE_D
#undef TAKE_I
  *ndouble = pd;
  *nint = pi;
}

hy_status hy_data_make(const hy_model* m, hy_data** out, hy_error* err) {
  if (!m || !out) return HY_FAIL(err, HY_ERR_ARG, "null argument");
  size_t ndouble, nint;
  hy_data probe;
  hy_work wprobe;
  layout(m, &probe, &wprobe, NULL, NULL, &ndouble, &nint);
  hy_data* d = hy_calloc(1, sizeof *d);
  hy_work* w = hy_calloc(1, sizeof *w);
  double* dbuf = hy_calloc(ndouble ? ndouble : 1, sizeof(double));
  int* ibuf = hy_calloc(nint ? nint : 1, sizeof(int));
  if (!d || !w || !dbuf || !ibuf) {
    hy_free(d);
    hy_free(w);
    hy_free(dbuf);
    hy_free(ibuf);
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory making the data of model '%s'", m->name);
  }
  layout(m, d, w, dbuf, ibuf, &ndouble, &nint);
  w->buffer = dbuf;
  w->ibuffer = ibuf;
  d->work_ = w;
  hy_status st = hy_data_reset(m, d);
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
    hy_free(w->buffer);
    hy_free(w->ibuffer);
  }
  hy_free(w);
  hy_free(d);
}

hy_status hy_data_reset(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  hy_work* w = d->work_;
  const size_t nz = (size_t)m->sizes.nz;
  d->time = 0;
  memcpy(d->z, m->z0, nz * sizeof(double));
  memcpy(d->zd, m->zd0, nz * sizeof(double));
  memset(d->lam, 0, (size_t)m->sizes.neq * sizeof(double));
  memset(&d->stats, 0, sizeof d->stats);
  memset(&d->err, 0, sizeof d->err);
  d->work_ext = 0;
  hy_mech_forget_turns(m, &w->mech);
  HY_TRY(hy_form_init(m, d, &w->form, &w->mech));
  return hy_forward(m, d);
}
