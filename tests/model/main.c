#include "fixture.h"

Suite* model_check_suite(void);

int main(void) { return hy_test_main(model_check_suite(), NULL); }
