// Hand-placed capsules in ShapeCollisionGoal: closed-form segment distances
// against a brute-force search, capsule distances equal to the segment
// formula d − r₁ − r₂ and the Jacobian against central differences on random
// trees, fitted capsules, self pairs by tree distance, and bad input.

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/shape_collision.h"
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

TEST_CASE("Capsule collision constraints give the segment distance minus "
          "the radii and a Jacobian matching central differences on random "
          "trees",
          "[constraints]") {
  for (const unsigned seed : {41u, 42u, 43u, 44u}) {
    std::mt19937 rng(seed);
    testing::RandomFigureOptions options;
    options.num_joints = 6 + static_cast<int>(seed % 4);
    const Model model = testing::RandomFigure(&rng, options).Compile();
    std::vector<LinkShape> bodies;
    std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> segments;
    for (int l = 0; l < model.num_links(); ++l) {
      const Eigen::Vector3d a = RandomTestPoint(&rng, 0.5);
      const Eigen::Vector3d b = RandomTestPoint(&rng, 0.5);
      bodies.push_back(CapsuleOnLink(model.link_name(l), a, b, 0.05));
      segments.emplace_back(a, b);
    }
    const Eigen::Vector3d center = RandomTestPoint(&rng, 2.0);
    const Eigen::Vector3d o0 = RandomTestPoint(&rng, 2.0);
    const Eigen::Vector3d o1 = RandomTestPoint(&rng, 2.0);
    const std::vector<WorldShape> obstacles = {
        SphereObstacle("ball", center, 0.2), CapsuleObstacle("pole", o0, o1, 0.1)};
    const std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> obstacle_segments =
        {{center, center}, {o0, o1}};
    const std::vector<double> obstacle_radii = {0.2, 0.1};
    const ShapeCollisionGoal goal(model, bodies, obstacles,
                                  LinkPairsApart(model, bodies, 1), 0.01);
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
      // Each distance is the segments' distance (brute force over a grid, so
      // within its resolution) minus the radii; c = margin − d.
      const Eigen::VectorXd d = goal.Distances(model, data);
      CHECK(d.isApprox(-(c.array() - 0.01).matrix()));
      for (int k = 0; k < m; ++k) {
        const ShapeCollisionGoal::Pair& pair = goal.pairs()[k];
        const auto world = [&](int body) {
          const Eigen::Isometry3d& X =
              data.X_W(model.link_step(model.LinkIndex(bodies[body].link)));
          return std::make_pair(Eigen::Vector3d(X * segments[body].first),
                                Eigen::Vector3d(X * segments[body].second));
        };
        const auto [p0, p1] = world(pair.first);
        const auto [q0, q1] = pair.obstacle ? obstacle_segments[pair.second]
                                            : world(pair.second);
        const double r2 =
            pair.obstacle ? obstacle_radii[pair.second] : 0.05;
        const double segment_length = std::max((p1 - p0).norm(), (q1 - q0).norm());
        CHECK(d[k] == Approx(GridDistance(p0, p1, q0, q1) - 0.05 - r2)
                          .margin(segment_length / 400.0 + 1e-12));
        CHECK(d[k] <= GridDistance(p0, p1, q0, q1) - 0.05 - r2 + 1e-12);
      }
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
  // l1's capsule: from its origin to l2's, 0.5 along z.
  CHECK(capsules[0].shape.type == ShapeType::kCapsule);
  CHECK(capsules[0].shape.half_length == Approx(0.25));
  CHECK((capsules[0].X_LG * Eigen::Vector3d(0, 0, 0.25))
            .isApprox(Eigen::Vector3d(0, 0, 0.5)));
  CHECK(capsules[2].shape.type == ShapeType::kSphere);
  CHECK(capsules[2].X_LG.translation().isZero());
  CHECK(capsules[1].shape.radius == 0.05);
  // A straight chain is free of self-collision; folded back, l3 meets l1.
  const auto self_pairs = LinkPairsApart(model, capsules, 1);
  REQUIRE(self_pairs.size() == 1);  // l1–l3 (neighbours skipped)
  CHECK(self_pairs[0] == std::make_pair(std::string("l1"), std::string("l3")));
  CHECK(LinkPairsApart(model, capsules, 1, {{"l3", "l1"}}).empty());
  CHECK(LinkPairsApart(model, capsules, 0).size() == 3);
  const ShapeCollisionGoal goal(model, capsules, {}, self_pairs);
  REQUIRE(goal.pairs().size() == 1);
  Data data(model);
  ForwardKinematics(model, Eigen::VectorXd::Zero(3), &data);
  CHECK(goal.Error(model, data).position == 0.0);
  Eigen::VectorXd folded(3);
  folded << 0.0, 3.0, 0.0;  // fold l2 back onto l1
  ForwardKinematics(model, folded, &data);
  CHECK(goal.Error(model, data).position > 0.0);
}

TEST_CASE("Hand-placed capsules reject bad ends, radii and tree distances "
          "with a message naming them",
          "[constraints]") {
  std::mt19937 rng(2);
  const Model model = testing::RandomFigure(&rng).Compile();
  const std::string link = model.link_name(model.num_links() - 1);
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  CHECK_THROWS_WITH(CapsuleOnLink(link, zero, zero, 0.0),
                    Contains("capsule radius must be finite and > 0; got 0"));
  CHECK_THROWS_WITH(CapsuleOnLink(link, zero, Eigen::Vector3d::Constant(NAN), 0.1),
                    Contains("capsule ends must be finite"));
  CHECK_THROWS_WITH(SphereObstacle("ball", zero, -1.0), Contains("obstacle 'ball'"));
  CHECK_THROWS_WITH(
      ShapeCollisionGoal(model, {CapsuleOnLink(link, zero, zero, 0.1)},
                         {SphereObstacle("ball", zero, 0.1)}, {}, -0.1),
      Contains("margin must be finite and >= 0"));
  CHECK_THROWS_WITH(
      ShapeCollisionGoal(model, {CapsuleOnLink(link, zero, zero, 0.1)}, {}, {}),
      Contains("nothing to check"));
  CHECK_THROWS_WITH(
      ShapeCollisionGoal(model, {CapsuleOnLink("no_such_link", zero, zero, 0.1)},
                         {SphereObstacle("ball", zero, 0.1)}, {}),
      Contains("no_such_link"));
  CHECK_THROWS_WITH(FitChainCapsules(model, {link}, 0.0),
                    Contains("radius must be finite and > 0"));
  CHECK_THROWS_WITH(LinkPairsApart(model, {}, -1),
                    Contains("skip_neighbors must be >= 0"));
}

}  // namespace
}  // namespace iklab
