// Optimization solvers on the IK benchmark protocol (TRAC-IK and others):
// N = 200 joint vectors drawn uniformly within the limits of a KUKA-iiwa-like
// 7-DOF arm (tests/solvers/test_arms.h, seed 2024) → FK → target; each solve
// starts from the fixed mid-limits seed; success = converged with position
// error ≤ 1e-5 and orientation error ≤ 1e-5 rad.
//
// Grid: solver {lbfgsb, ceres-lm, ceres-dogleg} × goal {position,
// position+orientation} × limits {on, off} × attempts {1, restarts ≤ 20}.
// One benchmark iteration = one solve of the next target (cycling through the
// set). Counters: solves_per_second (rate), success (fraction of solves that
// converged), attempts (mean solves per target, restart rows).
// BM_Ipopt7Dof: IPOPT's barrier strategies side by side (see there).
//
// BM_BoundedLmRobot: the bounded Levenberg–Marquardt solver on the shipped
// robots (data/robots; panda, iiwa14, gen3, ur5) exactly as `iklab bench`
// sets it up (bench/ik_benchmark.h: one pose goal, rotation weighted 0.4
// against metres, 1e-5 tolerances, 5 ms budget), cycling through 1,000
// targets from the mid-limits (seed mode 0) or random (1) seeds. Counters:
// iterations per solve, success (converged within the budget: on a loaded
// machine a preempted solve can miss the 5 ms), and iterations_per_second.
//
// BM_PoseResidualJacobian: one evaluation of bounded LM's residual and
// Jacobian for the benchmark's pose goal (9 × n) on the same robots, by the
// generic path (Problem::EvaluateResiduals: FK over the model into a Data,
// then the goal; path 0) and by the fused serial-chain kernel
// (solvers/optimization/internal/site_goal_kernel.h; path 1), side by side, cycling
// through 64 configurations drawn within the limits.
//
//   cmake -S . -B build-bench -DIKLAB_BUILD_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-bench --target iklab_benchmarks
//   ./build-bench/benchmarks/iklab_benchmarks --benchmark_filter=Solvers
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/ik_benchmark.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "solvers/constrained/ipopt_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/internal/site_goal_kernel.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "solvers/restarts.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

enum SolverKind { kLbfgsb = 0, kCeresLm = 1, kCeresDogleg = 2 };
enum GoalKind { kPosition = 0, kPose = 1 };

std::shared_ptr<const Solver> MakeSolver(int kind, bool limits) {
  SolveOptions common;
  common.position_tolerance = 1e-5;
  common.angle_tolerance = 1e-5;
  common.respect_limits = limits;
  if (kind == kLbfgsb) {
    LbfgsbOptions options;
    options.common = common;
    return std::make_shared<LbfgsbSolver>(options);
  }
  CeresOptions options;
  options.common = common;
  options.method = kind == kCeresDogleg ? CeresOptions::Method::kDogleg
                                        : CeresOptions::Method::kLevenbergMarquardt;
  return std::make_shared<CeresSolver>(options);
}

// args: solver kind, goal kind, limits (0/1), restarts (0/1).
void BM_Solvers7Dof(benchmark::State& state) {
  const int solver_kind = static_cast<int>(state.range(0));
  const bool pose = state.range(1) == kPose;
  const bool limits = state.range(2) != 0;
  const bool restarts = state.range(3) != 0;

  auto model = testing::SevenDofArm();
  std::mt19937_64 rng(2024);
  std::vector<Eigen::Isometry3d> targets;
  for (int k = 0; k < 200; ++k) {
    targets.push_back(
        testing::SitePoseAt(*model, "tool", testing::UniformPose(*model, &rng)));
  }
  Problem problem(model);
  std::shared_ptr<PositionGoal> position_goal;
  std::shared_ptr<PositionOrientationGoal> pose_goal;
  if (pose) {
    pose_goal = std::make_shared<PositionOrientationGoal>(
        *model, "tool", Eigen::Isometry3d::Identity());
    problem.AddGoal(pose_goal);
  } else {
    position_goal = std::make_shared<PositionGoal>(*model, "tool",
                                                   Eigen::Vector3d::Zero());
    problem.AddGoal(position_goal);
  }
  std::shared_ptr<const Solver> solver = MakeSolver(solver_kind, limits);
  if (restarts) {
    RestartOptions options;
    options.max_attempts = 20;
    options.seed = 7;
    solver = std::make_shared<RestartSolver>(solver, options);
  }
  const Eigen::VectorXd q0 = model->MidLimits();

  size_t next = 0;
  long solves = 0, successes = 0, attempts = 0;
  for (auto _ : state) {
    const Eigen::Isometry3d& target = targets[next];
    next = (next + 1) % targets.size();
    if (pose) {
      pose_goal->set_target(target);
    } else {
      position_goal->set_target(target.translation());
    }
    const Result result = solver->Solve(problem, q0);
    benchmark::DoNotOptimize(result.q.data());
    ++solves;
    attempts += result.attempts;
    if (result.converged()) ++successes;
  }
  state.SetLabel(solver->name() + (pose ? " pose" : " position") +
                 (limits ? " limits" : " no-limits"));
  state.counters["solves_per_second"] =
      benchmark::Counter(static_cast<double>(solves), benchmark::Counter::kIsRate);
  state.counters["success"] =
      static_cast<double>(successes) / static_cast<double>(solves);
  state.counters["attempts"] =
      static_cast<double>(attempts) / static_cast<double>(solves);
}

