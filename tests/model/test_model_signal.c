// The signal kinds (docs/model-format.md, "signals"): each kind's values against its equation
// written out here at times that include its edges, compositions of several kinds, references
// in any order, the errors for unknown references, cycles and values out of range (the same
// message from YAML and from the builder API), the bound hy_signal_bound gives, and a crane whose
// valve follows a composed reference.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "hydyn/model.h"
#include "hydyn/names.h"
#include "hydyn/sim.h"

static const double kPi = 3.14159265358979323846;

//----- loading signals -------------------------------------------------------------------------

// A one-body model around the signal items `items` (one per line, each "  - {...}").
static const char kHead[] =
    "name: sig\n"
    "bodies:\n"
    "  - {name: b, mass: 1, inertia: [1, 1, 1]}\n"
    "joints:\n"
    "  - {name: j, type: revolute, parent: ground, child: b}\n"
    "signals:\n";

static char text_buf[8192];

static hy_status load(const char* items, hy_model** m, hy_error* err) {
  snprintf(text_buf, sizeof text_buf, "%s%s", kHead, items);
  memset(err, 0, sizeof *err);
  *m = NULL;
  return hy_model_load_string(text_buf, strlen(text_buf), "mem/sig.yaml", m, err);
}

static hy_model* load_ok(const char* items) {
  hy_model* m;
  hy_error err;
  hy_status st = load(items, &m, &err);
  ck_assert_msg(st == HY_OK, "%s:%d:%d: %s", err.src_path, err.src_line, err.src_col, err.msg);
  return m;
}

static double eval(const hy_model* m, const char* name, double t) {
  const int k = hy_model_signal(m, name);
  ck_assert_msg(k >= 0, "no signal '%s'", name);
  return hy_signal_eval(m, k, t);
}

// Line and column of the first occurrence of `what` among the signals of the loaded text
// (1-based).
static void place_of(const char* what, int* line, int* col) {
  const char* at = strstr(strstr(text_buf, "signals:"), what);
  ck_assert_msg(at != NULL, "'%s' not in the text", what);
  *line = 1;
  const char* bol = text_buf;
  for (const char* p = text_buf; p < at; p++) {
    if (*p == '\n') (*line)++, bol = p + 1;
  }
  *col = (int)(at - bol) + 1;
}

// Loading fails with HY_ERR_MODEL at `where` (the first character of that text) with a message
// that holds `msg`.
static void load_fails(const char* items, const char* where, const char* msg) {
  hy_model* m;
  hy_error err;
  hy_status st = load(items, &m, &err);
  ck_assert_msg(st == HY_ERR_MODEL, "expected a model error '%s', got status %d (%s)", msg, st,
                err.msg);
  ck_assert_ptr_null(m);
  ck_assert_msg(strstr(err.msg, msg) != NULL, "message '%s' lacks '%s'", err.msg, msg);
  int line, col;
  place_of(where, &line, &col);
  ck_assert_str_eq(err.src_path, "mem/sig.yaml");
  ck_assert_msg(err.src_line == line && err.src_col == col, "'%s' at %d:%d, expected %d:%d",
                err.msg, err.src_line, err.src_col, line, col);
}

#define TOL 1e-14

//----- each kind -------------------------------------------------------------------------------

// C1 smoothstep of the step's rise, as the docs give it: 3 x^2 - 2 x^3.
static double smoothstep(double x) { return 3.0 * x * x - 2.0 * x * x * x; }

START_TEST(test_step) {
  hy_model* m = load_ok(
      "  - {name: sharp, step: {t0: 1, from: 2, to: -3}}\n"
      "  - {name: smooth, step: {t0: 1, from: 2, to: -3, rise: 0.5}}\n"
      "  - {name: unit, step: {}}\n");
  // sharp: `from` before t0, `to` at t0 and after
  ck_assert_double_eq(eval(m, "sharp", -5), 2);
  ck_assert_double_eq(eval(m, "sharp", nextafter(1.0, 0.0)), 2);
  ck_assert_double_eq(eval(m, "sharp", 1.0), -3);
  ck_assert_double_eq(eval(m, "sharp", 7.0), -3);
  // defaults: a unit step at 0
  ck_assert_double_eq(eval(m, "unit", -1e-300), 0);
  ck_assert_double_eq(eval(m, "unit", 0), 1);
  // smooth: from + (to - from) s((t - t0) / rise) on [t0, t0 + rise]
  ck_assert_double_eq(eval(m, "smooth", 0.5), 2);
  ck_assert_double_eq(eval(m, "smooth", 1.0), 2);
  const double ts[] = {1.05, 1.1, 1.25, 1.4, 1.49};
  for (int i = 0; i < 5; i++) {
    const double want = 2.0 - 5.0 * smoothstep((ts[i] - 1.0) / 0.5);
    ck_assert_double_eq_tol(eval(m, "smooth", ts[i]), want, TOL);
  }
  ck_assert_double_eq_tol(eval(m, "smooth", 1.25), -0.5, TOL);  // halfway
  ck_assert_double_eq(eval(m, "smooth", 1.5), -3);
  ck_assert_double_eq(eval(m, "smooth", 9.0), -3);
  // C1: continuous with zero slope at both ends of the rise (one-sided differences: O(h))
  const double h = 1e-6, ends[2] = {1.0, 1.5};
  for (int e = 0; e < 2; e++) {
    const double left = (eval(m, "smooth", ends[e]) - eval(m, "smooth", ends[e] - h)) / h;
    const double right = (eval(m, "smooth", ends[e] + h) - eval(m, "smooth", ends[e])) / h;
    ck_assert_double_le(fabs(left), 1e-4);
    ck_assert_double_le(fabs(right), 1e-4);
  }
  // and a slope of 1.5 (to - from) / rise at the middle
  const double mid = (eval(m, "smooth", 1.25 + h) - eval(m, "smooth", 1.25 - h)) / (2 * h);
  ck_assert_double_eq_tol(mid, -1.5 * 5.0 / 0.5, 1e-6);
  hy_model_free(m);
}
END_TEST

