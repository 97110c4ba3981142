// A solver whose Prepare pays the first-solve cost (bounded LM, Tolani, the
// 6R closed form) calls it from its first Solve when nobody did: the answers
// are those of a prepared instance, and first solves racing on one instance
// from several threads are safe (Prepare's own warm-up solve does not
// recurse into another Prepare).
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/urdf_loader.h"
#include "solvers/analytic/six_r_solver.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

struct Arm {
  std::shared_ptr<const Model> model;
  std::string tip;
};

Arm ShippedArm(const std::string& file, const std::string& base,
               const std::string& tip) {
  return {std::make_shared<const Model>(
              LoadUrdfChain(testing::ShippedDataFile("robots/" + file), base, tip)
                  .figure.Compile()),
          tip};
}

// A reachable pose goal: the tip at a configuration inside the limits.
Problem ReachablePose(const Arm& arm, double fraction) {
  const Eigen::VectorXd q =
      arm.model->lower() + fraction * (arm.model->upper() - arm.model->lower());
  Problem problem(arm.model);
  const int site = arm.model->SiteIndex(arm.tip);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *arm.model, arm.tip, ReferenceSitePose(*arm.model, site, q)));
  return problem;
}

template <typename SolverT>
void CheckFirstSolves(const Arm& arm) {
  const Problem problem = ReachablePose(arm, 0.4);
  const Eigen::VectorXd seed = arm.model->MidLimits();
  const SolverT prepared;
  prepared.Prepare(problem);
  const Result expected = prepared.Solve(problem, seed);
  REQUIRE(expected.status == SolveStatus::kConverged);

  const SolverT cold;  // its first Solve prepares
  const Result first = cold.Solve(problem, seed);
  CHECK(first.q == expected.q);
  CHECK(first.iterations == expected.iterations);
  CHECK(first.function_evaluations == expected.function_evaluations);

  const SolverT shared;  // first solves from four threads at once
  std::vector<Result> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { results[t] = shared.Solve(problem, seed); });
  }
  for (std::thread& t : threads) t.join();
  for (const Result& r : results) CHECK(r.q == expected.q);
}

TEST_CASE("A solver's first Solve without Prepare prepares, with the answers "
          "of a prepared solver, from any number of threads",
          "[solvers]") {
  SECTION("bounded LM") {
    CheckFirstSolves<BoundedLmSolver>(
        ShippedArm("panda.urdf", "panda_link0", "panda_hand"));
  }
  SECTION("Tolani") {
    CheckFirstSolves<TolaniLimbSolver>(
        ShippedArm("iiwa14.urdf", "base", "iiwa_link_ee"));
  }
  SECTION("6R closed form") {
    CheckFirstSolves<SixRAnalyticSolver>(
        ShippedArm("ur5.urdf", "base_link", "ee_link"));
  }
}

}  // namespace
}  // namespace iklab
