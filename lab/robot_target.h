#ifndef IKLAB_LAB_ROBOT_TARGET_H_
#define IKLAB_LAB_ROBOT_TARGET_H_

/// @file
/// A robot (URDF or MJCF) as the target of motion retargeting
/// (lab/motion_retargeting.h), and what a retargeted robot motion is written
/// as: a joint trajectory CSV and a MuJoCo keyframe file.
///
///     RobotTarget h1 = LoadRobotTarget("data/robots/h1.xml");
///     // h1.model: 6 floating-base coordinates + 19 joints
///     KeyPointTrack track = MakeKeyPointTrack(source, clip.poses, frames,
///                                             clip.frame_time,
///                                             LoadRetargetMap(map),
///                                             *h1.model);
///     MotionRetargetResult r = RetargetMotion(h1.model, track, solver,
///                                             options, zeros);
///     WriteRobotTrajectoryCsv(*h1.model, r.run.q, clip.frame_time, "t.csv");
///     WriteMujocoKeyframes(h1, r.run.q, clip.frame_time, "keys.xml");
///
/// Floating base. A humanoid's pelvis moves freely in the world: its root is
/// a 6-DOF joint (JointKind::kFloating, coordinates tx ty tz rz ry rx,
/// R = Rz(rz) Ry(ry) Rx(rx), the translation in world axes). An MJCF model
/// has one already when its root body carries a `<freejoint>` (the MJCF
/// loader maps it to kFloating); a URDF's root link is fixed in the world
/// (URDF has no free root), so LoadRobotTarget hangs the whole tree on a
/// floating joint "floating_base" from a new root link "world" (X_PJ the
/// identity: at q = 0 the URDF root link's frame is the world frame).

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/self_collision_matrix.h"
#include "framework/collision_geometry.h"
#include "framework/figure.h"
#include "framework/mjcf_loader.h"
#include "framework/model.h"

namespace iklab {

/// A robot loaded as a retarget target.
struct RobotTarget {
  std::shared_ptr<const Model> model;
  /// The file it came from.
  std::string path;
  /// `<robot name=...>` or `<mujoco model=...>`.
  std::string robot_name;
  /// The 6-DOF root joint's name ("floating_base" where LoadRobotTarget
  /// added it).
  std::string floating_joint;
  /// True for an MJCF file; `mjcf` then holds what MuJoCo compiled (joint
  /// order and qpos addresses for WriteMujocoKeyframes).
  bool from_mjcf = false;
  MjcfFigure mjcf;
  /// The robot's collision geometry (LoadUrdfCollision, or
  /// MjcfCollisionShapes of its colliding geoms) on the links of `model`;
  /// empty when the file has none.
  std::vector<LinkShape> collision_shapes;
};

/// True if `path` names a robot file: it ends in ".urdf" or ".xml" (MJCF).
bool IsRobotFile(const std::string& path);

/// `figure` with a floating root (see the file comment): the figure itself
/// when its root link's only joint is already floating, else a copy hung on
/// a kFloating joint `joint_name` from a new root link `root_name`; links,
/// joints (in depth-first order), sites and mimic relations are kept.
/// @throws std::invalid_argument if `root_name` or `joint_name` is already a
///   link or joint of the figure.
Figure WithFloatingBase(const Figure& figure,
                        const std::string& root_name = "world",
                        const std::string& joint_name = "floating_base");

/// Loads a URDF (LoadUrdf, a site on every link) or MJCF (LoadMjcf) file as
/// a retarget target with a floating root (WithFloatingBase), and its
/// collision shapes.
/// @throws std::invalid_argument "path: ..." if the name does not end in
///   .urdf or .xml, the loader refuses the file (its message), or the model
///   has no coordinates besides the floating base.
RobotTarget LoadRobotTarget(const std::string& path);

/// The self-collision matrix of the target's model and collision_shapes
/// (ComputeSelfCollisionMatrix with `options`), made once per process for
/// each robot file and options by RobotCollisions (lab/collision_files.h) and
/// shared: MotionRetargetOptions::self_collision_matrix takes it, so that
/// several retargets onto one robot compute it once. nullptr when the
/// target has no collision shapes.
/// @throws std::invalid_argument as RobotCollisions.
std::shared_ptr<const SelfCollisionMatrix> RobotSelfCollisionMatrix(
    const RobotTarget& target, const SelfCollisionMatrixOptions& options = {});

/// The header of WriteRobotTrajectoryCsv: "frame", "time", then per
/// floating joint J "J.x", "J.y", "J.z", "J.qw", "J.qx", "J.qy", "J.qz",
/// and per other coordinate its dof_name (a URDF/MJCF joint's name), in the
/// model's coordinate order.
std::vector<std::string> RobotTrajectoryColumns(const Model& model);

/// Writes a joint trajectory: one row per frame, the columns of
/// RobotTrajectoryColumns; positions in the model's length unit, angles in
/// radians, each floating joint's rotation as a unit quaternion w first
/// (the sign chosen so that consecutive rows lie in the same hemisphere, the
/// first with w >= 0).
/// @throws std::invalid_argument if a row has not model.nq() entries,
///   frame_time <= 0, or the file cannot be written.
void WriteRobotTrajectoryCsv(const Model& model,
                             const std::vector<Eigen::VectorXd>& q,
                             double frame_time, const std::string& path);

/// Writes a MuJoCo model file that includes the target's MJCF file (by its
/// path relative to the written file's folder, as MuJoCo resolves it) and adds
/// one `<key name="frameT" time="..." qpos="..."/>` per frame in MuJoCo's qpos
/// order (MjcfQToQpos): load it with mj_loadXML and set frame k with
/// mj_resetDataKeyframe(m, d, k).
/// @throws std::invalid_argument if the target is not from an MJCF file, a
///   row has not nq entries, frame_time <= 0, or the file cannot be written.
void WriteMujocoKeyframes(const RobotTarget& target,
                          const std::vector<Eigen::VectorXd>& q,
                          double frame_time, const std::string& path);

}  // namespace iklab

#endif  // IKLAB_LAB_ROBOT_TARGET_H_
