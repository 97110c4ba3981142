#ifndef IKLAB_SOLVERS_ANALYTIC_TOLANI_LIMB_IK_H_
#define IKLAB_SOLVERS_ANALYTIC_TOLANI_LIMB_IK_H_

/// @file
/// The closed-form limb IK of Tolani, Goswami & Badler (2000), §3, in the
/// limb frame of a LimbGeometry (builders.h):
///
///     G = T1(θ1, θ2, θ3) · A · Ty(θ4) · B · T2(θ5, θ6, θ7)        (Eq. 3)
///
///  * θ4 from |t_a + R_a Ry(θ4) t_b| = |t_g|, i.e. a cos θ4 + b sin θ4 = c
///    (Eq. 5, trig_equations.h), both roots reported.
///  * The swivel angle φ parameterizes the remaining one-parameter family
///    (Eqs. 6-7, swivel_parameterization.h); joint limits give the valid φ
///    intervals (§3.2.4, swivel_intervals.h).
///  * Partial orientation (§3.3, the goal's rotation about an axis is a
///    second free parameter ψ) and aiming (§3.4, θ4 is the second free
///    parameter) reduce to the same one-parameter family once the second
///    parameter is fixed (partial_orientation.cc).
///  * Table 3 for unsolvable position + orientation goals: L-BFGS-B over
///    the reduced variables (φ, θ5, θ6, θ7) (ApproximatePose,
///    reduced_problem.cc).
/// The Solver adapter on a Model's SRS chain is tolani_solver.h.

#include <array>
#include <limits>
#include <string>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/builders.h"
#include "solvers/analytic/tolani/swivel_parameterization.h"

