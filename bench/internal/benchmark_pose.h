#ifndef IKLAB_BENCH_INTERNAL_BENCHMARK_POSE_H_
#define IKLAB_BENCH_INTERNAL_BENCHMARK_POSE_H_

/// @file
/// The benchmark's random poses (its targets and random seeds, and the KDL
/// baselines' restarts). Not installed.

#include <cmath>
#include <random>

#include <Eigen/Core>

#include "framework/internal/constants.h"

namespace iklab::internal {

/// Draws a pose into *q (sized as lower): per coordinate, in order, one
/// u ∈ [0, 1) from std::uniform_real_distribution; q_i = lo + (hi − lo) u
/// when both limits are finite, else π − 2π u ∈ (−π, π].
///
/// Not RandomConfiguration (framework/random_configuration.h): that one draws
/// 53-bit uniforms directly and keeps a one-sided bound; this rule is kept
/// because the benchmark's published targets and seeds come from this stream.
inline void DrawBenchmarkPose(const Eigen::VectorXd& lower,
                              const Eigen::VectorXd& upper,
                              std::mt19937_64* rng, Eigen::VectorXd* q) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (Eigen::Index i = 0; i < lower.size(); ++i) {
    const double u = unit(*rng);
    (*q)[i] = std::isfinite(lower[i]) && std::isfinite(upper[i])
                  ? lower[i] + (upper[i] - lower[i]) * u
                  : kPi - 2.0 * kPi * u;
  }
}

}  // namespace iklab::internal

#endif  // IKLAB_BENCH_INTERNAL_BENCHMARK_POSE_H_
