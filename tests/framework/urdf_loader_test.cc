#include "framework/urdf_loader.h"

#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/kinematics.h"
#include "framework/model.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// An upstream robot description (cross-checks only; the test must start with
// IKLAB_SKIP_WITHOUT_UPSTREAM_DATA()).
std::string RobotPath(const std::string& file) {
  return testing::UpstreamDataFile("robots/" + file);
}

// A robot model the project ships (data/robots).
std::string ShippedRobot(const std::string& file) {
  return testing::ShippedDataFile("robots/" + file);
}

// Joins lines with '\n' so that a test can name the line an error is on:
// line k (1-based) of the result is lines[k - 1].
std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// A 2-link URDF whose second joint's attributes the tests vary. The <joint
// name="j2"> element is on line 9.
std::string TwoLinkUrdf(const std::string& j2_type,
                        const std::string& j2_body) {
  return Lines({
      R"(<?xml version="1.0"?>)",                    // 1
      R"(<robot name="two">)",                       // 2
      R"(  <link name="a"/>)",                       // 3
      R"(  <link name="b"/>)",                       // 4
      R"(  <link name="c"/>)",                       // 5
      R"(  <joint name="j1" type="revolute">)",      // 6
      R"(    <parent link="a"/><child link="b"/>)",  // 7
      R"(    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>)",  // 8
      R"(  <joint name="j2" type=")" + j2_type + R"(">)",  // 9
      R"(    <parent link="b"/><child link="c"/>)",        // 10
      R"(    <origin xyz="0 0 1"/>)" + j2_body,            // 11
      R"(  </joint>)",                                     // 12
      R"(</robot>)",                                       // 13
  });
}

// Fixed-axis roll-pitch-yaw of a URDF <origin>, R = Rz(y) Ry(p) Rx(r),
// written out here so the test does not trust the loader's conversion.
Eigen::Isometry3d Origin(double x, double y, double z, double roll,
                         double pitch, double yaw) {
  Eigen::Isometry3d X = Eigen::Isometry3d::Identity();
  X.translation() = Eigen::Vector3d(x, y, z);
  X.linear() = (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) *
                Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()) *
                Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()))
                   .toRotationMatrix();
  return X;
}

Eigen::Isometry3d RotZ(double q) {
  return Eigen::Isometry3d(Eigen::AngleAxisd(q, Eigen::Vector3d::UnitZ()));
}
Eigen::Isometry3d RotY(double q) {
  return Eigen::Isometry3d(Eigen::AngleAxisd(q, Eigen::Vector3d::UnitY()));
}

// Moving steps of a kind, mimic joints' included.
int CountKind(const Model& model, StepKind kind) {
  int n = 0;
  for (int s = 0; s < model.num_steps(); ++s) {
    n += model.full_dof(s) >= 0 && model.kind(s) == kind;
  }
  return n;
}

