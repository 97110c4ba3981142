// Studies with "no self-collision" in one GoalSpec: the collision setup is
// made once per model, the generating poses are collision-free, the
// clearance is a constraint value in every record, and an answer in
// collision is never counted a success (the FCL check, independent of the
// goal's closed forms).

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/random_configuration.h"
#include "framework/urdf_loader.h"
#include "lab/collision_files.h"
#include "lab/study.h"
#include "solvers/constrained/slsqp_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

struct PandaStudyFixture {
  std::string path = testing::ShippedDataFile("robots/panda.urdf");
  std::shared_ptr<const Model> model = std::make_shared<const Model>(
      LoadUrdfChain(path, "panda_link0", "panda_hand").figure.Compile());
  SelfCollisionMatrixOptions matrix_options() const {
    SelfCollisionMatrixOptions options;
    options.samples = 500;
    return options;
  }
  std::shared_ptr<const CollisionSetup> Self() const {
    return RobotCollisions(*model, path, ParseCollisionSetting("self"), false,
                           matrix_options());
  }
};

TEST_CASE("RobotCollisions makes the setup once per model and setting",
          "[lab]") {
  const PandaStudyFixture panda;
  const auto first = panda.Self();
  CHECK(panda.Self() == first);
  REQUIRE_FALSE(first->self_pairs.empty());
  CHECK(first->self_pairs == first->matrix.EnabledPairs());
  // Another sample count is another matrix.
  SelfCollisionMatrixOptions other = panda.matrix_options();
  other.samples = 200;
  CHECK(RobotCollisions(*panda.model, panda.path,
                        ParseCollisionSetting("self"), false, other) != first);
}

TEST_CASE("RobotCollisions loads a stored self-collision matrix",
          "[lab]") {
  const PandaStudyFixture panda;
  const auto computed = panda.Self();
  const std::string file = testing::ScratchPath("panda_matrix.json").string();
  WriteSelfCollisionMatrix(computed->matrix, file);
  const auto loaded =
      RobotCollisions(*panda.model, panda.path, ParseCollisionSetting("self"),
                      false, panda.matrix_options(), file);
  CHECK(loaded != computed);
  CHECK(loaded->self_pairs == computed->self_pairs);
  CHECK(loaded->matrix.samples == computed->matrix.samples);
}

TEST_CASE("A collision-free GoalSpec draws collision-free generating poses "
          "and adds the collision constraint",
          "[lab]") {
  const PandaStudyFixture panda;
  const auto setup = panda.Self();
  const Scenario scenario = RandomTargets(
      {GoalSpec::Pose("panda_hand"), GoalSpec::CollisionFree(setup)});
  int clear_draws = 0;
  std::mt19937_64 plain(3);
  for (int k = 0; k < 200; ++k) {
    clear_draws += MinDistanceFcl(*panda.model, *setup,
                                  RandomConfiguration(*panda.model, &plain)) >= 0.0;
  }
  // Without the rejection some random poses collide, so the check
  // below tests something.
  CHECK(clear_draws < 200);
  for (int k = 0; k < 20; ++k) {
    std::mt19937_64 rng(k);
    TrialContext context;
    context.model = panda.model;
    context.index = k;
    context.rng = &rng;
    const Trial trial = scenario(context);
    CHECK(MinDistanceFcl(*panda.model, *setup, trial.q_generator) >= 0.0);
    CHECK(trial.problem.goals().size() == 1);
    REQUIRE(trial.problem.inequality_constraints().size() == 1);
    CHECK(trial.problem.inequality_constraints()[0]->name() == "shape_collision");
  }
}

TEST_CASE("A study with a collision-free GoalSpec shows the clearance and "
          "counts no colliding answer as a success",
          "[lab]") {
  const PandaStudyFixture panda;
  Study study;
  study.name = "panda-self-collision";
  study.model = panda.model;
  study.goals = {GoalSpec::Position("panda_hand"),
                 GoalSpec::CollisionFree(panda.Self())};
  study.solvers = {Use("slsqp", SlsqpOptions{}, 3)};
  study.trials = 6;
  study.time_budget_seconds = 0.0;
  study.position_tolerance = 1e-4;
  const StudyResult result = RunStudy(study);
  REQUIRE(result.constraints.size() == 1);
  CHECK(result.constraints[0].inequality);
  REQUIRE(result.constraints[0].quantity_names ==
          std::vector<std::string>{"min_distance"});
  int successes = 0;
  for (const StudyRecord& r : result.records) {
    REQUIRE(r.constraints.size() == 1);
    REQUIRE(r.constraints[0].values.size() == 1);
    const double shown = r.constraints[0].values[0];
    CHECK(shown == Approx(MinDistanceFcl(*panda.model, *panda.Self(), r.q))
                       .margin(1e-6));
    if (r.verified) {
      ++successes;
      CHECK(shown >= -study.position_tolerance);
    }
  }
  CHECK(successes >= 4);
}

TEST_CASE("A study's success refuses an answer in collision even when the "
          "collision goal has no weight",
          "[lab]") {
  // The penalty form with weight 0 and a 5 cm clearance: L-BFGS-B reaches
  // the position and ignores the collisions, so some answers come closer
  // than 5 cm; those must fail the study's check while the others pass.
  const PandaStudyFixture panda;
  Study study;
  study.name = "panda-unaware";
  study.model = panda.model;
  study.goals = {GoalSpec::Position("panda_hand"),
                 GoalSpec::CollisionFree(panda.Self(), /*clearance=*/0.05,
                                         /*hard=*/false, /*weight=*/0.0)};
  study.solvers = {Use("lbfgsb", LbfgsbOptions{})};
  study.trials = 100;
  study.time_budget_seconds = 0.0;
  study.position_tolerance = 1e-4;
  const StudyResult result = RunStudy(study);
  int colliding = 0, clear_successes = 0;
  for (const StudyRecord& r : result.records) {
    const double d = MinDistanceFcl(*panda.model, *panda.Self(), r.q);
    if (d < 0.05 - study.position_tolerance) {
      ++colliding;
      CHECK_FALSE(r.verified);
    } else if (r.verified) {
      ++clear_successes;
    }
  }
  CHECK(colliding >= 1);
  CHECK(clear_successes >= 50);
}

TEST_CASE("A collision GoalSpec without a setup, nested, or with a negative "
          "clearance is refused with its field named",
          "[lab]") {
  const PandaStudyFixture panda;
  Study study;
  study.name = "bad";
  study.model = panda.model;
  study.solvers = {Use("lbfgsb", LbfgsbOptions{})};
  study.goals = {GoalSpec::CollisionFree(nullptr)};
  CHECK_THROWS_WITH(study.Validate(), Catch::Contains("collisions is null"));
  study.goals = {GoalSpec::CollisionFree(panda.Self(), -0.1)};
  CHECK_THROWS_WITH(study.Validate(),
                    Catch::Contains("clearance must be finite and >= 0"));
  study.goals = {GoalSpec::WeightedSum(
      {GoalSpec::Position("panda_hand"), GoalSpec::CollisionFree(panda.Self())})};
  CHECK_THROWS_WITH(study.Validate(),
                    Catch::Contains("cannot be a part of a sum"));
}

}  // namespace
}  // namespace iklab
