// Mechanism snapshots (cli_mechanism.h): the model placed by recorded joint coordinates, its
// elements collected as 3-D segments per frame, projected onto the figure's plane and handed to
// gnuplot as inline data, one group of plot clauses per frame so that later frames lie on top.
#include "cli/cli_mechanism.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_gnuplot.h"
#include "hydyn/sim.h"

#define NAME(arr, i) ((arr) + (size_t)(i) * HY_NAME_MAX)

//----- what is drawn ---------------------------------------------------------------------------

// Element kinds, in the order a frame draws them (later ones on top).
typedef enum kind {
  K_FORCE,
  K_SLIDE,
  K_BODY,
  K_BARREL,
  K_ROD,
  K_MARKER,
  K_BLOCK,
  K_GROUND_MARKER,
  K_GROUND,
  K_JOINT,
  K_CUT,
  NKIND
} kind;

// The names the data file gives the kinds (cli_mechanism.h).
static const char* const kKindName[NKIND] = {"force",  "slide",  "body",  "barrel",
                                             "rod",    "marker", "block", "ground-marker",
                                             "ground", "joint",  "cut"};

// One element of one frame: a segment a -> b (a point when they are equal), inertial frame.
typedef struct item {
  int frame;
  kind k;
  int body;          // the body whose colour it takes, -1 for none
  const char* name;  // into the model
  double a[3], b[3];
} item;

typedef struct item_list {
  item* v;
  size_t n, cap;
} item_list;

static int push(item_list* l, int frame, kind k, int body, const char* name, const double a[3],
                const double b[3]) {
  if (l->n == l->cap) {
    const size_t cap = l->cap ? 2 * l->cap : 256;
    item* v = realloc(l->v, cap * sizeof *v);
    if (!v) return -1;
    l->v = v;
    l->cap = cap;
  }
  item* it = &l->v[l->n++];
  it->frame = frame;
  it->k = k;
  it->body = body;
  it->name = name;
  memcpy(it->a, a, sizeof it->a);
  memcpy(it->b, b ? b : a, sizeof it->b);
  return 0;
}

int hy_snapshot_plane_parse(const char* s, hy_snapshot_plane* out) {
  static const char* const names[] = {"auto", "xy", "xz", "yz"};
  for (int k = 0; k < 4; k++) {
    if (strcmp(s, names[k]) == 0) {
      *out = (hy_snapshot_plane)k;
      return 0;
    }
  }
  return -1;
}

void hy_snapshot_cylinder(double len, double dead, double stroke, double* barrel, double* piston) {
  const double base = fmax(0.0, dead - stroke) / 2;
  *barrel = fmin(base + stroke, len);
  // A model may give a dead length shorter than the stroke (no room for a rod at full
  // retraction) or run past the stroke's ends into the end dampers; the clamp keeps a rod
  // visible and the piston between the markers in every case.
  *piston = fmin(fmax(base + len - dead, 0.0), 0.9 * len);
}

// A point on body j (-1: ground) given in its frame, in the inertial frame.
static void body_point(const hy_data* d, int j, const double p[3], double out[3]) {
  if (j < 0) {
    memcpy(out, p, 3 * sizeof *out);
    return;
  }
  const double* R = d->body_rot + 9 * j;
  const double* o = d->body_pos + 3 * j;
  for (int r = 0; r < 3; r++) {
    out[r] = o[r] + R[3 * r] * p[0] + R[3 * r + 1] * p[1] + R[3 * r + 2] * p[2];
  }
}

static double dist3(const double a[3], const double b[3]) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

// 1 when ground marker k is where something is pinned to ground: a revolute or spherical cut
// joint, or a force element (a cylinder's mount). It gets a support like a joint to ground.
static int pinned_to_ground(const hy_model* m, int k) {
  for (int c = 0; c < m->sizes.ncut; c++) {
    if (m->cut_type[c] != HY_CUT_TRANSLATIONAL && (m->cut_mrk_a[c] == k || m->cut_mrk_b[c] == k)) {
      return 1;
    }
  }
  for (int e = 0; e < m->sizes.nfrc; e++) {
    if (m->frc_mrk_a[e] == k || m->frc_mrk_b[e] == k) return 1;
  }
  return 0;
}

