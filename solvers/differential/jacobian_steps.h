#ifndef IKLAB_SOLVERS_DIFFERENTIAL_JACOBIAN_STEPS_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_JACOBIAN_STEPS_H_

/// @file
/// One linearized step of each differential IK method, as small reusable
/// kernels: given the task Jacobian J (m × n) and the desired task change V
/// (m), compute the joint step Δq (n). Each kernel owns its decompositions,
/// sized once by its constructor (or Resize), so Compute() does not allocate
/// for inputs of that size. The solvers in solvers/differential/*_solver.h iterate them;
/// tests and benchmarks call them directly.
///
/// Conventions: V = R(q) (the stacked weighted residual, "target − current")
/// and J = −∂R/∂q, so the linearized task after a step is V − J Δq
/// (differential_solver.h).

#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>

namespace iklab {

/// Rows [offset, offset + size) of a stacked Jacobian: one end effector /
/// goal, or one priority level.
struct RowBlock {
  int offset = 0;
  int size = 0;
};

/// Pseudo-inverse step Δq = J⁺V via the SVD J = U Σ Wᵀ (Parent Eq. 5.20–5.23
/// define J⁺; we form it from the SVD instead of the normal equations of Eq.
/// 5.22, which also covers rank-deficient J):
///
///     Δq = Σ_{σ_i > c σ_max} (u_iᵀ V / σ_i) w_i
///
/// with a relative singular-value cutoff c. With a damping λ > 0 the factor
/// 1/σ_i becomes σ_i/(σ_i² + λ²) (the SVD form of DLS, Eq. 5.24).
class PseudoInverseStep {
 public:
  PseudoInverseStep() = default;
  PseudoInverseStep(int rows, int cols) { Resize(rows, cols); }
  /// Sizes the SVD for rows × cols Jacobians (allocates).
  void Resize(int rows, int cols);

  /// @param J rows × cols. @param V rows. @param cutoff c ∈ [0, 1).
  /// @param damping λ ≥ 0 (0 = plain pseudo-inverse).
  /// @param dq receives cols entries.
  void Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
               const Eigen::Ref<const Eigen::VectorXd>& V, double cutoff,
               double damping, Eigen::Ref<Eigen::VectorXd> dq);

  /// The SVD of the last Compute (singular values, U, W).
  const Eigen::JacobiSVD<Eigen::MatrixXd>& svd() const { return svd_; }
  /// Number of singular values above the cutoff in the last Compute.
  int rank() const { return rank_; }

 private:
  Eigen::JacobiSVD<Eigen::MatrixXd> svd_;
  Eigen::MatrixXd J_;  // copy of the input (JacobiSVD takes a MatrixXd)
  Eigen::VectorXd coefficients_;
  int rank_ = 0;
};

/// Damped least-squares step (Parent Eq. 5.24; Nakamura & Hanafusa 1986;
/// Wampler 1986):
///
///     Δq = Jᵀ (J Jᵀ + λ² I)⁻¹ V            (m ≤ n: an m × m system)
///        = (Jᵀ J + λ² I)⁻¹ Jᵀ V            (m > n: the n × n system)
///
/// the two forms being equal; the smaller system is factored by Cholesky.
/// Δq minimizes ‖J Δq − V‖² + λ² ‖Δq‖².
class DampedLeastSquaresStep {
 public:
  DampedLeastSquaresStep() = default;
  DampedLeastSquaresStep(int rows, int cols) { Resize(rows, cols); }
  void Resize(int rows, int cols);

  /// Returns false when the damped matrix is not positive definite (only
  /// possible for λ = 0 with a rank-deficient J); dq is then unchanged.
  bool Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
               const Eigen::Ref<const Eigen::VectorXd>& V, double damping,
               Eigen::Ref<Eigen::VectorXd> dq);

  /// Condition number of the matrix the last Compute factored, the ratio of
  /// its extreme eigenvalues: (σ_max² + λ²)/(σ_min² + λ²) with σ the singular
  /// values of J (NLP paper Lemma 7.1; for m < n the n × n matrix of the
  /// Lemma has the extra eigenvalue λ², so its condition number is
  /// (σ_max² + λ²)/λ², which falls with λ the same way). Allocation-free.
  double ConditionNumber();

 private:
  Eigen::MatrixXd normal_;  // J Jᵀ + λ²I or Jᵀ J + λ²I
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen_;
  Eigen::VectorXd rhs_;
  bool row_form_ = true;
};

