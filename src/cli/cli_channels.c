// `hydyn channels MODEL`: the channels a run of the model can record, with units, what they are
// and which the default set holds, so that a user can write --channels without guessing names.
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "hydyn/channels.h"
#include "hydyn/hydyn.h"

static void channels_usage(FILE* fp) {
  fputs(
      "usage: hydyn channels MODEL [options]\n"
      "\n"
      "Lists the channels a run of MODEL can record: name, unit, what it is; '*' marks the\n"
      "default set (what 'hydyn run' records without --channels). The solver channels (iter,\n"
      "residual, step_wall) exist with the trapezoidal integrator only.\n"
      "\n"
      "options:\n"
      "  --channels LIST      list only what LIST selects, in the order 'hydyn run --channels\n"
      "                       LIST' records them (names and globs, comma-separated)\n"
      "  --formulation NAME   as for run (default: the model's)\n"
      "  --integrator NAME    as for run (default: the model's)\n"
      "  --names              the names only, one per line (for scripts)\n"
      "  -h, --help           show this help\n"
      "\n"
      "Exit status: 0 success, 1 model error, 2 bad command line or a pattern that matches no\n"
      "channel.\n",
      fp);
}

#define usage_error(...) hy_cli_usage_error("channels", __VA_ARGS__)

int hy_cli_channels(int argc, char** argv) {
  const char* model = NULL;
  const char* spec = NULL;
  int names_only = 0, has_form = 0, has_integ = 0;
  hy_formulation form = HY_FORM_AUTO;
  hy_integrator integ = HY_INTEG_AUTO;
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      channels_usage(stdout);
      return HY_CLI_OK;
    }
    if (strcmp(arg, "--names") == 0) {
      names_only = 1;
      continue;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
      if (model) return usage_error("unexpected argument '%s' (model is '%s')", arg, model);
      model = arg;
      continue;
    }
    static const char* const valued[] = {"--channels", "--formulation", "--integrator"};
    const char* val = NULL;
    char msg[256];
    const int opt = hy_cli_valued_option(argc, argv, &i, valued, 3, &val, msg, sizeof msg);
    if (opt == -2) return usage_error("%s", msg);
    if (opt == 0) {
      spec = val;
    } else if (opt == 1) {
      if (hy_formulation_parse(val, &form) != HY_OK) {
        return usage_error("invalid --formulation '%s': expected auto, tree, penalty or "
                           "double-step",
                           val);
      }
      has_form = 1;
    } else if (opt == 2) {
      if (hy_integrator_parse(val, &integ) != HY_OK) {
        return usage_error(
            "invalid --integrator '%s': expected auto, euler, semi-euler, rk4 or trapezoidal",
            val);
      }
      has_integ = 1;
    } else {
      return usage_error("unknown option '%s'", arg);
    }
  }
  if (!model) return usage_error("no model given");

  hy_model* m = NULL;
  int rc = hy_cli_load_model(model, &m);
  if (rc != HY_CLI_OK) return rc;
  if (has_form) {
    m->opt.formulation = form;
    if (!has_integ) m->opt.integrator = HY_INTEG_AUTO;
  }
  if (has_integ) m->opt.integrator = integ;
  hy_data* d = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_channels* c = NULL;
  int* sel = NULL;
  int n = 0;
  rc = HY_CLI_FAIL;
  if (hy_data_make(m, &d, &err) != HY_OK || hy_channels_make(m, d, &c, &err) != HY_OK) {
    fprintf(stderr, "hydyn: %s\n", err.msg);
  } else if (spec && hy_channels_select(c, spec, &sel, &n, &err) != HY_OK) {
    fprintf(stderr, "hydyn channels: %s\n", err.msg);
    rc = HY_CLI_USAGE;
  } else {
    int ndefault = 0, width = 4;
    for (int i = 0; i < c->n; i++) {
      ndefault += c->ch[i].is_default;
      const int len = (int)strlen(c->ch[i].name);
      if (len > width) width = len;
    }
    const int count = sel ? n : c->n;
    if (!names_only) {
      printf("# %s (%s, %s): %d channels, %d in the default set (*)%s\n",
             m->name[0] ? m->name : model, hy_formulation_name(d->formulation),
             hy_integrator_name(d->integrator), c->n, ndefault,
             sel ? "; those --channels selects, in order" : "");
      printf("  %-*s  %-8s  %s\n", width, "name", "unit", "what");
    }
    for (int k = 0; k < count; k++) {
      const hy_channel* ch = &c->ch[sel ? sel[k] : k];
      if (names_only) {
        printf("%s\n", ch->name);
      } else {
        printf("%c %-*s  %-8s  %s\n", ch->is_default ? '*' : ' ', width, ch->name,
               ch->unit[0] ? ch->unit : "-", ch->what);
      }
    }
    rc = HY_CLI_OK;
  }
  hy_channels_free_selection(sel);
  hy_channels_free(c);
  hy_data_free(d);
  hy_model_free(m);
  return rc;
}
