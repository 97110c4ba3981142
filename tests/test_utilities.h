#ifndef IKLAB_TESTS_TEST_UTILITIES_H_
#define IKLAB_TESTS_TEST_UTILITIES_H_

/// @file
/// Shared test helpers: random figures of every joint kind, random poses, and
/// a central-difference checker for Jacobians.

#include <filesystem>
#include <functional>
#include <random>
#include <string>

#include <Eigen/Core>

#include "framework/figure.h"
#include "framework/model.h"

namespace iklab::testing {

/// Options for RandomFigure.
struct RandomFigureOptions {
  int num_joints = 8;
  /// Probability that a new joint attaches to a random earlier link rather
  /// than to the last one (0 = a chain).
  double branching = 0.4;
  /// Include spherical, floating and fixed joints besides revolute/prismatic.
  bool all_kinds = true;
  /// Number of sites, placed on random links with random offsets.
  int num_sites = 3;
};

/// A revolute joint parent → child about z, at the parent's frame, without
/// limits (Joint's defaults); tests set what they need on the copy.
Joint Revolute(const std::string& name, const std::string& parent,
               const std::string& child);

/// A random tree with random constant transforms, random unit axes (a third
/// of them coordinate axes, to exercise FK's short cuts), random limits and
/// sites named "site0", "site1", ...
Figure RandomFigure(std::mt19937* rng, const RandomFigureOptions& options = {});

/// A configuration drawn uniformly within the model's limits (bounded
/// coordinates) or in [−π, π] (unbounded ones).
Eigen::VectorXd RandomConfiguration(const Model& model, std::mt19937* rng);

/// Central-difference Jacobian of f: R^n → R^m at x with step h.
Eigen::MatrixXd NumericJacobian(
    const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
    const Eigen::VectorXd& x, double h = 1e-6);

/// Largest entrywise difference relative to max(1, |numeric|):
/// |a − n| / max(1, |n|).
double RelativeError(const Eigen::MatrixXd& analytic,
                     const Eigen::MatrixXd& numeric);

/// A unit vector uniform on the sphere (normalized Gaussian draws).
Eigen::Vector3d RandomUnitVector(std::mt19937* rng);

/// A point uniform in the cube [−scale, scale]³.
Eigen::Vector3d RandomPoint(std::mt19937* rng, double scale);

/// A path in the system's temp folder unique to this test process:
/// `<tmp>/<name>-<pid>` (test runs of several builds may share the machine).
std::filesystem::path ScratchPath(const std::string& name);

/// The number of random cases a sampling test draws: `cases` in the ordinary
/// build, a tenth of it (at least 1) under AddressSanitizer +
/// UndefinedBehaviorSanitizer (IKLAB_SANITIZE), where the same code runs
/// 10–30× slower and the point is memory and undefined behaviour, which the
/// first thousand cases exercise as well as ten thousand. The ordinary run
/// keeps the full statistical check.
constexpr int SampleCount(int cases) {
#ifdef IKLAB_TESTS_SANITIZED
  return cases / 10 > 0 ? cases / 10 : 1;
#else
  return cases;
#endif
}

}  // namespace iklab::testing

#endif  // IKLAB_TESTS_TEST_UTILITIES_H_
