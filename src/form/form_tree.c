// Tree formulation: the open-tree equations of motion M'(z) zdd = Q'(z, zd, t), seed
// 000_c866e3283107e8a4.txt Eq. 12, as an ODE for the explicit integrators and as a residual for
// the trapezoidal rule (how a model with hydraulics and no loops runs, monolithic with its
// circuits). Models with cut joints need a closed-loop formulation (hy_form_choose refuses them).
#include "core/core.h"
#include "form/form_common.h"

static size_t tree_size(const hy_model* m) {
  (void)m;
  return 0;
}

static void tree_bind(hy_form* f, unsigned char* mem) {
  (void)mem;
  f->self = NULL;
  f->nmech = f->m->sizes.nz;
  f->coord = NULL;
}

static size_t tree_scratch(const hy_model* m) {
  (void)m;
  return 0;
}

static hy_status tree_start(hy_form* f) {
  (void)f;
  return HY_OK;
}

static hy_status tree_accelerations(hy_form* f) {
  return hy_mech_accelerations(f->m, f->d, f->mech);
}

static void tree_begin(hy_form* f) { (void)f; }

static hy_status tree_residual(hy_form* f, const double* dx, double* r) {
  (void)dx;
  const hy_model* m = f->m;
  hy_data* d = f->d;
  hy_mech_kinematics_pos(m, d, f->mech);
  hy_form_evaluate_vel(m, d, f->mech, f->skip_derivatives ? NULL : f->hyd, 0);
  HY_SIZED(m->sizes.nz, hy_form_tree_rows_n, d, r);
  return HY_OK;
}

static int tree_tangent(hy_form* f, double* Am, double* Js, double* Jr) {
  (void)Jr;
  const hy_model* m = f->m;
  hy_form_cylinder_jacobians(f);
  hy_form_cylinder_matrix(f, Am);
  HY_COPY(m->sizes.ncyl * m->sizes.nz, Js, f->jac_s);
  return 0;
}

static void tree_iterated(hy_form* f) { (void)f; }

static hy_status tree_accept(hy_form* f, const double* dx) {
  const hy_model* m = f->m;
  hy_data* d = f->d;
  // the positions of the last evaluation when the last correction was negligible
  // (docs/formulations.md, "End of a step"); the accelerations are the trapezoidal ones
  if (!hy_form_keep_positions(f, dx)) hy_mech_kinematics_pos(m, d, f->mech);
  hy_mech_kinematics_vel(m, d, f->mech);
  hy_form_outputs(f);
  return HY_OK;
}

static void tree_abort(hy_form* f) { (void)f; }

static void tree_retry(hy_form* f) { (void)f; }

static int tree_hist_size(const hy_model* m) {
  (void)m;
  return 0;
}

static void tree_hist_get(const hy_form* f, double* buf) {
  (void)f;
  (void)buf;
}

// (no history of its own)
static int tree_hist_ok(const hy_model* m, const double* buf) {
  (void)m;
  (void)buf;
  return 1;
}

static void tree_hist_set(hy_form* f, const double* buf) {
  (void)f;
  (void)buf;
}

const hy_form_ops hy_form_tree_ops = {
    .kind = HY_FORM_TREE,
    .name = "tree",
    .has_ode = 1,
    .size = tree_size,
    .bind = tree_bind,
    .scratch = tree_scratch,
    .start = tree_start,
    .accelerations = tree_accelerations,
    .begin = tree_begin,
    .residual = tree_residual,
    .tangent = tree_tangent,
    .iterated = tree_iterated,
    .accept = tree_accept,
    .abort = tree_abort,
    .retry = tree_retry,
    .hist_size = tree_hist_size,
    .hist_get = tree_hist_get,
    .hist_set = tree_hist_set,
    .hist_ok = tree_hist_ok,
};
