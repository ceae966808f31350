// hydyn names: conversions between enum values and the names used in model files and on the
// command line.
#ifndef HYDYN_NAMES_H_
#define HYDYN_NAMES_H_

#include "hydyn/types.h"

#ifdef __cplusplus
extern "C" {
#endif

//----- integrators ---------------------------------------------------------------------------

// Name of an integrator: "auto", "euler", "semi-euler", "rk4" or "trapezoidal" (static
// string); "unknown" for a value outside hy_integrator.
HY_API const char* hy_integrator_name(hy_integrator kind);

// Parses an integrator name (one of the names above, exact and case-sensitive) into *out.
// Returns HY_OK, or HY_ERR_ARG for NULL arguments or an unknown name, leaving *out unchanged.
HY_API hy_status hy_integrator_parse(const char* s, hy_integrator* out);

//----- formulations --------------------------------------------------------------------------

// Name of a formulation: "auto", "tree", "penalty" or "double-step" (static string); "unknown"
// for a value outside hy_formulation.
HY_API const char* hy_formulation_name(hy_formulation form);

// Parses a formulation name (one of the names above, exact and case-sensitive) into *out.
// Returns HY_OK, or HY_ERR_ARG for NULL arguments or an unknown name, leaving *out unchanged.
HY_API hy_status hy_formulation_parse(const char* s, hy_formulation* out);

//----- error control --------------------------------------------------------------------------

// Name of an error control: "none" or "predictor" (static string); "unknown" otherwise.
HY_API const char* hy_error_control_name(hy_error_control kind);

// Parses an error-control name ("none" or "predictor") into *out. Returns HY_OK, or HY_ERR_ARG
// for NULL arguments or an unknown name, leaving *out unchanged.
HY_API hy_status hy_error_control_parse(const char* s, hy_error_control* out);

//----- Newton tangents -----------------------------------------------------------------------

// Name of a tangent kind: "analytic" or "fd" (static string); "unknown" for a value outside
// hy_tangent.
HY_API const char* hy_tangent_name(hy_tangent kind);

// Parses a tangent name ("analytic" or "fd", exact and case-sensitive) into *out. Returns HY_OK,
// or HY_ERR_ARG for NULL arguments or an unknown name, leaving *out unchanged.
HY_API hy_status hy_tangent_parse(const char* s, hy_tangent* out);

//----- tree joints ---------------------------------------------------------------------------

// Name of a joint type: "revolute", "prismatic", "universal", "cylindrical", "spherical" or
// "free" (static string); "unknown" for a value outside hy_joint_type.
HY_API const char* hy_joint_type_name(hy_joint_type type);

// Parses a joint type name (one of the names above, exact and case-sensitive) into *out.
// Returns HY_OK, or HY_ERR_ARG for NULL arguments or an unknown name, leaving *out unchanged.
HY_API hy_status hy_joint_type_parse(const char* s, hy_joint_type* out);

//----- cut joints ----------------------------------------------------------------------------

// Name of a cut-joint type: "revolute", "spherical" or "translational" (static string);
// "unknown" for a value outside hy_cut_type.
HY_API const char* hy_cut_type_name(hy_cut_type type);

// Parses a cut-joint type name ("revolute", "spherical" or "translational", exact and
// case-sensitive) into *out. Returns HY_OK, or HY_ERR_ARG for NULL arguments or an unknown name,
// leaving *out unchanged.
HY_API hy_status hy_cut_type_parse(const char* s, hy_cut_type* out);

//----- nonholonomic constraints --------------------------------------------------------------

// Name of a nonholonomic constraint type: "knife_edge" (static string); "unknown" for a value
// outside hy_nonholonomic_type.
HY_API const char* hy_nonholonomic_type_name(hy_nonholonomic_type type);

// Parses a nonholonomic constraint type name ("knife_edge", exact and case-sensitive) into *out.
// Returns HY_OK, or HY_ERR_ARG for NULL arguments or an unknown name, leaving *out unchanged.
HY_API hy_status hy_nonholonomic_type_parse(const char* s, hy_nonholonomic_type* out);

//----- friction laws ---------------------------------------------------------------------------

// Name of a seal friction law: "none", "coulomb", "bengisu-akay", "brown-mcphee", "lugre" or
// "lugre-film" (the modified LuGre law with lubricant-film dynamics); "unknown" otherwise.
HY_API const char* hy_friction_law_name(hy_friction_law law);

// Parses a friction law name (one of the names above) into *out. Returns HY_OK, or HY_ERR_ARG
// for NULL arguments or an unknown name, leaving *out unchanged.
HY_API hy_status hy_friction_law_parse(const char* s, hy_friction_law* out);

//----- signal kinds ----------------------------------------------------------------------------

// Name of a signal kind, the model-file key that gives it: "table", "step", "ramp", "sine",
// "periodic", "sum", "product", "scale", "one_minus" or "clamp" (static string); "unknown"
// otherwise. (A CSV `file` is a table.)
HY_API const char* hy_signal_kind_name(hy_signal_kind kind);

// Parses a signal kind name (one of the names above) into *out. Returns HY_OK, or HY_ERR_ARG for
// NULL arguments or an unknown name, leaving *out unchanged.
HY_API hy_status hy_signal_kind_parse(const char* s, hy_signal_kind* out);
//----- oil bulk modulus laws -------------------------------------------------------------------

// Name of an oil law as a model file's `law:` gives it: "constant", "linear", "polynomial",
// "air" or "table" (static string); "unknown" for a value outside hy_bulk_law.
HY_API const char* hy_bulk_law_name(hy_bulk_law law);

//----- directional valves' spools ---------------------------------------------------------------

// Name of a spool's dynamics, as the key `spool` of a valve gives it: "first_order", "none" or
// "second_order" (static string); "unknown" for a value outside hy_spool_dynamics.
HY_API const char* hy_spool_name(hy_spool_dynamics kind);

// Name of path k of a directional valve in the order of hy_data.vlv_q, as the keys of a valve's
// `edges` give it: "P->A", "B->T", "P->B", "A->T" or "P->T" (static string); "unknown" for k
// outside 0 .. HY_VALVE_PATHS - 1.
HY_API const char* hy_valve_path_name(int k);

#ifdef __cplusplus
}
#endif

#endif  // HYDYN_NAMES_H_
