#include "constraints/distance_goals.h"

#include <algorithm>
#include <cmath>

#include "constraints/internal/distance_bounds.h"
#include "constraints/internal/goal_parameters.h"
#include "constraints/internal/site_jacobian.h"
#include "constraints/internal/validation.h"
#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

namespace internal {

int DistanceRows(double min_distance, double max_distance) {
  return (min_distance > 0.0 ? 1 : 0) + (std::isfinite(max_distance) ? 1 : 0);
}

void CheckDistanceBounds(double min_distance, double max_distance,
                         const std::string& owner) {
  if (!(min_distance >= 0.0) || !std::isfinite(min_distance)) {
    ThrowInvalidArgument(owner,
                         ": min_distance must be finite and >= 0; got ",
                         min_distance);
  }
  if (!(max_distance > min_distance)) {
    ThrowInvalidArgument(owner, ": max_distance must be > min_distance (",
                         min_distance, ") or +infinity; got ", max_distance);
  }
  if (DistanceRows(min_distance, max_distance) == 0) {
    ThrowInvalidArgument(owner,
                         ": no active bound (min_distance 0 and max_distance "
                         "infinite); expected min_distance > 0 or a finite "
                         "max_distance");
  }
}

}  // namespace internal

namespace {

// c rows for distance d: [min − d] then [d − max], active bounds only.
void WriteDistanceRows(double d, double min, double max,
                       Eigen::Ref<Eigen::VectorXd> c) {
  int row = 0;
  if (min > 0.0) c[row++] = min - d;
  if (std::isfinite(max)) c[row++] = d - max;
}

// Sign of ∂c_row/∂d for each row: −1 for the min row, +1 for the max row.
template <typename Fn>
void ForEachDistanceRow(double min, double max, Fn&& fn) {
  int row = 0;
  if (min > 0.0) fn(row++, -1.0);
  if (std::isfinite(max)) fn(row++, 1.0);
}

double DistanceViolation(double d, double min, double max) {
  return std::max({0.0, min - d, d - max});
}

// The distance d against [min, max]; min = 0 means no lower bound.
BoundedQuantity DistanceQuantity(double d, double min, double max) {
  BoundedQuantity q{"distance", d};
  if (min > 0.0) q.lower = min;
  q.upper = max;
  return q;
}

}  // namespace

// -------------------------------------------------------- PointDistanceGoal

PointDistanceGoal::PointDistanceGoal(const Model& model,
                                     const std::string& site,
                                     const Eigen::Vector3d& point,
                                     double min_distance, double max_distance,
                                     double weight)
    : InequalityGoal(internal::DistanceRows(min_distance, max_distance),
                     weight, internal::StrCat("distance(", site, ")")),
      site_(model.SiteIndex(site)),
      site_name_(site),
      point_(point),
      min_(min_distance),
      max_(max_distance) {
  internal::CheckFiniteVector(point, name(), "point");
  internal::CheckDistanceBounds(min_distance, max_distance, name());
}

void PointDistanceGoal::DoCheckModel(const Model& model) const {
  internal::CheckSiteOnModel(model, site_, site_name_, name());
}

void PointDistanceGoal::DoEvaluateConstraint(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Vector3d p =
      internal::SitePoseUnchecked(model, data, site_).translation();
  const Eigen::Vector3d delta = p - point_;
  const double d = delta.norm();
  WriteDistanceRows(d, min_, max_, value);
  if (jacobian == nullptr) return;
  jacobian->setZero();
  if (d < 1e-12) return;  // degenerate: u undefined
  const Eigen::Vector3d u = delta / d;
  // ∂c/∂q_i = ±∂d/∂q_i = ±uᵀ v_i.
  ForEachDistanceRow(min_, max_, [&](int row, double sign) {
    internal::ForEachJacobianColumn(
        model, data, model.site_step(site_), p,
        [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
          (*jacobian)(row, dof) = sign * u.dot(v);
        });
  });
}

GoalError PointDistanceGoal::Error(const Model& model, const Data& data) const {
  const double d =
      (internal::SitePoseUnchecked(model, data, site_).translation() - point_)
          .norm();
  GoalError error;
  error.position = DistanceViolation(d, min_, max_);
  error.degenerate = d < 1e-12;
  return error;
}

