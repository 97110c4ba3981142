// The reach bound of a chain (framework/chain_reach.h) on hand-computed
// chains: planar links, a prismatic joint and its box, a floating base, a
// site that nothing moves; and as a bound, on random figures.
#include "framework/chain_reach.h"

#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "framework/builders.h"
#include "framework/figure.h"
#include "framework/kinematics.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Contains;

constexpr double kInf = std::numeric_limits<double>::infinity();

ChainReach ReachOf(const Model& model, const std::string& site) {
  return ComputeChainReach(model, model.SiteIndex(site), model.lower(),
                           model.upper());
}

// A revolute about z lifted 0.5 off the base, a link of 1 along x, a
// prismatic joint along x with travel [lo, hi], and a tool 0.3 further on.
Model RailArm(double lo, double hi) {
  Figure f("base");
  Joint turn;
  turn.name = "turn";
  turn.parent = "base";
  turn.child = "arm";
  turn.X_PJ.translation() = Eigen::Vector3d(0, 0, 0.5);
  f.AddJoint(turn);
  Joint slide;
  slide.name = "slide";
  slide.parent = "arm";
  slide.child = "carriage";
  slide.kind = JointKind::kPrismatic;
  slide.axis = Eigen::Vector3d::UnitX();
  slide.X_PJ.translation() = Eigen::Vector3d(1, 0, 0);
  slide.WithLimits(lo, hi);
  f.AddJoint(slide);
  Site tool{"tool", "carriage", Eigen::Isometry3d::Identity()};
  tool.X_LS.translation() = Eigen::Vector3d(0.3, 0, 0);
  f.AddSite(tool);
  Site plinth{"plinth", "base", Eigen::Isometry3d::Identity()};
  plinth.X_LS.translation() = Eigen::Vector3d(0.2, 0, 0.1);
  f.AddSite(plinth);
  return f.Compile();
}

TEST_CASE("The reach of a planar 3-link chain is the sum of its lengths, "
          "around its first joint",
          "[framework]") {
  const Model model =
      PlanarChain({1.5, 1.0, 0.5}, Eigen::Vector2d(2.0, 1.0)).Compile();
  const ChainReach reach = ReachOf(model, "effector");
  CHECK(reach.moves);
  CHECK(reach.unbounded.empty());
  CHECK(reach.radius == Approx(3.0).epsilon(1e-15));
  CHECK((reach.centre - Eigen::Vector3d(2.0, 1.0, 0.0)).norm() < 1e-15);
  // The site on the second link's origin: the first link only.
  CHECK(ReachOf(model, "joint1").radius == Approx(1.5).epsilon(1e-15));
}

TEST_CASE("A prismatic joint adds its largest travel within the box",
          "[framework]") {
  const Model model = RailArm(-0.2, 0.7);
  const ChainReach reach = ReachOf(model, "tool");
  CHECK(reach.moves);
  // 1 (link) + 0.7 (travel) + 0.3 (tool); the lift below the first joint
  // is part of the base.
  CHECK(reach.radius == Approx(2.0).epsilon(1e-15));
  CHECK((reach.centre - Eigen::Vector3d(0, 0, 0.5)).norm() < 1e-15);
  // A wider box (limits off, or a problem's own bounds) widens the reach.
  Eigen::VectorXd lower = model.lower(), upper = model.upper();
  lower[1] = -2.0;
  CHECK(ComputeChainReach(model, model.SiteIndex("tool"), lower, upper)
            .radius == Approx(3.3).epsilon(1e-15));
  // The bound holds at the extremes of the box.
  Data data(model);
  ForwardKinematics(model, Eigen::Vector2d(0.4, 0.7), &data);
  const Eigen::Vector3d p =
      (data.X_W(model.site_step(model.SiteIndex("tool"))) *
       model.X_FS(model.SiteIndex("tool")))
          .translation();
  CHECK((p - reach.centre).norm() == Approx(2.0).epsilon(1e-12));
}

TEST_CASE("Unbounded prismatic travel, as a floating base has, gives no "
          "finite reach",
          "[framework]") {
  const Model rail = RailArm(-kInf, 0.7);
  const ChainReach open = ReachOf(rail, "tool");
  CHECK(std::isinf(open.radius));
  CHECK_THAT(open.unbounded, Contains("'slide'"));
  CHECK_THAT(open.unbounded, Contains("unbounded travel"));

  Figure f("world");
  Joint root;
  root.name = "root";
  root.parent = "world";
  root.child = "pelvis";
  root.kind = JointKind::kFloating;
  f.AddJoint(root);
  Joint hip;
  hip.name = "hip";
  hip.parent = "pelvis";
  hip.child = "leg";
  f.AddJoint(hip);
  Site foot{"foot", "leg", Eigen::Isometry3d::Identity()};
  foot.X_LS.translation() = Eigen::Vector3d(0, 0, -0.9);
  f.AddSite(foot);
  const Model floating = f.Compile();
  const ChainReach reach = ReachOf(floating, "foot");
  CHECK(std::isinf(reach.radius));
  CHECK_THAT(reach.unbounded, Contains("root.tx"));
}

TEST_CASE("A site that no joint moves has reach 0 at its own position",
          "[framework]") {
  const Model model = RailArm(-0.2, 0.7);
  const ChainReach reach = ReachOf(model, "plinth");
  CHECK_FALSE(reach.moves);
  CHECK(reach.radius == 0.0);
  CHECK((reach.centre - Eigen::Vector3d(0.2, 0, 0.1)).norm() < 1e-15);
}

TEST_CASE("No pose of a random figure puts a site beyond its reach bound",
          "[framework]") {
  std::mt19937 rng(17);
  for (int figure = 0; figure < 20; ++figure) {
    const Model model = testing::RandomFigure(&rng).Compile();
    Data data(model);
    for (int site = 0; site < model.num_sites(); ++site) {
      const ChainReach reach =
          ComputeChainReach(model, site, model.lower(), model.upper());
      if (!reach.unbounded.empty()) continue;
      for (int k = 0; k < 20; ++k) {
        ForwardKinematics(model, testing::RandomConfiguration(model, &rng),
                          &data);
        const Eigen::Vector3d p =
            (data.X_W(model.site_step(site)) * model.X_FS(site)).translation();
        CHECK((p - reach.centre).norm() <= reach.radius * (1 + 1e-12) + 1e-12);
      }
    }
  }
}

TEST_CASE("ComputeChainReach refuses a bad site or box with the reason",
          "[framework]") {
  const Model model = RailArm(-0.2, 0.7);
  REQUIRE_THROWS_WITH(
      ComputeChainReach(model, 5, model.lower(), model.upper()),
      Contains("site index 5 out of range [0, 2)"));
  REQUIRE_THROWS_WITH(ComputeChainReach(model, 0, Eigen::VectorXd(1),
                                        model.upper()),
                      Contains("model nq = 2"));
}

}  // namespace
}  // namespace iklab
