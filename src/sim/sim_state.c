// The state of a data in named segments (include/hydyn/sim.h, hy_state_*): what co-simulation
// saves and restores, and what the linearization gets and sets.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "sim/sim.h"

// The history segment, in this order: its tag (formulation and integrator, so that a history
// is never set into a data that steps otherwise), zdd, pd and wd (the rates of the pressures and
// friction states, one vector in hy_data), lam, the powers at the state and the
// works, the integrator's history, the partition, the formulation's own history, the last
// channel values of the Cardan charts (against which the next are unwrapped), and the bases of
// the planar cos and sin (whose last bits the planar kinematics depend on). The charts' anchors
// are in the positions' segment: z holds the angles of spherical and free joints in them.
enum { HIST_TAG = 2, HIST_POWER = 5, HIST_WORK = 5 };

static int hist_size(const hy_model* m, const hy_form_ops* ops) {
  const int nz = m->sizes.nz;
  return HIST_TAG + nz + m->sizes.nvol + m->sizes.nfric + m->sizes.neq + m->sizes.nnh + HIST_POWER + HIST_WORK +
         hy_integ_hist_size(m) + hy_form_partition_hist_size(m) + ops->hist_size(m) +
         9 * m->sizes.ngimbal + hy_mech_cache_size(m);
}

static int segment_size(const hy_model* m, const hy_form_ops* ops, unsigned seg) {
  switch (seg) {
    case HY_STATE_TIME: return 1;
    case HY_STATE_POS: return m->sizes.nz + 9 * m->sizes.ngimbal;
    case HY_STATE_VEL: return m->sizes.nz;
    case HY_STATE_PRES: return m->sizes.nvol;
    case HY_STATE_SPOOL: return m->sizes.nspool;
    case HY_STATE_FRIC: return m->sizes.nfric;
    case HY_STATE_HIST: return hist_size(m, ops);
    default: return 0;
  }
}

static int bits_known(unsigned segments) {
  return segments != 0 && (segments & ~(unsigned)HY_STATE_FULL) == 0;
}

static int size_of(const hy_model* m, const hy_form_ops* ops, unsigned segments) {
  int n = 0;
  for (unsigned seg = 1; seg <= HY_STATE_HIST; seg <<= 1) {
    if (segments & seg) n += segment_size(m, ops, seg);
  }
  return n;
}

int hy_state_size_of(const hy_model* m, const hy_form_ops* ops) {
  return size_of(m, ops, HY_STATE_FULL);
}

int hy_state_size(const hy_model* m, const hy_data* d, unsigned segments) {
  if (!m || !d || !bits_known(segments)) return 0;
  const hy_work* w = d->work_;
  return size_of(m, w->form.ops, segments);
}

static double* put(double* buf, const double* v, int n) {
  for (int i = 0; i < n; i++) buf[i] = v[i];
  return buf + n;
}

static const double* take(const double* buf, double* v, int n) {
  for (int i = 0; i < n; i++) v[i] = buf[i];
  return buf + n;
}

static void hist_get(const hy_model* m, const hy_data* d, double* buf) {
  const hy_work* w = d->work_;
  const hy_form* f = &w->form;
  *buf++ = d->formulation;
  *buf++ = d->integrator;
  buf = put(buf, d->zdd, m->sizes.nz);
  buf = put(buf, d->pd, m->sizes.nvol + m->sizes.nfric);
  buf = put(buf, d->lam, m->sizes.neq + m->sizes.nnh);
  const double power[HIST_POWER] = {f->power.total, f->power.hyd, f->power.visc, f->power.damp,
                                    f->power.fric};
  buf = put(buf, power, HIST_POWER);
  const double work[HIST_WORK] = {d->work_ext, d->work_hyd, d->diss_visc, d->work_damp,
                                  d->diss_fric};
  buf = put(buf, work, HIST_WORK);
  hy_integ_hist_get(&w->integ, m, buf);
  buf += hy_integ_hist_size(m);
  hy_form_partition_hist_get(f, buf);
  buf += hy_form_partition_hist_size(m);
  f->ops->hist_get(f, buf);
  buf += f->ops->hist_size(m);
  buf = put(buf, d->gimbal_out, 9 * m->sizes.ngimbal);
  hy_mech_cache_get(m, &w->mech, buf);
}

static void hist_set(const hy_model* m, hy_data* d, const double* buf) {
  hy_work* w = d->work_;
  hy_form* f = &w->form;
  buf += HIST_TAG;
  buf = take(buf, d->zdd, m->sizes.nz);
  buf = take(buf, d->pd, m->sizes.nvol + m->sizes.nfric);
  buf = take(buf, d->lam, m->sizes.neq + m->sizes.nnh);
  f->power.total = buf[0];
  f->power.hyd = buf[1];
  f->power.visc = buf[2];
  f->power.damp = buf[3];
  f->power.fric = buf[4];
  buf += HIST_POWER;
  d->work_ext = buf[0];
  d->work_hyd = buf[1];
  d->diss_visc = buf[2];
  d->work_damp = buf[3];
  d->diss_fric = buf[4];
  buf += HIST_WORK;
  hy_integ_hist_set(&w->integ, m, buf);
  buf += hy_integ_hist_size(m);
  hy_form_partition_hist_set(f, buf);
  buf += hy_form_partition_hist_size(m);
  f->ops->hist_set(f, buf);
  buf += f->ops->hist_size(m);
  buf = take(buf, d->gimbal_out, 9 * m->sizes.ngimbal);
  hy_mech_cache_set(m, &w->mech, buf);
}

