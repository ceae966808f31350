// The command offsets of the valves that start the circuit at rest (initial: rest,
// docs/hydraulics.md "Initial state"; not from the seeds). At t = 0 the spool of such a valve
// stands at its reference U = sat(dz(c(0) + u0)), and u0 is chosen so that the circuit has no
// pressure rate: the valve passes exactly what the circuit takes at rest (a leak, say). At rest
// flow may pass the throttles, so their rule of hy_hyd_initial_state (equal pressures at both
// ends) gives way to the network's equations: the unknowns are the rest valves' spool positions
// and the pressures of the volumes without p0, less the piston sides of equilibrium cylinders
// (which follow from their rod sides); the equations are the net inflows of every volume without
// p0 and of the rest valves' work-port volumes, from the network's evaluation
// (hy_hyd_evaluate). They are solved by Gauss-Newton (Newton when square) with a
// central-difference Jacobian and a backtracking line search; u0 then follows from each position
// by inverting the shaping.
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "hyd/hyd_impl.h"

// The problem is solved for a few valves at a time; its arrays live on the stack, so that a
// reset of the data never allocates.
#define REST_MAX_UNKNOWNS 16
#define REST_MAX_EQUATIONS (3 * REST_MAX_UNKNOWNS)
#define REST_MAX_ITER 60
// Converged when no unknown moves by more than this share of its magnitude, or of FLOOR times
// its typical magnitude (1 for a spool position, TYPICAL_P for a pressure) near 0 (a slight
// opening is a few thousandths); the differences of the Jacobian move them by DIFF_STEP of the
// larger of the magnitude and the typical one.
#define REST_STEP_TOL 1e-13
#define FLOOR 1e-6
#define TYPICAL_P 1e5
#define DIFF_STEP 1e-6
// At rest when every net inflow is below this share of the largest flow through an element.
#define REST_FLOW_TOL 1e-9

typedef struct rest {
  int nr, nf, n, ne;             // rest valves, free volumes, unknowns nr + nf, equations
  int valve[REST_MAX_UNKNOWNS];  // the rest valves
  int vol[REST_MAX_UNKNOWNS];    // the free volumes
  int eq[REST_MAX_EQUATIONS];    // the volume of each equation
  double X[REST_MAX_EQUATIONS];  // its compliance V / B_e at the start: the rows in m^3/s
} rest;

static const char* valve_name(const hy_model* m, int v) {
  return m->vlv_name + (size_t)v * HY_NAME_MAX;
}

static const char* volume_name(const hy_model* m, int v) {
  return m->vol_name + (size_t)v * HY_NAME_MAX;
}

// The unknowns set into d: the positions of the rest valves' spools, the free volumes' pressures,
// and the equilibrium cylinders' piston sides from their rod sides.
static void set_unknowns(const hy_model* m, hy_data* d, const rest* r, const double* x) {
  for (int i = 0; i < r->nr; i++) d->U[r->valve[i]] = x[i];
  for (int v = 0; v < m->sizes.nvol; v++) d->p[v] = m->vol_p0[v];
  for (int j = 0; j < r->nf; j++) d->p[r->vol[j]] = x[r->nr + j];
  hy_hyd_initial_rules(m, d, 0);
}

// The net inflows F (m^3/s) at x; returns their sum of squares.
static double residual(const hy_model* m, hy_data* d, const rest* r, const double* x, double* F) {
  set_unknowns(m, d, r, x);
  hy_hyd_evaluate(m, d, NULL);
  double s = 0;
  for (int e = 0; e < r->ne; e++) {
    F[e] = r->X[e] * d->pd[r->eq[e]];
    s += F[e] * F[e];
  }
  return s;
}

static double typical(const rest* r, int j) { return j < r->nr ? 1.0 : TYPICAL_P; }

// Whether valve v has volume k at a work port.
static int work_port(const hy_model* m, int v, int k) {
  return m->vlv_node[4 * v + 2] == k || m->vlv_node[4 * v + 3] == k;
}

// The first guess of a free volume's pressure: the tank port's of a rest valve it is a work port
// of (a closed chamber at rest often is at tank pressure), else the first rest valve's.
static double guess(const hy_model* m, const hy_data* d, const rest* r, int k) {
  int v = r->valve[0];
  for (int i = 0; i < r->nr; i++) {
    if (work_port(m, r->valve[i], k)) {
      v = r->valve[i];
      break;
    }
  }
  const double p = hy_hyd_node_pressure(m, d, m->vlv_node[4 * v + 1]);
  return isnan(p) ? TYPICAL_P : p;
}

