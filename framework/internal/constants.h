#ifndef IKLAB_FRAMEWORK_INTERNAL_CONSTANTS_H_
#define IKLAB_FRAMEWORK_INTERNAL_CONSTANTS_H_

/// @file
/// Numerical constants shared by the sources and tests. Not installed.

namespace iklab::internal {

/// π as a double. M_PI is POSIX, not standard C++17, and EIGEN_PI is a long
/// double (an expression such as 2 * EIGEN_PI would be evaluated in long
/// double and round differently), so iklab spells π once, here.
inline constexpr double kPi = 3.14159265358979323846;

}  // namespace iklab::internal

#endif  // IKLAB_FRAMEWORK_INTERNAL_CONSTANTS_H_
