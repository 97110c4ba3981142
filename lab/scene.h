#ifndef IKLAB_LAB_SCENE_H_
#define IKLAB_LAB_SCENE_H_

/// @file
/// 3D scenes: figures, goals and maps as the JSON of docs/scene-format.md
/// ("iklab-scene", version 1), which the HTML report and `iklab view` draw.
/// iklab computes every pose here (forward kinematics with a Data per
/// figure); the page that draws a scene does no kinematics.
///
///     Scene scene("3-link arm", "m", Eigen::Vector3d::UnitZ());
///     const int arm = scene.AddFigure(model, "arm", 0.03);
///     SceneView& view = scene.AddView("trial 0");
///     view.AddFigure(arm, {q_start}, "start", "#999999");
///     view.AddFigure(arm, {q_answer}, "lbfgsb", PaletteColor(0));  // lab/plot.h
///     view.AddPoints({target}, "target", "#d62728", 0.02);
///     scene.Write(out.dir() / "scene.json");
///
/// A view's length in frames is set by SetFrames, or by the first layer
/// that has more than one frame; every animated layer must then have that
/// many. A figure given one pose in a longer view stands still (its pose is
/// repeated per frame, as the format asks).
///
/// Every number is checked when its layer is added: a NaN or infinity
/// throws std::invalid_argument naming the view and the layer, so no file
/// ever holds one. Written numbers keep 6 significant digits.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <nlohmann/json.hpp>

#include "constraints/problem.h"
#include "framework/model.h"

namespace iklab {

/// The format's name and the version this code writes and reads.
inline constexpr const char* kSceneFormat = "iklab-scene";
inline constexpr int kSceneVersion = 1;


/// One thing to look at (docs/scene-format.md, VIEW): layers over frames.
/// Made by Scene::AddView; every Add* returns the view for chaining.
class SceneView {
 public:
  const std::string& name() const { return name_; }
  int frames() const { return frames_; }

  /// Animation length and time between frames.
  /// @throws std::invalid_argument for frames < 1, a non-positive or
  ///   non-finite frame_seconds, or frames that differ from an animated
  ///   layer already added.
  SceneView& SetFrames(int frames, double frame_seconds = 1.0 / 30.0);

  /// The table shown under the view.
  /// @throws std::invalid_argument if a row's length differs from columns'.
  SceneView& SetTable(std::vector<std::string> columns,
                      std::vector<std::vector<std::string>> rows);

  /// A `figure` layer: figure `figure` (Scene::AddFigure) at each pose of
  /// `q` (one per frame, or one for a still figure). The world pose of every
  /// step (x, y, z, quaternion x, y, z, w) and the position of every site
  /// come from ForwardKinematics.
  /// @throws std::invalid_argument for an unknown figure, no pose, a pose of
  ///   the wrong size or a non-finite number (naming the layer).
  SceneView& AddFigure(int figure, const std::vector<Eigen::VectorXd>& q,
                       const std::string& label, const std::string& color);

  /// `points`: spheres of diameter `size` (static).
  SceneView& AddPoints(const std::vector<Eigen::Vector3d>& points,
                       const std::string& label, const std::string& color,
                       double size);
  /// `points` with one list per frame ("animated": true).
  SceneView& AddAnimatedPoints(
      const std::vector<std::vector<Eigen::Vector3d>>& points,
      const std::string& label, const std::string& color, double size);
  /// `poses`: coordinate frames of axis length `size` (static).
  SceneView& AddPoses(const std::vector<Eigen::Isometry3d>& poses,
                      const std::string& label, const std::string& color,
                      double size);
  /// `poses` with one list per frame ("animated": true), e.g. a goal that
  /// is moved and restored.
  SceneView& AddAnimatedPoses(
      const std::vector<std::vector<Eigen::Isometry3d>>& poses,
      const std::string& label, const std::string& color, double size);
  /// `rays`: arrows from origins[i] along directions[i] (normalized here)
  /// of `length`.
  /// @throws std::invalid_argument for lists of different lengths or a zero
  ///   direction.
  SceneView& AddRays(const std::vector<Eigen::Vector3d>& origins,
                     const std::vector<Eigen::Vector3d>& directions,
                     const std::string& label, const std::string& color,
                     double length);
  /// `path`: a polyline, closed back to its first point when `closed`.
  SceneView& AddPath(const std::vector<Eigen::Vector3d>& points, bool closed,
                     const std::string& label, const std::string& color);
  /// `plane`: a square of edge `size` through `point`, normal `normal`.
  SceneView& AddPlane(const Eigen::Vector3d& point,
                      const Eigen::Vector3d& normal, double size,
                      const std::string& label, const std::string& color);
  /// `cone`: apex, unit axis (normalized here), half-angle (radians), length.
  SceneView& AddCone(const Eigen::Vector3d& apex, const Eigen::Vector3d& axis,
                     double half_angle, double length, const std::string& label,
                     const std::string& color);
  /// `box`: centre, half extents and rotation.
  SceneView& AddBox(const Eigen::Vector3d& center,
                    const Eigen::Vector3d& half_extents,
                    const Eigen::Quaterniond& rotation, const std::string& label,
                    const std::string& color);
  /// `sphere`.
  SceneView& AddSphere(const Eigen::Vector3d& center, double radius,
                       const std::string& label, const std::string& color);
  /// `capsule`: the points within `radius` of the segment [a, b].
  SceneView& AddCapsule(const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                        double radius, const std::string& label,
                        const std::string& color);
  /// `voxels`: cubes of edge `size` at `centers`, coloured by `values` on a
  /// colour bar over `range` (low, high).
  /// @throws std::invalid_argument for different lengths, or a non-finite
  ///   number (a voxel without a value must be left out by the caller).
  SceneView& AddVoxels(const std::vector<Eigen::Vector3d>& centers,
                       const std::vector<double>& values, double size,
                       const std::string& value_name,
                       const Eigen::Vector2d& range, const std::string& label,
                       const std::string& color = "#ffffff");

