// 6R analytic IK by subproblem decomposition (solvers/analytic): the
// Paden–Kahan subproblems on random instances; every returned solution of
// the UR5 (shipped URDF) and of spherical-wrist arms built from DH tables
// checked by the benchmark's independent FK (ReferenceSitePose); the
// generating configuration among the solutions; the solution count against
// a dense numeric sweep (bounded LM from many random seeds); rejection of
// other geometries with the reason; and the Solver's statuses.
#include "solvers/analytic/six_r_solver.h"

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/ik_benchmark.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "framework/denavit_hartenberg.h"
#include "framework/internal/constants.h"
#include "framework/urdf_loader.h"
#include "solvers/analytic/subproblems.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "tests/solvers/test_arms.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;
using internal::kPi;
using testing::DhRowOf;
using testing::KukaLikeArm;

std::shared_ptr<const Model> Ur5() {
  return std::make_shared<const Model>(
      LoadUrdfChain(testing::ShippedDataFile("robots/ur5.urdf"), "base_link",
                    "ee_link")
          .figure.Compile());
}

// A PUMA-560-like table: axes 1 and 2 intersect (a1 = 0), shoulder offset
// d2, spherical wrist; unlimited joints.
std::shared_ptr<const Model> PumaLikeArm() {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  DhTable table;
  table.rows = {DhRowOf(0.0, -kPi / 2, 0.67, -kInf, kInf),
                DhRowOf(0.4318, 0.0, 0.15, -kInf, kInf),
                DhRowOf(0.0203, -kPi / 2, 0.0, -kInf, kInf),
                DhRowOf(0.0, kPi / 2, 0.4318, -kInf, kInf),
                DhRowOf(0.0, -kPi / 2, 0.0, -kInf, kInf),
                DhRowOf(0.0, 0.0, 0.0563, -kInf, kInf)};
  table.X_base.translation() = Eigen::Vector3d(0.1, -0.2, 0.3);
  table.X_base.linear() =
      Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 2, 3).normalized())
          .toRotationMatrix();
  return std::make_shared<const Model>(
      DenavitHartenbergFigure(table).Compile());
}

// Spherical-wrist arms for the other two position decompositions:
// axes 2 and 3 intersecting (a2 = 0), and axes 1 and 2 parallel (α1 = 0).
std::shared_ptr<const Model> Axes23IntersectArm() {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  DhTable table;
  table.rows = {DhRowOf(0.15, kPi / 2, 0.3, -kInf, kInf),
                DhRowOf(0.0, -kPi / 2, 0.12, -kInf, kInf),
                DhRowOf(0.5, kPi / 2, 0.05, -kInf, kInf),
                DhRowOf(0.0, -kPi / 2, 0.4, -kInf, kInf),
                DhRowOf(0.0, kPi / 2, 0.0, -kInf, kInf),
                DhRowOf(0.0, 0.0, 0.1, -kInf, kInf)};
  return std::make_shared<const Model>(
      DenavitHartenbergFigure(table).Compile());
}

std::shared_ptr<const Model> Axes12ParallelArm() {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  DhTable table;
  table.rows = {DhRowOf(0.35, 0.0, 0.4, -kInf, kInf),
                DhRowOf(0.3, kPi / 2, 0.1, -kInf, kInf),
                DhRowOf(0.05, -kPi / 2, 0.02, -kInf, kInf),
                DhRowOf(0.0, kPi / 2, 0.3, -kInf, kInf),
                DhRowOf(0.0, -kPi / 2, 0.0, -kInf, kInf),
                DhRowOf(0.0, 0.0, 0.07, -kInf, kInf)};
  return std::make_shared<const Model>(
      DenavitHartenbergFigure(table).Compile());
}

int TipSite(const Model& model) { return model.num_sites() - 1; }

