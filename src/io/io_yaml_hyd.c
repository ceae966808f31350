// Hydraulic circuits of a model file: oil, volumes, sources, pumps, throttles, directional, check
// and relief valves and cylinders (docs/hydraulics.md).
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "io/io.h"
#include "hydyn/names.h"
#include "io/io_yaml.h"

//----- hydraulics ----------------------------------------------------------------------------

// An optional list under `key` of mapping `map` (element `it`): absent, blank or [] is empty.
static hy_status get_sublist(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                             const char* key, const char* expect, const hy_io_node** out) {
  const hy_io_node* v = hy_io_map_val(map, key);
  *out = NULL;
  if (hy_io_is_null(v) || (v->kind == HY_IO_SEQ && v->nkid == 0)) return HY_OK;
  if (v->kind == HY_IO_SEQ) {
    *out = v;
    return HY_OK;
  }
  char got[96];
  return HY_IO_FAIL_AT(ld, v, "%s: %s: expected a list of %s, got %s", it->where, key, expect,
                       hy_io_describe(v, got, sizeof got));
}

// A nested mapping under `key` with the allowed keys `keys`; *out is NULL when absent.
static hy_status get_submap(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* map,
                            const char* key, const char* const* keys, const hy_io_node** out) {
  const hy_io_node* v = hy_io_map_val(map, key);
  *out = NULL;
  if (!v) return HY_OK;
  if (v->kind != HY_IO_MAP) {
    char got[96], expected[256];
    hy_io_join_names(expected, sizeof expected, keys);
    return HY_IO_FAIL_AT(ld, hy_io_place(v, hy_io_map_key(map, key)),
                         "%s: %s: expected a mapping with keys %s; got %s", it->where, key,
                         expected, hy_io_describe(v, got, sizeof got));
  }
  char what[200];
  snprintf(what, sizeof what, "'%s' of %s", key, it->what);
  HY_TRY(hy_io_check_keys(ld, v, keys, what));
  *out = v;
  return HY_OK;
}

// An optional non-negative (allow_zero) or positive number under `key`; *out keeps its value
// when the key is absent (see need_positive).
static hy_status opt_positive(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                              const char* key, int allow_zero, const char* unit, double* out) {
  if (!hy_io_map_val(n, key)) return HY_OK;
  return hy_io_get_positive(ld, it->where, key, hy_io_map_val(n, key), hy_io_map_key(n, key),
                            allow_zero, unit, out);
}

// A required positive (or non-negative) number under `key`: only for the inputs of the
// orifice form, whose sign the flow coefficient no longer shows.
static hy_status need_positive(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                               const char* key, int allow_zero, const char* unit, double* out) {
  char expect[96];
  snprintf(expect, sizeof expect, "a %s number, %s", allow_zero ? "non-negative" : "positive",
           unit);
  HY_TRY(hy_io_require(ld, it, n, key, expect));
  return opt_positive(ld, it, n, key, allow_zero, unit, out);
}

// An optional number under `key`; *out keeps its value when the key is absent. Its range is
// hy_model_check's.
static hy_status opt_number(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                            const char* key, double* out) {
  if (!hy_io_map_val(n, key)) return HY_OK;
  return hy_io_get_number(ld, it->where, key, hy_io_map_val(n, key), hy_io_map_key(n, key), out);
}

// The element `it` seen from one of its nested mappings: values there are reported as
// "<where>: <key>: ...". A long prefix is cut, which only shortens the message.
static hy_io_item sub_item(const hy_io_item* it, const char* key) {
  hy_io_item sub = *it;
  int w = snprintf(sub.where, sizeof sub.where, "%s: %s", it->where, key);
  if (w < 0) sub.where[0] = 0;
  return sub;
}

static hy_status add_failed(hy_io_loader* ld, const char* kind, const char* name) {
  return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory adding %s '%s'", kind, name);
}

// A wall's bulk modulus under `key`: a number (its range is hy_model_check's) or the word
// `rigid`, HY_RIGID: no compliance term (docs/hydraulics.md, "Rigid walls"). *out keeps its
// value when the key is absent.
static hy_status opt_wall_modulus(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                                  const char* key, double* out) {
  const hy_io_node* v = hy_io_map_val(n, key);
  if (!v) return HY_OK;
  if (v->kind == HY_IO_SCALAR && v->plain && strcmp(v->text, "rigid") == 0) {
    *out = HY_RIGID;
    return HY_OK;
  }
  if (v->kind == HY_IO_SCALAR && v->plain && hy_io_parse_number(v->text, v->len, out) == 1) {
    return HY_OK;
  }
  char got[96];
  return HY_IO_FAIL_AT(ld, hy_io_place(v, hy_io_map_key(n, key)),
                       "%s: %s: expected a bulk modulus in Pa or 'rigid', got %s", it->where, key,
                       hy_io_describe(v, got, sizeof got));
}

//----- oil laws ------------------------------------------------------------------------------

// The keys of an `oil:` mapping besides `law`, the laws that read each (bit k for hy_bulk_law k)
// and those that need it. A key the law does not read is refused, so a parameter meant for
// another law never goes unnoticed; `k` with the constant law is read and not used, as it
// always was.
#define BULK(k) (1u << (k))
typedef struct oil_key {
  const char* key;
  size_t offset;  // of its double in hy_oil_def (the table: of table_p, read by load_oil_table)
  unsigned reads, needs;
  const char* expect;  // for messages
} oil_key;

#define ONE_OF_B0 (BULK(HY_BULK_CONSTANT) | BULK(HY_BULK_LINEAR) | BULK(HY_BULK_AIR))
static const oil_key kOilKeys[] = {
    {"bulk_modulus", offsetof(hy_oil_def, B_oil), ONE_OF_B0, ONE_OF_B0, "a positive number, Pa"},
    {"k", offsetof(hy_oil_def, law_k), BULK(HY_BULK_CONSTANT) | BULK(HY_BULK_LINEAR),
     BULK(HY_BULK_LINEAR), "a non-negative number, dB/dp, dimensionless"},
    {"a", offsetof(hy_oil_def, law_a), BULK(HY_BULK_POLYNOMIAL), BULK(HY_BULK_POLYNOMIAL),
     "a positive number, 1/Pa"},
    {"b", offsetof(hy_oil_def, law_b), BULK(HY_BULK_POLYNOMIAL), 0, "a number, 1/Pa^2"},
    {"air_fraction", offsetof(hy_oil_def, air_fraction), BULK(HY_BULK_AIR), BULK(HY_BULK_AIR),
     "a number from 0 to below 1"},
    {"polytropic", offsetof(hy_oil_def, polytropic), BULK(HY_BULK_AIR), 0, "a number from 1 to 2"},
    {"p_atm", offsetof(hy_oil_def, p_atm), BULK(HY_BULK_AIR), 0, "a positive number, Pa"},
    {"table", offsetof(hy_oil_def, table_p), BULK(HY_BULK_TABLE), BULK(HY_BULK_TABLE),
     "a list of [p, beta] pairs, Pa"},
};
#define NOIL_KEYS (sizeof kOilKeys / sizeof kOilKeys[0])

