#include "bench/bench_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/command_options.h"
#include "bench/ik_benchmark.h"
#include "lab/data.h"
#include "lab/report.h"
#include "framework/mjcf_loader.h"
#include "framework/urdf_loader.h"

namespace iklab {

void AddBenchOptions(CLI::App* command, BenchCommandOptions* o) {
  command->add_option("--data", o->data_dir,
                      "Folder holding robots/ (default: the shipped data; "
                      "IKLAB_DATA_DIR overrides it)");
  command
      ->add_option("--limits", o->joint_limits,
                   "Joint limits read from URDF: soft (<limit> narrowed to "
                   "<safety_controller> soft limits, as MoveIt and TRAC-IK "
                   "do) or hard (<limit> only)")
      ->capture_default_str()
      ->check(CLI::IsMember({"soft", "hard"}));
  command
      ->add_option("--robots", o->robots,
                   "Robots to run (default: all): panda, iiwa14, gen3, "
                   "ur5, baxter_left, pr2_right")
      ->delimiter(',');
  command
      ->add_option(
          "--solvers", o->solvers,
          "Solvers to run (default: all): bounded-lm, lbfgsb+restarts, "
          "ceres-lm+restarts, ceres-dogleg+restarts, analytic-6r (robots "
          "with a spherical wrist or three parallel axes only, n/a on the "
          "others), tolani (SRS 7-DOF arms only: iiwa14), and the KDL "
          "baselines kdl-lma, kdl-nr-jl when built with KDL; bounded-lm-simd "
          "(see --simd) only when named")
      ->delimiter(',');
  command->add_flag(
      "--simd", o->simd,
      "Also run bounded-lm-simd: bounded LM on several targets at once "
      "across SIMD lanes (no time budget of its own; its time per target is "
      "its share of the batch's wall time)");
  command
      ->add_option("--seeds", o->seed_modes,
                   "Seed poses: mid-limits, random (default: both)")
      ->delimiter(',')
      ->check(CLI::IsMember({"mid-limits", "random"}));
  command->add_option("--targets,-n", o->targets, "Random targets per robot")
      ->capture_default_str()
      ->check(IntegerIn(1, kMaxTargets));
  command->add_option("--seed,-s", o->seed, "Seed of the targets")
      ->capture_default_str()
      ->check(UnsignedInteger64());
  command
      ->add_option("--budget-ms", o->budget_ms,
                   "Time budget per solve (ms); results are bit-identical "
                   "between runs only when it does not bind")
      ->capture_default_str()
      ->check(NumberIn(0.0, kMaxBudgetMs, /*open_lower=*/true));
  command->add_option("--tolerance", o->tolerance,
                      "Success tolerance per position (m) and rotation-vector "
                      "(rad) component")
      ->capture_default_str()
      ->check(NumberIn(0.0, 1.0, /*open_lower=*/true));
  command->add_option("--threads,-j", o->threads, "Worker threads")
      ->capture_default_str()
      ->check(ThreadCount());
  command->add_option("--out,-o", o->out_dir, "Output folder")
      ->capture_default_str();
  command->add_option("--urdf", o->urdf, "Your own robot: a URDF file");
  command
      ->add_option("--mjcf", o->mjcf,
                   "Your own robot: an MJCF (MuJoCo XML) file, compiled by "
                   "MuJoCo")
      ->excludes("--urdf");
  command->add_option("--base", o->base_link,
                      "Base link of --urdf's chain (body of --mjcf's)");
  command->add_option("--tip", o->tip_link,
                      "Tip link of --urdf's chain (site or body of --mjcf's)");
  command->add_option(
      "--collisions", o->collisions,
      "Collision-free answers: 'self' (the robot file's collision shapes, "
      "self-collision matrix computed as MoveIt's setup assistant does), "
      "'OBSTACLES.json', or 'self,OBSTACLES.json'");
  command->add_option("--collision-matrix", o->collision_matrix,
                      "With --collisions self: read the self-collision "
                      "matrix from this JSON file (one robot) instead of "
                      "computing it");
  command->add_option("--write-collision-matrix", o->write_collision_matrix,
                      "With --collisions self: write the self-collision "
                      "matrix used to this JSON file (one robot)");
  command->add_option("--targets-csv", o->targets_csv,
                      "Your own targets: CSV, per row the seed joint vector "
                      "then x,y,z,qw,qx,qy,qz; a first line ending in "
                      "x,y,z,qw,qx,qy,qz is the header");
}

namespace {

std::string Fixed(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, v);
  return buffer;
}

bool Selected(const std::vector<std::string>& chosen, const std::string& name) {
  if (chosen.empty()) return true;
  for (const auto& c : chosen) {
    if (c == name) return true;
  }
  return false;
}

// The robots to run: the user's URDF chain (--urdf, --base, --tip), or the
// shipped robots named by --robots (default: all). False after a one-line
// message on stderr for bad input.
bool ChooseRobots(const BenchCommandOptions& o,
                  std::vector<BenchmarkRobot>* robots) {
  if (!o.urdf.empty() || !o.mjcf.empty()) {
    const bool mjcf = !o.mjcf.empty();
    if (o.base_link.empty() || o.tip_link.empty()) {
      std::fprintf(stderr, "iklab bench: %s needs --base and --tip\n",
                   mjcf ? "--mjcf" : "--urdf");
      return false;
    }
    const std::string& path = mjcf ? o.mjcf : o.urdf;
    BenchmarkRobot robot{std::filesystem::path(path).stem().string(), path,
                         o.base_link, o.tip_link};
    if (mjcf) robot.mjcf_path = path;
    robots->push_back(robot);
    return true;
  }
  if (!o.targets_csv.empty()) {
    std::fprintf(stderr,
                 "iklab bench: --targets-csv needs --urdf or --mjcf, --base "
                 "and --tip (the targets are for one chain)\n");
    return false;
  }
  const std::string data =
      o.data_dir.empty() ? DataDirectory().string() : o.data_dir;
  const std::string origin =
      o.data_dir.empty() ? DataDirectoryOrigin() : "--data";
  for (const auto& r : StandardRobots(data)) {
    if (!Selected(o.robots, r.name)) continue;
    if (!std::filesystem::exists(r.urdf_path)) {
      std::fprintf(stderr,
                   "iklab bench: robot model '%s' not found (data folder "
                   "from %s); pass --data DIR or set the environment "
                   "variable IKLAB_DATA_DIR to a folder that holds "
                   "robots/\n",
                   r.urdf_path.c_str(), origin.c_str());
      return false;
    }
    robots->push_back(r);
  }
  std::fprintf(stderr, "iklab bench: robot models from %s (%s)\n",
               data.c_str(), origin.c_str());
  for (const auto& name : o.robots) {
    bool known = false;
    for (const auto& r : StandardRobots(data)) known |= r.name == name;
    if (!known) {
      std::fprintf(stderr, "iklab bench: unknown robot '%s'\n", name.c_str());
      return false;
    }
  }
  return true;
}

// The solvers to run: iklab's, then other libraries' (KDL) when built in;
// those named by --solvers (default: all). False after a one-line message
// naming an unknown solver and the known ones.
bool ChooseSolvers(const BenchCommandOptions& o,
                   std::vector<BenchmarkSolver>* solvers) {
  std::vector<BenchmarkSolver> known = PoseSolvers();
  for (auto& s : BaselineSolvers()) known.push_back(std::move(s));
  if (!KdlBaselinesBuilt()) {
    std::fprintf(stderr,
                 "iklab bench: note: KDL baselines (kdl-lma, kdl-nr-jl) were "
                 "not built (liborocos-kdl-dev was not found at configure "
                 "time)\n");
  }
  for (auto& s : known) {
    if (Selected(o.solvers, s.name)) solvers->push_back(s);
  }
  // bounded-lm-simd runs when named or with --simd (not by default).
  known.push_back(SimdBenchmarkSolver());
  bool named = false;
  for (const auto& name : o.solvers) named |= name == known.back().name;
  if (o.simd || named) solvers->push_back(known.back());
  for (const auto& name : o.solvers) {
    bool found = false;
    for (const auto& s : known) found |= s.name == name;
    if (!found) {
      std::fprintf(stderr,
                   "iklab bench: unknown solver '%s'%s; known:", name.c_str(),
                   name.rfind("kdl-", 0) == 0 && !KdlBaselinesBuilt()
                       ? " (the KDL baselines were not built)"
                       : "");
      for (const auto& s : known) std::fprintf(stderr, " %s", s.name.c_str());
      std::fprintf(stderr, "\n");
      return false;
    }
  }
  return true;
}

// The protocol's settings from the options, after saying which joint limits
// are read. False after a one-line message when a number is out of range.
bool MakeSettings(const BenchCommandOptions& o, BenchmarkSettings* settings) {
  std::fprintf(stderr, "iklab bench: joint limits: %s\n",
               !o.mjcf.empty() ? "the MJCF joint ranges (MJCF has no soft "
                                 "limits; --limits does not apply)"
               : o.joint_limits == "hard"
                   ? "hard (URDF <limit> only; --limits soft narrows them "
                     "to <safety_controller> soft limits)"
                   : "soft (URDF <limit> narrowed to <safety_controller> "
                     "soft limits where given, as MoveIt and TRAC-IK do; "
                     "--limits hard for <limit> only)");
  settings->targets = o.targets;
  settings->seed = o.seed;
  settings->time_budget_seconds = o.budget_ms * 1e-3;
  settings->tolerance = o.tolerance;
  settings->threads = o.threads;
  if (!(settings->time_budget_seconds > 0.0) ||
      !std::isfinite(settings->time_budget_seconds) || !(o.tolerance > 0.0) ||
      !std::isfinite(o.tolerance) || o.targets < 1 || o.threads < 1) {
    std::fprintf(stderr,
                 "iklab bench: --budget-ms and --tolerance must be finite and "
                 "> 0, --targets and --threads >= 1\n");
    return false;
  }
  return true;
}

// The robot's chain, compiled; says which joints soft limits narrowed. Null
// after a one-line message for a chain that cannot be read or has nothing to
// solve.
std::shared_ptr<const Model> LoadRobot(const BenchmarkRobot& robot,
                                       const std::string& joint_limits) {
  std::shared_ptr<const Model> model;
  try {
    if (!robot.mjcf_path.empty()) {
      const MjcfFigure mjcf = LoadSolvingMjcfChain(
          robot.mjcf_path, robot.base_link, robot.tip_link);
      for (const std::string& j : mjcf.narrowed_ball_joints) {
        std::fprintf(stderr,
                     "%s: ball joint %s: MuJoCo's cone limit narrowed to the "
                     "box inside it\n",
                     robot.name.c_str(), j.c_str());
      }
      model = std::make_shared<const Model>(mjcf.figure.Compile());
    } else {
      // Mimic joints are enforced: the model's coordinates are the free ones.
      UrdfFigure urdf = LoadUrdfChain(robot.urdf_path, robot.base_link,
                                      robot.tip_link,
                                      SolvingUrdfOptions(joint_limits));
      model = std::make_shared<const Model>(urdf.figure.Compile());
      if (!urdf.soft_limited_joints.empty()) {
        std::fprintf(stderr,
                     "%s: soft limits narrow %zu joint(s):", robot.name.c_str(),
                     urdf.soft_limited_joints.size());
        for (const auto& j : urdf.soft_limited_joints) {
          std::fprintf(stderr, " %s", j.c_str());
        }
        std::fprintf(stderr, "\n");
      }
    }
  } catch (const std::bad_alloc&) {
    throw;  // RunCommandLine says "out of memory" and what to reduce
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iklab bench: %s\n", e.what());
    return nullptr;
  }
  if (model->nq() == 0) {
    std::fprintf(stderr,
                 "iklab bench: %s: the chain %s -> %s has no moving joints "
                 "(0 coordinates), so there is nothing to solve; choose a "
                 "--base and --tip with joints between them\n",
                 robot.urdf_path.c_str(), robot.base_link.c_str(),
                 robot.tip_link.c_str());
    return nullptr;
  }
  return model;
}

// One robot's targets of one seed mode, as the solvers of RunSolver take
// them.
struct TargetSet {
  const BenchmarkRobot* robot = nullptr;
  std::shared_ptr<const Model> model;
  int site = 0;
  /// The seed mode as the console says it ("mid-limits", "random"), and as
  /// the summaries and file names say it ("csv" for --targets-csv).
  std::string mode_name;
  std::string seed_mode;
  std::vector<BenchmarkTarget> targets;
  std::string outcomes_csv;
};

// Runs one solver on one target set: prints its line (or why it does not
// apply: then returns nothing), notes invalid-input refusals, and writes
// the per-target outcomes (appended to the earlier solvers' when `append`).
std::optional<BenchmarkSummary> RunSolver(const TargetSet& set,
                                          const BenchmarkSolver& solver,
                                          const BenchmarkSettings& settings,
                                          bool append) {
  const char* robot = set.robot->name.c_str();
  const char* mode = set.mode_name.c_str();
  const std::string not_applicable =
      settings.collisions && !solver.make_with_goals
          ? "takes no collision goal"
          : NotApplicable(solver, *set.model, set.site);
  if (!not_applicable.empty()) {
    std::fprintf(stderr, "%-12s %-10s %-24s n/a (%s)\n", robot, mode,
                 solver.name.c_str(), not_applicable.c_str());
    return std::nullopt;
  }
  std::fprintf(stderr, "%-12s %-10s %-24s ...", robot, mode,
               solver.name.c_str());
  std::fflush(stderr);
  // The per-target rows stream into the file as chunks of targets finish.
  OutcomesCsvWriter writer(set.outcomes_csv, *set.model, solver.name, append);
  const auto outcomes = RunTargets(set.model, set.site, set.targets, solver,
                                   settings, {}, &writer);
  writer.Close();
  const BenchmarkSummary s =
      Summarize(set.robot->name, solver.name, set.seed_mode, set.model->nq(),
                outcomes, settings.time_budget_seconds);
  std::fprintf(stderr,
               "\r%-12s %-10s %-24s rate %8.4f %%  mean %9.1f us  "
               "median %8.1f us  p99 %8.1f us%s%s\n",
               robot, mode, solver.name.c_str(), 100.0 * s.solve_rate,
               s.mean_us, s.median_us, s.p99_us,
               s.false_claims ? "  FALSE CLAIMS" : "",
               s.overruns ? "  OVERRUNS" : "");
  // A solver that cannot take this chain says why, once, here (not
  // only in a status column of the per-target CSV).
  int invalid = 0;
  const std::string* why = nullptr;
  for (const TargetOutcome& outcome : outcomes) {
    if (outcome.status != SolveStatus::kInvalidInput) continue;
    ++invalid;
    if (why == nullptr) why = &outcome.invalid_input;
  }
  if (invalid > 0) {
    std::fprintf(stderr,
                 "iklab bench: note: %s: %d of %zu solve(s) reported "
                 "invalid input: %s\n",
                 solver.name.c_str(), invalid, outcomes.size(), why->c_str());
  }
  return s;
}

// Every solver on every seed mode of one robot (once on --targets-csv's
// targets, which fix the seeds); appends the summaries. False after a
// one-line message for a robot or target file that cannot be used.
bool RunRobot(const BenchCommandOptions& o, const BenchmarkRobot& robot,
              const std::vector<BenchmarkSolver>& solvers,
              const BenchmarkSettings& settings,
              std::vector<BenchmarkSummary>* summaries) {
  TargetSet set;
  set.robot = &robot;
  set.model = LoadRobot(robot, o.joint_limits);
  if (set.model == nullptr) return false;
  const Model& model = *set.model;
  // Targets and outcomes of one robot: a pose, a seed and a solution each,
  // checked before they are allocated.
  CheckMemoryEstimate(
      static_cast<double>(o.targets) *
          (sizeof(BenchmarkTarget) + sizeof(TargetOutcome) + 64.0 +
           2.0 * sizeof(double) * model.nq()),
      std::to_string(o.targets) + " targets of " + robot.name,
      "reduce --targets");
  set.site = model.SiteIndex(robot.tip_link);
  BenchmarkSettings robot_settings = settings;
  if (!o.collisions.empty()) {
    try {
      const bool mjcf = !robot.mjcf_path.empty();
      CollisionSetting setting = ParseCollisionSetting(o.collisions);
      setting.matrix_file = o.collision_matrix;
      auto setup = std::make_shared<CollisionSetup>(MakeCollisionSetup(
          setting, model, mjcf ? robot.mjcf_path : robot.urdf_path, mjcf));
      if (!o.write_collision_matrix.empty()) {
        if (!setting.self) {
          throw std::invalid_argument(
              "--write-collision-matrix " + o.write_collision_matrix +
              ": a self-collision matrix needs self-collisions; add 'self' "
              "to --collisions");
        }
        WriteSelfCollisionMatrix(setup->matrix, o.write_collision_matrix);
      }
      std::fprintf(stderr,
                   "%-12s collisions: %zu shapes, %zu of %zu self pairs "
                   "checked (%d adjacent, %d default, %d always, %d never in "
                   "%d samples), %zu obstacles\n",
                   robot.name.c_str(), setup->shapes.size(),
                   setup->self_pairs.size(), setup->matrix.pairs.size(),
                   setup->matrix.Count(CollisionPairReason::kAdjacent),
                   setup->matrix.Count(CollisionPairReason::kDefault),
                   setup->matrix.Count(CollisionPairReason::kAlways),
                   setup->matrix.Count(CollisionPairReason::kNever),
                   setup->matrix.samples, setup->obstacles.size());
      robot_settings.collisions = std::move(setup);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "iklab bench: %s\n", e.what());
      return false;
    }
  }
  for (const std::string& mode_name : o.seed_modes) {
    const SeedMode mode =
        mode_name == "random" ? SeedMode::kRandom : SeedMode::kMidLimits;
    try {
      set.targets =
          o.targets_csv.empty()
              ? GenerateTargets(model, set.site, o.targets, o.seed, mode,
                                o.threads, robot_settings.collisions.get())
              : ReadTargetsCsv(o.targets_csv, model.nq());
    } catch (const std::bad_alloc&) {
      throw;  // RunCommandLine says "out of memory" and what to reduce
    } catch (const std::exception& e) {
      std::fprintf(stderr, "iklab bench: %s\n", e.what());
      return false;
    }
    set.mode_name = mode_name;
    set.seed_mode = o.targets_csv.empty() ? mode_name : "csv";
    const std::string stem = o.out_dir + "/" + robot.name + "_" + set.seed_mode;
    WriteTargetsCsv(stem + "_targets.csv", model, set.targets, o.threads);
    set.outcomes_csv = stem + "_outcomes.csv";
    bool first = true;
    for (const BenchmarkSolver& solver : solvers) {
      const std::optional<BenchmarkSummary> s =
          RunSolver(set, solver, robot_settings, /*append=*/!first);
      if (!s) continue;
      first = false;
      summaries->push_back(*s);
    }
    if (!o.targets_csv.empty()) break;  // the CSV fixes the seeds
  }
  return true;
}

