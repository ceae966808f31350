// Reading the node tree: messages that name the offending node, mappings and their keys, and
// typed values (numbers, vectors, names, words, lists); also whole files.
// stat() is POSIX, outside strict C11
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"
#include "io/io_yaml.h"

// Files larger than this are not model files; refusing them avoids a pointless huge allocation.
#define MAX_FILE_BYTES ((size_t)64 << 20)

//----- messages ------------------------------------------------------------------------------

hy_status hy_io_fail_src(hy_io_loader* ld, hy_status code, const char* path, int line, int col,
                         const char* fmt, ...) {
  char msg[480];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hy_error_set_src(ld->err, code, path, line, col, "%s", msg);
}

// Copies at most `size`-1 bytes of text for a message, with control bytes shown as '?' and
// an ellipsis when cut, so a hostile scalar cannot garble or flood the message.
void hy_io_clip(char* buf, size_t size, const char* text, size_t len) {
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
const char* hy_io_describe(const hy_io_node* n, char* buf, size_t size) {
  if (hy_io_is_null(n)) return "nothing";
  if (n->kind == HY_IO_SEQ) {
    snprintf(buf, size, "a list of %d", n->nkid);
    return buf;
  }
  if (n->kind == HY_IO_MAP) return "a mapping";
  char text[64];
  hy_io_clip(text, sizeof text, n->text, n->len);
  if (n->plain) {
    snprintf(buf, size, "'%s'", text);
  } else {
    snprintf(buf, size, "the quoted string \"%s\"", text);
  }
  return buf;
}

// Errors about a value point at the value, except when it is empty: libyaml places an empty
// value at the next token (often the following line), so the key is the better place then.
const hy_io_node* hy_io_place(const hy_io_node* val, const hy_io_node* key) {
  if (val && !(val->kind == HY_IO_SCALAR && val->len == 0 && val->plain)) return val;
  return key ? key : val;
}

//----- mappings ------------------------------------------------------------------------------

// Index of `key` in mapping n (pair index), or -1.
static int map_find(const hy_io_node* n, const char* key) {
  if (!n || n->kind != HY_IO_MAP) return -1;
  for (int i = 0; i + 1 < n->nkid; i += 2) {
    const hy_io_node* k = n->kid[i];
    if (k->kind == HY_IO_SCALAR && strlen(k->text) == k->len && strcmp(k->text, key) == 0) {
      return i / 2;
    }
  }
  return -1;
}

const hy_io_node* hy_io_map_val(const hy_io_node* n, const char* key) {
  int i = map_find(n, key);
  return i < 0 ? NULL : n->kid[2 * i + 1];
}

const hy_io_node* hy_io_map_key(const hy_io_node* n, const char* key) {
  int i = map_find(n, key);
  return i < 0 ? NULL : n->kid[2 * i];
}

void hy_io_join_names(char* buf, size_t size, const char* const* names) {
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
hy_status hy_io_check_keys(hy_io_loader* ld, const hy_io_node* map, const char* const* allowed,
                           const char* what) {
  char expected[256];
  hy_io_join_names(expected, sizeof expected, allowed);
  for (int i = 0; i + 1 < map->nkid; i += 2) {
    const hy_io_node* k = map->kid[i];
    char got[96];
    if (k->kind != HY_IO_SCALAR || hy_io_is_null(k)) {
      return HY_IO_FAIL_AT(ld, k, "expected a key name in %s, got %s (expected one of: %s)", what,
                           hy_io_describe(k, got, sizeof got), expected);
    }
    int known = 0;
    for (int a = 0; allowed[a]; a++) {
      if (strlen(k->text) == k->len && strcmp(k->text, allowed[a]) == 0) known = 1;
    }
    if (!known) {
      char name[64];
      hy_io_clip(name, sizeof name, k->text, k->len);
      return HY_IO_FAIL_AT(ld, k, "unknown key '%s' in %s (expected one of: %s)", name, what,
                           expected);
    }
    // Only known keys reach this loop, so it runs at most once per allowed key before a
    // duplicate is found: linear in the size of the mapping.
    for (int j = 0; j < i; j += 2) {
      const hy_io_node* prev = map->kid[j];
      if (strcmp(prev->text, k->text) == 0) {
        return HY_IO_FAIL_AT(ld, k, "duplicate key '%s' in %s (first given at line %d, column %d)",
                             k->text, what, prev->line, prev->col);
      }
    }
  }
  return HY_OK;
}

//----- scalar values -------------------------------------------------------------------------

// Parses a decimal number: [+-] digits [. digits] [(e|E) [+-] digits], or with the digits only
// after the point. Returns 1 on success, 0 if it is not a number, -1 if it overflows.
int hy_io_parse_number(const char* s, size_t len, double* out) {
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
hy_status hy_io_get_number(hy_io_loader* ld, const char* where, const char* label,
                           const hy_io_node* v, const hy_io_node* key, double* out) {
  char got[96];
  const char* sep = where[0] ? ": " : "";
  int r = 0;
  if (v && v->kind == HY_IO_SCALAR && v->plain) r = hy_io_parse_number(v->text, v->len, out);
  if (r == 1) return HY_OK;
  const hy_io_node* at = hy_io_place(v, key);
  if (r < 0) {
    return HY_IO_FAIL_AT(ld, at, "%s%s%s: number %s is out of range", where, sep, label,
                         hy_io_describe(v, got, sizeof got));
  }
  return HY_IO_FAIL_AT(ld, at, "%s%s%s: expected a number, got %s", where, sep, label,
                       hy_io_describe(v, got, sizeof got));
}

// As get_number, and the value must be > 0 (or >= 0 when allow_zero). `unit` ends the message.
hy_status hy_io_get_positive(hy_io_loader* ld, const char* where, const char* label,
                             const hy_io_node* v, const hy_io_node* key, int allow_zero,
                             const char* unit, double* out) {
  HY_TRY(hy_io_get_number(ld, where, label, v, key, out));
  if (*out > 0 || (allow_zero && *out == 0)) return HY_OK;
  char got[96];
  return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s%s%s: expected a %s number (%s), got %s", where,
                       where[0] ? ": " : "", label, allow_zero ? "non-negative" : "positive", unit,
                       hy_io_describe(v, got, sizeof got));
}

// A list of exactly n numbers.
hy_status hy_io_get_vec(hy_io_loader* ld, const char* where, const char* label, const hy_io_node* v,
                        const hy_io_node* key, int n, double* out) {
  const char* sep = where[0] ? ": " : "";
  if (!v || v->kind != HY_IO_SEQ || v->nkid != n) {
    char got[96];
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s%s%s: expected a list of %d numbers, got %s",
                         where, sep, label, n, hy_io_describe(v, got, sizeof got));
  }
  for (int i = 0; i < n; i++) {
    char elem[96];
    snprintf(elem, sizeof elem, "%s[%d]", label, i);
    HY_TRY(hy_io_get_number(ld, where, elem, v->kid[i], NULL, &out[i]));
  }
  return HY_OK;
}

// A scalar used as a name: non-empty, no NUL inside, shorter than HY_NAME_MAX.
hy_status hy_io_get_name(hy_io_loader* ld, const char* where, const char* label,
                         const hy_io_node* v, const hy_io_node* key, char out[HY_NAME_MAX]) {
  const char* sep = where[0] ? ": " : "";
  char got[96];
  if (!v || v->kind != HY_IO_SCALAR || hy_io_is_null(v) || v->len == 0) {
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s%s%s: expected a name, got %s", where, sep,
                         label, hy_io_describe(v, got, sizeof got));
  }
  if (strlen(v->text) != v->len) {
    return HY_IO_FAIL_AT(ld, v, "%s%s%s: a name cannot contain a NUL character", where, sep, label);
  }
  if (v->len >= HY_NAME_MAX) {
    return HY_IO_FAIL_AT(ld, v, "%s%s%s: name %s is too long (at most %d bytes)", where, sep, label,
                         hy_io_describe(v, got, sizeof got), HY_NAME_MAX - 1);
  }
  memcpy(out, v->text, v->len + 1);
  return HY_OK;
}

