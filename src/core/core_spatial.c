// Spatial 6-vectors [linear; angular] and 6x6 blocks (row-major).
#include "core/core.h"

void hy_m6_zero(double r[36]) {
  for (int i = 0; i < 36; i++) r[i] = 0;
}

// Seed 000 Eq. 9: M_bar = [m I3, -m g~; m g~, J - m g~ g~]. With g~ g~ = g g^T - (g.g) I3 the
// lower-right block is J + m ((g.g) I3 - g g^T), the parallel-axis shift of J to the origin.
void hy_m6_body_inertia(double r[36], double mass, const double com[3], const double inertia[9]) {
  const double gx = com[0], gy = com[1], gz = com[2];
  const double mgx = mass * gx, mgy = mass * gy, mgz = mass * gz;
  const double gg = gx * gx + gy * gy + gz * gz;
  // Upper-left m I3 and upper-right -m g~.
  double* row = r;
  row[0] = mass, row[1] = 0, row[2] = 0, row[3] = 0, row[4] = mgz, row[5] = -mgy;
  row = r + 6;
  row[0] = 0, row[1] = mass, row[2] = 0, row[3] = -mgz, row[4] = 0, row[5] = mgx;
  row = r + 12;
  row[0] = 0, row[1] = 0, row[2] = mass, row[3] = mgy, row[4] = -mgx, row[5] = 0;
  // Lower-left m g~ and lower-right J - m g~ g~.
  row = r + 18;
  row[0] = 0, row[1] = -mgz, row[2] = mgy;
  row = r + 24;
  row[0] = mgz, row[1] = 0, row[2] = -mgx;
  row = r + 30;
  row[0] = -mgy, row[1] = mgx, row[2] = 0;
  const double g[3] = {gx, gy, gz};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      const double shift = mass * ((i == j ? gg : 0) - g[i] * g[j]);
      r[6 * (3 + i) + 3 + j] = inertia[3 * i + j] + shift;
    }
  }
}
