// Semantics of the goal kinds: zero at a satisfied goal, the residual sign
// convention, natural-unit errors against hand-computed angles, composite
// goals against independently computed potentials, regularizers against
// their formulas, the aiming degenerate case, and every validation message.

#include <cmath>
#include <limits>
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
#include "framework/figure.h"
#include "framework/kinematics.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using GoalList = std::vector<std::shared_ptr<const Goal>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A random tree with every joint kind, its sites, and FK at a random pose.
struct Fixture {
  explicit Fixture(unsigned seed) : rng(seed) {
    testing::RandomFigureOptions options;
    options.num_joints = 9;
    options.num_sites = 3;
    // Redraw until site0 can move (some coordinate between it and the root),
    // so every goal kind has something to act on.
    for (;;) {
      model = std::make_shared<const Model>(
          testing::RandomFigure(&rng, options).Compile());
      bool movable = false;
      for (int i = model->site_step(0); i > 0; i = model->parent(i)) {
        movable = movable || model->dof(i) >= 0;
      }
      if (movable) break;
    }
    data = std::make_unique<Data>(*model);
    q = testing::RandomConfiguration(*model, &rng);
    ForwardKinematics(*model, q, data.get());
    site = 0;
    X_WS = SitePose(*model, *data, site);
  }
  Eigen::VectorXd Evaluate(const Goal& goal) const {
    Eigen::VectorXd r(goal.num_residuals());
    goal.Evaluate(*model, *data, q, r, nullptr);
    return r;
  }
  std::mt19937 rng;
  std::shared_ptr<const Model> model;
  std::unique_ptr<Data> data;
  Eigen::VectorXd q;
  int site;
  Eigen::Isometry3d X_WS;
};

const std::string kSite = "site0";

TEST_CASE("Every goal has exactly zero potential when its target is read "
          "from FK of the same pose",
          "[constraints]") {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Fixture f(seed);
    const Model& m = *f.model;
    const Eigen::Vector3d p = f.X_WS.translation();
    const Eigen::Matrix3d R = f.X_WS.linear();
    const Eigen::Vector3d a_S = Eigen::Vector3d(1, 2, 2) / 3.0;
    GoalList goals = {
        std::make_shared<PositionGoal>(m, kSite, p, 2.0),
        std::make_shared<OrientationGoal>(m, kSite, R, 2.0),
        std::make_shared<AxisGoal>(m, kSite, a_S, R * a_S),
        std::make_shared<PositionOrientationGoal>(m, kSite, f.X_WS, 3.0),
        // Aim point 2.5 units ahead along the aim axis.
        std::make_shared<AimingGoal>(m, kSite, a_S, p + 2.5 * (R * a_S)),
        // A plane through p: any point p + t with t ⟂ n.
        std::make_shared<PlaneGoal>(m, kSite, p + Eigen::Vector3d(0.3, -0.4, 0),
                                    Eigen::Vector3d::UnitZ()),
        std::make_shared<TikhonovRegularizer>(m, 0.5, f.q),
        std::make_shared<JointCenterBias>(m, f.q,
                                          Eigen::VectorXd::Constant(m.nq(), 2.0)),
    };
    goals.push_back(
        std::make_shared<WeightedSumGoal>(GoalList{goals[0], goals[1], goals[4]}));
    for (const auto& goal : goals) {
      INFO(goal->name());
      const Eigen::VectorXd r = f.Evaluate(*goal);
      CHECK(r.norm() <= 1e-12);
      CHECK(goal->Potential(r) <= 1e-24);
      const GoalError e = goal->Error(m, *f.data);
      CHECK(e.position <= 1e-12);
      CHECK(e.angle <= 1e-7);
      CHECK(e.aim <= 1e-12);
      CHECK_FALSE(e.degenerate);
    }
  }
}

