// CSV recorder (src/io/io_csv.c): header with units, rows read back bit for bit, quoting,
// flushing while open, open failures, the closed-loop and force columns of a real model, the
// hydraulic columns of four-bar-a.
#define _POSIX_C_SOURCE 200809L  // mkdtemp

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "io/io.h"

// A two-joint model built by hand: only what the recorder reads (sizes, joint names, types and
// coordinate addresses). The second joint's coordinate comes first, to check jnt_zadr is used.
typedef struct csv_case {
  hy_model m;
  char jnt_name[2 * HY_NAME_MAX];
  int jnt_type[2];
  int jnt_zadr[2];
  hy_data d;
  double z[2], zd[2];
  char dir[64];
  char path[128];
} csv_case;

static void csv_case_init(csv_case* c, const char* name0, const char* name1) {
  memset(c, 0, sizeof *c);
  snprintf(c->m.name, sizeof c->m.name, "hand-made");
  c->m.sizes.nbody = 2;
  c->m.sizes.nz = 2;
  snprintf(c->jnt_name, HY_NAME_MAX, "%s", name0);
  snprintf(c->jnt_name + HY_NAME_MAX, HY_NAME_MAX, "%s", name1);
  c->jnt_type[0] = HY_JOINT_REVOLUTE;
  c->jnt_type[1] = HY_JOINT_PRISMATIC;
  c->jnt_zadr[0] = 1;
  c->jnt_zadr[1] = 0;
  c->m.jnt_name = c->jnt_name;
  c->m.body_name = c->jnt_name;  // the body_x: channels are named after the bodies
  c->m.jnt_type = c->jnt_type;
  c->m.jnt_zadr = c->jnt_zadr;
  c->d.z = c->z;
  c->d.zd = c->zd;
  snprintf(c->dir, sizeof c->dir, "/tmp/hydyn_csv_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(c->dir));
  snprintf(c->path, sizeof c->path, "%s/out.csv", c->dir);
}

static void csv_case_cleanup(csv_case* c) {
  remove(c->path);
  rmdir(c->dir);
}

// State number k: values that need all 17 digits.
static void set_state(csv_case* c, int k) {
  c->d.time = k * 0.1;
  c->z[0] = 1.0 / 3.0 + k;               // prismatic joint's coordinate (zadr 0)
  c->z[1] = -3.141592653589793 / 7 * k;  // revolute
  c->zd[0] = 1e-300 * (k + 1);
  c->zd[1] = -2.5e12 / 3.0;
  c->d.energy_kin = 0.1 * (k + 1);
  c->d.energy_pot = -9.81 * k / 3.0;
  c->d.work_ext = 1e-17 * k;
}

static char* read_all(const char* path) {
  FILE* fp = fopen(path, "rb");
  ck_assert_ptr_nonnull(fp);
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  buf[n] = '\0';
  fclose(fp);
  return buf;
}

#define ASSERT_TAIL(text, tail)                                      \
  do {                                                               \
    const char* t_ = (text);                                         \
    size_t nt_ = strlen(t_), nw_ = strlen(tail);                     \
    ck_assert_msg(nt_ >= nw_ && strcmp(t_ + nt_ - nw_, (tail)) == 0, \
                  "'%s' does not end with '%s'", t_, (tail));        \
  } while (0)

static int count_lines(const char* s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

START_TEST(header_and_rows_round_trip) {
  csv_case c;
  csv_case_init(&c, "j1", "slider");
  hy_csv* csv = NULL;
  hy_error err;
  ck_assert_int_eq(hy_csv_open(c.path, &c.m, &c.d, &csv, &err), HY_OK);
  ck_assert_ptr_nonnull(csv);
  for (int k = 0; k < 3; k++) {
    set_state(&c, k);
    ck_assert_int_eq(hy_csv_write(csv, &c.m, &c.d, NULL), HY_OK);
  }
  ck_assert_int_eq(hy_csv_close(csv), HY_OK);

  char* text = read_all(c.path);
  char* line = strtok(text, "\n");
  ck_assert_str_eq(line,
                   "time[s],z:j1[rad],z:slider[m],zd:j1[rad/s],zd:slider[m/s],"
                   "E_kin[J],E_pot[J],W_ext[J],E_total[J]");
  for (int k = 0; k < 3; k++) {
    line = strtok(NULL, "\n");
    ck_assert_ptr_nonnull(line);
    set_state(&c, k);
    // joints in model order: j1 -> z[1], slider -> z[0]
    const double expect[9] = {c.d.time,       c.z[1],       c.z[0],
                              c.zd[1],        c.zd[0],      c.d.energy_kin,
                              c.d.energy_pot, c.d.work_ext, hy_energy_total(&c.d)};
    char* p = line;
    for (int col = 0; col < 9; col++) {
      char* end;
      double v = strtod(p, &end);
      ck_assert_msg(end != p, "row %d col %d: no number in '%s'", k, col, p);
      ck_assert_msg(memcmp(&v, &expect[col], sizeof v) == 0, "row %d col %d: %.17g != %.17g", k,
                    col, v, expect[col]);
      ck_assert(*end == (col < 8 ? ',' : '\0'));
      p = end + 1;
    }
  }
  ck_assert_ptr_null(strtok(NULL, "\n"));
  csv_case_cleanup(&c);
}
END_TEST

START_TEST(names_are_quoted) {
  csv_case c;
  csv_case_init(&c, "arm,left", "say \"hi\"");
  hy_csv* csv = NULL;
  ck_assert_int_eq(hy_csv_open(c.path, &c.m, &c.d, &csv, NULL), HY_OK);
  ck_assert_int_eq(hy_csv_close(csv), HY_OK);
  const char* text = read_all(c.path);
  ck_assert_str_eq(text,
                   "time[s],\"z:arm,left[rad]\",\"z:say \"\"hi\"\"[m]\",\"zd:arm,left[rad/s]\","
                   "\"zd:say \"\"hi\"\"[m/s]\",E_kin[J],E_pot[J],W_ext[J],E_total[J]\n");
  csv_case_cleanup(&c);
}
END_TEST

START_TEST(rows_reach_the_file_while_open) {
  // A run that dies without closing keeps everything up to the last flush: the header at once,
  // then every HY_RESULTS_FLUSH_ROWS rows.
  csv_case c;
  csv_case_init(&c, "a", "b");
  hy_csv* csv = NULL;
  ck_assert_int_eq(hy_csv_open(c.path, &c.m, &c.d, &csv, NULL), HY_OK);
  ck_assert_int_eq(count_lines(read_all(c.path)), 1);
  for (int k = 0; k < HY_RESULTS_FLUSH_ROWS + 3; k++) {
    set_state(&c, k);
    ck_assert_int_eq(hy_csv_write(csv, &c.m, &c.d, NULL), HY_OK);
  }
  ck_assert_int_ge(count_lines(read_all(c.path)), 1 + 64);
  FILE* fp = fopen(c.path, "rb");  // whole rows only: the file ends with a line break
  ck_assert_ptr_nonnull(fp);
  ck_assert_int_eq(fseek(fp, -1, SEEK_END), 0);
  ck_assert_int_eq(fgetc(fp), '\n');
  fclose(fp);
  ck_assert_int_eq(hy_csv_close(csv), HY_OK);
  ck_assert_int_eq(count_lines(read_all(c.path)), 1 + HY_RESULTS_FLUSH_ROWS + 3);
  csv_case_cleanup(&c);
}
END_TEST

START_TEST(open_failures) {
  csv_case c;
  csv_case_init(&c, "a", "b");
  hy_csv* csv = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const char* bad = "/nonexistent-dir-hydyn/x.csv";
  ck_assert_int_eq(hy_csv_open(bad, &c.m, &c.d, &csv, &err), HY_ERR_IO);
  ck_assert_ptr_null(csv);
  ck_assert_int_eq(err.code, HY_ERR_IO);
  ck_assert_ptr_nonnull(strstr(err.msg, bad));
  ck_assert_int_eq(hy_csv_open(NULL, &c.m, &c.d, &csv, NULL), HY_ERR_ARG);
  ck_assert_int_eq(hy_csv_open(c.path, NULL, &c.d, &csv, NULL), HY_ERR_ARG);
  ck_assert_int_eq(hy_csv_close(NULL), HY_OK);
  csv_case_cleanup(&c);
}
END_TEST

// A row holding a value that is not finite is not written: the file keeps its rows before, and
// the error names the quantity and the time.
START_TEST(nonfinite_rows_are_refused) {
  csv_case c;
  csv_case_init(&c, "j1", "slider");
  hy_csv* csv = NULL;
  ck_assert_int_eq(hy_csv_open(c.path, &c.m, &c.d, &csv, NULL), HY_OK);
  set_state(&c, 1);
  ck_assert_int_eq(hy_csv_write(csv, &c.m, &c.d, NULL), HY_OK);
  hy_error err;
  memset(&err, 0, sizeof err);
  c.d.energy_pot = -INFINITY;
  ck_assert_int_eq(hy_csv_write(csv, &c.m, &c.d, &err), HY_ERR_NAN);
  ck_assert_msg(strstr(err.msg, "E_pot is not finite"), "%s", err.msg);
  set_state(&c, 2);
  c.zd[1] = NAN;
  ck_assert_int_eq(hy_csv_write(csv, &c.m, &c.d, &err), HY_ERR_NAN);
  // zd[1] is the coordinate of joint j1 (jnt_zadr): the message names the channel
  ck_assert_msg(strstr(err.msg, "zd:j1 is not finite at t = 0.2 s"), "%s", err.msg);
  ck_assert_int_eq(hy_csv_close(csv), HY_OK);
  const char* text = read_all(c.path);
  ck_assert_int_eq(count_lines(text), 2);  // the header and the one finite row
  ck_assert_ptr_null(strstr(text, "nan"));
  ck_assert_ptr_null(strstr(text, "inf"));
  csv_case_cleanup(&c);
}
END_TEST

// Parses the comma-separated numbers of a row into v; returns how many there were.
static int parse_row(const char* line, double* v, int max) {
  int n = 0;
  const char* p = line;
  while (n < max) {
    char* end;
    v[n++] = strtod(p, &end);
    ck_assert_msg(end != p, "field %d: no number in '%s'", n - 1, p);
    if (*end != ',') break;
    p = end + 1;
  }
  return n;
}

// Runs four-bar-a-held (one cut joint, one force element) under `form` for a few steps and checks
// the columns after the energies against the data, bit for bit.
static void check_loop_columns(hy_formulation form, const char* expect_tail) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load(HY_SOURCE_DIR "/models/four-bar-a-held.yaml", &m, &err), HY_OK);
  m->opt.formulation = form;
  hy_data* d = NULL;
  ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
  csv_case c;
  csv_case_init(&c, "unused", "unused");  // for its temporary file
  hy_csv* csv = NULL;
  ck_assert_int_eq(hy_csv_open(c.path, m, d, &csv, &err), HY_OK);
  ck_assert_int_eq(hy_csv_write(csv, m, d, NULL), HY_OK);
  hy_test_steps(m, d, 3);
  ck_assert_int_eq(hy_csv_write(csv, m, d, NULL), HY_OK);
  ck_assert_int_eq(hy_csv_close(csv), HY_OK);

  char* text = read_all(c.path);
  char* line = strtok(text, "\n");
  const char* head =
      "time[s],z:O[rad],z:C[rad],z:D[rad],zd:O[rad/s],zd:C[rad/s],zd:D[rad/s],"
      "E_kin[J],E_pot[J],W_ext[J],E_total[J]";
  ck_assert_msg(strncmp(line, head, strlen(head)) == 0, "header: %s", line);
  ck_assert_str_eq(line + strlen(head), expect_tail);
  ck_assert_ptr_nonnull(strtok(NULL, "\n"));  // t = 0
  line = strtok(NULL, "\n");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_null(strtok(NULL, "\n"));
  double v[32];
  const int n = parse_row(line, v, 32);
  ck_assert_int_eq(n, 11 + 4 + 2);  // time, 3 z, 3 zd, 4 energies; violation, iter, F, len;
                                    // residual, step wall time
  const double expect[4] = {d->violation, (double)d->stats.niter_last, d->frc_force[0],
                            d->frc_len[0]};
  for (int k = 0; k < 4; k++) {
    ck_assert_msg(memcmp(&v[11 + k], &expect[k], sizeof(double)) == 0, "column %d: %.17g != %.17g",
                  11 + k, v[11 + k], expect[k]);
  }
  ck_assert_int_ge(d->stats.niter_last, 1);
  ck_assert_double_gt(d->frc_force[0], 11000.0);  // the equilibrium force, 11029.38 N
  csv_case_cleanup(&c);
  hy_data_free(d);
  hy_model_free(m);
}

