// YAML model loading: a complete good file, every inertia form, signals from a table and a CSV
// file, built-in models, and malformed files reported with their exact line and column. Every
// failed load must leave no block behind (counted through the allocator hook).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/model.h"

#define DATA HY_SOURCE_DIR "/tests/data/"

static const double kPi = 3.14159265358979323846;

//----- allocation hook: outstanding blocks, optional failure of the n-th allocation ----------

static long g_live;     // blocks allocated through the hook and not yet freed
static long g_calls;    // allocation calls since install_counter
static long g_fail_at;  // 1-based call that returns NULL (0 = none)

static void* counting_alloc(size_t size, void* user) {
  (void)user;
  g_calls++;
  if (g_fail_at > 0 && g_calls == g_fail_at) return NULL;
  void* p = malloc(size);
  if (p) g_live++;
  return p;
}

static void counting_free(void* ptr, void* user) {
  (void)user;
  g_live--;
  free(ptr);
}

static void install_counter(long fail_at) {
  g_live = 0;
  g_calls = 0;
  g_fail_at = fail_at;
  hy_set_allocator(counting_alloc, counting_free, NULL);
}

static void remove_counter(void) { hy_set_allocator(NULL, NULL, NULL); }

//----- helpers -------------------------------------------------------------------------------

static hy_model* load_ok(const char* path) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load(path, &m, &err);
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == HY_OK, "loading %s failed: %s", path, buf);
  ck_assert_ptr_nonnull(m);
  return m;
}

static const double* inertia_of(const hy_model* m, const char* body) {
  int b = hy_model_body(m, body);
  ck_assert_msg(b >= 0, "no body '%s'", body);
  return &m->body_inertia[9 * b];
}

static void assert_mat3(const double* got, const double want[9], const char* what) {
  for (int i = 0; i < 9; i++) {
    ck_assert_msg(fabs(got[i] - want[i]) <= 1e-12 * fmax(1.0, fabs(want[i])),
                  "%s: entry %d is %.17g, expected %.17g", what, i, got[i], want[i]);
  }
}

// Initial coordinate and rate of joint `name`.
static void joint_init(const hy_model* m, const char* name, double* z0, double* zd0) {
  int j = hy_model_joint(m, name);
  ck_assert_msg(j >= 0, "no joint '%s'", name);
  *z0 = m->z0[m->jnt_zadr[j]];
  *zd0 = m->zd0[m->jnt_zadr[j]];
}

//----- the good file -------------------------------------------------------------------------

