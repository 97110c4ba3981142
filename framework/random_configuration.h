#ifndef IKLAB_FRAMEWORK_RANDOM_CONFIGURATION_H_
#define IKLAB_FRAMEWORK_RANDOM_CONFIGURATION_H_

/// @file
/// The one random-configuration draw of iklab (restarts, studies,
/// reachability maps): uniform within the joint limits, the same on every
/// standard library.

#include <random>

#include <Eigen/Core>

#include "framework/model.h"

namespace iklab {

/// A configuration drawn uniformly within [lower, upper], one generator call
/// per coordinate in order, as a 53-bit uniform u ∈ [0, 1) from the top bits
/// of the call (std::uniform_real_distribution is not specified bit for bit,
/// so it is not used): q_i = lo + (hi − lo) u, at most hi.
///
/// The rule for unbounded coordinates: a coordinate with one finite bound is
/// drawn from the 2π next to it ([lo, lo + 2π] or [hi − 2π, hi]); one with
/// no finite bound from [−π, π] (a revolute joint without limits).
/// @pre lower and upper have the same size; rng is not null.
Eigen::VectorXd RandomConfiguration(const Eigen::VectorXd& lower,
                                    const Eigen::VectorXd& upper,
                                    std::mt19937_64* rng);

/// RandomConfiguration within the model's limits (Model::lower(), upper()).
Eigen::VectorXd RandomConfiguration(const Model& model, std::mt19937_64* rng);

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_RANDOM_CONFIGURATION_H_
