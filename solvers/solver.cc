#include "solvers/solver.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "framework/internal/check.h"
#include "framework/validate.h"

namespace iklab {

using internal::Invalid;

const char* SolveStatusName(SolveStatus status) {
  switch (status) {
    case SolveStatus::kConverged:
      return "converged";
    case SolveStatus::kMaxIterations:
      return "max iterations";
    case SolveStatus::kTimeBudget:
      return "time budget";
    case SolveStatus::kLocalMinimum:
      return "local minimum";
    case SolveStatus::kUnreachable:
      return "unreachable";
    case SolveStatus::kLimitsInfeasible:
      return "limits infeasible";
    case SolveStatus::kInvalidInput:
      return "invalid input";
    case SolveStatus::kNumericalFailure:
      return "numerical failure";
    case SolveStatus::kNotSolved:
      return "not solved";
    case SolveStatus::kOutsideLimits:
      return "outside limits";
  }
  return "unknown status";
}

bool SolveOptions::IsValid(std::string* why) const {
  if (max_iterations < 1) {
    return Invalid(why, "SolveOptions::max_iterations must be >= 1, got ",
                   max_iterations);
  }
  // The library's one rule per input kind (framework/validate.h). Every
  // solve runs this (an analytic solve twice): the field names are made once
  // per process, not three strings per call.
  static const std::string kTimeBudget = "SolveOptions::time_budget_seconds";
  static const std::string kPositionTolerance =
      "SolveOptions::position_tolerance";
  static const std::string kAngleTolerance = "SolveOptions::angle_tolerance";
  try {
    CheckTimeBudget(time_budget_seconds, kTimeBudget);
    CheckTolerance(position_tolerance, kPositionTolerance);
    CheckTolerance(angle_tolerance, kAngleTolerance);
  } catch (const std::invalid_argument& e) {
    return Invalid(why, e.what());
  }
  return true;
}

}  // namespace iklab