// Uniform within the limits; unbounded coordinates in (−π, π].
Eigen::VectorXd RandomConfiguration(const Model& model, std::mt19937_64* rng) {
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

struct PoseError {
  double position = 0.0;
  double rotation = 0.0;
};

PoseError ErrorAt(const Model& model, int site, const Eigen::VectorXd& q,
                  const Eigen::Isometry3d& target) {
  const Eigen::Isometry3d reached = ReferenceSitePose(model, site, q);
  return {(reached.translation() - target.translation()).norm(),
          Eigen::AngleAxisd(reached.linear().transpose() * target.linear())
              .angle()};
}

// Largest |a_i − b_i| modulo 2π.
double AngleDistance(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  double d = 0.0;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(std::remainder(a[i] - b[i], 2.0 * kPi)));
  }
  return d;
}

struct RoundTripStats {
  int poses = 0;
  int solutions = 0;
  int generator_found = 0;
  int singular = 0;
  double worst_position = 0.0;
  double worst_rotation = 0.0;
  int limit_flag_errors = 0;
};

// Random configurations within the limits → independent FK → AllSolutions;
// every solution is checked by independent FK and its limits flag.
RoundTripStats RoundTrip(const Model& model, const SixRArm& arm, int poses,
                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  RoundTripStats stats;
  const int site = arm.site();
  for (int n = 0; n < poses; ++n) {
    const Eigen::VectorXd q = RandomConfiguration(model, &rng);
    const Eigen::Isometry3d target = ReferenceSitePose(model, site, q);
    const SixRSolutions all = arm.AllSolutions(target);
    ++stats.poses;
    stats.singular += all.singular ? 1 : 0;
    bool found = false;
    for (int i = 0; i < all.num_solutions; ++i) {
      const Eigen::VectorXd s = all.solutions[i].q;
      const PoseError e = ErrorAt(model, site, s, target);
      stats.worst_position = std::max(stats.worst_position, e.position);
      stats.worst_rotation = std::max(stats.worst_rotation, e.rotation);
      if (all.solutions[i].within_limits != model.WithinLimits(s)) {
        ++stats.limit_flag_errors;
      }
      found = found || AngleDistance(s, q) <= 1e-6;
    }
    stats.solutions += all.num_solutions;
    stats.generator_found += found ? 1 : 0;
  }
  return stats;
}

void CheckRoundTrip(const Model& model, const SixRArm& arm, int poses,
                    std::uint64_t seed) {
  const RoundTripStats s = RoundTrip(model, arm, poses, seed);
  INFO(arm.decomposition() << ": " << s.poses << " poses, " << s.solutions
                           << " solutions, worst position error "
                           << s.worst_position << ", worst rotation error "
                           << s.worst_rotation << ", generator found "
                           << s.generator_found << ", singular "
                           << s.singular);
  CHECK(s.worst_position <= 1e-9);
  CHECK(s.worst_rotation <= 1e-9);
  CHECK(s.generator_found == s.poses);
  CHECK(s.limit_flag_errors == 0);
  WARN(arm.decomposition() << ": " << s.poses << " poses, "
                           << s.solutions << " solutions (mean "
                           << double(s.solutions) / s.poses
                           << "), worst errors " << s.worst_position << " / "
                           << s.worst_rotation << " rad, generator found in "
                           << s.generator_found);
}

std::shared_ptr<const SixRArm> MustCreate(const Model& model) {
  std::string why;
  auto arm = SixRArm::Create(model, TipSite(model), &why);
  INFO(why);
  REQUIRE(arm != nullptr);
  return arm;
}