static void add_equation(rest* r, int k) {
  for (int e = 0; e < r->ne; e++) {
    if (r->eq[e] == k) return;
  }
  if (r->ne < REST_MAX_EQUATIONS) r->eq[r->ne] = k;
  r->ne++;  // counted beyond the bound too, for the message
}

// The rest valves, the free volumes and the equations. The rod side of an equilibrium cylinder
// whose piston side is unknown is chosen first: the piston side then follows, and holds the load.
static hy_status setup(const hy_model* m, hy_data* d, rest* r) {
  memset(r, 0, sizeof *r);
  for (int v = 0; v < m->sizes.nvlv; v++) {
    if (m->vlv_init[v] != HY_VALVE_INIT_REST) continue;
    if (r->nr == REST_MAX_UNKNOWNS) {
      const hy_srcpos pos = m->vlv_src[v];
      return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                              "valve '%s': at most %d valves may start with initial: rest",
                              valve_name(m, v), REST_MAX_UNKNOWNS);
    }
    r->valve[r->nr++] = v;
  }
  if (r->nr == 0) return HY_OK;
  const hy_srcpos pos = m->vlv_src[r->valve[0]];
  for (int v = 0; v < m->sizes.nvol; v++) d->p[v] = m->vol_p0[v];
  hy_hyd_initial_rules(m, d, 0);
  for (;;) {
    int pick = -1;
    for (int c = 0; c < m->sizes.ncyl && pick < 0; c++) {
      const int va = m->cyl_vol_a[c], vb = m->cyl_vol_b[c];
      if (m->cyl_init[c] == HY_CYL_INIT_EQUILIBRIUM && isnan(d->p[va]) && isnan(d->p[vb])) {
        pick = vb;
      }
    }
    for (int v = 0; v < m->sizes.nvol && pick < 0; v++) {
      if (isnan(d->p[v])) pick = v;
    }
    if (pick < 0) break;
    if (r->nr + r->nf == REST_MAX_UNKNOWNS) {
      return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                              "valve '%s': initial: rest leaves more than %d unknowns (valves' "
                              "offsets and pressures): give volumes p0",
                              valve_name(m, r->valve[0]), REST_MAX_UNKNOWNS);
    }
    r->vol[r->nf++] = pick;
    d->p[pick] = guess(m, d, r, pick);
    hy_hyd_initial_rules(m, d, 0);
  }
  r->n = r->nr + r->nf;
  for (int i = 0; i < r->nr; i++) {
    for (int k = 2; k < 4; k++) {
      const int node = m->vlv_node[4 * r->valve[i] + k];
      if (node < m->sizes.nvol) add_equation(r, node);
    }
  }
  for (int v = 0; v < m->sizes.nvol; v++) {
    if (isnan(m->vol_p0[v])) add_equation(r, v);
  }
  if (r->ne > REST_MAX_EQUATIONS) {
    return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                            "valve '%s': initial: rest: more than %d pressure rates to make "
                            "vanish (the volumes without p0 and the valves' work ports): give "
                            "volumes p0",
                            valve_name(m, r->valve[0]), REST_MAX_EQUATIONS);
  }
  if (r->ne < r->n) {
    return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                            "valve '%s': initial: rest has %d unknowns (the offsets of %d "
                            "valves, the pressures of %d volumes) for %d pressure rates to "
                            "vanish: give volumes p0",
                            valve_name(m, r->valve[0]), r->n, r->nr, r->nf, r->ne);
  }
  return HY_OK;
}

// The valve to blame for the equation of volume k: one with k at a work port, or the first.
static int valve_of(const hy_model* m, const rest* r, int k) {
  for (int i = 0; i < r->nr; i++) {
    if (work_port(m, r->valve[i], k)) return r->valve[i];
  }
  return r->valve[0];
}

// The step of the central difference of unknown j at x. A spool position's stays on its side of
// 0, where the flows have a kink (a path opens): a difference across it would average the two
// sides' slopes.
static double diff_step(const rest* r, const double* x, int j) {
  const double e = DIFF_STEP * fmax(fabs(x[j]), typical(r, j));
  return j < r->nr && x[j] != 0 ? fmin(e, 0.5 * fabs(x[j])) : e;
}

