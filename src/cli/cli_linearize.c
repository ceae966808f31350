// `hydyn linearize MODEL`: the linearized equations of motion about a reference state
// (003_f349169f78d6df41.txt): the Jacobian (the maximal reduction of Sect. 3, or the
// counterpart of Sect. 4.5 by central differences), its eigenvalues with natural frequencies and
// damping ratios, and the modes mapped back to every coordinate; printed, written as CSV, and
// the eigenvalues drawn in the complex plane.
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_figure.h"
#include "cli/cli_load.h"
#include "hydyn/hydyn.h"
#include "linear/linear.h"

#define NAME(arr, i) ((arr) + (size_t)(i) * HY_NAME_MAX)
// An eigenvalue within this fraction of the largest modulus is a zero eigenvalue.
#define ZERO_REL 1e-7
#define TWO_PI 6.283185307179586

static void usage(FILE* fp) {
  fputs(
      "usage: hydyn linearize MODEL [options]\n"
      "\n"
      "Linearizes MODEL's equations of motion, mechanics and hydraulics together, about a\n"
      "reference state (seed 003): prints the Jacobian J of the first-order system, its\n"
      "eigenvalues with natural frequencies and damping ratios, and the modes, and writes\n"
      "them as CSV.\n"
      "\n"
      "options:\n"
      "  --equilibrium        linearize about the initial state hydyn derives at t = 0 (loops\n"
      "                       closed, equilibrium forces and pressures): the default\n"
      "  --at T               run MODEL to t = T s first and linearize about that state\n"
      "  --method NAME        reduced (default): the maximal reduction, states [z_i, z_i_dot,\n"
      "                       p, w, U] with z_i the independent coordinates; fd: the\n"
      "                       counterpart, the index-1 ODE of all coordinates by central\n"
      "                       differences (2 (m + l) spurious zero eigenvalues)\n"
      "  --step H             fd: the relative difference step (default 1e-5)\n"
      "  --out PREFIX         write PREFIX-jacobian.csv, PREFIX-eigen.csv, PREFIX-modes.csv\n"
      "                       (default: <model name>-linear)\n"
      "  --no-out             write no files\n"
      "  --plot FILE          draw the eigenvalues in the complex plane (.png, .svg, .pdf)\n"
      "  --step-sweep LO:HI:N the counterpart at N steps from LO to HI (log-spaced): the\n"
      "                       relative error of each nonzero eigenvalue against the reduced\n"
      "                       Jacobian's, printed and written to PREFIX-step.csv (seed 003\n"
      "                       Fig. 14)\n"
      "  --step-plot FILE     draw that error against the step (log-log)\n"
      "  --simulate T         the linear system (seed 003 Eq. 94) beside the nonlinear run for\n"
      "                       T s from the nonlinear state at --from, written to\n"
      "                       PREFIX-simulate.csv with the largest differences printed\n"
      "  --from T0            where the linear simulation starts (default: the reference)\n"
      "  --parameters         list the model's named parameters and stop\n"
      "  --sensitivity LIST   derivatives of every nonzero eigenvalue with respect to the\n"
      "                       named parameters (comma-separated; central differences of the\n"
      "                       eigenvalues, the reference found again for each value)\n"
      "  --sweep P=A:B:N      the eigenvalues at N values of parameter P from A to B: a table\n"
      "                       (PREFIX-sweep.csv)\n"
      "  --sweep-plot FILE    the root locus of the sweep (the eigenvalues of every value)\n"
      "  --quiet              print the eigenvalues only, not J and the modes\n"
      "  -h, --help           show this help\n"
      "\n"
      "Exit status: 0 success, 1 model or linearization error, 2 bad command line.\n",
      fp);
}

typedef struct lin_args {
  const char* model;
  const char* out;
  const char* plot;
  double at, step;
  int has_at, no_out, quiet;
  double sweep_lo, sweep_hi;  // --step-sweep LO:HI:N, log-spaced
  int sweep_n;
  const char* step_plot;
  double simulate, from;  // --simulate T, --from T0
  int has_from;
  int list_params;          // --parameters
  const char* sensitivity;  // --sensitivity P,P,...
  char sweep_param[200];    // --sweep PARAM=A:B:N
  double sweep_a, sweep_b;
  int sweep_count;
  const char* sweep_plot;
  hy_lin_method method;
} lin_args;

