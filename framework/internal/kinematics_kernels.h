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
#include <cstdint>
#include <cstring>

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
// sin r = r P(r²) and cos r = Q(r²), P and Q of degree 8 in z = r² fitted
// on 0 ≤ z ≤ (π/2)² by Chebyshev interpolation of sin(√z)/√z and cos(√z)
// (near-minimax; computed in 50-digit arithmetic): their own errors, 2e-19
// and 4e-18, are far below the rounding error of the sums, a few 1e-16
// (checked against std::sin/std::cos in
// tests/framework/kinematics_accuracy_test.cc). Their leading coefficients
// round to exactly 1, so sin 0 = 0 and cos 0 = 1 exactly. Arguments beyond
// |x| = 1e5 (never a joint angle in practice) are redone by the library,
// which reduces them exactly.
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

// P and Q above, constant term first.
constexpr double kSinCoefficients[9] = {
    1.0,
    -0.16666666666666665307,
    0.008333333333333186384,
    -0.0001984126984120867517,
    2.7557319211229606622e-6,
    -2.5052106890569519539e-8,
    1.6058940878486559931e-10,
    -7.6430265579716326635e-13,
    2.7215749422983442826e-15};
constexpr double kCosCoefficients[9] = {
    1.0,
    -0.49999999999999974243,
    0.04166666666666388234,
    -0.0013888888888772989911,
    0.000024801587277414924404,
    -2.7557316391025750805e-7,
    2.0876561839933163279e-9,
    -1.1462901901757274785e-11,
    4.6089770030017970304e-14};

// c[0] + c[1] z + … + c[8] z⁸ by Estrin's scheme, given z² z⁴ z⁸: a tree
// of depth four instead of Horner's chain of eight multiply-adds, since the
// latency of sin/cos is on FK's critical path.
inline double Estrin8(const double* c, double z, double z2, double z4,
                      double z8) {
  const double c01 = c[0] + z * c[1], c23 = c[2] + z * c[3];
  const double c45 = c[4] + z * c[5], c67 = c[6] + z * c[7];
  return ((c01 + z2 * c23) + z4 * (c45 + z2 * c67)) + z8 * c[8];
}
}  // namespace sincos_constants

/// v with its sign bit XORed with `sign_bit` (0 or bit 63 alone): −v or v,
/// exactly.
inline double XorSign(double v, std::uint64_t sign_bit) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits ^= sign_bit;
  std::memcpy(&v, &bits, sizeof bits);
  return v;
}

