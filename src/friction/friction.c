// The seal friction laws behind one entry point (a switch on the law) and their steady states
// (docs/friction.md).
#include "friction/friction.h"

#include <math.h>
#include <string.h>

void hy_friction_eval(const hy_friction_def* p, double v, const double* w, double Fc,
                      hy_friction_out* out) {
  memset(out, 0, sizeof *out);
  switch (p->law) {
    case HY_FRICTION_COULOMB:
      hy_friction_coulomb_eval(p, v, Fc, out);
      break;
    case HY_FRICTION_BENGISU_AKAY:
      hy_friction_bengisu_akay_eval(p, v, Fc, out);
      break;
    case HY_FRICTION_BROWN_MCPHEE:
      hy_friction_brown_mcphee_eval(p, v, Fc, out);
      break;
    case HY_FRICTION_LUGRE:
      hy_friction_lugre_eval(p, v, w, Fc, out);
      break;
    case HY_FRICTION_LUGRE_FILM:
      hy_friction_lugre_film_eval(p, v, w, Fc, out);
      break;
    default:
      break;
  }
}

void hy_friction_steady_states(const hy_friction_def* p, double v, double Fc, double* w) {
  const double sgn = v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
  switch (p->law) {
    case HY_FRICTION_LUGRE:
      // Eq. 25 with q_dot = 0: q = sgn(v) g(v) / sigma0
      w[0] = sgn * hy_friction_lugre_g(p, v, 0, Fc) / p->stiffness;
      break;
    case HY_FRICTION_LUGRE_FILM: {
      // Eq. 30 with h_dot = 0: h = h_ss(v); then Eq. 28 at that film
      double dh;
      w[1] = hy_friction_film_steady(p, v, &dh);
      w[0] = sgn * hy_friction_lugre_g(p, v, w[1], Fc) / p->stiffness;
      break;
    }
    default:
      break;
  }
}

double hy_friction_steady_force(const hy_friction_def* p, double v, double Fc) {
  double w[HY_FRICTION_MAX_STATES] = {0, 0};
  hy_friction_steady_states(p, v, Fc, w);
  hy_friction_out o;
  hy_friction_eval(p, v, w, Fc, &o);
  return o.F;
}
