#include "solvers/differential/jacobian_steps.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <utility>

namespace iklab {

// ---------------------------------------------------------------------------
// PseudoInverseStep

void PseudoInverseStep::Resize(int rows, int cols) {
  svd_ = Eigen::JacobiSVD<Eigen::MatrixXd>(
      rows, cols, Eigen::ComputeThinU | Eigen::ComputeThinV);
  J_.resize(rows, cols);
  coefficients_.resize(std::min(rows, cols));
}

void PseudoInverseStep::Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
                                const Eigen::Ref<const Eigen::VectorXd>& V,
                                double cutoff, double damping,
                                Eigen::Ref<Eigen::VectorXd> dq) {
  assert(J.rows() == V.size() && J.cols() == dq.size());
  // JacobiSVD::compute takes a const MatrixXd&: copy the Ref into a
  // preallocated matrix instead of letting it make a temporary.
  J_ = J;
  svd_.compute(J_, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Eigen::VectorXd& sigma = svd_.singularValues();
  coefficients_.noalias() = svd_.matrixU().transpose() * V;
  const double threshold = sigma.size() > 0 ? cutoff * sigma(0) : 0.0;
  const double lambda2 = damping * damping;
  rank_ = 0;
  for (Eigen::Index i = 0; i < sigma.size(); ++i) {
    if (sigma(i) > threshold && sigma(i) > 0.0) {
      coefficients_(i) *= sigma(i) / (sigma(i) * sigma(i) + lambda2);
      ++rank_;
    } else {
      coefficients_(i) = 0.0;
    }
  }
  dq.noalias() = svd_.matrixV() * coefficients_;
}

// ---------------------------------------------------------------------------
// DampedLeastSquaresStep

void DampedLeastSquaresStep::Resize(int rows, int cols) {
  row_form_ = rows <= cols;
  const int k = row_form_ ? rows : cols;
  normal_.resize(k, k);
  // Size the factorizations by factoring an identity once. Assigning a
  // freshly sized Eigen::LLT(k) or SelfAdjointEigenSolver(k) would copy its
  // uninitialized info() field, which UBSan rightly reports.
  llt_.compute(Eigen::MatrixXd::Identity(k, k));
  eigen_.compute(Eigen::MatrixXd::Identity(k, k));
  rhs_.resize(k);
}

bool DampedLeastSquaresStep::Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
                                     const Eigen::Ref<const Eigen::VectorXd>& V,
                                     double damping,
                                     Eigen::Ref<Eigen::VectorXd> dq) {
  assert(J.rows() == V.size() && J.cols() == dq.size());
  const double lambda2 = damping * damping;
  if (row_form_) {
    normal_.noalias() = J * J.transpose();
  } else {
    normal_.noalias() = J.transpose() * J;
  }
  normal_.diagonal().array() += lambda2;
  llt_.compute(normal_);
  if (llt_.info() != Eigen::Success) return false;
  if (row_form_) {
    rhs_ = V;
    llt_.solveInPlace(rhs_);  // β = (JJᵀ + λ²I)⁻¹ V
    dq.noalias() = J.transpose() * rhs_;
  } else {
    rhs_.noalias() = J.transpose() * V;
    llt_.solveInPlace(rhs_);
    dq = rhs_;
  }
  return true;
}

double DampedLeastSquaresStep::ConditionNumber() {
  if (normal_.size() == 0) return 1.0;
  eigen_.compute(normal_, Eigen::EigenvaluesOnly);
  const Eigen::VectorXd& values = eigen_.eigenvalues();  // ascending
  const double smallest = values(0);
  const double largest = values(values.size() - 1);
  if (!(smallest > 0.0)) return std::numeric_limits<double>::infinity();
  return largest / smallest;
}

// ---------------------------------------------------------------------------
// SelectivelyDampedStep

void SelectivelyDampedStep::Resize(int rows, int cols,
                                   std::vector<RowBlock> blocks) {
  blocks_ = std::move(blocks);
  svd_ = Eigen::JacobiSVD<Eigen::MatrixXd>(
      rows, cols, Eigen::ComputeThinU | Eigen::ComputeThinV);
  J_.resize(rows, cols);
  column_motion_.resize(cols);
}

