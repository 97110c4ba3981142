#ifndef IKLAB_FRAMEWORK_MODEL_H_
#define IKLAB_FRAMEWORK_MODEL_H_

/// @file
/// The compiled, immutable kinematic model and its per-thread workspace.
///
/// Model/Data split (as in Pinocchio): a Model holds everything that does not
/// change during a solve, in flat arrays ordered depth-first so that every
/// step's parent comes before it (parent(i) < i). A Data holds the results of
/// forward kinematics for one configuration. Many threads may share one Model,
/// each with its own Data.
///
/// Steps. Every joint is expanded into elementary steps of 0 or 1 degree of
/// freedom: a fixed step, a revolute step about a unit axis, or a prismatic step
/// along a unit axis. Step i has the world pose
///
///     X_W[i] = X_W[parent(i)] * X_PJ[i] * A_i(q[dof(i)])
///
/// where A_i is Rot(axis_i, q) or Trans(axis_i * q) or the identity. A spherical
/// joint becomes three revolute steps with zero-length links between them
/// (Parent Fig. 5.4), a floating joint six. Each link of the figure is the
/// frame of its joint's last step. Step 0 is the root link, fixed at the world
/// origin.

#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <Eigen/StdVector>

#include "framework/joint.h"

namespace iklab {

/// Kind of one elementary step.
enum class StepKind : unsigned char { kFixed, kRevolute, kPrismatic };

/// How a step's axis is laid out, so FK can take a short cut for coordinate
/// axes (the common case in URDFs and builders).
enum class AxisKind : unsigned char { kX, kY, kZ, kGeneral };

template <typename T>
using AlignedVector = std::vector<T, Eigen::aligned_allocator<T>>;

/// Immutable compiled figure. Create with Figure::Compile().
class Model {
 public:
  /// Number of joint coordinates (the length of q).
  int nq() const { return nq_; }
  /// Number of elementary steps (frames), including the root.
  int num_steps() const { return static_cast<int>(parent_.size()); }
  int num_sites() const { return static_cast<int>(site_step_.size()); }
  int num_links() const { return static_cast<int>(link_names_.size()); }

  // Per step, indexed 0 … num_steps() − 1.
  int parent(int step) const { return parent_[step]; }
  StepKind kind(int step) const { return kind_[step]; }
  AxisKind axis_kind(int step) const { return axis_kind_[step]; }
  /// Index into q, or −1 for a fixed step.
  int dof(int step) const { return dof_[step]; }
  const Eigen::Vector3d& axis(int step) const { return axis_[step]; }
  const Eigen::Isometry3d& X_PJ(int step) const { return X_PJ_[step]; }
  /// True when X_PJ's rotation is the identity (FK then skips a 3×3 product).
  bool pure_translation(int step) const { return pure_translation_[step]; }

  // Per coordinate, indexed 0 … nq() − 1.
  /// The step that coordinate `i` drives.
  int dof_step(int i) const { return dof_step_[i]; }
  /// Name of coordinate i: the joint name, with ".0/.1/.2" (spherical) or
  /// ".tx/.ty/.tz/.rz/.ry/.rx" (floating) for multi-DOF joints.
  const std::string& dof_name(int i) const { return dof_names_[i]; }
  /// Name of the figure joint that owns coordinate i.
  const std::string& dof_joint(int i) const { return dof_joint_[i]; }
  const Eigen::VectorXd& lower() const { return lower_; }
  const Eigen::VectorXd& upper() const { return upper_; }
  /// True when coordinate i has finite lower and upper limits.
  bool bounded(int i) const;

  // Links and sites.
  const std::string& link_name(int link) const { return link_names_[link]; }
  /// The step whose frame is link `link`'s frame.
  int link_step(int link) const { return link_step_[link]; }
  const std::string& site_name(int site) const { return site_names_[site]; }
  int site_step(int site) const { return site_step_[site]; }
  const Eigen::Isometry3d& X_FS(int site) const { return X_FS_[site]; }

  /// Index of a site by name.
  /// @throws std::invalid_argument naming the site and listing the known ones.
  int SiteIndex(const std::string& name) const;
  /// Index of a link by name. @throws std::invalid_argument if unknown.
  int LinkIndex(const std::string& name) const;
  /// Index of a coordinate by its dof_name. @throws std::invalid_argument.
  int DofIndex(const std::string& name) const;

  /// Middle of the limits per coordinate; 0 where a side is unbounded.
  Eigen::VectorXd MidLimits() const;
  /// Checks `q` has nq() finite entries.
  /// @throws std::invalid_argument naming `what`, the expected and given size,
  ///   or the first non-finite entry.
  void CheckConfiguration(const Eigen::Ref<const Eigen::VectorXd>& q,
                          const char* what) const;
  /// True if every coordinate of q lies within [lower, upper] up to `tolerance`.
  bool WithinLimits(const Eigen::Ref<const Eigen::VectorXd>& q,
                    double tolerance = 0.0) const;

 private:
  friend class Figure;
  Model() = default;

  int nq_ = 0;
  std::vector<int> parent_;
  std::vector<StepKind> kind_;
  std::vector<AxisKind> axis_kind_;
  std::vector<int> dof_;
  std::vector<char> pure_translation_;  // not vector<bool>: read per FK step
  AlignedVector<Eigen::Vector3d> axis_;
  AlignedVector<Eigen::Isometry3d> X_PJ_;

  std::vector<int> dof_step_;
  std::vector<std::string> dof_names_;
  std::vector<std::string> dof_joint_;
  Eigen::VectorXd lower_;
  Eigen::VectorXd upper_;

  std::vector<std::string> link_names_;
  std::vector<int> link_step_;
  std::vector<std::string> site_names_;
  std::vector<int> site_step_;
  AlignedVector<Eigen::Isometry3d> X_FS_;
};

/// Per-thread workspace of a Model: world poses of every step after
/// ForwardKinematics(). Allocated once; reused across calls without allocation.
class Data {
 public:
  explicit Data(const Model& model);

  /// World pose of step i (valid after ForwardKinematics).
  const Eigen::Isometry3d& X_W(int step) const { return X_W_[step]; }
  Eigen::Isometry3d& mutable_X_W(int step) { return X_W_[step]; }
  int num_steps() const { return static_cast<int>(X_W_.size()); }

 private:
  AlignedVector<Eigen::Isometry3d> X_W_;
};

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_MODEL_H_