// The value of the parameter called `name`; fails the test if there is none.
double ParameterValue(const std::vector<GoalParameter>& parameters,
                      const std::string& name) {
  for (const GoalParameter& p : parameters) {
    if (p.name == name) return p.value;
  }
  FAIL("no parameter " << name);
  return kNaN;
}

TEST_CASE("Every goal kind states what it asks for as named natural-unit "
          "parameters and says which errors it has",
          "[constraints]") {
  const Fixture f(7);
  const Model& m = *f.model;
  const Eigen::Vector3d p(0.1, -0.2, 0.3);
  const Eigen::Matrix3d R =
      Eigen::AngleAxisd(2.5, Eigen::Vector3d(1, 2, 2) / 3.0).toRotationMatrix();
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.linear() = R;
  X.translation() = p;
  const auto position = std::make_shared<PositionGoal>(m, kSite, p);
  const auto pose = std::make_shared<PositionOrientationGoal>(m, kSite, X);
  const auto plane = std::make_shared<PlaneGoal>(m, kSite, p,
                                                 Eigen::Vector3d::UnitY());
  const auto aiming = std::make_shared<AimingGoal>(
      m, kSite, Eigen::Vector3d::UnitZ(), p);

  const auto at_position = position->Parameters();
  REQUIRE(at_position.size() == 3u);
  CHECK(ParameterValue(at_position, "target_x") == p.x());
  CHECK(ParameterValue(at_position, "target_y") == p.y());
  CHECK(ParameterValue(at_position, "target_z") == p.z());
  // The pose's quaternion (w ≥ 0) is its rotation.
  const auto at_pose = pose->Parameters();
  REQUIRE(at_pose.size() == 7u);
  const Eigen::Quaterniond q(ParameterValue(at_pose, "target_qw"),
                             ParameterValue(at_pose, "target_qx"),
                             ParameterValue(at_pose, "target_qy"),
                             ParameterValue(at_pose, "target_qz"));
  CHECK(q.w() >= 0.0);
  CHECK(q.toRotationMatrix().isApprox(R, 1e-12));
  CHECK(ParameterValue(at_pose, "target_z") == p.z());
  CHECK(ParameterValue(plane->Parameters(), "normal_y") == 1.0);
  CHECK(ParameterValue(plane->Parameters(), "point_x") == p.x());
  CHECK(ParameterValue(aiming->Parameters(), "axis_z") == 1.0);
  CHECK(ParameterValue(aiming->Parameters(), "target_y") == p.y());
  // A sum prefixes its parts' names.
  const WeightedSumGoal sum(GoalList{position, plane});
  CHECK(ParameterValue(sum.Parameters(), "part0_target_x") == p.x());
  CHECK(ParameterValue(sum.Parameters(), "part1_normal_y") == 1.0);

  // Error parts: a position goal has no angle, an aiming goal no position.
  CHECK(position->error_parts().position);
  CHECK_FALSE(position->error_parts().angle);
  CHECK_FALSE(position->error_parts().aim);
  CHECK(pose->error_parts().position);
  CHECK(pose->error_parts().angle);
  CHECK_FALSE(aiming->error_parts().position);
  CHECK(aiming->error_parts().aim);
  const DisjunctiveGoal any(GoalList{position, aiming});
  CHECK(any.error_parts().position);
  CHECK(any.error_parts().angle);
  const TikhonovRegularizer tikhonov(m, 0.5, f.q);
  CHECK_FALSE(tikhonov.error_parts().position);
  CHECK_FALSE(tikhonov.error_parts().angle);
  CHECK_FALSE(tikhonov.error_parts().aim);
}

