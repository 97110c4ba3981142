// Forward kinematics and Jacobian microbenchmarks (filled in with the
// builders; see framework/builders.h).
#include <benchmark/benchmark.h>