// One of the words in `names` (NULL-terminated); *out is its index.
hy_status hy_io_get_enum(hy_io_loader* ld, const char* where, const char* label,
                         const hy_io_node* v, const hy_io_node* key, const char* const* names,
                         int* out) {
  if (v && v->kind == HY_IO_SCALAR && strlen(v->text) == v->len) {
    for (int i = 0; names[i]; i++) {
      if (strcmp(v->text, names[i]) == 0) {
        *out = i;
        return HY_OK;
      }
    }
  }
  char expected[160], got[96];
  hy_io_join_names(expected, sizeof expected, names);
  return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s%s%s: expected one of: %s; got %s", where,
                       where[0] ? ": " : "", label, expected, hy_io_describe(v, got, sizeof got));
}

// A required key: missing (or empty) is reported at the mapping with what is expected.
hy_status hy_io_require(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                        const char* key, const char* expect) {
  if (!hy_io_is_null(hy_io_map_val(map, key))) return HY_OK;
  return HY_IO_FAIL_AT(ld, map, "%s: key '%s' is required (%s)", it->where, key, expect);
}

hy_status hy_io_require_name(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                             const char* key, const char* expect, char out[HY_NAME_MAX]) {
  HY_TRY(hy_io_require(ld, it, map, key, expect));
  return hy_io_get_name(ld, it->where, HY_IO_KEY(map, key), out);
}

hy_status hy_io_require_number(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                               const char* key, const char* expect, double* out) {
  HY_TRY(hy_io_require(ld, it, map, key, expect));
  return hy_io_get_number(ld, it->where, HY_IO_KEY(map, key), out);
}

hy_status hy_io_require_enum(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                             const char* key, const char* expect, const char* const* names,
                             int* out) {
  HY_TRY(hy_io_require(ld, it, map, key, expect));
  return hy_io_get_enum(ld, it->where, HY_IO_KEY(map, key), names, out);
}

