#include "fixture.h"

Suite* model_check_suite(void);
Suite* model_signal_suite(void);

int main(void) { return hy_test_main(model_check_suite(), model_signal_suite(), NULL); }
