// 6R analytic IK by subproblem decomposition (solvers/analytic): time per
// AllSolutions (every solution, up to 8) and per Solve through the common
// interface (SixRAnalyticSolver: the SolveScope's validation, start
// potential and final goal errors, plus the selection of the solution
// nearest the seed within the limits).
//
// Arms: the shipped UR5 (three parallel axes) and a KUKA-KR-6-like
// spherical-wrist arm from a DH table (the one of the tests). Targets: 1024
// joint vectors uniform within the limits (seed 15) → FK → site pose; one
// benchmark iteration solves the next target, cycling. Seeds for Solve:
// the middle of the limits. The target is a median ≤ 3 µs on 6R
// (IK-Geo and EAIK report about 2 µs for all solutions, IKFast about 4 µs).
//
//   cmake -S . -B build-bench -DIKLAB_BUILD_BENCHMARKS=ON
//         -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-bench --target iklab_benchmarks
//   ./build-bench/benchmarks/iklab_benchmarks --benchmark_filter=SixR
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "solvers/analytic/six_r_solver.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

constexpr int kNumTargets = 1024;

std::shared_ptr<const Model> MakeArm(int which) {
  if (which == 0) {
    return std::make_shared<const Model>(
        LoadUrdfChain((DataDirectory() / "robots" / "ur5.urdf").string(),
                      "base_link", "ee_link")
            .figure.Compile());
  }
  return testing::KukaLikeArm();
}

struct ArmTargets {
  explicit ArmTargets(int which) : model(MakeArm(which)) {
    site = model->num_sites() - 1;
    std::string why;
    arm = SixRArm::Create(*model, site, &why);
    if (!arm) throw std::runtime_error(why);
    std::mt19937_64 rng(15);
    for (int k = 0; k < kNumTargets; ++k) {
      targets.push_back(testing::SitePoseAt(
          *model, model->site_name(site), testing::UniformPose(*model, &rng)));
    }
  }
  std::shared_ptr<const Model> model;
  int site = -1;
  std::shared_ptr<const SixRArm> arm;
  std::vector<Eigen::Isometry3d, Eigen::aligned_allocator<Eigen::Isometry3d>>
      targets;
};

const ArmTargets& Targets(int which) {
  static const ArmTargets ur5(0), kuka(1);
  return which == 0 ? ur5 : kuka;
}

const char* ArmName(int which) {
  return which == 0 ? "ur5 (three parallel axes)"
                    : "KUKA-like (spherical wrist)";
}

void BM_SixRAllSolutions(benchmark::State& state) {
  const ArmTargets& t = Targets(static_cast<int>(state.range(0)));
  std::size_t k = 0;
  long solutions = 0;
  for (auto _ : state) {
    const SixRSolutions all = t.arm->AllSolutions(t.targets[k]);
    benchmark::DoNotOptimize(all.solutions.data());
    solutions += all.num_solutions;
    k = (k + 1) % t.targets.size();
  }
  state.SetLabel(ArmName(static_cast<int>(state.range(0))));
  state.counters["solutions"] = benchmark::Counter(
      static_cast<double>(solutions) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_SixRAllSolutions)
    ->ArgName("arm")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

void BM_SixRSolve(benchmark::State& state) {
  const ArmTargets& t = Targets(static_cast<int>(state.range(0)));
  auto goal = std::make_shared<PositionOrientationGoal>(
      *t.model, t.model->site_name(t.site), t.targets[0]);
  Problem problem(t.model);
  problem.AddGoal(goal);
  const SixRAnalyticSolver solver;
  const Eigen::VectorXd seed = t.model->MidLimits();
  std::size_t k = 0;
  long converged = 0;
  for (auto _ : state) {
    goal->set_target(t.targets[k]);
    const Result r = solver.Solve(problem, seed);
    benchmark::DoNotOptimize(r.q.data());
    converged += r.converged() ? 1 : 0;
    k = (k + 1) % t.targets.size();
  }
  state.SetLabel(ArmName(static_cast<int>(state.range(0))));
  state.counters["converged"] = benchmark::Counter(
      static_cast<double>(converged) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_SixRSolve)->ArgName("arm")->Arg(0)->Arg(1)->Unit(
    benchmark::kMicrosecond);

}  // namespace
}  // namespace iklab
