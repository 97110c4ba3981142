#ifndef IKLAB_SOLVERS_ANALYTIC_TOLANI_SRS_ARM_H_
#define IKLAB_SOLVERS_ANALYTIC_TOLANI_SRS_ARM_H_

/// @file
/// A spherical-shoulder / revolute-elbow / spherical-wrist (SRS) 7-DOF chain
/// of any Model, read once into the limb form of Tolani, Goswami & Badler
/// (2000), §3.1, Eq. (3):
///
///     X_BS(θ) = X_BL · T1(θ1, θ2, θ3) · A · Ty(θ4) · B · T2(θ5, θ6, θ7) · E
///
/// B is the chain's base frame (the frame just before the first shoulder
/// joint), S the site. The last seven revolute joints before the site are
/// read at θ = 0 in product-of-exponentials form (Murray, Li & Sastry §3.2):
/// joint k has the base-frame axis h_k through the point p_k. The chain is
/// SRS when
///  - h1, h2, h3 meet in one point (the shoulder centre s),
///  - h5, h6, h7 meet in one point (the wrist centre w),
///  - consecutive axes of each triple are perpendicular and the outer two
///    are parallel (proper Euler angles, e.g. the KUKA iiwa's Z-Y-Z) or
///    perpendicular (Tait–Bryan, e.g. the human shoulder's Y-X-Z), which
///    Tolani §3.2.4's Euler-angle analysis of the swivel needs,
///  - the elbow axis h4 changes the shoulder–wrist distance (Eq. 5 is not
///    degenerate).
/// Offsets of real arms are handled where the equations allow them: link
/// offsets along the chain, an elbow axis that misses the shoulder–wrist
/// line (Eq. 5 with b ≠ 0, as the human elbow's carrying angle), a site
/// anywhere on the last link. Anything else (a wrist offset that keeps the
/// wrist axes from meeting, skewed axes) is rejected with the reason.
///
/// Frames, all fixed at construction: the limb frame L has its origin at s
/// and the base's orientation when h1, h2, h3 are ± base axes (robots and
/// our human figure), otherwise [h1, h2, h1 × h2]; F (elbow) has its y axis
/// along h4 at the point of the elbow axis closest to s; the wrist frame W
/// sits at w with [h5, h6, h5 × h6]. Then A = X_LF, B = X_FW and E = X_WS
/// at θ = 0, and T1, T2 are rotations about ± coordinate axes of L and W.

#include <array>
#include <memory>
#include <string>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/builders.h"
#include "framework/model.h"
#include "solvers/analytic/tolani/limb_ik.h"

namespace iklab {

/// One solution of an SrsArm at a given swivel angle.
struct SrsBranch {
  /// θ1 … θ7 in chain order (SrsArm::coordinate(k) is the model coordinate
  /// of θ_{k+1}); each angle in (−π, π], shifted by ±2π into the model's
  /// limits where that makes it fit.
  Vector7d theta = Vector7d::Zero();
  /// Which root of Eq. (5) (0 or 1), and the Euler families of S1 and S2
  /// (0 or 1, see kNumFamilies): the elbow, shoulder and wrist flips.
  int elbow_root = 0;
  int shoulder_family = 0;
  int wrist_family = 0;
  /// True if theta is within the model's limits.
  bool within_limits = false;
};

/// The whole solution set of one target pose: a one-parameter family per
/// root of Eq. (5) (swivel angle φ), with the valid φ under the limits.
class SrsSolutions {
 public:
  /// Number of elbow angles θ4 that place the wrist (0: out of reach; 1 at
  /// full stretch or fold; 2 otherwise).
  int num_elbow_roots() const { return count_; }
  /// θ4 of root r, in (−π, π] (shifted into its limits where possible).
  double theta4(int root) const { return families_[root].theta4(); }
  /// True if θ4 of root r is within its limits.
  bool elbow_within_limits(int root) const {
    return analyses_[root].elbow_valid;
  }
  /// V_r (Tolani §3.2.4): the swivel angles at which root r has a branch
  /// within every joint limit. φ is measured about the shoulder → wrist axis
  /// from the projection of SrsArm::swivel_reference() (radians, [0, 2π)).
  const SwivelIntervals& valid(int root) const { return analyses_[root].valid; }
  /// The union of valid(r) over the roots: the φ at which some solution
  /// respects the limits.
  SwivelIntervals Valid() const;
  /// The swivel parameterization of root r (Tolani Eqs. 6-7, in the limb
  /// frame: its circle() is the elbow circle, JointAngles(φ, f, g) a branch).
  const SwivelParameterization& parameterization(int root) const {
    return families_[root];
  }
  /// The per-joint, shoulder and wrist interval sets behind valid(r).
  const SwivelAnalysis& analysis(int root) const { return analyses_[root]; }