TEST_CASE("Residuals are target minus current", "[constraints]") {
  const Fixture f(3);
  const Eigen::Vector3d offset(0.1, -0.2, 0.3);
  const PositionGoal goal(*f.model, kSite, f.X_WS.translation() + offset);
  CHECK((f.Evaluate(goal) - offset).norm() < 1e-12);
  CHECK_THAT(goal.Error(*f.model, *f.data).position,
             WithinAbs(offset.norm(), 1e-12));
  // Plane 0.25 above the site along +z: r = (p − p_WS)·n = +0.25.
  const PlaneGoal plane(*f.model, kSite,
                        f.X_WS.translation() + Eigen::Vector3d(5, 5, 0.25),
                        Eigen::Vector3d::UnitZ());
  CHECK_THAT(f.Evaluate(plane)[0], WithinAbs(0.25, 1e-12));
  CHECK_THAT(plane.Error(*f.model, *f.data).position, WithinAbs(0.25, 1e-12));
}

TEST_CASE("Orientation errors are the rotation angle in radians",
          "[constraints]") {
  const Fixture f(4);
  const Model& m = *f.model;
  const double theta = 0.7;
  // Goal = site rotated by θ about its own z axis: x and y each turn by θ.
  const Eigen::Matrix3d R_WG =
      f.X_WS.linear() * Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitZ());
  const OrientationGoal orientation(m, kSite, R_WG, 2.0);
  CHECK_THAT(orientation.Error(m, *f.data).angle, WithinAbs(theta, 1e-12));
  // ‖Δx‖² = ‖Δy‖² = 2(1 − cos θ), so P = ½ w · 4(1 − cos θ).
  CHECK_THAT(orientation.Potential(f.Evaluate(orientation)),
             WithinAbs(0.5 * 2.0 * 4.0 * (1 - std::cos(theta)), 1e-12));

  // Position + orientation: P = ½ w (w_p ‖Δp‖² + w_o (c_dx² + c_dy²) 2(1 − cos θ)).
  Eigen::Isometry3d X_WG = Eigen::Isometry3d::Identity();
  X_WG.linear() = R_WG;
  X_WG.translation() = f.X_WS.translation() + Eigen::Vector3d(0, 0.5, 0);
  PositionOrientationScales s;
  s.w_p = 2.0;
  s.w_o = 3.0;
  s.c_dx = 0.5;
  s.c_dy = 4.0;
  const PositionOrientationGoal pose(m, kSite, X_WG, 1.5, s);
  const double expected =
      0.5 * 1.5 *
      (2.0 * 0.25 + 3.0 * (0.25 + 16.0) * 2.0 * (1 - std::cos(theta)));
  CHECK_THAT(pose.Potential(f.Evaluate(pose)), WithinAbs(expected, 1e-12));
  const GoalError e = pose.Error(m, *f.data);
  CHECK_THAT(e.position, WithinAbs(0.5, 1e-12));
  CHECK_THAT(e.angle, WithinAbs(theta, 1e-12));

  // Axis goal: the site's x axis against a goal turned by θ about the site's
  // z axis; the free rotation about the axis does not count.
  const AxisGoal axis(m, kSite, Eigen::Vector3d::UnitX(), R_WG.col(0));
  const GoalError ea = axis.Error(m, *f.data);
  CHECK_THAT(ea.angle, WithinAbs(theta, 1e-12));
  CHECK_THAT(ea.aim, WithinAbs(1 - std::cos(theta), 1e-12));
  const AxisGoal free_spin(m, kSite, Eigen::Vector3d::UnitZ(), R_WG.col(2));
  CHECK(f.Evaluate(free_spin).norm() < 1e-12);
}

TEST_CASE("Aiming error is 1 - cos of the angle to the target direction",
          "[constraints]") {
  const Fixture f(5);
  const Eigen::Matrix3d& R = f.X_WS.linear();
  const double alpha = 0.4;
  // Target 3 units away along the site's x axis turned by α about its z axis;
  // the aim axis is the site's x axis.
  const Eigen::Vector3d target =
      f.X_WS.translation() +
      3.0 * (R * Eigen::AngleAxisd(alpha, Eigen::Vector3d::UnitZ()) *
             Eigen::Vector3d::UnitX());
  const AimingGoal goal(*f.model, kSite, Eigen::Vector3d::UnitX(), target);
  const GoalError e = goal.Error(*f.model, *f.data);
  CHECK_THAT(e.angle, WithinAbs(alpha, 1e-12));
  CHECK_THAT(e.aim, WithinAbs(1 - std::cos(alpha), 1e-12));
  CHECK_FALSE(e.degenerate);
  // ‖u − v‖ = 2 sin(α/2) for unit vectors at angle α.
  CHECK_THAT(f.Evaluate(goal).norm(), WithinAbs(2 * std::sin(alpha / 2), 1e-12));
}

