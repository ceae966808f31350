// YAML model files -> hy_spec -> hy_model (format: docs/model-format.md): the top level of a
// file, its solver section, the public entry points and the built-in models. The node tree and
// the readers of its values are in io_yaml_tree.c and io_yaml_read.c, the sections in
// io_yaml_mech.c, io_yaml_signal.c and io_yaml_hyd.c.
// stat() is POSIX, outside strict C11
#define _POSIX_C_SOURCE 200809L
#include "io/io_yaml.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "io/io_builtin.h"

//----- top level -----------------------------------------------------------------------------

static hy_status load_solver(hy_io_loader* ld, const hy_io_node* root, hy_option* opt) {
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
  const hy_io_node* n = hy_io_map_val(root, "solver");
  if (hy_io_is_null(n)) return HY_OK;
  hy_io_item it;
  snprintf(it.where, sizeof it.where, "solver");
  snprintf(it.what, sizeof it.what, "solver");
  if (n->kind != HY_IO_MAP) {
    char got[96], expected[256];
    hy_io_join_names(expected, sizeof expected, keys);
    return HY_IO_FAIL_AT(ld, n, "solver: expected a mapping with keys %s; got %s", expected,
                         hy_io_describe(n, got, sizeof got));
  }
  HY_TRY(hy_io_check_keys(ld, n, keys, it.what));
  if (hy_io_map_val(n, "integrator")) {
    int k;
    HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "integrator"), integrators, &k));
    opt->integrator = (hy_integrator)k;
  }
  if (hy_io_map_val(n, "dt")) {
    HY_TRY(hy_io_get_positive(ld, it.where, HY_IO_KEY(n, "dt"), 0, "s", &opt->dt));
  }
  if (hy_io_map_val(n, "t_end")) {
    HY_TRY(hy_io_get_positive(ld, it.where, HY_IO_KEY(n, "t_end"), 0, "s", &opt->t_end));
  }
  if (hy_io_map_val(n, "formulation")) {
    int k;
    HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "formulation"), forms, &k));
    opt->formulation = (hy_formulation)k;
  }
  if (hy_io_map_val(n, "tangent")) {
    int k;
    HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "tangent"), tangents, &k));
    opt->tangent = (hy_tangent)k;
  }
  if (hy_io_map_val(n, "penalty")) {
    HY_TRY(hy_io_get_positive(ld, it.where, HY_IO_KEY(n, "penalty"), 0, "N/m", &opt->penalty));
  }
  if (hy_io_map_val(n, "tol_position")) {
    HY_TRY(hy_io_get_positive(ld, it.where, HY_IO_KEY(n, "tol_position"), 0, "rad or m",
                              &opt->tol_pos));
  }
  if (hy_io_map_val(n, "tol_pressure")) {
    HY_TRY(hy_io_get_positive(ld, it.where, HY_IO_KEY(n, "tol_pressure"), 0, "Pa", &opt->tol_p));
  }
  if (hy_io_map_val(n, "max_iterations")) {
    HY_TRY(hy_io_get_count(ld, it.where, HY_IO_KEY(n, "max_iterations"), 1, &opt->max_iter));
  }
  if (hy_io_map_val(n, "reuse_tangent")) {
    HY_TRY(
        hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "reuse_tangent"), yes_no, &opt->reuse_tangent));
  }
  if (hy_io_map_val(n, "partition_rcond")) {
    const hy_io_node* v = hy_io_map_val(n, "partition_rcond");
    double x;
    HY_TRY(hy_io_get_number(ld, it.where, "partition_rcond", v, hy_io_map_key(n, "partition_rcond"),
                            &x));
    if (!(x > 0 && x < 1)) {
      char got[96];
      return HY_IO_FAIL_AT(
          ld, hy_io_place(v, hy_io_map_key(n, "partition_rcond")),
          "solver: partition_rcond: expected a number between 0 and 1 (exclusive), "
          "got %s",
          hy_io_describe(v, got, sizeof got));
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

static hy_status load_root(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name",   "description", "gravity", "planar", "bodies",
                                     "joints", "markers",     "signals", "loads",  "cut_joints",
                                     "forces", "hydraulics",  "solver",  NULL};
  static const char* const planar_words[] = {"auto", "true", "false", NULL};
  char got[96];
  if (!root) {
    return hy_io_fail_src(ld, HY_ERR_MODEL, ld->path, 1, 1,
                          "the model file is empty (expected a "
                          "mapping with at least the keys 'bodies' and 'joints')");
  }
  if (root->kind != HY_IO_MAP) {
    return HY_IO_FAIL_AT(ld, root,
                         "the top level of a model file must be a mapping with keys such "
                         "as 'name', 'bodies' and 'joints'; got %s",
                         hy_io_describe(root, got, sizeof got));
  }
  for (int i = 0; i < root->nkid; i += 2) {
    const hy_io_node* k = root->kid[i];
    for (size_t r = 0; k->kind == HY_IO_SCALAR && r < sizeof kReserved / sizeof kReserved[0]; r++) {
      if (strcmp(k->text, kReserved[r].key) == 0) {
        return HY_IO_FAIL_AT(ld, k, "not supported yet: '%s' %s", kReserved[r].key,
                             kReserved[r].arrives);
      }
    }
    // the solver's keys are the likeliest to be written at the top level by mistake
    static const char* const solver_keys[] = {"formulation", "tangent", "penalty", "integrator",
                                              "dt",          "t_end",   NULL};
    for (int q = 0; k->kind == HY_IO_SCALAR && solver_keys[q]; q++) {
      if (strcmp(k->text, solver_keys[q]) == 0) {
        return HY_IO_FAIL_AT(ld, k, "'%s' is a key of the 'solver' section, not of the top level",
                             k->text);
      }
    }
  }
  HY_TRY(hy_io_check_keys(ld, root, keys, "the top level"));

  char name[HY_NAME_MAX];
  if (hy_io_map_val(root, "name")) {
    HY_TRY(hy_io_get_name(ld, "", HY_IO_KEY(root, "name"), name));
  } else {
    file_stem(ld->path, name);
  }
  const hy_io_node* desc = hy_io_map_val(root, "description");
  if (desc && desc->kind != HY_IO_SCALAR) {
    return HY_IO_FAIL_AT(ld, desc, "description: expected text, got %s",
                         hy_io_describe(desc, got, sizeof got));
  }
  hy_option opt = hy_option_default();
  if (hy_io_map_val(root, "gravity")) {
    HY_TRY(hy_io_get_vec(ld, "", HY_IO_KEY(root, "gravity"), 3, opt.gravity));
  }
  HY_TRY(load_solver(ld, root, &opt));
  int planar = 0;
  if (hy_io_map_val(root, "planar")) {
    HY_TRY(hy_io_get_enum(ld, "", HY_IO_KEY(root, "planar"), planar_words, &planar));
  }
  static const hy_planar planar_of[] = {HY_PLANAR_AUTO, HY_PLANAR_YES, HY_PLANAR_NO};
  if (hy_spec_set_name(ld->spec, name, ld->path) != HY_OK ||
      hy_spec_set_option(ld->spec, &opt) != HY_OK ||
      hy_spec_set_planar(ld->spec, planar_of[planar]) != HY_OK) {
    return HY_FAIL(ld->err, HY_ERR_ARG, "cannot set the model name or options");
  }
  HY_TRY(hy_io_load_bodies(ld, root));
  HY_TRY(hy_io_load_joints(ld, root));
  HY_TRY(hy_io_load_markers(ld, root));
  HY_TRY(hy_io_load_signals(ld, root));
  HY_TRY(hy_io_load_loads(ld, root));
  HY_TRY(hy_io_load_cuts(ld, root));
  HY_TRY(hy_io_load_forces(ld, root));
  HY_TRY(hy_io_load_hydraulics(ld, root));
  return HY_OK;
}

//----- public entry points -------------------------------------------------------------------

static hy_status load_text(const char* text, size_t size, const char* path, hy_model** out,
                           hy_error* err) {
  hy_io_loader ld;
  memset(&ld, 0, sizeof ld);
  ld.path = path;
  ld.err = err;
  // Signal files are found next to the model file.
  const char* slash = strrchr(path, '/');
  if (slash && (size_t)(slash - path) + 2 <= sizeof ld.dir) {
    memcpy(ld.dir, path, (size_t)(slash - path) + 1);
    ld.dir[slash - path + 1] = 0;
  }
  hy_io_node* root = NULL;
  HY_TRY(hy_io_build_tree(&ld, text, size, &root));
  hy_status st = hy_spec_create(&ld.spec);
  if (st != HY_OK) {
    hy_io_node_free(root);
    return HY_FAIL(err, st, "cannot create a model spec");
  }
  st = load_root(&ld, root);
  hy_io_node_free(root);
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
  hy_status st = hy_io_read_file(path, &text, &size, &why);
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
      char path[HY_IO_PATH_MAX];
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
