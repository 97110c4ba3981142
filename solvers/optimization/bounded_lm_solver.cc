#include "solvers/optimization/bounded_lm_solver.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

#include "framework/internal/check.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/internal/warm_up.h"
#include "solvers/optimization/internal/restart_pool.h"
#include "solvers/optimization/internal/site_goal_kernel.h"
#include "solvers/optimization/internal/small_cholesky.h"

namespace iklab {

using internal::Invalid;
using internal::StrCat;

bool BoundedLmOptions::IsValid(std::string* why) const {
  constexpr const char* kOwner = "BoundedLmOptions::";
  if (!common.IsValid(why)) return false;
  if (!(initial_damping > 0.0) || !std::isfinite(initial_damping)) {
    return Invalid(why, kOwner, "initial_damping must be finite and > 0, got ",
                   initial_damping);
  }
  if (!(damping_decrease > 1.0) || !std::isfinite(damping_decrease)) {
    return Invalid(why, kOwner, "damping_decrease must be finite and > 1, got ",
                   damping_decrease);
  }
  if (!(damping_increase > 1.0) || !std::isfinite(damping_increase)) {
    return Invalid(why, kOwner, "damping_increase must be finite and > 1, got ",
                   damping_increase);
  }
  if (!(min_damping >= 0.0) || !std::isfinite(min_damping)) {
    return Invalid(why, kOwner, "min_damping must be finite and >= 0, got ",
                   min_damping);
  }
  if (!(max_damping > min_damping)) {
    return Invalid(why, kOwner, "max_damping must exceed min_damping, got ",
                   max_damping);
  }
  if (stall_iterations < 1) {
    return Invalid(why, kOwner, "stall_iterations must be >= 1, got ",
                   stall_iterations);
  }
  if (!(stall_ratio > 0.0 && stall_ratio <= 1.0)) {
    return Invalid(why, kOwner, "stall_ratio must be in (0, 1], got ",
                   stall_ratio);
  }
  if (!(first_step_ratio > 0.0 && first_step_ratio <= 1.0)) {
    return Invalid(why, kOwner, "first_step_ratio must be in (0, 1], got ",
                   first_step_ratio);
  }
  if (first_step_attempts < 0) {
    return Invalid(why, kOwner, "first_step_attempts must be >= 0, got ",
                   first_step_attempts);
  }
  if (!(bound_stall_ratio >= 0.0 && bound_stall_ratio <= 1.0)) {
    return Invalid(why, kOwner, "bound_stall_ratio must be in [0, 1], got ",
                   bound_stall_ratio);
  }
  if (max_attempts < 1) {
    return Invalid(why, kOwner, "max_attempts must be >= 1, got ",
                   max_attempts);
  }
  if (restart_candidates < 1) {
    return Invalid(why, kOwner, "restart_candidates must be >= 1, got ",
                   restart_candidates);
  }
  if (restart_pool < 0 || restart_pool > kMaxRestartPool) {
    return Invalid(why, kOwner, "restart_pool must be in [0, ", kMaxRestartPool,
                   "], got ", restart_pool);
  }
  return true;
}

namespace {

// Everything one solve needs, sized once. M × N are the stacked residual and
// coordinate counts, fixed at compile time for common arm problems (Eigen then
// unrolls JᵀJ and the Cholesky factorization) or Eigen::Dynamic. Poses stay
// VectorXd: Problem takes them as such.
template <int M, int N>
struct Workspace {
  using ResidualVector = Eigen::Matrix<double, M, 1>;
  using JacobianMatrix = Eigen::Matrix<double, M, N>;
  using SquareMatrix = Eigen::Matrix<double, N, N>;
  using CoordinateVector = Eigen::Matrix<double, N, 1>;
  // The fused kernel for these sizes (a placeholder on the dynamic-size
  // path, where it is never used) and its Gauss–Newton factor
  // (SiteGoalKernel::EvaluateFactored): J̃ transposed, r̃, and the system
  // J̃ J̃ᵀ.
  static constexpr bool kFixed = N != Eigen::Dynamic;
  using Kernel = internal::SiteGoalKernel<kFixed ? M : 3, kFixed ? N : 6>;
  static constexpr int kFactorRows = Kernel::kFactorRows;
  using FactorTranspose = typename Kernel::FactorTranspose;
  using FactorResidual = typename Kernel::FactorResidual;
  using FactorSystem = Eigen::Matrix<double, kFactorRows, kFactorRows>;

