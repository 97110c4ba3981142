#include "constraints/tolerance_goals.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "constraints/internal/goal_parameters.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/tolerance_box.h"
#include "constraints/internal/validation.h"
#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

std::string Name(const char* kind, const std::string& site) {
  return internal::StrCat(kind, "(", site, ")");
}

void CheckHalfAngle(double half_angle, const std::string& owner) {
  if (!(half_angle >= 0.0 && half_angle <= M_PI)) {
    ThrowInvalidArgument(owner, ": half_angle must be in [0, pi] radians; got ",
                         half_angle);
  }
}

// Writes the box rows of e against [lower, upper] (finite sides only) and
// their Jacobian rows from ∂e/∂q (3 × nq), in the order k = 0..2, upper then
// lower.
void WriteBoxRows(const Eigen::Vector3d& e, const Eigen::Vector3d& lower,
                  const Eigen::Vector3d& upper, Eigen::Ref<Eigen::VectorXd> c) {
  int row = 0;
  for (int k = 0; k < 3; ++k) {
    if (std::isfinite(upper[k])) c[row++] = e[k] - upper[k];
    if (std::isfinite(lower[k])) c[row++] = lower[k] - e[k];
  }
}

double BoxViolation(const Eigen::Vector3d& e, const Eigen::Vector3d& lower,
                    const Eigen::Vector3d& upper) {
  Eigen::Vector3d v;
  for (int k = 0; k < 3; ++k) {
    v[k] = std::max({0.0, e[k] - upper[k], lower[k] - e[k]});
  }
  return v.norm();
}

}  // namespace

namespace internal {

int CountFiniteBounds(const Eigen::Vector3d& lower,
                      const Eigen::Vector3d& upper) {
  int n = 0;
  for (int k = 0; k < 3; ++k) {
    n += std::isfinite(lower[k]) ? 1 : 0;
    n += std::isfinite(upper[k]) ? 1 : 0;
  }
  return n;
}

void CheckBox(const Eigen::Vector3d& lower, const Eigen::Vector3d& upper,
              const std::string& owner) {
  for (int k = 0; k < 3; ++k) {
    if (std::isnan(lower[k]) || std::isnan(upper[k]) || lower[k] > upper[k] ||
        lower[k] == kInfinity || upper[k] == -kInfinity) {
      ThrowInvalidArgument(owner, ": axis ", k,
                           " needs lower <= upper (no NaN, lower not +inf, "
                           "upper not -inf); got lower ",
                           lower[k], ", upper ", upper[k]);
    }
  }
  if (CountFiniteBounds(lower, upper) == 0) {
    ThrowInvalidArgument(owner,
                         ": every bound is infinite; expected at least one "
                         "finite lower or upper bound");
  }
}

Eigen::Vector3d RotationLog(const Eigen::Matrix3d& R) {
  const Eigen::AngleAxisd aa(R);
  return aa.angle() * aa.axis();
}

Eigen::Matrix3d InverseLeftJacobian(const Eigen::Vector3d& phi) {
  const double theta = phi.norm();
  const Eigen::Matrix3d S = Skew(phi);
  // Coefficient of [φ]×²: 1/θ² − (1 + cos θ)/(2θ sin θ) → 1/12 + θ²/720 as
  // θ → 0 (series, to avoid cancellation).
  const double k = theta < 1e-4
                       ? 1.0 / 12.0 + theta * theta / 720.0
                       : 1.0 / (theta * theta) -
                             (1.0 + std::cos(theta)) /
                                 (2.0 * theta * std::sin(theta));
  return Eigen::Matrix3d::Identity() - 0.5 * S + k * S * S;
}

}  // namespace internal

// ---------------------------------------------------------------- ConeGoal

ConeGoal::ConeGoal(const Model& model, const std::string& site,
                   const Eigen::Vector3d& axis,
                   const Eigen::Vector3d& direction, double half_angle,
                   double weight)
    : InequalityGoal(1, weight, Name("cone", site)),
      site_(model.SiteIndex(site)),
      site_name_(site),
      axis_(axis),
      direction_(direction),
      half_angle_(half_angle),
      cos_half_angle_(std::cos(half_angle)) {
  internal::CheckUnitVector(axis, name(), "axis");
  internal::CheckUnitVector(direction, name(), "direction");
  CheckHalfAngle(half_angle, name());
}

