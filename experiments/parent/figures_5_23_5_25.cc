// Parent, "Computer Animation: Algorithms and Techniques", §5.3.3, Figs.
// 5.23 (alternative Jacobian: "pulls the goal to the end effector"), 5.24
// (Jacobian transpose, scale term 0.1) and 5.25 (cyclic coordinate descent),
// each on the 15/10/5 arm, start {π/8, π/4, π/4}, goal (−20, 5), 21 frames of
// linearly interpolated goals, frames 0, 5, 10, 15, 20 shown.
//
// Paper's claims (pictures only):
//  * 5.23: "the results of this approach are similar to the standard method".
//    Metric: largest distance between the effector positions of the two runs
//    (same frame), and the path's max deviation from the goal line.
//    Acceptance: both ≤ 5 % of the path length.
//  * 5.24: "the end effector tracks to the goal position while producing
//    reasonable interior joint angles". Metric: final distance to the goal;
//    largest |q2|, |q3|. Acceptance: final error ≤ 5 % of the path length and
//    interior joints within (−π, π) (no wrap-around folding).
//  * 5.25: "the end effector tracks the solution path well". Metric: max
//    deviation from the goal line, final error. Acceptance: both ≤ 5 %.
//
// Parameters we chose: one Euler step per frame for 5.23 and 5.24; CCD sweeps
// (tip → base) per frame until the goal is met, at most 20 (one sweep per
// frame lags; its numbers are reported in the text); the
// transpose's scale α = 0.1 fixed, as published, applied to Δq = α JᵀV with V
// the full per-frame error in the arm's length units.
// §5.3.1 (analytic two-link) is parent_section_5_3_1.cc.

#include <algorithm>
#include <cmath>

#include <Eigen/SVD>

#include "experiments/experiments_list.h"
#include "experiments/parent/arm_runs.h"
#include "framework/kinematics.h"
#include "lab/experiment.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"
#include "solvers/differential/ccd_solver.h"
#include "solvers/differential/jacobian_transpose_solver.h"

