// Signal tables of a model file: inline [t, value] tables and CSV files. Whether the times
// increase is for hy_model_check to say, the same for a table built in code.
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "io/io_yaml.h"

//----- signals -------------------------------------------------------------------------------

// A growable (t, value) table.
typedef struct table {
  double* t;
  double* v;
  int n, cap;
} table;

static void table_free(table* tb) {
  hy_free(tb->t);
  hy_free(tb->v);
  tb->t = tb->v = NULL;
  tb->n = tb->cap = 0;
}

static hy_status table_push(hy_io_loader* ld, table* tb, double t, double v) {
  if (tb->n == tb->cap) {
    if (tb->cap > (1 << 28)) return HY_FAIL(ld->err, HY_ERR_NOMEM, "signal table too large");
    int cap = tb->cap ? 2 * tb->cap : 64;
    double* nt = hy_malloc((size_t)cap * sizeof(double));
    double* nv = hy_malloc((size_t)cap * sizeof(double));
    if (!nt || !nv) {
      hy_free(nt);
      hy_free(nv);
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory reading a signal table");
    }
    if (tb->n) {
      memcpy(nt, tb->t, (size_t)tb->n * sizeof(double));
      memcpy(nv, tb->v, (size_t)tb->n * sizeof(double));
    }
    hy_free(tb->t);
    hy_free(tb->v);
    tb->t = nt, tb->v = nv, tb->cap = cap;
  }
  tb->t[tb->n] = t;
  tb->v[tb->n] = v;
  tb->n++;
  return HY_OK;
}

static hy_status read_table(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* v,
                            const hy_io_node* key, table* tb) {
  char got[96];
  if (!v || v->kind != HY_IO_SEQ || v->nkid == 0) {
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key),
                         "%s: table: expected a non-empty list of [t, value] "
                         "pairs, got %s",
                         it->where, hy_io_describe(v, got, sizeof got));
  }
  for (int i = 0; i < v->nkid; i++) {
    char label[48];
    double tv[2];
    snprintf(label, sizeof label, "table[%d]", i);
    const hy_io_node* row = v->kid[i];
    if (row->kind != HY_IO_SEQ || row->nkid != 2) {
      return HY_IO_FAIL_AT(ld, row, "%s: %s: expected a pair [t, value], got %s", it->where, label,
                           hy_io_describe(row, got, sizeof got));
    }
    HY_TRY(hy_io_get_vec(ld, it->where, label, row, NULL, 2, tv));
    HY_TRY(table_push(ld, tb, tv[0], tv[1]));
  }
  return HY_OK;
}

// Splits a CSV line into fields separated by ',', ';', blanks or tabs (blanks around a comma
// are allowed). Stores up to 3 fields; returns how many there were.
static int split_fields(const char* s, size_t len, const char* start[3], size_t flen[3],
                        size_t fcol[3]) {
  int nf = 0;
  size_t i = 0;
  for (;;) {
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i >= len) break;
    size_t b = i;
    while (i < len && s[i] != ',' && s[i] != ';' && s[i] != ' ' && s[i] != '\t') i++;
    if (nf < 3) {
      start[nf] = s + b;
      flen[nf] = i - b;
      fcol[nf] = b;
    }
    nf++;
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i < len && (s[i] == ',' || s[i] == ';')) {
      i++;
      // a trailing separator leaves an empty last field, which is an error below
      while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
      if (i >= len) {
        if (nf < 3) {
          start[nf] = s + i;
          flen[nf] = 0;
          fcol[nf] = i;
        }
        nf++;
        break;
      }
    }
  }
  return nf;
}