void ConeGoal::DoCheckModel(const Model& model) const {
  internal::CheckSiteOnModel(model, site_, site_name_, name());
}

void ConeGoal::DoEvaluateConstraint(const Model& model, const Data& data,
                                    const Eigen::Ref<const Eigen::VectorXd>&,
                                    Eigen::Ref<Eigen::VectorXd> value,
                                    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Isometry3d X_WS = internal::SitePoseUnchecked(model, data, site_);
  const Eigen::Vector3d b = X_WS.linear() * axis_;
  value[0] = cos_half_angle_ - direction_.dot(b);
  if (jacobian == nullptr) return;
  // ∂b/∂q_i = ω_i × b  ⇒  ∂c/∂q_i = −dᵀ(ω_i × b) = −ω_iᵀ (b × d).
  const Eigen::Vector3d b_x_d = b.cross(direction_);
  jacobian->setZero();
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site_), X_WS.translation(),
      [&](int dof, const Eigen::Vector3d&, const Eigen::Vector3d& w) {
        (*jacobian)(0, dof) = -w.dot(b_x_d);
      });
}

GoalError ConeGoal::Error(const Model& model, const Data& data) const {
  const Eigen::Vector3d b =
      internal::SitePoseUnchecked(model, data, site_).linear() * axis_;
  GoalError error;
  error.angle =
      std::max(0.0, internal::AngleBetween(b, direction_) - half_angle_);
  return error;
}

// ---------------------------------------------------------------- GazeGoal

GazeGoal::GazeGoal(const Model& model, const std::string& site,
                   const Eigen::Vector3d& axis, const Eigen::Vector3d& target,
                   double half_angle, double weight)
    : InequalityGoal(1, weight, Name("gaze", site)),
      site_(model.SiteIndex(site)),
      site_name_(site),
      axis_(axis),
      target_(target),
      half_angle_(half_angle),
      cos_half_angle_(std::cos(half_angle)) {
  internal::CheckUnitVector(axis, name(), "axis");
  internal::CheckFiniteVector(target, name(), "target");
  CheckHalfAngle(half_angle, name());
}

void GazeGoal::DoCheckModel(const Model& model) const {
  internal::CheckSiteOnModel(model, site_, site_name_, name());
}

void GazeGoal::DoEvaluateConstraint(const Model& model, const Data& data,
                                    const Eigen::Ref<const Eigen::VectorXd>&,
                                    Eigen::Ref<Eigen::VectorXd> value,
                                    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Isometry3d X_WS = internal::SitePoseUnchecked(model, data, site_);
  const Eigen::Vector3d p = X_WS.translation();
  const Eigen::Vector3d b = X_WS.linear() * axis_;
  const Eigen::Vector3d to_target = target_ - p;
  const double rho = to_target.norm();
  if (jacobian != nullptr) jacobian->setZero();
  if (rho < 1e-12) {  // no direction: degenerate (see the class comment)
    value[0] = 0.0;
    return;
  }
  const Eigen::Vector3d u = to_target / rho;
  value[0] = cos_half_angle_ - u.dot(b);
  if (jacobian == nullptr) return;
  // ∂c/∂q_i = −(∂u/∂q_i)ᵀ b − uᵀ ∂b/∂q_i
  //         = bᵀ (I − u uᵀ) v_i / ρ − ω_iᵀ (b × u).
  const Eigen::Vector3d projected_b = (b - u * u.dot(b)) / rho;
  const Eigen::Vector3d b_x_u = b.cross(u);
  internal::ForEachJacobianColumn(
      model, data, model.site_step(site_), p,
      [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d& w) {
        (*jacobian)(0, dof) = projected_b.dot(v) - w.dot(b_x_u);
      });
}

GoalError GazeGoal::Error(const Model& model, const Data& data) const {
  const Eigen::Isometry3d X_WS = internal::SitePoseUnchecked(model, data, site_);
  const Eigen::Vector3d to_target = target_ - X_WS.translation();
  GoalError error;
  if (to_target.norm() < 1e-12) {
    error.degenerate = true;
    return error;
  }
  error.angle = std::max(0.0, internal::AngleBetween(X_WS.linear() * axis_,
                                                     to_target.normalized()) -
                                  half_angle_);
  return error;
}

