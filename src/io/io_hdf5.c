// HDF5 results: placeholder until written.
#include "core/core.h"
#include "io/io.h"

hy_status hy_h5_writer_open(const char* path, int n, const char* const* names,
                            const char* const* units, const hy_results_meta* meta,
                            hy_h5_writer** out, hy_error* err) {
  (void)path, (void)n, (void)names, (void)units, (void)meta, (void)out;
  return HY_FAIL(err, HY_ERR_DEP, "HDF5 results are not written yet");
}
hy_status hy_h5_writer_row(hy_h5_writer* w, const double* row, hy_error* err) {
  (void)w, (void)row;
  return HY_FAIL(err, HY_ERR_DEP, "HDF5 results are not written yet");
}
hy_status hy_h5_writer_close(hy_h5_writer* w, const char* summary, hy_error* err) {
  (void)w, (void)summary, (void)err;
  return HY_OK;
}
hy_status hy_h5_results_read(const char* path, hy_results** out, hy_error* err) {
  (void)path, (void)out;
  return HY_FAIL(err, HY_ERR_DEP, "HDF5 results are not read yet");
}
