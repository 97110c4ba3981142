// Mimic joints: q_joint = a·q_leader + b enforced by the compiled Model
// (framework/model.h), on figures built in C++ and on the URDF models of
// data/mimic/.

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "framework/figure.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "reach/reach_map.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// A random tree of revolute and prismatic joints; every joint after the
// first becomes, with probability 1/2, a mimic of a random earlier free
// joint, with a multiplier of either sign and an offset in [−0.5, 0.5].
// (RandomFigure's limits all contain [−0.5, 0.5], so q_leader = 0 keeps
// every joint within its limits: the intersected limits are never empty.
// Leaders that are mimics are tested on the gripper and in the errors test.)
Figure RandomMimicFigure(std::mt19937* rng, int num_joints, bool mimics) {
  testing::RandomFigureOptions options;
  options.num_joints = num_joints;
  options.all_kinds = false;
  Figure figure = testing::RandomFigure(rng, options);
  if (!mimics) return figure;
  const Model plain = figure.Compile();
  std::uniform_real_distribution<double> magnitude(0.3, 2.0),
      offset(-0.5, 0.5);
  std::vector<int> free_joints = {0};
  for (int i = 1; i < plain.nq(); ++i) {
    if ((*rng)() % 2 == 0) {
      free_joints.push_back(i);
      continue;
    }
    const int leader = free_joints[(*rng)() % free_joints.size()];
    const double sign = (*rng)() % 2 ? 1.0 : -1.0;
    figure.AddMimic({plain.dof_joint(i), plain.dof_joint(leader),
                     sign * magnitude(*rng), offset(*rng)});
  }
  return figure;
}

// log(Rp Rmᵀ) as a rotation vector (world frame).
Eigen::Vector3d WorldRotationDifference(const Eigen::Matrix3d& Rp,
                                        const Eigen::Matrix3d& Rm) {
  const Eigen::AngleAxisd d(Rp * Rm.transpose());
  return d.angle() * d.axis();
}

TEST_CASE(
    "FK and site Jacobians of random figures with mimic joints match the "
    "figure without mimics at the full joint vector and central differences",
    "[framework]") {
  std::mt19937 rng(31);
  int mimic_models = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::mt19937 copy = rng;
    const int n = 3 + trial % 10;
    const Model model = RandomMimicFigure(&rng, n, true).Compile();
    // The same tree (same draws) with every joint independent.
    const Model plain = RandomMimicFigure(&copy, n, false).Compile();
    REQUIRE(plain.nq() == model.nq_full());
    mimic_models += model.has_mimics();
    Data data(model), plain_data(plain), probe(model);
    const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
    const Eigen::VectorXd q_full = model.FullConfiguration(q);
    ForwardKinematics(model, q, &data);
    ForwardKinematics(plain, q_full, &plain_data);
    // ∂q_full/∂q: column k holds a_i in every row i that q_k drives.
    Eigen::MatrixXd S = Eigen::MatrixXd::Zero(model.nq_full(), model.nq());
    for (int i = 0; i < model.nq_full(); ++i) {
      S(i, model.full_source(i)) = model.full_scale(i);
      CHECK(model.full_dof_name(i) == plain.dof_name(i));
    }
    for (int site = 0; site < model.num_sites(); ++site) {
      INFO("trial " << trial << ", site " << site);
      CHECK(SitePose(model, data, site)
                .matrix()
                .isApprox(SitePose(plain, plain_data, site).matrix(), 1e-12));
      Matrix6Xd J(6, model.nq()), J_plain(6, plain.nq());
      SiteJacobian(model, data, site, J);
      SiteJacobian(plain, plain_data, site, J_plain);
      CHECK(testing::RelativeError(J, J_plain * S) <= 1e-12);

      const auto position = [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
        ForwardKinematics(model, x, &probe);
        return SitePosition(model, probe, site);
      };
      CHECK(testing::RelativeError(J.topRows<3>(),
                                   testing::NumericJacobian(position, q)) <=
            1e-6);
      const double h = 1e-6;
      Eigen::Matrix3Xd angular(3, model.nq());
      for (int k = 0; k < model.nq(); ++k) {
        Eigen::VectorXd qp = q, qm = q;
        qp[k] += h;
        qm[k] -= h;
        ForwardKinematics(model, qp, &probe);
        const Eigen::Matrix3d Rp = SitePose(model, probe, site).linear();
        ForwardKinematics(model, qm, &probe);
        const Eigen::Matrix3d Rm = SitePose(model, probe, site).linear();
        angular.col(k) = WorldRotationDifference(Rp, Rm) / (2 * h);
      }
      CHECK(testing::RelativeError(J.bottomRows<3>(), angular) <= 1e-6);
    }
  }
  CHECK(mimic_models >= 30);
}

