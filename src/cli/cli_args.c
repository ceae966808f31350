// What the subcommands' option parsers share.
#define _POSIX_C_SOURCE 200809L  // stat
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

int hy_cli_valued_option(int argc, char** argv, int* i, const char* const* valued, int nvalued,
                         const char** val, char* msg, size_t size) {
  const char* arg = argv[*i];
  for (int k = 0; k < nvalued; k++) {
    const size_t len = strlen(valued[k]);
    if (strncmp(arg, valued[k], len) != 0) continue;
    if (arg[len] == '\0') {
      if (*i + 1 >= argc) {
        snprintf(msg, size, "option %s needs a value", valued[k]);
        return -2;
      }
      // an option where the value should be is a forgotten value, not a file named "--t-end"
      if (strncmp(argv[*i + 1], "--", 2) == 0) {
        snprintf(msg, size,
                 "option %s needs a value, got the option '%s' (write %s=VALUE for a value that "
                 "starts with '--')",
                 valued[k], argv[*i + 1], valued[k][1] == '-' ? valued[k] : "--out");
        return -2;
      }
      *val = argv[++*i];
      return k;
    }
    // "--name=value"; a short option takes its value as the next argument only
    if (arg[len] == '=' && valued[k][1] == '-') {
      *val = arg + len + 1;
      return k;
    }
  }
  return -1;
}

int hy_cli_parse_number(const char* s, int allow_zero, double* out) {
  if (!s[0] || s[0] == ' ' || s[0] == '\t') return -1;  // strtod would skip the blanks
  char* end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) return -1;
  if (!(v > 0 || (allow_zero && v == 0))) return -1;
  *out = v == 0 ? 0.0 : v;  // -0 as 0
  return 0;
}

int hy_cli_usage_error(const char* cmd, const char* fmt, ...) {
  fprintf(stderr, "hydyn %s: ", cmd);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'hydyn %s --help'.\n", cmd);
  return HY_CLI_USAGE;
}

int hy_cli_same_file(const char* a, const char* b) {
  if (strcmp(a, b) == 0) return 1;
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}
