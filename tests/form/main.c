#include "fixture.h"

Suite* form_suite(void);
Suite* form_table_suite(void);
Suite* hydraulic_suite(void);
Suite* random_loops_suite(void);
Suite* form_friction_suite(void);
Suite* form_global_suite(void);
Suite* form_nonholonomic_suite(void);
Suite* form_dca_suite(void);
Suite* form_hdca_suite(void);
Suite* form_joints_suite(void);
Suite* form_timber_crane_suite(void);
Suite* form_couplers_suite(void);
Suite* form_damping_suite(void);

int main(void) {
  return hy_test_main(form_suite(), form_table_suite(), hydraulic_suite(), random_loops_suite(),
                      form_friction_suite(), form_global_suite(), form_nonholonomic_suite(), form_dca_suite(), form_hdca_suite(), form_joints_suite(), form_timber_crane_suite(), form_couplers_suite(), form_damping_suite(), NULL);
}
