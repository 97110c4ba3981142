#ifndef IKLAB_CONSTRAINTS_INTERNAL_SITE_JACOBIAN_H_
#define IKLAB_CONSTRAINTS_INTERNAL_SITE_JACOBIAN_H_

/// @file
/// Column-wise access to a site's geometric Jacobian, so a goal can write
/// its chain-rule product ∂r/∂q = M_v J_v + M_ω J_ω straight into the output
/// block (which may have fewer rows than 6) with no scratch matrix.

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/model.h"

namespace iklab::internal {

/// Calls fn(dof, v, w) for every coordinate that moves the point p_WQ fixed
/// on step `step`, with [v; w] that coordinate's column of the geometric
/// Jacobian (kinematics.h): revolute [a × (p_WQ − o); a], prismatic [a; 0],
/// a the world axis of the step and o its world origin. Coordinates not
/// visited have zero columns.
/// @pre ForwardKinematics() has run on `data`.
template <typename Fn>
void ForEachJacobianColumn(const Model& model, const Data& data, int step,
                           const Eigen::Vector3d& p_WQ, Fn&& fn) {
  for (int i = step; i > 0; i = model.parent(i)) {
    const int dof = model.dof(i);
    if (dof < 0) continue;
    const Eigen::Isometry3d& X_WJ = data.X_W(i);
    const Eigen::Vector3d a = X_WJ.linear() * model.axis(i);
    if (model.kind(i) == StepKind::kPrismatic) {
      fn(dof, a, Eigen::Vector3d::Zero().eval());
    } else {
      fn(dof, a.cross(p_WQ - X_WJ.translation()).eval(), a);
    }
  }
}

/// World pose of a site (no index check: goals validate their site once).
inline Eigen::Isometry3d SitePoseUnchecked(const Model& model,
                                           const Data& data, int site) {
  return data.X_W(model.site_step(site)) * model.X_FS(site);
}

}  // namespace iklab::internal

#endif  // IKLAB_CONSTRAINTS_INTERNAL_SITE_JACOBIAN_H_
