#ifndef IKLAB_CLI_RETARGET_COMMAND_H_
#define IKLAB_CLI_RETARGET_COMMAND_H_

/// @file
/// `iklab retarget`: a user's own motion file, retargeted onto another figure
/// (lab/motion_retargeting.h) or, with --effectors, by effector positions
/// alone (lab/retargeting.h).
///
///     iklab retarget --bvh walk.bvh [--onto tall.bvh | --onto human[:H] |
///                                    --onto robot.urdf | --onto robot.xml]
///                    [--map FILE] [--contacts off|penalty|hard]
///                    [--contact-height H] [--contact-speed V]
///                    [--posture-weight W] [--smoothness-weight W]
///                    [--self-collision off|penalty|hard]
///                    [--self-collision-weight W] [--branch-check E]
///                    [--effectors a,b,...] [--solver NAME] [--frames N]
///                    [--tolerance T] [--out DIR]
///
/// Key-point retargeting (the default): the map's key points (--map FILE;
/// default the built-in human map for --onto human, else every site the two
/// skeletons share by name) scaled per segment, the source's posture,
/// contacts, smoothness and the target's limits, solved frame by frame on
/// the `--onto` figure (default: the clip's own skeleton). With --effectors:
/// only those sites' positions, on a skeleton with the clip's joint names
/// (the older method, kept for comparison). Writes DIR/frames.csv (per frame:
/// largest and mean key-point error, microseconds, iterations, converged,
/// status, contact flags), DIR/joints.csv (the target's coordinates per
/// frame), DIR/metrics.json and DIR/metrics.csv (lab/retarget_metrics.h),
/// DIR/retargeted.bvh for a BVH target, DIR/robot_trajectory.csv for a robot
/// (lab/robot_target.h: the floating base as position and quaternion) and
/// DIR/mujoco_keyframes.xml for an MJCF robot, and prints a summary. A
/// robot's self-collision matrix is computed once (its collision shapes
/// give the self-penetration metric, "n/a" for skeletons without them);
/// --self-collision adds its enabled pairs to every frame's solve.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace iklab {

struct RetargetCommandOptions {
  /// The motion (BVH file).
  std::string bvh;
  /// The figure to solve on: a BVH file (its motion is ignored), a robot
  /// (a .urdf or MJCF .xml file, LoadRobotTarget: floating root), or
  /// "human" / "human:H" (HumanFigure of body height H metres, default
  /// 1.75, floating root). Empty: the motion's own skeleton.
  std::string onto;
  /// A retarget map file (lab/retarget_map.h). Empty: HumanoidMap() onto
  /// the human figure, the data folder's retarget/bvh_onto_h1.map onto a
  /// robot named unitree_h1 (other robots need one), MapByName() otherwise.
  std::string map;
  /// "off", "penalty" or "hard" (key-point retargeting only).
  std::string contacts = "penalty";
  /// Contact thresholds (ContactOptions), leg lengths and leg lengths per s.
  double contact_height = 0.05;
  double contact_speed = 0.3;
  /// MotionRetargetOptions::orientation_weight and smoothness_weight.
  double posture_weight = 0.05;
  double smoothness_weight = 0.001;
  /// MotionRetargetOptions::self_collision ("off", "penalty", "hard"; a
  /// robot target only) and self_collision_weight.
  std::string self_collision = "off";
  double self_collision_weight = 100.0;
  /// MotionRetargetOptions::branch_check_error (leg lengths; 0: off).
  double branch_check = 0.1;
  /// Effector sites (joint names or "<joint>_End") of effector-only
  /// retargeting. Empty: key-point retargeting.
  std::vector<std::string> effectors;
  std::string solver = "bounded-lm";
  /// Solve the first `frames` frames; 0: all.
  int frames = 0;
  /// Convergence: every effector within this distance (file length units).
  double tolerance = 1e-4;
  std::string out_dir = "retarget-out";
};

/// Declares the options of `retarget` on `command`.
void AddRetargetOptions(CLI::App* command, RetargetCommandOptions* options);

/// Runs the retargeting; returns the exit code: 0 ran (how well each frame
/// converged is a result, in frames.csv), 2 bad input (a malformed BVH or
/// map file, an unknown site or effector, contacts "hard" with a solver
/// that takes no hard constraints, an output folder that cannot be
/// written), with one line on stderr naming the file (and line) and the
/// problem.
int RunRetargetCommand(const RetargetCommandOptions& options);

}  // namespace iklab

#endif  // IKLAB_CLI_RETARGET_COMMAND_H_
