#ifndef IKLAB_LAB_COLLISION_FILES_H_
#define IKLAB_LAB_COLLISION_FILES_H_

/// @file
/// Collision files (their formats are documented here; docs/cli.md
/// `--collisions` and docs/goals.md `CollisionFree` use them): obstacle lists
/// and stored self-collision matrices, both JSON, and the `--collisions` setting of
/// `iklab bench` and `iklab reach`.
///
/// Obstacle file: a JSON list of primitives, each with a frame:
///
///     [{"name": "table", "type": "box", "half_extents": [0.4, 0.6, 0.02],
///       "position": [0.6, 0, 0.2], "quaternion": [1, 0, 0, 0]},
///      {"type": "sphere", "radius": 0.1, "position": [0.4, 0.3, 0.5]},
///      {"type": "capsule", "radius": 0.05, "half_length": 0.2,
///       "position": [0.5, -0.3, 0.4]},
///      {"type": "cylinder", "radius": 0.05, "half_length": 0.3,
///       "position": [0.3, 0, 0.3]},
///      {"type": "mesh", "file": "rock.stl", "scale": [1, 1, 1],
///       "position": [1, 0, 0]}]
///
/// in the model's root frame (metres for URDFs); "quaternion" (w, x, y, z,
/// unit length within 1e-6) is optional (identity); "name" is optional
/// ("obstacle<k>"); capsules and cylinders lie along their frame's z axis,
/// centred; "mesh" files (STL, OBJ) are relative to the obstacle file's
/// folder and become their convex hull. Any other key is an error (a typo
/// must not pass silently).
///
/// Self-collision matrix file:
///
///     {"format": "iklab-self-collision-matrix", "version": 1,
///      "samples": 10000, "seed": 1, "contact_distance": 0,
///      "pairs": [{"first": "panda_link0", "second": "panda_link1",
///                 "reason": "adjacent", "collisions": 0}, ...]}

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "constraints/self_collision_matrix.h"
#include "constraints/shape_collision.h"
#include "framework/collision_geometry.h"

namespace iklab {

/// Reads an obstacle file.
/// @throws std::invalid_argument naming the file, the element (index and
///   name) and what to fix: not JSON, not a list, an unknown type or key, a
///   missing field, NaN/inf, a negative or zero size, a quaternion that is
///   not unit length, a missing or empty mesh.
std::vector<WorldShape> ReadObstacleFile(const std::string& path);

/// As ReadObstacleFile for text; meshes relative to `folder`.
std::vector<WorldShape> ParseObstacles(const std::string& text,
                                       const std::string& source,
                                       const std::string& folder = ".");

/// The matrix as JSON text (the file format above).
std::string SelfCollisionMatrixToJson(const SelfCollisionMatrix& matrix);

/// Parses the file format above.
/// @throws std::invalid_argument naming `source` and the faulty field.
SelfCollisionMatrix SelfCollisionMatrixFromJson(const std::string& text,
                                                const std::string& source);

/// Writes / reads a matrix file.
/// @throws std::invalid_argument naming the path on failure.
void WriteSelfCollisionMatrix(const SelfCollisionMatrix& matrix,
                              const std::string& path);
SelfCollisionMatrix ReadSelfCollisionMatrix(const std::string& path);

/// The `--collisions` setting: "self", "OBSTACLES.json" or
/// "self,OBSTACLES.json" (either order); empty: none.
struct CollisionSetting {
  bool self = false;
  std::string obstacle_file;
  /// `--collision-matrix FILE`: the self-collision matrix is read from this
  /// file (written by `--write-collision-matrix`) instead of computed;
  /// empty: computed. Needs `self`.
  std::string matrix_file;
  bool any() const { return self || !obstacle_file.empty(); }
};

/// Parses a `--collisions` value.
/// @throws std::invalid_argument naming the value and the accepted forms.
CollisionSetting ParseCollisionSetting(const std::string& text);

/// Everything a collision-aware solve of one model needs: the link shapes,
/// the self-collision matrix (when self), the obstacles and the checked
/// link pairs.
struct CollisionSetup {
  std::vector<LinkShape> shapes;
  SelfCollisionMatrix matrix;
  std::vector<WorldShape> obstacles;
  std::vector<std::pair<std::string, std::string>> self_pairs;

  /// A goal over these shapes (margin 0).
  std::shared_ptr<ShapeCollisionGoal> MakeGoal(const Model& model,
                                               double weight = 1.0) const;
};

/// Builds the setup: shapes from the robot file (URDF `<collision>` or, when
/// `mjcf` is set, its geoms), the matrix (when setting.self) read from
/// setting.matrix_file or else computed with `matrix_options`, obstacles
/// read from setting.obstacle_file.
/// @throws std::invalid_argument for a robot without collision shapes (the
///   file named), a matrix file without `self`, a matrix file for another
///   model or other shapes (CheckSelfCollisionMatrix: the file and the link
///   or pair named), and as the readers.
CollisionSetup MakeCollisionSetup(
    const CollisionSetting& setting, const Model& model,
    const std::string& robot_file, bool mjcf,
    const SelfCollisionMatrixOptions& matrix_options = {});

/// The collision setup of `robot_file` for `model`, made once per process
/// and shared: a second call with the same file (path and modification
/// time), the same links in `model`, the same setting and matrix options
/// returns the same object, so a study's trials and several studies on one
/// robot compute the self-collision matrix once. With `matrix_file`
/// non-empty and setting.self, the matrix is read from that file (as
/// WriteSelfCollisionMatrix writes it) and checked against the model and
/// shapes instead of computed.
/// Thread-safe.
/// @throws std::invalid_argument as MakeCollisionSetup, ReadSelfCollisionMatrix
///   and CheckSelfCollisionMatrix.
std::shared_ptr<const CollisionSetup> RobotCollisions(
    const Model& model, const std::string& robot_file,
    const CollisionSetting& setting, bool mjcf = false,
    const SelfCollisionMatrixOptions& matrix_options = {},
    const std::string& matrix_file = "");

/// The smallest signed distance over the setup's checked pairs (self pairs
/// and shapes × obstacles) at q, computed with FCL for every pair
/// (ComputeShapeDistanceFcl), independently of ShapeCollisionGoal's closed
/// forms; +∞ when nothing is checked.
/// @throws std::invalid_argument for q of the wrong size.
double MinDistanceFcl(const Model& model, const CollisionSetup& setup,
                      const Eigen::VectorXd& q);

/// The same from the world poses of the model's steps (e.g. a reference FK
/// computed independently of ForwardKinematics, as the benchmark's check
/// does); `step_poses` has one pose per step.
double MinDistanceFcl(const Model& model, const CollisionSetup& setup,
                      const AlignedVector<Eigen::Isometry3d>& step_poses);

}  // namespace iklab

#endif  // IKLAB_LAB_COLLISION_FILES_H_
