#ifndef IKLAB_LAB_PLANTED_POINT_GOAL_H_
#define IKLAB_LAB_PLANTED_POINT_GOAL_H_

#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"
#include "framework/model.h"

namespace iklab {

/// A planted point held along chosen directions: with p_WA the anchor and
/// U = [u_1 … u_m] (3 × m, orthonormal columns, 1 <= m <= 3),
///
///     r = Uᵀ (p_WA − p_WS(q))   (m residuals),   ∂r/∂q = −Uᵀ J_v,
///
/// J_v the site's 3 × nq position Jacobian. As an equality constraint it
/// holds the site's position exactly in the directions U, and only those:
/// a hard contact of a rigid foot asks for its points' positions, whose
/// Jacobians are linearly dependent (a rigid body has 6 degrees of freedom,
/// its points 3 each), and dependent equality constraints violate the
/// linear independence constraint qualification that SLSQP's subproblem
/// needs (Kraft, "A software package for sequential quadratic programming",
/// DFVLR-FB 88-28, 1988, §2.2; Nocedal & Wright, "Numerical Optimization",
/// Definition 12.4). PlantedPointDirections picks, per point, the directions
/// its Jacobian adds to the points before it; what the others leave free is
/// fixed by rigidity (the distance between two points of one body is
/// constant), so every point of a planted rigid foot is held.
///
/// Error(): position = ‖Uᵀ (p_WA − p_WS)‖.
class PlantedPointGoal final : public SiteGoal {
 public:
  /// @param anchor p_WA, where the point is held.
  /// @param directions U, 3 × m with orthonormal columns (to 1e-9), 1..3 of
  ///   them.
  /// @throws std::invalid_argument for an unknown site, a non-finite anchor,
  ///   directions with 0 or more than 3 columns or not orthonormal.
  PlantedPointGoal(const Model& model, const std::string& site,
                   const Eigen::Vector3d& anchor,
                   const Eigen::Matrix3Xd& directions, double weight = 1.0);

  const Eigen::Vector3d& anchor() const { return anchor_; }
  const Eigen::Matrix3Xd& directions() const { return directions_; }

  GoalErrorParts error_parts() const override;
  /// Parameters(): anchor_x, _y, _z.
  std::vector<GoalParameter> Parameters() const override;
  GoalError Error(const Model& model, const Data& data) const override;

 private:
  void DoEvaluate(const Model& model, const Data& data,
                  const Eigen::Ref<const Eigen::VectorXd>& q,
                  Eigen::Ref<Eigen::VectorXd> residual,
                  Eigen::Ref<Eigen::MatrixXd>* jacobian) const override;

  Eigen::Vector3d anchor_;
  Eigen::Matrix3Xd directions_;
};

/// The directions in which each planted point adds to the hard contact:
/// points are taken in order, and point i gets the left singular vectors of
/// J_i (I − Π) whose singular values exceed `relative_threshold` × ‖J_i‖₂,
/// J_i its 3 × nq position Jacobian and Π the projector onto the row space
/// of the rows chosen before it (each point's Uᵀ J_i). The rows chosen are
/// then linearly independent, each new one by a margin of at least the
/// threshold. A point on a body whose pose the points before it already fix
/// gets no direction (a 3 × 0 matrix).
/// @param sites the planted sites, in order.
/// @param relative_threshold in (0, 1); 1e-4 keeps directions that a
///   nearly straight knee still moves, drops those that only rounding does.
/// @throws std::invalid_argument for a bad site or threshold.
std::vector<Eigen::Matrix3Xd> PlantedPointDirections(
    const Model& model, const Data& data, const std::vector<int>& sites,
    double relative_threshold = 1e-4);

}  // namespace iklab

#endif  // IKLAB_LAB_PLANTED_POINT_GOAL_H_
