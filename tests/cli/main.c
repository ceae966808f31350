#include "fixture.h"

Suite* cli_suite(void);
Suite* io_csv_suite(void);
Suite* cli_friction_suite(void);

int main(void) { return hy_test_main(io_csv_suite(), cli_suite(), cli_friction_suite(), NULL); }
