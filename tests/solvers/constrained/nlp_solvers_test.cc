// The constrained-NLP solvers (IPOPT, NLopt's SLSQP): equality and inequality
// constraints honoured, bounds kept, infeasible sets reported by status, and
// the other solvers refusing constraints they cannot honour.

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "constraints/distance_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "constraints/tolerance_goals.h"
#include "framework/kinematics.h"
#include "solvers/constrained/internal/nlp_evaluator.h"
#include "solvers/constrained/ipopt_solver.h"
#include "solvers/constrained/slsqp_solver.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "solvers/restarts.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// Both NLP solvers, by name, made with `configure` applied to their options.
template <typename Fn>
std::vector<std::unique_ptr<Solver>> NlpSolvers(Fn&& configure) {
  IpoptOptions ipopt;
  SlsqpOptions slsqp;
  configure(&ipopt);
  configure(&slsqp);
  std::vector<std::unique_ptr<Solver>> solvers;
  solvers.push_back(MakeSolver(ipopt));
  solvers.push_back(MakeSolver(slsqp));
  return solvers;
}

Eigen::Vector3d ToolPosition(const Model& model, const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePosition(model, data, model.SiteIndex("tool"));
}

TEST_CASE("The NLP evaluator's last point is the last point evaluated, also "
          "without constraints",
          "[solvers]") {
  // IPOPT 3.11 stops on its intermediate callback (time budget, tolerance)
  // at the evaluator's last point. Without constraints there are no
  // constraint evaluations: that point once came from a cache of constraint
  // points that was never written, and a stopped solve returned heap
  // contents (1.6e-322, 5e175) as its pose.
  const auto model = testing::SevenDofArm();
  std::mt19937_64 rng(29);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "tool",
      ToolPosition(*model, testing::UniformPose(*model, &rng))));
  const Eigen::VectorXd q0 = testing::UniformPose(*model, &rng);
  internal::NlpEvaluator nlp(problem, q0, /*displacement_weight=*/0.0);
  CHECK(nlp.last_x() == q0);
  const Eigen::VectorXd x = testing::UniformPose(*model, &rng);
  Eigen::VectorXd gradient(7);
  nlp.Objective(x.data(), gradient.data());
  CHECK(nlp.last_x() == x);
  const Eigen::VectorXd y = testing::UniformPose(*model, &rng);
  nlp.Objective(y.data(), nullptr);
  CHECK(nlp.last_x() == y);
}

TEST_CASE("IPOPT and SLSQP reach random position goals posed as equality "
          "constraints on the 7-DOF arm, within the limits",
          "[solvers]") {
  const auto model = testing::SevenDofArm();
  std::mt19937_64 rng(17);
  int converged = 0, solves = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::VectorXd q_goal = testing::UniformPose(*model, &rng);
    const Eigen::VectorXd q0 = testing::UniformPose(*model, &rng);
    Problem problem(model);
    problem.AddEqualityConstraint(std::make_shared<PositionGoal>(
        *model, "tool", ToolPosition(*model, q_goal)));
    for (const auto& solver : NlpSolvers([](auto*) {})) {
      const Result result = solver->Solve(problem, q0);
      INFO(solver->name() << ": " << SolveStatusName(result.status) << ", "
                          << result.message);
      ++solves;
      REQUIRE(result.q.size() == 7);
      CHECK(problem.bounds().Contains(result.q));
      REQUIRE(result.constraint_errors.size() == 1);
      if (result.converged()) {
        ++converged;
        CHECK(result.constraint_errors[0].position <= 1e-6);
      } else {
        CHECK(result.status != SolveStatus::kInvalidInput);
      }
    }
  }
  // Local methods from random starts: most, not necessarily all.
  CHECK(converged >= solves * 8 / 10);
}

TEST_CASE("IPOPT and SLSQP keep an inequality (a cone on the tool axis) while "
          "meeting a position goal",
          "[solvers]") {
  const auto model = testing::SevenDofArm();
  std::mt19937_64 rng(23);
  const Eigen::VectorXd q_goal = testing::UniformPose(*model, &rng);
  Data data(*model);
  ForwardKinematics(*model, q_goal, &data);
  const Eigen::Isometry3d X = SitePose(*model, data, 0);
  Problem problem(model);
  problem.AddGoal(
      std::make_shared<PositionGoal>(*model, "tool", X.translation()));
  // The tool's z axis within 10° of its direction at q_goal (feasible).
  problem.AddInequalityConstraint(std::make_shared<ConeGoal>(
      *model, "tool", Eigen::Vector3d::UnitZ(), X.linear().col(2), 0.17));
  for (const auto& solver : NlpSolvers([](auto*) {})) {
    const Result result = solver->Solve(problem, testing::UniformPose(*model, &rng));
    INFO(solver->name() << ": " << result.message);
    CHECK(result.status == SolveStatus::kConverged);
    REQUIRE(result.constraint_errors.size() == 1);
    CHECK(result.constraint_errors[0].angle <= 1e-6);
    CHECK(result.goal_errors[0].position <= 1e-6);
  }
}

TEST_CASE("An infeasible constraint set ends short of it, never as "
          "converged",
          "[solvers]") {
  const auto model = testing::SevenDofArm();
  Problem problem(model);
  // The tool at two points 0.5 apart at once.
  problem.AddEqualityConstraint(std::make_shared<PositionGoal>(
      *model, "tool", Eigen::Vector3d(0.3, 0.0, 0.6)));
  problem.AddInequalityConstraint(std::make_shared<PointDistanceGoal>(
      *model, "tool", Eigen::Vector3d(0.3, 0.0, 0.6), 0.2, kInfinity));
  for (const auto& solver : NlpSolvers([](auto* o) {
         o->common.max_iterations = 300;
       })) {
    const Result result = solver->Solve(problem, model->MidLimits());
    INFO(solver->name() << ": " << result.message);
    CHECK_FALSE(result.converged());
    CHECK(result.status != SolveStatus::kInvalidInput);
    CHECK(result.q.allFinite());
  }
}

