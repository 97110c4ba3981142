#include "solvers/differential/jacobian_transpose_solver.h"

#include <cmath>
#include <sstream>
#include <utility>

#include "framework/internal/check.h"
#include "solvers/differential/internal/differential_loop.h"

namespace iklab {

using internal::Invalid;

namespace {

class JacobianTransposeMethod final : public DifferentialMethod {
 public:
  explicit JacobianTransposeMethod(const JacobianTransposeOptions& options)
      : options_(options) {}

  bool Prepare(const Problem& problem, std::string* why) override {
    if (!options_.IsValid(why)) return false;
    JJtV_.resize(problem.num_residuals());
    return true;
  }
  bool ComputeStep(const Linearization& lin, Eigen::VectorXd* dq,
                   std::string*) override {
    dq->noalias() = lin.J.transpose() * lin.V;  // Jᵀ V
    double alpha = options_.alpha;
    if (options_.step_size == JacobianTransposeOptions::StepSize::kOptimal) {
      // α = ⟨V, JJᵀV⟩/‖JJᵀV‖² = ‖JᵀV‖²/‖J(JᵀV)‖².
      JJtV_.noalias() = lin.J * *dq;
      const double denominator = JJtV_.squaredNorm();
      alpha = denominator > 0.0 ? dq->squaredNorm() / denominator : 0.0;
    }
    *dq *= alpha;
    return true;
  }

 private:
  const JacobianTransposeOptions& options_;
  Eigen::VectorXd JJtV_;
};

}  // namespace

bool JacobianTransposeOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why) || !step.IsValid(why)) return false;
  if (step_size == StepSize::kFixed &&
      (!(alpha > 0.0) || !std::isfinite(alpha))) {
    return Invalid(
        why, "JacobianTransposeOptions::alpha must be finite and > 0, got ",
        alpha);
  }
  return true;
}

Result JacobianTransposeSolver::Solve(const Problem& problem,
                                      const Eigen::VectorXd& q0) const {
  JacobianTransposeMethod method(options_);
  return internal::RunDifferentialSolve(problem, q0, options_.common,
                                        options_.step, name(), &method);
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const JacobianTransposeOptions& options) {
  return JacobianTransposeSolver(options).Solve(problem, q0);
}

std::unique_ptr<Solver> MakeSolver(const JacobianTransposeOptions& options) {
  return std::make_unique<JacobianTransposeSolver>(options);
}

}  // namespace iklab
