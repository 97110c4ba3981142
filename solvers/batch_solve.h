#ifndef IKLAB_SOLVERS_BATCH_SOLVE_H_
#define IKLAB_SOLVERS_BATCH_SOLVE_H_

/// @file
/// Batch solving: one solver over many targets (or many problems) on several
/// threads. Each item is an independent solve from its own start q0[i], and
/// writes only its own slot, so the answers do not depend on the thread count
/// or on scheduling: the same inputs give bit-identical q on 1 or 8 threads
/// (as long as the solver has no wall-clock budget — a budget makes any solve
/// depend on the machine's speed, threaded or not).
///
///     BatchOptions options;
///     options.threads = 4;
///     // targets: B x 7 rows (x y z qw qx qy qz); q0: B x nq starts.
///     BatchResult r = SolveBatch(solver, problem, targets, q0, options);
///
/// This is the loop behind the Python module's `solve_batch`.

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "constraints/problem.h"
#include "framework/model.h"
#include "solvers/solver.h"

namespace iklab {

/// Row-major matrix: one item per row (the layout of a NumPy array).
using RowMatrixXd =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Options of SolveBatch.
struct BatchOptions {
  /// Worker threads, ≥ 1 (the calling thread is one of them; the rule of
  /// CheckThreadCount, framework/validate.h). More threads than items or
  /// than MaxWorkerThreads() are not started; a thread the system refuses
  /// to start makes SolveBatch throw std::runtime_error.
  int threads = 1;
  /// Index of the goal of the template problem whose target each row of the
  /// targets replaces; −1: the first goal of a fitting kind (a
  /// PositionOrientationGoal for poses, a PositionGoal for positions).
  int goal = -1;
  /// Solve with the SIMD batch solver (solvers/batch/simd_lm.h: several
  /// problems at once across vector lanes) when it applies: the target
  /// form of SolveBatch, a BoundedLmSolver, a template problem of that one
  /// goal on a serial chain of ≤ 8 coordinates (SimdLmApplies). Otherwise,
  /// or when false, each item is a scalar solve; BatchResult::method says
  /// which ran and why.
  bool simd = true;

  /// True if the fields are in range; otherwise says why.
  bool IsValid(std::string* why) const;
};

/// Per-item outcomes of a batch, in item order.
struct BatchResult {
  RowMatrixXd q;                        ///< B × nq answers.
  std::vector<SolveStatus> status;      ///< B statuses.
  Eigen::VectorXd position_error;       ///< B largest goal position errors.
  Eigen::VectorXd angle_error;          ///< B largest goal angle errors, rad.
  Eigen::VectorXd microseconds;         ///< B wall times of the solve calls.
  Eigen::VectorXi iterations;           ///< B iteration counts.
  /// "simd-bounded-lm (<instruction set>, <lanes> lanes)" when the SIMD
  /// batch solver ran (microseconds then holds each item's share of its
  /// chunk's wall time), else "scalar" with the reason the SIMD solver was
  /// not used ("scalar: ...").
  std::string method;
};

/// Solves `problem` once per row of `targets`, with the chosen goal's target
/// replaced by that row, from start q0.row(i).
///
/// @param targets B × 7 (position x y z, then the unit quaternion w x y z:
///   replaces a PositionOrientationGoal's target) or B × 3 (a PositionGoal's
///   position). Quaternions are normalized; a zero or non-finite one is
///   rejected.
/// @param q0 B × nq start configurations.
/// @throws std::invalid_argument naming the argument on wrong shapes, no
///   fitting goal, non-finite values or invalid options.
BatchResult SolveBatch(const Solver& solver, const Problem& problem,
                       const Eigen::Ref<const RowMatrixXd>& targets,
                       const Eigen::Ref<const RowMatrixXd>& q0,
                       const BatchOptions& options = {});

/// Solves problems[i] from q0.row(i) for every i (any goals, one problem per
/// item; all must have the same nq).
/// @throws std::invalid_argument on a null problem or wrong shapes.
BatchResult SolveBatch(const Solver& solver,
                       const std::vector<std::shared_ptr<const Problem>>& problems,
                       const Eigen::Ref<const RowMatrixXd>& q0,
                       const BatchOptions& options = {});

}  // namespace iklab

#endif  // IKLAB_SOLVERS_BATCH_SOLVE_H_
