#include "solvers/optimization/lbfgsb_solver.h"

#include <cmath>
#include <exception>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <LBFGSB.h>

#include "framework/internal/check.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/optimization/internal/lbfgsb_objective.h"

namespace iklab {

using internal::Invalid;

namespace {

// Thrown by the iteration hook to end LBFGSpp's minimize() early with a
// reason of ours (LBFGSpp has no callback that can stop it). Not a
// std::exception, so it cannot be mistaken for one of LBFGSpp's errors.
struct StopSolve {
  SolveStatus status;
  const char* message;
};

// The objective LBFGSpp sees: LbfgsbObjective plus the per-iteration hook
// that IterationEndingLineSearch calls after each completed line search.
class HookedObjective {
 public:
  HookedObjective(internal::SolveScope* scope, const LbfgsbOptions& options)
      : scope_(scope),
        options_(options),
        objective_(scope->problem(), scope->workspace(), scope->lower(),
                   scope->upper()) {}

  double operator()(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) {
    return objective_(x, gradient);
  }

  // End of iteration `iterations_ + 1` at the line search's point x (whose
  // potential fx and gradient the objective has just evaluated).
  void EndIteration(Eigen::VectorXd& x, double fx) {
    // The objective evaluated the projection of x; make LBFGSpp's x that
    // same point (a no-op except after rounding at a bound).
    x = x.cwiseMax(scope_->lower()).cwiseMin(scope_->upper());
    ++iterations_;
    scope_->Trace(iterations_, x, fx);
    if (options_.stop_at_tolerance && scope_->WithinToleranceAt(x)) {
      throw StopSolve{SolveStatus::kConverged,
                      "every goal within tolerance"};
    }
    if (scope_->OutOfTime()) {
      throw StopSolve{SolveStatus::kTimeBudget, "time budget spent"};
    }
  }

  int iterations() const { return iterations_; }
  const internal::LbfgsbObjective& objective() const { return objective_; }

 private:
  internal::SolveScope* scope_;
  const LbfgsbOptions& options_;
  internal::LbfgsbObjective objective_;
  int iterations_ = 0;
};

// LBFGSpp's Moré–Thuente line search followed by the iteration hook. LBFGSpp
// calls exactly one line search per iteration, so this is where an iteration
// ends; LBFGSBSolver takes the line search as a template parameter.
template <typename Scalar>
class IterationEndingLineSearch {
 public:
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  template <typename Function>
  static void LineSearch(Function& f, Scalar& fx, Vector& x, Vector& grad,
                         Scalar& step, const Scalar& step_max,
                         const Vector& drt, const Vector& xp,
                         const LBFGSpp::LBFGSBParam<Scalar>& param) {
    LBFGSpp::LineSearchMoreThuente<Scalar>::LineSearch(
        f, fx, x, grad, step, step_max, drt, xp, param);
    f.EndIteration(x, fx);
  }
};

std::string LbfgsppMessage(const char* what) {
  return std::string("LBFGSpp: ") + what;
}

}  // namespace

bool LbfgsbOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why)) return false;
  if (memory < 1) {
    return Invalid(why, "LbfgsbOptions::memory must be >= 1, got ", memory);
  }
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    return Invalid(why, "LbfgsbOptions::epsilon must be finite and >= 0, got ",
                   epsilon);
  }
  if (max_linesearch < 1) {
    return Invalid(why, "LbfgsbOptions::max_linesearch must be >= 1, got ",
                   max_linesearch);
  }
  if (memory_resets < 0) {
    return Invalid(why, "LbfgsbOptions::memory_resets must be >= 0, got ",
                   memory_resets);
  }
  if (max_submin < 0) {
    return Invalid(why, "LbfgsbOptions::max_submin must be >= 0, got ",
                   max_submin);
  }
  if (!(stationarity_tolerance > 0.0 && stationarity_tolerance < 1.0)) {
    return Invalid(why,
                   "LbfgsbOptions::stationarity_tolerance must be in (0, 1), "
                   "got ",
                   stationarity_tolerance);
  }
  return true;
}

