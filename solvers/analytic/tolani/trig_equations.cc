#include "solvers/analytic/tolani/trig_equations.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <complex>

#include "solvers/analytic/tolani/internal/limb_math.h"

namespace iklab {

namespace {
using internal::kPi;
using internal::limb::Wrap;
}  // namespace

TrigRoots SolveTrigEquation(double a, double b, double c, double tolerance) {
  TrigRoots out;
  // √(a² + b²) directly (std::hypot's overflow guard cost 6 % of a limb
  // solve); hypot only where the squares could overflow.
  const double r = std::abs(a) < 1e150 && std::abs(b) < 1e150
                       ? std::sqrt(a * a + b * b)
                       : std::hypot(a, b);
  if (!(r > 0.0) || !std::isfinite(r) || !std::isfinite(c)) return out;
  const double ratio = c / r;
  if (std::abs(ratio) > 1.0 + tolerance) return out;
  const double theta0 = std::atan2(b, a);
  const double cos_delta = std::clamp(ratio, -1.0, 1.0);
  const double delta = std::acos(cos_delta);
  // θ0 ± δ with cos θ0 = a/r, sin θ0 = b/r, sin δ = √(1 − cos²δ) ≥ 0.
  const double c0 = a / r, s0 = b / r;
  const double sin_delta =
      std::sqrt(std::max(0.0, 1.0 - cos_delta * cos_delta));
  out.cos = {c0 * cos_delta - s0 * sin_delta, c0 * cos_delta + s0 * sin_delta};
  out.sin = {s0 * cos_delta + c0 * sin_delta, s0 * cos_delta - c0 * sin_delta};
  if (delta == 0.0 || delta == kPi) {
    out.count = 1;
    out.values = {Wrap(theta0 + delta), Wrap(theta0 + delta)};
    out.cos[1] = out.cos[0];
    out.sin[1] = out.sin[0];
    return out;
  }
  out.count = 2;
  out.values = {Wrap(theta0 + delta), Wrap(theta0 - delta)};
  return out;
}

int SolveTrigQuadratic(double a, double b, double c, double d, double e,
                       double f, std::array<double, 4>* roots) {
  const auto g = [&](double p) {
    const double cs = std::cos(p), sn = std::sin(p);
    return a * cs * cs + b * sn * sn + c * cs * sn + d * cs + e * sn + f;
  };
  const auto dg = [&](double p) {
    const double cs = std::cos(p), sn = std::sin(p);
    return 2.0 * (b - a) * cs * sn + c * (cs * cs - sn * sn) - d * sn + e * cs;
  };
  // The quartic in u = tan(ψ/2), ascending powers (multiply the equation by
  // (1 + u²)²; see the header).
  const double poly[5] = {a + d + f, 2.0 * (c + e), 2.0 * (2.0 * b - a + f),
                          2.0 * (e - c), a - d + f};
  double scale = 0.0;
  for (double p : poly) scale = std::max(scale, std::abs(p));
  const double size = std::abs(a) + std::abs(b) + std::abs(c) + std::abs(d) +
                      std::abs(e) + std::abs(f);
  if (!(scale > 0.0) || !std::isfinite(size)) return 0;
  int degree = 4;
  while (degree > 0 && std::abs(poly[degree]) <= 1e-13 * scale) --degree;
  double candidates[5];
  int n = 0;
  // A vanishing u⁴ coefficient: a root at u = ∞, i.e. ψ = π.
  if (degree < 4) candidates[n++] = kPi;
  if (degree >= 1) {
    // Companion matrix of the monic polynomial (fixed capacity: no heap).
    using Companion =
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 4, 4>;
    Companion C = Companion::Zero(degree, degree);
    for (int i = 1; i < degree; ++i) C(i, i - 1) = 1.0;
    for (int i = 0; i < degree; ++i) C(i, degree - 1) = -poly[i] / poly[degree];
    const Eigen::EigenSolver<Companion> solver(C, false);
    if (solver.info() == Eigen::Success) {
      for (int i = 0; i < degree; ++i) {
        const std::complex<double> u = solver.eigenvalues()[i];
        if (std::abs(u.imag()) <= 1e-6 * (1.0 + std::abs(u))) {
          candidates[n++] = 2.0 * std::atan(u.real());
        }
      }
    }
  }
  int count = 0;
  for (int i = 0; i < n; ++i) {
    double psi = candidates[i];
    for (int step = 0; step < 8; ++step) {
      const double slope = dg(psi);
      if (!(std::abs(slope) > 0.0)) break;
      const double delta = g(psi) / slope;
      if (!(std::abs(delta) < 0.1)) break;
      psi -= delta;
      if (std::abs(delta) < 1e-15) break;
    }
    psi = Wrap(psi);
    if (!(std::abs(g(psi)) <= 1e-9 * size)) continue;
    bool duplicate = false;
    for (int j = 0; j < count; ++j) {
      duplicate = duplicate || std::abs(Wrap(psi - (*roots)[j])) < 1e-9;
    }
    if (!duplicate && count < 4) (*roots)[count++] = psi;
  }
  return count;
}

double SwivelTrig::operator()(double phi) const {
  return alpha * std::sin(phi) + beta * std::cos(phi) + gamma;
}

double SwivelTrig::Derivative(double phi) const {
  return alpha * std::cos(phi) - beta * std::sin(phi);
}

}  // namespace iklab
