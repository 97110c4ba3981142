// Behaviour every optimization solver shares (run on L-BFGS-B and on both
// Ceres methods): reaching, best effort when out of reach, limits, bad input,
// trace, time and iteration caps, status reconciliation.
#include "solvers/solver.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/bounds.h"
#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "constraints/regularizers.h"
#include "solvers/batch_solve.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/internal/solve_scope.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "solvers/restarts.h"
#include "tests/allocation_counter.h"
#include "tests/solvers/test_arms.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using testing::kPi;

std::vector<std::shared_ptr<const Solver>> OptimizationSolvers(
    const SolveOptions& common = {}) {
  LbfgsbOptions lbfgsb;
  lbfgsb.common = common;
  CeresOptions lm;
  lm.common = common;
  CeresOptions dogleg = lm;
  dogleg.method = CeresOptions::Method::kDogleg;
  return {std::make_shared<LbfgsbSolver>(lbfgsb),
          std::make_shared<CeresSolver>(lm),
          std::make_shared<CeresSolver>(dogleg)};
}

Problem PositionProblem(std::shared_ptr<const Model> model,
                        const std::string& site,
                        const Eigen::Vector3d& target) {
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, site, target));
  return problem;
}

Eigen::Vector3d TipAt(const Model& model, const Eigen::VectorXd& q) {
  return testing::SitePoseAt(model, "tip", q).translation();
}

TEST_CASE("SolveStatusName names every status", "[solvers]") {
  CHECK(std::string(SolveStatusName(SolveStatus::kConverged)) == "converged");
  CHECK(std::string(SolveStatusName(SolveStatus::kLocalMinimum)) ==
        "local minimum");
  CHECK(std::string(SolveStatusName(SolveStatus::kUnreachable)) ==
        "unreachable");
  CHECK(std::string(SolveStatusName(SolveStatus::kLimitsInfeasible)) ==
        "limits infeasible");
  CHECK(std::string(SolveStatusName(SolveStatus::kInvalidInput)) ==
        "invalid input");
  CHECK(std::string(SolveStatusName(SolveStatus::kNotSolved)) == "not solved");
}

TEST_CASE("SolveOptions::IsValid rejects out-of-range fields with a reason",
          "[solvers]") {
  std::string why;
  CHECK(SolveOptions().IsValid(&why));
  SolveOptions o;
  o.max_iterations = 0;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("max_iterations"));
  o = SolveOptions();
  o.position_tolerance = 0.0;
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("position_tolerance"));
  o = SolveOptions();
  o.angle_tolerance = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("angle_tolerance"));
  o = SolveOptions();
  o.time_budget_seconds = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(o.IsValid(&why));
  CHECK_THAT(why, Contains("time_budget_seconds"));
}

TEST_CASE("SolveOptions::IsValid allocates nothing for valid options",
          "[solvers]") {
  // Every solve runs it (an analytic solve twice, through SolveScope and its
  // own options), so a valid check must cost no heap string.
  if (!testing::AllocationCounter::enabled()) return;  // sanitizer build
  SolveOptions options;
  options.time_budget_seconds = 0.5;
  std::string why;
  REQUIRE(options.IsValid(&why));  // first call: anything made once
  testing::AllocationCounter counter;
  for (int i = 0; i < 10; ++i) REQUIRE(options.IsValid(&why));
  CHECK(counter.count() == 0);
}

TEST_CASE("IsValid reports bad options with a null why instead of crashing",
          "[solvers]") {
  BatchOptions batch;
  batch.threads = 0;
  CHECK_FALSE(batch.IsValid(nullptr));
  batch = BatchOptions();
  batch.goal = -2;
  CHECK_FALSE(batch.IsValid(nullptr));
  CHECK(BatchOptions().IsValid(nullptr));

  SolveOptions common;
  common.max_iterations = 0;
  CHECK_FALSE(common.IsValid(nullptr));
  RestartOptions restarts;
  restarts.max_attempts = 0;
  CHECK_FALSE(restarts.IsValid(nullptr));
  LbfgsbOptions lbfgsb;
  lbfgsb.memory = 0;
  CHECK_FALSE(lbfgsb.IsValid(nullptr));
  CeresOptions ceres;
  ceres.initial_trust_region_radius = 0.0;
  CHECK_FALSE(ceres.IsValid(nullptr));
  BoundedLmOptions lm;
  lm.restart_candidates = 0;
  CHECK_FALSE(lm.IsValid(nullptr));
  DampedLeastSquaresOptions dls;
  dls.step.stall_iterations = 0;
  CHECK_FALSE(dls.IsValid(nullptr));
  Bounds bounds = Bounds::Unbounded(2);
  bounds.lower[1] = 1.0;
  bounds.upper[1] = 0.0;
  CHECK_FALSE(bounds.IsValid(nullptr));

  // With a why, the message names the struct and the field.
  std::string why;
  batch.threads = 0;
  CHECK_FALSE(batch.IsValid(&why));
  CHECK_THAT(why, Contains("BatchOptions::threads must be >= 1, got 0"));
  CHECK_FALSE(restarts.IsValid(&why));
  CHECK_THAT(why, Contains("RestartOptions::max_attempts must be >= 1, got 0"));
}