TEST_CASE(
    "Every upstream robot description loads as a whole tree with its "
    "joint counts",
    "[framework]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  // Counts from the upstream data folder's README.md (pr2, which the README
  // lists without counts, counted with Python's ElementTree: 81 joints, 25
  // revolute + 4 continuous + 1 prismatic, 10 mimic).
  struct Expected {
    const char* file;
    const char* robot;
    const char* root;
    int links, joints, revolute, prismatic, mimics;
  };
  const Expected robots[] = {
      {"franka_panda.urdf", "panda", "panda_link0", 13, 12, 7, 2, 1},
      {"kuka_iiwa14.urdf", "iiwa14", "base", 11, 10, 7, 0, 0},
      {"ur5.urdf", "ur5", "world", 11, 10, 6, 0, 0},
      {"kinova_gen3_7dof.urdf", "GEN3-7DOF-NOVISION_FOR_URDF_ARM_V12",
       "base_link", 9, 8, 7, 0, 0},
      {"baxter.urdf", "baxter", "base", 57, 56, 15, 4, 2},
      {"simple_humanoid.urdf", "simple_humanoid", "base_link", 31, 30, 29, 0,
       0},
      {"romeo_small.urdf", "romeo", "base_link", 58, 57, 31, 0, 0},
      {"pr2.urdf", "pr2", "base_footprint", 82, 81, 29, 1, 10},
  };
  for (const Expected& e : robots) {
    INFO(e.file);
    const UrdfFigure urdf = LoadUrdf(RobotPath(e.file));
    CHECK(urdf.robot_name == e.robot);
    CHECK(urdf.source == RobotPath(e.file));
    CHECK(urdf.figure.root_link() == e.root);
    CHECK(urdf.figure.num_links() == e.links);
    CHECK(urdf.figure.num_joints() == e.joints);
    CHECK(static_cast<int>(urdf.mimics.size()) == e.mimics);
    CHECK(urdf.dropped_joints.empty());
    const Model model = urdf.figure.Compile();
    // Mimic joints are enforced: one full coordinate each, no free one.
    CHECK(model.nq_full() == e.revolute + e.prismatic);
    CHECK(model.nq() == e.revolute + e.prismatic - e.mimics);
    CHECK(CountKind(model, StepKind::kRevolute) == e.revolute);
    CHECK(CountKind(model, StepKind::kPrismatic) == e.prismatic);
    // One site per link, named like it.
    CHECK(model.num_sites() == e.links);
    CHECK_NOTHROW(model.SiteIndex(e.root));
  }
}

