#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "framework/bvh_loader.h"
#include "framework/bvh_writer.h"
#include "framework/kinematics.h"
#include "lab/retargeting.h"
#include "lab/walk_cycle.h"
#include "tests/cli/run_iklab.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

TEST_CASE(
    "iklab retarget solves a user's BVH file and writes the solved motion as "
    "BVH",
    "[cli][retargeting]") {
  const std::filesystem::path dir = testing::ScratchPath("retarget_command_test");
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

TEST_CASE(
    "iklab retarget puts a walk on the human figure and on a renamed "
    "skeleton through a map file, with metrics",
    "[cli][retargeting]") {
  const std::filesystem::path dir = testing::ScratchPath("retarget_command_onto_test");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string clip = (dir / "walk.bvh").string();
  WalkCycleOptions options;
  options.frames = 10;
  std::ofstream(clip) << WalkCycleBvh(options);

  SECTION("onto the human figure: joint trajectories and metrics") {
    const std::string out = (dir / "human").string();
    REQUIRE(RunIklab({"retarget", "--bvh", clip, "--onto", "human:1.6",
                      "--out", out}) == 0);
    CHECK_FALSE(std::filesystem::exists(out + "/retargeted.bvh"));
    std::ifstream joints(out + "/joints.csv");
    std::string header, line;
    std::getline(joints, header);
    CHECK(header.rfind("frame,time,root.tx,", 0) == 0);
    int lines = 0;
    while (std::getline(joints, line)) ++lines;
    CHECK(lines == 10);
    const nlohmann::json metrics =
        nlohmann::json::parse(std::ifstream(out + "/metrics.json"));
    CHECK(metrics.at("frames") == 10);
    // Key points within 5 cm on a 1.6 m figure (the human figure's joints
    // differ from the walk's skeleton; its limits bound the answer).
    CHECK(metrics.at("tracking_max").get<double>() < 0.05);
    CHECK(metrics.at("limit_violations") == 0);
    CHECK(metrics.at("ms_per_frame_median").get<double>() > 0.0);
  }
  SECTION("onto a skeleton with other joint names, by a map file") {
    const BvhFigure walk = LoadBvh(clip);
    BvhFigure other = ScaledSkeleton(walk, [](int) { return 1.5; });
    std::string map = "# walk onto renamed\n";
    for (BvhJoint& joint : other.joints) {
      map += "pair " + joint.name + " x_" + joint.name + " 1 1\n";
      if (!joint.end_sites.empty()) {
        map += "pair " + joint.name + "_End x_" + joint.name + "_End 1 0\n";
      }
      joint.name = "x_" + joint.name;
    }
    map += "foot LeftToe_End\nfoot RightToe_End\n";
    const std::string skeleton = (dir / "renamed.bvh").string();
    const std::string map_file = (dir / "renamed.map").string();
    SaveBvh(other, skeleton);
    std::ofstream(map_file) << map;
    const std::string out = (dir / "renamed").string();
    REQUIRE(RunIklab({"retarget", "--bvh", clip, "--onto", skeleton, "--map",
                      map_file, "--out", out}) == 0);
    const BvhFigure solved = LoadBvh(out + "/retargeted.bvh");
    CHECK(solved.joints[0].name == "x_Hips");
    CHECK(solved.num_frames() == 10);
    // The same joint angles on bones 1.5 times as long.
    for (int f = 0; f < 10; ++f) {
      for (int i = 6; i < walk.poses.cols(); ++i) {
        INFO("frame " << f << " coordinate " << i);
        CHECK(std::abs(solved.poses(f, i) - walk.poses(f, i)) < 5e-3);
      }
    }
  }
  SECTION("a map naming an unknown joint is a usage error (exit code 2)") {
    const std::string map_file = (dir / "bad.map").string();
    std::ofstream(map_file) << "pair Hips Hips\npair LeftFoot LeftFoot\n";
    const std::string out = (dir / "bad-out").string();
    CHECK(RunIklab({"retarget", "--bvh", clip, "--map", map_file, "--out",
                    out}) == 2);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  SECTION("hard contacts with a constrained solver") {
    const std::string out = (dir / "hard").string();
    CHECK(RunIklab({"retarget", "--bvh", clip, "--frames", "3", "--contacts",
                    "hard", "--solver", "slsqp", "--out", out}) == 0);
    CHECK(std::filesystem::exists(out + "/metrics.csv"));
    CHECK(RunIklab({"retarget", "--bvh", clip, "--frames", "3", "--contacts",
                    "hard", "--out", out}) == 2);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace iklab
