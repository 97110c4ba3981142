// The solver registry: one entry per solver, every front end's names from it,
// and each registered factory making a working solver of that name.

#include "solvers/registry.h"

#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "lab/study.h"
#include "reach/reach_map.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("Registry: unique names, families grouped in catalogue order",
          "[registry]") {
  const std::vector<SolverEntry>& registry = SolverRegistry();
  REQUIRE(registry.size() == 19);
  std::set<std::string> names;
  int previous_family = -1;
  for (const SolverEntry& e : registry) {
    INFO(e.name);
    CHECK(names.insert(e.name).second);
    CHECK_FALSE(e.summary.empty());
    CHECK_FALSE(e.accepts.empty());
    CHECK_FALSE(e.reference.empty());
    REQUIRE(e.make);
    std::string why;
    CHECK(e.defaults.IsValid(&why));
    // Each family is one block, in the enum's (the catalogue's) order.
    CHECK(static_cast<int>(e.family) >= previous_family);
    previous_family = static_cast<int>(e.family);
    // The solver a factory makes reports the entry's name in its results.
    CHECK(e.make(e.defaults)->name() == e.name);
    CHECK(FindSolver(e.name) == &e);
    // Only the analytic solvers say which arms they take.
    CHECK(static_cast<bool>(e.not_applicable) ==
          (e.family == SolverFamily::kAnalytic && e.name != "two-link"));
    // Differential methods get 500 iterations, the others their Options'.
    if (e.family == SolverFamily::kDifferential) {
      CHECK(e.defaults.max_iterations == 500);
    }
  }
  CHECK(SolverNamed("bounded-lm").defaults.max_iterations ==
        BoundedLmOptions{}.common.max_iterations);
  CHECK(SolverNamed("lbfgsb").defaults.max_iterations ==
        LbfgsbOptions{}.common.max_iterations);
  CHECK(SolverNamed("tolani").defaults.max_iterations ==
        TolaniLimbOptions{}.common.max_iterations);
  CHECK(SolverNamed("ipopt").hard_constraints);
  CHECK(SolverNamed("slsqp").hard_constraints);
  CHECK_FALSE(SolverNamed("lbfgsb").hard_constraints);
  CHECK(SolverNamed("bounded-lm").own_restarts);
  CHECK_FALSE(SolverNamed("ceres-lm").own_restarts);
}

TEST_CASE("Registry: an unknown name is refused with the known ones",
          "[registry]") {
  CHECK(FindSolver("no-such-solver") == nullptr);
  CHECK_THROWS_WITH(MakeSolver("no-such-solver"),
                    Contains("no solver named 'no-such-solver'") &&
                        Contains("bounded-lm") && Contains("tolani"));
  CHECK_THROWS_AS(Solvers({"dls", "Dls"}), std::invalid_argument);
  CHECK(SolverNames(",").find("lbfgsb,ceres-lm,ceres-dogleg,bounded-lm") == 0);
}

TEST_CASE("Registry: MakeSolver with common settings uses them",
          "[registry]") {
  SolveOptions common;
  common.max_iterations = 1;
  auto model = std::make_shared<const Model>(ParentArm().Compile());
  Problem problem(model);
  problem.AddGoal(
      std::make_shared<PositionGoal>(*model, "effector", Eigen::Vector3d(-20, 5, 0)));
  const Eigen::VectorXd q0 = Eigen::Vector3d(M_PI / 8, M_PI / 4, M_PI / 4);
  // One iteration is not enough from Parent's start; the defaults are.
  const Result one = MakeSolver("dls", common)->Solve(problem, q0);
  CHECK(one.status == SolveStatus::kMaxIterations);
  CHECK(one.iterations == 1);
  const Result many = MakeSolver("dls")->Solve(problem, q0);
  CHECK(many.status == SolveStatus::kConverged);
}

