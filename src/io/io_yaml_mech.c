// Mechanical elements of a model file: bodies, joints, markers, loads, cut joints, nonholonomic
// constraints, couplers and force elements (docs/model-format.md).
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "io/io_yaml.h"
#include "model/model.h"

static const double kDeg = 3.14159265358979323846 / 180.0;

//----- bodies --------------------------------------------------------------------------------

// inertia: [Ixx, Iyy, Izz] | [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] | [[3], [3], [3]] |
// {rod: {length, axis}} | {box: [a, b, c]}; rod and box need the mass. Whether the tensor is
// physical is hy_model_check's to say; a rod's length and a box's edges are checked here, as the
// squares in the tensor no longer show their sign.
static hy_status get_inertia(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* v,
                             const hy_io_node* key, double mass, double J[9]) {
  static const char forms[] =
      "[Ixx, Iyy, Izz], [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], a 3x3 list of lists, "
      "{rod: {length: L, axis: x|y|z}} or {box: [a, b, c]}";
  char got[96];
  memset(J, 0, 9 * sizeof(double));
  if (v && v->kind == HY_IO_SEQ && v->nkid > 0 && v->kid[0]->kind == HY_IO_SEQ) {
    if (v->nkid != 3) {
      return HY_IO_FAIL_AT(ld, v, "%s: inertia: expected 3 rows of 3 numbers, got %d rows",
                           it->where, v->nkid);
    }
    for (int r = 0; r < 3; r++) {
      char label[32];
      snprintf(label, sizeof label, "inertia[%d]", r);
      HY_TRY(hy_io_get_vec(ld, it->where, label, v->kid[r], NULL, 3, &J[3 * r]));
    }
  } else if (v && v->kind == HY_IO_SEQ) {
    if (v->nkid != 3 && v->nkid != 6) {
      return HY_IO_FAIL_AT(ld, v, "%s: inertia: expected %s; got %s", it->where, forms,
                           hy_io_describe(v, got, sizeof got));
    }
    double x[6];
    for (int i = 0; i < v->nkid; i++) {
      char label[32];
      snprintf(label, sizeof label, "inertia[%d]", i);
      HY_TRY(hy_io_get_number(ld, it->where, label, v->kid[i], NULL, &x[i]));
    }
    J[0] = x[0], J[4] = x[1], J[8] = x[2];
    if (v->nkid == 6) {
      J[1] = J[3] = x[3];
      J[2] = J[6] = x[4];
      J[5] = J[7] = x[5];
    }
  } else if (v && v->kind == HY_IO_MAP) {
    static const char* const shape_keys[] = {"rod", "box", NULL};
    char what[200];
    snprintf(what, sizeof what, "the inertia of %s", it->what);
    HY_TRY(hy_io_check_keys(ld, v, shape_keys, what));
    if (v->nkid != 2) {
      return HY_IO_FAIL_AT(ld, v,
                           "%s: inertia: give exactly one shape, {rod: {length: L, axis: "
                           "x|y|z}} or {box: [a, b, c]}",
                           it->where);
    }
    const hy_io_node* rod = hy_io_map_val(v, "rod");
    if (rod) {
      static const char* const rod_keys[] = {"length", "axis", NULL};
      static const char* const axes[] = {"x", "y", "z", NULL};
      if (rod->kind != HY_IO_MAP) {
        return HY_IO_FAIL_AT(
            ld, hy_io_place(rod, hy_io_map_key(v, "rod")),
            "%s: inertia: rod: expected a mapping {length: L, axis: x|y|z}, got %s", it->where,
            hy_io_describe(rod, got, sizeof got));
      }
      snprintf(what, sizeof what, "the rod inertia of %s", it->what);
      HY_TRY(hy_io_check_keys(ld, rod, rod_keys, what));
      if (hy_io_is_null(hy_io_map_val(rod, "length")) ||
          hy_io_is_null(hy_io_map_val(rod, "axis"))) {
        return HY_IO_FAIL_AT(ld, rod,
                             "%s: inertia: rod: keys 'length' (m) and 'axis' (x, y or z) "
                             "are required",
                             it->where);
      }
      double len;
      int axis;
      HY_TRY(hy_io_get_positive(ld, it->where, "inertia: rod: length", hy_io_map_val(rod, "length"),
                                hy_io_map_key(rod, "length"), 0, "m", &len));
      HY_TRY(hy_io_get_enum(ld, it->where, "inertia: rod: axis", hy_io_map_val(rod, "axis"),
                            hy_io_map_key(rod, "axis"), axes, &axis));
      // uniform slender rod: m L^2 / 12 about any axis through the centre perpendicular to it
      double perp = mass * len * len / 12.0;
      for (int i = 0; i < 3; i++) J[4 * i] = i == axis ? 0.0 : perp;
    } else {
      const hy_io_node* box = hy_io_map_val(v, "box");
      double e[3];
      if (!box || box->kind != HY_IO_SEQ || box->nkid != 3) {
        return HY_IO_FAIL_AT(ld, hy_io_place(box, hy_io_map_key(v, "box")),
                             "%s: inertia: box: expected a list of 3 edge lengths [a, b, c] (m), "
                             "got %s",
                             it->where, hy_io_describe(box, got, sizeof got));
      }
      for (int i = 0; i < 3; i++) {
        char label[32];
        snprintf(label, sizeof label, "inertia: box[%d]", i);
        HY_TRY(hy_io_get_positive(ld, it->where, label, box->kid[i], NULL, 1, "m", &e[i]));
      }
      // uniform cuboid: Ixx = m (b^2 + c^2) / 12 and cyclically
      J[0] = mass * (e[1] * e[1] + e[2] * e[2]) / 12.0;
      J[4] = mass * (e[0] * e[0] + e[2] * e[2]) / 12.0;
      J[8] = mass * (e[0] * e[0] + e[1] * e[1]) / 12.0;
    }
  } else {
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s: inertia: expected %s; got %s", it->where,
                         forms, hy_io_describe(v, got, sizeof got));
  }
  return HY_OK;
}

