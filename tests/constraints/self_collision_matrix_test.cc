// The self-collision matrix on a model whose answer is known by
// construction, its determinism and JSON round trip, the Panda's matrix
// (the ready pose clear, the always-colliding upper arm/forearm pair
// disabled), and the obstacle file's checks.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/self_collision_matrix.h"
#include "constraints/shape_collision.h"
#include "framework/figure.h"
#include "framework/kinematics.h"
#include "framework/random_configuration.h"
#include "framework/urdf_loader.h"
#include "lab/collision_files.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

LinkShape Ball(const std::string& link, double x, double y, double z,
               double r) {
  LinkShape s;
  s.link = link;
  s.name = link + "/ball";
  s.X_LG.translation() = Eigen::Vector3d(x, y, z);
  s.shape = CollisionShape::Sphere(r);
  return s;
}

// base -j1 (z, [-1, 1])-> l1 -j2 (slide x, [0, 0.05])-> l2 -j3 (z)-> l3
// -j4 (z, [-pi, pi])-> l4, all joints at the parent's origin. Shapes:
//   base: r 0.2 at the origin and r 0.2 at (0.7, 0, 0);
//   l1: r 0.05 at (0, 0, 3) (far above everything);
//   l2: r 0.1 at (0.25, 0, 0): 0.25 + q2 − 0.3 < 0 from the base's first
//       ball for every q2 in [0, 0.05] (always), clear at q2 = 1;
//   l3: r 0.05 at (0, 0, −5) (far below everything);
//   l4: r 0.1 at (0.6, 0, 0): swings on a circle of radius 0.6 about l2's
//       origin, through the base's second ball near angle 0 (sometimes),
//       never within 0.35 of l2's ball nor 0.3 of the base's first.
struct KnownModel {
  Model model;
  std::vector<LinkShape> shapes;
};

KnownModel MakeKnownModel() {
  Figure figure("base");
  Joint j1 = testing::Revolute("j1", "base", "l1");
  j1.WithLimits(-1.0, 1.0);
  Joint j2;
  j2.name = "j2";
  j2.kind = JointKind::kPrismatic;
  j2.parent = "l1";
  j2.child = "l2";
  j2.axis = Eigen::Vector3d::UnitX();
  j2.WithLimits(0.0, 0.05);
  Joint j3 = testing::Revolute("j3", "l2", "l3");
  j3.WithLimits(-1.0, 1.0);
  Joint j4 = testing::Revolute("j4", "l3", "l4");
  j4.WithLimits(-M_PI, M_PI);
  for (const Joint& j : {j1, j2, j3, j4}) figure.AddJoint(j);
  return {figure.Compile(),
          {Ball("base", 0, 0, 0, 0.2), Ball("base", 0.7, 0, 0, 0.2),
           Ball("l1", 0, 0, 3, 0.05), Ball("l2", 0.25, 0, 0, 0.1),
           Ball("l3", 0, 0, -5, 0.05), Ball("l4", 0.6, 0, 0, 0.1)}};
}

TEST_CASE("The self-collision matrix finds adjacent, always, never and "
          "enabled pairs on a model built to have them",
          "[constraints]") {
  const KnownModel known = MakeKnownModel();
  SelfCollisionMatrixOptions options;
  options.samples = 2000;
  options.default_configuration = Eigen::Vector4d(0.0, 1.0, 0.0, 0.0);
  const SelfCollisionMatrix matrix =
      ComputeSelfCollisionMatrix(known.model, known.shapes, options);
  REQUIRE(matrix.pairs.size() == 10);  // 5 links with shapes
  const auto reason = [&](const char* a, const char* b) {
    const LinkPairEntry* e = matrix.Find(a, b);
    REQUIRE(e != nullptr);
    return e->reason;
  };
  using R = CollisionPairReason;
  CHECK(reason("base", "l1") == R::kAdjacent);
  CHECK(reason("l1", "l2") == R::kAdjacent);
  CHECK(reason("l2", "l3") == R::kAdjacent);
  CHECK(reason("l3", "l4") == R::kAdjacent);
  CHECK(reason("base", "l2") == R::kAlways);
  CHECK(matrix.Find("base", "l2")->collisions == 2000);
  CHECK(reason("base", "l4") == R::kEnabled);
  CHECK(matrix.Find("l4", "base")->collisions > 0);
  CHECK(matrix.Find("l4", "base")->collisions < 2000);
  for (const auto& [a, b] : {std::pair<const char*, const char*>{"base", "l3"},
                             {"l1", "l3"}, {"l1", "l4"}, {"l2", "l4"},
                             {"base", "l3"}}) {
    INFO(a << " / " << b);
    CHECK(reason(a, b) == R::kNever);
  }
  CHECK(matrix.EnabledPairs() ==
        std::vector<std::pair<std::string, std::string>>{{"base", "l4"}});

  // With the default configuration at q = 0 the always-colliding pair is
  // caught first as a default collision (MoveIt's order).
  options.default_configuration.resize(0);
  const SelfCollisionMatrix at_zero =
      ComputeSelfCollisionMatrix(known.model, known.shapes, options);
  CHECK(at_zero.Find("base", "l2")->reason == R::kDefault);
}