static int parse(int argc, char** argv, lin_args* a) {
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(stdout);
      return HY_CLI_OK;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (a->model) {
        return hy_cli_usage_error("linearize", "unexpected argument '%s' (MODEL is '%s')", arg,
                                  a->model);
      }
      a->model = arg;
      continue;
    }
    if (strcmp(arg, "--equilibrium") == 0) {
      a->has_at = 0;
      continue;
    }
    if (strcmp(arg, "--no-out") == 0) {
      a->no_out = 1;
      continue;
    }
    if (strcmp(arg, "--quiet") == 0) {
      a->quiet = 1;
      continue;
    }
    if (strcmp(arg, "--parameters") == 0) {
      a->list_params = 1;
      continue;
    }
    static const char* const valued[] = {"--at",   "--method",     "--step",
                                         "--out",  "--plot",       "--step-sweep",
                                         "--step-plot", "--simulate",   "--from",
                                         "--sensitivity", "--sweep",    "--sweep-plot"};
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(argc, argv, &i, valued, 12, &val, msg, sizeof msg);
    switch (opt) {
      case -2: return hy_cli_usage_error("linearize", "%s", msg);
      case 0:
        if (hy_cli_parse_number(val, 1, &a->at)) {
          return hy_cli_usage_error("linearize", "invalid --at '%s': expected a time >= 0 (s)",
                                    val);
        }
        a->has_at = 1;
        break;
      case 1:
        if (strcmp(val, "reduced") == 0) {
          a->method = HY_LIN_REDUCED;
        } else if (strcmp(val, "fd") == 0) {
          a->method = HY_LIN_COUNTERPART;
        } else {
          return hy_cli_usage_error("linearize", "invalid --method '%s': expected reduced or fd",
                                    val);
        }
        break;
      case 2:
        if (hy_cli_parse_number(val, 0, &a->step) || a->step >= 1) {
          return hy_cli_usage_error("linearize", "invalid --step '%s': expected 0 < H < 1", val);
        }
        break;
      case 3:
        if (!val[0]) return hy_cli_usage_error("linearize", "--out needs a prefix");
        a->out = val;
        a->no_out = 0;
        break;
      case 4:
        if (!val[0]) return hy_cli_usage_error("linearize", "--plot needs a file name");
        a->plot = val;
        break;
      case 5: {
        char* end = NULL;
        a->sweep_lo = strtod(val, &end);
        if (end && *end == ':') a->sweep_hi = strtod(end + 1, &end);
        if (end && *end == ':') a->sweep_n = (int)strtol(end + 1, &end, 10);
        if (!end || *end || !(a->sweep_lo > 0) || !(a->sweep_hi > a->sweep_lo) ||
            !(a->sweep_hi < 1) || a->sweep_n < 2 || a->sweep_n > 200) {
          return hy_cli_usage_error("linearize",
                                    "invalid --step-sweep '%s': expected LO:HI:N with 0 < LO < HI "
                                    "< 1 and 2 <= N <= 200",
                                    val);
        }
        break;
      }
      case 6:
        if (!val[0]) return hy_cli_usage_error("linearize", "--step-plot needs a file name");
        a->step_plot = val;
        break;
      case 7:
        if (hy_cli_parse_number(val, 0, &a->simulate)) {
          return hy_cli_usage_error("linearize", "invalid --simulate '%s': expected a duration > 0 (s)",
                                    val);
        }
        break;
      case 8:
        if (hy_cli_parse_number(val, 1, &a->from)) {
          return hy_cli_usage_error("linearize", "invalid --from '%s': expected a time >= 0 (s)", val);
        }
        a->has_from = 1;
        break;
      case 9:
        if (!val[0]) return hy_cli_usage_error("linearize", "--sensitivity needs parameter names");
        a->sensitivity = val;
        break;
      case 10: {
        const char* eq = strchr(val, '=');
        char* end = NULL;
        if (eq && eq > val && (size_t)(eq - val) < sizeof a->sweep_param) {
          memcpy(a->sweep_param, val, (size_t)(eq - val));
          a->sweep_param[eq - val] = '\0';
          a->sweep_a = strtod(eq + 1, &end);
          if (end && *end == ':') a->sweep_b = strtod(end + 1, &end);
          if (end && *end == ':') a->sweep_count = (int)strtol(end + 1, &end, 10);
        }
        if (!end || *end || a->sweep_count < 2 || a->sweep_count > 1000 ||
            !(a->sweep_a != a->sweep_b)) {
          return hy_cli_usage_error("linearize",
                                    "invalid --sweep '%s': expected PARAM=A:B:N with A != B and "
                                    "2 <= N <= 1000", val);
        }
        break;
      }
      case 11:
        if (!val[0]) return hy_cli_usage_error("linearize", "--sweep-plot needs a file name");
        a->sweep_plot = val;
        break;
      default: return hy_cli_usage_error("linearize", "unknown option '%s'", arg);
    }
  }
  if (!a->model) return hy_cli_usage_error("linearize", "no model given");
  if (a->sweep_n > 0 && a->method != HY_LIN_REDUCED) {
    return hy_cli_usage_error("linearize",
                              "--step-sweep measures the counterpart against the reduced "
                              "Jacobian: use it with --method reduced (the default)");
  }
  return -1;
}

// What an eigenvalue is: a zero (|lambda| below ZERO_REL of the largest; a spool without
// dynamics gives one), a spool's lag (-1/tau of a first-order valve), a root of a second-order
// spool (lambda^2 + 2 zeta omega_n lambda + omega_n^2 = 0), or a mode.
static void classify(const hy_model* m, double re, double im, double top, char* buf,
                     size_t size) {
  const double mod = hypot(re, im);
  if (mod <= ZERO_REL * top) {
    snprintf(buf, size, "zero");
    return;
  }
  for (int v = 0; v < m->sizes.nvlv; v++) {
    if (m->vlv_spool[v] == HY_SPOOL_FIRST_ORDER) {
      const double lag = -1.0 / m->vlv_tau[v];
      if (im == 0 && fabs(re - lag) <= 1e-6 * fabs(lag)) {
        snprintf(buf, size, "spool %s (-1/tau)", NAME(m->vlv_name, v));
        return;
      }
    } else if (m->vlv_spool[v] == HY_SPOOL_SECOND_ORDER) {
      const double wn = 2.0 * HY_PI * m->vlv_fn[v], c = 2.0 * m->vlv_zeta[v] * wn;
      const double pr = re * re - im * im + c * re + wn * wn, pi = 2.0 * re * im + c * im;
      if (hypot(pr, pi) <= 1e-6 * (wn * wn + c * mod + mod * mod)) {
        snprintf(buf, size, "spool %s (omega_n, zeta)", NAME(m->vlv_name, v));
        return;
      }
    }
  }
  const char* trend = re < 0 ? "decaying" : re > 0 ? "growing" : "undamped";
  snprintf(buf, size, "%s, %s", im == 0 ? "real" : "oscillating", trend);
}

