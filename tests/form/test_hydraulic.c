// The seed mechanisms driven by their hydraulic circuits, coupled monolithically (seed 000
// Sects. 4-6): rest before the valve opens, agreement of the formulations over the work cycle,
// energy balance, constraint violation, the tangent's hydraulic block against finite
// differences, and the failure report.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "form/form_common.h"
#include "hydyn/hydyn.h"
#include "sim/sim.h"

// A work cycle, sampled every 10 ms.
typedef struct cycle {
  double z[1001][8];
  double p[1001][8];
  double dz_before_valve;  // largest |z(t) - z(0)| for t < 1 s
  double drift;            // largest |E(t) - E(0)| (J)
  double work_max;         // largest |actuator work| (J)
  double violation;
  double stroke_min, stroke_max;  // actuator length range (m)
} cycle;

static cycle ca, cb;

static void run_cycle(hy_model* m, hy_formulation form, cycle* c) {
  m->opt.formulation = form;
  hy_data* d = hy_test_make(m);
  const int nz = m->sizes.nz, nv = m->sizes.nvol;
  const int k = m->cyl_frc[0];
  double z0[8];
  memcpy(z0, d->z, sizeof(double) * (size_t)nz);
  const double e0 = hy_energy_total(d);
  memset(c, 0, sizeof *c);
  c->stroke_min = c->stroke_max = d->frc_len[k];
  memcpy(c->z[0], d->z, sizeof(double) * (size_t)nz);
  memcpy(c->p[0], d->p, sizeof(double) * (size_t)nv);
  const long n = lround(m->opt.t_end / m->opt.dt), every = lround(0.01 / m->opt.dt);
  for (long i = 1; i <= n; i++) {
    hy_status st = hy_step(m, d);
    ck_assert_msg(st == HY_OK, "%s step %ld: %s", hy_formulation_name(form), i, d->err.msg);
    if (d->time < 1.0 - 1e-9) {
      for (int q = 0; q < nz; q++)
        c->dz_before_valve = fmax(c->dz_before_valve, fabs(d->z[q] - z0[q]));
    }
    c->drift = fmax(c->drift, fabs(hy_energy_total(d) - e0));
    c->work_max = fmax(c->work_max, fabs(hy_actuator_work(d)));
    c->stroke_min = fmin(c->stroke_min, d->frc_len[k]);
    c->stroke_max = fmax(c->stroke_max, d->frc_len[k]);
    if (i % every == 0 && i / every <= 1000) {
      memcpy(c->z[i / every], d->z, sizeof(double) * (size_t)nz);
      memcpy(c->p[i / every], d->p, sizeof(double) * (size_t)nv);
    }
  }
  c->violation = d->stats.violation_max;
  hy_data_free(d);
}

// Seed 000 Sect. 6 on four-bar A and the quick-return: at rest until the valve opens at 1 s;
// penalty and double-step agree on coordinates and pressures over the 10 s cycle; the energy
// balance closes to 0.1 % of the largest actuator work; the double-step constraint violation
// stays at the Newton tolerance.
START_TEST(work_cycles) {
  const char* names[] = {"four-bar-a", "quick-return"};
  for (int q = 0; q < 2; q++) {
    hy_model* m = hy_test_load(names[q]);
    const int nz = m->sizes.nz, nv = m->sizes.nvol;
    run_cycle(m, HY_FORM_PENALTY, &ca);
    run_cycle(m, HY_FORM_DOUBLE_STEP, &cb);
    ck_assert_msg(ca.stroke_max - ca.stroke_min > 0.05, "%s: the cylinder hardly moved (%.3g m)",
                  names[q], ca.stroke_max - ca.stroke_min);
    ck_assert_msg(ca.dz_before_valve < 1e-6 && cb.dz_before_valve < 1e-6,
                  "%s: moved %.3g / %.3g rad before the valve opened", names[q], ca.dz_before_valve,
                  cb.dz_before_valve);
    double dz = 0, dp = 0;
    for (int i = 0; i <= 1000; i++) {
      for (int j = 0; j < nz; j++) dz = fmax(dz, fabs(ca.z[i][j] - cb.z[i][j]));
      for (int j = 0; j < nv; j++) dp = fmax(dp, fabs(ca.p[i][j] - cb.p[i][j]));
    }
    ck_assert_msg(dz < 1e-3 && dp < 1e3, "%s: formulations differ by %.3g rad and %.3g Pa",
                  names[q], dz, dp);
    ck_assert(ca.work_max > 10);
    ck_assert_msg(ca.drift < 1e-3 * ca.work_max && cb.drift < 1e-3 * cb.work_max,
                  "%s: energy drift %.3g J (penalty), %.3g J (double-step) of %.3g J of work",
                  names[q], ca.drift, cb.drift, ca.work_max);
    ck_assert_msg(cb.violation <= 1e-9, "%s: double-step violation %.3g", names[q], cb.violation);
    hy_model_free(m);
  }
}
END_TEST

