#include "fixture.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//----- heap counting through ld --wrap ------------------------------------------------------

void* __real_malloc(size_t size);
void* __real_calloc(size_t count, size_t size);
void* __real_realloc(void* ptr, size_t size);
void __real_free(void* ptr);
void* __wrap_malloc(size_t size);
void* __wrap_calloc(size_t count, size_t size);
void* __wrap_realloc(void* ptr, size_t size);
void __wrap_free(void* ptr);

static int counting;
static long alloc_calls;

void* __wrap_malloc(size_t size) {
  if (counting) alloc_calls++;
  return __real_malloc(size);
}

void* __wrap_calloc(size_t count, size_t size) {
  if (counting) alloc_calls++;
  return __real_calloc(count, size);
}

void* __wrap_realloc(void* ptr, size_t size) {
  if (counting) alloc_calls++;
  return __real_realloc(ptr, size);
}

void __wrap_free(void* ptr) { __real_free(ptr); }

// Check's passing assertions call _mark_point, which sends the location to the runner through
// the heap. Wrapping it (also --wrap) keeps those calls out of the count, so a test may assert
// inside a counting window.
void __real__mark_point(const char* file, int line);
void __wrap__mark_point(const char* file, int line);

void __wrap__mark_point(const char* file, int line) {
  const int was_counting = counting;
  counting = 0;
  __real__mark_point(file, line);
  counting = was_counting;
}

void hy_test_count_allocs_begin(void) {
  alloc_calls = 0;
  counting = 1;
}

long hy_test_count_allocs_end(void) {
  counting = 0;
  return alloc_calls;
}

//----- running suites ------------------------------------------------------------------------

int hy_test_run_suite(Suite* s) {
  SRunner* sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed;
}

int hy_test_main(Suite* first, ...) {
  if (!first) return EXIT_FAILURE;
  SRunner* sr = srunner_create(first);
  va_list ap;
  va_start(ap, first);
  for (Suite* s = va_arg(ap, Suite*); s; s = va_arg(ap, Suite*)) srunner_add_suite(sr, s);
  va_end(ap);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  // A count as exit status would wrap modulo 256; only success or failure is meaningful.
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

double hy_test_relerr(double a, double b, double floor) {
  double scale = fmax(fmax(fabs(a), fabs(b)), floor);
  return scale > 0 ? fabs(a - b) / scale : 0.0;
}

hy_model* hy_test_load(const char* what) {
  char path[512];
  if (strchr(what, '/')) {
    snprintf(path, sizeof path, "%s/%s", HY_SOURCE_DIR, what);
  } else {
    snprintf(path, sizeof path, "%s/models/%s.yaml", HY_SOURCE_DIR, what);
  }
  hy_model* m = NULL;
  hy_error err;
  // a member of a built-in model family (loop-64) has no file
  hy_status st =
      hy_family_find(what) >= 0 ? hy_model_family(what, &m, &err) : hy_model_load(path, &m, &err);
  ck_assert_msg(st == HY_OK, "%s: %s", path, err.msg);
  return m;
}

hy_model* hy_test_load_text(const char* text, const char* name) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_model_load_string(text, strlen(text), name, &m, &err);
  char msg[1024];
  hy_error_format(&err, msg, sizeof msg);
  ck_assert_msg(st == HY_OK, "%s: %s\n%s", name, msg, text);
  return m;
}

void hy_test_solid_rods(hy_model* m) {
  for (int j = 0; j < m->sizes.nbody; j++) {
    double* J = m->body_inertia + 9 * j;
    const double top = fmax(J[0], fmax(J[4], J[8]));
    for (int i = 0; i < 3; i++) {
      if (J[4 * i] == 0) J[4 * i] = 1e-3 * top;
    }
  }
}

hy_data* hy_test_make(const hy_model* m) {
  hy_data* d = NULL;
  hy_error err;
  hy_status st = hy_data_make(m, &d, &err);
  ck_assert_msg(st == HY_OK, "hy_data_make(%s): %s", m->name, err.msg);
  return d;
}

static long hook_live, hook_calls, hook_fail_at;

static void* hook_alloc(size_t size, void* user) {
  (void)user;
  hook_calls++;
  if (hook_fail_at > 0 && hook_calls == hook_fail_at) return NULL;
  void* p = malloc(size);
  if (p) hook_live++;
  return p;
}

static void hook_free(void* ptr, void* user) {
  (void)user;
  if (ptr) hook_live--;
  free(ptr);
}

void hy_test_hook_begin(long fail_at) {
  hook_live = 0;
  hook_calls = 0;
  hook_fail_at = fail_at;
  hy_set_allocator(hook_alloc, hook_free, NULL);
}

void hy_test_hook_end(void) { hy_set_allocator(NULL, NULL, NULL); }

long hy_test_hook_live(void) { return hook_live; }

long hy_test_hook_calls(void) { return hook_calls; }

void hy_test_same_bits(const double* a, const double* b, int n, const char* what) {
  for (int i = 0; i < n; i++) {
    ck_assert_msg(memcmp(&a[i], &b[i], sizeof a[i]) == 0,
                  "%s: entry %d of %d differs: %.17g, then %.17g", what, i, n, a[i], b[i]);
  }
}

void hy_test_steps(const hy_model* m, hy_data* d, long n) {
  for (long i = 0; i < n; i++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "step %ld of %ld at t = %.9g s: %s", i + 1, n, d->time,
                  d->err.msg);
  }
}

void hy_test_body_momenta(const hy_model* m, const hy_data* d, int b, double p[3], double L[3],
                    double* T) {
  const double* R = d->body_rot + 9 * b;
  const double* Z = d->body_Z + 6 * b;
  const double* w = Z + 3;
  double g[3], v[3], wb[3], Jwb[3];
  for (int i = 0; i < 3; i++) {
    g[i] = d->body_pos[3 * b + i] + R[3 * i] * m->body_com[3 * b] +
           R[3 * i + 1] * m->body_com[3 * b + 1] + R[3 * i + 2] * m->body_com[3 * b + 2];
  }
  // the velocity of the material point at g: s_dot + omega x g
  v[0] = Z[0] + w[1] * g[2] - w[2] * g[1];
  v[1] = Z[1] + w[2] * g[0] - w[0] * g[2];
  v[2] = Z[2] + w[0] * g[1] - w[1] * g[0];
  for (int i = 0; i < 3; i++) wb[i] = R[i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2];
  const double* J = m->body_inertia + 9 * b;
  for (int i = 0; i < 3; i++) Jwb[i] = J[3 * i] * wb[0] + J[3 * i + 1] * wb[1] + J[3 * i + 2] * wb[2];
  for (int i = 0; i < 3; i++) L[i] = R[3 * i] * Jwb[0] + R[3 * i + 1] * Jwb[1] + R[3 * i + 2] * Jwb[2];
  const double mass = m->body_mass[b];
  for (int i = 0; i < 3; i++) p[i] = mass * v[i];
  *T = 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
       0.5 * (wb[0] * Jwb[0] + wb[1] * Jwb[1] + wb[2] * Jwb[2]);
}

void hy_test_expect_load_error(const char* text, const char* msg, int line, int col) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "mem/bad.yaml", &m, &err),
                   HY_ERR_MODEL);
  ck_assert_ptr_null(m);
  ck_assert_str_eq(err.msg, msg);
  ck_assert_str_eq(err.src_path, "mem/bad.yaml");
  ck_assert_int_eq(err.src_line, line);
  ck_assert_int_eq(err.src_col, col);
}