namespace {

// Adds Clamp(scale * w, gamma) to dq: scales so that ‖·‖∞ ≤ gamma.
template <typename Vector>
void AddClamped(double scale, const Vector& w, double gamma,
                Eigen::Ref<Eigen::VectorXd> dq) {
  const double size = std::abs(scale) * w.template lpNorm<Eigen::Infinity>();
  if (size > gamma) scale *= gamma / size;
  dq.noalias() += scale * w;
}

}  // namespace

void SelectivelyDampedStep::Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
                                    const Eigen::Ref<const Eigen::VectorXd>& V,
                                    double gamma_max, double cutoff,
                                    Eigen::Ref<Eigen::VectorXd> dq) {
  assert(J.rows() == V.size() && J.cols() == dq.size());
  J_ = J;  // see PseudoInverseStep::Compute
  svd_.compute(J_, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Eigen::VectorXd& sigma = svd_.singularValues();
  const auto& U = svd_.matrixU();
  const auto& W = svd_.matrixV();

  // ρ_j = Σ_ℓ ‖J[ℓ, j]‖: how far joint j moves the effectors per unit.
  for (Eigen::Index j = 0; j < J.cols(); ++j) {
    double rho = 0.0;
    for (const RowBlock& b : blocks_) {
      rho += J.col(j).segment(b.offset, b.size).norm();
    }
    column_motion_(j) = rho;
  }

  dq.setZero();
  const double threshold = sigma.size() > 0 ? cutoff * sigma(0) : 0.0;
  for (Eigen::Index i = 0; i < sigma.size(); ++i) {
    if (!(sigma(i) > threshold) || !(sigma(i) > 0.0)) continue;
    const double alpha = U.col(i).dot(V);
    double N = 0.0;
    for (const RowBlock& b : blocks_) {
      N += U.col(i).segment(b.offset, b.size).norm();
    }
    const double M = W.col(i).cwiseAbs().dot(column_motion_) / sigma(i);
    const double gamma = (M > N ? N / M : 1.0) * gamma_max;
    AddClamped(alpha / sigma(i), W.col(i), gamma, dq);
  }
  const double size = dq.lpNorm<Eigen::Infinity>();
  if (size > gamma_max) dq *= gamma_max / size;
}

// ---------------------------------------------------------------------------
// ControlTermStep

void ControlTermStep::Resize(int rows, int cols) {
  JJt_.resize(rows, rows);
  lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(rows);
  rhs_.resize(rows);
  beta_.resize(rows);
  pseudo_inverse_.Resize(rows, cols);
  projected_.resize(cols);
}

void ControlTermStep::Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
                              const Eigen::Ref<const Eigen::VectorXd>& V,
                              const Eigen::Ref<const Eigen::VectorXd>& z,
                              Eigen::Ref<Eigen::VectorXd> dq) {
  assert(J.rows() == V.size() && J.cols() == dq.size() && z.size() == dq.size());
  rhs_ = V;
  rhs_.noalias() += J * z;  // V + J z
  JJt_.noalias() = J * J.transpose();
  lu_.compute(JJt_);  // Eq. 5.31: (J Jᵀ) β = V + J z
  const auto pivots = lu_.matrixLU().diagonal().cwiseAbs();
  used_lu_ = pivots.size() == 0 || pivots.minCoeff() > 1e-13 * pivots.maxCoeff();
  if (used_lu_) {
    beta_.noalias() = lu_.solve(rhs_);
    dq.noalias() = J.transpose() * beta_;  // Eq. 5.30: Δq = Jᵀ β − z
  } else {
    // Rank-deficient J (e.g. the zero z row of a planar figure's position
    // goal): the same Eq. 5.29, J⁺(V + J z) − z, with J⁺ from the SVD.
    pseudo_inverse_.Compute(J, rhs_, kControlTermCutoff, 0.0, projected_);
    dq = projected_;
  }
  dq -= z;
}

// ---------------------------------------------------------------------------
// PrioritizedStep

