#ifndef IKLAB_FRAMEWORK_BVH_LOADER_H_
#define IKLAB_FRAMEWORK_BVH_LOADER_H_

/// @file
/// Figures and motions from BVH motion-capture files (a hand-written reader:
/// Debian packages no BVH library).
///
///     BvhFigure walk = LoadBvh("cmu_131_01_start_walk_stop.bvh");
///     Model model = walk.figure.Compile();
///     Data data(model);
///     ForwardKinematics(model, walk.poses.row(100).transpose(), &data);
///     Eigen::Vector3d p = SitePosition(model, data,
///                                      model.SiteIndex("LeftWrist"));
///
/// BVH semantics. The world pose of a joint is
///
///     X_W(joint) = X_W(parent) * Translate(OFFSET + p) * R_1 * ... * R_k
///
/// where p = (Xposition, Yposition, Zposition) collects the joint's position
/// channels (0 for absent ones; usually only the root has them) and R_i is
/// Rot(axis, value) for its i-th rotation channel in the order the CHANNELS
/// line lists them (intrinsic rotations, left to right). Position channels
/// translate in the parent frame wherever they appear in the list, as common
/// BVH readers do. For the usual root "Xposition Yposition Zposition
/// Zrotation Yrotation Xrotation" this is Translate(OFFSET + p) * Rz * Ry *
/// Rx. An End Site is a point at its OFFSET in its parent joint's frame.
///
/// How a BVH joint becomes Figure joints. Each BVH joint is a link of the same
/// name, attached by joint(s) with one coordinate per channel:
///
/// - no channels: kFixed;
/// - Xposition Yposition Zposition and Zrotation Yrotation Xrotation, each
///   group in that order (the usual root): kFloating (tx ty tz rz ry rx);
/// - three rotations in any order: kSpherical, spherical_axes in channel
///   order;
/// - one rotation / one position: kRevolute / kPrismatic;
/// - anything else: prismatic joints for the position channels, then revolute
///   joints for the rotation channels, each group in file order, named
///   "<joint>.<Channel>" and linked through links of the same names.
///
/// The joint (the first one, in the last case) carries X_PJ =
/// Translate(OFFSET); except in the last case it has the BVH joint's name.
/// ROOTs hang from an extra root link, "world" (with '_' appended while that
/// name is taken). There are no joint limits. Sites: one per BVH joint (named
/// like it, at its origin) and one per End Site, named "<parent joint>_End"
/// ("_End2", ... for more), at the End Site's offset.
///
/// Coordinates. BvhFigure::channels[c].q_index is the coordinate of
/// figure.Compile() that channel c (the c-th value of a frame line) drives.
/// For files whose joints list positions before rotations (all the usual
/// ones) it is the identity, q_index == c.
///
/// Units: rotation channels are degrees in the file and radians in `poses`;
/// lengths stay in file units (CMU files: 1 unit = 0.0564 m).
///
/// Errors: malformed input throws std::invalid_argument "file:line: what"
/// (missing or extra braces, unknown keywords or channel names, a CHANNELS
/// count that does not match the names, duplicate channels in one joint,
/// non-numbers, NaN/Inf, a frame line with the wrong number of values, fewer
/// or more frame lines than `Frames:` declares, a truncated file). Line
/// endings may be LF, CRLF, CR or mixed.

#include <string>
#include <vector>

#include <Eigen/Core>

#include "framework/figure.h"

namespace iklab {

/// The six BVH channel kinds.
enum class BvhChannelType {
  kXposition,
  kYposition,
  kZposition,
  kXrotation,
  kYrotation,
  kZrotation,
};

/// "Xposition", ..., "Zrotation".
const char* BvhChannelName(BvhChannelType type);

/// One channel of the file, in file order (the order of the values on every
/// frame line).
struct BvhChannel {
  /// Index of the BVH joint in BvhFigure::joints.
  int joint = -1;
  BvhChannelType type = BvhChannelType::kXrotation;
  /// The coordinate of `figure.Compile()` this channel drives.
  int q_index = -1;
};

/// A BVH joint (ROOT or JOINT) as the file declares it.
struct BvhJoint {
  std::string name;
  /// Index of the parent in BvhFigure::joints; -1 for a ROOT.
  int parent = -1;
  Eigen::Vector3d offset = Eigen::Vector3d::Zero();
  /// Index of its first channel in BvhFigure::channels and their number.
  int first_channel = 0;
  int num_channels = 0;
  /// Offsets of its End Sites (usually zero or one).
  std::vector<Eigen::Vector3d> end_sites;
  /// Line of its ROOT/JOINT keyword.
  int line = 0;
};

/// A loaded BVH file: the skeleton as a Figure and the motion as poses.
struct BvhFigure {
  Figure figure;
  /// The file path (or source name) it came from.
  std::string source;
  /// The figure's root link (see the file comment).
  std::string root_link;
  /// Joints in file order (depth-first; parents before children).
  std::vector<BvhJoint> joints;
  /// Channels in file order; channels[c].q_index maps value c of a frame line
  /// to a coordinate.
  std::vector<BvhChannel> channels;
  /// Seconds per frame ("Frame Time:").
  double frame_time = 0.0;
  /// One row per frame, one column per coordinate of figure.Compile()
  /// (frames × nq): radians and file length units.
  Eigen::MatrixXd poses;

  int num_frames() const { return static_cast<int>(poses.rows()); }
};

/// Reads a BVH file.
/// @throws std::invalid_argument "path:line: what" for malformed input, or
///   "path: cannot open ..." if the file cannot be read.
BvhFigure LoadBvh(const std::string& path);

/// Reads BVH text held in memory (tests, fuzzing).
/// @param source_name used in place of a file name in messages.
/// @throws std::invalid_argument as LoadBvh.
BvhFigure LoadBvhFromString(const std::string& text,
                            const std::string& source_name = "<string>");

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_BVH_LOADER_H_
