// Named numerical parameters of a compiled model, "kind:element.field" (`hydyn linearize
// --sensitivity`, `--sweep`): one table of what a user may vary, each entry a place in the
// model's arrays. The derived quantities the compiler computed from a parameter (the planar
// records of a body's inertia, say) are not recomputed: the table holds only parameters that
// the engine reads directly.
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "model/model.h"

typedef enum kind { K_BODY, K_CYL, K_VOL, K_CIRC, K_VLV, K_ORF, K_PMP, K_ACC, K_COUNT } kind;

static const char* const kind_names[K_COUNT] = {"body",  "cylinder", "volume", "circuit",
                                                "valve", "throttle", "pump",   "accumulator"};

typedef struct field {
  kind k;
  const char* name;
  const char* unit;
  const char* what;
} field;

static const field fields[] = {
    {K_BODY, "mass", "kg", "the body's mass"},
    {K_CYL, "area_a", "m^2", "piston area"},
    {K_CYL, "area_b", "m^2", "rod-side annulus area"},
    {K_CYL, "viscous", "N s/m", "viscous coefficient c"},
    {K_CYL, "bulk_modulus", "Pa", "container modulus of the chambers"},
    {K_CYL, "damper_k", "N/m", "end damper stiffness"},
    {K_CYL, "damper_c", "N s/m", "end damper damping"},
    {K_CYL, "friction.coulomb", "N", "seal friction F_c"},
    {K_CYL, "friction.stiction", "N", "seal friction F_s"},
    {K_CYL, "friction.viscous", "N s/m", "seal friction sigma2"},
    {K_CYL, "friction.stribeck_velocity", "m/s", "seal friction v_s"},
    {K_VOL, "hose_volume", "m^3", "hose and pipe volume"},
    {K_VOL, "hose_bulk_modulus", "Pa", "container modulus of the hoses"},
    {K_CIRC, "oil_bulk_modulus", "Pa", "oil bulk modulus B0"},
    {K_VLV, "cv", "m^3/(s V sqrt(Pa))", "flow coefficient per metering path"},
    {K_VLV, "tau", "s", "spool time constant"},
    {K_VLV, "overlap", "V", "overlap of the metering edges (< 0: underlap)"},
    {K_VLV, "leakage", "m^3/(s Pa)", "laminar leakage of each metering edge"},
    {K_ORF, "cv", "m^3/(s sqrt(Pa))", "flow coefficient"},
    {K_PMP, "displacement", "m^3/rev", "pump displacement D"},
    {K_PMP, "speed", "rev/s", "pump shaft speed n"},
    {K_PMP, "leakage", "m^3/(s Pa)", "pump leakage coefficient C_leak"},
    {K_ACC, "precharge", "Pa", "gas pre-charge pressure"},
    {K_ACC, "gas_volume", "m^3", "gas volume at pre-charge"},
    {K_ACC, "polytropic", "-", "polytropic exponent of the gas"},
};
enum { NFIELD = (int)(sizeof fields / sizeof fields[0]) };

static int count_of(const hy_model* m, kind k) {
  switch (k) {
    case K_BODY: return m->sizes.nbody;
    case K_CYL: return m->sizes.ncyl;
    case K_VOL: return m->sizes.nvol;
    case K_CIRC: return m->sizes.ncirc;
    case K_VLV: return m->sizes.nvlv;
    case K_ORF: return m->sizes.norf;
    case K_PMP: return m->sizes.npump;
    case K_ACC: return m->sizes.nacc;
    default: return 0;
  }
}

static const char* element_name(const hy_model* m, kind k, int i) {
  switch (k) {
    case K_BODY: return m->body_name + (size_t)i * HY_NAME_MAX;
    case K_CYL: return m->frc_name + (size_t)m->cyl_frc[i] * HY_NAME_MAX;
    case K_VOL: return m->vol_name + (size_t)i * HY_NAME_MAX;
    case K_CIRC: return m->circ_name + (size_t)i * HY_NAME_MAX;
    case K_VLV: return m->vlv_name + (size_t)i * HY_NAME_MAX;
    case K_ORF: return m->orf_name + (size_t)i * HY_NAME_MAX;
    case K_PMP: return m->pmp_name + (size_t)i * HY_NAME_MAX;
    case K_ACC: return m->acc_name + (size_t)i * HY_NAME_MAX;
    default: return "";
  }
}