TEST_CASE("Optimization solvers reach (-20, 5) with Parent's 3-link arm",
          "[solvers]") {
  auto model = testing::ParentArm();
  const Eigen::Vector3d target(-20, 5, 0);
  const Problem problem = PositionProblem(model, "tip", target);
  for (const auto& solver : OptimizationSolvers()) {
    DYNAMIC_SECTION(solver->name()) {
      const Result r = solver->Solve(problem, testing::ParentStart());
      INFO(r.message);
      CHECK(r.status == SolveStatus::kConverged);
      CHECK(r.solver == solver->name());
      REQUIRE(r.q.size() == 3);
      // Independent check of the pose: FK here, not the solver's errors.
      CHECK((TipAt(*model, r.q) - target).norm() <= 1e-6);
      REQUIRE(r.goal_errors.size() == 1);
      CHECK(r.goal_errors[0].position <= 1e-6);
      CHECK(r.final_potential < r.initial_potential);
      CHECK(r.iterations >= 1);
      CHECK(r.function_evaluations >= r.iterations);
      CHECK(r.wall_time_seconds >= 0.0);
      CHECK(r.trace.empty());  // not asked for
    }
  }
}

TEST_CASE("Out of reach: best effort is the stretched arm pointing at the "
          "target, status unreachable with the reach certificate",
          "[solvers]") {
  auto model = testing::ParentArm();
  const Eigen::Vector3d target(40, -30, 0);  // distance 50 > reach 30
  const Problem problem = PositionProblem(model, "tip", target);
  const Eigen::Vector3d closest = 30.0 * target.normalized();
  for (const auto& solver : OptimizationSolvers()) {
    DYNAMIC_SECTION(solver->name()) {
      const Result r = solver->Solve(problem, testing::ParentStart());
      INFO(r.message);
      CHECK(r.status == SolveStatus::kUnreachable);
      // The evidence, with its numbers: 15 + 10 + 5 from the first joint.
      CHECK_THAT(r.message, Contains("goal out of reach"));
      CHECK_THAT(r.message, Contains("target 50 from the chain's fixed base "
                                     "at (0, 0, 0), which reaches at most "
                                     "30"));
      CHECK_THAT(r.goal_errors.at(0).position,
                 Catch::Matchers::WithinAbs(50.0 - 30.0, 1e-6));
      CHECK((TipAt(*model, r.q) - closest).norm() <= 1e-3);
      // Stretched: relative angles ≈ 0 (mod 2π).
      for (int i = 1; i < 3; ++i) {
        CHECK(std::abs(std::remainder(r.q[i], 2 * kPi)) <= 1e-3);
      }
    }
  }
}

TEST_CASE("A reachable target where a solver stops at a stationary point is "
          "a local minimum, not unreachable",
          "[solvers]") {
  // Parent's arm stretched along +x with the target on the −x axis, 20 from
  // the base (reach 30): the residual (−50, 0) is parallel to the arm, so
  // the gradient Jᵀr vanishes and every gradient-based stop fires at the
  // start. Reachable, so no certificate, and no bound is active.
  auto model = testing::ParentArm();
  const Problem problem = PositionProblem(model, "tip", {-20, 0, 0});
  const Eigen::VectorXd stretched = Eigen::Vector3d::Zero();
  for (const auto& solver : OptimizationSolvers()) {
    DYNAMIC_SECTION(solver->name()) {
      const Result r = solver->Solve(problem, stretched);
      INFO(r.message);
      CHECK(r.status == SolveStatus::kLocalMinimum);
      CHECK_THAT(r.message, Contains("local minimum or stall"));
      CHECK_THAT(r.message, !Contains("goal out of reach ("));
      CHECK(r.goal_errors.at(0).position > 1.0);
    }
  }
  SECTION("bounded LM restarts from other poses and reaches it") {
    const Result r = BoundedLmSolver().Solve(problem, stretched);
    CHECK(r.status == SolveStatus::kConverged);
  }
}

