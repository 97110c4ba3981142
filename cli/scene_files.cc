#include "cli/scene_files.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/bvh_loader.h"
#include "framework/kinematics.h"
#include "framework/urdf_loader.h"
#include "lab/scene.h"
#include "reach/reach_hdf5.h"
#include "reach/reach_scene.h"

namespace iklab {

namespace {

// BVH frames drawn at most: longer motions are thinned evenly.
constexpr int kMaxBvhFrames = 600;

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Largest distance of a step origin from the world origin at q.
double Extent(const Model& model, const Eigen::VectorXd& q) {
  Data data(model);
  ForwardKinematics(model, q, &data);
  double extent = 1e-3;
  for (int step = 0; step < model.num_steps(); ++step) {
    extent = std::max(extent, data.X_W(step).translation().norm());
  }
  return extent;
}

nlohmann::json UrdfScene(const std::filesystem::path& path) {
  const UrdfFigure urdf = LoadUrdf(path.string());
  const Model model = urdf.figure.Compile();
  Scene scene(urdf.robot_name + " (" + path.filename().string() + ")", "m",
              Eigen::Vector3d::UnitZ());
  const Eigen::VectorXd q = model.MidLimits();
  const int figure =
      scene.AddFigure(model, urdf.robot_name, 0.02 * Extent(model, q));
  scene.AddView("mid-limits").AddFigure(figure, {q}, urdf.robot_name, "#1f77b4");
  return scene.ToJson();
}

nlohmann::json BvhScene(const std::filesystem::path& path) {
  const BvhFigure bvh = LoadBvh(path.string());
  const Model model = bvh.figure.Compile();
  if (bvh.num_frames() < 1) {
    throw std::invalid_argument(path.string() + ": the motion has no frames");
  }
  const int stride = (bvh.num_frames() + kMaxBvhFrames - 1) / kMaxBvhFrames;
  std::vector<Eigen::VectorXd> poses;
  for (int k = 0; k < bvh.num_frames(); k += stride) {
    poses.push_back(bvh.poses.row(k).transpose());
  }
  Scene scene(path.filename().string(), "bvh units", Eigen::Vector3d::UnitY());
  const int figure = scene.AddFigure(model, path.stem().string(),
                                     0.02 * Extent(model, poses.front()));
  SceneView& view = scene.AddView("motion");
  view.SetFrames(static_cast<int>(poses.size()),
                 bvh.frame_time > 0.0 ? bvh.frame_time * stride : 1.0 / 30.0);
  view.AddFigure(figure, poses, path.stem().string(), "#1f77b4");
  return scene.ToJson();
}

nlohmann::json ReachScene(const std::filesystem::path& path) {
  ReachMap map;
  try {
    map = ReadReachMapHdf5(path.string());
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(std::string(e.what()));
  }
  Scene scene("capability map of " + map.robot + " (" + path.filename().string() +
                  ")",
              "m", Eigen::Vector3d::UnitZ());
  AddReachMapView(map, "capability map", &scene);
  return scene.ToJson();
}

nlohmann::json FolderScene(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> candidates;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
    if (entry.is_regular_file() && Lower(entry.path().extension().string()) == ".json") {
      candidates.push_back(entry.path());
    }
  }
  std::sort(candidates.begin(), candidates.end());
  for (const std::filesystem::path& file : candidates) {
    try {
      return ReadScene(file);
    } catch (const std::invalid_argument&) {
      // Not a scene (summary.json, study.json, …): try the next file.
    }
  }
  throw std::invalid_argument(path.string() +
                              ": the folder holds no scene file (a .json of "
                              "format \"iklab-scene\")");
}

}  // namespace

nlohmann::json SceneFromFile(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    throw std::invalid_argument(path.string() + ": no such file or folder");
  }
  if (std::filesystem::is_directory(path)) return FolderScene(path);
  const std::string extension = Lower(path.extension().string());
  if (extension == ".json") return ReadScene(path);
  if (extension == ".urdf") return UrdfScene(path);
  if (extension == ".bvh") return BvhScene(path);
  if (extension == ".h5" || extension == ".hdf5") return ReachScene(path);
  throw std::invalid_argument(
      path.string() + ": not a kind iklab can show (accepted: a scene .json, "
                      "a .urdf robot, a .bvh motion, a reach map .h5, or a "
                      "folder holding scene files)");
}

}  // namespace iklab
