#include "lab/scene_gltf.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <tiny_gltf.h>

#include "lab/scene.h"

// The animated glTF of a scene (declared in lab/scene_gltf.h). Built as a
// tinygltf::Model (one buffer, one buffer view per accessor) and written by
// TinyGLTF as a .glb. glTF 2.0 specification (Khronos): nodes carry
// translation, rotation (unit quaternion x, y, z, w) and scale; animation
// samplers map keyframe times (seconds, with min and max) to those values.

namespace iklab {

namespace {

using nlohmann::json;

[[noreturn]] void Fail(const std::string& source, const std::string& what) {
  throw std::invalid_argument(source + ": " + what);
}

// Metres per scene unit where the unit says it, else 1.
double MetresPerUnit(const std::string& units) {
  if (units == "m") return 1.0;
  if (units == "cm") return 0.01;
  if (units == "mm") return 0.001;
  static const std::regex kStated(R"(\(([0-9.eE+-]+) m\)$)");
  std::smatch match;
  if (std::regex_search(units, match, kStated)) {
    const double metres = std::strtod(match[1].str().c_str(), nullptr);
    if (std::isfinite(metres) && metres > 0.0) return metres;
  }
  return 1.0;
}

// "#rrggbb" (sRGB) as glTF's linear base colour (IEC 61966-2-1 transfer
// function), grey when the text is not a colour.
std::vector<double> LinearColor(const std::string& color, double shade = 1.0) {
  std::vector<double> rgba = {0.5, 0.5, 0.5, 1.0};
  if (color.size() != 7 || color[0] != '#') return rgba;
  for (int i = 0; i < 3; ++i) {
    char* end = nullptr;
    const std::string hex = color.substr(1 + 2 * i, 2);
    const long value = std::strtol(hex.c_str(), &end, 16);
    if (end != hex.c_str() + 2) return {0.5, 0.5, 0.5, 1.0};
    const double c = shade * static_cast<double>(value) / 255.0;
    rgba[i] = c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  }
  return rgba;
}

struct Pose {
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
  Eigen::Quaterniond q = Eigen::Quaterniond::Identity();
};

// X_AB = X_WA^-1 X_WB.
Pose Relative(const Pose& a, const Pose& b) {
  const Eigen::Quaterniond inverse = a.q.conjugate();
  return {inverse * (b.t - a.t), inverse * b.q};
}

bool SamePose(const Pose& a, const Pose& b) {
  const double tolerance = 1e-9;
  return (a.t - b.t).norm() <= tolerance &&
         std::min((a.q.coeffs() - b.q.coeffs()).norm(),
                  (a.q.coeffs() + b.q.coeffs()).norm()) <= tolerance;
}

// Triangle meshes: positions, normals and indices.
struct Geometry {
  std::vector<float> positions, normals;
  std::vector<std::uint16_t> indices;
};

constexpr int kSegments = 16;

// A cylinder of `radius` along axis `axis` (0 x, 1 y, 2 z) from 0 to
// `length`, without caps (the joint spheres close a link).
Geometry Cylinder(double radius, int axis, double length) {
  Geometry g;
  for (int i = 0; i <= kSegments; ++i) {
    const double angle = 2.0 * M_PI * i / kSegments;
    const double c = std::cos(angle), s = std::sin(angle);
    for (int end = 0; end < 2; ++end) {
      Eigen::Vector3d p, n;
      // Local (u, along, v) with along the axis.
      const Eigen::Vector3d local(radius * c, end * length, radius * s);
      const Eigen::Vector3d normal(c, 0.0, s);
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      p[axis] = local[1];
      p[u] = local[2];
      p[v] = local[0];
      n[axis] = 0.0;
      n[u] = normal[2];
      n[v] = normal[0];
      for (int k = 0; k < 3; ++k) {
        g.positions.push_back(static_cast<float>(p[k]));
        g.normals.push_back(static_cast<float>(n[k]));
      }
    }
  }
  for (int i = 0; i < kSegments; ++i) {
    const std::uint16_t a = 2 * i, b = a + 1, c = a + 2, d = a + 3;
    g.indices.insert(g.indices.end(), {a, c, b, b, c, d});
  }
  return g;
}

Geometry Sphere(double radius, const Eigen::Vector3d& center = Eigen::Vector3d::Zero()) {
  Geometry g;
  const int rings = 10;
  for (int r = 0; r <= rings; ++r) {
    const double polar = M_PI * r / rings;
    for (int i = 0; i <= kSegments; ++i) {
      const double angle = 2.0 * M_PI * i / kSegments;
      const Eigen::Vector3d n(std::sin(polar) * std::cos(angle), std::cos(polar),
                              std::sin(polar) * std::sin(angle));
      const Eigen::Vector3d p = center + radius * n;
      for (int k = 0; k < 3; ++k) {
        g.positions.push_back(static_cast<float>(p[k]));
        g.normals.push_back(static_cast<float>(n[k]));
      }
    }
  }
  for (int r = 0; r < rings; ++r) {
    for (int i = 0; i < kSegments; ++i) {
      const std::uint16_t a = r * (kSegments + 1) + i, b = a + kSegments + 1;
      g.indices.insert(g.indices.end(), {a, static_cast<std::uint16_t>(a + 1), b,
                                         b, static_cast<std::uint16_t>(a + 1),
                                         static_cast<std::uint16_t>(b + 1)});
    }
  }
  return g;
}

// The glTF being built: accessors over one buffer, cached materials and
// meshes, nodes.
class Builder {
 public:
  Builder() {
    model_.asset.version = "2.0";
    model_.asset.generator = "iklab (docs/scene-format.md)";
    model_.buffers.resize(1);
  }