// point_masses: a list of {mass: kg, point: [x, y, z] (m, body frame, default the origin)}, each
// a point mass on body `name` (whose numbers hy_model_check_point_mass judges).
static hy_status load_point_masses(hy_io_loader* ld, const hy_io_item* body, const hy_io_node* n,
                                   const char* name) {
  static const char* const keys[] = {"mass", "point", NULL};
  const hy_io_node* v = hy_io_map_val(n, "point_masses");
  if (hy_io_is_null(v)) return HY_OK;  // left blank: none
  if (v->kind != HY_IO_SEQ) {
    char got[96];
    return HY_IO_FAIL_AT(ld, v,
                         "%s: point_masses: expected a list of mappings {mass: kg, point: [x, y, "
                         "z]}, got %s",
                         body->where, hy_io_describe(v, got, sizeof got));
  }
  for (int i = 0; i < v->nkid; i++) {
    const hy_io_node* pm = v->kid[i];
    hy_io_item it;
    snprintf(it.where, sizeof it.where, "%.120s: point_masses[%d]", body->where, i);
    snprintf(it.what, sizeof it.what, "point mass %d of %.120s", i, body->what);
    HY_TRY(hy_io_expect_map(ld, &it, pm, keys));
    HY_TRY(hy_io_check_keys(ld, pm, keys, it.what));
    hy_point_mass_def d = hy_point_mass_def_default();
    memcpy(d.body, name, HY_NAME_MAX);
    d.pos = hy_io_pos_of(pm);
    HY_TRY(hy_io_require_number(ld, &it, pm, "mass", "a number >= 0, kg", &d.mass));
    if (hy_io_map_val(pm, "point")) {
      HY_TRY(hy_io_get_vec(ld, it.where, HY_IO_KEY(pm, "point"), 3, d.point));
    }
    if (hy_spec_add_point_mass(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding a point mass to body '%s'", name);
    }
  }
  return HY_OK;
}

hy_status hy_io_load_bodies(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name", "mass", "com", "inertia", "point_masses", NULL};
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "bodies", 1, "bodies", &list));
  for (int i = 0; i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "bodies", "body", keys, &it, &n));
    hy_body_def d = hy_body_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    if (strcmp(d.name, "ground") == 0) {
      return HY_IO_FAIL_AT(ld, hy_io_map_val(n, "name"),
                           "%s: name 'ground' is reserved for the inertial "
                           "frame",
                           it.where);
    }
    HY_TRY(hy_io_check_unique(ld, &it, list, i, "body"));
    HY_TRY(hy_io_require_number(ld, &it, n, "mass", "a number >= 0, kg", &d.mass));
    if (hy_io_map_val(n, "com")) {
      HY_TRY(hy_io_get_vec(ld, it.where, HY_IO_KEY(n, "com"), 3, d.com));
    }
    if (hy_io_map_val(n, "inertia")) {
      HY_TRY(get_inertia(ld, &it, hy_io_map_val(n, "inertia"), hy_io_map_key(n, "inertia"), d.mass,
                         d.inertia));
    }
    if (hy_spec_add_body(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding body '%s'", d.name);
    }
    HY_TRY(load_point_masses(ld, &it, n, d.name));
  }
  return HY_OK;
}