TEST_CASE("Aiming at the effector point itself gives finite zeros and a "
          "degenerate report",
          "[constraints]") {
  const Fixture f(6);
  const auto goal = std::make_shared<AimingGoal>(
      *f.model, kSite, Eigen::Vector3d::UnitX(), f.X_WS.translation());
  Eigen::VectorXd r = Eigen::VectorXd::Constant(3, 9.0);
  Eigen::MatrixXd J = Eigen::MatrixXd::Constant(3, f.model->nq(), 9.0);
  Eigen::Ref<Eigen::MatrixXd> J_ref = J;
  goal->Evaluate(*f.model, *f.data, r, &J_ref);
  CHECK(r.isZero(0.0));
  CHECK(J.isZero(0.0));
  CHECK(goal->IsDegenerate(*f.model, *f.data));
  const GoalError e = goal->Error(*f.model, *f.data);
  CHECK(e.degenerate);
  CHECK(e.aim == 2.0);  // the worst value: never mistaken for converged
  CHECK(std::isfinite(e.angle));

  Problem problem(f.model);
  problem.AddGoal(goal);
  ProblemWorkspace ws(problem);
  Eigen::VectorXd gradient(f.model->nq());
  Eigen::Ref<Eigen::VectorXd> g = gradient;
  const double P = problem.EvaluatePotential(f.q, &ws, &g);
  CHECK(std::isfinite(P));
  CHECK(gradient.allFinite());
  const ErrorSummary summary = Summarize(problem.GoalErrors(f.q, &ws));
  CHECK(summary.any_degenerate);

  // A point a little off the effector is not degenerate.
  const AimingGoal near(*f.model, kSite, Eigen::Vector3d::UnitX(),
                        f.X_WS.translation() + Eigen::Vector3d(1e-6, 0, 0));
  CHECK_FALSE(near.IsDegenerate(*f.model, *f.data));
}

TEST_CASE("Aiming from a site no joint can move at its own position is "
          "rejected at construction",
          "[constraints]") {
  Figure figure("base");
  Joint joint;
  joint.name = "hinge";
  joint.parent = "base";
  joint.child = "arm";
  figure.AddJoint(joint);
  Site eye{"eye", "base", Eigen::Isometry3d::Identity()};
  eye.X_LS.translation() = Eigen::Vector3d(1, 2, 3);
  figure.AddSite(eye);
  figure.AddSite({"tip", "arm", Eigen::Isometry3d::Identity()});
  const Model model = figure.Compile();
  REQUIRE_THROWS_WITH(
      AimingGoal(model, "eye", Eigen::Vector3d::UnitX(), Eigen::Vector3d(1, 2, 3)),
      Contains("aiming(eye)") && Contains("coincides with the aim point") &&
          Contains("no joint can move"));
  AimingGoal ok(model, "eye", Eigen::Vector3d::UnitX(), Eigen::Vector3d(2, 2, 3));
  REQUIRE_THROWS_WITH(ok.set_target(model, Eigen::Vector3d(1, 2, 3)),
                      Contains("coincides"));
  CHECK(ok.target() == Eigen::Vector3d(2, 2, 3));  // unchanged after a throw
  // A movable site may aim at its current position (degenerate only there).
  CHECK_NOTHROW(AimingGoal(model, "tip", Eigen::Vector3d::UnitX(),
                           Eigen::Vector3d::Zero()));
}