hy_status hy_state_get(const hy_model* m, const hy_data* d, unsigned segments, double* buf) {
  if (!m || !d || !buf || !bits_known(segments)) return HY_ERR_ARG;
  hy_sim_form(m, (hy_data*)d);  // the histories read the model through the form
  if (segments & HY_STATE_TIME) *buf++ = d->time;
  if (segments & HY_STATE_POS) {
    buf = put(buf, d->z, m->sizes.nz);
    buf = put(buf, d->gimbal_frame, 9 * m->sizes.ngimbal);
  }
  if (segments & HY_STATE_VEL) buf = put(buf, d->zd, m->sizes.nz);
  if (segments & HY_STATE_PRES) buf = put(buf, d->p, m->sizes.nvol);
  if (segments & HY_STATE_SPOOL) buf = put(buf, d->U, m->sizes.nspool);
  if (segments & HY_STATE_FRIC) buf = put(buf, d->w, m->sizes.nfric);
  if (segments & HY_STATE_HIST) hist_get(m, d, buf);
  return HY_OK;
}

// Whether the integer entries of a partition history describe a partition of this model.
static int partition_ok(const hy_model* m, const double* p) {
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  const double ndof = p[0], nsel = p[1];
  if (!(ndof >= 0 && ndof <= nz && ndof == floor(ndof))) return 0;
  if (!(nsel >= 0 && nsel <= neq && nsel == floor(nsel) && ndof + nsel == nz)) return 0;
  if (!(p[2] >= 0)) return 0;
  for (int i = 0; i < nz; i++) {
    const double c = p[3 + i];
    if (!(c >= 0 && c < nz && c == floor(c))) return 0;
    for (int k = 0; k < i; k++) {
      if (p[3 + k] == c) return 0;
    }
  }
  for (int e = 0; e < (int)nsel; e++) {
    const double r = p[3 + nz + e];
    if (!(r >= 0 && r < neq && r == floor(r))) return 0;
  }
  return 1;
}

// The first entry of buf (as laid out for `segments`) that is not finite, or -1; the bases of
// the planar cos and sin may be NaN (none kept). *hist_off is the history's offset in buf.
static int check_values(const hy_model* m, const hy_data* d, unsigned segments,
                        const double* buf, int* hist_off) {
  const int before_hist = hy_state_size(m, d, segments & ~(unsigned)HY_STATE_HIST);
  *hist_off = before_hist;
  const int total = hy_state_size(m, d, segments);
  const int turns = (segments & HY_STATE_HIST) ? hy_mech_cache_size(m) : 0;
  for (int i = 0; i < total; i++) {
    if (i >= total - turns && (i - (total - turns)) % 3 == 0) continue;  // a base's angle
    if (!isfinite(buf[i])) return i;
  }
  return -1;
}

hy_status hy_state_set(const hy_model* m, hy_data* d, unsigned segments, const double* buf) {
  if (!m || !d || !buf || !bits_known(segments)) return HY_ERR_ARG;
  hy_work* w = d->work_;
  hy_form* f = hy_sim_form(m, d);
  int hist_off = 0;
  const int bad = check_values(m, d, segments, buf, &hist_off);
  if (bad >= 0) {
    return HY_FAIL(&d->err, HY_ERR_NAN, "hy_state_set: entry %d of the state is not finite (%g)",
                   bad, buf[bad]);
  }
  if (segments & HY_STATE_HIST) {
    const double* h = buf + hist_off;
    if (h[0] != d->formulation || h[1] != d->integrator) {
      return HY_FAIL(&d->err, HY_ERR_ARG,
                     "hy_state_set: the history was saved from a data stepping with another "
                     "formulation or integrator");
    }
    const int integ_off = HIST_TAG + m->sizes.nz + m->sizes.nvol + m->sizes.nfric + m->sizes.neq + m->sizes.nnh +
                          HIST_POWER + HIST_WORK;
    const int part_off = integ_off + hy_integ_hist_size(m);
    const int form_off = part_off + hy_form_partition_hist_size(m);
    if (!hy_integ_hist_ok(m, h + integ_off)) {
      return HY_FAIL(&d->err, HY_ERR_ARG,
                     "hy_state_set: the history's step sizes are not those of a step (the "
                     "previous one must be > 0)");
    }
    if (!partition_ok(m, h + part_off)) {
      return HY_FAIL(&d->err, HY_ERR_ARG,
                     "hy_state_set: the history's partition is not one of this model");
    }
    if (!f->ops->hist_ok(m, h + form_off)) {
      return HY_FAIL(&d->err, HY_ERR_ARG,
                     "hy_state_set: the history of the %s formulation is not one it keeps (its "
                     "counts must be whole and in range)",
                     f->ops->name);
    }
  }
  const double* p = buf;
  if (segments & HY_STATE_TIME) d->time = *p++;
  if (segments & HY_STATE_POS) {
    p = take(p, d->z, m->sizes.nz);
    p = take(p, d->gimbal_frame, 9 * m->sizes.ngimbal);
  }
  if (segments & HY_STATE_VEL) p = take(p, d->zd, m->sizes.nz);
  if (segments & HY_STATE_PRES) p = take(p, d->p, m->sizes.nvol);
  if (segments & HY_STATE_SPOOL) p = take(p, d->U, m->sizes.nspool);
  if (segments & HY_STATE_FRIC) p = take(p, d->w, m->sizes.nfric);
  if (segments & HY_STATE_HIST) {
    // the outputs at the state, then the history once more: the evaluation writes some of it
    // (the network's pressure rates, the powers, the bases of cos and sin)
    hist_set(m, d, p);
    hy_form_refresh(f);
    hist_set(m, d, p);
    return HY_OK;
  }
  // the channels of the charts start afresh at the new state, as at a reset
  if (m->sizes.ngimbal > 0) hy_mech_gimbal_outputs(m, d, 1);
  hy_integ_restart(&w->integ, m);
  return hy_form_restart(f);
}
