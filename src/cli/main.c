// The hydyn command: dispatch to the subcommands, global help and version.
#include <errno.h>
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
      "  info MODEL           bodies, joints, loops, circuits, initial pressures and forces\n"
      "  channels MODEL       list the channels a run of MODEL can record (--channels)\n"
      "  plot RESULTS         draw channels of a results file (CSV or HDF5) with gnuplot\n"
      "  snapshot MODEL RESULTS  draw the mechanism at intervals of a run, overlaid\n"
      "  compare A B          overlay two results files; max and RMS difference per channel\n"
      "  report MODEL -o DIR  run MODEL and write the standard figures and summary.md\n"
      "  cosim MODEL          co-simulate the mechanics and the hydraulics (Jacobi scheme);\n"
      "                       one run or a sweep over step sizes and configurations\n"
      "  linearize MODEL      the linearized system about a state: Jacobian, eigenvalues,\n"
      "                       modes (seed 003)\n"
      "  help                 show this help\n"
      "\n"
      "options:\n"
      "  -h, --help           show this help\n"
      "  --version            print the version\n"
      "\n"
      "'hydyn COMMAND --help' lists the options of a command. Exit status: 0 success,\n"
      "1 model or run error, 2 bad command line, 130 or 143 a run stopped by SIGINT or\n"
      "SIGTERM (docs/cli.md).\n",
      fp);
}

// The command's own work, before standard output is checked.
static int dispatch(int argc, char** argv) {
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
  static const struct {
    const char* name;
    int (*fn)(int, char**);
  } commands[] = {{"models", hy_cli_models},     {"run", hy_cli_run},
                  {"friction", hy_cli_friction}, {"channels", hy_cli_channels},
                  {"plot", hy_cli_plot},         {"compare", hy_cli_compare},
                  {"snapshot", hy_cli_snapshot}, {"info", hy_cli_info},
                  {"report", hy_cli_report},     {"cosim", hy_cli_cosim},
                  {"linearize", hy_cli_linearize}};
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
    if (strcmp(cmd, commands[k].name) == 0) return commands[k].fn(argc - 1, argv + 1);
  }
  fprintf(stderr, "hydyn: unknown command '%s'\nTry 'hydyn --help'.\n", cmd);
  return HY_CLI_USAGE;
}

int main(int argc, char** argv) {
  int rc = dispatch(argc, argv);
  // What went to standard output (a summary, a table, CSV) is part of the result: a write that
  // failed there (a full disk, a closed pipe) is an error, not a success with output missing.
  if (fflush(stdout) == EOF || ferror(stdout)) {
    fprintf(stderr, "hydyn: writing to standard output failed: %s\n", strerror(errno));
    if (rc == HY_CLI_OK) rc = HY_CLI_FAIL;
  }
  return rc;
}
