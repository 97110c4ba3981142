#include "solvers/optimization/ceres_solver.h"

#include <cmath>
#include <exception>
#include <sstream>
#include <utility>
#include <vector>

#include <ceres/ceres.h>

#include "framework/internal/check.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/optimization/internal/ceres_cost_function.h"

namespace iklab {

using internal::Invalid;

namespace {

using RowMajorMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// ½‖R(q)‖² for Ceres: one parameter block (q, nq entries), num_residuals()
// residuals, Jacobian from Problem::EvaluateResiduals.
class StackedResidualCost final : public ceres::CostFunction {
 public:
  StackedResidualCost(const Problem& problem, ProblemWorkspace* workspace)
      : problem_(problem),
        workspace_(workspace),
        q_(problem.nq()),
        jacobian_(problem.num_residuals(), problem.nq()) {
    set_num_residuals(problem.num_residuals());
    mutable_parameter_block_sizes()->push_back(problem.nq());
  }

  bool Evaluate(double const* const* parameters, double* residuals,
                double** jacobians) const override {
    const int m = problem_.num_residuals();
    q_ = Eigen::Map<const Eigen::VectorXd>(parameters[0], problem_.nq());
    Eigen::Map<Eigen::VectorXd> residual_map(residuals, m);
    const bool want_jacobian = jacobians != nullptr && jacobians[0] != nullptr;
    try {
      if (want_jacobian) {
        Eigen::Ref<Eigen::MatrixXd> jacobian_ref(jacobian_);
        problem_.EvaluateResiduals(q_, workspace_, residual_map,
                                   &jacobian_ref);
        // Ceres wants the m × nq block row-major.
        Eigen::Map<RowMajorMatrix>(jacobians[0], m, problem_.nq()) = jacobian_;
      } else {
        problem_.EvaluateResiduals(q_, workspace_, residual_map, nullptr);
      }
    } catch (const std::exception&) {
      return false;  // Ceres treats it as a failed evaluation
    }
    return true;
  }

 private:
  const Problem& problem_;
  ProblemWorkspace* workspace_;
  // Evaluate() is const in Ceres' interface; these are scratch buffers of
  // this (single-solve, single-thread) cost function.
  mutable Eigen::VectorXd q_;
  mutable Eigen::MatrixXd jacobian_;
};

// Per-iteration hook: trace, goal-tolerance stop, time budget. Ceres calls it
// after each iteration (and once for iteration 0, the start) with the
// parameter block already updated (update_state_every_iteration).
class IterationHook final : public ceres::IterationCallback {
 public:
  IterationHook(internal::SolveScope* scope, const Eigen::VectorXd* q,
                bool stop_at_tolerance)
      : scope_(scope), q_(q), stop_at_tolerance_(stop_at_tolerance) {}

  ceres::CallbackReturnType operator()(
      const ceres::IterationSummary& summary) override {
    scope_->Trace(summary.iteration, *q_, summary.cost);
    if (stop_at_tolerance_ && scope_->WithinToleranceAt(*q_)) {
      reason_ = SolveStatus::kConverged;
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    if (scope_->OutOfTime()) {
      reason_ = SolveStatus::kTimeBudget;
      // Not SOLVER_ABORT: Ceres would not hand back the parameters.
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    return ceres::SOLVER_CONTINUE;
  }

  SolveStatus reason() const { return reason_; }

 private:
  internal::SolveScope* scope_;
  const Eigen::VectorXd* q_;
  bool stop_at_tolerance_;
  SolveStatus reason_ = SolveStatus::kNotSolved;
};

const char* MethodName(CeresOptions::Method method) {
  return method == CeresOptions::Method::kDogleg ? "ceres-dogleg" : "ceres-lm";
}

}  // namespace

bool CeresOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why)) return false;
  if (!(function_tolerance >= 0.0) || !std::isfinite(function_tolerance)) {
    return Invalid(why,
                   "CeresOptions::function_tolerance must be finite and >= 0, "
                   "got ",
                   function_tolerance);
  }
  if (!(gradient_tolerance >= 0.0) || !std::isfinite(gradient_tolerance)) {
    return Invalid(why,
                   "CeresOptions::gradient_tolerance must be finite and >= 0, "
                   "got ",
                   gradient_tolerance);
  }
  if (!(parameter_tolerance >= 0.0) || !std::isfinite(parameter_tolerance)) {
    return Invalid(why,
                   "CeresOptions::parameter_tolerance must be finite and >= 0, "
                   "got ",
                   parameter_tolerance);
  }
  if (!(initial_trust_region_radius > 0.0) ||
      !std::isfinite(initial_trust_region_radius)) {
    return Invalid(why,
                   "CeresOptions::initial_trust_region_radius must be finite "
                   "and > 0, got ",
                   initial_trust_region_radius);
  }
  if (method != Method::kLevenbergMarquardt && method != Method::kDogleg) {
    return Invalid(why,
                   "CeresOptions::method must be kLevenbergMarquardt or "
                   "kDogleg, got ",
                   static_cast<int>(method));
  }
  if (linear_solver != LinearSolver::kDenseQr &&
      linear_solver != LinearSolver::kDenseNormalCholesky) {
    return Invalid(why,
                   "CeresOptions::linear_solver must be kDenseQr or "
                   "kDenseNormalCholesky, got ",
                   static_cast<int>(linear_solver));
  }
  return true;
}

