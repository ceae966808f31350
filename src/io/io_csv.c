// CSV results: a header naming every channel with its unit, then one row per recorded step.
// Rows are formatted in memory and handed to write(2) whole, so a run stopped at any moment (a
// signal, a failed step, a full disk) leaves a file of whole rows; the file is locked while it
// is written, so a second run writing it is refused instead of interleaving its rows.
#define _DEFAULT_SOURCE  // flock
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/core.h"
#include "hydyn/channels.h"
#include "io/io.h"

// Bytes buffered before a write: rows are written once this much or HY_RESULTS_FLUSH_ROWS rows
// are waiting, whichever comes first.
enum { CSV_BUFFER = 1 << 16, CSV_ROW_MAX = 32 };  // CSV_ROW_MAX: bytes per value at most

struct hy_csv_writer {
  int fd;
  int is_stdout;  // "-": standard output, never closed nor locked
  int n;          // values per row
  char** names;   // for messages (copied)
  char* buf;      // rows not yet written
  size_t used, cap;
  long pending;   // rows in buf
  int failed;     // errno of a failed write, reported again at close
};

// Writes all of buf[0..len) to fd; -1 with errno set when that fails.
static int write_all(int fd, const char* buf, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, buf, len);
    if (w < 0 && errno == EINTR) continue;  // a signal the run handles: go on writing
    if (w <= 0) return -1;
    buf += w;
    len -= (size_t)w;
  }
  return 0;
}

static int flush_rows(hy_csv_writer* w) {
  if (w->used == 0) return 0;
  if (write_all(w->fd, w->buf, w->used)) {
    w->failed = errno ? errno : EIO;
    return -1;
  }
  w->used = 0;
  w->pending = 0;
  return 0;
}

// Appends text to the buffer (the caller made room).
static void put(hy_csv_writer* w, const char* s, size_t len) {
  memcpy(w->buf + w->used, s, len);
  w->used += len;
}

// One header field: name[unit], or name for a unit "", quoted when it holds a separator, a
// quote or a line break (element names come from model files and may hold anything).
static size_t header_field(char* out, const char* name, const char* unit) {
  char plain[HY_CHANNEL_NAME_MAX + 24];
  snprintf(plain, sizeof plain, unit[0] ? "%s[%s]" : "%s", name, unit);
  if (!strpbrk(plain, ",\"\r\n")) {
    strcpy(out, plain);
    return strlen(plain);
  }
  size_t k = 0;
  out[k++] = '"';
  for (const char* p = plain; *p; p++) {
    if (*p == '"') out[k++] = '"';
    out[k++] = *p;
  }
  out[k++] = '"';
  out[k] = '\0';
  return k;
}

static void writer_free(hy_csv_writer* w) {
  if (!w) return;
  if (w->names) {
    for (int i = 0; i < w->n; i++) hy_free(w->names[i]);
  }
  hy_free(w->names);
  hy_free(w->buf);
  hy_free(w);
}

