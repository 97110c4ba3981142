// The Tolani limb solver on SRS chains read from a Model
// (solvers/analytic/tolani/srs_arm.h): detection of the KUKA iiwa14 and the
// human figure's arms and legs, rejection of other arms with the reason,
// round trips of every discrete branch by the benchmark's independent FK
// (ReferenceSitePose) with the generating configuration among them, the
// valid swivel intervals against a dense sweep of the swivel angle, and the
// Solver on those chains.
#include "solvers/analytic/tolani/srs_arm.h"

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/builders.h"
#include "framework/internal/constants.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using internal::kPi;

std::shared_ptr<const Model> Robot(const std::string& file,
                                   const std::string& base,
                                   const std::string& tip) {
  return std::make_shared<const Model>(
      LoadUrdfChain(testing::ShippedDataFile("robots/" + file), base, tip)
          .figure.Compile());
}

std::shared_ptr<const Model> Iiwa() {
  return Robot("iiwa14.urdf", "base", "iiwa_link_ee");
}

std::shared_ptr<const Model> Human() {
  return std::make_shared<const Model>(HumanFigure().Compile());
}

Eigen::VectorXd RandomSrsConfiguration(const Model& model,
                                       std::mt19937_64* rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::VectorXd q(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    q[i] = model.bounded(i)
               ? model.lower()[i] +
                     (model.upper()[i] - model.lower()[i]) * unit(*rng)
               : kPi - 2.0 * kPi * unit(*rng);
  }
  return q;
}

std::shared_ptr<const SrsArm> MustCreate(const Model& model, int site) {
  std::string why;
  auto arm = SrsArm::Create(model, site, &why);
  INFO(why);
  REQUIRE(arm != nullptr);
  return arm;
}

Eigen::Isometry3d BasePose(const Model& model, const SrsArm& arm,
                           const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  return data.X_W(arm.base_step());
}

Eigen::VectorXd WithArm(const SrsArm& arm, Eigen::VectorXd q,
                        const Vector7d& theta) {
  for (int k = 0; k < 7; ++k) q[arm.coordinate(k)] = theta[k];
  return q;
}

struct SrsRoundTripStats {
  int poses = 0;
  int branches = 0;
  int generator_found = 0;
  int generator_valid = 0;
  int limit_flag_errors = 0;
  double worst_position = 0.0;
  double worst_rotation = 0.0;
};

// Random configurations within the limits → independent FK → AllSolutions;
// every branch at the generator's swivel angle and at two random ones is
// checked by independent FK and its limits flag; the generator must be one
// of the branches at its swivel angle, which must be a valid one.
SrsRoundTripStats RoundTrip(const Model& model, const SrsArm& arm, int poses,
                            std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  SrsRoundTripStats stats;
  for (int n = 0; n < poses; ++n) {
    const Eigen::VectorXd q = RandomSrsConfiguration(model, &rng);
    const Eigen::Isometry3d X_WT = ReferenceSitePose(model, arm.site(), q);
    const Eigen::Isometry3d X_WB = BasePose(model, arm, q);
    const SrsSolutions all =
        arm.AllSolutions(X_WB.inverse(Eigen::Isometry) * X_WT);
    ++stats.poses;
    Vector7d theta;
    for (int k = 0; k < 7; ++k) theta[k] = q[arm.coordinate(k)];
    const Eigen::Vector3d elbow = arm.ik().Elbow(theta);
    bool found = false, valid = false;
    for (int r = 0; r < all.num_elbow_roots(); ++r) {
      const double phi_generator =
          all.parameterization(r).circle().SwivelOfElbow(elbow);
      for (double phi : {phi_generator, angle(rng), angle(rng)}) {
        std::array<SrsBranch, 8> branches;
        const int count = all.Branches(phi, &branches);
        stats.branches += count;
        for (int b = 0; b < count; ++b) {
          const Eigen::VectorXd s = WithArm(arm, q, branches[b].theta);
          const Eigen::Isometry3d reached =
              ReferenceSitePose(model, arm.site(), s);
          stats.worst_position =
              std::max(stats.worst_position,
                       (reached.translation() - X_WT.translation()).norm());
          stats.worst_rotation = std::max(
              stats.worst_rotation,
              Eigen::AngleAxisd(reached.linear().transpose() * X_WT.linear())
                  .angle());
          if (branches[b].within_limits != model.WithinLimits(s)) {
            ++stats.limit_flag_errors;
          }
          if (phi == phi_generator) {
            double gap = 0.0;
            for (int k = 0; k < 7; ++k) {
              gap = std::max(
                  gap, std::abs(std::remainder(branches[b].theta[k] - theta[k],
                                               2.0 * kPi)));
            }
            if (gap <= 1e-6) {
              found = true;
              valid = valid || all.valid(r).Contains(phi, 1e-9);
            }
          }
        }
      }
    }
    stats.generator_found += found ? 1 : 0;
    stats.generator_valid += valid ? 1 : 0;
  }
  return stats;
}

