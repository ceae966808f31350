// Internal header of src/sim: the private workspace behind hy_data.work_.
#ifndef HYDYN_SRC_SIM_SIM_H_
#define HYDYN_SRC_SIM_SIM_H_

#include "core/core.h"
#include "form/form.h"
#include "hyd/hyd.h"
#include "hydyn/sim.h"
#include "integ/integ.h"
#include "mech/mech.h"

typedef struct hy_work {
  hy_mech_work mech;
  hy_hyd_work hyd;
  hy_form form;
  hy_integ integ;
  hy_arena arena;       // scratch of the steps, in frames (sized at hy_data_make)
  double* checkpoint;   // the whole state at the start of a step taken in pieces
                        //                                     (hy_state_size HY_STATE_FULL)
  unsigned char* mem;   // the one allocation behind the arrays
} hy_work;

// One step of size h (hy_step with h = m->opt.dt; hy_run's last step may be shorter).
hy_status hy_sim_step(const hy_model* m, hy_data* d, double h);
// Doubles of the whole state (HY_STATE_FULL) of a data of m stepped by ops.
int hy_state_size_of(const hy_model* m, const hy_form_ops* ops);
// The data's form, bound to m and d for a call.
hy_form* hy_sim_form(const hy_model* m, hy_data* d);

#endif  // HYDYN_SRC_SIM_SIM_H_
