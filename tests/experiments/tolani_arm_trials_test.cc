// The arm trials of the Tolani Tables 4–7 (experiments/tolani/arm_trials.h)
// on an arm other than the paper's: the KUKA iiwa14 read as an SRS arm, its
// random goals reachable by an independent FK and by the analytic solver,
// its unreachable goals out of reach, the paper's error measures on known
// motions, and ArmSetup's errors for arms it cannot take.
#include "experiments/tolani/arm_trials.h"

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using tolani::ArmSetup;
using tolani::Task;

TEST_CASE("The iiwa14 arm set-up has the URDF's shoulder, segments, reach "
          "and tool axis",
          "[experiments]") {
  const ArmSetup arm = ArmSetup::Iiwa14();
  // Shoulder centre 0.1575 + 0.2025 above the base; 0.42 m upper arm, 0.4 m
  // forearm, wrist centre to iiwa_link_ee 0.081 + 0.045 m (iiwa14.urdf).
  CHECK((arm.Shoulder() - Eigen::Vector3d(0, 0, 0.36)).norm() < 1e-12);
  CHECK(arm.reach == Approx(0.42 + 0.4 + 0.126).margin(1e-12));
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(7);
  const std::array<Eigen::Vector3d, 4> points = arm.ChainPoints(zero);
  const double heights[] = {0.36, 0.78, 1.18, 1.306};
  for (int k = 0; k < 4; ++k) {
    INFO(k);
    CHECK((points[k] - Eigen::Vector3d(0, 0, heights[k])).norm() < 1e-12);
  }
  // Stretched upright, the tool axis points straight up, away from the
  // wrist.
  const Eigen::Isometry3d X = arm.HandPose(zero);
  CHECK((X.linear() * arm.aim_axis - Eigen::Vector3d::UnitZ()).norm() < 1e-12);
  CHECK((X.linear() * arm.partial_axis - Eigen::Vector3d::UnitZ()).norm() <
        1e-12);
}

TEST_CASE("The human arm set-up keeps the anthropometric reach and "
          "shoulder",
          "[experiments]") {
  const ArmSetup arm = ArmSetup::HumanArm();
  const LimbGeometry g = TolaniArmGeometry();
  CHECK(arm.reach ==
        g.upper_length + g.lower_length + g.p_S2_tip.norm());
  Data data(*arm.model);
  std::mt19937_64 rng(3);
  const Eigen::VectorXd q = arm.RandomPose(&rng);
  ForwardKinematics(*arm.model, q, &data);
  CHECK((arm.Shoulder() -
         SitePosition(*arm.model, data, arm.model->SiteIndex(g.s1_name)))
            .norm() < 1e-12);
  CHECK((arm.ChainPoints(q)[1] -
         SitePosition(*arm.model, data, arm.model->SiteIndex(g.f_name)))
            .norm() < 1e-12);
  CHECK((arm.WristAngles(q) - q.tail<3>()).norm() == 0.0);
}

TEST_CASE("Random iiwa14 goals are the independent FK of a pose within the "
          "limits, and the analytic solver reaches each one within them",
          "[experiments]") {
  const ArmSetup arm = ArmSetup::Iiwa14();
  std::mt19937_64 rng(11);
  Problem problem(arm.model);
  auto goal = std::make_shared<PositionOrientationGoal>(
      *arm.model, arm.site_name, Eigen::Isometry3d::Identity());
  problem.AddGoal(goal);
  const TolaniLimbSolver analytic;
  for (int k = 0; k < 200; ++k) {
    INFO("trial " << k);
    const tolani::Trial trial = arm.RandomTrial(&rng);
    REQUIRE(arm.model->WithinLimits(trial.q_goal, 0.0));
    REQUIRE(arm.model->WithinLimits(trial.q_start, 0.0));
    const Eigen::Isometry3d reference =
        ReferenceSitePose(*arm.model, arm.site, trial.q_goal);
    REQUIRE((reference.matrix() - trial.goal.matrix()).norm() < 1e-12);
    goal->set_target(trial.goal);
    const Result r = analytic.Solve(problem, trial.q_start);
    REQUIRE(r.status == SolveStatus::kConverged);
    const Verification v =
        Verify(*arm.model, arm.site, r.q, trial.goal, 1e-9);
    CHECK(v.success);
    CHECK(v.within_limits);
  }
}

TEST_CASE("On the iiwa14 the trial runner reports no analytic failure on "
          "reachable goals for every task, limits off and on",
          "[experiments]") {
  const ArmSetup arm = ArmSetup::Iiwa14();
  for (const Task task :
       {Task::kPosition, Task::kPose, Task::kPartial, Task::kAiming}) {
    for (const bool limits : {false, true}) {
      INFO("task " << static_cast<int>(task) << ", limits " << limits);
      std::mt19937_64 rng(100 + 10 * static_cast<int>(task) + limits);
      std::vector<tolani::Trial> trials;
      for (int k = 0; k < 40; ++k) trials.push_back(arm.RandomTrial(&rng));
      // methods[0] is the analytic method.
      const std::vector<tolani::Method> methods = {
          tolani::Methods(arm, task, limits, false).front()};
      REQUIRE(methods[0].family == tolani::Family::kAnalytic);
      const Study study =
          tolani::TableStudy(arm, task, trials, methods, limits);
      const StudyResult result = RunStudy(study);
      const std::vector<tolani::Outcome> outcomes =
          tolani::Outcomes(arm, task, trials, result, 0, limits);
      REQUIRE(outcomes.size() == trials.size());
      for (const tolani::Outcome& o : outcomes) {
        CHECK(o.status == SolveStatus::kConverged);
        CHECK(o.success);
      }
      CHECK(tolani::Summarize(outcomes).failure_percent == 0.0);
    }
  }
}

