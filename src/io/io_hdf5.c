// HDF5 results: the writer behind hy_writer for .h5/.hdf5 paths and the reader behind
// hy_results_read for files with the HDF5 signature. Layout (io.h): one 1-D double dataset per
// channel under /channels, its unit as an attribute, the run's texts and the channel order as
// root attributes. Rows are gathered column by column in memory and written as one block per
// dataset every hy_h5_block_rows rows (or second), followed by a flush: a row costs a copy, and
// a run stopped at any moment leaves a file readable up to its last block.
// The only file of hydyn that includes <hdf5.h> (DESIGN: one includer per dependency).
#define _DEFAULT_SOURCE  // flock
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "hydyn/channels.h"
#include "io/io.h"

// H5Pset_file_locking appeared in 1.10.7. (H5Treclaim, declared by Debian's 1.10.8 headers, is
// missing from its library: strings are reclaimed with H5Dvlen_reclaim.)
#if !H5_VERSION_GE(1, 10, 7)
#error "hydyn needs HDF5 1.10.7 or newer (H5Pset_file_locking)"
#endif

// Rows are written a block (hy_h5_block_rows) at a time, as whole chunks of up to H5_CHUNK_MAX rows
// (H5Dwrite_chunk: the bytes as they are, without HDF5's selections, conversions and chunk
// cache). Every block written costs HDF5 an update of every dataset's header and a flush: at
// 1024 rows these were 40 % of the writer's cost on four-bar A's work cycle (10 blocks of 27
// channels), hence blocks of up to 8192 rows, fewer for many channels so that the block stays
// within 8 MiB. Chunks stay small because the last one is stored whole: a run's file holds at
// most H5_CHUNK_MAX - 1 rows of padding per channel. H5_CHUNK_MAX is 2048 rows (16 KiB) rather
// than 1024 because the kernel copies a write into the page cache in pieces (folios) no larger
// than the write: four-bar A's 2.3 MB take 0.95 ms to write as 8 KiB chunks, 0.6 ms as 16 KiB
// ones (both aligned, see create_file), and its 10 001 rows are stored as 10 240 either way. A
// block not yet full is written anyway once a second has passed since the last write
// (H5_FLUSH_SECONDS), so that a slow run's file follows it on disk.
int hy_h5_block_rows(int nchan) {
  long rows = 8192;
  while (rows > 64 && (long)nchan * rows * (long)sizeof(double) > (8L << 20)) rows /= 2;
  return (int)rows;
}
static const double H5_FLUSH_SECONDS = 1.0;
enum { H5_CHUNK_MAX = 2048 };    // rows per chunk: this, or the block when it is shorter
enum { H5_STAGE_ROWS = 64 };     // rows staged (hy_h5_writer.stage): divides every block's rows
enum { H5_COMPACT_LINKS = 64 };  // channels whose links the group keeps in its header

static double monotonic_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

//----- HDF5 errors -----------------------------------------------------------------------------

// HDF5 prints its error stack to stderr by default; hydyn reports through hy_error instead.
// Between quiet_begin and quiet_end HDF5's automatic error function is one that prints nothing
// and keeps why the first failing call failed: HDF5 calls it as that call returns, before a
// later call (a close on the way out) clears the stack. The caller's function is put back
// afterwards: an application that embeds hydyn may rely on it.
typedef struct h5_quiet {
  H5E_auto2_t fn;
  void* data;
  char reason[200];  // the innermost entry of the first failure's stack, "" while none
} h5_quiet;

static herr_t take_innermost(unsigned n, const H5E_error2_t* e, void* user) {
  h5_quiet* q = user;
  if (n == 0 && e->desc) snprintf(q->reason, sizeof q->reason, "%s", e->desc);
  return 0;
}

static herr_t note_first_failure(hid_t stack, void* user) {
  h5_quiet* q = user;
  if (!q->reason[0]) H5Ewalk2(stack, H5E_WALK_UPWARD, take_innermost, q);
  return 0;
}

static void quiet_begin(h5_quiet* q) {
  q->fn = NULL;
  q->data = NULL;
  q->reason[0] = '\0';
  H5Eget_auto2(H5E_DEFAULT, &q->fn, &q->data);
  H5Eset_auto2(H5E_DEFAULT, note_first_failure, q);
}

static void quiet_end(const h5_quiet* q) { H5Eset_auto2(H5E_DEFAULT, q->fn, q->data); }

// Why the first failure happened, for a message. When it came from the system, HDF5 quotes the
// system's message ("... errno = 27, error message = 'File too large', ...") amid a paragraph
// of addresses: that part alone says it best.
static const char* reason_of(h5_quiet* q) {
  const char* key = "error message = '";
  char* sys = strstr(q->reason, key);
  if (sys) {
    sys += strlen(key);
    char* end = strchr(sys, '\'');
    if (end) *end = '\0';
    memmove(q->reason, sys, strlen(sys) + 1);
  }
  if (!q->reason[0]) snprintf(q->reason, sizeof q->reason, "HDF5 gave no reason");
  return q->reason;
}

