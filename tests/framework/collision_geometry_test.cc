// Collision geometry from model files: URDF <collision> elements (spheres,
// boxes, cylinders, meshes as MuJoCo's hull), MJCF geoms, the shipped
// robots' URDF and MJCF capsules describing the same solid, and bad input
// (missing, empty and package:// meshes, colliding ellipsoids).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/shape_distance.h"
#include "framework/collision_geometry.h"
#include "framework/kinematics.h"
#include "framework/mjcf_loader.h"
#include "framework/random_configuration.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// A binary STL of the box [0, sx] × [0, sy] × [0, sz] (12 triangles).
void WriteBoxStl(const std::string& path, const Eigen::Vector3d& s) {
  std::vector<Eigen::Vector3f> corners;
  for (int k = 0; k < 8; ++k) {
    corners.emplace_back(k & 1 ? s.x() : 0, k & 2 ? s.y() : 0,
                         k & 4 ? s.z() : 0);
  }
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  std::ofstream out(path, std::ios::binary);
  const char header[80] = "iklab test box";
  out.write(header, 80);
  const std::uint32_t count = 12;
  out.write(reinterpret_cast<const char*>(&count), 4);
  for (const auto& f : faces) {
    for (const auto& t : {std::array<int, 3>{f[0], f[1], f[2]},
                          std::array<int, 3>{f[0], f[2], f[3]}}) {
      const Eigen::Vector3f n =
          (corners[t[1]] - corners[t[0]])
              .cross(corners[t[2]] - corners[t[0]])
              .normalized();
      out.write(reinterpret_cast<const char*>(n.data()), 12);
      for (const int v : t) {
        out.write(reinterpret_cast<const char*>(corners[v].data()), 12);
      }
      const std::uint16_t attribute = 0;
      out.write(reinterpret_cast<const char*>(&attribute), 2);
    }
  }
}

std::string TwoLinkUrdf(const std::string& collisions) {
  return R"(<robot name="two">
  <link name="base"/>
  <link name="arm">)" + collisions + R"(</link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)";
}

