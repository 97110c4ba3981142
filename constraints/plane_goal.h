#ifndef IKLAB_CONSTRAINTS_PLANE_GOAL_H_
#define IKLAB_CONSTRAINTS_PLANE_GOAL_H_

#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"

namespace iklab {

/// Plane goal (Tolani et al. §2.4, goal 5; Jack's ((p − r_e)·n̂)²): the site
/// origin lies on the plane through p with unit normal n̂,
///
///     r = (p − p_WS)·n̂   (1 residual),   ∂r/∂q = −n̂ᵀ J_v.
///
/// Error(): position = |r|, the distance to the plane.
class PlaneGoal final : public SiteGoal {
 public:
  /// @param point p, any point of the plane (world frame).
  /// @param normal n̂, unit normal (world frame; |‖n̂‖ − 1| ≤ 1e-6).
  /// @throws std::invalid_argument for an unknown site, a non-finite point, a
  ///   zero, non-unit or non-finite normal, or a bad weight.
  PlaneGoal(const Model& model, const std::string& site,
            const Eigen::Vector3d& point, const Eigen::Vector3d& normal,
            double weight = 1.0);

  const Eigen::Vector3d& point() const { return point_; }
  const Eigen::Vector3d& normal() const { return normal_; }
  /// @throws std::invalid_argument as the constructor.
  void set_plane(const Eigen::Vector3d& point, const Eigen::Vector3d& normal);

  /// Parameters(): point_x, _y, _z and normal_x, _y, _z (world).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  Eigen::Vector3d point_;
  Eigen::Vector3d normal_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_PLANE_GOAL_H_
