#include "solvers/optimization/bounded_lm_solver.h"

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <utility>

#include <catch2/catch.hpp>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/figure.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "tests/allocation_counter.h"
#include "tests/test_data.h"
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

// Solves a position goal 2 m from the IiwaLikeArm's base, out of its 0.946 m
// reach, from mid-limits with `options` (no time budget): every attempt
// stalls. Checks the unreachable status, the attempt count and the best
// effort (the stretched arm pointing at the target, within the limits).
Result SolveOutOfReach(BoundedLmOptions options) {
  const auto model = IiwaLikeArm();
  Problem problem(model);
  // Reach from the shoulder (0, 0, 0.36) is 0.42 + 0.4 + 0.126 = 0.946 m.
  const Eigen::Vector3d target(2.0, 0.0, 0.36);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool", target));
  options.common.time_budget_seconds = 0.0;
  const Result result = Solve(problem, model->MidLimits(), options);
  CHECK(result.status == SolveStatus::kUnreachable);
  CHECK(result.attempts == options.max_attempts);
  const double distance =
      (ToolPose(*model, result.q).translation() - target).norm();
  CHECK_THAT(distance, Catch::Matchers::WithinAbs(2.0 - 0.946, 1e-6));
  CHECK(model->WithinLimits(result.q, 0.0));
  return result;
}

TEST_CASE("Bounded LM reports an out-of-reach position as unreachable",
          "[solvers]") {
  BoundedLmOptions options;
  options.max_attempts = 20;
  SolveOutOfReach(options);
}