START_TEST(test_good_sizes_and_options) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  ck_assert_str_eq(m->name, "io_good");  // no 'name' key: the file stem
  ck_assert_int_eq(m->sizes.nbody, 6);
  ck_assert_int_eq(m->sizes.nz, 6);
  ck_assert_int_eq(m->sizes.nmrk, 2);
  ck_assert_int_eq(m->sizes.nsig, 2);
  ck_assert_int_eq(m->sizes.nsigpt, 7);
  ck_assert_int_eq(m->sizes.nload, 2);
  ck_assert_double_eq(m->opt.gravity[0], 0.0);
  ck_assert_double_eq(m->opt.gravity[1], 0.0);
  ck_assert_double_eq(m->opt.gravity[2], -9.81);
  ck_assert_int_eq(m->opt.integrator, HY_INTEG_SEMI_EULER);
  ck_assert_double_eq(m->opt.dt, 2e-3);
  ck_assert_double_eq(m->opt.t_end, 1.5);
  int b = hy_model_body(m, "full");
  ck_assert_double_eq(m->body_mass[b], 2.5);
  ck_assert_double_eq(m->body_com[3 * b + 1], -0.5);
  ck_assert_double_eq(m->body_com[3 * b + 2], 0.25);
  ck_assert_double_eq(m->body_mass[hy_model_body(m, "point")], 1e-3);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_degrees_to_radians) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  double z0, zd0;
  joint_init(m, "j_rod", &z0, &zd0);  // revolute: 90 deg, -180 deg/s
  ck_assert_double_eq_tol(z0, kPi / 2, 1e-15);
  ck_assert_double_eq_tol(zd0, -kPi, 1e-15);
  joint_init(m, "j_box", &z0, &zd0);  // prismatic: metres stay metres
  ck_assert_double_eq(z0, 0.25);
  ck_assert_double_eq(zd0, -2.0);
  joint_init(m, "j_six", &z0, &zd0);
  ck_assert_double_eq_tol(z0, -kPi / 4, 1e-15);
  ck_assert_double_eq(zd0, 0.0);
  joint_init(m, "j_point", &z0, &zd0);  // written as 1.0e+1
  ck_assert_double_eq_tol(z0, kPi / 18, 1e-15);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_joint_geometry) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  int j = hy_model_joint(m, "j_box");
  ck_assert_int_eq(m->jnt_type[j], HY_JOINT_PRISMATIC);
  ck_assert_double_eq(m->jnt_ppoint[3 * j + 0], 2.0);
  ck_assert_double_eq(m->jnt_cpoint[3 * j + 1], 0.5);
  ck_assert_double_eq(m->jnt_paxis[3 * j + 0], 1.0);
  ck_assert_double_eq(m->jnt_caxis[3 * j + 2], 1.0);
  ck_assert_int_eq(m->body_parent[j], hy_model_body(m, "rod"));
  // default axis +z, child_axis defaults to axis; [0, 0, 2] is normalized by the compiler
  j = hy_model_joint(m, "j_diag");
  ck_assert_int_eq(m->jnt_type[j], HY_JOINT_REVOLUTE);
  ck_assert_double_eq(m->jnt_paxis[3 * j + 2], 1.0);
  ck_assert_double_eq(m->jnt_caxis[3 * j + 2], 1.0);
  j = hy_model_joint(m, "j_full");
  ck_assert_int_eq(m->body_parent[j], -1);
  ck_assert_double_eq_tol(m->jnt_paxis[3 * j + 2], 1.0, 1e-15);
  ck_assert_double_eq_tol(m->jnt_caxis[3 * j + 2], 1.0, 1e-15);
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_inertia_forms) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  // rod, m = 3 kg, L = 2 m along z: m L^2 / 12 = 1 about x and y, 0 about z
  const double rod[9] = {1, 0, 0, 0, 1, 0, 0, 0, 0};
  assert_mat3(inertia_of(m, "rod"), rod, "rod");
  // box, m = 12 kg, edges 1, 2, 3: Ixx = (4 + 9), Iyy = (1 + 9), Izz = (1 + 4)
  const double box[9] = {13, 0, 0, 0, 10, 0, 0, 0, 5};
  assert_mat3(inertia_of(m, "box"), box, "box");
  const double diag[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3};
  assert_mat3(inertia_of(m, "diag"), diag, "diagonal");
  // [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] are tensor entries
  const double six[9] = {4, 0.1, 0.2, 0.1, 5, 0.3, 0.2, 0.3, 6};
  assert_mat3(inertia_of(m, "six"), six, "six numbers");
  const double full[9] = {2, 0.1, -0.2, 0.1, 3, 0.3, -0.2, 0.3, 4};
  assert_mat3(inertia_of(m, "full"), full, "3x3");
  const double zero[9] = {0};
  assert_mat3(inertia_of(m, "point"), zero, "point mass");
  hy_model_free(m);
}
END_TEST