/// Selectively damped least squares (Buss & Kim 2005, "Selectively damped
/// least squares for inverse kinematics", J. Graphics Tools 10(3)). With the
/// SVD J = Σ σ_i u_i w_iᵀ and the rows split into blocks ℓ (one per goal,
/// Buss's end effectors):
///
///     α_i = u_iᵀ V
///     N_i = Σ_ℓ ‖u_i[ℓ]‖                   (size of u_i per effector)
///     M_i = σ_i⁻¹ Σ_j |w_ji| Σ_ℓ ‖J[ℓ, j]‖   (effector motion per unit of
///                                            the i-th joint-space direction)
///     γ_i = min(1, N_i / M_i) γ_max
///     Δq  = Clamp(Σ_i Clamp(σ_i⁻¹ α_i w_i, γ_i), γ_max)
///
/// where Clamp(x, γ) scales x so that ‖x‖∞ ≤ γ. Each singular direction is
/// damped by how far it would move the effectors relative to how far they
/// are asked to move, instead of one global λ.
class SelectivelyDampedStep {
 public:
  SelectivelyDampedStep() = default;
  SelectivelyDampedStep(int rows, int cols, std::vector<RowBlock> blocks) {
    Resize(rows, cols, std::move(blocks));
  }
  /// @param blocks the effector row blocks, covering rows 0 … rows − 1.
  void Resize(int rows, int cols, std::vector<RowBlock> blocks);

  /// @param gamma_max γ_max > 0, largest joint change per step (radians).
  /// @param cutoff relative singular-value cutoff.
  void Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
               const Eigen::Ref<const Eigen::VectorXd>& V, double gamma_max,
               double cutoff, Eigen::Ref<Eigen::VectorXd> dq);

 private:
  std::vector<RowBlock> blocks_;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd_;
  Eigen::MatrixXd J_;
  Eigen::VectorXd column_motion_;  // ρ_j = Σ_ℓ ‖J[ℓ, j]‖
};

/// Pseudo-inverse step with Parent's control term (Eq. 5.25–5.31;
/// the printed equations are partly garbled, this is their consistent
/// reading):
///
///     Δq = J⁺V + (J⁺J − I) z = J⁺(V + J z) − z,
///
/// solved as the text does: (J Jᵀ) β = V + J z by LU, Δq = Jᵀ β − z.
/// J(J⁺J − I) = 0, so the z part moves no effector to first order. The LU
/// needs J of full row rank; when J Jᵀ is numerically singular (an LU pivot
/// ≤ 1e-13 × the largest — e.g. the always-zero z row of a position goal on
/// a planar figure), the same Eq. 5.29 is evaluated with the SVD
/// pseudo-inverse (relative cutoff 1e-12) instead, and used_lu() is false.
class ControlTermStep {
 public:
  ControlTermStep() = default;
  ControlTermStep(int rows, int cols) { Resize(rows, cols); }
  void Resize(int rows, int cols);

  void Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
               const Eigen::Ref<const Eigen::VectorXd>& V,
               const Eigen::Ref<const Eigen::VectorXd>& z,
               Eigen::Ref<Eigen::VectorXd> dq);
  /// True if the last Compute solved by the LU of J Jᵀ (Parent's route),
  /// false if it fell back to the SVD.
  bool used_lu() const { return used_lu_; }

 private:
  static constexpr double kControlTermCutoff = 1e-12;
  Eigen::MatrixXd JJt_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  Eigen::VectorXd rhs_;
  Eigen::VectorXd beta_;
  PseudoInverseStep pseudo_inverse_;
  Eigen::VectorXd projected_;
  bool used_lu_ = true;
};

/// Several end effectors / priority levels (NLP paper §5–6, NOTES): with
/// levels k = 1 … M (rows J_k, V_k), F_0 = I and
///
///     Δq_k = Δq_{k−1} + (J_k F_{k−1})⁺ (V_k − J_k Δq_{k−1}),   Δq_0 = 0,
///     F_k  = F_{k−1} − (J_k F_{k−1})⁺ (J_k F_{k−1}),
///
/// F_k the orthogonal projector onto ∩_{i≤k} null(J_i). For consistent
/// systems Δq_M is the minimal 2-norm solution, J_stacked⁺ V (the paper's
/// Theorem 6.19; M = 2 gives its J_1⁺dX_1 + [J_2(I − J_1⁺J_1)]⁺(dX_2 −
/// J_2J_1⁺dX_1)); for conflicting ones it is the task-priority solution:
/// level 1 as well as possible, level 2 as well as possible in what level 1
/// leaves free, and so on. Each (J_k F_{k−1})⁺ is an SVD pseudo-inverse
/// that drops singular values ≤ cutoff × ‖J_k‖_F (relative to the level's
/// own Jacobian, so a level its predecessors exhaust is not inverted from
/// round-off), with optional damping σ/(σ² + λ²); F is updated with the
/// undamped projector W_r W_rᵀ of the kept singular directions.
class PrioritizedStep {
 public:
  PrioritizedStep() = default;
  PrioritizedStep(std::vector<RowBlock> levels, int cols) {
    Resize(std::move(levels), cols);
  }
  /// @param levels row blocks of J in priority order (they need not cover
  ///   every row; rows outside any level are ignored).
  void Resize(std::vector<RowBlock> levels, int cols);