void CheckRoundTrip(const Model& model, const SrsArm& arm, int poses,
                    std::uint64_t seed, const std::string& name) {
  const SrsRoundTripStats s = RoundTrip(model, arm, poses, seed);
  INFO(name << ": " << s.poses << " poses, " << s.branches
            << " branches, worst errors " << s.worst_position << " / "
            << s.worst_rotation << " rad, generator found " << s.generator_found
            << ", in V " << s.generator_valid);
  CHECK(s.worst_position <= 1e-9);
  CHECK(s.worst_rotation <= 1e-9);
  CHECK(s.generator_found == s.poses);
  CHECK(s.generator_valid == s.poses);
  CHECK(s.limit_flag_errors == 0);
  CHECK(s.branches >= 3 * 4 * s.poses);  // ≥ 4 distinct branches per φ
}

TEST_CASE(
    "The iiwa14 and the human figure's arms and legs are read as SRS "
    "arms",
    "[analytic][solvers]") {
  const auto iiwa = Iiwa();
  const auto arm = MustCreate(*iiwa, iiwa->num_sites() - 1);
  CHECK_THAT(arm->description(), Contains("shoulder Z-Y-Z (proper Euler)"));
  CHECK_THAT(arm->description(), Contains("wrist X-Y-X (proper Euler)"));
  CHECK_FALSE(arm->base_moves());
  for (int k = 0; k < 7; ++k) CHECK(arm->coordinate(k) == k);
  // The shoulder centre sits 0.36 m above the base (joints 1 and 2).
  CHECK((arm->X_BL().translation() - Eigen::Vector3d(0, 0, 0.36)).norm() <
        1e-12);
  const auto human = Human();
  for (const char* site : {"left_hand", "right_hand", "left_foot", "right_foot",
                           "left_wrist", "right_ankle"}) {
    INFO(site);
    const auto limb = MustCreate(*human, human->SiteIndex(site));
    CHECK(limb->base_moves());
    CHECK_THAT(limb->description(), Contains("Tait-Bryan"));
  }
}

TEST_CASE(
    "Every branch of 10,000 random iiwa14 poses reaches the pose to "
    "1e-9, and the generator is among them at a valid swivel angle",
    "[analytic][solvers]") {
  const auto model = Iiwa();
  const auto arm = MustCreate(*model, model->num_sites() - 1);
  CheckRoundTrip(*model, *arm, testing::SampleCount(10000), 15, "iiwa14");
}

TEST_CASE(
    "Every branch of 10,000 random poses of each human limb reaches "
    "the pose to 1e-9, and the generator is among them",
    "[analytic][solvers]") {
  const auto model = Human();
  std::uint64_t seed = 150;
  for (const char* site :
       {"left_hand", "right_hand", "left_foot", "right_foot"}) {
    const auto arm = MustCreate(*model, model->SiteIndex(site));
    CheckRoundTrip(*model, *arm, testing::SampleCount(10000), ++seed, site);
  }
}

// The dense check of the solution set: at 720 swivel angles per pose, some
// branch is within the limits exactly where the valid intervals say so
// (away from their ends by 1e-6 rad).
void CheckIntervalsAgainstSweep(const Model& model, const SrsArm& arm,
                                std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int mismatches = 0, valid_samples = 0, samples = 0;
  for (int n = 0; n < 200; ++n) {
    const Eigen::VectorXd q = RandomSrsConfiguration(model, &rng);
    const Eigen::Isometry3d X_BT =
        BasePose(model, arm, q).inverse(Eigen::Isometry) *
        ReferenceSitePose(model, arm.site(), q);
    const SrsSolutions all = arm.AllSolutions(X_BT);
    const SwivelIntervals valid = all.Valid();
    for (int i = 0; i < 720; ++i) {
      const double phi = 2.0 * kPi * (i + 0.5) / 720.0;
      const bool inside = valid.Contains(phi);
      if (inside != valid.Contains(phi, 1e-6) ||
          inside != valid.Contains(phi, -1e-6)) {
        continue;  // within 1e-6 of an end
      }
      std::array<SrsBranch, 8> branches;
      const int count = all.Branches(phi, &branches);
      bool any = false;
      for (int b = 0; b < count; ++b) any = any || branches[b].within_limits;
      ++samples;
      valid_samples += any ? 1 : 0;
      mismatches += any != inside ? 1 : 0;
    }
  }
  INFO(samples << " samples, " << valid_samples << " with a branch within "
               << "the limits, " << mismatches << " mismatches");
  CHECK(mismatches == 0);
  CHECK(valid_samples > 0);
  CHECK(valid_samples < samples);  // the limits do cut the swivel circle
}

