#ifndef IKLAB_FRAMEWORK_INTERNAL_KINEMATICS_KERNELS_H_
#define IKLAB_FRAMEWORK_INTERNAL_KINEMATICS_KERNELS_H_

/// @file
/// The unchecked kernels behind framework/kinematics.h, for callers inside
/// iklab that have validated their inputs once (Problem checks q before
/// every evaluation, goals check their site when they are added), so the
/// hot path of a solver iteration does not repeat those checks.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>

#include "framework/model.h"

namespace iklab::internal {

/// ForwardKinematics without its argument checks.
/// @pre q has model.nq() finite entries and `data` was made from `model`.
void ForwardKinematicsUnchecked(const Model& model, const double* q,
                                Data* data);

// sin and cos of the joint angles, computed a block of joints ahead of FK
// (they used to be half of FK's time, as one C library sincos per joint).
//
// Reduction by π: x = k·π + r, |r| ≤ π/2, so sin x = (−1)^k sin r and
// cos x = (−1)^k cos r, with no quadrant swap, hence no branch: a loop over
// joints is vectorized and the polynomial latencies of different joints
// overlap. Cody–Waite: π is split into three parts, the first two 33 bits
// long, so k·kPiParts[0] and k·kPiParts[1] are exact for |k| < 2^20. Then
// Taylor polynomials on |r| ≤ π/2: the first omitted terms, (π/2)^23/23! ≈
// 1.2e-18 for sin and (π/2)^24/24! ≈ 8e-20 for cos, are far below the
// rounding error of the sums, a few 1e-16 (checked against std::sin/std::cos
// in tests/framework/kinematics_accuracy_test.cc). Arguments beyond |x| =
// 1e5 (never a joint angle in practice) are redone by the library, which
// reduces them exactly.
namespace sincos_constants {
constexpr double kOneOverPi = 0.31830988618379067;
constexpr double kPiParts[3] = {2 * 1.5707963267341256,
                                2 * 6.077100506303966e-11,
                                2 * 2.0222662487959506e-21};
// 2^52 + 2^51: adding and subtracting it rounds a double below 2^51 in
// magnitude to the nearest integer (round-to-nearest mode), without a call.
// (-ffast-math would fold (a + shift) − shift to a; iklab does not use it.)
constexpr double kRoundingShift = 6755399441055744.0;
constexpr double kFastSinCosLimit = 1e5;

constexpr double InverseFactorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i) f *= i;
  return 1.0 / f;
}
// sin r = r Σ_j S(j) z^j and cos r = Σ_j C(j) z^j with z = r².
constexpr double S(int j) {
  return (j % 2 ? -1.0 : 1.0) * InverseFactorial(2 * j + 1);
}
constexpr double C(int j) {
  return (j % 2 ? -1.0 : 1.0) * InverseFactorial(2 * j);
}
}  // namespace sincos_constants

/// sin and cos of x by the branch-free polynomial above; valid for |x| ≤
/// 1e5, beyond which SinCosOutOfRange redoes them.
inline void SinCosPolynomial(double x, double* sin_x, double* cos_x) {
  using namespace sincos_constants;
  const double k = (x * kOneOverPi + kRoundingShift) - kRoundingShift;
  const double r = ((x - k * kPiParts[0]) - k * kPiParts[1]) - k * kPiParts[2];
  // (−1)^k without integers: h = round(k/2) and |k − 2h| is 1 for odd k.
  const double h = (k * 0.5 + kRoundingShift) - kRoundingShift;
  const double sign = 1.0 - 2.0 * std::abs(k - 2.0 * h);
  const double z = r * r;
  const double w = z * z;
  // Each sum split into even and odd powers of z: two chains of half the
  // length.
  const double sin_even =
      S(0) + w * (S(2) + w * (S(4) + w * (S(6) + w * (S(8) + w * S(10)))));
  const double sin_odd = S(1) + w * (S(3) + w * (S(5) + w * (S(7) + w * S(9))));
  const double cos_even =
      C(0) + w * (C(2) + w * (C(4) + w * (C(6) + w * (C(8) + w * C(10)))));
  const double cos_odd =
      C(1) + w * (C(3) + w * (C(5) + w * (C(7) + w * (C(9) + w * C(11)))));
  *sin_x = sign * (r * (sin_even + z * sin_odd));
  *cos_x = sign * (cos_even + z * cos_odd);
}

/// Redoes sin and cos of an x beyond SinCosPolynomial's range (or NaN) with
/// the C library.
inline void SinCosOutOfRange(double x, double* sin_x, double* cos_x) {
  if (!(std::abs(x) <= sincos_constants::kFastSinCosLimit)) {
    *sin_x = std::sin(x);
    *cos_x = std::cos(x);
  }
}

/// Writes sin and cos of x[0 … m): SinCosPolynomial, the one FK uses, so
/// every kernel that rotates a joint gets the same bits for the same angle.
void SinCosArray(const double* x, int m, double* sin_x, double* cos_x);

/// SinCosArray for a length known at compile time, inline: unrolled and
/// vectorized without a call or a loop tail (the fused solver kernels).
template <int kLength>
inline void SinCosFixed(const double* x, double* sin_x, double* cos_x) {
#pragma GCC unroll 8
  for (int i = 0; i < kLength; ++i) {
    SinCosPolynomial(x[i], &sin_x[i], &cos_x[i]);
  }
  for (int i = 0; i < kLength; ++i) {
    SinCosOutOfRange(x[i], &sin_x[i], &cos_x[i]);
  }
}

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