// A table under `label` (element `it`, key node `key`): a list of at least one pair `pair`
// (such as "[p, beta]", in `units` such as "(Pa, Pa)"), into newly allocated *xs and *ys and
// its length into *n (the caller frees them, also on failure). The oil's table law and the
// valves' edge tables; their rules on the numbers are hy_model_check's.
static hy_status load_pairs(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* v,
                            const hy_io_node* key, const char* label, const char* pair,
                            const char* units, const double** xs, const double** ys, int* n) {
  char got[96];
  if (v->kind != HY_IO_SEQ || v->nkid == 0) {
    return HY_IO_FAIL_AT(ld, hy_io_place(v, key), "%s: %s: expected a list of %s pairs %s, got %s",
                         it->where, label, pair, units, hy_io_describe(v, got, sizeof got));
  }
  double* tx = hy_malloc(sizeof(double) * (size_t)v->nkid);
  double* ty = hy_malloc(sizeof(double) * (size_t)v->nkid);
  *xs = tx;
  *ys = ty;
  if (!tx || !ty) return HY_FAIL(ld->err, HY_ERR_NOMEM, "out of memory reading %s", label);
  for (int i = 0; i < v->nkid; i++) {
    const hy_io_node* row = v->kid[i];
    char row_label[64];
    snprintf(row_label, sizeof row_label, "%s[%d]", label, i);
    if (row->kind != HY_IO_SEQ || row->nkid != 2) {
      return HY_IO_FAIL_AT(ld, row, "%s: %s: expected a pair %s %s, got %s", it->where, row_label,
                           pair, units, hy_io_describe(row, got, sizeof got));
    }
    double xy[2];
    HY_TRY(hy_io_get_vec(ld, it->where, row_label, row, NULL, 2, xy));
    tx[i] = xy[0];
    ty[i] = xy[1];
  }
  *n = v->nkid;
  return HY_OK;
}

// The table law's points: a list of at least one [p, beta] pair, into newly allocated
// table_p and table_beta (the caller frees them, also on failure).
static hy_status load_oil_table(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* v,
                                const hy_io_node* key, hy_oil_def* o) {
  return load_pairs(ld, it, v, key, "table", "[p, beta]", "(Pa, Pa)", &o->table_p,
                    &o->table_beta, &o->table_n);
}

// An `oil:` mapping n (of a circuit or a volume, named by `it`) into *o: its law and the keys
// that law reads. The table law's points are allocated (free_oil_table, also on failure).
static hy_status load_oil(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                          hy_oil_def* o) {
  const char* laws[HY_BULK_COUNT + 1];
  for (int k = 0; k < HY_BULK_COUNT; k++) laws[k] = hy_bulk_law_name((hy_bulk_law)k);
  laws[HY_BULK_COUNT] = NULL;
  *o = hy_oil_def_default();
  if (hy_io_map_val(n, "law")) {
    int k;
    HY_TRY(hy_io_get_enum(ld, it->where, HY_IO_KEY(n, "law"), laws, &k));
    o->law = (hy_bulk_law)k;
  }
  const unsigned law = BULK(o->law);
  for (size_t k = 0; k < NOIL_KEYS; k++) {
    const oil_key* ok = &kOilKeys[k];
    const hy_io_node* v = hy_io_map_val(n, ok->key);
    if (!v) {
      if (ok->needs & law) return hy_io_require(ld, it, n, ok->key, ok->expect);
      continue;
    }
    if (!(ok->reads & law)) {
      return HY_IO_FAIL_AT(ld, hy_io_map_key(n, ok->key),
                           "%s: '%s' is not a parameter of oil law '%s' (docs/hydraulics.md, "
                           "\"Oil laws\", lists each law's keys)",
                           it->where, ok->key, laws[o->law]);
    }
    if (ok->offset == offsetof(hy_oil_def, table_p)) {
      HY_TRY(load_oil_table(ld, it, v, hy_io_map_key(n, ok->key), o));
    } else {
      double* field = (double*)(void*)((char*)o + ok->offset);
      HY_TRY(hy_io_get_number(ld, it->where, HY_IO_KEY(n, ok->key), field));
    }
  }
  return HY_OK;
}

static void free_oil_table(hy_oil_def* o) {
  hy_free((void*)o->table_p);
  hy_free((void*)o->table_beta);
  o->table_p = o->table_beta = NULL;
}

// The `oil:` mapping under key `oil` of element n (`it`), read into *o; *found is 0 without one.
static hy_status get_oil(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                         hy_oil_def* o, int* found) {
  const char* keys[NOIL_KEYS + 2];
  keys[0] = "law";
  for (size_t k = 0; k < NOIL_KEYS; k++) keys[k + 1] = kOilKeys[k].key;
  keys[NOIL_KEYS + 1] = NULL;
  const hy_io_node* oil;
  *found = 0;
  HY_TRY(get_submap(ld, it, n, "oil", keys, &oil));
  if (!oil) return HY_OK;
  *found = 1;
  const hy_io_item oit = sub_item(it, "oil");
  return load_oil(ld, &oit, oil, o);
}

static hy_status load_volumes(hy_io_loader* ld, const hy_io_item* cit, const hy_io_node* cn,
                              const char* circ) {
  static const char* const keys[] = {"name", "hose_volume", "hose_bulk_modulus", "p0", "oil",
                                     NULL};
  const hy_io_node* list;
  HY_TRY(get_sublist(ld, cit, cn, "volumes", "volumes", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "volumes", "volume", keys, &it, &n));
    hy_volume_def d = hy_volume_def_default();
    d.pos = hy_io_pos_of(n);
    snprintf(d.circuit, sizeof d.circuit, "%s", circ);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_require_number(ld, &it, n, "hose_volume", "a non-negative number, m^3",
                                &d.hose_volume));
    if (d.hose_volume > 0) {
      HY_TRY(hy_io_require(ld, &it, n, "hose_bulk_modulus", "a positive number, Pa, or rigid"));
    }
    HY_TRY(opt_wall_modulus(ld, &it, n, "hose_bulk_modulus", &d.hose_bulk_modulus));
    if (hy_io_map_val(n, "p0")) {
      HY_TRY(hy_io_get_number(ld, it.where, HY_IO_KEY(n, "p0"), &d.p0));
    }
    hy_status st = get_oil(ld, &it, n, &d.oil, &d.own_oil);
    if (st == HY_OK && hy_spec_add_volume(ld->spec, &d) != HY_OK) {
      st = add_failed(ld, "volume", d.name);
    }
    free_oil_table(&d.oil);  // the spec keeps its own copy
    if (st != HY_OK) return st;
  }
  return HY_OK;
}

