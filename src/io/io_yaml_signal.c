// Signals of a model file: inline [t, value] tables, CSV files and the kinds given by
// parameters and other signals (step, ramp, sine, ...). Whether the times increase, the values
// lie in their ranges and the references exist is for hy_model_compile and hy_model_check to
// say, the same for a signal built in code.
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "io/io_yaml.h"
#include "model/model.h"

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

//----- the kinds given by parameters ------------------------------------------------------------

// Names of the signals a signal refers to, kept until hy_spec_add_signal copies them.
typedef struct refs {
  char (*name)[HY_NAME_MAX];
  const char** ptr;
  int n;
} refs;

static void refs_free(refs* r) {
  hy_free(r->name);
  hy_free(r->ptr);
  r->name = NULL;
  r->ptr = NULL;
  r->n = 0;
}

static hy_status refs_alloc(hy_io_loader* ld, refs* r, int n) {
  r->name = hy_malloc((size_t)n * sizeof *r->name);
  r->ptr = hy_malloc((size_t)n * sizeof *r->ptr);
  if (!r->name || !r->ptr) {
    refs_free(r);
    return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory reading a signal");
  }
  r->n = n;
  for (int i = 0; i < n; i++) r->ptr[i] = r->name[i];
  return HY_OK;
}

// One name (one_minus: a, a parameter mapping's signal: a) into r.
static hy_status read_ref(hy_io_loader* ld, const char* where, const char* label,
                          const hy_io_node* v, const hy_io_node* key, refs* r) {
  HY_TRY(refs_alloc(ld, r, 1));
  return hy_io_get_name(ld, where, label, v, key, r->name[0]);
}

// sum: [a, b, ...], product: [a, b, ...]: a non-empty list of names.
static hy_status read_ref_list(hy_io_loader* ld, const hy_io_item* it, const char* kind,
                               const hy_io_node* v, const hy_io_node* key, refs* r) {
  if (!v || v->kind != HY_IO_SEQ || v->nkid == 0) {
    char got[96];
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key),
                         "%s: %s: expected a non-empty list of signal names, got %s", it->where,
                         kind, hy_io_describe(v, got, sizeof got));
  }
  HY_TRY(refs_alloc(ld, r, v->nkid));
  for (int i = 0; i < v->nkid; i++) {
    char label[48];
    snprintf(label, sizeof label, "%s[%d]", kind, i);
    HY_TRY(hy_io_get_name(ld, it->where, label, v->kid[i], NULL, r->name[i]));
  }
  return HY_OK;
}

// `kind: {key: value, ...}`: the parameters of the kind's table (model_signal.c) and the signal it
// refers to under its arg_key, into d and r.
static hy_status read_params(hy_io_loader* ld, const hy_io_item* it, hy_signal_kind kind,
                             const hy_io_node* v, const hy_io_node* key, hy_signal_def* d,
                             refs* r) {
  const hy_signal_kind_info* info = hy_model_signal_kind(kind);
  const char* name = hy_signal_kind_name(kind);
  const char* keys[HY_SIGNAL_NPAR + 2];
  int nk = 0;
  if (info->arg_key) keys[nk++] = info->arg_key;
  for (int i = 0; i < info->npar; i++) keys[nk++] = info->par[i].key;
  keys[nk] = NULL;
  char got[96], expected[160];
  if (!v || v->kind != HY_IO_MAP) {
    hy_io_join_names(expected, sizeof expected, keys);
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s: %s: expected a mapping with keys %s, got %s",
                         it->where, name, expected, hy_io_describe(v, got, sizeof got));
  }
  // messages from inside the mapping name it after the item; a long prefix is cut, which only
  // shortens them
  hy_io_item sub;
  if (snprintf(sub.where, sizeof sub.where, "%s: %s", it->where, name) < 0) sub.where[0] = 0;
  if (snprintf(sub.what, sizeof sub.what, "'%s' of %s", name, it->what) < 0) sub.what[0] = 0;
  HY_TRY(hy_io_check_keys(ld, v, keys, sub.what));
  if (info->arg_key) {
    const hy_io_node* a = hy_io_map_val(v, info->arg_key);
    if (!a && info->min_arg > 0) {
      return hy_io_require(ld, &sub, v, info->arg_key, "the name of a signal");
    }
    if (a) HY_TRY(read_ref(ld, sub.where, info->arg_key, a, hy_io_map_key(v, info->arg_key), r));
  }
  for (int i = 0; i < info->npar; i++) {
    const hy_signal_par_info* pi = &info->par[i];
    char expect[64];
    snprintf(expect, sizeof expect, "a number, %s", pi->unit);
    if (pi->required) HY_TRY(hy_io_require(ld, &sub, v, pi->key, expect));
    if (!hy_io_map_val(v, pi->key)) continue;
    double* field = (double*)(void*)((char*)d + pi->offset);
    HY_TRY(hy_io_get_number(ld, sub.where, HY_IO_KEY(v, pi->key), field));
  }
  return HY_OK;
}

