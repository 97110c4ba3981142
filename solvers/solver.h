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
/// house style); invalid input (a problem with no coordinates, a NaN in q0,
/// a q0 of the wrong size, invalid options, bounds with lower > upper) is
/// reported as kInvalidInput with a
/// message naming what to fix, and the returned pose is q0 (or empty when q0
/// itself is unusable) — never a NaN pose.
///
/// A status claims no more than the solver knows. A numerical solver that
/// stops short of the goals knows something about the point it stopped at,
/// not about the goal: it reports kLocalMinimum (or kLimitsInfeasible when
/// the joint limits are what stops its descent there). The goal is called
/// out of reach (kUnreachable) only with evidence, and the message gives it:
/// an analytic solver's closed form (no exact solution exists), or the
/// reach certificate (constraints/reach_certificate.h: a position target
/// farther from its chain's fixed base than the chain reaches). One piece of
/// bookkeeping applies the rule for every solver
/// (internal::SolveScope::Finish, docs/concepts.md).

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
  /// Stopped at a point that is not a solution: stationary (a local minimum
  /// of the potential, or of the constraint violation), stalled, or out of
  /// progress, with goal errors above tolerance and no bound blocking the
  /// descent. A fact about that point, not about the goal: another start may
  /// reach it. The returned pose is the best effort (lowest potential found).
  kLocalMinimum,
  /// The goal is out of reach, and the message gives the evidence: an
  /// analytic solver's closed form (no exact solution), or the reach
  /// certificate (constraints/reach_certificate.h: a position target farther
  /// from its chain's fixed base than the chain reaches). Never from a
  /// stationary point alone. The returned pose is the best effort.
  kUnreachable,
  /// Stopped at a point that is not a solution while joint limits are active
  /// and block the descent (the projected gradient vanishes, the full one
  /// does not): the limits stop the solver there. Like kLocalMinimum, a fact
  /// about that point: whether another pose within the limits, or any pose
  /// without them, meets the goal is not known. An analytic solver that
  /// reports it has shown more (e.g. every exact solution lies outside the
  /// limits) and says so in the message. Best effort returned.
  kLimitsInfeasible,
  /// The input was unusable (see the message); nothing was solved.
  kInvalidInput,
  /// A numerical failure inside the solver (e.g. a line search that failed
  /// without progress), or a residual that overflows double precision at
  /// the returned pose (½‖R‖² not finite: a target beyond ~1e154 length
  /// units; every solver, internal::SolveScope::Finish rule 6); best effort
  /// returned (finite), message says what happened.
  kNumericalFailure,
  /// Solve() has not been called.
  kNotSolved,
  /// The solve ended at a pose outside the joint limits while
  /// SolveOptions::respect_limits is set: the method does not enforce limits
  /// (the Jacobian pseudo-inverse, transpose and their papers' variants), so
  /// the pose it found cannot be used as an answer even where every goal is
  /// within tolerance. The message names the first joint outside its limits
  /// and whether the goals were met; the start pose is not substituted.
  /// (Listed last so that the values of the older statuses do not change.)
  kOutsideLimits,
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
  /// Condition number of the linear system the step solved, for methods that
  /// solve one (e.g. DLS: (σ_max² + λ²)/(σ_min² + λ²) of JJᵀ + λ²I, NLP
  /// paper Lemma 7.1); 0 when not applicable.
  double condition_number = 0.0;
  /// Damping λ used by the step (DLS family); 0 when not applicable.
  double damping = 0.0;
};

/// Settings every solver understands. Each solver's Options holds one as
/// `common`.
struct SolveOptions {
  /// Iteration cap (solver iterations: quasi-Newton / LM steps, Jacobian
  /// updates, CCD sweeps). Must be ≥ 1.
  int max_iterations = 200;
  /// Wall-time cap per solve, seconds; ≤ 0 means none. No solver's default
  /// Options sets one: a budget makes the answer depend on the machine's
  /// speed and load, so only a caller who asks for it gets it (the
  /// benchmark protocol sets its stated 5 ms; docs/concepts.md). Checked between
  /// bounded units of work (iterations; inside long iterations, see each
  /// solver), so a solve overruns it by at most one such unit.
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
  /// Solves run to produce this result: 1, or the number of attempts made by
  /// a random-restart wrapper (restarts.h).
  int attempts = 1;
  int function_evaluations = 0;
  int jacobian_evaluations = 0;
  double initial_potential = 0.0;
  double final_potential = 0.0;
  /// Per-goal errors at q, in the order of Problem::goals().
  std::vector<GoalError> goal_errors;
  /// Errors of the hard constraints at q (Problem::ConstraintErrors:
  /// equalities, then inequality violations); empty without constraints.
  std::vector<GoalError> constraint_errors;
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
  /// Optional one-time set-up for problems like `problem` (same model and
  /// goal sites), so that it is not paid inside a timed Solve — e.g. an
  /// analytic solver reading the arm's geometry from the model. Solve() works
  /// without it; studies and the benchmark call it before the clock starts.
  /// Never throws for a problem the solver cannot take (Solve says why).
  virtual void Prepare(const Problem& problem) const { (void)problem; }
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_SOLVER_H_
