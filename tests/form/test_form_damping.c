// Viscous joint damping (`damping:` on joints, docs/mechanics.md "Joint damping"): a damped disk
// and slider against the closed form under every formulation that runs them, the energy balance
// with the dampers' work in W_ext, dca and hdca against tree, a spherical joint against its chain
// of revolute joints built by hand, the Newton tangent against central differences, and the
// messages for bad input.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "fixture.h"
#include "form/form_common.h"
#include "hydyn/hydyn.h"
#include "sim/sim.h"

// A disk (J = 2 kg m^2 about z) on a revolute joint and a slider (m = 3 kg along x) on a prismatic
// one, both from ground, no gravity: two uncoupled first-order decays zd' = -(c / J) zd.
static const char kDiskSlider[] =
    "name: disk-slider\n"
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - {name: disk, mass: 1, inertia: [1, 1.5, 2]}\n"
    "  - {name: slider, mass: 3, inertia: [1, 1, 1]}\n"
    "joints:\n"
    "  - {name: hinge, type: revolute, parent: ground, child: disk, z0: 10, zd0: %.17g,\n"
    "     damping: %.17g}\n"
    "  - {name: rail, type: prismatic, parent: ground, child: slider, axis: [1, 0, 0],\n"
    "     z0: 0.2, zd0: 2, damping: %.17g}\n"
    "solver: {dt: 1.0e-3, t_end: 2}\n";

enum { DISK_J = 2, SLIDER_M = 3 };
static const double kDiskC = 0.5, kSliderC = 1.2, kDiskW0 = 1.0;  // N m s/rad, N s/m, rad/s

static hy_model* disk_slider(double c_disk, double c_slider) {
  char text[1024];
  snprintf(text, sizeof text, kDiskSlider, kDiskW0 * 180 / HY_PI, c_disk, c_slider);
  return hy_test_load_text(text, "disk-slider.yaml");
}

// z(t) and zd(t) of z' = zd, zd' = -(c / J) zd from (z0, zd0).
static void decay(double z0, double zd0, double c, double J, double t, double* z, double* zd) {
  const double e = exp(-c * t / J);
  *zd = zd0 * e;
  *z = z0 + zd0 * J / c * (1 - e);
}

// Under each pair: the disk's and the slider's coordinates and rates follow the closed form to
// the method's accuracy. rk4 (h^4): 1e-12; the trapezoidal rule's global error on a decay of rate
// k is k^3 h^2 t / 12 relative: 0.4^3 1e-6 2 / 12 = 1e-8 of zd0 for the slider.
START_TEST(disk_and_slider_decay_as_the_closed_form) {
  const struct {
    hy_formulation form;
    hy_integrator integ;
    double tol;  // relative to the initial rate (times 1 s for the coordinate)
  } runs[] = {
      {HY_FORM_TREE, HY_INTEG_RK4, 1e-12},
      {HY_FORM_TREE, HY_INTEG_TRAPEZOIDAL, 2e-8},
      {HY_FORM_PENALTY, HY_INTEG_TRAPEZOIDAL, 2e-8},
      {HY_FORM_DOUBLE_STEP, HY_INTEG_TRAPEZOIDAL, 2e-8},
      {HY_FORM_DCA, HY_INTEG_RK4, 1e-12},
      {HY_FORM_HDCA, HY_INTEG_RK4, 1e-12},
  };
  hy_model* m = disk_slider(kDiskC, kSliderC);
  ck_assert_int_eq(m->sizes.ndamp, 2);
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    m->opt.formulation = runs[r].form;
    m->opt.integrator = runs[r].integ;
    hy_data* d = hy_test_make(m);
    hy_test_steps(m, d, 2000);
    double z, zd;
    const int zh = m->jnt_zadr[hy_model_joint(m, "hinge")];
    const int zr = m->jnt_zadr[hy_model_joint(m, "rail")];
    decay(10 * HY_PI / 180, kDiskW0, kDiskC, DISK_J, d->time, &z, &zd);
    const char* name = hy_formulation_name(runs[r].form);
    ck_assert_msg(
        fabs(d->zd[zh] - zd) < runs[r].tol * kDiskW0 && fabs(d->z[zh] - z) < runs[r].tol * kDiskW0,
        "%s: disk z %.15g zd %.15g, closed form %.15g %.15g", name, d->z[zh], d->zd[zh], z, zd);
    ck_assert(zd < 0.7 * kDiskW0);  // it did decay
    decay(0.2, 2, kSliderC, SLIDER_M, d->time, &z, &zd);
    ck_assert_msg(fabs(d->zd[zr] - zd) < runs[r].tol * 2 && fabs(d->z[zr] - z) < runs[r].tol * 2,
                  "%s: slider z %.15g zd %.15g, closed form %.15g %.15g", name, d->z[zr], d->zd[zr],
                  z, zd);
    hy_data_free(d);
  }
  hy_model_free(m);
}
END_TEST

