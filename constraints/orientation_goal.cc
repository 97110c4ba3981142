#include "constraints/orientation_goal.h"

#include "constraints/internal/goal_parameters.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/tolerance_box.h"
#include "constraints/internal/validation.h"
#include "constraints/tolerance_goals.h"

namespace iklab {

OrientationGoal::OrientationGoal(const Model& model, const std::string& site,
                                 const Eigen::Matrix3d& target, double weight)
    : SiteGoal(model, site, 6, weight, "orientation") {
  set_target(target);
}

void OrientationGoal::set_target(const Eigen::Matrix3d& target) {
  internal::CheckRotation(target, name(), "target");
  target_ = target;
}

void OrientationGoal::DoEvaluate(const Model& model, const Data& data,
                                 const Eigen::Ref<const Eigen::VectorXd>&,
                                 Eigen::Ref<Eigen::VectorXd> residual,
                                 Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Isometry3d X_WS =
      internal::SitePoseUnchecked(model, data, site());
  const Eigen::Vector3d x_e = X_WS.linear().col(0);
  const Eigen::Vector3d y_e = X_WS.linear().col(1);
  residual.head<3>() = target_.col(0) - x_e;
  residual.tail<3>() = target_.col(1) - y_e;
  if (jacobian == nullptr) return;
  // A column of R_WS moves with the site's angular velocity:
  //   ∂x_e/∂q_i = ω_i × x_e = −x_e × ω_i,
  // so ∂(x_g − x_e)/∂q_i = x_e × ω_i = [x_e]× ω_i (and likewise for y).
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site()), X_WS.translation(),
      [&](int dof, const Eigen::Vector3d&, const Eigen::Vector3d& w) {
        J.col(dof).head<3>() = x_e.cross(w);
        J.col(dof).tail<3>() = y_e.cross(w);
      });
}

GoalError OrientationGoal::Error(const Model& model, const Data& data) const {
  GoalError error;
  error.angle = internal::RotationAngle(
      target_, internal::SitePoseUnchecked(model, data, site()).linear());
  return error;
}

AxisGoal::AxisGoal(const Model& model, const std::string& site,
                   const Eigen::Vector3d& axis, const Eigen::Vector3d& target,
                   double weight)
    : SiteGoal(model, site, 3, weight, "axis") {
  internal::CheckUnitVector(axis, name(), "axis");
  axis_ = axis;
  set_target(target);
}

void AxisGoal::set_target(const Eigen::Vector3d& target) {
  internal::CheckUnitVector(target, name(), "target");
  target_ = target;
}

void AxisGoal::DoEvaluate(const Model& model, const Data& data,
                          const Eigen::Ref<const Eigen::VectorXd>&,
                          Eigen::Ref<Eigen::VectorXd> residual,
                          Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Isometry3d X_WS =
      internal::SitePoseUnchecked(model, data, site());
  const Eigen::Vector3d a_W = X_WS.linear() * axis_;
  residual = target_ - a_W;
  if (jacobian == nullptr) return;
  // ∂a_W/∂q_i = ω_i × a_W  ⇒  ∂r/∂q_i = a_W × ω_i = [a_W]× ω_i.
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site()), X_WS.translation(),
      [&](int dof, const Eigen::Vector3d&, const Eigen::Vector3d& w) {
        J.col(dof) = a_W.cross(w);
      });
}

GoalError AxisGoal::Error(const Model& model, const Data& data) const {
  const Eigen::Vector3d a_W =
      internal::SitePoseUnchecked(model, data, site()).linear() * axis_;
  GoalError error;
  error.angle = internal::AngleBetween(a_W, target_);
  error.aim = 1.0 - a_W.dot(target_);
  return error;
}

RotationVectorGoal::RotationVectorGoal(const Model& model,
                                       const std::string& site,
                                       const Eigen::Matrix3d& target,
                                       double weight)
    : SiteGoal(model, site, 3, weight, "rotation-vector"), target_(target) {
  internal::CheckRotation(target, name(), "target");
}

