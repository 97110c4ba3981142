#ifndef IKLAB_LAB_RETARGETING_H_
#define IKLAB_LAB_RETARGETING_H_

/// @file
/// Motion retargeting by effector positions: the world positions of chosen
/// sites (hands, feet, head, ...) of a motion, frame by frame, re-solved on a
/// skeleton (the motion's own or another one with the same names) with an
/// iklab Solver, each frame warm-started from the previous frame's answer.
/// Used by the `bvh-retargeting` experiment and by `iklab retarget
/// --effectors`; retargeting onto another figure with key points, posture
/// and contacts is lab/motion_retargeting.h.
///
///     BvhFigure clip = LoadBvh("walk.bvh");
///     auto model = std::make_shared<const Model>(clip.figure.Compile());
///     std::vector<std::string> sites = EndSiteNames(clip);
///     auto targets = EffectorTargets(*model, clip.poses, frames, sites);
///     RetargetRun run = Retarget(model, sites, frames, targets, solver,
///                                Eigen::VectorXd::Zero(model->nq()));

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "framework/bvh_loader.h"
#include "framework/model.h"
#include "solvers/solver.h"

namespace iklab {

/// One solved frame. Errors are distances in model units.
struct RetargetFrame {
  int frame = 0;
  double max_error = 0.0;
  double mean_error = 0.0;
  double microseconds = 0.0;
  int iterations = 0;
  bool converged = false;
  /// The solve's status and message (e.g. kNumericalFailure when a target
  /// is too far for double precision).
  SolveStatus status = SolveStatus::kNotSolved;
  std::string message;
};

/// Every solved frame and its joint vector.
struct RetargetRun {
  std::string solver;
  std::vector<RetargetFrame> frames;
  /// Solution per frame (model order).
  std::vector<Eigen::VectorXd> q;
};

/// Positions of `sites` on `model` at the poses of `frames` (rows of
/// `poses`, one coordinate per column): targets[f][s].
/// @throws std::invalid_argument if a site is not a site of `model` (the
///   message lists the sites there are), a frame is not a row of `poses`, or
///   poses has not model.nq() columns.
std::vector<std::vector<Eigen::Vector3d>> EffectorTargets(
    const Model& model, const Eigen::MatrixXd& poses,
    const std::vector<int>& frames, const std::vector<std::string>& sites);

/// Solves every frame: one PositionGoal per site with the frame's targets,
/// `solver` from the previous frame's answer (`start` for the first frame).
/// Timing is wall time of Solver::Solve.
/// @param targets targets[f][s] for frames[f] and sites[s].
/// @throws std::invalid_argument if `model` has no coordinates (a BVH
///   without CHANNELS), a site is not a site of `model`, the sizes of
///   frames, targets and sites disagree, or start has not nq entries.
RetargetRun Retarget(const std::shared_ptr<const Model>& model,
                     const std::vector<std::string>& sites,
                     const std::vector<int>& frames,
                     const std::vector<std::vector<Eigen::Vector3d>>& targets,
                     const Solver& solver, const Eigen::VectorXd& start);

/// The skeleton of `bvh` with each joint's OFFSET (the bone from its parent)
/// and its End Sites multiplied by scale(joint index), and one zero frame:
/// written as BVH text and read back, so its coordinates mean what `bvh`'s
/// do.
/// @throws std::invalid_argument if a scale is not finite.
BvhFigure ScaledSkeleton(const BvhFigure& bvh,
                         const std::function<double(int)>& scale);

/// The sites of the End Sites of `bvh` ("<joint>_End", "<joint>_End2", ...),
/// in file order: the usual effectors (hands, feet, head).
std::vector<std::string> EndSiteNames(const BvhFigure& bvh);

}  // namespace iklab

#endif  // IKLAB_LAB_RETARGETING_H_
