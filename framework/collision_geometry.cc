#include "framework/collision_geometry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <urdf_model/model.h>

#include "framework/internal/check.h"
#include "framework/internal/read_file.h"
#include "framework/internal/urdf_parse.h"
#include "framework/mjcf_loader.h"

namespace iklab {

using internal::StrCat;

namespace {

[[noreturn]] void Fail(const std::string& owner, const std::string& what) {
  throw std::invalid_argument(StrCat(owner, ": ", what));
}

bool PositiveFinite(double x) { return std::isfinite(x) && x > 0.0; }

bool HasLink(const Model& model, const std::string& name) {
  for (int l = 0; l < model.num_links(); ++l) {
    if (model.link_name(l) == name) return true;
  }
  return false;
}

// A URDF mesh's file name as a path: "file://" dropped, relative names from
// the URDF's folder; "package://" cannot be resolved without ROS.
std::string MeshPath(const std::string& filename, const std::string& folder,
                     const std::string& owner) {
  const std::string kFile = "file://", kPackage = "package://";
  if (filename.compare(0, kPackage.size(), kPackage) == 0) {
    Fail(owner, StrCat("mesh '", filename,
                       "': package:// paths need a ROS package path, which "
                       "iklab does not have; give the path relative to the "
                       "URDF's folder or absolute"));
  }
  std::string path = filename.compare(0, kFile.size(), kFile) == 0
                         ? filename.substr(kFile.size())
                         : filename;
  if (path.empty()) Fail(owner, "the mesh filename is empty");
  if (path[0] != '/') path = folder + "/" + path;
  return path;
}

CollisionShape UrdfShape(const urdf::Geometry& geometry,
                         const std::string& folder, const std::string& owner) {
  switch (geometry.type) {
    case urdf::Geometry::SPHERE:
      return CollisionShape::Sphere(
          static_cast<const urdf::Sphere&>(geometry).radius);
    case urdf::Geometry::BOX: {
      const urdf::Vector3& d = static_cast<const urdf::Box&>(geometry).dim;
      return CollisionShape::Box(Eigen::Vector3d(d.x, d.y, d.z) / 2.0);
    }
    case urdf::Geometry::CYLINDER: {
      const auto& c = static_cast<const urdf::Cylinder&>(geometry);
      return CollisionShape::Cylinder(c.radius, c.length / 2.0);
    }
    case urdf::Geometry::MESH: {
      const auto& m = static_cast<const urdf::Mesh&>(geometry);
      const Eigen::Vector3d scale(m.scale.x, m.scale.y, m.scale.z);
      return CollisionShape::Convex(
          LoadMeshHull(MeshPath(m.filename, folder, owner), owner, scale));
    }
  }
  Fail(owner, "unknown geometry type");
}

}  // namespace

const char* ShapeTypeName(ShapeType type) {
  switch (type) {
    case ShapeType::kSphere:
      return "sphere";
    case ShapeType::kCapsule:
      return "capsule";
    case ShapeType::kCylinder:
      return "cylinder";
    case ShapeType::kBox:
      return "box";
    case ShapeType::kConvex:
      return "convex";
  }
  return "?";
}

CollisionShape CollisionShape::Sphere(double radius) {
  CollisionShape s;
  s.type = ShapeType::kSphere;
  s.radius = radius;
  return s;
}

CollisionShape CollisionShape::Capsule(double radius, double half_length) {
  CollisionShape s;
  s.type = ShapeType::kCapsule;
  s.radius = radius;
  s.half_length = half_length;
  return s;
}

CollisionShape CollisionShape::Cylinder(double radius, double half_length) {
  CollisionShape s;
  s.type = ShapeType::kCylinder;
  s.radius = radius;
  s.half_length = half_length;
  return s;
}

CollisionShape CollisionShape::Box(const Eigen::Vector3d& half_extents) {
  CollisionShape s;
  s.type = ShapeType::kBox;
  s.half_extents = half_extents;
  return s;
}

CollisionShape CollisionShape::Convex(std::shared_ptr<const ConvexHull> hull) {
  CollisionShape s;
  s.type = ShapeType::kConvex;
  s.hull = std::move(hull);
  return s;
}

void CollisionShape::Validate(const std::string& owner) const {
  const std::string what = StrCat(owner, " (", ShapeTypeName(type), ")");
  switch (type) {
    case ShapeType::kSphere:
    case ShapeType::kCapsule:
    case ShapeType::kCylinder:
      if (!PositiveFinite(radius)) {
        Fail(what, StrCat("radius must be finite and > 0; got ", radius));
      }
      if (type == ShapeType::kCapsule &&
          !(std::isfinite(half_length) && half_length >= 0.0)) {
        Fail(what, StrCat("half length must be finite and >= 0; got ",
                          half_length));
      }
      if (type == ShapeType::kCylinder && !PositiveFinite(half_length)) {
        Fail(what, StrCat("half length must be finite and > 0; got ",
                          half_length));
      }
      break;
    case ShapeType::kBox:
      for (int k = 0; k < 3; ++k) {
        if (!PositiveFinite(half_extents[k])) {
          Fail(what, StrCat("half extents must be finite and > 0; got ",
                            half_extents[0], " ", half_extents[1], " ",
                            half_extents[2]));
        }
      }
      break;
    case ShapeType::kConvex: {
      if (!hull || hull->vertices.size() < 4 || hull->triangles.size() < 4) {
        Fail(what, "a hull needs at least 4 vertices and 4 triangles");
      }
      const int n = static_cast<int>(hull->vertices.size());
      for (const Eigen::Vector3d& v : hull->vertices) {
        if (!v.allFinite()) Fail(what, "a hull vertex is not finite");
      }
      for (const Eigen::Vector3i& t : hull->triangles) {
        if ((t.array() < 0).any() || (t.array() >= n).any()) {
          Fail(what, StrCat("a hull triangle indexes vertex ", t.maxCoeff(),
                            " of ", n));
        }
      }
      break;
    }
  }
}

std::vector<LinkShape> CapsulesFromCylinders(std::vector<LinkShape> shapes) {
  const int n = static_cast<int>(shapes.size());
  std::vector<bool> used(n, false);
  // For each cylinder, the capsule it makes with two unused end spheres.
  for (int c = 0; c < n; ++c) {
    const LinkShape& cylinder = shapes[c];
    if (cylinder.shape.type != ShapeType::kCylinder) continue;
    const double r = cylinder.shape.radius, h = cylinder.shape.half_length;
    const double tolerance = 1e-9 * (r + h);
    int ends[2] = {-1, -1};
    for (int e = 0; e < 2; ++e) {
      const Eigen::Vector3d p_LE =
          cylinder.X_LG * Eigen::Vector3d(0.0, 0.0, e == 0 ? h : -h);
      for (int s = 0; s < n && ends[e] < 0; ++s) {
        const LinkShape& sphere = shapes[s];
        if (used[s] || s == ends[0] || sphere.link != cylinder.link ||
            sphere.shape.type != ShapeType::kSphere ||
            std::abs(sphere.shape.radius - r) > tolerance ||
            (sphere.X_LG.translation() - p_LE).norm() > tolerance) {
          continue;
        }
        ends[e] = s;
      }
    }
    if (ends[0] < 0 || ends[1] < 0) continue;
    used[ends[0]] = used[ends[1]] = true;
    shapes[c].shape = CollisionShape::Capsule(r, h);
  }
  std::vector<LinkShape> out;
  for (int k = 0; k < n; ++k) {
    if (!used[k]) out.push_back(std::move(shapes[k]));
  }
  return out;
}

std::vector<LinkShape> LoadUrdfCollisionFromString(
    const std::string& xml, const Model& model, const std::string& source_name,
    const std::string& mesh_folder, const UrdfCollisionOptions& options) {
  const urdf::ModelInterfaceSharedPtr urdf_model =
      internal::ParseUrdfChecked(xml, source_name);
  std::vector<LinkShape> shapes;
  std::vector<urdf::LinkSharedPtr> links;
  urdf_model->getLinks(links);
  // urdfdom keeps links in a map; file order is not needed, but a fixed
  // order is: sort by the model's link index.
  std::vector<std::pair<int, urdf::LinkSharedPtr>> ordered;
  for (const urdf::LinkSharedPtr& link : links) {
    if (HasLink(model, link->name)) {
      ordered.emplace_back(model.LinkIndex(link->name), link);
    }
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [index, link] : ordered) {
    for (std::size_t k = 0; k < link->collision_array.size(); ++k) {
      const urdf::Collision& c = *link->collision_array[k];
      const std::string element = StrCat("link '", link->name,
                                         "' <collision> ", k);
      const std::string owner = StrCat(source_name, ": ", element);
      if (!c.geometry) Fail(owner, "no <geometry>");
      LinkShape shape;
      shape.link = link->name;
      shape.name = c.name.empty() ? StrCat(link->name, "/collision", k)
                                  : c.name;
      const urdf::Vector3& p = c.origin.position;
      double x, y, z, w;
      c.origin.rotation.getQuaternion(x, y, z, w);
      shape.X_LG = Eigen::Translation3d(p.x, p.y, p.z) *
                   Eigen::Quaterniond(w, x, y, z).normalized();
      if (!shape.X_LG.matrix().allFinite()) {
        Fail(owner, "the <origin> is not finite");
      }
      shape.shape = UrdfShape(*c.geometry, mesh_folder, owner);
      shape.shape.Validate(owner);
      shapes.push_back(std::move(shape));
    }
  }
  return options.capsules_from_cylinders
             ? CapsulesFromCylinders(std::move(shapes))
             : shapes;
}

std::vector<LinkShape> LoadUrdfCollision(const std::string& path,
                                         const Model& model,
                                         const UrdfCollisionOptions& options) {
  const std::string xml = internal::ReadFile(path, "a URDF file");
  const auto slash = path.find_last_of('/');
  const std::string folder =
      slash == std::string::npos ? "." : path.substr(0, slash);
  return LoadUrdfCollisionFromString(xml, model, path,
                                     folder.empty() ? "/" : folder, options);
}

std::vector<LinkShape> MjcfCollisionShapes(const MjcfFigure& mjcf,
                                           const Model& model) {
  std::vector<LinkShape> shapes;
  for (const MjcfGeom& geom : mjcf.geoms) {
    if (geom.contype == 0 && geom.conaffinity == 0) continue;  // visual
    if (geom.link == "world" || !HasLink(model, geom.link)) continue;
    const std::string owner =
        StrCat(mjcf.source, ": geom '", geom.name, "' on body '", geom.link,
               "'");
    LinkShape shape;
    shape.link = geom.link;
    shape.name = geom.name;
    shape.X_LG = geom.X_BG;
    if (geom.type == "sphere") {
      shape.shape = CollisionShape::Sphere(geom.size[0]);
    } else if (geom.type == "capsule") {
      shape.shape = CollisionShape::Capsule(geom.size[0], geom.size[1]);
    } else if (geom.type == "cylinder") {
      shape.shape = CollisionShape::Cylinder(geom.size[0], geom.size[1]);
    } else if (geom.type == "box") {
      shape.shape = CollisionShape::Box(geom.size);
    } else if (geom.type == "mesh") {
      if (geom.hull_vertices.size() < 4 || geom.hull_triangles.empty()) {
        Fail(owner, StrCat("MuJoCo made no convex hull of mesh '", geom.mesh,
                           "'"));
      }
      auto hull = std::make_shared<ConvexHull>();
      hull->vertices = geom.hull_vertices;
      hull->triangles = geom.hull_triangles;
      shape.shape = CollisionShape::Convex(std::move(hull));
    } else {
      Fail(owner, StrCat("a colliding ", geom.type,
                         " geom has no exact collision shape here (sphere, "
                         "capsule, cylinder, box, mesh); make it visual "
                         "(contype=\"0\" conaffinity=\"0\") or replace it"));
    }
    shape.shape.Validate(owner);
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

}  // namespace iklab
