#include "fixture.h"

Suite* hyd_suite(void);
Suite* hyd_yaml_suite(void);
Suite* hyd_pressure_valve_suite(void);
Suite* hyd_pump_suite(void);
Suite* hyd_valve_suite(void);
Suite* hyd_fluid_suite(void);
Suite* hyd_spool_suite(void);
Suite* hyd_seed_paths_suite(void);
Suite* hyd_edges_suite(void);

int main(void) {
  return hy_test_main(hyd_suite(), hyd_yaml_suite(), hyd_pressure_valve_suite(), hyd_pump_suite(),
                      hyd_valve_suite(), hyd_fluid_suite(), hyd_spool_suite(),
                      hyd_seed_paths_suite(), hyd_edges_suite(), NULL);
}
