// Gas-charged accumulators on volumes (docs/hydraulics.md, "Accumulators"; not from a seed): the
// oil the gas leaves at the volume's pressure joins the volume's oil, and its slope dV/dp adds to
// the volume's compliance X = V/B_oil + W in p_dot = S/X.
#include <math.h>

#include "hyd/hyd_impl.h"

// Half-width of the blend at the pre-charge, in the true oil fraction u = 1 - (p0/p)^(1/n): about
// +-1.4e-3 p0 in pressure for n = 1.4.
static const double kBand = 1e-3;

// With q = (p0/p)^(1/n) the accumulator holds V0 u, u = 1 - q, above p0 and nothing below: its
// compliance jumps from 0 to V0/(n p0) at p0. Over |u| < eps it holds V0 r(u) instead, r the
// integral of the smoothstep t^2 (3 - 2 t), t = (u + eps)/(2 eps): r = 2 eps t^3 (1 - t/2),
// r' = t^2 (3 - 2 t), r'' = 3 t (1 - t)/eps, which meets 0 and u with two derivatives at both
// ends. V_acc is then C^2 in p, so p_dot and its tangent are continuous across p0.
double hy_hyd_accumulator_volume(const hy_model* m, int i, double p, double* dV_dp,
                                 double* d2V_dp2) {
  const double p0 = m->acc_p0[i], V0 = m->acc_V0[i], n = m->acc_n[i];
  double V = 0, dV = 0, d2V = 0;
  if (p > 0) {
    const double q = pow(p0 / p, 1.0 / n);
    const double u = 1.0 - q;
    if (u > -kBand) {
      // du/dp = q/(n p), d2u/dp2 = -(1 + n) q/(n p)^2
      const double np = n * p;
      const double du = q / np, d2u = -(1.0 + n) * q / (np * np);
      double r = u, dr = 1, d2r = 0;
      if (u < kBand) {
        const double t = (u + kBand) / (2.0 * kBand);
        r = 2.0 * kBand * t * t * t * (1.0 - 0.5 * t);
        dr = t * t * (3.0 - 2.0 * t);
        d2r = 3.0 * t * (1.0 - t) / kBand;
      }
      V = V0 * r;
      dV = V0 * dr * du;
      d2V = V0 * (d2r * du * du + dr * d2u);
    }
  }
  if (dV_dp) *dV_dp = dV;
  if (d2V_dp2) *d2V_dp2 = d2V;
  return V;
}

void hy_hyd_accumulators(const hy_model* m, hy_data* d) {
  double* V = d->vol_V;
  double* W = d->vol_Be;  // compliance sums until the evaluation turns them into Be
  for (int i = 0; i < m->sizes.nacc; i++) {
    const int v = m->acc_vol[i];
    double dV;
    const double Va = hy_hyd_accumulator_volume(m, i, d->p[v], &dV, NULL);
    d->acc_V[i] = Va;
    V[v] += Va;  // oil, compressible at B_oil like the rest of the volume's
    W[v] += dV;
  }
}

void hy_hyd_accumulator_partials(const hy_model* m, const hy_data* d, double* J) {
  const int nv = m->sizes.nvol;
  for (int i = 0; i < m->sizes.nacc; i++) {
    const int v = m->acc_vol[i];
    double dV, d2V, dB;
    hy_hyd_accumulator_volume(m, i, d->p[v], &dV, &d2V);
    const double B = hy_hyd_oil_modulus(m, v, d->p[v], &dB);
    // p_dot = S/X: d p_dot/dp = (dS/dp)/X - p_dot (dX/dp)/X, and this accumulator's part of
    // dX/dp is dV/dp / B_oil (its oil) + d2V/dp2 (its compliance); the B_oil' part is the
    // evaluation's, with the accumulator's oil in V
    const double X = d->vol_V[v] / d->vol_Be[v];
    J[(size_t)v * (size_t)nv + (size_t)v] -= d->pd[v] * (dV / B + d2V) / X;
  }
}
