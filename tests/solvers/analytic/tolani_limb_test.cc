// Tolani, Goswami & Badler's analytic 7-DOF limb (§3): round trips FK → goal
// → analytic solve → FK for the arm and the leg, the valid swivel intervals
// against dense sampling of φ, every Euler-angle branch, dθ/dφ against finite
// differences, partial orientation, aiming, unreachable and
// limits-infeasible goals, and the Solver on Problems.
#include "solvers/analytic/tolani/tolani_solver.h"

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "constraints/aiming_goal.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/internal/constants.h"
#include "framework/kinematics.h"
#include "tests/allocation_counter.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using internal::kPi;

Vector7d RandomPose(const LimbGeometry& g, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Vector7d q;
  for (int i = 0; i < 7; ++i) q[i] = g.lower[i] + (g.upper[i] - g.lower[i]) * u(*rng);
  return q;
}

bool Within(const LimbGeometry& g, const Vector7d& q) {
  for (int i = 0; i < 7; ++i) {
    if (q[i] < g.lower[i] || q[i] > g.upper[i]) return false;
  }
  return true;
}

Eigen::Isometry3d Tip(const LimbGeometry& g) {
  Eigen::Isometry3d E = Eigen::Isometry3d::Identity();
  E.translation() = g.p_S2_tip;
  return E;
}

// Pose of S2's distal frame from the joint rotations, written out factor by
// factor (Tolani Eq. 3), independent of TolaniLimbIk::Forward.
Eigen::Isometry3d LimbForward(const LimbGeometry& g, const Vector7d& q) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  for (int n = 0; n < 3; ++n) X.rotate(Eigen::AngleAxisd(q[n], g.s1_axes[n]));
  X = X * g.A;
  X.rotate(Eigen::AngleAxisd(q[3], Eigen::Vector3d::UnitY()));
  X = X * g.B;
  for (int n = 0; n < 3; ++n) {
    X.rotate(Eigen::AngleAxisd(q[4 + n], g.s2_axes[n]));
  }
  return X;
}

double PoseDifference(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b) {
  return (a.matrix() - b.matrix()).cwiseAbs().maxCoeff();
}

