// Coulomb and viscous friction with a tanh regularization, the simple baseline of
// docs/friction.md: F = F_c tanh(v / v_t) + sigma2 v.
#include <math.h>

#include "friction/friction.h"

void hy_friction_coulomb_eval(const hy_friction_def* p, double v, double Fc, hy_friction_out* o) {
  const double th = tanh(v / p->tanh_velocity);
  o->F = Fc * th + p->viscous * v;
  o->dF_dv = Fc * (1 - th * th) / p->tanh_velocity + p->viscous;
  o->dF_dFc = th;
}
