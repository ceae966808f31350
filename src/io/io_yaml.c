// YAML model files -> hy_spec -> hy_model (format: docs/model-format.md). The only file that
// includes <yaml.h>.
//
// libyaml's event stream is first turned into a small node tree in which every node keeps its
// start mark. The walker can then look keys up in any order and still report a semantic error
// at the line and column of the offending node. Aliases are rejected and nesting is capped, so
// no input can make the tree cyclic or the recursion over it deep. All memory goes through
// hy_malloc/hy_free, so the allocator hook sees (and tests can count) every block.
// stat() is POSIX, outside strict C11
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "core/core.h"
#include "hydyn/model.h"
#include "hydyn/names.h"
#include "io/io_builtin.h"

// The format needs seven levels (top, hydraulics, circuits, circuit, cylinders, cylinder,
// end_damper; or top, list, element, inertia form, rod); anything much deeper
// is not a model, and the cap keeps the recursive walk and free bounded.
#define MAX_DEPTH 32
// Paths of model and signal files, as stored in hy_error.src_path and a little more.
#define PATH_MAX_ 512
// Files larger than this are not model files; refusing them avoids a pointless huge allocation.
#define MAX_FILE_BYTES ((size_t)64 << 20)

static const double kDeg = 3.14159265358979323846 / 180.0;

//----- node tree -----------------------------------------------------------------------------

typedef enum node_kind { NODE_SCALAR, NODE_SEQ, NODE_MAP } node_kind;

typedef struct node {
  node_kind kind;
  int line, col;      // start mark, 1-based
  int plain;          // scalar written without quotes: only those can be numbers or null
  char* text;         // scalar text, NUL-terminated (NULL for containers)
  size_t len;         // bytes of text (an escape such as "\0" can put a NUL inside)
  struct node** kid;  // sequence: items; mapping: key, value, key, value, ...
  int nkid, cap;
} node;

static void node_free(node* n) {
  if (!n) return;
  for (int i = 0; i < n->nkid; i++) node_free(n->kid[i]);
  hy_free(n->kid);
  hy_free(n->text);
  hy_free(n);
}

static int clamp_int(size_t v) { return v > 0x7fffffff ? 0x7fffffff : (int)v; }

static node* node_new(node_kind kind, const yaml_mark_t* mark) {
  node* n = hy_calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->line = clamp_int(mark->line) + 1;
  n->col = clamp_int(mark->column) + 1;
  return n;
}

static hy_status node_append(node* parent, node* child) {
  if (parent->nkid == parent->cap) {
    int cap = parent->cap ? 2 * parent->cap : 8;
    node** kid = hy_malloc((size_t)cap * sizeof *kid);
    if (!kid) return HY_ERR_NOMEM;
    if (parent->nkid) memcpy(kid, parent->kid, (size_t)parent->nkid * sizeof *kid);
    hy_free(parent->kid);
    parent->kid = kid;
    parent->cap = cap;
  }
  parent->kid[parent->nkid++] = child;
  return HY_OK;
}

// YAML 1.1 null: an empty plain scalar or one of the null words.
static int is_null(const node* n) {
  if (!n) return 1;
  if (n->kind != NODE_SCALAR || !n->plain) return 0;
  return n->len == 0 || strcmp(n->text, "~") == 0 || strcmp(n->text, "null") == 0 ||
         strcmp(n->text, "Null") == 0 || strcmp(n->text, "NULL") == 0;
}

//----- loader state and messages -------------------------------------------------------------

typedef struct loader {
  const char* path;     // model file name for messages
  char dir[PATH_MAX_];  // its folder with a trailing '/', "" for the working directory
  hy_error* err;
  hy_spec* spec;
} loader;

// One element of a list section (or a single section such as solver), named in messages.
typedef struct item {
  char where[160];  // prefix of value errors: "bodies[1] 'link2'"
  char what[160];   // subject of key errors: "body 'link2'"
} item;

static hy_status fail_src(loader* ld, hy_status code, const char* path, int line, int col,
                          const char* fmt, ...) __attribute__((format(printf, 6, 7)));
static hy_status fail_src(loader* ld, hy_status code, const char* path, int line, int col,
                          const char* fmt, ...) {
  char msg[480];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hy_error_set_src(ld->err, code, path, line, col, "%s", msg);
}

// A model error at node `at` of the model file.
#define FAIL_AT(ld, at, ...) \
  fail_src((ld), HY_ERR_MODEL, (ld)->path, (at)->line, (at)->col, __VA_ARGS__)

// Copies at most `size`-1 bytes of text for a message, with control bytes shown as '?' and
// an ellipsis when cut, so a hostile scalar cannot garble or flood the message.
static void clip(char* buf, size_t size, const char* text, size_t len) {
  size_t keep = len;
  const size_t room = size - 4;
  if (keep > room) keep = room;
  size_t j = 0;
  for (size_t i = 0; i < keep; i++) {
    unsigned char c = (unsigned char)text[i];
    buf[j++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
  }
  if (keep < len) {
    memcpy(buf + j, "...", 3);
    j += 3;
  }
  buf[j] = 0;
}

// "nothing", "a list of 2", "a mapping", "'abc'" or "the quoted string \"1.5\"".
static const char* describe(const node* n, char* buf, size_t size) {
  if (is_null(n)) return "nothing";
  if (n->kind == NODE_SEQ) {
    snprintf(buf, size, "a list of %d", n->nkid);
    return buf;
  }
  if (n->kind == NODE_MAP) return "a mapping";
  char text[64];
  clip(text, sizeof text, n->text, n->len);
  if (n->plain) {
    snprintf(buf, size, "'%s'", text);
  } else {
    snprintf(buf, size, "the quoted string \"%s\"", text);
  }
  return buf;
}

// Errors about a value point at the value, except when it is empty: libyaml places an empty
// value at the next token (often the following line), so the key is the better place then.
static const node* place(const node* val, const node* key) {
  if (val && !(val->kind == NODE_SCALAR && val->len == 0 && val->plain)) return val;
  return key ? key : val;
}

//----- mappings ------------------------------------------------------------------------------

// Index of `key` in mapping n (pair index), or -1.
static int map_find(const node* n, const char* key) {
  if (!n || n->kind != NODE_MAP) return -1;
  for (int i = 0; i + 1 < n->nkid; i += 2) {
    const node* k = n->kid[i];
    if (k->kind == NODE_SCALAR && strlen(k->text) == k->len && strcmp(k->text, key) == 0) {
      return i / 2;
    }
  }
  return -1;
}

static const node* map_val(const node* n, const char* key) {
  int i = map_find(n, key);
  return i < 0 ? NULL : n->kid[2 * i + 1];
}

static const node* map_key(const node* n, const char* key) {
  int i = map_find(n, key);
  return i < 0 ? NULL : n->kid[2 * i];
}

// The (label, value node, key node) arguments of the get_* readers for `key` of `map`: the key
// names the value in messages and its node places errors when the value is missing.
#define KEY(map, key) (key), map_val((map), (key)), map_key((map), (key))

static void join_names(char* buf, size_t size, const char* const* names) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; names[i]; i++) {
    int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
    if (w < 0 || (size_t)w >= size - used) break;
    used += (size_t)w;
  }
}

// Every key of `map` must be a plain name listed in `allowed` (NULL-terminated) and appear once.
// `what` names the mapping in messages ("body 'link2'").
static hy_status check_keys(loader* ld, const node* map, const char* const* allowed,
                            const char* what) {
  char expected[256];
  join_names(expected, sizeof expected, allowed);
  for (int i = 0; i + 1 < map->nkid; i += 2) {
    const node* k = map->kid[i];
    char got[96];
    if (k->kind != NODE_SCALAR || is_null(k)) {
      return FAIL_AT(ld, k, "expected a key name in %s, got %s (expected one of: %s)", what,
                     describe(k, got, sizeof got), expected);
    }
    int known = 0;
    for (int a = 0; allowed[a]; a++) {
      if (strlen(k->text) == k->len && strcmp(k->text, allowed[a]) == 0) known = 1;
    }
    if (!known) {
      char name[64];
      clip(name, sizeof name, k->text, k->len);
      return FAIL_AT(ld, k, "unknown key '%s' in %s (expected one of: %s)", name, what, expected);
    }
    // Only known keys reach this loop, so it runs at most once per allowed key before a
    // duplicate is found: linear in the size of the mapping.
    for (int j = 0; j < i; j += 2) {
      const node* prev = map->kid[j];
      if (strcmp(prev->text, k->text) == 0) {
        return FAIL_AT(ld, k, "duplicate key '%s' in %s (first given at line %d, column %d)",
                       k->text, what, prev->line, prev->col);
      }
    }
  }
  return HY_OK;
}

//----- scalar values -------------------------------------------------------------------------

// Parses a decimal number: [+-] digits [. digits] [(e|E) [+-] digits], or with the digits only
// after the point. Returns 1 on success, 0 if it is not a number, -1 if it overflows.
static int parse_number_text(const char* s, size_t len, double* out) {
  size_t i = 0, nd = 0;
  if (len == 0 || len > 100) return 0;
  if (s[i] == '+' || s[i] == '-') i++;
  while (i < len && s[i] >= '0' && s[i] <= '9') i++, nd++;
  if (i < len && s[i] == '.') {
    i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, nd++;
  }
  if (nd == 0) return 0;
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    size_t ne = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, ne++;
    if (ne == 0) return 0;
  }
  if (i != len) return 0;
  // strtod follows LC_NUMERIC; a host program may have set a locale with a decimal comma, so
  // the file's '.' is swapped for the locale's point before converting.
  const char* point = localeconv()->decimal_point;
  size_t plen = (point && point[0]) ? strlen(point) : 1;
  char buf[160];
  size_t j = 0;
  for (size_t k = 0; k < len && j + plen + 1 < sizeof buf; k++) {
    if (s[k] == '.' && point && point[0]) {
      memcpy(buf + j, point, plen);
      j += plen;
    } else {
      buf[j++] = s[k];
    }
  }
  buf[j] = 0;
  char* end = NULL;
  double v = strtod(buf, &end);
  if (end != buf + j) return 0;
  if (!isfinite(v)) return -1;
  *out = v;
  return 1;
}

