#ifndef IKLAB_BENCH_BENCH_COMMAND_H_
#define IKLAB_BENCH_BENCH_COMMAND_H_

/// @file
/// `iklab bench`: the standard IK benchmark protocol (ik_benchmark.h) from
/// the command line, on the shipped robots or on a user's URDF or MJCF and
/// target CSV.

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace iklab {

/// Largest --targets (per robot and seed mode).
inline constexpr int kMaxTargets = 100000000;
/// Largest --budget-ms: ten seconds per solve. Larger budgets would let a
/// run with unreachable targets restart for hours per target.
inline constexpr double kMaxBudgetMs = 10000.0;

struct BenchCommandOptions {
  std::string data_dir;
  std::vector<std::string> robots;
  std::vector<std::string> solvers;
  /// Also run bounded-lm-simd (SimdBenchmarkSolver), the SIMD batch solver.
  bool simd = false;
  std::vector<std::string> seed_modes = {"mid-limits", "random"};
  int targets = 1000;
  std::uint64_t seed = 1;
  double budget_ms = 5.0;
  double tolerance = 1e-5;
  int threads = 1;
  std::string out_dir = "bench-out";
  /// "soft": URDF <limit> narrowed to <safety_controller> soft limits (as
  /// MoveIt and TRAC-IK read them); "hard": <limit> only.
  std::string joint_limits = "soft";
  // Bring your own robot and targets.
  std::string urdf;
  /// An MJCF (MuJoCo) file instead of --urdf; --base is a body, --tip a site
  /// or body.
  std::string mjcf;
  std::string base_link;
  std::string tip_link;
  std::string targets_csv;
  /// "self", "OBSTACLES.json" or "self,OBSTACLES.json" (lab/collision_files.h);
  /// empty: no collisions.
  std::string collisions;
  /// Self-collision matrix read from this file instead of computed (one
  /// robot; lab/collision_files.h); empty: computed.
  std::string collision_matrix;
  /// The self-collision matrix used is written to this file (one robot).
  std::string write_collision_matrix;
};

/// Declares the options of `iklab bench` on `command`.
void AddBenchOptions(CLI::App* command, BenchCommandOptions* options);

/// Runs the benchmark; returns the process exit code (0 = ran; the solve
/// rates are results, not errors; 2 = bad input, after a one-line message).
/// @throws std::invalid_argument for an unusable --out folder or a run too
///   large for the machine's memory; std::runtime_error if writing a result
///   file fails (RunCommandLine turns both into a message and exit code 2).
int RunBenchCommand(const BenchCommandOptions& options);

}  // namespace iklab

#endif  // IKLAB_BENCH_BENCH_COMMAND_H_
