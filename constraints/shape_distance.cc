#include "constraints/shape_distance.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>


namespace iklab {

namespace internal {
struct FclGeometry {
  std::shared_ptr<fcl::CollisionGeometryd> geometry;
};
}  // namespace internal

namespace {

constexpr double kDegenerate = 1e-9;
// GJK's stopping tolerance (FCL's default 1e-6 leaves errors that central
// differences of the distance see).
constexpr double kFclTolerance = 1e-10;
// Step of the central differences that give an overlap's normal.
constexpr double kNormalStep = 1e-6;

std::shared_ptr<fcl::CollisionGeometryd> MakeFcl(const CollisionShape& s) {
  switch (s.type) {
    case ShapeType::kSphere:
      return std::make_shared<fcl::Sphered>(s.radius);
    case ShapeType::kCapsule:  // FCL's lz is the full segment length along z
      return std::make_shared<fcl::Capsuled>(s.radius, 2.0 * s.half_length);
    case ShapeType::kCylinder:
      return std::make_shared<fcl::Cylinderd>(s.radius, 2.0 * s.half_length);
    case ShapeType::kBox:
      return std::make_shared<fcl::Boxd>(2.0 * s.half_extents);
    case ShapeType::kConvex: {
      auto vertices = std::make_shared<std::vector<Eigen::Vector3d>>(
          s.hull->vertices.begin(), s.hull->vertices.end());
      // FCL's face list: for each face its vertex count, then the indices.
      auto faces = std::make_shared<std::vector<int>>();
      for (const Eigen::Vector3i& t : s.hull->triangles) {
        faces->insert(faces->end(), {3, t[0], t[1], t[2]});
      }
      return std::make_shared<fcl::Convexd>(
          vertices, static_cast<int>(s.hull->triangles.size()), faces);
    }
  }
  return nullptr;
}

// The core segment of a sphere (a point) or capsule, world frame.
std::pair<Eigen::Vector3d, Eigen::Vector3d> CoreSegment(
    const CollisionShape& s, const Eigen::Isometry3d& X_WG) {
  const Eigen::Vector3d half = s.half_length * X_WG.linear().col(2);
  if (s.type == ShapeType::kSphere) {
    return {X_WG.translation(), X_WG.translation()};
  }
  return {X_WG.translation() - half, X_WG.translation() + half};
}

ShapeDistance ClosedForm(const PreparedShape& a, const Eigen::Isometry3d& X_WA,
                         const PreparedShape& b,
                         const Eigen::Isometry3d& X_WB) {
  const auto [p0, p1] = CoreSegment(a.shape(), X_WA);
  const auto [q0, q1] = CoreSegment(b.shape(), X_WB);
  const SegmentClosestPoints closest = ClosestPoints(p0, p1, q0, q1);
  ShapeDistance out;
  out.closed_form = true;
  out.distance = closest.distance - a.shape().radius - b.shape().radius;
  if (closest.distance < kDegenerate) {
    // Core segments cross: no direction; the points are the crossing.
    out.degenerate = true;
    out.on_first = closest.on_first;
    out.on_second = closest.on_second;
    return out;
  }
  out.normal = (closest.on_first - closest.on_second) / closest.distance;
  // Witness points on the surfaces (on the line of the core points).
  out.on_first = closest.on_first - a.shape().radius * out.normal;
  out.on_second = closest.on_second + b.shape().radius * out.normal;
  return out;
}

// FCL's signed distance and witness points (world frame): GJK of FCL's own
// solver (GST_INDEP) apart, the deepest contact of fcl::collide (libccd's
// EPA) overlapping: libccd's GJK distance (GST_LIBCCD) returns
// wrong distances between two polytopes in FCL 0.7 (e.g. 1.64 instead of
// 1.25 between a box and a box-shaped hull), caught by the hand-computed
// cases of tests/constraints/shape_distance_test.cc.
double FclDistance(const PreparedShape& a, const Eigen::Isometry3d& X_WA,
                   const PreparedShape& b, const Eigen::Isometry3d& X_WB,
                   Eigen::Vector3d* on_first, Eigen::Vector3d* on_second) {
  const fcl::CollisionGeometryd* ga = a.fcl().geometry.get();
  const fcl::CollisionGeometryd* gb = b.fcl().geometry.get();
  fcl::DistanceRequestd request;
  request.enable_nearest_points = on_first != nullptr;
  request.gjk_solver_type = fcl::GST_INDEP;
  request.distance_tolerance = kFclTolerance;
  fcl::DistanceResultd result;
  fcl::distance(ga, X_WA, gb, X_WB, request, result);
  if (result.min_distance > 0.0) {
    if (on_first != nullptr) {
      *on_first = result.nearest_points[0];
      *on_second = result.nearest_points[1];
    }
    return result.min_distance;
  }
  // Overlapping: the deepest of FCL's contacts. (FCL's own signed distance
  // does the same but asserts that a contact exists, which fails when the
  // shapes only touch.)
  fcl::CollisionRequestd collision_request;
  collision_request.enable_contact = true;
  collision_request.num_max_contacts = 1;
  // libccd's EPA (FCL's own solver reports zero depth for some pairs, e.g.
  // a sphere inside a hull); one contact.
  collision_request.gjk_solver_type = fcl::GST_LIBCCD;
  fcl::CollisionResultd collision;
  fcl::collide(ga, X_WA, gb, X_WB, collision_request, collision);
  double depth = 0.0;
  Eigen::Vector3d point = 0.5 * (X_WA.translation() + X_WB.translation());
  for (std::size_t i = 0; i < collision.numContacts(); ++i) {
    const fcl::Contactd& contact = collision.getContact(i);
    if (contact.penetration_depth > depth) {
      depth = contact.penetration_depth;
      point = contact.pos;
    }
  }
  if (on_first != nullptr) *on_first = *on_second = point;
  return -depth;
}

}  // namespace

PreparedShape::PreparedShape(CollisionShape shape) : shape_(std::move(shape)) {
  shape_.Validate("PreparedShape");
  auto fcl = std::make_shared<internal::FclGeometry>();
  fcl->geometry = MakeFcl(shape_);
  fcl->geometry->computeLocalAABB();
  fcl_ = std::move(fcl);
}

ShapeDistance ComputeShapeDistanceFcl(const PreparedShape& a,
                                      const Eigen::Isometry3d& X_WA,
                                      const PreparedShape& b,
                                      const Eigen::Isometry3d& X_WB) {
  ShapeDistance out;
  out.distance = FclDistance(a, X_WA, b, X_WB, &out.on_first, &out.on_second);
  const Eigen::Vector3d gap = out.on_first - out.on_second;
  if (out.distance > kDegenerate && gap.norm() > kDegenerate) {
    out.normal = gap / gap.norm();  // (p_A − p_B)/d, d > 0
    return out;
  }
  // Overlapping (or touching): the normal is the gradient of the signed
  // distance over A's translation, by central differences (file comment).
  Eigen::Vector3d gradient;
  for (int axis = 0; axis < 3; ++axis) {
    Eigen::Isometry3d plus = X_WA, minus = X_WA;
    plus.translation()[axis] += kNormalStep;
    minus.translation()[axis] -= kNormalStep;
    gradient[axis] = (FclDistance(a, plus, b, X_WB, nullptr, nullptr) -
                      FclDistance(a, minus, b, X_WB, nullptr, nullptr)) /
                     (2.0 * kNormalStep);
  }
  if (gradient.norm() < 0.5) {  // a unit vector where d is differentiable
    out.degenerate = true;
  } else {
    out.normal = gradient.normalized();
  }
  return out;
}

ShapeDistance ComputeShapeDistance(const PreparedShape& a,
                                   const Eigen::Isometry3d& X_WA,
                                   const PreparedShape& b,
                                   const Eigen::Isometry3d& X_WB) {
  if (a.round() && b.round()) return ClosedForm(a, X_WA, b, X_WB);
  return ComputeShapeDistanceFcl(a, X_WA, b, X_WB);
}

SegmentClosestPoints ClosestPoints(const Eigen::Vector3d& p0,
                                   const Eigen::Vector3d& p1,
                                   const Eigen::Vector3d& q0,
                                   const Eigen::Vector3d& q1) {
  // Ericson, Real-Time Collision Detection, §5.1.9: minimize
  // ‖(p0 + s d1) − (q0 + t d2)‖ over s, t ∈ [0, 1].
  constexpr double kEpsilon = 1e-18;
  const Eigen::Vector3d d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  double s = 0.0, t = 0.0;
  if (a <= kEpsilon && e <= kEpsilon) {
    // Two points.
  } else if (a <= kEpsilon) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= kEpsilon) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2);
      const double denominator = a * e - b * b;  // ≥ 0; 0 when parallel
      s = denominator > 0.0 ? std::clamp((b * f - c * e) / denominator, 0.0, 1.0)
                            : 0.0;
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  SegmentClosestPoints out;
  out.on_first = p0 + s * d1;
  out.on_second = q0 + t * d2;
  out.distance = (out.on_first - out.on_second).norm();
  return out;
}

}  // namespace iklab