// Angle of q[i] mod 2π inside [lo, hi] (with tolerance)?
bool AngleInside(double theta, double lo, double hi, double tol) {
  for (int k = -2; k <= 2; ++k) {
    const double t = theta + 2.0 * kPi * k;
    if (t >= lo - tol && t <= hi + tol) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Closed-form pieces
// ---------------------------------------------------------------------------

TEST_CASE("Tolani: a cos θ + b sin θ = c has the roots of Eq. 5", "[solvers]") {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int trial = 0; trial < 1000; ++trial) {
    const double a = u(rng), b = u(rng), c = u(rng);
    const TrigRoots r = SolveTrigEquation(a, b, c);
    const double radius = std::hypot(a, b);
    if (std::abs(c) > radius) {
      CHECK(r.count == 0);
      continue;
    }
    REQUIRE(r.count == 2);
    for (int i = 0; i < 2; ++i) {
      const double t = r.values[i];
      CHECK(a * std::cos(t) + b * std::sin(t) == Approx(c).margin(1e-12));
      // The algebraic direction of each root is that of its angle.
      CHECK(r.cos[i] == Approx(std::cos(t)).margin(1e-12));
      CHECK(r.sin[i] == Approx(std::sin(t)).margin(1e-12));
    }
    CHECK(std::abs(r.values[0] - r.values[1]) > 0.0);
  }
  const TrigRoots tangent = SolveTrigEquation(3.0, 4.0, 5.0);
  CHECK(tangent.count == 1);
  CHECK(tangent.values[0] == Approx(std::atan2(4.0, 3.0)));
  CHECK(tangent.cos[0] == Approx(0.6));
  CHECK(tangent.sin[0] == Approx(0.8));
  CHECK(SolveTrigEquation(0.0, 0.0, 0.0).count == 0);
}

TEST_CASE("Tolani: a cos²ψ + b sin²ψ + c cosψ sinψ + d cosψ + e sinψ + f = 0 "
          "(Eq. 12's form) has the roots that dense sampling brackets",
          "[solvers]") {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  int brackets = 0;
  for (int trial = 0; trial < 300; ++trial) {
    double c[6];
    for (double& x : c) x = u(rng);
    // Every third equation has a root at ψ = π (u = ∞: a − d + f = 0).
    if (trial % 3 == 0) c[5] = c[3] - c[0];
    const auto g = [&c](double p) {
      const double cs = std::cos(p), sn = std::sin(p);
      return c[0] * cs * cs + c[1] * sn * sn + c[2] * cs * sn + c[3] * cs +
             c[4] * sn + c[5];
    };
    std::array<double, 4> roots;
    const int n = SolveTrigQuadratic(c[0], c[1], c[2], c[3], c[4], c[5], &roots);
    for (int i = 0; i < n; ++i) {
      CHECK(std::abs(g(roots[i])) < 1e-9);
      CHECK(roots[i] > -kPi);
      CHECK(roots[i] <= kPi);
    }
    if (trial % 3 == 0) {
      bool has_pi = false;
      for (int i = 0; i < n; ++i) {
        has_pi = has_pi || std::abs(std::remainder(roots[i] - kPi, 2 * kPi)) < 1e-9;
      }
      CHECK(has_pi);
    }
    // Each sign change on a fine grid has a root inside its cell.
    constexpr int kCells = 20000;
    for (int k = 0; k < kCells; ++k) {
      const double p0 = -kPi + 2 * kPi * (k + 0.5) / kCells;
      const double p1 = p0 + 2 * kPi / kCells;
      if ((g(p0) > 0) == (g(p1) > 0)) continue;
      ++brackets;
      bool found = false;
      for (int i = 0; i < n; ++i) {
        const double r = p0 + std::remainder(roots[i] - p0, 2 * kPi);
        found = found || (r >= p0 - 1e-9 && r <= p1 + 1e-9);
      }
      CHECK(found);
    }
  }
  CHECK(brackets > 300);
  // The degenerate form of our wrist circle (a = b = c = f = 0): the roots
  // of d cos ψ + e sin ψ = 0.
  std::array<double, 4> roots;
  REQUIRE(SolveTrigQuadratic(0, 0, 0, 1.0, 2.0, 0, &roots) == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(std::cos(roots[i]) + 2.0 * std::sin(roots[i]) ==
          Approx(0.0).margin(1e-12));
  }
  CHECK(SolveTrigQuadratic(0, 0, 0, 0, 0, 0, &roots) == 0);
}

TEST_CASE("Tolani: interval sets intersect, unite and wrap around the circle",
          "[solvers]") {
  SwivelIntervals a, b;
  a.Append(0.0, 1.0);
  a.Append(5.0, 2.0 * kPi);
  b.Append(0.5, 5.5);
  const SwivelIntervals i = a.Intersection(b);
  REQUIRE(i.size() == 2);
  CHECK(i[0].lo == 0.5);
  CHECK(i[0].hi == 1.0);
  CHECK(i[1].lo == 5.0);
  CHECK(i[1].hi == 5.5);
  const SwivelIntervals u = a.Union(b);
  CHECK(u.full());
  // a wraps: one arc [5, 2π + 1].
  std::array<SwivelIntervals::Interval, SwivelIntervals::kCapacity> arcs;
  REQUIRE(a.Arcs(&arcs) == 1);
  CHECK(arcs[0].lo == 5.0);
  CHECK(arcs[0].hi == Approx(2.0 * kPi + 1.0));
  SwivelIntervals::Interval longest;
  REQUIRE(a.LongestArc(&longest));
  CHECK(longest.length() == Approx(2.0 * kPi - 4.0));
  CHECK(a.Contains(-0.5));
  CHECK(a.Contains(0.5));
  CHECK_FALSE(a.Contains(3.0));
  // Closest: from 3.5 the nearer end is 5.0; from 2.0 it is 1.0 (moved
  // inside by the margin); a point inside is returned as is.
  CHECK(a.Closest(3.5, 0.0) == Approx(5.0 - 2.0 * kPi));
  CHECK(a.Closest(2.0, 1e-3) == Approx(1.0 - 1e-3));
  CHECK(a.Closest(0.25, 1e-3) == Approx(0.25));
  CHECK(SwivelIntervals().empty());
  CHECK(SwivelIntervals::Full().Measure() == Approx(2.0 * kPi));
}

TEST_CASE("Tolani: the elbow circle and the swivel of a desired elbow (Eq. 6, "
          "Fig. 3)",
          "[solvers]") {
  // The circle of a reachable goal: e(φ) keeps the upper limb's length from
  // the shoulder and the lower limb's from the wrist.
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  Vector7d q_goal;
  q_goal << 0.3, 0.2, -0.4, 1.1, 0.5, 0.1, -0.2;
  const Eigen::Isometry3d G = ik.Forward(q_goal);
  const Eigen::Vector3d wrist = G.translation();
  const double l1 = g.A.translation().norm(), l2 = g.B.translation().norm();
  std::array<SwivelParameterization, 2> families;
  REQUIRE(ik.Parameterize(G, LimbIkOptions(), &families) == 2);
  const ElbowCircle& c = families[0].circle();
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> angle(-kPi, kPi), scale(0.2, 3.0);
  for (int trial = 0; trial < 100; ++trial) {
    const double phi = angle(rng);
    const Eigen::Vector3d e = c.Elbow(phi);
    CHECK(e.norm() == Approx(l1).epsilon(1e-12));
    CHECK((wrist - e).norm() == Approx(l2).epsilon(1e-12));
    // Any point on the ray from the centre through e(φ), lifted along n̂,
    // has swivel φ.
    const Eigen::Vector3d desired =
        c.center + scale(rng) * (e - c.center) + angle(rng) * c.normal;
    CHECK(std::abs(std::remainder(c.SwivelOfElbow(desired) - phi, 2 * kPi)) <
          1e-12);
  }
  CHECK(c.u.dot(c.normal) == Approx(0.0).margin(1e-15));
  CHECK(c.v.isApprox(c.normal.cross(c.u)));
}

// ---------------------------------------------------------------------------
// Euler extraction: every axis order, both families
// ---------------------------------------------------------------------------

TEST_CASE("Tolani: Euler extraction reproduces R1 and R2 for every axis "
          "order, sign and family",
          "[solvers]") {
  const Eigen::Vector3d e[3] = {Eigen::Vector3d::UnitX(),
                                Eigen::Vector3d::UnitY(),
                                Eigen::Vector3d::UnitZ()};
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  std::uniform_int_distribution<int> coin(0, 1);
  int orders = 0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 3; ++k) {
        if (i == j || j == k) continue;  // 6 Tait–Bryan + 6 proper orders
        ++orders;
        LimbGeometry g = TolaniArmGeometry();
        const double s0 = coin(rng) ? 1.0 : -1.0, s1 = coin(rng) ? 1.0 : -1.0;
        g.s1_axes = {s0 * e[i], e[j], s1 * e[k]};
        g.s2_axes = {e[k], s1 * e[j], s0 * e[i]};
        g.lower.setConstant(-kInfinity);
        g.upper.setConstant(kInfinity);
        const TolaniLimbIk ik(g);
        for (int trial = 0; trial < 50; ++trial) {
          Vector7d q;
          for (int n = 0; n < 7; ++n) q[n] = angle(rng);
          const Eigen::Isometry3d G = LimbForward(g, q);
          REQUIRE(PoseDifference(ik.Forward(q), G) < 1e-12);
          std::array<SwivelParameterization, 2> families;
          LimbIkOptions options;
          options.respect_limits = false;
          const int count = ik.Parameterize(G, options, &families);
          REQUIRE(count >= 1);
          for (int r = 0; r < count; ++r) {
            for (int f = 0; f < 2; ++f) {
              for (int w = 0; w < 2; ++w) {
                const double phi = angle(rng);
                const Vector7d sol = families[r].JointAngles(phi, f, w);
                CHECK(PoseDifference(ik.Forward(sol), G) < 1e-9);
                // The shoulder angles reproduce R1(φ) itself.
                Eigen::Matrix3d R1 = Eigen::Matrix3d::Identity();
                for (int n = 0; n < 3; ++n) {
                  R1 = R1 * Eigen::AngleAxisd(sol[n], g.s1_axes[n])
                                .toRotationMatrix();
                }
                CHECK((R1 - families[r].R1(phi)).cwiseAbs().maxCoeff() <
                      1e-9);
              }
            }
          }
        }
      }
    }
  }
  CHECK(orders == 12);
}

