#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/bvh_loader.h"
#include "framework/kinematics.h"
#include "lab/walk_cycle.h"
#include "tests/cli/run_iklab.h"

namespace iklab {
namespace {

TEST_CASE(
    "iklab retarget solves a user's BVH file and writes the solved motion as "
    "BVH",
    "[cli][retargeting]") {
  const std::filesystem::path dir = "retarget_command_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string clip = (dir / "walk.bvh").string();
  WalkCycleOptions options;
  options.frames = 8;
  std::ofstream(clip) << WalkCycleBvh(options);

  const std::string out = (dir / "out").string();
  REQUIRE(RunIklab({"retarget", "--bvh", clip, "--out", out, "--frames", "5",
                 "--effectors", "LeftWrist,RightWrist,LeftAnkle,RightAnkle",
                 "--tolerance", "1e-3"}) == 0);
  const BvhFigure solved = LoadBvh(out + "/retargeted.bvh");
  CHECK(solved.num_frames() == 5);
  const BvhFigure original = LoadBvh(clip);
  const Model model = original.figure.Compile();
  Data a(model), b(model);
  for (int f = 0; f < 5; ++f) {
    ForwardKinematics(model, original.poses.row(f).transpose(), &a);
    ForwardKinematics(model, solved.poses.row(f).transpose(), &b);
    for (const char* site : {"LeftWrist", "RightAnkle"}) {
      const int s = model.SiteIndex(site);
      CHECK((SitePosition(model, a, s) - SitePosition(model, b, s)).norm() <
            1.01e-3);
    }
  }
  std::ifstream csv(out + "/frames.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  CHECK(lines == 1 + 5);

  SECTION("a malformed file is a usage error (exit code 2)") {
    const std::string bad = (dir / "bad.bvh").string();
    std::ofstream(bad) << "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n}\n";
    CHECK(RunIklab({"retarget", "--bvh", bad, "--out", out}) == 2);
  }
  SECTION("an unknown effector is a usage error (exit code 2)") {
    CHECK(RunIklab({"retarget", "--bvh", clip, "--out", out, "--effectors",
                 "LeftHand"}) == 2);
  }
  SECTION("a skeleton without channels is a usage error (exit code 2)") {
    const std::string still = (dir / "still.bvh").string();
    std::ofstream(still) << "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n"
                            "  End Site\n  {\n    OFFSET 0 -5 0\n  }\n}\n"
                            "MOTION\nFrames: 2\nFrame Time: 0.03\n";
    const std::string still_out = (dir / "still-out").string();
    CHECK(RunIklab({"retarget", "--bvh", still, "--out", still_out}) == 2);
    CHECK_FALSE(std::filesystem::exists(still_out));
    // As the skeleton to solve on, under a motion that has channels.
    CHECK(RunIklab({"retarget", "--bvh", clip, "--onto", still, "--out",
                 still_out}) == 2);
    CHECK_FALSE(std::filesystem::exists(still_out));
  }
  SECTION("--solver takes the registry's general solvers (exit code 2 else)") {
    const std::string dls_out = (dir / "dls-out").string();
    CHECK(RunIklab({"retarget", "--bvh", clip, "--out", dls_out, "--frames", "2",
                 "--solver", "dls", "--tolerance", "1e-3"}) == 0);
    CHECK(std::filesystem::exists(dls_out + "/retargeted.bvh"));
    for (const char* refused : {"fastest", "tolani", "extended-jacobian"}) {
      INFO(refused);
      CHECK(RunIklab({"retarget", "--bvh", clip, "--out", out, "--solver",
                   refused}) == 2);
    }
  }
  SECTION("a tolerance that is NaN, infinite, zero or negative is a usage "
          "error (exit code 2)") {
    for (const char* bad : {"nan", "inf", "0", "-1e-3"}) {
      INFO(bad);
      const std::string bad_out = (dir / "tolerance-out").string();
      CHECK(RunIklab({"retarget", "--bvh", clip, "--out", bad_out,
                      "--tolerance", bad}) == 2);
      CHECK_FALSE(std::filesystem::exists(bad_out + "/retargeted.bvh"));
    }
  }
  SECTION("a root translation too large for double precision is refused "
          "(exit code 2), not written as solved frames") {
    // Before, bounded LM returned heap contents for such frames and the
    // command exited 0.
    const std::string far = (dir / "far.bvh").string();
    std::ofstream(far) << "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n"
                          "  CHANNELS 6 Xposition Yposition Zposition "
                          "Zrotation Xrotation Yrotation\n"
                          "  JOINT Chest\n  {\n    OFFSET 0 10 0\n"
                          "    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                          "    End Site\n    {\n      OFFSET 0 10 0\n"
                          "    }\n  }\n}\n"
                          "MOTION\nFrames: 2\nFrame Time: 0.03\n"
                          "0 0 0 0 0 0 10 0 0\n"
                          "1e308 0 -1e308 0 0 0 10 0 0\n";
    const std::string far_out = (dir / "far-out").string();
    CHECK(RunIklab({"retarget", "--bvh", far, "--out", far_out}) == 2);
    CHECK_FALSE(std::filesystem::exists(far_out + "/retargeted.bvh"));
  }
  SECTION("a missing file is a usage error (exit code 2)") {
    CHECK(RunIklab({"retarget", "--bvh", (dir / "none.bvh").string()}) == 2);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace iklab
