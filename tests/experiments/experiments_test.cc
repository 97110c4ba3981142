// Every registered experiment runs in its reduced (quick) configuration and
// leaves a complete summary: claims with computed verdicts and reasons, and
// the pictures it registered.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "experiments/experiments_list.h"
#include "lab/report.h"
#include "lab/scene.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

TEST_CASE("Every registered experiment runs in quick mode and writes a "
          "complete summary",
          "[experiments]") {
  const std::filesystem::path dir =
      testing::ScratchPath("iklab_experiments_test");
  std::filesystem::remove_all(dir);
  ExperimentContext context;
  context.seed = 1;
  context.quick = true;
  REQUIRE_FALSE(AllExperiments().empty());
  for (const Experiment& experiment : AllExperiments()) {
    SECTION(experiment.name) {
      const ExperimentRun run = RunExperiment(experiment, context, dir);
      INFO(experiment.name << ": " << run.error);
      REQUIRE(run.error.empty());
      const std::filesystem::path summary_path =
          dir / experiment.name / "summary.json";
      REQUIRE(std::filesystem::exists(summary_path));
      std::ifstream in(summary_path);
      const nlohmann::json summary = nlohmann::json::parse(in);
      REQUIRE(summary.at("claims").is_array());
      CHECK_FALSE(summary.at("claims").empty());
      for (const auto& claim : summary.at("claims")) {
        const std::string verdict = claim.at("verdict").get<std::string>();
        CHECK((verdict == "reproduced" || verdict == "differs"));
        CHECK_FALSE(claim.at("reason").get<std::string>().empty());
        CHECK_FALSE(claim.at("ours").get<std::string>().empty());
        CHECK_FALSE(claim.at("paper").get<std::string>().empty());
      }
      for (const auto& scene : summary.at("scenes")) {
        const std::string file = scene.at("file").get<std::string>();
        INFO(file);
        CHECK_NOTHROW(ReadScene(dir / experiment.name / file));
      }
      for (const auto& figure : summary.at("figures")) {
        const std::string file = figure.at("file").get<std::string>();
        INFO(file);
        CHECK(std::filesystem::exists(dir / experiment.name / file));
      }
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace iklab