//----- a 3-D double pendulum ----------------------------------------------------------------

// Two solid links, axes z then x (the second swings out of the first's plane), under gravity,
// with damping on both joints (c1, c2).
static hy_model* double_pendulum(double c1, double c2, int planar) {
  char text[2048];
  snprintf(text, sizeof text,
           "name: damped-pendulum\n"
           "gravity: [0, -9.81, 0]\n"
           "bodies:\n"
           "  - {name: link1, mass: 1, com: [0.5, 0, 0], inertia: [0.01, 0.09, 0.09]}\n"
           "  - {name: link2, mass: 0.5, com: [0, -0.25, 0], inertia: [0.012, 0.002, 0.012]}\n"
           "joints:\n"
           "  - {name: shoulder, type: revolute, parent: ground, child: link1, axis: [0, 0, 1],\n"
           "     z0: -60, zd0: 30, damping: %.17g}\n"
           "  - {name: elbow, type: revolute, parent: link1, child: link2,\n"
           "     parent_point: [1, 0, 0], axis: %s, z0: 30, zd0: 45, damping: %.17g}\n"
           "solver: {dt: 1.0e-3, t_end: 3}\n",
           c1, planar ? "[0, 0, 1]" : "[1, 0, 0]", c2);
  return hy_test_load_text(text, "damped-pendulum.yaml");
}

// E_kin + E_pot - W_ext stays constant while the dampers take a good part of the energy out: the
// dampers' work is in W_ext. The trapezoidal quadrature of the power errs by about h^2 / 12 of
// its second derivative (rates of a few rad/s: 1e-6 of the work); a damper's power left out, or
// of the wrong sign, would leave the whole work (or twice it).
START_TEST(energy_balance_holds_with_the_dampers_work) {
  hy_model* m = double_pendulum(0.05, 0.02, 0);
  ck_assert_int_eq(m->planar, 0);
  const struct {
    hy_formulation form;
    hy_integrator integ;
  } runs[] = {{HY_FORM_TREE, HY_INTEG_RK4},
              {HY_FORM_PENALTY, HY_INTEG_TRAPEZOIDAL},
              {HY_FORM_DOUBLE_STEP, HY_INTEG_TRAPEZOIDAL},
              {HY_FORM_HDCA, HY_INTEG_RK4}};
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    m->opt.formulation = runs[r].form;
    m->opt.integrator = runs[r].integ;
    hy_data* d = hy_test_make(m);
    const double e0 = hy_energy_total(d), mech0 = d->energy_kin + d->energy_pot;
    double drift = 0;
    for (int i = 0; i < 3000; i++) {
      ck_assert_int_eq(hy_step(m, d), HY_OK);
      drift = fmax(drift, fabs(hy_energy_total(d) - e0));
    }
    const char* name = hy_formulation_name(runs[r].form);
    // the dampers took energy out, as much as the mechanical energy lost
    ck_assert_msg(d->work_ext < -0.05, "%s: W_ext = %.3g J", name, d->work_ext);
    ck_assert_msg(drift < 1e-4 * fabs(d->work_ext), "%s: drift %.3g J of %.3g J of damper work",
                  name, drift, d->work_ext);
    ck_assert(d->energy_kin + d->energy_pot < mech0);
    hy_data_free(d);
  }
  hy_model_free(m);
}
END_TEST