// The elements of frame f at the state in d (after hy_forward). `tiny` (m) is the distance
// below which two points are one.
static int collect(const hy_model* m, const hy_data* d, int f, double tiny, item_list* l) {
  const hy_sizes* sz = &m->sizes;
  int bad = 0;
  for (int j = 0; j < sz->nbody; j++) {
    const int p = m->body_parent[j];
    double hub[3], anchor[3];
    body_point(d, j, m->jnt_cpoint + 3 * j, hub);
    body_point(d, p, m->jnt_ppoint + 3 * j, anchor);
    const char* jname = NAME(m->jnt_name, j);
    if (p < 0) bad |= push(l, f, K_GROUND, -1, jname, anchor, NULL);
    if (m->jnt_type[j] == HY_JOINT_PRISMATIC) {
      bad |= push(l, f, K_SLIDE, j, jname, anchor, hub);
    } else {
      bad |= push(l, f, K_JOINT, j, jname, hub, NULL);
    }
    // the star: joint point to the children's joint points and to the markers
    int spokes = 0;
    for (int c = j + 1; c < sz->nbody; c++) {  // parents come first
      if (m->body_parent[c] != j) continue;
      double q[3];
      body_point(d, j, m->jnt_ppoint + 3 * c, q);
      if (dist3(q, hub) > tiny) {
        bad |= push(l, f, K_BODY, j, NAME(m->body_name, j), hub, q);
        spokes++;
      }
    }
    for (int k = 0; k < sz->nmrk; k++) {
      if (m->mrk_body[k] != j) continue;
      const double* q = d->mrk_pos + 3 * k;
      if (dist3(q, hub) > tiny) {
        bad |= push(l, f, K_BODY, j, NAME(m->body_name, j), hub, q);
        spokes++;
      }
      bad |= push(l, f, K_MARKER, j, NAME(m->mrk_name, k), q, NULL);
    }
    if (!spokes) bad |= push(l, f, K_BLOCK, j, NAME(m->body_name, j), hub, NULL);
  }
  for (int k = 0; k < sz->nmrk; k++) {
    if (m->mrk_body[k] >= 0) continue;
    const kind gk = pinned_to_ground(m, k) ? K_GROUND : K_GROUND_MARKER;
    bad |= push(l, f, gk, -1, NAME(m->mrk_name, k), d->mrk_pos + 3 * k, NULL);
  }
  for (int c = 0; c < sz->ncut; c++) {
    bad |= push(l, f, K_CUT, -1, NAME(m->cut_name, c), d->mrk_pos + 3 * m->cut_mrk_a[c],
                d->mrk_pos + 3 * m->cut_mrk_b[c]);
  }
  for (int k = 0; k < sz->nfrc; k++) {
    const double* a = d->mrk_pos + 3 * m->frc_mrk_a[k];
    const double* b = d->mrk_pos + 3 * m->frc_mrk_b[k];
    const char* name = NAME(m->frc_name, k);
    const int c = m->frc_cyl[k];
    const double len = dist3(a, b);
    if (m->frc_type[k] != HY_FORCE_CYLINDER || c < 0 || len <= tiny) {
      bad |= push(l, f, K_FORCE, -1, name, a, b);
      continue;
    }
    double barrel, piston, e[3], pb[3], pp[3];
    hy_snapshot_cylinder(len, m->cyl_dead[c], m->cyl_stroke[c], &barrel, &piston);
    for (int r = 0; r < 3; r++) {
      e[r] = (b[r] - a[r]) / len;
      pb[r] = a[r] + barrel * e[r];
      pp[r] = a[r] + piston * e[r];
    }
    bad |= push(l, f, K_BARREL, -1, name, a, pb);
    bad |= push(l, f, K_ROD, -1, name, pp, b);
  }
  return bad;
}

//----- frames ----------------------------------------------------------------------------------