// New data for m, stepped to t = 1.6 s: mid-cycle, with the valve open and the circuit moving.
static hy_data* mid_cycle(hy_model* m) {
  hy_data* d = hy_test_make(m);
  while (d->time < 1.6) ck_assert_int_eq(hy_step(m, d), HY_OK);
  return d;
}

// The pressure rows and columns of the analytic tangent equal forward differences of the
// residual (pressure columns) to 1e-6 relative, mid-cycle with the valve open.
START_TEST(hydraulic_tangent_block) {
  hy_model* m = hy_test_load("four-bar-a");
  for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
    m->opt.formulation = (hy_formulation)f;
    hy_data* d = mid_cycle(m);
    hy_work* w = d->work_;
    hy_form* fw = hy_sim_form(m, d);
    double x[32], f0[32], f1[32], J[32 * 32];
    hy_trap_begin(&w->integ, fw, m->opt.dt, d->time + m->opt.dt);
    const int n = w->integ.trap.n, nv = m->sizes.nvol, nm = n - nv;
    ck_assert_int_le(n, 32);
    memcpy(x, w->integ.trap.x, sizeof(double) * (size_t)n);
    for (int i = 0; i < nv; i++) x[nm + i] += 3e4;  // away from the predictor: flows change
    ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, f0), HY_OK);
    hy_trap_tangent(&w->integ, fw, J);
    // central differences over the pressure unknowns
    double scale = 0, worst_rel = 0, fm[32];
    for (int c = nm; c < n; c++) {
      const double h = 1e-4 * fabs(x[c]);
      x[c] += h;
      ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, f1), HY_OK);
      x[c] -= 2 * h;
      ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, fm), HY_OK);
      x[c] += h;
      for (int r = 0; r < n; r++) scale = fmax(scale, fabs(f1[r] - fm[r]) / (2 * h));
      for (int r = 0; r < n; r++) {
        const double fd = (f1[r] - fm[r]) / (2 * h);
        if (fabs(fd) < 1e-9 * scale) continue;
        worst_rel = fmax(worst_rel, fabs(fd - J[r * n + c]) / fabs(fd));
      }
    }
    ck_assert(scale > 0.1);
    ck_assert_msg(worst_rel < 1e-6, "%s: tangent pressure columns differ by %.3g relative",
                  hy_formulation_name((hy_formulation)f), worst_rel);
    hy_trap_abort(&w->integ, fw);
    hy_data_free(d);
  }
  hy_model_free(m);
}
END_TEST

// The Newton iteration solves with the tangent factored in blocks (the pressures eliminated
// through the cylinder lengths); its solutions equal those of the whole tangent factored by
// partial-pivot LU, for both formulations, a crane without loops and right-hand sides that
// excite every unknown.
START_TEST(block_tangent_solves_as_whole) {
  // four-bar B with the film law: two friction states eliminated with the pressures
  const char* models[] = {"four-bar-a", "quick-return", "crane", "four-bar-b-lugre-film"};
  for (int k = 0; k < 4; k++) {
    hy_model* m = hy_test_load(models[k]);
    for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
      m->opt.formulation = (hy_formulation)f;
      hy_data* d = mid_cycle(m);
      hy_work* w = d->work_;
      hy_form* fw = hy_sim_form(m, d);
      double r[32], J[32 * 32], b[32], c[32];
      int piv[32], col = -1;
      hy_trap_begin(&w->integ, fw, m->opt.dt, d->time + m->opt.dt);
      const int n = w->integ.trap.n;
      ck_assert_int_le(n, 32);
      ck_assert_int_eq(hy_trap_residual(&w->integ, fw, w->integ.trap.x, r), HY_OK);
      hy_trap_tangent(&w->integ, fw, J);
      ck_assert_int_eq(hy_trap_factor(&w->integ, fw, &col), HY_OK);
      // the whole tangent as the finite-difference path factors it: rows scaled to unit
      // largest entry (pressure rows reach 1e9 in the coordinate columns)
      double row_scale[32];
      for (int i = 0; i < n; i++) {
        double mx = 0;
        for (int j = 0; j < n; j++) mx = fmax(mx, fabs(J[i * n + j]));
        row_scale[i] = 1 / mx;
        for (int j = 0; j < n; j++) J[i * n + j] *= row_scale[i];
      }
      ck_assert_int_eq(hy_lu_factor(n, J, piv, &col), HY_OK);
      for (int trial = 0; trial < 3; trial++) {
        for (int i = 0; i < n; i++) {
          // the Newton residual itself, then unit-scale vectors of mixed signs
          b[i] = trial == 0 ? r[i] : sin(1.7 * i + trial) * (trial == 1 ? 1.0 : 1e-3 * (i + 1));
          c[i] = b[i];
          b[i] *= row_scale[i];
        }
        hy_lu_solve(n, J, piv, b);
        hy_trap_solve(&w->integ, fw, c);
        double scale = 0, diff = 0;
        for (int i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
        for (int i = 0; i < n; i++) diff = fmax(diff, fabs(b[i] - c[i]));
        ck_assert(scale > 0);
        ck_assert_msg(diff <= 1e-9 * scale, "%s %s: block solve differs by %.3g of %.3g", models[k],
                      hy_formulation_name((hy_formulation)f), diff, scale);
      }
      hy_trap_abort(&w->integ, fw);
      hy_data_free(d);
    }
    hy_model_free(m);
  }
}
END_TEST