// The states of L written in full: every coordinate and velocity (through R_z), the pressures,
// friction states and spools: rows of a mode.
static int full_size(const hy_linear* L) { return 2 * L->nz + L->np + L->nw + L->nu; }

// The velocities of every coordinate are R_z times the rates of the coordinate states, which
// the first nq rows of J give (with nonholonomic constraints x_ad has no velocity state).
static void full_mode(const hy_linear* L, const double* v, double* out) {
  const int nq = L->nq, nz = L->nz, n = L->n;
  for (int z = 0; z < nz; z++) {
    double a = 0, b = 0;
    for (int k = 0; k < nq; k++) {
      double rate = 0;
      for (int j = 0; j < n; j++) rate += L->J[k * n + j] * v[j];
      a += L->Rz[z * nq + k] * v[k];
      b += L->Rz[z * nq + k] * rate;
    }
    out[z] = a;
    out[nz + z] = b;
  }
  for (int i = 0; i < L->np + L->nw + L->nu; i++) out[2 * nz + i] = v[nq + L->nv + i];
}

static void full_name(const hy_model* m, const hy_linear* L, int i, char* buf, size_t size) {
  const int nz = L->nz;
  if (i < 2 * nz) {
    const int z = i % nz;
    int joint = 0;
    for (int j = 0; j < m->sizes.nbody; j++) {
      if (m->jnt_zadr[j] == z) joint = j;
    }
    snprintf(buf, size, "%s:%s", i < nz ? "z" : "zd", NAME(m->jnt_name, joint));
    return;
  }
  hy_linear_state_name(m, L, i - 2 * nz + L->nq + L->nv, buf, size);
}

static FILE* open_csv(const char* prefix, const char* what, char* path, size_t size) {
  snprintf(path, size, "%s-%s.csv", prefix, what);
  FILE* fp = fopen(path, "w");
  if (!fp) fprintf(stderr, "hydyn linearize: cannot write '%s'\n", path);
  return fp;
}

static int write_files(const hy_model* m, const hy_linear* L, const char* prefix,
                       const double* re, const double* im, const double* vr, double top) {
  const int n = L->n, nf = full_size(L);
  char path[512], name[160];
  FILE* fp = open_csv(prefix, "jacobian", path, sizeof path);
  if (!fp) return HY_CLI_FAIL;
  fputs("state", fp);
  for (int j = 0; j < n; j++) {
    hy_linear_state_name(m, L, j, name, sizeof name);
    fprintf(fp, ",%s", name);
  }
  fputc('\n', fp);
  for (int i = 0; i < n; i++) {
    hy_linear_state_name(m, L, i, name, sizeof name);
    fprintf(fp, "%s", name);
    for (int j = 0; j < n; j++) fprintf(fp, ",%.17g", L->J[i * n + j]);
    fputc('\n', fp);
  }
  int bad = fclose(fp) != 0;
  fp = open_csv(prefix, "eigen", path, sizeof path);
  if (!fp) return HY_CLI_FAIL;
  fputs("k,re[1/s],im[rad/s],omega_n[rad/s],f_n[Hz],zeta,kind\n", fp);
  for (int k = 0; k < n; k++) {
    const double mod = hypot(re[k], im[k]);
    char kind[96];
    classify(m, re[k], im[k], top, kind, sizeof kind);
    fprintf(fp, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%s\n", k + 1, re[k], im[k], mod,
            mod / TWO_PI, mod > 0 ? -re[k] / mod : 0.0, kind);
  }
  bad |= fclose(fp) != 0;
  // modes: every coordinate, velocity, pressure, friction state and spool; a complex pair
  // gives its real and imaginary parts
  fp = open_csv(prefix, "modes", path, sizeof path);
  if (!fp) return HY_CLI_FAIL;
  double* v = malloc(sizeof(double) * (size_t)n);
  double* full = malloc(sizeof(double) * (size_t)nf * (size_t)n * 2);
  if (!v || !full) {
    free(v);
    free(full);
    fclose(fp);
    return HY_CLI_FAIL;
  }
  fputs("state", fp);
  for (int k = 0; k < n; k++) fprintf(fp, ",re:%d,im:%d", k + 1, k + 1);
  fputc('\n', fp);
  for (int k = 0; k < n; k++) {
    const int pair = im[k] != 0;
    const int kr = pair && im[k] < 0 ? k - 1 : k;  // the pair's first column holds its real part
    for (int i = 0; i < n; i++) v[i] = vr[i * n + kr];
    full_mode(L, v, full + (size_t)(2 * k) * nf);
    if (pair) {
      const double sgn = im[k] > 0 ? 1.0 : -1.0;
      for (int i = 0; i < n; i++) v[i] = sgn * vr[i * n + kr + 1];
      full_mode(L, v, full + (size_t)(2 * k + 1) * nf);
    } else {
      memset(full + (size_t)(2 * k + 1) * nf, 0, sizeof(double) * (size_t)nf);
    }
  }
  for (int i = 0; i < nf; i++) {
    full_name(m, L, i, name, sizeof name);
    fprintf(fp, "%s", name);
    for (int k = 0; k < n; k++) {
      fprintf(fp, ",%.17g,%.17g", full[(size_t)(2 * k) * nf + i], full[(size_t)(2 * k + 1) * nf + i]);
    }
    fputc('\n', fp);
  }
  bad |= fclose(fp) != 0;
  free(v);
  free(full);
  if (bad) {
    fprintf(stderr, "hydyn linearize: writing '%s' failed\n", path);
    return HY_CLI_FAIL;
  }
  return HY_CLI_OK;
}

