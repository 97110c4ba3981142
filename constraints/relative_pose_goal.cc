#include "constraints/relative_pose_goal.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "constraints/internal/goal_parameters.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/tolerance_box.h"
#include "constraints/internal/validation.h"
#include "constraints/tolerance_goals.h"
#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace {

using Vector6d = Eigen::Matrix<double, 6, 1>;

// B's pose in the frame T = A · X_AT, which is fixed on site A:
//   e = [R_WTᵀ (p_WB − p_WT); Log(R_WTᵀ R_WB)]
// (= [R_ATᵀ (p_AB − p_AT); Log(R_ATᵀ R_AB)], the header's e, since
// X_WT = X_WA X_AT).
struct RelativePose {
  Eigen::Vector3d p_WB;
  Eigen::Matrix3d R_TW;  // R_WTᵀ
  Vector6d e;
};

RelativePose ComputeRelativePose(const Model& model, const Data& data,
                                 int site_a, int site_b,
                                 const Eigen::Isometry3d& X_AT) {
  const Eigen::Isometry3d X_WT =
      internal::SitePoseUnchecked(model, data, site_a) * X_AT;
  const Eigen::Isometry3d X_WB = internal::SitePoseUnchecked(model, data, site_b);
  RelativePose rel;
  rel.p_WB = X_WB.translation();
  rel.R_TW = X_WT.linear().transpose();
  rel.e.head<3>() = rel.R_TW * (rel.p_WB - X_WT.translation());
  rel.e.tail<3>() = internal::RotationLog(rel.R_TW * X_WB.linear());
  return rel;
}

// Calls fn(dof, de) with de a contribution to column `dof` of ∂e/∂q:
//   ∂e/∂q_i = [R_WTᵀ (v_i^B − v_i^A(p_WB)); J_l⁻¹(φ) R_WTᵀ (ω_i^B − ω_i^A)]
// (header comment; T moves with A, so A's columns enter with a minus sign,
// evaluated at p_WB). A coordinate that moves both sites is visited twice,
// so fn must accumulate.
template <typename Fn>
void ForEachRelativeColumn(const Model& model, const Data& data, int site_a,
                           int site_b, const RelativePose& rel, Fn&& fn) {
  const Eigen::Matrix3d M =
      internal::InverseLeftJacobian(rel.e.tail<3>()) * rel.R_TW;
  for (const auto& [site, sign] : {std::pair{site_b, 1.0}, {site_a, -1.0}}) {
    internal::ForEachJacobianColumn(
        model, data, model.site_step(site), rel.p_WB,
        [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d& w) {
          Vector6d de;
          de << sign * (rel.R_TW * v), sign * (M * w);
          fn(dof, de);
        });
  }
}

void CheckTwoSites(int site_a, int site_b, const std::string& name_a,
                   const std::string& owner) {
  if (site_a == site_b) {
    ThrowInvalidArgument(owner, ": site_a and site_b must differ; both are '",
                         name_a, "'");
  }
}

void CheckRigid(const Eigen::Isometry3d& X, const std::string& owner) {
  internal::CheckFiniteVector(X.translation(), owner, "target translation");
  internal::CheckRotation(X.linear(), owner, "target rotation");
}

int PartRows(const RelativePoseParts& parts) {
  return (parts.position ? 3 : 0) + (parts.orientation ? 3 : 0);
}

// Norm of the violation of e against [lower, upper] over components
// [first, first + 3).
double BoxViolation(const Vector6d& e, const Vector6d& lower,
                    const Vector6d& upper, int first) {
  double sum = 0.0;
  for (int k = first; k < first + 3; ++k) {
    const double v = std::max({0.0, e[k] - upper[k], lower[k] - e[k]});
    sum += v * v;
  }
  return std::sqrt(sum);
}

}  // namespace

// --------------------------------------------------------- RelativePoseGoal

