#ifndef IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_LBFGSB_OBJECTIVE_H_
#define IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_LBFGSB_OBJECTIVE_H_

/// @file
/// The pieces of the L-BFGS-B adapter that solver sources and tests use
/// directly: the objective LBFGSpp calls, and a small box minimizer for the
/// reduced problems of analytic solvers. Not installed.

#include <cmath>
#include <functional>
#include <string>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab::internal {

/// The objective LBFGSpp calls, f(x, grad) → P(x): evaluates the potential
/// and its gradient at x projected onto the box [lower, upper] (LBFGSpp's
/// trial points x_p + step·d can land one rounding error outside the box;
/// the potential is only defined inside), counts evaluations and keeps the
/// best (lowest-potential) pose seen. Allocation-free once constructed.
/// Exposed for the allocation test.
class LbfgsbObjective {
 public:
  LbfgsbObjective(const Problem& problem, ProblemWorkspace* workspace,
                  const Eigen::VectorXd& lower, const Eigen::VectorXd& upper);

  /// @throws std::domain_error if the potential or gradient is not finite.
  double operator()(const Eigen::VectorXd& x, Eigen::VectorXd& gradient);

  int evaluations() const { return evaluations_; }
  /// True once an evaluation succeeded (best_q() is then meaningful).
  bool has_best() const { return std::isfinite(best_potential_); }
  double best_potential() const { return best_potential_; }
  /// Best pose evaluated so far (inside the box).
  const Eigen::VectorXd& best_q() const { return best_q_; }

 private:
  const Problem& problem_;
  ProblemWorkspace* workspace_;
  const Eigen::VectorXd& lower_;
  const Eigen::VectorXd& upper_;
  Eigen::VectorXd x_;
  Eigen::VectorXd best_q_;
  double best_potential_;
  int evaluations_ = 0;
};

/// Settings of MinimizeInBox (LBFGSpp's parameters of the same names).
struct BoxMinimizationOptions {
  /// Iteration cap, ≥ 1.
  int max_iterations = 200;
  /// Stop when the projected gradient ‖P(x − g) − x‖∞ ≤ max(epsilon,
  /// epsilon_rel ‖x‖). ≥ 0.
  double epsilon = 1e-12;
  double epsilon_rel = 0.0;
};

/// How MinimizeInBox ended and where.
struct BoxMinimization {
  /// kConverged (LBFGSpp's stationarity test met), kMaxIterations, or
  /// kNumericalFailure (LBFGSpp's line search failed; `message` says why).
  SolveStatus status = SolveStatus::kNotSolved;
  std::string message;
  /// The best (lowest) point evaluated, inside the box, and its value.
  Eigen::VectorXd x;
  double value = 0.0;
  /// LBFGSpp's iteration count (0 after a line-search failure: LBFGSpp
  /// does not report it then) and the evaluations of f after the first.
  int iterations = 0;
  int evaluations = 0;
};

/// L-BFGS-B (LBFGSpp) on a small smooth function f(x, gradient) → value
/// within [lower, upper] from x0 (projected into the box), for the reduced
/// problems of analytic solvers (e.g. Tolani's Table 3). Like the solver
/// above, LBFGSpp's parameters are kept by value and its line-search
/// exceptions become a status with the message; the best point evaluated is
/// returned whatever the ending.
/// @pre sizes of x0, lower, upper agree; lower <= upper.
BoxMinimization MinimizeInBox(
    const std::function<double(const Eigen::VectorXd&, Eigen::VectorXd&)>& f,
    const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
    const Eigen::VectorXd& upper, const BoxMinimizationOptions& options);

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_LBFGSB_OBJECTIVE_H_
