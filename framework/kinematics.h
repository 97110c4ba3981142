#ifndef IKLAB_FRAMEWORK_KINEMATICS_H_
#define IKLAB_FRAMEWORK_KINEMATICS_H_

/// @file
/// Forward kinematics and geometric Jacobians on a compiled Model.
///
/// Notation (Drake's monogram): X_WS is the pose of frame S in the world W,
/// p_WS its origin, R_WS its rotation. Jacobians are in the world frame at the
/// site origin, linear rows first:
///
///     [v_WS; w_WS] = J_WS(q) * qdot,   J_WS is 6 × nq.
///
/// Column of a revolute step with world axis a through world point o:
/// [a × (p_WS − o); a]; prismatic: [a; 0]; coordinates that do not move the
/// site give zero columns (Parent §5.3.2, Eq. 5.17–5.19).
///
/// None of these functions allocates once the Data exists.

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/model.h"

namespace iklab {

using Matrix6Xd = Eigen::Matrix<double, 6, Eigen::Dynamic>;

/// Computes the world pose of every step for configuration q into `data`.
/// @pre `data` was created from `model`.
/// @throws std::invalid_argument if q.size() != model.nq() or q has a NaN/Inf.
void ForwardKinematics(const Model& model,
                       const Eigen::Ref<const Eigen::VectorXd>& q, Data* data);

/// World pose of a site, X_WS = X_W[step] * X_FS.
/// @pre ForwardKinematics() has run on `data`.
Eigen::Isometry3d SitePose(const Model& model, const Data& data, int site);

/// World position of a site's origin.
/// @pre ForwardKinematics() has run on `data`.
Eigen::Vector3d SitePosition(const Model& model, const Data& data, int site);

/// World position of link frame `link`.
/// @pre ForwardKinematics() has run on `data`.
const Eigen::Isometry3d& LinkPose(const Model& model, const Data& data,
                                  int link);

/// Geometric 6 × nq Jacobian of a site (linear rows 0–2, angular rows 3–5).
/// @param J must have 6 rows and nq columns; every entry is written.
/// @pre ForwardKinematics() has run on `data`.
/// @throws std::invalid_argument for a bad site index or J of the wrong size.
void SiteJacobian(const Model& model, const Data& data, int site,
                  Eigen::Ref<Matrix6Xd> J);

/// Position-only 3 × nq Jacobian of a site (the linear rows of SiteJacobian).
void SitePositionJacobian(const Model& model, const Data& data, int site,
                          Eigen::Ref<Eigen::Matrix3Xd> J);

/// Position Jacobian of an arbitrary point fixed on step `step`, given by its
/// world position p_WQ (e.g. a site's origin, or a point offset from it).
/// Writes only the 3 × nq block `J`.
void PointJacobian(const Model& model, const Data& data, int step,
                   const Eigen::Vector3d& p_WQ,
                   Eigen::Ref<Eigen::Matrix3Xd> J);

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_KINEMATICS_H_