TEST_CASE("Tolani: dθ/dφ matches central differences", "[solvers]") {
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  LimbIkOptions options;
  options.respect_limits = false;
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Isometry3d G = ik.Forward(RandomPose(g, &rng));
    std::array<SwivelParameterization, 2> families;
    if (ik.Parameterize(G, options, &families) == 0) continue;
    const double phi = angle(rng);
    for (int f = 0; f < 2; ++f) {
      const Vector7d d = families[0].JointAngleDerivatives(phi, f, f);
      const double h = 1e-6;
      const Vector7d plus = families[0].JointAngles(phi + h, f, f);
      const Vector7d minus = families[0].JointAngles(phi - h, f, f);
      for (int i = 0; i < 7; ++i) {
        const double numeric = std::remainder(plus[i] - minus[i], 2 * kPi) /
                               (2 * h);
        if (std::abs(d[i]) > 1e3) continue;  // near an Euler singularity
        CHECK(d[i] == Approx(numeric).margin(1e-5).epsilon(1e-5));
        ++checked;
      }
      CHECK(d[3] == 0.0);
    }
  }
  CHECK(checked > 2000);
}

// ---------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------

void PoseRoundTrip(const LimbGeometry& g, int count, std::uint64_t seed) {
  const TolaniLimbIk ik(g);
  const Eigen::Isometry3d E = Tip(g);
  std::mt19937_64 rng(seed);
  LimbIkOptions options;  // limits on, midpoint of the longest arc
  int failures = 0, phi_not_valid = 0, outside = 0;
  double worst = 0.0;
  for (int trial = 0; trial < count; ++trial) {
    const Vector7d q = RandomPose(g, &rng);
    const Eigen::Isometry3d goal = LimbForward(g, q) * E;
    const LimbSolution s = ik.SolvePose(goal, E, options);
    if (s.status != LimbIkStatus::kSolved) {
      ++failures;
      continue;
    }
    worst = std::max(worst, PoseDifference(LimbForward(g, s.q) * E, goal));
    if (!Within(g, s.q)) ++outside;
    // The original swivel angle is in the valid set of its elbow root.
    std::array<SwivelParameterization, 2> families;
    const int n = ik.Parameterize(LimbForward(g, q), options, &families);
    bool found = false;
    for (int r = 0; r < n; ++r) {
      if (std::abs(std::remainder(families[r].theta4() - q[3], 2 * kPi)) >
          1e-6) {
        continue;
      }
      SwivelAnalysis analysis;
      families[r].Analyze(&analysis);
      const double phi =
          families[r].circle().SwivelOfElbow(ik.Elbow(q));
      found = analysis.valid.Contains(phi, 1e-9);
    }
    if (!found) ++phi_not_valid;
  }
  INFO(g.kind << ": failures " << failures << ", worst " << worst);
  CHECK(failures == 0);
  CHECK(worst <= 1e-9);
  CHECK(outside == 0);
  CHECK(phi_not_valid == 0);
}

TEST_CASE("Tolani: 10,000 random arm poses within limits round-trip through "
          "the analytic position + orientation solve",
          "[solvers]") {
  PoseRoundTrip(TolaniArmGeometry(Side::kLeft), 10000, 21);
}

TEST_CASE("Tolani: 10,000 random leg poses within limits round-trip through "
          "the analytic position + orientation solve",
          "[solvers]") {
  PoseRoundTrip(TolaniLegGeometry(Side::kLeft), 10000, 22);
}

TEST_CASE("Tolani: right limbs (mirrored limits) round-trip too", "[solvers]") {
  PoseRoundTrip(TolaniArmGeometry(Side::kRight), 1000, 23);
  PoseRoundTrip(TolaniLegGeometry(Side::kRight), 1000, 24);
}

void PositionRoundTrip(const LimbGeometry& g, int count, std::uint64_t seed) {
  const TolaniLimbIk ik(g);
  std::mt19937_64 rng(seed);
  LimbIkOptions options;
  int failures = 0, outside = 0;
  double worst = 0.0;
  for (int trial = 0; trial < count; ++trial) {
    const Vector7d q = RandomPose(g, &rng);
    const Eigen::Vector3d target = LimbForward(g, q) * g.p_S2_tip;
    const LimbSolution s =
        ik.SolvePosition(target, g.p_S2_tip, q.tail<3>(), options);
    if (s.status != LimbIkStatus::kSolved) {
      ++failures;
      continue;
    }
    worst = std::max(worst, (LimbForward(g, s.q) * g.p_S2_tip - target).norm());
    if (!Within(g, s.q)) ++outside;
    CHECK(s.q.tail<3>() == q.tail<3>());
  }
  CHECK(failures == 0);
  CHECK(worst <= 1e-9);
  CHECK(outside == 0);
}

TEST_CASE("Tolani: 10,000 random hand and foot positions round-trip through "
          "the position-only solve (wrist angles given)",
          "[solvers]") {
  PositionRoundTrip(TolaniArmGeometry(), 10000, 31);
  PositionRoundTrip(TolaniLegGeometry(), 10000, 32);
}

TEST_CASE("Tolani: a stretched limb (elbow circle radius 0) still solves",
          "[solvers]") {
  // Without a carrying angle the arm at θ4 = 0 is straight (with one, the
  // farthest wrist is not on the upper arm's line); the leg is straight.
  Anthropometry no_carrying;
  no_carrying.carrying_angle = 0.0;
  for (const LimbGeometry& g :
       {TolaniArmGeometry(Side::kLeft, no_carrying), TolaniLegGeometry()}) {
    const TolaniLimbIk ik(g);
    Vector7d q;
    q << 0.4, 0.2, -0.3, 0.0, 0.5 * (g.lower[4] + g.upper[4]), 0.1, -0.1;
    const Eigen::Isometry3d G = LimbForward(g, q);
    std::array<SwivelParameterization, 2> families;
    LimbIkOptions options;
    REQUIRE(ik.Parameterize(G, options, &families) >= 1);
    CHECK(families[0].circle().radius < 1e-6);
    for (bool limits : {true, false}) {
      options.respect_limits = limits;
      const LimbSolution s = ik.SolvePose(G, Eigen::Isometry3d::Identity(),
                                          options);
      REQUIRE(s.status == LimbIkStatus::kSolved);
      CHECK(PoseDifference(LimbForward(g, s.q), G) < 1e-9);
    }
  }
}

TEST_CASE("Tolani: a desired elbow position picks its swivel angle",
          "[solvers]") {
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  std::mt19937_64 rng(6);
  LimbIkOptions options;
  options.respect_limits = false;
  options.use_desired_elbow = true;
  for (int trial = 0; trial < 200; ++trial) {
    const Vector7d q = RandomPose(g, &rng);
    options.desired_elbow = ik.Elbow(q);
    const LimbSolution s =
        ik.SolvePose(LimbForward(g, q), Eigen::Isometry3d::Identity(), options);
    REQUIRE(s.status == LimbIkStatus::kSolved);
    // The elbow returns to where it was (same θ4 root as q).
    CHECK((ik.Elbow(s.q) - ik.Elbow(q)).norm() < 1e-9);
  }
}

