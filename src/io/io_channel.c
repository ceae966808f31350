// The channel table of a model run by a data: every quantity a run can record, named
// "prefix:element" (or a bare name for scalars), with its unit, bound to where the data keeps it.
// The default set is the CSV hydyn has always written, in its order, so that files and scripts
// written against it keep working; docs/results.md lists every channel.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "hydyn/channels.h"
#include "model/model.h"

static double energy_total(const hy_data* d) { return hy_energy_total(d); }
static double actuator_work(const hy_data* d) { return hy_actuator_work(d); }
static double iter_total(const hy_data* d) { return (double)d->stats.niter; }

typedef struct builder {
  hy_channels* c;
  int cap;  // 0 = counting pass: channels are counted, not stored
} builder;

static hy_channel* add(builder* b, int is_default, const char* unit, const char* what,
                       const char* fmt, ...) __attribute__((format(printf, 5, 6)));

// Appends a channel named by fmt (or only counts it on the counting pass): NULL on that pass.
static hy_channel* add(builder* b, int is_default, const char* unit, const char* what,
                       const char* fmt, ...) {
  hy_channels* c = b->c;
  const int i = c->n++;
  if (b->cap == 0) return NULL;
  hy_channel* ch = &c->ch[i];
  memset(ch, 0, sizeof *ch);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ch->name, sizeof ch->name, fmt, ap);
  va_end(ap);
  snprintf(ch->unit, sizeof ch->unit, "%s", unit);
  ch->what = what;
  ch->is_default = is_default;
  return ch;
}

static void add_double(builder* b, int is_default, const char* unit, const char* what,
                       const double* value, const char* prefix, const char* element) {
  hy_channel* ch = element ? add(b, is_default, unit, what, "%s%s", prefix, element)
                           : add(b, is_default, unit, what, "%s", prefix);
  if (ch) {
    ch->source = HY_CHANNEL_DOUBLE;
    ch->value = value;
  }
}

static void add_fn(builder* b, int is_default, const char* unit, const char* what,
                   double (*fn)(const hy_data*), const char* name) {
  hy_channel* ch = add(b, is_default, unit, what, "%s", name);
  if (ch) {
    ch->source = HY_CHANNEL_FN;
    ch->fn = fn;
  }
}

static void add_int(builder* b, int is_default, const char* what, const int* count,
                    const char* name) {
  hy_channel* ch = add(b, is_default, "", what, "%s", name);
  if (ch) {
    ch->source = HY_CHANNEL_INT;
    ch->count = count;
  }
}

#define NAME(arr, i) ((arr) + (size_t)(i) * HY_NAME_MAX)

static const char* cyl_name(const hy_model* m, int c) { return NAME(m->frc_name, m->cyl_frc[c]); }

// Where joint j's coordinate (order 0), velocity (1) or acceleration (2) is read: the state, or
// for the angles of a spherical or free joint, their values in the chart the model defines
// (hy_data.gimbal_out), which re-anchoring leaves continuous.
static const double* joint_value(const hy_model* m, const hy_data* d, int j, int order) {
  int k;
  const int g = hy_model_joint_chart(m, j, &k);
  if (g >= 0) return d->gimbal_out + 9 * g + 3 * order + k;
  const double* v = order == 0 ? d->z : order == 1 ? d->zd : d->zdd;
  return v + m->jnt_zadr[j];
}