TEST_CASE(
    "The four-bar chain: a leader's Jacobian column carries its mimic's "
    "(negative multiplier, nonzero offset) and the limits are intersected",
    "[framework]") {
  const std::string path = testing::ShippedDataFile("mimic/four_bar.urdf");
  const UrdfFigure urdf = LoadUrdfChain(path, "base_link", "tool_tip");
  REQUIRE(urdf.mimics.size() == 2);
  const Model model = urdf.figure.Compile();
  CHECK(model.nq() == 3);
  CHECK(model.nq_full() == 5);
  CHECK(model.dof_name(0) == "base_joint");
  CHECK(model.dof_name(1) == "crank_joint");
  CHECK(model.dof_name(2) == "rocker_joint");
  // Limits, from the file's numbers (see its comment): the coupler
  // (q = −q_crank, [−1, 1]) narrows the crank's [−1, 1.2]; the tool
  // (q = −0.5 q_rocker + 0.2, [−0.6, 0.9]) narrows the rocker's [−1.5, 1.5]
  // at its lower end only.
  CHECK(model.lower()[1] == -1.0);
  CHECK(model.upper()[1] == 1.0);
  CHECK(model.lower()[2] == (0.9 - 0.2) / -0.5);
  CHECK(model.upper()[2] == 1.5);
  CHECK(model.full_lower()[model.nq_full() - 1] == -0.6);
  CHECK(model.full_upper()[model.nq_full() - 1] == 0.9);
  // Every free configuration within the free limits puts every joint
  // within its own limits, and the limits are tight: at a free bound some
  // joint is at its own bound.
  std::mt19937 rng(4);
  for (int k = 0; k < 200; ++k) {
    const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
    CHECK(FullWithinLimits(model, model.FullConfiguration(q)));
  }
  Eigen::VectorXd q = model.MidLimits();
  q[2] = model.lower()[2];
  const Eigen::VectorXd q_full = model.FullConfiguration(q);
  CHECK(std::abs(q_full[4] - 0.9) <= 1e-15);
  // The relation as written in the file, by joint name.
  const auto full_index = [&](const std::string& name) {
    for (int i = 0; i < model.nq_full(); ++i) {
      if (model.full_dof_name(i) == name) return i;
    }
    return -1;
  };
  for (const UrdfMimic& m : urdf.mimics) {
    INFO(m.joint);
    const double expected =
        m.multiplier * q_full[full_index(m.leader)] + m.offset;
    CHECK(std::abs(q_full[full_index(m.joint)] - expected) <= 1e-15);
  }
  // The parallelogram: the coupler keeps the turntable's orientation, so
  // the tool tip's orientation does not depend on the crank.
  Data a(model), b(model);
  const int tip = model.SiteIndex("tool_tip");
  Eigen::VectorXd q2 = q;
  q2[1] = 0.7;
  ForwardKinematics(model, q, &a);
  ForwardKinematics(model, q2, &b);
  CHECK(SitePose(model, a, tip).linear().isApprox(
      SitePose(model, b, tip).linear(), 1e-14));
  CHECK((SitePosition(model, a, tip) - SitePosition(model, b, tip)).norm() >
        0.1);
  // Hence the crank's angular Jacobian column, ω_crank − ω_coupler, is zero.
  Matrix6Xd J(6, model.nq());
  SiteJacobian(model, a, tip, J);
  CHECK(J.col(1).tail<3>().norm() <= 1e-15);
  CHECK(J.col(1).head<3>().norm() > 0.1);
}

