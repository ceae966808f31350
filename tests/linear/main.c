#include "fixture.h"

Suite* linear_suite(void);
Suite* linear_nonholonomic_suite(void);

int main(void) { return hy_test_main(linear_suite(), linear_nonholonomic_suite(), NULL); }
