// The iklab command line: list and run the registered experiments.
//
//   iklab list
//   iklab run parent-fig-5.20 soch-fig-4 --out out --seed 7
//   iklab run all --out out          (writes out/REPORT.md)
//   iklab bench --robots panda,ur5 --targets 1000 --out bench
//   iklab bench --urdf arm.urdf --base base --tip tool --targets-csv t.csv
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "experiments/bench_command.h"
#include "experiments/experiment.h"
#include "experiments/report.h"

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "iklab: inverse kinematics experiments and reproductions of published "
      "results"};
  app.require_subcommand(1);

  CLI::App* list = app.add_subcommand("list", "List the registered experiments");

  CLI::App* run = app.add_subcommand(
      "run", "Run experiments by name, or all of them, into an output folder");
  std::vector<std::string> names;
  std::string out_dir = "out";
  std::uint64_t seed = 1;
  bool quick = false;
  run->add_option("names", names, "Experiment names, or 'all'")->required();
  run->add_option("--out,-o", out_dir, "Output folder")->capture_default_str();
  run->add_option("--seed,-s", seed, "Seed for every random draw")->capture_default_str();
  run->add_flag("--quick", quick, "Reduced configuration (fewer trials)");

  iklab::BenchCommandOptions bench_options;
  CLI::App* bench = app.add_subcommand(
      "bench",
      "The standard IK benchmark protocol on real robots: random reachable "
      "poses, solve rate and time per solve for every solver");
  iklab::AddBenchOptions(bench, &bench_options);

  CLI11_PARSE(app, argc, argv);

  if (bench->parsed()) return iklab::RunBenchCommand(bench_options);

  if (list->parsed()) {
    for (const iklab::Experiment& e : iklab::AllExperiments()) {
      std::printf("%-26s %s  [%s]\n", e.name.c_str(), e.title.c_str(),
                  e.source.c_str());
    }
    return 0;
  }

  std::vector<const iklab::Experiment*> selected;
  for (const std::string& name : names) {
    if (name == "all") {
      for (const auto& e : iklab::AllExperiments()) selected.push_back(&e);
      continue;
    }
    const iklab::Experiment* e = iklab::FindExperiment(name);
    if (e == nullptr) {
      std::fprintf(stderr,
                   "iklab: no experiment named '%s'; 'iklab list' shows the "
                   "names\n",
                   name.c_str());
      return 2;
    }
    selected.push_back(e);
  }
  if (selected.empty()) {
    std::fprintf(stderr, "iklab: no experiments are registered yet\n");
    return 2;
  }

  iklab::ExperimentContext context;
  context.seed = seed;
  context.quick = quick;
  Progress progress(static_cast<int>(selected.size()));
  std::vector<iklab::ExperimentRun> runs;
  int failures = 0;
  for (size_t i = 0; i < selected.size(); ++i) {
    context.progress = progress.For(static_cast<int>(i + 1), selected[i]->name);
    runs.push_back(iklab::RunExperiment(*selected[i], context, out_dir));
    progress.Done(static_cast<int>(i + 1), selected[i]->name,
                  runs.back().wall_seconds, runs.back().error);
    failures += !runs.back().error.empty();
  }
  const auto report = iklab::WriteReport(runs, context, out_dir);
  std::printf("Report: %s\n", report.c_str());
  if (failures > 0) {
    std::fprintf(stderr, "iklab: %d experiment(s) failed; see the report\n",
                 failures);
    return 1;
  }
  return 0;
}
