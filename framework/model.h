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
///
/// Free coordinates and the full joint vector. A mimic joint (Figure::AddMimic,
/// URDF `<mimic>`) has no coordinate of its own: its step turns by
/// a·q[dof(i)] + b, where dof(i) is its leader's coordinate and a, b are
/// dof_scale(i), dof_offset(i) (1 and 0 for every other step). So q, nq(),
/// lower()/upper() and dof_name() are the FREE coordinates, the variables
/// every solver works on; a Jacobian column of a leader carries a times the
/// mimic step's column (chain rule, kinematics.h). The full joint vector —
/// one entry per joint coordinate, mimics included, in depth-first order —
/// is what a user's robot reports; FullConfiguration() makes it from q, with
/// full_dof_name() naming its entries. Without mimic joints both are the
/// same vector.

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
  /// A mimic relation as declared, in full-vector indices:
  /// q_full[joint] = multiplier * q_full[leader] + offset (the leader may
  /// itself be a mimic; the model resolves the chain).
  struct MimicRelation {
    int joint = -1;
    int leader = -1;
    double multiplier = 1.0;
    double offset = 0.0;
  };

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
  /// Index into q (the free coordinates) of the coordinate that drives the
  /// step, or −1 for a fixed step. For a mimic joint's step: its leader's.
  int dof(int step) const { return dof_[step]; }
  /// The step's joint value is dof_scale(step) * q[dof(step)] +
  /// dof_offset(step): 1 and 0 except on a mimic joint's step.
  double dof_scale(int step) const { return dof_scale_[step]; }
  double dof_offset(int step) const { return dof_offset_[step]; }
  /// Index of the step's coordinate in the full joint vector, or −1 for a
  /// fixed step.
  int full_dof(int step) const { return full_dof_[step]; }
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

  // The full joint vector, indexed 0 … nq_full() − 1 (see the file comment).
  /// True when some joint is a mimic (then nq_full() > nq()).
  bool has_mimics() const { return !mimics_.empty(); }
  /// Length of the full joint vector: nq() plus one per mimic joint.
  int nq_full() const { return static_cast<int>(full_names_.size()); }
  /// Name of full coordinate i (as dof_name()).
  const std::string& full_dof_name(int i) const { return full_names_[i]; }
  /// Name of the figure joint that owns full coordinate i.
  const std::string& full_dof_joint(int i) const { return full_joints_[i]; }
  /// q_full[i] = full_scale(i) * q[full_source(i)] + full_offset(i).
  int full_source(int i) const { return full_source_[i]; }
  double full_scale(int i) const { return full_scale_[i]; }
  double full_offset(int i) const { return full_offset_[i]; }
  /// Each joint's own limits, mimic joints included (lower()/upper() are
  /// these intersected onto the free coordinates).
  const Eigen::VectorXd& full_lower() const { return full_lower_; }
  const Eigen::VectorXd& full_upper() const { return full_upper_; }
  /// The mimic relations as declared.
  const std::vector<MimicRelation>& mimics() const { return mimics_; }
  /// Writes the full joint vector of free coordinates q into q_full.
  /// Allocation-free.
  /// @throws std::invalid_argument if q does not have nq() entries or
  ///   q_full not nq_full().
  void FullConfiguration(const Eigen::Ref<const Eigen::VectorXd>& q,
                         Eigen::Ref<Eigen::VectorXd> q_full) const;
  /// The full joint vector of q (allocates).
  Eigen::VectorXd FullConfiguration(
      const Eigen::Ref<const Eigen::VectorXd>& q) const;

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
  std::vector<double> dof_scale_;
  std::vector<double> dof_offset_;
  std::vector<int> full_dof_;
  std::vector<char> pure_translation_;  // not vector<bool>: read per FK step
  AlignedVector<Eigen::Vector3d> axis_;
  AlignedVector<Eigen::Isometry3d> X_PJ_;

  std::vector<int> dof_step_;
  std::vector<std::string> dof_names_;
  std::vector<std::string> dof_joint_;
  Eigen::VectorXd lower_;
  Eigen::VectorXd upper_;

  std::vector<std::string> full_names_;
  std::vector<std::string> full_joints_;
  std::vector<int> full_source_;
  std::vector<double> full_scale_;
  std::vector<double> full_offset_;
  Eigen::VectorXd full_lower_;
  Eigen::VectorXd full_upper_;
  std::vector<MimicRelation> mimics_;

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
