// FK computes sin/cos of the joint angles with its own vectorized routine
// (framework/kinematics.cc); these tests hold it to the C library's accuracy.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "framework/figure.h"
#include "framework/internal/constants.h"
#include "framework/internal/kinematics_kernels.h"
#include "framework/kinematics.h"
#include "framework/model.h"

namespace iklab {
namespace {

using internal::kPi;

// A chain of n revolute joints about z at the same point: link i's rotation
// entries are cos and sin of q0 + … + qi; with one joint, of q0 itself.
Model SpinningChain(int n) {
  Figure f("base");
  std::string parent = "base";
  for (int i = 0; i < n; ++i) {
    Joint j;
    j.name = "q" + std::to_string(i);
    j.parent = parent;
    j.child = "link" + std::to_string(i);
    f.AddJoint(j);
    parent = j.child;
  }
  return f.Compile();
}

TEST_CASE("FK's sine and cosine agree with std::sin and std::cos to 1e-15",
          "[framework]") {
  const Model model = SpinningChain(1);
  Data data(model);
  std::vector<double> angles = {
      0.0,     -0.0,   kPi / 2, -kPi / 2, kPi,  -kPi,     3 * kPi / 2,
      2 * kPi, 1e-300, 1e-8,    0.5,      1.0,  99999.99, -99999.99,
      1e5,     -1e5,   1e5 + 1, -3e7,     1e12, 1.7e300};
  for (int k = -2000; k <= 2000; k += 7) {
    angles.push_back(k * kPi / 2);
    angles.push_back(k * kPi / 2 + 1e-9);
    angles.push_back(k * kPi / 4);
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> small(-10, 10), large(-1e5, 1e5);
  for (int i = 0; i < 20000; ++i) {
    angles.push_back(small(rng));
    angles.push_back(large(rng));
  }
  double worst = 0;
  for (double q : angles) {
    ForwardKinematics(model, Eigen::VectorXd::Constant(1, q), &data);
    const Eigen::Matrix3d R = data.X_W(1).linear();
    const double error = std::max(std::abs(R(0, 0) - std::cos(q)),
                                  std::abs(R(1, 0) - std::sin(q)));
    worst = std::max(worst, error);
    INFO("q = " << q);
    CHECK(error <= 1e-15);
    // Still a rotation.
    CHECK(R(0, 0) == R(1, 1));
    CHECK(R(0, 1) == -R(1, 0));
  }
  INFO("worst error " << worst);
  CHECK(worst <= 1e-15);
}

TEST_CASE("The fixed-length sine and cosine give SinCosArray's bits",
          "[framework]") {
  // The fused solver kernels call SinCosFixed<N>; FK calls SinCosArray. The
  // same angle must rotate a joint by the same bits in both.
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> small(-10, 10), large(-2e5, 2e5);
  const double special[7] = {0.0, -kPi, 1e5, -1e5 - 1, 1e300, NAN, INFINITY};
  for (int trial = 0; trial < 2000; ++trial) {
    double x[7], sin_array[7], cos_array[7], sin_fixed[7], cos_fixed[7];
    for (int i = 0; i < 7; ++i) {
      x[i] = trial < 7 && i == 0 ? special[trial]
             : i % 3 == 0        ? large(rng)
                                 : small(rng);
    }
    internal::SinCosArray(x, 7, sin_array, cos_array);
    internal::SinCosFixed<7>(x, sin_fixed, cos_fixed);
    for (int i = 0; i < 7; ++i) {
      INFO("x = " << x[i]);
      if (std::isnan(x[i]) || std::isinf(x[i])) {
        CHECK(std::isnan(sin_fixed[i]));
        CHECK(std::isnan(sin_array[i]));
        continue;
      }
      CHECK(sin_fixed[i] == sin_array[i]);
      CHECK(cos_fixed[i] == cos_array[i]);
      CHECK(std::abs(sin_fixed[i] - std::sin(x[i])) <= 1e-15);
    }
  }
}

TEST_CASE("FK's sine and cosine are right in every block of joints",
          "[framework]") {
  // More joints than FK's sin/cos block (32), so later blocks are exercised.
  const int n = 100;
  const Model model = SpinningChain(n);
  Data data(model);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-4, 4);
  Eigen::VectorXd q(n);
  for (int i = 0; i < n; ++i) q[i] = u(rng);
  ForwardKinematics(model, q, &data);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += q[i];
    const Eigen::Matrix3d R = data.X_W(i + 1).linear();
    INFO("joint " << i);
    CHECK(std::abs(R(0, 0) - std::cos(sum)) <= 1e-13);
    CHECK(std::abs(R(1, 0) - std::sin(sum)) <= 1e-13);
  }
}

}  // namespace
}  // namespace iklab
