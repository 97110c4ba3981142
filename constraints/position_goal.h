#ifndef IKLAB_CONSTRAINTS_POSITION_GOAL_H_
#define IKLAB_CONSTRAINTS_POSITION_GOAL_H_

#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"

namespace iklab {

/// Position goal (Tolani et al. §2.4, goal 1; Jack's ‖r_goal − r_e‖):
///
///     r = p_WT − p_WS   (3 residuals),   ∂r/∂q = −J_v,
///
/// where p_WT is the target point and p_WS the site origin in the world.
/// Error(): position = ‖r‖.
class PositionGoal final : public SiteGoal {
 public:
  /// @param model the model the goal is evaluated on.
  /// @param site name of the effector site.
  /// @param target p_WT, the world position to reach.
  /// @param weight w ≥ 0.
  /// @throws std::invalid_argument for an unknown site, a non-finite target
  ///   or a negative/non-finite weight.
  PositionGoal(const Model& model, const std::string& site,
               const Eigen::Vector3d& target, double weight = 1.0);

  const Eigen::Vector3d& target() const { return target_; }
  /// @throws std::invalid_argument if `target` is not finite.
  void set_target(const Eigen::Vector3d& target);

  /// Parameters(): target_x, _y, _z (p_WT).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  Eigen::Vector3d target_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_POSITION_GOAL_H_
