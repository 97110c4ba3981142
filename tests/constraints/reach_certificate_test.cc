// The out-of-reach certificate (constraints/reach_certificate.h): a target
// farther from the chain's fixed base than the chain reaches, with the
// numbers in words; none within reach, within the tolerance, or from a
// chain with a floating base.
#include "constraints/reach_certificate.h"

#include <limits>
#include <memory>

#include <catch2/catch.hpp>

#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/figure.h"

namespace iklab {
namespace {

using Catch::Contains;

// Planar links 1.5, 1, 0.5 from a first joint at (2, 1, 0): reach 3.
std::shared_ptr<const Model> PlanarArm() {
  return std::make_shared<const Model>(
      PlanarChain({1.5, 1.0, 0.5}, Eigen::Vector2d(2.0, 1.0)).Compile());
}

std::optional<std::string> Certificate(const Problem& problem,
                                       double tolerance = 1e-6) {
  return OutOfReachCertificate(problem, problem.bounds().lower,
                               problem.bounds().upper, tolerance);
}

TEST_CASE("A position target beyond the chain's reach has a certificate "
          "with its numbers",
          "[constraints]") {
  const auto model = PlanarArm();
  Problem problem(model);
  // 3.5 from the first joint.
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "effector", Eigen::Vector3d(2.0, 4.5, 0.0)));
  const std::optional<std::string> evidence = Certificate(problem);
  REQUIRE(evidence.has_value());
  CHECK(*evidence ==
        "goal 'position(effector)': target 3.5 from the chain's fixed base "
        "at (2, 1, 0), which reaches at most 3");
}

TEST_CASE("No certificate within reach, nor within the tolerance of it",
          "[constraints]") {
  const auto model = PlanarArm();
  for (const double distance : {0.2, 2.0, 3.0, 3.0 + 0.5e-6}) {
    Problem problem(model);
    problem.AddGoal(std::make_shared<PositionGoal>(
        *model, "effector", Eigen::Vector3d(2.0 + distance, 1.0, 0.0)));
    CHECK_FALSE(Certificate(problem).has_value());
  }
  Problem beyond(model);
  beyond.AddGoal(std::make_shared<PositionGoal>(
      *model, "effector", Eigen::Vector3d(2.0 + 3.0 + 2e-6, 1.0, 0.0)));
  CHECK(Certificate(beyond).has_value());
  CHECK_FALSE(Certificate(beyond, 1e-5).has_value());
}

TEST_CASE("A pose goal's position part and an equality constraint give "
          "certificates; other goal kinds are not examined",
          "[constraints]") {
  const auto model = PlanarArm();
  Eigen::Isometry3d far = Eigen::Isometry3d::Identity();
  far.translation() = Eigen::Vector3d(-2.0, 1.0, 0.0);  // 4 from the base
  Problem pose(model);
  pose.AddGoal(std::make_shared<OrientationGoal>(*model, "effector",
                                                 Eigen::Matrix3d::Identity()));
  pose.AddGoal(
      std::make_shared<PositionOrientationGoal>(*model, "effector", far));
  REQUIRE(Certificate(pose).has_value());
  CHECK_THAT(*Certificate(pose), Contains("target 4 from"));

  Problem hard(model);
  hard.AddEqualityConstraint(std::make_shared<PositionGoal>(
      *model, "effector", far.translation()));
  REQUIRE(Certificate(hard).has_value());
  CHECK_THAT(*Certificate(hard), Contains("equality constraint"));

  Problem orientation(model);
  orientation.AddGoal(std::make_shared<OrientationGoal>(
      *model, "effector", Eigen::Matrix3d::Identity()));
  CHECK_FALSE(Certificate(orientation).has_value());
}

TEST_CASE("A prismatic joint's travel counts within the box given",
          "[constraints]") {
  Figure f("base");
  Joint slide;
  slide.name = "slide";
  slide.parent = "base";
  slide.child = "carriage";
  slide.kind = JointKind::kPrismatic;
  slide.axis = Eigen::Vector3d::UnitX();
  slide.WithLimits(0.0, 1.0);
  f.AddJoint(slide);
  Joint turn;
  turn.name = "turn";
  turn.parent = "carriage";
  turn.child = "arm";
  f.AddJoint(turn);
  Site tip{"tip", "arm", Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(0.5, 0, 0);
  f.AddSite(tip);
  const auto model = std::make_shared<const Model>(f.Compile());
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tip",
                                                 Eigen::Vector3d(0, 2, 0)));
  // Travel 1 + tip 0.5 < 2.
  REQUIRE(Certificate(problem).has_value());
  CHECK_THAT(*Certificate(problem), Contains("which reaches at most 1.5"));
  // Limits off: the rail is unbounded, so no certificate.
  const double inf = std::numeric_limits<double>::infinity();
  const Eigen::VectorXd lower = Eigen::Vector2d::Constant(-inf);
  const Eigen::VectorXd upper = Eigen::Vector2d::Constant(inf);
  CHECK_FALSE(
      OutOfReachCertificate(problem, lower, upper, 1e-6).has_value());
}

TEST_CASE("A floating base gives no certificate, however far the target",
          "[constraints]") {
  const auto model = std::make_shared<const Model>(HumanFigure().Compile());
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "left_hand", Eigen::Vector3d(1e6, 0, 0)));
  CHECK_FALSE(Certificate(problem).has_value());
}

}  // namespace
}  // namespace iklab
