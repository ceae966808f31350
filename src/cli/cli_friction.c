// `hydyn friction LAW [KEY=VALUE ...] | MODEL [--cylinder NAME] [options]`: a seal friction law
// on its own, from the command line or from a model's cylinder. Prints the law, its parameters
// and a few steady forces, or with --sweep writes a CSV of its steady force-velocity curve and
// of its response to two slow velocity sines (pre-sliding, frictional lag), so that a law's
// parameters can be judged before a run depends on them (docs/cli.md).
#define _POSIX_C_SOURCE 200809L  // stat

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "hydyn/hydyn.h"
#include "hydyn/names.h"
#include "io/io.h"

// KEY=VALUE pairs on one command line: each key at most once, and the laws have fewer keys.
enum { MAX_PAIRS = 32 };

// The sweep (docs/cli.md): points of the steady curve, periods of each sine and points per
// period (the trapezoidal step of the states is 1/(2000 f): 1 ms at 0.5 Hz, well inside the
// bristles' time constant g/(sigma0 |v|) and the film's tau_hp of the built-in models).
enum { STEADY_POINTS = 401, SINE_PERIODS = 3, POINTS_PER_PERIOD = 2000 };
#define SINE_POINTS (SINE_PERIODS * POINTS_PER_PERIOD + 1)

#define DEFAULT_FREQUENCY 0.5  // Hz
// Bounds of --frequency: the sines' times 3/f and steps 1/(2000 f) stay far from overflow and
// underflow.
#define MIN_FREQUENCY 1e-6
#define MAX_FREQUENCY 1e6
#define TWO_PI 6.28318530717958647692

// The command line of friction, parsed.
typedef struct friction_args {
  const char* what;  // LAW or MODEL
  const char* pair[MAX_PAIRS];
  int npair;
  const char* cylinder;
  int sweep;
  const char* out;  // NULL or "-": standard output
  int has_normal_load, has_v_max, has_frequency;
  double normal_load, v_max, frequency;
} friction_args;

// The law to show and where it came from.
typedef struct friction_case {
  hy_friction_def p;
  char source[160];  // "model four-bar-b-lugre, cylinder 'cylinder'" or the command line
  double N;          // normal load (N)
  double v_ref;      // the law's own velocity scale (m/s): v_s, or 4 v_t for coulomb
  double v_max, frequency;
} friction_case;

static void friction_usage(FILE* fp) {
  fputs(
      "usage: hydyn friction LAW [KEY=VALUE ...] [options]\n"
      "       hydyn friction MODEL [--cylinder NAME] [options]\n"
      "\n"
      "Shows a seal friction law on its own: LAW with the parameters KEY=VALUE (the keys of a\n"
      "cylinder's 'friction:' mapping in a model file, docs/model-format.md), or the law of a\n"
      "cylinder of MODEL (a model file or a built-in model, as for 'hydyn run'). Without\n"
      "--sweep, prints the law, its parameters and its steady force at a few velocities.\n"
      "\n"
      "laws and the keys they need (optional keys in brackets):\n"
      "  coulomb       coulomb tanh_velocity [viscous]\n"
      "  bengisu-akay  coulomb stiction stribeck_velocity decay [viscous]\n"
      "  brown-mcphee  coulomb stiction stribeck_velocity [viscous viscous_tanh4]\n"
      "  lugre         coulomb stiction stribeck_velocity stiffness [viscous damping\n"
      "                damping_velocity exponent]\n"
      "  lugre-film    as lugre, and tau_accel tau_decel tau_dwell film_velocity [smoothing]\n"
      "  every law also reads [pressure_coefficient]\n"
      "\n"
      "options:\n"
      "  --cylinder NAME      the cylinder of MODEL whose friction to show; may be left out\n"
      "                       when exactly one cylinder of MODEL has friction\n"
      "  --normal-load N      normal load p_a A_a + p_b A_b (N), 0 to 1e12, default 0: the\n"
      "                       Coulomb force is coulomb + pressure_coefficient N (for a MODEL\n"
      "                       too: its pressures are not used)\n"
      "  --sweep              write a CSV of three cases instead: columns\n"
      "                       case,t[s],v[m/s],x[m],F[N] and the law's states (q[m], h[-]);\n"
      "                       'steady': 401 velocities from -v_max to v_max, the states at\n"
      "                       steady sliding, t and x empty; 'small' and 'large': the\n"
      "                       response to v = V sin(2 pi f t) from rest, 3 periods, 2000\n"
      "                       steps each (6001 rows), x the displacement; small: V = 2 pi f X\n"
      "                       with X = min(coulomb, stiction)/(2 stiffness), below break-away\n"
      "                       (pre-sliding), or V = 0.2 v_ref for a static law; large:\n"
      "                       V = v_max (frictional lag)\n"
      "  -o, --out FILE       where --sweep writes the CSV (default: standard output; '-'\n"
      "                       is standard output)\n"
      "  --v-max V            largest velocity of the sweep (m/s), > 0, at most 1e6;\n"
      "                       default 10 v_ref, v_ref = stribeck_velocity, or 4 tanh_velocity\n"
      "                       for coulomb\n"
      "  --frequency F        frequency of the sines (Hz), 1e-6 to 1e6, default 0.5\n"
      "  -h, --help           show this help\n"
      "\n"
      "Options may also be written --name=value. Example:\n"
      "  hydyn friction lugre coulomb=210 stiction=830 stribeck_velocity=5e-3 stiffness=1e5 \\\n"
      "      damping=316.2 viscous=330 --sweep -o lugre.csv\n"
      "  hydyn friction four-bar-b-lugre-film --sweep -o film.csv\n"
      "Exit status: 0 success; 1 MODEL could not be loaded or the CSV not written; 2 bad\n"
      "command line, also an unknown law or parameter, a missing or out-of-range parameter,\n"
      "or a cylinder that MODEL lacks or that has no friction.\n",
      fp);
}

