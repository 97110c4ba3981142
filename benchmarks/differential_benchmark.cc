// One iteration of each differential IK method on 7-, 30- and 100-DOF
// chains (one iteration of each differential method).
//
// What is timed: a full iteration of the shared loop as a solve runs it —
// re-linearization (FK + stacked residual Jacobian), the method's step, the
// trial evaluation and the convergence test — measured as the difference
// between a 21-iteration and a 1-iteration solve divided by 20 (by the
// iterations actually run if the target is hit exactly earlier), so the
// per-solve setup (workspace, decompositions) cancels. Reported times are
// per iteration (manual time).
//
// Figures: a spatial chain with axes cycling z, y, x and 0.3 links
// (tests/solvers/differential/differential_models.h), goal = a position of the
// tip taken from FK at a fixed random pose, start at another; the
// multi-effector case adds a second position goal on the middle link (two
// levels). The Extended Jacobian is defined for planar chains only and runs on
// a planar chain of the same length. Bounded DLS gets limits ±1 rad so bounds
// are active. The goal is never "within" the 1e-300 tolerance and stall
// detection is off, so every solve runs its iterations.

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "framework/kinematics.h"
#include "solvers/differential/ccd_solver.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/differential/extended_jacobian_solver.h"
#include "solvers/differential/jacobian_transpose_solver.h"
#include "solvers/differential/multi_effector_solver.h"
#include "solvers/differential/pseudo_inverse_solver.h"
#include "tests/solvers/differential/differential_models.h"

namespace iklab {
namespace {

enum class Shape { kSpatial, kPlanar };

struct Setup {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Problem> problem;
  Eigen::VectorXd q0;
};

Setup MakeSetup(int n, Shape figure, bool two_goals, double limit) {
  Setup s;
  if (figure == Shape::kPlanar) {
    s.model = testing::PlanarArm(std::vector<double>(n, 1.0));
  } else {
    s.model = testing::SpatialChain(n, 0.3, limit);
  }
  std::mt19937 rng(n);
  std::uniform_real_distribution<double> angle(-0.8, 0.8);
  Eigen::VectorXd q_goal(n);
  s.q0.resize(n);
  for (int i = 0; i < n; ++i) {
    q_goal(i) = angle(rng);
    s.q0(i) = angle(rng);
  }
  Data data(*s.model);
  ForwardKinematics(*s.model, q_goal, &data);
  s.problem = std::make_unique<Problem>(s.model);
  s.problem->AddGoal(std::make_shared<PositionGoal>(
      *s.model, "tip", SitePosition(*s.model, data, s.model->SiteIndex("tip"))));
  if (two_goals) {
    s.problem->AddGoal(std::make_shared<PositionGoal>(
        *s.model, "mid",
        SitePosition(*s.model, data, s.model->SiteIndex("mid"))));
  }
  return s;
}

template <typename Options>
void IterationBenchmark(benchmark::State& state, Options options,
                        Shape figure, bool two_goals, double limit) {
  const Setup setup =
      MakeSetup(static_cast<int>(state.range(0)), figure, two_goals, limit);
  options.common.position_tolerance = 1e-300;
  options.step.step_tolerance = 0.0;
  options.step.stall_iterations = 1 << 30;
  Options one = options;
  one.common.max_iterations = 1;
  Options many = options;
  many.common.max_iterations = 21;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const Result a = Solve(*setup.problem, setup.q0, one);
    const auto t1 = Clock::now();
    const Result b = Solve(*setup.problem, setup.q0, many);
    const auto t2 = Clock::now();
    benchmark::DoNotOptimize(a.q.data());
    benchmark::DoNotOptimize(b.q.data());
    // A method can still end early by hitting the target bit-exactly
    // (error 0 ≤ 1e-300); divide by the iterations actually run.
    if (a.iterations != 1 || b.iterations < 2) {
      state.SkipWithError(("stopped early: " + b.message).c_str());
      break;
    }
    const double per_iteration =
        (std::chrono::duration<double>(t2 - t1).count() -
         std::chrono::duration<double>(t1 - t0).count()) /
        (b.iterations - 1);
    state.SetIterationTime(std::max(per_iteration, 0.0));
  }
  state.counters["dof"] = static_cast<double>(state.range(0));
}

template <typename Options>
void Register(const std::string& name, Options options,
              Shape figure = Shape::kSpatial, bool two_goals = false,
              double limit = kInfinity) {
  benchmark::RegisterBenchmark(
      ("Differential/" + name).c_str(),
      [=](benchmark::State& state) {
        IterationBenchmark(state, options, figure, two_goals, limit);
      })
      ->Arg(7)
      ->Arg(30)
      ->Arg(100)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

const bool kRegistered = [] {
  Register("PseudoInverse", PseudoInverseOptions{});
  Register("DampedLeastSquares", DampedLeastSquaresOptions{});
  DampedLeastSquaresOptions adaptive;
  adaptive.adaptive = true;
  Register("DampedLeastSquaresAdaptive", adaptive);
  DampedLeastSquaresOptions no_condition;
  no_condition.compute_condition_number = false;
  Register("DampedLeastSquaresNoConditionNumber", no_condition);
  Register("SelectivelyDamped", SelectivelyDampedOptions{});
  Register("JacobianTransposeOptimal", JacobianTransposeOptions{});
  // Empty gains mean a = 0; the step's cost (J Jᵀ, its LU, Jᵀβ − z) does
  // not depend on the values.
  Register("ControlTerm", ControlTermOptions{});
  Register("AlternativeJacobian", AlternativeJacobianOptions{});
  Register("CyclicCoordinateDescent", CcdOptions{});
  Register("ExtendedJacobianPlanar", ExtendedJacobianOptions{},
           Shape::kPlanar);
  Register("MultiEffectorTwoLevels", MultiEffectorOptions{}, Shape::kSpatial,
           /*two_goals=*/true);
  Register("BoundedDampedLeastSquares", BoundedDampedLeastSquaresOptions{},
           Shape::kSpatial, false, /*limit=*/1.0);
  return true;
}();

}  // namespace
}  // namespace iklab
