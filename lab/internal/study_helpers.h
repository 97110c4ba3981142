#ifndef IKLAB_LAB_INTERNAL_STUDY_HELPERS_H_
#define IKLAB_LAB_INTERNAL_STUDY_HELPERS_H_

/// @file
/// Small helpers shared by the study runner (study.cc) and its outputs
/// (study_outputs.cc). Not installed.

#include <algorithm>
#include <random>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"
#include "framework/model.h"

namespace iklab::internal {

/// Uniform within the model's limits; unbounded coordinates in (−π, π].
inline Eigen::VectorXd RandomPose(const Model& model, std::mt19937_64* rng) {
  Eigen::VectorXd q(model.nq());
  for (int i = 0; i < model.nq(); ++i) {
    const bool bounded = model.bounded(i);
    const double lo = bounded ? model.lower()(i) : -M_PI;
    const double hi = bounded ? model.upper()(i) : M_PI;
    q(i) = std::uniform_real_distribution<double>(lo, hi)(*rng);
  }
  return q;
}

/// Largest position / angle error over a solve's goals.
inline double MaxPosition(const std::vector<GoalError>& errors) {
  double m = 0.0;
  for (const GoalError& e : errors) m = std::max(m, e.position);
  return m;
}
inline double MaxAngle(const std::vector<GoalError>& errors) {
  double m = 0.0;
  for (const GoalError& e : errors) m = std::max(m, e.angle);
  return m;
}

}  // namespace iklab::internal

#endif  // IKLAB_LAB_INTERNAL_STUDY_HELPERS_H_
