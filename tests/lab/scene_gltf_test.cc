// The animated glTF of a scene (lab/scene_gltf.h), read back with TinyGLTF:
// its nodes, animations and keyframes, and the animated node transforms
// against the figure's forward kinematics.

#include "lab/scene_gltf.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <tiny_gltf.h>

#include "framework/builders.h"
#include "framework/kinematics.h"
#include "lab/experiment.h"
#include "lab/html_report.h"
#include "lab/scene.h"
#include "tests/test_utilities.h"

namespace iklab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path GltfScratch(const std::string& name) {
  const fs::path dir = testing::ScratchPath("iklab_scene_gltf_test");
  fs::create_directories(dir);
  return dir / name;
}

tinygltf::Model LoadGlb(const fs::path& path) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string error, warning;
  const bool loaded = loader.LoadBinaryFromFile(&model, &error, &warning, path.string());
  INFO(error << warning);
  REQUIRE(loaded);
  return model;
}

std::vector<double> AccessorValues(const tinygltf::Model& m, int index) {
  const tinygltf::Accessor& a = m.accessors[index];
  REQUIRE(a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT);
  const tinygltf::BufferView& view = m.bufferViews[a.bufferView];
  const int components = tinygltf::GetNumComponentsInType(a.type);
  const auto* data = reinterpret_cast<const float*>(
      m.buffers[view.buffer].data.data() + view.byteOffset + a.byteOffset);
  return std::vector<double>(data, data + a.count * components);
}

// glTF node transforms at keyframe `k` of animation `animation` (its
// channels override the nodes' own translation, rotation and scale).
class Poser {
 public:
  Poser(const tinygltf::Model& m, int animation, int k) {
    parent_.assign(m.nodes.size(), -1);
    for (std::size_t n = 0; n < m.nodes.size(); ++n) {
      for (int child : m.nodes[n].children) parent_[child] = static_cast<int>(n);
    }
    for (const tinygltf::Node& node : m.nodes) {
      trs_.push_back({Vector(node.translation, {0, 0, 0}), Vector(node.rotation, {0, 0, 0, 1}),
                      Vector(node.scale, {1, 1, 1})});
    }
    const tinygltf::Animation& a = m.animations[animation];
    for (const tinygltf::AnimationChannel& c : a.channels) {
      const tinygltf::AnimationSampler& s = a.samplers[c.sampler];
      const std::vector<double> out = AccessorValues(m, s.output);
      const int width = c.target_path == "rotation" ? 4 : 3;
      const int keys = static_cast<int>(m.accessors[s.input].count);
      const int at = width * std::min(k, keys - 1);
      std::vector<double> value(out.begin() + at, out.begin() + at + width);
      Trs& trs = trs_[c.target_node];
      (c.target_path == "translation" ? trs.t : c.target_path == "rotation" ? trs.r : trs.s) = value;
    }
  }

  Eigen::Affine3d World(int node) const {
    const Trs& trs = trs_[node];
    Eigen::Affine3d local = Eigen::Affine3d::Identity();
    local.translate(Eigen::Vector3d(trs.t[0], trs.t[1], trs.t[2]));
    local.rotate(Eigen::Quaterniond(trs.r[3], trs.r[0], trs.r[1], trs.r[2]).normalized());
    local.scale(Eigen::Vector3d(trs.s[0], trs.s[1], trs.s[2]));
    return parent_[node] < 0 ? local : World(parent_[node]) * local;
  }

 private:
  struct Trs {
    std::vector<double> t, r, s;
  };
  static std::vector<double> Vector(const std::vector<double>& v, std::vector<double> fallback) {
    return v.empty() ? fallback : v;
  }
  std::vector<int> parent_;
  std::vector<Trs> trs_;
};

int NodeNamed(const tinygltf::Model& m, const std::string& name) {
  int found = -1;
  for (std::size_t n = 0; n < m.nodes.size(); ++n) {
    if (m.nodes[n].name == name) {
      REQUIRE(found < 0);  // names in a hierarchy are unique
      found = static_cast<int>(n);
    }
  }
  INFO("node " << name);
  REQUIRE(found >= 0);
  return found;
}

std::string StepNodeName(const std::string& label, const json& figure, int step) {
  const std::string name = figure["steps"][step]["name"].get<std::string>();
  return label + "/" + (name.empty() ? "step " + std::to_string(step) : name);
}