void SolverGrid(benchmark::internal::Benchmark* b) {
  b->ArgNames({"solver", "pose", "limits", "restarts"});
  for (int solver : {kLbfgsb, kCeresLm, kCeresDogleg}) {
    for (int goal : {kPosition, kPose}) {
      for (int limits : {1, 0}) {
        for (int restarts : {0, 1}) b->Args({solver, goal, limits, restarts});
      }
    }
  }
}

BENCHMARK(BM_Solvers7Dof)->Apply(SolverGrid)->Unit(benchmark::kMicrosecond);

// IPOPT on the same arm and targets, pose goals, limits on, mid-limits start:
// the goal as hard equalities (PositionGoal + RotationVectorGoal, the
// Tolani-table formulation) or as the objective (PositionOrientationGoal).
// args: barrier update (0 monotone, 1 adaptive), hard (0/1). Measures what a
// solve costs with IPOPT's two barrier strategies, side by side in one run
// (IpoptOptions::barrier_update).
void BM_Ipopt7Dof(benchmark::State& state) {
  const bool adaptive = state.range(0) != 0;
  const bool hard = state.range(1) != 0;
  auto model = testing::SevenDofArm();
  std::mt19937_64 rng(2024);
  std::vector<Eigen::Isometry3d> targets;
  for (int k = 0; k < 200; ++k) {
    targets.push_back(
        testing::SitePoseAt(*model, "tool", testing::UniformPose(*model, &rng)));
  }
  IpoptOptions options;
  options.common.position_tolerance = 1e-5;
  options.common.angle_tolerance = 1e-5;
  options.barrier_update = adaptive ? IpoptOptions::BarrierUpdate::kAdaptive
                                    : IpoptOptions::BarrierUpdate::kMonotone;
  const IpoptSolver solver(options);
  const Eigen::VectorXd q0 = model->MidLimits();
  size_t next = 0;
  long solves = 0, successes = 0, iterations = 0;
  for (auto _ : state) {
    const Eigen::Isometry3d& target = targets[next];
    next = (next + 1) % targets.size();
    Problem problem(model);
    if (hard) {
      problem.AddEqualityConstraint(std::make_shared<PositionGoal>(
          *model, "tool", target.translation()));
      problem.AddEqualityConstraint(
          std::make_shared<RotationVectorGoal>(*model, "tool", target.linear()));
    } else {
      problem.AddGoal(
          std::make_shared<PositionOrientationGoal>(*model, "tool", target));
    }
    const Result result = solver.Solve(problem, q0);
    benchmark::DoNotOptimize(result.q.data());
    ++solves;
    iterations += result.iterations;
    if (result.converged()) ++successes;
  }
  state.SetLabel(std::string("ipopt ") + (adaptive ? "adaptive" : "monotone") +
                 (hard ? " hard" : " objective"));
  state.counters["solves_per_second"] =
      benchmark::Counter(static_cast<double>(solves), benchmark::Counter::kIsRate);
  state.counters["success"] =
      static_cast<double>(successes) / static_cast<double>(solves);
  state.counters["iterations"] =
      static_cast<double>(iterations) / static_cast<double>(solves);
}

