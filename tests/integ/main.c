#include "fixture.h"

Suite* integ_explicit_suite(void);
Suite* integ_trap_suite(void);
Suite* integ_ode_suite(void);

int main(void) { return hy_test_main(integ_explicit_suite(), integ_trap_suite(), integ_ode_suite(), NULL); }
