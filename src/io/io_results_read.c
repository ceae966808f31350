// Reading results files back into columns (CSV here, HDF5 in io_hdf5.c) and choosing channels
// of a file by name or glob: what the commands that plot, compare and report runs work on.
// The CSV reader accepts exactly what io_csv.c writes (and RFC 4180 quoting in general): a
// header of name[unit] fields, then rows of numbers. The file is read whole and its header
// parsed in place, so the cost is one buffer for the text and one for the columns.
#define _POSIX_C_SOURCE 200809L  // open flags
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "hydyn/channels.h"
#include "io/io.h"

// The first 8 bytes of every HDF5 file hydyn writes (a file with a user block would have them
// further on, which hydyn never writes).
static const char kHdf5Signature[8] = "\x89HDF\r\n\x1a\n";

hy_status hy_results_read(const char* path, hy_results** out, hy_error* err) {
  if (!path || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_results_read: NULL argument");
  *out = NULL;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return HY_FAIL(err, HY_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  char head[sizeof kHdf5Signature];
  size_t got = 0;
  while (got < sizeof head) {
    const ssize_t k = read(fd, head + got, sizeof head - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fd);
  if (got == sizeof head && memcmp(head, kHdf5Signature, sizeof head) == 0) {
    return hy_h5_results_read(path, out, err);
  }
  return hy_csv_results_read(path, out, err);
}

void hy_results_free_selection(int* idx) { hy_free(idx); }

void hy_results_free(hy_results* r) {
  if (!r) return;
  for (int c = 0; c < r->nchan; c++) {
    if (r->name) hy_free(r->name[c]);
    if (r->unit) hy_free(r->unit[c]);
  }
  hy_free(r->name);
  hy_free(r->unit);
  hy_free(r->data);
  hy_free(r->model_text);
  hy_free(r->settings);
  hy_free(r->summary);
  hy_free(r);
}

int hy_results_find(const hy_results* r, const char* name) {
  if (!r || !name) return -1;
  for (int c = 0; c < r->nchan; c++) {
    if (strcmp(r->name[c], name) == 0) return c;
  }
  return -1;
}

//----- CSV -------------------------------------------------------------------------------------

// The whole file at path into *text (*len bytes and a terminating NUL). A file still being
// written is read as far as it is at that moment.
static hy_status read_whole(const char* path, char** text, size_t* len, hy_error* err) {
  *text = NULL;
  *len = 0;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return HY_FAIL(err, HY_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  size_t cap = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
  char* buf = hy_malloc(cap);
  size_t used = 0;
  while (buf) {
    if (used + 1 == cap) {
      // the file grew since fstat: double, so that a growing file costs amortized copies
      char* more = hy_malloc(2 * cap);
      if (more) memcpy(more, buf, used);
      hy_free(buf);
      buf = more;
      cap *= 2;
      if (!buf) break;
    }
    const ssize_t k = read(fd, buf + used, cap - 1 - used);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      const int e = errno;
      close(fd);
      hy_free(buf);
      return HY_FAIL(err, HY_ERR_IO, "cannot read '%s': %s", path, strerror(e));
    }
    if (k == 0) break;
    used += (size_t)k;
  }
  close(fd);
  if (!buf) return HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory", path);
  buf[used] = '\0';
  *text = buf;
  *len = used;
  return HY_OK;
}

// A position in the text for messages: line (1-based) and the start of that line.
typedef struct csv_pos {
  const char* path;
  long line;
  const char* line_start;
} csv_pos;

static int column_of(const csv_pos* at, const char* p) { return (int)(p - at->line_start) + 1; }

// Parses the header record at text[0..end) in place: each field unquoted and NUL-terminated,
// its start stored in (*fields)[0..*n). *next is the start of the first row.
static hy_status parse_header(char* text, const char* end, csv_pos* at, char*** fields, int* n,
                              char** next, hy_error* err) {
  if (text == end) {
    return HY_FAIL(err, HY_ERR_PARSE,
                   "'%s' is empty: a results file starts with a header line such as "
                   "time[s],z:boom[rad],...",
                   at->path);
  }
  int cap = 16, count = 0;
  char** f = hy_malloc((size_t)cap * sizeof *f);
  if (!f) return HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory", at->path);
  char* p = text;
  const char* bad = NULL;  // what was expected where parsing stopped, or NULL
  for (;;) {
    if (count == cap) {
      char** more = hy_malloc((size_t)cap * 2 * sizeof *more);
      if (!more) {
        hy_free(f);
        return HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory", at->path);
      }
      memcpy(more, f, (size_t)cap * sizeof *f);
      hy_free(f);
      f = more;
      cap *= 2;
    }
    // the unquoted text is never longer than the field, so it is written over it
    char* dst = p;
    f[count++] = p;
    if (p < end && *p == '"') {
      p++;
      while (p < end) {
        if (*p == '"' && p + 1 < end && p[1] == '"') {
          *dst++ = '"';
          p += 2;
        } else if (*p == '"') {
          break;
        } else {
          if (*p == '\n') {
            at->line++;
            at->line_start = p + 1;
          }
          *dst++ = *p++;
        }
      }
      if (p == end) break;  // no closing quote: the header was cut
      p++;
    } else {
      while (p < end && *p != ',' && *p != '\n' && *p != '\r' && *p != '"') *dst++ = *p++;
    }
    if (p == end) break;
    if (*p == '\r' && p + 1 < end && p[1] == '\n') p++;
    if (*p != ',' && *p != '\n') {
      bad =
          *p == '"' ? "a quote only around a whole field (\"a,b\")" : "',' or the end of the line";
      break;
    }
    const char sep = *p++;
    *dst = '\0';
    if (sep == '\n') {
      at->line++;
      at->line_start = p;
      *fields = f;
      *n = count;
      *next = p;
      return HY_OK;
    }
  }
  hy_free(f);
  if (bad) {
    return HY_FAIL(err, HY_ERR_PARSE, "%s:%ld:%d: expected %s", at->path, at->line,
                   column_of(at, p), bad);
  }
  return HY_FAIL(err, HY_ERR_PARSE,
                 "'%s' has no complete header line (it ends before the first line break): a "
                 "results file starts with a header line such as time[s],z:boom[rad],...",
                 at->path);
}

// Splits a header field name[unit] in place: the unit is in the last bracket pair, which must
// end the field; a field without one has the unit "".
static void split_unit(char* field, const char** unit) {
  const size_t len = strlen(field);
  *unit = "";
  if (len < 2 || field[len - 1] != ']') return;
  for (size_t k = len - 1; k-- > 0;) {
    if (field[k] == '[') {
      field[len - 1] = '\0';
      field[k] = '\0';
      *unit = field + k + 1;
      return;
    }
  }
}

// The message for a row of the wrong number of fields: the line lim ends.
static hy_status wrong_count(const csv_pos* at, const char* line, const char* lim, const char* q,
                             int nchan, hy_error* err) {
  int found = 1;
  for (const char* s = line; s < lim; s++) found += *s == ',';
  return HY_FAIL(err, HY_ERR_PARSE, "%s:%ld:%d: expected %d fields as in the header, found %d",
                 at->path, at->line, column_of(at, q), nchan, q == line && q == lim ? 0 : found);
}

// Parses the row line[0..lim) into row r of the columns (stride cap).
static hy_status parse_row(const csv_pos* at, const char* line, const char* lim, int nchan,
                           double* data, size_t cap, size_t r, hy_error* err) {
  const char* q = line;
  for (int c = 0; c < nchan; c++) {
    if (q == lim) return wrong_count(at, line, lim, q, nchan, err);
    char* e = (char*)q;
    // strtod skips white space, line breaks included: a field must start with the number
    const double v = isspace((unsigned char)*q) || *q == ',' ? 0.0 : strtod(q, &e);
    if (e == q || !isfinite(v)) {
      int len = 0;
      while (q + len < lim && q[len] != ',' && len < 24) len++;
      return HY_FAIL(err, HY_ERR_PARSE, "%s:%ld:%d: expected a %snumber, found '%.*s'", at->path,
                     at->line, column_of(at, q), e == q ? "" : "finite ", len, q);
    }
    data[(size_t)c * cap + r] = v;
    q = e;
    if (c + 1 < nchan && q < lim && *q == ',') {
      q++;
    } else if (q < lim && *q != ',') {
      return HY_FAIL(err, HY_ERR_PARSE,
                     "%s:%ld:%d: expected ',' or the end of the line after "
                     "a number, found '%c'",
                     at->path, at->line, column_of(at, q), *q);
    }
  }
  if (q != lim) return wrong_count(at, line, lim, q, nchan, err);
  return HY_OK;
}

// The rows after the header into r->data; a last line without its line break is left out.
static hy_status parse_rows(const char* p, const char* end, csv_pos* at, hy_results* r,
                            hy_error* err) {
  // every line break ends a row: their number bounds the rows, so the columns are allocated once
  size_t cap = 0;
  for (const char* s = p; (s = memchr(s, '\n', (size_t)(end - s))) != NULL; s++) cap++;
  const size_t nchan = (size_t)r->nchan;
  r->data = hy_malloc(nchan * (cap > 0 ? cap : 1) * sizeof *r->data);
  if (!r->data) {
    return HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory (%zu rows)", at->path, cap);
  }
  size_t rows = 0;
  for (;;) {
    const char* eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) break;  // the row a killed writer left half written, or the end
    const char* lim = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
    at->line_start = p;
    HY_TRY(parse_row(at, p, lim, r->nchan, r->data, cap, rows, err));
    rows++;
    at->line++;
    p = eol + 1;
  }
  // columns were laid out cap apart: close the gaps (each moves down, so in order is safe)
  for (size_t c = 1; rows < cap && c < nchan; c++) {
    memmove(r->data + c * rows, r->data + c * cap, rows * sizeof *r->data);
  }
  r->nrow = (long)rows;
  return HY_OK;
}

static char* copy_text(const char* s) {
  char* c = hy_malloc(strlen(s) + 1);
  if (c) strcpy(c, s);
  return c;
}

hy_status hy_csv_results_read(const char* path, hy_results** out, hy_error* err) {
  if (!path || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_csv_results_read: NULL argument");
  *out = NULL;
  char* text;
  size_t len;
  HY_TRY(read_whole(path, &text, &len, err));
  csv_pos at = {path, 1, text};
  char** fields = NULL;
  int n = 0;
  char* rows = NULL;
  hy_status st = parse_header(text, text + len, &at, &fields, &n, &rows, err);
  hy_results* r = NULL;
  if (st == HY_OK) {
    r = hy_calloc(1, sizeof *r);
    if (r) {
      r->nchan = n;
      r->name = hy_calloc((size_t)n, sizeof *r->name);
      r->unit = hy_calloc((size_t)n, sizeof *r->unit);
    }
    if (!r || !r->name || !r->unit)
      st = HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory", path);
  }
  for (int c = 0; st == HY_OK && c < n; c++) {
    const char* unit;
    split_unit(fields[c], &unit);
    r->name[c] = copy_text(fields[c]);
    r->unit[c] = copy_text(unit);
    if (!r->name[c] || !r->unit[c])
      st = HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory", path);
  }
  if (st == HY_OK) {
    snprintf(r->path, sizeof r->path, "%s", path);
    st = parse_rows(rows, text + len, &at, r, err);
  }
  hy_free(fields);
  hy_free(text);
  if (st != HY_OK) {
    hy_results_free(r);
    return st;
  }
  *out = r;
  return HY_OK;
}

//----- choosing channels -----------------------------------------------------------------------

// The distinct prefixes of the file's channels after time ("p:*, z:*, E_kin, ..."), in file
// order, for a message.
static void list_prefixes(const hy_results* r, char* buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 1; i < r->nchan; i++) {
    const char* name = r->name[i];
    const char* colon = strchr(name, ':');
    const size_t len = colon ? (size_t)(colon - name + 1) : strlen(name);
    int seen = 0;
    for (int k = 1; k < i && !seen; k++) {
      seen = strncmp(r->name[k], name, len) == 0 && (colon || r->name[k][len] == '\0');
    }
    if (seen) continue;
    const int w = snprintf(buf + used, size - used, "%s%.*s%s", used ? ", " : "", (int)len, name,
                           colon ? "*" : "");
    if (w < 0 || (size_t)w >= size - used) {
      // cut at the last whole entry
      snprintf(buf + used, size - used, "%s", used && size - used > 6 ? ", ..." : "");
      return;
    }
    used += (size_t)w;
  }
}

hy_status hy_results_select(const hy_results* r, const char* spec, int** idx, int* n,
                            hy_error* err) {
  if (!r || !idx || !n) return HY_FAIL(err, HY_ERR_ARG, "hy_results_select: NULL argument");
  *idx = NULL;
  *n = 0;
  int* sel = hy_malloc(((size_t)r->nchan + 1) * sizeof *sel);
  char* taken = hy_calloc((size_t)r->nchan + 1, 1);
  if (!sel || !taken) {
    hy_free(sel);
    hy_free(taken);
    return HY_FAIL(err, HY_ERR_NOMEM, "choosing channels: out of memory");
  }
  // column 0 is time, the abscissa of every other channel: never selected
  taken[0] = 1;
  int count = 0;
  // no selection: the whole file, which holds what its run chose to record
  const char* p = spec && spec[0] ? spec : "all";
  while (*p) {
    const char* comma = strchr(p, ',');
    const size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char pattern[HY_CHANNEL_NAME_MAX + 8];
    if (len == 0 || len >= sizeof pattern) {
      hy_free(sel);
      hy_free(taken);
      return len ? HY_FAIL(err, HY_ERR_ARG, "channel pattern '%.40s...' is too long", p)
                 : HY_FAIL(err, HY_ERR_ARG, "empty channel pattern in '%s'", spec);
    }
    memcpy(pattern, p, len);
    pattern[len] = '\0';
    const int all = strcmp(pattern, "all") == 0;
    int matched = 0;
    for (int c = 0; c < r->nchan; c++) {
      if (!all && !hy_channel_match(pattern, r->name[c])) continue;
      matched = 1;  // time too: naming it is no mistake, it is just never a column of its own
      if (!taken[c]) {
        taken[c] = 1;
        sel[count++] = c;
      }
    }
    if (!matched) {
      char prefixes[400];
      list_prefixes(r, prefixes, sizeof prefixes);
      hy_free(sel);
      hy_free(taken);
      return HY_FAIL(err, HY_ERR_ARG, "no channel of '%s' matches '%s' (the file has %s)", r->path,
                     pattern, prefixes[0] ? prefixes : "no channel but time");
    }
    p += len;
    if (*p == ',') p++;
  }
  hy_free(taken);
  *idx = sel;
  *n = count;
  return HY_OK;
}