// A bad command line: the reason and a hint on standard error; the usage exit status.
#define usage_error(...) hy_cli_usage_error("friction", __VA_ARGS__)

// Parses argv (argv[0] = "friction"). Returns -1 to go on, else the exit status (help or error).
static int parse_args(int argc, char** argv, friction_args* a) {
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      friction_usage(stdout);
      return HY_CLI_OK;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (!a->what) {
        if (strchr(arg, '=')) {
          return usage_error("'%s': the LAW or MODEL comes first, then the KEY=VALUE pairs", arg);
        }
        a->what = arg;
      } else if (strchr(arg, '=')) {
        if (a->npair == MAX_PAIRS) return usage_error("more than %d KEY=VALUE pairs", MAX_PAIRS);
        a->pair[a->npair++] = arg;
      } else {
        return usage_error(
            "unexpected argument '%s' (the law or model is '%s'; parameters are "
            "KEY=VALUE)",
            arg, a->what);
      }
      continue;
    }
    if (strcmp(arg, "--sweep") == 0) {
      a->sweep = 1;
      continue;
    }
    // Options with a value: "--name value" or "--name=value" (-o: "-o value" only).
    static const char* const valued[] = {"--cylinder", "--normal-load", "--out",
                                         "--v-max",    "--frequency",   "-o"};
    const int nvalued = (int)(sizeof valued / sizeof valued[0]);
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(argc, argv, &i, valued, nvalued, &val, msg, sizeof msg);
    if (opt == -2) return usage_error("%s", msg);
    switch (opt) {
      case 0:
        if (!val[0]) return usage_error("--cylinder needs a cylinder name");
        a->cylinder = val;
        break;
      case 1:
        if (hy_cli_parse_number(val, 1, &a->normal_load) || a->normal_load > HY_MAX_FORCE) {
          return usage_error("invalid --normal-load '%s': expected a force from 0 to %g N", val,
                             HY_MAX_FORCE);
        }
        a->has_normal_load = 1;
        break;
      case 2:
      case 5:
        if (!val[0]) return usage_error("%s needs a file name", valued[opt]);
        a->out = val;
        break;
      case 3:
        if (hy_cli_parse_number(val, 0, &a->v_max) || a->v_max > HY_MAX_RATE) {
          return usage_error("invalid --v-max '%s': expected a velocity > 0 and <= %g m/s", val,
                             HY_MAX_RATE);
        }
        a->has_v_max = 1;
        break;
      case 4:
        if (hy_cli_parse_number(val, 0, &a->frequency) || a->frequency < MIN_FREQUENCY ||
            a->frequency > MAX_FREQUENCY) {
          return usage_error("invalid --frequency '%s': expected a frequency from %g to %g Hz", val,
                             MIN_FREQUENCY, MAX_FREQUENCY);
        }
        a->has_frequency = 1;
        break;
      default:
        return usage_error("unknown option '%s'", arg);
    }
  }
  if (!a->what) return usage_error("no friction law or model given");
  if (a->out && !a->sweep) return usage_error("%s applies with --sweep only", "-o/--out");
  return -1;
}