TEST_CASE("Solvers without constraint handling refuse a problem with hard "
          "constraints, naming the alternatives",
          "[solvers]") {
  const auto model = testing::SevenDofArm();
  Problem problem(model);
  problem.AddInequalityConstraint(std::make_shared<PointDistanceGoal>(
      *model, "tool", Eigen::Vector3d::Zero(), 0.2, kInfinity));
  const Eigen::VectorXd q0 = model->MidLimits();
  for (const Result& result :
       {Solve(problem, q0, LbfgsbOptions{}), Solve(problem, q0, CeresOptions{}),
        Solve(problem, q0, DampedLeastSquaresOptions{})}) {
    INFO(result.solver);
    CHECK(result.status == SolveStatus::kInvalidInput);
    CHECK_THAT(result.message, Contains("cannot honour hard constraints") &&
                                   Contains("WithConstraintsAsGoals"));
  }
  // Restarts pass the refusal on.
  const RestartSolver restarts(std::make_shared<LbfgsbSolver>(),
                               RestartOptions{});
  CHECK(restarts.Solve(problem, q0).status == SolveStatus::kInvalidInput);
  // The penalty form is accepted.
  CHECK(Solve(problem.WithConstraintsAsGoals(), q0, LbfgsbOptions{}).status !=
        SolveStatus::kInvalidInput);
}

TEST_CASE("IPOPT refuses more equality rows than coordinates with a clear "
          "status; the minimal rotation-vector form is accepted",
          "[solvers]") {
  const auto model = testing::SevenDofArm();
  std::mt19937_64 rng(3);
  const Eigen::VectorXd q_goal = testing::UniformPose(*model, &rng);
  Data data(*model);
  ForwardKinematics(*model, q_goal, &data);
  const Eigen::Isometry3d X = SitePose(*model, data, 0);
  Problem redundant(model);  // 3 + 6 = 9 rows > 7
  redundant.AddEqualityConstraint(
      std::make_shared<PositionGoal>(*model, "tool", X.translation()));
  redundant.AddEqualityConstraint(
      std::make_shared<OrientationGoal>(*model, "tool", X.linear()));
  const Result refused = Solve(redundant, model->MidLimits(), IpoptOptions{});
  CHECK(refused.status == SolveStatus::kInvalidInput);
  CHECK_THAT(refused.message, Contains("more equality constraint rows"));

  Problem minimal(model);  // 3 + 3 = 6 rows
  minimal.AddEqualityConstraint(
      std::make_shared<PositionGoal>(*model, "tool", X.translation()));
  minimal.AddEqualityConstraint(
      std::make_shared<RotationVectorGoal>(*model, "tool", X.linear()));
  int converged = 0;
  for (int attempt = 0; attempt < 5 && converged == 0; ++attempt) {
    const Eigen::VectorXd q0 =
        q_goal + 0.3 * (testing::UniformPose(*model, &rng) - q_goal);
    for (const auto& solver : NlpSolvers([](auto*) {})) {
      const Result r = solver->Solve(minimal, q0);
      INFO(solver->name() << ": " << r.message);
      converged += r.converged();
    }
  }
  CHECK(converged > 0);
}

TEST_CASE("The NLP solvers report invalid options and bad q0 as invalid input",
          "[solvers]") {
  const auto model = testing::SevenDofArm();
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                                 Eigen::Vector3d(0.3, 0, 0.6)));
  IpoptOptions ipopt;
  ipopt.tolerance = -1.0;
  const Result a = Solve(problem, model->MidLimits(), ipopt);
  CHECK(a.status == SolveStatus::kInvalidInput);
  CHECK_THAT(a.message, Contains("tolerance"));
  SlsqpOptions slsqp;
  slsqp.displacement_weight = std::nan("");
  const Result b = Solve(problem, model->MidLimits(), slsqp);
  CHECK(b.status == SolveStatus::kInvalidInput);
  CHECK_THAT(b.message, Contains("displacement_weight"));
  Eigen::VectorXd bad = model->MidLimits();
  bad[2] = std::nan("");
  CHECK(Solve(problem, bad, IpoptOptions{}).status ==
        SolveStatus::kInvalidInput);
  CHECK(Solve(problem, bad, SlsqpOptions{}).status ==
        SolveStatus::kInvalidInput);
}

TEST_CASE("IPOPT and SLSQP minimize weighted goals with only bounds, like "
          "L-BFGS-B",
          "[solvers]") {
  const auto model = testing::SevenDofArm();
  std::mt19937_64 rng(41);
  const Eigen::VectorXd q_goal = testing::UniformPose(*model, &rng);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                                 ToolPosition(*model, q_goal)));
  for (const auto& solver : NlpSolvers([](auto* o) {
         o->displacement_weight = 0.0;
       })) {
    const Result r = solver->Solve(problem, q_goal + 0.2 * Eigen::VectorXd::Ones(7));
    INFO(solver->name() << ": " << r.message);
    CHECK(r.status == SolveStatus::kConverged);
    CHECK(r.goal_errors[0].position <= 1e-6);
  }
}

}  // namespace
}  // namespace iklab
