#ifndef IKLAB_FRAMEWORK_VALIDATE_H_
#define IKLAB_FRAMEWORK_VALIDATE_H_

/// @file
/// One rule per kind of user input, defined once and called by every
/// surface that takes it — the C++ API, the command line, the Python module
/// and studies — so the same input gets the same answer and the same
/// message everywhere (error policy 3: std::invalid_argument naming the
/// argument, what was expected, what was given and what to change).
///
/// Each check takes `what`, the name the caller's user typed: "--threads",
/// "threads", "BatchOptions::threads", "targets row 3", ...

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cstdint>
#include <limits>
#include <string>

namespace iklab {

/// The most worker threads any iklab call starts: the machine's hardware
/// threads (std::thread::hardware_concurrency(), at least 1). The solves are
/// CPU-bound and their results do not depend on the thread count, so more
/// threads than the hardware runs at once only add switching and stacks; a
/// request above the cap starts the cap.
int MaxWorkerThreads();

/// The rule for a requested worker-thread count: an integer ≥ 1 (0 and
/// negatives are refused; there is no "0 = all", ask for MaxWorkerThreads()
/// or pass a large number, which is capped). Returns the number of threads
/// to start, min(requested, MaxWorkerThreads()).
/// @throws std::invalid_argument naming `what` for requested < 1.
int CheckThreadCount(std::int64_t requested, const std::string& what);

/// The rule for a convergence tolerance (length units or radians): finite
/// and > 0. @throws std::invalid_argument naming `what` otherwise (NaN,
/// ±∞, 0, negative).
void CheckTolerance(double value, const std::string& what);

/// The rule for a wall-clock budget in seconds: not NaN; ≤ 0 (or +∞) means
/// none. @throws std::invalid_argument naming `what` for NaN.
void CheckTimeBudget(double seconds, const std::string& what);

/// The rule for a rotation given as a quaternion (w, x, y, z): every
/// component finite and norm ≥ kMinQuaternionNorm (a zero quaternion is
/// refused, never read as the identity). Returns it normalized.
/// @throws std::invalid_argument naming `what` otherwise.
Eigen::Quaterniond CheckQuaternion(double w, double x, double y, double z,
                                   const std::string& what);
constexpr double kMinQuaternionNorm = 1e-6;

/// Whether CheckQuaternion accepts (w, x, y, z), without building its
/// message: loops over many rows call CheckQuaternion (and format the row's
/// name) only for a row this refuses.
inline bool IsValidQuaternion(double w, double x, double y, double z) {
  const double norm2 = w * w + x * x + y * y + z * z;
  // NaN fails the comparison; an infinite component makes norm2 infinite
  // (or NaN), which the upper bound refuses.
  return norm2 >= kMinQuaternionNorm * kMinQuaternionNorm &&
         norm2 <= std::numeric_limits<double>::max();
}

/// The rule for a rigid pose given as a 4 × 4 homogeneous matrix X = [R p;
/// 0 0 0 1]: finite, bottom row [0 0 0 1] within kPoseTolerance, R
/// orthonormal (‖RᵀR − I‖_max ≤ kPoseTolerance) with det R > 0. A matrix
/// whose transpose would pass is refused with a message saying it looks
/// transposed (translation in the bottom row). Returns the pose with R
/// re-orthonormalized (its nearest rotation, via the quaternion).
/// @throws std::invalid_argument naming `what` otherwise.
Eigen::Isometry3d CheckPose(const Eigen::Matrix4d& X, const std::string& what);
constexpr double kPoseTolerance = 1e-6;

/// The rule for a count of items that the library indexes with int (trials,
/// targets, samples): 0 ≤ count ≤ INT_MAX. Returns it as int.
/// @throws std::invalid_argument naming `what` otherwise, with the limit.
int CheckItemCount(std::int64_t count, const std::string& what);

}  // namespace iklab

#endif  // IKLAB_FRAMEWORK_VALIDATE_H_
