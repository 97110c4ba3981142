#include "constraints/regularizers.h"

#include <cmath>

#include "constraints/internal/validation.h"
#include "framework/internal/check.h"

namespace iklab {

namespace {

void CheckSize(const Eigen::VectorXd& v, int nq, const std::string& owner,
               const char* what) {
  if (v.size() != nq) {
    internal::ThrowInvalidArgument(owner, ": ", what, " has ", v.size(),
                                   " entries; expected nq = ", nq);
  }
}

void CheckModelSize(const Model& model, int size, const std::string& owner) {
  if (model.nq() != size) {
    internal::ThrowInvalidArgument(owner, ": built for a model with nq = ",
                                   size, ", but this model has nq = ",
                                   model.nq(),
                                   " (goal built for a different model?)");
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// TikhonovRegularizer

TikhonovRegularizer::TikhonovRegularizer(const Model& model, double alpha,
                                         const Eigen::VectorXd& reference,
                                         double weight)
    : Goal(model.nq(), weight, "tikhonov"), alpha_(alpha) {
  internal::CheckNonNegative(alpha, name(), "alpha");
  sqrt_two_alpha_ = std::sqrt(2.0 * alpha);
  set_reference(reference);
}

void TikhonovRegularizer::set_reference(const Eigen::VectorXd& reference) {
  CheckSize(reference, num_residuals(), name(), "reference q_ref");
  internal::CheckFiniteVector(reference, name(), "reference q_ref");
  reference_ = reference;
}

void TikhonovRegularizer::DoEvaluate(
    const Model&, const Data&, const Eigen::Ref<const Eigen::VectorXd>& q,
    Eigen::Ref<Eigen::VectorXd> residual,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  // r = √(2α)(q − q_ref)  ⇒  ∂r/∂q = √(2α) I.
  residual = sqrt_two_alpha_ * (q - reference_);
  if (jacobian == nullptr) return;
  jacobian->setZero();
  jacobian->diagonal().setConstant(sqrt_two_alpha_);
}

void TikhonovRegularizer::DoCheckModel(const Model& model) const {
  CheckModelSize(model, num_residuals(), name());
}

GoalError TikhonovRegularizer::Error(const Model&, const Data&) const {
  return GoalError();
}

// ---------------------------------------------------------------------------
// JointCenterBias

JointCenterBias::JointCenterBias(const Model& model,
                                 const Eigen::VectorXd& centers,
                                 const Eigen::VectorXd& gains, double weight)
    : Goal(model.nq(), weight, "joint_center_bias") {
  set_centers(centers);
  set_gains(gains);
}

void JointCenterBias::set_centers(const Eigen::VectorXd& centers) {
  CheckSize(centers, num_residuals(), name(), "centers");
  internal::CheckFiniteVector(centers, name(), "centers");
  centers_ = centers;
}

void JointCenterBias::set_gains(const Eigen::VectorXd& gains) {
  CheckSize(gains, num_residuals(), name(), "gains");
  for (Eigen::Index i = 0; i < gains.size(); ++i) {
    if (!std::isfinite(gains[i]) || gains[i] < 0.0) {
      internal::ThrowInvalidArgument(name(), ": gains[", i,
                                     "] must be finite and >= 0; got ",
                                     gains[i]);
    }
  }
  gains_ = gains;
  sqrt_two_gains_ = (2.0 * gains).cwiseSqrt();
}

double JointCenterBias::Cost(const Eigen::Ref<const Eigen::VectorXd>& q) const {
  return (gains_.array() * (q - centers_).array().square()).sum();
}

void JointCenterBias::DoEvaluate(const Model&, const Data&,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 Eigen::Ref<Eigen::VectorXd> residual,
                                 Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  // r_i = √(2a_i)(q_i − q_ci)  ⇒  ∂r_i/∂q_j = √(2a_i) δ_ij.
  residual = sqrt_two_gains_.cwiseProduct(q - centers_);
  if (jacobian == nullptr) return;
  jacobian->setZero();
  jacobian->diagonal() = sqrt_two_gains_;
}

void JointCenterBias::DoCheckModel(const Model& model) const {
  CheckModelSize(model, num_residuals(), name());
}

GoalError JointCenterBias::Error(const Model&, const Data&) const {
  return GoalError();
}

}  // namespace iklab
