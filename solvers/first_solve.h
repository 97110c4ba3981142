#ifndef IKLAB_SOLVERS_FIRST_SOLVE_H_
#define IKLAB_SOLVERS_FIRST_SOLVE_H_

/// @file
/// Whether a solver instance has paid its first-solve cost yet (see
/// solvers/internal/warm_up.h). A solver whose Prepare warms it up holds
/// one: Prepare claims it, and Solve, when nobody has claimed it, calls
/// Prepare before starting its clock, so a program that never calls Prepare
/// pays the cost once per instance outside the first solve's clock and time
/// budget (the call still takes that long: the cost is moved, not removed).

#include <atomic>

namespace iklab::internal {

/// A flag that exactly one caller claims. Thread-safe; copyable (a copy
/// starts claimed if its source was: the process is warm already).
class FirstSolve {
 public:
  FirstSolve() = default;
  FirstSolve(const FirstSolve& other) : claimed_(other.claimed_.load()) {}
  FirstSolve& operator=(const FirstSolve& other) {
    claimed_ = other.claimed_.load();
    return *this;
  }

  /// True for the first caller only (later and concurrent callers get
  /// false at the cost of one relaxed load).
  bool Claim() const {
    return !claimed_.load(std::memory_order_relaxed) && !claimed_.exchange(true);
  }

 private:
  mutable std::atomic<bool> claimed_{false};
};

}  // namespace iklab::internal

#endif  // IKLAB_SOLVERS_FIRST_SOLVE_H_
