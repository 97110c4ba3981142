#ifndef IKLAB_LAB_STATISTICS_H_
#define IKLAB_LAB_STATISTICS_H_

/// @file
/// The summary statistics of the reports: mean, median and percentiles of a
/// sample (times per solve, errors). One definition for every table:
///
/// - Percentiles interpolate linearly between order statistics (Hyndman &
///   Fan, "Sample quantiles in statistical packages", The American
///   Statistician 50(4), 1996, definition 7; NumPy's default `linear`
///   method, R's `quantile(type = 7)`). With the sample sorted,
///   x_(0) ≤ … ≤ x_(n−1), and h = p·(n − 1):
///
///       Q(p) = x_(⌊h⌋) + (h − ⌊h⌋) · (x_(⌊h⌋+1) − x_(⌊h⌋))
///
///   so Q(0) is the smallest value, Q(1) the largest, and a percentile lies
///   between two sample values, not necessarily on one.
/// - The median is Q(0.5): the middle value of an odd count, the mean of the
///   two middle values of an even count.
///
/// docs/concepts.md, "Statistics in reports", says which tables use these.

#include <vector>

namespace iklab {

/// The p-th quantile Q(p) of `values` by linear interpolation between order
/// statistics (see the file comment): Percentile({1, 2, 3, 4}, 0.5) = 2.5,
/// Percentile({10, 20, 30}, 0.25) = 15.
/// @param values the sample, in any order (sorted here, on a copy).
/// @param p the quantile as a fraction in [0, 1] (0.95 for p95).
/// @pre no value is NaN (the sort needs an order), p is in [0, 1]. Infinite
///   values sort to the ends: a quantile that falls on a finite value is
///   that value (the median of {1, 2, ∞} is 2), one between a finite and an
///   infinite value, or between two equal infinite ones, is that infinity.
/// @return Q(p); NaN for an empty sample.
double Percentile(std::vector<double> values, double p);

/// The median, Percentile(values, 0.5): the middle value of an odd count,
/// the mean of the two middle values of an even count; NaN for an empty
/// sample. @pre as Percentile.
double Median(std::vector<double> values);

/// The arithmetic mean, accumulated as Σ (x_i / n) in the given order (as
/// the study tables always summed; the last bits can differ from
/// (Σ x_i) / n); NaN for an empty sample.
double Mean(const std::vector<double>& values);

}  // namespace iklab

#endif  // IKLAB_LAB_STATISTICS_H_
