#include "bench/bench_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "bench/ik_benchmark.h"
#include "lab/data.h"
#include "lab/report.h"
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
          "others), and the KDL baselines kdl-lma, kdl-nr-jl when built "
          "with KDL")
      ->delimiter(',');
  command
      ->add_option("--seeds", o->seed_modes,
                   "Seed poses: mid-limits, random (default: both)")
      ->delimiter(',')
      ->check(CLI::IsMember({"mid-limits", "random"}));
  command->add_option("--targets,-n", o->targets, "Random targets per robot")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--seed,-s", o->seed, "Seed of the targets")
      ->capture_default_str();
  command->add_option("--budget-ms", o->budget_ms, "Time budget per solve (ms)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--tolerance", o->tolerance,
                      "Success tolerance per position (m) and rotation-vector "
                      "(rad) component")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--threads,-j", o->threads, "Worker threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  command->add_option("--out,-o", o->out_dir, "Output folder")
      ->capture_default_str();
  command->add_option("--urdf", o->urdf, "Your own robot: a URDF file");
  command->add_option("--base", o->base_link, "Base link of --urdf's chain");
  command->add_option("--tip", o->tip_link, "Tip link of --urdf's chain");
  command->add_option("--targets-csv", o->targets_csv,
                      "Your own targets: CSV, per row the seed joint vector "
                      "then x,y,z,qw,qx,qy,qz (header optional)");
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

}  // namespace

