#ifndef IKLAB_CONSTRAINTS_INTERNAL_TOLERANCE_BOX_H_
#define IKLAB_CONSTRAINTS_INTERNAL_TOLERANCE_BOX_H_

/// @file
/// Helpers of the tolerance goals: tolerance boxes and the SO(3) logarithm
/// with its inverse left Jacobian (also used by orientation_goal.cc and
/// relative_pose_goal.cc). Not installed.

#include <string>

#include <Eigen/Core>

namespace iklab::internal {

/// Number of finite entries of lower and upper together (box rows).
int CountFiniteBounds(const Eigen::Vector3d& lower,
                      const Eigen::Vector3d& upper);
/// Checks a box: no NaN, lower ≤ upper, at least one finite entry.
/// @throws std::invalid_argument naming `owner`.
void CheckBox(const Eigen::Vector3d& lower, const Eigen::Vector3d& upper,
              const std::string& owner);
/// Rotation vector (axis·angle) of R.
Eigen::Vector3d RotationLog(const Eigen::Matrix3d& R);
/// J_l⁻¹(φ) of SO(3) (OrientationBoxGoal).
Eigen::Matrix3d InverseLeftJacobian(const Eigen::Vector3d& phi);

}  // namespace iklab::internal

#endif  // IKLAB_CONSTRAINTS_INTERNAL_TOLERANCE_BOX_H_