TEST_CASE("Unreachable iiwa14 goals lie beyond the reach and are not "
          "solved",
          "[experiments]") {
  const ArmSetup arm = ArmSetup::Iiwa14();
  std::mt19937_64 rng(5);
  const std::vector<tolani::Method> analytic = {
      tolani::Methods(arm, Task::kPose, true, false).front()};
  std::vector<tolani::Trial> trials;
  for (int k = 0; k < 20; ++k) {
    trials.push_back(arm.UnreachableTrial(&rng));
    const double d = (trials.back().goal.translation() - arm.Shoulder()).norm();
    CHECK(d >= 1.1 * arm.reach - 1e-12);
    CHECK(d <= 1.4 * arm.reach + 1e-12);
  }
  const StudyResult result = RunStudy(
      tolani::TableStudy(arm, Task::kPose, trials, analytic, true));
  for (const tolani::Outcome& o :
       tolani::Outcomes(arm, Task::kPose, trials, result, 0, true)) {
    // The site is out of reach; the wrist centre may not be (the tool can
    // point back toward the shoulder), and then the limits are what stop it.
    CHECK((o.status == SolveStatus::kUnreachable ||
           o.status == SolveStatus::kLimitsInfeasible));
    CHECK_FALSE(o.success);
    CHECK(o.position_error >= 0.1 * arm.reach - 1e-9);
  }
}

TEST_CASE("The paper's error measures on the iiwa14: zero at the goal, a "
          "turn about the tool axis costs only the full orientation",
          "[experiments]") {
  const ArmSetup arm = ArmSetup::Iiwa14();
  std::mt19937_64 rng(8);
  const tolani::Trial trial = arm.RandomTrial(&rng);
  for (const Task task :
       {Task::kPosition, Task::kPose, Task::kPartial, Task::kAiming}) {
    const tolani::Outcome o =
        tolani::Evaluate(arm, task, trial, trial.q_goal, true);
    CHECK(o.position_error < 1e-15);
    CHECK(o.angle < 1e-7);
    CHECK(o.success);
  }
  // Joint 7 turns about the tool axis, which passes through the site.
  constexpr double kTurn = 0.01;
  Eigen::VectorXd q = trial.q_goal;
  q[6] += kTurn;
  const tolani::Outcome pose = tolani::Evaluate(arm, Task::kPose, trial, q,
                                                false);
  CHECK(pose.position_error < 1e-12);
  CHECK(pose.angle == Approx(kTurn).epsilon(1e-9));
  // 1 − |q_goal · q| = 1 − cos(δ/2).
  CHECK(pose.orientation_error ==
        Approx(1.0 - std::cos(kTurn / 2)).epsilon(1e-6));
  CHECK_FALSE(pose.success);
  for (const Task task : {Task::kPartial, Task::kAiming}) {
    const tolani::Outcome o = tolani::Evaluate(arm, task, trial, q, false);
    CHECK(o.angle < 1e-9);
    CHECK(o.success);
  }
  // A turn of the wrist's middle joint tilts the tool axis: partial
  // orientation and aiming fail.
  q = trial.q_goal;
  q[5] += kTurn;
  for (const Task task : {Task::kPartial, Task::kAiming}) {
    CHECK_FALSE(tolani::Evaluate(arm, task, trial, q, false).success);
  }
}

TEST_CASE("ArmSetup refuses arms it cannot run, naming what is wrong",
          "[experiments]") {
  const auto ur5 = std::make_shared<const Model>(
      LoadUrdfChain(testing::ShippedDataFile("robots/ur5.urdf"), "base_link",
                    "ee_link")
          .figure.Compile());
  REQUIRE_THROWS_WITH(
      ArmSetup("ur5", "", ur5, "ee_link", Eigen::Vector3d::UnitX(),
               Eigen::Vector3d::UnitX()),
      Contains("is not an SRS arm at site 'ee_link'"));
  const auto human = std::make_shared<const Model>(HumanFigure().Compile());
  REQUIRE_THROWS_WITH(
      ArmSetup("human", "", human, "left_hand", Eigen::Vector3d::UnitX(),
               Eigen::Vector3d::UnitX()),
      Contains("must have exactly the arm's 7 coordinates"));
  const ArmSetup iiwa = ArmSetup::Iiwa14();
  REQUIRE_THROWS_WITH(
      ArmSetup("iiwa14", "", iiwa.model, "iiwa_link_ee",
               Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitX()),
      Contains("partial_axis must be a unit vector"));
  REQUIRE_THROWS_WITH(
      ArmSetup("iiwa14", "", iiwa.model, "iiwa_link_ee",
               Eigen::Vector3d::UnitX(), 2.0 * Eigen::Vector3d::UnitX()),
      Contains("aim_axis must be a unit vector"));
  REQUIRE_THROWS_WITH(
      ArmSetup("iiwa14", "", iiwa.model, "no_such_site",
               Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitX()),
      Contains("no_such_site"));
}

}  // namespace
}  // namespace iklab