static hy_status load_sources(hy_io_loader* ld, const hy_io_item* cit, const hy_io_node* cn,
                              const char* circ) {
  static const char* const keys[] = {"name", "pressure", "signal", NULL};
  const hy_io_node* list;
  HY_TRY(get_sublist(ld, cit, cn, "sources", "sources", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "sources", "source", keys, &it, &n));
    hy_source_def d = hy_source_def_default();
    d.pos = hy_io_pos_of(n);
    snprintf(d.circuit, sizeof d.circuit, "%s", circ);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_require_number(ld, &it, n, "pressure", "a number, Pa", &d.pressure));
    if (hy_io_map_val(n, "signal")) {
      HY_TRY(hy_io_get_name(ld, it.where, HY_IO_KEY(n, "signal"), d.signal));
    }
    if (hy_spec_add_source(ld->spec, &d) != HY_OK) return add_failed(ld, "source", d.name);
  }
  return HY_OK;
}

// `pumps` of a circuit. The kind follows `compensator` unless given; a compensator's keys on a
// fixed pump are refused here, where their place in the file is known.
static hy_status load_pumps(hy_io_loader* ld, const hy_io_item* cit, const hy_io_node* cn) {
  static const char* const keys[] = {
      "name",   "from",    "to",          "kind",             "displacement", "speed",
      "signal", "leakage", "compensator", "compensator_band", NULL};
  static const char* const kinds[] = {"fixed", "compensated", NULL};
  const hy_io_node* list;
  HY_TRY(get_sublist(ld, cit, cn, "pumps", "pumps", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "pumps", "pump", keys, &it, &n));
    hy_pump_def d = hy_pump_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_require_name(ld, &it, n, "from", "the inlet: a volume or source name", d.from));
    HY_TRY(hy_io_require_name(ld, &it, n, "to", "the outlet: a volume name", d.to));
    int kind = hy_io_map_val(n, "compensator") ? HY_PUMP_COMPENSATED : HY_PUMP_FIXED;
    if (hy_io_map_val(n, "kind")) {
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "kind"), kinds, &kind));
    }
    d.kind = kind == HY_PUMP_COMPENSATED ? HY_PUMP_COMPENSATED : HY_PUMP_FIXED;
    HY_TRY(hy_io_require_number(ld, &it, n, "displacement", "a positive number, m^3/rev",
                                &d.displacement));
    HY_TRY(hy_io_require_number(ld, &it, n, "speed", "a non-negative number, rev/s", &d.speed));
    if (hy_io_map_val(n, "signal")) {
      HY_TRY(hy_io_get_name(ld, it.where, HY_IO_KEY(n, "signal"), d.signal));
    }
    HY_TRY(opt_number(ld, &it, n, "leakage", &d.leakage));
    if (d.kind == HY_PUMP_FIXED) {
      static const char* const comp_keys[] = {"compensator", "compensator_band", NULL};
      for (int k = 0; comp_keys[k]; k++) {
        if (!hy_io_map_val(n, comp_keys[k])) continue;
        return HY_IO_FAIL_AT(ld, hy_io_map_key(n, comp_keys[k]),
                             "%s: '%s' is a key of a compensated pump (kind: compensated, or "
                             "give 'compensator')",
                             it.where, comp_keys[k]);
      }
    } else {
      HY_TRY(hy_io_require_number(ld, &it, n, "compensator",
                                  "a positive number, Pa: the pressure rise p_to - p_from at "
                                  "which the displacement reaches 0",
                                  &d.compensator));
      HY_TRY(hy_io_require_number(ld, &it, n, "compensator_band",
                                  "a positive number, Pa: the rise below 'compensator' over which "
                                  "the displacement falls",
                                  &d.compensator_band));
    }
    if (hy_spec_add_pump(ld->spec, &d) != HY_OK) return add_failed(ld, "pump", d.name);
  }
  return HY_OK;
}

// A key that only one value of an element's `law` (or `centre`) reads: refused, at the key,
// when the element has another one, so that a parameter meant for another law never goes
// unnoticed.
static hy_status refuse_key(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                            const char* key, const char* selector, const char* value,
                            const char* reader) {
  if (!hy_io_map_val(n, key)) return HY_OK;
  return HY_IO_FAIL_AT(ld, hy_io_map_key(n, key), "%s: '%s' applies to %s only, not to %s: %s",
                       it->where, key, reader, selector, value);
}