TEST_CASE("The self-collision matrix is a function of its seed and survives "
          "a JSON round trip",
          "[constraints]") {
  const KnownModel known = MakeKnownModel();
  SelfCollisionMatrixOptions options;
  options.samples = 500;
  options.seed = 7;
  options.default_configuration = Eigen::Vector4d(0.0, 1.0, 0.0, 0.0);
  const SelfCollisionMatrix a =
      ComputeSelfCollisionMatrix(known.model, known.shapes, options);
  const SelfCollisionMatrix b =
      ComputeSelfCollisionMatrix(known.model, known.shapes, options);
  options.seed = 8;
  const SelfCollisionMatrix c =
      ComputeSelfCollisionMatrix(known.model, known.shapes, options);
  CHECK(SelfCollisionMatrixToJson(a) == SelfCollisionMatrixToJson(b));
  CHECK(a.Find("base", "l4")->collisions !=
        c.Find("base", "l4")->collisions);

  const std::string path =
      testing::ScratchPath("self_collision_matrix.json").string();
  WriteSelfCollisionMatrix(a, path);
  const SelfCollisionMatrix back = ReadSelfCollisionMatrix(path);
  CHECK(SelfCollisionMatrixToJson(back) == SelfCollisionMatrixToJson(a));
  CHECK(back.seed == 7);
  CHECK(back.EnabledPairs() == a.EnabledPairs());
  CheckSelfCollisionMatrix(back, known.model, known.shapes, path);

  SelfCollisionMatrix missing = a;
  missing.pairs.pop_back();
  CHECK_THROWS_WITH(
      CheckSelfCollisionMatrix(missing, known.model, known.shapes, path),
      Contains(path) && Contains("no entry for links"));
  CHECK_THROWS_WITH(SelfCollisionMatrixFromJson("{\"format\": \"other\"}",
                                                "m.json"),
                    Contains("m.json") && Contains("not a self-collision"));
  std::string bad = SelfCollisionMatrixToJson(a);
  bad.replace(bad.find("\"never\""), 7, "\"nevr\"");
  CHECK_THROWS_WITH(SelfCollisionMatrixFromJson(bad, "m.json"),
                    Contains("m.json: pair") && Contains("'nevr'"));
}

TEST_CASE("The Panda's computed matrix disables the always-colliding upper "
          "arm/forearm pair and leaves the ready pose collision-free",
          "[constraints]") {
  const std::string path = testing::ShippedDataFile("robots/panda.urdf");
  const Model model =
      LoadUrdfChain(path, "panda_link0", "panda_hand").figure.Compile();
  const std::vector<LinkShape> shapes = LoadUrdfCollision(path, model);
  SelfCollisionMatrixOptions options;
  options.samples = 1000;
  const SelfCollisionMatrix matrix =
      ComputeSelfCollisionMatrix(model, shapes, options);
  // Link 2 ends 0.0825 m from where link 4 starts (the elbow offset a4),
  // less than their radii 0.06 + 0.06: in contact in every pose.
  const LinkPairEntry* elbow = matrix.Find("panda_link2", "panda_link4");
  REQUIRE(elbow != nullptr);
  CHECK(elbow->reason != CollisionPairReason::kEnabled);
  CHECK(elbow->reason != CollisionPairReason::kNever);
  const auto enabled = matrix.EnabledPairs();
  REQUIRE(enabled.size() >= 3);
  const ShapeCollisionGoal goal(model, shapes, {}, enabled);
  Data data(model);
  // Franka's "ready" pose (franka_ros) and the zero pose within limits.
  Eigen::VectorXd ready(7);
  ready << 0, -M_PI / 4, 0, -3 * M_PI / 4, 0, M_PI / 2, M_PI / 4;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(7)
                                   .cwiseMax(model.lower())
                                   .cwiseMin(model.upper());
  for (const Eigen::VectorXd& q : {ready, zero}) {
    ForwardKinematics(model, q, &data);
    CHECK(goal.Distances(model, data).minCoeff() > 0.0);
  }
  // Random poses within the limits do collide in enabled pairs.
  std::mt19937_64 rng(11);
  int colliding = 0;
  for (int k = 0; k < 200; ++k) {
    ForwardKinematics(model, RandomConfiguration(model, &rng), &data);
    if (goal.Distances(model, data).minCoeff() < 0.0) ++colliding;
  }
  CHECK(colliding > 0);
  CHECK(colliding < 200);
}

