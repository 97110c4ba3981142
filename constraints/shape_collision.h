#ifndef IKLAB_CONSTRAINTS_SHAPE_COLLISION_H_
#define IKLAB_CONSTRAINTS_SHAPE_COLLISION_H_

/// @file
/// Collision avoidance with the model files' geometry: minimum-distance
/// inequalities between link shapes (framework/collision_geometry.h: spheres,
/// capsules, cylinders, boxes, convex hulls) and between link shapes and
/// shapes fixed in the world. For every checked shape pair k,
///
///     c_k = margin − d_k(q) ≤ 0,
///     ∂c_k/∂q_i = −n_kᵀ (v_i(p_A) − v_i(p_B)),
///
/// d_k the signed distance of constraints/shape_distance.h (closed form for
/// sphere/capsule pairs, FCL for the rest), n_k its normal, p_A, p_B its
/// witness points and v_i(p) the linear Jacobian column of coordinate i at
/// the point p carried by the shape's link (zero for world shapes). A
/// degenerate pair (touching, or core segments crossing) gets a zero row in
/// the Jacobian: its value still counts, its direction is unknown.
///
/// Which pairs. Every link shape against every world shape, and the shapes
/// of the link pairs in `self_pairs` (each link pair stands for all the
/// shape pairs between the two links), usually the enabled pairs of a
/// self-collision matrix (self_collision_matrix.h).
///
/// Soft form (inequality_goal.h): P = ½ w Σ_k max(0, c_k)².
///
/// Hand-placed capsules. Bodies and obstacles need not come from a model
/// file: CapsuleOnLink and CapsuleObstacle place a capsule (a sphere when
/// its two ends coincide) around a segment [a, b], FitChainCapsules fits one
/// along each link of a chain, and LinkPairsApart lists the link pairs more
/// than a given number of links apart as self pairs. Capsule pairs take the
/// closed form, so such a goal costs a few dozen flops per pair.
///
/// Thread safety: the shapes are prepared once (PreparedShape); evaluation
/// reads them and the FK data only.

#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "constraints/inequality_goal.h"
#include "constraints/shape_distance.h"
#include "framework/collision_geometry.h"

namespace iklab {

/// A shape fixed in the world (an obstacle): frame G at X_WG.
struct WorldShape {
  std::string name;
  Eigen::Isometry3d X_WG = Eigen::Isometry3d::Identity();
  CollisionShape shape;
};

/// Minimum-distance inequalities for shapes from model files (file comment).
/// Error(): position = largest violation max(0, c_k), length units.
class ShapeCollisionGoal final : public InequalityGoal {
 public:
  /// One checked pair: link shape `first` and link shape `second` (self) or
  /// world shape `second` (when `obstacle`).
  struct Pair {
    int first = 0;
    int second = 0;
    bool obstacle = false;
  };

  /// @param bodies the link shapes (LoadUrdfCollision, MjcfCollisionShapes).
  /// @param obstacles world shapes.
  /// @param self_pairs link pairs (names, either order) whose shapes are
  ///   checked against each other.
  /// @param margin required clearance, ≥ 0, length units.
  /// @throws std::invalid_argument for an unknown link (in bodies or
  ///   self_pairs), an invalid shape (its name), a negative or non-finite
  ///   margin or obstacle pose, or nothing to check.
  ShapeCollisionGoal(const Model& model, std::vector<LinkShape> bodies,
                     std::vector<WorldShape> obstacles,
                     const std::vector<std::pair<std::string, std::string>>&
                         self_pairs,
                     double margin = 0.0, double weight = 1.0);

  const std::vector<Pair>& pairs() const { return pairs_; }
  const std::vector<LinkShape>& bodies() const { return bodies_; }
  const std::vector<WorldShape>& obstacles() const { return obstacles_; }
  double margin() const { return margin_; }
  /// "link shape name / other shape name" of pair k, for messages.
  std::string PairName(int k) const;

  /// Signed distance d_k of every pair at the pose in `data`, pairs() order.
  Eigen::VectorXd Distances(const Model& model, const Data& data) const;

  /// Parameters(): margin. Quantities(): min_distance = the smallest d_k,
  /// ≥ margin.
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

  std::vector<LinkShape> bodies_;
  std::vector<PreparedShape> prepared_bodies_;
  std::vector<int> body_steps_;
  std::vector<WorldShape> obstacles_;
  std::vector<PreparedShape> prepared_obstacles_;
  std::vector<Pair> pairs_;
  double margin_;
  int num_steps_;
};

/// A capsule of `radius` around the segment [a, b] given in the link's frame
/// (a sphere at a when a == b): frame G at the segment's midpoint, z along
/// b − a, half length ‖b − a‖ / 2. `name` ("" : "<link>/capsule").
/// @throws std::invalid_argument naming the link for non-finite ends or a
///   radius that is not finite and > 0.
LinkShape CapsuleOnLink(const std::string& link, const Eigen::Vector3d& a,
                        const Eigen::Vector3d& b, double radius,
                        const std::string& name = "");

/// The same in the world: an obstacle named `name`.
WorldShape CapsuleObstacle(const std::string& name, const Eigen::Vector3d& a,
                           const Eigen::Vector3d& b, double radius);

/// A sphere obstacle.
WorldShape SphereObstacle(const std::string& name,
                          const Eigen::Vector3d& center, double radius);

/// Capsules fitted along the links of a chain: for each listed link, a
/// capsule of `radius` from the link's origin to the origin of its child
/// link (the next listed link), in the link's frame; the last link gets a
/// sphere at its origin. The child's origin is taken at q = 0, which is exact
/// for revolute joints (they rotate about the child's origin).
/// @throws std::invalid_argument for an unknown link, no link, or a radius
///   that is not finite and > 0.
std::vector<LinkShape> FitChainCapsules(const Model& model,
                                        const std::vector<std::string>& links,
                                        double radius);

/// Self pairs by distance along the tree: the pairs of distinct links
/// carrying shapes in `bodies` that are more than `skip_neighbors` links
/// apart (parent/child = 1; neighbours touch at their joint by
/// construction), except the `allowed` pairs (either order), in body order.
/// @throws std::invalid_argument for an unknown link or skip_neighbors < 0.
std::vector<std::pair<std::string, std::string>> LinkPairsApart(
    const Model& model, const std::vector<LinkShape>& bodies,
    int skip_neighbors,
    const std::vector<std::pair<std::string, std::string>>& allowed = {});

/// Every shape pair of `self_pairs` and of bodies × obstacles, in the order
/// ShapeCollisionGoal checks them (exposed for counting and tests).
/// @throws std::invalid_argument as ShapeCollisionGoal.
std::vector<ShapeCollisionGoal::Pair> ShapeCollisionPairs(
    const Model& model, const std::vector<LinkShape>& bodies,
    int num_obstacles,
    const std::vector<std::pair<std::string, std::string>>& self_pairs);

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_SHAPE_COLLISION_H_
