// Every registered experiment runs in its reduced (quick) configuration and
// leaves a complete summary: claims with computed verdicts and reasons, the
// pictures it registered and, for a result with pictures, valid 3D scenes.

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

// The largest scene file an experiment may write in quick mode.
constexpr std::uintmax_t kMaxSceneBytes = 2 * 1024 * 1024;

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
      // A result drawn in pictures is drawn in 3D too: every scene reads
      // back valid (ReadScene), draws a figure from its kinematics and stays
      // small enough for a report page.
      if (!summary.at("figures").empty()) {
        CHECK_FALSE(summary.at("scenes").empty());
      }
      for (const auto& scene : summary.at("scenes")) {
        const std::string file = scene.at("file").get<std::string>();
        INFO(file);
        const std::filesystem::path path = dir / experiment.name / file;
        nlohmann::json read;
        REQUIRE_NOTHROW(read = ReadScene(path));
        CHECK(std::filesystem::file_size(path) <= kMaxSceneBytes);
        CHECK_FALSE(scene.at("caption").get<std::string>().empty());
        int figure_layers = 0;
        for (const auto& view : read.at("views")) {
          for (const auto& layer : view.at("layers")) {
            figure_layers += layer.at("type") == "figure";
          }
        }
        CHECK(figure_layers > 0);
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
