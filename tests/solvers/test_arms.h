#ifndef IKLAB_TESTS_SOLVERS_TEST_ARMS_H_
#define IKLAB_TESTS_SOLVERS_TEST_ARMS_H_

/// @file
/// Arms shared by the solver tests and benchmarks, built with Figure directly
/// (so the solver tests do not depend on builders they may check elsewhere).

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/denavit_hartenberg.h"
#include "framework/figure.h"
#include "framework/internal/constants.h"
#include "framework/kinematics.h"
#include "framework/model.h"

namespace iklab::testing {

using internal::kPi;

/// Parent's 3-link planar arm: link lengths 15, 10, 5, relative revolute
/// angles about z, site "tip" at the end of the last link. Each joint gets
/// the limits [lo, hi] (default none).
inline std::shared_ptr<const Model> ParentArm(double lo = -kInfinity,
                                              double hi = kInfinity) {
  Figure f("base");
  const double lengths[] = {15, 10, 5};
  std::string parent = "base";
  for (int i = 0; i < 3; ++i) {
    Joint j;
    j.name = "q" + std::to_string(i);
    j.parent = parent;
    j.child = "link" + std::to_string(i);
    if (i > 0) j.X_PJ.translation() = Eigen::Vector3d(lengths[i - 1], 0, 0);
    j.WithLimits(lo, hi);
    f.AddJoint(j);
    parent = j.child;
  }
  Site tip{"tip", "link2", Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(lengths[2], 0, 0);
  f.AddSite(tip);
  return std::make_shared<const Model>(f.Compile());
}

/// Parent's start pose {π/8, π/4, π/4}.
inline Eigen::VectorXd ParentStart() {
  return Eigen::Vector3d(kPi / 8, kPi / 4, kPi / 4);
}

/// A KUKA-iiwa-like 7-DOF arm (metres): revolute axes z, y, z, y, z, y, z;
/// shoulder 0.34 above the base, elbow and wrist 0.4 apart, site "tool"
/// 0.126 beyond the last joint. Limits ±2.96 rad on the z joints, ±2.09 on
/// the y joints (as the iiwa's).
inline Figure SevenDofArmFigure() {
  Figure f("base");
  const double offsets[] = {0.34, 0.0, 0.2, 0.2, 0.2, 0.2, 0.0};
  std::string parent = "base";
  for (int i = 0; i < 7; ++i) {
    Joint j;
    j.name = "a" + std::to_string(i + 1);
    j.parent = parent;
    j.child = "link" + std::to_string(i + 1);
    j.X_PJ.translation() = Eigen::Vector3d(0, 0, offsets[i]);
    const bool z = i % 2 == 0;
    j.axis = z ? Eigen::Vector3d::UnitZ() : Eigen::Vector3d::UnitY();
    j.WithLimits(z ? -2.96 : -2.09, z ? 2.96 : 2.09);
    f.AddJoint(j);
    parent = j.child;
  }
  Site tool{"tool", "link7", Eigen::Isometry3d::Identity()};
  tool.X_LS.translation() = Eigen::Vector3d(0, 0, 0.126);
  f.AddSite(tool);
  return f;
}

/// SevenDofArmFigure(), compiled.
inline std::shared_ptr<const Model> SevenDofArm() {
  return std::make_shared<const Model>(SevenDofArmFigure().Compile());
}

/// Uniform pose within the (finite) limits of `model`.
inline Eigen::VectorXd UniformPose(const Model& model, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd q(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    q[i] = model.lower()[i] + (model.upper()[i] - model.lower()[i]) * u(*rng);
  }
  return q;
}

/// World pose of `site` at q.
inline Eigen::Isometry3d SitePoseAt(const Model& model, const std::string& site,
                                    const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePose(model, data, model.SiteIndex(site));
}

/// One row of a classic DH table (framework/denavit_hartenberg.h).
inline DhRow DhRowOf(double a, double alpha, double d, double lower,
                     double upper) {
  DhRow row;
  row.a = a;
  row.alpha = alpha;
  row.d = d;
  row.lower = lower;
  row.upper = upper;
  return row;
}

/// A KUKA-KR-6-like 6R arm (classic DH, lengths in metres): shoulder offset
/// a1, axes 2 ∥ 3, spherical wrist; wrist ranges beyond ±π (joint 4 ±185°,
/// joint 6 ±350°) so the 2π shifts matter; a tool offset.
inline std::shared_ptr<const Model> KukaLikeArm() {
  constexpr double kDeg = kPi / 180.0;
  DhTable table;
  table.rows = {DhRowOf(0.025, -kPi / 2, 0.400, -170 * kDeg, 170 * kDeg),
                DhRowOf(0.455, 0.0, 0.0, -190 * kDeg, 45 * kDeg),
                DhRowOf(0.035, -kPi / 2, 0.0, -120 * kDeg, 156 * kDeg),
                DhRowOf(0.0, kPi / 2, 0.420, -185 * kDeg, 185 * kDeg),
                DhRowOf(0.0, -kPi / 2, 0.0, -120 * kDeg, 120 * kDeg),
                DhRowOf(0.0, 0.0, 0.080, -350 * kDeg, 350 * kDeg)};
  table.X_tool.translation() = Eigen::Vector3d(0.01, 0.02, 0.05);
  return std::make_shared<const Model>(
      DenavitHartenbergFigure(table).Compile());
}

}  // namespace iklab::testing

#endif  // IKLAB_TESTS_SOLVERS_TEST_ARMS_H_
