#ifndef IKLAB_CONSTRAINTS_SELF_COLLISION_MATRIX_H_
#define IKLAB_CONSTRAINTS_SELF_COLLISION_MATRIX_H_

/// @file
/// Which link pairs need a self-collision check, computed as MoveIt's setup
/// assistant does it (moveit_setup_assistant's compute_default_collisions:
/// the SRDF `<disable_collisions reason="Adjacent|Default|Always|Never">`).
/// Over the links that carry collision shapes, each pair is decided by the
/// first rule that applies:
///
///  1. kAdjacent: one link is the other's parent in the tree of links with
///     shapes (a link without shapes is skipped through, as MoveIt does), so
///     they touch at their joint by construction.
///  2. kDefault: they collide in the default configuration.
///  3. kAlways: they collide in every one of the N sampled configurations.
///  4. kNever: they collide in none of the N sampled configurations.
///  5. kEnabled: otherwise; only these pairs are checked during a solve.
///
/// "Collide" means a signed distance below `contact_distance` for some shape
/// pair of the two links (shape_distance.h; 0: touching or penetrating).
/// The samples are RandomConfiguration draws within the joint limits from
/// one std::mt19937_64 seeded with `seed`, so the matrix is a function of the
/// model, the shapes and the options. MoveIt's default is N = 10000 (its
/// "sampling density"), kept here; "never in N samples" is a statistical
/// verdict, not a proof: a pair that collides in a small part of the
/// configuration space can be missed, which is why MoveIt asks for many
/// samples. MoveIt calls a pair "always" at 95 % of its samples; here it is
/// every sample, as stated.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "framework/collision_geometry.h"
#include "framework/model.h"

namespace iklab {

/// Why a link pair is or is not checked (file comment).
enum class CollisionPairReason { kEnabled, kAdjacent, kDefault, kAlways, kNever };

/// "enabled", "adjacent", "default", "always", "never".
const char* CollisionPairReasonName(CollisionPairReason reason);
/// The inverse of CollisionPairReasonName.
/// @throws std::invalid_argument naming `name` and the five choices.
CollisionPairReason CollisionPairReasonFromName(const std::string& name);

/// Options of ComputeSelfCollisionMatrix.
struct SelfCollisionMatrixOptions {
  /// Sampled configurations N, ≥ 1 (MoveIt's default density).
  int samples = 10000;
  /// Seed of the samples.
  std::uint64_t seed = 1;
  /// The default configuration (rule 2), nq entries; empty: q = 0 moved
  /// into the limits (each coordinate clamped to [lower, upper]).
  Eigen::VectorXd default_configuration;
  /// Two shapes collide when their signed distance is below this (length
  /// units; 0: touching or overlapping). Finite.
  double contact_distance = 0.0;

  /// True if the fields are in range; otherwise says which in `why`.
  bool IsValid(std::string* why) const;
};

/// One link pair (first before second in the model's link order).
struct LinkPairEntry {
  std::string first;
  std::string second;
  CollisionPairReason reason = CollisionPairReason::kEnabled;
  /// Sampled configurations in which the pair collided (0 for adjacent and
  /// default pairs, which are not sampled).
  int collisions = 0;
};

/// The decided pairs and how they were decided.
struct SelfCollisionMatrix {
  int samples = 0;
  std::uint64_t seed = 0;
  double contact_distance = 0.0;
  /// Every pair of links with shapes, in model link order.
  std::vector<LinkPairEntry> pairs;

  /// The kEnabled pairs (for ShapeCollisionGoal's self_pairs).
  std::vector<std::pair<std::string, std::string>> EnabledPairs() const;
  /// The entry of link pair (a, b) in either order, or nullptr.
  const LinkPairEntry* Find(const std::string& a, const std::string& b) const;
  /// Pairs with this reason.
  int Count(CollisionPairReason reason) const;
};

/// Computes the matrix (file comment).
/// @throws std::invalid_argument for invalid options (the field named), a
///   default configuration of the wrong size, an unknown link in `shapes`,
///   or an invalid shape.
SelfCollisionMatrix ComputeSelfCollisionMatrix(
    const Model& model, const std::vector<LinkShape>& shapes,
    const SelfCollisionMatrixOptions& options = {});

/// Checks that every link named in `matrix` is a link of `model` and every
/// pair of links with shapes has an entry (a stored matrix still fits the
/// model and shapes it is used with).
/// @throws std::invalid_argument naming `source`, the link or the pair.
void CheckSelfCollisionMatrix(const SelfCollisionMatrix& matrix,
                              const Model& model,
                              const std::vector<LinkShape>& shapes,
                              const std::string& source);

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_SELF_COLLISION_MATRIX_H_
