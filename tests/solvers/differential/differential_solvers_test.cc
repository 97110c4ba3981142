// End-to-end behaviour of the differential IK solvers: convergence on
// Parent's arm and on a 7-DOF arm, limits, statuses, no allocation per
// iteration. Goal positions are checked by an independent FK call.

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "framework/kinematics.h"
#include "solvers/differential/ccd_solver.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/differential/extended_jacobian_solver.h"
#include "solvers/differential/jacobian_transpose_solver.h"
#include "solvers/differential/multi_effector_solver.h"
#include "solvers/differential/pseudo_inverse_solver.h"
#include "tests/allocation_counter.h"
#include "tests/solvers/differential/differential_models.h"

namespace iklab {
namespace {

using testing::AllocationCounter;

const Eigen::Vector3d kParentGoal(-20, 5, 0);

Eigen::VectorXd ParentStart() {
  return Eigen::Vector3d(M_PI / 8, M_PI / 4, M_PI / 4);
}

Problem PositionProblem(const std::shared_ptr<const Model>& model,
                        const Eigen::Vector3d& target) {
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tip", target));
  return problem;
}

Eigen::Vector3d TipAt(const Model& model, const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePosition(model, data, model.SiteIndex("tip"));
}

// Every differential solver, with the options a user would pick for Parent's
// arm (defaults unless the method needs a scale-dependent value).
std::vector<std::unique_ptr<Solver>> AllSolvers(int max_iterations) {
  std::vector<std::unique_ptr<Solver>> solvers;
  SolveOptions common;
  common.max_iterations = max_iterations;

  PseudoInverseOptions pinv;
  pinv.common = common;
  solvers.push_back(MakeSolver(pinv));

  DampedLeastSquaresOptions dls;
  dls.common = common;
  solvers.push_back(MakeSolver(dls));
  dls.adaptive = true;
  dls.damping = 5.0;  // start heavily damped; the adaptation lowers it
  solvers.push_back(MakeSolver(dls));

  SelectivelyDampedOptions sdls;
  sdls.common = common;
  solvers.push_back(MakeSolver(sdls));

  JacobianTransposeOptions transpose;
  transpose.common = common;
  transpose.common.max_iterations = 100 * max_iterations;
  transpose.step.stall_iterations = 1000;
  solvers.push_back(MakeSolver(transpose));
  // Fixed α must stay below 2/σ_max² ≈ 2/1000 on this arm (see the option).
  transpose.step_size = JacobianTransposeOptions::StepSize::kFixed;
  transpose.alpha = 1.5e-3;
  solvers.push_back(MakeSolver(transpose));

  ControlTermOptions control;
  control.common = common;
  control.centers = Eigen::Vector3d::Zero();
  control.gains = Eigen::Vector3d(0.1, 0.5, 0.1);  // Parent Fig. 5.22, top
  solvers.push_back(MakeSolver(control));

  AlternativeJacobianOptions alternative;
  alternative.common = common;
  solvers.push_back(MakeSolver(alternative));

  CcdOptions ccd;
  ccd.common = common;
  solvers.push_back(MakeSolver(ccd));

  ExtendedJacobianOptions extended;
  extended.common = common;
  solvers.push_back(MakeSolver(extended));

  MultiEffectorOptions multi;
  multi.common = common;
  solvers.push_back(MakeSolver(multi));

  BoundedDampedLeastSquaresOptions bounded;
  bounded.common = common;
  solvers.push_back(MakeSolver(bounded));
  return solvers;
}

TEST_CASE("Every differential method reaches (-20, 5) with Parent's 3-link "
          "arm",
          "[solvers]") {
  const auto model = testing::PlanarArm({15, 10, 5});
  const Problem problem = PositionProblem(model, kParentGoal);
  for (const auto& solver : AllSolvers(500)) {
    const Result result = solver->Solve(problem, ParentStart());
    INFO(solver->name() << ": " << SolveStatusName(result.status) << ", "
                        << result.message);
    CHECK(result.solver == solver->name());
    CHECK(result.status == SolveStatus::kConverged);
    CHECK((TipAt(*model, result.q) - kParentGoal).norm() < 1e-6);
    CHECK(result.iterations >= 1);
    CHECK(result.final_potential < result.initial_potential);
  }
}

TEST_CASE("The control term keeps higher-gain joints straighter (Parent Fig. "
          "5.22)",
          "[solvers]") {
  const auto model = testing::PlanarArm({15, 10, 5});
  const Problem problem = PositionProblem(model, kParentGoal);
  ControlTermOptions options;
  options.centers = Eigen::Vector3d::Zero();
  options.gains = Eigen::Vector3d(0.1, 0.5, 0.1);
  const Result second = Solve(problem, ParentStart(), options);
  options.gains = Eigen::Vector3d(0.1, 0.1, 0.5);
  const Result third = Solve(problem, ParentStart(), options);
  REQUIRE(second.converged());
  REQUIRE(third.converged());
  CHECK(std::abs(second.q(1)) < std::abs(third.q(1)));
  CHECK(std::abs(third.q(2)) < std::abs(second.q(2)));
}

TEST_CASE("DLS records lambda and the damped condition number in the trace",
          "[solvers]") {
  const auto model = testing::PlanarArm({15, 10, 5});
  const Problem problem = PositionProblem(model, kParentGoal);
  DampedLeastSquaresOptions options;
  options.damping = 1.5;
  options.common.record_trace = true;
  const Result result = Solve(problem, ParentStart(), options);
  REQUIRE(result.converged());
  REQUIRE(result.trace.size() == static_cast<size_t>(result.iterations) + 1);
  for (std::size_t k = 1; k < result.trace.size(); ++k) {
    CHECK(result.trace[k].damping == 1.5);
    CHECK(result.trace[k].condition_number >= 1.0);
  }
  CHECK(result.message.find("condition number") != std::string::npos);
}

TEST_CASE("Bounded DLS keeps every iterate within the joint limits",
          "[solvers]") {
  // Limits [−1, 1] on every joint: (−20, 5) needs the arm to fold further.
  const auto model = testing::PlanarArm({15, 10, 5}, Eigen::Vector3d::Zero(),
                                        -1.0, 1.0);
  const Problem problem = PositionProblem(model, kParentGoal);
  BoundedDampedLeastSquaresOptions options;
  options.common.record_trace = true;
  options.damping = 0.5;
  const Result result = Solve(problem, ParentStart(), options);
  INFO(result.message);
  CHECK(result.status == SolveStatus::kLimitsInfeasible);
  REQUIRE(result.trace.size() >= 2);
  int on_bound = 0;
  for (const IterationRecord& record : result.trace) {
    CHECK(problem.bounds().Contains(record.q));
    on_bound += (record.q.array().abs() == 1.0).any();
  }
  CHECK(on_bound > 0);  // the bounds were active, not just respected
  // Without limits the same method reaches the goal.
  options.common.respect_limits = false;
  CHECK(Solve(problem, ParentStart(), options).converged());
}

TEST_CASE("A method without limits that ends outside them says so",
          "[solvers]") {
  // Limits [−1, 1]: the pseudo-inverse folds the arm past them to reach
  // (−20, 5). The pose meets the goal but the arm cannot take it.
  const auto model = testing::PlanarArm({15, 10, 5}, Eigen::Vector3d::Zero(),
                                        -1.0, 1.0);
  const Problem problem = PositionProblem(model, kParentGoal);
  PseudoInverseOptions options;
  const Result result = Solve(problem, ParentStart(), options);
  INFO(result.message);
  CHECK(result.status == SolveStatus::kOutsideLimits);
  CHECK(std::string(SolveStatusName(result.status)) == "outside limits");
  CHECK_FALSE(problem.bounds().Contains(result.q));
  CHECK((TipAt(*model, result.q) - kParentGoal).norm() < 1e-5);
  CHECK_THAT(result.message,
             Catch::Matchers::Contains("outside the joint limits") &&
                 Catch::Matchers::Contains(
                     "every goal within tolerance"));
  // The coordinate named is one that is outside.
  int first = -1;
  for (int i = 0; i < 3 && first < 0; ++i) {
    if (std::abs(result.q[i]) > 1.0) first = i;
  }
  REQUIRE(first >= 0);
  CHECK_THAT(result.message, Catch::Matchers::Contains(
                                 model->dof_name(first) + " = "));
  // Without limits the same solve is a plain success.
  options.common.respect_limits = false;
  CHECK(Solve(problem, ParentStart(), options).converged());
}

TEST_CASE("Bounded DLS converges when the goal is reachable within the limits",
          "[solvers]") {
  const auto model = testing::PlanarArm({15, 10, 5}, Eigen::Vector3d::Zero(),
                                        -0.5, 1.5);
  const Eigen::Vector3d target = TipAt(*model, Eigen::Vector3d(1.2, 1.1, 0.5));
  const Problem problem = PositionProblem(model, target);
  BoundedDampedLeastSquaresOptions options;
  options.common.record_trace = true;
  // From this start the unbounded steps would cross q2 = −0.5: bounds become
  // active on the way and the goal is still reached.
  const Result result = Solve(problem, Eigen::Vector3d(0.0, -0.2, 0.0),
                              options);
  INFO(result.message);
  CHECK(result.converged());
  int on_bound = 0;
  for (const IterationRecord& record : result.trace) {
    CHECK(problem.bounds().Contains(record.q));
    on_bound += (record.q.array() == -0.5).any() ||
                (record.q.array() == 1.5).any();
  }
  CHECK(on_bound > 0);
}

TEST_CASE("CCD keeps every iterate within the joint limits", "[solvers]") {
  const auto model = testing::PlanarArm({15, 10, 5}, Eigen::Vector3d::Zero(),
                                        -1.0, 1.0);
  const Problem problem = PositionProblem(model, kParentGoal);
  CcdOptions options;
  options.common.record_trace = true;
  const Result result = Solve(problem, ParentStart(), options);
  INFO(result.message);
  CHECK(result.status == SolveStatus::kLimitsInfeasible);
  for (const IterationRecord& record : result.trace) {
    CHECK(problem.bounds().Contains(record.q));
  }
  // With limits it reaches a reachable goal too.
  const Eigen::Vector3d target = TipAt(*model, Eigen::Vector3d(0.9, 0.8, -0.6));
  const Result reached =
      Solve(PositionProblem(model, target), ParentStart(), options);
  CHECK(reached.converged());
  CHECK(problem.bounds().Contains(reached.q));
}

TEST_CASE("CCD matches an orientation goal exactly on a planar arm",
          "[solvers]") {
  // Position + orientation of the tip: 3 DOF, 3 planar constraints.
  const auto model = testing::PlanarArm({15, 10, 5});
  const Eigen::Vector3d q_goal(0.5, -0.9, 1.3);
  Data data(*model);
  ForwardKinematics(*model, q_goal, &data);
  const Eigen::Isometry3d X = SitePose(*model, data, 0);
  Problem problem(model);
  problem.AddGoal(
      std::make_shared<PositionGoal>(*model, "tip", X.translation()));
  problem.AddGoal(std::make_shared<OrientationGoal>(*model, "tip", X.linear()));
  CcdOptions options;
  options.common.max_iterations = 2000;
  const Result result = Solve(problem, ParentStart(), options);
  INFO(result.message);
  CHECK(result.converged());
}

TEST_CASE("SDLS converges on a 7-DOF 3-D arm from random reachable targets",
          "[solvers]") {
  const auto model = testing::SpatialChain(7, 0.3);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  Eigen::VectorXd start(7);
  start << 0.3, -0.4, 0.5, 0.6, -0.2, 0.4, 0.1;
  SelectivelyDampedOptions options;
  options.common.max_iterations = 1000;
  int converged = 0;
  const int trials = 20;
  for (int t = 0; t < trials; ++t) {
    Eigen::VectorXd q(7);
    for (int i = 0; i < 7; ++i) q(i) = angle(rng);
    const Eigen::Vector3d target = TipAt(*model, q);
    const Result result = Solve(PositionProblem(model, target), start, options);
    if (result.converged() && (TipAt(*model, result.q) - target).norm() < 1e-6) {
      ++converged;
    }
  }
  CHECK(converged == trials);
}

TEST_CASE("The multi-effector solver serves two effectors on a branched "
          "figure",
          "[solvers]") {
  // A 4-joint planar chain with a 2-joint branch after joint 2.
  Figure f("base");
  auto add = [&f](const std::string& name, const std::string& parent,
                  double offset) {
    Joint j;
    j.name = name;
    j.parent = parent;
    j.child = name + "_link";
    j.X_PJ.translation() = Eigen::Vector3d(offset, 0, 0);
    f.AddJoint(j);
  };
  add("a0", "base", 0);
  add("a1", "a0_link", 1);
  add("a2", "a1_link", 1);
  add("a3", "a2_link", 1);
  add("b0", "a1_link", 1);
  add("b1", "b0_link", 1);
  Site tip_a{"tip_a", "a3_link", Eigen::Isometry3d::Identity()};
  tip_a.X_LS.translation() = Eigen::Vector3d(1, 0, 0);
  Site tip_b{"tip_b", "b1_link", Eigen::Isometry3d::Identity()};
  tip_b.X_LS.translation() = Eigen::Vector3d(1, 0, 0);
  f.AddSite(tip_a);
  f.AddSite(tip_b);
  const auto model = std::make_shared<const Model>(f.Compile());
  Eigen::VectorXd q_goal(6);
  q_goal << 0.4, 0.3, -0.5, 0.6, 0.9, -0.4;
  Data data(*model);
  ForwardKinematics(*model, q_goal, &data);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tip_a",
                                                 SitePosition(*model, data, 0)));
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tip_b",
                                                 SitePosition(*model, data, 1)));
  const Result result =
      Solve(problem, Eigen::VectorXd::Constant(6, 0.2), MultiEffectorOptions{});
  INFO(result.message);
  CHECK(result.converged());
  // Goal levels must match the goals.
  MultiEffectorOptions bad;
  bad.goal_levels = {0};
  const Result invalid = Solve(problem, Eigen::VectorXd::Zero(6), bad);
  CHECK(invalid.status == SolveStatus::kInvalidInput);
  CHECK(invalid.message.find("goal_levels") != std::string::npos);
}

