#ifndef IKLAB_LAB_PLANAR_TRACKING_H_
#define IKLAB_LAB_PLANAR_TRACKING_H_

/// @file
/// Helpers shared by the planar reproduction experiments (Parent §5.3,
/// Šoch & Lórencz, the NLP paper): follow a straight goal path frame by frame
/// with any solver, measure how the effector and the joints behaved, and
/// draw the figure at chosen frames.

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"
#include "lab/plot.h"
#include "framework/model.h"
#include "solvers/solver.h"

namespace iklab {

/// One frame-by-frame run: frame 0 is the start pose, frames 1 … N solved.
struct PlanarTrack {
  std::vector<Eigen::VectorXd> q;         ///< N + 1 poses.
  std::vector<Eigen::Vector2d> effector;  ///< Effector x, y per frame.
  std::vector<Eigen::Vector2d> goal;      ///< Goal per frame (frame 0: start).
  std::vector<Result> results;            ///< N solver results.
};

/// Follows the straight line from the effector's start position to `end` in
/// `num_frames` equal steps (SolveTrajectory), each frame solved by `solver`
/// from the previous pose. The problem has one PositionGoal on `site`.
PlanarTrack TrackLine(const Solver& solver, std::shared_ptr<const Model> model,
                      const std::string& site, const Eigen::VectorXd& q0,
                      const Eigen::Vector2d& end, int num_frames);

/// Largest distance of `points` from the segment a–b.
double MaxDistanceToSegment(const std::vector<Eigen::Vector2d>& points,
                            const Eigen::Vector2d& a, const Eigen::Vector2d& b);

/// Per frame k ≥ 1: max_i |q_k,i − q_{k−1},i| (radians); entry 0 is 0.
std::vector<double> JointJumps(const std::vector<Eigen::VectorXd>& q);

/// Effector-to-goal distance per frame.
std::vector<double> TrackingErrors(const PlanarTrack& track);

/// World x, y of a site at q.
Eigen::Vector2d SitePoint(const Model& model, const Eigen::VectorXd& q,
                          int site);

/// Which world plane a picture shows: x–y (planar figures, and a 3D
/// figure's top view) or x–z / y–z (side views).
enum class Projection { kXY, kXZ, kYZ };

/// The figure drawn at q as one line series: a segment from each step's
/// origin to its parent's (where they differ) and to each site, joints
/// marked (style linespoints, NaN breaks between segments).
Series LinkageSeries(const Model& model, const Eigen::VectorXd& q,
                     const std::string& title, const std::string& color,
                     Projection projection = Projection::kXY);

/// An equal-axes picture (x–y unless `projection` says otherwise) titled
/// `title` with the figure drawn at
/// poses[k] for each k of `frames` (one palette colour per frame, legend
/// outside on the right); callers add their paths and targets.
LinePlot LinkageFramesPlot(const Model& model,
                           const std::vector<Eigen::VectorXd>& poses,
                           const std::vector<int>& frames,
                           const std::string& title,
                           Projection projection = Projection::kXY);

/// An equal-axes picture of `track`: the figure at each of `frames`, the
/// effector's path and the goal path (dashed), legend outside on the right.
LinePlot TrackPlot(const Model& model, const PlanarTrack& track,
                   const std::vector<int>& frames, const std::string& title);

}  // namespace iklab

#endif  // IKLAB_LAB_PLANAR_TRACKING_H_