//----- joints --------------------------------------------------------------------------------

// A direction (any finite length; hy_model_check refuses a zero one).
static hy_status get_axis(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                          const char* key, double out[3]) {
  return hy_io_get_vec(ld, it->where, key, hy_io_map_val(map, key), hy_io_map_key(map, key), 3,
                       out);
}

// z0 or zd0 (`key`, rate 1 for zd0) of a joint of type t into out: a number for a joint of one
// coordinate, a list of one number per coordinate otherwise; angles are written in degrees
// (deg/s) and stored in radians.
static hy_status get_coords(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                            const char* key, int rate, hy_joint_type t, double* out) {
  const int nz = hy_joint_type_nz(t);
  const hy_io_node* v = hy_io_map_val(n, key);
  if (!v) return HY_OK;  // 0 (the definition's default)
  if (nz == 1) {
    HY_TRY(hy_io_get_number(ld, it->where, key, v, hy_io_map_key(n, key), &out[0]));
  } else {
    if (v->kind != HY_IO_SEQ || v->nkid != nz) {
      char units[96] = "", got[96];
      for (int k = 0; k < nz; k++) {
        const size_t len = strlen(units);
        const int angle = hy_joint_coord_type(t, k) == HY_JOINT_REVOLUTE;
        snprintf(units + len, sizeof units - len, "%s%s%s", k ? ", " : "", angle ? "deg" : "m",
                 rate ? "/s" : "");
      }
      return HY_IO_FAIL_AT(ld, hy_io_place(v, hy_io_map_key(n, key)),
                           "%s: %s: a %s joint has %d coordinates: expected a list of %d numbers "
                           "(%s), got %s",
                           it->where, key, hy_joint_type_name(t), nz, nz, units,
                           hy_io_describe(v, got, sizeof got));
    }
    HY_TRY(hy_io_get_vec(ld, it->where, key, v, hy_io_map_key(n, key), nz, out));
  }
  for (int k = 0; k < nz; k++) {
    if (hy_joint_coord_type(t, k) == HY_JOINT_REVOLUTE) out[k] *= kDeg;
  }
  return HY_OK;
}