// ---------------------------------------------------------- PositionBoxGoal

PositionBoxGoal::PositionBoxGoal(const Model& model, const std::string& site,
                                 const Eigen::Isometry3d& frame,
                                 const Eigen::Vector3d& lower,
                                 const Eigen::Vector3d& upper, double weight)
    : InequalityGoal(internal::CountFiniteBounds(lower, upper), weight,
                     Name("position-box", site)),
      site_(model.SiteIndex(site)),
      site_name_(site),
      frame_(frame),
      lower_(lower),
      upper_(upper) {
  internal::CheckBox(lower, upper, name());
  internal::CheckRotation(frame.linear(), name(), "frame rotation");
  internal::CheckFiniteVector(frame.translation(), name(), "frame origin");
}

void PositionBoxGoal::DoCheckModel(const Model& model) const {
  internal::CheckSiteOnModel(model, site_, site_name_, name());
}

void PositionBoxGoal::DoEvaluateConstraint(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Vector3d p =
      internal::SitePoseUnchecked(model, data, site_).translation();
  const Eigen::Matrix3d R_TW = frame_.linear().transpose();
  const Eigen::Vector3d e = R_TW * (p - frame_.translation());
  WriteBoxRows(e, lower_, upper_, value);
  if (jacobian == nullptr) return;
  jacobian->setZero();
  int row = 0;
  for (int k = 0; k < 3; ++k) {
    // ∂e_k/∂q_i = (R_WTᵀ v_i)_k = t_kᵀ v_i with t_k the k-th axis of T.
    const Eigen::Vector3d t_k = R_TW.row(k).transpose();
    for (const double sign : {1.0, -1.0}) {
      const double bound = sign > 0 ? upper_[k] : lower_[k];
      if (!std::isfinite(bound)) continue;
      internal::ForEachJacobianColumn(
          model, data, model.site_step(site_), p,
          [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
            (*jacobian)(row, dof) = sign * t_k.dot(v);
          });
      ++row;
    }
  }
}

GoalError PositionBoxGoal::Error(const Model& model, const Data& data) const {
  const Eigen::Vector3d p =
      internal::SitePoseUnchecked(model, data, site_).translation();
  GoalError error;
  error.position = BoxViolation(
      frame_.linear().transpose() * (p - frame_.translation()), lower_, upper_);
  return error;
}

// ------------------------------------------------------- OrientationBoxGoal

OrientationBoxGoal::OrientationBoxGoal(const Model& model,
                                       const std::string& site,
                                       const Eigen::Matrix3d& target,
                                       const Eigen::Vector3d& lower,
                                       const Eigen::Vector3d& upper,
                                       double weight)
    : InequalityGoal(internal::CountFiniteBounds(lower, upper), weight,
                     Name("orientation-box", site)),
      site_(model.SiteIndex(site)),
      site_name_(site),
      target_(target),
      lower_(lower),
      upper_(upper) {
  internal::CheckBox(lower, upper, name());
  internal::CheckRotation(target, name(), "target");
  for (int k = 0; k < 3; ++k) {
    for (const double b : {lower[k], upper[k]}) {
      if (std::isfinite(b) && !(std::abs(b) < M_PI)) {
        ThrowInvalidArgument(name(), ": axis ", k,
                             " bound must be in (-pi, pi) radians or "
                             "infinite; got ",
                             b);
      }
    }
  }
}

void OrientationBoxGoal::DoCheckModel(const Model& model) const {
  internal::CheckSiteOnModel(model, site_, site_name_, name());
}

