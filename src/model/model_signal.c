// Time signals of a compiled model: evaluation of their (t, value) tables.
#include "hydyn/model.h"

double hy_signal_eval(const hy_model* m, int sig, double t) {
  const int n = m->sig_npoint[sig];
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
