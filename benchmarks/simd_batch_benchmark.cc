// Scalar bounded LM against the SIMD batch solver (solvers/batch/simd_lm.h)
// on the same targets in one run: the benchmark protocol's targets
// (GenerateTargets, seed 1) for the shipped Panda, iiwa14 and Gen3 (the
// 7-DOF arms), random seeds
// and mid-limits seeds, the protocol's pose goal (w_o = 0.4²), tolerance
// 1e-6 on position norm and rotation angle, no wall-clock budget (every run
// does the same work), both through SolveBatch (BatchOptions::simd).
//
// One benchmark iteration = SolveBatch over kTargets targets. Counters:
// problems_per_second (wall), per_core (problems_per_second / threads),
// solved (fraction converged), verified (fraction passing the protocol's
// independent FK check, bench/ik_benchmark.h Verify) and false_claims
// (converged but failing it).
//
//   ./build/benchmarks/iklab_benchmarks --benchmark_filter='SimdVsScalar'
//   benchmarks/batch_throughput.sh  (the table, threads 1..16)
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/ik_benchmark.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "solvers/batch_solve.h"
#include "solvers/optimization/bounded_lm_solver.h"

namespace iklab {
namespace {

constexpr int kTargets = 4000;

struct Workload {
  std::shared_ptr<const Model> model;
  int site = -1;
  std::shared_ptr<Problem> problem;
  std::vector<BenchmarkTarget> generated;
  RowMatrixXd poses;  // x y z qw qx qy qz
  RowMatrixXd seeds;
};

// robot: 0 Panda, 1 iiwa14, 2 Gen3; mode: 0 random seeds, 1 mid-limits.
const Workload& GetWorkload(int robot, int mode) {
  static Workload cache[3][2];
  Workload& w = cache[robot][mode];
  if (w.model) return w;
  const std::vector<BenchmarkRobot> robots =
      StandardRobots(DataDirectory().string());
  const BenchmarkRobot& spec = robots[robot];  // panda, iiwa14, gen3 come first
  w.model = std::make_shared<const Model>(
      LoadUrdfChain(spec.urdf_path, spec.base_link, spec.tip_link)
          .figure.Compile());
  w.site = w.model->SiteIndex(spec.tip_link);
  w.generated = GenerateTargets(*w.model, w.site, kTargets, 1,
                                mode == 0 ? SeedMode::kRandom
                                          : SeedMode::kMidLimits);
  w.poses.resize(kTargets, 7);
  w.seeds.resize(kTargets, w.model->nq());
  for (int i = 0; i < kTargets; ++i) {
    const Eigen::Quaterniond q(w.generated[i].target.linear());
    w.poses.row(i) << w.generated[i].target.translation().transpose(), q.w(),
        q.x(), q.y(), q.z();
    w.seeds.row(i) = w.generated[i].seed.transpose();
  }
  PositionOrientationScales scales;
  scales.w_o = 0.4 * 0.4;
  w.problem = std::make_shared<Problem>(w.model);
  w.problem->AddGoal(std::make_shared<PositionOrientationGoal>(
      *w.model, spec.tip_link, Eigen::Isometry3d::Identity(), 1.0, scales));
  return w;
}

// Args: robot, seed mode, simd (0/1), threads.
void BM_SimdVsScalar(benchmark::State& state) {
  const Workload& w = GetWorkload(static_cast<int>(state.range(0)),
                                  static_cast<int>(state.range(1)));
  BoundedLmOptions lm;
  lm.common.position_tolerance = lm.common.angle_tolerance = 1e-6;
  const BoundedLmSolver solver(lm);
  BatchOptions options;
  options.simd = state.range(2) != 0;
  options.threads = static_cast<int>(state.range(3));
  BatchResult r;
  for (auto _ : state) {
    r = SolveBatch(solver, *w.problem, w.poses, w.seeds, options);
    benchmark::DoNotOptimize(r.q.data());
  }
  int solved = 0, verified = 0, false_claims = 0;
  for (int i = 0; i < kTargets; ++i) {
    const bool claimed = r.status[i] == SolveStatus::kConverged;
    const bool ok = Verify(*w.model, w.site, r.q.row(i).transpose(),
                           w.generated[i].target, 1e-6)
                        .success;
    solved += claimed;
    verified += ok;
    false_claims += claimed && !ok;
  }
  const double problems = static_cast<double>(kTargets) * state.iterations();
  state.counters["problems_per_second"] =
      benchmark::Counter(problems, benchmark::Counter::kIsRate);
  state.counters["per_core"] = benchmark::Counter(
      problems / options.threads, benchmark::Counter::kIsRate);
  state.counters["solved"] = static_cast<double>(solved) / kTargets;
  state.counters["verified"] = static_cast<double>(verified) / kTargets;
  state.counters["false_claims"] = false_claims;
  state.SetLabel(r.method);
}

void SimdVsScalarArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"robot", "random0_mid1", "simd", "threads"});
  for (int threads : {1, 2, 4, 8, 16}) {
    for (int robot : {0, 1, 2}) {
      for (int mode : {0, 1}) {
        for (int simd : {0, 1}) b->Args({robot, mode, simd, threads});
      }
    }
  }
}
BENCHMARK(BM_SimdVsScalar)
    ->Apply(SimdVsScalarArgs)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.2);

}  // namespace
}  // namespace iklab
