#ifndef IKLAB_SOLVERS_OPTIMIZATION_LBFGSB_SOLVER_H_
#define IKLAB_SOLVERS_OPTIMIZATION_LBFGSB_SOLVER_H_

/// @file
/// Bounded L-BFGS-B on the problem's potential (the NLP paper §3: minimize
/// F(θ) = Σ ½ w_i ‖r_i‖² (+ Tikhonov α‖θ − θ_ref‖² when the problem has the
/// regularizer) subject to l ≤ θ ≤ u), through LBFGSpp's LBFGSBSolver.
///
/// The adapter shields LBFGSpp: its parameters live by value inside the call
/// (LBFGSpp's solver keeps a reference to them), its exceptions (line-search
/// failures) become statuses with LBFGSpp's message, and since LBFGSpp only
/// returns an iteration count, the adapter counts evaluations in the
/// objective, and ends each iteration in a thin line-search wrapper that
/// records the trace and checks the goal tolerances and the time budget.

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of the L-BFGS-B solver.
struct LbfgsbOptions {
  SolveOptions common;
  /// m, the number of correction pairs kept for the inverse-Hessian
  /// approximation (LBFGSpp `m`). ≥ 1; 3–20 is the useful range; 10 suits
  /// the 3–50 DOF problems of IK.
  int memory = 10;
  /// Stationarity test ‖P(q − ∇P) − q‖∞ ≤ epsilon on the projected gradient
  /// of the potential (LBFGSpp `epsilon`). ≥ 0. Tiny by default because the
  /// IK stop is the goal tolerance (stop_at_tolerance): this test only ends
  /// runs that cannot converge (unreachable / limits-infeasible goals).
  double epsilon = 1e-12;
  /// Largest number of function evaluations per line search (LBFGSpp
  /// `max_linesearch`). ≥ 1.
  int max_linesearch = 40;
  /// Iterations of the subspace minimization (LBFGSpp `max_submin`). ≥ 0.
  int max_submin = 10;
  /// End the solve after the first iteration at which every goal is within
  /// common's tolerances (the IK success test). Set false to minimize the
  /// potential to stationarity, e.g. when a regularizer's trade-off matters.
  bool stop_at_tolerance = true;
  /// When LBFGSpp's line search fails away from a stationary point (a stale
  /// curvature memory can make the subspace step a non-descent direction),
  /// L-BFGS-B restarts from the best pose with an empty memory, at most this
  /// many times per solve and only while the previous run made progress.
  /// ≥ 0; 0 turns the failure into kNumericalFailure at once.
  int memory_resets = 3;
  /// When LBFGSpp's line search fails, the best pose counts as stationary
  /// (kUnreachable / kLimitsInfeasible) if its relative projected gradient
  /// (internal::SolveScope::RelativeProjectedGradient) is at most this,
  /// otherwise the solve is a kNumericalFailure. In (0, 1).
  double stationarity_tolerance = 1e-5;

  /// True if every field (and common) is in range; otherwise says why.
  bool IsValid(std::string* why) const;
};

/// Minimizes `problem`'s potential from q0 by L-BFGS-B with the bounds as the
/// box (no box when options.common.respect_limits is false). Never throws for
/// bad input or numerical trouble: see Result::status.
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const LbfgsbOptions& options);

/// Solver interface around Solve(problem, q0, LbfgsbOptions). Name "lbfgsb".
class LbfgsbSolver final : public Solver {
 public:
  explicit LbfgsbSolver(LbfgsbOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "lbfgsb"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const LbfgsbOptions& options() const { return options_; }

 private:
  LbfgsbOptions options_;
};

/// std::make_unique<LbfgsbSolver>(options).
std::unique_ptr<Solver> MakeSolver(const LbfgsbOptions& options);

namespace internal {

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

}  // namespace internal
}  // namespace iklab

#endif  // IKLAB_SOLVERS_OPTIMIZATION_LBFGSB_SOLVER_H_