START_TEST(test_ramp) {
  hy_model* m = load_ok(
      "  - {name: r, ramp: {t0: 1, t1: 3, from: -1, to: 3}}\n"
      "  - {name: unit, ramp: {t1: 4}}\n");
  ck_assert_double_eq(eval(m, "r", -2), -1);
  ck_assert_double_eq(eval(m, "r", 1), -1);
  ck_assert_double_eq_tol(eval(m, "r", 1.5), 0, TOL);
  ck_assert_double_eq_tol(eval(m, "r", 2), 1, TOL);
  ck_assert_double_eq_tol(eval(m, "r", 2.75), 2.5, TOL);
  ck_assert_double_eq(eval(m, "r", 3), 3);
  ck_assert_double_eq(eval(m, "r", 30), 3);
  // defaults from 0, to 1, t0 0
  ck_assert_double_eq(eval(m, "unit", -1), 0);
  ck_assert_double_eq(eval(m, "unit", 0), 0);
  ck_assert_double_eq_tol(eval(m, "unit", 1), 0.25, TOL);
  ck_assert_double_eq(eval(m, "unit", 4), 1);
  hy_model_free(m);
}
END_TEST

START_TEST(test_sine) {
  hy_model* m = load_ok(
      "  - {name: s, sine: {amplitude: 2, frequency: 0.5, phase: 0.3, offset: 1, t0: 0.25}}\n"
      "  - {name: env, ramp: {t0: 1, t1: 2, from: 0, to: 0.5}}\n"
      "  - {name: faded, sine: {amplitude: 3, frequency: 4, envelope: env}}\n"
      "  - {name: plain, sine: {frequency: 1}}\n");
  const double ts[] = {-1.3, 0, 0.25, 0.6, 1.0, 1.7, 2.0, 3.14};
  for (int i = 0; i < 8; i++) {
    const double t = ts[i];
    ck_assert_double_eq_tol(eval(m, "s", t), 1 + 2 * sin(kPi * (t - 0.25) + 0.3), 4 * TOL);
    const double e = t <= 1 ? 0 : t >= 2 ? 0.5 : 0.5 * (t - 1);
    ck_assert_double_eq_tol(eval(m, "faded", t), 3 * e * sin(8 * kPi * t), 16 * TOL);
    ck_assert_double_eq_tol(eval(m, "plain", t), sin(2 * kPi * t), 16 * TOL);
  }
  // at t0 the phase alone; before the envelope rises, the offset alone
  ck_assert_double_eq_tol(eval(m, "s", 0.25), 1 + 2 * sin(0.3), TOL);
  ck_assert_double_eq(eval(m, "faded", 0.7), 0);
  hy_model_free(m);
}
END_TEST

START_TEST(test_periodic) {
  // saw(u) = 2 u on [0, 4]: the last value of a period (8) differs from the first (0)
  hy_model* m = load_ok(
      "  - {name: saw, table: [[0, 0], [4, 8]]}\n"
      "  - {name: cyc, periodic: {signal: saw, period: 4, t0: 1}}\n"
      "  - {name: fast, periodic: {signal: saw, period: 0.5, t0: 0.25}}\n"
      "  - {name: from0, periodic: {signal: saw, period: 2}}\n"
      "  - {name: line, ramp: {t0: -2, t1: 2, from: -4, to: 4}}\n"
      "  - {name: late, periodic: {signal: line, period: 2, t0: 1}}\n");
  // other(0) before t0 also for a signal that has other values before 0 (line(-1) = -2)
  ck_assert_double_eq(eval(m, "late", 0), 0);
  ck_assert_double_eq(eval(m, "late", -7), 0);
  ck_assert_double_eq_tol(eval(m, "late", 2.5), 3, TOL);
  // before t0: the start of the cycle, other(0)
  ck_assert_double_eq(eval(m, "cyc", -3), 0);
  ck_assert_double_eq(eval(m, "cyc", 0.999), 0);
  ck_assert_double_eq(eval(m, "cyc", 1), 0);
  ck_assert_double_eq_tol(eval(m, "cyc", 3), 4, TOL);
  ck_assert_double_eq_tol(eval(m, "cyc", 4.75), 7.5, TOL);
  // exactly at period boundaries: the start of the next period, not the end of the last
  for (int k = 1; k <= 5; k++) ck_assert_double_eq(eval(m, "cyc", 1 + 4.0 * k), 0);
  ck_assert_double_eq_tol(eval(m, "cyc", nextafter(5.0, 0.0)), 8, 1e-14);
  ck_assert_double_eq_tol(eval(m, "cyc", 10.5), 3, TOL);  // 9.5 = 2 periods + 1.5
  // many boundaries of a short period (t0 + k period exact in binary)
  for (int k = 0; k <= 2000; k++) ck_assert_double_eq(eval(m, "fast", 0.25 + 0.5 * k), 0);
  for (int k = 0; k < 200; k++) {
    const double t = 0.25 + 0.5 * k + 0.125;
    ck_assert_double_eq_tol(eval(m, "fast", t), 0.25, 1e-12);
  }
  // t0 defaults to 0
  ck_assert_double_eq_tol(eval(m, "from0", 2.5), 1, TOL);
  ck_assert_double_eq(eval(m, "from0", -0.5), 0);
  hy_model_free(m);
}
END_TEST

