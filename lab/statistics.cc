#include "lab/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

namespace iklab {

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double rank = p * (values.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(rank));
  const double fraction = rank - static_cast<double>(lo);
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  const double a = values[lo];
  const double b = values[hi];  // a <= b
  // On a sample value, between equal ones, or next to an infinite one (the
  // interpolation's limit, which ∞ − ∞ would turn into NaN).
  if (fraction == 0.0 || a == b || std::isinf(a)) return a;
  if (std::isinf(b)) return b;
  return a + fraction * (b - a);
}

double Median(std::vector<double> values) {
  return Percentile(std::move(values), 0.5);
}

double Mean(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double n = static_cast<double>(values.size());
  double mean = 0.0;
  for (const double x : values) mean += x / n;
  return mean;
}

}  // namespace iklab
