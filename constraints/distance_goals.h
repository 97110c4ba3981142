#ifndef IKLAB_CONSTRAINTS_DISTANCE_GOALS_H_
#define IKLAB_CONSTRAINTS_DISTANCE_GOALS_H_

/// @file
/// Distance inequality goals (Drake's PointToPointDistanceConstraint with
/// bounds): a site's distance to a world point, or between two sites, stays
/// within [min_distance, max_distance]. c(q) ≤ 0 and the soft form
/// r = max(0, c) as in inequality_goal.h.

#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/inequality_goal.h"

namespace iklab {

/// Distance of a site to a world point within bounds:
///
///     d = ‖p_WS − o‖,   c = [min − d  (if min > 0);  d − max  (if max
///     finite)] ≤ 0,   ∂d/∂q_i = uᵀ v_i,  u = (p_WS − o)/d.
///
/// d is not differentiable at d = 0 (the point on the site): there u := 0,
/// the Jacobian is zero and Error() says degenerate. Soft form:
/// P = ½ w (max(0, min − d)² + max(0, d − max)²).
/// Error(): position = max(0, min − d, d − max), length units.
class PointDistanceGoal final : public InequalityGoal {
 public:
  /// @param point o, a world point.
  /// @param min_distance ≥ 0 (0: no lower bound).
  /// @param max_distance > min_distance, or +infinity (no upper bound); at
  ///   least one bound must be active.
  /// @throws std::invalid_argument for an unknown site, a non-finite point,
  ///   a negative or NaN minimum, max ≤ min, no active bound, a bad weight.
  PointDistanceGoal(const Model& model, const std::string& site,
                    const Eigen::Vector3d& point, double min_distance,
                    double max_distance, double weight = 1.0);

  int site() const { return site_; }
  /// o (world) and the distance bounds (max +infinity when open).
  const Eigen::Vector3d& point() const { return point_; }
  double min_distance() const { return min_; }
  double max_distance() const { return max_; }

  /// Parameters(): point_x, _y, _z (o), min_distance, max_distance.
  /// Quantities(): distance = d, length units.
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluateConstraint(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            Eigen::Ref<Eigen::VectorXd> value,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int site_;
  std::string site_name_;
  Eigen::Vector3d point_;
  double min_;
  double max_;
};

/// Distance between two sites A and B within bounds:
///
///     d = ‖p_WA − p_WB‖,   c = [min − d;  d − max] (active bounds only),
///     ∂d/∂q_i = uᵀ (v_i^A − v_i^B),  u = (p_WA − p_WB)/d,
///
/// with v^A, v^B the linear Jacobian columns of the two sites (a joint that
/// moves both contributes to both). Degenerate at d = 0 as PointDistanceGoal.
/// Soft form and Error() as PointDistanceGoal.
class SiteDistanceGoal final : public InequalityGoal {
 public:
  /// @throws std::invalid_argument as PointDistanceGoal, for an unknown
  ///   site, or for site_a == site_b.
  SiteDistanceGoal(const Model& model, const std::string& site_a,
                   const std::string& site_b, double min_distance,
                   double max_distance, double weight = 1.0);

  /// Parameters(): min_distance, max_distance. Quantities(): distance = d,
  /// length units.
  GoalErrorParts error_parts() const override;
  std::vector<GoalParameter> Parameters() const override;
  std::vector<BoundedQuantity> Quantities(
      const Model& model, const Data& data,
      const Eigen::Ref<const Eigen::VectorXd>& q) const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoCheckModel(const Model& model) const override;
  void DoEvaluateConstraint(const Model& model, const Data& data,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            Eigen::Ref<Eigen::VectorXd> value,
                            Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  int site_a_, site_b_;
  std::string site_a_name_, site_b_name_;
  double min_;
  double max_;
};

}  // namespace iklab

#endif  // IKLAB_CONSTRAINTS_DISTANCE_GOALS_H_
