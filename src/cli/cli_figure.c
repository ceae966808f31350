// Figures of results channels (cli_figure.h): panels by unit, the layout in pixels, the data
// file and the gnuplot script. The one place that decides how a hydyn figure looks, so that
// plot, compare, snapshot and report draw alike.
#define _POSIX_C_SOURCE 200809L  // access

#include "cli/cli_figure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_gnuplot.h"
#include "hydyn/channels.h"

// Layout in pixels: the plot area of a panel by default, the gap between panels (room for the
// upper panel's x tick labels), the space above the top panel (with and without a title) and
// below the bottom one (tick labels and x label), the left margin (y tick labels and y label)
// and the y label's centre from the left edge.
enum {
  PANEL_PX = 230,
  MIN_PANEL_PX = 60,
  GAP_PX = 30,
  TOP_PX = 14,
  TITLE_PX = 38,
  BOTTOM_PX = 50,
  LEFT_PX = 92,
  YLABEL_PX = 16,
  DEFAULT_WIDTH = 1000,
  MAX_DEFAULT_HEIGHT = 1800,
  // the legend: a line sample and padding, an estimate of a character's width, a row's height
  KEY_PAD_PX = 72,
  KEY_CHAR_PX = 8,
  KEY_ROW_PX = 17,
};

// Okabe-Ito-like palette of distinct colours that stay apart in grey and for colour-blind
// readers; yellow is left out (too pale on white).
static const char* const kPalette[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                       "#e69f00", "#56b4e9", "#000000", "#8c564b"};
enum { NPALETTE = (int)(sizeof kPalette / sizeof kPalette[0]) };

//----- units -------------------------------------------------------------------------------------

// The quantity a unit measures and how it is shown: Pa and m^3/s are hard to read in SI (5e6,
// 1.2e-4), so figures show MPa and L/min; everything else stays SI.
typedef struct unit_view {
  const char* unit;      // SI unit of the results file
  const char* quantity;  // the word on the axis
  const char* shown;     // the unit on the axis
  double scale;          // shown value = scale * SI value
} unit_view;

static const unit_view kUnits[] = {
    {"s", "time", "s", 1},
    {"rad", "angle", "rad", 1},
    {"rad/s", "angular velocity", "rad/s", 1},
    {"rad/s^2", "angular acceleration", "rad/s^2", 1},
    {"m", "length", "m", 1},
    {"m/s", "velocity", "m/s", 1},
    {"m/s^2", "acceleration", "m/s^2", 1},
    {"N", "force", "N", 1},
    {"N m", "torque", "N m", 1},
    {"J", "energy", "J", 1},
    {"W", "power", "W", 1},
    {"Pa", "pressure", "MPa", 1e-6},
    {"Pa/s", "pressure rate", "MPa/s", 1e-6},
    {"m^3", "volume", "m^3", 1},
    {"m^3/s", "flow", "L/min", 6e4},
    {"V", "spool", "V", 1},
    {"V/s", "spool velocity", "V/s", 1},
    {"", "count, ratio", "-", 1},
};

static unit_view view_of(const char* unit) {
  for (size_t k = 0; k < sizeof kUnits / sizeof kUnits[0]; k++) {
    if (strcmp(kUnits[k].unit, unit) == 0) return kUnits[k];
  }
  // a unit this table does not know is shown as it is
  return (unit_view){unit, "value", unit, 1};
}

// "[group: ]quantity[ - offset] (unit)"; the offset with `digits` decimals. Returns the scale.
static double axis_text(const char* unit, const char* group, double offset, int digits,
                        char* buf, size_t size) {
  const unit_view v = view_of(unit);
  char off[64] = "";
  if (offset != 0) snprintf(off, sizeof off, " - %.*f", digits, offset);
  snprintf(buf, size, "%s%s%s%s (%s)", group && group[0] ? group : "",
           group && group[0] ? ": " : "", v.quantity, off, v.shown);
  return v.scale;
}

double hy_fig_axis_label(const char* unit, char* buf, size_t size) {
  return axis_text(unit, NULL, 0, 0, buf, size);
}

int hy_fig_solver_channel(const char* name) {
  static const char* const kSolver[] = {"iter", "iter_total", "residual", "step_wall",
                                         "violation", "violation_nh"};
  for (size_t k = 0; k < sizeof kSolver / sizeof kSolver[0]; k++) {
    if (strcmp(name, kSolver[k]) == 0) return 1;
  }
  return 0;
}