  // `dual`: solve the m × m system of the push-through form instead of the
  // n × n one (Dynamic sizes only); the n × n matrices are then left empty.
  // Every buffer starts at zero: a value read before the solve writes it
  // (e.g. the best pose of a solve whose every cost overflowed) must be a
  // defined one, never heap contents (~20 ns on a 7-DOF arm).
  Workspace(int m, int n, bool dual)
      : residual_buffers{ResidualVector::Zero(m), ResidualVector::Zero(m)},
        jacobian_buffers{JacobianMatrix::Zero(m, n),
                         JacobianMatrix::Zero(m, n)},
        factor_buffers{FactorTranspose::Zero(), FactorTranspose::Zero()},
        factor_residual_buffers{FactorResidual::Zero(),
                                FactorResidual::Zero()},
        free_factor(FactorTranspose::Zero()),
        factor_normal(FactorSystem::Zero()),
        free_factor_normal(FactorSystem::Zero()),
        factor_step(FactorResidual::Zero()),
        normal(SquareMatrix::Zero(dual ? 0 : n, dual ? 0 : n)),
        system(SquareMatrix::Zero(dual ? 0 : n, dual ? 0 : n)),
        gradient(CoordinateVector::Zero(n)),
        step(CoordinateVector::Zero(n)),
        q(Eigen::VectorXd::Zero(n)),
        trial_q(Eigen::VectorXd::Zero(n)),
        best_q(Eigen::VectorXd::Zero(n)),
        held(n, 0),
        llt(dual ? 0 : n),
        free_jacobian(Eigen::MatrixXd::Zero(dual ? m : 0, dual ? n : 0)),
        small_system(Eigen::MatrixXd::Zero(dual ? m : 0, dual ? m : 0)),
        small_rhs(Eigen::VectorXd::Zero(dual ? m : 0)),
        small_llt(dual ? m : 0) {}

  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // The current point's residual and Jacobian and the trial point's: an
  // accepted step swaps the pointers (a 9 × 7 swap of values cost ~130
  // instructions per iteration).
  ResidualVector residual_buffers[2];
  JacobianMatrix jacobian_buffers[2];
  ResidualVector* residual = &residual_buffers[0];
  ResidualVector* trial_residual = &residual_buffers[1];
  JacobianMatrix* jacobian = &jacobian_buffers[0];
  JacobianMatrix* trial_jacobian = &jacobian_buffers[1];
  // The same for the factored form (see
  // BoundedLmMinimizer::SolveFactoredStep).
  FactorTranspose factor_buffers[2];
  FactorResidual factor_residual_buffers[2];
  FactorTranspose* factor = &factor_buffers[0];
  FactorTranspose* trial_factor = &factor_buffers[1];
  FactorResidual* factor_residual = &factor_residual_buffers[0];
  FactorResidual* trial_factor_residual = &factor_residual_buffers[1];
  FactorTranspose free_factor;  // J̃ᵀ with the held coordinates' rows zeroed
  FactorSystem factor_normal;   // J̃ J̃ᵀ (its lower triangle)
  FactorSystem free_factor_normal;  // J̃_f J̃_fᵀ, held coordinates left out
  FactorResidual factor_step;       // (J̃_f J̃_fᵀ + μI)⁻¹ r̃
  SquareMatrix normal;  // JᵀJ (its lower triangle only)
  SquareMatrix system;  // JᵀJ + μI on the free coordinates, I elsewhere
  CoordinateVector gradient, step;
  Eigen::VectorXd q, trial_q, best_q;
  std::vector<char> held;  // coordinates held on a bound this iteration
  // Dynamic sizes only; fixed sizes use internal::CholeskySolveShifted.
  Eigen::LLT<SquareMatrix> llt;
  // The dual (push-through) form for long chains: J_f (held columns zeroed),
  // J_f J_fᵀ + μI and its right-hand side.
  Eigen::MatrixXd free_jacobian, small_system;
  Eigen::VectorXd small_rhs;
  Eigen::LLT<Eigen::MatrixXd> small_llt;
};

// The lower triangle of Jᵀ J for a small fixed-size J, as dot products of
// its contiguous columns (the same reduction as Jᵀ.lazyProduct(J), bit for
// bit): for a 9 × 7 J, 28 dot products instead of 49 and no mirror, as the
// L D Lᵀ solve reads only the lower triangle, and no trip through Eigen's
// blocked GEMM, whose packing would dominate. Unrolled: the triangle's loop
// bookkeeping cost ~100 instructions per 7-DOF iteration. Both JᵀJ (the
// primal form) and the factored form's J̃ J̃ᵀ, from J̃ᵀ (see
// BoundedLmMinimizer::SolveFactoredStep).
template <typename Matrix, typename System>
void LowerGram(const Matrix& J, System* S) {
  constexpr int kColumns = Matrix::ColsAtCompileTime;
#pragma GCC unroll 8
  for (int c = 0; c < kColumns; ++c) {
#pragma GCC unroll 8
    for (int r = c; r < kColumns; ++r) (*S)(r, c) = J.col(r).dot(J.col(c));
  }
}

// Chains at least this long with fewer residuals than coordinates take the
// dual form: an iteration then costs O(m² n) instead of O(n³) per
// active-set pass (a 10,000-joint chain: ~10⁶ instead of ~10¹² flops).
constexpr int kDualMinCoordinates = 32;

bool UseDualForm(int m, int n) { return n >= kDualMinCoordinates && m < n; }

// Gain-ratio thresholds of the λ update: the classical trust-region values
// (Madsen, Nielsen & Tingleff 2004, Sec. 2.4).
constexpr double kPoorGain = 0.25;
constexpr double kGoodGain = 0.75;
// Fixed-size iterations between two reads of the clock (see
// BoundedLmMinimizer::StartIteration).
constexpr int kFixedSizeClockStride = 16;
// The bound stall test applies from this many iterations into an attempt and
// compares the cost with its value two iterations earlier.
constexpr int kBoundStallIterations = 3;

// Bytes of the workspace's matrices, for the check before allocating them.
double WorkspaceBytes(int m, int n) {
  const double md = m, nd = n;
  return sizeof(double) * (UseDualForm(m, n) ? 3.0 * md * nd + 2.0 * md * md
                                             : 2.0 * md * nd + 3.0 * nd * nd);
}

// Starting point of attempt k, if it is not a random one: q0 (projected) for
// k = 0, the middle of the box (of the coordinates' sampling intervals) for
// k = 1 — unless q0 already is the middle (a mid-limits seed), whose exact
// repeat cost the mid-limits p99 ~10 %. Returns false when attempt k starts
// from a random point instead (k ≥ 2, or k = 1 at a mid-limits seed).
bool FixedStartingPoint(int attempt, const Eigen::VectorXd& start,
                        const Eigen::VectorXd& lower,
                        const Eigen::VectorXd& upper, Eigen::VectorXd* q) {
  if (attempt == 0) {
    *q = start;
    return true;
  }
  if (attempt > 1) return false;
  for (Eigen::Index i = 0; i < q->size(); ++i) {
    const auto [lo, hi] = internal::SamplingInterval(lower[i], upper[i]);
    (*q)[i] = 0.5 * (lo + hi);
  }
  return *q != start;
}

// "converged after <iterations> iterations in <attempts> attempt(s)",
// written into one buffer: the string is then allocated once.
std::string ConvergedMessage(int iterations, int attempts) {
  char buffer[96];
  char* end = buffer;
  const auto append = [&](const char* text) {
    for (; *text != '\0'; ++text) *end++ = *text;
  };
  const auto append_int = [&](int value) {
    end = std::to_chars(end, buffer + sizeof(buffer), value).ptr;
  };
  append("converged after ");
  append_int(iterations);
  append(" iterations in ");
  append_int(attempts);
  append(" attempt(s)");
  return std::string(buffer, end);
}

// The message of a finished solve.
std::string TerminationMessage(SolveStatus status, int iterations,
                               int attempts, const BoundedLmOptions& options) {
  switch (status) {
    case SolveStatus::kConverged:
      // The common outcome: no std::ostringstream (StrCat), whose set-up
      // alone costs ~4,000 instructions, and one allocation.
      return ConvergedMessage(iterations, attempts);
    case SolveStatus::kMaxIterations:
      return StrCat("stopped at max_iterations = ",
                    options.common.max_iterations, " over ", attempts,
                    " attempt(s)");
    case SolveStatus::kTimeBudget:
      return StrCat("time budget of ", options.common.time_budget_seconds,
                    " s spent over ", attempts, " attempt(s)");
    case SolveStatus::kNumericalFailure:
      return StrCat("the cost 1/2 |R|^2 is not finite at the start of attempt ",
                    attempts, " (the residual overflows double precision); "
                    "no step was taken from it");
    default:
      return StrCat("no attempt converged in ", options.max_attempts,
                    " attempts; best effort returned");
  }
}

// How the active-set loop of an iteration ended (see ComputeStep).
enum class StepOutcome {
  kComputed,   // w.step holds the step on the free coordinates
  kFailed,     // the system did not factor, or the step is not finite
  kOutOfTime,  // the time budget ran out between two active-set passes
};

// The state of one attempt: its cost, its damping and what the stall tests
// look back on.
struct AttemptState {
  // Starts an attempt at cost ½‖R‖² = `start_cost`.
  AttemptState(double start_cost, const BoundedLmOptions& options)
      : cost(start_cost),
        lambda(options.initial_damping),
        mu(Damping(options)),
        initial_norm(std::sqrt(2.0 * start_cost)),
        stall_reference(initial_norm),
        cost_one_back(cost),
        cost_two_back(cost) {}

