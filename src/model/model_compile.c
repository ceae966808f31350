// Compiler from the editable spec to the flat model: name resolution, tree ordering, the
// structural rules (names, references, duplicates, the tree, hydraulic connections), then the
// values checked by hy_model_check (model_check.c) before anything is derived from them.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "model/model.h"

//----- allocation generated from HY_MODEL_ARRAYS ---------------------------------------------

static size_t round8(size_t n) { return (n + 7u) & ~(size_t)7u; }

static size_t model_bytes(const hy_sizes* szp) {
  const hy_sizes sz = *szp;
  size_t total = 0;
#define HY_BYTES_(type, name, count) total += round8(sizeof(type) * (size_t)(count));
  HY_MODEL_ARRAYS(HY_BYTES_)
#undef HY_BYTES_
  return total;
}

hy_status hy_model_alloc(const hy_sizes* szp, hy_model** out) {
  hy_model* m = hy_calloc(1, sizeof *m);
  if (!m) return HY_ERR_NOMEM;
  size_t bytes = model_bytes(szp);
  unsigned char* buf = hy_calloc(1, bytes ? bytes : 8);
  if (!buf) {
    hy_free(m);
    return HY_ERR_NOMEM;
  }
  m->sizes = *szp;
  m->buffer_ = buf;
  const hy_sizes sz = *szp;
  size_t off = 0;
#define HY_POINT_(type, name, count)   \
  m->name = (type*)(void*)(buf + off); \
  off += round8(sizeof(type) * (size_t)(count));
  HY_MODEL_ARRAYS(HY_POINT_)
#undef HY_POINT_
  m->frc_pos = m->frc_src;
  m->vol_pos = m->vol_src;
  *out = m;
  return HY_OK;
}

void hy_model_free(hy_model* m) {
  if (!m) return;
  hy_free(m->buffer_);
  hy_free(m);
}

hy_status hy_model_copy(const hy_model* m, hy_model** out) {
  if (!m || !out) return HY_ERR_ARG;
  hy_model* c;
  HY_TRY(hy_model_alloc(&m->sizes, &c));
  memcpy(c->name, m->name, sizeof c->name);
  memcpy(c->path, m->path, sizeof c->path);
  c->opt = m->opt;
  c->planar = m->planar;
  memcpy(c->plane_normal, m->plane_normal, sizeof c->plane_normal);
  memcpy(c->plane_e1, m->plane_e1, sizeof c->plane_e1);
  memcpy(c->plane_e2, m->plane_e2, sizeof c->plane_e2);
  memcpy(c->buffer_, m->buffer_, model_bytes(&m->sizes));
  *out = c;
  return HY_OK;
}

//----- lookups -------------------------------------------------------------------------------

static int find_name(const char* names, int n, const char* name) {
  for (int i = 0; i < n; i++) {
    if (strncmp(names + (size_t)i * HY_NAME_MAX, name, HY_NAME_MAX) == 0) return i;
  }
  return -1;
}

int hy_model_body(const hy_model* m, const char* name) {
  return find_name(m->body_name, m->sizes.nbody, name);
}
int hy_model_joint(const hy_model* m, const char* name) {
  return find_name(m->jnt_name, m->sizes.nbody, name);
}
int hy_model_marker(const hy_model* m, const char* name) {
  return find_name(m->mrk_name, m->sizes.nmrk, name);
}
int hy_model_signal(const hy_model* m, const char* name) {
  return find_name(m->sig_name, m->sizes.nsig, name);
}
int hy_model_cut(const hy_model* m, const char* name) {
  return find_name(m->cut_name, m->sizes.ncut, name);
}
int hy_model_nonholonomic(const hy_model* m, const char* name) {
  return find_name(m->nh_name, m->sizes.nnh, name);
}
int hy_model_coupler(const hy_model* m, const char* name) {
  return find_name(m->cpl_name, m->sizes.ncpl, name);
}
int hy_model_force(const hy_model* m, const char* name) {
  return find_name(m->frc_name, m->sizes.nfrc, name);
}
int hy_model_accumulator(const hy_model* m, const char* name) {
  return find_name(m->acc_name, m->sizes.nacc, name);
}
int hy_model_circuit(const hy_model* m, const char* name) {
  return find_name(m->circ_name, m->sizes.ncirc, name);
}
int hy_model_volume(const hy_model* m, const char* name) {
  return find_name(m->vol_name, m->sizes.nvol, name);
}
int hy_model_source(const hy_model* m, const char* name) {
  return find_name(m->src_name, m->sizes.nsrc, name);
}
int hy_model_throttle(const hy_model* m, const char* name) {
  return find_name(m->orf_name, m->sizes.norf, name);
}
int hy_model_valve(const hy_model* m, const char* name) {
  return find_name(m->vlv_name, m->sizes.nvlv, name);
}
int hy_model_pressure_valve(const hy_model* m, const char* name) {
  return find_name(m->pvl_name, m->sizes.npvl, name);
}
int hy_model_pump(const hy_model* m, const char* name) {
  return find_name(m->pmp_name, m->sizes.npump, name);
}
int hy_model_cylinder(const hy_model* m, const char* name) {
  int f = hy_model_force(m, name);
  return f < 0 ? -1 : m->frc_cyl[f];
}

//----- compilation ---------------------------------------------------------------------------

// A structural error at `pos`, returned at once.
#define FAIL(pos, ...)                                                                      \
  do {                                                                                      \
    char msg_[400];                                                                         \
    snprintf(msg_, sizeof msg_, __VA_ARGS__);                                               \
    return hy_error_set_src(err, HY_ERR_MODEL, s->path, (pos).line, (pos).col, "%s", msg_); \
  } while (0)

static int spec_body(const hy_spec* s, const char* name) {
  for (int i = 0; i < s->nbody; i++) {
    if (strcmp(s->bodies[i].name, name) == 0) return i;
  }
  return -1;
}

static int spec_marker(const hy_spec* s, const char* name) {
  for (int i = 0; i < s->nmarker; i++) {
    if (strcmp(s->markers[i].name, name) == 0) return i;
  }
  return -1;
}

static int spec_signal(const hy_spec* s, const char* name) {
  for (int i = 0; i < s->nsignal; i++) {
    if (strcmp(s->signals[i].name, name) == 0) return i;
  }
  return -1;
}

// Spec index of a marker's body, -1 for ground (the marker must exist).
static int marker_body(const hy_spec* s, int mk) {
  const char* body = s->markers[mk].body;
  return strcmp(body, "ground") == 0 ? -1 : spec_body(s, body);
}

static int is_zero3(const double v[3]) { return v[0] == 0 && v[1] == 0 && v[2] == 0; }

// A unit vector perpendicular to the unit vector a: the coordinate axis least aligned with a,
// with its component along a removed (for a = +z this is +x, so a planar model in the x-y
// plane gets e1 = x, e2 = y).
static void any_perpendicular(double p[3], const double a[3]) {
  int i = 0;
  if (fabs(a[1]) < fabs(a[i])) i = 1;
  if (fabs(a[2]) < fabs(a[i])) i = 2;
  hy_v3_set(p, 0, 0, 0);
  p[i] = 1;
  hy_v3_addscl(p, a, -a[i]);
  hy_v3_normalize(p);
}

// Equations a cut joint adds to Phi (seed 000 Sect. 2.2; see docs/model-format.md).
static int cut_equations(hy_cut_type type, int planar) {
  if (planar) return 2;
  return type == HY_CUT_SPHERICAL ? 3 : 5;
}

//----- the tree ------------------------------------------------------------------------------