// Both passes run this: the counting pass (b->cap == 0) and the filling one.
static void build(builder* b, const hy_model* m, const hy_data* d) {
  const hy_sizes* sz = &m->sizes;
  const int njnt = sz->nbody;
  const int newton = d->integrator == HY_INTEG_TRAPEZOIDAL;
  int nfric_cyl = 0;  // cylinders with a friction law (with or without states)
  for (int k = 0; k < sz->ncyl; k++) nfric_cyl += m->cyl_fric[k].law != HY_FRICTION_NONE;

  //----- the default set, in the order of the CSV hydyn has always written
  add_double(b, 1, "s", "time", &d->time, "time", NULL);
  for (int j = 0; j < njnt; j++) {
    const int prismatic = m->jnt_type[j] == HY_JOINT_PRISMATIC;
    add_double(b, 1, prismatic ? "m" : "rad", "joint coordinate", joint_value(m, d, j, 0),
               "z:", NAME(m->jnt_name, j));
  }
  for (int j = 0; j < njnt; j++) {
    const int prismatic = m->jnt_type[j] == HY_JOINT_PRISMATIC;
    add_double(b, 1, prismatic ? "m/s" : "rad/s", "joint velocity", joint_value(m, d, j, 1),
               "zd:", NAME(m->jnt_name, j));
  }
  add_double(b, 1, "J", "kinetic energy", &d->energy_kin, "E_kin", NULL);
  add_double(b, 1, "J", "gravitational potential energy", &d->energy_pot, "E_pot", NULL);
  add_double(b, 1, "J", "work of the applied loads and force elements since t = 0",
             &d->work_ext, "W_ext", NULL);
  add_fn(b, 1, "J", "E_kin + E_pot - W_ext: constant for an exact solution", energy_total,
         "E_total");
  // Closed-loop columns come after the energies, so the leading columns of every model stay in
  // the same place for scripts written against open trees.
  if (sz->neq > 0) {  // cut joints or couplers
    add_double(b, 1, "m", "largest |Phi_i|, loop-closure violation (m or rad)", &d->violation,
               "violation", NULL);
  }
  // Nonholonomic constraints: the largest violation is watched like the loops' (default set;
  // only models that have them get the column, so other CSVs keep their columns), the rate of
  // each constraint on request, next to it so that `all` keeps them together.
  if (sz->nnh > 0) {
    add_double(b, 1, "m/s", "largest |B zd|, nonholonomic constraint violation", &d->nh_violation,
               "violation_nh", NULL);
  }
  for (int k = 0; k < sz->nnh; k++) {
    add_double(b, 0, "m/s", "velocity of the knife edge's point along its axis, B zd",
               d->nh_rate + k, "nh:", NAME(m->nh_name, k));
  }
  if (newton) {
    add_int(b, 1, "Newton iterations of the step", &d->stats.niter_last, "iter");
  }
  for (int k = 0; k < sz->nfrc; k++) {
    add_double(b, 1, "N", "force element force, > 0 pushes apart", d->frc_force + k, "F:",
               NAME(m->frc_name, k));
  }
  for (int k = 0; k < sz->nfrc; k++) {
    add_double(b, 1, "m", "force element length (distance of its markers)", d->frc_len + k,
               "len:", NAME(m->frc_name, k));
  }
  // Hydraulics after everything mechanical: pressures, spools, then per quantity one column per
  // cylinder, then the works of all cylinders together.
  for (int v = 0; v < sz->nvol; v++) {
    add_double(b, 1, "Pa", "volume pressure", d->p + v, "p:", NAME(m->vol_name, v));
  }
  for (int v = 0; v < sz->nvlv; v++) {
    // in V, or as the fraction of the full opening (units: normalized)
    const int norm = m->vlv_units[v] == HY_VALVE_NORMALIZED;
    add_double(b, 1, norm ? "" : "V", "directional valve spool position", d->U + v, "U:",
               NAME(m->vlv_name, v));
  }
  for (int k = 0; k < sz->ncyl; k++) {
    add_double(b, 1, "N", "cylinder pressure force p_a A_a - p_b A_b", d->cyl_F_hyd + k,
               "F_hyd:", cyl_name(m, k));
  }
  for (int k = 0; k < sz->ncyl; k++) {
    add_double(b, 1, "m", "cylinder piston-side chamber length (stroke position)",
               d->cyl_len_a + k, "len_a:", cyl_name(m, k));
  }
  for (int k = 0; k < sz->ncyl; k++) {
    add_double(b, 1, "m", "cylinder rod-side chamber length", d->cyl_len_b + k, "len_b:",
               cyl_name(m, k));
  }
  if (sz->ncyl > 0) {
    add_fn(b, 1, "J", "work of the cylinders on the mechanism since t = 0", actuator_work,
           "W_act");
    add_double(b, 1, "J", "energy dissipated by cylinder viscosity since t = 0", &d->diss_visc,
               "D_visc", NULL);
    add_double(b, 1, "J", "work of the end dampers since t = 0", &d->work_damp, "W_damp",
               NULL);
  }
  // seal friction after the columns of models without it, so that theirs keep their places
  for (int k = 0; k < sz->ncyl; k++) {
    add_double(b, m->cyl_fric[k].law != HY_FRICTION_NONE, "m/s", "cylinder rate (extension)",
               d->frc_rate + m->cyl_frc[k], "rate:", cyl_name(m, k));
  }
  for (int k = 0; k < sz->ncyl; k++) {
    if (m->cyl_fric[k].law == HY_FRICTION_NONE) continue;
    add_double(b, 1, "N", "seal friction force, opposing the rate", d->cyl_F_fric + k, "F_mu:",
               cyl_name(m, k));
  }
  for (int k = 0; k < sz->ncyl; k++) {
    const hy_friction_law law = m->cyl_fric[k].law;
    for (int s = 0; s < hy_friction_nstates(law); s++) {
      char prefix[16];
      snprintf(prefix, sizeof prefix, "%s:", hy_friction_state_name(law, s));
      add_double(b, 1, hy_friction_state_unit(law, s), "seal friction state",
                 d->w + m->cyl_fric_w[k] + s, prefix, cyl_name(m, k));
    }
  }
  if (nfric_cyl > 0) {
    add_double(b, 1, "J", "energy dissipated by seal friction since t = 0", &d->diss_fric,
               "D_fric", NULL);
  }
  // per-step solver figures last, so that the columns before them keep their places
  if (newton) {
    add_double(b, 1, "", "largest scaled Newton residual at the step's last iteration",
               &d->stats.res_last, "residual", NULL);
    add_double(b, 1, "s", "wall time of the step", &d->stats.wall_last, "step_wall", NULL);
  }

  //----- on request
  for (int j = 0; j < njnt; j++) {
    const int prismatic = m->jnt_type[j] == HY_JOINT_PRISMATIC;
    add_double(b, 0, prismatic ? "m/s^2" : "rad/s^2", "joint acceleration",
               joint_value(m, d, j, 2), "zdd:", NAME(m->jnt_name, j));
  }
  // each joint's reaction, with solver.reactions (dca, hdca fill them)
  static const char* const react[6] = {"react_fx:", "react_fy:", "react_fz:",
                                       "react_mx:", "react_my:", "react_mz:"};
  for (int a = 0; m->opt.reactions && a < 6; a++) {
    for (int j = 0; j < njnt; j++) {
      add_double(b, 0, a < 3 ? "N" : "N m",
                 "joint reaction on the child side at the joint point, inertial frame",
                 d->jnt_react + 6 * j + a, react[a], NAME(m->jnt_name, j));
    }
  }
  // and each cut joint's, on its side a
  static const char* const cut_react[6] = {"cut_fx:", "cut_fy:", "cut_fz:",
                                           "cut_mx:", "cut_my:", "cut_mz:"};
  for (int a = 0; m->opt.reactions && a < 6; a++) {
    for (int k = 0; k < sz->ncut; k++) {
      add_double(b, 0, a < 3 ? "N" : "N m",
                 "cut joint reaction on side a's body at its marker, inertial frame",
                 d->cut_react + 6 * k + a, cut_react[a], NAME(m->cut_name, k));
    }
  }
  static const char* const axis_body[3] = {"body_x:", "body_y:", "body_z:"};
  for (int a = 0; a < 3; a++) {
    for (int j = 0; j < sz->nbody; j++) {
      add_double(b, 0, "m", "body frame origin, inertial frame", d->body_pos + 3 * j + a,
                 axis_body[a], NAME(m->body_name, j));
    }
  }
  static const char* const axis_mrk[3] = {"marker_x:", "marker_y:", "marker_z:"};
  for (int a = 0; a < 3; a++) {
    for (int k = 0; k < sz->nmrk; k++) {
      add_double(b, 0, "m", "marker position, inertial frame", d->mrk_pos + 3 * k + a,
                 axis_mrk[a], NAME(m->mrk_name, k));
    }
  }
  for (int k = 0; k < sz->nfrc; k++) {
    add_double(b, 0, "m/s", "force element length rate", d->frc_rate + k, "len_rate:",
               NAME(m->frc_name, k));
  }
  for (int v = 0; v < sz->nvol; v++) {
    add_double(b, 0, "Pa/s", "volume pressure rate", d->pd + v, "pd:", NAME(m->vol_name, v));
  }
  for (int v = 0; v < sz->nvol; v++) {
    add_double(b, 0, "m^3", "oil volume: hoses, cylinder chambers and accumulators' oil",
               d->vol_V + v, "V:", NAME(m->vol_name, v));
  }
  for (int v = 0; v < sz->nvol; v++) {
    add_double(b, 0, "Pa", "effective bulk modulus", d->vol_Be + v, "Be:",
               NAME(m->vol_name, v));
  }
  for (int k = 0; k < sz->norf; k++) {
    add_double(b, 0, "m^3/s", "throttle flow from -> to", d->orf_q + k, "Q:",
               NAME(m->orf_name, k));
  }
  static const char* const path[HY_VALVE_PATHS] = {"Q_PA:", "Q_BT:", "Q_PB:", "Q_AT:", "Q_PT:"};
  for (int p = 0; p < HY_VALVE_PATHS; p++) {
    for (int v = 0; v < sz->nvlv; v++) {
      // P->T only where the centre has that path (open and tandem) or a table gives it: other
      // valves keep the channels they always had
      const int centre = m->vlv_centre[v];
      const int pt_table = m->vlv_edge_n[HY_VALVE_PATHS * v + 4] > 0;
      if (p == 4 && centre != HY_CENTRE_OPEN && centre != HY_CENTRE_TANDEM && !pt_table) continue;
      add_double(b, 0, "m^3/s", "directional valve metering path flow",
                 d->vlv_q + HY_VALVE_PATHS * v + p, path[p], NAME(m->vlv_name, v));
    }
  }
  for (int k = 0; k < sz->npvl; k++) {
    add_double(b, 0, "m^3/s", "check or relief valve flow from -> to", d->pvl_q + k, "Q:",
               NAME(m->pvl_name, k));
  }
  for (int k = 0; k < sz->npump; k++) {
    add_double(b, 0, "m^3/s", "pump flow from -> to", d->pmp_q + k, "Q:", NAME(m->pmp_name, k));
  }
  for (int k = 0; k < sz->npump; k++) {
    add_double(b, 0, "-", "pump displacement fraction (1 for a fixed pump)", d->pmp_eps + k,
               "eps:", NAME(m->pmp_name, k));
  }
  for (int k = 0; k < sz->nacc; k++) {
    add_double(b, 0, "m^3", "oil held by the accumulator", d->acc_V + k, "V_acc:",
               NAME(m->acc_name, k));
  }
  for (int k = 0; k < sz->nacc; k++) {
    add_double(b, 0, "Pa", "accumulator gas pressure: its volume's pressure", d->p + m->acc_vol[k],
               "p_gas:", NAME(m->acc_name, k));
  }
  for (int v = 0; v < sz->nvlv; v++) {
    const int norm = m->vlv_units[v] == HY_VALVE_NORMALIZED;
    add_double(b, 0, norm ? "1/s" : "V/s", "spool velocity", d->Ud + v, "Ud:",
               NAME(m->vlv_name, v));
  }
  for (int k = 0; k < sz->ncyl; k++) {
    add_double(b, 0, "N", "cylinder viscous force -c s_dot", d->cyl_F_visc + k, "F_visc:",
               cyl_name(m, k));
  }
  for (int k = 0; k < sz->ncyl; k++) {
    add_double(b, 0, "N", "cylinder end damper force, > 0 pushes out", d->cyl_F_damp + k,
               "F_damp:", cyl_name(m, k));
  }
  if (sz->ncyl > 0) {
    add_double(b, 0, "J", "work of the cylinders' pressure forces since t = 0", &d->work_hyd,
               "W_hyd", NULL);
  }
  if (newton) {
    add_fn(b, 0, "", "Newton iterations of the run so far", iter_total, "iter_total");
  }
}

