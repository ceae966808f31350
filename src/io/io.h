// Internal header of src/io: results files (CSV, HDF5): writing and reading them. The YAML loader and the built-in model table
// have their own entry points (include/hydyn/model.h, io_builtin.h).
#ifndef HYDYN_SRC_IO_IO_H_
#define HYDYN_SRC_IO_IO_H_

#include <stdio.h>

#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "hydyn/types.h"

//----- results files ---------------------------------------------------------------------------
// A run's results: the selected channels (include/hydyn/channels.h), one row per recorded step.
// Two formats, chosen by the file name (hy_results_format_of):
//   CSV   header `time[s],z:boom[rad],...,iter` (name[unit], bare name when the unit is ""),
//         then one row per step; %.17g, so values read back bit for bit; fields holding a
//         comma, quote or line break quoted (RFC 4180). Rows are formatted in memory and
//         written whole with write(2), at least every HY_RESULTS_FLUSH_ROWS rows: a run killed
//         at any moment leaves a file of whole rows.
//   HDF5  (.h5, .hdf5) one 1-D double dataset per channel under /channels, named after the
//         channel ('/' written as '%2F', '%' as '%25'), with the attribute `unit`; the root
//         holds the attributes `model` (the model file's text), `model_name`, `settings` and,
//         at close, `summary` (text, key=value lines), and `channels` (the names in order).
//         Datasets are chunked (chunks of up to 2048 rows) and written a block of
//         hy_h5_block_rows rows at a time, flushed when a block is full and at least once a
//         second, so a run that stops early leaves a file readable up to the last flush, and
//         complete up to the last row once closed.
// A writer refuses a row holding a value that is not finite (no file ever holds one).

enum { HY_RESULTS_FLUSH_ROWS = 1024 };  // CSV: rows buffered at most

// Rows of an HDF5 block (what is written and flushed at once) for nchan channels: 8192, fewer when nchan * 8192 doubles
// would pass 8 MiB (at least 64).
int hy_h5_block_rows(int nchan);

typedef enum hy_results_format {
  HY_RESULTS_CSV = 0,
  HY_RESULTS_HDF5 = 1,
} hy_results_format;

// HDF5 for a path ending in .h5 or .hdf5 (any case), CSV otherwise.
hy_results_format hy_results_format_of(const char* path);

// What a results file says about the run besides the channels. Every field is nullable.
typedef struct hy_results_meta {
  const char* model_name;
  const char* model_text;  // the model file's text (HDF5 attribute `model`)
  const char* settings;    // the run settings, "key=value" lines
} hy_results_meta;

typedef struct hy_writer hy_writer;

// Opens path ("-": CSV on standard output, never closed) for the channels names[0..n) with
// units[0..n) (the first is time) and writes what is known before the first row (the CSV
// header, the HDF5 datasets and attributes). The caller has checked that path is none of the
// run's inputs. The writer holds an exclusive lock (flock) on the file from before it is
// truncated until close: a second writer of the same file gets HY_ERR_IO ("another process is
// writing ...") and leaves the first one's file as it was. HY_ERR_IO when it cannot be created,
// HY_ERR_DEP for HDF5 in a build without it, HY_ERR_NOMEM. Nullable: meta, err.
hy_status hy_writer_open(const char* path, int n, const char* const* names,
                         const char* const* units, const hy_results_meta* meta, hy_writer** out,
                         hy_error* err);
// Appends one row of n values. HY_ERR_NAN (writing nothing) when one is not finite, HY_ERR_IO.
hy_status hy_writer_row(hy_writer* w, const double* row, hy_error* err);
// Writes what is buffered, the summary (HDF5 attribute; nullable) and closes; frees w (NULL is
// a no-op). HY_ERR_IO when this or an earlier write failed.
hy_status hy_writer_close(hy_writer* w, const char* summary, hy_error* err);
// Rows written so far.
long hy_writer_rows(const hy_writer* w);

// The format-specific halves behind hy_writer (io_csv.c, io_hdf5.c).
typedef struct hy_csv_writer hy_csv_writer;
hy_status hy_csv_writer_open(const char* path, int n, const char* const* names,
                             const char* const* units, hy_csv_writer** out, hy_error* err);
