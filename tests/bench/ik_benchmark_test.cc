#include "bench/ik_benchmark.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>

#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

TEST_CASE("The reference FK of the benchmark agrees with ForwardKinematics",
          "[experiments]") {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 20; ++trial) {
    const Model model = testing::RandomFigure(&rng).Compile();
    Data data(model);
    const Eigen::VectorXd q = testing::RandomConfiguration(model, &rng);
    ForwardKinematics(model, q, &data);
    for (int site = 0; site < model.num_sites(); ++site) {
      const Eigen::Isometry3d a = SitePose(model, data, site);
      const Eigen::Isometry3d b = ReferenceSitePose(model, site, q);
      CHECK((a.matrix() - b.matrix()).cwiseAbs().maxCoeff() < 1e-12);
    }
  }
}

TEST_CASE("Verify rejects answers off by more than the tolerance or outside "
          "limits",
          "[experiments]") {
  const UrdfFigure urdf = LoadUrdfChain(
      testing::ShippedDataFile("robots/ur5.urdf"), "base_link", "ee_link");
  const Model model = urdf.figure.Compile();
  const int site = model.SiteIndex("ee_link");
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(6, 0.3);
  const Eigen::Isometry3d target = ReferenceSitePose(model, site, q);
  CHECK(Verify(model, site, q, target, 1e-5).success);

  Eigen::Isometry3d shifted = target;
  shifted.translation().y() += 2e-5;
  const Verification off = Verify(model, site, q, shifted, 1e-5);
  CHECK_FALSE(off.success);
  CHECK(off.position_error == Approx(2e-5).epsilon(1e-6));

  Eigen::Isometry3d turned = target;
  turned.linear() = Eigen::AngleAxisd(3e-5, Eigen::Vector3d::UnitX()) *
                    target.linear();
  const Verification twisted = Verify(model, site, q, turned, 1e-5);
  CHECK_FALSE(twisted.success);
  CHECK(twisted.rotation_error == Approx(3e-5).epsilon(1e-6));

  Eigen::VectorXd outside = q;
  outside[2] = model.upper()[2] + 1e-9;
  CHECK_FALSE(Verify(model, site, outside,
                     ReferenceSitePose(model, site, outside), 1e-5)
                  .success);
  CHECK_FALSE(Verify(model, site, Eigen::VectorXd::Constant(6, NAN), target,
                     1e-5)
                  .success);
}

TEST_CASE("The same seed gives the same benchmark targets", "[experiments]") {
  const UrdfFigure urdf =
      LoadUrdfChain(testing::ShippedDataFile("robots/gen3.urdf"), "base_link",
                    "end_effector_link");
  const Model model = urdf.figure.Compile();
  const int site = model.SiteIndex("end_effector_link");
  const auto a = GenerateTargets(model, site, 20, 5, SeedMode::kRandom);
  const auto b = GenerateTargets(model, site, 20, 5, SeedMode::kRandom);
  const auto mid = GenerateTargets(model, site, 20, 5, SeedMode::kMidLimits);
  for (int k = 0; k < 20; ++k) {
    CHECK(a[k].seed == b[k].seed);
    CHECK(a[k].target.matrix() == b[k].target.matrix());
    // Mid-limits and random runs share their targets.
    CHECK(mid[k].target.matrix() == a[k].target.matrix());
    // Continuous joints are drawn in (−π, π].
    CHECK(a[k].seed.cwiseAbs().maxCoeff() <= M_PI);
  }
}

TEST_CASE("Bounded LM passes the benchmark protocol on the Panda",
          "[experiments]") {
  const UrdfFigure urdf =
      LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"),
                    "panda_link0", "panda_hand");
  const auto model = std::make_shared<const Model>(urdf.figure.Compile());
  const int site = model->SiteIndex("panda_hand");
  const auto targets = GenerateTargets(*model, site, 100, 3, SeedMode::kRandom);
  BenchmarkSettings settings;
  // A loose budget: the test asserts correctness, not speed (sanitizer
  // builds are slow); the benchmark measures speed.
  settings.time_budget_seconds = 0.5;
  for (const BenchmarkSolver& solver : PoseSolvers()) {
    if (solver.name != "bounded-lm") continue;
    const auto outcomes = RunTargets(model, site, targets, solver, settings);
    const BenchmarkSummary s = Summarize("panda", solver.name, "random",
                                         model->nq(), outcomes);
    CHECK(s.false_claims == 0);
    CHECK(s.solve_rate >= 0.99);
    // The same seed gives bit-identical outcomes (pose, status, iterations,
    // verdict) on one thread again and on 2 and 4 threads (one model, one
    // problem and solver per thread). The budget is loose enough never to
    // end a solve, the only source of run-to-run differences.
    for (const int threads : {1, 2, 4}) {
      settings.threads = threads;
      const auto again = RunTargets(model, site, targets, solver, settings);
      REQUIRE(again.size() == outcomes.size());
      int differences = 0;
      for (size_t k = 0; k < outcomes.size(); ++k) {
        REQUIRE(again[k].q.size() == outcomes[k].q.size());
        differences += again[k].q != outcomes[k].q ||
                       again[k].status != outcomes[k].status ||
                       again[k].iterations != outcomes[k].iterations ||
                       again[k].claimed != outcomes[k].claimed ||
                       again[k].success != outcomes[k].success;
      }
      INFO("threads = " << threads);
      CHECK(differences == 0);
    }
  }
}

