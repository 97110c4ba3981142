#ifndef IKLAB_SOLVERS_CONSTRAINED_SLSQP_SOLVER_H_
#define IKLAB_SOLVERS_CONSTRAINED_SLSQP_SOLVER_H_

/// @file
/// Sequential quadratic programming: Kraft's SLSQP (D. Kraft, "A software
/// package for sequential quadratic programming", DFVLR-FB 88-28, 1988) as
/// NLopt ships it (NLOPT_LD_SLSQP), on the problem as a constrained NLP
/// (solvers/constrained/internal/nlp_evaluator.h):
///
///     minimize    P(q)  (+ ½ μ ‖q − q0‖² when P has no goals)
///     subject to  h(q) = 0, c(q) ≤ 0, lower ≤ q ≤ upper.
///
/// An SQP method with a BFGS Hessian of the Lagrangian and real nonlinear
/// constraints: the counterpart of CFSQP (Lawrence, Zhou & Tits), the
/// optimizer Tolani et al. compare against in Tables 4–7.
///
/// The adapter shields NLopt: the nlopt::opt lives inside the call, the
/// iteration hook (our tolerance stop, time budget) runs in the objective and
/// stops NLopt by nlopt::forced_stop, and NLopt's exceptions
/// (roundoff_limited, std::runtime_error "nlopt failure", invalid_argument)
/// become statuses with NLopt's message. NLopt does not report SLSQP's major
/// iterations: `common.max_iterations` caps the objective evaluations, and
/// Result::iterations counts them.

#include <memory>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of the SLSQP solver.
struct SlsqpOptions {
  /// max_iterations caps objective evaluations (NLopt's maxeval).
  SolveOptions common;
  /// Pose every weighted goal as a hard equality constraint (see
  /// IpoptOptions::goals_as_constraints).
  bool goals_as_constraints = false;
  /// μ ≥ 0 of the displacement term ½ μ ‖q − q0‖², used only when no
  /// weighted goal is left in the objective (IpoptOptions).
  double displacement_weight = 1e-3;
  /// Constraint tolerance NLopt allows per row (add_*_mconstraint tol). ≥ 0.
  double constraint_tolerance = 1e-10;
  /// NLopt's xtol_rel (relative step size stop). ≥ 0.
  double relative_x_tolerance = 1e-12;
  /// Stop at the first evaluation whose goal and constraint errors are
  /// within common's tolerances.
  bool stop_at_tolerance = true;

  bool IsValid(std::string* why) const;
};

/// Solves `problem` from q0 with NLopt's SLSQP. Never throws.
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const SlsqpOptions& options);

/// Solver interface. Name "slsqp".
class SlsqpSolver final : public Solver {
 public:
  explicit SlsqpSolver(SlsqpOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "slsqp"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const SlsqpOptions& options() const { return options_; }

 private:
  SlsqpOptions options_;
};

std::unique_ptr<Solver> MakeSolver(const SlsqpOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_CONSTRAINED_SLSQP_SOLVER_H_
