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
#include "benchmarks/protocol_batch.h"
#include "lab/data.h"
#include "solvers/batch_solve.h"
#include "solvers/optimization/bounded_lm_solver.h"

namespace iklab {
namespace {

constexpr int kTargets = 4000;

// robot: 0 Panda, 1 iiwa14, 2 Gen3; mode: 0 random seeds, 1 mid-limits.
const ProtocolBatch& GetWorkload(int robot, int mode) {
  static ProtocolBatch cache[3][2];
  ProtocolBatch& w = cache[robot][mode];
  if (!w.model) {
    // StandardRobots lists panda, iiwa14, gen3 first.
    w = MakeProtocolBatch(StandardRobots(DataDirectory().string())[robot],
                          mode == 0 ? SeedMode::kRandom : SeedMode::kMidLimits,
                          kTargets);
  }
  return w;
}

// Args: robot, seed mode, simd (0/1), threads.
void BM_SimdVsScalar(benchmark::State& state) {
  const ProtocolBatch& w = GetWorkload(static_cast<int>(state.range(0)),
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
  CountBatchOutcome(state, w, r, options.threads);
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
