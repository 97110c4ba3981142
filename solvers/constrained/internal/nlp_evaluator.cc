#include "solvers/constrained/internal/nlp_evaluator.h"

#include <stdexcept>
#include <utility>

namespace iklab::internal {

NlpEvaluator::NlpEvaluator(const Problem& problem, const Eigen::VectorXd& q_ref,
                           double displacement_weight)
    : problem_(problem),
      workspace_(problem),
      n_(problem.nq()),
      q_ref_(q_ref),
      mu_(displacement_weight),
      x_(problem.nq()),
      gradient_(problem.nq()),
      cached_x_(q_ref),
      last_x_(q_ref),
      h_(problem.num_equality_constraints()),
      c_(problem.num_inequality_constraints()),
      jacobian_h_(problem.num_equality_constraints(), problem.nq()),
      jacobian_c_(problem.num_inequality_constraints(), problem.nq()) {}

double NlpEvaluator::Objective(const double* x, double* gradient) {
  ++objective_evaluations_;
  x_ = Eigen::Map<const Eigen::VectorXd>(x, n_);
  last_x_ = x_;
  double f;
  if (gradient != nullptr) {
    Eigen::Ref<Eigen::VectorXd> g(gradient_);
    f = problem_.EvaluatePotential(x_, &workspace_, &g);
  } else {
    f = problem_.EvaluatePotential(x_, &workspace_, nullptr);
  }
  if (mu_ > 0.0) {
    // ½ μ ‖q − q_ref‖², gradient μ (q − q_ref).
    f += 0.5 * mu_ * (x_ - q_ref_).squaredNorm();
    if (gradient != nullptr) gradient_ += mu_ * (x_ - q_ref_);
  }
  if (!std::isfinite(f) || (gradient != nullptr && !gradient_.allFinite())) {
    throw std::domain_error("the objective or its gradient is not finite");
  }
  if (gradient != nullptr) {
    Eigen::Map<Eigen::VectorXd>(gradient, n_) = gradient_;
  }
  return f;
}

void NlpEvaluator::UpdateConstraints(const double* x) {
  const Eigen::Map<const Eigen::VectorXd> xm(x, n_);
  last_x_ = xm;
  if (cache_valid_ && xm == cached_x_) return;
  ++constraint_evaluations_;
  cached_x_ = xm;
  Eigen::Ref<Eigen::MatrixXd> Jh(jacobian_h_);
  Eigen::Ref<Eigen::MatrixXd> Jc(jacobian_c_);
  problem_.EvaluateConstraints(cached_x_, &workspace_, h_, c_, &Jh, &Jc);
  cache_valid_ = h_.allFinite() && c_.allFinite() &&
                 jacobian_h_.allFinite() && jacobian_c_.allFinite();
  if (!cache_valid_) {
    throw std::domain_error("a constraint or its Jacobian is not finite");
  }
}

void NlpEvaluator::Equalities(const double* x, double* values,
                              double* jacobian) {
  UpdateConstraints(x);
  if (values != nullptr) {
    Eigen::Map<Eigen::VectorXd>(values, h_.size()) = h_;
  }
  if (jacobian != nullptr) {
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                             Eigen::RowMajor>>(jacobian, h_.size(), n_) =
        jacobian_h_;
  }
}

void NlpEvaluator::Inequalities(const double* x, double* values,
                                double* jacobian) {
  UpdateConstraints(x);
  if (values != nullptr) {
    Eigen::Map<Eigen::VectorXd>(values, c_.size()) = c_;
  }
  if (jacobian != nullptr) {
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                             Eigen::RowMajor>>(jacobian, c_.size(), n_) =
        jacobian_c_;
  }
}

NlpProgram MakeNlpProgram(const Problem& problem, bool goals_as_constraints,
                          double displacement_weight) {
  Problem program =
      goals_as_constraints ? problem.WithGoalsAsConstraints() : problem;
  const double mu = program.goals().empty() ? displacement_weight : 0.0;
  return {std::move(program), mu};
}

}  // namespace iklab::internal
