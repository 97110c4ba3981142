// The C++ side of the Python-binding measurements (benchmarks/python_overhead.py
// runs the same solves through `iklab`): the shipped Panda (data/robots,
// panda_link0 -> panda_hand, 7 DOF), the benchmark protocol's targets
// (GenerateTargets, seed 1, random seeds within the limits), the bounded
// Levenberg-Marquardt solver without a wall-clock budget (so every run does
// the same work).
//
//  - BatchSingleSolve: one iteration = one Solver::Solve of the next target
//    (the call a Python `solver.solve(problem, q0)` wraps).
//  - SolveBatch10k/threads: one iteration = SolveBatch over 10,000 targets
//    (the loop behind Python's `solve_batch`); counter targets_per_second.
//
//   ./build/benchmarks/iklab_benchmarks --benchmark_filter='Batch'
#include <memory>
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

constexpr int kTargets = 10000;

struct PandaTargets {
  std::shared_ptr<const Model> model;
  RowMatrixXd poses;  // x y z qw qx qy qz
  RowMatrixXd seeds;
};

const PandaTargets& Targets() {
  static const PandaTargets targets = [] {
    PandaTargets t;
    t.model = std::make_shared<const Model>(
        LoadUrdfChain(DataFile("robots/panda.urdf").string(), "panda_link0",
                      "panda_hand")
            .figure.Compile());
    const std::vector<BenchmarkTarget> generated = GenerateTargets(
        *t.model, t.model->SiteIndex("panda_hand"), kTargets, 1, SeedMode::kRandom);
    t.poses.resize(kTargets, 7);
    t.seeds.resize(kTargets, t.model->nq());
    for (int i = 0; i < kTargets; ++i) {
      const Eigen::Quaterniond q(generated[i].target.linear());
      t.poses.row(i) << generated[i].target.translation().transpose(), q.w(),
          q.x(), q.y(), q.z();
      t.seeds.row(i) = generated[i].seed.transpose();
    }
    return t;
  }();
  return targets;
}

BoundedLmSolver Solver() {
  BoundedLmOptions options;
  options.common.time_budget_seconds = 0.0;
  return BoundedLmSolver(options);
}

void BM_BatchSingleSolve(benchmark::State& state) {
  const PandaTargets& t = Targets();
  auto goal = std::make_shared<PositionOrientationGoal>(
      *t.model, "panda_hand", Eigen::Isometry3d::Identity());
  Problem problem(t.model);
  problem.AddGoal(goal);
  const BoundedLmSolver solver = Solver();
  int i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
    X.translation() = t.poses.row(i).head<3>().transpose();
    X.linear() = Eigen::Quaterniond(t.poses(i, 3), t.poses(i, 4), t.poses(i, 5),
                                    t.poses(i, 6))
                     .normalized()
                     .toRotationMatrix();
    goal->set_target(X);
    const Eigen::VectorXd q0 = t.seeds.row(i).transpose();
    state.ResumeTiming();
    Result r = solver.Solve(problem, q0);
    benchmark::DoNotOptimize(r.q.data());
    i = (i + 1) % kTargets;
  }
}
BENCHMARK(BM_BatchSingleSolve)->Unit(benchmark::kMicrosecond);

void BM_SolveBatch10k(benchmark::State& state) {
  const PandaTargets& t = Targets();
  Problem problem(t.model);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *t.model, "panda_hand", Eigen::Isometry3d::Identity()));
  const BoundedLmSolver solver = Solver();
  BatchOptions options;
  options.threads = static_cast<int>(state.range(0));
  double converged = 0.0;
  for (auto _ : state) {
    const BatchResult r = SolveBatch(solver, problem, t.poses, t.seeds, options);
    converged = 0.0;
    for (SolveStatus s : r.status) converged += s == SolveStatus::kConverged;
    benchmark::DoNotOptimize(r.q.data());
  }
  state.counters["targets_per_second"] = benchmark::Counter(
      static_cast<double>(kTargets) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["converged"] = converged / kTargets;
}
BENCHMARK(BM_SolveBatch10k)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)
    ->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace iklab
