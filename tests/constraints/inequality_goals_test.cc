// Inequality goals (c(q) <= 0) and hard constraints in a Problem: derivatives
// against central differences on random trees (constraint values and the
// smooth penalty form), the stacked constraint vector, and bad input.

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "constraints/composite_goals.h"
#include "constraints/distance_goals.h"
#include "constraints/inequality_goal.h"
#include "constraints/internal/tolerance_box.h"
#include "constraints/joint_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/problem.h"
#include "constraints/relative_pose_goal.h"
#include "constraints/tolerance_goals.h"
#include "framework/builders.h"
#include "framework/kinematics.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// Points in [−scale, scale]³ and unit vectors (shared test utilities).
Eigen::Vector3d RandomPoint(std::mt19937* rng, double scale = 2.0) {
  return testing::RandomPoint(rng, scale);
}
using testing::RandomUnitVector;

double Uniform(std::mt19937* rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(*rng);
}

// A rotation within `angle` radians of R (targets near a site's orientation,
// away from the rotation vector's jump at a half turn).
Eigen::Matrix3d Near(const Eigen::Matrix3d& R, double angle,
                     std::mt19937* rng) {
  return Eigen::AngleAxisd(angle, RandomUnitVector(rng)).toRotationMatrix() * R;
}

// Every new inequality goal kind (and the joint posture / rotation-vector
// equality goals) on random sites of `model`; `q` is the pose the
// orientation targets are made near.
std::vector<std::shared_ptr<const Goal>> EveryNewGoalKind(
    const Model& model, const Eigen::VectorXd& q, std::mt19937* rng) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  std::uniform_int_distribution<int> pick_site(0, model.num_sites() - 1);
  const int s0 = pick_site(*rng);
  const int s1 = (s0 + 1) % model.num_sites();
  const std::string a = model.site_name(s0), b = model.site_name(s1);
  const Eigen::Matrix3d R_a = SitePose(model, data, s0).linear();
  std::vector<std::shared_ptr<const Goal>> goals;
  goals.push_back(std::make_shared<ConeGoal>(model, a, RandomUnitVector(rng),
                                             RandomUnitVector(rng),
                                             Uniform(rng, 0.1, 1.0), 1.7));
  goals.push_back(std::make_shared<GazeGoal>(model, a, RandomUnitVector(rng),
                                             6.0 * RandomUnitVector(rng),
                                             Uniform(rng, 0.1, 1.0), 0.8));
  Eigen::Isometry3d frame = Eigen::Isometry3d::Identity();
  frame.linear() = Near(Eigen::Matrix3d::Identity(), 2.0, rng);
  frame.translation() = RandomPoint(rng);
  goals.push_back(std::make_shared<PositionBoxGoal>(
      model, a, frame, Eigen::Vector3d(-0.2, -kInfinity, -0.3),
      Eigen::Vector3d(0.1, 0.4, kInfinity), 1.3));
  goals.push_back(std::make_shared<OrientationBoxGoal>(
      model, a, Near(R_a, 0.8, rng), Eigen::Vector3d(-0.1, -0.2, -kInfinity),
      Eigen::Vector3d(0.1, kInfinity, 0.05), 2.1));
  goals.push_back(std::make_shared<PointDistanceGoal>(
      model, a, RandomPoint(rng), 0.5, 1.5, 0.9));
  goals.push_back(
      std::make_shared<SiteDistanceGoal>(model, a, b, 0.3, kInfinity, 1.1));
  goals.push_back(std::make_shared<SiteDistanceGoal>(model, b, a, 0.0, 0.2));
  std::vector<int> coordinates = {0, model.nq() - 1};
  if (model.nq() == 1) coordinates = {0};
  const int k = static_cast<int>(coordinates.size());
  goals.push_back(std::make_shared<JointRangeGoal>(
      model, coordinates, Eigen::VectorXd::Constant(k, -0.3),
      Eigen::VectorXd::Constant(k, 0.2), 1.4));
  goals.push_back(std::make_shared<JointPostureGoal>(
      model, coordinates, Eigen::VectorXd::Constant(k, 0.1), 0.7));
  goals.push_back(
      std::make_shared<RotationVectorGoal>(model, a, Near(R_a, 1.0, rng), 1.2));
  goals.push_back(std::make_shared<AxisTangentGoal>(
      model, a, RandomUnitVector(rng), RandomUnitVector(rng), 0.6));
  // Relative pose of b in a's frame: targets near the relative pose at q.
  const Eigen::Isometry3d X_AB =
      SitePose(model, data, s0).inverse() * SitePose(model, data, s1);
  Eigen::Isometry3d X_AT = X_AB;
  X_AT.linear() = Near(X_AB.linear(), 0.9, rng);
  X_AT.translation() += 0.3 * RandomPoint(rng);
  goals.push_back(std::make_shared<RelativePoseGoal>(model, a, b, X_AT, 1.3));
  RelativePoseParts position_only;
  position_only.orientation = false;
  goals.push_back(std::make_shared<RelativePoseGoal>(model, b, a, X_AT, 0.7,
                                                     position_only));
  RelativePoseParts orientation_only;
  orientation_only.position = false;
  orientation_only.length_per_radian = 0.4;
  goals.push_back(std::make_shared<RelativePoseGoal>(model, a, b, X_AT, 1.1,
                                                     orientation_only));
  Eigen::Matrix<double, 6, 1> lower, upper;
  lower << -0.05, -kInfinity, -0.1, -0.2, -kInfinity, -0.1;
  upper << 0.05, 0.2, kInfinity, 0.1, 0.3, kInfinity;
  goals.push_back(std::make_shared<RelativePoseBoxGoal>(model, a, b, X_AT,
                                                        lower, upper, 1.6));
  return goals;
}

