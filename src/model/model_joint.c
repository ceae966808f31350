// Joints of several coordinates and point masses: the spec as the compiler takes it. Each point
// mass is merged into its body by the parallel-axis theorem, and each universal, cylindrical,
// spherical or free joint is replaced by a chain of revolute and prismatic joints through
// massless bodies (docs/mechanics.md, "Joints of several coordinates"), so that every
// formulation runs it as it runs any tree.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "model/model.h"

//----- joint types ---------------------------------------------------------------------------

int hy_joint_type_nz(hy_joint_type t) {
  switch (t) {
    case HY_JOINT_REVOLUTE:
    case HY_JOINT_PRISMATIC:
      return 1;
    case HY_JOINT_UNIVERSAL:
    case HY_JOINT_CYLINDRICAL:
      return 2;
    case HY_JOINT_SPHERICAL:
      return 3;
    case HY_JOINT_FREE:
      return 6;
    default:
      return 0;
  }
}

int hy_joint_coord_type(hy_joint_type t, int k) {
  if (k < 0 || k >= hy_joint_type_nz(t)) return -1;
  switch (t) {
    case HY_JOINT_PRISMATIC:
      return HY_JOINT_PRISMATIC;
    case HY_JOINT_CYLINDRICAL:
      return k == 0 ? HY_JOINT_PRISMATIC : HY_JOINT_REVOLUTE;
    case HY_JOINT_FREE:
      return k < 3 ? HY_JOINT_PRISMATIC : HY_JOINT_REVOLUTE;
    default:
      return HY_JOINT_REVOLUTE;
  }
}

int hy_model_gimbal_part(int kind) {
  return kind == HY_JOINT_SPHERICAL ? 1 : kind == HY_JOINT_FREE ? 4 : -1;
}

int hy_model_joint_chart(const hy_model* m, int j, int* k) {
  for (int g = 0; g < m->sizes.ngimbal; g++) {
    for (int i = 0; i < 3; i++) {
      if (m->gimbal_jnt[3 * g + i] != j) continue;
      *k = i;
      return g;
    }
  }
  return -1;
}

// The name of the joint whose chain has a joint called `name` ("<name>.<k>"): up to the last
// dot.
static const char* chain_owner(const char* name, char buf[HY_NAME_MAX]) {
  int len = 0;
  while (len < HY_NAME_MAX - 1 && name[len]) len++;
  while (len > 0 && name[len - 1] != '.') len--;
  snprintf(buf, HY_NAME_MAX, "%.*s", len > 0 ? len - 1 : 0, name);
  return buf;
}

const char* hy_model_joint_def_name(const hy_model* m, int j, char buf[HY_NAME_MAX]) {
  const char* name = m->jnt_name + (size_t)j * HY_NAME_MAX;
  if (hy_joint_type_nz((hy_joint_type)m->jnt_kind[j]) > 1) return chain_owner(name, buf);
  snprintf(buf, HY_NAME_MAX, "%.*s", HY_NAME_MAX - 1, name);
  return buf;
}

//----- the chains ----------------------------------------------------------------------------

// Where a joint of a chain takes its axis from (the same in its parent's frame and its own, but
// for AXIS, which turns child_axis onto axis and so carries the definition's rotation at z = 0:
// every body after it in the chain is turned like the child).
typedef enum axis_source { AXIS, CHILD_AXIS, AXIS2, AXIS3, UNIT_X, UNIT_Y, UNIT_Z } axis_source;

typedef struct chain_part {
  hy_joint_type type;  // revolute or prismatic
  axis_source axis;
} chain_part;