// The largest |z_a - z_b| and |zd_a - zd_b| after n steps of m under two formulations.
static double run_apart(hy_model* m, hy_formulation fa, hy_formulation fb, long n) {
  m->opt.formulation = fa;
  hy_data* a = hy_test_make(m);
  m->opt.formulation = fb;
  hy_data* b = hy_test_make(m);
  double worst = 0;
  for (long i = 0; i < n; i++) {
    ck_assert_int_eq(hy_step(m, a), HY_OK);
    ck_assert_int_eq(hy_step(m, b), HY_OK);
    for (int q = 0; q < m->sizes.nz; q++) {
      worst = fmax(worst, fabs(a->z[q] - b->z[q]));
      worst = fmax(worst, fabs(a->zd[q] - b->zd[q]));
    }
  }
  hy_data_free(a);
  hy_data_free(b);
  return worst;
}

// dca and hdca take the damper as the joint's own force (DCA) or in the momentum's rate (HDCA):
// their trajectories equal tree's to rk4's accuracy, planar and in space, while the undamped
// model's trajectory is far from the damped one (the damping matters at this tolerance).
START_TEST(dca_and_hdca_damp_as_tree) {
  for (int planar = 1; planar >= 0; planar--) {
    hy_model* m = double_pendulum(0.3, 0.1, planar);
    ck_assert_int_eq(m->planar, planar);
    m->opt.integrator = HY_INTEG_RK4;
    const double dca = run_apart(m, HY_FORM_TREE, HY_FORM_DCA, 2000);
    const double hdca = run_apart(m, HY_FORM_TREE, HY_FORM_HDCA, 2000);
    ck_assert_msg(dca < 1e-9 && hdca < 1e-9, "%s: dca %.3g, hdca %.3g from tree",
                  planar ? "planar" : "spatial", dca, hdca);
    // the same run without damping ends far away
    hy_model* u = double_pendulum(0, 0, planar);
    u->opt.integrator = HY_INTEG_RK4;
    u->opt.formulation = HY_FORM_TREE;
    m->opt.formulation = HY_FORM_TREE;
    hy_data* a = hy_test_make(m);
    hy_data* b = hy_test_make(u);
    hy_test_steps(m, a, 2000);
    hy_test_steps(u, b, 2000);
    ck_assert(fabs(a->zd[0] - b->zd[0]) + fabs(a->zd[1] - b->zd[1]) > 1e-2);
    hy_data_free(a);
    hy_data_free(b);
    hy_model_free(u);
    hy_model_free(m);
  }
}
END_TEST

// A closed loop (hdca-case1, a four-bar) with a damper on its crank: dca's loop closure takes
// the crank's damper force as the joint's own, and its trajectory equals penalty's (trapezoidal,
// dt = 1e-4 s: its error about 1e-7) to 1e-6.
START_TEST(damped_loop_under_dca_as_penalty) {
  hy_model* m = hy_test_load("hdca-case1");
  const int crank = 0;
  m->jnt_damp[crank] = 2.0;
  m->sizes.ndamp = 1;
  hy_error err;
  ck_assert_msg(hy_model_check(m, &err) == HY_OK, "%s", err.msg);
  m->opt.dt = 1e-4;
  m->opt.integrator = HY_INTEG_AUTO;
  m->opt.formulation = HY_FORM_PENALTY;
  hy_data* p = hy_test_make(m);
  m->opt.formulation = HY_FORM_DCA;
  m->opt.integrator = HY_INTEG_RK4;
  hy_data* q = hy_test_make(m);
  double worst = 0;
  for (int i = 0; i < 5000; i++) {
    ck_assert_int_eq(hy_step(m, p), HY_OK);
    ck_assert_int_eq(hy_step(m, q), HY_OK);
    for (int k = 0; k < m->sizes.nz; k++) worst = fmax(worst, fabs(p->z[k] - q->z[k]));
  }
  ck_assert_msg(worst < 1e-6, "dca and penalty %.3g rad apart", worst);
  // and the damper mattered: W_ext took energy out
  ck_assert(p->work_ext < -1e-3 && q->work_ext < -1e-3);
  hy_data_free(p);
  hy_data_free(q);
  hy_model_free(m);
}
END_TEST

