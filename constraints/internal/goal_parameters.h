#ifndef IKLAB_CONSTRAINTS_INTERNAL_GOAL_PARAMETERS_H_
#define IKLAB_CONSTRAINTS_INTERNAL_GOAL_PARAMETERS_H_

/// @file
/// The naming conventions of Goal::Parameters() and
/// InequalityGoal::Quantities() in one place (goal.h states them). Not
/// installed.

#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "constraints/goal.h"

namespace iklab::internal {

/// `name`_x, `name`_y, `name`_z.
inline void AppendVector(const std::string& name, const Eigen::Vector3d& v,
                         std::vector<GoalParameter>* out) {
  out->push_back({name + "_x", v.x()});
  out->push_back({name + "_y", v.y()});
  out->push_back({name + "_z", v.z()});
}

/// The unit quaternion of R as `name`_qw, _qx, _qy, _qz with qw ≥ 0 (q and
/// −q are the same rotation; one sign makes trials comparable).
inline void AppendRotation(const std::string& name, const Eigen::Matrix3d& R,
                           std::vector<GoalParameter>* out) {
  Eigen::Quaterniond q(R);
  q.normalize();
  if (q.w() < 0.0) q.coeffs() *= -1.0;
  out->push_back({name + "_qw", q.w()});
  out->push_back({name + "_qx", q.x()});
  out->push_back({name + "_qy", q.y()});
  out->push_back({name + "_qz", q.z()});
}

/// A pose as its origin (`name`_x, …) and rotation (`name`_qw, …).
inline void AppendPose(const std::string& name, const Eigen::Isometry3d& X,
                       std::vector<GoalParameter>* out) {
  AppendVector(name, X.translation(), out);
  AppendRotation(name, X.linear(), out);
}

/// Box bounds per component: lower_`c`, then upper_`c`, for each of the
/// component names `c` (e.g. {"x", "y", "z"}).
template <typename Vector>
void AppendBox(const std::vector<std::string>& components,
               const Vector& lower, const Vector& upper,
               std::vector<GoalParameter>* out) {
  for (std::size_t k = 0; k < components.size(); ++k) {
    out->push_back({"lower_" + components[k], lower[k]});
  }
  for (std::size_t k = 0; k < components.size(); ++k) {
    out->push_back({"upper_" + components[k], upper[k]});
  }
}

}  // namespace iklab::internal

#endif  // IKLAB_CONSTRAINTS_INTERNAL_GOAL_PARAMETERS_H_