// ---------------------------------------------------------------------------
// Joint limits → valid swivel intervals, against dense sampling
// ---------------------------------------------------------------------------

TEST_CASE("Tolani: limits changed by set_limits give the swivel intervals of "
          "a limb built with them",
          "[solvers]") {
  // set_limits keeps its limit arcs when called with the same limits again;
  // a change must rebuild them.
  for (const LimbGeometry& g : {TolaniArmGeometry(), TolaniLegGeometry()}) {
    LimbGeometry narrow = g;
    for (int i = 0; i < 7; ++i) {
      const double mid = 0.5 * (g.lower[i] + g.upper[i]);
      narrow.lower[i] = mid - 0.3 * (mid - g.lower[i]);
      narrow.upper[i] = mid + 0.3 * (g.upper[i] - mid);
    }
    TolaniLimbIk changed(g);
    changed.set_limits(g.lower, g.upper);  // unchanged: arcs kept
    changed.set_limits(narrow.lower, narrow.upper);
    const TolaniLimbIk fresh(narrow);
    std::mt19937_64 rng(11);
    LimbIkOptions options;
    int differing_from_wide = 0;
    for (int trial = 0; trial < 40; ++trial) {
      const Eigen::Isometry3d G = LimbForward(g, RandomPose(narrow, &rng));
      std::array<SwivelParameterization, 2> a, b, wide;
      const int n = changed.Parameterize(G, options, &a);
      REQUIRE(fresh.Parameterize(G, options, &b) == n);
      REQUIRE(TolaniLimbIk(g).Parameterize(G, options, &wide) == n);
      for (int r = 0; r < n; ++r) {
        SwivelAnalysis x, y, z;
        a[r].Analyze(&x);
        b[r].Analyze(&y);
        wide[r].Analyze(&z);
        REQUIRE(x.valid.size() == y.valid.size());
        for (int i = 0; i < x.valid.size(); ++i) {
          CHECK(x.valid[i].lo == y.valid[i].lo);
          CHECK(x.valid[i].hi == y.valid[i].hi);
        }
        if (std::abs(x.valid.Measure() - z.valid.Measure()) > 1e-6) {
          ++differing_from_wide;
        }
      }
    }
    // The narrower limits matter (else this test could not fail).
    CHECK(differing_from_wide > 10);
  }
}

TEST_CASE("Tolani: valid swivel intervals agree with dense sampling of φ",
          "[solvers]") {
  for (const LimbGeometry& g : {TolaniArmGeometry(), TolaniLegGeometry()}) {
    const TolaniLimbIk ik(g);
    std::mt19937_64 rng(7);
    LimbIkOptions options;
    int mismatches = 0, samples = 0, nonempty = 0, partial = 0;
    for (int trial = 0; trial < 60; ++trial) {
      // Half the goals from poses within limits, half from wider poses (so
      // some sets are empty or split).
      Vector7d q = RandomPose(g, &rng);
      if (trial % 2 == 1) q += 0.6 * Vector7d::Random();
      std::array<SwivelParameterization, 2> families;
      const int n = ik.Parameterize(LimbForward(g, q), options, &families);
      for (int r = 0; r < n; ++r) {
        SwivelAnalysis analysis;
        families[r].Analyze(&analysis);
        if (!analysis.valid.empty()) ++nonempty;
        if (!analysis.valid.empty() && !analysis.valid.full()) ++partial;
        constexpr int kSamples = 4000;
        for (int k = 0; k < kSamples; ++k) {
          const double phi = 2.0 * kPi * (k + 0.37) / kSamples;
          bool any = false;
          for (int f = 0; f < 2; ++f) {
            for (int w = 0; w < 2; ++w) {
              const Vector7d sol = families[r].JointAngles(phi, f, w);
              bool inside = true;
              for (int i = 0; i < 7; ++i) {
                inside = inside && AngleInside(sol[i], g.lower[i], g.upper[i], 0.0);
              }
              any = any || inside;
              // Per joint and family.
              for (int i : {0, 1, 2, 4, 5, 6}) {
                const int fam = i < 3 ? f : w;
                const bool in = AngleInside(sol[i], g.lower[i], g.upper[i], 0.0);
                const bool set = analysis.per_joint[i][fam].Contains(phi);
                if (in != set &&
                    analysis.per_joint[i][fam].Contains(phi, 1e-6) ==
                        analysis.per_joint[i][fam].Contains(phi, -1e-6)) {
                  ++mismatches;
                }
              }
            }
          }
          const bool claimed = analysis.valid.Contains(phi);
          // Disagreement is allowed only within 1e-6 of an interval end.
          if (any != claimed && analysis.valid.Contains(phi, 1e-6) ==
                                    analysis.valid.Contains(phi, -1e-6)) {
            ++mismatches;
          }
          ++samples;
        }
      }
    }
    INFO(g.kind << ": " << samples << " samples");
    CHECK(mismatches == 0);
    CHECK(nonempty > 20);
    CHECK(partial > 5);
  }
}

