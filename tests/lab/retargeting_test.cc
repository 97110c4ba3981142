#include "lab/retargeting.h"

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/bvh_loader.h"
#include "framework/kinematics.h"
#include "lab/walk_cycle.h"
#include "solvers/optimization/bounded_lm_solver.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

BoundedLmSolver RetargetSolver(double tolerance) {
  BoundedLmOptions lm;
  lm.common.position_tolerance = tolerance;
  lm.common.max_iterations = 10000;
  lm.common.time_budget_seconds = 0.0;
  lm.max_attempts = 1;
  return BoundedLmSolver(lm);
}

TEST_CASE(
    "Retargeting the walk's End Sites onto its own skeleton puts every "
    "effector on its target, frame after frame",
    "[lab][retargeting]") {
  WalkCycleOptions options;
  options.frames = 12;
  const BvhFigure walk = WalkCycle(options);
  const auto model = std::make_shared<const Model>(walk.figure.Compile());
  const std::vector<std::string> sites = EndSiteNames(walk);
  CHECK(sites == std::vector<std::string>{"LeftToe_End", "RightToe_End",
                                          "Head_End", "LeftWrist_End",
                                          "RightWrist_End"});
  std::vector<int> frames;
  for (int f = 0; f < walk.num_frames(); ++f) frames.push_back(f);
  const auto targets = EffectorTargets(*model, walk.poses, frames, sites);
  REQUIRE(targets.size() == frames.size());
  const double tolerance = 1e-4;  // cm
  const RetargetRun run =
      Retarget(model, sites, frames, targets, RetargetSolver(tolerance),
               Eigen::VectorXd::Zero(model->nq()));
  REQUIRE(run.frames.size() == frames.size());
  Data data(*model);
  for (std::size_t f = 0; f < frames.size(); ++f) {
    INFO("frame " << f);
    CHECK(run.frames[f].converged);
    CHECK(run.frames[f].max_error <= tolerance);
    // The reported error is the solution's: recompute it.
    ForwardKinematics(*model, run.q[f], &data);
    double worst = 0.0;
    for (std::size_t s = 0; s < sites.size(); ++s) {
      worst = std::max(worst,
                       (SitePosition(*model, data, model->SiteIndex(sites[s])) -
                        targets[f][s])
                           .norm());
    }
    CHECK(worst == Approx(run.frames[f].max_error).margin(1e-12));
  }
  // Warm start: after the first frame the solves are short.
  CHECK(run.frames.back().iterations < run.frames.front().iterations);
}

TEST_CASE(
    "A scaled skeleton keeps the joint names and coordinates and scales the "
    "bones",
    "[lab][retargeting]") {
  const BvhFigure walk = WalkCycle();
  const BvhFigure same = ScaledSkeleton(walk, [](int) { return 1.0; });
  const BvhFigure tall = ScaledSkeleton(walk, [](int) { return 1.1; });
  REQUIRE(tall.joints.size() == walk.joints.size());
  const Model a = walk.figure.Compile(), b = tall.figure.Compile(),
              c = same.figure.Compile();
  REQUIRE(a.nq() == b.nq());
  Data da(a), db(b), dc(c);
  const Eigen::VectorXd q = walk.poses.row(100).transpose();
  ForwardKinematics(a, q, &da);
  ForwardKinematics(b, q, &db);
  ForwardKinematics(c, q, &dc);
  const auto length = [](const Model& m, const Data& d, const char* from,
                         const char* to) {
    return (SitePosition(m, d, m.SiteIndex(to)) -
            SitePosition(m, d, m.SiteIndex(from)))
        .norm();
  };
  CHECK(length(b, db, "LeftKnee", "LeftAnkle") ==
        Approx(1.1 * length(a, da, "LeftKnee", "LeftAnkle")));
  CHECK((SitePosition(a, da, a.SiteIndex("Head_End")) -
         SitePosition(c, dc, c.SiteIndex("Head_End")))
            .norm() < 1e-12);
}

TEST_CASE("Retargeting names an unknown effector and lists the sites",
          "[lab][retargeting]") {
  const BvhFigure walk = WalkCycle();
  const Model model = walk.figure.Compile();
  REQUIRE_THROWS_WITH(
      EffectorTargets(model, walk.poses, {0}, {"LeftHand"}),
      Contains("effector 'LeftHand' is not a site of the skeleton; its sites "
               "(joints and End Sites) are: Hips, "));
  REQUIRE_THROWS_WITH(EffectorTargets(model, walk.poses, {100000}, {"Hips"}),
                      Contains("frame 100000 is not a row of poses"));
}

TEST_CASE("Retargeting a skeleton without channels: targets at its rest "
          "pose, and no solve",
          "[lab][retargeting]") {
  // A BVH may name no channel at all: its frames are then rows of no values
  // (no row of them can be viewed), and every frame is the rest pose.
  const BvhFigure still = LoadBvhFromString(R"(HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  JOINT Leg
  {
    OFFSET 0 -5 0
    End Site
    {
      OFFSET 1 -5 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.03
)",
                                            "still.bvh");
  const auto model = std::make_shared<const Model>(still.figure.Compile());
  REQUIRE(model->nq() == 0);
  REQUIRE(still.poses.rows() == 2);
  const auto targets =
      EffectorTargets(*model, still.poses, {0, 1}, {"Leg_End"});
  REQUIRE(targets.size() == 2);
  for (const auto& frame : targets) {
    CHECK(frame.at(0).isApprox(Eigen::Vector3d(1.0, -10.0, 0.0), 1e-15));
  }
  const BoundedLmSolver solver = RetargetSolver(1e-6);
  REQUIRE_THROWS_WITH(
      Retarget(model, {"Leg_End"}, {0, 1}, targets, solver, Eigen::VectorXd()),
      Contains("Retarget: the skeleton has no coordinates to solve for"));
}

}  // namespace
}  // namespace iklab
