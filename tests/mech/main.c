#include "fixture.h"

Suite* mech_dynamics_suite(void);
Suite* mech_constraint_suite(void);
Suite* mech_dynamics_planar_suite(void);
Suite* mech_kinematics_planar_suite(void);
Suite* mech_joints_suite(void);
Suite* mech_gimbal_suite(void);

int main(void) {
  return hy_test_main(mech_dynamics_suite(), mech_constraint_suite(), mech_dynamics_planar_suite(),
                      mech_kinematics_planar_suite(), mech_joints_suite(),
                      mech_gimbal_suite(), NULL);
}
