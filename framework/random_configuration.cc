#include "framework/random_configuration.h"

#include <cmath>

#include "framework/internal/constants.h"

namespace iklab {
namespace {

using internal::kPi;

// Uniform in [0, 1) from the top 53 bits: the same on every standard library.
double Uniform01(std::mt19937_64* rng) {
  return static_cast<double>((*rng)() >> 11) * 0x1.0p-53;
}

}  // namespace

Eigen::VectorXd RandomConfiguration(const Eigen::VectorXd& lower,
                                    const Eigen::VectorXd& upper,
                                    std::mt19937_64* rng) {
  const int n = static_cast<int>(lower.size());
  Eigen::VectorXd q(n);
  for (int i = 0; i < n; ++i) {
    double lo = lower[i];
    double hi = upper[i];
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
      lo = std::isfinite(lo) ? lo : (std::isfinite(hi) ? hi - 2.0 * kPi : -kPi);
      hi = std::isfinite(hi) ? hi : lo + 2.0 * kPi;
    }
    q[i] = lo + (hi - lo) * Uniform01(rng);
    if (q[i] > hi) q[i] = hi;  // rounding of lo + (hi − lo) u
  }
  return q;
}

Eigen::VectorXd RandomConfiguration(const Model& model, std::mt19937_64* rng) {
  return RandomConfiguration(model.lower(), model.upper(), rng);
}

}  // namespace iklab