//----- the parameters ----------------------------------------------------------------------------

// The laws' names as a list for messages: "coulomb, bengisu-akay, ... or lugre-film".
static void law_list(char* buf, size_t size) {
  buf[0] = '\0';
  for (int k = HY_FRICTION_NONE + 1; k < HY_FRICTION_COUNT; k++) {
    const size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s",
             k == HY_FRICTION_NONE + 1 ? "" : (k == HY_FRICTION_COUNT - 1 ? " or " : ", "),
             hy_friction_law_name((hy_friction_law)k));
  }
}

// The model checker's ranges (hy_friction_check) for a law given on the command line. Returns an
// exit status.
static int check_params(const hy_friction_def* p) {
  hy_error err;
  memset(&err, 0, sizeof err);
  if (hy_friction_check(p, &err) != HY_OK) return usage_error("%s", err.msg);
  return HY_CLI_OK;
}

// A parameter name: lower-case letters, digits and '_'.
static int valid_key(const char* s, size_t n) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++) {
    const char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return 0;
  }
  return 1;
}

// A value as the YAML mapping may take it unquoted: a number or a word (true, false), with none
// of the characters that would end the scalar or start another key.
static int valid_value(const char* s) {
  if (!s[0]) return 0;
  for (; *s; s++) {
    const char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '+' || c == '-')) {
      return 0;
    }
  }
  return 1;
}

// LAW [KEY=VALUE ...] into c->p: the pairs become the text of a `friction:` mapping, read by the
// model files' own parser, so the command accepts exactly what a model file does. Returns an
// exit status.
static int law_from_args(const friction_args* a, hy_friction_law law, friction_case* c) {
  char text[2048];
  size_t len = (size_t)snprintf(text, sizeof text, "{law: %s", hy_friction_law_name(law));
  for (int i = 0; i < a->npair; i++) {
    const char* pair = a->pair[i];
    const char* eq = strchr(pair, '=');
    const size_t klen = (size_t)(eq - pair);
    if (!valid_key(pair, klen)) {
      return usage_error("invalid parameter '%s': expected KEY=VALUE with a key such as coulomb",
                         pair);
    }
    if (klen == 3 && strncmp(pair, "law", 3) == 0) {
      return usage_error("'%s': the law is the first argument ('%s'), not a KEY=VALUE pair", pair,
                         a->what);
    }
    if (!valid_value(eq + 1)) {
      return usage_error(
          "invalid value in '%s': expected a number (true or false for "
          "viscous_tanh4)",
          pair);
    }
    for (int j = 0; j < i; j++) {
      if (strncmp(a->pair[j], pair, klen + 1) == 0) {
        return usage_error("parameter '%.*s' is given twice", (int)klen, pair);
      }
    }
    len += (size_t)snprintf(text + len, sizeof text - len, ", %.*s: %s", (int)klen, pair, eq + 1);
    if (len + 2 > sizeof text) return usage_error("the parameters are too long");  // and "}"
  }
  snprintf(text + len, sizeof text - len, "}");
  hy_error err;
  memset(&err, 0, sizeof err);
  if (hy_io_friction_text(text, &c->p, &err) != HY_OK) {
    // the message without the position: it is in text built here, not in anything typed
    return usage_error("%s", err.msg[0] ? err.msg : "invalid friction parameters");
  }
  snprintf(c->source, sizeof c->source, "parameters from the command line");
  return check_params(&c->p);
}

static const char* cyl_name(const hy_model* m, int c) {
  return m->frc_name + (size_t)m->cyl_frc[c] * HY_NAME_MAX;
}

