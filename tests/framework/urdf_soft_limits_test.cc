// URDF <safety_controller> soft limits: narrowed by default (MoveIt's and
// TRAC-IK's convention), or ignored on request.

#include <string>

#include <catch2/catch.hpp>

#include "framework/model.h"
#include "framework/urdf_loader.h"
#include "tests/test_data.h"

namespace iklab {
namespace {

using Catch::Matchers::Contains;

// Four joints: j1 with soft limits inside <limit>, j2 with a safety
// controller that writes only k_velocity (no soft limits), j3 continuous with
// soft limits (stays unbounded), j4 with only a soft upper limit, wider than
// <limit> on that side (the hard limit wins).
std::string SoftLimitUrdf(const std::string& j1_safety) {
  return R"(<robot name="soft">
  <link name="a"/><link name="b"/><link name="c"/><link name="d"/><link name="e"/>
  <joint name="j1" type="revolute">
    <parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="1.5" effort="1" velocity="1"/>
    )" + j1_safety +
         R"(
  </joint>
  <joint name="j2" type="revolute">
    <parent link="b"/><child link="c"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
    <safety_controller k_velocity="10"/>
  </joint>
  <joint name="j3" type="continuous">
    <parent link="c"/><child link="d"/><axis xyz="1 0 0"/>
    <safety_controller soft_lower_limit="-1" soft_upper_limit="1" k_velocity="1"/>
  </joint>
  <joint name="j4" type="prismatic">
    <parent link="d"/><child link="e"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.3" effort="1" velocity="1"/>
    <safety_controller soft_upper_limit="0.5" k_velocity="1"/>
  </joint>
</robot>
)";
}

const std::string kSoftJ1 =
    R"(<safety_controller soft_lower_limit="-1.8" soft_upper_limit="1.2" k_position="100" k_velocity="10"/>)";

TEST_CASE(
    "URDF soft limits narrow <limit> by default where the file writes them, "
    "and are ignored on request",
    "[framework][urdf]") {
  const UrdfFigure soft = LoadUrdfFromString(SoftLimitUrdf(kSoftJ1), "soft");
  const Model narrowed = soft.figure.Compile();
  const int j1 = narrowed.DofIndex("j1");
  CHECK(narrowed.lower()[j1] == -1.8);
  CHECK(narrowed.upper()[j1] == 1.2);
  // k_velocity alone: urdfdom reads the absent soft limits as 0, which must
  // not collapse the range to [0, 0].
  const int j2 = narrowed.DofIndex("j2");
  CHECK(narrowed.lower()[j2] == -1.0);
  CHECK(narrowed.upper()[j2] == 1.0);
  CHECK_FALSE(narrowed.bounded(narrowed.DofIndex("j3")));
  const int j4 = narrowed.DofIndex("j4");
  CHECK(narrowed.lower()[j4] == 0.0);
  CHECK(narrowed.upper()[j4] == 0.3);
  REQUIRE(soft.soft_limited_joints == std::vector<std::string>{"j1"});

  UrdfOptions hard_options;
  hard_options.soft_limits = UrdfSoftLimits::kIgnore;
  const UrdfFigure hard =
      LoadUrdfFromString(SoftLimitUrdf(kSoftJ1), "soft", hard_options);
  const Model ignored = hard.figure.Compile();
  CHECK(ignored.lower()[ignored.DofIndex("j1")] == -2.0);
  CHECK(ignored.upper()[ignored.DofIndex("j1")] == 1.5);
  CHECK(hard.soft_limited_joints.empty());
  CHECK(std::string(UrdfSoftLimitsName(UrdfSoftLimits::kNarrow)) == "soft");
  CHECK(std::string(UrdfSoftLimitsName(UrdfSoftLimits::kIgnore)) == "hard");

  // Chain mode lists only the joints of the chain.
  const UrdfFigure chain =
      LoadUrdfFromString(SoftLimitUrdf(kSoftJ1), "soft", [] {
        UrdfOptions o;
        o.base_link = "b";
        o.tip_link = "e";
        return o;
      }());
  CHECK(chain.soft_limited_joints.empty());
}