  tinygltf::Model& model() { return model_; }

  // Float accessor of `components` per element (1, 3 or 4).
  int Floats(const std::vector<float>& values, int components, int target,
             bool bounds) {
    tinygltf::Accessor a;
    a.bufferView = View(values.data(), values.size() * sizeof(float), target);
    a.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
    a.count = values.size() / components;
    a.type = components == 1   ? TINYGLTF_TYPE_SCALAR
             : components == 3 ? TINYGLTF_TYPE_VEC3
                               : TINYGLTF_TYPE_VEC4;
    if (bounds) {
      a.minValues.assign(components, std::numeric_limits<double>::infinity());
      a.maxValues.assign(components, -std::numeric_limits<double>::infinity());
      for (std::size_t i = 0; i < values.size(); ++i) {
        const int k = static_cast<int>(i % components);
        a.minValues[k] = std::min<double>(a.minValues[k], values[i]);
        a.maxValues[k] = std::max<double>(a.maxValues[k], values[i]);
      }
    }
    model_.accessors.push_back(a);
    return static_cast<int>(model_.accessors.size()) - 1;
  }

  int Material(const std::string& color, double shade = 1.0) {
    const std::string key = color + "*" + std::to_string(shade);
    const auto found = materials_.find(key);
    if (found != materials_.end()) return found->second;
    tinygltf::Material m;
    m.name = color;
    m.pbrMetallicRoughness.baseColorFactor = LinearColor(color, shade);
    m.pbrMetallicRoughness.metallicFactor = 0.0;
    m.pbrMetallicRoughness.roughnessFactor = 0.6;
    model_.materials.push_back(m);
    return materials_[key] = static_cast<int>(model_.materials.size()) - 1;
  }