// The composition model: every kind, several levels deep, most referring to signals defined
// after them.
static const char kComposed[] =
    "  - {name: total, sum: [r, s, c]}\n"
    "  - {name: prod, product: [r, om, sc]}\n"
    "  - {name: cyc, periodic: {signal: total, period: 1.25, t0: 0.5}}\n"
    "  - {name: r, ramp: {t0: 0.5, t1: 1.5, from: -1, to: 2}}\n"
    "  - {name: s, sine: {amplitude: 0.75, frequency: 2, phase: 0.1, offset: 0.2, "
    "envelope: r}}\n"
    "  - {name: c, clamp: {signal: s, min: -0.3, max: 0.4}}\n"
    "  - {name: om, one_minus: r}\n"
    "  - {name: sc, scale: {signal: s, gain: -2.5, offset: 0.125}}\n"
    "  - {name: upper, clamp: {signal: sc, max: 0}}\n"
    "  - {name: lower, clamp: {signal: sc, min: 0.5}}\n"
    "  - {name: st, step: {t0: 0.8, from: 1, to: 3, rise: 0.4}}\n"
    "  - {name: mix, sum: [st, upper, prod]}\n";

// The same signals written out.
static double c_r(double t) { return t <= 0.5 ? -1 : t >= 1.5 ? 2 : -1 + 3 * (t - 0.5); }
static double c_s(double t) { return 0.2 + 0.75 * c_r(t) * sin(4 * kPi * t + 0.1); }
static double c_c(double t) {
  const double s = c_s(t);
  return s < -0.3 ? -0.3 : s > 0.4 ? 0.4 : s;
}
static double c_total(double t) { return c_r(t) + c_s(t) + c_c(t); }
static double c_sc(double t) { return -2.5 * c_s(t) + 0.125; }
static double c_prod(double t) { return c_r(t) * (1 - c_r(t)) * c_sc(t); }
static double c_cyc(double t) {
  if (t < 0.5) return c_total(0);
  const double k = floor((t - 0.5) / 1.25);
  return c_total(t - 0.5 - k * 1.25);
}
static double c_st(double t) {
  if (t < 0.8) return 1;
  if (t >= 1.2) return 3;
  return 1 + 2 * smoothstep((t - 0.8) / 0.4);
}
static double c_mix(double t) { return c_st(t) + fmin(c_sc(t), 0) + c_prod(t); }

START_TEST(test_composition) {
  hy_model* m = load_ok(kComposed);
  const double ts[] = {-0.4, 0, 0.5, 0.61, 0.77, 0.9, 1.05, 1.33, 1.5, 1.9, 2.2, 3.4, 6.3};
  for (int i = 0; i < 13; i++) {
    const double t = ts[i];
    ck_assert_double_eq_tol(eval(m, "total", t), c_total(t), 1e-13);
    ck_assert_double_eq_tol(eval(m, "prod", t), c_prod(t), 1e-13);
    ck_assert_double_eq_tol(eval(m, "cyc", t), c_cyc(t), 1e-13);
    ck_assert_double_eq_tol(eval(m, "om", t), 1 - c_r(t), 1e-13);
    ck_assert_double_eq_tol(eval(m, "upper", t), fmin(c_sc(t), 0), 1e-13);
    ck_assert_double_eq_tol(eval(m, "lower", t), fmax(c_sc(t), 0.5), 1e-13);
    ck_assert_double_eq_tol(eval(m, "mix", t), c_mix(t), 1e-13);
  }
  // the clamps bite at these times
  int low = 0, high = 0;
  for (int i = 0; i < 13; i++) {
    low += c_s(ts[i]) < -0.3;
    high += c_s(ts[i]) > 0.4;
  }
  ck_assert_int_gt(low, 0);
  ck_assert_int_gt(high, 0);
  // the compiled references: indices of the named signals, in the order given
  const int total = hy_model_signal(m, "total");
  ck_assert_int_eq(m->sig_kind[total], HY_SIGNAL_SUM);
  ck_assert_int_eq(m->sig_narg[total], 3);
  ck_assert_int_eq(m->sig_npoint[total], 0);
  ck_assert_int_eq(m->sig_arg[m->sig_argadr[total] + 0], hy_model_signal(m, "r"));
  ck_assert_int_eq(m->sig_arg[m->sig_argadr[total] + 2], hy_model_signal(m, "c"));
  ck_assert_int_eq(m->sizes.nsigarg, 3 + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 3);
  hy_model_free(m);
}
END_TEST

