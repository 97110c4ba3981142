// Random restarts: success rate on random reachable 7-DOF pose goals,
// determinism, attempt accounting.
#include "solvers/restarts.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("Restarts reach >= 99% of random reachable 7-DOF pose goals",
          "[solvers]") {
  // Protocol of the IK benchmarks (TRAC-IK): q within limits → FK → target
  // pose; solve from the mid-limits seed; success = converged (errors ≤ 1e-6
  // m and rad here). The precise rate and speed are benchmarks
  // (benchmarks/solvers_benchmark.cc); this asserts a floor.
  auto model = testing::SevenDofArm();
  const int kTargets = 200;
  std::mt19937_64 rng(2024);
  std::vector<Eigen::Isometry3d> targets;
  for (int k = 0; k < kTargets; ++k) {
    targets.push_back(
        testing::SitePoseAt(*model, "tool", testing::UniformPose(*model, &rng)));
  }
  RestartOptions restarts;
  restarts.max_attempts = 20;
  restarts.seed = 99;
  const std::vector<std::shared_ptr<const Solver>> solvers = {
      std::make_shared<LbfgsbSolver>(), std::make_shared<CeresSolver>()};
  const Eigen::VectorXd q0 = model->MidLimits();
  for (const auto& solver : solvers) {
    DYNAMIC_SECTION(solver->name()) {
      const RestartSolver restarting(solver, restarts);
      auto goal = std::make_shared<PositionOrientationGoal>(
          *model, "tool", Eigen::Isometry3d::Identity());
      Problem problem(model);
      problem.AddGoal(goal);
      int successes = 0, first_try = 0;
      for (const Eigen::Isometry3d& target : targets) {
        goal->set_target(target);
        const Result r = restarting.Solve(problem, q0);
        if (r.converged()) {
          ++successes;
          // Verified independently of the solver's own error report.
          const Eigen::Isometry3d reached =
              testing::SitePoseAt(*model, "tool", r.q);
          CHECK((reached.translation() - target.translation()).norm() <= 1e-6);
          CHECK(Eigen::AngleAxisd(reached.linear().transpose() *
                                  target.linear())
                    .angle() <= 1e-6);
          CHECK(problem.bounds().Contains(r.q));
        }
        if (r.converged() && r.attempts == 1) ++first_try;
      }
      const double rate = static_cast<double>(successes) / kTargets;
      INFO(solver->name() << ": success " << rate << ", first attempt "
                          << first_try);
      CHECK(rate >= 0.99);
    }
  }
}

TEST_CASE("Restarts: same seed gives bit-identical results, attempts counted",
          "[solvers]") {
  auto model = testing::SevenDofArm();
  Problem problem(model);
  // Out of reach (the arm spans ~1.3 m): every attempt fails, all are made.
  Eigen::Isometry3d far = Eigen::Isometry3d::Identity();
  far.translation() = Eigen::Vector3d(2.0, 1.0, 0.5);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(*model, "tool", far));
  RestartOptions options;
  options.max_attempts = 4;
  options.seed = 12345;
  const LbfgsbSolver lbfgsb;
  const Eigen::VectorXd q0 = Eigen::VectorXd::Constant(7, 0.2);
  const Result a = SolveWithRestarts(lbfgsb, problem, q0, options);
  const Result b = SolveWithRestarts(lbfgsb, problem, q0, options);
  INFO(a.message);
  CHECK_FALSE(a.converged());
  CHECK(a.attempts == 4);
  CHECK(a.solver == "lbfgsb+restarts");
  CHECK(a.q == b.q);  // bit-identical
  CHECK(a.status == b.status);
  CHECK(a.final_potential == b.final_potential);
  CHECK(a.iterations == b.iterations);
  CHECK(a.function_evaluations == b.function_evaluations);
  CHECK_THAT(a.message, Contains("no attempt converged in 4 attempts"));
  // The best attempt is returned: not worse than the first alone.
  const Result single = lbfgsb.Solve(problem, q0);
  CHECK(a.final_potential <= single.final_potential);
  CHECK(a.function_evaluations > single.function_evaluations);
}

TEST_CASE("Restarts stop at the first converged attempt and at the budget",
          "[solvers]") {
  auto model = testing::ParentArm();
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "tip", Eigen::Vector3d(-20, 5, 0)));
  RestartOptions options;
  const Result r = SolveWithRestarts(CeresSolver(), problem,
                                     testing::ParentStart(), options);
  CHECK(r.converged());
  CHECK(r.attempts == 1);

  Problem far(model);
  far.AddGoal(std::make_shared<PositionGoal>(*model, "tip",
                                             Eigen::Vector3d(100, 0, 0)));
  options.time_budget_seconds = 1e-12;
  options.max_attempts = 50;
  const Result budget =
      SolveWithRestarts(CeresSolver(), far, testing::ParentStart(), options);
  CHECK(budget.attempts == 1);
  CHECK(budget.status == SolveStatus::kUnreachable);
}

TEST_CASE("Restarts report invalid input and invalid options", "[solvers]") {
  auto model = testing::ParentArm();
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "tip", Eigen::Vector3d(-20, 5, 0)));
  const Result bad_q0 = SolveWithRestarts(LbfgsbSolver(), problem,
                                          Eigen::VectorXd::Zero(2), {});
  CHECK(bad_q0.status == SolveStatus::kInvalidInput);
  CHECK(bad_q0.attempts == 1);
  RestartOptions options;
  options.max_attempts = 0;
  const Result bad_options = SolveWithRestarts(
      LbfgsbSolver(), problem, testing::ParentStart(), options);
  CHECK(bad_options.status == SolveStatus::kInvalidInput);
  CHECK_THAT(bad_options.message, Contains("max_attempts"));
  CHECK_THROWS_WITH(RestartSolver(nullptr, {}), Contains("null"));
}

}  // namespace
}  // namespace iklab
