// The Tolani reproductions' 3D scene (experiments/tolani/arm_scene.h): both
// elbow branches of the analytic solution reach the goal.

#include "experiments/tolani/arm_scene.h"

#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "framework/kinematics.h"

namespace iklab {
namespace {

using nlohmann::json;

TEST_CASE("The Tolani scene draws two elbow branches that both reach the "
          "target frame, the swivel circles closed, and the numerical answer",
          "[experiment][scene]") {
  const tolani::ArmSetup arm = tolani::ArmSetup::HumanArm();
  std::mt19937_64 rng(7);
  const tolani::Trial trial = arm.RandomTrial(&rng);
  Scene scene("t", "m", Eigen::Vector3d::UnitZ());
  tolani::AddBranchView(arm, trial, "arm", &scene);
  const json j = scene.ToJson();
  CHECK_NOTHROW(ValidateScene(j, "tolani"));
  const json& layers = j["views"][0]["layers"];
  int branches = 0, circles = 0, numeric = 0, targets = 0;
  for (const json& layer : layers) {
    const std::string label = layer["label"];
    if (layer["type"] == "figure" && label.rfind("analytic, elbow root", 0) == 0) {
      ++branches;
    }
    if (layer["type"] == "path" && layer["closed"] == true) ++circles;
    if (label == "lbfgsb") ++numeric;
    if (layer["type"] == "poses" && label == "target frame") ++targets;
  }
  CHECK(branches == 2);
  CHECK(circles == 2);
  CHECK(numeric == 1);
  CHECK(targets == 1);
  // Both branches put the hand site on the target (6-digit file precision).
  const Model& model = *arm.model;
  const int sites_at = 7 * model.num_steps() + 3 * arm.site;
  for (const json& layer : layers) {
    const std::string label = layer["label"];
    if (label.rfind("analytic, elbow root", 0) != 0) continue;
    INFO(label);
    const json& frame = layer["poses"][0];
    const Eigen::Vector3d hand(frame[sites_at].get<double>(),
                               frame[sites_at + 1].get<double>(),
                               frame[sites_at + 2].get<double>());
    CHECK((hand - trial.goal.translation()).norm() < 1e-4);
  }
  // The two branches differ (two distinct elbow angles).
  CHECK(layers[1]["poses"] != layers[3]["poses"]);
}

}  // namespace
}  // namespace iklab
