// Names of enum values as used in model files and on the command line (include/hydyn/names.h).
// One table per enum, indexed by the enum value, so a name and its value cannot drift apart.
#include <string.h>

#include "hydyn/names.h"

// Index of s in names[0..n), or -1.
static int find(const char* const* names, int n, const char* s) {
  for (int i = 0; i < n; i++) {
    if (names[i] && strcmp(s, names[i]) == 0) return i;
  }
  return -1;
}

#define COUNT_(table) ((int)(sizeof table / sizeof table[0]))

//----- integrators -----------------------------------------------------------------------------

static const char* const integ_names[] = {
    [HY_INTEG_AUTO] = "auto",
    [HY_INTEG_EULER] = "euler",
    [HY_INTEG_SEMI_EULER] = "semi-euler",
    [HY_INTEG_RK4] = "rk4",
    [HY_INTEG_TRAPEZOIDAL] = "trapezoidal",
    [HY_INTEG_DOPRI5] = "dopri5",
    [HY_INTEG_BS23] = "bs23",
    [HY_INTEG_ADAMS] = "adams",
};

const char* hy_integrator_name(hy_integrator kind) {
  if ((int)kind < 0 || (int)kind >= COUNT_(integ_names)) return "unknown";
  return integ_names[kind];
}

hy_status hy_integrator_parse(const char* s, hy_integrator* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(integ_names, COUNT_(integ_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_integrator)i;
  return HY_OK;
}

//----- formulations ----------------------------------------------------------------------------

static const char* const form_names[] = {
    [HY_FORM_AUTO] = "auto",
    [HY_FORM_TREE] = "tree",
    [HY_FORM_PENALTY] = "penalty",
    [HY_FORM_DOUBLE_STEP] = "double-step",
    [HY_FORM_ALI1] = "ali1",
    [HY_FORM_ALI3P] = "ali3p",
    [HY_FORM_DCA] = "dca",
    [HY_FORM_HDCA] = "hdca",
};

const char* hy_formulation_name(hy_formulation form) {
  if ((int)form < 0 || (int)form >= COUNT_(form_names)) return "unknown";
  return form_names[form];
}

hy_status hy_formulation_parse(const char* s, hy_formulation* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(form_names, COUNT_(form_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_formulation)i;
  return HY_OK;
}

//----- error control ---------------------------------------------------------------------------

static const char* const errctl_names[] = {
    [HY_ERRCTL_NONE] = "none",
    [HY_ERRCTL_PREDICTOR] = "predictor",
};

const char* hy_error_control_name(hy_error_control kind) {
  if ((int)kind < 0 || (int)kind >= COUNT_(errctl_names)) return "unknown";
  return errctl_names[kind];
}

hy_status hy_error_control_parse(const char* s, hy_error_control* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(errctl_names, COUNT_(errctl_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_error_control)i;
  return HY_OK;
}

//----- Newton tangents -------------------------------------------------------------------------

static const char* const tangent_names[] = {
    [HY_TANGENT_ANALYTIC] = "analytic",
    [HY_TANGENT_FD] = "fd",
};

const char* hy_tangent_name(hy_tangent kind) {
  if ((int)kind < 0 || (int)kind >= COUNT_(tangent_names)) return "unknown";
  return tangent_names[kind];
}

hy_status hy_tangent_parse(const char* s, hy_tangent* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(tangent_names, COUNT_(tangent_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_tangent)i;
  return HY_OK;
}

//----- cut joints ------------------------------------------------------------------------------

static const char* const cut_names[] = {
    [HY_CUT_REVOLUTE] = "revolute",
    [HY_CUT_SPHERICAL] = "spherical",
    [HY_CUT_TRANSLATIONAL] = "translational",
};

const char* hy_cut_type_name(hy_cut_type type) {
  if ((int)type < 0 || (int)type >= COUNT_(cut_names)) return "unknown";
  return cut_names[type];
}

hy_status hy_cut_type_parse(const char* s, hy_cut_type* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(cut_names, COUNT_(cut_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_cut_type)i;
  return HY_OK;
}

//----- tree joints ------------------------------------------------------------------------------

static const char* const joint_names[] = {
    [HY_JOINT_REVOLUTE] = "revolute",       [HY_JOINT_PRISMATIC] = "prismatic",
    [HY_JOINT_UNIVERSAL] = "universal",     [HY_JOINT_CYLINDRICAL] = "cylindrical",
    [HY_JOINT_SPHERICAL] = "spherical",     [HY_JOINT_FREE] = "free",
};

const char* hy_joint_type_name(hy_joint_type type) {
  if ((int)type < 0 || (int)type >= COUNT_(joint_names)) return "unknown";
  return joint_names[type];
}

hy_status hy_joint_type_parse(const char* s, hy_joint_type* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(joint_names, COUNT_(joint_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_joint_type)i;
  return HY_OK;
}

//----- nonholonomic constraints ----------------------------------------------------------------

static const char* const nonholonomic_names[] = {
    [HY_NONHOLONOMIC_KNIFE_EDGE] = "knife_edge",
};

const char* hy_nonholonomic_type_name(hy_nonholonomic_type type) {
  if ((int)type < 0 || (int)type >= COUNT_(nonholonomic_names)) return "unknown";
  return nonholonomic_names[type];
}

hy_status hy_nonholonomic_type_parse(const char* s, hy_nonholonomic_type* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(nonholonomic_names, COUNT_(nonholonomic_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_nonholonomic_type)i;
  return HY_OK;
}

//----- friction laws ---------------------------------------------------------------------------

static const char* const friction_names[] = {
    [HY_FRICTION_NONE] = "none",
    [HY_FRICTION_COULOMB] = "coulomb",
    [HY_FRICTION_BENGISU_AKAY] = "bengisu-akay",
    [HY_FRICTION_BROWN_MCPHEE] = "brown-mcphee",
    [HY_FRICTION_LUGRE] = "lugre",
    [HY_FRICTION_LUGRE_FILM] = "lugre-film",
};

const char* hy_friction_law_name(hy_friction_law law) {
  if ((int)law < 0 || (int)law >= COUNT_(friction_names)) return "unknown";
  return friction_names[law];
}

hy_status hy_friction_law_parse(const char* s, hy_friction_law* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(friction_names, COUNT_(friction_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_friction_law)i;
  return HY_OK;
}

//----- signal kinds ----------------------------------------------------------------------------

static const char* const signal_kind_names[] = {
    [HY_SIGNAL_TABLE] = "table",
    [HY_SIGNAL_STEP] = "step",
    [HY_SIGNAL_RAMP] = "ramp",
    [HY_SIGNAL_SINE] = "sine",
    [HY_SIGNAL_PERIODIC] = "periodic",
    [HY_SIGNAL_SUM] = "sum",
    [HY_SIGNAL_PRODUCT] = "product",
    [HY_SIGNAL_SCALE] = "scale",
    [HY_SIGNAL_ONE_MINUS] = "one_minus",
    [HY_SIGNAL_CLAMP] = "clamp",
};

const char* hy_signal_kind_name(hy_signal_kind kind) {
  if ((int)kind < 0 || (int)kind >= COUNT_(signal_kind_names)) return "unknown";
  return signal_kind_names[kind];
}

hy_status hy_signal_kind_parse(const char* s, hy_signal_kind* out) {
  if (!s || !out) return HY_ERR_ARG;
  int i = find(signal_kind_names, COUNT_(signal_kind_names), s);
  if (i < 0) return HY_ERR_ARG;
  *out = (hy_signal_kind)i;
  return HY_OK;
}

//----- oil bulk modulus laws -------------------------------------------------------------------

static const char* const bulk_names[] = {
    [HY_BULK_CONSTANT] = "constant", [HY_BULK_LINEAR] = "linear",
    [HY_BULK_POLYNOMIAL] = "polynomial", [HY_BULK_AIR] = "air",
    [HY_BULK_TABLE] = "table",
};

const char* hy_bulk_law_name(hy_bulk_law law) {
  if ((int)law < 0 || (int)law >= COUNT_(bulk_names)) return "unknown";
  return bulk_names[law];
}

//----- directional valves' spools --------------------------------------------------------------

static const char* const spool_names[] = {
    [HY_SPOOL_FIRST_ORDER] = "first_order",
    [HY_SPOOL_NONE] = "none",
    [HY_SPOOL_SECOND_ORDER] = "second_order",
};

const char* hy_spool_name(hy_spool_dynamics kind) {
  if ((int)kind < 0 || (int)kind >= COUNT_(spool_names)) return "unknown";
  return spool_names[kind];
}

const char* hy_valve_path_name(int k) {
  static const char* const path_names[HY_VALVE_PATHS] = {"P->A", "B->T", "P->B", "A->T", "P->T"};
  return k >= 0 && k < HY_VALVE_PATHS ? path_names[k] : "unknown";
}
