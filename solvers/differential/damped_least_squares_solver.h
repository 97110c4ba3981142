#ifndef IKLAB_SOLVERS_DIFFERENTIAL_DAMPED_LEAST_SQUARES_SOLVER_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_DAMPED_LEAST_SQUARES_SOLVER_H_

/// @file
/// The damped least-squares family of differential IK methods:
///
///  * DampedLeastSquaresSolver: Δq = Jᵀ(JJᵀ + λ²I)⁻¹V (Parent Eq. 5.24; NLP
///    paper §7), fixed λ or Levenberg–Marquardt-adapted λ.
///  * SelectivelyDampedSolver: Buss & Kim 2005, a damping per singular
///    direction.
///  * BoundedDampedLeastSquaresSolver: DLS with the joint limits as bounds on
///    the step, l − q ≤ Δq ≤ u − q (NLP paper §7, Example 7.4), solved
///    exactly by an active-set method.
///
/// All iterate q ← q + Δq with re-linearization (differential_solver.h) on
/// any goal stack through the stacked residual R and J = −∂R/∂q. λ has the
/// units of J (length units for position rows).
///
/// Joint limits: only BoundedDampedLeastSquaresSolver enforces them (when
/// SolveOptions::respect_limits). The other two do not: with respect_limits
/// a final pose outside the bounds is reported by SolveScope as
/// kOutsideLimits ("ended outside the joint limits").

#include <memory>
#include <string>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/differential/differential_solver.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of damped least squares.
struct DampedLeastSquaresOptions {
  SolveOptions common;
  StepControl step;
  /// Damping λ ≥ 0 (the start value when adaptive). Default 0.1: small next
  /// to the singular values of arm-length Jacobians away from singular poses
  /// (so the step is close to the pseudo-inverse's) yet bounding the step
  /// near them; it is the smallest value of the NLP paper's Example 7.3
  /// sweep (0.1, 0.25, 1.5, 10). Scale it with the figure's units.
  double damping = 0.1;
  /// false (default): λ fixed, Parent Eq. 5.24 as published. true: λ adapted
  /// Levenberg–Marquardt style — a step that lowers the potential is
  /// accepted and λ ← max(λ · damping_decrease, min_damping); otherwise the
  /// step is rejected (q stays) and λ ← min(λ · damping_increase,
  /// max_damping).
  bool adaptive = false;
  /// Factor applied to λ after a successful step, in (0, 1]. Default 0.5.
  double damping_decrease = 0.5;
  /// Factor applied to λ after a rejected step, ≥ 1. Default 2 (undoes one
  /// decrease; the classic LM choice of 10 overshoots for IK's cheap steps).
  double damping_increase = 2.0;
  /// Bounds of the adapted λ, 0 < min_damping ≤ max_damping. Defaults
  /// 1e-6 … 1e6: the lower one keeps J Jᵀ + λ²I positive definite at exact
  /// singularities.
  double min_damping = 1e-6;
  double max_damping = 1e6;
  /// Compute the condition number of the damped matrix (NLP Lemma 7.1) at
  /// every step for the trace and the result message. Costs an eigenvalue
  /// solve of the min(m, n)-square matrix; default true.
  bool compute_condition_number = true;

  /// True if every field is in range; otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// Damped least squares (Parent Eq. 5.24; Nakamura & Hanafusa 1986; Wampler
/// 1986; NLP paper §7): Δq = argmin ‖J Δq − V‖² + λ² ‖Δq‖² =
/// Jᵀ(JJᵀ + λ²I)⁻¹V, factored by Cholesky in the smaller of its two equal
/// forms. Larger λ: smaller, better-conditioned steps (Lemma 7.1), larger
/// linearized residual (Lemma 7.2). The trace records λ and the condition
/// number (σ_max² + λ²)/(σ_min² + λ²) of the factored matrix. Name "dls"
/// (fixed) or "dls-adaptive".
class DampedLeastSquaresSolver final : public Solver {
 public:
  explicit DampedLeastSquaresSolver(DampedLeastSquaresOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override {
    return options_.adaptive ? "dls-adaptive" : "dls";
  }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const DampedLeastSquaresOptions& options() const { return options_; }

 private:
  DampedLeastSquaresOptions options_;
};

/// Options of selectively damped least squares.
struct SelectivelyDampedOptions {
  SolveOptions common;
  StepControl step;
  /// γ_max > 0: largest change of any joint per step, radians (or length
  /// units for prismatic joints). Default π/4, Buss & Kim's value.
  double max_joint_change = 0.78539816339744831;
  /// Relative singular-value cutoff in [0, 1): σ_i ≤ c σ_max are skipped.
  double singular_value_cutoff = 1e-12;