void hy_io_item_init(hy_io_item* it, const char* list, const char* kind, int index,
                     const hy_io_node* n) {
  // The name is taken for messages before anything is validated, so even the first error in
  // an element can say which element it is.
  const hy_io_node* nm = hy_io_map_val(n, "name");
  if (nm && nm->kind == HY_IO_SCALAR && !hy_io_is_null(nm)) {
    char shown[48];
    hy_io_clip(shown, sizeof shown, nm->text, nm->len);
    snprintf(it->where, sizeof it->where, "%s[%d] '%s'", list, index, shown);
    snprintf(it->what, sizeof it->what, "%s '%s'", kind, shown);
  } else {
    snprintf(it->where, sizeof it->where, "%s[%d]", list, index);
    snprintf(it->what, sizeof it->what, "%s[%d]", list, index);
  }
}

// The list under top-level `key`. Absent or empty gives n = 0 (an error when required).
hy_status hy_io_get_list(hy_io_loader* ld, const hy_io_node* root, const char* key, int required,
                         const char* expect, const hy_io_node** out) {
  const hy_io_node* v = hy_io_map_val(root, key);
  *out = NULL;
  if (v && v->kind == HY_IO_SEQ && v->nkid > 0) {
    *out = v;
    return HY_OK;
  }
  if (hy_io_is_null(v) || (v->kind == HY_IO_SEQ && v->nkid == 0)) {
    if (!required) return HY_OK;
    const hy_io_node* at = v ? hy_io_place(v, hy_io_map_key(root, key)) : root;
    return HY_IO_FAIL_AT(ld, at, "key '%s' is required (a non-empty list of %s)", key, expect);
  }
  char got[96];
  return HY_IO_FAIL_AT(ld, v, "%s: expected a list of %s, got %s", key, expect,
                       hy_io_describe(v, got, sizeof got));
}

// The element must be a mapping; `keys` is quoted in the message.
hy_status hy_io_expect_map(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                           const char* const* keys) {
  if (n->kind == HY_IO_MAP) return HY_OK;
  char expected[256], got[96];
  hy_io_join_names(expected, sizeof expected, keys);
  return HY_IO_FAIL_AT(ld, n, "%s: expected a mapping with keys %s; got %s", it->where, expected,
                       hy_io_describe(n, got, sizeof got));
}

// Element i of a list section: it must be a mapping with only `keys`; fills `it` for messages.
hy_status hy_io_list_item(hy_io_loader* ld, const hy_io_node* list, int i, const char* section,
                          const char* kind, const char* const* keys, hy_io_item* it,
                          const hy_io_node** out) {
  const hy_io_node* n = list->kid[i];
  hy_io_item_init(it, section, kind, i, n);
  HY_TRY(hy_io_expect_map(ld, it, n, keys));
  HY_TRY(hy_io_check_keys(ld, n, keys, it->what));
  *out = n;
  return HY_OK;
}

// Where a definition starts in the file.
hy_srcpos hy_io_pos_of(const hy_io_node* n) {
  hy_srcpos p = {n->line, n->col};
  return p;
}

// Names must be unique within a list: the element's name is compared with those before it.
hy_status hy_io_check_unique(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* list,
                             int index, const char* kind) {
  const hy_io_node* nm = hy_io_map_val(list->kid[index], "name");
  if (!nm) return HY_OK;
  for (int j = 0; j < index; j++) {
    const hy_io_node* prev = hy_io_map_val(list->kid[j], "name");
    if (prev && prev->len == nm->len && memcmp(prev->text, nm->text, nm->len) == 0) {
      return HY_IO_FAIL_AT(ld, nm,
                           "%s: name '%s' is already used by the %s at line %d, column %d "
                           "(%s names must be unique)",
                           it->where, nm->text, kind, list->kid[j]->line, list->kid[j]->col, kind);
    }
  }
  return HY_OK;
}

// A whole number that fits an int.
hy_status hy_io_get_count(hy_io_loader* ld, const char* where, const char* label,
                          const hy_io_node* v, const hy_io_node* key, int* out) {
  double x;
  HY_TRY(hy_io_get_number(ld, where, label, v, key, &x));
  char got[96];
  if (x != floor(x)) {
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s%s%s: expected a whole number, got %s", where,
                         where[0] ? ": " : "", label, hy_io_describe(v, got, sizeof got));
  }
  if (!(fabs(x) <= INT_MAX)) {
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s%s%s: number %s is out of range", where,
                         where[0] ? ": " : "", label, hy_io_describe(v, got, sizeof got));
  }
  *out = (int)x;
  return HY_OK;
}

//----- files -------------------------------------------------------------------------------

// Reads a whole file into a NUL-terminated buffer. On failure returns HY_ERR_IO (or NOMEM) with
// errno-style detail in *why and nothing allocated.
hy_status hy_io_read_file(const char* path, char** out, size_t* size, const char** why) {
  *out = NULL;
  *size = 0;
  *why = "";
  // fopen opens a folder on POSIX systems and only the first read fails ("Is a directory"); the
  // check first names the mistake and costs no allocation
  struct stat info;
  if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
    *why = "it is a directory, not a file";
    return HY_ERR_IO;
  }
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
