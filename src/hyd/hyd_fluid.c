// Oil laws B(p) beyond the circuits' constant and linear ones, which hyd_impl.h evaluates inline:
// the polynomial density law, oil with entrained air and a table (docs/hydraulics.md, "Oil
// laws"), each with its exact slope dB/dp for the Newton tangent. None of them is from a seed.
#include <math.h>

#include "hyd/hyd_impl.h"

// The air law holds its value below this fraction of p_atm: the air's modulus n p vanishes at
// p = 0, and (p_atm/p)^(1/n) has no value below (docs/hydraulics.md, "Oil with entrained air").
static const double kAirFloor = 1e-3;

// rho/rho0 = r(p) = 1 + a p + b p^2 gives B = rho dp/drho = r/r' with r' = a + 2 b p, and
// dB/dp = (r'^2 - r r'')/r'^2 = 1 - 2 b r/r'^2 (docs/hydraulics.md, "Polynomial density law").
static double polynomial_modulus(const hy_oil* o, double p, double* dB_dp) {
  const double r = 1.0 + o->a * p + o->b * p * p;
  const double dr = o->a + 2.0 * o->b * p;
  *dB_dp = 1.0 - 2.0 * o->b * r / (dr * dr);
  return r / dr;
}

// Oil of modulus B0 with the air volume fraction x at p_atm, per unit mixture volume there: oil
// V_o = (1 - x) exp(-(p - p_atm)/B0), air V_a = x (p_atm/p)^(1/n) (p V_a^n constant). The mixture's
// modulus B = -V dp/dV = N/D with N = V_o + V_a, D = V_o/B0 + V_a/(n p); dN/dp = -D and
// dD/dp = -V_o/B0^2 - (1 + n) V_a/(n p)^2 give dB/dp = -1 + B (V_o/B0^2 + (1 + n) V_a/(n p)^2)/D
// (docs/hydraulics.md, "Oil with entrained air").
static double air_modulus(const hy_oil* o, double p, double* dB_dp) {
  const double p_min = kAirFloor * o->p_atm;
  if (p < p_min) {
    const double B = air_modulus(o, p_min, dB_dp);
    *dB_dp = 0;
    return B;
  }
  const double B0 = o->B0, n = o->n, x = o->air;
  const double Vo = (1.0 - x) * exp(-(p - o->p_atm) / B0);
  const double Va = x * pow(o->p_atm / p, 1.0 / n);
  const double np = n * p;
  const double D = Vo / B0 + Va / np;
  const double B = (Vo + Va) / D;
  *dB_dp = -1.0 + B * (Vo / (B0 * B0) + (1.0 + n) * Va / (np * np)) / D;
  return B;
}

double hy_hyd_oil_law(const hy_oil* o, double p, double* dB_dp) {
  switch (o->law) {
    case HY_BULK_CONSTANT:
      *dB_dp = 0;
      return o->B0;
    case HY_BULK_LINEAR:
      *dB_dp = o->k;
      return o->B0 + o->k * p;
    case HY_BULK_POLYNOMIAL:
      return polynomial_modulus(o, p, dB_dp);
    case HY_BULK_AIR:
      return air_modulus(o, p, dB_dp);
    default:
      // B(p) interpolated linearly between the points, held outside: on [p_k, p_k+1) the slope
      // of that segment, 0 below the first point and from the last on
      return hy_table_linear(o->tab_p, o->tab_beta, o->tab_n, p, dB_dp);
  }
}

double hy_hyd_fluid_modulus(const hy_model* m, int v, double p, double* dB_dp) {
  const hy_oil o = hy_model_volume_oil(m, v);
  return hy_hyd_oil_law(&o, p, dB_dp);
}

double hy_hyd_volume_oil_modulus(const hy_model* m, int v, double p, double* dB_dp) {
  return hy_hyd_oil_modulus(m, v, p, dB_dp);
}
