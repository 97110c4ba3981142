// Planar two-link analytic IK (Parent §5.3.1): both elbow solutions checked
// by forward kinematics, the reach boundary, closest configurations for
// unreachable targets, and the Solver on Problems (shape validation, limits,
// repeatability).
#include "solvers/analytic/two_link_analytic.h"

#include <cmath>
#include <memory>
#include <random>

#include <catch2/catch.hpp>

#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/figure.h"
#include "framework/internal/constants.h"
#include "framework/kinematics.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using internal::kPi;

// The tip by summing the two link vectors, written independently of
// TwoLinkTip so that the test does not check the code against itself.
Eigen::Vector2d Tip(double l1, double l2, double t1, double t2) {
  const Eigen::Rotation2Dd r1(t1), r12(t1 + t2);
  return r1 * Eigen::Vector2d(l1, 0) + r12 * Eigen::Vector2d(l2, 0);
}

Eigen::Vector3d TwoLinkTipAt(const Model& model, const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePosition(model, data, model.SiteIndex("effector"));
}

TEST_CASE("Two-link: both elbow solutions reach random targets in the "
          "annulus",
          "[solvers]") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> length(0.2, 3.0), unit(0.0, 1.0);
  for (int trial = 0; trial < 2000; ++trial) {
    const double l1 = length(rng), l2 = length(rng);
    const double inner = std::abs(l1 - l2), outer = l1 + l2;
    const double d = inner + (outer - inner) * unit(rng);
    const double heading = 2.0 * kPi * unit(rng);
    const Eigen::Vector2d target = d * Eigen::Vector2d(std::cos(heading),
                                                       std::sin(heading));
    const TwoLinkSolutions s = SolveTwoLinkPlanar(l1, l2, target);
    REQUIRE(s.reachable);
    CHECK(s.num_solutions == 2);
    CHECK(s.solutions[0][1] >= 0.0);
    CHECK(s.solutions[1][1] <= 0.0);
    for (const Eigen::Vector2d& a : s.solutions) {
      CHECK((Tip(l1, l2, a[0], a[1]) - target).norm() <= 1e-12 * outer);
      CHECK((TwoLinkTip(l1, l2, a) - target).norm() <= 1e-12 * outer);
      CHECK(std::abs(a[0]) <= kPi);
    }
    // The two elbows are mirror images in the line base → target.
    const Eigen::Vector2d dir = target.normalized();
    const Eigen::Vector2d e0 = Tip(l1, 0.0, s.solutions[0][0], 0.0);
    const Eigen::Vector2d e1 = Tip(l1, 0.0, s.solutions[1][0], 0.0);
    const Eigen::Vector2d mirrored = 2.0 * dir.dot(e0) * dir - e0;
    CHECK((mirrored - e1).norm() <= 1e-9 * outer);
  }
}

TEST_CASE("Two-link: reach boundary cases give one solution", "[solvers]") {
  SECTION("stretched, d = L1 + L2") {
    const Eigen::Vector2d target = 7.0 * Eigen::Vector2d(0.6, 0.8);
    const TwoLinkSolutions s = SolveTwoLinkPlanar(4.0, 3.0, target);
    REQUIRE(s.reachable);
    CHECK(s.num_solutions == 1);
    CHECK(s.solutions[0][1] == Approx(0.0).margin(1e-7));
    CHECK(s.solutions[0][0] == Approx(std::atan2(0.8, 0.6)).margin(1e-7));
    CHECK((Tip(4, 3, s.solutions[0][0], s.solutions[0][1]) - target).norm() <
          1e-9);
  }
  SECTION("folded, d = L1 − L2") {
    const Eigen::Vector2d target(0.0, -1.0);
    const TwoLinkSolutions s = SolveTwoLinkPlanar(4.0, 3.0, target);
    REQUIRE(s.reachable);
    CHECK(s.num_solutions == 1);
    CHECK(std::abs(s.solutions[0][1]) == Approx(kPi).margin(1e-7));
    CHECK((Tip(4, 3, s.solutions[0][0], s.solutions[0][1]) - target).norm() <
          1e-9);
  }
  SECTION("equal links reach the base") {
    const TwoLinkSolutions s =
        SolveTwoLinkPlanar(2.0, 2.0, Eigen::Vector2d::Zero());
    REQUIRE(s.reachable);
    CHECK(Tip(2, 2, s.solutions[0][0], s.solutions[0][1]).norm() < 1e-12);
  }
  SECTION("rounding just outside the boundary still counts as reachable") {
    const Eigen::Vector2d target(7.0 * (1.0 + 1e-15), 0.0);
    CHECK(SolveTwoLinkPlanar(4.0, 3.0, target).reachable);
    CHECK_FALSE(
        SolveTwoLinkPlanar(4.0, 3.0, Eigen::Vector2d(7.0 + 1e-9, 0.0))
            .reachable);
  }
}

