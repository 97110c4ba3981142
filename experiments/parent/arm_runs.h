#ifndef IKLAB_EXPERIMENTS_PARENT_ARM_RUNS_H_
#define IKLAB_EXPERIMENTS_PARENT_ARM_RUNS_H_

/// @file
/// The common set-up of Parent's Figs. 5.20–5.25 (§5.3.3): the 15/10/5 arm,
/// start {π/8, π/4, π/4}, 21 frames (0 … 20) of linearly interpolated goals,
/// one Euler step of the differential method per frame, the solver options
/// used by those experiments, and their 3D scene.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "framework/builders.h"
#include "lab/experiment.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"
#include "lab/scene.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/differential/pseudo_inverse_solver.h"

namespace iklab {

/// DLS damping λ of the Parent experiments (our choice; length units).
inline constexpr double kParentDamping = 1.0;
/// Frames solved after frame 0 (21 frames in all).
inline constexpr int kParentSteps = 20;

struct ParentSetup {
  std::shared_ptr<const Model> model;
  Eigen::VectorXd q0;
  Eigen::Vector2d start;
  Eigen::Vector2d goal;
};

inline ParentSetup ParentStandardSetup(const Eigen::Vector2d& goal) {
  ParentSetup setup;
  setup.model = std::make_shared<const Model>(ParentArm().Compile());
  setup.q0 = Eigen::Vector3d(M_PI / 8, M_PI / 4, M_PI / 4);
  setup.start =
      SitePoint(*setup.model, setup.q0, setup.model->SiteIndex("effector"));
  setup.goal = goal;
  return setup;
}

inline void RecordParentParameters(const ParentSetup& setup,
                                   ExperimentOutput* out) {
  out->SetParameter("link_lengths", {15, 10, 5});
  out->SetParameter("initial_pose_rad", {setup.q0[0], setup.q0[1], setup.q0[2]});
  out->SetParameter("goal", {setup.goal.x(), setup.goal.y()});
  out->SetParameter("frames", kParentSteps + 1);
  out->SetParameter("steps_per_frame", 1);
  out->SetParameter("effector_start", {setup.start.x(), setup.start.y()});
}

/// One raw step per frame: no best-iterate selection, no limits.
template <typename Options>
Options OneStepPerFrame(Options options) {
  options.common.max_iterations = 1;
  options.common.respect_limits = false;
  options.step.return_best = false;
  return options;
}

inline std::unique_ptr<Solver> ParentPseudoInverse() {
  return MakeSolver(OneStepPerFrame(PseudoInverseOptions{}));
}

inline std::unique_ptr<Solver> ParentDls(double damping) {
  DampedLeastSquaresOptions options;
  options.damping = damping;
  return MakeSolver(OneStepPerFrame(options));
}

inline PlanarTrack RunParentTrack(const Solver& solver,
                                  const ParentSetup& setup) {
  return TrackLine(solver, setup.model, "effector", setup.q0, setup.goal,
                   kParentSteps);
}

/// frame, q…, effector x y, goal x y, joint jump.
inline void WriteTrackCsv(const PlanarTrack& track, const std::string& name,
                          ExperimentOutput* out) {
  std::vector<std::string> header = {"frame"};
  const int nq = static_cast<int>(track.q[0].size());
  for (int i = 0; i < nq; ++i) header.push_back("q" + std::to_string(i));
  for (const char* h : {"effector_x", "effector_y", "goal_x", "goal_y",
                        "max_joint_jump"}) {
    header.push_back(h);
  }
  const std::vector<double> jumps = JointJumps(track.q);
  std::vector<std::vector<double>> rows;
  for (std::size_t k = 0; k < track.q.size(); ++k) {
    std::vector<double> row = {static_cast<double>(k)};
    for (int i = 0; i < nq; ++i) row.push_back(track.q[k][i]);
    row.insert(row.end(), {track.effector[k].x(), track.effector[k].y(),
                           track.goal[k].x(), track.goal[k].y(), jumps[k]});
    rows.push_back(row);
  }
  out->WriteCsv(name, header, rows);
}

/// One run of a Parent scene: its label and its frames.
struct ParentSceneRun {
  std::string label;
  const PlanarTrack* track = nullptr;
};

/// Writes `file` in out->dir(): the arm (x–y plane, y up) animated over the
/// frames of every run of `runs` overlaid (PaletteColor by order, start pose
/// grey), each run's effector path, the goal line and the moving goal, and
/// the arm's reach circle (radius 30); a table of each run's distance to the
/// frame's goal and largest joint jump. Registers it with `caption`.
inline void WriteParentScene(const ParentSetup& setup,
                             const std::vector<ParentSceneRun>& runs,
                             const std::string& title, const std::string& file,
                             const std::string& caption, ExperimentOutput* out) {
  const Model& model = *setup.model;
  Scene scene(title, "length units",
              Eigen::Vector3d::UnitY());
  const double extent = FigureExtent(model, setup.q0);
  const int figure = scene.AddFigure(model, "15/10/5 arm", 0.02 * extent);
  std::vector<SceneMotion> motions;
  std::vector<std::vector<std::string>> rows;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const PlanarTrack& track = *runs[r].track;
    motions.push_back(
        {runs[r].label, PaletteColor(static_cast<int>(r)), track.q});
    const std::vector<double> errors = TrackingErrors(track);
    const std::vector<double> jumps = JointJumps(track.q);
    rows.push_back({runs[r].label,
                    FormatNumber(*std::max_element(errors.begin(), errors.end()), 3),
                    FormatNumber(errors.back(), 3),
                    FormatNumber(*std::max_element(jumps.begin(), jumps.end()), 3)});
  }
  std::vector<std::vector<Eigen::Vector3d>> goals;
  for (const Eigen::Vector2d& g : runs.front().track->goal) {
    goals.push_back({Eigen::Vector3d(g.x(), g.y(), 0.0)});
  }
  SceneView& view = AddMotionView(title, figure, motions, {"effector"}, goals,
                                  0.03 * extent, 0.25, &scene);
  std::vector<Eigen::Vector3d> circle;
  for (int k = 0; k < 96; ++k) {
    circle.push_back(30.0 * Eigen::Vector3d(std::cos(2 * M_PI * k / 96),
                                            std::sin(2 * M_PI * k / 96), 0.0));
  }
  view.AddPath(circle, true, "reach (30)", "#bbbbbb");
  view.SetTable({"run", "largest distance to the frame's goal",
                 "final distance", "largest joint jump (rad)"},
                std::move(rows));
  scene.Write(out->dir() / file);
  out->AddScene(file, caption);
}

}  // namespace iklab

#endif  // IKLAB_EXPERIMENTS_PARENT_ARM_RUNS_H_