TEST_CASE("URDF chains hold exactly the movable joints on the path, in order",
          "[framework]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  struct Chain {
    const char* file;
    const char* base;
    const char* tip;
    std::vector<std::string> joints;
  };
  const Chain chains[] = {
      {"franka_panda.urdf",
       "panda_link0",
       "panda_hand",
       {"panda_joint1", "panda_joint2", "panda_joint3", "panda_joint4",
        "panda_joint5", "panda_joint6", "panda_joint7"}},
      {"franka_panda.urdf",
       "panda_link0",
       "panda_hand_tcp",
       {"panda_joint1", "panda_joint2", "panda_joint3", "panda_joint4",
        "panda_joint5", "panda_joint6", "panda_joint7"}},
      {"kuka_iiwa14.urdf",
       "base",
       "iiwa_link_ee",
       {"iiwa_joint_1", "iiwa_joint_2", "iiwa_joint_3", "iiwa_joint_4",
        "iiwa_joint_5", "iiwa_joint_6", "iiwa_joint_7"}},
      {"ur5.urdf",
       "world",
       "ee_link",
       {"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
        "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}},
      {"kinova_gen3_7dof.urdf",
       "base_link",
       "end_effector_link",
       {"joint_1", "joint_2", "joint_3", "joint_4", "joint_5", "joint_6",
        "joint_7"}},
      {"baxter.urdf",
       "base",
       "left_gripper",
       {"left_s0", "left_s1", "left_e0", "left_e1", "left_w0", "left_w1",
        "left_w2"}},
      {"baxter.urdf",
       "base",
       "right_gripper",
       {"right_s0", "right_s1", "right_e0", "right_e1", "right_w0", "right_w1",
        "right_w2"}},
      {"baxter.urdf", "base", "head", {"head_pan"}},
      {"simple_humanoid.urdf",
       "base_link",
       "l_ankle",
       {"LLEG_HIP_R", "LLEG_HIP_P", "LLEG_HIP_Y", "LLEG_KNEE", "LLEG_ANKLE_P",
        "LLEG_ANKLE_R"}},
      {"simple_humanoid.urdf",
       "base_link",
       "l_wrist",
       {"WAIST_P", "WAIST_R", "CHEST", "LARM_SHOULDER_P", "LARM_SHOULDER_R",
        "LARM_SHOULDER_Y", "LARM_ELBOW", "LARM_WRIST_Y", "LARM_WRIST_P",
        "LARM_WRIST_R"}},
      {"romeo_small.urdf",
       "base_link",
       "l_sole",
       {"LHipYaw", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch",
        "LAnkleRoll"}},
      {"romeo_small.urdf",
       "base_link",
       "l_gripper",
       {"TrunkYaw", "LShoulderPitch", "LShoulderYaw", "LElbowRoll", "LElbowYaw",
        "LWristRoll", "LWristYaw", "LWristPitch"}},
      {"romeo_small.urdf",
       "base_link",
       "gaze",
       {"TrunkYaw", "NeckYaw", "NeckPitch", "HeadPitch", "HeadRoll"}},
      {"pr2.urdf",
       "torso_lift_link",
       "r_wrist_roll_link",
       {"r_shoulder_pan_joint", "r_shoulder_lift_joint",
        "r_upper_arm_roll_joint", "r_elbow_flex_joint", "r_forearm_roll_joint",
        "r_wrist_flex_joint", "r_wrist_roll_joint"}},
  };
  for (const Chain& c : chains) {
    INFO(c.file << " " << c.base << " -> " << c.tip);
    const UrdfFigure urdf = LoadUrdfChain(RobotPath(c.file), c.base, c.tip);
    const Model model = urdf.figure.Compile();
    CHECK(urdf.figure.root_link() == c.base);
    REQUIRE(model.nq() == static_cast<int>(c.joints.size()));
    for (int i = 0; i < model.nq(); ++i) {
      CHECK(model.dof_name(i) == c.joints[i]);
      CHECK(model.kind(model.dof_step(i)) == StepKind::kRevolute);
    }
    // Every link on the path has a site, the tip included.
    CHECK_NOTHROW(model.SiteIndex(c.tip));
    CHECK(model.num_sites() == model.num_links());
    CHECK(urdf.figure.num_joints() +
              static_cast<int>(urdf.dropped_joints.size()) ==
          LoadUrdf(RobotPath(c.file)).figure.num_joints());
  }
}

TEST_CASE(
    "Gen3 continuous joints are unbounded; its revolute joints keep the "
    "file's limits",
    "[framework]") {
  const Model model = LoadUrdf(ShippedRobot("gen3.urdf")).figure.Compile();
  REQUIRE(model.nq() == 7);
  for (const char* name : {"joint_1", "joint_3", "joint_5", "joint_7"}) {
    INFO(name);
    const int i = model.DofIndex(name);
    CHECK(std::isinf(model.lower()[i]));
    CHECK(std::isinf(model.upper()[i]));
    CHECK_FALSE(model.bounded(i));
  }
  // <limit lower="-2.24" upper="2.24"> (joint_2), "-2.57" / "2.57" (joint_4),
  // "-2.09" / "2.09" (joint_6) in the file.
  const std::pair<const char*, double> limited[] = {
      {"joint_2", 2.24}, {"joint_4", 2.57}, {"joint_6", 2.09}};
  for (const auto& [name, limit] : limited) {
    INFO(name);
    const int i = model.DofIndex(name);
    CHECK(model.lower()[i] == -limit);
    CHECK(model.upper()[i] == limit);
  }
}

TEST_CASE(
    "Mimic joints are enforced, or independent coordinates listed with their "
    "relation, or rejected, on request",
    "[framework]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  const Model enforced =
      LoadUrdf(RobotPath("franka_panda.urdf")).figure.Compile();
  CHECK(enforced.nq_full() == enforced.nq() + 1);
  CHECK_THROWS_WITH(enforced.DofIndex("panda_finger_joint2"),
                    Contains("unknown coordinate 'panda_finger_joint2'"));
  UrdfOptions independent;
  independent.mimic = UrdfMimicPolicy::kIndependent;
  const UrdfFigure panda =
      LoadUrdf(RobotPath("franka_panda.urdf"), independent);
  REQUIRE(panda.mimics.size() == 1);
  CHECK(panda.mimics[0].joint == "panda_finger_joint2");
  CHECK(panda.mimics[0].leader == "panda_finger_joint1");
  CHECK(panda.mimics[0].multiplier == 1.0);
  CHECK(panda.mimics[0].offset == 0.0);
  const Model model = panda.figure.Compile();
  CHECK_NOTHROW(model.DofIndex("panda_finger_joint2"));
  // The finger limits from the file: lower="0.0" upper="0.04".
  CHECK(model.upper()[model.DofIndex("panda_finger_joint2")] == 0.04);

  UrdfOptions reject;
  reject.mimic = UrdfMimicPolicy::kReject;
  REQUIRE_THROWS_WITH(
      LoadUrdf(RobotPath("franka_panda.urdf"), reject),
      Contains("franka_panda.urdf:342: joint 'panda_finger_joint2' mimics "
               "joint 'panda_finger_joint1'"));
  // A chain without the fingers has no mimic joint to reject.
  const UrdfFigure arm = LoadUrdfChain(RobotPath("franka_panda.urdf"),
                                       "panda_link0", "panda_hand", reject);
  CHECK(arm.mimics.empty());
}

TEST_CASE(
    "FK of the iiwa's first three joints matches the URDF's origins "
    "composed by hand",
    "[framework]") {
  const Model model =
      LoadUrdfChain(ShippedRobot("iiwa14.urdf"), "iiwa_link_0", "iiwa_link_3")
          .figure.Compile();
  REQUIRE(model.nq() == 3);
  Data data(model);
  const Eigen::Vector3d q(0.3, -0.7, 1.1);
  ForwardKinematics(model, q, &data);
  // iiwa14.urdf, joints 1–3, all axis z:
  //   <origin xyz="0 0 0.1575" rpy="0 0 0"/>
  //   <origin xyz="0 0 0.2025" rpy="1.5707963267948966 0 3.141592653589793"/>
  //   <origin xyz="0 0.2045 0" rpy="1.5707963267948966 0 3.141592653589793"/>
  const Eigen::Isometry3d expected =
      Origin(0, 0, 0.1575, 0, 0, 0) * RotZ(q[0]) *
      Origin(0, 0, 0.2025, 1.570796326794897, 0, 3.141592653589793) *
      RotZ(q[1]) *
      Origin(0, 0.2045, 0, 1.570796326794897, 0, 3.141592653589793) *
      RotZ(q[2]);
  const Eigen::Isometry3d X =
      SitePose(model, data, model.SiteIndex("iiwa_link_3"));
  CHECK((X.matrix() - expected.matrix()).cwiseAbs().maxCoeff() < 1e-12);
  // And the loader is not just returning the identity rotation chain.
  CHECK((X.translation() - Eigen::Vector3d(0, 0, 0.1575 + 0.2025 + 0.2045))
            .norm() > 1e-3);
}

TEST_CASE(
    "FK of the UR5's first three joints matches the URDF's origins "
    "composed by hand",
    "[framework]") {
  const Model model =
      LoadUrdfChain(ShippedRobot("ur5.urdf"), "base_link", "forearm_link")
          .figure.Compile();
  REQUIRE(model.nq() == 3);
  Data data(model);
  const Eigen::Vector3d q(-0.4, 0.9, 2.0);
  ForwardKinematics(model, q, &data);
  // ur5.urdf: shoulder_pan xyz="0 0 0.089159" axis z; shoulder_lift
  // xyz="0 0.13585 0" rpy="0 1.5707963267948966 0" axis y; elbow
  // xyz="0 -0.1197 0.425" axis y.
  const Eigen::Isometry3d expected =
      Origin(0, 0, 0.089159, 0, 0, 0) * RotZ(q[0]) *
      Origin(0, 0.13585, 0, 0, 1.5707963267948966, 0) * RotY(q[1]) *
      Origin(0, -0.1197, 0.425, 0, 0, 0) * RotY(q[2]);
  const Eigen::Isometry3d X =
      SitePose(model, data, model.SiteIndex("forearm_link"));
  CHECK((X.matrix() - expected.matrix()).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE(
    "URDF axes of any length are normalized, rpy is fixed-axis x-y-z, "
    "floating joints get six coordinates",
    "[framework]") {
  const std::string xml = TwoLinkUrdf(
      "prismatic",
      R"(<axis xyz="0 3 4"/><limit lower="-2" upper="2" effort="1" velocity="1"/>)");
  const Model model = LoadUrdfFromString(xml).figure.Compile();
  REQUIRE(model.nq() == 2);
  CHECK(model.axis(model.dof_step(1)).isApprox(Eigen::Vector3d(0, 0.6, 0.8)));
  Data data(model);
  ForwardKinematics(model, Eigen::Vector2d(0, 0.5), &data);
  // c = origin (0, 0, 1) + 0.5 * (0, 0.6, 0.8).
  CHECK(SitePosition(model, data, model.SiteIndex("c"))
            .isApprox(Eigen::Vector3d(0, 0.3, 1.4)));

  // A general rpy (all three angles non-zero) is fixed-axis x, then y, then z.
  std::string rotated = TwoLinkUrdf("fixed", "");
  rotated.replace(rotated.find(R"(<origin xyz="0 0 1"/>)"), 21,
                  R"(<origin xyz="0.1 -0.2 0.3" rpy="0.3 -0.5 1.2"/>)");
  const Model rpy = LoadUrdfFromString(rotated).figure.Compile();
  Data rpy_data(rpy);
  ForwardKinematics(rpy, Eigen::VectorXd::Zero(1), &rpy_data);
  CHECK((SitePose(rpy, rpy_data, rpy.SiteIndex("c")).matrix() -
         Origin(0.1, -0.2, 0.3, 0.3, -0.5, 1.2).matrix())
            .cwiseAbs()
            .maxCoeff() < 1e-12);

  const Model floating =
      LoadUrdfFromString(TwoLinkUrdf("floating", "")).figure.Compile();
  CHECK(floating.nq() == 7);
  CHECK(floating.dof_name(1) == "j2.tx");
  CHECK(floating.dof_name(6) == "j2.rx");
  CHECK_FALSE(floating.bounded(6));
}

TEST_CASE("URDF site options choose the links that get sites", "[framework]") {
  UrdfOptions options;
  options.site_links = {"panda_link4"};
  const Model chain = LoadUrdfChain(ShippedRobot("panda.urdf"), "panda_link0",
                                    "panda_link8", options)
                          .figure.Compile();
  REQUIRE(chain.num_sites() == 2);  // the chosen link and the tip
  CHECK(chain.site_name(0) == "panda_link4");
  CHECK(chain.site_name(1) == "panda_link8");

  options.site_links = {"panda_leftfinger"};
  REQUIRE_THROWS_WITH(LoadUrdfChain(ShippedRobot("panda.urdf"), "panda_link0",
                                    "panda_link8", options),
                      Contains("panda.urdf: site link "
                               "'panda_leftfinger' is not a link of the "
                               "loaded chain"));
}

TEST_CASE("Malformed URDF input is rejected with the file, line and problem",
          "[framework]") {
  SECTION("not well-formed XML") {
    const std::string xml = Lines({
        R"(<robot name="r">)",
        R"(  <link name="a"/>)",
        R"(  <link name="b">)",
        R"(  <joint name="j" type="fixed"><parent link="a"/><child link="b"/>)",
        R"(</robot>)",
    });
    REQUIRE_THROWS_WITH(LoadUrdfFromString(xml, "bad.urdf"),
                        Contains("bad.urdf:") && Contains("malformed XML"));
    // TinyXML points at the first element it cannot close.
    REQUIRE_THROWS_WITH(LoadUrdfFromString(xml, "bad.urdf"),
                        Contains("bad.urdf:3:") || Contains("bad.urdf:4:") ||
                            Contains("bad.urdf:5:"));
  }
  SECTION("bytes that are not UTF-8 (a libFuzzer finding)") {
    // The URDF fuzzer found that TinyXML reads past the end of the text on a
    // run of 0xFF bytes inside a comment; such input is now refused first.
    const std::string xml = Lines({
        R"(<?xml version="1.0"?>)",
        R"(<robot name="r">)",
        "  <!-- \xff\xff\xff\xff\xff -->",
        R"(  <link name="a"/>)",
        R"(</robot>)",
    });
    REQUIRE_THROWS_WITH(LoadUrdfFromString(xml, "bytes.urdf"),
                        Contains("bytes.urdf:3:") && Contains("UTF-8") &&
                            Contains("0xFF"));
    // A lead byte whose continuation is cut off by the end of the text.
    REQUIRE_THROWS_WITH(LoadUrdfFromString("<robot name=\"r\"/>\xe2\x82",
                                           "cut.urdf"),
                        Contains("cut.urdf:1:") && Contains("UTF-8"));
    // Valid multi-byte UTF-8 (a name in Czech) still loads.
    const std::string czech = Lines({
        R"(<robot name="r">)",
        "  <link name=\"rameno_\xc5\xa1\"/>",
        R"(</robot>)",
    });
    REQUIRE_NOTHROW(LoadUrdfFromString(czech, "czech.urdf"));
  }
  SECTION("an empty document") {
    REQUIRE_THROWS_WITH(LoadUrdfFromString("", "empty.urdf"),
                        Contains("empty.urdf") && Contains("malformed XML"));
  }
  SECTION("absurdly deep nesting") {
    std::string xml = "<robot>\n";
    for (int i = 0; i < 5000; ++i) xml += "<a>";
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(xml, "deep.urdf"),
        Contains("deep.urdf:2: malformed XML: elements nested"));
  }
  SECTION("the root element is not <robot>") {
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString("<?xml version=\"1.0\"?>\n\n<sdf/>\n", "x.urdf"),
        Contains("x.urdf:3: the root element is <sdf>"));
  }
  SECTION("a zero axis") {
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(TwoLinkUrdf("continuous", R"(<axis xyz="0 0 0"/>)"),
                           "t.urdf"),
        Contains("t.urdf:9: joint 'j2': <axis> must be a finite non-zero "
                 "vector; got (0, 0, 0)"));
  }
  SECTION("a planar joint") {
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(TwoLinkUrdf("planar", R"(<axis xyz="0 0 1"/>)"),
                           "t.urdf"),
        Contains("t.urdf:9: joint 'j2': planar joints are not supported"));
  }
  SECTION("lower > upper") {
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(
            TwoLinkUrdf(
                "revolute",
                R"(<limit lower="1" upper="-1" effort="1" velocity="1"/>)"),
            "t.urdf"),
        Contains("t.urdf:9: joint 'j2': <limit> must have lower <= upper; "
                 "got lower 1, upper -1"));
  }
  SECTION("a revolute joint without limits (urdfdom's message)") {
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(TwoLinkUrdf("revolute", ""), "t.urdf"),
        Contains("t.urdf:9: urdfdom could not parse the model") &&
            Contains("does not specify limits"));
  }
  SECTION("a number urdfdom cannot read") {
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(TwoLinkUrdf("continuous", R"(<axis xyz="0 x 1"/>)"),
                           "t.urdf"),
        Contains("t.urdf:9: urdfdom could not parse the model") &&
            Contains("axis"));
  }
  SECTION("an unknown joint type") {
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(TwoLinkUrdf("hinge", ""), "t.urdf"),
        Contains("t.urdf:9: urdfdom could not parse the model") &&
            Contains("hinge"));
  }
  SECTION("a joint to a link that does not exist") {
    std::string xml = TwoLinkUrdf("fixed", "");
    xml.replace(xml.find(R"(<child link="c"/>)"), 17, R"(<child link="d"/>)");
    REQUIRE_THROWS_WITH(LoadUrdfFromString(xml, "t.urdf"),
                        Contains("t.urdf:") &&
                            Contains("urdfdom could not parse the model") &&
                            Contains("[d]"));
  }
  SECTION("a link with two parents") {
    std::string xml = TwoLinkUrdf("fixed", "");
    xml.replace(xml.find(R"(<parent link="b"/><child link="c"/>)"), 36,
                R"(<parent link="c"/><child link="b"/>)");
    // urdfdom keeps one of the two parents silently, or finds no root; either
    // way the loader refuses the file and names a line.
    REQUIRE_THROWS_WITH(LoadUrdfFromString(xml, "t.urdf"), Contains("t.urdf:"));
  }
  SECTION("a joint whose parent is its child (a libFuzzer finding)") {
    // urdfdom leaks the links of any cycle of joints, so cycles are refused
    // before it parses (under ASan this section also checks for the leak).
    std::string xml = TwoLinkUrdf("fixed", "");
    xml.replace(xml.find(R"(<parent link="b"/><child link="c"/>)"), 36,
                R"(<parent link="c"/><child link="c"/>)");
    REQUIRE_THROWS_WITH(LoadUrdfFromString(xml, "t.urdf"),
                        Contains("t.urdf:9: joint 'j2': parent and child are "
                                 "the same link 'c'"));
  }
  SECTION("a cycle of joints (a libFuzzer finding)") {
    // j1 now runs c -> b and j2 b -> c: each link has one parent and 'a' is
    // the only root, so urdfdom would accept the file (and leak b and c).
    std::string xml = TwoLinkUrdf("fixed", "");
    xml.replace(xml.find(R"(<parent link="a"/><child link="b"/>)"), 36,
                R"(<parent link="c"/><child link="b"/>)");
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(xml, "t.urdf"),
        Contains("t.urdf:6: joint 'j1' (parent 'c', child 'b') closes a "
                 "cycle of joints; a URDF must be a tree"));
  }
  SECTION("a '%' in an attribute value (a libFuzzer finding)") {
    // urdfdom printed the malformed vector with the text as the printf
    // format: "%n" wrote through a stray pointer.
    std::string origin = TwoLinkUrdf("fixed", "");
    origin.replace(origin.find(R"(<origin xyz="0 0 1"/>)"), 21,
                   R"(<origin xyz="0%n 0 1"/>)");
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(origin, "t.urdf"),
        Contains("t.urdf:11: <origin> attribute xyz=\"0%n 0 1\" contains "
                 "'%'"));
    std::string named = TwoLinkUrdf("fixed", "");
    named.replace(named.find(R"(<link name="c"/>)"), 16,
                  R"(<link name="c"><visual><geometry><box size="1 1 1"/>)"
                  R"(</geometry><material name="50%s"/></visual></link>)");
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(named, "t.urdf"),
        Contains("t.urdf:5: <material> attribute name=\"50%s\" contains"));
    // A mesh file name may have one (URL-encoded paths); urdfdom never
    // prints it.
    std::string mesh = TwoLinkUrdf("fixed", "");
    mesh.replace(mesh.find(R"(<link name="c"/>)"), 16,
                 R"(<link name="c"><visual><geometry>)"
                 R"(<mesh filename="package://r/arm%201.stl"/>)"
                 R"(</geometry></visual></link>)");
    REQUIRE_NOTHROW(LoadUrdfFromString(mesh, "t.urdf"));
  }
  SECTION("a duplicate link") {
    std::string xml = TwoLinkUrdf("fixed", "");
    xml.replace(xml.find(R"(<link name="c"/>)"), 16, R"(<link name="b"/>)");
    REQUIRE_THROWS_WITH(LoadUrdfFromString(xml, "t.urdf"),
                        Contains("t.urdf:5: duplicate link name 'b' (first "
                                 "defined at line 4)"));
  }
  SECTION("a mimic of an unknown joint") {
    REQUIRE_THROWS_WITH(
        LoadUrdfFromString(TwoLinkUrdf("fixed", R"(<mimic joint="nope"/>)"),
                           "t.urdf"),
        Contains("t.urdf:9: joint 'j2' mimics unknown joint 'nope'"));
  }
  SECTION("a file that does not exist") {
    REQUIRE_THROWS_WITH(LoadUrdf("/nonexistent/robot.urdf"),
                        Contains("/nonexistent/robot.urdf does not exist"));
  }
  SECTION("bad chains") {
    const std::string ur5 = ShippedRobot("ur5.urdf");
    REQUIRE_THROWS_WITH(LoadUrdfChain(ur5, "base_link", "no_such_link"),
                        Contains("ur5.urdf: unknown link 'no_such_link'"));
    REQUIRE_THROWS_WITH(
        LoadUrdfChain(ur5, "forearm_link", "base_link"),
        Contains("ur5.urdf: tip link 'base_link' is not below base link "
                 "'forearm_link'"));
    UrdfOptions half;
    half.base_link = "base_link";
    REQUIRE_THROWS_WITH(LoadUrdf(ur5, half),
                        Contains("needs both a base link and a tip link"));
  }
}

