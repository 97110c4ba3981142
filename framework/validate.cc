#include "framework/validate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "framework/internal/check.h"

namespace iklab {

using internal::ThrowInvalidArgument;

int MaxWorkerThreads() {
  static const int cap =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return cap;
}

int CheckThreadCount(std::int64_t requested, const std::string& what) {
  if (requested < 1) {
    ThrowInvalidArgument(what, " must be >= 1, got ", requested,
                         " (worker threads, the calling thread included; "
                         "this machine runs ",
                         MaxWorkerThreads(),
                         " hardware threads, and a larger request starts "
                         "that many)");
  }
  return static_cast<int>(
      std::min<std::int64_t>(requested, MaxWorkerThreads()));
}

void CheckTolerance(double value, const std::string& what) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    ThrowInvalidArgument(what, " must be a finite number > 0, got ", value);
  }
}

void CheckTimeBudget(double seconds, const std::string& what) {
  if (std::isnan(seconds)) {
    ThrowInvalidArgument(what,
                         " must be a number of seconds (<= 0 for no "
                         "budget), got NaN");
  }
}

Eigen::Quaterniond CheckQuaternion(double w, double x, double y, double z,
                                   const std::string& what) {
  const Eigen::Quaterniond q(w, x, y, z);
  if (!q.coeffs().allFinite()) {
    ThrowInvalidArgument(what, " (quaternion w x y z) must be finite, got (", w,
                         ", ", x, ", ", y, ", ", z, ")");
  }
  if (!(q.norm() >= kMinQuaternionNorm)) {
    ThrowInvalidArgument(
        what, " (quaternion w x y z) must have a norm >= ", kMinQuaternionNorm,
        " (it is normalized), got (", w, ", ", x, ", ", y, ", ", z,
        "); the identity rotation is (1, 0, 0, 0)");
  }
  return q.normalized();
}

namespace {

// Why `X` is not a rigid pose (empty if it is).
std::string PoseDefect(const Eigen::Matrix4d& X) {
  if (!X.allFinite()) return "it has a non-finite entry";
  const Eigen::RowVector4d bottom = X.row(3);
  if ((bottom - Eigen::RowVector4d(0, 0, 0, 1)).cwiseAbs().maxCoeff() >
      kPoseTolerance) {
    return internal::StrCat("its bottom row is (", bottom[0], ", ", bottom[1],
                            ", ", bottom[2], ", ", bottom[3],
                            "), not (0, 0, 0, 1)");
  }
  const Eigen::Matrix3d R = X.topLeftCorner<3, 3>();
  const double off =
      (R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (!(off <= kPoseTolerance)) {
    return internal::StrCat(
        "its rotation block is not orthonormal (max |R^T "
        "R - I| = ",
        off, ")");
  }
  if (!(R.determinant() > 0.0)) {
    return "its rotation block is a reflection (det R < 0)";
  }
  return "";
}

}  // namespace

Eigen::Isometry3d CheckPose(const Eigen::Matrix4d& X, const std::string& what) {
  const std::string defect = PoseDefect(X);
  if (!defect.empty()) {
    const bool transposed = PoseDefect(X.transpose()).empty();
    ThrowInvalidArgument(
        what,
        " must be a rigid pose [R p; 0 0 0 1] (R orthonormal, bottom "
        "row 0 0 0 1, both within ",
        kPoseTolerance, "), but ", defect,
        transposed ? "; its transpose is a pose: the matrix looks transposed "
                     "(translation in the bottom row), pass it row-major as "
                     "[R p; 0 0 0 1]"
                   : "");
  }
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() = Eigen::Quaterniond(Eigen::Matrix3d(X.topLeftCorner<3, 3>()))
                      .normalized()
                      .toRotationMatrix();
  pose.translation() = X.topRightCorner<3, 1>();
  return pose;
}

int CheckItemCount(std::int64_t count, const std::string& what) {
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  if (count < 0 || count > kMax) {
    ThrowInvalidArgument(what, " must be between 0 and ", kMax,
                         " (the largest count the library indexes), got ",
                         count);
  }
  return static_cast<int>(count);
}

}  // namespace iklab
