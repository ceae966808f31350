#include "fixture.h"

Suite* io_yaml_suite(void);
Suite* io_family_suite(void);
Suite* io_results_suite(void);

int main(void) {
  return hy_test_main(io_yaml_suite(), io_family_suite(), io_results_suite(), NULL);
}