static hy_status load_throttles(hy_io_loader* ld, const hy_io_item* cit, const hy_io_node* cn) {
  static const char* const keys[] = {"name",   "from", "to",      "cv",     "orifice", "dp_lim",
                                     "signal", "law",  "dp_reg", "one_way", NULL};
  static const char* const orifice_keys[] = {"cd", "diameter", "density", NULL};
  static const char* const laws[] = {"laminar_transition", "turbulent", NULL};
  static const char* const yes_no[] = {"false", "true", NULL};
  const hy_io_node* list;
  HY_TRY(get_sublist(ld, cit, cn, "throttles", "throttles", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "throttles", "throttle", keys, &it, &n));
    hy_throttle_def d = hy_throttle_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_require_name(ld, &it, n, "from", "a volume or source name", d.from));
    HY_TRY(hy_io_require_name(ld, &it, n, "to", "a volume or source name", d.to));
    const hy_io_node* orifice;
    HY_TRY(get_submap(ld, &it, n, "orifice", orifice_keys, &orifice));
    if (hy_io_map_val(n, "cv") && orifice) {
      return HY_IO_FAIL_AT(ld, hy_io_map_key(n, "orifice"),
                           "%s: give either 'cv' or 'orifice', not both", it.where);
    }
    if (orifice) {
      const hy_io_item oit = sub_item(&it, "orifice");
      double cd = 0, dia = 0, rho = 0;
      HY_TRY(need_positive(ld, &oit, orifice, "cd", 0, "-", &cd));
      HY_TRY(need_positive(ld, &oit, orifice, "diameter", 0, "m", &dia));
      HY_TRY(need_positive(ld, &oit, orifice, "density", 0, "kg/m^3", &rho));
      // seed 000 Eq. 25: C_vt = C_d A_t sqrt(2 / rho), A_t = pi d^2 / 4
      d.cv = cd * (0.25 * 3.14159265358979323846 * dia * dia) * sqrt(2.0 / rho);
    } else {
      HY_TRY(hy_io_require_number(
          ld, &it, n, "cv",
          "a positive number, m^3/(s sqrt(Pa)); or give orifice: {cd, diameter, "
          "density}",
          &d.cv));
    }
    if (hy_io_map_val(n, "law")) {
      int k;
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "law"), laws, &k));
      d.law = (hy_orifice_law)k;
    }
    // each law reads its own limit: dp_lim the laminar one, dp_reg the regularization
    if (d.law == HY_ORIFICE_TURBULENT) {
      HY_TRY(refuse_key(ld, &it, n, "dp_lim", "law", "turbulent", "law laminar_transition"));
      HY_TRY(opt_number(ld, &it, n, "dp_reg", &d.dp_reg));
    } else {
      HY_TRY(refuse_key(ld, &it, n, "dp_reg", "law", laws[d.law], "law turbulent"));
      HY_TRY(opt_number(ld, &it, n, "dp_lim", &d.dp_lim));
    }
    if (hy_io_map_val(n, "signal")) {
      HY_TRY(hy_io_get_name(ld, it.where, HY_IO_KEY(n, "signal"), d.signal));
    }
    if (hy_io_map_val(n, "one_way")) {
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "one_way"), yes_no, &d.one_way));
    }
    if (hy_spec_add_throttle(ld->spec, &d) != HY_OK) return add_failed(ld, "throttle", d.name);
  }
  return HY_OK;
}

// A key that the valve's other settings give no meaning (a time constant of a second-order
// spool would otherwise be ignored without a word).
static hy_status refuse_meaningless(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                                    const char* key, const char* why) {
  if (!hy_io_map_val(n, key)) return HY_OK;
  return HY_IO_FAIL_AT(ld, hy_io_map_key(n, key), "%s: '%s' has no meaning with %s", it->where,
                       key, why);
}

// The spool's dynamics, input shaping, units and initial position (docs/hydraulics.md, "Spool
// dynamics"); the ranges are hy_model_check's.
static hy_status load_spool(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                            hy_valve_def* d) {
  // in the order of hy_spool_dynamics, hy_valve_units and hy_valve_init
  static const char* const spools[] = {"first_order", "none", "second_order", NULL};
  static const char* const units[] = {"volts", "normalized", NULL};
  static const char* const inits[] = {"given", "rest", NULL};
  int k;
  if (hy_io_map_val(n, "spool")) {
    HY_TRY(hy_io_get_enum(ld, it->where, HY_IO_KEY(n, "spool"), spools, &k));
    d->spool = (hy_spool_dynamics)k;
  }
  if (d->spool == HY_SPOOL_FIRST_ORDER) {
    HY_TRY(hy_io_require_number(ld, it, n, "tau",
                                "a positive number, s (or spool: none | second_order)", &d->tau));
  } else {
    const char* why = d->spool == HY_SPOOL_NONE ? "spool: none" : "spool: second_order";
    HY_TRY(refuse_meaningless(ld, it, n, "tau", why));
  }
  if (d->spool == HY_SPOOL_SECOND_ORDER) {
    HY_TRY(hy_io_require_number(ld, it, n, "natural_frequency", "a positive number, Hz",
                                &d->natural_frequency));
    HY_TRY(hy_io_require_number(ld, it, n, "damping_ratio", "a non-negative number, -",
                                &d->damping_ratio));
  } else {
    const char* why = d->spool == HY_SPOOL_NONE ? "spool: none" : "a first-order spool";
    HY_TRY(refuse_meaningless(ld, it, n, "natural_frequency", why));
    HY_TRY(refuse_meaningless(ld, it, n, "damping_ratio", why));
  }
  HY_TRY(opt_number(ld, it, n, "saturation", &d->saturation));
  HY_TRY(opt_number(ld, it, n, "dead_zone", &d->dead_zone));
  if (hy_io_map_val(n, "units")) {
    HY_TRY(hy_io_get_enum(ld, it->where, HY_IO_KEY(n, "units"), units, &k));
    d->units = (hy_valve_units)k;
  }
  if (hy_io_map_val(n, "initial")) {
    HY_TRY(hy_io_get_enum(ld, it->where, HY_IO_KEY(n, "initial"), inits, &k));
    d->init = (hy_valve_init)k;
  }
  // U(0) is the reference then: with the solved offset, or at every instant
  if (d->init == HY_VALVE_INIT_REST) return refuse_meaningless(ld, it, n, "U0", "initial: rest");
  if (d->spool == HY_SPOOL_NONE) return refuse_meaningless(ld, it, n, "U0", "spool: none");
  return opt_number(ld, it, n, "U0", &d->U0);
}

// A valve's `edges` (docs/hydraulics.md, "Metering edges from tables"): a mapping from the path
// names P->A, B->T, P->B, A->T (required) and P->T (optional) to lists of [U, C] pairs, into
// newly allocated tables of d (free_edge_tables, also on failure).
static hy_status load_edges(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                            hy_valve_def* d) {
  const char* keys[HY_VALVE_PATHS + 1];
  for (int k = 0; k < HY_VALVE_PATHS; k++) keys[k] = hy_valve_path_name(k);
  keys[HY_VALVE_PATHS] = NULL;
  const hy_io_node* e;
  HY_TRY(get_submap(ld, it, n, "edges", keys, &e));
  if (!e) return HY_OK;
  const hy_io_item eit = sub_item(it, "edges");
  static const char kPair[] = "[U, C]";
  static const char kUnits[] = "(units of U, m^3/(s sqrt(Pa)))";
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    const hy_io_node* v = hy_io_map_val(e, keys[k]);
    if (!v) {
      if (k == 4) continue;  // P->T: the valve has no such path
      char expect[96];
      snprintf(expect, sizeof expect, "a list of %s pairs %s", kPair, kUnits);
      return hy_io_require(ld, &eit, e, keys[k], expect);
    }
    const hy_io_node* key = hy_io_map_key(e, keys[k]);
    d->edge_pos[k] = hy_io_pos_of(key);
    HY_TRY(load_pairs(ld, &eit, v, key, keys[k], kPair, kUnits, &d->edge_U[k], &d->edge_C[k],
                      &d->edge_n[k]));
  }
  return HY_OK;
}

