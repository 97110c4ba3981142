#ifndef IKLAB_SOLVERS_DIFFERENTIAL_JACOBIAN_TRANSPOSE_SOLVER_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_JACOBIAN_TRANSPOSE_SOLVER_H_

/// @file
/// Jacobian transpose IK (Parent §5.3.3 "Avoiding the inverse"; Šoch &
/// Lórencz Eq. 7, after the virtual-work principle): Δq = α Jᵀ V.

#include <memory>
#include <string>

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/differential/differential_solver.h"
#include "solvers/solver.h"

namespace iklab {

/// Options of the Jacobian transpose method.
struct JacobianTransposeOptions {
  /// How α is chosen each step.
  enum class StepSize {
    /// α = `alpha`, fixed (Parent Fig. 5.24 uses 0.1).
    kFixed,
    /// α = ⟨V, JJᵀV⟩ / ⟨JJᵀV, JJᵀV⟩: the α that makes the linearized task
    /// change α JJᵀV closest to V (Buss's survey), scale-free.
    kOptimal,
  };

  SolveOptions common;
  StepControl step;
  /// Default kOptimal: a fixed α is unit-dependent — the iteration is stable
  /// only for α < 2/σ_max(J)², so Parent's 0.1 (meant for small per-frame
  /// errors along a 21-frame path) diverges on a 15/10/5 arm solving for a
  /// distant goal in one go (σ_max² ≈ 10³ there).
  StepSize step_size = StepSize::kOptimal;
  /// α > 0 for kFixed. Default 0.1 (Parent).
  double alpha = 0.1;

  /// True if every field is in range; otherwise says why in `why`.
  bool IsValid(std::string* why) const;
};

/// Jacobian transpose method: Δq = α Jᵀ V, the steepest-descent direction of
/// the potential ½‖R‖² (∇P = −JᵀV). No linear solve; no singularity
/// blow-up, but slow near the goal and "the perpendicular component may take
/// the end effector well away from the desired direction" (Parent). Works on
/// any goal stack. Joint limits are not enforced (see
/// pseudo_inverse_solver.h for how SolveScope reports a pose outside them).
/// Name "jacobian-transpose".
class JacobianTransposeSolver final : public Solver {
 public:
  explicit JacobianTransposeSolver(JacobianTransposeOptions options = {})
      : options_(std::move(options)) {}
  std::string name() const override { return "jacobian-transpose"; }
  Result Solve(const Problem& problem,
               const Eigen::VectorXd& q0) const override;
  const JacobianTransposeOptions& options() const { return options_; }

 private:
  JacobianTransposeOptions options_;
};

/// Solves with the Jacobian transpose method.
Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const JacobianTransposeOptions& options);
std::unique_ptr<Solver> MakeSolver(const JacobianTransposeOptions& options);

}  // namespace iklab

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_JACOBIAN_TRANSPOSE_SOLVER_H_