Eigen::VectorXd Residual(const Model& model, const Goal& goal,
                         const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  Eigen::VectorXd r(goal.num_residuals());
  goal.Evaluate(model, data, q, r, nullptr);
  return r;
}

Eigen::VectorXd Constraint(const Model& model, const InequalityGoal& goal,
                           const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  Eigen::VectorXd c(goal.num_constraints());
  goal.EvaluateConstraint(model, data, q, c, nullptr);
  return c;
}

// The penalty residual max(0, c) has a kink where a row crosses 0; central
// differences straddling it are meaningless, so such points are skipped.
bool NearKink(const Eigen::VectorXd& c) {
  return (c.array().abs() < 1e-4).any();
}

void CheckDerivatives(const Model& model, const Goal& goal,
                      const Eigen::VectorXd& q) {
  INFO("goal " << goal.name() << ", nq " << model.nq());
  Data data(model);
  ForwardKinematics(model, q, &data);
  const int m = goal.num_residuals();
  const auto* inequality = dynamic_cast<const InequalityGoal*>(&goal);
  if (inequality != nullptr) {
    Eigen::VectorXd c(m);
    Eigen::MatrixXd big = Eigen::MatrixXd::Constant(m + 2, model.nq(), 7.0);
    Eigen::Ref<Eigen::MatrixXd> block = big.middleRows(1, m);
    inequality->EvaluateConstraint(model, data, q, c, &block);
    CHECK((big.row(0).array() == 7.0).all());
    CHECK((big.row(m + 1).array() == 7.0).all());
    const Eigen::MatrixXd numeric = testing::NumericJacobian(
        [&](const Eigen::VectorXd& x) {
          return Constraint(model, *inequality, x);
        },
        q);
    CHECK(testing::RelativeError(big.middleRows(1, m), numeric) <= 1e-6);
    // Soft form: r = max(0, c).
    Eigen::VectorXd r(m);
    goal.Evaluate(model, data, q, r, nullptr);
    CHECK(r.isApprox(c.cwiseMax(0.0)));
    if (NearKink(c)) return;
  }
  Eigen::VectorXd r(m);
  Eigen::MatrixXd J(m, model.nq());
  Eigen::Ref<Eigen::MatrixXd> J_ref(J);
  goal.Evaluate(model, data, q, r, &J_ref);
  const Eigen::MatrixXd numeric = testing::NumericJacobian(
      [&](const Eigen::VectorXd& x) { return Residual(model, goal, x); }, q);
  CHECK(testing::RelativeError(J, numeric) <= 1e-6);
}

