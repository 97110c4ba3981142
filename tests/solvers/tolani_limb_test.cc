// Tolani, Goswami & Badler's analytic 7-DOF limb (§3): round trips FK → goal
// → analytic solve → FK for the arm and the leg, the valid swivel intervals
// against dense sampling of φ, every Euler-angle branch, dθ/dφ against finite
// differences, partial orientation, aiming, unreachable and
// limits-infeasible goals, and the Solver on Problems.
#include "solvers/tolani_limb_solver.h"

#include <cmath>
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
#include "framework/kinematics.h"
#include "tests/allocation_counter.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
constexpr double kPi = 3.14159265358979323846;

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
    for (double t : r.values) {
      CHECK(a * std::cos(t) + b * std::sin(t) == Approx(c).margin(1e-12));
    }
    CHECK(std::abs(r.values[0] - r.values[1]) > 0.0);
  }
  const TrigRoots tangent = SolveTrigEquation(3.0, 4.0, 5.0);
  CHECK(tangent.count == 1);
  CHECK(tangent.values[0] == Approx(std::atan2(4.0, 3.0)));
  CHECK(SolveTrigEquation(0.0, 0.0, 0.0).count == 0);
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
  const Eigen::Vector3d wrist(0.1, -0.2, 0.4);
  const double l1 = 0.33, l2 = 0.26;
  const ElbowCircle c = MakeElbowCircle(wrist, l1, l2, Eigen::Vector3d::UnitX(),
                                        Eigen::Vector3d::UnitY());
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
      families[r].Analyze(ik, &analysis);
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
        families[r].Analyze(ik, &analysis);
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

TEST_CASE("Tolani: aiming goals from random poses are solved exactly within "
          "limits",
          "[solvers]") {
  for (const LimbGeometry& g : {TolaniArmGeometry(), TolaniLegGeometry()}) {
    const TolaniLimbIk ik(g);
    const Eigen::Isometry3d E = Tip(g);
    std::mt19937_64 rng(10);
    std::uniform_real_distribution<double> reach(0.2, 1.5);
    int failures = 0;
    const int count = 500;
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
    // θ4 is found by a scan when the middle of its range admits no valid
    // swivel: a narrow admissible θ4 band can be missed.
    CHECK(failures <= count / 100);
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

// ---------------------------------------------------------------------------
// The Solver on Problems
// ---------------------------------------------------------------------------

struct LimbProblemFixture {
  explicit LimbProblemFixture(const LimbGeometry& geometry)
      : g(geometry), model(std::make_shared<const Model>(LimbFigure(g).Compile())) {
    options.geometry = g;
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

TEST_CASE("Tolani solver rejects problems it cannot solve analytically",
          "[solvers]") {
  LimbProblemFixture fx(TolaniArmGeometry());
  SECTION("another model") {
    auto leg = std::make_shared<const Model>(TolaniLeg().Compile());
    Problem problem(leg);
    problem.AddGoal(std::make_shared<PositionGoal>(*leg, "foot",
                                                   Eigen::Vector3d(0, 0, 0.5)));
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), fx.options);
    CHECK(r.status == SolveStatus::kInvalidInput);
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
    CHECK_THAT(r.message, Contains("distal link"));
  }
  SECTION("a geometry with a non-coordinate axis") {
    TolaniLimbOptions bad = fx.options;
    bad.geometry.s1_axes[0] = Eigen::Vector3d(1, 1, 0).normalized();
    Problem problem(fx.model);
    problem.AddGoal(std::make_shared<PositionGoal>(*fx.model, "hand",
                                                   Eigen::Vector3d(0, 0, 0.3)));
    const Result r = Solve(problem, Eigen::VectorXd::Zero(7), bad);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("s1_axes"));
    REQUIRE_THROWS_WITH(TolaniLimbIk(bad.geometry), Contains("s1_axes[0]"));
  }
}

TEST_CASE("Tolani: the closed-form solves allocate nothing", "[solvers]") {
  if (!testing::AllocationCounter::enabled()) return;
  const LimbGeometry g = TolaniArmGeometry();
  const TolaniLimbIk ik(g);
  std::mt19937_64 rng(14);
  const Vector7d q = RandomPose(g, &rng);
  const Eigen::Isometry3d G = LimbForward(g, q);
  LimbIkOptions on, off;
  off.respect_limits = false;
  double sum = 0.0;
  {
    testing::AllocationCounter counter;
    for (int k = 0; k < 10; ++k) {
      sum += ik.SolvePose(G, Eigen::Isometry3d::Identity(), on).q.sum();
      sum += ik.SolvePose(G, Eigen::Isometry3d::Identity(), off).q.sum();
      sum += ik.SolvePosition(G.translation(), Eigen::Vector3d::Zero(),
                              q.tail<3>(), on).q.sum();
    }
    CHECK(counter.count() == 0);
  }
  CHECK(std::isfinite(sum));
}

}  // namespace
}  // namespace iklab
