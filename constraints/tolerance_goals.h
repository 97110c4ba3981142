#ifndef IKLAB_CONSTRAINTS_TOLERANCE_GOALS_H_
#define IKLAB_CONSTRAINTS_TOLERANCE_GOALS_H_

/// @file
/// Tolerance (inequality) goals on one site: an axis within a cone, a gaze
/// cone at a point, and per-axis tolerance boxes on position and orientation
/// (TRAC-IK's "bounds", Beeson & Ames, Humanoids 2015, §III). All follow
/// inequality_goal.h: c(q) ≤ 0, soft form r = max(0, c) with P = ½ w ‖r‖².
/// J_v, J_ω below are the linear and angular rows of the site's geometric
/// Jacobian (kinematics.h); column i is [v_i; ω_i].

#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "constraints/inequality_goal.h"

namespace iklab {

/// Orientation cone (Drake's AngleBetweenVectorsConstraint, upper bound
/// only): the site axis b = R_WS a_S stays within the half-angle α of the
/// world direction d,
///
///     c = cos α − dᵀ b ≤ 0   (1 row),   ∂c/∂q_i = −ω_iᵀ (b × d).
///
/// c is in cosine units (smooth everywhere, unlike the angle ∠(b, d), whose
/// gradient is undefined at b = d). Soft form: P = ½ w max(0, cos α − dᵀb)².
/// Error(): angle = max(0, ∠(b, d) − α) radians.
class ConeGoal final : public InequalityGoal {
 public:
  /// @param axis a_S, unit vector in the site frame.
  /// @param direction d, unit vector in the world frame.
  /// @param half_angle α in [0, π] radians.
  /// @throws std::invalid_argument for an unknown site, non-unit vectors, an
  ///   angle outside [0, π] (e.g. negative) or a bad weight.
  ConeGoal(const Model& model, const std::string& site,
           const Eigen::Vector3d& axis, const Eigen::Vector3d& direction,
           double half_angle, double weight = 1.0);

  double half_angle() const { return half_angle_; }
  int site() const { return site_; }
  /// a_S, the site axis (site frame), and d, the cone's direction (world).
  const Eigen::Vector3d& axis() const { return axis_; }
  const Eigen::Vector3d& direction() const { return direction_; }

  /// Parameters(): axis_x, _y, _z (a_S), direction_x, _y, _z (d),
  /// half_angle (α). Quantities(): angle = ∠(b, d) ≤ α, radians.
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluateConstraint(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            Eigen::Ref<Eigen::VectorXd> value,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int site_;
  std::string site_name_;
  Eigen::Vector3d axis_;
  Eigen::Vector3d direction_;
  double half_angle_;
  double cos_half_angle_;
};

/// Gaze cone (Drake's GazeTargetConstraint): the site axis b = R_WS a_S,
/// from the site origin p = p_WS, points within the half-angle α of the
/// target point t,
///
///     u = (t − p)/ρ, ρ = ‖t − p‖,   c = cos α − uᵀ b ≤ 0   (1 row),
///     ∂c/∂q_i = −ω_iᵀ (b × u) + bᵀ (I − u uᵀ) v_i / ρ
///
/// (∂b/∂q_i = ω_i × b and ∂u/∂q_i = −(I − u uᵀ) v_i / ρ). Soft form:
/// P = ½ w max(0, c)². When the target coincides with the site (ρ < 1e-12)
/// there is no direction: c = 0, ∂c/∂q = 0 and Error() says degenerate.
/// Error(): angle = max(0, ∠(b, u) − α) radians.
class GazeGoal final : public InequalityGoal {
 public:
  /// @param axis a_S, unit vector in the site frame.
  /// @param target t, a world point.
  /// @param half_angle α in [0, π] radians.
  /// @throws std::invalid_argument as ConeGoal, or for a non-finite target.
  GazeGoal(const Model& model, const std::string& site,
           const Eigen::Vector3d& axis, const Eigen::Vector3d& target,
           double half_angle, double weight = 1.0);

  int site() const { return site_; }
  /// a_S (site frame), the target t (world) and α.
  const Eigen::Vector3d& axis() const { return axis_; }
  const Eigen::Vector3d& target() const { return target_; }
  double half_angle() const { return half_angle_; }

