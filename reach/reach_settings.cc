#include <cmath>
#include <limits>

#include "framework/internal/check.h"
#include "reach/reach_map.h"

// The parts of reach_map.h that describe a map and need no solver: the
// solver names, the settings' ranges, the grid's indexing and the map's
// arrays. The file readers (reach_hdf5.cc, internal/journal.cc) need only
// these, so their fuzzers build without the solvers.

namespace iklab {

using internal::Invalid;
using internal::ThrowInvalidArgument;

const char* ReachSolverName(ReachSolverKind kind) {
  switch (kind) {
    case ReachSolverKind::kAuto:
      return "auto";
    case ReachSolverKind::kBoundedLm:
      return "bounded-lm";
    case ReachSolverKind::kAnalytic6r:
      return "analytic-6r";
  }
  return "?";
}

ReachSolverKind ReachSolverFromName(const std::string& name) {
  for (ReachSolverKind kind :
       {ReachSolverKind::kAuto, ReachSolverKind::kBoundedLm,
        ReachSolverKind::kAnalytic6r}) {
    if (name == ReachSolverName(kind)) return kind;
  }
  ThrowInvalidArgument("solver: must be auto, bounded-lm or analytic-6r; got '",
                       name, "'");
}

bool ReachSettings::IsValid(std::string* why) const {
  if (!(resolution > 0.0) || !std::isfinite(resolution)) {
    return Invalid(
        why, "ReachSettings::resolution must be a finite length > 0, got ",
        resolution);
  }
  if (approach_axes < 1 || approach_axes > 10000) {
    return Invalid(why,
                   "ReachSettings::approach_axes must be in [1, 10000], got ",
                   approach_axes);
  }
  if (rolls < 1 || rolls > 360) {
    return Invalid(why, "ReachSettings::rolls must be in [1, 360], got ",
                   rolls);
  }
  if (orientations_per_voxel() > 65535) {
    return Invalid(
        why,
        "ReachSettings::approach_axes x rolls must be at most 65535, "
        "got ",
        approach_axes * rolls);
  }
  if (max_attempts < 1 || max_attempts > 100000) {
    return Invalid(why,
                   "ReachSettings::max_attempts must be in [1, 100000], got ",
                   max_attempts);
  }
  if (max_iterations < 1 || max_iterations > 10000000) {
    return Invalid(
        why, "ReachSettings::max_iterations must be in [1, 10000000], got ",
        max_iterations);
  }
  if (!(tolerance > 0.0 && tolerance <= 0.1)) {
    return Invalid(why, "ReachSettings::tolerance must be in (0, 0.1], got ",
                   tolerance);
  }
  return true;
}

Eigen::Vector3i VoxelGrid::Coordinates(std::int64_t index) const {
  const std::int64_t k = index % shape.z();
  const std::int64_t ij = index / shape.z();
  return Eigen::Vector3i(static_cast<int>(ij / shape.y()),
                         static_cast<int>(ij % shape.y()),
                         static_cast<int>(k));
}

Eigen::Vector3d VoxelGrid::Centre(std::int64_t index) const {
  return origin + resolution * Coordinates(index).cast<double>();
}

double ReachMap::Fraction(std::int64_t v) const {
  return static_cast<double>(reached[v]) / settings.orientations_per_voxel();
}

void ReachMap::Set(std::int64_t v, const VoxelResult& r) {
  const int n = settings.orientations_per_voxel();
  state[v] = static_cast<std::uint8_t>(r.state);
  reached[v] = static_cast<std::uint16_t>(r.reached);
  manipulability_min[v] = r.manipulability_min;
  manipulability_mean[v] = r.manipulability_mean;
  manipulability_max[v] = r.manipulability_max;
  for (int o = 0; o < n; ++o) {
    reached_orientations[v * n + o] =
        o < static_cast<int>(r.reached_orientations.size())
            ? r.reached_orientations[o]
            : 0;
  }
}

std::int64_t ReachMap::CountState(VoxelState s) const {
  std::int64_t count = 0;
  for (std::uint8_t x : state) count += x == static_cast<std::uint8_t>(s);
  return count;
}

std::int64_t ReachMap::SolvedQueries() const {
  return CountState(VoxelState::kSolved) * settings.orientations_per_voxel();
}

VoxelResult UnsolvedVoxel(VoxelState state, int orientations) {
  VoxelResult result;
  result.state = state;
  result.reached_orientations.assign(orientations, 0);
  result.manipulability_min = result.manipulability_mean =
      result.manipulability_max = std::numeric_limits<float>::quiet_NaN();
  return result;
}

}  // namespace iklab
