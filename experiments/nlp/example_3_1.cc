// NLP paper (IK by nonlinear programming, L-BFGS-B, multiple end effectors),
// §3, Example 3.1 and Figure 3: a 3-joint planar chain with relative angles
// θ_i (absolute angles φ_i = Σ_{j≤i} θ_j), the cost
//
//     F(θ) = ½ ‖f(θ) − X‖² + α ‖θ − θ_ref‖²   subject to  l ≤ θ ≤ u,
//
// minimized by L-BFGS-B (LBFGSpp), along a trajectory through internal points
// Y_1 … Y_M of the segment from the start effector Y to the target X, each
// solved from the previous one's angles.
//
// What the paper says (no numbers; Figure 3 is a picture):
//  (1) L-BFGS-B solves the bounded problem (Figure 3: the chain at X);
//  (2) the box constraints are the joint limits;
//  (3) solved in one go, "the intermediate values from the starting state to
//      the final one could be in general fairly irregular", while the
//      internal points give "natural behavior";
//  (4) other internal points give "more smooth behavior" (formula lost);
//  (5) "Local minima are less likely when the target configuration is not
//      too distant from the start one".
// Metrics: final distance to X; largest bound violation over every iterate;
// largest distance of the effector from the segment YX (the direct solve's
// iterates vs the internal points' frames); largest joint "acceleration"
// (second difference per frame, at rest before and after) for equal vs eased
// spacing; share of random reachable targets ending in a local minimum
// (final error > 1e-2), direct vs through internal points, and for near vs
// far targets.
//
// Parameters we chose (not in the text): link lengths 1.0, 0.8, 0.6; start
// θ = (π/6, π/3, π/3); target X = (−1.4, −0.6); bounds θ_1 ∈ [−π, π],
// θ_2, θ_3 ∈ [0, 3π/4] (the joints bend one way, as fingers do: the limits
// matter); α = 1e-5 with θ_ref = the start pose of each solve (the previous
// internal point's angles); M = 19 internal points (20 solves); "more smooth"
// points: Hermite spacing 3s² − 2s³; L-BFGS-B memory 10, minimized to a
// projected gradient ≤ 1e-10 (not stopped at the goal tolerance, so the
// Tikhonov trade-off is solved); random targets: FK of θ uniform within the
// bounds, 200 (quick mode: 30), seeded by --seed.

#include <algorithm>
#include <cmath>
#include <random>

#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "constraints/regularizers.h"
#include "experiments/experiments_list.h"
#include "experiments/nlp/runs.h"
#include "framework/builders.h"
#include "lab/experiment.h"
#include "lab/planar_tracking.h"
#include "lab/plot.h"
#include "solvers/optimization/lbfgsb_solver.h"