static void free_edge_tables(hy_valve_def* d) {
  for (int k = 0; k < HY_VALVE_PATHS; k++) {
    hy_free((void*)d->edge_U[k]);
    hy_free((void*)d->edge_C[k]);
    d->edge_U[k] = d->edge_C[k] = NULL;
  }
}

static hy_status load_valves(hy_io_loader* ld, const hy_io_item* cit, const hy_io_node* cn) {
  static const char* const keys[] = {
      "name",    "P",         "T",       "A",         "B",       "cv",
      "tau",     "dp_lim",    "U0",      "signal",    "centre",  "U_max",
      "overlap", "leakage",   "cv_centre", "spool",   "natural_frequency", "damping_ratio",
      "saturation", "dead_zone", "units", "initial",  "edges",   NULL};
  // the built-in shape's keys, which edge tables replace
  static const char* const shape_keys[] = {"cv", "centre", "U_max", "overlap", "cv_centre", NULL};
  static const char* const centres[] = {"closed", "open", "tandem", "float", NULL};
  const hy_io_node* list;
  HY_TRY(get_sublist(ld, cit, cn, "valves", "valves", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "valves", "valve", keys, &it, &n));
    hy_valve_def d = hy_valve_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_require_name(ld, &it, n, "P", "the pressure port: a volume or source name", d.P));
    HY_TRY(hy_io_require_name(ld, &it, n, "T", "the tank port: a volume or source name", d.T));
    HY_TRY(hy_io_require_name(ld, &it, n, "A", "a volume or source name", d.A));
    HY_TRY(hy_io_require_name(ld, &it, n, "B", "a volume or source name", d.B));
    if (hy_io_map_val(n, "edges")) {
      for (int k = 0; shape_keys[k]; k++) {
        HY_TRY(refuse_meaningless(ld, &it, n, shape_keys[k],
                                  "edges: the tables give every path's opening"));
      }
    } else {
      HY_TRY(hy_io_require_number(ld, &it, n, "cv",
                                  "a positive number, m^3/(s V sqrt(Pa)); or give edges", &d.cv));
    }
    HY_TRY(opt_number(ld, &it, n, "dp_lim", &d.dp_lim));
    HY_TRY(load_spool(ld, &it, n, &d));
    if (hy_io_map_val(n, "signal")) {
      HY_TRY(hy_io_get_name(ld, it.where, HY_IO_KEY(n, "signal"), d.signal));
    }
    // the metering edges (docs/hydraulics.md, "Metering edges"); their ranges are
    // hy_model_check's
    if (hy_io_map_val(n, "centre")) {
      int k;
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "centre"), centres, &k));
      d.centre = (hy_valve_centre)k;
    }
    if (d.centre == HY_CENTRE_CLOSED) {
      HY_TRY(refuse_key(ld, &it, n, "cv_centre", "centre", "closed",
                        "open, tandem and float centres"));
    } else {
      char expect[96];
      snprintf(expect, sizeof expect,
               "a positive number, V: the spool position where the %s centre has closed",
               centres[d.centre]);
      HY_TRY(hy_io_require_number(ld, &it, n, "U_max", expect, &d.U_max));
    }
    HY_TRY(opt_number(ld, &it, n, "U_max", &d.U_max));
    HY_TRY(opt_number(ld, &it, n, "overlap", &d.overlap));
    HY_TRY(opt_number(ld, &it, n, "leakage", &d.leakage));
    HY_TRY(opt_number(ld, &it, n, "cv_centre", &d.cv_centre));
    hy_status st = load_edges(ld, &it, n, &d);
    if (st == HY_OK && hy_spec_add_valve(ld->spec, &d) != HY_OK) {
      st = add_failed(ld, "valve", d.name);
    }
    free_edge_tables(&d);  // the spec keeps its own copy
    if (st != HY_OK) return st;
  }
  return HY_OK;
}

// `check_valves` (relief = 0) or `relief_valves` (relief = 1) of a circuit. The two differ only
// in the key of the cracking pressure (optional p_crack >= 0, required p_set > 0).
static hy_status load_pressure_valves(hy_io_loader* ld, const hy_io_item* cit, const hy_io_node* cn,
                                      int relief) {
  static const char* const check_keys[] = {"name",    "from",   "to",     "cv",
                                           "p_crack", "p_open", "dp_lim", NULL};
  static const char* const relief_keys[] = {"name",  "from",   "to",     "cv",
                                            "p_set", "p_open", "dp_lim", NULL};
  const char* const list_key = relief ? "relief_valves" : "check_valves";
  const char* const what = relief ? "relief valve" : "check valve";
  const hy_io_node* list;
  HY_TRY(get_sublist(ld, cit, cn, list_key, list_key, &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(
        hy_io_list_item(ld, list, i, list_key, what, relief ? relief_keys : check_keys, &it, &n));
    // read as a check valve; a relief valve takes the same fields with p_set for p_crack
    hy_check_valve_def d = hy_check_valve_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_require_name(ld, &it, n, "from", "a volume or source name", d.from));
    HY_TRY(hy_io_require_name(ld, &it, n, "to", "a volume or source name", d.to));
    HY_TRY(hy_io_require_number(ld, &it, n, "cv", "a positive number, m^3/(s sqrt(Pa))", &d.cv));
    if (relief) {
      HY_TRY(hy_io_require_number(ld, &it, n, "p_set", "a positive number, Pa", &d.p_crack));
    } else {
      HY_TRY(opt_number(ld, &it, n, "p_crack", &d.p_crack));
    }
    HY_TRY(hy_io_require_number(ld, &it, n, "p_open", "a positive number, Pa", &d.p_open));
    HY_TRY(opt_number(ld, &it, n, "dp_lim", &d.dp_lim));
    hy_status added;
    if (relief) {
      hy_relief_valve_def r = hy_relief_valve_def_default();
      memcpy(r.name, d.name, HY_NAME_MAX);
      memcpy(r.from, d.from, HY_NAME_MAX);
      memcpy(r.to, d.to, HY_NAME_MAX);
      r.cv = d.cv;
      r.p_set = d.p_crack;
      r.p_open = d.p_open;
      r.dp_lim = d.dp_lim;
      r.pos = d.pos;
      added = hy_spec_add_relief_valve(ld->spec, &r);
    } else {
      added = hy_spec_add_check_valve(ld->spec, &d);
    }
    if (added != HY_OK) return add_failed(ld, what, d.name);
  }
  return HY_OK;
}