// Called before the first HDF5 call of a writer or reader. HDF5 1.10 frees a file whose close
// failed (an I/O error) but keeps its identifier, and its exit handler then closes that
// identifier again and crashes (HDFFV-11052, fixed in 1.14): a run that reported a failed
// write would end in a segmentation fault. Without the exit handler it ends with its error;
// hydyn closes its files itself, and the file of a run that does not get there holds its
// blocks so far, as after a kill. This takes effect only when hydyn is the first user of HDF5
// in the process.
static void h5_first_use(void) {
  static int done;
  if (done) return;
  done = 1;
  H5dont_atexit();
}

//----- names and strings -----------------------------------------------------------------------

// The dataset name of a channel: '/' separates HDF5 path components, so it becomes "%2F", and
// '%' becomes "%25" so that the name can be decoded without ambiguity. out holds 3 * strlen + 1.
static void encode_name(const char* name, char* out) {
  for (; *name; name++) {
    if (*name == '/' || *name == '%') {
      sprintf(out, "%%%02X", (unsigned char)*name);
      out += 3;
    } else {
      *out++ = *name;
    }
  }
  *out = '\0';
}

// 1 when s is valid UTF-8: only then are strings marked UTF-8, which h5py reads as str (bytes
// otherwise), because a model file may be in another encoding.
static int is_utf8(const char* s) {
  const unsigned char* p = (const unsigned char*)s;
  while (*p) {
    int more = *p < 0x80           ? 0
               : (*p >> 5) == 0x6  ? 1
               : (*p >> 4) == 0xE  ? 2
               : (*p >> 3) == 0x1E ? 3
                                   : -1;
    if (more < 0) return 0;
    p++;
    for (int k = 0; k < more; k++, p++) {
      if ((*p >> 6) != 0x2) return 0;
    }
  }
  return 1;
}

// A variable-length string type: h5py reads such strings without padding or a length limit, and
// a long model text goes to the global heap instead of the 64 KiB attribute header.
static hid_t vlen_string_type(int utf8) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0) return t;
  if (H5Tset_size(t, H5T_VARIABLE) < 0 ||
      H5Tset_cset(t, utf8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII) < 0) {
    H5Tclose(t);
    return H5I_INVALID_HID;
  }
  return t;
}

// Writes the attribute `name` of loc holding the n strings s (n = 0: one scalar string s[0]).
static int put_strings(hid_t loc, const char* name, int n, const char* const* s) {
  int utf8 = 1;
  for (int i = 0; i < (n ? n : 1); i++) utf8 = utf8 && is_utf8(s[i]);
  const hsize_t dim = (hsize_t)n;
  hid_t type = vlen_string_type(utf8);
  hid_t space = n ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_SCALAR);
  hid_t attr = type >= 0 && space >= 0
                   ? H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT)
                   : H5I_INVALID_HID;
  int ok = attr >= 0 && H5Awrite(attr, type, s) >= 0;
  if (attr >= 0) ok = H5Aclose(attr) >= 0 && ok;
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  return ok ? 0 : -1;
}

// The attribute `unit` of a dataset. The string types (ASCII, UTF-8) and the scalar dataspace
// are made once for all datasets of the file: making them was a fifth of an attribute's cost.
static int put_unit(hid_t dset, const char* unit, const hid_t* types, hid_t scalar) {
  const hid_t type = types[is_utf8(unit)];
  hid_t attr = H5Acreate2(dset, "unit", type, scalar, H5P_DEFAULT, H5P_DEFAULT);
  int ok = attr >= 0 && H5Awrite(attr, type, &unit) >= 0;
  if (attr >= 0) ok = H5Aclose(attr) >= 0 && ok;
  return ok ? 0 : -1;
}

static int put_text(hid_t loc, const char* name, const char* text) {
  return put_strings(loc, name, 0, &text);
}

//----- writer ----------------------------------------------------------------------------------

struct hy_h5_writer {
  int fd;  // holds the flock from before the truncation until close
  hid_t file;
  hid_t* dset;  // one per channel (n)
  int n;
  char** names;   // for messages (copied)
  char* path;     // for messages (copied)
  double* block;  // the rows of the current block, column-major: channel c of row r at
                  // [c * block_rows + r]
  // The rows since the last multiple of H5_STAGE_ROWS as they came, row r of the block at
  // [(r - moved) * n]. Stored into the block's columns at once, a row's values would go to
  // n cache lines, one each, at every row; gathered here they go there H5_STAGE_ROWS at a
  // time, whole lines, and more of the simulation's data stays in the cache (0.2 ms of
  // four-bar A's 10 ms run).
  double* stage;
  long block_rows;    // rows per block (hy_h5_block_rows)
  long chunk;         // rows per chunk: divides block_rows
  long pending;       // rows in block
  long moved;         // rows of the block in its columns; the rest are staged
  hsize_t base;       // the first row of the block
  hsize_t rows;       // rows in the datasets
  double last_write;  // when a block was last written (monotonic s)
  int failed;         // a block could not be written: no further rows, close reports it again
  char reason[200];
};