TEST_CASE("A disjunctive goal follows the alternative with the least potential",
          "[constraints]") {
  const Fixture f(7);
  const Model& m = *f.model;
  const Eigen::Vector3d p = f.X_WS.translation();
  // Potentials by hand: ½ w ‖Δ‖².
  const auto far = std::make_shared<PositionGoal>(
      m, kSite, p + Eigen::Vector3d(1, 0, 0), 1.0);  // P = 0.5
  const auto near = std::make_shared<PositionGoal>(
      m, kSite, p + Eigen::Vector3d(0, 0.2, 0), 4.0);  // P = 0.08
  const auto plane = std::make_shared<PlaneGoal>(
      m, kSite, p + Eigen::Vector3d(0, 0, 0.3), Eigen::Vector3d::UnitZ(),
      2.0);  // P = 0.09, 1 residual

  const DisjunctiveGoal goal(GoalList{far, plane, near}, 1.0);
  CHECK(goal.num_residuals() == 3);
  CHECK(goal.ActiveAlternative(m, *f.data) == 2);
  const Eigen::VectorXd r = f.Evaluate(goal);
  CHECK_THAT(goal.Potential(r), WithinAbs(0.08, 1e-12));
  // √w_k r_k of the active alternative: √4 · (0, 0.2, 0).
  CHECK((r - Eigen::Vector3d(0, 0.4, 0)).norm() < 1e-12);
  CHECK(goal.Error(m, *f.data).active_alternative == 2);
  CHECK_THAT(goal.Error(m, *f.data).position, WithinAbs(0.2, 1e-12));

  // Without `near` the plane wins and its single residual is zero-padded.
  const DisjunctiveGoal two(GoalList{far, plane});
  const Eigen::VectorXd r2 = f.Evaluate(two);
  CHECK(two.ActiveAlternative(m, *f.data) == 1);
  CHECK_THAT(r2[0], WithinAbs(std::sqrt(2.0) * 0.3, 1e-12));
  CHECK(r2[1] == 0.0);
  CHECK(r2[2] == 0.0);
  Eigen::MatrixXd J = Eigen::MatrixXd::Constant(3, m.nq(), 5.0);
  Eigen::Ref<Eigen::MatrixXd> J_ref = J;
  Eigen::VectorXd r3(3);
  two.Evaluate(m, *f.data, r3, &J_ref);
  CHECK(J.bottomRows(2).isZero(0.0));
}

TEST_CASE("A disjunctive goal breaks ties by the lowest index", "[constraints]") {
  // A site at (0, 0, 1) on one joint at q = 0: FK is exact there (cos 0 = 1,
  // sin 0 = 0), so the potentials of a and b below are equal bit for bit (on
  // a random figure they would tie only up to FK's rounding).
  Figure figure("base");
  Joint joint;
  joint.name = "q0";
  joint.parent = "base";
  joint.child = "link";
  figure.AddJoint(joint);
  Site tip{"tip", "link", Eigen::Isometry3d::Identity()};
  tip.X_LS.translation() = Eigen::Vector3d(0, 0, 1);
  figure.AddSite(tip);
  const Model m = figure.Compile();
  Data data(m);
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(1);
  ForwardKinematics(m, q, &data);
  const Eigen::Vector3d p(0, 0, 1);
  REQUIRE(SitePosition(m, data, 0) == p);
  const auto a = std::make_shared<PositionGoal>(m, "tip", p + Eigen::Vector3d(0.5, 0, 0));
  const auto b = std::make_shared<PositionGoal>(m, "tip", p + Eigen::Vector3d(0, 0.5, 0));
  const auto c = std::make_shared<PositionGoal>(m, "tip", p + Eigen::Vector3d(0, 0, 0.5));
  const auto worse = std::make_shared<PositionGoal>(m, "tip", p + Eigen::Vector3d(0, 0, 2));
  CHECK(DisjunctiveGoal(GoalList{a, b, c}).ActiveAlternative(m, data) == 0);
  CHECK(DisjunctiveGoal(GoalList{worse, c, b}).ActiveAlternative(m, data) == 1);
  const DisjunctiveGoal tie(GoalList{worse, b, a});
  CHECK(tie.Error(m, data).active_alternative == 1);
  Eigen::VectorXd r(tie.num_residuals());
  tie.Evaluate(m, data, q, r, nullptr);
  CHECK((r - Eigen::Vector3d(0, 0.5, 0)).norm() < 1e-12);
}