// Evaluation allocates nothing and a copied model evaluates alike.
START_TEST(test_no_allocation) {
  hy_model* m = load_ok(kComposed);
  hy_model* c = NULL;
  ck_assert_int_eq(hy_model_copy(m, &c), HY_OK);
  double sum = 0;
  hy_test_count_allocs_begin();
  for (int k = 0; k < m->sizes.nsig; k++) {
    for (int i = 0; i < 50; i++) sum += hy_signal_eval(m, k, -1 + 0.17 * i);
  }
  ck_assert_int_eq(hy_test_count_allocs_end(), 0);
  double sum_c = 0;
  for (int k = 0; k < c->sizes.nsig; k++) {
    for (int i = 0; i < 50; i++) sum_c += hy_signal_eval(c, k, -1 + 0.17 * i);
  }
  ck_assert(isfinite(sum));
  ck_assert_double_eq(sum, sum_c);
  hy_model_free(c);
  hy_model_free(m);
}
END_TEST

// Failing each allocation of loading the composition in turn (the references in the loader and
// the spec, the cycle check) gives HY_ERR_NOMEM with nothing left behind.
START_TEST(test_alloc_failure) {
  snprintf(text_buf, sizeof text_buf, "%s%s", kHead, kComposed);
  for (long k = 1;; k++) {
    hy_test_hook_begin(k);
    hy_model* m = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    hy_status st = hy_model_load_string(text_buf, strlen(text_buf), "mem/sig.yaml", &m, &err);
    const long calls = hy_test_hook_calls();
    if (st == HY_OK) hy_model_free(m);
    const long live = hy_test_hook_live();
    hy_test_hook_end();
    ck_assert_msg(live == 0, "failing allocation %ld: %ld blocks leaked", k, live);
    if (calls < k) {
      ck_assert_int_eq(st, HY_OK);
      ck_assert_int_gt(k, 20);
      break;
    }
    ck_assert_msg(st == HY_ERR_NOMEM, "failing allocation %ld gave %d: %s", k, st, err.msg);
    ck_assert_ptr_null(m);
  }
}
END_TEST

// The work cycle of docs/model-format.md ("signals", "Example: a work cycle") loads and gives its
// equations' values.
START_TEST(test_doc_example) {
  FILE* f = fopen(HY_SOURCE_DIR "/docs/model-format.md", "rb");
  ck_assert_ptr_nonnull(f);
  static char doc[1 << 17];
  const size_t size = fread(doc, 1, sizeof doc - 1, f);
  fclose(f);
  ck_assert_int_lt(size, sizeof doc - 1);
  doc[size] = 0;
  const char* at = strstr(doc, "### Example: a work cycle");
  ck_assert_ptr_nonnull(at);
  const char* start = strstr(at, "```\nsignals:\n");
  ck_assert_ptr_nonnull(start);
  start += strlen("```\nsignals:\n");
  const char* end = strstr(start, "```");
  ck_assert_ptr_nonnull(end);
  static char items[4096];
  ck_assert_int_lt(end - start, sizeof items);
  memcpy(items, start, (size_t)(end - start));
  items[end - start] = 0;
  hy_model* m = load_ok(items);
  ck_assert_int_eq(m->sizes.nsig, 6);
  const double ts[] = {0, 1, 1.5, 2.25, 3, 3.7, 6.1};
  for (int i = 0; i < 7; i++) {
    const double t = ts[i];
    const double lift = t <= 1 ? 0 : t >= 3 ? 1 : 0.5 * (t - 1);
    const double sw = 2 * lift * sin(kPi * t);
    ck_assert_double_eq_tol(eval(m, "both", t), lift + sw, 1e-13);
    ck_assert_double_eq_tol(eval(m, "U_ref", t), fmax(-10, fmin(10, 8 * (lift + sw))), 1e-12);
    const double u = fmod(t, 4.0);
    const double lift_u = u <= 1 ? 0 : u >= 3 ? 1 : 0.5 * (u - 1);
    ck_assert_double_eq_tol(eval(m, "cyc", t), 2 * lift_u * sin(kPi * u), 1e-13);
  }
  hy_model_free(m);
}
END_TEST

//----- bounds ----------------------------------------------------------------------------------

START_TEST(test_bound) {
  hy_model* m = load_ok(
      "  - {name: tab, interpolation: step, table: [[0, 1], [1, -4], [2, 2]]}\n"
      "  - {name: st, step: {t0: 1, from: -2, to: 0.5, rise: 1}}\n"
      "  - {name: cyc, periodic: {signal: tab, period: 1.5}}\n");
  ck_assert_double_eq(hy_signal_bound(m, hy_model_signal(m, "tab")), 4);  // attained
  ck_assert_double_eq(hy_signal_bound(m, hy_model_signal(m, "cyc")), 4);
  ck_assert_double_eq(hy_signal_bound(m, hy_model_signal(m, "st")), 2);
  ck_assert_double_eq(hy_signal_bound(m, -1), 1);
  hy_model_free(m);
  // every signal of the composition stays within its bound on a fine grid
  m = load_ok(kComposed);
  for (int k = 0; k < m->sizes.nsig; k++) {
    const double b = hy_signal_bound(m, k);
    double top = 0;
    for (int i = 0; i <= 8000; i++) top = fmax(top, fabs(hy_signal_eval(m, k, -1 + 1e-3 * i)));
    ck_assert_msg(top <= b, "signal %d: |value| %g above its bound %g", k, top, b);
    ck_assert_msg(top > 0 && b < 20 * top, "signal %d: bound %g far above %g", k, b, top);
  }
  hy_model_free(m);
}
END_TEST