START_TEST(test_good_markers_signals_loads) {
  hy_model* m = load_ok(DATA "io_good.yaml");
  int tip = hy_model_marker(m, "tip");
  ck_assert_int_eq(m->mrk_body[tip], hy_model_body(m, "rod"));
  ck_assert_double_eq(m->mrk_point[3 * tip], 2.0);
  int anchor = hy_model_marker(m, "anchor");
  ck_assert_int_eq(m->mrk_body[anchor], -1);

  int steps = hy_model_signal(m, "steps");
  ck_assert_int_eq(m->sig_interp[steps], HY_INTERP_STEP);
  ck_assert_int_eq(m->sig_npoint[steps], 3);
  ck_assert_double_eq(hy_signal_eval(m, steps, 1.2), 1.5);
  ck_assert_double_eq(hy_signal_eval(m, steps, 3.0), -2.0);

  // from io_push.csv: two comment lines, a header, a blank line and a ';' separator
  int push = hy_model_signal(m, "push");
  ck_assert_int_eq(m->sig_interp[push], HY_INTERP_LINEAR);
  ck_assert_int_eq(m->sig_npoint[push], 4);
  const double* t = &m->sig_t[m->sig_adr[push]];
  const double* v = &m->sig_value[m->sig_adr[push]];
  ck_assert_double_eq(t[3], 2.0);
  ck_assert_double_eq(v[2], 2.5);
  ck_assert_double_eq_tol(hy_signal_eval(m, push, 0.75), 1.75, 1e-14);

  ck_assert_str_eq(&m->load_name[0], "push-tip");
  ck_assert_int_eq(m->load_type[0], HY_LOAD_FORCE);
  ck_assert_int_eq(m->load_mrk[0], tip);
  ck_assert_int_eq(m->load_sig[0], push);
  ck_assert_double_eq(m->load_vector[1], -100.0);
  ck_assert_str_eq(&m->load_name[HY_NAME_MAX], "load1");  // default name load<i>
  ck_assert_int_eq(m->load_type[1], HY_LOAD_TORQUE);
  ck_assert_int_eq(m->load_sig[1], -1);
  ck_assert_double_eq(m->load_vector[5], 5.0);
  hy_model_free(m);
}
END_TEST

START_TEST(test_load_string_defaults) {
  // Numbers as ints and floats, defaults everywhere, the stem of `name` as model name.
  const char* text =
      "bodies:\n"
      "  - {name: a, mass: 2}\n"
      "joints:\n"
      "  - {name: j, type: prismatic, parent: ground, child: a, z0: -2, zd0: .5}\n";
  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_string(text, strlen(text), "mem/one-body.yaml", &m, &err), HY_OK);
  ck_assert_str_eq(m->name, "one-body");
  ck_assert_double_eq(m->opt.gravity[1], -9.81);
  ck_assert_int_eq(m->opt.integrator, HY_INTEG_RK4);
  ck_assert_double_eq(m->z0[0], -2.0);
  ck_assert_double_eq(m->zd0[0], 0.5);
  ck_assert_double_eq(m->body_com[0], 0.0);
  ck_assert_double_eq(m->body_inertia[0], 0.0);
  hy_model_free(m);
}
END_TEST

START_TEST(test_doc_example_loads) {
  // The complete example of docs/model-format.md must stay a valid model.
  FILE* f = fopen(HY_SOURCE_DIR "/docs/model-format.md", "rb");
  ck_assert_ptr_nonnull(f);
  static char doc[1 << 16];
  size_t size = fread(doc, 1, sizeof doc - 1, f);
  fclose(f);
  doc[size] = 0;
  const char* start = strstr(doc, "```yaml\n");
  ck_assert_ptr_nonnull(start);
  start += strlen("```yaml\n");
  const char* end = strstr(start, "```");
  ck_assert_ptr_nonnull(end);
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = hy_model_load_string(start, (size_t)(end - start), "docs/example.yaml", &m, &err);
  ck_assert_msg(st == HY_OK, "doc example: %s (line %d of the block)", err.msg, err.src_line);
  ck_assert_int_eq(m->sizes.nbody, 2);
  ck_assert_int_eq(m->sizes.nload, 1);
  hy_model_free(m);
}
END_TEST

//----- malformed files: status, exact position, message --------------------------------------

typedef struct bad_case {
  const char* file;  // under tests/data/bad/
  hy_status status;
  int line, col;
  const char* needle1;  // substrings the message must contain
  const char* needle2;
} bad_case;

