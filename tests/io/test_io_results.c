// Results files read back (src/io/io_results_read.c, src/io/io_hdf5.c): an HDF5 and a CSV file
// of one run hold the same numbers bit for bit; awkward channel names survive both formats; a
// CSV cut mid-row reads up to its last whole row and a malformed one is reported with its line;
// an HDF5 file is readable after each flushed block while its writer is still open, and once
// closed holds nothing of its disk reservation beyond its data; a second writer of the same
// file is refused and leaves the first one's file intact; h5py reads the layout; rows that are
// not finite are refused; channels of a file are chosen by name and glob.
#define _POSIX_C_SOURCE 200809L  // mkdtemp, setrlimit

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/core.h"
#include "fixture.h"
#include "hydyn/channels.h"
#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "io/io.h"

//----- helpers -------------------------------------------------------------------------------

// A temporary folder and files in it, removed at the end of the test.
typedef struct tmp_dir {
  char dir[64];
  char path[8][128];
  int n;
} tmp_dir;

static void tmp_init(tmp_dir* t) {
  memset(t, 0, sizeof *t);
  snprintf(t->dir, sizeof t->dir, "/tmp/hydyn_results_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(t->dir));
}

// The path of a file called name in the folder.
static const char* tmp_file(tmp_dir* t, const char* name) {
  ck_assert_int_lt(t->n, 8);
  char path[sizeof t->path[0]];
  snprintf(path, sizeof path, "%s/%s", t->dir, name);
  memcpy(t->path[t->n], path, sizeof path);
  return t->path[t->n++];
}

static void tmp_cleanup(tmp_dir* t) {
  for (int i = 0; i < t->n; i++) remove(t->path[i]);
  rmdir(t->dir);
}

static void write_text(const char* path, const char* text) {
  FILE* fp = fopen(path, "wb");
  ck_assert_ptr_nonnull(fp);
  ck_assert_int_eq(fputs(text, fp) >= 0, 1);
  ck_assert_int_eq(fclose(fp), 0);
}

static hy_results* read_ok(const char* path) {
  hy_results* r = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_results_read(path, &r, &err);
  ck_assert_msg(st == HY_OK, "reading %s: %s", path, err.msg);
  ck_assert_ptr_nonnull(r);
  return r;
}

static hy_writer* open_ok(const char* path, int n, const char* const* names,
                          const char* const* units, const hy_results_meta* meta) {
  hy_writer* w = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_writer_open(path, n, names, units, meta, &w, &err);
  ck_assert_msg(st == HY_OK, "opening %s: %s", path, err.msg);
  return w;
}

static void close_ok(hy_writer* w, const char* summary) {
  hy_error err;
  memset(&err, 0, sizeof err);
  const hy_status st = hy_writer_close(w, summary, &err);
  ck_assert_msg(st == HY_OK, "closing: %s", err.msg);
}

// Row k of a file of n channels: values that need all 17 digits, of every magnitude.
static void make_row(int k, int n, double* row) {
  row[0] = k * 1e-3;
  for (int i = 1; i < n; i++) row[i] = (k + 1) / 3.0 * pow(10.0, 37 * (i % 5) - 80) - i / 7.0;
}

// Channel names, units and values of a and b are the same, bit for bit.
static void assert_same_results(const hy_results* a, const hy_results* b) {
  ck_assert_int_eq(a->nchan, b->nchan);
  ck_assert_int_eq(a->nrow, b->nrow);
  for (int c = 0; c < a->nchan; c++) {
    ck_assert_str_eq(a->name[c], b->name[c]);
    ck_assert_str_eq(a->unit[c], b->unit[c]);
    hy_test_same_bits(hy_results_column(a, c), hy_results_column(b, c), (int)a->nrow, a->name[c]);
  }
}

//----- the same run in both formats ------------------------------------------------------------

typedef struct both_files {
  hy_channels* ch;
  int* sel;
  int n;
  double* row;
  hy_writer* w[2];
  long rows;
  hy_error err;
} both_files;

static hy_status record_both(void* user, const hy_model* m, const hy_data* d) {
  (void)m;
  both_files* b = user;
  hy_channels_eval(b->ch, d, b->sel, b->n, b->row);
  b->rows++;
  for (int k = 0; k < 2; k++) HY_TRY(hy_writer_row(b->w[k], b->row, &b->err));
  return HY_OK;
}

// four-bar-a (3 volumes, a valve, a cylinder, a closed loop) recorded at every step into a CSV
// and an HDF5 file: both read back to the same channels, units and numbers, bit for bit, and
// those are the numbers the run produced (the last row is the final state).
START_TEST(hdf5_and_csv_of_a_run_agree_bit_for_bit) {
  tmp_dir t;
  tmp_init(&t);
  const char* csv = tmp_file(&t, "run.csv");
  const char* h5 = tmp_file(&t, "run.h5");
  hy_model* m = NULL;
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_msg(hy_model_load_any("four-bar-a", &m, &err) == HY_OK, "%s", err.msg);
  m->opt.t_end = 0.2;
  hy_data* d = hy_test_make(m);
  both_files b = {0};
  ck_assert_int_eq(hy_channels_make(m, d, &b.ch, &err), HY_OK);
  ck_assert_int_eq(hy_channels_select(b.ch, NULL, &b.sel, &b.n, &err), HY_OK);
  ck_assert_int_ge(b.n, 20);
  const char** names = calloc((size_t)b.n, sizeof *names);
  const char** units = calloc((size_t)b.n, sizeof *units);
  b.row = calloc((size_t)b.n, sizeof *b.row);
  for (int i = 0; i < b.n; i++) {
    names[i] = b.ch->ch[b.sel[i]].name;
    units[i] = b.ch->ch[b.sel[i]].unit;
  }
  const hy_results_meta meta = {"four-bar-a", "name: four-bar-a\n", "t_end=0.2\n"};
  b.w[0] = open_ok(csv, b.n, names, units, &meta);
  b.w[1] = open_ok(h5, b.n, names, units, &meta);
  hy_run_options o = hy_run_options_default();
  o.record = record_both;
  o.record_user = &b;
  hy_run_summary s;
  ck_assert_msg(hy_run(m, d, &o, &s) == HY_OK, "run: %s / %s", d->err.msg, b.err.msg);
  ck_assert_int_eq(hy_writer_rows(b.w[1]), b.rows);
  close_ok(b.w[0], NULL);
  close_ok(b.w[1], "steps=200\n");

  hy_results* rc = read_ok(csv);
  hy_results* rh = read_ok(h5);
  ck_assert_int_eq(rc->nchan, b.n);
  ck_assert_int_eq(rc->nrow, b.rows);
  ck_assert_int_ge(rc->nrow, 201);  // t = 0 and 200 steps of 1 ms
  assert_same_results(rc, rh);
  // the last row is the state the run ended in
  hy_channels_eval(b.ch, d, b.sel, b.n, b.row);
  for (int c = 0; c < b.n; c++) {
    ck_assert_str_eq(rh->name[c], names[c]);
    ck_assert_str_eq(rh->unit[c], units[c]);
    hy_test_same_bits(hy_results_column(rh, c) + rh->nrow - 1, &b.row[c], 1, names[c]);
  }
  ck_assert_double_eq_tol(hy_results_column(rh, 0)[rh->nrow - 1], 0.2, 1e-12);
  // only HDF5 keeps the texts
  ck_assert_str_eq(rh->model_text, meta.model_text);
  ck_assert_str_eq(rh->settings, meta.settings);
  ck_assert_str_eq(rh->summary, "steps=200\n");
  ck_assert_ptr_null(rc->model_text);
  ck_assert_ptr_null(rc->summary);

  hy_results_free(rc);
  hy_results_free(rh);
  free(names);
  free(units);
  free(b.row);
  hy_channels_free_selection(b.sel);
  hy_channels_free(b.ch);
  hy_data_free(d);
  hy_model_free(m);
  tmp_cleanup(&t);
}
END_TEST

//----- names -----------------------------------------------------------------------------------

// Element names come from model files and may hold anything: a comma and a quote (CSV quoting),
// a slash and a percent sign (HDF5 dataset names), brackets (the CSV unit), a line break, and
// text that already looks encoded.
START_TEST(awkward_names_round_trip) {
  static const char* const names[] = {"time",  "z:arm,left", "p:say \"hi\"", "Q:a/b", "F:50%",
                                      "E:%2F", "len:x[1]",   "U:two\nlines", "W:ü/µ", "iter"};
  static const char* const units[] = {"s", "rad", "Pa", "m^3/s", "N", "J", "m", "V", "J", ""};
  enum { N = sizeof names / sizeof names[0] };
  tmp_dir t;
  tmp_init(&t);
  const char* paths[2] = {tmp_file(&t, "names.csv"), tmp_file(&t, "names.hdf5")};
  hy_results* r[2];
  for (int f = 0; f < 2; f++) {
    hy_writer* w = open_ok(paths[f], N, names, units, NULL);
    for (int k = 0; k < 3; k++) {
      double row[N];
      make_row(k, N, row);
      ck_assert_int_eq(hy_writer_row(w, row, NULL), HY_OK);
    }
    close_ok(w, NULL);
    r[f] = read_ok(paths[f]);
    ck_assert_int_eq(r[f]->nchan, N);
    ck_assert_int_eq(r[f]->nrow, 3);
    for (int c = 0; c < N; c++) {
      ck_assert_str_eq(r[f]->name[c], names[c]);
      ck_assert_str_eq(r[f]->unit[c], units[c]);
      ck_assert_int_eq(hy_results_find(r[f], names[c]), c);
    }
    double row[N];
    make_row(2, N, row);
    for (int c = 0; c < N; c++)
      hy_test_same_bits(hy_results_column(r[f], c) + 2, &row[c], 1, names[c]);
  }
  assert_same_results(r[0], r[1]);
  ck_assert_int_eq(hy_results_find(r[0], "Q:a%2Fb"), -1);
  hy_results_free(r[0]);
  hy_results_free(r[1]);
  tmp_cleanup(&t);
}
END_TEST

//----- damaged and malformed CSV -------------------------------------------------------------

static hy_status read_fails(const char* path, hy_error* err) {
  hy_results* r = NULL;
  memset(err, 0, sizeof *err);
  const hy_status st = hy_results_read(path, &r, err);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(err->code, st);
  return st;
}

#define ASSERT_MSG_HAS(err, text) \
  ck_assert_msg(strstr((err).msg, (text)), "'%s' is not in the message '%s'", (text), (err).msg)

START_TEST(csv_cut_and_malformed_rows) {
  tmp_dir t;
  tmp_init(&t);
  const char* path = tmp_file(&t, "cut.csv");
  // a writer killed in the middle of a row: the rows before it are the file
  write_text(path, "time[s],x[m],iter\n0,1.5,2\n0.1,-2.5e-300,3\n0.2,3.");
  hy_results* r = read_ok(path);
  ck_assert_int_eq(r->nchan, 3);
  ck_assert_int_eq(r->nrow, 2);
  ck_assert_str_eq(r->name[2], "iter");
  ck_assert_str_eq(r->unit[2], "");
  ck_assert_str_eq(r->unit[1], "m");
  ck_assert_double_eq(hy_results_column(r, 1)[1], -2.5e-300);
  ck_assert_double_eq(hy_results_column(r, 2)[1], 3.0);
  hy_results_free(r);
  // CRLF line ends, and a header that ended with the file's only line break: no rows
  write_text(path, "time[s],\"a,b[m]\"\r\n0,1\r\n2,3\r\n");
  r = read_ok(path);
  ck_assert_int_eq(r->nrow, 2);
  ck_assert_str_eq(r->name[1], "a,b");
  ck_assert_double_eq(hy_results_column(r, 1)[1], 3.0);
  hy_results_free(r);
  write_text(path, "time[s],x\n");
  r = read_ok(path);
  ck_assert_int_eq(r->nrow, 0);
  ck_assert_int_eq(r->nchan, 2);
  hy_results_free(r);

  // a bad row in the middle is an error at its line and column
  hy_error err;
  write_text(path, "time[s],x[m],iter\n0,1,2\n0.1,abc,3\n0.2,3,4\n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, ":3:5: expected a number, found 'abc'");
  ASSERT_MSG_HAS(err, path);
  write_text(path, "time[s],x[m],iter\n0,1,2\n0.1,2,3\n0.2,3\n0.3,4,5\n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, ":4:6: expected 3 fields as in the header, found 2");
  write_text(path, "time[s],x[m],iter\n0,1,2,9\n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, ":2:6: expected 3 fields as in the header, found 4");
  write_text(path, "time[s],x[m]\n0,1\n\n0.2,3\n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, ":3:1: expected 2 fields as in the header, found 0");
  write_text(path, "time[s],x[m]\n0,1 \n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, ":2:4: expected ',' or the end of the line after a number, found ' '");
  write_text(path, "time[s],x[m]\n0,nan\n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, ":2:3: expected a finite number, found 'nan'");
  // an empty field at the end of a line must not read the next line's number
  write_text(path, "time[s],x[m]\n0,\n7\n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, ":2:3: expected 2 fields as in the header, found 2");

  // no header
  write_text(path, "");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, "is empty");
  write_text(path, "time[s],x[m]");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, "no complete header line");
  write_text(path, "time[s],\"x[m]\n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, "no complete header line");
  write_text(path, "time[s],x\"y\"[m]\n");
  ck_assert_int_eq(read_fails(path, &err), HY_ERR_PARSE);
  ASSERT_MSG_HAS(err, ":1:10: expected a quote only around a whole field");
  // no file
  const char* missing = tmp_file(&t, "missing.csv");
  ck_assert_int_eq(read_fails(missing, &err), HY_ERR_IO);
  ASSERT_MSG_HAS(err, "No such file or directory");
  ASSERT_MSG_HAS(err, missing);
  tmp_cleanup(&t);
}
END_TEST

//----- HDF5 while it is written --------------------------------------------------------------

// A block that fills slowly still reaches the disk: once a second has passed since the last
// write, the rows so far are written (checked every 64 rows), long before the block is full.
START_TEST(hdf5_slow_rows_reach_the_file) {
  static const char* const names[] = {"time", "p:A"};
  static const char* const units[] = {"s", "Pa"};
  tmp_dir t;
  tmp_init(&t);
  const char* path = tmp_file(&t, "slow.h5");
  const char* copy = tmp_file(&t, "slow-copy.h5");
  hy_writer* w = open_ok(path, 2, names, units, NULL);
  ck_assert_int_gt(hy_h5_block_rows(2), 1000);
  double row[2];
  for (int k = 0; k < 100; k++) {
    make_row(k, 2, row);
    ck_assert_int_eq(hy_writer_row(w, row, NULL), HY_OK);
  }
  sleep(2);
  for (int k = 100; k < 130; k++) {  // the 128th row is a clock check, a second after open
    make_row(k, 2, row);
    ck_assert_int_eq(hy_writer_row(w, row, NULL), HY_OK);
  }
  char cmd[320];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, copy);
  ck_assert_int_eq(system(cmd), 0);
  hy_results* r = read_ok(copy);
  ck_assert_int_eq(r->nrow, 128);
  make_row(127, 2, row);
  hy_test_same_bits(hy_results_column(r, 1) + 127, &row[1], 1, "row 127");
  hy_results_free(r);
  // the block, written again when full or at close, keeps those rows and adds the rest
  close_ok(w, NULL);
  r = read_ok(path);
  ck_assert_int_eq(r->nrow, 130);
  for (int k = 0; k < 130; k++) {
    make_row(k, 2, row);
    hy_test_same_bits(hy_results_column(r, 1) + k, &row[1], 1, "row");
  }
  hy_results_free(r);
  tmp_cleanup(&t);
}
END_TEST

// After a block of rows (hy_h5_block_rows) the first block is in the file: a reader sees it while the
// writer is open, and so does a reader of a byte copy of the file (what a run killed at that
// moment would leave). Once closed, the file holds every row and the summary.
START_TEST(hdf5_readable_while_open) {
  static const char* const names[] = {"time", "z:boom", "p:A"};
  static const char* const units[] = {"s", "rad", "Pa"};
  enum { N = 3 };
  const int B = hy_h5_block_rows(N), ROWS = B + 5;
  tmp_dir t;
  tmp_init(&t);
  const char* path = tmp_file(&t, "open.h5");
  const char* copy = tmp_file(&t, "copy.h5");
  const hy_results_meta meta = {"crane", "bodies: []\n", "dt=0.001\n"};
  hy_writer* w = open_ok(path, N, names, units, &meta);
  hy_results* r = read_ok(path);  // the layout is there before the first row
  ck_assert_int_eq(r->nchan, N);
  ck_assert_int_eq(r->nrow, 0);
  ck_assert_ptr_null(r->summary);
  hy_results_free(r);
  double row[N];
  for (int k = 0; k < ROWS; k++) {
    make_row(k, N, row);
    ck_assert_int_eq(hy_writer_row(w, row, NULL), HY_OK);
  }
  // the copy first: a reader in this process shares HDF5's view of the open file, and closing
  // it may write what the writer has not flushed
  char cmd[320];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, copy);
  ck_assert_int_eq(system(cmd), 0);
  r = read_ok(copy);
  ck_assert_int_eq(r->nrow, B);
  ck_assert_ptr_null(r->summary);
  make_row(B - 1, N, row);
  for (int c = 0; c < N; c++) {
    hy_test_same_bits(hy_results_column(r, c) + B - 1, &row[c], 1, names[c]);
  }
  hy_results_free(r);
  r = read_ok(path);
  ck_assert_int_ge(r->nrow, B);
  ck_assert_int_lt(r->nrow, ROWS);
  ck_assert_str_eq(r->model_text, meta.model_text);
  hy_results_free(r);

  close_ok(w, "steps=1029\nstatus=ok\n");
  r = read_ok(path);
  ck_assert_int_eq(r->nrow, ROWS);
  ck_assert_str_eq(r->summary, "steps=1029\nstatus=ok\n");
  ck_assert_str_eq(r->settings, "dt=0.001\n");
  for (int k = 0; k < ROWS; k++) {
    make_row(k, N, row);
    for (int c = 0; c < N; c++)
      hy_test_same_bits(hy_results_column(r, c) + k, &row[c], 1, names[c]);
  }
  hy_results_free(r);
  tmp_cleanup(&t);
}
END_TEST

// Close gives back the unused rest of the disk space reserved for the last block: the file ends
// where its superblock (version 2, the 1.8 format's) says HDF5's data end. So with a few
// channels and with more than the group keeps in its header, and the rows read back whole.
START_TEST(hdf5_close_gives_back_the_reservation) {
  enum { MANY = 70 };
  const char* names[MANY];
  const char* units[MANY];
  char buf[MANY][16];
  for (int i = 0; i < MANY; i++) {
    snprintf(buf[i], sizeof buf[i], i ? "x:%d" : "time", i);
    names[i] = buf[i];
    units[i] = "m";
  }
  tmp_dir t;
  tmp_init(&t);
  const int counts[2] = {3, MANY};
  for (int f = 0; f < 2; f++) {
    const int n = counts[f];
    const char* path = tmp_file(&t, f ? "many.h5" : "few.h5");
    const long rows = hy_h5_block_rows(n) + 100;
    hy_writer* w = open_ok(path, n, names, units, NULL);
    double row[MANY];
    for (long k = 0; k < rows; k++) {
      make_row((int)k, n, row);
      ck_assert_int_eq(hy_writer_row(w, row, NULL), HY_OK);
    }
    close_ok(w, "status=ok\n");
    unsigned char sb[36];
    FILE* fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(fread(sb, 1, sizeof sb, fp), sizeof sb);
    ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
    const long size = ftell(fp);
    fclose(fp);
    ck_assert_int_eq(memcmp(sb, "\211HDF\r\n\032\n", 8), 0);
    ck_assert_int_eq(sb[8], 2);
    uint64_t end = 0;
    for (int k = 7; k >= 0; k--) end = end << 8 | sb[28 + k];
    ck_assert_int_eq(size, (long)end);
    hy_results* r = read_ok(path);
    ck_assert_int_eq(r->nchan, n);
    ck_assert_int_eq(r->nrow, rows);
    ck_assert_str_eq(r->summary, "status=ok\n");
    for (long k = 0; k < rows; k += rows - 1) {
      make_row((int)k, n, row);
      for (int c = 0; c < n; c++) {
        hy_test_same_bits(hy_results_column(r, c) + k, &row[c], 1, names[c]);
      }
    }
    hy_results_free(r);
  }
  tmp_cleanup(&t);
}
END_TEST

//----- one writer per file -------------------------------------------------------------------

START_TEST(second_writer_is_refused) {
  static const char* const names[] = {"time", "x"};
  static const char* const units[] = {"s", "m"};
  tmp_dir t;
  tmp_init(&t);
  const char* paths[2] = {tmp_file(&t, "one.csv"), tmp_file(&t, "one.h5")};
  for (int f = 0; f < 2; f++) {
    hy_writer* first = open_ok(paths[f], 2, names, units, NULL);
    double row[2];
    for (int k = 0; k < 3; k++) {
      make_row(k, 2, row);
      ck_assert_int_eq(hy_writer_row(first, row, NULL), HY_OK);
    }
    hy_writer* second = NULL;
    hy_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(hy_writer_open(paths[f], 2, names, units, NULL, &second, &err), HY_ERR_IO);
    ck_assert_ptr_null(second);
    char want[320];
    snprintf(want, sizeof want,
             "another process is writing '%s': choose another --out (the file was left as it "
             "is)",
             paths[f]);
    ck_assert_str_eq(err.msg, want);
    for (int k = 3; k < HY_RESULTS_FLUSH_ROWS + 7; k++) {
      make_row(k, 2, row);
      ck_assert_int_eq(hy_writer_row(first, row, NULL), HY_OK);
    }
    close_ok(first, NULL);
    hy_results* r = read_ok(paths[f]);
    ck_assert_int_eq(r->nrow, HY_RESULTS_FLUSH_ROWS + 7);
    make_row(0, 2, row);
    hy_test_same_bits(hy_results_column(r, 1), &row[1], 1, "first row");
    hy_results_free(r);
    // the lock went with the first writer
    hy_writer* third = open_ok(paths[f], 2, names, units, NULL);
    close_ok(third, NULL);
  }
  tmp_cleanup(&t);
}
END_TEST

//----- h5py ------------------------------------------------------------------------------------

static const char kPython[] = "/usr/bin/python3";

// h5py, the reader most users have, sees the layout io.h describes: the channel list as str,
// the datasets under /channels with '/' and '%' encoded, units, the model text and the summary.
// And a file h5py wrote the other way (fixed-length byte strings, a channel without a unit,
// datasets of unequal length and of floats) is read as far as all its channels go.
START_TEST(h5py_reads_the_layout) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s -c 'import h5py' >/dev/null 2>&1", kPython);
  if (access(kPython, X_OK) != 0 || system(cmd) != 0) {
    fprintf(stderr, "h5py_reads_the_layout: skipped, %s cannot import h5py (python3-h5py)\n",
            kPython);
    return;
  }
  static const char* const names[] = {"time", "z:boom", "Q_PA:dcv/1", "F:50%", "E_kin"};
  static const char* const units[] = {"s", "rad", "m^3/s", "N", "J"};
  tmp_dir t;
  tmp_init(&t);
  const char* h5 = tmp_file(&t, "py.h5");
  const char* foreign = tmp_file(&t, "foreign.h5");
  const char* script = tmp_file(&t, "read.py");
  const char* output = tmp_file(&t, "out.txt");
  const hy_results_meta meta = {"four-bar-a", "name: four-bar-a # µ\n", "dt=0.001\n"};
  hy_writer* w = open_ok(h5, 5, names, units, &meta);
  for (int k = 0; k < 5; k++) {
    const double row[5] = {k * 0.5, k, -k, 1, k * k};
    ck_assert_int_eq(hy_writer_row(w, row, NULL), HY_OK);
  }
  close_ok(w, "status=ok\n");
  write_text(script,
             "import sys, h5py, numpy as np\n"
             "with h5py.File(sys.argv[1], 'r') as f:\n"
             "    names = list(f.attrs['channels'])\n"
             "    print(len(names), type(names[0]).__name__, sorted(f['channels']))\n"
             "    print(f['channels']['Q_PA:dcv%2F1'].attrs['unit'])\n"
             "    print(repr(f.attrs['model']), repr(f.attrs['summary']))\n"
             "    utf8, g = h5py.h5t.CSET_UTF8, f['channels']\n"
             "    print(h5py.h5a.open(f.id, b'model').get_type().get_cset() == utf8,\n"
             "          g.id.links.get_info(b'F:50%25').cset == utf8)\n"
             "    print(f['channels/time'][:].tolist(), f['channels/E_kin'][-1])\n"
             "with h5py.File(sys.argv[2], 'w') as g:\n"
             "    g.attrs['channels'] = np.array([b'time', b'x:a'], dtype='S8')\n"
             "    g.attrs['model'] = np.bytes_(b'fixed')\n"
             "    c = g.create_group('channels')\n"
             "    c['time'] = [0.0, 0.5, 1.0]\n"
             "    c['x:a'] = np.array([5, 6], dtype='f4')\n"
             "    c['x:a'].attrs['unit'] = np.bytes_(b'm')\n");
  snprintf(cmd, sizeof cmd, "%s '%s' '%s' '%s' >'%s' 2>&1", kPython, script, h5, foreign, output);
  const int rc = system(cmd);
  char text[1024] = "";
  FILE* fp = fopen(output, "r");
  ck_assert_ptr_nonnull(fp);
  text[fread(text, 1, sizeof text - 1, fp)] = '\0';
  fclose(fp);
  ck_assert_msg(rc == 0, "python failed: %s", text);
  ck_assert_str_eq(text,
                   "5 str ['E_kin', 'F:50%25', 'Q_PA:dcv%2F1', 'time', 'z:boom']\n"
                   "m^3/s\n"
                   "'name: four-bar-a # µ\\n' 'status=ok\\n'\n"
                   "True True\n"
                   "[0.0, 0.5, 1.0, 1.5, 2.0] 16.0\n");

  hy_results* r = read_ok(foreign);
  ck_assert_int_eq(r->nchan, 2);
  ck_assert_int_eq(r->nrow, 2);
  ck_assert_str_eq(r->name[1], "x:a");
  ck_assert_str_eq(r->unit[0], "");
  ck_assert_str_eq(r->unit[1], "m");
  ck_assert_str_eq(r->model_text, "fixed");
  ck_assert_ptr_null(r->summary);
  ck_assert_double_eq(hy_results_column(r, 0)[1], 0.5);
  ck_assert_double_eq(hy_results_column(r, 1)[1], 6.0);
  hy_results_free(r);
  tmp_cleanup(&t);
}
END_TEST

//----- rows that are not finite, failed writes -----------------------------------------------

START_TEST(hdf5_refuses_nonfinite_rows) {
  static const char* const names[] = {"time", "z:boom", "E_pot"};
  static const char* const units[] = {"s", "rad", "J"};
  tmp_dir t;
  tmp_init(&t);
  const char* path = tmp_file(&t, "nan.h5");
  hy_writer* w = open_ok(path, 3, names, units, NULL);
  ck_assert_int_eq(hy_writer_row(w, (const double[]){0, 1, 2}, NULL), HY_OK);
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_writer_row(w, (const double[]){0.25, 1, -INFINITY}, &err), HY_ERR_NAN);
  ck_assert_str_eq(err.msg, "E_pot is not finite at t = 0.25 s: the row is not written");
  ck_assert_int_eq(hy_writer_row(w, (const double[]){0.5, NAN, 2}, &err), HY_ERR_NAN);
  ck_assert_str_eq(err.msg, "z:boom is not finite at t = 0.5 s: the row is not written");
  ck_assert_int_eq(hy_writer_row(w, (const double[]){1, 3, 4}, NULL), HY_OK);
  ck_assert_int_eq(hy_writer_rows(w), 2);
  close_ok(w, NULL);
  hy_results* r = read_ok(path);
  ck_assert_int_eq(r->nrow, 2);
  ck_assert_double_eq(hy_results_column(r, 0)[1], 1.0);
  ck_assert_double_eq(hy_results_column(r, 2)[1], 4.0);
  hy_results_free(r);
  tmp_cleanup(&t);
}
END_TEST

// A block that cannot be written (here: past the process's file size limit, as on a full disk)
// is HY_ERR_IO naming the file and the system's reason; the writer takes no further rows and
// close reports the failure again. The file holds the blocks before, readable.
START_TEST(hdf5_write_failure_is_reported) {
  enum { N = 64 };
  const char* names[N];
  const char* units[N];
  char buf[N][16];
  for (int i = 0; i < N; i++) {
    snprintf(buf[i], sizeof buf[i], i ? "x:%d" : "time", i);
    names[i] = buf[i];
    units[i] = "m";
  }
  tmp_dir t;
  tmp_init(&t);
  const char* path = tmp_file(&t, "full.h5");
  hy_writer* w = open_ok(path, N, names, units, NULL);
  const long B = hy_h5_block_rows(N);
  // room for the layout and two and a half blocks of values
  signal(SIGXFSZ, SIG_IGN);
  FILE* fp = fopen(path, "rb");
  ck_assert_ptr_nonnull(fp);
  fseek(fp, 0, SEEK_END);
  const long layout = ftell(fp);
  fclose(fp);
  const struct rlimit lim = {(rlim_t)(layout + 2.5 * N * B * 8), RLIM_INFINITY};
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  double row[N];
  hy_error err;
  memset(&err, 0, sizeof err);
  hy_status st = HY_OK;
  long k = 0;
  for (; k < 4L * B && st == HY_OK; k++) {
    make_row((int)k, N, row);
    st = hy_writer_row(w, row, &err);
  }
  ck_assert_int_eq(st, HY_ERR_IO);
  ck_assert_int_eq(k % B, 0);  // at the end of a block
  ck_assert_int_ge(k, 2 * B);  // after one that was written
  ASSERT_MSG_HAS(err, path);
  ASSERT_MSG_HAS(err, "File too large");
  ck_assert_int_eq(hy_writer_row(w, row, &err), HY_ERR_IO);
  ASSERT_MSG_HAS(err, "failed earlier");
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_writer_close(w, "status=ok\n", &err), HY_ERR_IO);
  ASSERT_MSG_HAS(err, "File too large");
  const struct rlimit none = {RLIM_INFINITY, RLIM_INFINITY};
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &none), 0);
  hy_results* r = read_ok(path);
  ck_assert_int_eq(r->nrow, k - B);
  make_row((int)r->nrow - 1, N, row);
  for (int c = 0; c < N; c++)
    hy_test_same_bits(hy_results_column(r, c) + r->nrow - 1, &row[c], 1, names[c]);
  hy_results_free(r);
  tmp_cleanup(&t);
}
END_TEST

