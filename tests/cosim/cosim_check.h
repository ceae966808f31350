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

// seed 001 Eq. 33 with Eq. 34 in hydyn's repelling sign (docs/hydraulics.md), written out
// independently of src/hyd: the damper pushes out of the piston-side end and in from the
// rod-side end, its damping against s_dot. Cylinder c of m at length s, rate sd, pressures pa, pb.
double cosim_eq33(const hy_model* m, int c, double s, double sd, double pa, double pb);

#endif  // HYDYN_TESTS_COSIM_COSIM_CHECK_H_