  /// The view as JSON (figure layers expanded to frames()).
  nlohmann::json ToJson() const;

 private:
  friend class Scene;
  struct FigureEntry {
    std::string name;
    std::shared_ptr<const Model> model;
    double radius = 0.0;
  };
  using FigureList = std::vector<FigureEntry>;
  SceneView(std::string name, std::shared_ptr<const FigureList> figures)
      : name_(std::move(name)), figures_(std::move(figures)) {}
  // Starts a layer; checks that label and colour are given.
  nlohmann::json Layer(const char* type, const std::string& label,
                       const std::string& color) const;
  // Records an animated layer of `count` frames (sets or checks frames_).
  void Animate(int count, const std::string& label);
  // Throws naming the view, `label` and `field` unless every value is finite.
  void CheckFinite(const std::vector<double>& values, const std::string& label,
                   const char* field) const;
  void CheckFinite(double value, const std::string& label,
                   const char* field) const;

  std::string name_;
  std::shared_ptr<const FigureList> figures_;
  int frames_ = 1;
  bool frames_fixed_ = false;
  double frame_seconds_ = 1.0 / 30.0;
  nlohmann::json table_;
  std::vector<nlohmann::json> layers_;
};

/// A scene file being built (docs/scene-format.md).
class Scene {
 public:
  /// @param title shown by the page.
  /// @param units the length unit of every coordinate, e.g. "m".
  /// @param up the world's up axis (URDF: z, BVH: y); normalized here.
  /// @throws std::invalid_argument for an empty unit or a zero/non-finite up.
  Scene(std::string title, std::string units, const Eigen::Vector3d& up);

  /// Adds a figure (a copy of `model` is kept for the views' FK) and returns
  /// its index for SceneView::AddFigure.
  /// @param radius link radius to draw, in units, > 0.
  /// @throws std::invalid_argument for an empty name or a bad radius.
  int AddFigure(const Model& model, const std::string& name, double radius);

  /// Adds a view; the reference stays valid while the scene lives.
  /// @throws std::invalid_argument for an empty or duplicate name.
  SceneView& AddView(const std::string& name);

  int num_figures() const { return static_cast<int>(figures_->size()); }
  /// The model of figure `figure` (Scene::AddFigure).
  /// @throws std::invalid_argument for an unknown figure.
  const Model& figure_model(int figure) const;
  int num_views() const { return static_cast<int>(views_.size()); }

  /// The whole scene as JSON (format, version, title, units, up, figures,
  /// views).
  nlohmann::json ToJson() const;

  /// Writes ToJson() compactly to `path`.
  /// @throws std::runtime_error if the file cannot be written.
  void Write(const std::filesystem::path& path) const;