TEST_CASE("Methods defined for special problems reject the others",
          "[solvers]") {
  const auto spatial = testing::SpatialChain(7);
  const Problem problem = PositionProblem(spatial, Eigen::Vector3d(0.5, 0.5, 0));
  const Result extended =
      Solve(problem, Eigen::VectorXd::Zero(7), ExtendedJacobianOptions{});
  CHECK(extended.status == SolveStatus::kInvalidInput);
  CHECK(extended.message.find("planar") != std::string::npos);
  CHECK(extended.q == Eigen::VectorXd::Zero(7));

  const auto arm = testing::PlanarArm({15, 10, 5});
  Problem plane(arm);
  plane.AddGoal(std::make_shared<PlaneGoal>(*arm, "tip", Eigen::Vector3d::Zero(),
                                            Eigen::Vector3d::UnitX()));
  const Result ccd = Solve(plane, ParentStart(), CcdOptions{});
  CHECK(ccd.status == SolveStatus::kInvalidInput);
  CHECK(ccd.message.find("does not support") != std::string::npos);

  DampedLeastSquaresOptions negative;
  negative.damping = -1.0;
  const Result dls = Solve(PositionProblem(arm, kParentGoal), ParentStart(),
                           negative);
  CHECK(dls.status == SolveStatus::kInvalidInput);
  CHECK(dls.message.find("damping") != std::string::npos);
}

