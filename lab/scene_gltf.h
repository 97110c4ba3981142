#ifndef IKLAB_LAB_SCENE_GLTF_H_
#define IKLAB_LAB_SCENE_GLTF_H_

/// @file
/// A scene (docs/scene-format.md) as an animated binary glTF 2.0 file (.glb),
/// which Blender and any glTF viewer open: one file per scene, one glTF
/// animation per view. Written with TinyGLTF (Debian's libtinygltf-dev);
/// the mapping is in docs/scene-format.md, "The animated glTF".
///
///     scene.Write(out.dir() / "scene.json");
///     WriteSceneGltfBeside(out.dir() / "scene.json");  // scene.glb
///
/// ExperimentOutput::AddScene does this for every registered scene.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace iklab {

/// Whether `scene` holds anything the glTF file carries: a `figure`,
/// `points` or `poses` layer in some view (the other layer types, e.g. the
/// voxels of a capability map, are drawn by the page only).
bool SceneHasGltfContent(const nlohmann::json& scene);

/// Writes `scene` as a binary glTF 2.0 file:
/// - one node hierarchy per figure layer label (a solver's answer, the start
///   pose), shared by the views that have a layer of that label: a node per
///   step (its joint sphere) with its pose relative to its parent step, a
///   cylinder per link between joint frames, a sphere per site, in the
///   layer's colour;
/// - a marker node per target of `points` (spheres) and `poses` (three
///   axes) layers;
/// - one animation per view, named after it: LINEAR translation and
///   rotation channels that play the view's frames (a static view is one
///   keyframe), and STEP scale channels that show (1) the view's
///   hierarchies and markers and hide (0) the others'.
/// The scene's up axis becomes glTF's +Y and its unit metres where the unit
/// says how ("m", "cm", "mm", or "... (0.0254 m)"); names from the scene go
/// into node names as they are.
/// @param source names the scene in messages (a file name).
/// @throws std::invalid_argument "source: what is wrong" for a scene that
///   breaks the format (ValidateScene: NaN, missing fields), has a zero
///   quaternion, or carries nothing (!SceneHasGltfContent).
/// @throws std::runtime_error if the file cannot be written.
void WriteSceneGltf(const nlohmann::json& scene,
                    const std::filesystem::path& path,
                    const std::string& source);

/// `scene_file` with the extension .glb: where WriteSceneGltfBeside writes.
std::filesystem::path SceneGltfPath(const std::filesystem::path& scene_file);

/// Reads a scene file (ReadScene) and, if it carries anything
/// (SceneHasGltfContent), writes SceneGltfPath(scene_file).
/// @return the path written, or an empty path if the scene has nothing
///   glTF carries.
/// @throws std::invalid_argument naming the file for a damaged or foreign
///   scene file (ReadScene) or a scene WriteSceneGltf refuses.
std::filesystem::path WriteSceneGltfBeside(
    const std::filesystem::path& scene_file);

}  // namespace iklab

#endif  // IKLAB_LAB_SCENE_GLTF_H_
