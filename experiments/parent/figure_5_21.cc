// Parent, "Computer Animation: Algorithms and Techniques", §5.3.3, Fig. 5.21:
// the pseudo-inverse (a) without and (b) with damped least squares when the
// goal (−35, 5) is out of reach of the 15/10/5 arm (reach 30); start
// {π/8, π/4, π/4}, 21 frames of linearly interpolated goals; frames 0, 10,
// 18, 19, 20 shown.
//
// Paper's claim: "better behavior when damped as the linkage approaches the
// limits of its reach" (picture only).
// Metric: the joint-angle jump per frame, max_i |q_k,i − q_{k−1},i|, over all
// frames and over the last frames 15 … 20 where the arm nears full stretch.
// Acceptance: the damped run's largest jump is smaller than the undamped
// run's, and the undamped run's largest jump happens near the reach limit.
//
// Parameters we chose: one Euler step per frame (as Fig. 5.20), DLS λ = 1.

#include <algorithm>
#include <cmath>

#include "lab/experiment.h"
#include "experiments/experiments_list.h"
#include "experiments/parent/arm_runs.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"

namespace iklab {

namespace {

void RunParentFigure521(const ExperimentContext& context,
                        ExperimentOutput* out) {
  const ParentSetup setup = ParentStandardSetup(Eigen::Vector2d(-35, 5));
  RecordParentParameters(setup, out);
  out->SetParameter("dls_damping", kParentDamping);
  out->SetParameter("reach", 30.0);

  context.Progress(0.0, "pseudo-inverse");
  const PlanarTrack plain = RunParentTrack(*ParentPseudoInverse(), setup);
  context.Progress(0.5, "damped least squares");
  const PlanarTrack damped =
      RunParentTrack(*ParentDls(kParentDamping), setup);
  WriteTrackCsv(plain, "fig_5_21_a_pseudo_inverse.csv", out);
  WriteTrackCsv(damped, "fig_5_21_b_dls.csv", out);

  WriteParentScene(setup,
                   {{"(a) pseudo-inverse", &plain},
                    {"(b) damped least squares", &damped}},
                   "Fig. 5.21: goal (-35, 5), out of reach",
                   "fig_5_21_scene.json",
                   "Both runs in 3D, overlaid: play to frames 18-20, where the "
                   "goal leaves the reach circle (grey) and the undamped arm "
                   "jumps while the damped one stretches smoothly.",
                   out);
  const std::vector<int> frames = {0, 10, 18, 19, 20};
  DrawLinePlot(TrackPlot(*setup.model, plain, frames,
                         "Fig. 5.21 (a) pseudo-inverse, goal (-35, 5): "
                         "frames 0, 10, 18, 19, 20"),
               out->dir(), "fig_5_21_a_pseudo_inverse");
  out->AddFigure("fig_5_21_a_pseudo_inverse.png",
                 "(a) without damping: the arm at frames 0, 10, 18, 19, 20");
  DrawLinePlot(TrackPlot(*setup.model, damped, frames,
                         "Fig. 5.21 (b) damped least squares, goal (-35, 5): "
                         "frames 0, 10, 18, 19, 20"),
               out->dir(), "fig_5_21_b_dls");
  out->AddFigure("fig_5_21_b_dls.png",
                 "(b) with damping: the arm at frames 0, 10, 18, 19, 20");

  const std::vector<double> jp = JointJumps(plain.q);
  const std::vector<double> jd = JointJumps(damped.q);
  LinePlot jumps;
  jumps.title = "Fig. 5.21: largest joint-angle change per frame";
  jumps.x_label = "frame";
  jumps.y_label = "max_i |q_k,i - q_k-1,i| (rad)";
  jumps.key = "top left";
  for (int r = 0; r < 2; ++r) {
    Series s;
    s.title = r == 0 ? "(a) pseudo-inverse" : "(b) DLS, lambda = 1";
    s.style = "linespoints";
    const std::vector<double>& j = r == 0 ? jp : jd;
    for (std::size_t k = 1; k < j.size(); ++k) {
      s.x.push_back(static_cast<double>(k));
      s.y.push_back(j[k]);
    }
    jumps.series.push_back(s);
  }
  DrawLinePlot(jumps, out->dir(), "fig_5_21_joint_jumps");
  out->AddFigure("fig_5_21_joint_jumps.png",
                 "Joint-angle jump per frame, without and with damping");

  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = 1; k < jp.size(); ++k) {
    rows.push_back({std::to_string(k), FormatNumber(jp[k], 4),
                    FormatNumber(jd[k], 4),
                    FormatNumber((plain.effector[k] - plain.goal[k]).norm(), 4),
                    FormatNumber((damped.effector[k] - damped.goal[k]).norm(),
                                 4)});
  }
  out->AddTable("Per frame: largest joint jump (rad) and distance to the "
                "frame's goal",
                {"frame", "jump, pseudo-inverse", "jump, DLS",
                 "error, pseudo-inverse", "error, DLS"},
                rows, "fig_5_21_per_frame.csv");

  const auto max_from = [](const std::vector<double>& v, std::size_t first) {
    return *std::max_element(v.begin() + first, v.end());
  };
  const double plain_max = max_from(jp, 1);
  const double damped_max = max_from(jd, 1);
  const auto plain_at = static_cast<int>(
      std::max_element(jp.begin() + 1, jp.end()) - jp.begin());
  const double plain_late = max_from(jp, 15);
  const double damped_late = max_from(jd, 15);
  const bool better = damped_max < plain_max && damped_late < plain_late;
  out->AddClaim(
      {"Damping behaves better near the limit of reach (smaller joint-angle "
       "jumps per frame)",
       "better behaviour when damped near the reach limit (picture only)",
       "largest jump: pseudo-inverse " + FormatNumber(plain_max, 3) +
           " rad (frame " + std::to_string(plain_at) + "), DLS " +
           FormatNumber(damped_max, 3) + " rad; frames 15-20: " +
           FormatNumber(plain_late, 3) + " vs " + FormatNumber(damped_late, 3) +
           " rad",
       better ? Verdict::kReproduced : Verdict::kDiffers,
       better ? "the damped run's largest jumps are smaller, overall and in "
                "frames 15-20"
              : "the damped run's jumps are not smaller than the undamped "
                "run's"});
  const bool near_limit = plain_at >= 15;
  out->AddClaim(
      {"Without damping the misbehaviour appears as the arm approaches full "
       "stretch",
       "frames 18-20 misbehave without damping (picture)",
       "undamped largest jump at frame " + std::to_string(plain_at) +
           ", distance of the base to the frame's goal there " +
           FormatNumber(plain.goal[plain_at].norm(), 3) + " (reach 30)",
       near_limit ? Verdict::kReproduced : Verdict::kDiffers,
       near_limit ? "the largest undamped jump is in frames 15-20"
                  : "the largest undamped jump is before frame 15"});
}

}  // namespace

void AddParentFigure521(std::vector<Experiment>* experiments) {
  experiments->push_back(
      {"parent-fig-5.21",
       "Damping near the limit of reach (goal out of reach)",
       "Parent, Computer Animation, §5.3.3, Fig. 5.21", RunParentFigure521});
}

}  // namespace iklab
