// CSV recorder: a header naming every column with its unit, then one row per recorded step,
// streamed to the file as the run goes.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "io/io.h"

struct hy_csv {
  FILE* fp;
  int is_stdout;   // "-": flushed, never closed
  int nz;          // coordinates of the model the header was written for
  int njnt;        // joints (one coordinate each)
  int violation;   // 1 = violation[m] column (the model has cut joints)
  int iter;        // 1 = iter column (penalty or double-step: Newton iterations)
  int nfrc;        // force elements (two columns each)
  int nvol;        // hydraulic volumes (one pressure column each)
  int nvlv;        // directional valves (one spool column each)
  int ncyl;        // cylinders (three columns each, then the three work columns)
  int nfric;       // cylinders with seal friction (rate and F_mu columns, their states', D_fric)
  long unflushed;  // rows written since the last flush
  int failed;      // a write failed: reported again at close
};

// Writes one header or text field, quoted when it holds a separator, a quote or a line break
// (joint names come from model files and may hold anything).
static int put_field(FILE* fp, const char* prefix, const char* name, const char* unit) {
  int quote = strpbrk(name, ",\"\r\n") != NULL;
  if (!quote) return fprintf(fp, "%s%s[%s]", prefix, name, unit) < 0 ? -1 : 0;
  if (fprintf(fp, "\"%s", prefix) < 0) return -1;
  for (const char* p = name; *p; p++) {
    if (*p == '"' && fputc('"', fp) == EOF) return -1;
    if (fputc(*p, fp) == EOF) return -1;
  }
  return fprintf(fp, "[%s]\"", unit) < 0 ? -1 : 0;
}

// Name of cylinder c: that of its force element.
static const char* cyl_name(const hy_model* m, int c) {
  return m->frc_name + (size_t)m->cyl_frc[c] * HY_NAME_MAX;
}

static int write_header(FILE* fp, const hy_model* m, const hy_csv* c) {
  const int njnt = m->sizes.nbody;
  if (fputs("time[s]", fp) == EOF) return -1;
  for (int pass = 0; pass < 2; pass++) {
    for (int j = 0; j < njnt; j++) {
      const int prismatic = m->jnt_type[j] == HY_JOINT_PRISMATIC;
      const char* unit = pass == 0 ? (prismatic ? "m" : "rad") : (prismatic ? "m/s" : "rad/s");
      if (fputc(',', fp) == EOF) return -1;
      if (put_field(fp, pass == 0 ? "z:" : "zd:", m->jnt_name + (size_t)j * HY_NAME_MAX, unit)) {
        return -1;
      }
    }
  }
  if (fputs(",E_kin[J],E_pot[J],W_ext[J],E_total[J]", fp) == EOF) return -1;
  // Closed-loop columns come after the energies, so the leading columns of every model stay in
  // the same place for scripts written against open trees.
  if (c->violation && fputs(",violation[m]", fp) == EOF) return -1;
  if (c->iter && fputs(",iter", fp) == EOF) return -1;
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < c->nfrc; k++) {
      if (fputc(',', fp) == EOF) return -1;
      if (put_field(fp, pass == 0 ? "F:" : "len:", m->frc_name + (size_t)k * HY_NAME_MAX,
                    pass == 0 ? "N" : "m")) {
        return -1;
      }
    }
  }
  // Hydraulics after everything mechanical: pressures, spools, then per quantity one column per
  // cylinder (as F: and len: above), then the work of all cylinders together.
  for (int v = 0; v < c->nvol; v++) {
    if (fputc(',', fp) == EOF) return -1;
    if (put_field(fp, "p:", m->vol_name + (size_t)v * HY_NAME_MAX, "Pa")) return -1;
  }
  for (int v = 0; v < c->nvlv; v++) {
    if (fputc(',', fp) == EOF) return -1;
    if (put_field(fp, "U:", m->vlv_name + (size_t)v * HY_NAME_MAX, "V")) return -1;
  }
  static const char* const cyl_prefix[3] = {"F_hyd:", "len_a:", "len_b:"};
  static const char* const cyl_unit[3] = {"N", "m", "m"};
  for (int pass = 0; pass < 3; pass++) {
    for (int k = 0; k < c->ncyl; k++) {
      if (fputc(',', fp) == EOF) return -1;
      if (put_field(fp, cyl_prefix[pass], cyl_name(m, k), cyl_unit[pass])) return -1;
    }
  }
  if (c->ncyl > 0 && fputs(",W_act[J],D_visc[J],W_damp[J]", fp) == EOF) return -1;
  // seal friction, after the columns of models without it so that theirs keep their places:
  // per cylinder with friction its rate and F_mu, then its internal states, then D_fric
  for (int pass = 0; pass < 2 && c->nfric > 0; pass++) {
    for (int k = 0; k < c->ncyl; k++) {
      if (m->cyl_fric[k].law == HY_FRICTION_NONE) continue;
      if (fputc(',', fp) == EOF) return -1;
      if (put_field(fp, pass == 0 ? "rate:" : "F_mu:", cyl_name(m, k), pass == 0 ? "m/s" : "N")) {
        return -1;
      }
    }
  }
  for (int k = 0; k < c->ncyl && c->nfric > 0; k++) {
    const hy_friction_law law = m->cyl_fric[k].law;
    for (int s = 0; s < hy_friction_nstates(law); s++) {
      char prefix[8];
      snprintf(prefix, sizeof prefix, "%s:", hy_friction_state_name(law, s));
      if (fputc(',', fp) == EOF) return -1;
      if (put_field(fp, prefix, cyl_name(m, k), hy_friction_state_unit(law, s))) return -1;
    }
  }
  if (c->nfric > 0 && fputs(",D_fric[J]", fp) == EOF) return -1;
  // per-step statistics last, so that the columns before them keep their places
  if (c->iter && fputs(",residual,step_wall[s]", fp) == EOF) return -1;
  return fputc('\n', fp) == EOF ? -1 : 0;
}

