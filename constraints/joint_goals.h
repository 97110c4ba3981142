#ifndef IKLAB_CONSTRAINTS_JOINT_GOALS_H_
#define IKLAB_CONSTRAINTS_JOINT_GOALS_H_

/// @file
/// Goals on joint coordinates directly: a posture (selected coordinates at
/// given values; an equality goal) and a range (selected coordinates within
/// an interval narrower than the joint limits, e.g. a comfort range; an
/// inequality goal). Both read q (uses_configuration()).

#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"
#include "constraints/inequality_goal.h"

namespace iklab {

/// Joint posture: coordinates q_j, j ∈ J, take target values t_j,
///
///     r = t − q_J   (|J| residuals),   ∂r/∂q = −E_J
///
/// (E_J selects the coordinates). As a weighted goal P = ½ w ‖t − q_J‖²; as
/// an equality constraint q_J = t. Error(): angle = max_j |t_j − q_j| (radians
/// for revolute coordinates, length units for prismatic ones).
class JointPostureGoal final : public Goal {
 public:
  /// @param coordinates indices into q (distinct, in [0, nq)).
  /// @param targets one finite value per coordinate.
  /// @throws std::invalid_argument for an empty/duplicate/out-of-range
  ///   coordinate list, a size mismatch, a non-finite target, a bad weight.
  JointPostureGoal(const Model& model, std::vector<int> coordinates,
                   const Eigen::VectorXd& targets, double weight = 1.0);

  bool uses_configuration() const override { return true; }
  /// Parameters(): target_q<j> per coordinate j (t_j; the coordinate's
  /// unit).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;
  /// The error at q (Error(model, data) cannot see q and reports 0).
  GoalError ErrorAt(const Model& model, const Data& data,
                    const Eigen::Ref<const Eigen::VectorXd>& q) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int nq_;
  std::vector<int> coordinates_;
  Eigen::VectorXd targets_;
};

/// Joint range: coordinates q_j, j ∈ J, stay within [lower_j, upper_j],
///
///     c = [q_j − upper_j;  lower_j − q_j]  (finite bounds only) ≤ 0,
///     ∂c/∂q = ±E_J rows.
///
/// Soft form P = ½ w Σ max(0, c)² — a smooth joint-limit penalty, unlike the
/// solvers' hard bounds. Error(): angle = max violation (radians, or length
/// units for prismatic coordinates).
class JointRangeGoal final : public InequalityGoal {
 public:
  /// @param coordinates distinct indices into q.
  /// @param lower, upper one entry per coordinate; lower ≤ upper, no NaN;
  ///   ±infinity for a free side; at least one finite entry.
  /// @throws std::invalid_argument for bad coordinates, sizes, bounds or
  ///   weight.
  JointRangeGoal(const Model& model, std::vector<int> coordinates,
                 const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                 double weight = 1.0);

  bool uses_configuration() const override { return true; }
  /// Parameters(): lower_q<j> per coordinate j, then upper_q<j>.
  /// Quantities(): q<j> = q_j per coordinate (angular: radians, or length
  /// units for a prismatic coordinate, as Error()).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const override;
  GoalError Error(const Model& model, const Data& data) const override;
  /// The error at q (Error(model, data) cannot see q and reports 0).
  GoalError ErrorAt(const Model& model, const Data& data,
                    const Eigen::Ref<const Eigen::VectorXd>& q) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluateConstraint(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            Eigen::Ref<Eigen::VectorXd> value,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int nq_;
  std::vector<int> coordinates_;
  Eigen::VectorXd lower_;
  Eigen::VectorXd upper_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_JOINT_GOALS_H_