// Body and joint names, and the tree: each body the child of exactly one joint, hanging from
// ground. Fills joint_of (spec body -> spec joint), order (compiled index -> spec body) and
// new_of (spec body -> compiled index), parents first.
static hy_status check_tree(const hy_spec* s, hy_error* err, int* joint_of, int* order,
                            int* new_of) {
  const int nb = s->nbody;
  for (int i = 0; i < nb; i++) {
    const hy_body_def* b = &s->bodies[i];
    if (b->name[0] == 0) FAIL(b->pos, "body %d has no name", i);
    if (strcmp(b->name, "ground") == 0) FAIL(b->pos, "'ground' is reserved for the inertial frame");
    if (spec_body(s, b->name) != i) FAIL(b->pos, "duplicate body name '%s'", b->name);
    joint_of[i] = -1;
  }
  for (int j = 0; j < s->njoint; j++) {
    const hy_joint_def* jd = &s->joints[j];
    if (jd->name[0] == 0) FAIL(jd->pos, "joint %d has no name", j);
    for (int k = 0; k < j; k++) {
      if (strcmp(s->joints[k].name, jd->name) == 0) {
        FAIL(jd->pos, "duplicate joint name '%s'", jd->name);
      }
    }
    int c = spec_body(s, jd->child);
    if (c < 0) FAIL(jd->pos, "joint '%s': child body '%s' does not exist", jd->name, jd->child);
    if (strcmp(jd->parent, "ground") != 0 && spec_body(s, jd->parent) < 0) {
      FAIL(jd->pos, "joint '%s': parent body '%s' does not exist", jd->name, jd->parent);
    }
    if (strcmp(jd->parent, jd->child) == 0) {
      FAIL(jd->pos, "joint '%s': a body cannot be its own parent", jd->name);
    }
    if (joint_of[c] >= 0) {
      FAIL(jd->pos,
           "body '%s' is already the child of joint '%s' (a tree gives each body one parent "
           "joint; closed loops need cut joints)",
           jd->child, s->joints[joint_of[c]].name);
    }
    joint_of[c] = j;
  }
  for (int i = 0; i < nb; i++) {
    if (joint_of[i] < 0) {
      FAIL(s->bodies[i].pos, "body '%s' is not attached: no joint has it as child",
           s->bodies[i].name);
    }
  }

  // order bodies parents first: repeatedly take bodies whose parent is already placed
  for (int i = 0; i < nb; i++) new_of[i] = -1;
  int placed = 0;
  for (int pass = 0; pass < nb && placed < nb; pass++) {
    for (int i = 0; i < nb; i++) {
      if (new_of[i] >= 0) continue;
      const char* parent = s->joints[joint_of[i]].parent;
      int p = strcmp(parent, "ground") == 0 ? -1 : spec_body(s, parent);
      if (p < 0 || new_of[p] >= 0) {
        new_of[i] = placed;
        order[placed++] = i;
      }
    }
  }
  for (int i = 0; i < nb && placed < nb; i++) {
    if (new_of[i] < 0) {
      const hy_joint_def* jd = &s->joints[joint_of[i]];
      FAIL(jd->pos,
           "joint '%s' closes a cycle of joints not connected to ground (a tree must hang from "
           "ground)",
           jd->name);
    }
  }
  return HY_OK;
}

//----- markers, signals, loads, cut joints, nonholonomic constraints, force elements ---------

// Names and markers of the nonholonomic constraints, and their number (their axes are
// hy_model_check's, the plane of a planar model derive_nonholonomic's).
static hy_status check_nonholonomic(const hy_spec* s, hy_error* err) {
  for (int k = 0; k < s->nnonholonomic; k++) {
    const hy_nonholonomic_def* nd = &s->nonholonomics[k];
    if (nd->name[0] == 0) FAIL(nd->pos, "nonholonomic constraint %d has no name", k);
    for (int q = 0; q < k; q++) {
      if (strcmp(s->nonholonomics[q].name, nd->name) == 0) {
        FAIL(nd->pos, "duplicate nonholonomic constraint name '%s'", nd->name);
      }
    }
    const int mk = spec_marker(s, nd->marker);
    if (mk < 0) {
      FAIL(nd->pos, "nonholonomic constraint '%s': marker '%s' does not exist", nd->name,
           nd->marker);
    }
    if (marker_body(s, mk) < 0) {
      FAIL(nd->pos,
           "nonholonomic constraint '%s': marker '%s' is on ground (a nonholonomic constraint on "
           "ground constrains nothing)",
           nd->name, nd->marker);
    }
  }
  // one coordinate per joint, one equation per constraint: the constraint that takes the last
  // velocity is blamed
  const int nz = s->nbody, nnh = s->nnonholonomic;
  if (nnh >= nz) {
    const hy_nonholonomic_def* nd = &s->nonholonomics[nz - 1];
    FAIL(nd->pos,
         "nonholonomic constraint '%s': %d nonholonomic constraints on a model of %d "
         "coordinates leave no motion (at most %d)",
         nd->name, nnh, nz, nz - 1);
  }
  return HY_OK;
}

// Names of the couplers and the joints they name, as the model file defines them (s: the spec
// before hy_model_expand). Whether those joints have one coordinate, and the coupler's numbers,
// are hy_model_check's.
static hy_status check_couplers(const hy_spec* s, hy_error* err) {
  for (int k = 0; k < s->ncoupler; k++) {
    const hy_coupler_def* cd = &s->couplers[k];
    if (cd->name[0] == 0) FAIL(cd->pos, "coupler %d has no name", k);
    for (int q = 0; q < k; q++) {
      if (strcmp(s->couplers[q].name, cd->name) == 0) {
        FAIL(cd->pos, "duplicate coupler name '%s'", cd->name);
      }
    }
    for (int side = 0; side < 2; side++) {
      const char* jn = side == 0 ? cd->joint_a : cd->joint_b;
      int found = 0;
      for (int j = 0; j < s->njoint && !found; j++) found = strcmp(s->joints[j].name, jn) == 0;
      if (!found) {
        FAIL(cd->pos, "coupler '%s': joint_%c: joint '%s' does not exist", cd->name,
             side == 0 ? 'a' : 'b', jn);
      }
    }
  }
  return HY_OK;
}

static hy_status check_references(const hy_spec* s, hy_error* err) {
  for (int k = 0; k < s->nmarker; k++) {
    const hy_marker_def* md = &s->markers[k];
    if (md->name[0] == 0) FAIL(md->pos, "marker %d has no name", k);
    for (int q = 0; q < k; q++) {
      if (strcmp(s->markers[q].name, md->name) == 0) {
        FAIL(md->pos, "duplicate marker name '%s'", md->name);
      }
    }
    if (strcmp(md->body, "ground") != 0 && spec_body(s, md->body) < 0) {
      FAIL(md->pos, "marker '%s': body '%s' does not exist", md->name, md->body);
    }
  }
  for (int k = 0; k < s->nsignal; k++) {
    const hy_signal_def* sd = &s->signals[k];
    if (sd->name[0] == 0) FAIL(sd->pos, "signal %d has no name", k);
    for (int q = 0; q < k; q++) {
      if (strcmp(s->signals[q].name, sd->name) == 0) {
        FAIL(sd->pos, "duplicate signal name '%s'", sd->name);
      }
    }
  }
  // references between signals, in any order of definition (their cycles are hy_model_check's)
  for (int k = 0; k < s->nsignal; k++) {
    const hy_signal_def* sd = &s->signals[k];
    for (int i = 0; i < sd->narg; i++) {
      if (spec_signal(s, sd->arg[i]) >= 0) continue;
      const hy_signal_kind_info* info = hy_model_signal_kind(sd->kind);
      char where[48];
      if (info && info->arg_key && sd->narg == 1) {
        snprintf(where, sizeof where, "%s", info->arg_key);
      } else {
        snprintf(where, sizeof where, "%s[%d]", hy_signal_kind_name(sd->kind), i);
      }
      FAIL(sd->pos, "signal '%s': %s: signal '%s' does not exist", sd->name, where, sd->arg[i]);
    }
  }
  for (int k = 0; k < s->nload; k++) {
    const hy_load_def* ld = &s->loads[k];
    if (spec_marker(s, ld->marker) < 0) {
      FAIL(ld->pos, "load '%s': marker '%s' does not exist", ld->name, ld->marker);
    }
    if (ld->signal[0] && spec_signal(s, ld->signal) < 0) {
      FAIL(ld->pos, "load '%s': signal '%s' does not exist", ld->name, ld->signal);
    }
  }
  for (int k = 0; k < s->ncut; k++) {
    const hy_cut_def* cd = &s->cuts[k];
    if (cd->name[0] == 0) FAIL(cd->pos, "cut joint %d has no name", k);
    for (int q = 0; q < k; q++) {
      if (strcmp(s->cuts[q].name, cd->name) == 0) {
        FAIL(cd->pos, "duplicate cut joint name '%s'", cd->name);
      }
    }
    int ma = spec_marker(s, cd->marker_a), mb = spec_marker(s, cd->marker_b);
    if (ma < 0 || mb < 0) {
      FAIL(cd->pos, "cut joint '%s': marker '%s' does not exist", cd->name,
           ma < 0 ? cd->marker_a : cd->marker_b);
    }
    if (marker_body(s, ma) == marker_body(s, mb)) {
      FAIL(cd->pos,
           "cut joint '%s': markers '%s' and '%s' are both on '%s' (a cut joint connects two "
           "different bodies, or a body and ground)",
           cd->name, cd->marker_a, cd->marker_b, s->markers[ma].body);
    }
  }
  HY_TRY(check_nonholonomic(s, err));
  for (int k = 0; k < s->nforce; k++) {
    const hy_force_def* fd = &s->forces[k];
    if (fd->name[0] == 0) FAIL(fd->pos, "force %d has no name", k);
    for (int q = 0; q < k; q++) {
      if (strcmp(s->forces[q].name, fd->name) == 0) {
        FAIL(fd->pos, "duplicate force name '%s'", fd->name);
      }
    }
    if (spec_marker(s, fd->marker_a) < 0) {
      FAIL(fd->pos, "force '%s': marker '%s' does not exist", fd->name, fd->marker_a);
    }
    if (spec_marker(s, fd->marker_b) < 0) {
      FAIL(fd->pos, "force '%s': marker '%s' does not exist", fd->name, fd->marker_b);
    }
    if (strcmp(fd->marker_a, fd->marker_b) == 0) {
      FAIL(fd->pos, "force '%s': marker_a and marker_b are the same marker '%s'", fd->name,
           fd->marker_a);
    }
    if (fd->signal[0] && spec_signal(s, fd->signal) < 0) {
      FAIL(fd->pos, "force '%s': signal '%s' does not exist", fd->name, fd->signal);
    }
  }
  return HY_OK;
}

