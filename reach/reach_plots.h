#ifndef IKLAB_REACH_REACH_PLOTS_H_
#define IKLAB_REACH_REACH_PLOTS_H_

/// @file
/// Pictures of a map (gnuplot, lab/plot.h; each with its .gp script):
///  - reach_slice_xy.png, reach_slice_xz.png: the reachable fraction of the
///    voxels in the horizontal and vertical planes through the workspace
///    centre c, as heat maps (white: not solved, i.e. beyond the reach
///    bound or skipped by the flood fill);
///  - reach_manipulability_xz.png: the mean Yoshikawa manipulability in the
///    vertical plane;
///  - reach_scatter.png: the centres of every voxel with a reachable query
///    in 3D, coloured by reachable fraction.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "reach/reach_map.h"

namespace iklab {

/// Draws the pictures of `map` into `dir`; returns (file name, caption) per
/// picture.
/// @throws std::runtime_error if gnuplot is missing or fails.
std::vector<std::pair<std::string, std::string>> DrawReachMap(
    const ReachMap& map, const std::filesystem::path& dir);

}  // namespace iklab

#endif  // IKLAB_REACH_REACH_PLOTS_H_
