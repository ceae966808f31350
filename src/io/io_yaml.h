// Internal header of the YAML loader (src/io/io_yaml*.c): the node tree that io_yaml_tree.c
// builds from libyaml's events, the loader state, and the readers the section files share.
//
// The loader checks the form of a file only: YAML syntax, known and required keys, types (a
// number where a number is expected, a name, one of a list of words) and the shorthand forms it
// converts (rod and box inertias, orifices, diameters). Whether the values make a valid model
// is decided by hy_model_check (src/model/model_check.c), the same for a model built in code.

#ifndef HYDYN_SRC_IO_IO_YAML_H_
#define HYDYN_SRC_IO_IO_YAML_H_

#include <stddef.h>

#include "hydyn/model.h"

// Paths of model and signal files, as stored in hy_error.src_path and a little more.
#define HY_IO_PATH_MAX 512

//----- node tree (io_yaml_tree.c) ------------------------------------------------------------

typedef enum hy_io_node_kind { HY_IO_SCALAR, HY_IO_SEQ, HY_IO_MAP } hy_io_node_kind;

typedef struct hy_io_node {
  hy_io_node_kind kind;
  int line, col;            // start mark, 1-based
  int plain;                // scalar written without quotes: only those can be numbers or null
  char* text;               // scalar text, NUL-terminated (NULL for containers)
  size_t len;               // bytes of text (an escape such as "\0" can put a NUL inside)
  struct hy_io_node** kid;  // sequence: items; mapping: key, value, key, value, ...
  int nkid, cap;
} hy_io_node;

// The loader's state while it walks one file.
typedef struct hy_io_loader {
  const char* path;          // model file name for messages
  char dir[HY_IO_PATH_MAX];  // its folder with a trailing '/', "" for the working directory
  hy_error* err;
  hy_spec* spec;
} hy_io_loader;

// One element of a list section (or a single section such as solver), named in messages.
typedef struct hy_io_item {
  char where[160];  // prefix of value errors: "bodies[1] 'link2'"
  char what[160];   // subject of key errors: "body 'link2'"
} hy_io_item;

// Builds the node tree of the single document in text; *root_out is NULL for an empty stream.
// Syntax errors are HY_ERR_PARSE at libyaml's position.
hy_status hy_io_build_tree(hy_io_loader* ld, const char* text, size_t size, hy_io_node** root_out);
// Frees a node and everything under it (NULL is a no-op).
void hy_io_node_free(hy_io_node* n);
// YAML 1.1 null: absent, an empty plain scalar or one of the null words.
int hy_io_is_null(const hy_io_node* n);

//----- messages (io_yaml_read.c) -------------------------------------------------------------

// Records an error at (path, line, col) in ld->err and returns code.
hy_status hy_io_fail_src(hy_io_loader* ld, hy_status code, const char* path, int line, int col,
                         const char* fmt, ...) __attribute__((format(printf, 6, 7)));

// A model error at node `at` of the model file.
#define HY_IO_FAIL_AT(ld, at, ...) \
  hy_io_fail_src((ld), HY_ERR_MODEL, (ld)->path, (at)->line, (at)->col, __VA_ARGS__)

// Copies text for a message: control bytes shown as '?', an ellipsis when cut.
void hy_io_clip(char* buf, size_t size, const char* text, size_t len);
// "nothing", "a list of 2", "a mapping", "'abc'" or "the quoted string \"1.5\"".
const char* hy_io_describe(const hy_io_node* n, char* buf, size_t size);
// Where an error about value `val` (of key `key`) is reported: the value, or the key when the
// value is empty.
const hy_io_node* hy_io_place(const hy_io_node* val, const hy_io_node* key);
// "a, b, c" from a NULL-terminated list of names.
void hy_io_join_names(char* buf, size_t size, const char* const* names);

//----- mappings ------------------------------------------------------------------------------

// Value and key node of `key` in mapping n, or NULL.
const hy_io_node* hy_io_map_val(const hy_io_node* n, const char* key);
const hy_io_node* hy_io_map_key(const hy_io_node* n, const char* key);

// The (label, value node, key node) arguments of the get_* readers for `key` of `map`: the key
// names the value in messages and its node places errors when the value is missing.
#define HY_IO_KEY(map, key) (key), hy_io_map_val((map), (key)), hy_io_map_key((map), (key))

// Every key of `map` must be a plain name listed in `allowed` (NULL-terminated) and appear once.
hy_status hy_io_check_keys(hy_io_loader* ld, const hy_io_node* map, const char* const* allowed,
                           const char* what);
// A required key: missing (or empty) is reported at the mapping with what is expected.
hy_status hy_io_require(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                        const char* key, const char* expect);

//----- values --------------------------------------------------------------------------------