TEST_CASE("The Extended Jacobian recovers smoothly from Soch's stretched "
          "start where the pseudo-inverse jumps",
          "[solvers]") {
  const auto model = testing::PlanarArm({90, 60, 90, 150, 150, 90},
                                        Eigen::Vector3d(-230, 0, 0));
  // First point of the ellipse path x²/400² + y²/50² = 1 after the start
  // (400, 0): one step along it.
  const double t = 0.05;
  const Eigen::Vector3d target(400 * std::cos(t), 50 * std::sin(t), 0);
  const Problem problem = PositionProblem(model, target);
  const Eigen::VectorXd q0 = Eigen::VectorXd::Zero(6);
  ExtendedJacobianOptions extended;
  extended.common.max_iterations = 1;
  extended.step.return_best = false;
  PseudoInverseOptions pinv;
  pinv.common.max_iterations = 2;  // the 2nd step meets the near-singularity
  pinv.step.return_best = false;
  const Result e = Solve(problem, q0, extended);
  const Result p = Solve(problem, q0, pinv);
  const double e_jump = e.q.lpNorm<Eigen::Infinity>();
  const double p_jump = p.q.lpNorm<Eigen::Infinity>();
  INFO("extended " << e_jump << ", pseudo-inverse " << p_jump);
  CHECK(e_jump < 0.1);
  CHECK(p_jump > 10 * e_jump);
  // And the Extended Jacobian does reach the point.
  extended.common.max_iterations = 200;
  CHECK(Solve(problem, q0, extended).converged());
}

