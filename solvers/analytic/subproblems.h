#ifndef IKLAB_SOLVERS_ANALYTIC_SUBPROBLEMS_H_
#define IKLAB_SOLVERS_ANALYTIC_SUBPROBLEMS_H_

/// @file
/// The Paden–Kahan subproblems: small geometric problems with closed-form
/// answers into which the inverse kinematics of many 6R arms decomposes.
///
/// Sources: B. Paden, "Kinematics and control of robot manipulators", PhD
/// thesis, UC Berkeley, 1986 (after W. Kahan's lectures), as presented in
/// Murray, Li & Sastry, "A Mathematical Introduction to Robotic
/// Manipulation", 1994, §3.2.2; and A. J. Elias & J. T. Wen, "IK-Geo: Unified
/// robot inverse kinematics using subproblem decomposition" (Mechanism and
/// Machine Theory 209, 2025; arXiv:2211.05737), whose numbering (1–4) and
/// least-squares extensions we follow. The code is ours, written from the
/// equations below.
///
/// Notation: R(k, θ) is the rotation by θ about the unit axis k (right-hand
/// rule); for a vector p, p∥ = (k·p) k and p⊥ = p − p∥, so
///
///     R(k, θ) p = p∥ + cos θ p⊥ + sin θ (k × p).              (Rodrigues)
///
/// Every subproblem takes vectors relative to a point on the axis (the
/// caller subtracts it), and returns its solutions with a flag telling
/// whether they are exact or least-squares (the problem had no exact
/// solution), and a flag for the degenerate case where the angle is free
/// (infinitely many solutions); a free angle is then set to `free_angle`.

#include <array>

#include <Eigen/Core>

namespace iklab::analytic {

/// Up to two angles solving a subproblem.
struct AngleSolutions {
  std::array<double, 2> theta = {0.0, 0.0};
  /// cos θ and sin θ of each solution, from the subproblem's own algebra
  /// (so callers building R(k, θ) need no further trigonometric calls).
  std::array<double, 2> cos = {1.0, 1.0};
  std::array<double, 2> sin = {0.0, 0.0};
  /// 1 or 2 (a least-squares answer or a tangent case gives 1).
  int count = 0;
  /// False when the problem had no exact solution: theta[0] minimizes the
  /// subproblem's error instead (IK-Geo's least-squares extension).
  bool exact = true;
  /// True when every angle solves the problem (the equation does not depend
  /// on θ); theta[0] is then the caller's free angle.
  bool free = false;
};

/// Solves a cos θ + b sin θ = c, the scalar equation behind subproblems 3
/// and 4: θ = atan2(b, a) ± acos(c / ρ), ρ = √(a² + b²). |c| > ρ (1 + tol)
/// has no solution: the least-squares θ = atan2(b, a) (c > 0) or that + π
/// is returned with exact = false. ρ ≤ `degenerate` makes θ free (exact
/// when |c| ≤ ρ + `degenerate`). In subproblems 3 and 4, `degenerate`
/// bounds this ρ (length² for 3, length for 4 with a unit h).
AngleSolutions SolveTrigEquation(double a, double b, double c, double tol,
                                 double degenerate, double free_angle);

/// Subproblem 1 (Paden): θ with R(k, θ) p = q. Least squares (Elias & Wen
/// §IV-A): θ = atan2((k × p)·q, p⊥·q), exact when ‖p⊥‖ = ‖q⊥‖ and
/// k·p = k·q. Free when ‖p⊥‖ or ‖q⊥‖ ≤ `degenerate`. Returns count 1.
/// Exactness is not tested here (the callers know their vectors match).
AngleSolutions Subproblem1(const Eigen::Vector3d& k, const Eigen::Vector3d& p,
                           const Eigen::Vector3d& q, double degenerate,
                           double free_angle);

/// Subproblem 3 (Paden): θ with ‖R(k, θ) p − q‖ = d. Expanding,
/// ‖p‖² + ‖q‖² − 2 qᵀR(k, θ)p = d² gives a cos θ + b sin θ = c with
/// a = p⊥·q, b = (k × p)·q, c = (‖p‖² + ‖q‖² − d²)/2 − (k·p)(k·q).
/// `tol` is relative to ρ (see SolveTrigEquation), `degenerate` absolute.
AngleSolutions Subproblem3(const Eigen::Vector3d& k, const Eigen::Vector3d& p,
                           const Eigen::Vector3d& q, double d, double tol,
                           double degenerate, double free_angle);

/// Subproblem 4 (Elias & Wen's numbering; a rotation to meet a plane): θ
/// with hᵀ R(k, θ) p = d, i.e. a cos θ + b sin θ = c with a = h·p⊥,
/// b = h·(k × p), c = d − (k·p)(h·k).
AngleSolutions Subproblem4(const Eigen::Vector3d& h, const Eigen::Vector3d& k,
                           const Eigen::Vector3d& p, double d, double tol,
                           double degenerate, double free_angle);

/// Two angles of subproblem 2.
struct AnglePairSolutions {
  /// (θ1, θ2) per solution.
  std::array<Eigen::Vector2d, 2> theta = {Eigen::Vector2d::Zero(),
                                          Eigen::Vector2d::Zero()};
  /// (cos θ1, cos θ2) and (sin θ1, sin θ2) per solution.
  std::array<Eigen::Vector2d, 2> cos = {Eigen::Vector2d::Ones(),
                                        Eigen::Vector2d::Ones()};
  std::array<Eigen::Vector2d, 2> sin = {Eigen::Vector2d::Zero(),
                                        Eigen::Vector2d::Zero()};
  int count = 0;
  bool exact = true;
  /// θ1 (resp. θ2) is free in every solution.
  bool free1 = false;
  bool free2 = false;
};

/// Subproblem 2 (Paden; two rotations about intersecting axes): θ1, θ2 with
/// R(k1, θ1) R(k2, θ2) p = q, k1 ∦ k2, ‖p‖ = ‖q‖. The middle vector
/// x = R(k2, θ2) p = R(k1, −θ1) q satisfies k2·x = k2·p, k1·x = k1·q and
/// ‖x‖ = ‖p‖; writing x = α k1 + β k2 + γ (k1 × k2) gives
///
///     α = (k1·q − c k2·p)/(1 − c²),  β = (k2·p − c k1·q)/(1 − c²),
///     γ² = (‖p‖² − α² − β² − 2αβc) / ‖k1 × k2‖²,  c = k1·k2,
///
/// two solutions ±γ (one when γ = 0; least squares γ = 0 when γ² < 0
/// beyond `tol` · ‖p‖²), then θ2 = SP1(k2, p → x), θ1 = SP1(k1, x → q).
/// @pre ‖k1 × k2‖ is not small (the caller checked the geometry).
AnglePairSolutions Subproblem2(const Eigen::Vector3d& k1,
                               const Eigen::Vector3d& k2,
                               const Eigen::Vector3d& p,
                               const Eigen::Vector3d& q, double tol,
                               double degenerate, double free_angle1,
                               double free_angle2);

}  // namespace iklab::analytic

#endif  // IKLAB_SOLVERS_ANALYTIC_SUBPROBLEMS_H_
