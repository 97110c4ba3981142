#include "framework/builders.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/internal/constants.h"
#include "framework/kinematics.h"
#include "framework/model.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

using internal::kPi;

double Deg(double degrees) { return degrees * kPi / 180.0; }

Eigen::Matrix3d Rx(double a) {
  return Eigen::AngleAxisd(a, Eigen::Vector3d::UnitX()).toRotationMatrix();
}
Eigen::Matrix3d Ry(double a) {
  return Eigen::AngleAxisd(a, Eigen::Vector3d::UnitY()).toRotationMatrix();
}
Eigen::Matrix3d Rz(double a) {
  return Eigen::AngleAxisd(a, Eigen::Vector3d::UnitZ()).toRotationMatrix();
}

// Site position of a compiled model at q.
Eigen::Vector3d Position(const Model& model, const Eigen::VectorXd& q,
                         const std::string& site) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePosition(model, data, model.SiteIndex(site));
}

Eigen::Isometry3d Pose(const Model& model, const Eigen::VectorXd& q,
                       const std::string& site) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePose(model, data, model.SiteIndex(site));
}

void CheckNear(const Eigen::Vector3d& actual, const Eigen::Vector3d& expected,
               double tolerance) {
  INFO("actual " << actual.transpose() << "\nexpected "
                 << expected.transpose());
  CHECK((actual - expected).norm() <= tolerance);
}

// ---------------------------------------------------------------------------
// Planar chains

TEST_CASE(
    "Parent's arm at {pi/8, pi/4, pi/4} puts the effector at "
    "(15.772, 19.598)",
    "[framework]") {
  const Model model = ParentArm().Compile();
  REQUIRE(model.nq() == 3);
  const Eigen::Vector3d q(kPi / 8, kPi / 4, kPi / 4);
  // Absolute angles 22.5°, 67.5°, 112.5° (Parent Fig. 5.20's start pose).
  const Eigen::Vector3d p = Position(model, q, "effector");
  CHECK_THAT(p.x(), WithinAbs(15.772, 1e-3));
  CHECK_THAT(p.y(), WithinAbs(19.598, 1e-3));
  CHECK_THAT(p.z(), WithinAbs(0.0, 1e-12));
  // Joint sites: joint1 = 15 (cos 22.5°, sin 22.5°) = (13.858, 5.740).
  const Eigen::Vector3d elbow = Position(model, q, "joint1");
  CHECK_THAT(elbow.x(), WithinAbs(13.858, 1e-3));
  CHECK_THAT(elbow.y(), WithinAbs(5.740, 1e-3));
  CheckNear(Position(model, q, "joint0"), Eigen::Vector3d::Zero(), 1e-12);
  CheckNear(Position(model, q, "joint3"), p, 1e-12);
}

TEST_CASE("Soch's chain starts at (400, 0) and its base sits at (-230, 0)",
          "[framework]") {
  const Model model = SochChain().Compile();
  REQUIRE(model.nq() == 6);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(6);
  CheckNear(Position(model, zero, "effector"), Eigen::Vector3d(400, 0, 0),
            1e-9);
  CheckNear(Position(model, zero, "joint0"), Eigen::Vector3d(-230, 0, 0),
            1e-12);
  // Joint 2 at −230 + 90 + 60 = −80.
  CheckNear(Position(model, zero, "joint2"), Eigen::Vector3d(-80, 0, 0), 1e-9);
  // Turning the first joint by +90° stands the chain up: (−230, 630).
  Eigen::VectorXd q = zero;
  q[0] = kPi / 2;
  CheckNear(Position(model, q, "effector"), Eigen::Vector3d(-230, 630, 0),
            1e-9);
  // Folding the last link back: 630 − 2·90 = 450 from the base, at x = 220.
  q = zero;
  q[5] = kPi;
  CheckNear(Position(model, q, "effector"), Eigen::Vector3d(220, 0, 0), 1e-9);
}

TEST_CASE("A planar chain's prefix and base are applied to every name",
          "[framework]") {
  Figure f = PlanarChain({2, 3}, Eigen::Vector2d(1, -1), "arm_");
  const Model model = f.Compile();
  CHECK(model.dof_name(0) == "arm_q0");
  CHECK(model.dof_name(1) == "arm_q1");
  // Absolute angles 90° and 90° + (−90°) = 0: (1, −1) + (0, 2) + (3, 0).
  const Eigen::Vector2d q(kPi / 2, -kPi / 2);
  CheckNear(Position(model, q, "arm_effector"), Eigen::Vector3d(4, 1, 0),
            1e-12);
  CheckNear(Position(model, q, "arm_joint1"), Eigen::Vector3d(1, 1, 0), 1e-12);
}

