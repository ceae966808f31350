#include "fixture.h"

Suite* linear_suite(void);

int main(void) { return hy_test_main(linear_suite(), NULL); }
