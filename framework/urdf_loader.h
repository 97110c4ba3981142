#ifndef IKLAB_FRAMEWORK_URDF_LOADER_H_
#define IKLAB_FRAMEWORK_URDF_LOADER_H_

/// @file
/// Figures from URDF robot descriptions (parsed with Debian's urdfdom).
///
///     UrdfFigure panda = LoadUrdfChain("panda.urdf", "panda_link0",
///                                      "panda_hand");
///     Model model = panda.figure.Compile();   // 7 revolute coordinates
///     int hand = model.SiteIndex("panda_hand");
///
/// How URDF maps onto a Figure. A URDF joint places its child link at
/// `origin` (xyz, then rpy = fixed-axis roll about x, pitch about y, yaw
/// about z, i.e. R = Rz(yaw) Ry(pitch) Rx(roll)) in the parent link frame and
/// moves it about/along `axis` in that joint frame; this is exactly Joint's
/// X_PJ followed by A(q), so link frames are the URDF link frames.
///
/// | URDF type  | Figure joint                                              |
/// |------------|-----------------------------------------------------------|
/// | revolute   | kRevolute, limits [lower, upper] from `<limit>`           |
/// | continuous | kRevolute, no limits (±infinity), whatever `<limit>` says |
/// | prismatic  | kPrismatic, limits [lower, upper]                         |
/// | fixed      | kFixed                                                    |
/// | floating   | kFloating: coordinates tx, ty, tz, rz, ry, rx, no limits  |
/// | planar     | rejected (std::invalid_argument)                          |
///
/// Axes are normalized (URDF allows any non-zero length); a zero or
/// non-finite axis is an error naming the joint. Missing `lower`/`upper`
/// attributes are 0, as the URDF specification says. Dynamics, inertia and
/// geometry are ignored.
///
/// Soft limits. A `<safety_controller soft_lower_limit=...
/// soft_upper_limit=...>` marks the range a controller keeps the joint in.
/// MoveIt and TRAC-IK narrow `<limit>` to it (lower = max(lower,
/// soft_lower_limit), upper = min(upper, soft_upper_limit)), so an IK answer
/// outside it is one their users' controllers refuse; by default iklab does the
/// same (UrdfSoftLimits::kNarrow). Only attributes actually written count (a
/// `<safety_controller k_velocity="10"/>` alone narrows nothing; urdfdom would
/// read the absent attributes as 0). Continuous joints stay unbounded.
/// UrdfSoftLimits::kIgnore keeps the hard `<limit>` range.
///
/// Mimic joints (`<mimic joint=... multiplier=... offset=...>`) are by default
/// enforced (UrdfMimicPolicy::kEnforce): the figure declares
/// q_joint = multiplier * q_leader + offset (Figure::AddMimic), so the
/// compiled Model has no coordinate for the mimic joint and places it from
/// its leader (model.h). The leader must be in the loaded figure (in chain
/// mode: on the path base → tip). Each relation is also listed in
/// UrdfFigure::mimics. kIndependent keeps the mimic joints as independent
/// coordinates (the caller imposes the relation itself, or not); kReject
/// refuses them.
///
/// Whole tree or chain. By default the whole tree is loaded, rooted at the
/// URDF root link. With a base and a tip link (LoadUrdfChain, or
/// UrdfOptions::base_link/tip_link) the figure holds only the links on the
/// path base → tip and the joints between them (fixed ones included, so the
/// tip pose is exact); every other joint and link is dropped, so nq counts
/// exactly the movable joints on the path. The base must be an ancestor of
/// the tip.
///
/// Errors. Every failure throws std::invalid_argument whose message starts
/// with the file name (or the source name given for a string) and, when one
/// is known, the line: "ur5.urdf:120: joint 'elbow_joint': ...". Malformed
/// XML is found by a TinyXML pre-parse, which reports the line; urdfdom's own
/// complaints (it logs them through console_bridge) are captured and quoted,
/// with the line of the joint or link they name. Two kinds of file are
/// refused before urdfdom sees them, as it would mishandle them: a cycle of
/// joints (urdfdom leaks the links on it), and a '%' in any attribute value
/// but a mesh or texture file name (urdfdom hands some messages built from
/// the file's text to printf as the format; "%n" crashes it).
///
/// Thread safety: loading is safe from several threads, but calls into
/// urdfdom are serialized, and while one runs console_bridge's output handler
/// is temporarily replaced process-wide (its messages are captured, not
/// printed).

