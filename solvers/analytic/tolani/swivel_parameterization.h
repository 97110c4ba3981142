#ifndef IKLAB_SOLVERS_ANALYTIC_TOLANI_SWIVEL_PARAMETERIZATION_H_
#define IKLAB_SOLVERS_ANALYTIC_TOLANI_SWIVEL_PARAMETERIZATION_H_

/// @file
/// The swivel parameterization of Tolani §3.2.2-§3.2.4: the elbow circle
/// (Eq. 6), R1(φ) and R2(φ) as α sin φ + β cos φ + γ, the joint angles and
/// their derivatives as functions of φ, and the valid φ under joint limits.

#include <array>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "solvers/analytic/tolani/swivel_intervals.h"
#include "solvers/analytic/tolani/trig_equations.h"

namespace iklab {

using Vector7d = Eigen::Matrix<double, 7, 1>;

/// The elbow circle of Tolani Eq. (6) and Fig. 2, in the limb frame.
struct ElbowCircle {
  Eigen::Vector3d center = Eigen::Vector3d::Zero();
  /// n̂, unit shoulder → wrist axis.
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  /// û (φ = 0) and v̂ = n̂ × û.
  Eigen::Vector3d u = Eigen::Vector3d::UnitX();
  Eigen::Vector3d v = Eigen::Vector3d::UnitY();
  /// R = L1 sin α; 0 for a stretched (or fully folded) limb.
  double radius = 0.0;
  /// e(φ) = c + R (cos φ û + sin φ v̂).
  Eigen::Vector3d Elbow(double phi) const;
  /// The φ minimizing ‖e_d − e(φ)‖ (Tolani §3.2.2, Fig. 3): the angle of the
  /// projection p* of e_d − c onto the circle's plane, measured from û
  /// toward v̂. (The paper writes sin φ = ‖p* × û‖/‖p*‖, which loses the
  /// sign; we use the signed atan2(p*·v̂, p*·û).) Returns 0 when p* = 0.
  double SwivelOfElbow(const Eigen::Vector3d& desired_elbow) const;
};

/// Families of the Euler angles: for a Tait–Bryan joint the middle angle is
/// asin(m) (family 0, |θ| ≤ π/2) or π − asin(m) (family 1), for a proper
/// Euler joint acos(m) (family 0, θ ∈ [0, π]) or −acos(m) (family 1); the
/// outer angles follow from atan2 with the sign of cos/sin of the middle
/// one (Tolani §3.2.4, "two families of solutions for θ1").
inline constexpr int kNumFamilies = 2;

/// The valid φ of a SwivelParameterization under joint limits (§3.2.4).
struct SwivelAnalysis {
  /// Π_{i,f}: φ where joint i (0 … 6; entry 3 unused) of family f is in its
  /// limits.
  std::array<std::array<SwivelIntervals, kNumFamilies>, 7> per_joint;
  /// A_f = ∩_{i=1..3} Π_{i,f} (S1) and B_f = ∩_{i=5..7} Π_{i,f} (S2; the
  /// full circle when the wrist is given and within limits, empty when it
  /// is given and outside).
  std::array<SwivelIntervals, kNumFamilies> shoulder, wrist;
  /// V = (A_0 ∩ B_0) ∪ (A_0 ∩ B_1) ∪ (A_1 ∩ B_0) ∪ (A_1 ∩ B_1); empty when θ4
  /// itself is outside its limits.
  SwivelIntervals valid;
  /// θ4 within its limits.
  bool elbow_valid = true;
};

/// The layout of a spherical joint's three axes, read from its ± coordinate
/// axes: R = R_i(a) R_j(b) R_k(c) (Tait–Bryan, proper = false) or
/// R_i(a) R_j(b) R_i(c) (proper Euler, k the remaining axis), each factor
/// turned by sign[n] (an axis −e_i rotates by −θ about e_i). parity is ε of
/// the permutation (i, j, k).
struct SphericalJointLayout {
  bool proper = false;
  int i = 0, j = 1, k = 2;
  double parity = 1.0;
  std::array<double, 3> sign = {1.0, 1.0, 1.0};
  /// The axis indices in applied order (i, j, k or i, j, i).
  std::array<int, 3> Axes() const { return {i, j, proper ? i : k}; }
};

/// The solutions of one goal for one θ4 as functions of the swivel angle φ:
/// R1(φ) = S1 sin φ + C1 cos φ + K1 (= R_n(φ) R0) and, when the wrist is free,
/// R2(φ) = S2 sin φ + C2 cos φ + K2 (= Mᵀ R1(φ)ᵀ R_g with M = R_a Ry(θ4) R_b);
/// when the wrist angles are given (position-only and aiming goals) they are
/// constants. Built by TolaniLimbIk; plain data, no allocation.
class SwivelParameterization {
 public:
  /// The limits of joint k as an arc of the circle, in its primed angle
  /// (sign · θ, the angle of the layout's unsigned axis): the cos and sin of
  /// both ends (the breakpoint levels of §3.2.4) and the arc's centre
  /// direction and half-width, for the test "this direction lies in the arc"
  /// (a dot product instead of an inverse trigonometric call). Per limits,
  /// computed once by TolaniLimbIk::set_limits.
  struct LimitArc {
    /// hi − lo ≥ 2π: every angle fits (the other fields are unused).
    bool full = true;
    /// cos and sin of the primed lower and upper limits.
    double cos_lo = 1.0, sin_lo = 0.0, cos_hi = 1.0, sin_hi = 0.0;
    /// Direction of the arc's centre and cos of its half-width.
    double cos_mid = 1.0, sin_mid = 0.0, cos_half = -1.0;
    /// True if the direction (c, s) (of length r > 0) lies in the arc:
    /// its angle to the centre is at most the half-width.
    bool Contains(double c, double s, double r) const {
      return full || c * cos_mid + s * sin_mid >= cos_half * r;
    }
  };