//----- references --------------------------------------------------------------------------------

START_TEST(test_unknown_reference) {
  load_fails(
      "  - {name: lift, ramp: {t1: 1}}\n"
      "  - {name: both, sum: [lift, nope]}\n",
      "{name: both", "signal 'both': sum[1]: signal 'nope' does not exist");
  load_fails("  - {name: x, scale: {signal: gone, gain: 2}}\n", "{name: x",
             "signal 'x': signal: signal 'gone' does not exist");
  load_fails("  - {name: x, sine: {frequency: 1, envelope: gone}}\n", "{name: x",
             "signal 'x': envelope: signal 'gone' does not exist");
  load_fails("  - {name: x, one_minus: gone}\n", "{name: x",
             "signal 'x': one_minus[0]: signal 'gone' does not exist");
  // a load's signal may be any kind, and an unknown one is still refused
  hy_model* m = load_ok("  - {name: x, one_minus: y}\n  - {name: y, step: {t0: 2}}\n");
  ck_assert_double_eq(eval(m, "x", 1), 1);
  ck_assert_double_eq(eval(m, "x", 2), 0);
  hy_model_free(m);
}
END_TEST

START_TEST(test_cycle) {
  // b -> c -> a -> b, found from `a` but listed from `b`, the first defined of the three
  load_fails(
      "  - {name: x, ramp: {t1: 1}}\n"
      "  - {name: b, scale: {signal: c}}\n"
      "  - {name: a, one_minus: b}\n"
      "  - {name: c, sum: [x, a]}\n",
      "{name: b",
      "signal 'b': the signals refer to each other in a cycle: 'b' -> 'c' -> 'a' -> 'b'");
  load_fails("  - {name: x, ramp: {t1: 1}}\n  - {name: self, clamp: {signal: self, max: 1}}\n",
             "{name: self",
             "signal 'self': the signals refer to each other in a cycle: "
             "'self' -> 'self'");
  load_fails(
      "  - {name: p, periodic: {signal: q, period: 1}}\n"
      "  - {name: q, sine: {frequency: 1, envelope: p}}\n",
      "{name: p", "cycle: 'p' -> 'q' -> 'p'");
  // a signal used twice is no cycle
  hy_model* m = load_ok(
      "  - {name: r, ramp: {t1: 2}}\n"
      "  - {name: sq, product: [r, r]}\n"
      "  - {name: d, sum: [sq, r, sq]}\n");
  ck_assert_double_eq_tol(eval(m, "d", 1), 0.25 + 0.5 + 0.25, TOL);
  hy_model_free(m);
}
END_TEST

//----- form and range errors ---------------------------------------------------------------------

START_TEST(test_form_errors) {
  load_fails("  - {name: x, ramp: {t1: 1}, step: {t0: 1}}\n",
             "step:", "not both 'ramp' and 'step'");
  load_fails("  - {name: x, table: [[0, 1]], sum: [y]}\n", "sum:", "not both 'table' and 'sum'");
  load_fails("  - {name: x}\n", "{name: x", "or one of the kinds 'step', 'ramp'");
  load_fails("  - {name: x, interpolation: step, ramp: {t1: 1}}\n", "interpolation",
             "'interpolation' applies to a 'table' or 'file' only, not to 'ramp'");
  load_fails("  - {name: x, ramp: {t0: 1}}\n", "{t0: 1}",
             "ramp: key 't1' is required (a number, s)");
  load_fails("  - {name: x, periodic: {period: 1}}\n", "{period",
             "periodic: key 'signal' is required");
  load_fails("  - {name: x, sine: {amplitude: 1}}\n", "{amplitude",
             "sine: key 'frequency' is required (a number, Hz)");
  load_fails("  - {name: x, ramp: {t1: 1, rise: 2}}\n", "rise",
             "unknown key 'rise' in 'ramp' of signal 'x' (expected one of: t0, t1, from, to)");
  load_fails("  - {name: x, sum: []}\n", "[]", "sum: expected a non-empty list of signal names");
  load_fails("  - {name: x, product: y}\n", "y}", "product: expected a non-empty list");
  load_fails("  - {name: x, ramp: [1, 2]}\n", "[1, 2]", "ramp: expected a mapping with keys");
  load_fails("  - {name: x, step: {t0: one}}\n", "one", "t0");
}
END_TEST

// A bad signal `item` (YAML) and the same definition built in code must fail with one message.
typedef struct bad_row {
  const char* item;
  void (*edit)(hy_signal_def* d);
  const char* msg;
} bad_row;

static const char* const kOne[] = {"r"};
static const char* const kTwo[] = {"r", "r"};