  // μ = λ‖R‖ (Fan & Yuan 2005 with δ = 1; see the header): the damping
  // fades with the residual, so the last steps are Gauss–Newton steps
  // (quadratic convergence also on the self-motion manifold of a redundant
  // arm, where JᵀJ is singular at every solution), and λ follows the gain
  // ratio ρ.
  double Damping(const BoundedLmOptions& options) const {
    return std::max(lambda * std::sqrt(2.0 * cost), options.min_damping);
  }

  double cost;    // ½‖R‖² at w.q
  double lambda;  // λ of μ = λ‖R‖
  double mu;      // μ, the damping of the next step
  double initial_norm;     // ‖R‖ at the attempt's start
  double stall_reference;  // ‖R‖ the stall test compares with
  int since_reference = 0;  // iterations since stall_reference was set
  // The cost before the last two iterations, for the bound stall test.
  double cost_one_back, cost_two_back;
  int iterations = 0;  // steps computed in this attempt
  // Whether w.gradient and w.normal are g = JᵀR and JᵀJ at w.q (in the
  // factored form: w.factor_normal is J̃ J̃ᵀ).
  bool normal_current = false;
};

// One solve: the per-solve state and the steps of the method, read top to
// bottom like Ceres' trust-region minimizer
// (internal/ceres/trust_region_minimizer.cc). Solve runs attempts from q0,
// the middle of the box and restart points (RestartPoint) and polishes the
// best pose when every attempt gave up. An attempt (RunAttempt) iterates:
// the normal equations at w.q (UpdateNormalEquations), a step on the active
// set (ComputeStep), the projected trial point and its predicted reduction
// (TakeProjectedStep, PredictedReduction), acceptance or rejection
// (AcceptStep, IncreaseDamping), and the stall tests (ShouldAbandon).
template <int M, int N>
class BoundedLmMinimizer {
 public:
  BoundedLmMinimizer(const BoundedLmOptions& options,
                     internal::SolveScope& scope)
      : options_(options),
        scope_(scope),
        problem_(scope.problem()),
        common_(scope.options()),
        n_(problem_.nq()),
        m_(problem_.num_residuals()),
        lower_(scope.lower()),
        upper_(scope.upper()),
        result_(scope.result()),
        w_(m_, n_, N == Eigen::Dynamic && UseDualForm(m_, n_)),
        dual_(w_.small_system.size() > 0),
        errors_(problem_.goals().size()),
        kernel_(kFixed && kernel_storage_.Init(problem_) ? &kernel_storage_
                                                          : nullptr),
        factored_form_(kFixed && kernel_ != nullptr && kFactorRows < N) {
    // The pose returned if no attempt ever evaluates to a finite cost.
    w_.best_q = scope_.start();
    FindPeriodicCoordinates();
  }

  BoundedLmMinimizer(const BoundedLmMinimizer&) = delete;
  BoundedLmMinimizer& operator=(const BoundedLmMinimizer&) = delete;

  // Attempts until one converges (or the iterations, the time or the
  // attempts run out), then the best pose, polished if every attempt gave
  // up, with the result's message.
  Result Solve() {
    SolveStatus status = SolveStatus::kLocalMinimum;
    int attempt = 0;
    while (attempt < options_.max_attempts &&
           status == SolveStatus::kLocalMinimum) {
      if (!FixedStartingPoint(attempt++, scope_.start(), lower_, upper_,
                              &w_.q)) {
        RestartPoint();
      }
      status = RunAttempt(/*may_stall=*/true,
                          /*first_step_test=*/attempt <=
                              options_.first_step_attempts);
    }
    if (status == SolveStatus::kLocalMinimum) {
      // Every attempt stalled: a local minimum, the limits, or a goal out of
      // reach (Finish decides on the evidence). Polish the best pose to
      // stationarity so the best effort is the closest point, not wherever
      // the last restart gave up.
      w_.q = w_.best_q;
      status = RunAttempt(/*may_stall=*/false, /*first_step_test=*/false);
    }
    if (status == SolveStatus::kConverged) {
      w_.best_q = w_.q;
      // The last evaluation and stopping test were at w.q: Finish takes their
      // potential and goal errors instead of evaluating the pose again.
      scope_.SetFinalEvaluation(&w_.best_q, 0.5 * w_.residual->squaredNorm(),
                                errors_);
    }
    result_.iterations = iterations_;
    result_.attempts = attempt;
    std::string message =
        TerminationMessage(status, iterations_, result_.attempts, options_);
    return scope_.Finish(w_.best_q, status, std::move(message));
  }

