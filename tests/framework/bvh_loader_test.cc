#include "framework/bvh_loader.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/kinematics.h"
#include "framework/model.h"
#include "lab/walk_cycle.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// An upstream motion-capture file (cross-checks only; the test must start
// with IKLAB_SKIP_WITHOUT_UPSTREAM_DATA()).
std::string SkeletonPath(const std::string& file) {
  return testing::UpstreamDataFile("skeletons/" + file);
}

// Line k (1-based) of the result is lines[k - 1].
std::string BvhLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

constexpr double kDeg = M_PI / 180.0;

Eigen::Isometry3d Translate(double x, double y, double z) {
  return Eigen::Isometry3d(Eigen::Translation3d(x, y, z));
}
Eigen::Isometry3d Rot(const Eigen::Vector3d& axis, double degrees) {
  return Eigen::Isometry3d(Eigen::AngleAxisd(degrees * kDeg, axis));
}
const Eigen::Vector3d kX = Eigen::Vector3d::UnitX();
const Eigen::Vector3d kY = Eigen::Vector3d::UnitY();
const Eigen::Vector3d kZ = Eigen::Vector3d::UnitZ();

// A small skeleton exercising every mapping: a usual 6-channel root, a
// 3-rotation joint in X Z Y order, a 1-channel joint, a 2-channel joint
// (a position after a rotation) and End Sites.
const std::vector<std::string> kSmall = {
    "HIERARCHY",       // 1
    "ROOT Hips",       // 2
    "{",               // 3
    "  OFFSET 1 2 3",  // 4
    "  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation",
    "  JOINT Chest",                                 // 6
    "  {",                                           // 7
    "    OFFSET 0 5 0",                              // 8
    "    CHANNELS 3 Xrotation Zrotation Yrotation",  // 9
    "    JOINT Head",                                // 10
    "    {",                                         // 11
    "      OFFSET 0 2 1",                            // 12
    "      CHANNELS 1 Yrotation",                    // 13
    "      End Site",                                // 14
    "      {",                                       // 15
    "        OFFSET 0 1 0",                          // 16
    "      }",                                       // 17
    "    }",                                         // 18
    "  }",                                           // 19
    "  JOINT Leg",                                   // 20
    "  {",                                           // 21
    "    OFFSET 1 -4 0",                             // 22
    "    CHANNELS 2 Zrotation Xposition",            // 23
    "    End Site { OFFSET 0 -3 0 }",                // 24
    "  }",                                           // 25
    "}",                                             // 26
    "MOTION",                                        // 27
    "Frames: 2",                                     // 28
    "Frame Time: 0.04",                              // 29
    "0 0 0 0 0 0 0 0 0 0 0 0",                       // 30
    "0.5 -1 2 30 -20 10 15 40 -25 60 35 0.75",       // 31
};