//----- hydraulics ----------------------------------------------------------------------------

static int spec_circuit(const hy_spec* s, const char* name) {
  for (int i = 0; i < s->ncircuit; i++) {
    if (strcmp(s->circuits[i].name, name) == 0) return i;
  }
  return -1;
}

// Node of a volume (its index) or source (nvolume + its index) by name, or -1: the numbering
// of the compiled orf_node / vlv_node arrays.
static int spec_node(const hy_spec* s, const char* name) {
  for (int i = 0; i < s->nvolume; i++) {
    if (strcmp(s->volumes[i].name, name) == 0) return i;
  }
  for (int i = 0; i < s->nsource; i++) {
    if (strcmp(s->sources[i].name, name) == 0) return s->nvolume + i;
  }
  return -1;
}

// Circuit of a node (spec index).
static int node_circuit(const hy_spec* s, int node) {
  const char* c =
      node < s->nvolume ? s->volumes[node].circuit : s->sources[node - s->nvolume].circuit;
  return spec_circuit(s, c);
}

// What a check or relief valve is called in messages.
static const char* pvalve_kind_name(hy_pressure_valve_kind kind) {
  return kind == HY_PRESSURE_VALVE_RELIEF ? "relief valve" : "check valve";
}

// Where a hydraulic name was first defined among the kinds checked so far, for duplicates.
static int hyd_name_taken(const hy_spec* s, const char* name, int kind, int index,
                          const char** what) {
  // kinds in order: 0 volume, 1 source, 2 throttle, 3 valve, 4 check or relief valve,
  // 5 cylinder, 6 pump, 7 accumulator
  static const char* const kinds[] = {"volume",   "source", "throttle", "valve",
                                      NULL,       "cylinder", "pump", "accumulator"};
  for (int k = 0; k <= kind; k++) {
    int n = k == 0   ? s->nvolume
            : k == 1 ? s->nsource
            : k == 2 ? s->nthrottle
            : k == 3 ? s->nvalve
            : k == 4 ? s->npvalve
            : k == 5 ? s->ncylinder
            : k == 6 ? s->npump
                     : s->naccumulator;
    if (k == kind) n = index;
    for (int i = 0; i < n; i++) {
      const char* other = k == 0   ? s->volumes[i].name
                          : k == 1 ? s->sources[i].name
                          : k == 2 ? s->throttles[i].name
                          : k == 3 ? s->valves[i].name
                          : k == 4 ? s->pvalves[i].name
                          : k == 5 ? s->cylinders[i].name
                          : k == 6 ? s->pumps[i].name
                                   : s->accumulators[i].name;
      if (strcmp(other, name) == 0) {
        *what = k == 4 ? pvalve_kind_name(s->pvalves[i].kind) : kinds[k];
        return 1;
      }
    }
  }
  return 0;
}

// Resolves one port of a throttle or valve: *node gets the node, and the circuits of all
// ports must agree (*circ is -1 until the first port sets it).
static hy_status hyd_port(const hy_spec* s, hy_error* err, hy_srcpos pos, const char* kind,
                          const char* elem, const char* port, const char* name, int* node,
                          int* circ) {
  *node = spec_node(s, name);
  if (*node < 0) {
    FAIL(pos, "%s '%s': %s '%s' is not a volume or source of the hydraulics", kind, elem, port,
         name);
  }
  const int c = node_circuit(s, *node);
  if (*circ >= 0 && c != *circ) {
    FAIL(pos, "%s '%s': %s '%s' belongs to circuit '%s', the other ports to circuit '%s'", kind,
         elem, port, name, s->circuits[c].name, s->circuits[*circ].name);
  }
  *circ = c;
  return HY_OK;
}

