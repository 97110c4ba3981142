#ifndef IKLAB_TESTS_ALLOCATION_COUNTER_H_
#define IKLAB_TESTS_ALLOCATION_COUNTER_H_

/// @file
/// Counts heap allocations made by this thread while an AllocationCounter is
/// alive. The test binary interposes malloc (allocation_counter.cc), so "no
/// allocation per iteration" is a tested property, not a promise.

namespace iklab::testing {

class AllocationCounter {
 public:
  AllocationCounter();
  ~AllocationCounter();
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  /// Allocations on this thread since construction.
  long count() const;
  /// False in sanitizer builds, where the sanitizer owns malloc.
  static bool enabled();

 private:
  long start_;
};

}  // namespace iklab::testing

#endif  // IKLAB_TESTS_ALLOCATION_COUNTER_H_