// The rows to draw, ascending and distinct, into rows[0..*n). HY_CLI_USAGE or HY_CLI_OK.
static int frame_rows(const hy_results* r, const double* t, const hy_snapshot_options* o,
                      const char* rpath, long* rows, int* n, char* msg, size_t size) {
  const long nrow = r->nrow;
  const double t0 = t[0], t1 = t[nrow - 1];
  // rows written at k dt carry the round-off of the sum of the steps
  const double tol = 1e-9 * fmax(1.0, fmax(fabs(t0), fabs(t1)));
  double want[HY_SNAPSHOT_MAX_FRAMES];
  int nwant = 0;
  if (o->times && o->ntimes > 0) {
    if (o->ntimes > HY_SNAPSHOT_MAX_FRAMES) {
      snprintf(msg, size, "--times gives %d times; at most %d frames fit one figure", o->ntimes,
               HY_SNAPSHOT_MAX_FRAMES);
      return HY_CLI_USAGE;
    }
    for (int k = 0; k < o->ntimes; k++) {
      if (o->times[k] > t1 + tol) {
        snprintf(msg, size, "--times: t = %g s is after the last row of '%s' (t = %.9g s)",
                 o->times[k], rpath, t1);
        return HY_CLI_USAGE;
      }
      want[nwant++] = o->times[k];
    }
    // ascending, so that "darker = later" holds whatever order they were given in
    for (int a = 1; a < nwant; a++) {
      for (int b = a; b > 0 && want[b - 1] > want[b]; b--) {
        const double x = want[b];
        want[b] = want[b - 1];
        want[b - 1] = x;
      }
    }
  } else {
    double every = o->every;
    if (!(every > 0)) every = (t1 - t0) / 10;
    if (!(every > 0)) {
      want[nwant++] = t0;  // a single row
    } else {
      const double count = floor((t1 + tol) / every) + 1;
      if (count > HY_SNAPSHOT_MAX_FRAMES) {
        snprintf(msg, size,
                 "--every %g s gives %.0f frames over the %g s of '%s'; at most %d fit one "
                 "figure (try --every %g)",
                 every, count, t1, rpath, HY_SNAPSHOT_MAX_FRAMES, t1 / 10);
        return HY_CLI_USAGE;
      }
      for (int k = 0; k < (int)count; k++) want[nwant++] = k * every;
    }
  }
  *n = 0;
  long row = 0;
  for (int k = 0; k < nwant; k++) {
    while (row < nrow - 1 && t[row] < want[k] - tol) row++;
    if (*n == 0 || rows[*n - 1] != row) rows[(*n)++] = row;
  }
  return HY_CLI_OK;
}

// The columns of r holding m's joint coordinates into col[j]; HY_CLI_FAIL with the missing
// channels named when r does not hold them all.
static int joint_columns(const hy_model* m, const hy_results* r, const char* rpath, int* col,
                         char* msg, size_t size) {
  char missing[512] = "";
  int nmissing = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    char ch[HY_NAME_MAX + 8];
    snprintf(ch, sizeof ch, "z:%s", NAME(m->jnt_name, j));
    col[j] = hy_results_find(r, ch);
    const char* want = m->jnt_type[j] == HY_JOINT_PRISMATIC ? "m" : "rad";
    // a column of the right name but another unit is another model's joint of the same name
    if (col[j] >= 0 && r->unit && r->unit[col[j]] && r->unit[col[j]][0] &&
        strcmp(r->unit[col[j]], want) != 0) {
      col[j] = -1;
    }
    if (col[j] < 0) {
      const size_t len = strlen(missing);
      if (len + strlen(ch) + 8 < sizeof missing) {
        snprintf(missing + len, sizeof missing - len, "%s%s[%s]", nmissing ? ", " : "", ch, want);
      }
      nmissing++;
    }
  }
  if (!nmissing) return HY_CLI_OK;
  // what the file has instead, so that a user sees which model it belongs to
  char have[512] = "";
  int nhave = 0;
  for (int c = 0; c < r->nchan; c++) {
    if (strncmp(r->name[c], "z:", 2) != 0) continue;
    const size_t len = strlen(have);
    if (len + strlen(r->name[c]) + 8 < sizeof have) {
      snprintf(have + len, sizeof have - len, "%s%s", nhave ? ", " : "", r->name[c]);
    }
    nhave++;
  }
  if (nhave == 0) {
    snprintf(msg, size,
             "'%s' holds no joint coordinates (z:* channels), and snapshot needs %s of model "
             "'%s': record them with 'hydyn run' (the default channels hold them)",
             rpath, missing, m->name);
  } else {
    snprintf(msg, size,
             "'%s' lacks the joint coordinate%s %s of model '%s' and holds %s instead: these are "
             "the results of another model",
             rpath, nmissing == 1 ? "" : "s", missing, m->name, have);
  }
  return HY_CLI_FAIL;
}

//----- the view --------------------------------------------------------------------------------

typedef struct view {
  double u[3], v[3];  // inertial directions across and up
  char xlabel[96], ylabel[96];
  char axes[8];  // "x,y", ... or "e1,e2"
} view;