TEST_CASE(
    "Every inequality goal's constraint Jacobian and penalty residual "
    "Jacobian match central differences on random trees",
    "[constraints]") {
  for (const unsigned seed : {21u, 22u, 23u, 24u, 25u, 26u}) {
    std::mt19937 rng(seed);
    testing::RandomFigureOptions options;
    options.num_joints = 3 + static_cast<int>(seed % 7) * 2;
    options.num_sites = 3;
    const Model model = testing::RandomFigure(&rng, options).Compile();
    for (int pose = 0; pose < 3; ++pose) {
      const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
      const auto goals = EveryNewGoalKind(model, q, &rng);
      // Near q, where the orientation targets are well away from a half turn.
      const Eigen::VectorXd q_near =
          q + 0.05 * testing::RandomConfiguration(model, &rng);
      for (const auto& goal : goals) CheckDerivatives(model, *goal, q_near);
    }
  }
}

// The violation of one quantity against its bounds, max(0, l − v, v − u).
double QuantityViolation(const BoundedQuantity& b) {
  return std::max({0.0, b.lower - b.value, b.value - b.upper});
}

TEST_CASE(
    "Every inequality goal's quantities hold exactly where its constraint "
    "does, and their violations bound its natural-unit error",
    "[constraints]") {
  for (const unsigned seed : {31u, 32u, 33u, 34u}) {
    std::mt19937 rng(seed);
    testing::RandomFigureOptions options;
    options.num_joints = 4 + static_cast<int>(seed % 5) * 2;
    options.num_sites = 3;
    const Model model = testing::RandomFigure(&rng, options).Compile();
    const Eigen::VectorXd q0 = testing::RandomConfiguration(model, &rng);
    const auto goals = EveryNewGoalKind(model, q0, &rng);
    Data data(model);
    for (int pose = 0; pose < 6; ++pose) {
      // Poses near q0 (some boxes hold there) and far from it.
      const Eigen::VectorXd q =
          pose < 3 ? Eigen::VectorXd(
                         q0 + 0.02 * pose *
                                  testing::RandomConfiguration(model, &rng))
                   : testing::RandomConfiguration(model, &rng);
      ForwardKinematics(model, q, &data);
      for (const auto& goal : goals) {
        const auto* inequality =
            dynamic_cast<const InequalityGoal*>(goal.get());
        if (inequality == nullptr) continue;
        INFO(goal->name() << ", seed " << seed << ", pose " << pose);
        const std::vector<BoundedQuantity> quantities =
            inequality->Quantities(model, data, q);
        REQUIRE_FALSE(quantities.empty());
        const Eigen::VectorXd c = Constraint(model, *inequality, q);
        // c ≤ 0 on every row ⇔ every quantity within its bounds (away from
        // the boundary, where rounding may tip either side).
        if ((c.array().abs() > 1e-9).all()) {
          bool inside = true;
          for (const BoundedQuantity& b : quantities) {
            inside = inside && QuantityViolation(b) == 0.0;
          }
          CHECK(inside == (c.array() <= 0.0).all());
        }
        // Per unit, max violation ≤ Error() ≤ ‖violations‖ (Error() is the
        // largest violation or the norm of the violations, by kind).
        double max_length = 0.0, sum_length = 0.0;
        double max_angle = 0.0, sum_angle = 0.0;
        for (const BoundedQuantity& b : quantities) {
          const double v = QuantityViolation(b);
          (b.angular ? max_angle : max_length) =
              std::max(b.angular ? max_angle : max_length, v);
          (b.angular ? sum_angle : sum_length) += v * v;
        }
        const GoalError error = goal->ErrorAt(model, data, q);
        CHECK(error.position >= max_length - 1e-12);
        CHECK(error.position <= std::sqrt(sum_length) + 1e-12);
        CHECK(error.angle >= max_angle - 1e-12);
        CHECK(error.angle <= std::sqrt(sum_angle) + 1e-12);
        // The names are fixed: the same at another pose.
        const auto again = inequality->Quantities(
            model, data, Eigen::VectorXd(q));
        REQUIRE(again.size() == quantities.size());
        for (std::size_t k = 0; k < again.size(); ++k) {
          CHECK(again[k].name == quantities[k].name);
        }
      }
    }
  }
}

