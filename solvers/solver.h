#ifndef IKLAB_SOLVERS_SOLVER_H_
#define IKLAB_SOLVERS_SOLVER_H_

/// @file
/// The one call shape every iklab solver shares (optimization, differential
/// and analytic families), so experiments and benchmarks compare them directly:
///
///     Result result = Solve(problem, q0, options);      // options picks the solver
///     std::unique_ptr<Solver> s = MakeSolver(options);  // or polymorphically
///     Result result = s->Solve(problem, q0);
///
/// Each solver has its own `Options` struct (plain data, in-class defaults, a
/// comment per field, `IsValid(std::string* why)`), holding a `SolveOptions`
/// member `common` with the settings all solvers understand. A Result carries
/// the pose, a status with a message, counts, costs, per-goal errors in natural
/// units, wall time and an optional per-iteration trace.
///
/// Statuses, not exceptions, report numerical outcomes (policy 4 of the
/// house style); invalid input (a NaN in q0, a q0 of the wrong size, invalid
/// options, bounds with lower > upper) is reported as kInvalidInput with a
/// message naming what to fix, and the returned pose is q0 (or empty when q0
/// itself is unusable) — never a NaN pose.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/problem.h"

namespace iklab {

/// How a solve ended.
enum class SolveStatus {
  /// Every goal is within tolerance (SolveOptions::position_tolerance,
  /// angle_tolerance) and the pose is within bounds.
  kConverged,
  /// Stopped at SolveOptions::max_iterations without converging.
  kMaxIterations,
  /// Stopped when SolveOptions::time_budget_seconds ran out.
  kTimeBudget,
  /// The solver reached a stationary point (no further progress) with goal
  /// errors above tolerance and no bound active that explains it: the goal
  /// is out of reach. The returned pose is the best effort (closest found).
  kUnreachable,
  /// Stationary with errors above tolerance while bounds are active and
  /// block the descent direction: the goal would be reachable without joint
  /// limits but not within them. Best effort returned.
  kLimitsInfeasible,
  /// The input was unusable (see the message); nothing was solved.
  kInvalidInput,
  /// A numerical failure inside the solver (e.g. a line search that failed
  /// without progress); best effort returned, message says what happened.
  kNumericalFailure,
  /// Solve() has not been called.
  kNotSolved,
};

/// Returns "converged", "max iterations", ... for messages and reports.
const char* SolveStatusName(SolveStatus status);

/// One entry of the optional per-iteration trace (for convergence plots).
struct IterationRecord {
  int iteration = 0;
  /// Potential Σ ½ w_i ‖r_i‖² at q.
  double potential = 0.0;
  /// Largest position error over the goals (length units) and largest angle
  /// error (radians) at q.
  double max_position_error = 0.0;
  double max_angle_error = 0.0;
  Eigen::VectorXd q;
};

/// Settings every solver understands. Each solver's Options holds one as
/// `common`.
struct SolveOptions {
  /// Iteration cap (solver iterations: quasi-Newton / LM steps, Jacobian
  /// updates, CCD sweeps). Must be ≥ 1.
  int max_iterations = 200;
  /// Wall-time cap per solve, seconds; ≤ 0 means none. Checked once per
  /// iteration, so a solve can overrun by one iteration.
  double time_budget_seconds = 0.0;
  /// Convergence: every goal's position error ≤ position_tolerance (length
  /// units) and angle error ≤ angle_tolerance (radians; aim errors use the
  /// same number as 1 − cos). Defaults suit metre/radian robot problems.
  double position_tolerance = 1e-6;
  double angle_tolerance = 1e-6;
  /// Keep every iterate within the problem's bounds (joint limits). When false
  /// the bounds are ignored (for comparisons "limits off").
  bool respect_limits = true;
  /// Record an IterationRecord per iteration in Result::trace (allocates;
  /// off for benchmarks).
  bool record_trace = false;

  /// True if the fields are in range; otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// What a solve returns.
struct Result {
  SolveStatus status = SolveStatus::kNotSolved;
  std::string message = "Solve was not called.";
  /// Name of the solver that produced it, e.g. "lbfgsb", "ceres-lm", "dls".
  std::string solver;
  /// The final (best) pose.
  Eigen::VectorXd q;
  int iterations = 0;
  int function_evaluations = 0;
  int jacobian_evaluations = 0;
  double initial_potential = 0.0;
  double final_potential = 0.0;
  /// Per-goal errors at q, in the order of Problem::goals().
  std::vector<GoalError> goal_errors;
  double wall_time_seconds = 0.0;
  std::vector<IterationRecord> trace;

  bool converged() const { return status == SolveStatus::kConverged; }
};

/// Abstract solver: holds its options by value, solves a Problem from q0.
/// Solve() is const and thread-safe: per-solve state lives in a workspace
/// created inside (or passed to) the call.
class Solver {
 public:
  virtual ~Solver() = default;
  /// Short name used in results and reports.
  virtual std::string name() const = 0;
  /// Solves `problem` from `q0`. Never throws for bad q0 or unreachable goals:
  /// see Result::status.
  virtual Result Solve(const Problem& problem,
                       const Eigen::VectorXd& q0) const = 0;
};

namespace internal {

/// Shared bookkeeping for solver implementations: validates the inputs,
/// times the solve, fills goal errors and the final status.
class SolveScope {
 public:
  /// Validates q0 (size, finite), options and the problem's bounds. On
  /// failure, `result()` is already final with kInvalidInput and ok() false.
  SolveScope(const Problem& problem, const Eigen::VectorXd& q0,
             const SolveOptions& options, std::string solver_name);

  bool ok() const { return ok_; }
  Result& result() { return result_; }
  /// Seconds since construction.
  double Elapsed() const;
  /// True once the time budget (if any) is spent.
  bool OutOfTime() const;
  /// True if every goal error of `errors` is within the tolerances.
  bool WithinTolerance(const std::vector<GoalError>& errors) const;

  /// Fills q, goal errors, final potential and wall time for pose `q`, and sets
  /// `status`/`message` — except that kConverged is downgraded when the goal
  /// errors are not actually within tolerance (and upgraded to kConverged
  /// when they are), so every solver reports convergence the same way.
  Result Finish(const Eigen::VectorXd& q, SolveStatus status,
                std::string message);

 private:
  const Problem& problem_;
  SolveOptions options_;
  Result result_;
  bool ok_ = true;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace internal

}  // namespace iklab

#endif  // IKLAB_SOLVERS_SOLVER_H_
