#include "lab/scene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "constraints/aiming_goal.h"
#include "constraints/composite_goals.h"
#include "constraints/distance_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/relative_pose_goal.h"
#include "constraints/tolerance_goals.h"
#include "framework/kinematics.h"

// The scene builder, the goal drawings and the reader of
// docs/scene-format.md (declared in lab/scene.h).

namespace iklab {

namespace {

using nlohmann::json;

// 6 significant digits: the shortest round-trip form of the rounded value
// (what nlohmann::json writes) then has at most 6 digits.
double Round(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", x);
  return std::strtod(buffer, nullptr);
}

json Numbers(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(Round(v));
  return out;
}

json Vec(const Eigen::Vector3d& v) { return Numbers({v.x(), v.y(), v.z()}); }

std::vector<double> Flat(const std::vector<Eigen::Vector3d>& points) {
  std::vector<double> out;
  out.reserve(3 * points.size());
  for (const Eigen::Vector3d& p : points) {
    out.insert(out.end(), {p.x(), p.y(), p.z()});
  }
  return out;
}

// x, y, z, then the unit quaternion x, y, z, w.
void AppendPose(const Eigen::Isometry3d& X, std::vector<double>* out) {
  const Eigen::Quaterniond quaternion =
      Eigen::Quaterniond(X.linear()).normalized();
  const Eigen::Vector3d& p = X.translation();
  out->insert(out->end(), {p.x(), p.y(), p.z(), quaternion.x(), quaternion.y(),
                           quaternion.z(), quaternion.w()});
}

const char* StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kFixed: return "fixed";
    case StepKind::kRevolute: return "revolute";
    case StepKind::kPrismatic: return "prismatic";
  }
  return "fixed";
}

}  // namespace

// ---------------------------------------------------------------- SceneView

json SceneView::Layer(const char* type, const std::string& label,
                      const std::string& color) const {
  if (label.empty()) {
    throw std::invalid_argument("scene view '" + name_ + "': a " + type +
                                " layer needs a label");
  }
  if (color.size() != 7 || color[0] != '#') {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': colour must be \"#rrggbb\", got \"" +
                                color + "\"");
  }
  return json{{"type", type}, {"label", label}, {"color", color}};
}

void SceneView::CheckFinite(const std::vector<double>& values,
                            const std::string& label, const char* field) const {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw std::invalid_argument(
          "scene view '" + name_ + "', layer '" + label + "': " + field +
          " holds a non-finite number (" + std::to_string(values[i]) +
          " at entry " + std::to_string(i) + "); a scene never stores NaN/Inf");
    }
  }
}

void SceneView::CheckFinite(double value, const std::string& label,
                            const char* field) const {
  CheckFinite(std::vector<double>{value}, label, field);
}

void SceneView::Animate(int count, const std::string& label) {
  if (count <= 1) return;
  if (frames_fixed_ && count != frames_) {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': " + std::to_string(count) +
                                " frames, the view has " +
                                std::to_string(frames_));
  }
  frames_ = count;
  frames_fixed_ = true;
}

SceneView& SceneView::SetFrames(int frames, double frame_seconds) {
  if (frames < 1) {
    throw std::invalid_argument("scene view '" + name_ +
                                "': frames must be >= 1, got " +
                                std::to_string(frames));
  }
  if (!(frame_seconds > 0.0) || !std::isfinite(frame_seconds)) {
    throw std::invalid_argument("scene view '" + name_ +
                                "': frame_seconds must be finite and > 0");
  }
  if (frames_fixed_ && frames != frames_) {
    throw std::invalid_argument("scene view '" + name_ + "': frames " +
                                std::to_string(frames) +
                                " differ from its animated layers' " +
                                std::to_string(frames_));
  }
  frames_ = frames;
  frames_fixed_ = true;
  frame_seconds_ = frame_seconds;
  return *this;
}

SceneView& SceneView::SetTable(std::vector<std::string> columns,
                               std::vector<std::vector<std::string>> rows) {
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != columns.size()) {
      throw std::invalid_argument(
          "scene view '" + name_ + "': table row " + std::to_string(r) +
          " has " + std::to_string(rows[r].size()) + " cells, expected " +
          std::to_string(columns.size()));
    }
  }
  table_ = json{{"columns", std::move(columns)}, {"rows", std::move(rows)}};
  return *this;
}