// The damping of a joint of type t into out (one per coordinate, SI: N m s/rad for an angle, a
// rate in rad/s even where the file writes angles in degrees, N s/m for a slide): one number
// for every coordinate, or for a joint of several coordinates a list of one per coordinate.
static hy_status get_damping(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                             hy_joint_type t, double* out) {
  const int nz = hy_joint_type_nz(t);
  const hy_io_node* v = hy_io_map_val(n, "damping");
  if (!v) return HY_OK;  // 0: none
  if (v->kind != HY_IO_SEQ) {
    HY_TRY(hy_io_get_number(ld, it->where, "damping", v, hy_io_map_key(n, "damping"), &out[0]));
    for (int k = 1; k < nz; k++) out[k] = out[0];
    return HY_OK;
  }
  if (nz == 1 || v->nkid != nz) {
    char units[96] = "", got[96];
    for (int k = 0; k < nz; k++) {
      const size_t len = strlen(units);
      const int angle = hy_joint_coord_type(t, k) == HY_JOINT_REVOLUTE;
      snprintf(units + len, sizeof units - len, "%s%s", k ? ", " : "",
               angle ? "N m s/rad" : "N s/m");
    }
    if (nz == 1) {
      return HY_IO_FAIL_AT(ld, hy_io_place(v, hy_io_map_key(n, "damping")),
                           "%s: damping: a %s joint has one coordinate: expected a number >= 0 "
                           "(%s), got %s",
                           it->where, hy_joint_type_name(t), units,
                           hy_io_describe(v, got, sizeof got));
    }
    return HY_IO_FAIL_AT(ld, hy_io_place(v, hy_io_map_key(n, "damping")),
                         "%s: damping: a %s joint has %d coordinates: expected one number for "
                         "all or a list of %d numbers >= 0 (%s), got %s",
                         it->where, hy_joint_type_name(t), nz, nz, units,
                         hy_io_describe(v, got, sizeof got));
  }
  return hy_io_get_vec(ld, it->where, "damping", v, hy_io_map_key(n, "damping"), nz, out);
}