 private:
  using Work = Workspace<M, N>;
  // The fused kernel (solvers/optimization/internal/site_goal_kernel.h), a
  // placeholder type on the dynamic-size path.
  static constexpr bool kFixed = Work::kFixed;
  using Kernel = typename Work::Kernel;
  static constexpr int kFactorRows = Work::kFactorRows;
  // The iterates and bounds are VectorXd (Problem and SolveScope take them
  // so); for a fixed N their per-iteration arithmetic goes through
  // fixed-size views, which Eigen unrolls instead of running its dynamic-size
  // loops and tail handling (~250 instructions per 7-DOF iteration).
  using CoordinateMap = Eigen::Map<typename Work::CoordinateVector>;
  using ConstCoordinateMap = Eigen::Map<const typename Work::CoordinateVector>;

  CoordinateMap view(Eigen::VectorXd& v) const {
    return CoordinateMap(v.data(), n_);
  }
  ConstCoordinateMap const_view(const Eigen::VectorXd& v) const {
    return ConstCoordinateMap(v.data(), n_);
  }

  // Revolute coordinates whose range spans a full turn (the UR5's ±2π) and
  // whose angle the residual depends on only through FK — the kernel's
  // problems, a site goal and nothing else — are 2π-periodic: q_i and
  // q_i ∓ 2π are the same pose, residual and Jacobian. Such a coordinate on
  // a bound whose step points out of the box moves by ∓2π instead of being
  // held, so the limit does not block a descent that the joint can make by
  // turning the other way (on the UR5 from random seeds the first attempts
  // that failed went from 58 % to 21 %; docs/performance-log.md, "Bounded
  // LM: best-of-four restarts, full turns, and the stalls inside an
  // iteration").
  void FindPeriodicCoordinates() {
    if constexpr (kFixed) {
      const Model& model = problem_.model();
      for (int i = 0; kernel_ && i < n_; ++i) {
        periodic_[i] = model.kind(model.dof_step(i)) == StepKind::kRevolute &&
                       upper_[i] - lower_[i] >= 2.0 * M_PI;
      }
    }
  }

  // ½‖R(q)‖², with R and J (or the factor J̃, r̃) written to the trial
  // point's buffers if `trial`, else to the current point's. Accepted steps
  // swap the buffer pointers, so a Ref to a buffer is made fresh at each
  // evaluation.
  double Evaluate(const Eigen::VectorXd& q, bool trial) {
    ++result_.function_evaluations;
    ++result_.jacobian_evaluations;
    auto* const r = trial ? w_.trial_residual : w_.residual;
    if constexpr (kFixed) {
      if (factored_form_) {
        return kernel_->EvaluateFactored(
            q.data(), r, trial ? w_.trial_factor : w_.factor,
            trial ? w_.trial_factor_residual : w_.factor_residual);
      }
      if (kernel_) {
        return kernel_->Evaluate(q.data(), r,
                                 trial ? w_.trial_jacobian : w_.jacobian);
      }
    }
    Eigen::Ref<Eigen::MatrixXd> jacobian(trial ? *w_.trial_jacobian
                                               : *w_.jacobian);
    problem_.EvaluateResiduals(q, scope_.workspace(), *r, &jacobian);
    return 0.5 * r->squaredNorm();
  }

  // ½‖R(q)‖² alone, to rank candidate start points.
  double CostAt(const Eigen::VectorXd& q) {
    ++result_.function_evaluations;
    if constexpr (kFixed) {
      if (kernel_) return kernel_->Cost(q.data());
    }
    problem_.EvaluateResiduals(q, scope_.workspace(), *w_.trial_residual,
                               nullptr);
    return 0.5 * w_.trial_residual->squaredNorm();
  }

  // The stopping test at w.q, which the last evaluation was at: from the
  // kernel's site pose, or from the FK that evaluation left in the
  // workspace (no other FK pass either way). Either leaves the goal errors
  // it passed on in `errors_`.
  bool WithinTolerance() {
    if constexpr (kFixed) {
      if (kernel_) {
        return kernel_->WithinTolerance(common_.position_tolerance,
                                        common_.angle_tolerance, &errors_[0]);
      }
    }
    problem_.GoalErrorsFromWorkspace(w_.q, *scope_.workspace(), &errors_);
    return scope_.WithinTolerance(errors_);
  }

