#ifndef IKLAB_SOLVERS_INTERNAL_SMALL_CHOLESKY_H_
#define IKLAB_SOLVERS_INTERNAL_SMALL_CHOLESKY_H_

/// @file
/// Cholesky (L D Lᵀ) solve of a small symmetric positive definite system whose
/// size is a compile-time constant (the 6×6 and 7×7 damped normal equations of arm
/// IK), in place.
///
/// Why not Eigen::LLT: for fixed sizes Eigen 3.4 still factors with its
/// generic unblocked algorithm over runtime-sized blocks and solves through
/// its generic triangular solver. In the bounded Levenberg–Marquardt loop on a
/// 7-DOF arm, perf attributed ~22 % of the solve time to LLT compute +
/// solveInPlace, more than to forward kinematics; the loops below, unrolled,
/// cut that share (measured with perf on `iklab bench`). For dynamic sizes use
/// Eigen::LLT. Tested against Eigen::LLT in tests/solvers/small_cholesky_test.cc.

#include <cmath>

#include <Eigen/Core>

namespace iklab {
namespace internal {

/// Solves A x = b for symmetric positive definite A (only the lower triangle
/// is read) by the square-root-free form A = L D Lᵀ (L unit lower
/// triangular, D diagonal): one division per column and no square root, which
/// shortens the column-to-column dependency chain. On return the strict lower
/// triangle of `a` holds L, its diagonal holds D, and `b` holds x. Returns
/// false, leaving `a` and `b` partly overwritten, if a pivot is not positive
/// and finite (A not numerically positive definite).
template <int N>
bool CholeskySolveInPlace(Eigen::Matrix<double, N, N>* a,
                          Eigen::Matrix<double, N, 1>* b) {
  static_assert(N > 0, "fixed sizes only; use Eigen::LLT for dynamic sizes");
  Eigen::Matrix<double, N, N>& m = *a;
  Eigen::Matrix<double, N, 1>& x = *b;
  double inverse_pivot[N];
  double scaled[N];  // scaled[k] = L(j, k) D(k) for the current column j
#pragma GCC unroll 8
  for (int j = 0; j < N; ++j) {
    double d = m(j, j);
#pragma GCC unroll 8
    for (int k = 0; k < j; ++k) {
      scaled[k] = m(j, k) * m(k, k);
      d -= m(j, k) * scaled[k];
    }
    if (!(d > 0.0) || !std::isfinite(d)) return false;
    m(j, j) = d;
    inverse_pivot[j] = 1.0 / d;
#pragma GCC unroll 8
    for (int i = j + 1; i < N; ++i) {
      double s = m(i, j);
#pragma GCC unroll 8
      for (int k = 0; k < j; ++k) s -= m(i, k) * scaled[k];
      m(i, j) = s * inverse_pivot[j];
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {  // L y = b
    double s = x[i];
#pragma GCC unroll 8
    for (int k = 0; k < i; ++k) s -= m(i, k) * x[k];
    x[i] = s;
  }
#pragma GCC unroll 8
  for (int i = N - 1; i >= 0; --i) {  // D Lᵀ x = y
    double s = x[i] * inverse_pivot[i];
#pragma GCC unroll 8
    for (int k = i + 1; k < N; ++k) s -= m(k, i) * x[k];
    x[i] = s;
  }
  return true;
}

}  // namespace internal
}  // namespace iklab

#endif  // IKLAB_SOLVERS_INTERNAL_SMALL_CHOLESKY_H_