TEST_CASE("Two-link: unreachable targets give the closest configuration",
          "[solvers]") {
  SECTION("too far: stretched toward the target") {
    const Eigen::Vector2d target(-6.0, 8.0);  // d = 10 > 7
    const TwoLinkSolutions s = SolveTwoLinkPlanar(4.0, 3.0, target);
    CHECK_FALSE(s.reachable);
    CHECK(s.num_solutions == 0);
    CHECK(s.residual == Approx(3.0));
    const Eigen::Vector2d tip = Tip(4, 3, s.closest[0], s.closest[1]);
    CHECK((tip - 0.7 * target).norm() < 1e-12);
  }
  SECTION("too close, longer first link: folded, tip toward the target") {
    const Eigen::Vector2d target(0.3, 0.4);  // d = 0.5 < 1
    const TwoLinkSolutions s = SolveTwoLinkPlanar(4.0, 3.0, target);
    CHECK_FALSE(s.reachable);
    CHECK(s.residual == Approx(0.5));
    const Eigen::Vector2d tip = Tip(4, 3, s.closest[0], s.closest[1]);
    CHECK((tip - 2.0 * target).norm() < 1e-12);
  }
  SECTION("too close, longer second link") {
    const Eigen::Vector2d target(0.0, 0.5);
    const TwoLinkSolutions s = SolveTwoLinkPlanar(1.0, 3.0, target);
    CHECK_FALSE(s.reachable);
    const Eigen::Vector2d tip = Tip(1, 3, s.closest[0], s.closest[1]);
    CHECK((tip - Eigen::Vector2d(0.0, 2.0)).norm() < 1e-12);
  }
}

TEST_CASE("Two-link: bad arguments throw with the argument's name",
          "[solvers]") {
  REQUIRE_THROWS_WITH(SolveTwoLinkPlanar(0.0, 1.0, Eigen::Vector2d(1, 0)),
                      Contains("l1"));
  REQUIRE_THROWS_WITH(SolveTwoLinkPlanar(1.0, -1.0, Eigen::Vector2d(1, 0)),
                      Contains("l2"));
  REQUIRE_THROWS_WITH(
      SolveTwoLinkPlanar(1.0, 1.0, Eigen::Vector2d(NAN, 0)),
      Contains("target"));
}

std::shared_ptr<const Model> TwoLinkModel(const Eigen::Vector2d& base) {
  return std::make_shared<const Model>(PlanarChain({15, 10}, base).Compile());
}

Problem TwoLinkPositionProblem(const std::shared_ptr<const Model>& model,
                               const Eigen::Vector3d& target) {
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "effector", target));
  return problem;
}