TEST_CASE("The summary counts local minima and unreachable solves apart",
          "[experiments]") {
  std::vector<TargetOutcome> outcomes(6);
  outcomes[0].status = SolveStatus::kConverged;
  outcomes[1].status = SolveStatus::kLocalMinimum;
  outcomes[2].status = SolveStatus::kLocalMinimum;
  outcomes[3].status = SolveStatus::kUnreachable;
  outcomes[4].status = SolveStatus::kLimitsInfeasible;
  outcomes[5].status = SolveStatus::kMaxIterations;
  const BenchmarkSummary s = Summarize("arm", "solver", "random", 7, outcomes);
  CHECK(s.targets == 6);
  CHECK(s.local_minima == 2);
  CHECK(s.unreachable == 1);
}

TEST_CASE("Target CSV files round-trip and malformed rows are reported with "
          "their line",
          "[experiments]") {
  const UrdfFigure urdf = LoadUrdfChain(
      testing::ShippedDataFile("robots/ur5.urdf"), "base_link", "ee_link");
  const Model model = urdf.figure.Compile();
  const int site = model.SiteIndex("ee_link");
  const auto targets = GenerateTargets(model, site, 5, 9, SeedMode::kRandom);
  const std::string path =
      testing::ScratchPath("iklab_targets_test.csv")
          .string();
  WriteTargetsCsv(path, model, targets);
  const auto read = ReadTargetsCsv(path, model.nq());
  REQUIRE(read.size() == 5);
  for (int k = 0; k < 5; ++k) {
    CHECK((read[k].seed - targets[k].seed).norm() < 1e-15);
    CHECK((read[k].target.matrix() - targets[k].target.matrix())
              .cwiseAbs()
              .maxCoeff() < 1e-15);
  }
  std::ofstream(path) << "q1,q2,q3,q4,q5,q6,x,y,z,qw,qx,qy,qz\n"
                      << "0,0,0,0,0,0,1,2,3,1,0,0,0\n"
                      << "0,0,0,0,0,0,1,2,3,1,0,0\n";
  REQUIRE_THROWS_WITH(ReadTargetsCsv(path, 6),
                      Catch::Contains(":3: expected 13 values"));
  std::ofstream(path) << "0,0,0,0,0,abc,1,2,3,1,0,0,0\n";
  REQUIRE_THROWS_WITH(ReadTargetsCsv(path, 6),
                      Catch::Contains(":1: column 6 ('abc') is not a finite"));
  std::ofstream(path) << "0,0,0,0,0,0,1,2,3,2,0,0,0\n";
  REQUIRE_THROWS_WITH(ReadTargetsCsv(path, 6),
                      Catch::Contains("must have unit length"));
  std::filesystem::remove(path);
}

TEST_CASE("The target CSV header rule and full-field numbers leave nothing "
          "to guessing",
          "[bench]") {
  const auto parse = [](const std::string& text, int nq) {
    std::istringstream in(text);
    return ParseTargetsCsv(in, "t.csv", nq);
  };
  const std::string row = "0.5,1,2,3,1,0,0,0\n";
  // A header is recognized by its last seven fields; none is needed.
  CHECK(parse("q,x,y,z,qw,qx,qy,qz\n" + row, 1).size() == 1);
  CHECK(parse(" q , x , y , z , qw , qx , qy , qz \r\n" + row, 1).size() == 1);
  CHECK(parse(row, 1).size() == 1);
  CHECK(parse("# comment\n\n" + row + row, 1).size() == 2);
  // A first row that is neither a header nor numbers is an error, not a
  // dropped row.
  REQUIRE_THROWS_WITH(parse("nan,1,2,3,1,0,0,0\n" + row, 1),
                      Catch::Contains("t.csv:1: column 1 ('nan') is not a finite "
                               "number (a header line must end in "
                               "x,y,z,qw,qx,qy,qz)"));
  REQUIRE_THROWS_WITH(parse("q,x,y,z,qw,qx,qy,q_z\n" + row, 1),
                      Catch::Contains("t.csv:1: column 1 ('q')"));
  REQUIRE_THROWS_WITH(parse("\xff\x01,1,2,3,1,0,0,0\n", 1),
                      Catch::Contains("('\\xFF\\x01')"));
  // Trailing garbage, empty fields, overflow.
  REQUIRE_THROWS_WITH(parse("0.5x,1,2,3,1,0,0,0\n", 1),
                      Catch::Contains("t.csv:1: column 1 ('0.5x')"));
  REQUIRE_THROWS_WITH(parse("0.5,,2,3,1,0,0,0\n", 1),
                      Catch::Contains("t.csv:1: column 2 ('')"));
  REQUIRE_THROWS_WITH(parse("0.5,1e400,2,3,1,0,0,0\n", 1),
                      Catch::Contains("t.csv:1: column 2 ('1e400')"));
  // No data rows.
  REQUIRE_THROWS_WITH(parse("", 1), Catch::Contains("t.csv: no target rows"));
  REQUIRE_THROWS_WITH(parse("q,x,y,z,qw,qx,qy,qz\n", 1),
                      Catch::Contains("t.csv: no target rows after the header"));
  REQUIRE_THROWS_WITH(parse("q,r,x,y,z,qw,qx,qy,qz\n", 1),
                      Catch::Contains("t.csv:1: the header has 9 columns; the chain "
                               "has 1 coordinates, so expected 8"));
}

}  // namespace
}  // namespace iklab
