// The fixed-size L D Lᵀ solve of the bounded LM solver against Eigen's LLT,
// and its refusal of matrices that are not positive definite.
#include "solvers/internal/small_cholesky.h"

#include <cmath>
#include <random>

#include <Eigen/Cholesky>
#include <catch2/catch.hpp>

namespace iklab {
namespace {

template <int N>
void CheckAgainstEigen(std::mt19937_64* rng) {
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 200; ++trial) {
    // JᵀJ + μI with J 9 × N, as in the damped normal equations; μ spans
    // well-conditioned to nearly singular systems.
    Eigen::Matrix<double, 9, N> J;
    for (int i = 0; i < J.size(); ++i) J.data()[i] = normal(*rng);
    const double mu = std::pow(10.0, -8.0 + 8.0 * (trial % 9) / 8.0);
    Eigen::Matrix<double, N, N> A = J.transpose() * J;
    A.diagonal().array() += mu;
    Eigen::Matrix<double, N, 1> b;
    for (int i = 0; i < N; ++i) b[i] = normal(*rng);

    const Eigen::Matrix<double, N, 1> expected = A.llt().solve(b);
    // The shift is added by the solve; garbage in the strict upper triangle
    // must not be read.
    Eigen::Matrix<double, N, N> lower = J.transpose() * J;
    lower.template triangularView<Eigen::StrictlyUpper>().setConstant(NAN);
    Eigen::Matrix<double, N, 1> x = b;
    REQUIRE(internal::CholeskySolveShifted(lower, mu, &x));
    const double scale = expected.norm() * A.norm() / A.diagonal().minCoeff();
    CHECK((x - expected).norm() <= 1e-11 * scale);
    CHECK((A * x - b).norm() <= 1e-10 * (A.norm() * x.norm() + b.norm()));
  }
}

TEST_CASE("Small L D L^T solve matches Eigen's LLT on damped normal "
          "equations (3, 6 and 7 unknowns)",
          "[solvers]") {
  std::mt19937_64 rng(5);
  CheckAgainstEigen<3>(&rng);
  CheckAgainstEigen<6>(&rng);
  CheckAgainstEigen<7>(&rng);
}

TEST_CASE("Small L D L^T solve refuses indefinite, singular and NaN matrices",
          "[solvers]") {
  Eigen::Matrix3d indefinite;
  indefinite << 2, 0, 0, 0, -1, 0, 0, 0, 3;
  Eigen::Vector3d b(1, 2, 3);
  CHECK_FALSE(internal::CholeskySolveShifted(indefinite, 0.0, &b));

  Eigen::Matrix3d singular;  // rank 1
  singular << 1, 2, 3, 2, 4, 6, 3, 6, 9;
  b << 1, 2, 3;
  CHECK_FALSE(internal::CholeskySolveShifted(singular, 0.0, &b));

  Eigen::Matrix3d with_nan = Eigen::Matrix3d::Identity();
  with_nan(2, 0) = NAN;
  b << 1, 2, 3;
  CHECK_FALSE(internal::CholeskySolveShifted(with_nan, 0.0, &b));
}

}  // namespace
}  // namespace iklab
