#ifndef IKLAB_SOLVERS_INTERNAL_SOLVE_SCOPE_H_
#define IKLAB_SOLVERS_INTERNAL_SOLVE_SCOPE_H_

/// @file
/// The bookkeeping every solver implementation shares (validation, timing,
/// status reconciliation) and the machine's memory size. Not installed: only
/// solver sources and tests include it.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab::internal {

/// Physical memory of the machine in bytes (0 if unknown), for checking
/// memory estimates before large allocations. Read once per process.
double PhysicalMemoryBytes();

/// Shared bookkeeping for solver implementations: validates the inputs,
/// times the solve, fills goal errors and the final status.
///
/// Status reconciliation (Finish), the same for every solver. A status
/// claims no more than the evidence (solver.h's file comment): a stationary
/// point is a fact about the point, not about the goal.
///  1. A pose whose goal errors are all within tolerance (and, with
///     respect_limits, inside the bounds) is kConverged, whatever the solver
///     reported.
///  2. A kConverged claim with errors above tolerance means the solver met
///     its own stationarity test: it becomes "stationary" (rule 3).
///  3. A stationary stop (a solver reports kLocalMinimum) is decided by the
///     evidence at hand, in this order:
///     a. kUnreachable when the reach certificate proves a goal out of reach
///        within the box (OutOfReachCertificate,
///        constraints/reach_certificate.h); the message quotes it.
///     b. kLimitsInfeasible when bounds block the descent at the final q.
///        "Bounds block" is decided from the gradient g = ∇P = (∂R/∂q)ᵀ R
///        of the potential: coordinate i is blocked when it sits on a bound
///        and −g_i points out of the box (q_i at lower with g_i > 0, or at
///        upper with g_i < 0). Bounds block the descent when the blocked
///        part g_B carries most of the gradient, ‖g_B‖² ≥ ½‖g‖², and is not
///        numerical noise, ‖g_B‖ ≥ kBlockedGradientRatio · ‖∂R/∂q‖_F ‖R‖
///        (the largest gradient the residual could produce is
///        ‖∂R/∂q‖₂ ‖R‖ ≤ ‖∂R/∂q‖_F ‖R‖). So the projected gradient is ~0
///        while the full gradient is not. This says the limits stop the
///        descent here, not that the goal is reachable without them.
///     c. Otherwise kLocalMinimum.
///  4. kUnreachable and kLimitsInfeasible reported by a solver carry its own
///     evidence (an analytic solver's closed form, named in its message) and
///     are kept; so are kMaxIterations, kTimeBudget and kNumericalFailure
///     (unless rule 1 applies).
///  With hard constraints (NLP solvers), rule 1 also needs every constraint
///  error within tolerance, rule 3a also reads the equality constraints and
///  rule 3b uses the gradient g of the penalty form
///  (Problem::WithConstraintsAsGoals, unit weights as given) less what the
///  active constraints balance: at a stationary point of the NLP,
///  g = −Nᵀλ − Σ μ_i e_i (the KKT conditions, Nocedal & Wright, "Numerical
///  Optimization", Theorem 12.1, Eq. 12.34; N the Jacobian of the
///  equalities and of the inequalities within position_tolerance of their
///  bound, μ_i the multipliers of the bounds), so the full gradient is not
///  ~0 there and says nothing by itself. The test reads instead
///  ‖g_F‖² = min_λ ‖g − Nᵀλ‖² (the part no constraint balances) and
///  ‖g_U‖² = the same with the blocking bounds' columns e_i added (each
///  μ_i of a first fit pushing out of the box): the bounds block when
///  ‖g_B‖² = ‖g_F‖² − ‖g_U‖² ≥ ½‖g_F‖² and ‖g_B‖ is not noise. Without
///  constraints this is the test above (g_F = g, g_B its blocked
///  coordinates). Without it, a retargeting frame with a planted foot held
///  by equalities read "local minimum" and the same frame without them
///  "limits infeasible", with the same joint on its limit.
///  5. A non-finite or wrongly sized pose is replaced by the start pose with
///     kNumericalFailure (never a NaN pose).
///  6. A pose whose potential ½‖R‖² is not finite (the residual overflows
///     double precision: a target beyond ~1e154 length units) is
///     kNumericalFailure, whatever the solver reported, with a message that
///     says so; the pose returned is the solver's (finite, within bounds).
///  7. With respect_limits, a pose outside the bounds is kOutsideLimits
///     (goals met or not), unless the solver reported kNumericalFailure,
///     which is kept; the message names the first coordinate outside and
///     says whether the goals were met.
class SolveScope {
 public:
  /// Relative size of the blocked gradient below which it counts as noise
  /// (rule 3b above).
  static constexpr double kBlockedGradientRatio = 1e-4;

  /// Validates q0 (size, finite), options and the problem's bounds. On
  /// failure, `result()` is already final with kInvalidInput and ok() false.
  /// A problem with no goals and no constraints is final at once too:
  /// kConverged at start(), ok() false, so no solver runs on it.
  /// On success creates the workspace. Result::initial_potential is set by
  /// the solver (SetInitialPotential, when its first evaluation gives it
  /// anyway) or else by Finish, so no evaluation is spent on it here.
  /// A problem with hard constraints (Problem::has_constraints()) is refused
  /// with kInvalidInput unless `honours_constraints` (the constrained-NLP
  /// solvers): a solver never silently ignores a constraint.
  SolveScope(const Problem& problem, const Eigen::VectorXd& q0,
             const SolveOptions& options, std::string solver_name,
             bool honours_constraints = false);

