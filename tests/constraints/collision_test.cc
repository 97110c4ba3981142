// Collision avoidance constraints: closed-form segment distances against a
// brute-force search, the capsule constraints' Jacobian against central
// differences on random trees, fitted capsules, and bad input.

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/collision.h"
#include "framework/kinematics.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

Eigen::Vector3d RandomTestPoint(std::mt19937* rng, double scale = 1.0) {
  return testing::RandomPoint(rng, scale);
}

// Smallest distance over a 401 × 401 grid of segment parameters.
double GridDistance(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                    const Eigen::Vector3d& q0, const Eigen::Vector3d& q1) {
  double best = 1e300;
  for (int i = 0; i <= 400; ++i) {
    const Eigen::Vector3d p = p0 + (i / 400.0) * (p1 - p0);
    for (int j = 0; j <= 400; ++j) {
      best = std::min(best, (p - (q0 + (j / 400.0) * (q1 - q0))).norm());
    }
  }
  return best;
}

TEST_CASE("Closed-form segment closest points match a brute-force search, "
          "including points, parallel and crossing segments",
          "[constraints]") {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 40; ++trial) {
    Eigen::Vector3d p0 = RandomTestPoint(&rng), p1 = RandomTestPoint(&rng);
    Eigen::Vector3d q0 = RandomTestPoint(&rng), q1 = RandomTestPoint(&rng);
    if (trial % 10 == 1) p1 = p0;                      // a point
    if (trial % 10 == 2) q1 = q0 + 0.7 * (p1 - p0);    // parallel
    if (trial % 10 == 3) q1 = q0;                      // a point
    if (trial % 10 == 4) {                             // crossing
      q0 = 0.5 * (p0 + p1) + Eigen::Vector3d(0, 0, 0.3);
      q1 = 0.5 * (p0 + p1) - Eigen::Vector3d(0, 0, 0.3);
    }
    const SegmentClosestPoints c = ClosestPoints(p0, p1, q0, q1);
    INFO("trial " << trial);
    CHECK(c.distance == Approx((c.on_first - c.on_second).norm()));
    // The grid can only be worse; it is within its resolution of the truth.
    const double grid = GridDistance(p0, p1, q0, q1);
    CHECK(c.distance <= grid + 1e-12);
    CHECK(c.distance >= grid - 0.01);
  }
}

TEST_CASE("Capsule collision constraints' Jacobian matches central "
          "differences on random trees",
          "[constraints]") {
  for (const unsigned seed : {41u, 42u, 43u, 44u}) {
    std::mt19937 rng(seed);
    testing::RandomFigureOptions options;
    options.num_joints = 6 + static_cast<int>(seed % 4);
    const Model model = testing::RandomFigure(&rng, options).Compile();
    std::vector<LinkCapsule> bodies;
    for (int l = 0; l < model.num_links(); ++l) {
      bodies.push_back(
          {model.link_name(l),
           {RandomTestPoint(&rng, 0.5), RandomTestPoint(&rng, 0.5), 0.05}});
    }
    std::vector<Capsule> obstacles = {
        Capsule::Sphere(RandomTestPoint(&rng, 2.0), 0.2),
        {RandomTestPoint(&rng, 2.0), RandomTestPoint(&rng, 2.0), 0.1}};
    CollisionOptions collision;
    collision.margin = 0.01;
    const CollisionGoal goal(model, bodies, obstacles, collision);
    REQUIRE(goal.num_constraints() > 2);
    for (int pose = 0; pose < 3; ++pose) {
      const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
      Data data(model);
      ForwardKinematics(model, q, &data);
      const int m = goal.num_constraints();
      Eigen::VectorXd c(m);
      Eigen::MatrixXd J(m, model.nq());
      Eigen::Ref<Eigen::MatrixXd> J_ref(J);
      goal.EvaluateConstraint(model, data, q, c, &J_ref);
      const Eigen::MatrixXd numeric = testing::NumericJacobian(
          [&](const Eigen::VectorXd& x) {
            Data d(model);
            ForwardKinematics(model, x, &d);
            Eigen::VectorXd out(m);
            goal.EvaluateConstraint(model, d, x, out, nullptr);
            return out;
          },
          q);
      INFO("seed " << seed << ", pose " << pose);
      CHECK(testing::RelativeError(J, numeric) <= 1e-5);
      // Clearance = −(c − margin); Error = largest violation.
      const Eigen::VectorXd clearance = goal.Clearances(model, data);
      CHECK(clearance.isApprox(-(c.array() - 0.01).matrix()));
      CHECK(goal.Error(model, data).position ==
            Approx(std::max(0.0, c.maxCoeff())));
    }
  }
}