// Value `v` (under `key`, nullable) as a finite number; `label` names it in messages.
static hy_status get_number(loader* ld, const char* where, const char* label, const node* v,
                            const node* key, double* out) {
  char got[96];
  const char* sep = where[0] ? ": " : "";
  int r = 0;
  if (v && v->kind == NODE_SCALAR && v->plain) r = parse_number_text(v->text, v->len, out);
  if (r == 1) return HY_OK;
  const node* at = place(v, key);
  if (r < 0) {
    return FAIL_AT(ld, at, "%s%s%s: number %s is out of range", where, sep, label,
                   describe(v, got, sizeof got));
  }
  return FAIL_AT(ld, at, "%s%s%s: expected a number, got %s", where, sep, label,
                 describe(v, got, sizeof got));
}

// As get_number, and the value must be > 0 (or >= 0 when allow_zero). `unit` ends the message.
static hy_status get_positive(loader* ld, const char* where, const char* label, const node* v,
                              const node* key, int allow_zero, const char* unit, double* out) {
  HY_TRY(get_number(ld, where, label, v, key, out));
  if (*out > 0 || (allow_zero && *out == 0)) return HY_OK;
  char got[96];
  return FAIL_AT(ld, place(v, key), "%s%s%s: expected a %s number (%s), got %s", where,
                 where[0] ? ": " : "", label, allow_zero ? "non-negative" : "positive", unit,
                 describe(v, got, sizeof got));
}

// A list of exactly n numbers.
static hy_status get_vec(loader* ld, const char* where, const char* label, const node* v,
                         const node* key, int n, double* out) {
  const char* sep = where[0] ? ": " : "";
  if (!v || v->kind != NODE_SEQ || v->nkid != n) {
    char got[96];
    return FAIL_AT(ld, place(v, key), "%s%s%s: expected a list of %d numbers, got %s", where, sep,
                   label, n, describe(v, got, sizeof got));
  }
  for (int i = 0; i < n; i++) {
    char elem[96];
    snprintf(elem, sizeof elem, "%s[%d]", label, i);
    HY_TRY(get_number(ld, where, elem, v->kid[i], NULL, &out[i]));
  }
  return HY_OK;
}

// A scalar used as a name: non-empty, no NUL inside, shorter than HY_NAME_MAX.
static hy_status get_name(loader* ld, const char* where, const char* label, const node* v,
                          const node* key, char out[HY_NAME_MAX]) {
  const char* sep = where[0] ? ": " : "";
  char got[96];
  if (!v || v->kind != NODE_SCALAR || is_null(v) || v->len == 0) {
    return FAIL_AT(ld, place(v, key), "%s%s%s: expected a name, got %s", where, sep, label,
                   describe(v, got, sizeof got));
  }
  if (strlen(v->text) != v->len) {
    return FAIL_AT(ld, v, "%s%s%s: a name cannot contain a NUL character", where, sep, label);
  }
  if (v->len >= HY_NAME_MAX) {
    return FAIL_AT(ld, v, "%s%s%s: name %s is too long (at most %d bytes)", where, sep, label,
                   describe(v, got, sizeof got), HY_NAME_MAX - 1);
  }
  memcpy(out, v->text, v->len + 1);
  return HY_OK;
}

// One of the words in `names` (NULL-terminated); *out is its index.
static hy_status get_enum(loader* ld, const char* where, const char* label, const node* v,
                          const node* key, const char* const* names, int* out) {
  if (v && v->kind == NODE_SCALAR && strlen(v->text) == v->len) {
    for (int i = 0; names[i]; i++) {
      if (strcmp(v->text, names[i]) == 0) {
        *out = i;
        return HY_OK;
      }
    }
  }
  char expected[160], got[96];
  join_names(expected, sizeof expected, names);
  return FAIL_AT(ld, place(v, key), "%s%s%s: expected one of: %s; got %s", where,
                 where[0] ? ": " : "", label, expected, describe(v, got, sizeof got));
}

// A required key: missing (or empty) is reported at the mapping with what is expected.
static hy_status require(loader* ld, const item* it, const node* map, const char* key,
                         const char* expect) {
  if (!is_null(map_val(map, key))) return HY_OK;
  return FAIL_AT(ld, map, "%s: key '%s' is required (%s)", it->where, key, expect);
}

static void item_init(item* it, const char* list, const char* kind, int index, const node* n) {
  // The name is taken for messages before anything is validated, so even the first error in
  // an element can say which element it is.
  const node* nm = map_val(n, "name");
  if (nm && nm->kind == NODE_SCALAR && !is_null(nm)) {
    char shown[48];
    clip(shown, sizeof shown, nm->text, nm->len);
    snprintf(it->where, sizeof it->where, "%s[%d] '%s'", list, index, shown);
    snprintf(it->what, sizeof it->what, "%s '%s'", kind, shown);
  } else {
    snprintf(it->where, sizeof it->where, "%s[%d]", list, index);
    snprintf(it->what, sizeof it->what, "%s[%d]", list, index);
  }
}

// The list under top-level `key`. Absent or empty gives n = 0 (an error when required).
static hy_status get_list(loader* ld, const node* root, const char* key, int required,
                          const char* expect, const node** out) {
  const node* v = map_val(root, key);
  *out = NULL;
  if (v && v->kind == NODE_SEQ && v->nkid > 0) {
    *out = v;
    return HY_OK;
  }
  if (is_null(v) || (v->kind == NODE_SEQ && v->nkid == 0)) {
    if (!required) return HY_OK;
    const node* at = v ? place(v, map_key(root, key)) : root;
    return FAIL_AT(ld, at, "key '%s' is required (a non-empty list of %s)", key, expect);
  }
  char got[96];
  return FAIL_AT(ld, v, "%s: expected a list of %s, got %s", key, expect,
                 describe(v, got, sizeof got));
}

// The element must be a mapping; `keys` is quoted in the message.
static hy_status expect_map(loader* ld, const item* it, const node* n, const char* const* keys) {
  if (n->kind == NODE_MAP) return HY_OK;
  char expected[256], got[96];
  join_names(expected, sizeof expected, keys);
  return FAIL_AT(ld, n, "%s: expected a mapping with keys %s; got %s", it->where, expected,
                 describe(n, got, sizeof got));
}

// Element i of a list section: it must be a mapping with only `keys`; fills `it` for messages.
static hy_status list_item(loader* ld, const node* list, int i, const char* section,
                           const char* kind, const char* const* keys, item* it, const node** out) {
  const node* n = list->kid[i];
  item_init(it, section, kind, i, n);
  HY_TRY(expect_map(ld, it, n, keys));
  HY_TRY(check_keys(ld, n, keys, it->what));
  *out = n;
  return HY_OK;
}

// Where a definition starts in the file.
static hy_srcpos pos_of(const node* n) {
  hy_srcpos p = {n->line, n->col};
  return p;
}

// Names must be unique within a list: the element's name is compared with those before it.
static hy_status check_unique(loader* ld, const item* it, const node* list, int index,
                              const char* kind) {
  const node* nm = map_val(list->kid[index], "name");
  if (!nm) return HY_OK;
  for (int j = 0; j < index; j++) {
    const node* prev = map_val(list->kid[j], "name");
    if (prev && prev->len == nm->len && memcmp(prev->text, nm->text, nm->len) == 0) {
      return FAIL_AT(ld, nm,
                     "%s: name '%s' is already used by the %s at line %d, column %d "
                     "(%s names must be unique)",
                     it->where, nm->text, kind, list->kid[j]->line, list->kid[j]->col, kind);
    }
  }
  return HY_OK;
}

//----- bodies --------------------------------------------------------------------------------

// Principal moments (ascending) of a symmetric 3x3 matrix, by the trigonometric solution of the
// characteristic cubic.
static void sym3_eigenvalues(const double a[9], double e[3]) {
  double p1 = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
  double q = (a[0] + a[4] + a[8]) / 3.0;
  if (p1 == 0) {
    e[0] = a[0], e[1] = a[4], e[2] = a[8];
  } else {
    double p2 =
        (a[0] - q) * (a[0] - q) + (a[4] - q) * (a[4] - q) + (a[8] - q) * (a[8] - q) + 2.0 * p1;
    double p = sqrt(p2 / 6.0);
    double b[9];
    for (int i = 0; i < 9; i++) b[i] = (a[i] - (i % 4 == 0 ? q : 0.0)) / p;
    double r = (b[0] * (b[4] * b[8] - b[5] * b[7]) - b[1] * (b[3] * b[8] - b[5] * b[6]) +
                b[2] * (b[3] * b[7] - b[4] * b[6])) /
               2.0;
    r = r < -1 ? -1 : (r > 1 ? 1 : r);
    double phi = acos(r) / 3.0;
    double hi = q + 2.0 * p * cos(phi);
    double lo = q + 2.0 * p * cos(phi + 2.0 * 3.14159265358979323846 / 3.0);
    e[0] = lo, e[2] = hi, e[1] = 3.0 * q - lo - hi;
  }
  // sort ascending (the diagonal case comes unsorted)
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2 - i; j++) {
      if (e[j] > e[j + 1]) {
        double t = e[j];
        e[j] = e[j + 1], e[j + 1] = t;
      }
    }
  }
}

// A rigid body's inertia about its centre of mass has principal moments >= 0, each at most the
// sum of the other two (otherwise no mass distribution produces it).
static hy_status check_inertia(loader* ld, const item* it, const node* at, const double J[9]) {
  double scale = 0;
  for (int i = 0; i < 9; i++) scale = fmax(scale, fabs(J[i]));
  if (scale == 0) return HY_OK;
  double e[3];
  sym3_eigenvalues(J, e);
  double tol = 1e-9 * scale;
  if (e[0] < -tol || e[2] > e[0] + e[1] + tol) {
    return FAIL_AT(ld, at,
                   "%s: inertia: not a physical inertia tensor: its principal moments "
                   "(%g, %g, %g) kg m^2 must be >= 0 and each at most the sum of the other two",
                   it->where, e[0], e[1], e[2]);
  }
  return HY_OK;
}