static const bad_case kBad[] = {
    {"indent.yaml", HY_ERR_PARSE, 4, 11, "mapping values are not allowed", "indented"},
    {"mass_string.yaml", HY_ERR_MODEL, 5, 11, "mass", "expected a number, got 'abc'"},
    {"unknown_key.yaml", HY_ERR_MODEL, 5, 5, "unknown key 'masss' in body 'link2'",
     "expected one of: name, mass, com, inertia"},
    {"missing_mass.yaml", HY_ERR_MODEL, 4, 5,
     "bodies[1] 'link2': key 'mass' is required (a positive number, kg)", NULL},
    {"duplicate_body.yaml", HY_ERR_MODEL, 4, 12, "name 'link1'", "line 2, column 5"},
    {"unknown_parent.yaml", HY_ERR_MODEL, 9, 5, "parent", "link9"},
    {"negative_mass.yaml", HY_ERR_MODEL, 3, 11, "mass", "positive"},
    {"signal_order.yaml", HY_ERR_MODEL, 10, 10, "table[2]", "increasing"},
    {"empty.yaml", HY_ERR_MODEL, 1, 1, "empty", "bodies"},
    {"not_mapping.yaml", HY_ERR_MODEL, 1, 1, "top level", "mapping"},
    {"truncated.yaml", HY_ERR_PARSE, 4, 17, "did not find expected ',' or ']'",
     "line 4, column 10"},
    {"reserved.yaml", HY_ERR_MODEL, 5, 1, "not supported yet: 'cut_joints'", "closed loops"},
    {"duplicate_key.yaml", HY_ERR_MODEL, 4, 5, "duplicate key 'mass'", "line 3, column 5"},
    {"vector_length.yaml", HY_ERR_MODEL, 1, 10, "gravity", "expected a list of 3 numbers"},
    {"inertia_asym.yaml", HY_ERR_MODEL, 4, 14, "inertia", "symmetric"},
    {"inertia_unphysical.yaml", HY_ERR_MODEL, 4, 14, "inertia", "sum of the other two"},
    {"joint_type.yaml", HY_ERR_MODEL, 5, 11, "type", "revolute, prismatic; got 'revolut'"},
    {"alias.yaml", HY_ERR_PARSE, 3, 25, "aliases", "*m"},
    {"csv_missing.yaml", HY_ERR_IO, 6, 24, "file", "no_such.csv"},
    {"csv_bad.yaml", HY_ERR_MODEL, 3, 3, "column 2 (value)", "'1x'"},
};

static const int kNumBad = (int)(sizeof kBad / sizeof kBad[0]);

START_TEST(test_bad_file) {
  const bad_case* c = &kBad[_i];
  char path[512];
  snprintf(path, sizeof path, DATA "bad/%s", c->file);
  hy_model* m = (hy_model*)&m;  // must be reset to NULL on failure
  hy_error err;
  memset(&err, 0, sizeof err);
  install_counter(0);
  hy_status st = hy_model_load(path, &m, &err);
  long live = g_live;
  remove_counter();
  char buf[1024];
  hy_error_format(&err, buf, sizeof buf);
  ck_assert_msg(st == c->status, "%s: status %d (%s), expected %d", c->file, st, buf, c->status);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(err.code, c->status);
  ck_assert_msg(err.src_line == c->line && err.src_col == c->col,
                "%s: reported at %d:%d, expected %d:%d (%s)", c->file, err.src_line, err.src_col,
                c->line, c->col, buf);
  ck_assert_msg(strstr(err.msg, c->needle1), "%s: '%s' not in: %s", c->file, c->needle1, buf);
  ck_assert_msg(!c->needle2 || strstr(err.msg, c->needle2), "%s: '%s' not in: %s", c->file,
                c->needle2, buf);
  // The error names the file it is about: the model, or the CSV for errors inside it.
  const char* expect_file = strcmp(c->file, "csv_bad.yaml") == 0 ? "csv_bad.csv" : c->file;
  size_t n = strlen(err.src_path), k = strlen(expect_file);
  ck_assert_msg(n >= k && strcmp(err.src_path + n - k, expect_file) == 0, "%s: src_path is '%s'",
                c->file, err.src_path);
  ck_assert_msg(live == 0, "%s: %ld blocks leaked by the failed load", c->file, live);
}
END_TEST

START_TEST(test_missing_file) {
  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load(DATA "bad/no-such-file.yaml", &m, &err), HY_ERR_IO);
  ck_assert_ptr_null(m);
  ck_assert_ptr_nonnull(strstr(err.src_path, "no-such-file.yaml"));
  ck_assert_int_eq(hy_model_load(NULL, &m, &err), HY_ERR_ARG);
  ck_assert_int_eq(hy_model_load(DATA "io_good.yaml", NULL, NULL), HY_ERR_ARG);
}
END_TEST

//----- built-in models -----------------------------------------------------------------------