TEST_CASE("Bounded LM's restarts go on with fresh draws once the pool is spent",
          "[solvers]") {
  // From a mid-limits start, attempts 1–3 come from a pool of 3 points (no
  // residual evaluation), attempts 4–11 from the lowest-cost of
  // restart_candidates = 4 fresh draws (a residual evaluation each, no
  // Jacobian).
  BoundedLmOptions options;
  options.max_attempts = 12;
  options.restart_pool = 3;
  REQUIRE(options.restart_candidates == 4);
  const Result result = SolveOutOfReach(options);
  CHECK(result.function_evaluations - result.jacobian_evaluations == 8 * 4);
  // The same seed, the same answer (the fresh draws continue the pool's).
  CHECK(SolveOutOfReach(options).q == result.q);
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

TEST_CASE(
    "Bounded LM converges quadratically on the self-motion manifold of a "
    "redundant arm",
    "[solvers]") {
  // 7 coordinates, 6 pose residuals: JᵀJ is singular at every solution, so
  // a damping that does not fade with the residual converges only linearly
  // there (Fan & Yuan 2005). With μ = λ‖R‖ the last steps are Gauss–Newton
  // steps: ‖R_{k+1}‖ ≤ C‖R_k‖² once ‖R‖ is small.
  const auto model = IiwaLikeArm();
  std::mt19937 rng(77);
  BoundedLmOptions options;
  options.common.position_tolerance = 1e-12;
  options.common.angle_tolerance = 1e-12;
  options.common.time_budget_seconds = 0.0;
  options.common.record_trace = true;
  for (int t = 0; t < 50; ++t) {
    const Eigen::VectorXd q_true = testing::RandomConfiguration(*model, &rng);
    const Problem problem = PoseProblem(model, ToolPose(*model, q_true));
    // A start 0.05 rad from the solution along a random direction.
    std::normal_distribution<double> normal(0.0, 1.0);
    Eigen::VectorXd direction(7);
    for (int i = 0; i < 7; ++i) direction[i] = normal(rng);
    direction.normalize();
    const Eigen::VectorXd q0 = (q_true + 0.05 * direction)
                                   .cwiseMax(model->lower())
                                   .cwiseMin(model->upper());
    const Result result = Solve(problem, q0, options);
    REQUIRE(result.status == SolveStatus::kConverged);
    CHECK(result.attempts == 1);
    // Residual norms ‖R‖ = √(2·cost) of the start and the accepted iterates.
    // (Tolerance 1e-12: the last steps are then visible in the trace.)
    std::vector<double> norms = {std::sqrt(2.0 * result.initial_potential)};
    for (const IterationRecord& record : result.trace) {
      norms.push_back(std::sqrt(2.0 * record.potential));
    }
    for (size_t k = 1; k < norms.size(); ++k) {
      // Above the rounding floor (‖R‖ ~ 1e-15); C is ≤ 32 on these
      // targets, where a linearly converging method gives ‖R_{k+1}‖ ~
      // 0.01‖R_k‖, far above 100‖R_k‖² below 1e-4.
      if (norms[k - 1] < 1e-3 && norms[k - 1] > 1e-8) {
        CHECK(norms[k] <= 100.0 * norms[k - 1] * norms[k - 1]);
      }
    }
    // From 0.05 rad to 1e-12: a handful of iterations, not dozens.
    CHECK(result.iterations <= 8);
  }
}

TEST_CASE("Bounded LM reaches targets whose solution lies on joint limits",
          "[solvers]") {
  // a2 and a4 at their bounds (±120°), the others random: the attempt has to
  // press on the bounds to the end, which the bound stall test must not take
  // for a local minimum.
  const auto model = IiwaLikeArm();
  std::mt19937 rng(31);
  BoundedLmOptions options;
  options.common.time_budget_seconds = 0.0;
  int converged = 0;
  const int trials = 100;
  for (int t = 0; t < trials; ++t) {
    Eigen::VectorXd q_true = testing::RandomConfiguration(*model, &rng);
    q_true[1] = model->upper()[1];
    q_true[3] = model->lower()[3];
    const Eigen::Isometry3d target = ToolPose(*model, q_true);
    const Problem problem = PoseProblem(model, target);
    const Result result = Solve(problem, model->MidLimits(), options);
    CHECK(model->WithinLimits(result.q, 0.0));
    if (!result.converged()) continue;
    ++converged;
    const Eigen::Isometry3d reached = ToolPose(*model, result.q);
    CHECK((reached.translation() - target.translation()).norm() <= 1e-5);
  }
  CHECK(converged == trials);
}

TEST_CASE(
    "Bounded LM's best effort on an unreachable goal is a stationary point of "
    "the bounded problem",
    "[solvers]") {
  // Out of reach (3 m) and with a2, a4 confined to [0.2, 1.2]: the closest
  // point presses a4 (at least) on a bound. First-order optimality (KKT) for
  // min ½‖R‖² on a box: ∂/∂q_i = 0 inside, ≥ 0 on a lower bound, ≤ 0 on an
  // upper bound. The gradient is taken by central differences of the cost.
  const auto model = IiwaLikeArm();
  Problem problem(model);
  problem.mutable_bounds()->Set(1, 0.2, 1.2);
  problem.mutable_bounds()->Set(3, 0.2, 1.2);
  const Eigen::Vector3d target(-2.0, 2.0, 1.0);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tool", target));
  BoundedLmOptions options;
  options.common.time_budget_seconds = 0.0;
  options.max_attempts = 20;
  const Result result = Solve(problem, model->MidLimits(), options);
  CHECK(result.status != SolveStatus::kConverged);
  CHECK(result.attempts == 20);
  const Eigen::VectorXd& q = result.q;
  REQUIRE(problem.bounds().Contains(q));
  const auto cost = [&](const Eigen::VectorXd& x) {
    return 0.5 * (ToolPose(*model, x).translation() - target).squaredNorm();
  };
  const Eigen::VectorXd& lower = problem.bounds().lower;
  const Eigen::VectorXd& upper = problem.bounds().upper;
  int on_bound = 0;
  for (int i = 0; i < 7; ++i) {
    const double h = 1e-6;
    Eigen::VectorXd plus = q, minus = q;
    plus[i] = std::min(q[i] + h, upper[i]);
    minus[i] = std::max(q[i] - h, lower[i]);
    const double gradient = (cost(plus) - cost(minus)) / (plus[i] - minus[i]);
    if (q[i] <= lower[i]) {
      ++on_bound;
      CHECK(gradient >= -1e-6);
    } else if (q[i] >= upper[i]) {
      ++on_bound;
      CHECK(gradient <= 1e-6);
    } else {
      CHECK(std::abs(gradient) <= 1e-6);
    }
  }
  CHECK(on_bound >= 1);
}

// The benchmark's stopping tolerances, no time budget (deterministic counts).
BoundedLmOptions PandaBenchmarkOptions() {
  BoundedLmOptions options;
  options.common.time_budget_seconds = 0.0;
  options.common.position_tolerance = 1e-5;
  options.common.angle_tolerance = 1e-5;
  return options;
}

// Solves 500 pose targets of the shipped Panda (the benchmark's problem, at
// random configurations drawn from `seed`) from mid-limits (or, if
// `random_starts`, from a random configuration drawn after each target) with
// options `a` and with options `b`, requires both to converge, and hands each
// pair of results to `compare`.
void ComparePandaSolves(
    const BoundedLmOptions& a, const BoundedLmOptions& b, unsigned seed,
    const std::function<void(const Result&, const Result&)>& compare,
    bool random_starts = false) {
  const UrdfFigure urdf =
      LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"),
                    "panda_link0", "panda_hand");
  const auto model = std::make_shared<const Model>(urdf.figure.Compile());
  Problem problem(model);
  PositionOrientationScales scales;
  scales.w_o = 0.4 * 0.4;
  auto goal = std::make_shared<PositionOrientationGoal>(
      *model, "panda_hand", Eigen::Isometry3d::Identity(), 1.0, scales);
  problem.AddGoal(goal);
  std::mt19937 rng(seed);
  Data data(*model);
  for (int t = 0; t < 500; ++t) {
    const Eigen::VectorXd q_true = testing::RandomConfiguration(*model, &rng);
    ForwardKinematics(*model, q_true, &data);
    goal->set_target(SitePose(*model, data, model->SiteIndex("panda_hand")));
    const Eigen::VectorXd q0 = random_starts
                                   ? testing::RandomConfiguration(*model, &rng)
                                   : model->MidLimits();
    const Result result_a = Solve(problem, q0, a);
    const Result result_b = Solve(problem, q0, b);
    REQUIRE(result_a.converged());
    REQUIRE(result_b.converged());
    compare(result_a, result_b);
  }
}