//----- a spherical joint ----------------------------------------------------------------------

// A ball (inertia diag(0.2, 0.3, 0.4)) on a spherical joint at its centre, no gravity, spun
// about z: the first Cardan angle's rate decays as exp(-c1 t / J_zz) while the others stay 0.
START_TEST(spherical_spin_decays_about_its_axis) {
  hy_model* m = hy_test_load_text(
      "name: ball\n"
      "gravity: [0, 0, 0]\n"
      "bodies:\n"
      "  - {name: ball, mass: 2, inertia: [0.2, 0.3, 0.4]}\n"
      "joints:\n"
      "  - {name: socket, type: spherical, parent: ground, child: ball, zd0: [90, 0, 0],\n"
      "     damping: [0.1, 0.7, 0.3]}\n"
      "solver: {dt: 1.0e-3, t_end: 1, integrator: rk4}\n",
      "ball.yaml");
  ck_assert_int_eq(m->sizes.ndamp, 3);
  hy_data* d = hy_test_make(m);
  hy_test_steps(m, d, 1000);
  double z, zd;
  decay(0, HY_PI / 2, 0.1, 0.4, d->time, &z, &zd);
  ck_assert_msg(fabs(d->zd[0] - zd) < 1e-12 && fabs(d->z[0] - z) < 1e-12,
                "yaw %.15g rate %.15g, closed form %.15g %.15g", d->z[0], d->zd[0], z, zd);
  ck_assert(fabs(d->z[1]) < 1e-14 && fabs(d->z[2]) < 1e-14);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

// A spherical joint with damping [c1, c2, c3] moves as the chain it stands for, built by hand:
// revolute joints about z, y and x through two massless bodies, damped c1, c2, c3 (the list
// goes to the coordinates in their order). A tumble about a general axis, where the three
// dampings act on three different rates; compared with the same tumble undamped, which ends
// far away.
START_TEST(spherical_damping_as_a_chain_of_revolute_joints) {
  static const char kSphere[] =
      "name: tumble\n"
      "gravity: [0, 0, 0]\n"
      "bodies:\n"
      "  - {name: ball, mass: 2, inertia: [0.2, 0.3, 0.4]}\n"
      "joints:\n"
      "  - {name: socket, type: spherical, parent: ground, child: ball, z0: [10, 20, -15],\n"
      "     zd0: [40, -30, 60], damping: [%g, %g, %g]}\n"
      "solver: {dt: 1.0e-3, t_end: 1, integrator: rk4}\n";
  static const char kChain[] =
      "name: tumble-chain\n"
      "gravity: [0, 0, 0]\n"
      "bodies:\n"
      "  - {name: gimbal1, mass: 0}\n"
      "  - {name: gimbal2, mass: 0}\n"
      "  - {name: ball, mass: 2, inertia: [0.2, 0.3, 0.4]}\n"
      "joints:\n"
      "  - {name: yaw, type: revolute, parent: ground, child: gimbal1, axis: [0, 0, 1],\n"
      "     z0: 10, zd0: 40, damping: 0.1}\n"
      "  - {name: pitch, type: revolute, parent: gimbal1, child: gimbal2, axis: [0, 1, 0],\n"
      "     z0: 20, zd0: -30, damping: 0.7}\n"
      "  - {name: roll, type: revolute, parent: gimbal2, child: ball, axis: [1, 0, 0],\n"
      "     z0: -15, zd0: 60, damping: 0.3}\n"
      "solver: {dt: 1.0e-3, t_end: 1, integrator: rk4}\n";
  char text[1024];
  snprintf(text, sizeof text, kSphere, 0.1, 0.7, 0.3);
  hy_model* s = hy_test_load_text(text, "tumble.yaml");
  snprintf(text, sizeof text, kSphere, 0.0, 0.0, 0.0);
  hy_model* u = hy_test_load_text(text, "tumble-undamped.yaml");
  hy_model* c = hy_test_load_text(kChain, "tumble-chain.yaml");
  hy_data* ds = hy_test_make(s);
  hy_data* du = hy_test_make(u);
  hy_data* dc = hy_test_make(c);
  double worst = 0, apart = 0;
  for (int i = 0; i < 800; i++) {  // the pitch stays below 60 deg: no re-anchored chart
    ck_assert_int_eq(hy_step(s, ds), HY_OK);
    ck_assert_int_eq(hy_step(u, du), HY_OK);
    ck_assert_int_eq(hy_step(c, dc), HY_OK);
    for (int k = 0; k < 3; k++) {
      worst = fmax(worst, fabs(ds->z[k] - dc->z[k]) + fabs(ds->zd[k] - dc->zd[k]));
      apart = fmax(apart, fabs(ds->zd[k] - du->zd[k]));
    }
  }
  ck_assert_int_eq(ds->stats.nreanchor, 0);
  ck_assert_msg(worst < 1e-12, "spherical joint and chain %.3g apart", worst);
  ck_assert_msg(apart > 0.05, "the damping changed the rates by %.3g rad/s only", apart);
  hy_data_free(ds);
  hy_data_free(du);
  hy_data_free(dc);
  hy_model_free(s);
  hy_model_free(u);
  hy_model_free(c);
}
END_TEST

//----- the Newton tangent -----------------------------------------------------------------------

// The mechanical block of the analytic tangent (n x n, the first n unknowns) and its central
// differences F, at the unknowns x (a step of m->opt.dt from d's state); both rows scaled as the
// residual. The state is left as it was.
static void tangent_and_fd(hy_model* m, hy_data* d, const double* x_in, int n, double* A,
                           double* F) {
  hy_work* w = d->work_;
  hy_form* fw = hy_sim_form(m, d);
  double x[16], fp[16], fm[16], J[16 * 16];
  hy_trap_begin(&w->integ, fw, m->opt.dt, d->time + m->opt.dt);
  const int nt = w->integ.trap.n;
  ck_assert_int_eq(nt, n);
  memcpy(x, x_in, sizeof(double) * (size_t)n);
  ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, fp), HY_OK);
  hy_trap_tangent(&w->integ, fw, J);
  memcpy(A, J, sizeof(double) * (size_t)(n * n));
  for (int c = 0; c < n; c++) {
    const double h = 1e-6;
    x[c] += h;
    ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, fp), HY_OK);
    x[c] -= 2 * h;
    ck_assert_int_eq(hy_trap_residual(&w->integ, fw, x, fm), HY_OK);
    x[c] += h;
    for (int r = 0; r < n; r++) F[r * n + c] = (fp[r] - fm[r]) / (2 * h);
  }
  hy_trap_abort(&w->integ, fw);
}

