// Shape distances (closed form and FCL) against hand-computed cases for
// every pair type, FCL against the closed form on capsules, and the
// shape-collision constraints' Jacobian against central differences.

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/shape_collision.h"
#include "constraints/shape_distance.h"
#include "framework/kinematics.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

Eigen::Isometry3d At(double x, double y, double z) {
  return Eigen::Isometry3d(Eigen::Translation3d(x, y, z));
}

Eigen::Isometry3d At(const Eigen::Vector3d& p, const Eigen::Matrix3d& R) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = R;
  X.translation() = p;
  return X;
}

// The hull of the axis-aligned cube of half side h: 8 corners, 12 triangles.
std::shared_ptr<const ConvexHull> CubeHull(double h) {
  auto hull = std::make_shared<ConvexHull>();
  for (int k = 0; k < 8; ++k) {
    hull->vertices.emplace_back(k & 1 ? h : -h, k & 2 ? h : -h,
                                k & 4 ? h : -h);
  }
  // Two triangles per face, counter-clockwise from outside.
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    hull->triangles.emplace_back(f[0], f[1], f[2]);
    hull->triangles.emplace_back(f[0], f[2], f[3]);
  }
  return hull;
}

double Distance(const CollisionShape& a, const Eigen::Isometry3d& X_WA,
                const CollisionShape& b, const Eigen::Isometry3d& X_WB) {
  return ComputeShapeDistance(PreparedShape(a), X_WA, PreparedShape(b), X_WB)
      .distance;
}

