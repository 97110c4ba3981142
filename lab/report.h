#ifndef IKLAB_LAB_REPORT_H_
#define IKLAB_LAB_REPORT_H_

/// @file
/// Running experiments and collecting their outputs into one REPORT.md.

#include <filesystem>
#include <string>
#include <vector>

#include "lab/experiment.h"

namespace iklab {

/// The outcome of one experiment run.
struct ExperimentRun {
  const Experiment* experiment = nullptr;
  ExperimentOutput output;
  double wall_seconds = 0.0;
  /// Empty on success; otherwise what went wrong (the run threw).
  std::string error;
};

/// Runs one experiment into `out_dir/<name>/` and writes its summary.json.
/// Exceptions from the experiment are caught and reported in `error`.
ExperimentRun RunExperiment(const Experiment& experiment,
                            const ExperimentContext& context,
                            const std::filesystem::path& out_dir);

/// A short description of this machine and build (CPU, cores, compiler, build
/// type) for reports and benchmark outputs.
std::string MachineDescription();

/// Writes `out_dir/REPORT.md`: the machine, a table of every claim with its
/// verdict, then one section per experiment with parameters, pictures and
/// tables. Returns the report's path.
/// @param title the report's heading.
std::filesystem::path WriteReport(const std::vector<ExperimentRun>& runs,
                                  const ExperimentContext& context,
                                  const std::filesystem::path& out_dir,
                                  const std::string& title =
                                      "iklab: reproduction report");

}  // namespace iklab

#endif  // IKLAB_LAB_REPORT_H_