// Determinism: with a budget that never binds, results are bit-identical
// run to run (iteration and evaluation caps decide); once a solve overruns
// (a solver stops between bounded units of work, or the OS preempts it)
// the outcome depends on timing. This note says so wherever the results
// go; empty when no solve overran.
std::string OverrunNote(const std::vector<BenchmarkSummary>& summaries) {
  int overruns = 0;
  double worst = 0.0;
  for (const BenchmarkSummary& s : summaries) {
    overruns += s.overruns;
    worst = std::max(worst, s.worst_overrun_ratio);
  }
  if (overruns == 0) return "";
  return "note: " + std::to_string(overruns) +
         " solve(s) overran the --budget-ms budget (worst " + Fixed(worst, 1) +
         "x the budget; counted as failures): the budget binds, so these "
         "results depend on timing and are not bit-reproducible; raise "
         "--budget-ms for reproducible results";
}

void WriteSummaryCsv(const std::string& path,
                     const std::vector<BenchmarkSummary>& summaries) {
  std::ofstream csv(path);
  csv << "robot,dofs,seed_mode,solver,targets,solve_rate,mean_us,median_us,"
         "p95_us,p99_us,mean_iterations,false_claims,local_minima,"
         "unreachable,overruns\n";
  for (const BenchmarkSummary& s : summaries) {
    csv << s.robot << "," << s.dofs << "," << s.seed_mode << "," << s.solver
        << "," << s.targets << "," << s.solve_rate << "," << s.mean_us << ","
        << s.median_us << "," << s.p95_us << "," << s.p99_us << ","
        << s.mean_iterations << "," << s.false_claims << "," << s.local_minima
        << "," << s.unreachable << "," << s.overruns << "\n";
  }
}

