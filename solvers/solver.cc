#include "solvers/solver.h"

#include <cmath>
#include <sstream>
#include <utility>

#include "framework/internal/check.h"

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
  if (std::isnan(time_budget_seconds)) {
    return Invalid(why,
                   "SolveOptions::time_budget_seconds must not be NaN (use <= "
                   "0 for none), got NaN");
  }
  if (!(position_tolerance > 0.0) || !std::isfinite(position_tolerance)) {
    return Invalid(why,
                   "SolveOptions::position_tolerance must be finite and > 0, "
                   "got ",
                   position_tolerance);
  }
  if (!(angle_tolerance > 0.0) || !std::isfinite(angle_tolerance)) {
    return Invalid(why,
                   "SolveOptions::angle_tolerance must be finite and > 0, got ",
                   angle_tolerance);
  }
  return true;
}

}  // namespace iklab
