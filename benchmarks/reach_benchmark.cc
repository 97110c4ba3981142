// Reachability maps (reach/): IK queries per second per core. One benchmark
// iteration computes one voxel (every orientation: 20 approach axes, or one
// position-only query) of a 10 cm grid, cycling over the voxels within the
// reach bound in a fixed scattered order, so reachable and unreachable
// voxels are mixed as a map mixes them. The "queries" counter is a rate
// per CPU-second of the benchmark thread: one core's throughput.
//
//   ./build-bench/benchmarks/iklab_benchmarks --benchmark_filter=Reach
//
// Throughput with several processes is measured by `iklab reach` itself
// (summary.json: queries per second, ranks, threads); see docs/reach.md,
// "Measured" and "Threads, MPI, failures".
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "reach/reach_map.h"

namespace iklab {
namespace {

struct Arm {
  const char* file;
  const char* base;
  const char* tip;
};

void BM_ReachVoxel(benchmark::State& state, Arm arm, bool position_only,
                   ReachSolverKind solver) {
  const auto model = std::make_shared<const Model>(
      LoadUrdfChain((DataDirectory() / "robots" / arm.file).string(), arm.base,
                    arm.tip)
          .figure.Compile());
  ReachSettings settings;
  settings.resolution = 0.1;
  settings.approach_axes = 20;
  settings.position_only = position_only;
  settings.solver = solver;
  const ReachTask task(model, arm.tip, settings);
  std::vector<std::int64_t> voxels;
  for (std::int64_t v = 0; v < task.grid().num_voxels(); ++v) {
    if (task.InsideReach(v)) voxels.push_back(v);
  }
  // A fixed scattered order (a stride coprime with the count).
  const size_t stride = 7919 % voxels.size() == 0 ? 1 : 7919;
  size_t at = 0;
  std::int64_t queries = 0;
  std::int64_t reached = 0;
  for (auto _ : state) {
    const VoxelResult r = task.ComputeVoxel(voxels[at]);
    benchmark::DoNotOptimize(r.reached);
    queries += settings.orientations_per_voxel();
    reached += r.reached;
    at = (at + stride) % voxels.size();
  }
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(queries), benchmark::Counter::kIsRate);
  state.counters["reached_fraction"] =
      queries > 0 ? static_cast<double>(reached) / queries : 0.0;
  state.SetLabel(task.solver_name());
}

BENCHMARK_CAPTURE(BM_ReachVoxel, panda_pose, Arm{"panda.urdf", "panda_link0", "panda_hand"},
                  false, ReachSolverKind::kAuto)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReachVoxel, panda_position, Arm{"panda.urdf", "panda_link0", "panda_hand"},
                  true, ReachSolverKind::kAuto)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReachVoxel, ur5_pose_analytic, Arm{"ur5.urdf", "base_link", "ee_link"},
                  false, ReachSolverKind::kAuto)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReachVoxel, ur5_pose_bounded_lm, Arm{"ur5.urdf", "base_link", "ee_link"},
                  false, ReachSolverKind::kBoundedLm)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace iklab