  bool IsValid(std::string* why) const;
};

/// Selectively damped least squares (Buss & Kim 2005, "Selectively damped
/// least squares for inverse kinematics", J. Graphics Tools 10(3):37–49).
/// With the SVD J = Σ σ_i u_i w_iᵀ, each singular direction's step
/// σ_i⁻¹ (u_iᵀV) w_i is clamped in max-norm to γ_i = min(1, N_i/M_i) γ_max,
/// where N_i = Σ_ℓ ‖u_i[ℓ]‖ measures how far the effectors are asked to move
/// along u_i and M_i = σ_i⁻¹ Σ_j |w_ji| Σ_ℓ ‖J[ℓ, j]‖ how far the joints'
/// motion along w_i would move them; the sum is clamped to γ_max
/// (SelectivelyDampedStep in jacobian_steps.h). The "end effectors" ℓ are
/// the goals' row blocks (and each regularizer's). Name "sdls".
class SelectivelyDampedSolver final : public Solver {
 public:
  explicit SelectivelyDampedSolver(SelectivelyDampedOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "sdls"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const SelectivelyDampedOptions& options() const { return options_; }

 private:
  SelectivelyDampedOptions options_;
};

/// Options of bounded damped least squares.
struct BoundedDampedLeastSquaresOptions {
  SolveOptions common;
  StepControl step;
  /// Damping λ > 0 (needed: it makes the bounded subproblem strictly
  /// convex). Default 0.1 as DampedLeastSquaresOptions::damping; the NLP
  /// paper's Example 7.4 compares with the unbounded λ = 0.25.
  double damping = 0.1;

  bool IsValid(std::string* why) const;
};

/// Bounded damped least squares (NLP paper §7, Example 7.4): each step solves
///
///     min ‖J Δq − V‖² + λ² ‖Δq‖²   subject to  l − q ≤ Δq ≤ u − q
///
/// exactly, with the primal active-set method of BoxDampedLeastSquares
/// (jacobian_steps.h): a working set of coordinates fixed at their bounds, a
/// DLS solve on the free columns, blocking bounds added and bounds with
/// wrong-signed multipliers released until the KKT conditions hold. Every
/// iterate stays within [l, u] (no clamping after the step). With
/// SolveOptions::respect_limits false the bounds are infinite and the method
/// is plain DLS. Stationary points where the bounds block the descent end as
/// kLimitsInfeasible. Name "bounded-dls".
class BoundedDampedLeastSquaresSolver final : public Solver {
 public:
  explicit BoundedDampedLeastSquaresSolver(
      BoundedDampedLeastSquaresOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "bounded-dls"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const BoundedDampedLeastSquaresOptions& options() const { return options_; }

 private:
  BoundedDampedLeastSquaresOptions options_;
};

/// Solves with the named method (same as constructing the solver).
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const DampedLeastSquaresOptions& options);
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const SelectivelyDampedOptions& options);
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const BoundedDampedLeastSquaresOptions& options);

std::unique_ptr<Solver> MakeSolver(const DampedLeastSquaresOptions& options);
std::unique_ptr<Solver> MakeSolver(const SelectivelyDampedOptions& options);
std::unique_ptr<Solver> MakeSolver(
    const BoundedDampedLeastSquaresOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_DAMPED_LEAST_SQUARES_SOLVER_H_