namespace iklab {

/// The wrist of a partial-orientation goal as a function of ψ, Tolani
/// Eq. (10): w(ψ) = α cos ψ + β sin ψ + γ (vector coefficients, limb frame).
/// Since G(ψ) turns the goal frame about â, w(ψ) is a circle about â through
/// the goal point: α ⊥ β, |α| = |β|.
struct WristCurve {
  Eigen::Vector3d alpha = Eigen::Vector3d::Zero();
  Eigen::Vector3d beta = Eigen::Vector3d::Zero();
  Eigen::Vector3d gamma = Eigen::Vector3d::Zero();
  Eigen::Vector3d operator()(double psi) const;
};

/// How to pick φ among the valid ones.
enum class SwivelChoice {
  /// Midpoint of the longest valid arc (Tolani §3.2.4: "maximizes clearance
  /// from the joint limits"). With limits off (every φ valid) the desired φ
  /// is used instead.
  kLongestArcMidpoint,
  /// The valid φ closest to the desired one (desired_swivel, or the φ of
  /// desired_elbow when set).
  kClosestToDesired,
};

/// Options of the closed-form layer (the Solver's options embed one).
struct LimbIkOptions {
  /// Enforce the limits of TolaniLimbIk (its geometry's, or set_limits()).
  bool respect_limits = true;
  SwivelChoice swivel_choice = SwivelChoice::kLongestArcMidpoint;
  /// Desired swivel angle φ_d, radians.
  double desired_swivel = 0.0;
  /// When true, φ_d is the swivel of `desired_elbow` (limb frame; §3.2.2,
  /// Fig. 3) instead of desired_swivel.
  bool use_desired_elbow = false;
  Eigen::Vector3d desired_elbow = Eigen::Vector3d::Zero();
  /// â, the axis whose projection is û (φ = 0), limb frame. Default: +x
  /// (anterior), so φ = 0 puts the elbow/knee forward of the shoulder–wrist
  /// line and φ = π behind it; it is rarely parallel to the shoulder–wrist
  /// axis of a human limb. When it is (within 1e-9), +y is used instead.
  Eigen::Vector3d swivel_axis = Eigen::Vector3d::UnitX();
  /// Partial orientation: desired ψ (rotation of the goal frame about the
  /// aligned axis, §3.3), radians; the reachable ψ closest to it is used
  /// (psi_choice kDesired).
  double desired_psi = 0.0;
  /// Partial orientation: how ψ is chosen (§3.3, Eqs. 11–12).
  enum class PsiChoice {
    /// desired_psi.
    kDesired,
    /// Eq. (11): the ψ minimizing the wrist height up_axis · w(ψ).
    kLowestWrist,
    /// Eq. (11): the ψ maximizing it.
    kHighestWrist,
    /// Eq. (12): the ψ minimizing ‖w(ψ) − desired_wrist‖.
    kClosestWrist,
  };
  PsiChoice psi_choice = PsiChoice::kDesired;
  /// The vertical of Eq. (11), limb frame. The limb frame is the standing
  /// figure's world frame turned by π about x (builders.h: z runs down the
  /// hanging limb), so "up" is −z.
  Eigen::Vector3d up_axis = -Eigen::Vector3d::UnitZ();
  /// w_d of Eq. (12), limb frame (the wrist = S2's centre).
  Eigen::Vector3d desired_wrist = Eigen::Vector3d::Zero();
  /// Aiming: the elbow angle θ4 to use (Table 2: "analytic if θ4 given");
  /// NaN means choose it (the value closest to the middle of its limits
  /// that admits a solution, scanning when limits bind).
  double aiming_theta4 = std::numeric_limits<double>::quiet_NaN();
  /// Samples of the second parameter (ψ or θ4) scanned when the first
  /// choice has no valid φ under limits. ≥ 1.
  int parameter_samples = 96;
  /// Iterations of the small 2-variable optimization of Table 2 (partial
  /// orientation and aiming with limits, the paper's F(φ, ψ) =
  /// Σ (θ_i − θ_i*)²). ≥ 0.
  int refine_iterations = 50;
};

/// How a closed-form solve ended.
enum class LimbIkStatus {
  /// An exact solution (within the limits when respect_limits).
  kSolved,
  /// The goal is out of the limb's reach (no θ4, or no ψ / aiming line):
  /// `q` is the closest pose found (limb stretched or folded toward it).
  /// A verdict on the problem as the call poses it: with the wrist angles
  /// given (SolvePosition, SolveAiming) another wrist may reach the goal.
  kUnreachable,
  /// Reachable without limits but no admissible φ (and second parameter):
  /// `q` is the exact solution that violates the limits least.
  kLimitsInfeasible,
};

/// Result of a closed-form solve.
struct LimbSolution {
  LimbIkStatus status = LimbIkStatus::kUnreachable;
  /// What happened.
  std::string message;
  Vector7d q = Vector7d::Zero();
  /// Chosen φ, elbow root (index into the TrigRoots of Eq. 5; for aiming,
  /// which crossing of the aim line with the sphere |x| = |target|, 0 the
  /// farther) and families.
  double swivel = 0.0;
  int elbow_root = 0;
  int shoulder_family = 0;
  int wrist_family = 0;
  /// ψ (partial orientation) or θ4 (aiming) used; 0 otherwise.
  double parameter = 0.0;
  /// Valid φ set V of the chosen elbow root (full when limits are off).
  SwivelIntervals valid;
  /// L-BFGS-B iterations spent (the 2-variable optimization of Table 2 or
  /// the reduced problem of Table 3); 0 for a closed-form answer.
  int iterations = 0;
  /// ApproximatePose: true when the reduced problem of Table 3 produced `q`.
  bool reduced = false;
};

/// Closed-form IK of a 7-DOF limb, allocation-free after construction.
/// Goals are in the limb frame (S1's proximal frame: X_W = X_RS1 · G for the
/// standalone LimbFigure). A site on the distal link is given by its pose E
/// in S2's distal frame (E = I for the wrist itself, [I, p_S2_tip] for the
/// hand/foot).
class TolaniLimbIk {
 public:
  /// @throws std::invalid_argument if the geometry is unusable: S1/S2 axes
  ///   not ± coordinate axes with the middle one different from its
  ///   neighbours, f_axis not +y, |t_a| or |t_b| zero, limits NaN or
  ///   lower > upper, A or B not rigid.
  explicit TolaniLimbIk(const LimbGeometry& geometry);

  const Vector7d& lower() const { return lower_; }
  const Vector7d& upper() const { return upper_; }
  /// The layouts of S1 and S2 read from the geometry's axes.
  const SphericalJointLayout& shoulder_layout() const { return s1_; }
  const SphericalJointLayout& wrist_layout() const { return s2_; }
  /// Overrides the limits (e.g. with a Problem's bounds; ±∞ allowed).
  /// @throws std::invalid_argument on NaN or lower > upper.
  void set_limits(const Vector7d& lower, const Vector7d& upper);

  /// Eq. (3): the pose of S2's distal frame in the limb frame.
  Eigen::Isometry3d Forward(const Vector7d& q) const;
  /// Elbow position (F's origin) in the limb frame, R1 t_a.
  Eigen::Vector3d Elbow(const Vector7d& q) const;

  /// Eq. (5) for a wrist at distance `distance` from the shoulder, with the
  /// forearm vector t_b (default: the geometry's) — both roots.
  TrigRoots SolveElbow(double distance) const;