TEST_CASE(
    "The valid swivel intervals agree with a dense sweep of the swivel "
    "angle on 200 poses (iiwa14, human arm and leg)",
    "[analytic][solvers]") {
  const auto iiwa = Iiwa();
  CheckIntervalsAgainstSweep(*iiwa, *MustCreate(*iiwa, iiwa->num_sites() - 1),
                             21);
  const auto human = Human();
  CheckIntervalsAgainstSweep(
      *human, *MustCreate(*human, human->SiteIndex("left_hand")), 22);
  CheckIntervalsAgainstSweep(
      *human, *MustCreate(*human, human->SiteIndex("right_foot")), 23);
}

// The iiwa14 with a site "elbow" at the origin of link 4: the point of the
// elbow axis closest to the shoulder centre, i.e. Tolani's elbow point.
std::shared_ptr<const Model> IiwaWithElbowSite() {
  Figure figure = LoadUrdfChain(testing::ShippedDataFile("robots/iiwa14.urdf"),
                                "base", "iiwa_link_ee")
                      .figure;
  figure.AddSite({"elbow", "iiwa_link_4", Eigen::Isometry3d::Identity()});
  return std::make_shared<const Model>(figure.Compile());
}

TEST_CASE("At a fixed swivel angle the iiwa14's branch count agrees with "
          "bounded LM from 300 random seeds on 200 poses",
          "[analytic][solvers][slow]") {
  // The swivel angle fixes the elbow point: the numeric search solves the
  // pose goal plus the elbow at e(φ), limits off, from random seeds, and
  // counts its distinct answers (modulo 2π).
  const auto model = IiwaWithElbowSite();
  const int tip = model->SiteIndex("iiwa_link_ee");
  const auto arm = MustCreate(*model, tip);
  std::mt19937_64 rng(616);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  BoundedLmOptions options;
  options.max_attempts = 1;
  options.common.respect_limits = false;
  options.common.max_iterations = 200;
  options.common.position_tolerance = 1e-11;
  options.common.angle_tolerance = 1e-11;
  int agree = 0, analytic_total = 0, numeric_total = 0, unmatched = 0;
  constexpr int kPoses = 200;
  for (int n = 0; n < kPoses; ++n) {
    const Eigen::VectorXd q = RandomSrsConfiguration(*model, &rng);
    const Eigen::Isometry3d X_WT = ReferenceSitePose(*model, tip, q);
    const SrsSolutions all = arm->AllSolutions(X_WT);
    REQUIRE(all.num_elbow_roots() > 0);
    const double phi = angle(rng);
    std::array<SrsBranch, 8> branches;
    const int count = all.Branches(phi, &branches);
    const Eigen::Vector3d elbow =
        arm->X_BL() * all.parameterization(0).circle().Elbow(phi);
    Problem problem(model);
    problem.AddGoal(
        std::make_shared<PositionOrientationGoal>(*model, "iiwa_link_ee",
                                                  X_WT));
    problem.AddGoal(std::make_shared<PositionGoal>(*model, "elbow", elbow));
    std::vector<Eigen::VectorXd> found;
    for (int seed = 0; seed < 300; ++seed) {
      Eigen::VectorXd q0(7);
      for (int i = 0; i < 7; ++i) q0[i] = angle(rng);
      const Result r = Solve(problem, q0, options);
      if (!r.converged()) continue;
      bool known = false;
      for (const auto& f : found) {
        double gap = 0.0;
        for (int i = 0; i < 7; ++i) {
          gap = std::max(gap, std::abs(std::remainder(f[i] - r.q[i], 2 * kPi)));
        }
        known = known || gap < 1e-5;
      }
      if (!known) found.push_back(r.q);
    }
    for (const auto& f : found) {
      bool matched = false;
      for (int b = 0; b < count; ++b) {
        double gap = 0.0;
        for (int i = 0; i < 7; ++i) {
          gap = std::max(gap, std::abs(std::remainder(
                                  f[i] - branches[b].theta[i], 2 * kPi)));
        }
        matched = matched || gap < 1e-5;
      }
      unmatched += matched ? 0 : 1;
    }
    agree += static_cast<int>(found.size()) == count ? 1 : 0;
    analytic_total += count;
    numeric_total += static_cast<int>(found.size());
  }
  INFO("counts agree on " << agree << " of " << kPoses << " poses; analytic "
                          << analytic_total << ", numeric " << numeric_total
                          << ", numeric answers not analytic " << unmatched);
  CHECK(unmatched == 0);
  CHECK(agree == kPoses);
  WARN("iiwa14 at a fixed swivel angle: counts agree on "
       << agree << " of " << kPoses << " poses (analytic " << analytic_total
       << " branches, numeric " << numeric_total
       << " from 300 bounded-LM seeds per pose)");
}