static double* place(hy_model* m, const field* f, int i) {
  hy_friction_def* fr = f->k == K_CYL ? m->cyl_fric + i : NULL;
  switch (f->k) {
    case K_BODY: return m->body_mass + i;
    case K_CYL:
      if (strcmp(f->name, "area_a") == 0) return m->cyl_area_a + i;
      if (strcmp(f->name, "area_b") == 0) return m->cyl_area_b + i;
      if (strcmp(f->name, "viscous") == 0) return m->cyl_visc + i;
      if (strcmp(f->name, "bulk_modulus") == 0) return m->cyl_B + i;
      if (strcmp(f->name, "damper_k") == 0) return m->cyl_kd + i;
      if (strcmp(f->name, "damper_c") == 0) return m->cyl_cd + i;
      if (strcmp(f->name, "friction.coulomb") == 0) return &fr->coulomb;
      if (strcmp(f->name, "friction.stiction") == 0) return &fr->stiction;
      if (strcmp(f->name, "friction.viscous") == 0) return &fr->viscous;
      return &fr->stribeck_velocity;
    case K_VOL:
      return strcmp(f->name, "hose_volume") == 0 ? m->vol_hose + i : m->vol_B_hose + i;
    case K_CIRC: return m->circ_B_oil + i;
    case K_VLV:
      if (strcmp(f->name, "cv") == 0) return m->vlv_cv + i;
      if (strcmp(f->name, "overlap") == 0) return m->vlv_overlap + i;
      if (strcmp(f->name, "leakage") == 0) return m->vlv_leak + i;
      return m->vlv_tau + i;
    case K_ORF: return m->orf_cv + i;
    case K_PMP:
      if (strcmp(f->name, "displacement") == 0) return m->pmp_disp + i;
      return strcmp(f->name, "speed") == 0 ? m->pmp_speed + i : m->pmp_leak + i;
    case K_ACC:
      if (strcmp(f->name, "precharge") == 0) return m->acc_p0 + i;
      return strcmp(f->name, "gas_volume") == 0 ? m->acc_V0 + i : m->acc_n + i;
    default: return NULL;
  }
}

double* hy_model_param(hy_model* m, const char* name, const char** unit, hy_error* err) {
  if (!m || !name) {
    HY_FAIL(err, HY_ERR_ARG, "hy_model_param: NULL argument");
    return NULL;
  }
  const char* colon = strchr(name, ':');
  const char* dot = colon ? strchr(colon + 1, '.') : NULL;
  if (!colon || !dot) {
    HY_FAIL(err, HY_ERR_ARG,
            "parameter '%s': expected KIND:ELEMENT.FIELD, e.g. cylinder:cylinder.viscous "
            "('hydyn linearize MODEL --parameters' lists them)", name);
    return NULL;
  }
  char elem[HY_NAME_MAX];
  const size_t klen = (size_t)(colon - name);
  size_t elen = (size_t)(dot - colon - 1);
  if (elen >= sizeof elem) elen = sizeof elem - 1;
  memcpy(elem, colon + 1, elen);
  elem[elen] = '\0';
  for (int k = 0; k < K_COUNT; k++) {
    if (strlen(kind_names[k]) != klen || strncmp(kind_names[k], name, klen) != 0) continue;
    // the element is the longest name followed by a dot: names may hold dots themselves (the
    // massless bodies of a joint's chain are "<joint>.<k>")
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < count_of(m, (kind)k); i++) {
      const char* en = element_name(m, (kind)k, i);
      const size_t n = strlen(en);
      if ((best < 0 || n > best_len) && strncmp(colon + 1, en, n) == 0 && colon[1 + n] == '.') {
        best = i;
        best_len = n;
      }
    }
    if (best >= 0) {
      const char* fname = colon + 2 + best_len;
      for (int f = 0; f < NFIELD; f++) {
        if (fields[f].k == (kind)k && strcmp(fields[f].name, fname) == 0) {
          if (unit) *unit = fields[f].unit;
          return place(m, fields + f, best);
        }
      }
      HY_FAIL(err, HY_ERR_ARG, "parameter '%s': a %s has no field '%s' ('hydyn linearize MODEL "
              "--parameters' lists them)", name, kind_names[k], fname);
      return NULL;
    }
    HY_FAIL(err, HY_ERR_ARG, "parameter '%s': model '%s' has no %s named '%s'", name, m->name,
            kind_names[k], elem);
    return NULL;
  }
  HY_FAIL(err, HY_ERR_ARG,
          "parameter '%s': unknown kind '%.*s' (body, cylinder, volume, circuit, valve, throttle, "
          "pump, accumulator)",
          name, (int)klen, name);
  return NULL;
}

int hy_model_param_count(const hy_model* m) {
  int n = 0;
  for (int f = 0; f < NFIELD; f++) n += count_of(m, fields[f].k);
  return n;
}

void hy_model_param_name(const hy_model* m, int i, char* buf, size_t size, const char** unit,
                         const char** what) {
  for (int f = 0; f < NFIELD; f++) {
    const int n = count_of(m, fields[f].k);
    if (i < n) {
      snprintf(buf, size, "%s:%s.%s", kind_names[fields[f].k], element_name(m, fields[f].k, i),
               fields[f].name);
      if (unit) *unit = fields[f].unit;
      if (what) *what = fields[f].what;
      return;
    }
    i -= n;
  }
  if (size) buf[0] = '\0';
}
