// SolveBatch: each item is the solve it replaces, the answers do not depend on
// the thread count, and bad shapes or templates are rejected by name.
#include "solvers/batch_solve.h"

#include <memory>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

struct Batch {
  RowMatrixXd targets;
  RowMatrixXd starts;
};

// Reachable tool poses (x y z qw qx qy qz) and random starts.
Batch RandomBatch(const Model& model, int items, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Batch batch{RowMatrixXd(items, 7), RowMatrixXd(items, model.nq())};
  for (int i = 0; i < items; ++i) {
    const Eigen::Isometry3d X =
        testing::SitePoseAt(model, "tool", testing::UniformPose(model, &rng));
    const Eigen::Quaterniond q(X.linear());
    batch.targets.row(i) << X.translation().transpose(), q.w(), q.x(), q.y(), q.z();
    batch.starts.row(i) = testing::UniformPose(model, &rng).transpose();
  }
  return batch;
}

TEST_CASE("SolveBatch gives each target the answer of its own solve",
          "[solvers]") {
  auto model = testing::SevenDofArm();
  const Batch batch = RandomBatch(*model, 12, 3);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *model, "tool", Eigen::Isometry3d::Identity()));
  const LbfgsbSolver solver;
  BatchOptions options;
  options.threads = 3;
  const BatchResult result =
      SolveBatch(solver, problem, batch.targets, batch.starts, options);
  REQUIRE(result.q.rows() == 12);
  int converged = 0;
  for (int i = 0; i < 12; ++i) {
    Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
    X.translation() = batch.targets.row(i).head<3>().transpose();
    X.linear() = Eigen::Quaterniond(batch.targets(i, 3), batch.targets(i, 4),
                                    batch.targets(i, 5), batch.targets(i, 6))
                     .normalized()
                     .toRotationMatrix();
    Problem single(model);
    single.AddGoal(std::make_shared<PositionOrientationGoal>(*model, "tool", X));
    const Result r = solver.Solve(single, batch.starts.row(i).transpose());
    CHECK(result.status[i] == r.status);
    CHECK(result.iterations[i] == r.iterations);
    CHECK((result.q.row(i).transpose().array() == r.q.array()).all());
    CHECK(result.position_error[i] == r.goal_errors[0].position);
    CHECK(result.microseconds[i] > 0.0);
    converged += r.converged();
  }
  CHECK(converged > 0);
}

TEST_CASE("SolveBatch answers are the same on 1, 2 and 5 threads",
          "[solvers]") {
  auto model = testing::SevenDofArm();
  const Batch batch = RandomBatch(*model, 20, 5);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                                 Eigen::Vector3d::Zero()));
  BoundedLmOptions lm;  // seeded restarts inside, no wall-clock budget
  lm.common.time_budget_seconds = 0.0;
  lm.common.max_iterations = 300;
  const BoundedLmSolver solver(lm);
  const RowMatrixXd positions = batch.targets.leftCols<3>();
  const BatchResult one = SolveBatch(solver, problem, positions, batch.starts);
  for (int threads : {2, 5}) {
    BatchOptions options;
    options.threads = threads;
    const BatchResult many =
        SolveBatch(solver, problem, positions, batch.starts, options);
    CHECK((many.q.array() == one.q.array()).all());
    CHECK(many.status == one.status);
  }
  // The list form solves the same problems.
  std::vector<std::shared_ptr<const Problem>> problems;
  for (int i = 0; i < positions.rows(); ++i) {
    auto p = std::make_shared<Problem>(model);
    p->AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                              positions.row(i).transpose()));
    problems.push_back(p);
  }
  BatchOptions two;
  two.threads = 2;
  const BatchResult listed = SolveBatch(solver, problems, batch.starts, two);
  // The list form is scalar; the targets form is the SIMD batch solver
  // unless told otherwise (its answers are not bit-identical to scalar ones).
  BatchOptions scalar;
  scalar.simd = false;
  const BatchResult one_scalar =
      SolveBatch(solver, problem, positions, batch.starts, scalar);
  CHECK_THAT(one.method, Catch::Matchers::Contains("simd"));
  CHECK_THAT(one_scalar.method, Catch::Matchers::Contains("scalar"));
  CHECK((listed.q.array() == one_scalar.q.array()).all());
}

TEST_CASE("SolveBatch rejects bad shapes, templates and options by name",
          "[solvers]") {
  auto model = testing::SevenDofArm();
  const Batch batch = RandomBatch(*model, 4, 7);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                                 Eigen::Vector3d::Zero()));
  const LbfgsbSolver solver;
  CHECK_THROWS_WITH(SolveBatch(solver, problem, batch.targets, batch.starts),
                    Contains("the problem has no PositionOrientationGoal"));
  CHECK_THROWS_WITH(
      SolveBatch(solver, problem, batch.targets.leftCols<5>(), batch.starts),
      Contains("targets must have shape (B, 7)"));
  CHECK_THROWS_WITH(SolveBatch(solver, problem, batch.targets.leftCols<3>(),
                               batch.starts.topRows<3>()),
                    Contains("q0 must have shape (4, 7)"));
  BatchOptions options;
  options.threads = 0;
  CHECK_THROWS_WITH(SolveBatch(solver, problem, batch.targets.leftCols<3>(),
                               batch.starts, options),
                    Contains("threads must be >= 1, got 0"));
  options.threads = 1;
  options.goal = 1;
  CHECK_THROWS_WITH(SolveBatch(solver, problem, batch.targets.leftCols<3>(),
                               batch.starts, options),
                    Contains("goal 1 of the problem is not a PositionGoal"));
  RowMatrixXd bad = batch.targets;
  bad.row(2).tail<4>().setZero();
  Problem pose(model);
  pose.AddGoal(std::make_shared<PositionOrientationGoal>(
      *model, "tool", Eigen::Isometry3d::Identity()));
  CHECK_THROWS_WITH(SolveBatch(solver, pose, bad, batch.starts),
                    Contains("targets row 2 columns 3..6 (quaternion w x y z) must have a norm"));
  std::vector<std::shared_ptr<const Problem>> problems(4);
  CHECK_THROWS_WITH(SolveBatch(solver, problems, batch.starts),
                    Contains("problems[0] is null"));
}

}  // namespace
}  // namespace iklab