// Writers and readers give back every block they take (allocator hook), and a row between two
// blocks allocates nothing.
START_TEST(no_leaks_and_no_allocation_per_row) {
  static const char* const names[] = {"time", "z:boom", "p:A"};
  static const char* const units[] = {"s", "rad", "Pa"};
  tmp_dir t;
  tmp_init(&t);
  const char* paths[2] = {tmp_file(&t, "a.csv"), tmp_file(&t, "a.h5")};
  const char* missing = tmp_file(&t, "missing.h5");
  for (int f = 0; f < 2; f++) {
    hy_test_hook_begin(0);
    hy_writer* w = open_ok(paths[f], 3, names, units, NULL);
    double row[3];
    make_row(0, 3, row);
    ck_assert_int_eq(hy_writer_row(w, row, NULL), HY_OK);
    hy_test_count_allocs_begin();
    for (int k = 1; k < 100; k++) {
      make_row(k, 3, row);
      hy_writer_row(w, row, NULL);
    }
    ck_assert_int_eq(hy_test_count_allocs_end(), 0);
    close_ok(w, "x=1\n");
    hy_results* r = read_ok(paths[f]);
    int* idx = NULL;
    int n = 0;
    ck_assert_int_eq(hy_results_select(r, "p:*", &idx, &n, NULL), HY_OK);
    hy_free(idx);
    hy_results_free(r);
    hy_error err;
    ck_assert_int_eq(read_fails(missing, &err), HY_ERR_IO);
    ck_assert_int_eq(hy_test_hook_live(), 0);
    hy_test_hook_end();
  }
  tmp_cleanup(&t);
}
END_TEST

