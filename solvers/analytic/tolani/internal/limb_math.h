#ifndef IKLAB_SOLVERS_ANALYTIC_TOLANI_INTERNAL_LIMB_MATH_H_
#define IKLAB_SOLVERS_ANALYTIC_TOLANI_INTERNAL_LIMB_MATH_H_

// Angle, rotation and Eq. (5) helpers shared by the files of the Tolani limb
// solver (not installed).

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/internal/constants.h"
#include "solvers/analytic/tolani/swivel_intervals.h"
#include "solvers/analytic/tolani/trig_equations.h"

namespace iklab {
namespace internal {
namespace limb {

inline constexpr double kTwoPi = 2.0 * kPi;

// Wraps into (−π, π]. Most arguments (atan2/asin results, their sums with
// ±π) are within a turn of that range: those skip std::remainder, which
// profiling showed to dominate the limit analysis.
inline double Wrap(double a) {
  if (a > -kPi && a <= kPi) return a;
  if (a > kPi && a <= 3.0 * kPi) {
    a -= kTwoPi;
  } else if (a <= -kPi && a > -3.0 * kPi) {
    a += kTwoPi;
  } else {
    a = std::remainder(a, kTwoPi);
  }
  if (a <= -kPi) a += kTwoPi;
  if (a > kPi) a -= kTwoPi;
  return a;
}

// Maps into [0, 2π).
inline double Wrap2Pi(double a) {
  if (a >= 0.0 && a < kTwoPi) return a;
  // The common case: a wrapped angle in (−π, 0) (std::fmod is a library
  // call).
  if (a < 0.0 && a >= -kTwoPi) {
    a += kTwoPi;
    return a < kTwoPi ? a : 0.0;
  }
  a = std::fmod(a, kTwoPi);
  if (a < 0.0) a += kTwoPi;
  if (a >= kTwoPi) a = 0.0;
  return a;
}

// Shifts θ by a multiple of 2π into [lo, hi] if possible; returns whether
// the (shifted) value lies within [lo − tol, hi + tol].
inline bool ShiftInto(double lo, double hi, double tol, double* theta) {
  double& t = *theta;
  if (t >= lo - tol && t <= hi + tol) return true;  // the common case
  if (std::isfinite(lo) && t < lo - tol) {
    t += kTwoPi * std::ceil((lo - tol - t) / kTwoPi);
  } else if (std::isfinite(hi) && t > hi + tol) {
    t -= kTwoPi * std::ceil((t - hi - tol) / kTwoPi);
  }
  return t >= lo - tol && t <= hi + tol;
}

// Amount by which θ (any representative mod 2π) misses [lo, hi].
inline double Violation(double lo, double hi, double theta) {
  if (ShiftInto(lo, hi, 0.0, &theta)) return 0.0;
  double best = std::numeric_limits<double>::infinity();
  // The nearest end around the circle.
  for (double end : {lo, hi}) {
    if (std::isfinite(end)) best = std::min(best, std::abs(Wrap(theta - end)));
  }
  return best;
}

inline Eigen::Matrix3d Skew(const Eigen::Vector3d& n) {
  Eigen::Matrix3d N;
  N << 0, -n.z(), n.y(), n.z(), 0, -n.x(), -n.y(), n.x(), 0;
  return N;
}

inline Eigen::Matrix3d Ry(double t) {
  return Eigen::AngleAxisd(t, Eigen::Vector3d::UnitY()).toRotationMatrix();
}

inline Eigen::Matrix3d AxisRotation(int axis, double t) {
  return Eigen::AngleAxisd(t, Eigen::Vector3d::Unit(axis)).toRotationMatrix();
}

// R(a0, q0) R(a1, q1) R(a2, q2) for signed coordinate axes.
inline Eigen::Matrix3d SphericalRotation(const std::array<double, 3>& sign,
                                         const int* axes,
                                         const double* angles) {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  for (int n = 0; n < 3; ++n) {
    R = R * AxisRotation(axes[n], sign[n] * angles[n]);
  }
  return R;
}

// A unit vector ⊥ n: the projection of `preferred` (or, when that is nearly
// parallel to n, of the coordinate axis least aligned with n).
inline Eigen::Vector3d Perpendicular(const Eigen::Vector3d& n,
                                     const Eigen::Vector3d& preferred,
                                     const Eigen::Vector3d& fallback) {
  Eigen::Vector3d p = preferred - preferred.dot(n) * n;
  if (p.norm() > 1e-9) return p.normalized();
  p = fallback - fallback.dot(n) * n;
  if (p.norm() > 1e-9) return p.normalized();
  Eigen::Index axis;
  n.cwiseAbs().minCoeff(&axis);
  p = Eigen::Vector3d::Unit(axis);
  return (p - p.dot(n) * n).normalized();
}

// Sorts a small array in place (insertion sort; ≤ 8 entries).
inline void SortSmall(double* v, int n) {
  for (int i = 1; i < n; ++i) {
    const double x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = x;
  }
}

// Adds the roots in [0, 2π) of f(φ) = level to `roots`.
inline void AddRoots(const SwivelTrig& f, double level, double* roots,
                     int* count) {
  // α sin φ + β cos φ + γ = level  ⇔  β cos φ + α sin φ = level − γ.
  const TrigRoots r = SolveTrigEquation(f.beta, f.alpha, level - f.gamma, 1e-9);
  for (int i = 0; i < r.count; ++i) roots[(*count)++] = Wrap2Pi(r.values[i]);
}

// {φ ∈ [0, 2π]: test(midpoint of each piece between breakpoints)}, the
// breakpoints being `roots` (unsorted) plus 0 and 2π.
template <typename Test>
inline SwivelIntervals PiecewiseSet(double* roots, int count,
                                    const Test& test) {
  SortSmall(roots, count);
  SwivelIntervals set;
  double previous = 0.0;
  for (int i = 0; i <= count; ++i) {
    const double next = i < count ? roots[i] : kTwoPi;
    if (next - previous > 1e-14) {
      if (test(0.5 * (previous + next))) set.Append(previous, next);
    }
    previous = std::max(previous, next);
  }
  return set;
}

// Eq. (5): |t_a + R_a Ry(θ4) t_b|² = d², i.e. with p = R_aᵀ t_a and Ry(θ)t =
// (ŷ·t)ŷ + cos θ (t − (ŷ·t)ŷ) + sin θ (ŷ × t):
//   a cos θ4 + b sin θ4 = c,  a = p·t_b − p_y t_by,  b = p·(ŷ × t_b),
//   c = (d² − |t_a|² − |t_b|²)/2 − p_y t_by.
struct ElbowEquation {
  double a, b, c0;  // c = (d² − |t_a|² − |t_b|²)/2 − c0 … see Coefficients
  double ta2, tb2;
};

inline ElbowEquation ElbowCoefficients(const Eigen::Vector3d& t_a,
                                       const Eigen::Matrix3d& R_a,
                                       const Eigen::Vector3d& t_b) {
  const Eigen::Vector3d p = R_a.transpose() * t_a;
  ElbowEquation e;
  e.a = p.dot(t_b) - p.y() * t_b.y();
  e.b = p.dot(Eigen::Vector3d::UnitY().cross(t_b));
  e.c0 = p.y() * t_b.y();
  e.ta2 = t_a.squaredNorm();
  e.tb2 = t_b.squaredNorm();
  return e;
}

inline TrigRoots ElbowRoots(const ElbowEquation& e, double distance) {
  const double c = 0.5 * (distance * distance - e.ta2 - e.tb2) - e.c0;
  // The tolerance is relative to |t_a||t_b| ~ r: it keeps FK-generated
  // targets at full stretch solvable despite rounding.
  return SolveTrigEquation(e.a, e.b, c, 1e-10);
}

// θ4 (within [lo, hi] when `limited`) whose wrist distance is closest to
// `distance`: the extremes of a cos θ + b sin θ are at atan2(b, a) (max) and
// + π (min); within limits the candidates are those and the ends.
inline double ClosestReachTheta4(const ElbowEquation& e, double distance,
                                 bool limited, double lo, double hi) {
  const auto dist = [&e](double t) {
    return std::sqrt(std::max(
        0.0,
        e.ta2 + e.tb2 + 2.0 * (e.a * std::cos(t) + e.b * std::sin(t) + e.c0)));
  };
  const double t_max = std::atan2(e.b, e.a);
  double candidates[4] = {t_max, Wrap(t_max + kPi), lo, hi};
  int n = 2;
  if (limited) {
    n = 0;
    for (double t : {t_max, Wrap(t_max + kPi)}) {
      double s = t;
      if (ShiftInto(lo, hi, 0.0, &s)) candidates[n++] = s;
    }
    if (std::isfinite(lo)) candidates[n++] = lo;
    if (std::isfinite(hi)) candidates[n++] = hi;
    if (n == 0) candidates[n++] = t_max;
  }
  double best = candidates[0];
  for (int i = 1; i < n; ++i) {
    if (std::abs(dist(candidates[i]) - distance) <
        std::abs(dist(best) - distance)) {
      best = candidates[i];
    }
  }
  return best;
}

// Moves entries of q that miss a limit by a few ulps (rounding at the end of
// a valid swivel interval) onto the limit.
template <typename Vector>
void ClampRounding(const Vector& lower, const Vector& upper, Vector* q) {
  for (int i = 0; i < q->size(); ++i) {
    double& v = (*q)[i];
    if (v < lower[i] && v > lower[i] - 1e-12) v = lower[i];
    if (v > upper[i] && v < upper[i] + 1e-12) v = upper[i];
  }
}

}  // namespace limb
}  // namespace internal
}  // namespace iklab

#endif  // IKLAB_SOLVERS_ANALYTIC_TOLANI_INTERNAL_LIMB_MATH_H_