  // A mesh of one primitive per (geometry, material) part, cached by `key`.
  int Mesh(const std::string& key,
           const std::vector<std::pair<Geometry, int>>& parts) {
    const auto found = meshes_.find(key);
    if (found != meshes_.end()) return found->second;
    tinygltf::Mesh mesh;
    mesh.name = key;
    for (const auto& [geometry, material] : parts) {
      tinygltf::Primitive p;
      p.attributes["POSITION"] =
          Floats(geometry.positions, 3, TINYGLTF_TARGET_ARRAY_BUFFER, true);
      p.attributes["NORMAL"] =
          Floats(geometry.normals, 3, TINYGLTF_TARGET_ARRAY_BUFFER, false);
      tinygltf::Accessor a;
      a.bufferView = View(geometry.indices.data(),
                          geometry.indices.size() * sizeof(std::uint16_t),
                          TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
      a.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
      a.count = geometry.indices.size();
      a.type = TINYGLTF_TYPE_SCALAR;
      model_.accessors.push_back(a);
      p.indices = static_cast<int>(model_.accessors.size()) - 1;
      p.material = material;
      p.mode = TINYGLTF_MODE_TRIANGLES;
      mesh.primitives.push_back(p);
    }
    model_.meshes.push_back(mesh);
    return meshes_[key] = static_cast<int>(model_.meshes.size()) - 1;
  }

  // A node under `parent` (-1: a root of the glTF scene).
  int Node(const std::string& name, int parent, const Pose& pose, int mesh = -1,
           const Eigen::Vector3d& scale = Eigen::Vector3d::Ones()) {
    tinygltf::Node node;
    node.name = name;
    node.mesh = mesh;
    node.translation = {pose.t.x(), pose.t.y(), pose.t.z()};
    node.rotation = {pose.q.x(), pose.q.y(), pose.q.z(), pose.q.w()};
    node.scale = {scale.x(), scale.y(), scale.z()};
    model_.nodes.push_back(node);
    const int index = static_cast<int>(model_.nodes.size()) - 1;
    if (parent >= 0) model_.nodes[parent].children.push_back(index);
    return index;
  }

 private:
  int View(const void* data, std::size_t bytes, int target) {
    std::vector<unsigned char>& buffer = model_.buffers[0].data;
    while (buffer.size() % 4 != 0) buffer.push_back(0);
    tinygltf::BufferView view;
    view.buffer = 0;
    view.byteOffset = buffer.size();
    view.byteLength = bytes;
    view.target = target;
    const auto* begin = static_cast<const unsigned char*>(data);
    buffer.insert(buffer.end(), begin, begin + bytes);
    model_.bufferViews.push_back(view);
    return static_cast<int>(model_.bufferViews.size()) - 1;
  }

  tinygltf::Model model_;
  std::map<std::string, int> materials_;
  std::map<std::string, int> meshes_;
};

// One animation being built: samplers and channels.
class AnimationBuilder {
 public:
  AnimationBuilder(Builder* builder, std::string name)
      : builder_(builder) {
    animation_.name = std::move(name);
  }
  void Channel(int node, const char* path, int input, int output,
               const char* interpolation) {
    tinygltf::AnimationSampler sampler;
    sampler.input = input;
    sampler.output = output;
    sampler.interpolation = interpolation;
    animation_.samplers.push_back(sampler);
    tinygltf::AnimationChannel channel;
    channel.sampler = static_cast<int>(animation_.samplers.size()) - 1;
    channel.target_node = node;
    channel.target_path = path;
    animation_.channels.push_back(channel);
  }
  // LINEAR translation and rotation keyframes of `node`; the quaternions'
  // signs are made continuous so that interpolation takes the short way.
  void Poses(int node, int times, const std::vector<Pose>& poses) {
    std::vector<float> t, r;
    Eigen::Quaterniond previous = poses.front().q;
    for (const Pose& pose : poses) {
      Eigen::Quaterniond q = pose.q;
      if (q.coeffs().dot(previous.coeffs()) < 0.0) q.coeffs() *= -1.0;
      previous = q;
      t.insert(t.end(), {static_cast<float>(pose.t.x()), static_cast<float>(pose.t.y()),
                         static_cast<float>(pose.t.z())});
      r.insert(r.end(), {static_cast<float>(q.x()), static_cast<float>(q.y()),
                         static_cast<float>(q.z()), static_cast<float>(q.w())});
    }
    Channel(node, "translation", times, builder_->Floats(t, 3, 0, false), "LINEAR");
    Channel(node, "rotation", times, builder_->Floats(r, 4, 0, false), "LINEAR");
  }
  void Scales(int node, int times, const std::vector<Eigen::Vector3d>& scales) {
    std::vector<float> s;
    for (const Eigen::Vector3d& v : scales) {
      s.insert(s.end(), {static_cast<float>(v.x()), static_cast<float>(v.y()),
                         static_cast<float>(v.z())});
    }
    Channel(node, "scale", times, builder_->Floats(s, 3, 0, false), "LINEAR");
  }
  tinygltf::Animation Take() { return std::move(animation_); }