TEST_CASE("Bounded LM's first-step test saves evaluations on the Panda",
          "[solvers]") {
  // Deterministic counts, not time, from random starts (where most first
  // attempts fail): attempts whose first step leaves more than 0.7 of ‖R‖
  // are left at once. Every attempt costs an evaluation at its start and
  // one per iteration, so the count includes the extra attempts. The ratio
  // varies with the targets (0.84–0.90 over seeds 3000–3009 of 500): 2,000
  // targets.
  const BoundedLmOptions with_test = PandaBenchmarkOptions();
  REQUIRE(with_test.first_step_ratio == 0.7);
  REQUIRE(with_test.first_step_attempts == 4);
  BoundedLmOptions without_test = with_test;
  without_test.first_step_ratio = 1.0;
  long evaluations_with = 0, evaluations_without = 0, attempts_with = 0,
       attempts_without = 0;
  for (unsigned seed = 2031; seed < 2035; ++seed) {
    ComparePandaSolves(
        with_test, without_test, seed,
        [&](const Result& a, const Result& b) {
          evaluations_with += a.function_evaluations;
          evaluations_without += b.function_evaluations;
          attempts_with += a.attempts;
          attempts_without += b.attempts;
        },
        /*random_starts=*/true);
  }
  CHECK(attempts_with > attempts_without);  // the test did abandon attempts
  CHECK(evaluations_with < 0.92 * evaluations_without);
  // first_step_attempts = 0 turns it off as first_step_ratio = 1 does.
  BoundedLmOptions zero_attempts = with_test;
  zero_attempts.first_step_attempts = 0;
  ComparePandaSolves(
      zero_attempts, without_test, 2035,
      [&](const Result& a, const Result& b) {
        CHECK(a.iterations == b.iterations);
        CHECK(a.q == b.q);
      },
      /*random_starts=*/true);
}

TEST_CASE("Bounded LM's bound stall test saves evaluations on the Panda",
          "[solvers]") {
  // Deterministic counts, not time: with the test, attempts stuck on the
  // Panda's limits are left early.
  const BoundedLmOptions with_test = PandaBenchmarkOptions();
  BoundedLmOptions without_test = with_test;
  without_test.bound_stall_ratio = 0.0;
  long evaluations_with = 0, evaluations_without = 0;
  ComparePandaSolves(with_test, without_test, 2026,
                     [&](const Result& a, const Result& b) {
                       evaluations_with += a.function_evaluations;
                       evaluations_without += b.function_evaluations;
                     });
  CHECK(evaluations_with < 0.95 * evaluations_without);
}

