#ifndef IKLAB_CONSTRAINTS_GOAL_H_
#define IKLAB_CONSTRAINTS_GOAL_H_

/// @file
/// The goal abstraction: a small evaluator (Drake's EvaluatorBase shape) with
/// Ceres' optional-derivative signature.
///
/// Conventions used by every goal in constraints/ (stated once, here):
///
///  * Residual. A goal imposes r(q) = 0 for a residual vector r with
///    num_residuals() entries, written as "target − current"
///    (r = r_goal − r_e). Hence for a position goal ∂r/∂q = −J_v, the negated
///    linear rows of the site Jacobian.
///  * Jacobian. ∂r/∂q is num_residuals() × nq, in the world frame, filled
///    from the geometric site Jacobian J_WS = [J_v; J_ω] (kinematics.h).
///  * Potential. P(q) = ½ w ‖r(q)‖² with gradient ∇P = w (∂r/∂q)ᵀ r, where w
///    = weight() ≥ 0. Tolani et al. §2.4 (Jack) use norms ‖·‖ instead of
///    ½‖·‖²; the squared form has the same zero set and minimizers, is smooth
///    at the goal, and makes √w r the residual of a least-squares problem,
///    so L-BFGS-B (potential) and Ceres/Gauss-Newton (residuals) minimize the
///    same function.
///  * Thread safety. Evaluate() and Error() read a Data on which
///    ForwardKinematics() has already run for q (FK runs once per iterate for
///    all goals) and write only their outputs: no shared state is mutated,
///    so one goal may be evaluated by many threads at once, each with its own
///    Data. Setters (targets, weights) must not be called during a solve.

#include <string>
#include <vector>

#include <Eigen/Core>

#include "framework/model.h"

namespace iklab {

/// A goal's error in natural units, comparable across solvers.
/// Fields a goal does not constrain stay 0.
struct GoalError {
  /// Distance to the target, in the model's length units (position, plane).
  double position = 0.0;
  /// Rotation angle between current and goal orientation in radians
  /// (orientation: angle of R_WGᵀ R_WS; axis goals: angle between the axes).
  double angle = 0.0;
  /// Aim error 1 − cos(angle between the aim axis and the goal direction);
  /// 0 = aligned, 2 = opposite. Also filled for axis (partial orientation)
  /// goals.
  double aim = 0.0;
  /// True when the goal is ill-defined at this pose (e.g. an aiming goal
  /// whose target point coincides with the aim point: no direction). The
  /// goal then contributes a zero residual and Jacobian.
  bool degenerate = false;
  /// For a DisjunctiveGoal: index of the alternative that is active (has the
  /// smallest potential); −1 for other goals.
  int active_alternative = -1;
};

/// Which fields of GoalError a goal fills. The others stay 0 for it and mean
/// nothing (a position goal has no angle error): outputs leave them out.
struct GoalErrorParts {
  bool position = false;
  bool angle = false;
  bool aim = false;
};

/// One named number of what a goal asks for — its target or a bound — in
/// natural units, for outputs that must state what each trial asked (e.g.
/// {"target_x", 0.4}, {"half_angle", 0.1}).
struct GoalParameter {
  std::string name;
  double value = 0.0;
};

/// Abstract goal: a residual r(q) with Jacobian ∂r/∂q and a weight w, giving
/// the potential P = ½ w ‖r‖² (see the file comment for the conventions).
///
/// Subclasses implement DoEvaluate() and Error(); the public Evaluate()
/// checks sizes first. Goals that read q directly (regularizers) return true
/// from uses_configuration() and must be evaluated with the overload that
/// takes q.
class Goal {
 public:
  virtual ~Goal();

  /// Evaluates the residual and, optionally, its Jacobian.
  /// @param model the model the goal was built for.
  /// @param data FK workspace on which ForwardKinematics(model, q, &data) has
  ///   run for the current q.
  /// @param residual receives r(q); must have num_residuals() entries.
  /// @param jacobian nullptr, or a num_residuals() × model.nq() block (may be
  ///   a middleRows() block of a larger stacked matrix) receiving ∂r/∂q;
  ///   every entry of the block is written.
  /// @throws std::invalid_argument if a size is wrong, or if the goal
  ///   uses_configuration() (use the overload that takes q).
  void Evaluate(const Model& model, const Data& data,
                Eigen::Ref<Eigen::VectorXd> residual,
                Eigen::Ref<Eigen::MatrixXd>* jacobian) const;