// --------------------------------------------------------- SiteDistanceGoal

SiteDistanceGoal::SiteDistanceGoal(const Model& model,
                                   const std::string& site_a,
                                   const std::string& site_b,
                                   double min_distance, double max_distance,
                                   double weight)
    : InequalityGoal(internal::DistanceRows(min_distance, max_distance),
                     weight,
                     internal::StrCat("site-distance(", site_a, ", ", site_b,
                                      ")")),
      site_a_(model.SiteIndex(site_a)),
      site_b_(model.SiteIndex(site_b)),
      site_a_name_(site_a),
      site_b_name_(site_b),
      min_(min_distance),
      max_(max_distance) {
  if (site_a_ == site_b_) {
    ThrowInvalidArgument(name(), ": site_a and site_b must differ; both are '",
                         site_a, "'");
  }
  internal::CheckDistanceBounds(min_distance, max_distance, name());
}

void SiteDistanceGoal::DoCheckModel(const Model& model) const {
  internal::CheckSiteOnModel(model, site_a_, site_a_name_, name());
  internal::CheckSiteOnModel(model, site_b_, site_b_name_, name());
}

void SiteDistanceGoal::DoEvaluateConstraint(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&,
    Eigen::Ref<Eigen::VectorXd> value,
    Eigen::Ref<Eigen::MatrixXd>* jacobian) const {
  const Eigen::Vector3d p_a =
      internal::SitePoseUnchecked(model, data, site_a_).translation();
  const Eigen::Vector3d p_b =
      internal::SitePoseUnchecked(model, data, site_b_).translation();
  const Eigen::Vector3d delta = p_a - p_b;
  const double d = delta.norm();
  WriteDistanceRows(d, min_, max_, value);
  if (jacobian == nullptr) return;
  jacobian->setZero();
  if (d < 1e-12) return;
  const Eigen::Vector3d u = delta / d;
  // ∂d/∂q_i = uᵀ(v_i^A − v_i^B): accumulate A's columns, subtract B's.
  ForEachDistanceRow(min_, max_, [&](int row, double sign) {
    internal::ForEachJacobianColumn(
        model, data, model.site_step(site_a_), p_a,
        [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
          (*jacobian)(row, dof) += sign * u.dot(v);
        });
    internal::ForEachJacobianColumn(
        model, data, model.site_step(site_b_), p_b,
        [&](int dof, const Eigen::Vector3d& v, const Eigen::Vector3d&) {
          (*jacobian)(row, dof) -= sign * u.dot(v);
        });
  });
}

GoalError SiteDistanceGoal::Error(const Model& model, const Data& data) const {
  const double d =
      (internal::SitePoseUnchecked(model, data, site_a_).translation() -
       internal::SitePoseUnchecked(model, data, site_b_).translation())
          .norm();
  GoalError error;
  error.position = DistanceViolation(d, min_, max_);
  error.degenerate = d < 1e-12;
  return error;
}

GoalErrorParts PointDistanceGoal::error_parts() const {
  return {true, false, false};
}

std::vector<GoalParameter> PointDistanceGoal::Parameters() const {
  std::vector<GoalParameter> out;
  internal::AppendVector("point", point_, &out);
  out.push_back({"min_distance", min_});
  out.push_back({"max_distance", max_});
  return out;
}

std::vector<BoundedQuantity> PointDistanceGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  const double d =
      (internal::SitePoseUnchecked(model, data, site_).translation() - point_)
          .norm();
  return {DistanceQuantity(d, min_, max_)};
}

GoalErrorParts SiteDistanceGoal::error_parts() const {
  return {true, false, false};
}

std::vector<GoalParameter> SiteDistanceGoal::Parameters() const {
  return {{"min_distance", min_}, {"max_distance", max_}};
}

std::vector<BoundedQuantity> SiteDistanceGoal::Quantities(
    const Model& model, const Data& data,
    const Eigen::Ref<const Eigen::VectorXd>&) const {
  const double d =
      (internal::SitePoseUnchecked(model, data, site_a_).translation() -
       internal::SitePoseUnchecked(model, data, site_b_).translation())
          .norm();
  return {DistanceQuantity(d, min_, max_)};
}

}  // namespace iklab
