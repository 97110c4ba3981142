// One generic derivative checker (central differences, relative error) run
// over every goal kind on random 3-D trees with every joint kind, and over the
// whole Problem (stacked residuals and potential).

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/aiming_goal.h"
#include "constraints/composite_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "constraints/regularizers.h"
#include "framework/kinematics.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

// Points in [−scale, scale]³ and unit vectors (shared test utilities).
Eigen::Vector3d RandomPoint(std::mt19937* rng, double scale = 2.0) {
  return testing::RandomPoint(rng, scale);
}
using testing::RandomUnitVector;

Eigen::Matrix3d RandomRotation(std::mt19937* rng) {
  std::uniform_real_distribution<double> u(-M_PI, M_PI);
  return Eigen::AngleAxisd(u(*rng), RandomUnitVector(rng)).toRotationMatrix();
}

double RandomWeight(std::mt19937* rng) {
  return std::uniform_real_distribution<double>(0.2, 3.0)(*rng);
}

// Every goal kind, with random targets, on a random site of `model`.
std::vector<std::shared_ptr<const Goal>> EveryGoalKind(const Model& model,
                                                       std::mt19937* rng) {
  std::uniform_int_distribution<int> pick_site(0, model.num_sites() - 1);
  const auto site = [&] { return model.site_name(pick_site(*rng)); };
  std::vector<std::shared_ptr<const Goal>> goals;
  goals.push_back(std::make_shared<PositionGoal>(
      model, site(), RandomPoint(rng), RandomWeight(rng)));
  goals.push_back(std::make_shared<OrientationGoal>(
      model, site(), RandomRotation(rng), RandomWeight(rng)));
  goals.push_back(
      std::make_shared<AxisGoal>(model, site(), RandomUnitVector(rng),
                                 RandomUnitVector(rng), RandomWeight(rng)));
  Eigen::Isometry3d X_WG = Eigen::Isometry3d::Identity();
  X_WG.linear() = RandomRotation(rng);
  X_WG.translation() = RandomPoint(rng);
  PositionOrientationScales scales;
  scales.w_p = RandomWeight(rng);
  scales.w_o = RandomWeight(rng);
  scales.c_dx = RandomWeight(rng);
  scales.c_dy = RandomWeight(rng);
  goals.push_back(std::make_shared<PositionOrientationGoal>(
      model, site(), X_WG, RandomWeight(rng), scales));
  // Aiming targets well away from the figure's sites (≥ 3 length units from
  // the origin; random figures stay within a few units) so the aim direction
  // is well conditioned.
  goals.push_back(std::make_shared<AimingGoal>(
      model, site(), RandomUnitVector(rng),
      6.0 * RandomUnitVector(rng) + RandomPoint(rng, 1.0), RandomWeight(rng)));
  goals.push_back(std::make_shared<PlaneGoal>(model, site(), RandomPoint(rng),
                                              RandomUnitVector(rng),
                                              RandomWeight(rng)));
  goals.push_back(std::make_shared<WeightedSumGoal>(
      std::vector<std::shared_ptr<const Goal>>{goals[0], goals[1], goals[4],
                                               goals[5]},
      RandomWeight(rng)));
  goals.push_back(std::make_shared<DisjunctiveGoal>(
      std::vector<std::shared_ptr<const Goal>>{goals[5], goals[0], goals[2]},
      RandomWeight(rng)));
  goals.push_back(std::make_shared<TikhonovRegularizer>(
      model, RandomWeight(rng), testing::RandomConfiguration(model, rng),
      RandomWeight(rng)));
  Eigen::VectorXd gains(model.nq());
  for (int i = 0; i < model.nq(); ++i) gains[i] = RandomWeight(rng);
  gains[0] = 0.0;  // a free coordinate
  goals.push_back(std::make_shared<JointCenterBias>(
      model, testing::RandomConfiguration(model, rng), gains,
      RandomWeight(rng)));
  return goals;
}

// Residual of `goal` at q, computed from scratch (own Data).
Eigen::VectorXd Residual(const Model& model, const Goal& goal,
                         const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  Eigen::VectorXd r(goal.num_residuals());
  goal.Evaluate(model, data, q, r, nullptr);
  return r;
}

