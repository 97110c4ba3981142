#ifndef IKLAB_CONSTRAINTS_INTERNAL_SITE_JACOBIAN_H_
#define IKLAB_CONSTRAINTS_INTERNAL_SITE_JACOBIAN_H_

/// @file
/// What goals read from the FK workspace: site poses, and (from
/// framework/internal/kinematics_kernels.h) the site Jacobian column by
/// column, internal::ForEachJacobianColumn.

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/internal/kinematics_kernels.h"
#include "framework/model.h"

namespace iklab::internal {

/// World pose of a site (no index check: goals validate their site once).
inline Eigen::Isometry3d SitePoseUnchecked(const Model& model,
                                           const Data& data, int site) {
  return data.X_W(model.site_step(site)) * model.X_FS(site);
}

}  // namespace iklab::internal

#endif  // IKLAB_CONSTRAINTS_INTERNAL_SITE_JACOBIAN_H_
