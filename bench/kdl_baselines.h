#ifndef IKLAB_BENCH_KDL_BASELINES_H_
#define IKLAB_BENCH_KDL_BASELINES_H_

/// @file
/// Orocos KDL's position IK solvers as baselines of the standard IK benchmark
/// (ik_benchmark.h): `ChainIkSolverPos_LMA` ("kdl-lma") and
/// `ChainIkSolverPos_NR_JL` with `ChainIkSolverVel_pinv` ("kdl-nr-jl"), run on
/// the same targets, tolerance, time budget and independent verification as
/// iklab's solvers. Built only when CMake finds `orocos_kdl` (Debian
/// liborocos-kdl-dev); the macro IKLAB_HAVE_KDL is then defined.
///
/// The KDL chain is built from the iklab Model itself (MakeKdlChain), not from
/// a second URDF parser, so both libraries solve the very same kinematics.
///
/// Protocol for KDL (as TRAC-IK's "KDL with random restarts"): KDL's solvers
/// have no time limit of their own, so each solve runs KDL's CartToJnt from
/// the benchmark seed and, while KDL reports failure and the time budget
/// remains, again from a pose drawn uniformly within the limits. KDL's
/// answers are returned unmodified: no clamping, no angle wrapping, no limit
/// check here. The benchmark's Verify decides success, so an LMA answer
/// outside the limits (LMA ignores them) counts as a failure.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cstdint>
#include <kdl/chain.hpp>
#include <memory>
#include <vector>

#include "bench/ik_benchmark.h"
#include "framework/model.h"
#include "solvers/solver.h"

namespace iklab {

/// A KDL chain equivalent to the path root → `site` of a Model.
struct KdlChain {
  KDL::Chain chain;
  /// coordinates[k]: the model coordinate (index into q) of KDL joint k.
  std::vector<int> coordinates;
};

/// Builds the KDL chain of the steps from the model's root to `site`.
///
/// Each revolute/prismatic step becomes one segment whose joint rotates about
/// (or slides along) the step's axis through the segment's origin
/// (`Joint::RotAxis`/`TransAxis`, as kdl_parser builds them); the segment's
/// tip frame is the product of the constant transforms X_PJ up to the next
/// moving step (fixed steps are merged into it), and the last one ends with
/// the site's X_FS. A leading fixed segment carries the transforms before the
/// first moving step when they are not the identity. So KDL's FK of the chain
/// at q equals iklab's SitePose at q (tested to 1e-12).
/// @throws std::invalid_argument if `site` is out of range or the path does
///   not drive every coordinate of the model (the KDL baseline needs the
///   model to be one serial chain ending at the site).
KdlChain MakeKdlChain(const Model& model, int site);

/// Which KDL position solver.
enum class KdlMethod {
  /// ChainIkSolverPos_LMA: Levenberg–Marquardt on the weighted pose error,
  /// ignores joint limits.
  kLma,
  /// ChainIkSolverPos_NR_JL: Newton–Raphson with ChainIkSolverVel_pinv steps,
  /// clamping to the joint limits after each step.
  kNrJl,
};

/// Settings of a KDL baseline. KDL's own parameters are fixed in the .cc at
/// KDL's defaults except the accuracy `eps`, which is derived from
/// `tolerance` so that KDL's success test implies the benchmark's (stated
/// there).
struct KdlOptions {
  KdlMethod method = KdlMethod::kLma;
  /// Wall time per solve over all restarts, seconds; > 0 restarts from
  /// random poses while KDL fails and time remains, ≤ 0 makes one attempt.
  double time_budget_seconds = 0.005;
  /// Benchmark tolerance per position (m) and rotation-vector (rad)
  /// component.
  double tolerance = 1e-5;
  /// Seed of the std::mt19937_64 drawing restart poses; reseeded on every
  /// solve, so a target's answer does not depend on the thread or order.
  std::uint64_t seed = 1;
};

/// One KDL solver with its chain, for one thread: KDL's solver objects keep
/// scratch state (and references to the chain), so Solve is not const and
/// an instance must not be shared between threads.
class KdlBaselineSolver {
 public:
  /// Longest chain the adapters accept. A KDL attempt cannot be interrupted,
  /// and its cost per step grows with the chain (ChainIkSolverVel_pinv's SVD
  /// keeps an n × n factor: minutes per attempt on 10,000 joints), so
  /// longer chains are refused (kInvalidInput) rather than let a solve run
  /// far past its budget.
  static constexpr int kMaxJoints = 100;

  /// @throws std::invalid_argument as MakeKdlChain, or for a non-positive
  ///   tolerance.
  KdlBaselineSolver(std::shared_ptr<const Model> model, int site,
                    const KdlOptions& options);
  ~KdlBaselineSolver();
  KdlBaselineSolver(const KdlBaselineSolver&) = delete;
  KdlBaselineSolver& operator=(const KdlBaselineSolver&) = delete;

  /// "kdl-lma" or "kdl-nr-jl".
  const char* name() const;

  /// Solves for the site pose X_BT (base frame) from `seed` (model order).
  /// Result: status kConverged when KDL reported success (its claim, not
  /// verified here), kTimeBudget when the budget ran out, kMaxIterations
  /// after a single failed attempt without budget, kInvalidInput for a bad
  /// seed, a chain without joints or one longer than kMaxJoints; q is KDL's last answer in model order; iterations are KDL's
  /// (LMA: lastNrOfIter; NR_JL: pinv velocity steps) summed over attempts.
  Result Solve(const Eigen::Isometry3d& X_BT, const Eigen::VectorXd& seed);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The benchmark entries "kdl-lma" and "kdl-nr-jl" (one KdlBaselineSolver
/// per worker thread).
std::vector<BenchmarkSolver> KdlBaselineSolvers();

}  // namespace iklab

#endif  // IKLAB_BENCH_KDL_BASELINES_H_
