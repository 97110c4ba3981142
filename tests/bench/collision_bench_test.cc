// The benchmark protocol with self-collision: collision-free targets, every
// answer of bounded LM collision-free by the independent check, and the
// independent check refusing a colliding answer the pose check accepts.

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "framework/kinematics.h"
#include "framework/random_configuration.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

struct PandaWithCollisions {
  std::shared_ptr<const Model> model;
  int site = -1;
  std::shared_ptr<const CollisionSetup> setup;
};

PandaWithCollisions LoadPanda() {
  const std::string path = testing::ShippedDataFile("robots/panda.urdf");
  PandaWithCollisions p;
  p.model = std::make_shared<const Model>(
      LoadUrdfChain(path, "panda_link0", "panda_hand").figure.Compile());
  p.site = p.model->SiteIndex("panda_hand");
  SelfCollisionMatrixOptions options;
  options.samples = 1000;
  p.setup = std::make_shared<CollisionSetup>(MakeCollisionSetup(
      ParseCollisionSetting("self"), *p.model, path, false, options));
  return p;
}

TEST_CASE("The independent collision check refuses a colliding answer that "
          "the pose check accepts",
          "[bench]") {
  const PandaWithCollisions panda = LoadPanda();
  const Model& model = *panda.model;
  std::mt19937_64 rng(5);
  Data data(model);
  int colliding = 0;
  for (int k = 0; k < 1000 && colliding < 5; ++k) {
    const Eigen::VectorXd q = RandomConfiguration(model, &rng);
    const double d = IndependentMinDistance(model, *panda.setup, q);
    // The goal's own distances (closed form for the capsules, the solver's
    // FK) agree with the check's (FCL, reference FK) when apart; overlapping,
    // FCL's depth for capsules is EPA's approximation
    // (constraints/shape_distance.h), so only the verdict must agree.
    ForwardKinematics(model, q, &data);
    const double goal_d =
        panda.setup->MakeGoal(model)->Distances(model, data).minCoeff();
    if (d > 1e-6) {
      CHECK(goal_d == Approx(d).margin(1e-6));
    } else {
      CHECK(goal_d < 1e-6);
    }
    if (d >= 0.0) continue;
    ++colliding;
    const Eigen::Isometry3d target = SitePose(model, data, panda.site);
    CHECK(Verify(model, panda.site, q, target, 1e-5).success);
    const Verification checked =
        Verify(model, panda.site, q, target, 1e-5, panda.setup.get());
    CHECK(checked.min_distance == Approx(d));
    CHECK_FALSE(checked.success);
  }
  CHECK(colliding >= 1);
}

TEST_CASE("Bounded LM with the self-collision goal reaches every "
          "collision-free target of the Panda, verified independently",
          "[bench]") {
  const PandaWithCollisions panda = LoadPanda();
  const std::vector<BenchmarkTarget> targets =
      GenerateTargets(*panda.model, panda.site, 40, 3, SeedMode::kRandom, 1,
                      panda.setup.get());
  BenchmarkSettings settings;
  settings.time_budget_seconds = 1.0;
  settings.collisions = panda.setup;
  const BenchmarkSolver* bounded_lm = nullptr;
  const std::vector<BenchmarkSolver> solvers = PoseSolvers();
  for (const BenchmarkSolver& s : solvers) {
    if (s.name == "bounded-lm") bounded_lm = &s;
  }
  REQUIRE(bounded_lm != nullptr);
  REQUIRE(bounded_lm->make_with_goals);
  const std::vector<TargetOutcome> outcomes =
      RunTargets(panda.model, panda.site, targets, *bounded_lm, settings);
  REQUIRE(outcomes.size() == targets.size());
  for (const TargetOutcome& o : outcomes) {
    CHECK(o.status == SolveStatus::kConverged);
    CHECK(o.success);
    CHECK(o.check.min_distance >= -1e-5);
    CHECK(IndependentMinDistance(*panda.model, *panda.setup, o.q) >= -1e-5);
  }
}

}  // namespace
}  // namespace iklab