TEST_CASE("URDF collision elements become exact shapes, meshes their hull",
          "[framework]") {
  const std::filesystem::path folder =
      testing::ScratchPath("collision_geometry_urdf");
  std::filesystem::create_directories(folder);
  WriteBoxStl((folder / "block.stl").string(), {0.2, 0.1, 0.4});
  const std::string urdf = TwoLinkUrdf(R"(
    <collision><origin xyz="0 0 0.5"/><geometry><sphere radius="0.1"/></geometry></collision>
    <collision name="plate"><origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/>
      <geometry><box size="0.2 0.4 0.6"/></geometry></collision>
    <collision><geometry><cylinder radius="0.05" length="0.3"/></geometry></collision>
    <collision><origin xyz="0 1 0"/><geometry><mesh filename="block.stl" scale="2 1 1"/></geometry></collision>)");
  const Model model = LoadUrdfFromString(urdf, "two.urdf").figure.Compile();
  const std::vector<LinkShape> shapes =
      LoadUrdfCollisionFromString(urdf, model, "two.urdf", folder.string());
  REQUIRE(shapes.size() == 4);
  for (const LinkShape& s : shapes) CHECK(s.link == "arm");
  CHECK(shapes[0].shape.type == ShapeType::kSphere);
  CHECK(shapes[0].shape.radius == 0.1);
  CHECK(shapes[0].X_LG.translation().isApprox(Eigen::Vector3d(0, 0, 0.5)));
  CHECK(shapes[0].name == "arm/collision0");
  CHECK(shapes[1].name == "plate");
  CHECK(shapes[1].shape.type == ShapeType::kBox);
  CHECK(shapes[1].shape.half_extents.isApprox(Eigen::Vector3d(0.1, 0.2, 0.3)));
  CHECK(shapes[1].X_LG.linear().col(0).isApprox(Eigen::Vector3d::UnitY()));
  CHECK(shapes[2].shape.type == ShapeType::kCylinder);
  CHECK(shapes[2].shape.half_length == Approx(0.15));
  REQUIRE(shapes[3].shape.type == ShapeType::kConvex);
  // The hull of the scaled block: its 8 corners, in the file's frame.
  const ConvexHull& hull = *shapes[3].shape.hull;
  REQUIRE(hull.vertices.size() == 8);
  Eigen::Vector3d lo = hull.vertices[0], hi = hull.vertices[0];
  for (const Eigen::Vector3d& v : hull.vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  CHECK(lo.isZero(1e-6));
  CHECK(hi.isApprox(Eigen::Vector3d(0.4, 0.1, 0.4), 1e-6));
  // The hull as a shape: distance from a sphere over its top face.
  const PreparedShape block(shapes[3].shape), ball(CollisionShape::Sphere(0.1));
  CHECK(ComputeShapeDistance(block, Eigen::Isometry3d::Identity(), ball,
                             Eigen::Isometry3d(Eigen::Translation3d(
                                 0.2, 0.05, 1.0)))
            .distance == Approx(0.5).margin(1e-6));
}

TEST_CASE("A URDF OBJ mesh becomes its hull at the hand-computed distance, "
          "and a missing or empty OBJ names the file",
          "[framework]") {
  const std::filesystem::path folder =
      testing::ScratchPath("collision_geometry_obj");
  std::filesystem::create_directories(folder);
  // The tetrahedron with corners 0, a e_x, a e_y, a e_z (a = 0.3), one face
  // per line, counter-clockwise seen from outside.
  std::ofstream((folder / "corner.obj").string())
      << "# tetrahedron\nv 0 0 0\nv 0.3 0 0\nv 0 0.3 0\nv 0 0 0.3\n"
         "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  std::ofstream((folder / "empty.obj").string()).close();
  const auto load = [&](const std::string& file) {
    const std::string urdf = TwoLinkUrdf(
        R"(<collision><origin xyz="0 1 0"/><geometry><mesh filename=")" +
        file + R"("/></geometry></collision>)");
    const Model model = LoadUrdfFromString(urdf, "obj.urdf").figure.Compile();
    return LoadUrdfCollisionFromString(urdf, model, "obj.urdf",
                                       folder.string());
  };
  const std::vector<LinkShape> shapes = load("corner.obj");
  REQUIRE(shapes.size() == 1);
  REQUIRE(shapes[0].shape.type == ShapeType::kConvex);
  // MuJoCo's hull of a tetrahedron is the tetrahedron: its 4 corners (in
  // the link frame, wherever MuJoCo put the hull's own frame).
  const ConvexHull& hull = *shapes[0].shape.hull;
  REQUIRE(hull.vertices.size() == 4);
  for (const Eigen::Vector3d& v : hull.vertices) {
    const Eigen::Vector3d p = shapes[0].X_LG * v - Eigen::Vector3d(0, 1, 0);
    CHECK((p.isZero(1e-6) || p.isApprox(Eigen::Vector3d(0.3, 0, 0), 1e-6) ||
           p.isApprox(Eigen::Vector3d(0, 0.3, 0), 1e-6) ||
           p.isApprox(Eigen::Vector3d(0, 0, 0.3), 1e-6)));
  }
  // A sphere of radius 0.1 centred at t (1, 1, 1) + (0, 1, 0): its nearest
  // face is x + y + z = 0.3 (nearest point (0.1, 0.1, 0.1), the face's
  // centroid), so d = (3t − 0.3)/√3 − 0.1.
  const PreparedShape tetrahedron(shapes[0].shape);
  const PreparedShape ball(CollisionShape::Sphere(0.1));
  for (const double t : {0.2, 0.3, 0.5}) {
    INFO("t = " << t);
    const double expected = (3.0 * t - 0.3) / std::sqrt(3.0) - 0.1;
    CHECK(ComputeShapeDistance(
              tetrahedron, shapes[0].X_LG, ball,
              Eigen::Isometry3d(Eigen::Translation3d(t, 1.0 + t, t)))
              .distance == Approx(expected).margin(1e-6));
  }
  // Beside the corner a e_x, the nearest point is that corner.
  CHECK(ComputeShapeDistance(
            tetrahedron, shapes[0].X_LG, ball,
            Eigen::Isometry3d(Eigen::Translation3d(0.8, 1.0, 0.0)))
            .distance == Approx(0.5 - 0.1).margin(1e-6));

  CHECK_THROWS_WITH(load("gone.obj"),
                    Contains("obj.urdf") &&
                        Contains("link 'arm' <collision> 0") &&
                        Contains("gone.obj does not exist"));
  CHECK_THROWS_WITH(load("empty.obj"),
                    Contains("obj.urdf") &&
                        Contains("link 'arm' <collision> 0") &&
                        Contains("empty.obj is empty"));
}