TEST_CASE(
    "Bounded LM's best-of-four restart points save iterations on the Panda",
    "[solvers]") {
  // Deterministic counts, not time: about 30 % of the targets need a
  // restart from mid-limits; restarts from the lowest-cost of four random
  // draws against single draws. The candidates cost one residual evaluation
  // each and no Jacobian: compare Jacobian evaluations (one per iteration).
  BoundedLmOptions best_of_four = PandaBenchmarkOptions();
  REQUIRE(best_of_four.restart_candidates == 4);
  best_of_four.restart_pool = 0;  // restart_candidates are its fallback
  BoundedLmOptions single = best_of_four;
  single.restart_candidates = 1;
  long jacobians_best = 0, jacobians_single = 0, restarted = 0;
  ComparePandaSolves(
      best_of_four, single, 2027, [&](const Result& a, const Result& b) {
        if (b.attempts > 1) ++restarted;
        // Each random restart of `a` spent three more residual evaluations.
        if (a.attempts > 2) {
          CHECK(a.function_evaluations >= a.jacobian_evaluations + 3);
        }
        jacobians_best += a.jacobian_evaluations;
        jacobians_single += b.jacobian_evaluations;
      });
  CHECK(restarted >= 100);
  CHECK(jacobians_best < 0.9 * jacobians_single);
}

TEST_CASE("Bounded LM's restart pool saves iterations on the Panda",
          "[solvers]") {
  // Deterministic counts, not time: restarts from the lowest-cost points of
  // a pool of 128 against the lowest-cost of four fresh draws. Ranking the
  // pool costs no evaluation; compare Jacobian evaluations (one per
  // iteration). The saving is carried by the ~30 % of targets that restart,
  // a few of them with many restarts, so 500 targets vary (0.84–0.98 over
  // seeds 2020–2029): 4,000 targets.
  const BoundedLmOptions pooled = PandaBenchmarkOptions();
  REQUIRE(pooled.restart_pool == 128);
  BoundedLmOptions fresh = pooled;
  fresh.restart_pool = 0;
  long jacobians_pooled = 0, jacobians_fresh = 0, restarted = 0;
  for (unsigned seed = 2020; seed < 2028; ++seed) {
    ComparePandaSolves(pooled, fresh, seed,
                       [&](const Result& a, const Result& b) {
                         // The start is mid-limits: attempts from the second
                         // on are restarts, and a pool point costs no
                         // residual evaluation.
                         if (a.attempts > 1) {
                           ++restarted;
                           CHECK(a.function_evaluations ==
                                 a.jacobian_evaluations);
                         }
                         jacobians_pooled += a.jacobian_evaluations;
                         jacobians_fresh += b.jacobian_evaluations;
                       });
  }
  CHECK(restarted >= 500);
  CHECK(jacobians_pooled < 0.95 * jacobians_fresh);
}

TEST_CASE(
    "Bounded LM answers the same whether its restart pool was cached or "
    "built",
    "[solvers]") {
  // The pool is a function of (model, site, box, seed): a solve that builds
  // it (a new model object) and one that finds it cached agree bit for bit.
  const UrdfFigure urdf =
      LoadUrdfChain(testing::ShippedDataFile("robots/baxter_left_arm.urdf"), "base",
                    "left_gripper");
  const auto model = std::make_shared<const Model>(urdf.figure.Compile());
  const int site = model->SiteIndex("left_gripper");
  const auto problem = [](const std::shared_ptr<const Model>& m,
                          const Eigen::Isometry3d& target) {
    Problem p(m);
    PositionOrientationScales scales;
    scales.w_o = 0.4 * 0.4;
    p.AddGoal(std::make_shared<PositionOrientationGoal>(*m, "left_gripper",
                                                        target, 1.0, scales));
    return p;
  };
  std::mt19937 rng(31);
  const BoundedLmOptions options = PandaBenchmarkOptions();
  int restarted = 0;
  for (int t = 0; t < 40; ++t) {
    Data data(*model);
    ForwardKinematics(*model, testing::RandomConfiguration(*model, &rng),
                      &data);
    const Eigen::Isometry3d target = SitePose(*model, data, site);
    const Eigen::VectorXd seed = testing::RandomConfiguration(*model, &rng);
    // A fresh copy of the model: a cache miss, the pool built anew.
    const auto copy = std::make_shared<const Model>(*model);
    const Result built = Solve(problem(copy, target), seed, options);
    const Result cached = Solve(problem(model, target), seed, options);
    const Result again = Solve(problem(model, target), seed, options);
    REQUIRE(built.converged());
    if (built.attempts > 2) ++restarted;
    CHECK(cached.q == built.q);
    CHECK(again.q == built.q);
    CHECK(cached.iterations == built.iterations);
  }
  CHECK(restarted >= 5);
}