void CheckPose(const Eigen::Isometry3d& actual,
               const Eigen::Isometry3d& expected) {
  CHECK((actual.matrix() - expected.matrix()).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE(
    "FK of a small BVH matches offsets and channel rotations composed "
    "with AngleAxis",
    "[framework]") {
  const BvhFigure bvh = LoadBvhFromString(BvhLines(kSmall), "small.bvh");
  REQUIRE(bvh.channels.size() == 12);
  REQUIRE(bvh.num_frames() == 2);
  CHECK(bvh.frame_time == 0.04);
  CHECK(bvh.root_link == "world");
  const Model model = bvh.figure.Compile();
  REQUIRE(model.nq() == 12);
  Data data(model);
  ForwardKinematics(model, bvh.poses.row(1).transpose(), &data);
  auto site = [&](const char* name) {
    return SitePose(model, data, model.SiteIndex(name));
  };

  // Frame line 31, composed straight from the numbers above.
  const Eigen::Isometry3d hips = Translate(1, 2, 3) * Translate(0.5, -1, 2) *
                                 Rot(kZ, 30) * Rot(kY, -20) * Rot(kX, 10);
  const Eigen::Isometry3d chest =
      hips * Translate(0, 5, 0) * Rot(kX, 15) * Rot(kZ, 40) * Rot(kY, -25);
  const Eigen::Isometry3d head = chest * Translate(0, 2, 1) * Rot(kY, 60);
  // Leg: Zrotation then Xposition; the position translates in the parent
  // frame (see bvh_loader.h).
  const Eigen::Isometry3d leg =
      hips * Translate(1, -4, 0) * Translate(0.75, 0, 0) * Rot(kZ, 35);
  CheckPose(site("Hips"), hips);
  CheckPose(site("Chest"), chest);
  CheckPose(site("Head"), head);
  CheckPose(site("Leg"), leg);
  CHECK((site("Head_End").translation() - head * Eigen::Vector3d(0, 1, 0))
            .norm() < 1e-12);
  CHECK(
      (site("Leg_End").translation() - leg * Eigen::Vector3d(0, -3, 0)).norm() <
      1e-12);

  // Frame 0 is the rest pose: positions are the summed offsets.
  ForwardKinematics(model, bvh.poses.row(0).transpose(), &data);
  CHECK(site("Head_End").translation().isApprox(Eigen::Vector3d(1, 10, 4)));

  // Channel c of a frame line drives coordinate q_index; only Leg's two
  // channels (rotation listed before position) are permuted.
  for (int c = 0; c < 10; ++c) CHECK(bvh.channels[c].q_index == c);
  CHECK(bvh.channels[10].q_index == 11);  // Zrotation → Leg.Zrotation
  CHECK(bvh.channels[11].q_index == 10);  // Xposition → Leg.Xposition
  CHECK(bvh.poses(1, 11) == Approx(35 * kDeg));
  CHECK(bvh.poses(1, 10) == 0.75);
  CHECK(bvh.joints[bvh.channels[10].joint].name == "Leg");
}

TEST_CASE(
    "A BVH root with an unusual channel order becomes prismatic and "
    "revolute steps",
    "[framework]") {
  const std::string text = BvhLines({
      "HIERARCHY",
      "ROOT Pelvis {",
      "  OFFSET 0 0 0",
      "  CHANNELS 4 Yrotation Zposition Xrotation Xposition",
      "  End Site {",
      "    OFFSET 0 0 2",
      "  }",
      "}",
      "ROOT Prop {",  // a second root
      "  OFFSET 5 0 0",
      "}",
      "MOTION",
      "Frames: 1",
      "Frame Time: 1",
      "30 -1.5 45 2",
  });
  const BvhFigure bvh = LoadBvhFromString(text);
  const Model model = bvh.figure.Compile();
  REQUIRE(model.nq() == 4);
  Data data(model);
  ForwardKinematics(model, bvh.poses.row(0).transpose(), &data);
  const Eigen::Isometry3d pelvis =
      Translate(2, 0, -1.5) * Rot(kY, 30) * Rot(kX, 45);
  CheckPose(SitePose(model, data, model.SiteIndex("Pelvis")), pelvis);
  CHECK((SitePosition(model, data, model.SiteIndex("Pelvis_End")) -
         pelvis * Eigen::Vector3d(0, 0, 2))
            .norm() < 1e-12);
  CHECK(SitePosition(model, data, model.SiteIndex("Prop"))
            .isApprox(Eigen::Vector3d(5, 0, 0)));
  CHECK(model.dof_name(bvh.channels[0].q_index) == "Pelvis.Yrotation");
  CHECK(model.dof_name(bvh.channels[1].q_index) == "Pelvis.Zposition");
}

TEST_CASE("Every upstream CMU clip loads with its joints, channels and frames",
          "[framework]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  struct Expected {
    const char* file;
    int frames;
    std::vector<std::string> leg;  // root → toe, from the data README
    std::vector<std::string> arm;  // root → fingers
  };
  const Expected skeletons[] = {
      {"cmu_131_01_start_walk_stop.bvh",
       994,
       {"Hips", "LHipJoint", "LeftHip", "LeftKnee", "LeftAnkle", "LeftToe"},
       {"Hips", "lowerback", "Chest", "Chest2", "LeftCollar", "LeftShoulder",
        "LeftElbow", "LeftWrist", "lhand", "LFingers"}},
      {"cmu_131_03_start_hop_stop.bvh",
       1102,
       {"Hips", "LHipJoint", "LeftHip", "LeftKnee", "LeftAnkle", "LeftToe"},
       {"Hips", "lowerback", "Chest", "Chest2", "LeftCollar", "LeftShoulder",
        "LeftElbow", "LeftWrist", "lhand", "LFingers"}},
      {"cmu_01_01_playground_jumps.bvh",
       2752,
       {"Hips", "LHipJoint", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase"},
       {"Hips", "LowerBack", "Spine", "Spine1", "LeftShoulder", "LeftArm",
        "LeftForeArm", "LeftHand", "LeftFingerBase", "LFingers"}},
  };
  for (const Expected& e : skeletons) {
    INFO(e.file);
    const BvhFigure bvh = LoadBvh(SkeletonPath(e.file));
    CHECK(bvh.joints.size() == 31);
    CHECK(bvh.channels.size() == 96);
    CHECK(bvh.num_frames() == e.frames);
    CHECK(bvh.frame_time == 0.0083333);
    int end_sites = 0;
    for (const BvhJoint& j : bvh.joints) {
      end_sites += static_cast<int>(j.end_sites.size());
      CHECK(j.num_channels == (j.parent < 0 ? 6 : 3));
    }
    CHECK(end_sites == 7);
    const Model model = bvh.figure.Compile();
    CHECK(model.nq() == 96);
    CHECK(model.num_sites() == 31 + 7);
    CHECK(model.dof_name(0) == "Hips.tx");
    CHECK(model.dof_name(5) == "Hips.rx");
    CHECK(bvh.poses.rows() == e.frames);
    CHECK(bvh.poses.cols() == 96);
    for (int c = 0; c < 96; ++c) CHECK(bvh.channels[c].q_index == c);
    // The README's chains, as parent links.
    std::map<std::string, std::string> parent;
    for (const BvhJoint& j : bvh.joints) {
      parent[j.name] = j.parent < 0 ? "" : bvh.joints[j.parent].name;
    }
    for (const auto* chain : {&e.leg, &e.arm}) {
      for (std::size_t i = 1; i < chain->size(); ++i) {
        CHECK(parent[(*chain)[i]] == (*chain)[i - 1]);
      }
    }
    CHECK(bvh.poses.allFinite());
  }
}

// An independent reading of a well-formed BVH file for the test: whitespace
// tokens, a stack for the braces, and the motion as one list of numbers.
struct TestSkeleton {
  struct Node {
    std::string name;
    int parent = -1;
    Eigen::Vector3d offset = Eigen::Vector3d::Zero();
    std::vector<std::string> channels;
    bool end_site = false;
  };
  std::vector<Node> nodes;
  std::vector<double> motion;
  int num_channels = 0;
};

TestSkeleton ReadForTest(const std::string& path) {
  std::ifstream in(path);
  TestSkeleton s;
  std::vector<int> stack;
  std::string word;
  while (in >> word && word != "MOTION") {
    if (word == "ROOT" || word == "JOINT" || word == "End") {
      TestSkeleton::Node n;
      in >> n.name;  // "Site" for an End Site
      n.end_site = word == "End";
      n.parent = stack.empty() ? -1 : stack.back();
      s.nodes.push_back(n);
    } else if (word == "{") {
      stack.push_back(static_cast<int>(s.nodes.size()) - 1);
    } else if (word == "}") {
      stack.pop_back();
    } else if (word == "OFFSET") {
      auto& o = s.nodes.back().offset;
      in >> o.x() >> o.y() >> o.z();
    } else if (word == "CHANNELS") {
      int n;
      in >> n;
      s.num_channels += n;
      s.nodes.back().channels.resize(n);
      for (auto& c : s.nodes.back().channels) in >> c;
    }
  }
  in >> word >> word >> word >> word >> word;  // Frames: N Frame Time: t
  double v;
  while (in >> v) s.motion.push_back(v);
  return s;
}

// Checks FK of frames first, middle and last of the BVH file at `path`
// against an independent recursion over the file's text.
void CheckFkAgainstFile(const std::string& path) {
  INFO(path);
  const TestSkeleton file = ReadForTest(path);
  const BvhFigure bvh = LoadBvh(path);
  const Model model = bvh.figure.Compile();
  const int channels = file.num_channels;
  REQUIRE(channels == model.nq());
  REQUIRE(file.motion.size() ==
          static_cast<std::size_t>(bvh.num_frames()) * channels);
  Data data(model);

  for (const int frame : {0, bvh.num_frames() / 2, bvh.num_frames() - 1}) {
    INFO("frame " << frame);
    const double* values = &file.motion[frame * channels];
    ForwardKinematics(model, bvh.poses.row(frame).transpose(), &data);
    // World transforms node by node (parents come first in the file).
    std::vector<Eigen::Isometry3d> X(file.nodes.size());
    int next = 0;
    for (std::size_t i = 0; i < file.nodes.size(); ++i) {
      const auto& n = file.nodes[i];
      Eigen::Isometry3d local =
          Translate(n.offset.x(), n.offset.y(), n.offset.z());
      for (const std::string& c : n.channels) {
        const double v = values[next++];
        const Eigen::Vector3d axis = c[0] == 'X' ? kX : c[0] == 'Y' ? kY : kZ;
        if (c.find("position") != std::string::npos) {
          local = local * Eigen::Translation3d(v * axis);
        } else {
          local = local * Rot(axis, v);
        }
      }
      X[i] = n.parent < 0 ? local : X[n.parent] * local;
      const std::string site =
          n.end_site ? file.nodes[n.parent].name + "_End" : n.name;
      INFO(site);
      CHECK((SitePosition(model, data, model.SiteIndex(site)) -
             X[i].translation())
                .norm() < 1e-9);
    }
    // The left wrist, explicitly, in file units.
    const Eigen::Vector3d wrist =
        SitePosition(model, data, model.SiteIndex("LeftWrist"));
    CHECK(wrist.allFinite());
  }
}

TEST_CASE(
    "FK of the procedural walk's frames matches an independent recursion "
    "over its BVH file",
    "[framework]") {
  const std::string path = "bvh_loader_test_walk.bvh";
  std::ofstream(path, std::ios::binary) << WalkCycleBvh();
  CheckFkAgainstFile(path);
  std::remove(path.c_str());
}

TEST_CASE(
    "FK of a real BVH frame matches an independent recursion over the "
    "file",
    "[framework]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  const std::string path = SkeletonPath("cmu_131_01_start_walk_stop.bvh");
  CHECK(ReadForTest(path).motion.size() == 994u * 96u);
  CheckFkAgainstFile(path);
}

TEST_CASE("BVH values are read in order, in radians, from mixed CRLF/LF files",
          "[framework]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  const std::string path = SkeletonPath("cmu_01_01_playground_jumps.bvh");
  const BvhFigure bvh = LoadBvh(path);
  // First frame line of the file: "9.3722 17.8693 -17.3198 0 0 0 0 0 0 -17 ..."
  CHECK(bvh.poses(0, 0) == 9.3722);
  CHECK(bvh.poses(0, 1) == 17.8693);
  CHECK(bvh.poses(0, 2) == -17.3198);
  CHECK(bvh.poses(0, 9) == Approx(-17 * kDeg));
  // The last line of the file, read here.
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  std::istringstream values(last);
  for (int c = 0; c < 96; ++c) {
    double v;
    REQUIRE(values >> v);
    const double expected = c < 3 ? v : v * kDeg;
    CHECK(bvh.poses(bvh.num_frames() - 1, c) == Approx(expected).margin(1e-15));
  }
  // 131_01 has CRLF hierarchy lines and LF motion lines.
  CHECK(LoadBvh(SkeletonPath("cmu_131_01_start_walk_stop.bvh")).num_frames() ==
        994);
}

// kSmall with line `line` (1-based) replaced.
std::string SmallWith(int line, const std::string& text) {
  std::vector<std::string> lines = kSmall;
  lines[line - 1] = text;
  return BvhLines(lines);
}

TEST_CASE("Malformed BVH input is rejected with file:line and the problem",
          "[framework]") {
  auto load = [](const std::string& text) {
    return LoadBvhFromString(text, "bad.bvh");
  };
  SECTION("no HIERARCHY") {
    REQUIRE_THROWS_WITH(
        load("\nROOT Hips\n"),
        Contains("bad.bvh:2: expected 'HIERARCHY' at the start of a BVH "
                 "file, got 'ROOT'"));
    REQUIRE_THROWS_WITH(load(""), Contains("bad.bvh:1: expected 'HIERARCHY'"));
  }
  SECTION("a missing '{'") {
    REQUIRE_THROWS_WITH(load(SmallWith(7, "")),
                        Contains("bad.bvh:8: expected '{' after JOINT 'Chest', "
                                 "got 'OFFSET'"));
  }
  SECTION("a missing '}'") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(26, "")),
        Contains("bad.bvh:27: expected 'JOINT', 'End Site' or '}' in joint "
                 "'Hips' (line 2), got 'MOTION'"));
  }
  SECTION("an extra '}'") {
    REQUIRE_THROWS_WITH(load(SmallWith(26, "}}")),
                        Contains("bad.bvh:26: expected 'ROOT' or 'MOTION' "
                                 "after the hierarchy, got '}'"));
  }
  SECTION("fewer channel names than the count") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(9, "    CHANNELS 3 Xrotation Zrotation")),
        Contains("bad.bvh:10: CHANNELS of joint 'Chest' (line 9) declares 3 "
                 "channels but lists 2: 'JOINT' is not a channel name"));
  }
  SECTION("an unknown channel name") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(13, "      CHANNELS 1 Wrotation")),
        Contains("bad.bvh:13: CHANNELS of joint 'Head' (line 13) declares 1 "
                 "channels but lists 0: 'Wrotation' is not a channel name"));
  }
  SECTION("a channel listed twice") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(9, "    CHANNELS 3 Xrotation Zrotation Xrotation")),
        Contains("bad.bvh:9: CHANNELS of joint 'Chest' lists Xrotation twice"));
  }
  SECTION("a bad channel count") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(13, "      CHANNELS -1 Yrotation")),
        Contains("bad.bvh:13: CHANNELS count of joint 'Head' must be a "
                 "non-negative integer; got '-1'"));
  }
  SECTION("an OFFSET that is not a number") {
    REQUIRE_THROWS_WITH(load(SmallWith(8, "    OFFSET 0 five 0")),
                        Contains("bad.bvh:8: 'five' is not a number (OFFSET y "
                                 "of joint 'Chest')"));
    REQUIRE_THROWS_WITH(load(SmallWith(8, "    OFFSET 0 nan 0")),
                        Contains("bad.bvh:8: OFFSET y of joint 'Chest' must be "
                                 "finite; got 'nan'"));
  }
  SECTION("an OFFSET with two numbers") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(8, "    OFFSET 0 5")),
        Contains("bad.bvh:9: 'CHANNELS' is not a number (OFFSET z of joint "
                 "'Chest')"));
  }
  SECTION("an End Site without its OFFSET") {
    REQUIRE_THROWS_WITH(load(SmallWith(16, "")),
                        Contains("bad.bvh:17: expected 'OFFSET' in the End "
                                 "Site of joint 'Head', got '}'"));
  }
  SECTION("a motion line with too few values") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(31, "0.5 -1 2 30 -20 10 15 40 -25 60 35")),
        Contains("bad.bvh:31: frame 2 has 11 values; the hierarchy declares "
                 "12 channels"));
  }
  SECTION("a motion line with too many values") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(30, "0 0 0 0 0 0 0 0 0 0 0 0 0")),
        Contains("bad.bvh:30: frame 1 has more than the 12 values the "
                 "hierarchy declares"));
  }
  SECTION("a non-number in the motion") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(31, "0.5 -1 2 30 -20 10 15 4O -25 60 35 0")),
        Contains("bad.bvh:31: '4O' is not a number (frame 2, value 8)"));
  }
  SECTION("NaN and Inf in the motion") {
    REQUIRE_THROWS_WITH(
        load(SmallWith(31, "0.5 -1 2 30 -20 10 15 NaN -25 60 35 0")),
        Contains("bad.bvh:31: frame 2, value 8 must be finite; got 'NaN'"));
    REQUIRE_THROWS_WITH(
        load(SmallWith(30, "inf 0 0 0 0 0 0 0 0 0 0 0")),
        Contains("bad.bvh:30: frame 1, value 1 must be finite; got 'inf'"));
  }
  SECTION("fewer frame lines than 'Frames:' declares (truncated file)") {
    std::vector<std::string> lines = kSmall;
    lines.pop_back();
    REQUIRE_THROWS_WITH(
        load(BvhLines(lines)),
        Contains("bad.bvh:31: the file ends after 1 of the 2 frames declared "
                 "by 'Frames:' (line 28)"));
  }
  SECTION("a file cut inside the hierarchy") {
    std::string text = BvhLines(kSmall);
    text = text.substr(0, text.find("JOINT Leg"));
    REQUIRE_THROWS_WITH(load(text),
                        Contains("bad.bvh:20: unexpected end of the file: "
                                 "joint 'Hips' (line 2) is not closed by '}'"));
    text = BvhLines(kSmall);
    text = text.substr(0, text.find(" Zrotation Yrotation Xrotation"));
    REQUIRE_THROWS_WITH(
        load(text),
        Contains("bad.bvh:5: CHANNELS of joint 'Hips' (line 5) declares 6 "
                 "channels but the file ends after 3"));
  }
  SECTION("more frame lines than declared") {
    std::vector<std::string> lines = kSmall;
    lines.push_back("0 0 0 0 0 0 0 0 0 0 0 0");
    REQUIRE_THROWS_WITH(load(BvhLines(lines)),
                        Contains("bad.bvh:32: more frame lines than the 2 "
                                 "declared by 'Frames:' (line 28)"));
  }
  SECTION("a bad frame count or frame time") {
    REQUIRE_THROWS_WITH(load(SmallWith(28, "Frames: -2")),
                        Contains("bad.bvh:28: the frame count must be a "
                                 "non-negative integer; got '-2'"));
    REQUIRE_THROWS_WITH(load(SmallWith(28, "Frames 2")),
                        Contains("bad.bvh:28: expected 'Frames:' after MOTION, "
                                 "got 'Frames'"));
    REQUIRE_THROWS_WITH(
        load(SmallWith(29, "Frame Time: 0")),
        Contains("bad.bvh:29: the frame time must be positive"));
    REQUIRE_THROWS_WITH(load(SmallWith(29, "Frame Time: 0.04 0.04")),
                        Contains("bad.bvh:29: unexpected '0.04' after the "
                                 "frame time"));
  }
  SECTION("no MOTION section") {
    std::string text = BvhLines(kSmall);
    text = text.substr(0, text.find("MOTION"));
    REQUIRE_THROWS_WITH(
        load(text), Contains("bad.bvh:27: expected 'ROOT' or 'MOTION' after "
                             "the hierarchy, got the end of the file"));
  }
  SECTION("a joint name used twice") {
    REQUIRE_THROWS_WITH(load(SmallWith(20, "  JOINT Chest")),
                        Contains("bad.bvh:20: ") && Contains("'Chest'"));
  }
  SECTION("a missing joint name") {
    REQUIRE_THROWS_WITH(load(SmallWith(10, "    JOINT")),
                        Contains("bad.bvh:10: expected a joint name after "
                                 "JOINT"));
  }
  SECTION("a file that does not exist") {
    REQUIRE_THROWS_WITH(LoadBvh("/nonexistent/walk.bvh"),
                        Contains("/nonexistent/walk.bvh does not exist"));
  }
}