void WriteSummaryMarkdown(const BenchCommandOptions& o,
                          const std::vector<BenchmarkSummary>& summaries,
                          const std::string& note) {
  std::ofstream md(o.out_dir + "/summary.md");
  if (!o.mjcf.empty()) {
    md << "Model: " << o.mjcf
       << " (MJCF, compiled by MuJoCo). Joint limits: its joint ranges.\n\n";
  } else {
    md << "Joint limits: " << o.joint_limits
       << (o.joint_limits == "soft"
               ? " (URDF <limit> narrowed to <safety_controller> soft limits "
                 "where given, as MoveIt and TRAC-IK do)"
               : " (URDF <limit> only, soft limits ignored)")
       << ".\n\n";
  }
  md << "| robot | DOF | seed | solver | solve rate | mean µs | median µs | "
        "p95 µs | p99 µs | iterations | local minima | unreachable |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
        "--- |\n";
  for (const BenchmarkSummary& s : summaries) {
    md << "| " << s.robot << " | " << s.dofs << " | " << s.seed_mode << " | "
       << s.solver << " | " << Fixed(100.0 * s.solve_rate, 2) << " % | "
       << Fixed(s.mean_us, 1) << " | " << Fixed(s.median_us, 1) << " | "
       << Fixed(s.p95_us, 1) << " | " << Fixed(s.p99_us, 1) << " | "
       << Fixed(s.mean_iterations, 1) << " | " << s.local_minima << " | "
       << s.unreachable << " |\n";
  }
  if (!note.empty()) md << "\n" << note << "\n";
  if (!KdlBaselinesBuilt()) {
    md << "\nKDL baselines (kdl-lma, kdl-nr-jl) were not built: "
          "liborocos-kdl-dev was not found at configure time.\n";
  }
}

