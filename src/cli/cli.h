// Internal header of src/cli: the subcommands of the hydyn command.
#ifndef HYDYN_SRC_CLI_CLI_H_
#define HYDYN_SRC_CLI_CLI_H_

#include <stdio.h>

// Exit statuses of the command (docs/cli.md).
enum {
  HY_CLI_OK = 0,     // success
  HY_CLI_FAIL = 1,   // the model could not be loaded or the run failed
  HY_CLI_USAGE = 2,  // bad command line
};

// `hydyn run`: argv[0] is "run". Returns an exit status.
int hy_cli_run(int argc, char** argv);
// `hydyn models`: argv[0] is "models". Returns an exit status.
int hy_cli_models(int argc, char** argv);
// Lists the built-in models on fp, separated by `sep`.
void hy_cli_list_builtins(FILE* fp, const char* sep);

#endif  // HYDYN_SRC_CLI_CLI_H_