START_TEST(closed_loop_and_force_columns) {
  check_loop_columns(HY_FORM_PENALTY,
                     ",violation[m],iter,F:cylinder[N],len:cylinder[m],residual,step_wall[s]");
  check_loop_columns(HY_FORM_DOUBLE_STEP,
                     ",violation[m],iter,F:cylinder[N],len:cylinder[m],residual,step_wall[s]");
}
END_TEST

START_TEST(force_names_are_quoted) {
  // force columns go through the same quoting as joint columns
  hy_model* m = NULL;
  ck_assert_int_eq(hy_model_load(HY_SOURCE_DIR "/models/four-bar-a-held.yaml", &m, NULL), HY_OK);
  snprintf(m->frc_name, HY_NAME_MAX, "cyl,1");
  csv_case c;
  csv_case_init(&c, "unused", "unused");  // for its temporary file
  c.d.integrator = HY_INTEG_TRAPEZOIDAL;  // the header of a run with Newton iterations
  hy_csv* csv = NULL;
  ck_assert_int_eq(hy_csv_open(c.path, m, &c.d, &csv, NULL), HY_OK);
  ck_assert_int_eq(hy_csv_close(csv), HY_OK);
  ASSERT_TAIL(read_all(c.path),
              ",violation[m],iter,\"F:cyl,1[N]\",\"len:cyl,1[m]\",residual,step_wall[s]\n");
  csv_case_cleanup(&c);
  hy_model_free(m);
}
END_TEST

