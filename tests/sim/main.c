#include "fixture.h"

Suite* sim_step_suite(void);

int main(void) { return hy_test_main(sim_step_suite(), NULL); }
