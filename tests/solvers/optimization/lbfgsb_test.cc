// L-BFGS-B adapter specifics: the objective callback allocates nothing, the
// box handed to LBFGSpp, LBFGSpp's exceptions as statuses.
#include "solvers/optimization/lbfgsb_solver.h"

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "solvers/optimization/internal/lbfgsb_objective.h"
#include "tests/allocation_counter.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("L-BFGS-B objective callback allocates nothing once the workspace "
          "exists",
          "[solvers]") {
  if (!testing::AllocationCounter::enabled()) return;  // sanitizer build
  auto model = testing::SevenDofArm();
  Problem problem(model);
  Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
  target.translation() = Eigen::Vector3d(0.3, 0.2, 0.6);
  problem.AddGoal(
      std::make_shared<PositionOrientationGoal>(*model, "tool", target));
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "tool", Eigen::Vector3d(0.3, 0.2, 0.6)));
  ProblemWorkspace workspace(problem);
  const Eigen::VectorXd& lower = problem.bounds().lower;
  const Eigen::VectorXd& upper = problem.bounds().upper;
  internal::LbfgsbObjective objective(problem, &workspace, lower, upper);
  std::mt19937_64 rng(7);
  Eigen::VectorXd x = testing::UniformPose(*model, &rng);
  Eigen::VectorXd gradient(model->nq());
  objective(x, gradient);  // warm-up
  Eigen::VectorXd x_out = 4.0 * x;  // outside the box: projected inside
  double sum = 0.0;
  {
    testing::AllocationCounter counter;
    for (int k = 0; k < 20; ++k) {
      sum += objective(k % 2 == 0 ? x : x_out, gradient);
    }
    CHECK(counter.count() == 0);
  }
  CHECK(std::isfinite(sum));
  CHECK(objective.evaluations() == 21);
  CHECK(problem.bounds().Contains(objective.best_q()));
}

TEST_CASE("L-BFGS-B objective evaluates the projection of points outside the "
          "box",
          "[solvers]") {
  auto model = testing::ParentArm(-0.5, 0.5);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "tip", Eigen::Vector3d(-20, 5, 0)));
  ProblemWorkspace workspace(problem);
  internal::LbfgsbObjective objective(problem, &workspace,
                                      problem.bounds().lower,
                                      problem.bounds().upper);
  Eigen::VectorXd gradient(3), gradient_inside(3);
  const Eigen::Vector3d outside(0.9, -0.7, 0.2);
  const Eigen::Vector3d projected(0.5, -0.5, 0.2);
  const double f_out = objective(outside, gradient);
  const double f_in = objective(projected, gradient_inside);
  CHECK(f_out == f_in);
  CHECK(gradient == gradient_inside);
}

TEST_CASE("L-BFGS-B without limits ignores the bounds", "[solvers]") {
  // The unbounded optimum needs q0 ≈ 2.2 rad, outside [−1, 1].
  auto model = testing::ParentArm(-1.0, 1.0);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "tip", Eigen::Vector3d(-20, 5, 0)));
  LbfgsbOptions options;
  options.common.respect_limits = false;
  const Result r = Solve(problem, Eigen::Vector3d(0.5, 0.5, 0.5), options);
  INFO(r.message);
  CHECK(r.status == SolveStatus::kConverged);
  CHECK_FALSE(problem.bounds().Contains(r.q));
}

TEST_CASE("LBFGSpp's exceptions become statuses with LBFGSpp's message",
          "[solvers]") {
  // One trial per line search: Moré–Thuente gives up ("reached the maximum
  // number of iterations") as soon as the first trial fails the Wolfe test.
  auto model = testing::SevenDofArm();
  Problem problem(model);
  Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
  target.translation() = Eigen::Vector3d(0.3, -0.4, 0.5);
  problem.AddGoal(
      std::make_shared<PositionOrientationGoal>(*model, "tool", target));
  LbfgsbOptions options;
  options.max_linesearch = 1;
  const Result r = Solve(problem, Eigen::VectorXd::Constant(7, 0.1), options);
  INFO(r.message);
  REQUIRE(r.q.allFinite());
  if (!r.converged()) {
    CHECK_THAT(r.message, Contains("LBFGSpp"));
    CHECK((r.status == SolveStatus::kNumericalFailure ||
           r.status == SolveStatus::kUnreachable ||
           r.status == SolveStatus::kLimitsInfeasible));
  }
  CHECK(r.final_potential <= r.initial_potential);
}

TEST_CASE("L-BFGS-B restarts an empty memory after a line search fails away "
          "from a stationary point",
          "[solvers]") {
  // From the singular mid-limits seed of the 7-DOF arm, LBFGSpp's subspace
  // step is sometimes not a descent direction. With memory_resets the solve
  // continues from the best pose instead of ending in kNumericalFailure.
  auto model = testing::SevenDofArm();
  auto goal = std::make_shared<PositionOrientationGoal>(
      *model, "tool", Eigen::Isometry3d::Identity());
  Problem problem(model);
  problem.AddGoal(goal);
  LbfgsbOptions no_resets;
  no_resets.memory_resets = 0;
  const LbfgsbOptions resets;  // default
  REQUIRE(resets.memory_resets > 0);
  std::mt19937_64 rng(2024);
  int failures_without = 0, failures_with = 0, converged_without = 0,
      converged_with = 0;
  for (int k = 0; k < 100; ++k) {
    goal->set_target(testing::SitePoseAt(*model, "tool",
                                         testing::UniformPose(*model, &rng)));
    const Result a = Solve(problem, model->MidLimits(), no_resets);
    const Result b = Solve(problem, model->MidLimits(), resets);
    failures_without += a.status == SolveStatus::kNumericalFailure;
    failures_with += b.status == SolveStatus::kNumericalFailure;
    converged_without += a.converged();
    converged_with += b.converged();
    if (b.status == SolveStatus::kNumericalFailure) {
      CHECK_THAT(b.message, Contains("LBFGSpp"));
    }
  }
  INFO("numerical failures without/with resets: " << failures_without << "/"
       << failures_with);
  CHECK(failures_without > 0);  // the case exists on this target set
  CHECK(failures_with < failures_without);
  CHECK(converged_with > converged_without);
}

TEST_CASE("LbfgsbOptions::IsValid names the bad field", "[solvers]") {
  std::string why;
  CHECK(LbfgsbOptions().IsValid(&why));
  LbfgsbOptions o;
  o.epsilon = -1;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("epsilon"));
  o = LbfgsbOptions();
  o.max_linesearch = 0;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("max_linesearch"));
  o = LbfgsbOptions();
  o.memory_resets = -1;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("memory_resets"));
  o = LbfgsbOptions();
  o.stationarity_tolerance = 1.5;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("stationarity_tolerance"));
  o = LbfgsbOptions();
  o.common.max_iterations = -3;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("max_iterations"));
}

}  // namespace
}  // namespace iklab