RelativePoseGoal::RelativePoseGoal(const Model& model,
                                   const std::string& site_a,
                                   const std::string& site_b,
                                   const Eigen::Isometry3d& target,
                                   double weight,
                                   const RelativePoseParts& parts)
    : Goal(PartRows(parts), weight,
           internal::StrCat("relative-pose(", site_a, ", ", site_b, ")")),
      site_a_(model.SiteIndex(site_a)),
      site_b_(model.SiteIndex(site_b)),
      site_a_name_(site_a),
      site_b_name_(site_b),
      parts_(parts) {
  CheckTwoSites(site_a_, site_b_, site_a, name());
  if (PartRows(parts) == 0) {
    ThrowInvalidArgument(name(),
                         ": parts: neither position nor orientation chosen; "
                         "expected at least one");
  }
  if (!(parts.length_per_radian > 0.0) ||
      !std::isfinite(parts.length_per_radian)) {
    ThrowInvalidArgument(name(),
                         ": parts.length_per_radian must be finite and > 0; "
                         "got ",
                         parts.length_per_radian);
  }
  set_target(target);
}

void RelativePoseGoal::set_target(const Eigen::Isometry3d& target) {
  CheckRigid(target, name());
  target_ = target;
}

void RelativePoseGoal::DoCheckModel(const Model& model) const {
  internal::CheckSiteOnModel(model, site_a_, site_a_name_, name());
  internal::CheckSiteOnModel(model, site_b_, site_b_name_, name());
}

void RelativePoseGoal::DoEvaluate(const Model& model, const Data& data,
                                  const Eigen::Ref<const Eigen::VectorXd>&,
                                  Eigen::Ref<Eigen::VectorXd> residual,
                                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const RelativePose rel =
      ComputeRelativePose(model, data, site_a_, site_b_, target_);
  // r = −S e, S selecting the chosen parts (orientation rows scaled by ℓ).
  const int orientation_row = parts_.position ? 3 : 0;
  const double l = parts_.length_per_radian;
  if (parts_.position) residual.head<3>() = -rel.e.head<3>();
  if (parts_.orientation) {
    residual.segment<3>(orientation_row) = -l * rel.e.tail<3>();
  }
  if (jacobian == nullptr) return;
  // ∂r/∂q_i = −S ∂e/∂q_i, accumulated over B's and A's columns.
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  ForEachRelativeColumn(
      model, data, site_a_, site_b_, rel, [&](int dof, const Vector6d& de) {
        if (parts_.position) J.col(dof).head<3>() -= de.head<3>();
        if (parts_.orientation) {
          J.col(dof).segment<3>(orientation_row) -= l * de.tail<3>();
        }
      });
}

GoalError RelativePoseGoal::Error(const Model& model, const Data& data) const {
  const RelativePose rel =
      ComputeRelativePose(model, data, site_a_, site_b_, target_);
  GoalError error;
  if (parts_.position) error.position = rel.e.head<3>().norm();
  if (parts_.orientation) error.angle = rel.e.tail<3>().norm();
  return error;
}

// ------------------------------------------------------ RelativePoseBoxGoal

namespace {

int CountFinite(const Vector6d& lower, const Vector6d& upper) {
  return internal::CountFiniteBounds(lower.head<3>(), upper.head<3>()) +
         internal::CountFiniteBounds(lower.tail<3>(), upper.tail<3>());
}

}  // namespace

RelativePoseBoxGoal::RelativePoseBoxGoal(const Model& model,
                                         const std::string& site_a,
                                         const std::string& site_b,
                                         const Eigen::Isometry3d& target,
                                         const Vector6d& lower,
                                         const Vector6d& upper, double weight)
    : InequalityGoal(CountFinite(lower, upper), weight,
                     internal::StrCat("relative-pose-box(", site_a, ", ",
                                      site_b, ")")),
      site_a_(model.SiteIndex(site_a)),
      site_b_(model.SiteIndex(site_b)),
      site_a_name_(site_a),
      site_b_name_(site_b),
      target_(target),
      lower_(lower),
      upper_(upper) {
  CheckTwoSites(site_a_, site_b_, site_a, name());
  CheckRigid(target, name());
  for (int k = 0; k < 6; ++k) {
    if (std::isnan(lower[k]) || std::isnan(upper[k]) || lower[k] > upper[k] ||
        lower[k] == kInfinity || upper[k] == -kInfinity) {
      ThrowInvalidArgument(name(), ": component ", k,
                           " needs lower <= upper (no NaN, lower not +inf, "
                           "upper not -inf); got lower ",
                           lower[k], ", upper ", upper[k]);
    }
    if (k >= 3) {
      for (const double b : {lower[k], upper[k]}) {
        if (std::isfinite(b) && !(std::abs(b) < M_PI)) {
          ThrowInvalidArgument(name(), ": rotation component ", k,
                               " bound must be in (-pi, pi) radians or "
                               "infinite; got ",
                               b);
        }
      }
    }
  }
  if (num_constraints() == 0) {
    ThrowInvalidArgument(name(),
                         ": every bound is infinite; expected at least one "
                         "finite lower or upper bound");
  }
  for (int k = 0; k < 6; ++k) {
    if (std::isfinite(upper[k])) rows_.push_back({k, 1.0, upper[k]});
    if (std::isfinite(lower[k])) rows_.push_back({k, -1.0, lower[k]});
  }
}

