// The scene builder and reader (lab/scene.h) against docs/scene-format.md,
// the scenes of files (cli/scene_files.h) and of a study's outputs.

#include "lab/scene.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli/scene_files.h"
#include "constraints/shape_collision.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/tolerance_goals.h"
#include "framework/builders.h"
#include "framework/kinematics.h"
#include "lab/study.h"
#include "reach/reach_hdf5.h"
#include "reach/reach_map.h"
#include "reach/reach_run.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "tests/test_data.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

using nlohmann::json;

// Planar 2-link chain: lengths 1 and 0.5 in the x–y plane, sites joint0,
// joint1, joint2 (the tip) and effector.
Model TwoLink() { return PlanarChain({1.0, 0.5}).Compile(); }

std::filesystem::path Scratch(const std::string& name) {
  const auto dir = testing::ScratchPath("iklab_scene_test");
  std::filesystem::create_directories(dir);
  return dir / name;
}

void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST_CASE("A scene's JSON follows the format: keys and 7 numbers per step "
          "plus 3 per site in every frame",
          "[lab][scene]") {
  const Model model = TwoLink();
  Scene scene("two links", "m", Eigen::Vector3d::UnitZ());
  const int figure = scene.AddFigure(model, "arm", 0.02);
  SceneView& view = scene.AddView("animated");
  view.AddFigure(figure,
                 {Eigen::Vector2d(0.0, 0.0), Eigen::Vector2d(0.3, 0.2),
                  Eigen::Vector2d(0.6, 0.4)},
                 "moving", "#1f77b4");
  view.AddFigure(figure, {Eigen::Vector2d(1.0, -1.0)}, "still", "#ff7f0e");
  view.AddPoints({Eigen::Vector3d(1, 2, 3)}, "target", "#d62728", 0.05);
  view.AddPath({Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitX()}, true,
               "circle", "#000000");
  view.SetTable({"solver", "status"}, {{"a", "converged"}});
  const json j = scene.ToJson();

  CHECK(j["format"] == "iklab-scene");
  CHECK(j["version"] == 1);
  CHECK(j["units"] == "m");
  REQUIRE(j["figures"].size() == 1);
  const json& f = j["figures"][0];
  CHECK(f["steps"].size() == static_cast<std::size_t>(model.num_steps()));
  CHECK(f["sites"].size() == static_cast<std::size_t>(model.num_sites()));
  CHECK(f["steps"][0]["parent"] == -1);
  for (std::size_t i = 1; i < f["steps"].size(); ++i) {
    CHECK(f["steps"][i]["parent"].get<int>() < static_cast<int>(i));
  }
  REQUIRE(j["views"].size() == 1);
  const json& v = j["views"][0];
  CHECK(v["frames"] == 3);
  CHECK(v["table"]["rows"][0][1] == "converged");
  const std::size_t numbers = 7 * model.num_steps() + 3 * model.num_sites();
  for (int layer = 0; layer < 2; ++layer) {
    const json& poses = v["layers"][layer]["poses"];
    REQUIRE(poses.size() == 3);  // the still figure repeated per frame
    for (const json& frame : poses) CHECK(frame.size() == numbers);
  }
  CHECK(v["layers"][2]["type"] == "points");
  CHECK(v["layers"][3]["closed"] == true);
  CHECK_NOTHROW(ValidateScene(j, "built"));

  // An animated layer of another length is refused.
  REQUIRE_THROWS_WITH(
      view.AddAnimatedPoints({{Eigen::Vector3d::Zero()}, {Eigen::Vector3d::Zero()}},
                             "wrong", "#000000", 0.1),
      Catch::Contains("layer 'wrong'") && Catch::Contains("2 frames"));
}