TEST_CASE("Obstacle files are read with frames and every fault is named",
          "[lab]") {
  const std::vector<WorldShape> obstacles = ParseObstacles(R"([
    {"name": "table", "type": "box", "half_extents": [0.4, 0.6, 0.02],
     "position": [0.6, 0, 0.2], "quaternion": [0.7071067811865476, 0, 0, 0.7071067811865476]},
    {"type": "sphere", "radius": 0.1, "position": [0.4, 0.3, 0.5]},
    {"type": "capsule", "radius": 0.05, "half_length": 0.2, "position": [0, 0, 1]},
    {"type": "cylinder", "radius": 0.05, "half_length": 0.3, "position": [1, 0, 0]}])",
                                                           "o.json");
  REQUIRE(obstacles.size() == 4);
  CHECK(obstacles[0].name == "table");
  CHECK(obstacles[0].shape.half_extents.isApprox(
      Eigen::Vector3d(0.4, 0.6, 0.02)));
  CHECK(obstacles[0].X_WG.linear().col(0).isApprox(Eigen::Vector3d::UnitY()));
  CHECK(obstacles[1].name == "obstacle1");
  CHECK(obstacles[2].shape.type == ShapeType::kCapsule);
  CHECK(obstacles[3].X_WG.translation().isApprox(Eigen::Vector3d(1, 0, 0)));

  const auto fails = [](const std::string& element) {
    return [element] { ParseObstacles("[" + element + "]", "o.json"); };
  };
  CHECK_THROWS_WITH(
      fails(R"({"name": "ball", "type": "sphere", "radius": NaN, "position": [0, 0, 0]})")(),
      Contains("o.json") && Contains("not valid JSON"));
  CHECK_THROWS_WITH(
      fails(R"({"name": "ball", "type": "sphere", "radius": 1e999, "position": [0, 0, 0]})")(),
      Contains("o.json") && (Contains("element 0 ('ball'): \"radius\" must be a finite number") ||
                             Contains("not valid JSON")));
  CHECK_THROWS_WITH(
      fails(R"({"type": "sphere", "radius": -0.1, "position": [0, 0, 0]})")(),
      Contains("element 0") && Contains("\"radius\" must be > 0"));
  CHECK_THROWS_WITH(
      fails(R"({"type": "cone", "radius": 0.1, "position": [0, 0, 0]})")(),
      Contains("unknown \"type\" 'cone'") && Contains("sphere, capsule"));
  CHECK_THROWS_WITH(
      fails(R"({"type": "box", "half_extents": [0.1, -0.1, 0.1], "position": [0, 0, 0]})")(),
      Contains("\"half_extents\" must all be > 0"));
  CHECK_THROWS_WITH(
      fails(R"({"type": "sphere", "radius": 0.1, "positon": [0, 0, 0]})")(),
      Contains("unknown key \"positon\""));
  CHECK_THROWS_WITH(
      fails(R"({"type": "sphere", "radius": 0.1, "position": [0, 0, 0], "quaternion": [1, 1, 0, 0]})")(),
      Contains("\"quaternion\" (w, x, y, z) must have unit length"));
  CHECK_THROWS_WITH(
      fails(R"({"type": "mesh", "file": "nowhere.stl", "position": [0, 0, 0]})")(),
      Contains("o.json: element 0") && Contains("nowhere.stl does not exist"));
  CHECK_THROWS_WITH(ParseObstacles("{}", "o.json"),
                    Contains("expected a JSON list"));
  CHECK(ParseCollisionSetting("self,o.json").self);
  CHECK(ParseCollisionSetting("o.json,self").obstacle_file == "o.json");
  CHECK_FALSE(ParseCollisionSetting("o.json").self);
  CHECK_THROWS_WITH(ParseCollisionSetting("self,selfie"),
                    Contains("'selfie' is neither 'self' nor an obstacle"));
}

}  // namespace
}  // namespace iklab