// The cylinders of m with friction, as "'a', 'b'" (or "none").
static void friction_cylinders(const hy_model* m, char* buf, size_t size) {
  buf[0] = '\0';
  size_t len = 0;
  for (int c = 0; c < m->sizes.ncyl && len < size; c++) {
    if (m->cyl_fric[c].law == HY_FRICTION_NONE) continue;
    len += (size_t)snprintf(buf + len, size - len, "%s'%s'", len ? ", " : "", cyl_name(m, c));
  }
  if (!buf[0]) snprintf(buf, size, "none");
}

// MODEL [--cylinder NAME] into c->p. Returns an exit status.
static int law_from_model(const friction_args* a, friction_case* c) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status s = hy_model_load_any(a->what, &m, &err);
  if (s != HY_OK) {
    if (err.code != s) {
      memset(&err, 0, sizeof err);
      err.code = s;
    }
    hy_cli_print_error(&err);
    return HY_CLI_FAIL;
  }
  const char* name = m->name[0] ? m->name : a->what;
  char list[512];
  friction_cylinders(m, list, sizeof list);
  int cyl = -1;
  int rc = HY_CLI_OK;
  if (a->cylinder) {
    cyl = hy_model_cylinder(m, a->cylinder);
    if (cyl < 0) {
      rc = usage_error("model '%s' has no cylinder '%s' (cylinders with friction: %s)", name,
                       a->cylinder, list);
    } else if (m->cyl_fric[cyl].law == HY_FRICTION_NONE) {
      rc = usage_error("cylinder '%s' of model '%s' has no friction (cylinders with friction: %s)",
                       a->cylinder, name, list);
    }
  } else {
    int nfric = 0;
    for (int k = 0; k < m->sizes.ncyl; k++) {
      if (m->cyl_fric[k].law != HY_FRICTION_NONE) {
        nfric++;
        cyl = k;
      }
    }
    if (m->sizes.ncyl == 0) {
      rc = usage_error("model '%s' has no cylinders, hence no seal friction", name);
    } else if (nfric == 0) {
      rc = usage_error(
          "model '%s' has no cylinder with friction (%d cylinder%s, none with a "
          "'friction:' mapping)",
          name, m->sizes.ncyl, m->sizes.ncyl == 1 ? "" : "s");
    } else if (nfric > 1) {
      rc = usage_error("model '%s' has %d cylinders with friction (%s): choose one with --cylinder",
                       name, nfric, list);
    }
  }
  if (rc == HY_CLI_OK) {
    c->p = m->cyl_fric[cyl];
    snprintf(c->source, sizeof c->source, "model %.60s, cylinder '%.60s'", name, cyl_name(m, cyl));
  }
  hy_model_free(m);
  return rc;
}

// Whether `what` is meant as a model: an existing file, a built-in model, a family member, or a
// path (a '/' or a .yaml ending) whose loader's message, status 1, says what is wrong with it.
static int names_a_model(const char* what) {
  struct stat st;
  if (stat(what, &st) == 0 || strchr(what, '/')) return 1;
  const size_t n = strlen(what);
  if ((n > 5 && strcmp(what + n - 5, ".yaml") == 0) ||
      (n > 4 && strcmp(what + n - 4, ".yml") == 0)) {
    return 1;
  }
  for (int i = 0; i < hy_builtin_count(); i++) {
    if (strcmp(hy_builtin_name(i), what) == 0) return 1;
  }
  return hy_family_find(what) >= 0;
}

//----- output --------------------------------------------------------------------------------