/// sin and cos of x by the branch-free polynomial above; valid for |x| ≤
/// 1e5, beyond which SinCosOutOfRange redoes them.
inline void SinCosPolynomial(double x, double* sin_x, double* cos_x) {
  using namespace sincos_constants;
  const double shifted = x * kOneOverPi + kRoundingShift;
  const double k = shifted - kRoundingShift;
  const double r = ((x - k * kPiParts[0]) - k * kPiParts[1]) - k * kPiParts[2];
  // (−1)^k as a sign bit: `shifted` is 2^52 + 2^51 + k with a unit last
  // place, so its lowest mantissa bit is k's parity; moved to bit 63 it
  // negates sin r and cos r for odd k (a shift and two XORs, where a second
  // rounding and two multiplications by ±1 took ten operations).
  std::uint64_t shifted_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
  const std::uint64_t sign_bit = shifted_bits << 63;
  const double z = r * r;
  const double z2 = z * z;
  const double z4 = z2 * z2;
  const double z8 = z4 * z4;
  *sin_x = XorSign(r * Estrin8(kSinCoefficients, z, z2, z4, z8), sign_bit);
  *cos_x = XorSign(Estrin8(kCosCoefficients, z, z2, z4, z8), sign_bit);
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

/// A 3-vector as three plain doubles. The forward passes (FK and the fused
/// solver kernels) carry the running rotation's columns and position in
/// these, not in Eigen::Vector3d: Eigen moves a 3-vector as a 2-double packet
/// plus a scalar, and a packet load of two values just stored one by one (a
/// column rebuilt from scalars, a cross product's result) cannot be
/// forwarded from the store buffer; perf put ~30 % of the fused kernel's
/// time on such loads. Plain doubles stay in registers.
struct Vec3 {
  double x, y, z;
};

inline Vec3 Add(const Vec3& a, const Vec3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline Vec3 Scale(const Vec3& a, double s) {
  return {a.x * s, a.y * s, a.z * s};
}
/// a·u + b·v + c·w, summed left to right: with a, b, c the columns of R,
/// the product R [u v w]ᵀ.
inline Vec3 Combine(const Vec3& a, double u, const Vec3& b, double v,
                    const Vec3& c, double w) {
  return {a.x * u + b.x * v + c.x * w, a.y * u + b.y * v + c.y * w,
          a.z * u + b.z * v + c.z * w};
}
inline Vec3 Cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
          a.x * b.y - a.y * b.x};
}
inline double Dot(const Vec3& a, const Vec3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 ToVec3(const Eigen::Vector3d& v) { return {v.x(), v.y(), v.z()}; }
inline Eigen::Vector3d ToEigen(const Vec3& v) { return {v.x, v.y, v.z}; }

/// Rodrigues: Rot(a, q) = c I + s [a]x + (1 − c) a aᵀ for a unit axis a,
/// c = cos q, s = sin q.
inline Eigen::Matrix3d RodriguesMatrix(const Eigen::Vector3d& a, double c,
                                       double s) {
  Eigen::Matrix3d rot = (1.0 - c) * a * a.transpose();
  rot.diagonal().array() += c;
  rot(0, 1) -= s * a.z();
  rot(1, 0) += s * a.z();
  rot(0, 2) += s * a.y();
  rot(2, 0) -= s * a.y();
  rot(1, 2) -= s * a.x();
  rot(2, 1) += s * a.x();
  return rot;
}

/// [c0 c1 c2] ← [c0 c1 c2] · R for a 3 × 3 R (an Eigen matrix or block).
template <typename Rotation>
inline void MultiplyColumns(const Rotation& R, Vec3* c0, Vec3* c1, Vec3* c2) {
  const Vec3 b0 = *c0, b1 = *c1, b2 = *c2;
  *c0 = Combine(b0, R(0, 0), b1, R(1, 0), b2, R(2, 0));
  *c1 = Combine(b0, R(0, 1), b1, R(1, 1), b2, R(2, 1));
  *c2 = Combine(b0, R(0, 2), b1, R(1, 2), b2, R(2, 2));
}

/// [c0 c1 c2] ← [c0 c1 c2] · Rot(axis, angle), given c = cos, s = sin of
/// the angle, for a unit axis of the given kind. A coordinate axis changes
/// only two columns: for z, [c0 c1] ← [c·c0 + s·c1, c·c1 − s·c0]
/// (cyclically for x: columns 1, 2, and y: columns 2, 0).
inline void RotateColumns(AxisKind kind, const Eigen::Vector3d& axis,
                          double c, double s, Vec3* c0, Vec3* c1, Vec3* c2) {
  const auto turn = [c, s](Vec3* ca, Vec3* cb) {
    const Vec3 a = *ca, b = *cb;
    *ca = {c * a.x + s * b.x, c * a.y + s * b.y, c * a.z + s * b.z};
    *cb = {c * b.x - s * a.x, c * b.y - s * a.y, c * b.z - s * a.z};
  };
  switch (kind) {
    case AxisKind::kX:
      turn(c1, c2);
      return;
    case AxisKind::kY:
      turn(c2, c0);
      return;
    case AxisKind::kZ:
      turn(c0, c1);
      return;
    case AxisKind::kGeneral:
      MultiplyColumns(RodriguesMatrix(axis, c, s), c0, c1, c2);
      return;
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

/// Calls fn(dof, v, w) once for every coordinate that moves the point p_WQ
/// fixed on step `step`, with [v; w] that coordinate's column of the
/// geometric Jacobian (kinematics.h): revolute [a × (p_WQ − o); a], prismatic
/// [a; 0], a the world axis of the step and o its world origin. Coordinates
/// not visited have zero columns. Goals write their chain-rule product
/// ∂r/∂q = M_v J_v + M_ω J_ω straight into their output this way, with no
/// scratch Jacobian. The cross product is taken on Vec3 (the same
/// arithmetic as Eigen's, so the same bits; FK + the 6 × 7 site Jacobian
/// ~119 → ~115 ns).
///
/// Mimic joints (model.h): a step turned by a·q[k] + b contributes
/// a·[v; w] to column k (chain rule, ∂(a q_k + b)/∂q_k = a), and a
/// coordinate that drives several steps on the path (a leader and its
/// mimics) is still visited once, with the sum of their columns, so a
/// callback may assign its column rather than add to it.
/// @pre ForwardKinematics() has run on `data`; 0 ≤ step < num_steps().
template <typename Fn>
void ForEachJacobianColumn(const Model& model, const Data& data, int step,
                           const Eigen::Vector3d& p_WQ, Fn&& fn) {
  const Vec3 p = ToVec3(p_WQ);
  // The unscaled column [v; w] of moving step i.
  const auto column = [&](int i, Vec3* v, Vec3* w) {
    const Eigen::Isometry3d& X_WJ = data.X_W(i);
    const Vec3 a = ToVec3(
        WorldAxis(X_WJ.linear(), model.axis_kind(i), model.axis(i)));
    if (model.kind(i) == StepKind::kPrismatic) {
      *v = a;
      *w = {0.0, 0.0, 0.0};
    } else {
      const Vec3 arm{p.x - X_WJ(0, 3), p.y - X_WJ(1, 3), p.z - X_WJ(2, 3)};
      *v = Cross(a, arm);
      *w = a;
    }
  };
  if (!model.has_mimics()) {
    for (int i = step; i > 0; i = model.parent(i)) {
      const int dof = model.dof(i);
      if (dof < 0) continue;
      Vec3 v, w;
      column(i, &v, &w);
      if (model.kind(i) == StepKind::kPrismatic) {
        fn(dof, ToEigen(v), Eigen::Vector3d::Zero().eval());
      } else {
        fn(dof, ToEigen(v), ToEigen(w));
      }
    }
    return;
  }
  // With mimics: at the step of a coordinate nearest the tip, sum the scaled
  // columns of every step on the path it drives; skip its other steps. The
  // paths are short (tens of steps), so the quadratic walk costs less than
  // a workspace would.
  for (int i = step; i > 0; i = model.parent(i)) {
    const int dof = model.dof(i);
    if (dof < 0) continue;
    bool visited = false;
    for (int k = step; k != i && !visited; k = model.parent(k)) {
      visited = model.dof(k) == dof;
    }
    if (visited) continue;
    Vec3 v{0.0, 0.0, 0.0}, w{0.0, 0.0, 0.0};
    for (int k = i; k > 0; k = model.parent(k)) {
      if (model.dof(k) != dof) continue;
      Vec3 vk, wk;
      column(k, &vk, &wk);
      v = Add(v, Scale(vk, model.dof_scale(k)));
      w = Add(w, Scale(wk, model.dof_scale(k)));
    }
    fn(dof, ToEigen(v), ToEigen(w));
  }
}

}  // namespace iklab::internal

#endif  // IKLAB_FRAMEWORK_INTERNAL_KINEMATICS_KERNELS_H_
