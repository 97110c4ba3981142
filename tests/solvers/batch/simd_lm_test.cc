#include "solvers/batch/simd_lm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <hwy/targets.h>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "solvers/batch_solve.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

struct Arm {
  std::shared_ptr<const Model> model;
  std::string site;
};

Arm LoadArm(const std::string& file, const std::string& base,
            const std::string& tip) {
  const UrdfFigure urdf =
      LoadUrdfChain(testing::ShippedDataFile("robots/" + file), base, tip);
  return {std::make_shared<const Model>(urdf.figure.Compile()), tip};
}

// `items` reachable pose targets (rows x y z qw qx qy qz) at random
// configurations, and starts: random ones, or mid-limits.
struct Items {
  RowMatrixXd targets, starts;
};

Items MakeItems(const Model& model, const std::string& site, int items,
                unsigned seed, bool random_starts, bool positions = false) {
  std::mt19937 rng(seed);
  Data data(model);
  Items out{RowMatrixXd(items, positions ? 3 : 7), RowMatrixXd(items, model.nq())};
  for (int i = 0; i < items; ++i) {
    ForwardKinematics(model, testing::RandomConfiguration(model, &rng), &data);
    const Eigen::Isometry3d X = SitePose(model, data, model.SiteIndex(site));
    const Eigen::Quaterniond q(X.linear());
    if (positions) {
      out.targets.row(i) = X.translation().transpose();
    } else {
      out.targets.row(i) << X.translation().transpose(), q.w(), q.x(), q.y(),
          q.z();
    }
    out.starts.row(i) = random_starts
                            ? testing::RandomConfiguration(model, &rng).transpose()
                            : model.MidLimits().transpose();
  }
  return out;
}

Problem PoseProblem(const Arm& arm, bool positions = false) {
  Problem problem(arm.model);
  if (positions) {
    problem.AddGoal(std::make_shared<PositionGoal>(*arm.model, arm.site,
                                                   Eigen::Vector3d::Zero()));
  } else {
    PositionOrientationScales scales;
    scales.w_o = 0.4 * 0.4;
    problem.AddGoal(std::make_shared<PositionOrientationGoal>(
        *arm.model, arm.site, Eigen::Isometry3d::Identity(), 1.0, scales));
  }
  return problem;
}

struct Answers {
  std::vector<double> q;
  std::vector<SolveStatus> status;
  std::vector<int> iterations;
};

Answers SolveAll(const SimdBoundedLm& simd, const Items& items, int begin,
                 int count) {
  Answers a;
  a.q.assign(std::size_t(count) * simd.nq(), 0.0);
  a.status.assign(count, SolveStatus::kNotSolved);
  a.iterations.assign(count, -1);
  SimdLmOutput out;
  out.q = a.q.data();
  out.status = a.status.data();
  out.iterations = a.iterations.data();
  simd.Solve(items.targets.data() + std::size_t(begin) * items.targets.cols(),
             items.starts.data() + std::size_t(begin) * simd.nq(), count, out);
  return a;
}

// The independent check: the framework's FK at the answer, the goal's error
// formulas, and the bounds.
void CheckAnswer(const Arm& arm, const Eigen::VectorXd& q,
                 const Eigen::RowVectorXd& target, const SolveOptions& c) {
  const Model& model = *arm.model;
  Data data(model);
  ForwardKinematics(model, q, &data);
  const Eigen::Isometry3d X = SitePose(model, data, model.SiteIndex(arm.site));
  CHECK((target.head<3>().transpose() - X.translation()).norm() <=
        c.position_tolerance);
  if (target.size() == 7) {
    const Eigen::Quaterniond goal(target[3], target[4], target[5], target[6]);
    const double angle =
        Eigen::AngleAxisd(goal.normalized().toRotationMatrix().transpose() *
                          X.linear())
            .angle();
    CHECK(angle <= c.angle_tolerance * (1 + 1e-6));
  }
  for (int i = 0; i < model.nq(); ++i) {
    CHECK(q[i] >= model.lower()[i]);
    CHECK(q[i] <= model.upper()[i]);
  }
}

