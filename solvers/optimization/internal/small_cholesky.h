#ifndef IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_SMALL_CHOLESKY_H_
#define IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_SMALL_CHOLESKY_H_

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
/// square-root-free form L D Lᵀ: no square root, and for even N the pivots
/// are 2 × 2 blocks (BlockPivotSolve), for odd N scalars (ScalarPivotSolve).
/// Returns false, leaving b partly overwritten, if a pivot is not positive
/// definite and finite (the matrix is not numerically positive definite).
template <int N>
bool CholeskySolveShifted(const Eigen::Matrix<double, N, N>& a, double shift,
                          Eigen::Matrix<double, N, 1>* b);

/// l ← the lower triangle of A + shift·I, x ← b: local arrays, which alias
/// neither argument, for the solves below.
template <int N>
inline void LoadShiftedSystem(const Eigen::Matrix<double, N, N>& a,
                              double shift,
                              const Eigen::Matrix<double, N, 1>& b,
                              double (&l)[N][N], double (&x)[N]) {
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {
#pragma GCC unroll 8
    for (int k = 0; k < i; ++k) l[i][k] = a(i, k);
    l[i][i] = a(i, i) + shift;
    x[i] = b[i];
  }
}

/// CholeskySolveShifted with scalar pivots: L unit lower triangular, D
/// diagonal, one division per column.
///
/// Right-looking: each column, once divided by its pivot, updates the
/// trailing matrix and the right-hand side at once (the forward
/// substitution folded in). The next pivot then waits on one division, one
/// product and one subtraction, where the column-by-column (left-looking)
/// form waited on a dot product as long as the column index; the work is on
/// local arrays, which alias neither argument, so nothing is reloaded from
/// memory between the updates (docs/performance-log.md, "Bounded LM:
/// best-of-four restarts, full turns, and the stalls inside an iteration").
template <int N>
bool ScalarPivotSolve(const Eigen::Matrix<double, N, N>& a, double shift,
                      Eigen::Matrix<double, N, 1>* b) {
  static_assert(N > 0, "fixed sizes only; use Eigen::LLT for dynamic sizes");
  double l[N][N];  // the lower triangle: the trailing matrix, then L
  double x[N];
  LoadShiftedSystem(a, shift, *b, l, x);
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

/// CholeskySolveShifted with 2 × 2 pivot blocks: L unit block lower
/// triangular, D block diagonal with 2 × 2 blocks D_k, each inverted through
/// its determinant. The next pivot block then waits on one division for two
/// columns instead of one per column, which set the scalar form's pace: a
/// 6 × 6 solve 36.5 → 31.1 ns in a latency-bound loop, with the same
/// accuracy against Eigen::LLT (docs/performance-log.md, "Bounded LM: the
/// step from a factor of JᵀJ; 2 × 2 pivot blocks"). A 2 × 2 block of a positive definite matrix is positive
/// definite: d₀₀ > 0 and det > 0 are tested.
template <int N>
bool BlockPivotSolve(const Eigen::Matrix<double, N, N>& a, double shift,
                     Eigen::Matrix<double, N, 1>* b) {
  static_assert(N % 2 == 0, "2 x 2 pivot blocks");
  constexpr int kBlocks = N / 2;
  double l[N][N];  // the lower triangle: the trailing matrix, then L
  double x[N];
  LoadShiftedSystem(a, shift, *b, l, x);
  double inverse[kBlocks][3];  // D_k⁻¹ = [p q; q r]
#pragma GCC unroll 8
  for (int k = 0; k < kBlocks; ++k) {
    const int r0 = 2 * k, r1 = r0 + 1;
    const double d00 = l[r0][r0], d10 = l[r1][r0], d11 = l[r1][r1];
    const double det = d00 * d11 - d10 * d10;
    if (!(d00 > 0.0) || !(det > 0.0) || !std::isfinite(det)) return false;
    const double inverse_det = 1.0 / det;
    const double p = d11 * inverse_det, q = -d10 * inverse_det,
                 r = d00 * inverse_det;
    inverse[k][0] = p;
    inverse[k][1] = q;
    inverse[k][2] = r;
    // Block column k of the trailing matrix, before it is multiplied by
    // D_k⁻¹.
    double w0[N], w1[N];
#pragma GCC unroll 8
    for (int t = r1 + 1; t < N; ++t) {
      w0[t] = l[t][r0];
      w1[t] = l[t][r1];
      l[t][r0] = w0[t] * p + w1[t] * q;
      l[t][r1] = w0[t] * q + w1[t] * r;
    }
#pragma GCC unroll 8
    for (int t = r1 + 1; t < N; ++t) {
      // A_ts −= L_tk W_sᵀ, and L y = b.
#pragma GCC unroll 8
      for (int s = r1 + 1; s <= t; ++s) {
        l[t][s] -= l[t][r0] * w0[s] + l[t][r1] * w1[s];
      }
      x[t] -= l[t][r0] * x[r0] + l[t][r1] * x[r1];
    }
  }
  // D Lᵀ x = y: first z = D⁻¹ y, then Lᵀ x = z by rows of L from the last.
#pragma GCC unroll 8
  for (int k = 0; k < kBlocks; ++k) {
    const int r0 = 2 * k, r1 = r0 + 1;
    const double y0 = x[r0], y1 = x[r1];
    x[r0] = inverse[k][0] * y0 + inverse[k][1] * y1;
    x[r1] = inverse[k][1] * y0 + inverse[k][2] * y1;
  }
#pragma GCC unroll 8
  for (int t = N - 1; t >= 2; --t) {
    // Columns left of t's own block: L's diagonal blocks are I.
#pragma GCC unroll 8
    for (int k = 0; k < 2 * (t / 2); ++k) x[k] -= l[t][k] * x[t];
  }
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) (*b)[i] = x[i];
  return true;
}

template <int N>
bool CholeskySolveShifted(const Eigen::Matrix<double, N, N>& a, double shift,
                          Eigen::Matrix<double, N, 1>* b) {
  if constexpr (N % 2 == 0) {
    return BlockPivotSolve(a, shift, b);
  } else {
    return ScalarPivotSolve(a, shift, b);
  }
}

}  // namespace internal
}  // namespace iklab

#endif  // IKLAB_SOLVERS_OPTIMIZATION_INTERNAL_SMALL_CHOLESKY_H_