static void e_period0(hy_signal_def* d) {
  d->kind = HY_SIGNAL_PERIODIC, d->period = 0, d->narg = 1, d->arg = kOne;
}
static void e_period_neg(hy_signal_def* d) {
  d->kind = HY_SIGNAL_PERIODIC, d->period = -2, d->narg = 1, d->arg = kOne;
}
static void e_t1_eq(hy_signal_def* d) { d->kind = HY_SIGNAL_RAMP, d->t0 = 2, d->t1 = 2; }
static void e_t1_lt(hy_signal_def* d) { d->kind = HY_SIGNAL_RAMP, d->t0 = 2, d->t1 = 1; }
static void e_freq(hy_signal_def* d) { d->kind = HY_SIGNAL_SINE, d->frequency = -1; }
static void e_rise(hy_signal_def* d) { d->kind = HY_SIGNAL_STEP, d->rise = -0.1; }
static void e_clamp(hy_signal_def* d) {
  d->kind = HY_SIGNAL_CLAMP, d->min = 2, d->max = 1, d->narg = 1, d->arg = kOne;
}

static const bad_row kBad[] = {
    {"{name: x, periodic: {signal: r, period: 0}}", e_period0,
     "signal 'x': period must be positive (s), got 0"},
    {"{name: x, periodic: {signal: r, period: -2}}", e_period_neg,
     "signal 'x': period must be positive (s), got -2"},
    {"{name: x, ramp: {t0: 2, t1: 2}}", e_t1_eq,
     "signal 'x': t1 (2 s) must be greater than t0 (2 s)"},
    {"{name: x, ramp: {t0: 2, t1: 1}}", e_t1_lt,
     "signal 'x': t1 (1 s) must be greater than t0 (2 s)"},
    {"{name: x, sine: {frequency: -1}}", e_freq, "signal 'x': frequency must be >= 0 (Hz), got -1"},
    {"{name: x, step: {rise: -0.1}}", e_rise, "signal 'x': rise must be >= 0 (s), got -0.1"},
    {"{name: x, clamp: {signal: r, min: 2, max: 1}}", e_clamp,
     "signal 'x': min (2) must not exceed max (1)"},
};

// The one-body model of kHead with signal r (a ramp) and `def`, compiled from code.
static hy_status build(const hy_signal_def* def, hy_model** m, hy_error* err) {
  hy_spec* s = NULL;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_body_def b = hy_body_def_default();
  strcpy(b.name, "b");
  b.mass = 1;
  b.inertia[0] = b.inertia[4] = b.inertia[8] = 1;
  ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
  hy_joint_def j = hy_joint_def_default();
  strcpy(j.name, "j");
  strcpy(j.child, "b");
  ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  hy_signal_def r = hy_signal_def_default();
  strcpy(r.name, "r");
  r.kind = HY_SIGNAL_RAMP;
  r.t1 = 1;
  ck_assert_int_eq(hy_spec_add_signal(s, &r), HY_OK);
  ck_assert_int_eq(hy_spec_add_signal(s, def), HY_OK);
  memset(err, 0, sizeof *err);
  *m = NULL;
  hy_status st = hy_model_compile(s, m, err);
  hy_spec_free(s);
  return st;
}

START_TEST(test_range_errors) {
  const bad_row* row = &kBad[_i];
  char items[256];
  snprintf(items, sizeof items, "  - {name: r, ramp: {t1: 1}}\n  - %s\n", row->item);
  load_fails(items, "{name: x", row->msg);
  hy_model* m;
  hy_error yaml_err, code_err;
  ck_assert_int_eq(load(items, &m, &yaml_err), HY_ERR_MODEL);
  hy_signal_def d = hy_signal_def_default();
  strcpy(d.name, "x");
  row->edit(&d);
  ck_assert_int_eq(build(&d, &m, &code_err), HY_ERR_MODEL);
  ck_assert_ptr_null(m);
  ck_assert_str_eq(code_err.msg, yaml_err.msg);
  ck_assert_int_eq(code_err.src_line, 0);  // built in code: no position
}
END_TEST