// The chain of each joint type of several coordinates, in the order of its coordinates
// (docs/model-format.md, "joints"). AXIS3 = axis2 x child_axis completes the Cardan sequence:
// with the defaults (z, y) it is x, the sequence yaw, pitch, roll.
static const chain_part* chain_of(hy_joint_type t) {
  static const chain_part universal[] = {{HY_JOINT_REVOLUTE, AXIS}, {HY_JOINT_REVOLUTE, AXIS2}};
  static const chain_part cylindrical[] = {{HY_JOINT_PRISMATIC, AXIS},
                                           {HY_JOINT_REVOLUTE, CHILD_AXIS}};
  static const chain_part spherical[] = {
      {HY_JOINT_REVOLUTE, AXIS}, {HY_JOINT_REVOLUTE, AXIS2}, {HY_JOINT_REVOLUTE, AXIS3}};
  static const chain_part free[] = {{HY_JOINT_PRISMATIC, UNIT_X}, {HY_JOINT_PRISMATIC, UNIT_Y},
                                    {HY_JOINT_PRISMATIC, UNIT_Z}, {HY_JOINT_REVOLUTE, AXIS},
                                    {HY_JOINT_REVOLUTE, AXIS2},   {HY_JOINT_REVOLUTE, AXIS3}};
  switch (t) {
    case HY_JOINT_UNIVERSAL:
      return universal;
    case HY_JOINT_CYLINDRICAL:
      return cylindrical;
    case HY_JOINT_SPHERICAL:
      return spherical;
    case HY_JOINT_FREE:
      return free;
    default:
      return NULL;
  }
}

// "<name>.<k>", k = 1 .. HY_JOINT_NZ_MAX (one digit), the name of a chain's joint or body;
// hy_model_expand has made sure it fits.
static void part_name(char out[HY_NAME_MAX], const char* name, int k) {
  const size_t len = strlen(name);
  memcpy(out, name, len);
  out[len] = '.';
  out[len + 1] = (char)('0' + k);
  out[len + 2] = '\0';
}

// Part k of the chain of joint jd (hy_model_check_joint_def has passed it): its joint, and the
// massless body it carries unless it is the last.
static void chain_joint(const hy_joint_def* jd, int k, hy_joint_def* out, hy_body_def* body) {
  const int n = hy_joint_type_nz(jd->type);
  const chain_part* part = &chain_of(jd->type)[k];
  hy_joint_def j = hy_joint_def_default();
  part_name(j.name, jd->name, k + 1);
  if (k == 0) {
    memcpy(j.parent, jd->parent, HY_NAME_MAX);
    hy_v3_copy(j.parent_point, jd->parent_point);
  } else {
    part_name(j.parent, jd->name, k);
  }
  if (k == n - 1) {
    memcpy(j.child, jd->child, HY_NAME_MAX);
    hy_v3_copy(j.child_point, jd->child_point);
  } else {
    part_name(j.child, jd->name, k + 1);
    *body = hy_body_def_default();
    memcpy(body->name, j.child, HY_NAME_MAX);
    body->pos = jd->pos;
  }
  j.type = part->type;
  double a[3] = {0, 0, 0};
  switch (part->axis) {
    case AXIS:
      hy_v3_copy(j.axis, jd->axis);
      hy_v3_copy(j.child_axis, jd->child_axis);
      break;
    case CHILD_AXIS:
      hy_v3_copy(a, jd->child_axis);
      break;
    case AXIS2:
      hy_v3_copy(a, jd->axis2);
      break;
    case AXIS3: {
      double b[3], c[3];
      hy_model_unit3(b, jd->axis2);
      hy_model_unit3(c, jd->child_axis);
      hy_v3_cross(a, b, c);
      break;
    }
    case UNIT_X:
      a[0] = 1;
      break;
    case UNIT_Y:
      a[1] = 1;
      break;
    case UNIT_Z:
      a[2] = 1;
      break;
  }
  if (part->axis != AXIS) {
    hy_v3_copy(j.axis, a);
    hy_v3_copy(j.child_axis, a);
  }
  j.z0 = jd->z0s[k];
  j.zd0 = jd->zd0s[k];
  j.damping = jd->dampings[k];
  j.independent = jd->independent;
  j.pos = jd->pos;
  *out = j;
}

//----- point masses --------------------------------------------------------------------------

// (d.d) I - d d^T: the inertia of a unit point mass at d about the origin.
static void point_inertia(double S[9], const double d[3]) {
  const double dd = hy_v3_dot(d, d);
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) S[3 * r + c] = (r == c ? dd : 0.0) - d[r] * d[c];
  }
}