TEST_CASE("Figure poses are the forward kinematics of the given q, with unit "
          "quaternions",
          "[lab][scene]") {
  const Model model = TwoLink();
  Scene scene("two links", "m", Eigen::Vector3d::UnitZ());
  const int figure = scene.AddFigure(model, "arm", 0.02);
  const Eigen::Vector2d q(M_PI / 2, -M_PI / 2);
  scene.AddView("v").AddFigure(figure, {q}, "arm", "#1f77b4");
  const json frame = scene.ToJson()["views"][0]["layers"][0]["poses"][0];

  // By hand: joint 1 at (0, 1, 0) (link 1 along y), the tip at (0.5, 1, 0)
  // (link 2 turned back to x).
  const int sites_at = 7 * model.num_steps();
  auto site = [&](const std::string& name) {
    const int s = model.SiteIndex(name);
    return Eigen::Vector3d(frame[sites_at + 3 * s].get<double>(),
                           frame[sites_at + 3 * s + 1].get<double>(),
                           frame[sites_at + 3 * s + 2].get<double>());
  };
  CHECK((site("joint0") - Eigen::Vector3d(0, 0, 0)).norm() < 1e-6);
  CHECK((site("joint1") - Eigen::Vector3d(0, 1, 0)).norm() < 1e-6);
  CHECK((site("joint2") - Eigen::Vector3d(0.5, 1, 0)).norm() < 1e-6);
  CHECK((site("effector") - Eigen::Vector3d(0.5, 1, 0)).norm() < 1e-6);

  // Every step equals Data's world pose.
  Data data(model);
  ForwardKinematics(model, q, &data);
  for (int step = 0; step < model.num_steps(); ++step) {
    INFO("step " << step);
    const Eigen::Vector3d p(frame[7 * step].get<double>(),
                            frame[7 * step + 1].get<double>(),
                            frame[7 * step + 2].get<double>());
    CHECK((p - data.X_W(step).translation()).norm() < 1e-5);
    const Eigen::Quaterniond quaternion(
        frame[7 * step + 6].get<double>(), frame[7 * step + 3].get<double>(),
        frame[7 * step + 4].get<double>(), frame[7 * step + 5].get<double>());
    CHECK(std::abs(quaternion.norm() - 1.0) < 1e-5);
    CHECK(quaternion.angularDistance(Eigen::Quaterniond(data.X_W(step).linear())) <
          1e-5);
  }
}

TEST_CASE("A scene refuses NaN and infinity, naming the layer", "[lab][scene]") {
  const Model model = TwoLink();
  Scene scene("t", "m", Eigen::Vector3d::UnitZ());
  const int figure = scene.AddFigure(model, "arm", 0.02);
  SceneView& view = scene.AddView("v");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  REQUIRE_THROWS_WITH(view.AddFigure(figure, {Eigen::Vector2d(0.0, nan)},
                                     "bad answer", "#1f77b4"),
                      Catch::Contains("layer 'bad answer'") &&
                          Catch::Contains("non-finite"));
  REQUIRE_THROWS_WITH(
      view.AddPoints({Eigen::Vector3d(0, HUGE_VAL, 0)}, "far", "#1f77b4", 0.1),
      Catch::Contains("layer 'far'"));
  REQUIRE_THROWS_WITH(view.AddSphere(Eigen::Vector3d::Zero(), nan, "ball", "#1f77b4"),
                      Catch::Contains("layer 'ball'"));
  REQUIRE_THROWS_WITH(view.AddVoxels({Eigen::Vector3d::Zero()}, {nan}, 0.1, "f",
                                     Eigen::Vector2d(0, 1), "map"),
                      Catch::Contains("layer 'map'"));
  // Nothing was added: the file holds no NaN.
  const std::string text = scene.ToJson().dump();
  CHECK(text.find("null") == std::string::npos);
  CHECK(scene.ToJson()["views"][0]["layers"].empty());
}

TEST_CASE("Written numbers keep 6 significant digits and the file reads back",
          "[lab][scene]") {
  Scene scene("t", "m", Eigen::Vector3d::UnitZ());
  scene.AddView("v").AddPoints({Eigen::Vector3d(M_PI, 1.0 / 3.0, -2e-7)}, "p",
                               "#1f77b4", 0.01);
  const auto path = Scratch("digits.json");
  scene.Write(path);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  CHECK(text.find("3.14159,") != std::string::npos);
  CHECK(text.find("0.333333,") != std::string::npos);
  CHECK(text.find('\n') == text.size() - 1);  // compact: one line
  const json back = ReadScene(path);
  CHECK(back["views"][0]["layers"][0]["points"][0] == 3.14159);
}

