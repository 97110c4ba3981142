// Identities of the linearized steps of the differential IK methods
// (solvers/differential/jacobian_steps.h), checked against independent constructions:
// Eigen's complete orthogonal decomposition for pseudo-inverses, the SVD for
// condition numbers, brute-force enumeration for the bounded QP.

#include "solvers/differential/jacobian_steps.h"

#include <cmath>
#include <random>
#include <vector>

#include <Eigen/QR>
#include <Eigen/SVD>
#include <catch2/catch.hpp>

#include "framework/kinematics.h"
#include "solvers/differential/ccd_solver.h"
#include "solvers/differential/extended_jacobian_solver.h"
#include "solvers/differential/internal/best_angle.h"
#include "tests/allocation_counter.h"
#include "tests/solvers/differential/differential_models.h"

namespace iklab {
namespace {

using testing::AllocationCounter;

Eigen::MatrixXd RandomMatrix(int rows, int cols, std::mt19937* rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) m(i, j) = normal(*rng);
  }
  return m;
}

Eigen::VectorXd RandomVector(int size, std::mt19937* rng) {
  return RandomMatrix(size, 1, rng);
}

Eigen::MatrixXd PseudoInverse(const Eigen::MatrixXd& A) {
  return A.completeOrthogonalDecomposition().pseudoInverse();
}

// The 2 × 3 position Jacobian (x, y rows) of Parent's arm at q.
Eigen::MatrixXd ParentJacobian(const Eigen::Vector3d& q) {
  const auto model = testing::PlanarArm({15, 10, 5});
  Data data(*model);
  ForwardKinematics(*model, q, &data);
  Eigen::Matrix3Xd J(3, 3);
  SitePositionJacobian(*model, data, 0, J);
  return J.topRows(2);
}

TEST_CASE("The SVD pseudo-inverse step equals J+ V, also for rank-deficient J",
          "[solvers]") {
  std::mt19937 rng(11);
  for (const auto& [rows, cols] :
       std::vector<std::pair<int, int>>{{3, 7}, {6, 4}, {5, 5}}) {
    Eigen::MatrixXd J = RandomMatrix(rows, cols, &rng);
    if (rows <= cols) {  // rank-deficient by one
      J.row(rows - 1) = 0.5 * J.row(0);
    } else {
      J.col(cols - 1) = 0.5 * J.col(0);
    }
    const Eigen::VectorXd V = RandomVector(rows, &rng);
    PseudoInverseStep step(rows, cols);
    Eigen::VectorXd dq(cols);
    step.Compute(J, V, 1e-10, 0.0, dq);
    CHECK((dq - PseudoInverse(J) * V).norm() < 1e-10 * (1 + dq.norm()));
    CHECK(step.rank() == std::min(rows, cols) - 1);
  }
}

TEST_CASE("Parent's control term moves no effector: J (J+J - I) z = 0",
          "[solvers]") {
  std::mt19937 rng(5);
  const int rows = 3, cols = 7;
  const Eigen::MatrixXd J = RandomMatrix(rows, cols, &rng);
  const Eigen::VectorXd z = RandomVector(cols, &rng);
  ControlTermStep step(rows, cols);
  Eigen::VectorXd dq(cols);

  // V = 0 leaves only the null-space part (J+J − I) z.
  step.Compute(J, Eigen::VectorXd::Zero(rows), z, dq);
  CHECK(step.used_lu());
  CHECK((J * dq).norm() < 1e-10);
  CHECK(dq.norm() > 0.1);  // and it does move the joints

  // With V, the task is met exactly and the step is J+V − (I − J+J) z.
  const Eigen::VectorXd V = RandomVector(rows, &rng);
  step.Compute(J, V, z, dq);
  CHECK((J * dq - V).norm() < 1e-10);
  const Eigen::MatrixXd Jp = PseudoInverse(J);
  const Eigen::VectorXd expected =
      Jp * V + (Jp * J - Eigen::MatrixXd::Identity(cols, cols)) * z;
  CHECK((dq - expected).norm() < 1e-10);

  // On Parent's arm (2 rows, 3 joints) too.
  const Eigen::MatrixXd Jp3 = ParentJacobian({0.4, 0.7, -0.3});
  ControlTermStep arm(2, 3);
  Eigen::VectorXd dq3(3);
  arm.Compute(Jp3, Eigen::Vector2d::Zero(), Eigen::Vector3d(0.3, -1, 2), dq3);
  CHECK(arm.used_lu());
  CHECK((Jp3 * dq3).norm() < 1e-10);
}

