#include "fixture.h"

Suite* sim_step_suite(void);
Suite* sim_state_suite(void);
Suite* sim_run_suite(void);
Suite* sim_memory_suite(void);

int main(void) {
  return hy_test_main(sim_step_suite(), sim_state_suite(), sim_run_suite(), sim_memory_suite(),
                      NULL);
}
