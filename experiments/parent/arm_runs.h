#ifndef IKLAB_EXPERIMENTS_PARENT_ARM_RUNS_H_
#define IKLAB_EXPERIMENTS_PARENT_ARM_RUNS_H_

/// @file
/// The common set-up of Parent's Figs. 5.20–5.25 (§5.3.3): the 15/10/5 arm,
/// start {π/8, π/4, π/4}, 21 frames (0 … 20) of linearly interpolated goals,
/// one Euler step of the differential method per frame, and the solver
/// options used by those experiments.

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "framework/builders.h"
#include "lab/experiment.h"
#include "lab/planar_tracking.h"
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

}  // namespace iklab

#endif  // IKLAB_EXPERIMENTS_PARENT_ARM_RUNS_H_