// A signal table from a CSV file: two numeric columns (t, value), '#' comment lines, blank
// lines and one optional header line before the data. Errors point into the CSV file.
static hy_status read_csv(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* v,
                          const hy_io_node* key, table* tb) {
  char path[2 * HY_IO_PATH_MAX];
  char got[96];
  if (!v || v->kind != HY_IO_SCALAR || hy_io_is_null(v) || strlen(v->text) != v->len) {
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s: file: expected a file name, got %s",
                         it->where, hy_io_describe(v, got, sizeof got));
  }
  const char* rel = v->text;
  int w = snprintf(path, sizeof path, "%s%s", rel[0] == '/' ? "" : ld->dir, rel);
  if (w < 0 || (size_t)w >= sizeof path) {
    return HY_IO_FAIL_AT(ld, v, "%s: file: path too long", it->where);
  }
  char* text;
  size_t size;
  const char* why;
  hy_status st = hy_io_read_file(path, &text, &size, &why);
  if (st == HY_ERR_NOMEM) return HY_FAIL(ld->err, st, "out of memory reading '%s'", path);
  if (st != HY_OK) {
    return hy_io_fail_src(ld, HY_ERR_IO, ld->path, v->line, v->col,
                          "%s: file: cannot read signal file '%s': %s", it->where, path, why);
  }
  int line = 0, header_seen = 0;
  size_t pos = 0;
  while (st == HY_OK && pos < size) {
    size_t end = pos;
    while (end < size && text[end] != '\n') end++;
    line++;
    const char* s = text + pos;
    size_t len = end - pos;
    pos = end + 1;
    if (len > 0 && s[len - 1] == '\r') len--;
    size_t k = 0;
    while (k < len && (s[k] == ' ' || s[k] == '\t')) k++;
    if (k == len || s[k] == '#') continue;
    const char* f[3];
    size_t flen[3], fcol[3];
    int nf = split_fields(s, len, f, flen, fcol);
    double tv[2];
    int ok = nf == 2;
    for (int c = 0; ok && c < 2; c++) ok = hy_io_parse_number(f[c], flen[c], &tv[c]) == 1;
    if (!ok && tb->n == 0 && !header_seen) {
      header_seen = 1;  // the first non-comment line may name the columns
      continue;
    }
    if (nf != 2) {
      st = hy_io_fail_src(ld, HY_ERR_MODEL, path, line, 1,
                          "%s: expected 2 columns (t, value), found %d", it->where, nf);
      break;
    }
    for (int c = 0; c < 2; c++) {
      int r = hy_io_parse_number(f[c], flen[c], &tv[c]);
      if (r != 1) {
        char shown[64];
        hy_io_clip(shown, sizeof shown, f[c], flen[c]);
        st = hy_io_fail_src(ld, HY_ERR_MODEL, path, line, (int)fcol[c] + 1,
                            "%s: column %d (%s): expected a number, got '%s'", it->where, c + 1,
                            c == 0 ? "t" : "value", shown);
        break;
      }
    }
    if (st != HY_OK) break;
    st = table_push(ld, tb, tv[0], tv[1]);
  }
  hy_free(text);
  if (st == HY_OK && tb->n == 0) {
    st = HY_IO_FAIL_AT(ld, v, "%s: file: signal file '%s' holds no data rows", it->where, path);
  }
  return st;
}

hy_status hy_io_load_signals(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name", "interpolation", "table", "file", NULL};
  static const char* const interps[] = {"linear", "step", NULL};
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "signals", 0, "signals", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "signals", "signal", keys, &it, &n));
    hy_signal_def d = hy_signal_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_check_unique(ld, &it, list, i, "signal"));
    d.interp = HY_INTERP_LINEAR;
    if (hy_io_map_val(n, "interpolation")) {
      int k;
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "interpolation"), interps, &k));
      d.interp = k == 0 ? HY_INTERP_LINEAR : HY_INTERP_STEP;
    }
    const hy_io_node* tab = hy_io_map_val(n, "table");
    const hy_io_node* file = hy_io_map_val(n, "file");
    if (tab && file) {
      return HY_IO_FAIL_AT(ld, hy_io_map_key(n, "file"),
                           "%s: give either 'table' or 'file', not both", it.where);
    }
    if (!tab && !file) {
      return HY_IO_FAIL_AT(ld, n,
                           "%s: key 'table' (a list of [t, value] pairs) or 'file' (a CSV "
                           "file with columns t, value) is required",
                           it.where);
    }
    table tb = {NULL, NULL, 0, 0};
    hy_status st = tab ? read_table(ld, &it, tab, hy_io_map_key(n, "table"), &tb)
                       : read_csv(ld, &it, file, hy_io_map_key(n, "file"), &tb);
    if (st == HY_OK) {
      d.npoint = tb.n;
      d.t = tb.t;
      d.value = tb.v;
      if (hy_spec_add_signal(ld->spec, &d) != HY_OK) {
        st = HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding signal '%s'", d.name);
      }
    }
    table_free(&tb);  // the spec keeps its own copy
    if (st != HY_OK) return st;
  }
  return HY_OK;
}