TEST_CASE("URDF error lines are right in CRLF files", "[framework]") {
  std::string xml = TwoLinkUrdf("continuous", R"(<axis xyz="0 0 0"/>)");
  std::string crlf;
  for (char c : xml)
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  REQUIRE_THROWS_WITH(LoadUrdfFromString(crlf, "crlf.urdf"),
                      Contains("crlf.urdf:9: joint 'j2'"));
}

TEST_CASE("Overflow-scale lengths, limits and axes are rejected at load with "
          "the file and line",
          "[framework]") {
  const auto load = [](const std::string& body) {
    return LoadUrdfFromString(TwoLinkUrdf("revolute", body), "big.urdf");
  };
  const std::string limit =
      R"(<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>)";
  // The origin line of TwoLinkUrdf says xyz="0 0 1"; an extra <origin> would
  // be a second element, so the overflow goes in a copy of the file.
  std::string origin = TwoLinkUrdf("revolute", limit);
  origin.replace(origin.find(R"(xyz="0 0 1")"), 11, R"(xyz="1e308 0 0")");
  REQUIRE_THROWS_WITH(
      LoadUrdfFromString(origin, "big.urdf"),
      Contains("big.urdf:9: joint 'j2': <origin xyz> has a value of magnitude "
               "above 1e+09 (got (1e+308, 0, 0))"));
  REQUIRE_THROWS_WITH(
      load(R"(<axis xyz="1e308 1e308 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>)"),
      Contains("big.urdf:9: joint 'j2': <axis> has a value of magnitude above "
               "1e+09 (got (1e+308, 1e+308, 0))"));
  REQUIRE_THROWS_WITH(
      load(R"(<axis xyz="0 0 1"/><limit lower="-1e308" upper="1e308" effort="1" velocity="1"/>)"),
      Contains("big.urdf:9: joint 'j2': <limit lower/upper> has a value of "
               "magnitude above 1e+09"));
  // Large but physical values still load.
  CHECK_NOTHROW(load(
      R"(<axis xyz="0 0 1000"/><limit lower="-1e6" upper="1e6" effort="1" velocity="1"/>)"));
}

TEST_CASE("A rejected mimic joint is named with its relation and line",
          "[framework]") {
  // A gripper finger that mimics another (as on real hands); its <joint>
  // element starts on line 9.
  const std::string xml = R"(<robot name="gripper">
  <link name="palm"/>
  <link name="left"/>
  <link name="right"/>
  <joint name="left_finger" type="prismatic">
    <parent link="palm"/><child link="left"/>
    <axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="1" velocity="1"/>
  </joint>
  <joint name="right_finger" type="prismatic">
    <parent link="palm"/><child link="right"/>
    <axis xyz="0 -1 0"/><limit lower="0" upper="0.04" effort="1" velocity="1"/>
    <mimic joint="left_finger" multiplier="1" offset="0"/>
  </joint>
</robot>
)";
  UrdfOptions reject;
  reject.mimic = UrdfMimicPolicy::kReject;
  REQUIRE_THROWS_WITH(
      LoadUrdfFromString(xml, "gripper.urdf", reject),
      Contains("gripper.urdf:9: joint 'right_finger' mimics joint "
               "'left_finger' (q = 1 q_left_finger + 0)") &&
          Contains("the relation is not enforced"));
}

}  // namespace
}  // namespace iklab