#include <string>
#include <vector>

#include "framework/figure.h"

namespace iklab {

/// What to do with URDF mimic joints.
enum class UrdfMimicPolicy {
  /// Declare each relation on the figure (Figure::AddMimic): the mimic joint
  /// follows its leader and is not a free coordinate. An error names the
  /// file, line and joint when the leader is not in the loaded figure, when
  /// the relations form a cycle, or when the multiplier is zero or not
  /// finite.
  kEnforce,
  /// Keep each mimic joint as an independent coordinate and list the relation
  /// in UrdfFigure::mimics.
  kIndependent,
  /// Throw std::invalid_argument naming the first mimic joint in the figure.
  kReject,
};

/// Which position limits a URDF joint gets (see the file comment).
enum class UrdfSoftLimits {
  /// `<limit>` narrowed to `<safety_controller>` soft limits where the file
  /// gives them: the convention of MoveIt and TRAC-IK.
  kNarrow,
  /// `<limit>` only (the hard limits).
  kIgnore,
};

/// "soft" for kNarrow, "hard" for kIgnore (for reports).
const char* UrdfSoftLimitsName(UrdfSoftLimits policy);

/// Options of the URDF loaders. The defaults load the whole tree with a site
/// on every link.
struct UrdfOptions {
  /// Chain mode: when both are set, keep only the path from `base_link` (the
  /// figure's root) down to `tip_link`. Both empty: the whole tree. Setting
  /// only one is an error.
  std::string base_link;
  std::string tip_link;
  /// Links that get a site of the same name (identity X_LS). Empty: every
  /// link of the loaded figure. In chain mode the tip always gets one. A name
  /// that is not a link of the loaded figure is an error.
  std::vector<std::string> site_links;
  UrdfMimicPolicy mimic = UrdfMimicPolicy::kEnforce;
  /// Soft limits narrow `<limit>` by default, as MoveIt and TRAC-IK do.
  UrdfSoftLimits soft_limits = UrdfSoftLimits::kNarrow;
};

/// A mimic relation found in the file: q[joint] = multiplier * q[leader] +
/// offset. Only listed for mimic joints that are in the loaded figure (with
/// kIndependent the leader may have been dropped in chain mode).
struct UrdfMimic {
  std::string joint;
  std::string leader;
  double multiplier = 1.0;
  double offset = 0.0;
};

/// A loaded URDF: the figure and what the Figure itself cannot say.
struct UrdfFigure {
  Figure figure;
  /// The `<robot name=...>` attribute.
  std::string robot_name;
  /// The file path (or source name) the figure came from.
  std::string source;
  std::vector<UrdfMimic> mimics;
  /// Joints of the file left out of the figure (chain mode), in file order.
  std::vector<std::string> dropped_joints;
  /// Joints of the figure whose limits `<safety_controller>` soft limits
  /// narrowed (UrdfSoftLimits::kNarrow), in file order.
  std::vector<std::string> soft_limited_joints;
};

/// Loads a URDF file.
/// @param path file to read.
/// @throws std::invalid_argument if the file cannot be read, is not
///   well-formed XML, is not a valid URDF tree, or uses something the
///   mapping above rejects; the message starts with "path:line: " or "path: ".
UrdfFigure LoadUrdf(const std::string& path, const UrdfOptions& options = {});

/// Loads the chain base_link → tip_link of a URDF file (see the file comment).
/// Shorthand for LoadUrdf with options.base_link/tip_link set.
/// @throws std::invalid_argument as LoadUrdf, and if either link is unknown
///   or base_link is not an ancestor of tip_link.
UrdfFigure LoadUrdfChain(const std::string& path, const std::string& base_link,
                         const std::string& tip_link, UrdfOptions options = {});

/// Loads URDF text held in memory (tests, fuzzing, generated models).
/// @param xml the URDF document.
/// @param source_name used in place of a file name in messages.
/// @throws std::invalid_argument as LoadUrdf.
UrdfFigure LoadUrdfFromString(const std::string& xml,
                              const std::string& source_name = "<string>",
                              const UrdfOptions& options = {});

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_URDF_LOADER_H_