void PrioritizedStep::Resize(std::vector<RowBlock> levels, int cols) {
  levels_.clear();
  levels_.reserve(levels.size());
  for (const RowBlock& rows : levels) {
    Level level;
    level.rows = rows;
    level.A.resize(rows.size, cols);
    level.svd = Eigen::JacobiSVD<Eigen::MatrixXd>(
        rows.size, cols, Eigen::ComputeThinU | Eigen::ComputeThinV);
    level.error.resize(rows.size);
    level.coefficients.resize(std::min(rows.size, cols));
    levels_.push_back(std::move(level));
  }
  F_.resize(cols, cols);
}

void PrioritizedStep::Compute(const Eigen::Ref<const Eigen::MatrixXd>& J,
                              const Eigen::Ref<const Eigen::VectorXd>& V,
                              double cutoff, double damping,
                              Eigen::Ref<Eigen::VectorXd> dq) {
  assert(J.rows() == V.size() && J.cols() == dq.size());
  const double lambda2 = damping * damping;
  F_.setIdentity();
  dq.setZero();
  for (Level& level : levels_) {
    if (level.rows.size == 0) continue;
    const auto Jk = J.middleRows(level.rows.offset, level.rows.size);
    level.A.noalias() = Jk * F_;  // J_k F_{k−1}
    level.error = V.segment(level.rows.offset, level.rows.size);
    level.error.noalias() -= Jk * dq;  // V_k − J_k Δq_{k−1}
    level.svd.compute(level.A, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::VectorXd& sigma = level.svd.singularValues();
    const auto& W = level.svd.matrixV();
    level.coefficients.noalias() = level.svd.matrixU().transpose() * level.error;
    // The threshold is relative to J_k's own scale ‖J_k‖_F ≥ σ_max(J_k), not
    // to the projected A's: a level that its predecessors have (nearly)
    // exhausted has only round-off left in A, which must not be inverted.
    const double threshold = cutoff * Jk.norm();
    for (Eigen::Index i = 0; i < sigma.size(); ++i) {
      if (sigma(i) > threshold && sigma(i) > 0.0) {
        level.coefficients(i) *= sigma(i) / (sigma(i) * sigma(i) + lambda2);
        // F_k = F_{k−1} − A⁺A, A⁺A = Σ_kept w_i w_iᵀ.
        F_.noalias() -= W.col(i) * W.col(i).transpose();
      } else {
        level.coefficients(i) = 0.0;
      }
    }
    dq.noalias() += W * level.coefficients;
  }
}

// ---------------------------------------------------------------------------
// BoxDampedLeastSquares

void BoxDampedLeastSquares::Resize(int rows, int cols) {
  const int k = std::min(rows, cols);
  J_free_.resize(rows, cols);
  normal_.resize(k, k);
  llt_.compute(Eigen::MatrixXd::Identity(k, k));  // sizes it; see above
  target_.resize(rows);
  solution_.resize(k);
  x_hat_.resize(cols);
  x_bound_.resize(cols);
  residual_.resize(rows);
  gradient_.resize(cols);
  state_.assign(cols, 0);
}

void BoxDampedLeastSquares::SolveFree(
    const Eigen::Ref<const Eigen::MatrixXd>& J,
    const Eigen::Ref<const Eigen::VectorXd>& V, double damping,
    const Eigen::Ref<const Eigen::VectorXd>& x) {
  const Eigen::Index n = J.cols();
  // J_F: J with the columns of the working set zeroed; x_B: x on the working
  // set, zero elsewhere.
  J_free_ = J;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (state_[j] != 0) {
      J_free_.col(j).setZero();
      x_bound_(j) = x(j);
    } else {
      x_bound_(j) = 0.0;
    }
  }
  target_ = V;
  target_.noalias() -= J * x_bound_;  // V − J_B x_B
  const double lambda2 = damping * damping;
  if (J.rows() <= n) {
    normal_.noalias() = J_free_ * J_free_.transpose();
    normal_.diagonal().array() += lambda2;
    llt_.compute(normal_);
    solution_ = target_;
    llt_.solveInPlace(solution_);
    x_hat_.noalias() = J_free_.transpose() * solution_;
  } else {
    normal_.noalias() = J_free_.transpose() * J_free_;
    normal_.diagonal().array() += lambda2;
    llt_.compute(normal_);
    solution_.noalias() = J_free_.transpose() * target_;
    llt_.solveInPlace(solution_);
    x_hat_ = solution_;
  }
  // Zeroed columns give x_hat = 0 there; the working set keeps its bounds.
  for (Eigen::Index j = 0; j < n; ++j) {
    if (state_[j] != 0) x_hat_(j) = x(j);
  }
}