// The structure of the hydraulic definitions: names, references, ports, connectivity (their
// values are hy_model_check's).
static hy_status hyd_check(const hy_spec* s, hy_error* err) {
  for (int i = 0; i < s->ncircuit; i++) {
    const hy_circuit_def* c = &s->circuits[i];
    if (c->name[0] == 0) FAIL(c->pos, "circuit %d has no name", i);
    if (spec_circuit(s, c->name) != i) FAIL(c->pos, "duplicate circuit name '%s'", c->name);
  }
  const char* what;
  for (int i = 0; i < s->nvolume; i++) {
    const hy_volume_def* v = &s->volumes[i];
    if (v->name[0] == 0) FAIL(v->pos, "volume %d has no name", i);
    if (hyd_name_taken(s, v->name, 0, i, &what)) {
      FAIL(v->pos, "volume '%s': the name is already used by a %s", v->name, what);
    }
    if (spec_circuit(s, v->circuit) < 0) {
      FAIL(v->pos, "volume '%s': circuit '%s' does not exist", v->name, v->circuit);
    }
  }
  for (int i = 0; i < s->nsource; i++) {
    const hy_source_def* p = &s->sources[i];
    if (p->name[0] == 0) FAIL(p->pos, "source %d has no name", i);
    if (hyd_name_taken(s, p->name, 1, i, &what)) {
      FAIL(p->pos, "source '%s': the name is already used by a %s", p->name, what);
    }
    if (spec_circuit(s, p->circuit) < 0) {
      FAIL(p->pos, "source '%s': circuit '%s' does not exist", p->name, p->circuit);
    }
    if (p->signal[0] && spec_signal(s, p->signal) < 0) {
      FAIL(p->pos, "source '%s': signal '%s' does not exist", p->name, p->signal);
    }
  }
  for (int i = 0; i < s->nthrottle; i++) {
    const hy_throttle_def* t = &s->throttles[i];
    if (t->name[0] == 0) FAIL(t->pos, "throttle %d has no name", i);
    if (hyd_name_taken(s, t->name, 2, i, &what)) {
      FAIL(t->pos, "throttle '%s': the name is already used by a %s", t->name, what);
    }
    int a, b, circ = -1;
    HY_TRY(hyd_port(s, err, t->pos, "throttle", t->name, "from", t->from, &a, &circ));
    HY_TRY(hyd_port(s, err, t->pos, "throttle", t->name, "to", t->to, &b, &circ));
    if (a == b) FAIL(t->pos, "throttle '%s': from and to are the same node '%s'", t->name, t->to);
    if (a >= s->nvolume && b >= s->nvolume) {
      FAIL(t->pos, "throttle '%s': connects two sources ('%s', '%s'); one end must be a volume",
           t->name, t->from, t->to);
    }
    if (t->signal[0] && spec_signal(s, t->signal) < 0) {
      FAIL(t->pos, "throttle '%s': signal '%s' does not exist", t->name, t->signal);
    }
  }
  for (int i = 0; i < s->nvalve; i++) {
    const hy_valve_def* v = &s->valves[i];
    if (v->name[0] == 0) FAIL(v->pos, "valve %d has no name", i);
    if (hyd_name_taken(s, v->name, 3, i, &what)) {
      FAIL(v->pos, "valve '%s': the name is already used by a %s", v->name, what);
    }
    const char* names[4] = {v->P, v->T, v->A, v->B};
    static const char* const ports[4] = {"port P", "port T", "port A", "port B"};
    int node[4], circ = -1, nvol = 0;
    for (int k = 0; k < 4; k++) {
      HY_TRY(hyd_port(s, err, v->pos, "valve", v->name, ports[k], names[k], &node[k], &circ));
      nvol += node[k] < s->nvolume;
      for (int q = 0; q < k; q++) {
        if (node[q] == node[k]) {
          FAIL(v->pos,
               "valve '%s': %s and %s are the same node '%s' (the four ports must "
               "differ)",
               v->name, ports[q], ports[k], names[k]);
        }
      }
    }
    if (nvol == 0) FAIL(v->pos, "valve '%s': no port is a volume", v->name);
    if (v->signal[0] && spec_signal(s, v->signal) < 0) {
      FAIL(v->pos, "valve '%s': signal '%s' does not exist", v->name, v->signal);
    }
  }
  for (int i = 0; i < s->npvalve; i++) {
    const hy_pressure_valve_spec* v = &s->pvalves[i];
    const char* kind = pvalve_kind_name(v->kind);
    if (v->name[0] == 0) FAIL(v->pos, "%s %d has no name", kind, i);
    if (hyd_name_taken(s, v->name, 4, i, &what)) {
      FAIL(v->pos, "%s '%s': the name is already used by a %s", kind, v->name, what);
    }
    int a, b, circ = -1;
    HY_TRY(hyd_port(s, err, v->pos, kind, v->name, "from", v->from, &a, &circ));
    HY_TRY(hyd_port(s, err, v->pos, kind, v->name, "to", v->to, &b, &circ));
    if (a == b) FAIL(v->pos, "%s '%s': from and to are the same node '%s'", kind, v->name, v->to);
    if (a >= s->nvolume && b >= s->nvolume) {
      FAIL(v->pos, "%s '%s': connects two sources ('%s', '%s'); one end must be a volume", kind,
           v->name, v->from, v->to);
    }
  }
  for (int i = 0; i < s->ncylinder; i++) {
    const hy_cylinder_def* c = &s->cylinders[i];
    if (c->name[0] == 0) FAIL(c->pos, "cylinder %d has no name", i);
    if (hyd_name_taken(s, c->name, 5, i, &what)) {
      FAIL(c->pos, "cylinder '%s': the name is already used by a %s", c->name, what);
    }
    for (int k = 0; k < s->nforce; k++) {
      if (strcmp(s->forces[k].name, c->name) == 0) {
        FAIL(c->pos,
             "cylinder '%s': the name is already used by a force element (a cylinder "
             "is a force element of the same name)",
             c->name);
      }
    }
    if (spec_marker(s, c->marker_a) < 0) {
      FAIL(c->pos, "cylinder '%s': marker '%s' does not exist", c->name, c->marker_a);
    }
    if (spec_marker(s, c->marker_b) < 0) {
      FAIL(c->pos, "cylinder '%s': marker '%s' does not exist", c->name, c->marker_b);
    }
    if (strcmp(c->marker_a, c->marker_b) == 0) {
      FAIL(c->pos, "cylinder '%s': marker_a and marker_b are the same marker '%s'", c->name,
           c->marker_a);
    }
    const char* ch[2] = {c->chamber_a, c->chamber_b};
    for (int k = 0; k < 2; k++) {
      int nd = spec_node(s, ch[k]);
      if (nd < 0) {
        FAIL(c->pos, "cylinder '%s': chamber_%c '%s' is not a volume of the hydraulics", c->name,
             'a' + k, ch[k]);
      }
      if (nd >= s->nvolume) {
        FAIL(c->pos, "cylinder '%s': chamber_%c '%s' is a source; a chamber must be a volume",
             c->name, 'a' + k, ch[k]);
      }
    }
    if (strcmp(c->chamber_a, c->chamber_b) == 0) {
      FAIL(c->pos, "cylinder '%s': chamber_a and chamber_b are the same volume '%s'", c->name,
           c->chamber_a);
    }
  }
  for (int i = 0; i < s->npump; i++) {
    const hy_pump_def* p = &s->pumps[i];
    if (p->name[0] == 0) FAIL(p->pos, "pump %d has no name", i);
    if (hyd_name_taken(s, p->name, 6, i, &what)) {
      FAIL(p->pos, "pump '%s': the name is already used by a %s", p->name, what);
    }
    int a, b, circ = -1;
    HY_TRY(hyd_port(s, err, p->pos, "pump", p->name, "from", p->from, &a, &circ));
    HY_TRY(hyd_port(s, err, p->pos, "pump", p->name, "to", p->to, &b, &circ));
    if (a == b) FAIL(p->pos, "pump '%s': from and to are the same node '%s'", p->name, p->to);
    // a flow source into a fixed-pressure node would change nothing
    if (b >= s->nvolume) {
      FAIL(p->pos, "pump '%s': to '%s' is a source; a pump delivers into a volume", p->name, p->to);
    }
    if (p->signal[0] && spec_signal(s, p->signal) < 0) {
      FAIL(p->pos, "pump '%s': signal '%s' does not exist", p->name, p->signal);
    }
  }
  for (int i = 0; i < s->naccumulator; i++) {
    const hy_accumulator_def* a = &s->accumulators[i];
    if (a->name[0] == 0) FAIL(a->pos, "accumulator %d has no name", i);
    if (hyd_name_taken(s, a->name, 7, i, &what)) {
      FAIL(a->pos, "accumulator '%s': the name is already used by a %s", a->name, what);
    }
    const int nd = spec_node(s, a->volume);
    if (nd < 0) {
      FAIL(a->pos, "accumulator '%s': volume '%s' is not a volume of the hydraulics", a->name,
           a->volume);
    }
    if (nd >= s->nvolume) {
      FAIL(a->pos, "accumulator '%s': '%s' is a source; an accumulator is connected to a volume",
           a->name, a->volume);
    }
  }
  // every volume needs a connection
  for (int i = 0; i < s->nvolume; i++) {
    const hy_volume_def* v = &s->volumes[i];
    int nconn = 0;
    for (int k = 0; k < s->nthrottle; k++) {
      nconn +=
          strcmp(s->throttles[k].from, v->name) == 0 || strcmp(s->throttles[k].to, v->name) == 0;
    }
    for (int k = 0; k < s->npvalve; k++) {
      nconn += strcmp(s->pvalves[k].from, v->name) == 0 || strcmp(s->pvalves[k].to, v->name) == 0;
    }
    for (int k = 0; k < s->nvalve; k++) {
      const hy_valve_def* vd = &s->valves[k];
      nconn += strcmp(vd->P, v->name) == 0 || strcmp(vd->T, v->name) == 0 ||
               strcmp(vd->A, v->name) == 0 || strcmp(vd->B, v->name) == 0;
    }
    for (int k = 0; k < s->ncylinder; k++) {
      nconn += strcmp(s->cylinders[k].chamber_a, v->name) == 0;
      nconn += strcmp(s->cylinders[k].chamber_b, v->name) == 0;
    }
    for (int k = 0; k < s->npump; k++) {
      nconn += strcmp(s->pumps[k].from, v->name) == 0 || strcmp(s->pumps[k].to, v->name) == 0;
    }
    if (nconn == 0) {
      FAIL(v->pos,
           "volume '%s' is not connected: no throttle, valve port, check or relief valve, pump "
           "or cylinder chamber names it",
           v->name);
    }
  }
  return HY_OK;
}

#undef FAIL

//----- the model as given --------------------------------------------------------------------

// Copies the spec into m as it is, references resolved: axes not yet normalized, the inertia
// not yet symmetrized, nothing derived, so that hy_model_check sees the values as given.
static void fill_mech(const hy_spec* s, hy_model* m, const int* order, const int* joint_of,
                      const int* new_of) {
  for (int i = 0; i < s->nbody; i++) {
    const hy_body_def* b = &s->bodies[order[i]];
    const hy_joint_def* jd = &s->joints[joint_of[order[i]]];
    memcpy(m->body_name + (size_t)i * HY_NAME_MAX, b->name, HY_NAME_MAX);
    memcpy(m->jnt_name + (size_t)i * HY_NAME_MAX, jd->name, HY_NAME_MAX);
    m->body_parent[i] = strcmp(jd->parent, "ground") == 0 ? -1 : new_of[spec_body(s, jd->parent)];
    m->body_mass[i] = b->mass;
    hy_v3_copy(m->body_com + 3 * i, b->com);
    memcpy(m->body_inertia + 9 * i, b->inertia, sizeof b->inertia);
    m->body_src[i] = b->pos;
    m->jnt_type[i] = jd->type;
    m->jnt_zadr[i] = i;
    hy_v3_copy(m->jnt_ppoint + 3 * i, jd->parent_point);
    hy_v3_copy(m->jnt_cpoint + 3 * i, jd->child_point);
    hy_v3_copy(m->jnt_paxis + 3 * i, jd->axis);
    hy_v3_copy(m->jnt_caxis + 3 * i, jd->child_axis);
    m->z0[i] = jd->z0;
    m->zd0[i] = jd->zd0;
    m->jnt_damp[i] = jd->damping;
    m->jnt_indep[i] = jd->independent != 0;
    m->jnt_src[i] = jd->pos;
  }
  for (int k = 0; k < s->nmarker; k++) {
    const hy_marker_def* md = &s->markers[k];
    memcpy(m->mrk_name + (size_t)k * HY_NAME_MAX, md->name, HY_NAME_MAX);
    m->mrk_body[k] = strcmp(md->body, "ground") == 0 ? -1 : new_of[spec_body(s, md->body)];
    hy_v3_copy(m->mrk_point + 3 * k, md->point);
    m->mrk_src[k] = md->pos;
  }
  int adr = 0;
  for (int k = 0; k < s->nsignal; k++) {
    const hy_signal_def* sd = &s->signals[k];
    memcpy(m->sig_name + (size_t)k * HY_NAME_MAX, sd->name, HY_NAME_MAX);
    m->sig_interp[k] = sd->interp;
    m->sig_adr[k] = adr;
    m->sig_npoint[k] = sd->npoint;
    memcpy(m->sig_t + adr, sd->t, sizeof(double) * (size_t)sd->npoint);
    memcpy(m->sig_value + adr, sd->value, sizeof(double) * (size_t)sd->npoint);
    m->sig_src[k] = sd->pos;
    adr += sd->npoint;
  }
  int argadr = 0;
  for (int k = 0; k < s->nsignal; k++) {
    const hy_signal_def* sd = &s->signals[k];
    m->sig_kind[k] = sd->kind;
    // the parameters its kind reads, in sig_par order (an unknown kind is hy_model_check's)
    const hy_signal_kind_info* info = hy_model_signal_kind(sd->kind);
    for (int i = 0; info && i < info->npar; i++) {
      const double* field = (const double*)(const void*)((const char*)sd + info->par[i].offset);
      m->sig_par[(size_t)k * HY_SIGNAL_NPAR + i] = *field;
    }
    m->sig_argadr[k] = argadr;
    m->sig_narg[k] = sd->narg;
    for (int i = 0; i < sd->narg; i++) m->sig_arg[argadr++] = hy_model_signal(m, sd->arg[i]);
  }
  for (int k = 0; k < s->nload; k++) {
    const hy_load_def* ld = &s->loads[k];
    memcpy(m->load_name + (size_t)k * HY_NAME_MAX, ld->name, HY_NAME_MAX);
    m->load_type[k] = ld->type;
    m->load_mrk[k] = hy_model_marker(m, ld->marker);
    m->load_sig[k] = ld->signal[0] ? hy_model_signal(m, ld->signal) : -1;
    hy_v3_copy(m->load_vector + 3 * k, ld->vector);
    m->load_src[k] = ld->pos;
  }
  for (int k = 0; k < s->ncut; k++) {
    const hy_cut_def* cd = &s->cuts[k];
    memcpy(m->cut_name + (size_t)k * HY_NAME_MAX, cd->name, HY_NAME_MAX);
    m->cut_type[k] = cd->type;
    m->cut_mrk_a[k] = hy_model_marker(m, cd->marker_a);
    m->cut_mrk_b[k] = hy_model_marker(m, cd->marker_b);
    hy_v3_copy(m->cut_axis_a + 3 * k, cd->axis_a);
    hy_v3_copy(m->cut_axis_b + 3 * k, cd->axis_b);
    hy_v3_copy(m->cut_up_a + 3 * k, cd->up_a);
    hy_v3_copy(m->cut_up_b + 3 * k, cd->up_b);
    m->cut_src[k] = cd->pos;
  }
  for (int k = 0; k < s->nnonholonomic; k++) {
    const hy_nonholonomic_def* nd = &s->nonholonomics[k];
    memcpy(m->nh_name + (size_t)k * HY_NAME_MAX, nd->name, HY_NAME_MAX);
    m->nh_type[k] = nd->type;
    m->nh_mrk[k] = hy_model_marker(m, nd->marker);
    hy_v3_copy(m->nh_axis + 3 * k, nd->axis);
    m->nh_src[k] = nd->pos;
  }
  for (int k = 0; k < s->nforce; k++) {
    const hy_force_def* fd = &s->forces[k];
    memcpy(m->frc_name + (size_t)k * HY_NAME_MAX, fd->name, HY_NAME_MAX);
    m->frc_type[k] = fd->type;
    m->frc_mrk_a[k] = hy_model_marker(m, fd->marker_a);
    m->frc_mrk_b[k] = hy_model_marker(m, fd->marker_b);
    m->frc_value[k] = fd->equilibrium ? 0.0 : fd->value;
    m->frc_equilibrium[k] = fd->equilibrium ? 1 : 0;
    m->frc_sig[k] = fd->signal[0] ? hy_model_signal(m, fd->signal) : -1;
    m->frc_cyl[k] = -1;
    m->frc_src[k] = fd->pos;
  }
}

