#include "cli/command_line.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <new>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/bench_command.h"
#include "bench/command_options.h"
#include "cli/reach_command.h"
#include "cli/retarget_command.h"
#include "cli/view_command.h"
#include "lab/data.h"
#include "lab/html_report.h"
#include "lab/report.h"
#include "solvers/registry.h"

namespace iklab {

namespace {

// One status line per experiment; on a terminal it is redrawn in place as the
// experiment reports progress.
class Progress {
 public:
  explicit Progress(int total) : total_(total), tty_(isatty(STDERR_FILENO)) {}

  std::function<void(double, const std::string&)> For(int index,
                                                      const std::string& name) {
    return [this, index, name](double fraction, const std::string& what) {
      if (!tty_) return;
      std::fprintf(stderr, "\r\033[K[%d/%d] %s  %3.0f%%  %s", index, total_,
                   name.c_str(), 100.0 * fraction, what.c_str());
      std::fflush(stderr);
    };
  }

  void Done(int index, const std::string& name, double seconds,
            const std::string& error) {
    if (tty_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "[%d/%d] %s  %s (%.1f s)\n", index, total_,
                 name.c_str(), error.empty() ? "done" : "FAILED", seconds);
    if (!error.empty()) std::fprintf(stderr, "    %s\n", error.c_str());
  }

 private:
  int total_;
  bool tty_;
};

void CheckExperiments(const std::vector<Experiment>& experiments) {
  std::set<std::string> names;
  for (const Experiment& e : experiments) {
    if (e.name.empty() || !e.run) {
      throw std::invalid_argument(
          "RunCommandLine: every experiment needs a name and a run function "
          "(got name '" + e.name + "'" + (e.run ? "" : " without one") + ")");
    }
    if (!names.insert(e.name).second) {
      throw std::invalid_argument("RunCommandLine: two experiments are named '" +
                                  e.name + "'; names must be unique");
    }
  }
}

struct RunOptions {
  std::vector<std::string> names;
  std::string out_dir = "out";
  std::uint64_t seed = 1;
  bool quick = false;
  int threads = 1;
  std::string data_dir;
};

int List(const std::vector<Experiment>& experiments) {
  std::size_t width = 0;
  for (const Experiment& e : experiments) width = std::max(width, e.name.size());
  for (const Experiment& e : experiments) {
    std::printf("%-*s  %s  [%s]\n", static_cast<int>(width), e.name.c_str(),
                e.title.c_str(), e.source.c_str());
  }
  return 0;
}

int Run(const std::vector<Experiment>& experiments, const RunOptions& options,
        const ProgramInfo& program) {
  std::vector<const Experiment*> selected;
  for (const std::string& name : options.names) {
    if (name == "all") {
      for (const Experiment& e : experiments) selected.push_back(&e);
      continue;
    }
    const Experiment* found = nullptr;
    for (const Experiment& e : experiments) {
      if (e.name == name) found = &e;
    }
    if (found == nullptr) {
      std::fprintf(stderr, "%s: no experiment named '%s'; '%s list' shows the names\n",
                   program.name.c_str(), name.c_str(), program.name.c_str());
      return 2;
    }
    selected.push_back(found);
  }
  if (selected.empty()) {
    std::fprintf(stderr, "%s: no experiments to run\n", program.name.c_str());
    return 2;
  }

  if (!options.data_dir.empty()) {
    try {
      SetDataDirectory(options.data_dir);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "%s: %s\n", program.name.c_str(), e.what());
      return 2;
    }
  }
  // Checked before any experiment runs (not after it has worked for hours).
  PrepareOutputFolder(options.out_dir, "--out");

  ExperimentContext context;
  context.seed = options.seed;
  context.quick = options.quick;
  context.threads = options.threads;
  Progress progress(static_cast<int>(selected.size()));
  std::vector<ExperimentRun> runs;
  int failures = 0;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    context.progress = progress.For(static_cast<int>(i + 1), selected[i]->name);
    runs.push_back(RunExperiment(*selected[i], context, options.out_dir));
    progress.Done(static_cast<int>(i + 1), selected[i]->name,
                  runs.back().wall_seconds, runs.back().error);
    failures += !runs.back().error.empty();
  }
  const auto report =
      WriteReport(runs, context, options.out_dir, program.report_title);
  const auto html_report =
      WriteHtmlReport(runs, context, options.out_dir, program.report_title);
  std::printf("Report: %s\n", report.c_str());
  std::printf("HTML report (opens offline in a browser): %s\n", html_report.c_str());
  if (failures > 0) {
    std::fprintf(stderr, "%s: %d experiment(s) failed; see the report\n",
                 program.name.c_str(), failures);
    return 1;
  }
  return 0;
}

struct SolversOptions {
  std::string family;
  bool json = false;
};

// `iklab solvers`: the solver registry, as text or JSON.
int ListSolvers(const SolversOptions& o) {
  nlohmann::json entries = nlohmann::json::array();
  for (const SolverEntry& e : SolverRegistry()) {
    const char* family = SolverFamilyName(e.family);
    if (!o.family.empty() && o.family != family) continue;
    if (o.json) {
      entries.push_back({{"name", e.name},
                         {"family", family},
                         {"summary", e.summary},
                         {"accepts", e.accepts},
                         {"reference", e.reference},
                         {"hard_constraints", e.hard_constraints},
                         {"own_restarts", e.own_restarts},
                         {"max_iterations", e.defaults.max_iterations}});
      continue;
    }
    std::printf("%-20s %-13s %s\n", e.name.c_str(), family, e.summary.c_str());
    std::printf("%-34s accepts: %s\n", "", e.accepts.c_str());
    std::printf("%-34s from: %s\n", "", e.reference.c_str());
  }
  if (o.json) std::printf("%s\n", entries.dump(2).c_str());
  return 0;
}

}  // namespace

