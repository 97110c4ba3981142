// The statistics of the reports (lab/statistics.h): percentiles by linear
// interpolation between order statistics (Hyndman & Fan definition 7), the
// median as the 0.5 percentile, the mean; NaN for an empty sample. The
// expected values are computed by hand in the comments.

#include "lab/statistics.h"

#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

namespace iklab {
namespace {

TEST_CASE("The median of an odd count is the middle value", "[lab][statistics]") {
  CHECK(Median({7.0}) == 7.0);
  // Sorted: 1 2 3 → the middle one.
  CHECK(Median({3.0, 1.0, 2.0}) == 2.0);
  // Sorted: -4 0 5 9 100 → 5, whatever the outliers.
  CHECK(Median({100.0, -4.0, 9.0, 0.0, 5.0}) == 5.0);
}

TEST_CASE("The median of an even count is the mean of the two middle values",
          "[lab][statistics]") {
  // Sorted: 1 2 3 4 → (2 + 3) / 2.
  CHECK(Median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(Median({10.0, 20.0}) == 15.0);
  // Equal middle values: that value.
  CHECK(Median({1.0, 5.0, 5.0, 9.0}) == 5.0);
}

TEST_CASE("Percentiles interpolate linearly between order statistics",
          "[lab][statistics]") {
  const std::vector<double> v = {30.0, 10.0, 20.0};  // sorted: 10 20 30
  CHECK(Percentile(v, 0.0) == 10.0);                 // the smallest
  CHECK(Percentile(v, 1.0) == 30.0);                 // the largest
  CHECK(Percentile(v, 0.5) == 20.0);                 // h = 0.5·2 = 1
  CHECK(Percentile(v, 0.25) == 15.0);                // h = 0.5: 10 + 0.5·10
  CHECK(Percentile(v, 0.75) == 25.0);                // h = 1.5: 20 + 0.5·10
  // Sorted 1…10, p95: h = 0.95·9 = 8.55 → 9 + 0.55·(10 − 9) = 9.55.
  const std::vector<double> ten = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  CHECK(Percentile(ten, 0.95) == Approx(9.55).epsilon(1e-15));
  // p99: h = 8.91 → 9.91.
  CHECK(Percentile(ten, 0.99) == Approx(9.91).epsilon(1e-15));
  // One value: every percentile is that value.
  CHECK(Percentile({4.0}, 0.0) == 4.0);
  CHECK(Percentile({4.0}, 0.99) == 4.0);
  // The input is not reordered (a copy is sorted).
  CHECK(v == std::vector<double>{30.0, 10.0, 20.0});
}

TEST_CASE("The mean averages every value", "[lab][statistics]") {
  CHECK(Mean({2.0}) == 2.0);
  CHECK(Mean({1.0, 2.0, 3.0, 6.0}) == 3.0);
  CHECK(Mean({-1.0, 1.0}) == 0.0);
}

TEST_CASE("A quantile on a finite value stays finite beside an infinite one",
          "[lab][statistics]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(Median({1.0, 2.0, inf}) == 2.0);
  CHECK(Percentile({1.0, 2.0, inf}, 0.0) == 1.0);
  CHECK(Percentile({1.0, 2.0, inf}, 1.0) == inf);
  CHECK(Percentile({1.0, 2.0, inf}, 0.75) == inf);
  CHECK(Median({-inf, 3.0, 4.0}) == 3.0);
  CHECK(Percentile({-inf, 3.0, 4.0}, 0.25) == -inf);
  CHECK(Median({1.0, inf, inf, inf}) == inf);
}

TEST_CASE("Statistics of an empty sample are NaN", "[lab][statistics]") {
  CHECK(std::isnan(Median({})));
  CHECK(std::isnan(Percentile({}, 0.5)));
  CHECK(std::isnan(Percentile({}, 0.0)));
  CHECK(std::isnan(Mean({})));
}

}  // namespace
}  // namespace iklab