static void view_axes(view* w, int ia, int ib) {
  static const char axis[] = "xyz";
  memset(w->u, 0, sizeof w->u);
  memset(w->v, 0, sizeof w->v);
  w->u[ia] = 1;
  w->v[ib] = 1;
  snprintf(w->xlabel, sizeof w->xlabel, "%c (m)", axis[ia]);
  snprintf(w->ylabel, sizeof w->ylabel, "%c (m)", axis[ib]);
  snprintf(w->axes, sizeof w->axes, "%c,%c", axis[ia], axis[ib]);
}

// The plane of the figure: as asked, the model's plane, or the two axes of largest extent.
static void choose_view(const hy_model* m, const item_list* l, hy_snapshot_plane plane, view* w) {
  if (plane != HY_SNAPSHOT_PLANE_AUTO) {
    view_axes(w, plane == HY_SNAPSHOT_PLANE_YZ ? 1 : 0, plane == HY_SNAPSHOT_PLANE_XY ? 1 : 2);
    return;
  }
  if (m->planar) {
    // A normal along a coordinate axis shows the other two in their own order and sense (the
    // compiler's plane_e1, plane_e2 would mirror a plane whose normal points along -z).
    const double* n = m->plane_normal;
    for (int a = 0; a < 3; a++) {
      if (fabs(fabs(n[a]) - 1) < 1e-12) {
        view_axes(w, a == 0 ? 1 : 0, a == 2 ? 1 : 2);
        return;
      }
    }
    memcpy(w->u, m->plane_e1, sizeof w->u);
    memcpy(w->v, m->plane_e2, sizeof w->v);
    snprintf(w->axes, sizeof w->axes, "e1,e2");
    snprintf(w->xlabel, sizeof w->xlabel, "along (%.3g, %.3g, %.3g) (m)", w->u[0], w->u[1],
             w->u[2]);
    snprintf(w->ylabel, sizeof w->ylabel, "along (%.3g, %.3g, %.3g) (m)", w->v[0], w->v[1],
             w->v[2]);
    return;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < l->n; i++) {
    for (int a = 0; a < 3; a++) {
      lo[a] = fmin(lo[a], fmin(l->v[i].a[a], l->v[i].b[a]));
      hi[a] = fmax(hi[a], fmax(l->v[i].a[a], l->v[i].b[a]));
    }
  }
  // the smallest extent is the one left out; ties keep the later axis out (x-y before x-z)
  int out = 2;
  for (int a = 1; a >= 0; a--) {
    if (hi[a] - lo[a] < hi[out] - lo[out]) out = a;
  }
  view_axes(w, out == 0 ? 1 : 0, out == 2 ? 1 : 2);
}

static void project(const view* w, const double p[3], double* x, double* y) {
  *x = w->u[0] * p[0] + w->u[1] * p[1] + w->u[2] * p[2];
  *y = w->v[0] * p[0] + w->v[1] * p[1] + w->v[2] * p[2];
}

//----- output ----------------------------------------------------------------------------------

// A CSV field: quoted when it holds a comma, quote or line break (RFC 4180).
static void csv_field(FILE* fp, const char* s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, fp);
    return;
  }
  fputc('"', fp);
  for (; *s; s++) {
    if (*s == '"') fputc('"', fp);
    fputc(*s, fp);
  }
  fputc('"', fp);
}

static int write_data(const char* path, const item_list* l, const view* w, const double* ftime,
                      char* msg, size_t size) {
  FILE* fp = fopen(path, "w");
  if (!fp) {
    snprintf(msg, size, "cannot write '%s'", path);
    return HY_CLI_FAIL;
  }
  fputs("time[s],kind,name,x1[m],y1[m],x2[m],y2[m]\n", fp);
  for (size_t i = 0; i < l->n; i++) {
    const item* it = &l->v[i];
    double x1, y1, x2, y2;
    project(w, it->a, &x1, &y1);
    project(w, it->b, &x2, &y2);
    fprintf(fp, "%.17g,%s,", ftime[it->frame], kKindName[it->k]);
    csv_field(fp, it->name);
    fprintf(fp, ",%.17g,%.17g,%.17g,%.17g\n", x1, y1, x2, y2);
  }
  const int bad = ferror(fp);
  if (fclose(fp) != 0 || bad) {
    snprintf(msg, size, "writing '%s' failed", path);
    return HY_CLI_FAIL;
  }
  return HY_CLI_OK;
}

// Colours: one per body (cycled), the others fixed; hex 0xRRGGBB.
static const unsigned kBodyColour[] = {0x1f77b4, 0x2ca02c, 0x9467bd, 0x8c564b, 0x17becf,
                                       0xbcbd22, 0xe377c2, 0x7f7f7f, 0x393b79, 0x637939};
