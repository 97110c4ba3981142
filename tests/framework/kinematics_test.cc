#include "framework/kinematics.h"

#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/figure.h"
#include "tests/allocation_counter.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::WithinAbs;

// Parent's 3-link planar arm (lengths 15, 10, 5), built by hand so the test
// does not depend on the builders it also checks elsewhere.
Model ParentArm() {
  Figure f("base");
  const double lengths[] = {15, 10, 5};
  std::string parent = "base";
  for (int i = 0; i < 3; ++i) {
    Joint j;
    j.name = "q" + std::to_string(i);
    j.parent = parent;
    j.child = "link" + std::to_string(i);
    if (i > 0) j.X_PJ.translation() = Eigen::Vector3d(lengths[i - 1], 0, 0);
    f.AddJoint(j);
    parent = j.child;
  }
  Site tip{"tip", "link2", Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(lengths[2], 0, 0);
  f.AddSite(tip);
  return f.Compile();
}

TEST_CASE("FK of Parent's 3-link arm matches the hand-computed effector",
          "[framework]") {
  const Model model = ParentArm();
  Data data(model);
  const Eigen::Vector3d q(M_PI / 8, M_PI / 4, M_PI / 4);
  ForwardKinematics(model, q, &data);
  // Relative angles: absolute 22.5°, 67.5°, 112.5°.
  //   x = 15 cos 22.5° + 10 cos 67.5° + 5 cos 112.5° = 15.772
  //   y = 15 sin 22.5° + 10 sin 67.5° + 5 sin 112.5° = 19.598
  const Eigen::Vector3d p = SitePosition(model, data, model.SiteIndex("tip"));
  CHECK_THAT(p.x(), WithinAbs(15.772, 1e-3));
  CHECK_THAT(p.y(), WithinAbs(19.598, 1e-3));
  CHECK_THAT(p.z(), WithinAbs(0.0, 1e-12));
  const Eigen::Isometry3d X = SitePose(model, data, model.SiteIndex("tip"));
  CHECK_THAT(std::atan2(X.linear()(1, 0), X.linear()(0, 0)),
             WithinAbs(5 * M_PI / 8, 1e-12));
}

TEST_CASE("Planar Jacobian columns are z x (p - o) and z", "[framework]") {
  const Model model = ParentArm();
  Data data(model);
  const Eigen::Vector3d q(0.3, -0.7, 1.1);
  ForwardKinematics(model, q, &data);
  Matrix6Xd J(6, 3);
  SiteJacobian(model, data, 0, J);
  const Eigen::Vector3d p = SitePosition(model, data, 0);
  for (int i = 0; i < 3; ++i) {
    const Eigen::Vector3d o = data.X_W(model.dof_step(i)).translation();
    const Eigen::Vector3d expected = Eigen::Vector3d::UnitZ().cross(p - o);
    CHECK((J.col(i).head<3>() - expected).norm() < 1e-12);
    CHECK((J.col(i).tail<3>() - Eigen::Vector3d::UnitZ()).norm() < 1e-12);
  }
}

// Rotation vector w with R_plus ≈ exp([w]x) R_minus, the finite-difference
// counterpart of the angular Jacobian rows.
Eigen::Vector3d RotationDifference(const Eigen::Matrix3d& R_plus,
                                   const Eigen::Matrix3d& R_minus) {
  const Eigen::AngleAxisd aa(R_plus * R_minus.transpose());
  return aa.angle() * aa.axis();
}

TEST_CASE(
    "Site Jacobians of random trees with every joint kind match central "
    "differences",
    "[framework]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    testing::RandomFigureOptions options;
    options.num_joints = 2 + trial % 12;
    const Model model = testing::RandomFigure(&rng, options).Compile();
    Data data(model);
    const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
    for (int site = 0; site < model.num_sites(); ++site) {
      ForwardKinematics(model, q, &data);
      Matrix6Xd J(6, model.nq());
      SiteJacobian(model, data, site, J);
      Eigen::Matrix3Xd Jp(3, model.nq());
      SitePositionJacobian(model, data, site, Jp);
      CHECK(Jp == J.topRows<3>());

      Data probe(model);
      const auto position = [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
        ForwardKinematics(model, x, &probe);
        return SitePosition(model, probe, site);
      };
      const Eigen::MatrixXd numeric = testing::NumericJacobian(position, q);
      CHECK(testing::RelativeError(J.topRows<3>(), numeric) <= 1e-6);

      const double h = 1e-6;
      Eigen::Matrix3Xd angular(3, model.nq());
      for (int i = 0; i < model.nq(); ++i) {
        Eigen::VectorXd qp = q, qm = q;
        qp[i] += h;
        qm[i] -= h;
        ForwardKinematics(model, qp, &probe);
        const Eigen::Matrix3d Rp = SitePose(model, probe, site).linear();
        ForwardKinematics(model, qm, &probe);
        const Eigen::Matrix3d Rm = SitePose(model, probe, site).linear();
        angular.col(i) = RotationDifference(Rp, Rm) / (2 * h);
      }
      CHECK(testing::RelativeError(J.bottomRows<3>(), angular) <= 1e-6);
    }
  }
}

