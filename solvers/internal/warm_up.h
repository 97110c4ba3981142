#ifndef IKLAB_SOLVERS_INTERNAL_WARM_UP_H_
#define IKLAB_SOLVERS_INTERNAL_WARM_UP_H_

/// @file
/// The first solve in a fresh process costs several times a warm one (on the
/// development machine 30–75 µs against 2.5–6.5 µs for bounded LM, Tolani
/// and the 6R closed form): the solver's code pages, its data and the
/// lazily bound library calls are touched for the first time. Solvers whose
/// solves are cheap pay this in Prepare, with one solve whose result is
/// discarded, so that a program that solves once per process gets the warm
/// time in its timed call.

#include <Eigen/Core>

#include "constraints/problem.h"
#include "solvers/solver.h"

namespace iklab::internal {

/// Solves `problem` once from the point of its bounds nearest zero and
/// discards the result. Does nothing for bounds Solve would refuse.
/// @pre `solver`'s Solve on `problem` is cheap (a closed form, or a solver
///   whose options cap the work): this runs in Prepare.
inline void WarmUp(const Solver& solver, const Problem& problem) {
  const Bounds& bounds = problem.bounds();
  if (bounds.size() != problem.nq() || !bounds.IsValid(nullptr)) return;
  solver.Solve(problem, bounds.Project(Eigen::VectorXd::Zero(problem.nq())));
}

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_INTERNAL_WARM_UP_H_
