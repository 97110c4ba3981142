#ifndef IKLAB_SOLVERS_BATCH_SIMD_LM_H_
#define IKLAB_SOLVERS_BATCH_SIMD_LM_H_

/// @file
/// Bounded Levenberg–Marquardt over SIMD lanes: several IK problems of one
/// kind (a pose or position goal on a serial chain, different targets and
/// starts) solved at once, one problem per lane of a vector register (4
/// doubles with AVX2, 8 with AVX-512), in structure-of-arrays form.
///
/// The algorithm is bounded_lm_solver.h's, lane by lane: the damped
/// Gauss–Newton step (JᵀJ + μI) Δ_F = −JᵀR on the free coordinates with the
/// active set of Kanzow, Yamashita & Fukushima (2004), the projected trial
/// point, μ = λ‖R‖ (Fan & Yuan 2005), λ by the gain ratio (Madsen, Nielsen &
/// Tingleff 2004, Sec. 2.4), the same three stall tests, full turns of
/// revolute coordinates whose range spans 2π, attempts from q0, the middle
/// of the box, then the restart pool's lowest-cost points (the same pool,
/// restart_pool.h) and fresh best-of-restart_candidates draws, and the
/// polish of the best pose when every attempt gave up. JᵀJ and JᵀR come
/// from the Gauss–Newton factor J̃ of site_goal_kernel.h (EvaluateFactored);
/// the step is solved as the nq × nq system by an LDLᵀ factorization per
/// lane. Each lane carries its own convergence mask: a lane whose problem
/// converged or ended takes the next problem at once, so lanes with
/// different iteration counts do not wait for each other.
///
/// Success rule: the scalar solver's. A lane is converged when its position
/// error ‖p_WT − p_WS‖ ≤ position_tolerance and its rotation angle (of
/// R_WGᵀ R_WS, the goal's own Error formula) ≤ angle_tolerance, both
/// computed in double precision by scalar code at that pose (a vector
/// pre-test with the same thresholds only selects the lanes to check).
/// Iterates stay inside the box (respect_limits), so no answer is outside
/// the limits.
///
/// Determinism: every operation is lane-wise, so a problem's answer depends
/// only on its target, start and the options — not on the batch it is in,
/// the lane it takes, the batch size or the thread count. It is not
/// bit-identical to the scalar solver's (vector sin/cos, a different order
/// of a few products), nor across instruction sets (Highway picks the widest
/// one the machine has at run time; hwy::DisableTargets pins one).
///
/// Not covered (SimdLmApplies says why; callers fall back to the scalar
/// solver): other goals or several goals, regularizers, constraints, an
/// orientation-only goal, chains of more than kMaxCoordinates coordinates,
/// models with mimic joints, a time budget, a trace.

#include <cstdint>
#include <memory>
#include <string>

#include "constraints/problem.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/solver.h"

namespace iklab {

namespace internal {
struct SimdLmPlan;
}  // namespace internal

/// Where one solve of a batch goes (arrays of `count` items, or count × nq
/// for q; row-major). Any pointer but q and status may be null.
struct SimdLmOutput {
  double* q = nullptr;               ///< count × nq answers
  SolveStatus* status = nullptr;     ///< count statuses
  double* position_error = nullptr;  ///< count position errors
  double* angle_error = nullptr;     ///< count angle errors (pose goals), rad
  int* iterations = nullptr;         ///< count iteration counts
  int* attempts = nullptr;           ///< count attempts
};

/// True when SimdBoundedLm can solve `problem` with `options`: exactly one
/// PositionOrientationGoal or PositionGoal and nothing else, a serial chain
/// of at most SimdBoundedLm::kMaxCoordinates coordinates to its site, no
/// time budget and no trace. Otherwise false, and `why` (if not null) says
/// what does not fit.
bool SimdLmApplies(const Problem& problem, const BoundedLmOptions& options,
                   std::string* why);

/// The batch solver for one template problem (its model, site, goal weights
/// and bounds) and options; each item replaces the goal's target.
/// Thread-safe: Solve may run on several threads at once.
class SimdBoundedLm {
 public:
  static constexpr int kMaxCoordinates = 8;

  /// @throws std::invalid_argument if !SimdLmApplies(problem, options) or
  ///   the options are invalid.
  SimdBoundedLm(const Problem& problem, const BoundedLmOptions& options);
  ~SimdBoundedLm();
  SimdBoundedLm(const SimdBoundedLm&) = delete;
  SimdBoundedLm& operator=(const SimdBoundedLm&) = delete;

  /// Columns of a target row: 7 (x y z qw qx qy qz) for a pose goal, 3 for
  /// a position goal.
  int target_columns() const;
  int nq() const;
  /// Doubles per vector on this machine (the lanes of a batch).
  static int Lanes();
  /// The instruction set chosen at run time (e.g. "AVX3", "AVX2").
  static std::string TargetName();

  /// Solves `count` items: item i has target row targets[i·target_columns()
  /// …] (quaternions are normalized) and start q0[i·nq …]. Allocates its
  /// workspace once per call; iterations do not allocate.
  /// @throws std::invalid_argument naming the item on a non-finite target
  ///   or start, or a zero quaternion.
  void Solve(const double* targets, const double* q0, int count,
             const SimdLmOutput& output) const;

 private:
  std::unique_ptr<internal::SimdLmPlan> plan_;
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_BATCH_SIMD_LM_H_
