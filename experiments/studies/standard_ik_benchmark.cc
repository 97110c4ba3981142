// The standard IK benchmark protocol on the shipped robot models (data/robots)
// (experiments/ik_benchmark.h): random reachable poses, 1e-5 per-component
// tolerance checked by an independent FK, 5 ms budget per solve, seeds at
// mid-limits and at random poses; every iklab solver that takes a full pose
// goal.
//
// Reference numbers (the published TRAC-IK protocol and iklab's own targets;
// not from the four seed papers): the best-known CPU solver (TRAC-IK) reaches 96–98 % at
// 0.26–0.47 ms mean on this kind of machine under such a check, and a careful
// bounded Levenberg–Marquardt with restarts reaches 100 % at 5–13 µs mean.
// Our target: ≥ 99.99 % at ≤ 20 µs mean single-threaded.
//
// Parameters we chose: 300 targets per robot and seed mode in the full run
// (20 in the quick one; `iklab bench` runs any number), target seed = the
// experiment seed, rotation weighted 0.4 against metres. The 3D scene shows
// kSceneTargets random-seed targets per robot, failed ones first.

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/ik_benchmark.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "experiments/experiments_list.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "lab/experiment.h"
#include "lab/plot.h"
#include "lab/scene.h"

namespace iklab {

namespace {

// Targets per robot drawn in the scene.
constexpr int kSceneTargets = 3;

// Which random-seed targets the scene draws: the first ones some solver
// failed (up to kSceneTargets - 1, so that failures are seen), then the
// first ones, in target order.
std::vector<int> SceneTargets(
    const std::vector<std::vector<TargetOutcome>>& outcomes, int count) {
  std::vector<int> picked;
  for (int t = 0; t < count && static_cast<int>(picked.size()) < kSceneTargets - 1;
       ++t) {
    for (const auto& solver : outcomes) {
      if (!solver.empty() && !solver[t].success &&
          solver[t].invalid_input.empty()) {
        picked.push_back(t);
        break;
      }
    }
  }
  for (int t = 0; t < count && static_cast<int>(picked.size()) < kSceneTargets;
       ++t) {
    if (std::find(picked.begin(), picked.end(), t) == picked.end()) {
      picked.push_back(t);
    }
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

// One view per drawn target of `robot`: the seed (grey), every solver's
// answer in its colour (PaletteColor of its index, as in the charts;
// refused or non-finite answers are not drawn), the target frame, and a
// table of every solver's status, independent check and time.
// outcomes[s] is empty for a solver that does not apply to the robot.
void AddBenchmarkViews(const BenchmarkRobot& robot,
                       const std::shared_ptr<const Model>& model, int site,
                       const std::vector<BenchmarkTarget>& targets,
                       const std::vector<BenchmarkSolver>& solvers,
                       const std::vector<std::vector<TargetOutcome>>& outcomes,
                       Scene* scene) {
  const double extent = FigureExtent(*model, model->MidLimits());
  const int figure = scene->AddFigure(*model, robot.name, 0.02 * extent);
  for (int t : SceneTargets(outcomes, static_cast<int>(targets.size()))) {
    SceneView& view = scene->AddView(robot.name + ", target " + std::to_string(t));
    view.AddFigure(figure, {targets[t].seed}, "seed", "#999999");
    Eigen::VectorXd drawn_at = targets[t].seed;
    bool found = false;
    std::vector<std::vector<std::string>> rows;
    for (std::size_t s = 0; s < solvers.size(); ++s) {
      if (outcomes[s].empty()) {
        rows.push_back({solvers[s].name, "n/a: " +
                            NotApplicable(solvers[s], *model, site),
                        "", "", "", ""});
        continue;
      }
      const TargetOutcome& o = outcomes[s][t];
      const bool usable = o.invalid_input.empty() &&
                          o.q.size() == model->nq() && o.q.allFinite();
      if (usable) {
        view.AddFigure(figure, {o.q}, solvers[s].name,
                       PaletteColor(static_cast<int>(s)));
        if (o.success && !found) {
          drawn_at = o.q;
          found = true;
        }
      }
      if (!o.invalid_input.empty()) {
        rows.push_back({solvers[s].name, "refused: " + o.invalid_input, "", "",
                        "", ""});
        continue;
      }
      rows.push_back({solvers[s].name, SolveStatusName(o.status),
                      o.success ? "yes" : "NO",
                      FormatNumber(o.check.position_error, 3),
                      FormatNumber(o.check.rotation_error, 3),
                      FormatNumber(o.microseconds, 3)});
    }
    Problem problem(model);
    problem.AddGoal(std::make_shared<PositionOrientationGoal>(
        *model, robot.tip_link, targets[t].target));
    AddProblemLayers(problem, drawn_at, 0.1 * extent, &view);
    view.SetTable({"solver", "status", "success (independent check)",
                   "position error (m)", "rotation error (rad)", "time (µs)"},
                  std::move(rows));
  }
}

void SetBenchmarkParameters(const BenchmarkSettings& settings,
                            ExperimentOutput* out) {
  out->SetParameter("targets_per_robot_and_seed_mode", settings.targets);
  out->SetParameter("time_budget_ms", 1e3 * settings.time_budget_seconds);
  out->SetParameter("tolerance", settings.tolerance);
  out->SetParameter("rotation_weight", 0.4);
  out->SetParameter("threads", settings.threads);
  out->SetParameter("joint_limits",
                    "soft: URDF <limit> narrowed to <safety_controller> soft "
                    "limits where given (as MoveIt and TRAC-IK read URDF)");
}

// Every robot × seed mode × applicable solver; the outcomes go to one CSV
// per robot and seed mode.
std::vector<BenchmarkSummary> RunBenchmarks(
    const std::vector<BenchmarkRobot>& robots,
    const std::vector<BenchmarkSolver>& solvers,
    const BenchmarkSettings& settings, const ExperimentContext& context,
    ExperimentOutput* out) {
  const SeedMode modes[] = {SeedMode::kMidLimits, SeedMode::kRandom};
  Scene scene("Standard IK benchmark: sampled targets per robot", "m",
              Eigen::Vector3d::UnitZ());
  std::vector<BenchmarkSummary> summaries;
  const double steps = robots.size() * 2.0 * solvers.size();
  int step = 0;
  for (const BenchmarkRobot& robot : robots) {
    const UrdfFigure urdf =
        LoadUrdfChain(robot.urdf_path, robot.base_link, robot.tip_link);
    const auto model = std::make_shared<const Model>(urdf.figure.Compile());
    const int site = model->SiteIndex(robot.tip_link);
    for (SeedMode mode : modes) {
      const auto targets =
          GenerateTargets(*model, site, settings.targets, settings.seed, mode);
      bool first = true;
      std::vector<std::vector<TargetOutcome>> per_solver(solvers.size());
      for (std::size_t s = 0; s < solvers.size(); ++s) {
        const BenchmarkSolver& solver = solvers[s];
        context.Progress(step++ / steps, robot.name + " " + solver.name);
        if (!NotApplicable(solver, *model, site).empty()) continue;
        per_solver[s] = RunTargets(model, site, targets, solver, settings);
        const std::vector<TargetOutcome>& outcomes = per_solver[s];
        WriteOutcomesCsv((out->dir() / (robot.name + "_" + SeedModeName(mode) +
                                        "_outcomes.csv"))
                             .string(),
                         *model, solver.name, outcomes, !first);
        first = false;
        summaries.push_back(Summarize(robot.name, solver.name,
                                      SeedModeName(mode), model->nq(),
                                      outcomes));
      }
      if (mode == SeedMode::kRandom && !targets.empty()) {
        AddBenchmarkViews(robot, model, site, targets, solvers, per_solver,
                          &scene);
      }
    }
  }
  scene.Write(out->dir() / "scene.json");
  out->AddScene("scene.json",
                "Per robot " + std::to_string(kSceneTargets) +
                    " targets (random seeds; targets some solver failed "
                    "first): the seed pose (grey), each solver's answer in "
                    "its colour and the target frame (black). The table "
                    "under a view says which answers passed the independent "
                    "check; a failed answer is drawn where it stopped. Use "
                    "side by side to tell the answers apart.");
  return summaries;
}

// Table of every run.
void AddBenchmarkTable(const std::vector<BenchmarkSummary>& summaries,
                       ExperimentOutput* out) {
  std::vector<std::vector<std::string>> rows;
  for (const BenchmarkSummary& s : summaries) {
    rows.push_back({s.robot, std::to_string(s.dofs), s.seed_mode, s.solver,
                    FormatNumber(100.0 * s.solve_rate, 5) + " %",
                    FormatNumber(s.mean_us, 3), FormatNumber(s.median_us, 3),
                    FormatNumber(s.p99_us, 3), FormatNumber(s.mean_iterations, 3),
                    std::to_string(s.false_claims),
                    std::to_string(s.local_minima),
                    std::to_string(s.unreachable)});
  }
  out->AddTable("Every robot × seed mode × solver (local minima: solves "
                "stopped short at a point that is not a solution; "
                "unreachable: solves that showed the target out of reach)",
                {"robot", "DOF", "seed", "solver", "solve rate", "mean µs",
                 "median µs", "p99 µs", "iterations", "false claims",
                 "local minima", "unreachable"},
                rows, "summary.csv");
}

// Solve rate and mean time per robot and solver, random seeds.
void DrawBenchmarkCharts(const std::vector<BenchmarkRobot>& robots,
                         const std::vector<BenchmarkSolver>& solvers,
                         const std::vector<BenchmarkSummary>& summaries,
                         ExperimentOutput* out) {
  BarChart rates;
  rates.title = "Solve rate per robot (random seeds)";
  rates.y_label = "solve rate (%)";
  rates.y_range = "[0:100]";
  BarChart times;
  times.title = "Mean time per solve, failures included (random seeds)";
  times.y_label = "mean time per solve (µs)";
  times.log_y = true;
  for (const auto& r : robots) {
    rates.categories.push_back(r.name);
    times.categories.push_back(r.name);
  }
  for (const BenchmarkSolver& solver : solvers) {
    rates.series_names.push_back(solver.name);
    times.series_names.push_back(solver.name);
    std::vector<double> rate_values, time_values;
    for (const auto& r : robots) {
      for (const BenchmarkSummary& s : summaries) {
        if (s.robot == r.name && s.solver == solver.name &&
            s.seed_mode == "random") {
          rate_values.push_back(100.0 * s.solve_rate);
          time_values.push_back(s.mean_us);
        }
      }
    }
    rates.values.push_back(rate_values);
    times.values.push_back(time_values);
  }
  DrawBarChart(rates, out->dir(), "solve_rate");
  out->AddFigure("solve_rate.png", "Solve rate per robot and solver (random seeds)");
  DrawBarChart(times, out->dir(), "mean_time");
  out->AddFigure("mean_time.png",
                 "Mean time per solve including failures (random seeds, log scale)");
}

// Claims: the best iklab solver by mean rate, then by mean time.
void AddBenchmarkClaims(const std::vector<BenchmarkSummary>& summaries,
                        ExperimentOutput* out) {
  // Per solver over all robots and seed modes.
  std::map<std::string, std::pair<double, double>> rate_time;  // sums
  std::map<std::string, int> counts;
  int false_claims = 0;
  for (const BenchmarkSummary& s : summaries) {
    rate_time[s.solver].first += s.solve_rate;
    rate_time[s.solver].second += s.mean_us;
    ++counts[s.solver];
    false_claims += s.false_claims;
  }
  std::string best;
  double best_rate = -1.0, best_time = 0.0;
  for (const auto& [name, sums] : rate_time) {
    const double rate = sums.first / counts[name];
    const double time = sums.second / counts[name];
    if (rate > best_rate || (rate == best_rate && time < best_time)) {
      best = name;
      best_rate = rate;
      best_time = time;
    }
  }
  double worst_rate = 1.0, worst_mean = 0.0;
  for (const BenchmarkSummary& s : summaries) {
    if (s.solver != best) continue;
    worst_rate = std::min(worst_rate, s.solve_rate);
    worst_mean = std::max(worst_mean, s.mean_us);
  }
  const std::string ours = best + ": " + FormatNumber(100.0 * best_rate, 5) +
                           " % mean rate (worst robot " +
                           FormatNumber(100.0 * worst_rate, 5) + " %), " +
                           FormatNumber(best_time, 3) + " µs mean (worst " +
                           FormatNumber(worst_mean, 3) + " µs)";
  out->AddClaim({"Best iklab solver vs the best-known CPU solver (TRAC-IK)",
                 "96–98 % at 260–470 µs mean", ours,
                 best_rate >= 0.98 && best_time <= 260.0 ? Verdict::kReproduced
                                                         : Verdict::kDiffers,
                 best_rate >= 0.98 && best_time <= 260.0
                     ? "at least as reliable and faster on every count"
                     : "slower or less reliable than the reference here"});
  const bool target_met = worst_rate >= 0.9999 && worst_mean <= 20.0;
  out->AddClaim(
      {"Target: ≥ 99.99 % at ≤ 20 µs mean on every robot, single-threaded",
       "bounded LM with restarts: 100 % at 5–13 µs", ours,
       target_met ? Verdict::kReproduced : Verdict::kDiffers,
       target_met ? "met on every robot and seed mode"
                  : "worst robot below the rate or above the time target "
                    "(see the table; timings on a shared machine)"});
  out->AddClaim({"Every claimed success survives the independent FK check",
                 "(other libraries have shipped false successes)",
                 std::to_string(false_claims) + " false claims",
                 false_claims == 0 ? Verdict::kReproduced : Verdict::kDiffers,
                 false_claims == 0 ? "no solver claimed a success the check "
                                     "rejected"
                                   : "see the false-claims column"});
}

void RunStandardIkBenchmark(const ExperimentContext& context,
                            ExperimentOutput* out) {
  BenchmarkSettings settings;
  settings.targets = context.quick ? 20 : 300;
  settings.seed = context.seed;
  settings.threads = context.threads;
  SetBenchmarkParameters(settings, out);

  const auto robots = StandardRobots(DataDirectory().string());
  const auto solvers = PoseSolvers();
  const std::vector<BenchmarkSummary> summaries =
      RunBenchmarks(robots, solvers, settings, context, out);
  AddBenchmarkTable(summaries, out);
  DrawBenchmarkCharts(robots, solvers, summaries, out);
  AddBenchmarkClaims(summaries, out);
}

}  // namespace

void AddStandardIkBenchmark(std::vector<Experiment>* experiments) {
  experiments->push_back(
      {"ik-benchmark-real-robots",
       "Standard IK benchmark on real 6- and 7-DOF robots",
       "the TRAC-IK benchmark protocol (Beeson & Ames 2015); reference numbers "
       "from TRAC-IK's published results and iklab's targets",
       RunStandardIkBenchmark});
}

}  // namespace iklab