TEST_CASE("Planar chains with bad lengths are rejected with the index",
          "[framework]") {
  REQUIRE_THROWS_WITH(PlanarChain({}), Contains("lengths is empty"));
  REQUIRE_THROWS_WITH(PlanarChain({1, -2, 3}),
                      Contains("lengths[1]") && Contains("> 0"));
  REQUIRE_THROWS_WITH(PlanarChain({1, NAN}), Contains("lengths[1]"));
  REQUIRE_THROWS_WITH(PlanarChain({1}, Eigen::Vector2d(INFINITY, 0)),
                      Contains("base must be finite"));
}

// Effector of a planar chain with relative angles, by the formula of the NLP
// paper (Example 3.1): p = Σ_i l (cos φ_i, sin φ_i), φ_i = Σ_{j≤i} θ_j.
Eigen::Vector3d PlanarTip(const std::vector<double>& thetas, double length) {
  double phi = 0;
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (double t : thetas) {
    phi += t;
    p += length * Eigen::Vector3d(std::cos(phi), std::sin(phi), 0);
  }
  return p;
}

TEST_CASE("NLP branched figures at a right-angle pose match a hand drawing",
          "[framework]") {
  const Model model = NlpBranchedFigure(4).Compile();
  REQUIRE(model.nq() == 12);
  // Unit links. θ1..θ6 = (90°, −90°, 90°, 0, −90°, 0) walks (0,0) → (0,1) →
  // (1,1) → (1,2) → (1,3) → (2,3) → (3,3). The branch θ7..θ9 = (90°, 90°, 0)
  // leaves (1,2) heading 180° → (0,2), then 270° → (0,1) → (0,0). The second
  // branch θ10..θ12 = (−90°, 0, −90°) heads 0° → (2,2) → (3,2), then
  // 270° → (3,1). Effector 4 is the end of link 2: (1,1).
  Eigen::VectorXd q(12);
  q << kPi / 2, -kPi / 2, kPi / 2, 0, -kPi / 2, 0,  //
      kPi / 2, kPi / 2, 0,                          //
      -kPi / 2, 0, -kPi / 2;
  CheckNear(Position(model, q, "effector1"), Eigen::Vector3d(3, 3, 0), 1e-12);
  CheckNear(Position(model, q, "effector2"), Eigen::Vector3d(0, 0, 0), 1e-12);
  CheckNear(Position(model, q, "effector3"), Eigen::Vector3d(3, 1, 0), 1e-12);
  CheckNear(Position(model, q, "effector4"), Eigen::Vector3d(1, 1, 0), 1e-12);
  CheckNear(Position(model, q, "joint4"), Eigen::Vector3d(1, 2, 0), 1e-12);
  CheckNear(Position(model, q, "joint7"), Eigen::Vector3d(1, 2, 0), 1e-12);
  CheckNear(Position(model, q, "joint9"), Eigen::Vector3d(0, 1, 0), 1e-12);
}

TEST_CASE("NLP branched figures follow the paper's absolute-angle formulas",
          "[framework]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  const double l = 0.7;
  for (int effectors = 2; effectors <= 4; ++effectors) {
    const Model model = NlpBranchedFigure(effectors, l).Compile();
    CHECK(model.nq() == (effectors == 2 ? 9 : 12));
    CHECK(model.dof_name(0) == "theta1");
    for (int trial = 0; trial < 5; ++trial) {
      Eigen::VectorXd q(model.nq());
      for (int i = 0; i < q.size(); ++i) q[i] = angle(rng);
      std::vector<double> t(q.data(), q.data() + q.size());
      // Example 5.7: effector 1 uses θ1..θ6; effector 2 θ1..θ3, θ7..θ9.
      CheckNear(Position(model, q, "effector1"),
                PlanarTip({t[0], t[1], t[2], t[3], t[4], t[5]}, l), 1e-12);
      CheckNear(Position(model, q, "effector2"),
                PlanarTip({t[0], t[1], t[2], t[6], t[7], t[8]}, l), 1e-12);
      if (effectors >= 3) {
        CheckNear(Position(model, q, "effector3"),
                  PlanarTip({t[0], t[1], t[2], t[9], t[10], t[11]}, l), 1e-12);
      }
      if (effectors >= 4) {
        CheckNear(Position(model, q, "effector4"), PlanarTip({t[0], t[1]}, l),
                  1e-12);
      } else {
        CHECK_THROWS(model.SiteIndex("effector4"));
      }
    }
  }
  REQUIRE_THROWS_WITH(NlpBranchedFigure(5), Contains("must be 2, 3 or 4"));
  REQUIRE_THROWS_WITH(NlpBranchedFigure(2, 0.0), Contains("link_length"));
}