  double theta4() const { return theta4_; }
  /// The elbow circle (for aiming: the circle of the elbow about the
  /// shoulder → target axis).
  const ElbowCircle& circle() const { return circle_; }
  /// R0 = R1(0).
  const Eigen::Matrix3d& R0() const { return R0_; }
  bool wrist_free() const { return wrist_free_; }

  Eigen::Matrix3d R1(double phi) const;
  Eigen::Matrix3d R2(double phi) const;
  /// θ1 … θ7 at φ with the given Euler families of S1 and S2 (0 or 1). Each
  /// angle is wrapped into (−π, π] and then shifted by ±2π into its limits
  /// where that is possible.
  Vector7d JointAngles(double phi, int shoulder_family, int wrist_family) const;
  /// JointAngles for every family pair at once, q[kNumFamilies · f + g]: one
  /// evaluation of R1(φ) and R2(φ) serves the four (a family's angles follow
  /// from the other's without a trigonometric call).
  void JointAnglesAllFamilies(
      double phi, std::array<Vector7d, kNumFamilies * kNumFamilies>* q) const;
  /// dθ/dφ for the same families (Tolani §3.2.4: m'/cos θ for the middle
  /// angle of a Tait–Bryan joint, −m'/sin θ for a proper Euler one, and
  /// (N'D − ND')/(N² + D²) for the outer angles). Entry 3 is 0 (θ4 does not
  /// depend on φ), so are the given wrist angles. Infinite at the Euler
  /// singularity.
  Vector7d JointAngleDerivatives(double phi, int shoulder_family,
                                 int wrist_family) const;
  /// The valid φ under the joint limits the parameterization was built
  /// with (§3.2.4).
  void Analyze(SwivelAnalysis* analysis) const;
  /// First family pair (shoulder, wrist) whose angles at φ are within the
  /// limits widened by `tolerance`; false (and the pair with the smallest
  /// violation) if none.
  bool FamiliesAt(double phi, double tolerance, int* shoulder_family,
                  int* wrist_family) const;

 private:
  friend class TolaniLimbIk;
  // The five Euler quantities (middle m, outer N1/D1, N3/D3) of one joint
  // as functions of φ.
  struct EulerTrig {
    SwivelTrig m, n1, d1, n3, d3;
  };
  // The three angles of `joint` (0 shoulder, 1 wrist) at φ for both
  // families: out[f][n].
  void Angles(const EulerTrig& e, int joint, double phi,
              double (*out)[3]) const;
  void Derivatives(const EulerTrig& e, int joint, int family, double phi,
                   double* out) const;

  // The limb's joint layouts and limits, copied in by TolaniLimbIk (plain
  // data: the parameterization outlives no one and refers to nothing).
  SphericalJointLayout shoulder_layout_, wrist_layout_;
  Vector7d lower_ = Vector7d::Zero();
  Vector7d upper_ = Vector7d::Zero();
  std::array<LimitArc, 7> arcs_;
  double theta4_ = 0.0;
  ElbowCircle circle_;
  Eigen::Matrix3d R0_ = Eigen::Matrix3d::Identity();
  Eigen::Matrix3d S1_, C1_, K1_, S2_, C2_, K2_;
  bool wrist_free_ = true;
  Eigen::Vector3d wrist_angles_ = Eigen::Vector3d::Zero();
  EulerTrig shoulder_, wrist_;
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_ANALYTIC_TOLANI_SWIVEL_PARAMETERIZATION_H_
