#include "solvers/bounded_lm_solver.h"

#include <cmath>
#include <memory>
#include <random>
#include <utility>

#include <catch2/catch.hpp>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/figure.h"
#include "framework/kinematics.h"
#include "tests/allocation_counter.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

// A 7-DOF arm shaped like a KUKA LBR iiwa 14 (axes z y z y z y z, link
// offsets 0.36/0.42/0.4/0.126 m, limits ±170/120/170/120/170/120/175°).
std::shared_ptr<const Model> IiwaLikeArm() {
  Figure f("base");
  const double lengths[] = {0.36, 0.0, 0.42, 0.0, 0.4, 0.0, 0.0};
  const double limits_deg[] = {170, 120, 170, 120, 170, 120, 175};
  std::string parent = "base";
  for (int i = 0; i < 7; ++i) {
    Joint j;
    j.name = "a" + std::to_string(i + 1);
    j.parent = parent;
    j.child = "link" + std::to_string(i + 1);
    j.axis = i % 2 == 0 ? Eigen::Vector3d::UnitZ() : Eigen::Vector3d::UnitY();
    j.X_PJ.translation() = Eigen::Vector3d(0, 0, i == 0 ? 0.0 : lengths[i - 1]);
    const double limit = limits_deg[i] * M_PI / 180.0;
    j.WithLimits(-limit, limit);
    f.AddJoint(j);
    parent = j.child;
  }
  Site tool{"tool", "link7", Eigen::Isometry3d::Identity()};
  tool.X_LS.translation() = Eigen::Vector3d(0, 0, 0.126);
  f.AddSite(tool);
  return std::make_shared<const Model>(f.Compile());
}

// Pose goal with rotation weighted 0.4 against metres (see the option docs).
Problem PoseProblem(const std::shared_ptr<const Model>& model,
                    const Eigen::Isometry3d& target) {
  Problem problem(model);
  PositionOrientationScales scales;
  scales.w_o = 0.4 * 0.4;
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *model, "tool", target, 1.0, scales));
  return problem;
}

Eigen::Isometry3d ToolPose(const Model& model, const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePose(model, data, model.SiteIndex("tool"));
}

TEST_CASE(
    "Bounded LM solves random reachable pose goals on a 7-DOF arm within "
    "limits",
    "[solvers]") {
  const auto model = IiwaLikeArm();
  std::mt19937 rng(2024);
  BoundedLmOptions options;
  options.common.position_tolerance = 1e-7;
  options.common.angle_tolerance = 1e-7;
  options.common.time_budget_seconds = 0.05;  // generous: sanitizer builds
  const int trials = 300;
  int converged = 0;
  for (int t = 0; t < trials; ++t) {
    const Eigen::VectorXd q_true = testing::RandomConfiguration(*model, &rng);
    const Eigen::Isometry3d target = ToolPose(*model, q_true);
    const Problem problem = PoseProblem(model, target);
    const Result result = Solve(problem, model->MidLimits(), options);
    // Every answer, converged or not, is inside the limits, exactly.
    REQUIRE(result.q.size() == 7);
    CHECK(model->WithinLimits(result.q, 0.0));
    if (!result.converged()) continue;
    ++converged;
    // Independent check of the claimed success by FK of the answer.
    const Eigen::Isometry3d reached = ToolPose(*model, result.q);
    CHECK((reached.translation() - target.translation()).norm() <= 1e-7);
    CHECK(Eigen::AngleAxisd(reached.linear() * target.linear().transpose())
              .angle() <= 2e-7);
  }
  // Measured: every trial converges (see the benchmark for the rate on
  // real robots); the floor leaves room only for a pathological target.
  CHECK(converged >= trials - 1);
}

TEST_CASE("Bounded LM reports an out-of-reach position as unreachable",
          "[solvers]") {
  const auto model = IiwaLikeArm();
  Problem problem(model);
  // Reach from the shoulder (0, 0, 0.36) is 0.42 + 0.4 + 0.126 = 0.946 m.
  const Eigen::Vector3d target(2.0, 0.0, 0.36);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool", target));
  BoundedLmOptions options;
  options.common.time_budget_seconds = 0.0;
  options.max_attempts = 20;
  const Result result = Solve(problem, model->MidLimits(), options);
  CHECK(result.status == SolveStatus::kUnreachable);
  CHECK(result.attempts == 20);
  // Best effort: the stretched arm pointing at the target.
  const double distance = (ToolPose(*model, result.q).translation() - target).norm();
  CHECK_THAT(distance, Catch::Matchers::WithinAbs(2.0 - 0.946, 1e-6));
  CHECK(model->WithinLimits(result.q, 0.0));
}

