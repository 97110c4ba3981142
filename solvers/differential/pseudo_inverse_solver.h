#ifndef IKLAB_SOLVERS_DIFFERENTIAL_PSEUDO_INVERSE_SOLVER_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_PSEUDO_INVERSE_SOLVER_H_

/// @file
/// The pseudo-inverse family of differential IK methods (Parent §5.3.3):
///
///  * PseudoInverseSolver: Δq = J⁺V (Eq. 5.20–5.23), J⁺ from the SVD.
///  * ControlTermSolver: Δq = J⁺V + (J⁺J − I) z with the joint-centre bias
///    z_i = 2 a_i (q_i − q_ci) (Eq. 5.25–5.31, after Liégeois).
///  * AlternativeJacobianSolver: J⁺V with the Jacobian taken as if the
///    effector were at the goal ("pulls the goal toward the effector").
///
/// All iterate q ← q + Δq with re-linearization (differential_solver.h) on
/// any goal stack through the stacked residual R and J = −∂R/∂q.
///
/// Joint limits: none of these methods enforces them (the papers have no
/// such mechanism). With SolveOptions::respect_limits (the default) the
/// start pose is projected into the bounds, and a final pose outside them is
/// reported by SolveScope as kOutsideLimits ("ended outside the joint
/// limits"); set respect_limits = false to run them on a limit-free problem.

#include <memory>
#include <string>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/differential/differential_solver.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of the SVD pseudo-inverse method.
struct PseudoInverseOptions {
  SolveOptions common;
  StepControl step;
  /// Relative singular-value cutoff c: singular values σ_i ≤ c σ_max count
  /// as zero (their directions get no motion), in [0, 1). Parent inverts
  /// J Jᵀ outright; a tiny cutoff keeps that behaviour away from exact
  /// singularities (near-singular poses still produce the large steps the
  /// papers show), where 0 would divide by round-off.
  double singular_value_cutoff = 1e-12;

  /// True if every field is in range; otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// Pseudo-inverse method, Parent Eq. 5.20–5.23: Δq = J⁺ V, J⁺ = W Σ⁺ Uᵀ from
/// the SVD J = U Σ Wᵀ (minimal-norm least-squares step; rank-deficient J
/// allowed). Name "pseudo-inverse".
class PseudoInverseSolver final : public Solver {
 public:
  explicit PseudoInverseSolver(PseudoInverseOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "pseudo-inverse"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const PseudoInverseOptions& options() const { return options_; }

 private:
  PseudoInverseOptions options_;
};

/// Options of Parent's control-term method.
struct ControlTermOptions {
  SolveOptions common;
  StepControl step;
  /// Desired joint values q_c (nq entries), e.g. 0 for "straight" as in
  /// Parent Fig. 5.22, or Model::MidLimits(). Empty = all zeros.
  Eigen::VectorXd centers;
  /// Gains a_i ≥ 0 (nq entries): "the higher the gain, the stiffer the
  /// joint". Empty = all zero, which reduces to the plain pseudo-inverse
  /// (Parent: "If all gains are zero, then the solution will reduce to the
  /// conventional pseudoinverse"). Note that z_i = 2 a_i (q_i − q_ci) is a
  /// full step: a_i = ½ moves joint i all the way to q_ci within the null
  /// space; a_i > 1 overshoots.
  Eigen::VectorXd gains;

  /// True if every field is in range (sizes are checked against the model
  /// at solve time); otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// Pseudo-inverse with Parent's control term (Eq. 5.25–5.31, NOTES):
///
///     Δq = J⁺V + (J⁺J − I) z,   z_i = 2 a_i (q_i − q_ci) = ∂H/∂q_i,
///     H(q) = Σ a_i (q_i − q_ci)²,
///
/// solved as the text does: (J Jᵀ) β = V + J z by LU, Δq = Jᵀ β − z. The
/// z part lies in null(J): it descends H without changing the effector
/// velocity. Where J Jᵀ is singular (rank-deficient J, e.g. the zero z row of
/// a position goal on a planar figure) the same formula is evaluated with the
/// SVD pseudo-inverse (ControlTermStep). Name "control-term".
class ControlTermSolver final : public Solver {
 public:
  explicit ControlTermSolver(ControlTermOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "control-term"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const ControlTermOptions& options() const { return options_; }

 private:
  ControlTermOptions options_;
};

/// Options of the alternative-Jacobian method.
struct AlternativeJacobianOptions {
  SolveOptions common;
  StepControl step;
  /// As PseudoInverseOptions::singular_value_cutoff.
  double singular_value_cutoff = 1e-12;

  bool IsValid(std::string* why) const;
};

/// The "alternative Jacobian" of Parent §5.3.3 (after Buss's survey):
/// "Instead of trying to push the end effector toward the goal position, a
/// formulation has been proposed that pulls the goal to the end effector
/// ... by simply using the goal position in place of the end effector" in
/// the pseudo-inverse method.
///
/// What we implement, as we read it: the pseudo-inverse step Δq = J̃⁺ V with
/// the rows of each position target replaced by the Jacobian of the target
/// point t as if it were rigidly attached to the effector's link:
/// revolute column a_j × (t − o_j) instead of a_j × (p − o_j), prismatic
/// column a_j unchanged. The step is the joint motion that would move the
/// goal (carried by the arm) onto the effector's current place to first
/// order, i.e. pulls the goal toward the effector, and is applied with the
/// opposite sense to the arm. At the goal (t = p) J̃ = J; the two differ
/// most far from the goal and near singular poses (where J̃ may be regular
/// when J is not). Position rows are those of PositionGoal and the position
/// part of PositionOrientationGoal; rows of other goal kinds and of
/// regularizers keep the ordinary Jacobian. Name "alternative-jacobian".
class AlternativeJacobianSolver final : public Solver {
 public:
  explicit AlternativeJacobianSolver(AlternativeJacobianOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "alternative-jacobian"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const AlternativeJacobianOptions& options() const { return options_; }

 private:
  AlternativeJacobianOptions options_;
};

/// Solves with the named method; same as constructing the solver and
/// calling Solve(). Never throws for bad input: see Result::status.
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const PseudoInverseOptions& options);
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const ControlTermOptions& options);
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const AlternativeJacobianOptions& options);

/// The solver for `options`, for polymorphic use.
std::unique_ptr<Solver> MakeSolver(const PseudoInverseOptions& options);
std::unique_ptr<Solver> MakeSolver(const ControlTermOptions& options);
std::unique_ptr<Solver> MakeSolver(const AlternativeJacobianOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_PSEUDO_INVERSE_SOLVER_H_