hy_status hy_channels_make(const hy_model* m, const hy_data* d, hy_channels** out,
                           hy_error* err) {
  if (!m || !d || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_channels_make: NULL argument");
  *out = NULL;
  hy_channels counting = {0, NULL};
  builder b = {&counting, 0};
  build(&b, m, d);
  hy_channels* c = hy_calloc(1, sizeof *c);
  if (!c) return HY_FAIL(err, HY_ERR_NOMEM, "channels: out of memory");
  c->ch = hy_calloc((size_t)counting.n, sizeof *c->ch);
  if (!c->ch) {
    hy_free(c);
    return HY_FAIL(err, HY_ERR_NOMEM, "channels: out of memory");
  }
  b.c = c;
  b.cap = counting.n;
  build(&b, m, d);
  *out = c;
  return HY_OK;
}

void hy_channels_free(hy_channels* c) {
  if (!c) return;
  hy_free(c->ch);
  hy_free(c);
}

int hy_channels_find(const hy_channels* c, const char* name) {
  if (!c || !name) return -1;
  for (int i = 0; i < c->n; i++) {
    if (strcmp(c->ch[i].name, name) == 0) return i;
  }
  return -1;
}

int hy_channel_match(const char* pattern, const char* name) {
  // iterative glob with one backtrack point (the last *), linear in practice
  const char *star = NULL, *resume = NULL;
  while (*name) {
    if (*pattern == '*') {
      star = pattern++;
      resume = name;
    } else if (*pattern == '?' || *pattern == *name) {
      pattern++;
      name++;
    } else if (star) {
      pattern = star + 1;
      name = ++resume;
    } else {
      return 0;
    }
  }
  while (*pattern == '*') pattern++;
  return *pattern == '\0';
}

double hy_channel_value(const hy_channel* ch, const hy_data* d) {
  switch (ch->source) {
    case HY_CHANNEL_DOUBLE:
      return *ch->value;
    case HY_CHANNEL_INT:
      return (double)*ch->count;
    case HY_CHANNEL_FN:
      return ch->fn(d);
  }
  return 0.0;
}

void hy_channels_eval(const hy_channels* c, const hy_data* d, const int* idx, int n,
                      double* out) {
  // every step of a recorded run: most channels are a load through their pointer, and a call
  // per channel would cost as much as the writer (6.7 M instructions on four-bar A's cycle)
  for (int i = 0; i < n; i++) {
    const hy_channel* ch = &c->ch[idx[i]];
    out[i] = ch->source == HY_CHANNEL_DOUBLE ? *ch->value : hy_channel_value(ch, d);
  }
}

// The distinct prefixes of the channels ("z:, zd:, p:, E_kin, ..."), for a message.
static void list_prefixes(const hy_channels* c, char* buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < c->n && used + 1 < size; i++) {
    const char* name = c->ch[i].name;
    const char* colon = strchr(name, ':');
    const size_t len = colon ? (size_t)(colon - name + 1) : strlen(name);
    int seen = 0;
    for (int k = 0; k < i && !seen; k++) {
      seen = strncmp(c->ch[k].name, name, len) == 0 &&
             (colon ? 1 : c->ch[k].name[len] == '\0');
    }
    if (seen) continue;
    int w = snprintf(buf + used, size - used, "%s%.*s%s", used ? ", " : "", (int)len, name,
                     colon ? "*" : "");
    if (w < 0 || (size_t)w >= size - used) break;
    used += (size_t)w;
  }
}

