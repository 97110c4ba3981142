// The fused serial-chain kernel of bounded LM against the generic path
// (Problem::EvaluateResiduals, Goal::Error) and against central differences,
// on the shipped robots, the human figure's limbs and random trees.

#include "solvers/optimization/internal/site_goal_kernel.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/ik_benchmark.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "constraints/regularizers.h"
#include "framework/builders.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using internal::SiteGoalKernel;

Eigen::Isometry3d RandomPose(std::mt19937* rng) {
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = Eigen::AngleAxisd(angle(*rng), testing::RandomUnitVector(rng))
                   .toRotationMatrix();
  X.translation() = testing::RandomPoint(rng, 1.0);
  return X;
}

// A goal of `rows` residuals (3 position, 6 orientation, 9 pose) on `site`
// with target X_WT; unit weights or random weights and scales.
std::shared_ptr<const Goal> MakeGoal(const Model& model,
                                     const std::string& site, int rows,
                                     const Eigen::Isometry3d& X_WT,
                                     bool weighted, std::mt19937* rng) {
  std::uniform_real_distribution<double> u(0.2, 3.0);
  const double weight = weighted ? u(*rng) : 1.0;
  if (rows == 3) {
    return std::make_shared<PositionGoal>(model, site, X_WT.translation(),
                                          weight);
  }
  if (rows == 6) {
    return std::make_shared<OrientationGoal>(model, site, X_WT.linear(),
                                             weight);
  }
  PositionOrientationScales scales;
  if (weighted) {
    scales.w_p = u(*rng);
    scales.w_o = u(*rng);
    scales.c_dx = u(*rng);
    scales.c_dy = u(*rng);
  }
  return std::make_shared<PositionOrientationGoal>(model, site, X_WT, weight,
                                                   scales);
}

// Largest entrywise |a − b| relative to max(1, ‖b‖∞).
double Relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).lpNorm<Eigen::Infinity>() /
         std::max(1.0, b.lpNorm<Eigen::Infinity>());
}

// Compares the kernel with the generic path at random q for every goal
// kind, with and without weights; returns how many problems were checked.
template <int N>
int CheckAgainstGeneric(const std::shared_ptr<const Model>& model,
                        const std::string& site, std::mt19937* rng) {
  REQUIRE(model->nq() == N);
  int checked = 0;
  const auto check = [&](auto rows_tag, bool weighted) {
    constexpr int M = decltype(rows_tag)::value;
    Problem problem(model);
    auto goal = MakeGoal(*model, site, M, RandomPose(rng), weighted, rng);
    problem.AddGoal(goal);
    auto kernel = SiteGoalKernel<M, N>::Create(problem);
    REQUIRE(kernel.has_value());
    ProblemWorkspace ws(problem);
    for (int trial = 0; trial < 20; ++trial) {
      const Eigen::VectorXd q = testing::RandomConfiguration(*model, rng);
      Eigen::VectorXd r_generic(M);
      Eigen::MatrixXd J_generic(M, N);
      Eigen::Ref<Eigen::MatrixXd> J_ref(J_generic);
      problem.EvaluateResiduals(q, &ws, r_generic, &J_ref);
      Eigen::Matrix<double, M, 1> r;
      Eigen::Matrix<double, M, N> J;
      J.setConstant(7.0);  // every entry must be written
      const double cost = kernel->Evaluate(q.data(), &r, &J);
      INFO("site " << site << ", " << M << " rows, weighted " << weighted);
      CHECK(Relative(r, r_generic) <= 1e-12);
      CHECK(Relative(J, J_generic) <= 1e-12);
      CHECK(std::abs(cost - problem.EvaluatePotential(q, &ws, nullptr)) <=
            1e-12 * std::max(1.0, cost));
      const Eigen::Isometry3d X_WS =
          SitePose(*model, ws.data(), model->SiteIndex(site));
      CHECK(Relative(kernel->site_pose().matrix(), X_WS.matrix()) <= 1e-12);
      // The cost alone (no Jacobian) is the same computation, bit for bit,
      // and leaves the same site pose for the stopping test.
      CHECK(kernel->Cost(q.data()) == cost);
      CHECK(Relative(kernel->site_pose().matrix(), X_WS.matrix()) <= 1e-12);
      // The factored form: the same residual, and J̃ᵀ J̃ = Jᵀ J, J̃ᵀ r̃ = Jᵀ R
      // (bounded LM's step needs nothing else of J).
      using Kernel = SiteGoalKernel<M, N>;
      typename Kernel::FactorTranspose Jt;
      typename Kernel::FactorResidual r_factor;
      Jt.setConstant(7.0);
      r_factor.setConstant(7.0);
      Eigen::Matrix<double, M, 1> r_again;
      CHECK(kernel->EvaluateFactored(q.data(), &r_again, &Jt, &r_factor) ==
            cost);
      CHECK(r_again == r);
      const Eigen::MatrixXd normal = J_generic.transpose() * J_generic;
      const Eigen::VectorXd gradient = J_generic.transpose() * r_generic;
      CHECK(Relative(Jt * Jt.transpose(), normal) <= 1e-12);
      CHECK(Relative(Jt * r_factor, gradient) <= 1e-12);
    }
    ++checked;
  };
  for (bool weighted : {false, true}) {
    check(std::integral_constant<int, 3>(), weighted);
    check(std::integral_constant<int, 6>(), weighted);
    check(std::integral_constant<int, 9>(), weighted);
  }
  return checked;
}