//----- panels ------------------------------------------------------------------------------------

static const char* group_of(const hy_fig_curve* c) { return c->group ? c->group : ""; }

// Panel of each curve into panel[0..ncurve) (in the order of their first curves); returns the
// number of panels.
static int assign_panels(const hy_fig* f, int* panel, int* first) {
  int npanel = 0;
  for (int k = 0; k < f->ncurve; k++) {
    const hy_fig_curve* c = f->curve + k;
    panel[k] = -1;
    for (int p = 0; p < npanel && panel[k] < 0; p++) {
      const hy_fig_curve* q = f->curve + first[p];
      if (strcmp(q->unit, c->unit) == 0 && strcmp(group_of(q), group_of(c)) == 0) panel[k] = p;
    }
    if (panel[k] < 0) {
      first[npanel] = k;
      panel[k] = npanel++;
    }
  }
  return npanel;
}

int hy_fig_cap_panels(const hy_results* r, int* idx, int* n, int max_panels, char* left,
                      size_t size) {
  // the units kept, by their first channel
  int nkept = 0, ndropped = 0, out = 0;
  const char** kept = malloc(sizeof *kept * (size_t)(*n > 0 ? *n : 1));
  if (size > 0) left[0] = '\0';
  size_t used = 0;
  for (int k = 0; k < *n; k++) {
    const char* unit = r->unit[idx[k]];
    int known = 0;
    for (int u = 0; u < nkept && !known; u++) known = strcmp(kept[u], unit) == 0;
    if (!known && nkept < max_panels && kept) {
      kept[nkept++] = unit;
      known = 1;
    }
    if (known) {
      idx[out++] = idx[k];
      continue;
    }
    ndropped++;
    if (used < size) {
      const int w = snprintf(left + used, size - used, "%s%s%s%s%s", used ? ", " : "",
                             r->name[idx[k]], unit[0] ? " [" : "", unit, unit[0] ? "]" : "");
      used += w > 0 ? (size_t)w : 0;
    }
  }
  free(kept);
  *n = out;
  return ndropped;
}

//----- data --------------------------------------------------------------------------------------

// A CSV header field: "name[unit]", or the bare name for ""; quoted as the results CSV quotes
// it (RFC 4180) when a model's element name holds a comma, quote or line break.
static void header_field(FILE* fp, const char* name, const char* unit) {
  char field[HY_CHANNEL_NAME_MAX + 40];
  if (unit[0]) {
    snprintf(field, sizeof field, "%s[%s]", name, unit);
  } else {
    snprintf(field, sizeof field, "%s", name);
  }
  if (!field[strcspn(field, ",\"\r\n")]) {
    fputs(field, fp);
    return;
  }
  fputc('"', fp);
  for (const char* c = field; *c; c++) {
    if (*c == '"') fputc('"', fp);
    fputc(*c, fp);
  }
  fputc('"', fp);
}

static int write_data(const hy_fig* f, const char* path, char* msg, size_t size) {
  FILE* fp = fopen(path, "w");
  if (!fp) {
    snprintf(msg, size, "cannot write the data file '%s': %s", path, strerror(errno));
    return HY_CLI_FAIL;
  }
  header_field(fp, f->x_name, f->x_unit);
  for (int k = 0; k < f->ncurve; k++) {
    fputc(',', fp);
    header_field(fp, f->curve[k].name, f->curve[k].unit);
  }
  fputc('\n', fp);
  // %.17g: the numbers read back bit for bit, as in the results CSV
  for (long i = 0; i < f->npoint; i++) {
    fprintf(fp, "%.17g", f->x[i]);
    for (int k = 0; k < f->ncurve; k++) fprintf(fp, ",%.17g", f->curve[k].y[i]);
    fputc('\n', fp);
  }
  const int failed = ferror(fp);
  if (fclose(fp) != 0 || failed) {
    snprintf(msg, size, "writing the data file '%s' failed: %s", path, strerror(errno));
    return HY_CLI_FAIL;
  }
  return HY_CLI_OK;
}

//----- drawing -----------------------------------------------------------------------------------