hy_status hy_csv_writer_row(hy_csv_writer* w, const double* row, hy_error* err);
hy_status hy_csv_writer_close(hy_csv_writer* w, hy_error* err);
typedef struct hy_h5_writer hy_h5_writer;
hy_status hy_h5_writer_open(const char* path, int n, const char* const* names,
                            const char* const* units, const hy_results_meta* meta,
                            hy_h5_writer** out, hy_error* err);
hy_status hy_h5_writer_row(hy_h5_writer* w, const double* row, hy_error* err);
hy_status hy_h5_writer_close(hy_h5_writer* w, const char* summary, hy_error* err);

// Results read back from a CSV or HDF5 file: every channel as a column.
typedef struct hy_results {
  int nchan;
  long nrow;
  char** name;       // channel names, time first (nchan)
  char** unit;       // units, "" for none (nchan)
  double* data;      // column-major: channel c at row r is data[c * nrow + r]
  char* model_text;  // HDF5: the model file's text, else NULL
  char* settings;    // HDF5: the run settings, else NULL
  char* summary;     // HDF5: the run summary, else NULL
  char path[512];
} hy_results;

// Reads a results file written by hy_writer (CSV by its header, HDF5 by its signature). A CSV
// ending in a partial row (a writer killed mid-write) is read up to its last whole row. Errors
// name the file, line and column (CSV) or the dataset (HDF5): HY_ERR_IO, HY_ERR_PARSE,
// HY_ERR_DEP (HDF5 without HDF5 support), HY_ERR_NOMEM. Nullable: err.
hy_status hy_results_read(const char* path, hy_results** out, hy_error* err);
hy_status hy_csv_results_read(const char* path, hy_results** out, hy_error* err);
hy_status hy_h5_results_read(const char* path, hy_results** out, hy_error* err);
void hy_results_free(hy_results* r);
void hy_results_free_selection(int* idx);
// Column of the channel called name, or -1.
int hy_results_find(const hy_results* r, const char* name);
// Column r->data + c * r->nrow.
static inline const double* hy_results_column(const hy_results* r, int c) {
  return r->data + (size_t)c * (size_t)r->nrow;
}
// The channels a selection names (as hy_channels_select: names and globs, comma-separated; ""
// or NULL = every channel but time; `all` every channel but time; `default` is not known to a
// file), in its order, each once, time excluded. Free *idx with hy_results_free_selection. HY_ERR_ARG with the unmatched pattern and the file's channel prefixes.
hy_status hy_results_select(const hy_results* r, const char* spec, int** idx, int* n,
                            hy_error* err);

//----- CSV recorder (the default channels, for the tests and the benchmark) -------------------

// A CSV file of the default channels of model m run by data d: hy_channels_make,
// hy_channels_select(NULL) and a hy_writer in one. Kept for callers that need no selection.
typedef struct hy_csv hy_csv;

hy_status hy_csv_open(const char* path, const hy_model* m, const hy_data* d, hy_csv** out,
                      hy_error* err);
// Appends the row of the state in d. HY_ERR_NAN (writing nothing) when a value of the row is
// not finite, HY_ERR_IO when writing fails. Nullable: err.
hy_status hy_csv_write(hy_csv* c, const hy_model* m, const hy_data* d, hy_error* err);
// Flushes and closes the file and frees the recorder (NULL is a no-op). HY_ERR_IO when an
// earlier write, the flush or the close failed.
hy_status hy_csv_close(hy_csv* c);

//----- friction parameters ---------------------------------------------------------------------

// A seal friction law and its parameters from the text of a YAML mapping, with the keys of a
// cylinder's `friction:` (docs/model-format.md), e.g. "{law: lugre, coulomb: 210, ...}": what
// `hydyn friction` reads from its command line. Their ranges are hy_model_check's. Returns
// HY_ERR_PARSE or HY_ERR_MODEL with the reason in err (nullable).
hy_status hy_io_friction_text(const char* text, hy_friction_def* out, hy_error* err);

// The parameters law p->law reads, one line each: "  key  value unit  what it is".
void hy_io_friction_write(FILE* fp, const hy_friction_def* p);

#endif  // HYDYN_SRC_IO_IO_H_