static int plot(const hy_model* m, const double* re, const double* im, int n, const char* out) {
  // sorted by real part, so that the data file reads left to right
  double* x = malloc(sizeof(double) * (size_t)n);
  double* y = malloc(sizeof(double) * (size_t)n);
  if (!x || !y) {
    free(x);
    free(y);
    return HY_CLI_FAIL;
  }
  for (int i = 0; i < n; i++) x[i] = re[i], y[i] = im[i];
  for (int i = 1; i < n; i++) {
    for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
      double t = x[j];
      x[j] = x[j - 1], x[j - 1] = t;
      t = y[j];
      y[j] = y[j - 1], y[j - 1] = t;
    }
  }
  char title[160];
  snprintf(title, sizeof title, "%s: eigenvalues of the linearized system", m->name);
  const hy_fig_curve curve = {.y = y, .name = "im", .label = "eigenvalue", .unit = "rad/s",
                              .group = "Im(lambda)", .color = 0};
  const hy_fig fig = {.npoint = n, .x = x, .x_name = "Re(lambda)", .x_unit = "1/s", .curve = &curve,
                      .ncurve = 1, .title = title, .scatter = 1};
  char msg[256];
  const int rc = hy_fig_render(&fig, out, NULL, msg, sizeof msg);
  if (rc != HY_CLI_OK) fprintf(stderr, "hydyn linearize: %s\n", msg);
  free(x);
  free(y);
  return rc;
}

// seed 003 Fig. 14: the counterpart's eigenvalues at steps h from lo to hi against the reduced
// Jacobian's (exact in its hydraulic blocks): for each nonzero reduced eigenvalue, the relative
// distance to the nearest counterpart eigenvalue.
static int step_sweep(const lin_args* a, const hy_model* m, const hy_data* d, const double* re,
                      const double* im, int n, double top, const char* prefix) {
  int nk = 0;
  int* which = malloc(sizeof(int) * (size_t)n);
  const int ns = a->sweep_n;
  double* hs = malloc(sizeof(double) * (size_t)ns);
  double* errs = malloc(sizeof(double) * (size_t)ns * (size_t)n);
  if (!which || !hs || !errs) {
    free(which);
    free(hs);
    free(errs);
    return HY_CLI_FAIL;
  }
  for (int k = 0; k < n; k++) {
    if (hypot(re[k], im[k]) > ZERO_REL * top && im[k] >= 0) which[nk++] = k;
  }
  int rc = HY_CLI_OK;
  printf("\ncounterpart against the reduced Jacobian: relative error of each eigenvalue\n%12s",
         "step h");
  for (int q = 0; q < nk; q++) printf("  %10.4g%+.4gi", re[which[q]], im[which[q]]);
  putchar('\n');
  for (int i = 0; i < ns && rc == HY_CLI_OK; i++) {
    hs[i] = a->sweep_lo * pow(a->sweep_hi / a->sweep_lo, (double)i / (ns - 1));
    hy_linear* C = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    double* cre = NULL;
    double* cim = NULL;
    if (hy_linear_make(m, d, HY_LIN_COUNTERPART, hs[i], &C, &err) != HY_OK) {
      hy_cli_print_error(&err);
      rc = HY_CLI_FAIL;
      break;
    }
    cre = malloc(sizeof(double) * (size_t)C->n);
    cim = malloc(sizeof(double) * (size_t)C->n);
    if (!cre || !cim || hy_linear_eigen(C->n, C->J, cre, cim, NULL, &err) != HY_OK) {
      if (err.msg[0]) hy_cli_print_error(&err);
      rc = HY_CLI_FAIL;
    }
    printf("%12.4g", hs[i]);
    for (int q = 0; rc == HY_CLI_OK && q < nk; q++) {
      const int k = which[q];
      double best = INFINITY;
      for (int j = 0; j < C->n; j++) best = fmin(best, hypot(cre[j] - re[k], cim[j] - im[k]));
      errs[(size_t)q * ns + i] = best / hypot(re[k], im[k]);
      printf("  %21.4g", errs[(size_t)q * ns + i]);
    }
    putchar('\n');
    free(cre);
    free(cim);
    hy_linear_free(C);
  }
  if (rc == HY_CLI_OK && prefix) {
    char path[512];
    FILE* fp = open_csv(prefix, "step", path, sizeof path);
    if (!fp) {
      rc = HY_CLI_FAIL;
    } else {
      fputs("h", fp);
      for (int q = 0; q < nk; q++) fprintf(fp, ",err:%d", which[q] + 1);
      fputc('\n', fp);
      for (int i = 0; i < ns; i++) {
        fprintf(fp, "%.17g", hs[i]);
        for (int q = 0; q < nk; q++) fprintf(fp, ",%.17g", errs[(size_t)q * ns + i]);
        fputc('\n', fp);
      }
      if (fclose(fp) != 0) rc = HY_CLI_FAIL;
    }
  }
  if (rc == HY_CLI_OK && a->step_plot && nk > 0) {
    hy_fig_curve* cv = calloc((size_t)nk, sizeof *cv);
    char(*labels)[64] = calloc((size_t)nk, sizeof *labels);
    char(*names)[32] = calloc((size_t)nk, sizeof *names);
    if (!cv || !labels || !names) {
      rc = HY_CLI_FAIL;
    } else {
      for (int q = 0; q < nk; q++) {
        snprintf(labels[q], sizeof labels[q], "lambda %d = %.4g%+.4gi", which[q] + 1,
                 re[which[q]], im[which[q]]);
        snprintf(names[q], sizeof names[q], "err:%d", which[q] + 1);
        cv[q] = (hy_fig_curve){.y = errs + (size_t)q * ns, .name = names[q],
                               .label = labels[q], .unit = "", .group = "relative error",
                               .color = -1};
      }
      char title[160];
      snprintf(title, sizeof title, "%s: counterpart eigenvalues' relative error against the step",
               m->name);
      const hy_fig fig = {.npoint = ns, .x = hs, .x_name = "difference step h", .x_unit = "",
                          .curve = cv, .ncurve = nk, .title = title, .log_x = 1, .log_y = 1,
                          .points = 1};
      char msg[256];
      rc = hy_fig_render(&fig, a->step_plot, NULL, msg, sizeof msg);
      if (rc != HY_CLI_OK) fprintf(stderr, "hydyn linearize: %s\n", msg);
    }
    free(cv);
    free(labels);
    free(names);
  }
  free(which);
  free(hs);
  free(errs);
  return rc;
}

