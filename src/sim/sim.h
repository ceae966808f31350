// Internal header of src/sim: the private workspace behind hy_data.work_.
#ifndef HYDYN_SRC_SIM_SIM_H_
#define HYDYN_SRC_SIM_SIM_H_

#include "form/form.h"
#include "hyd/hyd.h"
#include "hydyn/sim.h"
#include "integ/integ.h"
#include "mech/mech.h"

typedef struct hy_work {
  hy_mech_work mech;
  hy_form_work form;
  hy_newton_work newton;
  double* x;        // explicit integrator state [z; zd]                  (2 nz)
  double* x0;       // state at the start of the step                    (2 nz)
  double* xdot;     // its derivative at the current state                (2 nz)
  double* integ;    // explicit integrator workspace
  double power;     // power of the applied loads and force elements at the current state (W)
  double power_hyd, power_visc, power_damp;  // the cylinders' parts of it (W), at the current state
  const hy_model* model;  // the model the rhs evaluates (set by hy_step)
  hy_data* data;
  double* buffer;   // the one allocation of doubles behind the arrays
  int* ibuffer;     // the one allocation of ints
} hy_work;

#endif  // HYDYN_SRC_SIM_SIM_H_
