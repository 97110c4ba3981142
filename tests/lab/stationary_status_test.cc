// The status of a stationary stop under hard constraints: a joint limit that
// stops the descent is named as such whether or not equality constraints
// (a planted foot's) are active beside it (solvers/internal/solve_scope.h,
// rule 3b).

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/bvh_loader.h"
#include "framework/figure.h"
#include "lab/motion_retargeting.h"
#include "lab/retarget_map.h"
#include "solvers/constrained/slsqp_solver.h"
#include "tests/lab/cmu_clip.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// A point on two prismatic joints, q = (x, y), the site at (x, y, 0), with
// x <= x_upper: the goal (1, 3, 0) and the equality x = y (the plane
// through the origin with normal (1, -1, 0)/sqrt 2).
Problem PointOnTwoSlides(double x_upper) {
  Figure f("base");
  const auto slide = [&](const char* name, const char* parent,
                         const char* child, const Eigen::Vector3d& axis,
                         double upper) {
    Joint j;
    j.name = name;
    j.parent = parent;
    j.child = child;
    j.kind = JointKind::kPrismatic;
    j.axis = axis;
    j.WithLimits(-10.0, upper);
    f.AddJoint(j);
  };
  slide("x", "base", "carriage", Eigen::Vector3d::UnitX(), x_upper);
  slide("y", "carriage", "point", Eigen::Vector3d::UnitY(), 10.0);
  f.AddSite({"tip", "point", Eigen::Isometry3d::Identity()});
  const auto model = std::make_shared<const Model>(f.Compile());
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "tip",
                                                 Eigen::Vector3d(1, 3, 0)));
  problem.AddEqualityConstraint(std::make_shared<PlaneGoal>(
      *model, "tip", Eigen::Vector3d::Zero(),
      Eigen::Vector3d(1, -1, 0).normalized()));
  return problem;
}

TEST_CASE("SLSQP calls a stop that a joint limit forces beside an active "
          "equality constraint limits infeasible",
          "[lab][solvers]") {
  // Minimize ½‖(x, y) − (1, 3)‖² subject to x = y (the plane through the
  // origin with normal (1, −1, 0)/√2) and x ≤ 0.5. On the line the
  // minimum is x = y = 2; the limit stops it at (0.5, 0.5), where the
  // gradient g = (−0.5, −2.5) is mostly balanced by the equality's
  // multiplier (g·n = √2 of |g| = 2.55) and the rest, (−1.5, −1.5), by the
  // bound on x with the equality. The limit, not a local minimum, stops the
  // descent: without it the solve would go on to (2, 2).
  const Problem problem = PointOnTwoSlides(0.5);
  // (SLSQP ends on the bound. IPOPT, an interior-point method, ends
  // 3e-12 inside it, and rule 3b counts a coordinate as blocked only on its
  // bound, so IPOPT's stop reads "local minimum" here with or without the
  // constraints.)
  std::vector<std::unique_ptr<Solver>> solvers;
  solvers.push_back(MakeSolver(SlsqpOptions{}));
  for (const auto& solver : solvers) {
    const Result r = solver->Solve(problem, Eigen::Vector2d(-1.0, -1.0));
    INFO(solver->name() << ": " << r.message << " at " << r.q.transpose());
    CHECK(r.q.isApprox(Eigen::Vector2d(0.5, 0.5), 1e-6));
    CHECK(r.status == SolveStatus::kLimitsInfeasible);
    CHECK_THAT(r.message, Contains("active constraint rows"));
  }
  // The same problem with the limit out of the way is stationary at
  // (2, 2) with the equality balancing the whole gradient: a local minimum
  // (the goal is not met), not a limit.
  const Problem free_problem = PointOnTwoSlides(10.0);
  for (const auto& solver : solvers) {
    const Result r = solver->Solve(free_problem, Eigen::Vector2d(-1.0, -1.0));
    INFO(solver->name() << ": " << r.message << " at " << r.q.transpose());
    CHECK(r.q.isApprox(Eigen::Vector2d(2.0, 2.0), 1e-6));
    CHECK(r.status == SolveStatus::kLocalMinimum);
  }
}

TEST_CASE("SLSQP with hard contacts names the joint limit that stops a CMU "
          "frame as bounded LM with penalty contacts does, planted foot or "
          "not",
          "[lab][retargeting]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  // Frames 196–207 of 131_01 onto the human figure: the left foot planted
  // throughout (5 equality rows in the hard mode), the right foot's twist
  // (right_ankle.0, ±20°) on its limit.
  std::vector<int> frames;
  for (int f = 196; f < 208; ++f) frames.push_back(f);
  const auto [human, track] = testing::CmuOntoHumanTrack(frames);
  const Eigen::VectorXd start = Eigen::VectorXd::Zero(human->nq());
  MotionRetargetOptions options;
  options.contacts = ContactMode::kHard;
  const MotionRetargetResult hard = RetargetMotion(
      human, track, *MakeMotionRetargetSolver("slsqp", 1e-4), options, start);
  options.contacts = ContactMode::kPenalty;
  const MotionRetargetResult penalty = RetargetMotion(
      human, track, *MakeMotionRetargetSolver("bounded-lm", 1e-4), options,
      start);
  int compared = 0;
  for (std::size_t t = 0; t < frames.size(); ++t) {
    bool planted = false;
    for (char c : hard.contact[t]) planted = planted || c;
    const RetargetFrame& h = hard.run.frames[t];
    const RetargetFrame& p = penalty.run.frames[t];
    INFO("frame " << h.frame << ": slsqp " << SolveStatusName(h.status)
                  << " (" << h.message << "); bounded-lm "
                  << SolveStatusName(p.status));
    // Neither meets the 19 key points on the figure's proportions.
    CHECK_FALSE(h.converged);
    if (!planted || p.status != SolveStatus::kLimitsInfeasible) continue;
    ++compared;
    CHECK(h.status == SolveStatus::kLimitsInfeasible);
  }
  CHECK(compared >= 6);
}

}  // namespace
}  // namespace iklab
