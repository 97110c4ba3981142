#ifndef IKLAB_FRAMEWORK_INTERNAL_MODEL_MAGNITUDE_H_
#define IKLAB_FRAMEWORK_INTERNAL_MODEL_MAGNITUDE_H_

/// @file
/// The bound the model readers (URDF, BVH) put on numbers. Not installed.

namespace iklab::internal {

/// Largest magnitude the model readers accept for lengths, limits and axis
/// components: far beyond any robot or skeleton (a million kilometres in
/// metres), small enough that sums, differences and products of model
/// values stay finite and accurate (ULP of 1e9 is ~1e-7). Larger values are
/// overflow-scale typos, refused at load rather than surfacing inside FK or
/// as a "converged" pose with a 1e292 m error.
inline constexpr double kMaxModelMagnitude = 1e9;

}  // namespace iklab::internal

#endif  // IKLAB_FRAMEWORK_INTERNAL_MODEL_MAGNITUDE_H_
