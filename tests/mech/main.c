#include "fixture.h"

Suite* mech_dynamics_suite(void);

int main(void) { return hy_test_main(mech_dynamics_suite(), NULL); }