// What the script needs of each panel: its y label, scale from SI, offset and range as shown
// (a value v in SI is drawn as scale * v - offset).
typedef struct panel_info {
  char ylabel[200];
  double scale, offset;
  double lo, hi;
  int nentry;  // legend entries: curves with a label
  int dashed;  // 1 when a curve is dashed: the legend then explains the two styles
} panel_info;

// [lo, hi] of the values shown, widened so that no curve runs along the frame and a constant
// still gets an axis (gnuplot would warn about an empty range and pick one itself).
static void padded_range(double lo, double hi, double* out_lo, double* out_hi) {
  const double mag = fmax(fabs(lo), fabs(hi));
  double pad = 0.05 * (hi - lo);
  // a span at round-off level of the values is a constant
  if (!(hi - lo > 1e-12 * mag)) pad = mag > 0 ? 0.05 * mag : 1;
  *out_lo = lo - pad;
  *out_hi = hi + pad;
}

// [lo, hi] of positive values on a logarithmic axis, widened by 5 % of its decades (half a
// decade each way for a constant).
static void padded_log_range(double lo, double hi, double* out_lo, double* out_hi) {
  const double a = log10(lo), b = log10(hi);
  const double pad = b - a > 1e-12 ? 0.05 * (b - a) : 0.5;
  *out_lo = pow(10, a - pad);
  *out_hi = pow(10, b + pad);
}

// 1 when v can be drawn: finite, and > 0 on a logarithmic axis.
static int drawable(double v, int log_axis) { return isfinite(v) && (!log_axis || v > 0); }

// The offset to take off a panel's values (as shown) in [lo, hi], 0 for none: when they vary
// by less than 1e-4 of their size (a force of 11029.38086 N moving by 1e-7 N), tick labels of
// six digits would all read the same, and more digits would not fit. The offset is the middle
// rounded to a tenth of the span's decade, so the label prints it exactly.
static double panel_offset(double lo, double hi) {
  const double mag = fmax(fabs(lo), fabs(hi));
  const double span = hi - lo;
  // a span at round-off level is a constant (padded_range), which reads fine without one
  if (!(span > 1e-12 * mag) || span >= 1e-4 * mag) return 0;
  const double step = pow(10, floor(log10(span)) - 1);
  return step * round(0.5 * (lo + hi) / step);
}

// The legend's width in pixels and rows per column for a panel of plot_px pixels: entries of
// up to maxlen characters in as many columns as needed.
static int key_width(int nentry, int maxlen, int plot_px, int* maxrows) {
  int rows = plot_px / KEY_ROW_PX;
  if (rows < 1) rows = 1;
  const int cols = (nentry + rows - 1) / rows;
  *maxrows = rows;
  return (cols > 0 ? cols : 1) * (KEY_PAD_PX + KEY_CHAR_PX * maxlen);
}

static const char* label_of(const hy_fig_curve* c) { return c->label ? c->label : c->name; }

// The x label: "time (s)" for time, else the channel with its quantity.
static void x_label(const hy_fig* f, char* buf, size_t size, double* scale) {
  char axis[160];
  *scale = hy_fig_axis_label(f->x_unit, axis, sizeof axis);
  if (strcmp(f->x_name, "time") == 0) {
    snprintf(buf, size, "%s", axis);
  } else {
    snprintf(buf, size, "%s, %s", f->x_name, axis);
  }
}

// Marks in keep[] the rows of panel p that its curves need at `columns` pixel columns of the
// x range [xlo, xhi] (x as shown, nondecreasing): in each pixel column the first and last row
// and each curve's lowest and highest. Lines through these rows draw the same pixels as lines
// through all of them, from a few thousand rows instead of a long run's millions.
static void thin_rows(const hy_fig* f, const int* panel, int p, double xscale, double xlo,
                      double xhi, int columns, char* keep) {
  memset(keep, 0, (size_t)f->npoint);
  const double per = columns / (xhi - xlo);
  long b0 = 0;
  while (b0 < f->npoint) {
    const long col = (long)floor((xscale * f->x[b0] - xlo) * per);
    long b1 = b0 + 1;
    while (b1 < f->npoint && (long)floor((xscale * f->x[b1] - xlo) * per) == col) b1++;
    keep[b0] = keep[b1 - 1] = 1;
    for (int k = 0; k < f->ncurve; k++) {
      if (panel[k] != p) continue;
      const double* y = f->curve[k].y;
      long lo = b0, hi = b0;
      for (long i = b0 + 1; i < b1; i++) {
        if (y[i] < y[lo]) lo = i;
        if (y[i] > y[hi]) hi = i;
      }
      keep[lo] = keep[hi] = 1;
    }
    b0 = b1;
  }
}