// Parses a plain decimal number; 1 on success, 0 if it is not a number, -1 if it overflows.
int hy_io_parse_number(const char* s, size_t len, double* out);
// Value v (under key, nullable) as a finite number; label names it in messages.
hy_status hy_io_get_number(hy_io_loader* ld, const char* where, const char* label,
                           const hy_io_node* v, const hy_io_node* key, double* out);
// As hy_io_get_number, and > 0 (>= 0 with allow_zero); `unit` ends the message. Only for the
// inputs of shorthand forms, whose sign the converted value no longer shows (a rod's length, a
// box's edges, a diameter): the ranges of model values are hy_model_check's.
hy_status hy_io_get_positive(hy_io_loader* ld, const char* where, const char* label,
                             const hy_io_node* v, const hy_io_node* key, int allow_zero,
                             const char* unit, double* out);
// A list of exactly n numbers.
hy_status hy_io_get_vec(hy_io_loader* ld, const char* where, const char* label, const hy_io_node* v,
                        const hy_io_node* key, int n, double* out);
// A whole number that fits an int.
hy_status hy_io_get_count(hy_io_loader* ld, const char* where, const char* label,
                          const hy_io_node* v, const hy_io_node* key, int* out);
// A scalar used as a name: non-empty, no NUL inside, shorter than HY_NAME_MAX.
hy_status hy_io_get_name(hy_io_loader* ld, const char* where, const char* label,
                         const hy_io_node* v, const hy_io_node* key, char out[HY_NAME_MAX]);
// One of the words in `names` (NULL-terminated); *out is its index.
hy_status hy_io_get_enum(hy_io_loader* ld, const char* where, const char* label,
                         const hy_io_node* v, const hy_io_node* key, const char* const* names,
                         int* out);
// A required key (hy_io_require) whose value is a name (hy_io_get_name), a number
// (hy_io_get_number), or one of the words in `names` (hy_io_get_enum).
hy_status hy_io_require_name(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                             const char* key, const char* expect, char out[HY_NAME_MAX]);
hy_status hy_io_require_number(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                               const char* key, const char* expect, double* out);
hy_status hy_io_require_enum(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                             const char* key, const char* expect, const char* const* names,
                             int* out);

//----- lists ---------------------------------------------------------------------------------

// Names element `index` of list `list` (kind "body") in messages.
void hy_io_item_init(hy_io_item* it, const char* list, const char* kind, int index,
                     const hy_io_node* n);
// The list under top-level `key`. Absent or empty gives NULL (an error when required).
hy_status hy_io_get_list(hy_io_loader* ld, const hy_io_node* root, const char* key, int required,
                         const char* expect, const hy_io_node** out);
// The element must be a mapping; `keys` is quoted in the message.
hy_status hy_io_expect_map(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                           const char* const* keys);
// Element i of a list section: a mapping with only `keys`; fills `it` for messages.
hy_status hy_io_list_item(hy_io_loader* ld, const hy_io_node* list, int i, const char* section,
                          const char* kind, const char* const* keys, hy_io_item* it,
                          const hy_io_node** out);
// Where a definition starts in the file.
hy_srcpos hy_io_pos_of(const hy_io_node* n);
// The name of element `index` must differ from those before it in the list.
hy_status hy_io_check_unique(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* list,
                             int index, const char* kind);

//----- files ---------------------------------------------------------------------------------

// Reads a whole file into a NUL-terminated buffer (hy_free it). HY_ERR_IO with the reason in
// *why, or HY_ERR_NOMEM; nothing is allocated on failure.
hy_status hy_io_read_file(const char* path, char** out, size_t* size, const char** why);

//----- sections ------------------------------------------------------------------------------

// Each reads its section of the root mapping into ld->spec.
hy_status hy_io_load_bodies(hy_io_loader* ld, const hy_io_node* root);        // io_yaml_mech.c
hy_status hy_io_load_joints(hy_io_loader* ld, const hy_io_node* root);        // io_yaml_mech.c
hy_status hy_io_load_markers(hy_io_loader* ld, const hy_io_node* root);       // io_yaml_mech.c
hy_status hy_io_load_loads(hy_io_loader* ld, const hy_io_node* root);         // io_yaml_mech.c
hy_status hy_io_load_cuts(hy_io_loader* ld, const hy_io_node* root);          // io_yaml_mech.c
hy_status hy_io_load_nonholonomic(hy_io_loader* ld, const hy_io_node* root);  // io_yaml_mech.c
hy_status hy_io_load_couplers(hy_io_loader* ld, const hy_io_node* root);      // io_yaml_mech.c
hy_status hy_io_load_forces(hy_io_loader* ld, const hy_io_node* root);        // io_yaml_mech.c
hy_status hy_io_load_signals(hy_io_loader* ld, const hy_io_node* root);       // io_yaml_signal.c
hy_status hy_io_load_hydraulics(hy_io_loader* ld, const hy_io_node* root);    // io_yaml_hyd.c

#endif  // HYDYN_SRC_IO_IO_YAML_H_
