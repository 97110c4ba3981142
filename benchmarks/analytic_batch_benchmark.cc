// Where batching the analytic solvers across SIMD lanes could pay: the
// benchmark protocol's targets (GenerateTargets, seed 1, 4000 per robot and
// seed mode, pose goal w_o = 0.4², tolerance 1e-6) solved through SolveBatch
// on one thread by Tolani's limb solver on the iiwa14 (SRS) and by the
// analytic 6R solver on the UR5, side by side in one run with the closed
// form alone on the same targets (AllSolutions: the whole solution set,
// which is what a lane-batched kernel would compute) and with the SIMD
// bounded LM on the same targets for scale. SolveBatch has no batched
// analytic path: its method label says that it fell back to the scalar
// solver. docs/performance-log.md ("Batching the analytic solvers across
// SIMD lanes: where it would pay") has the numbers and the profile.
//
// Counters: per_core (problems per second of wall time on one thread; on a
// loaded machine read the CPU time column), solved (fraction converged),
// verified (fraction passing the protocol's independent FK check,
// bench/ik_benchmark.h Verify) and false_claims (converged but failing it).
//
//   ./build/benchmarks/iklab_benchmarks --benchmark_filter='AnalyticBatch'
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/ik_benchmark.h"
#include "benchmarks/protocol_batch.h"
#include "lab/data.h"
#include "solvers/analytic/six_r_solver.h"
#include "solvers/analytic/tolani/srs_arm.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/batch_solve.h"
#include "solvers/optimization/bounded_lm_solver.h"

namespace iklab {
namespace {

constexpr int kTargets = 4000;

// robot: 0 iiwa14 (SRS, tolani), 1 UR5 (6R, analytic-6r); mode: 0 random
// seeds, 1 mid-limits.
const ProtocolBatch& GetWorkload(int robot, int mode) {
  static ProtocolBatch cache[2][2];
  ProtocolBatch& w = cache[robot][mode];
  if (!w.model) {
    w = MakeProtocolBatch(
        StandardRobots(DataDirectory().string())[robot == 0 ? 1 : 3],
        mode == 0 ? SeedMode::kRandom : SeedMode::kMidLimits, kTargets);
  }
  return w;
}

// Args: robot, seed mode. The analytic solver through SolveBatch, 1 thread.
void BM_AnalyticBatchSolve(benchmark::State& state) {
  const ProtocolBatch& w = GetWorkload(static_cast<int>(state.range(0)),
                                  static_cast<int>(state.range(1)));
  std::unique_ptr<Solver> solver;
  if (state.range(0) == 0) {
    TolaniLimbOptions options;
    options.common.position_tolerance = options.common.angle_tolerance = 1e-6;
    solver = std::make_unique<TolaniLimbSolver>(options);
  } else {
    SixRAnalyticOptions options;
    options.common.position_tolerance = options.common.angle_tolerance = 1e-6;
    solver = std::make_unique<SixRAnalyticSolver>(options);
  }
  BatchResult r;
  for (auto _ : state) {
    r = SolveBatch(*solver, *w.problem, w.poses, w.seeds, BatchOptions{});
    benchmark::DoNotOptimize(r.q.data());
  }
  CountBatchOutcome(state, w, r, 1);
}

// Args: robot. The closed form alone on the same targets (every solution;
// for the SRS arm the valid swivel intervals of both elbow roots and every
// branch at the midpoint of the longest valid arc, srs_benchmark.cc).
void BM_AnalyticBatchClosedForm(benchmark::State& state) {
  const ProtocolBatch& w = GetWorkload(static_cast<int>(state.range(0)), 1);
  std::string why;
  std::shared_ptr<const SrsArm> srs;
  std::shared_ptr<const SixRArm> six_r;
  if (state.range(0) == 0) {
    srs = SrsArm::Create(*w.model, w.site, &why);
  } else {
    six_r = SixRArm::Create(*w.model, w.site, &why);
  }
  if (!srs && !six_r) {
    state.SkipWithError(why.c_str());
    return;
  }
  long solutions = 0;
  for (auto _ : state) {
    for (int i = 0; i < kTargets; ++i) {
      if (srs) {
        const SrsSolutions all = srs->AllSolutions(w.generated[i].target);
        SwivelIntervals::Interval arc{0.0, 0.0};
        all.Valid().LongestArc(&arc);
        std::array<SrsBranch, 8> out;
        solutions += all.Branches(0.5 * (arc.lo + arc.hi), &out);
        benchmark::DoNotOptimize(out.data());
      } else {
        const SixRSolutions all = six_r->AllSolutions(w.generated[i].target);
        benchmark::DoNotOptimize(all.solutions.data());
        solutions += all.num_solutions;
      }
    }
  }
  const double problems = static_cast<double>(kTargets) * state.iterations();
  state.counters["per_core"] =
      benchmark::Counter(problems, benchmark::Counter::kIsRate);
  state.counters["solutions"] = static_cast<double>(solutions) / problems;
}

// Args: robot, seed mode. The SIMD bounded LM on the same targets, 1 thread
// (one solution per target, the one its attempts reach, not the analytic
// solvers' nearest to the start).
void BM_AnalyticBatchSimdLm(benchmark::State& state) {
  const ProtocolBatch& w = GetWorkload(static_cast<int>(state.range(0)),
                                  static_cast<int>(state.range(1)));
  BoundedLmOptions lm;
  lm.common.position_tolerance = lm.common.angle_tolerance = 1e-6;
  const BoundedLmSolver solver(lm);
  BatchResult r;
  for (auto _ : state) {
    r = SolveBatch(solver, *w.problem, w.poses, w.seeds, BatchOptions{});
    benchmark::DoNotOptimize(r.q.data());
  }
  CountBatchOutcome(state, w, r, 1);
}

BENCHMARK(BM_AnalyticBatchSolve)
    ->ArgNames({"iiwa0_ur5_1", "random0_mid1"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.2);
BENCHMARK(BM_AnalyticBatchClosedForm)
    ->ArgName("iiwa0_ur5_1")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.2);
BENCHMARK(BM_AnalyticBatchSimdLm)
    ->ArgNames({"iiwa0_ur5_1", "random0_mid1"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.2);

}  // namespace
}  // namespace iklab
