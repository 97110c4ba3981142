#include "reach/reach_scene.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace iklab {

SceneView& AddReachMapView(const ReachMap& map, const std::string& view_name,
                           iklab::Scene* scene, int arm_figure, const Model* arm) {
  SceneView& view = scene->AddView(view_name);
  if (arm_figure >= 0 && arm != nullptr) {
    view.AddFigure(arm_figure, {arm->MidLimits()}, map.robot.empty() ? "arm" : map.robot,
                   "#7f7f7f");
  }
  std::vector<Eigen::Vector3d> centres, manip_centres;
  std::vector<double> fractions, manipulability;
  for (std::int64_t v = 0; v < map.grid.num_voxels(); ++v) {
    if (map.reached[v] == 0) continue;  // only the voxels that reach
    const Eigen::Vector3d c = map.grid.Centre(v);
    centres.push_back(c);
    fractions.push_back(map.Fraction(v));
    const double m = map.manipulability_mean.empty()
                         ? std::numeric_limits<double>::quiet_NaN()
                         : map.manipulability_mean[v];
    if (std::isfinite(m)) {
      manip_centres.push_back(c);
      manipulability.push_back(m);
    }
  }
  view.AddVoxels(centres, fractions, map.grid.resolution, "reachable fraction",
                 Eigen::Vector2d(0.0, 1.0), "reachable fraction");
  if (!manipulability.empty()) {
    const auto [low, high] =
        std::minmax_element(manipulability.begin(), manipulability.end());
    view.AddVoxels(manip_centres, manipulability, map.grid.resolution,
                   "manipulability (mean)",
                   Eigen::Vector2d(*low, std::max(*high, *low + 1e-12)),
                   "manipulability");
  }
  view.SetTable({"site", "solver", "voxels reaching", "resolution"},
                {{map.site, map.solver, std::to_string(centres.size()),
                  FormatNumber(map.grid.resolution, 3)}});
  return view;
}

}  // namespace iklab
