#ifndef IKLAB_LAB_INTERNAL_STUDY_HELPERS_H_
#define IKLAB_LAB_INTERNAL_STUDY_HELPERS_H_

/// @file
/// Small helpers shared by the study runner (study.cc), its scenarios
/// (study_scenarios.cc), its statistics (study_statistics.cc) and its outputs
/// (study_outputs.cc). Not installed.

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "constraints/goal.h"
#include "framework/model.h"
#include "framework/random_configuration.h"
#include "lab/study.h"
#include "solvers/restarts.h"

namespace iklab::internal {

/// A pose uniform within the model's limits: RandomConfiguration
/// (framework/random_configuration.h).
inline Eigen::VectorXd RandomModelPose(const Model& model, std::mt19937_64* rng) {
  return RandomConfiguration(model, rng);
}

/// Largest position / angle error over a solve's goals; +∞ when one is not
/// a number (a solve that produced no usable pose is the worst, not the
/// best).
inline double MaxPosition(const std::vector<GoalError>& errors) {
  double m = 0.0;
  for (const GoalError& e : errors) {
    m = std::isnan(e.position) ? HUGE_VAL : std::max(m, e.position);
  }
  return m;
}
inline double MaxAngle(const std::vector<GoalError>& errors) {
  double m = 0.0;
  for (const GoalError& e : errors) {
    m = std::isnan(e.angle) ? HUGE_VAL : std::max(m, e.angle);
  }
  return m;
}

/// Checks `spec` against `model` for Study::Validate (study_scenarios.cc):
/// the sites exist, the numbers are in range, the coordinates are distinct
/// and within [0, nq); `nested` for a part of a sum or disjunction (which
/// cannot itself be one).
/// @throws std::invalid_argument starting with `where` and the goal kind,
///   naming what to fix.
void CheckGoalSpec(const Model& model, const GoalSpec& spec, bool nested,
                   const std::string& where);

/// The aggregates of solver `solver`'s records in `result`
/// (study_statistics.cc): success rate, time and error statistics
/// (lab/statistics.h), statuses, and joint steps in trajectory mode.
SolverSummary SummarizeSolver(const Study& study, const StudyResult& result,
                              int solver);

/// What each trial of `study` asks for: Study::scenario, or RandomTargets of
/// Study::goals when it has none (study.cc; RunStudy and MakeStudyTrial).
Scenario StudyScenario(const Study& study);

/// Trial `index` of `study` exactly as RunStudy made it (study.cc): the
/// same scenario, generator and start pose; `previous` is the start of a
/// chained trial (StartPose::kPreviousTrial; empty otherwise).
Trial MakeStudyTrial(const Study& study, int index,
                     const Eigen::VectorXd& previous);

/// The study's 3D scene (study_scene.cc): scene.json in out->dir(),
/// registered with ExperimentOutput::AddScene.
/// @throws std::runtime_error if the file cannot be written.
void WriteStudyScene(const Study& study, const StudyResult& result,
                     ExperimentOutput* out);

}  // namespace iklab::internal

#endif  // IKLAB_LAB_INTERNAL_STUDY_HELPERS_H_