//----- choosing channels of a file -----------------------------------------------------------

START_TEST(select_by_name_and_glob) {
  static const char* const names[] = {"time", "z:boom", "z:arm", "p:A",
                                      "p:B",  "E_kin",  "E_pot", "iter"};
  static const char* const units[] = {"s", "rad", "rad", "Pa", "Pa", "J", "J", ""};
  tmp_dir t;
  tmp_init(&t);
  const char* path = tmp_file(&t, "sel.csv");
  hy_writer* w = open_ok(path, 8, names, units, NULL);
  close_ok(w, NULL);
  hy_results* r = read_ok(path);
  int* idx = NULL;
  int n = -1;
  // no selection: every channel but time, in file order
  ck_assert_int_eq(hy_results_select(r, NULL, &idx, &n, NULL), HY_OK);
  ck_assert_int_eq(n, 7);
  for (int i = 0; i < n; i++) ck_assert_int_eq(idx[i], i + 1);
  hy_free(idx);
  ck_assert_int_eq(hy_results_select(r, "", &idx, &n, NULL), HY_OK);
  ck_assert_int_eq(n, 7);
  hy_free(idx);
  // the selection's order, each channel once, time never
  ck_assert_int_eq(hy_results_select(r, "p:B,E_*,p:?,time,z:arm", &idx, &n, NULL), HY_OK);
  const int want[] = {4, 5, 6, 3, 2};
  ck_assert_int_eq(n, 5);
  for (int i = 0; i < n; i++) ck_assert_int_eq(idx[i], want[i]);
  hy_free(idx);
  // a pattern that matches nothing names itself and what the file has
  hy_error err;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(hy_results_select(r, "p:*,Q:*", &idx, &n, &err), HY_ERR_ARG);
  ck_assert_ptr_null(idx);
  ASSERT_MSG_HAS(err, "'Q:*'");
  ASSERT_MSG_HAS(err, "(the file has z:*, p:*, E_kin, E_pot, iter)");
  ck_assert_int_eq(hy_results_select(r, "p:A,,E_kin", &idx, &n, &err), HY_ERR_ARG);
  ASSERT_MSG_HAS(err, "empty channel pattern");
  hy_results_free(r);
  tmp_cleanup(&t);
}
END_TEST

Suite* io_results_suite(void) {
  Suite* s = suite_create("io_results");
  TCase* tc = tcase_create("io_results");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, hdf5_and_csv_of_a_run_agree_bit_for_bit);
  tcase_add_test(tc, awkward_names_round_trip);
  tcase_add_test(tc, csv_cut_and_malformed_rows);
  tcase_add_test(tc, hdf5_readable_while_open);
  tcase_add_test(tc, hdf5_slow_rows_reach_the_file);
  tcase_add_test(tc, hdf5_close_gives_back_the_reservation);
  tcase_add_test(tc, second_writer_is_refused);
  tcase_add_test(tc, h5py_reads_the_layout);
  tcase_add_test(tc, hdf5_refuses_nonfinite_rows);
  tcase_add_test(tc, hdf5_write_failure_is_reported);
  tcase_add_test(tc, no_leaks_and_no_allocation_per_row);
  tcase_add_test(tc, select_by_name_and_glob);
  suite_add_tcase(s, tc);
  return s;
}