TEST_CASE("Bad collision input names the file, the element and what to fix",
          "[framework]") {
  const std::filesystem::path folder =
      testing::ScratchPath("collision_geometry_bad");
  std::filesystem::create_directories(folder);
  std::ofstream((folder / "empty.stl").string()).close();
  const auto load = [&](const std::string& collision) {
    const std::string urdf = TwoLinkUrdf(collision);
    const Model model = LoadUrdfFromString(urdf, "bad.urdf").figure.Compile();
    return LoadUrdfCollisionFromString(urdf, model, "bad.urdf",
                                       folder.string());
  };
  CHECK_THROWS_WITH(
      load(R"(<collision><geometry><mesh filename="gone.stl"/></geometry></collision>)"),
      Contains("bad.urdf") && Contains("link 'arm' <collision> 0") &&
          Contains("gone.stl does not exist"));
  CHECK_THROWS_WITH(
      load(R"(<collision><geometry><mesh filename="empty.stl"/></geometry></collision>)"),
      Contains("link 'arm' <collision> 0") && Contains("empty.stl is empty"));
  CHECK_THROWS_WITH(
      load(R"(<collision><geometry><mesh filename="package://arm/m.stl"/></geometry></collision>)"),
      Contains("package://") && Contains("relative to the URDF's folder"));
  CHECK_THROWS_WITH(
      load(R"(<collision><geometry><mesh filename="arm.dae"/></geometry></collision>)"),
      Contains("arm.dae") && Contains("only STL and OBJ"));
  CHECK_THROWS_WITH(
      load(R"(<collision><geometry><sphere radius="-0.1"/></geometry></collision>)"),
      Contains("<collision> 0") && Contains("radius must be finite and > 0"));

  const std::string mjcf = R"(<mujoco><worldbody><body name="b">
    <joint name="j" type="hinge"/><geom name="egg" type="ellipsoid" size="0.1 0.2 0.3"/>
    </body></worldbody></mujoco>)";
  const MjcfFigure figure = LoadMjcfFromString(mjcf, "egg.xml");
  CHECK_THROWS_WITH(MjcfCollisionShapes(figure, figure.figure.Compile()),
                    Contains("egg.xml") && Contains("geom 'egg'") &&
                        Contains("ellipsoid"));
}