// ---------------------------------------------------------------------------
// Tolani's 7-DOF limb

// The documented arm and leg, recomposed here from the header's numbers
// (Winter's fractions, the axis orders, A and B) without using the builder's
// LimbGeometry, so a wrong number in either place makes the test fail.
struct HandLimb {
  bool arm;
  double s;  // +1 left, −1 right (the mirror rule flips x and z rotations)
  double H = 1.75;
  double gamma = Deg(10);

  // World pose of the wrist/ankle frame (and the elbow/knee point).
  Eigen::Isometry3d Wrist(const Eigen::VectorXd& t, Eigen::Vector3d* elbow,
                          Eigen::Vector3d* tip) const {
    const double L1 = (arm ? 0.186 : 0.245) * H;
    const double L2 = (arm ? 0.146 : 0.246) * H;
    const Eigen::Matrix3d base = Rx(kPi);  // limb frame: x fwd, y right, z down
    const Eigen::Matrix3d R1 = base * Ry(t[0]) * Rx(t[1]) * Rz(t[2]);
    Eigen::Matrix3d Ra = Eigen::Matrix3d::Identity();
    Eigen::Matrix3d Rb = arm ? Rx(s * gamma) : Rz(kPi);
    if (!arm) Ra = Rz(kPi);
    const Eigen::Vector3d p_elbow = R1 * Eigen::Vector3d(0, 0, L1);
    const Eigen::Matrix3d RF = R1 * Ra * Ry(t[3]);
    const Eigen::Vector3d p_wrist =
        p_elbow + RF * Rb * Eigen::Vector3d(0, 0, L2);
    const Eigen::Matrix3d R2 = RF * Rb * Rz(t[4]) * Ry(t[5]) * Rx(t[6]);
    Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
    X.linear() = R2;
    X.translation() = p_wrist;
    if (elbow) *elbow = p_elbow;
    if (tip) {
      const Eigen::Vector3d p_tip =
          arm ? Eigen::Vector3d(0, 0, 0.108 * H)
              : Eigen::Vector3d(0.75 * 0.152 * H, 0, 0.039 * H);
      *tip = X * p_tip;
    }
    return X;
  }
};

TEST_CASE("Tolani's left arm hangs with a 10 degree carrying angle at zero",
          "[framework]") {
  const Model model = TolaniArm(Side::kLeft).Compile();
  REQUIRE(model.nq() == 7);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(7);
  // H = 1.75: upper arm 0.3255, forearm 0.2555, hand 0.189. The forearm leans
  // out to the left (+y) by 10°: wrist = (0, 0.2555 sin 10°,
  // −0.3255 − 0.2555 cos 10°) = (0, 0.044367, −0.577118).
  CheckNear(Position(model, zero, "shoulder"), Eigen::Vector3d::Zero(), 1e-12);
  CheckNear(Position(model, zero, "elbow"), Eigen::Vector3d(0, 0, -0.3255),
            1e-12);
  CheckNear(Position(model, zero, "wrist"),
            Eigen::Vector3d(0, 0.044367, -0.577118), 1e-6);
  // Fingertip 0.189 further along the forearm: + (0, 0.032820, −0.186129).
  CheckNear(Position(model, zero, "hand"),
            Eigen::Vector3d(0, 0.077187, -0.763247), 1e-6);
}

