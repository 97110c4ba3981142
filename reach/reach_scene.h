#ifndef IKLAB_REACH_REACH_SCENE_H_
#define IKLAB_REACH_REACH_SCENE_H_

/// @file
/// A capability map as a 3D scene (lab/scene.h, docs/scene-format.md).

#include "framework/model.h"
#include "lab/scene.h"
#include "reach/reach_map.h"

namespace iklab {

/// Adds a view named `view_name` to `scene` with the map's voxels that
/// reach at least one query, coloured by reachable fraction ([0, 1]), and a
/// second layer coloured by the mean Yoshikawa manipulability where the map
/// stores a finite one; with `arm_figure` ≥ 0 (a figure of `scene`, the
/// map's model), the arm at mid-limits.
/// @return the view.
/// @throws std::invalid_argument from SceneView (e.g. a damaged map with a
///   non-finite grid).
SceneView& AddReachMapView(const ReachMap& map, const std::string& view_name,
                           iklab::Scene* scene, int arm_figure = -1,
                           const Model* arm = nullptr);

}  // namespace iklab

#endif  // IKLAB_REACH_REACH_SCENE_H_
