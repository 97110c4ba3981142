// Ceres adapter specifics: the cost function's analytic row-major Jacobian,
// no allocation in Evaluate, methods and linear solvers, names.
#include "solvers/optimization/ceres_solver.h"

#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <ceres/cost_function.h>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "solvers/optimization/internal/ceres_cost_function.h"
#include "tests/allocation_counter.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

Problem SevenDofPoseProblem(std::shared_ptr<const Model> model) {
  Problem problem(model);
  Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
  target.translation() = Eigen::Vector3d(0.3, 0.2, 0.6);
  problem.AddGoal(
      std::make_shared<PositionOrientationGoal>(*model, "tool", target));
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "tool", Eigen::Vector3d(0.25, 0.2, 0.6), 2.0));
  return problem;
}

TEST_CASE("Ceres cost function returns the stacked residuals and their "
          "Jacobian in row-major order",
          "[solvers]") {
  auto model = testing::SevenDofArm();
  const Problem problem = SevenDofPoseProblem(model);
  ProblemWorkspace workspace(problem);
  auto cost = internal::MakeCeresCostFunction(problem, &workspace);
  const int m = problem.num_residuals();
  const int n = problem.nq();
  REQUIRE(cost->num_residuals() == m);
  REQUIRE(cost->parameter_block_sizes() == std::vector<int32_t>{n});

  std::mt19937_64 rng(3);
  const Eigen::VectorXd q = testing::UniformPose(*model, &rng);
  std::vector<double> residuals(m), jacobian(m * n);
  const double* parameters[] = {q.data()};
  double* jacobians[] = {jacobian.data()};
  REQUIRE(cost->Evaluate(parameters, residuals.data(), jacobians));

  ProblemWorkspace reference_ws(problem);
  Eigen::VectorXd r(m);
  Eigen::MatrixXd J(m, n);
  Eigen::Ref<Eigen::MatrixXd> J_ref(J);
  problem.EvaluateResiduals(q, &reference_ws, r, &J_ref);
  for (int i = 0; i < m; ++i) {
    CHECK(residuals[i] == r[i]);
    for (int j = 0; j < n; ++j) CHECK(jacobian[i * n + j] == J(i, j));
  }
  // Residuals only (Ceres passes no jacobians for cost-only evaluations).
  std::vector<double> residuals2(m);
  REQUIRE(cost->Evaluate(parameters, residuals2.data(), nullptr));
  CHECK(residuals2 == residuals);
  // A NaN parameter is a failed evaluation, not an exception.
  Eigen::VectorXd bad = q;
  bad[3] = std::numeric_limits<double>::quiet_NaN();
  const double* bad_parameters[] = {bad.data()};
  CHECK_FALSE(cost->Evaluate(bad_parameters, residuals2.data(), jacobians));
}

TEST_CASE("Ceres cost function Evaluate allocates nothing", "[solvers]") {
  if (!testing::AllocationCounter::enabled()) return;  // sanitizer build
  auto model = testing::SevenDofArm();
  const Problem problem = SevenDofPoseProblem(model);
  ProblemWorkspace workspace(problem);
  auto cost = internal::MakeCeresCostFunction(problem, &workspace);
  const int m = problem.num_residuals();
  const int n = problem.nq();
  std::vector<double> residuals(m), jacobian(m * n);
  std::mt19937_64 rng(5);
  const Eigen::VectorXd q1 = testing::UniformPose(*model, &rng);
  const Eigen::VectorXd q2 = testing::UniformPose(*model, &rng);
  double* jacobians[] = {jacobian.data()};
  const double* p1[] = {q1.data()};
  const double* p2[] = {q2.data()};
  REQUIRE(cost->Evaluate(p1, residuals.data(), jacobians));  // warm-up
  bool ok = true;
  {
    testing::AllocationCounter counter;
    for (int k = 0; k < 20; ++k) {
      ok = ok && cost->Evaluate(k % 2 ? p1 : p2, residuals.data(),
                                k % 3 ? jacobians : nullptr);
    }
    CHECK(counter.count() == 0);
  }
  CHECK(ok);
}

TEST_CASE("Ceres LM and dogleg with QR or normal-equation Cholesky reach a "
          "7-DOF pose goal",
          "[solvers]") {
  auto model = testing::SevenDofArm();
  std::mt19937_64 rng(11);
  const Eigen::VectorXd q_goal = testing::UniformPose(*model, &rng);
  Problem problem(model);
  const Eigen::Isometry3d target =
      testing::SitePoseAt(*model, "tool", q_goal);
  problem.AddGoal(
      std::make_shared<PositionOrientationGoal>(*model, "tool", target));
  // Start near the goal pose so that no restart is needed.
  const Eigen::VectorXd q0 = q_goal + Eigen::VectorXd::Constant(7, 0.1);
  for (auto method : {CeresOptions::Method::kLevenbergMarquardt,
                      CeresOptions::Method::kDogleg}) {
    for (auto linear : {CeresOptions::LinearSolver::kDenseQr,
                        CeresOptions::LinearSolver::kDenseNormalCholesky}) {
      CeresOptions options;
      options.method = method;
      options.linear_solver = linear;
      const CeresSolver solver(options);
      const Result r = solver.Solve(problem, q0);
      INFO(solver.name() << ": " << r.message);
      CHECK(r.status == SolveStatus::kConverged);
      const Eigen::Isometry3d reached = testing::SitePoseAt(*model, "tool", r.q);
      CHECK((reached.translation() - target.translation()).norm() <= 1e-6);
      CHECK(Eigen::AngleAxisd(reached.linear().transpose() * target.linear())
                .angle() <= 1e-6);
      CHECK(r.jacobian_evaluations >= 1);
      CHECK(r.function_evaluations >= r.jacobian_evaluations);
    }
  }
  CHECK(CeresSolver().name() == "ceres-lm");
  CeresOptions dogleg;
  dogleg.method = CeresOptions::Method::kDogleg;
  CHECK(CeresSolver(dogleg).name() == "ceres-dogleg");
}

TEST_CASE("CeresOptions::IsValid names the bad field", "[solvers]") {
  std::string why;
  CHECK(CeresOptions().IsValid(&why));
  CeresOptions o;
  o.gradient_tolerance = std::numeric_limits<double>::infinity();
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("gradient_tolerance"));
  o = CeresOptions();
  o.initial_trust_region_radius = 0.0;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("initial_trust_region_radius"));
  o = CeresOptions();
  o.common.angle_tolerance = 0.0;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("angle_tolerance"));
}

}  // namespace
}  // namespace iklab
