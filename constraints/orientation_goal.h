#ifndef IKLAB_CONSTRAINTS_ORIENTATION_GOAL_H_
#define IKLAB_CONSTRAINTS_ORIENTATION_GOAL_H_

#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "constraints/goal.h"

namespace iklab {

/// Orientation goal (Tolani et al. §2.4, goal 2; Jack's
/// ‖x_g − x_e‖ + ‖y_g − y_e‖): the site's x and y axes align with the goal's,
///
///     r = [x_g − x_e; y_g − y_e]   (6 residuals),
///     ∂r/∂q = [[x_e]×; [y_e]×] J_ω,
///
/// where x, y are the first two columns of R_WG (goal) and R_WS (site) and
/// J_ω the angular rows of the site Jacobian. Two axes fix the third, so
/// r = 0 iff R_WS = R_WG. ‖r‖² = 2(1 − cos a) + 2(1 − cos b) for the angles a,
/// b between the axis pairs, so the potential is ≈ ½ w θ² per axis for small
/// errors. Error(): angle = rotation angle of R_WGᵀ R_WS (radians).
class OrientationGoal final : public SiteGoal {
 public:
  /// @param target R_WG, a rotation matrix (orthonormal to 1e-6, det +1).
  /// @throws std::invalid_argument for an unknown site, a target that is not
  ///   a finite rotation, or a bad weight.
  OrientationGoal(const Model& model, const std::string& site,
                  const Eigen::Matrix3d& target, double weight = 1.0);

  const Eigen::Matrix3d& target() const { return target_; }
  /// @throws std::invalid_argument if `target` is not a finite rotation.
  void set_target(const Eigen::Matrix3d& target);

  /// Parameters(): target_qw, _qx, _qy, _qz (R_WG).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  Eigen::Matrix3d target_;
};

/// Axis (partial orientation) goal (Tolani et al. §3.3): one effector axis
/// a_S, fixed in the site frame, points along a world direction a_G,
///
///     r = a_G − R_WS a_S   (3 residuals),   ∂r/∂q = [R_WS a_S]× J_ω.
///
/// Rotation about the axis is free. Error(): angle = ∠(a_G, R_WS a_S) in
/// radians and aim = 1 − cos of it (Tolani's Table 6 error is aim²).
class AxisGoal final : public SiteGoal {
 public:
  /// @param axis a_S, unit vector in the site frame.
  /// @param target a_G, unit vector in the world frame.
  /// @throws std::invalid_argument for an unknown site, zero / non-unit /
  ///   non-finite vectors (|‖·‖ − 1| ≤ 1e-6) or a bad weight.
  AxisGoal(const Model& model, const std::string& site,
           const Eigen::Vector3d& axis, const Eigen::Vector3d& target,
           double weight = 1.0);

  const Eigen::Vector3d& axis() const { return axis_; }
  const Eigen::Vector3d& target() const { return target_; }
  /// @throws std::invalid_argument if `target` is not a finite unit vector.
  void set_target(const Eigen::Vector3d& target);

  /// Parameters(): axis_x, _y, _z (a_S, site frame), direction_x, _y, _z
  /// (a_G, world).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  Eigen::Vector3d axis_;
  Eigen::Vector3d target_;
};

/// Orientation goal in minimal (rotation-vector) form: the site's
/// orientation equals R_WG with three residuals, one per rotational degree of
/// freedom,
///
///     r = −φ,  φ = Log(R_WGᵀ R_WS)   (3 residuals, |φ| < π),
///     ∂r/∂q = −J_l⁻¹(φ) R_WGᵀ J_ω
///
/// (J_l⁻¹ the inverse left Jacobian of SO(3), tolerance_goals.h). Same zero
/// set as OrientationGoal, but its Jacobian has full rank 3 near the goal,
/// which a constrained NLP needs for an equality constraint (OrientationGoal's
/// 6 rows are dependent). Log jumps at an error of π (a half turn), where the
/// potential ½ w θ² is not smooth. Error(): angle = θ = ‖φ‖ radians.
class RotationVectorGoal final : public SiteGoal {
 public:
  /// @throws std::invalid_argument as OrientationGoal.
  RotationVectorGoal(const Model& model, const std::string& site,
                     const Eigen::Matrix3d& target, double weight = 1.0);

  const Eigen::Matrix3d& target() const { return target_; }
  /// Parameters(): target_qw, _qx, _qy, _qz (R_WG).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  Eigen::Matrix3d target_;
};

/// Axis goal in minimal (tangent) form: one effector axis b = R_WS a_S along
/// a world direction a_G with two residuals, one per degree of freedom of a
/// direction,
///
///     r = −[t_1ᵀ b; t_2ᵀ b]   (2 residuals),   ∂r_k/∂q_i = −ω_iᵀ (b × t_k),
///
/// where t_1, t_2 complete a_G to an orthonormal basis (fixed at
/// construction). r = 0 at b = a_G and also at b = −a_G: pair it with the
/// inequality ConeGoal(a_S, a_G, π/2) (b in a_G's hemisphere) when used as a
/// hard constraint. AxisGoal's 3 rows have rank 2, which an SQP method's
/// equality-constrained subproblem cannot take. Error(): as AxisGoal.
class AxisTangentGoal final : public SiteGoal {
 public:
  /// @throws std::invalid_argument as AxisGoal.
  AxisTangentGoal(const Model& model, const std::string& site,
                  const Eigen::Vector3d& axis, const Eigen::Vector3d& target,
                  double weight = 1.0);

  /// Parameters(): as AxisGoal.
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  Eigen::Vector3d axis_;
  Eigen::Vector3d target_;
  Eigen::Vector3d t1_, t2_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_ORIENTATION_GOAL_H_