TEST_CASE("A weighted sum's potential is the sum of the weighted potentials",
          "[constraints]") {
  const Fixture f(9);
  const Model& m = *f.model;
  const Eigen::Vector3d p = f.X_WS.translation();
  const Eigen::Vector3d d1(0.3, 0.1, -0.2), d2(-1, 0.5, 0);
  const auto g1 = std::make_shared<PositionGoal>(m, kSite, p + d1, 2.0);
  const auto g2 = std::make_shared<PositionGoal>(m, "site1",
                                                 SitePosition(m, *f.data, 1) + d2, 0.5);
  const auto g3 = std::make_shared<PlaneGoal>(
      m, kSite, p + Eigen::Vector3d(0, 0, -0.4), Eigen::Vector3d::UnitZ(), 3.0);
  const WeightedSumGoal sum(GoalList{g1, g2, g3}, 1.5);
  CHECK(sum.num_residuals() == 7);
  const double expected =
      1.5 * (2.0 * 0.5 * d1.squaredNorm() + 0.5 * 0.5 * d2.squaredNorm() +
             3.0 * 0.5 * 0.16);
  CHECK_THAT(sum.Potential(f.Evaluate(sum)), WithinAbs(expected, 1e-12));
  // Error combines by maximum.
  CHECK_THAT(sum.Error(m, *f.data).position, WithinAbs(d2.norm(), 1e-12));

  // The same goals added separately to a Problem give the same potential
  // (without the sum's own weight).
  Problem separate(f.model);
  for (const auto& g : {g1, g2}) separate.AddGoal(g);
  separate.AddGoal(g3);
  ProblemWorkspace ws(separate);
  CHECK_THAT(separate.EvaluatePotential(f.q, &ws, nullptr),
             WithinAbs(expected / 1.5, 1e-12));
}

TEST_CASE("Tikhonov regularization is alpha times the squared distance to "
          "q_ref and grows with it",
          "[constraints]") {
  const Fixture f(10);
  const Model& m = *f.model;
  const double alpha = 0.3;
  const auto tikhonov = std::make_shared<TikhonovRegularizer>(m, alpha, f.q, 2.0);
  Problem problem(f.model);
  problem.AddRegularizer(tikhonov);
  ProblemWorkspace ws(problem);
  Eigen::VectorXd direction = Eigen::VectorXd::LinSpaced(m.nq(), -1.0, 2.0);
  double previous = -1.0;
  for (const double t : {0.0, 0.25, 0.5, 1.0, 2.0}) {
    const Eigen::VectorXd q = f.q + t * direction;
    const double P = problem.EvaluatePotential(q, &ws, nullptr);
    CHECK_THAT(P, WithinAbs(2.0 * alpha * t * t * direction.squaredNorm(), 1e-12));
    CHECK(P > previous);
    previous = P;
  }
  // Moving q_ref to the current pose zeroes it.
  tikhonov->set_reference(f.q + direction);
  CHECK(problem.EvaluatePotential(f.q + direction, &ws, nullptr) == 0.0);
}

