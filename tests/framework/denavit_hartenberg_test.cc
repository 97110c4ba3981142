#include "framework/denavit_hartenberg.h"

#include <cmath>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "framework/internal/constants.h"
#include "framework/kinematics.h"
#include "framework/model.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

using internal::kPi;

// Textbook homogeneous matrix of one classic DH row (Denavit & Hartenberg
// 1955; e.g. Spong, Hutchinson & Vidyasagar Eq. 3.10), written out entry by
// entry so that it shares nothing with the builder's code.
Eigen::Matrix4d ClassicMatrix(double a, double alpha, double d, double theta) {
  const double ct = std::cos(theta), st = std::sin(theta);
  const double ca = std::cos(alpha), sa = std::sin(alpha);
  Eigen::Matrix4d T;
  T << ct, -st * ca, st * sa, a * ct,  //
      st, ct * ca, -ct * sa, a * st,   //
      0, sa, ca, d,                    //
      0, 0, 0, 1;
  return T;
}

// Craig's modified DH matrix (Craig, Introduction to Robotics, Eq. 3.6), row
// (a_{i−1}, α_{i−1}, d_i, θ_i).
Eigen::Matrix4d ModifiedMatrix(double a, double alpha, double d, double theta) {
  const double ct = std::cos(theta), st = std::sin(theta);
  const double ca = std::cos(alpha), sa = std::sin(alpha);
  Eigen::Matrix4d T;
  T << ct, -st, 0, a,                  //
      st * ca, ct * ca, -sa, -sa * d,  //
      st * sa, ct * sa, ca, ca * d,    //
      0, 0, 0, 1;
  return T;
}

Eigen::Isometry3d ToolPose(const Model& model, const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return SitePose(model, data, model.SiteIndex("tool"));
}

DhTable RandomTable(std::mt19937* rng, DhConvention convention, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  DhTable table;
  table.convention = convention;
  for (int i = 0; i < n; ++i) {
    DhRow row;
    row.kind = (i % 3 == 2) ? JointKind::kPrismatic : JointKind::kRevolute;
    row.a = u(*rng);
    row.alpha = kPi * u(*rng);
    row.d = u(*rng);
    row.theta = kPi * u(*rng);
    table.rows.push_back(row);
  }
  table.X_base.translation() = Eigen::Vector3d(0.1, -0.2, 0.3);
  table.X_base.linear() =
      Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, 2, 3).normalized())
          .toRotationMatrix();
  table.X_tool.translation() = Eigen::Vector3d(0, 0, 0.15);
  return table;
}

TEST_CASE("DH chains match the textbook matrices in both conventions",
          "[framework]") {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (DhConvention convention :
       {DhConvention::kClassic, DhConvention::kModified}) {
    for (int trial = 0; trial < 10; ++trial) {
      const DhTable table = RandomTable(&rng, convention, 1 + trial % 7);
      const Model model = DenavitHartenbergFigure(table).Compile();
      const int n = static_cast<int>(table.rows.size());
      REQUIRE(model.nq() == n);
      Eigen::VectorXd q(n);
      for (int i = 0; i < n; ++i) q[i] = u(rng);
      Data data(model);
      ForwardKinematics(model, q, &data);
      Eigen::Matrix4d T = table.X_base.matrix();
      for (int i = 0; i < n; ++i) {
        const DhRow& r = table.rows[i];
        const bool revolute = r.kind == JointKind::kRevolute;
        const double theta = r.theta + (revolute ? q[i] : 0.0);
        const double d = r.d + (revolute ? 0.0 : q[i]);
        T = T * (convention == DhConvention::kClassic
                     ? ClassicMatrix(r.a, r.alpha, d, theta)
                     : ModifiedMatrix(r.a, r.alpha, d, theta));
        const Eigen::Isometry3d X = SitePose(
            model, data, model.SiteIndex("frame" + std::to_string(i + 1)));
        CHECK((X.matrix() - T).norm() < 1e-12);
        // DhTransform agrees with the textbook matrix row by row.
        const Eigen::Matrix4d Ti = convention == DhConvention::kClassic
                                       ? ClassicMatrix(r.a, r.alpha, d, theta)
                                       : ModifiedMatrix(r.a, r.alpha, d, theta);
        CHECK((DhTransform(r, convention, q[i]).matrix() - Ti).norm() < 1e-12);
      }
      CHECK((ToolPose(model, q).matrix() - T * table.X_tool.matrix()).norm() <
            1e-12);
    }
  }
}

