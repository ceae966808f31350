// Internal header of src/linear: linearization of the equations of motion of a hydraulically
// actuated multibody model about a reference state (003_f349169f78d6df41.txt Sects. 3-4) and
// the eigen-analysis of the Jacobian. Two Jacobians:
//   reduced      the maximal reduction of Sect. 3: states [z_i, z_i_dot, p, w, U] with z_i the
//                independent coordinates (2(n - m) + r + u, plus the friction states), the
//                dependent ones and the Lagrange multipliers eliminated through the closed
//                loops (Eqs. 32-44, 53-64);
//   counterpart  Sect. 4.5: the index-1 ODE of all coordinates [z, z_dot, p, w, U] (2n + r + u
//                plus the friction states) by central differences (Eqs. 95-100), with 2m
//                spurious zero eigenvalues.
// Both work on a data of their own, set to the reference state: the caller's data is untouched.
#ifndef HYDYN_SRC_LINEAR_LINEAR_H_
#define HYDYN_SRC_LINEAR_LINEAR_H_

#include <stddef.h>

#include "core/core.h"
#include "hydyn/model.h"
#include "hydyn/sim.h"

typedef enum hy_lin_method {
  HY_LIN_REDUCED = 0,
  HY_LIN_COUNTERPART = 1,
} hy_lin_method;

typedef struct hy_linear {
  hy_lin_method method;
  int n;         // size of J
  int nq;        // coordinates among the states (reduced: ndof; counterpart: nz)
  int nv;        // velocities among the states (reduced: ndof - l, those of the first nv
                 // coordinates, x_ai; counterpart: nz)
  int np, nw, nu;  // pressures, friction states, spool states (hy_sizes.nspool)
  int* coord;    // the relative coordinate of each of the nq                        (nq)
  double* J;     // d x_dot / d x, row-major                                          (n x n)
  double* x;     // the reference state                                               (n)
  double* Rz;    // d z / d (the nq coordinates): every coordinate's variation from the
                 // states' (reduced: R_z of the loop closure, seed 003 Eq. 44; counterpart:
                 // the identity)                                                         (nz x nq)
  int nz;        // coordinates of the model
  double t;      // its time (s)
  double h;      // counterpart: the difference step (relative, see hy_linear_make)
} hy_linear;

// The Jacobian of method at the state of d (time, coordinates, velocities, pressures, friction
// states, spools), which must be a state of model m. h (counterpart only): the step of the
// central differences, relative: state x_j is moved by h max(1, |x_j|) for coordinates and
// velocities and by h max(1e5 Pa, |p_j|) for pressures (<= 0: 1e-5). The reduced Jacobian's
// hydraulic blocks are analytic (the network's derivatives, seed 003 Eqs. 53-64); its mechanical
// blocks (the accelerations' dependence on z_i and z_i_dot) are central differences with a step
// of 1e-6 (rad or m, and per s), checked in tests/linear against the counterpart and closed
// forms. HY_ERR_MODEL when the model has no degree of freedom. Nullable: err.
hy_status hy_linear_make(const hy_model* m, const hy_data* d, hy_lin_method method, double h,
                         hy_linear** out, hy_error* err);
void hy_linear_free(hy_linear* L);

// What hy_linear_make sets up once (a copy of the model and a data of it), for a caller that
// linearizes the same model about many states (sweeps, the benchmark): hy_linear_make is
// hy_linearizer_make, hy_linearizer_jacobian and hy_linearizer_free.
typedef struct hy_linearizer hy_linearizer;
hy_status hy_linearizer_make(const hy_model* m, hy_linearizer** out, hy_error* err);
hy_status hy_linearizer_jacobian(hy_linearizer* lz, const hy_model* m, const hy_data* d,
                                 hy_lin_method method, double h, hy_linear** out, hy_error* err);
void hy_linearizer_free(hy_linearizer* lz);
// Name of state i of L ("z:theta1", "zd:theta1", "p:V1", "w:cylinder:q", "U:dcv") into buf.
void hy_linear_state_name(const hy_model* m, const hy_linear* L, int i, char* buf, size_t size);

// The state of d in L's states (reduced: the independent coordinates and their velocities) into
// x (L->n).
void hy_linear_gather(const hy_linear* L, const hy_data* d, double* x);
// Unit of state i of L ("rad", "m/s", "Pa", "V", ...).
const char* hy_linear_state_unit(const hy_model* m, const hy_linear* L, int i);

// seed 003 Eq. 94: the linear system x_tilde_dot = J x_tilde, x = x_ref + x_tilde, stepped by the
// trapezoidal rule (I - h/2 J) x_{k+1} = (I + h/2 J) x_k, as hydyn steps the nonlinear one.
typedef struct hy_linear_sim {
  int n;
  double h;
  double* A;   // the LU factors of I - h/2 J            (n x n)
  int* piv;    //                                         (n)
  double* xt;  // x_tilde                                 (n)
  double* b;   //                                         (n)
} hy_linear_sim;
// Starts at the state x0 (L's states) with step h. HY_ERR_SINGULAR when I - h/2 J is singular,
// HY_ERR_NOMEM. Nullable: err.
hy_status hy_linear_sim_init(const hy_linear* L, double h, const double* x0, hy_linear_sim* s,
                             hy_error* err);
void hy_linear_sim_step(const hy_linear* L, hy_linear_sim* s);
// x = x_ref + x_tilde (L->n).
void hy_linear_sim_state(const hy_linear* L, const hy_linear_sim* s, double* x);
void hy_linear_sim_free(hy_linear_sim* s);

// Eigenvalues re + i im of the n x n row-major J and, when vr is not NULL, its right eigenvectors
// as LAPACK's dgeev returns them, row-major: column k of vr is eigenvector k, a complex pair
// k, k+1 (im[k] > 0) is vr[:,k] +- i vr[:,k+1]. HY_ERR_SINGULAR when LAPACK fails.
// linear_eigen.c is the only file that includes LAPACKE.
hy_status hy_linear_eigen(int n, const double* J, double* re, double* im, double* vr,
                          hy_error* err);

#endif  // HYDYN_SRC_LINEAR_LINEAR_H_
