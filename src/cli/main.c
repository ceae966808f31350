// The hydyn command: dispatch to the subcommands, global help and version.
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "hydyn/hydyn.h"

static void usage(FILE* fp) {
  fputs(
      "usage: hydyn <command> [arguments]\n"
      "\n"
      "Simulates hydraulically actuated multibody systems.\n"
      "\n"
      "commands:\n"
      "  run MODEL [options]  run a model file or a built-in model; writes a CSV of the\n"
      "                       trajectory and prints a one-line summary\n"
      "  models               list the built-in models\n"
      "  friction LAW|MODEL   show a seal friction law: its parameters and steady force, or\n"
      "                       with --sweep a CSV of its steady curve and sine responses\n"
      "  help                 show this help\n"
      "\n"
      "options:\n"
      "  -h, --help           show this help\n"
      "  --version            print the version\n"
      "\n"
      "'hydyn run --help' lists the options of run, 'hydyn friction --help' those of\n"
      "friction. Exit status: 0 success, 1 model or run error, 2 bad command line.\n",
      fp);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return HY_CLI_USAGE;
  }
  const char* cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return HY_CLI_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("hydyn %s\n", HY_VERSION_STRING);
    return HY_CLI_OK;
  }
  if (strcmp(cmd, "models") == 0) return hy_cli_models(argc - 1, argv + 1);
  if (strcmp(cmd, "run") == 0) return hy_cli_run(argc - 1, argv + 1);
  if (strcmp(cmd, "friction") == 0) return hy_cli_friction(argc - 1, argv + 1);
  fprintf(stderr, "hydyn: unknown command '%s'\nTry 'hydyn --help'.\n", cmd);
  return HY_CLI_USAGE;
}
