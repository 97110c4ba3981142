#ifndef IKLAB_SOLVERS_OPTIMIZATION_CERES_SOLVER_H_
#define IKLAB_SOLVERS_OPTIMIZATION_CERES_SOLVER_H_

/// @file
/// Bounded nonlinear least squares with Ceres: minimize ½‖R(q)‖² over the
/// problem's stacked weighted residuals R = [√w_1 r_1; …] with the analytic
/// Jacobian from the framework (no numeric or automatic differentiation of
/// the kinematics), joint limits as Ceres parameter bounds, by
/// Levenberg–Marquardt or dogleg trust regions.
///
/// Ceres runs single-threaded with a dense linear solver and its logging off;
/// an iteration callback records the trace, stops at the goal tolerances and
/// enforces the time budget.

#include <memory>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of the Ceres solver.
struct CeresOptions {
  /// Trust-region strategy (Ceres `trust_region_strategy_type`).
  enum class Method {
    /// Levenberg–Marquardt (Ceres LEVENBERG_MARQUARDT).
    kLevenbergMarquardt,
    /// Powell's dogleg (Ceres DOGLEG, traditional).
    kDogleg,
  };
  /// Dense linear solver for the trust-region steps (IK Jacobians are small
  /// and dense).
  enum class LinearSolver {
    /// QR of the Jacobian: robust for rank-deficient (redundant) arms.
    kDenseQr,
    /// Cholesky of JᵀJ: faster, squares the condition number.
    kDenseNormalCholesky,
  };

  /// Problems with more coordinates than this do not use the dense solver,
  /// whose factorization costs O(n³) per iteration (tens of seconds for a
  /// 10,000-joint chain, beyond any time budget and checked only between
  /// iterations): Levenberg–Marquardt switches to Ceres' CGNR (conjugate
  /// gradients on the normal equations, at most kMaxLinearIterations of
  /// O(m n) each, so an iteration's cost is bounded), and dogleg, which
  /// needs a factorization, reports kInvalidInput.
  static constexpr int kMaxDenseCoordinates = 1000;
  static constexpr int kMaxLinearIterations = 100;

  SolveOptions common;
  Method method = Method::kLevenbergMarquardt;
  LinearSolver linear_solver = LinearSolver::kDenseQr;
  /// Ceres' stationarity tests (see ceres::Solver::Options): relative cost
  /// change, max-norm of the projected gradient, relative step size. Each
  /// ≥ 0. Tight by default: the IK stop is the goal tolerance
  /// (stop_at_tolerance); these tests end runs that cannot converge
  /// (local minima, limits, goals out of reach).
  double function_tolerance = 1e-14;
  double gradient_tolerance = 1e-14;
  double parameter_tolerance = 1e-12;
  /// Initial trust-region radius (Ceres' default 1e4 makes the first LM step
  /// nearly Gauss–Newton). > 0.
  double initial_trust_region_radius = 1e4;
  /// End the solve after the first iteration at which every goal is within
  /// common's tolerances. False runs Ceres to its own convergence tests.
  bool stop_at_tolerance = true;

  /// True if every field (and common) is in range; otherwise says why.
  bool IsValid(std::string* why) const;
};

/// Minimizes ½‖R(q)‖² from q0 with Ceres within the bounds (none when
/// options.common.respect_limits is false). Never throws for bad input or
/// numerical trouble: see Result::status. Names: "ceres-lm", "ceres-dogleg".
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const CeresOptions& options);

/// Solver interface around Solve(problem, q0, CeresOptions).
class CeresSolver final : public Solver {
 public:
  explicit CeresSolver(CeresOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override;
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const CeresOptions& options() const { return options_; }

 private:
  CeresOptions options_;
};

/// std::make_unique<CeresSolver>(options).
std::unique_ptr<Solver> MakeSolver(const CeresOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_OPTIMIZATION_CERES_SOLVER_H_