// Allocations of a solve that runs exactly `iterations` iterations (the goal
// is never "within" a 1e-300 tolerance and stall detection is off).
template <typename Options>
long SolveAllocations(const Problem& problem, const Eigen::VectorXd& q0,
                      Options options, int iterations) {
  options.common.max_iterations = iterations;
  options.common.position_tolerance = 1e-300;
  options.step.step_tolerance = 0.0;
  options.step.stall_iterations = 1 << 30;
  AllocationCounter counter;
  const Result result = Solve(problem, q0, options);
  const long count = counter.count();
  INFO(result.solver << ": " << result.message);
  REQUIRE(result.iterations == iterations);
  return count;
}

template <typename Options>
void CheckNoAllocationPerIteration(const Problem& problem,
                                   const Eigen::VectorXd& q0,
                                   const Options& options) {
  SolveAllocations(problem, q0, options, 2);  // warm-up (static state)
  const long few = SolveAllocations(problem, q0, options, 3);
  const long many = SolveAllocations(problem, q0, options, 13);
  CHECK(many == few);
}

TEST_CASE("Differential solvers do not allocate per iteration", "[solvers]") {
  if (!AllocationCounter::enabled()) return;
  const auto model = testing::PlanarArm({15, 10, 5});
  // A target the methods do not hit bit-exactly (an exact hit would end the
  // solve even with the 1e-300 tolerance).
  const Eigen::Vector3d target(-19.3, 5.7, 0);
  const Problem problem = PositionProblem(model, target);
  const Eigen::VectorXd q0 = ParentStart();
  CheckNoAllocationPerIteration(problem, q0, PseudoInverseOptions{});
  CheckNoAllocationPerIteration(problem, q0, DampedLeastSquaresOptions{});
  DampedLeastSquaresOptions adaptive;
  adaptive.adaptive = true;
  CheckNoAllocationPerIteration(problem, q0, adaptive);
  CheckNoAllocationPerIteration(problem, q0, SelectivelyDampedOptions{});
  CheckNoAllocationPerIteration(problem, q0, JacobianTransposeOptions{});
  ControlTermOptions control;
  control.gains = Eigen::Vector3d(0.1, 0.1, 0.1);
  CheckNoAllocationPerIteration(problem, q0, control);
  CheckNoAllocationPerIteration(problem, q0, AlternativeJacobianOptions{});
  CheckNoAllocationPerIteration(problem, q0, CcdOptions{});
  CheckNoAllocationPerIteration(problem, q0, ExtendedJacobianOptions{});
  CheckNoAllocationPerIteration(problem, q0, MultiEffectorOptions{});
  // Bounded DLS on the path of the bounded convergence test above, which
  // runs through active bounds.
  const auto limited = testing::PlanarArm({15, 10, 5}, Eigen::Vector3d::Zero(),
                                          -0.5, 1.5);
  CheckNoAllocationPerIteration(
      PositionProblem(limited, TipAt(*limited, Eigen::Vector3d(1.2, 1.1, 0.5))),
      Eigen::Vector3d(0.0, -0.2, 0.0), BoundedDampedLeastSquaresOptions{});
}

}  // namespace
}  // namespace iklab
