#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/kinematics.h"
#include "lab/scene.h"

// Motions in scenes (declared in lab/scene.h): a figure's frames thinned for
// drawing, its sites' paths and the moving targets.

namespace iklab {

double FigureExtent(const Model& model, const Eigen::VectorXd& q) {
  if (q.size() != model.nq()) {
    throw std::invalid_argument("FigureExtent: q has " +
                                std::to_string(q.size()) +
                                " coordinates, the model " +
                                std::to_string(model.nq()));
  }
  Data data(model);
  ForwardKinematics(model, q, &data);
  double extent = 1e-3;
  for (int step = 0; step < model.num_steps(); ++step) {
    extent = std::max(extent, data.X_W(step).translation().norm());
  }
  for (int site = 0; site < model.num_sites(); ++site) {
    extent = std::max(extent, SitePosition(model, data, site).norm());
  }
  return extent;
}

std::vector<int> ThinnedFrames(int count, int max_frames) {
  if (count < 1 || max_frames < 2) {
    throw std::invalid_argument(
        "ThinnedFrames: need count >= 1 and max_frames >= 2, got count " +
        std::to_string(count) + ", max_frames " + std::to_string(max_frames));
  }
  const int stride = std::max(1, (count - 1 + max_frames - 2) / (max_frames - 1));
  std::vector<int> frames;
  for (int k = 0; k < count; k += stride) frames.push_back(k);
  if (frames.back() != count - 1) frames.push_back(count - 1);
  return frames;
}

SceneView& AddMotionView(
    const std::string& name, int figure, const std::vector<SceneMotion>& motions,
    const std::vector<std::string>& sites,
    const std::vector<std::vector<Eigen::Vector3d>>& targets, double size,
    double frame_seconds, Scene* scene, int max_frames) {
  if (motions.empty() || motions[0].q.empty()) {
    throw std::invalid_argument("AddMotionView: view '" + name +
                                "' has no motion (or an empty one)");
  }
  const int count = static_cast<int>(motions[0].q.size());
  for (const SceneMotion& motion : motions) {
    if (static_cast<int>(motion.q.size()) != count) {
      throw std::invalid_argument(
          "AddMotionView: view '" + name + "', motion '" + motion.label +
          "' has " + std::to_string(motion.q.size()) + " frames, '" +
          motions[0].label + "' " + std::to_string(count));
    }
  }
  if (!targets.empty() && static_cast<int>(targets.size()) != count) {
    throw std::invalid_argument("AddMotionView: view '" + name + "' has " +
                                std::to_string(targets.size()) +
                                " target frames for " + std::to_string(count) +
                                " motion frames");
  }
  const Model& model = scene->figure_model(figure);
  std::vector<int> site_indices;
  for (const std::string& site : sites) {
    site_indices.push_back(model.SiteIndex(site));  // throws for an unknown one
  }
  const std::vector<int> drawn = ThinnedFrames(count, max_frames);
  const int stride = drawn.size() > 1 ? drawn[1] - drawn[0] : 1;

  SceneView& view = scene->AddView(name);
  view.SetFrames(static_cast<int>(drawn.size()), frame_seconds * stride);
  view.AddFigure(figure, {motions[0].q[0]}, "start", "#999999");
  Data data(model);
  for (const SceneMotion& motion : motions) {
    std::vector<Eigen::VectorXd> poses;
    for (int k : drawn) poses.push_back(motion.q[k]);
    view.AddFigure(figure, poses, motion.label, motion.color);
    if (count < 2) continue;
    for (std::size_t s = 0; s < sites.size(); ++s) {
      std::vector<Eigen::Vector3d> path;
      for (const Eigen::VectorXd& q : motion.q) {
        if (q.size() != model.nq()) break;  // AddFigure above names the fault
        ForwardKinematics(model, q, &data);
        path.push_back(SitePosition(model, data, site_indices[s]));
      }
      view.AddPath(path, false, motion.label + ": " + sites[s] + " path",
                   motion.color);
    }
  }
  if (!targets.empty()) {
    const std::size_t num_targets = targets[0].size();
    for (std::size_t t = 0; t < num_targets && count > 1; ++t) {
      std::vector<Eigen::Vector3d> path;
      for (const auto& frame : targets) {
        if (t < frame.size()) path.push_back(frame[t]);
      }
      view.AddPath(path, false,
                   num_targets == 1 ? "target path"
                                    : "target " + std::to_string(t + 1) + " path",
                   "#000000");
    }
    std::vector<std::vector<Eigen::Vector3d>> moving;
    for (int k : drawn) moving.push_back(targets[k]);
    view.AddAnimatedPoints(moving, "targets", "#000000", size);
  }
  return view;
}

}  // namespace iklab