void OrientationBoxGoal::DoEvaluateConstraint(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Isometry3d X_WS = internal::SitePoseUnchecked(model, data, site_);
  const Eigen::Matrix3d R_TW = target_.transpose();
  const Eigen::Vector3d phi = internal::RotationLog(R_TW * X_WS.linear());
  WriteBoxRows(phi, lower_, upper_, value);
  if (jacobian == nullptr) return;
  // ∂φ/∂q_i = J_l⁻¹(φ) R_WTᵀ ω_i = M ω_i.
  const Eigen::Matrix3d M = internal::InverseLeftJacobian(phi) * R_TW;
  jacobian->setZero();
  int row = 0;
  for (int k = 0; k < 3; ++k) {
    const Eigen::Vector3d m_k = M.row(k).transpose();
    for (const double sign : {1.0, -1.0}) {
      const double bound = sign > 0 ? upper_[k] : lower_[k];
      if (!std::isfinite(bound)) continue;
      internal::ForEachJacobianColumn(
          model, data, model.site_step(site_), X_WS.translation(),
          [&](int dof, const Eigen::Vector3d&, const Eigen::Vector3d& w) {
            (*jacobian)(row, dof) = sign * m_k.dot(w);
          });
      ++row;
    }
  }
}

GoalError OrientationBoxGoal::Error(const Model& model,
                                    const Data& data) const {
  const Eigen::Matrix3d R_WS =
      internal::SitePoseUnchecked(model, data, site_).linear();
  GoalError error;
  error.angle = BoxViolation(
      internal::RotationLog(target_.transpose() * R_WS), lower_, upper_);
  return error;
}

GoalErrorParts ConeGoal::error_parts() const { return {false, true, false}; }

std::vector<GoalParameter> ConeGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendVector("axis", axis_, &out);
  internal::AppendVector("direction", direction_, &out);
  out.push_back({"half_angle", half_angle_});
  return out;
}

std::vector<BoundedQuantity> ConeGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  const Eigen::Vector3d b =
      internal::SitePoseUnchecked(model, data, site_).linear() * axis_;
  BoundedQuantity angle{"angle", internal::AngleBetween(b, direction_)};
  angle.upper = half_angle_;
  angle.angular = true;
  return {angle};
}

GoalErrorParts GazeGoal::error_parts() const { return {false, true, false}; }

std::vector<GoalParameter> GazeGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendVector("axis", axis_, &out);
  internal::AppendVector("target", target_, &out);
  out.push_back({"half_angle", half_angle_});
  return out;
}

std::vector<BoundedQuantity> GazeGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  const Eigen::Isometry3d X_WS =
      internal::SitePoseUnchecked(model, data, site_);
  const Eigen::Vector3d to_target = target_ - X_WS.translation();
  BoundedQuantity angle{"angle",
                        to_target.norm() < 1e-12
                            ? std::numeric_limits<double>::quiet_NaN()
                            : internal::AngleBetween(X_WS.linear() * axis_,
                                                     to_target.normalized())};
  angle.upper = half_angle_;
  angle.angular = true;
  return {angle};
}

GoalErrorParts PositionBoxGoal::error_parts() const {
  return {true, false, false};
}

std::vector<GoalParameter> PositionBoxGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendPose("frame", frame_, &out);
  internal::AppendBox({"x", "y", "z"}, lower_, upper_, &out);
  return out;
}

std::vector<BoundedQuantity> PositionBoxGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  const Eigen::Vector3d e =
      frame_.linear().transpose() *
      (internal::SitePoseUnchecked(model, data, site_).translation() -
       frame_.translation());
  std::vector<BoundedQuantity> out;
  for (int k = 0; k < 3; ++k) {
    out.push_back(
        {std::string(1, "xyz"[k]), e[k], lower_[k], upper_[k], false});
  }
  return out;
}

GoalErrorParts OrientationBoxGoal::error_parts() const {
  return {false, true, false};
}

std::vector<GoalParameter> OrientationBoxGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendRotation("target", target_, &out);
  internal::AppendBox({"rx", "ry", "rz"}, lower_, upper_, &out);
  return out;
}

std::vector<BoundedQuantity> OrientationBoxGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  const Eigen::Vector3d phi = internal::RotationLog(
      target_.transpose() *
      internal::SitePoseUnchecked(model, data, site_).linear());
  std::vector<BoundedQuantity> out;
  for (int k = 0; k < 3; ++k) {
    out.push_back(
        {std::string("r") + "xyz"[k], phi[k], lower_[k], upper_[k], true});
  }
  return out;
}

}  // namespace iklab