// The script after the terminal: the data blocks, the styles and one plot per panel. keep is
// scratch of npoint bytes; zoom is how much finer than the nominal pixels a reader may look
// (1 for PNG, more for the vector formats).
static void write_script(FILE* gp, const hy_fig* f, const int* panel, const panel_info* info,
                         int npanel, int width, int height, int plot_px, int zoom, char* keep) {
  double xscale = 1;
  char xlabel[200];
  x_label(f, xlabel, sizeof xlabel, &xscale);

  // one legend width for all panels, so that the plot areas line up under each other
  int maxlen = 4, maxrows = 1, key_px = 0;
  if (f->solid_label) maxlen = (int)strlen(f->solid_label);
  if (f->dashed_label && (int)strlen(f->dashed_label) > maxlen) {
    maxlen = (int)strlen(f->dashed_label);
  }
  for (int k = 0; k < f->ncurve; k++) {
    const int len = (int)strlen(label_of(f->curve + k));
    if (len > maxlen) maxlen = len;
  }
  for (int p = 0; p < npanel; p++) {
    const int extra = info[p].dashed * ((f->solid_label != NULL) + (f->dashed_label != NULL));
    const int w = key_width(info[p].nentry + extra, maxlen, plot_px, &maxrows);
    if (w > key_px) key_px = w;
  }
  // the plot area keeps at least 45 % of the width; a longer legend is cut at the right
  double right = 1.0 - (double)key_px / width;
  if (right < 0.45) right = 0.45;

  // x range: time exactly as recorded; a channel's range with a margin (a phase portrait)
  double xlo = INFINITY, xhi = -INFINITY;
  int increasing = !f->log_x;
  for (long i = 0; i < f->npoint; i++) {
    if (!drawable(f->x[i], f->log_x)) continue;
    xlo = fmin(xlo, xscale * f->x[i]);
    xhi = fmax(xhi, xscale * f->x[i]);
    if (i > 0 && !(f->x[i] >= f->x[i - 1])) increasing = 0;
  }
  if (!(xlo <= xhi)) xlo = xhi = 1;  // nothing drawable: an empty frame
  if (f->log_x) {
    padded_log_range(xlo, xhi, &xlo, &xhi);
  } else if (strcmp(f->x_name, "time") != 0 || !(xhi > xlo)) {
    padded_range(xlo, xhi, &xlo, &xhi);
  }

  // The values as shown, one block per panel: x, then the panel's curves. gnuplot splits every
  // field of a line for each curve it reads from a block, so a block per panel keeps a long run
  // of many channels from costing curves x channels. 12 digits are far below a pixel and halve
  // what goes through the pipe. Rows beyond 4 per pixel column (of the zoomed width) are
  // thinned (thin_rows) when x only grows (time); a phase portrait is drawn whole.
  const int columns = zoom * (int)((right - (double)LEFT_PX / width) * width);
  const int thin = increasing && xhi > xlo && f->npoint > 4L * columns && columns > 0;
  for (int p = 0; p < npanel; p++) {
    if (thin) thin_rows(f, panel, p, xscale, xlo, xhi, columns, keep);
    fprintf(gp, "$P%d << EOD\n", p + 1);
    for (long i = 0; i < f->npoint; i++) {
      if (thin && !keep[i]) continue;
      if (drawable(f->x[i], f->log_x)) {
        fprintf(gp, "%.12g", xscale * f->x[i]);
      } else {
        fputs("NaN", gp);
      }
      for (int k = 0; k < f->ncurve; k++) {
        if (panel[k] != p) continue;
        const double y = f->curve[k].y[i];
        if (drawable(y, f->log_y)) {
          fprintf(gp, " %.12g", info[p].scale * y - info[p].offset);
        } else {
          fputs(" NaN", gp);  // a gap: gnuplot draws no point and no line through it
        }
      }
      fputc('\n', gp);
    }
    fputs("EOD\n", gp);
  }

  for (int c = 0; c < NPALETTE; c++) {
    fprintf(gp, "set linetype %d lc rgb '%s' lw 1.6 dt solid\n", c + 1, kPalette[c]);
  }
  fprintf(gp, "set lmargin at screen %.5f\nset rmargin at screen %.5f\n", (double)LEFT_PX / width,
          right);
  fputs(
      "set key vertical Left reverse noenhanced samplen 2.5 spacing 1.05\n"
      "set grid xtics ytics lt 1 lc rgb '#d9d9d9' lw 1\n"
      "set border lc rgb '#404040'\n"
      "set tics nomirror out scale 0.6\n"
      "set format x '%g'\nset format y '%g'\n"
      "set ytics autofreq\nset mytics default\n",
      gp);
  fprintf(gp, "set key maxrows %d\n", maxrows);
  if (f->log_x) fputs("set logscale x 10\n", gp);
  if (f->log_y) fputs("set logscale y 10\n", gp);
  fprintf(gp, "set xrange [%.17g:%.17g]\n", xlo, xhi);

  fputs("set multiplot", gp);
  if (f->title && f->title[0]) {
    fputs(" title ", gp);
    hy_gp_string(gp, f->title);
    fputs(" font ',12'", gp);
  }
  fputc('\n', gp);
  const int top = f->title && f->title[0] ? TITLE_PX : TOP_PX;
  for (int p = 0; p < npanel; p++) {
    const int y0 = top + p * (plot_px + GAP_PX);
    fprintf(gp, "set tmargin at screen %.5f\nset bmargin at screen %.5f\n",
            1.0 - (double)y0 / height, 1.0 - (double)(y0 + plot_px) / height);
    // the legend starts right of the plot area, level with its top: next to its curves
    fprintf(gp, "set key at screen %.5f, %.5f left top\n", right + 8.0 / width,
            1.0 - (double)y0 / height);
    // the y label at a fixed distance from the figure's edge, so that wide tick labels
    // ("-1.5e-11") cannot push it off the canvas
    fputs("set label 1 ", gp);
    hy_gp_string(gp, info[p].ylabel);
    fprintf(gp, " at screen %.5f, %.5f rotate by 90 center front\n", (double)YLABEL_PX / width,
            1.0 - (y0 + 0.5 * plot_px) / height);
    fprintf(gp, "set yrange [%.17g:%.17g]\n", info[p].lo, info[p].hi);
    // one x label, under the bottom panel; tick labels on every panel, to read values off
    if (p == npanel - 1) {
      fputs("set xlabel ", gp);
      hy_gp_string(gp, xlabel);
      fputc('\n', gp);
    } else {
      fputs("unset xlabel\n", gp);
    }
    fputs("plot ", gp);
    int first = 1, pos = 0;
    for (int k = 0; k < f->ncurve; k++) {
      if (panel[k] != p) continue;
      const hy_fig_curve* c = f->curve + k;
      pos++;  // the curve's column in its panel's block is pos + 1
      const int color = (c->color >= 0 ? c->color : pos - 1) % NPALETTE;
      // a single row is a point: a line through it would draw nothing
      fprintf(gp, "%s$P%d using 1:%d with %s lt %d%s title ", first ? "" : ", ", p + 1, pos + 1,
              f->scatter || f->npoint == 1 ? "points pt 7"
              : f->points                 ? "linespoints pt 7 ps 0.7"
                                          : "lines",
              color + 1,
              c->dashed ? " dt (7,4)" : "");
      hy_gp_string(gp, label_of(c));
      first = 0;
    }
    // the line styles' meaning, in grey so as not to be taken for a curve, where both are
    if (f->solid_label && info[p].dashed) {
      fputs(", NaN with lines lc rgb '#606060' lw 1.6 dt solid title ", gp);
      hy_gp_string(gp, f->solid_label);
    }
    if (f->dashed_label && info[p].dashed) {
      fputs(", NaN with lines lc rgb '#606060' lw 1.6 dt (7,4) title ", gp);
      hy_gp_string(gp, f->dashed_label);
    }
    fputc('\n', gp);
  }
  fputs("unset multiplot\n", gp);
}

