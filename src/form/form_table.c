// The choice of formulation and integrator: the one place that reads opt.formulation and
// opt.integrator. Everything else works through the table it returns.
#include <stdio.h>

#include "core/core.h"
#include "form/form.h"
#include "hydyn/names.h"
#include "model/model.h"

static int has_hydraulics(const hy_model* m) {
  return m->sizes.nvol + m->sizes.nvlv + m->sizes.ncyl > 0;
}

// The methods that step an ODE right-hand side, with fixed or variable steps.
static int is_explicit(hy_integrator k) {
  return k == HY_INTEG_EULER || k == HY_INTEG_SEMI_EULER || k == HY_INTEG_RK4 ||
         k == HY_INTEG_DOPRI5 || k == HY_INTEG_BS23 || k == HY_INTEG_ADAMS;
}

// The global-coordinate formulations carry the integrator seed 001 pairs each with (ALI1:
// semi-implicit Euler; ALI3-P: the trapezoidal rule) and run planar models.
static hy_status global_choice(const hy_model* m, const hy_form_ops* ops, hy_integrator* integ,
                               hy_error* err) {
  const hy_integrator own = ops->kind == HY_FORM_ALI1 ? HY_INTEG_SEMI_EULER : HY_INTEG_TRAPEZOIDAL;
  if (m->opt.integrator != HY_INTEG_AUTO && m->opt.integrator != own) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s steps with its own integrator, %s (seed 001 Sect. 2.1): "
                   "integrator %s is not available with it (use auto or %s)",
                   ops->name, hy_integrator_name(own), hy_integrator_name(m->opt.integrator),
                   hy_integrator_name(own));
  }
  if (!m->planar) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s needs a planar model (global coordinates x, y, theta per "
                   "body): model '%s' is spatial; use penalty or double-step",
                   ops->name, m->name);
  }
  // a joint's damper acts on its relative coordinate, which global coordinates do not have
  for (int j = 0; m->sizes.ndamp > 0 && j < m->sizes.nbody; j++) {
    if (m->jnt_damp[j] == 0) continue;
    char name[HY_NAME_MAX];
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s has no joint damping yet: joint '%s' of model '%s' has "
                   "damping %g %s; use tree, penalty, double-step, dca or hdca",
                   ops->name, hy_model_joint_def_name(m, j, name), m->name, m->jnt_damp[j],
                   m->jnt_type[j] == HY_JOINT_REVOLUTE ? "N m s/rad" : "N s/m");
  }
  *integ = own;
  return HY_OK;
}

