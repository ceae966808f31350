// `hydyn info` on signals, run as a child process: each signal's kind, what it is made of (a
// table's points and span; the parameters and referred signals of the other kinds) and its value
// at t = 0, for the composed valve reference of tests/data/signals.yaml and a table of a
// built-in model.
#include <stdio.h>
#include <string.h>

#include "cli_harness.h"
#include "fixture.h"

static cmd_result result;  // large: static, one per test process

#define ASSERT_ROW(name, want)                                                    \
  do {                                                                            \
    char row_[512];                                                               \
    ck_assert_msg(info_row(result.out, "\nsignals (", (name), row_, sizeof row_), \
                  "no row '%s' in:\n%s", (name), result.out);                     \
    ck_assert_str_eq(row_, (want));                                               \
  } while (0)

START_TEST(info_composed_signals) {
  make_tmp_dir("hydyn_signal");
  run_hydyn((const char*[]){"info", HY_SOURCE_DIR "/tests/data/signals.yaml", NULL}, NULL, &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  ASSERT_HAS(result.out, "\nsignals (9)\n");
  ASSERT_ROW("U_ref", "U_ref | clamp | signal scaled, min = -10, max = 10 | 0");
  ASSERT_ROW("lift", "lift | ramp | t0 = 0.2 s, t1 = 0.3 s, from = 0, to = 1 | 0");
  ASSERT_ROW("push", "push | step | t0 = 1 s, from = 1, to = -1, rise = 0.2 s | 1");
  ASSERT_ROW("cycle", "cycle | periodic | signal push, period = 2 s, t0 = 0.2 s | 1");
  ASSERT_ROW("wobble",
             "wobble | sine | envelope lift, amplitude = 0.5, frequency = 5 Hz, phase = 0.3 rad, "
             "offset = 0, t0 = 0 s | 0");
  ASSERT_ROW("drive", "drive | sum | cycle + wobble | 1");
  ASSERT_ROW("closed", "closed | one_minus | 1 - lift | 1");
  ASSERT_ROW("gate", "gate | product | lift * drive | 0");
  ASSERT_ROW("scaled", "scaled | scale | signal gate, gain = 12, offset = 0 | 0");
}
END_TEST

START_TEST(info_table_signal) {
  make_tmp_dir("hydyn_signal");
  run_hydyn((const char*[]){"info", "crane", NULL}, NULL, &result);
  ck_assert_msg(result.status == 0, "status %d: %s", result.status, result.err);
  ASSERT_ROW("U_ref", "U_ref | table | linear, 8 points, t = 0 .. 10 s | 0");
}
END_TEST

Suite* cli_signal_suite(void) {
  Suite* s = suite_create("cli_signal");
  TCase* tc = tcase_create("info");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, info_composed_signals);
  tcase_add_test(tc, info_table_signal);
  suite_add_tcase(s, tc);
  return s;
}
