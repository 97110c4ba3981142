#ifndef IKLAB_CLI_SCENE_FILES_H_
#define IKLAB_CLI_SCENE_FILES_H_

/// @file
/// A 3D scene (docs/scene-format.md) from whatever file a user points
/// `iklab view` at. Here rather than in lab/ because it reads reach maps
/// (reach/, which sits above lab/ in the one-way flow).

#include <filesystem>

#include <nlohmann/json.hpp>

namespace iklab {

/// The scene of a file, by its kind:
///  - a scene `.json`: read and validated (ReadScene);
///  - a `.urdf`: the model at mid-limits, every link with a site of its name;
///  - a `.bvh`: the figure animated over the motion (every frame up to 600,
///    then evenly thinned), in file units with y up;
///  - a reach map `.h5` (reach/reach_hdf5.h): the voxels that reach,
///    coloured by reachable fraction, and by mean manipulability where
///    stored;
///  - a folder (a study's or experiment's output, or a run's `--out`): the
///    first scene file in it or its sub-folders, in name order.
/// @throws std::invalid_argument naming the file and what is wrong: missing,
///   damaged (the reader's message), a folder without scenes, or another
///   kind, with the kinds accepted.
nlohmann::json SceneFromFile(const std::filesystem::path& path);

}  // namespace iklab

#endif  // IKLAB_CLI_SCENE_FILES_H_
