// The allocator hook (the only process-global state of hydyn) and the bump arena that step
// code takes its scratch from.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

//----- allocator hook ------------------------------------------------------------------------

static void* default_alloc(size_t size, void* user) {
  (void)user;
  return malloc(size);
}

static void default_free(void* ptr, void* user) {
  (void)user;
  free(ptr);
}

static hy_alloc_fn g_alloc = default_alloc;
static hy_free_fn g_free = default_free;
static void* g_user = NULL;

void hy_set_allocator(hy_alloc_fn alloc, hy_free_fn free_fn, void* user) {
  // A half-set hook would free blocks with a function that did not allocate them.
  if (!alloc || !free_fn) {
    g_alloc = default_alloc;
    g_free = default_free;
    g_user = NULL;
    return;
  }
  g_alloc = alloc;
  g_free = free_fn;
  g_user = user;
}

void* hy_malloc(size_t size) {
  // malloc(0) may return NULL, which callers would take for out-of-memory.
  return g_alloc(size ? size : 1, g_user);
}

void hy_free(void* ptr) {
  if (ptr) g_free(ptr, g_user);
}

void* hy_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  const size_t bytes = count * size;
  void* p = hy_malloc(bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

//----- arena ---------------------------------------------------------------------------------

// Pieces start on cache-line boundaries: no false sharing between workers' slices, and aligned
// loads for any type.
#define HY_ARENA_ALIGN ((size_t)64)

size_t hy_arena_need(size_t bytes) { return (bytes + HY_ARENA_ALIGN - 1) & ~(HY_ARENA_ALIGN - 1); }

hy_status hy_arena_init(hy_arena* a, size_t size) {
  if (!a) return HY_ERR_ARG;
  a->base = NULL;
  a->size = 0;
  a->used = 0;
  a->peak = 0;
  if (size == 0) return HY_OK;
  if (size > SIZE_MAX - HY_ARENA_ALIGN) return HY_ERR_NOMEM;
  // The hook only promises malloc alignment (16), so over-allocate and align by hand. The gap
  // (1..64 bytes) is stored in the byte just below base to find the block again when freeing.
  unsigned char* raw = hy_malloc(size + HY_ARENA_ALIGN);
  if (!raw) return HY_ERR_NOMEM;
  const size_t gap = HY_ARENA_ALIGN - (size_t)((uintptr_t)raw % HY_ARENA_ALIGN);
  a->base = raw + gap;
  a->base[-1] = (unsigned char)gap;
  a->size = size;
  return HY_OK;
}

void hy_arena_free(hy_arena* a) {
  if (!a) return;
  if (a->base) hy_free(a->base - a->base[-1]);
  a->base = NULL;
  a->size = 0;
  a->used = 0;
  a->peak = 0;
}

void* hy_arena_alloc(hy_arena* a, size_t bytes) {
  const size_t need = hy_arena_need(bytes);
  if (need < bytes) return NULL;  // rounding overflowed
  const size_t avail = a->size - a->used;
  // The peak also counts a request that does not fit, so the caller can report how much the
  // arena would have needed.
  const size_t want = need > SIZE_MAX - a->used ? SIZE_MAX : a->used + need;
  if (want > a->peak) a->peak = want;
  if (need > avail || !a->base) return NULL;
  void* p = a->base + a->used;
  a->used += need;
  return p;
}