TEST_CASE("MJCF geoms become shapes: visual and world geoms are left out, "
          "meshes become MuJoCo's hull",
          "[framework]") {
  const std::filesystem::path folder =
      testing::ScratchPath("collision_geometry_mjcf");
  std::filesystem::create_directories(folder);
  WriteBoxStl((folder / "block.stl").string(), {0.2, 0.2, 0.2});
  const std::string path = (folder / "arm.xml").string();
  std::ofstream(path) << R"(<mujoco><asset><mesh name="block" file="block.stl"/></asset>
  <worldbody><geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="b" pos="0 0 0.1"><joint name="j" type="hinge"/>
      <geom name="ball" type="sphere" size="0.05" pos="0 0 0.2"/>
      <geom name="rod" type="capsule" size="0.02" fromto="0 0 0 0.3 0 0"/>
      <geom name="can" type="cylinder" size="0.03 0.1"/>
      <geom name="brick" type="box" size="0.1 0.2 0.3"/>
      <geom name="rock" type="mesh" mesh="block"/>
      <geom name="look" type="sphere" size="0.3" contype="0" conaffinity="0"/>
    </body></worldbody></mujoco>)";
  const MjcfFigure figure = LoadMjcf(path);
  const Model model = figure.figure.Compile();
  const std::vector<LinkShape> shapes = MjcfCollisionShapes(figure, model);
  REQUIRE(shapes.size() == 5);
  CHECK(shapes[0].name == "ball");
  CHECK(shapes[0].shape.type == ShapeType::kSphere);
  CHECK(shapes[1].shape.type == ShapeType::kCapsule);
  CHECK(shapes[1].shape.half_length == Approx(0.15));
  // fromto: the capsule's z axis along x, centred at 0.15.
  CHECK(shapes[1].X_LG.translation().isApprox(Eigen::Vector3d(0.15, 0, 0)));
  CHECK(std::abs(shapes[1].X_LG.linear().col(2).x()) == Approx(1.0));
  CHECK(shapes[2].shape.type == ShapeType::kCylinder);
  CHECK(shapes[3].shape.half_extents.isApprox(Eigen::Vector3d(0.1, 0.2, 0.3)));
  REQUIRE(shapes[4].shape.type == ShapeType::kConvex);
  // The hull's corners in the body frame are the mesh file's corners.
  for (const Eigen::Vector3d& v : shapes[4].shape.hull->vertices) {
    const Eigen::Vector3d p = shapes[4].X_LG * v;
    for (int k = 0; k < 3; ++k) {
      CHECK((std::abs(p[k]) < 1e-6 || std::abs(p[k] - 0.2) < 1e-6));
    }
  }
}

// Smallest signed distance between two links' shapes.
double LinkDistance(const std::vector<LinkShape>& shapes, const Model& model,
                    const Data& data, const std::string& a,
                    const std::string& b) {
  double best = 1e300;
  for (const LinkShape& s : shapes) {
    if (s.link != a) continue;
    for (const LinkShape& t : shapes) {
      if (t.link != b) continue;
      best = std::min(
          best, ComputeShapeDistance(
                    PreparedShape(s.shape),
                    data.X_W(model.link_step(model.LinkIndex(a))) * s.X_LG,
                    PreparedShape(t.shape),
                    data.X_W(model.link_step(model.LinkIndex(b))) * t.X_LG)
                    .distance);
    }
  }
  return best;
}

