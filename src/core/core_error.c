// Status table, error records and option defaults.
#include <stdarg.h>
#include <stdio.h>

#include "core/core.h"

const char* hy_status_str(hy_status s) {
  switch (s) {
#define HY_STATUS_STR_(name, value, msg) \
  case name:                             \
    return msg;
    HY_STATUS_LIST(HY_STATUS_STR_)
#undef HY_STATUS_STR_
  }
  return "unknown status";
}

const char* hy_status_name(hy_status s) {
  switch (s) {
#define HY_STATUS_NAME_(name, value, msg) \
  case name:                              \
    return #name;
    HY_STATUS_LIST(HY_STATUS_NAME_)
#undef HY_STATUS_NAME_
  }
  return "HY_STATUS_UNKNOWN";
}

static void format_msg(hy_error* e, const char* fmt, va_list ap) {
  if (fmt) {
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  } else {
    snprintf(e->msg, sizeof e->msg, "%s", hy_status_str(e->code));
  }
}

hy_status hy_error_set(hy_error* e, hy_status code, const char* func, const char* file, int line,
                       const char* fmt, ...) {
  if (!e) return code;
  e->code = code;
  e->func = func;
  e->file = file;
  e->line = line;
  // A new error replaces the old one entirely, position in the model file included.
  e->src_path[0] = '\0';
  e->src_line = 0;
  e->src_col = 0;
  va_list ap;
  va_start(ap, fmt);
  format_msg(e, fmt, ap);
  va_end(ap);
  return code;
}

hy_status hy_error_set_src(hy_error* e, hy_status code, const char* src_path, int src_line,
                           int src_col, const char* fmt, ...) {
  if (!e) return code;
  e->code = code;
  e->func = NULL;
  e->file = NULL;
  e->line = 0;
  snprintf(e->src_path, sizeof e->src_path, "%s", src_path ? src_path : "");
  e->src_line = src_line > 0 ? src_line : 0;
  e->src_col = src_col > 0 ? src_col : 0;
  va_list ap;
  va_start(ap, fmt);
  format_msg(e, fmt, ap);
  va_end(ap);
  return code;
}

void hy_error_format(const hy_error* e, char* buf, size_t size) {
  if (!buf || size == 0) return;
  if (!e) {
    buf[0] = '\0';
    return;
  }
  const char* msg = e->msg[0] ? e->msg : hy_status_str(e->code);
  if (e->src_path[0] && e->src_line > 0 && e->src_col > 0) {
    snprintf(buf, size, "%s:%d:%d: %s", e->src_path, e->src_line, e->src_col, msg);
  } else if (e->src_path[0] && e->src_line > 0) {
    snprintf(buf, size, "%s:%d: %s", e->src_path, e->src_line, msg);
  } else if (e->src_path[0]) {
    snprintf(buf, size, "%s: %s", e->src_path, msg);
  } else {
    snprintf(buf, size, "%s", msg);
  }
}

hy_option hy_option_default(void) {
  hy_option o = {
      .gravity = {0, -9.81, 0},
      .dt = 1e-3,
      .t_end = 10,
      .integrator = HY_INTEG_AUTO,
      .formulation = HY_FORM_AUTO,
      .tangent = HY_TANGENT_ANALYTIC,
      .penalty = 1e11,  // seed 000 Sect. 5
      .tol_pos = 1e-7,  // seed 000 Sect. 5
      .tol_p = 1e-2,    // seed 000 Sect. 5
      .tol_fric = 1e-7,  // seed 002 Sect. 5: 1e-7 m for the bristle deflection and the film
      .max_iter = 25,
      .reuse_tangent = 1,
      .partition_rcond = 0.1,
      .max_cuts = 12,
      .error_control = HY_ERRCTL_NONE,
      .error_tol_pos = 1e-6,
      .error_tol_p = 1e3,
      .max_memory = 4294967296.0,
      .baumgarte_xi = 1,      // critically damped constraint error (seed 001 Eqs. 2a-2b)
      .baumgarte_omega = 10,  // rad/s, the usual choice for ALI1 (seed 001 Sect. 2.1)
      .ode_tol = 1e-6,        // seed 004 Sect. 3: its delta = 1e-6 runs
      .threads = 1,
      .reactions = 0,
  };
  return o;
}
