#ifndef IKLAB_FRAMEWORK_INTERNAL_CHECK_H_
#define IKLAB_FRAMEWORK_INTERNAL_CHECK_H_

/// @file
/// Helpers for argument checks at API boundaries (error policy 3: bad user
/// input throws std::invalid_argument naming the argument, what was expected
/// and what was given).

#include <sstream>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace iklab::internal {

/// Concatenates its arguments with operator<< into a string.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream out;
  out.precision(17);
  (out << ... << args);
  return out.str();
}

/// Throws std::invalid_argument with the concatenated message.
template <typename... Args>
[[noreturn]] void ThrowInvalidArgument(const Args&... args) {
  throw std::invalid_argument(StrCat(args...));
}

/// The one way an `IsValid(std::string* why)` reports a bad field: sets
/// `*why` to the concatenated message when `why` is not null (every IsValid
/// accepts null) and returns false. The message reads
/// "<Struct>::<field> must <rule>, got <value>". The string is built only on
/// failure, so a valid check costs nothing.
template <typename... Args>
bool Invalid(std::string* why, const Args&... args) {
  if (why != nullptr) *why = StrCat(args...);
  return false;
}

/// Formats a vector as "(a, b, c)" for messages.
inline std::string FormatVector(const Eigen::Ref<const Eigen::VectorXd>& v) {
  std::ostringstream out;
  out.precision(10);
  out << "(";
  for (Eigen::Index i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  out << ")";
  return out.str();
}

/// True if `X` is finite and its linear part is a rotation (orthonormal,
/// det +1) to within `tolerance`.
inline bool IsRigidTransform(const Eigen::Isometry3d& X,
                             double tolerance = 1e-9) {
  if (!X.matrix().allFinite()) return false;
  const Eigen::Matrix3d R = X.linear();
  return (R.transpose() * R - Eigen::Matrix3d::Identity())
                 .cwiseAbs()
                 .maxCoeff() <= tolerance &&
         R.determinant() > 0.0;
}

}  // namespace iklab::internal

#endif  // IKLAB_FRAMEWORK_INTERNAL_CHECK_H_
