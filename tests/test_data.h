#ifndef IKLAB_TESTS_TEST_DATA_H_
#define IKLAB_TESTS_TEST_DATA_H_

/// @file
/// Where the tests find data files.
///
/// The project's own data (data/ in the source tree) is always there. The
/// upstream robot description and motion-capture files the shipped models
/// and readers are cross-checked against live outside the project, in a
/// folder a clone does not have; tests that need them start with
/// IKLAB_SKIP_WITHOUT_UPSTREAM_DATA(), which reports "SKIPPED: ..." (a
/// Catch2 WARN, always printed) and returns when the folder is absent. CTest
/// shows such tests as skipped (SKIP_REGULAR_EXPRESSION in
/// tests/CMakeLists.txt). Catch2 2.x has no SKIP macro.

#include <string>

#include <catch2/catch.hpp>

namespace iklab::testing {

/// `relative` inside the project's data folder (the source tree's data/).
std::string ShippedDataFile(const std::string& relative);

/// The folder of upstream files for cross-checks, or "" when it is absent.
std::string UpstreamDataDirectory();

/// `relative` inside UpstreamDataDirectory() (check that it is not "" first).
std::string UpstreamDataFile(const std::string& relative);

}  // namespace iklab::testing

/// Ends the current test case, visibly, when the upstream files are absent.
#define IKLAB_SKIP_WITHOUT_UPSTREAM_DATA()                                 \
  do {                                                                     \
    if (::iklab::testing::UpstreamDataDirectory().empty()) {               \
      WARN("SKIPPED: the upstream data folder (" IKLAB_SHARED_DATA_DIR     \
           ") is absent; this cross-check against the upstream files did " \
           "not run");                                                     \
      return;                                                              \
    }                                                                      \
  } while (false)

#endif  // IKLAB_TESTS_TEST_DATA_H_
