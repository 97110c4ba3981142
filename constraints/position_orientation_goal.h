#ifndef IKLAB_CONSTRAINTS_POSITION_ORIENTATION_GOAL_H_
#define IKLAB_CONSTRAINTS_POSITION_ORIENTATION_GOAL_H_

#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "constraints/goal.h"

namespace iklab {

/// Relative weights and unit scales of Tolani's goal 3.
///
/// Defaults: w_p = w_o = 1 (position and rotation equally important) and
/// c_dx = c_dy = 1 length unit, i.e. one radian of rotation counts like one
/// length unit of translation. That is neutral for metre-scale robots (the
/// success thresholds of the IK benchmark protocol, 1e-5 m and 1e-5 rad,
/// are then balanced too). For figures measured in other units set c_dx,
/// c_dy to a characteristic length of the effector, e.g. the hand length.
/// The paper gives no values.
struct PositionOrientationScales {
  double w_p = 1.0;   ///< Position weight, ≥ 0.
  double w_o = 1.0;   ///< Orientation weight, ≥ 0.
  double c_dx = 1.0;  ///< Length scale of the x-axis term, ≥ 0.
  double c_dy = 1.0;  ///< Length scale of the y-axis term, ≥ 0.
};

/// Position + orientation goal, the conventional IK problem (Tolani et al.
/// §2.4, goal 3). Jack's potential is
///
///     w_p ‖r_goal − r_e‖ + w_o c_dx² ‖x_g − x_e‖ + w_o c_dy² ‖y_g − y_e‖;
///
/// ours is its least-squares form (squared norms, see goal.h), with
///
///     r = [ √w_p (p_WT − p_WS);
///           √w_o c_dx (x_g − x_e);
///           √w_o c_dy (y_g − y_e) ]                       (9 residuals)
///
///     ∂r/∂q = [ −√w_p J_v; √w_o c_dx [x_e]× J_ω; √w_o c_dy [y_e]× J_ω ]
///
/// so ½‖r‖² = ½(w_p ‖Δp‖² + w_o c_dx² ‖Δx‖² + w_o c_dy² ‖Δy‖²): the c's
/// enter squared exactly as in Jack. c_dx, c_dy carry length units: an axis
/// difference ‖Δx‖ ≈ θ (radians) becomes c_dx θ, the displacement of a point
/// at distance c_dx along the effector's x axis, so rotation and translation
/// errors are measured in the same unit.
///
/// Error(): position = ‖p_WT − p_WS‖, angle = rotation angle of R_WGᵀ R_WS.
class PositionOrientationGoal final : public SiteGoal {
 public:
  using Scales = PositionOrientationScales;


  /// @param target X_WG, the goal pose of the site (rigid to 1e-6).
  /// @throws std::invalid_argument for an unknown site, a target that is not
  ///   a finite rigid transform, a negative / non-finite scale (named), or a
  ///   bad weight.
  PositionOrientationGoal(const Model& model, const std::string& site,
                          const Eigen::Isometry3d& target, double weight = 1.0,
                          const Scales& scales = Scales{});

  const Eigen::Isometry3d& target() const { return target_; }
  const Scales& scales() const { return scales_; }
  /// @throws std::invalid_argument as the constructor.
  void set_target(const Eigen::Isometry3d& target);

  /// Parameters(): target_x, _y, _z, target_qw, _qx, _qy, _qz (X_WG).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  Eigen::Isometry3d target_;
  Scales scales_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_POSITION_ORIENTATION_GOAL_H_