// The same 3-D chain built joint by joint with the Figure API: per classic row
// a revolute joint about z followed by a fixed joint carrying
// Rot_z(θ) Trans_z(d) Trans_x(a) Rot_x(α).
Model HandBuiltClassicChain(const DhTable& table) {
  Figure f("base");
  std::string parent = "base";
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const DhRow& r = table.rows[i];
    Joint motion;
    motion.name = "q" + std::to_string(i);
    motion.parent = parent;
    motion.child = "moving" + std::to_string(i);
    motion.kind = JointKind::kRevolute;
    motion.axis = Eigen::Vector3d::UnitZ();
    if (i == 0) motion.X_PJ = table.X_base;
    f.AddJoint(motion);
    Joint link;
    link.name = "c" + std::to_string(i);
    link.parent = motion.child;
    link.child = "frame" + std::to_string(i + 1);
    link.kind = JointKind::kFixed;
    link.X_PJ = Eigen::AngleAxisd(r.theta, Eigen::Vector3d::UnitZ()) *
                Eigen::Translation3d(0, 0, r.d) *
                Eigen::Translation3d(r.a, 0, 0) *
                Eigen::AngleAxisd(r.alpha, Eigen::Vector3d::UnitX());
    f.AddJoint(link);
    parent = link.child;
  }
  f.AddSite({"tool", parent, table.X_tool});
  return f.Compile();
}

TEST_CASE("A DH-built chain equals the same chain built by hand with Figure",
          "[framework]") {
  std::mt19937 rng(43);
  std::uniform_real_distribution<double> u(-kPi, kPi);
  DhTable table = RandomTable(&rng, DhConvention::kClassic, 7);
  for (DhRow& row : table.rows) row.kind = JointKind::kRevolute;
  const Model dh = DenavitHartenbergFigure(table).Compile();
  const Model hand = HandBuiltClassicChain(table);
  // The DH build needs one step per row; the hand build two.
  CHECK(dh.num_steps() == 1 + 7);
  for (int trial = 0; trial < 10; ++trial) {
    Eigen::VectorXd q(7);
    for (int i = 0; i < 7; ++i) q[i] = u(rng);
    CHECK((ToolPose(dh, q).matrix() - ToolPose(hand, q).matrix()).norm() <
          1e-12);
    // Same kinematics, so the same Jacobian.
    Data a(dh), b(hand);
    ForwardKinematics(dh, q, &a);
    ForwardKinematics(hand, q, &b);
    Matrix6Xd Ja(6, 7), Jb(6, 7);
    SiteJacobian(dh, a, dh.SiteIndex("tool"), Ja);
    SiteJacobian(hand, b, hand.SiteIndex("tool"), Jb);
    CHECK((Ja - Jb).norm() < 1e-12);
  }
}

TEST_CASE("Parent's planar arm from a DH table reaches (15.772, 19.598)",
          "[framework]") {
  // Planar arm: a = link lengths, α = d = θ = 0 (classic), or in Craig's form
  // a_{i−1} shifted down one row and the last link in the tool.
  auto row = [](double a) {
    DhRow r;
    r.a = a;
    return r;
  };
  DhTable classic;
  classic.rows = {row(15), row(10), row(5)};
  DhTable modified;
  modified.convention = DhConvention::kModified;
  modified.rows = {row(0), row(15), row(10)};
  modified.X_tool.translation() = Eigen::Vector3d(5, 0, 0);
  const Eigen::Vector3d q(kPi / 8, kPi / 4, kPi / 4);
  for (const DhTable* table : {&classic, &modified}) {
    const Model model = DenavitHartenbergFigure(*table).Compile();
    const Eigen::Vector3d p = ToolPose(model, q).translation();
    CHECK_THAT(p.x(), WithinAbs(15.772, 1e-3));
    CHECK_THAT(p.y(), WithinAbs(19.598, 1e-3));
    CHECK_THAT(p.z(), WithinAbs(0.0, 1e-12));
  }
}

// PUMA 560, classic DH parameters as commonly tabulated (Corke, "A robotics
// toolbox for MATLAB", 1996), metres.
DhTable Puma560() {
  DhTable t;
  const double a[6] = {0, 0.4318, 0.0203, 0, 0, 0};
  const double alpha[6] = {kPi / 2, 0, -kPi / 2, kPi / 2, -kPi / 2, 0};
  const double d[6] = {0, 0, 0.15005, 0.4318, 0, 0};
  for (int i = 0; i < 6; ++i) {
    DhRow row;
    row.a = a[i];
    row.alpha = alpha[i];
    row.d = d[i];
    t.rows.push_back(row);
  }
  return t;
}

