// The hydraulic tests' rig (hyd_rig.h).
#include "hyd_rig.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "fixture.h"

void rig_make(rig* r, hy_model* m) {
  r->m = m;
  r->d = hy_test_make(m);
  r->wbuf = calloc(hy_hyd_work_size(m) + 1, sizeof(double));
  ck_assert_ptr_nonnull(r->wbuf);
  hy_hyd_work_bind(m, &r->hw, r->wbuf);
}

void rig_free(rig* r) {
  free(r->wbuf);
  hy_data_free(r->d);
  hy_model_free(r->m);
}

int rig_check_dpd_dp(rig* r, double h, const char* label, double* worst) {
  const hy_model* m = r->m;
  hy_data* d = r->d;
  const int nv = m->sizes.nvol;
  ck_assert_int_le(nv, 8);
  double a[64], pd_p[8], pd_m[8];
  hy_hyd_evaluate(m, d, &r->hw);
  double scale = 0;
  int nonzero = 0;
  for (int i = 0; i < nv * nv; i++) {
    a[i] = r->hw.dpd_dp[i];
    scale = fmax(scale, fabs(a[i]));
    nonzero += a[i] != 0;
  }
  for (int w = 0; w < nv; w++) {
    const double p0 = d->p[w];
    d->p[w] = p0 + h;
    hy_hyd_evaluate(m, d, NULL);
    for (int v = 0; v < nv; v++) pd_p[v] = d->pd[v];
    d->p[w] = p0 - h;
    hy_hyd_evaluate(m, d, NULL);
    for (int v = 0; v < nv; v++) pd_m[v] = d->pd[v];
    d->p[w] = p0;
    for (int v = 0; v < nv; v++) {
      const double fd = (pd_p[v] - pd_m[v]) / (2 * h);
      const double e = hy_test_relerr(a[v * nv + w], fd, 1e-9 * scale);
      *worst = fmax(*worst, e);
      ck_assert_msg(e <= 1e-6, "%s: dpd_dp[%d][%d] analytic %.12g, central difference %.12g", label,
                    v, w, a[v * nv + w], fd);
    }
  }
  return nonzero;
}
