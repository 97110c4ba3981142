#include "cli/reach_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/command_options.h"
#include "bench/ik_benchmark.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "reach/process_group.h"
#include "reach/reach_hdf5.h"
#include "reach/reach_map.h"
#include "reach/reach_plots.h"
#include "reach/reach_run.h"

namespace iklab {

void AddReachOptions(CLI::App* command, ReachCommandOptions* o) {
  command->add_option("--robot", o->robot,
                      "A shipped robot: panda, iiwa14, gen3, ur5, "
                      "baxter_left, pr2_right (or --urdf, --base, --tip)");
  command->add_option("--urdf", o->urdf, "Your own robot: a URDF file");
  command
      ->add_option("--mjcf", o->mjcf,
                   "Your own robot: an MJCF (MuJoCo XML) file; --base is a "
                   "body, --tip a site or body")
      ->excludes("--urdf");
  command->add_option("--base", o->base_link, "Base link of --urdf's chain");
  command->add_option("--tip", o->tip_link,
                      "Tip link of --urdf's chain (the mapped site)");
  command->add_option("--data", o->data_dir,
                      "Folder holding robots/ (default: the shipped data)");
  command
      ->add_option("--limits", o->joint_limits,
                   "Joint limits read from URDF: soft or hard (as iklab "
                   "bench)")
      ->capture_default_str()
      ->check(CLI::IsMember({"soft", "hard"}));
  command
      ->add_option("--resolution", o->resolution,
                   "Voxel side in metres (model length units)")
      ->capture_default_str()
      ->check(NumberIn(0.0, 10.0, /*open_lower=*/true));
  command
      ->add_option("--orientations", o->orientations,
                   "Approach axes per voxel (spherical Fibonacci lattice)")
      ->capture_default_str()
      ->check(IntegerIn(1, 10000));
  command
      ->add_option("--rolls", o->rolls,
                   "Rolls about each approach axis (orientations per voxel = "
                   "orientations x rolls)")
      ->capture_default_str()
      ->check(IntegerIn(1, 360));
  command->add_flag("--position-only", o->position_only,
                    "Position-only map: one query per voxel, any orientation");
  command->add_flag("--flood-fill", o->flood_fill,
                    "Solve outward from the workspace centre, only next to "
                    "reachable voxels (skips the unreachable shells)");
  command->add_option(
      "--collisions", o->collisions,
      "Collision-free answers only: 'self' (the robot file's collision "
      "shapes, self-collision matrix as MoveIt's setup assistant computes "
      "it), 'OBSTACLES.json', or 'self,OBSTACLES.json'");
  command->add_option("--collision-matrix", o->collision_matrix,
                      "With --collisions self: read the self-collision "
                      "matrix from this JSON file instead of computing it");
  command->add_option("--write-collision-matrix", o->write_collision_matrix,
                      "With --collisions self: write the self-collision "
                      "matrix used to this JSON file");
  command
      ->add_option("--solver", o->solver,
                   "auto (analytic-6r where the arm fits, else bounded-lm), "
                   "bounded-lm, analytic-6r")
      ->capture_default_str()
      ->check(CLI::IsMember({ReachSolverName(ReachSolverKind::kAuto),
                             ReachSolverName(ReachSolverKind::kBoundedLm),
                             ReachSolverName(ReachSolverKind::kAnalytic6r)}));
  command
      ->add_option("--attempts", o->attempts,
                   "Bounded LM: attempts (random restarts) per query")
      ->capture_default_str()
      ->check(IntegerIn(1, 100000));
  command
      ->add_option("--iterations", o->iterations,
                   "Bounded LM: iterations per query over all attempts")
      ->capture_default_str()
      ->check(IntegerIn(1, 10000000));
  command->add_flag("--scalar", o->scalar,
                    "Bounded LM: the scalar solver for every query, also "
                    "where the SIMD batch solver (several queries across "
                    "vector lanes) applies; the two give slightly different "
                    "maps");
  command
      ->add_option("--tolerance", o->tolerance,
                   "Verification tolerance per position (m) and rotation "
                   "(rad) component")
      ->capture_default_str()
      ->check(NumberIn(0.0, 0.1, /*open_lower=*/true));
  command->add_option("--seed,-s", o->seed, "Seed of every random start")
      ->capture_default_str()
      ->check(UnsignedInteger64());
  command
      ->add_option("--threads,-j", o->threads,
                   "Worker threads per process (the map does not depend on "
                   "it)")
      ->capture_default_str()
      ->check(ThreadCount());
  command->add_option("--out,-o", o->out_dir, "Output folder")
      ->capture_default_str();
  command->add_flag("--resume", o->resume,
                    "Continue from the journal OUT/reach.h5.partial of a "
                    "stopped run");
  command
      ->add_option("--stop-after", o->stop_after,
                   "Solve at most N voxels in this run, keep the journal and "
                   "exit 3 (resume later with --resume)")
      ->check(IntegerIn(1, INT64_MAX));
  command->add_flag("!--no-plots", o->plots, "Skip the pictures");
}

namespace {

struct Chain {
  std::shared_ptr<const Model> model;
  /// The robot file and whether it is MJCF (for --collisions).
  std::string file;
  bool mjcf = false;
  std::string robot;
  std::string base;
  std::string tip;
};

Chain LoadChain(const ReachCommandOptions& o) {
  Chain chain;
  // Mimic joints enforced as in the benchmark.
  const UrdfOptions urdf_options = SolvingUrdfOptions(o.joint_limits);
  std::string path;
  if (!o.mjcf.empty()) {
    if (!o.robot.empty()) {
      throw std::invalid_argument("give --robot or --mjcf, not both");
    }
    if (o.base_link.empty() || o.tip_link.empty()) {
      throw std::invalid_argument("--mjcf needs --base and --tip");
    }
    chain.robot = std::filesystem::path(o.mjcf).stem().string();
    chain.file = o.mjcf;
    chain.mjcf = true;
    chain.base = o.base_link;
    chain.tip = o.tip_link;
    chain.model = std::make_shared<const Model>(
        LoadSolvingMjcfChain(o.mjcf, chain.base, chain.tip).figure.Compile());
    return chain;
  }
  if (!o.urdf.empty()) {
    if (!o.robot.empty()) {
      throw std::invalid_argument("give --robot or --urdf, not both");
    }
    if (o.base_link.empty() || o.tip_link.empty()) {
      throw std::invalid_argument("--urdf needs --base and --tip");
    }
    path = o.urdf;
    chain.robot = std::filesystem::path(o.urdf).stem().string();
    chain.base = o.base_link;
    chain.tip = o.tip_link;
  } else {
    if (o.robot.empty()) {
      throw std::invalid_argument(
          "name the chain: --robot panda (iiwa14, gen3, ur5, baxter_left, "
          "pr2_right) or --urdf FILE --base LINK --tip LINK");
    }
    if (!o.base_link.empty() || !o.tip_link.empty()) {
      throw std::invalid_argument("--base and --tip go with --urdf or --mjcf");
    }
    if (!o.data_dir.empty()) SetDataDirectory(o.data_dir);
    std::string names;
    for (const BenchmarkRobot& r : StandardRobots(DataDirectory().string())) {
      names += (names.empty() ? "" : ", ") + r.name;
      if (r.name == o.robot) {
        path = r.urdf_path;
        chain.base = r.base_link;
        chain.tip = r.tip_link;
      }
    }
    if (path.empty()) {
      throw std::invalid_argument("--robot: unknown robot '" + o.robot +
                                  "'; the shipped robots are " + names);
    }
    if (!std::filesystem::exists(path)) {
      throw std::invalid_argument("robot model '" + path +
                                  "' not found (data folder from " +
                                  DataDirectoryOrigin() +
                                  "); pass --data DIR or set IKLAB_DATA_DIR");
    }
    chain.robot = o.robot;
  }
  chain.model = std::make_shared<const Model>(
      LoadUrdfChain(path, chain.base, chain.tip, urdf_options).figure.Compile());
  chain.file = path;
  return chain;
}

ReachSettings Settings(const ReachCommandOptions& o) {
  ReachSettings s;
  s.resolution = o.resolution;
  s.approach_axes = o.orientations;
  s.rolls = o.rolls;
  s.position_only = o.position_only;
  s.flood_fill = o.flood_fill;
  s.solver = ReachSolverFromName(o.solver);
  s.max_attempts = o.attempts;
  s.max_iterations = o.iterations;
  s.tolerance = o.tolerance;
  s.seed = o.seed;
  s.simd = !o.scalar;
  return s;
}

// Rank 0's progress line: redrawn on a terminal, else every 10 s.
class ProgressLine {
 public:
  ProgressLine() : tty_(isatty(STDERR_FILENO)) {}
  void operator()(const ReachProgress& p) {
    const bool last = p.done == p.total;
    if (!tty_ && !last && p.seconds < next_) return;
    next_ = p.seconds + 10.0;
    std::fprintf(stderr, "%siklab reach: %lld/%lld voxels (%.1f %%), %.0f queries/s%s",
                 tty_ ? "\r\033[K" : "", static_cast<long long>(p.done),
                 static_cast<long long>(p.total),
                 p.total > 0 ? 100.0 * p.done / p.total : 100.0,
                 p.seconds > 0 ? p.queries / p.seconds : 0.0,
                 tty_ ? "" : "\n");
    std::fflush(stderr);
  }
  void End() {
    if (tty_) std::fprintf(stderr, "\n");
  }

