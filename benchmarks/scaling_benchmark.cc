// Scaling benchmarks: batch throughput vs thread count, time per solve vs
// DOF, and the human figure with 5–20 simultaneous goals.
//
// 1. ScalingThreads/threads:T — batch solving of the standard protocol
//    (bench/ik_benchmark.h) on the Franka Panda (panda_link0 →
//    panda_hand, 7 DOF): 1000 reachable pose targets (seed 1), random seeds,
//    tolerance 1e-5 per component, 5 ms budget per solve, the "bounded-lm"
//    solver of PoseSolvers(). One benchmark iteration = RunTargets over the
//    1000 targets on T threads (one model, one Problem/goal/solver per
//    thread, targets handed out one at a time), including the per-thread
//    setup and the independent FK check of every answer over the 1000
//    targets. Time = wall clock (UseRealTime); CPU = CPU time of the whole
//    process (MeasureProcessCPUTime), so CPU/Time is the number of cores the
//    batch kept busy. Counters: solves_per_second (rate over wall time),
//    success (verified successes / targets). The machine has 2 cores, so
//    T = 4 oversubscribes them: expect at most ~2× the one-thread rate, and
//    less when other processes compete for the cores (quote the load).
//
// 2. ScalingChain/solver:S/dof:n — a spatial serial chain of n revolute
//    joints (tests/solvers/differential/differential_models.h SpatialChain:
//    axes cycling z, y, x, links 1/n long so the reach is ~1 m at every n, limits
//    ±1 rad), a position goal for the tip at FK of a random pose within the
//    limits (20 targets, seed 7, cycled), solved from q = 0 (mid-limits, the
//    stretched chain); success = converged with the tip within 1e-5 m
//    (checked afterwards by ReferenceSitePose, independent of kinematics.cc)
//    and q within limits. Solvers: bounded-lm (own restarts; solves the
//    n × n damped normal equations), lbfgsb (L-BFGS-B, memory 10, no
//    restarts) and bounded-dls (DLS with the bounds as an exact box
//    subproblem, λ = 0.1 m, solves the 3 × 3 form when no bound is active).
//    Budget per solve: 50 ms (n ≤ 30), 0.5 s (n = 100, 300), 2 s (1000).
//    One benchmark iteration = one solve of the next target.
//
// 3. ScalingHuman/solver:S/goals:g — HumanFigure (framework/builders.h,
//    floating root + clavicles, 53 DOF) with the first g of these goals:
//    poses of both hands, both feet and the head (5); positions of elbows,
//    knees and the pelvis (10); wrists, ankles and the neck (15); shoulders,
//    hips and the pelvis orientation (20). Targets: FK of random poses
//    (limited coordinates uniform within limits; the six root coordinates
//    uniform in [−0.5, 0.5] m or rad, our choice), 20 of them (seed 11),
//    cycled; start q = 0 (standing). Success = every goal within 1e-5 m and
//    1e-5 rad, q within limits. Budget 0.1 s per solve.
//
// Counters of 2 and 3: success (fraction), iterations (mean solver
// iterations per solve), dof. Run a Release build with repetitions and quote
// medians:
//
//   ./build-rel/benchmarks/iklab_benchmarks --benchmark_filter=Scaling
//       --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/ik_benchmark.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/solvers/differential/differential_models.h"

