// Runs every suite of tests/core; see tests/CMakeLists.txt for the convention.
#include "fixture.h"

Suite* core_vec_suite(void);
Suite* core_lu_suite(void);
Suite* core_arena_suite(void);
Suite* core_error_suite(void);

int main(void) {
  return hy_test_main(core_vec_suite(), core_lu_suite(), core_arena_suite(), core_error_suite(),
                      NULL);
}
