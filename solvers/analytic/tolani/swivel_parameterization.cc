#include "solvers/analytic/tolani/swivel_parameterization.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/analytic/tolani/internal/limb_math.h"

namespace iklab {

namespace {
using internal::limb::AxisRotation;
using internal::kPi;
using internal::limb::kTwoPi;
using internal::limb::ShiftInto;
using internal::limb::SphericalRotation;
using internal::limb::Violation;
using internal::limb::Wrap;
using internal::limb::Wrap2Pi;
}  // namespace

Eigen::Vector3d ElbowCircle::Elbow(double phi) const {
  return center + radius * (std::cos(phi) * u + std::sin(phi) * v);
}

double ElbowCircle::SwivelOfElbow(const Eigen::Vector3d& desired_elbow) const {
  const Eigen::Vector3d p = desired_elbow - center;
  const Eigen::Vector3d p_star = p - p.dot(normal) * normal;
  if (p_star.norm() == 0.0) return 0.0;
  return std::atan2(p_star.dot(v), p_star.dot(u));
}

// ---------------------------------------------------------------------------
// SwivelParameterization
// ---------------------------------------------------------------------------

Eigen::Matrix3d SwivelParameterization::R1(double phi) const {
  return std::sin(phi) * S1_ + std::cos(phi) * C1_ + K1_;
}

Eigen::Matrix3d SwivelParameterization::R2(double phi) const {
  if (!wrist_free_) {
    const auto& L = wrist_layout_;
    const int axes[3] = {L.i, L.j, L.proper ? L.i : L.k};
    return SphericalRotation(L.sign, axes, wrist_angles_.data());
  }
  return std::sin(phi) * S2_ + std::cos(phi) * C2_ + K2_;
}

void SwivelParameterization::Angles(const EulerTrig& e, int joint, double phi,
                                    double (*out)[3]) const {
  const SphericalJointLayout& L = joint == 0 ? shoulder_layout_ : wrist_layout_;
  const double s = std::sin(phi), c = std::cos(phi);
  const auto at = [s, c](const SwivelTrig& f) {
    return f.alpha * s + f.beta * c + f.gamma;
  };
  const double m = std::clamp(at(e.m), -1.0, 1.0);
  // Family 1 from family 0 (see kNumFamilies): the middle angle −θ (proper)
  // or π − θ (Tait–Bryan), the outer ones + π (atan2 of the negated pair).
  double middle[kNumFamilies];
  if (L.proper) {
    middle[0] = std::acos(m);
    middle[1] = -middle[0];
  } else {
    middle[0] = std::asin(m);
    middle[1] = kPi - middle[0];
  }
  const double n1 = at(e.n1), d1 = at(e.d1), n3 = at(e.n3), d3 = at(e.d3);
  double first[kNumFamilies], third[kNumFamilies];
  if (n1 * n1 + d1 * d1 > 1e-24) {
    first[0] = std::atan2(n1, d1);
    third[0] = std::atan2(n3, d3);
    first[1] = first[0] + kPi;
    third[1] = third[0] + kPi;
  } else {
    // Euler singularity (the first and third axes align): only their sum or
    // difference is defined. Take the first angle 0 and read the third from
    // R_j(middle)ᵀ R = R_last(third).
    const Eigen::Matrix3d R =
        joint == 0 ? Eigen::Matrix3d(R1(phi)) : Eigen::Matrix3d(R2(phi));
    const int last = L.proper ? L.i : L.k;
    const int a = (last + 1) % 3, b = (last + 2) % 3;
    for (int f = 0; f < kNumFamilies; ++f) {
      const Eigen::Matrix3d Rk = AxisRotation(L.j, middle[f]).transpose() * R;
      first[f] = 0.0;
      third[f] = std::atan2(Rk(b, a), Rk(a, a));
    }
  }
  const int base = joint == 0 ? 0 : 4;
  for (int f = 0; f < kNumFamilies; ++f) {
    const double primed[3] = {first[f], middle[f], third[f]};
    for (int n = 0; n < 3; ++n) {
      double theta = Wrap(L.sign[n] * primed[n]);
      ShiftInto(lower_[base + n], upper_[base + n], 0.0, &theta);
      out[f][n] = theta;
    }
  }
}

void SwivelParameterization::Derivatives(const EulerTrig& e, int joint,
                                         int family, double phi,
                                         double* out) const {
  const SphericalJointLayout& L = joint == 0 ? shoulder_layout_ : wrist_layout_;
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
  std::array<Vector7d, kNumFamilies * kNumFamilies> q;
  JointAnglesAllFamilies(phi, &q);
  return q[kNumFamilies * shoulder_family + wrist_family];
}

void SwivelParameterization::JointAnglesAllFamilies(
    double phi, std::array<Vector7d, kNumFamilies * kNumFamilies>* q) const {
  double shoulder[kNumFamilies][3], wrist[kNumFamilies][3];
  Angles(shoulder_, 0, phi, shoulder);
  if (wrist_free_) Angles(wrist_, 1, phi, wrist);
  double theta4 = theta4_;
  ShiftInto(lower_[3], upper_[3], 0.0, &theta4);
  for (int f = 0; f < kNumFamilies; ++f) {
    for (int g = 0; g < kNumFamilies; ++g) {
      Vector7d& out = (*q)[kNumFamilies * f + g];
      out << shoulder[f][0], shoulder[f][1], shoulder[f][2], theta4, 0.0, 0.0,
          0.0;
      if (wrist_free_) {
        out.tail<3>() << wrist[g][0], wrist[g][1], wrist[g][2];
      } else {
        out.tail<3>() = wrist_angles_;
      }
    }
  }
}

Vector7d SwivelParameterization::JointAngleDerivatives(double phi,
                                                       int shoulder_family,
                                                       int wrist_family) const {
  Vector7d d = Vector7d::Zero();
  Derivatives(shoulder_, 0, shoulder_family, phi, &d[0]);
  if (wrist_free_) Derivatives(wrist_, 1, wrist_family, phi, &d[4]);
  return d;
}

namespace {

// A breakpoint of a joint's interval set: φ ∈ [0, 2π) and its direction
// (cos φ, sin φ).
struct Breakpoint {
  double phi, cos, sin;
};

// Adds the roots in [0, 2π) of f(φ) = level, with their directions.
void AddBreakpoints(const SwivelTrig& f, double level, Breakpoint* out,
                    int* count) {
  // α sin φ + β cos φ + γ = level  ⇔  β cos φ + α sin φ = level − γ.
  const TrigRoots r = SolveTrigEquation(f.beta, f.alpha, level - f.gamma, 1e-9);
  for (int i = 0; i < r.count; ++i) {
    out[(*count)++] = Breakpoint{Wrap2Pi(r.values[i]), r.cos[i], r.sin[i]};
  }
}

// Π for one joint (index n of a spherical joint; `arc` its limits), both
// families at once: the φ where its angle is within its limits (Tolani
// §3.2.4). Breakpoints are where the angle meets a limit (mod 2π): for the
// middle angle m(φ) = sin(limit) (Tait–Bryan) or cos(limit) (proper), for an
// outer angle N(φ) cos(limit) − D(φ) sin(limit) = 0, which also holds at
// limit + π, so the breakpoints are a superset; the test at a point inside
// each piece decides (the paper's "evaluating the curve at a point inside the
// interval"): its midpoint, or previous + π/2 in pieces longer than 3 rad.
// The two families share the breakpoints (family 1's middle angle is π −
// family 0's, or its negative for a proper joint; its outer angles are family
// 0's + π), so they are found once. The test needs only the direction of each
// angle (cos, sin), never the angle: the middle angle's is (√(1 − m²), m)
// (Tait–Bryan) or (m, √(1 − m²)) (proper), an outer angle's (D, N); the test
// point's own direction is the bisector of the directions of the piece's ends
// (which the breakpoint equations give algebraically) or the start's turned
// by 90°, so a piece costs no trigonometric call. `angles_at(φ, out)` gives
// the three angles of both families (used at an Euler singularity only).
template <typename AnglesAt>
void JointSets(int n, bool proper, const SwivelParameterization::LimitArc& arc,
               double lo, double hi, const SwivelTrig& m, const SwivelTrig& num,
               const SwivelTrig& den, const AnglesAt& angles_at,
               std::array<SwivelIntervals, kNumFamilies>* sets) {
  if (arc.full) {
    (*sets)[0] = (*sets)[1] = SwivelIntervals::Full();
    return;
  }
  const bool middle = n == 1;
  Breakpoint roots[4];
  int count = 0;
  const double ends[2][2] = {{arc.cos_lo, arc.sin_lo},
                             {arc.cos_hi, arc.sin_hi}};
  for (const auto& end : ends) {
    const double c = end[0], s = end[1];
    if (middle) {
      AddBreakpoints(m, proper ? c : s, roots, &count);
    } else {
      SwivelTrig f{num.alpha * c - den.alpha * s, num.beta * c - den.beta * s,
                   num.gamma * c - den.gamma * s};
      AddBreakpoints(f, 0.0, roots, &count);
    }
  }
  // Insertion sort by φ (≤ 4 entries).
  for (int i = 1; i < count; ++i) {
    const Breakpoint x = roots[i];
    int j = i - 1;
    while (j >= 0 && roots[j].phi > x.phi) {
      roots[j + 1] = roots[j];
      --j;
    }
    roots[j + 1] = x;
  }
  SwivelIntervals& set0 = (*sets)[0];
  SwivelIntervals& set1 = (*sets)[1];
  set0.Clear();
  set1.Clear();
  Breakpoint previous{0.0, 1.0, 0.0};
  for (int i = 0; i <= count; ++i) {
    const Breakpoint next = i < count ? roots[i] : Breakpoint{kTwoPi, 1.0, 0.0};
    const double gap = next.phi - previous.phi;
    if (gap > 1e-14) {
      // The test point: the midpoint, the bisector of the end directions
      // (|sum| = 2 cos(gap / 2) ≥ 0.14 below 3 rad); in a longer piece
      // previous + π/2 (the start direction turned by 90°), at least 1.4
      // rad from either end.
      double c = -previous.sin, s = previous.cos;
      if (gap < 3.0) {
        c = previous.cos + next.cos;
        s = previous.sin + next.sin;
        const double norm = std::sqrt(c * c + s * s);
        c /= norm;
        s /= norm;
      }
      const double phi = gap < 3.0 ? 0.5 * (previous.phi + next.phi)
                                   : previous.phi + 0.5 * kPi;
      const auto at = [s, c](const SwivelTrig& f) {
        return f.alpha * s + f.beta * c + f.gamma;
      };
      bool in0, in1;
      if (middle) {
        const double v = std::clamp(at(m), -1.0, 1.0);
        const double w = std::sqrt(std::max(0.0, 1.0 - v * v));
        // Proper: ±acos v, directions (v, ±w); Tait–Bryan: asin v and
        // π − asin v, directions (±w, v).
        in0 = proper ? arc.Contains(v, w, 1.0) : arc.Contains(w, v, 1.0);
        in1 = proper ? arc.Contains(v, -w, 1.0) : arc.Contains(-w, v, 1.0);
      } else {
        const double N = at(num), D = at(den);
        const double r2 = N * N + D * D;
        if (r2 > 1e-24) {
          // atan2(N, D) and that + π.
          const double r = std::sqrt(r2);
          in0 = arc.Contains(D, N, r);
          in1 = arc.Contains(-D, -N, r);
        } else {
          double out[kNumFamilies][3];
          angles_at(phi, out);
          in0 = ShiftInto(lo, hi, 0.0, &out[0][n]);
          in1 = ShiftInto(lo, hi, 0.0, &out[1][n]);
        }
      }
      if (in0) set0.Append(previous.phi, next.phi);
      if (in1) set1.Append(previous.phi, next.phi);
    }
    if (next.phi >= previous.phi) previous = next;
  }
}

}  // namespace

void SwivelParameterization::Analyze(SwivelAnalysis* a) const {
  double t4 = theta4_;
  a->elbow_valid = ShiftInto(lower_[3], upper_[3], 0.0, &t4);
  const auto analyze_joint = [&](const EulerTrig& e, int joint,
                                 const SphericalJointLayout& L,
                                 std::array<SwivelIntervals, 2>* sets) {
    const int base = joint == 0 ? 0 : 4;
    for (int n = 0; n < 3; ++n) {
      const SwivelTrig& num = n == 0 ? e.n1 : e.n3;
      const SwivelTrig& den = n == 0 ? e.d1 : e.d3;
      JointSets(
          n, L.proper, arcs_[base + n], lower_[base + n], upper_[base + n], e.m,
          num, den,
          [&](double phi, double(*out)[3]) { Angles(e, joint, phi, out); },
          &a->per_joint[base + n]);
    }
    for (int f = 0; f < kNumFamilies; ++f) {
      (*sets)[f] = a->per_joint[base][f]
                       .Intersection(a->per_joint[base + 1][f])
                       .Intersection(a->per_joint[base + 2][f]);
    }
  };
  analyze_joint(shoulder_, 0, shoulder_layout_, &a->shoulder);
  if (wrist_free_) {
    analyze_joint(wrist_, 1, wrist_layout_, &a->wrist);
  } else {
    bool inside = true;
    for (int n = 0; n < 3; ++n) {
      double t = wrist_angles_[n];
      inside = inside && ShiftInto(lower_[4 + n], upper_[4 + n], 0.0, &t);
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

bool SwivelParameterization::FamiliesAt(double phi, double tolerance,
                                        int* shoulder_family,
                                        int* wrist_family) const {
  double best = std::numeric_limits<double>::infinity();
  const int wrist_families = wrist_free_ ? kNumFamilies : 1;
  std::array<Vector7d, kNumFamilies * kNumFamilies> q;
  JointAnglesAllFamilies(phi, &q);
  for (int f = 0; f < kNumFamilies; ++f) {
    for (int g = 0; g < wrist_families; ++g) {
      const Vector7d& theta = q[kNumFamilies * f + g];
      double violation = 0.0;
      for (int i = 0; i < 7; ++i) {
        violation =
            std::max(violation, Violation(lower_[i], upper_[i], theta[i]));
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

}  // namespace iklab