hy_status hy_io_load_joints(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {
      "name",       "type",  "parent", "child", "parent_point", "child_point", "axis",
      "child_axis", "axis2", "z0",     "zd0",   "independent",  "damping",     NULL};
  const char* types[HY_JOINT_COUNT + 1];
  for (int k = 0; k < HY_JOINT_COUNT; k++) types[k] = hy_joint_type_name((hy_joint_type)k);
  types[HY_JOINT_COUNT] = NULL;
  static const char* const yes_no[] = {"false", "true", NULL};
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "joints", 1, "joints", &list));
  for (int i = 0; i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "joints", "joint", keys, &it, &n));
    hy_joint_def d = hy_joint_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_check_unique(ld, &it, list, i, "joint"));
    int type;
    HY_TRY(hy_io_require_enum(ld, &it, n, "type",
                              "revolute, prismatic, universal, cylindrical, spherical or free",
                              types, &type));
    d.type = (hy_joint_type)type;
    HY_TRY(hy_io_require_name(ld, &it, n, "parent", "a body name or ground", d.parent));
    HY_TRY(hy_io_require_name(ld, &it, n, "child", "a body name", d.child));
    if (strcmp(d.child, "ground") == 0) {
      return HY_IO_FAIL_AT(ld, hy_io_map_val(n, "child"),
                           "%s: child: 'ground' cannot be a child (it is the "
                           "fixed inertial frame)",
                           it.where);
    }
    memset(d.parent_point, 0, sizeof d.parent_point);
    memset(d.child_point, 0, sizeof d.child_point);
    if (hy_io_map_val(n, "parent_point")) {
      HY_TRY(hy_io_get_vec(ld, it.where, HY_IO_KEY(n, "parent_point"), 3, d.parent_point));
    }
    if (hy_io_map_val(n, "child_point")) {
      HY_TRY(hy_io_get_vec(ld, it.where, HY_IO_KEY(n, "child_point"), 3, d.child_point));
    }
    d.axis[0] = 0, d.axis[1] = 0, d.axis[2] = 1;
    if (hy_io_map_val(n, "axis")) HY_TRY(get_axis(ld, &it, n, "axis", d.axis));
    memcpy(d.child_axis, d.axis, sizeof d.axis);
    if (hy_io_map_val(n, "child_axis")) HY_TRY(get_axis(ld, &it, n, "child_axis", d.child_axis));
    if (hy_io_map_val(n, "axis2")) {
      if (d.type != HY_JOINT_UNIVERSAL && d.type != HY_JOINT_SPHERICAL && d.type != HY_JOINT_FREE) {
        return HY_IO_FAIL_AT(ld, hy_io_map_key(n, "axis2"),
                             "%s: axis2: a %s joint has no second axis (only universal, "
                             "spherical and free joints do)",
                             it.where, hy_joint_type_name(d.type));
      }
      HY_TRY(get_axis(ld, &it, n, "axis2", d.axis2));
    }
    HY_TRY(get_coords(ld, &it, n, "z0", 0, d.type, d.z0s));
    HY_TRY(get_coords(ld, &it, n, "zd0", 1, d.type, d.zd0s));
    HY_TRY(get_damping(ld, &it, n, d.type, d.dampings));
    if (hy_io_map_val(n, "independent")) {
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "independent"), yes_no, &d.independent));
    }
    if (hy_spec_add_joint(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding joint '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- markers -------------------------------------------------------------------------------

hy_status hy_io_load_markers(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name", "body", "point", NULL};
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "markers", 0, "markers", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "markers", "marker", keys, &it, &n));
    hy_marker_def d = hy_marker_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_check_unique(ld, &it, list, i, "marker"));
    HY_TRY(hy_io_require_name(ld, &it, n, "body", "a body name or ground", d.body));
    memset(d.point, 0, sizeof d.point);
    if (hy_io_map_val(n, "point")) {
      HY_TRY(hy_io_get_vec(ld, it.where, HY_IO_KEY(n, "point"), 3, d.point));
    }
    if (hy_spec_add_marker(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding marker '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- loads ---------------------------------------------------------------------------------

hy_status hy_io_load_loads(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name", "type", "marker", "vector", "signal", NULL};
  static const char* const types[] = {"force", "torque", NULL};
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "loads", 0, "loads", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "loads", "load", keys, &it, &n));
    hy_load_def d = hy_load_def_default();
    d.pos = hy_io_pos_of(n);
    if (hy_io_map_val(n, "name")) {
      HY_TRY(hy_io_get_name(ld, it.where, HY_IO_KEY(n, "name"), d.name));
    } else {
      snprintf(d.name, sizeof d.name, "load%d", i);
    }
    // Default names take part too, so an explicit "load0" cannot shadow the first load.
    for (int j = 0; j < i; j++) {
      const hy_io_node* prev = hy_io_map_val(list->kid[j], "name");
      char prev_name[HY_NAME_MAX];
      if (prev) {
        snprintf(prev_name, sizeof prev_name, "%s", prev->text);
      } else {
        snprintf(prev_name, sizeof prev_name, "load%d", j);
      }
      if (strcmp(prev_name, d.name) == 0) {
        return HY_IO_FAIL_AT(ld, hy_io_place(hy_io_map_val(n, "name"), n),
                             "%s: name '%s' is already used by the "
                             "load at line %d, column %d (load names must be unique)",
                             it.where, d.name, list->kid[j]->line, list->kid[j]->col);
      }
    }
    int type;
    HY_TRY(hy_io_require_enum(ld, &it, n, "type", "force or torque", types, &type));
    d.type = type == 0 ? HY_LOAD_FORCE : HY_LOAD_TORQUE;
    HY_TRY(hy_io_require_name(ld, &it, n, "marker", "a marker name", d.marker));
    HY_TRY(hy_io_require(
        ld, &it, n, "vector",
        d.type == HY_LOAD_FORCE ? "a list of 3 numbers, N" : "a list of 3 numbers, N m"));
    HY_TRY(hy_io_get_vec(ld, it.where, HY_IO_KEY(n, "vector"), 3, d.vector));
    d.signal[0] = 0;
    if (hy_io_map_val(n, "signal")) {
      HY_TRY(hy_io_get_name(ld, it.where, HY_IO_KEY(n, "signal"), d.signal));
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
static hy_status get_up(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                        const char* key, double out[3]) {
  HY_TRY(
      hy_io_get_vec(ld, it->where, key, hy_io_map_val(map, key), hy_io_map_key(map, key), 3, out));
  if (out[0] != 0 || out[1] != 0 || out[2] != 0) return HY_OK;
  return HY_IO_FAIL_AT(
      ld, hy_io_map_val(map, key),
      "%s: %s: must be a non-zero vector (leave the key out to let hydyn choose one)", it->where,
      key);
}

hy_status hy_io_load_cuts(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name",   "type", "marker_a", "marker_b", "axis_a",
                                     "axis_b", "up_a", "up_b",     NULL};
  static const hy_cut_type kinds[] = {HY_CUT_REVOLUTE, HY_CUT_SPHERICAL, HY_CUT_TRANSLATIONAL};
  const int nkind = (int)(sizeof kinds / sizeof kinds[0]);
  const char* types[sizeof kinds / sizeof kinds[0] + 1];
  for (int k = 0; k < nkind; k++) types[k] = hy_cut_type_name(kinds[k]);
  types[nkind] = NULL;
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "cut_joints", 0, "cut joints", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "cut_joints", "cut joint", keys, &it, &n));
    hy_cut_def d = hy_cut_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_check_unique(ld, &it, list, i, "cut joint"));
    int type;
    HY_TRY(hy_io_require_enum(ld, &it, n, "type", "revolute, spherical or translational", types,
                              &type));
    d.type = kinds[type];
    HY_TRY(hy_io_require_name(ld, &it, n, "marker_a", "a marker name", d.marker_a));
    HY_TRY(hy_io_require_name(ld, &it, n, "marker_b", "a marker name", d.marker_b));
    if (hy_io_map_val(n, "axis_a")) HY_TRY(get_axis(ld, &it, n, "axis_a", d.axis_a));
    if (hy_io_map_val(n, "axis_b")) HY_TRY(get_axis(ld, &it, n, "axis_b", d.axis_b));
    if (hy_io_map_val(n, "up_a")) HY_TRY(get_up(ld, &it, n, "up_a", d.up_a));
    if (hy_io_map_val(n, "up_b")) HY_TRY(get_up(ld, &it, n, "up_b", d.up_b));
    if (hy_spec_add_cut(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding cut joint '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- nonholonomic constraints ---------------------------------------------------------------

hy_status hy_io_load_nonholonomic(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name", "type", "marker", "axis", NULL};
  static const hy_nonholonomic_type kinds[] = {HY_NONHOLONOMIC_KNIFE_EDGE};
  const int nkind = (int)(sizeof kinds / sizeof kinds[0]);
  const char* types[sizeof kinds / sizeof kinds[0] + 1];
  for (int k = 0; k < nkind; k++) types[k] = hy_nonholonomic_type_name(kinds[k]);
  types[nkind] = NULL;
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "nonholonomic", 0, "nonholonomic constraints", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "nonholonomic", "nonholonomic constraint", keys, &it, &n));
    hy_nonholonomic_def d = hy_nonholonomic_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_check_unique(ld, &it, list, i, "nonholonomic constraint"));
    if (hy_io_map_val(n, "type")) {
      int type;
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "type"), types, &type));
      d.type = kinds[type];
    }
    HY_TRY(hy_io_require_name(ld, &it, n, "marker", "a marker name", d.marker));
    // no default: a wheel's axle has no natural direction in its body's frame
    HY_TRY(hy_io_require(ld, &it, n, "axis", "a list of 3 numbers, the marker body's frame"));
    HY_TRY(get_axis(ld, &it, n, "axis", d.axis));
    if (hy_spec_add_nonholonomic(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding nonholonomic constraint '%s'",
                     d.name);
    }
  }
  return HY_OK;
}

