// Problem, ProblemWorkspace and Bounds: stacking and offsets, boundary
// validation, errors in natural units, allocation-free evaluation and
// thread safety.

#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/bounds.h"
#include "constraints/composite_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "constraints/regularizers.h"
#include "framework/kinematics.h"
#include "tests/allocation_counter.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using GoalList = std::vector<std::shared_ptr<const Goal>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::shared_ptr<const Model> RandomModel(unsigned seed, int joints = 10) {
  std::mt19937 rng(seed);
  testing::RandomFigureOptions options;
  options.num_joints = joints;
  return std::make_shared<const Model>(
      testing::RandomFigure(&rng, options).Compile());
}

TEST_CASE("Bounds come from the model's limits and accept per-coordinate "
          "overrides",
          "[constraints]") {
  const auto model = RandomModel(1);
  Bounds bounds = Bounds::FromModel(*model);
  CHECK(bounds.size() == model->nq());
  CHECK(bounds.lower == model->lower());
  CHECK(bounds.upper == model->upper());
  CHECK(bounds.IsValid(nullptr));

  bounds.Set(0, -0.1, 0.2);
  CHECK(bounds.lower[0] == -0.1);
  CHECK(bounds.upper[0] == 0.2);
  const std::string name = model->dof_name(1);
  bounds.Set(*model, name, -0.3, 0.4);
  CHECK(bounds.lower[1] == -0.3);
  CHECK(bounds.upper[1] == 0.4);

  Eigen::VectorXd q = model->MidLimits();
  q[0] = 0.0;
  q[1] = 0.0;
  CHECK(bounds.Contains(q));
  q[0] = 0.5;
  CHECK_FALSE(bounds.Contains(q));
  CHECK(bounds.Contains(q, 0.31));
  q[1] = -1.0;
  const Eigen::VectorXd projected = bounds.Project(q);
  CHECK(projected[0] == 0.2);
  CHECK(projected[1] == -0.3);
  CHECK(bounds.Contains(projected));
  CHECK(projected.tail(model->nq() - 2) == q.tail(model->nq() - 2));
  q[2] = kNaN;
  CHECK_FALSE(bounds.Contains(q));
  CHECK_FALSE(bounds.Contains(Eigen::VectorXd::Zero(1)));

  const Bounds free = Bounds::Unbounded(3);
  CHECK(free.Contains(Eigen::Vector3d(1e300, -1e300, 0)));
}

TEST_CASE("Invalid bounds are reported with the coordinate and values",
          "[constraints]") {
  const auto model = RandomModel(2);
  Bounds bounds = Bounds::FromModel(*model);
  REQUIRE_THROWS_WITH(bounds.Set(1, 0.5, -0.5),
                      Contains("coordinate 1") && Contains("lower = 0.5, upper = -0.5"));
  REQUIRE_THROWS_WITH(bounds.Set(0, kNaN, 1.0), Contains("no NaN"));
  REQUIRE_THROWS_WITH(bounds.Set(model->nq(), 0, 1), Contains("out of range"));
  REQUIRE_THROWS_WITH(bounds.Set(*model, "no_such_joint", 0, 1),
                      Contains("no_such_joint"));
  REQUIRE_THROWS_WITH(bounds.Project(Eigen::VectorXd::Zero(1)),
                      Contains("q has 1 entries"));

  bounds.lower[2] = 3.0;
  bounds.upper[2] = 2.0;
  std::string why;
  CHECK_FALSE(bounds.IsValid(&why));
  CHECK_THAT(
      why,
      Contains(
          "Bounds::lower must be <= upper, got coordinate 2 with lower = 3 > "
          "upper = 2"));
  REQUIRE_THROWS_WITH(bounds.Validate(),
                      Contains("coordinate 2 with lower = 3 > upper = 2"));
  Problem problem(model);
  REQUIRE_THROWS_WITH(problem.set_bounds(bounds), Contains("lower = 3"));
  REQUIRE_THROWS_WITH(problem.set_bounds(Bounds::Unbounded(2)),
                      Contains("expected " + std::to_string(model->nq()) +
                               " coordinates, got 2"));
  bounds.upper.resize(1);
  CHECK_FALSE(bounds.IsValid(&why));
  CHECK_THAT(why,
             Contains("Bounds::upper must have as many entries as lower") &&
                 Contains("got 1"));
}

