// Trajectory mode: Parent's 21-frame sequence with any solver; path helpers.
#include "solvers/trajectory.h"

#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("LinearPath and HermitePath interpolate between their end points",
          "[solvers]") {
  const Eigen::Vector3d a(1, 2, 3), b(-5, 4, 0);
  const PointPath line = LinearPath(a, b);
  CHECK(line(0.0) == a);
  CHECK(line(1.0) == b);
  CHECK((line(0.25) - (a + 0.25 * (b - a))).norm() <= 1e-14);

  const Eigen::Vector3d ta(0, 10, 0), tb(3, 0, -1);
  const PointPath hermite = HermitePath(a, b, ta, tb);
  CHECK((hermite(0.0) - a).norm() <= 1e-14);
  CHECK((hermite(1.0) - b).norm() <= 1e-14);
  // End tangents by central differences.
  const double h = 1e-6;
  CHECK(((hermite(h) - hermite(-h)) / (2 * h) - ta).norm() <= 1e-6);
  CHECK(((hermite(1 + h) - hermite(1 - h)) / (2 * h) - tb).norm() <= 1e-6);
  // Zero tangents: on the line, eased spacing 3s² − 2s³.
  const PointPath eased = HermitePath(a, b);
  for (double s : {0.1, 0.5, 0.8}) {
    CHECK((eased(s) - line(3 * s * s - 2 * s * s * s)).norm() <= 1e-13);
  }
}

TEST_CASE("Trajectory: 21 frames on Parent's arm, each converged, effector on "
          "the straight line",
          "[solvers]") {
  auto model = testing::ParentArm();
  const Eigen::VectorXd q0 = testing::ParentStart();
  const Eigen::Vector3d start =
      testing::SitePoseAt(*model, "tip", q0).translation();
  const Eigen::Vector3d end(-20, 5, 0);
  const std::vector<std::shared_ptr<const Solver>> solvers = {
      std::make_shared<LbfgsbSolver>(), std::make_shared<CeresSolver>()};
  for (const auto& solver : solvers) {
    DYNAMIC_SECTION(solver->name()) {
      auto goal = std::make_shared<PositionGoal>(*model, "tip", start);
      Problem problem(model);
      problem.AddGoal(goal);
      const int kFrames = 21;
      const std::vector<Result> frames = SolveTrajectory(
          *solver, &problem, q0, kFrames,
          MovePositionGoal(goal, LinearPath(start, end)));
      REQUIRE(frames.size() == kFrames);
      const Eigen::Vector3d direction = (end - start).normalized();
      Eigen::VectorXd previous = q0;
      for (int k = 0; k < kFrames; ++k) {
        const Result& f = frames[k];
        INFO("frame " << k + 1 << ": " << f.message);
        CHECK(f.status == SolveStatus::kConverged);
        const Eigen::Vector3d p =
            testing::SitePoseAt(*model, "tip", f.q).translation();
        // Where frame k should be: (k + 1)/21 of the way.
        const Eigen::Vector3d expected =
            start + (k + 1.0) / kFrames * (end - start);
        CHECK((p - expected).norm() <= 1e-6);
        // Distance from the straight line through start and end.
        const Eigen::Vector3d off = (p - start) - (p - start).dot(direction) *
                                                      direction;
        CHECK(off.norm() <= 1e-6);
        // Solved from the previous pose: small joint steps (the segment is
        // ~1.6 long per frame on a 30-long arm).
        CHECK((f.q - previous).cwiseAbs().maxCoeff() <= 0.5);
        previous = f.q;
      }
      CHECK(goal->target() == end);
    }
  }
}