// A two-link planar arm (z up): a view "swing" of three frames with the
// answer "arm" and a target, and a still view with "arm" and "start".
struct ArmScene {
  Model model = PlanarChain({1.0, 0.5}).Compile();
  std::vector<Eigen::VectorXd> swing = {Eigen::Vector2d(0.0, 0.0), Eigen::Vector2d(0.7, -0.4),
                                        Eigen::Vector2d(1.4, -0.8)};
  Eigen::VectorXd still = Eigen::Vector2d(-0.5, 1.1);
  Eigen::VectorXd start = Eigen::Vector2d(0.2, 0.2);
  Scene scene{"two links", "m", Eigen::Vector3d::UnitZ()};

  ArmScene() {
    const int figure = scene.AddFigure(model, "planar", 0.03);
    scene.AddView("swing")
        .SetFrames(3, 0.25)
        .AddFigure(figure, swing, "arm", "#1f77b4")
        .AddPoints({Eigen::Vector3d(1.0, 1.0, 0.0)}, "target", "#000000", 0.05);
    scene.AddView("still")
        .AddFigure(figure, {start}, "start", "#999999")
        .AddFigure(figure, {still}, "arm", "#1f77b4");
  }
};

TEST_CASE("A scene's animated glTF has a node hierarchy per answer, an animation "
          "per view and one keyframe per frame",
          "[lab][scene][gltf]") {
  ArmScene arm;
  const fs::path glb = GltfScratch("arm.glb");
  WriteSceneGltf(arm.scene.ToJson(), glb, "arm scene");
  const tinygltf::Model m = LoadGlb(glb);

  // Nodes: the scene's root; per hierarchy ("arm", "start") its root, a node
  // per step, a link per step away from its parent, a node per site; the
  // target's group and marker.
  Data data(arm.model);
  ForwardKinematics(arm.model, arm.start, &data);
  int links = 0;
  for (int s = 1; s < arm.model.num_steps(); ++s) {
    const Eigen::Vector3d offset =
        (data.X_W(arm.model.parent(s)).inverse() * data.X_W(s)).translation();
    links += offset.norm() > 1e-12 ? 1 : 0;
  }
  const int per_hierarchy = 1 + arm.model.num_steps() + links + arm.model.num_sites();
  CHECK(m.nodes.size() == static_cast<std::size_t>(1 + 2 * per_hierarchy + 2));
  REQUIRE(m.scenes.size() == 1);
  CHECK(m.scenes[0].nodes.size() == 1);

  REQUIRE(m.animations.size() == 2);
  CHECK(m.animations[0].name == "swing");
  CHECK(m.animations[1].name == "still");
  int moving = 0;
  for (int a = 0; a < 2; ++a) {
    for (const tinygltf::AnimationChannel& c : m.animations[a].channels) {
      const tinygltf::AnimationSampler& s = m.animations[a].samplers[c.sampler];
      const std::size_t keys = m.accessors[s.input].count;
      if (c.target_path == "scale" && s.interpolation == "STEP") {
        CHECK(keys == 1);  // visibility
        continue;
      }
      ++moving;
      CHECK(s.interpolation == "LINEAR");
      CHECK(keys == (a == 0 ? 3u : 1u));  // a still view is one keyframe
      CHECK(m.accessors[s.output].count == keys);
      if (a == 0) {
        const std::vector<double> times = AccessorValues(m, s.input);
        CHECK(times == std::vector<double>({0.0, 0.25, 0.5}));
      }
    }
  }
  CHECK(moving > 0);
}