  // One attempt of damped Gauss–Newton steps from w.q. Returns kConverged,
  // kMaxIterations or kTimeBudget, or kLocalMinimum when it gave up (if
  // `may_stall`: ‖R‖ not below stall_ratio of its value stall_iterations
  // ago, or pressing on a bound without progress, see bound_stall_ratio;
  // and if also `first_step_test`: its first iteration left ‖R‖ above
  // first_step_ratio of its starting value) or
  // is stationary (λ beyond max_damping, or accepted steps below 1e-14
  // relative); kNumericalFailure when the cost at its start is not finite.
  SolveStatus RunAttempt(bool may_stall, bool first_step_test) {
    const double start_cost = Evaluate(w_.q, /*trial=*/false);
    if (result_.function_evaluations == 1) {
      scope_.SetInitialPotential(start_cost);
    }
    // An overflowed (or NaN) cost orders nothing: no step, gain ratio or
    // stall test means anything from it, and every restart point of the box
    // is as far from a target beyond ~1e154 length units.
    if (!std::isfinite(start_cost)) return SolveStatus::kNumericalFailure;
    if (start_cost < best_cost_) {
      best_cost_ = start_cost;
      w_.best_q = w_.q;
    }
    if (WithinTolerance()) return SolveStatus::kConverged;
    AttemptState attempt(start_cost, options_);
    while (true) {
      if (const std::optional<SolveStatus> stop = StartIteration()) {
        return *stop;
      }
      UpdateNormalEquations(&attempt);
      const StepOutcome outcome = ComputeStep(attempt.mu);
      if (outcome == StepOutcome::kOutOfTime) return SolveStatus::kTimeBudget;
      if (outcome == StepOutcome::kFailed) {
        // Better conditioned next time.
        if (!IncreaseDamping(&attempt)) return SolveStatus::kLocalMinimum;
        continue;
      }
      ++attempt.iterations;

      // The trial evaluation is the other costly unit of an iteration on a
      // long chain; a whole fixed-size (6/7-coordinate) iteration is below a
      // microsecond, so there one clock read per iteration suffices.
      if constexpr (N == Eigen::Dynamic) {
        if (scope_.OutOfTime()) return SolveStatus::kTimeBudget;
      }
      TakeProjectedStep();
      const double predicted = PredictedReduction();
      const double trial_cost = Evaluate(w_.trial_q, /*trial=*/true);
      // Gain ratio (Madsen, Nielsen & Tingleff 2004, Sec. 2.4); a step the
      // model does not see as descent counts as a bad model.
      const double gain_ratio =
          predicted > 0.0 ? (attempt.cost - trial_cost) / predicted : -1.0;
      if (trial_cost < attempt.cost) {
        if (const std::optional<SolveStatus> stop =
                AcceptStep(trial_cost, gain_ratio, &attempt)) {
          return *stop;
        }
      } else if (!IncreaseDamping(&attempt)) {
        return SolveStatus::kLocalMinimum;
      }
      if (may_stall && ShouldAbandon(first_step_test, &attempt)) {
        return SolveStatus::kLocalMinimum;
      }
    }
  }

  // The iteration and time limits, then counts the iteration; a status ends
  // the attempt.
  std::optional<SolveStatus> StartIteration() {
    if (iterations_ >= options_.common.max_iterations) {
      return SolveStatus::kMaxIterations;
    }
    // A fixed-size (6/7-coordinate) iteration is below half a
    // microsecond, and reading the clock cost ~5 % of one: there it is
    // read every kFixedSizeClockStride iterations (a solve then overruns
    // its budget by at most that many iterations, ~8 µs; most solves read
    // it only at their first).
    if ((!kFixed || iterations_ % kFixedSizeClockStride == 0) &&
        scope_.OutOfTime()) {
      return SolveStatus::kTimeBudget;
    }
    ++iterations_;
    return std::nullopt;
  }

  // g = JᵀR and JᵀJ at w.q (in the factored form J̃ J̃ᵀ), unless they are
  // current: after a rejected step (or a failed factorization) J and R are
  // those of the iteration before, and so are g and JᵀJ: only μ changed.
  void UpdateNormalEquations(AttemptState* attempt) {
    if (!attempt->normal_current && factored_form_) {
      attempt->normal_current = true;
      LowerGram(*w_.factor, &w_.factor_normal);
    }
    if (!attempt->normal_current) {
      attempt->normal_current = true;
      w_.gradient.noalias() = w_.jacobian->transpose() * *w_.residual;
      if constexpr (N == Eigen::Dynamic) {
        if (!dual_) {  // the lower triangle only (a rank-m update, SYRK)
          w_.normal.template triangularView<Eigen::Lower>().setZero();
          w_.normal.template selfadjointView<Eigen::Lower>().rankUpdate(
              w_.jacobian->transpose());
        }
      } else {
        LowerGram(*w_.jacobian, &w_.normal);  // lower triangle only
      }
    }
  }

  // Active set: hold coordinates on a bound whose step points outward,
  // re-solve until no free coordinate wants to leave the box. The step with
  // damping μ = `mu` goes to w.step.
  StepOutcome ComputeStep(double mu) {
    if (any_held_) {
      std::fill(w_.held.begin(), w_.held.end(), 0);
      any_held_ = false;
    }
    bool factored = false;
    for (int pass = 0; pass <= n_; ++pass) {
      // A pass is bounded work (O(m² n) or O(n³)); the budget is checked
      // between passes, so a solve overruns it by at most one pass plus
      // one evaluation.
      if (!kFixed && pass > 0 && scope_.OutOfTime()) {
        return StepOutcome::kOutOfTime;
      }
      factored = SolveOnFreeCoordinates(mu);
      if (!factored) break;
      if (!HoldOutwardSteps()) break;
    }
    if (!factored || !w_.step.allFinite()) return StepOutcome::kFailed;
    return StepOutcome::kComputed;
  }

  // One active-set pass: the damped step on the coordinates not held, in
  // the form the problem takes. False if the system did not factor.
  bool SolveOnFreeCoordinates(double mu) {
    if constexpr (N == Eigen::Dynamic) {
      if (dual_) return SolveDualStep(mu);
    }
    if constexpr (kFixed) {
      if (factored_form_) return SolveFactoredStep(mu);
    }
    return SolvePrimalStep(mu);
  }

  // The long chains' dual form (push-through identity), for μ > 0:
  //   (J_fᵀ J_f + μI)⁻¹ J_fᵀ r = J_fᵀ (J_f J_fᵀ + μI)⁻¹ r,
  // with J_f = J with the held columns zeroed, so held coordinates get a
  // zero step as in the primal form.
  bool SolveDualStep(double mu) {
    w_.free_jacobian = *w_.jacobian;
    for (int i = 0; i < n_; ++i) {
      if (w_.held[i]) w_.free_jacobian.col(i).setZero();
    }
    w_.small_system.noalias() =
        w_.free_jacobian * w_.free_jacobian.transpose();
    w_.small_system.diagonal().array() += mu;
    w_.small_llt.compute(w_.small_system);
    if (w_.small_llt.info() != Eigen::Success) return false;
    w_.small_rhs = *w_.residual;
    w_.small_llt.solveInPlace(w_.small_rhs);
    w_.step.noalias() = -w_.free_jacobian.transpose() * w_.small_rhs;
    return true;
  }