// 1 with the reason in msg when the folder of path does not exist or cannot be written.
static int folder_unwritable(const char* path, char* msg, size_t size) {
  char dir[1024];
  const char* slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, sizeof dir, ".");
  } else {
    snprintf(dir, sizeof dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
  }
  if (access(dir, W_OK | X_OK) == 0) return 0;
  snprintf(msg, size, "cannot write the figure '%s': %s", path, strerror(errno));
  return 1;
}

int hy_fig_render(const hy_fig* f, const char* out_path, const char* data_path, char* msg,
                  size_t size) {
  if (f->npoint < 1 || f->ncurve < 1) {
    snprintf(msg, size, "nothing to draw: %s", f->npoint < 1 ? "no rows" : "no channels");
    return HY_CLI_FAIL;
  }
  int format = -1;
  if (out_path) {
    format = hy_gp_format_of(out_path, msg, size);
    if (format < 0) return HY_CLI_USAGE;
  }
  int* panel = malloc(sizeof *panel * 2 * (size_t)f->ncurve);
  panel_info* info = malloc(sizeof *info * (size_t)f->ncurve);
  if (!panel || !info) {
    free(panel);
    free(info);
    snprintf(msg, size, "out of memory");
    return HY_CLI_FAIL;
  }
  int* first = panel + f->ncurve;
  const int npanel = assign_panels(f, panel, first);

  // size: the default grows with the panels; a given height is shared out among them
  const int top = f->title && f->title[0] ? TITLE_PX : TOP_PX;
  const int fixed = top + BOTTOM_PX + (npanel - 1) * GAP_PX;
  const int width = f->width > 0 ? f->width : DEFAULT_WIDTH;
  int height = f->height;
  if (height <= 0) {
    height = fixed + npanel * PANEL_PX;
    if (height > MAX_DEFAULT_HEIGHT) height = MAX_DEFAULT_HEIGHT;
  }
  const int plot_px = (height - fixed) / npanel;
  if (plot_px < MIN_PANEL_PX) {
    snprintf(msg, size, "a figure of %d panel%s needs a height of at least %d pixels, not %d",
             npanel, npanel == 1 ? "" : "s", fixed + npanel * MIN_PANEL_PX, height);
    free(panel);
    free(info);
    return HY_CLI_USAGE;
  }

  for (int p = 0; p < npanel; p++) {
    const hy_fig_curve* c = f->curve + first[p];
    info[p].scale = view_of(c->unit).scale;
    double lo = INFINITY, hi = -INFINITY;
    int n = 0;
    info[p].dashed = 0;
    for (int k = 0; k < f->ncurve; k++) {
      if (panel[k] != p) continue;
      n += label_of(f->curve + k)[0] != '\0';
      info[p].dashed |= f->curve[k].dashed != 0;
      for (long i = 0; i < f->npoint; i++) {
        if (!drawable(f->curve[k].y[i], f->log_y)) continue;
        const double v = info[p].scale * f->curve[k].y[i];
        lo = fmin(lo, v);
        hi = fmax(hi, v);
      }
    }
    if (!(lo <= hi)) lo = hi = f->log_y ? 1 : 0;  // nothing drawable: an empty panel
    info[p].nentry = n;
    info[p].offset = f->log_y ? 0 : panel_offset(lo, hi);
    // the offset's decimals: those of a tenth of the span, the digits that tell curves apart
    const int digits = info[p].offset != 0 ? (int)fmax(0, 1 - floor(log10(hi - lo))) : 0;
    axis_text(c->unit, c->group, info[p].offset, digits, info[p].ylabel, sizeof info[p].ylabel);
    lo -= info[p].offset;
    hi -= info[p].offset;
    if (f->log_y) {
      padded_log_range(lo, hi, &info[p].lo, &info[p].hi);
    } else {
      padded_range(lo, hi, &info[p].lo, &info[p].hi);
    }
  }

  // gnuplot's own words for a figure it cannot create are a script line and "cannot open
  // file"; a missing or read-only folder is said here, before anything is written
  if (out_path && folder_unwritable(out_path, msg, size)) {
    free(panel);
    free(info);
    return HY_CLI_FAIL;
  }
  // gnuplot first: without it, nothing is written
  FILE* gp = NULL;
  if (out_path) {
    gp = hy_gp_open(msg, size);
    if (!gp) {
      free(panel);
      free(info);
      return HY_CLI_FAIL;
    }
  }
  int rc = HY_CLI_OK;
  if (data_path) rc = write_data(f, data_path, msg, size);
  if (gp && rc != HY_CLI_OK) {
    hy_gp_abort(gp);
  } else if (gp) {
    hy_gp_output(gp, (hy_gp_format)format, out_path, width, height);
    char* keep = malloc((size_t)f->npoint);
    if (keep) {
      // an SVG or PDF is zoomed into: its curves keep four times the detail of its size
      const int zoom = format == HY_GP_PNG ? 1 : 4;
      write_script(gp, f, panel, info, npanel, width, height, plot_px, zoom, keep);
      if (hy_gp_close(gp, out_path, msg, size) != 0) rc = HY_CLI_FAIL;
    } else {
      hy_gp_abort(gp);
      snprintf(msg, size, "out of memory");
      rc = HY_CLI_FAIL;
    }
    free(keep);
  }
  free(panel);
  free(info);
  return rc;
}