TEST_CASE("Bounded LM turns a full-turn joint on its bound the other way",
          "[solvers]") {
  // The UR5's shoulder pan spans [−2π, 2π]. From a seed with it on its upper
  // bound, the target needs it 0.4 rad further: the same pose as 0.4 − 2π…
  // and 0.4, both inside the limits. Held on the bound the other joints
  // cannot make up a turn of the base; turned by −2π the joint moves on.
  const UrdfFigure urdf = LoadUrdfChain(
      testing::ShippedDataFile("robots/ur5.urdf"), "base_link", "ee_link");
  const auto model = std::make_shared<const Model>(urdf.figure.Compile());
  REQUIRE(model->upper()[0] == Approx(2 * M_PI));
  Eigen::VectorXd seed(6);
  seed << model->upper()[0], -1.2, 1.4, -0.8, 1.1, 0.3;
  Eigen::VectorXd q_true = seed;
  q_true[0] = 0.4;
  Problem problem(model);
  PositionOrientationScales scales;
  scales.w_o = 0.4 * 0.4;
  Data data(*model);
  ForwardKinematics(*model, q_true, &data);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *model, "ee_link", SitePose(*model, data, model->SiteIndex("ee_link")),
      1.0, scales));
  BoundedLmOptions options;
  options.common.time_budget_seconds = 0.0;
  options.max_attempts = 1;
  const Result result = Solve(problem, seed, options);
  REQUIRE(result.converged());
  CHECK(result.attempts == 1);
  CHECK(problem.bounds().Contains(result.q));
  // It went on from the seed: the nearby solution, not another branch.
  CHECK((result.q - q_true).cwiseAbs().maxCoeff() <= 1e-4);
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
  // One option at a bad value, the others at their defaults: refused with a
  // message naming it.
  const auto check_refused = [&](void (*set_bad)(BoundedLmOptions*),
                                 const char* message) {
    INFO(message);
    BoundedLmOptions bad;
    set_bad(&bad);
    const Result refused = Solve(problem, model->MidLimits(), bad);
    CHECK(refused.status == SolveStatus::kInvalidInput);
    CHECK_THAT(refused.message, Catch::Contains(message));
  };
  check_refused([](BoundedLmOptions* o) { o->initial_damping = -1.0; },
                "initial_damping must be finite and > 0");
  check_refused([](BoundedLmOptions* o) { o->stall_ratio = 0.0; },
                "stall_ratio must be in (0, 1], got 0");
  check_refused([](BoundedLmOptions* o) { o->bound_stall_ratio = 1.5; },
                "bound_stall_ratio must be in [0, 1], got 1.5");
  check_refused([](BoundedLmOptions* o) { o->first_step_ratio = 0.0; },
                "first_step_ratio must be in (0, 1], got 0");
  check_refused([](BoundedLmOptions* o) { o->first_step_attempts = -1; },
                "first_step_attempts must be >= 0, got -1");
  check_refused([](BoundedLmOptions* o) { o->restart_candidates = 0; },
                "restart_candidates must be >= 1, got 0");
  check_refused([](BoundedLmOptions* o) { o->restart_pool = -1; },
                "restart_pool must be in [0, 65536], got -1");
  check_refused(
      [](BoundedLmOptions* o) {
        o->restart_pool = BoundedLmOptions::kMaxRestartPool + 1;
      },
      "got 65537");
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
    // Per-solve set-up allocates; more iterations must not add any. (The
    // first solve on a model also builds the fused kernel's chain, kept for
    // the later ones: a warm-up solve first.)
    allocations(2);
    const long few = allocations(2);
    CHECK(allocations(40) == few);
  }
}

}  // namespace
}  // namespace iklab