  bool ok() const { return ok_; }
  Result& result() { return result_; }
  const Problem& problem() const { return problem_; }
  const SolveOptions& options() const { return options_; }
  /// The start pose: q0 projected onto the bounds when respect_limits (a q0
  /// outside the box starts from its closest feasible point), else q0.
  /// @pre ok().
  const Eigen::VectorXd& start() const { return start_; }
  /// The box the solver must respect: the problem's bounds, or ±∞ when
  /// respect_limits is false. @pre ok().
  const Eigen::VectorXd& lower() const { return *lower_; }
  const Eigen::VectorXd& upper() const { return *upper_; }
  /// Evaluation workspace for this solve (one per solve, hence per thread),
  /// made at the first call: a solver with its own evaluation (bounded LM's
  /// fused kernel) that hands Finish its final evaluation never pays for it.
  /// @pre ok().
  ProblemWorkspace* workspace() {
    if (workspace_ == nullptr) {
      workspace_ = std::make_unique<ProblemWorkspace>(problem_);
    }
    return workspace_.get();
  }
  /// Records P(start()) = ½‖R(start())‖², the potential at the start pose,
  /// as Result::initial_potential (Finish then does not evaluate it).
  void SetInitialPotential(double potential);
  /// Records what the solver's own last evaluation gave at `*q`: the
  /// potential ½‖R(q)‖² and the goal errors (in the order of
  /// Problem::goals()), so that Finish at a pose equal to `*q` does not
  /// evaluate them again. `q` must outlive Finish; Finish at any other pose
  /// evaluates as usual. Ignored for problems with hard constraints.
  void SetFinalEvaluation(const Eigen::VectorXd* q, double potential,
                          const std::vector<GoalError>& goal_errors);
  /// Seconds since construction.
  double Elapsed() const;
  /// True once the time budget (if any) is spent.
  bool OutOfTime() const;
  /// True if every goal error of `errors` is within the tolerances.
  bool WithinTolerance(const std::vector<GoalError>& errors) const;
  /// Runs FK at q and tests the goal errors (and the hard constraints'
  /// errors, if any); allocation-free (reuses buffers), for per-iteration
  /// stopping tests. Overwrites workspace data.
  bool WithinToleranceAt(const Eigen::VectorXd& q);
  /// Appends an IterationRecord for (iteration, q, potential) to the trace if
  /// options().record_trace (allocates; a no-op otherwise). Runs FK at q.
  void Trace(int iteration, const Eigen::VectorXd& q, double potential);
  /// ‖P(q − g) − q‖∞ / (‖∂R/∂q‖_F ‖R‖) at q: the projected gradient of the
  /// potential relative to the largest gradient the residual could produce
  /// (0 when R = 0). Near 0 at a stationary point. Allocates.
  double RelativeProjectedGradient(const Eigen::VectorXd& q);

  /// Fills q, goal errors, final potential and wall time for pose `q`, and sets
  /// `status`/`message` — except that kConverged is downgraded when the goal
  /// errors are not actually within tolerance (and upgraded to kConverged
  /// when they are), so every solver reports convergence the same way (see
  /// the class comment for the full rule). Call it once, last: it moves the
  /// result out of the scope. One residual evaluation at q (and one at the
  /// start pose if SetInitialPotential was not called); the Jacobian only
  /// for the stationary-point classification (rule 3b).
  Result Finish(const Eigen::VectorXd& q, SolveStatus status,
                std::string message);

  /// The result for input the solver itself refuses after the scope's own
  /// checks passed (its options, a goal or model it is not defined for):
  /// kInvalidInput with `message` and the wall time so far. Like Finish, call
  /// it once, last.
  Result Reject(std::string message);

 private:
  bool Fail(std::string message);
  /// Rule 3 at result_.q, whose goal and constraint errors are set: sets
  /// `*status` to kUnreachable, kLimitsInfeasible or kLocalMinimum and
  /// prefixes `*message` with the evidence.
  void ClassifyStationary(SolveStatus* status, std::string* message);
  /// Rule 3b's N: the gradients (columns, nq × rows) of the hard
  /// constraints active at result_.q: every equality row, and the
  /// inequality rows within position_tolerance of their bound (c ≥ −tol).
  Eigen::MatrixXd ActiveConstraintGradients();
  /// Rule 3b's split of g at result_.q: *free_squared = min_λ ‖g − Nᵀλ‖²
  /// (what the active constraints `active` = N leave), *unbalanced_squared
  /// = min_{λ,μ} ‖g − Nᵀλ − Σ_{i∈B} μ_i e_i‖² over the blocking bounds B.
  void BlockedGradient(const Eigen::VectorXd& gradient,
                       const Eigen::MatrixXd& active, double* free_squared,
                       double* unbalanced_squared) const;
  /// Rule 6's message for result_.q: the first coordinate outside the
  /// bounds, whether the goals were met, and the solver's own `stop` message.
  std::string OutsideLimitsMessage(bool goals_met,
                                   const std::string& stop) const;

  const Problem& problem_;
  SolveOptions options_;
  Result result_;
  bool ok_ = true;
  std::chrono::steady_clock::time_point start_time_;
  Eigen::VectorXd start_;
  // The box: the problem's bounds (not copied), or unbounded_lower_/upper_
  // (±∞) when respect_limits is false.
  const Eigen::VectorXd* lower_ = nullptr;
  const Eigen::VectorXd* upper_ = nullptr;
  Eigen::VectorXd unbounded_lower_;
  Eigen::VectorXd unbounded_upper_;
  bool initial_potential_set_ = false;
  // SetFinalEvaluation: the pose it holds for (null if none) and its values.
  const Eigen::VectorXd* known_q_ = nullptr;
  double known_potential_ = 0.0;
  std::unique_ptr<ProblemWorkspace> workspace_;
  std::vector<GoalError> errors_;
  std::vector<GoalError> constraint_errors_;
};

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_INTERNAL_SOLVE_SCOPE_H_