int RunCommandLine(int argc, const char* const* argv,
                   const std::vector<Experiment>& experiments,
                   const ProgramInfo& program) {
  CheckExperiments(experiments);
  CLI::App app{program.name + ": " + program.description, program.name};
  app.require_subcommand(1);

  CLI::App* list = app.add_subcommand("list", "List the experiments and studies");

  RunOptions run_options;
  CLI::App* run = app.add_subcommand(
      "run", "Run experiments by name, or all of them, into an output folder "
             "(one folder each, REPORT.md and the HTML report index.html over all)");
  run->add_option("names", run_options.names, "Experiment names, or 'all'")
      ->required();
  run->add_option("--out,-o", run_options.out_dir, "Output folder")
      ->capture_default_str();
  run->add_option("--seed,-s", run_options.seed, "Seed for every random draw")
      ->capture_default_str()
      ->check(UnsignedInteger64());
  run->add_option("--data", run_options.data_dir,
                  "Data folder (default: the shipped data; IKLAB_DATA_DIR "
                  "overrides it)");
  run->add_flag("--quick", run_options.quick,
                "Reduced configuration (fewer trials)");
  run->add_option("--threads,-j", run_options.threads,
                  "Worker threads for the trials of studies (results do not "
                  "depend on it)")
      ->capture_default_str()
      ->check(ThreadCount());

  SolversOptions solvers_options;
  CLI::App* solvers = app.add_subcommand(
      "solvers",
      "List the solvers (the names run, bench, retarget and studies accept): "
      "family, what each minimizes, what it accepts, its paper");
  solvers
      ->add_option("--family", solvers_options.family,
                   "Only this family")
      ->check(CLI::IsMember({SolverFamilyName(SolverFamily::kOptimization),
                             SolverFamilyName(SolverFamily::kConstrained),
                             SolverFamilyName(SolverFamily::kDifferential),
                             SolverFamilyName(SolverFamily::kAnalytic)}));
  solvers->add_flag("--json", solvers_options.json, "As a JSON array");

  BenchCommandOptions bench_options;
  CLI::App* bench = app.add_subcommand(
      "bench",
      "The standard IK benchmark protocol on real robots: random reachable "
      "poses, solve rate and time per solve for every solver");
  AddBenchOptions(bench, &bench_options);

  ReachCommandOptions reach_options;
  CLI::App* reach = app.add_subcommand(
      "reach",
      "Reachability/capability map of a chain's site over a voxel grid "
      "(threads; mpirun -n K for MPI ranks) -> HDF5 and pictures");
  AddReachOptions(reach, &reach_options);

  RetargetCommandOptions retarget_options;
  CLI::App* retarget = app.add_subcommand(
      "retarget",
      "Retarget your own BVH motion onto a skeleton or the human figure "
      "(key points scaled per segment, posture, foot contacts, limits): "
      "solved frame by frame, with metrics");
  AddRetargetOptions(retarget, &retarget_options);

  ViewCommandOptions view_options;
  CLI::App* view = app.add_subcommand(
      "view",
      "Open a result in the browser in 3D: a report or study folder, a "
      "scene .json, a URDF, a BVH motion or a reachability map .h5");
  AddViewOptions(view, &view_options);

  // The one error boundary of the program: whatever a subcommand throws
  // becomes one line naming what to fix and exit code 2 — never an abort.
  std::string where = program.name;
  if (argc > 1) {
    for (const CLI::App* sub : {list, solvers, run, bench, reach, retarget, view}) {
      if (sub->get_name() == argv[1]) where += " " + sub->get_name();
    }
  }
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      // --help is a "parse error" with exit code 0; every real one is one
      // line and exit code 2.
      if (e.get_exit_code() == 0) return app.exit(e);
      std::fprintf(stderr, "%s: %s (see %s --help)\n", where.c_str(),
                   e.what(), where.c_str());
      return 2;
    }
    if (bench->parsed()) return RunBenchCommand(bench_options);
    if (retarget->parsed()) return RunRetargetCommand(retarget_options);
    if (reach->parsed()) return RunReachCommand(reach_options);
    if (view->parsed()) return RunViewCommand(view_options);
    if (list->parsed()) return List(experiments);
    if (solvers->parsed()) return ListSolvers(solvers_options);
    return Run(experiments, run_options, program);
  } catch (const std::bad_alloc&) {
    // The options that size each command's memory.
    const char* knobs = "--targets, --threads, the model's size";
    if (reach->parsed()) {
      knobs = "a coarser --resolution, fewer --orientations or --rolls, "
              "fewer --threads";
    } else if (retarget->parsed()) {
      knobs = "--frames, the skeleton's size";
    } else if (view->parsed()) {
      knobs = "a smaller file";
    } else if (run->parsed()) {
      knobs = "--threads, --quick, fewer experiments";
    }
    std::fprintf(stderr,
                 "%s: out of memory; reduce the problem (%s) or free "
                 "memory\n",
                 where.c_str(), knobs);
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "%s: file system error on '%s': %s\n",
                 where.c_str(), e.path1().string().c_str(),
                 e.code().message().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", where.c_str(), e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: unexpected error of unknown type\n",
                 where.c_str());
  }
  return 2;
}

}  // namespace iklab
