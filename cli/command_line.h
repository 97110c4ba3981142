#ifndef IKLAB_CLI_COMMAND_LINE_H_
#define IKLAB_CLI_COMMAND_LINE_H_

/// @file
/// The command line as a library: any program gets the `iklab` commands over
/// the experiments and studies it passes in.
///
///     int main(int argc, char** argv) {
///       return iklab::RunCommandLine(argc, argv, {MyStudy()},
///                                    {"my-lab", "My IK comparisons"});
///     }
///
/// gives `my-lab list`, `my-lab run NAME… | all [--out DIR] [--seed N]
/// [--quick] [--threads N] [--data DIR]` (progress on the terminal, one
/// folder per experiment, REPORT.md over all of them; --data points
/// lab/data.h's DataDirectory() elsewhere), `my-lab bench …` (the standard IK
/// benchmark protocol, bench/bench_command.h), `my-lab reach …` (a
/// reachability/capability map, threads and MPI, cli/reach_command.h) and
/// `my-lab retarget --bvh FILE …` (a user's motion retargeted,
/// cli/retarget_command.h).

#include <string>
#include <vector>

#include "lab/experiment.h"

namespace iklab {

/// How the program presents itself in --help and the report.
struct ProgramInfo {
  /// Program name in usage lines, e.g. "iklab".
  std::string name = "iklab";
  /// One line under the name in --help.
  std::string description =
      "inverse kinematics experiments and studies";
  /// Title of REPORT.md.
  std::string report_title = "iklab report";
};

/// Parses argv and runs `list`, `run`, `bench`, `reach` or `retarget` over
/// `experiments` (in
/// report order; names must be unique). Every error — a bad option, an
/// unusable output folder (checked before any work), an unreadable input
/// file, out of memory — prints one line naming what to fix and returns 2;
/// no exception escapes this call.
/// @return the process exit code: 0 ran (results are data, not errors),
///   1 an experiment failed (the report says which), 2 an error (bad usage
///   or input, or the run could not complete).
/// @throws std::invalid_argument if two experiments share a name or one has
///   no run function (a programming error of the caller).
int RunCommandLine(int argc, const char* const* argv,
                   const std::vector<Experiment>& experiments,
                   const ProgramInfo& program = {});

}  // namespace iklab

#endif  // IKLAB_CLI_COMMAND_LINE_H_