TEST_CASE("Chains that are not SRS are rejected with the reason",
          "[analytic][solvers]") {
  std::string why;
  const auto ur5 = Robot("ur5.urdf", "base_link", "ee_link");
  CHECK(SrsArm::Create(*ur5, ur5->num_sites() - 1, &why) == nullptr);
  CHECK_THAT(why, Contains("has 6 revolute joints; an SRS arm needs 7"));
  const auto panda = Robot("panda.urdf", "panda_link0", "panda_hand");
  CHECK(SrsArm::Create(*panda, panda->num_sites() - 1, &why) == nullptr);
  CHECK_THAT(why, Contains("do not meet in one point"));
  const auto human = Human();
  // The head: spine and neck joints are spherical but not an SRS chain.
  CHECK(SrsArm::Create(*human, human->SiteIndex("head"), &why) == nullptr);
  CHECK_FALSE(why.empty());
  CHECK_THROWS_WITH(SrsArm::Create(*ur5, -1, &why), Contains("site"));
  CHECK_THROWS_WITH(SrsArm::Create(*ur5, 0, nullptr), Contains("why"));
}

TEST_CASE(
    "The Tolani solver solves iiwa14 and human-arm pose goals in "
    "closed form within the limits",
    "[analytic][solvers]") {
  struct Case {
    std::shared_ptr<const Model> model;
    std::string site;
  };
  const auto iiwa = Iiwa();
  const auto human = Human();
  for (const Case& c : {Case{iiwa, iiwa->site_name(iiwa->num_sites() - 1)},
                        Case{human, "left_hand"}, Case{human, "right_foot"}}) {
    INFO(c.site);
    const Model& model = *c.model;
    const int site = model.SiteIndex(c.site);
    const TolaniLimbSolver solver;
    std::mt19937_64 rng(7);
    int converged = 0;
    for (int n = 0; n < 200; ++n) {
      const Eigen::VectorXd q = RandomSrsConfiguration(model, &rng);
      const Eigen::VectorXd q0 = RandomSrsConfiguration(model, &rng);
      Problem problem(c.model);
      problem.AddGoal(std::make_shared<PositionOrientationGoal>(
          model, c.site, ReferenceSitePose(model, site, q)));
      // The limb's base must be where the target was generated: the other
      // coordinates are the start's.
      Eigen::VectorXd start = q;
      const auto arm = MustCreate(model, site);
      for (int k = 0; k < 7; ++k) {
        start[arm->coordinate(k)] = q0[arm->coordinate(k)];
      }
      if (n == 0) solver.Prepare(problem);
      const Result r = solver.Solve(problem, start);
      INFO(r.message);
      REQUIRE(r.status == SolveStatus::kConverged);
      converged += 1;
      CHECK(r.iterations == 0);
      CHECK(model.WithinLimits(r.q));
      const Eigen::Isometry3d reached = ReferenceSitePose(model, site, r.q);
      CHECK((reached.translation() -
             ReferenceSitePose(model, site, q).translation())
                .norm() <= 1e-9);
      for (int i = 0; i < model.nq(); ++i) {
        bool in_arm = false;
        for (int k = 0; k < 7; ++k) in_arm = in_arm || arm->coordinate(k) == i;
        if (!in_arm) CHECK(r.q[i] == start[i]);
      }
    }
    CHECK(converged == 200);
  }
}

