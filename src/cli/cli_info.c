// `hydyn info MODEL`: what a user checks before a run, as plain text with aligned columns on
// standard output: the bodies and joints, the degrees of freedom, loops and nonholonomic
// constraints, markers, loads and force elements, the hydraulic circuits, the initial state hydyn
// derives (loop closure, equilibrium forces, initial pressures: what `hydyn run` notes at its
// start) and the solver settings the run would use. Nothing is stepped.
#define _POSIX_C_SOURCE 200809L  // stat

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "hydyn/hydyn.h"
#include "hydyn/names.h"

#define NAME(arr, i) ((arr) + (size_t)(i) * HY_NAME_MAX)
#define RAD_TO_DEG (180.0 / 3.14159265358979323846)

static void info_usage(FILE* fp) {
  fputs(
      "usage: hydyn info MODEL\n"
      "\n"
      "Describes MODEL, a model file (YAML) or the name of a built-in model ('hydyn models'\n"
      "lists them), as hydyn compiled it: bodies and joints with their initial coordinates,\n"
      "degrees of freedom, loops (cut joints) and their equations, nonholonomic constraints\n"
      "(knife edges: marker, axis, velocity along the axis at t = 0, and the velocity degrees\n"
      "of freedom ndof - l they leave), markers, loads, force elements, hydraulic circuits\n"
      "(volumes, sources, throttles, valves, cylinders), the initial state hydyn derives at\n"
      "t = 0 (loop closure, initial pressures, equilibrium forces: what 'hydyn run' notes when\n"
      "it starts) and the solver settings a run would use.\n"
      "Nothing is simulated.\n"
      "\n"
      "options:\n"
      "  -h, --help           show this help\n"
      "\n"
      "Angles are shown in degrees, as model files give them; everything else in SI units\n"
      "(pressures in MPa). Exit status: 0 success, 1 model error, 2 bad command line.\n",
      fp);
}

//----- aligned tables --------------------------------------------------------------------------

enum { TAB_COLS = 10, CELL_MAX = 160 };

// Rows of cells printed with each column as wide as its widest cell.
typedef struct table {
  int ncol;
  int nrow, cap;
  char (*cell)[TAB_COLS][CELL_MAX];
} table;