// One of two alternative keys, exactly one required: `a` (a number, whose range is
// hy_model_check's) or the diameter `b` (positive: its square no longer shows the sign); *which
// is 0 for a, 1 for b.
static hy_status one_of(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n, const char* a,
                        const char* ua, const char* b, const char* ub, double* out, int* which) {
  const int has_a = hy_io_map_val(n, a) != NULL, has_b = hy_io_map_val(n, b) != NULL;
  if (has_a && has_b) {
    return HY_IO_FAIL_AT(ld, hy_io_map_key(n, b), "%s: give either '%s' or '%s', not both",
                         it->where, a, b);
  }
  if (!has_a && !has_b) {
    return HY_IO_FAIL_AT(ld, n, "%s: key '%s' (%s) or '%s' (%s) is required", it->where, a, ua, b,
                         ub);
  }
  *which = has_b;
  return has_a ? opt_number(ld, it, n, a, out) : opt_positive(ld, it, n, b, 0, ub, out);
}

//----- seal friction ---------------------------------------------------------------------------

// The keys of a `friction:` mapping, the field each fills and the laws that read it (bit k for
// hy_friction_law k) and need it. A key the law does not read is refused, so a parameter meant
// for another law never goes unnoticed.
#define LAW(k) (1u << (k))
#define STATIC3 (LAW(HY_FRICTION_BENGISU_AKAY) | LAW(HY_FRICTION_BROWN_MCPHEE))
#define BRISTLES (LAW(HY_FRICTION_LUGRE) | LAW(HY_FRICTION_LUGRE_FILM))
#define ALL_LAWS (LAW(HY_FRICTION_COULOMB) | STATIC3 | BRISTLES)
typedef struct friction_key {
  const char* key;
  size_t offset;   // of the double in hy_friction_def (viscous_tanh4: an int, read as a flag)
  unsigned reads;  // laws that read it
  unsigned needs;  // laws that require it
  const char* unit;
  const char* what;  // for listings
} friction_key;

static const friction_key kFrictionKeys[] = {
    {"coulomb", offsetof(hy_friction_def, coulomb), ALL_LAWS, ALL_LAWS, "N", "Coulomb force F_c"},
    {"stiction", offsetof(hy_friction_def, stiction), STATIC3 | BRISTLES, STATIC3 | BRISTLES, "N",
     "static (break-away) force F_s"},
    {"stribeck_velocity", offsetof(hy_friction_def, stribeck_velocity), STATIC3 | BRISTLES,
     STATIC3 | BRISTLES, "m/s", "Stribeck velocity v_s"},
    {"viscous", offsetof(hy_friction_def, viscous), ALL_LAWS, 0, "N s/m",
     "viscous coefficient sigma2"},
    {"tanh_velocity", offsetof(hy_friction_def, tanh_velocity), LAW(HY_FRICTION_COULOMB),
     LAW(HY_FRICTION_COULOMB), "m/s", "v_t of tanh(v/v_t)"},
    {"decay", offsetof(hy_friction_def, decay), LAW(HY_FRICTION_BENGISU_AKAY),
     LAW(HY_FRICTION_BENGISU_AKAY), "s/m", "decay xi above v_s"},
    {"viscous_tanh4", offsetof(hy_friction_def, viscous_tanh4), LAW(HY_FRICTION_BROWN_MCPHEE), 0,
     "true or false", "viscous term sigma2 v tanh(4) (seed 002) or sigma2 v (seed 003)"},
    {"stiffness", offsetof(hy_friction_def, stiffness), BRISTLES, BRISTLES, "N/m",
     "bristle stiffness sigma0"},
    {"damping", offsetof(hy_friction_def, damping), BRISTLES, 0, "N s/m", "bristle damping sigma1"},
    {"damping_velocity", offsetof(hy_friction_def, damping_velocity), BRISTLES, 0, "m/s",
     "v_d of sigma1 exp(-(v/v_d)^2), 0 = constant"},
    {"exponent", offsetof(hy_friction_def, exponent), BRISTLES, 0, "-",
     "exponent n of the Stribeck curve"},
    {"tau_accel", offsetof(hy_friction_def, tau_accel), LAW(HY_FRICTION_LUGRE_FILM),
     LAW(HY_FRICTION_LUGRE_FILM), "s", "film time constant tau_hp, accelerating"},
    {"tau_decel", offsetof(hy_friction_def, tau_decel), LAW(HY_FRICTION_LUGRE_FILM),
     LAW(HY_FRICTION_LUGRE_FILM), "s", "film time constant tau_hn, decelerating"},
    {"tau_dwell", offsetof(hy_friction_def, tau_dwell), LAW(HY_FRICTION_LUGRE_FILM),
     LAW(HY_FRICTION_LUGRE_FILM), "s", "film time constant tau_h0, at rest"},
    {"film_velocity", offsetof(hy_friction_def, film_velocity), LAW(HY_FRICTION_LUGRE_FILM),
     LAW(HY_FRICTION_LUGRE_FILM), "m/s", "velocity v_b of the thickest film"},
    {"smoothing", offsetof(hy_friction_def, smoothing), LAW(HY_FRICTION_LUGRE_FILM), 0, "m/s",
     "width of the smoothed |v|"},
    {"pressure_coefficient", offsetof(hy_friction_def, pressure_coefficient), ALL_LAWS, 0, "-",
     "added Coulomb force per N of normal load"},
};
#define NFRICTION_KEYS (sizeof kFrictionKeys / sizeof kFrictionKeys[0])

