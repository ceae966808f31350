// The generalized residual energy of the coupling (seed 001_004ef98543c36dde.txt, Sect. 2.3.2,
// Eqs. 16-24) and what a sweep reads from it: the achievable communication step.
#include <math.h>

#include "cosim/cosim.h"

double hy_cosim_residual_energy(int extrap, double H, double dP0, double dP1) {
  // Eq. 23: with held inputs (m = 0) delta P jumps at every communication point, and its value
  // at t_{n+1} is the one the step's error produced.
  if (extrap == 0) return dP1 * H;
  // Eq. 24 (trapezoid, also for m = 2: the outputs are not known between communication points,
  // so a higher rule has no more data). Written without seed 001's leading minus sign, which
  // would flip the sign of Eq. 22's integral for m >= 1 only.
  return 0.5 * H * (dP0 + dP1);
}

int hy_cosim_growth_order(int extrap) { return extrap >= 0 ? extrap + 1 : 1; }

int hy_cosim_achievable(int n, const double* H, const int* completed, const double* E_abs, int q,
                        double e_floor) {
  int best = -1;
  for (int k = 0; k < n; k++) {
    if (!completed[k] || !isfinite(E_abs[k])) break;
    if (k > 0) {
      const double allowed = HY_COSIM_TAKEOFF * pow(H[k] / H[k - 1], q) * E_abs[k - 1];
      // a residual at round-off level can jump by any factor and still mean nothing
      if (E_abs[k] > allowed && E_abs[k] > e_floor) break;
    }
    best = k;
  }
  return best;
}
