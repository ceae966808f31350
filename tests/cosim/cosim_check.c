// Checks every co-simulation subsystem must pass: bit-exact save and restore, no heap calls.
#include "cosim_check.h"

#include <check.h>
#include <stdlib.h>

#include "fixture.h"

enum { STEPS = 5, OUT_MAX = 64 };

void cosim_five_steps(hy_cosim_sub* s, int k0, double H, const void* ctx, cosim_inputs_fn inputs,
                      double* out) {
  for (int k = k0; k < k0 + STEPS; k++) {
    if (k > k0) inputs(s, k, H, ctx);
    const hy_status st = s->ops->step_to(s, (k + 1) * H);
    ck_assert_msg(st == HY_OK, "step_to %.9g s: %s", (k + 1) * H, s->err.msg);
    s->ops->outputs(s, out + (k - k0) * s->nout);
  }
}

void cosim_check_save_restore(hy_cosim_sub* s, hy_cosim_sub* twin, int k0, double H,
                              const void* ctx, cosim_inputs_fn inputs) {
  ck_assert_int_le(s->nout, OUT_MAX);
  double out1[STEPS * OUT_MAX], out2[STEPS * OUT_MAX], out3[STEPS * OUT_MAX];
  const int n = s->ops->state_size(s);
  double* saved = malloc(sizeof(double) * (size_t)n);
  double* end1 = malloc(sizeof(double) * (size_t)n);
  double* end2 = malloc(sizeof(double) * (size_t)n);
  s->ops->save(s, saved);
  cosim_five_steps(s, k0, H, ctx, inputs, out1);
  s->ops->save(s, end1);
  ck_assert_int_eq(s->ops->restore(s, saved), HY_OK);
  hy_test_count_allocs_begin();
  cosim_five_steps(s, k0, H, ctx, inputs, out2);
  const long allocs = hy_test_count_allocs_end();
  ck_assert_msg(allocs == 0, "%ld heap calls in %d macro steps", allocs, STEPS);
  s->ops->save(s, end2);
  hy_test_same_bits(out1, out2, STEPS * s->nout, "outputs after restore");
  hy_test_same_bits(end1, end2, n, "state after restore");
  // into another subsystem of the same model
  ck_assert_int_eq(twin->ops->restore(twin, saved), HY_OK);
  cosim_five_steps(twin, k0, H, ctx, inputs, out3);
  twin->ops->save(twin, end2);
  hy_test_same_bits(out1, out3, STEPS * s->nout, "outputs in the twin");
  hy_test_same_bits(end1, end2, n, "state in the twin");
  free(saved);
  free(end1);
  free(end2);
}

double cosim_eq33(const hy_model* m, int c, double s, double sd, double pa, double pb) {
  const double len_a = s - m->cyl_dead[c], len_b = m->cyl_stroke[c] - len_a;
  const double ld = m->cyl_ld[c], kd = m->cyl_kd[c], cd = m->cyl_cd[c];
  double damp = 0;
  if (len_a < ld) {
    damp = kd * (ld - len_a) - cd * sd;
  } else if (len_b < ld) {
    damp = -kd * (ld - len_b) - cd * sd;
  }
  return pa * m->cyl_area_a[c] - pb * m->cyl_area_b[c] - m->cyl_visc[c] * sd + damp;
}