  /// The swivel parameterizations of a full goal G (S2's distal frame in
  /// the limb frame), one per root of Eq. (5). Returns the count (0 when
  /// unreachable).
  int Parameterize(const Eigen::Isometry3d& G, const LimbIkOptions& options,
                   std::array<SwivelParameterization, 2>* out) const;

  /// Position + orientation of a site with pose E in the wrist frame:
  /// X_S1,site = G_site (Tables 2, 5).
  LimbSolution SolvePose(const Eigen::Isometry3d& G_site,
                         const Eigen::Isometry3d& E,
                         const LimbIkOptions& options) const;
  /// Position of a site (offset p_site in the wrist frame) with the wrist
  /// angles given (§3.2.3 last paragraph; Tables 2, 4).
  LimbSolution SolvePosition(const Eigen::Vector3d& target,
                             const Eigen::Vector3d& p_site,
                             const Eigen::Vector3d& wrist_angles,
                             const LimbIkOptions& options) const;
  /// Position of a site plus one site axis `axis_site` (site frame) along
  /// `axis_goal` (limb frame), rotation about it free (§3.3).
  LimbSolution SolvePartialOrientation(const Eigen::Vector3d& target,
                                       const Eigen::Isometry3d& E,
                                       const Eigen::Vector3d& axis_site,
                                       const Eigen::Vector3d& axis_goal,
                                       const LimbIkOptions& options) const;
  /// Aim the line through the site origin with direction `direction_site`
  /// (site frame) at `target` (limb frame), wrist angles given (§3.4).
  LimbSolution SolveAiming(const Eigen::Vector3d& target,
                           const Eigen::Isometry3d& E,
                           const Eigen::Vector3d& direction_site,
                           const Eigen::Vector3d& wrist_angles,
                           const LimbIkOptions& options) const;

  /// Table 3 for a position + orientation goal that SolvePose cannot solve
  /// (out of reach, or no swivel angle within the limits): the paper's
  /// reduced problem. θ4 places the wrist exactly when a root of Eq. (5)
  /// lies within the elbow limits, else as close as the elbow limits allow
  /// (the limb stretched or folded toward the goal); the shoulder limits
  /// give the valid φ arcs A_f (§3.2.4); then L-BFGS-B (LBFGSpp) minimizes
  /// the orientation error over (φ, θ5, θ6, θ7) within those arcs and the
  /// wrist limits (the "4 linear constraints"), so the shoulder angles never
  /// leave their limits. The error is ½‖R − R_g‖²_F + ½‖(R − R_g) t_e‖² for
  /// the wrist rotation R: the paper's orientation error (measured as
  /// ½‖R − R_g‖²_F = 2(1 − cos ν) rather than its sin²ν, which vanishes
  /// again at ν = π) plus the displacement of the site that the rotation
  /// error causes (0 for E = I, the paper's wrist goal).
  /// Returns SolvePose's answer when that is solved, or when the limits are
  /// off (its unreachable answer is then already the closest: stretched
  /// toward the goal with the goal's orientation); `reduced` is false when
  /// the reduced problem does not apply (no θ4 within the limits places the
  /// wrist, or no φ satisfies the shoulder limits): the status and `q` are
  /// then SolvePose's. Otherwise status kUnreachable (the wrist goal is out
  /// of reach) or kLimitsInfeasible (the wrist is placed exactly, the
  /// orientation is not reachable within the limits) — kSolved only if the
  /// orientation error vanishes (≤ 1e-10 rad) — and q within the limits.
  LimbSolution ApproximatePose(const Eigen::Isometry3d& G_site,
                               const Eigen::Isometry3d& E,
                               const LimbIkOptions& options) const;

  /// Eq. (10): the wrist of a partial-orientation goal (arguments as
  /// SolvePartialOrientation; options.swivel_axis is the projection axis p̂
  /// of G(ψ)) as a function of ψ.
  WristCurve PartialOrientationWrist(const Eigen::Vector3d& target,
                                     const Eigen::Isometry3d& E,
                                     const Eigen::Vector3d& axis_site,
                                     const Eigen::Vector3d& axis_goal,
                                     const LimbIkOptions& options) const;
  /// ψ per options.psi_choice within `admissible` (the ψ for which the wrist
  /// is within reach): kDesired the admissible ψ closest to desired_psi;
  /// the others the best of the admissible stationary points of Eq. (11)
  /// (the two roots of d/dψ (up · w) = 0, told apart by the sign of the
  /// second derivative) or Eq. (12) (the roots of SolveTrigQuadratic) and
  /// the ends of the admissible arcs. In (−π, π]. @pre !admissible.empty().
  double ChoosePsi(const WristCurve& wrist, const LimbIkOptions& options,
                   const SwivelIntervals& admissible) const;