void WriteSummaryJson(const BenchCommandOptions& o,
                      const std::vector<BenchmarkSummary>& summaries,
                      const std::string& note) {
  nlohmann::json json;
  json["machine"] = MachineDescription();
  json["settings"] = {{"targets", o.targets},
                      {"seed", o.seed},
                      {"budget_ms", o.budget_ms},
                      {"tolerance", o.tolerance},
                      {"threads", o.threads},
                      {"joint_limits",
                       o.mjcf.empty() ? o.joint_limits : "mjcf-ranges"},
                      {"kdl_baselines_built", KdlBaselinesBuilt()}};
  for (const BenchmarkSummary& s : summaries) {
    json["results"].push_back({{"robot", s.robot},
                               {"dofs", s.dofs},
                               {"seed_mode", s.seed_mode},
                               {"solver", s.solver},
                               {"targets", s.targets},
                               {"solve_rate", s.solve_rate},
                               {"mean_us", s.mean_us},
                               {"median_us", s.median_us},
                               {"p95_us", s.p95_us},
                               {"p99_us", s.p99_us},
                               {"mean_iterations", s.mean_iterations},
                               {"false_claims", s.false_claims},
                               {"local_minima", s.local_minima},
                               {"unreachable", s.unreachable},
                               {"overruns", s.overruns},
                               {"worst_overrun_ratio", s.worst_overrun_ratio}});
  }
  if (!note.empty()) json["note"] = note;
  std::ofstream(o.out_dir + "/summary.json") << json.dump(2) << "\n";
}

}  // namespace

