// The robot models iklab ships (data/robots) against the manufacturers'
// numbers, and, when the upstream description files are at hand, against
// those files: same chain, FK equal to 1e-9 on 1,000 random configurations,
// same limits.

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "framework/kinematics.h"
#include "framework/model.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

// The upstream file each shipped model is checked against.
struct Upstream {
  const char* robot;  // StandardRobots() name
  const char* file;   // in the upstream robots/ folder
};
const Upstream kUpstream[] = {
    {"panda", "franka_panda.urdf"},    {"iiwa14", "kuka_iiwa14.urdf"},
    {"gen3", "kinova_gen3_7dof.urdf"}, {"ur5", "ur5.urdf"},
    {"baxter_left", "baxter.urdf"},    {"pr2_right", "pr2.urdf"},
};

std::vector<BenchmarkRobot> Shipped() {
  return StandardRobots(testing::ShippedDataFile(""));
}

Model LoadChain(const std::string& path, const BenchmarkRobot& r,
                UrdfSoftLimits limits) {
  UrdfOptions options;
  options.soft_limits = limits;
  return LoadUrdfChain(path, r.base_link, r.tip_link, options).figure.Compile();
}

TEST_CASE(
    "The shipped robot models load as the benchmark's 6- and 7-DOF chains "
    "with the manufacturers' numbers",
    "[framework][data]") {
  const std::vector<BenchmarkRobot> robots = Shipped();
  REQUIRE(robots.size() == 6);
  for (const BenchmarkRobot& r : robots) {
    INFO(r.name);
    const Model model = LoadChain(r.urdf_path, r, UrdfSoftLimits::kNarrow);
    CHECK(model.nq() == (r.name == "ur5" ? 6 : 7));
    CHECK_NOTHROW(model.SiteIndex(r.tip_link));
  }
  // Zero configuration: the arms stand straight up, so the tool is where the
  // published link lengths put it. Panda: d1 + d3 + d5 − d_flange = 0.333 +
  // 0.316 + 0.384 − 0.107 m high, a7 = 0.088 m forward (Franka's DH table);
  // iiwa14: 0.360 + 0.420 + 0.400 + 0.126 m (KUKA's data sheet).
  const auto tip_at_zero = [](const BenchmarkRobot& r) {
    const Model model = LoadChain(r.urdf_path, r, UrdfSoftLimits::kNarrow);
    Data data(model);
    ForwardKinematics(model, Eigen::VectorXd::Zero(model.nq()), &data);
    return SitePosition(model, data, model.SiteIndex(r.tip_link));
  };
  CHECK((tip_at_zero(robots[0]) - Eigen::Vector3d(0.088, 0, 0.926)).norm() <
        1e-12);
  CHECK((tip_at_zero(robots[1]) - Eigen::Vector3d(0, 0, 1.306)).norm() < 1e-12);
  // iiwa14 axis ranges ±170°, ±120°, ..., ±175° (data sheet).
  const Model iiwa =
      LoadChain(robots[1].urdf_path, robots[1], UrdfSoftLimits::kNarrow);
  const double degrees[] = {170, 120, 170, 120, 170, 120, 175};
  for (int i = 0; i < 7; ++i) {
    CHECK(iiwa.upper()[i] == Approx(degrees[i] * M_PI / 180).epsilon(1e-15));
    CHECK(iiwa.lower()[i] == -iiwa.upper()[i]);
  }
}

TEST_CASE(
    "Each shipped robot model matches its upstream description: same chain, "
    "FK within 1e-9 on 1,000 random configurations, same limits",
    "[framework][data]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  for (const BenchmarkRobot& r : Shipped()) {
    INFO(r.name);
    std::string file;
    for (const Upstream& u : kUpstream) {
      if (r.name == u.robot) file = u.file;
    }
    REQUIRE_FALSE(file.empty());
    const std::string upstream_path =
        testing::UpstreamDataFile("robots/" + file);
    for (UrdfSoftLimits limits :
         {UrdfSoftLimits::kNarrow, UrdfSoftLimits::kIgnore}) {
      INFO("limits: " << UrdfSoftLimitsName(limits));
      const Model ours = LoadChain(r.urdf_path, r, limits);
      const Model theirs = LoadChain(upstream_path, r, limits);
      // Same chain: the same joints, kinds, axes and links, in order.
      REQUIRE(ours.nq() == theirs.nq());
      REQUIRE(ours.num_links() == theirs.num_links());
      for (int i = 0; i < ours.nq(); ++i) {
        CHECK(ours.dof_name(i) == theirs.dof_name(i));
        CHECK(ours.kind(ours.dof_step(i)) == theirs.kind(theirs.dof_step(i)));
        CHECK((ours.axis(ours.dof_step(i)) - theirs.axis(theirs.dof_step(i)))
                  .norm() < 1e-12);
        CHECK(ours.bounded(i) == theirs.bounded(i));
        if (ours.bounded(i)) {
          CHECK(std::abs(ours.lower()[i] - theirs.lower()[i]) <= 1e-9);
          CHECK(std::abs(ours.upper()[i] - theirs.upper()[i]) <= 1e-9);
        }
      }
      if (limits == UrdfSoftLimits::kIgnore) continue;  // same kinematics
      // FK of every link of the chain.
      std::mt19937_64 rng(12);
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      Data ours_data(ours), theirs_data(theirs);
      Eigen::VectorXd q(ours.nq());
      double max_position = 0.0, max_rotation = 0.0;
      for (int trial = 0; trial < 1000; ++trial) {
        for (int i = 0; i < ours.nq(); ++i) {
          q[i] = ours.bounded(i)
                     ? ours.lower()[i] +
                           (ours.upper()[i] - ours.lower()[i]) * unit(rng)
                     : M_PI - 2.0 * M_PI * unit(rng);
        }
        ForwardKinematics(ours, q, &ours_data);
        ForwardKinematics(theirs, q, &theirs_data);
        for (int s = 0; s < ours.num_sites(); ++s) {
          const Eigen::Isometry3d a = SitePose(ours, ours_data, s);
          const Eigen::Isometry3d b = SitePose(
              theirs, theirs_data, theirs.SiteIndex(ours.site_name(s)));
          max_position = std::max(max_position,
                                  (a.translation() - b.translation()).norm());
          max_rotation = std::max(
              max_rotation,
              Eigen::AngleAxisd(a.linear().transpose() * b.linear()).angle());
        }
      }
      std::printf(
          "FK equivalence %-12s vs %-22s max |dp| = %.3g m, max "
          "rotation = %.3g rad (1000 configurations, %d links)\n",
          r.name.c_str(), file.c_str(), max_position, max_rotation,
          ours.num_sites());
      CHECK(max_position <= 1e-9);
      CHECK(max_rotation <= 1e-9);
    }
  }
}

}  // namespace
}  // namespace iklab