START_TEST(test_builtin_by_name) {
  ck_assert_int_ge(hy_builtin_count(), 2);
  ck_assert_ptr_null(hy_builtin_name(-1));
  ck_assert_ptr_null(hy_builtin_name(hy_builtin_count()));
  int found = 0;
  for (int i = 0; i < hy_builtin_count(); i++) {
    found += strcmp(hy_builtin_name(i), "double-pendulum") == 0;
    found += strcmp(hy_builtin_name(i), "tree-10") == 0;
  }
  ck_assert_int_eq(found, 2);

  hy_model* m = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_any("double-pendulum", &m, &err), HY_OK);
  ck_assert_str_eq(m->name, "double-pendulum");
  ck_assert_int_eq(m->sizes.nbody, 2);
  hy_model_free(m);

  ck_assert_int_eq(hy_model_load_any("tree-10.yaml", &m, &err), HY_OK);
  ck_assert_int_eq(m->sizes.nbody, 10);
  ck_assert_int_eq(m->opt.integrator, HY_INTEG_RK4);
  ck_assert_double_eq(m->opt.dt, 1e-3);
  ck_assert_double_eq(m->opt.t_end, 5.0);
  hy_model_free(m);

  // a readable file wins over the built-ins
  ck_assert_int_eq(hy_model_load_any(DATA "io_good.yaml", &m, &err), HY_OK);
  ck_assert_str_eq(m->name, "io_good");
  hy_model_free(m);
}
END_TEST

START_TEST(test_builtin_matches_file) {
  // The embedded text is the file in models/.
  hy_model* a = load_ok(HY_SOURCE_DIR "/models/tree-10.yaml");
  hy_model* b = NULL;
  hy_error err;
  ck_assert_int_eq(hy_model_load_any("tree-10", &b, &err), HY_OK);
  ck_assert_int_eq(a->sizes.nz, b->sizes.nz);
  for (int i = 0; i < a->sizes.nz; i++) ck_assert_double_eq(a->z0[i], b->z0[i]);
  for (int i = 0; i < 9 * a->sizes.nbody; i++) {
    ck_assert_double_eq(a->body_inertia[i], b->body_inertia[i]);
  }
  hy_model_free(a);
  hy_model_free(b);
}
END_TEST

START_TEST(test_builtin_missing) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load_any("no-such-model", &m, &err), HY_ERR_IO);
  ck_assert_ptr_null(m);
  ck_assert_ptr_nonnull(strstr(err.msg, "no such file or built-in model 'no-such-model'"));
  ck_assert_ptr_nonnull(strstr(err.msg, "double-pendulum"));
  ck_assert_ptr_nonnull(strstr(err.msg, "tree-10"));
}
END_TEST

//----- memory and robustness -----------------------------------------------------------------

START_TEST(test_good_load_frees_everything) {
  install_counter(0);
  hy_model* m = load_ok(DATA "io_good.yaml");
  hy_model_free(m);
  long live = g_live;
  remove_counter();
  ck_assert_int_eq(live, 0);
}
END_TEST

START_TEST(test_alloc_failure_each_call) {
  // Fail the 1st, 2nd, ... allocation of a full load in turn: each must end in HY_ERR_NOMEM
  // with nothing left allocated, until the load needs no more allocations than allowed.
  for (long k = 1;; k++) {
    install_counter(k);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    hy_status st = hy_model_load(DATA "io_good.yaml", &m, &err);
    long calls = g_calls;
    if (st == HY_OK) hy_model_free(m);
    long live = g_live;
    remove_counter();
    ck_assert_msg(live == 0, "failing allocation %ld: %ld blocks leaked", k, live);
    if (calls < k) {
      ck_assert_int_eq(st, HY_OK);  // the k-th allocation never happened
      ck_assert_int_gt(k, 10);
      break;
    }
    ck_assert_msg(st == HY_ERR_NOMEM, "failing allocation %ld gave %d: %s", k, st, err.msg);
    ck_assert_ptr_null(m);
  }
}
END_TEST