// The couplers of s_def (the spec before hy_model_expand) into m, after fill_mech. A joint of
// several coordinates is named by the first joint of its chain ("<name>.1"), which
// hy_model_check then refuses by its kind, with the joint's own name. A coupler without an
// offset gets the one that closes it at z0 (docs/model-format.md, "couplers").
static void fill_couplers(const hy_spec* s_def, hy_model* m) {
  for (int k = 0; k < s_def->ncoupler; k++) {
    const hy_coupler_def* cd = &s_def->couplers[k];
    memcpy(m->cpl_name + (size_t)k * HY_NAME_MAX, cd->name, HY_NAME_MAX);
    for (int side = 0; side < 2; side++) {
      const char* jn = side == 0 ? cd->joint_a : cd->joint_b;
      int nz = 1;
      for (int j = 0; j < s_def->njoint; j++) {
        if (strcmp(s_def->joints[j].name, jn) == 0) nz = hy_joint_type_nz(s_def->joints[j].type);
      }
      char first[HY_NAME_MAX + 2];
      snprintf(first, sizeof first, "%s.1", jn);
      m->cpl_jnt[2 * k + side] = hy_model_joint(m, nz > 1 ? first : jn);
    }
    const double ratio = cd->ratio;
    const int ja = m->cpl_jnt[2 * k], jb = m->cpl_jnt[2 * k + 1];
    m->cpl_ratio[k] = ratio;
    m->cpl_offset[k] = cd->offset;
    // (a joint not found is hy_model_check's to report)
    if (isnan(cd->offset) && ja >= 0 && jb >= 0) {
      m->cpl_offset[k] = m->z0[m->jnt_zadr[ja]] - ratio * m->z0[m->jnt_zadr[jb]];
    }
    m->cpl_src[k] = cd->pos;
  }
}

// Fills the hydraulic arrays of m (sizes already set) and the force elements of the cylinders,
// numbered after the spec's force elements.
// Points of the oil tables of the spec's circuits and volumes (the spec keeps only the table
// law's; hy_spec_add_circuit, hy_spec_add_volume).
static int bulk_points(const hy_spec* s) {
  int n = 0;
  for (int i = 0; i < s->ncircuit; i++) n += s->circuits[i].table_n;
  for (int i = 0; i < s->nvolume; i++) n += s->volumes[i].oil.table_n;
  return n;
}

// Points of the metering-edge tables of the spec's valves.
static int edge_points(const hy_spec* s) {
  int n = 0;
  for (int i = 0; i < s->nvalve; i++) {
    for (int k = 0; k < HY_VALVE_PATHS; k++) n += s->valves[i].edge_n[k];
  }
  return n;
}

// Appends a table of n points (x, y) to the arrays xs/ys at *adr (an oil's to bulk_p/bulk_beta,
// a valve edge's to edge_U/edge_C); its first point into *tab_adr.
static void fill_table(double* xs, double* ys, int n, const double* x, const double* y, int* adr,
                       int* tab_adr) {
  *tab_adr = *adr;
  if (n > 0) {
    memcpy(xs + *adr, x, sizeof(double) * (size_t)n);
    memcpy(ys + *adr, y, sizeof(double) * (size_t)n);
  }
  *adr += n;
}

