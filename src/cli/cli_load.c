// Loading a model for a command: one copy of what `hydyn run` says when a model cannot be loaded
// or set up, for the commands that came after it (info, snapshot).
#define _POSIX_C_SOURCE 200809L  // stat

#include "cli/cli_load.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

void hy_cli_print_error(const hy_error* e) {
  char buf[1024];
  hy_error_format(e, buf, sizeof buf);
  // A message with a file position starts with it, so editors and the tests can find it.
  if (e->src_path[0]) {
    fprintf(stderr, "%s\n", buf);
  } else {
    fprintf(stderr, "hydyn: %s\n", buf);
  }
}

int hy_cli_load_model(const char* what, hy_model** out) {
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status s = hy_model_load_any(what, out, &err);
  if (s == HY_OK) return HY_CLI_OK;
  if (err.code != s) {  // no detail recorded
    memset(&err, 0, sizeof err);
    err.code = s;
  }
  hy_cli_print_error(&err);
  // Not a file: the user most likely misspelled a built-in name, so show them (unless the
  // loader's message already did).
  struct stat st;
  const char* first = hy_builtin_count() > 0 ? hy_builtin_name(0) : NULL;
  if (stat(what, &st) != 0 && first && !strstr(err.msg, first) && hy_family_find(what) < 0) {
    fprintf(stderr, "hydyn: '%s' is neither a file nor a built-in model; built-in models: ", what);
    hy_cli_list_builtins(stderr, ", ");
    fputc('\n', stderr);
  }
  return HY_CLI_FAIL;
}

int hy_cli_make_data(const hy_model* m, const char* what, hy_data** out) {
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status s = hy_data_make(m, out, &err);
  if (s == HY_OK) return HY_CLI_OK;
  if (err.msg[0]) {
    hy_cli_print_error(&err);
  } else {
    fprintf(stderr, "hydyn: cannot set up the simulation of '%s': %s\n", what, hy_status_str(s));
  }
  return HY_CLI_FAIL;
}