TEST_CASE("Shape distances match hand-computed values for every pair type",
          "[constraints]") {
  const auto sphere = [](double r) { return CollisionShape::Sphere(r); };
  const auto capsule = [](double r, double h) {
    return CollisionShape::Capsule(r, h);
  };
  const auto cylinder = [](double r, double h) {
    return CollisionShape::Cylinder(r, h);
  };
  const auto box = [](double x, double y, double z) {
    return CollisionShape::Box(Eigen::Vector3d(x, y, z));
  };
  const CollisionShape cube_hull = CollisionShape::Convex(CubeHull(0.5));
  const Eigen::Matrix3d z_to_x =
      Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const Eigen::Matrix3d yaw45 =
      Eigen::AngleAxisd(M_PI / 4, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  constexpr double kFcl = 1e-6;  // GJK's accuracy on polytopes and cylinders

  // Closed forms (sphere and capsule pairs).
  CHECK(Distance(sphere(0.1), At(0, 0, 0), sphere(0.2), At(1, 0, 0)) ==
        Approx(0.7).margin(1e-12));
  // Sphere over the capsule's upper end: 1 − 0.5 − 0.2 − 0.1.
  CHECK(Distance(sphere(0.1), At(0, 0, 1), capsule(0.2, 0.5), At(0, 0, 0)) ==
        Approx(0.2).margin(1e-12));
  // Crossing capsules, one along z, one along x one unit away in y.
  CHECK(Distance(capsule(0.1, 0.5), At(0, 0, 0), capsule(0.15, 0.5),
                 At({0, 1, 0}, z_to_x)) == Approx(0.75).margin(1e-12));
  // Overlapping spheres: −(0.1 + 0.2 − 0.25).
  CHECK(Distance(sphere(0.1), At(0, 0, 0), sphere(0.2), At(0.25, 0, 0)) ==
        Approx(-0.05).margin(1e-12));

  // Boxes (FCL): face, edge, rotated box, overlap.
  CHECK(Distance(sphere(0.1), At(1, 0, 0), box(0.5, 0.5, 0.5), At(0, 0, 0)) ==
        Approx(0.4).margin(kFcl));
  CHECK(Distance(sphere(0.1), At(1, 1, 0), box(0.5, 0.5, 0.5), At(0, 0, 0)) ==
        Approx(std::sqrt(0.5) - 0.1).margin(kFcl));
  CHECK(Distance(box(0.5, 0.5, 0.5), At(0, 0, 0), box(0.25, 0.25, 0.25),
                 At(2, 0, 0)) == Approx(1.25).margin(kFcl));
  // B turned 45° about z: its edge at x = 2 − 0.25√2.
  CHECK(Distance(box(0.5, 0.5, 0.5), At(0, 0, 0), box(0.25, 0.25, 0.25),
                 At({2, 0, 0}, yaw45)) ==
        Approx(1.5 - 0.25 * std::sqrt(2.0)).margin(kFcl));
  CHECK(Distance(box(0.5, 0.5, 0.5), At(0, 0, 0), box(0.5, 0.5, 0.5),
                 At(0.8, 0, 0)) == Approx(-0.2).margin(1e-4));
  CHECK(Distance(capsule(0.1, 0.3), At(1, 0, 0), box(0.5, 0.5, 0.5),
                 At(0, 0, 0)) == Approx(0.4).margin(kFcl));
  CHECK(Distance(capsule(0.1, 0.3), At({0, 0, 1.5}, z_to_x),
                 box(0.5, 0.5, 0.5), At(0, 0, 0)) == Approx(0.9).margin(kFcl));

  // Cylinders (FCL): flat end, side, rim, side by side, against a box.
  CHECK(Distance(cylinder(0.2, 0.5), At(0, 0, 0), sphere(0.1), At(0, 0, 1)) ==
        Approx(0.4).margin(kFcl));
  CHECK(Distance(cylinder(0.2, 0.5), At(0, 0, 0), sphere(0.1), At(1, 0, 0)) ==
        Approx(0.7).margin(kFcl));
  CHECK(Distance(cylinder(0.2, 0.5), At(0, 0, 0), sphere(0.1), At(1, 0, 1)) ==
        Approx(std::sqrt(0.64 + 0.25) - 0.1).margin(kFcl));
  CHECK(Distance(cylinder(0.2, 0.5), At(0, 0, 0), cylinder(0.2, 0.5),
                 At(1, 0, 0)) == Approx(0.6).margin(kFcl));
  CHECK(Distance(cylinder(0.2, 0.5), At(1.5, 0, 0), box(0.5, 0.5, 0.5),
                 At(0, 0, 0)) == Approx(0.8).margin(kFcl));
  CHECK(Distance(cylinder(0.2, 0.5), At(1.5, 0, 0), capsule(0.1, 0.5),
                 At(0, 0, 0)) == Approx(1.2).margin(kFcl));

  // Convex hulls (FCL): the cube's hull behaves as the box.
  CHECK(Distance(cube_hull, At(0, 0, 0), sphere(0.1), At(1, 0, 0)) ==
        Approx(0.4).margin(kFcl));
  CHECK(Distance(cube_hull, At(0, 0, 0), box(0.25, 0.25, 0.25), At(2, 0, 0)) ==
        Approx(1.25).margin(kFcl));
  CHECK(Distance(cube_hull, At(0, 0, 0), cube_hull, At({0, 3, 0}, yaw45)) ==
        Approx(2.5 - 0.5 * std::sqrt(2.0)).margin(kFcl));
  CHECK(Distance(cube_hull, At(0, 0, 0), cylinder(0.2, 0.5), At(0, 0, 2)) ==
        Approx(1.0).margin(kFcl));
  CHECK(Distance(cube_hull, At(0, 0, 0), capsule(0.1, 0.2), At(0, -1, 0)) ==
        Approx(0.4).margin(kFcl));
}

TEST_CASE("The distance normal is the derivative of the distance along A's "
          "translation, apart for every pair type and overlapping for the "
          "closed form",
          "[constraints]") {
  const std::vector<CollisionShape> shapes = {
      CollisionShape::Sphere(0.2), CollisionShape::Capsule(0.1, 0.3),
      CollisionShape::Cylinder(0.15, 0.25),
      CollisionShape::Box(Eigen::Vector3d(0.2, 0.3, 0.25)),
      CollisionShape::Convex(CubeHull(0.2))};
  std::mt19937 rng(5);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (std::size_t j = 0; j < shapes.size(); ++j) {
      const PreparedShape a(shapes[i]), b(shapes[j]);
      for (const double gap : {0.8, 0.25}) {  // apart, overlapping
        // Overlapping, only the closed form's normal is checked: libccd's
        // EPA depth (FCL pairs) is too noisy at deep overlap for central
        // differences (shape_distance.h).
        const bool closed_form = PreparedShape(shapes[i]).round() &&
                                 PreparedShape(shapes[j]).round();
        if (gap < 0.5 && !closed_form) continue;
        const Eigen::Matrix3d R_A =
            Eigen::AngleAxisd(1.0, testing::RandomUnitVector(&rng))
                .toRotationMatrix();
        const Eigen::Matrix3d R_B =
            Eigen::AngleAxisd(2.0, testing::RandomUnitVector(&rng))
                .toRotationMatrix();
        const Eigen::Isometry3d X_WA = At(Eigen::Vector3d::Zero(), R_A);
        const Eigen::Isometry3d X_WB =
            At(gap * testing::RandomUnitVector(&rng), R_B);
        const ShapeDistance d = ComputeShapeDistance(a, X_WA, b, X_WB);
        INFO(ShapeTypeName(shapes[i].type)
             << " / " << ShapeTypeName(shapes[j].type) << ", gap " << gap
             << ", d = " << d.distance);
        REQUIRE_FALSE(d.degenerate);
        const double h = 1e-5;
        for (int axis = 0; axis < 3; ++axis) {
          Eigen::Isometry3d plus = X_WA, minus = X_WA;
          plus.translation()[axis] += h;
          minus.translation()[axis] -= h;
          const double numeric =
              (ComputeShapeDistance(a, plus, b, X_WB).distance -
               ComputeShapeDistance(a, minus, b, X_WB).distance) /
              (2 * h);
          // EPA's penetration depth is accurate to ~1e-6 per query.
          CHECK(d.normal[axis] == Approx(numeric).margin(d.distance > 0 ? 1e-4
                                                                      : 2e-2));
        }
      }
    }
  }
}

