#include "solvers/analytic/subproblems.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Geometry>

#include "framework/internal/constants.h"

namespace iklab::analytic {

namespace {
using internal::kPi;
}  // namespace

AngleSolutions SolveTrigEquation(double a, double b, double c, double tol,
                                 double degenerate, double free_angle) {
  AngleSolutions out;
  // √(a² + b²) directly (std::hypot is a library call); hypot only where
  // the squares could overflow.
  const double rho = std::abs(a) < 1e150 && std::abs(b) < 1e150
                         ? std::sqrt(a * a + b * b)
                         : std::hypot(a, b);
  if (rho <= degenerate) {
    out.free = true;
    out.count = 1;
    out.theta[0] = free_angle;
    out.cos[0] = std::cos(free_angle);
    out.sin[0] = std::sin(free_angle);
    out.exact = std::abs(c) <= rho + degenerate;
    return out;
  }
  const double phi = std::atan2(b, a);
  const double cos_phi = a / rho, sin_phi = b / rho;
  const double ratio = c / rho;
  if (std::abs(ratio) > 1.0 + tol) {
    // No solution: a cos θ + b sin θ = ρ cos(θ − φ) is closest to c at
    // θ = φ (c > ρ) or θ = φ + π (c < −ρ).
    const double sign = ratio > 0.0 ? 1.0 : -1.0;
    out.exact = false;
    out.count = 1;
    out.theta[0] = ratio > 0.0 ? phi : phi + kPi;
    out.cos[0] = sign * cos_phi;
    out.sin[0] = sign * sin_phi;
    return out;
  }
  // θ = φ ± h with cos h = c/ρ.
  const double cos_half = std::clamp(ratio, -1.0, 1.0);
  const double sin_half = std::sqrt(1.0 - cos_half * cos_half);
  const double half = std::acos(cos_half);
  out.theta[0] = phi + half;
  out.theta[1] = phi - half;
  out.cos[0] = cos_phi * cos_half - sin_phi * sin_half;
  out.sin[0] = sin_phi * cos_half + cos_phi * sin_half;
  out.cos[1] = cos_phi * cos_half + sin_phi * sin_half;
  out.sin[1] = sin_phi * cos_half - cos_phi * sin_half;
  // Tangent: both roots coincide.
  out.count = half == 0.0 || half == kPi ? 1 : 2;
  return out;
}

AngleSolutions Subproblem1(const Eigen::Vector3d& k, const Eigen::Vector3d& p,
                           const Eigen::Vector3d& q, double degenerate,
                           double free_angle) {
  AngleSolutions out;
  out.count = 1;
  const Eigen::Vector3d p_perp = p - k.dot(p) * k;
  const Eigen::Vector3d q_perp = q - k.dot(q) * k;
  const double degenerate2 = degenerate * degenerate;
  if (p_perp.squaredNorm() <= degenerate2 ||
      q_perp.squaredNorm() <= degenerate2) {
    out.free = true;
    out.theta[0] = free_angle;
    out.cos[0] = std::cos(free_angle);
    out.sin[0] = std::sin(free_angle);
    return out;
  }
  // qᵀR(k, θ)p = (k·p)(k·q) + cos θ (p⊥·q) + sin θ ((k × p)·q) is largest
  // at this θ; it is the exact answer when one exists.
  const double y = k.cross(p).dot(q), x = p_perp.dot(q);
  const double r = std::sqrt(x * x + y * y);
  out.theta[0] = std::atan2(y, x);
  if (r > 0.0) {
    out.cos[0] = x / r;
    out.sin[0] = y / r;
  }
  return out;
}

AngleSolutions Subproblem3(const Eigen::Vector3d& k, const Eigen::Vector3d& p,
                           const Eigen::Vector3d& q, double d, double tol,
                           double degenerate, double free_angle) {
  const double kp = k.dot(p);
  const double a = p.dot(q) - kp * k.dot(q);  // p⊥·q
  const double b = k.cross(p).dot(q);
  const double c = 0.5 * (p.squaredNorm() + q.squaredNorm() - d * d) -
                   kp * k.dot(q);
  return SolveTrigEquation(a, b, c, tol, degenerate, free_angle);
}

AngleSolutions Subproblem4(const Eigen::Vector3d& h, const Eigen::Vector3d& k,
                           const Eigen::Vector3d& p, double d, double tol,
                           double degenerate, double free_angle) {
  const double kp = k.dot(p);
  const double hk = h.dot(k);
  const double a = h.dot(p) - kp * hk;  // h·p⊥
  const double b = h.dot(k.cross(p));
  const double c = d - kp * hk;
  return SolveTrigEquation(a, b, c, tol, degenerate, free_angle);
}

AnglePairSolutions Subproblem2(const Eigen::Vector3d& k1,
                               const Eigen::Vector3d& k2,
                               const Eigen::Vector3d& p,
                               const Eigen::Vector3d& q, double tol,
                               double degenerate, double free_angle1,
                               double free_angle2) {
  AnglePairSolutions out;
  const double c = k1.dot(k2);
  const Eigen::Vector3d n = k1.cross(k2);
  const double n2 = n.squaredNorm();  // 1 − c²
  const double a1 = k1.dot(q);
  const double a2 = k2.dot(p);
  const double alpha = (a1 - c * a2) / n2;
  const double beta = (a2 - c * a1) / n2;
  const Eigen::Vector3d base = alpha * k1 + beta * k2;
  const double p2 = p.squaredNorm();
  double gamma2 = (p2 - base.squaredNorm()) / n2;
  int branches = 2;
  if (gamma2 < 0.0) {
    if (gamma2 < -tol * std::max(p2, 1e-300) / n2) out.exact = false;
    gamma2 = 0.0;
  }
  const double gamma = std::sqrt(gamma2);
  if (gamma == 0.0) branches = 1;
  for (int i = 0; i < branches; ++i) {
    const Eigen::Vector3d x = base + (i == 0 ? gamma : -gamma) * n;
    const AngleSolutions t2 = Subproblem1(k2, p, x, degenerate, free_angle2);
    const AngleSolutions t1 = Subproblem1(k1, x, q, degenerate, free_angle1);
    out.free1 = out.free1 || t1.free;
    out.free2 = out.free2 || t2.free;
    out.theta[i] = Eigen::Vector2d(t1.theta[0], t2.theta[0]);
    out.cos[i] = Eigen::Vector2d(t1.cos[0], t2.cos[0]);
    out.sin[i] = Eigen::Vector2d(t1.sin[0], t2.sin[0]);
  }
  out.count = branches;
  return out;
}

}  // namespace iklab::analytic