// What only the builder can get wrong: numbers a model file cannot write, counts of references
// and table points that do not fit the kind.
START_TEST(test_builder_errors) {
  hy_model* m;
  hy_error err;
  const double t[2] = {0, 1}, v[2] = {0, 1};
  hy_signal_def d = hy_signal_def_default();
  strcpy(d.name, "x");

  d.kind = HY_SIGNAL_STEP, d.t0 = NAN;
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "signal 'x': t0 must be a finite number (s), got nan");

  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.kind = HY_SIGNAL_SINE, d.amplitude = INFINITY;
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "signal 'x': amplitude must be a finite number (signal unit), got inf");

  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.kind = HY_SIGNAL_CLAMP, d.narg = 1, d.arg = kOne, d.min = INFINITY;
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "signal 'x': min must be a number, or -inf for none, got inf");

  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.kind = HY_SIGNAL_RAMP, d.t1 = 1, d.npoint = 2, d.t = t, d.value = v;
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "signal 'x': a ramp signal has no table points, got 2");

  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.kind = HY_SIGNAL_SCALE;
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "signal 'x': a scale signal refers to exactly one signal, got 0");

  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.kind = HY_SIGNAL_SUM;
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "signal 'x': a sum signal refers to at least 1 signal, got 0");

  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.kind = HY_SIGNAL_SINE, d.frequency = 1, d.narg = 2, d.arg = kTwo;
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg,
                   "signal 'x': a sine signal refers to at most 1 signal (its envelope), got 2");

  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.npoint = 2, d.t = t, d.value = v, d.narg = 1, d.arg = kOne;  // a table
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg,
                   "signal 'x': a table signal refers to no other signal, got 1 references");

  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.kind = (hy_signal_kind)42;
  ck_assert_int_eq(build(&d, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "signal 'x': unknown kind 42");

  // a name too long for the spec is refused when added
  char longname[HY_NAME_MAX + 1];
  memset(longname, 'a', HY_NAME_MAX);
  longname[HY_NAME_MAX] = 0;
  const char* const args[1] = {longname};
  hy_spec* s = NULL;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  d = hy_signal_def_default(), strcpy(d.name, "x");
  d.kind = HY_SIGNAL_ONE_MINUS, d.narg = 1, d.arg = args;
  ck_assert_int_eq(hy_spec_add_signal(s, &d), HY_ERR_ARG);
  d.arg = NULL;
  ck_assert_int_eq(hy_spec_add_signal(s, &d), HY_ERR_ARG);
  hy_spec_free(s);
}
END_TEST

// A model changed after compiling is checked again: a reference out of range or a cycle made by
// hand is refused before anything evaluates it.
START_TEST(test_check_compiled) {
  hy_model* m = load_ok(kComposed);
  hy_error err;
  const int total = hy_model_signal(m, "total");
  const int adr = m->sig_argadr[total];
  const int keep = m->sig_arg[adr];
  m->sig_arg[adr] = m->sizes.nsig;
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "signal 'total': reference 0 is to signal 12, which does not exist");
  m->sig_arg[adr] = hy_model_signal(m, "cyc");  // total -> cyc -> total
  ck_assert_int_eq(hy_model_check(m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg,
                   "signal 'total': the signals refer to each other in a cycle: 'total' -> "
                   "'cyc' -> 'total'");
  m->sig_arg[adr] = keep;
  ck_assert_int_eq(hy_model_check(m, &err), HY_OK);
  hy_model_free(m);
}
END_TEST

//----- the builder API -------------------------------------------------------------------------

// The composition model built in code evaluates bit for bit as the one loaded from YAML, and
// the defaults are those documented.
START_TEST(test_builder) {
  hy_signal_def d = hy_signal_def_default();
  ck_assert_int_eq(d.kind, HY_SIGNAL_TABLE);
  ck_assert_int_eq(d.interp, HY_INTERP_LINEAR);
  ck_assert_double_eq(d.to, 1);
  ck_assert_double_eq(d.amplitude, 1);
  ck_assert_double_eq(d.gain, 1);
  ck_assert(d.min == -INFINITY && d.max == INFINITY);
  ck_assert(d.from == 0 && d.t0 == 0 && d.t1 == 0 && d.rise == 0 && d.period == 0);
  ck_assert(d.frequency == 0 && d.phase == 0 && d.offset == 0 && d.narg == 0 && !d.arg);

  // kind names round-trip; unknown ones are refused
  for (int k = 0; k < HY_SIGNAL_KIND_COUNT; k++) {
    hy_signal_kind back = HY_SIGNAL_KIND_COUNT;
    ck_assert_int_eq(hy_signal_kind_parse(hy_signal_kind_name((hy_signal_kind)k), &back), HY_OK);
    ck_assert_int_eq(back, k);
  }
  hy_signal_kind kind = HY_SIGNAL_SUM;
  ck_assert_int_eq(hy_signal_kind_parse("file", &kind), HY_ERR_ARG);
  ck_assert_int_eq(kind, HY_SIGNAL_SUM);
  ck_assert_str_eq(hy_signal_kind_name(HY_SIGNAL_KIND_COUNT), "unknown");
  ck_assert_str_eq(hy_signal_par_name(HY_SIGNAL_SINE, 4), "t0");
  ck_assert_str_eq(hy_signal_par_unit(HY_SIGNAL_SINE, 1), "Hz");
  ck_assert_ptr_null(hy_signal_par_name(HY_SIGNAL_SINE, 5));
  ck_assert_ptr_null(hy_signal_par_name(HY_SIGNAL_SUM, 0));

  // x = clamp(s, max 0.5) with s a sine enveloped by r: added before r, which the compiler
  // resolves all the same
  static const char* const env[] = {"r"};
  static const char* const sn[] = {"s"};
  d = hy_signal_def_default();
  strcpy(d.name, "s");
  d.kind = HY_SIGNAL_SINE, d.amplitude = 0.75, d.frequency = 2, d.phase = 0.1, d.offset = 0.2;
  d.narg = 1, d.arg = env;
  hy_signal_def cl = hy_signal_def_default();
  strcpy(cl.name, "x");
  cl.kind = HY_SIGNAL_CLAMP, cl.max = 0.5, cl.narg = 1, cl.arg = sn;
  hy_spec* s = NULL;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_body_def b = hy_body_def_default();
  strcpy(b.name, "b");
  b.mass = 1;
  b.inertia[0] = b.inertia[4] = b.inertia[8] = 1;
  ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
  hy_joint_def j = hy_joint_def_default();
  strcpy(j.name, "j");
  strcpy(j.child, "b");
  ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  ck_assert_int_eq(hy_spec_add_signal(s, &d), HY_OK);
  ck_assert_int_eq(hy_spec_add_signal(s, &cl), HY_OK);
  hy_signal_def r = hy_signal_def_default();
  strcpy(r.name, "r");
  r.kind = HY_SIGNAL_RAMP, r.t0 = 0.5, r.t1 = 1.5, r.from = -1, r.to = 2;
  ck_assert_int_eq(hy_spec_add_signal(s, &r), HY_OK);
  hy_model* mc = NULL;
  hy_error err;
  ck_assert_msg(hy_model_compile(s, &mc, &err) == HY_OK, "%s", err.msg);
  hy_spec_free(s);
  hy_model* my = load_ok(kComposed);
  for (int i = 0; i < 40; i++) {
    const double t = -0.5 + 0.1 * i;
    const double sy = eval(my, "s", t);
    ck_assert_double_eq(eval(mc, "s", t), sy);  // same bits
    ck_assert_double_eq(eval(mc, "x", t), fmin(sy, 0.5));
  }
  hy_model_free(my);
  hy_model_free(mc);
}
END_TEST

