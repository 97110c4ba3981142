#ifndef IKLAB_CONSTRAINTS_RELATIVE_POSE_GOAL_H_
#define IKLAB_CONSTRAINTS_RELATIVE_POSE_GOAL_H_

/// @file
/// Goals on the pose of one site relative to another (both may move): site B
/// held at a pose in site A's frame — two hands holding one object, a tool
/// kept level with a camera, a foot placed relative to the other foot —
/// whatever the rest of the figure does. Drake's IK poses this as a
/// PositionConstraint / OrientationConstraint with frameA a moving body;
/// TRAC-IK's tolerance box measured in a moving frame is the inequality
/// form.
///
/// Notation (goal.h, kinematics.h): X_WA = (R_WA, p_WA) and X_WB the world
/// poses of the two sites, X_AB = X_WAᵀ X_WB the relative pose, with
///
///     p_AB = R_WAᵀ (p_WB − p_WA),   R_AB = R_WAᵀ R_WB.
///
/// For coordinate i let [v_i^B; ω_i^B] be the column of B's geometric
/// Jacobian at p_WB, and [v_i^A(p_WB); ω_i^A] the column of A's Jacobian
/// evaluated at the point p_WB (the velocity of the point of A's body that
/// is at p_WB now). Then, with R_WA moving as [ω_i^A]× R_WA,
///
///     ∂p_AB/∂q_i = R_WAᵀ (v_i^B − v_i^A(p_WB)),
///     ∂R_AB/∂q_i = [R_WAᵀ (ω_i^B − ω_i^A)]× R_AB:
///
/// only the motion of B relative to A counts, and a joint that moves both
/// sites alike (a common ancestor) contributes nothing.

#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "constraints/goal.h"
#include "constraints/inequality_goal.h"

namespace iklab {

/// Which parts of the relative pose a RelativePoseGoal imposes, and how a
/// radian compares with a length in its potential.
struct RelativePoseParts {
  /// Impose the relative position p_AB (3 rows).
  bool position = true;
  /// Impose the relative orientation R_AB (3 rows).
  bool orientation = true;
  /// ℓ > 0 of the orientation rows r = −ℓ φ: length units per radian, so a
  /// rotation error θ counts like a position error ℓ θ in the potential
  /// (as PositionOrientationScales::c_dx). 1 is neutral for metre-scale
  /// figures; for others use a characteristic length of the held object. It
  /// scales rows only, so a hard constraint's solution set does not depend
  /// on it.
  double length_per_radian = 1.0;
};

/// Relative pose goal (equality form): site B at the pose X_AT in site A's
/// frame, in minimal form (one row per degree of freedom, as an equality
/// constraint of an NLP needs; cf. RotationVectorGoal),
///
///     r = −[ R_ATᵀ (p_AB − p_AT);  ℓ φ ],   φ = Log(R_ATᵀ R_AB)  (|φ| < π),
///     ∂r/∂q_i = −[ R_WTᵀ (v_i^B − v_i^A(p_WB));
///                  ℓ J_l⁻¹(φ) R_WTᵀ (ω_i^B − ω_i^A) ],   R_WT = R_WA R_AT
///
/// (the position error measured in the target frame T = A·X_AT, so that both
/// forms share e below; J_l⁻¹ the inverse left Jacobian of SO(3),
/// tolerance_goals.h; the rotation rows follow from ∂(R_ATᵀ R_AB)/∂q_i = [R_WTᵀ(ω_i^B − ω_i^A)]×
/// R_ATᵀ R_AB, Solà et al. 2018, Eq. 146) with only the parts chosen in
/// RelativePoseParts (3 or 6 rows). Penalty (soft) form: the potential
/// P = ½ w ‖r‖² = ½ w (‖Δp‖² + ℓ² θ²). Log jumps at a relative rotation error
/// of π, where P is not smooth. Error(): position = ‖p_AB − p_AT‖ (length
/// units), angle = θ = ‖φ‖ (radians); parts not imposed stay 0.
class RelativePoseGoal final : public Goal {
 public:
  /// @param site_a A, the reference site; @param site_b B, the held site.
  /// @param target X_AT, the desired pose of B in A's frame (a finite rigid
  ///   transform).
  /// @throws std::invalid_argument for an unknown site, site_a == site_b, a
  ///   target that is not a finite rigid transform, no part chosen, a
  ///   length_per_radian not finite and > 0, or a bad weight.
  RelativePoseGoal(const Model& model, const std::string& site_a,
                   const std::string& site_b, const Eigen::Isometry3d& target,
                   double weight = 1.0,
                   const RelativePoseParts& parts = RelativePoseParts{});

