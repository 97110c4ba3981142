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

/// Writes sin and cos of x[0 … m): a branch-free, vectorizable polynomial
/// (kinematics.cc says how accurate), the one FK uses, so every kernel that
/// rotates a joint gets the same bits for the same angle.
void SinCosArray(const double* x, int m, double* sin_x, double* cos_x);

/// Writes R_out = R_in * Rot(axis, angle) for a coordinate axis. Only two
/// columns change: for z, [c0 c1] ← [c·c0 + s·c1, c·c1 − s·c0] (cyclically for
/// x: columns 1, 2, and y: columns 2, 0). R_out may alias R_in.
template <typename In, typename Out>
inline void RotateColumns(const In& R_in, Out&& R_out, int a, int b, int keep,
                          double c, double s) {
  const Eigen::Vector3d ca = R_in.col(a);
  const Eigen::Vector3d cb = R_in.col(b);
  R_out.col(keep) = R_in.col(keep);
  R_out.col(a) = c * ca + s * cb;
  R_out.col(b) = c * cb - s * ca;
}

/// R_out = R_in * Rot(axis, angle) for a unit axis of the given kind.
template <typename In, typename Out>
inline void Rotate(const In& R_in, Out&& R_out, AxisKind kind,
                   const Eigen::Vector3d& a, double c, double s) {
  switch (kind) {
    case AxisKind::kX:
      RotateColumns(R_in, R_out, 1, 2, 0, c, s);
      return;
    case AxisKind::kY:
      RotateColumns(R_in, R_out, 2, 0, 1, c, s);
      return;
    case AxisKind::kZ:
      RotateColumns(R_in, R_out, 0, 1, 2, c, s);
      return;
    case AxisKind::kGeneral: {
      // Rodrigues: Rot(a, q) = c I + s [a]x + (1 − c) a aᵀ.
      Eigen::Matrix3d rot = (1.0 - c) * a * a.transpose();
      rot.diagonal().array() += c;
      rot(0, 1) -= s * a.z();
      rot(1, 0) += s * a.z();
      rot(0, 2) += s * a.y();
      rot(2, 0) -= s * a.y();
      rot(1, 2) -= s * a.x();
      rot(2, 1) += s * a.x();
      const Eigen::Matrix3d R0 = R_in;
      R_out.noalias() = R0 * rot;
      return;
    }
  }
}

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