namespace iklab {

namespace {

constexpr double kAcceptFraction = 0.05;
// CCD is a procedural solver, not a rate method: per frame it sweeps until the
// goal is met (tolerance 1e-6) or this many sweeps (our choice).
constexpr int kCcdSweeps = 20;
// Steps per frame of the transpose scale sweep (our choice, as for CCD).
constexpr int kTransposeStepsPerFrame = 20;

void Draw(const ParentSetup& setup, const PlanarTrack& track,
          const std::string& figure, const std::string& label,
          const std::string& file, ExperimentOutput* out) {
  WriteTrackCsv(track, file + ".csv", out);
  DrawLinePlot(TrackPlot(*setup.model, track, {0, 5, 10, 15, 20},
                         figure + " " + label + ": frames 0, 5, 10, 15, 20"),
               out->dir(), file);
  out->AddFigure(file + ".png", figure + ", " + label +
                                    ": the arm at frames 0, 5, 10, 15, 20, "
                                    "the effector path and the goal line");
}

std::string Percent(double value, double length) {
  return FormatNumber(value, 3) + " (" + FormatNumber(100 * value / length, 3) +
         " % of the path length)";
}

void RunFigure523(const ExperimentContext& context, ExperimentOutput* out) {
  const ParentSetup setup = ParentStandardSetup(Eigen::Vector2d(-20, 5));
  RecordParentParameters(setup, out);
  context.Progress(0.0, "alternative Jacobian");
  const PlanarTrack alt = RunParentTrack(
      *MakeSolver(OneStepPerFrame(AlternativeJacobianOptions{})), setup);
  const PlanarTrack standard = RunParentTrack(*ParentPseudoInverse(), setup);
  Draw(setup, alt, "Fig. 5.23", "alternative Jacobian",
       "fig_5_23_alternative_jacobian", out);
  WriteParentScene(setup,
                   {{"alternative Jacobian", &alt},
                    {"pseudo-inverse (standard)", &standard}},
                   "Fig. 5.23: alternative Jacobian", "fig_5_23_scene.json",
                   "The alternative Jacobian and the standard pseudo-inverse "
                   "in 3D, overlaid: the two arms and effector paths nearly "
                   "coincide.",
                   out);
  const double length = (setup.goal - setup.start).norm();
  double difference = 0.0;
  for (std::size_t k = 0; k < alt.effector.size(); ++k) {
    difference =
        std::max(difference, (alt.effector[k] - standard.effector[k]).norm());
  }
  const double deviation =
      MaxDistanceToSegment(alt.effector, setup.start, setup.goal);
  const bool ok = difference <= kAcceptFraction * length &&
                  deviation <= kAcceptFraction * length;
  out->AddClaim({"Pulling the goal to the effector gives results similar to "
                 "the standard pseudo-inverse",
                 "similar to the standard method (picture)",
                 "effector distance between the runs at most " +
                     Percent(difference, length) + "; deviation from the line " +
                     Percent(deviation, length),
                 ok ? Verdict::kReproduced : Verdict::kDiffers,
                 ok ? "both within 5 % of the path length"
                    : "a measure exceeds 5 % of the path length"});
}

void RunFigure524(const ExperimentContext& context, ExperimentOutput* out) {
  const ParentSetup setup = ParentStandardSetup(Eigen::Vector2d(-20, 5));
  RecordParentParameters(setup, out);
  out->SetParameter("transpose_scale_alpha", 0.1);
  context.Progress(0.0, "Jacobian transpose");
  JacobianTransposeOptions options;
  options.step_size = JacobianTransposeOptions::StepSize::kFixed;
  options.alpha = 0.1;
  const PlanarTrack track =
      RunParentTrack(*MakeSolver(OneStepPerFrame(options)), setup);
  Draw(setup, track, "Fig. 5.24", "Jacobian transpose, alpha = 0.1",
       "fig_5_24_jacobian_transpose", out);
  const double length = (setup.goal - setup.start).norm();
  const double final_error = (track.effector.back() - setup.goal).norm();
  Data data(*setup.model);
  ForwardKinematics(*setup.model, setup.q0, &data);
  Eigen::Matrix3Xd J(3, 3);
  SitePositionJacobian(*setup.model, data,
                       setup.model->SiteIndex("effector"), J);
  const double sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(J).singularValues()[0];
  out->SetParameter("sigma_max_at_start", sigma);
  double interior = 0.0;
  for (const Eigen::VectorXd& q : track.q) {
    interior = std::max({interior, std::abs(q[1]), std::abs(q[2])});
  }
  const bool tracks = final_error <= kAcceptFraction * length;
  out->AddClaim({"The transpose method (scale 0.1) tracks to the goal",
                 "the end effector tracks to the goal position (picture)",
                 "final error " + Percent(final_error, length),
                 tracks ? Verdict::kReproduced : Verdict::kDiffers,
                 tracks ? "final error within 5 % of the path length"
                        : "final error exceeds 5 % of the path length; at the "
                          "start alpha sigma_max(J)^2 = " +
                              FormatNumber(0.1 * sigma * sigma, 3) +
                              " > 2, so the fixed-scale iteration is unstable "
                              "in these length units"});
  // Why 0.1 fails here, and which scales work: a fixed-scale step is a
  // gradient step on ½‖V‖², stable only while α σ_max(J)² < 2. Sweep α across
  // that bound; below it, a single step per frame lags behind the moving goal
  // (the small singular directions converge slowly), so the sweep iterates up
  // to kTransposeStepsPerFrame steps per frame (our choice).
  out->SetParameter("transpose_sweep_steps_per_frame_max",
                    kTransposeStepsPerFrame);
  const double bound = 2.0 / (sigma * sigma);
  out->SetParameter("transpose_stability_bound_alpha", bound);
  const std::vector<double> alphas = {0.1, 0.03, 0.01, 0.003, bound,
                                      0.5 * bound, 0.25 * bound, 0.1 * bound};
  std::vector<std::vector<std::string>> sweep_rows;
  LinePlot sweep;
  sweep.title = "Fig. 5.24: Jacobian transpose, tracking error per frame";
  sweep.x_label = "frame";
  sweep.y_label = "|effector - frame goal|";
  sweep.log_y = true;
  sweep.key = "above";
  double best_stable_error = kInfinity;
  PlanarTrack stable;  // alpha = bound / 2, for the scene
  for (double alpha : alphas) {
    JacobianTransposeOptions o = OneStepPerFrame(options);
    o.alpha = alpha;
    o.common.max_iterations = kTransposeStepsPerFrame;
    const PlanarTrack t = RunParentTrack(*MakeSolver(o), setup);
    if (alpha == 0.5 * bound) stable = t;
    Series s;
    s.title = "alpha = " + FormatNumber(alpha, 3) + " (alpha sigma^2 = " +
              FormatNumber(alpha * sigma * sigma, 3) + ")";
    s.style = "linespoints";
    double worst = 0.0;
    for (std::size_t k = 1; k < t.effector.size(); ++k) {
      const double e = (t.effector[k] - t.goal[k]).norm();
      worst = std::max(worst, e);
      s.x.push_back(static_cast<double>(k));
      s.y.push_back(e);
    }
    sweep.series.push_back(s);
    const double end_error = (t.effector.back() - setup.goal).norm();
    if (alpha * sigma * sigma < 2.0) {
      best_stable_error = std::min(best_stable_error, end_error);
    }
    sweep_rows.push_back({FormatNumber(alpha, 4),
                          FormatNumber(alpha * sigma * sigma, 3),
                          FormatNumber(worst, 3), FormatNumber(end_error, 3)});
  }
  DrawLinePlot(sweep, out->dir(), "fig_5_24_alpha_sweep");
  out->AddFigure("fig_5_24_alpha_sweep.png",
                 "Tracking error per frame for scales across the stability "
                 "bound alpha sigma_max^2 = 2");
  out->AddTable("Jacobian transpose, up to " +
                    std::to_string(kTransposeStepsPerFrame) +
                    " steps per frame: scale sweep",
                {"alpha", "alpha sigma_max^2 at start",
                 "largest tracking error", "final distance to the goal"},
                sweep_rows, "fig_5_24_alpha_sweep.csv");
  WriteParentScene(
      setup,
      {{"alpha = 0.1, 1 step per frame", &track},
       {"alpha = " + FormatNumber(0.5 * bound, 3) + " (half the bound), up to " +
            std::to_string(kTransposeStepsPerFrame) + " steps per frame",
        &stable}},
      "Fig. 5.24: Jacobian transpose", "fig_5_24_scene.json",
      "The published scale 0.1 (first colour) against half the stability "
      "bound (second colour) in 3D: play the frames to see the first arm "
      "oscillate about the goal line while the second tracks it.",
      out);
  const bool stable_tracks = best_stable_error <= kAcceptFraction * length;
  out->AddClaim(
      {"Below the stability bound the transpose method tracks to the goal",
       "(our explanation of the difference above, checked)",
       "best final error over alpha sigma_max^2 < 2: " +
           Percent(best_stable_error, length),
       stable_tracks ? Verdict::kReproduced : Verdict::kDiffers,
       stable_tracks ? "a scale below 2 / sigma_max^2 = " +
                           FormatNumber(bound, 3) +
                           " tracks to the goal within 5 % of the path"
                     : "no scale below the bound reaches the goal within 5 % "
                       "of the path"});

  const bool reasonable = interior < M_PI;
  out->AddClaim({"... with reasonable interior joint angles",
                 "reasonable interior joint angles (picture)",
                 "largest |q2|, |q3| " + FormatNumber(interior, 3) + " rad",
                 reasonable ? Verdict::kReproduced : Verdict::kDiffers,
                 reasonable ? "interior joints stay within (-pi, pi)"
                            : "an interior joint leaves (-pi, pi)"});
}

void RunFigure525(const ExperimentContext& context, ExperimentOutput* out) {
  const ParentSetup setup = ParentStandardSetup(Eigen::Vector2d(-20, 5));
  RecordParentParameters(setup, out);
  context.Progress(0.0, "CCD");
  CcdOptions options;
  options.common.max_iterations = kCcdSweeps;
  options.common.respect_limits = false;
  out->SetParameter("ccd_sweeps_per_frame_max", kCcdSweeps);
  const PlanarTrack track = RunParentTrack(*MakeSolver(options), setup);
  CcdOptions one_sweep = options;
  one_sweep.common.max_iterations = 1;
  one_sweep.step.return_best = false;
  const PlanarTrack single = RunParentTrack(*MakeSolver(one_sweep), setup);
  out->AddText("With a single CCD sweep per frame (not the run shown) the "
               "effector lags: max deviation from the line " +
               FormatNumber(MaxDistanceToSegment(single.effector, setup.start,
                                                 setup.goal), 3) +
               ", final error " +
               FormatNumber((single.effector.back() - setup.goal).norm(), 3) +
               ".");
  Draw(setup, track, "Fig. 5.25", "cyclic coordinate descent", "fig_5_25_ccd",
       out);
  WriteParentScene(setup,
                   {{"CCD, up to " + std::to_string(kCcdSweeps) +
                         " sweeps per frame",
                     &track},
                    {"CCD, 1 sweep per frame", &single}},
                   "Fig. 5.25: cyclic coordinate descent", "fig_5_25_scene.json",
                   "CCD in 3D: the run shown in the paper's figure (first "
                   "colour) and one sweep per frame (second colour), whose "
                   "effector lags behind the moving goal.",
                   out);
  const double length = (setup.goal - setup.start).norm();
  const double deviation =
      MaxDistanceToSegment(track.effector, setup.start, setup.goal);
  const double final_error = (track.effector.back() - setup.goal).norm();
  const bool ok = deviation <= kAcceptFraction * length &&
                  final_error <= kAcceptFraction * length;
  out->AddClaim({"CCD: the end effector tracks the solution path well",
                 "tracks the solution path well (picture)",
                 "max deviation " + Percent(deviation, length) +
                     "; final error " + FormatNumber(final_error, 3),
                 ok ? Verdict::kReproduced : Verdict::kDiffers,
                 ok ? "deviation and final error within 5 % of the path length"
                    : "a measure exceeds 5 % of the path length"});
}

}  // namespace

void AddParentFigures523To525(std::vector<Experiment>* experiments) {
  experiments->push_back({"parent-fig-5.23",
                          "Alternative Jacobian: pull the goal to the effector",
                          "Parent, Computer Animation, §5.3.3, Fig. 5.23",
                          RunFigure523});
  experiments->push_back({"parent-fig-5.24", "Jacobian transpose, scale 0.1",
                          "Parent, Computer Animation, §5.3.3, Fig. 5.24",
                          RunFigure524});
  experiments->push_back({"parent-fig-5.25", "Cyclic coordinate descent",
                          "Parent, Computer Animation, §5.3.3, Fig. 5.25",
                          RunFigure525});
}

}  // namespace iklab
