// Status table, error records (bounded formatting) and option defaults.
#include <string.h>

#include "core/core.h"
#include "fixture.h"

START_TEST(status_strings) {
  ck_assert_str_eq(hy_status_name(HY_OK), "HY_OK");
  ck_assert_str_eq(hy_status_name(HY_ERR_PARSE), "HY_ERR_PARSE");
  ck_assert_str_eq(hy_status_name(HY_WARN_SINGULAR), "HY_WARN_SINGULAR");
  ck_assert_str_eq(hy_status_str(HY_OK), "success");
  ck_assert_str_eq(hy_status_str(HY_ERR_NOMEM), "out of memory");
  ck_assert_str_eq(hy_status_str((hy_status)42), "unknown status");
  ck_assert_str_eq(hy_status_name((hy_status)-42), "HY_STATUS_UNKNOWN");
  // Every listed status has its own name and message, and names match the enum spelling.
  const hy_status all[] = {
#define X_(name, value, msg) name,
      HY_STATUS_LIST(X_)
#undef X_
  };
  const char* spelled[] = {
#define X_(name, value, msg) #name,
      HY_STATUS_LIST(X_)
#undef X_
  };
  const size_t n = sizeof all / sizeof all[0];
  for (size_t i = 0; i < n; i++) {
    ck_assert_str_eq(hy_status_name(all[i]), spelled[i]);
    ck_assert_uint_gt(strlen(hy_status_str(all[i])), 0);
    ck_assert_str_ne(hy_status_str(all[i]), "unknown status");
    for (size_t j = 0; j < i; j++) {
      ck_assert_int_ne(all[i], all[j]);
      ck_assert_str_ne(hy_status_str(all[i]), hy_status_str(all[j]));
    }
  }
  // The sign convention: warnings positive, errors negative.
  ck_assert_int_gt(HY_WARN_SINGULAR, 0);
  ck_assert_int_lt(HY_ERR_ARENA, 0);
}
END_TEST

START_TEST(error_set_records_location) {
  hy_error e;
  memset(&e, 0x5A, sizeof e);
  const int line = __LINE__ + 1;
  hy_status s = HY_FAIL(&e, HY_ERR_MODEL, "body %d has mass %g", 3, -1.5);
  ck_assert_int_eq(s, HY_ERR_MODEL);
  ck_assert_int_eq(e.code, HY_ERR_MODEL);
  ck_assert_str_eq(e.msg, "body 3 has mass -1.5");
  ck_assert_ptr_nonnull(strstr(e.func, "error_set_records_location"));
  ck_assert_ptr_nonnull(strstr(e.file, "test_core_error.c"));
  ck_assert_int_eq(e.line, line);
  ck_assert_str_eq(e.src_path, "");
  ck_assert_int_eq(e.src_line, 0);
  char buf[600];
  hy_error_format(&e, buf, sizeof buf);
  ck_assert_str_eq(buf, "body 3 has mass -1.5");
  // A NULL record is allowed and still gives the code back.
  ck_assert_int_eq(HY_FAIL(NULL, HY_ERR_IO, "x"), HY_ERR_IO);
  ck_assert_int_eq(hy_error_set_src(NULL, HY_ERR_PARSE, "f", 1, 1, "x"), HY_ERR_PARSE);
}
END_TEST

START_TEST(error_src_and_format) {
  hy_error e;
  hy_error_set_src(&e, HY_ERR_PARSE, "models/a.yaml", 12, 5, "unknown key '%s'", "mas");
  ck_assert_int_eq(e.code, HY_ERR_PARSE);
  ck_assert_str_eq(e.src_path, "models/a.yaml");
  ck_assert_int_eq(e.src_line, 12);
  ck_assert_int_eq(e.src_col, 5);
  char buf[600];
  hy_error_format(&e, buf, sizeof buf);
  ck_assert_str_eq(buf, "models/a.yaml:12:5: unknown key 'mas'");
  // Unknown column, then unknown line.
  hy_error_set_src(&e, HY_ERR_MODEL, "m.yaml", 3, 0, "bad");
  hy_error_format(&e, buf, sizeof buf);
  ck_assert_str_eq(buf, "m.yaml:3: bad");
  hy_error_set_src(&e, HY_ERR_IO, "m.yaml", 0, 0, "cannot open");
  hy_error_format(&e, buf, sizeof buf);
  ck_assert_str_eq(buf, "m.yaml: cannot open");
  // A later error without position clears the old position.
  HY_FAIL(&e, HY_ERR_ARG, "n = %d", -1);
  hy_error_format(&e, buf, sizeof buf);
  ck_assert_str_eq(buf, "n = -1");
  // A small buffer truncates and stays terminated.
  hy_error_set_src(&e, HY_ERR_PARSE, "abcdef.yaml", 1, 2, "msg");
  char small[8];
  memset(small, 'X', sizeof small);
  hy_error_format(&e, small, sizeof small);
  ck_assert_str_eq(small, "abcdef.");
  hy_error_format(&e, small, 0);  // no write at all
  ck_assert_str_eq(small, "abcdef.");
}
END_TEST

START_TEST(error_messages_never_overflow) {
  // Overlong message and path are cut to the record's arrays; the fields after them survive.
  static char longtext[4000];
  memset(longtext, 'm', sizeof longtext - 1);
  longtext[sizeof longtext - 1] = '\0';
  hy_error e;
  HY_FAIL(&e, HY_ERR_MODEL, "%s", longtext);
  ck_assert_uint_eq(strlen(e.msg), sizeof e.msg - 1);
  ck_assert_ptr_nonnull(e.func);
  ck_assert_int_gt(e.line, 0);
  hy_error_set_src(&e, HY_ERR_PARSE, longtext, 7, 8, "%s%s", longtext, longtext);
  ck_assert_uint_eq(strlen(e.src_path), sizeof e.src_path - 1);
  ck_assert_uint_eq(strlen(e.msg), sizeof e.msg - 1);
  ck_assert_int_eq(e.src_line, 7);
  ck_assert_int_eq(e.src_col, 8);
  char buf[100];
  hy_error_format(&e, buf, sizeof buf);
  ck_assert_uint_eq(strlen(buf), sizeof buf - 1);
}
END_TEST

START_TEST(option_defaults) {
  hy_option o = hy_option_default();
  ck_assert_double_eq(o.gravity[0], 0);
  ck_assert_double_eq(o.gravity[1], -9.81);
  ck_assert_double_eq(o.gravity[2], 0);
  ck_assert_double_eq(o.dt, 1e-3);
  ck_assert_double_eq(o.t_end, 10);
  ck_assert_int_eq(o.integrator, HY_INTEG_AUTO);
  ck_assert_int_eq(o.formulation, HY_FORM_AUTO);
  ck_assert_int_eq(o.strict_steps, 0);
  ck_assert_int_eq(o.error_control, HY_ERRCTL_NONE);
}
END_TEST

Suite* core_error_suite(void) {
  Suite* s = suite_create("core_error");
  TCase* tc = tcase_create("error");
  tcase_add_test(tc, status_strings);
  tcase_add_test(tc, error_set_records_location);
  tcase_add_test(tc, error_src_and_format);
  tcase_add_test(tc, error_messages_never_overflow);
  tcase_add_test(tc, option_defaults);
  suite_add_tcase(s, tc);
  return s;
}
