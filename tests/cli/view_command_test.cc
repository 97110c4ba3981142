#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "lab/walk_cycle.h"
#include "tests/cli/run_iklab.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

namespace fs = std::filesystem;

std::string Contents(const fs::path& path) {
  std::ifstream file(path);
  return {std::istreambuf_iterator<char>(file), {}};
}

TEST_CASE("iklab view writes an offline page for a motion file",
          "[cli][scene]") {
  const fs::path dir = testing::ScratchPath("view_command_test");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path clip = dir / "walk.bvh";
  WalkCycleOptions options;
  options.frames = 6;
  std::ofstream(clip) << WalkCycleBvh(options);

  const fs::path out = dir / "page";
  REQUIRE(RunIklab({"view", clip.string(), "--out", out.string(), "--no-open"}) ==
          0);
  const std::string page = Contents(out / "scene.html");
  CHECK(page.find("iklab-scene") != std::string::npos);
  // The joints of the walk are in the embedded scene; the page's scripts are
  // beside it, none from the network.
  CHECK(page.find("LeftWrist") != std::string::npos);
  CHECK(page.find("http://") == std::string::npos);
  CHECK(page.find("https://") == std::string::npos);
  CHECK(fs::exists(out / "assets" / "three.min.js"));
  CHECK(fs::exists(out / "assets" / "viewer.js"));
}

TEST_CASE("iklab view opens a report folder's own page", "[cli][scene]") {
  const fs::path dir = testing::ScratchPath("view_command_report");
  fs::remove_all(dir);
  fs::create_directories(dir / "study");
  std::ofstream(dir / "index.html") << "<html></html>";
  std::ofstream(dir / "study.html") << "<html></html>";
  // Neither writes anything: the pages exist.
  CHECK(RunIklab({"view", dir.string(), "--no-open"}) == 0);
  CHECK(RunIklab({"view", (dir / "study").string() + "/", "--no-open"}) == 0);
  CHECK(!fs::exists(dir / "scene.html"));
}

TEST_CASE("iklab view of a missing or foreign file exits 2", "[cli][scene]") {
  const fs::path dir = testing::ScratchPath("view_command_bad");
  fs::remove_all(dir);
  fs::create_directories(dir);
  CHECK(RunIklab({"view", (dir / "missing.json").string(), "--no-open"}) == 2);
  std::ofstream(dir / "notes.txt") << "not a scene";
  CHECK(RunIklab({"view", (dir / "notes.txt").string(), "--no-open"}) == 2);
  std::ofstream(dir / "other.json") << R"({"format": "other", "version": 1})";
  CHECK(RunIklab({"view", (dir / "other.json").string(), "--no-open"}) == 2);
  std::ofstream(dir / "newer.json")
      << R"({"format": "iklab-scene", "version": 99})";
  CHECK(RunIklab({"view", (dir / "newer.json").string(), "--no-open"}) == 2);
  CHECK(RunIklab({"view", dir.string(), "--no-open"}) == 2);  // no scene in it
}

}  // namespace
}  // namespace iklab