TEST_CASE("URDF soft limits that leave no range are rejected with the joint",
          "[framework][urdf]") {
  const std::string outside =
      R"(<safety_controller soft_lower_limit="1.6" soft_upper_limit="2" k_velocity="10"/>)";
  REQUIRE_THROWS_WITH(
      LoadUrdfFromString(SoftLimitUrdf(outside), "soft"),
      Contains("soft:3: joint 'j1': the <safety_controller> soft limits "
               "leave no range inside <limit>"));
  UrdfOptions hard;
  hard.soft_limits = UrdfSoftLimits::kIgnore;
  CHECK_NOTHROW(LoadUrdfFromString(SoftLimitUrdf(outside), "soft", hard));
}

// Checks that the PR2 right-arm chain of the URDF at `path` has the five
// soft-limited arm joints narrowed by the defaults, and the rolls unbounded.
void CheckPr2ArmSoftLimits(const std::string& path) {
  INFO(path);
  const char* const kArmJoints[] = {
      "r_shoulder_pan_joint", "r_shoulder_lift_joint", "r_upper_arm_roll_joint",
      "r_elbow_flex_joint", "r_wrist_flex_joint"};
  // <safety_controller soft_lower_limit soft_upper_limit> of the five joints.
  const double kSoft[5][2] = {{-2.1353981634, 0.564601836603},
                              {-0.3536, 1.2963},
                              {-3.75, 0.65},
                              {-2.1213, -0.15},
                              {-1.994, -0.1}};
  const UrdfFigure urdf =
      LoadUrdfChain(path, "torso_lift_link", "r_wrist_roll_link");
  CHECK(urdf.soft_limited_joints ==
        std::vector<std::string>(std::begin(kArmJoints), std::end(kArmJoints)));
  const Model model = urdf.figure.Compile();
  UrdfOptions hard_options;
  hard_options.soft_limits = UrdfSoftLimits::kIgnore;
  const Model hard =
      LoadUrdfChain(path, "torso_lift_link", "r_wrist_roll_link", hard_options)
          .figure.Compile();
  for (int k = 0; k < 5; ++k) {
    INFO(kArmJoints[k]);
    const int i = model.DofIndex(kArmJoints[k]);
    CHECK(model.lower()[i] == kSoft[k][0]);
    CHECK(model.upper()[i] == kSoft[k][1]);
    // 0.1–0.2 rad narrower than the hard range on each side.
    CHECK(model.lower()[i] - hard.lower()[i] >= 0.1 - 1e-9);
    CHECK(model.lower()[i] - hard.lower()[i] <= 0.2 + 1e-9);
    CHECK(hard.upper()[i] - model.upper()[i] >= 0.1 - 1e-9);
    CHECK(hard.upper()[i] - model.upper()[i] <= 0.2 + 1e-9);
  }
  // The forearm and wrist roll joints are continuous: unbounded either way.
  CHECK_FALSE(model.bounded(model.DofIndex("r_forearm_roll_joint")));
  CHECK_FALSE(model.bounded(model.DofIndex("r_wrist_roll_joint")));
}

TEST_CASE("The shipped PR2 arm narrows its five soft-limited joints by default",
          "[framework][urdf]") {
  CheckPr2ArmSoftLimits(testing::ShippedDataFile("robots/pr2_right_arm.urdf"));
}

TEST_CASE(
    "The upstream PR2 description narrows the same five arm joints to their "
    "soft limits",
    "[framework][urdf]") {
  IKLAB_SKIP_WITHOUT_UPSTREAM_DATA();
  CheckPr2ArmSoftLimits(testing::UpstreamDataFile("robots/pr2.urdf"));
}

}  // namespace
}  // namespace iklab
