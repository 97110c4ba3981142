#ifndef IKLAB_SOLVERS_ANALYTIC_TOLANI_SWIVEL_INTERVALS_H_
#define IKLAB_SOLVERS_ANALYTIC_TOLANI_SWIVEL_INTERVALS_H_

/// @file
/// Interval sets on the swivel circle (Tolani §3.2.4: the valid swivel
/// angles under joint limits are unions of arcs, with wrap-around).

#include <algorithm>
#include <array>

namespace iklab {

/// A closed subset of the circle [0, 2π) as at most kCapacity disjoint
/// intervals, kept in a fixed-size array (no allocation). Stored linearly in
/// [0, 2π], sorted; an arc across 0 is stored as two pieces [0, b] and
/// [a, 2π], which Arcs() merges again ("wrap-around", Tolani §3.2.4).
class SwivelIntervals {
 public:
  static constexpr int kCapacity = 32;
  /// [lo, hi]; plain data (left uninitialized in unused slots, so that a set
  /// costs nothing to create).
  struct Interval {
    double lo;
    double hi;
    double length() const { return hi - lo; }
  };

  /// The empty set. (User-provided, so that value-initialization does not
  /// zero the unused slots.)
  SwivelIntervals() {}
  /// Copies only the used slots: a set is a few intervals in a fixed
  /// capacity, and the limit analysis copies sets often.
  SwivelIntervals(const SwivelIntervals& other) : size_(other.size_) {
    std::copy_n(other.pieces_.begin(), size_, pieces_.begin());
  }
  SwivelIntervals& operator=(const SwivelIntervals& other) {
    size_ = other.size_;
    std::copy_n(other.pieces_.begin(), size_, pieces_.begin());
    return *this;
  }
  /// [0, 2π].
  static SwivelIntervals Full();

  int size() const { return size_; }
  /// Makes the set empty.
  void Clear() { size_ = 0; }
  bool empty() const { return size_ == 0; }
  /// True if the set is the whole circle.
  bool full() const;
  const Interval& operator[](int i) const { return pieces_[i]; }
  /// Total length, radians.
  double Measure() const;
  /// True if φ (any real; taken mod 2π) lies in the set, widened by
  /// `tolerance` at each end.
  bool Contains(double phi, double tolerance = 0.0) const;

  /// Appends [lo, hi] ⊂ [0, 2π] with lo ≥ the last piece's lo, merging
  /// with the last piece when they touch. Ignores pieces beyond capacity
  /// (cannot happen for the limb: at most 24 breakpoints).
  void Append(double lo, double hi) {
    if (!(hi >= lo)) return;
    if (size_ > 0 && lo <= pieces_[size_ - 1].hi) {
      pieces_[size_ - 1].hi = std::max(pieces_[size_ - 1].hi, hi);
      return;
    }
    if (size_ == kCapacity) return;
    pieces_[size_++] = Interval{lo, hi};
  }
  SwivelIntervals Intersection(const SwivelIntervals& other) const;
  SwivelIntervals Union(const SwivelIntervals& other) const;

  /// The set as arcs of the circle: pieces touching 0 and 2π are merged
  /// into one arc [a, b + 2π] (hi may exceed 2π). Returns the count.
  int Arcs(std::array<Interval, kCapacity>* arcs) const;
  /// The longest arc; false if empty.
  bool LongestArc(Interval* arc) const;
  /// The point of the set closest to φ along the circle, at least `margin`
  /// inside an arc's ends (the midpoint of arcs shorter than 2·margin), in
  /// (−π, π]. φ itself when inside. @pre !empty().
  double Closest(double phi, double margin) const;

 private:
  std::array<Interval, kCapacity> pieces_;
  int size_ = 0;
};

}  // namespace iklab

#endif  // IKLAB_SOLVERS_ANALYTIC_TOLANI_SWIVEL_INTERVALS_H_
