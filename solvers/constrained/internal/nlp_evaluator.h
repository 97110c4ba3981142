#ifndef IKLAB_SOLVERS_CONSTRAINED_INTERNAL_NLP_EVALUATOR_H_
#define IKLAB_SOLVERS_CONSTRAINED_INTERNAL_NLP_EVALUATOR_H_

/// @file
/// The nonlinear program the constrained solvers (IPOPT, NLopt's SLSQP) see,
/// on flat arrays:
///
///     minimize    f(q) = P(q) + ½ μ ‖q − q_ref‖²
///     subject to  h(q) = 0,  c(q) ≤ 0,  lower ≤ q ≤ upper,
///
/// P the problem's potential (weighted goals + regularizers), h and c its
/// hard constraints (Problem::EvaluateConstraints) and μ ≥ 0 an optional
/// displacement weight. Exact first derivatives; the constraint values and
/// Jacobians are computed together and cached per x (both back-ends ask for
/// values and Jacobian at the same point in separate calls).

#include <Eigen/Core>

#include "constraints/problem.h"

namespace iklab::internal {

/// What a constrained solver optimizes for `problem`: the problem itself, or
/// with `goals_as_constraints` its goals as hard equalities
/// (Problem::WithGoalsAsConstraints); and the displacement weight μ that
/// applies — `displacement_weight` only when no goal is left in the
/// objective (it would otherwise pull the answer off the goals), else 0.
struct NlpProgram {
  Problem problem;
  double displacement_weight = 0.0;
};
NlpProgram MakeNlpProgram(const Problem& problem, bool goals_as_constraints,
                          double displacement_weight);

class NlpEvaluator {
 public:
  /// @param problem outlives the evaluator.
  NlpEvaluator(const Problem& problem, const Eigen::VectorXd& q_ref,
               double displacement_weight);

  int n() const { return n_; }
  int num_equalities() const { return static_cast<int>(h_.size()); }
  int num_inequalities() const { return static_cast<int>(c_.size()); }

  /// f(x) and, if `gradient` is not null, ∇f (n entries).
  /// @throws std::domain_error if f or ∇f is not finite.
  double Objective(const double* x, double* gradient);
  /// h(x) (num_equalities entries) and, if `jacobian` is not null, ∂h/∂q
  /// row-major (num_equalities × n).
  void Equalities(const double* x, double* values, double* jacobian);
  /// c(x) and ∂c/∂q likewise.
  void Inequalities(const double* x, double* values, double* jacobian);

  int objective_evaluations() const { return objective_evaluations_; }
  int constraint_evaluations() const { return constraint_evaluations_; }
  /// The last point at which the constraints were evaluated.
  const Eigen::VectorXd& last_x() const { return cached_x_; }
  /// False until the constraints were evaluated once (last_x() is then
  /// not a point of this solve).
  bool has_last_x() const { return cache_valid_; }

 private:
  void UpdateConstraints(const double* x);

  const Problem& problem_;
  ProblemWorkspace workspace_;
  int n_;
  Eigen::VectorXd q_ref_;
  double mu_;
  Eigen::VectorXd x_;
  Eigen::VectorXd gradient_;
  Eigen::VectorXd cached_x_;
  bool cache_valid_ = false;
  Eigen::VectorXd h_, c_;
  Eigen::MatrixXd jacobian_h_, jacobian_c_;
  int objective_evaluations_ = 0;
  int constraint_evaluations_ = 0;
};

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_CONSTRAINED_INTERNAL_NLP_EVALUATOR_H_