hy_status hy_form_choose(const hy_model* m, const hy_form_ops** ops, hy_integrator* integ,
                         char* note, size_t size, hy_error* err) {
  const hy_option* o = &m->opt;
  const int loops = m->sizes.ncut > 0, hyd = has_hydraulics(m), nh = m->sizes.nnh > 0;
  const int cpl = m->sizes.ncpl > 0;
  if (note && size) note[0] = '\0';
  hy_formulation form = o->formulation;
  if (form == HY_FORM_AUTO) form = loops || nh || cpl ? HY_FORM_PENALTY : HY_FORM_TREE;
  switch (form) {
    case HY_FORM_TREE: *ops = &hy_form_tree_ops; break;
    case HY_FORM_PENALTY: *ops = &hy_form_penalty_ops; break;
    case HY_FORM_DOUBLE_STEP: *ops = &hy_form_doublestep_ops; break;
    case HY_FORM_ALI1: *ops = &hy_form_ali1_ops; break;
    case HY_FORM_ALI3P: *ops = &hy_form_ali3p_ops; break;
    case HY_FORM_DCA: *ops = &hy_form_dca_ops; break;
    case HY_FORM_HDCA: *ops = &hy_form_hdca_ops; break;
    default:
      return HY_FAIL(err, HY_ERR_ARG, "solver: unknown formulation %d", (int)o->formulation);
  }
  // The tree formulation integrates M' zdd = Q' of the open tree: cut joints would simply be
  // ignored, and a closed-loop model run that way would be silently wrong.
  if (form == HY_FORM_TREE && loops) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation tree cannot run model '%s': it has %d cut joint%s (closed "
                   "loops); use penalty or double-step", m->name, m->sizes.ncut,
                   m->sizes.ncut == 1 ? "" : "s");
  }
  // nonholonomic constraints restrict velocities: the tree formulation has no constraints,
  // and the global-coordinate ones only position constraints
  if (nh && (form == HY_FORM_TREE || (*ops)->step)) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s cannot run model '%s': it has %d nonholonomic "
                   "constraint%s; use penalty or double-step", (*ops)->name, m->name,
                   m->sizes.nnh, m->sizes.nnh == 1 ? "" : "s");
  }
  // couplers are rows of Phi in relative coordinates: the tree formulation has no constraints,
  // the global-coordinate ones and dca and hdca build their own from the joints and cut joints
  if (cpl && form != HY_FORM_PENALTY && form != HY_FORM_DOUBLE_STEP) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s cannot run model '%s': it has %d coupler%s (coupler '%s'); "
                   "use penalty or double-step", (*ops)->name, m->name, m->sizes.ncpl,
                   m->sizes.ncpl == 1 ? "" : "s", m->cpl_name);
  }
  if (o->reactions && form != HY_FORM_DCA && form != HY_FORM_HDCA) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "solver.reactions: formulation %s computes no joint reactions yet; use dca "
                   "or hdca", (*ops)->name);
  }
  if ((*ops)->step) return global_choice(m, *ops, integ, err);
  if (form == HY_FORM_DCA || form == HY_FORM_HDCA) HY_TRY(hy_form_dca_check(m, (*ops)->name, err));
  hy_integrator k = o->integrator;
  if (k == HY_INTEG_AUTO) k = (*ops)->has_ode && !hyd ? HY_INTEG_RK4 : HY_INTEG_TRAPEZOIDAL;
  // a formulation with only an ODE right-hand side: the variable-step dopri5 for hydraulics
  if (k == HY_INTEG_AUTO || (k == HY_INTEG_TRAPEZOIDAL && o->integrator == HY_INTEG_AUTO &&
                             !(*ops)->residual)) {
    k = HY_INTEG_DOPRI5;
  }
  if (k == HY_INTEG_TRAPEZOIDAL && !(*ops)->residual) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s has only an ODE right-hand side: it runs with euler, "
                   "semi-euler, rk4, dopri5, bs23 or adams, not the trapezoidal rule",
                   (*ops)->name);
  }
  // symplectic Euler moves the coordinates by the new velocities, which a Hamiltonian state
  // holds only as momenta (q_dot needs the velocity solve): it would add p to q
  if (k == HY_INTEG_SEMI_EULER && (*ops)->velocities) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s integrates momenta, not velocities: semi-euler cannot step "
                   "it; use euler, rk4, dopri5, bs23 or adams",
                   (*ops)->name);
  }
  if (k != HY_INTEG_TRAPEZOIDAL && !is_explicit(k)) {
    return HY_FAIL(err, HY_ERR_ARG, "solver: unknown integrator %d", (int)o->integrator);
  }
  if (is_explicit(k) && !(*ops)->has_ode) {
    return HY_FAIL(err, HY_ERR_MODEL,
                   "formulation %s has no ODE right-hand side for the explicit integrator %s: "
                   "it steps with the trapezoidal rule (integrator auto or trapezoidal)",
                   (*ops)->name, hy_integrator_name(k));
  }
  *integ = k;
  if (note && size && (o->formulation == HY_FORM_AUTO || o->integrator == HY_INTEG_AUTO)) {
    const char* why = loops ? "the model has closed loops"
                      : cpl ? "the model has joint couplers"
                      : nh  ? "the model has nonholonomic constraints"
                      : hyd ? "the model has hydraulics and no closed loops"
                            : "the model is an open tree without hydraulics";
    snprintf(note, size, "%s: formulation %s with the %s integrator%s", why, (*ops)->name,
             hy_integrator_name(k),
             k != HY_INTEG_TRAPEZOIDAL ? ""
             : hyd                     ? " (Newton-Raphson, monolithic with the hydraulics)"
                                       : " (Newton-Raphson)");
  }
  return HY_OK;
}
