#ifndef IKLAB_EXPERIMENTS_NLP_RUNS_H_
#define IKLAB_EXPERIMENTS_NLP_RUNS_H_

/// @file
/// Helpers shared by the reproductions of the NLP multi-effector paper
/// ("IK by nonlinear programming (L-BFGS-B), multiple end effectors, damped
/// least squares"; seeds/nlp-ik-lbfgsb-multi-effector.txt): move several
/// position goals along straight segments through internal points, solve
/// each internal point from the previous pose, and draw the planar figure.
///
/// The paper (§3): "divide the segment YX equally — denote the internal points
/// by Y_1 … Y_M — and find [the angles] in sequence for each internal point:
/// initial guess Y and then target Y_1, …, initial guess Y_M and target X".
/// So num_frames = M + 1 solves. "For more smooth behavior" it chooses other
/// internal points (the formula is lost); we take the Hermite spacing
/// 3s² − 2s³ (HermitePath with zero tangents: start and stop at rest).
/// WriteSegmentScene draws runs in 3D for the HTML report.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "lab/experiment.h"
#include "lab/plot.h"
#include "framework/model.h"
#include "solvers/solver.h"

namespace iklab {

/// How the internal points divide each segment start → end.
enum class Spacing {
  /// Equal steps, s_k = k / num_frames (the paper's "divide equally").
  kLinear,
  /// s_k eased by 3s² − 2s³ (the paper's "more smooth" points, our reading).
  kEased,
};

/// One run through the internal points: frame 0 is the start pose.
struct SegmentRun {
  std::vector<Eigen::VectorXd> q;  ///< num_frames + 1 poses.
  /// effector[k][g], target[k][g]: goal g's site and target at frame k
  /// (frame 0: target = start position).
  std::vector<std::vector<Eigen::Vector2d>> effector;
  std::vector<std::vector<Eigen::Vector2d>> target;
  std::vector<Result> results;  ///< num_frames results (frame 1 … N).
};

/// Called before frame k (1 … N) is solved from `q_previous` (e.g. to move a
/// Tikhonov reference to the frame's start pose).
using BeforeFrame =
    std::function<void(int frame, const Eigen::VectorXd& q_previous)>;

/// Moves each of `goals` (already in `problem`) along the straight segment
/// from its site's position at q0 to ends[g], in `num_frames` frames with
/// the given spacing, each frame solved by `solver` from the previous pose.
/// @throws std::invalid_argument if goals and ends differ in size or
///   num_frames < 1.
SegmentRun FollowSegments(const Solver& solver, Problem* problem,
                          const std::vector<std::shared_ptr<PositionGoal>>& goals,
                          const std::vector<Eigen::Vector2d>& ends,
                          const Eigen::VectorXd& q0, int num_frames,
                          Spacing spacing, const BeforeFrame& before = {});

/// The x, y rows of a site's position Jacobian at q (2 × nq): the paper's
/// planar J_i = ∂(x_i, y_i)/∂θ.
Eigen::MatrixXd PlanarJacobian(const Model& model, const Eigen::VectorXd& q,
                               int site);

/// Moore–Penrose pseudo-inverse by a complete orthogonal decomposition with
/// a relative rank threshold (independent of the solvers' SVD kernels, so
/// it can check them).
Eigen::MatrixXd PseudoInverse(const Eigen::MatrixXd& A,
                              double threshold = 1e-10);

/// Largest distance of goal g's effector from its segment over all frames.
double MaxSegmentDeviation(const SegmentRun& run, int g);

/// Largest |effector − target| over all goals at frame k.
double FrameError(const SegmentRun& run, int k);

/// Largest second difference max_i |q_{k+1,i} − 2q_{k,i} + q_{k−1,i}| over
/// frames, with the figure at rest before frame 0 and after the last frame
/// (q_{−1} = q_0, q_{N+1} = q_N): the joint "acceleration" per frame².
double MaxJointAcceleration(const std::vector<Eigen::VectorXd>& q);

/// Largest joint change per frame, max over k and i of |q_{k,i} − q_{k−1,i}|
/// (the largest of JointJumps, lab/planar_tracking.h).
/// @pre q is not empty.
double MaxJointJump(const std::vector<Eigen::VectorXd>& q);

/// A picture of a run: the figure at `frames` (colours by frame), each
/// effector's path (black points) and segment (dashed grey), targets marked.
LinePlot SegmentRunPlot(const Model& model, const SegmentRun& run,
                        const std::vector<int>& frames,
                        const std::string& title);

/// One view of a segment scene: runs of the same frames overlaid.
struct SegmentSceneView {
  std::string name;
  /// (label, run); every run has the same number of frames.
  std::vector<std::pair<std::string, const SegmentRun*>> runs;
  /// Seconds between frames when played.
  double frame_seconds = 0.25;
};

/// Writes `file` in out->dir(): the planar figure (x–y plane, y up) in one
/// view per entry of `views`, each run animated in PaletteColor of its
/// order (AddMotionView, lab/scene.h: start pose grey, the path of each of
/// `sites`, the first run's targets per frame in black, long runs thinned)
/// and a table of each run's largest and final distance to the frame's
/// targets and largest joint change per frame. Registers it with `caption`.
/// @throws std::invalid_argument for a view without runs, runs of
///   different lengths or an unknown site.
void WriteSegmentScene(const Model& model, const std::string& title,
                       const std::vector<SegmentSceneView>& views,
                       const std::vector<std::string>& sites,
                       const std::string& file, const std::string& caption,
                       ExperimentOutput* out);

}  // namespace iklab

#endif  // IKLAB_EXPERIMENTS_NLP_RUNS_H_
