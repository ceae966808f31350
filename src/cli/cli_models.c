// `hydyn models`: the built-in models, which `hydyn run` also names when a model is not found.
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "hydyn/hydyn.h"

void hy_cli_list_builtins(FILE* fp, const char* sep) {
  const int n = hy_builtin_count();
  for (int i = 0; i < n; i++) fprintf(fp, "%s%s", i ? sep : "", hy_builtin_name(i));
}

int hy_cli_models(int argc, char** argv) {
  if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
    fputs(
        "usage: hydyn models\n\n"
        "Lists the built-in models on standard output, one name per line, and the built-in\n"
        "model families (loop-N, ...) on standard error. Every name is a MODEL of 'hydyn run'.\n",
        stdout);
    return HY_CLI_OK;
  }
  if (argc > 1) {
    fprintf(stderr, "hydyn models: unexpected argument '%s'\n", argv[1]);
    return HY_CLI_USAGE;
  }
  hy_cli_list_builtins(stdout, "\n");
  if (hy_builtin_count() > 0) putchar('\n');
  // the families on standard error: the list above stays one model name per line
  fputs("\nfamilies (hydyn run NAME):\n", stderr);
  for (int i = 0; i < hy_family_count(); i++) {
    fprintf(stderr, "  %-12s %s\n", hy_family_pattern(i), hy_family_description(i));
  }
  return HY_CLI_OK;
}
