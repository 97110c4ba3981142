#include "constraints/aiming_goal.h"

#include <algorithm>
#include <cmath>

#include "constraints/internal/goal_parameters.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/validation.h"
#include "framework/internal/check.h"

namespace iklab {

namespace {

// If no coordinate moves `site` (every step from the root to it is fixed),
// stores its constant world position in *p_WS and returns true.
bool FixedSitePosition(const Model& model, int site, Eigen::Vector3d* p_WS) {
  Eigen::Isometry3d X = model.X_FS(site);
  int i = model.site_step(site);
  for (; i > 0; i = model.parent(i)) {
    if (model.dof(i) >= 0) return false;
    X = model.X_PJ(i) * X;
  }
  X = model.X_PJ(0) * X;  // the root step (ForwardKinematics: X_W[0] = X_PJ[0])
  *p_WS = X.translation();
  return true;
}

}  // namespace

AimingGoal::AimingGoal(const Model& model, const std::string& site,
                       const Eigen::Vector3d& direction,
                       const Eigen::Vector3d& target, double weight,
                       double min_distance)
    : SiteGoal(model, site, 3, weight, "aiming"),
      min_distance_(min_distance) {
  internal::CheckUnitVector(direction, name(), "direction");
  if (!std::isfinite(min_distance) || min_distance <= 0.0) {
    internal::ThrowInvalidArgument(name(), ": min_distance must be finite "
                                   "and > 0; got ", min_distance);
  }
  direction_ = direction;
  set_target(model, target);
}

void AimingGoal::CheckTarget(const Model& model,
                             const Eigen::Vector3d& target) const {
  internal::CheckFiniteVector(target, name(), "target");
  Eigen::Vector3d p_WS;
  if (FixedSitePosition(model, site(), &p_WS) &&
      (target - p_WS).norm() < min_distance_) {
    internal::ThrowInvalidArgument(
        name(), ": target ", internal::FormatVector(target),
        " coincides with the aim point of site '", site_name(),
        "', which no joint can move; the aim direction is undefined");
  }
}

void AimingGoal::set_target(const Model& model,
                            const Eigen::Vector3d& target) {
  CheckTarget(model, target);
  target_ = target;
}

bool AimingGoal::IsDegenerate(const Model& model, const Data& data) const {
  const Eigen::Vector3d p_WS =
      internal::SitePoseUnchecked(model, data, site()).translation();
  return !((target_ - p_WS).norm() >= min_distance_);
}

void AimingGoal::DoEvaluate(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>&,
                            Eigen::Ref<Eigen::VectorXd> residual,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Isometry3d X_WS =
      internal::SitePoseUnchecked(model, data, site());
  const Eigen::Vector3d d = target_ - X_WS.translation();
  const double distance = d.norm();
  if (!(distance >= min_distance_)) {
    // No direction to aim along: neutral (zero) residual and Jacobian rather
    // than a NaN; Error() reports the degenerate state.
    residual.setZero();
    if (jacobian != nullptr) jacobian->setZero();
    return;
  }
  const Eigen::Vector3d u = d / distance;
  const Eigen::Vector3d v_W = X_WS.linear() * direction_;
  residual = u - v_W;
  if (jacobian == nullptr) return;
  // u = d/‖d‖ with d = p − p_WS:
  //   ∂u/∂q_i = (I − u uᵀ)(∂d/∂q_i)/‖d‖ = −(I − u uᵀ) v_i / ‖d‖,
  // v_W = R_WS v_S turns with the site:
  //   ∂v_W/∂q_i = ω_i × v_W,
  // so ∂r/∂q_i = −(v_i − u (u·v_i))/‖d‖ + v_W × ω_i.
  const double inverse_distance = 1.0 / distance;
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site()), X_WS.translation(),
      [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d& w) {
        J.col(dof) =
            -(v - u * u.dot(v)) * inverse_distance + v_W.cross(w);
      });
}

GoalError AimingGoal::Error(const Model& model, const Data& data) const {
  const Eigen::Isometry3d X_WS =
      internal::SitePoseUnchecked(model, data, site());
  const Eigen::Vector3d d = target_ - X_WS.translation();
  const double distance = d.norm();
  GoalError error;
  if (!(distance >= min_distance_)) {
    // Undefined direction: report the worst aim so no tolerance accepts it.
    error.degenerate = true;
    error.aim = 2.0;
    error.angle = M_PI;
    return error;
  }
  const Eigen::Vector3d u = d / distance;
  const Eigen::Vector3d v_W = X_WS.linear() * direction_;
  error.angle = internal::AngleBetween(u, v_W);
  error.aim = 1.0 - std::clamp(u.dot(v_W), -1.0, 1.0);
  return error;
}

GoalErrorParts AimingGoal::error_parts() const { return {false, true, true}; }

std::vector<GoalParameter> AimingGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendVector("axis", direction_, &out);
  internal::AppendVector("target", target_, &out);
  return out;
}

}  // namespace iklab