// inertia: [Ixx, Iyy, Izz] | [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] | [[3], [3], [3]] |
// {rod: {length, axis}} | {box: [a, b, c]}; rod and box need the mass.
static hy_status get_inertia(loader* ld, const item* it, const node* v, const node* key,
                             double mass, double J[9]) {
  static const char forms[] =
      "[Ixx, Iyy, Izz], [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], a 3x3 list of lists, "
      "{rod: {length: L, axis: x|y|z}} or {box: [a, b, c]}";
  char got[96];
  memset(J, 0, 9 * sizeof(double));
  if (v && v->kind == NODE_SEQ && v->nkid > 0 && v->kid[0]->kind == NODE_SEQ) {
    if (v->nkid != 3) {
      return FAIL_AT(ld, v, "%s: inertia: expected 3 rows of 3 numbers, got %d rows", it->where,
                     v->nkid);
    }
    for (int r = 0; r < 3; r++) {
      char label[32];
      snprintf(label, sizeof label, "inertia[%d]", r);
      HY_TRY(get_vec(ld, it->where, label, v->kid[r], NULL, 3, &J[3 * r]));
    }
    const int pairs[3][2] = {{1, 3}, {2, 6}, {5, 7}};
    for (int p = 0; p < 3; p++) {
      double a = J[pairs[p][0]], b = J[pairs[p][1]];
      if (fabs(a - b) > 1e-12 * fmax(1.0, fmax(fabs(a), fabs(b)))) {
        int i = pairs[p][0] / 3, j = pairs[p][0] % 3;
        return FAIL_AT(ld, v,
                       "%s: inertia: the 3x3 tensor must be symmetric, but entry "
                       "[%d][%d] = %g differs from [%d][%d] = %g",
                       it->where, i, j, a, j, i, b);
      }
    }
  } else if (v && v->kind == NODE_SEQ) {
    if (v->nkid != 3 && v->nkid != 6) {
      return FAIL_AT(ld, v, "%s: inertia: expected %s; got %s", it->where, forms,
                     describe(v, got, sizeof got));
    }
    double x[6];
    for (int i = 0; i < v->nkid; i++) {
      char label[32];
      snprintf(label, sizeof label, "inertia[%d]", i);
      HY_TRY(get_number(ld, it->where, label, v->kid[i], NULL, &x[i]));
    }
    J[0] = x[0], J[4] = x[1], J[8] = x[2];
    if (v->nkid == 6) {
      J[1] = J[3] = x[3];
      J[2] = J[6] = x[4];
      J[5] = J[7] = x[5];
    }
  } else if (v && v->kind == NODE_MAP) {
    static const char* const shape_keys[] = {"rod", "box", NULL};
    char what[200];
    snprintf(what, sizeof what, "the inertia of %s", it->what);
    HY_TRY(check_keys(ld, v, shape_keys, what));
    if (v->nkid != 2) {
      return FAIL_AT(ld, v,
                     "%s: inertia: give exactly one shape, {rod: {length: L, axis: "
                     "x|y|z}} or {box: [a, b, c]}",
                     it->where);
    }
    const node* rod = map_val(v, "rod");
    if (rod) {
      static const char* const rod_keys[] = {"length", "axis", NULL};
      static const char* const axes[] = {"x", "y", "z", NULL};
      if (rod->kind != NODE_MAP) {
        return FAIL_AT(ld, place(rod, map_key(v, "rod")),
                       "%s: inertia: rod: expected a mapping {length: L, axis: x|y|z}, got %s",
                       it->where, describe(rod, got, sizeof got));
      }
      snprintf(what, sizeof what, "the rod inertia of %s", it->what);
      HY_TRY(check_keys(ld, rod, rod_keys, what));
      if (is_null(map_val(rod, "length")) || is_null(map_val(rod, "axis"))) {
        return FAIL_AT(ld, rod,
                       "%s: inertia: rod: keys 'length' (m) and 'axis' (x, y or z) "
                       "are required",
                       it->where);
      }
      double len;
      int axis;
      HY_TRY(get_positive(ld, it->where, "inertia: rod: length", map_val(rod, "length"),
                          map_key(rod, "length"), 0, "m", &len));
      HY_TRY(get_enum(ld, it->where, "inertia: rod: axis", map_val(rod, "axis"),
                      map_key(rod, "axis"), axes, &axis));
      // uniform slender rod: m L^2 / 12 about any axis through the centre perpendicular to it
      double perp = mass * len * len / 12.0;
      for (int i = 0; i < 3; i++) J[4 * i] = i == axis ? 0.0 : perp;
    } else {
      const node* box = map_val(v, "box");
      double e[3];
      if (!box || box->kind != NODE_SEQ || box->nkid != 3) {
        return FAIL_AT(ld, place(box, map_key(v, "box")),
                       "%s: inertia: box: expected a list of 3 edge lengths [a, b, c] (m), "
                       "got %s",
                       it->where, describe(box, got, sizeof got));
      }
      for (int i = 0; i < 3; i++) {
        char label[32];
        snprintf(label, sizeof label, "inertia: box[%d]", i);
        HY_TRY(get_positive(ld, it->where, label, box->kid[i], NULL, 1, "m", &e[i]));
      }
      // uniform cuboid: Ixx = m (b^2 + c^2) / 12 and cyclically
      J[0] = mass * (e[1] * e[1] + e[2] * e[2]) / 12.0;
      J[4] = mass * (e[0] * e[0] + e[2] * e[2]) / 12.0;
      J[8] = mass * (e[0] * e[0] + e[1] * e[1]) / 12.0;
    }
  } else {
    return FAIL_AT(ld, place(v, key), "%s: inertia: expected %s; got %s", it->where, forms,
                   describe(v, got, sizeof got));
  }
  return check_inertia(ld, it, place(v, key), J);
}