TEST_CASE("Subproblems 1-4 solve random instances exactly",
          "[analytic][solvers]") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  const auto vec = [&] {
    return Eigen::Vector3d(normal(rng), normal(rng), normal(rng));
  };
  const auto rot = [](const Eigen::Vector3d& k, double t) {
    return Eigen::AngleAxisd(t, k).toRotationMatrix();
  };
  for (int n = 0; n < 1000; ++n) {
    const Eigen::Vector3d k = vec().normalized(), k2 = vec().normalized();
    const Eigen::Vector3d p = vec(), h = vec().normalized();
    const double t = angle(rng), t2 = angle(rng);
    const Eigen::Vector3d q = rot(k, t) * p;
    const auto s1 = analytic::Subproblem1(k, p, q, 1e-12, 0.0);
    CHECK(std::abs(std::remainder(s1.theta[0] - t, 2 * kPi)) < 1e-9);
    const Eigen::Vector3d r = vec();
    const double d = (q - r).norm();
    const auto s3 = analytic::Subproblem3(k, p, r, d, 1e-10, 1e-12, 0.0);
    REQUIRE(s3.exact);
    for (int i = 0; i < s3.count; ++i) {
      CHECK(std::abs((rot(k, s3.theta[i]) * p - r).norm() - d) < 1e-9);
    }
    const double dh = h.dot(q);
    const auto s4 = analytic::Subproblem4(h, k, p, dh, 1e-10, 1e-12, 0.0);
    REQUIRE(s4.exact);
    for (int i = 0; i < s4.count; ++i) {
      CHECK(std::abs(h.dot(rot(k, s4.theta[i]) * p) - dh) < 1e-9);
    }
    const Eigen::Vector3d q2 = rot(k, t) * rot(k2, t2) * p;
    const auto s2 = analytic::Subproblem2(k, k2, p, q2, 1e-10, 1e-12, 0, 0);
    REQUIRE(s2.exact);
    REQUIRE(s2.count == 2);
    bool generator = false;
    for (int i = 0; i < s2.count; ++i) {
      const Eigen::Vector2d a = s2.theta[i];
      CHECK((rot(k, a[0]) * rot(k2, a[1]) * p - q2).norm() < 1e-9);
      generator = generator ||
                  (std::abs(std::remainder(a[0] - t, 2 * kPi)) < 1e-7 &&
                   std::abs(std::remainder(a[1] - t2, 2 * kPi)) < 1e-7);
    }
    CHECK(generator);
  }
  // No exact solution: least squares, flagged.
  const auto far = analytic::Subproblem3(Eigen::Vector3d::UnitZ(),
                                         Eigen::Vector3d::UnitX(),
                                         Eigen::Vector3d::Zero(), 2.0, 1e-10,
                                         1e-12, 0.0);
  CHECK_FALSE(far.exact);
}