TEST_CASE("The control term falls back to the SVD for a rank-deficient "
          "Jacobian",
          "[solvers]") {
  Eigen::MatrixXd J(3, 4);  // rank 2: a zero row, as a planar figure's z row
  J << 1, 2, 3, 4, 2, -1, 0.5, 1, 0, 0, 0, 0;
  const Eigen::Vector3d V(1, -2, 0);
  const Eigen::Vector4d z(0.3, -0.2, 0.5, 1.0);
  ControlTermStep step(3, 4);
  Eigen::VectorXd dq(4);
  step.Compute(J, V, z, dq);
  CHECK_FALSE(step.used_lu());
  const Eigen::MatrixXd Jp = PseudoInverse(J);
  const Eigen::VectorXd expected =
      Jp * V + (Jp * J - Eigen::MatrixXd::Identity(4, 4)) * z;
  CHECK((dq - expected).norm() < 1e-10);
  CHECK((J * dq - V).norm() < 1e-10);
}

TEST_CASE("The F_i recursion equals the stacked pseudo-inverse for M = 2, 3, 4",
          "[solvers]") {
  std::mt19937 rng(17);
  const int n = 12;
  for (int M = 2; M <= 4; ++M) {
    // Level sizes 2 or 3, Σ m_i < n; random J_i have full row rank.
    std::vector<RowBlock> levels;
    int rows = 0;
    for (int k = 0; k < M; ++k) {
      const int m = 2 + (k % 2);
      levels.push_back({rows, m});
      rows += m;
    }
    REQUIRE(rows < n);
    const Eigen::MatrixXd J = RandomMatrix(rows, n, &rng);
    const Eigen::VectorXd V = RandomVector(rows, &rng);
    PrioritizedStep step(levels, n);
    Eigen::VectorXd dq(n);
    step.Compute(J, V, 1e-10, 0.0, dq);
    const Eigen::VectorXd expected = PseudoInverse(J) * V;
    INFO("M = " << M);
    CHECK((dq - expected).norm() < 1e-9 * expected.norm());
    CHECK((J * dq - V).norm() < 1e-9 * V.norm());
    // F_M projects onto the common null space: J F_M = 0, F_M idempotent,
    // trace = n − Σ m_i.
    const Eigen::MatrixXd& F = step.null_space_projector();
    CHECK((J * F).norm() < 1e-9);
    CHECK((F * F - F).norm() < 1e-9);
    CHECK(std::abs(F.trace() - (n - rows)) < 1e-9);
  }
}

TEST_CASE("For M = 2 the recursion is the paper's closed form", "[solvers]") {
  std::mt19937 rng(23);
  const int n = 6;
  const Eigen::MatrixXd J1 = RandomMatrix(2, n, &rng);
  const Eigen::MatrixXd J2 = RandomMatrix(3, n, &rng);
  const Eigen::VectorXd X1 = RandomVector(2, &rng);
  const Eigen::VectorXd X2 = RandomVector(3, &rng);
  // b = J1+ dX1 + [J2 (I − J1+ J1)]+ (dX2 − J2 J1+ dX1)
  const Eigen::MatrixXd J1p = PseudoInverse(J1);
  const Eigen::MatrixXd P1 = Eigen::MatrixXd::Identity(n, n) - J1p * J1;
  const Eigen::VectorXd b =
      J1p * X1 + PseudoInverse(J2 * P1) * (X2 - J2 * J1p * X1);
  Eigen::MatrixXd J(5, n);
  J << J1, J2;
  Eigen::VectorXd V(5);
  V << X1, X2;
  PrioritizedStep step({{0, 2}, {2, 3}}, n);
  Eigen::VectorXd dq(n);
  step.Compute(J, V, 1e-10, 0.0, dq);
  CHECK((dq - b).norm() < 1e-10 * b.norm());
}