// Gauss-Newton on the net inflows from x (the point reached on return). HY_OK, or
// HY_ERR_SINGULAR with the unknown in *bad when a column of the Jacobian is zero.
static hy_status gauss_newton(const hy_model* m, hy_data* d, const rest* r, double* x, int* bad) {
  const int n = r->n, ne = r->ne;
  double F[REST_MAX_EQUATIONS], Fp[REST_MAX_EQUATIONS], Fm[REST_MAX_EQUATIONS];
  double J[REST_MAX_EQUATIONS * REST_MAX_UNKNOWNS], N[REST_MAX_UNKNOWNS * REST_MAX_UNKNOWNS];
  double col[REST_MAX_UNKNOWNS], dx[REST_MAX_UNKNOWNS], xt[REST_MAX_UNKNOWNS];
  double f = residual(m, d, r, x, F);
  for (int it = 0; it < REST_MAX_ITER && f > 0; it++) {
    // the Jacobian by central differences, its columns scaled to unit length
    for (int j = 0; j < n; j++) {
      const double e = diff_step(r, x, j);
      memcpy(xt, x, sizeof(double) * (size_t)n);
      xt[j] = x[j] + e;
      residual(m, d, r, xt, Fp);
      xt[j] = x[j] - e;
      residual(m, d, r, xt, Fm);
      double s = 0;
      for (int k = 0; k < ne; k++) {
        J[k * n + j] = (Fp[k] - Fm[k]) / (2 * e);
        s += J[k * n + j] * J[k * n + j];
      }
      col[j] = sqrt(s);
      if (!(col[j] > 0) || !isfinite(col[j])) {
        *bad = j;
        return HY_ERR_SINGULAR;
      }
    }
    // the normal equations of the scaled columns: N y = -g, dx = y / col
    for (int i = 0; i < n; i++) {
      double g = 0;
      for (int k = 0; k < ne; k++) g += J[k * n + i] * F[k];
      dx[i] = -g / col[i];
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int k = 0; k < ne; k++) s += J[k * n + i] * J[k * n + j];
        N[i * n + j] = s / (col[i] * col[j]);
      }
    }
    int sing = -1;
    if (hy_chol_factor(n, N, &sing) != HY_OK) {
      *bad = sing < 0 ? 0 : sing;
      return HY_ERR_SINGULAR;
    }
    hy_chol_solve(n, N, dx);
    for (int j = 0; j < n; j++) dx[j] /= col[j];
    // halved until the residual decreases; none that does: x is the minimum to round-off
    double t = 1, ft = f;
    for (int k = 0; k < 60; k++, t *= 0.5) {
      for (int j = 0; j < n; j++) xt[j] = x[j] + t * dx[j];
      ft = residual(m, d, r, xt, Fp);
      if (ft < f) break;
    }
    if (!(ft < f)) break;
    double move = 0;
    for (int j = 0; j < n; j++) {
      move = fmax(move, fabs(xt[j] - x[j]) / fmax(fabs(xt[j]), FLOOR * typical(r, j)));
      x[j] = xt[j];
    }
    f = ft;
    memcpy(F, Fp, sizeof(double) * (size_t)ne);
    if (move <= REST_STEP_TOL) break;
  }
  return HY_OK;
}

// How far x is from rest: the largest |net inflow| (its equation into *worst) over the largest
// flow through an element there (0 when both vanish). d is left at x.
static double distance(const hy_model* m, hy_data* d, const rest* r, const double* x, int* worst) {
  double F[REST_MAX_EQUATIONS];
  residual(m, d, r, x, F);
  double q = 0;
  for (int i = 0; i < m->sizes.norf; i++) q = fmax(q, fabs(d->orf_q[i]));
  for (int i = 0; i < 4 * m->sizes.nvlv; i++) q = fmax(q, fabs(d->vlv_q[i]));
  for (int i = 0; i < m->sizes.npvl; i++) q = fmax(q, fabs(d->pvl_q[i]));
  *worst = 0;
  for (int k = 1; k < r->ne; k++) {
    if (!(fabs(F[k]) <= fabs(F[*worst]))) *worst = k;
  }
  const double f = fabs(F[*worst]);
  if (f == 0) return 0;
  return q > 0 ? f / q : INFINITY;
}

// The index of valve v among the rest valves.
static int rest_index(const rest* r, int v) {
  int i = 0;
  while (r->valve[i] != v) i++;
  return i;
}