void hy_fig_from_results(const hy_results* r, const int* idx, int n, int xcol, hy_fig* f,
                         hy_fig_curve* curves) {
  for (int k = 0; k < n; k++) {
    const int c = idx[k];
    curves[k] = (hy_fig_curve){.y = hy_results_column(r, c),
                               .name = r->name[c],
                               .label = NULL,
                               .unit = r->unit[c],
                               .group = NULL,
                               .color = -1,
                               .dashed = 0};
  }
  *f = (hy_fig){.npoint = r->nrow,
                .x = hy_results_column(r, xcol),
                .x_name = r->name[xcol],
                .x_unit = r->unit[xcol],
                .curve = curves,
                .ncurve = n};
}

int hy_fig_channels(const hy_results* r, const int* idx, int n, int xcol, const char* out_path,
                    const char* title, const char* data_path, char* msg, size_t size) {
  if (n < 1) {
    snprintf(msg, size, "nothing to draw: no channels");
    return HY_CLI_FAIL;
  }
  hy_fig_curve* curves = malloc(sizeof *curves * (size_t)n);
  if (!curves) {
    snprintf(msg, size, "out of memory");
    return HY_CLI_FAIL;
  }
  hy_fig f;
  hy_fig_from_results(r, idx, n, xcol, &f, curves);
  f.title = title;
  const int rc = hy_fig_render(&f, out_path, data_path, msg, size);
  free(curves);
  return rc;
}

