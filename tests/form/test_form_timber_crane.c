// The built-in timber crane (models/timber-crane.yaml: a 3-D loader with a four-bar jib linkage
// closed by a spherical cut joint, a rack and pinion (a coupler), a grapple on a universal joint
// and four valve-controlled cylinders) over the first seconds of its work cycle at its own
// dt = 1 ms, with both closed-loop formulations: the loop stays closed, the energy balance
// closes, the formulations agree, the grapple hangs and the relief valve holds the pump line.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/hydyn.h"

// The first 8 s of the cycle: the boom lifts from 1 s, the column swings from 2 s (its rack
// cylinder through a rack and pinion, a coupler), the jib
// unfolds from 3 s and the extension runs out from 5 s, so every actuator moves.
enum { NSTEP = 8000, NZ_MAX = 16, NCYL_MAX = 8 };

typedef struct crane_run {
  double z[NSTEP + 1][NZ_MAX];  // joint coordinates after every step
  double violation;             // largest |Phi_i| after a step (m or rad)
  double drift;                 // largest |E_kin + E_pot - W(t) - E(0)|, W summed here (J)
  double drift_lib;             // the same with the library's hy_energy_total (J)
  double work_max;              // largest |actuator work| (J)
  double work_gap;              // largest |W(t) - actuator work(t)| (J)
  double hang_min;              // smallest cosine of the grapple's angle from the plumb line
  double p_pump_max;            // largest pump-line pressure (Pa)
  double stroke[NCYL_MAX][2];   // each cylinder's shortest and longest length (m)
  long substeps;                // integrator steps taken (NSTEP unless a step was cut)
  double damped;                // work of the swing damper (J, <= 0)
} crane_run;

static crane_run runs[2];

// Power of the force elements on the mechanism: each pushes its markers apart with frc_force
// while they separate at frc_rate. The crane's only force elements are its cylinders.
static double force_power(const hy_model* m, const hy_data* d) {
  double pw = 0;
  for (int k = 0; k < m->sizes.nfrc; k++) pw += d->frc_force[k] * d->frc_rate[k];
  return pw;
}

// Power of the joints' viscous dampers (the grapple's swing damper): -sum c_j zd_j^2.
static double damper_power(const hy_model* m, const hy_data* d) {
  double pw = 0;
  for (int j = 0; j < m->sizes.nbody; j++) {
    const double zd = d->zd[m->jnt_zadr[j]];
    pw -= m->jnt_damp[j] * zd * zd;
  }
  return pw;
}

static void run_crane(hy_model* m, hy_formulation form, crane_run* c) {
  m->opt.formulation = form;
  hy_data* d = hy_test_make(m);
  const int nz = m->sizes.nz, ncyl = m->sizes.ncyl;
  ck_assert_int_le(nz, NZ_MAX);
  ck_assert_int_le(ncyl, NCYL_MAX);
  ck_assert_msg(fabs(m->opt.dt - 1e-3) < 1e-15, "the model's dt is %g s, not 1 ms", m->opt.dt);
  const int grapple = hy_model_body(m, "grapple"), tip = hy_model_marker(m, "tip");
  const int pump_line = hy_model_volume(m, "P");
  ck_assert(grapple >= 0 && tip >= 0 && pump_line >= 0);
  memset(c, 0, sizeof *c);
  c->hang_min = 1;
  c->p_pump_max = d->p[pump_line];
  for (int k = 0; k < ncyl; k++) {
    const double len = d->frc_len[m->cyl_frc[k]];
    c->stroke[k][0] = c->stroke[k][1] = len;
  }
  memcpy(c->z[0], d->z, sizeof(double) * (size_t)nz);
  const double e0 = d->energy_kin + d->energy_pot, e0_lib = hy_energy_total(d);
  double work = 0, power = force_power(m, d);
  double damped = 0, damp_power = damper_power(m, d);
  for (long i = 1; i <= NSTEP; i++) {
    ck_assert_msg(hy_step(m, d) == HY_OK, "%s, step %ld: %s", hy_formulation_name(form), i,
                  d->err.msg);
    // the work of the cylinders, by the trapezoidal rule in time, summed here apart from the
    // library's own accounts (work_ext, work_hyd, diss_visc, work_damp)
    const double power_new = force_power(m, d), damp_new = damper_power(m, d);
    work += 0.5 * m->opt.dt * (power + power_new);
    damped += 0.5 * m->opt.dt * (damp_power + damp_new);
    power = power_new;
    damp_power = damp_new;
    memcpy(c->z[i], d->z, sizeof(double) * (size_t)nz);
    c->drift = fmax(c->drift, fabs(d->energy_kin + d->energy_pot - work - damped - e0));
    c->damped = fmin(c->damped, damped);
    c->drift_lib = fmax(c->drift_lib, fabs(hy_energy_total(d) - e0_lib));
    c->work_max = fmax(c->work_max, fabs(hy_actuator_work(d)));
    c->work_gap = fmax(c->work_gap, fabs(work - hy_actuator_work(d)));
    // the grapple's centre of mass against the universal joint's point, gravity along -z
    const double* g = d->body_com + 3 * grapple;
    const double* t = d->mrk_pos + 3 * tip;
    const double r[3] = {g[0] - t[0], g[1] - t[1], g[2] - t[2]};
    const double r_len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    c->hang_min = fmin(c->hang_min, r_len > 0 ? -r[2] / r_len : -1);  // -1: no pendulum at all
    c->p_pump_max = fmax(c->p_pump_max, d->p[pump_line]);
    for (int k = 0; k < ncyl; k++) {
      const double len = d->frc_len[m->cyl_frc[k]];
      c->stroke[k][0] = fmin(c->stroke[k][0], len);
      c->stroke[k][1] = fmax(c->stroke[k][1], len);
    }
  }
  c->violation = d->stats.violation_max;
  c->substeps = d->stats.nsubstep;
  hy_data_free(d);
}