static hy_status load_bodies(loader* ld, const node* root) {
  static const char* const keys[] = {"name", "mass", "com", "inertia", NULL};
  const node* list;
  HY_TRY(get_list(ld, root, "bodies", 1, "bodies", &list));
  for (int i = 0; i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "bodies", "body", keys, &it, &n));
    hy_body_def d = hy_body_def_default();
    d.pos = pos_of(n);
    HY_TRY(require(ld, &it, n, "name", "a unique name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "name"), d.name));
    if (strcmp(d.name, "ground") == 0) {
      return FAIL_AT(ld, map_val(n, "name"),
                     "%s: name 'ground' is reserved for the inertial "
                     "frame",
                     it.where);
    }
    HY_TRY(check_unique(ld, &it, list, i, "body"));
    HY_TRY(require(ld, &it, n, "mass", "a positive number, kg"));
    HY_TRY(get_positive(ld, it.where, KEY(n, "mass"), 0, "kg", &d.mass));
    if (map_val(n, "com")) {
      HY_TRY(get_vec(ld, it.where, KEY(n, "com"), 3, d.com));
    }
    if (map_val(n, "inertia")) {
      HY_TRY(get_inertia(ld, &it, map_val(n, "inertia"), map_key(n, "inertia"), d.mass, d.inertia));
    }
    if (hy_spec_add_body(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding body '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- joints --------------------------------------------------------------------------------

static hy_status get_axis(loader* ld, const item* it, const node* map, const char* key,
                          double out[3]) {
  HY_TRY(get_vec(ld, it->where, key, map_val(map, key), map_key(map, key), 3, out));
  if (out[0] != 0 || out[1] != 0 || out[2] != 0) return HY_OK;
  return FAIL_AT(ld, map_val(map, key), "%s: %s: the axis must be a non-zero vector", it->where,
                 key);
}

static hy_status load_joints(loader* ld, const node* root) {
  static const char* const keys[] = {"name",         "type",        "parent",      "child",
                                     "parent_point", "child_point", "axis",        "child_axis",
                                     "z0",           "zd0",         "independent", NULL};
  static const char* const types[] = {"revolute", "prismatic", NULL};
  static const char* const yes_no[] = {"false", "true", NULL};
  const node* list;
  HY_TRY(get_list(ld, root, "joints", 1, "joints", &list));
  for (int i = 0; i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "joints", "joint", keys, &it, &n));
    hy_joint_def d = hy_joint_def_default();
    d.pos = pos_of(n);
    HY_TRY(require(ld, &it, n, "name", "a unique name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "name"), d.name));
    HY_TRY(check_unique(ld, &it, list, i, "joint"));
    HY_TRY(require(ld, &it, n, "type", "revolute or prismatic"));
    int type;
    HY_TRY(get_enum(ld, it.where, KEY(n, "type"), types, &type));
    d.type = type == 0 ? HY_JOINT_REVOLUTE : HY_JOINT_PRISMATIC;
    HY_TRY(require(ld, &it, n, "parent", "a body name or ground"));
    HY_TRY(get_name(ld, it.where, KEY(n, "parent"), d.parent));
    HY_TRY(require(ld, &it, n, "child", "a body name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "child"), d.child));
    if (strcmp(d.child, "ground") == 0) {
      return FAIL_AT(ld, map_val(n, "child"),
                     "%s: child: 'ground' cannot be a child (it is the "
                     "fixed inertial frame)",
                     it.where);
    }
    memset(d.parent_point, 0, sizeof d.parent_point);
    memset(d.child_point, 0, sizeof d.child_point);
    if (map_val(n, "parent_point")) {
      HY_TRY(get_vec(ld, it.where, KEY(n, "parent_point"), 3, d.parent_point));
    }
    if (map_val(n, "child_point")) {
      HY_TRY(get_vec(ld, it.where, KEY(n, "child_point"), 3, d.child_point));
    }
    d.axis[0] = 0, d.axis[1] = 0, d.axis[2] = 1;
    if (map_val(n, "axis")) HY_TRY(get_axis(ld, &it, n, "axis", d.axis));
    memcpy(d.child_axis, d.axis, sizeof d.axis);
    if (map_val(n, "child_axis")) HY_TRY(get_axis(ld, &it, n, "child_axis", d.child_axis));
    // Revolute coordinates are written in degrees and stored in radians.
    double scale = d.type == HY_JOINT_REVOLUTE ? kDeg : 1.0;
    d.z0 = 0, d.zd0 = 0;
    if (map_val(n, "z0")) {
      HY_TRY(get_number(ld, it.where, KEY(n, "z0"), &d.z0));
    }
    if (map_val(n, "zd0")) {
      HY_TRY(get_number(ld, it.where, KEY(n, "zd0"), &d.zd0));
    }
    d.z0 *= scale;
    d.zd0 *= scale;
    if (map_val(n, "independent")) {
      HY_TRY(get_enum(ld, it.where, KEY(n, "independent"), yes_no, &d.independent));
    }
    if (hy_spec_add_joint(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding joint '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- markers -------------------------------------------------------------------------------

static hy_status load_markers(loader* ld, const node* root) {
  static const char* const keys[] = {"name", "body", "point", NULL};
  const node* list;
  HY_TRY(get_list(ld, root, "markers", 0, "markers", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "markers", "marker", keys, &it, &n));
    hy_marker_def d = hy_marker_def_default();
    d.pos = pos_of(n);
    HY_TRY(require(ld, &it, n, "name", "a unique name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "name"), d.name));
    HY_TRY(check_unique(ld, &it, list, i, "marker"));
    HY_TRY(require(ld, &it, n, "body", "a body name or ground"));
    HY_TRY(get_name(ld, it.where, KEY(n, "body"), d.body));
    memset(d.point, 0, sizeof d.point);
    if (map_val(n, "point")) {
      HY_TRY(get_vec(ld, it.where, KEY(n, "point"), 3, d.point));
    }
    if (hy_spec_add_marker(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding marker '%s'", d.name);
    }
  }
  return HY_OK;
}

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

static hy_status table_push(loader* ld, table* tb, double t, double v) {
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

static hy_status read_table(loader* ld, const item* it, const node* v, const node* key, table* tb) {
  char got[96];
  if (!v || v->kind != NODE_SEQ || v->nkid == 0) {
    return FAIL_AT(ld, place(v, key),
                   "%s: table: expected a non-empty list of [t, value] "
                   "pairs, got %s",
                   it->where, describe(v, got, sizeof got));
  }
  for (int i = 0; i < v->nkid; i++) {
    char label[48];
    double tv[2];
    snprintf(label, sizeof label, "table[%d]", i);
    const node* row = v->kid[i];
    if (row->kind != NODE_SEQ || row->nkid != 2) {
      return FAIL_AT(ld, row, "%s: %s: expected a pair [t, value], got %s", it->where, label,
                     describe(row, got, sizeof got));
    }
    HY_TRY(get_vec(ld, it->where, label, row, NULL, 2, tv));
    if (tb->n > 0 && !(tv[0] > tb->t[tb->n - 1])) {
      return FAIL_AT(ld, row->kid[0],
                     "%s: %s: t = %g s does not increase after t = %g s (table "
                     "times must be strictly increasing)",
                     it->where, label, tv[0], tb->t[tb->n - 1]);
    }
    HY_TRY(table_push(ld, tb, tv[0], tv[1]));
  }
  return HY_OK;
}

// Reads a whole file into a NUL-terminated buffer. On failure returns HY_ERR_IO (or NOMEM) with
// errno-style detail in *why and nothing allocated.
static hy_status read_file(const char* path, char** out, size_t* size, const char** why) {
  *out = NULL;
  *size = 0;
  *why = "";
  FILE* f = fopen(path, "rb");
  if (!f) {
    *why = strerror(errno);
    return HY_ERR_IO;
  }
  size_t cap = 4096, n = 0;
  char* buf = hy_malloc(cap);
  if (!buf) {
    fclose(f);
    return HY_ERR_NOMEM;
  }
  for (;;) {
    if (n + 1 >= cap) {
      if (cap >= MAX_FILE_BYTES) {
        *why = "file too large";
        hy_free(buf);
        fclose(f);
        return HY_ERR_IO;
      }
      char* bigger = hy_malloc(2 * cap);
      if (!bigger) {
        hy_free(buf);
        fclose(f);
        return HY_ERR_NOMEM;
      }
      memcpy(bigger, buf, n);
      hy_free(buf);
      buf = bigger;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - 1 - n, f);
    n += got;
    if (got == 0) break;
  }
  int failed = ferror(f);
  int saved = errno;
  fclose(f);
  if (failed) {
    *why = strerror(saved ? saved : EIO);
    hy_free(buf);
    return HY_ERR_IO;
  }
  buf[n] = 0;
  *out = buf;
  *size = n;
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
static hy_status read_csv(loader* ld, const item* it, const node* v, const node* key, table* tb) {
  char path[2 * PATH_MAX_];
  char got[96];
  if (!v || v->kind != NODE_SCALAR || is_null(v) || strlen(v->text) != v->len) {
    return FAIL_AT(ld, place(v, key), "%s: file: expected a file name, got %s", it->where,
                   describe(v, got, sizeof got));
  }
  const char* rel = v->text;
  int w = snprintf(path, sizeof path, "%s%s", rel[0] == '/' ? "" : ld->dir, rel);
  if (w < 0 || (size_t)w >= sizeof path) {
    return FAIL_AT(ld, v, "%s: file: path too long", it->where);
  }
  char* text;
  size_t size;
  const char* why;
  hy_status st = read_file(path, &text, &size, &why);
  if (st == HY_ERR_NOMEM) return HY_FAIL(ld->err, st, "out of memory reading '%s'", path);
  if (st != HY_OK) {
    return fail_src(ld, HY_ERR_IO, ld->path, v->line, v->col,
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
    for (int c = 0; ok && c < 2; c++) ok = parse_number_text(f[c], flen[c], &tv[c]) == 1;
    if (!ok && tb->n == 0 && !header_seen) {
      header_seen = 1;  // the first non-comment line may name the columns
      continue;
    }
    if (nf != 2) {
      st = fail_src(ld, HY_ERR_MODEL, path, line, 1, "%s: expected 2 columns (t, value), found %d",
                    it->where, nf);
      break;
    }
    for (int c = 0; c < 2; c++) {
      int r = parse_number_text(f[c], flen[c], &tv[c]);
      if (r != 1) {
        char shown[64];
        clip(shown, sizeof shown, f[c], flen[c]);
        st = fail_src(ld, HY_ERR_MODEL, path, line, (int)fcol[c] + 1,
                      "%s: column %d (%s): expected a number, got '%s'", it->where, c + 1,
                      c == 0 ? "t" : "value", shown);
        break;
      }
    }
    if (st != HY_OK) break;
    if (tb->n > 0 && !(tv[0] > tb->t[tb->n - 1])) {
      st = fail_src(ld, HY_ERR_MODEL, path, line, (int)fcol[0] + 1,
                    "%s: t = %g s does not increase after t = %g s (times must be strictly "
                    "increasing)",
                    it->where, tv[0], tb->t[tb->n - 1]);
      break;
    }
    st = table_push(ld, tb, tv[0], tv[1]);
  }
  hy_free(text);
  if (st == HY_OK && tb->n == 0) {
    st = FAIL_AT(ld, v, "%s: file: signal file '%s' holds no data rows", it->where, path);
  }
  return st;
}

static hy_status load_signals(loader* ld, const node* root) {
  static const char* const keys[] = {"name", "interpolation", "table", "file", NULL};
  static const char* const interps[] = {"linear", "step", NULL};
  const node* list;
  HY_TRY(get_list(ld, root, "signals", 0, "signals", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "signals", "signal", keys, &it, &n));
    hy_signal_def d = hy_signal_def_default();
    d.pos = pos_of(n);
    HY_TRY(require(ld, &it, n, "name", "a unique name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "name"), d.name));
    HY_TRY(check_unique(ld, &it, list, i, "signal"));
    d.interp = HY_INTERP_LINEAR;
    if (map_val(n, "interpolation")) {
      int k;
      HY_TRY(get_enum(ld, it.where, KEY(n, "interpolation"), interps, &k));
      d.interp = k == 0 ? HY_INTERP_LINEAR : HY_INTERP_STEP;
    }
    const node* tab = map_val(n, "table");
    const node* file = map_val(n, "file");
    if (tab && file) {
      return FAIL_AT(ld, map_key(n, "file"), "%s: give either 'table' or 'file', not both",
                     it.where);
    }
    if (!tab && !file) {
      return FAIL_AT(ld, n,
                     "%s: key 'table' (a list of [t, value] pairs) or 'file' (a CSV "
                     "file with columns t, value) is required",
                     it.where);
    }
    table tb = {NULL, NULL, 0, 0};
    hy_status st = tab ? read_table(ld, &it, tab, map_key(n, "table"), &tb)
                       : read_csv(ld, &it, file, map_key(n, "file"), &tb);
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

//----- loads ---------------------------------------------------------------------------------

static hy_status load_loads(loader* ld, const node* root) {
  static const char* const keys[] = {"name", "type", "marker", "vector", "signal", NULL};
  static const char* const types[] = {"force", "torque", NULL};
  const node* list;
  HY_TRY(get_list(ld, root, "loads", 0, "loads", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "loads", "load", keys, &it, &n));
    hy_load_def d = hy_load_def_default();
    d.pos = pos_of(n);
    if (map_val(n, "name")) {
      HY_TRY(get_name(ld, it.where, KEY(n, "name"), d.name));
    } else {
      snprintf(d.name, sizeof d.name, "load%d", i);
    }
    // Default names take part too, so an explicit "load0" cannot shadow the first load.
    for (int j = 0; j < i; j++) {
      const node* prev = map_val(list->kid[j], "name");
      char prev_name[HY_NAME_MAX];
      if (prev) {
        snprintf(prev_name, sizeof prev_name, "%s", prev->text);
      } else {
        snprintf(prev_name, sizeof prev_name, "load%d", j);
      }
      if (strcmp(prev_name, d.name) == 0) {
        return FAIL_AT(ld, place(map_val(n, "name"), n),
                       "%s: name '%s' is already used by the "
                       "load at line %d, column %d (load names must be unique)",
                       it.where, d.name, list->kid[j]->line, list->kid[j]->col);
      }
    }
    HY_TRY(require(ld, &it, n, "type", "force or torque"));
    int type;
    HY_TRY(get_enum(ld, it.where, KEY(n, "type"), types, &type));
    d.type = type == 0 ? HY_LOAD_FORCE : HY_LOAD_TORQUE;
    HY_TRY(require(ld, &it, n, "marker", "a marker name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "marker"), d.marker));
    HY_TRY(
        require(ld, &it, n, "vector",
                d.type == HY_LOAD_FORCE ? "a list of 3 numbers, N" : "a list of 3 numbers, N m"));
    HY_TRY(get_vec(ld, it.where, KEY(n, "vector"), 3, d.vector));
    d.signal[0] = 0;
    if (map_val(n, "signal")) {
      HY_TRY(get_name(ld, it.where, KEY(n, "signal"), d.signal));
    }
    if (hy_spec_add_load(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding load '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- cut joints ----------------------------------------------------------------------------

// An optional up vector: when given it must be non-zero (leaving it out lets the compiler
// choose one).
static hy_status get_up(loader* ld, const item* it, const node* map, const char* key,
                        double out[3]) {
  HY_TRY(get_vec(ld, it->where, key, map_val(map, key), map_key(map, key), 3, out));
  if (out[0] != 0 || out[1] != 0 || out[2] != 0) return HY_OK;
  return FAIL_AT(ld, map_val(map, key),
                 "%s: %s: must be a non-zero vector (leave the key out to let hydyn choose one)",
                 it->where, key);
}

static hy_status load_cuts(loader* ld, const node* root) {
  static const char* const keys[] = {"name",   "type", "marker_a", "marker_b", "axis_a",
                                     "axis_b", "up_a", "up_b",     NULL};
  static const hy_cut_type kinds[] = {HY_CUT_REVOLUTE, HY_CUT_SPHERICAL, HY_CUT_TRANSLATIONAL};
  const int nkind = (int)(sizeof kinds / sizeof kinds[0]);
  const char* types[sizeof kinds / sizeof kinds[0] + 1];
  for (int k = 0; k < nkind; k++) types[k] = hy_cut_type_name(kinds[k]);
  types[nkind] = NULL;
  const node* list;
  HY_TRY(get_list(ld, root, "cut_joints", 0, "cut joints", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "cut_joints", "cut joint", keys, &it, &n));
    hy_cut_def d = hy_cut_def_default();
    d.pos = pos_of(n);
    HY_TRY(require(ld, &it, n, "name", "a unique name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "name"), d.name));
    HY_TRY(check_unique(ld, &it, list, i, "cut joint"));
    HY_TRY(require(ld, &it, n, "type", "revolute, spherical or translational"));
    int type;
    HY_TRY(get_enum(ld, it.where, KEY(n, "type"), types, &type));
    d.type = kinds[type];
    HY_TRY(require(ld, &it, n, "marker_a", "a marker name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "marker_a"), d.marker_a));
    HY_TRY(require(ld, &it, n, "marker_b", "a marker name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "marker_b"), d.marker_b));
    if (map_val(n, "axis_a")) HY_TRY(get_axis(ld, &it, n, "axis_a", d.axis_a));
    if (map_val(n, "axis_b")) HY_TRY(get_axis(ld, &it, n, "axis_b", d.axis_b));
    if (map_val(n, "up_a")) HY_TRY(get_up(ld, &it, n, "up_a", d.up_a));
    if (map_val(n, "up_b")) HY_TRY(get_up(ld, &it, n, "up_b", d.up_b));
    if (hy_spec_add_cut(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding cut joint '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- force elements ------------------------------------------------------------------------

static hy_status load_forces(loader* ld, const node* root) {
  static const char* const keys[] = {"name",  "type",   "marker_a", "marker_b",
                                     "force", "signal", NULL};
  static const char* const types[] = {"actuator", NULL};
  const node* list;
  HY_TRY(get_list(ld, root, "forces", 0, "force elements", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "forces", "force", keys, &it, &n));
    hy_force_def d = hy_force_def_default();
    d.pos = pos_of(n);
    HY_TRY(require(ld, &it, n, "name", "a unique name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "name"), d.name));
    HY_TRY(check_unique(ld, &it, list, i, "force"));
    HY_TRY(require(ld, &it, n, "type", "actuator"));
    int type;
    HY_TRY(get_enum(ld, it.where, KEY(n, "type"), types, &type));
    d.type = HY_FORCE_ACTUATOR;
    HY_TRY(require(ld, &it, n, "marker_a", "a marker name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "marker_a"), d.marker_a));
    HY_TRY(require(ld, &it, n, "marker_b", "a marker name"));
    HY_TRY(get_name(ld, it.where, KEY(n, "marker_b"), d.marker_b));
    HY_TRY(require(ld, &it, n, "force", "a number in N, or the word 'equilibrium'"));
    const node* v = map_val(n, "force");
    if (v->kind == NODE_SCALAR && v->plain && strcmp(v->text, "equilibrium") == 0) {
      d.equilibrium = 1;
    } else {
      int r = 0;
      if (v->kind == NODE_SCALAR && v->plain) r = parse_number_text(v->text, v->len, &d.value);
      if (r != 1) {
        char got[96];
        return FAIL_AT(ld, place(v, map_key(n, "force")),
                       "%s: force: expected a number (N) or the word 'equilibrium', got %s%s",
                       it.where, describe(v, got, sizeof got), r < 0 ? " (out of range)" : "");
      }
    }
    d.signal[0] = 0;
    if (map_val(n, "signal")) {
      HY_TRY(get_name(ld, it.where, KEY(n, "signal"), d.signal));
    }
    if (hy_spec_add_force(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding force '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- hydraulics ----------------------------------------------------------------------------

// An optional list under `key` of mapping `map` (element `it`): absent, blank or [] is empty.
static hy_status get_sublist(loader* ld, const item* it, const node* map, const char* key,
                             const char* expect, const node** out) {
  const node* v = map_val(map, key);
  *out = NULL;
  if (is_null(v) || (v->kind == NODE_SEQ && v->nkid == 0)) return HY_OK;
  if (v->kind == NODE_SEQ) {
    *out = v;
    return HY_OK;
  }
  char got[96];
  return FAIL_AT(ld, v, "%s: %s: expected a list of %s, got %s", it->where, key, expect,
                 describe(v, got, sizeof got));
}

// A nested mapping under `key` with the allowed keys `keys`; *out is NULL when absent.
static hy_status get_submap(loader* ld, const item* it, const node* map, const char* key,
                            const char* const* keys, const node** out) {
  const node* v = map_val(map, key);
  *out = NULL;
  if (!v) return HY_OK;
  if (v->kind != NODE_MAP) {
    char got[96], expected[256];
    join_names(expected, sizeof expected, keys);
    return FAIL_AT(ld, place(v, map_key(map, key)),
                   "%s: %s: expected a mapping with keys %s; got %s", it->where, key, expected,
                   describe(v, got, sizeof got));
  }
  char what[200];
  snprintf(what, sizeof what, "'%s' of %s", key, it->what);
  HY_TRY(check_keys(ld, v, keys, what));
  *out = v;
  return HY_OK;
}

// A required name under `key`.
static hy_status need_name(loader* ld, const item* it, const node* n, const char* key,
                           const char* expect, char out[HY_NAME_MAX]) {
  HY_TRY(require(ld, it, n, key, expect));
  return get_name(ld, it->where, key, map_val(n, key), map_key(n, key), out);
}

// An optional non-negative (allow_zero) or positive number under `key`; *out keeps its value
// when the key is absent.
static hy_status opt_positive(loader* ld, const item* it, const node* n, const char* key,
                              int allow_zero, const char* unit, double* out) {
  if (!map_val(n, key)) return HY_OK;
  return get_positive(ld, it->where, key, map_val(n, key), map_key(n, key), allow_zero, unit, out);
}

// A required positive (or non-negative) number under `key`.
static hy_status need_positive(loader* ld, const item* it, const node* n, const char* key,
                               int allow_zero, const char* unit, double* out) {
  char expect[96];
  snprintf(expect, sizeof expect, "a %s number, %s", allow_zero ? "non-negative" : "positive",
           unit);
  HY_TRY(require(ld, it, n, key, expect));
  return opt_positive(ld, it, n, key, allow_zero, unit, out);
}

// The element `it` seen from one of its nested mappings: values there are reported as
// "<where>: <key>: ...". A long prefix is cut, which only shortens the message.
static item sub_item(const item* it, const char* key) {
  item sub = *it;
  int w = snprintf(sub.where, sizeof sub.where, "%s: %s", it->where, key);
  if (w < 0) sub.where[0] = 0;
  return sub;
}

static hy_status add_failed(loader* ld, const char* kind, const char* name) {
  return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding %s '%s'", kind, name);
}

static hy_status load_volumes(loader* ld, const item* cit, const node* cn, const char* circ) {
  static const char* const keys[] = {"name", "hose_volume", "hose_bulk_modulus", "p0", NULL};
  const node* list;
  HY_TRY(get_sublist(ld, cit, cn, "volumes", "volumes", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "volumes", "volume", keys, &it, &n));
    hy_volume_def d = hy_volume_def_default();
    d.pos = pos_of(n);
    snprintf(d.circuit, sizeof d.circuit, "%s", circ);
    HY_TRY(need_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(need_positive(ld, &it, n, "hose_volume", 1, "m^3", &d.hose_volume));
    if (d.hose_volume > 0) {
      HY_TRY(need_positive(ld, &it, n, "hose_bulk_modulus", 0, "Pa", &d.hose_bulk_modulus));
    } else {
      HY_TRY(opt_positive(ld, &it, n, "hose_bulk_modulus", 0, "Pa", &d.hose_bulk_modulus));
    }
    if (map_val(n, "p0")) {
      HY_TRY(get_number(ld, it.where, KEY(n, "p0"), &d.p0));
    }
    if (hy_spec_add_volume(ld->spec, &d) != HY_OK) return add_failed(ld, "volume", d.name);
  }
  return HY_OK;
}

static hy_status load_sources(loader* ld, const item* cit, const node* cn, const char* circ) {
  static const char* const keys[] = {"name", "pressure", "signal", NULL};
  const node* list;
  HY_TRY(get_sublist(ld, cit, cn, "sources", "sources", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "sources", "source", keys, &it, &n));
    hy_source_def d = hy_source_def_default();
    d.pos = pos_of(n);
    snprintf(d.circuit, sizeof d.circuit, "%s", circ);
    HY_TRY(need_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(require(ld, &it, n, "pressure", "a number, Pa"));
    HY_TRY(get_number(ld, it.where, KEY(n, "pressure"), &d.pressure));
    if (map_val(n, "signal")) {
      HY_TRY(get_name(ld, it.where, KEY(n, "signal"), d.signal));
    }
    if (hy_spec_add_source(ld->spec, &d) != HY_OK) return add_failed(ld, "source", d.name);
  }
  return HY_OK;
}

static hy_status load_throttles(loader* ld, const item* cit, const node* cn) {
  static const char* const keys[] = {"name", "from", "to", "cv", "orifice", "dp_lim", NULL};
  static const char* const orifice_keys[] = {"cd", "diameter", "density", NULL};
  const node* list;
  HY_TRY(get_sublist(ld, cit, cn, "throttles", "throttles", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "throttles", "throttle", keys, &it, &n));
    hy_throttle_def d = hy_throttle_def_default();
    d.pos = pos_of(n);
    HY_TRY(need_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(need_name(ld, &it, n, "from", "a volume or source name", d.from));
    HY_TRY(need_name(ld, &it, n, "to", "a volume or source name", d.to));
    const node* orifice;
    HY_TRY(get_submap(ld, &it, n, "orifice", orifice_keys, &orifice));
    if (map_val(n, "cv") && orifice) {
      return FAIL_AT(ld, map_key(n, "orifice"), "%s: give either 'cv' or 'orifice', not both",
                     it.where);
    }
    if (orifice) {
      const item oit = sub_item(&it, "orifice");
      double cd = 0, dia = 0, rho = 0;
      HY_TRY(need_positive(ld, &oit, orifice, "cd", 0, "-", &cd));
      HY_TRY(need_positive(ld, &oit, orifice, "diameter", 0, "m", &dia));
      HY_TRY(need_positive(ld, &oit, orifice, "density", 0, "kg/m^3", &rho));
      // seed 000 Eq. 25: C_vt = C_d A_t sqrt(2 / rho), A_t = pi d^2 / 4
      d.cv = cd * (0.25 * 3.14159265358979323846 * dia * dia) * sqrt(2.0 / rho);
    } else {
      HY_TRY(need_positive(ld, &it, n, "cv", 0,
                           "m^3/(s sqrt(Pa)); or give orifice: {cd, diameter, density}", &d.cv));
    }
    HY_TRY(opt_positive(ld, &it, n, "dp_lim", 0, "Pa", &d.dp_lim));
    if (hy_spec_add_throttle(ld->spec, &d) != HY_OK) return add_failed(ld, "throttle", d.name);
  }
  return HY_OK;
}

static hy_status load_valves(loader* ld, const item* cit, const node* cn) {
  static const char* const keys[] = {"name", "P",      "T",  "A",      "B", "cv",
                                     "tau",  "dp_lim", "U0", "signal", NULL};
  const node* list;
  HY_TRY(get_sublist(ld, cit, cn, "valves", "valves", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "valves", "valve", keys, &it, &n));
    hy_valve_def d = hy_valve_def_default();
    d.pos = pos_of(n);
    HY_TRY(need_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(need_name(ld, &it, n, "P", "the pressure port: a volume or source name", d.P));
    HY_TRY(need_name(ld, &it, n, "T", "the tank port: a volume or source name", d.T));
    HY_TRY(need_name(ld, &it, n, "A", "a volume or source name", d.A));
    HY_TRY(need_name(ld, &it, n, "B", "a volume or source name", d.B));
    HY_TRY(need_positive(ld, &it, n, "cv", 0, "m^3/(s V sqrt(Pa))", &d.cv));
    HY_TRY(need_positive(ld, &it, n, "tau", 0, "s", &d.tau));
    HY_TRY(opt_positive(ld, &it, n, "dp_lim", 0, "Pa", &d.dp_lim));
    if (map_val(n, "U0")) {
      HY_TRY(get_number(ld, it.where, KEY(n, "U0"), &d.U0));
    }
    if (map_val(n, "signal")) {
      HY_TRY(get_name(ld, it.where, KEY(n, "signal"), d.signal));
    }
    if (hy_spec_add_valve(ld->spec, &d) != HY_OK) return add_failed(ld, "valve", d.name);
  }
  return HY_OK;
}

// `check_valves` (relief = 0) or `relief_valves` (relief = 1) of a circuit. The two differ only
// in the key of the cracking pressure (optional p_crack >= 0, required p_set > 0).
static hy_status load_pressure_valves(loader* ld, const item* cit, const node* cn, int relief) {
  static const char* const check_keys[] = {"name",    "from",   "to",     "cv",
                                           "p_crack", "p_open", "dp_lim", NULL};
  static const char* const relief_keys[] = {"name",  "from",   "to",     "cv",
                                            "p_set", "p_open", "dp_lim", NULL};
  const char* const list_key = relief ? "relief_valves" : "check_valves";
  const char* const what = relief ? "relief valve" : "check valve";
  const node* list;
  HY_TRY(get_sublist(ld, cit, cn, list_key, list_key, &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, list_key, what, relief ? relief_keys : check_keys, &it, &n));
    // read as a check valve; a relief valve takes the same fields with p_set for p_crack
    hy_check_valve_def d = hy_check_valve_def_default();
    d.pos = pos_of(n);
    HY_TRY(need_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(need_name(ld, &it, n, "from", "a volume or source name", d.from));
    HY_TRY(need_name(ld, &it, n, "to", "a volume or source name", d.to));
    HY_TRY(need_positive(ld, &it, n, "cv", 0, "m^3/(s sqrt(Pa))", &d.cv));
    if (relief) {
      HY_TRY(need_positive(ld, &it, n, "p_set", 0, "Pa", &d.p_crack));
    } else {
      HY_TRY(opt_positive(ld, &it, n, "p_crack", 1, "Pa", &d.p_crack));
    }
    HY_TRY(need_positive(ld, &it, n, "p_open", 0, "Pa", &d.p_open));
    HY_TRY(opt_positive(ld, &it, n, "dp_lim", 0, "Pa", &d.dp_lim));
    hy_status added;
    if (relief) {
      hy_relief_valve_def r = hy_relief_valve_def_default();
      memcpy(r.name, d.name, HY_NAME_MAX);
      memcpy(r.from, d.from, HY_NAME_MAX);
      memcpy(r.to, d.to, HY_NAME_MAX);
      r.cv = d.cv;
      r.p_set = d.p_crack;
      r.p_open = d.p_open;
      r.dp_lim = d.dp_lim;
      r.pos = d.pos;
      added = hy_spec_add_relief_valve(ld->spec, &r);
    } else {
      added = hy_spec_add_check_valve(ld->spec, &d);
    }
    if (added != HY_OK) return add_failed(ld, what, d.name);
  }
  return HY_OK;
}

// One of two alternative keys (`a` or `b`, exactly one required) as a positive number; *which
// is 0 for a, 1 for b.
static hy_status one_of(loader* ld, const item* it, const node* n, const char* a, const char* ua,
                        const char* b, const char* ub, double* out, int* which) {
  const int has_a = map_val(n, a) != NULL, has_b = map_val(n, b) != NULL;
  if (has_a && has_b) {
    return FAIL_AT(ld, map_key(n, b), "%s: give either '%s' or '%s', not both", it->where, a, b);
  }
  if (!has_a && !has_b) {
    return FAIL_AT(ld, n, "%s: key '%s' (%s) or '%s' (%s) is required", it->where, a, ua, b, ub);
  }
  *which = has_b;
  return opt_positive(ld, it, n, has_a ? a : b, 0, has_a ? ua : ub, out);
}

static hy_status load_cylinders(loader* ld, const item* cit, const node* cn) {
  static const char* const keys[] = {
      "name",         "marker_a",   "marker_b",        "chamber_a",
      "chamber_b",    "area_a",     "piston_diameter", "area_b",
      "rod_diameter", "stroke",     "dead_length",     "bulk_modulus",
      "viscous",      "end_damper", "initial",         NULL};
  static const char* const damper_keys[] = {"k", "c", "length", NULL};
  static const char* const inits[] = {"given", "equilibrium", NULL};
  const double quarter_pi = 0.25 * 3.14159265358979323846;
  const node* list;
  HY_TRY(get_sublist(ld, cit, cn, "cylinders", "cylinders", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    item it;
    const node* n;
    HY_TRY(list_item(ld, list, i, "cylinders", "cylinder", keys, &it, &n));
    hy_cylinder_def d = hy_cylinder_def_default();
    d.pos = pos_of(n);
    HY_TRY(need_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(need_name(ld, &it, n, "marker_a", "the marker of the cylinder body end", d.marker_a));
    HY_TRY(need_name(ld, &it, n, "marker_b", "the marker of the rod end", d.marker_b));
    HY_TRY(need_name(ld, &it, n, "chamber_a", "the piston-side volume", d.chamber_a));
    HY_TRY(need_name(ld, &it, n, "chamber_b", "the rod-side volume", d.chamber_b));
    double x, D = 0;
    int which;
    HY_TRY(one_of(ld, &it, n, "area_a", "m^2", "piston_diameter", "m", &x, &which));
    if (which == 1) {
      D = x;
      d.area_a = quarter_pi * D * D;
    } else {
      d.area_a = x;
    }
    HY_TRY(one_of(ld, &it, n, "area_b", "m^2", "rod_diameter", "m", &x, &which));
    if (which == 1) {
      const node* rk = map_key(n, "rod_diameter");
      if (D == 0) {
        return FAIL_AT(ld, rk,
                       "%s: rod_diameter needs piston_diameter (or give area_b, the "
                       "annulus area in m^2)",
                       it.where);
      }
      if (!(x < D)) {
        return FAIL_AT(ld, map_val(n, "rod_diameter"),
                       "%s: rod_diameter (%g m) must be smaller than piston_diameter (%g m)",
                       it.where, x, D);
      }
      d.area_b = quarter_pi * (D * D - x * x);  // the annulus around the rod
    } else {
      d.area_b = x;
    }
    HY_TRY(need_positive(ld, &it, n, "stroke", 0, "m", &d.stroke));
    HY_TRY(need_positive(ld, &it, n, "dead_length", 1, "m", &d.dead_length));
    HY_TRY(need_positive(ld, &it, n, "bulk_modulus", 0, "Pa", &d.bulk_modulus));
    HY_TRY(opt_positive(ld, &it, n, "viscous", 1, "N s/m", &d.viscous));
    const node* damper;
    HY_TRY(get_submap(ld, &it, n, "end_damper", damper_keys, &damper));
    if (damper) {
      const item dit = sub_item(&it, "end_damper");
      HY_TRY(need_positive(ld, &dit, damper, "k", 1, "N/m", &d.damper_k));
      HY_TRY(need_positive(ld, &dit, damper, "c", 1, "N s/m", &d.damper_c));
      HY_TRY(need_positive(ld, &dit, damper, "length", 0, "m", &d.damper_length));
    }
    if (map_val(n, "initial")) {
      int k;
      HY_TRY(get_enum(ld, it.where, KEY(n, "initial"), inits, &k));
      d.init = k == 1 ? HY_CYL_INIT_EQUILIBRIUM : HY_CYL_INIT_GIVEN;
    }
    if (hy_spec_add_cylinder(ld->spec, &d) != HY_OK) return add_failed(ld, "cylinder", d.name);
  }
  return HY_OK;
}

static hy_status load_circuit(loader* ld, const node* list, int index) {
  static const char* const keys[] = {"name",          "oil",       "laminar", "volumes",
                                     "sources",       "throttles", "valves",  "check_valves",
                                     "relief_valves", "cylinders", NULL};
  static const char* const oil_keys[] = {"bulk_modulus", "law", "k", NULL};
  static const char* const laws[] = {"constant", "linear", NULL};
  static const char* const laminars[] = {"cubic", "linear", NULL};
  const node* n = list->kid[index];
  item it;
  item_init(&it, "circuits", "circuit", index, n);
  HY_TRY(expect_map(ld, &it, n, keys));
  HY_TRY(check_keys(ld, n, keys, it.what));
  hy_circuit_def d = hy_circuit_def_default();
  d.pos = pos_of(n);
  HY_TRY(need_name(ld, &it, n, "name", "a unique name", d.name));
  HY_TRY(check_unique(ld, &it, list, index, "circuit"));
  HY_TRY(require(ld, &it, n, "oil", "a mapping {bulk_modulus: Pa, law: constant|linear, k: -}"));
  const node* oil;
  HY_TRY(get_submap(ld, &it, n, "oil", oil_keys, &oil));
  const item oit = sub_item(&it, "oil");
  HY_TRY(need_positive(ld, &oit, oil, "bulk_modulus", 0, "Pa", &d.B_oil));
  if (map_val(oil, "law")) {
    int k;
    HY_TRY(get_enum(ld, oit.where, KEY(oil, "law"), laws, &k));
    d.law = k == 1 ? HY_BULK_LINEAR : HY_BULK_CONSTANT;
  }
  if (d.law == HY_BULK_LINEAR) {
    HY_TRY(need_positive(ld, &oit, oil, "k", 1, "dB/dp, dimensionless", &d.law_k));
  } else {
    HY_TRY(opt_positive(ld, &oit, oil, "k", 1, "dB/dp, dimensionless", &d.law_k));
  }
  if (map_val(n, "laminar")) {
    int k;
    HY_TRY(get_enum(ld, it.where, KEY(n, "laminar"), laminars, &k));
    d.laminar = k == 1 ? HY_LAMINAR_LINEAR : HY_LAMINAR_CUBIC;
  }
  if (hy_spec_add_circuit(ld->spec, &d) != HY_OK) return add_failed(ld, "circuit", d.name);
  HY_TRY(load_volumes(ld, &it, n, d.name));
  HY_TRY(load_sources(ld, &it, n, d.name));
  HY_TRY(load_throttles(ld, &it, n));
  HY_TRY(load_valves(ld, &it, n));
  HY_TRY(load_pressure_valves(ld, &it, n, 0));
  HY_TRY(load_pressure_valves(ld, &it, n, 1));
  return load_cylinders(ld, &it, n);
}

static hy_status load_hydraulics(loader* ld, const node* root) {
  static const char* const keys[] = {"circuits", NULL};
  const node* h = map_val(root, "hydraulics");
  if (is_null(h)) return HY_OK;
  if (h->kind != NODE_MAP) {
    char got[96];
    return FAIL_AT(ld, h, "hydraulics: expected a mapping with the key 'circuits'; got %s",
                   describe(h, got, sizeof got));
  }
  HY_TRY(check_keys(ld, h, keys, "hydraulics"));
  const node* list;
  HY_TRY(get_list(ld, h, "circuits", 1, "circuits", &list));
  for (int i = 0; i < list->nkid; i++) HY_TRY(load_circuit(ld, list, i));
  return HY_OK;
}

//----- top level -----------------------------------------------------------------------------

// A whole number >= lo (and small enough for an int).
static hy_status get_count(loader* ld, const char* where, const char* label, const node* v,
                           const node* key, int lo, int* out) {
  double x;
  HY_TRY(get_number(ld, where, label, v, key, &x));
  if (x >= lo && x <= 1e6 && x == floor(x)) {
    *out = (int)x;
    return HY_OK;
  }
  char got[96];
  return FAIL_AT(ld, place(v, key), "%s: %s: expected a whole number from %d to 1000000, got %s",
                 where, label, lo, describe(v, got, sizeof got));
}

static hy_status load_solver(loader* ld, const node* root, hy_option* opt) {
  static const char* const keys[] = {
      "integrator",      "dt",           "t_end",         "formulation",
      "tangent",         "penalty",      "tol_position",  "max_iterations",
      "partition_rcond", "tol_pressure", "reuse_tangent", NULL};
  static const char* const yes_no[] = {"false", "true", NULL};
  // the names live in one table each (hydyn/names.h); the enum values are the list order
  const char* integrators[HY_INTEG_COUNT + 1];
  for (int k = 0; k < HY_INTEG_COUNT; k++) integrators[k] = hy_integrator_name((hy_integrator)k);
  integrators[HY_INTEG_COUNT] = NULL;
  const char* forms[HY_FORM_COUNT + 1];
  for (int k = 0; k < HY_FORM_COUNT; k++) forms[k] = hy_formulation_name((hy_formulation)k);
  forms[HY_FORM_COUNT] = NULL;
  const char* tangents[HY_TANGENT_COUNT + 1];
  for (int k = 0; k < HY_TANGENT_COUNT; k++) tangents[k] = hy_tangent_name((hy_tangent)k);
  tangents[HY_TANGENT_COUNT] = NULL;
  const node* n = map_val(root, "solver");
  if (is_null(n)) return HY_OK;
  item it;
  snprintf(it.where, sizeof it.where, "solver");
  snprintf(it.what, sizeof it.what, "solver");
  if (n->kind != NODE_MAP) {
    char got[96], expected[256];
    join_names(expected, sizeof expected, keys);
    return FAIL_AT(ld, n, "solver: expected a mapping with keys %s; got %s", expected,
                   describe(n, got, sizeof got));
  }
  HY_TRY(check_keys(ld, n, keys, it.what));
  if (map_val(n, "integrator")) {
    int k;
    HY_TRY(get_enum(ld, it.where, KEY(n, "integrator"), integrators, &k));
    opt->integrator = (hy_integrator)k;
  }
  if (map_val(n, "dt")) {
    HY_TRY(get_positive(ld, it.where, KEY(n, "dt"), 0, "s", &opt->dt));
  }
  if (map_val(n, "t_end")) {
    HY_TRY(get_positive(ld, it.where, KEY(n, "t_end"), 0, "s", &opt->t_end));
  }
  if (map_val(n, "formulation")) {
    int k;
    HY_TRY(get_enum(ld, it.where, KEY(n, "formulation"), forms, &k));
    opt->formulation = (hy_formulation)k;
  }
  if (map_val(n, "tangent")) {
    int k;
    HY_TRY(get_enum(ld, it.where, KEY(n, "tangent"), tangents, &k));
    opt->tangent = (hy_tangent)k;
  }
  if (map_val(n, "penalty")) {
    HY_TRY(get_positive(ld, it.where, KEY(n, "penalty"), 0, "N/m", &opt->penalty));
  }
  if (map_val(n, "tol_position")) {
    HY_TRY(get_positive(ld, it.where, KEY(n, "tol_position"), 0, "rad or m", &opt->tol_pos));
  }
  if (map_val(n, "tol_pressure")) {
    HY_TRY(get_positive(ld, it.where, KEY(n, "tol_pressure"), 0, "Pa", &opt->tol_p));
  }
  if (map_val(n, "max_iterations")) {
    HY_TRY(get_count(ld, it.where, KEY(n, "max_iterations"), 1, &opt->max_iter));
  }
  if (map_val(n, "reuse_tangent")) {
    HY_TRY(get_enum(ld, it.where, KEY(n, "reuse_tangent"), yes_no, &opt->reuse_tangent));
  }
  if (map_val(n, "partition_rcond")) {
    const node* v = map_val(n, "partition_rcond");
    double x;
    HY_TRY(get_number(ld, it.where, "partition_rcond", v, map_key(n, "partition_rcond"), &x));
    if (!(x > 0 && x < 1)) {
      char got[96];
      return FAIL_AT(ld, place(v, map_key(n, "partition_rcond")),
                     "solver: partition_rcond: expected a number between 0 and 1 (exclusive), "
                     "got %s",
                     describe(v, got, sizeof got));
    }
    opt->partition_rcond = x;
  }
  return HY_OK;
}

// Sections that later features will fill; named here so a file using them gets a clear answer
// instead of "unknown key".
static const struct {
  const char* key;
  const char* arrives;
} kReserved[] = {
    {"friction", "arrives with the seal friction models"},
};

// The model name when the file gives none: the file name without folder and extension.
static void file_stem(const char* path, char out[HY_NAME_MAX]) {
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  const char* dot = strrchr(base, '.');
  if (dot && dot != base) len = (size_t)(dot - base);
  if (len >= HY_NAME_MAX) len = HY_NAME_MAX - 1;
  memcpy(out, base, len);
  out[len] = 0;
  if (len == 0) snprintf(out, HY_NAME_MAX, "model");
}

static hy_status load_root(loader* ld, const node* root) {
  static const char* const keys[] = {"name",   "description", "gravity", "planar", "bodies",
                                     "joints", "markers",     "signals", "loads",  "cut_joints",
                                     "forces", "hydraulics",  "solver",  NULL};
  static const char* const planar_words[] = {"auto", "true", "false", NULL};
  char got[96];
  if (!root) {
    return fail_src(ld, HY_ERR_MODEL, ld->path, 1, 1,
                    "the model file is empty (expected a "
                    "mapping with at least the keys 'bodies' and 'joints')");
  }
  if (root->kind != NODE_MAP) {
    return FAIL_AT(ld, root,
                   "the top level of a model file must be a mapping with keys such "
                   "as 'name', 'bodies' and 'joints'; got %s",
                   describe(root, got, sizeof got));
  }
  for (int i = 0; i < root->nkid; i += 2) {
    const node* k = root->kid[i];
    for (size_t r = 0; k->kind == NODE_SCALAR && r < sizeof kReserved / sizeof kReserved[0]; r++) {
      if (strcmp(k->text, kReserved[r].key) == 0) {
        return FAIL_AT(ld, k, "not supported yet: '%s' %s", kReserved[r].key, kReserved[r].arrives);
      }
    }
    // the solver's keys are the likeliest to be written at the top level by mistake
    static const char* const solver_keys[] = {"formulation", "tangent", "penalty", "integrator",
                                              "dt",          "t_end",   NULL};
    for (int q = 0; k->kind == NODE_SCALAR && solver_keys[q]; q++) {
      if (strcmp(k->text, solver_keys[q]) == 0) {
        return FAIL_AT(ld, k, "'%s' is a key of the 'solver' section, not of the top level",
                       k->text);
      }
    }
  }
  HY_TRY(check_keys(ld, root, keys, "the top level"));

  char name[HY_NAME_MAX];
  if (map_val(root, "name")) {
    HY_TRY(get_name(ld, "", KEY(root, "name"), name));
  } else {
    file_stem(ld->path, name);
  }
  const node* desc = map_val(root, "description");
  if (desc && desc->kind != NODE_SCALAR) {
    return FAIL_AT(ld, desc, "description: expected text, got %s", describe(desc, got, sizeof got));
  }
  hy_option opt = hy_option_default();
  if (map_val(root, "gravity")) {
    HY_TRY(get_vec(ld, "", KEY(root, "gravity"), 3, opt.gravity));
  }
  HY_TRY(load_solver(ld, root, &opt));
  int planar = 0;
  if (map_val(root, "planar")) {
    HY_TRY(get_enum(ld, "", KEY(root, "planar"), planar_words, &planar));
  }
  static const hy_planar planar_of[] = {HY_PLANAR_AUTO, HY_PLANAR_YES, HY_PLANAR_NO};
  if (hy_spec_set_name(ld->spec, name, ld->path) != HY_OK ||
      hy_spec_set_option(ld->spec, &opt) != HY_OK ||
      hy_spec_set_planar(ld->spec, planar_of[planar]) != HY_OK) {
    return HY_FAIL(ld->err, HY_ERR_ARG, "cannot set the model name or options");
  }
  HY_TRY(load_bodies(ld, root));
  HY_TRY(load_joints(ld, root));
  HY_TRY(load_markers(ld, root));
  HY_TRY(load_signals(ld, root));
  HY_TRY(load_loads(ld, root));
  HY_TRY(load_cuts(ld, root));
  HY_TRY(load_forces(ld, root));
  HY_TRY(load_hydraulics(ld, root));
  return HY_OK;
}

//----- libyaml -> node tree ------------------------------------------------------------------

// 1-based line and column (in characters) of byte `offset` of text.
static void offset_to_mark(const char* text, size_t size, size_t offset, int* line, int* col) {
  size_t end = offset < size ? offset : size;
  int l = 1, c = 1;
  for (size_t i = 0; i < end; i++) {
    if (text[i] == '\n') {
      l++, c = 1;
    } else if (((unsigned char)text[i] & 0xc0) != 0x80) {
      c++;  // UTF-8 continuation bytes do not start a new character
    }
  }
  *line = l;
  *col = c;
}

static hy_status parse_error(loader* ld, const yaml_parser_t* p, const char* text, size_t size) {
  if (p->error == YAML_MEMORY_ERROR) {
    return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory parsing '%s'", ld->path);
  }
  const char* problem = p->problem ? p->problem : "syntax error";
  int line, col;
  if (p->error == YAML_READER_ERROR) {
    // Reader errors (bad encoding, control characters) carry a byte offset, not a mark.
    offset_to_mark(text, size, p->problem_offset, &line, &col);
    if (p->problem_value >= 0) {
      return fail_src(ld, HY_ERR_PARSE, ld->path, line, col, "%s (byte 0x%02x)", problem,
                      (unsigned)p->problem_value & 0xffu);
    }
    return fail_src(ld, HY_ERR_PARSE, ld->path, line, col, "%s", problem);
  }
  line = clamp_int(p->problem_mark.line) + 1;
  col = clamp_int(p->problem_mark.column) + 1;
  if (p->problem_mark.index >= size) {
    // At the end of the input libyaml counts a virtual line break after the last line; the
    // real end of the text is where a user looks for a truncated file.
    offset_to_mark(text, size, size, &line, &col);
  }
  if (p->context) {
    return fail_src(ld, HY_ERR_PARSE, ld->path, line, col, "%s (%s at line %d, column %d)", problem,
                    p->context, clamp_int(p->context_mark.line) + 1,
                    clamp_int(p->context_mark.column) + 1);
  }
  // The commonest slip in a hand-written model: a key indented deeper than its siblings.
  const char* hint = strstr(problem, "mapping values are not allowed")
                         ? " (is this line indented deeper than the key above it?)"
                         : "";
  return fail_src(ld, HY_ERR_PARSE, ld->path, line, col, "%s%s", problem, hint);
}

// Builds the node tree of the single document in text. *root is NULL for an empty stream.
static hy_status build_tree(loader* ld, const char* text, size_t size, node** root_out) {
  yaml_parser_t p;
  *root_out = NULL;
  if (!yaml_parser_initialize(&p)) {
    return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory creating the YAML parser");
  }
  yaml_parser_set_input_string(&p, (const unsigned char*)text, size);
  node* root = NULL;
  node* stack[MAX_DEPTH];
  int depth = 0, ndoc = 0, done = 0;
  hy_status st = HY_OK;
  while (!done && st == HY_OK) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&p, &ev)) {
      st = parse_error(ld, &p, text, size);
      break;
    }
    const yaml_mark_t* mark = &ev.start_mark;
    node* nn = NULL;
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        done = 1;
        break;
      case YAML_DOCUMENT_START_EVENT:
        if (++ndoc > 1) {
          st = fail_src(ld, HY_ERR_PARSE, ld->path, clamp_int(mark->line) + 1,
                        clamp_int(mark->column) + 1,
                        "a model file holds one YAML document; a second one starts here");
        }
        break;
      case YAML_ALIAS_EVENT:
        st = fail_src(ld, HY_ERR_PARSE, ld->path, clamp_int(mark->line) + 1,
                      clamp_int(mark->column) + 1,
                      "aliases ('*%s') are not supported in model files; write the value out",
                      ev.data.alias.anchor ? (const char*)ev.data.alias.anchor : "");
        break;
      case YAML_SCALAR_EVENT:
        nn = node_new(NODE_SCALAR, mark);
        if (nn) {
          nn->len = ev.data.scalar.length;
          nn->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
          nn->text = hy_malloc(nn->len + 1);
          if (nn->text) {
            if (nn->len) memcpy(nn->text, ev.data.scalar.value, nn->len);
            nn->text[nn->len] = 0;
          } else {
            node_free(nn);
            nn = NULL;
          }
        }
        if (!nn) st = HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory parsing '%s'", ld->path);
        break;
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT:
        if (depth == MAX_DEPTH) {
          st = fail_src(ld, HY_ERR_PARSE, ld->path, clamp_int(mark->line) + 1,
                        clamp_int(mark->column) + 1, "nesting deeper than %d levels", MAX_DEPTH);
          break;
        }
        nn = node_new(ev.type == YAML_SEQUENCE_START_EVENT ? NODE_SEQ : NODE_MAP, mark);
        if (!nn) st = HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory parsing '%s'", ld->path);
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        if (depth > 0) depth--;
        break;
      default:
        break;
    }
    if (nn) {
      // Attach first, so the tree owns the node before it can become an open container.
      if (depth == 0) {
        root = nn;
      } else if (node_append(stack[depth - 1], nn) != HY_OK) {
        node_free(nn);
        st = HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory parsing '%s'", ld->path);
        nn = NULL;
      }
      if (nn && nn->kind != NODE_SCALAR) stack[depth++] = nn;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&p);
  if (st != HY_OK) {
    node_free(root);
    return st;
  }
  *root_out = root;
  return HY_OK;
}

//----- public entry points -------------------------------------------------------------------

static hy_status load_text(const char* text, size_t size, const char* path, hy_model** out,
                           hy_error* err) {
  loader ld;
  memset(&ld, 0, sizeof ld);
  ld.path = path;
  ld.err = err;
  // Signal files are found next to the model file.
  const char* slash = strrchr(path, '/');
  if (slash && (size_t)(slash - path) + 2 <= sizeof ld.dir) {
    memcpy(ld.dir, path, (size_t)(slash - path) + 1);
    ld.dir[slash - path + 1] = 0;
  }
  node* root = NULL;
  HY_TRY(build_tree(&ld, text, size, &root));
  hy_status st = hy_spec_create(&ld.spec);
  if (st != HY_OK) {
    node_free(root);
    return HY_FAIL(err, st, "cannot create a model spec");
  }
  st = load_root(&ld, root);
  node_free(root);
  if (st == HY_OK) st = hy_model_compile(ld.spec, out, err);
  hy_spec_free(ld.spec);
  return st;
}

hy_status hy_model_load_string(const char* text, size_t size, const char* name, hy_model** out,
                               hy_error* err) {
  if (!out) return HY_FAIL(err, HY_ERR_ARG, "null output pointer");
  *out = NULL;
  if (!text && size > 0) return HY_FAIL(err, HY_ERR_ARG, "null text");
  return load_text(text ? text : "", size, name && name[0] ? name : "<string>", out, err);
}

hy_status hy_model_load(const char* path, hy_model** out, hy_error* err) {
  if (!out) return HY_FAIL(err, HY_ERR_ARG, "null output pointer");
  *out = NULL;
  if (!path) return HY_FAIL(err, HY_ERR_ARG, "null path");
  char* text;
  size_t size;
  const char* why;
  hy_status st = read_file(path, &text, &size, &why);
  if (st == HY_ERR_NOMEM) return HY_FAIL(err, st, "out of memory reading '%s'", path);
  if (st != HY_OK) {
    return hy_error_set_src(err, HY_ERR_IO, path, 0, 0, "cannot read model file: %s", why);
  }
  st = load_text(text, size, path, out, err);
  hy_free(text);
  return st;
}

int hy_builtin_count(void) { return hy_builtin_model_count; }

const char* hy_builtin_name(int i) {
  if (i < 0 || i >= hy_builtin_model_count) return NULL;
  return hy_builtin_models[i].name;
}

hy_status hy_model_load_any(const char* what, hy_model** out, hy_error* err) {
  if (!out) return HY_FAIL(err, HY_ERR_ARG, "null output pointer");
  *out = NULL;
  if (!what) return HY_FAIL(err, HY_ERR_ARG, "null model name");
  // A file that exists but cannot be read is still the user's file: report its error rather
  // than falling back to a built-in of the same name. A folder of that name is not a file.
  struct stat info;
  if (stat(what, &info) == 0 && !S_ISDIR(info.st_mode)) return hy_model_load(what, out, err);
  size_t len = strlen(what);
  if (len > 5 && strcmp(what + len - 5, ".yaml") == 0) len -= 5;
  for (int i = 0; i < hy_builtin_model_count; i++) {
    const char* name = hy_builtin_models[i].name;
    if (strlen(name) == len && strncmp(name, what, len) == 0) {
      char path[PATH_MAX_];
      snprintf(path, sizeof path, "models/%s.yaml", name);
      return hy_model_load_string(hy_builtin_models[i].text, hy_builtin_models[i].size, path, out,
                                  err);
    }
  }
  char list[400];
  size_t used = 0;
  list[0] = 0;
  for (int i = 0; i < hy_builtin_model_count; i++) {
    int w =
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", hy_builtin_models[i].name);
    if (w < 0 || (size_t)w >= sizeof list - used) break;
    used += (size_t)w;
  }
  return HY_FAIL(err, HY_ERR_IO, "no such file or built-in model '%s' (built-ins: %s)", what,
                 hy_builtin_model_count ? list : "none");
}