hy_status hy_channels_select(const hy_channels* c, const char* spec, int** idx, int* n,
                             hy_error* err) {
  if (!c || !idx || !n) return HY_FAIL(err, HY_ERR_ARG, "hy_channels_select: NULL argument");
  *idx = NULL;
  *n = 0;
  int* sel = hy_calloc((size_t)c->n + 1, sizeof *sel);
  char* taken = hy_calloc((size_t)c->n + 1, 1);
  if (!sel || !taken) {
    hy_free(sel);
    hy_free(taken);
    return HY_FAIL(err, HY_ERR_NOMEM, "channels: out of memory");
  }
  int count = 0;
  // time first, always: every results file is a function of time
  const int t = hy_channels_find(c, "time");
  if (t >= 0) {
    sel[count++] = t;
    taken[t] = 1;
  }
  const char* p = spec && spec[0] ? spec : "default";
  while (*p) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char pattern[HY_CHANNEL_NAME_MAX + 8];
    if (len == 0 || len >= sizeof pattern) {
      hy_free(sel);
      hy_free(taken);
      return HY_FAIL(err, HY_ERR_ARG, len ? "channel pattern '%.40s...' is too long"
                                          : "empty channel pattern in '%s'",
                     len ? p : spec);
    }
    memcpy(pattern, p, len);
    pattern[len] = '\0';
    int matched = 0;
    for (int i = 0; i < c->n; i++) {
      const int hit = strcmp(pattern, "all") == 0       ? 1
                      : strcmp(pattern, "default") == 0 ? c->ch[i].is_default
                                                        : hy_channel_match(pattern, c->ch[i].name);
      if (!hit) continue;
      matched = 1;
      if (!taken[i]) {
        taken[i] = 1;
        sel[count++] = i;
      }
    }
    if (!matched) {
      char prefixes[600];
      list_prefixes(c, prefixes, sizeof prefixes);
      hy_free(sel);
      hy_free(taken);
      return HY_FAIL(err, HY_ERR_ARG,
                     "no channel matches '%s' ('hydyn channels MODEL' lists them; this model "
                     "offers %s)",
                     pattern, prefixes);
    }
    p += len;
    if (*p == ',') p++;
  }
  hy_free(taken);
  *idx = sel;
  *n = count;
  return HY_OK;
}

void hy_channels_free_selection(int* idx) { hy_free(idx); }