TEST_CASE("The shipped robots' URDF capsules (cylinder and end spheres) and "
          "MJCF capsule geoms are the same solids",
          "[framework]") {
  struct Robot {
    const char* urdf;
    const char* mjcf;
    const char* base;
    const char* tip;
  };
  for (const Robot& r :
       {Robot{"robots/panda.urdf", "robots/panda.xml", "panda_link0",
              "panda_hand"},
        Robot{"robots/ur5.urdf", "robots/ur5.xml", "base_link", "ee_link"},
        Robot{"robots/iiwa14.urdf", "robots/iiwa14.xml", "iiwa_link_0",
              "iiwa_link_ee"}}) {
    INFO(r.urdf);
    const std::string urdf_path = testing::ShippedDataFile(r.urdf);
    const Model urdf_model =
        LoadUrdfChain(urdf_path, r.base, r.tip).figure.Compile();
    const MjcfFigure mjcf = LoadMjcfChain(testing::ShippedDataFile(r.mjcf),
                                          r.base, r.tip);
    const Model mjcf_model = mjcf.figure.Compile();
    UrdfCollisionOptions as_written;
    as_written.capsules_from_cylinders = false;
    const std::vector<LinkShape> from_urdf =
        LoadUrdfCollision(urdf_path, urdf_model, as_written);
    const std::vector<LinkShape> merged =
        LoadUrdfCollision(urdf_path, urdf_model);
    const std::vector<LinkShape> from_mjcf =
        MjcfCollisionShapes(mjcf, mjcf_model);
    REQUIRE(from_mjcf.size() >= 6);
    REQUIRE(from_urdf.size() > from_mjcf.size());
    // Loaded as capsules, the URDF's shapes are the MJCF's, one for one.
    REQUIRE(merged.size() == from_mjcf.size());
    for (std::size_t k = 0; k < merged.size(); ++k) {
      CHECK(merged[k].link == from_mjcf[k].link);
      CHECK(merged[k].shape.type == from_mjcf[k].shape.type);
      CHECK(merged[k].shape.radius == Approx(from_mjcf[k].shape.radius));
      CHECK(merged[k].shape.half_length ==
            Approx(from_mjcf[k].shape.half_length).margin(1e-9));
    }
    std::vector<std::string> links;
    for (const LinkShape& s : from_mjcf) links.push_back(s.link);
    std::mt19937_64 rng(3);
    Data urdf_data(urdf_model), mjcf_data(mjcf_model);
    for (int trial = 0; trial < 20; ++trial) {
      const Eigen::VectorXd q = RandomConfiguration(urdf_model, &rng);
      ForwardKinematics(urdf_model, q, &urdf_data);
      ForwardKinematics(mjcf_model, q, &mjcf_data);
      for (std::size_t i = 0; i < links.size(); ++i) {
        for (std::size_t j = i + 2; j < links.size(); ++j) {
          const double d_urdf = LinkDistance(from_urdf, urdf_model, urdf_data,
                                             links[i], links[j]);
          const double d_merged = LinkDistance(merged, urdf_model, urdf_data,
                                               links[i], links[j]);
          const double d_mjcf = LinkDistance(from_mjcf, mjcf_model, mjcf_data,
                                             links[i], links[j]);
          CHECK(d_merged == Approx(d_mjcf).margin(1e-9));
          // Apart, the union's distance is the capsule's; overlapping, the
          // smallest member's depth is not the union's, only its sign is.
          if (d_mjcf > 0.0) {
            CHECK(d_urdf == Approx(d_mjcf).margin(1e-6));
          } else {
            CHECK(d_urdf <= 1e-9);
          }
        }
      }
    }
  }
}

// A random unit quaternion's pose at a random point of the cube [-s, s]^3.
Eigen::Isometry3d RandomPose(std::mt19937_64* rng, double s) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(-s, s);
  Eigen::Quaterniond q(normal(*rng), normal(*rng), normal(*rng), normal(*rng));
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = q.normalized().toRotationMatrix();
  X.translation() = Eigen::Vector3d(uniform(*rng), uniform(*rng), uniform(*rng));
  return X;
}

