#include "tests/allocation_counter.h"

#include <cstddef>

// Every heap allocation goes through malloc: operator new in libstdc++ and
// Eigen's aligned_malloc both call it. The test binary interposes malloc,
// calloc and realloc to count calls on the current thread and forwards to
// glibc. Sanitizer builds interpose malloc themselves, so counting is off
// there (AllocationCounter::enabled() says so and the test skips).
#if defined(__SANITIZE_ADDRESS__)
#define IKLAB_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IKLAB_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef IKLAB_COUNT_ALLOCATIONS
#define IKLAB_COUNT_ALLOCATIONS 1
#endif

namespace {
__attribute__((tls_model("initial-exec"))) thread_local long allocations = 0;
}  // namespace

#if IKLAB_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);

void* malloc(std::size_t size) {
  ++allocations;
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  ++allocations;
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) {
  ++allocations;
  return __libc_realloc(p, size);
}
}  // extern "C"
#endif

namespace iklab::testing {

AllocationCounter::AllocationCounter() : start_(allocations) {}
AllocationCounter::~AllocationCounter() = default;
long AllocationCounter::count() const { return allocations - start_; }
bool AllocationCounter::enabled() { return IKLAB_COUNT_ALLOCATIONS != 0; }

}  // namespace iklab::testing
