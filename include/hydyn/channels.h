// hydyn result channels: the named quantities with units that a run can record (coordinates,
// pressures, flows, forces, energies, solver figures), bound to one hy_data, and their selection
// by name or glob. The CSV and HDF5 recorders write channels; docs/results.md lists them.
#ifndef HYDYN_CHANNELS_H_
#define HYDYN_CHANNELS_H_

#include "hydyn/model.h"
#include "hydyn/sim.h"
#include "hydyn/types.h"

#ifdef __cplusplus
extern "C" {
#endif

// Longest channel name, terminator included: a prefix of up to 15 characters and an element
// name (HY_NAME_MAX).
#define HY_CHANNEL_NAME_MAX (HY_NAME_MAX + 16)

// How a channel's value is read from the data it was made for.
typedef enum hy_channel_source {
  HY_CHANNEL_DOUBLE = 0,  // *value
  HY_CHANNEL_INT = 1,     // (double)*count
  HY_CHANNEL_FN = 2,      // fn(data)
} hy_channel_source;

typedef struct hy_channel {
  char name[HY_CHANNEL_NAME_MAX];  // "time", "z:boom", "p:A", "Q_PA:valve", "E_kin"
  char unit[16];                   // SI unit ("Pa", "m^3/s"), "" for counts and ratios
  const char* what;                // what it is, one phrase (static string)
  int is_default;                  // 1: recorded when no selection is given
  hy_channel_source source;
  const double* value;             // HY_CHANNEL_DOUBLE: into the data
  const int* count;                // HY_CHANNEL_INT: into the data
  double (*fn)(const hy_data* d);  // HY_CHANNEL_FN
} hy_channel;

// Every channel a model offers when run by data d, in a fixed order: time first, then the
// default set in the order of the default CSV, then the others. The channels point into d: use
// them with d only, and free them before d.
typedef struct hy_channels {
  int n;
  hy_channel* ch;
} hy_channels;

// Builds the channels of model m run by d. HY_ERR_ARG for NULL arguments, HY_ERR_NOMEM.
// Nullable: err.
HY_API hy_status hy_channels_make(const hy_model* m, const hy_data* d, hy_channels** out,
                                  hy_error* err);
HY_API void hy_channels_free(hy_channels* c);
// Index of the channel called `name`, or -1.
HY_API int hy_channels_find(const hy_channels* c, const char* name);

// 1 when `name` matches `pattern`: a name, or a glob with * (any run of characters, also
// empty) and ? (any one character), case-sensitive. "p:*" matches every pressure.
HY_API int hy_channel_match(const char* pattern, const char* name);

// The channels a selection names, in its order: `spec` is a comma-separated list of names and
// globs, where `default` stands for the default set and `all` for every channel. A channel is
// taken once, at its first mention; time is always first. On success *idx (allocated with
// hy_channels_free's allocator, free with hy_channels_free_selection) holds *n indices. A
// pattern that matches nothing is HY_ERR_ARG with a message naming it and the prefixes the
// model offers. spec NULL or "" is the default set. Nullable: err.
HY_API hy_status hy_channels_select(const hy_channels* c, const char* spec, int** idx, int* n,
                                    hy_error* err);
HY_API void hy_channels_free_selection(int* idx);

// The current value of channel i.
HY_API double hy_channel_value(const hy_channel* ch, const hy_data* d);
// The values of the channels idx[0..n) into out[0..n). Never allocates.
HY_API void hy_channels_eval(const hy_channels* c, const hy_data* d, const int* idx, int n,
                             double* out);

#ifdef __cplusplus
}
#endif

#endif  // HYDYN_CHANNELS_H_