  // The kernel's problems need of J only JᵀJ and JᵀR, which its factor J̃
  // (kFactorRows × N) gives: (JᵀJ + μI)⁻¹ JᵀR = J̃ᵀ (J̃ J̃ᵀ + μI)⁻¹ r̃ for
  // μ > 0 (push-through identity). So the step solves a kFactorRows ×
  // kFactorRows system instead of an N × N one (6 × 6 instead of 7 × 7 for
  // a pose goal on a 7-DOF arm, 3 × 3 for a position or orientation goal),
  // and J̃ J̃ᵀ has fewer and shorter dot products than JᵀJ. Held coordinates
  // get a zero step as in the primal form: their rows of J̃ᵀ are zeroed.
  // step = −J̃_fᵀ (J̃_f J̃_fᵀ + μI)⁻¹ r̃, J̃_f = J̃ without the held
  // coordinates' columns.
  bool SolveFactoredStep(double mu) {
    const typename Work::FactorTranspose* Jt = w_.factor;
    const typename Work::FactorSystem* system = &w_.factor_normal;
    if (any_held_) {
      w_.free_factor = *w_.factor;
      for (int i = 0; i < n_; ++i) {
        if (w_.held[i]) w_.free_factor.row(i).setZero();
      }
      LowerGram(w_.free_factor, &w_.free_factor_normal);
      Jt = &w_.free_factor;
      system = &w_.free_factor_normal;
    }
    w_.factor_step = *w_.factor_residual;
    if (!internal::CholeskySolveShifted(*system, mu, &w_.factor_step)) {
      return false;
    }
    w_.step.noalias() = -*Jt * w_.factor_step;
    return true;
  }

  // (JᵀJ + μI) Δ = −g: JᵀJ + μI, with the held coordinates' rows and
  // columns those of I (and a zero right-hand side there). For fixed sizes
  // with nothing held, the solve adds μ itself and reads JᵀJ as it is.
  bool SolvePrimalStep(double mu) {
    w_.step = -w_.gradient;
    if (N == Eigen::Dynamic || any_held_) {
      w_.system = w_.normal;
      w_.system.diagonal().array() += mu;
      for (int i = 0; any_held_ && i < n_; ++i) {
        if (!w_.held[i]) continue;
        w_.system.row(i).setZero();
        w_.system.col(i).setZero();
        w_.system(i, i) = 1.0;
        w_.step[i] = 0.0;
      }
    }
    if constexpr (N == Eigen::Dynamic) {
      w_.llt.compute(w_.system);
      const bool factored = w_.llt.info() == Eigen::Success;
      if (factored) w_.llt.solveInPlace(w_.step);
      return factored;
    } else if (any_held_) {
      return internal::CholeskySolveShifted(w_.system, 0.0, &w_.step);
    } else {
      return internal::CholeskySolveShifted(w_.normal, mu, &w_.step);
    }
  }

  // Holds every free coordinate on a bound whose step w.step points out of
  // the box (or turns a periodic one to its other bound, see
  // FindPeriodicCoordinates); true if any was newly held (the step must be
  // solved again). (Plain pointers: a store through w.held's char* may alias
  // anything, so the vectors' data pointers would otherwise be reloaded per
  // coordinate.)
  bool HoldOutwardSteps() {
    bool changed = false;
    double* q = w_.q.data();
    const double* step = w_.step.data();
    const double* lo = lower_.data();
    const double* hi = upper_.data();
    char* held = w_.held.data();
    for (int i = 0; i < n_; ++i) {
      if (held[i]) continue;
      const bool below = q[i] <= lo[i] && step[i] < 0.0;
      const bool above = q[i] >= hi[i] && step[i] > 0.0;
      if (!below && !above) continue;
      if constexpr (kFixed) {
        if (periodic_[i]) {
          q[i] += below ? 2.0 * M_PI : -2.0 * M_PI;
          continue;
        }
      }
      held[i] = 1;
      changed = true;
    }
    any_held_ = any_held_ || changed;
    return changed;
  }

  // The trial point, the projection of w.q + w.step onto the box, into
  // w.trial_q, and the step actually taken, trial_q − q, into w.step.
  void TakeProjectedStep() {
    view(w_.trial_q) = (const_view(w_.q) + w_.step)
                           .cwiseMax(const_view(lower_))
                           .cwiseMin(const_view(upper_));
    w_.step = const_view(w_.trial_q) - const_view(w_.q);
  }

  // Reduction of ½‖R + J d‖² predicted for the step d actually taken
  // (the projected one): −gᵀd − ½‖J d‖². For fixed sizes J d is an
  // M-vector on the stack, summed column by column (contiguous; the
  // strided row-by-row dot products and Eigen's J * d both cost ~50
  // instructions more per 7-DOF iteration); for dynamic sizes ‖J d‖²
  // goes row by row, so that no m-vector is formed (the dual form has no
  // JᵀJ).
  // In the factored form gᵀd = r̃ᵀ J̃ d and ‖J d‖² = ‖J̃ d‖².
  double PredictedReduction() const {
    if constexpr (kFixed) {
      if (factored_form_) {
        const typename Work::FactorResidual jd =
            w_.factor->transpose() * w_.step;
        return -w_.factor_residual->dot(jd) - 0.5 * jd.squaredNorm();
      }
      typename Work::ResidualVector jd = w_.jacobian->col(0) * w_.step[0];
      for (int c = 1; c < N; ++c) jd += w_.jacobian->col(c) * w_.step[c];
      return -w_.gradient.dot(w_.step) - 0.5 * jd.squaredNorm();
    } else {
      double squared_jd = 0.0;
      for (int r = 0; r < m_; ++r) {
        const double jd = w_.jacobian->row(r).dot(w_.step);
        squared_jd += jd * jd;
      }
      return -w_.gradient.dot(w_.step) - 0.5 * squared_jd;
    }
  }

