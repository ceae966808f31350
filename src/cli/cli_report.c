// `hydyn report`: placeholder until the command is written.
#include <stdio.h>

#include "cli/cli.h"

int hy_cli_report(int argc, char** argv) {
  (void)argc;
  (void)argv;
  fputs("hydyn report: not yet built\n", stderr);
  return HY_CLI_FAIL;
}
