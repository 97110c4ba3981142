#ifndef IKLAB_CONSTRAINTS_PROBLEM_H_
#define IKLAB_CONSTRAINTS_PROBLEM_H_

/// @file
/// An IK problem: a model, weighted goals, regularizers and joint bounds,
/// evaluated as stacked residuals (least-squares solvers, Jacobian methods)
/// or as one potential with gradient (L-BFGS-B).
///
///     Problem problem(model);                           // bounds = limits
///     problem.AddGoal(std::make_shared<PositionGoal>(*model, "hand", p));
///     ProblemWorkspace ws(problem);                     // once per thread
///     double P = problem.EvaluatePotential(q, &ws, &gradient_ref);
///
/// Stacked residual: R(q) = [√w_1 r_1; …; √w_m r_m; √v_1 s_1; …] over goals
/// then regularizers (weights w_i, v_j), so ½‖R‖² = Σ ½ w_i ‖r_i‖² + … =
/// EvaluatePotential(q) and ∇P = (∂R/∂q)ᵀ R.
///
/// Hard constraints. Besides its weighted goals a problem may hold
///
///     equality constraints    h(q) = [h_1; …; h_k] = 0   (any Goal's r),
///     inequality constraints  c(q) = [c_1; …; c_l] ≤ 0   (InequalityGoal),
///
/// unweighted, evaluated stacked by EvaluateConstraints(). Only the
/// constrained-NLP solvers (solvers/constrained/) honour them; every other
/// solver refuses a problem that has any with kInvalidInput. For those,
/// WithConstraintsAsGoals() gives the penalty form: each equality becomes a
/// weighted goal (P = ½ w ‖h‖²) and each inequality its smooth penalty
/// (P = ½ w ‖max(0, c)‖², inequality_goal.h).

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/bounds.h"
#include "constraints/goal.h"
#include "constraints/inequality_goal.h"
#include "framework/model.h"

namespace iklab {

class ProblemWorkspace;

/// Largest natural-unit errors over a problem's goals.
struct ErrorSummary {
  double max_position = 0.0;
  double max_angle = 0.0;
  double max_aim = 0.0;
  /// Index of the goal with the largest position error (−1 if no goals).
  int worst_position_goal = -1;
  /// Index of the goal with the largest angle error (−1 if no goals).
  int worst_angle_goal = -1;
  /// True if any goal reported a degenerate state.
  bool any_degenerate = false;
};

/// Summarizes per-goal errors by their maxima.
ErrorSummary Summarize(const std::vector<GoalError>& errors);

/// Model + goals + regularizers + bounds. Cheap to copy (goals are shared,
/// immutable during a solve); e.g. a solver may copy a problem and add a
/// Tikhonov regularizer. Thread-safe for evaluation with one
/// ProblemWorkspace per thread.
class Problem {
 public:
  /// @param model non-null; bounds start as Bounds::FromModel(*model).
  /// @throws std::invalid_argument if `model` is null.
  explicit Problem(std::shared_ptr<const Model> model);

  /// Adds a goal (its weight counts in the potential) and returns its index
  /// in goals().
  /// @throws std::invalid_argument for a null goal or one built for a
  ///   different model (Goal::CheckModel).
  int AddGoal(std::shared_ptr<const Goal> goal);
  /// Adds a regularizer (e.g. TikhonovRegularizer, JointCenterBias). It is
  /// stacked after the goals and enters the potential but not the goal
  /// errors. Returns its index in regularizers().
  /// @throws std::invalid_argument as AddGoal.
  int AddRegularizer(std::shared_ptr<const Goal> regularizer);

  /// Adds a hard equality constraint r(q) = 0 (the goal's weight is
  /// ignored) and returns its index in equality_constraints().
  /// @throws std::invalid_argument as AddGoal.
  int AddEqualityConstraint(std::shared_ptr<const Goal> constraint);
  /// Adds a hard inequality constraint c(q) ≤ 0 (weight ignored) and returns
  /// its index in inequality_constraints().
  /// @throws std::invalid_argument as AddGoal.
  int AddInequalityConstraint(std::shared_ptr<const InequalityGoal> constraint);