namespace internal {

LbfgsbObjective::LbfgsbObjective(const Problem& problem,
                                 ProblemWorkspace* workspace,
                                 const Eigen::VectorXd& lower,
                                 const Eigen::VectorXd& upper)
    : problem_(problem),
      workspace_(workspace),
      lower_(lower),
      upper_(upper),
      x_(problem.nq()),
      best_q_(problem.nq()),
      best_potential_(std::numeric_limits<double>::infinity()) {}

double LbfgsbObjective::operator()(const Eigen::VectorXd& x,
                                   Eigen::VectorXd& gradient) {
  ++evaluations_;
  x_ = x.cwiseMax(lower_).cwiseMin(upper_);
  Eigen::Ref<Eigen::VectorXd> gradient_ref(gradient);
  const double potential =
      problem_.EvaluatePotential(x_, workspace_, &gradient_ref);
  if (!std::isfinite(potential) || !gradient.allFinite()) {
    throw std::domain_error("the potential or its gradient is not finite");
  }
  if (potential < best_potential_) {
    best_potential_ = potential;
    best_q_ = x_;
  }
  return potential;
}

BoxMinimization MinimizeInBox(
    const std::function<double(const Eigen::VectorXd&, Eigen::VectorXd&)>& f,
    const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
    const Eigen::VectorXd& upper, const BoxMinimizationOptions& options) {
  BoxMinimization out;
  Eigen::VectorXd x = x0.cwiseMax(lower).cwiseMin(upper);
  Eigen::VectorXd gradient(x.size());
  out.x = x;
  out.value = f(x, gradient);
  // LBFGSpp keeps a reference to its parameters: they live here, by value.
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = options.max_iterations;
  param.epsilon = options.epsilon;
  param.epsilon_rel = options.epsilon_rel;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  const auto tracked = [&](const Eigen::VectorXd& y, Eigen::VectorXd& g) {
    ++out.evaluations;
    const double value = f(y, g);
    if (value < out.value) {
      out.value = value;
      out.x = y.cwiseMax(lower).cwiseMin(upper);
    }
    return value;
  };
  double fx = out.value;
  try {
    out.iterations = solver.minimize(tracked, x, fx, lower, upper);
    out.status = out.iterations >= options.max_iterations
                     ? SolveStatus::kMaxIterations
                     : SolveStatus::kConverged;
    out.message = out.status == SolveStatus::kConverged
                      ? "L-BFGS-B: projected gradient below epsilon"
                      : "L-BFGS-B: iteration cap reached";
  } catch (const std::exception& e) {
    out.status = SolveStatus::kNumericalFailure;
    out.message = LbfgsppMessage(e.what());
  }
  return out;
}

}  // namespace internal

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const LbfgsbOptions& options) {
  internal::SolveScope scope(problem, q0, options.common, "lbfgsb");
  if (!scope.ok()) return scope.result();
  std::string why;
  // Common options were valid (the scope checked them): one of ours.
  if (!options.IsValid(&why)) return scope.Reject(why);

  // By value, alive for the whole minimize(): LBFGSBSolver keeps a reference.
  LBFGSpp::LBFGSBParam<double> param;
  param.m = options.memory;
  param.epsilon = options.epsilon;
  param.epsilon_rel = 0.0;  // ‖q‖ is no scale for angles
  param.past = 0;  // LBFGSpp's Δf test is absolute below |f| = 1: IK
                   // potentials are far below 1 near the goal
  param.max_iterations = options.common.max_iterations;
  param.max_linesearch = options.max_linesearch;
  param.max_submin = options.max_submin;

  HookedObjective objective(&scope, options);
  Eigen::VectorXd x = scope.start();
  double fx = 0.0;
  SolveStatus status = SolveStatus::kNotSolved;
  std::string message;
  int resets = 0;
  double potential_at_reset = std::numeric_limits<double>::infinity();
  for (;;) {
    try {
      param.max_iterations =
          options.common.max_iterations - objective.iterations();
      LBFGSpp::LBFGSBSolver<double, IterationEndingLineSearch> solver(param);
      solver.minimize(objective, x, fx, scope.lower(), scope.upper());
      if (objective.iterations() >= options.common.max_iterations) {
        status = SolveStatus::kMaxIterations;
        message = "iteration cap reached";
      } else {
        status = SolveStatus::kLocalMinimum;  // Finish decides (rule 1, 3)
        message = "projected gradient below epsilon";
      }
    } catch (const StopSolve& stop) {
      status = stop.status;
      message = stop.message;
    } catch (const std::domain_error& e) {
      status = SolveStatus::kNumericalFailure;
      message = e.what();
    } catch (const std::exception& e) {
      // LBFGSpp's line search throws when it cannot decrease the potential
      // any more (runtime_error / logic_error). At a stationary point that is
      // the expected end. Elsewhere the search direction was bad (a stale
      // curvature memory can make L-BFGS-B's subspace step a non-descent
      // direction): restart from the best pose with an empty memory, as long
      // as the previous run made progress.
      const internal::LbfgsbObjective& f = objective.objective();
      const Eigen::VectorXd& best = f.has_best() ? f.best_q() : scope.start();
      if (scope.RelativeProjectedGradient(best) <=
          options.stationarity_tolerance) {
        status = SolveStatus::kLocalMinimum;
        message = "line search made no more progress at a stationary point (" +
                  LbfgsppMessage(e.what()) + ")";
      } else if (resets < options.memory_resets && f.has_best() &&
                 f.best_potential() < potential_at_reset &&
                 objective.iterations() < options.common.max_iterations) {
        ++resets;
        potential_at_reset = f.best_potential();
        x = best;
        continue;
      } else {
        status = SolveStatus::kNumericalFailure;
        message = "line search failed away from a stationary point (" +
                  LbfgsppMessage(e.what()) + ")";
      }
    }
    break;
  }
  if (resets > 0) {
    message += " [after " + std::to_string(resets) +
               " restart(s) with an empty L-BFGS memory]";
  }
  Result& result = scope.result();
  result.iterations = objective.iterations();
  result.function_evaluations = objective.objective().evaluations();
  result.jacobian_evaluations = objective.objective().evaluations();
  const Eigen::VectorXd& best = objective.objective().has_best()
                                    ? objective.objective().best_q()
                                    : scope.start();
  return scope.Finish(best, status, std::move(message));
}

Result LbfgsbSolver::Solve(const Problem& problem,
                           const Eigen::VectorXd& q0) const {
  return iklab::Solve(problem, q0, options_);
}

std::unique_ptr<Solver> MakeSolver(const LbfgsbOptions& options) {
  return std::make_unique<LbfgsbSolver>(options);
}

}  // namespace iklab
