// The Cardan charts of spherical and free joints: three revolute joints in a chain
// (model_joint.c) whose middle angle must stay clear of +-90 deg, where the first and third axes
// align, the angles lose a degree of freedom and the mass matrix turns singular
// (docs/model-format.md, "Singularities").
#include <math.h>

#include "core/core.h"
#include "hydyn/names.h"
#include "mech/mech.h"
#include "model/model.h"

hy_status hy_mech_gimbal_check(const hy_model* m, hy_data* d) {
  const double lim = sin(HY_GIMBAL_MARGIN);
  for (int g = 0; g < m->sizes.ngimbal; g++) {
    const int j = m->gimbal_jnt[g];
    const double beta = d->z[m->jnt_zadr[j]];
    // |cos beta| < sin(margin): within the margin of +-90 deg (a NaN passes, for the
    // finiteness checks to name)
    if (!(fabs(cos(beta)) < lim)) continue;
    char name[HY_NAME_MAX];
    return HY_FAIL(&d->err, HY_ERR_SINGULAR,
                   "%s joint '%s' reached the gimbal lock of its Cardan angles at t = %.9g s: "
                   "its middle angle '%s' is %.6g deg, within %g deg of +-90 deg, where its first "
                   "and third axes align; orient axis, child_axis and axis2 so that the motion "
                   "keeps clear of it (docs/model-format.md, \"Singularities\")",
                   hy_joint_type_name((hy_joint_type)m->jnt_kind[j]),
                   hy_model_joint_def_name(m, j, name), d->time,
                   m->jnt_name + (size_t)j * HY_NAME_MAX, beta * 180.0 / HY_PI,
                   HY_GIMBAL_MARGIN * 180.0 / HY_PI);
  }
  return HY_OK;
}
