// Analytic 7-DOF limb IK of Tolani, Goswami & Badler (§3, Tables 4, 5, 7)
// and the planar two-link solve (Parent §5.3.1), per solve.
//
// Figure: TolaniArmGeometry() (left arm, 1.75 m body, AAOS limits). Goals:
// 1024 joint vectors drawn uniformly within the limits (seed 2000) → FK →
// goal at the hand (fingertip) site; one benchmark iteration solves the next
// goal, cycling. Rows:
//   Analytic/PoseLimitsOff    position + orientation, limits off (Table 5)
//   Analytic/PoseLimitsOn     position + orientation, valid swivel intervals,
//                             midpoint of the longest arc (Table 5)
//   Analytic/PoseUnreachableLimitsOn  out-of-reach pose goals, Table 3's
//                             reduced problem (ApproximatePose; Table 5
//                             "goal unreachable")
//   Analytic/PositionLimitsOn position only, wrist angles given (Table 4)
//   Analytic/AimLimitsOff|On  aiming at a point 0.5 m along the hand's x axis,
//                             wrist angles given, θ4 chosen (Table 7)
//   Analytic/SolverPoseLimitsOn the same pose goals through the common
//                             interface (Solve(problem, q0, options)), which
//                             adds model checks, the SolveScope bookkeeping
//                             and the final FK/goal errors
//   Analytic/TwoLink          SolveTwoLinkPlanar on random annulus targets
// The paper's times (year-2000 hardware): 24 µs position, 100 µs position +
// orientation with limits off, 230 µs / 1.5 ms with limits on, 25 µs aiming.
//
//   cmake -S . -B build-bench -DIKLAB_BUILD_BENCHMARKS=ON
//         -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-bench --target iklab_benchmarks
//   ./build-bench/benchmarks/iklab_benchmarks --benchmark_filter=Analytic
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/kinematics.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/analytic/two_link_analytic.h"