// The kind of signal item n: the one kind key it has (table and file are both tables). A second
// one is reported at its key, in the order of the file.
static hy_status find_kind(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                           const hy_io_node** kind_key, hy_signal_kind* kind) {
  *kind_key = NULL;
  for (int i = 0; i + 1 < n->nkid; i += 2) {
    const hy_io_node* key = n->kid[i];  // a known key (hy_io_list_item checked them)
    hy_signal_kind k = HY_SIGNAL_TABLE;
    if (strcmp(key->text, "file") != 0 && hy_signal_kind_parse(key->text, &k) != HY_OK) continue;
    if (*kind_key) {
      return HY_IO_FAIL_AT(ld, key,
                           "%s: give one of 'table', 'file', 'step', 'ramp', 'sine', 'periodic', "
                           "'sum', 'product', 'scale', 'one_minus', 'clamp', not both '%s' and "
                           "'%s'",
                           it->where, (*kind_key)->text, key->text);
    }
    *kind_key = key;
    *kind = k;
  }
  if (!*kind_key) {
    return HY_IO_FAIL_AT(ld, n,
                         "%s: key 'table' (a list of [t, value] pairs), 'file' (a CSV file with "
                         "columns t, value) or one of the kinds 'step', 'ramp', 'sine', "
                         "'periodic', 'sum', 'product', 'scale', 'one_minus', 'clamp' is required",
                         it->where);
  }
  return HY_OK;
}

hy_status hy_io_load_signals(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name",  "interpolation", "table",    "file", "step",
                                     "ramp",  "sine",          "periodic", "sum",  "product",
                                     "scale", "one_minus",     "clamp",    NULL};
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
    const hy_io_node* kk;
    HY_TRY(find_kind(ld, &it, n, &kk, &d.kind));
    const char* kind_key = kk->text;
    const hy_io_node* kv = hy_io_map_val(n, kind_key);
    d.interp = HY_INTERP_LINEAR;
    if (hy_io_map_val(n, "interpolation")) {
      if (d.kind != HY_SIGNAL_TABLE) {
        return HY_IO_FAIL_AT(ld, hy_io_map_key(n, "interpolation"),
                             "%s: 'interpolation' applies to a 'table' or 'file' only, not to "
                             "'%s'",
                             it.where, kind_key);
      }
      int k;
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "interpolation"), interps, &k));
      d.interp = k == 0 ? HY_INTERP_LINEAR : HY_INTERP_STEP;
    }
    table tb = {NULL, NULL, 0, 0};
    refs r = {NULL, NULL, 0};
    hy_status st = HY_OK;
    switch (d.kind) {
      case HY_SIGNAL_TABLE:
        st = strcmp(kind_key, "table") == 0 ? read_table(ld, &it, kv, kk, &tb)
                                            : read_csv(ld, &it, kv, kk, &tb);
        break;
      case HY_SIGNAL_SUM:
      case HY_SIGNAL_PRODUCT:
        st = read_ref_list(ld, &it, kind_key, kv, kk, &r);
        break;
      case HY_SIGNAL_ONE_MINUS:
        st = read_ref(ld, it.where, kind_key, kv, kk, &r);
        break;
      default:
        st = read_params(ld, &it, d.kind, kv, kk, &d, &r);
        break;
    }
    if (st == HY_OK) {
      d.npoint = tb.n;
      d.t = tb.t;
      d.value = tb.v;
      d.narg = r.n;
      d.arg = r.ptr;
      if (hy_spec_add_signal(ld->spec, &d) != HY_OK) {
        st = HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding signal '%s'", d.name);
      }
    }
    table_free(&tb);  // the spec keeps its own copies
    refs_free(&r);
    if (st != HY_OK) return st;
  }
  return HY_OK;
}