//----- couplers ------------------------------------------------------------------------------

// The joints of the spec are those of the file, read before the couplers: a revolute joint_a
// has its offset written in degrees, like its z0.
static int spec_joint_revolute(const hy_spec* s, const char* name) {
  for (int j = 0; j < s->njoint; j++) {
    if (strcmp(s->joints[j].name, name) == 0) return s->joints[j].type == HY_JOINT_REVOLUTE;
  }
  return 0;  // no such joint: hy_model_compile says so
}

hy_status hy_io_load_couplers(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name", "joint_a", "joint_b", "ratio", "offset", NULL};
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "couplers", 0, "couplers", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "couplers", "coupler", keys, &it, &n));
    hy_coupler_def d = hy_coupler_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_check_unique(ld, &it, list, i, "coupler"));
    HY_TRY(hy_io_require_name(ld, &it, n, "joint_a", "a joint name", d.joint_a));
    HY_TRY(hy_io_require_name(ld, &it, n, "joint_b", "a joint name", d.joint_b));
    // no default: a ratio of 1 is as arbitrary as any other
    HY_TRY(hy_io_require_number(ld, &it, n, "ratio",
                                "a non-zero number, (unit of joint_a)/(unit of joint_b) in m and "
                                "rad (a rack on a pinion: the pitch radius in m/rad)",
                                &d.ratio));
    if (hy_io_map_val(n, "offset")) {
      HY_TRY(hy_io_get_number(ld, it.where, HY_IO_KEY(n, "offset"), &d.offset));
      if (spec_joint_revolute(ld->spec, d.joint_a)) d.offset *= kDeg;
    }
    if (hy_spec_add_coupler(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding coupler '%s'", d.name);
    }
  }
  return HY_OK;
}

