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
#include "model/model.h"

//----- top level -----------------------------------------------------------------------------

// Value of `key` in mapping n, or NULL; when present, src[k] records where it is given.
static const hy_io_node* given(const hy_io_node* n, const char* key, hy_option_key k,
                               hy_srcpos* src) {
  const hy_io_node* v = hy_io_map_val(n, key);
  if (v) src[k] = hy_io_pos_of(hy_io_place(v, hy_io_map_key(n, key)));
  return v;
}

// The keys of the `solver:` section.
static const char* const kSolverKeys[] = {"integrator",
                                          "dt",
                                          "t_end",
                                          "formulation",
                                          "tangent",
                                          "penalty",
                                          "tol_position",
                                          "max_iterations",
                                          "partition_rcond",
                                          "tol_pressure",
                                          "tol_friction",
                                          "baumgarte_xi",
                                          "baumgarte_omega",
                                          "tolerance",
                                          "threads",
                                          "reactions",
                                          "reuse_tangent",
                                          "strict_steps",
                                          "max_cuts",
                                          "error_control",
                                          "error_tol_position",
                                          "error_tol_pressure",
                                          "max_memory",
                                          NULL};

// The `solver:` section into opt, and where each key is given into src (hy_option_key). Only
// the form of the values is checked here; their ranges are hy_model_check's.
static hy_status load_solver(hy_io_loader* ld, const hy_io_node* root, hy_option* opt,
                             hy_srcpos* src) {
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
  const char* controls[HY_ERRCTL_COUNT + 1];
  for (int k = 0; k < HY_ERRCTL_COUNT; k++) {
    controls[k] = hy_error_control_name((hy_error_control)k);
  }
  controls[HY_ERRCTL_COUNT] = NULL;
  const hy_io_node* n = hy_io_map_val(root, "solver");
  if (hy_io_is_null(n)) return HY_OK;
  hy_io_item it;
  snprintf(it.where, sizeof it.where, "solver");
  snprintf(it.what, sizeof it.what, "solver");
  if (n->kind != HY_IO_MAP) {
    char got[96], expected[400];
    hy_io_join_names(expected, sizeof expected, kSolverKeys);
    return HY_IO_FAIL_AT(ld, n, "solver: expected a mapping with keys %s; got %s", expected,
                         hy_io_describe(n, got, sizeof got));
  }
  HY_TRY(hy_io_check_keys(ld, n, kSolverKeys, it.what));
  const char* w = it.where;
  int k;
  if (given(n, "integrator", HY_OPT_INTEGRATOR, src)) {
    HY_TRY(hy_io_get_enum(ld, w, HY_IO_KEY(n, "integrator"), integrators, &k));
    opt->integrator = (hy_integrator)k;
  }
  if (given(n, "dt", HY_OPT_DT, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "dt"), &opt->dt));
  }
  if (given(n, "t_end", HY_OPT_T_END, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "t_end"), &opt->t_end));
  }
  if (given(n, "formulation", HY_OPT_FORMULATION, src)) {
    HY_TRY(hy_io_get_enum(ld, w, HY_IO_KEY(n, "formulation"), forms, &k));
    opt->formulation = (hy_formulation)k;
  }
  if (given(n, "tangent", HY_OPT_TANGENT, src)) {
    HY_TRY(hy_io_get_enum(ld, w, HY_IO_KEY(n, "tangent"), tangents, &k));
    opt->tangent = (hy_tangent)k;
  }
  if (given(n, "penalty", HY_OPT_PENALTY, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "penalty"), &opt->penalty));
  }
  if (given(n, "tol_position", HY_OPT_TOL_POS, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "tol_position"), &opt->tol_pos));
  }
  if (given(n, "tol_pressure", HY_OPT_TOL_P, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "tol_pressure"), &opt->tol_p));
  }
  if (given(n, "tol_friction", HY_OPT_TOL_FRIC, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "tol_friction"), &opt->tol_fric));
  }
  if (given(n, "baumgarte_xi", HY_OPT_BAUMGARTE_XI, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "baumgarte_xi"), &opt->baumgarte_xi));
  }
  if (given(n, "baumgarte_omega", HY_OPT_BAUMGARTE_OMEGA, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "baumgarte_omega"), &opt->baumgarte_omega));
  }
  if (given(n, "tolerance", HY_OPT_ODE_TOL, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "tolerance"), &opt->ode_tol));
  }
  if (given(n, "threads", HY_OPT_THREADS, src)) {
    HY_TRY(hy_io_get_count(ld, w, HY_IO_KEY(n, "threads"), &opt->threads));
  }
  if (given(n, "max_iterations", HY_OPT_MAX_ITER, src)) {
    HY_TRY(hy_io_get_count(ld, w, HY_IO_KEY(n, "max_iterations"), &opt->max_iter));
  }
  if (given(n, "reuse_tangent", HY_OPT_REUSE_TANGENT, src)) {
    HY_TRY(hy_io_get_enum(ld, w, HY_IO_KEY(n, "reuse_tangent"), yes_no, &opt->reuse_tangent));
  }
  if (given(n, "partition_rcond", HY_OPT_PARTITION_RCOND, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "partition_rcond"), &opt->partition_rcond));
  }
  if (given(n, "reactions", HY_OPT_REACTIONS, src)) {
    HY_TRY(hy_io_get_enum(ld, w, HY_IO_KEY(n, "reactions"), yes_no, &opt->reactions));
  }
  if (given(n, "strict_steps", HY_OPT_STRICT_STEPS, src)) {
    HY_TRY(hy_io_get_enum(ld, w, HY_IO_KEY(n, "strict_steps"), yes_no, &opt->strict_steps));
  }
  if (given(n, "max_cuts", HY_OPT_MAX_CUTS, src)) {
    HY_TRY(hy_io_get_count(ld, w, HY_IO_KEY(n, "max_cuts"), &opt->max_cuts));
  }
  if (given(n, "error_control", HY_OPT_ERROR_CONTROL, src)) {
    HY_TRY(hy_io_get_enum(ld, w, HY_IO_KEY(n, "error_control"), controls, &k));
    opt->error_control = (hy_error_control)k;
  }
  if (given(n, "error_tol_position", HY_OPT_ERROR_TOL_POS, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "error_tol_position"), &opt->error_tol_pos));
  }
  if (given(n, "error_tol_pressure", HY_OPT_ERROR_TOL_P, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "error_tol_pressure"), &opt->error_tol_p));
  }
  if (given(n, "max_memory", HY_OPT_MAX_MEMORY, src)) {
    HY_TRY(hy_io_get_number(ld, w, HY_IO_KEY(n, "max_memory"), &opt->max_memory));
  }
  return HY_OK;
}