// A `friction:` mapping (n) of element `it` into *out.
static hy_status load_friction(hy_io_loader* ld, const hy_io_item* it, const hy_io_node* n,
                               hy_friction_def* out) {
  static const char* const yes_no[] = {"false", "true", NULL};
  const char* keys[NFRICTION_KEYS + 2];
  keys[0] = "law";
  for (size_t k = 0; k < NFRICTION_KEYS; k++) keys[k + 1] = kFrictionKeys[k].key;
  keys[NFRICTION_KEYS + 1] = NULL;
  HY_TRY(hy_io_check_keys(ld, n, keys, it->what));
  const char* laws[HY_FRICTION_COUNT + 1];
  for (int k = 0; k < HY_FRICTION_COUNT; k++) laws[k] = hy_friction_law_name((hy_friction_law)k);
  laws[HY_FRICTION_COUNT] = NULL;
  int law;
  HY_TRY(hy_io_require_enum(ld, it, n, "law", "the friction law", laws, &law));
  *out = hy_friction_def_default();
  out->law = (hy_friction_law)law;
  for (size_t k = 0; k < NFRICTION_KEYS; k++) {
    const friction_key* fk = &kFrictionKeys[k];
    const hy_io_node* v = hy_io_map_val(n, fk->key);
    if (!v) {
      if (!(fk->needs & LAW(law))) continue;
      char expect[96];
      snprintf(expect, sizeof expect, "a number, %s (law %s)", fk->unit, laws[law]);
      return hy_io_require(ld, it, n, fk->key, expect);
    }
    if (!(fk->reads & LAW(law))) {
      return HY_IO_FAIL_AT(ld, hy_io_map_key(n, fk->key),
                           "%s: '%s' is not a parameter of friction law '%s' (docs/friction.md "
                           "lists each law's parameters)",
                           it->where, fk->key, laws[law]);
    }
    char* field = (char*)out + fk->offset;
    if (strcmp(fk->key, "viscous_tanh4") == 0) {
      HY_TRY(hy_io_get_enum(ld, it->where, HY_IO_KEY(n, fk->key), yes_no, (int*)(void*)field));
    } else {
      HY_TRY(hy_io_get_number(ld, it->where, HY_IO_KEY(n, fk->key), (double*)(void*)field));
    }
  }
  return HY_OK;
}

void hy_io_friction_write(FILE* fp, const hy_friction_def* p) {
  for (size_t k = 0; k < NFRICTION_KEYS; k++) {
    const friction_key* fk = &kFrictionKeys[k];
    if (!(fk->reads & LAW(p->law))) continue;
    const char* field = (const char*)p + fk->offset;
    char v[64];
    if (strcmp(fk->key, "viscous_tanh4") == 0) {
      snprintf(v, sizeof v, "%s", *(const int*)(const void*)field ? "true" : "false");
    } else {
      snprintf(v, sizeof v, "%.6g %s", *(const double*)(const void*)field, fk->unit);
    }
    fprintf(fp, "  %-21s %-14s %s\n", fk->key, v, fk->what);
  }
}

hy_status hy_io_friction_text(const char* text, hy_friction_def* out, hy_error* err) {
  hy_io_loader ld = {.path = "(friction parameters)", .err = err};
  hy_io_node* root = NULL;
  HY_TRY(hy_io_build_tree(&ld, text, strlen(text), &root));
  hy_status st;
  if (!root || root->kind != HY_IO_MAP) {
    st = HY_FAIL(err, HY_ERR_PARSE, "friction parameters: expected a mapping such as "
                 "'{law: lugre, coulomb: 210, ...}'");
  } else {
    hy_io_item it;
    snprintf(it.where, sizeof it.where, "friction");
    snprintf(it.what, sizeof it.what, "the friction parameters");
    st = load_friction(&ld, &it, root, out);
  }
  hy_io_node_free(root);
  return st;
}

static hy_status load_cylinders(hy_io_loader* ld, const hy_io_item* cit, const hy_io_node* cn) {
  static const char* const keys[] = {
      "name",         "marker_a",   "marker_b",        "chamber_a",
      "chamber_b",    "area_a",     "piston_diameter", "area_b",
      "rod_diameter", "stroke",     "dead_length",     "bulk_modulus",
      "viscous",      "end_damper", "initial",         "friction",
      NULL};
  static const char* const damper_keys[] = {"k", "c", "length", NULL};
  static const char* const inits[] = {"given", "equilibrium", NULL};
  const double quarter_pi = 0.25 * 3.14159265358979323846;
  const hy_io_node* list;
  HY_TRY(get_sublist(ld, cit, cn, "cylinders", "cylinders", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "cylinders", "cylinder", keys, &it, &n));
    hy_cylinder_def d = hy_cylinder_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_require_name(ld, &it, n, "marker_a", "the marker of the cylinder body end",
                              d.marker_a));
    HY_TRY(hy_io_require_name(ld, &it, n, "marker_b", "the marker of the rod end", d.marker_b));
    HY_TRY(hy_io_require_name(ld, &it, n, "chamber_a", "the piston-side volume", d.chamber_a));
    HY_TRY(hy_io_require_name(ld, &it, n, "chamber_b", "the rod-side volume", d.chamber_b));
    double x, D = 0;
    int which;
    HY_TRY(one_of(ld, &it, n, "area_a", "m^2", "piston_diameter", "m", &x, &which));
    if (which == 1) {
      D = x;
      d.area_a = quarter_pi * D * D;
    } else {
      d.area_a = x;
    }
    HY_TRY(one_of(ld, &it, n, "area_b", "m^2", "rod_diameter", "m", &x, &which));
    if (which == 1) {
      const hy_io_node* rk = hy_io_map_key(n, "rod_diameter");
      if (D == 0) {
        return HY_IO_FAIL_AT(ld, rk,
                             "%s: rod_diameter needs piston_diameter (or give area_b, the "
                             "annulus area in m^2)",
                             it.where);
      }
      if (!(x < D)) {
        return HY_IO_FAIL_AT(ld, hy_io_map_val(n, "rod_diameter"),
                             "%s: rod_diameter (%g m) must be smaller than piston_diameter (%g m)",
                             it.where, x, D);
      }
      d.area_b = quarter_pi * (D * D - x * x);  // the annulus around the rod
    } else {
      d.area_b = x;
    }
    HY_TRY(hy_io_require_number(ld, &it, n, "stroke", "a positive number, m", &d.stroke));
    HY_TRY(hy_io_require_number(ld, &it, n, "dead_length", "a non-negative number, m",
                                &d.dead_length));
    HY_TRY(hy_io_require(ld, &it, n, "bulk_modulus", "a positive number, Pa, or rigid"));
    HY_TRY(opt_wall_modulus(ld, &it, n, "bulk_modulus", &d.bulk_modulus));
    HY_TRY(opt_number(ld, &it, n, "viscous", &d.viscous));
    const hy_io_node* damper;
    HY_TRY(get_submap(ld, &it, n, "end_damper", damper_keys, &damper));
    if (damper) {
      const hy_io_item dit = sub_item(&it, "end_damper");
      HY_TRY(
          hy_io_require_number(ld, &dit, damper, "k", "a non-negative number, N/m", &d.damper_k));
      HY_TRY(
          hy_io_require_number(ld, &dit, damper, "c", "a non-negative number, N s/m", &d.damper_c));
      HY_TRY(hy_io_require_number(ld, &dit, damper, "length", "a positive number, m",
                                  &d.damper_length));
    }
    if (hy_io_map_val(n, "initial")) {
      int k;
      HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "initial"), inits, &k));
      d.init = k == 1 ? HY_CYL_INIT_EQUILIBRIUM : HY_CYL_INIT_GIVEN;
    }
    const hy_io_node* friction = hy_io_map_val(n, "friction");
    if (friction) {
      if (friction->kind != HY_IO_MAP) {
        char got[96];
        return HY_IO_FAIL_AT(ld, hy_io_place(friction, hy_io_map_key(n, "friction")),
                             "%s: friction: expected a mapping with 'law' and the law's "
                             "parameters (docs/friction.md); got %s",
                             it.where, hy_io_describe(friction, got, sizeof got));
      }
      hy_io_item fit = sub_item(&it, "friction");
      int w = snprintf(fit.what, sizeof fit.what, "'friction' of %.140s", it.what);
      if (w < 0) fit.what[0] = 0;
      HY_TRY(load_friction(ld, &fit, friction, &d.friction));
    }
    if (hy_spec_add_cylinder(ld->spec, &d) != HY_OK) return add_failed(ld, "cylinder", d.name);
  }
  return HY_OK;
}

