// The two closed-loop formulations behind the hy_form_* dispatch (src/form only).
#ifndef HYDYN_SRC_FORM_FORM_METHODS_H_
#define HYDYN_SRC_FORM_FORM_METHODS_H_

#include "form/form.h"

hy_status hy_penalty_residual(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                              const double* x, double* f);
// The mechanical block of the tangent (nm x nm) into Am and the cylinder Jacobians in the
// unknowns into fw->tg_Js, at the last residual evaluation.
void hy_penalty_tangent_mech(const hy_model* m, hy_data* d, hy_form_work* fw, double* Am);
hy_status hy_penalty_end(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                         const double* x);

hy_status hy_doublestep_residual(const hy_model* m, hy_data* d, hy_form_work* fw,
                                 hy_mech_work* mw, const double* x, double* f);
void hy_doublestep_tangent_mech(const hy_model* m, hy_data* d, hy_form_work* fw, double* Am);
hy_status hy_doublestep_end(const hy_model* m, hy_data* d, hy_form_work* fw, hy_mech_work* mw,
                            const double* x);

#endif  // HYDYN_SRC_FORM_FORM_METHODS_H_