TEST_CASE("The joint-centre bias is H = sum a_i (q_i - c_i)^2 with gradient z "
          "= 2 a (q - c)",
          "[constraints]") {
  const Fixture f(11);
  const Model& m = *f.model;
  const Eigen::VectorXd centers = m.MidLimits();
  Eigen::VectorXd gains = Eigen::VectorXd::LinSpaced(m.nq(), 0.0, 1.0);
  const auto bias = std::make_shared<JointCenterBias>(m, centers, gains);
  Problem problem(f.model);
  problem.AddRegularizer(bias);
  ProblemWorkspace ws(problem);
  Eigen::VectorXd gradient(m.nq());
  Eigen::Ref<Eigen::VectorXd> g = gradient;
  const double P = problem.EvaluatePotential(f.q, &ws, &g);
  double H = 0.0;
  for (int i = 0; i < m.nq(); ++i) {
    H += gains[i] * (f.q[i] - centers[i]) * (f.q[i] - centers[i]);
    CHECK_THAT(gradient[i], WithinAbs(2 * gains[i] * (f.q[i] - centers[i]), 1e-12));
  }
  CHECK_THAT(P, WithinAbs(H, 1e-12));
  CHECK_THAT(bias->Cost(f.q), WithinAbs(H, 1e-12));
  CHECK(gradient[0] == 0.0);  // gain 0: coordinate 0 is free
}

