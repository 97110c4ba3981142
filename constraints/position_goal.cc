#include "constraints/position_goal.h"

#include "constraints/internal/goal_parameters.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/validation.h"

namespace iklab {

PositionGoal::PositionGoal(const Model& model, const std::string& site,
                           const Eigen::Vector3d& target, double weight)
    : SiteGoal(model, site, 3, weight, "position") {
  set_target(target);
}

void PositionGoal::set_target(const Eigen::Vector3d& target) {
  internal::CheckFiniteVector(target, name(), "target");
  target_ = target;
}

void PositionGoal::DoEvaluate(const Model& model, const Data& data,
                              const Eigen::Ref<const Eigen::VectorXd>&,
                              Eigen::Ref<Eigen::VectorXd> residual,
                              Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Vector3d p_WS =
      internal::SitePoseUnchecked(model, data, site()).translation();
  residual = target_ - p_WS;
  if (jacobian == nullptr) return;
  // r = p_WT − p_WS(q)  ⇒  ∂r/∂q_i = −∂p_WS/∂q_i = −v_i.
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site()), p_WS,
      [&J](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
        J.col(dof) = -v;
      });
}

GoalError PositionGoal::Error(const Model& model, const Data& data) const {
  GoalError error;
  error.position =
      (target_ - internal::SitePoseUnchecked(model, data, site()).translation())
          .norm();
  return error;
}

GoalErrorParts PositionGoal::error_parts() const {
  return {true, false, false};
}

std::vector<GoalParameter> PositionGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendVector("target", target_, &out);
  return out;
}

}  // namespace iklab