// The text report: law, source, parameters with units, and the steady force at multiples of
// the law's velocity scale.
static void print_report(FILE* fp, const friction_case* c) {
  const hy_friction_def* p = &c->p;
  fprintf(fp, "friction law %s (%s)\n", hy_friction_law_name(p->law), c->source);
  fputs("parameters:\n", fp);
  hy_io_friction_write(fp, p);
  const int ns = hy_friction_nstates(p->law);
  fputs("states:", fp);
  if (ns == 0) fputs(" none (a static law: F depends on v only)", fp);
  for (int k = 0; k < ns; k++) {
    fprintf(fp, "%s %s [%s]", k ? "," : "", hy_friction_state_name(p->law, k),
            hy_friction_state_unit(p->law, k));
  }
  fputc('\n', fp);
  fprintf(fp, "normal load: %.6g N (Coulomb force %.6g N)\n", c->N,
          p->coulomb + p->pressure_coefficient * c->N);
  fprintf(fp, "steady force (v_ref = %s = %.6g m/s):\n",
          p->law == HY_FRICTION_COULOMB ? "4 tanh_velocity" : "stribeck_velocity", c->v_ref);
  fprintf(fp, "  %8s %14s %14s\n", "v/v_ref", "v [m/s]", "F [N]");
  static const double ratio[] = {0, 0.1, 0.5, 1, 2, 5, 10, 100};
  for (size_t i = 0; i < sizeof ratio / sizeof ratio[0]; i++) {
    const double v = ratio[i] * c->v_ref;
    fprintf(fp, "  %8g %14.6g %14.6g\n", ratio[i], v, hy_friction_steady(p, v, c->N));
  }
}

// One CSV row: t and x empty when NAN (the steady case has no time).
static void csv_row(FILE* fp, const char* name, double t, double v, double x, double F,
                    const double* w, int ns) {
  fprintf(fp, "%s,", name);
  if (!isnan(t)) fprintf(fp, "%.17g", t);
  fprintf(fp, ",%.17g,", v);
  if (!isnan(x)) fprintf(fp, "%.17g", x);
  fprintf(fp, ",%.17g", F);
  for (int k = 0; k < ns; k++) fprintf(fp, ",%.17g", w[k]);
  fputc('\n', fp);
}

// The response to v = V sin(2 pi f t) from rest over SINE_PERIODS periods, as rows of `name`.
// x is the exact integral of v, (V / (2 pi f)) (1 - cos(2 pi f t)). Returns an exit status.
static int sine_case(FILE* fp, const friction_case* c, const char* name, double V, double* t,
                     double* v, double* F, double* w) {
  const double f = c->frequency, omega = TWO_PI * f;
  for (int i = 0; i < SINE_POINTS; i++) {
    t[i] = i / (POINTS_PER_PERIOD * f);  // not a running sum: no drift of the last period
    v[i] = V * sin(omega * t[i]);
  }
  hy_error err;
  memset(&err, 0, sizeof err);
  if (hy_friction_response(&c->p, c->N, SINE_POINTS, t, v, F, w, &err) != HY_OK) {
    fprintf(stderr, "hydyn friction: case %s: %s\n", name, err.msg);
    return HY_CLI_FAIL;
  }
  const int ns = hy_friction_nstates(c->p.law);
  for (int i = 0; i < SINE_POINTS; i++) {
    const double x = V / omega * (1 - cos(omega * t[i]));
    csv_row(fp, name, t[i], v[i], x, F[i], w + (size_t)i * HY_FRICTION_STATES_MAX, ns);
  }
  return HY_CLI_OK;
}

