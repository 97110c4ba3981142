#include "solvers/tolani_limb_solver.h"

#include <Eigen/Eigenvalues>
#include <LBFGSB.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <exception>
#include <limits>

#include "constraints/aiming_goal.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/internal/check.h"
#include "framework/kinematics.h"
#include "solvers/lbfgsb_solver.h"

namespace iklab {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoPi = 2.0 * kPi;

using internal::StrCat;

// Wraps into (−π, π]. Most arguments (atan2/asin results, their sums with
// ±π) are within a turn of that range: those skip std::remainder, which
// profiling showed to dominate the limit analysis.
double Wrap(double a) {
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
double Wrap2Pi(double a) {
  if (a >= 0.0 && a < kTwoPi) return a;
  a = std::fmod(a, kTwoPi);
  if (a < 0.0) a += kTwoPi;
  if (a >= kTwoPi) a = 0.0;
  return a;
}

// Shifts θ by a multiple of 2π into [lo, hi] if possible; returns whether
// the (shifted) value lies within [lo − tol, hi + tol].
bool ShiftInto(double lo, double hi, double tol, double* theta) {
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
double Violation(double lo, double hi, double theta) {
  if (ShiftInto(lo, hi, 0.0, &theta)) return 0.0;
  double best = std::numeric_limits<double>::infinity();
  // The nearest end around the circle.
  for (double end : {lo, hi}) {
    if (std::isfinite(end)) best = std::min(best, std::abs(Wrap(theta - end)));
  }
  return best;
}

Eigen::Matrix3d Skew(const Eigen::Vector3d& n) {
  Eigen::Matrix3d N;
  N << 0, -n.z(), n.y(), n.z(), 0, -n.x(), -n.y(), n.x(), 0;
  return N;
}

Eigen::Matrix3d Ry(double t) {
  return Eigen::AngleAxisd(t, Eigen::Vector3d::UnitY()).toRotationMatrix();
}

Eigen::Matrix3d AxisRotation(int axis, double t) {
  return Eigen::AngleAxisd(t, Eigen::Vector3d::Unit(axis)).toRotationMatrix();
}

// R(a0, q0) R(a1, q1) R(a2, q2) for signed coordinate axes.
Eigen::Matrix3d SphericalRotation(const std::array<double, 3>& sign,
                                  const int* axes, const double* angles) {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  for (int n = 0; n < 3; ++n) {
    R = R * AxisRotation(axes[n], sign[n] * angles[n]);
  }
  return R;
}

// A unit vector ⊥ n: the projection of `preferred` (or, when that is nearly
// parallel to n, of the coordinate axis least aligned with n).
Eigen::Vector3d Perpendicular(const Eigen::Vector3d& n,
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
void SortSmall(double* v, int n) {
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
void AddRoots(const SwivelTrig& f, double level, double* roots, int* count) {
  // α sin φ + β cos φ + γ = level  ⇔  β cos φ + α sin φ = level − γ.
  const TrigRoots r = SolveTrigEquation(f.beta, f.alpha, level - f.gamma, 1e-9);
  for (int i = 0; i < r.count; ++i) roots[(*count)++] = Wrap2Pi(r.values[i]);
}

// {φ ∈ [0, 2π]: test(midpoint of each piece between breakpoints)}, the
// breakpoints being `roots` (unsorted) plus 0 and 2π.
template <typename Test>
SwivelIntervals PiecewiseSet(double* roots, int count, const Test& test) {
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

}  // namespace

// ---------------------------------------------------------------------------
// Small pieces
// ---------------------------------------------------------------------------

TrigRoots SolveTrigEquation(double a, double b, double c, double tolerance) {
  TrigRoots out;
  const double r = std::hypot(a, b);
  if (!(r > 0.0) || !std::isfinite(r) || !std::isfinite(c)) return out;
  const double ratio = c / r;
  if (std::abs(ratio) > 1.0 + tolerance) return out;
  const double theta0 = std::atan2(b, a);
  const double delta = std::acos(std::clamp(ratio, -1.0, 1.0));
  if (delta == 0.0 || delta == kPi) {
    out.count = 1;
    out.values = {Wrap(theta0 + delta), Wrap(theta0 + delta)};
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
    return 2.0 * (b - a) * cs * sn + c * (cs * cs - sn * sn) - d * sn +
           e * cs;
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
    using Companion = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0,
                                    4, 4>;
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

Eigen::Vector3d WristCurve::operator()(double psi) const {
  return std::cos(psi) * alpha + std::sin(psi) * beta + gamma;
}

double SwivelTrig::operator()(double phi) const {
  return alpha * std::sin(phi) + beta * std::cos(phi) + gamma;
}

double SwivelTrig::Derivative(double phi) const {
  return alpha * std::cos(phi) - beta * std::sin(phi);
}

Eigen::Vector3d ElbowCircle::Elbow(double phi) const {
  return center + radius * (std::cos(phi) * u + std::sin(phi) * v);
}

double ElbowCircle::SwivelOfElbow(const Eigen::Vector3d& desired_elbow) const {
  const Eigen::Vector3d p = desired_elbow - center;
  const Eigen::Vector3d p_star = p - p.dot(normal) * normal;
  if (p_star.norm() == 0.0) return 0.0;
  return std::atan2(p_star.dot(v), p_star.dot(u));
}

ElbowCircle MakeElbowCircle(const Eigen::Vector3d& wrist, double l1,
                            double l2, const Eigen::Vector3d& axis,
                            const Eigen::Vector3d& fallback_axis) {
  ElbowCircle c;
  const double l3 = wrist.norm();
  c.normal = l3 > 0.0 ? Eigen::Vector3d(wrist / l3)
                      : Perpendicular(axis, fallback_axis, fallback_axis);
  // Cosine rule in the triangle shoulder–elbow–wrist: the elbow's distance
  // along n̂ is L1 cos α = (L3² + L1² − L2²)/(2 L3).
  const double along =
      l3 > 0.0 ? (l3 * l3 + l1 * l1 - l2 * l2) / (2.0 * l3) : 0.0;
  c.center = along * c.normal;
  c.radius = std::sqrt(std::max(0.0, l1 * l1 - along * along));
  c.u = Perpendicular(c.normal, axis, fallback_axis);
  c.v = c.normal.cross(c.u);
  return c;
}

// ---------------------------------------------------------------------------
// SwivelIntervals
// ---------------------------------------------------------------------------

SwivelIntervals SwivelIntervals::Full() {
  SwivelIntervals s;
  s.Append(0.0, kTwoPi);
  return s;
}

bool SwivelIntervals::full() const {
  return size_ == 1 && pieces_[0].lo <= 0.0 && pieces_[0].hi >= kTwoPi;
}

double SwivelIntervals::Measure() const {
  double m = 0.0;
  for (int i = 0; i < size_; ++i) m += pieces_[i].length();
  return m;
}

bool SwivelIntervals::Contains(double phi, double tolerance) const {
  const double p = Wrap2Pi(phi);
  for (int i = 0; i < size_; ++i) {
    const Interval& in = pieces_[i];
    if (p >= in.lo - tolerance && p <= in.hi + tolerance) return true;
    // Near 0 / 2π the widened ends wrap around.
    if (p - kTwoPi >= in.lo - tolerance && p - kTwoPi <= in.hi + tolerance) {
      return true;
    }
    if (p + kTwoPi >= in.lo - tolerance && p + kTwoPi <= in.hi + tolerance) {
      return true;
    }
  }
  return false;
}

void SwivelIntervals::Append(double lo, double hi) {
  if (!(hi >= lo)) return;
  if (size_ > 0 && lo <= pieces_[size_ - 1].hi) {
    pieces_[size_ - 1].hi = std::max(pieces_[size_ - 1].hi, hi);
    return;
  }
  if (size_ == kCapacity) return;
  pieces_[size_++] = Interval{lo, hi};
}

SwivelIntervals SwivelIntervals::Intersection(
    const SwivelIntervals& other) const {
  SwivelIntervals out;
  int i = 0, j = 0;
  while (i < size_ && j < other.size_) {
    const double lo = std::max(pieces_[i].lo, other.pieces_[j].lo);
    const double hi = std::min(pieces_[i].hi, other.pieces_[j].hi);
    if (lo <= hi) out.Append(lo, hi);
    if (pieces_[i].hi < other.pieces_[j].hi) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

SwivelIntervals SwivelIntervals::Union(const SwivelIntervals& other) const {
  SwivelIntervals out;
  int i = 0, j = 0;
  while (i < size_ || j < other.size_) {
    const bool take_mine =
        j >= other.size_ || (i < size_ && pieces_[i].lo <= other.pieces_[j].lo);
    const Interval& in = take_mine ? pieces_[i++] : other.pieces_[j++];
    out.Append(in.lo, in.hi);
  }
  return out;
}

int SwivelIntervals::Arcs(std::array<Interval, kCapacity>* arcs) const {
  if (size_ == 0) return 0;
  if (full()) {
    (*arcs)[0] = Interval{0.0, kTwoPi};
    return 1;
  }
  const bool wraps =
      size_ > 1 && pieces_[0].lo <= 0.0 && pieces_[size_ - 1].hi >= kTwoPi;
  int n = 0;
  for (int i = wraps ? 1 : 0; i < size_; ++i) (*arcs)[n++] = pieces_[i];
  if (wraps) (*arcs)[n - 1].hi = kTwoPi + pieces_[0].hi;
  return n;
}

bool SwivelIntervals::LongestArc(Interval* arc) const {
  std::array<Interval, kCapacity> arcs;
  const int n = Arcs(&arcs);
  if (n == 0) return false;
  int best = 0;
  for (int i = 1; i < n; ++i) {
    if (arcs[i].length() > arcs[best].length()) best = i;
  }
  *arc = arcs[best];
  return true;
}

double SwivelIntervals::Closest(double phi, double margin) const {
  std::array<Interval, kCapacity> arcs;
  const int n = Arcs(&arcs);
  if (n == 0) return Wrap(phi);
  if (full()) return Wrap(phi);
  double best = Wrap(phi);
  double best_distance = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    double lo = arcs[i].lo + margin, hi = arcs[i].hi - margin;
    if (lo > hi) lo = hi = 0.5 * (arcs[i].lo + arcs[i].hi);
    // φ inside the (shrunk) arc, in any representative.
    const double mid = 0.5 * (lo + hi);
    const double candidate_in = mid + Wrap(phi - mid);
    if (candidate_in >= lo && candidate_in <= hi) return Wrap(candidate_in);
    for (double end : {lo, hi}) {
      const double d = std::abs(Wrap(phi - end));
      if (d < best_distance) {
        best_distance = d;
        best = Wrap(end);
      }
    }
  }
  return best;
}

// ---------------------------------------------------------------------------
// SwivelParameterization
// ---------------------------------------------------------------------------

Eigen::Matrix3d SwivelParameterization::R1(double phi) const {
  return std::sin(phi) * S1_ + std::cos(phi) * C1_ + K1_;
}

Eigen::Matrix3d SwivelParameterization::R2(double phi) const {
  if (!wrist_free_) {
    const auto& L = ik_->s2_;
    const int axes[3] = {L.i, L.j, L.proper ? L.i : L.k};
    return SphericalRotation(L.sign, axes, wrist_angles_.data());
  }
  return std::sin(phi) * S2_ + std::cos(phi) * C2_ + K2_;
}

void SwivelParameterization::Angles(const EulerTrig& e, int joint, int family,
                                    double phi, double* out) const {
  const TolaniLimbIk::EulerLayout& L = joint == 0 ? ik_->s1_ : ik_->s2_;
  const double sigma = family == 0 ? 1.0 : -1.0;
  const double s = std::sin(phi), c = std::cos(phi);
  const auto at = [s, c](const SwivelTrig& f) {
    return f.alpha * s + f.beta * c + f.gamma;
  };
  const double m = std::clamp(at(e.m), -1.0, 1.0);
  double middle;
  if (L.proper) {
    middle = family == 0 ? std::acos(m) : -std::acos(m);
  } else {
    middle = family == 0 ? std::asin(m) : kPi - std::asin(m);
  }
  const double n1 = at(e.n1), d1 = at(e.d1), n3 = at(e.n3), d3 = at(e.d3);
  double first, third;
  if (n1 * n1 + d1 * d1 > 1e-24) {
    first = std::atan2(sigma * n1, sigma * d1);
    third = std::atan2(sigma * n3, sigma * d3);
  } else {
    // Euler singularity (the first and third axes align): only their sum or
    // difference is defined. Take the first angle 0 and read the third from
    // R_j(middle)ᵀ R = R_last(third).
    const Eigen::Matrix3d R =
        joint == 0 ? Eigen::Matrix3d(R1(phi)) : Eigen::Matrix3d(R2(phi));
    const Eigen::Matrix3d Rk = AxisRotation(L.j, middle).transpose() * R;
    const int last = L.proper ? L.i : L.k;
    const int a = (last + 1) % 3, b = (last + 2) % 3;
    first = 0.0;
    third = std::atan2(Rk(b, a), Rk(a, a));
  }
  const int base = joint == 0 ? 0 : 4;
  const double primed[3] = {first, middle, third};
  for (int n = 0; n < 3; ++n) {
    double theta = Wrap(L.sign[n] * primed[n]);
    ShiftInto(ik_->lower_[base + n], ik_->upper_[base + n], 0.0, &theta);
    out[n] = theta;
  }
}

void SwivelParameterization::Derivatives(const EulerTrig& e, int joint,
                                         int family, double phi,
                                         double* out) const {
  const TolaniLimbIk::EulerLayout& L = joint == 0 ? ik_->s1_ : ik_->s2_;
  const double m = std::clamp(e.m(phi), -1.0, 1.0);
  const double dm = e.m.Derivative(phi);
  const double root = std::sqrt(std::max(0.0, 1.0 - m * m));
  // Tait–Bryan: sin θ = m, cos θ = ±root; proper: cos θ = m, sin θ = ±root.
  const double sign = family == 0 ? 1.0 : -1.0;
  const double d_middle = L.proper ? -dm / (sign * root) : dm / (sign * root);
  const auto outer = [phi](const SwivelTrig& n, const SwivelTrig& d) {
    const double N = n(phi), D = d(phi);
    return (n.Derivative(phi) * D - N * d.Derivative(phi)) / (N * N + D * D);
  };
  out[0] = L.sign[0] * outer(e.n1, e.d1);
  out[1] = L.sign[1] * d_middle;
  out[2] = L.sign[2] * outer(e.n3, e.d3);
}

Vector7d SwivelParameterization::JointAngles(double phi, int shoulder_family,
                                             int wrist_family) const {
  Vector7d q;
  Angles(shoulder_, 0, shoulder_family, phi, &q[0]);
  q[3] = theta4_;
  ShiftInto(ik_->lower_[3], ik_->upper_[3], 0.0, &q[3]);
  if (wrist_free_) {
    Angles(wrist_, 1, wrist_family, phi, &q[4]);
  } else {
    q.tail<3>() = wrist_angles_;
  }
  return q;
}

Vector7d SwivelParameterization::JointAngleDerivatives(
    double phi, int shoulder_family, int wrist_family) const {
  Vector7d d = Vector7d::Zero();
  Derivatives(shoulder_, 0, shoulder_family, phi, &d[0]);
  if (wrist_free_) Derivatives(wrist_, 1, wrist_family, phi, &d[4]);
  return d;
}

namespace {

// Π for one joint (index n of a spherical joint with layout L), both
// families at once: the φ where its angle is within [lo, hi] (Tolani
// §3.2.4). Breakpoints are where the angle meets a limit (mod 2π): for the
// middle angle m(φ) = sin(limit) (Tait–Bryan) or cos(limit) (proper), for an
// outer angle N(φ) cos(limit) − D(φ) sin(limit) = 0, which also holds at
// limit + π, so the breakpoints are a superset; the test at each piece's
// midpoint decides (the paper's "evaluating the curve at a point inside the
// interval"). The two families share the breakpoints (family 1's middle
// angle is π − family 0's, or its negative for a proper joint; its outer
// angles are family 0's + π), so they are found once. `angles_at(φ, f, out)`
// gives all three angles (used at an Euler singularity only).
template <typename AnglesAt>
void JointSets(int n, bool proper, double sign, const SwivelTrig& m,
               const SwivelTrig& num, const SwivelTrig& den, double lo,
               double hi, const AnglesAt& angles_at,
               std::array<SwivelIntervals, kNumFamilies>* sets) {
  if (!(hi - lo < kTwoPi)) {
    (*sets)[0] = (*sets)[1] = SwivelIntervals::Full();
    return;
  }
  const bool middle = n == 1;
  const double plo = sign > 0 ? lo : -hi, phi_hi = sign > 0 ? hi : -lo;
  double roots[8];
  int count = 0;
  for (double limit : {plo, phi_hi}) {
    if (middle) {
      AddRoots(m, proper ? std::cos(limit) : std::sin(limit), roots, &count);
    } else {
      const double c = std::cos(limit), s = std::sin(limit);
      SwivelTrig f{num.alpha * c - den.alpha * s, num.beta * c - den.beta * s,
                   num.gamma * c - den.gamma * s};
      AddRoots(f, 0.0, roots, &count);
    }
  }
  SortSmall(roots, count);
  SwivelIntervals& set0 = (*sets)[0];
  SwivelIntervals& set1 = (*sets)[1];
  set0 = SwivelIntervals();
  set1 = SwivelIntervals();
  const auto inside = [lo, hi, sign](double primed) {
    double theta = Wrap(sign * primed);
    return ShiftInto(lo, hi, 0.0, &theta);
  };
  double previous = 0.0;
  for (int i = 0; i <= count; ++i) {
    const double next = i < count ? roots[i] : kTwoPi;
    if (next - previous > 1e-14) {
      const double phi = 0.5 * (previous + next);
      const double s = std::sin(phi), c = std::cos(phi);
      const auto at = [s, c](const SwivelTrig& f) {
        return f.alpha * s + f.beta * c + f.gamma;
      };
      bool in0, in1;
      if (middle) {
        const double v = std::clamp(at(m), -1.0, 1.0);
        if (proper) {
          const double t = std::acos(v);
          in0 = inside(t);
          in1 = inside(-t);
        } else {
          const double t = std::asin(v);
          in0 = inside(t);
          in1 = inside(kPi - t);
        }
      } else {
        const double N = at(num), D = at(den);
        if (N * N + D * D > 1e-24) {
          const double t = std::atan2(N, D);
          in0 = inside(t);
          in1 = inside(t > 0.0 ? t - kPi : t + kPi);
        } else {
          double out[3];
          angles_at(phi, 0, out);
          double t0 = out[n];
          in0 = ShiftInto(lo, hi, 0.0, &t0);
          angles_at(phi, 1, out);
          double t1 = out[n];
          in1 = ShiftInto(lo, hi, 0.0, &t1);
        }
      }
      if (in0) set0.Append(previous, next);
      if (in1) set1.Append(previous, next);
    }
    previous = std::max(previous, next);
  }
}

}  // namespace

void SwivelParameterization::Analyze(const TolaniLimbIk& ik,
                                     SwivelAnalysis* a) const {
  double t4 = theta4_;
  a->elbow_valid = ShiftInto(ik.lower_[3], ik.upper_[3], 0.0, &t4);
  const auto analyze_joint = [&](const EulerTrig& e, int joint,
                                 const TolaniLimbIk::EulerLayout& L,
                                 std::array<SwivelIntervals, 2>* sets) {
    const int base = joint == 0 ? 0 : 4;
    for (int n = 0; n < 3; ++n) {
      const SwivelTrig& num = n == 0 ? e.n1 : e.n3;
      const SwivelTrig& den = n == 0 ? e.d1 : e.d3;
      JointSets(n, L.proper, L.sign[n], e.m, num, den, ik.lower_[base + n],
                ik.upper_[base + n],
                [&](double phi, int f, double* out) {
                  Angles(e, joint, f, phi, out);
                },
                &a->per_joint[base + n]);
    }
    for (int f = 0; f < kNumFamilies; ++f) {
      (*sets)[f] = a->per_joint[base][f]
                       .Intersection(a->per_joint[base + 1][f])
                       .Intersection(a->per_joint[base + 2][f]);
    }
  };
  analyze_joint(shoulder_, 0, ik.s1_, &a->shoulder);
  if (wrist_free_) {
    analyze_joint(wrist_, 1, ik.s2_, &a->wrist);
  } else {
    bool inside = true;
    for (int n = 0; n < 3; ++n) {
      double t = wrist_angles_[n];
      inside = inside && ShiftInto(ik.lower_[4 + n], ik.upper_[4 + n], 0.0, &t);
    }
    a->wrist[0] = inside ? SwivelIntervals::Full() : SwivelIntervals();
    a->wrist[1] = SwivelIntervals();
    for (int n = 4; n < 7; ++n) {
      a->per_joint[n][0] = a->wrist[0];
      a->per_joint[n][1] = a->wrist[1];
    }
  }
  a->valid = SwivelIntervals();
  if (!a->elbow_valid) return;
  for (int f = 0; f < kNumFamilies; ++f) {
    for (int g = 0; g < kNumFamilies; ++g) {
      a->valid = a->valid.Union(a->shoulder[f].Intersection(a->wrist[g]));
    }
  }
}

bool SwivelParameterization::FamiliesAt(const TolaniLimbIk& ik, double phi,
                                        double tolerance, int* shoulder_family,
                                        int* wrist_family) const {
  double best = std::numeric_limits<double>::infinity();
  const int wrist_families = wrist_free_ ? kNumFamilies : 1;
  for (int f = 0; f < kNumFamilies; ++f) {
    for (int g = 0; g < wrist_families; ++g) {
      const Vector7d q = JointAngles(phi, f, g);
      double violation = 0.0;
      for (int i = 0; i < 7; ++i) {
        violation = std::max(violation, Violation(ik.lower_[i], ik.upper_[i],
                                                  q[i]));
      }
      if (violation < best) {
        best = violation;
        *shoulder_family = f;
        *wrist_family = g;
      }
    }
  }
  return best <= tolerance;
}

// ---------------------------------------------------------------------------
// TolaniLimbIk
// ---------------------------------------------------------------------------

namespace {

// Index and sign of a ± coordinate axis, or false.
bool CoordinateAxis(const Eigen::Vector3d& a, int* index, double* sign) {
  for (int i = 0; i < 3; ++i) {
    for (double s : {1.0, -1.0}) {
      if ((a - s * Eigen::Vector3d::Unit(i)).norm() <= 1e-12) {
        *index = i;
        *sign = s;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

TolaniLimbIk::TolaniLimbIk(const LimbGeometry& g) {
  const auto layout = [](const std::array<Eigen::Vector3d, 3>& axes,
                         const char* name) {
    EulerLayout L;
    int idx[3];
    for (int n = 0; n < 3; ++n) {
      if (!CoordinateAxis(axes[n], &idx[n], &L.sign[n])) {
        internal::ThrowInvalidArgument(
            "TolaniLimbIk: geometry.", name, "[", n,
            "] must be a +/- coordinate axis, got ",
            internal::FormatVector(axes[n]));
      }
    }
    if (idx[0] == idx[1] || idx[1] == idx[2]) {
      internal::ThrowInvalidArgument(
          "TolaniLimbIk: geometry.", name,
          " must have a middle axis different from its neighbours (Euler "
          "angles), got axes ",
          idx[0], ", ", idx[1], ", ", idx[2]);
    }
    L.proper = idx[0] == idx[2];
    L.i = idx[0];
    L.j = idx[1];
    L.k = L.proper ? 3 - idx[0] - idx[1] : idx[2];
    L.parity = (L.j - L.i + 3) % 3 == 1 ? 1.0 : -1.0;
    return L;
  };
  s1_ = layout(g.s1_axes, "s1_axes");
  s2_ = layout(g.s2_axes, "s2_axes");
  if ((g.f_axis - Eigen::Vector3d::UnitY()).norm() > 1e-12) {
    internal::ThrowInvalidArgument("TolaniLimbIk: geometry.f_axis must be +y "
                                   "(Tolani 3.1), got ",
                                   internal::FormatVector(g.f_axis));
  }
  if (!internal::IsRigidTransform(g.A) || !internal::IsRigidTransform(g.B)) {
    internal::ThrowInvalidArgument("TolaniLimbIk: geometry.A and geometry.B "
                                   "must be finite rigid transforms");
  }
  t_a_ = g.A.translation();
  R_a_ = g.A.linear();
  t_b_ = g.B.translation();
  R_b_ = g.B.linear();
  if (!(t_a_.norm() > 0.0) || !(t_b_.norm() > 0.0)) {
    internal::ThrowInvalidArgument("TolaniLimbIk: the translations of "
                                   "geometry.A and geometry.B (upper and lower "
                                   "limb) must be non-zero");
  }
  set_limits(g.lower, g.upper);
}

void TolaniLimbIk::set_limits(const Vector7d& lower, const Vector7d& upper) {
  for (int i = 0; i < 7; ++i) {
    if (std::isnan(lower[i]) || std::isnan(upper[i]) || lower[i] > upper[i]) {
      internal::ThrowInvalidArgument("TolaniLimbIk: limits of coordinate ", i,
                                     " must satisfy lower <= upper, got [",
                                     lower[i], ", ", upper[i], "]");
    }
  }
  lower_ = lower;
  upper_ = upper;
}

Eigen::Isometry3d TolaniLimbIk::Forward(const Vector7d& q) const {
  const int a1[3] = {s1_.i, s1_.j, s1_.proper ? s1_.i : s1_.k};
  const int a2[3] = {s2_.i, s2_.j, s2_.proper ? s2_.i : s2_.k};
  const Eigen::Matrix3d R1 = SphericalRotation(s1_.sign, a1, &q[0]);
  const Eigen::Matrix3d R2 = SphericalRotation(s2_.sign, a2, &q[4]);
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  const Eigen::Matrix3d M = R1 * R_a_ * Ry(q[3]);
  X.linear() = M * R_b_ * R2;
  X.translation() = R1 * t_a_ + M * t_b_;
  return X;
}

Eigen::Vector3d TolaniLimbIk::Elbow(const Vector7d& q) const {
  const int a1[3] = {s1_.i, s1_.j, s1_.proper ? s1_.i : s1_.k};
  return SphericalRotation(s1_.sign, a1, &q[0]) * t_a_;
}

namespace {

// Eq. (5): |t_a + R_a Ry(θ4) t_b|² = d², i.e. with p = R_aᵀ t_a and Ry(θ)t =
// (ŷ·t)ŷ + cos θ (t − (ŷ·t)ŷ) + sin θ (ŷ × t):
//   a cos θ4 + b sin θ4 = c,  a = p·t_b − p_y t_by,  b = p·(ŷ × t_b),
//   c = (d² − |t_a|² − |t_b|²)/2 − p_y t_by.
struct ElbowEquation {
  double a, b, c0;  // c = (d² − |t_a|² − |t_b|²)/2 − c0 … see Coefficients
  double ta2, tb2;
};

ElbowEquation ElbowCoefficients(const Eigen::Vector3d& t_a,
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

TrigRoots ElbowRoots(const ElbowEquation& e, double distance) {
  const double c = 0.5 * (distance * distance - e.ta2 - e.tb2) - e.c0;
  // The tolerance is relative to |t_a||t_b| ~ r: it keeps FK-generated
  // targets at full stretch solvable despite rounding.
  return SolveTrigEquation(e.a, e.b, c, 1e-10);
}

// θ4 (within [lo, hi] when `limited`) whose wrist distance is closest to
// `distance`: the extremes of a cos θ + b sin θ are at atan2(b, a) (max) and
// + π (min); within limits the candidates are those and the ends.
double ClosestReachTheta4(const ElbowEquation& e, double distance, bool limited,
                          double lo, double hi) {
  const auto dist = [&e](double t) {
    return std::sqrt(std::max(
        0.0, e.ta2 + e.tb2 + 2.0 * (e.a * std::cos(t) + e.b * std::sin(t) +
                                    e.c0)));
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

}  // namespace

TrigRoots TolaniLimbIk::SolveElbow(double distance) const {
  return ElbowRoots(ElbowCoefficients(t_a_, R_a_, t_b_), distance);
}

void TolaniLimbIk::BuildFamily(double theta4, const Eigen::Vector3d& w0,
                               const Eigen::Vector3d& goal_point,
                               const LimbIkOptions& options,
                               SwivelParameterization* f) const {
  f->ik_ = this;
  f->theta4_ = theta4;
  // Eq. (7), rebuilt: R1 maps the rest triangle (shoulder 0, elbow e0 = t_a,
  // wrist w0) onto the goal triangle (0, e(φ), goal). The paper's frames
  // [x̂ ŷ ẑ] are built from x̂ = e/|e|, which degenerates for a stretched
  // limb; we build them on the shoulder → wrist axis instead, F0 = [n̂0, m̂0,
  // n̂0 × m̂0] with m̂0 the unit elbow offset from that axis, and Fg(φ) = [n̂,
  // û(φ), n̂ × û(φ)] with û(φ) = cos φ û + sin φ v̂. For a non-degenerate
  // triangle the rotation between congruent triangles is unique, so this is
  // the paper's R1; when the radius vanishes any m̂0 ⊥ n̂0 gives a valid R1
  // and φ then only twists the limb about its axis (§3.6).
  const double w_norm = w0.norm();
  const Eigen::Vector3d n0 =
      w_norm > 0.0 ? Eigen::Vector3d(w0 / w_norm) : Eigen::Vector3d::UnitZ();
  const double g_norm = goal_point.norm();
  const Eigen::Vector3d n = g_norm > 0.0 ? Eigen::Vector3d(goal_point / g_norm)
                                         : Eigen::Vector3d(n0);
  const Eigen::Vector3d e0 = t_a_;
  const double along = e0.dot(n0);
  const Eigen::Vector3d e_perp = e0 - along * n0;
  const double radius = e_perp.norm();
  ElbowCircle& c = f->circle_;
  c.normal = n;
  c.center = along * n;
  c.radius = radius;
  c.u = Perpendicular(n, options.swivel_axis, Eigen::Vector3d::UnitY());
  c.v = n.cross(c.u);
  // Near full stretch e_perp is the small difference of two long vectors:
  // its direction carries an n̂0 component of relative size ε|e0|/R, which
  // would make F0 non-orthonormal; Perpendicular() projects it out again.
  const Eigen::Vector3d m0 =
      radius > 1e-12 * e0.norm()
          ? Perpendicular(n0, e_perp / radius, Eigen::Vector3d::UnitX())
          : Perpendicular(n0, Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitY());
  Eigen::Matrix3d F0, Fg;
  F0 << n0, m0, n0.cross(m0);
  Fg << n, c.u, c.v;
  f->R0_ = Fg * F0.transpose();
  // R1(φ) = R_n(φ) R0 = sin φ (N R0) + cos φ (−N² R0) + (I + N²) R0
  // (NOTES-ON-THE-SEEDS, §3.2.4).
  const Eigen::Matrix3d N = Skew(n);
  const Eigen::Matrix3d N2 = N * N;
  f->S1_ = N * f->R0_;
  f->C1_ = -N2 * f->R0_;
  f->K1_ = (Eigen::Matrix3d::Identity() + N2) * f->R0_;
  FillEuler(s1_, f->S1_, f->C1_, f->K1_, &f->shoulder_);
  f->wrist_free_ = false;
}

void TolaniLimbIk::SetWristFree(const Eigen::Matrix3d& R_g,
                                SwivelParameterization* f) const {
  // R2(φ) = Mᵀ R1(φ)ᵀ R_g with M = R_a Ry(θ4) R_b: each term of R1 carries
  // through, so R2 = sin φ (Mᵀ S1ᵀ R_g) + cos φ (Mᵀ C1ᵀ R_g) + Mᵀ K1ᵀ R_g.
  const Eigen::Matrix3d Mt = (R_a_ * Ry(f->theta4_) * R_b_).transpose();
  f->S2_ = Mt * f->S1_.transpose() * R_g;
  f->C2_ = Mt * f->C1_.transpose() * R_g;
  f->K2_ = Mt * f->K1_.transpose() * R_g;
  f->wrist_free_ = true;
  FillEuler(s2_, f->S2_, f->C2_, f->K2_, &f->wrist_);
}

void TolaniLimbIk::FillEuler(const EulerLayout& L, const Eigen::Matrix3d& S,
                             const Eigen::Matrix3d& C, const Eigen::Matrix3d& K,
                             SwivelParameterization::EulerTrig* e) {
  const auto trig = [&](int r, int col, double k) {
    return SwivelTrig{k * S(r, col), k * C(r, col), k * K(r, col)};
  };
  const int i = L.i, j = L.j, k = L.k;
  const double eps = L.parity;
  if (L.proper) {
    // R = R_i(a) R_j(b) R_i(c), k the remaining axis, ε the parity of
    // (i, j, k): cos b = R_ii, tan a = R_ji / (−ε R_ki), tan c = R_ij / (ε R_ik).
    e->m = trig(i, i, 1.0);
    e->n1 = trig(j, i, 1.0);
    e->d1 = trig(k, i, -eps);
    e->n3 = trig(i, j, 1.0);
    e->d3 = trig(i, k, eps);
  } else {
    // R = R_i(a) R_j(b) R_k(c), ε the parity of (i, j, k): sin b = ε R_ik,
    // tan a = −ε R_jk / R_kk, tan c = −ε R_ij / R_ii (divided by cos b, whose
    // sign is the family's).
    e->m = trig(i, k, eps);
    e->n1 = trig(j, k, -eps);
    e->d1 = trig(k, k, 1.0);
    e->n3 = trig(i, j, -eps);
    e->d3 = trig(i, i, 1.0);
  }
}

void TolaniLimbIk::SetWristGiven(const Eigen::Vector3d& wrist_angles,
                                 SwivelParameterization* f) const {
  f->wrist_free_ = false;
  f->wrist_angles_ = wrist_angles;
}

int TolaniLimbIk::Parameterize(
    const Eigen::Isometry3d& G, const LimbIkOptions& options,
    std::array<SwivelParameterization, 2>* out) const {
  const Eigen::Vector3d t_g = G.translation();
  const TrigRoots roots =
      ElbowRoots(ElbowCoefficients(t_a_, R_a_, t_b_), t_g.norm());
  for (int r = 0; r < roots.count; ++r) {
    const double t4 = roots.values[r];
    const Eigen::Vector3d w0 = t_a_ + R_a_ * Ry(t4) * t_b_;
    BuildFamily(t4, w0, t_g, options, &(*out)[r]);
    SetWristFree(G.linear(), &(*out)[r]);
  }
  return roots.count;
}

bool TolaniLimbIk::ChooseSwivel(const SwivelParameterization& family,
                                const SwivelAnalysis& analysis,
                                const LimbIkOptions& options,
                                double* phi) const {
  const double desired =
      options.use_desired_elbow
          ? family.circle().SwivelOfElbow(options.desired_elbow)
          : options.desired_swivel;
  if (!options.respect_limits) {
    *phi = Wrap(desired);
    return true;
  }
  const SwivelIntervals& V = analysis.valid;
  if (V.empty()) return false;
  if (V.full()) {
    *phi = Wrap(desired);
    return true;
  }
  if (options.swivel_choice == SwivelChoice::kLongestArcMidpoint) {
    SwivelIntervals::Interval arc;
    V.LongestArc(&arc);
    *phi = Wrap(0.5 * (arc.lo + arc.hi));
    return true;
  }
  // Keep a margin from the ends so that rounding cannot push an angle over
  // its limit.
  *phi = V.Closest(desired, 1e-9);
  return true;
}

bool TolaniLimbIk::SolveFamilies(
    const std::array<SwivelParameterization, 2>& families, int count,
    const LimbIkOptions& options, LimbSolution* s, double* score) const {
  *score = -1.0;
  if (count == 0) return false;
  // Prefer the elbow root inside its limits (Tolani §3.2.1: "only one
  // solution is physically realizable because of joint limits").
  int preferred = 0;
  for (int r = count - 1; r >= 0; --r) {
    double t = families[r].theta4();
    if (ShiftInto(lower_[3], upper_[3], 0.0, &t)) preferred = r;
  }
  if (!options.respect_limits) {
    const SwivelParameterization& f = families[preferred];
    const double phi =
        Wrap(options.use_desired_elbow
                 ? f.circle().SwivelOfElbow(options.desired_elbow)
                 : options.desired_swivel);
    s->status = LimbIkStatus::kSolved;
    s->message = "analytic (limits off)";
    s->q = f.JointAngles(phi, 0, 0);
    s->swivel = phi;
    s->elbow_root = preferred;
    s->shoulder_family = s->wrist_family = 0;
    s->valid = SwivelIntervals::Full();
    *score = kTwoPi;
    return true;
  }
  SwivelAnalysis analysis;
  bool found = false;
  for (int r = 0; r < count; ++r) {
    const SwivelParameterization& f = families[r];
    double t4 = f.theta4();
    if (!ShiftInto(lower_[3], upper_[3], 0.0, &t4)) continue;  // V empty
    f.Analyze(*this, &analysis);
    double phi;
    if (!ChooseSwivel(f, analysis, options, &phi)) continue;
    SwivelIntervals::Interval arc;
    analysis.valid.LongestArc(&arc);
    const double length = arc.length();
    if (found && length <= *score) continue;
    // The families whose sets hold φ (V = ∪ A_f ∩ B_g); FamiliesAt's
    // evaluation of all four pairs only if rounding at an end leaves none.
    int sf = -1, wf = 0;
    for (int a = 0; a < kNumFamilies && sf < 0; ++a) {
      for (int b = 0; b < kNumFamilies; ++b) {
        if (analysis.shoulder[a].Contains(phi) &&
            analysis.wrist[b].Contains(phi)) {
          sf = a;
          wf = b;
          break;
        }
      }
    }
    if (sf < 0) f.FamiliesAt(*this, phi, 1e-9, &sf, &wf);
    Vector7d q = f.JointAngles(phi, sf, wf);
    // Rounding at an interval end: clamp violations of a few ulps.
    for (int i = 0; i < 7; ++i) {
      if (q[i] < lower_[i] && q[i] > lower_[i] - 1e-12) q[i] = lower_[i];
      if (q[i] > upper_[i] && q[i] < upper_[i] + 1e-12) q[i] = upper_[i];
    }
    found = true;
    *score = length;
    s->status = LimbIkStatus::kSolved;
    s->message = "analytic (valid swivel intervals)";
    s->q = q;
    s->swivel = phi;
    s->elbow_root = r;
    s->shoulder_family = sf;
    s->wrist_family = wf;
    s->valid = analysis.valid;
  }
  if (found) return true;
  // No admissible φ: the exact solution of the preferred root at the desired
  // φ, with the families that violate the limits least.
  const SwivelParameterization& f = families[preferred];
  const double phi = options.use_desired_elbow
                         ? f.circle().SwivelOfElbow(options.desired_elbow)
                         : Wrap(options.desired_swivel);
  int sf = 0, wf = 0;
  f.FamiliesAt(*this, phi, 0.0, &sf, &wf);
  s->status = LimbIkStatus::kLimitsInfeasible;
  s->message = "reachable, but no swivel angle satisfies the joint limits";
  s->q = f.JointAngles(phi, sf, wf);
  s->swivel = phi;
  s->elbow_root = preferred;
  s->shoulder_family = sf;
  s->wrist_family = wf;
  s->valid = SwivelIntervals();
  return false;
}

LimbSolution TolaniLimbIk::SolvePose(const Eigen::Isometry3d& G_site,
                                     const Eigen::Isometry3d& E,
                                     const LimbIkOptions& options) const {
  const Eigen::Isometry3d G = G_site * E.inverse(Eigen::Isometry);
  std::array<SwivelParameterization, 2> families;
  const int count = Parameterize(G, options, &families);
  LimbSolution s;
  double score;
  if (count > 0) {
    SolveFamilies(families, count, options, &s, &score);
    return s;
  }
  // Out of reach: the limb stretched (or folded) toward the wrist goal with
  // the goal orientation, the closest θ4 within the limits.
  const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, t_b_);
  const double t4 = ClosestReachTheta4(eq, G.translation().norm(),
                                       options.respect_limits, lower_[3],
                                       upper_[3]);
  BuildFamily(t4, t_a_ + R_a_ * Ry(t4) * t_b_, G.translation(), options,
              &families[0]);
  SetWristFree(G.linear(), &families[0]);
  const double phi = Wrap(options.desired_swivel);
  int sf = 0, wf = 0;
  families[0].FamiliesAt(*this, phi, 0.0, &sf, &wf);
  s.status = LimbIkStatus::kUnreachable;
  s.message = "the wrist goal is out of reach (Eq. 5 has no root)";
  s.q = families[0].JointAngles(phi, sf, wf);
  s.swivel = phi;
  s.shoulder_family = sf;
  s.wrist_family = wf;
  return s;
}

LimbSolution TolaniLimbIk::ApproximatePose(const Eigen::Isometry3d& G_site,
                                           const Eigen::Isometry3d& E,
                                           const LimbIkOptions& options) const {
  LimbSolution s = SolvePose(G_site, E, options);
  if (s.status == LimbIkStatus::kSolved || !options.respect_limits) return s;
  const Eigen::Isometry3d G = G_site * E.inverse(Eigen::Isometry);
  const Eigen::Vector3d t_g = G.translation();
  const Eigen::Matrix3d& R_g = G.linear();
  const Eigen::Vector3d t_e = E.translation();
  // ½‖D‖²_F + ½‖D t_e‖² = ½ tr(D W Dᵀ) with D = R − R_g, W = I + t_e t_eᵀ.
  const Eigen::Matrix3d W =
      Eigen::Matrix3d::Identity() + t_e * t_e.transpose();
  // θ4: the roots of Eq. (5) within the elbow limits place the wrist
  // exactly; without one, the θ4 within the limits whose reach is closest.
  const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, t_b_);
  const TrigRoots roots = ElbowRoots(eq, t_g.norm());
  double elbow[2];
  int num_elbow = 0;
  for (int r = 0; r < roots.count; ++r) {
    double t = roots.values[r];
    if (ShiftInto(lower_[3], upper_[3], 0.0, &t)) elbow[num_elbow++] = t;
  }
  const bool exact = num_elbow > 0;
  if (!exact) {
    elbow[num_elbow++] = ClosestReachTheta4(eq, t_g.norm(), true, lower_[3],
                                            upper_[3]);
  }
  // The wrist's Euler axes and their cross-product matrices.
  const int a2[3] = {s2_.i, s2_.j, s2_.proper ? s2_.i : s2_.k};
  Eigen::Matrix3d K[3];
  for (int n = 0; n < 3; ++n) {
    K[n] = s2_.sign[n] * Skew(Eigen::Vector3d::Unit(a2[n]));
  }
  const double desired = options.use_desired_elbow ? 0.0
                                                   : options.desired_swivel;
  double best_value = std::numeric_limits<double>::infinity();
  Vector7d best_q = s.q;
  double best_phi = 0.0;
  int best_family = 0, iterations = 0;
  bool applied = false;
  for (int k = 0; k < num_elbow; ++k) {
    const double t4 = elbow[k];
    SwivelParameterization family;
    BuildFamily(t4, t_a_ + R_a_ * Ry(t4) * t_b_, t_g, options, &family);
    SetWristFree(R_g, &family);
    SwivelAnalysis analysis;
    family.Analyze(*this, &analysis);
    const Eigen::Matrix3d M = R_a_ * Ry(t4) * R_b_;
    const Eigen::Matrix3d N = Skew(family.circle().normal);
    const double phi_desired =
        options.use_desired_elbow
            ? family.circle().SwivelOfElbow(options.desired_elbow)
            : desired;
    for (int sf = 0; sf < kNumFamilies; ++sf) {
      const SwivelIntervals& A = analysis.shoulder[sf];
      std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity> arcs;
      const int num_arcs = A.Arcs(&arcs);
      for (int i = 0; i < num_arcs; ++i) {
        applied = true;
        // 1e-9 inside the arc's ends, so that rounding cannot push a
        // shoulder angle over the limit that ends the arc.
        double lo = arcs[i].lo + 1e-9, hi = arcs[i].hi - 1e-9;
        if (lo > hi) lo = hi = 0.5 * (arcs[i].lo + arcs[i].hi);
        double phi0 = 0.5 * (lo + hi);
        if (A.full()) {
          phi0 = Wrap(phi_desired);
          lo = phi0 - kPi;
          hi = phi0 + kPi;
        }
        // f(x) and ∇f for x = (φ, θ5, θ6, θ7): R = R1(φ) M R2, ∂R/∂φ = N R
        // (R1(φ) = R_n(φ) R0), ∂R2/∂θ_{5+n} = R2 with s_n [e_n]× inserted
        // after its n-th factor.
        const auto objective = [&](const Eigen::VectorXd& x,
                                   Eigen::VectorXd& grad) {
          const double phi = std::clamp(x[0], lo, hi);
          const Eigen::Matrix3d P = family.R1(phi) * M;
          Eigen::Matrix3d F[3];
          for (int n = 0; n < 3; ++n) {
            F[n] = AxisRotation(a2[n], s2_.sign[n] * x[1 + n]);
          }
          const Eigen::Matrix3d R2 = F[0] * F[1] * F[2];
          const Eigen::Matrix3d R = P * R2;
          const Eigen::Matrix3d D = R - R_g;
          const Eigen::Matrix3d DW = D * W;
          grad[0] = DW.cwiseProduct(N * R).sum();
          grad[1] = DW.cwiseProduct(P * K[0] * R2).sum();
          grad[2] = DW.cwiseProduct(P * F[0] * K[1] * F[1] * F[2]).sum();
          grad[3] = DW.cwiseProduct(R * K[2]).sum();
          return 0.5 * DW.cwiseProduct(D).sum();
        };
        for (int wf = 0; wf < kNumFamilies; ++wf) {
          // Start: the exact wrist angles at φ0 clamped into their limits.
          const Vector7d q0 = family.JointAngles(phi0, sf, wf);
          Eigen::VectorXd x(4), lb(4), ub(4), grad(4);
          x[0] = phi0;
          lb[0] = lo;
          ub[0] = hi;
          for (int n = 0; n < 3; ++n) {
            const double l = lower_[4 + n], u = upper_[4 + n];
            x[1 + n] = std::clamp(q0[4 + n], l, u);
            // Unbounded angles: a box of ± one turn (the error is periodic).
            lb[1 + n] = std::isfinite(l) ? l : x[1 + n] - kTwoPi;
            ub[1 + n] = std::isfinite(u) ? u : x[1 + n] + kTwoPi;
          }
          LBFGSpp::LBFGSBParam<double> param;
          param.max_iterations = 200;
          param.epsilon = 1e-12;
          param.epsilon_rel = 0.0;
          LBFGSpp::LBFGSBSolver<double> solver(param);
          Eigen::VectorXd best_x = x;
          double best_fx = objective(x, grad);
          const auto tracked = [&](const Eigen::VectorXd& y,
                                   Eigen::VectorXd& g) {
            const double v = objective(y, g);
            if (v < best_fx) {
              best_fx = v;
              best_x = y;
            }
            return v;
          };
          double fx;
          try {
            iterations += solver.minimize(tracked, x, fx, lb, ub);
          } catch (const std::exception&) {
            // Line-search failure: keep the best point evaluated.
          }
          if (best_fx < best_value) {
            best_value = best_fx;
            best_phi = std::clamp(best_x[0], lo, hi);
            best_family = sf;
            best_q = family.JointAngles(best_phi, sf, wf);
            for (int n = 0; n < 3; ++n) {
              best_q[4 + n] = std::clamp(best_x[1 + n], lb[1 + n], ub[1 + n]);
            }
          }
        }
      }
    }
  }
  if (!applied) return s;  // no φ satisfies the shoulder limits
  // φ ∈ A_f keeps the shoulder within its limits; clamp rounding at an end.
  for (int i = 0; i < 7; ++i) {
    if (best_q[i] < lower_[i] && best_q[i] > lower_[i] - 1e-12) {
      best_q[i] = lower_[i];
    }
    if (best_q[i] > upper_[i] && best_q[i] < upper_[i] + 1e-12) {
      best_q[i] = upper_[i];
    }
  }
  LimbSolution out;
  out.q = best_q;
  out.swivel = Wrap(best_phi);
  out.shoulder_family = best_family;
  out.iterations = iterations;
  out.reduced = true;
  out.valid = SwivelIntervals();
  // The rotation angle ν of Rᵀ R_g from ‖R − R_g‖_F = 2√2 sin(ν/2)
  // (accurate for small ν, unlike acos of the trace).
  const Eigen::Matrix3d R = Forward(best_q).linear();
  const double nu =
      2.0 * std::asin(std::min(1.0, (R - R_g).norm() / (2.0 * std::sqrt(2.0))));
  if (exact && nu <= 1e-10) {
    out.status = LimbIkStatus::kSolved;
    out.message = "Table 3 reduced problem: an exact solution within the limits";
  } else if (exact) {
    out.status = LimbIkStatus::kLimitsInfeasible;
    out.message =
        "Table 3 reduced problem: no swivel angle satisfies the joint limits; "
        "wrist placed exactly, orientation error minimized within the limits";
  } else if (roots.count > 0) {
    out.status = LimbIkStatus::kLimitsInfeasible;
    out.message =
        "Table 3 reduced problem: the elbow angle the wrist goal needs is "
        "outside its limits; wrist as close as they allow, orientation error "
        "minimized within the limits";
  } else {
    out.status = LimbIkStatus::kUnreachable;
    out.message =
        "Table 3 reduced problem: the wrist goal is out of reach; limb "
        "stretched toward it, orientation error minimized within the limits";
  }
  return out;
}

LimbSolution TolaniLimbIk::SolvePosition(const Eigen::Vector3d& target,
                                         const Eigen::Vector3d& p_site,
                                         const Eigen::Vector3d& wrist_angles,
                                         const LimbIkOptions& options) const {
  // With R2 given, the site is a fixed point of the forearm: the lower limb
  // vector becomes t_b' = t_b + R_b R2 p_site and Eqs. (5)–(7) apply as is.
  const int a2[3] = {s2_.i, s2_.j, s2_.proper ? s2_.i : s2_.k};
  const Eigen::Matrix3d R2 =
      SphericalRotation(s2_.sign, a2, wrist_angles.data());
  const Eigen::Vector3d tb = t_b_ + R_b_ * R2 * p_site;
  const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, tb);
  const TrigRoots roots = ElbowRoots(eq, target.norm());
  std::array<SwivelParameterization, 2> families;
  for (int r = 0; r < roots.count; ++r) {
    const double t4 = roots.values[r];
    BuildFamily(t4, t_a_ + R_a_ * Ry(t4) * tb, target, options, &families[r]);
    SetWristGiven(wrist_angles, &families[r]);
  }
  LimbSolution s;
  double score;
  if (roots.count > 0) {
    SolveFamilies(families, roots.count, options, &s, &score);
    return s;
  }
  const double t4 = ClosestReachTheta4(eq, target.norm(),
                                       options.respect_limits, lower_[3],
                                       upper_[3]);
  BuildFamily(t4, t_a_ + R_a_ * Ry(t4) * tb, target, options, &families[0]);
  SetWristGiven(wrist_angles, &families[0]);
  const double phi = Wrap(options.desired_swivel);
  int sf = 0, wf = 0;
  families[0].FamiliesAt(*this, phi, 0.0, &sf, &wf);
  s.status = LimbIkStatus::kUnreachable;
  s.message = "the position goal is out of reach (Eq. 5 has no root)";
  s.q = families[0].JointAngles(phi, sf, wf);
  s.swivel = phi;
  s.shoulder_family = sf;
  return s;
}

// Kinds of two-parameter problems.
namespace {
constexpr int kPartialOrientation = 0;
constexpr int kAiming = 1;

// R_g(ψ) = Rot(a_G, ψ) R_base with R_base a_S = a_G (Tolani §3.3, G(ψ)): the
// frames [a, u, a × u] built on each axis from the projection axis p̂.
Eigen::Matrix3d PartialGoalRotation(const Eigen::Vector3d& axis_site,
                                    const Eigen::Vector3d& axis_goal,
                                    const Eigen::Vector3d& p_hat, double psi) {
  const Eigen::Vector3d us =
      Perpendicular(axis_site, p_hat, Eigen::Vector3d::UnitY());
  const Eigen::Vector3d ug =
      Perpendicular(axis_goal, p_hat, Eigen::Vector3d::UnitY());
  Eigen::Matrix3d Fs, Fg;
  Fs << axis_site, us, axis_site.cross(us);
  const Eigen::Vector3d u = std::cos(psi) * ug +
                            std::sin(psi) * axis_goal.cross(ug);
  Fg << axis_goal, u, axis_goal.cross(u);
  return Fg * Fs.transpose();
}
}  // namespace

LimbSolution TolaniLimbIk::SolveWithParameter(
    int kind, double parameter, const Eigen::Vector3d& target,
    const Eigen::Isometry3d& E, const Eigen::Vector3d& axis_site,
    const Eigen::Vector3d& axis_goal, const Eigen::Vector3d& wrist_angles,
    const LimbIkOptions& options) const {
  if (kind == kPartialOrientation) {
    Eigen::Isometry3d G = Eigen::Isometry3d::Identity();
    G.linear() = PartialGoalRotation(axis_site, axis_goal,
                                     options.swivel_axis, parameter);
    G.translation() = target;
    LimbSolution s = SolvePose(G, E, options);
    s.parameter = parameter;
    return s;
  }
  // Aiming (§3.4) for θ4 = parameter: with the wrist fixed the aim point h
  // and direction a are fixed in the rest frame (R1 = I); the target p must
  // lie on R1 (h + λ a) for some λ > 0, and since R1 is a rotation about the
  // shoulder, |h + λ a| = |p| fixes λ (up to two crossings: AimFamilies).
  // R1 then maps w0 = h + λ a onto p: the same one-parameter family as the
  // elbow circle, now about the shoulder → target axis (the paper's "hand
  // circle", Eq. 13).
  std::array<SwivelParameterization, 2> families;
  LimbSolution s;
  s.parameter = parameter;
  const int count = AimFamilies(parameter, target, E, axis_site, wrist_angles,
                                options, &families);
  if (count == 0) {
    s.status = LimbIkStatus::kUnreachable;
    s.message = "no aiming line through the target for this elbow angle";
    s.swivel = Wrap(options.desired_swivel);
    s.q = families[0].JointAngles(s.swivel, 0, 0);
    return s;
  }
  double score;
  SolveFamilies(families, count, options, &s, &score);
  s.parameter = parameter;
  return s;
}

int TolaniLimbIk::AimFamilies(
    double theta4, const Eigen::Vector3d& target, const Eigen::Isometry3d& E,
    const Eigen::Vector3d& direction, const Eigen::Vector3d& wrist_angles,
    const LimbIkOptions& options,
    std::array<SwivelParameterization, 2>* families) const {
  const int a2[3] = {s2_.i, s2_.j, s2_.proper ? s2_.i : s2_.k};
  const Eigen::Matrix3d R2 =
      SphericalRotation(s2_.sign, a2, wrist_angles.data());
  // Aim point and direction in F's distal frame, then in the rest frame.
  const Eigen::Vector3d h_F = t_b_ + R_b_ * R2 * E.translation();
  const Eigen::Vector3d d_F = R_b_ * R2 * E.linear() * direction;
  const Eigen::Matrix3d M = R_a_ * Ry(theta4);
  const Eigen::Vector3d h = t_a_ + M * h_F;
  const Eigen::Vector3d a = (M * d_F).normalized();
  // |h + λ a|² = |p|²: λ² + 2(h·a)λ + |h|² − |p|² = 0. Both positive roots
  // are aiming lines: when the aim points back toward the shoulder side and
  // the target is nearer the shoulder than the aim point, the line crosses
  // the sphere |x| = |p| twice and each crossing is its own family (like the
  // two roots of Eq. 5). (Taking only the larger root lost the goals whose
  // solutions within the limits use the nearer crossing.)
  const double ha = h.dot(a);
  const double disc = ha * ha - h.squaredNorm() + target.squaredNorm();
  const double tiny = 1e-9 * (1.0 + target.norm());
  int count = 0;
  if (disc >= 0.0) {
    const double root = std::sqrt(disc);
    for (double lambda : {-ha + root, -ha - root}) {
      if (lambda > tiny && (count == 0 || root > 0.0)) {
        SwivelParameterization& f = (*families)[count++];
        BuildFamily(theta4, h + lambda * a, target, options, &f);
        SetWristGiven(wrist_angles, &f);
      }
    }
  }
  if (count == 0) {
    // No aiming line: the closest approach, for reporting.
    const double lambda = disc >= 0.0 ? -ha + std::sqrt(disc) : -ha;
    BuildFamily(theta4, h + std::max(lambda, 0.0) * a, target, options,
                &(*families)[0]);
    SetWristGiven(wrist_angles, &(*families)[0]);
  }
  return count;
}

WristCurve TolaniLimbIk::PartialOrientationWrist(
    const Eigen::Vector3d& target, const Eigen::Isometry3d& E,
    const Eigen::Vector3d& axis_site, const Eigen::Vector3d& axis_goal,
    const LimbIkOptions& options) const {
  // Eq. (10): w(ψ) = G(ψ) E⁻¹ [0 0 0 1]ᵀ = t_g − R_g(ψ) R_eᵀ t_e with
  // R_g(ψ) = Rot(â, ψ) R_g(0), and Rot(â, ψ) y = (â·y)â + cos ψ (y − (â·y)â)
  // + sin ψ (â × y) for y = R_g(0) R_eᵀ t_e.
  const Eigen::Vector3d y =
      PartialGoalRotation(axis_site, axis_goal, options.swivel_axis, 0.0) *
      E.linear().transpose() * E.translation();
  const Eigen::Vector3d& a = axis_goal;
  const double ay = a.dot(y);
  WristCurve w;
  w.alpha = -(y - ay * a);
  w.beta = -a.cross(y);
  w.gamma = target - ay * a;
  return w;
}

double TolaniLimbIk::ChoosePsi(const WristCurve& w,
                               const LimbIkOptions& options,
                               const SwivelIntervals& admissible) const {
  using PsiChoice = LimbIkOptions::PsiChoice;
  if (options.psi_choice == PsiChoice::kDesired || admissible.empty()) {
    return admissible.Closest(options.desired_psi, 1e-9);
  }
  const Eigen::Vector3d up = options.up_axis.normalized();
  const auto objective = [&](double psi) {
    switch (options.psi_choice) {
      case PsiChoice::kLowestWrist:
        return up.dot(w(psi));
      case PsiChoice::kHighestWrist:
        return -up.dot(w(psi));
      default:
        return (w(psi) - options.desired_wrist).squaredNorm();
    }
  };
  double candidates[4 + 2 * SwivelIntervals::kCapacity];
  int n = 0;
  if (options.psi_choice == PsiChoice::kClosestWrist) {
    // Eq. (12): d/dψ ‖w(ψ) − w_d‖² = 0. With δ = γ − w_d, half the
    // derivative is (α·β)(cos²ψ − sin²ψ) + (|β|² − |α|²) cos ψ sin ψ
    // + (β·δ) cos ψ − (α·δ) sin ψ: the paper's a cos²ψ + b sin²ψ
    // + c cos ψ sin ψ + d cos ψ + e sin ψ + f with the coefficients below
    // (rebuilt; the text gives only the form). For our circle α·β = 0 and
    // |α| = |β|, so the quartic's u⁴…u⁰ reduce to a quadratic times 1 + u².
    const Eigen::Vector3d delta = w.gamma - options.desired_wrist;
    const double ab = w.alpha.dot(w.beta);
    std::array<double, 4> roots;
    const int count = SolveTrigQuadratic(
        ab, -ab, w.beta.squaredNorm() - w.alpha.squaredNorm(),
        w.beta.dot(delta), -w.alpha.dot(delta), 0.0, &roots);
    for (int i = 0; i < count; ++i) candidates[n++] = roots[i];
  } else {
    // Eq. (11): d/dψ (up·w) = −(up·α) sin ψ + (up·β) cos ψ = 0; the second
    // derivative −(up·α) cos ψ − (up·β) sin ψ is > 0 at the minimum.
    const double A = up.dot(w.alpha), B = up.dot(w.beta);
    const TrigRoots r = SolveTrigEquation(B, -A, 0.0);
    const bool lowest = options.psi_choice == PsiChoice::kLowestWrist;
    for (int i = 0; i < r.count; ++i) {
      const double psi = r.values[i];
      const double second = -A * std::cos(psi) - B * std::sin(psi);
      if (lowest ? second > 0.0 : second < 0.0) candidates[n++] = psi;
    }
  }
  // A constant objective (e.g. up ∥ â): any ψ will do; keep desired_psi.
  if (n == 0) return admissible.Closest(options.desired_psi, 1e-9);
  // Within reach only: the admissible stationary points and the ends of the
  // admissible arcs (moved 1e-9 inside).
  int stationary = n;
  std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity> arcs;
  if (!admissible.full()) {
    const int num_arcs = admissible.Arcs(&arcs);
    for (int i = 0; i < num_arcs; ++i) {
      double lo = arcs[i].lo + 1e-9, hi = arcs[i].hi - 1e-9;
      if (lo > hi) lo = hi = 0.5 * (arcs[i].lo + arcs[i].hi);
      candidates[n++] = lo;
      candidates[n++] = hi;
    }
  }
  double best = 0.0, best_value = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    if (i < stationary && !admissible.Contains(candidates[i])) continue;
    const double value = objective(candidates[i]);
    if (value < best_value) {
      best_value = value;
      best = candidates[i];
    }
  }
  return Wrap(best);
}

LimbSolution TolaniLimbIk::SolvePartialOrientation(
    const Eigen::Vector3d& target, const Eigen::Isometry3d& E,
    const Eigen::Vector3d& axis_site, const Eigen::Vector3d& axis_goal,
    const LimbIkOptions& options) const {
  return SolveTwoParameter(kPartialOrientation, target, E, axis_site,
                           axis_goal, Eigen::Vector3d::Zero(), options);
}

LimbSolution TolaniLimbIk::SolveAiming(const Eigen::Vector3d& target,
                                       const Eigen::Isometry3d& E,
                                       const Eigen::Vector3d& direction_site,
                                       const Eigen::Vector3d& wrist_angles,
                                       const LimbIkOptions& options) const {
  return SolveTwoParameter(kAiming, target, E, direction_site,
                           Eigen::Vector3d::Zero(), wrist_angles, options);
}

LimbSolution TolaniLimbIk::SolveTwoParameter(
    int kind, const Eigen::Vector3d& target, const Eigen::Isometry3d& E,
    const Eigen::Vector3d& axis_site, const Eigen::Vector3d& axis_goal,
    const Eigen::Vector3d& wrist_angles, const LimbIkOptions& options) const {
  const auto solve_at = [&](double parameter) {
    return SolveWithParameter(kind, parameter, target, E, axis_site,
                              axis_goal, wrist_angles, options);
  };
  // The admissible range of the second parameter, and its first choice.
  SwivelIntervals range;
  double first = 0.0;
  if (kind == kPartialOrientation) {
    // Reachable ψ (§3.3, Eq. 10): the wrist is w(ψ) = t_g − R_g(ψ) R_eᵀ t_e,
    // so |w|² = |t_g|² + |y|² − 2 t_g·Rot(a, ψ) y with y = R_base R_eᵀ t_e:
    // a sin ψ + b cos ψ + c, to lie within the squared reach of θ4.
    const Eigen::Vector3d y =
        PartialGoalRotation(axis_site, axis_goal, options.swivel_axis, 0.0) *
        E.linear().transpose() * E.translation();
    const Eigen::Vector3d& a = axis_goal;
    const double ay = a.dot(y), at = a.dot(target);
    const SwivelTrig w2{-2.0 * target.dot(a.cross(y)),
                        -2.0 * (target.dot(y) - ay * at),
                        target.squaredNorm() + y.squaredNorm() - 2.0 * ay * at};
    const ElbowEquation eq = ElbowCoefficients(t_a_, R_a_, t_b_);
    const auto d2 = [&eq](double t) {
      return eq.ta2 + eq.tb2 +
             2.0 * (eq.a * std::cos(t) + eq.b * std::sin(t) + eq.c0);
    };
    const double lo4 = lower_[3], hi4 = upper_[3];
    const double t_max = std::atan2(eq.b, eq.a);
    double dmin2 = std::numeric_limits<double>::infinity(), dmax2 = 0.0;
    const auto consider = [&](double t) {
      dmin2 = std::min(dmin2, d2(t));
      dmax2 = std::max(dmax2, d2(t));
    };
    if (options.respect_limits && hi4 - lo4 < kTwoPi) {
      consider(lo4);
      consider(hi4);
      for (double t : {t_max, t_max + kPi}) {
        double s = t;
        if (ShiftInto(lo4, hi4, 0.0, &s)) consider(s);
      }
    } else {
      consider(t_max);
      consider(t_max + kPi);
    }
    const double slack = 1e-10 * (eq.ta2 + eq.tb2);
    double roots[4];
    int count = 0;
    AddRoots(w2, dmin2 - slack, roots, &count);
    AddRoots(w2, dmax2 + slack, roots, &count);
    range = PiecewiseSet(roots, count, [&](double psi) {
      const double v = w2(psi);
      return v >= dmin2 - slack && v <= dmax2 + slack;
    });
    if (range.empty()) {
      // Out of reach for every ψ: the ψ closest to the reach.
      const double psi_max = std::atan2(w2.alpha, w2.beta);
      const double psi = w2(psi_max) < dmin2 ? psi_max : psi_max + kPi;
      LimbSolution s = solve_at(Wrap(psi));
      s.status = LimbIkStatus::kUnreachable;
      s.message = "the position goal is out of reach for every psi";
      return s;
    }
    // Eqs. (10)–(12): ψ per options.psi_choice within the reachable range.
    first = ChoosePsi(PartialOrientationWrist(target, E, axis_site, axis_goal,
                                              options),
                      options, range);
  } else {
    const double lo4 = lower_[3], hi4 = upper_[3];
    const bool bounded = std::isfinite(lo4) && std::isfinite(hi4);
    const bool limited = options.respect_limits && bounded && hi4 - lo4 < kTwoPi;
    if (std::isfinite(options.aiming_theta4)) {
      LimbSolution s = solve_at(options.aiming_theta4);
      return s;
    }
    const double desired = bounded ? 0.5 * (lo4 + hi4) : 0.0;
    if (limited) {
      range.Append(Wrap2Pi(lo4), std::min(kTwoPi, Wrap2Pi(lo4) + (hi4 - lo4)));
      if (Wrap2Pi(lo4) + (hi4 - lo4) > kTwoPi) {
        SwivelIntervals head;
        head.Append(0.0, Wrap2Pi(lo4) + (hi4 - lo4) - kTwoPi);
        range = head.Union(range);
      }
    } else {
      range = SwivelIntervals::Full();
    }
    first = range.Closest(desired, 1e-9);
  }
  // 1. The first choice of the parameter.
  LimbSolution best = solve_at(first);
  if (best.status == LimbIkStatus::kSolved) return best;
  // 2. Scan the admissible range; keep the sample with the longest valid
  //    swivel arc (an exact, admissible solution when any).
  std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity> arcs;
  const int num_arcs = range.Arcs(&arcs);
  double total = 0.0;
  for (int i = 0; i < num_arcs; ++i) total += arcs[i].length();
  const int samples = std::max(1, options.parameter_samples);
  double best_length = -1.0;
  bool any_reachable = best.status != LimbIkStatus::kUnreachable;
  for (int i = 0; i < num_arcs; ++i) {
    const int n = std::max(
        1, static_cast<int>(std::round(samples * arcs[i].length() / total)));
    for (int k = 0; k < n; ++k) {
      const double parameter =
          Wrap(arcs[i].lo + arcs[i].length() * (k + 0.5) / n);
      LimbSolution s = solve_at(parameter);
      if (s.status == LimbIkStatus::kUnreachable) continue;
      any_reachable = true;
      if (s.status != LimbIkStatus::kSolved) {
        if (best.status == LimbIkStatus::kUnreachable) best = s;
        continue;
      }
      SwivelIntervals::Interval arc;
      s.valid.LongestArc(&arc);
      if (arc.length() > best_length) {
        best_length = arc.length();
        best = s;
      }
    }
  }
  if (best.status == LimbIkStatus::kSolved) {
    best.message = kind == kPartialOrientation
                       ? "analytic after a scan of psi (valid swivel arc)"
                       : "analytic after a scan of theta4 (valid swivel arc)";
    return best;
  }
  if (!any_reachable) {
    best.status = LimbIkStatus::kUnreachable;
    best.message = kind == kPartialOrientation
                       ? "the goal is out of reach"
                       : "no aiming line through the target is reachable";
    return best;
  }
  // 3. Table 2's small unconstrained optimization: minimize the paper's
  //    F(φ, τ) = Σ_{i≠4} (θ_i − θ_i*)² (θ* = middle of the limits; for
  //    aiming θ4 is the free τ and joins the sum) over (φ, τ) with
  //    L-BFGS-B, τ kept inside the admissible range's arc. F ignores the
  //    limits; the result is accepted only if it satisfies them.
  Vector7d middle = Vector7d::Zero();
  Vector7d weight = Vector7d::Zero();
  for (int i = 0; i < 7; ++i) {
    if (std::isfinite(lower_[i]) && std::isfinite(upper_[i])) {
      middle[i] = 0.5 * (lower_[i] + upper_[i]);
      weight[i] = 1.0;
    }
  }
  if (kind == kPartialOrientation) weight[3] = 0.0;
  const double tau0 = best.parameter;
  const double phi0 = best.swivel;
  const auto F = [&](double phi, double tau, int sf, int wf, int root,
                     Vector7d* q) {
    // The exact solution at (φ, τ) with the given families and root.
    std::array<SwivelParameterization, 2> families;
    int count = 1;
    if (kind == kPartialOrientation) {
      Eigen::Isometry3d G = Eigen::Isometry3d::Identity();
      G.linear() = PartialGoalRotation(axis_site, axis_goal,
                                       options.swivel_axis, tau);
      G.translation() = target;
      count = Parameterize(G * E.inverse(Eigen::Isometry), options, &families);
    } else {
      count = AimFamilies(tau, target, E, axis_site, wrist_angles, options,
                          &families);
    }
    if (root >= count) return std::numeric_limits<double>::infinity();
    *q = families[root].JointAngles(phi, sf, wf);
    return (weight.array() * (q->array() - middle.array()).square()).sum();
  };
  int range_arc = 0;
  for (int i = 0; i < num_arcs; ++i) {
    const double t = arcs[i].lo + Wrap2Pi(tau0 - arcs[i].lo);
    if (t <= arcs[i].hi) range_arc = i;
  }
  const double tau_lo = arcs[range_arc].lo, tau_hi = arcs[range_arc].hi;
  LimbSolution refined = best;
  double refined_violation = std::numeric_limits<double>::infinity();
  for (int root = 0; root < 2; ++root) {
    for (int sf = 0; sf < kNumFamilies; ++sf) {
      for (int wf = 0; wf < (kind == kPartialOrientation ? kNumFamilies : 1);
           ++wf) {
        const auto objective = [&](const Eigen::VectorXd& x,
                                   Eigen::VectorXd& grad) {
          Vector7d q;
          const double f = F(x[0], x[1], sf, wf, root, &q);
          if (!std::isfinite(f)) {
            grad.setZero();
            return 1e10;
          }
          const double h = 1e-6;
          for (int d = 0; d < 2; ++d) {
            Eigen::Vector2d xp(x[0], x[1]), xm(x[0], x[1]);
            xp[d] += h;
            xm[d] -= h;
            if (d == 1) {
              xp[1] = std::min(xp[1], tau_hi);
              xm[1] = std::max(xm[1], tau_lo);
            }
            Vector7d unused;
            const double fp = F(xp[0], xp[1], sf, wf, root, &unused);
            const double fm = F(xm[0], xm[1], sf, wf, root, &unused);
            grad[d] = std::isfinite(fp) && std::isfinite(fm) &&
                              xp[d] > xm[d]
                          ? (fp - fm) / (xp[d] - xm[d])
                          : 0.0;
          }
          return f;
        };
        LBFGSpp::LBFGSBParam<double> param;
        param.max_iterations = std::max(1, options.refine_iterations);
        param.epsilon = 1e-8;
        LBFGSpp::LBFGSBSolver<double> solver(param);
        Eigen::VectorXd x(2), lb(2), ub(2);
        const double t0 = std::clamp(tau_lo + Wrap2Pi(tau0 - tau_lo), tau_lo,
                                     tau_hi);
        x << phi0, t0;
        lb << phi0 - kPi, tau_lo;
        ub << phi0 + kPi, tau_hi;
        double fx;
        try {
          solver.minimize(objective, x, fx, lb, ub);
        } catch (const std::exception&) {
          // Line-search failure: x holds the last accepted iterate.
        }
        Vector7d q;
        if (!std::isfinite(F(x[0], x[1], sf, wf, root, &q))) continue;
        double violation = 0.0;
        for (int i = 0; i < 7; ++i) {
          violation = std::max(violation, Violation(lower_[i], upper_[i], q[i]));
        }
        if (violation < refined_violation) {
          refined_violation = violation;
          refined.q = q;
          refined.swivel = Wrap(x[0]);
          refined.parameter = Wrap(x[1]);
          refined.elbow_root = root;
          refined.shoulder_family = sf;
          refined.wrist_family = wf;
        }
      }
    }
  }
  if (refined_violation <= 1e-12) {
    refined.status = LimbIkStatus::kSolved;
    refined.message = "analytic + 2-variable optimization (Table 2)";
    return refined;
  }
  refined.status = LimbIkStatus::kLimitsInfeasible;
  refined.message =
      "reachable, but no (swivel, second parameter) found within the limits";
  return refined;
}

// ---------------------------------------------------------------------------
// The common interface
// ---------------------------------------------------------------------------

bool TolaniLimbOptions::IsValid(std::string* why) const {
  if (!common.IsValid(why)) return false;
  const auto fail = [why](std::string message) {
    if (why != nullptr) *why = std::move(message);
    return false;
  };
  try {
    TolaniLimbIk check(geometry);
  } catch (const std::invalid_argument& e) {
    return fail(StrCat("options.geometry: ", e.what()));
  }
  if (ik.parameter_samples < 1) {
    return fail(StrCat("options.ik.parameter_samples must be >= 1, got ",
                       ik.parameter_samples));
  }
  if (ik.refine_iterations < 0) {
    return fail(StrCat("options.ik.refine_iterations must be >= 0, got ",
                       ik.refine_iterations));
  }
  if (!ik.swivel_axis.allFinite() || ik.swivel_axis.norm() < 1e-9) {
    return fail("options.ik.swivel_axis must be finite and non-zero");
  }
  if (!std::isfinite(ik.desired_swivel) || !std::isfinite(ik.desired_psi) ||
      !ik.desired_elbow.allFinite() || std::isinf(ik.aiming_theta4)) {
    return fail("options.ik: desired_swivel, desired_psi, desired_elbow and "
                "aiming_theta4 must be finite (aiming_theta4 may be NaN)");
  }
  if (!wrist_angles.allFinite()) {
    return fail("options.wrist_angles must be finite");
  }
  return true;
}

TolaniLimbSolver::TolaniLimbSolver(TolaniLimbOptions options)
    : options_(std::move(options)), ik_(options_.geometry) {}

namespace {

// What the problem asks, in the limb frame.
struct LimbTask {
  enum Kind { kPose, kPosition, kPartial, kAim } kind = kPose;
  Eigen::Isometry3d E = Eigen::Isometry3d::Identity();  // site in wrist frame
  Eigen::Isometry3d G = Eigen::Isometry3d::Identity();  // pose goal
  Eigen::Vector3d point = Eigen::Vector3d::Zero();      // position / aim target
  Eigen::Vector3d axis_site = Eigen::Vector3d::UnitZ();
  Eigen::Vector3d axis_goal = Eigen::Vector3d::UnitZ();
};

int FindSite(const Model& model, const std::string& name) {
  for (int s = 0; s < model.num_sites(); ++s) {
    if (model.site_name(s) == name) return s;
  }
  return -1;
}

bool ReadTask(const Problem& problem, const LimbGeometry& geometry,
              const TolaniLimbIk& ik, LimbTask* task, std::string* why) {
  const Model& model = problem.model();
  if (model.nq() != 7) {
    *why = StrCat("tolani: the model must be the 7-coordinate limb, got ",
                  model.nq(), " coordinates");
    return false;
  }
  const int shoulder = FindSite(model, geometry.s1_name);
  const int wrist = FindSite(model, geometry.s2_name);
  if (shoulder < 0 || wrist < 0) {
    *why = StrCat("tolani: the model needs the sites \"", geometry.s1_name,
                  "\" and \"", geometry.s2_name,
                  "\" of LimbFigure(options.geometry)");
    return false;
  }
  Data data(model);
  ForwardKinematics(model, Eigen::VectorXd::Zero(7), &data);
  const Eigen::Isometry3d X_WS1 = SitePose(model, data, shoulder);
  // The model must be LimbFigure(geometry): compare FK at two poses.
  const double scale = 1.0 + ik.Forward(Vector7d::Zero()).translation().norm();
  for (int k = 0; k < 2; ++k) {
    Vector7d q;
    if (k == 0) {
      q << 0.3, -0.2, 0.5, 0.7, 0.1, -0.3, 0.2;
    } else {
      q << -1.1, 0.6, -0.9, 1.9, -1.3, 0.8, -0.6;
    }
    ForwardKinematics(model, q, &data);
    const Eigen::Isometry3d model_pose = SitePose(model, data, wrist);
    const Eigen::Isometry3d ours = X_WS1 * ik.Forward(q);
    if (!((model_pose.matrix() - ours.matrix()).cwiseAbs().maxCoeff() <=
          1e-9 * scale)) {
      *why = "tolani: the model is not LimbFigure(options.geometry) (forward "
             "kinematics of the wrist site differ)";
      return false;
    }
  }
  const Eigen::Isometry3d X_S1W = X_WS1.inverse(Eigen::Isometry);
  const auto& goals = problem.goals();
  const auto site_frame = [&](int site, const std::string& name) {
    if (model.site_step(site) != model.site_step(wrist)) {
      *why = StrCat("tolani: the goal's site \"", name,
                    "\" must be on the distal link (with \"", geometry.s2_name,
                    "\")");
      return false;
    }
    task->E = model.X_FS(wrist).inverse(Eigen::Isometry) * model.X_FS(site);
    return true;
  };
  const char* kinds =
      "tolani: supported goals are one PositionOrientationGoal, one "
      "PositionGoal, a PositionGoal and an AxisGoal on the same site, or one "
      "AimingGoal";
  if (goals.size() == 1) {
    const Goal* goal = goals[0].get();
    if (const auto* g = dynamic_cast<const PositionOrientationGoal*>(goal)) {
      task->kind = LimbTask::kPose;
      task->G = X_S1W * g->target();
      return site_frame(g->site(), g->site_name());
    }
    if (const auto* g = dynamic_cast<const PositionGoal*>(goal)) {
      task->kind = LimbTask::kPosition;
      task->point = X_S1W * g->target();
      return site_frame(g->site(), g->site_name());
    }
    if (const auto* g = dynamic_cast<const AimingGoal*>(goal)) {
      task->kind = LimbTask::kAim;
      task->point = X_S1W * g->target();
      task->axis_site = g->direction();
      return site_frame(g->site(), g->site_name());
    }
  } else if (goals.size() == 2) {
    const PositionGoal* p = nullptr;
    const AxisGoal* a = nullptr;
    for (const auto& goal : goals) {
      if (const auto* g = dynamic_cast<const PositionGoal*>(goal.get())) p = g;
      if (const auto* g = dynamic_cast<const AxisGoal*>(goal.get())) a = g;
    }
    if (p != nullptr && a != nullptr && p->site() == a->site()) {
      task->kind = LimbTask::kPartial;
      task->point = X_S1W * p->target();
      task->axis_site = a->axis();
      task->axis_goal = X_S1W.linear() * a->target();
      return site_frame(p->site(), p->site_name());
    }
  }
  *why = kinds;
  return false;
}

}  // namespace

Result TolaniLimbSolver::Solve(const Problem& problem,
                               const Eigen::VectorXd& q0) const {
  internal::SolveScope scope(problem, q0, options_.common, name());
  if (!scope.ok()) return scope.result();
  std::string why;
  LimbTask task;
  if (!options_.IsValid(&why) ||
      !ReadTask(problem, options_.geometry, ik_, &task, &why)) {
    Result result = scope.result();
    result.status = SolveStatus::kInvalidInput;
    result.message = why;
    return result;
  }
  TolaniLimbIk ik = ik_;
  LimbIkOptions ik_options = options_.ik;
  ik_options.respect_limits = options_.common.respect_limits;
  if (ik_options.respect_limits) {
    ik.set_limits(scope.lower(), scope.upper());
  }
  Eigen::Vector3d wrist = options_.wrist_angles;
  if (options_.wrist == TolaniLimbOptions::WristAngles::kMidLimits) {
    for (int n = 0; n < 3; ++n) {
      const double lo = options_.geometry.lower[4 + n];
      const double hi = options_.geometry.upper[4 + n];
      wrist[n] = std::isfinite(lo) && std::isfinite(hi) ? 0.5 * (lo + hi) : 0.0;
      if (ik_options.respect_limits) {
        wrist[n] = std::clamp(wrist[n], scope.lower()[4 + n],
                              scope.upper()[4 + n]);
      }
    }
  } else if (options_.wrist == TolaniLimbOptions::WristAngles::kStart) {
    wrist = scope.start().tail<3>();
  }
  LimbSolution s;
  switch (task.kind) {
    case LimbTask::kPose:
      s = ik.SolvePose(task.G, task.E, ik_options);
      break;
    case LimbTask::kPosition:
      s = ik.SolvePosition(task.point, task.E.translation(), wrist,
                           ik_options);
      break;
    case LimbTask::kPartial:
      s = ik.SolvePartialOrientation(task.point, task.E, task.axis_site,
                                     task.axis_goal, ik_options);
      break;
    case LimbTask::kAim:
      s = ik.SolveAiming(task.point, task.E, task.axis_site, wrist,
                         ik_options);
      break;
  }
  Eigen::VectorXd q = s.q;
  if (s.status == LimbIkStatus::kSolved) {
    Result result = scope.Finish(q, SolveStatus::kConverged, s.message);
    return result;
  }
  const SolveStatus status = s.status == LimbIkStatus::kUnreachable
                                 ? SolveStatus::kUnreachable
                                 : SolveStatus::kLimitsInfeasible;
  q = q.cwiseMax(scope.lower()).cwiseMin(scope.upper());
  if (!options_.fallback) return scope.Finish(q, status, s.message);
  if (task.kind == LimbTask::kPose) {
    if (!ik_options.respect_limits) {
      // Out of reach without limits: the analytic answer (stretched toward
      // the goal, the goal's orientation) is already the closest.
      return scope.Finish(q, status, s.message);
    }
    // Table 3: the reduced problem over (φ, θ5, θ6, θ7).
    const LimbSolution r = ik.ApproximatePose(task.G, task.E, ik_options);
    if (r.reduced) {
      const SolveStatus reduced_status =
          r.status == LimbIkStatus::kSolved
              ? SolveStatus::kConverged
              : r.status == LimbIkStatus::kUnreachable
                    ? SolveStatus::kUnreachable
                    : SolveStatus::kLimitsInfeasible;
      Result result = scope.Finish(r.q, reduced_status, r.message);
      result.iterations = r.iterations;
      return result;
    }
  }
  // Table 3's reduced problem does not apply (position-only, partial
  // orientation and aiming goals, or no θ4 / shoulder swivel within the
  // limits): a bounded optimization of the whole problem from the best
  // analytic effort.
  LbfgsbOptions fallback;
  fallback.common = options_.common;
  const Result best = iklab::Solve(problem, q, fallback);
  const bool better = best.final_potential <
                      problem.EvaluatePotential(q, scope.workspace(), nullptr);
  Result result =
      scope.Finish(better ? best.q : q, status,
                   StrCat(s.message, "; whole-problem L-BFGS-B fallback: ",
                          SolveStatusName(best.status)));
  result.iterations = best.iterations;
  result.function_evaluations = best.function_evaluations;
  result.jacobian_evaluations = best.jacobian_evaluations;
  return result;
}

Result Solve(const Problem& problem, const Eigen::VectorXd& q0,
             const TolaniLimbOptions& options) {
  try {
    return TolaniLimbSolver(options).Solve(problem, q0);
  } catch (const std::invalid_argument& e) {
    Result result;
    result.solver = "tolani";
    result.status = SolveStatus::kInvalidInput;
    result.message = StrCat("options.geometry: ", e.what());
    result.q = q0;
    return result;
  }
}

std::unique_ptr<Solver> MakeSolver(const TolaniLimbOptions& options) {
  return std::make_unique<TolaniLimbSolver>(options);
}

}  // namespace iklab
