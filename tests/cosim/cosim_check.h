// Checks every co-simulation subsystem must pass (tests/cosim).
#ifndef HYDYN_TESTS_COSIM_COSIM_CHECK_H_
#define HYDYN_TESTS_COSIM_COSIM_CHECK_H_

#include "cosim/cosim.h"

// Sets the inputs of macro step k (of size H) of subsystem s from the test's ctx.
typedef void (*cosim_inputs_fn)(hy_cosim_sub* s, int k, double H, const void* ctx);

// Five macro steps from step k0, whose inputs are set already; the later ones' by inputs. The
// outputs after each go to out (5 nout).
void cosim_five_steps(hy_cosim_sub* s, int k0, double H, const void* ctx, cosim_inputs_fn inputs,
                      double* out);

// s stands at macro step k0 with its inputs set: saves it, steps five macro steps, restores and
// steps them again (without a heap call), then restores the saved state into twin, a subsystem
// of the same model and kind, and steps it: outputs and states must agree bit for bit.
void cosim_check_save_restore(hy_cosim_sub* s, hy_cosim_sub* twin, int k0, double H,
                              const void* ctx, cosim_inputs_fn inputs);

#endif  // HYDYN_TESTS_COSIM_COSIM_CHECK_H_