// The end of a step keeps the evaluated position stages for a coordinate change below 1e-3 of
// the tolerance and moves Phi by Phi_z dz: that equals Phi evaluated at the moved coordinates to
// the square of the change (1e-20 m, so to the round-off of Phi's evaluation, ~1e-16 m); a larger
// change is refused and leaves Phi alone.
START_TEST(kept_positions_move_phi_to_first_order) {
  hy_model* m = hy_test_load("quick-return");
  hy_data* d = mid_cycle(m);
  hy_work* w = d->work_;
  const hy_form* f = hy_sim_form(m, d);
  const double tol = f->step.tol_pos;        // the Newton tolerance of the steps taken
  ck_assert_double_eq(tol, m->opt.tol_pos);  // without error control, the option's
  const int nz = m->sizes.nz, neq = m->sizes.neq;
  ck_assert_int_gt(neq, 0);
  ck_assert_int_le(nz, 16);
  ck_assert_int_le(neq, 16);
  double dz[16], phi0[16], moved[16];
  hy_mech_kinematics_pos(m, d, &w->mech);
  hy_mech_constraints_pos(m, d, &w->mech);
  memcpy(phi0, d->phi, sizeof(double) * (size_t)neq);
  for (int i = 0; i < nz; i++) dz[i] = 1e-3 * tol * sin(2.3 * i + 0.4);
  ck_assert(hy_form_keep_positions(f, dz));
  memcpy(moved, d->phi, sizeof(double) * (size_t)neq);
  double change = 0, viol = 0;
  for (int e = 0; e < neq; e++) change = fmax(change, fabs(moved[e] - phi0[e]));
  for (int e = 0; e < neq; e++) viol = fmax(viol, fabs(moved[e]));
  ck_assert_double_eq(d->violation, viol);
  ck_assert(change > 1e-11);  // the update is not empty (Phi_z dz ~ 1e-10 m)
  for (int i = 0; i < nz; i++) d->z[i] += dz[i];
  hy_mech_kinematics_pos(m, d, &w->mech);
  hy_mech_constraints_pos(m, d, &w->mech);
  for (int e = 0; e < neq; e++) {
    ck_assert_msg(fabs(moved[e] - d->phi[e]) < 1e-15, "row %d: first order %.6g, evaluated %.6g", e,
                  moved[e], d->phi[e]);
  }
  // a change above the limit: refused, Phi as evaluated
  memcpy(phi0, d->phi, sizeof(double) * (size_t)neq);
  dz[nz - 1] = 2e-3 * tol;
  ck_assert(!hy_form_keep_positions(f, dz));
  for (int e = 0; e < neq; e++) ck_assert_double_eq(d->phi[e], phi0[e]);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// After a step the public kinematic outputs describe the accepted state, also those that the
// Newton iterations do not need (body_rot is filled once per step): they equal the full
// kinematics evaluated afresh at the accepted coordinates, for both formulations.
START_TEST(outputs_after_a_step_are_those_of_the_accepted_state) {
  hy_model* m = hy_test_load("quick-return");
  for (int f = HY_FORM_PENALTY; f <= HY_FORM_DOUBLE_STEP; f++) {
    m->opt.formulation = (hy_formulation)f;
    hy_data* d = mid_cycle(m);
    hy_data* e = hy_test_make(m);
    const int nz = m->sizes.nz, nb = m->sizes.nbody;
    memcpy(e->z, d->z, sizeof(double) * (size_t)nz);
    memcpy(e->zd, d->zd, sizeof(double) * (size_t)nz);
    hy_work* we = e->work_;
    hy_mech_kinematics(m, e, &we->mech);
    double worst = 0;
    for (int i = 0; i < 9 * nb; i++) worst = fmax(worst, fabs(d->body_rot[i] - e->body_rot[i]));
    for (int i = 0; i < 3 * nb; i++) worst = fmax(worst, fabs(d->body_pos[i] - e->body_pos[i]));
    // positions kept from the last evaluation differ by at most 1e-3 of the tolerance
    ck_assert_msg(worst < 1e-9, "%s: outputs differ by %.3g",
                  hy_formulation_name((hy_formulation)f), worst);
    hy_data_free(e);
    hy_data_free(d);
  }
  hy_model_free(m);
}
END_TEST

// A Newton failure in a hydraulic run names the time, the residual of each segment and the
// worst unknown, and leaves the state at the last converged step.
START_TEST(hydraulic_newton_failure) {
  hy_model* m = hy_test_load("four-bar-a");
  hy_data* d = hy_test_make(m);
  while (d->time < 1.2) ck_assert_int_eq(hy_step(m, d), HY_OK);
  m->opt.max_iter = 1;
  m->opt.tol_p = 1e-12;
  m->opt.strict_steps = 1;  // the step fails as it is, without being cut
  const double t = d->time, p0 = d->p[0];
  ck_assert_int_eq(hy_step(m, d), HY_NEWTON_NOCONV);
  ck_assert_double_eq(d->time, t);
  ck_assert_double_eq(d->p[0], p0);
  ck_assert_msg(strstr(d->err.msg, "mechanical rows") && strstr(d->err.msg, "pressure rows") &&
                    strstr(d->err.msg, "on pressure '"),
                "message: %s", d->err.msg);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// Reads a file of the source tree into a NUL-terminated buffer (caller frees).
static char* read_source(const char* rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", HY_SOURCE_DIR, rel);
  FILE* f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(text);
  ck_assert_int_eq((long)fread(text, 1, (size_t)n, f), n);
  text[n] = 0;
  fclose(f);
  return text;
}

// Replaces the first `from` in text (which must hold it) by `to`, in a new buffer.
static char* replaced(const char* text, const char* from, const char* to) {
  const char* at = strstr(text, from);
  ck_assert_ptr_nonnull(at);
  char* out = malloc(strlen(text) + strlen(to) + 1);
  ck_assert_ptr_nonnull(out);
  memcpy(out, text, (size_t)(at - text));
  strcpy(out + (at - text), to);
  strcat(out, at + strlen(from));
  return out;
}

// Cylinder geometry that only the initial configuration reveals is refused when the data are
// made, at the cylinder's line and column in the file: chambers of non-positive length, and
// markers that coincide.
START_TEST(bad_cylinder_geometry_is_refused) {
  char* text = read_source("models/four-bar-a.yaml");
  int cyl_line = 0;
  {
    const char* at = strstr(text, "- name: cylinder");
    ck_assert_ptr_nonnull(at);
    cyl_line = 1;
    for (const char* c = text; c < at; c++) cyl_line += *c == '\n';
  }
  struct {
    const char* from;
    const char* to;
    const char* words;
  } cases[] = {
      {"dead_length: 1.2", "dead_length: 1.5", "chamber lengths"},
      {"stroke: 1.2 ", "stroke: 0.1 ", "chamber lengths"},
      {"point: [1, 0, 0]}      # F", "point: [2, 1, 0]}      # F", "markers coincide"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char* bad = replaced(text, cases[k].from, cases[k].to);
    hy_model* m = NULL;
    hy_error err;
    ck_assert_int_eq(hy_model_load_string(bad, strlen(bad), "bad.yaml", &m, &err), HY_OK);
    hy_data* d = NULL;
    memset(&err, 0, sizeof err);
    hy_status st = hy_data_make(m, &d, &err);
    ck_assert_int_eq(st, HY_ERR_MODEL);
    ck_assert_ptr_null(d);
    ck_assert_msg(strstr(err.msg, cases[k].words) && strstr(err.msg, "cylinder"), "case %zu: %s", k,
                  err.msg);
    ck_assert_int_eq(err.src_line, cyl_line);
    ck_assert_int_gt(err.src_col, 0);
    ck_assert_str_eq(err.src_path, "bad.yaml");
    hy_model_free(m);
    free(bad);
  }
  free(text);
}
END_TEST

Suite* hydraulic_suite(void) {
  Suite* s = suite_create("hydraulic");
  TCase* tc = tcase_create("monolithic");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, work_cycles);
  tcase_add_test(tc, hydraulic_tangent_block);
  tcase_add_test(tc, block_tangent_solves_as_whole);
  tcase_add_test(tc, kept_positions_move_phi_to_first_order);
  tcase_add_test(tc, outputs_after_a_step_are_those_of_the_accepted_state);
  tcase_add_test(tc, hydraulic_newton_failure);
  tcase_add_test(tc, bad_cylinder_geometry_is_refused);
  suite_add_tcase(s, tc);
  return s;
}