namespace iklab {
namespace {

constexpr int kNumGoals = 1024;

struct ArmGoals {
  ArmGoals() : geometry(TolaniArmGeometry()), ik(geometry) {
    E.translation() = geometry.p_S2_tip;
    std::mt19937_64 rng(2000);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int k = 0; k < kNumGoals; ++k) {
      Vector7d q;
      for (int i = 0; i < 7; ++i) {
        q[i] = geometry.lower[i] + (geometry.upper[i] - geometry.lower[i]) * u(rng);
      }
      const Eigen::Isometry3d X = ik.Forward(q) * E;
      poses.push_back(X);
      wrists.push_back(q.tail<3>());
      aims.push_back(X.translation() + 0.5 * X.linear().col(0));
    }
  }
  LimbGeometry geometry;
  TolaniLimbIk ik;
  Eigen::Isometry3d E = Eigen::Isometry3d::Identity();
  std::vector<Eigen::Isometry3d, Eigen::aligned_allocator<Eigen::Isometry3d>>
      poses;
  std::vector<Eigen::Vector3d> wrists;
  std::vector<Eigen::Vector3d> aims;
};

const ArmGoals& Goals() {
  static const ArmGoals goals;
  return goals;
}

void RecordRate(benchmark::State& state, int solved) {
  state.counters["solved"] = benchmark::Counter(
      static_cast<double>(solved) / static_cast<double>(state.iterations()));
}

void PoseSolve(benchmark::State& state, bool limits) {
  const ArmGoals& g = Goals();
  LimbIkOptions options;
  options.respect_limits = limits;
  int k = 0, solved = 0;
  for (auto _ : state) {
    const LimbSolution s = g.ik.SolvePose(g.poses[k], g.E, options);
    benchmark::DoNotOptimize(s.q.data());
    solved += s.status == LimbIkStatus::kSolved;
    k = (k + 1) % kNumGoals;
  }
  RecordRate(state, solved);
}

void BM_AnalyticPoseLimitsOff(benchmark::State& state) {
  PoseSolve(state, false);
}
void BM_AnalyticPoseLimitsOn(benchmark::State& state) {
  PoseSolve(state, true);
}

// Table 3 / Table 5 "goal unreachable": the same goals with the wrist pushed
// out to 1.3 × the arm's reach along its direction, solved by
// ApproximatePose (the reduced problem over φ and the wrist angles).
void BM_AnalyticPoseUnreachableLimitsOn(benchmark::State& state) {
  const ArmGoals& g = Goals();
  const double reach = g.ik.Forward(Vector7d::Zero()).translation().norm();
  std::vector<Eigen::Isometry3d, Eigen::aligned_allocator<Eigen::Isometry3d>>
      far;
  for (const Eigen::Isometry3d& X : g.poses) {
    Eigen::Isometry3d W = X * g.E.inverse();
    W.translation() = 1.3 * reach * W.translation().normalized();
    far.push_back(W * g.E);
  }
  LimbIkOptions options;
  int k = 0, reduced = 0;
  for (auto _ : state) {
    const LimbSolution s = g.ik.ApproximatePose(far[k], g.E, options);
    benchmark::DoNotOptimize(s.q.data());
    reduced += s.reduced;
    k = (k + 1) % kNumGoals;
  }
  state.counters["reduced"] = benchmark::Counter(
      static_cast<double>(reduced) / static_cast<double>(state.iterations()));
}

void BM_AnalyticPositionLimitsOn(benchmark::State& state) {
  const ArmGoals& g = Goals();
  LimbIkOptions options;
  int k = 0, solved = 0;
  for (auto _ : state) {
    const LimbSolution s = g.ik.SolvePosition(
        g.poses[k].translation(), g.geometry.p_S2_tip, g.wrists[k], options);
    benchmark::DoNotOptimize(s.q.data());
    solved += s.status == LimbIkStatus::kSolved;
    k = (k + 1) % kNumGoals;
  }
  RecordRate(state, solved);
}

void AimSolve(benchmark::State& state, bool limits) {
  const ArmGoals& g = Goals();
  LimbIkOptions options;
  options.respect_limits = limits;
  int k = 0, solved = 0;
  for (auto _ : state) {
    const LimbSolution s = g.ik.SolveAiming(
        g.aims[k], g.E, Eigen::Vector3d::UnitX(), g.wrists[k], options);
    benchmark::DoNotOptimize(s.q.data());
    solved += s.status == LimbIkStatus::kSolved;
    k = (k + 1) % kNumGoals;
  }
  RecordRate(state, solved);
}

void BM_AnalyticAimLimitsOff(benchmark::State& state) { AimSolve(state, false); }
void BM_AnalyticAimLimitsOn(benchmark::State& state) { AimSolve(state, true); }

void BM_AnalyticSolverPoseLimitsOn(benchmark::State& state) {
  const ArmGoals& g = Goals();
  auto model = std::make_shared<const Model>(LimbFigure(g.geometry).Compile());
  // World goals: the figure's root turns the limb frame by X_RS1.
  std::vector<Problem> problems;
  std::vector<std::shared_ptr<PositionOrientationGoal>> goals;
  for (int k = 0; k < 64; ++k) {
    Problem p(model);
    p.AddGoal(std::make_shared<PositionOrientationGoal>(
        *model, g.geometry.tip_site_name, g.geometry.X_RS1 * g.poses[k]));
    problems.push_back(p);
  }
  TolaniLimbOptions options;
  const TolaniLimbSolver solver(options);
  const Eigen::VectorXd q0 = Eigen::VectorXd::Zero(7);
  int k = 0, solved = 0;
  for (auto _ : state) {
    const Result r = solver.Solve(problems[k], q0);
    benchmark::DoNotOptimize(r.q.data());
    solved += r.converged();
    k = (k + 1) % static_cast<int>(problems.size());
  }
  RecordRate(state, solved);
}

void BM_AnalyticTwoLink(benchmark::State& state) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-25.0, 25.0);
  std::vector<Eigen::Vector2d> targets(kNumGoals);
  for (auto& t : targets) t = Eigen::Vector2d(u(rng), u(rng));
  int k = 0;
  for (auto _ : state) {
    const TwoLinkSolutions s = SolveTwoLinkPlanar(15.0, 10.0, targets[k]);
    benchmark::DoNotOptimize(s.closest.data());
    k = (k + 1) % kNumGoals;
  }
}

BENCHMARK(BM_AnalyticPoseLimitsOff);
BENCHMARK(BM_AnalyticPoseLimitsOn);
BENCHMARK(BM_AnalyticPoseUnreachableLimitsOn);
BENCHMARK(BM_AnalyticPositionLimitsOn);
BENCHMARK(BM_AnalyticAimLimitsOff);
BENCHMARK(BM_AnalyticAimLimitsOn);
BENCHMARK(BM_AnalyticSolverPoseLimitsOn);
BENCHMARK(BM_AnalyticTwoLink);

}  // namespace
}  // namespace iklab