// Why the best attempt x did not reach rest; it ended at unknown bad of a zero column when
// singular.
static hy_status not_at_rest(const hy_model* m, hy_data* d, const rest* r, const double* x,
                             hy_status st, int bad) {
  if (st == HY_ERR_SINGULAR) {
    const int v = bad < r->nr ? r->valve[bad] : valve_of(m, r, r->vol[bad - r->nr]);
    const hy_srcpos pos = m->vlv_src[v];
    if (bad < r->nr) {
      return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                              "valve '%s': initial: rest: its spool position changes no flow "
                              "into its work-port volumes (at U = %.6g)",
                              valve_name(m, v), x[bad]);
    }
    return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                            "valve '%s': initial: rest: the pressure of volume '%s' changes no "
                            "flow",
                            valve_name(m, v), volume_name(m, r->vol[bad - r->nr]));
  }
  int worst;
  distance(m, d, r, x, &worst);
  const int k = r->eq[worst], v = valve_of(m, r, k);
  const hy_srcpos pos = m->vlv_src[v];
  return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                          "valve '%s': initial: rest finds no command offset that holds the "
                          "circuit at rest: volume '%s' keeps a pressure rate of %.3g Pa/s at the "
                          "best spool position %.6g",
                          valve_name(m, v), volume_name(m, k), d->pd[k], x[rest_index(r, v)]);
}

// The flows have a kink where a path opens (U = 0), and Gauss-Newton rarely crosses it to the
// side where rest is: it starts from the spools' positions at the command (a closed one this far,
// of the typical magnitude, P->A), then from slight openings on every side of the first
// SIGNED_STARTS rest valves (P->A and P->B each), until one start reaches rest.
#define START_OPENING 1e-3
#define SIGNED_STARTS 4

// Gauss-Newton from each start until one reaches rest; the best point into x.
static hy_status search(const hy_model* m, hy_data* d, const rest* r, double* x) {
  double x0[REST_MAX_UNKNOWNS], xa[REST_MAX_UNKNOWNS];
  memcpy(x0, x, sizeof(double) * (size_t)r->n);
  const int nsigned = r->nr < SIGNED_STARTS ? r->nr : SIGNED_STARTS;
  double best = INFINITY;
  hy_status best_st = HY_OK;
  int best_bad = 0;
  for (int a = -1; a < 1 << nsigned; a++) {
    memcpy(xa, x0, sizeof(double) * (size_t)r->n);
    for (int i = 0; i < r->nr; i++) {
      const double open = START_OPENING * typical(r, i);
      if (a < 0) {
        if (xa[i] == 0) xa[i] = open;
      } else {
        xa[i] = i < nsigned && ((a >> i) & 1) ? -open : open;
      }
    }
    int bad = 0, worst;
    const hy_status st = gauss_newton(m, d, r, xa, &bad);
    const double dist = distance(m, d, r, xa, &worst);
    if (dist < best || a < 0) {
      best = dist;
      best_st = st;
      best_bad = bad;
      memcpy(x, xa, sizeof(double) * (size_t)r->n);
    }
    if (best <= REST_FLOW_TOL) return HY_OK;
  }
  return not_at_rest(m, d, r, x, best_st, best_bad);
}

hy_status hy_hyd_rest_offsets(const hy_model* m, hy_data* d) {
  rest r;
  HY_TRY(setup(m, d, &r));
  if (r.nr == 0) return HY_OK;
  double x[REST_MAX_UNKNOWNS];
  for (int i = 0; i < r.nr; i++) x[i] = d->U[r.valve[i]];
  for (int j = 0; j < r.nf; j++) x[r.nr + j] = d->p[r.vol[j]];
  // the rows in m^3/s, by the compliances at the start
  set_unknowns(m, d, &r, x);
  hy_hyd_evaluate(m, d, NULL);
  for (int e = 0; e < r.ne; e++) r.X[e] = d->vol_V[r.eq[e]] / d->vol_Be[r.eq[e]];
  HY_TRY(search(m, d, &r, x));
  // the offsets: the shaping inverted at each position
  for (int i = 0; i < r.nr; i++) {
    const int v = r.valve[i];
    const double U = x[i], lim = hy_hyd_spool_limit(m, v), dz = m->vlv_dead[v];
    if (fabs(U) > lim) {
      const hy_srcpos pos = m->vlv_src[v];
      return hy_error_set_src(&d->err, HY_ERR_MODEL, m->path, pos.line, pos.col,
                              "valve '%s': initial: rest needs the spool at U = %.6g, beyond its "
                              "saturation %.6g",
                              valve_name(m, v), U, lim);
    }
    const double c0 = hy_hyd_spool_command(m, v, d->time);
    // U = 0: any command inside the dead zone, the given one if it is
    double c = U + copysign(dz, U);
    if (U == 0) c = fabs(c0) <= dz ? c0 : 0.0;
    d->vlv_u0[v] = c - c0;
  }
  // the state found: the pressures, and each spool at its reference, where it rests
  set_unknowns(m, d, &r, x);
  for (int i = 0; i < r.nr; i++) {
    d->U[r.valve[i]] = hy_hyd_spool_reference(m, d, r.valve[i], d->time);
  }
  hy_hyd_spool_rates(m, d);
  return HY_OK;
}