TEST_CASE("Conflicting levels: level 1 exact, level 2 least squares in its "
          "null space",
          "[solvers]") {
  std::mt19937 rng(29);
  const int n = 4;
  const Eigen::MatrixXd J = RandomMatrix(5, n, &rng);  // 2 + 3 rows > n
  const Eigen::VectorXd V = RandomVector(5, &rng);
  PrioritizedStep step({{0, 2}, {2, 3}}, n);
  Eigen::VectorXd dq(n);
  step.Compute(J, V, 1e-10, 0.0, dq);
  CHECK((J.topRows(2) * dq - V.head(2)).norm() < 1e-10);
  // Optimality of level 2 over dq + F1 y: (J2 F1)ᵀ (J2 dq − V2) = 0.
  const Eigen::MatrixXd J1 = J.topRows(2);
  const Eigen::MatrixXd F1 =
      Eigen::MatrixXd::Identity(n, n) - PseudoInverse(J1) * J1;
  const Eigen::MatrixXd J2 = J.bottomRows(3);
  CHECK(((J2 * F1).transpose() * (J2 * dq - V.tail(3))).norm() < 1e-10);
  // And the levels really conflict: level 2 is not met.
  CHECK((J2 * dq - V.tail(3)).norm() > 1e-3);
}

TEST_CASE("DLS approaches the pseudo-inverse step as lambda -> 0",
          "[solvers]") {
  std::mt19937 rng(31);
  const Eigen::MatrixXd J = RandomMatrix(3, 7, &rng);
  const Eigen::VectorXd V = RandomVector(3, &rng);
  const Eigen::VectorXd pinv = PseudoInverse(J) * V;
  DampedLeastSquaresStep step(3, 7);
  Eigen::VectorXd dq(7);
  double previous = kInfinity;
  for (double lambda : {1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-6}) {
    REQUIRE(step.Compute(J, V, lambda, dq));
    const double distance = (dq - pinv).norm();
    CHECK(distance < previous);
    previous = distance;
  }
  CHECK(previous < 1e-9 * pinv.norm());
  // The overdetermined branch (m > n) agrees too.
  const Eigen::MatrixXd Jt = RandomMatrix(7, 3, &rng);
  const Eigen::VectorXd Vt = RandomVector(7, &rng);
  DampedLeastSquaresStep tall(7, 3);
  Eigen::VectorXd dq3(3);
  REQUIRE(tall.Compute(Jt, Vt, 1e-7, dq3));
  CHECK((dq3 - PseudoInverse(Jt) * Vt).norm() < 1e-9);
}

TEST_CASE("DLS damping: condition number falls, residual grows (NLP Lemmas "
          "7.1-7.2)",
          "[solvers]") {
  // Parent's arm nearly stretched: a badly conditioned Jacobian.
  const Eigen::MatrixXd J = ParentJacobian({0.02, 0.01, 0.015});
  const Eigen::Vector2d V(-1.0, 0.5);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(J);
  const double s_max = svd.singularValues()(0);
  const double s_min = svd.singularValues()(1);
  DampedLeastSquaresStep step(2, 3);
  Eigen::VectorXd dq(3);
  double previous_condition = kInfinity;
  double previous_residual = -1.0;
  double previous_step = kInfinity;
  for (double lambda : {0.1, 0.25, 1.5, 10.0}) {  // Example 7.3's values
    REQUIRE(step.Compute(J, V, lambda, dq));
    const double condition = step.ConditionNumber();
    const double l2 = lambda * lambda;
    INFO("lambda = " << lambda);
    CHECK(condition ==
          Approx((s_max * s_max + l2) / (s_min * s_min + l2)).epsilon(1e-9));
    const double residual = (V - J * dq).norm();
    CHECK(condition < previous_condition);
    CHECK(residual > previous_residual);
    CHECK(dq.norm() < previous_step);
    previous_condition = condition;
    previous_residual = residual;
    previous_step = dq.norm();
  }
}