enum {
  C_GROUND = 0x404040,
  C_BARREL = 0x5a6b7b,
  C_ROD = 0xd95f02,
  C_FORCE = 0xd62728,
  C_CUT = 0x000000,
  C_JOINT = 0x202020,
};

static unsigned body_colour(int j) {
  return kBodyColour[(unsigned)j % (sizeof kBodyColour / sizeof kBodyColour[0])];
}

// c mixed with white: share 1 of c is c itself. The earlier frames fade this way rather than
// through transparency, so a frame drawn over an earlier one hides it instead of darkening it.
static unsigned fade(unsigned c, double share) {
  unsigned out = 0;
  for (int s = 16; s >= 0; s -= 8) {
    const double x = (double)((c >> s) & 0xff);
    const unsigned v = (unsigned)lround(255 - (255 - x) * share);
    out |= v << s;
  }
  return out;
}

static unsigned item_colour(const item* it) {
  switch (it->k) {
    case K_BODY:
    case K_SLIDE:
    case K_MARKER:
    case K_BLOCK:
      return body_colour(it->body);
    case K_BARREL:
      return C_BARREL;
    case K_ROD:
      return C_ROD;
    case K_FORCE:
      return C_FORCE;
    case K_CUT:
      return C_CUT;
    case K_GROUND:
    case K_GROUND_MARKER:
      return C_GROUND;
    case K_JOINT:
    case NKIND:
      break;
  }
  return C_JOINT;
}

// How a kind is plotted: segments (vectors) or points, with the gnuplot style after `lc`.
typedef struct style {
  int points;
  const char* spec;  // appended after "with vectors nohead " / "with points "
} style;

static const style kStyle[NKIND] = {
    [K_FORCE] = {0, "lw 1.5 dt (6,4)"},
    [K_SLIDE] = {0, "lw 1.5 dt (2,3)"},
    [K_BODY] = {0, "lw 3.5"},
    [K_BARREL] = {0, "lw 9"},
    [K_ROD] = {0, "lw 3"},
    [K_CUT] = {0, "lw 1 dt (1,3)"},
    [K_MARKER] = {1, "pt 7 ps 0.6"},
    [K_BLOCK] = {1, "pt 5 ps 2.2"},
    [K_GROUND_MARKER] = {1, "pt 5 ps 0.8"},
    [K_GROUND] = {1, "pt 6 ps 1.1"},  // a pin; its hatched support is write_ground's
    [K_JOINT] = {1, "pt 6 ps 1.1"},
};

// The hatched supports under the joints to ground: one triangle, base and hatches each, of
// size s (figure units), pointing down along (dx, dy).
static void write_ground(FILE* gp, const item_list* l, const view* w, double s, double dx,
                         double dy) {
  const double px = -dy, py = dx;  // across the support
  fputs("$GROUND << EOD\n", gp);
  for (size_t i = 0; i < l->n; i++) {
    const item* it = &l->v[i];
    if (it->k != K_GROUND || it->frame != 0) continue;
    double x, y;
    project(w, it->a, &x, &y);
    const double bx = x + 1.6 * s * dx, by = y + 1.6 * s * dy;  // base centre
    const double lx = bx - s * px, ly = by - s * py, rx = bx + s * px, ry = by + s * py;
    fprintf(gp, "%.9g %.9g %.9g %.9g\n", x, y, lx - x, ly - y);
    fprintf(gp, "%.9g %.9g %.9g %.9g\n", x, y, rx - x, ry - y);
    fprintf(gp, "%.9g %.9g %.9g %.9g\n", lx - 0.4 * s * px, ly - 0.4 * s * py, 2.8 * s * px,
            2.8 * s * py);
    for (int h = 0; h < 5; h++) {
      const double hx = lx + (h - 0.4) * 0.6 * s * px, hy = ly + (h - 0.4) * 0.6 * s * py;
      fprintf(gp, "%.9g %.9g %.9g %.9g\n", hx, hy, 0.5 * s * (dx - px), 0.5 * s * (dy - py));
    }
  }
  fputs("EOD\n", gp);
}

