// Internal header of src/cli: the subcommands of the hydyn command.
#ifndef HYDYN_SRC_CLI_CLI_H_
#define HYDYN_SRC_CLI_CLI_H_

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

// Exit statuses of the command (docs/cli.md).
enum {
  HY_CLI_OK = 0,     // success
  HY_CLI_FAIL = 1,   // the model could not be loaded or the run failed
  HY_CLI_USAGE = 2,  // bad command line
};

// `hydyn run`: argv[0] is "run". Returns an exit status.
int hy_cli_run(int argc, char** argv);
// `hydyn models`: argv[0] is "models". Returns an exit status.
int hy_cli_models(int argc, char** argv);
// `hydyn friction`: argv[0] is "friction". Returns an exit status.
int hy_cli_friction(int argc, char** argv);
// `hydyn channels`, `plot`, `compare`, `snapshot`, `info`, `report`: argv[0] is the command.
// Each returns an exit status.
int hy_cli_channels(int argc, char** argv);
int hy_cli_plot(int argc, char** argv);
int hy_cli_compare(int argc, char** argv);
int hy_cli_snapshot(int argc, char** argv);
int hy_cli_info(int argc, char** argv);
int hy_cli_report(int argc, char** argv);
// `hydyn cosim`: argv[0] is "cosim". Returns an exit status.
int hy_cli_cosim(int argc, char** argv);
// `hydyn linearize`: argv[0] is "linearize". Returns an exit status.
int hy_cli_linearize(int argc, char** argv);
// SIGINT or SIGTERM asking a long command (run, report, cosim) to stop after its current step:
// the signal, 0 while none came (cli_signal.c). hy_cli_catch_stop_signals clears it and installs
// the handler, which also puts the default action back, so that a second Ctrl-C ends the
// process at once.
extern volatile sig_atomic_t hy_cli_stop_signal;
void hy_cli_catch_stop_signals(void);
// Lists the built-in models on fp, separated by `sep`.
void hy_cli_list_builtins(FILE* fp, const char* sep);

// The option argv[*i] if it is one of `valued` (options with a value: "--name value",
// "--name=value"; a short "-o" only as "-o value"): its index, the value in *val and *i moved
// past it; -1 when it is none of them; -2 with the reason in msg when its value is missing or is
// another option (a forgotten value, not a file named "--dt").
int hy_cli_valued_option(int argc, char** argv, int* i, const char* const* valued, int nvalued,
                         const char** val, char* msg, size_t size);

// A bad command line of `hydyn CMD`: "hydyn CMD: <message>" and a hint to its --help on standard
// error. Returns HY_CLI_USAGE.
__attribute__((format(printf, 2, 3))) int hy_cli_usage_error(const char* cmd, const char* fmt,
                                                              ...);
// 1 when paths a and b name the same file: the same string, or both existing with the same
// device and inode (another spelling of the path, a link). Writing an output that is the same
// file as an input would destroy the input.
int hy_cli_same_file(const char* a, const char* b);
// A whole argument as a finite number > 0 (>= 0 with allow_zero) into *out; -1 when it is not.
int hy_cli_parse_number(const char* s, int allow_zero, double* out);

#endif  // HYDYN_SRC_CLI_CLI_H_