  // Moves to the trial point, which lowered the cost to `trial_cost`, and
  // updates λ by the gain ratio; a status ends the attempt (converged, or
  // stationary: a step below 1e-14 relative).
  std::optional<SolveStatus> AcceptStep(double trial_cost, double gain_ratio,
                                        AttemptState* attempt) {
    // w.step is trial_q − q (TakeProjectedStep).
    const double moved = w_.step.template lpNorm<Eigen::Infinity>();
    w_.q.swap(w_.trial_q);
    std::swap(w_.residual, w_.trial_residual);
    std::swap(w_.jacobian, w_.trial_jacobian);
    std::swap(w_.factor, w_.trial_factor);
    std::swap(w_.factor_residual, w_.trial_factor_residual);
    attempt->normal_current = false;
    attempt->cost = trial_cost;
    if (gain_ratio < kPoorGain) {
      attempt->lambda *= options_.damping_increase;
    } else if (gain_ratio > kGoodGain) {
      attempt->lambda = std::max(attempt->lambda / options_.damping_decrease,
                                 options_.min_damping);
    }
    attempt->mu = attempt->Damping(options_);
    if (attempt->cost < best_cost_) {
      best_cost_ = attempt->cost;
      view(w_.best_q) = const_view(w_.q);
    }
    if (options_.common.record_trace) {
      scope_.Trace(iterations_, w_.q, attempt->cost);
    }
    // The workspace's FK is at the accepted point: test it as is (Trace
    // ran FK at the same q).
    if (WithinTolerance()) return SolveStatus::kConverged;
    if (moved <=
        1e-14 * (1.0 + const_view(w_.q).template lpNorm<Eigen::Infinity>())) {
      return SolveStatus::kLocalMinimum;
    }
    return std::nullopt;
  }

  // After a rejected step or a failed factorization: λ ← λ ·
  // damping_increase. False when λ is beyond max_damping (the model is not
  // decreasing the cost).
  bool IncreaseDamping(AttemptState* attempt) const {
    attempt->lambda *= options_.damping_increase;
    if (attempt->lambda > options_.max_damping) return false;
    attempt->mu = attempt->Damping(options_);
    return true;
  }

  // The stall tests after an iteration (see the header): true when the
  // attempt should give up for a restart.
  bool ShouldAbandon(bool first_step_test, AttemptState* attempt) const {
    // A first step that leaves most of the residual: a start outside the
    // basin of a solution, or one that will end on the limits.
    if (attempt->iterations == 1 && first_step_test &&
        std::sqrt(2.0 * attempt->cost) >
            options_.first_step_ratio * attempt->initial_norm) {
      return true;
    }
    // Pressing on a bound (a coordinate held this iteration) without
    // progress: such attempts end in a local minimum on the bound.
    if (attempt->iterations >= kBoundStallIterations &&
        attempt->cost > options_.bound_stall_ratio * attempt->cost_two_back &&
        any_held_) {
      return true;
    }
    attempt->cost_two_back = attempt->cost_one_back;
    attempt->cost_one_back = attempt->cost;
    if (++attempt->since_reference >= options_.stall_iterations) {
      const double norm = std::sqrt(2.0 * attempt->cost);
      if (norm > options_.stall_ratio * attempt->stall_reference) return true;
      attempt->stall_reference = norm;
      attempt->since_reference = 0;
    }
    return false;
  }

  // A random restart point into w.q. On the kernel path: the lowest-cost
  // point of the restart pool (restart_pool.h) not yet tried in this solve,
  // the pool ranked for this target at the first random restart. Otherwise,
  // and once the pool is spent: the lowest-cost of restart_candidates fresh
  // draws, from a generator seeded at its first draw (seeding a
  // std::mt19937_64 is ~2,000 instructions, and most solves never draw) that
  // continues the pool's sequence (one engine value per coordinate drawn),
  // so no pool point is drawn again.
  void RestartPoint() {
    if constexpr (kFixed) {
      if (kernel_ && pool_tried_ < options_.restart_pool) {
        PoolRestartPoint();
        return;
      }
    }
    DrawnRestartPoint();
  }

  // The pool's lowest-cost point not yet tried, ranked at the first call.
  void PoolRestartPoint() {
    if (pool_ == nullptr) {
      pool_ = internal::RestartPool::Get(
          problem_.shared_model(), kernel_->site(), lower_, upper_,
          options_.seed, options_.restart_pool,
          [&](const double* q, double* pose) { kernel_->SitePose(q, pose); });
      pool_costs_.resize(pool_->size());
      kernel_->PoolCosts(*pool_, pool_costs_.data());
    }
    const int best = static_cast<int>(
        std::min_element(pool_costs_.begin(), pool_costs_.end()) -
        pool_costs_.begin());
    pool_costs_[best] = kInfinity;
    ++pool_tried_;
    std::copy(pool_->q(best), pool_->q(best) + n_, w_.q.data());
  }

  // The lowest-cost of restart_candidates fresh uniform draws.
  void DrawnRestartPoint() {
    if (rng_ == nullptr) {
      rng_ = std::make_unique<std::mt19937_64>(options_.seed);
      if (pool_ != nullptr) rng_->discard(std::uint64_t(pool_->size()) * n_);
    }
    internal::DrawUniform(lower_, upper_, rng_.get(), &w_.q);
    if (options_.restart_candidates == 1) return;
    double lowest = CostAt(w_.q);
    for (int c = 1; c < options_.restart_candidates; ++c) {
      if constexpr (N == Eigen::Dynamic) {
        if (scope_.OutOfTime()) break;  // an evaluation of a long chain
      }
      internal::DrawUniform(lower_, upper_, rng_.get(), &w_.trial_q);
      const double cost = CostAt(w_.trial_q);
      if (cost < lowest) {
        lowest = cost;
        w_.q.swap(w_.trial_q);
      }
    }
  }