// seed 003 Eq. 94 beside the nonlinear run: the linear system (hy_linear_sim) from the
// nonlinear state at T0 (d, stepped there here), both with the model's step.
static int simulate(const lin_args* a, const hy_model* m, hy_data* d, const hy_linear* L,
                    const char* prefix) {
  const int n = L->n;
  const double h = m->opt.dt;
  const long n0 = lround((a->has_from ? a->from : L->t) / h) - lround(d->time / h);
  for (long k = 0; k < n0; k++) {
    if (hy_step(m, d) != HY_OK) {
      hy_cli_print_error(&d->err);
      return HY_CLI_FAIL;
    }
  }
  const double t0 = d->time;
  double* xn = malloc(sizeof(double) * (size_t)n);
  double* xl = malloc(sizeof(double) * (size_t)n);
  double* worst = calloc((size_t)n, sizeof(double));
  double* span = calloc((size_t)n, sizeof(double));
  hy_linear_sim sim = {0};
  hy_error err;
  memset(&err, 0, sizeof err);
  int rc = xn && xl && worst && span ? HY_CLI_OK : HY_CLI_FAIL;
  if (rc == HY_CLI_OK) {
    hy_linear_gather(L, d, xn);
    if (hy_linear_sim_init(L, h, xn, &sim, &err) != HY_OK) {
      hy_cli_print_error(&err);
      rc = HY_CLI_FAIL;
    }
  }
  FILE* fp = NULL;
  char path[512], name[160];
  if (rc == HY_CLI_OK && prefix) {
    fp = open_csv(prefix, "simulate", path, sizeof path);
    if (!fp) rc = HY_CLI_FAIL;
  }
  if (fp) {
    fputs("time[s]", fp);
    for (int i = 0; i < n; i++) {
      hy_linear_state_name(m, L, i, name, sizeof name);
      const char* u = hy_linear_state_unit(m, L, i);
      fprintf(fp, u[0] ? ",lin:%s[%s],nl:%s[%s]" : ",lin:%s,nl:%s", name, u, name, u);
    }
    fputc('\n', fp);
  }
  const long steps = lround(a->simulate / h);
  for (long k = 0; rc == HY_CLI_OK && k <= steps; k++) {
    if (k > 0) {
      if (hy_step(m, d) != HY_OK) {
        hy_cli_print_error(&d->err);
        rc = HY_CLI_FAIL;
        break;
      }
      hy_linear_sim_step(L, &sim);
      hy_linear_gather(L, d, xn);
    }
    hy_linear_sim_state(L, &sim, xl);
    if (fp) fprintf(fp, "%.17g", d->time);
    for (int i = 0; i < n; i++) {
      worst[i] = fmax(worst[i], fabs(xl[i] - xn[i]));
      span[i] = fmax(span[i], fabs(xn[i] - L->x[i]));
      if (fp) fprintf(fp, ",%.17g,%.17g", xl[i], xn[i]);
    }
    if (fp) fputc('\n', fp);
  }
  if (fp && fclose(fp) != 0 && rc == HY_CLI_OK) {
    fprintf(stderr, "hydyn linearize: writing '%s' failed\n", path);
    rc = HY_CLI_FAIL;
  }
  if (rc == HY_CLI_OK) {
    printf("\nlinear simulation from t = %.9g s for %g s: largest |linear - nonlinear|, and the "
           "nonlinear run's largest distance from the reference\n", t0, a->simulate);
    for (int i = 0; i < n; i++) {
      hy_linear_state_name(m, L, i, name, sizeof name);
      printf("  %-22s %12.4g %12.4g %s\n", name, worst[i], span[i],
             hy_linear_state_unit(m, L, i));
    }
  }
  hy_linear_sim_free(&sim);
  free(xn);
  free(xl);
  free(worst);
  free(span);
  return rc;
}