START_TEST(test_truncated_everywhere) {
  // Every prefix of a valid file must load or fail cleanly: no crash, no leak, no silent
  // success without a model, and errors carry a message.
  FILE* f = fopen(DATA "io_good.yaml", "rb");
  ck_assert_ptr_nonnull(f);
  static char text[1 << 14];
  size_t size = fread(text, 1, sizeof text, f);
  fclose(f);
  ck_assert_int_gt(size, 100);
  for (size_t n = 0; n <= size; n++) {
    install_counter(0);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    hy_status st = hy_model_load_string(text, n, DATA "io_good.yaml", &m, &err);
    if (st == HY_OK) {
      ck_assert_ptr_nonnull(m);
      hy_model_free(m);
    } else {
      ck_assert_int_lt(st, 0);
      ck_assert_ptr_null(m);
      ck_assert_msg(err.msg[0] != 0, "prefix %zu: empty message", n);
    }
    long live = g_live;
    remove_counter();
    ck_assert_msg(live == 0, "prefix %zu: %ld blocks leaked", n, live);
  }
}
END_TEST

START_TEST(test_hostile_inputs) {
  static char deep[200001];
  memset(deep, '[', sizeof deep - 1);
  const char* cases[] = {
      deep,
      "bodies: [{name: a, mass: 1}]\njoints: []\n---\nbodies: []\n",
      "\t- tab",
      "bodies:\n  - name: \"a\\0b\"\n    mass: 1\n",
      "bodies:\n  - name: a\n    mass: 1e999\n",
      "bodies:\n  - name: a\n    mass: \"1.5\"\n",
      "bodies:\n  - name: a\n    mass: .inf\n",
      "bodies:\n  - name: a\n    mass: 1\n    inertia: {rod: {length: 1, axis: w}}\n",
      "bodies:\n  - name: a\n    mass: 1\n    inertia: {rod: 1, box: [1, 1, 1]}\n",
      "bodies:\n  - name: a\n    mass: 1\n    inertia: [[1, 0], [0, 1]]\n",
      "bodies:\n  - name: ground\n    mass: 1\n",
      "{? [a, b] : 1}\n",
      "bodies: {a: 1}\n",
      "bodies: []\njoints: []\n",
      "\xff\xfe\x00garbage",  // a UTF-16 byte order mark, then an odd byte count
      "bodies:\n  - name: a\n    mass: 1\n    com: [1, \xc3\x28, 0]\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    install_counter(0);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    // the UTF-16 case holds a NUL byte, so its length is given explicitly
    size_t len = strncmp(cases[i], "\xff\xfe", 2) == 0 ? 11 : strlen(cases[i]);
    hy_status st = hy_model_load_string(cases[i], len, "hostile.yaml", &m, &err);
    long live = g_live;
    remove_counter();
    ck_assert_msg(st < 0, "case %zu loaded", i);
    ck_assert_ptr_null(m);
    ck_assert_msg(err.msg[0] != 0 && err.src_line > 0, "case %zu: %s at %d", i, err.msg,
                  err.src_line);
    ck_assert_msg(live == 0, "case %zu: %ld blocks leaked", i, live);
  }
}
END_TEST

Suite* io_yaml_suite(void) {
  Suite* s = suite_create("io_yaml");
  TCase* tc = tcase_create("good");
  tcase_add_test(tc, test_good_sizes_and_options);
  tcase_add_test(tc, test_good_degrees_to_radians);
  tcase_add_test(tc, test_good_joint_geometry);
  tcase_add_test(tc, test_good_inertia_forms);
  tcase_add_test(tc, test_good_markers_signals_loads);
  tcase_add_test(tc, test_load_string_defaults);
  tcase_add_test(tc, test_doc_example_loads);
  suite_add_tcase(s, tc);
  tc = tcase_create("bad");
  tcase_add_loop_test(tc, test_bad_file, 0, kNumBad);
  tcase_add_test(tc, test_missing_file);
  suite_add_tcase(s, tc);
  tc = tcase_create("builtin");
  tcase_add_test(tc, test_builtin_by_name);
  tcase_add_test(tc, test_builtin_matches_file);
  tcase_add_test(tc, test_builtin_missing);
  suite_add_tcase(s, tc);
  tc = tcase_create("memory");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_good_load_frees_everything);
  tcase_add_test(tc, test_alloc_failure_each_call);
  tcase_add_test(tc, test_truncated_everywhere);
  tcase_add_test(tc, test_hostile_inputs);
  suite_add_tcase(s, tc);
  return s;
}