 private:
  Builder* builder_;
  tinygltf::Animation animation_;
};

// A figure layer label's node hierarchy and where it is used.
struct Hierarchy {
  int figure = 0;
  std::string label;
  std::vector<std::pair<int, int>> uses;  // (view, layer)
  int root = -1;
  std::vector<int> step_nodes, link_nodes;    // link: -1 when none
  std::vector<bool> step_animated, link_animated;
  // Per use, per frame, per step: the pose relative to the parent step.
  std::vector<std::vector<std::vector<Pose>>> local;
};

// A marker group: one `points` or `poses` layer of one view.
struct Markers {
  int view = 0, layer = 0;
  int group = -1;
  std::vector<int> nodes;
};

// The link cylinder's pose and scale from the child's offset `o` in its
// parent's frame: +Y turned onto o, stretched to |o|.
std::pair<Pose, Eigen::Vector3d> LinkTransform(const Eigen::Vector3d& o) {
  Pose pose;
  const double length = o.norm();
  if (length > 0.0) {
    pose.q = Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitY(), o / length);
  }
  return {pose, Eigen::Vector3d(1.0, length, 1.0)};
}

std::string StepName(const json& step, std::size_t index) {
  const std::string name = step.value("name", std::string());
  return name.empty() ? "step " + std::to_string(index) : name;
}

class SceneToGltf {
 public:
  SceneToGltf(const json& scene, std::string source)
      : scene_(scene), source_(std::move(source)) {}

  void Write(const std::filesystem::path& path) {
    const double metres = MetresPerUnit(scene_["units"].get<std::string>());
    const Eigen::Vector3d up(scene_["up"][0].get<double>(), scene_["up"][1].get<double>(),
                             scene_["up"][2].get<double>());
    if (up.norm() == 0.0) Fail(source_, "\"up\" is a zero vector");
    // The scene's up axis onto glTF's +Y, its unit onto metres.
    Pose to_gltf;
    to_gltf.q = Eigen::Quaterniond::FromTwoVectors(up.normalized(), Eigen::Vector3d::UnitY());
    root_ = builder_.Node(scene_["title"].get<std::string>(), -1, to_gltf, -1,
                          Eigen::Vector3d::Constant(metres));
    tinygltf::Scene gltf_scene;
    gltf_scene.name = scene_["title"].get<std::string>();
    gltf_scene.nodes = {root_};
    builder_.model().scenes.push_back(gltf_scene);
    builder_.model().defaultScene = 0;

    CollectHierarchies();
    for (Hierarchy& h : hierarchies_) BuildHierarchy(&h);
    BuildMarkers();
    for (std::size_t v = 0; v < scene_["views"].size(); ++v) Animate(static_cast<int>(v));

    tinygltf::TinyGLTF writer;
    if (!writer.WriteGltfSceneToFile(&builder_.model(), path.string(),
                                     /*embedImages=*/true, /*embedBuffers=*/true,
                                     /*prettyPrint=*/false, /*writeBinary=*/true)) {
      throw std::runtime_error("cannot write glTF file " + path.string());
    }
  }

 private:
  const json& View(int v) const { return scene_["views"][v]; }
  const json& LayerOf(int v, int l) const { return View(v)["layers"][l]; }

  std::string Where(int v, int l) const {
    return "view " + std::to_string(v) + " '" + View(v)["name"].get<std::string>() +
           "', layer " + std::to_string(l) + " '" +
           LayerOf(v, l)["label"].get<std::string>() + "'";
  }

  // x, y, z, then the quaternion x, y, z, w at `at` of a flat list.
  Pose ReadPose(const json& numbers, std::size_t at, const std::string& where) const {
    Pose pose;
    pose.t = Eigen::Vector3d(numbers[at].get<double>(), numbers[at + 1].get<double>(),
                             numbers[at + 2].get<double>());
    const Eigen::Quaterniond q(numbers[at + 6].get<double>(), numbers[at + 3].get<double>(),
                               numbers[at + 4].get<double>(), numbers[at + 5].get<double>());
    if (!(q.norm() > 1e-9)) Fail(source_, where + ": a zero quaternion");
    pose.q = q.normalized();
    return pose;
  }