// The three cases of --sweep into fp. Returns an exit status.
static int write_sweep(FILE* fp, const friction_case* c) {
  const hy_friction_def* p = &c->p;
  const int ns = hy_friction_nstates(p->law);
  fputs("case,t[s],v[m/s],x[m],F[N]", fp);
  for (int k = 0; k < ns; k++) {
    fprintf(fp, ",%s[%s]", hy_friction_state_name(p->law, k), hy_friction_state_unit(p->law, k));
  }
  fputc('\n', fp);
  // steady: each velocity on its own, the states at their steady values (a response of one
  // sample starts there)
  for (int j = 0; j < STEADY_POINTS; j++) {
    // v(j) = -v(400 - j) to the bit, so the curve is as odd as the law
    const double v = c->v_max * (2 * j - (STEADY_POINTS - 1)) / (STEADY_POINTS - 1);
    const double t = 0;
    double F, w[HY_FRICTION_STATES_MAX];
    hy_error err;
    memset(&err, 0, sizeof err);
    if (hy_friction_response(p, c->N, 1, &t, &v, &F, w, &err) != HY_OK) {
      fprintf(stderr, "hydyn friction: case steady: %s\n", err.msg);
      return HY_CLI_FAIL;
    }
    csv_row(fp, "steady", NAN, v, NAN, F, w, ns);
  }
  // small: the displacement stays below break-away. |q| grows only while the piston moves the
  // way q points, and then no faster than |v| (Eq. 25), so |q| <= 2X, the range of x. With
  // X = min(F_c, F_s)/(2 sigma0), sigma0 |q| stays below g(v, h) >= min(F_c, F_s) (Eq. 26; Eq. 29
  // with h <= 1 - F_c/F_s), the force at which the bristles would slide, at any frequency. A
  // static law has no pre-sliding; V = 0.2 v_ref keeps it below its Stribeck peak.
  double V_small = 0.2 * c->v_ref;
  if (ns > 0) {
    const double Fc = p->coulomb + p->pressure_coefficient * c->N;
    const double X = 0.5 * fmin(Fc, p->stiction) / p->stiffness;
    V_small = TWO_PI * c->frequency * X;
  }
  double* buf = malloc((size_t)SINE_POINTS * (3 + HY_FRICTION_STATES_MAX) * sizeof(double));
  if (!buf) {
    fputs("hydyn friction: out of memory\n", stderr);
    return HY_CLI_FAIL;
  }
  double* t = buf;
  double* v = t + SINE_POINTS;
  double* F = v + SINE_POINTS;
  double* w = F + SINE_POINTS;
  int rc = sine_case(fp, c, "small", V_small, t, v, F, w);
  if (rc == HY_CLI_OK) rc = sine_case(fp, c, "large", c->v_max, t, v, F, w);
  free(buf);
  return rc;
}

int hy_cli_friction(int argc, char** argv) {
  friction_args a;
  memset(&a, 0, sizeof a);
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  friction_case c;
  memset(&c, 0, sizeof c);
  hy_friction_law law;
  if (hy_friction_law_parse(a.what, &law) == HY_OK) {
    if (law == HY_FRICTION_NONE) {
      char laws[128];
      law_list(laws, sizeof laws);
      return usage_error("law 'none' has no friction to show: expected %s", laws);
    }
    if (a.cylinder) {
      return usage_error("--cylinder selects a cylinder of a MODEL; '%s' is a law", a.what);
    }
    rc = law_from_args(&a, law, &c);
  } else if (a.npair > 0 || !names_a_model(a.what)) {
    char laws[128];
    law_list(laws, sizeof laws);
    if (a.npair > 0) {
      return usage_error("unknown friction law '%s': expected %s (KEY=VALUE pairs follow a LAW)",
                         a.what, laws);
    }
    return usage_error(
        "'%s' is neither a friction law (%s) nor a model file or built-in model "
        "('hydyn models' lists them)",
        a.what, laws);
  } else {
    rc = law_from_model(&a, &c);
  }
  if (rc != HY_CLI_OK) return rc;

  c.N = a.normal_load;
  if (c.p.pressure_coefficient > 0 && !a.has_normal_load) {
    // a model's pressures would raise F_c in a run; this command does not know them
    fprintf(stderr,
            "note: pressure_coefficient = %g: the Coulomb force is taken at the normal "
            "load 0 N; give --normal-load N for another\n",
            c.p.pressure_coefficient);
  }
  c.v_ref = c.p.law == HY_FRICTION_COULOMB ? 4 * c.p.tanh_velocity : c.p.stribeck_velocity;
  c.v_max = a.has_v_max ? a.v_max : 10 * c.v_ref;
  c.frequency = a.has_frequency ? a.frequency : DEFAULT_FREQUENCY;
  if (!a.sweep) {
    print_report(stdout, &c);
    return HY_CLI_OK;
  }
  const int to_stdout = !a.out || strcmp(a.out, "-") == 0;
  FILE* fp = to_stdout ? stdout : fopen(a.out, "w");
  if (!fp) {
    fprintf(stderr, "hydyn friction: cannot open '%s' for writing: %s\n", a.out, strerror(errno));
    return HY_CLI_FAIL;
  }
  rc = write_sweep(fp, &c);
  const int bad = ferror(fp) | (to_stdout ? fflush(fp) : fclose(fp));
  if (bad && rc == HY_CLI_OK) {
    fprintf(stderr, "hydyn friction: writing '%s' failed\n", to_stdout ? "-" : a.out);
    rc = HY_CLI_FAIL;
  }
  return rc;
}