// Checks ∂r/∂q and ∇P of one goal at q against central differences. The
// Jacobian is written into a middle block of a larger matrix, as a stacked
// solver would pass it, and the rows around it must stay untouched.
void CheckGoalDerivatives(const Model& model, const Goal& goal,
                          const Eigen::VectorXd& q) {
  INFO("goal " << goal.name() << ", nq " << model.nq());
  Data data(model);
  ForwardKinematics(model, q, &data);
  const int m = goal.num_residuals();
  Eigen::VectorXd r(m);
  Eigen::MatrixXd big = Eigen::MatrixXd::Constant(m + 4, model.nq(), 7.0);
  Eigen::Ref<Eigen::MatrixXd> block = big.middleRows(2, m);
  goal.Evaluate(model, data, q, r, &block);
  const Eigen::MatrixXd J = big.middleRows(2, m);
  CHECK((big.topRows(2).array() == 7.0).all());
  CHECK((big.bottomRows(2).array() == 7.0).all());
  REQUIRE(r.allFinite());
  REQUIRE(J.allFinite());

  // The residual with and without the Jacobian request agree.
  CHECK(Residual(model, goal, q) == r);

  const Eigen::MatrixXd numeric = testing::NumericJacobian(
      [&](const Eigen::VectorXd& x) { return Residual(model, goal, x); }, q);
  CHECK(testing::RelativeError(J, numeric) <= 1e-6);

  // P = ½ w ‖r‖², ∇P = w Jᵀ r.
  Eigen::VectorXd gradient = Eigen::VectorXd::Zero(model.nq());
  goal.AddPotentialGradient(r, J, gradient);
  CHECK(goal.Potential(r) == Approx(0.5 * goal.weight() * r.squaredNorm()));
  const Eigen::MatrixXd numeric_gradient = testing::NumericJacobian(
      [&](const Eigen::VectorXd& x) {
        return Eigen::VectorXd::Constant(
            1, goal.Potential(Residual(model, goal, x)));
      },
      q);
  CHECK(testing::RelativeError(gradient.transpose(), numeric_gradient) <= 1e-6);
}

TEST_CASE(
    "Every goal kind's residual Jacobian and potential gradient match central "
    "differences on random trees",
    "[constraints]") {
  for (const unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    std::mt19937 rng(seed);
    testing::RandomFigureOptions options;
    options.num_joints = 3 + static_cast<int>(seed) * 2;
    options.num_sites = 3;
    const Model model = testing::RandomFigure(&rng, options).Compile();
    const auto goals = EveryGoalKind(model, &rng);
    for (int pose = 0; pose < 3; ++pose) {
      const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
      for (const auto& goal : goals) CheckGoalDerivatives(model, *goal, q);
    }
  }
}

TEST_CASE(
    "The Problem's stacked residual Jacobian and potential gradient match "
    "central differences",
    "[constraints]") {
  for (const unsigned seed : {11u, 12u, 13u}) {
    std::mt19937 rng(seed);
    testing::RandomFigureOptions options;
    options.num_joints = 10;
    const auto model = std::make_shared<const Model>(
        testing::RandomFigure(&rng, options).Compile());
    Problem problem(model);
    auto goals = EveryGoalKind(*model, &rng);
    // Regularizers go through AddRegularizer; the rest are goals.
    for (const auto& goal : goals) {
      if (goal->uses_configuration()) {
        problem.AddRegularizer(goal);
      } else {
        problem.AddGoal(goal);
      }
    }
    ProblemWorkspace ws(problem);
    const int m = problem.num_residuals();
    const Eigen::VectorXd q = testing::RandomConfiguration(*model, &rng);

    Eigen::VectorXd R(m);
    Eigen::MatrixXd J(m, model->nq());
    Eigen::Ref<Eigen::MatrixXd> J_ref = J;
    problem.EvaluateResiduals(q, &ws, R, &J_ref);
    const auto residuals = [&](const Eigen::VectorXd& x) {
      ProblemWorkspace own(problem);
      Eigen::VectorXd out(m);
      problem.EvaluateResiduals(x, &own, out, nullptr);
      return out;
    };
    CHECK(residuals(q) == R);
    CHECK(testing::RelativeError(J, testing::NumericJacobian(residuals, q)) <=
          1e-6);

    Eigen::VectorXd gradient(model->nq());
    Eigen::Ref<Eigen::VectorXd> gradient_ref = gradient;
    const double P = problem.EvaluatePotential(q, &ws, &gradient_ref);
    // The potential is half the squared stacked residual, its gradient JᵀR.
    CHECK(P == Approx(0.5 * R.squaredNorm()).epsilon(1e-12));
    CHECK(testing::RelativeError(gradient, J.transpose() * R) <= 1e-10);
    CHECK(problem.EvaluatePotential(q, &ws, nullptr) == P);
    const Eigen::MatrixXd numeric = testing::NumericJacobian(
        [&](const Eigen::VectorXd& x) {
          ProblemWorkspace own(problem);
          return Eigen::VectorXd::Constant(
              1, problem.EvaluatePotential(x, &own, nullptr));
        },
        q);
    CHECK(testing::RelativeError(gradient.transpose(), numeric) <= 1e-6);
  }
}

}  // namespace
}  // namespace iklab
