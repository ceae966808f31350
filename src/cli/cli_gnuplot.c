// Driving gnuplot through a pipe: the one place that starts it, so that the terminals, the size
// and the message for a machine without gnuplot are the same for every figure command.
#define _POSIX_C_SOURCE 200809L  // popen, pclose, strcasecmp
#include "cli/cli_gnuplot.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int hy_gp_format_of(const char* path, char* msg, size_t size) {
  const char* dot = strrchr(path, '.');
  if (dot && strcasecmp(dot, ".png") == 0) return HY_GP_PNG;
  if (dot && strcasecmp(dot, ".svg") == 0) return HY_GP_SVG;
  if (dot && strcasecmp(dot, ".pdf") == 0) return HY_GP_PDF;
  snprintf(msg, size, "'%s': the figure's format is taken from its extension: .png, .svg or .pdf",
           path);
  return -1;
}

// 1 when an executable `name` is on PATH.
static int on_path(const char* name) {
  const char* path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  while (*path) {
    const char* end = strchr(path, ':');
    size_t len = end ? (size_t)(end - path) : strlen(path);
    char file[4096];
    if (len > 0 && len + strlen(name) + 2 < sizeof file) {
      memcpy(file, path, len);
      file[len] = '/';
      strcpy(file + len + 1, name);
      if (access(file, X_OK) == 0) return 1;
    }
    path += len;
    if (*path == ':') path++;
  }
  return 0;
}

FILE* hy_gp_open(char* msg, size_t size) {
  // HYDYN_GNUPLOT names another gnuplot (the tests use it to simulate a machine without one)
  const char* exe = getenv("HYDYN_GNUPLOT");
  if (!exe || !exe[0]) exe = "gnuplot";
  const int found = strchr(exe, '/') ? access(exe, X_OK) == 0 : on_path(exe);
  if (!found) {
    snprintf(msg, size,
             "gnuplot is not installed ('%s' not found): hydyn draws its figures with gnuplot; "
             "install it with 'apt-get install --no-install-recommends gnuplot-nox' (or run "
             "./scripts/install-deps)",
             exe);
    return NULL;
  }
  // A gnuplot that stops at an error closes the pipe; the script's next write must then fail
  // with EPIPE (hy_gp_close reports gnuplot's status) rather than end hydyn without a word.
  signal(SIGPIPE, SIG_IGN);
  char cmd[4200];
  // The script is read as a file, /dev/stdin, not as interactive input: gnuplot then reads it
  // buffered (five times faster for the data blocks of a long run) and stops at the first error
  // with a nonzero status. Its messages go to standard error as it prints them
  // ("/dev/stdin" line 12: ...).
  snprintf(cmd, sizeof cmd, "'%s' /dev/stdin >/dev/null", exe);
  FILE* gp = popen(cmd, "w");
  if (!gp) {
    snprintf(msg, size, "cannot start gnuplot: %s", strerror(errno));
    return NULL;
  }
  // the data blocks are most of the script: large writes, fewer system calls
  setvbuf(gp, NULL, _IOFBF, 1 << 16);
  return gp;
}

void hy_gp_string(FILE* gp, const char* s) {
  fputc('\'', gp);
  for (; *s; s++) {
    if (*s == '\'') fputc('\'', gp);
    fputc(*s, gp);
  }
  fputc('\'', gp);
}

void hy_gp_output(FILE* gp, hy_gp_format format, const char* path, int width, int height) {
  switch (format) {
    case HY_GP_PNG:
      fprintf(gp, "set terminal pngcairo size %d,%d font 'sans,10' noenhanced\n", width,
              height);
      break;
    case HY_GP_SVG:
      fprintf(gp, "set terminal svg size %d,%d font 'sans,10' noenhanced background '#ffffff'\n",
              width, height);
      break;
    case HY_GP_PDF:
      fprintf(gp, "set terminal pdfcairo size %.2fin,%.2fin font 'sans,8' noenhanced\n",
              width / 100.0, height / 100.0);
      break;
  }
  fputs("set output ", gp);
  hy_gp_string(gp, path);
  fputc('\n', gp);
}

void hy_gp_abort(FILE* gp) {
  // "exit" alone draws nothing: gnuplot leaves before the plot commands it never got
  fputs("\nexit\n", gp);
  pclose(gp);
}

int hy_gp_close(FILE* gp, const char* path, char* msg, size_t size) {
  fputs("set output\nexit\n", gp);
  const int st = pclose(gp);
  struct stat info;
  if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    snprintf(msg, size, "gnuplot failed (its messages are above)");
    return -1;
  }
  if (stat(path, &info) != 0 || info.st_size == 0) {
    snprintf(msg, size, "gnuplot wrote no figure to '%s' (its messages are above)", path);
    return -1;
  }
  return 0;
}
