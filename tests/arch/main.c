#include "fixture.h"

Suite* arch_deps_suite(void);

int main(void) { return hy_test_main(arch_deps_suite(), NULL); }