TEST_CASE("The animated glTF's node transforms reproduce the figure's forward "
          "kinematics at each frame",
          "[lab][scene][gltf]") {
  ArmScene arm;
  const json scene = arm.scene.ToJson();
  const json& figure = scene["figures"][0];
  const fs::path glb = GltfScratch("arm_fk.glb");
  WriteSceneGltf(scene, glb, "arm scene");
  const tinygltf::Model m = LoadGlb(glb);
  // Scene z up becomes glTF's +Y: (x, y, z) -> (x, z, -y).
  const auto to_gltf = [](const Eigen::Vector3d& p) { return Eigen::Vector3d(p.x(), p.z(), -p.y()); };
  Data data(arm.model);

  const auto check_pose = [&](const Poser& poser, const std::string& label,
                              const Eigen::VectorXd& q) {
    ForwardKinematics(arm.model, q, &data);
    for (int s = 0; s < arm.model.num_steps(); ++s) {
      const Eigen::Vector3d p = poser.World(NodeNamed(m, StepNodeName(label, figure, s)))
                                    .translation();
      INFO(label << " step " << s);
      CHECK((p - to_gltf(data.X_W(s).translation())).norm() < 1e-5);
    }
    for (int i = 0; i < arm.model.num_sites(); ++i) {
      const Eigen::Vector3d p =
          poser.World(NodeNamed(m, label + "/" + arm.model.site_name(i))).translation();
      INFO(label << " site " << arm.model.site_name(i));
      CHECK((p - to_gltf(SitePosition(arm.model, data, i))).norm() < 1e-5);
    }
  };
  const int arm_root = NodeNamed(m, "arm (planar)");
  const int start_root = NodeNamed(m, "start (planar)");
  for (int k = 0; k < 3; ++k) {
    const Poser poser(m, 0, k);
    check_pose(poser, "arm", arm.swing[k]);
    // "start" is not in this view: hidden (scale 0).
    CHECK(poser.World(start_root).linear().norm() == 0.0);
    CHECK(poser.World(arm_root).linear().norm() > 0.0);
  }
  const Poser still(m, 1, 0);
  check_pose(still, "arm", arm.still);
  check_pose(still, "start", arm.start);
  // The target is a marker of the first view only.
  const int target = NodeNamed(m, "target 1");
  CHECK((Poser(m, 0, 0).World(target).translation() - to_gltf({1.0, 1.0, 0.0})).norm() < 1e-5);
  CHECK(still.World(target).linear().norm() == 0.0);
}

TEST_CASE("A figure with a floating base has no link along its translations, "
          "only between bodies",
          "[lab][scene][gltf]") {
  // The human figure's root: three prismatic and three revolute steps from
  // the world. A link from the world origin to the walking figure would be
  // drawn if its translations were links.
  const Model model = HumanFigure().Compile();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq());
  Scene scene("walker", "m", Eigen::Vector3d::UnitZ());
  const int figure = scene.AddFigure(model, "human", 0.02);
  Eigen::VectorXd moved = q;
  int translations = 0;
  for (int i = 0; i < model.nq(); ++i) {
    if (model.kind(model.dof_step(i)) == StepKind::kPrismatic) moved[i] = 1.0 + i;
  }
  scene.AddView("walk").SetFrames(2, 0.5).AddFigure(figure, {q, moved}, "walker", "#1f77b4");
  const json json_scene = scene.ToJson();
  const json& steps = json_scene["figures"][0]["steps"];
  const fs::path glb = GltfScratch("walker.glb");
  WriteSceneGltf(json_scene, glb, "walker scene");
  const tinygltf::Model m = LoadGlb(glb);
  std::map<std::string, int> nodes;
  for (const tinygltf::Node& node : m.nodes) ++nodes[node.name];

  std::vector<bool> translation(steps.size(), false);
  Data data(model);
  ForwardKinematics(model, moved, &data);
  int links = 0;
  for (std::size_t s = 1; s < steps.size(); ++s) {
    const int parent = steps[s]["parent"].get<int>();
    translation[s] = steps[s]["kind"] == "prismatic" &&
                     (steps[parent]["parent"].get<int>() < 0 || translation[parent]);
    const std::string link = StepNodeName("walker", json_scene["figures"][0],
                                          static_cast<int>(s)) + " link";
    const double offset =
        (data.X_W(model.parent(static_cast<int>(s))).inverse() * data.X_W(static_cast<int>(s)))
            .translation()
            .norm();
    INFO(link);
    if (translation[s]) {
      ++translations;
      CHECK(nodes.count(link) == 0);
    } else if (offset > 1e-12) {
      ++links;
      CHECK(nodes.count(link) == 1);
    }
  }
  CHECK(translations == 3);
  CHECK(links > 10);
}

TEST_CASE("Names from users' files go into the glTF's node names as they are",
          "[lab][scene][gltf]") {
  const std::string hostile = "<img src=x onerror=alert(1)> \"quoted\" \\ ü ";
  const Model model = PlanarChain({1.0}, Eigen::Vector2d::Zero(), hostile).Compile();
  Scene scene(hostile + "title", "cm", Eigen::Vector3d::UnitY());
  const int figure = scene.AddFigure(model, hostile + "figure", 0.05);
  scene.AddView(hostile + "view").AddFigure(figure, {Eigen::VectorXd::Constant(1, 0.3)},
                                            hostile + "label", "#ff7f0e");
  const json j = scene.ToJson();
  const fs::path glb = GltfScratch("hostile.glb");
  WriteSceneGltf(j, glb, "hostile");
  const tinygltf::Model m = LoadGlb(glb);
  CHECK(m.animations.at(0).name == hostile + "view");
  NodeNamed(m, hostile + "label (" + hostile + "figure)");
  NodeNamed(m, hostile + "label/" + model.dof_name(0));
  // Centimetres: the scene's root scales to metres; y is already up.
  const tinygltf::Node& root = m.nodes[m.scenes[0].nodes[0]];
  CHECK(root.name == hostile + "title");
  CHECK(root.scale == std::vector<double>({0.01, 0.01, 0.01}));
}

