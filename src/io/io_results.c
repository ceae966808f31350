// The results writer: one interface over the CSV and HDF5 files, chosen by the file name.
#define _POSIX_C_SOURCE 200809L  // strcasecmp
#include <string.h>
#include <strings.h>

#include "core/core.h"
#include "io/io.h"

struct hy_writer {
  hy_results_format format;
  hy_csv_writer* csv;
  hy_h5_writer* h5;
  long rows;
};

hy_results_format hy_results_format_of(const char* path) {
  const char* dot = path ? strrchr(path, '.') : NULL;
  if (dot && (strcasecmp(dot, ".h5") == 0 || strcasecmp(dot, ".hdf5") == 0)) {
    return HY_RESULTS_HDF5;
  }
  return HY_RESULTS_CSV;
}

hy_status hy_writer_open(const char* path, int n, const char* const* names,
                         const char* const* units, const hy_results_meta* meta, hy_writer** out,
                         hy_error* err) {
  if (!path || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_writer_open: NULL argument");
  *out = NULL;
  hy_writer* w = hy_calloc(1, sizeof *w);
  if (!w) return HY_FAIL(err, HY_ERR_NOMEM, "results writer: out of memory");
  w->format = strcmp(path, "-") == 0 ? HY_RESULTS_CSV : hy_results_format_of(path);
  hy_status st = w->format == HY_RESULTS_HDF5
                     ? hy_h5_writer_open(path, n, names, units, meta, &w->h5, err)
                     : hy_csv_writer_open(path, n, names, units, &w->csv, err);
  if (st != HY_OK) {
    hy_free(w);
    return st;
  }
  *out = w;
  return HY_OK;
}

hy_status hy_writer_row(hy_writer* w, const double* row, hy_error* err) {
  if (!w) return HY_FAIL(err, HY_ERR_ARG, "hy_writer_row: NULL writer");
  hy_status st = w->format == HY_RESULTS_HDF5 ? hy_h5_writer_row(w->h5, row, err)
                                              : hy_csv_writer_row(w->csv, row, err);
  if (st == HY_OK) w->rows++;
  return st;
}

hy_status hy_writer_close(hy_writer* w, const char* summary, hy_error* err) {
  if (!w) return HY_OK;
  hy_status st = w->format == HY_RESULTS_HDF5 ? hy_h5_writer_close(w->h5, summary, err)
                                              : hy_csv_writer_close(w->csv, err);
  hy_free(w);
  return st;
}

long hy_writer_rows(const hy_writer* w) { return w ? w->rows : 0; }
