// Arena (alignment, frames, peak, overflow without heap use) and the allocator hook.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"

START_TEST(arena_alignment_and_peak) {
  hy_arena a;
  ck_assert_int_eq(hy_arena_init(&a, 4096), HY_OK);
  ck_assert_ptr_nonnull(a.base);
  const size_t sizes[] = {1, 7, 64, 65, 100, 8 * sizeof(double)};
  size_t expect_used = 0;
  unsigned char* prev_end = NULL;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    unsigned char* p = hy_arena_alloc(&a, sizes[i]);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 64, 0);
    // Pieces do not overlap and the whole request is writable.
    if (prev_end) ck_assert(p >= prev_end);
    memset(p, 0xAB, sizes[i]);
    prev_end = p + sizes[i];
    expect_used += (sizes[i] + 63) / 64 * 64;
    ck_assert_uint_eq(a.used, expect_used);
  }
  ck_assert_uint_eq(hy_arena_need(1), 64);
  ck_assert_uint_eq(hy_arena_need(64), 64);
  ck_assert_uint_eq(hy_arena_need(65), 128);
  ck_assert_uint_eq(a.peak, expect_used);

  // A frame: everything after the mark is given back, the peak stays.
  const size_t mark = hy_arena_mark(&a);
  void* p1 = hy_arena_alloc(&a, 1000);
  ck_assert_ptr_nonnull(p1);
  const size_t peak = a.peak;
  ck_assert_uint_eq(peak, expect_used + 1024);
  hy_arena_release(&a, mark);
  ck_assert_uint_eq(a.used, expect_used);
  ck_assert_uint_eq(a.peak, peak);
  // The same memory comes back after a release.
  ck_assert_ptr_eq(hy_arena_alloc(&a, 10), p1);
  hy_arena_free(&a);
  ck_assert_ptr_null(a.base);
}
END_TEST

START_TEST(arena_overflow_returns_null_without_heap) {
  hy_arena a;
  ck_assert_int_eq(hy_arena_init(&a, 256), HY_OK);
  hy_test_count_allocs_begin();
  void* p = hy_arena_alloc(&a, 200);
  void* q = hy_arena_alloc(&a, 64);  // 256 used, 64 more do not fit
  void* r = hy_arena_alloc(&a, 1);
  const size_t mark = hy_arena_mark(&a);
  hy_arena_release(&a, 0);
  void* s = hy_arena_alloc(&a, 256);
  void* t = hy_arena_alloc(&a, 1);
  hy_arena_release(&a, mark);
  long heap_calls = hy_test_count_allocs_end();
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_null(q);
  ck_assert_ptr_null(r);
  ck_assert_ptr_eq(s, p);
  ck_assert_ptr_null(t);
  ck_assert_int_eq(heap_calls, 0);
  // The failed request is recorded: the peak says how much would have been needed.
  ck_assert_uint_eq(a.peak, 256 + 64);
  ck_assert_uint_le(a.used, a.size);
  hy_arena_free(&a);

  // An empty arena hands out nothing, and still records what was asked.
  ck_assert_int_eq(hy_arena_init(&a, 0), HY_OK);
  ck_assert_ptr_null(hy_arena_alloc(&a, 8));
  ck_assert_uint_eq(a.peak, 64);
  hy_arena_free(&a);
}
END_TEST

START_TEST(fixture_counts_heap_calls) {
  // The counter itself must work, or the zero above proves nothing.
  hy_test_count_allocs_begin();
  void* p = hy_malloc(10);
  void* q = hy_calloc(2, 8);
  hy_free(p);
  hy_free(q);
  ck_assert_int_eq(hy_test_count_allocs_end(), 2);
  hy_arena a;
  // Passing assertions inside the window (Check allocates for them) are not counted.
  hy_test_count_allocs_begin();
  ck_assert_int_eq(hy_arena_init(&a, 100), HY_OK);
  ck_assert_ptr_nonnull(a.base);
  ck_assert_int_eq(hy_test_count_allocs_end(), 1);
  hy_arena_free(&a);
}
END_TEST

//----- allocator hook ------------------------------------------------------------------------

typedef struct hook_log {
  int allocs;
  int frees;
  size_t last_size;
  void* last_alloc;
  void* last_free;
  int fail;  // return NULL instead of allocating
} hook_log;

static void* hook_alloc(size_t size, void* user) {
  hook_log* log = user;
  log->allocs++;
  log->last_size = size;
  log->last_alloc = log->fail ? NULL : malloc(size);
  return log->last_alloc;
}

static void hook_free(void* ptr, void* user) {
  hook_log* log = user;
  log->frees++;
  log->last_free = ptr;
  free(ptr);
}

START_TEST(allocator_hook_is_called) {
  hook_log log = {0};
  hy_set_allocator(hook_alloc, hook_free, &log);

  void* p = hy_malloc(24);
  ck_assert_int_eq(log.allocs, 1);
  ck_assert_uint_eq(log.last_size, 24);
  ck_assert_ptr_eq(p, log.last_alloc);
  hy_free(p);
  ck_assert_int_eq(log.frees, 1);
  ck_assert_ptr_eq(log.last_free, p);

  // calloc goes through the hook and zeroes.
  unsigned char* z = hy_calloc(5, 7);
  ck_assert_int_eq(log.allocs, 2);
  for (int i = 0; i < 35; i++) ck_assert_uint_eq(z[i], 0);
  hy_free(z);
  // An overflowing count is refused before the hook is asked.
  ck_assert_ptr_null(hy_calloc(SIZE_MAX / 2, 4));
  ck_assert_int_eq(log.allocs, 2);
  // Freeing NULL does not reach the hook.
  hy_free(NULL);
  ck_assert_int_eq(log.frees, 2);

  // The arena takes its block through the hook and returns exactly that block.
  hy_arena a;
  ck_assert_int_eq(hy_arena_init(&a, 1000), HY_OK);
  ck_assert_int_eq(log.allocs, 3);
  void* block = log.last_alloc;
  hy_arena_free(&a);
  ck_assert_int_eq(log.frees, 3);
  ck_assert_ptr_eq(log.last_free, block);

  // A failing hook becomes HY_ERR_NOMEM.
  log.fail = 1;
  ck_assert_int_eq(hy_arena_init(&a, 1000), HY_ERR_NOMEM);
  ck_assert_ptr_null(a.base);

  // NULL restores malloc/free: the hook is no longer called.
  hy_set_allocator(NULL, NULL, NULL);
  p = hy_malloc(8);
  ck_assert_ptr_nonnull(p);
  hy_free(p);
  ck_assert_int_eq(log.allocs, 4);
  ck_assert_int_eq(log.frees, 3);
}
END_TEST

Suite* core_arena_suite(void) {
  Suite* s = suite_create("core_arena");
  TCase* tc = tcase_create("arena");
  tcase_add_test(tc, arena_alignment_and_peak);
  tcase_add_test(tc, arena_overflow_returns_null_without_heap);
  tcase_add_test(tc, fixture_counts_heap_calls);
  tcase_add_test(tc, allocator_hook_is_called);
  suite_add_tcase(s, tc);
  return s;
}
