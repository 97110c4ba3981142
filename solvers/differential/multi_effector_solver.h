#ifndef IKLAB_SOLVERS_DIFFERENTIAL_MULTI_EFFECTOR_SOLVER_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_MULTI_EFFECTOR_SOLVER_H_

/// @file
/// Several end effectors by the NLP paper's F_i recursion (§5–6, Theorem
/// 6.19): the minimal 2-norm solution when the
/// effectors' systems are consistent, the task-priority solution when they
/// conflict.

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/differential/differential_solver.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of the multiple-end-effector method.
struct MultiEffectorOptions {
  SolveOptions common;
  StepControl step;
  /// Priority level of each goal (0 = highest; Problem::goals() order), one
  /// entry per goal; goals sharing a level are stacked into one system.
  /// Empty (default): goal i is level i — each goal is one effector, in the
  /// order added, as in the paper's recursion. Regularizers always form the
  /// last level.
  std::vector<int> goal_levels;
  /// Relative singular-value cutoff of each level's (J_k F_{k−1})⁺, in
  /// [0, 1): singular values ≤ c ‖J_k‖_F are dropped. Default 1e-10: drops
  /// directions a higher level has (up to round-off) used up.
  double singular_value_cutoff = 1e-10;
  /// Damping λ ≥ 0 of each level's pseudo-inverse (σ/(σ² + λ²)); 0 (default)
  /// is the paper's exact recursion. λ > 0 tames the algorithmic
  /// singularities where a lower level is nearly blocked by a higher one.
  double damping = 0.0;

  /// True if every field is in range (goal_levels is checked against the
  /// problem at solve time); otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// Multiple end effectors, NLP paper §5–6: with the levels' rows J_k and
/// errors V_k, F_0 = I,
///
///     Δq_k = Δq_{k−1} + (J_k F_{k−1})⁺ (V_k − J_k Δq_{k−1}),
///     F_k  = F_{k−1} − (J_k F_{k−1})⁺ (J_k F_{k−1})
///
/// (PrioritizedStep in jacobian_steps.h). Consistent systems (J_k of full
/// row rank, Σ m_k ≤ n, independent): Δq_M = [J_1; …; J_M]⁺ [V_1; …; V_M],
/// the minimal-norm solution (Theorem 6.19; M = 2 is J_1⁺dX_1 + [J_2(I −
/// J_1⁺J_1)]⁺(dX_2 − J_2J_1⁺dX_1)). Conflicting systems: level 1 is served
/// first, level 2 in what level 1 leaves free, and so on (task priority).
/// Works on any goal kinds. Joint limits are not enforced (see
/// pseudo_inverse_solver.h). Name "multi-effector".
class MultiEffectorSolver final : public Solver {
 public:
  explicit MultiEffectorSolver(MultiEffectorOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "multi-effector"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const MultiEffectorOptions& options() const { return options_; }

 private:
  MultiEffectorOptions options_;
};

/// Solves with the multiple-end-effector recursion.
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const MultiEffectorOptions& options);
std::unique_ptr<Solver> MakeSolver(const MultiEffectorOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_MULTI_EFFECTOR_SOLVER_H_
