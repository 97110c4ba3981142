#ifndef IKLAB_CONSTRAINTS_COLLISION_H_
#define IKLAB_CONSTRAINTS_COLLISION_H_

/// @file
/// Collision avoidance as minimum-distance inequalities. Bodies are capsules
/// (a segment swept by a sphere; a zero-length segment is a sphere) attached
/// to links, given by the user or fitted along a chain's links; obstacles are
/// capsules and spheres fixed in the world. For every pair k of a body and an
/// obstacle, and of two bodies not adjacent in the tree (self-collision),
///
///     c_k = r_1 + r_2 + margin − d_k(q) ≤ 0,
///     d_k = ‖p_1 − p_2‖,  p_1, p_2 the closest points of the two segments,
///     ∂c_k/∂q_i = −u_kᵀ (v_i(p_1) − v_i(p_2)),  u_k = (p_1 − p_2)/d_k,
///
/// where v_i(p) is the linear Jacobian column of joint i at the point p
/// carried by the body (zero for obstacles). The closest points move with q,
/// but at a unique minimizer the derivative of the minimum distance equals
/// that of ‖p_1 − p_2‖ with the points held fixed on their bodies (envelope
/// theorem), so the gradient is exact wherever the closest pair is unique;
/// for parallel overlapping segments any closest pair gives the same d and a
/// valid (sub)gradient. At d = 0 (segments crossing: deep penetration) the
/// direction is undefined: u := 0 and the row is flagged degenerate.
///
/// Why closed form, not FCL: capsule–capsule and sphere–capsule distances
/// reduce to the closest points of two segments (Ericson, Real-Time
/// Collision Detection, 2005, §5.1.9), a few dozen flops with the closest
/// points that the gradient needs, allocation-free and thread-safe like the
/// other goals. FCL's GJK/EPA would give the same points for convex meshes
/// but adds a dependency, a per-thread collision-object setup, and no
/// derivatives; meshes are beyond this file's scope.
///
/// Soft form (inequality_goal.h): P = ½ w Σ_k max(0, c_k)², a penalty that
/// is zero at clearance ≥ margin and grows quadratically with penetration.

#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "constraints/inequality_goal.h"

namespace iklab {

/// Points within `radius` of the segment [a, b] (a sphere when a == b).
struct Capsule {
  Eigen::Vector3d a = Eigen::Vector3d::Zero();
  Eigen::Vector3d b = Eigen::Vector3d::Zero();
  double radius = 0.0;

  static Capsule Sphere(const Eigen::Vector3d& center, double radius) {
    return {center, center, radius};
  }
  /// @throws std::invalid_argument naming `owner` unless a, b are finite and
  ///   radius is finite and > 0.
  void Validate(const std::string& owner) const;
};

/// A capsule rigidly attached to a link; a and b are in the link's frame.
struct LinkCapsule {
  std::string link;
  Capsule capsule;
};

/// Closest points of the segments [p0, p1] and [q0, q1] (Ericson §5.1.9).
struct SegmentClosestPoints {
  Eigen::Vector3d on_first;
  Eigen::Vector3d on_second;
  double distance = 0.0;
};
SegmentClosestPoints ClosestPoints(const Eigen::Vector3d& p0,
                                   const Eigen::Vector3d& p1,
                                   const Eigen::Vector3d& q0,
                                   const Eigen::Vector3d& q1);

/// Capsules fitted along the links of a chain: for each listed link, a
/// capsule of `radius` from the link's origin to the origin of its child
/// link (the next listed link), in the link's frame; the last link gets a
/// sphere at its origin. The child's origin is taken at q = 0, which is exact
/// for revolute joints (they rotate about the child's origin).
/// @throws std::invalid_argument for an unknown link, fewer than one link,
///   or a radius that is not finite and > 0.
std::vector<LinkCapsule> FitChainCapsules(const Model& model,
                                          const std::vector<std::string>& links,
                                          double radius);

/// Options of CollisionGoal.
struct CollisionOptions {
  /// Required clearance beyond contact, length units, ≥ 0.
  double margin = 0.0;
  /// Self-collision: body pairs on links at most this many links apart along
  /// the tree (parent/child = 1) are skipped — neighbours touch at their
  /// joint by construction. ≥ 0; a negative value turns self-collision off.
  int skip_neighbors = 1;
  /// Further body pairs (by link name, either order) to skip.
  std::vector<std::pair<std::string, std::string>> allowed_pairs;
};

/// Minimum-distance inequalities between link capsules and world obstacles
/// and between non-adjacent link capsules (see the file comment).
/// Error(): position = largest violation max(0, c_k) (penetration plus
/// margin), length units; degenerate if a pair's segments cross.
class CollisionGoal final : public InequalityGoal {
 public:
  /// One checked pair: body index `first`, and body `second` (self) or
  /// obstacle `second` (when `obstacle`).
  struct Pair {
    int first = 0;
    int second = 0;
    bool obstacle = false;
  };

  /// @throws std::invalid_argument for an unknown link, a capsule with a
  ///   radius ≤ 0 or non-finite points, a negative margin, no pair to check,
  ///   or an unknown link in allowed_pairs.
  CollisionGoal(const Model& model, std::vector<LinkCapsule> bodies,
                std::vector<Capsule> obstacles, CollisionOptions options = {},
                double weight = 1.0);

  const std::vector<Pair>& pairs() const { return pairs_; }
  const std::vector<LinkCapsule>& bodies() const { return bodies_; }
  const std::vector<Capsule>& obstacles() const { return obstacles_; }
  /// Signed clearance d_k − r_1 − r_2 of every pair at the pose in `data`
  /// (negative = penetration), in pairs() order.
  Eigen::VectorXd Clearances(const Model& model, const Data& data) const;

  /// Parameters(): margin. Quantities(): min_clearance = the smallest
  /// clearance d_k − r_1 − r_2 over the pairs, ≥ margin (length units).
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluateConstraint(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            Eigen::Ref<Eigen::VectorXd> value,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;
  // World segment of body i.
  std::pair<Eigen::Vector3d, Eigen::Vector3d> BodySegment(const Data& data,
                                                          int i) const;

  std::vector<LinkCapsule> bodies_;
  std::vector<int> body_steps_;
  std::vector<Capsule> obstacles_;
  CollisionOptions options_;
  std::vector<Pair> pairs_;
  int num_steps_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_COLLISION_H_
