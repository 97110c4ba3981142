#ifndef IKLAB_FRAMEWORK_INTERNAL_KINEMATICS_KERNELS_H_
#define IKLAB_FRAMEWORK_INTERNAL_KINEMATICS_KERNELS_H_

/// @file
/// The unchecked kernels behind framework/kinematics.h, for callers inside
/// iklab that have validated their inputs once (Problem checks q before
/// every evaluation, goals check their site when they are added), so the
/// hot path of a solver iteration does not repeat those checks.

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/model.h"

namespace iklab::internal {

/// ForwardKinematics without its argument checks.
/// @pre q has model.nq() finite entries and `data` was made from `model`.
void ForwardKinematicsUnchecked(const Model& model, const double* q,
                                Data* data);

/// World axis R_WJ · axis of a step: a column of R_WJ for coordinate axes
/// (exact, and no 3 × 3 product), the product otherwise.
template <typename Rotation>
inline Eigen::Vector3d WorldAxis(const Rotation& R_WJ, AxisKind kind,
                                 const Eigen::Vector3d& axis) {
  switch (kind) {
    case AxisKind::kX:
      return R_WJ.col(0);
    case AxisKind::kY:
      return R_WJ.col(1);
    case AxisKind::kZ:
      return R_WJ.col(2);
    case AxisKind::kGeneral:
      break;
  }
  return R_WJ * axis;
}

/// Calls fn(dof, v, w) for every coordinate that moves the point p_WQ fixed
/// on step `step`, with [v; w] that coordinate's column of the geometric
/// Jacobian (kinematics.h): revolute [a × (p_WQ − o); a], prismatic [a; 0],
/// a the world axis of the step and o its world origin. Coordinates not
/// visited have zero columns. Goals write their chain-rule product
/// ∂r/∂q = M_v J_v + M_ω J_ω straight into their output this way, with no
/// scratch Jacobian.
/// @pre ForwardKinematics() has run on `data`; 0 ≤ step < num_steps().
template <typename Fn>
void ForEachJacobianColumn(const Model& model, const Data& data, int step,
                           const Eigen::Vector3d& p_WQ, Fn&& fn) {
  for (int i = step; i > 0; i = model.parent(i)) {
    const int dof = model.dof(i);
    if (dof < 0) continue;
    const Eigen::Isometry3d& X_WJ = data.X_W(i);
    const Eigen::Vector3d a =
        WorldAxis(X_WJ.linear(), model.axis_kind(i), model.axis(i));
    if (model.kind(i) == StepKind::kPrismatic) {
      fn(dof, a, Eigen::Vector3d::Zero().eval());
    } else {
      fn(dof, a.cross(p_WQ - X_WJ.translation()).eval(), a);
    }
  }
}

}  // namespace iklab::internal

#endif  // IKLAB_FRAMEWORK_INTERNAL_KINEMATICS_KERNELS_H_
