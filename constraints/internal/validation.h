#ifndef IKLAB_CONSTRAINTS_INTERNAL_VALIDATION_H_
#define IKLAB_CONSTRAINTS_INTERNAL_VALIDATION_H_

/// @file
/// Argument checks shared by the goals (error policy 3: the message names the
/// goal, the argument, what was expected and what was given).

#include <cmath>
#include <string>

#include <Eigen/Core>

#include "framework/model.h"

namespace iklab::internal {

/// Tolerance on ‖v‖ − 1 for unit-vector arguments and on RᵀR − I for
/// rotation arguments. Looser than the figure's 1e-9 because targets are
/// often computed by the user (e.g. from FK in float or from a file).
inline constexpr double kGoalUnitTolerance = 1e-6;

/// @throws std::invalid_argument "<owner>: <what> must be finite; got (…)".
void CheckFiniteVector(const Eigen::Ref<const Eigen::VectorXd>& v,
                       const std::string& owner, const char* what);
/// @throws std::invalid_argument unless v is finite with |‖v‖ − 1| ≤ tol.
void CheckUnitVector(const Eigen::Vector3d& v, const std::string& owner,
                     const char* what);
/// @throws std::invalid_argument unless R is a finite rotation (orthonormal
/// to kGoalUnitTolerance, det > 0).
void CheckRotation(const Eigen::Matrix3d& R, const std::string& owner,
                   const char* what);
/// @throws std::invalid_argument unless value is finite and ≥ 0.
void CheckNonNegative(double value, const std::string& owner,
                      const char* what);

/// Checks that `site` (resolved from `site_name` when the goal was built)
/// names the same site on `model` (Goal::CheckModel of goals that hold site
/// indices without deriving from SiteGoal).
/// @throws std::invalid_argument naming `owner` and the mismatch.
void CheckSiteOnModel(const Model& model, int site,
                      const std::string& site_name, const std::string& owner);

/// Cross-product matrix: Skew(a) b = a × b.
inline Eigen::Matrix3d Skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d S;
  S << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return S;
}

/// Angle (radians) between two unit vectors, robust near 0 and π.
inline double AngleBetween(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  return std::atan2(a.cross(b).norm(), a.dot(b));
}

/// Rotation angle of R_aᵀ R_b in [0, π], robust for small angles.
double RotationAngle(const Eigen::Matrix3d& R_a, const Eigen::Matrix3d& R_b);

}  // namespace iklab::internal

#endif  // IKLAB_CONSTRAINTS_INTERNAL_VALIDATION_H_
