#ifndef IKLAB_SOLVERS_ANALYTIC_TOLANI_TOLANI_SOLVER_H_
#define IKLAB_SOLVERS_ANALYTIC_TOLANI_TOLANI_SOLVER_H_

/// @file
/// The Solver adapter of the Tolani limb solver (Tolani, Goswami & Badler
/// 2000, Tables 2 and 3) on any SRS chain of a Model.

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/analytic/tolani/limb_ik.h"
#include "solvers/analytic/tolani/srs_arm.h"
#include "solvers/first_solve.h"
#include "solvers/solver.h"

namespace iklab {

/// The closed-form options with the solver's conventions: every vector in
/// the arm's base frame, "up" (Eq. 11) = +z.
LimbIkOptions TolaniSolverIkDefaults();

/// Options of the Tolani limb solver.
struct TolaniLimbOptions {
  SolveOptions common;
  /// Swivel choice, desired φ/ψ, aiming θ4, scan sizes (respect_limits is
  /// taken from common). Its vectors (swivel_axis, up_axis) and points
  /// (desired_elbow, desired_wrist) are in the arm's base frame
  /// (SrsArm::base_step()), and turned into the limb frame at each solve.
  LimbIkOptions ik = TolaniSolverIkDefaults();
  /// Wrist angles of position-only and aiming goals (the paper: "chosen by
  /// the user").
  enum class WristAngles {
    kMidLimits,  ///< Middle of the wrist limits (repeatable).
    kStart,      ///< Those of q0 (clamped into the bounds).
    kGiven,      ///< `wrist_angles` below.
  };
  WristAngles wrist = WristAngles::kMidLimits;
  Eigen::Vector3d wrist_angles = Eigen::Vector3d::Zero();
  /// Run the Table 3 fallback (the reduced problem, or L-BFGS-B on the
  /// whole problem where it does not apply) when no analytic solution
  /// exists. When false the best analytic effort is returned as is.
  bool fallback = true;
  /// Geometry tolerance of SrsArm::Create, in (0, 1e-3].
  double geometry_tolerance = SrsArm::kDefaultTolerance;

  bool IsValid(std::string* why) const;
};

/// Tolani's analytic 7-DOF limb IK through the common interface, on the SRS
/// chain (SrsArm) that ends at the goals' site: a robot like the KUKA
/// iiwa14, a LimbFigure, or a limb of HumanFigure (the coordinates before
/// the limb keep the start pose's values). The goals are one of
///   * a PositionOrientationGoal (position + orientation),
///   * a PositionGoal (position only; wrist angles per options.wrist),
///   * a PositionGoal and an AxisGoal on the same site (partial
///     orientation, §3.3),
///   * an AimingGoal (aiming, §3.4; wrist angles per options.wrist),
/// all on a site of the arm's last link. Anything else, or a chain that is
/// not SRS, is kInvalidInput with the reason. Regularizers are ignored. The
/// bounds are the problem's (ignored when respect_limits is false). The arm
/// and the task kind are read once per model and goal layout (in Prepare,
/// or at the first solve) and kept.
///
/// Methods (Tables 2 and 3): closed form when an admissible solution
/// exists; with limits, partial orientation and aiming scan their second
/// parameter and then run the 2-variable optimization of the paper; when
/// nothing admissible exists (unreachable or limits-infeasible) and
/// options.fallback: for a position + orientation goal with limits,
/// Table 3's reduced problem (TolaniLimbIk::ApproximatePose: L-BFGS-B over
/// φ and the wrist angles, the wrist placed as the reach allows); where that
/// does not apply (other goal kinds, or no elbow angle / shoulder swivel
/// within the limits), L-BFGS-B (lbfgsb_solver.h) on the whole potential
/// within the bounds from the best analytic effort. The status is
/// kConverged if the result reaches the tolerance. Otherwise it is the
/// closed form's verdict where that verdict covers the whole problem:
/// kUnreachable from Eq. 5 (pose goals, position goals on the wrist centre)
/// or Eq. 10 (partial orientation, every ψ), kLimitsInfeasible from a pose
/// goal's swivel analysis (no exact solution within the limits). A verdict
/// on a reduced problem — the wrist angles held (other position goals,
/// aiming), a scan of ψ, a limb whose base moves held at the start pose —
/// proves nothing about the problem: the message says "reduced problem
/// (...)" and internal::SolveScope::Finish decides as for any stationary
/// stop (kLocalMinimum, kLimitsInfeasible, or kUnreachable with the reach
/// certificate). The message says which method produced the pose. Without
/// limits an out-of-reach pose goal returns the analytic closest pose.
/// Iterations: 0 for closed form.
/// Name "tolani".
class TolaniLimbSolver final : public Solver {
 public:
  explicit TolaniLimbSolver(TolaniLimbOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "tolani"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  /// Reads and keeps the arm and the task kind of the problem's goals, and
  /// solves once (discarded) to pay the first-solve cost. The first Solve of
  /// an instance on which Prepare was not called calls it, outside its clock.
  void Prepare(const Problem& problem) const override;
  const TolaniLimbOptions& options() const { return options_; }

  /// What the goals ask (decided once per goal layout).
  enum class Task { kPose, kPosition, kPartialOrientation, kAiming };

 private:
  struct Setup;
  // The arm and task for the problem, read on first use and kept (nullptr
  // with the reason when unsupported).
  std::shared_ptr<const Setup> Prepared(const Problem& problem,
                                        std::string* why) const;

  TolaniLimbOptions options_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const Setup> cached_;
  internal::FirstSolve first_solve_;
};

/// TolaniLimbSolver(options).Solve(problem, q0).
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const TolaniLimbOptions& options);
std::unique_ptr<Solver> MakeSolver(const TolaniLimbOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_ANALYTIC_TOLANI_TOLANI_SOLVER_H_