// Every registered solver on the planar two-link arm (lengths 15, 10) and a
// reachable position goal: the general solvers and the two-link closed form
// converge; the analytic solvers of other shapes refuse the arm and say why.
TEST_CASE("Registry: every solver solves or refuses a two-link arm goal",
          "[registry]") {
  auto model = std::make_shared<const Model>(PlanarChain({15, 10}).Compile());
  Problem problem(model);
  const Eigen::Vector3d target(12, 14, 0);  // |target| = 18.4, in [5, 25]
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "effector", target));
  const Eigen::VectorXd q0 = Eigen::Vector2d(0.3, 0.6);
  for (const StudySolver& s : EverySolver()) {
    INFO(s.label);
    const Result r = s.make(SolverNamed(s.label).defaults, Trial(model))
                         ->Solve(problem, q0);
    if (s.label == "tolani" || s.label == "analytic-6r") {
      CHECK(r.status == SolveStatus::kInvalidInput);
      CHECK_FALSE(r.message.empty());
      continue;
    }
    CHECK(r.status == SolveStatus::kConverged);
    Data data(*model);
    ForwardKinematics(*model, r.q, &data);
    CHECK((SitePosition(*model, data, model->SiteIndex("effector")) - target)
              .norm() < 1e-5);
  }
}

// A problem with no goals and no constraints has nothing to solve: every
// solver returns the start pose as converged (damped least squares used to
// crash on the 0-row Jacobian).
TEST_CASE("Registry: every solver returns the start of a problem with no goals",
          "[registry]") {
  auto model = std::make_shared<const Model>(PlanarChain({15, 10}).Compile());
  const Problem problem(model);
  const Eigen::VectorXd q0 = Eigen::Vector2d(0.3, 0.6);
  for (const StudySolver& s : EverySolver()) {
    INFO(s.label);
    const Result r = s.make(SolverNamed(s.label).defaults, Trial(model))
                         ->Solve(problem, q0);
    CHECK(r.status == SolveStatus::kConverged);
    CHECK(r.q == q0);
    CHECK_THAT(r.message, Contains("no goals"));
  }
}

TEST_CASE("Registry: the benchmark, reach and studies use the registry's names",
          "[registry]") {
  for (const BenchmarkSolver& b : PoseSolvers()) {
    INFO(b.name);
    const std::string name = b.name.substr(0, b.name.find('+'));
    CHECK(FindSolver(name) != nullptr);
  }
  for (ReachSolverKind kind :
       {ReachSolverKind::kBoundedLm, ReachSolverKind::kAnalytic6r}) {
    CHECK(FindSolver(ReachSolverName(kind)) != nullptr);
    CHECK(ReachSolverFromName(ReachSolverName(kind)) == kind);
  }
  CHECK_THROWS_WITH(ReachSolverFromName("lbfgsb"),
                    Contains("must be auto, bounded-lm or analytic-6r"));
  const std::vector<StudySolver> every = EverySolver();
  REQUIRE(every.size() == SolverRegistry().size());
  for (std::size_t i = 0; i < every.size(); ++i) {
    CHECK(every[i].label == SolverRegistry()[i].name);
  }
}

TEST_CASE("Registry: analytic solvers name the arms they take", "[registry]") {
  const auto chain = [](const std::string& file, const char* base,
                        const char* tip) {
    return std::make_shared<const Model>(
        LoadUrdfChain(testing::ShippedDataFile("robots/" + file), base, tip)
            .figure.Compile());
  };
  const auto iiwa = chain("iiwa14.urdf", "base", "iiwa_link_ee");
  const auto ur5 = chain("ur5.urdf", "base_link", "ee_link");
  const SolverEntry& tolani = SolverNamed("tolani");
  const SolverEntry& six_r = SolverNamed("analytic-6r");
  const int iiwa_tip = iiwa->SiteIndex("iiwa_link_ee");
  const int ur5_tip = ur5->SiteIndex("ee_link");
  CHECK(tolani.not_applicable(*iiwa, iiwa_tip).empty());
  CHECK_FALSE(tolani.not_applicable(*ur5, ur5_tip).empty());
  CHECK(six_r.not_applicable(*ur5, ur5_tip).empty());
  CHECK_FALSE(six_r.not_applicable(*iiwa, iiwa_tip).empty());
}

}  // namespace
}  // namespace iklab