std::shared_ptr<const Model> Compiled(const Figure& figure) {
  return std::make_shared<const Model>(figure.Compile());
}

TEST_CASE(
    "The fused kernel equals Problem::EvaluateResiduals on the shipped "
    "robots",
    "[solvers]") {
  std::mt19937 rng(11);
  int robots = 0;
  for (const BenchmarkRobot& robot :
       StandardRobots(testing::ShippedDataFile(""))) {
    UrdfOptions options;
    options.mimic = UrdfMimicPolicy::kReject;
    const auto model = Compiled(
        LoadUrdfChain(robot.urdf_path, robot.base_link, robot.tip_link, options)
            .figure);
    INFO(robot.name);
    if (model->nq() == 6) {
      CHECK(CheckAgainstGeneric<6>(model, robot.tip_link, &rng) == 6);
    } else {
      CHECK(CheckAgainstGeneric<7>(model, robot.tip_link, &rng) == 6);
    }
    ++robots;
  }
  CHECK(robots == 6);
}

TEST_CASE(
    "The fused kernel equals the generic path on the human figure's "
    "limbs at every site",
    "[solvers]") {
  std::mt19937 rng(12);
  for (Side side : {Side::kLeft, Side::kRight}) {
    for (const Figure& limb : {TolaniArm(side), TolaniLeg(side)}) {
      const auto model = Compiled(limb);
      for (int s = 0; s < model->num_sites(); ++s) {
        CHECK(CheckAgainstGeneric<7>(model, model->site_name(s), &rng) == 6);
      }
    }
  }
}

TEST_CASE(
    "The fused kernel equals the generic path on the serial chains of "
    "random trees (revolute and prismatic, sites on branches)",
    "[solvers]") {
  std::mt19937 rng(13);
  for (int tree = 0; tree < 12; ++tree) {
    testing::RandomFigureOptions options;
    options.num_joints = tree % 2 == 0 ? 6 : 7;
    options.all_kinds = false;  // 1-DOF joints: nq = num_joints
    options.num_sites = 3;
    const auto model = Compiled(testing::RandomFigure(&rng, options));
    for (int s = 0; s < model->num_sites(); ++s) {
      if (model->nq() == 6) {
        CHECK(CheckAgainstGeneric<6>(model, model->site_name(s), &rng) == 6);
      } else {
        CHECK(CheckAgainstGeneric<7>(model, model->site_name(s), &rng) == 6);
      }
    }
  }
}