TEST_CASE("A URDF cylinder with a sphere on each end cap loads as one capsule "
          "whose closed-form distance is FCL's distance to the three",
          "[framework]") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> size(0.02, 0.3);
  const std::vector<CollisionShape> others = {
      CollisionShape::Sphere(0.07), CollisionShape::Capsule(0.05, 0.2),
      CollisionShape::Box(Eigen::Vector3d(0.1, 0.2, 0.05)),
      CollisionShape::Cylinder(0.08, 0.1)};
  int apart = 0, overlapping = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const double r = size(rng), h = size(rng);
    const Eigen::Isometry3d X_LG = RandomPose(&rng, 0.3);
    // As a URDF writes it: cylinder, then the spheres at the end caps, the
    // centres printed with 17 significant digits.
    const auto sphere_at = [&](double z) {
      const Eigen::Vector3d c = X_LG * Eigen::Vector3d(0, 0, z);
      char text[128];
      std::snprintf(text, sizeof(text), "%.17g %.17g %.17g", c.x(), c.y(),
                    c.z());
      std::istringstream in(text);
      Eigen::Vector3d read;
      in >> read.x() >> read.y() >> read.z();
      return LinkShape{"arm", "end",
                       Eigen::Isometry3d(Eigen::Translation3d(read)),
                       CollisionShape::Sphere(r)};
    };
    const std::vector<LinkShape> written = {
        sphere_at(h), LinkShape{"arm", "rod", X_LG,
                                CollisionShape::Cylinder(r, h)},
        sphere_at(-h)};
    const std::vector<LinkShape> merged = CapsulesFromCylinders(written);
    REQUIRE(merged.size() == 1);
    CHECK(merged[0].name == "rod");
    REQUIRE(merged[0].shape.type == ShapeType::kCapsule);
    const PreparedShape capsule(merged[0].shape);
    const Eigen::Isometry3d X_WL = RandomPose(&rng, 0.5);
    for (const CollisionShape& other_shape : others) {
      const PreparedShape other(other_shape);
      const Eigen::Isometry3d X_WO = RandomPose(&rng, 0.5);
      const ShapeDistance d = ComputeShapeDistance(
          capsule, X_WL * merged[0].X_LG, other, X_WO);
      double d_union = 1e300;
      for (const LinkShape& part : written) {
        d_union = std::min(
            d_union, ComputeShapeDistanceFcl(PreparedShape(part.shape),
                                             X_WL * part.X_LG, other, X_WO)
                         .distance);
      }
      INFO("trial " << trial << " " << ShapeTypeName(other_shape.type));
      if (d_union > 1e-6) {
        ++apart;
        CHECK(d.distance == Approx(d_union).margin(1e-7));
      } else {
        ++overlapping;  // the union's depth is not its members' (see above)
        CHECK(d.distance <= 1e-6);
      }
    }
  }
  CHECK(apart > 100);
  CHECK(overlapping > 10);
}

TEST_CASE("A cylinder stays a cylinder without a sphere of its radius on "
          "each end cap of the same link",
          "[framework]") {
  const Eigen::Isometry3d X_LG(Eigen::Translation3d(0.1, 0.2, 0.3));
  const auto sphere = [](const char* link, double r, double z) {
    return LinkShape{link, "s",
                     Eigen::Isometry3d(Eigen::Translation3d(0.1, 0.2, 0.3 + z)),
                     CollisionShape::Sphere(r)};
  };
  const LinkShape cylinder{"arm", "c", X_LG, CollisionShape::Cylinder(0.05, 0.2)};
  const auto types = [](const std::vector<LinkShape>& shapes) {
    std::string out;
    for (const LinkShape& s : shapes) out += ShapeTypeName(s.shape.type) + std::string(" ");
    return out;
  };
  // The rule applies: one capsule.
  CHECK(types(CapsulesFromCylinders(
            {sphere("arm", 0.05, 0.2), cylinder, sphere("arm", 0.05, -0.2)})) ==
        "capsule ");
  // Another radius, off the end cap, another link, a sphere missing.
  CHECK(types(CapsulesFromCylinders(
            {sphere("arm", 0.06, 0.2), cylinder, sphere("arm", 0.05, -0.2)})) ==
        "sphere cylinder sphere ");
  CHECK(types(CapsulesFromCylinders(
            {sphere("arm", 0.05, 0.21), cylinder, sphere("arm", 0.05, -0.2)})) ==
        "sphere cylinder sphere ");
  CHECK(types(CapsulesFromCylinders(
            {sphere("hand", 0.05, 0.2), cylinder, sphere("arm", 0.05, -0.2)})) ==
        "sphere cylinder sphere ");
  CHECK(types(CapsulesFromCylinders({cylinder, sphere("arm", 0.05, -0.2)})) ==
        "cylinder sphere ");
  // Both spheres on one end cap do not make a capsule.
  CHECK(types(CapsulesFromCylinders(
            {sphere("arm", 0.05, 0.2), cylinder, sphere("arm", 0.05, 0.2)})) ==
        "sphere cylinder sphere ");
  // A third sphere on an end cap stays a sphere.
  CHECK(types(CapsulesFromCylinders({sphere("arm", 0.05, 0.2), cylinder,
                                     sphere("arm", 0.05, -0.2),
                                     sphere("arm", 0.05, 0.2)})) ==
        "capsule sphere ");
}

}  // namespace
}  // namespace iklab
