// Time signals of a compiled model: evaluation of their (t, value) tables and of the kinds given
// by parameters and built on other signals (docs/model-format.md, "signals"), and the table of
// each kind's parameters that the compiler, the checker and the YAML loader share.
#include <math.h>
#include <stddef.h>

#include "core/core.h"
#include "model/model.h"

//----- the parameters of each kind -------------------------------------------------------------

#define PAR(key, field, unit, required) \
  { key, offsetof(hy_signal_def, field), unit, required }

// In the order of sig_par (include/hydyn/model.h). The referred signals: `arg_key` names them in
// a model file (NULL: the kind's own value is the name or the list of names).
static const hy_signal_kind_info kKinds[HY_SIGNAL_KIND_COUNT] = {
    [HY_SIGNAL_TABLE] = {0, {{0}}, NULL, 0, 0},
    [HY_SIGNAL_STEP] = {4,
                        {PAR("t0", t0, "s", 0), PAR("from", from, "signal unit", 0),
                         PAR("to", to, "signal unit", 0), PAR("rise", rise, "s", 0)},
                        NULL,
                        0,
                        0},
    [HY_SIGNAL_RAMP] = {4,
                        {PAR("t0", t0, "s", 0), PAR("t1", t1, "s", 1),
                         PAR("from", from, "signal unit", 0), PAR("to", to, "signal unit", 0)},
                        NULL,
                        0,
                        0},
    [HY_SIGNAL_SINE] = {5,
                        {PAR("amplitude", amplitude, "signal unit", 0),
                         PAR("frequency", frequency, "Hz", 1), PAR("phase", phase, "rad", 0),
                         PAR("offset", offset, "signal unit", 0), PAR("t0", t0, "s", 0)},
                        "envelope",
                        0,
                        1},
    [HY_SIGNAL_PERIODIC] =
        {2, {PAR("period", period, "s", 1), PAR("t0", t0, "s", 0)}, "signal", 1, 1},
    [HY_SIGNAL_SUM] = {0, {{0}}, NULL, 1, -1},
    [HY_SIGNAL_PRODUCT] = {0, {{0}}, NULL, 1, -1},
    [HY_SIGNAL_SCALE] =
        {2, {PAR("gain", gain, "-", 0), PAR("offset", offset, "signal unit", 0)}, "signal", 1, 1},
    [HY_SIGNAL_ONE_MINUS] = {0, {{0}}, NULL, 1, 1},
    [HY_SIGNAL_CLAMP] =
        {2, {PAR("min", min, "signal unit", 0), PAR("max", max, "signal unit", 0)}, "signal", 1, 1},
};

#undef PAR

const hy_signal_kind_info* hy_model_signal_kind(hy_signal_kind kind) {
  if ((int)kind < 0 || (int)kind >= HY_SIGNAL_KIND_COUNT) return NULL;
  return &kKinds[kind];
}

const char* hy_signal_par_name(hy_signal_kind kind, int k) {
  const hy_signal_kind_info* info = hy_model_signal_kind(kind);
  return info && k >= 0 && k < info->npar ? info->par[k].key : NULL;
}

const char* hy_signal_par_unit(hy_signal_kind kind, int k) {
  const hy_signal_kind_info* info = hy_model_signal_kind(kind);
  return info && k >= 0 && k < info->npar ? info->par[k].unit : NULL;
}

//----- evaluation ------------------------------------------------------------------------------

// The kinds other than tables (docs/model-format.md, "signals": one equation per kind). The
// references hold no cycle (hy_model_check), so the recursion ends. Not inlined: inside
// hy_signal_eval its calls would make every table lookup save and restore six registers
// (callgrind: 18 instructions on a lookup of about 45).
static HY_NOINLINE double eval_kind(const hy_model* m, int sig, double t) {
  const double* p = m->sig_par + (size_t)sig * HY_SIGNAL_NPAR;
  const int* arg = m->sig_arg + m->sig_argadr[sig];
  const int narg = m->sig_narg[sig];
  switch ((hy_signal_kind)m->sig_kind[sig]) {
    case HY_SIGNAL_STEP: {
      const double t0 = p[0], from = p[1], to = p[2], rise = p[3];
      if (t < t0) return from;
      if (!(t < t0 + rise)) return to;  // also every t >= t0 of a sharp step (rise 0)
      // C1 smoothstep x^2 (3 - 2 x): zero slope at both ends of the rise
      const double x = (t - t0) / rise;
      return from + (to - from) * (x * x * (3.0 - 2.0 * x));
    }
    case HY_SIGNAL_RAMP: {
      const double t0 = p[0], t1 = p[1], from = p[2], to = p[3];
      if (t <= t0) return from;
      if (t >= t1) return to;
      return from + (to - from) * ((t - t0) / (t1 - t0));
    }
    case HY_SIGNAL_SINE: {
      const double env = narg > 0 ? hy_signal_eval(m, arg[0], t) : 1.0;
      return p[3] + p[0] * env * sin(2.0 * HY_PI * p[1] * (t - p[4]) + p[2]);
    }
    case HY_SIGNAL_PERIODIC: {
      const double period = p[0], t0 = p[1];
      // before t0 the cycle waits at its start; fmod is exact, so t0 + k period (as a double)
      // gives other(0) whenever t - t0 is exactly k period
      return hy_signal_eval(m, arg[0], t > t0 ? fmod(t - t0, period) : 0.0);
    }
    case HY_SIGNAL_SUM: {
      double s = 0.0;
      for (int i = 0; i < narg; i++) s += hy_signal_eval(m, arg[i], t);
      return s;
    }
    case HY_SIGNAL_PRODUCT: {
      double s = 1.0;
      for (int i = 0; i < narg; i++) s *= hy_signal_eval(m, arg[i], t);
      return s;
    }
    case HY_SIGNAL_SCALE:
      return p[0] * hy_signal_eval(m, arg[0], t) + p[1];
    case HY_SIGNAL_ONE_MINUS:
      return 1.0 - hy_signal_eval(m, arg[0], t);
    case HY_SIGNAL_CLAMP:
      return fmin(fmax(hy_signal_eval(m, arg[0], t), p[0]), p[1]);
    default:
      return 0.0;  // tables are hy_signal_eval's; no other kind passes hy_model_check
  }
}

