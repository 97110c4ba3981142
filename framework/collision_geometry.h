#ifndef IKLAB_FRAMEWORK_COLLISION_GEOMETRY_H_
#define IKLAB_FRAMEWORK_COLLISION_GEOMETRY_H_

/// @file
/// Collision geometry read from the model files: the shapes of URDF
/// `<collision>` elements and of MJCF geoms, each fixed to a link.
///
///     std::vector<LinkShape> shapes = LoadUrdfCollision("panda.urdf", model);
///     // or, for MJCF: MjcfCollisionShapes(LoadMjcf("panda.xml"), model)
///
/// | file                         | CollisionShape                             |
/// |------------------------------|--------------------------------------------|
/// | URDF `<sphere radius>`       | kSphere                                    |
/// | URDF `<cylinder radius length>` | kCylinder, half_length = length / 2     |
/// | URDF cylinder + 2 end spheres | kCapsule (see "URDF capsules" below)      |
/// | URDF `<box size>`            | kBox, half_extents = size / 2              |
/// | URDF `<mesh filename scale>` | kConvex: the mesh's convex hull, scaled    |
/// | MJCF sphere                  | kSphere                                    |
/// | MJCF capsule / cylinder      | kCapsule / kCylinder (size: radius, half length) |
/// | MJCF box                     | kBox (size: half extents)                  |
/// | MJCF mesh                    | kConvex: MuJoCo's convex hull of the mesh  |
///
/// URDF capsules. URDF has no capsule, so a capsule is written as a
/// cylinder plus a sphere at each end cap (scripts/make_robot_models.py does
/// this for the shipped arms). By default such a triple becomes one kCapsule
/// (UrdfCollisionOptions::capsules_from_cylinders), by this rule: on one
/// link, a cylinder of radius r, half length h and frame G, and two further
/// `<collision>` spheres of radius r whose centres are G's (0, 0, +h) and
/// (0, 0, −h), each equal within ε = 1e-9·(r + h) (the text's rounding).
/// The union of the three is exactly the capsule of radius r around the
/// segment between those centres (a capsule is the set of points within r
/// of its segment: the cylinder holds those whose nearest segment point is
/// inside, the spheres those nearest an end), so every distance is the
/// same, up to ε; what changes is who answers: the closed form for capsule
/// pairs instead of FCL's GJK on cylinders (tens of times slower). The
/// capsule takes the cylinder's name and place in the list; the spheres are
/// dropped. A sphere serves one capsule; a cylinder without both spheres, a
/// sphere of another radius or off the end caps is left as it is.
///
/// Spheres, capsules, cylinders and boxes are exact. Meshes are replaced by
/// their convex hull (a conservative cover: every point of the mesh is in
/// it), never by a fitted capsule: distances to a hull are exact for convex
/// parts, which is how collision meshes are usually made, and FCL's GJK
/// (constraints/shape_distance.h) takes hulls directly. The hull is the one
/// MuJoCo's compiler computes (Qhull) when it loads a mesh, so URDF meshes are
/// read through MuJoCo too: STL and OBJ files (MuJoCo 2.2's mesh formats);
/// other formats (COLLADA .dae) are refused with the file and element named.
///
/// Frames. Each shape has its frame G posed in its link's frame L by X_LG
/// (URDF: the `<collision><origin>`; MJCF: geom_pos/geom_quat, MuJoCo's
/// compiled pose). Capsules and cylinders lie along G's z axis, centred on
/// G's origin; boxes are centred on it; hull vertices are in G.
///
/// Which elements count. URDF: every `<collision>` of a link in `model`
/// (links outside it, e.g. beyond a chain's tip, are skipped). MJCF: every
/// geom on a body in `model` with contype or conaffinity non-zero (the
/// geoms MuJoCo itself collides; contype = conaffinity = 0 marks visual
/// geoms in MuJoCo Menagerie), except geoms on the world body (the
/// environment, not the robot). A colliding plane, height field or
/// ellipsoid on a moving body is refused (no exact shape here).
///
/// Errors: std::invalid_argument whose message starts with the file name
/// and names the link (or geom) and element: a missing, empty or unreadable
/// mesh file, a `package://` mesh (no ROS package path to resolve it: give
/// the path relative to the URDF's folder), a non-finite or non-positive
/// size.

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/model.h"