  /// As above, also passing the configuration q that `data` was computed
  /// from (needed by regularizers; ignored by site goals).
  /// @throws std::invalid_argument if a size is wrong.
  void Evaluate(const Model& model, const Data& data,
                const Eigen::Ref<const Eigen::VectorXd>& q,
                Eigen::Ref<Eigen::VectorXd> residual,
                Eigen::Ref<Eigen::MatrixXd>* jacobian) const;

  /// The goal's error in natural units at the pose in `data`.
  /// @pre ForwardKinematics() has run on `data`.
  virtual GoalError Error(const Model& model, const Data& data) const = 0;

  /// The goal's error at q, whose FK is in `data`. Goals that read q
  /// directly (uses_configuration(), e.g. JointPostureGoal) override it; the
  /// default is Error(model, data). Problem::GoalErrors calls this one.
  virtual GoalError ErrorAt(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q) const {
    (void)q;
    return Error(model, data);
  }

  /// The GoalError fields Error() fills for this goal. The default, for a
  /// goal that does not say, is all three.
  virtual GoalErrorParts error_parts() const;

  /// What the goal asks for, as named numbers in natural units: the same
  /// names in the same order for every goal of a kind with the same options.
  /// Conventions: world points and directions as `<name>_x`, `_y`, `_z`
  /// (length units; unit vectors for directions); site-frame axes likewise;
  /// rotations as the unit quaternion `<name>_qw`, `_qx`, `_qy`, `_qz` with
  /// qw ≥ 0; angles in radians; an absent bound as ±infinity. For outputs,
  /// not for solver loops (it allocates). The default: none (a goal that
  /// does not say).
  virtual std::vector<GoalParameter> Parameters() const;

  /// Checks that the goal can be evaluated on `model` (its site index exists
  /// and names the same site it was built with; vector sizes match nq).
  /// Problem::AddGoal calls it.
  /// @throws std::invalid_argument naming the goal and the mismatch.
  void CheckModel(const Model& model) const;

  /// Number of residual entries (fixed for the goal's lifetime).
  int num_residuals() const { return num_residuals_; }
  /// Weight w ≥ 0 in P = ½ w ‖r‖².
  double weight() const { return weight_; }
  /// Sets the weight. @throws std::invalid_argument if w is negative or not
  /// finite.
  void set_weight(double weight);
  /// A user label for reports (default: "<kind>(<site>)").
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  /// True if the residual depends on q directly (not only through FK).
  virtual bool uses_configuration() const { return false; }

  /// P = ½ w ‖r‖² for a residual r of this goal.
  double Potential(const Eigen::Ref<const Eigen::VectorXd>& residual) const {
    return 0.5 * weight_ * residual.squaredNorm();
  }
  /// Adds ∇P = w Jᵀ r to `gradient` (nq entries) for residual r and its
  /// Jacobian J = ∂r/∂q of this goal.
  void AddPotentialGradient(const Eigen::Ref<const Eigen::VectorXd>& residual,
                            const Eigen::Ref<const Eigen::MatrixXd>& jacobian,
                            Eigen::Ref<Eigen::VectorXd> gradient) const {
    gradient.noalias() += weight_ * (jacobian.transpose() * residual);
  }

 protected:
  /// @throws std::invalid_argument if `weight` is negative or not finite
  ///   (the message names `kind` and the value).
  Goal(int num_residuals, double weight, std::string name);

 private:
  /// Writes r(q) into `residual` and, if `jacobian` is not null, ∂r/∂q into
  /// *jacobian. Sizes have been checked. `q` is empty when the caller did not
  /// pass it (only possible if !uses_configuration()).
  virtual void DoEvaluate(const Model& model, const Data& data,
                          const Eigen::Ref<const Eigen::VectorXd>& q,
                          Eigen::Ref<Eigen::VectorXd> residual,
                          Eigen::Ref<Eigen::MatrixXd>* jacobian) const = 0;
  /// Subclass part of CheckModel(); default accepts any model.
  virtual void DoCheckModel(const Model& model) const;

  int num_residuals_;
  double weight_;
  std::string name_;
};

/// Base of goals attached to one site: resolves the site name once (at
/// construction) and checks it against a model in CheckModel().
class SiteGoal : public Goal {
 public:
  /// Index of the site in the model the goal was built for.
  int site() const { return site_; }
  const std::string& site_name() const { return site_name_; }

 protected:
  /// @throws std::invalid_argument for an unknown site (Model::SiteIndex) or
  ///   a bad weight.
  SiteGoal(const Model& model, const std::string& site, int num_residuals,
           double weight, const char* kind);

 private:
  void DoCheckModel(const Model& model) const override;

  int site_;
  std::string site_name_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_GOAL_H_