double hy_signal_eval(const hy_model* m, int sig, double t) {
  const int n = m->sig_npoint[sig];
  // a table has points and no other kind has any (hy_model_check): the count the table reads
  // anyway tells the kinds apart
  if (n == 0) return eval_kind(m, sig, t);
  const double* ts = m->sig_t + m->sig_adr[sig];
  const double* vs = m->sig_value + m->sig_adr[sig];
  if (t <= ts[0]) return vs[0];
  if (t >= ts[n - 1]) return vs[n - 1];
  // binary search for the interval [ts[lo], ts[lo+1]) holding t (unsigned: the halving is then
  // a plain shift, and the hydraulics evaluate spool signals on every Newton iteration)
  unsigned lo = 0, hi = (unsigned)n - 1;
  while (hi - lo > 1) {
    const unsigned mid = (lo + hi) / 2;
    if (ts[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  if (m->sig_interp[sig] == HY_INTERP_STEP) return vs[lo];
  double w = (t - ts[lo]) / (ts[lo + 1] - ts[lo]);
  return vs[lo] + w * (vs[lo + 1] - vs[lo]);
}

//----- bounds ----------------------------------------------------------------------------------

double hy_signal_bound(const hy_model* m, int sig) {
  if (sig < 0) return 1.0;
  const double* p = m->sig_par + (size_t)sig * HY_SIGNAL_NPAR;
  const int* arg = m->sig_arg + m->sig_argadr[sig];
  const int narg = m->sig_narg[sig];
  switch ((hy_signal_kind)m->sig_kind[sig]) {
    case HY_SIGNAL_TABLE: {
      // interpolation and hold never leave the range of the points
      double b = 0.0;
      const double* v = m->sig_value + m->sig_adr[sig];
      for (int i = 0; i < m->sig_npoint[sig]; i++) b = fmax(b, fabs(v[i]));
      return b;
    }
    case HY_SIGNAL_STEP:
      return fmax(fabs(p[1]), fabs(p[2]));  // smoothstep stays in [0, 1]
    case HY_SIGNAL_RAMP:
      return fmax(fabs(p[2]), fabs(p[3]));
    case HY_SIGNAL_SINE:
      return fabs(p[3]) + fabs(p[0]) * (narg > 0 ? hy_signal_bound(m, arg[0]) : 1.0);
    case HY_SIGNAL_PERIODIC:
      return hy_signal_bound(m, arg[0]);
    case HY_SIGNAL_SUM: {
      double b = 0.0;
      for (int i = 0; i < narg; i++) b += hy_signal_bound(m, arg[i]);
      return b;
    }
    case HY_SIGNAL_PRODUCT: {
      double b = 1.0;
      for (int i = 0; i < narg; i++) b *= hy_signal_bound(m, arg[i]);
      return b;
    }
    case HY_SIGNAL_SCALE:
      return fabs(p[0]) * hy_signal_bound(m, arg[0]) + fabs(p[1]);
    case HY_SIGNAL_ONE_MINUS:
      return 1.0 + hy_signal_bound(m, arg[0]);
    case HY_SIGNAL_CLAMP: {
      // clamping is monotone: the values lie between the clamped ends of [-b, b]
      const double b = hy_signal_bound(m, arg[0]);
      return fmax(fabs(fmin(fmax(-b, p[0]), p[1])), fabs(fmin(fmax(b, p[0]), p[1])));
    }
    default:
      return 0.0;
  }
}