TEST_CASE("Capsules fitted along a chain span each link to the next link's "
          "origin",
          "[constraints]") {
  Figure f("l0");
  for (int i = 1; i <= 3; ++i) {
    Joint j;
    j.name = "j" + std::to_string(i);
    j.parent = "l" + std::to_string(i - 1);
    j.child = "l" + std::to_string(i);
    j.X_PJ.translation() = Eigen::Vector3d(0.0, 0.0, 0.5);
    j.axis = Eigen::Vector3d::UnitY();
    f.AddJoint(j);
  }
  const Model model = f.Compile();
  const auto capsules = FitChainCapsules(model, {"l1", "l2", "l3"}, 0.05);
  REQUIRE(capsules.size() == 3);
  CHECK(capsules[0].capsule.b.isApprox(Eigen::Vector3d(0, 0, 0.5)));
  CHECK(capsules[2].capsule.b.isZero());
  CHECK(capsules[1].capsule.radius == 0.05);
  // A straight chain is free of self-collision; folded back, l3 meets l1.
  const CollisionGoal goal(model, capsules, {});
  REQUIRE(goal.pairs().size() == 1);  // l1–l3 (neighbours skipped)
  Data data(model);
  ForwardKinematics(model, Eigen::VectorXd::Zero(3), &data);
  CHECK(goal.Error(model, data).position == 0.0);
  Eigen::VectorXd folded(3);
  folded << 0.0, 3.0, 0.0;  // fold l2 back onto l1
  ForwardKinematics(model, folded, &data);
  CHECK(goal.Error(model, data).position > 0.0);
}

TEST_CASE("Collision constraints reject bad capsules, margins and empty "
          "pair sets with a message naming them",
          "[constraints]") {
  std::mt19937 rng(2);
  const Model model = testing::RandomFigure(&rng).Compile();
  const std::string link = model.link_name(model.num_links() - 1);
  const std::vector<Capsule> obstacle = {
      Capsule::Sphere(Eigen::Vector3d::Zero(), 0.1)};
  CHECK_THROWS_WITH(
      CollisionGoal(model, {{link, Capsule::Sphere(Eigen::Vector3d::Zero(), 0.0)}},
                    obstacle),
      Contains("capsule radius must be finite and > 0; got 0"));
  CHECK_THROWS_WITH(
      CollisionGoal(model, {{link, Capsule::Sphere(Eigen::Vector3d::Zero(), 0.1)}},
                    {Capsule::Sphere(Eigen::Vector3d::Zero(), -1.0)}),
      Contains("obstacle 0"));
  CollisionOptions negative;
  negative.margin = -0.1;
  CHECK_THROWS_WITH(
      CollisionGoal(model, {{link, Capsule::Sphere(Eigen::Vector3d::Zero(), 0.1)}},
                    obstacle, negative),
      Contains("margin must be finite and >= 0"));
  CHECK_THROWS_WITH(
      CollisionGoal(model, {{link, Capsule::Sphere(Eigen::Vector3d::Zero(), 0.1)}},
                    {}),
      Contains("nothing to check"));
  CHECK_THROWS_WITH(
      CollisionGoal(model, {{"no_such_link", Capsule::Sphere(Eigen::Vector3d::Zero(), 0.1)}},
                    obstacle),
      Contains("no_such_link"));
  CHECK_THROWS_WITH(FitChainCapsules(model, {link}, 0.0),
                    Contains("radius must be finite and > 0"));
}

}  // namespace
}  // namespace iklab