hy_status hy_csv_open(const char* path, const hy_model* m, const hy_data* d, hy_csv** out,
                      hy_error* err) {
  if (!path || !m || !d || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_csv_open: NULL argument");
  // The columns are one per joint; a joint with several coordinates would need more names.
  if (m->sizes.nz != m->sizes.nbody) {
    return HY_FAIL(err, HY_ERR_ARG, "CSV recorder: %d coordinates for %d joints", m->sizes.nz,
                   m->sizes.nbody);
  }
  hy_csv* c = hy_calloc(1, sizeof *c);
  if (!c) return HY_FAIL(err, HY_ERR_NOMEM, "CSV recorder: out of memory");
  c->is_stdout = strcmp(path, "-") == 0;
  c->fp = c->is_stdout ? stdout : fopen(path, "w");
  if (!c->fp) {
    int e = errno;
    hy_free(c);
    return HY_FAIL(err, HY_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(e));
  }
  c->nz = m->sizes.nz;
  c->njnt = m->sizes.nbody;
  c->violation = m->sizes.ncut > 0;
  c->iter = d->integrator == HY_INTEG_TRAPEZOIDAL;
  c->nfrc = m->sizes.nfrc;
  c->nvol = m->sizes.nvol;
  c->nvlv = m->sizes.nvlv;
  c->ncyl = m->sizes.ncyl;
  for (int k = 0; k < c->ncyl; k++) c->nfric += m->cyl_fric[k].law != HY_FRICTION_NONE;
  // The header is flushed at once so that even a run failing at its first step leaves a file
  // that says what it would have held.
  if (write_header(c->fp, m, c) || fflush(c->fp) == EOF) {
    int e = errno;
    if (!c->is_stdout) fclose(c->fp);
    hy_free(c);
    return HY_FAIL(err, HY_ERR_IO, "cannot write '%s': %s", path, strerror(e));
  }
  *out = c;
  return HY_OK;
}

// The first entry of v (n) that is not finite, or -1.
static int nonfinite(const double* v, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) return i;
  }
  return -1;
}

// Which quantity of the row in d is not finite (the first), or NULL: no row holds one, so that
// a file never carries a value a reader cannot use.
static const char* nonfinite_column(const hy_csv* c, const hy_model* m, const hy_data* d,
                                    int* index) {
  const double scalars[] = {d->time,      d->energy_kin, d->energy_pot, d->work_ext,
                            d->violation, d->work_hyd,   d->diss_visc,  d->work_damp,
                            d->diss_fric};
  static const char* const names[] = {"time",      "E_kin",    "E_pot",     "W_ext",
                                      "violation", "work_hyd", "diss_visc", "work_damp",
                                      "diss_fric"};
  *index = -1;
  for (size_t k = 0; k < sizeof scalars / sizeof scalars[0]; k++) {
    if (!isfinite(scalars[k])) return names[k];
  }
  struct {
    const char* name;
    const double* v;
    int n;
  } arrays[] = {{"z", d->z, c->nz},           {"zd", d->zd, c->nz},
                {"F", d->frc_force, c->nfrc}, {"len", d->frc_len, c->nfrc},
                {"p", d->p, c->nvol},         {"U", d->U, c->nvlv},
                {"F_hyd", d->cyl_F_hyd, c->ncyl}, {"len_a", d->cyl_len_a, c->ncyl},
                {"len_b", d->cyl_len_b, c->ncyl}, {"F_mu", d->cyl_F_fric, c->ncyl},
                {"w", d->w, m->sizes.nfric}};
  (void)m;
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
    *index = nonfinite(arrays[k].v, arrays[k].n);
    if (*index >= 0) return arrays[k].name;
  }
  return NULL;
}

