#ifndef IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_CERES_COST_FUNCTION_H_
#define IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_CERES_COST_FUNCTION_H_

/// @file
/// The Ceres cost function of the Ceres adapter, for its source and the
/// allocation test. Not installed.

#include <memory>

#include "constraints/problem.h"

namespace ceres {
class CostFunction;
}  // namespace ceres

namespace iklab::internal {

/// The ceres::CostFunction evaluating `problem`'s stacked residuals and their
/// analytic Jacobian (one parameter block of nq coordinates; sizes set at
/// construction, hence not a SizedCostFunction). Its Evaluate() allocates
/// nothing: it writes through `workspace` and its own preallocated buffers,
/// and copies the column-major Jacobian into Ceres' row-major block. Not
/// thread-safe (one per solve). Exposed for the allocation test.
std::unique_ptr<ceres::CostFunction> MakeCeresCostFunction(
    const Problem& problem, ProblemWorkspace* workspace);

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_CERES_COST_FUNCTION_H_