void RelativePoseBoxGoal::DoCheckModel(const Model& model) const {
  internal::CheckSiteOnModel(model, site_a_, site_a_name_, name());
  internal::CheckSiteOnModel(model, site_b_, site_b_name_, name());
}

void RelativePoseBoxGoal::DoEvaluateConstraint(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const RelativePose rel =
      ComputeRelativePose(model, data, site_a_, site_b_, target_);
  // c = sign (e_k − bound): e_k − u_k for an upper, l_k − e_k for a lower.
  for (std::size_t row = 0; row < rows_.size(); ++row) {
    const BoxRow& b = rows_[row];
    value[row] = b.sign * (rel.e[b.component] - b.bound);
  }
  if (jacobian == nullptr) return;
  // ∂c/∂q_i = sign ∂e_k/∂q_i.
  Eigen::Ref<Eigen::MatrixXd>& J = *jacobian;
  J.setZero();
  ForEachRelativeColumn(
      model, data, site_a_, site_b_, rel, [&](int dof, const Vector6d& de) {
        for (std::size_t row = 0; row < rows_.size(); ++row) {
          J(row, dof) += rows_[row].sign * de[rows_[row].component];
        }
      });
}

GoalError RelativePoseBoxGoal::Error(const Model& model,
                                     const Data& data) const {
  const RelativePose rel =
      ComputeRelativePose(model, data, site_a_, site_b_, target_);
  GoalError error;
  error.position = BoxViolation(rel.e, lower_, upper_, 0);
  error.angle = BoxViolation(rel.e, lower_, upper_, 3);
  return error;
}

GoalErrorParts RelativePoseGoal::error_parts() const {
  return {parts_.position, parts_.orientation, false};
}

std::vector<GoalParameter> RelativePoseGoal::Parameters() const {
  std::vector<GoalParameter> out;
  if (parts_.position) {
    internal::AppendVector("target", target_.translation(), &out);
  }
  if (parts_.orientation) {
    internal::AppendRotation("target", target_.linear(), &out);
  }
  return out;
}

namespace {

const std::vector<std::string>& RelativeBoxComponents() {
  static const std::vector<std::string> kNames = {"x",  "y",  "z",
                                                  "rx", "ry", "rz"};
  return kNames;
}

}  // namespace

GoalErrorParts RelativePoseBoxGoal::error_parts() const {
  // A part is measured when some bound of it is finite.
  return {internal::CountFiniteBounds(lower_.head<3>(), upper_.head<3>()) > 0,
          internal::CountFiniteBounds(lower_.tail<3>(), upper_.tail<3>()) > 0,
          false};
}

std::vector<GoalParameter> RelativePoseBoxGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendPose("target", target_, &out);
  internal::AppendBox(RelativeBoxComponents(), lower_, upper_, &out);
  return out;
}

std::vector<BoundedQuantity> RelativePoseBoxGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  const RelativePose rel =
      ComputeRelativePose(model, data, site_a_, site_b_, target_);
  std::vector<BoundedQuantity> out;
  for (int k = 0; k < 6; ++k) {
    out.push_back(
        {RelativeBoxComponents()[k], rel.e[k], lower_[k], upper_[k], k >= 3});
  }
  return out;
}

}  // namespace iklab
