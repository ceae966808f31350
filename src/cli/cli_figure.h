// Internal header of src/cli: figures of results channels for `hydyn plot`, `compare` and the
// commands that draw channels (snapshot, report). Curves are grouped into panels by unit, the
// panels stacked over one shared x axis, and the whole figure is drawn by gnuplot
// (cli_gnuplot.h) from data sent inline.
//
// Figure conventions, the same for every command:
// - One panel per unit (and per group, see hy_fig_curve.group), in the order of the first curve
//   of each. The y label names the quantity and the unit shown: "pressure (MPa)".
// - Values are drawn in SI units except two that read badly in SI: Pa is drawn as MPa (also
//   Pa/s as MPa/s) and m^3/s as L/min; the axis label says so. A panel whose values vary by
//   less than 1e-4 of their size is drawn less an offset that its y label gives
//   ("force - 11029.38086 (N)"). A data file (data_path) always holds the SI values of the
//   results file, bit for bit.
// - Colours follow a fixed palette, by the curve's position in its panel unless given; dashed
//   curves keep their colour.
// - The legend is outside the plot area, to the right, so it never covers a curve.
// - Against time, a long run is drawn from the rows that matter at the figure's resolution: in
//   each pixel column (a quarter pixel for SVG and PDF) the first and last row and each curve's
//   extremes; the picture is the same, gnuplot gets thousands of rows instead of millions. The
//   data file has every row.
#ifndef HYDYN_SRC_CLI_CLI_FIGURE_H_
#define HYDYN_SRC_CLI_CLI_FIGURE_H_

#include <stddef.h>

#include "io/io.h"

// How many panels a figure of a default selection shows (hy_fig_cap_panels): more would leave
// each too flat to read at a page's height.
enum { HY_FIG_MAX_PANELS = 6 };

// Bounds of a figure's --size (pixels): below them labels overlap, above them gnuplot's cairo
// canvas gets slow and the files large for no gain.
enum { HY_FIG_MIN_WIDTH = 300, HY_FIG_MIN_HEIGHT = 150, HY_FIG_MAX_SIDE = 20000 };
// A --size value "WxH", whole numbers within those bounds, into *w, *h; -1 when it is not.
int hy_fig_parse_size(const char* s, int* w, int* h);

// The options of a command that draws channels (plot, compare) for its figure and data file.
typedef struct hy_fig_args {
  const char* out;    // -o, --out FIG: NULL = the command's default
  const char* data;   // --data FILE: NULL = none
  const char* title;  // --title TEXT: NULL = the command's default, "" = none
  int width, height;  // --size WxH: 0 = the default size
} hy_fig_args;
// Takes option `name` (as written, "-o" or "--out") with its value into *f when it is one of
// those: 0 taken, 1 not one of them, HY_CLI_USAGE after saying on standard error what is wrong
// with the value ("hydyn CMD: invalid --size ...").
int hy_fig_take_option(const char* cmd, const char* name, const char* val, hy_fig_args* f);

// One curve of a figure.
typedef struct hy_fig_curve {
  const double* y;    // npoint values (hy_fig.npoint), in the SI unit `unit`
  const char* name;   // the data file's column name; its header is "name[unit]"
  const char* label;  // legend entry, drawn as is (no markup); NULL: name; "": none
  const char* unit;   // SI unit, "" for counts and ratios: curves of a unit share a panel
  const char* group;  // NULL or "": the unit's panel; else a separate panel of that unit whose
                      // y label starts with group ("A-B: angle (rad)")
  int color;          // index into the palette (curves with the same index look alike); < 0:
                      // the curve's position among the curves of its panel
  int dashed;         // 1: dashed line (compare's B), 0: solid
} hy_fig_curve;

// A figure: curves over one x axis.
typedef struct hy_fig {
  long npoint;               // points per curve, >= 1
  const double* x;           // npoint values, in the SI unit x_unit
  const char* x_name;        // "time" or a channel name: the x label and the data's first column
  const char* x_unit;        // SI unit of x, "" for none
  const hy_fig_curve* curve;
  int ncurve;                // >= 1
  const char* title;         // above the top panel; NULL or "": none
  const char* solid_label;   // NULL, or a legend entry for solid lines ("A: run1.csv") and
  const char* dashed_label;  // one for dashed lines ("B: run2.csv"), in each panel with a
                             // dashed curve
  int width, height;         // figure size in pixels; 0: 1000 wide, 230 per panel plus the
                             // axes, at most 1800 high
  int log_x, log_y;          // 1: a logarithmic axis, on which values <= 0 are not drawn (the
                             // residual energy of a co-simulation sweep against H); a value
                             // that is not finite is never drawn, on any axis
  int points;                // 1: a mark at every point (curves of a few points, one per run)
  int scatter;               // 1: marks only, no lines (eigenvalues in the complex plane)
} hy_fig;

// Writes the data of f to data_path (NULL: none) and draws f into out_path (NULL: no figure),
// whose extension gives the format (.png, .svg, .pdf). The data file is CSV: a header
// "x_name[x_unit],name[unit],..." (bare names when the unit is "") and one row per point, %.17g,
// SI values. gnuplot is started before anything is written, so a machine without gnuplot gets
// its message and no files. Returns an exit status of the command (cli.h): HY_CLI_OK;
// HY_CLI_USAGE for a figure extension that is none of the three or a height too small for its
// panels; HY_CLI_FAIL when gnuplot is missing or fails or a file cannot be written. On failure
// msg holds the reason (no "hydyn CMD:" prefix).
int hy_fig_render(const hy_fig* f, const char* out_path, const char* data_path, char* msg,
                  size_t size);

// Fills f and curves[0..n) with the channels idx[0..n) of r against column xcol (0 is time):
// the curves of hy_fig_channels, for a caller that sets the size, title or styles before
// hy_fig_render. f and curves point into r: use them while r lives.
void hy_fig_from_results(const hy_results* r, const int* idx, int n, int xcol, hy_fig* f,
                         hy_fig_curve* curves);

// Draws the channels idx[0..n) (columns of r, n >= 1) against column xcol into out_path, in
// the default size, with a title (nullable); writes what is drawn to data_path (nullable) as
// hy_fig_render does. Returns an exit status with the reason in msg, as hy_fig_render.
int hy_fig_channels(const hy_results* r, const int* idx, int n, int xcol, const char* out_path,
                    const char* title, const char* data_path, char* msg, size_t size);

// Keeps the channels idx[0..*n) of the first max_panels units (in their order) and drops the
// others, compacting idx and *n. Returns how many channels were dropped; when some were, left
// holds them as "U:dcv [V], step_wall [s]" (truncated to size) for the caller's message.
int hy_fig_cap_panels(const hy_results* r, int* idx, int* n, int max_panels, char* left,
                      size_t size);

// 1 for the solver's per-step figures (iter, iter_total, residual, step_wall) and the
// loop-closure violation: wall-clock, iteration and round-off noise rather than results, left
// out of the default selections of plot and compare.
int hy_fig_solver_channel(const char* name);

// The y label of a panel of `unit` ("pressure (MPa)", "angle (rad)", "count, ratio (-)") into
// buf; the scale from SI to the unit shown is returned (1e-6 for Pa).
double hy_fig_axis_label(const char* unit, char* buf, size_t size);

#endif  // HYDYN_SRC_CLI_CLI_FIGURE_H_
