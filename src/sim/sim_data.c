// hy_data: one allocation holding the public arrays and the private workspace, sized from the
// model so that stepping never allocates.
#include <string.h>

#include "core/core.h"
#include "integ/integ.h"
#include "sim/sim.h"

// Doubles of the public arrays, in the order hy_data_make lays them out.
static size_t public_doubles(const hy_sizes* sz) {
  const size_t nb = (size_t)sz->nbody, nz = (size_t)sz->nz, nm = (size_t)sz->nmrk;
  return 3 * nz + nb * (3 + 9 + 3 + 6 + 6 + 6 + 6) + 6 * nm + nz * nz + nz;
}

// Largest integrator workspace over the methods, so that the method can change between runs.
static size_t integ_doubles(int n) {
  size_t w = 0;
  for (int kind = 0; kind < HY_INTEG_COUNT; kind++) {
    size_t k = hy_integ_explicit_work_size((hy_integrator)kind, n);
    if (k > w) w = k;
  }
  return w;
}

hy_status hy_data_make(const hy_model* m, hy_data** out) {
  if (!m || !out) return HY_ERR_ARG;
  const hy_sizes* sz = &m->sizes;
  const size_t nz = (size_t)sz->nz;
  const size_t ndouble = public_doubles(sz) + hy_mech_work_size(m) + 6 * nz +
                         integ_doubles(2 * sz->nz);
  hy_data* d = hy_calloc(1, sizeof *d);
  hy_work* w = hy_calloc(1, sizeof *w);
  double* buf = hy_calloc(ndouble ? ndouble : 1, sizeof(double));
  if (!d || !w || !buf) {
    hy_free(d);
    hy_free(w);
    hy_free(buf);
    return HY_ERR_NOMEM;
  }
  const size_t nb = (size_t)sz->nbody, nm = (size_t)sz->nmrk;
  double* p = buf;
#define TAKE_(field, count) \
  field = p;                \
  p += (count);
  TAKE_(d->z, nz)
  TAKE_(d->zd, nz)
  TAKE_(d->zdd, nz)
  TAKE_(d->body_pos, 3 * nb)
  TAKE_(d->body_rot, 9 * nb)
  TAKE_(d->body_com, 3 * nb)
  TAKE_(d->body_Z, 6 * nb)
  TAKE_(d->body_Zd, 6 * nb)
  TAKE_(d->jnt_b, 6 * nb)
  TAKE_(d->jnt_d, 6 * nb)
  TAKE_(d->mrk_pos, 3 * nm)
  TAKE_(d->mrk_vel, 3 * nm)
  TAKE_(d->M, nz * nz)
  TAKE_(d->Q, nz)
  hy_mech_work_bind(m, &w->mech, p);
  p += hy_mech_work_size(m);
  TAKE_(w->x, 2 * nz)
  TAKE_(w->x0, 2 * nz)
  TAKE_(w->xdot, 2 * nz)
  w->integ = p;
  w->buffer = buf;
#undef TAKE_
  d->work_ = w;
  hy_status st = hy_data_reset(m, d);
  if (st < 0) {
    hy_data_free(d);
    return st;
  }
  *out = d;
  return HY_OK;
}

void hy_data_free(hy_data* d) {
  if (!d) return;
  hy_work* w = d->work_;
  if (w) hy_free(w->buffer);
  hy_free(w);
  hy_free(d);
}

hy_status hy_data_reset(const hy_model* m, hy_data* d) {
  if (!m || !d) return HY_ERR_ARG;
  const size_t nz = (size_t)m->sizes.nz;
  d->time = 0;
  memcpy(d->z, m->z0, nz * sizeof(double));
  memcpy(d->zd, m->zd0, nz * sizeof(double));
  memset(&d->stats, 0, sizeof d->stats);
  memset(&d->err, 0, sizeof d->err);
  d->work_ext = 0;
  return hy_forward(m, d);
}