  /// Every discrete branch at swivel angle φ: for each elbow root, each
  /// shoulder and wrist Euler family (up to 2 × 2 × 2 = 8), duplicates (at
  /// an Euler singularity the families coincide) removed. Returns the count.
  int Branches(double phi, std::array<SrsBranch, 8>* branches) const;

 private:
  friend class SrsArm;
  int count_ = 0;
  std::array<SwivelParameterization, 2> families_;
  std::array<SwivelAnalysis, 2> analyses_;
  Vector7d lower_ = Vector7d::Zero();
  Vector7d upper_ = Vector7d::Zero();
};

/// An SRS chain of a Model in Tolani's limb form (see the file comment).
/// Immutable and thread-safe.
class SrsArm {
 public:
  /// Default tolerance of the geometry tests: unit-vector tests (parallel,
  /// perpendicular) to this, lines meeting within tolerance · L (L the
  /// summed distances between consecutive joint points and the site).
  static constexpr double kDefaultTolerance = 1e-9;

  /// Reads the last seven revolute joints before `site` and checks that
  /// they form an SRS chain.
  /// @param model any Model (a robot, or a limb of a bigger figure: the
  ///   coordinates before the base stay as the caller's pose gives them).
  /// @param site site index in `model` (the tip).
  /// @param why set to the reason when the chain is not SRS.
  /// @param tolerance geometry tolerance, in (0, 1e-3].
  /// @return the arm, or nullptr with `*why` set.
  /// @throws std::invalid_argument for a site index out of range, a null
  ///   `why` or a tolerance out of range.
  static std::shared_ptr<const SrsArm> Create(
      const Model& model, int site, std::string* why,
      double tolerance = kDefaultTolerance);

  /// The site the arm was built for.
  int site() const { return site_; }
  /// Model coordinate of θ_{k+1} (k = 0 … 6, shoulder to wrist).
  int coordinate(int k) const { return coordinate_[k]; }
  /// The model step whose frame is the base frame B.
  int base_step() const { return base_step_; }
  /// True if some coordinate moves the base (a limb of a figure): its pose
  /// then comes from forward kinematics of the caller's pose.
  bool base_moves() const { return base_moves_; }
  /// X_WB when the base does not move.
  const Eigen::Isometry3d& X_WB() const { return X_WB_; }
  /// Limb frame in the base frame (origin: the shoulder centre).
  const Eigen::Isometry3d& X_BL() const { return X_BL_; }
  /// The site in the wrist frame (E of the file comment).
  const Eigen::Isometry3d& X_WristSite() const { return E_; }
  /// The limb in Tolani's form (limits from the model, chain order).
  const LimbGeometry& geometry() const { return geometry_; }
  /// The closed-form layer on the geometry (limits from the model).
  const TolaniLimbIk& ik() const { return ik_; }
  /// The axis orders of the shoulder (in the limb frame) and of the wrist
  /// (in the wrist frame [h5, h6, h5 x h6]), each "proper Euler" or
  /// "Tait-Bryan", e.g. "SRS: shoulder Z-Y-Z (proper Euler), wrist X-Y-X
  /// (proper Euler)" for the iiwa14.
  const std::string& description() const { return description_; }
  /// Direction (limb frame) whose projection onto the plane ⊥ the shoulder
  /// → wrist axis is φ = 0: the base axis (x, y, z in that order) most
  /// perpendicular to the shoulder → wrist line at θ = 0.
  const Eigen::Vector3d& swivel_reference() const { return swivel_reference_; }

  /// Site pose in the base frame at θ (chain order), Eq. (3).
  Eigen::Isometry3d Forward(const Vector7d& theta) const;
  /// Every solution for the site pose X_BT (base frame): the valid swivel
  /// intervals per elbow root and, through SrsSolutions::Branches, every
  /// discrete branch at a swivel angle. Allocation-free.
  SrsSolutions AllSolutions(const Eigen::Isometry3d& X_BT) const;

 private:
  SrsArm(const LimbGeometry& geometry) : geometry_(geometry), ik_(geometry) {}

  LimbGeometry geometry_;
  TolaniLimbIk ik_;
  int site_ = -1;
  int base_step_ = 0;
  bool base_moves_ = false;
  std::array<int, 7> coordinate_{};
  Eigen::Isometry3d X_WB_ = Eigen::Isometry3d::Identity();
  Eigen::Isometry3d X_BL_ = Eigen::Isometry3d::Identity();
  Eigen::Isometry3d E_ = Eigen::Isometry3d::Identity();
  Eigen::Vector3d swivel_reference_ = Eigen::Vector3d::UnitX();
  std::string description_;
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_ANALYTIC_TOLANI_SRS_ARM_H_