TEST_CASE("Bounded LM reports limits that block a reachable goal",
          "[solvers]") {
  const auto model = IiwaLikeArm();
  Problem problem(model);
  // Straight up is reachable with all joints at 0; forbid a2 and a4 from
  // being anywhere near 0 so it is not.
  problem.mutable_bounds()->Set(1, 0.6, 1.2);
  problem.mutable_bounds()->Set(3, 0.6, 1.2);
  problem.AddGoal(std::make_shared<PositionGoal>(
      *model, "tool", Eigen::Vector3d(0, 0, 0.36 + 0.946)));
  BoundedLmOptions options;
  options.common.time_budget_seconds = 0.0;
  options.max_attempts = 20;
  const Result result = Solve(problem, Eigen::VectorXd::Constant(7, 0.8), options);
  CHECK(result.status == SolveStatus::kLimitsInfeasible);
  CHECK(problem.bounds().Contains(result.q));
  CHECK(result.q[1] == 0.6);  // held exactly on the bound nearest the goal
}

TEST_CASE("Bounded LM keeps every iterate inside the bounds", "[solvers]") {
  const auto model = IiwaLikeArm();
  std::mt19937 rng(5);
  BoundedLmOptions options;
  options.common.record_trace = true;
  for (int t = 0; t < 20; ++t) {
    const Problem problem =
        PoseProblem(model, ToolPose(*model, testing::RandomConfiguration(*model, &rng)));
    const Result result =
        Solve(problem, testing::RandomConfiguration(*model, &rng), options);
    REQUIRE_FALSE(result.trace.empty());
    for (const IterationRecord& record : result.trace) {
      CHECK(problem.bounds().Contains(record.q));
    }
  }
}

TEST_CASE("Bounded LM gives bit-identical results for the same seed",
          "[solvers]") {
  const auto model = IiwaLikeArm();
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                                 Eigen::Vector3d(3, 0, 0)));
  BoundedLmOptions options;
  options.common.time_budget_seconds = 0.0;  // the count, not the clock, ends it
  options.max_attempts = 8;
  options.seed = 99;
  const Result a = Solve(problem, model->MidLimits(), options);
  const Result b = Solve(problem, model->MidLimits(), options);
  CHECK(a.q == b.q);
  CHECK(a.iterations == b.iterations);
  options.seed = 100;
  const Result c = Solve(problem, model->MidLimits(), options);
  CHECK(c.q != a.q);  // another seed, other restart points
}

TEST_CASE("Bounded LM turns bad input into kInvalidInput", "[solvers]") {
  const auto model = IiwaLikeArm();
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                                 Eigen::Vector3d(0.5, 0, 0.5)));
  BoundedLmOptions options;
  Eigen::VectorXd q0 = model->MidLimits();
  q0[2] = NAN;
  Result r = Solve(problem, q0, options);
  CHECK(r.status == SolveStatus::kInvalidInput);
  CHECK_THAT(r.message, Catch::Contains("not finite"));
  CHECK(r.q.allFinite());
  r = Solve(problem, Eigen::VectorXd::Zero(3), options);
  CHECK(r.status == SolveStatus::kInvalidInput);
  options.initial_damping = -1.0;
  r = Solve(problem, model->MidLimits(), options);
  CHECK(r.status == SolveStatus::kInvalidInput);
  CHECK_THAT(r.message, Catch::Contains("initial_damping must be finite and > 0"));
}

TEST_CASE("Bounded LM iterations do not allocate", "[solvers]") {
  if (!testing::AllocationCounter::enabled()) return;
  const auto model = IiwaLikeArm();
  // The position goal (3 × 7 kernel) and the pose goal of the benchmark
  // (9 × 7), both out of reach: one long attempt iterates for as many
  // iterations as asked.
  Problem position(model);
  position.AddGoal(std::make_shared<PositionGoal>(*model, "tool",
                                                  Eigen::Vector3d(3, 0, 0)));
  Eigen::Isometry3d far = Eigen::Isometry3d::Identity();
  far.linear() = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized())
                     .toRotationMatrix();
  far.translation() = Eigen::Vector3d(3, 0, 0);
  const Problem pose = PoseProblem(model, far);
  for (const Problem* problem : {&std::as_const(position), &pose}) {
    BoundedLmOptions options;
    options.common.time_budget_seconds = 0.0;
    options.max_attempts = 1;
    options.stall_iterations = 1000000;  // one long attempt
    const auto allocations = [&](int iterations) {
      options.common.max_iterations = iterations;
      testing::AllocationCounter counter;
      const Result result = Solve(*problem, model->MidLimits(), options);
      REQUIRE(result.iterations == iterations);
      return counter.count();
    };
    // Per-solve set-up allocates; more iterations must not add any.
    CHECK(allocations(40) == allocations(2));
  }
}

}  // namespace
}  // namespace iklab