int RunBenchCommand(const BenchCommandOptions& o) {
  std::vector<BenchmarkRobot> robots;
  std::vector<BenchmarkSolver> solvers;
  BenchmarkSettings settings;
  if (!ChooseRobots(o, &robots) || !ChooseSolvers(o, &solvers) ||
      !MakeSettings(o, &settings)) {
    return 2;
  }
  if ((!o.collision_matrix.empty() || !o.write_collision_matrix.empty()) &&
      (o.collisions.empty() || robots.size() != 1)) {
    std::fprintf(stderr,
                 "iklab bench: --collision-matrix and "
                 "--write-collision-matrix need --collisions self and one "
                 "robot (--robots NAME, --urdf or --mjcf); %zu robots "
                 "chosen%s\n",
                 robots.size(),
                 o.collisions.empty() ? ", no --collisions" : "");
    return 2;
  }
  // Every file is written into --out: refuse an unusable folder before any
  // work (not after minutes of solves).
  PrepareOutputFolder(o.out_dir, "--out");

  std::vector<BenchmarkSummary> summaries;
  for (const BenchmarkRobot& robot : robots) {
    if (!RunRobot(o, robot, solvers, settings, &summaries)) return 2;
  }

  // Summary: CSV, Markdown, JSON.
  const std::string note = OverrunNote(summaries);
  if (!note.empty()) std::fprintf(stderr, "iklab bench: %s\n", note.c_str());
  WriteSummaryCsv(o.out_dir + "/summary.csv", summaries);
  WriteSummaryMarkdown(o, summaries, note);
  WriteSummaryJson(o, summaries, note);
  std::printf("Results: %s/summary.md (and .csv, .json, per-target CSVs)\n",
              o.out_dir.c_str());
  return 0;
}

}  // namespace iklab