namespace iklab {
namespace {

[[maybe_unused]] const bool kCoresRecorded =
    (benchmark::AddCustomContext(
         "hardware_threads",
         std::to_string(std::thread::hardware_concurrency())),
     true);

// ---------------------------------------------------------------------------
// 1. Throughput vs threads
// ---------------------------------------------------------------------------

void BM_ScalingThreads(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::string data = DataDirectory().string();
  const BenchmarkRobot panda = StandardRobots(data).front();
  const UrdfFigure urdf =
      LoadUrdfChain(panda.urdf_path, panda.base_link, panda.tip_link);
  const auto model = std::make_shared<const Model>(urdf.figure.Compile());
  const int site = model->SiteIndex(panda.tip_link);
  BenchmarkSettings settings;
  settings.targets = 1000;
  settings.seed = 1;
  settings.threads = threads;
  const auto targets = GenerateTargets(*model, site, settings.targets,
                                       settings.seed, SeedMode::kRandom);
  BenchmarkSolver solver;
  for (const BenchmarkSolver& s : PoseSolvers()) {
    if (s.name == "bounded-lm") solver = s;
  }
  long solves = 0, successes = 0;
  for (auto _ : state) {
    const auto outcomes = RunTargets(model, site, targets, solver, settings);
    for (const TargetOutcome& o : outcomes) successes += o.success;
    solves += static_cast<long>(outcomes.size());
    benchmark::DoNotOptimize(outcomes.data());
  }
  state.SetLabel("panda bounded-lm, " + std::to_string(threads) +
                 " thread(s) on " +
                 std::to_string(std::thread::hardware_concurrency()) +
                 " hardware threads");
  state.counters["solves_per_second"] = benchmark::Counter(
      static_cast<double>(solves), benchmark::Counter::kIsRate);
  state.counters["success"] =
      static_cast<double>(successes) / static_cast<double>(solves);
}
BENCHMARK(BM_ScalingThreads)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------
// Shared solver set for 2 and 3
// ---------------------------------------------------------------------------

enum SolverKind { kBoundedLm = 0, kLbfgsb = 1, kBoundedDls = 2 };

std::unique_ptr<Solver> MakeScalingSolver(int kind, double budget,
                                          double tolerance) {
  SolveOptions common;
  common.time_budget_seconds = budget;
  common.position_tolerance = tolerance;
  common.angle_tolerance = tolerance;
  common.max_iterations = 1000000;  // the budget ends a solve
  switch (kind) {
    case kBoundedLm: {
      BoundedLmOptions o;
      o.common = common;
      return std::make_unique<BoundedLmSolver>(o);
    }
    case kLbfgsb: {
      LbfgsbOptions o;
      o.common = common;
      return std::make_unique<LbfgsbSolver>(o);
    }
    default: {
      BoundedDampedLeastSquaresOptions o;
      o.common = common;
      o.damping = 0.1;
      return std::make_unique<BoundedDampedLeastSquaresSolver>(o);
    }
  }
}

// Uniform within limits; unbounded coordinates uniform in [−0.5, 0.5].
Eigen::VectorXd RandomPose(const Model& model, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::VectorXd q(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    q[i] = model.bounded(i)
               ? model.lower()[i] +
                     (model.upper()[i] - model.lower()[i]) * unit(*rng)
               : unit(*rng) - 0.5;
  }
  return q;
}

// Solves target after target (cycling), one solve per benchmark iteration;
// `set_target(k)` points the problem's goals at target k and `check(k, q)`
// verifies an answer after the timed loop.
template <typename SetTarget, typename Check>
void SolveLoop(benchmark::State& state, const Solver& solver,
               const Problem& problem, const Eigen::VectorXd& q0,
               int num_targets, const SetTarget& set_target,
               const Check& check) {
  std::vector<Eigen::VectorXd> answers;
  std::vector<int> which;
  std::vector<char> converged;
  long iterations = 0;
  int next = 0;
  for (auto _ : state) {
    set_target(next);
    Result result = solver.Solve(problem, q0);
    iterations += result.iterations;
    converged.push_back(result.converged());
    which.push_back(next);
    answers.push_back(std::move(result.q));
    next = (next + 1) % num_targets;
  }
  long successes = 0;
  for (size_t k = 0; k < answers.size(); ++k) {
    successes += converged[k] && check(which[k], answers[k]);
  }
  const double solves = static_cast<double>(std::max<size_t>(1, answers.size()));
  state.counters["success"] = static_cast<double>(successes) / solves;
  state.counters["iterations"] = static_cast<double>(iterations) / solves;
  state.counters["dof"] = problem.nq();
  state.SetLabel(solver.name());
}

// ---------------------------------------------------------------------------
// 2. Time per solve vs DOF
// ---------------------------------------------------------------------------

void BM_ScalingChain(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  const int n = static_cast<int>(state.range(1));
  constexpr double kTolerance = 1e-5;
  const auto model = testing::SpatialChain(n, 1.0 / n, 1.0);
  const int tip = model->SiteIndex("tip");
  std::mt19937_64 rng(7);
  std::vector<Eigen::Vector3d> targets;
  for (int k = 0; k < 20; ++k) {
    targets.push_back(
        ReferenceSitePose(*model, tip, RandomPose(*model, &rng)).translation());
  }
  Problem problem(model);
  auto goal = std::make_shared<PositionGoal>(*model, "tip", targets[0]);
  problem.AddGoal(goal);
  const double budget = n <= 30 ? 0.05 : n <= 300 ? 0.5 : 2.0;
  const auto solver = MakeScalingSolver(kind, budget, kTolerance);
  SolveLoop(
      state, *solver, problem, model->MidLimits(), 20,
      [&](int k) { goal->set_target(targets[k]); },
      [&](int k, const Eigen::VectorXd& q) {
        const Eigen::Vector3d reached =
            ReferenceSitePose(*model, tip, q).translation();
        return (reached - targets[k]).norm() <= kTolerance &&
               model->WithinLimits(q, 0.0);
      });
}

// Fixed solve counts: 200 (each target 10 times) up to 30 DOF, 20 (each
// target once) above, where a solve can take up to seconds.
void ChainIterations(benchmark::internal::Benchmark* b) {
  b->ArgNames({"solver", "dof"});
  for (int solver : {kBoundedLm, kLbfgsb, kBoundedDls}) {
    for (int n : {7, 15, 30}) b->Args({solver, n});
  }
}
void ChainIterationsLarge(benchmark::internal::Benchmark* b) {
  b->ArgNames({"solver", "dof"});
  for (int solver : {kBoundedLm, kLbfgsb, kBoundedDls}) {
    for (int n : {100, 300, 1000}) b->Args({solver, n});
  }
}
BENCHMARK(BM_ScalingChain)
    ->Apply(ChainIterations)
    ->Iterations(200)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScalingChain)
    ->Apply(ChainIterationsLarge)
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------
// 3. Human figure with 5–20 goals
// ---------------------------------------------------------------------------

struct HumanGoalSpec {
  enum Type { kPose, kPosition, kOrientation } type;
  const char* site;
};

// In the order they are added (the first g are used).
const HumanGoalSpec kHumanGoals[20] = {
    {HumanGoalSpec::kPose, "left_hand"},
    {HumanGoalSpec::kPose, "right_hand"},
    {HumanGoalSpec::kPose, "left_foot"},
    {HumanGoalSpec::kPose, "right_foot"},
    {HumanGoalSpec::kPose, "head"},
    {HumanGoalSpec::kPosition, "left_elbow"},
    {HumanGoalSpec::kPosition, "right_elbow"},
    {HumanGoalSpec::kPosition, "left_knee"},
    {HumanGoalSpec::kPosition, "right_knee"},
    {HumanGoalSpec::kPosition, "pelvis"},
    {HumanGoalSpec::kPosition, "left_wrist"},
    {HumanGoalSpec::kPosition, "right_wrist"},
    {HumanGoalSpec::kPosition, "left_ankle"},
    {HumanGoalSpec::kPosition, "right_ankle"},
    {HumanGoalSpec::kPosition, "neck"},
    {HumanGoalSpec::kPosition, "left_shoulder"},
    {HumanGoalSpec::kPosition, "right_shoulder"},
    {HumanGoalSpec::kPosition, "left_hip"},
    {HumanGoalSpec::kPosition, "right_hip"},
    {HumanGoalSpec::kOrientation, "pelvis"},
};

void BM_ScalingHuman(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  const int num_goals = static_cast<int>(state.range(1));
  constexpr double kTolerance = 1e-5;
  const auto model = std::make_shared<const Model>(HumanFigure().Compile());
  std::mt19937_64 rng(11);
  std::vector<Eigen::VectorXd> poses;
  for (int k = 0; k < 20; ++k) poses.push_back(RandomPose(*model, &rng));

  Problem problem(model);
  std::vector<std::shared_ptr<PositionOrientationGoal>> pose_goals;
  std::vector<std::shared_ptr<PositionGoal>> position_goals;
  std::vector<std::shared_ptr<OrientationGoal>> orientation_goals;
  std::vector<int> sites;
  for (int g = 0; g < num_goals; ++g) {
    const HumanGoalSpec& spec = kHumanGoals[g];
    sites.push_back(model->SiteIndex(spec.site));
    switch (spec.type) {
      case HumanGoalSpec::kPose:
        pose_goals.push_back(std::make_shared<PositionOrientationGoal>(
            *model, spec.site, Eigen::Isometry3d::Identity()));
        problem.AddGoal(pose_goals.back());
        break;
      case HumanGoalSpec::kPosition:
        position_goals.push_back(std::make_shared<PositionGoal>(
            *model, spec.site, Eigen::Vector3d::Zero()));
        problem.AddGoal(position_goals.back());
        break;
      case HumanGoalSpec::kOrientation:
        orientation_goals.push_back(std::make_shared<OrientationGoal>(
            *model, spec.site, Eigen::Matrix3d::Identity()));
        problem.AddGoal(orientation_goals.back());
        break;
    }
  }
  // Target site poses per random pose, from the independent reference FK.
  std::vector<std::vector<Eigen::Isometry3d>> targets(poses.size());
  for (size_t k = 0; k < poses.size(); ++k) {
    for (int site : sites) {
      targets[k].push_back(ReferenceSitePose(*model, site, poses[k]));
    }
  }
  const auto set_target = [&](int k) {
    size_t p = 0, x = 0, o = 0;
    for (int g = 0; g < num_goals; ++g) {
      const Eigen::Isometry3d& t = targets[k][g];
      switch (kHumanGoals[g].type) {
        case HumanGoalSpec::kPose:
          pose_goals[p++]->set_target(t);
          break;
        case HumanGoalSpec::kPosition:
          position_goals[x++]->set_target(t.translation());
          break;
        case HumanGoalSpec::kOrientation:
          orientation_goals[o++]->set_target(t.linear());
          break;
      }
    }
  };
  const auto check = [&](int k, const Eigen::VectorXd& q) {
    if (!model->WithinLimits(q, 0.0)) return false;
    for (int g = 0; g < num_goals; ++g) {
      const Eigen::Isometry3d reached = ReferenceSitePose(*model, sites[g], q);
      const Eigen::Isometry3d& t = targets[k][g];
      const double dp = (t.translation() - reached.translation()).norm();
      const double da =
          Eigen::AngleAxisd(t.linear() * reached.linear().transpose()).angle();
      const HumanGoalSpec::Type type = kHumanGoals[g].type;
      if (type != HumanGoalSpec::kOrientation && dp > kTolerance) return false;
      if (type != HumanGoalSpec::kPosition && da > kTolerance) return false;
    }
    return true;
  };
  const auto solver = MakeScalingSolver(kind, 0.1, kTolerance);
  SolveLoop(state, *solver, problem, Eigen::VectorXd::Zero(model->nq()),
            static_cast<int>(poses.size()), set_target, check);
  state.counters["goals"] = num_goals;
}

void HumanGrid(benchmark::internal::Benchmark* b) {
  b->ArgNames({"solver", "goals"});
  for (int solver : {kBoundedLm, kLbfgsb, kBoundedDls}) {
    for (int goals : {5, 10, 15, 20}) b->Args({solver, goals});
  }
}
BENCHMARK(BM_ScalingHuman)
    ->Apply(HumanGrid)
    ->Iterations(40)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace iklab