TEST_CASE("Tolani's arm joints move the way their names say", "[framework]") {
  const Model left = TolaniArm(Side::kLeft).Compile();
  const Model right = TolaniArm(Side::kRight).Compile();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(7);
  q[0] = kPi / 2;  // shoulder flexion: the arm points forward
  CheckNear(Position(left, q, "elbow"), Eigen::Vector3d(0.3255, 0, 0), 1e-12);
  q.setZero();
  q[1] = kPi / 2;  // left abduction: the arm points to the left
  CheckNear(Position(left, q, "elbow"), Eigen::Vector3d(0, 0.3255, 0), 1e-12);
  q[1] = -kPi / 2;  // right abduction is negative (mirror rule)
  CheckNear(Position(right, q, "elbow"), Eigen::Vector3d(0, -0.3255, 0), 1e-12);
  q.setZero();
  q[3] = kPi / 2;  // elbow flexion: forearm forward, still leaning left
  CheckNear(Position(left, q, "wrist"),
            Eigen::Vector3d(0.251618, 0.044367, -0.3255), 1e-6);
}

TEST_CASE("Tolani's leg stands straight at zero and the knee bends backward",
          "[framework]") {
  const Model model = TolaniLeg(Side::kLeft).Compile();
  REQUIRE(model.nq() == 7);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(7);
  // Thigh 0.42875, shank 0.4305; toe 0.75·0.266 = 0.1995 forward and
  // 0.06825 below the ankle.
  CheckNear(Position(model, q, "knee"), Eigen::Vector3d(0, 0, -0.42875), 1e-12);
  CheckNear(Position(model, q, "ankle"), Eigen::Vector3d(0, 0, -0.85925),
            1e-12);
  CheckNear(Position(model, q, "foot"), Eigen::Vector3d(0.1995, 0, -0.9275),
            1e-12);
  const Eigen::Isometry3d X = Pose(model, q, "ankle");
  CHECK((X.linear() - Rx(kPi)).norm() < 1e-12);  // the limb frame
  q[3] = kPi / 2;  // knee flexion: the shank points backward
  CheckNear(Position(model, q, "ankle"), Eigen::Vector3d(-0.4305, 0, -0.42875),
            1e-12);
  q.setZero();
  q[5] = Deg(20);  // dorsiflexion lifts the toe
  CHECK(Position(model, q, "foot").z() > -0.9275 + 0.05);
}

TEST_CASE("Tolani's limbs match rotations composed by hand at random poses",
          "[framework]") {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> angle(-2.0, 2.0);
  for (bool arm : {true, false}) {
    for (Side side : {Side::kLeft, Side::kRight}) {
      const Model model = (arm ? TolaniArm(side) : TolaniLeg(side)).Compile();
      const HandLimb hand{arm, side == Side::kLeft ? 1.0 : -1.0};
      const std::string wrist = arm ? "wrist" : "ankle";
      const std::string elbow = arm ? "elbow" : "knee";
      const std::string tip = arm ? "hand" : "foot";
      for (int trial = 0; trial < 10; ++trial) {
        Eigen::VectorXd q(7);
        for (int i = 0; i < 7; ++i) q[i] = angle(rng);
        Eigen::Vector3d p_elbow, p_tip;
        const Eigen::Isometry3d expected = hand.Wrist(q, &p_elbow, &p_tip);
        const Eigen::Isometry3d X = Pose(model, q, wrist);
        CHECK((X.matrix() - expected.matrix()).norm() < 1e-12);
        CheckNear(Position(model, q, elbow), p_elbow, 1e-12);
        CheckNear(Position(model, q, tip), p_tip, 1e-12);
      }
    }
  }
}

TEST_CASE("Tolani's limb geometry reproduces the figure via Eq. (3)",
          "[framework]") {
  // G = X_RS1 · T1 · A · Ty · B · T2 with the exposed LimbGeometry, the form
  // the analytic solver uses.
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> angle(-1.5, 1.5);
  for (bool arm : {true, false}) {
    const LimbGeometry g =
        arm ? TolaniArmGeometry(Side::kRight) : TolaniLegGeometry(Side::kLeft);
    const Model model = LimbFigure(g).Compile();
    Eigen::VectorXd q(7);
    for (int i = 0; i < 7; ++i) q[i] = angle(rng);
    auto euler = [&](const std::array<Eigen::Vector3d, 3>& axes, int first) {
      Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
      for (int k = 0; k < 3; ++k) {
        T.rotate(Eigen::AngleAxisd(q[first + k], axes[k]));
      }
      return T;
    };
    Eigen::Isometry3d Ty = Eigen::Isometry3d::Identity();
    Ty.rotate(Eigen::AngleAxisd(q[3], g.f_axis));
    const Eigen::Isometry3d G =
        g.X_RS1 * euler(g.s1_axes, 0) * g.A * Ty * g.B * euler(g.s2_axes, 4);
    CHECK((Pose(model, q, g.s2_name).matrix() - G.matrix()).norm() < 1e-12);
    CHECK_THAT(g.A.translation().norm(), WithinAbs(g.upper_length, 1e-15));
    CHECK_THAT(g.B.translation().norm(), WithinAbs(g.lower_length, 1e-15));
  }
}