  /// Picks φ from an analysis per options (see SwivelChoice); false if V is
  /// empty.
  bool ChooseSwivel(const SwivelParameterization& family,
                    const SwivelAnalysis& analysis,
                    const LimbIkOptions& options, double* phi) const;

 private:
  // The second free parameter of §3.3 and §3.4.
  enum class SecondParameter {
    kPsi,     // partial orientation: ψ, the goal's rotation about its axis
    kTheta4,  // aiming: the elbow angle
  };
  // A parameterization R1(φ) = R_n(φ) R0 for the rest vectors (elbow e0,
  // wrist/aim point w0) mapped so that w0 → along n̂ (|w0| n̂ = goal point).
  void BuildFamily(double theta4, const Eigen::Vector3d& w0,
                   const Eigen::Vector3d& goal_point,
                   const LimbIkOptions& options,
                   SwivelParameterization* family) const;
  void SetWristFree(const Eigen::Matrix3d& R_g,
                    SwivelParameterization* family) const;
  void SetWristGiven(const Eigen::Vector3d& wrist_angles,
                     SwivelParameterization* family) const;
  static void FillEuler(const SphericalJointLayout& layout,
                        const Eigen::Matrix3d& S, const Eigen::Matrix3d& C,
                        const Eigen::Matrix3d& K,
                        SwivelParameterization::EulerTrig* euler);
  // The aiming families for θ4 (§3.4), one per crossing of the aim line
  // with the sphere |x| = |target| (0, 1 or 2); with none, families[0] is
  // the closest approach.
  int AimFamilies(double theta4, const Eigen::Vector3d& target,
                  const Eigen::Isometry3d& E, const Eigen::Vector3d& direction,
                  const Eigen::Vector3d& wrist_angles,
                  const LimbIkOptions& options,
                  std::array<SwivelParameterization, 2>* families) const;
  // Full analysis + φ choice over the given families; fills `solution`.
  bool SolveFamilies(const std::array<SwivelParameterization, 2>& families,
                     int count, const LimbIkOptions& options,
                     LimbSolution* solution, double* score) const;
  LimbSolution SolveWithParameter(SecondParameter kind, double parameter,
                                  const Eigen::Vector3d& target,
                                  const Eigen::Isometry3d& E,
                                  const Eigen::Vector3d& axis_site,
                                  const Eigen::Vector3d& axis_goal,
                                  const Eigen::Vector3d& wrist_angles,
                                  const LimbIkOptions& options) const;
  LimbSolution SolveTwoParameter(SecondParameter kind,
                                 const Eigen::Vector3d& target,
                                 const Eigen::Isometry3d& E,
                                 const Eigen::Vector3d& axis_site,
                                 const Eigen::Vector3d& axis_goal,
                                 const Eigen::Vector3d& wrist_angles,
                                 const LimbIkOptions& options) const;
  // The steps of SolveTwoParameter, which share its goal.
  struct TwoParameterGoal {
    SecondParameter kind;
    const Eigen::Vector3d& target;
    const Eigen::Isometry3d& E;
    const Eigen::Vector3d& axis_site;
    const Eigen::Vector3d& axis_goal;
    const Eigen::Vector3d& wrist_angles;
    const LimbIkOptions& options;
  };
  LimbSolution SolveAt(const TwoParameterGoal& goal, double parameter) const;
  // The ψ for which the position goal is within reach (§3.3, Eq. 10); when
  // none, *closest is the ψ closest to the reach.
  SwivelIntervals ReachablePsi(const TwoParameterGoal& goal,
                               double* closest) const;
  // The θ4 within the elbow limits (all when not respected), and in *first
  // the one closest to their middle.
  SwivelIntervals AdmissibleTheta4(const LimbIkOptions& options,
                                   double* first) const;
  // Samples `range`; keeps in *best the solved sample with the longest valid
  // swivel arc (or the first reachable one while *best is unreachable).
  void ScanParameter(const TwoParameterGoal& goal, const SwivelIntervals& range,
                     LimbSolution* best, bool* any_reachable) const;
  // Table 2's two-variable optimization over (φ, τ) from `best`.
  LimbSolution RefineParameter(const TwoParameterGoal& goal,
                               const SwivelIntervals& range,
                               const LimbSolution& best) const;

  SphericalJointLayout s1_, s2_;
  Eigen::Vector3d t_a_, t_b_;
  Eigen::Matrix3d R_a_, R_b_;
  Vector7d lower_, upper_;
  // The limits as arcs (swivel_parameterization.h), from set_limits.
  std::array<SwivelParameterization::LimitArc, 7> arcs_;
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_ANALYTIC_TOLANI_LIMB_IK_H_
