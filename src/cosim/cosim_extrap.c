// Lagrange extrapolation of coupling variables over a macro step (seed 001_004ef98543c36dde.txt,
// Sect. 2.3: "polynomial extrapolation ... uses Lagrange polynomials").
#include "cosim/cosim.h"

void hy_cosim_extrapolate(int order, int known, double H, const double* hist, hy_cosim_poly* u) {
  // At the start of a run fewer past values exist: the polynomial through all of them is the
  // best the history allows (order 0 at t = 0, the value itself).
  int p = order < known - 1 ? order : known - 1;
  if (p > HY_COSIM_ORDER_MAX) p = HY_COSIM_ORDER_MAX;
  u->c[0] = u->c[1] = u->c[2] = 0.0;
  if (p < 0) return;  // nothing known: no input
  const double h0 = hist[0];
  u->c[0] = h0;
  if (p == 1) {
    // through (0, h0), (-H, h1): u(H) = 2 h0 - h1
    u->c[1] = (h0 - hist[1]) / H;
  } else if (p == 2) {
    // through (0, h0), (-H, h1), (-2H, h2) in Newton's form, expanded in tau:
    // u(H) = 3 h0 - 3 h1 + h2
    const double h1 = hist[1], h2 = hist[2];
    u->c[1] = (3.0 * h0 - 4.0 * h1 + h2) / (2.0 * H);
    u->c[2] = (h0 - 2.0 * h1 + h2) / (2.0 * H * H);
  }
}