int RunBenchCommand(const BenchCommandOptions& o) {
  std::vector<BenchmarkRobot> robots;
  if (!o.urdf.empty()) {
    if (o.base_link.empty() || o.tip_link.empty()) {
      std::fprintf(stderr, "iklab bench: --urdf needs --base and --tip\n");
      return 2;
    }
    robots.push_back({std::filesystem::path(o.urdf).stem().string(), o.urdf,
                      o.base_link, o.tip_link});
  } else {
    if (!o.targets_csv.empty()) {
      std::fprintf(stderr,
                   "iklab bench: --targets-csv needs --urdf, --base and "
                   "--tip (the targets are for one chain)\n");
      return 2;
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
        return 2;
      }
      robots.push_back(r);
    }
    std::fprintf(stderr, "iklab bench: robot models from %s (%s)\n",
                 data.c_str(), origin.c_str());
    for (const auto& name : o.robots) {
      bool known = false;
      for (const auto& r : StandardRobots(data)) known |= r.name == name;
      if (!known) {
        std::fprintf(stderr, "iklab bench: unknown robot '%s'\n", name.c_str());
        return 2;
      }
    }
  }
  // iklab's solvers, then other libraries' (KDL) when built in.
  std::vector<BenchmarkSolver> known = PoseSolvers();
  for (auto& s : BaselineSolvers()) known.push_back(std::move(s));
  if (!KdlBaselinesBuilt()) {
    std::fprintf(stderr,
                 "iklab bench: note: KDL baselines (kdl-lma, kdl-nr-jl) were "
                 "not built (liborocos-kdl-dev was not found at configure "
                 "time)\n");
  }
  std::vector<BenchmarkSolver> solvers;
  for (auto& s : known) {
    if (Selected(o.solvers, s.name)) solvers.push_back(s);
  }
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
      return 2;
    }
  }

  std::fprintf(stderr, "iklab bench: joint limits: %s\n",
               o.joint_limits == "hard"
                   ? "hard (URDF <limit> only; --limits soft narrows them "
                     "to <safety_controller> soft limits)"
                   : "soft (URDF <limit> narrowed to <safety_controller> "
                     "soft limits where given, as MoveIt and TRAC-IK do; "
                     "--limits hard for <limit> only)");
  BenchmarkSettings settings;
  settings.targets = o.targets;
  settings.seed = o.seed;
  settings.time_budget_seconds = o.budget_ms * 1e-3;
  settings.tolerance = o.tolerance;
  settings.threads = o.threads;
  std::filesystem::create_directories(o.out_dir);

  std::vector<BenchmarkSummary> summaries;
  for (const BenchmarkRobot& robot : robots) {
    std::shared_ptr<const Model> model;
    try {
      UrdfOptions urdf_options;
      urdf_options.soft_limits = o.joint_limits == "hard"
                                     ? UrdfSoftLimits::kIgnore
                                     : UrdfSoftLimits::kNarrow;
      UrdfFigure urdf = LoadUrdfChain(robot.urdf_path, robot.base_link,
                                      robot.tip_link, urdf_options);
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
    } catch (const std::exception& e) {
      std::fprintf(stderr, "iklab bench: %s\n", e.what());
      return 2;
    }
    const int site = model->SiteIndex(robot.tip_link);
    for (const std::string& mode_name : o.seed_modes) {
      const SeedMode mode =
          mode_name == "random" ? SeedMode::kRandom : SeedMode::kMidLimits;
      std::vector<BenchmarkTarget> targets;
      try {
        targets = o.targets_csv.empty()
                      ? GenerateTargets(*model, site, o.targets, o.seed, mode)
                      : ReadTargetsCsv(o.targets_csv, model->nq());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "iklab bench: %s\n", e.what());
        return 2;
      }
      const std::string stem = robot.name + "_" +
                               (o.targets_csv.empty() ? mode_name : "csv");
      WriteTargetsCsv(o.out_dir + "/" + stem + "_targets.csv", *model, targets);
      bool first = true;
      for (const BenchmarkSolver& solver : solvers) {
        const std::string not_applicable =
            NotApplicable(solver, *model, site);
        if (!not_applicable.empty()) {
          std::fprintf(stderr, "%-12s %-10s %-24s n/a (%s)\n",
                       robot.name.c_str(), mode_name.c_str(),
                       solver.name.c_str(), not_applicable.c_str());
          continue;
        }
        std::fprintf(stderr, "%-12s %-10s %-24s ...", robot.name.c_str(),
                     mode_name.c_str(), solver.name.c_str());
        std::fflush(stderr);
        const auto outcomes =
            RunTargets(model, site, targets, solver, settings);
        const BenchmarkSummary s = Summarize(
            robot.name, solver.name, o.targets_csv.empty() ? mode_name : "csv",
            model->nq(), outcomes);
        std::fprintf(stderr,
                     "\r%-12s %-10s %-24s rate %8.4f %%  mean %9.1f us  "
                     "median %8.1f us  p99 %8.1f us%s\n",
                     robot.name.c_str(), mode_name.c_str(), solver.name.c_str(),
                     100.0 * s.solve_rate, s.mean_us, s.median_us, s.p99_us,
                     s.false_claims ? "  FALSE CLAIMS" : "");
        WriteOutcomesCsv(o.out_dir + "/" + stem + "_outcomes.csv", *model,
                         solver.name, outcomes, !first);
        first = false;
        summaries.push_back(s);
      }
      if (!o.targets_csv.empty()) break;  // the CSV fixes the seeds
    }
  }

  // Summary: CSV, JSON, Markdown.
  nlohmann::json json;
  json["machine"] = MachineDescription();
  json["settings"] = {{"targets", o.targets},
                      {"seed", o.seed},
                      {"budget_ms", o.budget_ms},
                      {"tolerance", o.tolerance},
                      {"threads", o.threads},
                      {"joint_limits", o.joint_limits},
                      {"kdl_baselines_built", KdlBaselinesBuilt()}};
  std::ofstream csv(o.out_dir + "/summary.csv");
  csv << "robot,dofs,seed_mode,solver,targets,solve_rate,mean_us,median_us,"
         "p95_us,p99_us,mean_iterations,false_claims\n";
  std::ofstream md(o.out_dir + "/summary.md");
  md << "Joint limits: " << o.joint_limits
     << (o.joint_limits == "soft"
             ? " (URDF <limit> narrowed to <safety_controller> soft limits "
               "where given, as MoveIt and TRAC-IK do)"
             : " (URDF <limit> only, soft limits ignored)")
     << ".\n\n";
  md << "| robot | DOF | seed | solver | solve rate | mean µs | median µs | "
        "p95 µs | p99 µs | iterations |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const BenchmarkSummary& s : summaries) {
    csv << s.robot << "," << s.dofs << "," << s.seed_mode << "," << s.solver
        << "," << s.targets << "," << s.solve_rate << "," << s.mean_us << ","
        << s.median_us << "," << s.p95_us << "," << s.p99_us << ","
        << s.mean_iterations << "," << s.false_claims << "\n";
    md << "| " << s.robot << " | " << s.dofs << " | " << s.seed_mode << " | "
       << s.solver << " | " << Fixed(100.0 * s.solve_rate, 2) << " % | "
       << Fixed(s.mean_us, 1) << " | " << Fixed(s.median_us, 1) << " | "
       << Fixed(s.p95_us, 1) << " | " << Fixed(s.p99_us, 1) << " | "
       << Fixed(s.mean_iterations, 1) << " |\n";
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
                               {"false_claims", s.false_claims}});
  }
  if (!KdlBaselinesBuilt()) {
    md << "\nKDL baselines (kdl-lma, kdl-nr-jl) were not built: "
          "liborocos-kdl-dev was not found at configure time.\n";
  }
  std::ofstream(o.out_dir + "/summary.json") << json.dump(2) << "\n";
  std::printf("Results: %s/summary.md (and .csv, .json, per-target CSVs)\n",
              o.out_dir.c_str());
  return 0;
}

}  // namespace iklab
