#ifndef IKLAB_SOLVERS_DIFFERENTIAL_INTERNAL_BEST_ANGLE_H_
#define IKLAB_SOLVERS_DIFFERENTIAL_INTERNAL_BEST_ANGLE_H_

/// @file
/// The one-joint step of cyclic coordinate descent, for ccd_solver.cc and its
/// tests. Not installed.

namespace iklab::internal {

/// The bounded maximizer of f(θ) = cos(θ − θ*) over θ ∈ [lo, hi] (lo ≤ hi,
/// ±∞ allowed): θ* or θ* ± 2π if inside (the one nearest 0), otherwise the
/// end with the larger f. Exposed for tests.
double BestAngleInInterval(double theta_star, double lo, double hi);

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_DIFFERENTIAL_INTERNAL_BEST_ANGLE_H_