TEST_CASE("ReadScene names the file and the fault: missing, not JSON, foreign "
          "format, version 99",
          "[lab][scene]") {
  const auto missing = Scratch("missing.json");
  std::filesystem::remove(missing);
  REQUIRE_THROWS_WITH(ReadScene(missing), Catch::Contains(missing.string()) &&
                                              Catch::Contains("does not exist"));
  const auto damaged = Scratch("damaged.json");
  WriteText(damaged, "{\"format\": \"iklab-scene\", ");
  REQUIRE_THROWS_WITH(ReadScene(damaged), Catch::Contains(damaged.string()) &&
                                              Catch::Contains("not JSON"));
  const auto foreign = Scratch("foreign.json");
  WriteText(foreign, R"({"format": "gltf", "version": 1})");
  REQUIRE_THROWS_WITH(ReadScene(foreign), Catch::Contains(foreign.string()) &&
                                              Catch::Contains("not an iklab scene"));
  const auto future = Scratch("future.json");
  WriteText(future, R"({"format": "iklab-scene", "version": 99})");
  REQUIRE_THROWS_WITH(ReadScene(future), Catch::Contains(future.string()) &&
                                             Catch::Contains("version 99"));
  const auto broken = Scratch("broken.json");
  WriteText(broken,
            R"({"format": "iklab-scene", "version": 1, "title": "", "units": "m",
                "up": [0, 0, 1], "figures": [],
                "views": [{"name": "v", "frames": 1, "frame_seconds": 0.1,
                           "layers": [{"type": "teapot", "label": "t",
                                       "color": "#000000"}]}]})");
  REQUIRE_THROWS_WITH(ReadScene(broken), Catch::Contains(broken.string()) &&
                                             Catch::Contains("teapot"));
}

TEST_CASE("A problem's goals and constraints become layers", "[lab][scene]") {
  const auto model = std::make_shared<const Model>(
      PlanarChain({1.0, 0.8, 0.6}).Compile());
  Problem problem(model);
  problem.AddGoal(std::make_shared<PositionGoal>(*model, "effector",
                                                 Eigen::Vector3d(1, 1, 0)));
  problem.AddGoal(std::make_shared<PlaneGoal>(*model, "effector",
                                              Eigen::Vector3d::Zero(),
                                              Eigen::Vector3d::UnitY()));
  problem.AddGoal(std::make_shared<ConeGoal>(*model, "effector",
                                             Eigen::Vector3d::UnitX(),
                                             Eigen::Vector3d::UnitY(), 0.3));
  problem.AddInequalityConstraint(std::make_shared<ShapeCollisionGoal>(
      *model, FitChainCapsules(*model, {"link1", "link2"}, 0.05),
      std::vector<WorldShape>{
          SphereObstacle("ball", Eigen::Vector3d(2, 0, 0), 0.2)},
      std::vector<std::pair<std::string, std::string>>{}));
  Scene scene("goals", "m", Eigen::Vector3d::UnitZ());
  SceneView& view = scene.AddView("v");
  AddProblemLayers(problem, model->MidLimits(), 0.1, &view);
  const json layers = scene.ToJson()["views"][0]["layers"];
  std::vector<std::string> types;
  for (const json& layer : layers) types.push_back(layer["type"]);
  CHECK(types[0] == "points");
  CHECK(types[1] == "plane");
  CHECK(types[2] == "cone");
  CHECK(types[3] == "sphere");  // the obstacle
  // link1's capsule to link2's origin; link2's sphere at its origin.
  CHECK(std::count(types.begin(), types.end(), "capsule") == 1);
  CHECK(std::count(types.begin(), types.end(), "sphere") == 2);
  CHECK(layers[3]["label"].get<std::string>().rfind("constraint 0", 0) == 0);
  CHECK_NOTHROW(ValidateScene(scene.ToJson(), "goals"));
}

