#ifndef IKLAB_CONSTRAINTS_AIMING_GOAL_H_
#define IKLAB_CONSTRAINTS_AIMING_GOAL_H_

#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"

namespace iklab {

/// Aiming goal (Tolani et al. §2.4, goal 4, and §3.4): a line on the effector
/// through the site origin r_e = p_WS with direction v_S (site frame) points
/// at the target point p,
///
///     d = p − r_e,   u = d / ‖d‖,   v_W = R_WS v_S,
///     r = u − v_W                                    (3 residuals)
///
///     ∂u/∂q = (I − u uᵀ)/‖d‖ · ∂d/∂q = −(I − u uᵀ) J_v / ‖d‖
///     ∂v_W/∂q = ω × v_W = −[v_W]× J_ω
///     ∂r/∂q = −(I − u uᵀ) J_v / ‖d‖ + [v_W]× J_ω
///
/// Degenerate case: when ‖d‖ < min_distance() the direction u is undefined
/// (the target sits on the aim point). The goal then writes a zero residual
/// and zero Jacobian (it neither pulls nor pushes, and never produces a NaN),
/// and Error() reports `degenerate = true` with the worst values aim = 2,
/// angle = π, so no tolerance mistakes it for a satisfied goal. If the site cannot move (no
/// joint between the root and the site), the case is detected at
/// construction and rejected.
///
/// Error(): aim = 1 − u·v_W, angle = ∠(u, v_W) in radians.
class AimingGoal final : public SiteGoal {
 public:
  /// Default for min_distance(): below it (length units) the aim direction
  /// is treated as undefined.
  static constexpr double kDefaultMinDistance = 1e-9;

  /// @param direction v_S, unit aim direction in the site frame.
  /// @param target p, the world point to aim at.
  /// @param min_distance degenerate-case threshold on ‖p − r_e‖, > 0.
  /// @throws std::invalid_argument for an unknown site, a zero / non-unit /
  ///   non-finite direction, a non-finite target, min_distance ≤ 0, a bad
  ///   weight, or a target on a site that cannot move away from it.
  AimingGoal(const Model& model, const std::string& site,
             const Eigen::Vector3d& direction, const Eigen::Vector3d& target,
             double weight = 1.0,
             double min_distance = kDefaultMinDistance);

  const Eigen::Vector3d& direction() const { return direction_; }
  const Eigen::Vector3d& target() const { return target_; }
  double min_distance() const { return min_distance_; }
  /// @throws std::invalid_argument as the constructor (the fixed-site check
  ///   needs the model).
  void set_target(const Model& model, const Eigen::Vector3d& target);

  /// True if the target coincides with the aim point at the pose in `data`.
  bool IsDegenerate(const Model& model, const Data& data) const;

  /// Parameters(): axis_x, _y, _z (v_S, site frame), target_x, _y, _z (p,
  /// the point aimed at, world).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;
  void CheckTarget(const Model& model, const Eigen::Vector3d& target) const;

  Eigen::Vector3d direction_;
  Eigen::Vector3d target_;
  double min_distance_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_AIMING_GOAL_H_