TEST_CASE("A cone's quantity is the angle between the axis and the direction",
          "[constraints]") {
  // One revolute joint about z: the site's x axis at angle θ from world x.
  const Model model = PlanarChain({1.0}).Compile();
  Data data(model);
  const ConeGoal cone(model, "effector", Eigen::Vector3d::UnitX(),
                      Eigen::Vector3d::UnitX(), 0.3);
  for (const double theta : {0.1, 0.3, -0.7}) {
    Eigen::VectorXd q(1);
    q << theta;
    ForwardKinematics(model, q, &data);
    const auto quantities = cone.Quantities(model, data, q);
    REQUIRE(quantities.size() == 1u);
    CHECK(quantities[0].name == "angle");
    CHECK(quantities[0].value == Approx(std::abs(theta)));
    CHECK(quantities[0].upper == 0.3);
    CHECK(quantities[0].angular);
    CHECK(cone.Error(model, data).angle ==
          Approx(std::max(0.0, std::abs(theta) - 0.3)).margin(1e-15));
  }
  // The parameters state the cone: axis, direction, half-angle.
  const std::vector<GoalParameter> parameters = cone.Parameters();
  REQUIRE(parameters.size() == 7u);
  CHECK(parameters[0].name == "axis_x");
  CHECK(parameters[3].name == "direction_x");
  CHECK(parameters[6].name == "half_angle");
  CHECK(parameters[6].value == 0.3);
  CHECK(cone.error_parts().angle);
  CHECK_FALSE(cone.error_parts().position);
}

TEST_CASE("The inverse left Jacobian of SO(3) inverts the left Jacobian",
          "[constraints]") {
  std::mt19937 rng(3);
  for (const double angle : {1e-7, 1e-3, 0.5, 2.0, 3.0}) {
    const Eigen::Vector3d phi = angle * RandomUnitVector(&rng);
    // Central differences of Log(Exp(ε) Exp(φ)) in ε give J_l⁻¹(φ).
    const Eigen::Matrix3d R = Eigen::AngleAxisd(angle, phi.normalized())
                                  .toRotationMatrix();
    const Eigen::MatrixXd numeric = testing::NumericJacobian(
        [&](const Eigen::VectorXd& e) {
          const Eigen::Vector3d ev = e;
          const Eigen::Matrix3d E =
              ev.norm() > 0
                  ? Eigen::AngleAxisd(ev.norm(), ev.normalized())
                        .toRotationMatrix()
                  : Eigen::Matrix3d::Identity();
          return Eigen::VectorXd(internal::RotationLog(E * R));
        },
        Eigen::VectorXd::Zero(3));
    INFO("angle " << angle);
    CHECK(testing::RelativeError(internal::InverseLeftJacobian(phi), numeric) <=
          1e-6);
  }
}