BoxDampedLeastSquares::Outcome BoxDampedLeastSquares::Solve(
    const Eigen::Ref<const Eigen::MatrixXd>& J,
    const Eigen::Ref<const Eigen::VectorXd>& V, double damping,
    const Eigen::Ref<const Eigen::VectorXd>& lo,
    const Eigen::Ref<const Eigen::VectorXd>& hi,
    Eigen::Ref<Eigen::VectorXd> x) {
  const Eigen::Index n = J.cols();
  assert(J.rows() == V.size() && x.size() == n && lo.size() == n &&
         hi.size() == n && damping > 0.0);
  // Start at the feasible point nearest 0 (0 itself when q is in the box);
  // coordinates that start on a bound start in the working set.
  for (Eigen::Index j = 0; j < n; ++j) {
    x(j) = std::min(std::max(0.0, lo(j)), hi(j));
    state_[j] = (x(j) == lo(j)) ? -1 : (x(j) == hi(j) ? 1 : 0);
  }
  const double lambda2 = damping * damping;
  Outcome outcome;
  const int max_iterations = 10 + 4 * static_cast<int>(n);
  for (outcome.iterations = 1; outcome.iterations <= max_iterations;
       ++outcome.iterations) {
    SolveFree(J, V, damping, x);
    // Longest feasible fraction of the way to x_hat, and the blocking bound.
    double fraction = 1.0;
    Eigen::Index blocking = -1;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (state_[j] != 0) continue;
      const double d = x_hat_(j) - x(j);
      if (x_hat_(j) > hi(j) && d > 0.0) {
        const double t = (hi(j) - x(j)) / d;
        if (t < fraction) {
          fraction = t;
          blocking = j;
        }
      } else if (x_hat_(j) < lo(j) && d < 0.0) {
        const double t = (lo(j) - x(j)) / d;
        if (t < fraction) {
          fraction = t;
          blocking = j;
        }
      }
    }
    if (blocking >= 0) {
      fraction = std::max(fraction, 0.0);
      for (Eigen::Index j = 0; j < n; ++j) {
        if (state_[j] == 0) {
          x(j) = std::min(std::max(x(j) + fraction * (x_hat_(j) - x(j)), lo(j)),
                          hi(j));
        }
      }
      const bool upper = x_hat_(blocking) > hi(blocking);
      x(blocking) = upper ? hi(blocking) : lo(blocking);
      state_[blocking] = upper ? 1 : -1;
      continue;
    }
    x = x_hat_;
    // Multipliers: gradient g = Jᵀ(Jx − V) + λ²x of ½‖Jx − V‖² + ½λ²‖x‖².
    residual_ = V;
    residual_.noalias() -= J * x;
    gradient_.noalias() = -J.transpose() * residual_;
    gradient_ += lambda2 * x;
    const double tolerance =
        1e-12 * (J.norm() * V.norm() + lambda2 * x.norm()) + 1e-300;
    Eigen::Index release = -1;
    double worst = tolerance;
    for (Eigen::Index j = 0; j < n; ++j) {
      // At lo the objective must not decrease inward (g ≥ 0); at hi, g ≤ 0.
      const double violation =
          state_[j] < 0 ? -gradient_(j) : (state_[j] > 0 ? gradient_(j) : 0.0);
      if (violation > worst) {
        worst = violation;
        release = j;
      }
    }
    if (release < 0) {
      outcome.optimal = true;
      break;
    }
    state_[release] = 0;
  }
  outcome.iterations = std::min(outcome.iterations, max_iterations);
  outcome.active = static_cast<int>(
      std::count_if(state_.begin(), state_.end(), [](signed char s) {
        return s != 0;
      }));
  return outcome;
}

}  // namespace iklab