TEST_CASE("FCL and the closed form agree on capsule and sphere pairs",
          "[constraints]") {
  std::mt19937 rng(17);
  int apart = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const CollisionShape a = trial % 4 == 0
                                 ? CollisionShape::Sphere(0.1)
                                 : CollisionShape::Capsule(0.1, 0.3);
    const CollisionShape b = CollisionShape::Capsule(0.05, 0.2);
    const PreparedShape pa(a), pb(b);
    const Eigen::Isometry3d X_WA =
        At(testing::RandomPoint(&rng, 0.5),
           Eigen::AngleAxisd(3.0, testing::RandomUnitVector(&rng))
               .toRotationMatrix());
    const Eigen::Isometry3d X_WB =
        At(testing::RandomPoint(&rng, 0.5),
           Eigen::AngleAxisd(3.0, testing::RandomUnitVector(&rng))
               .toRotationMatrix());
    const ShapeDistance closed = ComputeShapeDistance(pa, X_WA, pb, X_WB);
    const ShapeDistance fcl = ComputeShapeDistanceFcl(pa, X_WA, pb, X_WB);
    REQUIRE(closed.closed_form);
    REQUIRE_FALSE(fcl.closed_form);
    INFO("trial " << trial << ": closed " << closed.distance << ", FCL "
                  << fcl.distance);
    if (closed.distance > 1e-3) {
      ++apart;
      CHECK(fcl.distance == Approx(closed.distance).margin(1e-6));
      CHECK((fcl.on_first - closed.on_first).norm() < 1e-4);
      CHECK((fcl.on_second - closed.on_second).norm() < 1e-4);
      CHECK(fcl.normal.dot(closed.normal) > 1 - 1e-6);
    } else if (closed.distance < -1e-3) {
      // Overlapping: libccd's EPA depth on curved shapes is approximate
      // (that is why sphere/capsule pairs use the closed form); the sign
      // agrees.
      CHECK(fcl.distance < 0.0);
    }
  }
  CHECK(apart > 100);
}

// A tree with one shape of every type per link, and obstacles of every type.
struct ShapeScene {
  Model model;
  std::vector<LinkShape> bodies;
  std::vector<WorldShape> obstacles;
  std::vector<std::pair<std::string, std::string>> self_pairs;
};

