#ifndef IKLAB_CLI_REACH_COMMAND_H_
#define IKLAB_CLI_REACH_COMMAND_H_

/// @file
/// `iklab reach`: a reachability/capability map of a chain's site
/// (reach/reach_map.h) with threads, and across processes under MPI:
///
///     iklab reach --robot panda --resolution 0.05 --orientations 20 --out map
///     mpirun -n 4 iklab reach --robot iiwa14 --threads 2 --out map
///     iklab reach --urdf arm.urdf --base base_link --tip tool0 --position-only
///
/// Writes DIR/reach.h5 (layout: reach/reach_hdf5.h), DIR/summary.json (the
/// settings, counts, ranks, threads, wall time and queries per second) and
/// the pictures (reach/reach_plots.h). While running, the finished voxels go
/// to the journal DIR/reach.h5.partial; `--resume` continues from it after
/// a stop (`--stop-after N`, a failed rank, a killed job), and reach.h5
/// appears only when the map is complete. Exit codes: 0 complete, 2 an
/// error (one line naming what to fix), 3 stopped by --stop-after (the
/// journal is kept; rerun with --resume).

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace iklab {

struct ReachCommandOptions {
  /// A shipped robot (bench/ik_benchmark.h StandardRobots), or empty with
  /// urdf/base_link/tip_link.
  std::string robot;
  std::string urdf;
  /// An MJCF file instead of urdf (base_link a body, tip_link a site/body).
  std::string mjcf;
  std::string base_link;
  std::string tip_link;
  std::string data_dir;
  std::string joint_limits = "soft";
  double resolution = 0.05;
  int orientations = 20;
  int rolls = 1;
  bool position_only = false;
  bool flood_fill = false;
  std::string solver = "auto";
  /// "self", "OBSTACLES.json" or "self,OBSTACLES.json" (lab/collision_files.h);
  /// empty: no collision check.
  std::string collisions;
  /// Self-collision matrix read from this file instead of computed; empty:
  /// computed (lab/collision_files.h).
  std::string collision_matrix;
  /// The self-collision matrix used is written to this file.
  std::string write_collision_matrix;
  int attempts = 10;
  int iterations = 500;
  /// Bounded LM on the scalar solver even where the SIMD batch solver
  /// applies (ReachSettings::simd = false).
  bool scalar = false;
  double tolerance = 1e-5;
  std::uint64_t seed = 1;
  int threads = 1;
  std::string out_dir = "reach-out";
  bool resume = false;
  std::int64_t stop_after = 0;
  bool plots = true;
};

/// Declares the options of `reach` on `command`.
void AddReachOptions(CLI::App* command, ReachCommandOptions* options);

/// Runs the map (initializing MPI only when started by an MPI launcher);
/// returns the exit code (file comment). Errors in the input throw
/// std::invalid_argument naming the option (the command line's error
/// boundary prints them); under MPI only rank 0 reports them.
int RunReachCommand(const ReachCommandOptions& options);

}  // namespace iklab

#endif  // IKLAB_CLI_REACH_COMMAND_H_