TEST_CASE(
    "A Problem stacks its equality and inequality constraints with Jacobians "
    "that match central differences",
    "[constraints]") {
  std::mt19937 rng(31);
  testing::RandomFigureOptions options;
  options.num_joints = 9;
  const auto model = std::make_shared<const Model>(
      testing::RandomFigure(&rng, options).Compile());
  const Eigen::VectorXd q = testing::RandomConfiguration(*model, &rng);
  const auto goals = EveryNewGoalKind(*model, q, &rng);
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "site0",
                                                 RandomPoint(&rng)));
  int equality_rows = 0, inequality_rows = 0;
  for (const auto& goal : goals) {
    if (auto c = std::dynamic_pointer_cast<const InequalityGoal>(goal)) {
      problem.AddInequalityConstraint(c);
      inequality_rows += c->num_constraints();
    } else {
      problem.AddEqualityConstraint(goal);
      equality_rows += goal->num_residuals();
    }
  }
  REQUIRE(problem.has_constraints());
  CHECK(problem.num_equality_constraints() == equality_rows);
  CHECK(problem.num_inequality_constraints() == inequality_rows);
  // Constraints do not enter the potential or the residuals.
  CHECK(problem.num_residuals() == 3);

  ProblemWorkspace ws(problem);
  const auto values = [&](const Eigen::VectorXd& x) {
    ProblemWorkspace own(problem);
    Eigen::VectorXd h(equality_rows), c(inequality_rows);
    problem.EvaluateConstraints(x, &own, h, c, nullptr, nullptr);
    Eigen::VectorXd both(equality_rows + inequality_rows);
    both << h, c;
    return both;
  };
  Eigen::VectorXd h(equality_rows), c(inequality_rows);
  Eigen::MatrixXd Jh(equality_rows, model->nq()), Jc(inequality_rows, model->nq());
  Eigen::Ref<Eigen::MatrixXd> Jh_ref(Jh), Jc_ref(Jc);
  const Eigen::VectorXd q_near = q + 0.05 * testing::RandomConfiguration(*model, &rng);
  problem.EvaluateConstraints(q_near, &ws, h, c, &Jh_ref, &Jc_ref);
  Eigen::MatrixXd J(equality_rows + inequality_rows, model->nq());
  J << Jh, Jc;
  CHECK(testing::RelativeError(J, testing::NumericJacobian(values, q_near)) <=
        1e-6);

  // The penalty form: P_soft = P + ½ Σ w_h ‖h‖² + ½ Σ w_c ‖max(0, c)‖².
  const Problem soft = problem.WithConstraintsAsGoals();
  CHECK_FALSE(soft.has_constraints());
  ProblemWorkspace soft_ws(soft);
  double expected = problem.EvaluatePotential(q_near, &ws, nullptr);
  Data data(*model);
  ForwardKinematics(*model, q_near, &data);
  for (const auto& goal : goals) {
    Eigen::VectorXd r(goal->num_residuals());
    goal->Evaluate(*model, data, q_near, r, nullptr);
    expected += goal->Potential(r);
  }
  CHECK(soft.EvaluatePotential(q_near, &soft_ws, nullptr) ==
        Approx(expected).epsilon(1e-12));

  // And the hard form of the goals: every goal an equality constraint.
  const Problem hard = problem.WithGoalsAsConstraints();
  CHECK(hard.goals().empty());
  CHECK(hard.num_equality_constraints() == equality_rows + 3);

  // Constraint errors: one per constraint, zero violation where satisfied.
  std::vector<GoalError> errors;
  problem.ConstraintErrors(q_near, &ws, &errors);
  CHECK(errors.size() == goals.size());

  // A workspace made before a constraint was added is rejected.
  Problem grown = problem;
  ProblemWorkspace stale(grown);
  grown.AddInequalityConstraint(std::make_shared<PointDistanceGoal>(
      *model, "site1", Eigen::Vector3d::Zero(), 0.1, kInfinity));
  Eigen::VectorXd h2(grown.num_equality_constraints()),
      c2(grown.num_inequality_constraints());
  CHECK_THROWS_WITH(grown.EvaluateConstraints(q, &stale, h2, c2, nullptr, nullptr),
                    Contains("workspace was made for another problem"));
}