TEST_CASE("The UR5 is read as a three-parallel-axes arm",
          "[analytic][solvers]") {
  const auto model = Ur5();
  const auto arm = MustCreate(*model);
  CHECK(arm->family() == SixRFamily::kThreeParallel);
  CHECK(arm->decomposition() ==
        "axes 2, 3, 4 parallel; axes 5 and 6 intersect");
  // The product-of-exponentials form agrees with the model's FK.
  std::mt19937_64 rng(3);
  for (int n = 0; n < 100; ++n) {
    const Eigen::VectorXd q = RandomConfiguration(*model, &rng);
    const Eigen::Isometry3d a = arm->Forward(q);
    const Eigen::Isometry3d b = ReferenceSitePose(*model, TipSite(*model), q);
    CHECK((a.matrix() - b.matrix()).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("Every UR5 solution of 10,000 random poses reaches the pose to "
          "1e-9 and the generating configuration is among them",
          "[analytic][solvers]") {
  const auto model = Ur5();
  CheckRoundTrip(*model, *MustCreate(*model), 10000, 101);
}

TEST_CASE("Every solution of a KUKA-like spherical-wrist arm on 10,000 "
          "random poses reaches the pose to 1e-9 and the generating "
          "configuration is among them",
          "[analytic][solvers]") {
  const auto model = KukaLikeArm();
  const auto arm = MustCreate(*model);
  CHECK(arm->family() == SixRFamily::kSphericalWrist);
  CHECK(arm->decomposition() == "spherical wrist; axes 2 and 3 parallel");
  CheckRoundTrip(*model, *arm, 10000, 202);
}

TEST_CASE("The other spherical-wrist position decompositions round-trip "
          "random poses",
          "[analytic][solvers]") {
  struct Case {
    std::shared_ptr<const Model> model;
    const char* decomposition;
  };
  const std::vector<Case> cases = {
      {PumaLikeArm(), "spherical wrist; axes 1 and 2 intersect"},
      {Axes23IntersectArm(), "spherical wrist; axes 2 and 3 intersect"},
      {Axes12ParallelArm(), "spherical wrist; axes 1 and 2 parallel"}};
  for (const Case& c : cases) {
    const auto arm = MustCreate(*c.model);
    CHECK(arm->decomposition() == c.decomposition);
    CheckRoundTrip(*c.model, *arm, 2000, 303);
  }
}

// Distinct solutions (modulo 2π) found by bounded LM (no restarts, limits
// off) from `seeds` random starts.
std::vector<Eigen::VectorXd> NumericSolutions(
    const std::shared_ptr<const Model>& model, int site,
    const Eigen::Isometry3d& target, int seeds, std::mt19937_64* rng) {
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *model, model->site_name(site), target));
  BoundedLmOptions options;
  options.max_attempts = 1;
  options.common.respect_limits = false;
  options.common.time_budget_seconds = 0.0;
  options.common.max_iterations = 200;
  options.common.position_tolerance = 1e-11;
  options.common.angle_tolerance = 1e-11;
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  std::vector<Eigen::VectorXd> found;
  for (int s = 0; s < seeds; ++s) {
    Eigen::VectorXd q0(6);
    for (int i = 0; i < 6; ++i) q0[i] = angle(*rng);
    const Result r = Solve(problem, q0, options);
    if (!r.converged()) continue;
    bool known = false;
    for (const auto& f : found) known = known || AngleDistance(f, r.q) < 1e-5;
    if (!known) found.push_back(r.q);
  }
  return found;
}

void CheckCountAgainstNumericSearch(const std::shared_ptr<const Model>& model,
                                    std::uint64_t seed) {
  const auto arm = MustCreate(*model);
  const int site = arm->site();
  std::mt19937_64 rng(seed);
  constexpr int kPoses = 200;
  constexpr int kSeeds = 300;
  int agree = 0, analytic_total = 0, numeric_total = 0, unmatched = 0;
  for (int n = 0; n < kPoses; ++n) {
    const Eigen::VectorXd q = RandomConfiguration(*model, &rng);
    const Eigen::Isometry3d target = ReferenceSitePose(*model, site, q);
    const SixRSolutions all = arm->AllSolutions(target);
    const auto numeric = NumericSolutions(model, site, target, kSeeds, &rng);
    // Every numeric solution is one of the analytic ones.
    for (const auto& f : numeric) {
      bool matched = false;
      for (int i = 0; i < all.num_solutions; ++i) {
        matched = matched || AngleDistance(f, all.solutions[i].q) < 1e-5;
      }
      unmatched += matched ? 0 : 1;
    }
    agree += static_cast<int>(numeric.size()) == all.num_solutions ? 1 : 0;
    analytic_total += all.num_solutions;
    numeric_total += static_cast<int>(numeric.size());
  }
  INFO(arm->decomposition() << ": counts agree on " << agree << " of "
                            << kPoses << " poses; analytic " << analytic_total
                            << ", numeric " << numeric_total
                            << ", numeric solutions not analytic "
                            << unmatched);
  CHECK(unmatched == 0);
  CHECK(agree == kPoses);
  WARN(arm->decomposition() << ": counts agree on " << agree << " of "
                            << kPoses << " poses (analytic "
                            << analytic_total << " solutions, numeric "
                            << numeric_total << " from " << kSeeds
                            << " bounded-LM seeds per pose)");
}

TEST_CASE("The UR5 solution count agrees with bounded LM from 300 random "
          "seeds on 200 poses",
          "[analytic][solvers][slow]") {
  CheckCountAgainstNumericSearch(Ur5(), 404);
}

TEST_CASE("The spherical-wrist solution count agrees with bounded LM from "
          "300 random seeds on 200 poses",
          "[analytic][solvers][slow]") {
  CheckCountAgainstNumericSearch(KukaLikeArm(), 505);
}

TEST_CASE("Arms of other geometries are rejected with the reason",
          "[analytic][solvers]") {
  std::string why;
  SECTION("the 7-DOF Panda") {
    const Model panda =
        LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"),
                      "panda_link0", "panda_hand")
            .figure.Compile();
    CHECK(SixRArm::Create(panda, panda.SiteIndex("panda_hand"), &why) ==
          nullptr);
    CHECK_THAT(why, Contains("needs a model with 6 coordinates") &&
                        Contains("has 7"));
  }
  SECTION("a 6R arm with an offset wrist and no parallel axes") {
    DhTable table;
    table.rows = {DhRowOf(0.1, kPi / 2, 0.3, -kPi, kPi),
                  DhRowOf(0.4, 0.3, 0.05, -kPi, kPi),
                  DhRowOf(0.05, kPi / 2, 0.1, -kPi, kPi),
                  DhRowOf(0.02, -kPi / 2, 0.35, -kPi, kPi),
                  DhRowOf(0.03, kPi / 2, 0.04, -kPi, kPi),
                  DhRowOf(0.0, 0.0, 0.1, -kPi, kPi)};
    const Model model = DenavitHartenbergFigure(table).Compile();
    CHECK(SixRArm::Create(model, TipSite(model), &why) == nullptr);
    CHECK_THAT(why, Contains("not a supported 6R geometry"));
  }
  SECTION("a chain with a prismatic joint") {
    DhTable table;
    table.rows = {DhRowOf(0.0, -kPi / 2, 0.3, -kPi, kPi),
                  DhRowOf(0.4, 0.0, 0.0, -kPi, kPi),
                  DhRowOf(0.0, -kPi / 2, 0.0, -kPi, kPi),
                  DhRowOf(0.0, kPi / 2, 0.4, -kPi, kPi),
                  DhRowOf(0.0, -kPi / 2, 0.0, -kPi, kPi),
                  DhRowOf(0.0, 0.0, 0.1, -kPi, kPi)};
    table.rows[2].kind = JointKind::kPrismatic;
    table.rows[2].lower = 0.0;
    table.rows[2].upper = 0.5;
    const Model model = DenavitHartenbergFigure(table).Compile();
    CHECK(SixRArm::Create(model, TipSite(model), &why) == nullptr);
    CHECK_THAT(why, Contains("prismatic"));
  }
  SECTION("a bad site index throws") {
    const auto model = Ur5();
    CHECK_THROWS_WITH(SixRArm::Create(*model, 99, &why),
                      Contains("site must be in"));
  }
}