BENCHMARK(BM_Ipopt7Dof)
    ->ArgNames({"adaptive", "hard"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Iterations(400)
    ->Unit(benchmark::kMillisecond);

// The shipped robot's chain, loaded as `iklab bench` loads it.
std::shared_ptr<const Model> RobotModel(const BenchmarkRobot& robot) {
  UrdfOptions urdf_options;
  urdf_options.mimic = UrdfMimicPolicy::kEnforce;
  return std::make_shared<const Model>(
      LoadUrdfChain(robot.urdf_path, robot.base_link, robot.tip_link,
                    urdf_options)
          .figure.Compile());
}

// args: robot (index into StandardRobots), seed mode (0 mid-limits, 1 random).
void BM_BoundedLmRobot(benchmark::State& state) {
  const BenchmarkRobot robot =
      StandardRobots(DataDirectory().string())[state.range(0)];
  const SeedMode mode =
      state.range(1) == 0 ? SeedMode::kMidLimits : SeedMode::kRandom;
  const auto model = RobotModel(robot);
  const int site = model->SiteIndex(robot.tip_link);
  const std::vector<BenchmarkTarget> targets =
      GenerateTargets(*model, site, 1000, 1, mode);
  PositionOrientationScales scales;
  scales.w_o = 0.4 * 0.4;  // as IklabBenchmarkSolver
  auto goal = std::make_shared<PositionOrientationGoal>(
      *model, robot.tip_link, Eigen::Isometry3d::Identity(), 1.0, scales);
  Problem problem(model);
  problem.AddGoal(goal);
  BoundedLmOptions options;
  options.common.position_tolerance = 1e-5;
  options.common.angle_tolerance = 1e-5;
  options.common.max_iterations = 100000;
  const BoundedLmSolver solver(options);

  size_t next = 0;
  long solves = 0, successes = 0, iterations = 0;
  for (auto _ : state) {
    const BenchmarkTarget& target = targets[next];
    next = (next + 1) % targets.size();
    goal->set_target(target.target);
    const Result result = solver.Solve(problem, target.seed);
    benchmark::DoNotOptimize(result.q.data());
    ++solves;
    iterations += result.iterations;
    if (result.converged()) ++successes;
  }
  state.SetLabel(robot.name + " " + SeedModeName(mode));
  state.counters["iterations"] =
      static_cast<double>(iterations) / static_cast<double>(solves);
  state.counters["success"] =
      static_cast<double>(successes) / static_cast<double>(solves);
  // Iterations per CPU second; 1e9 / it is ns per iteration, the per-solve
  // set-up spread over the iterations.
  state.counters["iterations_per_second"] = benchmark::Counter(
      static_cast<double>(iterations), benchmark::Counter::kIsRate);
}

// args: robot (index into StandardRobots), path (0 generic, 1 fused).
void BM_PoseResidualJacobian(benchmark::State& state) {
  const BenchmarkRobot robot =
      StandardRobots(DataDirectory().string())[state.range(0)];
  const auto model = RobotModel(robot);
  PositionOrientationScales scales;
  scales.w_o = 0.4 * 0.4;  // as IklabBenchmarkSolver
  Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
  target.translation() = Eigen::Vector3d(0.3, 0.2, 0.5);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *model, robot.tip_link, target, 1.0, scales));
  std::mt19937 rng(5);
  std::vector<Eigen::VectorXd> configurations;
  for (int k = 0; k < 64; ++k) {
    Eigen::VectorXd q(model->nq());
    for (int i = 0; i < model->nq(); ++i) {
      q[i] = std::uniform_real_distribution<double>(
          std::max(model->lower()[i], -M_PI),
          std::min(model->upper()[i], M_PI))(rng);
    }
    configurations.push_back(q);
  }
  const auto run = [&](auto kernel) {
    using Kernel = typename decltype(kernel)::value_type;
    typename Kernel::ResidualVector r;
    typename Kernel::JacobianMatrix J;
    ProblemWorkspace ws(problem);
    size_t next = 0;
    for (auto _ : state) {
      const Eigen::VectorXd& q = configurations[next];
      next = (next + 1) % configurations.size();
      if (state.range(1) == 1) {
        benchmark::DoNotOptimize(kernel->Evaluate(q.data(), &r, &J));
      } else {
        Eigen::Ref<Eigen::MatrixXd> J_ref(J);
        problem.EvaluateResiduals(q, &ws, r, &J_ref);
      }
      benchmark::DoNotOptimize(r.data());
      benchmark::DoNotOptimize(J.data());
      benchmark::ClobberMemory();
    }
  };
  if (model->nq() == 6) {
    run(internal::SiteGoalKernel<9, 6>::Create(problem));
  } else {
    run(internal::SiteGoalKernel<9, 7>::Create(problem));
  }
  state.SetLabel(robot.name +
                 (state.range(1) == 1 ? " fused" : " generic"));
}

BENCHMARK(BM_PoseResidualJacobian)
    ->ArgNames({"robot", "fused"})
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1}});

BENCHMARK(BM_BoundedLmRobot)
    ->ArgNames({"robot", "random_seed"})
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace iklab