TEST_CASE("Limits that make a reachable goal infeasible: pose within bounds "
          "exactly, status limits infeasible",
          "[solvers]") {
  // Every relative angle in [−π/4, π/4]: the tip cannot get left of x ≈ 7,
  // while (−20, 5) is reachable without limits.
  auto model = testing::ParentArm(-kPi / 4, kPi / 4);
  const Problem problem = PositionProblem(model, "tip", {-20, 5, 0});
  for (const auto& solver : OptimizationSolvers()) {
    DYNAMIC_SECTION(solver->name()) {
      const Result r = solver->Solve(problem, testing::ParentStart());
      INFO(r.message);
      CHECK(r.status == SolveStatus::kLimitsInfeasible);
      REQUIRE(r.q.size() == 3);
      for (int i = 0; i < 3; ++i) {
        // Exact comparisons: no tolerance, no clamping by the test.
        CHECK(r.q[i] >= problem.bounds().lower[i]);
        CHECK(r.q[i] <= problem.bounds().upper[i]);
      }
      CHECK(r.goal_errors.at(0).position > 1.0);
    }
  }
  SECTION("the same goal without limits converges") {
    SolveOptions common;
    common.respect_limits = false;
    for (const auto& solver : OptimizationSolvers(common)) {
      const Result r = solver->Solve(problem, testing::ParentStart());
      INFO(solver->name() << ": " << r.message);
      CHECK(r.status == SolveStatus::kConverged);
    }
  }
}

TEST_CASE("Bad inputs give kInvalidInput with a message, never a NaN pose",
          "[solvers]") {
  auto model = testing::ParentArm();
  Problem problem = PositionProblem(model, "tip", {-20, 5, 0});
  const Eigen::VectorXd start = testing::ParentStart();
  for (const auto& solver : OptimizationSolvers()) {
    DYNAMIC_SECTION(solver->name()) {
      Eigen::VectorXd nan_q = start;
      nan_q[1] = std::numeric_limits<double>::quiet_NaN();
      Result r = solver->Solve(problem, nan_q);
      CHECK(r.status == SolveStatus::kInvalidInput);
      CHECK_THAT(r.message, Contains("q0") && Contains("coordinate 1"));
      CHECK(r.q.size() == 0);  // never a NaN pose

      r = solver->Solve(problem, Eigen::VectorXd::Zero(4));
      CHECK(r.status == SolveStatus::kInvalidInput);
      CHECK_THAT(r.message, Contains("expected 3"));

      Problem bad_bounds = problem;
      bad_bounds.mutable_bounds()->lower[2] = 1.0;
      bad_bounds.mutable_bounds()->upper[2] = 0.0;
      r = solver->Solve(bad_bounds, start);
      CHECK(r.status == SolveStatus::kInvalidInput);
      CHECK_THAT(r.message, Contains("Bounds::") && Contains("coordinate 2"));
      CHECK(r.q == start);
    }
  }
  SECTION("invalid options") {
    LbfgsbOptions lbfgsb;
    lbfgsb.common.max_iterations = 0;
    Result r = Solve(problem, start, lbfgsb);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("max_iterations"));
    lbfgsb = LbfgsbOptions();
    lbfgsb.memory = 0;
    r = Solve(problem, start, lbfgsb);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("memory"));
    CeresOptions ceres;
    ceres.function_tolerance = -1.0;
    r = Solve(problem, start, ceres);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("function_tolerance"));
    ceres = CeresOptions();
    ceres.common.position_tolerance = -1.0;
    r = Solve(problem, start, ceres);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("position_tolerance"));
  }
}

TEST_CASE("A start outside the bounds starts from its projection", "[solvers]") {
  // The target is the tip at (0.5, 0.5, 0.5); the start (3, 2, 1.5) projects
  // to the corner (1, 1, 1) of the box [−1, 1]³, from which the descent is
  // direct.
  auto model = testing::ParentArm(-1.0, 1.0);
  const Problem problem = PositionProblem(
      model, "tip", TipAt(*model, Eigen::Vector3d(0.5, 0.5, 0.5)));
  for (const auto& solver : OptimizationSolvers()) {
    const Result r = solver->Solve(problem, Eigen::Vector3d(3.0, 2.0, 1.5));
    INFO(solver->name() << ": " << r.message);
    CHECK(r.status == SolveStatus::kConverged);
    CHECK(problem.bounds().Contains(r.q));
  }
}