hy_status hy_csv_write(hy_csv* c, const hy_model* m, const hy_data* d, hy_error* err) {
  if (!c || !m || !d || m->sizes.nz != c->nz || m->sizes.nfrc != c->nfrc ||
      m->sizes.nvol != c->nvol || m->sizes.nvlv != c->nvlv || m->sizes.ncyl != c->ncyl) {
    return HY_FAIL(err, HY_ERR_ARG, "CSV recorder: the data is not of the model of the file");
  }
  int index;
  const char* which = nonfinite_column(c, m, d, &index);
  if (which) {
    char entry[32] = "";
    if (index >= 0) snprintf(entry, sizeof entry, " entry %d", index);
    return HY_FAIL(err, HY_ERR_NAN,
                   "CSV recorder: %s%s is not finite at t = %.9g s: the row is not written",
                   which, entry, d->time);
  }
  FILE* fp = c->fp;
  // %.17g: the shortest fixed precision that round-trips every double, so the file can serve as
  // a reference trajectory without loss.
  int bad = fprintf(fp, "%.17g", d->time) < 0;
  for (int pass = 0; pass < 2 && !bad; pass++) {
    const double* v = pass == 0 ? d->z : d->zd;
    for (int j = 0; j < c->njnt && !bad; j++) {
      bad = fprintf(fp, ",%.17g", v[m->jnt_zadr[j]]) < 0;
    }
  }
  if (!bad) {
    bad = fprintf(fp, ",%.17g,%.17g,%.17g,%.17g", d->energy_kin, d->energy_pot, d->work_ext,
                  hy_energy_total(d)) < 0;
  }
  if (!bad && c->violation) bad = fprintf(fp, ",%.17g", d->violation) < 0;
  if (!bad && c->iter) {
    bad = fprintf(fp, ",%d", d->stats.niter_last) < 0;
  }
  for (int pass = 0; pass < 2 && !bad; pass++) {
    const double* v = pass == 0 ? d->frc_force : d->frc_len;
    for (int k = 0; k < c->nfrc && !bad; k++) bad = fprintf(fp, ",%.17g", v[k]) < 0;
  }
  for (int v = 0; v < c->nvol && !bad; v++) bad = fprintf(fp, ",%.17g", d->p[v]) < 0;
  for (int v = 0; v < c->nvlv && !bad; v++) bad = fprintf(fp, ",%.17g", d->U[v]) < 0;
  for (int pass = 0; pass < 3 && !bad; pass++) {
    const double* v = pass == 0 ? d->cyl_F_hyd : (pass == 1 ? d->cyl_len_a : d->cyl_len_b);
    for (int k = 0; k < c->ncyl && !bad; k++) bad = fprintf(fp, ",%.17g", v[k]) < 0;
  }
  if (!bad && c->ncyl > 0) {
    // W_act: the cylinders' work on the mechanism (hy_actuator_work), the quantity `hydyn run`
    // quotes the energy drift against
    bad = fprintf(fp, ",%.17g,%.17g,%.17g", hy_actuator_work(d), d->diss_visc, d->work_damp) < 0;
  }
  for (int pass = 0; pass < 2 && c->nfric > 0 && !bad; pass++) {
    for (int k = 0; k < c->ncyl && !bad; k++) {
      if (m->cyl_fric[k].law == HY_FRICTION_NONE) continue;
      const double v = pass == 0 ? d->frc_rate[m->cyl_frc[k]] : d->cyl_F_fric[k];
      bad = fprintf(fp, ",%.17g", v) < 0;
    }
  }
  for (int k = 0; k < m->sizes.nfric && !bad; k++) bad = fprintf(fp, ",%.17g", d->w[k]) < 0;
  if (c->nfric > 0 && !bad) bad = fprintf(fp, ",%.17g", d->diss_fric) < 0;
  if (!bad && c->iter) {
    bad = fprintf(fp, ",%.6g,%.6g", d->stats.res_last, d->stats.wall_last) < 0;
  }
  if (!bad) bad = fputc('\n', fp) == EOF;
  if (!bad && ++c->unflushed >= HY_CSV_FLUSH_ROWS) {
    bad = fflush(fp) == EOF;
    c->unflushed = 0;
  }
  if (bad) {
    c->failed = 1;
    return HY_FAIL(err, HY_ERR_IO, "CSV recorder: writing failed: %s", strerror(errno));
  }
  return HY_OK;
}

hy_status hy_csv_close(hy_csv* c) {
  if (!c) return HY_OK;
  int bad = c->failed;
  if (fflush(c->fp) == EOF || ferror(c->fp)) bad = 1;
  if (!c->is_stdout && fclose(c->fp) == EOF) bad = 1;
  hy_free(c);
  return bad ? HY_ERR_IO : HY_OK;
}