// Brute force for min ‖Jx − V‖² + λ²‖x‖², lo ≤ x ≤ hi: every assignment of
// each coordinate to {free, lo, hi}; the best feasible candidate.
Eigen::VectorXd BruteForceBoxDls(const Eigen::MatrixXd& J,
                                 const Eigen::VectorXd& V, double lambda,
                                 const Eigen::VectorXd& lo,
                                 const Eigen::VectorXd& hi) {
  const int n = static_cast<int>(J.cols());
  int combinations = 1;
  for (int i = 0; i < n; ++i) combinations *= 3;
  auto objective = [&](const Eigen::VectorXd& x) {
    return (J * x - V).squaredNorm() + lambda * lambda * x.squaredNorm();
  };
  Eigen::VectorXd best;
  double best_value = kInfinity;
  for (int c = 0; c < combinations; ++c) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    std::vector<int> free;
    int code = c;
    for (int i = 0; i < n; ++i, code /= 3) {
      if (code % 3 == 1) x(i) = lo(i);
      if (code % 3 == 2) x(i) = hi(i);
      if (code % 3 == 0) free.push_back(i);
    }
    if (!free.empty()) {
      const int k = static_cast<int>(free.size());
      Eigen::MatrixXd A(J.rows() + k, k);
      A.setZero();
      for (int f = 0; f < k; ++f) {
        A.col(f).head(J.rows()) = J.col(free[f]);
        A(J.rows() + f, f) = lambda;
      }
      Eigen::VectorXd b = Eigen::VectorXd::Zero(J.rows() + k);
      b.head(J.rows()) = V - J * x;
      const Eigen::VectorXd y = A.colPivHouseholderQr().solve(b);
      for (int f = 0; f < k; ++f) x(free[f]) = y(f);
    }
    if ((x.array() < lo.array() - 1e-12).any() ||
        (x.array() > hi.array() + 1e-12).any()) {
      continue;
    }
    if (objective(x) < best_value) {
      best_value = objective(x);
      best = x;
    }
  }
  return best;
}

TEST_CASE("The bounded DLS active-set step is the exact box-constrained "
          "minimizer",
          "[solvers]") {
  std::mt19937 rng(37);
  std::uniform_real_distribution<double> width(0.05, 1.0);
  BoxDampedLeastSquares qp;
  for (int trial = 0; trial < 40; ++trial) {
    const int m = trial % 2 == 0 ? 2 : 6;  // both the m×m and n×n forms
    const int n = 4 + trial % 2;
    qp.Resize(m, n);
    const Eigen::MatrixXd J = RandomMatrix(m, n, &rng);
    const Eigen::VectorXd V = 3.0 * RandomVector(m, &rng);
    Eigen::VectorXd lo(n), hi(n);
    for (int i = 0; i < n; ++i) {
      lo(i) = -width(rng);
      hi(i) = width(rng);
    }
    if (trial % 5 == 0) lo(0) = 0.0;  // start on a bound
    const double lambda = 0.3;
    Eigen::VectorXd x(n);
    const auto outcome = qp.Solve(J, V, lambda, lo, hi, x);
    INFO("trial " << trial);
    REQUIRE(outcome.optimal);
    CHECK((x.array() >= lo.array()).all());
    CHECK((x.array() <= hi.array()).all());
    const Eigen::VectorXd expected = BruteForceBoxDls(J, V, lambda, lo, hi);
    CHECK((x - expected).norm() < 1e-9 * (1.0 + expected.norm()));
  }
}

TEST_CASE("CCD's bounded angle is the maximizer of cos(theta - theta*) on the "
          "interval",
          "[solvers]") {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> angle(-3.5, 3.5);
  std::uniform_real_distribution<double> half(0.0, 2.5);
  for (int trial = 0; trial < 200; ++trial) {
    const double star = angle(rng);
    const double lo = -half(rng);
    const double hi = half(rng);
    const double best = internal::BestAngleInInterval(star, lo, hi);
    REQUIRE(best >= lo);
    REQUIRE(best <= hi);
    double sampled = -2.0;
    for (int k = 0; k <= 2000; ++k) {
      sampled = std::max(sampled, std::cos(lo + (hi - lo) * k / 2000.0 - star));
    }
    CHECK(std::cos(best - star) >= sampled - 1e-12);
  }
  // Unbounded: the optimum itself, as the representative in (−π, π].
  CHECK(internal::BestAngleInInterval(0.5, -kInfinity, kInfinity) ==
        Approx(0.5));
  CHECK(internal::BestAngleInInterval(2 * M_PI + 0.5, -kInfinity, kInfinity) ==
        Approx(0.5));
  // θ* just outside the upper end wraps to the lower end when that is nearer
  // around the circle: θ* = 3, [−3, 2] → −3 is 2π − 6 ≈ 0.28 away, 2 is 1.
  CHECK(internal::BestAngleInInterval(3.0, -3.0, 2.0) == Approx(-3.0));
}