// The eigenvalues of m's Jacobian at its reference (the state at t = 0, or after --at) into
// re, im (allocated, *n of them). The data is made afresh: a changed parameter changes the
// equilibrium too.
static int eigen_of(const lin_args* a, const hy_model* m, double** re, double** im, int* n) {
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  if (hy_data_make(m, &d, &err) != HY_OK) {
    hy_cli_print_error(&err);
    return HY_CLI_FAIL;
  }
  int rc = HY_CLI_OK;
  const long steps = a->has_at ? lround(a->at / m->opt.dt) : 0;
  for (long k = 0; k < steps && rc == HY_CLI_OK; k++) {
    if (hy_step(m, d) != HY_OK) {
      hy_cli_print_error(&d->err);
      rc = HY_CLI_FAIL;
    }
  }
  hy_linear* L = NULL;
  if (rc == HY_CLI_OK && hy_linear_make(m, d, a->method, a->step, &L, &err) != HY_OK) {
    hy_cli_print_error(&err);
    rc = HY_CLI_FAIL;
  }
  if (rc == HY_CLI_OK) {
    *n = L->n;
    *re = malloc(sizeof(double) * (size_t)L->n);
    *im = malloc(sizeof(double) * (size_t)L->n);
    if (!*re || !*im || hy_linear_eigen(L->n, L->J, *re, *im, NULL, &err) != HY_OK) {
      if (err.msg[0]) hy_cli_print_error(&err);
      rc = HY_CLI_FAIL;
    }
  }
  hy_linear_free(L);
  hy_data_free(d);
  return rc;
}

// The eigenvalues with parameter `name` set to v (a copy of m).
static int eigen_with(const lin_args* a, const hy_model* m, const char* name, double v,
                      double** re, double** im, int* n) {
  hy_model* c = NULL;
  if (hy_model_copy(m, &c) != HY_OK) return HY_CLI_FAIL;
  hy_error err;
  memset(&err, 0, sizeof err);
  double* p = hy_model_param(c, name, NULL, &err);
  int rc = HY_CLI_OK;
  if (!p) {
    fprintf(stderr, "hydyn linearize: %s\n", err.msg);
    rc = HY_CLI_USAGE;
  } else {
    *p = v;
    rc = eigen_of(a, c, re, im, n);
  }
  hy_model_free(c);
  return rc;
}

// The eigenvalue of (re, im)[0..n) nearest to (r, i).
static int nearest(const double* re, const double* im, int n, double r, double i) {
  int best = 0;
  for (int k = 1; k < n; k++) {
    if (hypot(re[k] - r, im[k] - i) < hypot(re[best] - r, im[best] - i)) best = k;
  }
  return best;
}

// d lambda / d theta of every nonzero eigenvalue by central differences of the eigenvalues,
// theta +- 1e-4 |theta| (1e-6 when theta is 0), each matched to the nearest.
static int sensitivities(const lin_args* a, hy_model* m, const double* re, const double* im, int n,
                         double top) {
  char list[512];
  snprintf(list, sizeof list, "%s", a->sensitivity);
  int rc = HY_CLI_OK;
  for (char* name = strtok(list, ","); name && rc == HY_CLI_OK; name = strtok(NULL, ",")) {
    hy_error err;
    memset(&err, 0, sizeof err);
    const char* unit = "";
    double* p = hy_model_param(m, name, &unit, &err);
    if (!p) {
      fprintf(stderr, "hydyn linearize: %s\n", err.msg);
      return HY_CLI_USAGE;
    }
    const double th = *p, dth = th != 0 ? 1e-4 * fabs(th) : 1e-6;
    double *rp = NULL, *ip = NULL, *rm = NULL, *imm = NULL;
    int np = 0, nm = 0;
    rc = eigen_with(a, m, name, th + dth, &rp, &ip, &np);
    if (rc == HY_CLI_OK) rc = eigen_with(a, m, name, th - dth, &rm, &imm, &nm);
    if (rc == HY_CLI_OK) {
      printf("\nsensitivity to %s = %.9g %s (central differences, step %.3g)\n", name, th, unit,
             dth);
      printf("%3s %16s %16s %16s %16s %12s\n", "k", "re (1/s)", "im (rad/s)", "d re/d theta",
             "d im/d theta", "relative");
      for (int k = 0; k < n; k++) {
        const double mod = hypot(re[k], im[k]);
        if (mod <= ZERO_REL * top) continue;  // a zero has no smooth neighbour to follow
        const int kp = nearest(rp, ip, np, re[k], im[k]), km = nearest(rm, imm, nm, re[k], im[k]);
        const double dr = (rp[kp] - rm[km]) / (2 * dth), di = (ip[kp] - imm[km]) / (2 * dth);
        // (theta / |lambda|) |d lambda / d theta|: the eigenvalue's change in % per % of theta
        printf("%3d %16.9g %16.9g %16.10g %16.10g %12.4g\n", k + 1, re[k], im[k], dr, di,
               fabs(th) / mod * hypot(dr, di));
      }
    }
    free(rp);
    free(ip);
    free(rm);
    free(imm);
  }
  return rc;
}

