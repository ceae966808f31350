// Shared helpers of the unit tests: heap-call counting, suite running, tolerances.
// Conventions (areas, main.c, HY_SOURCE_DIR) are described at the top of tests/CMakeLists.txt.
#ifndef HYDYN_TESTS_FIXTURE_H_
#define HYDYN_TESTS_FIXTURE_H_

#include <check.h>

#include "hydyn/hydyn.h"

// Starts counting malloc/calloc/realloc calls (the executable is linked with --wrap). Call it
// inside the test function: with Check's default fork mode each test runs in its own process.
// Passing ck_assert* calls inside the window are not counted (fixture.c wraps Check's
// _mark_point); other Check calls there would be, since Check is linked statically.
void hy_test_count_allocs_begin(void);
// Stops counting; returns the number of malloc + calloc + realloc calls since the last begin.
long hy_test_count_allocs_end(void);

// Runs one suite (CK_NORMAL output) and returns the number of failed tests.
int hy_test_run_suite(Suite* s);
// Runs a NULL-terminated list of suites in one runner; returns EXIT_SUCCESS when all pass.
// Meant as the whole body of an area's main: return hy_test_main(a_suite(), b_suite(), NULL);
int hy_test_main(Suite* first, ...);

// Loads the built-in model file models/<what>.yaml of the source tree, the file at the path
// `what` relative to the source tree when it holds a '/', or the member `what` of a built-in
// model family (loop-64); fails the test with the loader's message otherwise.
hy_model* hy_test_load(const char* what);
// Loads a model from YAML text (`name` stands for the file in messages); fails the test with
// the loader's message and the text otherwise.
hy_model* hy_test_load_text(const char* text, const char* name);
// Gives each body whose inertia is zero about an axis of its frame (a rod) a thousandth of its
// largest moment about that axis, so that the formulations that invert every body's inertia
// (dca, hdca) can run the model; the planar motion of a planar model does not change.
void hy_test_solid_rods(hy_model* m);
// hy_data_make that fails the test with its message.
hy_data* hy_test_make(const hy_model* m);
// n calls of hy_step; a failing one fails the test with its time and message.
void hy_test_steps(const hy_model* m, hy_data* d, long n);

// The library's allocator (hy_set_allocator) replaced by one that counts its blocks and fails
// the fail_at-th allocation (1-based; 0: none); hy_test_hook_end puts the default back.
void hy_test_hook_begin(long fail_at);
void hy_test_hook_end(void);
long hy_test_hook_live(void);   // blocks allocated through the hook and not yet freed
long hy_test_hook_calls(void);  // allocation calls since hy_test_hook_begin

// Fails the test unless a and b (n doubles) hold the same bits; `what` names them.
void hy_test_same_bits(const double* a, const double* b, int n, const char* what);

// |a - b| / max(|a|, |b|, floor): a relative error that stays meaningful near zero.
double hy_test_relerr(double a, double b, double floor);

// Loading text (as "mem/bad.yaml") fails with HY_ERR_MODEL, no model, the message msg exactly,
// at that file's line and column; the test fails otherwise.
void hy_test_expect_load_error(const char* text, const char* msg, int line, int col);

// Body b's linear momentum m g_dot, angular momentum about its centre of mass R J R^T omega and
// kinetic energy, from its rotation, origin velocity and angular velocity in d.
void hy_test_body_momenta(const hy_model* m, const hy_data* d, int b, double p[3], double L[3],
                          double* T);

#endif  // HYDYN_TESTS_FIXTURE_H_
