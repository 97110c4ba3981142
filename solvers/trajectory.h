#ifndef IKLAB_SOLVERS_TRAJECTORY_H_
#define IKLAB_SOLVERS_TRAJECTORY_H_

/// @file
/// Trajectory mode: follow a goal path frame by frame, each frame solved by
/// any Solver from the previous frame's pose — Parent's 21-frame sequences,
/// and the NLP paper §3's M internal points Y_1 … Y_M between the
/// start effector Y and the target X (solve for Y_1 from Y's pose, then Y_2
/// from Y_1's, …, finally X: num_frames = M + 1).
///
/// A path is a callback that moves the problem's goal targets to frame k at
/// path parameter s = k / num_frames, so every goal kind can be driven (keep
/// a non-const pointer to the goals you add and call their setters).
/// LinearPath / HermitePath and MovePositionGoal cover the common case of a
/// position goal moving from the effector's start position to a target.

#include <functional>
#include <memory>
#include <vector>

#include <Eigen/Core>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab {

/// Moves the goals of `problem` to frame `frame` (1 … num_frames) at path
/// parameter s = frame / num_frames ∈ (0, 1]. Must not add or remove goals
/// (the problem's size must stay fixed).
using GoalPath = std::function<void(int frame, double s, Problem* problem)>;

/// A curve s ∈ [0, 1] → point, from curve(0) = start to curve(1) = end.
using PointPath = std::function<Eigen::Vector3d(double s)>;

/// Straight line p(s) = (1 − s) start + s end: equal steps for equally
/// spaced s (the NLP paper's equally divided segment YX).
PointPath LinearPath(const Eigen::Vector3d& start, const Eigen::Vector3d& end);

/// Cubic Hermite curve from `start` to `end` with end tangents (dp/ds at s =
/// 0 and 1):
///
///     p(s) = h00(s) start + h10(s) start_tangent + h01(s) end + h11(s) end_tangent,
///     h00 = 2s³ − 3s² + 1, h10 = s³ − 2s² + s, h01 = −2s³ + 3s², h11 = s³ − s².
///
/// Zero tangents give the straight line with eased spacing 3s² − 2s³ (start
/// and stop at rest: the NLP paper's "more smooth" internal points).
PointPath HermitePath(const Eigen::Vector3d& start, const Eigen::Vector3d& end,
                      const Eigen::Vector3d& start_tangent =
                          Eigen::Vector3d::Zero(),
                      const Eigen::Vector3d& end_tangent =
                          Eigen::Vector3d::Zero());

/// A GoalPath that sets `goal`'s target to path(s) at each frame.
/// @throws std::invalid_argument if `goal` or `path` is empty.
GoalPath MovePositionGoal(std::shared_ptr<PositionGoal> goal, PointPath path);

/// Solves `num_frames` frames: for k = 1 … num_frames, calls
/// path(k, k / num_frames, problem) and solves from the previous frame's
/// pose (q0 for frame 1). A frame that fails still hands its best-effort
/// pose to the next frame (a kInvalidInput frame hands on the previous pose).
/// @param problem modified by `path`; left at the last frame's targets.
/// @return one Result per frame, in order.
/// @throws std::invalid_argument if problem is null, num_frames < 1 or path
///   is empty.
std::vector<Result> SolveTrajectory(const Solver& solver, Problem* problem,
                                    const Eigen::VectorXd& q0, int num_frames,
                                    const GoalPath& path);

/// "Inverse Jacobian along a path" as one solver (Tolani et al. §3.5,
/// Tables 4–5: the inverse-Jacobian method integrates the effector along a
/// path from its start to the goal). For a problem whose single goal is a
/// PositionGoal or a PositionOrientationGoal, the site follows a cubic
/// Hermite curve with zero end tangents from its pose at q0 to the goal's
/// target (orientation by slerp with the same easing 3s² − 2s³, the
/// rotational part of a screw motion) in `frames` frames, each solved by
/// `inner` from the previous frame's answer (SolveTrajectory); the last
/// frame's target is the goal. Regularizers and bounds are kept.
///
/// The Result is the last frame's (its trace too), with its goal errors
/// recomputed on the original problem and the original problem's initial
/// potential; iterations, evaluations and wall time are totals over the
/// path. The inner solver's time budget applies to each frame, so a path
/// may take up to `frames` budgets. Any other goal set is kInvalidInput.
/// Name "<inner>+path".
class HermitePathSolver final : public Solver {
 public:
  /// @throws std::invalid_argument if `inner` is null or frames < 1.
  HermitePathSolver(std::shared_ptr<const Solver> inner, int frames);
  std::string name() const override;
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  void Prepare(const Problem& problem) const override {
    inner_->Prepare(problem);
  }
  int frames() const { return frames_; }

 private:
  std::shared_ptr<const Solver> inner_;
  int frames_;
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_TRAJECTORY_H_