TEST_CASE("SceneFromFile shows a shipped URDF at mid-limits and the walk BVH "
          "animated",
          "[lab][scene]") {
  const json panda = SceneFromFile(testing::ShippedDataFile("robots/panda.urdf"));
  REQUIRE(panda["figures"].size() == 1);
  CHECK(panda["figures"][0]["sites"].size() >= 8);  // every link named
  CHECK(panda["views"][0]["frames"] == 1);
  CHECK_NOTHROW(ValidateScene(panda, "panda"));

  const json walk = SceneFromFile(testing::ShippedDataFile("motions/walk_cycle.bvh"));
  CHECK(walk["up"][1] == 1);
  CHECK(walk["views"][0]["frames"] == 34);
  CHECK(walk["views"][0]["layers"][0]["poses"].size() == 34);

  const auto other = Scratch("notes.txt");
  WriteText(other, "hello");
  REQUIRE_THROWS_WITH(SceneFromFile(other), Catch::Contains(other.string()) &&
                                                Catch::Contains(".urdf") &&
                                                Catch::Contains(".bvh"));
  REQUIRE_THROWS_WITH(SceneFromFile(Scratch("absent.urdf")),
                      Catch::Contains("absent.urdf"));
}

TEST_CASE("SceneFromFile shows a reach map's reaching voxels coloured by "
          "reachable fraction, and names a damaged map",
          "[lab][scene]") {
  const auto arm = std::make_shared<const Model>(PlanarChain({0.5, 0.4}).Compile());
  ReachSettings settings;
  // 9 voxels per axis (reach 0.9 around joint 0): the middle layer is the
  // arm's plane z = 0.
  settings.resolution = 0.2;
  settings.position_only = true;
  const ReachTask task(arm, "effector", settings);
  REQUIRE(task.grid().shape.z() % 2 == 1);
  const ReachMap map = ComputeReachMap(task, 1);
  const auto file = Scratch("planar.h5");
  WriteReachMapHdf5(map, file.string());
  const json scene = SceneFromFile(file);
  CHECK_NOTHROW(ValidateScene(scene, "map"));
  const json& voxels = scene["views"][0]["layers"][0];
  REQUIRE(voxels["type"] == "voxels");
  CHECK(voxels["value_name"] == "reachable fraction");
  std::size_t reaching = 0;
  for (std::int64_t v = 0; v < map.grid.num_voxels(); ++v) {
    reaching += map.reached[v] > 0 ? 1 : 0;
  }
  CHECK(reaching > 0);
  CHECK(voxels["values"].size() == reaching);
  CHECK(voxels["centers"].size() == 3 * reaching);
  for (const json& value : voxels["values"]) {
    CHECK(value.get<double>() > 0.0);
    CHECK(value.get<double>() <= 1.0);
  }
  const auto damaged = Scratch("damaged.h5");
  WriteText(damaged, "not an HDF5 file");
  REQUIRE_THROWS_WITH(SceneFromFile(damaged), Catch::Contains("damaged.h5"));
}