TEST_CASE("Deeply nested BVH joints are parsed without recursion",
          "[framework]") {
  // 100000 nested JOINTs, never closed: a recursive parser would overflow the
  // stack (an adversarial input tried alongside the fuzzer; the parser keeps
  // an explicit stack).
  std::string text = "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\n";
  for (int i = 0; i < 100000; ++i) text += "JOINT j{OFFSET 0 0 0\n";
  REQUIRE_THROWS_WITH(LoadBvhFromString(text, "deep.bvh"),
                      Contains("deep.bvh:100005: unexpected end of the file: "
                               "joint 'j' (line 100004) is not closed"));
}

TEST_CASE("BVH error lines are right with CRLF, CR and mixed line endings",
          "[framework]") {
  const std::string lf = SmallWith(31, "0.5 -1 2 30 -20 10 15 x -25 60 35 0");
  std::string crlf, cr, mixed;
  int line = 1;
  for (char c : lf) {
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    cr += c == '\n' ? '\r' : c;
    if (c == '\n') {
      mixed += line < 20 ? "\r\n" : "\n";
      ++line;
    } else {
      mixed += c;
    }
  }
  for (const std::string* text : {&lf, static_cast<const std::string*>(&crlf),
                                  static_cast<const std::string*>(&cr),
                                  static_cast<const std::string*>(&mixed)}) {
    REQUIRE_THROWS_WITH(LoadBvhFromString(*text, "e.bvh"),
                        Contains("e.bvh:31: 'x' is not a number"));
  }
  // And the valid file loads the same with each ending.
  const BvhFigure a = LoadBvhFromString(BvhLines(kSmall));
  std::string b_text;
  for (char c : BvhLines(kSmall)) b_text += c == '\n' ? '\r' : c;
  const BvhFigure b = LoadBvhFromString(b_text);
  CHECK(a.poses == b.poses);
}

TEST_CASE("BVH joint names may contain spaces and share a line with '{'",
          "[framework]") {
  const BvhFigure bvh = LoadBvhFromString(BvhLines({
      "HIERARCHY",
      "ROOT Left Hip {",
      "  OFFSET 0 0 0",
      "  CHANNELS 3 Zrotation Xrotation Yrotation",
      "}",
      "MOTION",
      "Frames: 0",
      "Frame Time: 0.1",
  }));
  REQUIRE(bvh.joints.size() == 1);
  CHECK(bvh.joints[0].name == "Left Hip");
  CHECK(bvh.num_frames() == 0);
  CHECK(bvh.poses.cols() == 3);
}

}  // namespace
}  // namespace iklab