// The predicted unknowns of a step from d's state, moved a little off (the residual is then not
// zero and the velocities differ from the state's).
static int predicted(hy_model* m, hy_data* d, double* x) {
  hy_work* w = d->work_;
  hy_form* fw = hy_sim_form(m, d);
  hy_trap_begin(&w->integ, fw, m->opt.dt, d->time + m->opt.dt);
  const int n = w->integ.trap.n;
  ck_assert_int_le(n, 16);
  memcpy(x, w->integ.trap.x, sizeof(double) * (size_t)n);
  hy_trap_abort(&w->integ, fw);
  for (int i = 0; i < n; i++) x[i] += 1e-4 * (i + 1);
  return n;
}

// The disk and slider: M' is constant and Q' = -C zd, so the analytic tangent is the exact
// derivative of the residual, dampers and all: equal to central differences to round-off, under
// each formulation with a residual.
START_TEST(tangent_of_a_linear_damped_model_is_exact) {
  hy_model* m = disk_slider(kDiskC, kSliderC);
  m->opt.integrator = HY_INTEG_TRAPEZOIDAL;
  const hy_formulation forms[] = {HY_FORM_TREE, HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  for (int f = 0; f < 3; f++) {
    m->opt.formulation = forms[f];
    hy_data* d = hy_test_make(m);
    double x[16], A[256], F[256];
    const int n = predicted(m, d, x);
    tangent_and_fd(m, d, x, n, A, F);
    double worst = 0, scale = 0;
    for (int i = 0; i < n * n; i++) {
      worst = fmax(worst, fabs(A[i] - F[i]));
      scale = fmax(scale, fabs(F[i]));
    }
    ck_assert(scale > 0.5);
    ck_assert_msg(worst < 1e-8 * scale, "%s: tangent and differences %.3g apart (of %.3g)",
                  hy_formulation_name(forms[f]), worst, scale);
    hy_data_free(d);
  }
  hy_model_free(m);
}
END_TEST

// The 3-D double pendulum under gravity, where the analytic tangent leaves out second-order
// terms of the dynamics (dM'/dz, dQ'/dz): the same at the same unknowns with and without the
// dampers, so the dampers' part of the tangent, A_damped - A_undamped, must equal that of the
// central differences, and it is h/2 c_i on the diagonal.
START_TEST(tangent_dampers_part_matches_central_differences) {
  const double c1 = 0.8, c2 = 0.3;
  hy_model* md = double_pendulum(c1, c2, 0);
  hy_model* mu = double_pendulum(0, 0, 0);
  const hy_formulation forms[] = {HY_FORM_TREE, HY_FORM_PENALTY, HY_FORM_DOUBLE_STEP};
  for (int f = 0; f < 3; f++) {
    md->opt.formulation = mu->opt.formulation = forms[f];
    md->opt.integrator = mu->opt.integrator = HY_INTEG_TRAPEZOIDAL;
    hy_data* dd = hy_test_make(md);
    hy_data* du = hy_test_make(mu);
    // mid-swing, the undamped data set to the damped one's state
    hy_test_steps(md, dd, 300);
    const unsigned seg = HY_STATE_TIME | HY_STATE_POS | HY_STATE_VEL;
    double buf[64];
    ck_assert_int_le(hy_state_size(md, dd, seg), 64);
    ck_assert_int_eq(hy_state_get(md, dd, seg, buf), HY_OK);
    ck_assert_int_eq(hy_state_set(mu, du, seg, buf), HY_OK);
    // the start's accelerations too, which the trapezoidal relations carry into zdd at x: the
    // terms the tangent leaves out (dM'/dz zdd) are then the same in both
    memcpy(du->zdd, dd->zdd, sizeof(double) * (size_t)md->sizes.nz);
    double x[16], Ad[256], Fd[256], Au[256], Fu[256];
    const int n = predicted(md, dd, x);
    tangent_and_fd(md, dd, x, n, Ad, Fd);
    tangent_and_fd(mu, du, x, n, Au, Fu);
    const double h = md->opt.dt, c[2] = {c1, c2};
    double worst = 0;
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < n; k++) {
        const double a = Ad[i * n + k] - Au[i * n + k], fd = Fd[i * n + k] - Fu[i * n + k];
        const double want = i == k ? h / 2 * c[i] : 0;
        worst = fmax(worst, fabs(a - fd));
        ck_assert_msg(fabs(a - want) < 1e-15, "%s: analytic dampers' part [%d][%d] = %.6g",
                      hy_formulation_name(forms[f]), i, k, a);
      }
    }
    // central differences of a residual of size ~1 with steps of 1e-6: round-off ~1e-10
    ck_assert_msg(worst < 1e-8, "%s: the dampers' part differs from differences by %.3g (of %.3g)",
                  hy_formulation_name(forms[f]), worst, h / 2 * c1);
    hy_data_free(dd);
    hy_data_free(du);
  }
  hy_model_free(md);
  hy_model_free(mu);
}
END_TEST

