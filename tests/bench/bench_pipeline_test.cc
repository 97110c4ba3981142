// The benchmark's parallel, streaming pipeline: target generation, solving,
// verification and output on several threads give the same targets, the
// same outcomes and the same file bytes as one thread.

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "bench/bench_command.h"
#include "bench/ik_benchmark.h"
#include "bench/target_csv.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

namespace fs = std::filesystem;

std::string FileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The file with its `column`th comma-separated field (0-based) of every
// line left out: the outcomes without their measured times.
std::string WithoutColumn(const std::string& text, int column) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    std::size_t begin = 0;
    for (int c = 0; c < column; ++c) begin = line.find(',', begin) + 1;
    const std::size_t end = line.find(',', begin);
    REQUIRE(end != std::string::npos);
    out += line.substr(0, begin) + line.substr(end + 1) + "\n";
  }
  return out;
}

std::shared_ptr<const Model> Panda() {
  return std::make_shared<const Model>(
      LoadUrdfChain(testing::ShippedDataFile("robots/panda.urdf"),
                    "panda_link0", "panda_hand")
          .figure.Compile());
}

bool SameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

TEST_CASE("Benchmark targets are the same bits on 1 and 3 threads and read "
          "back exactly from their CSV",
          "[bench]") {
  const auto panda = Panda();
  const int site = panda->SiteIndex("panda_hand");
  // More targets than one chunk of the pipeline holds.
  const int count = 3001;
  for (const SeedMode mode : {SeedMode::kMidLimits, SeedMode::kRandom}) {
    INFO(SeedModeName(mode));
    const auto one = GenerateTargets(*panda, site, count, 7, mode, 1);
    const auto three = GenerateTargets(*panda, site, count, 7, mode, 3);
    REQUIRE(one.size() == static_cast<std::size_t>(count));
    REQUIRE(three.size() == one.size());
    for (int k = 0; k < count; ++k) {
      REQUIRE(SameBits(one[k].seed, three[k].seed));
      REQUIRE(SameBits(one[k].target.matrix(), three[k].target.matrix()));
    }
    // Shortest round-trip numbers: the file gives back every bit.
    const fs::path dir = testing::ScratchPath("bench-targets");
    fs::create_directories(dir);
    WriteTargetsCsv((dir / "a.csv").string(), *panda, one, 1);
    WriteTargetsCsv((dir / "b.csv").string(), *panda, one, 3);
    CHECK(FileBytes(dir / "a.csv") == FileBytes(dir / "b.csv"));
    const auto back = ReadTargetsCsv((dir / "a.csv").string(), panda->nq());
    REQUIRE(back.size() == one.size());
    for (int k = 0; k < count; ++k) {
      REQUIRE(SameBits(back[k].seed, one[k].seed));
      REQUIRE(back[k].target.translation() == one[k].target.translation());
      // The rotation goes through its quaternion (normalized on reading).
      REQUIRE((back[k].target.linear() - one[k].target.linear())
                  .cwiseAbs()
                  .maxCoeff() < 1e-14);
    }
    fs::remove_all(dir);
  }
}

TEST_CASE("RunTargets streams the same outcome rows as writing them after, "
          "in target order on any thread count",
          "[bench]") {
  const auto panda = Panda();
  const int site = panda->SiteIndex("panda_hand");
  const auto targets =
      GenerateTargets(*panda, site, 700, 3, SeedMode::kRandom, 2);
  BenchmarkSettings settings;
  settings.time_budget_seconds = 10.0;  // never binds: reproducible
  settings.threads = 2;
  const fs::path dir = testing::ScratchPath("bench-stream");
  fs::create_directories(dir);
  const BenchmarkSolver solver = PoseSolvers()[0];
  REQUIRE(solver.name == "bounded-lm");
  std::vector<int> progress;
  OutcomesCsvWriter writer((dir / "streamed.csv").string(), *panda,
                           solver.name, false);
  const auto outcomes = RunTargets(
      panda, site, targets, solver, settings,
      [&](int done) { progress.push_back(done); }, &writer);
  writer.Close();
  REQUIRE(outcomes.size() == targets.size());
  REQUIRE_FALSE(progress.empty());
  CHECK(progress.back() == 700);
  CHECK(std::is_sorted(progress.begin(), progress.end()));
  // The rows streamed during the solves are those of the finished outcomes.
  WriteOutcomesCsv((dir / "after.csv").string(), *panda, solver.name,
                   outcomes, false, 3);
  CHECK(FileBytes(dir / "streamed.csv") == FileBytes(dir / "after.csv"));

  // One thread: the same answers (bits), the same verdicts.
  settings.threads = 1;
  const auto serial = RunTargets(panda, site, targets, solver, settings);
  int successes = 0;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    INFO("target " << k);
    REQUIRE(serial[k].status == outcomes[k].status);
    REQUIRE(serial[k].success == outcomes[k].success);
    REQUIRE(SameBits(serial[k].q, outcomes[k].q));
    successes += serial[k].success;
  }
  CHECK(successes == 700);

  // A seed of the wrong size is refused with the target named.
  auto bad = targets;
  bad[5].seed.resize(3);
  REQUIRE_THROWS_WITH(RunTargets(panda, site, bad, solver, settings),
                      Catch::Contains("target 5's seed must have 7"));
  fs::remove_all(dir);
}

TEST_CASE("iklab bench writes the same files on 1 and 2 threads, but for the "
          "measured times",
          "[bench]") {
  const fs::path dir = testing::ScratchPath("bench-threads");
  std::vector<std::string> runs;
  for (const int threads : {1, 2}) {
    BenchCommandOptions o;
    o.data_dir = testing::ShippedDataFile("");
    o.robots = {"panda"};
    o.solvers = {"bounded-lm", "bounded-lm-simd"};
    o.targets = 1500;
    o.seed = 11;
    o.budget_ms = 10000.0;  // never binds: reproducible
    o.threads = threads;
    o.out_dir = (dir / std::to_string(threads)).string();
    REQUIRE(RunBenchCommand(o) == 0);
    runs.push_back(o.out_dir);
  }
  for (const char* mode : {"mid-limits", "random"}) {
    INFO(mode);
    const std::string stem = std::string("/panda_") + mode;
    CHECK(FileBytes(runs[0] + stem + "_targets.csv") ==
          FileBytes(runs[1] + stem + "_targets.csv"));
    const std::string a = FileBytes(runs[0] + stem + "_outcomes.csv");
    const std::string b = FileBytes(runs[1] + stem + "_outcomes.csv");
    // Both solvers' rows: a header and 2 × 1500 rows.
    CHECK(std::count(a.begin(), a.end(), '\n') == 3001);
    CHECK(WithoutColumn(a, 4) == WithoutColumn(b, 4));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace iklab
