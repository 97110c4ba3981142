#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lab/internal/study_helpers.h"
#include "lab/statistics.h"
#include "lab/study.h"

// The statistics of a study: the per-solver summaries of its records
// (lab/statistics.h's definitions of mean, median and percentiles) and the
// result's look-ups.

namespace iklab {

namespace internal {

SolverSummary SummarizeSolver(const Study& study, const StudyResult& result,
                              int solver) {
  SolverSummary s;
  s.label = study.solvers[solver].label;
  std::vector<double> us, position, angle;
  std::vector<double> constraint_position, constraint_angle;
  std::map<std::string, int> statuses;
  double iterations = 0.0;
  int invalid = 0;
  std::string first_invalid;
  double steps = 0.0;
  int step_count = 0;
  for (const StudyRecord* r : result.Of(solver)) {
    ++s.solves;
    s.successes += r->verified;
    s.false_claims += r->claimed && !r->verified;
    us.push_back(r->microseconds);
    position.push_back(MaxPosition(r->errors));
    angle.push_back(MaxAngle(r->errors));
    if (!result.constraints.empty()) {
      std::vector<GoalError> violations;
      for (const ConstraintCheck& c : r->constraints) {
        violations.push_back(c.violation);
      }
      constraint_position.push_back(MaxPosition(violations));
      constraint_angle.push_back(MaxAngle(violations));
    }
    iterations += r->iterations;
    ++statuses[SolveStatusName(r->status)];
    if (r->status == SolveStatus::kInvalidInput) {
      if (invalid++ == 0) first_invalid = r->message;
    }
    if (result.trajectory && r->q.size() == r->q0.size() &&
        r->q.allFinite() && r->q0.allFinite()) {
      // The step this frame took from the pose it started at.
      const double step = (r->q - r->q0).norm();
      steps += step;
      s.max_joint_step = std::max(s.max_joint_step, step);
      ++step_count;
    }
  }
  if (s.solves == 0) return s;
  s.success_rate = static_cast<double>(s.successes) / s.solves;
  s.mean_us = Mean(us);
  s.median_us = Median(us);
  s.p95_us = Percentile(us, 0.95);
  s.p99_us = Percentile(us, 0.99);
  s.mean_iterations = iterations / s.solves;
  s.median_position_error = Median(std::move(position));
  s.median_angle_error = Median(std::move(angle));
  if (!constraint_position.empty()) {
    s.max_constraint_violation = Percentile(constraint_position, 1.0);
    s.max_constraint_angle_violation = Percentile(constraint_angle, 1.0);
    s.median_constraint_violation = Median(std::move(constraint_position));
    s.median_constraint_angle_violation = Median(std::move(constraint_angle));
  }
  for (const auto& [name, count] : statuses) s.statuses.emplace_back(name, count);
  if (invalid == s.solves) s.rejected = first_invalid;
  if (step_count > 0) s.mean_joint_step = steps / step_count;
  return s;
}

}  // namespace internal

std::vector<const StudyRecord*> StudyResult::Of(int solver) const {
  std::vector<const StudyRecord*> out;
  for (const StudyRecord& r : records) {
    if (r.solver == solver) out.push_back(&r);
  }
  return out;
}

const SolverSummary& StudyResult::Summary(const std::string& label) const {
  for (const SolverSummary& s : summaries) {
    if (s.label == label) return s;
  }
  throw std::invalid_argument("StudyResult: no solver labelled '" + label + "'");
}

}  // namespace iklab