// Top-level keys a user may well write in the wrong place; named here so a file using them gets
// a clear answer instead of "unknown key".
static const struct {
  const char* key;
  const char* answer;
} kMisplaced[] = {
    {"friction",
     "is not a top-level key: seal friction belongs to a cylinder, as the 'friction:' mapping "
     "of a cylinder under hydraulics (docs/friction.md)"},
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
  static const char* const keys[] = {"name",   "description", "gravity",      "planar",
                                     "bodies", "joints",      "markers",      "signals",
                                     "loads",  "cut_joints",  "nonholonomic", "couplers",
                                     "forces", "hydraulics",  "solver",       NULL};
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
    for (size_t r = 0; k->kind == HY_IO_SCALAR && r < sizeof kMisplaced / sizeof kMisplaced[0];
         r++) {
      if (strcmp(k->text, kMisplaced[r].key) == 0) {
        return HY_IO_FAIL_AT(ld, k, "'%s' %s", kMisplaced[r].key, kMisplaced[r].answer);
      }
    }
    // the solver's keys are the likeliest to be written at the top level by mistake
    for (int q = 0; k->kind == HY_IO_SCALAR && kSolverKeys[q]; q++) {
      if (strcmp(k->text, kSolverKeys[q]) == 0) {
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
  hy_srcpos opt_src[HY_OPT_COUNT];
  memset(opt_src, 0, sizeof opt_src);
  if (given(root, "gravity", HY_OPT_GRAVITY, opt_src)) {
    HY_TRY(hy_io_get_vec(ld, "", HY_IO_KEY(root, "gravity"), 3, opt.gravity));
  }
  HY_TRY(load_solver(ld, root, &opt, opt_src));
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
  // where the options are given, for hy_model_check's messages (no builder call sets them)
  memcpy(ld->spec->opt_src, opt_src, sizeof opt_src);
  HY_TRY(hy_io_load_bodies(ld, root));
  HY_TRY(hy_io_load_joints(ld, root));
  HY_TRY(hy_io_load_markers(ld, root));
  HY_TRY(hy_io_load_signals(ld, root));
  HY_TRY(hy_io_load_loads(ld, root));
  HY_TRY(hy_io_load_cuts(ld, root));
  HY_TRY(hy_io_load_nonholonomic(ld, root));
  HY_TRY(hy_io_load_couplers(ld, root));
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
  const int exists = stat(what, &info) == 0;
  if (exists && !S_ISDIR(info.st_mode)) return hy_model_load(what, out, err);
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
  // a folder that names no built-in is still what the user meant: hy_model_load says that it
  // is a folder, which "no such file" would hide
  if (exists) return hy_model_load(what, out, err);
  // a member of a model family (loop-64); a bad N gets the family's range
  if (hy_family_find(what) >= 0) return hy_model_family(what, out, err);
  char list[400];
  size_t used = 0;
  list[0] = 0;
  for (int i = 0; i < hy_builtin_model_count; i++) {
    int w =
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", hy_builtin_models[i].name);
    if (w < 0 || (size_t)w >= sizeof list - used) break;
    used += (size_t)w;
  }
  return HY_FAIL(err, HY_ERR_IO,
                 "no such file or built-in model '%s' (built-ins: %s; families: chain-N, loop-N, "
                 "hdca-case1..3)",
                 what, hy_builtin_model_count ? list : "none");
}