  const std::vector<std::shared_ptr<const Goal>>& equality_constraints() const {
    return equality_constraints_;
  }
  const std::vector<std::shared_ptr<const InequalityGoal>>&
  inequality_constraints() const {
    return inequality_constraints_;
  }
  /// Rows of h(q) and of c(q).
  int num_equality_constraints() const { return num_equalities_; }
  int num_inequality_constraints() const { return num_inequalities_; }
  /// True if the problem has any hard constraint.
  bool has_constraints() const {
    return !equality_constraints_.empty() || !inequality_constraints_.empty();
  }
  /// A copy whose hard constraints are weighted goals (appended after the
  /// goals, each with its own weight; inequalities in their smooth penalty
  /// form): the formulation every solver can take.
  Problem WithConstraintsAsGoals() const;
  /// A copy whose weighted goals are hard constraints (appended before the
  /// existing ones), keeping the regularizers as the objective: the
  /// formulation of a constrained NLP (minimize the regularizers, or 0,
  /// subject to every goal met), as Tolani et al. pose CFSQP. An
  /// InequalityGoal becomes an inequality c ≤ 0; every other goal an
  /// equality, in a minimal form whose rows are independent degrees of
  /// freedom where it has one (an NLP's constraint Jacobian must have full
  /// row rank, and IPOPT refuses more equality rows than coordinates):
  /// a PositionOrientationGoal (9 dependent rows) becomes a PositionGoal and
  /// a RotationVectorGoal (3 + 3), an OrientationGoal (6) a
  /// RotationVectorGoal (3), an AxisGoal (3 rows of rank 2) an
  /// AxisTangentGoal (2) with the hemisphere inequality ConeGoal(π/2)
  /// (tangent rows vanish at the opposite axis too); other goals are posed
  /// as they are (a weighted sum or disjunction keeps its parts' rows).
  Problem WithGoalsAsConstraints() const;

  const Model& model() const { return *model_; }
  const std::shared_ptr<const Model>& shared_model() const { return model_; }
  const std::vector<std::shared_ptr<const Goal>>& goals() const {
    return goals_;
  }
  const std::vector<std::shared_ptr<const Goal>>& regularizers() const {
    return regularizers_;
  }
  const Bounds& bounds() const { return bounds_; }
  Bounds* mutable_bounds() { return &bounds_; }
  /// @throws std::invalid_argument if the bounds are invalid or not of size
  ///   nq.
  void set_bounds(Bounds bounds);

  int nq() const { return model_->nq(); }
  /// Total stacked residual size over goals and regularizers.
  int num_residuals() const { return num_residuals_; }
  /// Offset of goal i's rows in the stacked residual.
  int goal_offset(int i) const { return goal_offsets_[i]; }
  /// Offset of regularizer j's rows in the stacked residual.
  int regularizer_offset(int j) const { return regularizer_offsets_[j]; }

  /// Stacked weighted residuals R(q) and, optionally, ∂R/∂q. Runs FK once
  /// into ws->data() for all goals. Allocation-free.
  /// @param residuals num_residuals() entries.
  /// @param jacobian nullptr or a num_residuals() × nq() block.
  /// @throws std::invalid_argument for a bad q (size, NaN/Inf), a workspace
  ///   made for another problem, or wrong output sizes.
  void EvaluateResiduals(const Eigen::VectorXd& q, ProblemWorkspace* ws,
                         Eigen::Ref<Eigen::VectorXd> residuals,
                         Eigen::Ref<Eigen::MatrixXd>* jacobian) const;

  /// Potential P(q) = Σ ½ w_i ‖r_i‖² over goals and regularizers
  /// (= ½‖R(q)‖²) and, optionally, its gradient Σ w_i J_iᵀ r_i (overwritten,
  /// nq entries). Runs FK once into ws->data(). Allocation-free.
  /// @throws std::invalid_argument as EvaluateResiduals.
  double EvaluatePotential(const Eigen::VectorXd& q, ProblemWorkspace* ws,
                           Eigen::Ref<Eigen::VectorXd>* gradient) const;