int hy_fig_parse_size(const char* s, int* w, int* h) {
  char* end = NULL;
  if (!(s[0] >= '0' && s[0] <= '9')) return -1;
  errno = 0;
  const long lw = strtol(s, &end, 10);
  if (errno || (*end != 'x' && *end != 'X') || !(end[1] >= '0' && end[1] <= '9')) return -1;
  const long lh = strtol(end + 1, &end, 10);
  if (errno || *end != '\0') return -1;
  if (lw < HY_FIG_MIN_WIDTH || lw > HY_FIG_MAX_SIDE || lh < HY_FIG_MIN_HEIGHT ||
      lh > HY_FIG_MAX_SIDE) {
    return -1;
  }
  *w = (int)lw;
  *h = (int)lh;
  return 0;
}

int hy_fig_take_option(const char* cmd, const char* name, const char* val, hy_fig_args* f) {
  if (strcmp(name, "-o") == 0 || strcmp(name, "--out") == 0 || strcmp(name, "--data") == 0) {
    if (!val[0]) return hy_cli_usage_error(cmd, "%s needs a file name", name);
    *(name[2] == 'd' ? &f->data : &f->out) = val;
    return 0;
  }
  if (strcmp(name, "--title") == 0) {
    f->title = val;
    return 0;
  }
  if (strcmp(name, "--size") != 0) return 1;
  if (hy_fig_parse_size(val, &f->width, &f->height)) {
    return hy_cli_usage_error(cmd,
                              "invalid --size '%s': expected WxH in pixels, W %d to %d, H %d to %d",
                              val, HY_FIG_MIN_WIDTH, HY_FIG_MAX_SIDE, HY_FIG_MIN_HEIGHT,
                              HY_FIG_MAX_SIDE);
  }
  return 0;
}