namespace iklab {

struct MjcfFigure;

/// The kinds of collision shape.
enum class ShapeType { kSphere, kCapsule, kCylinder, kBox, kConvex };

/// "sphere", "capsule", "cylinder", "box", "convex".
const char* ShapeTypeName(ShapeType type);

/// A convex polytope: vertices (in the shape frame) and triangles indexing
/// them, counter-clockwise seen from outside.
struct ConvexHull {
  std::vector<Eigen::Vector3d> vertices;
  std::vector<Eigen::Vector3i> triangles;
};

/// One shape in its own frame G (see the file comment).
struct CollisionShape {
  ShapeType type = ShapeType::kSphere;
  /// Sphere, capsule, cylinder: radius (> 0).
  double radius = 0.0;
  /// Capsule, cylinder: half the length along z (capsule: of its segment),
  /// ≥ 0 for capsules, > 0 for cylinders.
  double half_length = 0.0;
  /// Box: half the side lengths along x, y, z (each > 0).
  Eigen::Vector3d half_extents = Eigen::Vector3d::Zero();
  /// Convex: the hull (at least 4 vertices not in one plane).
  std::shared_ptr<const ConvexHull> hull;

  static CollisionShape Sphere(double radius);
  static CollisionShape Capsule(double radius, double half_length);
  static CollisionShape Cylinder(double radius, double half_length);
  static CollisionShape Box(const Eigen::Vector3d& half_extents);
  static CollisionShape Convex(std::shared_ptr<const ConvexHull> hull);

  /// @throws std::invalid_argument naming `owner` and the field for a
  ///   non-finite or out-of-range size, or a hull with fewer than 4
  ///   vertices or a triangle index out of range.
  void Validate(const std::string& owner) const;
};

/// A shape fixed to a link: frame G at X_LG in the link frame L.
struct LinkShape {
  std::string link;
  /// For messages and files: "<link>/collision<k>" (URDF, k counts the
  /// link's `<collision>` elements from 0, or the element's name when it has
  /// one) or the geom's name (MJCF).
  std::string name;
  Eigen::Isometry3d X_LG = Eigen::Isometry3d::Identity();
  CollisionShape shape;
};

/// Options of LoadUrdfCollision.
struct UrdfCollisionOptions {
  /// A cylinder with a sphere of its radius on each end cap becomes one
  /// capsule (the rule in the file comment). The same solid, answered by
  /// the closed form; false keeps the file's three elements (to compare).
  bool capsules_from_cylinders = true;
};

/// The collision shapes of the links of `model` in a URDF file.
/// @param path the URDF (relative mesh file names are resolved from its
///   folder; `file://` prefixes are accepted).
/// @throws std::invalid_argument as the file comment says.
std::vector<LinkShape> LoadUrdfCollision(
    const std::string& path, const Model& model,
    const UrdfCollisionOptions& options = {});

/// As LoadUrdfCollision for URDF text; relative mesh paths are resolved
/// from `mesh_folder`.
std::vector<LinkShape> LoadUrdfCollisionFromString(
    const std::string& xml, const Model& model,
    const std::string& source_name = "<string>",
    const std::string& mesh_folder = ".",
    const UrdfCollisionOptions& options = {});

/// The capsule rule of the file comment over a list of link shapes: each
/// cylinder with a sphere of its radius centred on each end cap (same link)
/// becomes one capsule in the cylinder's place, the two spheres removed;
/// every other shape is kept in order.
std::vector<LinkShape> CapsulesFromCylinders(std::vector<LinkShape> shapes);

/// The collision shapes of a loaded MJCF model's geoms on the links of
/// `model` (see the file comment).
/// @throws std::invalid_argument naming the source and geom for a geom type
///   with no exact shape here.
std::vector<LinkShape> MjcfCollisionShapes(const MjcfFigure& mjcf,
                                           const Model& model);

/// The convex hull of a mesh file (STL or OBJ) as MuJoCo's compiler computes
/// it, in the file's coordinates times `scale`.
/// @param owner names the element in messages (e.g. "robot.urdf: link
///   'hand' <collision> 0").
/// @throws std::invalid_argument naming `owner` and the file when it is
///   missing, empty, of another format, or MuJoCo cannot read it.
std::shared_ptr<const ConvexHull> LoadMeshHull(
    const std::string& path, const std::string& owner,
    const Eigen::Vector3d& scale = Eigen::Vector3d::Ones());

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_COLLISION_GEOMETRY_H_