TEST_CASE(
    "The gripper: mimic knuckles and fingers (one following another mimic) "
    "keep the pads mirror-symmetric and parallel to the palm",
    "[framework]") {
  const std::string path = testing::ShippedDataFile("mimic/gripper.urdf");
  const Model model = LoadUrdf(path).figure.Compile();
  REQUIRE(model.nq() == 2);
  REQUIRE(model.nq_full() == 5);
  // right_finger_joint = −1 · right_knuckle_joint = −1 · (−1 · knuckle).
  const int right_finger = model.nq_full() - 1;
  CHECK(model.full_dof_name(right_finger) == "right_finger_joint");
  CHECK(model.full_scale(right_finger) == 1.0);
  CHECK(model.full_source(right_finger) == model.DofIndex("left_knuckle_joint"));
  // Limits: the knuckle's [−0.2, 0.8] and every follower's allow the same.
  CHECK(model.lower()[1] == -0.2);
  CHECK(model.upper()[1] == 0.8);
  Data data(model);
  const int palm = model.LinkIndex("palm");
  const int left = model.SiteIndex("left_pad");
  const int right = model.SiteIndex("right_pad");
  std::mt19937 rng(5);
  for (int k = 0; k < 50; ++k) {
    const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
    ForwardKinematics(model, q, &data);
    const Eigen::Isometry3d X_PW = LinkPose(model, data, palm).inverse();
    const Eigen::Isometry3d X_PL = X_PW * SitePose(model, data, left);
    const Eigen::Isometry3d X_PR = X_PW * SitePose(model, data, right);
    const Eigen::Vector3d mirrored(X_PL.translation().x(),
                                   -X_PL.translation().y(),
                                   X_PL.translation().z());
    CHECK((X_PR.translation() - mirrored).norm() <= 1e-14);
    CHECK(X_PL.linear().isIdentity(1e-14));
    CHECK(X_PR.linear().isIdentity(1e-14));
    // The pads close as the knuckle turns (opening ≠ a constant).
    CHECK(std::abs(X_PL.translation().y() -
                   (0.03 - 0.06 * std::sin(q[1]))) <= 1e-14);
  }
}

TEST_CASE("Bad mimic declarations are errors naming the joint and the fix",
          "[framework]") {
  Figure f("base");
  f.AddJoint(testing::Revolute("a", "base", "la"));
  f.AddJoint(testing::Revolute("b", "la", "lb"));
  f.AddJoint(testing::Revolute("c", "lb", "lc"));
  Joint ball = testing::Revolute("ball", "lc", "ld");
  ball.kind = JointKind::kSpherical;
  f.AddJoint(ball);
  CHECK_THROWS_WITH(f.AddMimic({"b", "nope"}),
                    Contains("joint 'b': unknown leader joint 'nope'"));
  CHECK_THROWS_WITH(f.AddMimic({"ball", "a"}),
                    Contains("mimic joint 'ball' is spherical"));
  CHECK_THROWS_WITH(f.AddMimic({"a", "a"}), Contains("cannot mimic itself"));
  CHECK_THROWS_WITH(f.AddMimic({"b", "a", 0.0}),
                    Contains("the multiplier must be finite and nonzero"));
  CHECK_THROWS_WITH(f.AddMimic({"b", "a", NAN}),
                    Contains("the multiplier must be finite and nonzero"));
  CHECK_THROWS_WITH(f.AddMimic({"b", "a", 1.0, INFINITY}),
                    Contains("offset finite"));
  f.AddMimic({"b", "a", 2.0});
  CHECK_THROWS_WITH(f.AddMimic({"b", "c"}), Contains("'b' already mimics 'a'"));
  f.AddMimic({"c", "b"});
  CHECK_THROWS_WITH(
      f.AddMimic({"a", "c"}),
      Contains("cycle 'a' -> 'c' -> 'b' -> 'a'; at least one joint"));
  // A chain of mimics resolves: c = 1 · (2 · a).
  const Model model = f.Compile();
  CHECK(model.nq() == 4);  // a and the ball's three
  CHECK(model.full_scale(2) == 2.0);
  CHECK(model.full_source(2) == 0);

  // Limits that leave the leader no value.
  Figure g("base");
  g.AddJoint(testing::Revolute("a", "base", "la").WithLimits(0, 1));
  g.AddJoint(testing::Revolute("b", "la", "lb").WithLimits(0, 1));
  g.AddMimic({"b", "a", -1.0, 0.5});  // b in [0, 1] needs a in [−0.5, 0.5]
  CHECK_NOTHROW(g.Compile());
  g.AddJoint(testing::Revolute("c", "lb", "lc").WithLimits(2, 3));
  g.AddMimic({"c", "a"});  // c in [2, 3] needs a in [2, 3]
  CHECK_THROWS_WITH(g.Compile(),
                    Contains("mimic joint 'c' (q = 1 q_a + 0, limits [2, 3]) "
                             "allows 'a' only in [2, 3], which does not meet "
                             "its range [0, 0.5]"));
}

std::string MimicUrdf(const std::string& mimic_of_j2,
                      const std::string& mimic_of_j1 = "") {
  return R"(<?xml version="1.0"?>
<robot name="m">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>)" +
         mimic_of_j1 + R"(
  </joint>
  <joint name="j2" type="revolute">
    <parent link="l1"/><child link="l2"/><axis xyz="0 1 0"/>
    <origin xyz="0.3 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
    )" + mimic_of_j2 + R"(
  </joint>
  <joint name="j3" type="fixed">
    <parent link="l2"/><child link="l3"/>
  </joint>
</robot>
)";
}

