#include "solvers/differential/damped_least_squares_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "framework/internal/check.h"
#include "solvers/differential/internal/differential_loop.h"
#include "solvers/differential/jacobian_steps.h"

namespace iklab {

using internal::Invalid;

namespace {

// The row blocks of the stacked residual: one per goal, then one per
// regularizer (Buss & Kim's end effectors).
std::vector<RowBlock> ResidualBlocks(const Problem& problem) {
  std::vector<RowBlock> blocks;
  for (std::size_t i = 0; i < problem.goals().size(); ++i) {
    blocks.push_back({problem.goal_offset(static_cast<int>(i)),
                      problem.goals()[i]->num_residuals()});
  }
  for (std::size_t j = 0; j < problem.regularizers().size(); ++j) {
    blocks.push_back({problem.regularizer_offset(static_cast<int>(j)),
                      problem.regularizers()[j]->num_residuals()});
  }
  return blocks;
}

// ---------------------------------------------------------------------------

class DampedLeastSquaresMethod final : public DifferentialMethod {
 public:
  explicit DampedLeastSquaresMethod(const DampedLeastSquaresOptions& options)
      : options_(options), lambda_(options.damping) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    step_.Resize(problem.num_residuals(), problem.nq());
    lambda_ = options_.damping;
    if (options_.adaptive) {
      lambda_ = std::clamp(lambda_, options_.min_damping, options_.max_damping);
    }
    return true;
  }
  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string* why) override {
    if (!step_.Compute(lin.J, lin.V, lambda_, *dq)) {
      return Invalid(why,
                     "J Jᵀ + λ²I is not positive definite (λ = 0 at a singular "
                     "pose); use λ > 0.");
    }
    last_lambda_ = lambda_;
    condition_ =
        options_.compute_condition_number ? step_.ConditionNumber() : 0.0;
    return true;
  }
  bool AcceptStep(double potential, double trial_potential) override {
    if (!options_.adaptive) return true;
    if (trial_potential < potential) {
      lambda_ = std::max(lambda_ * options_.damping_decrease,
                         options_.min_damping);
      return true;
    }
    lambda_ =
        std::min(lambda_ * options_.damping_increase, options_.max_damping);
    return false;
  }
  double condition_number() const override { return condition_; }
  double damping() const override { return last_lambda_; }

 private:
  const DampedLeastSquaresOptions& options_;
  DampedLeastSquaresStep step_;
  double lambda_;
  double last_lambda_ = 0.0;
  double condition_ = 0.0;
};

// ---------------------------------------------------------------------------

class SelectivelyDampedMethod final : public DifferentialMethod {
 public:
  explicit SelectivelyDampedMethod(const SelectivelyDampedOptions& options)
      : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    step_.Resize(problem.num_residuals(), problem.nq(),
                 ResidualBlocks(problem));
    return true;
  }
  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string*) override {
    step_.Compute(lin.J, lin.V, options_.max_joint_change,
                  options_.singular_value_cutoff, *dq);
    return true;
  }

 private:
  const SelectivelyDampedOptions& options_;
  SelectivelyDampedStep step_;
};

// ---------------------------------------------------------------------------

class BoundedDampedLeastSquaresMethod final : public DifferentialMethod {
 public:
  explicit BoundedDampedLeastSquaresMethod(
      const BoundedDampedLeastSquaresOptions& options)
      : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    const int n = problem.nq();
    qp_.Resize(problem.num_residuals(), n);
    lo_.resize(n);
    hi_.resize(n);
    return true;
  }
  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string* why) override {
    if (lin.bounds != nullptr) {
      lo_ = lin.bounds->lower - lin.q;
      hi_ = lin.bounds->upper - lin.q;
    } else {
      lo_.setConstant(-std::numeric_limits<double>::infinity());
      hi_.setConstant(std::numeric_limits<double>::infinity());
    }
    const BoxDampedLeastSquares::Outcome outcome =
        qp_.Solve(lin.J, lin.V, options_.damping, lo_, hi_, *dq);
    if (!outcome.optimal) {
      return Invalid(why,
                     "the active-set solve of the bounded DLS step did not "
                     "reach its KKT conditions within its iteration cap.");
    }
    return true;
  }
  bool enforces_limits() const override { return true; }
  double damping() const override { return options_.damping; }

 private:
  const BoundedDampedLeastSquaresOptions& options_;
  BoxDampedLeastSquares qp_;
  Eigen::VectorXd lo_;
  Eigen::VectorXd hi_;
};

}  // namespace

