// Parent, "Computer Animation: Algorithms and Techniques", §5.3.3, Fig. 5.20:
// the pseudo-inverse of the Jacobian (a) without and (b) with damped least
// squares on the 3-link planar arm 15/10/5, start {π/8, π/4, π/4} (relative
// angles), goal (−20, 5), 21 frames (0 … 20) of linearly interpolated goals.
//
// Paper's claim: "the path of the end effector ... travels in approximately a
// straight line to the goal position" (no number given).
// Metric: largest distance of the effector (frames 0 … 20) from the segment
// start → goal, relative to the segment's length; final distance to the goal.
// Acceptance: max deviation ≤ 5 % of the segment length and final error ≤ 5 %
// of it ("approximately straight" made a number — our choice).
//
// Parameters we chose (the text has none): one Euler step Δq per frame (Parent:
// "simple Euler integration"; the next frame re-linearizes), no step clamps;
// DLS damping λ = 1 (length units; the arm is 30 long), the same λ as in
// Fig. 5.21's experiment.

#include <algorithm>
#include <cmath>

#include "lab/experiment.h"
#include "experiments/experiments_list.h"
#include "experiments/parent/arm_runs.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"

namespace iklab {

namespace {

void RunParentFigure520(const ExperimentContext& context,
                        ExperimentOutput* out) {
  const ParentSetup setup = ParentStandardSetup(Eigen::Vector2d(-20, 5));
  RecordParentParameters(setup, out);
  out->SetParameter("dls_damping", kParentDamping);
  out->SetParameter("acceptance_max_deviation_fraction", 0.05);

  const std::vector<std::pair<std::string, std::unique_ptr<Solver>>> runs = [] {
    std::vector<std::pair<std::string, std::unique_ptr<Solver>>> r;
    r.emplace_back("(a) pseudo-inverse", ParentPseudoInverse());
    r.emplace_back("(b) damped least squares", ParentDls(kParentDamping));
    return r;
  }();
  const double length = (setup.goal - setup.start).norm();
  LinePlot errors;
  errors.title = "Fig. 5.20: effector-to-goal distance per frame";
  errors.x_label = "frame";
  errors.y_label = "distance to the frame's goal";
  int index = 0;
  std::vector<PlanarTrack> tracks;
  tracks.reserve(runs.size());
  for (const auto& [label, solver] : runs) {
    context.Progress(index / 2.0, label);
    tracks.push_back(RunParentTrack(*solver, setup));
    const PlanarTrack& track = tracks.back();
    const std::string tag = index == 0 ? "a_pseudo_inverse" : "b_dls";
    WriteTrackCsv(track, "fig_5_20_" + tag + ".csv", out);
    const double deviation =
        MaxDistanceToSegment(track.effector, setup.start, setup.goal);
    const double final_error = (track.effector.back() - setup.goal).norm();
    const bool ok = deviation <= 0.05 * length && final_error <= 0.05 * length;
    out->AddClaim(
        {label + ": the effector tracks an approximately straight line to "
                 "the goal",
         "approximately straight (picture only)",
         "max deviation " + FormatNumber(deviation, 3) + " (" +
             FormatNumber(100 * deviation / length, 3) +
             " % of the path length " + FormatNumber(length, 3) +
             "), final error " + FormatNumber(final_error, 3),
         ok ? Verdict::kReproduced : Verdict::kDiffers,
         std::string(ok ? "deviation and final error within" : "exceeds") +
             " 5 % of the path length"});
    DrawLinePlot(TrackPlot(*setup.model, track, {0, 5, 10, 15, 20},
                           "Fig. 5.20 " + label + ": frames 0, 5, 10, 15, 20"),
                 out->dir(), "fig_5_20_" + tag);
    out->AddFigure("fig_5_20_" + tag + ".png",
                   "Fig. 5.20 " + label + ": the arm at frames 0, 5, 10, 15, "
                   "20, the effector path and the goal line");
    Series series;
    series.title = label;
    series.style = "linespoints";
    const std::vector<double> e = TrackingErrors(track);
    for (std::size_t k = 0; k < e.size(); ++k) {
      series.x.push_back(static_cast<double>(k));
      series.y.push_back(e[k]);
    }
    errors.series.push_back(series);
    ++index;
  }
  WriteParentScene(setup,
                   {{runs[0].first, &tracks[0]}, {runs[1].first, &tracks[1]}},
                   "Fig. 5.20: goal (-20, 5)", "fig_5_20_scene.json",
                   "Both runs in 3D, overlaid: play the frames and compare "
                   "each effector path (its colour) with the straight goal "
                   "line (black).",
                   out);
  errors.key = "top left";
  DrawLinePlot(errors, out->dir(), "fig_5_20_errors");
  out->AddFigure("fig_5_20_errors.png",
                 "Distance from the effector to each frame's goal");
}

}  // namespace

void AddParentFigure520(std::vector<Experiment>* experiments) {
  experiments->push_back(
      {"parent-fig-5.20",
       "Pseudo-inverse and DLS track a straight line to a reachable goal",
       "Parent, Computer Animation, §5.3.3, Fig. 5.20", RunParentFigure520});
}

}  // namespace iklab
