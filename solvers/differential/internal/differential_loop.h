#ifndef IKLAB_SOLVERS_DIFFERENTIAL_INTERNAL_DIFFERENTIAL_LOOP_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_INTERNAL_DIFFERENTIAL_LOOP_H_

/// @file
/// The iteration loop shared by the differential methods (see
/// differential_solver.h), called by each method's Solve. Not installed.

#include <string>

#include <Eigen/Core>

#include "solvers/differential/differential_solver.h"
#include "solvers/solver.h"

namespace iklab::internal {

/// Runs the shared loop (differential_solver.h's file comment) for `method`
/// and returns the Result: validation by SolveScope, iterations until
/// convergence, the iteration cap, the time budget, stationarity or a stall.
/// After setup it allocates only when SolveOptions::record_trace is set.
Result RunDifferentialSolve(const Problem& problem, const Eigen::VectorXd& q0,
                            const SolveOptions& common,
                            const StepControl& control,
                            const std::string& solver_name,
                            DifferentialMethod* method);

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_INTERNAL_DIFFERENTIAL_LOOP_H_