//----- input ----------------------------------------------------------------------------------

static const char kHead[] =
    "bodies:\n"
    "  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
    "joints:\n";

START_TEST(bad_damping_is_refused_with_its_place) {
  char text[1024];
  snprintf(text, sizeof text,
           "%s  - {name: j, type: revolute, parent: ground, child: a, damping: -1}\n", kHead);
  hy_test_expect_load_error(text, "joint 'j': damping must be >= 0 (N m s/rad), got -1", 4, 5);
  snprintf(text, sizeof text,
           "%s  - {name: j, type: prismatic, parent: ground, child: a, damping: 2e9}\n", kHead);
  hy_test_expect_load_error(text, "joint 'j': damping must be at most 1e+09 (N s/m), got 2e+09", 4,
                            5);
  snprintf(text, sizeof text,
           "%s  - {name: j, type: revolute, parent: ground, child: a, damping: [1, 2]}\n", kHead);
  hy_test_expect_load_error(
      text,
      "joints[0] 'j': damping: a revolute joint has one coordinate: expected a number >= "
      "0 (N m s/rad), got a list of 2",
      4, 66);
  snprintf(text, sizeof text,
           "%s  - name: j\n    type: spherical\n    parent: ground\n    child: a\n"
           "    damping: [1, 2]\n",
           kHead);
  hy_test_expect_load_error(
      text,
      "joints[0] 'j': damping: a spherical joint has 3 coordinates: expected one number "
      "for all or a list of 3 numbers >= 0 (N m s/rad, N m s/rad, N m s/rad), got a list "
      "of 2",
      8, 14);
  // a cylindrical joint's slide, then its angle
  snprintf(text, sizeof text,
           "%s  - name: j\n    type: cylindrical\n    parent: ground\n    child: a\n"
           "    damping: [-1, 2]\n",
           kHead);
  hy_test_expect_load_error(text, "cylindrical joint 'j': damping[0] must be >= 0 (N s/m), got -1",
                            4, 5);
  snprintf(text, sizeof text,
           "%s  - name: j\n    type: cylindrical\n    parent: ground\n    child: a\n"
           "    damping: [1, -2]\n",
           kHead);
  hy_test_expect_load_error(
      text, "cylindrical joint 'j': damping[1] must be >= 0 (N m s/rad), got -2", 4, 5);
  snprintf(text, sizeof text,
           "%s  - name: j\n    type: universal\n    parent: ground\n    child: a\n"
           "    damping: {c: 1}\n",
           kHead);
  hy_test_expect_load_error(text, "joints[0] 'j': damping: expected a number, got a mapping", 8,
                            14);
}
END_TEST

