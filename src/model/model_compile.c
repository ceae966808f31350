// Compiler from the editable spec to the flat model: name resolution, tree ordering, validation.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
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
#define HY_POINT_(type, name, count)           \
  m->name = (type*)(void*)(buf + off);         \
  off += round8(sizeof(type) * (size_t)(count));
  HY_MODEL_ARRAYS(HY_POINT_)
#undef HY_POINT_
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

double hy_signal_eval(const hy_model* m, int sig, double t) {
  const int n = m->sig_npoint[sig];
  const double* ts = m->sig_t + m->sig_adr[sig];
  const double* vs = m->sig_value + m->sig_adr[sig];
  if (t <= ts[0]) return vs[0];
  if (t >= ts[n - 1]) return vs[n - 1];
  // binary search for the interval [ts[lo], ts[lo+1]) holding t
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (ts[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  if (m->sig_interp[sig] == HY_INTERP_STEP) return vs[lo];
  double w = (t - ts[lo]) / (ts[lo + 1] - ts[lo]);
  return vs[lo] + w * (vs[lo + 1] - vs[lo]);
}

//----- compilation ---------------------------------------------------------------------------

static hy_status fail_at(hy_error* err, const hy_spec* s, hy_srcpos pos, hy_status code,
                         const char* msg) {
  return hy_error_set_src(err, code, s->path, pos.line, pos.col, "%s", msg);
}

#define FAILF(pos, ...)                                               \
  do {                                                                \
    char msg_[400];                                                   \
    snprintf(msg_, sizeof msg_, __VA_ARGS__);                         \
    status = fail_at(err, s, (pos), HY_ERR_MODEL, msg_);              \
    goto done;                                                        \
  } while (0)

static int spec_body(const hy_spec* s, const char* name) {
  for (int i = 0; i < s->nbody; i++) {
    if (strcmp(s->bodies[i].name, name) == 0) return i;
  }
  return -1;
}

static int finite3(const double v[3]) {
  return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

// A physical inertia tensor is symmetric with non-negative principal moments that satisfy the
// triangle inequality; checked here through the diagonal, symmetry and positive
// semi-definiteness of the leading minors (with a tolerance for rounding in the file).
static int inertia_ok(const double J[9]) {
  double scale = fabs(J[0]) + fabs(J[4]) + fabs(J[8]);
  double tol = 1e-9 * (scale > 0 ? scale : 1.0);
  for (int i = 0; i < 9; i++) {
    if (!isfinite(J[i])) return 0;
  }
  if (fabs(J[1] - J[3]) > tol || fabs(J[2] - J[6]) > tol || fabs(J[5] - J[7]) > tol) return 0;
  if (J[0] < -tol || J[4] < -tol || J[8] < -tol) return 0;
  if (J[0] * J[4] - J[1] * J[3] < -tol * scale) return 0;
  if (hy_m3_det(J) < -tol * scale * scale) return 0;
  return 1;
}

hy_status hy_model_compile(const hy_spec* s, hy_model** out, hy_error* err) {
  if (!s || !out) return HY_FAIL(err, HY_ERR_ARG, "null argument");
  hy_status status = HY_OK;
  hy_model* m = NULL;
  int* order = NULL;     // compiled index -> spec body index
  int* new_of = NULL;    // spec body index -> compiled index
  int* joint_of = NULL;  // spec body index -> spec joint index
  const int nb = s->nbody;
  const hy_srcpos nowhere = {0, 0};

  if (nb == 0) FAILF(nowhere, "the model has no bodies");
  order = hy_malloc(sizeof(int) * (size_t)nb);
  new_of = hy_malloc(sizeof(int) * (size_t)nb);
  joint_of = hy_malloc(sizeof(int) * (size_t)nb);
  if (!order || !new_of || !joint_of) {
    status = HY_FAIL(err, HY_ERR_NOMEM, "out of memory compiling the model");
    goto done;
  }

  // bodies: names and physical data
  for (int i = 0; i < nb; i++) {
    const hy_body_def* b = &s->bodies[i];
    if (b->name[0] == 0) FAILF(b->pos, "body %d has no name", i);
    if (strcmp(b->name, "ground") == 0) FAILF(b->pos, "'ground' is reserved for the inertial frame");
    if (spec_body(s, b->name) != i) FAILF(b->pos, "duplicate body name '%s'", b->name);
    if (!(b->mass > 0) || !isfinite(b->mass)) {
      FAILF(b->pos, "body '%s': mass must be a positive number (kg), got %g", b->name, b->mass);
    }
    if (!finite3(b->com)) FAILF(b->pos, "body '%s': centre of mass is not finite", b->name);
    if (!inertia_ok(b->inertia)) {
      FAILF(b->pos,
            "body '%s': inertia must be a symmetric positive semi-definite tensor (kg m^2)",
            b->name);
    }
    joint_of[i] = -1;
  }

  // joints: each attaches a child body to a parent body or ground
  for (int j = 0; j < s->njoint; j++) {
    const hy_joint_def* jd = &s->joints[j];
    if (jd->name[0] == 0) FAILF(jd->pos, "joint %d has no name", j);
    for (int k = 0; k < j; k++) {
      if (strcmp(s->joints[k].name, jd->name) == 0) {
        FAILF(jd->pos, "duplicate joint name '%s'", jd->name);
      }
    }
    if (jd->type != HY_JOINT_REVOLUTE && jd->type != HY_JOINT_PRISMATIC) {
      FAILF(jd->pos, "joint '%s': unknown type %d", jd->name, (int)jd->type);
    }
    int c = spec_body(s, jd->child);
    if (c < 0) FAILF(jd->pos, "joint '%s': child body '%s' does not exist", jd->name, jd->child);
    if (strcmp(jd->parent, "ground") != 0 && spec_body(s, jd->parent) < 0) {
      FAILF(jd->pos, "joint '%s': parent body '%s' does not exist", jd->name, jd->parent);
    }
    if (strcmp(jd->parent, jd->child) == 0) {
      FAILF(jd->pos, "joint '%s': a body cannot be its own parent", jd->name);
    }
    if (joint_of[c] >= 0) {
      FAILF(jd->pos, "body '%s' is already the child of joint '%s' (a tree gives each body one "
            "parent joint; closed loops need cut joints)", jd->child,
            s->joints[joint_of[c]].name);
    }
    if (!finite3(jd->parent_point) || !finite3(jd->child_point)) {
      FAILF(jd->pos, "joint '%s': joint points must be finite", jd->name);
    }
    if (!finite3(jd->axis) || hy_v3_norm(jd->axis) < 1e-12 || !finite3(jd->child_axis) ||
        hy_v3_norm(jd->child_axis) < 1e-12) {
      FAILF(jd->pos, "joint '%s': axis must be a non-zero vector", jd->name);
    }
    if (!isfinite(jd->z0) || !isfinite(jd->zd0)) {
      FAILF(jd->pos, "joint '%s': initial values must be finite", jd->name);
    }
    joint_of[c] = j;
  }
  for (int i = 0; i < nb; i++) {
    if (joint_of[i] < 0) {
      FAILF(s->bodies[i].pos, "body '%s' is not attached: no joint has it as child",
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
  if (placed < nb) {
    for (int i = 0; i < nb; i++) {
      if (new_of[i] < 0) {
        const hy_joint_def* jd = &s->joints[joint_of[i]];
        FAILF(jd->pos, "joint '%s' closes a cycle of joints not connected to ground (a tree "
              "must hang from ground)", jd->name);
      }
    }
  }

  // markers, signals, loads
  for (int k = 0; k < s->nmarker; k++) {
    const hy_marker_def* md = &s->markers[k];
    if (md->name[0] == 0) FAILF(md->pos, "marker %d has no name", k);
    for (int q = 0; q < k; q++) {
      if (strcmp(s->markers[q].name, md->name) == 0) {
        FAILF(md->pos, "duplicate marker name '%s'", md->name);
      }
    }
    if (strcmp(md->body, "ground") != 0 && spec_body(s, md->body) < 0) {
      FAILF(md->pos, "marker '%s': body '%s' does not exist", md->name, md->body);
    }
    if (!finite3(md->point)) FAILF(md->pos, "marker '%s': point must be finite", md->name);
  }
  int nsigpt = 0;
  for (int k = 0; k < s->nsignal; k++) {
    const hy_signal_def* sd = &s->signals[k];
    if (sd->name[0] == 0) FAILF(sd->pos, "signal %d has no name", k);
    for (int q = 0; q < k; q++) {
      if (strcmp(s->signals[q].name, sd->name) == 0) {
        FAILF(sd->pos, "duplicate signal name '%s'", sd->name);
      }
    }
    if (sd->npoint < 1) FAILF(sd->pos, "signal '%s' has no points", sd->name);
    for (int q = 0; q < sd->npoint; q++) {
      if (!isfinite(sd->t[q]) || !isfinite(sd->value[q])) {
        FAILF(sd->pos, "signal '%s': point %d is not finite", sd->name, q);
      }
      if (q > 0 && !(sd->t[q] > sd->t[q - 1])) {
        FAILF(sd->pos, "signal '%s': times must increase strictly (point %d at t = %g)",
              sd->name, q, sd->t[q]);
      }
    }
    nsigpt += sd->npoint;
  }
  for (int k = 0; k < s->nload; k++) {
    const hy_load_def* ld = &s->loads[k];
    int found = 0;
    for (int q = 0; q < s->nmarker; q++) found |= strcmp(s->markers[q].name, ld->marker) == 0;
    if (!found) FAILF(ld->pos, "load '%s': marker '%s' does not exist", ld->name, ld->marker);
    if (ld->signal[0]) {
      found = 0;
      for (int q = 0; q < s->nsignal; q++) found |= strcmp(s->signals[q].name, ld->signal) == 0;
      if (!found) FAILF(ld->pos, "load '%s': signal '%s' does not exist", ld->name, ld->signal);
    }
    if (!finite3(ld->vector)) FAILF(ld->pos, "load '%s': vector must be finite", ld->name);
    if (ld->type != HY_LOAD_FORCE && ld->type != HY_LOAD_TORQUE) {
      FAILF(ld->pos, "load '%s': unknown type %d", ld->name, (int)ld->type);
    }
  }
  if (!(s->opt.dt > 0) || !(s->opt.t_end > 0) || !finite3(s->opt.gravity)) {
    FAILF(nowhere, "solver: dt and t_end must be positive and gravity finite");
  }

  // build the flat model
  hy_sizes sz = {.nbody = nb, .nz = nb, .nmrk = s->nmarker, .nsig = s->nsignal,
                 .nsigpt = nsigpt, .nload = s->nload};
  status = hy_model_alloc(&sz, &m);
  if (status != HY_OK) {
    HY_FAIL(err, status, "out of memory compiling the model");
    goto done;
  }
  snprintf(m->name, sizeof m->name, "%s", s->name);
  snprintf(m->path, sizeof m->path, "%s", s->path);
  m->opt = s->opt;
  for (int i = 0; i < nb; i++) {
    const hy_body_def* b = &s->bodies[order[i]];
    const hy_joint_def* jd = &s->joints[joint_of[order[i]]];
    memcpy(m->body_name + (size_t)i * HY_NAME_MAX, b->name, HY_NAME_MAX);
    memcpy(m->jnt_name + (size_t)i * HY_NAME_MAX, jd->name, HY_NAME_MAX);
    int p = strcmp(jd->parent, "ground") == 0 ? -1 : new_of[spec_body(s, jd->parent)];
    m->body_parent[i] = p;
    m->body_mass[i] = b->mass;
    hy_v3_copy(m->body_com + 3 * i, b->com);
    // symmetrize so that later products stay exactly symmetric
    double* J = m->body_inertia + 9 * i;
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) J[3 * r + c] = 0.5 * (b->inertia[3 * r + c] + b->inertia[3 * c + r]);
    }
    m->jnt_type[i] = jd->type;
    m->jnt_zadr[i] = i;
    hy_v3_copy(m->jnt_ppoint + 3 * i, jd->parent_point);
    hy_v3_copy(m->jnt_cpoint + 3 * i, jd->child_point);
    double* pa = m->jnt_paxis + 3 * i;
    double* ca = m->jnt_caxis + 3 * i;
    hy_v3_copy(pa, jd->axis);
    hy_v3_copy(ca, jd->child_axis);
    hy_v3_normalize(pa);
    hy_v3_normalize(ca);
    hy_rot_align(m->jnt_crot + 9 * i, ca, pa);
    m->z0[i] = jd->z0;
    m->zd0[i] = jd->zd0;
  }
  for (int k = 0; k < s->nmarker; k++) {
    const hy_marker_def* md = &s->markers[k];
    memcpy(m->mrk_name + (size_t)k * HY_NAME_MAX, md->name, HY_NAME_MAX);
    m->mrk_body[k] = strcmp(md->body, "ground") == 0 ? -1 : new_of[spec_body(s, md->body)];
    hy_v3_copy(m->mrk_point + 3 * k, md->point);
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
    adr += sd->npoint;
  }
  for (int k = 0; k < s->nload; k++) {
    const hy_load_def* ld = &s->loads[k];
    memcpy(m->load_name + (size_t)k * HY_NAME_MAX, ld->name, HY_NAME_MAX);
    m->load_type[k] = ld->type;
    m->load_mrk[k] = hy_model_marker(m, ld->marker);
    m->load_sig[k] = ld->signal[0] ? hy_model_signal(m, ld->signal) : -1;
    hy_v3_copy(m->load_vector + 3 * k, ld->vector);
  }
  *out = m;
  m = NULL;

done:
  hy_model_free(m);
  hy_free(order);
  hy_free(new_of);
  hy_free(joint_of);
  return status;
}
