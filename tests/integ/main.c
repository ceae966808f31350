#include "fixture.h"

Suite* integ_explicit_suite(void);

int main(void) { return hy_test_main(integ_explicit_suite(), NULL); }