TEST_CASE("Every solver reports the potential at its projected start pose",
          "[solvers]") {
  // The initial potential comes either from the solver's own first
  // evaluation (bounded LM, the differential methods) or from Finish; both
  // must equal P at the start pose, q0 projected onto the box.
  auto model = testing::ParentArm(-1.0, 1.0);
  const Problem problem = PositionProblem(
      model, "tip", TipAt(*model, Eigen::Vector3d(0.5, 0.5, 0.5)));
  const Eigen::Vector3d q0(3.0, 2.0, 0.25);
  ProblemWorkspace ws(problem);
  const double expected = problem.EvaluatePotential(
      Eigen::Vector3d(1.0, 1.0, 0.25), &ws, nullptr);
  REQUIRE(expected > 0.0);
  std::vector<std::shared_ptr<const Solver>> solvers = OptimizationSolvers();
  solvers.push_back(std::make_shared<BoundedLmSolver>());
  DampedLeastSquaresOptions dls;
  solvers.push_back(MakeSolver(dls));
  for (const auto& solver : solvers) {
    const Result r = solver->Solve(problem, q0);
    INFO(solver->name() << ": " << r.message);
    CHECK(r.status == SolveStatus::kConverged);
    CHECK_THAT(r.initial_potential,
               Catch::Matchers::WithinRel(expected, 1e-12));
    CHECK(r.final_potential < r.initial_potential);
  }
}

TEST_CASE("The trace records every iteration when asked", "[solvers]") {
  auto model = testing::ParentArm();
  const Problem problem = PositionProblem(model, "tip", {-20, 5, 0});
  SolveOptions common;
  common.record_trace = true;
  for (const auto& solver : OptimizationSolvers(common)) {
    DYNAMIC_SECTION(solver->name()) {
      const Result r = solver->Solve(problem, testing::ParentStart());
      REQUIRE(r.converged());
      REQUIRE(r.trace.size() >= static_cast<size_t>(r.iterations));
      for (size_t k = 1; k < r.trace.size(); ++k) {
        CHECK(r.trace[k].iteration > r.trace[k - 1].iteration);
        // Accepted iterates of both methods never increase the potential.
        CHECK(r.trace[k].potential <= r.trace[k - 1].potential);
      }
      const IterationRecord& last = r.trace.back();
      CHECK(last.q == r.q);
      CHECK(last.potential == Approx(r.final_potential).margin(1e-15));
      CHECK(last.max_position_error == Approx(r.goal_errors[0].position)
                                           .margin(1e-15));
      CHECK(r.trace.front().potential >= r.final_potential);
    }
  }
}

TEST_CASE("Iteration and time caps end a solve with their status",
          "[solvers]") {
  auto model = testing::ParentArm();
  const Problem problem = PositionProblem(model, "tip", {-20, 5, 0});
  SECTION("one iteration") {
    SolveOptions common;
    common.max_iterations = 1;
    for (const auto& solver : OptimizationSolvers(common)) {
      const Result r = solver->Solve(problem, testing::ParentStart());
      INFO(solver->name() << ": " << r.message);
      CHECK(r.status == SolveStatus::kMaxIterations);
      CHECK(r.iterations == 1);
      CHECK(r.final_potential < r.initial_potential);
    }
  }
  SECTION("a time budget spent at once") {
    SolveOptions common;
    common.time_budget_seconds = 1e-12;
    for (const auto& solver : OptimizationSolvers(common)) {
      const Result r = solver->Solve(problem, testing::ParentStart());
      INFO(solver->name() << ": " << r.message);
      CHECK(r.status == SolveStatus::kTimeBudget);
      CHECK(r.iterations <= 1);
      CHECK(r.q.allFinite());
    }
  }
}