TEST_CASE("Tolani: the chosen swivel is the longest arc's midpoint or the "
          "valid one closest to the desired φ",
          "[solvers]") {
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  std::mt19937_64 rng(8);
  LimbIkOptions options;
  for (int trial = 0; trial < 300; ++trial) {
    const Vector7d q = RandomPose(g, &rng);
    const Eigen::Isometry3d G = LimbForward(g, q);
    options.swivel_choice = SwivelChoice::kLongestArcMidpoint;
    const LimbSolution mid = ik.SolvePose(G, Eigen::Isometry3d::Identity(), options);
    REQUIRE(mid.status == LimbIkStatus::kSolved);
    SwivelIntervals::Interval arc;
    REQUIRE(mid.valid.LongestArc(&arc));
    if (!mid.valid.full()) {
      CHECK(std::abs(std::remainder(mid.swivel - 0.5 * (arc.lo + arc.hi),
                                    2 * kPi)) < 1e-12);
    }
    options.swivel_choice = SwivelChoice::kClosestToDesired;
    options.desired_swivel = std::uniform_real_distribution<double>(-kPi, kPi)(rng);
    const LimbSolution near = ik.SolvePose(G, Eigen::Isometry3d::Identity(), options);
    REQUIRE(near.status == LimbIkStatus::kSolved);
    CHECK(Within(g, near.q));
    CHECK(PoseDifference(LimbForward(g, near.q), G) < 1e-9);
    if (near.valid.Contains(options.desired_swivel)) {
      CHECK(std::abs(std::remainder(near.swivel - options.desired_swivel,
                                    2 * kPi)) < 1e-12);
    } else {
      // No valid φ is closer than the chosen one (up to the 1e-9 margin).
      const double gap = std::abs(std::remainder(near.swivel -
                                                 options.desired_swivel, 2 * kPi));
      for (int k = 0; k < 2000; ++k) {
        const double phi = 2 * kPi * k / 2000.0;
        if (near.valid.Contains(phi, -1e-9)) {
          CHECK(std::abs(std::remainder(phi - options.desired_swivel, 2 * kPi)) >=
                gap - 1e-8);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Partial orientation and aiming
// ---------------------------------------------------------------------------

TEST_CASE("Tolani: partial orientation goals from random poses are solved "
          "exactly within limits",
          "[solvers]") {
  for (const LimbGeometry& g : {TolaniArmGeometry(), TolaniLegGeometry()}) {
    const TolaniLimbIk ik(g);
    const Eigen::Isometry3d E = Tip(g);
    std::mt19937_64 rng(9);
    int failures = 0;
    const int count = 500;
    for (bool limits : {false, true}) {
      LimbIkOptions options;
      options.respect_limits = limits;
      for (int trial = 0; trial < count; ++trial) {
        const Vector7d q = RandomPose(g, &rng);
        const Eigen::Isometry3d X = LimbForward(g, q) * E;
        const Eigen::Vector3d axis_site = Eigen::Vector3d::Random().normalized();
        const Eigen::Vector3d axis_goal = X.linear() * axis_site;
        const LimbSolution s = ik.SolvePartialOrientation(
            X.translation(), E, axis_site, axis_goal, options);
        if (s.status != LimbIkStatus::kSolved) {
          ++failures;
          continue;
        }
        const Eigen::Isometry3d Y = LimbForward(g, s.q) * E;
        CHECK((Y.translation() - X.translation()).norm() < 1e-9);
        CHECK((Y.linear() * axis_site - axis_goal).norm() < 1e-9);
        if (limits) CHECK(Within(g, s.q));
      }
    }
    INFO(g.kind << " partial-orientation failures: " << failures);
    CHECK(failures <= count / 100);  // the paper: 1.1 % with limits on
  }
}

TEST_CASE("Tolani: partial orientation picks ψ by Eq. 11 (lowest / highest "
          "wrist) and Eq. 12 (wrist closest to a desired one)",
          "[solvers]") {
  using PsiChoice = LimbIkOptions::PsiChoice;
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  const Eigen::Isometry3d E = Tip(g);
  std::mt19937_64 rng(42);
  int checked = 0, constrained = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const Vector7d q = RandomPose(g, &rng);
    const Eigen::Isometry3d X = LimbForward(g, q) * E;
    const Eigen::Vector3d axis_site = Eigen::Vector3d::Random().normalized();
    const Eigen::Vector3d axis_goal = X.linear() * axis_site;
    LimbIkOptions options;
    options.respect_limits = false;
    options.desired_wrist =
        LimbForward(g, q).translation() + 0.2 * Eigen::Vector3d::Random();
    const WristCurve w = ik.PartialOrientationWrist(X.translation(), E,
                                                    axis_site, axis_goal,
                                                    options);
    // The wrist is reachable (limits off) where Eq. 5 has a root.
    const auto reachable = [&](double psi) {
      return ik.SolveElbow(w(psi).norm()).count > 0;
    };
    for (PsiChoice choice : {PsiChoice::kLowestWrist, PsiChoice::kHighestWrist,
                             PsiChoice::kClosestWrist}) {
      options.psi_choice = choice;
      const auto objective = [&](const Eigen::Vector3d& wrist) {
        switch (choice) {
          case PsiChoice::kLowestWrist:
            return -wrist.z();  // up is −z in the limb frame
          case PsiChoice::kHighestWrist:
            return wrist.z();
          default:
            return (wrist - options.desired_wrist).norm();
        }
      };
      const LimbSolution s = ik.SolvePartialOrientation(
          X.translation(), E, axis_site, axis_goal, options);
      REQUIRE(s.status == LimbIkStatus::kSolved);
      const Eigen::Isometry3d Y = LimbForward(g, s.q);
      CHECK(((Y * E).translation() - X.translation()).norm() < 1e-9);
      CHECK(((Y * E).linear() * axis_site - axis_goal).norm() < 1e-9);
      // Eq. (10): the solution's wrist is w(ψ).
      CHECK((Y.translation() - w(s.parameter)).norm() < 1e-9);
      // No reachable ψ does better (dense sampling).
      const double ours = objective(Y.translation());
      bool all_reachable = true;
      for (int k = 0; k < 2000; ++k) {
        const double psi = -kPi + 2 * kPi * k / 2000.0;
        if (!reachable(psi)) {
          all_reachable = false;
          continue;
        }
        CHECK(ours <= objective(w(psi)) + 1e-9);
        ++checked;
      }
      if (!all_reachable) ++constrained;
    }
  }
  CHECK(checked > 100000);
  INFO("goals whose reachable psi range is not the whole circle: " << constrained);
}

TEST_CASE("Tolani: aiming goals from random poses are solved exactly within "
          "limits",
          "[solvers]") {
  for (const LimbGeometry& g : {TolaniArmGeometry(), TolaniLegGeometry()}) {
    const TolaniLimbIk ik(g);
    const Eigen::Isometry3d E = Tip(g);
    std::mt19937_64 rng(10);
    std::uniform_real_distribution<double> reach(0.2, 1.5);
    int failures = 0;
    const int count = 3000;
    for (bool limits : {false, true}) {
      LimbIkOptions options;
      options.respect_limits = limits;
      for (int trial = 0; trial < count; ++trial) {
        const Vector7d q = RandomPose(g, &rng);
        const Eigen::Isometry3d X = LimbForward(g, q) * E;
        const Eigen::Vector3d v = Eigen::Vector3d::UnitX();
        const Eigen::Vector3d target =
            X.translation() + reach(rng) * (X.linear() * v);
        const LimbSolution s =
            ik.SolveAiming(target, E, v, q.tail<3>(), options);
        if (s.status != LimbIkStatus::kSolved) {
          ++failures;
          continue;
        }
        const Eigen::Isometry3d Y = LimbForward(g, s.q) * E;
        const Eigen::Vector3d to_target =
            (target - Y.translation()).normalized();
        CHECK((Y.linear() * v - to_target).norm() < 1e-9);
        CHECK(s.q.tail<3>() == q.tail<3>());
        if (limits) CHECK(Within(g, s.q));
      }
    }
    INFO(g.kind << " aiming failures: " << failures);
    // Every goal comes from a pose within the limits, so each has an
    // admissible solution. (Before both crossings of the aim line with the
    // sphere |x| = |target| were used, 39 of 20,000 arm goals failed: the
    // solution within the limits used the nearer crossing.)
    CHECK(failures == 0);
  }
  // With θ4 given the answer keeps it.
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  LimbIkOptions options;
  options.aiming_theta4 = 1.0;
  options.respect_limits = false;
  // A target well beyond the fingertip, roughly along the limb: the aim
  // line (the hand's z axis, along the fingers) reaches it for this θ4.
  const Eigen::Vector3d target(0.3, 0.2, 1.2);
  const LimbSolution s =
      ik.SolveAiming(target, Tip(g), Eigen::Vector3d::UnitZ(),
                     Eigen::Vector3d(0.8, 0, 0), options);
  REQUIRE(s.status == LimbIkStatus::kSolved);
  CHECK(s.q[3] == Approx(1.0));
  const Eigen::Isometry3d Y = LimbForward(g, s.q) * Tip(g);
  CHECK((Y.linear().col(2) - (target - Y.translation()).normalized()).norm() <
        1e-9);
}

// ---------------------------------------------------------------------------
// Unreachable and limits-infeasible goals
// ---------------------------------------------------------------------------

TEST_CASE("Tolani: an out-of-reach goal returns the stretched limb toward it",
          "[solvers]") {
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  Eigen::Isometry3d G = Eigen::Isometry3d::Identity();
  G.translation() = Eigen::Vector3d(0.3, 0.2, 0.9);  // beyond 0.581 m
  LimbIkOptions options;
  const LimbSolution s = ik.SolvePose(G, Eigen::Isometry3d::Identity(), options);
  CHECK(s.status == LimbIkStatus::kUnreachable);
  const Eigen::Isometry3d X = LimbForward(g, s.q);
  const double reach = X.translation().norm();
  CHECK(reach == Approx(ik.Forward(Vector7d::Zero()).translation().norm()));
  CHECK(X.translation().normalized().isApprox(G.translation().normalized(),
                                              1e-9));
}

// Table 3's objective at q: ½‖R − R_g‖²_F + ½‖(R − R_g) t_e‖² for the wrist
// rotation R, computed from the independent forward kinematics.
double ReducedObjective(const LimbGeometry& g, const Vector7d& q,
                        const Eigen::Isometry3d& G_site,
                        const Eigen::Isometry3d& E) {
  const Eigen::Matrix3d R = LimbForward(g, q).linear();
  const Eigen::Matrix3d R_g = (G_site * E.inverse()).linear();
  const Eigen::Matrix3d D = R - R_g;
  return 0.5 * D.squaredNorm() + 0.5 * (D * E.translation()).squaredNorm();
}

// The smallest reduced objective over random samples of the reduced
// problem's feasible set for the elbow angle t4: φ in the shoulder's valid
// arcs A_f, wrist angles uniform within their limits.
double SampledReducedMinimum(const LimbGeometry& g, const TolaniLimbIk& ik,
                             double t4, const Eigen::Isometry3d& G_site,
                             const Eigen::Isometry3d& E, std::mt19937_64* rng,
                             int* feasible_samples) {
  const Eigen::Isometry3d G = G_site * E.inverse();
  std::array<SwivelParameterization, 2> families;
  LimbIkOptions options;
  options.respect_limits = false;
  double best = std::numeric_limits<double>::infinity();
  *feasible_samples = 0;
  // Parameterize needs a reachable goal: place the wrist at t4's reach,
  // and take the root of Eq. 5 nearest t4 (at full stretch the roots are
  // only good to ~1e-8; the samples keep θ4 = t4 itself).
  const Vector7d q4 = (Vector7d() << 0, 0, 0, t4, 0, 0, 0).finished();
  Eigen::Isometry3d G_reach = G;
  G_reach.translation() =
      G.translation().normalized() * ik.Forward(q4).translation().norm();
  const int n = ik.Parameterize(G_reach, options, &families);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int nearest = -1;
  for (int r = 0; r < n; ++r) {
    const double gap = std::abs(std::remainder(families[r].theta4() - t4, 2 * kPi));
    if (gap < 1e-6 &&
        (nearest < 0 ||
         gap < std::abs(std::remainder(families[nearest].theta4() - t4, 2 * kPi)))) {
      nearest = r;
    }
  }
  for (int r = 0; r < n; ++r) {
    if (r != nearest) continue;
    SwivelAnalysis analysis;
    families[r].Analyze(&analysis);
    for (int k = 0; k < 20000; ++k) {
      const double phi = 2 * kPi * u(*rng);
      const int f = k % 2;
      if (!analysis.shoulder[f].Contains(phi)) continue;
      Vector7d q = families[r].JointAngles(phi, f, 0);
      q[3] = t4;
      for (int i = 4; i < 7; ++i) {
        q[i] = g.lower[i] + (g.upper[i] - g.lower[i]) * u(*rng);
      }
      if (!Within(g, q)) continue;
      ++*feasible_samples;
      best = std::min(best, ReducedObjective(g, q, G_site, E));
    }
  }
  return best;
}

TEST_CASE("Tolani: Table 3's reduced problem places the wrist exactly and "
          "minimizes the orientation error within the limits when no swivel "
          "angle satisfies them",
          "[solvers]") {
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  const Eigen::Isometry3d E = Tip(g);
  std::mt19937_64 rng(43);
  LimbIkOptions options;
  int tried = 0;
  for (int trial = 0; trial < 400 && tried < 12; ++trial) {
    // A pose with the wrist beyond its limits (elbow within): the position
    // stays reachable, the orientation often is not.
    Vector7d q = RandomPose(g, &rng);
    q[5] = g.upper[5] + 0.6;
    q[6] = g.lower[6] - 0.5;
    const Eigen::Isometry3d goal = LimbForward(g, q) * E;
    if (ik.SolvePose(goal, E, options).status !=
        LimbIkStatus::kLimitsInfeasible) {
      continue;
    }
    const LimbSolution s = ik.ApproximatePose(goal, E, options);
    if (!s.reduced) continue;  // no shoulder swivel within the limits
    ++tried;
    INFO(s.message);
    CHECK(s.status == LimbIkStatus::kLimitsInfeasible);
    CHECK_THAT(s.message, Contains("Table 3"));
    CHECK(s.iterations > 0);
    CHECK(Within(g, s.q));
    // The wrist is exactly on its goal (the position of Table 3 is exact).
    CHECK((LimbForward(g, s.q).translation() -
           (goal * E.inverse()).translation()).norm() < 1e-9);
    // No sampled feasible point of the reduced problem does better.
    int samples = 0;
    const double sampled =
        SampledReducedMinimum(g, ik, s.q[3], goal, E, &rng, &samples);
    CHECK(samples > 100);
    CHECK(ReducedObjective(g, s.q, goal, E) <= sampled + 1e-7);
  }
  CHECK(tried >= 10);
}

TEST_CASE("Tolani: Table 3's reduced problem for an out-of-reach pose goal "
          "stretches the limb toward it within the limits",
          "[solvers]") {
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  const Eigen::Isometry3d E = Tip(g);
  const double reach = ik.Forward(Vector7d::Zero()).translation().norm();
  std::mt19937_64 rng(44);
  LimbIkOptions options;
  int tried = 0;
  for (int trial = 0; trial < 100 && tried < 10; ++trial) {
    const Vector7d q = RandomPose(g, &rng);
    // The wrist goal pushed out to 1.3 × the reach along its direction.
    const Eigen::Isometry3d W = LimbForward(g, q);
    Eigen::Isometry3d wrist_goal = W;
    wrist_goal.translation() = 1.3 * reach * W.translation().normalized();
    const Eigen::Isometry3d goal = wrist_goal * E;
    const LimbSolution s = ik.ApproximatePose(goal, E, options);
    if (!s.reduced) continue;
    ++tried;
    INFO(s.message);
    CHECK(s.status == LimbIkStatus::kUnreachable);
    CHECK(Within(g, s.q));
    // The wrist at full reach on the line to the goal: the closest
    // reachable position.
    const Eigen::Vector3d wrist = LimbForward(g, s.q).translation();
    CHECK(wrist.norm() == Approx(reach).epsilon(1e-9));
    CHECK((wrist.normalized() - wrist_goal.translation().normalized()).norm() <
          1e-9);
    int samples = 0;
    const double sampled =
        SampledReducedMinimum(g, ik, s.q[3], goal, E, &rng, &samples);
    CHECK(samples > 100);
    CHECK(ReducedObjective(g, s.q, goal, E) <= sampled + 1e-7);
  }
  CHECK(tried >= 5);
}

// ---------------------------------------------------------------------------
// The Solver on Problems
// ---------------------------------------------------------------------------

struct LimbProblemFixture {
  explicit LimbProblemFixture(const LimbGeometry& geometry)
      : g(geometry), model(std::make_shared<const Model>(LimbFigure(g).Compile())) {
  }
  Eigen::Isometry3d SitePoseAt(const std::string& site,
                               const Eigen::VectorXd& q) const {
    Data data(*model);
    ForwardKinematics(*model, q, &data);
    return SitePose(*model, data, model->SiteIndex(site));
  }
  LimbGeometry g;
  std::shared_ptr<const Model> model;
  TolaniLimbOptions options;
};

TEST_CASE("Tolani solver: every goal kind converges on FK-generated goals and "
          "does not depend on the start pose",
          "[solvers]") {
  for (const LimbGeometry& geometry : {TolaniArmGeometry(), TolaniLegGeometry(Side::kRight)}) {
    LimbProblemFixture fx(geometry);
    const std::string tip = geometry.tip_site_name;
    std::mt19937_64 rng(12);
    for (int trial = 0; trial < 40; ++trial) {
      const Eigen::VectorXd q = RandomPose(geometry, &rng);
      const Eigen::VectorXd q0a = RandomPose(geometry, &rng);
      const Eigen::VectorXd q0b = Eigen::VectorXd::Zero(7);
      const Eigen::Isometry3d X = fx.SitePoseAt(tip, q);
      std::vector<Problem> problems;
      Problem pose(fx.model);
      pose.AddGoal(std::make_shared<PositionOrientationGoal>(*fx.model, tip, X));
      problems.push_back(pose);
      Problem position(fx.model);
      position.AddGoal(
          std::make_shared<PositionGoal>(*fx.model, tip, X.translation()));
      problems.push_back(position);
      Problem partial(fx.model);
      partial.AddGoal(
          std::make_shared<PositionGoal>(*fx.model, tip, X.translation()));
      partial.AddGoal(std::make_shared<AxisGoal>(
          *fx.model, tip, Eigen::Vector3d::UnitZ(), X.linear().col(2)));
      problems.push_back(partial);
      Problem aim(fx.model);
      aim.AddGoal(std::make_shared<AimingGoal>(
          *fx.model, tip, Eigen::Vector3d::UnitX(),
          X.translation() + 0.7 * X.linear().col(0)));
      problems.push_back(aim);
      // Position-only and aiming goals keep the wrist angles of q (the
      // paper: "chosen by the user"), so the goals are reachable.
      fx.options.wrist = TolaniLimbOptions::WristAngles::kGiven;
      fx.options.wrist_angles = q.tail<3>();
      for (size_t k = 0; k < problems.size(); ++k) {
        const Problem& problem = problems[k];
        const Result a = Solve(problem, q0a, fx.options);
        const Result b = Solve(problem, q0b, fx.options);
        INFO(k << ": " << a.message);
        CHECK(a.status == SolveStatus::kConverged);
        CHECK(a.q == b.q);
        // Closed form (no fallback iterations), except that partial
        // orientation may rarely need the L-BFGS-B fallback.
        if (k != 2) CHECK(a.iterations == 0);
        CHECK(a.solver == "tolani");
        CHECK(problem.bounds().Contains(a.q));
      }
    }
  }
}

TEST_CASE("Tolani solver: the limb need not sit at the world origin; goals on "
          "the wrist site work",
          "[solvers]") {
  LimbGeometry g = TolaniArmGeometry(Side::kRight);
  g.X_RS1 = Eigen::Translation3d(0.1, -0.2, 1.4) *
            Eigen::AngleAxisd(2.5, Eigen::Vector3d(1, 0.3, 0).normalized());
  LimbProblemFixture fx(g);
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 50; ++trial) {
    const Eigen::VectorXd q = RandomPose(g, &rng);
    const Eigen::Isometry3d X = fx.SitePoseAt("wrist", q);
    Problem problem(fx.model);
    problem.AddGoal(std::make_shared<PositionOrientationGoal>(*fx.model, "wrist", X));
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), fx.options);
    REQUIRE(r.status == SolveStatus::kConverged);
    CHECK(PoseDifference(fx.SitePoseAt("wrist", r.q), X) < 1e-9);
  }
}

TEST_CASE("Tolani solver: unreachable and limits-infeasible goals report "
          "their status with a best effort inside the bounds",
          "[solvers]") {
  LimbProblemFixture fx(TolaniArmGeometry());
  SECTION("out of reach") {
    Problem problem(fx.model);
    const Eigen::Vector3d far(0.9, 0.5, -0.2);
    problem.AddGoal(std::make_shared<PositionGoal>(*fx.model, "wrist", far));
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), fx.options);
    CHECK(r.status == SolveStatus::kUnreachable);
    // Full stretch is θ4 = 0 here (the carrying angle keeps it below
    // L1 + L2).
    const double reach =
        TolaniLimbIk(fx.g).Forward(Vector7d::Zero()).translation().norm();
    CHECK(reach < fx.g.upper_length + fx.g.lower_length);
    CHECK(r.goal_errors.at(0).position ==
          Approx(far.norm() - reach).epsilon(1e-6));
    CHECK(problem.bounds().Contains(r.q));
  }
  SECTION("a pose goal out of reach: Table 3's reduced problem") {
    Problem problem(fx.model);
    Eigen::Isometry3d goal = fx.SitePoseAt("hand", Eigen::VectorXd::Zero(7));
    goal.translation() = Eigen::Vector3d(0.9, 0.5, -0.2);
    problem.AddGoal(std::make_shared<PositionOrientationGoal>(*fx.model, "hand",
                                                              goal));
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), fx.options);
    INFO(r.message);
    CHECK_FALSE(r.converged());
    CHECK((r.status == SolveStatus::kUnreachable ||
           r.status == SolveStatus::kLimitsInfeasible));
    CHECK_THAT(r.message, Contains("Table 3 reduced problem"));
    CHECK_THAT(r.message, Contains("out of reach"));
    CHECK(r.iterations > 0);
    CHECK(problem.bounds().Contains(r.q));
  }
  SECTION("reachable without limits, not within them") {
    Problem problem(fx.model);
    Vector7d q_goal;
    q_goal << 1.2, 0.5, -0.4, 1.4, 1.0, 0.3, -0.2;
    problem.AddGoal(std::make_shared<PositionOrientationGoal>(
        *fx.model, "hand", fx.SitePoseAt("hand", q_goal)));
    // Narrow boxes around another pose.
    Vector7d center;
    center << -0.3, 0.0, 0.2, 0.5, 0.5, 0.0, 0.0;
    for (int i = 0; i < 7; ++i) {
      problem.mutable_bounds()->Set(i, center[i] - 0.05, center[i] + 0.05);
    }
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), fx.options);
    CHECK(r.status == SolveStatus::kLimitsInfeasible);
    CHECK(problem.bounds().Contains(r.q));
    TolaniLimbOptions off = fx.options;
    off.common.respect_limits = false;
    CHECK(Solve(problem, Eigen::VectorXd::Zero(7), off).converged());
  }
}