// The eigenvalues at N values of a parameter: a table, and the root locus.
static int sweep(const lin_args* a, const hy_model* m, const char* prefix) {
  const int N = a->sweep_count;
  hy_model* probe = NULL;
  if (hy_model_copy(m, &probe) != HY_OK) return HY_CLI_FAIL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const char* unit = "";
  const double* p = hy_model_param(probe, a->sweep_param, &unit, &err);
  hy_model_free(probe);
  if (!p) {
    fprintf(stderr, "hydyn linearize: %s\n", err.msg);
    return HY_CLI_USAGE;
  }
  FILE* fp = NULL;
  char path[512];
  if (prefix) {
    fp = open_csv(prefix, "sweep", path, sizeof path);
    if (!fp) return HY_CLI_FAIL;
    fprintf(fp, "%s[%s],k,re[1/s],im[rad/s],omega_n[rad/s],zeta\n", a->sweep_param, unit);
  }
  double* xs = NULL;
  double* ys = NULL;
  long npt = 0, cap = 0;
  int rc = HY_CLI_OK;
  printf("\nsweep of %s from %g to %g %s (%d values)\n", a->sweep_param, a->sweep_a, a->sweep_b,
         unit, N);
  for (int i = 0; i < N && rc == HY_CLI_OK; i++) {
    const double v = a->sweep_a + (a->sweep_b - a->sweep_a) * i / (N - 1);
    double *re = NULL, *im = NULL;
    int n = 0;
    rc = eigen_with(a, m, a->sweep_param, v, &re, &im, &n);
    if (rc == HY_CLI_OK) {
      printf("%14.6g:", v);
      for (int k = 0; k < n; k++) {
        const double mod = hypot(re[k], im[k]);
        if (im[k] >= 0) printf(" %.5g%+.5gi", re[k], im[k]);
        if (fp) {
          fprintf(fp, "%.17g,%d,%.17g,%.17g,%.17g,%.17g\n", v, k + 1, re[k], im[k], mod,
                  mod > 0 ? -re[k] / mod : 0.0);
        }
        if (npt == cap) {
          cap = cap ? 2 * cap : 64;
          double* nx = realloc(xs, sizeof(double) * (size_t)cap);
          double* ny = nx ? realloc(ys, sizeof(double) * (size_t)cap) : NULL;
          if (!nx || !ny) {
            xs = nx ? nx : xs;
            rc = HY_CLI_FAIL;
            break;
          }
          xs = nx;
          ys = ny;
        }
        xs[npt] = re[k];
        ys[npt] = im[k];
        npt++;
      }
      putchar('\n');
    }
    free(re);
    free(im);
  }
  if (fp && fclose(fp) != 0 && rc == HY_CLI_OK) rc = HY_CLI_FAIL;
  if (rc == HY_CLI_OK && a->sweep_plot && npt > 0) {
    // the oscillating eigenvalues are what a root locus is read for: real ones more than ten
    // times faster than the fastest of them would squeeze them into a corner, and are left out
    double osc = 0;
    for (long i = 0; i < npt; i++) {
      if (ys[i] != 0) osc = fmax(osc, hypot(xs[i], ys[i]));
    }
    long kept = 0, left = 0;
    for (long i = 0; i < npt; i++) {
      if (osc > 0 && hypot(xs[i], ys[i]) > 10 * osc) {
        left++;
        continue;
      }
      xs[kept] = xs[i];
      ys[kept] = ys[i];
      kept++;
    }
    npt = kept;
    if (left > 0) {
      fprintf(stderr, "note: the root locus leaves out %ld real eigenvalues faster than %.3g 1/s "
              "(ten times the fastest oscillating one); PREFIX-sweep.csv has them\n", left,
              10 * osc);
    }
    char title[300];
    snprintf(title, sizeof title, "%.60s: root locus over %.120s = %g .. %g %.20s", m->name,
             a->sweep_param,
             a->sweep_a, a->sweep_b, unit);
    const hy_fig_curve curve = {.y = ys, .name = "im", .label = "eigenvalues", .unit = "rad/s",
                                .group = "Im(lambda)", .color = 0};
    const hy_fig fig = {.npoint = npt, .x = xs, .x_name = "Re(lambda)", .x_unit = "1/s",
                        .curve = &curve, .ncurve = 1, .title = title, .scatter = 1};
    char msg[256];
    rc = hy_fig_render(&fig, a->sweep_plot, NULL, msg, sizeof msg);
    if (rc != HY_CLI_OK) fprintf(stderr, "hydyn linearize: %s\n", msg);
  }
  free(xs);
  free(ys);
  return rc;
}