static void fill_hyd(const hy_spec* s, hy_model* m) {
  int adr = 0;  // next oil table point
  for (int i = 0; i < s->ncircuit; i++) {
    const hy_circuit_def* c = &s->circuits[i];
    memcpy(m->circ_name + (size_t)i * HY_NAME_MAX, c->name, HY_NAME_MAX);
    m->circ_B_oil[i] = c->B_oil;
    m->circ_law[i] = c->law;
    m->circ_law_k[i] = c->law_k;
    m->circ_laminar[i] = c->laminar;
    m->circ_src[i] = c->pos;
    m->circ_law_a[i] = c->law_a;
    m->circ_law_b[i] = c->law_b;
    m->circ_air[i] = c->air_fraction;
    m->circ_polytropic[i] = c->polytropic;
    m->circ_p_atm[i] = c->p_atm;
    m->circ_tab_n[i] = c->table_n;
    fill_table(m->bulk_p, m->bulk_beta, c->table_n, c->table_p, c->table_beta, &adr,
               &m->circ_tab_adr[i]);
  }
  for (int i = 0; i < s->nvolume; i++) {
    const hy_volume_def* v = &s->volumes[i];
    memcpy(m->vol_name + (size_t)i * HY_NAME_MAX, v->name, HY_NAME_MAX);
    m->vol_circ[i] = spec_circuit(s, v->circuit);
    m->vol_hose[i] = v->hose_volume;
    m->vol_B_hose[i] = v->hose_bulk_modulus;
    m->vol_p0[i] = v->p0;
    m->vol_src[i] = v->pos;
    // a volume with its own oil keeps its parameters; the others read their circuit's
    const hy_oil_def* o = &v->oil;
    m->vol_law[i] = v->own_oil ? (int)o->law : -1;
    m->vol_B_oil[i] = v->own_oil ? o->B_oil : 0;
    m->vol_law_k[i] = v->own_oil ? o->law_k : 0;
    m->vol_law_a[i] = v->own_oil ? o->law_a : 0;
    m->vol_law_b[i] = v->own_oil ? o->law_b : 0;
    m->vol_air[i] = v->own_oil ? o->air_fraction : 0;
    m->vol_polytropic[i] = v->own_oil ? o->polytropic : 0;
    m->vol_p_atm[i] = v->own_oil ? o->p_atm : 0;
    m->vol_tab_n[i] = o->table_n;  // 0 without own_oil (hy_spec_add_volume)
    fill_table(m->bulk_p, m->bulk_beta, o->table_n, o->table_p, o->table_beta, &adr,
               &m->vol_tab_adr[i]);
    m->vol_oil_fast[i] = hy_model_oil_fast(m, i);
  }
  for (int i = 0; i < s->naccumulator; i++) {
    const hy_accumulator_def* a = &s->accumulators[i];
    memcpy(m->acc_name + (size_t)i * HY_NAME_MAX, a->name, HY_NAME_MAX);
    m->acc_vol[i] = spec_node(s, a->volume);
    m->acc_p0[i] = a->precharge;
    m->acc_V0[i] = a->gas_volume;
    m->acc_n[i] = a->polytropic;
    m->acc_src[i] = a->pos;
  }
  for (int i = 0; i < s->nsource; i++) {
    const hy_source_def* p = &s->sources[i];
    memcpy(m->src_name + (size_t)i * HY_NAME_MAX, p->name, HY_NAME_MAX);
    m->src_p[i] = p->pressure;
    m->src_sig[i] = p->signal[0] ? hy_model_signal(m, p->signal) : -1;
    m->src_src[i] = p->pos;
  }
  for (int i = 0; i < s->npump; i++) {
    const hy_pump_def* p = &s->pumps[i];
    memcpy(m->pmp_name + (size_t)i * HY_NAME_MAX, p->name, HY_NAME_MAX);
    m->pmp_kind[i] = p->kind;
    m->pmp_node[2 * i] = spec_node(s, p->from);
    m->pmp_node[2 * i + 1] = spec_node(s, p->to);
    m->pmp_disp[i] = p->displacement;
    m->pmp_speed[i] = p->speed;
    m->pmp_sig[i] = p->signal[0] ? hy_model_signal(m, p->signal) : -1;
    m->pmp_leak[i] = p->leakage;
    m->pmp_p_comp[i] = p->compensator;
    m->pmp_dp_comp[i] = p->compensator_band;
    m->pmp_src[i] = p->pos;
  }
  for (int i = 0; i < s->nthrottle; i++) {
    const hy_throttle_def* t = &s->throttles[i];
    memcpy(m->orf_name + (size_t)i * HY_NAME_MAX, t->name, HY_NAME_MAX);
    m->orf_node[2 * i] = spec_node(s, t->from);
    m->orf_node[2 * i + 1] = spec_node(s, t->to);
    m->orf_cv[i] = t->cv;
    m->orf_dp_lim[i] = t->dp_lim;
    m->orf_sig[i] = t->signal[0] ? hy_model_signal(m, t->signal) : -1;
    m->orf_law[i] = t->law;
    m->orf_dp_reg[i] = t->dp_reg;
    m->orf_one_way[i] = t->one_way;
    m->orf_src[i] = t->pos;
  }
  int nspool = s->nvalve;
  int edge_adr = 0;  // next metering-edge table point
  for (int i = 0; i < s->nvalve; i++) {
    const hy_valve_def* v = &s->valves[i];
    memcpy(m->vlv_name + (size_t)i * HY_NAME_MAX, v->name, HY_NAME_MAX);
    m->vlv_node[4 * i + 0] = spec_node(s, v->P);
    m->vlv_node[4 * i + 1] = spec_node(s, v->T);
    m->vlv_node[4 * i + 2] = spec_node(s, v->A);
    m->vlv_node[4 * i + 3] = spec_node(s, v->B);
    m->vlv_cv[i] = v->cv;
    m->vlv_tau[i] = v->tau;
    m->vlv_spool[i] = (int)v->spool;
    m->vlv_fn[i] = v->natural_frequency;
    m->vlv_zeta[i] = v->damping_ratio;
    // a second-order spool's velocity follows the positions in the spool states
    m->vlv_vadr[i] = v->spool == HY_SPOOL_SECOND_ORDER ? nspool++ : -1;
    m->vlv_sat[i] = v->saturation;
    m->vlv_dead[i] = v->dead_zone;
    m->vlv_units[i] = (int)v->units;
    m->vlv_init[i] = (int)v->init;
    m->vlv_dp_lim[i] = v->dp_lim;
    m->vlv_U0[i] = v->U0;
    m->vlv_sig[i] = v->signal[0] ? hy_model_signal(m, v->signal) : -1;
    m->vlv_centre[i] = v->centre;
    m->vlv_Umax[i] = v->U_max;
    m->vlv_overlap[i] = v->overlap;
    m->vlv_leak[i] = v->leakage;
    m->vlv_cv_centre[i] = v->cv_centre;
    for (int k = 0; k < HY_VALVE_PATHS; k++) {
      const int j = HY_VALVE_PATHS * i + k;
      m->vlv_edge_n[j] = v->edge_n[k];
      m->vlv_edge_src[j] = v->edge_pos[k];
      fill_table(m->edge_U, m->edge_C, v->edge_n[k], v->edge_U[k], v->edge_C[k], &edge_adr,
                 &m->vlv_edge_adr[j]);
    }
    m->vlv_src[i] = v->pos;
  }
  for (int i = 0; i < s->npvalve; i++) {
    const hy_pressure_valve_spec* v = &s->pvalves[i];
    memcpy(m->pvl_name + (size_t)i * HY_NAME_MAX, v->name, HY_NAME_MAX);
    m->pvl_kind[i] = v->kind;
    m->pvl_node[2 * i] = spec_node(s, v->from);
    m->pvl_node[2 * i + 1] = spec_node(s, v->to);
    m->pvl_cv[i] = v->cv;
    m->pvl_p_crack[i] = v->p_crack;
    m->pvl_p_open[i] = v->p_open;
    m->pvl_dp_lim[i] = v->dp_lim;
    m->pvl_src[i] = v->pos;
  }
  for (int i = 0; i < s->ncylinder; i++) {
    const hy_cylinder_def* c = &s->cylinders[i];
    const int f = s->nforce + i;
    memcpy(m->frc_name + (size_t)f * HY_NAME_MAX, c->name, HY_NAME_MAX);
    m->frc_type[f] = HY_FORCE_CYLINDER;
    m->frc_mrk_a[f] = hy_model_marker(m, c->marker_a);
    m->frc_mrk_b[f] = hy_model_marker(m, c->marker_b);
    m->frc_value[f] = 0.0;
    m->frc_equilibrium[f] = c->init == HY_CYL_INIT_EQUILIBRIUM;
    m->frc_sig[f] = -1;
    m->frc_cyl[f] = i;
    m->frc_src[f] = c->pos;
    m->cyl_frc[i] = f;
    m->cyl_vol_a[i] = spec_node(s, c->chamber_a);
    m->cyl_vol_b[i] = spec_node(s, c->chamber_b);
    m->cyl_area_a[i] = c->area_a;
    m->cyl_area_b[i] = c->area_b;
    m->cyl_stroke[i] = c->stroke;
    m->cyl_dead[i] = c->dead_length;
    m->cyl_B[i] = c->bulk_modulus;
    m->cyl_visc[i] = c->viscous;
    m->cyl_kd[i] = c->damper_k;
    m->cyl_cd[i] = c->damper_c;
    m->cyl_ld[i] = c->damper_length;
    m->cyl_init[i] = c->init;
    m->cyl_fric[i] = c->friction;
    m->cyl_src[i] = c->pos;
  }
  // the friction states follow each other in cylinder order
  int w = 0;
  for (int i = 0; i < s->ncylinder; i++) {
    const int n = hy_friction_nstates(s->cylinders[i].friction.law);
    m->cyl_fric_w[i] = n > 0 ? w : -1;
    w += n;
  }
}

//----- derived quantities (after hy_model_check) ---------------------------------------------

// Symmetric inertia, unit joint axes, the reference rotations and their shape bits.
static void derive_joints(hy_model* m) {
  for (int i = 0; i < m->sizes.nbody; i++) {
    // symmetrize so that later products stay exactly symmetric
    double* J = m->body_inertia + 9 * i;
    double S[9];
    for (int k = 0; k < 9; k++) S[k] = 0.5 * (J[k] + J[3 * (k % 3) + k / 3]);
    memcpy(J, S, sizeof S);
    double* pa = m->jnt_paxis + 3 * i;
    double* ca = m->jnt_caxis + 3 * i;
    hy_model_unit3(pa, pa);
    hy_model_unit3(ca, ca);
    hy_rot_align(m->jnt_crot + 9 * i, ca, pa);
    int shape = 0;
    double dev = 0;
    for (int k = 0; k < 9; k++) dev = fmax(dev, fabs(m->jnt_crot[9 * i + k] - (k % 4 == 0)));
    if (dev == 0) shape |= HY_JNT_CROT_IDENTITY;
    if (ca[0] == 1 && ca[1] == 0 && ca[2] == 0) shape |= HY_JNT_AXIS_X;
    if (ca[0] == 0 && ca[1] == 1 && ca[2] == 0) shape |= HY_JNT_AXIS_Y;
    if (ca[0] == 0 && ca[1] == 0 && ca[2] == 1) shape |= HY_JNT_AXIS_Z;
    m->jnt_shape[i] = shape;
  }
}

//----- planar kinematics records --------------------------------------------------------------

// The body-fixed vector a (inertial frame, at z = 0) as h, q, w for the turns about the unit
// normal n (model.h, HY_PLANE_*), element i of each at out[i * step], out[(3 + i) * step] and
// out[(6 + i) * step] (a matrix column: step 3).
static void plane_split(double* out, int step, const double n[3], const double a[3]) {
  const double an = hy_v3_dot(a, n);
  double w[3];
  hy_v3_cross(w, n, a);
  for (int i = 0; i < 3; i++) {
    const double h = an * n[i];
    out[i * step] = h;
    out[(3 + i) * step] = a[i] - h;
    out[(6 + i) * step] = w[i];
  }
}