void CompareWithScalar(const Arm& arm, bool random_starts, bool positions,
                       int count, unsigned seed) {
  const Problem problem = PoseProblem(arm, positions);
  const BoundedLmOptions options;
  const SimdBoundedLm simd(problem, options);
  const Items items =
      MakeItems(*arm.model, arm.site, count, seed, random_starts, positions);
  const Answers a = SolveAll(simd, items, 0, count);
  // The scalar solver on the same targets, through SolveBatch's scalar path.
  BatchOptions scalar_options;
  scalar_options.simd = false;
  const BatchResult scalar = SolveBatch(BoundedLmSolver(options), problem,
                                        items.targets, items.starts,
                                        scalar_options);
  REQUIRE_THAT(scalar.method, Contains("scalar"));
  int simd_converged = 0, scalar_converged = 0;
  for (int i = 0; i < count; ++i) {
    const Eigen::VectorXd q =
        Eigen::Map<const Eigen::VectorXd>(&a.q[std::size_t(i) * simd.nq()], simd.nq());
    if (a.status[i] == SolveStatus::kConverged) {
      ++simd_converged;
      CheckAnswer(arm, q, items.targets.row(i), options.common);
    }
    if (scalar.status[i] == SolveStatus::kConverged) ++scalar_converged;
  }
  CHECK(simd_converged == count);
  CHECK(scalar_converged == count);
}

TEST_CASE("The SIMD batch solver solves the Panda's pose targets as the "
          "scalar solver does, and the answers pass the FK check",
          "[solvers]") {
  const Arm panda = LoadArm("panda.urdf", "panda_link0", "panda_hand");
  CompareWithScalar(panda, /*random_starts=*/true, false, 203, 41);
  CompareWithScalar(panda, /*random_starts=*/false, false, 203, 42);
}

TEST_CASE("The SIMD batch solver solves the iiwa14's and the UR5's targets",
          "[solvers]") {
  const Arm iiwa = LoadArm("iiwa14.urdf", "base", "iiwa_link_ee");
  CompareWithScalar(iiwa, true, false, 101, 43);
  CompareWithScalar(iiwa, true, /*positions=*/true, 101, 44);
  // The UR5's ±2π joints take the full-turn path.
  const Arm ur5 = LoadArm("ur5.urdf", "base_link", "ee_link");
  CompareWithScalar(ur5, true, false, 101, 45);
}