 private:
  bool tty_;
  double next_ = 0.0;
};

int Run(const ReachCommandOptions& o, ProcessGroup* group) {
  namespace fs = std::filesystem;
  const bool root = group->rank() == 0;
  const Chain chain = LoadChain(o);
  std::shared_ptr<const CollisionSetup> collisions;
  if ((!o.collision_matrix.empty() || !o.write_collision_matrix.empty()) &&
      o.collisions.empty()) {
    throw std::invalid_argument(
        "--collision-matrix and --write-collision-matrix need --collisions "
        "self");
  }
  if (!o.collisions.empty()) {
    CollisionSetting setting = ParseCollisionSetting(o.collisions);
    setting.matrix_file = o.collision_matrix;
    auto setup = std::make_shared<CollisionSetup>(
        MakeCollisionSetup(setting, *chain.model, chain.file, chain.mjcf));
    if (!o.write_collision_matrix.empty()) {
      if (!setting.self) {
        throw std::invalid_argument(
            "--write-collision-matrix " + o.write_collision_matrix +
            ": a self-collision matrix needs self-collisions; add 'self' to "
            "--collisions");
      }
      if (root) WriteSelfCollisionMatrix(setup->matrix, o.write_collision_matrix);
    }
    collisions = std::move(setup);
    if (root) {
      std::fprintf(stderr,
                   "iklab reach: collisions: %zu shapes, %zu self pairs "
                   "checked, %zu obstacles\n",
                   collisions->shapes.size(), collisions->self_pairs.size(),
                   collisions->obstacles.size());
    }
  }
  const ReachTask task(chain.model, chain.tip, Settings(o), collisions);
  const double voxels = static_cast<double>(task.grid().num_voxels());
  CheckMemoryEstimate(
      voxels * (task.settings().orientations_per_voxel() + 24.0),
      "the map (" + std::to_string(task.grid().num_voxels()) + " voxels x " +
          std::to_string(task.settings().orientations_per_voxel()) +
          " orientations)",
      "use a coarser --resolution or fewer --orientations");

  // The output folder is rank 0's; every rank learns whether it is usable.
  std::string folder_error;
  if (root) {
    try {
      PrepareOutputFolder(o.out_dir, "--out");
    } catch (const std::invalid_argument& e) {
      folder_error = e.what();
    }
  }
  std::vector<unsigned char> message(folder_error.begin(), folder_error.end());
  group->Broadcast(&message);
  if (!message.empty()) {
    throw std::invalid_argument(std::string(message.begin(), message.end()));
  }
  const fs::path map_path = fs::path(o.out_dir) / "reach.h5";
  ReachRunOptions run_options;
  run_options.threads = o.threads;
  run_options.journal = map_path.string() + ".partial";
  run_options.resume = o.resume;
  run_options.stop_after = o.stop_after;
  ProgressLine progress;
  if (root) {
    std::fprintf(stderr,
                 "iklab reach: %s %s -> %s, %d DOF, solver %s, %lld voxels "
                 "(%d^3 at %.4g m), %d queries per voxel, %d rank(s) x %d "
                 "thread(s)\n",
                 chain.robot.c_str(), chain.base.c_str(), chain.tip.c_str(),
                 chain.model->nq(), task.solver_method().c_str(),
                 static_cast<long long>(task.grid().num_voxels()),
                 task.grid().shape.x(), task.grid().resolution,
                 task.settings().orientations_per_voxel(), group->size(),
                 o.threads);
    run_options.progress = [&progress](const ReachProgress& p) { progress(p); };
  }
  ReachRun run = RunReach(task, chain.robot, chain.base, group, run_options);
  if (!root) return 0;
  progress.End();
  if (!run.complete) {
    std::fprintf(stderr,
                 "iklab reach: stopped after %lld voxels (--stop-after); the "
                 "finished voxels are in %s; rerun with --resume to "
                 "continue\n",
                 static_cast<long long>(run.solved_voxels),
                 run_options.journal.c_str());
    return 3;
  }
  WriteReachMapHdf5(run.map, map_path.string());
  std::error_code ignored;
  fs::remove(run_options.journal, ignored);

  const double rate = run.seconds > 0 ? run.solved_queries / run.seconds : 0.0;
  const int cores = group->size() * run.threads;
  std::int64_t reachable = 0;
  for (std::uint16_t r : run.map.reached) reachable += r > 0;
  nlohmann::json summary;
  summary["robot"] = chain.robot;
  summary["base_link"] = chain.base;
  summary["site"] = chain.tip;
  summary["dofs"] = chain.model->nq();
  summary["solver"] = task.solver_name();
  summary["solver_method"] = task.solver_method();
  summary["resolution"] = task.grid().resolution;
  summary["grid_shape"] = {task.grid().shape.x(), task.grid().shape.y(),
                           task.grid().shape.z()};
  summary["orientations_per_voxel"] = task.settings().orientations_per_voxel();
  summary["position_only"] = task.settings().position_only;
  summary["flood_fill"] = task.settings().flood_fill;
  summary["seed"] = task.settings().seed;
  summary["tolerance"] = task.settings().tolerance;
  summary["voxels"] = task.grid().num_voxels();
  summary["voxels_solved"] = run.map.CountState(VoxelState::kSolved);
  summary["voxels_outside_reach_bound"] =
      run.map.CountState(VoxelState::kOutsideReach);
  summary["voxels_skipped_by_flood_fill"] =
      run.map.CountState(VoxelState::kSkipped);
  summary["reachable_voxels"] = reachable;
  summary["voxels_resumed"] = run.resumed_voxels;
  summary["voxels_solved_this_run"] = run.solved_voxels;
  summary["queries_this_run"] = run.solved_queries;
  summary["ranks"] = run.ranks;
  summary["threads_per_rank"] = run.threads;
  summary["wall_seconds"] = run.seconds;
  summary["cpu_seconds_rank0"] = run.cpu_seconds;
  summary["queries_per_second"] = rate;
  summary["queries_per_second_per_core"] = rate / cores;
  summary["note"] =
      "joint limits are checked; collisions are not (no collision model)";
  {
    std::ofstream out(fs::path(o.out_dir) / "summary.json");
    out << summary.dump(2) << "\n";
  }
  if (o.plots) DrawReachMap(run.map, o.out_dir);
  std::printf(
      "iklab reach: %lld voxels solved (%lld reachable), %lld queries in "
      "%.1f s: %.0f queries/s, %.0f per core (%d rank(s) x %d thread(s))\n"
      "Map: %s\n",
      static_cast<long long>(run.map.CountState(VoxelState::kSolved)),
      static_cast<long long>(reachable),
      static_cast<long long>(run.solved_queries), run.seconds, rate,
      rate / cores, run.ranks, run.threads, map_path.string().c_str());
  return 0;
}

}  // namespace

int RunReachCommand(const ReachCommandOptions& o) {
  std::unique_ptr<ProcessGroup> group =
      LaunchedByMpi() ? StartMpi() : LocalProcessGroup();
  if (group->size() == 1) return Run(o, group.get());
  try {
    return Run(o, group.get());
  } catch (const std::exception& e) {
    // The same input error on every rank: rank 0 reports it once.
    if (group->rank() != 0) return 2;
    throw;
  }
}

}  // namespace iklab