TEST_CASE("The Problem stacks sqrt(w) r of goals, then regularizers",
          "[constraints]") {
  const auto model = RandomModel(3);
  std::mt19937 rng(3);
  const Eigen::VectorXd q = testing::RandomConfiguration(*model, &rng);
  Data data(*model);
  ForwardKinematics(*model, q, &data);
  const Eigen::Vector3d p0 = SitePosition(*model, data, 0);

  Problem problem(model);
  const auto tikhonov =
      std::make_shared<TikhonovRegularizer>(*model, 0.5, Eigen::VectorXd::Zero(model->nq()));
  CHECK(problem.AddRegularizer(tikhonov) == 0);
  const Eigen::Vector3d d(0.1, 0.2, 0.3);
  CHECK(problem.AddGoal(std::make_shared<PositionGoal>(*model, "site0", p0 + d, 4.0)) == 0);
  CHECK(problem.AddGoal(std::make_shared<PlaneGoal>(
            *model, "site0", p0 + Eigen::Vector3d(0, 0, 1), Eigen::Vector3d::UnitZ(),
            9.0)) == 1);
  CHECK(problem.num_residuals() == 3 + 1 + model->nq());
  CHECK(problem.goal_offset(0) == 0);
  CHECK(problem.goal_offset(1) == 3);
  CHECK(problem.regularizer_offset(0) == 4);

  ProblemWorkspace ws(problem);
  Eigen::VectorXd R(problem.num_residuals());
  problem.EvaluateResiduals(q, &ws, R, nullptr);
  CHECK((R.head<3>() - 2.0 * d).norm() < 1e-12);  // √4 · d
  CHECK_THAT(R[3], WithinAbs(3.0, 1e-12));        // √9 · 1
  CHECK((R.tail(model->nq()) - q).norm() < 1e-12);  // √(2·0.5) q

  const std::vector<GoalError> errors = problem.GoalErrors(q, &ws);
  REQUIRE(errors.size() == 2);  // regularizers are not goals
  CHECK_THAT(errors[0].position, WithinAbs(d.norm(), 1e-12));
  CHECK_THAT(errors[1].position, WithinAbs(1.0, 1e-12));
  const ErrorSummary summary = Summarize(errors);
  CHECK(summary.max_position == errors[1].position);
  CHECK(summary.worst_position_goal == 1);
  CHECK_FALSE(summary.any_degenerate);
  CHECK(Summarize({}).worst_position_goal == -1);
}

TEST_CASE("Problem evaluation validates q, the workspace and output sizes",
          "[constraints]") {
  const auto model = RandomModel(4);
  const auto other = RandomModel(5, 4);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "site0", Eigen::Vector3d::Zero()));
  ProblemWorkspace ws(problem);
  const int nq = model->nq();
  Eigen::VectorXd R(problem.num_residuals());

  REQUIRE_THROWS_WITH(problem.EvaluateResiduals(Eigen::VectorXd::Zero(nq + 1), &ws, R, nullptr),
                      Contains("expected " + std::to_string(nq) + " joint coordinates"));
  Eigen::VectorXd bad = Eigen::VectorXd::Zero(nq);
  bad[0] = kNaN;
  REQUIRE_THROWS_WITH(problem.EvaluatePotential(bad, &ws, nullptr),
                      Contains("Problem::EvaluatePotential") && Contains("coordinate 0"));
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(nq);
  Eigen::VectorXd R_short(2);
  REQUIRE_THROWS_WITH(problem.EvaluateResiduals(q, &ws, R_short, nullptr),
                      Contains("residuals has 2 entries; expected 3"));
  Eigen::MatrixXd J(3, nq - 1);
  Eigen::Ref<Eigen::MatrixXd> J_ref = J;
  REQUIRE_THROWS_WITH(problem.EvaluateResiduals(q, &ws, R, &J_ref),
                      Contains("jacobian is 3 x " + std::to_string(nq - 1)));
  Eigen::VectorXd g(1);
  Eigen::Ref<Eigen::VectorXd> g_ref = g;
  REQUIRE_THROWS_WITH(problem.EvaluatePotential(q, &ws, &g_ref),
                      Contains("gradient has 1 entries"));

  // A workspace made before the problem grew, or for another problem.
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "site1", Eigen::Vector3d::Zero()));
  REQUIRE_THROWS_WITH(problem.EvaluatePotential(q, &ws, nullptr),
                      Contains("workspace was made for another problem"));
  Problem other_problem(other);
  ProblemWorkspace other_ws(other_problem);
  REQUIRE_THROWS_WITH(problem.EvaluatePotential(q, &other_ws, nullptr),
                      Contains("workspace"));
  REQUIRE_THROWS_WITH(problem.EvaluatePotential(q, nullptr, nullptr),
                      Contains("workspace is null"));

  // Goals built for a different model.
  const auto foreign = std::make_shared<PositionGoal>(*other, "site2", Eigen::Vector3d::Zero());
  Problem small(RandomModel(6, 2));  // same site names, different figure
  CHECK_NOTHROW(small.AddGoal(foreign));  // site 2 exists with the same name
  const auto foreign_tikhonov =
      std::make_shared<TikhonovRegularizer>(*other, 1.0, Eigen::VectorXd::Zero(other->nq()));
  if (other->nq() != nq) {
    REQUIRE_THROWS_WITH(problem.AddRegularizer(foreign_tikhonov),
                        Contains("built for a model with nq = "));
  }
  REQUIRE_THROWS_WITH(problem.AddGoal(nullptr), Contains("Problem::AddGoal: goal is null"));
  REQUIRE_THROWS_WITH(Problem(nullptr), Contains("model is null"));
}