  /// Parameters(): axis_x, _y, _z (a_S), target_x, _y, _z (t), half_angle
  /// (α). Quantities(): angle = ∠(b, u) ≤ α, radians (NaN when the target
  /// is on the site).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluateConstraint(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            Eigen::Ref<Eigen::VectorXd> value,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int site_;
  std::string site_name_;
  Eigen::Vector3d axis_;
  Eigen::Vector3d target_;
  double half_angle_;
  double cos_half_angle_;
};

/// Per-axis position tolerance box (TRAC-IK's translational bounds): the
/// site origin, expressed in a target frame T, stays within [lower, upper]
/// on each axis,
///
///     e = R_WTᵀ (p_WS − p_WT),
///     c = [e_k − upper_k  (finite upper_k);  lower_k − e_k  (finite
///     lower_k)] ≤ 0,   ∂e/∂q_i = R_WTᵀ v_i.
///
/// Infinite bounds add no row (a free axis). Soft form: P = ½ w Σ max(0,
/// c_k)². Error(): position = ‖(max(0, e − upper, lower − e))_k‖.
class PositionBoxGoal final : public InequalityGoal {
 public:
  /// @param frame X_WT, the box's frame (its rotation must be orthonormal).
  /// @param lower, upper the box in T, length units; lower ≤ upper,
  ///   ±infinity for a free side, at least one finite entry.
  /// @throws std::invalid_argument for an unknown site, lower > upper, NaN
  ///   bounds, no finite bound, a bad frame or a bad weight.
  PositionBoxGoal(const Model& model, const std::string& site,
                  const Eigen::Isometry3d& frame, const Eigen::Vector3d& lower,
                  const Eigen::Vector3d& upper, double weight = 1.0);

  int site() const { return site_; }
  /// X_WT and the box [lower, upper] in T (±infinity for a free side).
  const Eigen::Isometry3d& frame() const { return frame_; }
  const Eigen::Vector3d& lower() const { return lower_; }
  const Eigen::Vector3d& upper() const { return upper_; }

  /// Parameters(): frame_x, _y, _z, frame_qw, _qx, _qy, _qz (X_WT),
  /// lower_x, _y, _z, upper_x, _y, _z. Quantities(): x, y, z = e, length
  /// units.
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluateConstraint(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            Eigen::Ref<Eigen::VectorXd> value,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int site_;
  std::string site_name_;
  Eigen::Isometry3d frame_;
  Eigen::Vector3d lower_;
  Eigen::Vector3d upper_;
};

/// Per-axis orientation tolerance box (TRAC-IK's rotational bounds): the
/// rotation vector of the site's orientation relative to a target rotation,
/// expressed in the target frame, stays within [lower, upper] radians,
///
///     φ = Log(R_WTᵀ R_WS)   (axis·angle, |φ| < π),
///     c = [φ_k − upper_k;  lower_k − φ_k] (finite bounds only) ≤ 0,
///     ∂φ/∂q_i = J_l⁻¹(φ) R_WTᵀ ω_i,
///     J_l⁻¹(φ) = I − ½[φ]× + (1/θ² − (1 + cos θ)/(2θ sin θ)) [φ]×²,
///     θ = ‖φ‖
///
/// (the inverse left Jacobian of SO(3): a world angular velocity ω changes
/// R_TS = R_WTᵀ R_WS by [R_WTᵀ ω]× R_TS; Solà et al., "A micro Lie theory
/// for state estimation in robotics", 2018, Eq. 146). Bounds must lie in
/// (−π, π); Log jumps at θ = π, so the box is meant for tolerances well below
/// π. Soft form: P = ½ w Σ max(0, c_k)². Error(): angle = ‖violation of φ‖.
class OrientationBoxGoal final : public InequalityGoal {
 public:
  /// @param target R_WT, a rotation.
  /// @param lower, upper radians in (−π, π) or ±infinity; lower ≤ upper; at
  ///   least one finite entry.
  /// @throws std::invalid_argument for an unknown site, a bad rotation,
  ///   bounds out of order or out of (−π, π), no finite bound, a bad weight.
  OrientationBoxGoal(const Model& model, const std::string& site,
                     const Eigen::Matrix3d& target, const Eigen::Vector3d& lower,
                     const Eigen::Vector3d& upper, double weight = 1.0);

  /// Parameters(): target_qw, _qx, _qy, _qz (R_WT), lower_rx, _ry, _rz,
  /// upper_rx, _ry, _rz. Quantities(): rx, ry, rz = φ, radians.
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluateConstraint(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            Eigen::Ref<Eigen::VectorXd> value,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int site_;
  std::string site_name_;
  Eigen::Matrix3d target_;
  Eigen::Vector3d lower_;
  Eigen::Vector3d upper_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_TOLERANCE_GOALS_H_