 private:
  std::string title_;
  std::string units_;
  Eigen::Vector3d up_;
  std::shared_ptr<SceneView::FigureList> figures_;
  std::vector<std::unique_ptr<SceneView>> views_;
};

/// The FIGURE entry of `model` (docs/scene-format.md): its steps (name,
/// parent, kind, axis, link) and sites. A step is named after the
/// coordinate it drives, else the link whose frame it is, else "".
nlohmann::json SceneFigureJson(const Model& model, const std::string& name,
                               double radius);

/// Draws a problem's goals (colour `goal_color`) and hard constraints
/// (`constraint_color`) as layers of `view`: position targets as points,
/// pose and orientation targets as frames (orientations at the site's
/// position at `q`), axis and aim goals as rays from the site, planes,
/// cones (ConeGoal and GazeGoal from the site), position boxes, distance
/// bounds as spheres, relative pose targets in their reference site's
/// frame, collision obstacles and link shapes at `q` (spheres, capsules and
/// boxes; a cylinder as a capsule, a convex hull as its bounding box). Sums and disjunctions draw their parts; joint-space goals and
/// regularizers draw nothing. One layer per goal, labelled with the goal's
/// name (constraints prefixed "constraint: ").
/// @param size drawing scale (target frames, ray lengths), in units.
/// @throws std::invalid_argument if q does not fit the problem's model.
void AddProblemLayers(const Problem& problem, const Eigen::VectorXd& q,
                      double size, SceneView* view,
                      const std::string& goal_color = "#000000",
                      const std::string& constraint_color = "#555555");

/// A figure's size for drawing scales (link radius, target size): the
/// largest distance of a step origin or site from the world origin at `q`,
/// at least 1e-3 so that drawings never vanish.
/// @throws std::invalid_argument if q does not fit the model.
double FigureExtent(const Model& model, const Eigen::VectorXd& q);

/// The most frames an animated view of a long motion draws (AddMotionView).
inline constexpr int kSceneMaxFrames = 121;

/// The frames of a `count`-frame motion that an animation draws when thinned
/// to at most `max_frames`: 0, every stride-th frame and the last one, with
/// stride = ceil((count − 1) / (max_frames − 1)) (all frames when they fit).
/// @throws std::invalid_argument for count < 1 or max_frames < 2.
std::vector<int> ThinnedFrames(int count, int max_frames = kSceneMaxFrames);

/// One figure's motion over the frames of a view (AddMotionView): a solver's
/// trajectory, iterates or frame-by-frame answers.
struct SceneMotion {
  std::string label;               ///< Legend entry (a solver's name).
  std::string color;               ///< "#rrggbb" (PaletteColor, lab/plot.h).
  std::vector<Eigen::VectorXd> q;  ///< One pose per frame; frame 0 = start.
};

/// Adds a view `name` in which figure `figure` follows each of `motions`
/// over the same frames: the start pose (motions[0].q[0], grey), every
/// motion as one animated figure layer in its colour, the path of each of
/// `sites` per motion (a polyline over every frame, in the motion's colour,
/// labelled "<motion>: <site> path"), and, when `targets` is not empty
/// (targets[k]: the frame's target points), each target's path and the
/// targets as animated black points of diameter `size`. Long motions are
/// thinned to ThinnedFrames(frames, max_frames); drawn frames are
/// `frame_seconds` × stride apart when played. Add a table (SetTable) and
/// more layers to the returned view.
/// @throws std::invalid_argument for no motion, motions of different
///   lengths, `targets` of another length, an unknown site, or whatever
///   SceneView throws (a non-finite pose names the layer).
SceneView& AddMotionView(
    const std::string& name, int figure, const std::vector<SceneMotion>& motions,
    const std::vector<std::string>& sites,
    const std::vector<std::vector<Eigen::Vector3d>>& targets, double size,
    double frame_seconds, Scene* scene, int max_frames = kSceneMaxFrames);

/// Checks that `scene` follows docs/scene-format.md: format and version,
/// title/units/up, figures (steps with parents before them, sites), views
/// (name, frames ≥ 1, frame_seconds > 0, optional table, layers of known
/// types with their fields, figure poses of 7 × steps + 3 × sites numbers in
/// each of `frames` entries).
/// @param source names the scene in messages (a file name).
/// @throws std::invalid_argument "source: what is wrong".
void ValidateScene(const nlohmann::json& scene, const std::string& source);

/// Reads and validates a scene file.
/// @throws std::invalid_argument naming the file and what is wrong: it
///   cannot be opened, is not JSON, is not an iklab scene (format), has a
///   version other than kSceneVersion, or breaks the structure
///   (ValidateScene).
nlohmann::json ReadScene(const std::filesystem::path& path);

}  // namespace iklab

#endif  // IKLAB_LAB_SCENE_H_