namespace iklab {

namespace {

constexpr double kAlpha = 1e-5;
constexpr int kFrames = 20;  // M = 19 internal points + the target.
constexpr double kLocalMinimumError = 1e-2;

struct ChainSetup {
  std::shared_ptr<const Model> model;
  Eigen::VectorXd q0;
  Eigen::Vector2d target;
  Bounds bounds;
};

ChainSetup MakeSetup() {
  ChainSetup setup;
  setup.model =
      std::make_shared<const Model>(PlanarChain({1.0, 0.8, 0.6}).Compile());
  setup.q0 = Eigen::Vector3d(M_PI / 6, M_PI / 3, M_PI / 3);
  setup.target = Eigen::Vector2d(-1.4, -0.6);
  setup.bounds = Bounds::Unbounded(3);
  setup.bounds.Set(0, -M_PI, M_PI);
  setup.bounds.Set(1, 0.0, 0.75 * M_PI);
  setup.bounds.Set(2, 0.0, 0.75 * M_PI);
  return setup;
}

LbfgsbOptions ExampleOptions(bool trace) {
  LbfgsbOptions options;
  options.common.max_iterations = 500;
  options.common.position_tolerance = 1e-3;
  options.common.record_trace = trace;
  options.stop_at_tolerance = false;
  options.epsilon = 1e-10;
  return options;
}

// Runs L-BFGS-B through `frames` internal points (1 = the direct solve) with
// the Tikhonov reference at each solve's start pose.
SegmentRun RunChain(const ChainSetup& setup, const Eigen::Vector2d& target,
                    int frames, Spacing spacing, bool trace) {
  Problem problem(setup.model);
  problem.set_bounds(setup.bounds);
  auto goal = std::make_shared<PositionGoal>(*setup.model, "effector",
                                             Eigen::Vector3d::Zero());
  problem.AddGoal(goal);
  auto tikhonov =
      std::make_shared<TikhonovRegularizer>(*setup.model, kAlpha, setup.q0);
  problem.AddRegularizer(tikhonov);
  const LbfgsbSolver solver(ExampleOptions(trace));
  return FollowSegments(
      solver, &problem, {goal}, {target}, setup.q0, frames, spacing,
      [&](int, const Eigen::VectorXd& q) { tikhonov->set_reference(q); });
}

double MaxViolation(const Bounds& bounds, const Eigen::VectorXd& q) {
  return std::max((bounds.lower - q).maxCoeff(),
                  (q - bounds.upper).maxCoeff());
}

// The three runs to X: equal and eased internal points, the direct solve,
// and the direct solve's iterates (its trace) as a path of the effector.
struct ExampleRuns {
  SegmentRun linear;
  SegmentRun eased;
  SegmentRun direct;
  SegmentRun direct_iterates;
};

void SetExampleParameters(const ChainSetup& setup,
                          const Eigen::Vector2d& start,
                          ExperimentOutput* out) {
  out->SetParameter("link_lengths", {1.0, 0.8, 0.6});
  out->SetParameter("start_theta_rad", {setup.q0[0], setup.q0[1], setup.q0[2]});
  out->SetParameter("start_effector_Y", {start.x(), start.y()});
  out->SetParameter("target_X", {setup.target.x(), setup.target.y()});
  out->SetParameter("bounds", "theta1 in [-pi, pi], theta2, theta3 in [0, 3pi/4]");
  out->SetParameter("tikhonov_alpha", kAlpha);
  out->SetParameter("tikhonov_reference", "start pose of each solve");
  out->SetParameter("internal_points_M", kFrames - 1);
  out->SetParameter("smooth_spacing", "3s^2 - 2s^3 (Hermite, zero tangents)");
  out->SetParameter("lbfgsb", "memory 10, projected gradient <= 1e-10, "
                              "max 500 iterations per solve");
  out->SetParameter("local_minimum_error", kLocalMinimumError);
}

ExampleRuns RunToTarget(const ChainSetup& setup, const Eigen::Vector2d& start) {
  const Model& model = *setup.model;
  const int site = model.SiteIndex("effector");
  ExampleRuns runs;
  runs.linear = RunChain(setup, setup.target, kFrames, Spacing::kLinear, true);
  runs.eased = RunChain(setup, setup.target, kFrames, Spacing::kEased, true);
  runs.direct = RunChain(setup, setup.target, 1, Spacing::kLinear, true);

  // The direct solve's iterates (its trace) as a path of the effector.
  SegmentRun& iterates = runs.direct_iterates;
  iterates.q.push_back(setup.q0);
  for (const IterationRecord& r : runs.direct.results[0].trace) {
    iterates.q.push_back(r.q);
  }
  for (const auto& q : iterates.q) {
    iterates.effector.push_back({SitePoint(model, q, site)});
    iterates.target.push_back({setup.target});
  }
  iterates.target.front() = {start};
  return runs;
}

// CSV of every frame / iterate.
void WriteFramesCsv(const ChainSetup& setup, const ExampleRuns& runs,
                    ExperimentOutput* out) {
  std::vector<std::vector<double>> rows;
  const SegmentRun* shown[3] = {&runs.linear, &runs.eased,
                                &runs.direct_iterates};
  for (int r = 0; r < 3; ++r) {
    const SegmentRun& run = *shown[r];
    for (std::size_t k = 0; k < run.q.size(); ++k) {
      const int iterations =
          (r < 2 && k > 0) ? run.results[k - 1].iterations : 0;
      rows.push_back({static_cast<double>(r), static_cast<double>(k),
                      run.q[k][0], run.q[k][1], run.q[k][2],
                      run.effector[k][0].x(), run.effector[k][0].y(),
                      r < 2 ? run.target[k][0].x() : setup.target.x(),
                      r < 2 ? run.target[k][0].y() : setup.target.y(),
                      static_cast<double>(iterations)});
    }
  }
  out->WriteCsv("example_3_1_frames.csv",
                {"run(0=equal,1=eased,2=direct iterates)", "frame_or_iterate",
                 "theta1", "theta2", "theta3", "x", "y", "target_x",
                 "target_y", "lbfgsb_iterations"},
                rows);
}

// Pictures: the chain through the internal points, and the direct solve.
void DrawChainPictures(const Model& model, const ExampleRuns& runs,
                       ExperimentOutput* out) {
  const std::vector<int> shown = {0, 5, 10, 15, 20};
  DrawLinePlot(SegmentRunPlot(model, runs.linear, shown,
                              "Example 3.1: L-BFGS-B through M = 19 equally "
                              "spaced internal points"),
               out->dir(), "example_3_1_equal");
  out->AddFigure("example_3_1_equal.png",
                 "Figure 3 (ours): the chain at frames 0, 5, 10, 15, 20 with "
                 "equally spaced internal points; black: effector path");
  DrawLinePlot(SegmentRunPlot(model, runs.eased, shown,
                              "Example 3.1: internal points eased by "
                              "3s^2 - 2s^3 (\"more smooth\")"),
               out->dir(), "example_3_1_eased");
  out->AddFigure("example_3_1_eased.png",
                 "The same with the eased internal points (start and stop at "
                 "rest)");
  std::vector<int> iterate_frames;
  const int n_it = static_cast<int>(runs.direct_iterates.q.size()) - 1;
  for (int k : {0, n_it / 4, n_it / 2, 3 * n_it / 4, n_it}) {
    if (iterate_frames.empty() || iterate_frames.back() != k) {
      iterate_frames.push_back(k);
    }
  }
  LinePlot direct_plot = SegmentRunPlot(
      model, runs.direct_iterates, iterate_frames,
      "Example 3.1: one L-BFGS-B solve straight to X (no internal points)");
  for (std::size_t i = 0; i < iterate_frames.size(); ++i) {
    direct_plot.series[i].title =
        "iterate " + std::to_string(iterate_frames[i]);
  }
  direct_plot.series[iterate_frames.size() + 1].title = "effector iterates";
  DrawLinePlot(direct_plot, out->dir(), "example_3_1_direct");
  out->AddFigure("example_3_1_direct.png",
                 "The direct solve: the chain at some of its L-BFGS-B iterates "
                 "and the effector at every iterate");
}

// The potential of one solve per iteration (iteration 0 = start).
Series PotentialSeries(const Result& result, const std::string& title,
                       int color) {
  Series s;
  s.title = title;
  s.style = "linespoints";
  s.color = PaletteColor(color);
  s.x.push_back(0);
  s.y.push_back(std::max(result.initial_potential, 1e-300));
  for (const IterationRecord& r : result.trace) {
    s.x.push_back(r.iteration);
    s.y.push_back(std::max(r.potential, 1e-300));
  }
  return s;
}

void DrawPotentialPlot(const ExampleRuns& runs, ExperimentOutput* out) {
  LinePlot potential;
  potential.title = "Example 3.1: potential F per L-BFGS-B iteration";
  potential.x_label = "iteration";
  potential.y_label = "F (log scale)";
  potential.log_y = true;
  potential.series.push_back(
      PotentialSeries(runs.direct.results[0], "direct solve Y -> X", 0));
  potential.series.push_back(
      PotentialSeries(runs.linear.results[0], "equal spacing, frame 1", 1));
  potential.series.push_back(PotentialSeries(
      runs.linear.results[kFrames / 2 - 1],
      "equal spacing, frame " + std::to_string(kFrames / 2), 2));
  potential.series.push_back(PotentialSeries(
      runs.eased.results[kFrames / 2 - 1],
      "eased spacing, frame " + std::to_string(kFrames / 2), 3));
  DrawLinePlot(potential, out->dir(), "example_3_1_potential");
  out->AddFigure("example_3_1_potential.png",
                 "Potential F = 1/2|f - X|^2 + alpha|theta - theta_ref|^2 per "
                 "iteration (iteration 0 = start)");
}

void DrawAnglesPlot(const ExampleRuns& runs, ExperimentOutput* out) {
  LinePlot angles;
  angles.title = "Example 3.1: joint angles per frame, equal vs eased spacing";
  angles.x_label = "frame";
  angles.y_label = "theta_i (rad)";
  angles.key = "outside right top";
  for (int i = 0; i < 3; ++i) {
    for (int r = 0; r < 2; ++r) {
      Series s;
      s.title = "theta" + std::to_string(i + 1) + (r == 0 ? ", equal" : ", eased");
      s.style = "linespoints";
      s.color = PaletteColor(i);
      s.dashed = r == 1;
      const SegmentRun& run = r == 0 ? runs.linear : runs.eased;
      for (std::size_t k = 0; k < run.q.size(); ++k) {
        s.x.push_back(static_cast<double>(k));
        s.y.push_back(run.q[k][i]);
      }
      angles.series.push_back(s);
    }
  }
  DrawLinePlot(angles, out->dir(), "example_3_1_angles");
  out->AddFigure("example_3_1_angles.png",
                 "Joint angles through the frames: equal spacing (solid) and "
                 "eased spacing (dashed)");
}

// Per-frame table of the equal-spacing run.
void AddPerFrameTable(const SegmentRun& linear, ExperimentOutput* out) {
  std::vector<std::vector<std::string>> table;
  for (int k = 1; k <= kFrames; ++k) {
    const Result& r = linear.results[k - 1];
    table.push_back({std::to_string(k), std::to_string(r.iterations),
                     FormatNumber(r.initial_potential, 3),
                     FormatNumber(r.final_potential, 3),
                     FormatNumber(FrameError(linear, k), 3),
                     SolveStatusName(r.status)});
  }
  out->AddTable("Equal spacing, per internal point: L-BFGS-B iterations, "
                "potential before/after, distance to the frame's target",
                {"frame", "iterations", "F start", "F end", "error",
                 "status"},
                table, "example_3_1_per_frame.csv");
}

// The random targets' counts: local minima direct and through internal
// points, direct ones for the nearer and farther half, and the bounds.
struct RandomTargets {
  int trials = 0;
  int direct_fail = 0;
  int internal_fail = 0;
  int half = 0;  // trials in the nearer half
  int near_fail = 0;
  int far_fail = 0;
  double median_distance = 0.0;
  // The bounds claim below is checked on these runs too: their targets come
  // from poses anywhere in the box, so bounds become active.
  double violation = 0.0;
  int active = 0;  // runs with a bound active in an answer
};

// Random targets: local minima direct vs through internal points.
RandomTargets RunRandomTargets(const ChainSetup& setup,
                               const Eigen::Vector2d& start,
                               const ExperimentContext& context,
                               ExperimentOutput* out) {
  const Model& model = *setup.model;
  const int site = model.SiteIndex("effector");
  RandomTargets result;
  const int trials = context.quick ? 30 : 200;
  result.trials = trials;
  std::mt19937_64 rng(context.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::vector<double>> trial_rows;
  std::vector<std::pair<double, bool>> direct_by_distance;
  const auto on_bound = [&](const Eigen::VectorXd& q) {
    return (q - setup.bounds.lower).minCoeff() < 1e-9 ||
           (setup.bounds.upper - q).minCoeff() < 1e-9;
  };
  for (int t = 0; t < trials; ++t) {
    Eigen::VectorXd q(3);
    for (int i = 0; i < 3; ++i) {
      q[i] = setup.bounds.lower[i] +
             unit(rng) * (setup.bounds.upper[i] - setup.bounds.lower[i]);
    }
    const Eigen::Vector2d x = SitePoint(model, q, site);
    const SegmentRun d = RunChain(setup, x, 1, Spacing::kLinear, false);
    const SegmentRun m = RunChain(setup, x, kFrames, Spacing::kLinear, false);
    bool active = false;
    for (const SegmentRun* run : {&d, &m}) {
      for (const Result& r : run->results) {
        result.violation =
            std::max(result.violation, MaxViolation(setup.bounds, r.q));
        active = active || on_bound(r.q);
      }
    }
    result.active += active;
    const double ed = (d.effector.back()[0] - x).norm();
    const double em = (m.effector.back()[0] - x).norm();
    const bool fd = ed > kLocalMinimumError, fm = em > kLocalMinimumError;
    result.direct_fail += fd;
    result.internal_fail += fm;
    direct_by_distance.push_back({(x - start).norm(), fd});
    trial_rows.push_back({static_cast<double>(t), x.x(), x.y(),
                          (x - start).norm(), ed, em,
                          static_cast<double>(d.results[0].iterations)});
    context.Progress(0.3 + 0.6 * (t + 1) / trials, "random targets");
  }
  out->WriteCsv("example_3_1_random_targets.csv",
                {"trial", "target_x", "target_y", "distance_from_Y",
                 "error_direct", "error_internal_points",
                 "iterations_direct"},
                trial_rows);
  std::sort(direct_by_distance.begin(), direct_by_distance.end());
  result.half = trials / 2;
  for (int t = 0; t < trials; ++t) {
    (t < result.half ? result.near_fail : result.far_fail) +=
        direct_by_distance[t].second;
  }
  result.median_distance = direct_by_distance[result.half].first;
  return result;
}

void AddReachClaim(const ExampleRuns& runs, ExperimentOutput* out) {
  const double final_error = FrameError(runs.linear, kFrames);
  const bool reached = final_error <= 1e-3;
  out->AddClaim(
      {"L-BFGS-B on the bounded, Tikhonov-regularized cost brings the "
       "effector to X through the internal points",
       "Figure 3: the chain reaches the target (picture)",
       "final distance to X " + FormatNumber(final_error, 3) +
           " (equal spacing), " +
           FormatNumber(FrameError(runs.eased, kFrames), 3) + " (eased); " +
           std::to_string(runs.linear.results.back().iterations) +
           " iterations for the last internal point",
       reached ? Verdict::kReproduced : Verdict::kDiffers,
       reached ? "the final distance is <= 1e-3 (reach 2.4); what remains is "
                 "the Tikhonov term's pull"
               : "the final distance exceeds 1e-3"});
}

void AddBoundsClaim(const ChainSetup& setup, const ExampleRuns& runs,
                    const RandomTargets& random, ExperimentOutput* out) {
  double violation = 0.0;
  for (const SegmentRun* run : {&runs.linear, &runs.eased, &runs.direct}) {
    for (const Result& r : run->results) {
      violation = std::max(violation, MaxViolation(setup.bounds, r.q));
      for (const IterationRecord& it : r.trace) {
        violation = std::max(violation, MaxViolation(setup.bounds, it.q));
      }
    }
  }
  violation = std::max(violation, random.violation);
  const bool respected = violation <= 1e-12;
  const bool exercised = random.active > 0;
  out->AddClaim(
      {"Joint limits are the box constraints l <= theta <= u of L-BFGS-B: no "
       "iterate leaves them",
       "l_j <= theta_j <= u_j handled by L-BFGS-B (no number)",
       "largest bound violation over every iterate of the three runs and "
       "the answers of the " +
           std::to_string(random.trials) + " random-target runs: " +
           FormatNumber(std::max(violation, 0.0), 3) + "; a bound is active "
           "in the answer of " + std::to_string(random.active) +
           " random-target runs",
       respected && exercised ? Verdict::kReproduced : Verdict::kDiffers,
       !respected  ? "an answer left the box"
       : exercised ? "no answer is outside the box, also where a bound is "
                     "active"
                   : "no bound became active, so the claim went untested"});
}

void AddPathClaim(const ChainSetup& setup, const Eigen::Vector2d& start,
                  const ExampleRuns& runs, ExperimentOutput* out) {
  const double dev_direct = MaxSegmentDeviation(runs.direct_iterates, 0);
  const double dev_linear = MaxSegmentDeviation(runs.linear, 0);
  const double dev_eased = MaxSegmentDeviation(runs.eased, 0);
  const double yx = (setup.target - start).norm();
  const bool natural = dev_linear < 0.5 * dev_direct && dev_linear < 0.01 * yx;
  out->AddClaim(
      {"Solved in one go the intermediate poses are irregular; through the "
       "internal points the effector follows YX",
       "\"fairly irregular\" in one go, \"natural behavior\" with internal "
       "points (no number)",
       "largest distance of the effector from YX (|YX| = " +
           FormatNumber(yx, 3) + "): direct iterates " +
           FormatNumber(dev_direct, 3) + ", internal points " +
           FormatNumber(dev_linear, 3) + " (eased " +
           FormatNumber(dev_eased, 3) + ")",
       natural ? Verdict::kReproduced : Verdict::kDiffers,
       natural ? "the internal points stay within 1% of |YX| of the segment, "
                 "under half the direct iterates' deviation"
               : "the internal points do not keep the effector clearly closer "
                 "to YX than the direct solve's iterates"});
}

void AddSmoothnessClaim(const ExampleRuns& runs, ExperimentOutput* out) {
  const double acc_linear = MaxJointAcceleration(runs.linear.q);
  const double acc_eased = MaxJointAcceleration(runs.eased.q);
  const bool smoother = acc_eased < acc_linear;
  out->AddClaim(
      {"Eased internal points give smoother joint motion",
       "\"more smooth behavior\" with the second choice of points (formula "
       "lost; no number)",
       "largest joint second difference per frame^2 (at rest before and "
       "after): equal " +
           FormatNumber(acc_linear, 3) + " rad, eased " +
           FormatNumber(acc_eased, 3) + " rad",
       smoother ? Verdict::kReproduced : Verdict::kDiffers,
       smoother ? "the eased spacing's largest joint acceleration is smaller "
                  "(no start/stop jolt)"
                : "the eased spacing is not smoother by this measure"});
}

void AddLocalMinimaClaim(const RandomTargets& random, ExperimentOutput* out) {
  const int trials = random.trials;
  const double pd = 100.0 * random.direct_fail / trials;
  const double pm = 100.0 * random.internal_fail / trials;
  const double pnear = 100.0 * random.near_fail / random.half;
  const double pfar = 100.0 * random.far_fail / (trials - random.half);
  const bool fewer = random.internal_fail < random.direct_fail &&
                     random.far_fail > random.near_fail;
  out->AddClaim(
      {"Local minima are less likely when the target is not too distant from "
       "the start",
       "local minima \"less likely when the target configuration is not too "
       "distant\" (no number)",
       std::to_string(trials) + " random reachable targets, final error > " +
           FormatNumber(kLocalMinimumError, 2) + ": direct " +
           FormatNumber(pd, 3) + "%, through internal points " +
           FormatNumber(pm, 3) + "%; direct solves to the nearer half (|X - "
           "Y| < " + FormatNumber(random.median_distance, 3) + ") " +
           FormatNumber(pnear, 3) + "%, farther half " + FormatNumber(pfar, 3) +
           "%",
       fewer ? Verdict::kReproduced : Verdict::kDiffers,
       fewer ? "fewer local minima through internal points, and more for the "
               "farther targets in one go"
             : (random.direct_fail == 0
                    ? "no direct solve ended in a local minimum: nothing to "
                      "compare"
                    : "internal points do not reduce local minima, or far "
                      "targets do not fail more often")});
}

void RunExample31(const ExperimentContext& context, ExperimentOutput* out) {
  const ChainSetup setup = MakeSetup();
  const Model& model = *setup.model;
  const Eigen::Vector2d start =
      SitePoint(model, setup.q0, model.SiteIndex("effector"));
  SetExampleParameters(setup, start, out);

  context.Progress(0.0, "internal points");
  const ExampleRuns runs = RunToTarget(setup, start);
  WriteFramesCsv(setup, runs, out);
  DrawChainPictures(model, runs, out);
  WriteSegmentScene(
      model, "Example 3.1: the 3-joint chain (1.0, 0.8, 0.6)",
      {{"internal points: equal vs eased",
        {{"equal spacing", &runs.linear}, {"eased spacing", &runs.eased}}},
       {"direct solve: L-BFGS-B iterates",
        {{"L-BFGS-B iterates, straight to X", &runs.direct_iterates}},
        0.1}},
      {"effector"}, "example_3_1_scene.json",
      "Example 3.1 in 3D. First view: L-BFGS-B through the 19 internal "
      "points, equal (first colour) and eased (second colour) spacing; the "
      "effectors stay on the segment YX. Second view: one solve straight to "
      "X, animated over its iterates; its effector leaves the segment.",
      out);
  DrawPotentialPlot(runs, out);
  DrawAnglesPlot(runs, out);
  AddPerFrameTable(runs.linear, out);

  context.Progress(0.3, "random targets");
  const RandomTargets random = RunRandomTargets(setup, start, context, out);

  AddReachClaim(runs, out);
  AddBoundsClaim(setup, runs, random, out);
  AddPathClaim(setup, start, runs, out);
  AddSmoothnessClaim(runs, out);
  AddLocalMinimaClaim(random, out);
}

}  // namespace

void AddNlpExample31(std::vector<Experiment>* experiments) {
  experiments->push_back(
      {"nlp-example-3.1",
       "L-BFGS-B with Tikhonov regularization through internal points",
       "NLP multi-effector paper, §3, Example 3.1 and Figure 3",
       RunExample31});
}

}  // namespace iklab
