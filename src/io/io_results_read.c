// Reading results files: placeholder until written.
#include "core/core.h"
#include "io/io.h"

hy_status hy_results_read(const char* path, hy_results** out, hy_error* err) {
  (void)path, (void)out;
  return HY_FAIL(err, HY_ERR_DEP, "results files are not read yet");
}
void hy_results_free(hy_results* r) { (void)r; }
int hy_results_find(const hy_results* r, const char* name) {
  (void)r, (void)name;
  return -1;
}
hy_status hy_results_select(const hy_results* r, const char* spec, int** idx, int* n,
                            hy_error* err) {
  (void)r, (void)spec, (void)idx, (void)n;
  return HY_FAIL(err, HY_ERR_DEP, "results files are not read yet");
}
