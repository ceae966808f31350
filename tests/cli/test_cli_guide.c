// docs/guide.md cannot rot: every `hydyn ...` line of its ```sh blocks is run, in the order
// written, in one scratch folder, and must succeed; every figure it shows must exist.
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_harness.h"
#include "fixture.h"

enum { MAX_ARGS = 38, MAX_COMMANDS = 64 };

static cmd_result result;

// Splits a shell line into words: blanks separate, single quotes group (what the guide uses).
// Returns the number of words, -1 for a construct the guide should not use (other quotes,
// redirections, pipes, variables).
static int split_words(char* line, char** words) {
  int n = 0;
  char* out = line;
  char* p = line;
  while (*p) {
    while (*p == ' ') p++;
    if (!*p) break;
    if (n == MAX_ARGS) return -1;
    words[n++] = out;
    while (*p && *p != ' ') {
      if (*p == '\'') {
        p++;
        while (*p && *p != '\'') *out++ = *p++;
        if (*p != '\'') return -1;
        p++;
      } else if (strchr("\"$|<>;&`\\", *p)) {
        return -1;
      } else {
        *out++ = *p++;
      }
    }
    if (*p) p++;
    *out++ = '\0';
  }
  return n;
}

START_TEST(every_command_of_the_guide_runs) {
  static char doc[OUT_MAX];
  slurp(HY_SOURCE_DIR "/docs/guide.md", doc);
  ck_assert_msg(doc[0], "docs/guide.md not found");
  make_tmp_dir("hydyn_guide");
  int in_block = 0, ncommand = 0, install_seen = 0;
  char* save = NULL;
  for (char* line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (strncmp(line, "```", 3) == 0) {
      in_block = !in_block && strcmp(line, "```sh") == 0;
      continue;
    }
    if (!in_block) continue;
    // the README's two commands install and build: what the test suite itself was built by
    if (strncmp(line, "./scripts/install-deps", 22) == 0) {
      install_seen = 1;
      continue;
    }
    ck_assert_msg(strncmp(line, "hydyn ", 6) == 0, "guide command not run by the test: %s", line);
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", line + 6);
    char* words[MAX_ARGS + 1];
    const int n = split_words(copy, words);
    ck_assert_msg(n > 0, "guide command the test cannot split: %s", line);
    words[n] = NULL;
    run_hydyn((const char* const*)words, NULL, &result);
    ck_assert_msg(result.status == 0, "'%s' exited %d:\n%s", line, result.status, result.err);
    ncommand++;
  }
  ck_assert_msg(install_seen, "the guide does not start with the README's commands");
  ck_assert_int_ge(ncommand, 10);
  // what the commands say they write is there
  static const char* const files[] = {"fb.csv",    "fb.h5",           "pressures.png",
                                      "force-stroke.png", "force-stroke.csv", "snapshots.png",
                                      "compare.png", "report/summary.md", "report/energy.png"};
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    char path[256];
    tmp_path(path, sizeof path, files[k]);
    ck_assert_msg(access(path, R_OK) == 0, "the guide's commands did not write %s", files[k]);
  }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(every_figure_of_the_guide_exists) {
  static char doc[OUT_MAX];
  slurp(HY_SOURCE_DIR "/docs/guide.md", doc);
  int nfig = 0;
  for (const char* p = strstr(doc, "]("); p; p = strstr(p + 2, "](")) {
    const char* end = strchr(p + 2, ')');
    if (!end || end - (p + 2) < 5 || strncmp(end - 4, ".png", 4) != 0) continue;
    char path[512];
    snprintf(path, sizeof path, HY_SOURCE_DIR "/docs/%.*s", (int)(end - (p + 2)), p + 2);
    ck_assert_msg(access(path, R_OK) == 0, "the guide shows %s, which does not exist", path);
    nfig++;
  }
  ck_assert_int_ge(nfig, 4);
}
END_TEST

Suite* cli_guide_suite(void) {
  Suite* s = suite_create("cli_guide");
  TCase* tc = tcase_create("guide");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, every_command_of_the_guide_runs);
  tcase_add_test(tc, every_figure_of_the_guide_exists);
  suite_add_tcase(s, tc);
  return s;
}