  void Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
               const Eigen::Ref<const Eigen::VectorXd>& V, double cutoff,
               double damping, Eigen::Ref<Eigen::VectorXd> dq);

  /// F_M of the last Compute: projector onto the common null space.
  const Eigen::MatrixXd& null_space_projector() const { return F_; }

 private:
  struct Level {
    RowBlock rows;
    Eigen::MatrixXd A;  // J_k F_{k−1}
    Eigen::JacobiSVD<Eigen::MatrixXd> svd;
    Eigen::VectorXd error;         // V_k − J_k Δq_{k−1}
    Eigen::VectorXd coefficients;  // Σ⁺ Uᵀ error
  };
  std::vector<Level> levels_;
  Eigen::MatrixXd F_;
};

/// Bounded damped least squares (NLP paper §7, Example 7.4): the box-
/// constrained convex quadratic program
///
///     min_x ‖J x − V‖² + λ² ‖x‖²   subject to  lo ≤ x ≤ hi   (λ > 0)
///
/// (for IK: x = Δq, lo = l − q, hi = u − q), solved exactly by a primal
/// active-set method (Nocedal & Wright, Numerical Optimization, §16.5,
/// specialized to bounds). Iterates stay feasible. Each iteration fixes the
/// working set B at its bounds and minimizes over the free set F, which is a
/// DLS problem on the free columns with a shifted target,
///
///     x_F = J_Fᵀ (J_F J_Fᵀ + λ² I)⁻¹ (V − J_B x_B)
///
/// (m × m, or the n × n normal form when m > n; Cholesky). A feasible x_F is
/// taken, and the bound with the most negative multiplier (gradient pointing
/// into the box) leaves B, until all multipliers have the right sign (the
/// KKT conditions: optimal); an infeasible x_F is cut at the first bound it
/// crosses, which joins B. The objective decreases strictly, so no working
/// set repeats and the method ends in finitely many iterations.
class BoxDampedLeastSquares {
 public:
  BoxDampedLeastSquares() = default;
  BoxDampedLeastSquares(int rows, int cols) { Resize(rows, cols); }
  void Resize(int rows, int cols);

  struct Outcome {
    /// Active-set iterations used.
    int iterations = 0;
    /// True when the KKT conditions hold (false only if the iteration cap
    /// 10 + 4n was hit; x is then feasible but not optimal).
    bool optimal = false;
    /// Number of bounds active at x.
    int active = 0;
  };

  /// @pre lo ≤ hi entrywise; damping > 0. x receives the minimizer (cols).
  Outcome Solve(const Eigen::Ref<const Eigen::MatrixXd>& J,
                const Eigen::Ref<const Eigen::VectorXd>& V, double damping,
                const Eigen::Ref<const Eigen::VectorXd>& lo,
                const Eigen::Ref<const Eigen::VectorXd>& hi,
                Eigen::Ref<Eigen::VectorXd> x);

 private:
  // Minimizes over the free set with the bound entries fixed; writes x_hat.
  void SolveFree(const Eigen::Ref<const Eigen::MatrixXd>& J,
                 const Eigen::Ref<const Eigen::VectorXd>& V, double damping,
                 const Eigen::Ref<const Eigen::VectorXd>& x);

  Eigen::MatrixXd J_free_;
  Eigen::MatrixXd normal_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd target_;    // V − J_B x_B
  Eigen::VectorXd solution_;  // m or n
  Eigen::VectorXd x_hat_;
  Eigen::VectorXd x_bound_;
  Eigen::VectorXd residual_;
  Eigen::VectorXd gradient_;
  std::vector<signed char> state_;  // 0 free, −1 at lo, +1 at hi
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_JACOBIAN_STEPS_H_
