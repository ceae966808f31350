// Internal header of src/cli: mechanism snapshots. The bodies, joints, loops and cylinders of a
// model, placed by the joint coordinates a run recorded, drawn at a few times of the run and
// overlaid in one figure (gnuplot, cli_gnuplot.h) with the early frames faded. `hydyn snapshot`
// and `hydyn report` both draw through hy_snapshot_render.
//
// What is drawn, per frame (a body has no shape in a model file, only points, so the figure is
// the kinematic diagram a paper would show):
//   body     a star of lines from the body's joint point (where it hangs on its parent) to the
//            joint points of its children and to its markers, with a dot at each marker; a body
//            whose points all coincide (a slider block) is a square at its joint point
//   joint    an open circle at each revolute joint; a prismatic joint is a thin dotted line
//            from the parent's joint point to the child's (its travel)
//   ground   a hatched support with a pin under every joint to ground and under every ground
//            marker that a revolute or spherical cut joint or a force element is pinned to; a
//            small square at the other ground markers
//   cut      a loop-closing joint: a diamond at marker b, and a dotted line from marker a to
//            marker b where they differ (the line a translational cut slides on)
//   cylinder barrel (thick) from marker a, rod (thinner, another colour) from the piston to
//            marker b, drawn over the barrel; see hy_snapshot_cylinder
//   force    any other force element: a thin dashed line between its markers
// The frames are overlaid earliest first, each in its colours mixed with white (the first at a
// quarter of its colour, the last in full), with the last frame's joints and ground points
// named. The title lists the times shown.
#ifndef HYDYN_SRC_CLI_CLI_MECHANISM_H_
#define HYDYN_SRC_CLI_CLI_MECHANISM_H_

#include <stddef.h>

#include "hydyn/model.h"
#include "io/io.h"

// Most frames one figure overlays: beyond that the faded frames are a grey smear.
enum { HY_SNAPSHOT_MAX_FRAMES = 100 };

// The plane the figure shows.
typedef enum hy_snapshot_plane {
  HY_SNAPSHOT_PLANE_AUTO = 0,  // a planar model's own plane; for a 3-D model the two coordinate
                               // axes along which the drawn mechanism extends most
  HY_SNAPSHOT_PLANE_XY = 1,    // x across, y up
  HY_SNAPSHOT_PLANE_XZ = 2,    // x across, z up
  HY_SNAPSHOT_PLANE_YZ = 3,    // y across, z up
} hy_snapshot_plane;

// "auto", "xy", "xz" or "yz" into *out; -1 for anything else.
int hy_snapshot_plane_parse(const char* s, hy_snapshot_plane* out);

// How to draw. Zero-initialized is the default of every field.
typedef struct hy_snapshot_options {
  double every;         // time between frames (s), > 0: frames at t = 0, every, 2 every, ...
                        // up to the last row; 0 = a tenth of the recorded time span
  const double* times;  // Nullable: the frame times (s), >= 0, ntimes of them, any order;
                        // when given, `every` is not used
  int ntimes;
  hy_snapshot_plane plane;
  const char* data_path;  // Nullable: also write the segments drawn as CSV (see below)
  const char* title;      // Nullable: the title's first part; NULL = the model's name
  int width, height;      // figure size (pixels); 0 = chosen from the mechanism's extent
} hy_snapshot_options;

// Draws the snapshots of model m from the results r of a run of m into out_path (.png, .svg or
// .pdf by its extension; NULL: no figure, only the data file). Each frame time t takes the
// first recorded row at or after t (a time before the first row takes the first); two times
// that fall on the same row give one frame. The joint coordinates come from r's z:<joint>
// columns; velocities are taken as zero (they do not move anything drawn).
//
// The data file (o->data_path) is CSV with the header
//   time[s],kind,name,x1[m],y1[m],x2[m],y2[m]
// one line per element drawn in each frame, in the figure's coordinates (x across, y up: the
// axes its labels name), %.17g: time is the row's time; kind and name one of
//   body           body name; from its joint point (x1, y1) to one of its points (x2, y2)
//   marker         marker name (a marker on a body)
//   block          body name (a body whose points coincide)
//   joint          joint name (revolute)
//   slide          joint name (prismatic): from the parent's joint point to the child's
//   ground         joint or marker name: a support (see above)
//   ground-marker  marker name: another marker on ground
//   cut            cut joint name: from marker a to marker b
//   barrel, rod    cylinder name: barrel from marker a, rod from the piston to marker b
//   force          force element name: from marker a to marker b
// A point has x2 = x1, y2 = y1. gnuplot is started before the data file is written, so that a
// machine without gnuplot gets its message and no files.
//
// On success *done (nullable) says what was drawn. Returns 0 (HY_CLI_OK), else an exit status
// with the reason in msg: HY_CLI_USAGE when the
// options do not fit these results (a frame time after the last row, more than
// HY_SNAPSHOT_MAX_FRAMES frames, bad extension of out_path), HY_CLI_FAIL when r lacks a
// z:<joint> column of m (the message names the missing channels: results of another model),
// the kinematics fail at a recorded state, gnuplot is missing or fails, or a file cannot be
// written.
// What a drawing showed, for a caller's summary line.
typedef struct hy_snapshot_summary {
  int nframe;      // frames drawn
  double t_first;  // time of the first frame (s)
  double t_last;   // time of the last frame (s)
  char axes[8];    // the figure's axes across and up: "x,y", "x,z", "y,z" or "e1,e2"
} hy_snapshot_summary;

int hy_snapshot_render(const hy_model* m, const hy_results* r, const hy_snapshot_options* o,
                       const char* out_path, hy_snapshot_summary* done, char* msg, size_t size);

// hy_snapshot_render with the defaults but for `every` (<= 0: a tenth of the recorded span) and
// the data file (nullable): the one call `hydyn report` needs.
int hy_snapshot_draw(const hy_model* m, const hy_results* r, double every, const char* out_path,
                     const char* data_path, char* msg, size_t size);

// The two segments a cylinder is drawn with, as distances from marker a along the line a -> b
// of length len (m): the barrel covers [0, *barrel], the rod [*piston, len]. A real cylinder's
// barrel holds the stroke plus a base; its rod is as long as the dead length less that base, so
// the rod keeps its length while the piston moves: base = max(0, dead - stroke) / 2 (half of
// what the dead length has beyond the stroke, the other half the rod's stub out of a closed
// cylinder), barrel = base + stroke, piston = base + (len - dead) = base + chamber a's length.
// The barrel is clamped to len (it never passes marker b) and the piston to [0, 0.9 len], so
// that a rod is drawn even for a dead length shorter than the stroke or a piston run past the
// stroke's ends into the end dampers.
void hy_snapshot_cylinder(double len, double dead, double stroke, double* barrel, double* piston);

#endif  // HYDYN_SRC_CLI_CLI_MECHANISM_H_