TEST_CASE("Two-link solver reaches targets on a planar chain and is "
          "independent of the start",
          "[solvers]") {
  auto model = TwoLinkModel(Eigen::Vector2d(1.0, -2.0));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Vector2d q_true(angle(rng), angle(rng));
    const Eigen::Vector3d target = TwoLinkTipAt(*model, q_true);
    const Problem problem = TwoLinkPositionProblem(model, target);
    const Result a = Solve(problem, Eigen::Vector2d(0.1, 0.2), TwoLinkOptions{});
    const Result b = Solve(problem, Eigen::Vector2d(-2.0, 3.0), TwoLinkOptions{});
    REQUIRE(a.status == SolveStatus::kConverged);
    CHECK((TwoLinkTipAt(*model, a.q) - target).norm() < 1e-9);
    CHECK(a.q == b.q);
    CHECK(a.iterations == 0);
    CHECK(a.solver == "two-link");
  }
}

TEST_CASE("Two-link solver: elbow preference picks the sign of the relative "
          "angle",
          "[solvers]") {
  auto model = TwoLinkModel(Eigen::Vector2d::Zero());
  const Problem problem =
      TwoLinkPositionProblem(model, Eigen::Vector3d(12, 9, 0));
  TwoLinkOptions options;
  options.elbow = TwoLinkElbow::kPositive;
  const Result positive = Solve(problem, Eigen::Vector2d::Zero(), options);
  options.elbow = TwoLinkElbow::kNegative;
  const Result negative = Solve(problem, Eigen::Vector2d::Zero(), options);
  REQUIRE(positive.converged());
  REQUIRE(negative.converged());
  CHECK(positive.q[1] > 0.0);
  CHECK(negative.q[1] < 0.0);
  options.elbow = TwoLinkElbow::kClosestToStart;
  const Result near_negative =
      Solve(problem, Eigen::Vector2d(1.0, -1.0), options);
  CHECK(near_negative.q[1] < 0.0);
  const Result near_positive =
      Solve(problem, Eigen::Vector2d(0.0, 1.0), options);
  CHECK(near_positive.q[1] > 0.0);
}

TEST_CASE("Two-link solver: out of reach returns the stretched arm with "
          "kUnreachable",
          "[solvers]") {
  auto model = TwoLinkModel(Eigen::Vector2d(0.0, 0.0));
  const Problem problem =
      TwoLinkPositionProblem(model, Eigen::Vector3d(-30, 40, 0));
  const Result r = Solve(problem, Eigen::Vector2d::Zero(), TwoLinkOptions{});
  CHECK(r.status == SolveStatus::kUnreachable);
  CHECK((TwoLinkTipAt(*model, r.q) - Eigen::Vector3d(-15, 20, 0)).norm() <
        1e-9);
  CHECK(r.goal_errors.at(0).position == Approx(25.0));

  // Off the plane: the in-plane projection is reached, status unreachable.
  const Problem lifted =
      TwoLinkPositionProblem(model, Eigen::Vector3d(12, 9, 2));
  const Result l = Solve(lifted, Eigen::Vector2d::Zero(), TwoLinkOptions{});
  CHECK(l.status == SolveStatus::kUnreachable);
  CHECK((TwoLinkTipAt(*model, l.q) - Eigen::Vector3d(12, 9, 0)).norm() < 1e-9);
}

TEST_CASE("Two-link solver: joint limits select the admissible elbow or "
          "report limits-infeasible",
          "[solvers]") {
  auto model = TwoLinkModel(Eigen::Vector2d::Zero());
  Problem problem = TwoLinkPositionProblem(model, Eigen::Vector3d(12, 9, 0));
  // Forbid a positive elbow: the negative solution is returned.
  problem.mutable_bounds()->Set(1, -kPi, 0.0);
  const Result r = Solve(problem, Eigen::Vector2d::Zero(), TwoLinkOptions{});
  REQUIRE(r.status == SolveStatus::kConverged);
  CHECK(r.q[1] < 0.0);
  // Forbid any bent elbow: no analytic pose within the bounds.
  problem.mutable_bounds()->Set(1, -0.1, 0.1);
  const Result infeasible =
      Solve(problem, Eigen::Vector2d::Zero(), TwoLinkOptions{});
  CHECK(infeasible.status == SolveStatus::kLimitsInfeasible);
  CHECK(problem.bounds().Contains(infeasible.q));
  // Without limits the bounds are ignored.
  TwoLinkOptions off;
  off.common.respect_limits = false;
  CHECK(Solve(problem, Eigen::Vector2d::Zero(), off).converged());
}

