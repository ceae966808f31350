// Internal header of src/cli: drawing figures with gnuplot (Debian's gnuplot-nox), driven
// through a pipe. hydyn writes the script and the data (inline data blocks); gnuplot draws.
#ifndef HYDYN_SRC_CLI_CLI_GNUPLOT_H_
#define HYDYN_SRC_CLI_CLI_GNUPLOT_H_

#include <stddef.h>
#include <stdio.h>

// The figure formats, chosen by the output file's extension.
typedef enum hy_gp_format {
  HY_GP_PNG = 0,  // .png: pngcairo
  HY_GP_SVG = 1,  // .svg: svg
  HY_GP_PDF = 2,  // .pdf: pdfcairo
} hy_gp_format;

// The format of a figure file by its extension (any case); -1 with the reason in msg when it is
// none of .png, .svg, .pdf.
int hy_gp_format_of(const char* path, char* msg, size_t size);

// Starts gnuplot with a pipe to its standard input. NULL with the reason in msg when gnuplot is
// not installed (the message names the Debian package) or cannot be started. The executable is
// $HYDYN_GNUPLOT when set (a path, or a name looked up on PATH), else gnuplot. From the first
// call on, SIGPIPE is ignored by the process: a gnuplot that stopped at an error makes the
// writes that follow fail instead of killing hydyn, and hy_gp_close reports it.
FILE* hy_gp_open(char* msg, size_t size);
// Sets the terminal and the output file: width and height in pixels for PNG and SVG (PDF: the
// same size at 100 pixels per inch).
void hy_gp_output(FILE* gp, hy_gp_format format, const char* path, int width, int height);
// Writes s as a gnuplot string literal (single quotes, '' for a quote).
void hy_gp_string(FILE* gp, const char* s);
// Ends the script, waits for gnuplot and checks that it succeeded and that the figure file
// exists and is not empty. 0 on success, else -1 with the reason in msg.
int hy_gp_close(FILE* gp, const char* path, char* msg, size_t size);
// Ends gnuplot without drawing (the caller failed before the script was complete) and waits for
// it. The output file, if the script set one, may be left empty: the caller removes it.
void hy_gp_abort(FILE* gp);

#endif  // HYDYN_SRC_CLI_CLI_GNUPLOT_H_