// "0, 1, 2, ..., 10": every time when few, else the first ones and the last.
static void times_text(const double* t, int n, char* buf, size_t size) {
  size_t len = 0;
  for (int k = 0; k < n && len < size; k++) {
    if (n > 6 && k == 3 && k < n - 1) {
      len += (size_t)snprintf(buf + len, size - len, ", ...");
      k = n - 2;
      continue;
    }
    len += (size_t)snprintf(buf + len, size - len, "%s%.4g", k ? ", " : "", t[k]);
  }
}

// Writes the script and its data to gp, started by the caller, and ends it.
static int draw(FILE* gp, const hy_model* m, const item_list* l, const view* w, const double* ftime,
                int nframe, const hy_snapshot_options* o, const char* out_path, char* msg,
                size_t size) {
  const int format = hy_gp_format_of(out_path, msg, size);
  // the extent of everything drawn, every frame
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (size_t i = 0; i < l->n; i++) {
    double x, y;
    for (int e = 0; e < 2; e++) {
      project(w, e ? l->v[i].b : l->v[i].a, &x, &y);
      x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
    }
  }
  const double ext = fmax(fmax(x1 - x0, y1 - y0), 1e-3);
  // the supports hang below the joints to ground, along gravity where it lies in the figure
  double gx = 0, gy = -1;
  {
    double px, py;
    project(w, m->opt.gravity, &px, &py);
    const double g = hypot(px, py);
    if (g >
        1e-9 * fmax(1.0, hypot(hypot(m->opt.gravity[0], m->opt.gravity[1]), m->opt.gravity[2]))) {
      gx = px / g, gy = py / g;
    }
  }
  const double s = 0.022 * ext;  // support size
  for (size_t i = 0; i < l->n; i++) {
    if (l->v[i].k != K_GROUND) continue;
    double x, y;
    project(w, l->v[i].a, &x, &y);
    x0 = fmin(x0, x + 2.2 * s * gx - s), x1 = fmax(x1, x + 2.2 * s * gx + s);
    y0 = fmin(y0, y + 2.2 * s * gy - s), y1 = fmax(y1, y + 2.2 * s * gy + s);
  }
  // room for the symbols and labels at the edges
  const double pad = 0.07 * fmax(x1 - x0, y1 - y0) + 1e-3;
  x0 -= pad, x1 += pad, y0 -= pad, y1 += pad;

  // the figure's size follows the mechanism's aspect, so that it is not mostly margin
  int width = o->width, height = o->height;
  if (width <= 0 || height <= 0) {
    const double aspect = (y1 - y0) / (x1 - x0);
    width = 1000;
    height = (int)lround(880 * aspect + 190);
    if (height > 1000) {
      height = 1000;
      width = (int)lround((1000 - 190) / aspect + 120);
      if (width < 700) width = 700;  // the legend's width
    }
    if (height < 420) height = 420;
  }

  hy_gp_output(gp, (hy_gp_format)format, out_path, width, height);
  char tt[256];
  times_text(ftime, nframe, tt, sizeof tt);
  char title[512];
  snprintf(title, sizeof title, "%s: t = %s s%s", o->title ? o->title : m->name, tt,
           nframe > 1 ? " (darker = later)" : "");
  fputs("set title ", gp);
  hy_gp_string(gp, title);
  fputs("\nset xlabel ", gp);
  hy_gp_string(gp, w->xlabel);
  fputs("\nset ylabel ", gp);
  hy_gp_string(gp, w->ylabel);
  fprintf(gp,
          "\nset size ratio -1\n"
          "set grid lc rgb '#d8d8d8' lw 1 dt 1\n"
          "set border lc rgb '#606060'\n"
          "set tics out nomirror\n"
          "set key outside bottom center horizontal samplen 2.5 spacing 1.1\n"
          "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n",
          x0, x1, y0, y1);

  // the last frame's joints and ground points named: the letters of the paper's figure
  const int last = nframe - 1;
  for (size_t i = 0; i < l->n; i++) {
    const item* it = &l->v[i];
    if (it->frame != last || (it->k != K_JOINT && it->k != K_GROUND && it->k != K_GROUND_MARKER)) {
      continue;
    }
    // a joint to ground is both a joint and a support: one label
    int seen = 0;
    for (size_t e = 0; e < i && !seen; e++) {
      const item* o2 = &l->v[e];
      seen = o2->frame == last && o2->name == it->name && dist3(o2->a, it->a) == 0;
    }
    if (seen) continue;
    double x, y;
    project(w, it->a, &x, &y);
    fputs("set label ", gp);
    hy_gp_string(gp, it->name);
    fprintf(gp, " at %.9g,%.9g offset 0.7,0.8 font ',9' tc rgb '#303030' front\n", x, y);
  }

  // data: the supports, then per frame one block with an index per kind
  write_ground(gp, l, w, s, gx, gy);
  int present[NKIND] = {0};
  for (int f = 0; f < nframe; f++) {
    const double share = nframe == 1 ? 1.0 : 0.25 + 0.75 * f / (nframe - 1);
    fprintf(gp, "$F%d << EOD\n", f);
    for (int k = 0; k < NKIND; k++) {
      if (k) fputs("\n\n", gp);
      int any = 0;
      for (size_t i = 0; i < l->n; i++) {
        const item* it = &l->v[i];
        if (it->frame != f || it->k != (kind)k) continue;
        double xa, ya, xb, yb;
        project(w, it->a, &xa, &ya);
        project(w, it->b, &xb, &yb);
        const unsigned c = fade(item_colour(it), share);
        if (kStyle[k].points) {
          fprintf(gp, "%.9g %.9g %u\n", xa, ya, c);
        } else {
          fprintf(gp, "%.9g %.9g %.9g %.9g %u\n", xa, ya, xb - xa, yb - ya, c);
        }
        any = 1;
      }
      // gnuplot refuses an empty index: a point outside the range stands in
      if (!any) {
        fprintf(gp, kStyle[k].points ? "%.9g %.9g 0\n" : "%.9g %.9g 0 0 0\n", x1 + ext, y1 + ext);
      } else {
        present[k] = 1;
      }
    }
    fputs("EOD\n", gp);
  }

  fputs("plot $GROUND using 1:2:3:4 with vectors nohead lw 1.5 lc rgb '#404040' notitle", gp);
  for (int f = 0; f < nframe; f++) {
    for (int k = 0; k < NKIND; k++) {
      if (!present[k]) continue;
      if (kStyle[k].points) {
        if (k == K_JOINT || k == K_GROUND) {
          // an open circle: a white disc under a ring in the frame's shade
          fprintf(gp,
                  ", \\\n  $F%d index %d using 1:2 with points pt 7 ps 1.1 lc rgb '#ffffff' "
                  "notitle",
                  f, k);
          fprintf(gp,
                  ", \\\n  $F%d index %d using 1:2:3 with points pt 6 ps 1.1 lw 1.5 lc rgb "
                  "variable notitle",
                  f, k);
        } else {
          fprintf(gp, ", \\\n  $F%d index %d using 1:2:3 with points %s lc rgb variable notitle", f,
                  k, kStyle[k].spec);
        }
      } else {
        fprintf(gp,
                ", \\\n  $F%d index %d using 1:2:3:4:5 with vectors nohead %s lc rgb variable "
                "notitle",
                f, k, kStyle[k].spec);
      }
      if (k == K_CUT) {
        // the diamond at marker b
        fprintf(gp,
                ", \\\n  $F%d index %d using ($1+$3):($2+$4):5 with points pt 12 ps 2 lw 1.5 "
                "lc rgb variable notitle",
                f, k);
      }
    }
  }
  // the legend, in full colour
  for (int j = 0; j < m->sizes.nbody; j++) {
    fprintf(gp, ", \\\n  keyentry with lines lw 3.5 lc rgb '#%06x' title ", body_colour(j));
    hy_gp_string(gp, NAME(m->body_name, j));
  }
  if (present[K_BARREL]) {
    fprintf(gp, ", \\\n  keyentry with lines lw 9 lc rgb '#%06x' title 'cylinder barrel'",
            C_BARREL);
    fprintf(gp, ", \\\n  keyentry with lines lw 3 lc rgb '#%06x' title 'rod'", C_ROD);
  }
  if (present[K_FORCE]) {
    fprintf(gp, ", \\\n  keyentry with lines lw 1.5 dt (6,4) lc rgb '#%06x' title 'force'",
            C_FORCE);
  }
  fputs(", \\\n  keyentry with points pt 6 ps 1.1 lw 1.5 lc rgb '#202020' title 'joint'", gp);
  if (present[K_CUT]) {
    fputs(", \\\n  keyentry with points pt 12 ps 2 lw 1.5 lc rgb '#000000' title 'cut joint'", gp);
  }
  fputc('\n', gp);
  return hy_gp_close(gp, out_path, msg, size) == 0 ? HY_CLI_OK : HY_CLI_FAIL;
}