hy_status hy_csv_writer_open(const char* path, int n, const char* const* names,
                             const char* const* units, hy_csv_writer** out, hy_error* err) {
  if (!path || n < 1 || !names || !units || !out) {
    return HY_FAIL(err, HY_ERR_ARG, "CSV writer: invalid argument");
  }
  *out = NULL;
  hy_csv_writer* w = hy_calloc(1, sizeof *w);
  if (!w) return HY_FAIL(err, HY_ERR_NOMEM, "CSV writer: out of memory");
  w->n = n;
  w->fd = -1;
  w->cap = CSV_BUFFER + (size_t)n * (2 * HY_CHANNEL_NAME_MAX + 48);
  w->buf = hy_malloc(w->cap);
  w->names = hy_calloc((size_t)n, sizeof *w->names);
  if (!w->buf || !w->names) {
    writer_free(w);
    return HY_FAIL(err, HY_ERR_NOMEM, "CSV writer: out of memory");
  }
  for (int i = 0; i < n; i++) {
    w->names[i] = hy_malloc(strlen(names[i]) + 1);
    if (!w->names[i]) {
      writer_free(w);
      return HY_FAIL(err, HY_ERR_NOMEM, "CSV writer: out of memory");
    }
    strcpy(w->names[i], names[i]);
  }
  w->is_stdout = strcmp(path, "-") == 0;
  if (w->is_stdout) {
    fflush(stdout);  // whatever stdio holds goes before the rows
    w->fd = STDOUT_FILENO;
  } else {
    // not truncated before the lock is held: a second run must not empty the first one's file
    w->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (w->fd < 0) {
      int e = errno;
      writer_free(w);
      return HY_FAIL(err, HY_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(e));
    }
    if (flock(w->fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      close(w->fd);
      writer_free(w);
      if (e == EWOULDBLOCK) {
        return HY_FAIL(err, HY_ERR_IO,
                       "another process is writing '%s': choose another --out (the file was "
                       "left as it is)",
                       path);
      }
      return HY_FAIL(err, HY_ERR_IO, "cannot lock '%s': %s", path, strerror(e));
    }
    if (ftruncate(w->fd, 0) != 0) {
      int e = errno;
      close(w->fd);
      writer_free(w);
      return HY_FAIL(err, HY_ERR_IO, "cannot truncate '%s': %s", path, strerror(e));
    }
  }
  for (int i = 0; i < n; i++) {
    char field[4 * HY_CHANNEL_NAME_MAX];
    if (i) put(w, ",", 1);
    put(w, field, header_field(field, names[i], units[i]));
  }
  put(w, "\n", 1);
  // The header is written at once so that even a run failing at its first step leaves a file
  // that says what it would have held.
  if (flush_rows(w)) {
    int e = w->failed;
    if (!w->is_stdout) close(w->fd);
    writer_free(w);
    return HY_FAIL(err, HY_ERR_IO, "cannot write '%s': %s", path, strerror(e));
  }
  *out = w;
  return HY_OK;
}

hy_status hy_csv_writer_row(hy_csv_writer* w, const double* row, hy_error* err) {
  if (!w || !row) return HY_FAIL(err, HY_ERR_ARG, "CSV writer: NULL argument");
  for (int i = 0; i < w->n; i++) {
    if (!isfinite(row[i])) {
      return HY_FAIL(err, HY_ERR_NAN,
                     "%s is not finite at t = %.9g s: the row is not written", w->names[i],
                     row[0]);
    }
  }
  if (w->cap - w->used < (size_t)w->n * CSV_ROW_MAX + 2 && flush_rows(w)) {
    return HY_FAIL(err, HY_ERR_IO, "writing the CSV failed: %s", strerror(w->failed));
  }
  // %.17g: the shortest fixed precision that round-trips every double, so the file can serve as
  // a reference trajectory without loss (at most 24 characters)
  for (int i = 0; i < w->n; i++) {
    int len = snprintf(w->buf + w->used, CSV_ROW_MAX, i ? ",%.17g" : "%.17g", row[i]);
    w->used += (size_t)len;
  }
  w->buf[w->used++] = '\n';
  if ((++w->pending >= HY_RESULTS_FLUSH_ROWS || w->used >= CSV_BUFFER) && flush_rows(w)) {
    return HY_FAIL(err, HY_ERR_IO, "writing the CSV failed: %s", strerror(w->failed));
  }
  return HY_OK;
}

hy_status hy_csv_writer_close(hy_csv_writer* w, hy_error* err) {
  if (!w) return HY_OK;
  flush_rows(w);
  int e = w->failed;
  if (!w->is_stdout && close(w->fd) != 0 && !e) e = errno;
  writer_free(w);
  if (e) return HY_FAIL(err, HY_ERR_IO, "writing the CSV failed: %s", strerror(e));
  return HY_OK;
}

//----- the default channels of a run, in one call ----------------------------------------------

struct hy_csv {
  hy_channels* ch;
  int* sel;
  int n;
  double* row;
  hy_writer* w;
  const hy_data* d;  // the data the channels point into
};

hy_status hy_csv_open(const char* path, const hy_model* m, const hy_data* d, hy_csv** out,
                      hy_error* err) {
  if (!path || !m || !d || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_csv_open: NULL argument");
  *out = NULL;
  hy_csv* c = hy_calloc(1, sizeof *c);
  if (!c) return HY_FAIL(err, HY_ERR_NOMEM, "CSV recorder: out of memory");
  c->d = d;
  hy_status st = hy_channels_make(m, d, &c->ch, err);
  if (st == HY_OK) st = hy_channels_select(c->ch, NULL, &c->sel, &c->n, err);
  const char** names = NULL;
  const char** units = NULL;
  if (st == HY_OK) {
    c->row = hy_calloc((size_t)c->n, sizeof *c->row);
    names = hy_calloc((size_t)c->n, sizeof *names);
    units = hy_calloc((size_t)c->n, sizeof *units);
    if (!c->row || !names || !units) st = HY_FAIL(err, HY_ERR_NOMEM, "CSV recorder: out of memory");
  }
  if (st == HY_OK) {
    for (int i = 0; i < c->n; i++) {
      names[i] = c->ch->ch[c->sel[i]].name;
      units[i] = c->ch->ch[c->sel[i]].unit;
    }
    if (hy_results_format_of(path) != HY_RESULTS_CSV) {
      st = HY_FAIL(err, HY_ERR_ARG, "CSV recorder: '%s' is not a CSV file name", path);
    } else {
      st = hy_writer_open(path, c->n, names, units, NULL, &c->w, err);
    }
  }
  hy_free(names);
  hy_free(units);
  if (st != HY_OK) {
    hy_csv_close(c);
    return st;
  }
  *out = c;
  return HY_OK;
}

hy_status hy_csv_write(hy_csv* c, const hy_model* m, const hy_data* d, hy_error* err) {
  if (!c || !m || !d || d != c->d) {
    return HY_FAIL(err, HY_ERR_ARG, "CSV recorder: the data is not the one of the file");
  }
  hy_channels_eval(c->ch, d, c->sel, c->n, c->row);
  return hy_writer_row(c->w, c->row, err);
}

hy_status hy_csv_close(hy_csv* c) {
  if (!c) return HY_OK;
  hy_status st = hy_writer_close(c->w, NULL, NULL);
  hy_free(c->row);
  hy_channels_free_selection(c->sel);
  hy_channels_free(c->ch);
  hy_free(c);
  return st;
}