TEST_CASE("The SIMD batch solver solves on every instruction set this "
          "machine runs, through the fixed-size and the general step kernels",
          "[solvers]") {
  const Arm panda = LoadArm("panda.urdf", "panda_link0", "panda_hand");
  const Arm iiwa = LoadArm("iiwa14.urdf", "base", "iiwa_link_ee");
  // Five coordinates: the step kernel that reads nq from the plan.
  const Arm panda5 = LoadArm("panda.urdf", "panda_link0", "panda_link5");
  REQUIRE(panda5.model->nq() == 5);
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  REQUIRE(!targets.empty());
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    INFO("instruction set " << hwy::TargetName(target));
    CHECK(SimdBoundedLm::TargetName() == hwy::TargetName(target));
    CompareWithScalar(panda, /*random_starts=*/true, false, 37, 51);
    CompareWithScalar(iiwa, true, /*positions=*/true, 37, 52);
    CompareWithScalar(panda5, true, /*positions=*/true, 37, 53);
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("The SIMD batch solver's answers do not depend on the batch, the "
          "lane or a second run",
          "[solvers]") {
  const Arm panda = LoadArm("panda.urdf", "panda_link0", "panda_hand");
  const Problem problem = PoseProblem(panda);
  const SimdBoundedLm simd(problem, BoundedLmOptions{});
  const int count = 3 * SimdBoundedLm::Lanes() + 3;  // not a multiple
  const Items items = MakeItems(*panda.model, panda.site, count, 7, true);
  const Answers first = SolveAll(simd, items, 0, count);
  const Answers again = SolveAll(simd, items, 0, count);
  CHECK(first.q == again.q);
  CHECK(first.iterations == again.iterations);
  // The items from 5 on, solved as a batch of their own (other lanes, other
  // neighbours, a different batch size), and one by one.
  const Answers tail = SolveAll(simd, items, 5, count - 5);
  for (int i = 5; i < count; ++i) {
    for (int c = 0; c < simd.nq(); ++c) {
      CHECK(tail.q[(i - 5) * simd.nq() + c] == first.q[i * simd.nq() + c]);
    }
    const Answers one = SolveAll(simd, items, i, 1);
    CHECK(one.iterations[0] == first.iterations[i]);
    CHECK(std::equal(one.q.begin(), one.q.end(),
                     first.q.begin() + i * simd.nq()));
  }
}

TEST_CASE("Lanes of the SIMD batch solver finish at different iterations and "
          "take the next problem",
          "[solvers]") {
  const Arm panda = LoadArm("panda.urdf", "panda_link0", "panda_hand");
  const Problem problem = PoseProblem(panda);
  const SimdBoundedLm simd(problem, BoundedLmOptions{});
  const int count = 4 * SimdBoundedLm::Lanes() + 1;
  Items items = MakeItems(*panda.model, panda.site, count, 9, true);
  // Every third item starts at its answer: converged before any iteration,
  // while its neighbours iterate.
  std::mt19937 rng(9);
  Data data(*panda.model);
  for (int i = 0; i < count; i += 3) {
    const Eigen::VectorXd q = testing::RandomConfiguration(*panda.model, &rng);
    ForwardKinematics(*panda.model, q, &data);
    const Eigen::Isometry3d X =
        SitePose(*panda.model, data, panda.model->SiteIndex(panda.site));
    const Eigen::Quaterniond r(X.linear());
    items.targets.row(i) << X.translation().transpose(), r.w(), r.x(), r.y(), r.z();
    items.starts.row(i) = q.transpose();
  }
  const Answers a = SolveAll(simd, items, 0, count);
  int max_iterations = 0;
  for (int i = 0; i < count; ++i) {
    REQUIRE(a.status[i] == SolveStatus::kConverged);
    if (i % 3 == 0) CHECK(a.iterations[i] == 0);
    max_iterations = std::max(max_iterations, a.iterations[i]);
    CheckAnswer(panda,
                Eigen::Map<const Eigen::VectorXd>(&a.q[i * simd.nq()], simd.nq()),
                items.targets.row(i), BoundedLmOptions{}.common);
  }
  CHECK(max_iterations > 3);
}

TEST_CASE("The SIMD batch solver refuses non-finite targets and problems it "
          "does not cover",
          "[solvers]") {
  const Arm panda = LoadArm("panda.urdf", "panda_link0", "panda_hand");
  const Problem problem = PoseProblem(panda);
  const SimdBoundedLm simd(problem, BoundedLmOptions{});
  Items items = MakeItems(*panda.model, panda.site, 3, 1, true);
  items.targets(1, 2) = std::numeric_limits<double>::quiet_NaN();
  REQUIRE_THROWS_WITH(SolveAll(simd, items, 0, 3),
                      Contains("target 1 has a non-finite entry"));
  REQUIRE_THROWS_WITH(SolveBatch(BoundedLmSolver(), problem, items.targets,
                                 items.starts),
                      Contains("non-finite"));
  BoundedLmOptions budget;
  budget.common.time_budget_seconds = 0.005;
  std::string why;
  CHECK_FALSE(SimdLmApplies(problem, budget, &why));
  CHECK_THAT(why, Contains("time budget"));
  REQUIRE_THROWS_WITH(SimdBoundedLm(problem, budget), Contains("time budget"));
  // A mimic joint's step reads its leader's coordinate, scaled: not covered.
  const UrdfFigure four_bar = LoadUrdfChain(
      testing::ShippedDataFile("mimic/four_bar.urdf"), "base_link", "tool_tip");
  const Arm mimic{std::make_shared<const Model>(four_bar.figure.Compile()),
                  "tool_tip"};
  CHECK_FALSE(SimdLmApplies(PoseProblem(mimic, true), BoundedLmOptions{}, &why));
  CHECK_THAT(why, Contains("mimic joints"));
}

TEST_CASE("SolveBatch uses the SIMD solver for bounded LM and says when it "
          "falls back",
          "[solvers]") {
  const Arm panda = LoadArm("panda.urdf", "panda_link0", "panda_hand");
  const Problem problem = PoseProblem(panda);
  const Items items = MakeItems(*panda.model, panda.site, 37, 5, true);
  BatchOptions options;
  options.threads = 2;
  const BatchResult simd =
      SolveBatch(BoundedLmSolver(), problem, items.targets, items.starts, options);
  CHECK_THAT(simd.method, Contains("simd-bounded-lm"));
  for (int i = 0; i < 37; ++i) {
    CHECK(simd.status[i] == SolveStatus::kConverged);
    CHECK(simd.position_error[i] <= 1e-6);
    CheckAnswer(panda, simd.q.row(i).transpose(), items.targets.row(i),
                BoundedLmOptions{}.common);
  }
  // The same answers on one thread.
  options.threads = 1;
  const BatchResult one =
      SolveBatch(BoundedLmSolver(), problem, items.targets, items.starts, options);
  CHECK(one.q == simd.q);
  const BatchResult other =
      SolveBatch(LbfgsbSolver(), problem, items.targets, items.starts, options);
  CHECK_THAT(other.method, Contains("scalar: the solver is"));
}

}  // namespace
}  // namespace iklab