  const Eigen::Isometry3d& target() const { return target_; }
  const RelativePoseParts& parts() const { return parts_; }
  /// A (the reference site) and B (the held site).
  int site_a() const { return site_a_; }
  int site_b() const { return site_b_; }
  /// @throws std::invalid_argument as the constructor.
  void set_target(const Eigen::Isometry3d& target);

  /// Parameters(): target_x, _y, _z (p_AT; with the position part) and
  /// target_qw, _qx, _qy, _qz (R_AT; with the orientation part).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int site_a_, site_b_;
  std::string site_a_name_, site_b_name_;
  Eigen::Isometry3d target_;
  RelativePoseParts parts_;
};

/// Relative pose tolerance box (inequality form; TRAC-IK's per-axis bounds
/// measured in a frame T fixed on site A): the pose of B in T stays within
/// [lower, upper] on each translation axis and each rotation-vector axis,
///
///     e = [ R_ATᵀ (p_AB − p_AT);  φ = Log(R_ATᵀ R_AB) ]   (6 components),
///     c = [e_k − upper_k (finite upper_k);  lower_k − e_k (finite lower_k)]
///         ≤ 0,
///     ∂e/∂q_i = [ R_WTᵀ (v_i^B − v_i^A(p_WB));
///                 J_l⁻¹(φ) R_WTᵀ (ω_i^B − ω_i^A) ],   R_WT = R_WA R_AT.
///
/// Infinite bounds add no row (a free axis: e.g. all rotation bounds
/// infinite keeps B within a box in A's frame, whatever its orientation).
/// Rotation bounds lie in (−π, π) (Log jumps at π). Penalty (soft) form, as
/// every inequality goal (inequality_goal.h): P = ½ w Σ max(0, c_k)².
/// Error(): position = ‖violation of e_0..2‖ (length units), angle =
/// ‖violation of e_3..5‖ (radians); 0 inside the box.
class RelativePoseBoxGoal final : public InequalityGoal {
 public:
  /// @param target X_AT, the box's frame in A's frame.
  /// @param lower, upper per component [x, y, z, φx, φy, φz] of e: lengths,
  ///   then radians in (−π, π); ±infinity for a free side; lower ≤ upper; at
  ///   least one finite entry.
  /// @throws std::invalid_argument for an unknown site, site_a == site_b, a
  ///   bad target, NaN or out-of-order bounds, rotation bounds outside
  ///   (−π, π), no finite bound, or a bad weight.
  RelativePoseBoxGoal(const Model& model, const std::string& site_a,
                      const std::string& site_b,
                      const Eigen::Isometry3d& target,
                      const Eigen::Matrix<double, 6, 1>& lower,
                      const Eigen::Matrix<double, 6, 1>& upper,
                      double weight = 1.0);

  /// Parameters(): target_x, _y, _z, target_qw, _qx, _qy, _qz (X_AT),
  /// lower_x, _y, _z, _rx, _ry, _rz, then upper_… (±infinity: free).
  /// Quantities(): x, y, z (length units) and rx, ry, rz (radians) = e.
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

  // One constraint row: component k of e, +1 for an upper bound (e_k − u_k),
  // −1 for a lower bound (l_k − e_k).
  struct BoxRow {
    int component;
    double sign;
    double bound;
  };

  int site_a_, site_b_;
  std::string site_a_name_, site_b_name_;
  Eigen::Isometry3d target_;
  Eigen::Matrix<double, 6, 1> lower_, upper_;
  std::vector<BoxRow> rows_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_RELATIVE_POSE_GOAL_H_