TEST_CASE(
    "The fused kernel's factored form holds where an orientation scale is 0",
    "[solvers]") {
  // r̃'s orientation rows divide by the scales; where one is 0 the gradient
  // has no component there and r̃ gets 0.
  std::mt19937 rng(16);
  const auto model = Compiled(TolaniArm(Side::kRight));
  const std::string site = model->site_name(0);
  PositionOrientationScales no_dy, no_orientation;
  no_dy.c_dy = 0.0;
  no_orientation.w_o = 0.0;
  for (const PositionOrientationScales& scales : {no_dy, no_orientation}) {
    Problem problem(model);
    problem.AddGoal(std::make_shared<PositionOrientationGoal>(
        *model, site, RandomPose(&rng), 1.5, scales));
    auto kernel = SiteGoalKernel<9, 7>::Create(problem);
    REQUIRE(kernel.has_value());
    ProblemWorkspace ws(problem);
    for (int trial = 0; trial < 20; ++trial) {
      const Eigen::VectorXd q = testing::RandomConfiguration(*model, &rng);
      Eigen::VectorXd r(9);
      Eigen::MatrixXd J(9, 7);
      Eigen::Ref<Eigen::MatrixXd> J_ref(J);
      problem.EvaluateResiduals(q, &ws, r, &J_ref);
      SiteGoalKernel<9, 7>::FactorTranspose Jt;
      SiteGoalKernel<9, 7>::FactorResidual r_factor;
      Eigen::Matrix<double, 9, 1> r_kernel;
      kernel->EvaluateFactored(q.data(), &r_kernel, &Jt, &r_factor);
      INFO("c_dy " << scales.c_dy << ", w_o " << scales.w_o);
      REQUIRE(r_factor.allFinite());
      CHECK(Relative(Jt * Jt.transpose(), J.transpose() * J) <= 1e-12);
      CHECK(Relative(Jt * r_factor, J.transpose() * r) <= 1e-12);
    }
  }
}

// A 7-joint chain whose fixed rotations are quarter and half turns (to
// rounding, composed), 1.5708 rad (not π/2 to double precision) and a
// general turn, with axes ±x, ±y, ±z; `variant` 1 has two prismatic joints.
// The translations are drawn from `rng`. The site "hand" is at the end.
Figure TurnsChain(int variant, std::mt19937* rng) {
  const auto turn = [](double angle, const Eigen::Vector3d& axis) {
    return Eigen::AngleAxisd(angle, axis).toRotationMatrix();
  };
  const Eigen::Vector3d x = Eigen::Vector3d::UnitX(),
                        y = Eigen::Vector3d::UnitY(),
                        z = Eigen::Vector3d::UnitZ();
  const std::vector<Eigen::Matrix3d> rotations = {
      turn(M_PI / 2, x),
      turn(-M_PI / 2, x) * turn(-M_PI / 2, y),
      turn(M_PI, z),
      turn(1.5708, x),
      turn(M_PI / 2, y) * turn(M_PI, x),
      turn(0.4, Eigen::Vector3d(1, 2, 3).normalized()),
      turn(-M_PI / 2, z)};
  const std::vector<Eigen::Vector3d> axes = {z, -z, y, -x, x, -y, z};
  Figure f("base");
  std::string parent = "base";
  for (int i = 0; i < 7; ++i) {
    Joint j;
    j.name = "j" + std::to_string(i);
    j.parent = parent;
    j.child = "l" + std::to_string(i);
    j.kind = variant == 1 && (i == 2 || i == 5) ? JointKind::kPrismatic
                                                : JointKind::kRevolute;
    j.axis = axes[(i + variant) % 7];
    j.X_PJ.linear() = rotations[(i + 3 * variant) % 7];
    j.X_PJ.translation() = testing::RandomPoint(rng, 0.3);
    j.WithLimits(-2.0, 2.0);
    f.AddJoint(j);
    parent = j.child;
  }
  Eigen::Isometry3d X_LS = Eigen::Isometry3d::Identity();
  X_LS.linear() = turn(M_PI / 2, y);
  X_LS.translation() = Eigen::Vector3d(0.1, 0, 0.05);
  f.AddSite({"hand", parent, X_LS});
  return f;
}