  // One hierarchy per (figure, label, n-th layer of that figure and label
  // in its view): a solver's answer in every trial view is one hierarchy.
  void CollectHierarchies() {
    std::map<std::tuple<int, std::string, int>, int> index;
    for (std::size_t v = 0; v < scene_["views"].size(); ++v) {
      std::map<std::pair<int, std::string>, int> seen;
      const json& layers = View(static_cast<int>(v))["layers"];
      for (std::size_t l = 0; l < layers.size(); ++l) {
        if (layers[l]["type"] != "figure") continue;
        const int figure = layers[l]["figure"].get<int>();
        const std::string label = layers[l]["label"].get<std::string>();
        const auto key = std::make_tuple(figure, label, seen[{figure, label}]++);
        auto found = index.find(key);
        if (found == index.end()) {
          found = index.emplace(key, static_cast<int>(hierarchies_.size())).first;
          hierarchies_.push_back({});
          hierarchies_.back().figure = figure;
          hierarchies_.back().label = label;
        }
        hierarchies_[found->second].uses.push_back({static_cast<int>(v), static_cast<int>(l)});
      }
    }
  }

  void BuildHierarchy(Hierarchy* h) {
    const json& figure = scene_["figures"][h->figure];
    const json& steps = figure["steps"];
    const json& sites = figure["sites"];
    const std::size_t n = steps.size();
    const double radius = figure["radius"].get<double>();
    const auto [first_view, first_layer] = h->uses.front();
    const std::string color = LayerOf(first_view, first_layer)["color"].get<std::string>();

    std::vector<Pose> rest_world(n);
    for (const auto& [v, l] : h->uses) {
      const json& poses = LayerOf(v, l)["poses"];
      std::vector<std::vector<Pose>> frames;
      for (std::size_t k = 0; k < poses.size(); ++k) {
        std::vector<Pose> world(n), local(n);
        for (std::size_t s = 0; s < n; ++s) {
          world[s] = ReadPose(poses[k], 7 * s,
                              Where(v, l) + ", frame " + std::to_string(k) + ", step " +
                                  std::to_string(s));
          const int parent = steps[s]["parent"].get<int>();
          local[s] = parent < 0 ? world[s] : Relative(world[parent], world[s]);
        }
        if (frames.empty() && h->local.empty()) rest_world = world;
        frames.push_back(std::move(local));
      }
      h->local.push_back(std::move(frames));
    }
    const std::vector<Pose>& rest = h->local[0][0];
    h->step_animated.assign(n, false);
    h->link_animated.assign(n, false);
    // The translations of a floating base (prismatic steps from the root)
    // move the figure and are not bodies: no cylinder from the world origin
    // to the figure (as the page draws it, web/viewer.js).
    std::vector<bool> translation(n, false);
    for (std::size_t s = 0; s < n; ++s) {
      const int parent = steps[s]["parent"].get<int>();
      translation[s] = steps[s]["kind"].get<std::string>() == "prismatic" && parent >= 0 &&
                       (steps[parent]["parent"].get<int>() < 0 || translation[parent]);
    }
    std::vector<bool> has_link(n, false);
    for (const auto& frames : h->local) {
      for (const auto& local : frames) {
        for (std::size_t s = 0; s < n; ++s) {
          if (!SamePose(local[s], rest[s])) h->step_animated[s] = true;
          if (s > 0 && !translation[s] && local[s].t.norm() > 1e-12) has_link[s] = true;
          if ((local[s].t - rest[s].t).norm() > 1e-9) h->link_animated[s] = true;
        }
      }
    }

    const bool shown = h->uses.front().first == 0;
    h->root = builder_.Node(h->label + " (" + figure["name"].get<std::string>() + ")",
                            root_, Pose(), -1,
                            Eigen::Vector3d::Constant(shown ? 1.0 : 0.0));
    const int joint_mesh = builder_.Mesh(
        "joint r=" + std::to_string(radius) + " " + color,
        {{Sphere(1.15 * radius), builder_.Material(color, 0.7)}});
    const int link_mesh = builder_.Mesh(
        "link r=" + std::to_string(radius) + " " + color,
        {{Cylinder(radius, 1, 1.0), builder_.Material(color)}});
    const int site_mesh = builder_.Mesh(
        "site r=" + std::to_string(radius),
        {{Sphere(0.8 * radius), builder_.Material("#222222")}});
    h->step_nodes.assign(n, -1);
    h->link_nodes.assign(n, -1);
    for (std::size_t s = 0; s < n; ++s) {
      const int parent = steps[s]["parent"].get<int>();
      const std::string name = h->label + "/" + StepName(steps[s], s);
      h->step_nodes[s] = builder_.Node(name, parent < 0 ? h->root : h->step_nodes[parent],
                                       rest[s], joint_mesh);
      if (has_link[s]) {
        const auto [pose, scale] = LinkTransform(rest[s].t);
        h->link_nodes[s] =
            builder_.Node(name + " link", h->step_nodes[parent], pose, link_mesh, scale);
      }
    }
    // Sites: fixed in their step's frame.
    const json& first_frame = LayerOf(first_view, first_layer)["poses"][0];
    for (std::size_t i = 0; i < sites.size(); ++i) {
      const int step = sites[i]["step"].get<int>();
      const std::size_t at = 7 * n + 3 * i;
      const Eigen::Vector3d p_W(first_frame[at].get<double>(), first_frame[at + 1].get<double>(),
                                first_frame[at + 2].get<double>());
      Pose offset;
      offset.t = rest_world[step].q.conjugate() * (p_W - rest_world[step].t);
      builder_.Node(h->label + "/" + sites[i].value("name", std::string("site")),
                    h->step_nodes[step], offset, site_mesh);
    }
  }