// ---------------------------------------------------------------------------
// Options

bool DampedLeastSquaresOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  if (!(damping >= 0.0) || !std::isfinite(damping)) {
    return Invalid(
        why,
        "DampedLeastSquaresOptions::damping must be finite and >= 0, "
        "got ",
        damping);
  }
  if (!adaptive) return true;
  if (!(damping_decrease >= std::numeric_limits<double>::min() &&
        damping_decrease <= 1.0)) {
    return Invalid(why,
                   "DampedLeastSquaresOptions::damping_decrease must be in "
                   "(0, 1], got ",
                   damping_decrease);
  }
  if (!(damping_increase >= 1.0) || !std::isfinite(damping_increase)) {
    return Invalid(why,
                   "DampedLeastSquaresOptions::damping_increase must be finite "
                   "and >= 1, got ",
                   damping_increase);
  }
  if (!(min_damping >= std::numeric_limits<double>::min()) ||
      !std::isfinite(min_damping)) {
    return Invalid(why,
                   "DampedLeastSquaresOptions::min_damping must be finite and "
                   "> 0, got ",
                   min_damping);
  }
  if (!(max_damping >= min_damping) || !std::isfinite(max_damping)) {
    return Invalid(why,
                   "DampedLeastSquaresOptions::max_damping must be finite and "
                   ">= min_damping (",
                   min_damping, "), got ", max_damping);
  }
  return true;
}

bool SelectivelyDampedOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  if (!(max_joint_change > 0.0) || !std::isfinite(max_joint_change)) {
    return Invalid(why,
                   "SelectivelyDampedOptions::max_joint_change must be finite "
                   "and > 0, got ",
                   max_joint_change);
  }
  if (!(singular_value_cutoff >= 0.0 && singular_value_cutoff < 1.0)) {
    return Invalid(why,
                   "SelectivelyDampedOptions::singular_value_cutoff must be in "
                   "[0, 1), got ",
                   singular_value_cutoff);
  }
  return true;
}

bool BoundedDampedLeastSquaresOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  if (!(damping > 0.0) || !std::isfinite(damping)) {
    return Invalid(why,
                   "BoundedDampedLeastSquaresOptions::damping must be finite "
                   "and > 0, got ",
                   damping);
  }
  return true;
}

// ---------------------------------------------------------------------------
// Solvers

Result DampedLeastSquaresSolver::Solve(const Problem& problem,
                                       const Eigen::VectorXd& q0) const {
  DampedLeastSquaresMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result SelectivelyDampedSolver::Solve(const Problem& problem,
                                      const Eigen::VectorXd& q0) const {
  SelectivelyDampedMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result BoundedDampedLeastSquaresSolver::Solve(
    const Problem& problem, const Eigen::VectorXd& q0) const {
  BoundedDampedLeastSquaresMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const DampedLeastSquaresOptions& options) {
  return DampedLeastSquaresSolver(options).Solve(problem, q0);
}
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const SelectivelyDampedOptions& options) {
  return SelectivelyDampedSolver(options).Solve(problem, q0);
}
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const BoundedDampedLeastSquaresOptions& options) {
  return BoundedDampedLeastSquaresSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const DampedLeastSquaresOptions& options) {
  return std::make_unique<DampedLeastSquaresSolver>(options);
}
std::unique_ptr<Solver> MakeSolver(const SelectivelyDampedOptions& options) {
  return std::make_unique<SelectivelyDampedSolver>(options);
}
std::unique_ptr<Solver> MakeSolver(
    const BoundedDampedLeastSquaresOptions& options) {
  return std::make_unique<BoundedDampedLeastSquaresSolver>(options);
}

}  // namespace iklab