TEST_CASE("A scene with a NaN, a zero quaternion, nothing to carry or a damaged "
          "file is refused with the reason",
          "[lab][scene][gltf]") {
  ArmScene arm;
  const json good = arm.scene.ToJson();
  const fs::path glb = GltfScratch("refused.glb");

  json nan = good;
  nan["views"][0]["layers"][0]["poses"][1][4] = std::numeric_limits<double>::quiet_NaN();
  REQUIRE_THROWS_WITH(WriteSceneGltf(nan, glb, "nan scene"),
                      Catch::Contains("nan scene") && Catch::Contains("finite"));

  json zero = good;
  for (int i = 3; i < 7; ++i) zero["views"][1]["layers"][0]["poses"][0][7 + i] = 0.0;
  REQUIRE_THROWS_WITH(WriteSceneGltf(zero, glb, "zero scene"),
                      Catch::Contains("zero scene") && Catch::Contains("view 1 'still'") &&
                          Catch::Contains("zero quaternion"));

  Scene voxels("map", "m", Eigen::Vector3d::UnitZ());
  voxels.AddView("map").AddVoxels({Eigen::Vector3d::Zero()}, {0.5}, 0.1, "fraction",
                                  Eigen::Vector2d(0, 1), "voxels");
  REQUIRE_THROWS_WITH(WriteSceneGltf(voxels.ToJson(), glb, "map scene"),
                      Catch::Contains("nothing to write as glTF"));
  const fs::path voxel_file = GltfScratch("voxels.json");
  voxels.Write(voxel_file);
  CHECK(WriteSceneGltfBeside(voxel_file).empty());
  CHECK_FALSE(fs::exists(SceneGltfPath(voxel_file)));

  const fs::path damaged = GltfScratch("damaged.json");
  const std::string text = good.dump();
  std::ofstream(damaged) << text.substr(0, text.size() / 2);
  REQUIRE_THROWS_WITH(WriteSceneGltfBeside(damaged),
                      Catch::Contains("damaged.json") && Catch::Contains("not JSON"));
  CHECK_FALSE(fs::exists(SceneGltfPath(damaged)));
}

TEST_CASE("A registered scene gets its .glb beside it, listed in summary.json "
          "and linked from the HTML report",
          "[lab][scene][gltf]") {
  const fs::path out = GltfScratch("report");
  fs::remove_all(out);
  const Experiment experiment{"arm", "Two links", "Fixture", nullptr};
  std::vector<ExperimentRun> runs;
  runs.push_back({&experiment, ExperimentOutput(out / experiment.name), 0.1, ""});
  ExperimentOutput& o = runs.back().output;
  ArmScene arm;
  arm.scene.Write(o.dir() / "arm_scene.json");
  o.AddScene("arm_scene.json", "the arm");
  std::ofstream(o.dir() / "broken.json") << "{\"format\": \"iklab-scene\", ";
  o.AddScene("broken.json", "cut short");
  CHECK(fs::is_regular_file(o.dir() / "arm_scene.glb"));
  CHECK_FALSE(fs::exists(o.dir() / "broken.glb"));
  CHECK(LoadGlb(o.dir() / "arm_scene.glb").animations.size() == 2);

  o.Finish("arm", "Two links", 0.1);
  std::ifstream summary_file(o.dir() / "summary.json");
  const json summary = json::parse(summary_file);
  REQUIRE(summary["scenes"].size() == 2);
  CHECK(summary["scenes"][0]["gltf"] == "arm_scene.glb");
  CHECK_FALSE(summary["scenes"][1].contains("gltf"));
  CHECK(summary["scenes"][1]["gltf_error"].get<std::string>().find("not JSON") !=
        std::string::npos);

  WriteHtmlReport(runs, ExperimentContext{}, out, "report");
  std::ifstream page_file(out / "arm.html");
  const std::string page((std::istreambuf_iterator<char>(page_file)),
                         std::istreambuf_iterator<char>());
  CHECK(page.find("href=\"arm/arm_scene.glb\" download>download animated glTF (Blender, any "
                  "glTF viewer)</a>") != std::string::npos);
  CHECK(page.find("broken.glb") == std::string::npos);
}

}  // namespace
}  // namespace iklab