Problem PoseProblem(const std::shared_ptr<const Model>& model,
                    const Eigen::Isometry3d& target) {
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionOrientationGoal>(
      *model, model->site_name(TipSite(*model)), target));
  return problem;
}

TEST_CASE("The 6R solver returns the solution nearest the seed within the "
          "limits",
          "[analytic][solvers]") {
  for (const auto& model : {Ur5(), KukaLikeArm()}) {
    const auto arm = MustCreate(*model);
    const SixRAnalyticSolver solver;
    std::mt19937_64 rng(606);
    for (int n = 0; n < 500; ++n) {
      const Eigen::VectorXd q = RandomConfiguration(*model, &rng);
      const Eigen::VectorXd seed = RandomConfiguration(*model, &rng);
      const Eigen::Isometry3d target =
          ReferenceSitePose(*model, TipSite(*model), q);
      const Problem problem = PoseProblem(model, target);
      const Result r = solver.Solve(problem, seed);
      INFO(r.message);
      REQUIRE(r.status == SolveStatus::kConverged);
      CHECK(r.iterations == 0);
      CHECK(model->WithinLimits(r.q));
      const PoseError e = ErrorAt(*model, TipSite(*model), r.q, target);
      CHECK(e.position <= 1e-9);
      CHECK(e.rotation <= 1e-9);
      // No solution (in any 2π shift within the limits) is nearer the seed.
      const SixRSolutions all = arm->AllSolutions(target);
      for (int i = 0; i < all.num_solutions; ++i) {
        Eigen::VectorXd s = all.solutions[i].q;
        for (int j = 0; j < 6; ++j) {
          // Best shift of coordinate j within the limits.
          double best = s[j];
          for (int m = -2; m <= 2; ++m) {
            const double c = s[j] + 2 * kPi * m;
            if (c >= model->lower()[j] && c <= model->upper()[j] &&
                (std::abs(c - seed[j]) < std::abs(best - seed[j]) ||
                 best < model->lower()[j] || best > model->upper()[j])) {
              best = c;
            }
          }
          s[j] = best;
        }
        if (!model->WithinLimits(s)) continue;
        CHECK((r.q - seed).norm() <= (s - seed).norm() + 1e-9);
      }
    }
  }
}

