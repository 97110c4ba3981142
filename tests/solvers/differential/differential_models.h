#ifndef IKLAB_TESTS_SOLVERS_DIFFERENTIAL_DIFFERENTIAL_MODELS_H_
#define IKLAB_TESTS_SOLVERS_DIFFERENTIAL_DIFFERENTIAL_MODELS_H_

/// @file
/// Figures used by the differential-method tests and benchmarks, built with
/// Figure directly (independent of framework/builders.h).

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "framework/figure.h"
#include "framework/model.h"

namespace iklab::testing {

/// Planar serial chain of revolute z joints with the given segment lengths
/// (joint i at the start of segment i), the base joint at `base` in the
/// world, limits [lo, hi] on every joint, and a site "tip" at the end of the
/// last segment. Parent's arm is {15, 10, 5}; Šoch & Lórencz's {90, 60, 90,
/// 150, 150, 90} with base (−230, 0, 0).
inline std::shared_ptr<const Model> PlanarArm(
    const std::vector<double>& lengths,
    const Eigen::Vector3d& base = Eigen::Vector3d::Zero(),
    double lo = -kInfinity, double hi = kInfinity) {
  Figure f("base");
  std::string parent = "base";
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    Joint j;
    j.name = "q" + std::to_string(i);
    j.parent = parent;
    j.child = "link" + std::to_string(i);
    j.X_PJ.translation() =
        i == 0 ? base : Eigen::Vector3d(lengths[i - 1], 0, 0);
    j.WithLimits(lo, hi);
    f.AddJoint(j);
    parent = j.child;
  }
  Site tip{"tip", parent, Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(lengths.back(), 0, 0);
  f.AddSite(tip);
  return std::make_shared<const Model>(f.Compile());
}

/// A spatial serial chain of n revolute joints whose axes cycle z, y, x,
/// with links of `link` length along the joint frame's x (so no two
/// consecutive axes are parallel and every joint moves the tip), limits
/// ±limit, site "tip" one link beyond the last joint and site "mid" at the
/// origin of link n/2 (a second effector). n = 7 is a generic redundant 3-D
/// arm.
inline std::shared_ptr<const Model> SpatialChain(int n, double link = 0.3,
                                                 double limit = kInfinity) {
  Figure f("base");
  std::string parent = "base";
  const Eigen::Vector3d axes[] = {Eigen::Vector3d::UnitZ(),
                                  Eigen::Vector3d::UnitY(),
                                  Eigen::Vector3d::UnitX()};
  for (int i = 0; i < n; ++i) {
    Joint j;
    j.name = "j" + std::to_string(i);
    j.parent = parent;
    j.child = "link" + std::to_string(i);
    if (i > 0) j.X_PJ.translation() = Eigen::Vector3d(link, 0, 0);
    j.axis = axes[i % 3];
    j.WithLimits(-limit, limit);
    f.AddJoint(j);
    parent = j.child;
  }
  Site tip{"tip", parent, Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(link, 0, 0);
  f.AddSite(tip);
  f.AddSite({"mid", "link" + std::to_string(n / 2),
             Eigen::Isometry3d::Identity()});
  return std::make_shared<const Model>(f.Compile());
}

}  // namespace iklab::testing

#endif  // IKLAB_TESTS_SOLVERS_DIFFERENTIAL_DIFFERENTIAL_MODELS_H_
