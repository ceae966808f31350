// Running the hydyn binary as a child process (cli_harness.h).
#define _XOPEN_SOURCE 700  // fork, mkdtemp, realpath

#include "cli_harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

char tmp_dir[64];

// Absolute, because the child changes directory before exec.
static const char* hydyn_bin(void) {
  static char path[4096];
  const char* bin = getenv("HYDYN_BIN");
  if (!bin || !bin[0]) bin = HY_SOURCE_DIR "/build/hydyn";
  ck_assert_msg(access(bin, X_OK) == 0 && realpath(bin, path),
                "hydyn binary '%s' not found: set HYDYN_BIN", bin);
  return path;
}

void make_tmp_dir(const char* prefix) {
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/%s_XXXXXX", prefix);
  ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
}

void tmp_path(char* buf, size_t size, const char* name) {
  snprintf(buf, size, "%s/%s", tmp_dir, name);
}

void slurp(const char* path, char* buf) {
  buf[0] = '\0';
  FILE* fp = fopen(path, "rb");
  if (!fp) return;
  size_t n = fread(buf, 1, OUT_MAX - 1, fp);
  buf[n] = '\0';
  fclose(fp);
}

// The child's standard output and error files for tag.
static void std_paths(const char* tag, char* out_path, char* err_path, size_t size) {
  char name[64];
  snprintf(name, sizeof name, ".stdout%s", tag);
  tmp_path(out_path, size, name);
  snprintf(name, sizeof name, ".stderr%s", tag);
  tmp_path(err_path, size, name);
}

int start_hydyn(const char* const* args, const char* cwd, const char* tag) {
  const char* bin = hydyn_bin();
  char out_path[128], err_path[128];
  std_paths(tag, out_path, err_path, sizeof out_path);
  char* argv[40];
  int argc = 0;
  argv[argc++] = (char*)bin;
  for (int i = 0; args[i]; i++) {
    ck_assert_int_lt(argc, 39);
    argv[argc++] = (char*)args[i];
  }
  argv[argc] = NULL;
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0) _exit(126);
    if (chdir(cwd ? cwd : tmp_dir) != 0) _exit(126);
    execv(bin, argv);
    _exit(127);
  }
  return (int)pid;
}

void finish_hydyn(int pid, const char* tag, cmd_result* r) {
  char out_path[128], err_path[128];
  std_paths(tag, out_path, err_path, sizeof out_path);
  int ws = 0;
  ck_assert_int_eq(waitpid((pid_t)pid, &ws, 0), (pid_t)pid);
  r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
  slurp(out_path, r->out);
  slurp(err_path, r->err);
  remove(out_path);
  remove(err_path);
}

void run_hydyn(const char* const* args, const char* cwd, cmd_result* r) {
  finish_hydyn(start_hydyn(args, cwd, ""), "", r);
}

const char* summary_value(const char* text, const char* key, char* buf, size_t size) {
  const char* line = strstr(text, "summary: ");
  buf[0] = '\0';
  if (!line) return buf;
  char pat[64];
  snprintf(pat, sizeof pat, " %s=", key);
  const char* p = strstr(line, pat);
  const char* eol = strchr(line, '\n');
  if (!p || (eol && p > eol)) return buf;
  p += strlen(pat);
  size_t n = strcspn(p, " \n");
  if (n >= size) n = size - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}

int info_row(const char* text, const char* section, const char* name, char* buf, size_t size) {
  const char* sec = strstr(text, section);
  const size_t n = strlen(name);
  for (const char* p = sec ? strchr(sec, '\n') : NULL; p && p[1] && p[1] != '\n';
       p = strchr(p + 1, '\n')) {
    const char* q = p + 1;
    while (*q == ' ') q++;
    if (strncmp(q, name, n) != 0 || q[n] != ' ') continue;
    size_t used = 0;
    for (; *q && *q != '\n' && used + 4 < size; q++) {
      if (q[0] == ' ' && q[1] == ' ') {
        while (q[1] == ' ') q++;
        if (q[1] == '\n' || !q[1]) break;
        memcpy(buf + used, " | ", 3);
        used += 3;
      } else {
        buf[used++] = *q;
      }
    }
    buf[used] = 0;
    return 1;
  }
  return 0;
}
