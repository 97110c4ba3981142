#ifndef IKLAB_FRAMEWORK_DENAVIT_HARTENBERG_H_
#define IKLAB_FRAMEWORK_DENAVIT_HARTENBERG_H_

/// @file
/// Serial chains from a Denavit–Hartenberg table (Parent §5.1.2, Appendix
/// B.4), the notation robotics papers use to describe physical arms.
///
/// Each row i = 1 … n relates frame i−1 to frame i by four numbers: the link
/// length a_i, the link twist α_i, the link offset d_i and the joint angle θ_i.
/// One of θ_i (revolute) or d_i (prismatic) is the joint variable.
///
/// Classic (distal, Denavit & Hartenberg 1955; Parent B.4) convention:
///
///     T_i = Rot_z(θ_i) · Trans_z(d_i) · Trans_x(a_i) · Rot_x(α_i)
///
/// Joint i moves about/along z_{i−1}, the z axis of the *previous* frame.
///
/// Modified (proximal, Craig 1986) convention, with the row holding
/// (a_{i−1}, α_{i−1}, d_i, θ_i):
///
///     T_i = Rot_x(α_{i−1}) · Trans_x(a_{i−1}) · Rot_z(θ_i) · Trans_z(d_i)
///
/// Joint i moves about/along z_i, the z axis of its own frame.
///
/// In both, X_W(frame n) = X_base · T_1 ⋯ T_n and the tool is X_W(frame n) ·
/// X_tool. The coordinate q_i is measured from the table's value:
/// θ_i = theta + q_i for a revolute row, d_i = d + q_i for a prismatic row, so
/// q = 0 is the configuration the table describes.

#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "framework/figure.h"
#include "framework/joint.h"

namespace iklab {

/// Which of the two DH conventions a table uses.
enum class DhConvention {
  kClassic,   ///< Rot_z(θ) Trans_z(d) Trans_x(a) Rot_x(α) (distal frames).
  kModified,  ///< Rot_x(α) Trans_x(a) Rot_z(θ) Trans_z(d) (Craig, proximal).
};

/// One row of a DH table. Angles in radians, lengths in the model's units.
struct DhRow {
  /// kRevolute (θ is the variable) or kPrismatic (d is the variable).
  JointKind kind = JointKind::kRevolute;
  double a = 0.0;      ///< Link length (along x).
  double alpha = 0.0;  ///< Link twist (about x).
  double d = 0.0;      ///< Link offset (along z); the offset of q if prismatic.
  double theta = 0.0;  ///< Joint angle (about z); the offset of q if revolute.
  /// Limits of q (not of θ or d): θ = theta + q must stay in
  /// [theta + lower, theta + upper]. Infinite means unlimited.
  double lower = -kInfinity;
  double upper = kInfinity;
  /// Joint (coordinate) name; empty means "joint<i>" with the 1-based row.
  std::string name;
};

/// A whole DH description: rows plus the fixed base and tool transforms.
struct DhTable {
  DhConvention convention = DhConvention::kClassic;
  std::vector<DhRow> rows;
  /// Pose of frame 0 in the world.
  Eigen::Isometry3d X_base = Eigen::Isometry3d::Identity();
  /// Pose of the tool frame in frame n.
  Eigen::Isometry3d X_tool = Eigen::Isometry3d::Identity();
};

/// Builds the serial chain of a DH table as a Figure.
///
/// Links: "link0" (the root, frame 0 sits at X_base on it) … "link<n>". Sites:
/// "frame0" … "frame<n>" at the DH frames and "tool" at frame n · X_tool.
/// With the classic convention the link frame of joint i is frame i−1 moved
/// by the joint, and frame i is a site on it; with the modified convention the
/// link frame of joint i is frame i. Either way FK costs one step per row.
///
/// @param table n ≥ 1 rows; X_base and X_tool rigid.
/// @throws std::invalid_argument naming the row (1-based, and its joint name)
///   for a kind other than revolute/prismatic, a non-finite a, α, d or θ, a NaN
///   limit or lower > upper; or for an empty table or a non-rigid X_base /
///   X_tool. Duplicate names are reported by Figure::AddJoint.
Figure DenavitHartenbergFigure(const DhTable& table);

/// The transform T_i of one row for joint value q (θ = theta + q or
/// d = d + q), by the table's convention. For checks and for readers.
/// @throws std::invalid_argument as DenavitHartenbergFigure for a bad row.
Eigen::Isometry3d DhTransform(const DhRow& row, DhConvention convention,
                              double q);

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_DENAVIT_HARTENBERG_H_