TEST_CASE("Trajectory with a frame callback can drive any goal; the NLP "
          "paper's M internal points are M + 1 frames",
          "[solvers]") {
  auto model = testing::ParentArm();
  const Eigen::VectorXd q0 = testing::ParentStart();
  auto goal = std::make_shared<PositionGoal>(*model, "tip",
                                             Eigen::Vector3d::Zero());
  Problem problem(model);
  problem.AddGoal(goal);
  const int M = 4;  // internal points
  const Eigen::Vector3d start =
      testing::SitePoseAt(*model, "tip", q0).translation();
  const Eigen::Vector3d end(10, 20, 0);
  std::vector<double> seen;
  const PointPath eased = HermitePath(start, end);
  const std::vector<Result> frames = SolveTrajectory(
      LbfgsbSolver(), &problem, q0, M + 1,
      [&](int frame, double s, Problem* p) {
        CHECK(p == &problem);
        CHECK(s == static_cast<double>(frame) / (M + 1));
        seen.push_back(s);
        goal->set_target(eased(s));
      });
  REQUIRE(frames.size() == M + 1);
  CHECK(seen.size() == M + 1);
  CHECK(seen.back() == 1.0);
  for (const Result& f : frames) CHECK(f.converged());
  CHECK((testing::SitePoseAt(*model, "tip", frames.back().q).translation() -
         end)
            .norm() <= 1e-6);
  CHECK_THROWS_WITH(SolveTrajectory(LbfgsbSolver(), &problem, q0, 0,
                                    [](int, double, Problem*) {}),
                    Contains("num_frames"));
  CHECK_THROWS_WITH(MovePositionGoal(nullptr, LinearPath(start, end)),
                    Contains("null"));
}

TEST_CASE("The Hermite-path solver reaches a pose goal through frames and "
          "totals their iterations",
          "[solvers][trajectory]") {
  const auto model = testing::SevenDofArm();
  std::mt19937_64 rng(3);
  DampedLeastSquaresOptions dls;
  dls.damping = 0.01;
  dls.common.max_iterations = 20;
  dls.common.respect_limits = false;
  const HermitePathSolver solver(MakeSolver(dls), 25);
  CHECK(solver.name() == "dls+path");
  int converged = 0;
  for (int k = 0; k < 10; ++k) {
    const Eigen::VectorXd q_goal = testing::UniformPose(*model, &rng);
    const Eigen::VectorXd q0 = testing::UniformPose(*model, &rng);
    Problem problem(model);
    problem.AddGoal(std::make_shared<PositionOrientationGoal>(
        *model, "tool", testing::SitePoseAt(*model, "tool", q_goal)));
    const Result result = solver.Solve(problem, q0);
    REQUIRE(result.goal_errors.size() == 1u);
    CHECK(result.iterations >= 25);  // at least one iteration per frame
    if (result.converged()) {
      ++converged;
      // The reported errors are the original goal's, at the returned pose.
      ProblemWorkspace ws(problem);
      const auto errors = problem.GoalErrors(result.q, &ws);
      CHECK(errors[0].position == result.goal_errors[0].position);
      CHECK(errors[0].position <= 1e-6);
    }
  }
  CHECK(converged >= 8);
}

TEST_CASE("The Hermite-path solver refuses goals it cannot move along a path",
          "[solvers][trajectory]") {
  const auto model = testing::SevenDofArm();
  Problem problem(model);
  problem.AddGoal(std::make_shared<OrientationGoal>(
      *model, "tool", Eigen::Matrix3d::Identity()));
  const HermitePathSolver solver(std::make_shared<LbfgsbSolver>(), 5);
  const Result result = solver.Solve(problem, model->MidLimits());
  CHECK(result.status == SolveStatus::kInvalidInput);
  CHECK_THAT(result.message, Contains("PositionGoal or a PositionOrientationGoal"));
  REQUIRE_THROWS_WITH(HermitePathSolver(nullptr, 5), Contains("inner is null"));
  REQUIRE_THROWS_WITH(HermitePathSolver(std::make_shared<LbfgsbSolver>(), 0),
                      Contains("frames must be >= 1"));
}

}  // namespace
}  // namespace iklab
