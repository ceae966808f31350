// Eigenvalues and right eigenvectors of a Jacobian through LAPACK's dgeev; the only file that
// includes LAPACKE (docs/architecture.md, "externals").
#include <lapacke.h>
#include <string.h>

#include "linear/linear.h"

hy_status hy_linear_eigen(int n, const double* J, double* re, double* im, double* vr,
                          hy_error* err) {
  if (n <= 0 || !J || !re || !im) return HY_FAIL(err, HY_ERR_ARG, "hy_linear_eigen: bad arguments");
  // dgeev overwrites its matrix
  double* a = hy_malloc(sizeof(double) * (size_t)n * (size_t)n);
  if (!a) return HY_FAIL(err, HY_ERR_NOMEM, "hy_linear_eigen: out of memory");
  memcpy(a, J, sizeof(double) * (size_t)n * (size_t)n);
  double dummy = 0;
  const lapack_int info = LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', vr ? 'V' : 'N', n, a, n, re, im,
                                        &dummy, 1, vr ? vr : &dummy, vr ? n : 1);
  hy_free(a);
  if (info != 0) {
    return HY_FAIL(err, HY_ERR_SINGULAR,
                   "eigenvalues: LAPACK dgeev failed (info %d: %s)", (int)info,
                   info < 0 ? "an argument was invalid" : "the QR iteration did not converge");
  }
  return HY_OK;
}
