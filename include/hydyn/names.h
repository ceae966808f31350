// hydyn names: conversions between enum values and the names used in model files and on the
// command line.
#ifndef HYDYN_NAMES_H_
#define HYDYN_NAMES_H_

#include "hydyn/types.h"

#ifdef __cplusplus
extern "C" {
#endif

//----- integrators ---------------------------------------------------------------------------

// Name of an integrator: "euler", "semi-euler" or "rk4" (static string); "unknown" for a value
// outside hy_integrator.
HY_API const char* hy_integrator_name(hy_integrator kind);

// Parses an integrator name ("euler", "semi-euler" or "rk4", exact and case-sensitive) into
// *out. Returns HY_OK, or HY_ERR_ARG for NULL arguments or an unknown name, leaving *out
// unchanged.
HY_API hy_status hy_integrator_parse(const char* s, hy_integrator* out);

#ifdef __cplusplus
}
#endif

#endif  // HYDYN_NAMES_H_
