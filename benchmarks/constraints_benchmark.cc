// Potential + gradient (the L-BFGS-B evaluation) and stacked residuals +
// Jacobian (the Ceres / Gauss-Newton evaluation) of constraints::Problem.
//
// What is timed (one call = one iteration, FK included, workspace reused):
//   Constraints_Arm_PoseGoal_*     Tolani's 7-DOF arm (framework/builders.h),
//                                  one PositionOrientationGoal on "hand"
//   Constraints_Human_10Goals_*    the 53-DOF human figure, 10 goals: position
//                                  of both hands, both feet and the head;
//                                  orientation of both hands; the feet on the
//                                  floor plane (2 PlaneGoals); the head aiming
//                                  at a point ahead
//   *_Potential                    EvaluatePotential(q, &ws, nullptr)
//   *_PotentialGradient            EvaluatePotential(q, &ws, &gradient)
//   *_ResidualsJacobian            EvaluateResiduals(q, &ws, R, &J)
//
// Run a Release build with -DIKLAB_BUILD_BENCHMARKS=ON:
//   ./iklab_benchmarks --benchmark_filter=Constraints
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// (one command line)
// and quote the medians.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "constraints/aiming_goal.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/kinematics.h"

namespace iklab {
namespace {

// A pose drawn within the limits (fixed seed), [−0.5, 0.5] where unbounded.
Eigen::VectorXd SamplePose(const Model& model, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd q(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    const double lo = model.bounded(i) ? model.lower()[i] : -0.5;
    const double hi = model.bounded(i) ? model.upper()[i] : 0.5;
    q[i] = lo + (hi - lo) * u(rng);
  }
  return q;
}

// Targets are FK of a second pose, so the goals are reachable but not
// satisfied at the timed pose.
Problem ArmProblem() {
  auto model = std::make_shared<const Model>(TolaniArm().Compile());
  Data data(*model);
  ForwardKinematics(*model, SamplePose(*model, 2), &data);
  const Eigen::Isometry3d X_WG =
      SitePose(*model, data, model->SiteIndex("hand"));
  Problem problem(model);
  problem.AddGoal(
      std::make_shared<PositionOrientationGoal>(*model, "hand", X_WG));
  return problem;
}

Problem HumanProblem() {
  auto model = std::make_shared<const Model>(HumanFigure().Compile());
  Data data(*model);
  ForwardKinematics(*model, SamplePose(*model, 2), &data);
  const auto pose = [&](const std::string& site) {
    return SitePose(*model, data, model->SiteIndex(site));
  };
  Problem problem(model);
  for (const std::string& site : HumanEndEffectorSites()) {
    problem.AddGoal(std::make_shared<PositionGoal>(*model, site,
                                                   pose(site).translation()));
  }
  for (const char* hand : {"left_hand", "right_hand"}) {
    problem.AddGoal(
        std::make_shared<OrientationGoal>(*model, hand, pose(hand).linear()));
  }
  for (const char* foot : {"left_foot", "right_foot"}) {
    problem.AddGoal(std::make_shared<PlaneGoal>(
        *model, foot, Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitZ()));
  }
  problem.AddGoal(std::make_shared<AimingGoal>(
      *model, "head", Eigen::Vector3d::UnitX(), Eigen::Vector3d(3, 0, 1.5)));
  return problem;
}

enum class Mode { kPotential, kPotentialGradient, kResidualsJacobian };

void Run(benchmark::State& state, const Problem& problem, Mode mode) {
  ProblemWorkspace ws(problem);
  const Eigen::VectorXd q = SamplePose(problem.model(), 1);
  Eigen::VectorXd gradient(problem.nq());
  Eigen::VectorXd residuals(problem.num_residuals());
  Eigen::MatrixXd jacobian(problem.num_residuals(), problem.nq());
  Eigen::Ref<Eigen::VectorXd> gradient_ref = gradient;
  Eigen::Ref<Eigen::MatrixXd> jacobian_ref = jacobian;
  for (auto _ : state) {
    switch (mode) {
      case Mode::kPotential:
        benchmark::DoNotOptimize(problem.EvaluatePotential(q, &ws, nullptr));
        break;
      case Mode::kPotentialGradient:
        benchmark::DoNotOptimize(
            problem.EvaluatePotential(q, &ws, &gradient_ref));
        benchmark::DoNotOptimize(gradient.data());
        break;
      case Mode::kResidualsJacobian:
        problem.EvaluateResiduals(q, &ws, residuals, &jacobian_ref);
        benchmark::DoNotOptimize(residuals.data());
        benchmark::DoNotOptimize(jacobian.data());
        break;
    }
    benchmark::ClobberMemory();
  }
  state.counters["nq"] = problem.nq();
  state.counters["residuals"] = problem.num_residuals();
}

void Constraints_Arm_PoseGoal_Potential(benchmark::State& state) {
  static const Problem problem = ArmProblem();
  Run(state, problem, Mode::kPotential);
}
void Constraints_Arm_PoseGoal_PotentialGradient(benchmark::State& state) {
  static const Problem problem = ArmProblem();
  Run(state, problem, Mode::kPotentialGradient);
}
void Constraints_Arm_PoseGoal_ResidualsJacobian(benchmark::State& state) {
  static const Problem problem = ArmProblem();
  Run(state, problem, Mode::kResidualsJacobian);
}
void Constraints_Human_10Goals_Potential(benchmark::State& state) {
  static const Problem problem = HumanProblem();
  Run(state, problem, Mode::kPotential);
}
void Constraints_Human_10Goals_PotentialGradient(benchmark::State& state) {
  static const Problem problem = HumanProblem();
  Run(state, problem, Mode::kPotentialGradient);
}
void Constraints_Human_10Goals_ResidualsJacobian(benchmark::State& state) {
  static const Problem problem = HumanProblem();
  Run(state, problem, Mode::kResidualsJacobian);
}

BENCHMARK(Constraints_Arm_PoseGoal_Potential);
BENCHMARK(Constraints_Arm_PoseGoal_PotentialGradient);
BENCHMARK(Constraints_Arm_PoseGoal_ResidualsJacobian);
BENCHMARK(Constraints_Human_10Goals_Potential);
BENCHMARK(Constraints_Human_10Goals_PotentialGradient);
BENCHMARK(Constraints_Human_10Goals_ResidualsJacobian);

}  // namespace
}  // namespace iklab
