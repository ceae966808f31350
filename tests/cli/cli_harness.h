// Running the hydyn binary as a child process, for the tests of the command (test_cli.c,
// test_cli_friction.c). The binary is $HYDYN_BIN (set by ctest, see tests/CMakeLists.txt), else
// build/hydyn in the source tree.
#ifndef HYDYN_TESTS_CLI_CLI_HARNESS_H_
#define HYDYN_TESTS_CLI_CLI_HARNESS_H_

#include <stddef.h>
#include <string.h>

enum { OUT_MAX = 1 << 18 };

// Result of one command.
typedef struct cmd_result {
  int status;  // exit status, or -1 when killed
  char out[OUT_MAX];
  char err[OUT_MAX];
} cmd_result;

// The test's scratch folder, made by make_tmp_dir.
extern char tmp_dir[64];

// A new scratch folder /tmp/<prefix>_XXXXXX in tmp_dir.
void make_tmp_dir(const char* prefix);
// tmp_dir/name into buf.
void tmp_path(char* buf, size_t size, const char* name);
// The first OUT_MAX - 1 bytes of a file into buf ("" when it cannot be read).
void slurp(const char* path, char* buf);
// Runs hydyn with args (NULL-terminated) in directory cwd (NULL = tmp_dir), capturing stdout and
// stderr through files in tmp_dir.
void run_hydyn(const char* const* args, const char* cwd, cmd_result* r);
// run_hydyn in two halves, for a test that acts on the running command (signals, a second
// writer): start_hydyn returns the child's pid without waiting; finish_hydyn waits for it and
// collects its output. Runs started together need distinct tags.
int start_hydyn(const char* const* args, const char* cwd, const char* tag);
void finish_hydyn(int pid, const char* tag, cmd_result* r);
// Value of key in the "summary: k=v k=v" line of text into buf ("" if absent).
const char* summary_value(const char* text, const char* key, char* buf, size_t size);

#define ASSERT_HAS(text, what) \
  ck_assert_msg(strstr((text), (what)) != NULL, "'%s' not found in:\n%s", (what), (text))

// The row of `hydyn info`'s table under the first line containing `section` whose first cell
// is `name`, among the rows up to the table's end (a blank line): its cells joined by " | "
// (the columns are separated by two blanks or more) into buf. 0 when there is no such row.
int info_row(const char* text, const char* section, const char* name, char* buf, size_t size);

#endif  // HYDYN_TESTS_CLI_CLI_HARNESS_H_