  const BoundedLmOptions& options_;
  internal::SolveScope& scope_;
  const Problem& problem_;
  const SolveOptions& common_;
  const int n_;  // coordinates
  const int m_;  // stacked residuals
  const Eigen::VectorXd& lower_;
  const Eigen::VectorXd& upper_;
  Result& result_;
  Workspace<M, N> w_;
  const bool dual_;  // the long chains' m × m form (see SolveDualStep)
  std::vector<GoalError> errors_;  // at w.q, from WithinTolerance
  // One position, orientation or pose goal on a 6/7-coordinate chain and
  // nothing else: the fused kernel instead of Problem::EvaluateResiduals;
  // null when the problem does not qualify, and always on the dynamic-size
  // path.
  Kernel kernel_storage_;
  Kernel* const kernel_;
  // The step from the kernel's factor J̃ (see SolveFactoredStep).
  const bool factored_form_;
  // Coordinates that turn by ∓2π at a bound (see FindPeriodicCoordinates).
  std::array<bool, (N > 0 ? N : 1)> periodic_{};
  // Whether w.held has a coordinate held this iteration: mostly none is, and
  // then the held rows and columns need no pass over w.held.
  bool any_held_ = false;
  double best_cost_ = kInfinity;  // ½‖R‖² at w.best_q
  int iterations_ = 0;            // over all attempts
  // Made at the first fresh draw (see RestartPoint): most solves never
  // draw, and a std::mt19937_64 is 2.5 KB to set up (an empty std::optional
  // of it is zero-filled).
  std::unique_ptr<std::mt19937_64> rng_;
  std::shared_ptr<const internal::RestartPool> pool_;
  std::vector<double> pool_costs_;  // +∞ once tried
  int pool_tried_ = 0;
};

template <int M, int N>
Result SolveWith(const BoundedLmOptions& options,
                 internal::SolveScope& scope) {
  return BoundedLmMinimizer<M, N>(options, scope).Solve();
}

}  // namespace

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const BoundedLmOptions& options) {
  internal::SolveScope scope(problem, q0, options.common, "bounded-lm");
  if (!scope.ok()) return scope.result();
  std::string why;
  if (!options.IsValid(&why)) {
    return scope.Reject("BoundedLmOptions: " + why);
  }
  // Fixed-size kernels for the shapes of arm problems: 6 or 7 coordinates
  // with a position (3), orientation (6) or pose (9) goal.
  const int m = problem.num_residuals();
  // Refuse what cannot fit rather than die in the allocation.
  const double bytes = WorkspaceBytes(m, problem.nq());
  const double physical = internal::PhysicalMemoryBytes();
  if (physical > 0.0 && bytes > 0.75 * physical) {
    return scope.Finish(
        scope.start(), SolveStatus::kInvalidInput,
        StrCat("bounded-lm: the problem (", problem.nq(), " coordinates, ", m,
               " residuals) needs about ", bytes / 1e9,
               " GB of workspace, more than 3/4 of this machine's ",
               physical / 1e9, " GB"));
  }
  switch (problem.nq()) {
    case 6:
      if (m == 3) return SolveWith<3, 6>(options, scope);
      if (m == 6) return SolveWith<6, 6>(options, scope);
      if (m == 9) return SolveWith<9, 6>(options, scope);
      break;
    case 7:
      if (m == 3) return SolveWith<3, 7>(options, scope);
      if (m == 6) return SolveWith<6, 7>(options, scope);
      if (m == 9) return SolveWith<9, 7>(options, scope);
      break;
  }
  return SolveWith<Eigen::Dynamic, Eigen::Dynamic>(options, scope);
}

namespace {

// BoundedLmSolver::Prepare for the fixed sizes M × N: the kernel's chain
// (SiteGoalKernel::Init caches it for this thread) and the restart pool
// that the first random restart would build (RestartPool::Get caches it).
template <int M, int N>
void PrepareKernel(const Problem& problem, const BoundedLmOptions& options) {
  internal::SiteGoalKernel<M, N> kernel;
  if (!kernel.Init(problem) || options.restart_pool <= 0) return;
  const int n = problem.nq();
  const Eigen::VectorXd lower = options.common.respect_limits
                                    ? problem.bounds().lower
                                    : Eigen::VectorXd::Constant(n, -kInfinity);
  const Eigen::VectorXd upper = options.common.respect_limits
                                    ? problem.bounds().upper
                                    : Eigen::VectorXd::Constant(n, kInfinity);
  internal::RestartPool::Get(
      problem.shared_model(), kernel.site(), lower, upper, options.seed,
      options.restart_pool,
      [&](const double* q, double* pose) { kernel.SitePose(q, pose); });
}

}  // namespace

void BoundedLmSolver::Prepare(const Problem& problem) const {
  internal::PhysicalMemoryBytes();
  std::string why;
  if (!options_.IsValid(&why) || !options_.common.IsValid(&why) ||
      problem.has_constraints() || problem.bounds().size() != problem.nq() ||
      !problem.bounds().IsValid(&why)) {
    return;  // Solve says why
  }
  const int m = problem.num_residuals();
  switch (problem.nq()) {
    case 6:
      if (m == 3) PrepareKernel<3, 6>(problem, options_);
      if (m == 6) PrepareKernel<6, 6>(problem, options_);
      if (m == 9) PrepareKernel<9, 6>(problem, options_);
      break;
    case 7:
      if (m == 3) PrepareKernel<3, 7>(problem, options_);
      if (m == 6) PrepareKernel<6, 7>(problem, options_);
      if (m == 9) PrepareKernel<9, 7>(problem, options_);
      break;
  }
  // The first solve's cost, paid here by one short attempt (at most 8
  // iterations, no restarts) whose result is discarded.
  first_solve_.Claim();
  BoundedLmOptions warm = options_;
  warm.max_attempts = 1;
  warm.common.max_iterations = std::min(warm.common.max_iterations, 8);
  warm.common.record_trace = false;
  const BoundedLmSolver warm_solver(warm);
  warm_solver.first_solve_.Claim();  // its Solve must not Prepare again
  internal::WarmUp(warm_solver, problem);
}

std::unique_ptr<Solver> MakeSolver(const BoundedLmOptions& options) {
  return std::make_unique<BoundedLmSolver>(options);
}

}  // namespace iklab
