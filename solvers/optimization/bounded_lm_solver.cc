#include "solvers/optimization/bounded_lm_solver.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

#include "framework/internal/check.h"
#include "solvers/optimization/internal/restart_pool.h"
#include "solvers/optimization/internal/site_goal_kernel.h"
#include "solvers/optimization/internal/small_cholesky.h"

namespace iklab {

using internal::StrCat;

bool BoundedLmOptions::IsValid(std::string* why) const {
  std::string reason;
  if (!common.IsValid(&reason)) {
  } else if (!(initial_damping > 0.0) || !std::isfinite(initial_damping)) {
    reason = StrCat("initial_damping must be finite and > 0, got ",
                    initial_damping);
  } else if (!(damping_decrease > 1.0) || !std::isfinite(damping_decrease)) {
    reason = StrCat("damping_decrease must be finite and > 1, got ",
                    damping_decrease);
  } else if (!(damping_increase > 1.0) || !std::isfinite(damping_increase)) {
    reason = StrCat("damping_increase must be finite and > 1, got ",
                    damping_increase);
  } else if (!(min_damping >= 0.0) || !std::isfinite(min_damping)) {
    reason = StrCat("min_damping must be finite and >= 0, got ", min_damping);
  } else if (!(max_damping > min_damping)) {
    reason = StrCat("max_damping must exceed min_damping, got ", max_damping);
  } else if (stall_iterations < 1) {
    reason = StrCat("stall_iterations must be >= 1, got ", stall_iterations);
  } else if (!(stall_ratio > 0.0 && stall_ratio <= 1.0)) {
    reason = StrCat("stall_ratio must be in (0, 1], got ", stall_ratio);
  } else if (!(first_step_ratio > 0.0 && first_step_ratio <= 1.0)) {
    reason = StrCat("first_step_ratio must be in (0, 1], got ",
                    first_step_ratio);
  } else if (first_step_attempts < 0) {
    reason = StrCat("first_step_attempts must be >= 0, got ",
                    first_step_attempts);
  } else if (!(bound_stall_ratio >= 0.0 && bound_stall_ratio <= 1.0)) {
    reason = StrCat("bound_stall_ratio must be in [0, 1], got ",
                    bound_stall_ratio);
  } else if (max_attempts < 1) {
    reason = StrCat("max_attempts must be >= 1, got ", max_attempts);
  } else if (restart_candidates < 1) {
    reason =
        StrCat("restart_candidates must be >= 1, got ", restart_candidates);
  } else if (restart_pool < 0 || restart_pool > kMaxRestartPool) {
    reason = StrCat("restart_pool must be in [0, ", kMaxRestartPool, "], got ",
                    restart_pool);
  }
  if (why != nullptr) *why = reason;
  return reason.empty();
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
  Workspace(int m, int n, bool dual)
      : residual_buffers{ResidualVector(m), ResidualVector(m)},
        jacobian_buffers{JacobianMatrix(m, n), JacobianMatrix(m, n)},
        normal(SquareMatrix::Zero(dual ? 0 : n, dual ? 0 : n)),
        system(dual ? 0 : n, dual ? 0 : n),
        gradient(n),
        step(n),
        q(n),
        trial_q(n),
        best_q(n),
        held(n),
        llt(dual ? 0 : n),
        free_jacobian(dual ? m : 0, dual ? n : 0),
        small_system(dual ? m : 0, dual ? m : 0),
        small_rhs(dual ? m : 0),
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
  // The same for the factored form (see SolveWith).
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
  SquareMatrix normal;  // JᵀJ (fixed sizes: its lower triangle only)
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
// primal form) and the factored form's J̃ J̃ᵀ, from J̃ᵀ (see SolveWith).
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
// Fixed-size iterations between two reads of the clock (see SolveWith).
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

template <int M, int N>
Result SolveWith(const BoundedLmOptions& options,
                 internal::SolveScope& scope) {
  const Problem& problem = scope.problem();
  const int n = problem.nq();
  const int m = problem.num_residuals();
  const Eigen::VectorXd& lower = scope.lower();
  const Eigen::VectorXd& upper = scope.upper();
  Result& result = scope.result();
  Workspace<M, N> w(m, n, N == Eigen::Dynamic && UseDualForm(m, n));
  const bool dual = w.small_system.size() > 0;
  std::vector<GoalError> errors(problem.goals().size());
  // Made at the first fresh draw (see restart_point): most solves never
  // draw, and a std::mt19937_64 is 2.5 KB to set up (an empty std::optional
  // of it is zero-filled).
  std::unique_ptr<std::mt19937_64> rng;

  // One position, orientation or pose goal on a 6/7-coordinate chain and
  // nothing else: the fused kernel (solvers/optimization/internal/site_goal_kernel.h)
  // instead of Problem::EvaluateResiduals; null when the problem does not
  // qualify. Its type is a placeholder on the dynamic-size path, where it
  // stays null.
  constexpr bool kFixed = Workspace<M, N>::kFixed;
  using Kernel = typename Workspace<M, N>::Kernel;
  Kernel kernel_storage;
  Kernel* const kernel =
      kFixed && kernel_storage.Init(problem) ? &kernel_storage : nullptr;
  // The kernel's problems need of J only JᵀJ and JᵀR, which its factor J̃
  // (kFactorRows × N) gives: (JᵀJ + μI)⁻¹ JᵀR = J̃ᵀ (J̃ J̃ᵀ + μI)⁻¹ r̃ for
  // μ > 0 (push-through identity). So the step solves a kFactorRows ×
  // kFactorRows system instead of an N × N one (6 × 6 instead of 7 × 7 for
  // a pose goal on a 7-DOF arm, 3 × 3 for a position or orientation goal),
  // and J̃ J̃ᵀ has fewer and shorter dot products than JᵀJ. Held coordinates
  // get a zero step as in the primal form: their rows of J̃ᵀ are zeroed.
  constexpr int kFactorRows = Workspace<M, N>::kFactorRows;
  const bool factored_form = kFixed && kernel != nullptr && kFactorRows < N;
  const SolveOptions& common = scope.options();

  // Accepted steps swap the buffer pointers, so a Ref to a buffer is made
  // fresh at each evaluation.
  // (The trial point's buffers if `trial`, else the current point's.)
  const auto evaluate = [&](const Eigen::VectorXd& q, bool trial) {
    ++result.function_evaluations;
    ++result.jacobian_evaluations;
    auto* const r = trial ? w.trial_residual : w.residual;
    if constexpr (kFixed) {
      if (factored_form) {
        return kernel->EvaluateFactored(
            q.data(), r, trial ? w.trial_factor : w.factor,
            trial ? w.trial_factor_residual : w.factor_residual);
      }
      if (kernel) {
        return kernel->Evaluate(q.data(), r,
                                trial ? w.trial_jacobian : w.jacobian);
      }
    }
    Eigen::Ref<Eigen::MatrixXd> jacobian(trial ? *w.trial_jacobian
                                               : *w.jacobian);
    problem.EvaluateResiduals(q, scope.workspace(), *r, &jacobian);
    return 0.5 * r->squaredNorm();
  };
  // The stopping test at w.q, which the last evaluation was at: from the
  // kernel's site pose, or from the FK that evaluation left in the
  // workspace (no other FK pass either way). Either leaves the goal errors
  // it passed on in `errors`.
  const auto within_tolerance = [&] {
    if constexpr (kFixed) {
      if (kernel) {
        return kernel->WithinTolerance(common.position_tolerance,
                                       common.angle_tolerance, &errors[0]);
      }
    }
    problem.GoalErrorsFromWorkspace(w.q, *scope.workspace(), &errors);
    return scope.WithinTolerance(errors);
  };

  // The iterates and bounds are VectorXd (Problem and SolveScope take them
  // so); for a fixed N their per-iteration arithmetic goes through
  // fixed-size views, which Eigen unrolls instead of running its dynamic-size
  // loops and tail handling (~250 instructions per 7-DOF iteration).
  using CoordinateMap = Eigen::Map<typename Workspace<M, N>::CoordinateVector>;
  using ConstCoordinateMap =
      Eigen::Map<const typename Workspace<M, N>::CoordinateVector>;
  const auto view = [n](Eigen::VectorXd& v) {
    return CoordinateMap(v.data(), n);
  };
  const auto const_view = [n](const Eigen::VectorXd& v) {
    return ConstCoordinateMap(v.data(), n);
  };

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
  std::array<bool, (N > 0 ? N : 1)> periodic{};
  if constexpr (kFixed) {
    const Model& model = problem.model();
    for (int i = 0; kernel && i < n; ++i) {
      periodic[i] = model.kind(model.dof_step(i)) == StepKind::kRevolute &&
                    upper[i] - lower[i] >= 2.0 * M_PI;
    }
  }

  // Whether w.held has a coordinate held this iteration: mostly none is, and
  // then the held rows and columns need no pass over w.held.
  bool any_held = false;
  // Holds every free coordinate on a bound whose step w.step points out of
  // the box (or turns a periodic one to its other bound, see above); true if
  // any was newly held (the step must be solved again). (Plain pointers: a
  // store through w.held's char* may alias anything, so the vectors' data
  // pointers would otherwise be reloaded per coordinate.)
  const auto hold_outward_steps = [&] {
    bool changed = false;
    double* q = w.q.data();
    const double* step = w.step.data();
    const double* lo = lower.data();
    const double* hi = upper.data();
    char* held = w.held.data();
    for (int i = 0; i < n; ++i) {
      if (held[i]) continue;
      const bool below = q[i] <= lo[i] && step[i] < 0.0;
      const bool above = q[i] >= hi[i] && step[i] > 0.0;
      if (!below && !above) continue;
      if constexpr (kFixed) {
        if (periodic[i]) {
          q[i] += below ? 2.0 * M_PI : -2.0 * M_PI;
          continue;
        }
      }
      held[i] = 1;
      changed = true;
    }
    any_held = any_held || changed;
    return changed;
  };

  double best_cost = kInfinity;
  int iterations = 0;
  // One attempt of damped Gauss–Newton steps from w.q. Returns kConverged,
  // kMaxIterations or kTimeBudget, or kUnreachable when it gave up (if
  // `may_stall`: ‖R‖ not below stall_ratio of its value stall_iterations
  // ago, or pressing on a bound without progress, see bound_stall_ratio;
  // and if also `first_step_test`: its first iteration left ‖R‖ above
  // first_step_ratio of its starting value) or
  // is stationary (λ beyond max_damping, or accepted steps below 1e-14
  // relative).
  const auto run_attempt = [&](bool may_stall, bool first_step_test) {
    double cost = evaluate(w.q, /*trial=*/false);
    if (result.function_evaluations == 1) scope.SetInitialPotential(cost);
    if (cost < best_cost) {
      best_cost = cost;
      w.best_q = w.q;
    }
    if (within_tolerance()) return SolveStatus::kConverged;
    // μ = λ‖R‖ (Fan & Yuan 2005 with δ = 1; see the header): the damping
    // fades with the residual, so the last steps are Gauss–Newton steps
    // (quadratic convergence also on the self-motion manifold of a
    // redundant arm, where JᵀJ is singular at every solution), and λ
    // follows the gain ratio ρ.
    double lambda = options.initial_damping;
    const auto damping = [&] {
      return std::max(lambda * std::sqrt(2.0 * cost), options.min_damping);
    };
    double mu = damping();
    const double initial_norm = std::sqrt(2.0 * cost);
    double stall_reference = initial_norm;
    int since_reference = 0;
    // The cost before the last two iterations, for the bound stall test.
    double cost_one_back = cost, cost_two_back = cost;
    int attempt_iterations = 0;
    // Whether w.gradient and w.normal are g = JᵀR and JᵀJ at w.q (in the
    // factored form: w.factor_normal is J̃ J̃ᵀ).
    bool normal_current = false;
    while (true) {
      if (iterations >= options.common.max_iterations) {
        return SolveStatus::kMaxIterations;
      }
      // A fixed-size (6/7-coordinate) iteration is below half a
      // microsecond, and reading the clock cost ~5 % of one: there it is
      // read every kFixedSizeClockStride iterations (a solve then overruns
      // its budget by at most that many iterations, ~8 µs; most solves read
      // it only at their first).
      if ((!kFixed || iterations % kFixedSizeClockStride == 0) &&
          scope.OutOfTime()) {
        return SolveStatus::kTimeBudget;
      }
      ++iterations;
      // After a rejected step (or a failed factorization) J and R are those
      // of the iteration before, and so are g and JᵀJ: only μ changed.
      if (!normal_current && factored_form) {
        normal_current = true;
        LowerGram(*w.factor, &w.factor_normal);
      }
      if (!normal_current) {
        normal_current = true;
        w.gradient.noalias() = w.jacobian->transpose() * *w.residual;
        if constexpr (N == Eigen::Dynamic) {
          if (!dual) {
            w.normal.noalias() = w.jacobian->transpose() * *w.jacobian;
          }
        } else {
          LowerGram(*w.jacobian, &w.normal);  // lower triangle only
        }
      }

      // Active set: hold coordinates on a bound whose step points outward,
      // re-solve until no free coordinate wants to leave the box.
      if (any_held) {
        std::fill(w.held.begin(), w.held.end(), 0);
        any_held = false;
      }
      bool factored = false;
      for (int pass = 0; pass <= n; ++pass) {
        // A pass is bounded work (O(m² n) or O(n³)); the budget is checked
        // between passes, so a solve overruns it by at most one pass plus
        // one evaluation.
        if (!kFixed && pass > 0 && scope.OutOfTime()) {
          return SolveStatus::kTimeBudget;
        }
        if constexpr (N == Eigen::Dynamic) {
          if (dual) {
            // Push-through identity, for μ > 0:
            //   (J_fᵀ J_f + μI)⁻¹ J_fᵀ r = J_fᵀ (J_f J_fᵀ + μI)⁻¹ r,
            // with J_f = J with the held columns zeroed, so held
            // coordinates get a zero step as in the primal form.
            w.free_jacobian = *w.jacobian;
            for (int i = 0; i < n; ++i) {
              if (w.held[i]) w.free_jacobian.col(i).setZero();
            }
            w.small_system.noalias() =
                w.free_jacobian * w.free_jacobian.transpose();
            w.small_system.diagonal().array() += mu;
            w.small_llt.compute(w.small_system);
            factored = w.small_llt.info() == Eigen::Success;
            if (!factored) break;
            w.small_rhs = *w.residual;
            w.small_llt.solveInPlace(w.small_rhs);
            w.step.noalias() = -w.free_jacobian.transpose() * w.small_rhs;
            if (!hold_outward_steps()) break;
            continue;
          }
        }
        if constexpr (kFixed) {
          if (factored_form) {
            // step = −J̃_fᵀ (J̃_f J̃_fᵀ + μI)⁻¹ r̃, J̃_f = J̃ without the held
            // coordinates' columns.
            const typename Workspace<M, N>::FactorTranspose* Jt = w.factor;
            const typename Workspace<M, N>::FactorSystem* system =
                &w.factor_normal;
            if (any_held) {
              w.free_factor = *w.factor;
              for (int i = 0; i < n; ++i) {
                if (w.held[i]) w.free_factor.row(i).setZero();
              }
              LowerGram(w.free_factor, &w.free_factor_normal);
              Jt = &w.free_factor;
              system = &w.free_factor_normal;
            }
            w.factor_step = *w.factor_residual;
            factored =
                internal::CholeskySolveShifted(*system, mu, &w.factor_step);
            if (!factored) break;
            w.step.noalias() = -*Jt * w.factor_step;
            if (!hold_outward_steps()) break;
            continue;
          }
        }
        // JᵀJ + μI, with the held coordinates' rows and columns those of I
        // (and a zero right-hand side there). For fixed sizes with nothing
        // held, the solve adds μ itself and reads JᵀJ as it is.
        w.step = -w.gradient;
        if (N == Eigen::Dynamic || any_held) {
          w.system = w.normal;
          w.system.diagonal().array() += mu;
          for (int i = 0; any_held && i < n; ++i) {
            if (!w.held[i]) continue;
            w.system.row(i).setZero();
            w.system.col(i).setZero();
            w.system(i, i) = 1.0;
            w.step[i] = 0.0;
          }
        }
        if constexpr (N == Eigen::Dynamic) {
          w.llt.compute(w.system);
          factored = w.llt.info() == Eigen::Success;
          if (factored) w.llt.solveInPlace(w.step);
        } else if (any_held) {
          factored = internal::CholeskySolveShifted(w.system, 0.0, &w.step);
        } else {
          factored = internal::CholeskySolveShifted(w.normal, mu, &w.step);
        }
        if (!factored) break;
        if (!hold_outward_steps()) break;
      }
      if (!factored || !w.step.allFinite()) {
        lambda *= options.damping_increase;  // better conditioned next time
        if (lambda > options.max_damping) return SolveStatus::kUnreachable;
        mu = damping();
        continue;
      }
      ++attempt_iterations;

      // The trial evaluation is the other costly unit of an iteration on a
      // long chain; a whole fixed-size (6/7-coordinate) iteration is below a
      // microsecond, so there one clock read per iteration suffices.
      if constexpr (N == Eigen::Dynamic) {
        if (scope.OutOfTime()) return SolveStatus::kTimeBudget;
      }
      view(w.trial_q) = (const_view(w.q) + w.step)
                            .cwiseMax(const_view(lower))
                            .cwiseMin(const_view(upper));
      // Reduction of ½‖R + J d‖² predicted for the step d actually taken
      // (the projected one): −gᵀd − ½‖J d‖². For fixed sizes J d is an
      // M-vector on the stack, summed column by column (contiguous; the
      // strided row-by-row dot products and Eigen's J * d both cost ~50
      // instructions more per 7-DOF iteration); for dynamic sizes ‖J d‖²
      // goes row by row, so that no m-vector is formed (the dual form has no
      // JᵀJ).
      // In the factored form gᵀd = r̃ᵀ J̃ d and ‖J d‖² = ‖J̃ d‖².
      w.step = const_view(w.trial_q) - const_view(w.q);
      double predicted = 0.0;
      if constexpr (kFixed) {
        if (factored_form) {
          const typename Workspace<M, N>::FactorResidual jd =
              w.factor->transpose() * w.step;
          predicted = -w.factor_residual->dot(jd) - 0.5 * jd.squaredNorm();
        } else {
          typename Workspace<M, N>::ResidualVector jd =
              w.jacobian->col(0) * w.step[0];
          for (int c = 1; c < N; ++c) jd += w.jacobian->col(c) * w.step[c];
          predicted = -w.gradient.dot(w.step) - 0.5 * jd.squaredNorm();
        }
      } else {
        double squared_jd = 0.0;
        for (int r = 0; r < m; ++r) {
          const double jd = w.jacobian->row(r).dot(w.step);
          squared_jd += jd * jd;
        }
        predicted = -w.gradient.dot(w.step) - 0.5 * squared_jd;
      }
      const double trial_cost = evaluate(w.trial_q, /*trial=*/true);
      // Gain ratio (Madsen, Nielsen & Tingleff 2004, Sec. 2.4); a step the
      // model does not see as descent counts as a bad model.
      const double gain_ratio =
          predicted > 0.0 ? (cost - trial_cost) / predicted : -1.0;
      if (trial_cost < cost) {
        // w.step is trial_q − q, as computed above.
        const double moved = w.step.template lpNorm<Eigen::Infinity>();
        w.q.swap(w.trial_q);
        std::swap(w.residual, w.trial_residual);
        std::swap(w.jacobian, w.trial_jacobian);
        std::swap(w.factor, w.trial_factor);
        std::swap(w.factor_residual, w.trial_factor_residual);
        normal_current = false;
        cost = trial_cost;
        if (gain_ratio < kPoorGain) {
          lambda *= options.damping_increase;
        } else if (gain_ratio > kGoodGain) {
          lambda = std::max(lambda / options.damping_decrease,
                            options.min_damping);
        }
        mu = damping();
        if (cost < best_cost) {
          best_cost = cost;
          view(w.best_q) = const_view(w.q);
        }
        if (options.common.record_trace) scope.Trace(iterations, w.q, cost);
        // The workspace's FK is at the accepted point: test it as is (Trace
        // ran FK at the same q).
        if (within_tolerance()) return SolveStatus::kConverged;
        if (moved <=
            1e-14 * (1.0 + const_view(w.q).template lpNorm<Eigen::Infinity>())) {
          return SolveStatus::kUnreachable;
        }
      } else {
        lambda *= options.damping_increase;
        if (lambda > options.max_damping) return SolveStatus::kUnreachable;
        mu = damping();
      }
      if (!may_stall) continue;
      // A first step that leaves most of the residual: a start outside the
      // basin of a solution, or one that will end on the limits.
      if (attempt_iterations == 1 && first_step_test &&
          std::sqrt(2.0 * cost) > options.first_step_ratio * initial_norm) {
        return SolveStatus::kUnreachable;
      }
      // Pressing on a bound (a coordinate held this iteration) without
      // progress: such attempts end in a local minimum on the bound.
      if (attempt_iterations >= kBoundStallIterations &&
          cost > options.bound_stall_ratio * cost_two_back && any_held) {
        return SolveStatus::kUnreachable;
      }
      cost_two_back = cost_one_back;
      cost_one_back = cost;
      if (++since_reference >= options.stall_iterations) {
        const double norm = std::sqrt(2.0 * cost);
        if (norm > options.stall_ratio * stall_reference) {
          return SolveStatus::kUnreachable;
        }
        stall_reference = norm;
        since_reference = 0;
      }
    }
  };

  // ½‖R(q)‖² alone, to rank candidate start points.
  const auto cost_at = [&](const Eigen::VectorXd& q) {
    ++result.function_evaluations;
    if constexpr (kFixed) {
      if (kernel) return kernel->Cost(q.data());
    }
    problem.EvaluateResiduals(q, scope.workspace(), *w.trial_residual, nullptr);
    return 0.5 * w.trial_residual->squaredNorm();
  };

  // A random restart point into w.q. On the kernel path: the lowest-cost
  // point of the restart pool (restart_pool.h) not yet tried in this solve,
  // the pool ranked for this target at the first random restart. Otherwise,
  // and once the pool is spent: the lowest-cost of restart_candidates fresh
  // draws, from a generator seeded at its first draw (seeding a
  // std::mt19937_64 is ~2,000 instructions, and most solves never draw) that
  // continues the pool's sequence (one engine value per coordinate drawn),
  // so no pool point is drawn again.
  std::shared_ptr<const internal::RestartPool> pool;
  std::vector<double> pool_costs;  // +∞ once tried
  int pool_tried = 0;
  const auto restart_point = [&] {
    if constexpr (kFixed) {
      if (kernel && pool_tried < options.restart_pool) {
        if (pool == nullptr) {
          pool = internal::RestartPool::Get(
              problem.shared_model(), kernel->site(), lower, upper,
              options.seed, options.restart_pool,
              [&](const double* q, double* pose) {
                kernel->SitePose(q, pose);
              });
          pool_costs.resize(pool->size());
          kernel->PoolCosts(*pool, pool_costs.data());
        }
        const int best = static_cast<int>(
            std::min_element(pool_costs.begin(), pool_costs.end()) -
            pool_costs.begin());
        pool_costs[best] = kInfinity;
        ++pool_tried;
        std::copy(pool->q(best), pool->q(best) + n, w.q.data());
        return;
      }
    }
    if (rng == nullptr) {
      rng = std::make_unique<std::mt19937_64>(options.seed);
      if (pool != nullptr) rng->discard(std::uint64_t(pool->size()) * n);
    }
    internal::DrawUniform(lower, upper, rng.get(), &w.q);
    if (options.restart_candidates == 1) return;
    double lowest = cost_at(w.q);
    for (int c = 1; c < options.restart_candidates; ++c) {
      if constexpr (N == Eigen::Dynamic) {
        if (scope.OutOfTime()) break;  // an evaluation of a long chain
      }
      internal::DrawUniform(lower, upper, rng.get(), &w.trial_q);
      const double cost = cost_at(w.trial_q);
      if (cost < lowest) {
        lowest = cost;
        w.q.swap(w.trial_q);
      }
    }
  };

  SolveStatus status = SolveStatus::kUnreachable;
  int attempt = 0;
  while (attempt < options.max_attempts && status == SolveStatus::kUnreachable) {
    if (!FixedStartingPoint(attempt++, scope.start(), lower, upper, &w.q)) {
      restart_point();
    }
    status = run_attempt(/*may_stall=*/true,
                         /*first_step_test=*/attempt <=
                             options.first_step_attempts);
  }
  if (status == SolveStatus::kUnreachable) {
    // Every attempt stalled: the goal is likely out of reach (or blocked by
    // the limits). Polish the best pose to stationarity so the best effort
    // is the closest point, not wherever the last restart gave up.
    w.q = w.best_q;
    status = run_attempt(/*may_stall=*/false, /*first_step_test=*/false);
  }
  if (status == SolveStatus::kConverged) {
    w.best_q = w.q;
    // The last evaluation and stopping test were at w.q: Finish takes their
    // potential and goal errors instead of evaluating the pose again.
    scope.SetFinalEvaluation(&w.best_q, 0.5 * w.residual->squaredNorm(),
                             errors);
  }
  std::string message;
  result.iterations = iterations;
  result.attempts = attempt;
  switch (status) {
    case SolveStatus::kConverged:
      // The common outcome: no std::ostringstream (StrCat), whose set-up
      // alone costs ~4,000 instructions, and one allocation.
      message = ConvergedMessage(iterations, result.attempts);
      break;
    case SolveStatus::kMaxIterations:
      message = StrCat("stopped at max_iterations = ",
                       options.common.max_iterations, " over ",
                       result.attempts, " attempt(s)");
      break;
    case SolveStatus::kTimeBudget:
      message = StrCat("time budget of ", options.common.time_budget_seconds,
                       " s spent over ", result.attempts, " attempt(s)");
      break;
    default:
      message = StrCat("no attempt converged in ", options.max_attempts,
                       " attempts; best effort returned");
      break;
  }
  return scope.Finish(w.best_q, status, std::move(message));
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

std::unique_ptr<Solver> MakeSolver(const BoundedLmOptions& options) {
  return std::make_unique<BoundedLmSolver>(options);
}

}  // namespace iklab