TEST_CASE("A prismatic step moves its child along the axis by q",
          "[framework]") {
  Figure f("base");
  Joint slide;
  slide.name = "slide";
  slide.parent = "base";
  slide.child = "carriage";
  slide.kind = JointKind::kPrismatic;
  slide.axis = Eigen::Vector3d(0, 0.6, 0.8);
  slide.X_PJ.translation() = Eigen::Vector3d(1, 2, 3);
  f.AddJoint(slide);
  f.AddSite({"s", "carriage", Eigen::Isometry3d::Identity()});
  const Model model = f.Compile();
  Data data(model);
  ForwardKinematics(model, Eigen::VectorXd::Constant(1, 2.5), &data);
  CHECK((SitePosition(model, data, 0) - Eigen::Vector3d(1, 3.5, 5)).norm() <
        1e-12);
}

TEST_CASE("Several threads computing FK on one model get identical answers",
          "[framework]") {
  std::mt19937 rng(11);
  testing::RandomFigureOptions options;
  options.num_joints = 30;
  const Model model = testing::RandomFigure(&rng, options).Compile();
  std::vector<Eigen::VectorXd> poses;
  for (int k = 0; k < 64; ++k) {
    poses.push_back(testing::RandomConfiguration(model, &rng));
  }
  // Reference answers, single-threaded.
  std::vector<Eigen::Vector3d> expected;
  Data data(model);
  for (const auto& q : poses) {
    ForwardKinematics(model, q, &data);
    expected.push_back(SitePosition(model, data, 0));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Data own(model);
      for (int rep = 0; rep < 50; ++rep) {
        for (size_t k = t; k < poses.size(); k += 2) {
          ForwardKinematics(model, poses[k], &own);
          if (SitePosition(model, own, 0) != expected[k]) ++mismatches;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(mismatches == 0);
}

TEST_CASE("FK and Jacobians do not allocate once the workspace exists",
          "[framework]") {
  std::mt19937 rng(3);
  const Model model = testing::RandomFigure(&rng).Compile();
  Data data(model);
  const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
  Matrix6Xd J(6, model.nq());
  Eigen::Matrix3Xd Jp(3, model.nq());
  if (!testing::AllocationCounter::enabled()) {
    WARN("allocation counting is off in sanitizer builds");
    return;
  }
  {
    testing::AllocationCounter counter;
    for (int k = 0; k < 10; ++k) {
      ForwardKinematics(model, q, &data);
      SiteJacobian(model, data, 0, J);
      SitePositionJacobian(model, data, 1, Jp);
      const Eigen::Isometry3d X = SitePose(model, data, 2);
      (void)X;
    }
    CHECK(counter.count() == 0);
  }
}

TEST_CASE("The allocation counter sees Eigen and standard-library allocations",
          "[framework]") {
  if (!testing::AllocationCounter::enabled()) return;
  testing::AllocationCounter counter;
  Eigen::MatrixXd m(50, 50);
  std::vector<int> v(10);
  CHECK(counter.count() == 2);
}

TEST_CASE("FK rejects a configuration of the wrong size or with NaN",
          "[framework]") {
  const Model model = ParentArm();
  Data data(model);
  REQUIRE_THROWS_WITH(ForwardKinematics(model, Eigen::Vector2d(0, 0), &data),
                      "ForwardKinematics: q: expected 3 joint coordinates, got 2");
  REQUIRE_THROWS_WITH(
      ForwardKinematics(model, Eigen::Vector3d(0, NAN, 0), &data),
      Catch::Contains("coordinate 1 ('q1') is nan"));
  Matrix6Xd J(6, 2);
  ForwardKinematics(model, Eigen::Vector3d::Zero(), &data);
  REQUIRE_THROWS_WITH(SiteJacobian(model, data, 0, J),
                      "SiteJacobian: J must be 6 x 3, got 6 x 2");
  REQUIRE_THROWS_WITH(SitePose(model, data, 5),
                      "SitePose: site index 5 out of range [0, 1)");
}

}  // namespace
}  // namespace iklab
