// SIGINT and SIGTERM for the commands that run long (run, report, cosim): the handler only
// stores the signal, which the command reads between steps, and puts the default action back
// so that a second Ctrl-C ends the process at once when a step hangs.
#define _POSIX_C_SOURCE 200809L  // sigaction

#include <signal.h>
#include <string.h>

#include "cli/cli.h"

volatile sig_atomic_t hy_cli_stop_signal;

static void on_stop_signal(int sig) {
  hy_cli_stop_signal = sig;
  signal(sig, SIG_DFL);
}

void hy_cli_catch_stop_signals(void) {
  hy_cli_stop_signal = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}
