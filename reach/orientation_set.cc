#include "reach/orientation_set.h"

#include <cmath>

#include "framework/internal/check.h"

namespace iklab {

std::vector<Eigen::Vector3d> FibonacciSphere(int count) {
  if (count < 1) {
    internal::ThrowInvalidArgument("FibonacciSphere: count must be >= 1; got ",
                                   count);
  }
  const double golden = 0.5 * (1.0 + std::sqrt(5.0));
  std::vector<Eigen::Vector3d> axes(count);
  for (int k = 0; k < count; ++k) {
    const double z = 1.0 - (2.0 * k + 1.0) / count;
    const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
    // 2π k / Φ², reduced modulo 2π before the cosine for large k.
    const double turns = std::fmod(k / (golden * golden), 1.0);
    const double phi = 2.0 * M_PI * turns;
    axes[k] = Eigen::Vector3d(r * std::cos(phi), r * std::sin(phi), z)
                  .normalized();
  }
  return axes;
}

std::vector<Eigen::Quaterniond> ApproachOrientations(int num_axes,
                                                     int num_rolls) {
  if (num_rolls < 1) {
    internal::ThrowInvalidArgument(
        "ApproachOrientations: num_rolls must be >= 1; got ", num_rolls);
  }
  std::vector<Eigen::Quaterniond> orientations;
  orientations.reserve(static_cast<size_t>(num_axes) * num_rolls);
  for (const Eigen::Vector3d& a : FibonacciSphere(num_axes)) {
    Eigen::Quaterniond to_axis;
    if (a.z() < -1.0 + 1e-15) {
      to_axis = Eigen::Quaterniond(Eigen::AngleAxisd(M_PI, Eigen::Vector3d::UnitX()));
    } else {
      to_axis = Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), a);
    }
    for (int j = 0; j < num_rolls; ++j) {
      const Eigen::Quaterniond roll(
          Eigen::AngleAxisd(2.0 * M_PI * j / num_rolls, Eigen::Vector3d::UnitZ()));
      orientations.push_back((to_axis * roll).normalized());
    }
  }
  return orientations;
}

}  // namespace iklab