TEST_CASE("Goals reject invalid arguments with messages naming them",
          "[constraints]") {
  const Fixture f(12);
  const Model& m = *f.model;
  const Eigen::Vector3d ok(1, 0, 0);
  const Eigen::Vector3d nan_vec(0, kNaN, 0);
  const Eigen::Vector3d inf_vec(kInf, 0, 0);

  REQUIRE_THROWS_WITH(PositionGoal(m, "nowhere", ok), Contains("nowhere"));
  REQUIRE_THROWS_WITH(PositionGoal(m, kSite, nan_vec),
                      Contains("position(site0)") && Contains("target must be finite") &&
                          Contains("nan"));
  REQUIRE_THROWS_WITH(PositionGoal(m, kSite, inf_vec),
                      Contains("target must be finite") && Contains("inf"));
  REQUIRE_THROWS_WITH(PositionGoal(m, kSite, ok, -1.0),
                      Contains("weight must be finite and >= 0; got -1"));
  REQUIRE_THROWS_WITH(PositionGoal(m, kSite, ok, kNaN), Contains("weight"));
  PositionGoal position(m, kSite, ok);
  REQUIRE_THROWS_WITH(position.set_target(nan_vec), Contains("target"));
  CHECK(position.target() == ok);
  REQUIRE_THROWS_WITH(position.set_weight(-2.0), Contains("got -2"));

  REQUIRE_THROWS_WITH(PlaneGoal(m, kSite, ok, Eigen::Vector3d::Zero()),
                      Contains("plane(site0)") &&
                          Contains("normal must be a unit vector; got zero"));
  REQUIRE_THROWS_WITH(PlaneGoal(m, kSite, ok, Eigen::Vector3d(1, 1, 0)),
                      Contains("normal must be a unit vector (normalize it)") &&
                          Contains("norm 1.414"));
  REQUIRE_THROWS_WITH(PlaneGoal(m, kSite, nan_vec, ok), Contains("point must be finite"));

  REQUIRE_THROWS_WITH(AxisGoal(m, kSite, Eigen::Vector3d::Zero(), ok),
                      Contains("axis must be a unit vector"));
  REQUIRE_THROWS_WITH(AxisGoal(m, kSite, ok, Eigen::Vector3d(0, 2, 0)),
                      Contains("target must be a unit vector"));
  REQUIRE_THROWS_WITH(AimingGoal(m, kSite, Eigen::Vector3d::Zero(), ok),
                      Contains("aiming(site0)") && Contains("direction must be a unit vector"));
  REQUIRE_THROWS_WITH(AimingGoal(m, kSite, ok, inf_vec), Contains("target must be finite"));
  REQUIRE_THROWS_WITH(AimingGoal(m, kSite, ok, ok, 1.0, 0.0),
                      Contains("min_distance must be finite and > 0; got 0"));

  Eigen::Matrix3d not_rotation = Eigen::Matrix3d::Identity();
  not_rotation(0, 1) = 0.5;
  REQUIRE_THROWS_WITH(OrientationGoal(m, kSite, not_rotation),
                      Contains("orientation(site0)") && Contains("must be a rotation matrix"));
  REQUIRE_THROWS_WITH(OrientationGoal(m, kSite, -Eigen::Matrix3d::Identity()),
                      Contains("det = -1"));
  Eigen::Matrix3d nan_rotation = Eigen::Matrix3d::Identity();
  nan_rotation(2, 2) = kNaN;
  REQUIRE_THROWS_WITH(OrientationGoal(m, kSite, nan_rotation), Contains("NaN"));

  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  PositionOrientationScales scales;
  scales.c_dx = -1.0;
  REQUIRE_THROWS_WITH(PositionOrientationGoal(m, kSite, X, 1.0, scales),
                      Contains("scales.c_dx must be finite and >= 0; got -1"));
  scales = {};
  scales.w_o = kInf;
  REQUIRE_THROWS_WITH(PositionOrientationGoal(m, kSite, X, 1.0, scales),
                      Contains("scales.w_o"));
  X.translation().x() = kNaN;
  REQUIRE_THROWS_WITH(PositionOrientationGoal(m, kSite, X),
                      Contains("target translation must be finite"));

  REQUIRE_THROWS_WITH(TikhonovRegularizer(m, -0.1, f.q),
                      Contains("tikhonov") && Contains("alpha must be finite and >= 0"));
  REQUIRE_THROWS_WITH(TikhonovRegularizer(m, 0.1, Eigen::VectorXd::Zero(2)),
                      Contains("reference q_ref has 2 entries; expected nq = " +
                               std::to_string(m.nq())));
  Eigen::VectorXd bad_q = f.q;
  bad_q[1] = kNaN;
  REQUIRE_THROWS_WITH(TikhonovRegularizer(m, 0.1, bad_q), Contains("must be finite"));
  Eigen::VectorXd gains = Eigen::VectorXd::Ones(m.nq());
  gains[2] = -3.0;
  REQUIRE_THROWS_WITH(JointCenterBias(m, f.q, gains),
                      Contains("gains[2] must be finite and >= 0; got -3"));
  REQUIRE_THROWS_WITH(JointCenterBias(m, bad_q, Eigen::VectorXd::Ones(m.nq())),
                      Contains("centers must be finite"));

  const auto child = std::make_shared<PositionGoal>(m, kSite, ok);
  REQUIRE_THROWS_WITH(WeightedSumGoal(GoalList{}),
                      Contains("weighted_sum: needs at least one goal"));
  REQUIRE_THROWS_WITH(DisjunctiveGoal(GoalList{child, nullptr}),
                      Contains("disjunctive: goal 1 is null"));
}

TEST_CASE("Goal::Evaluate rejects wrong output sizes and a missing q",
          "[constraints]") {
  const Fixture f(13);
  const Model& m = *f.model;
  const PositionGoal goal(m, kSite, Eigen::Vector3d::Zero());
  Eigen::VectorXd r2(2), r3(3);
  REQUIRE_THROWS_WITH(goal.Evaluate(m, *f.data, r2, nullptr),
                      Contains("residual has 2 entries; expected num_residuals() = 3"));
  Eigen::MatrixXd J(3, m.nq() + 1);
  Eigen::Ref<Eigen::MatrixXd> J_ref = J;
  REQUIRE_THROWS_WITH(goal.Evaluate(m, *f.data, r3, &J_ref),
                      Contains("jacobian is 3 x " + std::to_string(m.nq() + 1)));
  const TikhonovRegularizer tikhonov(m, 1.0, f.q);
  Eigen::VectorXd rq(m.nq());
  REQUIRE_THROWS_WITH(tikhonov.Evaluate(m, *f.data, rq, nullptr),
                      Contains("reads q directly"));
}

}  // namespace
}  // namespace iklab