TEST_CASE("An inequality goal's violation is zero inside and its natural-unit "
          "size outside",
          "[constraints]") {
  Figure f("base");
  Joint j;
  j.name = "slide";
  j.parent = "base";
  j.child = "slider";
  j.kind = JointKind::kPrismatic;
  j.axis = Eigen::Vector3d::UnitX();
  f.AddJoint(j);
  f.AddSite({"tip", "slider", Eigen::Isometry3d::Identity()});
  const Model model = f.Compile();
  Data data(model);
  const PointDistanceGoal distance(model, "tip", Eigen::Vector3d::Zero(), 0.5,
                                   2.0);
  const ConeGoal cone(model, "tip", Eigen::Vector3d::UnitX(),
                      Eigen::Vector3d::UnitY(), 0.25);
  for (const double x : {0.2, 1.0, 2.7}) {
    Eigen::VectorXd q(1);
    q << x;
    ForwardKinematics(model, q, &data);
    const double expected = x < 0.5 ? 0.5 - x : x > 2.0 ? x - 2.0 : 0.0;
    CHECK(distance.Error(model, data).position == Approx(expected));
    Eigen::VectorXd r(2);
    distance.Evaluate(model, data, r, nullptr);
    // Soft form: P = ½ w max(0, c)² = ½ · violation².
    CHECK(distance.Potential(r) == Approx(0.5 * expected * expected));
  }
  // The site's x axis is 90° from y: violation 90° − 0.25 rad.
  CHECK(cone.Error(model, data).angle == Approx(M_PI / 2 - 0.25));
}

TEST_CASE("Inequality goals reject bad input with a message naming it",
          "[constraints]") {
  std::mt19937 rng(5);
  const Model model = testing::RandomFigure(&rng).Compile();
  const Eigen::Vector3d x = Eigen::Vector3d::UnitX();
  CHECK_THROWS_WITH(ConeGoal(model, "site0", x, x, -0.1),
                    Contains("half_angle must be in [0, pi]"));
  CHECK_THROWS_WITH(GazeGoal(model, "site0", x, x, 4.0),
                    Contains("half_angle must be in [0, pi]"));
  CHECK_THROWS_WITH(ConeGoal(model, "site0", 2.0 * x, x, 0.1),
                    Contains("axis must be a unit vector"));
  CHECK_THROWS_WITH(
      PointDistanceGoal(model, "site0", Eigen::Vector3d::Zero(), 1.0, 0.5),
      Contains("max_distance must be > min_distance"));
  CHECK_THROWS_WITH(
      PointDistanceGoal(model, "site0", Eigen::Vector3d::Zero(), -1.0, 0.5),
      Contains("min_distance must be finite and >= 0"));
  CHECK_THROWS_WITH(PointDistanceGoal(model, "site0", Eigen::Vector3d::Zero(),
                                      0.0, kInfinity),
                    Contains("no active bound"));
  CHECK_THROWS_WITH(SiteDistanceGoal(model, "site0", "site0", 0.1, 1.0),
                    Contains("must differ"));
  CHECK_THROWS_WITH(
      PositionBoxGoal(model, "site0", Eigen::Isometry3d::Identity(),
                      Eigen::Vector3d(0.1, 0, 0), Eigen::Vector3d(0, 1, 1)),
      Contains("needs lower <= upper"));
  CHECK_THROWS_WITH(
      PositionBoxGoal(model, "site0", Eigen::Isometry3d::Identity(),
                      Eigen::Vector3d::Constant(-kInfinity),
                      Eigen::Vector3d::Constant(kInfinity)),
      Contains("every bound is infinite"));
  CHECK_THROWS_WITH(
      OrientationBoxGoal(model, "site0", Eigen::Matrix3d::Identity(),
                         Eigen::Vector3d(-4, 0, 0), Eigen::Vector3d(1, 1, 1)),
      Contains("(-pi, pi)"));
  CHECK_THROWS_WITH(JointRangeGoal(model, {0, 0}, Eigen::VectorXd::Zero(2),
                                   Eigen::VectorXd::Ones(2)),
                    Contains("listed twice"));
  CHECK_THROWS_WITH(JointRangeGoal(model, {0}, Eigen::VectorXd::Ones(1),
                                   Eigen::VectorXd::Zero(1)),
                    Contains("needs lower <= upper"));
  CHECK_THROWS_WITH(JointPostureGoal(model, {model.nq()},
                                     Eigen::VectorXd::Zero(1)),
                    Contains("outside [0,"));
  CHECK_THROWS_WITH(ConeGoal(model, "nowhere", x, x, 0.1), Contains("nowhere"));
}