//----- a valve driven by a composed reference ----------------------------------------------------

// U_ref of tests/data/signals.yaml written out: clamp(12 lift (cycle + wobble), -10, 10).
static double lift(double t) { return t <= 0.2 ? 0 : t >= 0.3 ? 1 : (t - 0.2) / 0.1; }
static double push(double u) {
  if (u < 1.0) return 1;
  if (u >= 1.2) return -1;
  return 1 - 2 * smoothstep((u - 1.0) / 0.2);
}
static double u_ref(double t) {
  const double cycle = t < 0.2 ? push(0) : push(fmod(t - 0.2, 2.0));
  const double wobble = 0.5 * lift(t) * sin(10 * kPi * t + 0.3);
  return fmax(-10, fmin(10, 12 * lift(t) * (cycle + wobble)));
}

// The spool follows its reference with the lag of seed 000 Eq. 27, stepped by the trapezoidal
// rule in closed form (hy_hyd_spool_lag_step): U1 = ((1 - a) U0 + a (r0 + r1)) / (1 + a),
// a = h / (2 tau). The same recurrence on u_ref must give the spool's positions step by step,
// through the lift, the reversal of the cycle at 1.2 s and the clamping at 10 V.
START_TEST(test_valve_reference) {
  hy_model* m = hy_test_load("tests/data/signals.yaml");
  ck_assert_int_eq(m->sizes.nvlv, 1);
  ck_assert_int_eq(m->vlv_sig[0], hy_model_signal(m, "U_ref"));
  hy_data* d = hy_test_make(m);
  const double tau = m->vlv_tau[0];
  double U = m->vlv_U0[0], top = 0, bottom = 0;
  int clamped = 0;
  for (int n = 0; n < 1500; n++) {
    const double t0 = d->time;
    hy_test_steps(m, d, 1);
    const double t1 = d->time, a = (t1 - t0) / (2 * tau);
    U = ((1 - a) * U + a * (u_ref(t0) + u_ref(t1))) / (1 + a);
    ck_assert_msg(fabs(d->U[0] - U) <= 1e-12 * fmax(1, fabs(U)),
                  "t = %g: U = %.17g, expected %.17g", t1, d->U[0], U);
    ck_assert_double_eq_tol(hy_signal_eval(m, m->vlv_sig[0], t1), u_ref(t1), 1e-12);
    top = fmax(top, d->U[0]);
    bottom = fmin(bottom, d->U[0]);
    clamped += fabs(u_ref(t1)) == 10;
  }
  ck_assert_double_eq_tol(d->time, 1.5, 1e-9);
  ck_assert_double_gt(top, 9.9);      // opened to the clamp
  ck_assert_double_lt(bottom, -9.9);  // and reversed
  ck_assert_int_gt(clamped, 100);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

Suite* model_signal_suite(void) {
  Suite* s = suite_create("model_signal");
  TCase* tc = tcase_create("kinds");
  tcase_add_test(tc, test_step);
  tcase_add_test(tc, test_ramp);
  tcase_add_test(tc, test_sine);
  tcase_add_test(tc, test_periodic);
  tcase_add_test(tc, test_composition);
  tcase_add_test(tc, test_no_allocation);
  tcase_add_test(tc, test_doc_example);
  tcase_add_test(tc, test_alloc_failure);
  tcase_add_test(tc, test_bound);
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_add_test(tc, test_unknown_reference);
  tcase_add_test(tc, test_cycle);
  tcase_add_test(tc, test_form_errors);
  tcase_add_loop_test(tc, test_range_errors, 0, (int)(sizeof kBad / sizeof kBad[0]));
  tcase_add_test(tc, test_builder_errors);
  tcase_add_test(tc, test_check_compiled);
  suite_add_tcase(s, tc);
  tc = tcase_create("use");
  tcase_add_test(tc, test_builder);
  tcase_add_test(tc, test_valve_reference);
  suite_add_tcase(s, tc);
  return s;
}