// body_plane, plane_xy and mrk_plane of a planar model (model.h, HY_PLANE_*) from the body
// rotations at z = 0 (rot0, indexed like the spec's bodies: order maps a compiled body to its
// spec index).
static void plane_records(hy_model* m, const double* rot0, const int* order) {
  static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double* n = m->plane_normal;
  for (int i = 0; i < m->sizes.nbody; i++) {
    double* rec = m->body_plane + HY_PLANE_SIZE * i;
    const int p = m->body_parent[i];
    const double* Ap = p < 0 ? eye : rot0 + 9 * order[p];
    const double* A = rot0 + 9 * order[i];
    double a[3];
    hy_m3_mulv(a, Ap, m->jnt_ppoint + 3 * i);
    plane_split(rec + HY_PLANE_PPOINT, 1, n, a);
    hy_m3_mulv(a, Ap, m->jnt_paxis + 3 * i);
    if (m->jnt_type[i] == HY_JOINT_REVOLUTE) {
      // the planarity test put the axis along +-n; the kinematics turn about n itself
      rec[HY_PLANE_TURN] = hy_v3_dot(a, n) < 0 ? -1.0 : 1.0;
      hy_v3_scale(rec + HY_PLANE_AXIS, n, rec[HY_PLANE_TURN]);
    } else {
      // and every prismatic axis perpendicular to n: the kinematics slide in the plane
      plane_split(rec + HY_PLANE_AXIS, 1, n, a);
      hy_v3_set(rec + HY_PLANE_AXIS, 0, 0, 0);
    }
    hy_m3_mulv(a, A, m->jnt_cpoint + 3 * i);
    plane_split(rec + HY_PLANE_CPOINT, 1, n, a);
    hy_m3_mulv(a, A, m->body_com + 3 * i);
    plane_split(rec + HY_PLANE_COM, 1, n, a);
    for (int c = 0; c < 3; c++) {
      hy_v3_set(a, A[c], A[3 + c], A[6 + c]);
      plane_split(rec + HY_PLANE_ROT + c, 3, n, a);
    }
  }
  for (int k = 0; k < m->sizes.nmrk; k++) {
    const int b = m->mrk_body[k];
    double a[3];
    hy_m3_mulv(a, b < 0 ? eye : rot0 + 9 * order[b], m->mrk_point + 3 * k);
    plane_split(m->mrk_plane + 9 * k, 1, n, a);
  }
  m->plane_xy[0] = n[0] == 0 && n[1] == 0 && fabs(n[2]) == 1;
}

//----- planarity and cut joints --------------------------------------------------------------

// Decides whether m is planar (docs/model-format.md, "Planar models"), then completes the cut
// joints: unit axes, up vectors, their equations. rot0 and axis0 receive, per spec body, its
// rotation and its joint's unit axis in the inertial frame at z = 0.
static hy_status derive_planar_cuts(const hy_spec* s, hy_model* m, hy_error* err, const int* order,
                                    double* rot0, double* axis0) {
  const hy_srcpos nowhere = {0, 0};
  // Body rotations and joint axes at z = 0 (A_j = A_parent jnt_crot_j, axis = A_parent
  // paxis_j), parents first: rotations about parallel axes keep parallel axes parallel, so the
  // test at z = 0 holds for every z.
  for (int i = 0; i < s->nbody; i++) {
    const int p = m->body_parent[i];
    double Ap[9];
    if (p < 0) {
      hy_m3_identity(Ap);
    } else {
      hy_m3_copy(Ap, rot0 + 9 * order[p]);
    }
    hy_m3_mul(rot0 + 9 * order[i], Ap, m->jnt_crot + 9 * i);
    hy_m3_mulv(axis0 + 3 * order[i], Ap, m->jnt_paxis + 3 * i);
  }

  // Planarity: n = the first revolute axis in the file (+z without one); every revolute axis
  // parallel to n, every prismatic axis perpendicular, revolute cut axes parallel, translational
  // cut axes perpendicular. The first element that breaks it is remembered for the message.
  double n[3] = {0, 0, 1};
  int n_joint = -1;
  for (int j = 0; j < s->njoint && n_joint < 0; j++) {
    if (s->joints[j].type == HY_JOINT_REVOLUTE) {
      n_joint = j;
      hy_v3_copy(n, axis0 + 3 * spec_body(s, s->joints[j].child));
    }
  }
  int is_planar = 1;
  hy_srcpos bad_pos = nowhere;
  char why[300] = "";
  const double ptol = 1e-9;
  for (int j = 0; j < s->njoint && is_planar; j++) {
    const hy_joint_def* jd = &s->joints[j];
    const double* g = axis0 + 3 * spec_body(s, jd->child);
    double c[3];
    hy_v3_cross(c, g, n);
    if (jd->type == HY_JOINT_REVOLUTE && hy_v3_norm(c) > ptol) {
      is_planar = 0;
      bad_pos = jd->pos;
      snprintf(why, sizeof why,
               "revolute joint '%s' turns about (%.6g, %.6g, %.6g) at z = 0, not parallel to the "
               "axis (%.6g, %.6g, %.6g) of joint '%s'",
               jd->name, g[0], g[1], g[2], n[0], n[1], n[2], s->joints[n_joint].name);
    } else if (jd->type == HY_JOINT_PRISMATIC && fabs(hy_v3_dot(g, n)) > ptol) {
      is_planar = 0;
      bad_pos = jd->pos;
      snprintf(why, sizeof why,
               "prismatic joint '%s' slides along (%.6g, %.6g, %.6g) at z = 0, not perpendicular "
               "to the plane normal (%.6g, %.6g, %.6g)",
               jd->name, g[0], g[1], g[2], n[0], n[1], n[2]);
    }
  }
  for (int k = 0; k < s->ncut && is_planar; k++) {
    const hy_cut_def* cd = &s->cuts[k];
    if (cd->type == HY_CUT_SPHERICAL) continue;
    for (int side = 0; side < 2; side++) {
      const int mk = spec_marker(s, side == 0 ? cd->marker_a : cd->marker_b);
      const int b = marker_body(s, mk);
      double a[3], g[3], c[3];
      hy_model_unit3(a, side == 0 ? cd->axis_a : cd->axis_b);
      if (b < 0) {
        hy_v3_copy(g, a);
      } else {
        hy_m3_mulv(g, rot0 + 9 * b, a);
      }
      hy_v3_cross(c, g, n);
      const int revolute = cd->type == HY_CUT_REVOLUTE;
      if (revolute ? hy_v3_norm(c) > ptol : fabs(hy_v3_dot(g, n)) > ptol) {
        is_planar = 0;
        bad_pos = cd->pos;
        snprintf(why, sizeof why,
                 "%s cut joint '%s': axis_%c is (%.6g, %.6g, %.6g) at z = 0, not %s the plane "
                 "normal (%.6g, %.6g, %.6g)",
                 revolute ? "revolute" : "translational", cd->name, side == 0 ? 'a' : 'b', g[0],
                 g[1], g[2], revolute ? "parallel to" : "perpendicular to", n[0], n[1], n[2]);
        break;
      }
    }
  }
  if (s->planar == HY_PLANAR_YES && !is_planar) {
    return hy_error_set_src(err, HY_ERR_MODEL, s->path, bad_pos.line, bad_pos.col,
                            "planar: true, but the model is not planar: %s", why);
  }
  const int planar = s->planar == HY_PLANAR_NO ? 0 : is_planar;

  // 3-D translational joints need both up vectors (they fix the rotation about the sliding
  // axis); elsewhere a missing one is chosen
  for (int k = 0; k < s->ncut; k++) {
    const hy_cut_def* cd = &s->cuts[k];
    if (!planar && cd->type == HY_CUT_TRANSLATIONAL && (is_zero3(cd->up_a) || is_zero3(cd->up_b))) {
      return hy_error_set_src(
          err, HY_ERR_MODEL, s->path, cd->pos.line, cd->pos.col,
          "3-D translational cut '%s' needs up_a and up_b: non-zero vectors perpendicular to "
          "axis_a and axis_b that stay parallel, so the bodies cannot turn about the sliding "
          "axis",
          cd->name);
    }
  }

  m->planar = planar;
  hy_v3_copy(m->plane_normal, n);
  any_perpendicular(m->plane_e1, n);
  hy_v3_cross(m->plane_e2, n, m->plane_e1);
  int eqadr = 0;
  for (int k = 0; k < s->ncut; k++) {
    double* aa = m->cut_axis_a + 3 * k;
    double* ab = m->cut_axis_b + 3 * k;
    hy_model_unit3(aa, aa);
    hy_model_unit3(ab, ab);
    // a given up vector loses the (tiny, checked by hy_model_check) part along its axis, so
    // that the equations a.u = 0 hold exactly in the assembled configuration
    for (int side = 0; side < 2; side++) {
      const double* a = side == 0 ? aa : ab;
      double* u = (side == 0 ? m->cut_up_a : m->cut_up_b) + 3 * k;
      if (!hy_model_unit3(u, u)) {
        any_perpendicular(u, a);
      } else {
        hy_v3_addscl(u, a, -hy_v3_dot(u, a));
        hy_v3_normalize(u);
      }
    }
    m->cut_eqadr[k] = eqadr;
    m->cut_neq[k] = cut_equations(s->cuts[k].type, planar);
    eqadr += m->cut_neq[k];
  }
  // the couplers' rows follow the cut joints'
  for (int k = 0; k < m->sizes.ncpl; k++) m->cpl_eqadr[k] = eqadr++;
  m->sizes.neq = eqadr;
  return HY_OK;
}