START_TEST(timber_crane_cycle) {
  hy_model* m = hy_test_load("timber-crane");
  ck_assert_int_eq(m->sizes.ncut, 1);
  run_crane(m, HY_FORM_PENALTY, &runs[0]);
  run_crane(m, HY_FORM_DOUBLE_STEP, &runs[1]);
  const char* name[2] = {"penalty", "double-step"};
  const double tol = m->opt.tol_pos;
  // the rack and pinion: the rack's slide is geared to the slew, z_rack = ratio * slew
  const int cpl = hy_model_coupler(m, "pinion");
  ck_assert(cpl >= 0);
  const int slew = m->jnt_zadr[hy_model_joint(m, "slew")];
  const int rack = m->jnt_zadr[hy_model_joint(m, "rack_slide")];
  const double ratio = m->cpl_ratio[cpl];

  // the pump line's bound: the relief valve is fully open at p_set + p_open above its outlet and
  // then passes cv sqrt(dp) (turbulent, far above the laminar limit), more than the pump's whole
  // displacement flow D n, so the pressure cannot rise past that point
  const int relief = hy_model_pressure_valve(m, "relief"), pump = hy_model_pump(m, "pump");
  ck_assert(relief >= 0 && m->pvl_kind[relief] == HY_PRESSURE_VALVE_RELIEF && pump >= 0);
  const int outlet = m->pvl_node[2 * relief + 1], nvol = m->sizes.nvol;
  ck_assert_msg(outlet >= nvol, "the relief valve should open to the tank, a source");
  const double dp_open = m->pvl_p_crack[relief] + m->pvl_p_open[relief];
  const double p_limit = m->src_p[outlet - nvol] + dp_open;
  ck_assert_msg(m->pvl_cv[relief] * sqrt(dp_open) > m->pmp_disp[pump] * m->pmp_speed[pump],
                "the relief valve cannot pass the pump's flow");

  for (int f = 0; f < 2; f++) {
    const crane_run* c = &runs[f];
    // the cycle moves: every cylinder runs more than 5 cm, and the actuators do work
    for (int k = 0; k < m->sizes.ncyl; k++) {
      ck_assert_msg(c->stroke[k][1] - c->stroke[k][0] > 0.05, "%s: cylinder %d moved %.3g m",
                    name[f], k, c->stroke[k][1] - c->stroke[k][0]);
    }
    ck_assert_msg(c->work_max > 1e3, "%s: actuator work %.3g J", name[f], c->work_max);
    // the rack turns the column further than a lever could (about +-40 deg): past 80 deg, with
    // the rack where the pinion's pitch circle puts it (to the closure's tolerance)
    double slew_max = 0, gear_gap = 0;
    for (long i = 0; i <= NSTEP; i++) {
      slew_max = fmax(slew_max, fabs(c->z[i][slew]));
      gear_gap = fmax(gear_gap, fabs(c->z[i][rack] - ratio * c->z[i][slew]));
    }
    ck_assert_msg(slew_max > 80 * HY_PI / 180, "%s: the column slewed only %.1f deg", name[f],
                  slew_max * 180 / HY_PI);
    ck_assert_msg(gear_gap < (f == 0 ? tol : 1e-11), "%s: rack off its pinion by %.3g m",
                  name[f], gear_gap);
    // the cycle runs at dt = 1 ms: no Newton failure cut a step into smaller ones (the work
    // summed here over whole steps then follows the same trapezoids as the library's)
    ck_assert_msg(c->substeps == NSTEP, "%s: %ld integrator steps for %d steps of dt", name[f],
                  c->substeps, (int)NSTEP);
    // (a) the loop stays closed: penalty to the Newton tolerance on positions (its multiplier
    // updates, Eq. 19, leave the loop open by less than the iteration resolves coordinates),
    // double-step to its closure's tolerance of 1e-11 (docs/formulations.md: Newton on Phi = 0
    // converging quadratically leaves round-off)
    const double viol_max = f == 0 ? tol : 1e-11;
    ck_assert_msg(c->violation < viol_max, "%s: loop-closure violation %.3g > %.3g", name[f],
                  c->violation, viol_max);
    // (b) the energy balance E_kin + E_pot - W closes to 1e-4 of the largest actuator work, with
    // W summed here from the cylinders' forces and rates and the swing damper's -c zd^2, and
    // with the library's accounts; the cylinders' works are the same integral of F s_dot
    // (forces: pressure, viscous, end damper)
    ck_assert_msg(c->drift < 1e-4 * c->work_max && c->drift_lib < 1e-4 * c->work_max,
                  "%s: energy drift %.3g J (library: %.3g J) of %.3g J of work", name[f], c->drift,
                  c->drift_lib, c->work_max);
    ck_assert_msg(c->work_gap < 1e-9 * c->work_max,
                  "%s: cylinder work summed here and the library's differ by %.3g J", name[f],
                  c->work_gap);
    // the swing damper takes energy out of the swinging grapple
    ck_assert_msg(c->damped < -10, "%s: the swing damper did %.3g J", name[f], c->damped);
    // (d) the grapple hangs below the extension's tip: its centre of mass within 60 deg of the
    // plumb line through the universal joint (the tip accelerates by a fraction of g)
    ck_assert_msg(c->hang_min > 0.5, "%s: the grapple swung to %.1f deg from the plumb line",
                  name[f], acos(fmin(1, fmax(-1, c->hang_min))) * 180 / HY_PI);
    // (e) the relief valve caps the pump line
    ck_assert_msg(c->p_pump_max < p_limit, "%s: pump line at %.6g Pa, above %.6g Pa", name[f],
                  c->p_pump_max, p_limit);
  }

  // (c) the formulations solve the same trapezoidal equations, each step to within tol_pos of
  // their root; on this neutrally stable mechanism (driven cylinders, a pendulum) the per-step
  // differences of up to 2 tol_pos add up at most as a random walk over the steps
  const double dz_max = 2 * tol * sqrt((double)NSTEP);
  double dz = 0;
  int dz_at = 0;
  long dz_step = 0;
  for (long i = 0; i <= NSTEP; i++) {
    for (int j = 0; j < m->sizes.nz; j++) {
      const double e = fabs(runs[0].z[i][j] - runs[1].z[i][j]);
      if (e > dz) dz = e, dz_at = j, dz_step = i;
    }
  }
  ck_assert_msg(dz < dz_max, "penalty and double-step differ by %.3g in z[%d] at t = %.3f s", dz,
                dz_at, 1e-3 * (double)dz_step);
  hy_model_free(m);
}
END_TEST

Suite* form_timber_crane_suite(void) {
  Suite* s = suite_create("form_timber_crane");
  TCase* tc = tcase_create("timber_crane");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, timber_crane_cycle);
  suite_add_tcase(s, tc);
  return s;
}
