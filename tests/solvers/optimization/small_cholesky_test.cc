// The fixed-size L D Lᵀ solve of the bounded LM solver against Eigen's LLT,
// and its refusal of matrices that are not positive definite.
#include "solvers/optimization/internal/small_cholesky.h"

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
          "equations (2 to 7 unknowns: 2 x 2 pivot blocks for even sizes)",
          "[solvers]") {
  std::mt19937_64 rng(5);
  CheckAgainstEigen<2>(&rng);
  CheckAgainstEigen<3>(&rng);
  CheckAgainstEigen<4>(&rng);
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

TEST_CASE("Small L D L^T solve with 2 x 2 pivot blocks refuses indefinite, "
          "singular and NaN matrices wherever the defect lies",
          "[solvers]") {
  // 6 × 6: three pivot blocks. A negative or zero eigenvalue placed in each
  // block in turn (both rows of a block), and the same within a block whose
  // own diagonal entries are positive (an indefinite 2 × 2 block: 1 and 1
  // with off-diagonal 2).
  using Matrix6 = Eigen::Matrix<double, 6, 6>;
  using Vector6 = Eigen::Matrix<double, 6, 1>;
  for (int row = 0; row < 6; ++row) {
    for (const double bad : {-1.0, 0.0, double(NAN)}) {
      Matrix6 a = Matrix6::Identity();
      a(row, row) = bad;
      Vector6 b = Vector6::Ones();
      INFO("row " << row << ", diagonal " << bad);
      CHECK_FALSE(internal::CholeskySolveShifted(a, 0.0, &b));
    }
  }
  for (int block = 0; block < 3; ++block) {
    Matrix6 a = Matrix6::Identity();
    a(2 * block + 1, 2 * block) = 2.0;  // [1 2; 2 1]: eigenvalues 3, −1
    Vector6 b = Vector6::Ones();
    INFO("block " << block);
    CHECK_FALSE(internal::CholeskySolveShifted(a, 0.0, &b));
    // The shift makes it positive definite again, and the solve exact.
    Vector6 x = Vector6::Ones();
    REQUIRE(internal::CholeskySolveShifted(a, 2.0, &x));
    Matrix6 shifted = a;
    shifted(2 * block, 2 * block + 1) = 2.0;  // the full symmetric matrix
    shifted.diagonal().array() += 2.0;
    CHECK((shifted * x - Vector6::Ones()).norm() <= 1e-14);
  }
}

}  // namespace
}  // namespace iklab
