#include "constraints/internal/validation.h"

#include <cmath>

#include <Eigen/Geometry>

#include "framework/internal/check.h"

namespace iklab::internal {

void CheckFiniteVector(const Eigen::Ref<const Eigen::VectorXd>& v,
                       const std::string& owner, const char* what) {
  if (!v.allFinite()) {
    ThrowInvalidArgument(owner, ": ", what, " must be finite; got ",
                         FormatVector(v));
  }
}

void CheckUnitVector(const Eigen::Vector3d& v, const std::string& owner,
                     const char* what) {
  CheckFiniteVector(v, owner, what);
  const double norm = v.norm();
  if (norm < 1e-12) {
    ThrowInvalidArgument(owner, ": ", what, " must be a unit vector; got zero ",
                         FormatVector(v));
  }
  if (std::abs(norm - 1.0) > kGoalUnitTolerance) {
    ThrowInvalidArgument(owner, ": ", what,
                         " must be a unit vector (normalize it); got ",
                         FormatVector(v), " of norm ", norm);
  }
}

void CheckRotation(const Eigen::Matrix3d& R, const std::string& owner,
                   const char* what) {
  if (!R.allFinite()) {
    ThrowInvalidArgument(owner, ": ", what,
                         " must be a finite rotation matrix; it has a NaN or "
                         "infinite entry");
  }
  const double orthogonality =
      (R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (orthogonality > kGoalUnitTolerance || R.determinant() <= 0.0) {
    ThrowInvalidArgument(owner, ": ", what,
                         " must be a rotation matrix (orthonormal, det +1); "
                         "got |R^T R - I|max = ",
                         orthogonality, ", det = ", R.determinant());
  }
}

void CheckNonNegative(double value, const std::string& owner,
                      const char* what) {
  if (!std::isfinite(value) || value < 0.0) {
    ThrowInvalidArgument(owner, ": ", what,
                         " must be finite and >= 0; got ", value);
  }
}

double RotationAngle(const Eigen::Matrix3d& R_a, const Eigen::Matrix3d& R_b) {
  // Quaternion form, 2 atan2(‖v‖, |w|), is accurate for small angles where
  // acos((tr − 1)/2) loses half the digits.
  const Eigen::Quaterniond d(R_a.transpose() * R_b);
  return 2.0 * std::atan2(d.vec().norm(), std::abs(d.w()));
}

void CheckSiteOnModel(const Model& model, int site,
                      const std::string& site_name, const std::string& owner) {
  if (site >= model.num_sites() || model.site_name(site) != site_name) {
    ThrowInvalidArgument(owner, ": built for a model whose site ", site,
                         " is '", site_name, "', but this model has ",
                         model.num_sites(),
                         " sites (goal built for a different model?)");
  }
}

}  // namespace iklab::internal