TEST_CASE("Preparing the 6R solver outside the clock gives the same answers, "
          "and preparing for a problem it cannot take is harmless",
          "[analytic][solvers]") {
  const auto model = Ur5();
  std::mt19937_64 rng(707);
  const Eigen::VectorXd q = RandomConfiguration(*model, &rng);
  const Eigen::VectorXd seed = RandomConfiguration(*model, &rng);
  const Problem problem =
      PoseProblem(model, ReferenceSitePose(*model, TipSite(*model), q));
  const SixRAnalyticSolver prepared, cold;
  prepared.Prepare(problem);
  const Result a = prepared.Solve(problem, seed);
  const Result b = cold.Solve(problem, seed);
  REQUIRE(a.status == SolveStatus::kConverged);
  CHECK(a.q == b.q);
  // A model it rejects: Prepare keeps quiet, Solve says why.
  const auto panda = std::make_shared<const Model>(
      LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"), "panda_link0",
                    "panda_hand")
          .figure.Compile());
  const Problem other = PoseProblem(panda, Eigen::Isometry3d::Identity());
  REQUIRE_NOTHROW(prepared.Prepare(other));
  CHECK(prepared.Solve(other, panda->MidLimits()).status ==
        SolveStatus::kInvalidInput);
}

TEST_CASE("The 6R solver reports unreachable targets, limits that exclude "
          "every solution, singular poses and invalid problems",
          "[analytic][solvers]") {
  const auto model = Ur5();
  const SixRAnalyticSolver solver;
  const int site = TipSite(*model);
  Eigen::VectorXd q(6);
  q << 0.3, -1.0, 1.2, -0.4, 0.8, 0.2;
  const Eigen::Isometry3d target = ReferenceSitePose(*model, site, q);
  SECTION("out of reach") {
    Eigen::Isometry3d far = target;
    far.translation() += Eigen::Vector3d(3.0, 0.0, 0.0);
    const Result r = solver.Solve(PoseProblem(model, far), q);
    CHECK(r.status == SolveStatus::kUnreachable);
    CHECK_THAT(r.message, Contains("no exact solution"));
    CHECK(r.q.allFinite());
  }
  SECTION("joint limits exclude every solution") {
    Problem problem = PoseProblem(model, target);
    Bounds bounds = problem.bounds();
    // Joint 1 (shoulder lift) confined far from every solution's value.
    const SixRSolutions all = MustCreate(*model)->AllSolutions(target);
    REQUIRE(all.num_solutions > 0);
    bounds.lower[0] = q[0] + 1.0;
    bounds.upper[0] = q[0] + 1.1;
    for (int i = 0; i < all.num_solutions; ++i) {
      const double a = std::remainder(all.solutions[i].q[0] - q[0] - 1.05,
                                      2 * kPi);
      REQUIRE(std::abs(a) > 0.05);
    }
    problem.set_bounds(bounds);
    const Result r = solver.Solve(problem, q);
    CHECK(r.status == SolveStatus::kLimitsInfeasible);
    CHECK_THAT(r.message, Contains("outside the joint limits"));
    CHECK(problem.bounds().Contains(r.q));
  }
  SECTION("a wrist singularity: every representative reaches the pose") {
    Eigen::VectorXd qs = q;
    qs[4] = 0.0;  // UR wrist 2 at zero: axis 6 parallel to axes 2-4
    const Eigen::Isometry3d singular = ReferenceSitePose(*model, site, qs);
    const SixRSolutions all = MustCreate(*model)->AllSolutions(singular);
    CHECK(all.singular);
    REQUIRE(all.num_solutions > 0);
    for (int i = 0; i < all.num_solutions; ++i) {
      const PoseError e = ErrorAt(*model, site, all.solutions[i].q, singular);
      CHECK(e.position <= 1e-9);
      CHECK(e.rotation <= 1e-9);
    }
    const Result r = solver.Solve(PoseProblem(model, singular), qs);
    CHECK(r.status == SolveStatus::kConverged);
    CHECK_THAT(r.message, Contains("singular"));
  }
  SECTION("a spherical-wrist singularity") {
    const auto kuka = KukaLikeArm();
    Eigen::VectorXd qk(6);
    qk << 0.2, -0.9, 0.7, 0.5, 0.0, -0.3;  // joint 5 at zero: axes 4, 6 aligned
    const Eigen::Isometry3d pose = ReferenceSitePose(*kuka, TipSite(*kuka), qk);
    const Result r = solver.Solve(PoseProblem(kuka, pose), qk);
    CHECK(r.status == SolveStatus::kConverged);
    CHECK_THAT(r.message, Contains("singular"));
    // The free joint keeps the seed's value, so the seed itself comes back.
    CHECK(AngleDistance(r.q, qk) < 1e-6);
  }
  SECTION("a goal other than one PositionOrientationGoal") {
    Problem problem(model);
    problem.AddGoal(std::make_shared<PositionGoal>(
        *model, model->site_name(site), target.translation()));
    const Result r = solver.Solve(problem, q);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("PositionOrientationGoal"));
  }
  SECTION("a model of another geometry") {
    auto panda = std::make_shared<const Model>(
        LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"),
                      "panda_link0", "panda_hand")
            .figure.Compile());
    const Result r = solver.Solve(
        PoseProblem(panda, Eigen::Isometry3d::Identity()), panda->MidLimits());
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("6 coordinates"));
  }
  SECTION("invalid options") {
    SixRAnalyticOptions options;
    options.geometry_tolerance = 0.0;
    const Result r = Solve(PoseProblem(model, target), q, options);
    CHECK(r.status == SolveStatus::kInvalidInput);
    CHECK_THAT(r.message, Contains("geometry_tolerance"));
  }
}


