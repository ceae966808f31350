// Models compiled into the library: every models/*.yaml, embedded at build time by
// cmake/embed_models.cmake, so the command and the tests can run a model by name without
// knowing where the source tree is.
#ifndef HYDYN_SRC_IO_IO_BUILTIN_H_
#define HYDYN_SRC_IO_IO_BUILTIN_H_

#include <stddef.h>

typedef struct hy_builtin_model {
  const char* name;  // file stem, e.g. "tree-10" for models/tree-10.yaml
  const char* text;  // file contents, NUL-terminated
  size_t size;       // bytes of text, terminator excluded
} hy_builtin_model;

// Sorted by file path; hy_builtin_model_count entries (the array may hold a sentinel beyond).
extern const hy_builtin_model hy_builtin_models[];
extern const int hy_builtin_model_count;

#endif  // HYDYN_SRC_IO_IO_BUILTIN_H_