// Body b with the point masses p[0..n) on it (docs/equations.md, "Not from the seeds"): the mass
// M = m_b + sum m_i, the centre of mass c = (m_b c_b + sum m_i p_i) / M and, by the
// parallel-axis theorem, J_c = J_b + m_b S(c_b - c) + sum m_i S(p_i - c), S as point_inertia.
// Massless points leave a massless body as it is.
static void merge_point_masses(hy_body_def* b, const hy_point_mass_def* const* p, int n) {
  double mass = b->mass, first[3];
  hy_v3_scale(first, b->com, b->mass);
  for (int i = 0; i < n; i++) {
    mass += p[i]->mass;
    hy_v3_addscl(first, p[i]->point, p[i]->mass);
  }
  if (!(mass > 0)) return;
  double c[3], d[3], S[9];
  hy_v3_scale(c, first, 1.0 / mass);
  hy_v3_sub(d, b->com, c);
  point_inertia(S, d);
  for (int k = 0; k < 9; k++) b->inertia[k] += b->mass * S[k];
  for (int i = 0; i < n; i++) {
    hy_v3_sub(d, p[i]->point, c);
    point_inertia(S, d);
    for (int k = 0; k < 9; k++) b->inertia[k] += p[i]->mass * S[k];
  }
  b->mass = mass;
  hy_v3_copy(b->com, c);
}

// The point masses of body b merged into its copy *out, after the checks of the body as given
// and of each point mass.
static hy_status merged_body(const hy_spec* s, const hy_body_def* b, hy_body_def* out,
                             const hy_point_mass_def** on, hy_error* err) {
  *out = *b;
  int n = 0;
  for (int k = 0; k < s->npmass; k++) {
    if (strcmp(s->pmasses[k].body, b->name) == 0) on[n++] = &s->pmasses[k];
  }
  if (n == 0) return HY_OK;
  HY_TRY(hy_model_check_body_def(s->path, b, err));
  for (int i = 0; i < n; i++) HY_TRY(hy_model_check_point_mass(s->path, on[i], i, err));
  merge_point_masses(out, on, n);
  return HY_OK;
}

//----- the expanded spec ---------------------------------------------------------------------

void hy_model_expanded_free(hy_expanded* x) {
  if (!x) return;
  hy_free(x->bodies_);
  hy_free(x->joints_);
  hy_free(x->kind);
  hy_free(x->on_);
  memset(x, 0, sizeof *x);
}

// Index of the joint whose child is body `name` (check_tree has made it unique), or -1.
static int joint_of_child(const hy_spec* s, const char* name) {
  for (int j = 0; j < s->njoint; j++) {
    if (strcmp(s->joints[j].child, name) == 0) return j;
  }
  return -1;
}

// A name a chain takes that the model uses already: the first chain element whose name another
// body (or joint) has.
static hy_status check_chain_names(const hy_spec* x, const int* kind, const int* part,
                                   hy_error* err) {
  for (int j = 0; j < x->njoint; j++) {
    if (hy_joint_type_nz((hy_joint_type)kind[j]) < 2) continue;
    const hy_joint_def* jd = &x->joints[j];
    for (int q = 0; q < x->njoint; q++) {
      if (q != j && strcmp(x->joints[q].name, jd->name) == 0) {
        char owner[HY_NAME_MAX];
        return hy_error_set_src(err, HY_ERR_MODEL, x->path, jd->pos.line, jd->pos.col,
                                "%s joint '%s' compiles its coordinate %d into a joint named "
                                "'%s', but the model has another joint of that name",
                                hy_joint_type_name((hy_joint_type)kind[j]),
                                chain_owner(jd->name, owner), part[j] + 1, jd->name);
      }
    }
  }
  for (int i = 0; i < x->nbody; i++) {
    const hy_body_def* b = &x->bodies[i];
    const int j = joint_of_child(x, b->name);
    if (j < 0 || hy_joint_type_nz((hy_joint_type)kind[j]) < 2 ||
        strcmp(x->joints[j].name, b->name) != 0) {
      continue;  // not a chain's body
    }
    for (int q = 0; q < x->nbody; q++) {
      if (q != i && strcmp(x->bodies[q].name, b->name) == 0) {
        char owner[HY_NAME_MAX];
        return hy_error_set_src(err, HY_ERR_MODEL, x->path, b->pos.line, b->pos.col,
                                "%s joint '%s' makes a massless body '%s' for its chain, but the "
                                "model has another body of that name",
                                hy_joint_type_name((hy_joint_type)kind[j]),
                                chain_owner(b->name, owner), b->name);
      }
    }
  }
  return HY_OK;
}