// Closes what open created, the file last, once nothing of it is open any more; each handle
// once, so that it may run again on the way out of a failed close.
static int writer_close_h5(hy_h5_writer* w) {
  int ok = 1;
  for (int i = 0; w->dset && i < w->n; i++) {
    if (w->dset[i] >= 0) ok = H5Dclose(w->dset[i]) >= 0 && ok;
    w->dset[i] = H5I_INVALID_HID;
  }
  if (w->file >= 0) ok = H5Fclose(w->file) >= 0 && ok;
  w->file = H5I_INVALID_HID;
  return ok ? 0 : -1;
}

static void writer_free(hy_h5_writer* w) {
  if (!w) return;
  h5_quiet q;
  quiet_begin(&q);
  writer_close_h5(w);
  quiet_end(&q);
  if (w->fd >= 0) close(w->fd);  // the lock goes with the descriptor
  for (int i = 0; w->names && i < w->n; i++) hy_free(w->names[i]);
  hy_free(w->names);
  hy_free(w->dset);
  hy_free(w->block);
  hy_free(w->stage);
  hy_free(w->path);
  hy_free(w);
}

static char* copy_text(const char* s) {
  char* c = hy_malloc(strlen(s) + 1);
  if (c) strcpy(c, s);
  return c;
}

// Marks the writer failed with the reason of q's first failure.
static void writer_failed(hy_h5_writer* w, h5_quiet* q) {
  w->failed = 1;
  snprintf(w->reason, sizeof w->reason, "%s", reason_of(q));
}

// Makes sure the disk has room for `bytes` more before HDF5 writes them. HDF5 does not write a
// block in an order that survives running out of room half way: it may store the superblock's
// new end of file before the data that reaches it, and HDF5 then refuses the whole file as
// truncated. Reserved ahead, a full disk (or quota, or file size limit) stops the run between
// two blocks, and the file stays as the last flush left it. -1 (w failed) when there is no
// room.
static int reserve(hy_h5_writer* w, size_t bytes, h5_quiet* q) {
  haddr_t eoa = 0;
  if (H5Fget_eoa(w->file, &eoa) < 0) {
    writer_failed(w, q);
    return -1;
  }
  const int e = posix_fallocate(w->fd, (off_t)eoa, (off_t)bytes);
  if (e == 0) return 0;
  w->failed = 1;
  snprintf(w->reason, sizeof w->reason, "%s", strerror(e));
  return -1;
}

// The end of the file's data after close, as its superblock says: version 2 (the 1.8 format's,
// which create_file asks for), whose end-of-file address is the 8 bytes at 28. Read from the
// file rather than by opening it again with HDF5, which costs a new metadata cache (a 0.5 MB
// calloc) and a superblock read: 1.1 M instructions, 8 % of the writer's on four-bar A. 0 when
// the file does not start as expected: it is then left as it is.
static uint64_t superblock_end(int fd) {
  unsigned char sb[36];
  if (pread(fd, sb, sizeof sb, 0) != (ssize_t)sizeof sb ||
      memcmp(sb, "\211HDF\r\n\032\n", 8) != 0 || sb[8] != 2 || sb[9] != 8 || sb[10] != 8) {
    return 0;
  }
  uint64_t base = 0, end = 0;
  for (int k = 7; k >= 0; k--) {  // little-endian
    base = base << 8 | sb[12 + k];
    end = end << 8 | sb[28 + k];
  }
  return base == 0 ? end : 0;
}

// Gives back what the file holds beyond HDF5's end after close: the unused rest of the last
// reservation. The end is read from the closed file itself, so nothing HDF5 wrote at close is
// cut; the file at path must still be the one w has locked.
static void trim_reserve(hy_h5_writer* w) {
  struct stat mine, there;
  if (fstat(w->fd, &mine) != 0 || stat(w->path, &there) != 0 || mine.st_dev != there.st_dev ||
      mine.st_ino != there.st_ino) {
    return;
  }
  const uint64_t end = superblock_end(w->fd);
  if (end > 0 && (uint64_t)mine.st_size > end) {
    const int failed = ftruncate(w->fd, (off_t)end);  // if so, the file is whole, only longer
    (void)failed;
  }
}

// Stores the staged rows into the block's columns.
static void move_staged(hy_h5_writer* w) {
  const long count = w->pending - w->moved;
  for (int i = 0; count > 0 && i < w->n; i++) {
    double* col = w->block + (size_t)i * (size_t)w->block_rows + w->moved;
    const double* at = w->stage + i;
    for (long r = 0; r < count; r++) col[r] = at[(size_t)r * (size_t)w->n];
  }
  w->moved = w->pending;
}