TEST_CASE(
    "The fused kernel equals the generic path where fixed rotations are "
    "quarter and half turns, near ones and others, with signed axes",
    "[solvers]") {
  // The kernel folds a fixed rotation that is a signed permutation to
  // rounding into its column bookkeeping and turns the joints about the
  // permuted, possibly negated, axes; 1.5708 rad and the general turn are
  // multiplied. Prismatic joints move along permuted axes.
  std::mt19937 rng(15);
  for (int variant = 0; variant < 2; ++variant) {
    CHECK(CheckAgainstGeneric<7>(Compiled(TurnsChain(variant, &rng)), "hand",
                                 &rng) == 6);
  }
}

TEST_CASE(
    "The fused kernel's kept chains follow the model object, not its "
    "address",
    "[solvers]") {
  // Chains are kept per (model, site) and thread. Models of the same shape
  // (so the same site index) but other lengths, made and dropped in turn
  // (the allocator reuses their addresses), must each get their own.
  std::mt19937 rng(16);
  int checked = 0;
  for (int round = 0; round < 8; ++round) {
    checked += CheckAgainstGeneric<7>(Compiled(TurnsChain(0, &rng)), "hand",
                                      &rng);
  }
  CHECK(checked == 8 * 6);
}

TEST_CASE("The fused kernel's Jacobian matches central differences",
          "[solvers]") {
  std::mt19937 rng(14);
  const auto model = Compiled(TolaniArm(Side::kLeft));
  Problem problem(model);
  problem.AddGoal(MakeGoal(*model, "hand", 9, RandomPose(&rng), true, &rng));
  auto kernel = SiteGoalKernel<9, 7>::Create(problem);
  REQUIRE(kernel.has_value());
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::VectorXd q = testing::RandomConfiguration(*model, &rng);
    Eigen::Matrix<double, 9, 1> r;
    Eigen::Matrix<double, 9, 7> J;
    kernel->Evaluate(q.data(), &r, &J);
    const Eigen::MatrixXd numeric = testing::NumericJacobian(
        [&](const Eigen::VectorXd& x) {
          Eigen::Matrix<double, 9, 1> rx;
          Eigen::Matrix<double, 9, 7> Jx;
          kernel->Evaluate(x.data(), &rx, &Jx);
          return Eigen::VectorXd(rx);
        },
        q);
    CHECK(testing::RelativeError(J, numeric) <= 1e-7);
  }
}

