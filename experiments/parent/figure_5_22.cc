// Parent, "Computer Animation: Algorithms and Techniques", §5.3.3, Fig. 5.22:
// the pseudo-inverse with the null-space control term Δq = J⁺V + (J⁺J − I)z,
// z_i = 2 a_i (q_i − q_ci) (Eq. 5.25–5.31; the
// printed equations are partly garbled, this is their consistent reading), all joints biased to 0, gains {0.1, 0.5, 0.1}
// (top row) vs {0.1, 0.1, 0.5} (bottom row); 15/10/5 arm, start
// {π/8, π/4, π/4}, goal (−20, 5), 21 frames.
//
// Paper's claim: "the joints with increased gain are kept straighter".
// Metric: mean |q_i| over frames 1 … 20 of joint 2 (q1) and joint 3 (q2) in
// each run. Acceptance: joint 2 is straighter (smaller mean |q1|) with gains
// {0.1, 0.5, 0.1} than with {0.1, 0.1, 0.5}, and joint 3 the other way round.
//
// Parameters we chose: one Euler step per frame (as Fig. 5.20).

#include <cmath>

#include "lab/experiment.h"
#include "experiments/experiments_list.h"
#include "experiments/parent/arm_runs.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"

namespace iklab {

namespace {

double MeanAbs(const PlanarTrack& track, int joint) {
  double sum = 0.0;
  for (std::size_t k = 1; k < track.q.size(); ++k) {
    sum += std::abs(track.q[k][joint]);
  }
  return sum / static_cast<double>(track.q.size() - 1);
}

void RunParentFigure522(const ExperimentContext& context,
                        ExperimentOutput* out) {
  const ParentSetup setup = ParentStandardSetup(Eigen::Vector2d(-20, 5));
  RecordParentParameters(setup, out);
  const Eigen::Vector3d gains[2] = {Eigen::Vector3d(0.1, 0.5, 0.1),
                                    Eigen::Vector3d(0.1, 0.1, 0.5)};
  out->SetParameter("gains_top", {0.1, 0.5, 0.1});
  out->SetParameter("gains_bottom", {0.1, 0.1, 0.5});
  out->SetParameter("joint_centers", {0.0, 0.0, 0.0});
  PlanarTrack tracks[2];
  LinePlot angles;
  angles.title = "Fig. 5.22: joint angles per frame";
  angles.x_label = "frame";
  angles.y_label = "joint angle (rad)";
  angles.key = "outside right top";
  for (int r = 0; r < 2; ++r) {
    context.Progress(r / 2.0, "control term");
    ControlTermOptions options;
    options.centers = Eigen::VectorXd::Zero(3);
    options.gains = gains[r];
    tracks[r] = RunParentTrack(*MakeSolver(OneStepPerFrame(options)), setup);
    const std::string tag = r == 0 ? "top_gains_0.1_0.5_0.1"
                                   : "bottom_gains_0.1_0.1_0.5";
    const std::string label = r == 0 ? "gains {0.1, 0.5, 0.1}"
                                     : "gains {0.1, 0.1, 0.5}";
    WriteTrackCsv(tracks[r], "fig_5_22_" + tag + ".csv", out);
    DrawLinePlot(TrackPlot(*setup.model, tracks[r], {0, 5, 10, 15, 20},
                           "Fig. 5.22, " + label + ": frames 0, 5, 10, 15, 20"),
                 out->dir(), "fig_5_22_" + tag);
    out->AddFigure("fig_5_22_" + tag + ".png",
                   "Control term, " + label + ", all joints biased to 0");
    for (int j = 1; j < 3; ++j) {
      Series s;
      s.title = "joint " + std::to_string(j + 1) + ", " + label;
      s.style = "linespoints";
      s.color = PaletteColor(j - 1);
      s.dashed = r == 1;
      for (std::size_t k = 0; k < tracks[r].q.size(); ++k) {
        s.x.push_back(static_cast<double>(k));
        s.y.push_back(tracks[r].q[k][j]);
      }
      angles.series.push_back(s);
    }
  }
  WriteParentScene(setup,
                   {{"gains {0.1, 0.5, 0.1}", &tracks[0]},
                    {"gains {0.1, 0.1, 0.5}", &tracks[1]}},
                   "Fig. 5.22: null-space control term", "fig_5_22_scene.json",
                   "Both gain settings in 3D, overlaid: the effectors follow "
                   "the same line while the joint with the higher gain (joint "
                   "2 for the first colour, joint 3 for the second) stays "
                   "straighter.",
                   out);
  DrawLinePlot(angles, out->dir(), "fig_5_22_joint_angles");
  out->AddFigure("fig_5_22_joint_angles.png",
                 "Joints 2 and 3 per frame (solid: gains {0.1, 0.5, 0.1}; "
                 "dashed: {0.1, 0.1, 0.5})");

  const double j2_top = MeanAbs(tracks[0], 1), j2_bottom = MeanAbs(tracks[1], 1);
  const double j3_top = MeanAbs(tracks[0], 2), j3_bottom = MeanAbs(tracks[1], 2);
  out->AddTable("Mean |joint angle| over frames 1-20 (rad)",
                {"gains", "joint 1", "joint 2", "joint 3"},
                {{"{0.1, 0.5, 0.1}", FormatNumber(MeanAbs(tracks[0], 0), 4),
                  FormatNumber(j2_top, 4), FormatNumber(j3_top, 4)},
                 {"{0.1, 0.1, 0.5}", FormatNumber(MeanAbs(tracks[1], 0), 4),
                  FormatNumber(j2_bottom, 4), FormatNumber(j3_bottom, 4)}},
                "fig_5_22_mean_abs_angles.csv");
  const bool j2_ok = j2_top < j2_bottom;
  out->AddClaim({"Joint 2 stays straighter when its gain is higher",
                 "joints with increased gain are kept straighter (picture)",
                 "mean |q2|: " + FormatNumber(j2_top, 3) + " rad (gain 0.5) vs " +
                     FormatNumber(j2_bottom, 3) + " rad (gain 0.1)",
                 j2_ok ? Verdict::kReproduced : Verdict::kDiffers,
                 j2_ok ? "joint 2 bends less with gain 0.5 than with 0.1"
                       : "joint 2 does not bend less with the higher gain"});
  const bool j3_ok = j3_bottom < j3_top;
  out->AddClaim({"Joint 3 stays straighter when its gain is higher",
                 "joints with increased gain are kept straighter (picture)",
                 "mean |q3|: " + FormatNumber(j3_bottom, 3) +
                     " rad (gain 0.5) vs " + FormatNumber(j3_top, 3) +
                     " rad (gain 0.1)",
                 j3_ok ? Verdict::kReproduced : Verdict::kDiffers,
                 j3_ok ? "joint 3 bends less with gain 0.5 than with 0.1"
                       : "joint 3 does not bend less with the higher gain"});
  const double length = (setup.goal - setup.start).norm();
  double deviation = 0.0;
  for (const PlanarTrack& t : tracks) {
    deviation = std::max(
        deviation, MaxDistanceToSegment(t.effector, setup.start, setup.goal));
  }
  const bool tracks_ok = deviation <= 0.05 * length;
  out->AddClaim({"The control term does not disturb the effector's path",
                 "contributes nothing to the end effector velocities (Eq. 5.26)",
                 "max deviation from the goal line " +
                     FormatNumber(deviation, 3) + " (" +
                     FormatNumber(100 * deviation / length, 3) + " % of " +
                     FormatNumber(length, 3) + ")",
                 tracks_ok ? Verdict::kReproduced : Verdict::kDiffers,
                 tracks_ok ? "deviation within 5 % of the path length"
                           : "deviation exceeds 5 % of the path length"});
}

}  // namespace

void AddParentFigure522(std::vector<Experiment>* experiments) {
  experiments->push_back(
      {"parent-fig-5.22", "Null-space control term: higher gain, straighter joint",
       "Parent, Computer Animation, §5.3.3, Fig. 5.22", RunParentFigure522});
}

}  // namespace iklab