// The hydraulic columns of four-bar-a (3 volumes, 1 valve, 1 cylinder): header, and rows at
// t = 0 and after the valve has opened (t = 1.2 s), bit for bit against the data.
START_TEST(hydraulic_columns) {
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_model_load(HY_SOURCE_DIR "/models/four-bar-a.yaml", &m, &err), HY_OK);
  ck_assert_int_eq(m->sizes.nvol, 3);
  ck_assert_int_eq(m->sizes.nvlv, 1);
  ck_assert_int_eq(m->sizes.ncyl, 1);
  hy_data* d = NULL;
  ck_assert_int_eq(hy_data_make(m, &d, NULL), HY_OK);
  csv_case c;
  csv_case_init(&c, "unused", "unused");  // for its temporary file
  hy_csv* csv = NULL;
  ck_assert_int_eq(hy_csv_open(c.path, m, d, &csv, &err), HY_OK);
  enum { NCOL = 11 + 4 + 3 + 1 + 3 + 3 };  // through len:, then p, U, cylinder, work columns
  enum { NSTAT = 2 };                      // then residual, step wall time
  double expect[2][NCOL - 15];
  for (int r = 0; r < 2; r++) {
    if (r == 1) {
      hy_test_steps(m, d, 1200);
    }
    ck_assert_int_eq(hy_csv_write(csv, m, d, NULL), HY_OK);
    const double row[NCOL - 15] = {d->p[0],         d->p[1],
                                   d->p[2],         d->U[0],
                                   d->cyl_F_hyd[0], d->cyl_len_a[0],
                                   d->cyl_len_b[0], d->work_hyd - d->diss_visc + d->work_damp,
                                   d->diss_visc,    d->work_damp};
    memcpy(expect[r], row, sizeof row);
  }
  ck_assert_int_eq(hy_csv_close(csv), HY_OK);

  char* text = read_all(c.path);
  char* line = strtok(text, "\n");
  ASSERT_TAIL(line,
              ",E_total[J],violation[m],iter,F:cylinder[N],len:cylinder[m],p:V1[Pa],p:V2[Pa],"
              "p:V3[Pa],U:dcv[V],F_hyd:cylinder[N],len_a:cylinder[m],len_b:cylinder[m],W_act[J],"
              "D_visc[J],W_damp[J],residual,step_wall[s]");
  for (int r = 0; r < 2; r++) {
    line = strtok(NULL, "\n");
    ck_assert_ptr_nonnull(line);
    double v[32];
    ck_assert_int_eq(parse_row(line, v, 32), NCOL + NSTAT);
    for (int k = 15; k < NCOL; k++) {
      ck_assert_msg(memcmp(&v[k], &expect[r][k - 15], sizeof(double)) == 0,
                    "row %d column %d: %.17g != %.17g", r, k, v[k], expect[r][k - 15]);
    }
    // physics the columns must agree with: F_hyd = p_a A_a - p_b A_b (V2 piston side, V3 rod
    // side), the chambers fill the stroke, the cylinder force F: is F_hyd plus viscous and
    // damper forces
    const double F_hyd = v[16] * m->cyl_area_a[0] - v[17] * m->cyl_area_b[0];
    ck_assert_double_eq_tol(v[19], F_hyd, 1e-9 * fabs(F_hyd));
    ck_assert_double_eq_tol(v[20] + v[21], m->cyl_stroke[0], 1e-12);
    ck_assert_double_eq_tol(v[13], v[19] + d->cyl_F_visc[0] + d->cyl_F_damp[0],
                            r == 0 ? 1e-9 * fabs(v[13]) : 1e-6 * fabs(v[13]) + 1e3);
    if (r == 0) {
      // at rest at t = 0: the throttle joins V1 and V2, the valve is closed, the cylinder holds
      // the mechanism with its equilibrium force, and no work has been done
      ck_assert_double_eq(v[15], v[16]);
      ck_assert_double_eq(v[17], 3.5e6);
      ck_assert_double_eq(v[18], 0.0);
      ck_assert_double_eq_tol(v[19], 11029.38, 0.01);
      for (int k = 22; k < NCOL; k++) ck_assert_double_eq(v[k], 0.0);
    } else {
      // 0.2 s after the valve opened (+10 V at 1 s): spool near 10 V, the cylinder has extended
      // and the pressures have done positive work
      ck_assert_double_gt(v[18], 9.9);
      ck_assert_double_gt(v[20], 0.2143);
      ck_assert_double_gt(v[22], 10.0);
    }
  }
  ck_assert_ptr_null(strtok(NULL, "\n"));
  csv_case_cleanup(&c);
  hy_data_free(d);
  hy_model_free(m);
}
END_TEST

