// Internal header of src/cli: loading a model and making its data the way every command that
// takes a MODEL does, so that their messages and exit statuses agree (docs/cli.md).
#ifndef HYDYN_SRC_CLI_CLI_LOAD_H_
#define HYDYN_SRC_CLI_CLI_LOAD_H_

#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "hydyn/types.h"

// A library error on standard error: "path:line:col: message" when it has a position in a model
// file, else "hydyn: message".
void hy_cli_print_error(const hy_error* e);

// Loads `what` (a model file, a built-in model or a family member, as hy_model_load_any) into
// *out. On failure prints why, and the built-in models when `what` is neither a file nor a
// built-in name, and returns HY_CLI_FAIL; HY_CLI_OK otherwise.
int hy_cli_load_model(const char* what, hy_model** out);

// Makes the data of m (hy_data_make: loop closure, equilibrium, initial pressures) into *out.
// On failure prints why, naming `what` when the library gave no detail, and returns HY_CLI_FAIL.
int hy_cli_make_data(const hy_model* m, const char* what, hy_data** out);

#endif  // HYDYN_SRC_CLI_CLI_LOAD_H_
