#ifndef IKLAB_CONSTRAINTS_INEQUALITY_GOAL_H_
#define IKLAB_CONSTRAINTS_INEQUALITY_GOAL_H_

/// @file
/// Inequality goals: a constraint vector c(q) that must satisfy
///
///     c(q) ≤ 0   (element-wise; the one sign convention of iklab),
///
/// with its Jacobian ∂c/∂q. An inequality goal is also a Goal, so it can be
/// used in two ways:
///
///  * Hard: Problem::AddInequalityConstraint() — the constrained-NLP solvers
///    (solvers/constrained/: IPOPT, NLopt's SLSQP) impose c(q) ≤ 0.
///  * Soft (the smooth penalty form every other solver understands):
///    Problem::AddGoal() — the Goal residual is the positive part
///
///        r(q) = max(0, c(q)),   ∂r/∂q = ∂c/∂q on rows with c > 0, else 0,
///
///    so P = ½ w Σ max(0, c_i)², which is zero on the feasible set and
///    continuously differentiable (∇P = w Σ max(0, c_i) ∇c_i is continuous
///    where a row crosses 0). It is the quadratic exterior penalty of
///    Nocedal & Wright, Numerical Optimization (2nd ed.), §17.1, Eq. 17.2.
///    A penalty never forces c ≤ 0 exactly when it competes with other goals:
///    it trades violation against them in proportion to the weights.
///
/// Each subclass states c(q) in its class comment, writes the chain rule
/// beside its Jacobian, reports the violation in natural units from
/// Error() (0 when satisfied), so SolveOptions' tolerances apply to it, and
/// the quantities it bounds in natural units from Quantities() (a cone's
/// angle, a box's offsets), so an output can say where a pose stands
/// against each bound.

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"
#include "framework/model.h"

namespace iklab {

/// One quantity an inequality goal bounds, at a pose, in natural units: the
/// goal's c(q) ≤ 0 holds on it iff lower ≤ value ≤ upper (±infinity: no
/// bound on that side). E.g. a cone's angle ∠(b, d) with upper = α.
struct BoundedQuantity {
  std::string name;
  double value = 0.0;
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  /// In radians (or a joint coordinate's own unit, as GoalError::angle)
  /// rather than length units: which tolerance applies to it.
  bool angular = false;
};

/// Abstract inequality goal c(q) ≤ 0 (see the file comment). The Goal
/// residual (soft use) is max(0, c).
class InequalityGoal : public Goal {
 public:
  /// Number of constraint rows (= num_residuals()).
  int num_constraints() const { return num_residuals(); }

  /// Evaluates c(q) and, optionally, ∂c/∂q.
  /// @param model, data as Goal::Evaluate (FK has run for q).
  /// @param q the configuration (read only by goals that
  ///   uses_configuration(); may be empty otherwise).
  /// @param value receives c(q), num_constraints() entries.
  /// @param jacobian nullptr, or a num_constraints() × nq block; every entry
  ///   is written.
  /// @throws std::invalid_argument for wrong sizes.
  void EvaluateConstraint(const Model& model, const Data& data,
                          const Eigen::Ref<const Eigen::VectorXd>& q,
                          Eigen::Ref<Eigen::VectorXd> value,
                          Eigen::Ref<Eigen::MatrixXd>* jacobian) const;

  /// The quantities c(q) bounds, in natural units, at the pose in `data`
  /// (FK has run for q; q is read only by goals that uses_configuration()).
  /// The names and their order are fixed for a goal (NaN values where the
  /// pose leaves a quantity undefined, e.g. a gaze target on the site). For
  /// outputs, not for solver loops (it allocates). The default, for a goal
  /// that does not say, is c(q)'s own rows: "c0", "c1", … with upper
  /// bound 0, in the goal's units.
  /// @throws std::invalid_argument as EvaluateConstraint.
  virtual std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const;

 protected:
  InequalityGoal(int num_constraints, double weight, std::string name);

 private:
  /// Writes c(q) and, if `jacobian` is not null, ∂c/∂q. Sizes are checked.
  virtual void DoEvaluateConstraint(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q,
      Eigen::Ref<Eigen::VectorXd> value,
      Eigen::Ref<Eigen::MatrixXd>* jacobian) const = 0;

  /// The smooth penalty residual max(0, c) (file comment).
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const final;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_INEQUALITY_GOAL_H_
