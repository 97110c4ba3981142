#include "solvers/restarts.h"

#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <utility>

#include "framework/internal/check.h"
#include "framework/random_configuration.h"

namespace iklab {

using internal::Invalid;

Eigen::VectorXd RandomPose(const Bounds& bounds, std::mt19937_64* rng) {
  return RandomConfiguration(bounds.lower, bounds.upper, rng);
}

bool RestartOptions::IsValid(std::string* why) const {
  if (max_attempts < 1) {
    return Invalid(why, "RestartOptions::max_attempts must be >= 1, got ",
                   max_attempts);
  }
  if (std::isnan(time_budget_seconds)) {
    return Invalid(why,
                   "RestartOptions::time_budget_seconds must not be NaN (use "
                   "<= 0 for none), got NaN");
  }
  return true;
}

Result SolveWithRestarts(const Solver& solver, const Problem& problem,
                         const Eigen::VectorXd& q0,
                         const RestartOptions& options) {
  const auto start_time = std::chrono::steady_clock::now();
  const auto elapsed = [&start_time] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_time)
        .count();
  };
  const std::string name = solver.name() + "+restarts";
  std::string why;
  if (!options.IsValid(&why)) {
    Result result;
    result.status = SolveStatus::kInvalidInput;
    result.message = why;
    result.solver = name;
    result.q = q0.allFinite() ? q0 : Eigen::VectorXd();
    return result;
  }

  std::mt19937_64 rng(options.seed);
  Result best;
  int attempts = 0;
  long iterations = 0, function_evaluations = 0, jacobian_evaluations = 0;
  double initial_potential = 0.0;
  while (attempts < options.max_attempts) {
    if (attempts > 0 && options.time_budget_seconds > 0.0 &&
        elapsed() >= options.time_budget_seconds) {
      break;
    }
    const Eigen::VectorXd start =
        attempts == 0 ? q0 : RandomPose(problem.bounds(), &rng);
    Result result = solver.Solve(problem, start);
    ++attempts;
    if (attempts == 1) {
      if (result.status == SolveStatus::kInvalidInput) {
        result.solver = name;
        return result;
      }
      initial_potential = result.initial_potential;
    }
    iterations += result.iterations;
    function_evaluations += result.function_evaluations;
    jacobian_evaluations += result.jacobian_evaluations;
    const bool better = attempts == 1 || result.converged() ||
                        (!best.converged() &&
                         result.final_potential < best.final_potential);
    if (better) best = std::move(result);
    if (best.converged()) break;
  }
  best.solver = name;
  best.attempts = attempts;
  best.iterations = static_cast<int>(iterations);
  best.function_evaluations = static_cast<int>(function_evaluations);
  best.jacobian_evaluations = static_cast<int>(jacobian_evaluations);
  best.initial_potential = initial_potential;
  best.wall_time_seconds = elapsed();
  if (!best.converged()) {
    best.message = "no attempt converged in " + std::to_string(attempts) +
                   " attempts; best: " + best.message;
  } else if (attempts > 1) {
    best.message = "attempt " + std::to_string(attempts) + ": " + best.message;
  }
  return best;
}

RestartSolver::RestartSolver(std::shared_ptr<const Solver> inner,
                             RestartOptions options)
    : inner_(std::move(inner)), options_(std::move(options)) {
  if (inner_ == nullptr) {
    throw std::invalid_argument("RestartSolver: inner solver is null");
  }
}

std::string RestartSolver::name() const { return inner_->name() + "+restarts"; }

Result RestartSolver::Solve(const Problem& problem,
                            const Eigen::VectorXd& q0) const {
  return SolveWithRestarts(*inner_, problem, q0, options_);
}

}  // namespace iklab