hy_status hy_model_expand(const hy_spec* s, hy_expanded* x, hy_error* err) {
  memset(x, 0, sizeof *x);
  x->spec = *s;
  int extra = 0;
  for (int j = 0; j < s->njoint; j++) {
    const hy_joint_def* jd = &s->joints[j];
    HY_TRY(hy_model_check_joint_def(s->path, jd, err));
    const int n = hy_joint_type_nz(jd->type);
    if (n < 2) continue;
    if (strlen(jd->name) + 2 >= HY_NAME_MAX) {
      return hy_error_set_src(err, HY_ERR_MODEL, s->path, jd->pos.line, jd->pos.col,
                              "%s joint '%s': the name is too long to name its coordinates "
                              "'%s.1' to '%s.%d' (at most %d bytes each)",
                              hy_joint_type_name(jd->type), jd->name, jd->name, jd->name, n,
                              HY_NAME_MAX - 1);
    }
    if (s->planar == HY_PLANAR_YES) {
      return hy_error_set_src(err, HY_ERR_MODEL, s->path, jd->pos.line, jd->pos.col,
                              "planar: true, but %s joint '%s' moves the child out of any plane "
                              "(a planar model has revolute and prismatic joints only)",
                              hy_joint_type_name(jd->type), jd->name);
    }
    extra += n - 1;
    if (hy_model_gimbal_part(jd->type) >= 0) x->ngimbal++;
  }
  for (int k = 0; k < s->npmass; k++) {
    const hy_point_mass_def* p = &s->pmasses[k];
    int found = 0;
    for (int i = 0; i < s->nbody && !found; i++) found = strcmp(s->bodies[i].name, p->body) == 0;
    if (!found) {
      return hy_error_set_src(err, HY_ERR_MODEL, s->path, p->pos.line, p->pos.col,
                              "point mass %d: body '%s' does not exist", k, p->body);
    }
  }
  if (extra == 0 && s->npmass == 0) return HY_OK;  // the spec as it is

  const size_t nb = (size_t)(s->nbody + extra), nj = (size_t)(s->njoint + extra);
  x->bodies_ = hy_malloc(sizeof(hy_body_def) * nb);
  x->joints_ = hy_malloc(sizeof(hy_joint_def) * nj);
  x->kind = hy_malloc(sizeof(int) * 2 * nj);
  x->on_ = hy_malloc(sizeof(hy_point_mass_def*) * (size_t)(s->npmass + 1));
  if (!x->bodies_ || !x->joints_ || !x->kind || !x->on_) {
    hy_model_expanded_free(x);
    return HY_FAIL(err, HY_ERR_NOMEM, "out of memory compiling the model");
  }
  x->part = x->kind + nj;

  // the joints in their order, each chain in place of its joint
  int nx = 0;
  hy_body_def unused;
  for (int j = 0; j < s->njoint; j++) {
    const hy_joint_def* jd = &s->joints[j];
    const int n = hy_joint_type_nz(jd->type);
    for (int k = 0; k < n; k++, nx++) {
      if (n == 1) {
        x->joints_[nx] = *jd;
      } else {
        chain_joint(jd, k, &x->joints_[nx], &unused);
      }
      x->kind[nx] = jd->type;
      x->part[nx] = k;
    }
  }
  // the bodies in their order, a chain's massless ones just before its child, so that the
  // compiler's ordering (parents first, each pass in this order) numbers a chain's bodies and
  // coordinates one after the other
  int mb = 0;
  hy_status st = HY_OK;
  for (int i = 0; i < s->nbody && st == HY_OK; i++) {
    const hy_body_def* b = &s->bodies[i];
    const int j = joint_of_child(s, b->name);
    const int n = j < 0 ? 1 : hy_joint_type_nz(s->joints[j].type);
    hy_joint_def scratch;
    for (int k = 0; k + 1 < n; k++) chain_joint(&s->joints[j], k, &scratch, &x->bodies_[mb++]);
    st = merged_body(s, b, &x->bodies_[mb++], x->on_, err);
  }
  if (st == HY_OK) {
    x->spec.bodies = x->bodies_;
    x->spec.nbody = mb;
    x->spec.joints = x->joints_;
    x->spec.njoint = nx;
    st = check_chain_names(&x->spec, x->kind, x->part, err);
  }
  if (st != HY_OK) hy_model_expanded_free(x);
  return st;
}