  void BuildMarkers() {
    for (std::size_t v = 0; v < scene_["views"].size(); ++v) {
      const json& view = View(static_cast<int>(v));
      const json& layers = view["layers"];
      for (std::size_t l = 0; l < layers.size(); ++l) {
        const json& layer = layers[l];
        const bool points = layer["type"] == "points";
        if (!points && layer["type"] != "poses") continue;
        Markers m;
        m.view = static_cast<int>(v);
        m.layer = static_cast<int>(l);
        const std::string label = layer["label"].get<std::string>();
        const std::string color = layer["color"].get<std::string>();
        m.group = builder_.Node(label + " (" + view["name"].get<std::string>() + ")", root_,
                                Pose(), -1, Eigen::Vector3d::Constant(v == 0 ? 1.0 : 0.0));
        const double size = layer["size"].get<double>();
        const int mesh =
            points ? builder_.Mesh("marker d=" + std::to_string(size) + " " + color,
                                   {{Sphere(0.5 * size), builder_.Material(color)}})
                   : builder_.Mesh("frame " + std::to_string(size) + " " + color,
                                   {{Sphere(0.08 * size), builder_.Material(color)},
                                    {Cylinder(0.03 * size, 0, size), builder_.Material("#d62728")},
                                    {Cylinder(0.03 * size, 1, size), builder_.Material("#2ca02c")},
                                    {Cylinder(0.03 * size, 2, size), builder_.Material("#1f77b4")}});
        const std::vector<std::vector<Pose>> frames = MarkerFrames(m);
        for (std::size_t i = 0; i < frames.front().size(); ++i) {
          m.nodes.push_back(builder_.Node(label + " " + std::to_string(i + 1), m.group,
                                          frames.front()[i], mesh));
        }
        markers_.push_back(std::move(m));
      }
    }
  }

  // Per frame, the markers' poses (points: position only). An animated
  // layer whose frames hold fewer markers keeps the last one in place of
  // the missing.
  std::vector<std::vector<Pose>> MarkerFrames(const Markers& m) const {
    const json& layer = LayerOf(m.view, m.layer);
    const bool points = layer["type"] == "points";
    const char* key = points ? "points" : "poses";
    const std::size_t stride = points ? 3 : 7;
    std::vector<json> lists;
    if (layer.value("animated", false)) {
      for (const json& frame : layer[key]) lists.push_back(frame);
    } else {
      lists.push_back(layer[key]);
    }
    std::size_t count = 0;
    for (const json& list : lists) count = std::max(count, list.size() / stride);
    std::vector<std::vector<Pose>> frames;
    for (std::size_t k = 0; k < lists.size(); ++k) {
      std::vector<Pose> poses(count);
      const std::size_t here = lists[k].size() / stride;
      for (std::size_t i = 0; i < count; ++i) {
        if (here == 0) {
          poses[i] = frames.empty() ? Pose() : frames.back()[i];
          continue;
        }
        const std::size_t at = stride * std::min(i, here - 1);
        if (points) {
          poses[i].t = Eigen::Vector3d(lists[k][at].get<double>(), lists[k][at + 1].get<double>(),
                                       lists[k][at + 2].get<double>());
        } else {
          poses[i] = ReadPose(lists[k], at, Where(m.view, m.layer) + ", pose " +
                                                std::to_string(i));
        }
      }
      frames.push_back(std::move(poses));
    }
    return frames;
  }