int hy_cli_linearize(int argc, char** argv) {
  lin_args a = {.method = HY_LIN_REDUCED, .step = 1e-5};
  const int prc = parse(argc, argv, &a);
  if (prc >= 0) return prc;
  hy_model* m = NULL;
  if (hy_cli_load_model(a.model, &m) != HY_CLI_OK) return HY_CLI_FAIL;
  if (a.list_params) {
    char name[300];
    for (int i = 0; i < hy_model_param_count(m); i++) {
      const char *unit = "", *what = "";
      hy_model_param_name(m, i, name, sizeof name, &unit, &what);
      printf("%-48s %14.6g %-20s %s\n", name, *hy_model_param(m, name, NULL, NULL), unit, what);
    }
    hy_model_free(m);
    return HY_CLI_OK;
  }
  hy_data* d = NULL;
  if (hy_cli_make_data(m, a.model, &d) != HY_CLI_OK) {
    hy_model_free(m);
    return HY_CLI_FAIL;
  }
  int rc = HY_CLI_OK;
  // the reference of --at: the state after the steps of dt that reach T (T rounded to a step)
  const long steps = a.has_at ? lround(a.at / m->opt.dt) : 0;
  for (long k = 0; k < steps; k++) {
    if (hy_step(m, d) != HY_OK) {
      hy_cli_print_error(&d->err);
      rc = HY_CLI_FAIL;
      break;
    }
  }
  hy_linear* L = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  if (rc == HY_CLI_OK && hy_linear_make(m, d, a.method, a.step, &L, &err) != HY_OK) {
    hy_cli_print_error(&err);
    rc = HY_CLI_FAIL;
  }
  double *re = NULL, *im = NULL, *vr = NULL;
  if (rc == HY_CLI_OK) {
    const int n = L->n;
    re = malloc(sizeof(double) * (size_t)n);
    im = malloc(sizeof(double) * (size_t)n);
    vr = malloc(sizeof(double) * (size_t)n * (size_t)n);
    if (!re || !im || !vr || hy_linear_eigen(n, L->J, re, im, vr, &err) != HY_OK) {
      if (err.msg[0]) hy_cli_print_error(&err);
      rc = HY_CLI_FAIL;
    }
  }
  if (rc == HY_CLI_OK) {
    const int n = L->n;
    double top = 0;
    for (int k = 0; k < n; k++) top = fmax(top, hypot(re[k], im[k]));
    char name[160];
    printf("linearize: model=%s method=%s t=%.9g n=%d states=%d coordinates=%d pressures=%d "
           "friction_states=%d spools=%d",
           m->name, a.method == HY_LIN_REDUCED ? "reduced" : "fd", L->t, n, L->nq, m->sizes.nz,
           L->np, L->nw, L->nu);
    // with nonholonomic constraints the coordinate states outnumber the velocity states
    if (m->sizes.nnh > 0) printf(" velocity_states=%d nonholonomic=%d", L->nv, m->sizes.nnh);
    putchar('\n');
    if (!a.quiet) {
      printf("\nJacobian (row: d/dt of the state; columns in the same order)\n");
      for (int i = 0; i < n; i++) {
        hy_linear_state_name(m, L, i, name, sizeof name);
        printf("%-22s", name);
        for (int j = 0; j < n; j++) printf(" %12.5g", L->J[i * n + j]);
        putchar('\n');
      }
    }
    printf("\n%3s %16s %16s %14s %12s %10s  %s\n", "k", "re (1/s)", "im (rad/s)",
           "omega_n (rad/s)", "f_n (Hz)", "zeta", "kind");
    int zeros = 0;
    for (int k = 0; k < n; k++) {
      const double mod = hypot(re[k], im[k]);
      char kind[96];
      classify(m, re[k], im[k], top, kind, sizeof kind);
      zeros += strcmp(kind, "zero") == 0;
      char zeta[32] = "-";  // a zero eigenvalue has no damping ratio
    if (strcmp(kind, "zero") != 0) snprintf(zeta, sizeof zeta, "%.4g", re[k] == 0 ? 0.0 : -re[k] / mod);
    printf("%3d %16.9g %16.9g %14.6g %12.6g %10s  %s\n", k + 1, re[k], im[k], mod,
           mod / TWO_PI, zeta, kind);
    }
    // structural zeros (seed 003 Sect. 5): the counterpart keeps 2 (m + l) spurious ones (the
    // dependent coordinates' positions and velocities), the reduced Jacobian l (the positions of
    // x_ad, which the linearized nonholonomic constraints only integrate)
    const int mh = m->sizes.nz - d->ndof, l = m->sizes.nnh;
    if (a.method == HY_LIN_COUNTERPART && mh + l > 0) {
      printf("(the counterpart has 2 (m + l) = %d spurious zero eigenvalues, m = %d independent "
             "loop equations, l = %d nonholonomic constraints; %d eigenvalues are zero here)\n",
             2 * (mh + l), mh, l, zeros);
    } else if (a.method == HY_LIN_REDUCED && l > 0) {
      printf("(the reduced Jacobian has l = %d spurious zero eigenvalue%s, those of the "
             "nonholonomic constraints; %d eigenvalues are zero here)\n",
             l, l == 1 ? "" : "s", zeros);
    }
    // the files' prefix, one for every file the options ask for
    char prefix[300];
    if (a.out) {
      snprintf(prefix, sizeof prefix, "%s", a.out);
    } else {
      snprintf(prefix, sizeof prefix, "%s-linear", m->name);
    }
    const char* files = a.no_out ? NULL : prefix;
    if (files) rc = write_files(m, L, files, re, im, vr, top);
    if (rc == HY_CLI_OK && a.plot) rc = plot(m, re, im, n, a.plot);
    if (rc == HY_CLI_OK && a.sweep_n > 0) rc = step_sweep(&a, m, d, re, im, n, top, files);
    if (rc == HY_CLI_OK && a.sensitivity) rc = sensitivities(&a, m, re, im, n, top);
    if (rc == HY_CLI_OK && a.sweep_count > 0) rc = sweep(&a, m, files);
    // last: it steps the data on from the reference
    if (rc == HY_CLI_OK && a.simulate > 0) rc = simulate(&a, m, d, L, files);
  }
  free(re);
  free(im);
  free(vr);
  hy_linear_free(L);
  hy_data_free(d);
  hy_model_free(m);
  return rc;
}
