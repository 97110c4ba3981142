#ifndef IKLAB_SOLVERS_ANALYTIC_TWO_LINK_ANALYTIC_H_
#define IKLAB_SOLVERS_ANALYTIC_TWO_LINK_ANALYTIC_H_

/// @file
/// Analytic inverse kinematics of the planar two-link arm by the law of
/// cosines (Parent §5.3.1, Figs. 5.14–5.15), as a closed-form function with
/// every solution and as a Solver for a Problem whose model is such an arm.
///
/// Planar convention: link 1 (length L1) turns about the base by the absolute
/// angle θ1 measured from +x; link 2 (length L2) turns by θ2 relative to
/// link 1, so the tip is
///
///     p(θ1, θ2) = L1 (cos θ1, sin θ1) + L2 (cos(θ1 + θ2), sin(θ1 + θ2)).
///
/// With d = ‖p‖, the law of cosines in the triangle base–elbow–tip gives
///
///     cos θ2 = (d² − L1² − L2²) / (2 L1 L2),
///     θ1 = atan2(p_y, p_x) − atan2(L2 sin θ2, L1 + L2 cos θ2).
///
/// (Parent writes θ2 = acos((L1² + L2² − X² − Y²)/(2 L1 L2)): that is the
/// interior angle at the elbow, π − θ2 in the relative convention above; we
/// rebuilt the relation from the cosine rule.) The two signs of θ2 are the
/// two elbow solutions, mirror images in the line base → target; they
/// coincide on the reach boundary |L1 − L2| = d or d = L1 + L2.

#include <array>
#include <memory>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab {

/// Every solution of the planar two-link problem, or the closest pose.
struct TwoLinkSolutions {
  /// True when |L1 − L2| ≤ d ≤ L1 + L2 (up to the relative tolerance given
  /// to SolveTwoLinkPlanar).
  bool reachable = false;
  /// Number of distinct solutions: 2 inside the annulus, 1 on its boundary
  /// (stretched or folded; both entries of `solutions` are then equal), 0
  /// when unreachable.
  int num_solutions = 0;
  /// (θ1, θ2) in (−π, π]; solutions[0] has θ2 ≥ 0 (elbow bent
  /// counter-clockwise), solutions[1] has θ2 ≤ 0. Valid when reachable.
  std::array<Eigen::Vector2d, 2> solutions = {Eigen::Vector2d::Zero(),
                                              Eigen::Vector2d::Zero()};
  /// The pose whose tip is closest to the target: solutions[0] when
  /// reachable; otherwise the arm stretched toward the target (d > L1 + L2)
  /// or folded (θ2 = π) with the tip on the target's side of the base
  /// (d < |L1 − L2|; pointing the longer link at the target).
  Eigen::Vector2d closest = Eigen::Vector2d::Zero();
  /// d, the base–target distance.
  double distance = 0.0;
  /// ‖p(closest) − target‖: 0 when reachable (up to rounding), else
  /// d − (L1 + L2) or |L1 − L2| − d.
  double residual = 0.0;
};

/// Solves the planar two-link problem for a target in the arm's plane, base
/// at the origin (Parent §5.3.1).
/// @param l1, l2 link lengths, finite and > 0.
/// @param target tip target (x, y), finite.
/// @param tolerance relative tolerance of the reach test: d up to
///   (L1 + L2)(1 + tolerance) and down to |L1 − L2| − (L1 + L2) tolerance
///   count as on the boundary (so FK-generated boundary targets stay
///   reachable despite rounding). ≥ 0.
/// @throws std::invalid_argument naming the bad argument.
TwoLinkSolutions SolveTwoLinkPlanar(double l1, double l2,
                                    const Eigen::Vector2d& target,
                                    double tolerance = 1e-12);

/// Tip position p(θ1, θ2) of the planar two-link arm (see the file comment).
Eigen::Vector2d TwoLinkTip(double l1, double l2, const Eigen::Vector2d& angles);

/// Which elbow solution the Solver returns when both are admissible.
enum class TwoLinkElbow {
  kPositive,        ///< θ2 ≥ 0 (relative angle of link 2, counter-clockwise).
  kNegative,        ///< θ2 ≤ 0.
  kClosestToStart,  ///< The one nearer q0 (Euclidean in joint space).
};

/// Options of the two-link analytic solver.
struct TwoLinkOptions {
  SolveOptions common;
  /// Elbow preference. kPositive by default, so the answer does not depend
  /// on q0 (repeatability, Tolani §3.6).
  TwoLinkElbow elbow = TwoLinkElbow::kPositive;
  /// Relative tolerance of the reach test (see SolveTwoLinkPlanar). ≥ 0.
  double reach_tolerance = 1e-12;
  /// True if every field is in range; otherwise says why.
  bool IsValid(std::string* why) const;
};

/// Two-link analytic IK through the common interface. The problem must have
/// a model with exactly two revolute coordinates whose world axes are
/// parallel (a planar two-link arm; fixed steps and a base offset anywhere
/// are fine, as are axes along ±z or any other common direction), the
/// second driven below the first, and exactly one goal, a PositionGoal on a
/// site moved by both; otherwise the result is kInvalidInput naming what
/// is wrong. Regularizers are ignored (the analytic answer is exact).
///
/// The geometry (L1, L2, zero angles, plane) is read from the model by FK
/// at q = 0. A target off the arm's plane is projected onto it (the closest
/// reachable points lie in the plane) and reported kUnreachable.
/// Unreachable targets return the closest configuration (stretched or
/// folded). With respect_limits, each solution is shifted by ±2π into the
/// bounds where possible and solutions outside the bounds are dropped; if
/// none is left, L-BFGS-B (lbfgsb_solver.h) minimizes the potential within
/// the bounds from the preferred solution clamped, and the result is
/// kLimitsInfeasible (reachable target) or kUnreachable unless that
/// converges. Iterations: 0 for a closed-form answer. Name "two-link".
class TwoLinkAnalyticSolver final : public Solver {
 public:
  explicit TwoLinkAnalyticSolver(TwoLinkOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "two-link"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const TwoLinkOptions& options() const { return options_; }

 private:
  TwoLinkOptions options_;
};

/// TwoLinkAnalyticSolver(options).Solve(problem, q0).
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const TwoLinkOptions& options);
std::unique_ptr<Solver> MakeSolver(const TwoLinkOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_ANALYTIC_TWO_LINK_ANALYTIC_H_