namespace internal {

std::unique_ptr<ceres::CostFunction> MakeCeresCostFunction(
    const Problem& problem, ProblemWorkspace* workspace) {
  return std::make_unique<StackedResidualCost>(problem, workspace);
}

}  // namespace internal

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const CeresOptions& options) {
  internal::SolveScope scope(problem, q0, options.common,
                             MethodName(options.method));
  if (!scope.ok()) return scope.result();
  std::string why;
  if (!options.IsValid(&why)) return scope.Reject(why);
  const int nq = problem.nq();
  Eigen::VectorXd q = scope.start();
  const bool long_chain = nq > CeresOptions::kMaxDenseCoordinates;
  if (long_chain && options.method == CeresOptions::Method::kDogleg) {
    return scope.Finish(
        q, SolveStatus::kInvalidInput,
        internal::StrCat("ceres-dogleg needs a dense factorization, O(n^3) per "
                         "iteration; ", nq, " coordinates exceed the limit of ",
                         CeresOptions::kMaxDenseCoordinates,
                         " (use ceres-lm or bounded-lm for long chains)"));
  }

  std::unique_ptr<ceres::CostFunction> cost =
      internal::MakeCeresCostFunction(problem, scope.workspace());
  ceres::Problem::Options problem_options;
  problem_options.cost_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  ceres::Problem ceres_problem(problem_options);
  ceres_problem.AddResidualBlock(cost.get(), nullptr, q.data());
  if (options.common.respect_limits) {
    for (int i = 0; i < nq; ++i) {
      // Ceres' default bounds are ∓max double: set only the finite ones.
      if (std::isfinite(scope.lower()[i])) {
        ceres_problem.SetParameterLowerBound(q.data(), i, scope.lower()[i]);
      }
      if (std::isfinite(scope.upper()[i])) {
        ceres_problem.SetParameterUpperBound(q.data(), i, scope.upper()[i]);
      }
    }
  }

  IterationHook hook(&scope, &q, options.stop_at_tolerance);
  ceres::Solver::Options solver_options;
  solver_options.minimizer_type = ceres::TRUST_REGION;
  solver_options.trust_region_strategy_type =
      options.method == CeresOptions::Method::kDogleg
          ? ceres::DOGLEG
          : ceres::LEVENBERG_MARQUARDT;
  solver_options.dogleg_type = ceres::TRADITIONAL_DOGLEG;
  solver_options.linear_solver_type =
      options.linear_solver == CeresOptions::LinearSolver::kDenseQr
          ? ceres::DENSE_QR
          : ceres::DENSE_NORMAL_CHOLESKY;
  if (long_chain) {
    solver_options.linear_solver_type = ceres::CGNR;
    solver_options.preconditioner_type = ceres::IDENTITY;
    solver_options.max_linear_solver_iterations =
        CeresOptions::kMaxLinearIterations;
  }
  solver_options.num_threads = 1;
  solver_options.logging_type = ceres::SILENT;
  solver_options.minimizer_progress_to_stdout = false;
  solver_options.max_num_iterations = options.common.max_iterations;
  if (options.common.time_budget_seconds > 0.0) {
    solver_options.max_solver_time_in_seconds =
        options.common.time_budget_seconds;
  }
  solver_options.function_tolerance = options.function_tolerance;
  solver_options.gradient_tolerance = options.gradient_tolerance;
  solver_options.parameter_tolerance = options.parameter_tolerance;
  solver_options.initial_trust_region_radius =
      options.initial_trust_region_radius;
  solver_options.update_state_every_iteration = true;
  solver_options.callbacks.push_back(&hook);
  std::string ceres_error;
  if (!solver_options.IsValid(&ceres_error)) {
    return scope.Finish(q, SolveStatus::kInvalidInput,
                        "Ceres rejected the options: " + ceres_error);
  }

  ceres::Solver::Summary summary;
  ceres::Solve(solver_options, &ceres_problem, &summary);

  Result& result = scope.result();
  // summary.iterations starts with iteration 0 (the start point).
  result.iterations = summary.iterations.empty()
                          ? 0
                          : summary.iterations.back().iteration;
  // Ceres counts cost-only and cost+Jacobian evaluations separately; every
  // evaluation computes the residuals.
  result.function_evaluations =
      summary.num_residual_evaluations + summary.num_jacobian_evaluations;
  result.jacobian_evaluations = summary.num_jacobian_evaluations;
  SolveStatus status = SolveStatus::kNumericalFailure;
  std::string message = "Ceres: " + summary.message;
  switch (summary.termination_type) {
    case ceres::USER_SUCCESS:
      status = hook.reason();
      message = status == SolveStatus::kTimeBudget ? "time budget spent"
                                                   : "every goal within "
                                                     "tolerance";
      break;
    case ceres::CONVERGENCE:
      status = SolveStatus::kLocalMinimum;  // stationary; Finish decides
      break;
    case ceres::NO_CONVERGENCE:
      status = result.iterations >= options.common.max_iterations
                   ? SolveStatus::kMaxIterations
                   : SolveStatus::kTimeBudget;
      break;
    case ceres::FAILURE:
    case ceres::USER_FAILURE:
      status = SolveStatus::kNumericalFailure;
      break;
  }
  return scope.Finish(q, status, std::move(message));
}

std::string CeresSolver::name() const { return MethodName(options_.method); }

Result CeresSolver::Solve(const Problem& problem,
                          const Eigen::VectorXd& q0) const {
  return iklab::Solve(problem, q0, options_);
}

std::unique_ptr<Solver> MakeSolver(const CeresOptions& options) {
  return std::make_unique<CeresSolver>(options);
}

}  // namespace iklab