// Extends every dataset to the rows of the block, writes the block and flushes the file, so
// that what is on disk is a complete file of w->rows rows. A block not yet full stays the
// current one: its chunk is written again, whole, when more rows have come. -1 (w failed) when
// that fails.
static int write_block(hy_h5_writer* w, h5_quiet* q) {
  const hsize_t start = w->base, total = start + (hsize_t)w->pending;
  if (total == w->rows) return 0;
  move_staged(w);
  // Blocks start at multiples of block_rows, chunks at multiples of w->chunk: the block's rows
  // are whole chunks but for the last. Its rest is zeroed: stored but never read, and the same
  // run then gives the same file.
  const long chunk = w->chunk, nchunk = (w->pending + chunk - 1) / chunk;
  // the chunks, and the chunk indices' nodes
  if (reserve(w, (size_t)w->n * ((size_t)nchunk * chunk * sizeof(double) + 4096) + 65536,
              q) != 0) {
    return -1;
  }
  for (int i = 0; w->pending < nchunk * chunk && i < w->n; i++) {
    double* col = w->block + (size_t)i * (size_t)w->block_rows;
    memset(col + w->pending, 0, (size_t)(nchunk * chunk - w->pending) * sizeof *col);
  }
  int ok = 1;
  for (int i = 0; ok && i < w->n; i++) {
    ok = H5Dset_extent(w->dset[i], &total) >= 0;
    const double* col = w->block + (size_t)i * (size_t)w->block_rows;
    for (long c = 0; ok && c < nchunk; c++) {
      const hsize_t at = start + (hsize_t)(c * chunk);
      ok = H5Dwrite_chunk(w->dset[i], H5P_DEFAULT, 0, &at, (size_t)chunk * sizeof(double),
                          col + c * chunk) >= 0;
    }
  }
  if (!ok || H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0) {
    writer_failed(w, q);
    return -1;
  }
  w->rows = total;
  w->last_write = monotonic_seconds();
  if (w->pending == w->block_rows) {
    w->base = total;
    w->pending = 0;
    w->moved = 0;
  }
  return 0;
}

// Creates the file's attributes and datasets; enc has room for the longest encoded name. -1
// with what failed in `what`.
static int create_layout(hy_h5_writer* w, const char* const* names, const char* const* units,
                         const hy_results_meta* meta, char* enc, char* what, size_t size) {
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = (hsize_t)w->chunk;
  // root attributes: what is known before the first row
  const char* const keys[3] = {"model", "model_name", "settings"};
  const char* const texts[3] = {meta ? meta->model_text : NULL, meta ? meta->model_name : NULL,
                                meta ? meta->settings : NULL};
  for (int k = 0; k < 3; k++) {
    if (texts[k] && put_text(w->file, keys[k], texts[k]) != 0) {
      snprintf(what, size, "cannot write the attribute '%s'", keys[k]);
      return -1;
    }
  }
  if (put_strings(w->file, "channels", w->n, names) != 0) {
    snprintf(what, size, "cannot write the attribute 'channels'");
    return -1;
  }
  // link names in UTF-8, for h5py's keys()
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  if (lcpl >= 0 && H5Pset_char_encoding(lcpl, H5T_CSET_UTF8) < 0) {
    H5Pclose(lcpl);
    lcpl = H5I_INVALID_HID;
  }
  // Up to H5_COMPACT_LINKS channels, their links are kept in the group's header, sized for
  // them at once, rather than in the heap and B-tree HDF5 moves them to beyond 8 links: 5 %
  // fewer instructions to open four-bar A's file (27 channels). A name is looked up in the
  // header by a linear search, so that more channels keep the B-tree (400: 12 % more).
  size_t names_length = 0;
  for (int i = 0; i < w->n; i++) names_length += strlen(names[i]);
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  if (gcpl >= 0 && w->n <= H5_COMPACT_LINKS &&
      (H5Pset_link_phase_change(gcpl, H5_COMPACT_LINKS, H5_COMPACT_LINKS) < 0 ||
       H5Pset_est_link_info(gcpl, (unsigned)w->n, (unsigned)(names_length / (size_t)w->n + 1)) <
           0)) {
    H5Pclose(gcpl);
    gcpl = H5I_INVALID_HID;
  }
  hid_t group = lcpl >= 0 && gcpl >= 0 ? H5Gcreate2(w->file, "channels", lcpl, gcpl, H5P_DEFAULT)
                                       : H5I_INVALID_HID;
  if (gcpl >= 0) H5Pclose(gcpl);
  hid_t space = H5Screate_simple(1, &zero, &unlimited);
  const hid_t types[2] = {vlen_string_type(0), vlen_string_type(1)};  // put_unit's
  hid_t scalar = H5Screate(H5S_SCALAR);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  // no fill values: the extent grows only over rows that are written; no modification times:
  // the same run gives the same file
  int ok = types[0] >= 0 && types[1] >= 0 && scalar >= 0 && group >= 0 && space >= 0 && dcpl >= 0 &&
           H5Pset_chunk(dcpl, 1, &chunk) >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
           H5Pset_obj_track_times(dcpl, 0) >= 0;
  if (!ok) snprintf(what, size, "cannot create the group /channels");
  for (int i = 0; ok && i < w->n; i++) {
    encode_name(names[i], enc);
    // the machine's double: H5Dwrite_chunk stores the bytes as they are, and the type says
    // in which order they are
    w->dset[i] = H5Dcreate2(group, enc, H5T_NATIVE_DOUBLE, space, is_utf8(enc) ? lcpl : H5P_DEFAULT,
                            dcpl, H5P_DEFAULT);
    ok = w->dset[i] >= 0 && put_unit(w->dset[i], units[i], types, scalar) == 0;
    if (!ok) snprintf(what, size, "cannot create the dataset of the channel '%s'", names[i]);
  }
  if (dcpl >= 0) H5Pclose(dcpl);
  if (scalar >= 0) H5Sclose(scalar);
  for (int k = 0; k < 2; k++) {
    if (types[k] >= 0) H5Tclose(types[k]);
  }
  if (space >= 0) H5Sclose(space);
  if (group >= 0) H5Gclose(group);
  if (lcpl >= 0) H5Pclose(lcpl);
  return ok ? 0 : -1;
}