TEST_CASE("The benchmark runs analytic-6r on the UR5 and lists it n/a on the "
          "Panda with the reason",
          "[analytic][solvers]") {
  BenchmarkSolver analytic;
  for (const BenchmarkSolver& s : PoseSolvers()) {
    if (s.name == "analytic-6r") analytic = s;
  }
  REQUIRE(analytic.make);
  const Model panda =
      LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"),
                    "panda_link0", "panda_hand")
          .figure.Compile();
  CHECK_THAT(NotApplicable(analytic, panda, panda.SiteIndex("panda_hand")),
             Contains("needs a model with 6 coordinates"));
  const auto ur5 = Ur5();
  const int site = ur5->SiteIndex("ee_link");
  CHECK(NotApplicable(analytic, *ur5, site).empty());
  const auto targets = GenerateTargets(*ur5, site, 200, 9, SeedMode::kRandom);
  BenchmarkSettings settings;
  // Loose: the test asserts correctness, not speed (sanitizer builds).
  settings.time_budget_seconds = 0.5;
  const auto outcomes = RunTargets(ur5, site, targets, analytic, settings);
  const BenchmarkSummary s =
      Summarize("ur5", analytic.name, "random", ur5->nq(), outcomes);
  CHECK(s.false_claims == 0);
  CHECK(s.solve_rate == 1.0);
}

}  // namespace
}  // namespace iklab
