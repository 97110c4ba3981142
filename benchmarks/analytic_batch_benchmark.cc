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
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "solvers/analytic/six_r_solver.h"
#include "solvers/analytic/tolani/srs_arm.h"
#include "solvers/analytic/tolani/tolani_solver.h"
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

// robot: 0 iiwa14 (SRS, tolani), 1 UR5 (6R, analytic-6r); mode: 0 random
// seeds, 1 mid-limits.
const Workload& GetWorkload(int robot, int mode) {
  static Workload cache[2][2];
  Workload& w = cache[robot][mode];
  if (w.model) return w;
  const std::vector<BenchmarkRobot> robots =
      StandardRobots(DataDirectory().string());
  const BenchmarkRobot& spec = robots[robot == 0 ? 1 : 3];
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
  scales.w_o = 0.4 * 0.4;  // the protocol's weight (simd_batch_benchmark.cc)
  w.problem = std::make_shared<Problem>(w.model);
  w.problem->AddGoal(std::make_shared<PositionOrientationGoal>(
      *w.model, spec.tip_link, Eigen::Isometry3d::Identity(), 1.0, scales));
  return w;
}

void Count(benchmark::State& state, const Workload& w, const BatchResult& r) {
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
  state.counters["per_core"] =
      benchmark::Counter(problems, benchmark::Counter::kIsRate);
  state.counters["solved"] = static_cast<double>(solved) / kTargets;
  state.counters["verified"] = static_cast<double>(verified) / kTargets;
  state.counters["false_claims"] = false_claims;
  state.SetLabel(r.method);
}

// Args: robot, seed mode. The analytic solver through SolveBatch, 1 thread.
void BM_AnalyticBatchSolve(benchmark::State& state) {
  const Workload& w = GetWorkload(static_cast<int>(state.range(0)),
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
  Count(state, w, r);
}

// Args: robot. The closed form alone on the same targets (every solution;
// for the SRS arm the valid swivel intervals of both elbow roots and every
// branch at the midpoint of the longest valid arc, srs_benchmark.cc).
void BM_AnalyticBatchClosedForm(benchmark::State& state) {
  const Workload& w = GetWorkload(static_cast<int>(state.range(0)), 1);
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
  const Workload& w = GetWorkload(static_cast<int>(state.range(0)),
                                  static_cast<int>(state.range(1)));
  BoundedLmOptions lm;
  lm.common.position_tolerance = lm.common.angle_tolerance = 1e-6;
  const BoundedLmSolver solver(lm);
  BatchResult r;
  for (auto _ : state) {
    r = SolveBatch(solver, *w.problem, w.poses, w.seeds, BatchOptions{});
    benchmark::DoNotOptimize(r.q.data());
  }
  Count(state, w, r);
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