// A row from a format whose cells are separated by tabs. The header is row 0.
__attribute__((format(printf, 2, 3))) static void tab_add(table* t, const char* fmt, ...) {
  if (t->nrow == t->cap) {
    const int cap = t->cap ? 2 * t->cap : 16;
    void* v = realloc(t->cell, (size_t)cap * sizeof *t->cell);
    if (!v) return;  // a row lost to a full memory beats no description at all
    t->cell = v;
    t->cap = cap;
  }
  char line[TAB_COLS * CELL_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  char(*row)[CELL_MAX] = t->cell[t->nrow++];
  int c = 0;
  const char* p = line;
  for (; c < TAB_COLS; c++) {
    const char* tab = strchr(p, '\t');
    const size_t len = tab ? (size_t)(tab - p) : strlen(p);
    snprintf(row[c], CELL_MAX, "%.*s", (int)len, p);
    if (!tab) break;
    p = tab + 1;
  }
  for (c++; c < TAB_COLS; c++) row[c][0] = '\0';
  if (c > t->ncol) t->ncol = c;
}

// Prints and empties the table, indented by two spaces.
static void tab_print(table* t) {
  int width[TAB_COLS] = {0};
  for (int r = 0; r < t->nrow; r++) {
    for (int c = 0; c < t->ncol; c++) {
      const int len = (int)strlen(t->cell[r][c]);
      if (len > width[c]) width[c] = len;
    }
  }
  for (int r = 0; r < t->nrow; r++) {
    int last = t->ncol - 1;
    while (last > 0 && !t->cell[r][last][0]) last--;
    fputs("  ", stdout);
    for (int c = 0; c <= last; c++) {
      printf("%-*s", c < last ? width[c] + 2 : 0, t->cell[r][c]);
    }
    putchar('\n');
  }
  free(t->cell);
  memset(t, 0, sizeof *t);
}

//----- formatting helpers ----------------------------------------------------------------------

static const char* body_name(const hy_model* m, int j) {
  return j < 0 ? "ground" : NAME(m->body_name, j);
}

// A hydraulic node: a volume, or nvol + a source.
static const char* node_name(const hy_model* m, int node) {
  return node < m->sizes.nvol ? NAME(m->vol_name, node) : NAME(m->src_name, node - m->sizes.nvol);
}

static const char* signal_name(const hy_model* m, int sig) {
  return sig >= 0 ? NAME(m->sig_name, sig) : "-";
}

static void vec_text(char* buf, size_t size, const double v[3]) {
  snprintf(buf, size, "(%.6g, %.6g, %.6g)", v[0], v[1], v[2]);
}

static const char* plural(int n) { return n == 1 ? "" : "s"; }

static void section(const char* title, int count) {
  if (count >= 0) {
    printf("\n%s (%d)\n", title, count);
  } else {
    printf("\n%s\n", title);
  }
}

//----- sections --------------------------------------------------------------------------------

static void print_header(const hy_model* m, const char* what) {
  table t = {0};
  tab_add(&t, "name\t%s", m->name[0] ? m->name : what);
  // hy_model_load_any takes an existing file first: `what` names the file when it exists
  struct stat st;
  if (stat(what, &st) == 0) {
    tab_add(&t, "file\t%s", m->path[0] ? m->path : what);
  } else if (m->path[0]) {
    tab_add(&t, "file\tbuilt in (%s of the source tree)", m->path);
  } else {
    tab_add(&t, "file\tbuilt in (a model family, made in code)");
  }
  char g[96];
  vec_text(g, sizeof g, m->opt.gravity);
  tab_add(&t, "gravity\t%s m/s^2", g);
  if (m->planar) {
    char n[96];
    vec_text(n, sizeof n, m->plane_normal);
    tab_add(&t, "planar\tyes: every body moves in the plane with normal %s", n);
  } else {
    tab_add(&t, "planar\tno (3-D)");
  }
  const hy_sizes* s = &m->sizes;
  // nonholonomic constraints only when there are any: the line of other models stays as it was
  char nh[96] = "";
  if (s->nnh > 0) {
    snprintf(nh, sizeof nh, ", %d nonholonomic constraint%s", s->nnh, plural(s->nnh));
  }
  if (s->ncpl > 0) {  // likewise
    const size_t len = strlen(nh);
    snprintf(nh + len, sizeof nh - len, ", %d coupler%s", s->ncpl, plural(s->ncpl));
  }
  tab_add(&t,
          "elements\t%d bod%s, %d cut joint%s%s, %d marker%s, %d force element%s, %d volume%s",
          s->nbody, s->nbody == 1 ? "y" : "ies", s->ncut, plural(s->ncut), nh, s->nmrk,
          plural(s->nmrk), s->nfrc, plural(s->nfrc), s->nvol, plural(s->nvol));
  printf("model\n");
  tab_print(&t);
}

// 1 when closing the loops moved the coordinates by more than round-off (as `hydyn run` notes).
static int loops_moved(const hy_model* m, const hy_data* d) {
  double zmax = 1;
  for (int i = 0; i < m->sizes.nz; i++) zmax = fmax(zmax, fabs(d->z[i]));
  return d->assembly_shift > 64 * DBL_EPSILON * zmax;
}

static void print_bodies(const hy_model* m, const hy_data* d) {
  section("bodies and joints", m->sizes.nbody);
  // where the loop closure put the coordinates, when that is not quite z0
  const int moved = loops_moved(m, d);
  table t = {0};
  // the dampers' column only for a model that has some
  const int damped = m->sizes.ndamp > 0;
  tab_add(&t, "body\tparent\tmass (kg)\tjoint\ttype\tz0\tzd0\tjoint point on parent (m)%s%s",
          damped ? "\tdamping" : "", moved ? "\tz closed at t = 0" : "");
  for (int j = 0; j < m->sizes.nbody; j++) {
    const int prismatic = m->jnt_type[j] == HY_JOINT_PRISMATIC;
    const int z = m->jnt_zadr[j];
    char pp[96];
    vec_text(pp, sizeof pp, m->jnt_ppoint + 3 * j);
    const double k = prismatic ? 1 : RAD_TO_DEG;
    char closed[64] = "";
    if (moved) snprintf(closed, sizeof closed, "%.9g %s", k * d->z[z], prismatic ? "m" : "deg");
    char damping[64] = "";
    if (damped) {
      snprintf(damping, sizeof damping, "\t%g %s", m->jnt_damp[j],
               prismatic ? "N s/m" : "N m s/rad");
    }
    tab_add(&t, "%s\t%s\t%g\t%s\t%s\t%.6g %s\t%.6g %s\t%s%s\t%s", body_name(m, j),
            body_name(m, m->body_parent[j]), m->body_mass[j], NAME(m->jnt_name, j),
            prismatic ? "prismatic" : "revolute", k * m->z0[z], prismatic ? "m" : "deg",
            k * m->zd0[z], prismatic ? "m/s" : "deg/s", pp, damping, closed);
  }
  tab_print(&t);
}

static void print_dof(const hy_model* m, const hy_data* d) {
  section("degrees of freedom", -1);
  table t = {0};
  tab_add(&t, "coordinates (nz)\t%d", m->sizes.nz);
  tab_add(&t, "loop-closure equations (neq)\t%d", m->sizes.neq);
  if (m->sizes.neq > 0) {
    tab_add(&t, "rank of their Jacobian at t = 0\t%d%s", d->rank,
            d->rank < m->sizes.neq ? " (some equations are redundant)" : "");
  }
  tab_add(&t, "degrees of freedom (ndof)\t%d", d->ndof);
  if (m->sizes.nnh > 0) {
    // knife edges restrict velocities, not positions: ndof coordinates stay free, but only
    // ndof - l of their rates
    tab_add(&t, "nonholonomic constraints (l)\t%d", m->sizes.nnh);
    tab_add(&t, "velocity degrees of freedom (ndof - l)\t%d", d->ndof - m->sizes.nnh);
  }
  tab_print(&t);
}

static void print_loops(const hy_model* m, const hy_data* d) {
  if (m->sizes.ncut == 0) {
    printf("\nloops: none (%s)\n", m->sizes.ncpl > 0 ? "no cut joints" : "an open tree");
    return;
  }
  section("loops (cut joints)", m->sizes.ncut);
  table t = {0};
  tab_add(&t, "cut\ttype\tmarker a (body)\tmarker b (body)\tequations\tlargest |Phi| at t = 0");
  for (int c = 0; c < m->sizes.ncut; c++) {
    const int a = m->cut_mrk_a[c], b = m->cut_mrk_b[c];
    const int e0 = m->cut_eqadr[c], ne = m->cut_neq[c];
    double phi = 0;
    for (int e = e0; e < e0 + ne; e++) phi = fmax(phi, fabs(d->phi[e]));
    tab_add(&t, "%s\t%s\t%s (%s)\t%s (%s)\t%d (Phi rows %d-%d)\t%.3g", NAME(m->cut_name, c),
            hy_cut_type_name((hy_cut_type)m->cut_type[c]), NAME(m->mrk_name, a),
            body_name(m, m->mrk_body[a]), NAME(m->mrk_name, b), body_name(m, m->mrk_body[b]), ne,
            e0 + 1, e0 + ne, phi);
  }
  tab_print(&t);
}

// Printed only for a model that has them, so the description of other models is unchanged.
static void print_couplers(const hy_model* m, const hy_data* d) {
  if (m->sizes.ncpl == 0) return;
  section("couplers (phi = z_a - ratio z_b - offset)", m->sizes.ncpl);
  table t = {0};
  tab_add(&t, "coupler\tjoint a\tjoint b\tratio (SI)\toffset\t|phi| at t = 0");
  for (int k = 0; k < m->sizes.ncpl; k++) {
    const int ja = m->cpl_jnt[2 * k], jb = m->cpl_jnt[2 * k + 1];
    const int prismatic = m->jnt_type[ja] == HY_JOINT_PRISMATIC;
    tab_add(&t, "%s\t%s\t%s\t%.9g\t%.9g %s\t%.3g", NAME(m->cpl_name, k), NAME(m->jnt_name, ja),
            NAME(m->jnt_name, jb), m->cpl_ratio[k],
            prismatic ? m->cpl_offset[k] : RAD_TO_DEG * m->cpl_offset[k], prismatic ? "m" : "deg",
            fabs(d->phi[m->cpl_eqadr[k]]));
  }
  tab_print(&t);
}

// Printed only for a model that has them, so the description of other models is unchanged.
static void print_nonholonomic(const hy_model* m, const hy_data* d) {
  if (m->sizes.nnh == 0) return;
  section("nonholonomic constraints", m->sizes.nnh);
  table t = {0};
  tab_add(&t, "constraint\ttype\tmarker (body)\taxis in the body frame\t|B zd| at t = 0 (m/s)");
  for (int k = 0; k < m->sizes.nnh; k++) {
    const int mk = m->nh_mrk[k];
    char axis[96];
    vec_text(axis, sizeof axis, m->nh_axis + 3 * k);
    tab_add(&t, "%s\t%s\t%s (%s)\t%s\t%.3g", NAME(m->nh_name, k),
            hy_nonholonomic_type_name((hy_nonholonomic_type)m->nh_type[k]), NAME(m->mrk_name, mk),
            body_name(m, m->mrk_body[mk]), axis, fabs(d->nh_rate[k]));
  }
  tab_print(&t);
}

static void print_markers(const hy_model* m, const hy_data* d) {
  section("markers", m->sizes.nmrk);
  if (m->sizes.nmrk == 0) return;
  table t = {0};
  tab_add(&t, "marker\tbody\tpoint in the body frame (m)\tposition at t = 0 (m)");
  for (int k = 0; k < m->sizes.nmrk; k++) {
    char p[96], x[96];
    vec_text(p, sizeof p, m->mrk_point + 3 * k);
    vec_text(x, sizeof x, d->mrk_pos + 3 * k);
    tab_add(&t, "%s\t%s\t%s\t%s", NAME(m->mrk_name, k), body_name(m, m->mrk_body[k]), p, x);
  }
  tab_print(&t);
}

static void print_loads(const hy_model* m) {
  if (m->sizes.nload == 0) return;
  section("loads", m->sizes.nload);
  table t = {0};
  tab_add(&t, "load\ttype\tmarker\tvector\tsignal");
  for (int k = 0; k < m->sizes.nload; k++) {
    const int torque = m->load_type[k] == HY_LOAD_TORQUE;
    char v[96];
    vec_text(v, sizeof v, m->load_vector + 3 * k);
    tab_add(&t, "%s\t%s\t%s\t%s %s\t%s", NAME(m->load_name, k), torque ? "torque" : "force",
            NAME(m->mrk_name, m->load_mrk[k]), v, torque ? "N m" : "N",
            signal_name(m, m->load_sig[k]));
  }
  tab_print(&t);
}

// The force of an equilibrium element at t = 0, as `hydyn run` notes it.
static double static_force(const hy_model* m, const hy_data* d, int k) {
  double f = d->frc_static[k];
  // a cylinder's static force is not scaled by a signal: its pressures were derived from it
  if (m->frc_type[k] != HY_FORCE_CYLINDER && m->frc_sig[k] >= 0) {
    f *= hy_signal_eval(m, m->frc_sig[k], 0.0);
  }
  return f;
}

static const char* push_pull(double f) {
  return f > 0 ? "push" : (f < 0 ? "pull" : "no force needed");
}

static void print_forces(const hy_model* m, const hy_data* d) {
  section("force elements", m->sizes.nfrc);
  if (m->sizes.nfrc == 0) return;
  table t = {0};
  tab_add(&t, "force\ttype\tmarker a -> b\tlength at t = 0 (m)\tforce\tsignal");
  for (int k = 0; k < m->sizes.nfrc; k++) {
    const int cyl = m->frc_type[k] == HY_FORCE_CYLINDER;
    char value[128];
    if (m->frc_equilibrium[k]) {
      const double f = static_force(m, d, k);
      snprintf(value, sizeof value, "equilibrium: %.7g N (%s)", f, push_pull(f));
    } else if (cyl) {
      snprintf(value, sizeof value, "from the pressures, %.7g N at t = 0", d->frc_force[k]);
    } else {
      snprintf(value, sizeof value, "%.7g N", m->frc_value[k]);
    }
    tab_add(&t, "%s\t%s\t%s -> %s\t%.6g\t%s\t%s", NAME(m->frc_name, k),
            cyl ? "cylinder" : "actuator", NAME(m->mrk_name, m->frc_mrk_a[k]),
            NAME(m->mrk_name, m->frc_mrk_b[k]), d->frc_len[k], value,
            signal_name(m, m->frc_sig[k]));
  }
  tab_print(&t);
}

// Appends to the text in buf[0 .. *used), cutting what does not fit.
__attribute__((format(printf, 4, 5))) static void append(char* buf, size_t size, size_t* used,
                                                         const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int w = vsnprintf(buf + *used, size - *used, fmt, ap);
  va_end(ap);
  if (w > 0) *used = (size_t)w < size - *used ? *used + (size_t)w : size - 1;
}

// What signal k is made of, as a model file gives it: a table's interpolation, points and time
// span; the signals and parameters of the other kinds.
static void signal_text(char* buf, size_t size, const hy_model* m, int k) {
  const hy_signal_kind kind = (hy_signal_kind)m->sig_kind[k];
  const int narg = m->sig_narg[k];
  const int* arg = m->sig_arg + m->sig_argadr[k];
  size_t used = 0;
  buf[0] = 0;
  if (kind == HY_SIGNAL_TABLE) {
    const int a = m->sig_adr[k], n = m->sig_npoint[k];
    append(buf, size, &used, "%s, %d point%s, t = %g .. %g s",
           m->sig_interp[k] == HY_INTERP_STEP ? "step" : "linear", n, plural(n), m->sig_t[a],
           m->sig_t[a + n - 1]);
  } else if (kind == HY_SIGNAL_SUM || kind == HY_SIGNAL_PRODUCT) {
    for (int i = 0; i < narg; i++) {
      append(buf, size, &used, "%s%s", i ? (kind == HY_SIGNAL_SUM ? " + " : " * ") : "",
             signal_name(m, arg[i]));
    }
  } else if (kind == HY_SIGNAL_ONE_MINUS) {
    append(buf, size, &used, "1 - %s", signal_name(m, arg[0]));
  } else {
    if (narg > 0) {
      append(buf, size, &used, "%s %s, ", kind == HY_SIGNAL_SINE ? "envelope" : "signal",
             signal_name(m, arg[0]));
    }
    for (int i = 0; hy_signal_par_name(kind, i); i++) {
      const char* unit = hy_signal_par_unit(kind, i);
      const int plain = strcmp(unit, "signal unit") == 0 || strcmp(unit, "-") == 0;
      append(buf, size, &used, "%s%s = %g%s%s", i ? ", " : "", hy_signal_par_name(kind, i),
             m->sig_par[(size_t)k * HY_SIGNAL_NPAR + i], plain ? "" : " ", plain ? "" : unit);
    }
  }
}

static void print_signals(const hy_model* m) {
  if (m->sizes.nsig == 0) return;
  section("signals", m->sizes.nsig);
  table t = {0};
  tab_add(&t, "signal\tkind\tdefinition\tvalue at t = 0");
  for (int k = 0; k < m->sizes.nsig; k++) {
    char def[400];
    signal_text(def, sizeof def, m, k);
    tab_add(&t, "%s\t%s\t%s\t%g", NAME(m->sig_name, k),
            hy_signal_kind_name((hy_signal_kind)m->sig_kind[k]), def, hy_signal_eval(m, k, 0.0));
  }
  tab_print(&t);
}

// An oil's law and parameters after "oil " (docs/hydraulics.md, "Oil laws"), from the model's
// arrays for circuit c (v < 0) or volume v's own oil; the constant and linear laws in the words
// hydyn has always used.
static void oil_text(char* buf, size_t size, const hy_model* m, int c, int v) {
  const int law = v < 0 ? m->circ_law[c] : m->vol_law[v];
  const double B0 = v < 0 ? m->circ_B_oil[c] : m->vol_B_oil[v];
  switch (law) {
    case HY_BULK_CONSTANT:
      snprintf(buf, size, "bulk modulus %.6g MPa (constant)", 1e-6 * B0);
      return;
    case HY_BULK_LINEAR:
      snprintf(buf, size, "bulk modulus %.6g MPa (linear, + %g p)", 1e-6 * B0,
               v < 0 ? m->circ_law_k[c] : m->vol_law_k[v]);
      return;
    case HY_BULK_POLYNOMIAL: {
      const double a = v < 0 ? m->circ_law_a[c] : m->vol_law_a[v];
      snprintf(buf, size, "law polynomial, rho/rho0 = 1 + %g p + %g p^2 (%.6g MPa at p = 0)", a,
               v < 0 ? m->circ_law_b[c] : m->vol_law_b[v], 1e-6 / a);
      return;
    }
    case HY_BULK_AIR:
      snprintf(buf, size, "bulk modulus %.6g MPa with air: fraction %g at %.6g MPa, polytropic %g",
               1e-6 * B0, v < 0 ? m->circ_air[c] : m->vol_air[v],
               1e-6 * (v < 0 ? m->circ_p_atm[c] : m->vol_p_atm[v]),
               v < 0 ? m->circ_polytropic[c] : m->vol_polytropic[v]);
      return;
    default: {
      const int adr = v < 0 ? m->circ_tab_adr[c] : m->vol_tab_adr[v];
      const int n = v < 0 ? m->circ_tab_n[c] : m->vol_tab_n[v];
      snprintf(buf, size, "law table, %d points [p, beta] from %.6g to %.6g MPa", n,
               1e-6 * m->bulk_p[adr], 1e-6 * m->bulk_p[adr + n - 1]);
      return;
    }
  }
}

// Whether directional valve k takes its metering edges from tables (docs/hydraulics.md,
// "Metering edges from tables"): its P->A table.
static int valve_tables(const hy_model* m, int k) { return m->vlv_edge_n[HY_VALVE_PATHS * k] > 0; }

// A directional valve's metering (docs/hydraulics.md, "Metering edges"): its centre with the
// options of the built-in shape that differ from the seeds' valve (U_max, overlap, cv_centre),
// or its edge tables, and the leakage of its edges.
static void metering_text(char* buf, size_t size, const hy_model* m, int k) {
  static const char* const centres[] = {"closed", "open", "tandem", "float"};
  const int c = m->vlv_centre[k];
  size_t used = 0;
  buf[0] = 0;
  if (valve_tables(m, k)) {
    append(buf, size, &used, "edges from tables (below)");
  } else {
    append(buf, size, &used, "centre %s", c >= 0 && c <= 3 ? centres[c] : "unknown");
    if (m->vlv_Umax[k] > 0) append(buf, size, &used, ", U_max %g", m->vlv_Umax[k]);
    if (m->vlv_overlap[k] != 0) append(buf, size, &used, ", overlap %g", m->vlv_overlap[k]);
    if (c != HY_CENTRE_CLOSED) {
      // 0 is the default C_vd U_max (hyd_valve.c)
      const double cc =
          m->vlv_cv_centre[k] > 0 ? m->vlv_cv_centre[k] : m->vlv_cv[k] * m->vlv_Umax[k];
      append(buf, size, &used, ", cv_centre %.6g", cc);
    }
  }
  if (m->vlv_leak[k] > 0) append(buf, size, &used, ", leakage %g", m->vlv_leak[k]);
}

// The edge tables of directional valve k, one line per path: its points [U, C] when there are
// few, else their number and the spans of U and C.
static void print_edge_tables(const hy_model* m, int k) {
  enum { FEW = 6 };
  const int norm = m->vlv_units[k] == HY_VALVE_NORMALIZED;
  printf("  %s: metering edges, points [U, C] with U in %s and C in m^3/(s sqrt(Pa))\n",
         NAME(m->vlv_name, k), norm ? "fractions of the full opening" : "V");
  for (int p = 0; p < HY_VALVE_PATHS; p++) {
    const int j = HY_VALVE_PATHS * k + p, n = m->vlv_edge_n[j];
    if (n <= 0) continue;
    const double* U = m->edge_U + m->vlv_edge_adr[j];
    const double* C = m->edge_C + m->vlv_edge_adr[j];
    char text[512];
    size_t used = 0;
    text[0] = 0;
    if (n <= FEW) {
      for (int i = 0; i < n; i++) append(text, sizeof text, &used, " [%g, %.6g]", U[i], C[i]);
    } else {
      double lo = C[0], hi = C[0];
      for (int i = 1; i < n; i++) {
        lo = fmin(lo, C[i]);
        hi = fmax(hi, C[i]);
      }
      append(text, sizeof text, &used, " %d points, U %g .. %g, C %.6g .. %.6g", n, U[0],
             U[n - 1], lo, hi);
    }
    printf("    %s:%s\n", hy_valve_path_name(p), text);
  }
}

static void print_hydraulics(const hy_model* m, const hy_data* d, const char* what) {
  const hy_sizes* s = &m->sizes;
  if (s->ncirc + s->nvol + s->nsrc + s->npump + s->ncyl == 0) {
    printf("\nhydraulics: none\n");
    return;
  }
  for (int c = 0; c < s->ncirc; c++) {
    char oil[256];
    oil_text(oil, sizeof oil, m, c, -1);
    printf("\ncircuit %s: oil %s, laminar law %s\n", NAME(m->circ_name, c), oil,
           m->circ_laminar[c] == HY_LAMINAR_LINEAR ? "linear" : "cubic");
    table t = {0};
    tab_add(&t, "volume\those volume (m^3)\those modulus (MPa)\tp0\tinitial pressure (MPa)");
    for (int v = 0; v < s->nvol; v++) {
      if (m->vol_circ[v] != c) continue;
      char p0[64];
      if (isnan(m->vol_p0[v])) {
        snprintf(p0, sizeof p0, "derived");
      } else {
        snprintf(p0, sizeof p0, "given, %.6g MPa", 1e-6 * m->vol_p0[v]);
      }
      char hose[32];
      if (m->vol_B_hose[v] == HY_RIGID) {
        snprintf(hose, sizeof hose, "rigid");
      } else {
        snprintf(hose, sizeof hose, "%.6g", 1e-6 * m->vol_B_hose[v]);
      }
      tab_add(&t, "%s\t%.6g\t%s\t%s\t%.5g", NAME(m->vol_name, v), m->vol_hose[v], hose, p0,
              1e-6 * d->p[v]);
    }
    tab_print(&t);
    for (int v = 0; v < s->nvol; v++) {
      if (m->vol_circ[v] != c || m->vol_law[v] < 0) continue;
      oil_text(oil, sizeof oil, m, c, v);
      printf("  %s: its own oil, %s\n", NAME(m->vol_name, v), oil);
    }
  }
  if (s->nacc > 0) {
    section("accumulators (gas-charged)", s->nacc);
    table t = {0};
    tab_add(&t,
            "accumulator\tvolume\tprecharge (MPa)\tgas volume (m^3)\tpolytropic\toil at t = 0 "
            "(m^3)");
    for (int k = 0; k < s->nacc; k++) {
      tab_add(&t, "%s\t%s\t%.6g\t%.6g\t%g\t%.6g", NAME(m->acc_name, k),
              NAME(m->vol_name, m->acc_vol[k]), 1e-6 * m->acc_p0[k], m->acc_V0[k], m->acc_n[k],
              d->acc_V[k]);
    }
    tab_print(&t);
  }
  if (s->nsrc > 0) {
    section("sources (fixed pressures)", s->nsrc);
    table t = {0};
    tab_add(&t, "source\tpressure (MPa)\tsignal");
    for (int k = 0; k < s->nsrc; k++) {
      tab_add(&t, "%s\t%.6g\t%s", NAME(m->src_name, k), 1e-6 * m->src_p[k],
              signal_name(m, m->src_sig[k]));
    }
    tab_print(&t);
  }
  if (s->npump > 0) {
    section("pumps (flow sources)", s->npump);
    table t = {0};
    tab_add(&t,
            "pump\tkind\tfrom -> to\tdisplacement (cm^3/rev)\tspeed (rpm)\tsignal\tleakage "
            "(m^3/(s Pa))\tcompensator, band (MPa)");
    for (int k = 0; k < s->npump; k++) {
      char comp[64] = "-";
      const int compensated = m->pmp_kind[k] == HY_PUMP_COMPENSATED;
      if (compensated) {
        snprintf(comp, sizeof comp, "%.6g, %.6g", 1e-6 * m->pmp_p_comp[k],
                 1e-6 * m->pmp_dp_comp[k]);
      }
      tab_add(&t, "%s\t%s\t%s -> %s\t%.6g\t%.6g\t%s\t%.6g\t%s", NAME(m->pmp_name, k),
              compensated ? "compensated" : "fixed", node_name(m, m->pmp_node[2 * k]),
              node_name(m, m->pmp_node[2 * k + 1]), 1e6 * m->pmp_disp[k], 60 * m->pmp_speed[k],
              signal_name(m, m->pmp_sig[k]), m->pmp_leak[k], comp);
    }
    tab_print(&t);
  }
  if (s->norf > 0) {
    section("throttles", s->norf);
    table t = {0};
    tab_add(&t, "throttle\tfrom -> to\tcv (m^3/(s sqrt(Pa)))\tlaw\tone-way\tsignal (opening)");
    for (int k = 0; k < s->norf; k++) {
      // each law with the limit it reads (docs/hydraulics.md, "Throttle options")
      char law[64];
      if (m->orf_law[k] == HY_ORIFICE_TURBULENT) {
        snprintf(law, sizeof law, "turbulent, dp_reg %.6g Pa", m->orf_dp_reg[k]);
      } else {
        snprintf(law, sizeof law, "laminar_transition, dp_lim %.6g MPa", 1e-6 * m->orf_dp_lim[k]);
      }
      tab_add(&t, "%s\t%s -> %s\t%.6g\t%s\t%s\t%s", NAME(m->orf_name, k),
              node_name(m, m->orf_node[2 * k]), node_name(m, m->orf_node[2 * k + 1]), m->orf_cv[k],
              law, m->orf_one_way[k] ? "yes" : "no", signal_name(m, m->orf_sig[k]));
    }
    tab_print(&t);
  }
  if (s->nvlv > 0) {
    section("directional valves (4/3)", s->nvlv);
    table t = {0};
    tab_add(&t, "valve\tP, T, A, B\tcv (m^3/(s sqrt(Pa)) per unit of U)\tspool\tdp_lim (MPa)\tU0"
                "\tsignal\tshaping (units of U)\tmetering (leakage in m^3/(s Pa))");
    for (int k = 0; k < s->nvlv; k++) {
      const int* n = m->vlv_node + 4 * k;
      const int norm = m->vlv_units[k] == HY_VALVE_NORMALIZED;
      char spool[64], u0[32], shaping[96];
      if (m->vlv_spool[k] == HY_SPOOL_FIRST_ORDER) {
        snprintf(spool, sizeof spool, "tau %.6g s", m->vlv_tau[k]);
      } else if (m->vlv_spool[k] == HY_SPOOL_SECOND_ORDER) {
        snprintf(spool, sizeof spool, "f_n %.6g Hz, zeta %.6g", m->vlv_fn[k], m->vlv_zeta[k]);
      } else {
        snprintf(spool, sizeof spool, "none");
      }
      if (m->vlv_init[k] == HY_VALVE_INIT_REST) {
        snprintf(u0, sizeof u0, "rest (offset %.6g)", d->vlv_u0[k]);
      } else {
        snprintf(u0, sizeof u0, "%g", m->vlv_U0[k]);
      }
      char sat[32] = "none";
      if (isfinite(m->vlv_sat[k])) snprintf(sat, sizeof sat, "%g", m->vlv_sat[k]);
      snprintf(shaping, sizeof shaping, "%s, saturation %s, dead zone %g",
               norm ? "normalized" : "V", sat, m->vlv_dead[k]);
      char cv[32] = "-", metering[160];
      if (!valve_tables(m, k)) snprintf(cv, sizeof cv, "%.6g", m->vlv_cv[k]);
      metering_text(metering, sizeof metering, m, k);
      tab_add(&t, "%s\t%s, %s, %s, %s\t%s\t%s\t%.6g\t%s\t%s\t%s\t%s", NAME(m->vlv_name, k),
              node_name(m, n[0]), node_name(m, n[1]), node_name(m, n[2]), node_name(m, n[3]), cv,
              spool, 1e-6 * m->vlv_dp_lim[k], u0, signal_name(m, m->vlv_sig[k]), shaping,
              metering);
    }
    tab_print(&t);
    for (int k = 0; k < s->nvlv; k++) {
      if (valve_tables(m, k)) print_edge_tables(m, k);
    }
  }
  if (s->npvl > 0) {
    section("pressure valves", s->npvl);
    table t = {0};
    tab_add(&t, "valve\tkind\tfrom -> to\tcv (m^3/(s sqrt(Pa)))\tcracking (MPa)\topening (MPa)");
    for (int k = 0; k < s->npvl; k++) {
      tab_add(&t, "%s\t%s\t%s -> %s\t%.6g\t%.6g\t%.6g", NAME(m->pvl_name, k),
              m->pvl_kind[k] == HY_PRESSURE_VALVE_RELIEF ? "relief" : "check",
              node_name(m, m->pvl_node[2 * k]), node_name(m, m->pvl_node[2 * k + 1]), m->pvl_cv[k],
              1e-6 * m->pvl_p_crack[k], 1e-6 * m->pvl_p_open[k]);
    }
    tab_print(&t);
  }
  if (s->ncyl > 0) {
    section("cylinders", s->ncyl);
    table t = {0};
    tab_add(&t,
            "cylinder\tmarker a -> b\tchambers a, b\tareas a, b (m^2)\tstroke (m)\tdead length "
            "(m)\tfriction\tp0 of a");
    for (int c = 0; c < s->ncyl; c++) {
      const int k = m->cyl_frc[c];
      tab_add(&t, "%s\t%s -> %s\t%s, %s\t%.5g, %.5g\t%.6g\t%.6g\t%s\t%s", NAME(m->frc_name, k),
              NAME(m->mrk_name, m->frc_mrk_a[k]), NAME(m->mrk_name, m->frc_mrk_b[k]),
              NAME(m->vol_name, m->cyl_vol_a[c]), NAME(m->vol_name, m->cyl_vol_b[c]),
              m->cyl_area_a[c], m->cyl_area_b[c], m->cyl_stroke[c], m->cyl_dead[c],
              hy_friction_law_name(m->cyl_fric[c].law),
              m->cyl_init[c] == HY_CYL_INIT_EQUILIBRIUM ? "equilibrium" : "given");
    }
    tab_print(&t);
    // the less common parameters, one line per cylinder that has them
    for (int c = 0; c < s->ncyl; c++) {
      if (m->cyl_fric[c].law != HY_FRICTION_NONE) {
        printf(
            "  %s: seal friction %s; 'hydyn friction %s --cylinder %s' shows its "
            "parameters\n",
            NAME(m->frc_name, m->cyl_frc[c]), hy_friction_law_name(m->cyl_fric[c].law), what,
            NAME(m->frc_name, m->cyl_frc[c]));
      }
      if (m->cyl_B[c] == HY_RIGID) {
        printf("  %s: rigid chambers (no wall compliance)\n", NAME(m->frc_name, m->cyl_frc[c]));
      }
      if (m->cyl_visc[c] == 0 && m->cyl_ld[c] == 0) continue;
      printf("  %s: viscous %.6g N s/m", NAME(m->frc_name, m->cyl_frc[c]), m->cyl_visc[c]);
      if (m->cyl_ld[c] > 0) {
        printf(", end dampers k %.6g N/m, c %.6g N s/m over %.6g m", m->cyl_kd[c], m->cyl_cd[c],
               m->cyl_ld[c]);
      }
      printf(", chamber a %.6g m long at t = 0\n", d->cyl_len_a[c]);
    }
  }
}

// The facts `hydyn run` notes on standard error when it starts (cli_run.c, note_initial_state),
// in the same words and number formats, so the two can be compared.
static void print_initial_state(const hy_model* m, const hy_data* d) {
  section("initial state (t = 0, as 'hydyn run' starts)", -1);
  if (m->sizes.nvol > 0) {
    printf("  initial pressures: ");
    for (int v = 0; v < m->sizes.nvol; v++) {
      printf("%s%s = %.5g MPa", v ? ", " : "", NAME(m->vol_name, v), 1e-6 * d->p[v]);
    }
    putchar('\n');
  }
  for (int k = 0; k < m->sizes.nfrc; k++) {
    if (!m->frc_equilibrium[k]) continue;
    const double f = static_force(m, d, k);
    const int c = m->frc_cyl[k];
    if (m->frc_type[k] == HY_FORCE_CYLINDER && c >= 0) {
      const int va = m->cyl_vol_a[c];
      printf(
          "  cylinder '%s' holds the initial configuration with %.7g N (%s): piston side %s "
          "starts at %.5g MPa\n",
          NAME(m->frc_name, k), f, push_pull(f), NAME(m->vol_name, va), 1e-6 * d->p[va]);
    } else {
      printf("  force '%s' holds the initial configuration with %.7g N (%s)\n",
             NAME(m->frc_name, k), f, push_pull(f));
    }
  }
  if (loops_moved(m, d)) {
    printf("  closing the loops moved the coordinates by up to %.3g rad/m\n", d->assembly_shift);
  }
  if (m->sizes.neq > 0 && d->rank < m->sizes.neq) {
    const int nred = m->sizes.neq - d->rank;
    printf("  %d of the %d loop-closure equations %s redundant (Jacobian rank %d at t = 0)\n", nred,
           m->sizes.neq, nred == 1 ? "is" : "are", d->rank);
  }
  double qmax = 1;
  for (int i = 0; i < m->sizes.nz; i++) qmax = fmax(qmax, fabs(d->Q[i]));
  if (d->static_residual > 1e-6 * qmax) {
    printf(
        "  the initial state is not a static equilibrium: largest unbalanced generalized "
        "force %.4g N or N m\n",
        d->static_residual);
  } else {
    printf(
        "  the initial state is a static equilibrium (largest unbalanced generalized force "
        "%.3g N or N m)\n",
        d->static_residual);
  }
}

static void print_solver(const hy_model* m, const hy_data* d) {
  section("solver", -1);
  const hy_option* o = &m->opt;
  const int newton = d->integrator == HY_INTEG_TRAPEZOIDAL;
  table t = {0};
  tab_add(&t, "formulation\t%s%s", hy_formulation_name(d->formulation),
          o->formulation == HY_FORM_AUTO ? " (chosen by hydyn)" : "");
  tab_add(&t, "integrator\t%s%s", hy_integrator_name(d->integrator),
          o->integrator == HY_INTEG_AUTO ? " (chosen by hydyn)" : "");
  if (d->note[0]) tab_add(&t, "why\t%s", d->note);
  tab_add(&t, "dt\t%g s", o->dt);
  tab_add(&t, "t_end\t%g s (%.0f steps)", o->t_end, ceil(o->t_end / o->dt - 1e-9));
  if (newton) {
    tab_add(&t, "tangent\t%s%s", hy_tangent_name(o->tangent),
            o->reuse_tangent ? ", factored once per step (modified Newton)" : "");
    if (d->formulation == HY_FORM_PENALTY) tab_add(&t, "penalty factor\t%g N/m", o->penalty);
    tab_add(&t, "tol_position\t%g rad or m", o->tol_pos);
    if (m->sizes.nvol > 0) tab_add(&t, "tol_pressure\t%g Pa", o->tol_p);
    if (m->sizes.nfric > 0) tab_add(&t, "tol_friction\t%g", o->tol_fric);
    tab_add(&t, "max_iterations\t%d", o->max_iter);
    if (o->strict_steps) {
      tab_add(&t, "failed steps\tend the run (strict_steps)");
    } else {
      tab_add(&t, "failed steps\tretried in halves, at most %d times (max_cuts)", o->max_cuts);
    }
    tab_add(&t, "error control\t%s", hy_error_control_name(o->error_control));
    if (o->error_control != HY_ERRCTL_NONE) {
      tab_add(&t, "error_tol_position\t%g rad or m", o->error_tol_pos);
      if (m->sizes.nvol > 0) tab_add(&t, "error_tol_pressure\t%g Pa", o->error_tol_p);
    }
    if (d->formulation == HY_FORM_DOUBLE_STEP) {
      tab_add(&t, "partition_rcond\t%g", o->partition_rcond);
    }
  }
  tab_add(&t, "work memory\t%.3g MB", 1e-6 * d->work_bytes);
  tab_print(&t);
}

int hy_cli_info(int argc, char** argv) {
  const char* what = NULL;
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      info_usage(stdout);
      return HY_CLI_OK;
    }
    if (arg[0] == '-' && arg[1] != '\0') {
      return hy_cli_usage_error("info", "unknown option '%s'", arg);
    }
    if (what) {
      return hy_cli_usage_error("info", "unexpected argument '%s' (model is '%s')", arg, what);
    }
    what = arg;
  }
  if (!what) return hy_cli_usage_error("info", "no model given");

  hy_model* m = NULL;
  int rc = hy_cli_load_model(what, &m);
  if (rc != HY_CLI_OK) return rc;
  hy_data* d = NULL;
  rc = hy_cli_make_data(m, what, &d);
  if (rc != HY_CLI_OK) {
    hy_model_free(m);
    return rc;
  }
  print_header(m, what);
  print_bodies(m, d);
  print_dof(m, d);
  print_loops(m, d);
  print_couplers(m, d);
  print_nonholonomic(m, d);
  print_markers(m, d);
  print_loads(m);
  print_forces(m, d);
  print_signals(m);
  print_hydraulics(m, d, what);
  print_initial_state(m, d);
  print_solver(m, d);
  hy_data_free(d);
  hy_model_free(m);
  return HY_CLI_OK;
}
