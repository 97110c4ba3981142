#ifndef IKLAB_CONSTRAINTS_SHAPE_DISTANCE_H_
#define IKLAB_CONSTRAINTS_SHAPE_DISTANCE_H_

/// @file
/// Signed distance between two posed collision shapes
/// (framework/collision_geometry.h), with the witness points and the normal
/// its gradient needs:
///
///     d = min ‖x_A − x_B‖ over x_A ∈ A, x_B ∈ B when apart (> 0),
///     d = −(penetration depth) when they overlap (< 0),
///     n = ∂d/∂t_A, the unit direction in which translating A (B held)
///         increases d, so ∂d/∂t_B = −n,
///
/// and for a motion of both shapes with q (points fixed on their bodies),
/// ∂d/∂q_i = nᵀ (v_i(p_A) − v_i(p_B)), v_i(p) the linear Jacobian column of
/// coordinate i at the witness point p on the moving body (envelope theorem,
/// as for any smooth minimum distance; rotations add nothing because the
/// witness points lie on the common normal line).
///
/// Which method. Sphere and capsule pairs (sphere–sphere, sphere–capsule,
/// capsule–capsule) use the closed form ClosestPoints below: the
/// closest points of the two core segments (Ericson, Real-Time Collision
/// Detection, 2005, §5.1.9), d = ‖p − q‖ − r_A − r_B, n = (p − q)/‖p − q‖,
/// exact for overlap too. Every pair with a box, cylinder or convex hull
/// goes to FCL (Pan, Chitta & Manocha, "FCL: A general purpose library for
/// collision and proximity queries", ICRA 2012; Debian's libfcl-dev):
/// `fcl::distance` (FCL's own GJK, GST_INDEP) for separated shapes,
/// n = (p_A − p_B)/d; libccd's GJK distance (GST_LIBCCD) is wrong between
/// two polytopes in FCL 0.7 (1.64 instead of 1.25 for two boxes), so it is
/// not used. Overlapping, d = −(depth of fcl::collide's contact, libccd's
/// EPA) and n is the gradient of that signed distance over A's translation
/// by central differences (six more queries, step 1e-6), since the contact
/// gives one point for both shapes. EPA's depth is approximate for curved
/// shapes (capsule pairs: off by up to ~0.1 m at 0.1 m overlap in the tests,
/// hence the closed form for them) and noisy at deep overlap of boxes,
/// cylinders and hulls, where n is only a rough separating direction (not
/// checked by the tests); separated distances and normals are exact to
/// GJK's 1e-10 tolerance.
/// When the closed form's core segments cross, or FCL's difference gradient
/// is not near unit length (a kink of d), n = 0 and the result is marked
/// degenerate (no gradient direction).
///
/// A PreparedShape builds FCL's geometry once; distances only read it, so
/// one PreparedShape may be used from several threads.

#include <memory>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/collision_geometry.h"

namespace iklab {

namespace internal {
struct FclGeometry;  // FCL's geometry of a shape (shape_distance.cc)
}  // namespace internal

/// Closest points of the segments [p0, p1] and [q0, q1] (a segment may be a
/// point), Ericson, Real-Time Collision Detection, 2005, §5.1.9.
struct SegmentClosestPoints {
  Eigen::Vector3d on_first;
  Eigen::Vector3d on_second;
  double distance = 0.0;
};
SegmentClosestPoints ClosestPoints(const Eigen::Vector3d& p0,
                                   const Eigen::Vector3d& p1,
                                   const Eigen::Vector3d& q0,
                                   const Eigen::Vector3d& q1);

/// A shape ready for distance queries.
class PreparedShape {
 public:
  /// @throws std::invalid_argument as CollisionShape::Validate (owner
  ///   "PreparedShape").
  explicit PreparedShape(CollisionShape shape);
  const CollisionShape& shape() const { return shape_; }
  /// True for spheres and capsules (closed-form pairs among themselves).
  bool round() const {
    return shape_.type == ShapeType::kSphere ||
           shape_.type == ShapeType::kCapsule;
  }
  const internal::FclGeometry& fcl() const { return *fcl_; }

 private:
  CollisionShape shape_;
  std::shared_ptr<const internal::FclGeometry> fcl_;
};

/// The outcome of a distance query (see the file comment).
struct ShapeDistance {
  /// Signed distance d (negative: penetration depth).
  double distance = 0.0;
  /// Witness points on A and on B, world frame.
  Eigen::Vector3d on_first = Eigen::Vector3d::Zero();
  Eigen::Vector3d on_second = Eigen::Vector3d::Zero();
  /// n = ∂d/∂t_A (unit), zero when degenerate.
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();
  bool degenerate = false;
  /// True when the closed form answered, false for FCL.
  bool closed_form = false;
};

/// Signed distance between A at X_WA and B at X_WB: the closed form for
/// sphere/capsule pairs, FCL otherwise.
ShapeDistance ComputeShapeDistance(const PreparedShape& a,
                                   const Eigen::Isometry3d& X_WA,
                                   const PreparedShape& b,
                                   const Eigen::Isometry3d& X_WB);

/// The same query always through FCL (to cross-check the closed forms).
ShapeDistance ComputeShapeDistanceFcl(const PreparedShape& a,
                                      const Eigen::Isometry3d& X_WA,
                                      const PreparedShape& b,
                                      const Eigen::Isometry3d& X_WB);

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_SHAPE_DISTANCE_H_
