#ifndef IKLAB_CONSTRAINTS_INTERNAL_DISTANCE_BOUNDS_H_
#define IKLAB_CONSTRAINTS_INTERNAL_DISTANCE_BOUNDS_H_

/// @file
/// Helpers of the distance goals. Not installed.

#include <string>

namespace iklab::internal {

/// Rows of a distance interval: (min > 0) + (max finite).
int DistanceRows(double min_distance, double max_distance);
/// @throws std::invalid_argument unless 0 ≤ min < max (max may be +inf) and
///   at least one bound is active.
void CheckDistanceBounds(double min_distance, double max_distance,
                         const std::string& owner);

}  // namespace iklab::internal

#endif  // IKLAB_CONSTRAINTS_INTERNAL_DISTANCE_BOUNDS_H_