START_TEST(hydraulic_names_are_quoted) {
  hy_model* m = NULL;
  ck_assert_int_eq(hy_model_load(HY_SOURCE_DIR "/models/four-bar-a.yaml", &m, NULL), HY_OK);
  snprintf(m->vol_name + 2 * HY_NAME_MAX, HY_NAME_MAX, "rod,side");
  snprintf(m->vlv_name, HY_NAME_MAX, "say \"go\"");
  csv_case c;
  csv_case_init(&c, "unused", "unused");
  c.d.integrator = HY_INTEG_TRAPEZOIDAL;  // the header of a run with Newton iterations
  hy_csv* csv = NULL;
  ck_assert_int_eq(hy_csv_open(c.path, m, &c.d, &csv, NULL), HY_OK);
  ck_assert_int_eq(hy_csv_close(csv), HY_OK);
  ASSERT_TAIL(
      read_all(c.path),
      ",p:V2[Pa],\"p:rod,side[Pa]\",\"U:say \"\"go\"\"[V]\",F_hyd:cylinder[N],"
      "len_a:cylinder[m],len_b:cylinder[m],W_act[J],D_visc[J],W_damp[J],residual,step_wall[s]\n");
  csv_case_cleanup(&c);
  hy_model_free(m);
}
END_TEST

Suite* io_csv_suite(void) {
  Suite* s = suite_create("io_csv");
  TCase* tc = tcase_create("recorder");
  tcase_add_test(tc, header_and_rows_round_trip);
  tcase_add_test(tc, names_are_quoted);
  tcase_add_test(tc, rows_reach_the_file_while_open);
  tcase_add_test(tc, open_failures);
  tcase_add_test(tc, nonfinite_rows_are_refused);
  tcase_add_test(tc, closed_loop_and_force_columns);
  tcase_add_test(tc, force_names_are_quoted);
  tcase_add_test(tc, hydraulic_columns);
  tcase_add_test(tc, hydraulic_names_are_quoted);
  suite_add_tcase(s, tc);
  return s;
}
