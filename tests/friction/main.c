#include "fixture.h"

Suite* friction_laws_suite(void);
Suite* friction_partials_suite(void);
Suite* friction_dynamics_suite(void);
Suite* friction_response_suite(void);

int main(void) {
  return hy_test_main(friction_laws_suite(), friction_partials_suite(), friction_dynamics_suite(),
                      friction_response_suite(), NULL);
}