TEST_CASE("Tolani's limbs carry the documented human joint limits",
          "[framework]") {
  const Model arm = TolaniArm(Side::kLeft).Compile();
  const double arm_lo[7] = {-60, -30, -90, 0, 0, -70, -30};
  const double arm_hi[7] = {180, 90, 70, 150, 160, 80, 20};
  const Model leg = TolaniLeg(Side::kLeft).Compile();
  const double leg_lo[7] = {-30, -30, -45, 0, -20, -50, -35};
  const double leg_hi[7] = {120, 45, 45, 135, 20, 20, 15};
  for (int i = 0; i < 7; ++i) {
    CHECK_THAT(arm.lower()[i], WithinAbs(Deg(arm_lo[i]), 1e-12));
    CHECK_THAT(arm.upper()[i], WithinAbs(Deg(arm_hi[i]), 1e-12));
    CHECK_THAT(leg.lower()[i], WithinAbs(Deg(leg_lo[i]), 1e-12));
    CHECK_THAT(leg.upper()[i], WithinAbs(Deg(leg_hi[i]), 1e-12));
  }
  // The right arm mirrors the coordinates about x and z (θ2, θ3, θ5, θ7).
  const Model right = TolaniArm(Side::kRight).Compile();
  const bool flips[7] = {false, true, true, false, true, false, true};
  for (int i = 0; i < 7; ++i) {
    CHECK(right.lower()[i] == (flips[i] ? -arm.upper()[i] : arm.lower()[i]));
    CHECK(right.upper()[i] == (flips[i] ? -arm.lower()[i] : arm.upper()[i]));
  }
  CHECK(arm.dof_name(0) == "shoulder.0");
  CHECK(arm.dof_name(3) == "elbow");
  CHECK(leg.dof_name(6) == "ankle.2");
}

TEST_CASE("Limb builders reject bad anthropometry and unknown limb kinds",
          "[framework]") {
  Anthropometry body;
  body.height = -1;
  REQUIRE_THROWS_WITH(TolaniArm(Side::kLeft, body),
                      Contains("Anthropometry::height"));
  body.height = 1.8;
  body.carrying_angle = NAN;
  REQUIRE_THROWS_WITH(TolaniArmGeometry(Side::kLeft, body),
                      Contains("carrying_angle"));
  LimbGeometry g = TolaniLegGeometry();
  g.kind = "tail";
  REQUIRE_THROWS_WITH(LimbFigure(g), Contains("\"tail\""));
}

// ---------------------------------------------------------------------------
// Whole human figure

TEST_CASE("The human figure has 53 DOF, fewer without clavicles or a free root",
          "[framework]") {
  CHECK(HumanFigure().Compile().nq() == 53);
  HumanFigureOptions options;
  options.clavicles = false;
  CHECK(HumanFigure(options).Compile().nq() == 49);
  options.floating_root = false;
  CHECK(HumanFigure(options).Compile().nq() == 43);
  options.clavicles = true;
  const Model fixed = HumanFigure(options).Compile();
  CHECK(fixed.nq() == 47);
  for (const std::string& site : HumanEndEffectorSites()) {
    CHECK_NOTHROW(fixed.SiteIndex(site));
  }
}

