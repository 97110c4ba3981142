#ifndef IKLAB_SOLVERS_CONSTRAINED_IPOPT_SOLVER_H_
#define IKLAB_SOLVERS_CONSTRAINED_IPOPT_SOLVER_H_

/// @file
/// IPOPT (interior-point NLP; Wächter & Biegler, Math. Programming 106,
/// 2006) on the problem as a constrained NLP (solvers/constrained/internal/nlp_evaluator.h):
///
///     minimize    P(q)  (+ ½ μ ‖q − q0‖² when P has no goals)
///     subject to  h(q) = 0 (equality constraints), c(q) ≤ 0 (inequality
///                 constraints), lower ≤ q ≤ upper (the bounds),
///
/// with P the potential of the weighted goals and regularizers. With
/// goals_as_constraints the weighted goals become equalities too
/// (Problem::WithGoalsAsConstraints): IK posed as Tolani et al. pose it for
/// CFSQP. Exact first derivatives; the Hessian of the Lagrangian by IPOPT's
/// limited-memory quasi-Newton approximation.
///
/// The adapter shields IPOPT: it owns the IpoptApplication inside the call,
/// sets bound_relax_factor = 0 (IPOPT otherwise relaxes the bounds by 1e-8,
/// and an answer could leave the joint limits), catches IPOPT's exceptions
/// and maps its return status to SolveStatus: success / acceptable / our
/// tolerance stop → kConverged (verified by SolveScope::Finish), infeasible or
/// failed restoration → stationary (kLocalMinimum, or kLimitsInfeasible by
/// the penalty gradient, or kUnreachable with the reach certificate:
/// internal::SolveScope::Finish rule 3), iteration / time caps → kMaxIterations
/// / kTimeBudget, anything else → kNumericalFailure with IPOPT's status.
/// Note: IPOPT counts equality rows; more equality rows than coordinates
/// (e.g. a 9-residual pose goal on a 7-DOF arm) is refused by IPOPT
/// ("too few degrees of freedom") even when the rows are dependent: pose
/// such constraints in a minimal form (e.g. RotationVectorGoal), as
/// goals_as_constraints does for goals (Problem::WithGoalsAsConstraints).

#include <memory>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of the IPOPT solver.
struct IpoptOptions {
  /// max_iterations is IPOPT's max_iter.
  SolveOptions common;
  /// Pose every weighted goal as a hard equality constraint (objective: the
  /// regularizers and the displacement term only).
  bool goals_as_constraints = false;
  /// μ ≥ 0 of the displacement term ½ μ ‖q − q0‖²: a minimum-motion
  /// objective that makes the constrained problem well posed when the
  /// objective would otherwise be 0 (or only regularizers). Used only when
  /// no weighted goal is left in the objective (goals_as_constraints, or a
  /// problem of constraints only), so it never pulls the answer off a goal.
  double displacement_weight = 1e-3;
  /// IPOPT's `tol` (scaled NLP error). > 0.
  double tolerance = 1e-8;
  /// IPOPT's `constr_viol_tol` (absolute constraint violation). > 0.
  double constraint_tolerance = 1e-9;
  /// End the solve at the first iterate whose goal and constraint errors are
  /// within common's tolerances (the IK success test).
  bool stop_at_tolerance = true;

  /// How IPOPT updates its barrier parameter μ (its `mu_strategy`).
  enum class BarrierUpdate {
    /// Fiacco–McCormick: μ is decreased once the barrier problem is solved
    /// to a tolerance proportional to μ (Wächter & Biegler 2006, §2.1).
    kMonotone,
    /// μ chosen anew every iteration by a quality-function oracle
    /// (Nocedal, Wächter & Waltz 2009): IPOPT's choice when the Hessian is
    /// approximated by limited-memory quasi-Newton, as here.
    kAdaptive,
  };
  /// Adaptive by default (IPOPT's own choice here). On these small NLPs
  /// (n ≤ ~60 coordinates) a solve's cost is its number of linear solves,
  /// each paying a fixed price inside Debian's MUMPS 5.5 (it recomputes its
  /// save/restore memory estimate on every call: 35–45 % of a solve's CPU
  /// time under perf) and IPOPT's per-task timers (getrusage, 10–20 %);
  /// evaluating our goals is < 1 %. The adaptive oracle adds trial solves
  /// every iteration, so monotone is faster: on a 7-DOF pose as hard
  /// constraints 88 solves/s against 63 (CPU 11.4 vs 15.9 ms a solve, same
  /// success rate; benchmarks/solvers_benchmark.cc, BM_Ipopt7Dof). But it is
  /// less robust: from random starts it ran out of iterations on a position
  /// constraint the adaptive oracle solves (tests/solvers/nlp_solvers_test.cc),
  /// so it is a choice, not the default.
  BarrierUpdate barrier_update = BarrierUpdate::kAdaptive;

  bool IsValid(std::string* why) const;
};

/// Solves `problem` from q0 with IPOPT. Never throws: see Result::status.
/// Thread-safe, but IPOPT solves in one process run one at a time (Debian's
/// IPOPT uses the sequential MUMPS, which is not thread-safe), so on several
/// threads an IPOPT solve's wall time includes waiting for another's.
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const IpoptOptions& options);

/// Solver interface around Solve(problem, q0, IpoptOptions). Name "ipopt".
class IpoptSolver final : public Solver {
 public:
  explicit IpoptSolver(IpoptOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "ipopt"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const IpoptOptions& options() const { return options_; }

 private:
  IpoptOptions options_;
};

std::unique_ptr<Solver> MakeSolver(const IpoptOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_CONSTRAINED_IPOPT_SOLVER_H_