TEST_CASE("A study's outputs hold scene.json, registered in summary.json, "
          "which SceneFromFile finds in the folder",
          "[lab][scene]") {
  Study study;
  study.name = "scene-study";
  study.model = std::make_shared<const Model>(PlanarChain({1.0, 0.8, 0.6}).Compile());
  study.goals = {GoalSpec::Position("effector")};
  study.trials = 25;
  study.time_budget_seconds = 0.0;
  DampedLeastSquaresOptions dls;
  dls.damping = 0.05;
  study.solvers = {Use("lbfgsb", LbfgsbOptions{}), Use("dls", dls)};
  const StudyResult result = RunStudy(study);
  const auto dir = testing::ScratchPath("iklab_scene_study");
  std::filesystem::remove_all(dir);
  ExperimentOutput out(dir);
  WriteStudyOutputs(study, result, &out);
  out.Finish(study.name, "scene study", 0.0);

  std::ifstream summary_file(dir / "summary.json");
  const json summary = json::parse(summary_file);
  REQUIRE(summary["scenes"].size() == 1);
  CHECK(summary["scenes"][0]["file"] == "scene.json");
  const json scene = ReadScene(dir / "scene.json");
  CHECK(scene["views"].size() == 20);  // the first 20 of 25 trials
  const json& view = scene["views"][0];
  CHECK(view["layers"][0]["label"] == "start");
  CHECK(view["layers"][1]["label"] == "lbfgsb");
  CHECK(view["layers"][2]["label"] == "dls");
  CHECK(view["layers"][1]["color"] != view["layers"][2]["color"]);
  CHECK(view["layers"][3]["type"] == "points");  // the target
  CHECK(view["table"]["rows"].size() == 2);
  CHECK(SceneFromFile(dir)["title"] == scene["title"]);
  std::filesystem::remove_all(dir);
}