TEST_CASE("The human figure stands on the floor with its head at height H",
          "[framework]") {
  HumanFigureOptions options;
  options.body.height = 1.6;
  const Model model = HumanFigure(options).Compile();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nq());
  const double H = 1.6;
  // Toe tips on the floor: 0.530 − 0.245 − 0.246 − 0.039 = 0.
  CHECK_THAT(Position(model, zero, "left_foot").z(), WithinAbs(0, 1e-12));
  CHECK_THAT(Position(model, zero, "right_foot").z(), WithinAbs(0, 1e-12));
  CheckNear(Position(model, zero, "head"), Eigen::Vector3d(0, 0, H), 1e-12);
  CheckNear(Position(model, zero, "left_shoulder"),
            Eigen::Vector3d(0, 0.1295 * H, 0.818 * H), 1e-12);
  CheckNear(Position(model, zero, "right_hip"),
            Eigen::Vector3d(0, -0.05 * H, 0.530 * H), 1e-12);
  // Elbow at Winter's 0.632 H below a hanging upper arm.
  CheckNear(Position(model, zero, "left_elbow"),
            Eigen::Vector3d(0, 0.1295 * H, 0.632 * H), 1e-12);
  // The floating root translates the whole figure.
  Eigen::VectorXd q = zero;
  q[model.DofIndex("root.tz")] = 0.25;
  CHECK_THAT(Position(model, q, "head").z(), WithinAbs(H + 0.25, 1e-12));
}

// Sign of a coordinate under the sagittal mirror M = diag(1, −1, 1): rotations
// about local x or z and translations along y change sign (builders.h).
double MirrorSign(const Model& model, int coordinate) {
  const int step = model.dof_step(coordinate);
  const bool along_y = model.axis(step) == Eigen::Vector3d::UnitY();
  if (model.kind(step) == StepKind::kPrismatic) return along_y ? -1.0 : 1.0;
  return along_y ? 1.0 : -1.0;
}

std::string Partner(const std::string& name) {
  if (name.rfind("left_", 0) == 0) return "right_" + name.substr(5);
  if (name.rfind("right_", 0) == 0) return "left_" + name.substr(6);
  return name;
}

TEST_CASE("The human figure's right side mirrors its left side",
          "[framework]") {
  const Model model = HumanFigure().Compile();
  int sided = 0;
  for (int i = 0; i < model.nq(); ++i) {
    const int j = model.DofIndex(Partner(model.dof_name(i)));
    if (j != i) ++sided;
    const double s = MirrorSign(model, i);
    CHECK(MirrorSign(model, j) == s);
    INFO(model.dof_name(i));
    // Limits map onto each other through the sign.
    CHECK(model.lower()[j] == (s > 0 ? model.lower()[i] : -model.upper()[i]));
    CHECK(model.upper()[j] == (s > 0 ? model.upper()[i] : -model.lower()[i]));
  }
  CHECK(sided == 2 * (2 + 7 + 7));
  std::mt19937 rng(29);
  Data data(model), mirrored_data(model);
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
    Eigen::VectorXd mirrored(model.nq());
    for (int i = 0; i < model.nq(); ++i) {
      mirrored[model.DofIndex(Partner(model.dof_name(i)))] =
          MirrorSign(model, i) * q[i];
    }
    ForwardKinematics(model, q, &data);
    ForwardKinematics(model, mirrored, &mirrored_data);
    const Eigen::Vector3d M(1, -1, 1);
    for (int site = 0; site < model.num_sites(); ++site) {
      const int partner = model.SiteIndex(Partner(model.site_name(site)));
      INFO(model.site_name(site));
      CheckNear(SitePosition(model, mirrored_data, partner),
                SitePosition(model, data, site).cwiseProduct(M), 1e-9);
    }
  }
}

TEST_CASE("The human figure's limbs keep their Tolani segment lengths",
          "[framework]") {
  const Model model = HumanFigure().Compile();
  std::mt19937 rng(31);
  const double H = 1.75;
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
    Data data(model);
    ForwardKinematics(model, q, &data);
    auto p = [&](const std::string& site) {
      return SitePosition(model, data, model.SiteIndex(site));
    };
    for (const std::string& side :
         std::vector<std::string>{"left_", "right_"}) {
      CHECK_THAT((p(side + "elbow") - p(side + "shoulder")).norm(),
                 WithinAbs(0.186 * H, 1e-12));
      CHECK_THAT((p(side + "wrist") - p(side + "elbow")).norm(),
                 WithinAbs(0.146 * H, 1e-12));
      CHECK_THAT((p(side + "knee") - p(side + "hip")).norm(),
                 WithinAbs(0.245 * H, 1e-12));
      CHECK_THAT((p(side + "ankle") - p(side + "knee")).norm(),
                 WithinAbs(0.246 * H, 1e-12));
    }
  }
}

}  // namespace
}  // namespace iklab
