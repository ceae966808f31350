// One-dimensional tables: linear interpolation between points, held outside them
// (docs/hydraulics.md, "Oil laws" and "Metering edges from tables").
#include "core/core.h"

double hy_table_linear(const double* xs, const double* ys, int n, double x, double* dy_dx) {
  if (dy_dx) *dy_dx = 0;
  if (x < xs[0]) return ys[0];
  if (x >= xs[n - 1]) return ys[n - 1];
  // the segment [xs[lo], xs[lo + 1]) holding x
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (xs[mid] <= x) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const double slope = (ys[lo + 1] - ys[lo]) / (xs[lo + 1] - xs[lo]);
  if (dy_dx) *dy_dx = slope;
  return ys[lo] + slope * (x - xs[lo]);
}