// Takes the lock on path before anything changes it. HY_OK, or HY_ERR_IO with the message.
static hy_status lock_file(hy_h5_writer* w, const char* path, hy_error* err) {
  // not truncated here: a second run must not empty the first one's file
  w->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (w->fd < 0) {
    return HY_FAIL(err, HY_ERR_IO, "cannot open '%s' for writing: %s", path, strerror(errno));
  }
  if (flock(w->fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    if (e == EWOULDBLOCK) {
      return HY_FAIL(err, HY_ERR_IO,
                     "another process is writing '%s': choose another --out (the file was left "
                     "as it is)",
                     path);
    }
    return HY_FAIL(err, HY_ERR_IO, "cannot lock '%s': %s", path, strerror(e));
  }
  return HY_OK;
}

// Creates the file (w locked it) and its layout. "" in what, or what failed.
static void create_file(hy_h5_writer* w, const char* const* names, const char* const* units,
                        const hy_results_meta* meta, char* enc, char* what, size_t size) {
  // The lock is held on w->fd. HDF5's own locking would lock its own descriptor of the file
  // and fail against ours, so it is off. The format is held to 1.8's: readable by every HDF5
  // since 1.8 (MATLAB's among them), with attributes beyond 64 KiB (the channel list of a big
  // model), and without 1.10's mark of a file open for writing, which would leave the file of
  // a killed run unreadable until cleared with h5clear.
  // Chunks start at multiples of their size: one that starts inside a page costs the kernel
  // a partial page at each end and smaller folios (four-bar A's 2.3 MB: 1.05 ms instead of
  // 0.6). The metadata HDF5 adds as the file grows (chunk indices, headers) is gathered in
  // blocks of a chunk's size, aligned too: in HDF5's 2 KiB blocks it left gaps between the
  // chunks, 16 % of the file; this way the file is 0.8 % larger than unaligned.
  const hsize_t chunk_bytes = (hsize_t)w->chunk * sizeof(double);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0 && H5Pset_file_locking(fapl, 0, 1) >= 0 &&
      H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0 &&
      H5Pset_alignment(fapl, chunk_bytes, chunk_bytes) >= 0 &&
      (chunk_bytes < 2048 || H5Pset_meta_block_size(fapl, chunk_bytes) >= 0)) {
    w->file = H5Fcreate(w->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  }
  // ext4 hands a file that was truncated to nothing to the disk, all of it, at the next close
  // of a descriptor of it (auto_da_alloc: a guard for programs that rewrite a file without
  // fsync), and H5Fcreate truncates: HDF5's close at the end of the run waited for the whole
  // file to be submitted (2.7 ms on four-bar A, 28 % of the run). A descriptor closed now,
  // while the file holds a superblock only, spends that trigger; the rows then reach the disk
  // as any file's writes do.
  if (w->file >= 0) {
    const int fd = open(w->path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) close(fd);
  }
  if (fapl >= 0) H5Pclose(fapl);
  // HDF5 takes the variable over the property: set to lock, HDF5 runs into hydyn's own lock
  const char* env = getenv("HDF5_USE_FILE_LOCKING");
  if (w->file < 0 && env && strcmp(env, "FALSE") != 0) {
    snprintf(what, size,
             "cannot create the HDF5 file (HDF5_USE_FILE_LOCKING=%.16s makes HDF5 lock it against "
             "hydyn's own lock: unset it)",
             env);
  } else if (w->file < 0) {
    snprintf(what, size, "cannot create the HDF5 file");
  } else if (create_layout(w, names, units, meta, enc, what, size) == 0 &&
             H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0) {
    // on disk at once: a run failing at its first step leaves a file that says what it would
    // have held
    snprintf(what, size, "cannot flush the file");
  }
}

hy_status hy_h5_writer_open(const char* path, int n, const char* const* names,
                            const char* const* units, const hy_results_meta* meta,
                            hy_h5_writer** out, hy_error* err) {
  if (!path || n < 1 || !names || !units || !out) {
    return HY_FAIL(err, HY_ERR_ARG, "HDF5 writer: invalid argument");
  }
  *out = NULL;
  hy_h5_writer* w = hy_calloc(1, sizeof *w);
  if (!w) return HY_FAIL(err, HY_ERR_NOMEM, "HDF5 writer: out of memory");
  w->fd = -1;
  w->file = H5I_INVALID_HID;
  w->n = n;
  w->path = copy_text(path);
  w->names = hy_calloc((size_t)n, sizeof *w->names);
  w->dset = hy_malloc((size_t)n * sizeof *w->dset);
  w->block_rows = hy_h5_block_rows(n);
  w->chunk = w->block_rows < H5_CHUNK_MAX ? w->block_rows : H5_CHUNK_MAX;
  w->last_write = monotonic_seconds();
  w->block = hy_malloc((size_t)n * (size_t)w->block_rows * sizeof *w->block);
  w->stage = hy_malloc((size_t)n * H5_STAGE_ROWS * sizeof *w->stage);
  size_t longest = 0;
  int nomem = !w->path || !w->names || !w->dset || !w->block || !w->stage;
  for (int i = 0; !nomem && i < n; i++) {
    w->dset[i] = H5I_INVALID_HID;
    w->names[i] = copy_text(names[i]);
    nomem = !w->names[i];
    if (!nomem && strlen(names[i]) > longest) longest = strlen(names[i]);
  }
  char* enc = nomem ? NULL : hy_malloc(3 * longest + 1);
  if (!enc) {
    writer_free(w);
    return HY_FAIL(err, HY_ERR_NOMEM, "HDF5 writer: out of memory");
  }
  hy_status st = lock_file(w, path, err);
  if (st == HY_OK) {
    h5_first_use();
    char what[HY_CHANNEL_NAME_MAX + 64] = "";
    h5_quiet q;
    quiet_begin(&q);
    create_file(w, names, units, meta, enc, what, sizeof what);
    if (what[0]) st = HY_FAIL(err, HY_ERR_IO, "writing '%s': %s: %s", path, what, reason_of(&q));
    quiet_end(&q);
  }
  hy_free(enc);
  if (st != HY_OK) {
    writer_free(w);
    return st;
  }
  *out = w;
  return HY_OK;
}

hy_status hy_h5_writer_row(hy_h5_writer* w, const double* row, hy_error* err) {
  if (!w || !row) return HY_FAIL(err, HY_ERR_ARG, "HDF5 writer: NULL argument");
  // A value is inf or NaN when its exponent bits are all ones, that is when they plus one carry
  // into the sign bit. Or-ed over the row, two values at a time, this takes no branch per value:
  // 0.08 ms less than isfinite for four-bar A's 10 001 rows of 27 values.
  const uint64_t exponent = UINT64_C(0x7FF0000000000000), one = UINT64_C(1) << 52;
  uint64_t carry = 0, carry2 = 0;
  int i = 0;
  for (; i + 1 < w->n; i += 2) {
    uint64_t a, b;
    memcpy(&a, &row[i], sizeof a);
    memcpy(&b, &row[i + 1], sizeof b);
    carry |= (a & exponent) + one;
    carry2 |= (b & exponent) + one;
  }
  if (i < w->n) {
    uint64_t a;
    memcpy(&a, &row[i], sizeof a);
    carry |= (a & exponent) + one;
  }
  for (i = 0; (carry | carry2) >> 63 && i < w->n; i++) {
    if (!isfinite(row[i])) {
      return HY_FAIL(err, HY_ERR_NAN, "%s is not finite at t = %.9g s: the row is not written",
                     w->names[i], row[0]);
    }
  }
  if (w->failed) {
    return HY_FAIL(err, HY_ERR_IO, "writing '%s' failed earlier: %s", w->path, w->reason);
  }
  memcpy(w->stage + (size_t)(w->pending - w->moved) * (size_t)w->n, row,
         (size_t)w->n * sizeof *row);
  if ((++w->pending & (H5_STAGE_ROWS - 1)) != 0) return HY_OK;
  move_staged(w);
  // the clock is read every H5_STAGE_ROWS rows only: 25 ns a read is 1 % of a four-bar A step
  if (w->pending < w->block_rows && monotonic_seconds() - w->last_write < H5_FLUSH_SECONDS) {
    return HY_OK;
  }
  h5_quiet q;
  quiet_begin(&q);
  const int bad = write_block(w, &q);
  quiet_end(&q);
  if (bad) return HY_FAIL(err, HY_ERR_IO, "writing '%s' failed: %s", w->path, w->reason);
  return HY_OK;
}

hy_status hy_h5_writer_close(hy_h5_writer* w, const char* summary, hy_error* err) {
  if (!w) return HY_OK;
  const int failed_before = w->failed;
  h5_quiet q;
  quiet_begin(&q);
  if (!w->failed) write_block(w, &q);
  if (!w->failed && summary && reserve(w, strlen(summary) + 65536, &q) == 0 &&
      put_text(w->file, "summary", summary) != 0) {
    writer_failed(w, &q);
  }
  // the file is complete only once HDF5 has closed it: its last metadata goes out then
  if (writer_close_h5(w) != 0) {
    if (!w->failed) writer_failed(w, &q);
  } else {
    trim_reserve(w);
  }
  quiet_end(&q);
  hy_status st = HY_OK;
  if (w->failed) {
    st = HY_FAIL(err, HY_ERR_IO, "writing '%s' failed%s: %s", w->path,
                 failed_before ? " earlier" : "", w->reason);
  }
  writer_free(w);
  return st;
}

//----- reader ----------------------------------------------------------------------------------

// Reads the string attribute `name` of loc, variable- or fixed-length, scalar or 1-D, into *out
// (*n strings, each allocated, and the array). 1 when loc has no such attribute, -1 when it
// cannot be read as text (the reason in q), 0 on success.
static int get_strings(hid_t loc, const char* name, char*** out, int* n, h5_quiet* q) {
  *out = NULL;
  *n = 0;
  const htri_t exists = H5Aexists(loc, name);
  if (exists == 0) return 1;
  hid_t attr = exists > 0 ? H5Aopen(loc, name, H5P_DEFAULT) : H5I_INVALID_HID;
  hid_t ftype = attr >= 0 ? H5Aget_type(attr) : H5I_INVALID_HID;
  hid_t space = attr >= 0 ? H5Aget_space(attr) : H5I_INVALID_HID;
  const hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  int ok = ftype >= 0 && count >= 0 && count < (1 << 30);
  if (ok && H5Tget_class(ftype) != H5T_STRING) {
    if (!q->reason[0]) snprintf(q->reason, sizeof q->reason, "it does not hold text");
    ok = 0;
  }
  const htri_t vlen = ok ? H5Tis_variable_str(ftype) : -1;
  const size_t width = ok && vlen == 0 ? H5Tget_size(ftype) : 0;
  ok = ok && vlen >= 0 && (vlen || width > 0);
  char** s = ok ? hy_calloc((size_t)count + 1, sizeof *s) : NULL;
  if (ok && !s && !q->reason[0]) snprintf(q->reason, sizeof q->reason, "out of memory");
  ok = ok && s;
  if (ok && vlen) {
    // read as stored (the type H5Aget_type gives is a memory type already)
    char** raw = hy_calloc((size_t)count + 1, sizeof *raw);
    ok = raw && H5Aread(attr, ftype, raw) >= 0;
    for (hssize_t i = 0; ok && i < count; i++) {
      s[i] = copy_text(raw[i] ? raw[i] : "");
      ok = s[i] != NULL;
    }
    if (raw) {
      H5Dvlen_reclaim(ftype, space, H5P_DEFAULT, raw);
      hy_free(raw);
    }
  } else if (ok) {
    const H5T_str_t pad = H5Tget_strpad(ftype);
    char* raw = hy_malloc((size_t)count * width + 1);
    ok = raw && H5Aread(attr, ftype, raw) >= 0;
    for (hssize_t i = 0; ok && i < count; i++) {
      const char* f = raw + (size_t)i * width;
      size_t len = 0;
      while (len < width && f[len]) len++;
      while (pad == H5T_STR_SPACEPAD && len > 0 && f[len - 1] == ' ') len--;
      s[i] = hy_malloc(len + 1);
      ok = s[i] != NULL;
      if (ok) {
        memcpy(s[i], f, len);
        s[i][len] = '\0';
      }
    }
    hy_free(raw);
  }
  if (space >= 0) H5Sclose(space);
  if (ftype >= 0) H5Tclose(ftype);
  if (attr >= 0) H5Aclose(attr);
  if (!ok) {
    for (hssize_t i = 0; s && i < count; i++) hy_free(s[i]);
    hy_free(s);
    return -1;
  }
  *out = s;
  *n = (int)count;
  return 0;
}

// One text attribute (the first string when it holds several): *out NULL when absent.
static int get_text(hid_t loc, const char* name, char** out, h5_quiet* q) {
  char** s;
  int n;
  *out = NULL;
  const int got = get_strings(loc, name, &s, &n, q);
  if (got != 0) return got;
  for (int i = 1; i < n; i++) hy_free(s[i]);
  *out = n > 0 ? s[0] : copy_text("");
  hy_free(s);
  return *out ? 0 : -1;
}

// Opens every channel's dataset into dset[0..nchan) and finds the rows all of them hold.
static hy_status open_datasets(hid_t group, const hy_results* r, hid_t* dset, long* nrow,
                               h5_quiet* q, hy_error* err) {
  size_t longest = 0;
  for (int c = 0; c < r->nchan; c++) {
    if (strlen(r->name[c]) > longest) longest = strlen(r->name[c]);
  }
  char* enc = hy_malloc(3 * longest + 1);
  if (!enc) return HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory", r->path);
  hy_status st = HY_OK;
  hsize_t rows = 0;
  for (int c = 0; st == HY_OK && c < r->nchan; c++) {
    encode_name(r->name[c], enc);
    dset[c] = H5Dopen2(group, enc, H5P_DEFAULT);
    if (dset[c] < 0) {
      st = HY_FAIL(err, HY_ERR_PARSE, "'%s' has no dataset /channels/%s for the channel '%s': %s",
                   r->path, enc, r->name[c], reason_of(q));
      break;
    }
    hid_t space = H5Dget_space(dset[c]);
    hsize_t len = 0;
    const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (rank == 1) H5Sget_simple_extent_dims(space, &len, NULL);
    if (space >= 0) H5Sclose(space);
    if (rank != 1) {
      st = HY_FAIL(err, HY_ERR_PARSE, "'%s': the dataset /channels/%s is not a 1-D array", r->path,
                   enc);
    }
    // a run killed while writing a block may leave the datasets uneven: the rows all hold
    if (c == 0 || len < rows) rows = len;
  }
  hy_free(enc);
  *nrow = (long)rows;
  return st;
}

// Reads rows [0, r->nrow) of every dataset into r->data.
static hy_status read_datasets(const hid_t* dset, hy_results* r, h5_quiet* q, hy_error* err) {
  if (r->nrow == 0) return HY_OK;
  const hsize_t start = 0, count = (hsize_t)r->nrow;
  hid_t mspace = H5Screate_simple(1, &count, NULL);
  hy_status st = HY_OK;
  for (int c = 0; st == HY_OK && c < r->nchan; c++) {
    hid_t fspace = H5Dget_space(dset[c]);
    const int ok = mspace >= 0 && fspace >= 0 &&
                   H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
                   H5Dread(dset[c], H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT,
                           r->data + (size_t)c * (size_t)r->nrow) >= 0;
    if (fspace >= 0) H5Sclose(fspace);
    if (!ok) {
      st = HY_FAIL(err, HY_ERR_IO, "reading the channel '%s' of '%s' failed: %s", r->name[c],
                   r->path, reason_of(q));
    }
  }
  if (mspace >= 0) H5Sclose(mspace);
  return st;
}

// The reading itself, between quiet_begin and quiet_end; r is freed by the caller on failure.
static hy_status read_file(hid_t file, hy_results* r, h5_quiet* q, hy_error* err) {
  const int got = get_strings(file, "channels", &r->name, &r->nchan, q);
  if (got != 0 || r->nchan < 1) {
    return HY_FAIL(err, HY_ERR_PARSE, "'%s' is not a hydyn results file: %s%s", r->path,
                   got < 0 ? "cannot read the root attribute 'channels': " : "",
                   got < 0 ? reason_of(q) : "no channel list (root attribute 'channels')");
  }
  static const char* const keys[3] = {"model", "settings", "summary"};
  char** texts[3] = {&r->model_text, &r->settings, &r->summary};
  for (int k = 0; k < 3; k++) {
    if (get_text(file, keys[k], texts[k], q) < 0) {
      return HY_FAIL(err, HY_ERR_PARSE, "'%s': cannot read the attribute '%s': %s", r->path,
                     keys[k], reason_of(q));
    }
  }
  hid_t group = H5Gopen2(file, "channels", H5P_DEFAULT);
  if (group < 0) {
    return HY_FAIL(err, HY_ERR_PARSE, "'%s' is not a hydyn results file: no group /channels: %s",
                   r->path, reason_of(q));
  }
  hid_t* dset = hy_malloc((size_t)r->nchan * sizeof *dset);
  r->unit = hy_calloc((size_t)r->nchan, sizeof *r->unit);
  if (!dset || !r->unit) {
    hy_free(dset);
    H5Gclose(group);
    return HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory", r->path);
  }
  for (int c = 0; c < r->nchan; c++) dset[c] = H5I_INVALID_HID;
  hy_status st = open_datasets(group, r, dset, &r->nrow, q, err);
  for (int c = 0; st == HY_OK && c < r->nchan; c++) {
    const int u = get_text(dset[c], "unit", &r->unit[c], q);
    if (u == 1) r->unit[c] = copy_text("");  // other writers' files may have no units
    if (u < 0 || !r->unit[c]) {
      st = HY_FAIL(err, HY_ERR_PARSE, "'%s': cannot read the unit of the channel '%s': %s", r->path,
                   r->name[c], u < 0 ? reason_of(q) : "out of memory");
    }
  }
  if (st == HY_OK) {
    // never NULL, also without rows: hy_results_column does arithmetic on it
    r->data = hy_malloc((size_t)r->nchan * (size_t)(r->nrow > 0 ? r->nrow : 1) * sizeof(double));
    st = r->data ? read_datasets(dset, r, q, err)
                 : HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory (%ld rows)", r->path,
                           r->nrow);
  }
  for (int c = 0; c < r->nchan; c++) {
    if (dset[c] >= 0) H5Dclose(dset[c]);
  }
  hy_free(dset);
  H5Gclose(group);
  return st;
}