TEST_CASE("Tolani solver: a closed-form verdict with the wrist angles held "
          "is not a verdict on the goal",
          "[solvers]") {
  // Position goals on the tip generated by FK (reachable), solved with the
  // wrist held at the start pose's angles and no fallback: where the held
  // wrist cannot reach a goal, Eq. 5's "out of reach" concerns that reduced
  // problem only, so the status never claims the goal out of reach.
  LimbProblemFixture fx(TolaniArmGeometry());
  const std::string tip = fx.g.tip_site_name;
  TolaniLimbOptions options = fx.options;
  options.wrist = TolaniLimbOptions::WristAngles::kStart;
  options.fallback = false;
  std::mt19937_64 rng(21);
  int reduced = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::VectorXd q = RandomPose(fx.g, &rng);
    const Eigen::VectorXd q0 = RandomPose(fx.g, &rng);
    Problem problem(fx.model);
    problem.AddGoal(std::make_shared<PositionGoal>(
        *fx.model, tip, fx.SitePoseAt(tip, q).translation()));
    const Result r = Solve(problem, q0, options);
    INFO(r.message);
    CHECK(r.status != SolveStatus::kUnreachable);
    reduced += r.message.find("reduced problem (the wrist angles held): the "
                              "position goal is out of reach") !=
               std::string::npos;
  }
  CHECK(reduced > 0);
}