  /// Stacked constraints h(q) (num_equality_constraints() entries) and c(q)
  /// (num_inequality_constraints()), optionally their Jacobians (blocks of
  /// those rows × nq). Runs FK once. Allocation-free.
  /// @throws std::invalid_argument as EvaluateResiduals.
  void EvaluateConstraints(const Eigen::VectorXd& q, ProblemWorkspace* ws,
                           Eigen::Ref<Eigen::VectorXd> equality,
                           Eigen::Ref<Eigen::VectorXd> inequality,
                           Eigen::Ref<Eigen::MatrixXd>* equality_jacobian,
                           Eigen::Ref<Eigen::MatrixXd>* inequality_jacobian)
      const;

  /// Errors of the hard constraints in natural units at q: the equalities'
  /// goal errors, then the inequalities' violations (0 when satisfied).
  /// Allocation-free once `errors` has the capacity.
  /// @throws std::invalid_argument as EvaluateResiduals.
  void ConstraintErrors(const Eigen::VectorXd& q, ProblemWorkspace* ws,
                        std::vector<GoalError>* errors) const;

  /// Per-goal errors in natural units at q, in the order of goals() (runs
  /// FK). Allocation-free once `errors` has capacity for goals().size().
  /// @throws std::invalid_argument as EvaluateResiduals.
  void GoalErrors(const Eigen::VectorXd& q, ProblemWorkspace* ws,
                  std::vector<GoalError>* errors) const;
  /// Convenience form returning a new vector.
  std::vector<GoalError> GoalErrors(const Eigen::VectorXd& q,
                                    ProblemWorkspace* ws) const;
  /// GoalErrors without its FK pass: the errors at q read from the FK that
  /// the last evaluation on `ws` (EvaluateResiduals, EvaluatePotential, …)
  /// left in ws.data(), for a solver that has just evaluated at q.
  /// Allocation-free once `errors` has capacity for goals().size().
  /// @pre the last evaluation on `ws` was at q (not checked).
  /// @throws std::invalid_argument for a workspace made for another problem
  ///   or a null `errors`.
  void GoalErrorsFromWorkspace(const Eigen::VectorXd& q,
                               const ProblemWorkspace& ws,
                               std::vector<GoalError>* errors) const;

 private:
  friend class ProblemWorkspace;
  void CheckCall(const Eigen::VectorXd& q, const ProblemWorkspace* ws,
                 const char* caller) const;

  std::shared_ptr<const Model> model_;
  std::vector<std::shared_ptr<const Goal>> goals_;
  std::vector<std::shared_ptr<const Goal>> regularizers_;
  std::vector<std::shared_ptr<const Goal>> equality_constraints_;
  std::vector<std::shared_ptr<const InequalityGoal>> inequality_constraints_;
  int num_equalities_ = 0;
  int num_inequalities_ = 0;
  std::vector<int> goal_offsets_;
  std::vector<int> regularizer_offsets_;
  Bounds bounds_;
  int num_residuals_ = 0;
  int max_goal_residuals_ = 0;
};

/// Per-thread evaluation workspace of a Problem: the FK Data and scratch
/// buffers for one goal's residual and Jacobian, allocated once. Create it
/// after the last AddGoal/AddRegularizer (a workspace made before the
/// problem grew is rejected by the evaluation functions).
class ProblemWorkspace {
 public:
  explicit ProblemWorkspace(const Problem& problem);

  /// FK results of the last evaluated q.
  const Data& data() const { return data_; }
  Data& mutable_data() { return data_; }

 private:
  friend class Problem;
  const Model* model_;
  int num_residuals_;
  int num_constraint_rows_;
  Data data_;
  Eigen::VectorXd goal_residual_;   // max goal residual size
  Eigen::MatrixXd goal_jacobian_;   // max goal residual size × nq
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_PROBLEM_H_
