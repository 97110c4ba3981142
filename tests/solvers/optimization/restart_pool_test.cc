// Bounded LM's restart pool: its points and their ranking against the
// generic residual (Problem::EvaluateResiduals), its draws against the
// seeded generator, and its cache.

#include "solvers/optimization/internal/restart_pool.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/urdf_loader.h"
#include "solvers/optimization/internal/site_goal_kernel.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using internal::RestartPool;

std::shared_ptr<const Model> Panda() {
  return std::make_shared<const Model>(
      LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"),
                    "panda_link0", "panda_hand")
          .figure.Compile());
}

// A goal of `rows` residuals (3 position, 6 orientation, 9 pose) on the
// Panda's hand with target X_WT, weight 1.7 and (pose) unequal scales.
std::shared_ptr<const Goal> MakeGoal(const Model& model, int rows,
                                     const Eigen::Isometry3d& X_WT) {
  if (rows == 3) {
    return std::make_shared<PositionGoal>(model, "panda_hand",
                                          X_WT.translation(), 1.7);
  }
  if (rows == 6) {
    return std::make_shared<OrientationGoal>(model, "panda_hand", X_WT.linear(),
                                             1.7);
  }
  PositionOrientationScales scales;
  scales.w_p = 0.8;
  scales.w_o = 0.16;
  scales.c_dx = 1.3;
  scales.c_dy = 0.6;
  return std::make_shared<PositionOrientationGoal>(model, "panda_hand", X_WT,
                                                   1.7, scales);
}

TEST_CASE("A restart point is drawn from each coordinate's sampling interval",
          "[solvers]") {
  using internal::SamplingInterval;
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(SamplingInterval(-1.0, 2.0) == std::pair(-1.0, 2.0));
  // Unbounded sides fall back to [−π, π].
  CHECK(SamplingInterval(-inf, inf) == std::pair(-M_PI, M_PI));
  CHECK(SamplingInterval(-1.0, inf) == std::pair(-1.0, M_PI));
  CHECK(SamplingInterval(-inf, 1.0) == std::pair(-M_PI, 1.0));
  // A one-sided bound beyond ±π keeps its finite side.
  CHECK(SamplingInterval(5.0, inf) == std::pair(5.0, 5.0));
  CHECK(SamplingInterval(-inf, -5.0) == std::pair(-5.0, -5.0));

  Eigen::VectorXd lower(3), upper(3), q(3);
  lower << -1.0, -inf, 0.5;
  upper << 2.0, inf, 0.5;
  std::mt19937_64 rng(3);
  for (int draw = 0; draw < 1000; ++draw) {
    internal::DrawUniform(lower, upper, &rng, &q);
    CHECK((q[0] >= -1.0 && q[0] <= 2.0));
    CHECK((q[1] >= -M_PI && q[1] <= M_PI));
    CHECK(q[2] == 0.5);
  }
}

TEST_CASE(
    "The restart pool ranks its points by the residual of their stored site "
    "poses",
    "[solvers]") {
  const auto model = Panda();
  const Eigen::VectorXd& lower = model->lower();
  const Eigen::VectorXd& upper = model->upper();
  std::mt19937 rng(5);
  const auto check = [&](auto rows_tag) {
    constexpr int M = decltype(rows_tag)::value;
    Eigen::Isometry3d X_WT = Eigen::Isometry3d::Identity();
    X_WT.linear() = Eigen::AngleAxisd(1.1, testing::RandomUnitVector(&rng))
                        .toRotationMatrix();
    X_WT.translation() = Eigen::Vector3d(0.3, -0.2, 0.5);
    Problem problem(model);
    problem.AddGoal(MakeGoal(*model, M, X_WT));
    auto kernel = internal::SiteGoalKernel<M, 7>::Create(problem);
    REQUIRE(kernel.has_value());
    const auto pool = RestartPool::Get(
        model, kernel->site(), lower, upper, /*seed=*/9, /*size=*/64,
        [&](const double* q, double* pose) { kernel->SitePose(q, pose); });
    REQUIRE(pool->size() == 64);
    std::vector<double> costs(pool->size());
    kernel->PoolCosts(*pool, costs.data());

    // The points are std::mt19937_64(9)'s uniform draws in the box.
    std::mt19937_64 draws(9);
    ProblemWorkspace ws(problem);
    Eigen::VectorXd expected(7), r(M);
    for (int i = 0; i < pool->size(); ++i) {
      internal::DrawUniform(lower, upper, &draws, &expected);
      const Eigen::Map<const Eigen::VectorXd> q(pool->q(i), 7);
      INFO(M << " rows, point " << i);
      CHECK(q == expected);
      // ‖R‖² at the point, by the generic path.
      problem.EvaluateResiduals(expected, &ws, r, nullptr);
      CHECK(std::abs(costs[i] - r.squaredNorm()) <=
            1e-12 * std::max(1.0, r.squaredNorm()));
    }
  };
  check(std::integral_constant<int, 3>());
  check(std::integral_constant<int, 6>());
  check(std::integral_constant<int, 9>());
}

TEST_CASE("The restart pool is built once per model, site, box and seed",
          "[solvers]") {
  const auto model = Panda();
  Problem problem(model);
  problem.AddGoal(MakeGoal(*model, 9, Eigen::Isometry3d::Identity()));
  auto kernel = internal::SiteGoalKernel<9, 7>::Create(problem);
  REQUIRE(kernel.has_value());
  int builds = 0;
  const auto get = [&](const std::shared_ptr<const Model>& m,
                       const Eigen::VectorXd& lower, std::uint64_t seed) {
    return RestartPool::Get(m, kernel->site(), lower, model->upper(), seed, 32,
                            [&](const double* q, double* pose) {
                              ++builds;
                              kernel->SitePose(q, pose);
                            });
  };
  const auto first = get(model, model->lower(), 4);
  CHECK(builds == 32);
  CHECK(get(model, model->lower(), 4) == first);
  CHECK(builds == 32);
  // Another seed, box or model object: another pool.
  CHECK(get(model, model->lower(), 5) != first);
  Eigen::VectorXd narrower = model->lower();
  narrower[0] += 0.1;
  CHECK(get(model, narrower, 4) != first);
  const auto copy = std::make_shared<const Model>(*model);
  CHECK(get(copy, model->lower(), 4) != first);
  CHECK(builds == 4 * 32);
  // A pool outlives the model of its cache entry (which holds it weakly),
  // and the same seed draws the same points for any model of the box.
  std::shared_ptr<const RestartPool> orphan;
  {
    const auto short_lived = std::make_shared<const Model>(*model);
    orphan = get(short_lived, model->lower(), 4);
  }
  CHECK(builds == 5 * 32);
  REQUIRE(orphan->size() == 32);
  for (int i = 0; i < 32; ++i) {
    CHECK(Eigen::Map<const Eigen::VectorXd>(orphan->q(i), 7) ==
          Eigen::Map<const Eigen::VectorXd>(first->q(i), 7));
  }
}

}  // namespace
}  // namespace iklab