TEST_CASE("Tolani solver rejects problems it cannot solve analytically",
          "[solvers]") {
  LimbProblemFixture fx(TolaniArmGeometry());
  SECTION("a 7-joint model that is not SRS") {
    auto planar = std::make_shared<const Model>(
        PlanarChain({1, 1, 1, 1, 1, 1, 1}).Compile());
    Problem problem(planar);
    problem.AddGoal(std::make_shared<PositionGoal>(*planar, "effector",
                                                   Eigen::Vector3d(3, 1, 0)));
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), fx.options);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("not 90"));
  }
  SECTION("an orientation-only goal") {
    Problem problem(fx.model);
    problem.AddGoal(std::make_shared<OrientationGoal>(
        *fx.model, "hand", Eigen::Matrix3d::Identity()));
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), fx.options);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("supported goals"));
  }
  SECTION("a goal on the forearm (the elbow site)") {
    Problem problem(fx.model);
    problem.AddGoal(std::make_shared<PositionGoal>(*fx.model, "elbow",
                                                   Eigen::Vector3d(0, 0, 0.3)));
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), fx.options);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("an SRS arm needs 7"));
  }
  SECTION("a geometry with a non-coordinate axis") {
    LimbGeometry bad = TolaniArmGeometry();
    bad.s1_axes[0] = Eigen::Vector3d(1, 1, 0).normalized();
    REQUIRE_THROWS_WITH(TolaniLimbIk(bad), Contains("s1_axes[0]"));
  }
}

TEST_CASE("Tolani: the swivel parameterization, its valid intervals and the "
          "joint angles allocate nothing",
          "[solvers]") {
  if (!testing::AllocationCounter::enabled()) return;
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  std::mt19937_64 rng(14);
  const Vector7d q = RandomPose(g, &rng);
  const Eigen::Isometry3d G = LimbForward(g, q);
  LimbIkOptions options;
  double sum = 0.0;
  {
    // (A LimbSolution's message is a std::string, so the Solve* calls may
    // allocate it; the closed form underneath does not.)
    testing::AllocationCounter counter;
    for (int k = 0; k < 10; ++k) {
      std::array<SwivelParameterization, 2> families;
      const int count = ik.Parameterize(G, options, &families);
      for (int r = 0; r < count; ++r) {
        SwivelAnalysis analysis;
        families[r].Analyze(&analysis);
        double phi = 0.0;
        if (ik.ChooseSwivel(families[r], analysis, options, &phi)) {
          sum += families[r].JointAngles(phi, 0, 0).sum();
        }
      }
    }
    CHECK(counter.count() == 0);
  }
  CHECK(std::isfinite(sum));
}

}  // namespace
}  // namespace iklab