TEST_CASE("A goal whose site index does not exist in the problem's model is "
          "rejected",
          "[constraints]") {
  std::mt19937 rng(21);
  testing::RandomFigureOptions many;
  many.num_sites = 5;
  const Model big = testing::RandomFigure(&rng, many).Compile();
  testing::RandomFigureOptions few;
  few.num_sites = 2;
  const auto small = std::make_shared<const Model>(testing::RandomFigure(&rng, few).Compile());
  Problem problem(small);
  const auto goal = std::make_shared<PositionGoal>(big, "site4", Eigen::Vector3d::Zero());
  REQUIRE_THROWS_WITH(problem.AddGoal(goal),
                      Contains("position(site4)") && Contains("this model has 2 sites") &&
                          Contains("different model"));
  // Composite goals check their children.
  const auto sum = std::make_shared<WeightedSumGoal>(GoalList{goal});
  REQUIRE_THROWS_WITH(problem.AddGoal(sum), Contains("position(site4)"));
}

TEST_CASE("Problem evaluation does not allocate once the workspace exists",
          "[constraints]") {
  const auto model = RandomModel(7, 12);
  std::mt19937 rng(7);
  const Eigen::VectorXd q = testing::RandomConfiguration(*model, &rng);
  Problem problem(model);
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = Eigen::Vector3d(0.5, 0.2, 0.1);
  const auto a = std::make_shared<PositionGoal>(*model, "site0", Eigen::Vector3d(1, 0, 0));
  const auto b = std::make_shared<PlaneGoal>(*model, "site1", Eigen::Vector3d::Zero(),
                                             Eigen::Vector3d::UnitY());
  problem.AddGoal(a);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(*model, "site2", X));
  problem.AddGoal(std::make_shared<WeightedSumGoal>(GoalList{a, b}));
  problem.AddGoal(std::make_shared<DisjunctiveGoal>(GoalList{b, a}));
  problem.AddRegularizer(std::make_shared<TikhonovRegularizer>(*model, 0.1, q));
  problem.AddRegularizer(std::make_shared<JointCenterBias>(
      *model, model->MidLimits(), Eigen::VectorXd::Ones(model->nq())));
  ProblemWorkspace ws(problem);
  Eigen::VectorXd R(problem.num_residuals());
  Eigen::MatrixXd J(problem.num_residuals(), model->nq());
  Eigen::VectorXd gradient(model->nq());
  std::vector<GoalError> errors;
  errors.reserve(problem.goals().size());
  if (!testing::AllocationCounter::enabled()) {
    WARN("allocation counting is off in sanitizer builds");
    return;
  }
  testing::AllocationCounter counter;
  for (int k = 0; k < 5; ++k) {
    Eigen::Ref<Eigen::MatrixXd> J_ref = J;
    problem.EvaluateResiduals(q, &ws, R, &J_ref);
    problem.EvaluateResiduals(q, &ws, R, nullptr);
    Eigen::Ref<Eigen::VectorXd> g_ref = gradient;
    problem.EvaluatePotential(q, &ws, &g_ref);
    problem.EvaluatePotential(q, &ws, nullptr);
    problem.GoalErrors(q, &ws, &errors);
  }
  CHECK(counter.count() == 0);
}

TEST_CASE("Threads evaluating one Problem with their own workspaces agree",
          "[constraints]") {
  const auto model = RandomModel(8, 20);
  std::mt19937 rng(8);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "site0", Eigen::Vector3d(1, 1, 0)));
  problem.AddGoal(std::make_shared<OrientationGoal>(*model, "site1",
                                                    Eigen::Matrix3d::Identity()));
  std::vector<Eigen::VectorXd> poses;
  std::vector<double> expected;
  ProblemWorkspace ws(problem);
  for (int k = 0; k < 32; ++k) {
    poses.push_back(testing::RandomConfiguration(*model, &rng));
    expected.push_back(problem.EvaluatePotential(poses.back(), &ws, nullptr));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      ProblemWorkspace own(problem);
      for (int rep = 0; rep < 20; ++rep) {
        for (size_t k = 0; k < poses.size(); ++k) {
          if (problem.EvaluatePotential(poses[k], &own, nullptr) != expected[k]) {
            ++mismatches;
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace iklab