ShapeScene RandomShapeScene(unsigned seed) {
  std::mt19937 rng(seed);
  testing::RandomFigureOptions options;
  options.num_joints = 6;
  ShapeScene scene{testing::RandomFigure(&rng, options).Compile(), {}, {}, {}};
  const std::vector<CollisionShape> kinds = {
      CollisionShape::Sphere(0.05), CollisionShape::Capsule(0.04, 0.1),
      CollisionShape::Cylinder(0.05, 0.1),
      CollisionShape::Box(Eigen::Vector3d(0.04, 0.06, 0.08)),
      CollisionShape::Convex(CubeHull(0.05))};
  for (int l = 0; l < scene.model.num_links(); ++l) {
    LinkShape s;
    s.link = scene.model.link_name(l);
    s.name = s.link + "/shape";
    s.X_LG = At(testing::RandomPoint(&rng, 0.3),
                Eigen::AngleAxisd(1.0, testing::RandomUnitVector(&rng))
                    .toRotationMatrix());
    s.shape = kinds[l % kinds.size()];
    scene.bodies.push_back(s);
  }
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    scene.obstacles.push_back({"obstacle" + std::to_string(k),
                               At(testing::RandomPoint(&rng, 1.5),
                                  Eigen::AngleAxisd(
                                      0.5, testing::RandomUnitVector(&rng))
                                      .toRotationMatrix()),
                               kinds[k]});
  }
  for (int a = 0; a < scene.model.num_links(); ++a) {
    for (int b = a + 2; b < scene.model.num_links(); ++b) {
      scene.self_pairs.emplace_back(scene.model.link_name(a),
                                    scene.model.link_name(b));
    }
  }
  return scene;
}

TEST_CASE("Shape collision constraints' Jacobian matches central differences "
          "on random trees with every shape type",
          "[constraints]") {
  int rows_checked = 0;
  for (const unsigned seed : {61u, 62u, 63u}) {
    ShapeScene scene = RandomShapeScene(seed);
    const Model& model = scene.model;
    const ShapeCollisionGoal goal(model, scene.bodies, scene.obstacles,
                                  scene.self_pairs, 0.01);
    REQUIRE(goal.num_constraints() > 10);
    std::mt19937 rng(seed);
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
          q, 1e-5);
      // Rows of separated pairs (penetration depths come from EPA, whose
      // accuracy is too coarse for central differences; the normal test
      // above covers their direction).
      for (int k = 0; k < m; ++k) {
        if (0.01 - c[k] < 1e-3) continue;
        INFO("seed " << seed << ", pose " << pose << ", pair "
                     << goal.PairName(k) << ", d = " << 0.01 - c[k]);
        CHECK(testing::RelativeError(J.row(k), numeric.row(k)) <= 1e-4);
        ++rows_checked;
      }
      CHECK(goal.Distances(model, data)
                .isApprox((0.01 - c.array()).matrix()));
      CHECK(goal.Error(model, data).position ==
            Approx(std::max(0.0, c.maxCoeff())));
    }
  }
  CHECK(rows_checked > 100);
}

TEST_CASE("Shape collision constraints refuse bad shapes and empty pair sets",
          "[constraints]") {
  ShapeScene scene = RandomShapeScene(71);
  std::vector<LinkShape> bad = scene.bodies;
  bad[1].shape.radius = -1.0;
  bad[1].shape.type = ShapeType::kSphere;
  CHECK_THROWS_WITH(
      ShapeCollisionGoal(scene.model, bad, scene.obstacles, scene.self_pairs),
      Contains(bad[1].name) && Contains("radius must be finite and > 0"));
  std::vector<WorldShape> obstacles = scene.obstacles;
  obstacles[0].shape =
      CollisionShape::Box(Eigen::Vector3d(0.1, std::nan(""), 0.1));
  CHECK_THROWS_WITH(
      ShapeCollisionGoal(scene.model, scene.bodies, obstacles, {}),
      Contains("obstacle0") && Contains("half extents"));
  CHECK_THROWS_WITH(ShapeCollisionGoal(scene.model, scene.bodies, {}, {}),
                    Contains("nothing to check"));
  CHECK_THROWS_WITH(
      ShapeCollisionGoal(scene.model, scene.bodies, scene.obstacles,
                         scene.self_pairs, -0.1),
      Contains("margin"));
}

}  // namespace
}  // namespace iklab
