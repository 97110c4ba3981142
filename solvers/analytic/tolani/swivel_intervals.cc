#include "solvers/analytic/tolani/swivel_intervals.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/analytic/tolani/internal/limb_math.h"

namespace iklab {

namespace {
using internal::limb::kTwoPi;
using internal::limb::Wrap;
using internal::limb::Wrap2Pi;
}  // namespace

SwivelIntervals SwivelIntervals::Full() {
  SwivelIntervals s;
  s.Append(0.0, kTwoPi);
  return s;
}

bool SwivelIntervals::full() const {
  return size_ == 1 && pieces_[0].lo <= 0.0 && pieces_[0].hi >= kTwoPi;
}

double SwivelIntervals::Measure() const {
  double m = 0.0;
  for (int i = 0; i < size_; ++i) m += pieces_[i].length();
  return m;
}

bool SwivelIntervals::Contains(double phi, double tolerance) const {
  const double p = Wrap2Pi(phi);
  for (int i = 0; i < size_; ++i) {
    const Interval& in = pieces_[i];
    if (p >= in.lo - tolerance && p <= in.hi + tolerance) return true;
    // Near 0 / 2π the widened ends wrap around.
    if (p - kTwoPi >= in.lo - tolerance && p - kTwoPi <= in.hi + tolerance) {
      return true;
    }
    if (p + kTwoPi >= in.lo - tolerance && p + kTwoPi <= in.hi + tolerance) {
      return true;
    }
  }
  return false;
}

SwivelIntervals SwivelIntervals::Intersection(
    const SwivelIntervals& other) const {
  SwivelIntervals out;
  int i = 0, j = 0;
  while (i < size_ && j < other.size_) {
    const double lo = std::max(pieces_[i].lo, other.pieces_[j].lo);
    const double hi = std::min(pieces_[i].hi, other.pieces_[j].hi);
    if (lo <= hi) out.Append(lo, hi);
    if (pieces_[i].hi < other.pieces_[j].hi) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

SwivelIntervals SwivelIntervals::Union(const SwivelIntervals& other) const {
  SwivelIntervals out;
  int i = 0, j = 0;
  while (i < size_ || j < other.size_) {
    const bool take_mine =
        j >= other.size_ || (i < size_ && pieces_[i].lo <= other.pieces_[j].lo);
    const Interval& in = take_mine ? pieces_[i++] : other.pieces_[j++];
    out.Append(in.lo, in.hi);
  }
  return out;
}

int SwivelIntervals::Arcs(std::array<Interval, kCapacity>* arcs) const {
  if (size_ == 0) return 0;
  if (full()) {
    (*arcs)[0] = Interval{0.0, kTwoPi};
    return 1;
  }
  const bool wraps =
      size_ > 1 && pieces_[0].lo <= 0.0 && pieces_[size_ - 1].hi >= kTwoPi;
  int n = 0;
  for (int i = wraps ? 1 : 0; i < size_; ++i) (*arcs)[n++] = pieces_[i];
  if (wraps) (*arcs)[n - 1].hi = kTwoPi + pieces_[0].hi;
  return n;
}

bool SwivelIntervals::LongestArc(Interval* arc) const {
  std::array<Interval, kCapacity> arcs;
  const int n = Arcs(&arcs);
  if (n == 0) return false;
  int best = 0;
  for (int i = 1; i < n; ++i) {
    if (arcs[i].length() > arcs[best].length()) best = i;
  }
  *arc = arcs[best];
  return true;
}

double SwivelIntervals::Closest(double phi, double margin) const {
  std::array<Interval, kCapacity> arcs;
  const int n = Arcs(&arcs);
  if (n == 0) return Wrap(phi);
  if (full()) return Wrap(phi);
  double best = Wrap(phi);
  double best_distance = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    double lo = arcs[i].lo + margin, hi = arcs[i].hi - margin;
    if (lo > hi) lo = hi = 0.5 * (arcs[i].lo + arcs[i].hi);
    // φ inside the (shrunk) arc, in any representative.
    const double mid = 0.5 * (lo + hi);
    const double candidate_in = mid + Wrap(phi - mid);
    if (candidate_in >= lo && candidate_in <= hi) return Wrap(candidate_in);
    for (double end : {lo, hi}) {
      const double d = std::abs(Wrap(phi - end));
      if (d < best_distance) {
        best_distance = d;
        best = Wrap(end);
      }
    }
  }
  return best;
}

}  // namespace iklab