TEST_CASE("Two-link solver works with parallel axes in any plane, also "
          "antiparallel",
          "[solvers]") {
  // Joint axes along +x and −x; the arm moves in a y–z plane offset in x.
  Figure f("base");
  Joint j0;
  j0.name = "a";
  j0.parent = "base";
  j0.child = "l0";
  j0.axis = Eigen::Vector3d::UnitX();
  j0.X_PJ.translation() = Eigen::Vector3d(0.5, 0.2, 0.1);
  f.AddJoint(j0);
  Joint j1 = j0;
  j1.name = "b";
  j1.parent = "l0";
  j1.child = "l1";
  j1.axis = -Eigen::Vector3d::UnitX();
  j1.X_PJ = Eigen::Isometry3d::Identity();
  j1.X_PJ.translation() = Eigen::Vector3d(0.3, 2.0, 1.0);
  f.AddJoint(j1);
  Site tip{"effector", "l1", Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(-0.2, 0.0, 1.5);
  f.AddSite(tip);
  auto model = std::make_shared<const Model>(f.Compile());
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  for (int trial = 0; trial < 100; ++trial) {
    const Eigen::Vector2d q_true(angle(rng), angle(rng));
    const Problem problem =
        TwoLinkPositionProblem(model, TwoLinkTipAt(*model, q_true));
    const Result r = Solve(problem, Eigen::Vector2d::Zero(), TwoLinkOptions{});
    REQUIRE(r.converged());
    CHECK((TwoLinkTipAt(*model, r.q) - TwoLinkTipAt(*model, q_true)).norm() <
          1e-9);
  }
}

TEST_CASE("Two-link solver rejects problems of another shape", "[solvers]") {
  auto model = TwoLinkModel(Eigen::Vector2d::Zero());
  SECTION("three links") {
    auto arm = std::make_shared<const Model>(ParentArm().Compile());
    const Problem problem =
        TwoLinkPositionProblem(arm, Eigen::Vector3d(1, 1, 0));
    const Result r = Solve(problem, Eigen::Vector3d::Zero(), TwoLinkOptions{});
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("2 coordinates"));
  }
  SECTION("two goals") {
    Problem problem = TwoLinkPositionProblem(model, Eigen::Vector3d(1, 1, 0));
    problem.AddGoal(
        std::make_shared<PositionGoal>(*model, "joint1", Eigen::Vector3d(1, 0, 0)));
    const Result r = Solve(problem, Eigen::Vector2d::Zero(), TwoLinkOptions{});
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("exactly one goal"));
  }
  SECTION("an orientation goal") {
    Problem problem(model);
    problem.AddGoal(std::make_shared<OrientationGoal>(
        *model, "effector", Eigen::Matrix3d::Identity()));
    const Result r = Solve(problem, Eigen::Vector2d::Zero(), TwoLinkOptions{});
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("PositionGoal"));
  }
  SECTION("a site the second joint does not move") {
    Problem on_elbow(model);
    on_elbow.AddGoal(std::make_shared<PositionGoal>(*model, "joint0",
                                                    Eigen::Vector3d(1, 1, 0)));
    const Result r = Solve(on_elbow, Eigen::Vector2d::Zero(), TwoLinkOptions{});
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("below"));
  }
  SECTION("bad q0 and options") {
    const Problem problem =
        TwoLinkPositionProblem(model, Eigen::Vector3d(1, 1, 0));
    CHECK(Solve(problem, Eigen::Vector3d::Zero(), TwoLinkOptions{}).status ==
          SolveStatus::kInvalidInput);
    TwoLinkOptions bad;
    bad.reach_tolerance = -1.0;
    const Result r = Solve(problem, Eigen::Vector2d::Zero(), bad);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("reach_tolerance"));
  }
}

}  // namespace
}  // namespace iklab
