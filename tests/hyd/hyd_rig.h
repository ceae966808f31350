// A model, a data and a bound hydraulic workspace, for the tests that call the network's
// evaluation directly (test_hyd_valve.c, test_hyd_edges.c), and the check of its pressure
// tangent against central differences.
#ifndef HYDYN_TESTS_HYD_HYD_RIG_H_
#define HYDYN_TESTS_HYD_HYD_RIG_H_

#include "hyd/hyd.h"
#include "hydyn/hydyn.h"

typedef struct rig {
  hy_model* m;
  hy_data* d;
  hy_hyd_work hw;
  double* wbuf;
} rig;

// Takes m (rig_free frees it).
void rig_make(rig* r, hy_model* m);
void rig_free(rig* r);

// Every entry of dpd_dp at the rig's state against central differences of step h (Pa) around
// each pressure, to 1e-6 relative (failing the test otherwise, `label` in the message); the
// worst relative difference raises *worst. Returns the number of non-zero analytic entries (a
// check of zeros alone would prove nothing).
int rig_check_dpd_dp(rig* r, double h, const char* label, double* worst);

#endif  // HYDYN_TESTS_HYD_HYD_RIG_H_