// One number damps every coordinate of a joint of several; a list each its own. hydyn info's
// table of joints then shows the column.
START_TEST(one_number_damps_every_coordinate) {
  hy_model* m = hy_test_load_text(
      "bodies:\n"
      "  - {name: a, mass: 1, inertia: [1, 1, 1]}\n"
      "  - {name: b, mass: 1, inertia: [1, 1, 1]}\n"
      "joints:\n"
      "  - {name: s, type: cylindrical, parent: ground, child: a, damping: 4}\n"
      "  - {name: f, type: free, parent: a, child: b, damping: [1, 2, 3, 4, 5, 6]}\n",
      "damp-all.yaml");
  ck_assert_int_eq(m->sizes.ndamp, 8);
  const char* names[8] = {"s.1", "s.2", "f.1", "f.2", "f.3", "f.4", "f.5", "f.6"};
  const double want[8] = {4, 4, 1, 2, 3, 4, 5, 6};
  for (int k = 0; k < 8; k++) {
    const int j = hy_model_joint(m, names[k]);
    ck_assert_int_ge(j, 0);
    ck_assert_double_eq(m->jnt_damp[j], want[k]);
  }
  hy_model_free(m);
  // the builder: dampings past a joint's coordinates must stay 0
  hy_spec* s = NULL;
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  hy_body_def b = hy_body_def_default();
  snprintf(b.name, sizeof b.name, "a");
  b.mass = 1;
  b.inertia[0] = b.inertia[4] = b.inertia[8] = 1;
  ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
  hy_joint_def j = hy_joint_def_default();
  snprintf(j.name, sizeof j.name, "j");
  snprintf(j.child, sizeof j.child, "a");
  j.dampings[1] = 3;
  ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  hy_error err;
  ck_assert_int_eq(hy_model_compile(s, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "revolute joint 'j' has 1 coordinate: dampings[1] must be 0, got 3");
  hy_spec_free(s);
  // and a damping that is not a finite number
  ck_assert_int_eq(hy_spec_create(&s), HY_OK);
  ck_assert_int_eq(hy_spec_add_body(s, &b), HY_OK);
  j.dampings[1] = 0;
  j.damping = NAN;
  ck_assert_int_eq(hy_spec_add_joint(s, &j), HY_OK);
  ck_assert_int_eq(hy_model_compile(s, &m, &err), HY_ERR_MODEL);
  ck_assert_str_eq(err.msg, "joint 'j': damping must be a finite number (N m s/rad), got nan");
  hy_spec_free(s);
}
END_TEST

// ali1 and ali3p refuse a damped model, naming the joint.
START_TEST(global_formulations_refuse_damping) {
  hy_model* m = double_pendulum(0, 0.25, 1);
  const hy_formulation forms[2] = {HY_FORM_ALI1, HY_FORM_ALI3P};
  for (int f = 0; f < 2; f++) {
    m->opt.formulation = forms[f];
    m->opt.integrator = HY_INTEG_AUTO;
    hy_data* d = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(hy_data_make(m, &d, &err), HY_ERR_MODEL);
    char want[256];
    snprintf(want, sizeof want,
             "formulation %s has no joint damping yet: joint 'elbow' of model 'damped-pendulum' "
             "has damping 0.25 N m s/rad; use tree, penalty, double-step, dca or hdca",
             hy_formulation_name(forms[f]));
    ck_assert_str_eq(err.msg, want);
  }
  hy_model_free(m);
}
END_TEST

Suite* form_damping_suite(void) {
  Suite* s = suite_create("form_damping");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, disk_and_slider_decay_as_the_closed_form);
  tcase_add_test(tc, energy_balance_holds_with_the_dampers_work);
  tcase_add_test(tc, dca_and_hdca_damp_as_tree);
  tcase_add_test(tc, damped_loop_under_dca_as_penalty);
  tcase_add_test(tc, spherical_spin_decays_about_its_axis);
  tcase_add_test(tc, spherical_damping_as_a_chain_of_revolute_joints);
  tcase_add_test(tc, tangent_of_a_linear_damped_model_is_exact);
  tcase_add_test(tc, tangent_dampers_part_matches_central_differences);
  tcase_add_test(tc, bad_damping_is_refused_with_its_place);
  tcase_add_test(tc, one_number_damps_every_coordinate);
  tcase_add_test(tc, global_formulations_refuse_damping);
  suite_add_tcase(s, tc);
  return s;
}