TEST_CASE("A PUMA 560 from its DH table sits at hand-checked poses",
          "[framework]") {
  const Model model = DenavitHartenbergFigure(Puma560()).Compile();
  REQUIRE(model.nq() == 6);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(6);
  // q = 0: frame 1 turns z to −y; the upper arm runs 0.4318 along x, the
  // 0.0203 elbow offset along x and the 0.15005 shoulder offset along −y; the
  // forearm rises 0.4318 along z; the wrist twists cancel, R = I.
  Eigen::Isometry3d X = ToolPose(model, q);
  CHECK((X.translation() - Eigen::Vector3d(0.4521, -0.15005, 0.4318)).norm() <
        1e-12);
  CHECK((X.linear() - Eigen::Matrix3d::Identity()).norm() < 1e-12);
  // Turning the waist by 90° turns that point about z: (0.15005, 0.4521).
  q[0] = kPi / 2;
  X = ToolPose(model, q);
  CHECK((X.translation() - Eigen::Vector3d(0.15005, 0.4521, 0.4318)).norm() <
        1e-12);
  // Shoulder at 90°: the upper arm stands up (0.4318 + 0.0203 = 0.4521 high),
  // the shoulder offset stays at −0.15005 in y, and the forearm points back.
  q.setZero();
  q[1] = kPi / 2;
  X = ToolPose(model, q);
  CHECK((X.translation() - Eigen::Vector3d(-0.4318, -0.15005, 0.4521)).norm() <
        1e-12);
}

TEST_CASE("A prismatic DH row slides along z of the previous frame",
          "[framework]") {
  DhTable table;
  DhRow turn;  // turns about z0; α = π/2 tips z1 onto −y0
  turn.alpha = kPi / 2;
  DhRow slide;
  slide.kind = JointKind::kPrismatic;
  slide.d = 0.5;
  slide.lower = 0;
  slide.upper = 0.4;
  slide.name = "extension";
  table.rows = {turn, slide};
  const Model model = DenavitHartenbergFigure(table).Compile();
  CHECK(model.dof_name(0) == "joint1");
  CHECK(model.dof_name(1) == "extension");
  CHECK(model.lower()[1] == 0);
  CHECK(model.upper()[1] == 0.4);
  // z1 = Rot_x(π/2) z0 = −y0, so the slide at d = 0.5 + 0.25 ends at
  // (0, −0.75, 0); turning joint 1 by 90° moves it to (0.75, 0, 0).
  CHECK((ToolPose(model, Eigen::Vector2d(0, 0.25)).translation() -
         Eigen::Vector3d(0, -0.75, 0))
            .norm() < 1e-12);
  CHECK((ToolPose(model, Eigen::Vector2d(kPi / 2, 0.25)).translation() -
         Eigen::Vector3d(0.75, 0, 0))
            .norm() < 1e-12);
}

TEST_CASE("Bad DH rows are rejected with the row named", "[framework]") {
  DhTable table = Puma560();
  table.rows[1].alpha = NAN;
  REQUIRE_THROWS_WITH(
      DenavitHartenbergFigure(table),
      Contains("DH row 2 ('joint2')") && Contains("alpha must be finite"));
  table = Puma560();
  table.rows[2].d = INFINITY;
  table.rows[2].name = "elbow";
  REQUIRE_THROWS_WITH(DenavitHartenbergFigure(table),
                      Contains("DH row 3 ('elbow')") && Contains("d must be"));
  table = Puma560();
  table.rows[0].kind = JointKind::kSpherical;
  REQUIRE_THROWS_WITH(
      DenavitHartenbergFigure(table),
      Contains("DH row 1") && Contains("must be revolute or prismatic, got "
                                       "spherical"));
  table = Puma560();
  table.rows[5].lower = 1;
  table.rows[5].upper = -1;
  REQUIRE_THROWS_WITH(DenavitHartenbergFigure(table),
                      Contains("DH row 6") && Contains("lower <= upper"));
  table = Puma560();
  table.rows[4].upper = NAN;
  REQUIRE_THROWS_WITH(DenavitHartenbergFigure(table), Contains("DH row 5"));
  REQUIRE_THROWS_WITH(DenavitHartenbergFigure(DhTable{}), Contains("no rows"));
  table = Puma560();
  table.X_tool.linear() *= 2.0;
  REQUIRE_THROWS_WITH(DenavitHartenbergFigure(table), Contains("X_tool"));
  table = Puma560();
  table.rows[3].name = "joint1";  // collides with row 1's default name
  REQUIRE_THROWS_WITH(DenavitHartenbergFigure(table),
                      Contains("duplicate joint name 'joint1'"));
  DhRow bad;
  bad.theta = NAN;
  REQUIRE_THROWS_WITH(DhTransform(bad, DhConvention::kClassic, 0.0),
                      Contains("theta must be finite"));
}

}  // namespace
}  // namespace iklab