  // The view's animation: visibility of every hierarchy and marker group,
  // and the keyframes of what moves in it.
  void Animate(int v) {
    const json& view = View(v);
    const int frames = view["frames"].get<int>();
    const double dt = view["frame_seconds"].get<double>();
    std::vector<float> times;
    for (int k = 0; k < frames; ++k) times.push_back(static_cast<float>(k * dt));
    const int keys = builder_.Floats(times, 1, 0, true);
    const int one_key = builder_.Floats({0.0f}, 1, 0, true);
    const int shown = builder_.Floats({1.0f, 1.0f, 1.0f}, 3, 0, false);
    const int hidden = builder_.Floats({0.0f, 0.0f, 0.0f}, 3, 0, false);
    AnimationBuilder animation(&builder_, view["name"].get<std::string>());

    for (const Hierarchy& h : hierarchies_) {
      int use = -1;
      for (std::size_t u = 0; u < h.uses.size(); ++u) {
        if (h.uses[u].first == v) use = static_cast<int>(u);
      }
      animation.Channel(h.root, "scale", one_key, use >= 0 ? shown : hidden, "STEP");
      if (use < 0) continue;
      const auto& local = h.local[use];
      for (std::size_t s = 0; s < h.step_nodes.size(); ++s) {
        if (h.step_animated[s]) {
          std::vector<Pose> poses;
          for (const auto& frame : local) poses.push_back(frame[s]);
          animation.Poses(h.step_nodes[s], keys, poses);
        }
        if (h.link_nodes[s] >= 0 && h.link_animated[s]) {
          std::vector<Pose> poses;
          std::vector<Eigen::Vector3d> scales;
          for (const auto& frame : local) {
            const auto [pose, scale] = LinkTransform(frame[s].t);
            poses.push_back(pose);
            scales.push_back(scale);
          }
          animation.Poses(h.link_nodes[s], keys, poses);
          animation.Scales(h.link_nodes[s], keys, scales);
        }
      }
    }
    for (const Markers& m : markers_) {
      animation.Channel(m.group, "scale", one_key, m.view == v ? shown : hidden, "STEP");
      if (m.view != v || !LayerOf(m.view, m.layer).value("animated", false)) continue;
      const std::vector<std::vector<Pose>> poses = MarkerFrames(m);
      for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        std::vector<Pose> track;
        for (const auto& frame : poses) track.push_back(frame[i]);
        animation.Poses(m.nodes[i], keys, track);
      }
    }
    builder_.model().animations.push_back(animation.Take());
  }

  const json& scene_;
  std::string source_;
  Builder builder_;
  int root_ = -1;
  std::vector<Hierarchy> hierarchies_;
  std::vector<Markers> markers_;
};

}  // namespace

bool SceneHasGltfContent(const json& scene) {
  if (!scene.contains("views") || !scene["views"].is_array()) return false;
  for (const json& view : scene["views"]) {
    if (!view.is_object() || !view.contains("layers") || !view["layers"].is_array()) continue;
    for (const json& layer : view["layers"]) {
      const json type = layer.is_object() ? layer.value("type", json()) : json();
      if (type == "figure" || type == "points" || type == "poses") return true;
    }
  }
  return false;
}

void WriteSceneGltf(const json& scene, const std::filesystem::path& path,
                    const std::string& source) {
  ValidateScene(scene, source);
  if (!SceneHasGltfContent(scene)) {
    Fail(source, "nothing to write as glTF (no figure, points or poses layer)");
  }
  SceneToGltf(scene, source).Write(path);
}

std::filesystem::path SceneGltfPath(const std::filesystem::path& scene_file) {
  std::filesystem::path glb = scene_file;
  return glb.replace_extension(".glb");
}

std::filesystem::path WriteSceneGltfBeside(const std::filesystem::path& scene_file) {
  const json scene = ReadScene(scene_file);
  if (!SceneHasGltfContent(scene)) return {};
  const std::filesystem::path glb = SceneGltfPath(scene_file);
  WriteSceneGltf(scene, glb, scene_file.string());
  return glb;
}

}  // namespace iklab