TEST_CASE("The Extended Jacobian has full column rank at Soch's stretched "
          "singular pose",
          "[solvers]") {
  const auto model = testing::PlanarArm({90, 60, 90, 150, 150, 90},
                                        Eigen::Vector3d(-230, 0, 0));
  Data data(*model);
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(6);
  ForwardKinematics(*model, q, &data);
  CHECK((SitePosition(*model, data, 0) - Eigen::Vector3d(400, 0, 0)).norm() <
        1e-9);  // the paper's start point on the ellipse
  PlanarRevoluteChain chain;
  std::string why;
  REQUIRE(FindPlanarChain(*model, 0, &chain, &why));
  Eigen::MatrixXd J_ext(12, 6);
  ExtendedJacobian(*model, data, chain, 1.0, J_ext);

  Eigen::Matrix3Xd J(3, 6);
  SitePositionJacobian(*model, data, 0, J);
  Eigen::JacobiSVD<Eigen::MatrixXd> plain(J.topRows(2));
  CHECK(plain.singularValues()(1) < 1e-9 * plain.singularValues()(0));
  Eigen::JacobiSVD<Eigen::MatrixXd> extended(J_ext);
  CHECK(extended.singularValues()(5) > 1e-3 * extended.singularValues()(0));
  // The main rows are the ordinary planar Jacobian.
  CHECK((J_ext.bottomRows(2) - J.topRows(2)).norm() < 1e-9);
}

TEST_CASE("Extended Jacobian element rows are the derivatives of Soch Eq. 8",
          "[solvers]") {
  const std::vector<double> l = {90, 60, 90, 150, 150, 90};
  const auto model = testing::PlanarArm(l, Eigen::Vector3d(-230, 0, 0));
  Data data(*model);
  Eigen::VectorXd q(6);
  q << 0.3, -0.5, 0.8, 0.1, -1.2, 0.6;
  ForwardKinematics(*model, q, &data);
  PlanarRevoluteChain chain;
  REQUIRE(FindPlanarChain(*model, 0, &chain, nullptr));
  Eigen::MatrixXd J_ext(12, 6);
  const double w = 0.7;
  ExtendedJacobian(*model, data, chain, w, J_ext);
  // Eq. 8: x = l_i cos q_i + l_{i+1} cos(q_i + q_{i+1}), y likewise with sin.
  auto element = [&](const Eigen::VectorXd& x, int i) {
    return Eigen::Vector2d(
        l[i] * std::cos(x(i)) + l[i + 1] * std::cos(x(i) + x(i + 1)),
        l[i] * std::sin(x(i)) + l[i + 1] * std::sin(x(i) + x(i + 1)));
  };
  const double h = 1e-6;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 6; ++j) {
      Eigen::VectorXd plus = q, minus = q;
      plus(j) += h;
      minus(j) -= h;
      const Eigen::Vector2d numeric =
          w * (element(plus, i) - element(minus, i)) / (2 * h);
      INFO("element " << i << ", column " << j);
      CHECK((J_ext.block<2, 1>(2 * i, j) - numeric).norm() < 1e-5);
    }
  }
}

TEST_CASE("The step kernels do not allocate after construction", "[solvers]") {
  if (!AllocationCounter::enabled()) return;
  std::mt19937 rng(43);
  const int m = 6, n = 30;
  const Eigen::MatrixXd J = RandomMatrix(m, n, &rng);
  const Eigen::VectorXd V = RandomVector(m, &rng);
  const Eigen::VectorXd z = RandomVector(n, &rng);
  const Eigen::VectorXd lo = Eigen::VectorXd::Constant(n, -0.05);
  const Eigen::VectorXd hi = Eigen::VectorXd::Constant(n, 0.05);
  Eigen::VectorXd dq(n);
  PseudoInverseStep pinv(m, n);
  DampedLeastSquaresStep dls(m, n);
  SelectivelyDampedStep sdls(m, n, {{0, 3}, {3, 3}});
  ControlTermStep control(m, n);
  PrioritizedStep priority({{0, 3}, {3, 3}}, n);
  BoxDampedLeastSquares box(m, n);
  auto run_all = [&] {
    pinv.Compute(J, V, 1e-12, 0.0, dq);
    dls.Compute(J, V, 0.1, dq);
    dls.ConditionNumber();
    sdls.Compute(J, V, 0.78, 1e-12, dq);
    control.Compute(J, V, z, dq);
    priority.Compute(J, V, 1e-10, 0.0, dq);
    box.Solve(J, V, 0.1, lo, hi, dq);
  };
  run_all();  // warm-up
  AllocationCounter counter;
  for (int k = 0; k < 5; ++k) run_all();
  CHECK(counter.count() == 0);
}

}  // namespace
}  // namespace iklab