TEST_CASE("ThinnedFrames keeps the first and the last frame and at most "
          "max_frames evenly spaced ones",
          "[lab][scene]") {
  CHECK(ThinnedFrames(1, 121) == std::vector<int>{0});
  CHECK(ThinnedFrames(5, 121) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(ThinnedFrames(11, 6) == std::vector<int>{0, 2, 4, 6, 8, 10});
  CHECK(ThinnedFrames(12, 6) == std::vector<int>{0, 3, 6, 9, 11});
  for (const int count : {2, 120, 121, 122, 201, 501, 10000}) {
    INFO("count " << count);
    const std::vector<int> frames = ThinnedFrames(count, 121);
    CHECK(frames.front() == 0);
    CHECK(frames.back() == count - 1);
    CHECK(static_cast<int>(frames.size()) <= 121);
    CHECK(std::is_sorted(frames.begin(), frames.end()));
    CHECK(std::adjacent_find(frames.begin(), frames.end()) == frames.end());
  }
  REQUIRE_THROWS_WITH(ThinnedFrames(0, 121), Catch::Contains("count >= 1"));
  REQUIRE_THROWS_WITH(ThinnedFrames(10, 1), Catch::Contains("max_frames"));
}

TEST_CASE("A motion view animates each motion, draws its sites' paths by "
          "forward kinematics and moves the targets",
          "[lab][scene]") {
  const Model model = TwoLink();
  Scene scene("motions", "m", Eigen::Vector3d::UnitY());
  const int figure = scene.AddFigure(model, "arm", 0.02);
  // 301 frames: the first joint turns a quarter circle, the second stays.
  std::vector<Eigen::VectorXd> a, b;
  std::vector<std::vector<Eigen::Vector3d>> targets;
  for (int k = 0; k <= 300; ++k) {
    const double t = M_PI / 2 * k / 300;
    a.push_back(Eigen::Vector2d(t, 0.0));
    b.push_back(Eigen::Vector2d(t, 0.5));
    targets.push_back({1.5 * Eigen::Vector3d(std::cos(t), std::sin(t), 0.0)});
  }
  SceneView& view = AddMotionView("turn", figure,
                                  {{"straight", "#1f77b4", a},
                                   {"bent", "#ff7f0e", b}},
                                  {"effector"}, targets, 0.05, 0.01, &scene, 31);
  CHECK(view.frames() == 31);
  const json v = scene.ToJson()["views"][0];
  CHECK(v["frame_seconds"].get<double>() == Approx(0.1));  // stride 10
  std::vector<std::string> labels;
  for (const json& layer : v["layers"]) labels.push_back(layer["label"]);
  CHECK(labels == std::vector<std::string>{"start", "straight",
                                           "straight: effector path", "bent",
                                           "bent: effector path", "target path",
                                           "targets"});
  // The straight arm's effector path is FK of every frame: on the circle of
  // radius 1.5, from (1.5, 0) to (0, 1.5).
  const json& path = v["layers"][2]["points"];
  REQUIRE(path.size() == 3 * 301);
  const auto point = [&](int k) {
    return Eigen::Vector3d(path[3 * k].get<double>(), path[3 * k + 1].get<double>(),
                           path[3 * k + 2].get<double>());
  };
  for (int k = 0; k <= 300; k += 50) {
    CHECK(point(k).norm() == Approx(1.5).epsilon(1e-5));
  }
  CHECK((point(300) - Eigen::Vector3d(0, 1.5, 0)).norm() < 1e-5);
  // Drawn frame 30 is motion frame 300: the straight arm's tip on the last
  // target, the moving target there too.
  const json& last = v["layers"][1]["poses"][30];
  const int tip = 7 * model.num_steps() + 3 * model.SiteIndex("effector");
  CHECK(std::abs(last[tip].get<double>()) < 1e-5);
  CHECK(last[tip + 1].get<double>() == Approx(1.5));
  CHECK(v["layers"][6]["animated"] == true);
  CHECK(v["layers"][6]["points"].size() == 31);
  CHECK(v["layers"][6]["points"][30][1].get<double>() == Approx(1.5));
  // The start figure stands still over the frames.
  CHECK(v["layers"][0]["poses"].size() == 31);
  CHECK(v["layers"][0]["poses"][0] == v["layers"][0]["poses"][30]);
  const auto file = Scratch("motion.json");
  scene.Write(file);
  CHECK_NOTHROW(ReadScene(file));

  REQUIRE_THROWS_WITH(
      AddMotionView("short", figure, {{"a", "#1f77b4", a}, {"b", "#1f77b4", {a[0]}}},
                    {}, {}, 0.05, 0.01, &scene),
      Catch::Contains("motion 'b' has 1 frames"));
  REQUIRE_THROWS_WITH(AddMotionView("few targets", figure, {{"a", "#1f77b4", a}},
                                    {}, {targets[0]}, 0.05, 0.01, &scene),
                      Catch::Contains("1 target frames for 301"));
  REQUIRE_THROWS(AddMotionView("no site", figure, {{"a", "#1f77b4", a}},
                               {"elbow"}, {}, 0.05, 0.01, &scene));
  REQUIRE_THROWS_WITH(scene.figure_model(7), Catch::Contains("no figure 7"));
}

TEST_CASE("Animated poses hold one list of frames per view frame",
          "[lab][scene]") {
  Scene scene("poses", "m", Eigen::Vector3d::UnitZ());
  SceneView& view = scene.AddView("moved and restored");
  Eigen::Isometry3d moved = Eigen::Isometry3d::Identity();
  moved.translation() = Eigen::Vector3d(0.15, 0, 0);
  view.AddAnimatedPoses({{Eigen::Isometry3d::Identity()}, {moved},
                         {Eigen::Isometry3d::Identity()}},
                        "target", "#000000", 0.1);
  CHECK(view.frames() == 3);
  const json layer = scene.ToJson()["views"][0]["layers"][0];
  CHECK(layer["animated"] == true);
  CHECK(layer["poses"].size() == 3);
  CHECK(layer["poses"][1][0] == 0.15);
  const auto file = Scratch("animated_poses.json");
  scene.Write(file);
  CHECK_NOTHROW(ReadScene(file));
  REQUIRE_THROWS_WITH(view.AddAnimatedPoses({}, "none", "#000000", 0.1),
                      Catch::Contains("no frame"));
}

TEST_CASE("FigureExtent is the farthest joint or site from the origin",
          "[lab][scene]") {
  const Model model = TwoLink();
  CHECK(FigureExtent(model, Eigen::Vector2d(0.0, 0.0)) == Approx(1.5));
  CHECK(FigureExtent(model, Eigen::Vector2d(0.0, M_PI)) == Approx(1.0));
  REQUIRE_THROWS_WITH(FigureExtent(model, Eigen::VectorXd::Zero(3)),
                      Catch::Contains("3 coordinates"));
}

}  // namespace
}  // namespace iklab
