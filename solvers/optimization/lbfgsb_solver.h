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
  /// runs that cannot converge (local minima, limits, goals out of reach).
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
  /// (kLocalMinimum / kLimitsInfeasible / kUnreachable, decided by
  /// internal::SolveScope::Finish) if its relative projected gradient
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

}  // namespace iklab

#endif  // IKLAB_SOLVERS_OPTIMIZATION_LBFGSB_SOLVER_H_
