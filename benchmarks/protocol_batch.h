// The benchmark protocol's targets as one SolveBatch input, shared by the
// batch benchmarks (simd_batch_benchmark.cc, analytic_batch_benchmark.cc):
// GenerateTargets with seed 1 for one shipped robot and seed mode, the
// protocol's pose goal (w_o = 0.4²), and the counters every batch benchmark
// reports, each answer checked by the protocol's independent FK check
// (bench/ik_benchmark.h Verify).
#ifndef IKLAB_BENCHMARKS_PROTOCOL_BATCH_H_
#define IKLAB_BENCHMARKS_PROTOCOL_BATCH_H_

#include <memory>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/ik_benchmark.h"
#include "constraints/problem.h"
#include "solvers/batch_solve.h"

namespace iklab {

struct ProtocolBatch {
  std::shared_ptr<const Model> model;
  int site = -1;
  std::shared_ptr<Problem> problem;  // the pose goal on the tip, target unset
  std::vector<BenchmarkTarget> generated;
  RowMatrixXd poses;  // x y z qw qx qy qz, one row per target
  RowMatrixXd seeds;
};

/// `count` targets of the protocol (seed 1) for `robot` in seed `mode`.
ProtocolBatch MakeProtocolBatch(const BenchmarkRobot& robot, SeedMode mode,
                                int count);

/// Sets the counters of a SolveBatch run over `batch` on `threads` threads:
/// problems_per_second (wall), per_core (problems_per_second / threads),
/// solved (fraction converged), verified (fraction passing Verify at 1e-6)
/// and false_claims (converged but failing it); the label is the method
/// SolveBatch reports.
void CountBatchOutcome(benchmark::State& state, const ProtocolBatch& batch,
                       const BatchResult& r, int threads);

}  // namespace iklab

#endif  // IKLAB_BENCHMARKS_PROTOCOL_BATCH_H_
