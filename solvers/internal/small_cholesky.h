#ifndef IKLAB_SOLVERS_INTERNAL_SMALL_CHOLESKY_H_
#define IKLAB_SOLVERS_INTERNAL_SMALL_CHOLESKY_H_

/// @file
/// Cholesky (L D Lᵀ) solve of a small shifted symmetric positive definite
/// system whose size is a compile-time constant (the 6×6 and 7×7 damped
/// normal equations of arm IK).
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

/// Solves (A + shift·I) x = b for symmetric positive definite A + shift·I
/// (only the lower triangle of A is read), overwriting b with x, by the
/// square-root-free form L D Lᵀ (L unit lower triangular, D diagonal): one
/// division per column and no square root. Returns false, leaving b partly
/// overwritten, if a pivot is not positive and finite (not numerically
/// positive definite).
///
/// Right-looking: each column, once divided by its pivot, updates the
/// trailing matrix and the right-hand side at once (the forward
/// substitution folded in). The next pivot then waits on one division, one
/// product and one subtraction, where the column-by-column (left-looking)
/// form waited on a dot product as long as the column index; the work is on
/// local arrays, which alias neither argument, so nothing is reloaded from
/// memory between the updates (perf put this solve at ~18 % of a 7-DOF
/// bounded-LM iteration before, README "bounded LM iteration control").
template <int N>
bool CholeskySolveShifted(const Eigen::Matrix<double, N, N>& a, double shift,
                          Eigen::Matrix<double, N, 1>* b) {
  static_assert(N > 0, "fixed sizes only; use Eigen::LLT for dynamic sizes");
  double l[N][N];  // the lower triangle: the trailing matrix, then L
  double x[N];
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {
#pragma GCC unroll 8
    for (int k = 0; k < i; ++k) l[i][k] = a(i, k);
    l[i][i] = a(i, i) + shift;
    x[i] = (*b)[i];
  }
  double inverse_pivot[N];
#pragma GCC unroll 8
  for (int j = 0; j < N; ++j) {
    const double d = l[j][j];
    if (!(d > 0.0) || !std::isfinite(d)) return false;
    inverse_pivot[j] = 1.0 / d;
    double column[N];  // column j of the trailing matrix, before the division
#pragma GCC unroll 8
    for (int i = j + 1; i < N; ++i) {
      column[i] = l[i][j];
      l[i][j] = column[i] * inverse_pivot[j];
    }
#pragma GCC unroll 8
    for (int i = j + 1; i < N; ++i) {
#pragma GCC unroll 8
      for (int k = j + 1; k <= i; ++k) l[i][k] -= l[i][j] * column[k];
      x[i] -= l[i][j] * x[j];  // L y = b
    }
  }
  // D Lᵀ x = y, by columns of Lᵀ from the last.
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) x[i] *= inverse_pivot[i];
#pragma GCC unroll 8
  for (int i = N - 1; i > 0; --i) {
#pragma GCC unroll 8
    for (int k = 0; k < i; ++k) x[k] -= l[i][k] * x[i];
  }
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) (*b)[i] = x[i];
  return true;
}

}  // namespace internal
}  // namespace iklab

#endif  // IKLAB_SOLVERS_INTERNAL_SMALL_CHOLESKY_H_
