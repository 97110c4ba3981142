#ifndef IKLAB_LAB_RETARGET_MAP_H_
#define IKLAB_LAB_RETARGET_MAP_H_

/// @file
/// Which point of the source skeleton drives which point of the target: the
/// correspondence of motion retargeting (lab/motion_retargeting.h). A map
/// pairs source sites with target sites (joint origins, End Sites, builder
/// sites), says which source points are feet (for contacts) and how the two
/// worlds' axes relate (BVH files are Y up, iklab's human figure Z up).
///
/// Three ways to get one:
///  - MapByName: every site the two skeletons share by name;
///  - HumanoidMap: the built-in map from the CMU / procedural-walk joint
///    names (Hips, LeftHip, LeftKnee, ...) onto HumanFigure's sites;
///  - a map file (LoadRetargetMap), one directive per line:
///
///        # comment (also after a directive)
///        source_axes +y +z       # the source's up and forward axes
///        target_axes +z +x       # the target's up and forward axes
///        pair Hips pelvis 1 1    # source site, target site,
///                                #   [position weight [orientation weight]]
///        pair LeftToe_End left_foot 1 0
///        foot LeftToe_End        # a source site of a pair that touches
///                                #   the ground
///        target_rest left_elbow_joint 1.46  # a target coordinate, radians
///                                #   (metres if prismatic), of the pose
///                                #   that corresponds to the source's rest
///
///    Axes are one of +x -x +y -y +z -z; up and forward must be
///    perpendicular. Defaults: both +y +z (the BVH convention). Weights are
///    finite and >= 0 (defaults 1 and 0: position only). A target_rest value
///    is finite, each coordinate named once (a coordinate of the target,
///    within its limits: CheckRetargetMap). Every error names the file and
///    line.
///
/// Rest poses. Posture goals and segment lengths compare the two skeletons
/// in their rest poses (lab/motion_retargeting.h): the source's is q = 0
/// (a BVH's OFFSETs); the target's is q = 0 except the coordinates the map
/// gives with target_rest (TargetRestPose). A robot whose q = 0 is not the
/// source's rest (the H1's forearms point forward at q = 0, a BVH's arms
/// hang) gets posture on those limbs only through target_rest.
///
/// The rotation R_TS taking source world vectors to target world vectors maps
/// the source's up onto the target's up and its forward onto the target's
/// forward (and up × forward onto up × forward).

#include <string>
#include <vector>

#include <Eigen/Core>

#include "framework/model.h"

namespace iklab {

/// One correspondence: the source site drives the target site.
struct RetargetPair {
  std::string source;
  std::string target;
  /// Weight of the position (key point) goal, >= 0.
  double position_weight = 1.0;
  /// Weight of the orientation (posture) goal, >= 0; 0: none. Give it only
  /// where the two sites sit on the same body segment (e.g. the shank for
  /// BVH "LeftKnee" and HumanFigure "left_knee").
  double orientation_weight = 0.0;
  /// Line of the map file that declared it (0: not from a file).
  int line = 0;
};

/// One coordinate of the target's rest pose (see the file comment).
struct RetargetRestCoordinate {
  /// Name of a free coordinate of the target (Model::dof_name).
  std::string coordinate;
  /// Its value at the rest pose: radians, or metres if prismatic.
  double value = 0.0;
  /// Line of the map file that declared it (0: not from a file).
  int line = 0;
};

/// A source → target correspondence (see the file comment).
struct RetargetMap {
  std::vector<RetargetPair> pairs;
  /// Source sites (each the source of a pair) that touch the ground.
  std::vector<std::string> feet;
  /// Lines of the `foot` directives (0: not from a file).
  std::vector<int> foot_lines;
  /// The target's rest pose where it is not q = 0 (target_rest lines).
  std::vector<RetargetRestCoordinate> target_rest;
  /// Unit axes of each world (see the file comment).
  Eigen::Vector3d source_up = Eigen::Vector3d::UnitY();
  Eigen::Vector3d source_forward = Eigen::Vector3d::UnitZ();
  Eigen::Vector3d target_up = Eigen::Vector3d::UnitY();
  Eigen::Vector3d target_forward = Eigen::Vector3d::UnitZ();
  /// Where it came from: the file, or "built-in ..." (for messages).
  std::string origin;

  /// R_TS: source world vectors → target world vectors.
  Eigen::Matrix3d R_TS() const;
};

/// Parses map text (see the file comment).
/// @param origin the file name used in messages.
/// @throws std::invalid_argument "origin:line: what" for an unknown
///   directive, a wrong number of fields, a weight that is not a finite
///   number >= 0, an axis that is not one of +x ... -z, up not perpendicular
///   to forward, a source site paired twice, a foot that is not the source of
///   a pair, a target_rest line without one coordinate and one finite
///   number, a coordinate given twice, or a map without pairs
///   ("origin: ...").
RetargetMap ParseRetargetMap(const std::string& text,
                             const std::string& origin);

/// ParseRetargetMap of the file at `path`.
/// @throws std::invalid_argument as ParseRetargetMap, or "path: cannot
///   open ..." if it cannot be read.
RetargetMap LoadRetargetMap(const std::string& path);

/// Checks that every pair's source site is a site of `source` and its target
/// site a site of `target`, and that every target_rest coordinate is a
/// coordinate of `target` with its value within the coordinate's limits.
/// @throws std::invalid_argument "origin:line: source site 'X' is not a site
///   of the source skeleton; its sites are: ..." (or target);
///   "origin:line: target_rest: 'X' is not a coordinate of the target; its
///   coordinates are: ..."; "origin:line: target_rest: X = v is outside its
///   limits [lo, hi]".
void CheckRetargetMap(const RetargetMap& map, const Model& source,
                      const Model& target);

/// The target's rest pose: q = 0 with the map's target_rest coordinates set.
/// @throws std::invalid_argument as CheckRetargetMap for an unknown
///   coordinate or a value outside its limits.
Eigen::VectorXd TargetRestPose(const RetargetMap& map, const Model& target);

/// Every site of `source` that `target` has by the same name, position
/// weight 1 and orientation weight 1 for sites at a link's origin (0 for End
/// Sites and other offset sites); both worlds Y up, Z forward; feet: the
/// shared sites within 5% of the source's rest height (lowest to highest
/// shared site, along +Y) of the lowest one — a standing skeleton's toes,
/// heels and ankles.
/// @throws std::invalid_argument if no name is shared.
RetargetMap MapByName(const Model& source, const Model& target);

/// The built-in map from the joint names of the CMU 131 clips and the
/// procedural walk (lab/walk_cycle.h: Hips, LeftHip, LeftKnee, LeftAnkle,
/// LeftToe_End, Neck, Head_End, LeftShoulder, LeftElbow, LeftWrist,
/// LeftWrist_End and the right side) onto HumanFigure's sites (pelvis,
/// left_hip, left_knee, left_ankle, left_foot, neck, head, left_shoulder,
/// left_elbow, left_wrist, left_hand, ...). Source Y up, Z forward; target Z
/// up, X forward. Orientation weight 1 on the joint sites (the same body
/// segment in both), 0 on the End Sites; feet: both ankles and toe tips.
RetargetMap HumanoidMap();

}  // namespace iklab

#endif  // IKLAB_LAB_RETARGET_MAP_H_