TEST_CASE(
    "On the iiwa14 two elbow roots with equally long valid arcs do not "
    "let rounding choose the answer",
    "[analytic][solvers]") {
  // The iiwa14's elbow limits are symmetric, so both roots of Eq. 5 are
  // admissible; at this position goal (wrist at its mid-limits, the
  // default) their longest valid swivel arcs have the same length, and a
  // change of the goal in its last bit used to flip the answer to the
  // mirror configuration (theta1 + pi, -theta2, theta3, -theta4).
  const auto iiwa = Iiwa();
  const std::string site = iiwa->site_name(iiwa->num_sites() - 1);
  const Eigen::Vector3d goal(0.69164206402669726, -0.24, 0.5077921374603428);
  const TolaniLimbSolver solver;
  std::vector<Eigen::VectorXd> answers;
  for (const double dz : {0.0, 3.3e-16, -3.3e-16, 1e-12}) {
    Problem problem(iiwa);
    problem.AddGoal(std::make_shared<PositionGoal>(
        *iiwa, site, goal + Eigen::Vector3d(0.0, 0.0, dz)));
    const Result r = solver.Solve(problem, Eigen::VectorXd::Zero(iiwa->nq()));
    INFO(r.message);
    REQUIRE(r.status == SolveStatus::kConverged);
    answers.push_back(r.q);
  }
  for (const Eigen::VectorXd& q : answers) {
    INFO(q.transpose() << " vs " << answers[0].transpose());
    CHECK((q - answers[0]).lpNorm<Eigen::Infinity>() <= 1e-6);
  }
}

TEST_CASE("On a limb of the human figure only the limb moves, also in the "
          "whole-problem fallback",
          "[analytic][solvers]") {
  const auto human = Human();
  const int site = human->SiteIndex("left_hand");
  const auto arm = MustCreate(*human, site);
  std::mt19937_64 rng(31);
  const Eigen::VectorXd start = RandomSrsConfiguration(*human, &rng);
  // Far out of reach of the limb with its base held: the closed form says
  // so for that reduced problem, L-BFGS-B refines it. The figure's floating
  // root could carry the hand there, so that verdict proves nothing about
  // the problem (and no reach certificate exists): a local minimum.
  Problem problem(human);
  problem.AddGoal(std::make_shared<PositionGoal>(
      *human, "left_hand", Eigen::Vector3d(0.0, 5.0, 1.2)));
  const Result r = TolaniLimbSolver().Solve(problem, start);
  INFO(r.message);
  CHECK(r.status == SolveStatus::kLocalMinimum);
  CHECK_THAT(r.message,
             Contains("reduced problem (the limb's base held at the start "
                      "pose): the position goal is out of reach"));
  CHECK_THAT(r.message, Contains("whole-problem L-BFGS-B fallback"));
  CHECK(human->WithinLimits(r.q));
  int moved = 0;
  for (int i = 0; i < human->nq(); ++i) {
    bool in_arm = false;
    for (int k = 0; k < 7; ++k) in_arm = in_arm || arm->coordinate(k) == i;
    if (!in_arm) CHECK(r.q[i] == start[i]);
    if (in_arm && r.q[i] != start[i]) ++moved;
  }
  CHECK(moved > 0);
}

TEST_CASE("The Tolani solver refuses a non-SRS chain with the reason",
          "[analytic][solvers]") {
  const auto panda = Robot("panda.urdf", "panda_link0", "panda_hand");
  Problem problem(panda);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *panda, "panda_hand", Eigen::Isometry3d::Identity()));
  const Result r =
      TolaniLimbSolver().Solve(problem, Eigen::VectorXd::Zero(panda->nq()));
  CHECK(r.status == SolveStatus::kInvalidInput);
  CHECK_THAT(r.message, Contains("do not meet in one point"));
}

TEST_CASE(
    "The benchmark runs tolani on the iiwa14 and lists it n/a on the "
    "Panda with the reason",
    "[analytic][solvers]") {
  BenchmarkSolver tolani;
  for (const BenchmarkSolver& s : PoseSolvers()) {
    if (s.name == "tolani") tolani = s;
  }
  REQUIRE(tolani.make);
  const Model panda =
      LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"),
                    "panda_link0", "panda_hand")
          .figure.Compile();
  CHECK_THAT(NotApplicable(tolani, panda, panda.SiteIndex("panda_hand")),
             Contains("do not meet in one point"));
  const auto iiwa = Iiwa();
  const int site = iiwa->num_sites() - 1;
  CHECK(NotApplicable(tolani, *iiwa, site).empty());
  for (SeedMode mode : {SeedMode::kMidLimits, SeedMode::kRandom}) {
    const auto targets = GenerateTargets(*iiwa, site, 500, 9, mode);
    BenchmarkSettings settings;
    // Loose: the test asserts correctness, not speed (sanitizer builds).
    settings.time_budget_seconds = 0.5;
    const auto outcomes = RunTargets(iiwa, site, targets, tolani, settings);
    const BenchmarkSummary s = Summarize(
        "iiwa14", tolani.name, SeedModeName(mode), iiwa->nq(), outcomes);
    CHECK(s.false_claims == 0);
    CHECK(s.solve_rate == 1.0);
  }
}

}  // namespace
}  // namespace iklab
