#ifndef IKLAB_CONSTRAINTS_REGULARIZERS_H_
#define IKLAB_CONSTRAINTS_REGULARIZERS_H_

/// @file
/// Regularizers: goals on the configuration itself rather than on a site.
/// They read q directly (uses_configuration() is true), so evaluate them
/// with Goal::Evaluate(model, data, q, ...). Their Error() is all zeros:
/// they have no natural-unit error and never block convergence.

#include <Eigen/Core>

#include "constraints/goal.h"

namespace iklab {

/// Tikhonov regularization α ‖q − q_ref‖² (NLP paper, Example 3.1), with
/// q_ref the start pose or a rest pose:
///
///     r = √(2α) (q − q_ref)   (nq residuals),   ∂r/∂q = √(2α) I
///
/// so ½‖r‖² = α ‖q − q_ref‖² exactly; with the goal weight w (default 1)
/// the potential is w α ‖q − q_ref‖².
class TikhonovRegularizer final : public Goal {
 public:
  /// @param alpha α ≥ 0.
  /// @param reference q_ref, model.nq() finite entries.
  /// @throws std::invalid_argument for a negative / non-finite α, a q_ref of
  ///   the wrong size or with a NaN/Inf, or a bad weight.
  TikhonovRegularizer(const Model& model, double alpha,
                      const Eigen::VectorXd& reference, double weight = 1.0);

  double alpha() const { return alpha_; }
  const Eigen::VectorXd& reference() const { return reference_; }
  /// Sets q_ref (e.g. to each solve's start pose).
  /// @throws std::invalid_argument for a wrong size or a NaN/Inf.
  void set_reference(const Eigen::VectorXd& reference);

  bool uses_configuration() const override { return true; }
  /// None: a regularizer has no goal error (Error() reports 0).
  GoalErrorParts error_parts() const override { return {}; }
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;
  void DoCheckModel(const Model& model) const override;

  double alpha_;
  double sqrt_two_alpha_;
  Eigen::VectorXd reference_;
};

/// Joint-centre bias, the cost behind Parent's null-space control term
/// (Eq. 5.27, after Liégeois):
///
///     H(q) = Σ_i a_i (q_i − q_ci)²,
///     r_i = √(2 a_i) (q_i − q_ci),   ∂r/∂q = diag(√(2 a_i))
///
/// so ½‖r‖² = H and ∇H = 2 a_i (q_i − q_ci) = z_i, the vector z of Eq. 5.28.
/// Gains a_i ≥ 0 ("the higher the gain, the stiffer the joint"); a_i = 0
/// leaves coordinate i free.
class JointCenterBias final : public Goal {
 public:
  /// @param centers desired angles q_c (nq finite entries), e.g.
  ///   model.MidLimits().
  /// @param gains a (nq finite entries ≥ 0).
  /// @throws std::invalid_argument naming the vector and the first bad entry.
  JointCenterBias(const Model& model, const Eigen::VectorXd& centers,
                  const Eigen::VectorXd& gains, double weight = 1.0);

  const Eigen::VectorXd& centers() const { return centers_; }
  const Eigen::VectorXd& gains() const { return gains_; }
  /// @throws std::invalid_argument as the constructor.
  void set_centers(const Eigen::VectorXd& centers);
  void set_gains(const Eigen::VectorXd& gains);
  /// H(q) = Σ a_i (q_i − q_ci)² (without the goal weight).
  double Cost(const Eigen::Ref<const Eigen::VectorXd>& q) const;

  bool uses_configuration() const override { return true; }
  /// None: a regularizer has no goal error (Error() reports 0).
  GoalErrorParts error_parts() const override { return {}; }
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;
  void DoCheckModel(const Model& model) const override;

  Eigen::VectorXd centers_;
  Eigen::VectorXd gains_;
  Eigen::VectorXd sqrt_two_gains_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_REGULARIZERS_H_