TEST_CASE("Tikhonov regularization pulls the solution toward q_ref as alpha "
          "grows",
          "[solvers]") {
  // Redundant planar arm: 3 angles, 2 effective position coordinates. With
  // α‖q − q_ref‖² the minimizer trades goal error for closeness to q_ref:
  // ‖q(α) − q_ref‖ is non-increasing and the goal error non-decreasing in α
  // (standard for Tikhonov-regularized least squares).
  // The target is ~6 length units from the start tip (15.8, 19.6), so every
  // α has its minimizer in the basin of q_ref.
  auto model = testing::ParentArm();
  const Eigen::VectorXd q_ref = testing::ParentStart();
  const Eigen::Vector3d target(10, 20, 0);
  const double alphas[] = {0.0, 1.0, 10.0, 100.0, 1000.0};
  LbfgsbOptions lbfgsb;
  lbfgsb.stop_at_tolerance = false;  // minimize the regularized potential
  CeresOptions ceres;
  ceres.stop_at_tolerance = false;
  const std::vector<std::shared_ptr<const Solver>> solvers = {
      std::make_shared<LbfgsbSolver>(lbfgsb),
      std::make_shared<CeresSolver>(ceres)};
  for (const auto& solver : solvers) {
    DYNAMIC_SECTION(solver->name()) {
      double previous_distance = std::numeric_limits<double>::infinity();
      double previous_error = -1.0;
      double first_distance = 0.0, last_distance = 0.0;
      for (const double alpha : alphas) {
        Problem problem = PositionProblem(model, "tip", target);
        problem.AddRegularizer(
            std::make_shared<TikhonovRegularizer>(*model, alpha, q_ref));
        const Result r = solver->Solve(problem, q_ref);
        INFO("alpha " << alpha << ": " << r.message);
        REQUIRE(r.status != SolveStatus::kNumericalFailure);
        const double distance = (r.q - q_ref).norm();
        const double error = r.goal_errors.at(0).position;
        CHECK(distance <= previous_distance + 1e-7);
        CHECK(error >= previous_error - 1e-7);
        if (alpha == 0.0) {
          first_distance = distance;
          CHECK(error <= 1e-6);
        }
        last_distance = distance;
        previous_distance = distance;
        previous_error = error;
      }
      CHECK(last_distance < 0.5 * first_distance);
    }
  }
}

TEST_CASE("Finish reclassifies a solver's claims by the goal errors",
          "[solvers]") {
  auto model = testing::ParentArm();
  const Problem problem = PositionProblem(model, "tip", {-20, 5, 0});
  const Eigen::VectorXd start = testing::ParentStart();
  SECTION("a false kConverged claim at a non-solution") {
    internal::SolveScope scope(problem, start, SolveOptions(), "test");
    REQUIRE(scope.ok());
    const Result r = scope.Finish(start, SolveStatus::kConverged, "claimed");
    CHECK(r.status != SolveStatus::kConverged);
    CHECK(r.goal_errors.at(0).position > 1.0);
  }
  SECTION("a kMaxIterations stop that is within tolerance is converged") {
    LbfgsbOptions o;
    const Result solved = Solve(problem, start, o);
    REQUIRE(solved.converged());
    internal::SolveScope scope(problem, start, SolveOptions(), "test");
    const Result r =
        scope.Finish(solved.q, SolveStatus::kMaxIterations, "stopped");
    CHECK(r.status == SolveStatus::kConverged);
    CHECK_THAT(r.message, Contains("within tolerance"));
  }
  SECTION("a stationary stop is unreachable only with the certificate") {
    internal::SolveScope reachable(problem, start, SolveOptions(), "test");
    CHECK(reachable.Finish(start, SolveStatus::kLocalMinimum, "stopped")
              .status == SolveStatus::kLocalMinimum);
    const Problem far = PositionProblem(model, "tip", {0, 30.5, 0});
    internal::SolveScope scope(far, start, SolveOptions(), "test");
    const Result r = scope.Finish(start, SolveStatus::kLocalMinimum, "stopped");
    CHECK(r.status == SolveStatus::kUnreachable);
    CHECK_THAT(r.message, Contains("target 30.5 from the chain's fixed base"));
    CHECK_THAT(r.message, Contains("stopped"));
  }
  SECTION("a solver's own kUnreachable (a closed form's) is kept") {
    internal::SolveScope scope(problem, start, SolveOptions(), "test");
    const Result r = scope.Finish(start, SolveStatus::kUnreachable, "proof");
    CHECK(r.status == SolveStatus::kUnreachable);
    CHECK(r.message == "proof");
  }
  SECTION("a NaN pose becomes the start pose with kNumericalFailure") {
    internal::SolveScope scope(problem, start, SolveOptions(), "test");
    Eigen::VectorXd q = start;
    q[0] = std::numeric_limits<double>::quiet_NaN();
    const Result r = scope.Finish(q, SolveStatus::kConverged, "oops");
    CHECK(r.status == SolveStatus::kNumericalFailure);
    CHECK(r.q == start);
  }
}

}  // namespace
}  // namespace iklab