SceneView& SceneView::AddFigure(int figure,
                                const std::vector<Eigen::VectorXd>& q,
                                const std::string& label,
                                const std::string& color) {
  json layer = Layer("figure", label, color);
  if (figure < 0 || figure >= static_cast<int>(figures_->size())) {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': no figure " + std::to_string(figure));
  }
  if (q.empty()) {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': no pose");
  }
  const Model& model = *(*figures_)[figure].model;
  Data data(model);
  json poses = json::array();
  std::vector<double> frame;
  for (const Eigen::VectorXd& qk : q) {
    if (qk.size() != model.nq()) {
      throw std::invalid_argument(
          "scene view '" + name_ + "', layer '" + label + "': a pose has " +
          std::to_string(qk.size()) + " coordinates, the figure " +
          std::to_string(model.nq()));
    }
    CheckFinite(std::vector<double>(qk.data(), qk.data() + qk.size()), label,
                "q");
    ForwardKinematics(model, qk, &data);
    frame.clear();
    for (int step = 0; step < model.num_steps(); ++step) {
      AppendPose(data.X_W(step), &frame);
    }
    for (int site = 0; site < model.num_sites(); ++site) {
      const Eigen::Vector3d p = SitePosition(model, data, site);
      frame.insert(frame.end(), {p.x(), p.y(), p.z()});
    }
    CheckFinite(frame, label, "poses");
    poses.push_back(Numbers(frame));
  }
  Animate(static_cast<int>(q.size()), label);
  layer["figure"] = figure;
  layer["poses"] = std::move(poses);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddPoints(const std::vector<Eigen::Vector3d>& points,
                                const std::string& label,
                                const std::string& color, double size) {
  json layer = Layer("points", label, color);
  const std::vector<double> flat = Flat(points);
  CheckFinite(flat, label, "points");
  CheckFinite(size, label, "size");
  layer["points"] = Numbers(flat);
  layer["size"] = Round(size);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddAnimatedPoints(
    const std::vector<std::vector<Eigen::Vector3d>>& points,
    const std::string& label, const std::string& color, double size) {
  json layer = Layer("points", label, color);
  json frames = json::array();
  for (const std::vector<Eigen::Vector3d>& frame : points) {
    const std::vector<double> flat = Flat(frame);
    CheckFinite(flat, label, "points");
    frames.push_back(Numbers(flat));
  }
  CheckFinite(size, label, "size");
  if (points.size() == 1) {
    layer["points"] = frames[0];
  } else {
    Animate(static_cast<int>(points.size()), label);
    layer["points"] = std::move(frames);
    layer["animated"] = true;
  }
  layer["size"] = Round(size);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddPoses(const std::vector<Eigen::Isometry3d>& poses,
                               const std::string& label,
                               const std::string& color, double size) {
  json layer = Layer("poses", label, color);
  std::vector<double> flat;
  for (const Eigen::Isometry3d& X : poses) AppendPose(X, &flat);
  CheckFinite(flat, label, "poses");
  CheckFinite(size, label, "size");
  layer["poses"] = Numbers(flat);
  layer["size"] = Round(size);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddAnimatedPoses(
    const std::vector<std::vector<Eigen::Isometry3d>>& poses,
    const std::string& label, const std::string& color, double size) {
  json layer = Layer("poses", label, color);
  if (poses.empty()) {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': no frame");
  }
  json frames = json::array();
  for (const std::vector<Eigen::Isometry3d>& frame : poses) {
    std::vector<double> flat;
    for (const Eigen::Isometry3d& X : frame) AppendPose(X, &flat);
    CheckFinite(flat, label, "poses");
    frames.push_back(Numbers(flat));
  }
  CheckFinite(size, label, "size");
  if (poses.size() == 1) {
    layer["poses"] = frames[0];
  } else {
    Animate(static_cast<int>(poses.size()), label);
    layer["poses"] = std::move(frames);
    layer["animated"] = true;
  }
  layer["size"] = Round(size);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddRays(const std::vector<Eigen::Vector3d>& origins,
                              const std::vector<Eigen::Vector3d>& directions,
                              const std::string& label,
                              const std::string& color, double length) {
  json layer = Layer("rays", label, color);
  if (origins.size() != directions.size()) {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': " + std::to_string(origins.size()) +
                                " origins but " +
                                std::to_string(directions.size()) +
                                " directions");
  }
  std::vector<Eigen::Vector3d> unit;
  for (const Eigen::Vector3d& d : directions) {
    CheckFinite(Flat({d}), label, "directions");
    if (d.norm() == 0.0) {
      throw std::invalid_argument("scene view '" + name_ + "', layer '" +
                                  label + "': a zero direction");
    }
    unit.push_back(d.normalized());
  }
  const std::vector<double> flat_origins = Flat(origins);
  CheckFinite(flat_origins, label, "origins");
  CheckFinite(length, label, "length");
  layer["origins"] = Numbers(flat_origins);
  layer["directions"] = Numbers(Flat(unit));
  layer["length"] = Round(length);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddPath(const std::vector<Eigen::Vector3d>& points,
                              bool closed, const std::string& label,
                              const std::string& color) {
  json layer = Layer("path", label, color);
  const std::vector<double> flat = Flat(points);
  CheckFinite(flat, label, "points");
  layer["points"] = Numbers(flat);
  layer["closed"] = closed;
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddPlane(const Eigen::Vector3d& point,
                               const Eigen::Vector3d& normal, double size,
                               const std::string& label,
                               const std::string& color) {
  json layer = Layer("plane", label, color);
  CheckFinite(Flat({point, normal}), label, "point/normal");
  CheckFinite(size, label, "size");
  if (normal.norm() == 0.0) {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': a zero normal");
  }
  layer["point"] = Vec(point);
  layer["normal"] = Vec(normal.normalized());
  layer["size"] = Round(size);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddCone(const Eigen::Vector3d& apex,
                              const Eigen::Vector3d& axis, double half_angle,
                              double length, const std::string& label,
                              const std::string& color) {
  json layer = Layer("cone", label, color);
  CheckFinite(Flat({apex, axis}), label, "apex/axis");
  CheckFinite({half_angle, length}, label, "half_angle/length");
  if (axis.norm() == 0.0) {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': a zero axis");
  }
  layer["apex"] = Vec(apex);
  layer["axis"] = Vec(axis.normalized());
  layer["half_angle"] = Round(half_angle);
  layer["length"] = Round(length);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddBox(const Eigen::Vector3d& center,
                             const Eigen::Vector3d& half_extents,
                             const Eigen::Quaterniond& rotation,
                             const std::string& label,
                             const std::string& color) {
  json layer = Layer("box", label, color);
  const Eigen::Quaterniond unit = rotation.normalized();
  CheckFinite(Flat({center, half_extents}), label, "center/half_extents");
  CheckFinite({unit.x(), unit.y(), unit.z(), unit.w()}, label, "rotation");
  layer["center"] = Vec(center);
  layer["half_extents"] = Vec(half_extents);
  layer["rotation"] = Numbers({unit.x(), unit.y(), unit.z(), unit.w()});
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddSphere(const Eigen::Vector3d& center, double radius,
                                const std::string& label,
                                const std::string& color) {
  json layer = Layer("sphere", label, color);
  CheckFinite(Flat({center}), label, "center");
  CheckFinite(radius, label, "radius");
  layer["center"] = Vec(center);
  layer["radius"] = Round(radius);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddCapsule(const Eigen::Vector3d& a,
                                 const Eigen::Vector3d& b, double radius,
                                 const std::string& label,
                                 const std::string& color) {
  json layer = Layer("capsule", label, color);
  CheckFinite(Flat({a, b}), label, "a/b");
  CheckFinite(radius, label, "radius");
  layer["a"] = Vec(a);
  layer["b"] = Vec(b);
  layer["radius"] = Round(radius);
  layers_.push_back(std::move(layer));
  return *this;
}

SceneView& SceneView::AddVoxels(const std::vector<Eigen::Vector3d>& centers,
                                const std::vector<double>& values, double size,
                                const std::string& value_name,
                                const Eigen::Vector2d& range,
                                const std::string& label,
                                const std::string& color) {
  json layer = Layer("voxels", label, color);
  if (centers.size() != values.size()) {
    throw std::invalid_argument("scene view '" + name_ + "', layer '" + label +
                                "': " + std::to_string(centers.size()) +
                                " centres but " + std::to_string(values.size()) +
                                " values");
  }
  const std::vector<double> flat = Flat(centers);
  CheckFinite(flat, label, "centers");
  CheckFinite(values, label, "values");
  CheckFinite({size, range.x(), range.y()}, label, "size/range");
  layer["size"] = Round(size);
  layer["centers"] = Numbers(flat);
  layer["values"] = Numbers(values);
  layer["value_name"] = value_name;
  layer["range"] = Numbers({range.x(), range.y()});
  layers_.push_back(std::move(layer));
  return *this;
}

json SceneView::ToJson() const {
  json view{{"name", name_},
            {"frames", frames_},
            {"frame_seconds", Round(frame_seconds_)}};
  if (!table_.is_null()) view["table"] = table_;
  json layers = json::array();
  for (const json& layer : layers_) {
    // A still figure in an animated view: its pose once per frame.
    if (layer["type"] == "figure" && layer["poses"].size() == 1 &&
        frames_ > 1) {
      json expanded = layer;
      expanded["poses"] = json::array();
      for (int k = 0; k < frames_; ++k) {
        expanded["poses"].push_back(layer["poses"][0]);
      }
      layers.push_back(std::move(expanded));
    } else {
      layers.push_back(layer);
    }
  }
  view["layers"] = std::move(layers);
  return view;
}

// -------------------------------------------------------------------- Scene

Scene::Scene(std::string title, std::string units, const Eigen::Vector3d& up)
    : title_(std::move(title)),
      units_(std::move(units)),
      figures_(std::make_shared<SceneView::FigureList>()) {
  if (units_.empty()) {
    throw std::invalid_argument("Scene: units must not be empty (e.g. \"m\")");
  }
  if (!up.allFinite() || up.norm() == 0.0) {
    throw std::invalid_argument("Scene: up must be a finite non-zero vector");
  }
  up_ = up.normalized();
}

int Scene::AddFigure(const Model& model, const std::string& name,
                     double radius) {
  if (name.empty()) {
    throw std::invalid_argument("Scene::AddFigure: the name is empty");
  }
  if (!(radius > 0.0) || !std::isfinite(radius)) {
    throw std::invalid_argument("Scene::AddFigure: figure '" + name +
                                "': radius must be finite and > 0, got " +
                                std::to_string(radius));
  }
  figures_->push_back({name, std::make_shared<const Model>(model), radius});
  return static_cast<int>(figures_->size()) - 1;
}

const Model& Scene::figure_model(int figure) const {
  if (figure < 0 || figure >= num_figures()) {
    throw std::invalid_argument("Scene::figure_model: no figure " +
                                std::to_string(figure) + " (the scene has " +
                                std::to_string(num_figures()) + ")");
  }
  return *(*figures_)[figure].model;
}

SceneView& Scene::AddView(const std::string& name) {
  if (name.empty()) {
    throw std::invalid_argument("Scene::AddView: the name is empty");
  }
  for (const auto& view : views_) {
    if (view->name() == name) {
      throw std::invalid_argument("Scene::AddView: a view named '" + name +
                                  "' exists already");
    }
  }
  views_.push_back(std::unique_ptr<SceneView>(new SceneView(name, figures_)));
  return *views_.back();
}

json SceneFigureJson(const Model& model, const std::string& name,
                     double radius) {
  std::vector<std::string> link_of_step(model.num_steps());
  for (int link = 0; link < model.num_links(); ++link) {
    link_of_step[model.link_step(link)] = model.link_name(link);
  }
  json steps = json::array();
  for (int step = 0; step < model.num_steps(); ++step) {
    const int dof = model.full_dof(step);
    const bool fixed = model.kind(step) == StepKind::kFixed;
    const Eigen::Vector3d axis =
        fixed ? Eigen::Vector3d::Zero() : Eigen::Vector3d(model.axis(step));
    steps.push_back({{"name", dof >= 0 ? model.full_dof_name(dof) : link_of_step[step]},
                     {"parent", step == 0 ? -1 : model.parent(step)},
                     {"kind", StepKindName(model.kind(step))},
                     {"axis", Vec(axis)},
                     {"link", link_of_step[step]}});
  }
  json sites = json::array();
  for (int site = 0; site < model.num_sites(); ++site) {
    sites.push_back(
        {{"name", model.site_name(site)}, {"step", model.site_step(site)}});
  }
  return json{{"name", name},
              {"steps", std::move(steps)},
              {"sites", std::move(sites)},
              {"radius", Round(radius)}};
}

json Scene::ToJson() const {
  json figures = json::array();
  for (const SceneView::FigureEntry& figure : *figures_) {
    figures.push_back(SceneFigureJson(*figure.model, figure.name, figure.radius));
  }
  json views = json::array();
  for (const auto& view : views_) views.push_back(view->ToJson());
  return json{{"format", kSceneFormat},
              {"version", kSceneVersion},
              {"title", title_},
              {"units", units_},
              {"up", Vec(up_)},
              {"figures", std::move(figures)},
              {"views", std::move(views)}};
}

void Scene::Write(const std::filesystem::path& path) const {
  const std::string text = ToJson().dump();
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write scene " + path.string());
  out << text << '\n';
  if (!out) throw std::runtime_error("cannot write scene " + path.string());
}

}  // namespace iklab
