#include "framework/bvh_writer.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "framework/bvh_loader.h"
#include "framework/kinematics.h"
#include "framework/model.h"
#include "lab/walk_cycle.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// A skeleton whose channel layout is not the usual one: a root with its
// rotations before its positions, a joint without channels, one with a
// single channel, and two End Sites on one joint.
const char* const kOddSkeleton = R"(HIERARCHY
ROOT Pelvis
{
  OFFSET 1 2 3
  CHANNELS 4 Yrotation Zposition Xposition Xrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 0
    JOINT Arm
    {
      OFFSET 5 0 0.25
      CHANNELS 1 Zrotation
      End Site
      {
        OFFSET 3 0 0
      }
      End Site
      {
        OFFSET 0 -3 0
      }
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.04
10 0.5 -1.25 20 45
-30 1.5 2 0 -90
0.1 0.2 0.3 0.4 0.5
)";

TEST_CASE(
    "Written BVH text reads back to the same skeleton, channels and poses, "
    "and writes to the same text again",
    "[framework][bvh]") {
  const BvhFigure original = LoadBvhFromString(kOddSkeleton, "odd");
  const std::string text = WriteBvh(original);
  const BvhFigure again = LoadBvhFromString(text, "written");
  REQUIRE(again.joints.size() == original.joints.size());
  for (std::size_t j = 0; j < again.joints.size(); ++j) {
    INFO(original.joints[j].name);
    CHECK(again.joints[j].name == original.joints[j].name);
    CHECK(again.joints[j].parent == original.joints[j].parent);
    CHECK(again.joints[j].offset == original.joints[j].offset);
    CHECK(again.joints[j].end_sites == original.joints[j].end_sites);
    CHECK(again.joints[j].num_channels == original.joints[j].num_channels);
  }
  REQUIRE(again.channels.size() == original.channels.size());
  for (std::size_t c = 0; c < again.channels.size(); ++c) {
    CHECK(again.channels[c].type == original.channels[c].type);
    CHECK(again.channels[c].q_index == original.channels[c].q_index);
  }
  CHECK(again.frame_time == original.frame_time);
  REQUIRE(again.poses.rows() == 3);
  CHECK((again.poses - original.poses).cwiseAbs().maxCoeff() < 1e-14);
  // The first frame line in degrees again (Yrotation 10 deg, Xrotation 45).
  CHECK(original.poses(0, original.channels[0].q_index) ==
        Approx(10 * M_PI / 180));
  CHECK(text.find("CHANNELS 4 Yrotation Zposition Xposition Xrotation") !=
        std::string::npos);
  CHECK(WriteBvh(again) == text);
}

TEST_CASE(
    "The procedural walk round-trips through the BVH writer and loader with "
    "the same FK on every frame",
    "[framework][bvh][lab]") {
  WalkCycleOptions options;
  options.frames = 60;
  const std::string text = WalkCycleBvh(options);
  const BvhFigure walk = LoadBvhFromString(text, "walk");
  REQUIRE(walk.num_frames() == 60);
  CHECK(walk.joints.size() == 21);
  const BvhFigure again = LoadBvhFromString(WriteBvh(walk), "again");
  const Model a = walk.figure.Compile();
  const Model b = again.figure.Compile();
  REQUIRE(a.nq() == b.nq());
  REQUIRE(a.num_sites() == b.num_sites());
  Data da(a), db(b);
  double worst = 0.0;
  for (int f = 0; f < walk.num_frames(); ++f) {
    ForwardKinematics(a, walk.poses.row(f).transpose(), &da);
    ForwardKinematics(b, again.poses.row(f).transpose(), &db);
    for (int s = 0; s < a.num_sites(); ++s) {
      worst = std::max(
          worst, (SitePosition(a, da, s) - SitePosition(b, db, s)).norm());
    }
  }
  CHECK(worst < 1e-10);  // centimetres
  // A walk: the root travels forward (+Z) by stride × duration / period, the
  // feet stay below the hips, the head above them.
  const double seconds = 59 * options.frame_time;
  CHECK(walk.poses(59, 2) - walk.poses(0, 2) ==
        Approx(options.stride * seconds / options.period));
  ForwardKinematics(a, walk.poses.row(30).transpose(), &da);
  const double hips = SitePosition(a, da, a.SiteIndex("Hips")).y();
  CHECK(SitePosition(a, da, a.SiteIndex("LeftAnkle")).y() < hips - 70);
  CHECK(SitePosition(a, da, a.SiteIndex("Head_End")).y() > hips + 60);
  // Same options, same text.
  CHECK(WalkCycleBvh(options) == text);
}

TEST_CASE("SaveBvh writes the file LoadBvh reads", "[framework][bvh]") {
  const BvhFigure original = LoadBvhFromString(kOddSkeleton, "odd");
  const std::string path = "bvh_writer_test.bvh";
  SaveBvh(original, path);
  const BvhFigure read = LoadBvh(path);
  std::remove(path.c_str());
  CHECK(read.num_frames() == 3);
  CHECK((read.poses - original.poses).cwiseAbs().maxCoeff() < 1e-14);
  REQUIRE_THROWS_WITH(SaveBvh(original, "/nonexistent/folder/x.bvh"),
                      Contains("/nonexistent/folder/x.bvh: cannot write"));
}

TEST_CASE("The BVH writer rejects figures it cannot write faithfully",
          "[framework][bvh]") {
  const BvhFigure good = LoadBvhFromString(kOddSkeleton, "odd");
  SECTION("no joints") {
    BvhFigure b;
    b.frame_time = 0.1;
    REQUIRE_THROWS_WITH(WriteBvh(b), Contains("bvh.joints is empty"));
  }
  SECTION("a frame time that is not positive") {
    BvhFigure b = good;
    b.frame_time = 0.0;
    REQUIRE_THROWS_WITH(WriteBvh(b),
                        Contains("bvh.frame_time must be a positive"));
  }
  SECTION("a parent after its child") {
    BvhFigure b = good;
    b.joints[1].parent = 2;
    REQUIRE_THROWS_WITH(WriteBvh(b), Contains("parents must come before"));
  }
  SECTION("channels that do not follow the joints") {
    BvhFigure b = good;
    b.joints[2].first_channel = 3;
    REQUIRE_THROWS_WITH(WriteBvh(b),
                        Contains("joint 'Arm' has first_channel 3"));
  }
  SECTION("a q_index outside the poses") {
    BvhFigure b = good;
    b.channels[4].q_index = 9;
    REQUIRE_THROWS_WITH(WriteBvh(b),
                        Contains("bvh.channels[4].q_index is 9; bvh.poses "
                                 "has 5 columns"));
  }
  SECTION("a NaN pose") {
    BvhFigure b = good;
    b.poses(1, 1) = std::nan("");
    REQUIRE_THROWS_WITH(WriteBvh(b), Contains("NaN or infinite"));
  }
  SECTION("a name on two lines") {
    BvhFigure b = good;
    b.joints[1].name = "Spi\nne";
    REQUIRE_THROWS_WITH(WriteBvh(b), Contains("bvh.joints[1] has name"));
  }
}

}  // namespace
}  // namespace iklab

namespace iklab {
namespace {

TEST_CASE(
    "The shipped motion data/motions/walk_cycle.bvh is the procedural walk "
    "(one cycle at 30 fps) and loads",
    "[framework][bvh][data]") {
  std::ifstream file(testing::ShippedDataFile("motions/walk_cycle.bvh"),
                     std::ios::binary);
  REQUIRE(file);
  std::ostringstream text;
  text << file.rdbuf();
  WalkCycleOptions options;
  options.frames = 34;
  options.frame_time = 1.0 / 30.0;
  CHECK(text.str() == WalkCycleBvh(options));
  CHECK(LoadBvhFromString(text.str(), "walk_cycle.bvh").num_frames() == 34);
}

}  // namespace
}  // namespace iklab
