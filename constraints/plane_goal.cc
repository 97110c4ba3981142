#include "constraints/plane_goal.h"

#include <cmath>

#include "constraints/internal/goal_parameters.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/validation.h"

namespace iklab {

PlaneGoal::PlaneGoal(const Model& model, const std::string& site,
                     const Eigen::Vector3d& point,
                     const Eigen::Vector3d& normal, double weight)
    : SiteGoal(model, site, 1, weight, "plane") {
  set_plane(point, normal);
}

void PlaneGoal::set_plane(const Eigen::Vector3d& point,
                          const Eigen::Vector3d& normal) {
  internal::CheckFiniteVector(point, name(), "point");
  internal::CheckUnitVector(normal, name(), "normal");
  point_ = point;
  normal_ = normal;
}

void PlaneGoal::DoEvaluate(const Model& model, const Data& data,
                           const Eigen::Ref<const Eigen::VectorXd>&,
                           Eigen::Ref<Eigen::VectorXd> residual,
                           Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Vector3d p_WS =
      internal::SitePoseUnchecked(model, data, site()).translation();
  residual[0] = (point_ - p_WS).dot(normal_);
  if (jacobian == nullptr) return;
  // r = (p − p_WS(q))·n̂  ⇒  ∂r/∂q_i = −n̂·v_i.
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site()), p_WS,
      [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
        J(0, dof) = -normal_.dot(v);
      });
}

GoalError PlaneGoal::Error(const Model& model, const Data& data) const {
  GoalError error;
  error.position = std::abs(
      (point_ - internal::SitePoseUnchecked(model, data, site()).translation())
          .dot(normal_));
  return error;
}

GoalErrorParts PlaneGoal::error_parts() const { return {true, false, false}; }

std::vector<GoalParameter> PlaneGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendVector("point", point_, &out);
  internal::AppendVector("normal", normal_, &out);
  return out;
}

}  // namespace iklab