// Unit axes of the nonholonomic constraints. A planar model's kinematics have no velocity along
// the plane normal, so there an axis must lie in the plane: along the normal its row of B would
// vanish, and an oblique one would constrain only its in-plane part. rot0: the spec bodies'
// rotations at z = 0 (derive_planar_cuts).
static hy_status derive_nonholonomic(const hy_spec* s, hy_model* m, hy_error* err, const int* order,
                                     const double* rot0) {
  const double* n = m->plane_normal;
  for (int k = 0; k < m->sizes.nnh; k++) {
    double* a = m->nh_axis + 3 * k;
    hy_model_unit3(a, a);
    if (!m->planar) continue;
    const int b = m->mrk_body[m->nh_mrk[k]];  // a body: check_nonholonomic refuses ground
    double g[3];
    hy_m3_mulv(g, rot0 + 9 * order[b], a);
    if (fabs(hy_v3_dot(g, n)) > 1e-9) {
      const hy_nonholonomic_def* nd = &s->nonholonomics[k];
      return hy_error_set_src(err, HY_ERR_MODEL, s->path, nd->pos.line, nd->pos.col,
                              "nonholonomic constraint '%s': axis (%.6g, %.6g, %.6g) is not in "
                              "the plane of motion (normal (%.6g, %.6g, %.6g)): at z = 0 it is "
                              "(%.6g, %.6g, %.6g) in the inertial frame",
                              nd->name, a[0], a[1], a[2], n[0], n[1], n[2], g[0], g[1], g[2]);
    }
  }
  return HY_OK;
}

// The tree as defined, before hy_model_expand replaces the joints of several coordinates by
// their chains: its errors then name the joints of the file.
static hy_status check_defined_tree(const hy_spec* s, hy_error* err) {
  int multi = 0;
  for (int j = 0; j < s->njoint; j++) multi |= hy_joint_type_nz(s->joints[j].type) > 1;
  if (!multi) return HY_OK;  // the expanded spec is this one
  int* buf = hy_malloc(sizeof(int) * 3 * (size_t)s->nbody);
  if (!buf) return HY_FAIL(err, HY_ERR_NOMEM, "out of memory compiling the model");
  const hy_status st = check_tree(s, err, buf, buf + s->nbody, buf + 2 * s->nbody);
  hy_free(buf);
  return st;
}

// jnt_kind and jnt_part from the expansion (every joint its own kind without one), and the
// Cardan charts' middle angles.
static void fill_joint_kinds(const hy_expanded* x, hy_model* m, const int* order,
                             const int* joint_of) {
  int g = 0;
  for (int i = 0; i < m->sizes.nbody; i++) {
    const int j = joint_of[order[i]];
    m->jnt_kind[i] = x->kind ? x->kind[j] : (int)x->spec.joints[j].type;
    m->jnt_part[i] = x->kind ? x->part[j] : 0;
    m->jnt_gimbal[i] = -1;
  }
  // a chart's three joints carry each other's bodies: the first is the middle one's parent, the
  // last its child
  for (int i = 0; i < m->sizes.nbody; i++) {
    if (m->jnt_part[i] != hy_model_gimbal_part(m->jnt_kind[i])) continue;
    int* chain = m->gimbal_jnt + 3 * g;
    chain[0] = m->body_parent[i];
    chain[1] = i;
    chain[2] = -1;
    for (int k = 0; k < m->sizes.nbody; k++) {
      if (m->body_parent[k] == i && m->jnt_part[k] == m->jnt_part[i] + 1) chain[2] = k;
    }
    m->jnt_gimbal[chain[0]] = g++;
  }
}

hy_status hy_model_compile(const hy_spec* s_def, hy_model** out, hy_error* err) {
  if (!s_def || !out) return HY_FAIL(err, HY_ERR_ARG, "null argument");
  *out = NULL;
  if (s_def->nbody == 0) {
    return hy_error_set_src(err, HY_ERR_MODEL, s_def->path, 0, 0, "the model has no bodies");
  }
  hy_expanded x;
  HY_TRY(check_defined_tree(s_def, err));
  HY_TRY(hy_model_expand(s_def, &x, err));
  const hy_spec* s = &x.spec;
  const int nb = s->nbody;
  hy_status status = HY_OK;
  hy_model* m = NULL;
  int* order = hy_malloc(sizeof(int) * (size_t)nb);           // compiled index -> spec body index
  int* new_of = hy_malloc(sizeof(int) * (size_t)nb);          // spec body index -> compiled index
  int* joint_of = hy_malloc(sizeof(int) * (size_t)nb);        // spec body index -> spec joint index
  double* rot0 = hy_malloc(sizeof(double) * 9 * (size_t)nb);  // spec body: rotation at z = 0
  double* axis0 = hy_malloc(sizeof(double) * 3 * (size_t)nb);  // spec body: joint axis at z = 0
  if (!order || !new_of || !joint_of || !rot0 || !axis0) {
    status = HY_FAIL(err, HY_ERR_NOMEM, "out of memory compiling the model");
    goto done;
  }

  // structure: names, references, the tree, hydraulic connections
  status = check_tree(s, err, joint_of, order, new_of);
  if (status == HY_OK) status = check_references(s, err);
  if (status == HY_OK) status = check_couplers(s_def, err);
  if (status == HY_OK) status = hyd_check(s, err);
  if (status != HY_OK) goto done;

  // the model as given; neq follows from planarity, which needs the checked axes
  int nsigpt = 0;
  int nsigarg = 0;
  for (int k = 0; k < s->nsignal; k++) {
    nsigpt += s->signals[k].npoint;
    nsigarg += s->signals[k].narg;
  }
  int nfric = 0;
  for (int k = 0; k < s->ncylinder; k++) nfric += hy_friction_nstates(s->cylinders[k].friction.law);
  int ndamp = 0;
  for (int j = 0; j < s->njoint; j++) ndamp += s->joints[j].damping != 0;
  int nspool = s->nvalve;
  for (int k = 0; k < s->nvalve; k++) nspool += s->valves[k].spool == HY_SPOOL_SECOND_ORDER;
  hy_sizes sz = {.nbody = nb,
                 .nz = nb,
                 .ngimbal = x.ngimbal,
                 .ndamp = ndamp,
                 .nmrk = s->nmarker,
                 .nsig = s->nsignal,
                 .nsigpt = nsigpt,
                 .nsigarg = nsigarg,
                 .nload = s->nload,
                 .ncut = s->ncut,
                 .neq = 0,
                 .nnh = s->nnonholonomic,
                 .ncpl = s_def->ncoupler,
                 .nfrc = s->nforce + s->ncylinder,
                 .ncirc = s->ncircuit,
                 .nvol = s->nvolume,
                 .nacc = s->naccumulator,
                 .nbulkpt = bulk_points(s),
                 .nsrc = s->nsource,
                 .npump = s->npump,
                 .norf = s->nthrottle,
                 .nvlv = s->nvalve,
                 .nspool = nspool,
                 .nedgept = edge_points(s),
                 .npvl = s->npvalve,
                 .ncyl = s->ncylinder,
                 .nfric = nfric};
  status = hy_model_alloc(&sz, &m);
  if (status != HY_OK) {
    HY_FAIL(err, status, "out of memory compiling the model");
    goto done;
  }
  snprintf(m->name, sizeof m->name, "%s", s->name);
  snprintf(m->path, sizeof m->path, "%s", s->path);
  m->opt = s->opt;
  m->opt0[0] = m->opt;
  memcpy(m->opt_src, s->opt_src, sizeof s->opt_src);
  fill_mech(s, m, order, joint_of, new_of);
  fill_joint_kinds(&x, m, order, joint_of);
  fill_couplers(s_def, m);
  fill_hyd(s, m);

  // values, before anything is derived from them
  status = hy_model_check(m, err);
  if (status != HY_OK) goto done;

  derive_joints(m);
  status = derive_planar_cuts(s, m, err, order, rot0, axis0);
  if (status == HY_OK) status = derive_nonholonomic(s, m, err, order, rot0);
  if (status != HY_OK) goto done;
  if (m->planar) plane_records(m, rot0, order);
  // the derived arrays obey the same rules (unit axes, a symmetric inertia)
  status = hy_model_check(m, err);
  if (status != HY_OK) goto done;
  *out = m;
  m = NULL;

done:
  hy_model_free(m);
  hy_model_expanded_free(&x);
  hy_free(order);
  hy_free(new_of);
  hy_free(joint_of);
  hy_free(rot0);
  hy_free(axis0);
  return status;
}