static hy_status load_accumulators(hy_io_loader* ld, const hy_io_item* cit, const hy_io_node* cn) {
  static const char* const keys[] = {"name",       "volume",     "precharge",
                                     "gas_volume", "polytropic", NULL};
  const hy_io_node* list;
  HY_TRY(get_sublist(ld, cit, cn, "accumulators", "accumulators", &list));
  for (int i = 0; list && i < list->nkid; i++) {
    hy_io_item it;
    const hy_io_node* n;
    HY_TRY(hy_io_list_item(ld, list, i, "accumulators", "accumulator", keys, &it, &n));
    hy_accumulator_def d = hy_accumulator_def_default();
    d.pos = hy_io_pos_of(n);
    HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
    HY_TRY(hy_io_require_name(ld, &it, n, "volume", "the volume it is connected to", d.volume));
    HY_TRY(hy_io_require_number(ld, &it, n, "precharge", "a positive number, Pa, absolute",
                                &d.precharge));
    HY_TRY(hy_io_require_number(ld, &it, n, "gas_volume", "a positive number, m^3",
                                &d.gas_volume));
    HY_TRY(opt_number(ld, &it, n, "polytropic", &d.polytropic));
    if (hy_spec_add_accumulator(ld->spec, &d) != HY_OK) {
      return add_failed(ld, "accumulator", d.name);
    }
  }
  return HY_OK;
}

static hy_status load_circuit(hy_io_loader* ld, const hy_io_node* list, int index) {
  static const char* const keys[] = {"name",         "oil",           "laminar",   "volumes",
                                     "sources",      "pumps",         "throttles", "valves",
                                     "check_valves", "relief_valves", "cylinders", "accumulators",
                                     NULL};
  static const char* const laminars[] = {"cubic", "linear", NULL};
  const hy_io_node* n = list->kid[index];
  hy_io_item it;
  hy_io_item_init(&it, "circuits", "circuit", index, n);
  HY_TRY(hy_io_expect_map(ld, &it, n, keys));
  HY_TRY(hy_io_check_keys(ld, n, keys, it.what));
  hy_circuit_def d = hy_circuit_def_default();
  d.pos = hy_io_pos_of(n);
  HY_TRY(hy_io_require_name(ld, &it, n, "name", "a unique name", d.name));
  HY_TRY(hy_io_check_unique(ld, &it, list, index, "circuit"));
  HY_TRY(hy_io_require(ld, &it, n, "oil",
                       "a mapping {bulk_modulus: Pa, law: constant|linear|polynomial|air|table, "
                       "and the law's keys}"));
  if (hy_io_map_val(n, "laminar")) {
    int k;
    HY_TRY(hy_io_get_enum(ld, it.where, HY_IO_KEY(n, "laminar"), laminars, &k));
    d.laminar = k == 1 ? HY_LAMINAR_LINEAR : HY_LAMINAR_CUBIC;
  }
  hy_oil_def oil;
  int found;
  hy_status st = get_oil(ld, &it, n, &oil, &found);
  if (st == HY_OK) {
    d.law = oil.law;
    d.B_oil = oil.B_oil;
    d.law_k = oil.law_k;
    d.law_a = oil.law_a;
    d.law_b = oil.law_b;
    d.air_fraction = oil.air_fraction;
    d.polytropic = oil.polytropic;
    d.p_atm = oil.p_atm;
    d.table_n = oil.table_n;
    d.table_p = oil.table_p;
    d.table_beta = oil.table_beta;
    if (hy_spec_add_circuit(ld->spec, &d) != HY_OK) st = add_failed(ld, "circuit", d.name);
  }
  if (found) free_oil_table(&oil);  // the spec keeps its own copy
  HY_TRY(st);
  HY_TRY(load_volumes(ld, &it, n, d.name));
  HY_TRY(load_sources(ld, &it, n, d.name));
  HY_TRY(load_pumps(ld, &it, n));
  HY_TRY(load_throttles(ld, &it, n));
  HY_TRY(load_valves(ld, &it, n));
  HY_TRY(load_pressure_valves(ld, &it, n, 0));
  HY_TRY(load_pressure_valves(ld, &it, n, 1));
  HY_TRY(load_cylinders(ld, &it, n));
  return load_accumulators(ld, &it, n);
}

hy_status hy_io_load_hydraulics(hy_io_loader* ld, const hy_io_node* root) {
  static const char* const keys[] = {"circuits", NULL};
  const hy_io_node* h = hy_io_map_val(root, "hydraulics");
  if (hy_io_is_null(h)) return HY_OK;
  if (h->kind != HY_IO_MAP) {
    char got[96];
    return HY_IO_FAIL_AT(ld, h, "hydraulics: expected a mapping with the key 'circuits'; got %s",
                         hy_io_describe(h, got, sizeof got));
  }
  HY_TRY(hy_io_check_keys(ld, h, keys, "hydraulics"));
  const hy_io_node* list;
  HY_TRY(hy_io_get_list(ld, h, "circuits", 1, "circuits", &list));
  for (int i = 0; i < list->nkid; i++) HY_TRY(load_circuit(ld, list, i));
  return HY_OK;
}
