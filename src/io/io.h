// Internal header of src/io: result recorders (CSV). The YAML loader and the built-in model table
// have their own entry points (include/hydyn/model.h, io_builtin.h).
#ifndef HYDYN_SRC_IO_IO_H_
#define HYDYN_SRC_IO_IO_H_

#include <stdio.h>

#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "hydyn/types.h"

//----- CSV recorder --------------------------------------------------------------------------

// A CSV file receiving one row per recorded step. Columns (units in the header, SI):
//   time[s], z:<joint>[rad|m] per joint, zd:<joint>[rad/s|m/s] per joint,
//   E_kin[J], E_pot[J], W_ext[J], E_total[J]      (E_total = hy_energy_total),
//   violation[m]            d->violation, only for a model with cut joints,
//   iter                    d->stats.niter_last, only with the trapezoidal integrator,
//   F:<force>[N] per force element, then len:<force>[m] per force element (frc_force, frc_len),
//   p:<volume>[Pa] per hydraulic volume (d->p), U:<valve>[V] per directional valve (d->U),
//   F_hyd:<cylinder>[N], then len_a:<cylinder>[m], then len_b:<cylinder>[m], one column per
//   cylinder each (cyl_F_hyd, cyl_len_a, cyl_len_b),
//   W_act[J], D_visc[J], W_damp[J]   only with cylinders: work_hyd - diss_visc + work_damp,
//                                    diss_visc, work_damp
// The columns depend on the model's sizes and on the data's integrator.
// Joints come in model order; revolute joints are in rad, prismatic ones in m. Values are
// printed with %.17g, so reading them back gives the doubles bit for bit. A field holding a
// comma, quote or line break is quoted (RFC 4180). Rows are flushed every HY_CSV_FLUSH_ROWS
// rows and at close, so a run that fails keeps the rows written before the failure.
typedef struct hy_csv hy_csv;

enum { HY_CSV_FLUSH_ROWS = 64 };

// Opens path for writing ("-" = standard output, which is flushed but never closed), writes the
// header for model m run by data d and returns the recorder in *out. Returns HY_ERR_ARG for NULL arguments,
// HY_ERR_IO when the file cannot be opened or written, HY_ERR_NOMEM. Nullable: err.
hy_status hy_csv_open(const char* path, const hy_model* m, const hy_data* d, hy_csv** out,
                      hy_error* err);

// Appends the row of the state in d (d->time, d->z, d->zd, energies, then the closed-loop,
// force and hydraulic columns). m must be the model the recorder was opened with. Returns
// HY_ERR_NAN, writing nothing, when a value of the row is not finite (no file ever holds one),
// HY_ERR_IO when writing fails. Nullable: err.
hy_status hy_csv_write(hy_csv* c, const hy_model* m, const hy_data* d, hy_error* err);

// Flushes and closes the file and frees the recorder (NULL is a no-op). Returns HY_ERR_IO when
// an earlier write, the flush or the close failed.
hy_status hy_csv_close(hy_csv* c);

//----- friction parameters ---------------------------------------------------------------------

// A seal friction law and its parameters from the text of a YAML mapping, with the keys of a
// cylinder's `friction:` (docs/model-format.md), e.g. "{law: lugre, coulomb: 210, ...}": what
// `hydyn friction` reads from its command line. Their ranges are hy_model_check's. Returns
// HY_ERR_PARSE or HY_ERR_MODEL with the reason in err (nullable).
hy_status hy_io_friction_text(const char* text, hy_friction_def* out, hy_error* err);

// The parameters law p->law reads, one line each: "  key  value unit  what it is".
void hy_io_friction_write(FILE* fp, const hy_friction_def* p);

#endif  // HYDYN_SRC_IO_IO_H_