// Two arms on a turning torso: "turn" moves both hands alike, "left" only the
// left hand (about the hand frame's y axis), "right" only the right hand.
Model TwoArmFigure() {
  Figure f("base");
  const auto add = [&](const char* name, const char* parent, const char* child,
                       const Eigen::Vector3d& origin,
                       const Eigen::Vector3d& axis) {
    Joint j;
    j.name = name;
    j.parent = parent;
    j.child = child;
    j.X_PJ.translation() = origin;
    j.axis = axis;
    f.AddJoint(j);
  };
  add("turn", "base", "torso", Eigen::Vector3d(0, 0, 1), Eigen::Vector3d::UnitZ());
  add("left", "torso", "l_arm", Eigen::Vector3d(0, 0.3, 0), Eigen::Vector3d::UnitY());
  add("right", "torso", "r_arm", Eigen::Vector3d(0, -0.3, 0), Eigen::Vector3d::UnitX());
  f.AddSite({"lh", "l_arm", Eigen::Isometry3d::Identity()});
  Eigen::Isometry3d X_LS = Eigen::Isometry3d::Identity();
  X_LS.translation() = Eigen::Vector3d(0.4, 0, -0.2);
  f.AddSite({"rh", "r_arm", X_LS});
  return f.Compile();
}

TEST_CASE(
    "A relative pose goal is met at its own pose, ignores joints that move "
    "both sites, and reports the relative rotation in radians",
    "[constraints]") {
  const Model model = TwoArmFigure();
  Data data(model);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(3);
  q << 0.3, -0.2, 0.5;
  ForwardKinematics(model, q, &data);
  const Eigen::Isometry3d X_AB = SitePose(model, data, model.SiteIndex("lh"))
                                     .inverse() *
                                 SitePose(model, data, model.SiteIndex("rh"));
  const RelativePoseGoal goal(model, "lh", "rh", X_AB);
  Eigen::Matrix<double, 6, 1> lower = Eigen::Matrix<double, 6, 1>::Constant(-0.01);
  Eigen::Matrix<double, 6, 1> upper = Eigen::Matrix<double, 6, 1>::Constant(0.01);
  const RelativePoseBoxGoal box(model, "lh", "rh", X_AB, lower, upper);
  Eigen::VectorXd r(6), c(12);
  Eigen::MatrixXd J(6, 3), Jc(12, 3);
  Eigen::Ref<Eigen::MatrixXd> J_ref(J), Jc_ref(Jc);
  goal.Evaluate(model, data, r, &J_ref);
  box.EvaluateConstraint(model, data, q, c, &Jc_ref);
  CHECK(r.norm() <= 1e-12);
  CHECK((c.array() <= -0.01 + 1e-12).all());  // the middle of the box
  CHECK(goal.Error(model, data).position <= 1e-12);
  CHECK(goal.Error(model, data).angle <= 1e-12);
  CHECK(box.Error(model, data).position == 0.0);
  // Turning the torso moves both hands alike: no relative motion.
  const int turn = model.DofIndex("turn");
  CHECK(J.col(turn).norm() <= 1e-12);
  CHECK(Jc.col(turn).norm() <= 1e-12);
  CHECK(J.col(model.DofIndex("left")).norm() > 0.1);

  // Rotating the left arm by δ about its own y axis turns the relative
  // orientation by exactly δ; the torso's turn changes nothing.
  for (const double delta : {0.05, 0.4, -1.2}) {
    Eigen::VectorXd moved = q;
    moved[model.DofIndex("left")] += delta;
    moved[turn] += 0.7;
    ForwardKinematics(model, moved, &data);
    INFO("delta " << delta);
    CHECK(goal.Error(model, data).angle == Approx(std::abs(delta)));
    CHECK(box.Error(model, data).angle > 0.0);
  }
  // The torso's turn alone leaves every residual at 0.
  Eigen::VectorXd turned = q;
  turned[turn] += 1.1;
  ForwardKinematics(model, turned, &data);
  goal.Evaluate(model, data, r, nullptr);
  CHECK(r.norm() <= 1e-12);
}

