#include "fixture.h"

Suite* cosim_extrap_suite(void);
Suite* cosim_jacobi_suite(void);
// the subsystems (cosim_mech.c, cosim_hyd.c) and the cylinders' input mode (src/hyd/hyd_input.c)
Suite* cosim_input_suite(void);
Suite* cosim_mech_suite(void);
Suite* cosim_hyd_suite(void);
// the global-coordinate formulations as the mechanics
Suite* cosim_global_suite(void);

int main(void) {
  return hy_test_main(cosim_extrap_suite(), cosim_jacobi_suite(), cosim_input_suite(),
                      cosim_mech_suite(), cosim_hyd_suite(), cosim_global_suite(), NULL);
}