TEST_CASE(
    "The fused stopping test decides as the goal errors do, near the "
    "tolerance",
    "[solvers]") {
  // Targets at random poses, evaluated at poses displaced by angles and
  // distances around the tolerance: the kernel's test and the test on
  // Problem::GoalErrors must agree every time.
  std::mt19937 rng(15);
  const auto model = Compiled(TolaniArm(Side::kLeft));
  const int site = model->SiteIndex("hand");
  Data data(*model);
  const double tolerance = 1e-5;
  int agreed = 0, within = 0;
  for (int rows : {3, 6, 9}) {
    for (int trial = 0; trial < 300; ++trial) {
      const Eigen::VectorXd q = testing::RandomConfiguration(*model, &rng);
      ForwardKinematics(*model, q, &data);
      Eigen::Isometry3d X_WT = SitePose(*model, data, site);
      std::uniform_real_distribution<double> scale(0.5, 1.5);
      X_WT.translation() +=
          scale(rng) * tolerance * testing::RandomUnitVector(&rng);
      X_WT.linear() =
          X_WT.linear() * Eigen::AngleAxisd(scale(rng) * tolerance,
                                            testing::RandomUnitVector(&rng))
                              .toRotationMatrix();
      Problem problem(model);
      problem.AddGoal(MakeGoal(*model, "hand", rows, X_WT, true, &rng));
      ProblemWorkspace ws(problem);
      const std::vector<GoalError> errors = problem.GoalErrors(q, &ws);
      const bool expected =
          errors[0].position <= tolerance && errors[0].angle <= tolerance;
      bool got = false;
      const auto run = [&](auto kernel) {
        REQUIRE(kernel.has_value());
        using Kernel = typename decltype(kernel)::value_type;
        typename Kernel::ResidualVector r;
        typename Kernel::JacobianMatrix J;
        kernel->Evaluate(q.data(), &r, &J);
        GoalError error;
        got = kernel->WithinTolerance(tolerance, tolerance, &error);
        if (got) {
          // Passed: the goal's errors, for the solver's result.
          CHECK(std::abs(error.position - errors[0].position) <= 1e-12);
          CHECK(std::abs(error.angle - errors[0].angle) <= 1e-12);
        }
      };
      if (rows == 3) run(SiteGoalKernel<3, 7>::Create(problem));
      if (rows == 6) run(SiteGoalKernel<6, 7>::Create(problem));
      if (rows == 9) run(SiteGoalKernel<9, 7>::Create(problem));
      CHECK(got == expected);
      agreed += got == expected;
      within += expected;
    }
  }
  CHECK(agreed == 900);
  // Both outcomes occur, so the test can tell a too strict or too lax one.
  CHECK(within > 50);
  CHECK(within < 850);
}

TEST_CASE("Problems the fused kernel does not take keep the generic path",
          "[solvers]") {
  const auto model = Compiled(TolaniArm(Side::kLeft));
  const Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
  const auto pose =
      std::make_shared<PositionOrientationGoal>(*model, "hand", target);
  {
    Problem problem(model);
    problem.AddGoal(pose);
    CHECK(SiteGoalKernel<9, 7>::Create(problem).has_value());
    CHECK_FALSE(SiteGoalKernel<9, 6>::Create(problem).has_value());  // nq
    CHECK_FALSE(SiteGoalKernel<3, 7>::Create(problem).has_value());  // rows
  }
  {  // a regularizer
    Problem problem(model);
    problem.AddGoal(std::make_shared<PositionGoal>(*model, "hand",
                                                   Eigen::Vector3d(0, 0, 0)));
    problem.AddRegularizer(std::make_shared<TikhonovRegularizer>(
        *model, 0.1, Eigen::VectorXd::Zero(7)));
    internal::SiteGoalSpec spec;
    CHECK_FALSE(internal::ReadSiteGoal(problem, &spec));
  }
  {  // two goals
    Problem problem(model);
    problem.AddGoal(std::make_shared<PositionGoal>(*model, "hand",
                                                   Eigen::Vector3d(0, 0, 0)));
    problem.AddGoal(std::make_shared<PositionGoal>(*model, "elbow",
                                                   Eigen::Vector3d(0, 0, 0)));
    CHECK_FALSE(SiteGoalKernel<6, 7>::Create(problem).has_value());
  }
  {  // another goal kind of 3 rows
    Problem problem(model);
    problem.AddGoal(std::make_shared<AxisGoal>(
        *model, "hand", Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitZ()));
    CHECK_FALSE(SiteGoalKernel<3, 7>::Create(problem).has_value());
  }
  {  // a hard constraint
    Problem problem(model);
    problem.AddGoal(pose);
    problem.AddEqualityConstraint(std::make_shared<PositionGoal>(
        *model, "elbow", Eigen::Vector3d(0, 0, 0)));
    CHECK_FALSE(SiteGoalKernel<9, 7>::Create(problem).has_value());
  }
}

}  // namespace
}  // namespace iklab