TEST_CASE(
    "Weighted sums and disjunctions of joint goals report the joint errors at "
    "q",
    "[constraints]") {
  const auto model = std::make_shared<const Model>(TwoArmFigure());
  Eigen::VectorXd q(3);
  q << 0.1, 0.2, 0.3;
  Data data(*model);
  ForwardKinematics(*model, q, &data);
  const Eigen::Vector3d p_lh =
      SitePose(*model, data, model->SiteIndex("lh")).translation();
  auto position = std::make_shared<PositionGoal>(*model, "lh", p_lh);
  auto posture_near = std::make_shared<JointPostureGoal>(
      *model, std::vector<int>{2}, Eigen::VectorXd::Constant(1, 0.35));
  auto posture_far = std::make_shared<JointPostureGoal>(
      *model, std::vector<int>{2}, Eigen::VectorXd::Constant(1, 1.3));
  const WeightedSumGoal sum({position, posture_far});
  const DisjunctiveGoal any_of({posture_far, posture_near});
  // The position part is met; the posture part is 1.0 rad off.
  CHECK(sum.ErrorAt(*model, data, q).angle == Approx(1.0));
  const GoalError chosen = any_of.ErrorAt(*model, data, q);
  CHECK(chosen.active_alternative == 1);
  CHECK(chosen.angle == Approx(0.05));
  // Through the Problem, as studies verify answers.
  Problem problem(model);
  problem.AddGoal(std::make_shared<WeightedSumGoal>(sum));
  ProblemWorkspace ws(problem);
  const std::vector<GoalError> errors = problem.GoalErrors(q, &ws);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].angle == Approx(1.0));
}

TEST_CASE("Relative pose goals reject bad input with a message naming it",
          "[constraints]") {
  const Model model = TwoArmFigure();
  const Eigen::Isometry3d I = Eigen::Isometry3d::Identity();
  CHECK_THROWS_WITH(RelativePoseGoal(model, "lh", "lh", I),
                    Contains("site_a and site_b must differ"));
  CHECK_THROWS_WITH(RelativePoseGoal(model, "lh", "nowhere", I),
                    Contains("nowhere"));
  RelativePoseParts none;
  none.position = none.orientation = false;
  CHECK_THROWS_WITH(RelativePoseGoal(model, "lh", "rh", I, 1.0, none),
                    Contains("neither position nor orientation"));
  RelativePoseParts zero_scale;
  zero_scale.length_per_radian = 0.0;
  CHECK_THROWS_WITH(RelativePoseGoal(model, "lh", "rh", I, 1.0, zero_scale),
                    Contains("length_per_radian must be finite and > 0"));
  Eigen::Isometry3d sheared = I;
  sheared.linear()(0, 1) = 0.5;
  CHECK_THROWS_WITH(RelativePoseGoal(model, "lh", "rh", sheared),
                    Contains("target rotation"));
  CHECK_THROWS_WITH(RelativePoseGoal(model, "lh", "rh", I, -1.0),
                    Contains("weight"));
  using Vector6d = Eigen::Matrix<double, 6, 1>;
  const Vector6d free_lower = Vector6d::Constant(-kInfinity);
  const Vector6d free_upper = Vector6d::Constant(kInfinity);
  CHECK_THROWS_WITH(
      RelativePoseBoxGoal(model, "lh", "rh", I, free_lower, free_upper),
      Contains("every bound is infinite"));
  Vector6d lower = free_lower, upper = free_upper;
  lower[1] = 0.2;
  upper[1] = 0.1;
  CHECK_THROWS_WITH(RelativePoseBoxGoal(model, "lh", "rh", I, lower, upper),
                    Contains("component 1 needs lower <= upper"));
  lower = free_lower;
  upper = free_upper;
  upper[4] = 3.5;
  CHECK_THROWS_WITH(RelativePoseBoxGoal(model, "lh", "rh", I, lower, upper),
                    Contains("(-pi, pi)"));
  upper[4] = std::nan("");
  CHECK_THROWS_WITH(RelativePoseBoxGoal(model, "lh", "rh", I, lower, upper),
                    Contains("component 4"));
}

}  // namespace
}  // namespace iklab