//----- force elements ------------------------------------------------------------------------

hy_status hy_io_load_forces(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"name",  "type",   "marker_a", "marker_b",
                                     "force", "signal", NULL};
  static const char* const types[] = {"actuator", NULL};
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, root, "forces", 0, "force elements", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "forces", "force", keys, &it, &n));
    hy_force_def d = hy_force_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_check_unique(ld, &it, list, i, "force"));
    int type;
    HY_TRY(hy_io_require_enum(ld, &it, n, "type", "actuator", types, &type));
    d.type = HY_FORCE_ACTUATOR;
    HY_TRY(hy_io_require_name(ld, &it, n, "marker_a", "a marker name", d.marker_a));
    HY_TRY(hy_io_require_name(ld, &it, n, "marker_b", "a marker name", d.marker_b));
    HY_TRY(hy_io_require(ld, &it, n, "force", "a number in N, or the word 'equilibrium'"));
    const hy_io_node* v = hy_io_map_val(n, "force");
    if (v->kind == HY_IO_SCALAR && v->plain && strcmp(v->text, "equilibrium") == 0) {
      d.equilibrium = 1;
    } else {
      int r = 0;
      if (v->kind == HY_IO_SCALAR && v->plain) r = hy_io_parse_number(v->text, v->len, &d.value);
      if (r != 1) {
        char got[96];
        return HY_IO_FAIL_AT(ld, hy_io_place(v, hy_io_map_key(n, "force")),
                             "%s: force: expected a number (N) or the word 'equilibrium', got %s%s",
                             it.where, hy_io_describe(v, got, sizeof got),
                             r < 0 ? " (out of range)" : "");
      }
    }
    d.signal[0] = 0;
    if (hy_io_map_val(n, "signal")) {
      HY_TRY(hy_io_get_name(ld, it.where, HY_IO_KEY(n, "signal"), d.signal));
    }
    if (hy_spec_add_force(ld->spec, &d) != HY_OK) {
      return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding force '%s'", d.name);
    }
  }
  return HY_OK;
}
