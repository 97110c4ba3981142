#include "solvers/solver.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
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
  // The library's one rule per input kind (framework/validate.h).
  try {
    CheckTimeBudget(time_budget_seconds, "SolveOptions::time_budget_seconds");
    CheckTolerance(position_tolerance, "SolveOptions::position_tolerance");
    CheckTolerance(angle_tolerance, "SolveOptions::angle_tolerance");
  } catch (const std::invalid_argument& e) {
    return Invalid(why, e.what());
  }
  return true;
}

}  // namespace iklab
