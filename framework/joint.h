#ifndef IKLAB_FRAMEWORK_JOINT_H_
#define IKLAB_FRAMEWORK_JOINT_H_

/// @file
/// The articulations a figure is built from (Parent §5.1: the "arcs" of the
/// hierarchy). A joint places a child link on a parent link by a constant
/// transform X_PJ (Parent's `Lmatrix`) followed by a parameterized
/// articulation A(q) (Parent's `Amatrix`):  X_PC(q) = X_PJ * A(q).

#include <array>
#include <limits>
#include <string>

#include <Eigen/Geometry>

namespace iklab {

/// How a joint moves. Every kind compiles into elementary one-degree-of-freedom
/// steps (see Model), so FK and Jacobians only ever see revolute, prismatic and
/// fixed steps.
enum class JointKind {
  kFixed,      ///< No motion; 0 DOF.
  kRevolute,   ///< Rotation by q about a unit axis in the joint frame; 1 DOF.
  kPrismatic,  ///< Translation by q along a unit axis in the joint frame; 1 DOF.
  /// Ball joint as three revolutes about `spherical_axes` with zero-length
  /// links between them (Parent Fig. 5.4); 3 DOF. Like any Euler-angle
  /// parameterization it is singular where the first and third axes align.
  kSpherical,
  /// 6-DOF free joint: translations along x, y, z of the joint frame, then
  /// rotations about z, y, x (the BVH root's channel order); 6 DOF.
  kFloating,
};

/// Returns "fixed", "revolute", ... (for messages and reports).
const char* JointKindName(JointKind kind);

/// Number of joint coordinates of a kind (0, 1, 3 or 6).
int NumDofs(JointKind kind);

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Everything needed to add one joint to a Figure. Plain data; validated by
/// Figure::AddJoint.
struct Joint {
  /// Unique among the figure's joints; names coordinates in reports.
  std::string name;
  /// Names of the links the joint connects (both must exist in the figure).
  std::string parent;
  std::string child;
  JointKind kind = JointKind::kRevolute;
  /// Pose of the joint frame J in the parent link frame P (Parent's Lmatrix).
  Eigen::Isometry3d X_PJ = Eigen::Isometry3d::Identity();
  /// Unit axis in J for revolute and prismatic joints.
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
  /// Unit axes in J of the three rotations of a spherical joint, applied in
  /// this order (R = R(a0, q0) R(a1, q1) R(a2, q2)). Default z, y, x.
  std::array<Eigen::Vector3d, 3> spherical_axes = {
      Eigen::Vector3d::UnitZ(), Eigen::Vector3d::UnitY(),
      Eigen::Vector3d::UnitX()};
  /// Limits of each coordinate (radians or length units). Infinite values mean
  /// "no limit" (e.g. a URDF continuous joint). A joint with k coordinates uses
  /// the first k entries; the rest are ignored.
  std::array<double, 6> lower = {-kInfinity, -kInfinity, -kInfinity,
                                 -kInfinity, -kInfinity, -kInfinity};
  std::array<double, 6> upper = {kInfinity, kInfinity, kInfinity,
                                 kInfinity, kInfinity, kInfinity};

  /// Sets the same limits on every coordinate and returns *this (for chaining
  /// in builders).
  Joint& WithLimits(double lo, double hi);
};

/// A mimic relation (URDF `<mimic>`, Pinocchio's mimic joints): the
/// coordinate of revolute or prismatic joint `joint` is not free but follows
/// the coordinate of `leader`,
///
///     q_joint = multiplier * q_leader + offset,
///
/// so the compiled Model has one coordinate fewer (see Model). Both joints
/// must have one coordinate; units follow the joints (rad or length), so a
/// prismatic joint may follow a revolute one.
struct Mimic {
  std::string joint;
  std::string leader;
  /// Finite and nonzero (a zero multiplier is a fixed joint).
  double multiplier = 1.0;
  /// Finite.
  double offset = 0.0;
};

/// A named point/frame rigidly attached to a link: end effectors, elbow
/// points, aim axes. Several per figure, on any link (not only leaves).
struct Site {
  std::string name;
  std::string link;
  /// Pose of the site frame S in the link frame L.
  Eigen::Isometry3d X_LS = Eigen::Isometry3d::Identity();
};

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_JOINT_H_