//----- entry points ----------------------------------------------------------------------------

int hy_snapshot_render(const hy_model* m, const hy_results* r, const hy_snapshot_options* o,
                       const char* out_path, hy_snapshot_summary* done, char* msg, size_t size) {
  static const hy_snapshot_options defaults;
  if (!o) o = &defaults;
  const char* rpath = r->path[0] ? r->path : "the results";
  if (out_path && hy_gp_format_of(out_path, msg, size) < 0) return HY_CLI_USAGE;
  const int tcol = hy_results_find(r, "time");
  if (tcol < 0 || r->nrow < 1) {
    snprintf(msg, size, "'%s' has %s", rpath, tcol < 0 ? "no time column" : "no rows");
    return HY_CLI_FAIL;
  }
  const double* t = hy_results_column(r, tcol);
  int* col = calloc((size_t)m->sizes.nbody + 1, sizeof *col);
  if (!col) {
    snprintf(msg, size, "out of memory");
    return HY_CLI_FAIL;
  }
  int rc = joint_columns(m, r, rpath, col, msg, size);
  long rows[HY_SNAPSHOT_MAX_FRAMES];
  int nframe = 0;
  if (rc == HY_CLI_OK) rc = frame_rows(r, t, o, rpath, rows, &nframe, msg, size);
  hy_data* d = NULL;
  if (rc == HY_CLI_OK) {
    hy_error err;
    memset(&err, 0, sizeof err);
    const hy_status s = hy_data_make(m, &d, &err);
    if (s != HY_OK) {
      snprintf(msg, size, "cannot set up model '%s': %s", m->name,
               err.msg[0] ? err.msg : hy_status_str(s));
      rc = HY_CLI_FAIL;
    }
  }
  // the geometry of every frame
  item_list l = {0};
  double ftime[HY_SNAPSHOT_MAX_FRAMES];
  double scale = 1;
  for (int k = 0; rc == HY_CLI_OK && k < m->sizes.nmrk; k++) {
    for (int a = 0; a < 3; a++) scale = fmax(scale, fabs(m->mrk_point[3 * k + a]));
  }
  for (int f = 0; rc == HY_CLI_OK && f < nframe; f++) {
    const long row = rows[f];
    ftime[f] = t[row];
    d->time = t[row];
    for (int j = 0; j < m->sizes.nbody; j++) {
      d->z[m->jnt_zadr[j]] = hy_results_column(r, col[j])[row];
    }
    for (int i = 0; i < m->sizes.nz; i++) d->zd[i] = d->zdd[i] = 0;
    // the recorded angles are those of the charts the model defines, which may be near their lock
    hy_reanchor(m, d, 1);
    const hy_status s = hy_forward(m, d);
    if (s != HY_OK) {
      snprintf(msg, size, "the kinematics failed at t = %.9g s of '%s': %s", t[row], rpath,
               d->err.msg[0] ? d->err.msg : hy_status_str(s));
      rc = HY_CLI_FAIL;
    } else if (collect(m, d, f, 1e-9 * scale, &l)) {
      snprintf(msg, size, "out of memory");
      rc = HY_CLI_FAIL;
    }
  }
  if (rc == HY_CLI_OK) {
    view w;
    choose_view(m, &l, o->plane, &w);
    // gnuplot first: a machine without it gets the message and no files
    FILE* gp = NULL;
    if (out_path && !(gp = hy_gp_open(msg, size))) rc = HY_CLI_FAIL;
    if (rc == HY_CLI_OK && o->data_path) rc = write_data(o->data_path, &l, &w, ftime, msg, size);
    if (gp && rc != HY_CLI_OK) hy_gp_abort(gp);  // before it was given an output file
    if (gp && rc == HY_CLI_OK) rc = draw(gp, m, &l, &w, ftime, nframe, o, out_path, msg, size);
    if (done) {
      done->nframe = nframe;
      done->t_first = ftime[0];
      done->t_last = ftime[nframe - 1];
      snprintf(done->axes, sizeof done->axes, "%s", w.axes);
    }
  }
  free(l.v);
  hy_data_free(d);
  free(col);
  return rc;
}

int hy_snapshot_draw(const hy_model* m, const hy_results* r, double every, const char* out_path,
                     const char* data_path, char* msg, size_t size) {
  hy_snapshot_options o;
  memset(&o, 0, sizeof o);
  o.every = every > 0 ? every : 0;
  o.data_path = data_path;
  return hy_snapshot_render(m, r, &o, out_path, NULL, msg, size);
}