hy_status hy_h5_results_read(const char* path, hy_results** out, hy_error* err) {
  if (!path || !out) return HY_FAIL(err, HY_ERR_ARG, "hy_h5_results_read: NULL argument");
  *out = NULL;
  // the system's reason for a file that cannot be opened, rather than HDF5's paragraph
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return HY_FAIL(err, HY_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  close(fd);
  hy_results* r = hy_calloc(1, sizeof *r);
  if (!r) return HY_FAIL(err, HY_ERR_NOMEM, "reading '%s': out of memory", path);
  snprintf(r->path, sizeof r->path, "%s", path);
  h5_first_use();
  h5_quiet q;
  quiet_begin(&q);
  // HDF5's locking is off as in the writer: the file of a run still going is locked by that
  // run, and its blocks so far are what the reader is for
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  hid_t file = H5I_INVALID_HID;
  if (fapl >= 0 && H5Pset_file_locking(fapl, 0, 1) >= 0) {
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  }
  if (fapl >= 0) H5Pclose(fapl);
  hy_status st;
  if (file < 0) {
    st = HY_FAIL(err, HY_ERR_IO, "cannot read '%s' as an HDF5 file: %s", path, reason_of(&q));
  } else {
    st = read_file(file, r, &q, err);
    H5Fclose(file);
  }
  quiet_end(&q);
  if (st != HY_OK) {
    hy_results_free(r);
    return st;
  }
  *out = r;
  return HY_OK;
}
