#include "constraints/position_orientation_goal.h"

#include <cmath>

#include "constraints/internal/goal_parameters.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/validation.h"
#include "framework/internal/check.h"

namespace iklab {

PositionOrientationGoal::PositionOrientationGoal(
    const Model& model, const std::string& site,
    const Eigen::Isometry3d& target, double weight, const Scales& scales)
    : SiteGoal(model, site, 9, weight, "position_orientation"),
      scales_(scales) {
  internal::CheckNonNegative(scales.w_p, name(), "scales.w_p");
  internal::CheckNonNegative(scales.w_o, name(), "scales.w_o");
  internal::CheckNonNegative(scales.c_dx, name(), "scales.c_dx");
  internal::CheckNonNegative(scales.c_dy, name(), "scales.c_dy");
  set_target(target);
}

void PositionOrientationGoal::set_target(const Eigen::Isometry3d& target) {
  internal::CheckFiniteVector(target.translation(), name(),
                              "target translation");
  internal::CheckRotation(target.linear(), name(), "target rotation");
  target_ = target;
}

void PositionOrientationGoal::DoEvaluate(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&,
    Eigen::Ref<Eigen::VectorXd> residual,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const double sp = std::sqrt(scales_.w_p);
  const double sx = std::sqrt(scales_.w_o) * scales_.c_dx;
  const double sy = std::sqrt(scales_.w_o) * scales_.c_dy;
  const Eigen::Isometry3d X_WS =
      internal::SitePoseUnchecked(model, data, site());
  const Eigen::Vector3d& p_WS = X_WS.translation();
  const Eigen::Vector3d x_e = X_WS.linear().col(0);
  const Eigen::Vector3d y_e = X_WS.linear().col(1);
  residual.segment<3>(0) = sp * (target_.translation() - p_WS);
  residual.segment<3>(3) = sx * (target_.linear().col(0) - x_e);
  residual.segment<3>(6) = sy * (target_.linear().col(1) - y_e);
  if (jacobian == nullptr) return;
  // Rows 0–2: ∂(p_WT − p_WS)/∂q_i = −v_i.
  // Rows 3–8: ∂(x_g − x_e)/∂q_i = −ω_i × x_e = x_e × ω_i (same for y),
  // each block scaled like its residual.
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site()), p_WS,
      [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d& w) {
        J.col(dof).segment<3>(0) = -sp * v;
        J.col(dof).segment<3>(3) = sx * x_e.cross(w);
        J.col(dof).segment<3>(6) = sy * y_e.cross(w);
      });
}

GoalError PositionOrientationGoal::Error(const Model& model,
                                         const Data& data) const {
  const Eigen::Isometry3d X_WS =
      internal::SitePoseUnchecked(model, data, site());
  GoalError error;
  error.position = (target_.translation() - X_WS.translation()).norm();
  error.angle = internal::RotationAngle(target_.linear(), X_WS.linear());
  return error;
}

GoalErrorParts PositionOrientationGoal::error_parts() const {
  return {true, true, false};
}

std::vector<GoalParameter> PositionOrientationGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendPose("target", target_, &out);
  return out;
}

}  // namespace iklab