TEST_CASE("Bad URDF mimic joints are errors naming the file, line and joint",
          "[framework]") {
  // The leader outside the loaded chain.
  UrdfOptions chain;
  chain.base_link = "l1";
  chain.tip_link = "l3";
  CHECK_THROWS_WITH(
      LoadUrdfFromString(MimicUrdf(R"(<mimic joint="j1"/>)"), "m.urdf", chain),
      Contains("m.urdf:8: joint 'j2' mimics joint 'j1', which is not in the "
               "loaded chain l1 -> l3; choose a chain that contains 'j1'"));
  // A cycle.
  CHECK_THROWS_WITH(
      LoadUrdfFromString(MimicUrdf(R"(<mimic joint="j1"/>)",
                                   R"(<mimic joint="j2"/>)"),
                         "m.urdf"),
      Contains("m.urdf:8: AddMimic: joint 'j2': the mimic relations form a "
               "cycle 'j2' -> 'j1' -> 'j2'"));
  // A zero multiplier.
  CHECK_THROWS_WITH(
      LoadUrdfFromString(MimicUrdf(R"(<mimic joint="j1" multiplier="0"/>)"),
                         "m.urdf"),
      Contains("m.urdf:8: AddMimic: joint 'j2' mimics 'j1' with multiplier "
               "0"));
  // The same relation loads when enforced, independent or rejected on
  // request.
  const std::string good = MimicUrdf(R"(<mimic joint="j1" multiplier="-2"/>)");
  CHECK(LoadUrdfFromString(good).figure.Compile().nq() == 1);
  UrdfOptions independent;
  independent.mimic = UrdfMimicPolicy::kIndependent;
  CHECK(LoadUrdfFromString(good, "m", independent).figure.Compile().nq() == 2);
  UrdfOptions reject;
  reject.mimic = UrdfMimicPolicy::kReject;
  CHECK_THROWS_WITH(LoadUrdfFromString(good, "m", reject),
                    Contains("mimic joints are rejected"));
}

TEST_CASE(
    "The benchmark protocol and a reach map on the four-bar chain verify the "
    "mimic relation in every answer",
    "[experiments]") {
  const std::string path = testing::ShippedDataFile("mimic/four_bar.urdf");
  const auto model = std::make_shared<const Model>(
      LoadUrdfChain(path, "base_link", "tool_tip").figure.Compile());
  const int site = model->SiteIndex("tool_tip");
  const auto targets = GenerateTargets(*model, site, 50, 3, SeedMode::kRandom);
  BenchmarkSettings settings;
  settings.time_budget_seconds = 0.5;
  int solvers = 0;
  for (const BenchmarkSolver& solver : PoseSolvers()) {
    if (solver.name != "bounded-lm") continue;
    ++solvers;
    const auto outcomes = RunTargets(model, site, targets, solver, settings);
    const BenchmarkSummary s =
        Summarize("four_bar", solver.name, "random", model->nq(), outcomes);
    CHECK(s.false_claims == 0);
    CHECK(s.solve_rate == 1.0);
    for (const TargetOutcome& o : outcomes) {
      REQUIRE(o.q.size() == model->nq());
      CHECK(o.check.mimic_error <= kMimicRelationTolerance);
      CHECK(o.check.within_limits);
    }
  }
  CHECK(solvers == 1);
  // The check sees a full vector that breaks the relation or moves a mimic
  // joint alone.
  Eigen::VectorXd q_full = model->FullConfiguration(targets[0].seed);
  CHECK(MimicRelationError(*model, q_full) <= 1e-15);
  const Eigen::Isometry3d before = ReferenceSitePose(*model, site, q_full);
  q_full[model->nq_full() - 1] += 0.1;  // the tool joint
  CHECK(MimicRelationError(*model, q_full) >= 0.1 - 1e-15);
  CHECK((ReferenceSitePose(*model, site, q_full).linear() - before.linear())
            .norm() > 0.01);

  // A position-only map (3 free coordinates reach positions, not poses);
  // ComputeVoxel counts a query only when the check with the mimic
  // relation passes.
  ReachSettings reach;
  reach.resolution = 0.2;
  reach.position_only = true;
  reach.max_attempts = 3;
  const ReachTask task(model, "tool_tip", reach);
  int reached = 0;
  for (std::int64_t v = 0; v < task.grid().num_voxels(); ++v) {
    reached += task.ComputeVoxel(v).reached;
  }
  CHECK(reached > 0);
}

}  // namespace
}  // namespace iklab