void RotationVectorGoal::DoEvaluate(const Model& model, const Data& data,
                                    const Eigen::Ref<const Eigen::VectorXd>&,
                                    Eigen::Ref<Eigen::VectorXd> residual,
                                    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Isometry3d X_WS = internal::SitePoseUnchecked(model, data, site());
  const Eigen::Matrix3d R_GW = target_.transpose();
  const Eigen::Vector3d phi = internal::RotationLog(R_GW * X_WS.linear());
  residual = -phi;
  if (jacobian == nullptr) return;
  // ∂φ/∂q_i = J_l⁻¹(φ) R_WGᵀ ω_i  ⇒  ∂r/∂q_i = −M ω_i.
  const Eigen::Matrix3d M = internal::InverseLeftJacobian(phi) * R_GW;
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site()), X_WS.translation(),
      [&](int dof, const Eigen::Vector3d&, const Eigen::Vector3d& w) {
        J.col(dof) = -(M * w);
      });
}

GoalError RotationVectorGoal::Error(const Model& model,
                                    const Data& data) const {
  GoalError error;
  error.angle = internal::RotationAngle(
      target_, internal::SitePoseUnchecked(model, data, site()).linear());
  return error;
}

AxisTangentGoal::AxisTangentGoal(const Model& model, const std::string& site,
                                 const Eigen::Vector3d& axis,
                                 const Eigen::Vector3d& target, double weight)
    : SiteGoal(model, site, 2, weight, "axis-tangent"),
      axis_(axis),
      target_(target) {
  internal::CheckUnitVector(axis, name(), "axis");
  internal::CheckUnitVector(target, name(), "target");
  // t_1 ⊥ a_G from the world axis least aligned with it; t_2 = a_G × t_1.
  Eigen::Index k;
  target.cwiseAbs().minCoeff(&k);
  t1_ = target.cross(Eigen::Vector3d::Unit(k)).normalized();
  t2_ = target.cross(t1_);
}

void AxisTangentGoal::DoEvaluate(const Model& model, const Data& data,
                                 const Eigen::Ref<const Eigen::VectorXd>&,
                                 Eigen::Ref<Eigen::VectorXd> residual,
                                 Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Isometry3d X_WS = internal::SitePoseUnchecked(model, data, site());
  const Eigen::Vector3d b = X_WS.linear() * axis_;
  residual << -t1_.dot(b), -t2_.dot(b);
  if (jacobian == nullptr) return;
  // ∂b/∂q_i = ω_i × b  ⇒  ∂(t_kᵀ b)/∂q_i = ω_iᵀ (b × t_k).
  const Eigen::Vector3d b_x_t1 = b.cross(t1_), b_x_t2 = b.cross(t2_);
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site()), X_WS.translation(),
      [&](int dof, const Eigen::Vector3d&, const Eigen::Vector3d& w) {
        J(0, dof) = -w.dot(b_x_t1);
        J(1, dof) = -w.dot(b_x_t2);
      });
}

GoalError AxisTangentGoal::Error(const Model& model, const Data& data) const {
  const Eigen::Vector3d b =
      internal::SitePoseUnchecked(model, data, site()).linear() * axis_;
  GoalError error;
  error.angle = internal::AngleBetween(b, target_);
  error.aim = 1.0 - b.dot(target_);
  return error;
}

GoalErrorParts OrientationGoal::error_parts() const {
  return {false, true, false};
}

std::vector<GoalParameter> OrientationGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendRotation("target", target_, &out);
  return out;
}

GoalErrorParts AxisGoal::error_parts() const { return {false, true, true}; }

std::vector<GoalParameter> AxisGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendVector("axis", axis_, &out);
  internal::AppendVector("direction", target_, &out);
  return out;
}

GoalErrorParts RotationVectorGoal::error_parts() const {
  return {false, true, false};
}

std::vector<GoalParameter> RotationVectorGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendRotation("target", target_, &out);
  return out;
}

GoalErrorParts AxisTangentGoal::error_parts() const {
  return {false, true, true};
}

std::vector<GoalParameter> AxisTangentGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendVector("axis", axis_, &out);
  internal::AppendVector("direction", target_, &out);
  return out;
}

}  // namespace iklab
