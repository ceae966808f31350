// The directional valves' spools (docs/hydraulics.md, "Spool dynamics"): the shaping of the
// command into the reference U_ref, the spools' rates (seed 000 Eq. 27 for the first order; the
// second order and the spool without dynamics are not from the seeds) and the closed-form
// trapezoidal step the integrators take them by.
#include <math.h>

#include "hyd/hyd_impl.h"

// omega_n (rad/s) of a second-order spool, from its natural frequency in Hz.
static double omega_n(const hy_model* m, int v) { return 2.0 * HY_PI * m->vlv_fn[v]; }

double hy_hyd_spool_limit(const hy_model* m, int v) {
  // a normalized reference never goes beyond the full opening
  const double lim = m->vlv_sat[v];
  return m->vlv_units[v] == HY_VALVE_NORMALIZED && !(lim <= 1.0) ? 1.0 : lim;
}

double hy_hyd_spool_shape(const hy_model* m, int v, double c) {
  // dead zone of half-width dz: 0 inside, shifted towards 0 by dz outside (continuous)
  const double dz = m->vlv_dead[v];
  if (dz > 0) c = fabs(c) <= dz ? 0.0 : c - copysign(dz, c);
  const double lim = hy_hyd_spool_limit(m, v);
  return fabs(c) > lim ? copysign(lim, c) : c;
}

double hy_hyd_spool_reference(const hy_model* m, const hy_data* d, int v, double t) {
  double c = hy_hyd_spool_command(m, v, t);
  // no offset leaves the command's bits as they are (-0 included)
  if (d->vlv_u0[v] != 0) c += d->vlv_u0[v];
  return hy_hyd_spool_shape(m, v, c);
}

void hy_hyd_spool_step(const hy_model* m, hy_data* d, int v, double u0, double w0, double r0,
                       double r1, double h) {
  switch ((hy_spool_dynamics)m->vlv_spool[v]) {
    case HY_SPOOL_NONE:
      d->U[v] = r1;
      d->Ud[v] = 0;
      return;
    case HY_SPOOL_SECOND_ORDER: {
      // x = [U; W], x_dot = A x + b r with A = [0 1; -k -c], b = [0; k], k = omega_n^2,
      // c = 2 zeta omega_n. The trapezoidal rule (I - a A) x1 = (I + a A) x0 + a b (r0 + r1),
      // a = h/2, is a 2 x 2 system with det(I - a A) = 1 + a c + a^2 k > 0, solved by its
      // inverse [1 + a c, a; -a k, 1] / det (docs/hydraulics.md, "Spool dynamics")
      const double wn = omega_n(m, v), k = wn * wn, c = 2.0 * m->vlv_zeta[v] * wn;
      const double a = 0.5 * h, det = 1.0 + a * c + a * a * k;
      const double g1 = u0 + a * w0;
      const double g2 = w0 + a * (k * (r0 + r1 - u0) - c * w0);
      const double u1 = ((1.0 + a * c) * g1 + a * g2) / det;
      const double w1 = (g2 - a * k * g1) / det;
      const int iw = m->vlv_vadr[v];
      d->U[v] = u1;
      d->U[iw] = w1;
      d->Ud[v] = w1;
      d->Ud[iw] = k * (r1 - u1) - c * w1;
      return;
    }
    default:
      // seed 000 Eq. 27 under the trapezoidal rule, and its rate at the end of the step
      hy_hyd_spool_lag(m, d, v, u0, r0, r1, h);
      return;
  }
}

int hy_hyd_spool_seed_only(const hy_model* m, const hy_data* d) {
  for (int v = 0; v < m->sizes.nvlv; v++) {
    // hy_hyd_spool_reference adds no offset of 0, and hy_hyd_spool_shape leaves c alone for
    // dz <= 0 and an infinite limit
    if (m->vlv_spool[v] != HY_SPOOL_FIRST_ORDER || d->vlv_u0[v] != 0 || m->vlv_dead[v] > 0 ||
        hy_hyd_spool_limit(m, v) != INFINITY) {
      return 0;
    }
  }
  return 1;
}

void hy_hyd_spool_rates(const hy_model* m, hy_data* d) {
  for (int i = 0; i < m->sizes.nvlv; i++) {
    const double r = hy_hyd_spool_reference(m, d, i, d->time);
    switch ((hy_spool_dynamics)m->vlv_spool[i]) {
      case HY_SPOOL_NONE:
        d->U[i] = r;
        d->Ud[i] = 0;
        break;
      case HY_SPOOL_SECOND_ORDER: {
        // U_ddot = omega_n^2 (U_ref - U) - 2 zeta omega_n U_dot
        const double wn = omega_n(m, i);
        const int iw = m->vlv_vadr[i];
        d->Ud[i] = d->U[iw];
        d->Ud[iw] = wn * wn * (r - d->U[i]) - 2.0 * m->vlv_zeta[i] * wn * d->U[iw];
        break;
      }
      default:
        // seed 000 Eq. 27: U_dot = (U_ref - U)/tau
        d->Ud[i] = (r - d->U[i]) / m->vlv_tau[i];
        break;
    }
  }
}

void hy_hyd_spool_initial(const hy_model* m, hy_data* d) {
  for (int i = 0; i < m->sizes.nvlv; i++) {
    d->vlv_u0[i] = 0;
    const int follows = m->vlv_spool[i] == HY_SPOOL_NONE || m->vlv_init[i] == HY_VALVE_INIT_REST;
    d->U[i] = follows ? hy_hyd_spool_reference(m, d, i, d->time) : m->vlv_U0[i];
    if (m->vlv_vadr[i] >= 0) d->U[m->vlv_vadr[i]] = 0;
  }
  hy_hyd_spool_rates(m, d);
}
